/* switchyard-fabric --coords-json: the engine's planes and, for every
 * device, its host, index, plane, group, coordinates and the switches it
 * is cabled to (format: docs/fabric.md, "Command line"). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "fabric.h"

/* A string, or null for a name the topology does not have. */
static json_t *str_or_null(const char *s)
{
    return s != NULL ? json_string(s) : json_null();
}

static json_t *planes_json(const sy_planes_t *pl, const sy_fabric_shapes_t *sh)
{
    json_t *a = json_array();
    for (uint32_t p = 0; a != NULL && p < pl->nplanes; p++) {
        json_t *o = json_pack("{s:I, s:o, s:I, s:o}", "index", (json_int_t)p, "id",
                              str_or_null(pl->ids[p]), "devices", (json_int_t)pl->ndev[p], "shape",
                              str_or_null(p < sh->nplanes ? sh->shape_string[p] : NULL));
        if (json_array_append_new(a, o) != 0) {
            json_decref(a);
            a = NULL;
        }
    }
    return a;
}

static json_t *device_json(const sy_topo_t *t, const sy_devindex_t *ix, const sy_planes_t *pl,
                           const sy_groups_t *g, const sy_coords_t *co, const sy_peers_t *pe,
                           uint32_t d)
{
    const sy_topo_vertex_t *v = &t->v[ix->dev_to_vertex[d]];
    json_t *coords = json_array();
    json_t *sw = json_array();
    int bad = coords == NULL || sw == NULL;
    for (uint32_t k = 0; !bad && k < co->dims; k++) {
        bad = json_array_append_new(coords, json_integer(co->coord[(size_t)d * co->dims + k]));
    }
    for (uint32_t k = pe->dev_sw_off[d]; !bad && k < pe->dev_sw_off[d + 1]; k++) {
        bad = json_array_append_new(sw, str_or_null(pe->sw_name[pe->dev_sw[k]]));
    }
    if (bad) {
        json_decref(coords);
        json_decref(sw);
        return NULL;
    }
    /* json_pack steals the two arrays, also when it fails. */
    return json_pack("{s:o, s:o, s:I, s:I, s:I, s:o, s:o}", "name", str_or_null(v->name), "host",
                     str_or_null(v->host), "index", (json_int_t)d, "plane",
                     (json_int_t)pl->plane_of[d], "group", (json_int_t)g->group[d], "coordinates",
                     coords, "switches", sw);
}

int export_coords(sy_fabric_engine_t *eng, const char *path)
{
    const sy_topo_t *t = sy_fabric_engine_topo(eng);
    const sy_devindex_t *ix;
    const sy_planes_t *pl;
    const sy_groups_t *g;
    const sy_coords_t *co;
    const sy_peers_t *pe;
    const sy_fabric_shapes_t *sh;
    if (sy_fabric_engine_devindex(eng, &ix) != PMIX_SUCCESS ||
        sy_fabric_engine_planes(eng, &pl) != PMIX_SUCCESS ||
        sy_fabric_engine_groups(eng, &g) != PMIX_SUCCESS ||
        sy_fabric_engine_coords(eng, &co) != PMIX_SUCCESS ||
        sy_fabric_engine_peers(eng, &pe) != PMIX_SUCCESS ||
        sy_fabric_engine_shapes(eng, &sh) != PMIX_SUCCESS) {
        return fail("%s", sy_fabric_engine_last_error(eng));
    }
    json_t *devs = json_array();
    for (uint32_t d = 0; devs != NULL && d < ix->ndev; d++) {
        if (json_array_append_new(devs, device_json(t, ix, pl, g, co, pe, d)) != 0) {
            json_decref(devs);
            devs = NULL;
        }
    }
    json_t *root = json_pack("{s:I, s:s, s:I, s:o, s:o}", "generation",
                             (json_int_t)sy_fabric_engine_generation(eng), "coord_method",
                             coords_method_name(co->method), "dims", (json_int_t)co->dims, "planes",
                             planes_json(pl, sh), "devices", devs);
    if (root == NULL) {
        return fail("out of memory");
    }
    FILE *f = out_open(path);
    if (f == NULL) {
        json_decref(root);
        return fail("%s: %s", path, strerror(errno));
    }
    /* Compact: a 64k-device fabric would be millions of indented lines. */
    int bad = json_dumpf(root, f, JSON_COMPACT | JSON_PRESERVE_ORDER) != 0;
    fputc('\n', f);
    json_decref(root);
    int rc = out_close(f, path);
    return bad && rc == 0 ? fail("%s: write error", path) : rc;
}
