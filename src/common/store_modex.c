/* The store's modex layer: segments holding the data processes posted
 * (PMIx_Put/Commit) and a fence collected, one or more per namespace,
 * mapped by every process of the node like job data.  Entries are realm
 * PROC, id = rank.  The newest segment of a namespace answers first.
 *
 * A segment is only named when the fence reply arrives; it is mapped and
 * checked when a lookup first needs it.  So a fence costs each process no
 * system call and no pass over everyone's data, and a process that never
 * reads its peers' data never pays for it.  A segment that cannot be
 * mapped (its namespace was deregistered and the server removed it) or
 * fails the check is skipped (logged when corrupt); Gets then fall back to
 * the server (direct modex). */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/log.h"
#include "common/store.h"
#include "common/store_internal.h"

typedef struct modex_seg {
    pmix_nspace_t nspace;
    char *path;
    sy_jseg_t *seg; /* once mapped */
    bool checked;   /* mapped and checked, or tried (under the write lock) */
    bool bad;       /* and failed */
    struct modex_seg *next;
} modex_seg_t;

static modex_seg_t *segs; /* newest first, under sy_store_lock */

pmix_status_t sy_store_attach_modex(const char *nspace, const char *path)
{
    if (nspace == NULL || path == NULL)
        return PMIX_ERR_BAD_PARAM;
    modex_seg_t *m = calloc(1, sizeof(*m));
    if (m == NULL || (m->path = strdup(path)) == NULL) {
        free(m);
        return PMIX_ERR_NOMEM;
    }
    PMIX_LOAD_NSPACE(m->nspace, nspace);
    pthread_rwlock_wrlock(&sy_store_lock);
    m->next = segs;
    segs = m;
    pthread_rwlock_unlock(&sy_store_lock);
    return PMIX_SUCCESS;
}

static void modex_seg_free(modex_seg_t *m)
{
    sy_jseg_close(m->seg);
    free(m->path);
    free(m);
}

void sy_store_modex_forget(const char *nspace, const char *path)
{
    modex_seg_t *gone = NULL;
    pthread_rwlock_wrlock(&sy_store_lock);
    for (modex_seg_t **pp = &segs; *pp != NULL; pp = &(*pp)->next) {
        modex_seg_t *m = *pp;
        if ((nspace == NULL || PMIX_CHECK_NSPACE(m->nspace, nspace)) &&
            strcmp(m->path, path) == 0) {
            *pp = m->next;
            gone = m;
            break;
        }
    }
    pthread_rwlock_unlock(&sy_store_lock);
    if (gone != NULL)
        modex_seg_free(gone);
}

void sy_store_modex_drop(const char *nspace)
{
    modex_seg_t *gone = NULL;
    pthread_rwlock_wrlock(&sy_store_lock);
    for (modex_seg_t **pp = &segs; *pp != NULL;) {
        modex_seg_t *m = *pp;
        if (nspace == NULL || PMIX_CHECK_NSPACE(m->nspace, nspace)) {
            *pp = m->next;
            m->next = gone;
            gone = m;
        } else {
            pp = &m->next;
        }
    }
    pthread_rwlock_unlock(&sy_store_lock);
    while (gone != NULL) {
        modex_seg_t *m = gone;
        gone = m->next;
        modex_seg_free(m);
    }
}

/* Under the read lock: whether a segment of nspace still needs its check. */
static bool unchecked(const char *nspace)
{
    for (const modex_seg_t *m = segs; m != NULL; m = m->next)
        if (!m->checked && PMIX_CHECK_NSPACE(m->nspace, nspace))
            return true;
    return false;
}

/* Map and check every unchecked segment of nspace (under the write lock:
 * checking writes the handle). */
static void check_nspace(const char *nspace)
{
    pthread_rwlock_wrlock(&sy_store_lock);
    for (modex_seg_t *m = segs; m != NULL; m = m->next) {
        if (m->checked || !PMIX_CHECK_NSPACE(m->nspace, nspace))
            continue;
        m->checked = true;
        pmix_status_t rc = sy_jseg_map(m->path, &m->seg);
        if (rc == PMIX_SUCCESS)
            rc = sy_jseg_check(m->seg);
        if (rc != PMIX_SUCCESS) {
            m->bad = true;
            sy_jseg_close(m->seg);
            m->seg = NULL;
            if (rc != PMIX_ERR_NOT_FOUND)
                sy_log(SY_LOG_WARN, "modex segment %s: %s; its data is asked from the server",
                       m->path, rc == PMIX_ERR_UNPACK_FAILURE ? "corrupt" : PMIx_Error_string(rc));
        }
    }
    pthread_rwlock_unlock(&sy_store_lock);
}

/* Take the read lock with every segment of nspace mapped and checked
 * (a segment attached meanwhile is still unchecked: skipped this time). */
static void rdlock_checked(const char *nspace)
{
    pthread_rwlock_rdlock(&sy_store_lock);
    if (unchecked(nspace)) {
        pthread_rwlock_unlock(&sy_store_lock);
        check_nspace(nspace);
        pthread_rwlock_rdlock(&sy_store_lock);
    }
}

/* Under the read lock: rank's value of key in one segment; with rank
 * PMIX_RANK_UNDEF, the first rank that has it (*who receives it). */
static pmix_status_t seg_lookup(const sy_jseg_t *seg, pmix_rank_t rank, const char *key,
                                pmix_rank_t *who, pmix_value_t **out)
{
    if (rank != PMIX_RANK_UNDEF) {
        *who = rank;
        return sy_jseg_get(seg, SY_REALM_PROC, rank, key, out);
    }
    uint32_t *ids = NULL;
    size_t n = 0;
    pmix_status_t rc = sy_jseg_ids(seg, SY_REALM_PROC, &ids, &n);
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = PMIX_ERR_NOT_FOUND;
    for (size_t i = 0; i < n && rc == PMIX_ERR_NOT_FOUND; i++) {
        rc = sy_jseg_get(seg, SY_REALM_PROC, ids[i], key, out);
        if (rc == PMIX_SUCCESS)
            *who = ids[i];
    }
    free(ids);
    return rc;
}

pmix_status_t sy_store_get_modex(const pmix_proc_t *proc, const char *key, pmix_rank_t *who,
                                 pmix_value_t **out)
{
    if (proc == NULL || key == NULL || out == NULL)
        return PMIX_ERR_BAD_PARAM;
    pmix_rank_t found = proc->rank;
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    rdlock_checked(proc->nspace);
    for (modex_seg_t *m = segs; m != NULL && rc == PMIX_ERR_NOT_FOUND; m = m->next)
        if (m->checked && !m->bad && PMIX_CHECK_NSPACE(m->nspace, proc->nspace))
            rc = seg_lookup(m->seg, proc->rank, key, &found, out);
    pthread_rwlock_unlock(&sy_store_lock);
    if (rc == PMIX_SUCCESS && who != NULL)
        *who = found;
    return rc;
}

pmix_status_t sy_store_modex_record(const pmix_proc_t *proc, pmix_info_t **infos, size_t *n)
{
    if (proc == NULL || infos == NULL || n == NULL || proc->rank >= PMIX_RANK_VALID)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    rdlock_checked(proc->nspace);
    /* the newest segment holding the rank has all it committed by then */
    for (modex_seg_t *m = segs; m != NULL && rc == PMIX_ERR_NOT_FOUND; m = m->next)
        if (m->checked && !m->bad && PMIX_CHECK_NSPACE(m->nspace, proc->nspace))
            rc = sy_jseg_get_all(m->seg, SY_REALM_PROC, proc->rank, infos, n);
    pthread_rwlock_unlock(&sy_store_lock);
    return rc;
}
