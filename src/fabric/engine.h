/* Fabric engine: one topology plus everything computed from it, kept up
 * to date through incremental changes.  The scheduler role serves
 * PMIX_FABRIC_* values from here; tools/switchyard-fabric prints and
 * exports them.
 *
 * Results (sy_fabric_result_t) are computed lazily: a getter computes its
 * result (and the results it depends on) when it is dirty, and
 * sy_fabric_engine_refresh() computes every dirty result at once.  With
 * SY_FABRIC_ENGINE_EAGER the constructors refresh before returning.
 *
 * Generation: starts at 1 and grows by exactly one with every change that
 * modified the topology (link state, device added or removed, file
 * reloaded with a different content); sy_topo_t.generation is kept equal
 * to it.  Each result records the generation it was computed from; a
 * result that a change did not affect stays valid and keeps its older
 * generation.  What each change invalidates is documented at the change
 * functions below and in docs/fabric.md ("Engine and updates").
 *
 * Pointers returned by the getters stay valid until the next change or
 * refresh that recomputes that result, or sy_fabric_engine_free.  The
 * engine is not thread-safe: callers serialise access (the cost
 * computation itself is multi-threaded). */
#ifndef SWITCHYARD_FABRIC_ENGINE_H
#define SWITCHYARD_FABRIC_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <pmix_common.h>

#include "fabric/coords.h"
#include "fabric/cost.h"
#include "fabric/devindex.h"
#include "fabric/groups.h"
#include "fabric/peers.h"
#include "fabric/planes.h"
#include "fabric/topo.h"

typedef enum {
    SY_FABRIC_R_DEVINDEX = 0,
    SY_FABRIC_R_PLANES,
    SY_FABRIC_R_PEERS,
    SY_FABRIC_R_COST,
    SY_FABRIC_R_GROUPS,
    SY_FABRIC_R_COORDS, /* logical view */
    SY_FABRIC_R_SHAPES, /* per-plane dims / shape / shape string */
    SY_FABRIC_R_COUNT
} sy_fabric_result_t;

#define SY_FABRIC_BIT(r) (1u << (r))
#define SY_FABRIC_ALL ((1u << SY_FABRIC_R_COUNT) - 1u)

/* sy_fabric_engine_opts_t.flags */
#define SY_FABRIC_ENGINE_EAGER 0x1u /* compute every result at creation */

typedef struct {
    sy_cost_metric_t metric;         /* SY_COST_HOPS by default (0) */
    sy_cost_algo_t algo;             /* SY_COST_ALGO_AUTO by default */
    unsigned nthreads;               /* 0 = automatic (cost.h) */
    uint64_t max_bytes;              /* cost matrix cap, 0 = cost.h default */
    sy_groups_method_t group_method; /* AUTO, LEAF, POD, ... */
    sy_groups_tree_mode_t tree_mode;
    sy_cost_progress_fn_t progress; /* may be NULL */
    void *progress_arg;
    unsigned flags; /* SY_FABRIC_ENGINE_* */
} sy_fabric_engine_opts_t;

/* Per computed plane (planes.h numbering): devices, dims, shape. */
typedef struct {
    uint32_t nplanes;
    uint32_t dims;       /* PMIX_FABRIC_DIMS, the same for every plane */
    uint32_t **shape;    /* nplanes arrays of dims entries */
    char **shape_string; /* nplanes strings "S0xS1x..." */
} sy_fabric_shapes_t;

typedef struct sy_fabric_engine sy_fabric_engine_t;

/* Constructors.  opts may be NULL (defaults).  format: "slurm", "ibnet",
 * "native" or NULL (detect).  On failure *errmsg (if not NULL) receives
 * a malloc'd one-line message ("FILE:LINE: ..." for parse errors). */
pmix_status_t sy_fabric_engine_load(const char *path, const char *format,
                                    const sy_fabric_engine_opts_t *opts, sy_fabric_engine_t **out,
                                    char **errmsg);
pmix_status_t sy_fabric_engine_generate(const char *spec, const sy_fabric_engine_opts_t *opts,
                                        sy_fabric_engine_t **out, char **errmsg);
void sy_fabric_engine_free(sy_fabric_engine_t *eng);

const sy_topo_t *sy_fabric_engine_topo(const sy_fabric_engine_t *eng);
uint64_t sy_fabric_engine_generation(const sy_fabric_engine_t *eng);
/* Message of the last failed change or computation ("" if none). */
const char *sy_fabric_engine_last_error(const sy_fabric_engine_t *eng);

/* ---- changes -------------------------------------------------------- */

/* Set the state of the link between two named vertices (PMIX_LINK_UP,
 * PMIX_LINK_DOWN, PMIX_LINK_STATE_UNKNOWN).  Same state: nothing happens.
 * UP <-> UNKNOWN (both usable): generation bumped, nothing invalidated.
 * Usability changed (to or from DOWN):
 *   switch-switch link: cost, planes, coords, shapes, and groups unless
 *     the group method is LEAF (leaf groups depend only on attachments);
 *   a link touching a device: cost, planes, peers, groups, coords, shapes.
 * The device index never changes.  PMIX_ERR_NOT_FOUND for unknown names
 * or no such link. */
pmix_status_t sy_fabric_engine_link_state(sy_fabric_engine_t *eng, const char *a_name,
                                          const char *b_name, uint8_t state);
/* Add a device (host may be NULL) linked to an existing switch at `speed`
 * b/s (0 = unknown).  It takes the highest vertex id, so it becomes the
 * last device index and the indexes of the others do not move.  It joins
 * the switch's declared plane, if any.  Invalidates everything. */
pmix_status_t sy_fabric_engine_add_device(sy_fabric_engine_t *eng, const char *name,
                                          const char *host, const char *switch_name,
                                          uint64_t speed);
/* Remove a device and its links; later devices move down one index.
 * PMIX_ERR_BAD_PARAM if the name is a switch.  Invalidates everything. */
pmix_status_t sy_fabric_engine_remove_device(sy_fabric_engine_t *eng, const char *name);
/* Re-read the source file if it changed on disk: same size and mtime ->
 * nothing; otherwise the content hash (FNV-1a 64) decides.  A changed
 * file replaces the topology (changes made through the API are lost) and
 * invalidates everything.  A file that no longer parses leaves the engine
 * as it was and returns the reader's error (last_error has the message).
 * PMIX_ERR_NOT_SUPPORTED for generated engines. */
pmix_status_t sy_fabric_engine_reload(sy_fabric_engine_t *eng);

/* ---- results -------------------------------------------------------- */

/* Compute exactly the dirty results. */
pmix_status_t sy_fabric_engine_refresh(sy_fabric_engine_t *eng);
/* Bit mask (SY_FABRIC_BIT) of the results that are dirty. */
unsigned sy_fabric_engine_dirty(const sy_fabric_engine_t *eng);
/* Generation a result was computed from (0 = never computed). */
uint64_t sy_fabric_engine_result_generation(const sy_fabric_engine_t *eng, sy_fabric_result_t r);
/* How many times a result was computed, and how long the last run took. */
uint64_t sy_fabric_engine_compute_count(const sy_fabric_engine_t *eng, sy_fabric_result_t r);
double sy_fabric_engine_compute_seconds(const sy_fabric_engine_t *eng, sy_fabric_result_t r);
const char *sy_fabric_result_name(sy_fabric_result_t r);

/* Getters: compute when dirty, then return a pointer into the engine. */
pmix_status_t sy_fabric_engine_devindex(sy_fabric_engine_t *eng, const sy_devindex_t **out);
pmix_status_t sy_fabric_engine_planes(sy_fabric_engine_t *eng, const sy_planes_t **out);
pmix_status_t sy_fabric_engine_peers(sy_fabric_engine_t *eng, const sy_peers_t **out);
pmix_status_t sy_fabric_engine_cost(sy_fabric_engine_t *eng, const sy_cost_t **out);
pmix_status_t sy_fabric_engine_groups(sy_fabric_engine_t *eng, const sy_groups_t **out);
pmix_status_t sy_fabric_engine_coords(sy_fabric_engine_t *eng, const sy_coords_t **out);
pmix_status_t sy_fabric_engine_shapes(sy_fabric_engine_t *eng, const sy_fabric_shapes_t **out);

#endif
