/* The fabric engine module (fabmod.h): engines, their pmix_fabric_t
 * attributes, changes and the node inventory.  Built into
 * libswitchyard-fabric.so only; the job data is in fabmod_job.c. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>
#include <pmix.h>

#include "fabric/devices.h"
#include "fabric/engine.h"
#include "fabmod/fabmod.h"
#include "fabmod/fabmod_int.h"
#include "fabmod/fabmod_util.h"
#include "switchyard.h"

static pmix_status_t fm_open(const char *path, const char *format, const char *spec,
                             sy_fabmod_fab_t **out, char **errmsg)
{
    sy_fabmod_fab_t *f = calloc(1, sizeof(*f));
    if (f == NULL)
        return PMIX_ERR_NOMEM;
    sy_fabric_engine_opts_t opts;
    memset(&opts, 0, sizeof(opts));
    /* computed beside a server: one core is left to its progress thread */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    opts.nthreads = cpus > 2 ? (unsigned)(cpus - 1 > 8 ? 8 : cpus - 1) : 1;
    /* a scheduler serves big fabrics (a 64k-device matrix is 8 GiB): the
     * cap is half the machine's memory, never below the engine's default */
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psize > 0 && (uint64_t)pages * (uint64_t)psize / 2 > SY_COST_DEFAULT_MAX_BYTES)
        opts.max_bytes = (uint64_t)pages * (uint64_t)psize / 2;
    pmix_status_t rc = path != NULL ? sy_fabric_engine_load(path, format, &opts, &f->eng, errmsg)
                                    : sy_fabric_engine_generate(spec, &opts, &f->eng, errmsg);
    if (rc == PMIX_SUCCESS)
        rc = sy_fabric_engine_refresh(f->eng);
    if (rc != PMIX_SUCCESS) {
        if (f->eng != NULL) {
            if (errmsg != NULL && *errmsg == NULL)
                *errmsg = strdup(sy_fabric_engine_last_error(f->eng));
            sy_fabric_engine_free(f->eng);
        }
        free(f);
        return rc;
    }
    *out = f;
    return PMIX_SUCCESS;
}

static void fm_close(sy_fabmod_fab_t *f)
{
    if (f == NULL)
        return;
    sy_fabric_engine_free(f->eng);
    free(f);
}

static const char *fm_last_error(sy_fabmod_fab_t *f)
{
    return sy_fabric_engine_last_error(f->eng);
}

static uint64_t fm_devices_hash(sy_fabmod_fab_t *f)
{
    const sy_topo_t *t = sy_fabric_engine_topo(f->eng);
    const sy_devindex_t *ix;
    if (t == NULL || sy_fabric_engine_devindex(f->eng, &ix) != PMIX_SUCCESS)
        return 0;
    uint64_t h = 1469598103934665603ull;
    for (uint32_t d = 0; d < ix->ndev; d++) {
        for (const char *c = t->v[ix->dev_to_vertex[d]].name; *c != '\0'; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull;
    }
    return h;
}

static const char *fm_note(sy_fabmod_fab_t *f)
{
    const sy_topo_t *t = sy_fabric_engine_topo(f->eng);
    return t != NULL ? t->note : NULL;
}

static pmix_status_t fm_planes(sy_fabmod_fab_t *f, char ***ids)
{
    const sy_planes_t *p;
    pmix_status_t rc = sy_fabric_engine_planes(f->eng, &p);
    if (rc != PMIX_SUCCESS)
        return rc;
    char **v = calloc(p->nplanes + 1, sizeof(char *));
    if (v == NULL)
        return PMIX_ERR_NOMEM;
    for (uint32_t k = 0; k < p->nplanes; k++) {
        v[k] = strdup(p->ids[k]);
        if (v[k] == NULL) {
            for (uint32_t j = 0; j < k; j++)
                free(v[j]);
            free(v);
            return PMIX_ERR_NOMEM;
        }
    }
    *ids = v;
    return PMIX_SUCCESS;
}

/* ---- describe ---- */

/* The uint32 shape of plane k as a data array. */
static pmix_data_array_t *shape_array(const sy_fabric_shapes_t *sh, uint32_t k)
{
    pmix_data_array_t *da = sy_darray_new(PMIX_UINT32, sh->dims);
    if (da != NULL && sh->dims > 0)
        memcpy(da->array, sh->shape[k], sh->dims * sizeof(uint32_t));
    return da;
}

/* With no plane: one two-element (PMIX_FABRIC_PLANE, value) array per plane. */
static pmix_status_t per_plane(sy_ilist_t *l, const char *key, const sy_planes_t *p,
                               const sy_fabric_shapes_t *sh, bool string)
{
    /* the header's allocator knows no arrays of arrays: built by hand */
    pmix_data_array_t *outer = calloc(1, sizeof(*outer));
    if (outer == NULL ||
        (outer->array = calloc(p->nplanes + 1, sizeof(pmix_data_array_t))) == NULL) {
        free(outer);
        return PMIX_ERR_NOMEM;
    }
    outer->type = PMIX_DATA_ARRAY;
    outer->size = p->nplanes;
    pmix_data_array_t *elems = outer->array;
    pmix_status_t rc = PMIX_SUCCESS;
    for (uint32_t k = 0; k < p->nplanes && rc == PMIX_SUCCESS; k++) {
        sy_ilist_t pair = {0};
        rc = sy_il_load(&pair, PMIX_FABRIC_PLANE, p->ids[k], PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = string ? sy_il_load(&pair, key, sh->shape_string[k], PMIX_STRING)
                        : sy_il_take_array(&pair, key, shape_array(sh, k));
        if (rc != PMIX_SUCCESS) {
            sy_il_free(&pair);
            break;
        }
        elems[k].type = PMIX_INFO;
        sy_il_finish(&pair, (pmix_info_t **)&elems[k].array, &elems[k].size);
    }
    if (rc != PMIX_SUCCESS) {
        PMIX_DATA_ARRAY_FREE(outer);
        return rc;
    }
    return sy_il_take_array(l, key, outer);
}

/* The PMIX_FABRIC_GROUPS string over the devices of one plane (group
 * numbers kept, hosts listed once per group), or NULL. */
static char *plane_groups(sy_fabmod_fab_t *f, const sy_groups_t *g, const sy_planes_t *p,
                          uint32_t k)
{
    const sy_topo_t *t = sy_fabric_engine_topo(f->eng);
    const sy_devindex_t *ix;
    if (sy_fabric_engine_devindex(f->eng, &ix) != PMIX_SUCCESS || g->str == NULL)
        return NULL;
    const char **members = calloc(g->ndev + 1, sizeof(char *));
    char *buf = NULL;
    size_t len = 0;
    FILE *m = members != NULL ? open_memstream(&buf, &len) : NULL;
    if (m == NULL) {
        free(members);
        return NULL;
    }
    bool any = false;
    for (uint32_t grp = 0; grp < g->ngroups; grp++) {
        size_t nm = 0;
        for (uint32_t d = 0; d < g->ndev; d++) {
            if (g->group[d] != grp || p->plane_of[d] != k)
                continue;
            const sy_topo_vertex_t *v = &t->v[ix->dev_to_vertex[d]];
            const char *name = v->host != NULL ? v->host : v->name;
            bool seen = false;
            for (size_t e = 0; e < nm && !seen; e++)
                seen = strcmp(members[e], name) == 0;
            if (seen)
                continue;
            if (nm == 0)
                fprintf(m, "%s%u:", any ? ";" : "", grp);
            fprintf(m, "%s%s", nm > 0 ? "," : "", name);
            members[nm++] = name;
            any = true;
        }
    }
    fclose(m);
    free(members);
    return buf;
}

/* The PMIX_FABRIC_DEVICE_INDEX rows asked for, or none (*rows NULL). */
static pmix_status_t subset_of(const pmix_info_t *dirs, size_t ndirs, uint32_t ndevices,
                               uint32_t **rows, size_t *nrows)
{
    *rows = NULL;
    *nrows = 0;
    for (size_t i = 0; i < ndirs; i++) {
        if (!PMIX_CHECK_KEY(&dirs[i], PMIX_FABRIC_DEVICE_INDEX))
            continue;
        const pmix_value_t *v = &dirs[i].value;
        const uint32_t *src;
        size_t n;
        if (v->type == PMIX_UINT32) {
            src = &v->data.uint32;
            n = 1;
        } else if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL &&
                   v->data.darray->type == PMIX_UINT32) {
            src = v->data.darray->array;
            n = v->data.darray->size;
        } else {
            return PMIX_ERR_BAD_PARAM;
        }
        if (n == 0 || src == NULL)
            return PMIX_ERR_BAD_PARAM;
        for (size_t r = 0; r < n; r++)
            if (src[r] >= ndevices)
                return PMIX_ERR_BAD_PARAM;
        uint32_t *copy = malloc(n * sizeof(uint32_t));
        if (copy == NULL)
            return PMIX_ERR_NOMEM;
        memcpy(copy, src, n * sizeof(uint32_t));
        *rows = copy;
        *nrows = n;
        return PMIX_SUCCESS;
    }
    return PMIX_SUCCESS;
}

/* The square submatrix of the rows asked for, and the rows themselves. */
static pmix_status_t describe_subset(const sy_cost_t *cost, uint32_t *rows, size_t n, sy_ilist_t *l)
{
    uint16_t *m = malloc(n * n * sizeof(uint16_t));
    pmix_data_array_t *ix = sy_darray_new(PMIX_UINT32, n);
    if (m == NULL || ix == NULL) {
        free(m);
        PMIX_DATA_ARRAY_FREE(ix);
        return PMIX_ERR_NOMEM;
    }
    memcpy(ix->array, rows, n * sizeof(uint32_t));
    for (size_t r = 0; r < n; r++) {
        const uint16_t *src = &cost->m[(size_t)rows[r] * cost->n];
        for (size_t c = 0; c < n; c++)
            m[r * n + c] = src[rows[c]];
    }
    pmix_status_t rc = sy_il_take_bytes(l, PMIX_FABRIC_COST_MATRIX, m, n * n * sizeof(uint16_t));
    if (rc == PMIX_SUCCESS)
        rc = sy_il_take_array(l, PMIX_FABRIC_DEVICE_INDEX, ix);
    else
        PMIX_DATA_ARRAY_FREE(ix);
    return rc;
}

static pmix_status_t fm_describe(sy_fabmod_fab_t *f, const char *plane, bool by_value,
                                 const pmix_info_t *dirs, size_t ndirs, pmix_info_t **info,
                                 size_t *ninfo)
{
    const sy_planes_t *p;
    const sy_cost_t *cost;
    const sy_groups_t *g;
    const sy_fabric_shapes_t *sh;
    pmix_status_t rc = sy_fabric_engine_planes(f->eng, &p);
    if (rc == PMIX_SUCCESS)
        rc = sy_fabric_engine_groups(f->eng, &g);
    if (rc == PMIX_SUCCESS)
        rc = sy_fabric_engine_shapes(f->eng, &sh);
    if (rc != PMIX_SUCCESS)
        return rc;
    /* the matrix is optional: above the size cap the rest is still served */
    if (sy_fabric_engine_cost(f->eng, &cost) != PMIX_SUCCESS)
        cost = NULL;
    uint32_t k = UINT32_MAX;
    if (plane != NULL) {
        for (uint32_t i = 0; i < p->nplanes && k == UINT32_MAX; i++)
            if (strcmp(p->ids[i], plane) == 0)
                k = i;
        if (k == UINT32_MAX)
            return PMIX_ERR_NOT_FOUND;
    }
    uint32_t *rows = NULL;
    size_t nrows = 0;
    rc = subset_of(dirs, ndirs, p->ndevices, &rows, &nrows);
    if (rc != PMIX_SUCCESS)
        return rc;
    sy_ilist_t l = {0};
    size_t n = rows != NULL ? nrows : k == UINT32_MAX ? p->ndevices : p->ndev[k];
    rc = sy_il_load(&l, PMIX_FABRIC_NUM_DEVICES, &n, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && rows != NULL) {
        /* without the matrix (above the size cap) only the count and rows */
        if (cost != NULL) {
            rc = describe_subset(cost, rows, nrows, &l);
        } else {
            pmix_data_array_t *ix = sy_darray_new(PMIX_UINT32, nrows);
            if (ix != NULL)
                memcpy(ix->array, rows, nrows * sizeof(uint32_t));
            rc = sy_il_take_array(&l, PMIX_FABRIC_DEVICE_INDEX, ix);
        }
    } else if (rc == PMIX_SUCCESS && cost != NULL) {
        if (k == UINT32_MAX && !by_value) {
            rc = sy_il_load(&l, PMIX_FABRIC_COST_MATRIX, cost->m, PMIX_POINTER);
        } else {
            uint16_t *m = n > 0 ? malloc(n * n * sizeof(uint16_t)) : NULL;
            if (n > 0 && m == NULL) {
                rc = PMIX_ERR_NOMEM;
            } else if (k == UINT32_MAX) {
                if (n > 0)
                    memcpy(m, cost->m, n * n * sizeof(uint16_t));
            } else {
                size_t r = 0;
                for (uint32_t i = 0; i < p->ndevices; i++) {
                    if (p->plane_of[i] != k)
                        continue;
                    size_t c = 0;
                    for (uint32_t j = 0; j < p->ndevices; j++)
                        if (p->plane_of[j] == k)
                            m[r * n + c++] = cost->m[(size_t)i * cost->n + j];
                    r++;
                }
            }
            if (rc == PMIX_SUCCESS)
                rc = sy_il_take_bytes(&l, PMIX_FABRIC_COST_MATRIX, m, n * n * sizeof(uint16_t));
        }
    }
    if (rc == PMIX_SUCCESS && k == UINT32_MAX && g->str != NULL)
        rc = sy_il_load(&l, PMIX_FABRIC_GROUPS, g->str, PMIX_STRING);
    if (rc == PMIX_SUCCESS && k != UINT32_MAX) {
        char *s = plane_groups(f, g, p, k);
        if (s != NULL) {
            rc = sy_il_load(&l, PMIX_FABRIC_GROUPS, s, PMIX_STRING);
            free(s);
        }
    }
    if (rc == PMIX_SUCCESS && k != UINT32_MAX) {
        rc = sy_il_load(&l, PMIX_FABRIC_PLANE, p->ids[k], PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = sy_il_load(&l, PMIX_FABRIC_DIMS, &sh->dims, PMIX_UINT32);
        if (rc == PMIX_SUCCESS)
            rc = sy_il_take_array(&l, PMIX_FABRIC_SHAPE, shape_array(sh, k));
        if (rc == PMIX_SUCCESS)
            rc = sy_il_load(&l, PMIX_FABRIC_SHAPE_STRING, sh->shape_string[k], PMIX_STRING);
    } else if (rc == PMIX_SUCCESS) {
        pmix_data_array_t *dims = sy_darray_new(PMIX_UINT32, p->nplanes);
        for (uint32_t i = 0; dims != NULL && i < p->nplanes; i++)
            ((uint32_t *)dims->array)[i] = sh->dims;
        rc = sy_il_take_array(&l, PMIX_FABRIC_PLANE, sy_darray_strings(p->ids, p->nplanes));
        if (rc == PMIX_SUCCESS)
            rc = sy_il_take_array(&l, PMIX_FABRIC_DIMS, dims);
        else
            PMIX_DATA_ARRAY_FREE(dims);
        if (rc == PMIX_SUCCESS)
            rc = per_plane(&l, PMIX_FABRIC_SHAPE, p, sh, false);
        if (rc == PMIX_SUCCESS)
            rc = per_plane(&l, PMIX_FABRIC_SHAPE_STRING, p, sh, true);
    }
    free(rows);
    if (rc != PMIX_SUCCESS) {
        sy_il_free(&l);
        return rc;
    }
    sy_il_finish(&l, info, ninfo);
    return PMIX_SUCCESS;
}

/* ---- changes ---- */

static pmix_status_t fm_reload(sy_fabmod_fab_t *f, bool *changed)
{
    uint64_t before = sy_fabric_engine_generation(f->eng);
    pmix_status_t rc = sy_fabric_engine_reload(f->eng);
    *changed = sy_fabric_engine_generation(f->eng) != before;
    return rc;
}

static pmix_status_t fm_link_state(sy_fabmod_fab_t *f, const char *a, const char *b, uint8_t state,
                                   bool *changed)
{
    uint64_t before = sy_fabric_engine_generation(f->eng);
    pmix_status_t rc = sy_fabric_engine_link_state(f->eng, a, b, state);
    *changed = sy_fabric_engine_generation(f->eng) != before;
    return rc;
}

static pmix_status_t fm_refresh(sy_fabmod_fab_t *f)
{
    return sy_fabric_engine_refresh(f->eng);
}

/* ---- inventory ---- */

static pmix_status_t gpus(hwloc_topology_t topo, const char *host, sy_ilist_t *l)
{
    sy_ilist_t all = {0};
    pmix_status_t rc = PMIX_SUCCESS;
    for (hwloc_obj_t os = hwloc_get_next_osdev(topo, NULL); os != NULL && rc == PMIX_SUCCESS;
         os = hwloc_get_next_osdev(topo, os)) {
        if (os->attr->osdev.type != HWLOC_OBJ_OSDEV_GPU &&
            os->attr->osdev.type != HWLOC_OBJ_OSDEV_COPROC)
            continue;
        sy_ilist_t dev = {0};
        char *id = sy_device_make_id(host, os->name);
        rc = id != NULL ? sy_il_load(&dev, PMIX_DEVICE_ID, id, PMIX_STRING) : PMIX_ERR_NOMEM;
        free(id);
        if (rc == PMIX_SUCCESS)
            rc = sy_il_load(&dev, PMIX_FABRIC_DEVICE_NAME, os->name, PMIX_STRING);
        hwloc_obj_t pci = os->parent;
        while (pci != NULL && pci->type != HWLOC_OBJ_PCI_DEVICE)
            pci = pci->parent;
        if (rc == PMIX_SUCCESS && pci != NULL) {
            const char *vendor = hwloc_obj_get_info_by_name(pci, "PCIVendor");
            char devid[32];
            snprintf(devid, sizeof(devid), "%04x:%02x:%02x:%02x", pci->attr->pcidev.domain,
                     pci->attr->pcidev.bus, pci->attr->pcidev.dev, pci->attr->pcidev.func);
            if (vendor != NULL)
                rc = sy_il_load(&dev, PMIX_FABRIC_DEVICE_VENDOR, vendor, PMIX_STRING);
            if (rc == PMIX_SUCCESS)
                rc = sy_il_load(&dev, PMIX_FABRIC_DEVICE_PCI_DEVID, devid, PMIX_STRING);
        }
        if (rc == PMIX_SUCCESS)
            rc = sy_il_take_array(&all, PMIX_FABRIC_DEVICE, sy_il_to_darray(&dev));
        else
            sy_il_free(&dev);
    }
    if (rc == PMIX_SUCCESS && all.n > 0)
        return sy_il_take_array(l, SWITCHYARD_INV_GPUS, sy_il_to_darray(&all));
    sy_il_free(&all);
    return rc;
}

static pmix_status_t fm_inventory(const char *hostname, pmix_info_t **info, size_t *ninfo)
{
    char host[256];
    if (hostname == NULL) {
        if (gethostname(host, sizeof(host) - 1) != 0)
            snprintf(host, sizeof(host), "localhost");
        host[sizeof(host) - 1] = '\0';
        hostname = host;
    }
    hwloc_topology_t topo = NULL;
    /* one topology with I/O objects for both the devices and the GPUs */
    if (hwloc_topology_init(&topo) == 0) {
        hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
        if (hwloc_topology_load(topo) != 0) {
            hwloc_topology_destroy(topo);
            topo = NULL;
        }
    } else {
        topo = NULL;
    }
    sy_devices_opts_t opts = {.hostname = hostname, .topology = topo};
    if (topo == NULL)
        opts.flags |= SY_DEVICES_NO_HWLOC;
    sy_device_list_t list = {0};
    sy_ilist_t l = {0};
    pmix_status_t rc = sy_il_load(&l, PMIX_HOSTNAME, hostname, PMIX_STRING);
    if (rc == PMIX_SUCCESS)
        rc = sy_devices_gather(&opts, &list);
    if (rc == PMIX_SUCCESS) {
        pmix_data_array_t *da = calloc(1, sizeof(*da));
        rc = da != NULL ? sy_devices_to_info(&list, da) : PMIX_ERR_NOMEM;
        if (rc == PMIX_SUCCESS)
            rc = sy_il_take_array(&l, PMIX_FABRIC_DEVICES, da);
        else
            free(da);
    }
    sy_device_list_free(&list);
    if (rc == PMIX_SUCCESS && topo != NULL)
        rc = gpus(topo, hostname, &l);
    if (topo != NULL)
        hwloc_topology_destroy(topo);
    if (rc != PMIX_SUCCESS) {
        sy_il_free(&l);
        return rc;
    }
    sy_il_finish(&l, info, ninfo);
    return PMIX_SUCCESS;
}

static void fm_cleanup(void)
{
    sy_devices_cache_release();
}

__attribute__((visibility("default"))) const sy_fabmod_ops_t sy_fabmod_v1 = {
    .abi = SY_FABMOD_ABI,
    .open = fm_open,
    .close = fm_close,
    .last_error = fm_last_error,
    .note = fm_note,
    .devices_hash = fm_devices_hash,
    .planes = fm_planes,
    .describe = fm_describe,
    .reload = fm_reload,
    .link_state = fm_link_state,
    .refresh = fm_refresh,
    .job_data = sy_fabmod_job_data,
    .inventory = fm_inventory,
    .cleanup = fm_cleanup,
};
