/* PMIx_server_setup_fork's environment (server_fork.c). */
#ifndef SWITCHYARD_SERVER_FORK_H
#define SWITCHYARD_SERVER_FORK_H
#include <pmix_common.h>

/* Set NAME=VALUE in a malloc'd, NULL-terminated argv, replacing an
 * existing NAME.  A value holding a '*' is refused (PMIX_ERR_BAD_PARAM,
 * logged): launchers treat it as a wildcard. */
pmix_status_t sy_srv_env_set(char ***env, const char *name, const char *value);
#endif
