/* The runtime every role shares: one libevent event_base and, by default,
 * one progress thread per runtime object.
 *
 * Modes (sy_progress_opts_t.mode):
 *   SY_PROGRESS_THREAD    own base, own thread (default).  The thread runs
 *                         from the first sy_progress_acquire to the last
 *                         sy_progress_release.
 *   SY_PROGRESS_EXT_BASE  PMIX_EVENT_BASE: the caller's base; we only add
 *                         events to it and the caller runs it.  No thread.
 *                         The base must have been created after
 *                         evthread_use_pthreads() if other threads call
 *                         into us while it runs (libevent's rule, not ours).
 *   SY_PROGRESS_EXT_PROGRESS  PMIX_EXTERNAL_PROGRESS: own base, no thread;
 *                         sy_progress_run_once (PMIx_Progress) runs it.
 *
 * Guarantees the roles build on:
 *   - sy_progress_post queues fn(arg) to run on the loop, FIFO per poster
 *     (in fact FIFO overall).  Callable from any thread, the loop thread
 *     included: then fn runs after the current callback returns, never
 *     re-entrantly (the one exception is a deliberate nested
 *     sy_sync_wait_progress, see sync.h).  Post never blocks on the loop.
 *   - Exactly once: every fn accepted by post (return PMIX_SUCCESS) and
 *     every timer fn not cancelled (sy_timer_cancel returned true) is called
 *     exactly once.  Nothing is ever dropped: stopping the thread (last
 *     release) drains the queue on the thread before joining it; whatever
 *     is posted after that runs when the thread is started again or, at the
 *     latest, in sy_progress_destroy, which also fires still-armed timers
 *     (on the destroying thread).  So there is no separate "cancel" hook:
 *     the owner of arg always gets its callback.  When post returns an
 *     error, fn will never be called and the caller keeps arg.
 *   - Posted functions run outside libevent's dispatch in THREAD and
 *     EXT_PROGRESS modes (so a nested wait may run the loop); timer
 *     functions run inside it.
 *
 * Fork: the progress thread does not exist in a child.  A runtime created
 * before fork() is dead in the child: every call on it fails
 * (PMIX_ERR_NOT_AVAILABLE / false / -1) without touching its locks, its
 * thread or its base, and nothing of it is freed there.  A forked child that
 * wants a runtime calls sy_progress_atfork_child() (closes the inherited
 * descriptors of the parent's runtimes, forgets them) and creates a new one.
 * The parent is unaffected.  All our descriptors are close-on-exec, so a
 * child that only execs needs nothing. */
#ifndef SWITCHYARD_COMMON_PROGRESS_H
#define SWITCHYARD_COMMON_PROGRESS_H

#include <stdbool.h>
#include <pmix_common.h>

struct event_base;

typedef struct sy_progress sy_progress_t;
typedef struct sy_timer sy_timer_t;
typedef void (*sy_progress_fn_t)(void *arg);

typedef enum {
    SY_PROGRESS_THREAD = 0,
    SY_PROGRESS_EXT_BASE = 1,
    SY_PROGRESS_EXT_PROGRESS = 2
} sy_progress_mode_t;

typedef struct {
    sy_progress_mode_t mode;
    struct event_base *base; /* SY_PROGRESS_EXT_BASE only */
} sy_progress_opts_t;

/* opts NULL = SY_PROGRESS_THREAD.  The thread is not started yet. */
pmix_status_t sy_progress_create(const sy_progress_opts_t *opts, sy_progress_t **out);
/* Reference count of the roles (Init/Finalize).  0 -> 1 starts the thread
 * (THREAD mode); 1 -> 0 stops it: the loop drains all posts, the thread
 * exits and is joined.  release from the loop thread itself would have to
 * join itself: it returns PMIX_ERR_WOULD_BLOCK and changes nothing. */
pmix_status_t sy_progress_acquire(sy_progress_t *p);
pmix_status_t sy_progress_release(sy_progress_t *p);
/* Stops the thread if still running (whatever the count), fires armed
 * timers, runs every pending post, frees.  Nobody else may use p meanwhile
 * or after.  Must not be called from the loop. */
void sy_progress_destroy(sy_progress_t *p);

struct event_base *sy_progress_base(sy_progress_t *p);
sy_progress_mode_t sy_progress_mode(const sy_progress_t *p);
pmix_status_t sy_progress_post(sy_progress_t *p, sy_progress_fn_t fn, void *arg);
/* True when the calling thread is this runtime's loop: the progress thread
 * (THREAD mode) or a thread inside one of our callbacks or inside
 * sy_progress_run_once (the other modes). */
bool sy_progress_in_loop(const sy_progress_t *p);
/* EXT_PROGRESS (or from the loop itself): run ready events and the posted
 * functions queued so far, without blocking.  Returns how many posted
 * functions ran, 0 when another thread is progressing right now, or a
 * negative status (PMIX_ERR_NOT_SUPPORTED in other modes from outside). */
int sy_progress_run_once(sy_progress_t *p);

/* One-shot timer: fn(arg) after `seconds` on the loop.  With out == NULL
 * the timer cannot be cancelled.  With out != NULL the caller owns *out and
 * must call sy_timer_cancel exactly once, fired or not (it frees it). */
pmix_status_t sy_progress_timer(sy_progress_t *p, double seconds, sy_progress_fn_t fn, void *arg,
                                sy_timer_t **out);
/* true: fn will never be called (caller keeps arg).  false: fn has been or
 * is being called.  Never blocks. */
bool sy_timer_cancel(sy_timer_t *t);

/* Call in a forked child before creating a runtime there; idempotent. */
void sy_progress_atfork_child(void);

#endif
