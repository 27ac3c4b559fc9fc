/* The job data an OpenPMIx server answers a client's REQ with, as its
 * "hash" job store packs it: the namespace, then key/value pairs (KVAL),
 * among them per-process blobs (PMIX_PROC_BLOB: a rank and its pairs), a
 * location blob (PMIX_MAP_BLOB: per node, the ranks on it), node/proc maps
 * in any preg encoding, and the session/node/app info arrays.  It is
 * turned into the info array a host would pass to register_nspace, which
 * jobinfo.h compiles into a job-data segment like any other namespace's. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/jobinfo.h"
#include "common/log.h"
#include "common/opx_bfrops.h"
#include "common/opx_client.h"
#include "common/regex.h"
#include "common/datatype.h"

typedef struct {
    pmix_info_t *v;
    size_t n, cap;
} infos_t;

static void infos_free(infos_t *a)
{
    sy_array_free(a->v, a->n, PMIX_INFO);
    memset(a, 0, sizeof(*a));
}

/* Append key = *val; the value is taken (val left zeroed), also on failure. */
static pmix_status_t infos_add(infos_t *a, const char *key, pmix_value_t *val)
{
    if (a->n == a->cap) {
        size_t cap = a->cap > 0 ? 2 * a->cap : 32;
        pmix_info_t *v = realloc(a->v, cap * sizeof(*v));
        if (v == NULL) {
            sy_value_destruct(val);
            return PMIX_ERR_NOMEM;
        }
        a->v = v;
        a->cap = cap;
    }
    pmix_info_t *i = &a->v[a->n++];
    memset(i, 0, sizeof(*i));
    snprintf(i->key, sizeof(i->key), "%s", key);
    i->value = *val;
    memset(val, 0, sizeof(*val));
    return PMIX_SUCCESS;
}

static pmix_status_t add_string(infos_t *a, const char *key, char *s /* taken */)
{
    pmix_value_t v = {.type = PMIX_STRING, .data.string = s};
    return infos_add(a, key, &v);
}

/* One "pack call" of a KVAL: its count (1), then the pair. */
static pmix_status_t next_kval(pmix_data_buffer_t *b, char **key, pmix_value_t *val)
{
    int64_t n = 0;
    pmix_status_t rc = sy_opx_get_int(b, 0, INT32_MAX, &n);
    if (rc == PMIX_SUCCESS && n != 1)
        rc = PMIX_ERR_UNPACK_FAILURE;
    if (rc == PMIX_SUCCESS)
        rc = sy_opx_unpack_kval(b, key, val);
    return rc;
}

/* A byte object's bytes as a buffer to read (not owned). */
static void over(pmix_data_buffer_t *sub, const pmix_value_t *v)
{
    memset(sub, 0, sizeof(*sub));
    sub->base_ptr = v->data.bo.bytes;
    sub->unpack_ptr = v->data.bo.bytes;
    sub->pack_ptr = v->data.bo.bytes + v->data.bo.size;
    sub->bytes_allocated = v->data.bo.size;
    sub->bytes_used = v->data.bo.size;
}

/* PMIX_PROC_BLOB: the rank, then its pairs: a PMIX_PROC_DATA array
 * starting with PMIX_RANK, as a host registers per-process data. */
static pmix_status_t proc_blob(infos_t *out, const pmix_value_t *blob)
{
    pmix_data_buffer_t sub;
    over(&sub, blob);
    pmix_rank_t rank = 0;
    int32_t one = 1;
    pmix_status_t rc = sy_opx_unpack(&sub, &rank, &one, PMIX_PROC_RANK);
    if (rc != PMIX_SUCCESS || one != 1)
        return PMIX_ERR_UNPACK_FAILURE;
    infos_t proc = {0};
    pmix_value_t v = {.type = PMIX_PROC_RANK, .data.rank = rank};
    rc = infos_add(&proc, PMIX_RANK, &v);
    while (rc == PMIX_SUCCESS && sy_buffer_remaining(&sub) > 0) {
        char *key = NULL;
        rc = next_kval(&sub, &key, &v);
        if (rc == PMIX_SUCCESS)
            rc = infos_add(&proc, key, &v);
        free(key);
    }
    pmix_data_array_t *da = rc == PMIX_SUCCESS ? calloc(1, sizeof(*da)) : NULL;
    if (rc == PMIX_SUCCESS && da == NULL)
        rc = PMIX_ERR_NOMEM;
    if (rc != PMIX_SUCCESS) {
        infos_free(&proc);
        return rc;
    }
    da->type = PMIX_INFO;
    da->size = proc.n;
    da->array = proc.v;
    v = (pmix_value_t){.type = PMIX_DATA_ARRAY, .data.darray = da};
    return infos_add(out, PMIX_PROC_DATA, &v);
}

/* Append s to a growing string. */
static pmix_status_t cat(char **dst, size_t *len, const char *sep, const char *s)
{
    size_t add = strlen(sep) + strlen(s);
    char *n = realloc(*dst, *len + add + 1);
    if (n == NULL)
        return PMIX_ERR_NOMEM;
    snprintf(n + *len, add + 1, "%s%s", sep, s);
    *dst = n;
    *len += add;
    return PMIX_SUCCESS;
}

/* PMIX_MAP_BLOB: the number of nodes, then per node the pair hostname =
 * "r,r,r": the node and process maps as plain lists. */
static pmix_status_t map_blob(infos_t *out, const pmix_value_t *blob)
{
    pmix_data_buffer_t sub;
    over(&sub, blob);
    size_t nnodes = 0;
    int32_t one = 1;
    pmix_status_t rc = sy_opx_unpack(&sub, &nnodes, &one, PMIX_SIZE);
    if (rc != PMIX_SUCCESS || one != 1 || nnodes > sy_buffer_remaining(&sub))
        return PMIX_ERR_UNPACK_FAILURE;
    char *nodes = NULL, *procs = NULL;
    size_t nl = 0, pl = 0;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < nnodes; i++) {
        char *host = NULL;
        pmix_value_t v;
        rc = next_kval(&sub, &host, &v);
        if (rc == PMIX_SUCCESS && (host == NULL || v.type != PMIX_STRING || v.data.string == NULL))
            rc = PMIX_ERR_UNPACK_FAILURE;
        if (rc == PMIX_SUCCESS)
            rc = cat(&nodes, &nl, i > 0 ? "," : "", host);
        if (rc == PMIX_SUCCESS)
            rc = cat(&procs, &pl, i > 0 ? ";" : "", v.data.string);
        free(host);
        sy_value_destruct(&v);
    }
    if (rc == PMIX_SUCCESS && nnodes > 0) {
        rc = add_string(out, PMIX_NODE_MAP, nodes);
        nodes = NULL;
        if (rc == PMIX_SUCCESS)
            rc = add_string(out, PMIX_PROC_MAP, procs);
        procs = NULL;
    }
    free(nodes);
    free(procs);
    return rc;
}

static pmix_status_t map_string(infos_t *out, const char *key, pmix_value_t *v)
{
    const void *bytes = NULL;
    size_t len = 0;
    if (v->type == PMIX_STRING && v->data.string != NULL) {
        bytes = v->data.string;
        len = strlen(v->data.string) + 1;
    } else if ((v->type == PMIX_REGEX || v->type == PMIX_BYTE_OBJECT) && v->data.bo.bytes != NULL) {
        bytes = v->data.bo.bytes;
        len = v->data.bo.size;
    } else {
        return infos_add(out, key, v); /* jobinfo says what is wrong with it */
    }
    char *s = NULL;
    pmix_status_t rc = sy_opx_map_decode(bytes, len, &s);
    sy_value_destruct(v);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "OpenPMIx server: a %s we cannot read", key);
        return rc;
    }
    return add_string(out, key, s);
}

/* A session array: OpenPMIx's servers send one for the default session,
 * whose id UINT32_MAX means "none"; its values then belong to the job. */
static pmix_status_t session_array(infos_t *out, const char *key, pmix_value_t *v)
{
    pmix_data_array_t *da = v->data.darray;
    if (v->type != PMIX_DATA_ARRAY || da == NULL || da->type != PMIX_INFO)
        return infos_add(out, key, v);
    pmix_info_t *in = da->array;
    bool none = false;
    for (size_t i = 0; i < da->size; i++)
        if (strcmp(in[i].key, PMIX_SESSION_ID) == 0 && in[i].value.type == PMIX_UINT32 &&
            in[i].value.data.uint32 == UINT32_MAX)
            none = true;
    if (!none)
        return infos_add(out, key, v);
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < da->size; i++)
        if (strcmp(in[i].key, PMIX_SESSION_ID) != 0)
            rc = infos_add(out, in[i].key, &in[i].value);
    sy_value_destruct(v);
    return rc;
}

static const char *node_string(const pmix_info_t *nd, size_t n, const char *key)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(nd[k].key, key) == 0 && nd[k].value.type == PMIX_STRING)
            return nd[k].value.data.string;
    return NULL;
}

/* OpenPMIx 4.2 servers describe the nodes in PMIX_NODE_INFO_ARRAYs (name,
 * id, local peers, ...) and may send no map at all: the maps are made
 * from those arrays, in node-id order. */
static pmix_status_t maps_from_nodes(infos_t *out)
{
    for (size_t i = 0; i < out->n; i++)
        if (strcmp(out->v[i].key, PMIX_NODE_MAP) == 0)
            return PMIX_SUCCESS;
    size_t nn = 0;
    const pmix_info_t **nodes = calloc(out->n + 1, sizeof(*nodes));
    size_t *sizes = calloc(out->n + 1, sizeof(*sizes));
    uint32_t *ids = calloc(out->n + 1, sizeof(*ids));
    pmix_status_t rc =
        nodes == NULL || sizes == NULL || ids == NULL ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < out->n; i++) {
        const pmix_value_t *v = &out->v[i].value;
        if (strcmp(out->v[i].key, PMIX_NODE_INFO_ARRAY) != 0 || v->type != PMIX_DATA_ARRAY ||
            v->data.darray == NULL || v->data.darray->type != PMIX_INFO)
            continue;
        const pmix_info_t *nd = v->data.darray->array;
        size_t n = v->data.darray->size;
        if (node_string(nd, n, PMIX_HOSTNAME) == NULL ||
            node_string(nd, n, PMIX_LOCAL_PEERS) == NULL)
            continue;
        uint32_t id = UINT32_MAX;
        for (size_t k = 0; k < n; k++)
            if (strcmp(nd[k].key, PMIX_NODEID) == 0 && nd[k].value.type == PMIX_UINT32)
                id = nd[k].value.data.uint32;
        /* insertion by id (stable for equal ids) */
        size_t at = nn;
        while (at > 0 && ids[at - 1] > id) {
            nodes[at] = nodes[at - 1];
            sizes[at] = sizes[at - 1];
            ids[at] = ids[at - 1];
            at--;
        }
        nodes[at] = nd;
        sizes[at] = n;
        ids[at] = id;
        nn++;
    }
    char *names = NULL, *procs = NULL;
    size_t nl = 0, pl = 0;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < nn; i++) {
        rc = cat(&names, &nl, i > 0 ? "," : "", node_string(nodes[i], sizes[i], PMIX_HOSTNAME));
        if (rc == PMIX_SUCCESS)
            rc = cat(&procs, &pl, i > 0 ? ";" : "",
                     node_string(nodes[i], sizes[i], PMIX_LOCAL_PEERS));
    }
    free(nodes);
    free(sizes);
    free(ids);
    if (rc == PMIX_SUCCESS && nn > 0) {
        rc = add_string(out, PMIX_NODE_MAP, names);
        names = NULL;
        if (rc == PMIX_SUCCESS)
            rc = add_string(out, PMIX_PROC_MAP, procs);
        procs = NULL;
    }
    free(names);
    free(procs);
    return rc;
}

pmix_status_t sy_opx_jobinfo_parse(pmix_data_buffer_t *b, const char *nspace, pmix_info_t **info,
                                   size_t *ninfo)
{
    *info = NULL;
    *ninfo = 0;
    char *ns = NULL;
    int32_t one = 1;
    pmix_status_t rc = sy_opx_unpack(b, &ns, &one, PMIX_STRING);
    if (rc != PMIX_SUCCESS || one != 1 || ns == NULL || strcmp(ns, nspace) != 0) {
        sy_log(SY_LOG_WARN, "OpenPMIx server: job data for namespace '%s', not ours ('%s')",
               ns != NULL ? ns : "(none)", nspace);
        free(ns);
        return PMIX_ERR_UNPACK_FAILURE;
    }
    free(ns);
    infos_t out = {0};
    while (rc == PMIX_SUCCESS && sy_buffer_remaining(b) > 0) {
        char *key = NULL;
        pmix_value_t v;
        rc = next_kval(b, &key, &v);
        if (rc != PMIX_SUCCESS || key == NULL) {
            free(key);
            rc = rc != PMIX_SUCCESS ? rc : PMIX_ERR_UNPACK_FAILURE;
            break;
        }
        bool blob = v.type == PMIX_BYTE_OBJECT;
        if (strcmp(key, PMIX_PROC_BLOB) == 0 && blob)
            rc = proc_blob(&out, &v);
        else if (strcmp(key, PMIX_MAP_BLOB) == 0 && blob)
            rc = map_blob(&out, &v);
        else if (strcmp(key, PMIX_SESSION_INFO_ARRAY) == 0)
            rc = session_array(&out, key, &v);
        else if (strcmp(key, PMIX_NODE_MAP) == 0 || strcmp(key, PMIX_PROC_MAP) == 0)
            rc = map_string(&out, key, &v);
        else
            rc = infos_add(&out, key, &v);
        sy_value_destruct(&v);
        free(key);
    }
    if (rc == PMIX_SUCCESS)
        rc = maps_from_nodes(&out);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "OpenPMIx server: malformed job data (%s)", PMIx_Error_string(rc));
        infos_free(&out);
        return rc;
    }
    *info = out.v;
    *ninfo = out.n;
    return PMIX_SUCCESS;
}

/* The name this node has in the job: our own process's PMIX_HOSTNAME when
 * the server sent it, else gethostname's. */
static void local_hostname(const pmix_info_t *info, size_t n, pmix_rank_t me, char *host,
                           size_t len)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(info[i].key, PMIX_PROC_DATA) != 0 || info[i].value.type != PMIX_DATA_ARRAY ||
            info[i].value.data.darray == NULL || info[i].value.data.darray->type != PMIX_INFO)
            continue;
        const pmix_info_t *p = info[i].value.data.darray->array;
        size_t np = info[i].value.data.darray->size;
        if (np == 0 || p[0].value.type != PMIX_PROC_RANK || p[0].value.data.rank != me)
            continue;
        for (size_t k = 1; k < np; k++) {
            if (strcmp(p[k].key, PMIX_HOSTNAME) == 0 && p[k].value.type == PMIX_STRING &&
                p[k].value.data.string != NULL) {
                snprintf(host, len, "%s", p[k].value.data.string);
                return;
            }
        }
    }
    if (gethostname(host, len - 1) != 0)
        snprintf(host, len, "localhost");
    host[len - 1] = '\0';
}

/* PMIX_LOCAL_SIZE, else the count of PMIX_LOCAL_PEERS, among info; -1
 * when neither is there. */
static int local_of(const pmix_info_t *info, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const pmix_value_t *v = &info[i].value;
        if (strcmp(info[i].key, PMIX_LOCAL_SIZE) == 0 && v->type == PMIX_UINT32)
            return (int)v->data.uint32;
    }
    for (size_t i = 0; i < n; i++) {
        const pmix_value_t *v = &info[i].value;
        if (strcmp(info[i].key, PMIX_LOCAL_PEERS) == 0 && v->type == PMIX_STRING &&
            v->data.string != NULL) {
            int c = v->data.string[0] != '\0';
            for (const char *s = v->data.string; *s != '\0'; s++)
                c += *s == ',';
            return c;
        }
    }
    return -1;
}

/* How many processes of the job are on this node: given flat, or in this
 * node's PMIX_NODE_INFO_ARRAY (how OpenPMIx 4.2 servers send it), else
 * this node's entry of the maps. */
static int local_count(const pmix_info_t *info, size_t n, const char *host)
{
    int c = local_of(info, n);
    if (c >= 0)
        return c;
    const char *nodemap = NULL, *procmap = NULL;
    for (size_t i = 0; i < n; i++) {
        const pmix_value_t *v = &info[i].value;
        if (strcmp(info[i].key, PMIX_NODE_INFO_ARRAY) == 0 && v->type == PMIX_DATA_ARRAY &&
            v->data.darray != NULL && v->data.darray->type == PMIX_INFO) {
            const pmix_info_t *nd = v->data.darray->array;
            size_t nn = v->data.darray->size;
            bool here = false;
            for (size_t k = 0; k < nn; k++)
                here |= strcmp(nd[k].key, PMIX_HOSTNAME) == 0 && nd[k].value.type == PMIX_STRING &&
                        nd[k].value.data.string != NULL &&
                        strcmp(nd[k].value.data.string, host) == 0;
            if (here && (c = local_of(nd, nn)) >= 0)
                return c;
        }
        if (strcmp(info[i].key, PMIX_NODE_MAP) == 0 && v->type == PMIX_STRING)
            nodemap = v->data.string;
        if (strcmp(info[i].key, PMIX_PROC_MAP) == 0 && v->type == PMIX_STRING)
            procmap = v->data.string;
    }
    char **nodes = NULL, **procs = NULL;
    c = 0;
    if (nodemap != NULL && procmap != NULL &&
        sy_regex_parse_nodes(nodemap, &nodes) == PMIX_SUCCESS &&
        sy_regex_parse_procs(procmap, &procs) == PMIX_SUCCESS) {
        for (size_t i = 0; nodes[i] != NULL && procs[i] != NULL; i++) {
            if (strcmp(nodes[i], host) != 0 || procs[i][0] == '\0')
                continue;
            c = 1;
            for (const char *s = procs[i]; *s != '\0'; s++)
                c += *s == ',';
            break;
        }
    }
    for (size_t i = 0; nodes != NULL && nodes[i] != NULL; i++)
        free(nodes[i]);
    for (size_t i = 0; procs != NULL && procs[i] != NULL; i++)
        free(procs[i]);
    free(nodes);
    free(procs);
    return c;
}

pmix_status_t sy_opx_jobinfo_compile(pmix_data_buffer_t *reply, const pmix_proc_t *me,
                                     const char *here, sy_jseg_builder_t *b, pmix_info_t **held,
                                     size_t *nheld)
{
    pmix_info_t *info = NULL;
    size_t n = 0;
    *held = NULL;
    *nheld = 0;
    pmix_status_t rc = sy_opx_jobinfo_parse(reply, me->nspace, &info, &n);
    if (rc != PMIX_SUCCESS)
        return rc;
    char host[256];
    if (here != NULL)
        snprintf(host, sizeof(host), "%s", here);
    else
        local_hostname(info, n, me->rank, host, sizeof(host));
    sy_jobinfo_summary_t summary;
    memset(&summary, 0, sizeof(summary));
    char *error = NULL;
    rc = sy_jobinfo_compile(me->nspace, local_count(info, n, host), info, n, host, b, &summary,
                            &error);
    if (rc != PMIX_SUCCESS)
        sy_log(SY_LOG_WARN, "OpenPMIx server: job data we cannot use: %s",
               error != NULL ? error : PMIx_Error_string(rc));
    free(error);
    sy_jobinfo_summary_free(&summary);
    /* the builder points into info: it lives until the caller has
     * published the segment */
    *held = info;
    *nheld = n;
    return rc;
}
