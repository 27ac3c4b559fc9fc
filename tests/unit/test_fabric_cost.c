/* Unit test: device index, cost matrix, planes and switch peers
 * (src/fabric/devindex.c, cost.c, cost_bfs.c, planes.c, peers.c).
 * Exact matrices on hand-checked inputs (tests/fabric/data/ and native
 * strings below), and property tests on generated topologies against an
 * independent search written here. */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmix_common.h>

#include "fabric/cost.h"
#include "fabric/devindex.h"
#include "fabric/peers.h"
#include "fabric/planes.h"
#include "fabric/topo.h"
#include "fabric_fixtures.h"

#define X SY_COST_UNREACHABLE

/* ------------------------------------------------------------ helpers */

/* Device index of a named vertex. */
static uint32_t dev(const sy_topo_t *t, const sy_devindex_t *ix, const char *name)
{
    uint32_t v = SY_TOPO_NONE;
    if (sy_topo_find(t, name, &v) != PMIX_SUCCESS) {
        fprintf(stderr, "vertex %s not found\n", name);
        fail();
    }
    assert_int_not_equal(SY_TOPO_NONE, ix->vertex_to_dev[v]);
    return ix->vertex_to_dev[v];
}

static sy_cost_t compute(const sy_topo_t *t, const sy_devindex_t *ix, sy_cost_metric_t metric,
                         sy_cost_algo_t algo, unsigned nthreads)
{
    sy_cost_opts_t o = {0};
    sy_cost_t c;
    o.metric = metric;
    o.algo = algo;
    o.nthreads = nthreads;
    assert_int_equal(PMIX_SUCCESS, sy_cost_compute(t, ix, &o, &c));
    assert_int_equal(ix ? ix->ndev : t->ndevices, c.n);
    assert_int_equal((size_t)c.n * c.n * 2, c.bytes);
    return c;
}

/* Compare against an expected matrix written over `names` (so the test
 * does not depend on the reader's vertex order); `names` may be a subset
 * of the devices. */
static void expect_matrix(const sy_topo_t *t, const sy_devindex_t *ix, const sy_cost_t *c,
                          const char *const *names, size_t n, const uint16_t *want)
{
    assert_true(n <= c->n);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            uint16_t got = sy_cost_get(c, dev(t, ix, names[i]), dev(t, ix, names[j]));
            if (got != want[i * n + j]) {
                fprintf(stderr, "cost(%s,%s) = %u, expected %u\n", names[i], names[j], got,
                        want[i * n + j]);
                fail();
            }
        }
    }
}

/* Every algorithm/thread-count combination that applies gives `want`. */
static void expect_all_algos(const sy_topo_t *t, sy_cost_metric_t metric, bool leaf_applies,
                             const char *const *names, size_t n, const uint16_t *want)
{
    sy_devindex_t ix;
    assert_int_equal(PMIX_SUCCESS, sy_devindex_build(t, &ix));
    for (unsigned th = 1; th <= 2; th++) {
        sy_cost_t c = compute(t, &ix, metric, SY_COST_ALGO_AUTO, th);
        assert_int_equal(leaf_applies ? SY_COST_ALGO_LEAF : SY_COST_ALGO_SOURCE, c.algo);
        expect_matrix(t, &ix, &c, names, n, want);
        sy_cost_free(&c);
        c = compute(t, &ix, metric, SY_COST_ALGO_SOURCE, th);
        assert_int_equal(SY_COST_ALGO_SOURCE, c.algo);
        expect_matrix(t, &ix, &c, names, n, want);
        sy_cost_free(&c);
    }
    sy_cost_opts_t o = {0};
    sy_cost_t c;
    o.metric = metric;
    o.algo = SY_COST_ALGO_LEAF;
    if (!leaf_applies) {
        assert_int_equal(PMIX_ERR_NOT_SUPPORTED, sy_cost_compute(t, &ix, &o, &c));
        assert_null(c.m);
    }
    sy_devindex_free(&ix);
}

/* --------------------------------------------- independent reference */

/* Plain Dijkstra, O(V^2), over the finalized CSR, skipping down links and
 * never leaving a device other than the source; link cost per metric as
 * documented in cost.h (recomputed here from the edges). */
static uint64_t *ref_search(const sy_topo_t *t, uint32_t src, sy_cost_metric_t metric)
{
    uint64_t ref = 0;
    for (uint32_t e = 0; e < t->ne; e++) {
        if (t->e[e].state != PMIX_LINK_DOWN && t->e[e].speed > ref) {
            ref = t->e[e].speed;
        }
    }
    uint64_t *d = malloc(sizeof(uint64_t) * t->nv);
    bool *done = calloc(t->nv, sizeof(bool));
    assert_non_null(d);
    assert_non_null(done);
    for (uint32_t v = 0; v < t->nv; v++) {
        d[v] = UINT64_MAX;
    }
    d[src] = 0;
    for (;;) {
        uint32_t x = SY_TOPO_NONE;
        for (uint32_t v = 0; v < t->nv; v++) {
            if (!done[v] && UINT64_MAX != d[v] && (x == SY_TOPO_NONE || d[v] < d[x])) {
                x = v;
            }
        }
        if (x == SY_TOPO_NONE) {
            break;
        }
        done[x] = true;
        if (x != src && t->v[x].kind == SY_TOPO_DEVICE) {
            continue;
        }
        const uint32_t *nb, *ed;
        uint32_t n;
        assert_int_equal(PMIX_SUCCESS, sy_topo_neighbors(t, x, &nb, &ed, &n));
        for (uint32_t k = 0; k < n; k++) {
            const sy_topo_edge_t *e = &t->e[ed[k]];
            if (e->state == PMIX_LINK_DOWN) {
                continue;
            }
            uint64_t w = 1;
            if (metric == SY_COST_SPEED && e->speed != 0) {
                w = (ref + e->speed - 1) / e->speed;
            }
            if (d[x] + w < d[nb[k]]) {
                d[nb[k]] = d[x] + w;
            }
        }
    }
    free(done);
    return d;
}

/* Checks c against the reference entry by entry, plus zero diagonal,
 * symmetry and, when every device is single-homed, the triangle
 * inequality (a multi-homed device does not forward, so going "through"
 * it is no path and the inequality can fail there). */
static void check_properties(sy_topo_t *t, const sy_devindex_t *ix, const sy_cost_t *c,
                             sy_cost_metric_t metric, bool triangle)
{
    uint32_t n = ix->ndev;
    assert_int_equal(PMIX_SUCCESS, sy_topo_finalize(t));
    assert_int_equal(n, c->n);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t *d = ref_search(t, ix->dev_to_vertex[i], metric);
        for (uint32_t j = 0; j < n; j++) {
            uint64_t r = d[ix->dev_to_vertex[j]];
            uint16_t want = UINT64_MAX == r ? X : (r > SY_COST_MAX ? SY_COST_MAX : (uint16_t)r);
            if (c->m[(size_t)i * n + j] != want) {
                fprintf(stderr, "entry (%u,%u) = %u, reference %u\n", i, j, c->m[(size_t)i * n + j],
                        want);
                fail();
            }
        }
        free(d);
        assert_int_equal(0, c->m[(size_t)i * n + i]);
    }
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t j = 0; j < n; j++) {
            uint16_t ij = c->m[(size_t)i * n + j];
            assert_int_equal(ij, c->m[(size_t)j * n + i]);
            if (X == ij || !triangle) {
                continue;
            }
            for (uint32_t k = 0; k < n; k++) {
                uint16_t jk = c->m[(size_t)j * n + k];
                if (X != jk) {
                    assert_true(c->m[(size_t)i * n + k] <= (uint32_t)ij + jk);
                }
            }
        }
    }
}

/* Returns whether the torus closed form was used. */
static bool check_generated(sy_topo_t *t, sy_cost_metric_t metric, bool expect_leaf)
{
    sy_devindex_t ix;
    assert_int_equal(PMIX_SUCCESS, sy_devindex_build(t, &ix));
    sy_cost_t a = compute(t, &ix, metric, SY_COST_ALGO_AUTO, 1);
    assert_int_equal(expect_leaf ? SY_COST_ALGO_LEAF : SY_COST_ALGO_SOURCE, a.algo);
    check_properties(t, &ix, &a, metric, expect_leaf);
    sy_cost_t b = compute(t, &ix, metric, SY_COST_ALGO_AUTO, 2);
    sy_cost_t s1 = compute(t, &ix, metric, SY_COST_ALGO_SOURCE, 1);
    sy_cost_t s2 = compute(t, &ix, metric, SY_COST_ALGO_SOURCE, 2);
    assert_memory_equal(a.m, b.m, a.bytes);
    assert_memory_equal(a.m, s1.m, a.bytes);
    assert_memory_equal(a.m, s2.m, a.bytes);
    assert_false(s1.torus_closed_form);
    bool closed = a.torus_closed_form;
    assert_int_equal(closed, b.torus_closed_form);
    sy_cost_free(&a);
    sy_cost_free(&b);
    sy_cost_free(&s1);
    sy_cost_free(&s2);
    assert_null(a.m);
    sy_devindex_free(&ix);
    return closed;
}

/* Deterministic pseudo-random numbers (no libc state). */
static uint32_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* ------------------------------------------------------------ tests */

static void test_devindex(void **state)
{
    (void)state;
    sy_topo_t *t = fab_load_file("native_2plane.topo", NULL);
    sy_devindex_t ix;
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_devindex_build(NULL, &ix));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_devindex_build(t, NULL));
    assert_int_equal(PMIX_SUCCESS, sy_devindex_build(t, &ix));
    assert_int_equal(4, ix.ndev);
    /* switches sw0, sw1 are vertices 0, 1; devices follow in file order */
    assert_int_equal(SY_TOPO_NONE, ix.vertex_to_dev[0]);
    assert_int_equal(SY_TOPO_NONE, ix.vertex_to_dev[1]);
    for (uint32_t d = 0; d < 4; d++) {
        assert_int_equal(d + 2, ix.dev_to_vertex[d]);
        assert_int_equal(d, ix.vertex_to_dev[d + 2]);
    }
    assert_int_equal(0, dev(t, &ix, "n0-r0"));
    assert_int_equal(3, dev(t, &ix, "n1-r1"));
    sy_devindex_free(&ix);
    assert_null(ix.dev_to_vertex);
    sy_devindex_free(&ix);
    sy_devindex_free(NULL);
    sy_topo_free(t);
}

static void test_two_leaf_tree(void **state)
{
    (void)state;
    sy_topo_t *t = fab_load_text("switch s level=1\n"
                                 "switch l0 level=0\nswitch l1 level=0\n"
                                 "device a\ndevice b\ndevice c\ndevice d\n"
                                 "link l0 s\nlink l1 s\n"
                                 "link a l0\nlink b l0\nlink c l1\nlink d l1\n");
    static const char *const names[] = {"a", "b", "c", "d"};
    static const uint16_t want[] = {0, 2, 4, 4, 2, 0, 4, 4, 4, 4, 0, 2, 4, 4, 2, 0};
    expect_all_algos(t, SY_COST_HOPS, true, names, 4, want);
    /* unknown speeds cost 1 per link: same matrix */
    expect_all_algos(t, SY_COST_SPEED, true, names, 4, want);
    sy_topo_free(t);
}

/* The Slurm file: node001 hangs off both leaves, so leaf-collapse does not
 * apply.  LinkSpeed=100 on leaf0's nodes, none on leaf1's, 200 spine. */
static void test_slurm_multihomed(void **state)
{
    (void)state;
    sy_topo_t *t = fab_load_file("slurm_2leaf.conf", NULL);
    static const char *const names[] = {"node001", "node002", "tux5", "node005", "node008"};
    static const uint16_t hops[] = {0, 2, 2, 2, 2, 2, 0, 2, 4, 4, 2, 2, 0,
                                    4, 4, 2, 4, 4, 0, 2, 2, 4, 4, 2, 0};
    /* ref = 200: leaf0 node links cost 2, leaf1 node links 1 (unknown),
     * spine links 1.  node001 reaches leaf0 peers directly (2+2), leaf1
     * peers through its leaf1 link (1+1). */
    static const uint16_t speed[] = {0, 4, 4, 2, 2, 4, 0, 4, 5, 5, 4, 4, 0,
                                     5, 5, 2, 5, 5, 0, 2, 2, 5, 5, 2, 0};
    assert_int_equal(12, t->ndevices);
    expect_all_algos(t, SY_COST_HOPS, false, names, 5, hops);
    expect_all_algos(t, SY_COST_SPEED, false, names, 5, speed);

    sy_devindex_t ix;
    assert_int_equal(PMIX_SUCCESS, sy_devindex_build(t, &ix));
    sy_cost_t c = compute(t, &ix, SY_COST_HOPS, SY_COST_ALGO_AUTO, 2);
    check_properties(t, &ix, &c, SY_COST_HOPS, false);
    sy_cost_free(&c);
    c = compute(t, &ix, SY_COST_SPEED, SY_COST_ALGO_AUTO, 2);
    check_properties(t, &ix, &c, SY_COST_SPEED, false);
    sy_cost_free(&c);

    sy_planes_t p;
    assert_int_equal(PMIX_SUCCESS, sy_planes_compute(t, &ix, &p));
    assert_int_equal(1, p.nplanes);
    assert_string_equal("plane0", p.ids[0]);
    assert_int_equal(12, p.ndev[0]);

    sy_peers_t pe;
    assert_int_equal(PMIX_SUCCESS, sy_peers_compute(t, &ix, &pe));
    assert_int_equal(2, pe.nswitches);
    assert_string_equal("leaf0", pe.sw_name[0]);
    assert_string_equal("leaf1", pe.sw_name[1]);
    uint32_t n1 = dev(t, &ix, "node001");
    assert_int_equal(2, pe.dev_sw_off[n1 + 1] - pe.dev_sw_off[n1]);
    assert_int_equal(0, pe.dev_sw[pe.dev_sw_off[n1]]);
    assert_int_equal(1, pe.dev_sw[pe.dev_sw_off[n1] + 1]);
    assert_int_equal(8, pe.sw_dev_off[1] - pe.sw_dev_off[0]); /* node001-004, tux1-3,5 */
    assert_int_equal(5, pe.sw_dev_off[2] - pe.sw_dev_off[1]); /* node005-008, node001 */
    assert_int_equal(n1, pe.sw_dev[pe.sw_dev_off[1]]);        /* ascending: node001 first */
    uint32_t n8 = dev(t, &ix, "node008");
    assert_int_equal(1, pe.dev_sw_off[n8 + 1] - pe.dev_sw_off[n8]);
    assert_int_equal(1, pe.dev_sw[pe.dev_sw_off[n8]]);
    sy_peers_free(&pe);
    sy_planes_free(&p);
    sy_devindex_free(&ix);
    sy_topo_free(t);
}

/* Two rails; n1-r1's only link is down. */
static void test_two_planes(void **state)
{
    (void)state;
    sy_topo_t *t = fab_load_file("native_2plane.topo", NULL);
    static const char *const names[] = {"n0-r0", "n1-r0", "n0-r1", "n1-r1"};
    static const uint16_t hops[] = {0, 2, X, X, 2, 0, X, X, X, X, 0, X, X, X, X, 0};
    /* ref = 200G (the down 25G link does not count): 100G links cost 2 */
    static const uint16_t speed[] = {0, 4, X, X, 4, 0, X, X, X, X, 0, X, X, X, X, 0};
    expect_all_algos(t, SY_COST_HOPS, true, names, 4, hops);
    expect_all_algos(t, SY_COST_SPEED, true, names, 4, speed);

    sy_planes_t p;
    assert_int_equal(PMIX_SUCCESS, sy_planes_compute(t, NULL, &p));
    assert_int_equal(3, p.nplanes);
    assert_string_equal("rail0", p.ids[0]);
    assert_string_equal("rail1", p.ids[1]);
    assert_string_equal("plane2", p.ids[2]); /* the cut-off NIC: rail1 is taken */
    assert_int_equal(4, p.ndevices);
    static const uint32_t plane_of[] = {0, 0, 1, 2};
    assert_memory_equal(plane_of, p.plane_of, sizeof(plane_of));
    assert_int_equal(2, p.ndev[0]);
    assert_int_equal(1, p.ndev[1]);
    assert_int_equal(1, p.ndev[2]);
    sy_planes_free(&p);
    assert_null(p.ids);

    sy_peers_t pe;
    assert_int_equal(PMIX_SUCCESS, sy_peers_compute(t, NULL, &pe));
    assert_int_equal(4, pe.ndev);
    assert_int_equal(2, pe.nswitches);
    assert_string_equal("sw0", pe.sw_name[0]);
    assert_string_equal("sw1", pe.sw_name[1]);
    assert_int_equal(0, pe.sw_vertex[0]);
    assert_int_equal(1, pe.sw_vertex[1]);
    static const uint32_t dev_sw_off[] = {0, 1, 2, 3, 3};
    static const uint32_t dev_sw[] = {0, 0, 1};
    static const uint32_t sw_dev_off[] = {0, 2, 3};
    static const uint32_t sw_dev[] = {0, 1, 2};
    assert_memory_equal(dev_sw_off, pe.dev_sw_off, sizeof(dev_sw_off));
    assert_memory_equal(dev_sw, pe.dev_sw, sizeof(dev_sw));
    assert_memory_equal(sw_dev_off, pe.sw_dev_off, sizeof(sw_dev_off));
    assert_memory_equal(sw_dev, pe.sw_dev, sizeof(sw_dev));
    sy_peers_free(&pe);
    sy_topo_free(t);
}

/* x is cabled to two switches that nothing else joins: devices do not
 * forward, so a and b stay unreachable from each other, yet it is one
 * component, hence one plane. */
static void test_multihomed_bridge(void **state)
{
    (void)state;
    sy_topo_t *t = fab_load_text("switch s0\nswitch s1\n"
                                 "device a plane=p\ndevice x plane=p\ndevice b plane=p\n"
                                 "link a s0\nlink x s0\nlink x s1\nlink b s1\n");
    static const char *const names[] = {"a", "x", "b"};
    static const uint16_t want[] = {0, 2, X, 2, 0, 2, X, 2, 0};
    expect_all_algos(t, SY_COST_HOPS, false, names, 3, want);
    sy_planes_t p;
    assert_int_equal(PMIX_SUCCESS, sy_planes_compute(t, NULL, &p));
    assert_int_equal(1, p.nplanes);
    assert_string_equal("p", p.ids[0]);
    sy_planes_free(&p);
    sy_peers_t pe;
    assert_int_equal(PMIX_SUCCESS, sy_peers_compute(t, NULL, &pe));
    static const uint32_t dev_sw_off[] = {0, 1, 3, 4};
    static const uint32_t dev_sw[] = {0, 0, 1, 1};
    static const uint32_t sw_dev_off[] = {0, 2, 4};
    static const uint32_t sw_dev[] = {0, 1, 1, 2};
    assert_memory_equal(dev_sw_off, pe.dev_sw_off, sizeof(dev_sw_off));
    assert_memory_equal(dev_sw, pe.dev_sw, sizeof(dev_sw));
    assert_memory_equal(sw_dev_off, pe.sw_dev_off, sizeof(sw_dev_off));
    assert_memory_equal(sw_dev, pe.sw_dev, sizeof(sw_dev));
    sy_peers_free(&pe);
    sy_topo_free(t);

    /* a direct device-device cable: reachable, but leaf-collapse is out */
    t = fab_load_text("switch s\ndevice a\ndevice b\ndevice c\nlink a b\nlink b s\nlink c s\n");
    static const char *const n2[] = {"a", "b", "c"};
    static const uint16_t w2[] = {0, 1, X, 1, 0, 2, X, 2, 0};
    expect_all_algos(t, SY_COST_HOPS, false, n2, 3, w2);
    sy_topo_free(t);
}

/* Down links: a ring s0-s1-s2-s3-s0 with s0-s1 down forces the long way;
 * a leaf whose uplink is down is cut off. */
static void test_down_links(void **state)
{
    (void)state;
    sy_topo_t *t = fab_load_text("switch s0\nswitch s1\nswitch s2\nswitch s3\nswitch s4\n"
                                 "device a\ndevice b\ndevice c\ndevice d\n"
                                 "link s0 s1 state=down\nlink s1 s2\nlink s2 s3\nlink s3 s0\n"
                                 "link s4 s2 state=down\n"
                                 "link a s0\nlink b s1\nlink c s4\nlink d s4 state=unknown\n");
    static const char *const names[] = {"a", "b", "c", "d"};
    static const uint16_t want[] = {0, 5, X, X, 5, 0, X, X, X, X, 0, 2, X, X, 2, 0};
    expect_all_algos(t, SY_COST_HOPS, true, names, 4, want);
    sy_planes_t p;
    assert_int_equal(PMIX_SUCCESS, sy_planes_compute(t, NULL, &p));
    assert_int_equal(2, p.nplanes);
    assert_string_equal("plane0", p.ids[0]);
    assert_string_equal("plane1", p.ids[1]);
    static const uint32_t plane_of[] = {0, 0, 1, 1};
    assert_memory_equal(plane_of, p.plane_of, sizeof(plane_of));
    sy_planes_free(&p);

    /* bringing s0-s1 up shortens a-b to 3; the cost follows the state */
    uint32_t s0, s1, e;
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, "s0", &s0));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, "s1", &s1));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find_link(t, s0, s1, &e));
    assert_int_equal(PMIX_SUCCESS, sy_topo_set_link_state(t, e, PMIX_LINK_UP));
    sy_devindex_t ix;
    assert_int_equal(PMIX_SUCCESS, sy_devindex_build(t, &ix));
    sy_cost_t c = compute(t, &ix, SY_COST_HOPS, SY_COST_ALGO_AUTO, 2);
    assert_int_equal(3, sy_cost_get(&c, 0, 1));
    assert_int_equal(t->generation, c.generation);
    sy_cost_free(&c);
    sy_devindex_free(&ix);
    sy_topo_free(t);
}

/* Speed weights: ref = 100G.  a-s0 100G (1), s0-s1 25G (4), s1-b 100G (1),
 * s0-s2 50G (2), s2-s1 100G (1), c-s2 unknown (1). */
static void test_weighted(void **state)
{
    (void)state;
    sy_topo_t *t =
        fab_load_text("switch s0\nswitch s1\nswitch s2\n"
                      "device a\ndevice b\ndevice c\n"
                      "link a s0 speed=100G\nlink s0 s1 speed=25G\nlink s1 b speed=100G\n"
                      "link s0 s2 speed=50G\nlink s2 s1 speed=100G\nlink c s2\n");
    static const char *const names[] = {"a", "b", "c"};
    static const uint16_t hops[] = {0, 3, 3, 3, 0, 3, 3, 3, 0};
    /* a-b: 1 + min(4, 2+1) + 1 = 5; a-c: 1+2+1; b-c: 1+1+1 */
    static const uint16_t speed[] = {0, 5, 4, 5, 0, 3, 4, 3, 0};
    expect_all_algos(t, SY_COST_HOPS, true, names, 3, hops);
    expect_all_algos(t, SY_COST_SPEED, true, names, 3, speed);
    sy_topo_free(t);

    /* parallel cables add their speeds: two 50G cables make one 100G link */
    t = fab_load_text("switch s0\ndevice a\ndevice b\n"
                      "link a s0 speed=50G\nlink a s0 speed=50G\nlink b s0 speed=10G\n");
    static const char *const n2[] = {"a", "b"};
    static const uint16_t w2[] = {0, 11, 11, 0};
    expect_all_algos(t, SY_COST_SPEED, true, n2, 2, w2);
    sy_topo_free(t);
}

/* Long chains saturate at 65534, never wrap into "unreachable". */
static void test_saturation(void **state)
{
    (void)state;
    sy_topo_t *t;
    assert_int_equal(PMIX_SUCCESS, sy_topo_new(&t));
    uint32_t a, b, s0, s1;
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_device(t, "a", NULL, NULL, &a));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_device(t, "b", NULL, NULL, &b));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_switch(t, "s0", 0, &s0));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_switch(t, "s1", 0, &s1));
    /* one slow link among fast ones: ceil(1e12 / 1) caps at 65534 per link */
    assert_int_equal(PMIX_SUCCESS,
                     sy_topo_add_link(t, a, s0, 1000000000000ull, PMIX_LINK_UP, 0, NULL));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_link(t, s0, s1, 1, PMIX_LINK_UP, 0, NULL));
    assert_int_equal(PMIX_SUCCESS,
                     sy_topo_add_link(t, s1, b, 1000000000000ull, PMIX_LINK_UP, 0, NULL));
    static const char *const names[] = {"a", "b"};
    static const uint16_t want[] = {0, SY_COST_MAX, SY_COST_MAX, 0};
    expect_all_algos(t, SY_COST_SPEED, true, names, 2, want);
    sy_topo_free(t);
}

static void test_generated(void **state)
{
    (void)state;
    static const char *const specs[] = {
        "fattree:k=4", "fattree:k=8", "dragonfly:a=4,p=2,h=2,g=9", "torus:4x4x4", "torus:2x3x1,p=2",
        "torus:5x2",   "torus:7",     "torus:3x4x2x3,p=3"};
    for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
        sy_topo_t *t = fab_generate(specs[s]);
        bool torus = strncmp(specs[s], "torus", 5) == 0;
        assert_int_equal(torus, check_generated(t, SY_COST_HOPS, true));
        assert_false(check_generated(t, SY_COST_SPEED, true));
        sy_topo_free(t);
    }
    /* known values of the 4-ary fat tree: 2 hosts per edge switch, 2 edge
     * switches per pod */
    sy_topo_t *t = fab_generate("fattree:k=4");
    sy_cost_t c;
    assert_int_equal(PMIX_SUCCESS, sy_cost_compute(t, NULL, NULL, &c));
    assert_int_equal(16, c.n);
    assert_int_equal(2, sy_cost_get(&c, 0, 1));
    assert_int_equal(4, sy_cost_get(&c, 0, 2));
    assert_int_equal(6, sy_cost_get(&c, 0, 4));
    assert_int_equal(6, sy_cost_get(&c, 15, 0));
    assert_int_equal(X, sy_cost_get(&c, 0, 16));
    sy_cost_free(&c);
    sy_topo_free(t);
}

/* A torus's closed form is used only when the graph really is the torus
 * its source string claims: lie about the shape and the result must still
 * match the reference search. */
static void test_torus_claims(void **state)
{
    (void)state;
    static const struct {
        const char *truth, *claim;
        bool used;
    } lies[] = {
        {"torus:8x8", "torus:4x16", false},     /* same link count, other wiring */
        {"torus:4x4x4", "torus:8x8", false},    /* same router count */
        {"torus:4x4x4", "torus:4x4x4x1", true}, /* harmless extra dimension */
        {"torus:6x6", "torus:6x6,p=1", true},   {"torus:6x6", "torus:6x", false},
        {"torus:6x6", "torus:0x6", false},      {"torus:6x6", "fattree:k=6", false},
    };
    for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
        sy_topo_t *t = fab_generate(lies[i].truth);
        assert_int_equal(PMIX_SUCCESS, sy_topo_set_source(t, lies[i].claim, "torus"));
        assert_int_equal(lies[i].used, check_generated(t, SY_COST_HOPS, true));
        sy_topo_free(t);
    }
    /* a device cut off: the switch graph is still the torus (closed form
     * into the switch distances), but the rows are no longer in lattice
     * order */
    sy_topo_t *t0 = fab_generate("torus:4x3x3,p=2");
    uint32_t d5, r;
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t0, "n5", &d5));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t0, "r2-0-0", &r));
    uint32_t e0;
    assert_int_equal(PMIX_SUCCESS, sy_topo_find_link(t0, d5, r, &e0));
    assert_int_equal(PMIX_SUCCESS, sy_topo_set_link_state(t0, e0, PMIX_LINK_DOWN));
    assert_true(check_generated(t0, SY_COST_HOPS, true));
    sy_topo_free(t0);

    /* the truth, with one router link down */
    sy_topo_t *t = fab_generate("torus:5x5");
    uint32_t a, b, e;
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, "r0-0", &a));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, "r1-0", &b));
    assert_int_equal(PMIX_SUCCESS, sy_topo_find_link(t, a, b, &e));
    assert_int_equal(PMIX_SUCCESS, sy_topo_set_link_state(t, e, PMIX_LINK_DOWN));
    assert_false(check_generated(t, SY_COST_HOPS, true));
    sy_devindex_t ix;
    assert_int_equal(PMIX_SUCCESS, sy_devindex_build(t, &ix));
    sy_cost_t c = compute(t, &ix, SY_COST_HOPS, SY_COST_ALGO_AUTO, 2);
    /* n0 on r0-0, n1 on r1-0: the detour r0-0 r0-1 r1-1 r1-0 */
    assert_int_equal(5, sy_cost_get(&c, dev(t, &ix, "n0"), dev(t, &ix, "n1")));
    sy_cost_free(&c);
    sy_devindex_free(&ix);
    sy_topo_free(t);
}

/* Generated topologies with random links down (cuts and detours). */
static void test_generated_down(void **state)
{
    (void)state;
    /* fattree:k=12 (72 leaves) and torus:5x5x5 span several 64-switch
     * batches of the bit-parallel search */
    static const char *const specs[] = {"fattree:k=8", "dragonfly:a=4,p=2,h=2,g=9", "torus:4x4x4",
                                        "torus:5x5x5", "fattree:k=12"};
    uint64_t seed = 42;
    for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
        sy_topo_t *t = fab_generate(specs[s]);
        for (uint32_t e = 0; e < t->ne; e++) {
            if (lcg(&seed) % 100 < 15) {
                assert_int_equal(PMIX_SUCCESS, sy_topo_set_link_state(t, e, PMIX_LINK_DOWN));
            }
        }
        check_generated(t, SY_COST_HOPS, true);
        sy_topo_free(t);
    }
}

/* Random graphs with random speeds, some devices multi-homed, some
 * links down, checked against the reference Dijkstra. */
static void test_random_weighted(void **state)
{
    (void)state;
    static const uint64_t speeds[] = {0, 10000000000ull, 25000000000ull, 100000000000ull,
                                      200000000000ull};
    uint64_t seed = 7;
    for (int round = 0; round < 6; round++) {
        bool multi = round >= 3;
        sy_topo_t *t;
        assert_int_equal(PMIX_SUCCESS, sy_topo_new(&t));
        char name[32];
        const uint32_t ns = 24, nd = 50;
        for (uint32_t i = 0; i < nd; i++) { /* devices first: mixed below */
            snprintf(name, sizeof(name), "d%u", i);
            assert_int_equal(PMIX_SUCCESS, sy_topo_add_device(t, name, NULL, NULL, NULL));
        }
        for (uint32_t i = 0; i < ns; i++) {
            snprintf(name, sizeof(name), "s%u", i);
            assert_int_equal(PMIX_SUCCESS, sy_topo_add_switch(t, name, -1, NULL));
        }
        for (uint32_t i = 0; i < ns * 2; i++) {
            uint32_t a = nd + lcg(&seed) % ns, b = nd + lcg(&seed) % ns;
            if (a != b) {
                uint8_t st = lcg(&seed) % 10 == 0 ? PMIX_LINK_DOWN : PMIX_LINK_UP;
                (void)sy_topo_add_link(t, a, b, speeds[lcg(&seed) % 5], st, 0, NULL);
            }
        }
        for (uint32_t d = 0; d < nd; d++) {
            uint32_t links = multi && lcg(&seed) % 4 == 0 ? 2 : 1;
            for (uint32_t k = 0; k < links; k++) {
                uint8_t st = lcg(&seed) % 12 == 0 ? PMIX_LINK_DOWN : PMIX_LINK_UP;
                (void)sy_topo_add_link(t, d, nd + lcg(&seed) % ns, speeds[lcg(&seed) % 5], st, 0,
                                       NULL);
            }
        }
        check_generated(t, SY_COST_SPEED, !multi);
        check_generated(t, SY_COST_HOPS, !multi);
        sy_topo_free(t);
    }
}

static void test_size_cap(void **state)
{
    (void)state;
    sy_topo_t *t = fab_generate("fattree:k=8"); /* 128 devices: 32768 bytes */
    sy_cost_opts_t o = {0};
    sy_cost_t c;
    o.max_bytes = 32767;
    memset(&c, 0xab, sizeof(c));
    assert_int_equal(PMIX_ERR_OUT_OF_RESOURCE, sy_cost_compute(t, NULL, &o, &c));
    assert_null(c.m);
    assert_int_equal(0, c.n);
    o.max_bytes = 32768;
    assert_int_equal(PMIX_SUCCESS, sy_cost_compute(t, NULL, &o, &c));
    assert_int_equal(32768, c.bytes);
    assert_non_null(c.m);
    sy_cost_free(&c);
    sy_topo_free(t);
}

typedef struct {
    int calls;
    uint64_t last_done, total;
    bool monotone;
} progress_t;

static void on_progress(uint64_t done, uint64_t total, void *arg)
{
    progress_t *p = arg;
    if (done < p->last_done) {
        p->monotone = false;
    }
    p->calls++;
    p->last_done = done;
    p->total = total;
}

static void test_progress_and_params(void **state)
{
    (void)state;
    sy_topo_t *t = fab_generate("torus:6x6x6"); /* 216 single-device leaves */
    for (int run = 0; run < 6; run++) {
        int algo = run % 3;
        unsigned nthreads = 1 + run / 3;
        progress_t p = {0, 0, 0, true};
        sy_cost_opts_t o = {0};
        sy_cost_t c;
        o.algo = (sy_cost_algo_t)algo;
        o.nthreads = nthreads;
        o.progress = on_progress;
        o.progress_arg = &p;
        assert_int_equal(PMIX_SUCCESS, sy_cost_compute(t, NULL, &o, &c));
        /* leaf-collapse reports batches of 64 switches; with a second
         * thread the caller may finish few items itself */
        uint64_t want = p.total < 50 ? p.total : 50;
        assert_true(p.calls >= (nthreads == 1 ? (int)want : 1));
        assert_true(p.calls <= 101);
        assert_true(p.monotone);
        assert_int_equal(o.algo == SY_COST_ALGO_SOURCE ? 216 : 4, p.total); /* 216 rows / 64 */
        assert_int_equal(p.total, p.last_done);
        sy_cost_free(&c);
    }
    sy_cost_t c;
    sy_cost_opts_t bad = {0};
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_cost_compute(NULL, NULL, NULL, &c));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_cost_compute(t, NULL, NULL, NULL));
    bad.metric = (sy_cost_metric_t)7;
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_cost_compute(t, NULL, &bad, &c));
    sy_devindex_t wrong = {t->nv + 1, NULL, NULL};
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_cost_compute(t, &wrong, NULL, &c));
    sy_planes_t p;
    sy_peers_t pe;
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_planes_compute(NULL, NULL, &p));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_planes_compute(t, NULL, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_peers_compute(NULL, NULL, &pe));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_peers_compute(t, NULL, NULL));
    sy_cost_free(NULL);
    sy_planes_free(NULL);
    sy_peers_free(NULL);
    sy_topo_free(t);

    /* no devices at all: an empty matrix, no planes */
    assert_int_equal(PMIX_SUCCESS, sy_topo_new(&t));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_switch(t, "lonely", 0, NULL));
    assert_int_equal(PMIX_SUCCESS, sy_cost_compute(t, NULL, NULL, &c));
    assert_int_equal(0, c.n);
    assert_null(c.m);
    sy_cost_free(&c);
    assert_int_equal(PMIX_SUCCESS, sy_planes_compute(t, NULL, &p));
    assert_int_equal(0, p.nplanes);
    sy_planes_free(&p);
    assert_int_equal(PMIX_SUCCESS, sy_peers_compute(t, NULL, &pe));
    assert_int_equal(0, pe.nswitches);
    sy_peers_free(&pe);
    sy_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devindex),          cmocka_unit_test(test_two_leaf_tree),
        cmocka_unit_test(test_slurm_multihomed),  cmocka_unit_test(test_two_planes),
        cmocka_unit_test(test_multihomed_bridge), cmocka_unit_test(test_down_links),
        cmocka_unit_test(test_weighted),          cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_generated),         cmocka_unit_test(test_torus_claims),
        cmocka_unit_test(test_generated_down),    cmocka_unit_test(test_random_weighted),
        cmocka_unit_test(test_size_cap),          cmocka_unit_test(test_progress_and_params),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
