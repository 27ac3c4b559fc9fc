/* PMIx_server_setup_fork: the environment a child needs to find and
 * authenticate to this server (wire.h SY_ENV_*). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_version.h>

#include "common/log.h"
#include "common/wire.h"
#include "server/server_internal.h"

/* Set NAME=VALUE in a malloc'd, NULL-terminated argv, replacing an
 * existing NAME. */
static pmix_status_t env_set(char ***env, const char *name, const char *value)
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

typedef struct {
    sy_srv_op_t op;
    pmix_proc_t proc;
    char ***env;
} fork_req_t;

static pmix_status_t fill_env(sy_srv_t *s, const pmix_proc_t *proc, char ***env)
{
    sy_srv_client_t *c = sy_srv_client_get(s, proc);
    if (c == NULL)
        return PMIX_ERR_NOMEM;
    char rank[16], ver[32];
    snprintf(rank, sizeof(rank), "%u", proc->rank);
    snprintf(ver, sizeof(ver), "%ld.%ld.%ld", PMIX_VERSION_MAJOR, PMIX_VERSION_MINOR,
             PMIX_VERSION_RELEASE);
    pmix_status_t rc = PMIX_SUCCESS;
#define SET(n, v)                                                                                  \
    do {                                                                                           \
        if (rc == PMIX_SUCCESS)                                                                    \
            rc = env_set(env, (n), (v));                                                           \
    } while (0)
    SET(SY_ENV_NSPACE, proc->nspace);
    SET(SY_ENV_RANK, rank);
    if (s->uri != NULL) {
        SET(SY_ENV_URI, s->uri);
        SET("PMIX_SERVER_URI4", s->uri);
        SET("PMIX_SERVER_URI3", s->uri);
        SET("PMIX_SERVER_URI2", s->uri);
        SET("PMIX_SERVER_URI21", s->uri);
    }
    if (s->usock_path != NULL)
        SET(SY_ENV_USOCK, s->usock_path);
    if (c->token[0] != '\0')
        SET(SY_ENV_TOKEN, c->token);
    SET(SY_ENV_SERVER_TMPDIR, s->tmpdir);
    SET(SY_ENV_SYSTEM_TMPDIR, s->system_tmpdir);
    SET(SY_ENV_HOSTNAME, s->hostname);
    SET(SY_ENV_VERSION, ver);
#undef SET
    return rc;
}

static void setup_fork_on_loop(void *arg)
{
    fork_req_t *r = arg;
    sy_srv_op_finish(&r->op, sy_srv != NULL ? fill_env(sy_srv, &r->proc, r->env) : PMIX_ERR_INIT);
}

PMIX_EXPORT pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc, char ***env)
{
    if (proc == NULL || env == NULL || proc->nspace[0] == '\0')
        return PMIX_ERR_BAD_PARAM;
    fork_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    PMIX_LOAD_PROCID(&r->proc, proc->nspace, proc->rank);
    r->env = env;
    return sy_srv_op_start(&r->op, setup_fork_on_loop, NULL, NULL);
}
