#define _GNU_SOURCE
/* libpmi2.so.0: the PMI-2 API (Slurm 22.05's pmi2.h) over the PMIx client
 * API.  Mapping in docs/pmi.md. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmi2.h>

#include "pmi_util.h"

static sy_pmi_job_t job;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void own_attrs_free(void);

static int to_pmi2(pmix_status_t rc)
{
    switch (rc) {
    case PMIX_SUCCESS: return PMI2_SUCCESS;
    case PMIX_ERR_NOMEM: return PMI2_ERR_NOMEM;
    case PMIX_ERR_BAD_PARAM: return PMI2_ERR_INVALID_ARG;
    case PMIX_ERR_INIT: return PMI2_ERR_INIT;
    default: return PMI2_FAIL;
    }
}

#define NEED_INIT()                                                                                \
    do {                                                                                           \
        if (!job.initialized)                                                                      \
            return PMI2_ERR_INIT;                                                                  \
    } while (0)

SY_PMI_API int PMI2_Init(int *spawned, int *size, int *rank, int *appnum)
{
    pthread_mutex_lock(&lock);
    pmix_status_t rc = sy_pmi_init(&job);
    pthread_mutex_unlock(&lock);
    if (rc != PMIX_SUCCESS)
        return PMI2_FAIL;
    if (spawned != NULL)
        *spawned = job.spawned ? 1 : 0;
    if (size != NULL)
        *size = job.size;
    if (rank != NULL)
        *rank = (int)job.me.rank;
    if (appnum != NULL)
        *appnum = job.appnum;
    return PMI2_SUCCESS;
}

SY_PMI_API int PMI2_Finalize(void)
{
    pthread_mutex_lock(&lock);
    sy_pmi_finalize(&job);
    own_attrs_free();
    pthread_mutex_unlock(&lock);
    return PMI2_SUCCESS;
}

SY_PMI_API int PMI2_Initialized(void)
{
    return job.initialized ? 1 : 0;
}

SY_PMI_API int PMI2_Abort(int flag, const char msg[])
{
    (void)flag; /* PMIx aborts the job either way */
    if (msg != NULL)
        fprintf(stderr, "PMI2_Abort: %s\n", msg);
    if (job.initialized)
        PMIx_Abort(1, msg != NULL ? msg : "PMI2_Abort", NULL, 0);
    exit(1);
}

SY_PMI_API int PMI2_Job_Spawn(int count, const char *cmds[], int argcs[], const char **argvs[],
                              const int maxprocs[], const int info_keyval_sizes[],
                              const struct MPID_Info *info_keyval_vectors[], int preput_keyval_size,
                              const struct MPID_Info *preput_keyval_vector[], char jobId[],
                              int jobIdSize, int errors[])
{
    NEED_INIT();
    if (count <= 0 || cmds == NULL || maxprocs == NULL || preput_keyval_size < 0)
        return PMI2_ERR_INVALID_ARG;
    /* Slurm's and MPICH's callers pass one array of preput infos */
    sy_pmi_spawn_t a = {
        .count = count,
        .cmds = cmds,
        .argcs = argcs,
        .argvs = (const char *const *const *)argvs,
        .maxprocs = maxprocs,
        .ninfo = info_keyval_sizes,
        .infos = (const void *const *)info_keyval_vectors,
        .npre = preput_keyval_size,
        .pre = preput_keyval_size > 0 ? preput_keyval_vector[0] : NULL,
        .kv = {sizeof(MPID_Info), offsetof(MPID_Info, key), offsetof(MPID_Info, value)}};
    char nspace[PMIX_MAX_NSLEN + 1];
    int ret = to_pmi2(sy_pmi_spawn(&a, nspace));
    if (ret == PMI2_SUCCESS && jobId != NULL && !sy_pmi_copy(jobId, jobIdSize, nspace))
        ret = PMI2_ERR_INVALID_LENGTH;
    for (int i = 0; errors != NULL && i < count; i++)
        for (int k = 0; k < maxprocs[i]; k++)
            *errors++ = ret;
    return ret;
}

SY_PMI_API int PMI2_Job_GetId(char jobid[], int jobid_size)
{
    NEED_INIT();
    return sy_pmi_copy(jobid, jobid_size, job.me.nspace) ? PMI2_SUCCESS : PMI2_ERR_INVALID_LENGTH;
}

SY_PMI_API int PMI2_Job_GetRank(int *rank)
{
    NEED_INIT();
    if (rank == NULL)
        return PMI2_ERR_INVALID_ARG;
    *rank = (int)job.me.rank;
    return PMI2_SUCCESS;
}

SY_PMI_API int PMI2_Info_GetSize(int *size)
{
    NEED_INIT();
    if (size == NULL)
        return PMI2_ERR_INVALID_ARG;
    int *r, n;
    if (sy_pmi_local_peers(&job, &r, &n) != PMIX_SUCCESS)
        return PMI2_FAIL;
    free(r);
    *size = n;
    return PMI2_SUCCESS;
}

/* Another job's data is reachable by PMIx_Get at any time: connecting
 * checks that the job exists. */
SY_PMI_API int PMI2_Job_Connect(const char jobid[], PMI2_Connect_comm_t *conn)
{
    NEED_INIT();
    if (jobid == NULL)
        return PMI2_ERR_INVALID_ARG;
    uint32_t size;
    if (sy_pmi_get_u32(jobid, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &size) != PMIX_SUCCESS)
        return PMI2_FAIL;
    if (conn != NULL)
        conn->isMaster = 0;
    return PMI2_SUCCESS;
}

SY_PMI_API int PMI2_Job_Disconnect(const char jobid[])
{
    NEED_INIT();
    return jobid == NULL ? PMI2_ERR_INVALID_ARG : PMI2_SUCCESS;
}

SY_PMI_API int PMI2_KVS_Put(const char key[], const char value[])
{
    NEED_INIT();
    if (key == NULL || key[0] == '\0')
        return PMI2_ERR_INVALID_KEY;
    if (strlen(key) > PMI2_MAX_KEYLEN)
        return PMI2_ERR_INVALID_KEY_LENGTH;
    if (value == NULL)
        return PMI2_ERR_INVALID_VAL;
    if (strlen(value) > PMI2_MAX_VALLEN)
        return PMI2_ERR_INVALID_VAL_LENGTH;
    return to_pmi2(sy_pmi_put(key, value, PMIX_GLOBAL));
}

SY_PMI_API int PMI2_KVS_Fence(void)
{
    NEED_INIT();
    return to_pmi2(sy_pmi_fence());
}

/* *vallen: the value's length, negative when it was truncated. */
static int copy_out(char *value, int maxvalue, const char *v, int *vallen)
{
    int len = (int)strlen(v);
    if (maxvalue <= 0 || value == NULL) {
        if (vallen != NULL)
            *vallen = -len;
        return PMI2_ERR_INVALID_LENGTH;
    }
    if (len < maxvalue) {
        memcpy(value, v, (size_t)len + 1);
        if (vallen != NULL)
            *vallen = len;
    } else {
        memcpy(value, v, (size_t)maxvalue - 1);
        value[maxvalue - 1] = '\0';
        if (vallen != NULL)
            *vallen = -len;
    }
    return PMI2_SUCCESS;
}

SY_PMI_API int PMI2_KVS_Get(const char *jobid, int src_pmi_id, const char key[], char value[],
                            int maxvalue, int *vallen)
{
    NEED_INIT();
    if (key == NULL || key[0] == '\0')
        return PMI2_ERR_INVALID_KEY;
    char *v = NULL;
    if (sy_pmi_get(&job, jobid, src_pmi_id, key, &v) != PMIX_SUCCESS) {
        if (vallen != NULL)
            *vallen = 0;
        return PMI2_ERR_OTHER;
    }
    int ret = copy_out(value, maxvalue, v, vallen);
    free(v);
    return ret;
}

/* Node attributes: published under a name that holds the job and the node
 * (a job's processes on one node share them), looked up with PMIX_WAIT
 * when the caller waits for one. */
static bool node_attr_name(const char *name, char *out, size_t len)
{
    char host[256] = "";
    pmix_value_t *v = NULL;
    if (PMIx_Get(&job.me, PMIX_HOSTNAME, NULL, 0, &v) == PMIX_SUCCESS) {
        if (v->type == PMIX_STRING && v->data.string != NULL)
            snprintf(host, sizeof(host), "%s", v->data.string);
        PMIX_VALUE_RELEASE(v);
    }
    if (host[0] == '\0' && gethostname(host, sizeof(host)) != 0)
        host[0] = '\0';
    int n = snprintf(out, len, "pmi2.node:%s:%s:%s", job.me.nspace, host, name);
    return n > 0 && (size_t)n < len;
}

/* What this process put: answered without the server (and all a
 * singleton has). */
typedef struct own_attr {
    char *name, *value;
    struct own_attr *next;
} own_attr_t;
static own_attr_t *own_attrs;

static char *own_attr(const char *name)
{
    char *v = NULL;
    pthread_mutex_lock(&lock);
    for (own_attr_t *a = own_attrs; a != NULL && v == NULL; a = a->next)
        if (strcmp(a->name, name) == 0)
            v = strdup(a->value);
    pthread_mutex_unlock(&lock);
    return v;
}

static void own_attrs_free(void)
{
    while (own_attrs != NULL) {
        own_attr_t *a = own_attrs;
        own_attrs = a->next;
        free(a->name);
        free(a->value);
        free(a);
    }
}

SY_PMI_API int PMI2_Info_PutNodeAttr(const char name[], const char value[])
{
    NEED_INIT();
    char key[PMIX_MAX_KEYLEN + 1];
    if (name == NULL || value == NULL)
        return PMI2_ERR_INVALID_ARG;
    if (!node_attr_name(name, key, sizeof(key)))
        return PMI2_ERR_INVALID_KEY_LENGTH;
    own_attr_t *a = calloc(1, sizeof(*a));
    if (a == NULL || (a->name = strdup(name)) == NULL || (a->value = strdup(value)) == NULL) {
        if (a != NULL)
            free(a->name);
        free(a);
        return PMI2_ERR_NOMEM;
    }
    pthread_mutex_lock(&lock);
    a->next = own_attrs;
    own_attrs = a;
    pthread_mutex_unlock(&lock);
    pmix_status_t rc = sy_pmi_publish(key, value);
    /* a singleton has no name service: its own processes are all there is */
    if (rc != PMIX_SUCCESS && job.size == 1)
        rc = PMIX_SUCCESS;
    return to_pmi2(rc);
}

static pmix_status_t node_attr(const char *name, bool wait, char **out)
{
    char key[PMIX_MAX_KEYLEN + 1];
    if ((*out = own_attr(name)) != NULL)
        return PMIX_SUCCESS;
    if (!node_attr_name(name, key, sizeof(key)))
        return PMIX_ERR_BAD_PARAM;
    return sy_pmi_lookup(key, wait, out);
}

SY_PMI_API int PMI2_Info_GetNodeAttr(const char name[], char value[], int valuelen, int *found,
                                     int waitfor)
{
    NEED_INIT();
    if (name == NULL || found == NULL)
        return PMI2_ERR_INVALID_ARG;
    char *v = NULL;
    *found = 0;
    if (node_attr(name, waitfor != 0, &v) != PMIX_SUCCESS)
        return PMI2_SUCCESS;
    *found = 1;
    int ret = copy_out(value, valuelen, v, NULL);
    free(v);
    return ret;
}

/* "1,2,3" into array: *outlen numbers. */
static int int_array(const char *s, int array[], int arraylen, int *outlen)
{
    int n = 0;
    while (*s != '\0' && n < arraylen) {
        char *end;
        long x = strtol(s, &end, 10);
        if (end == s)
            break;
        array[n++] = (int)x;
        s = *end == ',' ? end + 1 : end;
    }
    if (outlen != NULL)
        *outlen = n;
    return PMI2_SUCCESS;
}

SY_PMI_API int PMI2_Info_GetNodeAttrIntArray(const char name[], int array[], int arraylen,
                                             int *outlen, int *found)
{
    NEED_INIT();
    if (name == NULL || found == NULL || array == NULL)
        return PMI2_ERR_INVALID_ARG;
    char *v = NULL;
    *found = 0;
    if (node_attr(name, false, &v) != PMIX_SUCCESS)
        return PMI2_SUCCESS;
    *found = 1;
    int ret = int_array(v, array, arraylen, outlen);
    free(v);
    return ret;
}

/* The job attributes MPICH and others read, else a job-level PMIx key. */
static pmix_status_t job_attr(const char *name, char **out)
{
    char buf[SY_PMI_VALLEN_MAX];
    if (strcmp(name, "PMI_process_mapping") == 0) {
        pmix_status_t rc = sy_pmi_process_mapping(job.me.nspace, job.size, buf, sizeof(buf));
        if (rc != PMIX_SUCCESS)
            return rc;
    } else if (strcmp(name, "universeSize") == 0) {
        uint32_t u;
        if (sy_pmi_get_u32(job.me.nspace, PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, &u) != PMIX_SUCCESS)
            u = (uint32_t)job.size;
        snprintf(buf, sizeof(buf), "%u", u);
    } else if (strcmp(name, "hasNameServ") == 0) {
        snprintf(buf, sizeof(buf), "TRUE");
    } else if (strcmp(name, "PMI_dead_processes") == 0) {
        buf[0] = '\0';
    } else {
        pmix_proc_t p;
        pmix_value_t *v = NULL;
        pmix_info_t info;
        bool yes = true;
        PMIX_LOAD_PROCID(&p, job.me.nspace, PMIX_RANK_WILDCARD);
        PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
        pmix_status_t rc = PMIx_Get(&p, name, &info, 1, &v);
        PMIX_INFO_DESTRUCT(&info);
        if (rc != PMIX_SUCCESS)
            return rc;
        char *s = NULL;
        if (v->type == PMIX_STRING && v->data.string != NULL) {
            s = v->data.string;
            v->data.string = NULL;
        } else {
            uint32_t u;
            rc = sy_pmi_get_u32(job.me.nspace, PMIX_RANK_WILDCARD, name, &u);
            if (rc == PMIX_SUCCESS && asprintf(&s, "%u", u) < 0)
                rc = PMIX_ERR_NOMEM;
        }
        PMIX_VALUE_RELEASE(v);
        *out = s;
        return s != NULL ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
    }
    *out = strdup(buf);
    return *out != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

SY_PMI_API int PMI2_Info_GetJobAttr(const char name[], char value[], int valuelen, int *found)
{
    NEED_INIT();
    if (name == NULL || found == NULL)
        return PMI2_ERR_INVALID_ARG;
    char *v = NULL;
    *found = 0;
    if (job_attr(name, &v) != PMIX_SUCCESS)
        return PMI2_SUCCESS;
    *found = 1;
    int ret = copy_out(value, valuelen, v, NULL);
    free(v);
    return ret;
}

SY_PMI_API int PMI2_Info_GetJobAttrIntArray(const char name[], int array[], int arraylen,
                                            int *outlen, int *found)
{
    NEED_INIT();
    if (name == NULL || found == NULL || array == NULL)
        return PMI2_ERR_INVALID_ARG;
    char *v = NULL;
    *found = 0;
    if (job_attr(name, &v) != PMIX_SUCCESS)
        return PMI2_SUCCESS;
    *found = 1;
    int ret = int_array(v, array, arraylen, outlen);
    free(v);
    return ret;
}

SY_PMI_API int PMI2_Nameserv_publish(const char service_name[], const struct MPID_Info *info_ptr,
                                     const char port[])
{
    NEED_INIT();
    (void)info_ptr;
    if (service_name == NULL || port == NULL)
        return PMI2_ERR_INVALID_ARG;
    return to_pmi2(sy_pmi_publish(service_name, port));
}

SY_PMI_API int PMI2_Nameserv_lookup(const char service_name[], const struct MPID_Info *info_ptr,
                                    char port[], int portLen)
{
    NEED_INIT();
    (void)info_ptr;
    if (service_name == NULL || port == NULL)
        return PMI2_ERR_INVALID_ARG;
    char *p = NULL;
    if (sy_pmi_lookup(service_name, false, &p) != PMIX_SUCCESS)
        return PMI2_FAIL;
    bool ok = sy_pmi_copy(port, portLen, p);
    free(p);
    return ok ? PMI2_SUCCESS : PMI2_ERR_INVALID_LENGTH;
}

SY_PMI_API int PMI2_Nameserv_unpublish(const char service_name[], const struct MPID_Info *info_ptr)
{
    NEED_INIT();
    (void)info_ptr;
    if (service_name == NULL)
        return PMI2_ERR_INVALID_ARG;
    return to_pmi2(sy_pmi_unpublish(service_name));
}

/* Slurm's ring exchange: every rank gives a value and gets its left and
 * right neighbours' (wrapping around). */
SY_PMI_API int PMIX_Ring(const char value[], int *rank, int *ranks, char left[], char right[],
                         int maxvalue)
{
    NEED_INIT();
    if (value == NULL || left == NULL || right == NULL)
        return PMI2_ERR_INVALID_ARG;
    int r = (int)job.me.rank, n = job.size;
    pmix_status_t rc = sy_pmi_put("pmi2.ring", value, PMIX_GLOBAL);
    if (rc == PMIX_SUCCESS)
        rc = sy_pmi_fence();
    if (rc != PMIX_SUCCESS)
        return to_pmi2(rc);
    char *l = NULL, *rt = NULL;
    if (sy_pmi_get(&job, NULL, (r + n - 1) % n, "pmi2.ring", &l) != PMIX_SUCCESS ||
        sy_pmi_get(&job, NULL, (r + 1) % n, "pmi2.ring", &rt) != PMIX_SUCCESS) {
        free(l);
        free(rt);
        return PMI2_FAIL;
    }
    int ret = copy_out(left, maxvalue, l, NULL);
    if (ret == PMI2_SUCCESS)
        ret = copy_out(right, maxvalue, rt, NULL);
    free(l);
    free(rt);
    if (rank != NULL)
        *rank = r;
    if (ranks != NULL)
        *ranks = n;
    return ret;
}
