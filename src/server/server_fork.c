/* PMIx_server_setup_fork: the environment a child needs to find and
 * authenticate to this server (wire.h SY_ENV_*).  The client's record
 * is not needed: register_client may come before or after. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_version.h>

#include "common/log.h"
#include "common/wire.h"
#include "server/server_internal.h"
#include "server/server_fork.h"
#include "server/server_registry.h"
#include "server/server_pmi.h"

pmix_status_t sy_srv_env_set(char ***env, const char *name, const char *value)
{
    if (strchr(value, '*') != NULL) {
        sy_log(SY_LOG_WARN, "setup_fork: %s=%s holds a '*', which launchers treat as a wildcard",
               name, value);
        return PMIX_ERR_BAD_PARAM;
    }
    char *entry = NULL;
    if (asprintf(&entry, "%s=%s", name, value) < 0)
        return PMIX_ERR_NOMEM;
    size_t n = 0, len = strlen(name);
    for (; *env != NULL && (*env)[n] != NULL; n++) {
        if (strncmp((*env)[n], name, len) == 0 && (*env)[n][len] == '=') {
            free((*env)[n]);
            (*env)[n] = entry;
            return PMIX_SUCCESS;
        }
    }
    char **grown = realloc(*env, (n + 2) * sizeof(char *));
    if (grown == NULL) {
        free(entry);
        return PMIX_ERR_NOMEM;
    }
    grown[n] = entry;
    grown[n + 1] = NULL;
    *env = grown;
    return PMIX_SUCCESS;
}

/* What a child's environment is made of: fixed once PMIx_server_init
 * returned, copied while the server is held in use.  No registry and no loop are
 * involved, so this works in the parent on any thread, and in a child
 * forked from a threaded host, where our progress thread does not exist
 * (Slurm's slurmstepd calls setup_fork there, after fork(), before exec). */
typedef struct {
    char *uri, *usock, *tmpdir, *system_tmpdir, *hostname;
    char token[SY_SRV_TOKEN_LEN + 1];
} fork_data_t;

static void fork_data_free(fork_data_t *d)
{
    free(d->uri);
    free(d->usock);
    free(d->tmpdir);
    free(d->system_tmpdir);
    free(d->hostname);
}

static bool dup_opt(char **dst, const char *src)
{
    *dst = src != NULL ? strdup(src) : NULL;
    return src == NULL || *dst != NULL;
}

static pmix_status_t fork_data_get(const pmix_proc_t *proc, fork_data_t *d)
{
    /* held in use, the server is not freed while its strings are copied
     * (outside the lock: nothing allocates under it) */
    if (sy_srv_use() == NULL)
        return PMIX_ERR_INIT;
    const sy_srv_t *s = sy_srv;
    pmix_status_t rc = PMIX_SUCCESS;
    pthread_mutex_lock(&sy_srv_life_lock);
    bool started = s->started;
    pthread_mutex_unlock(&sy_srv_life_lock);
    if (!started) {
        rc = PMIX_ERR_INIT;
    } else {
        sy_srv_client_token(s, proc, d->token);
        if (!dup_opt(&d->uri, s->uri) || !dup_opt(&d->usock, s->usock_path) ||
            !dup_opt(&d->tmpdir, s->tmpdir) || !dup_opt(&d->system_tmpdir, s->system_tmpdir) ||
            !dup_opt(&d->hostname, s->hostname))
            rc = PMIX_ERR_NOMEM;
    }
    sy_srv_unuse();
    return rc;
}

static pmix_status_t fill_env(const fork_data_t *d, const pmix_proc_t *proc, char ***env)
{
    char rank[16], ver[32];
    snprintf(rank, sizeof(rank), "%u", proc->rank);
    snprintf(ver, sizeof(ver), "%ld.%ld.%ld", PMIX_VERSION_MAJOR, PMIX_VERSION_MINOR,
             PMIX_VERSION_RELEASE);
    pmix_status_t rc = PMIX_SUCCESS;
#define SET(n, v)                                                                                  \
    do {                                                                                           \
        if (rc == PMIX_SUCCESS && (v) != NULL)                                                     \
            rc = sy_srv_env_set(env, (n), (v));                                                    \
    } while (0)
    SET(SY_ENV_NSPACE, proc->nspace);
    SET(SY_ENV_RANK, rank);
    SET(SY_ENV_URI, d->uri);
    SET("PMIX_SERVER_URI4", d->uri);
    SET("PMIX_SERVER_URI3", d->uri);
    SET("PMIX_SERVER_URI2", d->uri);
    SET("PMIX_SERVER_URI21", d->uri);
    SET(SY_ENV_USOCK, d->usock);
    SET(SY_ENV_SERVER, d->uri != NULL ? d->uri : d->usock);
    if (d->token[0] != '\0')
        SET(SY_ENV_TOKEN, d->token);
    SET(SY_ENV_SERVER_TMPDIR, d->tmpdir);
    SET(SY_ENV_SYSTEM_TMPDIR, d->system_tmpdir);
    SET(SY_ENV_HOSTNAME, d->hostname);
    SET(SY_ENV_VERSION, ver);
    /* what an OpenPMIx client needs to talk to us: native security over
     * TCP, non-described buffers, and only the hash datastore (we offer
     * no ds21/ds12 segments) */
    SET("PMIX_SECURITY_MODE", "native");
    SET("PMIX_BFROP_BUFFER_TYPE", "PMIX_BFROP_BUFFER_NON_DESC");
    SET("PMIX_GDS_MODULE", "hash");
#undef SET
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc, char ***env)
{
    if (proc == NULL || env == NULL || proc->nspace[0] == '\0')
        return PMIX_ERR_BAD_PARAM;
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, proc->nspace, proc->rank);
    fork_data_t d = {0};
    pmix_status_t rc = fork_data_get(&p, &d);
    if (rc == PMIX_SUCCESS)
        rc = fill_env(&d, &p, env);
    /* what setup_local_support set up for the namespace */
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_fork_env_apply(&p, env);
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_pmi_setup_fork(&p, env);
    fork_data_free(&d);
    return rc;
}
