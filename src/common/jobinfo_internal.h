/* Shared state of one jobinfo compilation (jobinfo.h), split over
 *   jobinfo.c            entry points, summary, error reporting, singleton
 *   jobinfo_values.c     reading integers/strings of any accepted type,
 *                        checking the types the standard fixes, put helpers
 *   jobinfo_walk.c       containers and realms -> builder entries
 *   jobinfo_maps.c       node/proc maps -> layout (ranges), node ids, this node
 *   jobinfo_derive.c     the layout section, applications, job-level values
 *   jobinfo_procs.c      the per-process data the host gave -> runs, entries
 *   jobinfo_resources.c  PMIx_server_register_resources
 *
 * The builder holds everything the host gave except the per-process data,
 * which is read where the host keeps it (the registration stays valid
 * until its callback) and ends up in the layout's runs, or nowhere when it
 * says what the maps say.  Values that follow from the maps are derived by
 * readers (jseg_layout.c), never stored; the few job- and application-
 * level values that follow from the rest are stored where the host gave
 * none, which is how host values win over derived ones. */
#ifndef SWITCHYARD_COMMON_JOBINFO_INTERNAL_H
#define SWITCHYARD_COMMON_JOBINFO_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "common/jobinfo.h"
#include "common/jseg.h"
#include "common/jseg_layout.h"

/* Containers nest at most this deep; deeper input is refused rather than
 * recursed into (a hostile description must not exhaust the stack). */
#define SY_JI_MAX_DEPTH 16
#define SY_JI_NO_ID UINT32_MAX
/* Bound on the ranks one rank-list string may expand to. */
#define SY_JI_MAX_RANKS 10000000u

/* One node of the job's layout, in node-map order. */
typedef struct {
    char *name;            /* NULL when only the process map was given */
    uint32_t id;           /* PMIX_NODEID, SY_JI_NO_ID until assigned */
    sy_jl_range_t *ranges; /* this job's ranks on it: ascending, disjoint */
    size_t nranges, nranks;
} sy_ji_node_t;

/* A PMIX_NODE_INFO_ARRAY naming its node only by hostname: emitted once
 * the layout has given out node ids. */
typedef struct {
    const pmix_info_t *info;
    size_t ninfo;
    const char *hostname;
    int depth;
} sy_ji_deferred_t;

/* A PMIX_PROC_DATA container, read after the layout is known.  The two
 * values the layout itself needs are found while it is recorded, so that
 * the host's per-rank data is read twice in all (here, and when it is
 * emitted), not once per use: at a million ranks it is gigabytes. */
typedef struct {
    pmix_rank_t rank;
    uint32_t seq; /* order of appearance: later containers win */
    const pmix_info_t *items;
    size_t n;
    int depth;
    const pmix_value_t *nodeid, *appnum; /* its last PMIX_NODEID / PMIX_APPNUM */
} sy_ji_proc_t;

typedef struct {
    const char *nspace; /* NULL for resources */
    const char *local_hostname;
    sy_jseg_builder_t *b;
    char **error;
    /* the host's values stay valid until the builder is freed: borrow them */
    bool borrow;
    /* Node arrays waiting for an id (walk -> maps). */
    sy_ji_deferred_t *deferred;
    size_t ndeferred;
    bool defer_nodes; /* hostname-only node arrays wait for the layout */
    /* PMIX_PROC_DATA containers (walk -> procs), by (rank, seq) once sorted */
    bool record_procs;
    sy_ji_proc_t *procs;
    size_t nprocs, procs_cap;
    /* Layout from the job's maps (maps -> derive). */
    sy_ji_node_t *nodes;
    size_t nnodes;
    bool have_names;           /* a node map was given */
    bool have_procs;           /* a process map was given */
    size_t local;              /* index of this node in nodes, or SIZE_MAX */
    sy_jl_noderun_t *noderuns; /* every mapped rank, by rank */
    size_t nnoderuns;
    /* An earlier segment's layout (compile_more): its node names. */
    const sy_jl_view_t *prior;
} sy_ji_t;

/* ---- jobinfo.c ---- */
/* Record the first failure as a malloc'd sentence in *ctx->error and
 * return rc. */
pmix_status_t sy_ji_fail(sy_ji_t *ctx, pmix_status_t rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sy_ji_ctx_free(sy_ji_t *ctx);

/* ---- jobinfo_values.c ---- */
/* Integer payload of any integer type (and PMIX_PROC_RANK, PMIX_SIZE,
 * PMIX_PID); false for other types and negative values. */
bool sy_ji_uint(const pmix_value_t *v, uint64_t *out);
/* The text of a PMIX_STRING or PMIX_REGEX value (NULL for a NULL string,
 * a non-text type or a binary regex); points into v. */
const char *sy_ji_text(const pmix_value_t *v);
/* PMIX_ERR_BAD_PARAM (with the sentence) when `key` is one whose type the
 * standard fixes and v cannot hold it; integers of any width and
 * signedness are accepted when the value fits. */
pmix_status_t sy_ji_check_type(sy_ji_t *ctx, const char *key, const pmix_value_t *v);
/* The same in two steps, for many values of one key: the key's entry in
 * the table of fixed types (-1: none), then the check. */
int sy_ji_fixed_type(const char *key);
pmix_status_t sy_ji_check_fixed(sy_ji_t *ctx, const char *key, int fixed, const pmix_value_t *v);
/* Peek helpers on the builder. */
bool sy_ji_peek_uint(const sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                     uint64_t *out);
const char *sy_ji_peek_text(const sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                            bool *present);
/* Put a value the host gave (borrowed when ctx->borrow). */
pmix_status_t sy_ji_put_host(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                             const pmix_value_t *v);
/* Put only when (realm, id, key) holds nothing yet. */
pmix_status_t sy_ji_put_default(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                const pmix_value_t *v);
pmix_status_t sy_ji_default_u32(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                uint32_t u);
pmix_status_t sy_ji_default_rank(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                 pmix_rank_t r);
pmix_status_t sy_ji_default_str(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                const char *s);
/* Parse "r,r-s,..." into ascending unique ranks (malloc'd). */
pmix_status_t sy_ji_parse_ranks(const char *s, pmix_rank_t **ranks, size_t *n);
/* Sort ranges and merge those that overlap or touch: ascending, disjoint;
 * *nranks receives the ranks they hold. */
void sy_ji_normalize_ranges(sy_jl_range_t *r, size_t *n, size_t *nranks);
/* Host names equal, ignoring a domain on either side ("n1" ~ "n1.x.org"). */
bool sy_ji_same_host(const char *a, const char *b);
/* name is one of the comma-separated aliases. */
bool sy_ji_in_aliases(const char *aliases, const char *name);

/* ---- jobinfo_walk.c ---- */
/* Emit info[] (flat keys in `realm`/`id`) into the builder, recursing into
 * containers; hostname-only node arrays are deferred when ctx->defer_nodes
 * (nspace compilation) or resolved at once, and PMIX_PROC_DATA containers
 * recorded when ctx->record_procs or emitted at once. */
pmix_status_t sy_ji_walk(sy_ji_t *ctx, const pmix_info_t *info, size_t ninfo, sy_realm_t realm,
                         uint32_t id, int depth);
/* Emit the deferred node arrays once ids can be given out. */
pmix_status_t sy_ji_walk_deferred(sy_ji_t *ctx);
/* The node id for a node named `name`: a node already in the builder's
 * node realm with that hostname or alias, a layout node of that name, or
 * the next id nobody uses. */
uint32_t sy_ji_node_id_for(sy_ji_t *ctx, const char *name);
/* One flat value: checked, put (a PMIX_SESSION_ID also names a session). */
pmix_status_t sy_ji_flat(sy_ji_t *ctx, const pmix_info_t *in, sy_realm_t realm, uint32_t id);
/* A container's items as an array. */
pmix_status_t sy_ji_items(sy_ji_t *ctx, const pmix_info_t *in, const pmix_info_t **items,
                          size_t *n);

/* ---- jobinfo_maps.c ---- */
/* Build ctx->nodes from the job realm's maps, give every node an id and
 * find this node. */
pmix_status_t sy_ji_layout(sy_ji_t *ctx);
/* The layout node holding rank r (SIZE_MAX: none); *hint (start at 0) is
 * the run found last, so that ascending ranks cost no search. */
size_t sy_ji_node_of_rank(const sy_ji_t *ctx, pmix_rank_t r, size_t *hint);

/* ---- jobinfo_procs.c ---- */
/* Sort the recorded containers by (rank, seq). */
void sy_ji_sort_procs(sy_ji_t *ctx);
/* The PMIX_NODEID (appnum false) or PMIX_APPNUM the containers of one
 * rank give (the last one wins), or NULL; [first, end) are that rank's
 * containers. */
const pmix_value_t *sy_ji_proc_value(const sy_ji_t *ctx, size_t first, size_t end, bool appnum);
/* The containers of the rank at procs[*i]: sets *end past them. */
size_t sy_ji_rank_end(const sy_ji_t *ctx, size_t i);
/* The recorded per-process data against the layout v: values the layout
 * derives alike dropped, the rest as column runs or builder entries.  The
 * columns' keys and strings are appended to a copy of the layout's
 * strings. */
typedef struct {
    sy_jl_col_t *cols;
    size_t ncols;
    sy_jl_colrun_t *runs;
    size_t nruns;
    char *strings;
    size_t strings_size;
} sy_ji_columns_t;
pmix_status_t sy_ji_procs_emit(sy_ji_t *ctx, const sy_jl_view_t *v, const char *strings,
                               size_t strings_size, sy_ji_columns_t *out);
void sy_ji_columns_free(sy_ji_columns_t *c);

/* ---- jobinfo_derive.c ---- */
pmix_status_t sy_ji_derive(sy_ji_t *ctx, int nlocalprocs);
pmix_status_t sy_ji_summarize(sy_ji_t *ctx, int nlocalprocs, sy_jobinfo_summary_t *s);

#endif
