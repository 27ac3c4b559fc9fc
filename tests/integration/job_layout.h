/* The job the integration tests register, shared by the test host and its
 * clients so that both sides compute the same expectations.
 *
 * Three nodes: node 0 "node-a.test" (2 procs), node 1 = this machine
 * (nlocal procs, the ones actually forked), node 2 "node-c.test" (2 procs).
 * Ranks are numbered node by node.  Two applications: app 0 holds the first
 * half of the ranks (rounded up), app 1 the rest.  Only public PMIx headers
 * are used here. */
#ifndef SY_TEST_JOB_LAYOUT_H
#define SY_TEST_JOB_LAYOUT_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LAYOUT_NNODES 3
#define LAYOUT_LOCAL_NODE 1
#define LAYOUT_SESSION_ID 7u
#define LAYOUT_UNIV_SIZE 64u
#define LAYOUT_JOBID "job-42"

typedef struct {
    unsigned nlocal;
    unsigned per_node[LAYOUT_NNODES];
    unsigned first_rank[LAYOUT_NNODES];
    unsigned size;
    unsigned app_size[2];
    char names[LAYOUT_NNODES][256];
} layout_t;

static inline void layout_init(layout_t *l, unsigned nlocal)
{
    memset(l, 0, sizeof *l);
    l->nlocal = nlocal;
    l->per_node[0] = 2;
    l->per_node[1] = nlocal;
    l->per_node[2] = 2;
    unsigned r = 0;
    for (int n = 0; n < LAYOUT_NNODES; n++) {
        l->first_rank[n] = r;
        r += l->per_node[n];
    }
    l->size = r;
    l->app_size[0] = (r + 1) / 2;
    l->app_size[1] = r - l->app_size[0];
    snprintf(l->names[0], sizeof l->names[0], "node-a.test");
    gethostname(l->names[1], sizeof l->names[1] - 1);
    snprintf(l->names[2], sizeof l->names[2], "node-c.test");
}

static inline unsigned layout_node_of(const layout_t *l, unsigned rank)
{
    for (unsigned n = LAYOUT_NNODES - 1; n > 0; n--)
        if (rank >= l->first_rank[n])
            return n;
    return 0;
}

static inline unsigned layout_app_of(const layout_t *l, unsigned rank)
{
    return rank < l->app_size[0] ? 0 : 1;
}

static inline unsigned layout_app_leader(const layout_t *l, unsigned app)
{
    return app == 0 ? 0 : l->app_size[0];
}

/* Comma list of the ranks on node n, e.g. "2,3,4". */
static inline void layout_peers(const layout_t *l, unsigned n, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (unsigned i = 0; i < l->per_node[n]; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%u", i ? "," : "", l->first_rank[n] + i);
    }
}

/* The host-given per-proc key every rank carries. */
static inline void layout_color(unsigned rank, char *buf, size_t cap)
{
    snprintf(buf, cap, "color-%u", rank * 7u + 3u);
}
#endif
