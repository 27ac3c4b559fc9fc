/* Exclusive creation, fstat checks and atomic publication in shared
 * directories; process identity by pid and start time (safefile.h). */
#define _GNU_SOURCE
#include "common/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"

bool sy_safe_name(const char *name)
{
    if (name == NULL || name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return false;
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p != '\0'; p++, n++)
        if (*p == '/' || *p < 0x20 || *p == 0x7f)
            return false;
    return n <= NAME_MAX;
}

bool sy_safe_fd_ours(int fd, bool dir, mode_t forbidden, const char **why)
{
    struct stat st;
    const char *w = NULL;
    if (fstat(fd, &st) != 0)
        w = "cannot be examined";
    else if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
        w = dir ? "is not a directory" : "is not a regular file";
    else if (st.st_uid != geteuid())
        w = "belongs to another user";
    else if (!dir && st.st_nlink != 1)
        w = "has other links to it";
    else if ((st.st_mode & forbidden) != 0)
        w = "has a mode that lets others in";
    if (why != NULL)
        *why = w;
    return w == NULL;
}

static const char *kind_of(mode_t m)
{
    return S_ISREG(m)    ? "file"
           : S_ISDIR(m)  ? "directory"
           : S_ISLNK(m)  ? "symbolic link"
           : S_ISSOCK(m) ? "socket"
           : S_ISFIFO(m) ? "fifo"
                         : "special file";
}

static pmix_status_t write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return PMIX_ERROR;
        p += w;
        n -= (size_t)w;
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_safe_publish(const char *dir, const char *name, const void *data, size_t len,
                              mode_t mode)
{
    if (dir == NULL || !sy_safe_name(name)) {
        sy_log(SY_LOG_WARN, "not creating '%s' in %s: not a plain file name",
               name != NULL ? name : "(null)", dir != NULL ? dir : "(null)");
        return PMIX_ERR_BAD_PARAM;
    }
    char *path = NULL, *tmp = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0)
        return PMIX_ERR_NOMEM;
    if (asprintf(&tmp, "%s/" SY_SAFE_TMP_PREFIX "%ld.XXXXXX", dir, (long)getpid()) < 0) {
        free(path);
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    struct stat st;
    if (lstat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
        /* someone else's name: whatever it is, it stays as it is */
        sy_log(SY_LOG_WARN, "not writing %s: a %s of uid %u is there already", path,
               kind_of(st.st_mode), (unsigned)st.st_uid);
        rc = PMIX_EXISTS;
        goto out;
    }
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        sy_log(SY_LOG_WARN, "cannot create a file in %s: %s", dir, strerror(e));
        rc = e == EACCES || e == EPERM ? PMIX_ERR_NO_PERMISSIONS : PMIX_ERROR;
        goto out;
    }
    const char *why = NULL;
    if (!sy_safe_fd_ours(fd, false, 0, &why)) {
        /* mkstemp's O_EXCL makes this impossible; checked all the same */
        sy_log(SY_LOG_WARN, "not using %s: it %s", tmp, why);
        close(fd);
        rc = PMIX_ERR_NO_PERMISSIONS;
        goto out; /* not ours: not ours to remove either */
    }
    if (fchmod(fd, mode & 07777) != 0 || write_all(fd, data, len) != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "cannot write %s: %s", tmp, strerror(errno));
        rc = PMIX_ERROR;
    }
    if (close(fd) != 0 && rc == PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "cannot write %s: %s", tmp, strerror(errno));
        rc = PMIX_ERROR;
    }
    /* rename replaces a name, never writes through it; in a sticky
     * directory it cannot replace another user's file (EPERM) */
    if (rc == PMIX_SUCCESS && rename(tmp, path) != 0) {
        int e = errno;
        if (e == EPERM || e == EACCES || e == EISDIR || e == ENOTEMPTY || e == EEXIST) {
            sy_log(SY_LOG_WARN, "not writing %s: someone else's name appeared there", path);
            rc = PMIX_EXISTS;
        } else {
            sy_log(SY_LOG_WARN, "cannot publish %s: %s", path, strerror(e));
            rc = PMIX_ERROR;
        }
    }
    if (rc != PMIX_SUCCESS)
        unlink(tmp);
out:
    free(path);
    free(tmp);
    return rc;
}

/* Field 22 of /proc/<pid>/stat; the command (field 2) may hold spaces and
 * parentheses, so fields are counted from its closing parenthesis. */
unsigned long long sy_proc_start_ticks(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (p == NULL)
        return 0;
    p++;
    /* fields 3 (state) .. 21, then 22 */
    for (int field = 3; field < 22; field++) {
        while (*p == ' ')
            p++;
        while (*p != ' ' && *p != '\0')
            p++;
        if (*p == '\0')
            return 0;
    }
    char *end = NULL;
    unsigned long long v = strtoull(p, &end, 10);
    return end == p ? 0 : v;
}

static long long boot_time(void)
{
    FILE *f = fopen("/proc/stat", "re");
    if (f == NULL)
        return 0;
    char line[256];
    long long bt = 0;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "btime %lld", &bt) == 1)
            break;
    fclose(f);
    return bt;
}

long long sy_proc_start_epoch(pid_t pid)
{
    unsigned long long ticks = sy_proc_start_ticks(pid);
    long hz = sysconf(_SC_CLK_TCK);
    long long bt = ticks != 0 && hz > 0 ? boot_time() : 0;
    return bt != 0 ? bt + (long long)(ticks / (unsigned long long)hz) : 0;
}

bool sy_proc_alive(pid_t pid, unsigned long long start_ticks, long long since)
{
    if (pid <= 0 || (kill(pid, 0) != 0 && errno != EPERM))
        return false;
    if (start_ticks != 0) {
        unsigned long long now = sy_proc_start_ticks(pid);
        return now == 0 || now == start_ticks; /* unreadable: assume alive */
    }
    if (since > 0) {
        long long started = sy_proc_start_epoch(pid);
        /* boot time and ticks round down: a second of slack */
        return started == 0 || started <= since + 1;
    }
    return true;
}
