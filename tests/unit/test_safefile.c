/* Files in shared directories and the sweep of dead servers' litter, on
 * real files in a scratch directory: publication never writes through a
 * name that is not a regular file of ours (symlinks, fifos, directories
 * stay as they are), names with '/' or ".." are refused; the sweep removes
 * the rendezvous files and session directories of dead processes of ours
 * (a pid now given to another process counts as dead), and leaves live
 * ones, symlinks, other hosts' files and what is not a file of ours.
 * Also: a listener's socket path, the token comparison, and the uid/gid a
 * peer put among the infos it sends the host. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <pmix.h>

#include "common/rendezvous.h"
#include "common/safefile.h"
#include "common/sweep.h"
#include "common/usock.h"
#include "server/server_internal.h"
#include "server/server_peer.h"
#include "server/server_util.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/sy-safefile-XXXXXX");
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *path_of(const char *name)
{
    static char buf[4][512];
    static unsigned next;
    char *p = buf[next++ % 4];
    if ((size_t)snprintf(p, sizeof(buf[0]), "%s/%s", dir, name) >= sizeof(buf[0]))
        fail_msg("path too long: %s", name);
    return p;
}

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_file(const char *name)
{
    static char buf[1024];
    FILE *f = fopen(path_of(name), "r");
    if (f == NULL)
        return NULL;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static unsigned entries(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    unsigned n = 0;
    if (p != NULL) {
        if (fscanf(p, "%u", &n) != 1)
            n = 0;
        pclose(p);
    }
    return n;
}

static void test_names(void **state)
{
    (void)state;
    assert_true(sy_safe_name("pmix.host.tool.123"));
    assert_false(sy_safe_name(""));
    assert_false(sy_safe_name("."));
    assert_false(sy_safe_name(".."));
    assert_false(sy_safe_name("a/b"));
    assert_false(sy_safe_name("../etc"));
    assert_false(sy_safe_name("a\nb"));
    assert_false(sy_safe_name(NULL));
}

static void test_publish(void **state)
{
    (void)state;
    assert_int_equal(sy_safe_publish(dir, "f", "one\n", 4, 0600), PMIX_SUCCESS);
    assert_string_equal(read_file("f"), "one\n");
    struct stat st;
    assert_int_equal(lstat(path_of("f"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    /* a file of ours is replaced (a new inode: readers of the old see it whole) */
    ino_t old = st.st_ino;
    assert_int_equal(sy_safe_publish(dir, "f", "two\n", 4, 0640), PMIX_SUCCESS);
    assert_string_equal(read_file("f"), "two\n");
    assert_int_equal(lstat(path_of("f"), &st), 0);
    assert_true(st.st_ino != old);
    assert_int_equal(st.st_mode & 07777, 0640);
    /* a symlink is not followed, nor replaced */
    write_file("target", "keep\n");
    assert_int_equal(symlink(path_of("target"), path_of("link")), 0);
    assert_int_equal(sy_safe_publish(dir, "link", "evil\n", 5, 0600), PMIX_EXISTS);
    assert_string_equal(read_file("target"), "keep\n");
    assert_int_equal(lstat(path_of("link"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    /* a fifo (opening it would block) and a directory stay */
    assert_int_equal(mkfifo(path_of("fifo"), 0600), 0);
    assert_int_equal(sy_safe_publish(dir, "fifo", "x", 1, 0600), PMIX_EXISTS);
    assert_int_equal(mkdir(path_of("d"), 0700), 0);
    assert_int_equal(sy_safe_publish(dir, "d", "x", 1, 0600), PMIX_EXISTS);
    /* a file with another link (a hard link to something) is not ours to use */
    assert_int_equal(link(path_of("target"), path_of("hard")), 0);
    assert_int_equal(sy_safe_publish(dir, "hard", "x", 1, 0600), PMIX_SUCCESS);
    assert_string_equal(read_file("target"), "keep\n"); /* replaced, not written */
    /* names that would leave the directory */
    assert_int_equal(sy_safe_publish(dir, "../escape", "x", 1, 0600), PMIX_ERR_BAD_PARAM);
    assert_int_equal(sy_safe_publish(dir, "..", "x", 1, 0600), PMIX_ERR_BAD_PARAM);
    /* no temporary is left behind */
    assert_int_equal(entries(), 6); /* f target link fifo d hard */
}

/* A rendezvous file as a server writes it. */
static void write_rndz(const char *name, long pid, unsigned long long pstart, const char *host)
{
    char text[512];
    snprintf(text, sizeof(text),
             "x.0;tcp4://127.0.0.1:1\nversion:4.2.2\npid:%ld\nstart:1\npstart:%llu\n"
             "usock:/nonexistent\nnspace:x\nrank:0\nhostname:%s\ntoken:00\n",
             pid, pstart, host);
    write_file(name, text);
    chmod(path_of(name), 0600);
}

/* A pid that is no process's any more. */
static pid_t dead_pid(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    int st;
    waitpid(p, &st, 0);
    return p;
}

static void test_proc_alive(void **state)
{
    (void)state;
    unsigned long long me = sy_proc_start_ticks(getpid());
    assert_true(me != 0);
    assert_true(sy_proc_alive(getpid(), me, 0));
    assert_false(sy_proc_alive(getpid(), me + 1, 0)); /* our pid, another start: reused */
    assert_true(sy_proc_alive(getpid(), 0, (long long)time(NULL)));
    assert_false(sy_proc_alive(getpid(), 0, sy_proc_start_epoch(getpid()) - 100));
    assert_false(sy_proc_alive(dead_pid(), 0, 0));
}

static void test_sweep(void **state)
{
    (void)state;
    pid_t dead = dead_pid();
    unsigned long long me = sy_proc_start_ticks(getpid());
    char name[256], sub[64];
    /* removed: a dead server's files, one of a reused pid, its session dir */
    snprintf(name, sizeof(name), "pmix.h1.tool.%ld", (long)dead);
    write_rndz(name, dead, 0, "h1");
    write_rndz("pmix.h1.tool.reused", getpid(), me + 7, "h1");
    snprintf(sub, sizeof(sub), "switchyard-run.%ld.AAAAAA", (long)dead);
    assert_int_equal(mkdir(path_of(sub), 0700), 0);
    snprintf(name, sizeof(name), "%s/pmix.h1.tool", sub);
    write_rndz(name, dead, 0, "h1");
    snprintf(name, sizeof(name), "%s/ns", sub);
    assert_int_equal(mkdir(path_of(name), 0700), 0);
    snprintf(name, sizeof(name), "%s/ns/0", sub);
    assert_int_equal(mkdir(path_of(name), 0700), 0);
    snprintf(name, sizeof(name), "%s/ns/0/rank-file", sub);
    write_file(name, "x");
    /* a symlink inside a removed directory goes, its target stays */
    write_file("target", "keep\n");
    snprintf(name, sizeof(name), "%s/link", sub);
    assert_int_equal(symlink(path_of("target"), path_of(name)), 0);
    /* a session dir with no rendezvous file whose pid is dead */
    snprintf(sub, sizeof(sub), "switchyard.%ld.BBBBBB", (long)dead);
    assert_int_equal(mkdir(path_of(sub), 0700), 0);
    snprintf(name, sizeof(name), SY_SAFE_TMP_PREFIX "%ld.CCCCCC", (long)dead);
    write_file(name, "x");
    assert_int_equal(sy_sweep_dead(dir, "h1"), 5);

    /* kept: live servers, another host's, symlinks, what is not ours to judge */
    snprintf(name, sizeof(name), "pmix.h1.tool.%ld", (long)getpid());
    write_rndz(name, getpid(), me, "h1");
    snprintf(name, sizeof(name), "pmix.h2.tool.%ld", (long)dead);
    write_rndz(name, dead, 0, "h2");
    write_rndz("pmix.h1.tool.other-host", dead, 0, "h2");
    write_file("pmix.h1.tool.garbage", "not a rendezvous file\n");
    snprintf(sub, sizeof(sub), "switchyard-run.%ld.DDDDDD", (long)getpid());
    assert_int_equal(mkdir(path_of(sub), 0700), 0);
    /* a dead pid's "session directory" that is a symlink to a directory */
    assert_int_equal(mkdir(path_of("victim"), 0700), 0);
    write_file("victim/keep", "keep\n");
    snprintf(sub, sizeof(sub), "switchyard-run.%ld.EEEEEE", (long)dead);
    assert_int_equal(symlink(path_of("victim"), path_of(sub)), 0);
    /* a dead pid's rendezvous name that is a symlink to a file */
    snprintf(name, sizeof(name), "pmix.h1.tool.%ld.x", (long)dead);
    assert_int_equal(symlink(path_of("target"), path_of(name)), 0);
    /* a dead pid's session dir holding another host's rendezvous file */
    snprintf(sub, sizeof(sub), "switchyard.%ld.FFFFFF", (long)dead);
    assert_int_equal(mkdir(path_of(sub), 0700), 0);
    snprintf(name, sizeof(name), "%s/pmix.h2.tool", sub);
    write_rndz(name, dead, 0, "h2");
    unsigned before = entries();
    assert_int_equal(sy_sweep_dead(dir, "h1"), 0);
    assert_int_equal(entries(), before);
    assert_string_equal(read_file("target"), "keep\n");
    assert_string_equal(read_file("victim/keep"), "keep\n");
    /* a host name that is no file name sweeps nothing */
    assert_int_equal(sy_sweep_dead(dir, "../h1"), 0);
}

static void test_rndz_alive(void **state)
{
    (void)state;
    unsigned long long me = sy_proc_start_ticks(getpid());
    write_rndz("r", getpid(), me, "h");
    sy_rndz_t r;
    assert_int_equal(sy_rndz_read(path_of("r"), &r), PMIX_SUCCESS);
    assert_true(r.pstart == me);
    assert_true(sy_rndz_alive(&r));
    r.pstart = me + 1; /* the same pid, started later: not the server */
    assert_false(sy_rndz_alive(&r));
    sy_rndz_free(&r);
    /* a symlink to a rendezvous file is not read */
    assert_int_equal(symlink(path_of("r"), path_of("s")), 0);
    assert_int_equal(sy_rndz_read(path_of("s"), &r), PMIX_ERR_NO_PERMISSIONS);
}

/* A listener's path: a stale socket of ours is replaced, another user's
 * socket (root can chown one to show it) and a symlink are left alone. */
static void test_listener_path(void **state)
{
    (void)state;
    int fd = -1;
    assert_int_equal(sy_usock_listen(path_of("s"), 0600, &fd), PMIX_SUCCESS);
    close(fd);
    assert_int_equal(sy_usock_listen(path_of("s"), 0600, &fd), PMIX_SUCCESS);
    close(fd);
    struct stat st;
    assert_int_equal(lstat(path_of("s"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    write_file("target", "keep\n");
    assert_int_equal(symlink(path_of("target"), path_of("l")), 0);
    assert_int_equal(sy_usock_listen(path_of("l"), 0600, &fd), PMIX_EXISTS);
    assert_string_equal(read_file("target"), "keep\n");
    if (geteuid() == 0) {
        assert_int_equal(lchown(path_of("s"), 65534, 65534), 0);
        assert_int_equal(sy_usock_listen(path_of("s"), 0600, &fd), PMIX_EXISTS);
        assert_int_equal(lstat(path_of("s"), &st), 0);
        assert_int_equal(st.st_uid, 65534);
    }
}

static void test_token(void **state)
{
    (void)state;
    const char *t = "0123456789abcdef0123456789abcdef";
    assert_true(sy_srv_token_matches(t, t));
    assert_false(sy_srv_token_matches("0123456789abcdef0123456789abcdee", t));
    assert_false(sy_srv_token_matches("0123456789abcdef", t));
    assert_false(sy_srv_token_matches("0123456789abcdef0123456789abcdef0", t));
    assert_false(sy_srv_token_matches("", t));
    assert_false(sy_srv_token_matches(NULL, t));
    assert_false(sy_srv_token_matches("", ""));
}

static void test_peer_ids(void **state)
{
    (void)state;
    sy_srv_client_t c = {.uid = 1234, .gid = 5678};
    pmix_info_t *info;
    size_t n = 3;
    PMIX_INFO_CREATE(info, n);
    uint32_t zero = 0;
    PMIX_INFO_LOAD(&info[0], PMIX_USERID, &zero, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], "sy.other", "v", PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_GRPID, &zero, PMIX_UINT32);
    assert_int_equal(sy_srv_add_ids(&info, &n, &c), PMIX_SUCCESS);
    /* the peer's claims gone, ours the only ones */
    size_t users = 0, groups = 0, others = 0;
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_USERID)) {
            users++;
            assert_int_equal(info[i].value.data.uint32, 1234);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_GRPID)) {
            groups++;
            assert_int_equal(info[i].value.data.uint32, 5678);
        } else {
            others++;
        }
    }
    assert_int_equal(users, 1);
    assert_int_equal(groups, 1);
    assert_int_equal(others, 1);
    PMIX_INFO_FREE(info, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test_setup_teardown(test_publish, setup, teardown),
        cmocka_unit_test(test_proc_alive),
        cmocka_unit_test_setup_teardown(test_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rndz_alive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_listener_path, setup, teardown),
        cmocka_unit_test(test_token),
        cmocka_unit_test(test_peer_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
