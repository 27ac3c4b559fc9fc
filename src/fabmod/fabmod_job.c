/* The fabric data of a job (fabmod.h, job_data): the job's nodes mapped
 * onto the topology's hosts, their devices and coordinates, and each
 * rank's switch peers. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "fabmod/fabmod_int.h"
#include "fabmod/fabmod_util.h"

/* The topology's hosts in order of their first device, and their devices. */
typedef struct {
    const char *name;
    uint32_t *devs;
    size_t ndevs;
    long node; /* job node mapped onto it, -1 if none */
} host_t;

typedef struct {
    host_t *hosts;
    size_t nhosts;
    size_t *slots; /* open addressing: index+1 into hosts, 0 = empty */
    size_t cap;
} hosts_t;

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static long host_find(const hosts_t *h, const char *name)
{
    for (size_t i = hash(name) & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
        if (h->slots[i] == 0)
            return -1;
        if (strcmp(h->hosts[h->slots[i] - 1].name, name) == 0)
            return (long)h->slots[i] - 1;
    }
}

static const char *dev_host(const sy_topo_t *t, const sy_devindex_t *ix, uint32_t d)
{
    const sy_topo_vertex_t *v = &t->v[ix->dev_to_vertex[d]];
    return v->host != NULL ? v->host : v->name;
}

static void hosts_free(hosts_t *h)
{
    for (size_t i = 0; i < h->nhosts; i++)
        free(h->hosts[i].devs);
    free(h->hosts);
    free(h->slots);
}

static pmix_status_t hosts_build(const sy_topo_t *t, const sy_devindex_t *ix, hosts_t *h)
{
    memset(h, 0, sizeof(*h));
    h->cap = 16;
    while (h->cap < 2 * (size_t)ix->ndev + 2)
        h->cap *= 2;
    h->slots = calloc(h->cap, sizeof(size_t));
    h->hosts = calloc(ix->ndev + 1, sizeof(host_t));
    if (h->slots == NULL || h->hosts == NULL)
        return PMIX_ERR_NOMEM;
    for (uint32_t d = 0; d < ix->ndev; d++) {
        const char *name = dev_host(t, ix, d);
        long k = host_find(h, name);
        if (k < 0) {
            k = (long)h->nhosts++;
            h->hosts[k].name = name;
            h->hosts[k].node = -1;
            size_t i = hash(name) & (h->cap - 1);
            while (h->slots[i] != 0)
                i = (i + 1) & (h->cap - 1);
            h->slots[i] = (size_t)k + 1;
        }
        host_t *ho = &h->hosts[k];
        uint32_t *g = realloc(ho->devs, (ho->ndevs + 1) * sizeof(uint32_t));
        if (g == NULL)
            return PMIX_ERR_NOMEM;
        ho->devs = g;
        ho->devs[ho->ndevs++] = d;
    }
    return PMIX_SUCCESS;
}

/* The i-th PMIX_FABRIC_DEVICE array of an inventory value, or NULL. */
static const pmix_data_array_t *inv_device(const pmix_value_t *inv, size_t i)
{
    if (inv == NULL || inv->type != PMIX_DATA_ARRAY || inv->data.darray == NULL ||
        inv->data.darray->type != PMIX_INFO || i >= inv->data.darray->size)
        return NULL;
    const pmix_info_t *e = &((const pmix_info_t *)inv->data.darray->array)[i];
    if (e->value.type != PMIX_DATA_ARRAY || e->value.data.darray == NULL ||
        e->value.data.darray->type != PMIX_INFO)
        return NULL;
    return e->value.data.darray;
}

static size_t inv_count(const pmix_value_t *inv)
{
    return inv != NULL && inv->type == PMIX_DATA_ARRAY && inv->data.darray != NULL &&
                   inv->data.darray->type == PMIX_INFO
               ? inv->data.darray->size
               : 0;
}

static const char *info_string(const pmix_data_array_t *a, const char *key)
{
    for (size_t i = 0; a != NULL && i < a->size; i++) {
        const pmix_info_t *e = &((const pmix_info_t *)a->array)[i];
        if (PMIX_CHECK_KEY(e, key) && e->value.type == PMIX_STRING)
            return e->value.data.string;
    }
    return NULL;
}

/* The logical view, and the physical one when the topology places its
 * devices (phys NULL otherwise: no physical entry, never a copy). */
static pmix_status_t geometry(const sy_coords_t *c, const sy_coords_t *phys, uint32_t d,
                              const char *id, const char *os, pmix_geometry_t *g)
{
    memset(g, 0, sizeof(*g));
    g->uuid = strdup(id);
    g->osname = strdup(os);
    size_t n = phys != NULL ? 2 : 1;
    g->coordinates = calloc(n, sizeof(pmix_coord_t));
    if (g->uuid == NULL || g->osname == NULL || g->coordinates == NULL)
        return PMIX_ERR_NOMEM;
    g->ncoords = n;
    pmix_status_t rc = sy_coords_get(c, d, &g->coordinates[0]);
    if (rc == PMIX_SUCCESS)
        g->coordinates[0].view = PMIX_COORD_LOGICAL_VIEW;
    if (rc == PMIX_SUCCESS && phys != NULL)
        rc = sy_coords_get(phys, d, &g->coordinates[1]);
    return rc;
}

typedef struct {
    const sy_topo_t *t;
    const sy_devindex_t *ix;
    const sy_peers_t *peers;
    const sy_coords_t *coords;
    const sy_coords_t *phys; /* NULL when the topology places nothing */
    const sy_fabmod_node_t *nodes;
    size_t nnodes;
    hosts_t hosts;
    long *node_host; /* job node -> host, -1 */
    long *dev_node;  /* device -> job node, -1 */
    char **dev_id;   /* device -> PMIX_DEVICE_ID for mapped devices */
    char **sw_ranks; /* switch -> comma-separated ranks, built on demand */
} job_t;

static void job_free(job_t *j)
{
    hosts_free(&j->hosts);
    free(j->node_host);
    free(j->dev_node);
    for (uint32_t d = 0; j->dev_id != NULL && d < j->ix->ndev; d++)
        free(j->dev_id[d]);
    free(j->dev_id);
    for (uint32_t k = 0; j->sw_ranks != NULL && k < j->peers->nswitches; k++)
        free(j->sw_ranks[k]);
    free(j->sw_ranks);
}

static pmix_status_t map_nodes(job_t *j)
{
    j->node_host = malloc((j->nnodes + 1) * sizeof(long));
    j->dev_node = malloc(((size_t)j->ix->ndev + 1) * sizeof(long));
    j->dev_id = calloc((size_t)j->ix->ndev + 1, sizeof(char *));
    j->sw_ranks = calloc((size_t)j->peers->nswitches + 1, sizeof(char *));
    if (j->node_host == NULL || j->dev_node == NULL || j->dev_id == NULL || j->sw_ranks == NULL)
        return PMIX_ERR_NOMEM;
    for (uint32_t d = 0; d < j->ix->ndev; d++)
        j->dev_node[d] = -1;
    /* nodes the topology knows by name first, then the others take the
     * hosts that no node of the job names, in device order */
    bool *named = calloc(j->hosts.nhosts + 1, sizeof(bool));
    if (named == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t n = 0; n < j->nnodes; n++) {
        long k = host_find(&j->hosts, j->nodes[n].name);
        j->node_host[n] = -1;
        if (k >= 0) {
            named[k] = true;
            /* a name given twice is mapped once */
            j->node_host[n] = j->hosts.hosts[k].node < 0 ? k : -2;
            if (j->node_host[n] == k)
                j->hosts.hosts[k].node = (long)n;
        }
    }
    size_t next = 0;
    for (size_t n = 0; n < j->nnodes; n++) {
        if (j->node_host[n] != -1)
            continue;
        while (next < j->hosts.nhosts && named[next])
            next++;
        if (next >= j->hosts.nhosts)
            break;
        j->hosts.hosts[next].node = (long)n;
        j->node_host[n] = (long)next++;
    }
    free(named);
    for (size_t n = 0; n < j->nnodes; n++) {
        if (j->node_host[n] < 0)
            continue;
        host_t *h = &j->hosts.hosts[j->node_host[n]];
        for (size_t i = 0; i < h->ndevs; i++) {
            uint32_t d = h->devs[i];
            j->dev_node[d] = (long)n;
            const char *id = info_string(inv_device(j->nodes[n].inventory, i), PMIX_DEVICE_ID);
            if (id != NULL)
                j->dev_id[d] = strdup(id);
            else if (asprintf(&j->dev_id[d], "%s:%s", j->nodes[n].name,
                              j->t->v[j->ix->dev_to_vertex[d]].name) < 0)
                j->dev_id[d] = NULL;
            if (j->dev_id[d] == NULL)
                return PMIX_ERR_NOMEM;
        }
    }
    return PMIX_SUCCESS;
}

/* The ranks of the job's nodes with a device on switch k, in device order. */
static const char *switch_ranks(job_t *j, uint32_t k)
{
    if (j->sw_ranks[k] != NULL)
        return j->sw_ranks[k];
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m == NULL)
        return NULL;
    bool first = true;
    const sy_peers_t *p = j->peers;
    for (uint32_t i = p->sw_dev_off[k]; i < p->sw_dev_off[k + 1]; i++) {
        long n = j->dev_node[p->sw_dev[i]];
        if (n < 0)
            continue;
        bool seen = false;
        for (uint32_t e = p->sw_dev_off[k]; e < i && !seen; e++)
            seen = j->dev_node[p->sw_dev[e]] == n;
        for (size_t r = 0; !seen && r < j->nodes[n].nranks; r++) {
            fprintf(m, "%s%u", first ? "" : ",", j->nodes[n].ranks[r]);
            first = false;
        }
    }
    fclose(m);
    j->sw_ranks[k] = buf;
    return buf;
}

/* PMIX_FABRIC_DEVICE arrays and geometries of node n. */
static pmix_status_t node_info(job_t *j, size_t n, sy_ilist_t *out)
{
    host_t *h = &j->hosts.hosts[j->node_host[n]];
    const pmix_value_t *inv = j->nodes[n].inventory;
    size_t ninv = inv_count(inv), ndev = h->ndevs > ninv ? h->ndevs : ninv;
    sy_ilist_t node = {0}, devs = {0};
    pmix_data_array_t *geo = sy_darray_new(PMIX_GEOMETRY, h->ndevs);
    pmix_status_t rc = geo != NULL ? sy_il_load(&node, PMIX_HOSTNAME, j->nodes[n].name, PMIX_STRING)
                                   : PMIX_ERR_NOMEM;
    for (size_t i = 0; i < ndev && rc == PMIX_SUCCESS; i++) {
        sy_ilist_t dev = {0};
        const pmix_data_array_t *src = inv_device(inv, i);
        for (size_t e = 0; src != NULL && e < src->size && rc == PMIX_SUCCESS; e++) {
            pmix_info_t *x = &((pmix_info_t *)src->array)[e];
            rc = sy_il_xfer(&dev, x);
        }
        if (i < h->ndevs && rc == PMIX_SUCCESS) {
            uint32_t d = h->devs[i];
            const char *vname = j->t->v[j->ix->dev_to_vertex[d]].name;
            const char *os = info_string(src, PMIX_FABRIC_DEVICE_NAME);
            if (src == NULL) {
                /* a device only the topology knows: the attributes the
                 * Standard requires, with what the topology has */
                rc = sy_il_load(&dev, PMIX_DEVICE_ID, j->dev_id[d], PMIX_STRING);
                if (rc == PMIX_SUCCESS)
                    rc = sy_il_load(&dev, PMIX_FABRIC_DEVICE_NAME, vname, PMIX_STRING);
                if (rc == PMIX_SUCCESS)
                    rc = sy_il_load(&dev, PMIX_FABRIC_DEVICE_VENDOR, "unknown", PMIX_STRING);
                if (rc == PMIX_SUCCESS)
                    rc = sy_il_load(&dev, PMIX_FABRIC_DEVICE_BUS_TYPE, "unknown", PMIX_STRING);
                const char *guid = j->t->v[j->ix->dev_to_vertex[d]].guid;
                if (rc == PMIX_SUCCESS && guid != NULL)
                    rc = sy_il_load(&dev, PMIX_FABRIC_DEVICE_ADDRESS, guid, PMIX_STRING);
            }
            if (rc == PMIX_SUCCESS && info_string(src, PMIX_HOSTNAME) == NULL)
                rc = sy_il_load(&dev, PMIX_HOSTNAME, j->nodes[n].name, PMIX_STRING);
            if (rc == PMIX_SUCCESS)
                rc = sy_il_load(&dev, PMIX_FABRIC_DEVICE_INDEX, &d, PMIX_UINT32);
            pmix_geometry_t *g = &((pmix_geometry_t *)geo->array)[i];
            if (rc == PMIX_SUCCESS)
                rc = geometry(j->coords, j->phys, d, j->dev_id[d], os != NULL ? os : vname, g);
            if (rc == PMIX_SUCCESS)
                rc = sy_il_load(&dev, PMIX_FABRIC_DEVICE_COORDINATES, g, PMIX_GEOMETRY);
        }
        if (rc == PMIX_SUCCESS)
            rc = sy_il_take_array(&devs, PMIX_FABRIC_DEVICE, sy_il_to_darray(&dev));
        else
            sy_il_free(&dev);
    }
    if (rc == PMIX_SUCCESS)
        rc = sy_il_take_array(&node, PMIX_FABRIC_DEVICES, sy_il_to_darray(&devs));
    else
        sy_il_free(&devs);
    if (rc == PMIX_SUCCESS) {
        rc = sy_il_take_array(&node, PMIX_FABRIC_COORDINATES, geo);
        geo = NULL;
    }
    PMIX_DATA_ARRAY_FREE(geo);
    if (rc == PMIX_SUCCESS)
        return sy_il_take_array(out, PMIX_NODE_INFO_ARRAY, sy_il_to_darray(&node));
    sy_il_free(&node);
    return rc;
}

/* PMIX_SWITCH_PEERS of the ranks of node n: one three-element array per
 * (device of the node, switch of that device). */
static pmix_status_t peers_info(job_t *j, size_t n, sy_ilist_t *out)
{
    host_t *h = &j->hosts.hosts[j->node_host[n]];
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t r = 0; r < j->nodes[n].nranks && rc == PMIX_SUCCESS; r++) {
        sy_ilist_t proc = {0}, all = {0};
        rc = sy_il_load(&proc, PMIX_RANK, &j->nodes[n].ranks[r], PMIX_PROC_RANK);
        for (size_t i = 0; i < h->ndevs && rc == PMIX_SUCCESS; i++) {
            uint32_t d = h->devs[i];
            for (uint32_t s = j->peers->dev_sw_off[d];
                 s < j->peers->dev_sw_off[d + 1] && rc == PMIX_SUCCESS; s++) {
                uint32_t k = j->peers->dev_sw[s];
                const char *ranks = switch_ranks(j, k);
                sy_ilist_t three = {0};
                rc = ranks != NULL ? sy_il_load(&three, PMIX_DEVICE_ID, j->dev_id[d], PMIX_STRING)
                                   : PMIX_ERR_NOMEM;
                if (rc == PMIX_SUCCESS)
                    rc = sy_il_load(&three, PMIX_FABRIC_SWITCH, j->peers->sw_name[k], PMIX_STRING);
                if (rc == PMIX_SUCCESS)
                    rc = sy_il_load(&three, PMIX_SWITCH_PEERS, ranks, PMIX_STRING);
                if (rc == PMIX_SUCCESS)
                    rc = sy_il_take_array(&all, PMIX_SWITCH_PEERS, sy_il_to_darray(&three));
                else
                    sy_il_free(&three);
            }
        }
        if (rc == PMIX_SUCCESS && all.n > 0)
            rc = sy_il_take_array(&proc, PMIX_SWITCH_PEERS, sy_il_to_darray(&all));
        else
            sy_il_free(&all);
        if (rc == PMIX_SUCCESS)
            rc = sy_il_take_array(out, PMIX_PROC_DATA, sy_il_to_darray(&proc));
        else
            sy_il_free(&proc);
    }
    return rc;
}

static pmix_status_t id_lists(job_t *j, const sy_planes_t *p, sy_ilist_t *out)
{
    pmix_data_array_t *planes = sy_darray_strings(p->ids, p->nplanes);
    pmix_data_array_t *sw = sy_darray_new(PMIX_STRING, j->t->nswitches);
    pmix_status_t rc = planes != NULL && sw != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    size_t ns = 0;
    for (uint32_t v = 0; rc == PMIX_SUCCESS && v < j->t->nv; v++) {
        if (j->t->v[v].kind != SY_TOPO_SWITCH || ns >= j->t->nswitches)
            continue;
        if ((((char **)sw->array)[ns++] = strdup(j->t->v[v].name)) == NULL)
            rc = PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS) {
        sw->size = ns;
        rc = sy_il_take_array(out, PMIX_FABRIC_PLANE, planes);
        planes = NULL;
    }
    if (rc == PMIX_SUCCESS) {
        rc = sy_il_take_array(out, PMIX_FABRIC_SWITCH, sw);
        sw = NULL;
    }
    PMIX_DATA_ARRAY_FREE(planes);
    PMIX_DATA_ARRAY_FREE(sw);
    return rc;
}

pmix_status_t sy_fabmod_job_data(sy_fabmod_fab_t *f, const sy_fabmod_node_t *nodes, size_t nnodes,
                                 pmix_info_t **info, size_t *ninfo)
{
    job_t j;
    memset(&j, 0, sizeof(j));
    const sy_planes_t *planes;
    j.t = sy_fabric_engine_topo(f->eng);
    j.nodes = nodes;
    j.nnodes = nnodes;
    pmix_status_t rc = sy_fabric_engine_devindex(f->eng, &j.ix);
    if (rc == PMIX_SUCCESS)
        rc = sy_fabric_engine_peers(f->eng, &j.peers);
    if (rc == PMIX_SUCCESS)
        rc = sy_fabric_engine_coords(f->eng, &j.coords);
    if (rc == PMIX_SUCCESS)
        rc = sy_fabric_engine_planes(f->eng, &planes);
    if (rc != PMIX_SUCCESS)
        return rc;
    sy_coords_t phys;
    bool have_phys = sy_coords_compute(j.t, j.ix, PMIX_COORD_PHYSICAL_VIEW, &phys) == PMIX_SUCCESS;
    j.phys = have_phys ? &phys : NULL;
    rc = hosts_build(j.t, j.ix, &j.hosts);
    if (rc == PMIX_SUCCESS)
        rc = map_nodes(&j);
    sy_ilist_t l = {.v = *info, .n = *ninfo, .cap = *ninfo};
    for (size_t n = 0; rc == PMIX_SUCCESS && n < nnodes; n++) {
        if (j.node_host[n] < 0)
            continue;
        rc = node_info(&j, n, &l);
        if (rc == PMIX_SUCCESS)
            rc = peers_info(&j, n, &l);
    }
    if (rc == PMIX_SUCCESS)
        rc = id_lists(&j, planes, &l);
    job_free(&j);
    if (have_phys)
        sy_coords_free(&phys);
    /* what was appended stays even on error: the caller frees the array */
    *info = l.v;
    *ninfo = l.n;
    return rc;
}
