/* Unit test: fabric topology model (src/fabric/topo.c), the Slurm,
 * ibnetdiscover and native readers, and the generators.  Input files are
 * in tests/fabric/data/ (FABRIC_DATA_DIR, or $top_srcdir/tests/fabric/data). */
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

#include "fabric/read_util.h"
#include "fabric/topo.h"
#include "fabric_fixtures.h"

/* ------------------------------------------------------------ helpers */

static uint32_t vid(const sy_topo_t *t, const char *name)
{
    uint32_t v = SY_TOPO_NONE;
    if (sy_topo_find(t, name, &v) != PMIX_SUCCESS) {
        fprintf(stderr, "vertex %s not found\n", name);
        fail();
    }
    return v;
}

static const sy_topo_edge_t *edge(const sy_topo_t *t, const char *a, const char *b)
{
    uint32_t e;
    if (sy_topo_find_link(t, vid(t, a), vid(t, b), &e) != PMIX_SUCCESS) {
        fprintf(stderr, "no link %s - %s\n", a, b);
        fail();
    }
    return &t->e[e];
}

static bool linked(const sy_topo_t *t, const char *a, const char *b)
{
    return sy_topo_find_link(t, vid(t, a), vid(t, b), NULL) == PMIX_SUCCESS;
}

/* Independent BFS over the edge list (not the CSR): hop counts from src,
 * UINT32_MAX when unreachable.  Caller frees. */
static uint32_t *plain_bfs(const sy_topo_t *t, uint32_t src)
{
    uint32_t n = t->nv;
    uint32_t *deg = calloc(n + 1, sizeof(uint32_t));
    uint32_t *adj = malloc((2 * (size_t)t->ne + 1) * sizeof(uint32_t));
    uint32_t *pos = calloc(n + 1, sizeof(uint32_t));
    uint32_t *dist = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *queue = malloc((n + 1) * sizeof(uint32_t));
    assert_true(deg && adj && pos && dist && queue);
    for (uint32_t i = 0; i < t->ne; i++) {
        deg[t->e[i].a + 1]++;
        deg[t->e[i].b + 1]++;
    }
    for (uint32_t i = 0; i < n; i++) {
        deg[i + 1] += deg[i];
    }
    for (uint32_t i = 0; i < t->ne; i++) {
        adj[deg[t->e[i].a] + pos[t->e[i].a]++] = t->e[i].b;
        adj[deg[t->e[i].b] + pos[t->e[i].b]++] = t->e[i].a;
    }
    for (uint32_t i = 0; i < n; i++) {
        dist[i] = UINT32_MAX;
    }
    size_t head = 0, tail = 0;
    dist[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t k = deg[u]; k < deg[u + 1]; k++) {
            if (UINT32_MAX == dist[adj[k]]) {
                dist[adj[k]] = dist[u] + 1;
                queue[tail++] = adj[k];
            }
        }
    }
    free(deg);
    free(adj);
    free(pos);
    free(queue);
    return dist;
}

static uint32_t reachable(const sy_topo_t *t, uint32_t src)
{
    uint32_t *d = plain_bfs(t, src), n = 0;
    for (uint32_t i = 0; i < t->nv; i++) {
        n += (UINT32_MAX != d[i]);
    }
    free(d);
    return n;
}

/* The CSR must list exactly the edge list's incidences, sorted. */
static void check_csr(sy_topo_t *t)
{
    assert_int_equal(PMIX_SUCCESS, sy_topo_finalize(t));
    size_t total = 0;
    for (uint32_t v = 0; v < t->nv; v++) {
        const uint32_t *nb, *ed;
        uint32_t n;
        assert_int_equal(PMIX_SUCCESS, sy_topo_neighbors(t, v, &nb, &ed, &n));
        for (uint32_t i = 0; i < n; i++) {
            const sy_topo_edge_t *e = &t->e[ed[i]];
            assert_true((e->a == v && e->b == nb[i]) || (e->b == v && e->a == nb[i]));
            if (i > 0) {
                assert_true(nb[i - 1] < nb[i]);
            }
        }
        total += n;
    }
    assert_int_equal(2 * (size_t)t->ne, total);
}

static void expect_error(pmix_status_t (*reader)(const char *, size_t, const char *,
                                                 const sy_topo_limits_t *, sy_topo_t **, char **),
                         const char *text, const char *want)
{
    sy_topo_t *t = NULL;
    char *err = NULL;
    pmix_status_t rc = reader(text, strlen(text), "bad.txt", NULL, &t, &err);
    if (rc == PMIX_SUCCESS || err == NULL || strstr(err, want) == NULL) {
        fprintf(stderr, "input:\n%s\nexpected error containing '%s', got rc %d msg '%s'\n", text,
                want, rc, err ? err : "(null)");
        fail();
    }
    assert_null(t);
    free(err);
}

/* -------------------------------------------------------------- model */

static void test_model(void **state)
{
    (void)state;
    sy_topo_t *t;
    uint32_t a, b, s, e, e2;
    assert_int_equal(PMIX_SUCCESS, sy_topo_new(&t));
    uint64_t g0 = t->generation;
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_device(t, "d0", "h0", "0x1", &a));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_device(t, "d1", NULL, NULL, &b));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_switch(t, "s0", 0, &s));
    assert_true(t->generation > g0);
    assert_int_equal(3, t->nv);
    assert_int_equal(2, t->ndevices);
    assert_int_equal(1, t->nswitches);
    uint32_t dup = SY_TOPO_NONE;
    assert_int_equal(PMIX_EXISTS, sy_topo_add_switch(t, "d0", 0, &dup));
    assert_int_equal(a, dup);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topo_add_device(t, "", NULL, NULL, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topo_add_device(t, NULL, NULL, NULL, NULL));
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_topo_find(t, "nope", NULL));
    assert_string_equal("h0", t->v[a].host);
    assert_string_equal("0x1", t->v[a].guid);
    assert_null(t->v[b].host);

    assert_int_equal(PMIX_SUCCESS, sy_topo_add_link(t, a, s, 100, PMIX_LINK_UP, 0, &e));
    assert_int_equal(PMIX_EXISTS, sy_topo_add_link(t, s, a, 5, PMIX_LINK_UP, 0, &e2));
    assert_int_equal(e, e2);
    assert_int_equal(PMIX_SUCCESS,
                     sy_topo_add_link(t, s, a, 50, PMIX_LINK_DOWN, SY_TOPO_LINK_PARALLEL, &e2));
    assert_int_equal(e, e2);
    assert_int_equal(1, t->ne);
    assert_int_equal(150, t->e[e].speed);
    assert_int_equal(2, t->e[e].count);
    assert_int_equal(PMIX_LINK_UP, t->e[e].state);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topo_add_link(t, a, a, 0, PMIX_LINK_UP, 0, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topo_add_link(t, a, 99, 0, PMIX_LINK_UP, 0, NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topo_add_link(t, a, b, 0, 7, 0, NULL));

    const uint32_t *nb;
    uint32_t n;
    assert_int_equal(PMIX_ERR_NOT_AVAILABLE, sy_topo_neighbors(t, s, &nb, NULL, &n));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_link(t, b, s, 0, PMIX_LINK_UP, 0, NULL));
    check_csr(t);
    assert_int_equal(PMIX_SUCCESS, sy_topo_neighbors(t, s, &nb, NULL, &n));
    assert_int_equal(2, n);
    assert_int_equal(a, nb[0]);
    assert_int_equal(b, nb[1]);

    /* A state change keeps the CSR; a structural one invalidates it. */
    uint64_t g1 = t->generation;
    assert_int_equal(PMIX_SUCCESS, sy_topo_set_link_state(t, e, PMIX_LINK_DOWN));
    assert_int_equal(g1 + 1, t->generation);
    assert_true(t->finalized);
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_device(t, "d2", NULL, NULL, NULL));
    assert_false(t->finalized);
    assert_int_equal(PMIX_ERR_NOT_AVAILABLE, sy_topo_neighbors(t, s, &nb, NULL, &n));

    uint32_t p0, p1, p0b;
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_plane(t, "rail0", &p0));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_plane(t, "rail1", &p1));
    assert_int_equal(PMIX_SUCCESS, sy_topo_add_plane(t, "rail0", &p0b));
    assert_int_equal(p0, p0b);
    assert_int_equal(2, t->nplanes);
    assert_int_equal(PMIX_SUCCESS, sy_topo_set_plane(t, a, p1));
    assert_int_equal(p1, t->v[a].plane);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topo_set_plane(t, a, 5));
    sy_topo_free(t);
    sy_topo_free(NULL);
}

/* Many vertices: the hash index must grow and keep every name. */
static void test_model_many(void **state)
{
    (void)state;
    sy_topo_t *t;
    char name[32];
    assert_int_equal(PMIX_SUCCESS, sy_topo_new(&t));
    for (uint32_t i = 0; i < 20000; i++) {
        snprintf(name, sizeof(name), "v%u", i);
        assert_int_equal(PMIX_SUCCESS, sy_topo_add_switch(t, name, -1, NULL));
    }
    for (uint32_t i = 1; i < 20000; i++) {
        assert_int_equal(PMIX_SUCCESS, sy_topo_add_link(t, i - 1, i, 0, PMIX_LINK_UP, 0, NULL));
    }
    for (uint32_t i = 0; i < 20000; i += 7) {
        uint32_t v;
        snprintf(name, sizeof(name), "v%u", i);
        assert_int_equal(PMIX_SUCCESS, sy_topo_find(t, name, &v));
        assert_int_equal(i, v);
    }
    assert_int_equal(PMIX_SUCCESS, sy_topo_find_link(t, 501, 500, NULL));
    assert_int_equal(PMIX_ERR_NOT_FOUND, sy_topo_find_link(t, 500, 502, NULL));
    check_csr(t);
    sy_topo_free(t);
}

/* ----------------------------------------------------------- helpers */

typedef struct {
    char names[64][32];
    size_t n;
} collect_t;

static pmix_status_t collect(void *ctx, const char *name)
{
    collect_t *c = ctx;
    if (c->n < 64) {
        snprintf(c->names[c->n], sizeof(c->names[0]), "%s", name);
    }
    c->n++;
    return PMIX_SUCCESS;
}

static void test_hostlist(void **state)
{
    (void)state;
    collect_t c = {0};
    uint64_t budget = 100;
    const char *why = NULL;
    assert_int_equal(PMIX_SUCCESS,
                     sy_hostlist_expand("tux[1-3,5],node[008-010],x[1-2]y[0-1]z,plain", &budget,
                                        collect, &c, &why));
    const char *want[] = {"tux1",    "tux2",  "tux3",  "tux5",  "node008", "node009",
                          "node010", "x1y0z", "x1y1z", "x2y0z", "x2y1z",   "plain"};
    assert_int_equal(12, c.n);
    for (size_t i = 0; i < 12; i++) {
        assert_string_equal(want[i], c.names[i]);
    }
    assert_int_equal(88, budget);
    /* Zero padding of the first bound is kept past its width. */
    c.n = 0;
    assert_int_equal(PMIX_SUCCESS, sy_hostlist_expand("n[98-100]", &budget, collect, &c, &why));
    assert_string_equal("n98", c.names[0]);
    assert_string_equal("n100", c.names[2]);
    c.n = 0;
    assert_int_equal(PMIX_SUCCESS, sy_hostlist_expand("n[09-10]", &budget, collect, &c, &why));
    assert_string_equal("n09", c.names[0]);
    assert_string_equal("n10", c.names[1]);

    static const char *const bad[] = {"n[1-", "n[3-1]", "n[]", "n1]",    "n[a-b]", "n[1,]",
                                      "a,,b", "a,",     "",    "n[[1]]", "n[1-2"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        budget = 100;
        why = NULL;
        assert_int_not_equal(PMIX_SUCCESS, sy_hostlist_expand(bad[i], &budget, collect, &c, &why));
        assert_non_null(why);
    }
    /* Bounded: refused before any expansion. */
    budget = 10000000;
    c.n = 0;
    assert_int_equal(PMIX_ERR_OUT_OF_RESOURCE,
                     sy_hostlist_expand("n[0-99999999]", &budget, collect, &c, &why));
    assert_int_equal(0, c.n);
    budget = 5;
    assert_int_equal(PMIX_ERR_OUT_OF_RESOURCE,
                     sy_hostlist_expand("a[1-3]b[1-3]", &budget, collect, &c, &why));
}

static void test_speed(void **state)
{
    (void)state;
    uint64_t v;
    assert_true(sy_parse_speed("100G", &v));
    assert_int_equal(100000000000ULL, v);
    assert_true(sy_parse_speed("12.5Gb/s", &v));
    assert_int_equal(12500000000ULL, v);
    assert_true(sy_parse_speed("25000000000", &v));
    assert_int_equal(25000000000ULL, v);
    assert_true(sy_parse_speed("1.5Tbps", &v));
    assert_int_equal(1500000000000ULL, v);
    assert_true(sy_parse_speed("10Mbit/s", &v));
    assert_int_equal(10000000ULL, v);
    assert_false(sy_parse_speed("fast", &v));
    assert_false(sy_parse_speed("10Q", &v));
    assert_false(sy_parse_speed("1.", &v));
    assert_false(sy_parse_speed("99999999999999999999", &v));
    assert_false(sy_parse_speed("99999999999T", &v));
}

/* -------------------------------------------------------------- slurm */

static void test_slurm_file(void **state)
{
    (void)state;
    sy_topo_t *t = fab_load_file("slurm_2leaf.conf", NULL);
    assert_string_equal("slurm", t->format);
    assert_int_equal(12, t->ndevices);
    assert_int_equal(3, t->nswitches);
    assert_int_equal(15, t->ne);
    static const char *const nodes[] = {"node001", "node002", "node003", "node004",
                                        "tux1",    "tux2",    "tux3",    "tux5",
                                        "node005", "node006", "node007", "node008"};
    for (size_t i = 0; i < 12; i++) {
        uint32_t v = vid(t, nodes[i]);
        assert_int_equal(SY_TOPO_DEVICE, t->v[v].kind);
        assert_string_equal(nodes[i], t->v[v].host);
    }
    assert_false(sy_topo_find(t, "tux4", NULL) == PMIX_SUCCESS);
    assert_int_equal(100, edge(t, "tux5", "leaf0")->speed);
    assert_int_equal(0, edge(t, "node007", "leaf1")->speed);
    assert_int_equal(200, edge(t, "leaf1", "spine")->speed);
    assert_true(linked(t, "node001", "leaf1")); /* multi-homed */
    assert_false(linked(t, "node002", "leaf1"));
    assert_int_equal(0, t->v[vid(t, "leaf0")].level);
    assert_int_equal(0, t->v[vid(t, "leaf1")].level);
    assert_int_equal(1, t->v[vid(t, "spine")].level);
    assert_int_equal(SY_TOPO_SWITCH, t->v[vid(t, "spine")].kind);
    assert_int_equal(15, reachable(t, vid(t, "tux1")));
    uint32_t *d = plain_bfs(t, vid(t, "tux1"));
    assert_int_equal(2, d[vid(t, "node004")]);
    assert_int_equal(4, d[vid(t, "node008")]);
    assert_int_equal(2, d[vid(t, "node001")]);
    free(d);
    check_csr(t);
    sy_topo_free(t);
}

static void test_slurm_errors(void **state)
{
    (void)state;
    expect_error(sy_topo_read_slurm_buffer, "SwitchName=s0 Nodes=a[1-2]\nSwitchName=s0 Nodes=b\n",
                 "bad.txt:2: duplicate SwitchName s0");
    expect_error(sy_topo_read_slurm_buffer, "# c\nSwitchName=s0 Nodes=a Switches=s1\n",
                 "bad.txt:2: switch s0 has both");
    expect_error(sy_topo_read_slurm_buffer, "SwitchName=s0\n", "bad.txt:1: switch s0 has neither");
    expect_error(sy_topo_read_slurm_buffer,
                 "SwitchName=s0 Nodes=a\nSwitchName=s1 Switches=s[0,2]\n",
                 "bad.txt:2: switch s2 listed in Switches= is not defined");
    expect_error(sy_topo_read_slurm_buffer, "\n\nNodes=a SwitchName=s0\n",
                 "bad.txt:3: expected SwitchName= first");
    expect_error(sy_topo_read_slurm_buffer, "SwitchName=s0 Nodes=a Color=red\n",
                 "bad.txt:1: unknown key 'Color'");
    expect_error(sy_topo_read_slurm_buffer, "SwitchName=s0 Nodes=n[3-1]\n",
                 "bad.txt:1: bad hostlist in Nodes=: range end below its start");
    expect_error(sy_topo_read_slurm_buffer, "SwitchName=s0 Nodes=n[0-99999999]\n",
                 "bad.txt:1: bad hostlist in Nodes=: hostlist expands to too many names");
    expect_error(sy_topo_read_slurm_buffer, "SwitchName=s0 Nodes=a LinkSpeed=fast\n",
                 "bad.txt:1: expected an unsigned 32-bit LinkSpeed");
    expect_error(sy_topo_read_slurm_buffer,
                 "SwitchName=a Switches=b\nSwitchName=b Switches=c\nSwitchName=c Switches=a\n",
                 "not a tree");
    expect_error(sy_topo_read_slurm_buffer, "SwitchName=s0 Nodes=s0\n",
                 "bad.txt:1: node s0 has the name of a switch");
    {
        const char bin[] = "SwitchName=s0 Nodes=a\n\0\x01\x02";
        sy_topo_t *t = NULL;
        char *err = NULL;
        assert_int_not_equal(PMIX_SUCCESS,
                             sy_topo_read_slurm_buffer(bin, sizeof(bin), "bin", NULL, &t, &err));
        assert_non_null(strstr(err, "bin:2: unexpected NUL byte"));
        free(err);
    }
    /* Limits from the caller bound the expansion. */
    sy_topo_limits_t lim = {.max_vertices = 100};
    sy_topo_t *t = NULL;
    char *err = NULL;
    const char *big = "SwitchName=s0 Nodes=n[1-200]\n";
    assert_int_not_equal(PMIX_SUCCESS,
                         sy_topo_read_slurm_buffer(big, strlen(big), "big", &lim, &t, &err));
    assert_non_null(err);
    free(err);
    /* 21 levels is more than slurmctld accepts. */
    char deep[4096];
    size_t off = (size_t)snprintf(deep, sizeof(deep), "SwitchName=s0 Nodes=n0\n");
    for (int i = 1; i <= 21; i++) {
        off += (size_t)snprintf(deep + off, sizeof(deep) - off, "SwitchName=s%d Switches=s%d\n", i,
                                i - 1);
    }
    expect_error(sy_topo_read_slurm_buffer, deep, "levels deep");
}

/* -------------------------------------------------------------- ibnet */

static void check_ib_fabric(sy_topo_t *t)
{
    assert_int_equal(4, t->ndevices);
    assert_int_equal(2, t->nswitches);
    assert_int_equal(5, t->ne);
    static const char *const dev[] = {"0x0000000000100011", "0x0000000000100021",
                                      "0x0000000000100031", "0x0000000000100041"};
    static const char *const host[] = {"node01", "node02", "node03", "node04"};
    for (int i = 0; i < 4; i++) {
        uint32_t v = vid(t, dev[i]);
        assert_int_equal(SY_TOPO_DEVICE, t->v[v].kind);
        assert_string_equal(host[i], t->v[v].host);
        assert_string_equal(dev[i], t->v[v].guid);
        assert_string_equal("HCA-1", strchr(t->v[v].label, ' ') + 1);
        const sy_topo_edge_t *e =
            edge(t, dev[i], i < 2 ? "0x0000000000200001" : "0x0000000000200002");
        assert_int_equal(100000000000ULL, e->speed); /* 4x EDR */
        assert_int_equal(1, e->count);
    }
    uint32_t s0 = vid(t, "0x0000000000200001");
    assert_int_equal(SY_TOPO_SWITCH, t->v[s0].kind);
    assert_string_equal("leaf0", t->v[s0].label);
    /* Two cables, each listed from both ends: one edge of two cables. */
    const sy_topo_edge_t *isl = edge(t, "0x0000000000200001", "0x0000000000200002");
    assert_int_equal(2, isl->count);
    assert_int_equal(400000000000ULL, isl->speed); /* 2 x 4x HDR */
    assert_int_equal(6, reachable(t, vid(t, dev[0])));
    uint32_t *d = plain_bfs(t, vid(t, dev[0]));
    assert_int_equal(2, d[vid(t, dev[1])]);
    assert_int_equal(3, d[vid(t, dev[3])]);
    free(d);
    check_csr(t);
}

static void test_ibnet_files(void **state)
{
    (void)state;
    sy_topo_t *a = fab_load_file("ibnet_default.topo", NULL);
    assert_string_equal("ibnet", a->format);
    check_ib_fabric(a);
    sy_topo_t *b = fab_load_file("ibnet_ports.txt", NULL);
    assert_string_equal("ibnet-ports", b->format);
    check_ib_fabric(b);
    /* Both formats name the same vertices alike. */
    for (uint32_t i = 0; i < a->nv; i++) {
        assert_int_equal(a->v[i].kind, b->v[vid(b, a->v[i].name)].kind);
    }
    sy_topo_free(a);
    sy_topo_free(b);
}

/* Port GUIDs learnt from the other end, the fallback name, routers,
 * loopback cables, -g chassis lines. */
static void test_ibnet_details(void **state)
{
    (void)state;
    const char *txt = "# Topology file\n"
                      "Non-Chassis Nodes\n"
                      "\n"
                      "Switch\t4 \"S-0000000000000a01\"\t\t# \"sw\" base port 0 lid 1 lmc 0\n"
                      "[1]\t\"H-0000000000000b01\"[1]\t\t# \"hostA mlx5_0\" lid 2 4xNDR\n"
                      "[2]\t\"H-0000000000000b01\"[2]\t\t# \"hostA mlx5_0\" lid 3 1xSDR\n"
                      "[3]\t\"R-0000000000000c01\"[1]\t\t# \"router\" lid 4 12xQDR\n"
                      "[4]\t\"S-0000000000000a01\"[4]\t\t# \"sw\" lid 1 4xEDR\n"
                      "\n"
                      "Ca\t2 \"H-0000000000000b01\"\t\t# \"hostA mlx5_0\"\n"
                      "[1](b02) \t\"S-0000000000000a01\"[1]\t\t# lid 2 lmc 0 \"sw\" lid 1 4xNDR\n";
    sy_topo_t *t = NULL;
    char *err = NULL;
    assert_int_equal(PMIX_SUCCESS,
                     sy_topo_read_ibnet_buffer(txt, strlen(txt), "d", NULL, &t, &err));
    assert_null(err);
    assert_int_equal(2, t->ndevices);
    assert_int_equal(2, t->nswitches);
    assert_int_equal(3, t->ne);
    assert_string_equal("hostA", t->v[vid(t, "0x0000000000000b02")].host);
    assert_string_equal("hostA", t->v[vid(t, "0x0000000000000b01/2")].host);
    assert_null(t->v[vid(t, "0x0000000000000b01/2")].guid);
    assert_int_equal(SY_TOPO_SWITCH, t->v[vid(t, "0x0000000000000c01")].kind);
    assert_int_equal(400000000000ULL, edge(t, "0x0000000000000b02", "0x0000000000000a01")->speed);
    assert_int_equal(2500000000ULL, edge(t, "0x0000000000000b01/2", "0x0000000000000a01")->speed);
    assert_int_equal(120000000000ULL, edge(t, "0x0000000000000c01", "0x0000000000000a01")->speed);
    sy_topo_free(t);

    /* Truncated anywhere: an error or a smaller graph, never a crash. */
    for (size_t n = 0; n < strlen(txt); n++) {
        t = NULL;
        err = NULL;
        if (sy_topo_read_ibnet_buffer(txt, n, "cut", NULL, &t, &err) == PMIX_SUCCESS) {
            assert_true(t->nv <= 4);
            sy_topo_free(t);
        } else {
            assert_null(t);
            assert_non_null(err);
            free(err);
        }
    }
}

static void test_slurm_details(void **state)
{
    (void)state;
    /* Parents may come before their children; quoted values; CRLF. */
    const char *txt = "SwitchName=top Switches=\"s[1-2]\"\r\nSWITCHNAME=s1 NODES=a\r\n"
                      "SwitchName=s2 Nodes=b,a # a is multi-homed\r\n";
    sy_topo_t *t = NULL;
    char *err = NULL;
    assert_int_equal(PMIX_SUCCESS,
                     sy_topo_read_slurm_buffer(txt, strlen(txt), "s", NULL, &t, &err));
    assert_int_equal(2, t->ndevices);
    assert_int_equal(3, t->nswitches);
    assert_int_equal(5, t->ne);
    assert_int_equal(1, t->v[vid(t, "top")].level);
    assert_true(linked(t, "a", "s2"));
    sy_topo_free(t);
    /* Empty input is an empty graph. */
    assert_int_equal(PMIX_SUCCESS, sy_topo_read_slurm_buffer("", 0, "e", NULL, &t, &err));
    assert_int_equal(0, t->nv);
    sy_topo_free(t);
}

static void test_ibnet_errors(void **state)
{
    (void)state;
    expect_error(sy_topo_read_ibnet_buffer, "[1]\t\"H-0000000000100010\"[1]\n",
                 "bad.txt:1: port line outside a Switch/Ca/Rt record");
    expect_error(sy_topo_read_ibnet_buffer, "Switch\t36 \"H-0000000000200001\"\t# \"x\"\n",
                 "bad.txt:1: expected a quoted node id");
    expect_error(sy_topo_read_ibnet_buffer,
                 "Switch\t4 \"S-0000000000200001\"\t# \"x\"\n[9]\t\"H-0000000000100010\"[1]\t# "
                 "\"n\" lid 0 4xEDR\n",
                 "bad.txt:2: port 9 beyond the node's 4 ports");
    expect_error(sy_topo_read_ibnet_buffer,
                 "Switch\t4 \"S-0000000000200001\"\t# \"x\"\n[1]\t\"H-00000000001000zz\"[1]\n",
                 "bad.txt:2: expected the peer");
    expect_error(sy_topo_read_ibnet_buffer, "CA 3 1 0x11 4x EDR - SW 1\n",
                 "bad.txt:1: expected \"- TYPE LID PORT GUID\"");
    expect_error(sy_topo_read_ibnet_buffer, "CA 3 1 0x11 4x EDR - SW 1 1 0x22 ( 'a' 'b' )\n",
                 "bad.txt:1: expected ( 'description'");
    expect_error(sy_topo_read_ibnet_buffer, "CA 3\n", "bad.txt:1: expected \"TYPE LID PORT GUID");
    expect_error(sy_topo_read_ibnet_buffer, "CA 3 1 0x22 4x EDR - SW 1 1 0x22 ( 'a' - 'b' )\n",
                 "bad.txt:1: GUID 0x0000000000000022 is used by a CA and a switch");
}

/* What the tools print besides the topology is passed over with a note,
 * never a rejection: a -v capture gives the same graph as a clean one. */
static void test_ibnet_verbose(void **state)
{
    (void)state;
    sy_topo_t *t = fab_load_file("ibnet_ports_verbose.txt", NULL);
    check_ib_fabric(t);
    assert_non_null(t->note);
    assert_non_null(strstr(t->note, "5 lines that are not ibnetdiscover topology passed over"));
    assert_non_null(strstr(t->note, "line 1: \"ibwarn: [4031]"));
    sy_topo_free(t);
    /* a clean capture says nothing */
    t = fab_load_file("ibnet_ports.txt", NULL);
    assert_null(t->note);
    sy_topo_free(t);
    /* chatter alone: an empty fabric, and the note */
    char *err = NULL;
    const char *txt =
        "\n\nhello world\nSwitch\t : 0x0000000000200001 ports 36 devid 0xd2f0\n"
        "Switch\t36 \"S-0000000000200001\"\t# \"x\"\n"
        "[1][ext 3]\t\"S-0000000000200002\"[2][ext 4]\t# \"y\" lid 2 4xEDR s=2 w=2 v=4\n";
    assert_int_equal(PMIX_SUCCESS,
                     sy_topo_read_ibnet_buffer(txt, strlen(txt), "v.txt", NULL, &t, &err));
    assert_non_null(strstr(t->note, "v.txt: 2 lines"));
    assert_non_null(strstr(t->note, "(first, line 3: \"hello world\")"));
    assert_int_equal(2, t->nswitches);
    assert_int_equal(1, t->ne);
    assert_int_equal(100000000000ULL, t->e[0].speed);
    sy_topo_free(t);
}

/* OpenSM's subnet.lst of the same fabric gives the same graph. */
static void test_osm_file(void **state)
{
    (void)state;
    sy_topo_t *a = fab_load_file("osm_subnet.lst", NULL);
    assert_string_equal("osm-lst", a->format);
    check_ib_fabric(a);
    assert_null(a->note);
    sy_topo_t *b = fab_load_file("ibnet_default.topo", NULL);
    for (uint32_t i = 0; i < b->nv; i++) {
        assert_int_equal(b->v[i].kind, a->v[vid(a, b->v[i].name)].kind);
    }
    sy_topo_free(b);
    sy_topo_free(a);
    /* states, the simulator's "CA" switches, widths without a speed */
    const char *lst =
        "{ CA Ports:08 SystemGUID:0000000000000005 NodeGUID:0000000000000005 "
        "PortGUID:0000000000000005 VenID:00000000 DevID:0000 Rev:00000000 {sw5} LID:0001 PN:01 } "
        "{ CA Ports:01 SystemGUID:0000000000000010 NodeGUID:0000000000000010 "
        "PortGUID:0000000000000011 VenID:00000000 DevID:0000 Rev:00000000 {h1 mlx5_0} LID:0002 "
        "PN:01 } PHY=4x LOG=DWN SPD=??\n"
        "Some other line\n"
        "{ SW Ports:08 SystemGUID:0000000000000005 NodeGUID:0000000000000005 "
        "PortGUID:0000000000000005 VenID:00000000 DevID:0000 Rev:00000000 {sw5} LID:0001 PN:02 } "
        "{ CA Ports:01 SystemGUID:0000000000000020 NodeGUID:0000000000000020 "
        "PortGUID:0000000000000021 VenID:00000000 DevID:0000 Rev:00000000 {h2} LID:0003 PN:01 } "
        "PHY=1x LOG=INI\n";
    sy_topo_t *t = NULL;
    char *err = NULL;
    assert_int_equal(PMIX_SUCCESS,
                     sy_topo_load_buffer(lst, strlen(lst), "s.lst", NULL, NULL, &t, &err));
    assert_int_equal(2, t->ndevices);
    assert_int_equal(1, t->nswitches);
    assert_int_equal(PMIX_LINK_DOWN, edge(t, "0x0000000000000011", "0x0000000000000005")->state);
    assert_int_equal(0, edge(t, "0x0000000000000011", "0x0000000000000005")->speed);
    const sy_topo_edge_t *e = edge(t, "0x0000000000000021", "0x0000000000000005");
    assert_int_equal(PMIX_LINK_STATE_UNKNOWN, e->state);
    assert_int_equal(2500000000ULL, e->speed);
    assert_string_equal("h1", t->v[vid(t, "0x0000000000000011")].host);
    assert_non_null(strstr(t->note, "1 line that is not subnet.lst topology"));
    sy_topo_free(t);
    expect_error(sy_topo_read_osm_buffer, "{ SW Ports:08 NodeGUID:1 }\n",
                 "bad.txt:1: expected \"{ TYPE Ports:N");
}

/* ibsim's net format: ids as names, ibsim's GUIDs and link speeds. */
static void test_ibsim_file(void **state)
{
    (void)state;
    sy_topo_t *t = fab_load_file("ibsim_2leaf.net", NULL);
    assert_string_equal("ibsim", t->format);
    assert_int_equal(4, t->ndevices);
    assert_int_equal(2, t->nswitches);
    assert_int_equal(5, t->ne);
    static const char *const dev[] = {"node01", "node02", "node03/1", "node04"};
    static const char *const guid[] = {"0x0000000000100001", "0x0000000000100003",
                                       "0x0000000000100005", "0x0000000000100008"};
    for (int i = 0; i < 4; i++) {
        uint32_t v = vid(t, dev[i]);
        assert_int_equal(SY_TOPO_DEVICE, t->v[v].kind);
        assert_string_equal(guid[i], t->v[v].guid);
        assert_int_equal(0, strncmp(t->v[v].host, "node0", 5));
        /* 4x SDR, ibsim's default */
        assert_int_equal(10000000000ULL, edge(t, dev[i], i < 2 ? "leaf0" : "leaf1")->speed);
    }
    assert_string_equal("0x0000000000200002", t->v[vid(t, "leaf1")].guid);
    const sy_topo_edge_t *isl = edge(t, "leaf0", "leaf1");
    assert_int_equal(2, isl->count);
    assert_int_equal(80000000000ULL, isl->speed); /* 2 x 4x QDR */
    assert_non_null(strstr(t->note, "2 lines that are not ibsim net topology"));
    uint32_t *d = plain_bfs(t, vid(t, "node01"));
    assert_int_equal(3, d[vid(t, "node04")]);
    free(d);
    sy_topo_free(t);
    expect_error(sy_topo_read_ibsim_buffer, "Hca 1 \"a\"\n[1] \"b\"[1]\n",
                 "bad.txt:2: remote node b is not defined");
    expect_error(sy_topo_read_ibsim_buffer, "Hca 1 \"a\"\n[1] \"s\"[40]\n\nSwitch 8 \"s\"\n",
                 "bad.txt:2: s has no port 40");
    expect_error(sy_topo_read_ibsim_buffer, "Hca 1 \"a\"\nHca 1 \"a\"\n",
                 "bad.txt:2: node id a given twice");
    expect_error(sy_topo_read_ibsim_buffer, "Switch 4 \"s\"\n[5] \"x\"\n",
                 "bad.txt:2: expected \"[port]\"");
}

/* ------------------------------------------------------------- native */

static void test_native_file(void **state)
{
    (void)state;
    sy_topo_t *t = fab_load_file("native_2plane.topo", NULL);
    assert_string_equal("native", t->format);
    assert_int_equal(4, t->ndevices);
    assert_int_equal(2, t->nswitches);
    assert_int_equal(4, t->ne);
    assert_int_equal(2, t->nplanes);
    assert_string_equal("rail0", t->planes[0]);
    assert_string_equal("rail1", t->planes[1]);
    assert_int_equal(0, t->v[vid(t, "n1-r0")].plane);
    assert_int_equal(1, t->v[vid(t, "n0-r1")].plane);
    assert_int_equal(1, t->v[vid(t, "sw1")].plane);
    assert_string_equal("n0", t->v[vid(t, "n0-r1")].host);
    assert_string_equal("0x10", t->v[vid(t, "n0-r0")].guid);
    assert_string_equal("rail-1-leaf", t->v[vid(t, "sw1")].label);
    assert_int_equal(0, t->v[vid(t, "sw0")].level);
    assert_int_equal(100000000000ULL, edge(t, "n0-r0", "sw0")->speed);
    assert_int_equal(200000000000ULL, edge(t, "n0-r1", "sw1")->speed);
    const sy_topo_edge_t *e = edge(t, "n1-r1", "sw1");
    assert_int_equal(25000000000ULL, e->speed);
    assert_int_equal(PMIX_LINK_DOWN, e->state);
    assert_int_equal(PMIX_LINK_UP, edge(t, "n1-r0", "sw0")->state);
    /* The planes are separate components. */
    assert_int_equal(3, reachable(t, vid(t, "n0-r0")));
    uint32_t *d = plain_bfs(t, vid(t, "n0-r0"));
    assert_int_equal(UINT32_MAX, d[vid(t, "n0-r1")]);
    assert_int_equal(2, d[vid(t, "n1-r0")]);
    free(d);
    check_csr(t);
    sy_topo_free(t);
}

static void test_native_errors(void **state)
{
    (void)state;
    expect_error(sy_topo_read_native_buffer, "device a\nlink a b\n",
                 "bad.txt:2: unknown vertex 'b'");
    expect_error(sy_topo_read_native_buffer, "device a\nswitch a\n",
                 "bad.txt:2: 'a' is already declared");
    expect_error(sy_topo_read_native_buffer, "device a\nswitch b\nlink a b speed=fast\n",
                 "bad.txt:3: expected a speed");
    expect_error(sy_topo_read_native_buffer, "device a\nswitch b\nlink a b state=sideways\n",
                 "bad.txt:3: expected state=up, down or unknown");
    expect_error(sy_topo_read_native_buffer, "# x\nrouter r\n",
                 "bad.txt:2: expected 'device', 'switch'");
    expect_error(sy_topo_read_native_buffer, "device a colour=red\n",
                 "bad.txt:1: unknown attribute");
    expect_error(sy_topo_read_native_buffer, "switch s level=x\n", "bad.txt:1: expected a level");
    expect_error(sy_topo_read_native_buffer, "device\n", "bad.txt:1: expected a device name");
    expect_error(sy_topo_read_native_buffer, "device a\nlink a a\n",
                 "bad.txt:2: link from 'a' to itself");
    expect_error(sy_topo_read_native_buffer, "plane\n", "bad.txt:1: expected exactly one plane id");
    /* Parallel links merge. */
    const char *par = "device a\nswitch b\nlink a b speed=10G\nlink a b speed=10G\n";
    sy_topo_t *t = NULL;
    assert_int_equal(PMIX_SUCCESS,
                     sy_topo_read_native_buffer(par, strlen(par), "p", NULL, &t, NULL));
    assert_int_equal(1, t->ne);
    assert_int_equal(2, t->e[0].count);
    assert_int_equal(20000000000ULL, t->e[0].speed);
    sy_topo_free(t);
}

static void test_load_front(void **state)
{
    (void)state;
    sy_topo_t *t = NULL;
    char *err = NULL;
    assert_int_equal(PMIX_ERR_FILE_OPEN_FAILURE,
                     sy_topo_load("/nonexistent/topo.conf", NULL, &t, &err));
    assert_non_null(strstr(err, "/nonexistent/topo.conf: cannot open"));
    free(err);
    err = NULL;
    assert_int_not_equal(PMIX_SUCCESS,
                         sy_topo_load(fab_data_path("slurm_2leaf.conf"), "bogus", &t, &err));
    assert_non_null(strstr(err, "unknown format"));
    free(err);
    err = NULL;
    /* Forcing the wrong reader gives that reader's error, with the line. */
    assert_int_not_equal(PMIX_SUCCESS,
                         sy_topo_load(fab_data_path("slurm_2leaf.conf"), "native", &t, &err));
    assert_non_null(strstr(err, "slurm_2leaf.conf:3: expected 'device'"));
    free(err);
    err = NULL;
    assert_int_not_equal(PMIX_SUCCESS,
                         sy_topo_load_buffer("\n# only\n", 8, "x", NULL, NULL, &t, &err));
    assert_non_null(strstr(err, "unknown topology format"));
    free(err);
    assert_string_equal("slurm", sy_topo_detect_format("# c\n  switchname=a nodes=b\n", 26));
    assert_string_equal("ibnet", sy_topo_detect_format("#\nvendid=0x2c9\n", 15));
    assert_string_equal("ibnet", sy_topo_detect_format("SW 1 1 0x1 4x EDR 'x'\n", 22));
    assert_string_equal("native", sy_topo_detect_format("switch s\n", 9));
    assert_null(sy_topo_detect_format("Switchy\n", 8));
    /* chatter before the topology does not hide it */
    const char *dr = "DR path slid 0; dlid 0; 0,1\nibwarn: x\nSW 1 1 0x1 4x EDR 'x'\n";
    assert_string_equal("ibnet", sy_topo_detect_format(dr, strlen(dr)));
    const char *lst = "{ SW-SM Ports:24 SystemGUID:1 }\n";
    assert_string_equal("osm-lst", sy_topo_detect_format(lst, strlen(lst)));
    const char *sim = "switchguid=0x10\nSwitch 24 \"leaf0\"\n";
    assert_string_equal("ibsim", sy_topo_detect_format(sim, strlen(sim)));
    const char *ibn = "switchguid=0x10(10)\nSwitch\t24 \"S-0000000000000010\"\n";
    assert_string_equal("ibnet", sy_topo_detect_format(ibn, strlen(ibn)));
    assert_string_equal("ibsim", sy_topo_detect_format("Hca 1 \"n\"\n", 11));
    assert_null(sy_topo_detect_format(NULL, 0));
}

/* --------------------------------------------------------- generators */

/* Largest hop count between devices and whether all vertices connect. */
static uint32_t device_diameter(const sy_topo_t *t)
{
    uint32_t diam = 0;
    for (uint32_t s = 0; s < t->nv; s++) {
        if (t->v[s].kind != SY_TOPO_DEVICE) {
            continue;
        }
        uint32_t *d = plain_bfs(t, s);
        for (uint32_t i = 0; i < t->nv; i++) {
            assert_int_not_equal(UINT32_MAX, d[i]);
            if (t->v[i].kind == SY_TOPO_DEVICE && d[i] > diam) {
                diam = d[i];
            }
        }
        free(d);
    }
    return diam;
}

static uint32_t degree(sy_topo_t *t, uint32_t v)
{
    const uint32_t *nb;
    uint32_t n;
    assert_int_equal(PMIX_SUCCESS, sy_topo_finalize(t));
    assert_int_equal(PMIX_SUCCESS, sy_topo_neighbors(t, v, &nb, NULL, &n));
    return n;
}

static void test_gen_fattree(void **state)
{
    (void)state;
    for (uint32_t k = 2; k <= 8; k += 2) {
        char spec[32];
        snprintf(spec, sizeof(spec), "fattree:k=%u", k);
        sy_topo_t *t = fab_generate(spec);
        assert_int_equal(k * k * k / 4, t->ndevices);
        assert_int_equal(5 * k * k / 4, t->nswitches);
        assert_int_equal(3 * k * k * k / 4, t->ne);
        for (uint32_t i = 0; i < t->ndevices; i++) {
            assert_int_equal(SY_TOPO_DEVICE, t->v[i].kind); /* devices first */
        }
        /* Every switch of a k-ary fat tree uses exactly k ports. */
        for (uint32_t v = t->ndevices; v < t->nv; v++) {
            assert_int_equal(k, degree(t, v));
        }
        assert_int_equal(6, device_diameter(t));
        check_csr(t);
        sy_topo_free(t);
    }
    sy_topo_t *t = fab_generate("fattree:k=4,speed=100G");
    assert_int_equal(16, t->ndevices);
    assert_int_equal(20, t->nswitches);
    assert_string_equal("fattree", t->format);
    assert_string_equal("fattree:k=4,speed=100G", t->source);
    assert_int_equal(100000000000ULL, edge(t, "n0", "edge0")->speed);
    assert_true(linked(t, "n3", "edge1"));
    assert_true(linked(t, "agg1", "core2"));
    assert_true(linked(t, "agg3", "core3"));
    assert_false(linked(t, "agg1", "core0"));
    assert_int_equal(2, t->v[vid(t, "core0")].level);
    uint32_t *d = plain_bfs(t, vid(t, "n0"));
    assert_int_equal(2, d[vid(t, "n1")]);
    assert_int_equal(4, d[vid(t, "n2")]);
    assert_int_equal(6, d[vid(t, "n15")]);
    free(d);
    sy_topo_free(t);
}

static void test_gen_dragonfly(void **state)
{
    (void)state;
    const uint32_t a = 4, p = 2, h = 2, g = 9;
    sy_topo_t *t = fab_generate("dragonfly:a=4,p=2,h=2,g=9");
    assert_int_equal(g * a * p, t->ndevices);
    assert_int_equal(g * a, t->nswitches);
    assert_int_equal(g * a * p + g * a * (a - 1) / 2 + g * a * h / 2, t->ne);
    /* Each router: p terminals, a-1 local and h global links. */
    for (uint32_t v = t->ndevices; v < t->nv; v++) {
        assert_int_equal(p + a - 1 + h, degree(t, v));
    }
    /* Exactly one global link between every pair of groups. */
    uint32_t pairs[9][9] = {{0}};
    for (uint32_t i = 0; i < t->ne; i++) {
        const sy_topo_edge_t *e = &t->e[i];
        if (e->a < t->ndevices) {
            continue;
        }
        uint32_t ga = (e->a - t->ndevices) / a, gb = (e->b - t->ndevices) / a;
        if (ga != gb) {
            pairs[ga][gb]++;
            pairs[gb][ga]++;
        }
    }
    for (uint32_t i = 0; i < g; i++) {
        for (uint32_t j = 0; j < g; j++) {
            assert_int_equal(i == j ? 0 : 1, pairs[i][j]);
        }
    }
    assert_true(linked(t, "r0_0", "r1_0")); /* group 0 port 0 -> group 1 */
    assert_true(linked(t, "n0", "r0_0"));
    assert_true(linked(t, "n71", "r8_3"));
    /* Terminal to terminal: at most local, global, local hops + 2. */
    assert_int_equal(5, device_diameter(t));
    check_csr(t);
    sy_topo_free(t);

    /* Two global links per group pair (a*h = 2*(g-1)). */
    t = fab_generate("dragonfly:a=2,p=1,h=2,g=3");
    assert_int_equal(6, t->nswitches);
    assert_int_equal(6 + 3 + 6, t->ne);
    sy_topo_free(t);
}

static void test_gen_torus(void **state)
{
    (void)state;
    sy_topo_t *t = fab_generate("torus:3x3x3");
    assert_int_equal(27, t->ndevices);
    assert_int_equal(27, t->nswitches);
    uint32_t router_links = 0;
    for (uint32_t i = 0; i < t->ne; i++) {
        router_links += (t->e[i].a >= t->ndevices);
    }
    assert_int_equal(81, router_links);
    assert_int_equal(81 + 27, t->ne);
    for (uint32_t v = t->ndevices; v < t->nv; v++) {
        assert_int_equal(7, degree(t, v));
    }
    assert_true(linked(t, "r0-0-0", "r2-0-0")); /* wrap-around */
    assert_true(linked(t, "r0-0-0", "r0-1-0"));
    assert_true(linked(t, "n1", "r1-0-0")); /* dimension 0 fastest */
    assert_true(linked(t, "n3", "r0-1-0"));
    assert_int_equal(3 + 2, device_diameter(t));
    check_csr(t);
    sy_topo_free(t);

    t = fab_generate("torus:4x4x8");
    assert_int_equal(128, t->nswitches);
    assert_int_equal(3 * 128 + 128, t->ne);
    assert_int_equal(2 + 2 + 4 + 2, device_diameter(t));
    sy_topo_free(t);

    /* Size 2: one link per pair; size 1: none; p devices per router. */
    t = fab_generate("torus:2x3x1,p=2");
    assert_int_equal(6, t->nswitches);
    assert_int_equal(12, t->ndevices);
    assert_int_equal(3 + 6 + 12, t->ne);
    assert_true(linked(t, "n1", "r0-0-0"));
    assert_true(linked(t, "n2", "r1-0-0"));
    sy_topo_free(t);

    t = fab_generate("torus:5");
    assert_int_equal(5 + 5, t->ne);
    sy_topo_free(t);
}

static void test_gen_errors(void **state)
{
    (void)state;
    static const struct {
        const char *spec, *want;
    } bad[] = {
        {"fattree:k=3", "even k"},
        {"fattree", "needs k="},
        {"fattree:k=4,k=4", "given twice"},
        {"fattree:k=4,a=1", "unknown parameter"},
        {"fattree:k=300", "more than the generator limit"},
        {"dragonfly:a=4,p=2,h=2", "needs a=, p=, h= and g="},
        {"dragonfly:a=4,p=2,h=2,g=8", "multiple of g-1"},
        {"dragonfly:a=100000,p=100,h=1,g=2", "too large"},
        {"torus:", "needs dimensions"},
        {"torus:4xx4", "expected torus dimensions"},
        {"torus:4x4x", "expected torus dimensions"},
        {"torus:0x4", "between 1"},
        {"torus:1000x1000x1000", "more than the generator limit"},
        {"torus:100x100x100,p=10", "more than the generator limit"},
        {"hypercube:n=3", "unknown generator"},
        {"fattree:k=4,speed=fast", "bad value"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        sy_topo_t *t = NULL;
        char *err = NULL;
        pmix_status_t rc = sy_topo_generate(bad[i].spec, &t, &err);
        if (rc == PMIX_SUCCESS || err == NULL || strstr(err, bad[i].want) == NULL) {
            fprintf(stderr, "%s: rc %d, '%s'\n", bad[i].spec, rc, err ? err : "(null)");
            fail();
        }
        assert_null(t);
        free(err);
    }
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_topo_generate(NULL, NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model),         cmocka_unit_test(test_model_many),
        cmocka_unit_test(test_hostlist),      cmocka_unit_test(test_speed),
        cmocka_unit_test(test_slurm_file),    cmocka_unit_test(test_slurm_errors),
        cmocka_unit_test(test_ibnet_files),   cmocka_unit_test(test_ibnet_details),
        cmocka_unit_test(test_ibnet_errors),  cmocka_unit_test(test_slurm_details),
        cmocka_unit_test(test_ibnet_verbose), cmocka_unit_test(test_osm_file),
        cmocka_unit_test(test_ibsim_file),    cmocka_unit_test(test_native_file),
        cmocka_unit_test(test_native_errors), cmocka_unit_test(test_load_front),
        cmocka_unit_test(test_gen_fattree),   cmocka_unit_test(test_gen_dragonfly),
        cmocka_unit_test(test_gen_torus),     cmocka_unit_test(test_gen_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
