/* Removing what dead servers of ours left in a shared directory
 * (sweep.h).  Every decision is made on a descriptor opened with
 * O_NOFOLLOW and checked with fstat, and a name is removed only while it
 * still names the inode that was checked. */
#define _GNU_SOURCE
#include "common/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/rendezvous.h"
#include "common/safefile.h"

/* deepest level of a session directory we descend to (nspace/rank dirs
 * and what ranks make in them) */
#define SWEEP_MAX_DEPTH 16

static const char *const session_prefixes[] = {"switchyard.", "switchyard-run.",
                                               "switchyard-singleton."};

/* "<prefix><pid>.<suffix>": the pid, or 0 when name does not have that form. */
static pid_t pid_after(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0)
        return 0;
    const char *p = name + n;
    char *end = NULL;
    long v = strtol(p, &end, 10);
    if (end == p || *end != '.' || end[1] == '\0' || v <= 0)
        return 0;
    return (pid_t)v;
}

static bool is_host_rendezvous(const char *name, const char *host)
{
    size_t h = strlen(host);
    if (strncmp(name, "pmix.sys.", 9) == 0)
        return strcmp(name + 9, host) == 0;
    if (strncmp(name, "pmix.", 5) != 0 || strncmp(name + 5, host, h) != 0)
        return false;
    const char *rest = name + 5 + h;
    return strcmp(rest, ".tool") == 0 || strncmp(rest, ".tool.", 6) == 0;
}

/* name in dfd still is the inode fd refers to */
static bool same_entry(int dfd, const char *name, int fd)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* A rendezvous file of ours (fd opened without following): read it.
 * PMIX_SUCCESS with *r filled when it is one, of this host. */
static pmix_status_t read_ours(int fd, const char *name, const char *host, sy_rndz_t *r)
{
    if (!sy_safe_fd_ours(fd, false, 0, NULL))
        return PMIX_ERR_NO_PERMISSIONS;
    pmix_status_t rc = sy_rndz_read_fd(fd, name, r);
    if (rc == PMIX_SUCCESS && r->hostname != NULL && strcmp(r->hostname, host) != 0) {
        sy_rndz_free(r);
        rc = PMIX_ERR_NOT_FOUND;
    }
    return rc;
}

static int sweep_rendezvous(int dfd, const char *dir, const char *name, const char *host)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    sy_rndz_t r;
    int removed = 0;
    if (read_ours(fd, name, host, &r) == PMIX_SUCCESS) {
        if (!sy_rndz_alive(&r) && same_entry(dfd, name, fd) && unlinkat(dfd, name, 0) == 0) {
            sy_log(SY_LOG_INFO, "removed %s/%s of a dead server (pid %ld)", dir, name, (long)r.pid);
            removed = 1;
        }
        sy_rndz_free(&r);
    }
    close(fd);
    return removed;
}

static int sweep_temporary(int dfd, const char *name)
{
    pid_t pid = pid_after(name, SY_SAFE_TMP_PREFIX);
    if (pid == 0 || sy_proc_alive(pid, 0, 0))
        return 0;
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int removed = sy_safe_fd_ours(fd, false, 0, NULL) && same_entry(dfd, name, fd) &&
                  unlinkat(dfd, name, 0) == 0;
    close(fd);
    return removed;
}

/* A stream over the directory dfd refers to, from its first entry (a dup
 * shares the offset of dfd, which another stream may have moved). */
static DIR *open_dir(int dfd)
{
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL && fd >= 0)
        close(fd);
    if (d != NULL)
        rewinddir(d);
    return d;
}

/* Empty the directory dfd (ours, private), then it can be removed.  The
 * names in it are removed, never followed. */
static void remove_contents(int dfd, int depth)
{
    DIR *d = open_dir(dfd);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (!S_ISDIR(st.st_mode)) {
            unlinkat(dfd, n, 0);
            continue;
        }
        if (depth <= 0)
            continue;
        int sub = openat(dfd, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0)
            continue;
        if (sy_safe_fd_ours(sub, true, 0, NULL)) {
            remove_contents(sub, depth - 1);
            unlinkat(dfd, n, AT_REMOVEDIR);
        }
        close(sub);
    }
    closedir(d);
}

/* The rendezvous file a server left in its own tmpdir (pmix.<host>.tool):
 * 1 its server is alive, 0 dead, -1 there is none of ours, -2 it is
 * another host's (a /tmp shared with a container): never ours to judge. */
static int session_server_state(int sub, const char *host)
{
    DIR *d = open_dir(sub);
    if (d == NULL)
        return -2;
    int state = -1;
    struct dirent *e;
    while (state != -2 && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "pmix.", 5) != 0 || n < 10 ||
            strcmp(e->d_name + n - 5, ".tool") != 0)
            continue;
        int rfd = openat(sub, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (rfd < 0)
            continue;
        sy_rndz_t r;
        pmix_status_t rc = read_ours(rfd, e->d_name, host, &r);
        if (rc == PMIX_SUCCESS) {
            if (state != 1)
                state = sy_rndz_alive(&r) ? 1 : 0;
            sy_rndz_free(&r);
        } else if (rc == PMIX_ERR_NOT_FOUND) {
            state = -2;
        }
        close(rfd);
    }
    closedir(d);
    return state;
}

static int sweep_session(int dfd, const char *dir, const char *name, pid_t pid, const char *host)
{
    int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0)
        return 0;
    struct stat st;
    int removed = 0;
    if (!sy_safe_fd_ours(sub, true, 0, NULL) || fstat(sub, &st) != 0) {
        close(sub);
        return 0;
    }
    int state = session_server_state(sub, host);
    /* without a rendezvous file (killed before its server started): the
     * pid in the name, and a process that started after the directory
     * last changed cannot be the one that made it */
    bool dead = state == 0 || (state == -1 && !sy_proc_alive(pid, 0, (long long)st.st_mtime));
    if (dead && same_entry(dfd, name, sub)) {
        remove_contents(sub, SWEEP_MAX_DEPTH);
        if (unlinkat(dfd, name, AT_REMOVEDIR) == 0) {
            sy_log(SY_LOG_INFO, "removed %s/%s of a dead process (pid %ld)", dir, name, (long)pid);
            removed = 1;
        } else {
            sy_log(SY_LOG_WARN, "cannot remove %s/%s of a dead process: %s", dir, name,
                   strerror(errno));
        }
    }
    close(sub);
    return removed;
}

int sy_sweep_dead(const char *dir, const char *host)
{
    if (dir == NULL || host == NULL || !sy_safe_name(host))
        return 0;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    DIR *d = open_dir(dfd);
    if (d == NULL) {
        close(dfd);
        return 0;
    }
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (is_host_rendezvous(n, host)) {
            removed += sweep_rendezvous(dfd, dir, n, host);
            continue;
        }
        if (n[0] == '.') {
            removed += sweep_temporary(dfd, n);
            continue;
        }
        for (size_t i = 0; i < sizeof(session_prefixes) / sizeof(session_prefixes[0]); i++) {
            pid_t pid = pid_after(n, session_prefixes[i]);
            if (pid != 0) {
                removed += sweep_session(dfd, dir, n, pid, host);
                break;
            }
        }
    }
    closedir(d);
    close(dfd);
    return removed;
}
