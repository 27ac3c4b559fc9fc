/* The PMI view of a PMIx job, shared by libpmi and libpmi2 (pmi_util.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/pmi_map.h"
#include "pmi_util.h"

typedef struct own_put {
    char *key;
    char *value;
    struct own_put *next;
} own_put_t;

static pthread_mutex_t puts_lock = PTHREAD_MUTEX_INITIALIZER;
static own_put_t *puts_head, **puts_tail = &puts_head;

bool sy_pmi_copy(char *dst, int len, const char *src)
{
    size_t n = strlen(src);
    if (dst == NULL || len <= 0 || n >= (size_t)len)
        return false;
    memcpy(dst, src, n + 1);
    return true;
}

pmix_status_t sy_pmi_get_u32(const char *nspace, pmix_rank_t rank, const char *key, uint32_t *out)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, nspace, rank);
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        return rc;
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; break;
    case PMIX_PROC_RANK: *out = v->data.rank; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_INT: *out = (uint32_t)v->data.integer; break;
    case PMIX_SIZE: *out = (uint32_t)v->data.size; break;
    default: rc = PMIX_ERR_TYPE_MISMATCH;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

pmix_status_t sy_pmi_init(sy_pmi_job_t *job)
{
    if (job->initialized)
        return PMIX_SUCCESS;
    pmix_proc_t me;
    pmix_status_t rc;
    /* PMIx_Init is reference counted: a program that is a PMIx client
     * itself keeps its own */
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return rc;
    job->me = me;
    uint32_t u;
    if (sy_pmi_get_u32(me.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &u) != PMIX_SUCCESS) {
        PMIx_Finalize(NULL, 0);
        return PMIX_ERR_INIT;
    }
    job->size = (int)u;
    job->appnum = sy_pmi_get_u32(me.nspace, me.rank, PMIX_APPNUM, &u) == PMIX_SUCCESS ? (int)u : 0;
    pmix_value_t *v = NULL;
    job->spawned = false;
    if (PMIx_Get(&me, PMIX_PARENT_ID, NULL, 0, &v) == PMIX_SUCCESS) {
        if (v->type == PMIX_PROC && v->data.proc != NULL) {
            job->parent = *v->data.proc;
            job->spawned = true;
        }
        PMIX_VALUE_RELEASE(v);
    }
    job->initialized = true;
    return PMIX_SUCCESS;
}

void sy_pmi_finalize(sy_pmi_job_t *job)
{
    if (!job->initialized)
        return;
    PMIx_Finalize(NULL, 0);
    sy_pmi_forget_puts();
    job->initialized = false;
}

pmix_status_t sy_pmi_local_peers(const sy_pmi_job_t *job, int **ranks, int *n)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, job->me.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Get(&p, PMIX_LOCAL_PEERS, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_STRING || v->data.string == NULL) {
        if (rc == PMIX_SUCCESS)
            PMIX_VALUE_RELEASE(v);
        /* no node map (a singleton): only ourselves */
        *ranks = malloc(sizeof(int));
        if (*ranks == NULL)
            return PMIX_ERR_NOMEM;
        (*ranks)[0] = (int)job->me.rank;
        *n = 1;
        return PMIX_SUCCESS;
    }
    const char *s = v->data.string;
    size_t cnt = 1;
    for (const char *c = s; *c != '\0'; c++)
        cnt += *c == ',';
    int *r = malloc(cnt * sizeof(int));
    if (r == NULL) {
        PMIX_VALUE_RELEASE(v);
        return PMIX_ERR_NOMEM;
    }
    int k = 0;
    for (const char *c = s; *c != '\0';) {
        char *end;
        long x = strtol(c, &end, 10);
        if (end == c)
            break;
        r[k++] = (int)x;
        c = *end == ',' ? end + 1 : end;
    }
    PMIX_VALUE_RELEASE(v);
    *ranks = r;
    *n = k;
    return PMIX_SUCCESS;
}

pmix_status_t sy_pmi_process_mapping(const char *nspace, int size, char *out, size_t len)
{
    sy_pmi_map_t m;
    sy_pmi_map_begin(&m, out, len);
    for (int r = 0; r < size; r++) {
        uint32_t node = 0;
        if (sy_pmi_get_u32(nspace, (pmix_rank_t)r, PMIX_NODEID, &node) != PMIX_SUCCESS)
            node = 0; /* no node map: one node */
        sy_pmi_map_add(&m, node);
    }
    return sy_pmi_map_end(&m) ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

pmix_status_t sy_pmi_put(const char *key, const char *value, pmix_scope_t scope)
{
    pmix_value_t v;
    v.type = PMIX_STRING;
    v.data.string = (char *)value;
    pmix_status_t rc = PMIx_Put(scope, key, &v);
    if (rc != PMIX_SUCCESS || scope != PMIX_GLOBAL)
        return rc;
    own_put_t *p = calloc(1, sizeof(*p));
    if (p == NULL || (p->key = strdup(key)) == NULL || (p->value = strdup(value)) == NULL) {
        if (p != NULL)
            free(p->key);
        free(p);
        return PMIX_ERR_NOMEM;
    }
    pthread_mutex_lock(&puts_lock);
    /* the newest value of a key wins: replace it in place */
    for (own_put_t *q = puts_head; q != NULL; q = q->next) {
        if (strcmp(q->key, key) == 0) {
            free(q->value);
            q->value = p->value;
            pthread_mutex_unlock(&puts_lock);
            free(p->key);
            free(p);
            return PMIX_SUCCESS;
        }
    }
    *puts_tail = p;
    puts_tail = &p->next;
    pthread_mutex_unlock(&puts_lock);
    return PMIX_SUCCESS;
}

pmix_status_t sy_pmi_fence(void)
{
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return rc;
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

static char *own_get(const char *key)
{
    char *val = NULL;
    pthread_mutex_lock(&puts_lock);
    for (own_put_t *q = puts_head; q != NULL; q = q->next)
        if (strcmp(q->key, key) == 0) {
            val = strdup(q->value);
            break;
        }
    pthread_mutex_unlock(&puts_lock);
    return val;
}

bool sy_pmi_own_put(size_t idx, const char **key, const char **value)
{
    bool found = false;
    pthread_mutex_lock(&puts_lock);
    own_put_t *q = puts_head;
    for (size_t i = 0; q != NULL && i < idx; i++)
        q = q->next;
    if (q != NULL) {
        *key = q->key;
        *value = q->value;
        found = true;
    }
    pthread_mutex_unlock(&puts_lock);
    return found;
}

void sy_pmi_forget_puts(void)
{
    pthread_mutex_lock(&puts_lock);
    while (puts_head != NULL) {
        own_put_t *q = puts_head;
        puts_head = q->next;
        free(q->key);
        free(q->value);
        free(q);
    }
    puts_tail = &puts_head;
    pthread_mutex_unlock(&puts_lock);
}

/* A string value of (nspace, rank, key); wait false: what is here only. */
static pmix_status_t get_string(const char *nspace, pmix_rank_t rank, const char *key, bool wait,
                                char **value)
{
    pmix_proc_t p;
    pmix_info_t info;
    pmix_value_t *v = NULL;
    bool yes = true;
    int timeout = 10;
    PMIX_LOAD_PROCID(&p, nspace, rank);
    if (wait)
        PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
    else
        PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&p, key, &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (v->type == PMIX_STRING && v->data.string != NULL) {
        *value = v->data.string;
        v->data.string = NULL;
    } else {
        rc = PMIX_ERR_TYPE_MISMATCH;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

pmix_status_t sy_pmi_get(const sy_pmi_job_t *job, const char *nspace, int rank_hint,
                         const char *key, char **value)
{
    if (nspace == NULL || nspace[0] == '\0')
        nspace = job->me.nspace;
    bool mine = strcmp(nspace, job->me.nspace) == 0;
    if (mine && (rank_hint < 0 || (pmix_rank_t)rank_hint == job->me.rank) &&
        (*value = own_get(key)) != NULL)
        return PMIX_SUCCESS;
    if (rank_hint >= 0 &&
        get_string(nspace, (pmix_rank_t)rank_hint, key, false, value) == PMIX_SUCCESS)
        return PMIX_SUCCESS;
    if (get_string(nspace, PMIX_RANK_UNDEF, key, false, value) == PMIX_SUCCESS)
        return PMIX_SUCCESS;
    /* PMI's preput values: the spawning process put them before spawning */
    if (mine && job->spawned &&
        get_string(job->parent.nspace, job->parent.rank, key, true, value) == PMIX_SUCCESS)
        return PMIX_SUCCESS;
    return PMIX_ERR_NOT_FOUND;
}

pmix_status_t sy_pmi_publish(const char *service, const char *port)
{
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, service, port, PMIX_STRING);
    pmix_status_t rc = PMIx_Publish(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

pmix_status_t sy_pmi_unpublish(const char *service)
{
    char *keys[2] = {(char *)service, NULL};
    return PMIx_Unpublish(keys, NULL, 0);
}

pmix_status_t sy_pmi_lookup(const char *service, bool wait, char **port)
{
    pmix_pdata_t pd;
    pmix_info_t info;
    int all = 0;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, service);
    PMIX_INFO_LOAD(&info, PMIX_WAIT, &all, PMIX_INT);
    /* PMI's name lookup answers now; a waiting node attribute get waits */
    pmix_status_t rc = PMIx_Lookup(&pd, 1, wait ? &info : NULL, wait ? 1 : 0);
    PMIX_INFO_DESTRUCT(&info);
    if (rc == PMIX_SUCCESS) {
        if (pd.value.type == PMIX_STRING && pd.value.data.string != NULL) {
            *port = pd.value.data.string;
            pd.value.data.string = NULL;
        } else {
            rc = PMIX_ERR_NOT_FOUND;
        }
    }
    PMIX_PDATA_DESTRUCT(&pd);
    return rc;
}

/* Field `off` of element i of an array of pairs laid out as l says. */
static const char *kv_field(const void *base, const sy_pmi_kv_layout_t *l, int i, size_t off)
{
    const char *elem = (const char *)base + (size_t)i * l->size;
    const char *v;
    memcpy(&v, elem + off, sizeof(v));
    return v;
}

static void app_info(pmix_app_t *app, const void *pairs, int npairs, const sy_pmi_kv_layout_t *l)
{
    if (npairs <= 0 || pairs == NULL)
        return;
    PMIX_INFO_CREATE(app->info, (size_t)npairs);
    size_t n = 0;
    for (int i = 0; app->info != NULL && i < npairs; i++) {
        const char *k = kv_field(pairs, l, i, l->key), *v = kv_field(pairs, l, i, l->val);
        if (k == NULL || v == NULL)
            continue;
        /* PMI's standard info keys; others have no PMIx meaning */
        if (strcmp(k, "wdir") == 0) {
            free(app->cwd);
            app->cwd = strdup(v);
        } else if (strcmp(k, "host") == 0 || strcmp(k, "hosts") == 0) {
            PMIX_INFO_LOAD(&app->info[n], PMIX_HOST, v, PMIX_STRING);
            n++;
        } else if (strcmp(k, "hostfile") == 0) {
            PMIX_INFO_LOAD(&app->info[n], PMIX_HOSTFILE, v, PMIX_STRING);
            n++;
        } else if (strcmp(k, "path") == 0) {
            PMIX_INFO_LOAD(&app->info[n], PMIX_PREFIX, v, PMIX_STRING);
            n++;
        }
    }
    app->ninfo = n;
    if (n == 0 && app->info != NULL) {
        PMIX_INFO_FREE(app->info, (size_t)npairs);
        app->info = NULL;
    }
}

/* The apps of a spawn; NULL when out of memory. */
static pmix_app_t *make_apps(const sy_pmi_spawn_t *a)
{
    pmix_app_t *apps;
    PMIX_APP_CREATE(apps, (size_t)a->count);
    if (apps == NULL)
        return NULL;
    char cwd[4096];
    for (int i = 0; i < a->count; i++) {
        pmix_app_t *app = &apps[i];
        const char *const *args = a->argvs != NULL ? a->argvs[i] : NULL;
        int argc = 0;
        if (a->argcs != NULL)
            argc = args != NULL ? a->argcs[i] : 0;
        else
            while (args != NULL && args[argc] != NULL)
                argc++;
        app->cmd = strdup(a->cmds[i]);
        app->argv = calloc((size_t)argc + 2, sizeof(char *));
        if (app->cmd == NULL || app->argv == NULL) {
            PMIX_APP_FREE(apps, (size_t)a->count);
            return NULL;
        }
        app->argv[0] = strdup(a->cmds[i]);
        for (int k = 0; k < argc; k++)
            app->argv[k + 1] = strdup(args[k]);
        app->maxprocs = a->maxprocs[i];
        if (a->ninfo != NULL && a->infos != NULL)
            app_info(app, a->infos[i], a->ninfo[i], &a->kv);
        if (app->cwd == NULL && getcwd(cwd, sizeof(cwd)) != NULL)
            app->cwd = strdup(cwd);
    }
    return apps;
}

pmix_status_t sy_pmi_spawn(const sy_pmi_spawn_t *a, char nspace[PMIX_MAX_NSLEN + 1])
{
    if (a->count <= 0 || a->cmds == NULL || a->maxprocs == NULL || a->npre < 0)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc;
    for (int i = 0; i < a->npre; i++)
        if ((rc = sy_pmi_put(kv_field(a->pre, &a->kv, i, a->kv.key),
                             kv_field(a->pre, &a->kv, i, a->kv.val), PMIX_GLOBAL)) != PMIX_SUCCESS)
            return rc;
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        return rc;
    pmix_app_t *apps = make_apps(a);
    if (apps == NULL)
        return PMIX_ERR_NOMEM;
    rc = PMIx_Spawn(NULL, 0, apps, (size_t)a->count, nspace);
    PMIX_APP_FREE(apps, (size_t)a->count);
    return rc;
}
