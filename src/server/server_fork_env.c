/* The local set-up of PMIx_server_setup_local_support (Chap_API_Server.tex)
 * that reaches the processes themselves: the environment directives the
 * launch data carries (PMIX_SET_ENVAR, PMIX_ADD_ENVAR, PMIX_UNSET_ENVAR,
 * PMIX_PREPEND_ENVAR, PMIX_APPEND_ENVAR; setup_application's fabric
 * environment among them) are kept per namespace and applied, in order, by
 * PMIx_server_setup_fork to every process of it the host then starts.
 *
 * setup_fork may run in a child forked from a threaded host, where no
 * thread of ours exists: the table has its own lock, taken across fork()
 * (pthread_atfork), and setup_fork needs neither the loop nor the
 * registry. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/log.h"
#include "server/server_fork.h"

typedef struct fork_env {
    char nspace[PMIX_MAX_NSLEN + 1];
    pmix_info_t *dirs; /* the directives, in order */
    size_t n;
    struct fork_env *next;
} fork_env_t;

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static fork_env_t *envs;

static void lock_for_fork(void)
{
    pthread_mutex_lock(&env_lock);
}

static void unlock_after_fork(void)
{
    pthread_mutex_unlock(&env_lock);
}

static void env_atfork(void)
{
    pthread_atfork(lock_for_fork, unlock_after_fork, unlock_after_fork);
}

static bool is_directive(const pmix_info_t *i)
{
    if (PMIX_CHECK_KEY(i, PMIX_UNSET_ENVAR))
        return i->value.type == PMIX_STRING && i->value.data.string != NULL;
    return (PMIX_CHECK_KEY(i, PMIX_SET_ENVAR) || PMIX_CHECK_KEY(i, PMIX_ADD_ENVAR) ||
            PMIX_CHECK_KEY(i, PMIX_PREPEND_ENVAR) || PMIX_CHECK_KEY(i, PMIX_APPEND_ENVAR)) &&
           i->value.type == PMIX_ENVAR && i->value.data.envar.envar != NULL &&
           i->value.data.envar.envar[0] != '\0' && strchr(i->value.data.envar.envar, '=') == NULL;
}

pmix_status_t sy_srv_fork_env_add(const char *nspace, const pmix_info_t info[], size_t ninfo)
{
    size_t n = 0;
    for (size_t i = 0; i < ninfo; i++)
        n += is_directive(&info[i]);
    if (n == 0)
        return PMIX_SUCCESS;
    pthread_once(&env_once, env_atfork);
    pmix_info_t *dirs;
    PMIX_INFO_CREATE(dirs, n);
    if (dirs == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < ninfo; i++)
        if (is_directive(&info[i]) && PMIx_Info_xfer(&dirs[k], &info[i]) == PMIX_SUCCESS)
            k++;
    if (k < n) {
        PMIX_INFO_FREE(dirs, n);
        return PMIX_ERR_NOMEM;
    }
    pthread_mutex_lock(&env_lock);
    fork_env_t *e = envs;
    while (e != NULL && !PMIX_CHECK_NSPACE(e->nspace, nspace))
        e = e->next;
    pmix_status_t rc = PMIX_SUCCESS;
    if (e == NULL && (e = calloc(1, sizeof(*e))) != NULL) {
        PMIX_LOAD_NSPACE(e->nspace, nspace);
        e->next = envs;
        envs = e;
    }
    pmix_info_t *all = NULL;
    if (e != NULL)
        PMIX_INFO_CREATE(all, e->n + k);
    if (all == NULL) {
        rc = PMIX_ERR_NOMEM;
    } else {
        /* a later call adds to what an earlier one set up (none yet: no
         * array to copy from) */
        if (e->n > 0)
            memcpy(all, e->dirs, e->n * sizeof(*all));
        memcpy(all + e->n, dirs, k * sizeof(*all));
        free(e->dirs);
        e->dirs = all;
        e->n += k;
        free(dirs); /* moved */
        dirs = NULL;
    }
    pthread_mutex_unlock(&env_lock);
    if (dirs != NULL)
        PMIX_INFO_FREE(dirs, n);
    return rc;
}

void sy_srv_fork_env_forget(const char *nspace)
{
    pthread_mutex_lock(&env_lock);
    for (fork_env_t **pp = &envs; *pp != NULL;) {
        fork_env_t *e = *pp;
        if (nspace == NULL || PMIX_CHECK_NSPACE(e->nspace, nspace)) {
            *pp = e->next;
            if (e->dirs != NULL)
                PMIX_INFO_FREE(e->dirs, e->n);
            free(e);
        } else {
            pp = &e->next;
        }
    }
    pthread_mutex_unlock(&env_lock);
}

static char **env_find(char **env, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
            return &env[i];
    return NULL;
}

static void env_unset(char **env, const char *name)
{
    char **slot = env_find(env, name);
    if (slot == NULL)
        return;
    free(*slot);
    do {
        slot[0] = slot[1];
        slot++;
    } while (slot[0] != NULL);
}

static pmix_status_t apply(const pmix_info_t *d, char ***env)
{
    if (PMIX_CHECK_KEY(d, PMIX_UNSET_ENVAR)) {
        env_unset(*env, d->value.data.string);
        return PMIX_SUCCESS;
    }
    const pmix_envar_t *ev = &d->value.data.envar;
    const char *value = ev->value != NULL ? ev->value : "";
    char **slot = env_find(*env, ev->envar);
    const char *old = slot != NULL ? strchr(*slot, '=') + 1 : NULL;
    if (PMIX_CHECK_KEY(d, PMIX_ADD_ENVAR) && old != NULL)
        return PMIX_SUCCESS; /* only when not set already */
    char *joined = NULL;
    if ((PMIX_CHECK_KEY(d, PMIX_PREPEND_ENVAR) || PMIX_CHECK_KEY(d, PMIX_APPEND_ENVAR)) &&
        old != NULL && old[0] != '\0') {
        char sep = ev->separator != '\0' ? ev->separator : ':';
        bool pre = PMIX_CHECK_KEY(d, PMIX_PREPEND_ENVAR);
        if (asprintf(&joined, "%s%c%s", pre ? value : old, sep, pre ? old : value) < 0)
            return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = sy_srv_env_set(env, ev->envar, joined != NULL ? joined : value);
    free(joined);
    return rc;
}

pmix_status_t sy_srv_fork_env_apply(const pmix_proc_t *proc, char ***env)
{
    pmix_status_t rc = PMIX_SUCCESS;
    pthread_mutex_lock(&env_lock);
    for (fork_env_t *e = envs; e != NULL; e = e->next) {
        if (!PMIX_CHECK_NSPACE(e->nspace, proc->nspace))
            continue;
        for (size_t i = 0; i < e->n && rc == PMIX_SUCCESS; i++)
            rc = apply(&e->dirs[i], env);
        break;
    }
    pthread_mutex_unlock(&env_lock);
    return rc;
}
