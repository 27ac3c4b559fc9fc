/* The owner of the peer's end of a loopback TCP connection
 * (server_tcp_owner.c). */
#ifndef SWITCHYARD_SERVER_TCP_OWNER_H
#define SWITCHYARD_SERVER_TCP_OWNER_H
#include <sys/types.h>

#include <pmix_common.h>

/* The kernel's owner (uid) of the socket at the other end of fd, an IPv4
 * TCP connection on this machine: a peer never chooses its own identity,
 * the uid it claims must be this one.  PMIX_ERR_NOT_FOUND when the kernel
 * knows no such socket (the peer is elsewhere or gone),
 * PMIX_ERR_NOT_SUPPORTED when fd is not IPv4 or the kernel cannot tell. */
pmix_status_t sy_srv_tcp_peer_uid(int fd, uid_t *uid);
#endif
