/* Unit test: switch levels (src/fabric/levels.c), switch partitions
 * (structure.c), fabric groups and the PMIX_FABRIC_GROUPS string
 * (groups.c), the seeded igraph community fallback (community.c) and the
 * igraph guard (igraph_guard.c).  Small inputs are checked against values
 * worked out by hand; generated fabrics against their construction. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmix_common.h>

#include "fabric/devindex.h"
#include "fabric/groups.h"
#include "fabric/igraph_guard.h"
#include "fabric/levels.h"
#include "fabric/structure.h"
#include "fabric/topo.h"
#include "fabric_fixtures.h"

/* ------------------------------------------------------------ helpers */

static sy_groups_t groups_ok(const fab_t *f, const sy_groups_opts_t *o)
{
    sy_groups_t g;
    assert_int_equal(PMIX_SUCCESS, sy_groups_compute(f->t, &f->ix, o, &g));
    assert_int_equal(f->ix.ndev, g.ndev);
    return g;
}

/* Parse a PMIX_FABRIC_GROUPS string back: group ids must run 0, 1, ...
 * in order, names are separated by ',' and groups by ';'.  Returns the
 * group of `name` in `want`, or -1. */
static int parse_group_of(const char *str, const char *name)
{
    int found = -1;
    char *copy = strdup(str);
    assert_non_null(copy);
    char *save = NULL;
    int expect = 0;
    for (char *grp = strtok_r(copy, ";", &save); grp; grp = strtok_r(NULL, ";", &save), expect++) {
        char *colon = strchr(grp, ':');
        assert_non_null(colon);
        *colon = '\0';
        char *end = NULL;
        long id = strtol(grp, &end, 10);
        assert_true('\0' == *end && grp != end);
        assert_int_equal(expect, id);
        char *s2 = NULL;
        int members = 0;
        for (char *n = strtok_r(colon + 1, ",", &s2); n; n = strtok_r(NULL, ",", &s2)) {
            members++;
            if (strcmp(n, name) == 0) {
                assert_int_equal(-1, found); /* listed once */
                found = (int)id;
            }
        }
        assert_true(members > 0);
    }
    free(copy);
    return found;
}

/* Every device name appears exactly once, in its own group. */
static void check_string_devices(const fab_t *f, const sy_groups_t *g)
{
    assert_non_null(g->str);
    for (uint32_t d = 0; d < g->ndev; d++) {
        const char *name = f->t->v[f->ix.dev_to_vertex[d]].name;
        assert_int_equal((int)g->group[d], parse_group_of(g->str, name));
    }
}

/* ------------------------------------------------------------- levels */

static const char *small_tree = "switch s0\n"
                                "switch s1\n"
                                "switch top\n"
                                "device a host=ha\n"
                                "device b host=hb\n"
                                "device c host=hc\n"
                                "device d host=hd\n"
                                "device e host=he\n" /* multi-homed: s1 and s0, first = s0 */
                                "device f host=hf\n" /* down to s0, up to s1 */
                                "device g host=hg\n" /* isolated */
                                "device h host=ha\n" /* second NIC of host ha, on s0 */
                                "link a s0\nlink b s1\nlink c s0\nlink d s1\n"
                                "link e s1\nlink e s0\n"
                                "link f s0 state=down\nlink f s1\n"
                                "link h s0\n"
                                "link s0 top\nlink s1 top\n";

static void test_levels(void **state)
{
    (void)state;
    fab_t f = fab_native(small_tree);
    sy_levels_t lv;
    assert_int_equal(PMIX_SUCCESS, sy_levels_compute(f.t, &lv));
    assert_false(lv.from_input);
    assert_int_equal(1, lv.max_level);
    assert_int_equal(0, lv.level[0]);
    assert_int_equal(0, lv.level[1]);
    assert_int_equal(1, lv.level[2]);
    assert_int_equal(-1, lv.level[3]); /* devices */
    assert_int_equal(0, lv.attach[3]); /* a -> s0 */
    assert_int_equal(1, lv.attach[4]); /* b -> s1 */
    assert_int_equal(0, lv.attach[7]); /* e -> s0 (first) */
    assert_int_equal(1, lv.attach[8]); /* f: s0 link is down */
    assert_int_equal(SY_TOPO_NONE, lv.attach[9]);
    assert_int_equal(SY_TOPO_NONE, lv.attach[0]);
    sy_levels_free(&lv);
    fab_free(&f);

    /* Levels given by the input win over BFS: here the top is declared 5. */
    f = fab_native("switch l0 level=0\nswitch up level=5\ndevice x\nlink x l0\nlink l0 up\n");
    assert_int_equal(PMIX_SUCCESS, sy_levels_compute(f.t, &lv));
    assert_true(lv.from_input);
    assert_int_equal(5, lv.level[1]);
    assert_int_equal(5, lv.max_level);
    sy_levels_free(&lv);
    fab_free(&f);

    /* fat tree: edge 0, agg 1, core 2, the generator's levels. */
    f = fab_gen("fattree:k=4");
    assert_int_equal(PMIX_SUCCESS, sy_levels_compute(f.t, &lv));
    assert_int_equal(2, lv.max_level);
    assert_int_equal(0, lv.level[16]);
    assert_int_equal(1, lv.level[16 + 8]);
    assert_int_equal(2, lv.level[16 + 16]);
    sy_levels_free(&lv);
    fab_free(&f);

    /* Unfinalized topology and bad parameters. */
    sy_topo_t *t = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_topo_new(&t));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_device(t, "x", NULL, NULL, NULL));
    assert_int_equal(PMIX_ERR_NOT_AVAILABLE, sy_levels_compute(t, &lv));
    assert_null(lv.level);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_levels_compute(NULL, &lv));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_levels_compute(t, NULL));
    sy_topo_free(t);
    sy_levels_free(NULL);
}

/* ------------------------------------------------------ hand-checked */

static void test_groups_small_tree(void **state)
{
    (void)state;
    fab_t f = fab_native(small_tree);
    /* Devices a..h are device indices 0..7.  Two levels: AUTO = LEAF. */
    sy_groups_t g = groups_ok(&f, NULL);
    assert_int_equal(SY_GROUPS_LEAF, g.method);
    static const uint32_t want[8] = {0, 1, 0, 1, 0, 1, 2, 0};
    assert_int_equal(3, g.ngroups);
    assert_memory_equal(want, g.group, sizeof(want));
    /* Hosts, each once per group (h is a second NIC of ha). */
    assert_string_equal("0:ha,hc,he;1:hb,hd,hf;2:hg", g.str);
    sy_groups_free(&g);

    sy_groups_opts_t o = {.names = SY_GROUPS_NAMES_DEVICE};
    g = groups_ok(&f, &o);
    assert_string_equal("0:a,c,e,h;1:b,d,f;2:g", g.str);
    check_string_devices(&f, &g);
    sy_groups_free(&g);

    /* POD drops the top switch: the two leaves stay apart. */
    o.method = SY_GROUPS_POD;
    g = groups_ok(&f, &o);
    assert_int_equal(SY_GROUPS_POD, g.method);
    assert_memory_equal(want, g.group, sizeof(want));
    sy_groups_free(&g);
    /* tree_mode POD through AUTO gives the same. */
    o.method = SY_GROUPS_AUTO;
    o.tree_mode = SY_GROUPS_TREE_POD;
    g = groups_ok(&f, &o);
    assert_int_equal(SY_GROUPS_POD, g.method);
    sy_groups_free(&g);
    fab_free(&f);
}

static void test_groups_files(void **state)
{
    (void)state;
    /* Slurm: node001 is under leaf0 and leaf1; leaf0 comes first. */
    fab_t f = fab_file("slurm_2leaf.conf");
    sy_groups_t g = groups_ok(&f, NULL);
    assert_int_equal(SY_GROUPS_LEAF, g.method);
    assert_int_equal(2, g.ngroups);
    assert_string_equal("0:node001,node002,node003,node004,tux1,tux2,tux3,tux5;"
                        "1:node005,node006,node007,node008",
                        g.str);
    sy_groups_free(&g);
    fab_free(&f);

    /* ibnetdiscover: two linked leaves, one level: LEAF. */
    f = fab_file("ibnet_default.topo");
    g = groups_ok(&f, NULL);
    assert_int_equal(SY_GROUPS_LEAF, g.method);
    assert_string_equal("0:node01,node02;1:node03,node04", g.str);
    sy_groups_opts_t o = {.names = SY_GROUPS_NAMES_DEVICE};
    sy_groups_free(&g);
    g = groups_ok(&f, &o);
    assert_string_equal("0:0x0000000000100011,0x0000000000100021;"
                        "1:0x0000000000100031,0x0000000000100041",
                        g.str);
    sy_groups_free(&g);
    fab_free(&f);

    /* Two rails; n1-r1's only link is down, so it is alone. */
    f = fab_file("native_2plane.topo");
    g = groups_ok(&f, NULL);
    assert_int_equal(3, g.ngroups);
    assert_string_equal("0:n0,n1;1:n0;2:n1", g.str);
    sy_groups_free(&g);
    g = groups_ok(&f, &o);
    assert_string_equal("0:n0-r0,n1-r0;1:n0-r1;2:n1-r1", g.str);
    check_string_devices(&f, &g);
    sy_groups_free(&g);
    fab_free(&f);
}

static void test_groups_unwritable_names(void **state)
{
    (void)state;
    fab_t f = fab_native("switch s\ndevice a,b\ndevice c\nlink a,b s\nlink c s\n");
    sy_groups_opts_t o = {.names = SY_GROUPS_NAMES_DEVICE};
    sy_groups_t g = groups_ok(&f, &o);
    assert_null(g.str);
    assert_int_equal(1, g.ngroups);
    assert_int_equal(0, g.group[1]);
    sy_groups_free(&g);
    fab_free(&f);
}

/* --------------------------------------------------------- generated */

static void test_groups_fattree(void **state)
{
    (void)state;
    fab_t f = fab_gen("fattree:k=4");
    sy_groups_t g = groups_ok(&f, NULL);
    assert_int_equal(SY_GROUPS_POD, g.method);
    assert_int_equal(4, g.ngroups);
    for (uint32_t d = 0; d < 16; d++) {
        assert_int_equal(d / 4, g.group[d]);
    }
    assert_string_equal("0:n0,n1,n2,n3;1:n4,n5,n6,n7;2:n8,n9,n10,n11;3:n12,n13,n14,n15", g.str);
    sy_groups_free(&g);

    sy_groups_opts_t o = {.tree_mode = SY_GROUPS_TREE_LEAF};
    g = groups_ok(&f, &o);
    assert_int_equal(SY_GROUPS_LEAF, g.method);
    assert_int_equal(8, g.ngroups);
    for (uint32_t d = 0; d < 16; d++) {
        assert_int_equal(d / 2, g.group[d]);
    }
    check_string_devices(&f, &g);
    sy_groups_free(&g);
    fab_free(&f);

    /* Larger: k pods of k²/4. */
    f = fab_gen("fattree:k=12");
    g = groups_ok(&f, NULL);
    assert_int_equal(12, g.ngroups);
    for (uint32_t d = 0; d < g.ndev; d++) {
        assert_int_equal(d / 36, g.group[d]);
    }
    check_string_devices(&f, &g);
    sy_groups_free(&g);
    fab_free(&f);
}

static void test_groups_dragonfly(void **state)
{
    (void)state;
    fab_t f = fab_gen("dragonfly:a=4,p=2,h=2,g=9");
    sy_groups_t g = groups_ok(&f, NULL);
    assert_int_equal(SY_GROUPS_TRIANGLE, g.method);
    assert_int_equal(9, g.ngroups);
    for (uint32_t d = 0; d < 72; d++) {
        assert_int_equal(d / 8, g.group[d]);
    }
    check_string_devices(&f, &g);
    sy_groups_free(&g);
    fab_free(&f);

    /* Unbalanced (two cables per group pair) and bigger. */
    f = fab_gen("dragonfly:a=8,p=4,h=4,g=17");
    g = groups_ok(&f, NULL);
    assert_int_equal(SY_GROUPS_TRIANGLE, g.method);
    assert_int_equal(17, g.ngroups);
    for (uint32_t d = 0; d < g.ndev; d++) {
        assert_int_equal(d / 32, g.group[d]);
    }
    sy_groups_free(&g);
    fab_free(&f);
}

static void test_groups_torus(void **state)
{
    (void)state;
    /* A torus has no group structure: devices sharing a router. */
    fab_t f = fab_gen("torus:3x3x3");
    sy_groups_t g = groups_ok(&f, NULL);
    assert_int_equal(SY_GROUPS_LEAF, g.method);
    assert_int_equal(27, g.ngroups);
    sy_groups_free(&g);
    fab_free(&f);
    f = fab_gen("torus:4x4,p=3");
    g = groups_ok(&f, NULL);
    assert_int_equal(SY_GROUPS_LEAF, g.method);
    assert_int_equal(16, g.ngroups);
    for (uint32_t d = 0; d < g.ndev; d++) {
        assert_int_equal(d / 3, g.group[d]);
    }
    sy_groups_free(&g);
    fab_free(&f);
}

/* ---------------------------------------------------- igraph fallback */

/* A reproducible pseudo-random graph: nsw switches, each with one device,
 * `deg` random switch links each, plus a ring so it is connected. */
static fab_t random_graph(uint32_t nsw, uint32_t deg, uint64_t seed)
{
    size_t cap = (size_t)nsw * (deg + 4) * 32 + 1024, off = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (uint32_t i = 0; i < nsw; i++) {
        off += (size_t)snprintf(buf + off, cap - off, "device d%u\nswitch s%u\nlink d%u s%u\n", i,
                                i, i, i);
    }
    for (uint32_t i = 0; i < nsw; i++) {
        off += (size_t)snprintf(buf + off, cap - off, "link s%u s%u\n", i, (i + 1) % nsw);
        for (uint32_t k = 0; k < deg; k++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            uint32_t j = (uint32_t)((seed >> 33) % nsw);
            if (j != i && j != (i + 1) % nsw && i != (j + 1) % nsw) {
                off += (size_t)snprintf(buf + off, cap - off, "link s%u s%u\n", i, j);
            }
        }
    }
    fab_t f = {0};
    char *err = NULL;
    /* Repeated links are parallel cables: accepted by the native reader. */
    pmix_status_t rc = sy_topo_load_buffer(buf, off, "random", "native", NULL, &f.t, &err);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "random: %s\n", err ? err : "?");
    }
    assert_int_equal(PMIX_SUCCESS, rc);
    free(buf);
    fab_finish(&f);
    return f;
}

static void test_groups_community(void **state)
{
    (void)state;
    /* Leiden finds the dragonfly groups too. */
    fab_t f = fab_gen("dragonfly:a=4,p=2,h=2,g=9");
    sy_groups_opts_t o = {.method = SY_GROUPS_COMMUNITY};
    sy_groups_t g = groups_ok(&f, &o);
    assert_int_equal(SY_GROUPS_COMMUNITY, g.method);
    assert_int_equal(9, g.ngroups);
    for (uint32_t d = 0; d < 72; d++) {
        assert_int_equal(d / 8, g.group[d]);
    }
    sy_groups_free(&g);
    fab_free(&f);

    /* Deterministic across runs with the same seed, whatever else used
     * igraph's default random stream in between. */
    f = random_graph(200, 3, 7);
    o.seed = 1234;
    sy_groups_t g1 = groups_ok(&f, &o);
    sy_igraph_lock();
    for (int i = 0; i < 100; i++) {
        (void)igraph_rng_get_integer(igraph_rng_default(), 0, 1000);
    }
    sy_igraph_unlock();
    sy_groups_t g2 = groups_ok(&f, &o);
    assert_true(g1.ngroups > 1 && g1.ngroups < 200);
    assert_int_equal(g1.ngroups, g2.ngroups);
    assert_memory_equal(g1.group, g2.group, g1.ndev * sizeof(uint32_t));
    assert_string_equal(g1.str, g2.str);
    check_string_devices(&f, &g1);
    sy_groups_free(&g1);
    sy_groups_free(&g2);
    fab_free(&f);

    /* AUTO falls back to communities when the triangle rule keeps links
     * but cannot split: a clique of 6 switches. */
    f = fab_native("switch s0\nswitch s1\nswitch s2\nswitch s3\nswitch s4\nswitch s5\n"
                   "device a\ndevice b\nlink a s0\nlink b s5\n"
                   "link s0 s1\nlink s0 s2\nlink s0 s3\nlink s0 s4\nlink s0 s5\n"
                   "link s1 s2\nlink s1 s3\nlink s1 s4\nlink s1 s5\nlink s2 s3\n"
                   "link s2 s4\nlink s2 s5\nlink s3 s4\nlink s3 s5\nlink s4 s5\n");
    g = groups_ok(&f, NULL);
    assert_int_equal(SY_GROUPS_COMMUNITY, g.method);
    assert_int_equal(1, g.ngroups);
    assert_string_equal("0:a,b", g.str);
    sy_groups_free(&g);
    fab_free(&f);

    /* No switch links at all: every switch on its own. */
    f = fab_native("switch s0\nswitch s1\ndevice a\ndevice b\nlink a s0\nlink b s1\n");
    g = groups_ok(&f, &o);
    assert_int_equal(2, g.ngroups);
    sy_groups_free(&g);
    fab_free(&f);
}

/* LEAF property on random graphs with multi-homing and down links: two
 * devices share a group exactly when their lowest-id usable switch
 * neighbour (found here by scanning the edge list) is the same. */
static void test_groups_leaf_property(void **state)
{
    (void)state;
    uint64_t seed = 5;
    const uint32_t nsw = 30, ndev = 120;
    size_t cap = 128 * 1024, off = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (uint32_t i = 0; i < nsw; i++) {
        off += (size_t)snprintf(buf + off, cap - off, "switch s%u\n", i);
    }
    for (uint32_t i = 0; i < ndev; i++) {
        off += (size_t)snprintf(buf + off, cap - off, "device d%u host=h%u\n", i, i / 2);
    }
    for (uint32_t i = 0; i < ndev; i++) {
        for (uint32_t k = 0; k < i % 3; k++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            off += (size_t)snprintf(buf + off, cap - off, "link d%u s%u%s\n", i,
                                    (uint32_t)((seed >> 33) % nsw),
                                    (seed >> 20) % 5 ? "" : " state=down");
        }
    }
    for (uint32_t i = 0; i + 1 < nsw; i++) {
        off += (size_t)snprintf(buf + off, cap - off, "link s%u s%u\n", i, i + 1);
    }
    fab_t f = fab_native(buf);
    free(buf);
    sy_groups_opts_t o = {.method = SY_GROUPS_LEAF, .names = SY_GROUPS_NAMES_DEVICE};
    sy_groups_t g = groups_ok(&f, &o);
    uint32_t *first = malloc(ndev * sizeof(uint32_t));
    assert_non_null(first);
    for (uint32_t d = 0; d < ndev; d++) {
        uint32_t v = f.ix.dev_to_vertex[d];
        first[d] = SY_TOPO_NONE;
        for (uint32_t e = 0; e < f.t->ne; e++) {
            uint32_t a = f.t->e[e].a, b = f.t->e[e].b;
            uint32_t u = a == v ? b : (b == v ? a : SY_TOPO_NONE);
            if (u != SY_TOPO_NONE && f.t->e[e].state != PMIX_LINK_DOWN &&
                f.t->v[u].kind == SY_TOPO_SWITCH && (first[d] == SY_TOPO_NONE || u < first[d])) {
                first[d] = u;
            }
        }
    }
    for (uint32_t i = 0; i < ndev; i++) {
        for (uint32_t j = i + 1; j < ndev; j++) {
            bool same = first[i] != SY_TOPO_NONE && first[i] == first[j];
            assert_int_equal(same, g.group[i] == g.group[j]);
        }
        /* numbering: a group's id is smaller than any later new group's */
        if (i > 0) {
            uint32_t maxbefore = 0;
            for (uint32_t j = 0; j < i; j++) {
                maxbefore = g.group[j] > maxbefore ? g.group[j] : maxbefore;
            }
            assert_true(g.group[i] <= maxbefore + 1);
        }
    }
    check_string_devices(&f, &g);
    free(first);
    sy_groups_free(&g);
    fab_free(&f);
}

/* Several threads run the igraph fallback at once: the guard serialises
 * them and every thread gets the same answer. */
typedef struct {
    const fab_t *f;
    sy_groups_t g;
    pmix_status_t rc;
} job_t;

static void *run_job(void *arg)
{
    job_t *j = arg;
    sy_groups_opts_t o = {.method = SY_GROUPS_COMMUNITY, .seed = 77};
    j->rc = sy_groups_compute(j->f->t, &j->f->ix, &o, &j->g);
    return NULL;
}

static void test_groups_threads(void **state)
{
    (void)state;
    fab_t f = random_graph(300, 3, 11);
    job_t jobs[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        jobs[i].f = &f;
        assert_int_equal(0, pthread_create(&th[i], NULL, run_job, &jobs[i]));
    }
    for (int i = 0; i < 4; i++) {
        assert_int_equal(0, pthread_join(th[i], NULL));
        assert_int_equal(PMIX_SUCCESS, jobs[i].rc);
    }
    for (int i = 1; i < 4; i++) {
        assert_int_equal(jobs[0].g.ngroups, jobs[i].g.ngroups);
        assert_memory_equal(jobs[0].g.group, jobs[i].g.group, jobs[0].g.ndev * sizeof(uint32_t));
    }
    for (int i = 0; i < 4; i++) {
        sy_groups_free(&jobs[i].g);
    }
    fab_free(&f);
}

static void test_partitions(void **state)
{
    (void)state;
    fab_t f = fab_gen("dragonfly:a=4,p=2,h=2,g=9");
    sy_partition_t p;
    uint32_t kept = 0;
    assert_int_equal(PMIX_SUCCESS, sy_partition_triangles(f.t, &p, &kept));
    assert_int_equal(9, p.npart);
    assert_int_equal(9 * 6, kept); /* the intra-group links */
    for (uint32_t r = 0; r < 36; r++) {
        assert_int_equal(r / 4, p.part[72 + r]);
    }
    assert_int_equal(SY_TOPO_NONE, p.part[0]);
    sy_partition_free(&p);
    fab_free(&f);

    f = fab_gen("fattree:k=4");
    assert_int_equal(PMIX_SUCCESS, sy_partition_triangles(f.t, &p, &kept));
    assert_int_equal(0, kept); /* bipartite */
    sy_partition_free(&p);
    sy_levels_t lv;
    assert_int_equal(PMIX_SUCCESS, sy_levels_compute(f.t, &lv));
    assert_int_equal(PMIX_SUCCESS, sy_partition_pods(f.t, &lv, &p));
    /* 4 pods of edge+agg, then the 4 dropped cores on their own. */
    assert_int_equal(8, p.npart);
    for (uint32_t e = 0; e < 8; e++) {
        assert_int_equal(e / 2, p.part[16 + e]);     /* edge switches */
        assert_int_equal(e / 2, p.part[16 + 8 + e]); /* aggregation */
    }
    for (uint32_t c = 0; c < 4; c++) {
        assert_int_equal(4 + c, p.part[32 + c]);
    }
    sy_partition_free(&p);
    sy_levels_free(&lv);
    fab_free(&f);
}

/* ------------------------------------------------------------- errors */

static void test_groups_bad_input(void **state)
{
    (void)state;
    sy_groups_t g;
    fab_t f = fab_gen("fattree:k=2");
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_groups_compute(NULL, &f.ix, NULL, &g));
    assert_null(g.group);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_groups_compute(f.t, NULL, NULL, &g));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_groups_compute(f.t, &f.ix, NULL, NULL));
    sy_groups_opts_t o = {.method = (sy_groups_method_t)99};
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_groups_compute(f.t, &f.ix, &o, &g));
    sy_devindex_t bad = f.ix;
    bad.ndev = 1;
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_groups_compute(f.t, &bad, NULL, &g));
    fab_free(&f);

    /* Not finalized. */
    sy_topo_t *t = NULL;
    sy_devindex_t ix;
    assert_int_equal(PMIX_SUCCESS, sy_topo_new(&t));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_device(t, "x", NULL, NULL, NULL));
    assert_int_equal(PMIX_SUCCESS, sy_devindex_build(t, &ix));
    assert_int_equal(PMIX_ERR_NOT_AVAILABLE, sy_groups_compute(t, &ix, NULL, &g));
    sy_devindex_free(&ix);
    sy_topo_free(t);

    /* Empty topology: no groups, empty string. */
    assert_int_equal(PMIX_SUCCESS, sy_topo_new(&t));
    assert_int_equal(PMIX_SUCCESS, sy_topo_finalize(t));
    assert_int_equal(PMIX_SUCCESS, sy_devindex_build(t, &ix));
    assert_int_equal(PMIX_SUCCESS, sy_groups_compute(t, &ix, NULL, &g));
    assert_int_equal(0, g.ngroups);
    assert_string_equal("", g.str);
    sy_groups_free(&g);
    sy_groups_free(NULL);
    sy_devindex_free(&ix);
    sy_topo_free(t);
}

/* --------------------------------------------------------- the guard */

static int test_handler_calls;
static void test_handler(const char *reason, const char *file, int line, igraph_error_t err)
{
    (void)reason;
    (void)file;
    (void)line;
    (void)err;
    test_handler_calls++;
    IGRAPH_FINALLY_FREE();
}

static void test_igraph_guard(void **state)
{
    (void)state;
    igraph_error_handler_t *orig = igraph_set_error_handler(test_handler);

    sy_igraph_lock();
    igraph_t g;
    assert_int_equal(IGRAPH_SUCCESS, igraph_empty(&g, 3, IGRAPH_UNDIRECTED));
    igraph_vector_int_t deg;
    assert_int_equal(IGRAPH_SUCCESS, igraph_vector_int_init(&deg, 0));
    /* Vertex 100 does not exist: igraph's default handler would abort(). */
    igraph_error_t err = igraph_degree(&g, &deg, igraph_vss_1(100), IGRAPH_ALL, IGRAPH_LOOPS);
    igraph_vector_int_destroy(&deg);
    assert_int_not_equal(IGRAPH_SUCCESS, err);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_igraph_status(err));
    char msg[128];
    sy_igraph_last_error(msg, sizeof(msg));
    assert_true(strlen(msg) > 0);
    /* A graph view, and a failing call on a real igraph structure. */
    igraph_vector_int_t memb;
    assert_int_equal(IGRAPH_SUCCESS, igraph_vector_int_init(&memb, 0));
    igraph_integer_t nb = 0;
    err = igraph_community_leiden(&g, NULL, NULL, -1.0, 0.01, true, 2, &memb, &nb, NULL);
    assert_int_not_equal(IGRAPH_SUCCESS, err);
    assert_int_not_equal(PMIX_SUCCESS, sy_igraph_status(err));
    igraph_vector_int_destroy(&memb);
    igraph_destroy(&g);
    sy_igraph_unlock();
    assert_int_equal(0, test_handler_calls); /* ours did not see them */

    /* The caller's handler is back after unlock. */
    assert_ptr_equal(test_handler, igraph_set_error_handler(test_handler));
    igraph_set_error_handler(orig);

    assert_int_equal(PMIX_SUCCESS, sy_igraph_status(IGRAPH_SUCCESS));
    assert_int_equal(PMIX_ERR_NOMEM, sy_igraph_status(IGRAPH_ENOMEM));
    assert_int_equal(PMIX_ERROR, sy_igraph_status(IGRAPH_FAILURE));

    /* View of a topology: devices, down links left out. */
    fab_t f = fab_file("native_2plane.topo");
    sy_igraph_view_t v;
    sy_igraph_lock();
    assert_int_equal(PMIX_SUCCESS, sy_igraph_from_topo(f.t, false, &v));
    assert_int_equal(6, v.n);
    assert_int_equal(3, igraph_ecount(&v.g));
    sy_igraph_view_free(&v);
    assert_int_equal(PMIX_SUCCESS, sy_igraph_from_topo(f.t, true, &v));
    assert_int_equal(2, v.n);
    assert_int_equal(0, igraph_ecount(&v.g));
    assert_int_equal(f.t->nv, 6);
    assert_int_equal(0, v.to_topo[0]);
    assert_int_equal(SY_TOPO_NONE, v.from_topo[2]);
    sy_igraph_view_free(&v);
    sy_igraph_view_free(NULL);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_igraph_from_topo(NULL, true, &v));
    sy_igraph_rng_t r;
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_igraph_rng_begin(NULL, 1));
    /* The default stream is swapped for ours and then put back intact. */
    void *before = igraph_rng_default()->state;
    assert_int_equal(PMIX_SUCCESS, sy_igraph_rng_begin(&r, 5));
    assert_ptr_not_equal(before, igraph_rng_default()->state);
    igraph_integer_t x1 = igraph_rng_get_integer(igraph_rng_default(), 0, 1000000);
    sy_igraph_rng_end(&r);
    assert_ptr_equal(before, igraph_rng_default()->state);
    (void)igraph_rng_get_integer(igraph_rng_default(), 0, 1000000);
    assert_int_equal(PMIX_SUCCESS, sy_igraph_rng_begin(&r, 5));
    assert_int_equal(x1, igraph_rng_get_integer(igraph_rng_default(), 0, 1000000));
    sy_igraph_rng_end(&r);
    sy_igraph_rng_end(&r); /* second end is harmless */
    assert_ptr_equal(before, igraph_rng_default()->state);
    sy_igraph_unlock();
    fab_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_groups_small_tree),
        cmocka_unit_test(test_groups_files),
        cmocka_unit_test(test_groups_unwritable_names),
        cmocka_unit_test(test_groups_fattree),
        cmocka_unit_test(test_groups_dragonfly),
        cmocka_unit_test(test_groups_torus),
        cmocka_unit_test(test_groups_community),
        cmocka_unit_test(test_groups_leaf_property),
        cmocka_unit_test(test_groups_threads),
        cmocka_unit_test(test_partitions),
        cmocka_unit_test(test_groups_bad_input),
        cmocka_unit_test(test_igraph_guard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
