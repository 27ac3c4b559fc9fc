/* In-memory fabric topology: the graph every part of the fabric engine
 * works on.
 *
 * Vertices are devices (endpoint NICs/ports) and switches (switches, IB
 * routers, torus/dragonfly routers); edges are undirected links between
 * two distinct vertices, at most one per pair (parallel cables are
 * collapsed into one edge whose `count` says how many there were).  Ids
 * are dense uint32 indices in insertion order, so readers and generators
 * fix the device order that later becomes PMIX_FABRIC_DEVICE_INDEX.
 *
 * The struct is visible so that hot loops (BFS, cost matrices) can read the
 * arrays directly; only the functions below modify it.  After any
 * structural change the CSR adjacency is stale until sy_topo_finalize()
 * runs again; link state changes keep it valid (consumers filter on state).
 *
 * Not thread-safe for writers; any number of readers may share a
 * finalized topology. */
#ifndef SWITCHYARD_FABRIC_TOPO_H
#define SWITCHYARD_FABRIC_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

/* Hard bounds: inputs asking for more are rejected, never attempted. */
#define SY_TOPO_MAX_VERTICES 10000000u
#define SY_TOPO_MAX_EDGES 100000000u
#define SY_TOPO_MAX_NAME 1024u
/* Planes are rails or subnets: a handful in practice.  The bound keeps the
 * linear lookup in sy_topo_add_plane cheap on hostile input. */
#define SY_TOPO_MAX_PLANES 4096u
/* Generators stop well below the reader bound: a spec is a few bytes and
 * must not be able to ask for gigabytes. */
#define SY_TOPO_GEN_MAX_VERTICES 4000000u

#define SY_TOPO_NONE UINT32_MAX

typedef enum { SY_TOPO_DEVICE = 0, SY_TOPO_SWITCH = 1 } sy_topo_kind_t;

typedef struct {
    char *name;     /* unique over all vertices */
    char *host;     /* devices: host name (may be NULL); switches: NULL */
    char *guid;     /* optional hardware address / GUID text */
    char *label;    /* optional human-readable description */
    uint32_t plane; /* index into planes[], SY_TOPO_NONE if unset */
    int32_t level;  /* switches: tree level if known, else -1 */
    uint8_t kind;   /* sy_topo_kind_t */
} sy_topo_vertex_t;

typedef struct {
    uint32_t a, b;  /* a < b */
    uint64_t speed; /* b/s summed over parallel cables, 0 = unknown */
    uint32_t count; /* parallel cables collapsed into this edge */
    uint8_t state;  /* PMIX_LINK_UP / PMIX_LINK_DOWN / PMIX_LINK_STATE_UNKNOWN */
} sy_topo_edge_t;

/* Open-addressing id index: maps a 64-bit hash plus an equality test on
 * the stored id to that id.  Used for names and for vertex pairs. */
typedef struct {
    uint64_t *hash;
    uint32_t *id; /* SY_TOPO_NONE marks an empty slot */
    size_t cap;   /* power of two or 0 */
    size_t count;
} sy_topo_index_t;

typedef struct sy_topo {
    sy_topo_vertex_t *v;
    uint32_t nv, cap_v;
    uint32_t ndevices, nswitches;

    sy_topo_edge_t *e;
    uint32_t ne, cap_e;

    char **planes; /* plane ids in order of first declaration */
    uint32_t nplanes;

    /* CSR adjacency, valid when `finalized`: neighbours of vertex i are
     * adj[adj_off[i] .. adj_off[i+1]), adj_edge[] the matching edge ids,
     * sorted by neighbour id. */
    uint32_t *adj_off;
    uint32_t *adj;
    uint32_t *adj_edge;
    bool finalized;

    /* Per-graph bounds, 0 = the SY_TOPO_MAX_* defaults.  Readers lower
     * them on request (sy_topo_limits_t) so fuzzers stay small. */
    uint32_t max_vertices, max_edges;

    /* What a reader passed over without failing (lines that are not
     * topology, such as "DR path ..." chatter in a capture): one line for
     * the operator, NULL when there is nothing to say. */
    char *note;
    char *source;        /* file name or generator spec */
    char *format;        /* "slurm", "ibnet", "ibnet-ports", "native", "fattree", ... */
    uint64_t generation; /* incremented by every change */

    sy_topo_index_t names;
    sy_topo_index_t pairs;
} sy_topo_t;

/* Lifecycle.  *out is set only on success. */
pmix_status_t sy_topo_new(sy_topo_t **out);
void sy_topo_free(sy_topo_t *t);
/* Record where the graph came from (either may be NULL). */
pmix_status_t sy_topo_set_source(sy_topo_t *t, const char *source, const char *format);

/* Add a vertex.  PMIX_EXISTS if the name is taken (*id then holds the
 * existing vertex), PMIX_ERR_BAD_PARAM for an empty/oversized name,
 * PMIX_ERR_OUT_OF_RESOURCE beyond SY_TOPO_MAX_VERTICES.  host/guid may be
 * NULL.  `id` may be NULL. */
pmix_status_t sy_topo_add_device(sy_topo_t *t, const char *name, const char *host, const char *guid,
                                 uint32_t *id);
pmix_status_t sy_topo_add_switch(sy_topo_t *t, const char *name, int32_t level, uint32_t *id);
pmix_status_t sy_topo_set_label(sy_topo_t *t, uint32_t v, const char *label);
pmix_status_t sy_topo_set_guid(sy_topo_t *t, uint32_t v, const char *guid);
pmix_status_t sy_topo_set_level(sy_topo_t *t, uint32_t v, int32_t level);

/* Planes: add (or find) a plane id; attach a vertex to one. */
pmix_status_t sy_topo_add_plane(sy_topo_t *t, const char *plane, uint32_t *idx);
pmix_status_t sy_topo_set_plane(sy_topo_t *t, uint32_t v, uint32_t plane);

/* Link flags for sy_topo_add_link. */
#define SY_TOPO_LINK_PARALLEL 0x1u /* an existing edge gains a cable: count++, speed += */

/* Add the undirected link a-b.  If the pair is already linked: with
 * SY_TOPO_LINK_PARALLEL the cable is merged into the edge (PMIX_SUCCESS),
 * otherwise nothing changes and PMIX_EXISTS is returned.  Self links are
 * PMIX_ERR_BAD_PARAM.  `edge` (may be NULL) receives the edge id. */
pmix_status_t sy_topo_add_link(sy_topo_t *t, uint32_t a, uint32_t b, uint64_t speed, uint8_t state,
                               unsigned flags, uint32_t *edge);
pmix_status_t sy_topo_set_link_state(sy_topo_t *t, uint32_t edge, uint8_t state);

/* Lookups: PMIX_ERR_NOT_FOUND when absent. */
pmix_status_t sy_topo_find(const sy_topo_t *t, const char *name, uint32_t *id);
pmix_status_t sy_topo_find_link(const sy_topo_t *t, uint32_t a, uint32_t b, uint32_t *edge);

/* Build the CSR adjacency (idempotent).  Must run before sy_topo_neighbors. */
pmix_status_t sy_topo_finalize(sy_topo_t *t);
/* Neighbours of v (pointers into the CSR arrays; edges may be NULL).
 * PMIX_ERR_NOT_AVAILABLE if the topology is not finalized. */
pmix_status_t sy_topo_neighbors(const sy_topo_t *t, uint32_t v, const uint32_t **nbrs,
                                const uint32_t **edges, uint32_t *n);

/* Whether link e can join its two ends in a graph search over the edge
 * list (no CSR needed): not PMIX_LINK_DOWN, both ends valid vertices, and
 * not a self-loop (which joins nothing). */
static inline bool sy_topo_edge_usable(const sy_topo_t *t, const sy_topo_edge_t *e)
{
    return e->state != PMIX_LINK_DOWN && e->a < t->nv && e->b < t->nv && e->a != e->b;
}

/* Optional bounds for the readers; NULL or 0 fields mean the defaults.
 * max_vertices also bounds Slurm hostlist expansion (all expressions of a
 * file together). */
typedef struct {
    uint32_t max_vertices;
    uint32_t max_edges;
} sy_topo_limits_t;

/* ---- readers (read_*.c) ----------------------------------------------
 * Each parses `len` bytes of `buf` (need not be NUL-terminated) and sets
 * *out on success.  On failure *errmsg (if errmsg != NULL) receives a
 * malloc'd message "NAME:LINE: what was expected" that the caller frees;
 * `name` is used only in messages (NULL means "<input>"). */
pmix_status_t sy_topo_read_slurm_buffer(const char *buf, size_t len, const char *name,
                                        const sy_topo_limits_t *lim, sy_topo_t **out,
                                        char **errmsg);
/* Accepts both the default and the -p (ports) ibnetdiscover outputs. */
pmix_status_t sy_topo_read_ibnet_buffer(const char *buf, size_t len, const char *name,
                                        const sy_topo_limits_t *lim, sy_topo_t **out,
                                        char **errmsg);
/* OpenSM's subnet.lst dump (--dump_files; /var/log/opensm-subnet.lst). */
pmix_status_t sy_topo_read_osm_buffer(const char *buf, size_t len, const char *name,
                                      const sy_topo_limits_t *lim, sy_topo_t **out, char **errmsg);
/* ibsim's net files (ibsim-utils). */
pmix_status_t sy_topo_read_ibsim_buffer(const char *buf, size_t len, const char *name,
                                        const sy_topo_limits_t *lim, sy_topo_t **out,
                                        char **errmsg);
pmix_status_t sy_topo_read_native_buffer(const char *buf, size_t len, const char *name,
                                         const sy_topo_limits_t *lim, sy_topo_t **out,
                                         char **errmsg);

/* Format guess from content: "slurm", "ibnet", "osm-lst", "ibsim",
 * "native" or NULL.  Lines no format starts with are passed over. */
const char *sy_topo_detect_format(const char *buf, size_t len);

/* Read a file (at most SY_TOPO_MAX_FILE bytes) with the given reader
 * ("slurm", "ibnet", "osm-lst", "ibsim", "native"; NULL = detect from
 * content). */
#define SY_TOPO_MAX_FILE (1024u * 1024u * 1024u)
pmix_status_t sy_topo_load(const char *path, const char *format, sy_topo_t **out, char **errmsg);
pmix_status_t sy_topo_load_buffer(const char *buf, size_t len, const char *name, const char *format,
                                  const sy_topo_limits_t *lim, sy_topo_t **out, char **errmsg);

/* ---- generators (gen.c) ----------------------------------------------
 *   fattree:k=K                 K even, 2..4096
 *   dragonfly:a=A,p=P,h=H,g=G   (A*H) % (G-1) == 0 when G > 1
 *   torus:D1xD2x...[,p=P]       each Di >= 1, P devices per router
 * each optionally followed by ",speed=SPEED" for every link.  Devices are
 * vertices 0..N-1.  More than SY_TOPO_GEN_MAX_VERTICES is refused.  See
 * docs/fabric.md for names, vertex order and wiring. */
pmix_status_t sy_topo_generate(const char *spec, sy_topo_t **out, char **errmsg);

/* ---- editing (topo_edit.c) -------------------------------------------
 * Remove vertex v and every link touching it.  The graph is rebuilt
 * compactly in place: vertices after v move down one id, surviving links
 * keep their order, speed, count and state, planes, labels and source are
 * kept.  The generation grows by one and the CSR adjacency must be built
 * again (sy_topo_finalize).  On failure t is unchanged. */
pmix_status_t sy_topo_remove_vertex(sy_topo_t *t, uint32_t v);

#endif
