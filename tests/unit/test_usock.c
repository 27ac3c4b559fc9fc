/* Unit test: socket primitives (src/common/usock.c): UNIX and TCP listeners
 * and connectors, close-on-exec, socket file mode, peer credentials, the
 * private directory rules. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include <pmix_common.h>

#include "common/usock.h"

typedef struct {
    char dir[64];
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/sy-usock-XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    if (system(cmd) != 0)
        return -1;
    free(f);
    return 0;
}

static void assert_fd_flags(int fd)
{
    int fdfl = fcntl(fd, F_GETFD);
    int fl = fcntl(fd, F_GETFL);
    assert_true(fdfl >= 0 && (fdfl & FD_CLOEXEC));
    assert_true(fl >= 0 && (fl & O_NONBLOCK));
}

/* Accept on a non-blocking listener, waiting a little for the connect. */
static int accept_one(int lfd)
{
    int fd = -1;
    for (int i = 0; i < 1000; i++) {
        pmix_status_t rc = sy_usock_accept(lfd, &fd);
        if (rc == PMIX_SUCCESS)
            return fd;
        assert_int_equal(PMIX_ERR_WOULD_BLOCK, rc);
        usleep(1000);
    }
    fail_msg("no connection accepted");
    return -1;
}

static void test_unix_listen_connect_cred(void **state)
{
    fixture_t *f = *state;
    char path[PATH_MAX];
    int lfd, cfd, sfd;
    snprintf(path, sizeof(path), "%s/srv.sock", f->dir);

    assert_int_equal(PMIX_SUCCESS, sy_usock_listen(path, 0600, &lfd));
    assert_fd_flags(lfd);
    /* Nobody connecting yet. */
    assert_int_equal(PMIX_ERR_WOULD_BLOCK, sy_usock_accept(lfd, &sfd));
    assert_int_equal(-1, sfd);

    assert_int_equal(PMIX_SUCCESS, sy_usock_connect(path, &cfd));
    assert_fd_flags(cfd);
    sfd = accept_one(lfd);
    assert_fd_flags(sfd);

    uid_t uid = (uid_t)-1;
    gid_t gid = (gid_t)-1;
    pid_t pid = -1;
    assert_int_equal(PMIX_SUCCESS, sy_peer_cred(sfd, &uid, &gid, &pid));
    assert_int_equal(getuid(), uid);
    assert_int_equal(getgid(), gid);
    assert_int_equal(getpid(), pid);
    assert_int_equal(PMIX_SUCCESS, sy_peer_cred(cfd, &uid, NULL, &pid));
    assert_int_equal(getpid(), pid);
    assert_int_equal(PMIX_SUCCESS, sy_peer_cred(cfd, NULL, NULL, NULL));

    /* The pair really carries bytes both ways. */
    char c = 0;
    assert_int_equal(1, write(cfd, "x", 1));
    for (int i = 0; i < 1000 && read(sfd, &c, 1) != 1; i++)
        usleep(1000);
    assert_int_equal('x', c);

    close(cfd);
    close(sfd);
    close(lfd);
    unlink(path);
    /* Nobody listening: unreachable, not a crash. */
    assert_int_equal(PMIX_ERR_UNREACH, sy_usock_connect(path, &cfd));
    assert_int_equal(-1, cfd);
    assert_true(strlen(sy_usock_error()) > 0);
}

static void test_unix_socket_mode(void **state)
{
    fixture_t *f = *state;
    char path[PATH_MAX];
    struct stat st;
    int lfd;
    snprintf(path, sizeof(path), "%s/mode.sock", f->dir);

    /* The umask must not decide the mode, in either direction. */
    mode_t old = umask(077);
    assert_int_equal(PMIX_SUCCESS, sy_usock_listen(path, 0660, &lfd));
    umask(old);
    assert_int_equal(0, lstat(path, &st));
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(0660, st.st_mode & 07777);
    close(lfd);

    /* A stale socket of a dead listener is replaced. */
    old = umask(0);
    assert_int_equal(PMIX_SUCCESS, sy_usock_listen(path, 0600, &lfd));
    umask(old);
    assert_int_equal(0, lstat(path, &st));
    assert_int_equal(0600, st.st_mode & 07777);
    close(lfd);
    unlink(path);

    /* A regular file in the way is not removed. */
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fclose(fp);
    assert_int_equal(PMIX_EXISTS, sy_usock_listen(path, 0600, &lfd));
    assert_int_equal(-1, lfd);
    assert_int_equal(0, lstat(path, &st));
    assert_true(S_ISREG(st.st_mode));
    unlink(path);
}

static void test_unix_path_too_long(void **state)
{
    fixture_t *f = *state;
    struct sockaddr_un sa;
    char path[PATH_MAX];
    int fd = 42;

    /* Exactly sizeof(sun_path) bytes: one too many for the terminator. */
    size_t n = (size_t)snprintf(path, sizeof(path), "%s/", f->dir);
    while (n < sizeof(sa.sun_path))
        path[n++] = 'a';
    path[n] = '\0';
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_usock_listen(path, 0600, &fd));
    assert_int_equal(-1, fd);
    assert_non_null(strstr(sy_usock_error(), "at most"));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_usock_connect(path, &fd));
    /* One shorter fits. */
    path[n - 1] = '\0';
    assert_int_equal(PMIX_SUCCESS, sy_usock_listen(path, 0600, &fd));
    close(fd);
    unlink(path);

    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_usock_listen(NULL, 0600, &fd));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_usock_listen("", 0600, &fd));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_usock_listen(path, 0600, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_usock_connect(NULL, &fd));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_peer_cred(-1, NULL, NULL, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_usock_accept(-1, &fd));
}

static void test_tcp(void **state)
{
    (void)state;
    int lfd, cfd, sfd, port = 0;

    assert_int_equal(PMIX_SUCCESS, sy_tcp_listen(NULL, 0, &lfd, &port));
    assert_true(port > 0 && port < 65536);
    assert_fd_flags(lfd);
    /* Bound on loopback only by default. */
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    assert_int_equal(0, getsockname(lfd, (struct sockaddr *)&ss, &sl));
    assert_int_equal(AF_INET, ss.ss_family);
    assert_int_equal(0x7f000001u, ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr));

    assert_int_equal(PMIX_SUCCESS, sy_tcp_connect("127.0.0.1", port, &cfd));
    assert_fd_flags(cfd);
    sfd = accept_one(lfd);
    assert_fd_flags(sfd);
    /* No kernel-verified credentials over TCP. */
    uid_t uid = 12345;
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, sy_peer_cred(sfd, &uid, NULL, NULL));
    assert_int_equal(12345, uid);
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, sy_peer_cred(cfd, NULL, NULL, NULL));
    close(cfd);
    close(sfd);

    /* "localhost" resolves. */
    assert_int_equal(PMIX_SUCCESS, sy_tcp_connect("localhost", port, &cfd));
    close(cfd);
    close(lfd);

    /* A name is not a listen address; bad ports are refused. */
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_tcp_listen("not-an-address", 0, &lfd, NULL));
    assert_int_equal(-1, lfd);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_tcp_listen(NULL, 70000, &lfd, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_tcp_connect(NULL, port, &cfd));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_tcp_connect("127.0.0.1", 0, &cfd));
    /* The port was closed above: nothing listens. */
    assert_int_equal(PMIX_ERR_UNREACH, sy_tcp_connect("127.0.0.1", port, &cfd));

    /* IPv6 loopback, where the host has it. */
    if (sy_tcp_listen("::1", 0, &lfd, &port) == PMIX_SUCCESS) {
        assert_int_equal(PMIX_SUCCESS, sy_tcp_connect("::1", port, &cfd));
        sfd = accept_one(lfd);
        close(sfd);
        close(cfd);
        close(lfd);
    }
}

static void test_mkdir_private(void **state)
{
    fixture_t *f = *state;
    char path[PATH_MAX], link[PATH_MAX], file[PATH_MAX];
    struct stat st;

    snprintf(path, sizeof(path), "%s/priv", f->dir);
    mode_t old = umask(0777); /* even a hostile umask yields 0700 */
    assert_int_equal(PMIX_SUCCESS, sy_mkdir_private(path));
    umask(old);
    assert_int_equal(0, lstat(path, &st));
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(0700, st.st_mode & 07777);
    assert_int_equal(geteuid(), st.st_uid);
    /* Existing and correct: accepted. */
    assert_int_equal(PMIX_SUCCESS, sy_mkdir_private(path));

    /* Existing but open to others: refused, not silently fixed. */
    assert_int_equal(0, chmod(path, 0755));
    assert_int_equal(PMIX_ERR_NO_PERMISSIONS, sy_mkdir_private(path));
    assert_non_null(strstr(sy_usock_error(), "0755"));
    assert_int_equal(0, chmod(path, 0700));

    /* A symlink to a good directory is still refused. */
    snprintf(link, sizeof(link), "%s/link", f->dir);
    assert_int_equal(0, symlink(path, link));
    assert_int_equal(PMIX_ERR_NO_PERMISSIONS, sy_mkdir_private(link));
    assert_non_null(strstr(sy_usock_error(), "symbolic link"));

    /* A file. */
    snprintf(file, sizeof(file), "%s/file", f->dir);
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    fclose(fp);
    assert_int_equal(PMIX_ERR_NO_PERMISSIONS, sy_mkdir_private(file));

    /* Missing parent. */
    snprintf(file, sizeof(file), "%s/no/such", f->dir);
    assert_int_not_equal(PMIX_SUCCESS, sy_mkdir_private(file));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_mkdir_private(NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_mkdir_private(""));

    /* Foreign owner: only testable as root (chown to nobody). */
    if (geteuid() == 0) {
        snprintf(file, sizeof(file), "%s/foreign", f->dir);
        assert_int_equal(0, mkdir(file, 0700));
        assert_int_equal(0, chown(file, 65534, 65534));
        assert_int_equal(PMIX_ERR_NO_PERMISSIONS, sy_mkdir_private(file));
        assert_non_null(strstr(sy_usock_error(), "owned by uid 65534"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unix_listen_connect_cred, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unix_socket_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unix_path_too_long, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tcp, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mkdir_private, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
