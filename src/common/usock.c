/* Socket primitives; see usock.h. */
/* accept4, struct ucred (SO_PEERCRED) */
#define _GNU_SOURCE
#include "config.h"
#include "common/usock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* Large enough that a burst of clients starting together (one per core on
 * big nodes) is not refused; the kernel caps it at somaxconn anyway. */
#define SY_LISTEN_BACKLOG 4096

static _Thread_local char last_error[512];

const char *sy_usock_error(void)
{
    return last_error;
}

__attribute__((format(printf, 2, 3))) static pmix_status_t fail(pmix_status_t rc, const char *fmt,
                                                                ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    return rc;
}

static pmix_status_t errno_status(int err)
{
    switch (err) {
    case ENOMEM:
    case ENOBUFS: return PMIX_ERR_NOMEM;
    case EACCES:
    case EPERM: return PMIX_ERR_NO_PERMISSIONS;
    case ECONNREFUSED:
    case ENOENT:
    case ENETUNREACH:
    case EHOSTUNREACH:
    case ETIMEDOUT: return PMIX_ERR_UNREACH;
    case EMFILE:
    case ENFILE: return PMIX_ERR_OUT_OF_RESOURCE;
    default: return PMIX_ERROR;
    }
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static pmix_status_t fill_sun(struct sockaddr_un *sa, const char *path)
{
    if (path == NULL || '\0' == path[0])
        return fail(PMIX_ERR_BAD_PARAM, "socket path is empty");
    size_t len = strlen(path);
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    if (len >= sizeof(sa->sun_path))
        return fail(PMIX_ERR_BAD_PARAM,
                    "socket path '%s' is %zu bytes long; a UNIX socket path holds at most %zu "
                    "(choose a shorter PMIX_SERVER_TMPDIR / TMPDIR)",
                    path, len, sizeof(sa->sun_path) - 1);
    memcpy(sa->sun_path, path, len + 1);
    return PMIX_SUCCESS;
}

/* chmod that refuses a symlink (EOPNOTSUPP/ELOOP) instead of following
 * it; where the C library cannot do that, a name checked to be a socket
 * or directory of ours just before. */
static int chmod_nofollow(const char *path, mode_t mode)
{
    if (fchmodat(AT_FDCWD, path, mode, AT_SYMLINK_NOFOLLOW) == 0)
        return 0;
    if (errno != ENOTSUP && errno != ENOSYS)
        return -1;
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    if (S_ISLNK(st.st_mode) || st.st_uid != geteuid()) {
        errno = EPERM;
        return -1;
    }
    return chmod(path, mode);
}

pmix_status_t sy_usock_listen(const char *path, mode_t mode, int *fd)
{
    struct sockaddr_un sa;
    struct stat st;
    pmix_status_t rc;

    if (fd == NULL)
        return fail(PMIX_ERR_BAD_PARAM, "sy_usock_listen: NULL fd");
    *fd = -1;
    if ((rc = fill_sun(&sa, path)) != PMIX_SUCCESS)
        return rc;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return fail(PMIX_EXISTS, "'%s' exists and is not a socket", path);
        if (st.st_uid != geteuid())
            return fail(PMIX_EXISTS, "'%s' is a socket of uid %u, not ours", path,
                        (unsigned)st.st_uid);
        /* A leftover from a dead server of ours. */
        if (unlink(path) != 0 && ENOENT != errno)
            return fail(errno_status(errno), "cannot remove stale socket '%s': %s", path,
                        strerror(errno));
    }
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        return fail(errno_status(errno), "socket(AF_UNIX): %s", strerror(errno));
    if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        int e = errno;
        close(s);
        return fail(errno_status(e), "bind('%s'): %s", path, strerror(e));
    }
    /* fchmod() on a socket does not touch its file on Linux, and umask is
     * process-wide; chmod between bind and listen is race-free because
     * nobody can connect before listen().  Not through a symlink someone
     * put in its place meanwhile: */
    if (chmod_nofollow(path, mode & 07777) != 0) {
        int e = errno;
        close(s);
        unlink(path);
        return fail(errno_status(e), "chmod('%s', %04o): %s", path, (unsigned)mode, strerror(e));
    }
    if (listen(s, SY_LISTEN_BACKLOG) != 0) {
        int e = errno;
        close(s);
        unlink(path);
        return fail(errno_status(e), "listen('%s'): %s", path, strerror(e));
    }
    *fd = s;
    return PMIX_SUCCESS;
}

pmix_status_t sy_usock_connect(const char *path, int *fd)
{
    struct sockaddr_un sa;
    pmix_status_t rc;

    if (fd == NULL)
        return fail(PMIX_ERR_BAD_PARAM, "sy_usock_connect: NULL fd");
    *fd = -1;
    if ((rc = fill_sun(&sa, path)) != PMIX_SUCCESS)
        return rc;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return fail(errno_status(errno), "socket(AF_UNIX): %s", strerror(errno));
    int r;
    do {
        r = connect(s, (struct sockaddr *)&sa, sizeof(sa));
    } while (r != 0 && EINTR == errno);
    if (r != 0) {
        int e = errno;
        close(s);
        return fail(errno_status(e), "connect('%s'): %s", path, strerror(e));
    }
    if (set_nonblock(s) != 0) {
        int e = errno;
        close(s);
        return fail(errno_status(e), "fcntl(O_NONBLOCK): %s", strerror(e));
    }
    *fd = s;
    return PMIX_SUCCESS;
}

pmix_status_t sy_tcp_listen(const char *addr, int port, int *fd, int *bound_port)
{
    struct addrinfo hints, *res = NULL;
    char portstr[16];

    if (fd == NULL)
        return fail(PMIX_ERR_BAD_PARAM, "sy_tcp_listen: NULL fd");
    *fd = -1;
    if (port < 0 || port > 65535)
        return fail(PMIX_ERR_BAD_PARAM, "TCP port %d out of range", port);
    if (addr == NULL)
        addr = "127.0.0.1";
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
    snprintf(portstr, sizeof(portstr), "%d", port);
    int g = getaddrinfo(addr, portstr, &hints, &res);
    if (g != 0 || res == NULL)
        return fail(PMIX_ERR_BAD_PARAM, "TCP listen address '%s' is not a numeric address: %s",
                    addr, gai_strerror(g));
    int s = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0) {
        int e = errno;
        freeaddrinfo(res);
        return fail(errno_status(e), "socket(TCP): %s", strerror(e));
    }
    int one = 1;
    (void)setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(s, res->ai_addr, res->ai_addrlen) != 0 || listen(s, SY_LISTEN_BACKLOG) != 0) {
        int e = errno;
        freeaddrinfo(res);
        close(s);
        return fail(errno_status(e), "bind/listen TCP %s:%d: %s", addr, port, strerror(e));
    }
    freeaddrinfo(res);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (getsockname(s, (struct sockaddr *)&ss, &sl) != 0) {
        int e = errno;
        close(s);
        return fail(errno_status(e), "getsockname: %s", strerror(e));
    }
    if (bound_port != NULL)
        *bound_port = AF_INET6 == ss.ss_family ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                               : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    *fd = s;
    return PMIX_SUCCESS;
}

pmix_status_t sy_tcp_connect(const char *host, int port, int *fd)
{
    struct addrinfo hints, *res = NULL, *ai;
    char portstr[16];
    int e = ECONNREFUSED;

    if (fd == NULL || host == NULL || port <= 0 || port > 65535)
        return fail(PMIX_ERR_BAD_PARAM, "sy_tcp_connect: bad host or port %d", port);
    *fd = -1;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    snprintf(portstr, sizeof(portstr), "%d", port);
    int g = getaddrinfo(host, portstr, &hints, &res);
    if (g != 0 || res == NULL)
        return fail(PMIX_ERR_UNREACH, "cannot resolve '%s': %s", host, gai_strerror(g));
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        int s = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0) {
            e = errno;
            continue;
        }
        int r;
        do {
            r = connect(s, ai->ai_addr, ai->ai_addrlen);
        } while (r != 0 && EINTR == errno);
        if (r == 0 && set_nonblock(s) == 0) {
            int one = 1;
            (void)setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            freeaddrinfo(res);
            *fd = s;
            return PMIX_SUCCESS;
        }
        e = errno;
        close(s);
    }
    freeaddrinfo(res);
    return fail(errno_status(e), "connect TCP %s:%d: %s", host, port, strerror(e));
}

pmix_status_t sy_usock_accept(int lfd, int *fd)
{
    if (fd == NULL || lfd < 0)
        return fail(PMIX_ERR_BAD_PARAM, "sy_usock_accept: bad listener or NULL fd");
    *fd = -1;
    int s;
    do {
        s = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    } while (s < 0 && EINTR == errno);
    if (s < 0) {
        int e = errno;
        if (EAGAIN == e || EWOULDBLOCK == e || ECONNABORTED == e)
            return fail(PMIX_ERR_WOULD_BLOCK, "no pending connection");
        return fail(errno_status(e), "accept: %s", strerror(e));
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (getsockname(s, (struct sockaddr *)&ss, &sl) == 0 &&
        (AF_INET == ss.ss_family || AF_INET6 == ss.ss_family)) {
        int one = 1;
        (void)setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    *fd = s;
    return PMIX_SUCCESS;
}

pmix_status_t sy_peer_cred(int fd, uid_t *uid, gid_t *gid, pid_t *pid)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);

    if (fd < 0)
        return fail(PMIX_ERR_BAD_PARAM, "sy_peer_cred: bad fd");
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0)
        return fail(PMIX_ERR_BAD_PARAM, "getsockname: %s", strerror(errno));
    if (AF_UNIX != ss.ss_family)
        return fail(PMIX_ERR_NOT_SUPPORTED,
                    "peer credentials are unknown on a non-UNIX (TCP) connection");
    struct ucred cred;
    socklen_t cl = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 || cl != sizeof(cred))
        return fail(PMIX_ERR_NOT_SUPPORTED, "SO_PEERCRED: %s", strerror(errno));
    if (uid != NULL)
        *uid = cred.uid;
    if (gid != NULL)
        *gid = cred.gid;
    if (pid != NULL)
        *pid = cred.pid;
    return PMIX_SUCCESS;
}

pmix_status_t sy_mkdir_private(const char *path)
{
    struct stat st;

    if (path == NULL || '\0' == path[0])
        return fail(PMIX_ERR_BAD_PARAM, "directory path is empty");
    if (mkdir(path, 0700) == 0) {
        /* The umask may have removed owner bits; set exactly 0700 on the
         * directory made (opened without following a symlink that could
         * have replaced it in a shared parent). */
        int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
            return fail(errno_status(errno), "open('%s'): %s", path, strerror(errno));
        int rc = fstat(dfd, &st) == 0 && st.st_uid == geteuid() ? fchmod(dfd, 0700) : -1;
        int e = errno;
        close(dfd);
        if (rc != 0)
            return fail(PMIX_ERR_NO_PERMISSIONS, "'%s' is not the directory we made: %s", path,
                        strerror(e));
        return PMIX_SUCCESS;
    }
    if (EEXIST != errno)
        return fail(errno_status(errno), "mkdir('%s'): %s", path, strerror(errno));
    if (lstat(path, &st) != 0)
        return fail(errno_status(errno), "lstat('%s'): %s", path, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return fail(PMIX_ERR_NO_PERMISSIONS, "'%s' is a symbolic link; refusing it", path);
    if (!S_ISDIR(st.st_mode))
        return fail(PMIX_ERR_NO_PERMISSIONS, "'%s' exists and is not a directory", path);
    if (st.st_uid != geteuid())
        return fail(PMIX_ERR_NO_PERMISSIONS, "'%s' is owned by uid %u, not by us (uid %u)", path,
                    (unsigned)st.st_uid, (unsigned)geteuid());
    if ((st.st_mode & 077) != 0)
        return fail(PMIX_ERR_NO_PERMISSIONS,
                    "'%s' has mode %04o; it must not be accessible to group or others", path,
                    (unsigned)(st.st_mode & 07777));
    return PMIX_SUCCESS;
}
