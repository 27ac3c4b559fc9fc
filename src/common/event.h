/* Events in one process (Chap_API_Event.tex): the registry of handlers
 * behind PMIx_Register/Deregister_event_handler, their order, and the
 * delivery of one event down the chain of matching handlers.  Knows
 * nothing of roles: carrying an event to other processes is the job of the
 * forwarder a role installs (client: to its server; server: to its clients
 * and host).
 *
 * Order of a chain: the PMIX_EVENT_HDLR_FIRST handler; handlers registered
 * for specific codes, in registration order adjusted by PREPEND, APPEND,
 * BEFORE and AFTER (by PMIX_EVENT_HDLR_NAME); default handlers (no codes),
 * likewise; the PMIX_EVENT_HDLR_LAST handler.  A handler that answers
 * PMIX_EVENT_ACTION_COMPLETE ends the chain; the results each handler
 * returns are passed to the next.  A handler that has not called its
 * completion function PMIX_EVENT_ACTION_TIMEOUT seconds after it was
 * invoked (the value given at its registration, else the one the event
 * carries, else no limit) is passed over: the chain goes on without its
 * results, and its later completion is answered PMIX_ERR_TIMEOUT and
 * otherwise ignored. */
#ifndef SWITCHYARD_COMMON_EVENT_H
#define SWITCHYARD_COMMON_EVENT_H
#include <stdbool.h>

#include <pmix_common.h>

/* The roles of one process (a server, and a client or tool of another
 * server) each route events through their own slot: the forwarder, the
 * registration hooks.  A launcher a tool started is both. */
#define SY_EVENT_ROUTES 2
#define SY_EVENT_ROUTE_SERVER 0u
#define SY_EVENT_ROUTE_CLIENT 1u

/* Forward an event beyond this process (ranges other than PROC_LOCAL);
 * called on the loop, after local delivery started. */
typedef void (*sy_event_forward_fn)(pmix_status_t status, const pmix_proc_t *source,
                                    pmix_data_range_t range, const pmix_info_t info[],
                                    size_t ninfo);
void sy_event_set_forwarder(unsigned route, sy_event_forward_fn fn);

/* Deliver to this process's handlers; on the loop.  info is copied. */
void sy_event_deliver(pmix_status_t status, const pmix_proc_t *source, pmix_data_range_t range,
                      const pmix_info_t info[], size_t ninfo);
/* The same for the live events of the one server that replays cached
 * events to this process: each is counted at the moment the handlers that
 * get it are chosen, so that a registration can tell that server which of
 * them it already had. */
void sy_event_deliver_counted(pmix_status_t status, const pmix_proc_t *source,
                              pmix_data_range_t range, const pmix_info_t info[], size_t ninfo);

/* To one handler only (cached events replayed for a late registration). */
void sy_event_deliver_to(size_t ref, pmix_status_t status, const pmix_proc_t *source,
                         const pmix_info_t info[], size_t ninfo);

/* Told of every new registration (reference, codes; ncodes 0 = default),
 * so that a role can ask for the events cached before it; `seen` is how
 * many counted deliveries (below) had happened when the handler joined the
 * list: the ones after it reached the handler live and must not be
 * replayed to it. */
typedef void (*sy_event_register_fn)(size_t ref, const pmix_status_t *codes, size_t ncodes,
                                     uint64_t seen);
void sy_event_set_register_hook(unsigned route, sy_event_register_fn fn);
/* Told when a registration goes (PMIx_Deregister_event_handler), with the
 * codes it had, on the deregistering thread. */
typedef void (*sy_event_deregister_fn)(size_t ref, const pmix_status_t *codes, size_t ncodes);
void sy_event_set_deregister_hook(unsigned route, sy_event_deregister_fn fn);

/* Told how each event delivered to this process's handlers ended (not the
 * replays of cached events to one handler): its code and info, the first
 * status other than PMIX_SUCCESS and PMIX_EVENT_ACTION_COMPLETE that a
 * handler answered (PMIX_SUCCESS when none did, or when no handler wanted
 * the event) and the results the handlers returned.  On the loop.  What a
 * handler decides may matter to the library: a group member aborting a
 * construction, or taking the lead. */
typedef void (*sy_event_outcome_fn)(pmix_status_t code, pmix_status_t objection,
                                    const pmix_info_t results[], size_t nresults,
                                    const pmix_info_t info[], size_t ninfo);
void sy_event_set_outcome_hook(sy_event_outcome_fn fn);

/* The source of events this process generates itself. */
void sy_event_set_self(const pmix_proc_t *self);

/* Deliver to this process's handlers and call done(arg) on the loop once
 * the chain has completed (at once when no handler matches).  Bypasses the
 * interceptor below. */
typedef void (*sy_event_done_fn)(void *arg);
void sy_event_deliver_cb(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                         size_t ninfo, sy_event_done_fn done, void *arg);

/* One function that may take over the local delivery of an event
 * (sy_event_deliver, and so PMIx_Notify_event and events from other
 * processes): it returns true when it handles the event itself (the fabric
 * update protocol, src/sched/fabric_api.c). */
typedef bool (*sy_event_intercept_fn)(pmix_status_t status, const pmix_proc_t *source,
                                      const pmix_info_t info[], size_t ninfo);
void sy_event_set_intercept(sy_event_intercept_fn fn);

/* Drop every registration (the last role finalize). */
void sy_event_clear(void);
#endif
