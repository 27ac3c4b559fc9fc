/* libpmi.so.0: the PMI-1 API (Slurm 22.05's pmi.h) over the PMIx client
 * API.  Mapping in docs/pmi.md. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmi.h>

#include "pmi_util.h"

static sy_pmi_job_t job;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static size_t iter_pos; /* PMI_KVS_Iter_next's place */

static bool own_kvs(const char kvsname[])
{
    return kvsname != NULL && strcmp(kvsname, job.me.nspace) == 0;
}

static int to_pmi(pmix_status_t rc)
{
    switch (rc) {
    case PMIX_SUCCESS: return PMI_SUCCESS;
    case PMIX_ERR_NOMEM: return PMI_ERR_NOMEM;
    case PMIX_ERR_BAD_PARAM: return PMI_ERR_INVALID_ARG;
    case PMIX_ERR_INIT: return PMI_ERR_INIT;
    default: return PMI_FAIL;
    }
}

#define NEED_INIT()                                                                                \
    do {                                                                                           \
        if (!job.initialized)                                                                      \
            return PMI_ERR_INIT;                                                                   \
    } while (0)

SY_PMI_API int PMI_Init(int *spawned)
{
    pthread_mutex_lock(&lock);
    pmix_status_t rc = sy_pmi_init(&job);
    pthread_mutex_unlock(&lock);
    if (rc != PMIX_SUCCESS)
        return PMI_FAIL;
    if (spawned != NULL)
        *spawned = job.spawned ? PMI_TRUE : PMI_FALSE;
    return PMI_SUCCESS;
}

SY_PMI_API int PMI_Initialized(PMI_BOOL *initialized)
{
    if (initialized == NULL)
        return PMI_ERR_INVALID_ARG;
    *initialized = job.initialized ? PMI_TRUE : PMI_FALSE;
    return PMI_SUCCESS;
}

SY_PMI_API int PMI_Finalize(void)
{
    pthread_mutex_lock(&lock);
    sy_pmi_finalize(&job);
    pthread_mutex_unlock(&lock);
    return PMI_SUCCESS;
}

/* The integer getters: initialized, a place to write, the value. */
static int give(int *out, int value)
{
    NEED_INIT();
    if (out == NULL)
        return PMI_ERR_INVALID_ARG;
    *out = value;
    return PMI_SUCCESS;
}

SY_PMI_API int PMI_Get_size(int *size)
{
    return give(size, job.size);
}

SY_PMI_API int PMI_Get_rank(int *rank)
{
    return give(rank, (int)job.me.rank);
}

SY_PMI_API int PMI_Get_universe_size(int *size)
{
    uint32_t u;
    if (!job.initialized ||
        sy_pmi_get_u32(job.me.nspace, PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, &u) != PMIX_SUCCESS)
        u = (uint32_t)job.size;
    return give(size, (int)u);
}

SY_PMI_API int PMI_Get_appnum(int *appnum)
{
    return give(appnum, job.appnum);
}

SY_PMI_API int PMI_Get_id(char id_str[], int length)
{
    return PMI_KVS_Get_my_name(id_str, length);
}

SY_PMI_API int PMI_Get_kvs_domain_id(char id_str[], int length)
{
    return PMI_KVS_Get_my_name(id_str, length);
}

SY_PMI_API int PMI_Get_id_length_max(int *length)
{
    return PMI_KVS_Get_name_length_max(length);
}

SY_PMI_API int PMI_Get_clique_size(int *size)
{
    int *r = NULL, n = 0;
    if (job.initialized && size != NULL && sy_pmi_local_peers(&job, &r, &n) != PMIX_SUCCESS)
        return PMI_FAIL;
    free(r);
    return give(size, n);
}

SY_PMI_API int PMI_Get_clique_ranks(int ranks[], int length)
{
    NEED_INIT();
    if (ranks == NULL)
        return PMI_ERR_INVALID_ARG;
    int *r, n;
    if (sy_pmi_local_peers(&job, &r, &n) != PMIX_SUCCESS)
        return PMI_FAIL;
    if (n > length) {
        free(r);
        return PMI_ERR_INVALID_LENGTH;
    }
    memcpy(ranks, r, (size_t)n * sizeof(int));
    free(r);
    return PMI_SUCCESS;
}

SY_PMI_API int PMI_Publish_name(const char service_name[], const char port[])
{
    NEED_INIT();
    if (service_name == NULL || port == NULL)
        return PMI_ERR_INVALID_ARG;
    return to_pmi(sy_pmi_publish(service_name, port));
}

SY_PMI_API int PMI_Unpublish_name(const char service_name[])
{
    NEED_INIT();
    if (service_name == NULL)
        return PMI_ERR_INVALID_ARG;
    return to_pmi(sy_pmi_unpublish(service_name));
}

SY_PMI_API int PMI_Lookup_name(const char service_name[], char port[])
{
    NEED_INIT();
    if (service_name == NULL || port == NULL)
        return PMI_ERR_INVALID_ARG;
    char *p = NULL;
    pmix_status_t rc = sy_pmi_lookup(service_name, false, &p);
    if (rc != PMIX_SUCCESS)
        return PMI_FAIL;
    /* the PMI-1 API has no length: MPI port names are < MPI_MAX_PORT_NAME */
    bool ok = sy_pmi_copy(port, SY_PMI_VALLEN_MAX, p);
    free(p);
    return ok ? PMI_SUCCESS : PMI_ERR_INVALID_LENGTH;
}

SY_PMI_API int PMI_Barrier(void)
{
    NEED_INIT();
    return to_pmi(sy_pmi_fence());
}

SY_PMI_API int PMI_Abort(int exit_code, const char error_msg[])
{
    if (!job.initialized) {
        if (error_msg != NULL)
            fprintf(stderr, "PMI_Abort(%d): %s\n", exit_code, error_msg);
        exit(exit_code);
    }
    PMIx_Abort(exit_code, error_msg != NULL ? error_msg : "PMI_Abort", NULL, 0);
    /* the host kills us; if it does not, do what it should have */
    exit(exit_code);
}

SY_PMI_API int PMI_KVS_Get_my_name(char kvsname[], int length)
{
    NEED_INIT();
    return sy_pmi_copy(kvsname, length, job.me.nspace) ? PMI_SUCCESS : PMI_ERR_INVALID_LENGTH;
}

SY_PMI_API int PMI_KVS_Get_name_length_max(int *length)
{
    if (length == NULL)
        return PMI_ERR_INVALID_ARG;
    *length = SY_PMI_KVSNAME_MAX;
    return PMI_SUCCESS;
}

SY_PMI_API int PMI_KVS_Get_key_length_max(int *length)
{
    if (length == NULL)
        return PMI_ERR_INVALID_ARG;
    *length = SY_PMI_KEYLEN_MAX;
    return PMI_SUCCESS;
}

SY_PMI_API int PMI_KVS_Get_value_length_max(int *length)
{
    if (length == NULL)
        return PMI_ERR_INVALID_ARG;
    *length = SY_PMI_VALLEN_MAX;
    return PMI_SUCCESS;
}

/* PMIx has one key-value space per job: no others can be made. */
SY_PMI_API int PMI_KVS_Create(char kvsname[], int length)
{
    (void)kvsname;
    (void)length;
    return PMI_FAIL;
}

SY_PMI_API int PMI_KVS_Destroy(const char kvsname[])
{
    (void)kvsname;
    return PMI_FAIL;
}

SY_PMI_API int PMI_KVS_Put(const char kvsname[], const char key[], const char value[])
{
    NEED_INIT();
    if (!own_kvs(kvsname))
        return PMI_ERR_INVALID_KVS;
    if (key == NULL || key[0] == '\0')
        return PMI_ERR_INVALID_KEY;
    if (strlen(key) >= SY_PMI_KEYLEN_MAX)
        return PMI_ERR_INVALID_KEY_LENGTH;
    if (value == NULL)
        return PMI_ERR_INVALID_VAL;
    if (strlen(value) >= SY_PMI_VALLEN_MAX)
        return PMI_ERR_INVALID_VAL_LENGTH;
    return to_pmi(sy_pmi_put(key, value, PMIX_GLOBAL));
}

SY_PMI_API int PMI_KVS_Commit(const char kvsname[])
{
    NEED_INIT();
    if (!own_kvs(kvsname))
        return PMI_ERR_INVALID_KVS;
    return to_pmi(PMIx_Commit());
}

SY_PMI_API int PMI_KVS_Get(const char kvsname[], const char key[], char value[], int length)
{
    NEED_INIT();
    if (kvsname == NULL)
        return PMI_ERR_INVALID_KVS;
    if (key == NULL || key[0] == '\0')
        return PMI_ERR_INVALID_KEY;
    if (value == NULL)
        return PMI_ERR_INVALID_VAL;
    /* the process-manager keys MPICH reads */
    if (strcmp(key, "PMI_process_mapping") == 0 && own_kvs(kvsname)) {
        char map[SY_PMI_VALLEN_MAX];
        if (sy_pmi_process_mapping(job.me.nspace, job.size, map, sizeof(map)) != PMIX_SUCCESS)
            return PMI_FAIL;
        return sy_pmi_copy(value, length, map) ? PMI_SUCCESS : PMI_ERR_INVALID_VAL_LENGTH;
    }
    char *v = NULL;
    if (sy_pmi_get(&job, kvsname, -1, key, &v) != PMIX_SUCCESS)
        return PMI_FAIL;
    bool ok = sy_pmi_copy(value, length, v);
    free(v);
    return ok ? PMI_SUCCESS : PMI_ERR_INVALID_VAL_LENGTH;
}

/* Iteration over the pairs this process put (PMIx cannot list the keys
 * of other processes). */
static int iter_at(const char kvsname[], char key[], int key_len, char val[], int val_len)
{
    const char *k, *v;
    if (!sy_pmi_own_put(iter_pos, &k, &v)) {
        if (key != NULL && key_len > 0)
            key[0] = '\0';
        if (val != NULL && val_len > 0)
            val[0] = '\0';
        return PMI_SUCCESS;
    }
    (void)kvsname;
    iter_pos++;
    if (!sy_pmi_copy(key, key_len, k))
        return PMI_ERR_INVALID_KEY_LENGTH;
    if (!sy_pmi_copy(val, val_len, v))
        return PMI_ERR_INVALID_VAL_LENGTH;
    return PMI_SUCCESS;
}

SY_PMI_API int PMI_KVS_Iter_first(const char kvsname[], char key[], int key_len, char val[],
                                  int val_len)
{
    NEED_INIT();
    if (!own_kvs(kvsname))
        return PMI_ERR_INVALID_KVS;
    iter_pos = 0;
    return iter_at(kvsname, key, key_len, val, val_len);
}

SY_PMI_API int PMI_KVS_Iter_next(const char kvsname[], char key[], int key_len, char val[],
                                 int val_len)
{
    NEED_INIT();
    if (!own_kvs(kvsname))
        return PMI_ERR_INVALID_KVS;
    return iter_at(kvsname, key, key_len, val, val_len);
}

SY_PMI_API int PMI_Spawn_multiple(int count, const char *cmds[], const char **argvs[],
                                  const int maxprocs[], const int info_keyval_sizesp[],
                                  const PMI_keyval_t *info_keyval_vectors[], int preput_keyval_size,
                                  const PMI_keyval_t preput_keyval_vector[], int errors[])
{
    NEED_INIT();
    if (count <= 0 || cmds == NULL || maxprocs == NULL || preput_keyval_size < 0)
        return PMI_ERR_INVALID_ARG;
    sy_pmi_spawn_t a = {
        .count = count,
        .cmds = cmds,
        .argvs = (const char *const *const *)argvs,
        .maxprocs = maxprocs,
        .ninfo = info_keyval_sizesp,
        .infos = (const void *const *)info_keyval_vectors,
        .npre = preput_keyval_size,
        .pre = preput_keyval_vector,
        .kv = {sizeof(PMI_keyval_t), offsetof(PMI_keyval_t, key), offsetof(PMI_keyval_t, val)}};
    char nspace[PMIX_MAX_NSLEN + 1];
    int ret = to_pmi(sy_pmi_spawn(&a, nspace));
    for (int i = 0; errors != NULL && i < count; i++)
        for (int k = 0; k < maxprocs[i]; k++)
            *errors++ = ret;
    return ret;
}

/* Options of the form key=value (a leading '-' or "--" dropped). */
SY_PMI_API int PMI_Parse_option(int num_args, char *args[], int *num_parsed, PMI_keyval_t **keyvalp,
                                int *size)
{
    if (num_args < 0 || args == NULL || num_parsed == NULL || keyvalp == NULL || size == NULL)
        return PMI_ERR_INVALID_ARG;
    PMI_keyval_t *kv = calloc((size_t)num_args + 1, sizeof(*kv));
    if (kv == NULL)
        return PMI_ERR_NOMEM;
    int n = 0;
    for (int i = 0; i < num_args; i++) {
        const char *a = args[i];
        while (*a == '-')
            a++;
        const char *eq = strchr(a, '=');
        if (eq == NULL || eq == a) {
            PMI_Free_keyvals(kv, n);
            return PMI_ERR_INVALID_ARGS;
        }
        kv[n].key = strndup(a, (size_t)(eq - a));
        kv[n].val = strdup(eq + 1);
        if (kv[n].key == NULL || kv[n].val == NULL) {
            free(kv[n].key);
            free(kv[n].val);
            PMI_Free_keyvals(kv, n);
            return PMI_ERR_NOMEM;
        }
        n++;
    }
    *num_parsed = n;
    *keyvalp = kv;
    *size = n;
    return PMI_SUCCESS;
}

/* The arguments "-pmi_<key>=<value>" are taken out of argv. */
SY_PMI_API int PMI_Args_to_keyval(int *argcp, char *((*argvp)[]), PMI_keyval_t **keyvalp, int *size)
{
    if (argcp == NULL || argvp == NULL || keyvalp == NULL || size == NULL || *argcp < 0)
        return PMI_ERR_INVALID_ARG;
    char **argv = *argvp;
    int argc = *argcp;
    PMI_keyval_t *kv = calloc((size_t)argc + 1, sizeof(*kv));
    if (kv == NULL)
        return PMI_ERR_NOMEM;
    int n = 0, keep = argc > 0 ? 1 : 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        if (strncmp(a, "-pmi_", 5) != 0 || eq == NULL || eq == a + 5) {
            argv[keep++] = argv[i];
            continue;
        }
        kv[n].key = strndup(a + 5, (size_t)(eq - a - 5));
        kv[n].val = strdup(eq + 1);
        if (kv[n].key == NULL || kv[n].val == NULL) {
            free(kv[n].key);
            free(kv[n].val);
            PMI_Free_keyvals(kv, n);
            return PMI_ERR_NOMEM;
        }
        n++;
    }
    if (keep < argc)
        argv[keep] = NULL;
    *argcp = keep;
    *keyvalp = kv;
    *size = n;
    return PMI_SUCCESS;
}

SY_PMI_API int PMI_Free_keyvals(PMI_keyval_t keyvalp[], int size)
{
    if (keyvalp == NULL)
        return size == 0 ? PMI_SUCCESS : PMI_ERR_INVALID_ARG;
    for (int i = 0; i < size; i++) {
        free(keyvalp[i].key);
        free(keyvalp[i].val);
    }
    free(keyvalp);
    return PMI_SUCCESS;
}

/* The options a process manager accepts, as PMI_Parse_option reads them:
 * none beyond the standard spawn info keys. */
SY_PMI_API int PMI_Get_options(char *str, int *length)
{
    static const char opts[] = "wdir=<dir> host=<host> hostfile=<file> path=<dir>";
    if (str == NULL || length == NULL)
        return PMI_ERR_INVALID_ARG;
    if (!sy_pmi_copy(str, *length, opts)) {
        *length = (int)sizeof(opts);
        return PMI_ERR_INVALID_LENGTH;
    }
    *length = (int)strlen(opts);
    return PMI_SUCCESS;
}
