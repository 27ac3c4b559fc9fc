/* Shared state of one jobinfo compilation (jobinfo.h), split over
 *   jobinfo.c            entry points, summary, error reporting, singleton
 *   jobinfo_values.c     reading integers/strings of any accepted type,
 *                        checking the types the standard fixes, put helpers
 *   jobinfo_walk.c       containers and realms -> builder entries
 *   jobinfo_maps.c       node/proc maps -> layout, node ids, this node
 *   jobinfo_derive.c     values that follow from the others
 *   jobinfo_resources.c  PMIx_server_register_resources
 *
 * The builder itself holds everything the host gave: derivation asks it
 * (sy_jseg_peek) what is known and adds only what is absent, which is how
 * host values win over derived ones. */
#ifndef SWITCHYARD_COMMON_JOBINFO_INTERNAL_H
#define SWITCHYARD_COMMON_JOBINFO_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "common/jobinfo.h"
#include "common/jseg.h"

/* Containers nest at most this deep; deeper input is refused rather than
 * recursed into (a hostile description must not exhaust the stack). */
#define SY_JI_MAX_DEPTH 16
#define SY_JI_NO_ID UINT32_MAX
/* Bound on the ranks one rank-list string may expand to. */
#define SY_JI_MAX_RANKS 10000000u

/* One node of the job's layout, in node-map order. */
typedef struct {
    char *name;         /* NULL when only the process map was given */
    uint32_t id;        /* PMIX_NODEID, SY_JI_NO_ID until assigned */
    pmix_rank_t *ranks; /* this job's ranks on it, ascending */
    size_t nranks;
} sy_ji_node_t;

/* A PMIX_NODE_INFO_ARRAY naming its node only by hostname: emitted once
 * the layout has given out node ids. */
typedef struct {
    const pmix_info_t *info;
    size_t ninfo;
    const char *hostname;
    int depth;
} sy_ji_deferred_t;

typedef struct {
    const char *nspace; /* NULL for resources */
    const char *local_hostname;
    sy_jseg_builder_t *b;
    char **error;
    /* Node arrays waiting for an id (walk -> maps). */
    sy_ji_deferred_t *deferred;
    size_t ndeferred;
    bool defer_nodes; /* hostname-only node arrays wait for the layout */
    /* Layout from the job's maps (maps -> derive). */
    sy_ji_node_t *nodes;
    size_t nnodes;
    bool have_names; /* a node map was given */
    bool have_procs; /* a process map was given */
    size_t local;    /* index of this node in nodes, or SIZE_MAX */
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
/* Peek helpers on the builder. */
bool sy_ji_peek_uint(const sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                     uint64_t *out);
const char *sy_ji_peek_text(const sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                            bool *present);
/* Put only when (realm, id, key) holds nothing yet. */
pmix_status_t sy_ji_put_default(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                const pmix_value_t *v);
pmix_status_t sy_ji_default_u32(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                uint32_t u);
pmix_status_t sy_ji_default_u16(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                uint16_t u);
pmix_status_t sy_ji_default_rank(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                 pmix_rank_t r);
pmix_status_t sy_ji_default_str(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                const char *s);
/* "r,r,r" of n ranks (malloc'd; "" for none), NULL on ENOMEM. */
char *sy_ji_rank_list(const pmix_rank_t *ranks, size_t n);
/* Parse "r,r-s,..." into ascending unique ranks (malloc'd). */
pmix_status_t sy_ji_parse_ranks(const char *s, pmix_rank_t **ranks, size_t *n);
/* Host names equal, ignoring a domain on either side ("n1" ~ "n1.x.org"). */
bool sy_ji_same_host(const char *a, const char *b);
/* name is one of the comma-separated aliases. */
bool sy_ji_in_aliases(const char *aliases, const char *name);

/* ---- jobinfo_walk.c ---- */
/* Emit info[] (flat keys in `realm`/`id`) into the builder, recursing into
 * containers; hostname-only node arrays are deferred when ctx->deferred is
 * used (nspace compilation) or resolved at once (resources). */
pmix_status_t sy_ji_walk(sy_ji_t *ctx, const pmix_info_t *info, size_t ninfo, sy_realm_t realm,
                         uint32_t id, int depth);
/* Emit the deferred node arrays once ids can be given out. */
pmix_status_t sy_ji_walk_deferred(sy_ji_t *ctx);
/* The node id for a node named `name`: a node already in the builder's
 * node realm with that hostname or alias, a layout node of that name, or
 * the next id nobody uses. */
uint32_t sy_ji_node_id_for(sy_ji_t *ctx, const char *name);

/* ---- jobinfo_maps.c ---- */
/* Build ctx->nodes from the job realm's maps, give every node an id and
 * find this node. */
pmix_status_t sy_ji_layout(sy_ji_t *ctx);

/* ---- jobinfo_derive.c ---- */
pmix_status_t sy_ji_derive(sy_ji_t *ctx, int nlocalprocs);
pmix_status_t sy_ji_summarize(sy_ji_t *ctx, int nlocalprocs, sy_jobinfo_summary_t *s);

#endif
