/* MUNGE credentials (libmunge, the daemon every Slurm cluster runs): what
 * the server seals with munged when it is reachable, so that a credential
 * issued on one node validates on any node that shares the MUNGE key. */
#ifndef SWITCHYARD_SERVER_CRED_MUNGE_H
#define SWITCHYARD_SERVER_CRED_MUNGE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <pmix_common.h>

/* Credentials MUNGE encodes start with this. */
#define SY_MUNGE_PREFIX "MUNGE:"

/* True when munged answers on its socket: SWITCHYARD_MUNGE_SOCKET, or
 * libmunge's default.  Checked with a connect of our own first, because
 * libmunge retries a refused connection for seconds. */
bool sy_cred_munge_usable(void);

/* Encode PAYLOAD; *cred is a malloc'd NUL-terminated MUNGE string. */
pmix_status_t sy_cred_munge_encode(const void *payload, size_t len, char **cred);

/* Decode CRED (LEN bytes, not necessarily terminated).  *payload is
 * malloc'd; *uid and *gid are the identity of the process that encoded it.
 * An expired, replayed, rewound or foreign credential is
 * PMIX_ERR_INVALID_CRED; PMIX_ERR_UNREACH when munged does not answer. */
pmix_status_t sy_cred_munge_decode(const char *cred, size_t len, void **payload, size_t *plen,
                                   uid_t *uid, gid_t *gid);

#endif
