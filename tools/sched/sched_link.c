/* The daemons' link (sched.h): UNIX or TCP sockets, frames, and after the
 * handshake (sched_auth.c) a MAC on every frame, so that a connection
 * that was authenticated once cannot be taken over or fed frames by
 * anyone without the session key. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>

#include "sched_daemon.h"

/* Largest frame: a reply's infos; matrices travel in chunks. */
#define LINK_MAX_FRAME (1u << 30)
#define MAC_LEN SHA256_DIGEST_SIZE

struct link {
    int fd;
    int rx_fd; /* a descriptor the last frame brought (UNIX sockets), or -1 */
    pthread_mutex_t send_lock;
    bool mac;
    uint8_t key[32];
    uint64_t sent, received;
    char send_dir, recv_dir; /* 'N' frames from the node, 'S' from the scheduler */
};

int link_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

int link_read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n > 0) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

bool link_random(void *p, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    bool ok = fd >= 0 && link_read_all(fd, p, n) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

link_t *link_new(int fd, const uint8_t *session_key, bool is_node)
{
    link_t *l = calloc(1, sizeof(*l));
    if (l == NULL)
        return NULL;
    l->fd = fd;
    l->rx_fd = -1;
    pthread_mutex_init(&l->send_lock, NULL);
    if (session_key != NULL) {
        l->mac = true;
        memcpy(l->key, session_key, sizeof(l->key));
    }
    l->send_dir = is_node ? 'N' : 'S';
    l->recv_dir = is_node ? 'S' : 'N';
    return l;
}

void link_shutdown(link_t *l)
{
    if (l != NULL)
        shutdown(l->fd, SHUT_RDWR);
}

void link_free(link_t *l)
{
    if (l == NULL)
        return;
    close(l->fd);
    if (l->rx_fd >= 0)
        close(l->rx_fd);
    pthread_mutex_destroy(&l->send_lock);
    memset(l->key, 0, sizeof(l->key));
    free(l);
}

/* HMAC-SHA256(session key, direction | counter | length | payload) */
static void frame_mac(const link_t *l, char dir, uint64_t counter, const void *p, uint32_t len,
                      uint8_t out[MAC_LEN])
{
    struct hmac_sha256_ctx ctx;
    uint8_t head[13];
    head[0] = (uint8_t)dir;
    for (int i = 0; i < 8; i++)
        head[1 + i] = (uint8_t)(counter >> (56 - 8 * i));
    for (int i = 0; i < 4; i++)
        head[9 + i] = (uint8_t)(len >> (24 - 8 * i));
    hmac_sha256_set_key(&ctx, sizeof(l->key), l->key);
    hmac_sha256_update(&ctx, sizeof(head), head);
    hmac_sha256_update(&ctx, len, p);
    hmac_sha256_digest(&ctx, MAC_LEN, out);
}

/* The frame's length, with fd riding on it when fd >= 0 (SCM_RIGHTS:
 * ancillary data sticks to the first byte of what one sendmsg sends, so
 * the receiver finds it with the header). */
static int send_head(int fd, uint32_t be, int pass)
{
    if (pass < 0)
        return link_write_all(fd, &be, 4);
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof(ctl));
    struct iovec iov = {.iov_base = &be, .iov_len = 4};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = ctl.buf,
                         .msg_controllen = sizeof(ctl.buf)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &pass, sizeof(int));
    ssize_t w;
    do
        w = sendmsg(fd, &msg, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w <= 0)
        return -1;
    /* the descriptor went with the first byte; the rest is plain data */
    return w == 4 ? 0 : link_write_all(fd, (char *)&be + w, 4 - (size_t)w);
}

/* Keep the first descriptor of a SCM_RIGHTS message (closing one an
 * earlier frame brought and nobody took); close any other. */
static void take_rights(link_t *l, struct msghdr *msg)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < nfd; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (l->rx_fd >= 0)
                close(l->rx_fd);
            l->rx_fd = fd;
        }
    }
}

/* The frame's length; a descriptor sent with it is kept in l->rx_fd. */
static int read_head(link_t *l, uint32_t *be)
{
    char *c = (char *)be;
    size_t n = 4;
    if (l->rx_fd >= 0) {
        close(l->rx_fd); /* the last frame's, not taken */
        l->rx_fd = -1;
    }
    while (n > 0) {
        union {
            char buf[CMSG_SPACE(4 * sizeof(int))];
            struct cmsghdr align;
        } ctl;
        struct iovec iov = {.iov_base = c, .iov_len = n};
        struct msghdr msg = {.msg_iov = &iov,
                             .msg_iovlen = 1,
                             .msg_control = ctl.buf,
                             .msg_controllen = sizeof(ctl.buf)};
        ssize_t r = recvmsg(l->fd, &msg, MSG_CMSG_CLOEXEC);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        take_rights(l, &msg);
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

int link_take_fd(link_t *l)
{
    int fd = l->rx_fd;
    l->rx_fd = -1;
    return fd;
}

bool link_is_local(const link_t *l)
{
    int domain = 0;
    socklen_t len = sizeof(domain);
    return getsockopt(l->fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_UNIX;
}

static int send_frame(link_t *l, const pmix_byte_object_t *bo, int pass)
{
    if (bo->size == 0 || bo->size > LINK_MAX_FRAME)
        return -1;
    uint32_t len = (uint32_t)bo->size, be = htonl(len);
    pthread_mutex_lock(&l->send_lock);
    int rc = send_head(l->fd, be, pass) == 0 && link_write_all(l->fd, bo->bytes, len) == 0 ? 0 : -1;
    if (rc == 0 && l->mac) {
        uint8_t mac[MAC_LEN];
        frame_mac(l, l->send_dir, l->sent++, bo->bytes, len, mac);
        rc = link_write_all(l->fd, mac, MAC_LEN);
    }
    pthread_mutex_unlock(&l->send_lock);
    return rc;
}

int link_send_bytes(link_t *l, const pmix_byte_object_t *bo)
{
    return send_frame(l, bo, -1);
}

int link_send_fd(link_t *l, pmix_data_buffer_t *buf, int fd)
{
    pmix_byte_object_t bo = {0};
    if (PMIx_Data_unload(buf, &bo) != PMIX_SUCCESS)
        return -1;
    int rc = send_frame(l, &bo, fd);
    free(bo.bytes);
    return rc;
}

int link_send(link_t *l, pmix_data_buffer_t *buf)
{
    return link_send_fd(l, buf, -1);
}

int link_recv(link_t *l, pmix_data_buffer_t *buf)
{
    uint32_t len;
    PMIX_DATA_BUFFER_CONSTRUCT(buf);
    if (read_head(l, &len) != 0)
        return -1;
    len = ntohl(len);
    if (len == 0 || len > LINK_MAX_FRAME)
        return -1;
    char *data = malloc(len);
    if (data == NULL || link_read_all(l->fd, data, len) != 0) {
        free(data);
        return -1;
    }
    if (l->mac) {
        uint8_t got[MAC_LEN], want[MAC_LEN];
        frame_mac(l, l->recv_dir, l->received++, data, len, want);
        if (link_read_all(l->fd, got, MAC_LEN) != 0 || !memeql_sec(got, want, MAC_LEN)) {
            fprintf(stderr, "switchyard-sched: a frame failed its MAC: link dropped\n");
            free(data);
            shutdown(l->fd, SHUT_RDWR);
            return -1;
        }
    }
    pmix_byte_object_t bo = {.bytes = data, .size = len};
    pmix_status_t rc = PMIx_Data_load(buf, &bo);
    if (rc != PMIX_SUCCESS)
        free(data);
    return rc == PMIX_SUCCESS ? 0 : -1;
}

pmix_status_t link_pack_infos(pmix_data_buffer_t *b, const pmix_info_t *info, size_t n)
{
    pmix_status_t rc = PMIx_Data_pack(NULL, b, &n, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && n > 0)
        rc = PMIx_Data_pack(NULL, b, (void *)info, (int32_t)n, PMIX_INFO);
    return rc;
}

pmix_status_t link_unpack_infos(pmix_data_buffer_t *b, pmix_info_t **info, size_t *n)
{
    int32_t one = 1;
    *info = NULL;
    pmix_status_t rc = PMIx_Data_unpack(NULL, b, n, &one, PMIX_SIZE);
    if (rc != PMIX_SUCCESS || *n == 0)
        return rc;
    if (*n > (1u << 24))
        return PMIX_ERR_UNPACK_FAILURE;
    PMIX_INFO_CREATE(*info, *n);
    if (*info == NULL)
        return PMIX_ERR_NOMEM;
    int32_t cnt = (int32_t)*n;
    rc = PMIx_Data_unpack(NULL, b, *info, &cnt, PMIX_INFO);
    if (rc != PMIX_SUCCESS) {
        PMIX_INFO_FREE(*info, *n);
        *n = 0;
    }
    return rc;
}

/* ---- addresses ---- */

/* TCP when "tcp://H:P", or "H:P" without a '/'; else a UNIX path. */
static bool split_tcp(const char *addr, char *host, size_t hlen, char *port, size_t plen)
{
    const char *a = strncmp(addr, "tcp://", 6) == 0 ? addr + 6 : addr;
    if (a == addr && (strchr(addr, '/') != NULL || strncmp(addr, "unix:", 5) == 0))
        return false;
    const char *colon = strrchr(a, ':');
    if (colon == NULL)
        return false;
    size_t hn = (size_t)(colon - a);
    /* [v6]:port */
    if (hn >= 2 && a[0] == '[' && a[hn - 1] == ']') {
        a++;
        hn -= 2;
    }
    if (hn >= hlen || strlen(colon + 1) >= plen || colon[1] == '\0')
        return false;
    memcpy(host, a, hn);
    host[hn] = '\0';
    snprintf(port, plen, "%s", colon + 1);
    return true;
}

static int unix_addr(const char *addr, struct sockaddr_un *a)
{
    const char *path = strncmp(addr, "unix:", 5) == 0 ? addr + 5 : addr;
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(a->sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(a->sun_path, path);
    return 0;
}

int link_listen(const char *addr, bool *tcp)
{
    char host[256], port[32];
    *tcp = split_tcp(addr, host, sizeof(host), port, sizeof(port));
    if (!*tcp) {
        struct sockaddr_un a;
        if (unix_addr(addr, &a) != 0)
            return -1;
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -1;
        /* a socket of ours left by a dead daemon goes; any other name there
         * (another user's, a file, a symlink) stays and bind fails on it */
        struct stat st;
        if (lstat(a.sun_path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == geteuid())
            unlink(a.sun_path);
        if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 64) != 0) {
            close(fd);
            return -1;
        }
        return fd;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE},
                    *res = NULL;
    if (getaddrinfo(host[0] != '\0' && strcmp(host, "*") != 0 ? host : NULL, port, &hints, &res) !=
        0) {
        errno = EINVAL;
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *r = res; r != NULL && fd < 0; r = r->ai_next) {
        fd = socket(r->ai_family, r->ai_socktype | SOCK_CLOEXEC, r->ai_protocol);
        if (fd < 0)
            continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, r->ai_addr, r->ai_addrlen) != 0 || listen(fd, 64) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

/* A connected socket, or -1 (errno set). */
static int dial(const char *addr)
{
    char host[256], port[32];
    if (!split_tcp(addr, host, sizeof(host), port, sizeof(port))) {
        struct sockaddr_un a;
        if (unix_addr(addr, &a) != 0)
            return -1;
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        return fd;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(host, port, &hints, &res) != 0) {
        errno = EHOSTUNREACH;
        return -1;
    }
    int fd = -1, e = ECONNREFUSED;
    for (struct addrinfo *r = res; r != NULL && fd < 0; r = r->ai_next) {
        fd = socket(r->ai_family, r->ai_socktype | SOCK_CLOEXEC, r->ai_protocol);
        if (fd >= 0 && connect(fd, r->ai_addr, r->ai_addrlen) != 0) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        /* a scheduler gone without a word is noticed */
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    }
    errno = e;
    return fd;
}

static void handshake_timeout(int fd, int seconds)
{
    struct timeval tv = {.tv_sec = seconds};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

link_t *link_accept(int fd, const link_auth_t *auth, char *peer, size_t peerlen, const char **why)
{
    uint8_t session[32];
    bool have = false;
    /* a peer that says nothing is not waited for long */
    handshake_timeout(fd, 10);
    if (auth_server(fd, auth, peer, peerlen, session, &have, why) != 0) {
        close(fd);
        return NULL;
    }
    handshake_timeout(fd, 0);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    link_t *l = link_new(fd, have ? session : NULL, false);
    memset(session, 0, sizeof(session));
    if (l == NULL)
        close(fd);
    return l;
}

link_t *link_connect(const char *addr, const link_auth_t *auth, const char *hostname,
                     const char **why, bool *fatal)
{
    *fatal = false;
    int fd = dial(addr);
    if (fd < 0) {
        *why = strerror(errno);
        return NULL;
    }
    uint8_t session[32];
    bool have = false;
    handshake_timeout(fd, 10);
    if (auth_client(fd, auth, hostname, session, &have, why, fatal) != 0) {
        close(fd);
        return NULL;
    }
    handshake_timeout(fd, 0);
    link_t *l = link_new(fd, have ? session : NULL, true);
    memset(session, 0, sizeof(session));
    if (l == NULL)
        close(fd);
    return l;
}
