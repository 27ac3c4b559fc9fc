/* Unit test: device coordinates, dims and shape (src/fabric/coords.c).
 * Small inputs against hand-worked vectors; generated fabrics against
 * their construction; uniqueness and an independent BFS as properties. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmix_common.h>

#include "fabric/coords.h"
#include "fabric/devindex.h"
#include "fabric/topo.h"
#include "fabric_fixtures.h"

/* ------------------------------------------------------------ helpers */

static sy_coords_t coords_ok(const fab_t *f, pmix_coord_view_t view)
{
    sy_coords_t c;
    assert_int_equal(PMIX_SUCCESS, sy_coords_compute(f->t, &f->ix, view, &c));
    assert_int_equal(f->ix.ndev, c.ndev);
    return c;
}

static const uint32_t *vec(const sy_coords_t *c, uint32_t d)
{
    return c->coord + (size_t)d * c->dims;
}

static void expect_vec(const sy_coords_t *c, uint32_t d, uint32_t x, uint32_t y, uint32_t z)
{
    assert_int_equal(3, c->dims);
    const uint32_t *v = vec(c, d);
    if (v[0] != x || v[1] != y || v[2] != z) {
        fprintf(stderr, "device %u: (%u,%u,%u), expected (%u,%u,%u)\n", d, v[0], v[1], v[2], x, y,
                z);
        fail();
    }
}

static void expect_shape(const sy_coords_t *c, const char *want)
{
    char *s = NULL;
    uint32_t *shape = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_coords_shape(c, NULL, 0, &shape, &s));
    assert_string_equal(want, s);
    free(s);
    free(shape);
}

/* Independent O(n²) uniqueness check. */
static void check_unique(const sy_coords_t *c)
{
    for (uint32_t i = 0; i < c->ndev; i++) {
        for (uint32_t j = i + 1; j < c->ndev; j++) {
            assert_memory_not_equal(vec(c, i), vec(c, j), c->dims * sizeof(uint32_t));
        }
    }
}

/* ------------------------------------------------------ hand-checked */

static void test_coords_small_tree(void **state)
{
    (void)state;
    /* Two leaves under one top switch: pods are the leaves.
     * Devices a b c d e(multi-homed) f(down to s0) g(isolated). */
    fab_t f = fab_native("switch s0\nswitch s1\nswitch top\n"
                         "device a\ndevice b\ndevice c\ndevice d\ndevice e\ndevice f\ndevice g\n"
                         "link a s0\nlink b s1\nlink c s0\nlink d s1\nlink e s1\nlink e s0\n"
                         "link f s0 state=down\nlink f s1\nlink s0 top\nlink s1 top\n");
    sy_coords_t c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    assert_int_equal(SY_COORDS_TREE, c.method);
    assert_int_equal(PMIX_COORD_LOGICAL_VIEW, c.view);
    expect_vec(&c, 0, 0, 0, 0); /* a */
    expect_vec(&c, 1, 1, 0, 0); /* b */
    expect_vec(&c, 2, 0, 0, 1); /* c */
    expect_vec(&c, 3, 1, 0, 1); /* d */
    expect_vec(&c, 4, 0, 0, 2); /* e: first attachment s0 */
    expect_vec(&c, 5, 1, 0, 2); /* f */
    expect_vec(&c, 6, 2, 0, 0); /* g: no switch */
    expect_shape(&c, "3x1x3");
    pmix_coord_t pc;
    assert_int_equal(PMIX_SUCCESS, sy_coords_get(&c, 4, &pc));
    assert_int_equal(PMIX_COORD_LOGICAL_VIEW, pc.view);
    assert_int_equal(3, pc.dims);
    assert_int_equal(0, pc.coord[0]);
    assert_int_equal(2, pc.coord[2]);
    free(pc.coord);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_coords_get(&c, 7, &pc));
    uint32_t sub[2] = {1, 3};
    uint32_t *shape = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_coords_shape(&c, sub, 2, &shape, NULL));
    assert_int_equal(2, shape[0]);
    assert_int_equal(1, shape[1]);
    assert_int_equal(2, shape[2]);
    free(shape);
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_coords_shape(&c, sub, 0, &shape, NULL));
    sub[0] = 99;
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_coords_shape(&c, sub, 1, &shape, NULL));
    sy_coords_free(&c);

    /* PHYSICAL: a native file places nothing; never a copy of the logical */
    sy_coords_t p;
    assert_int_equal(PMIX_ERR_NOT_FOUND,
                     sy_coords_compute(f.t, &f.ix, PMIX_COORD_PHYSICAL_VIEW, &p));
    assert_null(p.coord);
    c = coords_ok(&f, PMIX_COORD_VIEW_UNDEF);
    assert_int_equal(PMIX_COORD_LOGICAL_VIEW, c.view);
    sy_coords_free(&c);
    fab_free(&f);
}

static void test_coords_files(void **state)
{
    (void)state;
    /* Slurm: leaf0 {node001-004, tux1,2,3,5}, leaf1 {node005-008}. */
    fab_t f = fab_file("slurm_2leaf.conf");
    sy_coords_t c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    assert_int_equal(SY_COORDS_TREE, c.method);
    for (uint32_t d = 0; d < 8; d++) {
        expect_vec(&c, d, 0, 0, d);
    }
    for (uint32_t d = 8; d < 12; d++) {
        expect_vec(&c, d, 1, 0, d - 8);
    }
    expect_shape(&c, "2x1x8");
    sy_coords_free(&c);
    /* physical: (leaf, slot) as topology.conf places the nodes; node001,
     * under both leaves, counts under the first */
    c = coords_ok(&f, PMIX_COORD_PHYSICAL_VIEW);
    assert_int_equal(PMIX_COORD_PHYSICAL_VIEW, c.view);
    assert_int_equal(2, c.dims);
    for (uint32_t d = 0; d < 8; d++) {
        assert_int_equal(0, vec(&c, d)[0]);
        assert_int_equal(d, vec(&c, d)[1]);
    }
    for (uint32_t d = 8; d < 12; d++) {
        assert_int_equal(1, vec(&c, d)[0]);
        assert_int_equal(d - 8, vec(&c, d)[1]);
    }
    sy_coords_free(&c);
    fab_free(&f);

    /* ibnetdiscover: two linked leaves, a single level and no group
     * structure -> BFS from node01: node01 0, leaf0 1, node02 and leaf1
     * 2, node03/node04 3. */
    f = fab_file("ibnet_default.topo");
    c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    assert_int_equal(SY_COORDS_BFS, c.method);
    expect_vec(&c, 0, 0, 0, 0);
    expect_vec(&c, 1, 0, 2, 0);
    expect_vec(&c, 2, 0, 3, 0);
    expect_vec(&c, 3, 0, 3, 1);
    sy_coords_free(&c);
    /* a capture places nothing */
    assert_int_equal(PMIX_ERR_NOT_FOUND,
                     sy_coords_compute(f.t, &f.ix, PMIX_COORD_PHYSICAL_VIEW, &c));
    fab_free(&f);

    /* Two rails: n0-r0 n1-r0 on sw0, n0-r1 on sw1, n1-r1 cut off. */
    f = fab_file("native_2plane.topo");
    c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    assert_int_equal(SY_COORDS_TREE, c.method);
    expect_vec(&c, 0, 0, 0, 0);
    expect_vec(&c, 1, 0, 0, 1);
    expect_vec(&c, 2, 1, 0, 0);
    expect_vec(&c, 3, 2, 0, 0);
    char *s = NULL;
    uint32_t *shape = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_coords_plane_shape(&c, f.t, &f.ix, 0, &shape, &s));
    assert_string_equal("1x1x2", s);
    free(s);
    free(shape);
    assert_int_equal(PMIX_SUCCESS, sy_coords_plane_shape(&c, f.t, &f.ix, 1, NULL, &s));
    assert_string_equal("3x1x1", s);
    free(s);
    assert_int_equal(PMIX_SUCCESS, sy_coords_plane_shape(&c, f.t, &f.ix, SY_TOPO_NONE, NULL, &s));
    assert_string_equal("3x1x2", s);
    free(s);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_coords_plane_shape(&c, f.t, &f.ix, 2, NULL, &s));
    sy_coords_free(&c);
    fab_free(&f);
}

static void test_coords_bfs_fallback(void **state)
{
    (void)state;
    /* A 4-clique of switches clusters but does not split: BFS coordinates.
     * d0..d3 on s0..s3; d4 isolated; d5 only behind a down link. */
    fab_t f =
        fab_native("switch s0\nswitch s1\nswitch s2\nswitch s3\n"
                   "device d0\ndevice d1\ndevice d2\ndevice d3\ndevice d4\ndevice d5\n"
                   "link d0 s0\nlink d1 s1\nlink d2 s2\nlink d3 s3\n"
                   "link d5 s3 state=down\n"
                   "link s0 s1\nlink s0 s2\nlink s0 s3\nlink s1 s2\nlink s1 s3\nlink s2 s3\n");
    sy_coords_t c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    assert_int_equal(SY_COORDS_BFS, c.method);
    expect_vec(&c, 0, 0, 0, 0);
    expect_vec(&c, 1, 0, 3, 0);
    expect_vec(&c, 2, 0, 3, 1);
    expect_vec(&c, 3, 0, 3, 2);
    expect_vec(&c, 4, 1, 0, 0);
    expect_vec(&c, 5, 2, 0, 0);
    expect_shape(&c, "3x4x3");
    sy_coords_free(&c);
    fab_free(&f);
}

/* --------------------------------------------------------- generated */

static void test_coords_torus(void **state)
{
    (void)state;
    fab_t f = fab_gen("torus:3x3x3");
    sy_coords_t c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    assert_int_equal(SY_COORDS_TORUS, c.method);
    for (uint32_t d = 0; d < 27; d++) {
        expect_vec(&c, d, d % 3, (d / 3) % 3, d / 9);
    }
    expect_shape(&c, "3x3x3");
    sy_coords_free(&c);
    /* physical: the lattice itself */
    c = coords_ok(&f, PMIX_COORD_PHYSICAL_VIEW);
    assert_int_equal(PMIX_COORD_PHYSICAL_VIEW, c.view);
    for (uint32_t d = 0; d < 27; d++) {
        expect_vec(&c, d, d % 3, (d / 3) % 3, d / 9);
    }
    sy_coords_free(&c);
    fab_free(&f);

    /* Two devices per router: the port becomes a fourth dimension. */
    f = fab_gen("torus:4x2,p=2");
    c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    assert_int_equal(SY_COORDS_TORUS, c.method);
    for (uint32_t d = 0; d < 16; d++) {
        uint32_t r = d / 2;
        expect_vec(&c, d, r % 4, r / 4, d % 2);
    }
    expect_shape(&c, "4x2x2");
    sy_coords_free(&c);
    fab_free(&f);

    /* Property: along every router link the two routers' devices differ
     * by +-1 (mod D) in exactly one lattice coordinate. */
    f = fab_gen("torus:5x4x3x2");
    c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    assert_int_equal(4, c.dims);
    const uint32_t dim[4] = {5, 4, 3, 2};
    uint32_t nd = f.ix.ndev;
    for (uint32_t e = 0; e < f.t->ne; e++) {
        uint32_t a = f.t->e[e].a, b = f.t->e[e].b;
        if (a < nd || b < nd) {
            continue; /* device link */
        }
        /* with p=1 device i sits on router nd+i */
        const uint32_t *x = vec(&c, a - nd), *y = vec(&c, b - nd);
        int diff = 0;
        for (uint32_t k = 0; k < 4; k++) {
            if (x[k] != y[k]) {
                diff++;
                assert_true((x[k] + 1) % dim[k] == y[k] || (y[k] + 1) % dim[k] == x[k]);
            }
        }
        assert_int_equal(1, diff);
    }
    check_unique(&c);
    sy_coords_free(&c);
    fab_free(&f);
}

static void test_coords_fattree(void **state)
{
    (void)state;
    fab_t f = fab_gen("fattree:k=4");
    sy_coords_t c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    assert_int_equal(SY_COORDS_TREE, c.method);
    for (uint32_t d = 0; d < 16; d++) {
        expect_vec(&c, d, d / 4, (d / 2) % 2, d % 2);
    }
    expect_shape(&c, "4x2x2");
    sy_coords_free(&c);
    fab_free(&f);

    f = fab_gen("fattree:k=16");
    c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    for (uint32_t d = 0; d < c.ndev; d++) {
        expect_vec(&c, d, d / 64, (d / 8) % 8, d % 8);
    }
    check_unique(&c);
    sy_coords_free(&c);
    fab_free(&f);
}

static void test_coords_dragonfly(void **state)
{
    (void)state;
    fab_t f = fab_gen("dragonfly:a=4,p=2,h=2,g=9");
    sy_coords_t c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    assert_int_equal(SY_COORDS_DRAGONFLY, c.method);
    for (uint32_t d = 0; d < 72; d++) {
        expect_vec(&c, d, d / 8, (d / 2) % 4, d % 2);
    }
    expect_shape(&c, "9x4x2");
    sy_coords_free(&c);
    /* physical: (group, router, port) from the routers' names */
    c = coords_ok(&f, PMIX_COORD_PHYSICAL_VIEW);
    for (uint32_t d = 0; d < 72; d++) {
        expect_vec(&c, d, d / 8, (d / 2) % 4, d % 2);
    }
    sy_coords_free(&c);
    fab_free(&f);

    f = fab_gen("dragonfly:a=8,p=4,h=4,g=33");
    c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    assert_int_equal(SY_COORDS_DRAGONFLY, c.method);
    for (uint32_t d = 0; d < c.ndev; d++) {
        expect_vec(&c, d, d / 32, (d / 4) % 8, d % 4);
    }
    check_unique(&c);
    sy_coords_free(&c);
    fab_free(&f);
}

/* A torus that did not come from the generator (renamed routers): no
 * native order, so BFS coordinates; checked against a plain BFS here. */
static void test_coords_bfs_property(void **state)
{
    (void)state;
    const uint32_t X = 6, Y = 5, N = X * Y;
    size_t cap = 64 * 1024, off = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (uint32_t i = 0; i < N; i++) {
        off += (size_t)snprintf(buf + off, cap - off, "device h%u\n", i);
    }
    for (uint32_t i = 0; i < N; i++) {
        off += (size_t)snprintf(buf + off, cap - off, "switch q%u\nlink h%u q%u\n", i, i, i);
    }
    for (uint32_t i = 0; i < N; i++) {
        uint32_t x = i % X, y = i / X;
        off += (size_t)snprintf(buf + off, cap - off, "link q%u q%u\nlink q%u q%u\n", i,
                                y * X + (x + 1) % X, i, ((y + 1) % Y) * X + x);
    }
    fab_t f = fab_native(buf);
    free(buf);
    sy_coords_t c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
    assert_int_equal(SY_COORDS_BFS, c.method);
    check_unique(&c);
    /* Layer of device i = 2 + torus distance between routers 0 and i
     * (device-router-...-router-device), 0 for the root. */
    for (uint32_t i = 0; i < N; i++) {
        uint32_t x = i % X, y = i / X;
        uint32_t dx = x < X - x ? x : X - x, dy = y < Y - y ? y : Y - y;
        uint32_t want = i ? 2 + dx + dy : 0;
        assert_int_equal(0, vec(&c, i)[0]);
        assert_int_equal(want, vec(&c, i)[1]);
    }
    /* ordinals count up in device order within a layer */
    for (uint32_t i = 0; i < N; i++) {
        uint32_t before = 0;
        for (uint32_t j = 0; j < i; j++) {
            before += vec(&c, j)[1] == vec(&c, i)[1];
        }
        assert_int_equal(before, vec(&c, i)[2]);
    }
    sy_coords_free(&c);
    fab_free(&f);
}

/* Random multi-component graphs with down links and multi-homed devices:
 * coordinates are unique, and (component, layer) match a plain BFS
 * written here (devices do not forward). */
static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static void test_coords_random_property(void **state)
{
    (void)state;
    for (uint64_t round = 0; round < 4; round++) {
        uint64_t seed = 99 + round;
        const uint32_t nsw = 60, ndev = 150;
        size_t cap = 256 * 1024, off = 0;
        char *buf = malloc(cap);
        assert_non_null(buf);
        for (uint32_t i = 0; i < ndev; i++) {
            off += (size_t)snprintf(buf + off, cap - off, "device d%u\n", i);
        }
        for (uint32_t i = 0; i < nsw; i++) {
            off += (size_t)snprintf(buf + off, cap - off, "switch s%u\n", i);
        }
        for (uint32_t i = 0; i < ndev; i++) {
            uint32_t k = (uint32_t)(lcg(&seed) % 3); /* 0..2 attachments */
            for (uint32_t j = 0; j < k; j++) {
                off += (size_t)snprintf(buf + off, cap - off, "link d%u s%u%s\n", i,
                                        (uint32_t)(lcg(&seed) % nsw),
                                        lcg(&seed) % 7 ? "" : " state=down");
            }
        }
        for (uint32_t i = 0; i < nsw; i++) {
            uint32_t a = (uint32_t)(lcg(&seed) % nsw);
            if (a != i) {
                off += (size_t)snprintf(buf + off, cap - off, "link s%u s%u%s\n", i, a,
                                        lcg(&seed) % 5 ? "" : " state=down");
            }
        }
        fab_t f = fab_native(buf);
        free(buf);
        sy_coords_t c = coords_ok(&f, PMIX_COORD_LOGICAL_VIEW);
        check_unique(&c);
        sy_coords_free(&c);
        assert_int_equal(PMIX_ERR_NOT_SUPPORTED,
                         sy_coords_compute_method(f.t, &f.ix, 0, SY_COORDS_TORUS, &c));
        assert_int_equal(PMIX_SUCCESS,
                         sy_coords_compute_method(f.t, &f.ix, 0, SY_COORDS_DRAGONFLY, &c));
        assert_int_equal(SY_COORDS_DRAGONFLY, c.method);
        check_unique(&c);
        sy_coords_free(&c);
        assert_int_equal(PMIX_SUCCESS, sy_coords_compute_method(f.t, &f.ix, 0, SY_COORDS_BFS, &c));
        assert_int_equal(SY_COORDS_BFS, c.method);
        check_unique(&c);
        {
            /* independent BFS per component root */
            sy_topo_t *t = f.t;
            uint32_t *dist = malloc(t->nv * sizeof(uint32_t));
            uint32_t *q = malloc(t->nv * sizeof(uint32_t));
            uint32_t *comp = malloc(t->nv * sizeof(uint32_t));
            assert_true(dist && q && comp);
            for (uint32_t v = 0; v < t->nv; v++) {
                comp[v] = UINT32_MAX;
            }
            uint32_t nc = 0;
            for (uint32_t d = 0; d < f.ix.ndev; d++) {
                uint32_t root = f.ix.dev_to_vertex[d];
                if (UINT32_MAX != comp[root]) {
                    continue;
                }
                size_t h = 0, tl = 0;
                q[tl++] = root;
                comp[root] = nc;
                dist[root] = 0;
                while (h < tl) {
                    uint32_t v = q[h++];
                    if (t->v[v].kind == SY_TOPO_DEVICE && v != root) {
                        continue;
                    }
                    for (uint32_t e = 0; e < t->ne; e++) {
                        uint32_t u;
                        if (t->e[e].state == PMIX_LINK_DOWN) {
                            continue;
                        }
                        if (t->e[e].a == v) {
                            u = t->e[e].b;
                        } else if (t->e[e].b == v) {
                            u = t->e[e].a;
                        } else {
                            continue;
                        }
                        if (UINT32_MAX == comp[u]) {
                            comp[u] = nc;
                            dist[u] = dist[v] + 1;
                            q[tl++] = u;
                        }
                    }
                }
                nc++;
            }
            for (uint32_t d = 0; d < f.ix.ndev; d++) {
                uint32_t v = f.ix.dev_to_vertex[d];
                assert_int_equal(comp[v], vec(&c, d)[0]);
                assert_int_equal(dist[v], vec(&c, d)[1]);
            }
            free(dist);
            free(q);
            free(comp);
        }
        sy_coords_free(&c);
        fab_free(&f);
    }
}

/* ------------------------------------------------------------- errors */

static void test_coords_bad_input(void **state)
{
    (void)state;
    sy_coords_t c;
    fab_t f = fab_gen("fattree:k=2");
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_coords_compute(NULL, &f.ix, 0, &c));
    assert_null(c.coord);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_coords_compute(f.t, NULL, 0, &c));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_coords_compute(f.t, &f.ix, 0, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_coords_compute(f.t, &f.ix, 7, &c));
    assert_int_equal(PMIX_ERR_BAD_PARAM,
                     sy_coords_compute_method(f.t, &f.ix, 0, (sy_coords_method_t)9, &c));
    sy_devindex_t bad = f.ix;
    bad.ndev = 1;
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_coords_compute(f.t, &bad, 0, &c));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_coords_shape(NULL, NULL, 0, NULL, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_coords_get(NULL, 0, NULL));
    fab_free(&f);

    sy_topo_t *t = NULL;
    sy_devindex_t ix;
    assert_int_equal(PMIX_SUCCESS, sy_topo_new(&t));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_device(t, "x", NULL, NULL, NULL));
    assert_int_equal(PMIX_SUCCESS, sy_devindex_build(t, &ix));
    assert_int_equal(PMIX_ERR_NOT_AVAILABLE, sy_coords_compute(t, &ix, 0, &c));
    sy_devindex_free(&ix);
    sy_topo_free(t);

    /* Empty topology: zero devices, nothing to shape. */
    assert_int_equal(PMIX_SUCCESS, sy_topo_new(&t));
    assert_int_equal(PMIX_SUCCESS, sy_topo_finalize(t));
    assert_int_equal(PMIX_SUCCESS, sy_devindex_build(t, &ix));
    assert_int_equal(PMIX_SUCCESS, sy_coords_compute(t, &ix, 0, &c));
    assert_int_equal(0, c.ndev);
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_coords_shape(&c, NULL, 0, NULL, NULL));
    sy_coords_free(&c);
    sy_coords_free(NULL);
    sy_devindex_free(&ix);
    sy_topo_free(t);

    /* A "torus" whose spec does not match its routers falls back. */
    f = fab_gen("torus:4x4");
    free(f.t->source);
    f.t->source = strdup("torus:2x2");
    assert_non_null(f.t->source);
    c = coords_ok(&f, 0);
    assert_int_not_equal(SY_COORDS_TORUS, c.method);
    check_unique(&c);
    sy_coords_free(&c);
    fab_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coords_small_tree),   cmocka_unit_test(test_coords_files),
        cmocka_unit_test(test_coords_bfs_fallback), cmocka_unit_test(test_coords_torus),
        cmocka_unit_test(test_coords_fattree),      cmocka_unit_test(test_coords_dragonfly),
        cmocka_unit_test(test_coords_bfs_property), cmocka_unit_test(test_coords_random_property),
        cmocka_unit_test(test_coords_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
