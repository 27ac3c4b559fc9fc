/* Socket primitives of the transport: UNIX stream and TCP listeners and
 * connectors, peer credentials, the private rendezvous directory.
 *
 * Every descriptor returned here is close-on-exec and non-blocking (a
 * connector finishes its connect() before switching to non-blocking, so the
 * caller gets an fd ready for sy_conn_create()).  On failure the functions
 * return a pmix_status_t and leave a one-line human-readable explanation in
 * sy_usock_error() (per thread), e.g. for the log line of a refused
 * listener. */
#ifndef SWITCHYARD_COMMON_USOCK_H
#define SWITCHYARD_COMMON_USOCK_H

#include <sys/types.h>
#include "pmix_common.h"

/* Bind a UNIX stream socket at `path` with file mode `mode` (e.g. 0600 or
 * PMIX_SOCKET_MODE) and listen.  A stale socket file at `path` is replaced;
 * any other kind of file is refused (PMIX_EXISTS).  A path longer than
 * sun_path can hold is PMIX_ERR_BAD_PARAM. */
pmix_status_t sy_usock_listen(const char *path, mode_t mode, int *fd);

/* Connect to the UNIX stream socket at `path`.  PMIX_ERR_UNREACH when
 * nobody listens there. */
pmix_status_t sy_usock_connect(const char *path, int *fd);

/* Listen on TCP `addr` (numeric IPv4 or IPv6; NULL = "127.0.0.1"; only
 * pass a wildcard such as "0.0.0.0" when remote connections are allowed)
 * and `port` (0 = any).  *bound_port (may be NULL) receives the port. */
pmix_status_t sy_tcp_listen(const char *addr, int port, int *fd, int *bound_port);

/* Connect to TCP `host` (name or numeric) and `port`; TCP_NODELAY set. */
pmix_status_t sy_tcp_connect(const char *host, int port, int *fd);

/* Accept one pending connection on a listener made above (the new fd is
 * close-on-exec and non-blocking).  PMIX_ERR_WOULD_BLOCK when none is
 * pending. */
pmix_status_t sy_usock_accept(int lfd, int *fd);

/* Credentials of the process at the other end of a connected UNIX socket
 * (SO_PEERCRED: as of connect()).  Any pointer may be NULL.  TCP peers,
 * even on loopback, have no kernel-verified credentials:
 * PMIX_ERR_NOT_SUPPORTED, and the caller must authenticate otherwise. */
pmix_status_t sy_peer_cred(int fd, uid_t *uid, gid_t *gid, pid_t *pid);

/* Create directory `path` (its parent must exist) with mode 0700.  When it
 * already exists it is accepted only if it is a real directory (not a
 * symlink) owned by our effective uid with no group/other permission bits;
 * otherwise PMIX_ERR_NO_PERMISSIONS. */
pmix_status_t sy_mkdir_private(const char *path);

/* Explanation of the calling thread's last failure in this module. */
const char *sy_usock_error(void);

#endif
