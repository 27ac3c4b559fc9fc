/* The scheduler role's worker thread (sched_worker.c).  Jobs run one at a
 * time, in submission order, on one thread of their own; when a job's run
 * function returns, its done function is posted to the runtime's loop.
 * The scheduler runs every fabric engine call as such a job, so that the
 * server keeps answering while a topology loads or a matrix is computed.
 * Loop only, except run functions (worker) and the tick (worker). */
#ifndef SWITCHYARD_SCHED_SCHED_WORKER_H
#define SWITCHYARD_SCHED_SCHED_WORKER_H

#include <stdbool.h>

#include <pmix_common.h>

typedef void (*sy_work_fn)(void *arg);
/* ran: false when the job was dropped by sy_work_stop before it ran. */
typedef void (*sy_work_done_fn)(void *arg, bool ran);

/* Queue a job (starts the thread on first use).  PMIX_SUCCESS: done fires
 * exactly once, on the loop, after run (or without it at stop). */
pmix_status_t sy_work_submit(sy_work_fn run, sy_work_done_fn done, void *arg);
/* Call fn on the worker every `seconds` it is idle (0: never). */
void sy_work_set_tick(double seconds, sy_work_fn fn);
/* Wait for the job running now, drop the queued ones (done with ran =
 * false, here), end the thread. */
void sy_work_stop(void);

#endif
