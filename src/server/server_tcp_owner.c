/* Who owns the other end of a loopback TCP connection (server_tcp_owner.h).
 *
 * The kernel's sock_diag answers for one socket named by its four-tuple,
 * whatever the machine's other connections.  /proc/net/tcp, the fallback
 * where sock_diag is missing, is formatted whole for every reader: with
 * hundreds of sockets on the machine that took milliseconds per client,
 * and 32 OpenPMIx clients connecting at once waited 140 ms for their
 * handshake. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/server_tcp_owner.h"

/* The two ends of fd, both IPv4. */
static bool ends_of(int fd, struct sockaddr_in *me, struct sockaddr_in *them)
{
    socklen_t ml = sizeof(*me), tl = sizeof(*them);
    return getsockname(fd, (struct sockaddr *)me, &ml) == 0 &&
           getpeername(fd, (struct sockaddr *)them, &tl) == 0 && me->sin_family == AF_INET &&
           them->sin_family == AF_INET;
}

/* The peer's socket: local end them, remote end me. */
static void name_peer_socket(struct inet_diag_sockid *id, const struct sockaddr_in *me,
                             const struct sockaddr_in *them)
{
    memset(id, 0, sizeof(*id));
    id->idiag_sport = them->sin_port;
    id->idiag_dport = me->sin_port;
    id->idiag_src[0] = them->sin_addr.s_addr;
    id->idiag_dst[0] = me->sin_addr.s_addr;
    id->idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    id->idiag_cookie[1] = INET_DIAG_NOCOOKIE;
}

static bool same_socket(const struct inet_diag_sockid *a, const struct inet_diag_sockid *b)
{
    return a->idiag_sport == b->idiag_sport && a->idiag_dport == b->idiag_dport &&
           a->idiag_src[0] == b->idiag_src[0] && a->idiag_dst[0] == b->idiag_dst[0];
}

static pmix_status_t owner_by_sock_diag(const struct sockaddr_in *me,
                                        const struct sockaddr_in *them, uid_t *uid)
{
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0)
        return PMIX_ERR_NOT_SUPPORTED;
    struct {
        struct nlmsghdr h;
        struct inet_diag_req_v2 r;
    } req = {.h = {.nlmsg_len = sizeof(req),
                   .nlmsg_type = SOCK_DIAG_BY_FAMILY,
                   .nlmsg_flags = NLM_F_REQUEST},
             .r = {.sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP, .idiag_states = ~0U}};
    name_peer_socket(&req.r.id, me, them);
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    pmix_status_t rc = PMIX_ERR_NOT_SUPPORTED;
    if (sendto(nl, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) ==
        (ssize_t)sizeof(req)) {
        /* one answer: the socket, or an error (no such socket) */
        union {
            struct nlmsghdr h;
            char bytes[8192];
        } ans;
        ssize_t n;
        do
            n = recv(nl, &ans, sizeof(ans), 0);
        while (n < 0 && errno == EINTR);
        struct nlmsghdr *h = &ans.h;
        if (n > 0 && NLMSG_OK(h, (size_t)n) && h->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
            h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
            const struct inet_diag_msg *m = NLMSG_DATA(h);
            if (same_socket(&m->id, &req.r.id)) {
                *uid = (uid_t)m->idiag_uid;
                rc = PMIX_SUCCESS;
            } else {
                rc = PMIX_ERR_NOT_FOUND;
            }
        }
    }
    close(nl);
    return rc;
}

/* Its row in /proc/net/tcp, whose local end is the peer's address and
 * remote end ours. */
static pmix_status_t owner_by_proc(const struct sockaddr_in *me, const struct sockaddr_in *them,
                                   uid_t *uid)
{
    FILE *f = fopen("/proc/net/tcp", "re");
    if (f == NULL)
        return PMIX_ERR_NOT_SUPPORTED;
    char line[512];
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned la, lp, ra, rp, st, u;
        if (sscanf(line, " %*d: %8X:%4X %8X:%4X %2X %*X:%*X %*X:%*X %*X %u", &la, &lp, &ra, &rp,
                   &st, &u) != 6)
            continue;
        if (la == them->sin_addr.s_addr && lp == ntohs(them->sin_port) &&
            ra == me->sin_addr.s_addr && rp == ntohs(me->sin_port)) {
            *uid = (uid_t)u;
            rc = PMIX_SUCCESS;
            break;
        }
    }
    fclose(f);
    return rc;
}

pmix_status_t sy_srv_tcp_peer_uid(int fd, uid_t *uid)
{
    struct sockaddr_in me, them;
    if (!ends_of(fd, &me, &them))
        return PMIX_ERR_NOT_SUPPORTED;
    pmix_status_t rc = owner_by_sock_diag(&me, &them, uid);
    return rc == PMIX_ERR_NOT_SUPPORTED ? owner_by_proc(&me, &them, uid) : rc;
}
