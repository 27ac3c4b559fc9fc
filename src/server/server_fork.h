/* PMIx_server_setup_fork's environment (server_fork.c). */
#ifndef SWITCHYARD_SERVER_FORK_H
#define SWITCHYARD_SERVER_FORK_H
#include <pmix_common.h>

/* Set NAME=VALUE in a malloc'd, NULL-terminated argv, replacing an
 * existing NAME.  A value holding a '*' is refused (PMIX_ERR_BAD_PARAM,
 * logged): launchers treat it as a wildcard. */
pmix_status_t sy_srv_env_set(char ***env, const char *name, const char *value);

/* server_fork_env.c: the environment directives (PMIX_SET_ENVAR, _ADD_,
 * _UNSET_, _PREPEND_, _APPEND_) setup_local_support found for a
 * namespace, kept (added to earlier ones) until the namespace goes, and
 * applied in order by setup_fork to each of its processes.  Any thread,
 * fork-safe. */
pmix_status_t sy_srv_fork_env_add(const char *nspace, const pmix_info_t info[], size_t ninfo);
void sy_srv_fork_env_forget(const char *nspace);
pmix_status_t sy_srv_fork_env_apply(const pmix_proc_t *proc, char ***env);
#endif
