/* Unit test: the fabric engine (src/fabric/engine.c) and vertex removal
 * (src/fabric/topo_edit.c).  Checks the lazy/eager computation, the
 * generation counter, that each kind of change dirties exactly the
 * results documented in engine.h (per-result compute counters), and that
 * results after a change equal those of a fresh engine built from the
 * modified input. */
#include "config.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <pmix_common.h>

#include "fabric/engine.h"

#ifndef FABRIC_DATA_DIR
#define FABRIC_DATA_DIR "tests/fabric/data"
#endif

#define B(r) SY_FABRIC_BIT(SY_FABRIC_R_##r)

/* ------------------------------------------------------------ helpers */

static const char *data_path(const char *file)
{
    static char path[4096];
    snprintf(path, sizeof(path), "%s/%s", FABRIC_DATA_DIR, file);
    return path;
}

static char tmpdir[256];

static int setup_tmp(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/sy-engine-XXXXXX");
    return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int teardown_tmp(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd);
}

static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(0, fclose(f));
    return path;
}

static uint64_t counts(sy_fabric_engine_t *e, uint64_t *c)
{
    uint64_t sum = 0;
    for (unsigned r = 0; r < SY_FABRIC_R_COUNT; r++) {
        c[r] = sy_fabric_engine_compute_count(e, (sy_fabric_result_t)r);
        sum += c[r];
    }
    return sum;
}

/* After a refresh, exactly the results in `mask` ran once more. */
static void assert_recomputed(sy_fabric_engine_t *e, const uint64_t *before, unsigned mask)
{
    for (unsigned r = 0; r < SY_FABRIC_R_COUNT; r++) {
        uint64_t now = sy_fabric_engine_compute_count(e, (sy_fabric_result_t)r);
        uint64_t want = before[r] + ((mask & SY_FABRIC_BIT(r)) ? 1 : 0);
        if (now != want) {
            fail_msg("%s computed %llu times, expected %llu", sy_fabric_result_name(r),
                     (unsigned long long)now, (unsigned long long)want);
        }
    }
}

static const sy_cost_t *cost_of(sy_fabric_engine_t *e)
{
    const sy_cost_t *c = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_cost(e, &c));
    assert_non_null(c);
    return c;
}

static void assert_same_cost(sy_fabric_engine_t *a, sy_fabric_engine_t *b)
{
    const sy_cost_t *x = cost_of(a), *y = cost_of(b);
    assert_int_equal(x->n, y->n);
    if (x->n) {
        assert_memory_equal(x->m, y->m, (size_t)x->n * x->n * sizeof(uint16_t));
    }
}

static const char *groups_str(sy_fabric_engine_t *e)
{
    const sy_groups_t *g = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_groups(e, &g));
    assert_non_null(g->str);
    return g->str;
}

static uint32_t dev_of(sy_fabric_engine_t *e, const char *name)
{
    const sy_devindex_t *ix = NULL;
    uint32_t v;
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_devindex(e, &ix));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(sy_fabric_engine_topo(e), name, &v));
    assert_int_not_equal(SY_TOPO_NONE, ix->vertex_to_dev[v]);
    return ix->vertex_to_dev[v];
}

static uint16_t cost_by_name(sy_fabric_engine_t *e, const char *a, const char *b)
{
    uint32_t i = dev_of(e, a), j = dev_of(e, b);
    return sy_cost_get(cost_of(e), i, j);
}

static sy_fabric_engine_t *gen(const char *spec, const sy_fabric_engine_opts_t *o)
{
    sy_fabric_engine_t *e = NULL;
    char *msg = NULL;
    pmix_status_t rc = sy_fabric_engine_generate(spec, o, &e, &msg);
    if (rc != PMIX_SUCCESS) {
        fail_msg("generate %s: %s", spec, msg ? msg : "?");
    }
    return e;
}

static sy_fabric_engine_t *load(const char *path, const sy_fabric_engine_opts_t *o)
{
    sy_fabric_engine_t *e = NULL;
    char *msg = NULL;
    pmix_status_t rc = sy_fabric_engine_load(path, NULL, o, &e, &msg);
    if (rc != PMIX_SUCCESS) {
        fail_msg("load %s: %s", path, msg ? msg : "?");
    }
    return e;
}

/* -------------------------------------------------------------- tests */

static void test_lazy_load_slurm(void **state)
{
    (void)state;
    sy_fabric_engine_t *e = load(data_path("slurm_2leaf.conf"), NULL);
    uint64_t c[SY_FABRIC_R_COUNT];
    assert_int_equal(1, sy_fabric_engine_generation(e));
    assert_int_equal(SY_FABRIC_ALL, sy_fabric_engine_dirty(e));
    assert_int_equal(0, counts(e, c));
    /* Asking for the cost computes the device index and the cost only. */
    const sy_cost_t *cost = cost_of(e);
    assert_int_equal(12, cost->n);
    assert_int_equal(1, sy_fabric_engine_compute_count(e, SY_FABRIC_R_DEVINDEX));
    assert_int_equal(1, sy_fabric_engine_compute_count(e, SY_FABRIC_R_COST));
    assert_int_equal(2, counts(e, c));
    assert_int_equal(1, sy_fabric_engine_result_generation(e, SY_FABRIC_R_COST));
    assert_int_equal(0, sy_fabric_engine_result_generation(e, SY_FABRIC_R_GROUPS));
    /* Hand-checked: same leaf 2, across the spine 4, node001 is on both
     * leaves. */
    assert_int_equal(2, cost_by_name(e, "node002", "tux5"));
    assert_int_equal(4, cost_by_name(e, "node002", "node005"));
    assert_int_equal(2, cost_by_name(e, "node001", "node008"));
    assert_int_equal(0, cost_by_name(e, "node003", "node003"));
    /* Refresh computes the rest once; a second refresh nothing. */
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    assert_int_equal(0, sy_fabric_engine_dirty(e));
    assert_int_equal(SY_FABRIC_R_COUNT, counts(e, c));
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    assert_int_equal(SY_FABRIC_R_COUNT, counts(e, c));
    assert_string_equal("0:node001,node002,node003,node004,tux1,tux2,tux3,tux5;"
                        "1:node005,node006,node007,node008",
                        groups_str(e));
    const sy_fabric_shapes_t *sh = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_shapes(e, &sh));
    assert_int_equal(1, sh->nplanes);
    assert_int_equal(3, sh->dims);
    assert_string_equal("2x1x8", sh->shape_string[0]);
    sy_fabric_engine_free(e);
}

static void test_eager_generate(void **state)
{
    (void)state;
    sy_fabric_engine_opts_t o = {.flags = SY_FABRIC_ENGINE_EAGER, .nthreads = 2};
    sy_fabric_engine_t *e = gen("torus:4x4x8", &o);
    uint64_t c[SY_FABRIC_R_COUNT];
    assert_int_equal(0, sy_fabric_engine_dirty(e));
    assert_int_equal(SY_FABRIC_R_COUNT, counts(e, c));
    for (unsigned r = 0; r < SY_FABRIC_R_COUNT; r++) {
        assert_int_equal(1, c[r]);
        assert_int_equal(1, sy_fabric_engine_result_generation(e, (sy_fabric_result_t)r));
    }
    const sy_fabric_shapes_t *sh = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_shapes(e, &sh));
    assert_string_equal("4x4x8", sh->shape_string[0]);
    /* n74 is on router r2-2-4 (dimension 0 fastest): 2+2+4 router hops
     * plus 2 device links. */
    assert_int_equal(10, cost_by_name(e, "n0", "n74"));
    /* Engine cost equals the module called directly. */
    sy_topo_t *t = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_topo_generate("torus:4x4x8", &t, NULL));
    sy_cost_t direct;
    assert_int_equal(PMIX_SUCCESS, sy_cost_compute(t, NULL, NULL, &direct));
    const sy_cost_t *ec = cost_of(e);
    assert_int_equal(direct.n, ec->n);
    assert_memory_equal(direct.m, ec->m, direct.bytes);
    sy_cost_free(&direct);
    sy_topo_free(t);
    sy_fabric_engine_free(e);
}

/* Switch-switch link down: device index and peers untouched. */
static void test_link_state_switch(void **state)
{
    (void)state;
    sy_fabric_engine_t *e = gen("fattree:k=4", NULL);
    uint64_t c[SY_FABRIC_R_COUNT];
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    counts(e, c);
    assert_int_equal(4, cost_by_name(e, "n0", "n2"));
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_link_state(e, "edge0", "agg0", PMIX_LINK_DOWN));
    assert_int_equal(2, sy_fabric_engine_generation(e));
    unsigned want = B(COST) | B(PLANES) | B(GROUPS) | B(COORDS) | B(SHAPES);
    assert_int_equal(want, sy_fabric_engine_dirty(e));
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    assert_recomputed(e, c, want);
    assert_int_equal(1, sy_fabric_engine_result_generation(e, SY_FABRIC_R_PEERS));
    assert_int_equal(1, sy_fabric_engine_result_generation(e, SY_FABRIC_R_DEVINDEX));
    assert_int_equal(2, sy_fabric_engine_result_generation(e, SY_FABRIC_R_COST));
    /* Still 4 hops through agg1; compare everything with a fresh search
     * on an independently modified topology. */
    assert_int_equal(4, cost_by_name(e, "n0", "n2"));
    sy_topo_t *t = NULL;
    uint32_t a, b, ed;
    assert_int_equal(PMIX_SUCCESS, sy_topo_generate("fattree:k=4", &t, NULL));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, "edge0", &a));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, "agg0", &b));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find_link(t, a, b, &ed));
    assert_int_equal(PMIX_SUCCESS, sy_topo_set_link_state(t, ed, PMIX_LINK_DOWN));
    sy_cost_t direct;
    assert_int_equal(PMIX_SUCCESS, sy_cost_compute(t, NULL, NULL, &direct));
    assert_memory_equal(direct.m, cost_of(e)->m, direct.bytes);
    sy_cost_free(&direct);
    sy_topo_free(t);
    /* Cut edge0 off completely: n0 can only reach n1. */
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_link_state(e, "edge0", "agg1", PMIX_LINK_DOWN));
    assert_int_equal(3, sy_fabric_engine_generation(e));
    assert_int_equal(2, cost_by_name(e, "n0", "n1"));
    assert_int_equal(SY_COST_UNREACHABLE, cost_by_name(e, "n0", "n2"));
    const sy_planes_t *pl = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_planes(e, &pl));
    assert_int_equal(2, pl->nplanes);
    /* Same state again: no change at all. */
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_link_state(e, "edge0", "agg1", PMIX_LINK_DOWN));
    assert_int_equal(3, sy_fabric_engine_generation(e));
    sy_fabric_engine_free(e);
}

/* With leaf groups, a switch-switch link does not touch the groups. */
static void test_link_state_leaf_groups(void **state)
{
    (void)state;
    sy_fabric_engine_opts_t o = {.group_method = SY_GROUPS_LEAF};
    sy_fabric_engine_t *e = gen("fattree:k=4", &o);
    uint64_t c[SY_FABRIC_R_COUNT];
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    counts(e, c);
    char *before = strdup(groups_str(e));
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_link_state(e, "agg0", "core0", PMIX_LINK_DOWN));
    unsigned want = B(COST) | B(PLANES) | B(COORDS) | B(SHAPES);
    assert_int_equal(want, sy_fabric_engine_dirty(e));
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    assert_recomputed(e, c, want);
    /* The groups it kept equal what a recomputation gives. */
    const sy_groups_t *g = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_groups(e, &g));
    assert_string_equal(before, g->str);
    sy_groups_t fresh;
    assert_int_equal(PMIX_SUCCESS, sy_topo_finalize((sy_topo_t *)sy_fabric_engine_topo(e)));
    const sy_devindex_t *ix = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_devindex(e, &ix));
    sy_groups_opts_t go = {.method = SY_GROUPS_LEAF};
    assert_int_equal(PMIX_SUCCESS, sy_groups_compute(sy_fabric_engine_topo(e), ix, &go, &fresh));
    assert_string_equal(fresh.str, g->str);
    sy_groups_free(&fresh);
    free(before);
    sy_fabric_engine_free(e);
}

/* Device link: peers and groups too, never the device index; UP <->
 * UNKNOWN dirties nothing. */
static void test_link_state_device(void **state)
{
    (void)state;
    sy_fabric_engine_t *e = load(data_path("slurm_2leaf.conf"), NULL);
    uint64_t c[SY_FABRIC_R_COUNT];
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    counts(e, c);
    assert_int_equal(PMIX_SUCCESS,
                     sy_fabric_engine_link_state(e, "node001", "leaf1", PMIX_LINK_STATE_UNKNOWN));
    assert_int_equal(2, sy_fabric_engine_generation(e));
    assert_int_equal(0, sy_fabric_engine_dirty(e));
    assert_int_equal(PMIX_SUCCESS,
                     sy_fabric_engine_link_state(e, "node001", "leaf1", PMIX_LINK_DOWN));
    assert_int_equal(3, sy_fabric_engine_generation(e));
    unsigned want = SY_FABRIC_ALL & ~B(DEVINDEX);
    assert_int_equal(want, sy_fabric_engine_dirty(e));
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    assert_recomputed(e, c, want);
    assert_int_equal(4, cost_by_name(e, "node001", "node008"));
    const sy_peers_t *p = NULL;
    uint32_t d = dev_of(e, "node001");
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_peers(e, &p));
    assert_int_equal(1, p->dev_sw_off[d + 1] - p->dev_sw_off[d]);
    /* Fresh engine on the same input with the link written down. */
    const char *path = write_file("down.conf", "SwitchName=leaf0 Nodes=node[001-004],tux[1-3,5]\n"
                                               "SwitchName=leaf1 Nodes=node[005-008]\n"
                                               "SwitchName=spine Switches=leaf[0-1]\n");
    sy_fabric_engine_t *f = load(path, NULL);
    assert_same_cost(e, f);
    assert_string_equal(groups_str(f), groups_str(e));
    sy_fabric_engine_free(f);
    /* Errors. */
    assert_int_equal(PMIX_ERR_NOT_FOUND,
                     sy_fabric_engine_link_state(e, "node001", "nosuch", PMIX_LINK_DOWN));
    assert_int_equal(PMIX_ERR_NOT_FOUND,
                     sy_fabric_engine_link_state(e, "node001", "node002", PMIX_LINK_DOWN));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_fabric_engine_link_state(e, "node001", "leaf1", 77));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_fabric_engine_link_state(e, NULL, "leaf1", 0));
    assert_int_equal(3, sy_fabric_engine_generation(e));
    sy_fabric_engine_free(e);
}

static const char *const base_conf = "SwitchName=s0 Nodes=a[1-3]\n"
                                     "SwitchName=s1 Nodes=b[1-2]\n"
                                     "SwitchName=top Switches=s[0-1]\n";

static void test_add_remove_device(void **state)
{
    (void)state;
    sy_fabric_engine_t *e = load(write_file("base.conf", base_conf), NULL);
    uint64_t c[SY_FABRIC_R_COUNT];
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    counts(e, c);
    assert_int_equal(5, cost_of(e)->n);

    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_add_device(e, "b3", "b3", "s1", 0));
    assert_int_equal(2, sy_fabric_engine_generation(e));
    assert_int_equal(SY_FABRIC_ALL, sy_fabric_engine_dirty(e));
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    assert_recomputed(e, c, SY_FABRIC_ALL);
    assert_int_equal(5, dev_of(e, "b3")); /* last index, others unmoved */
    assert_int_equal(0, dev_of(e, "a1"));
    sy_fabric_engine_t *f = load(write_file("added.conf", "SwitchName=s0 Nodes=a[1-3]\n"
                                                          "SwitchName=s1 Nodes=b[1-3]\n"
                                                          "SwitchName=top Switches=s[0-1]\n"),
                                 NULL);
    assert_same_cost(e, f);
    assert_string_equal(groups_str(f), groups_str(e));
    assert_string_equal("0:a1,a2,a3;1:b1,b2,b3", groups_str(e));
    sy_fabric_engine_free(f);

    /* Removal renumbers: a2 goes, b1 moves from index 3 to 2. */
    counts(e, c);
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_remove_device(e, "a2"));
    assert_int_equal(3, sy_fabric_engine_generation(e));
    assert_int_equal(SY_FABRIC_ALL, sy_fabric_engine_dirty(e));
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    assert_recomputed(e, c, SY_FABRIC_ALL);
    assert_int_equal(2, dev_of(e, "b1"));
    const sy_topo_t *t = sy_fabric_engine_topo(e);
    uint32_t gone;
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_topo_find(t, "a2", &gone));
    assert_int_equal(5, t->ndevices);
    assert_int_equal(3, sy_fabric_engine_topo(e)->generation);
    f = load(write_file("removed.conf", "SwitchName=s0 Nodes=a1,a3\n"
                                        "SwitchName=s1 Nodes=b[1-3]\n"
                                        "SwitchName=top Switches=s[0-1]\n"),
             NULL);
    assert_same_cost(e, f);
    assert_string_equal("0:a1,a3;1:b1,b2,b3", groups_str(e));
    sy_fabric_engine_free(f);

    /* Errors leave the generation alone. */
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_fabric_engine_remove_device(e, "s0"));
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_fabric_engine_remove_device(e, "a2"));
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_fabric_engine_add_device(e, "x", NULL, "a1", 0));
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_fabric_engine_add_device(e, "x", NULL, "zz", 0));
    assert_int_equal(PMIX_EXISTS, sy_fabric_engine_add_device(e, "a1", NULL, "s0", 0));
    assert_int_equal(3, sy_fabric_engine_generation(e));
    assert_int_equal(0, sy_fabric_engine_dirty(e));
    sy_fabric_engine_free(e);
}

static void test_add_device_plane(void **state)
{
    (void)state;
    sy_fabric_engine_t *e = load(data_path("native_2plane.topo"), NULL);
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_add_device(e, "n2-r1", "n2", "sw1", 0));
    const sy_topo_t *t = sy_fabric_engine_topo(e);
    uint32_t v, sw;
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, "n2-r1", &v));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, "sw1", &sw));
    assert_int_equal(t->v[sw].plane, t->v[v].plane);
    assert_int_equal(2, cost_by_name(e, "n0-r1", "n2-r1"));
    sy_fabric_engine_free(e);
}

static void test_remove_vertex_topo(void **state)
{
    (void)state;
    sy_topo_t *t = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_topo_generate("fattree:k=4", &t, NULL));
    uint32_t nv = t->nv, ne = t->ne, v, a, b, ed;
    uint64_t g = t->generation;
    /* Remove a switch: its 4 links go, later ids move down by one. */
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, "agg0", &v));
    assert_int_equal(PMIX_SUCCESS, sy_topo_remove_vertex(t, v));
    assert_int_equal(nv - 1, t->nv);
    assert_int_equal(ne - 4, t->ne);
    assert_int_equal(g + 1, t->generation);
    assert_false(t->finalized);
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_topo_find(t, "agg0", &a));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, "agg1", &a));
    assert_int_equal(v, a);
    assert_string_equal("agg1", t->v[v].name);
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, "edge0", &a));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find_link(t, a, v, &ed));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, "core0", &b));
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_topo_find_link(t, a, b, &ed));
    assert_int_equal(PMIX_SUCCESS, sy_topo_finalize(t));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topo_remove_vertex(t, t->nv));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topo_remove_vertex(NULL, 0));
    sy_topo_free(t);
}

static void test_reload(void **state)
{
    (void)state;
    const char *path = write_file("reload.conf", base_conf);
    char p[512];
    snprintf(p, sizeof(p), "%s", path);
    sy_fabric_engine_t *e = load(p, NULL);
    uint64_t c[SY_FABRIC_R_COUNT];
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    counts(e, c);
    /* Unchanged file. */
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_reload(e));
    assert_int_equal(1, sy_fabric_engine_generation(e));
    /* Touched, same content: the hash says unchanged. */
    struct timespec ts[2] = {{.tv_sec = 1000000000, .tv_nsec = 0},
                             {.tv_sec = 1000000000, .tv_nsec = 0}};
    assert_int_equal(0, utimensat(AT_FDCWD, p, ts, 0));
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_reload(e));
    assert_int_equal(1, sy_fabric_engine_generation(e));
    assert_int_equal(0, sy_fabric_engine_dirty(e));
    /* Changed content: new topology, everything recomputed. */
    write_file("reload.conf", "SwitchName=s0 Nodes=a[1-3]\n"
                              "SwitchName=s1 Nodes=b[1-4]\n"
                              "SwitchName=top Switches=s[0-1]\n");
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_reload(e));
    assert_int_equal(2, sy_fabric_engine_generation(e));
    assert_int_equal(SY_FABRIC_ALL, sy_fabric_engine_dirty(e));
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_refresh(e));
    assert_recomputed(e, c, SY_FABRIC_ALL);
    assert_int_equal(7, cost_of(e)->n);
    assert_int_equal(2, cost_of(e)->generation);
    sy_fabric_engine_t *f = load(p, NULL);
    assert_same_cost(e, f);
    sy_fabric_engine_free(f);
    /* A broken file keeps the engine as it was. */
    write_file("reload.conf", "SwitchName=s0 Nodes=a[1-3]\nSwitchName=s1 Bogus=1\n");
    assert_int_not_equal(PMIX_SUCCESS, sy_fabric_engine_reload(e));
    assert_non_null(strstr(sy_fabric_engine_last_error(e), ":2:"));
    assert_int_equal(2, sy_fabric_engine_generation(e));
    assert_int_equal(7, cost_of(e)->n);
    /* Generated engines have no file. */
    sy_fabric_engine_t *g = gen("fattree:k=2", NULL);
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, sy_fabric_engine_reload(g));
    sy_fabric_engine_free(g);
    sy_fabric_engine_free(e);
}

static void test_errors(void **state)
{
    (void)state;
    sy_fabric_engine_t *e = NULL;
    char *msg = NULL;
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_fabric_engine_load(NULL, NULL, NULL, &e, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM,
                     sy_fabric_engine_generate("fattree:k=4", NULL, NULL, NULL));
    assert_int_not_equal(PMIX_SUCCESS,
                         sy_fabric_engine_load("/nonexistent/x", NULL, NULL, &e, &msg));
    assert_null(e);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "/nonexistent/x"));
    free(msg);
    msg = NULL;
    const char *bad = write_file("bad.conf", "SwitchName=s0 Nodes=a1\n\nSwitchName=\n");
    assert_int_not_equal(PMIX_SUCCESS, sy_fabric_engine_load(bad, "slurm", NULL, &e, &msg));
    assert_non_null(msg);
    assert_non_null(strstr(msg, ":3:"));
    free(msg);
    msg = NULL;
    assert_int_not_equal(PMIX_SUCCESS, sy_fabric_engine_generate("cube:k=2", NULL, &e, &msg));
    assert_non_null(msg);
    free(msg);
    /* Matrix above the cap: cost fails, the rest still works. */
    sy_fabric_engine_opts_t o = {.max_bytes = 16};
    e = gen("fattree:k=4", &o);
    const sy_cost_t *c = NULL;
    assert_int_equal(PMIX_ERR_OUT_OF_RESOURCE, sy_fabric_engine_cost(e, &c));
    assert_null(c);
    assert_non_null(strstr(sy_fabric_engine_last_error(e), "cap"));
    assert_int_equal(PMIX_ERR_OUT_OF_RESOURCE, sy_fabric_engine_refresh(e));
    assert_int_equal(B(COST), sy_fabric_engine_dirty(e));
    const sy_groups_t *g = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_fabric_engine_groups(e, &g));
    assert_int_equal(4, g->ngroups); /* k=4: POD groups */
    sy_fabric_engine_free(e);
    /* NULL engines are harmless. */
    sy_fabric_engine_free(NULL);
    assert_int_equal(0, sy_fabric_engine_generation(NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_fabric_engine_refresh(NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_fabric_engine_reload(NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_fabric_engine_cost(NULL, &c));
}

/* Progress reaches the engine's callback. */
static void progress(uint64_t done, uint64_t total, void *arg)
{
    uint64_t *last = arg;
    assert_true(done <= total);
    last[0] = done;
    last[1] = total;
}

static void test_progress_and_metric(void **state)
{
    (void)state;
    uint64_t last[2] = {0, 0};
    sy_fabric_engine_opts_t o = {.metric = SY_COST_SPEED,
                                 .progress = progress,
                                 .progress_arg = last,
                                 .flags = SY_FABRIC_ENGINE_EAGER};
    sy_fabric_engine_t *e = gen("dragonfly:a=4,p=2,h=2,g=9", &o);
    assert_true(last[1] > 0);
    assert_int_equal(last[0], last[1]);
    assert_int_equal(SY_COST_SPEED, cost_of(e)->metric);
    sy_fabric_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lazy_load_slurm),
        cmocka_unit_test(test_eager_generate),
        cmocka_unit_test(test_link_state_switch),
        cmocka_unit_test(test_link_state_leaf_groups),
        cmocka_unit_test(test_link_state_device),
        cmocka_unit_test(test_add_remove_device),
        cmocka_unit_test(test_add_device_plane),
        cmocka_unit_test(test_remove_vertex_topo),
        cmocka_unit_test(test_reload),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_progress_and_metric),
    };
    return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
