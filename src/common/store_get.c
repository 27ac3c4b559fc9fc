/* sy_store_get: everything a process answers without its server.  The
 * retrieval rules of the standard for reserved keys
 * (Chap_API_Reserved_Keys.tex, "Data realms"), answered from the attached
 * segments and the internal values under the store's read lock; then the
 * special keys computed here (PMIX_FABRIC_DEVICE, providers a role set);
 * then the data processes posted (store_modex.c). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/datatype.h"
#include "common/info.h"
#include "common/jseg.h"
#include "common/jseg_format.h"
#include "common/store.h"
#include "common/store_internal.h"

/* The standard's PMIX_PROC_INFO qualifier; the headers (as OpenPMIx's) use
 * that name for the data type, so the key is spelled out. */
#define SY_PROC_INFO_KEY "pmix.proc.info"

typedef enum { Q_NONE, Q_SESSION, Q_JOB, Q_APP, Q_NODE, Q_PROC } qualifier_t;

/* A parsed request. */
typedef struct {
    const char *nspace;
    pmix_rank_t rank;
    const char *key; /* NULL: everything of the process */
    qualifier_t realm;
    bool has_session, has_appnum, has_nodeid;
    uint32_t session, appnum, nodeid;
    const char *hostname; /* node directive by name */
} request_t;

/* What the locked lookup found out besides its answer. */
typedef struct {
    bool superseded; /* a segment in use was replaced: refresh and retry */
    bool missing_ns; /* the namespace has no segment: ask the resolver */
    bool stale_ok;   /* set by the caller after a refresh: use what is mapped */
} lookup_notes_t;

/* ---- parsing the request ---- */

/* A realm qualifier counts unless it is an explicit boolean false. */
static pmix_status_t parse(const pmix_info_t info[], size_t ninfo, request_t *r)
{
    static const struct {
        const char *key;
        qualifier_t realm;
    } realms[] = {{PMIX_SESSION_INFO, Q_SESSION},
                  {PMIX_JOB_INFO, Q_JOB},
                  {PMIX_APP_INFO, Q_APP},
                  {PMIX_NODE_INFO, Q_NODE},
                  {SY_PROC_INFO_KEY, Q_PROC}};
    bool node_directive = false;

    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        if (memchr(in->key, '\0', sizeof(in->key)) == NULL) {
            return PMIX_ERR_BAD_PARAM;
        }
        bool known = false;
        for (size_t k = 0; k < sizeof(realms) / sizeof(realms[0]); k++) {
            if (strcmp(in->key, realms[k].key) == 0) {
                known = true;
                /* the first realm given decides */
                if (Q_NONE == r->realm && sy_info_true(in)) {
                    r->realm = realms[k].realm;
                }
            }
        }
        if (known) {
            continue;
        }
        if (strcmp(in->key, PMIX_SESSION_ID) == 0) {
            if (!sy_jseg_value_u32(&in->value, &r->session)) {
                return PMIX_ERR_BAD_PARAM;
            }
            r->has_session = true;
        } else if (strcmp(in->key, PMIX_APPNUM) == 0) {
            if (!sy_jseg_value_u32(&in->value, &r->appnum)) {
                return PMIX_ERR_BAD_PARAM;
            }
            r->has_appnum = true;
        } else if (strcmp(in->key, PMIX_NODEID) == 0) {
            if (!sy_jseg_value_u32(&in->value, &r->nodeid)) {
                return PMIX_ERR_BAD_PARAM;
            }
            r->has_nodeid = true;
            node_directive = true;
        } else if (strcmp(in->key, PMIX_HOSTNAME) == 0) {
            if (in->value.type != PMIX_STRING || in->value.data.string == NULL) {
                return PMIX_ERR_BAD_PARAM;
            }
            r->hostname = in->value.data.string;
            node_directive = true;
        }
        /* anything else (PMIX_OPTIONAL, PMIX_IMMEDIATE, PMIX_TIMEOUT, ...)
         * concerns remote lookups, not this store */
    }
    /* naming a node asks for node data even without PMIX_NODE_INFO (the
     * standard's own node-level example relies on this) */
    if (Q_NONE == r->realm && node_directive) {
        r->realm = Q_NODE;
    }
    return PMIX_SUCCESS;
}

/* ---- realm lookups (read lock held) ---- */

static pmix_status_t copy_out(const pmix_value_t *v, pmix_value_t **out)
{
    pmix_value_t *c = malloc(sizeof(*c));
    pmix_status_t rc;

    if (c == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = sy_value_copy(c, v);
    if (rc != PMIX_SUCCESS) {
        free(c);
        return rc;
    }
    *out = c;
    return PMIX_SUCCESS;
}

static bool superseded(const sy_jseg_t *seg, lookup_notes_t *notes)
{
    if (!notes->stale_ok && seg != NULL && sy_jseg_superseded_by(seg) != NULL) {
        notes->superseded = true;
        return true;
    }
    return false;
}

static pmix_status_t seg_get(const sy_jseg_t *seg, sy_realm_t realm, uint32_t id, const char *key,
                             pmix_value_t **out)
{
    return seg == NULL ? PMIX_ERR_NOT_FOUND : sy_jseg_get(seg, realm, id, key, out);
}

static pmix_status_t job_get(const sy_jseg_t *seg, const request_t *r, pmix_value_t **out)
{
    const pmix_value_t *iv = sy_store_internal_find(r->nspace, PMIX_RANK_WILDCARD, r->key);
    return iv != NULL ? copy_out(iv, out) : seg_get(seg, SY_REALM_JOB, 0, r->key, out);
}

static pmix_status_t session_get(const sy_jseg_t *seg, const request_t *r, pmix_value_t **out)
{
    uint32_t sid, *ids;
    size_t n;

    if (r->has_session) {
        sid = r->session;
    } else if (!sy_jseg_get_u32(seg, SY_REALM_JOB, 0, PMIX_SESSION_ID, &sid)) {
        /* no session named: the only one the segment describes, if any */
        if (seg == NULL || sy_jseg_ids(seg, SY_REALM_SESSION, &ids, &n) != PMIX_SUCCESS) {
            return PMIX_ERR_NOT_FOUND;
        }
        sid = n != 0 ? ids[0] : 0;
        free(ids);
        if (n != 1) {
            return PMIX_ERR_NOT_FOUND;
        }
    }
    return seg_get(seg, SY_REALM_SESSION, sid, r->key, out);
}

static bool target_appnum(const sy_jseg_t *seg, const request_t *r, uint32_t *appnum)
{
    if (r->has_appnum) {
        *appnum = r->appnum;
        return true;
    }
    if (r->rank != PMIX_RANK_WILDCARD &&
        sy_jseg_get_u32(seg, SY_REALM_PROC, r->rank, PMIX_APPNUM, appnum)) {
        return true;
    }
    if (sy_jseg_get_u32(seg, SY_REALM_JOB, 0, PMIX_APPNUM, appnum)) {
        return true;
    }
    *appnum = 0;
    return seg != NULL;
}

/* The local node when nothing else names one. */
static char host_name[256];
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void load_host_name(void)
{
    if (gethostname(host_name, sizeof(host_name) - 1) != 0) {
        host_name[0] = '\0';
    }
}

/* Node data: the namespace's own node realm first, then the resources
 * segment; a name is resolved in each segment separately. */
static pmix_status_t node_get(const sy_jseg_t *seg, const sy_jseg_t *res, const request_t *r,
                              pmix_value_t **out)
{
    const sy_jseg_t *segs[2] = {seg, res};
    const char *name = r->hostname;
    bool have_id = r->has_nodeid;
    uint32_t id = r->nodeid;
    pmix_status_t rc;

    if (!have_id && name == NULL) {
        have_id = (r->rank != PMIX_RANK_WILDCARD &&
                   sy_jseg_get_u32(seg, SY_REALM_PROC, r->rank, PMIX_NODEID, &id)) ||
                  sy_jseg_get_u32(seg, SY_REALM_JOB, 0, PMIX_NODEID, &id);
        if (!have_id) {
            pthread_once(&host_once, load_host_name);
            name = host_name;
        }
    }
    for (int i = 0; i < 2; i++) {
        uint32_t nid = id;
        if (segs[i] == NULL || (!have_id && !sy_jseg_node_by_name(segs[i], name, &nid))) {
            continue;
        }
        rc = sy_jseg_get(segs[i], SY_REALM_NODE, nid, r->key, out);
        if (rc != PMIX_ERR_NOT_FOUND) {
            return rc;
        }
    }
    return PMIX_ERR_NOT_FOUND;
}

/* Answer one keyed request; PMIX_ERR_NOT_FOUND continues a fallback chain,
 * anything else ends it. */
#define TRY(expr)                                                                                  \
    do {                                                                                           \
        pmix_status_t rc_ = (expr);                                                                \
        if (rc_ != PMIX_ERR_NOT_FOUND) {                                                           \
            return rc_;                                                                            \
        }                                                                                          \
    } while (0)

static bool rank_exists(const sy_jseg_t *seg, pmix_rank_t rank)
{
    uint32_t size;
    return !sy_jseg_get_u32(seg, SY_REALM_JOB, 0, PMIX_JOB_SIZE, &size) || rank < size;
}

static pmix_status_t lookup_key(const request_t *r, lookup_notes_t *notes, pmix_value_t **out)
{
    const pmix_value_t *iv;
    sy_jseg_t *seg, *res;
    uint32_t appnum;

    /* the process's own internal values win over everything */
    if (Q_NONE == r->realm || Q_PROC == r->realm) {
        iv = sy_store_internal_find(r->nspace, r->rank, r->key);
        if (iv != NULL) {
            return copy_out(iv, out);
        }
    }
    seg = sy_store_segment(r->nspace);
    res = sy_store_resources();
    if (superseded(seg, notes) ||
        ((Q_NODE == r->realm || Q_NONE == r->realm) && superseded(res, notes))) {
        return PMIX_ERR_NOT_FOUND;
    }
    if (seg == NULL) {
        notes->missing_ns = '\0' != r->nspace[0];
    } else if (r->rank < PMIX_RANK_VALID && !rank_exists(seg, r->rank)) {
        /* no fallback to job or node data for a process that is not there */
        return PMIX_ERR_NOT_FOUND;
    }
    switch (r->realm) {
    case Q_SESSION: return session_get(seg, r, out);
    case Q_JOB: return job_get(seg, r, out);
    case Q_APP:
        return target_appnum(seg, r, &appnum) ? seg_get(seg, SY_REALM_APP, appnum, r->key, out)
                                              : PMIX_ERR_NOT_FOUND;
    case Q_NODE:
        /* a node known to the resources needs no namespace segment */
        return node_get(seg, res, r, out);
    case Q_PROC: return seg_get(seg, SY_REALM_PROC, r->rank, r->key, out);
    case Q_NONE: break;
    }
    if (r->rank != PMIX_RANK_WILDCARD) {
        TRY(seg_get(seg, SY_REALM_PROC, r->rank, r->key, out));
        if (sy_jseg_get_u32(seg, SY_REALM_PROC, r->rank, PMIX_APPNUM, &appnum)) {
            TRY(seg_get(seg, SY_REALM_APP, appnum, r->key, out));
        }
    }
    TRY(job_get(seg, r, out));
    TRY(session_get(seg, r, out));
    if (seg == NULL) {
        return PMIX_ERR_NOT_FOUND;
    }
    return node_get(seg, res, r, out);
}

/* key NULL: the proc realm of the process plus its internal values, as a
 * PMIX_DATA_ARRAY of PMIX_INFO. */
static pmix_status_t lookup_all(const request_t *r, lookup_notes_t *notes, pmix_value_t **out)
{
    pmix_info_t *infos = NULL;
    pmix_data_array_t *darray;
    pmix_value_t *v;
    sy_jseg_t *seg = sy_store_segment(r->nspace);
    size_t n = 0;
    pmix_status_t rc;

    if (superseded(seg, notes)) {
        return PMIX_ERR_NOT_FOUND;
    }
    if (seg == NULL) {
        notes->missing_ns = '\0' != r->nspace[0];
    } else {
        rc = PMIX_RANK_WILDCARD == r->rank
                 ? sy_jseg_get_all(seg, SY_REALM_JOB, 0, &infos, &n)
                 : sy_jseg_get_all(seg, SY_REALM_PROC, r->rank, &infos, &n);
        if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND) {
            return rc;
        }
    }
    rc = sy_store_internal_collect(r->nspace, r->rank, &infos, &n);
    if (rc == PMIX_SUCCESS && n == 0) {
        rc = PMIX_ERR_NOT_FOUND;
    }
    if (rc == PMIX_SUCCESS) {
        notes->missing_ns = false;
        v = calloc(1, sizeof(*v));
        darray = calloc(1, sizeof(*darray));
        if (v == NULL || darray == NULL) {
            free(v);
            free(darray);
            rc = PMIX_ERR_NOMEM;
        } else {
            darray->type = PMIX_INFO;
            darray->size = n;
            darray->array = infos;
            v->type = PMIX_DATA_ARRAY;
            v->data.darray = darray;
            *out = v;
            return PMIX_SUCCESS;
        }
    }
    if (infos != NULL) {
        sy_array_free(infos, n, PMIX_INFO);
    }
    return rc;
}

/* ---- special keys ---- */

#define SY_STORE_PROVIDERS 8
static struct {
    char key[PMIX_MAX_KEYLEN + 1];
    sy_store_provider_fn fn;
} providers[SY_STORE_PROVIDERS];
static pthread_mutex_t providers_lock = PTHREAD_MUTEX_INITIALIZER;

pmix_status_t sy_store_set_provider(const char *key, sy_store_provider_fn fn)
{
    pmix_status_t rc = PMIX_ERR_OUT_OF_RESOURCE;
    if (key == NULL || '\0' == key[0] || strlen(key) > PMIX_MAX_KEYLEN) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&providers_lock);
    for (size_t i = 0; i < SY_STORE_PROVIDERS; i++) {
        if (strcmp(providers[i].key, key) == 0 || (fn != NULL && providers[i].fn == NULL)) {
            sy_load_fixed(providers[i].key, fn != NULL ? key : NULL, sizeof(providers[i].key));
            providers[i].fn = fn;
            rc = PMIX_SUCCESS;
            break;
        }
    }
    pthread_mutex_unlock(&providers_lock);
    return fn == NULL ? PMIX_SUCCESS : rc;
}

static sy_store_provider_fn provider_of(const char *key)
{
    sy_store_provider_fn fn = NULL;
    pthread_mutex_lock(&providers_lock);
    for (size_t i = 0; i < SY_STORE_PROVIDERS && fn == NULL; i++) {
        if (providers[i].fn != NULL && strcmp(providers[i].key, key) == 0) {
            fn = providers[i].fn;
        }
    }
    pthread_mutex_unlock(&providers_lock);
    return fn;
}

static pmix_status_t job_data(const pmix_proc_t *proc, const char *key, const pmix_info_t info[],
                              size_t ninfo, pmix_value_t **out);

pmix_status_t sy_store_get(const pmix_proc_t *proc, const char *key, const pmix_info_t info[],
                           size_t ninfo, pmix_value_t **out)
{
    if (proc == NULL || out == NULL || (ninfo != 0 && info == NULL) ||
        memchr(proc->nspace, '\0', sizeof(proc->nspace)) == NULL ||
        (key != NULL && ('\0' == key[0] || strnlen(key, PMIX_MAX_KEYLEN + 1) > PMIX_MAX_KEYLEN))) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (key != NULL && strcmp(key, PMIX_FABRIC_DEVICE) == 0) {
        return sy_store_fabric_device(proc, info, ninfo, out);
    }
    pmix_status_t rc = job_data(proc, key, info, ninfo, out);
    if (rc != PMIX_ERR_NOT_FOUND || key == NULL) {
        return rc;
    }
    sy_store_provider_fn fn = provider_of(key);
    if (fn != NULL && (rc = fn(proc, info, ninfo, out)) != PMIX_ERR_NOT_FOUND) {
        return rc;
    }
    if (sy_info_flag(info, ninfo, PMIX_GET_REFRESH_CACHE)) {
        return PMIX_ERR_NOT_FOUND; /* past every local copy: the server's */
    }
    return sy_store_get_modex(proc, key, NULL, out);
}

/* The internal values and the job data, by the retrieval rules. */
static pmix_status_t job_data(const pmix_proc_t *proc, const char *key, const pmix_info_t info[],
                              size_t ninfo, pmix_value_t **out)
{
    request_t r;
    lookup_notes_t notes;
    bool resolved = false, refreshed = false;
    pmix_status_t rc;

    memset(&r, 0, sizeof(r));
    r.nspace = proc->nspace;
    r.rank = proc->rank;
    r.key = key;
    rc = parse(info, ninfo, &r);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    for (int pass = 0; pass < 4; pass++) {
        memset(&notes, 0, sizeof(notes));
        /* a replacement that could not be opened must not stop lookups */
        notes.stale_ok = refreshed;
        pthread_rwlock_rdlock(&sy_store_lock);
        rc = key == NULL ? lookup_all(&r, &notes, out) : lookup_key(&r, &notes, out);
        pthread_rwlock_unlock(&sy_store_lock);
        if (notes.superseded) {
            sy_store_refresh();
            refreshed = true;
            continue;
        }
        if (rc != PMIX_ERR_NOT_FOUND || !notes.missing_ns || resolved) {
            return rc;
        }
        sy_store_resolver_fn fn;
        void *ctx;
        sy_store_resolver(&fn, &ctx);
        resolved = true;
        if (fn == NULL || fn(r.nspace, info, ninfo, ctx) != PMIX_SUCCESS) {
            return PMIX_ERR_NOT_FOUND;
        }
    }
    return rc;
}
