/* What libpmi.so.0 and libpmi2.so.0 share: the PMI view of a PMIx job
 * (flat key-value space, process mapping, cliques, name service, spawn),
 * built only on the public PMIx client API.  Compiled into each library;
 * nothing here is exported. */
#ifndef SWITCHYARD_COMPAT_PMI_UTIL_H
#define SWITCHYARD_COMPAT_PMI_UTIL_H
#include <stdbool.h>
#include <stddef.h>

#include <pmix.h>

#define SY_PMI_API __attribute__((visibility("default")))

/* Limits announced to PMI users: a key or value longer is refused. */
#define SY_PMI_KVSNAME_MAX 256
#define SY_PMI_KEYLEN_MAX 64
#define SY_PMI_VALLEN_MAX 1024

typedef struct {
    bool initialized;
    pmix_proc_t me;
    int size;
    int appnum;
    bool spawned;
    pmix_proc_t parent;
} sy_pmi_job_t;

/* PMIx_Init and the job's basic facts. */
pmix_status_t sy_pmi_init(sy_pmi_job_t *job);
void sy_pmi_finalize(sy_pmi_job_t *job);

/* An unsigned job- or proc-level value (rank WILDCARD: the job's). */
pmix_status_t sy_pmi_get_u32(const char *nspace, pmix_rank_t rank, const char *key, uint32_t *out);

/* The local ranks of the job, malloc'd (PMIX_LOCAL_PEERS). */
pmix_status_t sy_pmi_local_peers(const sy_pmi_job_t *job, int **ranks, int *n);

/* "(vector,(start,nodes,ppn),...)" from the node of every rank. */
pmix_status_t sy_pmi_process_mapping(const char *nspace, int size, char *out, size_t len);

/* Key-value space: Put (GLOBAL, remembered for own Gets), Commit+Fence,
 * Get of a key from whichever rank posted it (rank_hint first when >= 0;
 * then the spawning parent's keys, as PMI's preput values). */
pmix_status_t sy_pmi_put(const char *key, const char *value, pmix_scope_t scope);
pmix_status_t sy_pmi_fence(void);
pmix_status_t sy_pmi_get(const sy_pmi_job_t *job, const char *nspace, int rank_hint,
                         const char *key, char **value);
/* Own puts, for PMI_KVS_Iter_*: the idx-th one (false past the end). */
bool sy_pmi_own_put(size_t idx, const char **key, const char **value);
void sy_pmi_forget_puts(void);

/* Name service. */
pmix_status_t sy_pmi_publish(const char *service, const char *port);
pmix_status_t sy_pmi_unpublish(const char *service);
/* wait: until someone publishes it (PMIX_WAIT), else answered now. */
pmix_status_t sy_pmi_lookup(const char *service, bool wait, char **port);

/* Copy into a caller's buffer: false when it does not fit. */
bool sy_pmi_copy(char *dst, int len, const char *src);

/* Where the key and value pointers are in an element of an array of pairs
 * (PMI_keyval_t, MPID_Info). */
typedef struct {
    size_t size, key, val;
} sy_pmi_kv_layout_t;
/* A PMI spawn's arguments as the API gives them: argcs NULL means each
 * argvs[i] is NULL-terminated; infos[i] and pre are arrays of pairs. */
typedef struct {
    int count;
    const char *const *cmds;
    const int *argcs;
    const char *const *const *argvs;
    const int *maxprocs;
    const int *ninfo;
    const void *const *infos;
    int npre;
    const void *pre;
    sy_pmi_kv_layout_t kv;
} sy_pmi_spawn_t;
/* Preput pairs are put (GLOBAL) and committed first: the children find
 * them through their PMIX_PARENT_ID (sy_pmi_get). */
pmix_status_t sy_pmi_spawn(const sy_pmi_spawn_t *a, char nspace[PMIX_MAX_NSLEN + 1]);
#endif
