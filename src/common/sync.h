/* Wait for a callback: the building block of every blocking call, which
 * starts the non-blocking variant with a callback that signals a sy_sync_t
 * and then waits on it.
 *
 * The first sy_sync_signal wins (status and result recorded, waiters
 * woken); later ones are ignored.  A sync may be destroyed by its waiter as
 * soon as a wait returned because of a signal, even while the signalling
 * thread is still returning from sy_sync_signal.  After a wait that timed
 * out the sync must stay alive until it is signalled. */
#ifndef SWITCHYARD_COMMON_SYNC_H
#define SWITCHYARD_COMMON_SYNC_H

#include <pthread.h>
#include <stdbool.h>
#include <pmix_common.h>

#include "common/progress.h"

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* on CLOCK_MONOTONIC */
    bool done;
    pmix_status_t status;
    void *result;
} sy_sync_t;

pmix_status_t sy_sync_init(sy_sync_t *s);
void sy_sync_signal(sy_sync_t *s, pmix_status_t status, void *result);
/* Returns the status given to sy_sync_signal (result in s->result). */
pmix_status_t sy_sync_wait(sy_sync_t *s);
/* PMIX_ERR_TIMEOUT when not signalled within `seconds`. */
pmix_status_t sy_sync_wait_timeout(sy_sync_t *s, double seconds);
/* Like sy_sync_wait, but never deadlocks on p: when the caller is p's loop
 * (sy_progress_in_loop) or p is in EXT_PROGRESS mode, it progresses p itself
 * (posted functions, and I/O and timers unless called from inside a
 * libevent callback) until signalled.  A signal given by another thread is
 * noticed within a millisecond. */
pmix_status_t sy_sync_wait_progress(sy_sync_t *s, sy_progress_t *p);
void sy_sync_destroy(sy_sync_t *s);

#endif
