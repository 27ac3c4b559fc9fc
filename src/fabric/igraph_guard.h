/* Serialised, non-aborting access to igraph.
 *
 * igraph 0.10 as packaged by Debian is built without thread-local state:
 * its error/warning handlers, its "finally" stack and its default random
 * generator are process globals, and its default error handler calls
 * abort().  A library inside an MPI job must never abort on a graph
 * error, and several server threads may compute at once.  So every igraph
 * call in Switchyard happens between sy_igraph_lock() and
 * sy_igraph_unlock():
 *   - lock takes one process-wide mutex, then installs a handler that
 *     records the message and unwinds igraph's finally stack (the igraph
 *     function then returns its error code instead of aborting), and a
 *     warning handler that drops warnings;
 *   - unlock puts back whatever handlers were installed before, so an
 *     application that uses igraph itself keeps its own settings.
 * The lock is not recursive.  igraph's *fatal* handler (internal
 * assertion failures) is left alone: it must not return, so nothing
 * useful can replace it.
 *
 * Every igraph return code must still be checked; sy_igraph_status()
 * turns it into a pmix_status_t. */
#ifndef SWITCHYARD_FABRIC_IGRAPH_GUARD_H
#define SWITCHYARD_FABRIC_IGRAPH_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <igraph.h>
#include <pmix_common.h>

#include "fabric/topo.h"

void sy_igraph_lock(void);
void sy_igraph_unlock(void);

/* IGRAPH_SUCCESS -> PMIX_SUCCESS, IGRAPH_ENOMEM -> PMIX_ERR_NOMEM,
 * invalid argument / vertex / mode -> PMIX_ERR_BAD_PARAM, anything else
 * -> PMIX_ERROR. */
pmix_status_t sy_igraph_status(igraph_error_t err);

/* Copy the message of the last igraph error seen under the lock into buf
 * ("" if none since the lock was taken).  Call with the lock held. */
void sy_igraph_last_error(char *buf, size_t len);

/* A deterministic random stream for the duration of one computation:
 * begin seeds a private Mersenne twister and makes it igraph's default;
 * end restores the previous default.  Call both with the lock held.
 * igraph_rng_set_default() copies the struct into igraph's single default
 * slot (the address igraph_rng_default() returns never changes), so the
 * previous default is kept by value, not by pointer. */
typedef struct {
    igraph_rng_t rng;
    igraph_rng_t saved;
    bool active;
} sy_igraph_rng_t;
pmix_status_t sy_igraph_rng_begin(sy_igraph_rng_t *r, uint64_t seed);
void sy_igraph_rng_end(sy_igraph_rng_t *r);

/* An undirected igraph view of a topology: links in state PMIX_LINK_DOWN
 * are left out, and with switches_only so are devices and their links.
 * igraph vertex i is topo vertex to_topo[i]; from_topo[v] is the igraph
 * vertex of topo vertex v or SY_TOPO_NONE.  igraph vertices keep the
 * ascending topo-id order.  The topology must be finalized
 * (PMIX_ERR_NOT_AVAILABLE otherwise).  Build and free with the lock held. */
typedef struct {
    igraph_t g;
    uint32_t n;
    uint32_t *to_topo;
    uint32_t *from_topo;
    bool built;
} sy_igraph_view_t;
pmix_status_t sy_igraph_from_topo(const sy_topo_t *t, bool switches_only, sy_igraph_view_t *out);
void sy_igraph_view_free(sy_igraph_view_t *v);

#endif
