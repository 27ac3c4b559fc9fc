/* The layout section of a job-data segment: what the node and process maps
 * say, kept as the maps say it (ranges of ranks, not one record per rank),
 * and the per-process values the host passed for many ranks, kept as runs
 * (docs/data-format.md, "Layout").  The values that follow from the maps
 * (a rank's node, host name, local and node rank, application, a node's
 * peers, ...) are derived from it when a lookup asks, never stored.
 *
 * The section is one self-contained blob (offsets from its own start), so
 * that the writer (jobinfo, in memory) and every reader (in the mapped
 * file) look at the same bytes through the same functions: a value is
 * derived by exactly one piece of code.
 *
 * Reading through a view checks every record it touches: its bounds, and,
 * in a mapped file, the chunk sums of the bytes (jseg_format.h).  Nothing
 * a lookup does scans the job. */
#ifndef SWITCHYARD_COMMON_JSEG_LAYOUT_H
#define SWITCHYARD_COMMON_JSEG_LAYOUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "common/jseg.h"

#define SY_JL_NONE UINT32_MAX

/* flags */
#define SY_JL_NAMES 1u /* a node map was given: nodes have names */
#define SY_JL_PROCS 2u /* a process map was given: nodes have ranks */

typedef struct {
    uint32_t flags;
    uint32_t offset; /* PMIX_NPROC_OFFSET: a rank's PMIX_GLOBAL_RANK is offset + rank */
    uint32_t nnodes, nranges, nnoderuns, nappruns;
    uint32_t napps, nappnodes, ncols, ncolruns;
    /* When node run k holds ranks base + k * stride .. (the usual block
     * placement), a rank's run is found without a search; 0: search. */
    uint32_t noderun_base, noderun_stride;
    uint64_t nodes_off;    /* nnodes sy_jl_node_t, in node-map order */
    uint64_t ranges_off;   /* nranges sy_jl_range_t: each node's ranks, ascending */
    uint64_t byid_off;     /* nnodes uint32_t node indexes, by ascending node id */
    uint64_t noderuns_off; /* nnoderuns sy_jl_noderun_t, by rank */
    uint64_t appruns_off;  /* nappruns sy_jl_apprun_t, by rank: every rank of the job */
    uint64_t apps_off;     /* napps sy_jl_app_t, by application number */
    uint64_t appnodes_off; /* nappnodes uint32_t node indexes */
    uint64_t cols_off;     /* ncols sy_jl_col_t */
    uint64_t colruns_off;  /* ncolruns sy_jl_colrun_t */
    uint64_t strings_off;  /* node names, column keys and string values */
    uint64_t strings_size;
} sy_jl_header_t;

typedef struct {
    uint32_t first, count;
} sy_jl_range_t;

typedef struct {
    uint32_t id;
    uint32_t name_off, name_len; /* name_len SY_JL_NONE: no name */
    uint32_t nranks;
    uint32_t range_off, nranges; /* into ranges */
} sy_jl_node_t;

/* Ranks first..first+count-1 are on node `node`, with local ranks
 * local_base.. */
typedef struct {
    uint32_t first, count, node, local_base;
} sy_jl_noderun_t;

/* Ranks first..first+count-1 exist; their application (SY_JL_NONE:
 * unknown) and application ranks app_base.. (SY_JL_NONE: not derived). */
typedef struct {
    uint32_t first, count, appnum, app_base;
} sy_jl_apprun_t;

/* An application's nodes: nnodes node indexes at node_off, or, with
 * node_off SY_JL_NONE, every node of the map. */
typedef struct {
    uint32_t appnum, node_off, nnodes, reserved;
} sy_jl_app_t;

/* One process-realm key the host gave for many ranks. */
typedef struct {
    uint32_t key_off, key_len;
    uint32_t run_off, nruns; /* into colruns, ascending, disjoint */
} sy_jl_col_t;

#define SY_JL_FORM_RAW 0u
#define SY_JL_FORM_STRING 1u
/* Ranks first..first+count-1 hold a value of `type`: raw, the element's
 * bytes in `value` (low bytes), plus (rank - first) when step is 1; a
 * string, `value` bytes at strings + aux, or NULL when value is
 * UINT64_MAX. */
typedef struct {
    uint32_t first, count;
    uint16_t type;
    uint8_t step, form;
    uint32_t aux;
    uint64_t value;
} sy_jl_colrun_t;

/* ---- the builder's side: plain arrays, laid out by sy_jl_pack ---- */
typedef struct {
    uint32_t flags, offset;
    const sy_jl_node_t *nodes;
    size_t nnodes;
    const sy_jl_range_t *ranges;
    size_t nranges;
    const sy_jl_noderun_t *noderuns;
    size_t nnoderuns;
    const sy_jl_apprun_t *appruns;
    size_t nappruns;
    const sy_jl_app_t *apps;
    size_t napps;
    const uint32_t *appnodes;
    size_t nappnodes;
    const sy_jl_col_t *cols;
    size_t ncols;
    const sy_jl_colrun_t *colruns;
    size_t ncolruns;
    const char *strings;
    size_t strings_size;
} sy_jl_parts_t;

/* The blob (malloc'd) holding parts; the node-by-id index is made here. */
pmix_status_t sy_jl_pack(const sy_jl_parts_t *parts, void **blob, size_t *size);

/* ---- reading ---- */
struct sy_jseg;
typedef struct {
    const uint8_t *base; /* the blob */
    uint64_t size;
    const struct sy_jseg *seg; /* NULL: a trusted blob in memory */
    uint64_t seg_off;          /* the blob's offset in seg */
    sy_jl_header_t h;
} sy_jl_view_t;

/* The layout a builder holds (sy_jseg_set_layout); false when none. */
bool sy_jseg_builder_layout(const sy_jseg_builder_t *b, sy_jl_view_t *v);

/* A view of a blob; false when its header does not describe sections
 * inside it.  seg: the mapped segment whose chunks reads check, or NULL. */
bool sy_jl_view_init(sy_jl_view_t *v, const void *blob, uint64_t size, const struct sy_jseg *seg,
                     uint64_t seg_off);

/* Derived values.  PMIX_ERR_NOT_FOUND when the layout says nothing of
 * (realm, id, key), PMIX_ERR_UNPACK_FAILURE when what it would read is
 * damaged.  out is the caller's zeroed value. */
pmix_status_t sy_jl_derive(const sy_jl_view_t *v, sy_realm_t realm, uint32_t id, const char *key,
                           pmix_value_t *out);
/* For a writer reading many values of the same keys: the derived key a
 * process-realm key is (-1: none), and whether the layout derives exactly
 * val (same type, same value) for rank r, without allocating. */
int sy_jl_proc_key(const char *key);
bool sy_jl_proc_equals(const sy_jl_view_t *v, uint32_t r, int k, const pmix_value_t *val);

/* A value the host gave for rank in a column. */
pmix_status_t sy_jl_column_get(const sy_jl_view_t *v, uint32_t rank, const char *key,
                               pmix_value_t *out);

/* Every key with a value of (realm, id): derived ones, and for the
 * process realm the columns, each once (columns before derived ones of
 * the same key, which they hide).  fn gets the key and the value, which it
 * takes over; a non-success return from fn stops the walk and is
 * returned. */
typedef pmix_status_t (*sy_jl_each_fn)(const char *key, pmix_value_t *val, void *ctx);
pmix_status_t sy_jl_each(const sy_jl_view_t *v, sy_realm_t realm, uint32_t id, sy_jl_each_fn fn,
                         void *ctx);

/* The ids of realm that the layout has values for, ascending: nodes,
 * applications, ranks.  *ids malloc'd (NULL when *n is 0). */
pmix_status_t sy_jl_ids(const sy_jl_view_t *v, sy_realm_t realm, uint32_t **ids, size_t *n);

/* Node `i` in map order (its name may be absent), for the writer's name
 * index and node lookups; false beyond the last or when damaged. */
bool sy_jl_node_at(const sy_jl_view_t *v, uint32_t i, uint32_t *id, const char **name, size_t *len);

/* A value's element bits as a column run holds them (raw types of at
 * most 8 bytes; *integer when a run may count up); false for other types. */
bool sy_jl_raw_bits(const pmix_value_t *val, uint64_t *bits, bool *integer);

/* "r,r,r" of the ranks of n ascending disjoint ranges (malloc'd, "" for
 * none), as PMIX_LOCAL_PEERS is written; NULL on ENOMEM. */
char *sy_jl_rank_list(const sy_jl_range_t *ranges, size_t n);

#endif
