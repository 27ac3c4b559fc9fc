/* Process groups inside the server role: shared by server_group.c (the
 * construct / destruct / invite / join operations) and server_group_reg.c
 * (the groups that exist, leave, departures, queries).  Loop only. */
#ifndef SWITCHYARD_SERVER_GROUP_H
#define SWITCHYARD_SERVER_GROUP_H
#include <stdbool.h>

#include <pmix_common.h>

#include "server/server_internal.h"

/* ---- for the rest of the server ---- */
void sy_srv_group_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
/* Every event the server passes on (from clients or the host): the group
 * events that concern a group of ours change it. */
void sy_srv_group_event(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                        size_t ninfo);
/* A client's connection ended: it leaves the groups it was in. */
void sy_srv_group_peer_gone(sy_srv_peer_t *peer, bool finalized);
/* The same for a process without a PMIx connection (a PMI wire client). */
void sy_srv_group_proc_gone(const pmix_proc_t *proc, bool finalized);
void sy_srv_group_finalize(sy_srv_t *s);
/* For queries: the groups known here and the ones a process is in. */
pmix_status_t sy_srv_group_names(const pmix_proc_t *member, pmix_value_t *out);
pmix_status_t sy_srv_group_members(const char *grp, pmix_value_t *out);
/* Participants named by a group id ({grp, WILDCARD} or {grp, group rank})
 * replaced by the members (procs is reallocated), as a fence over a group
 * needs. */
pmix_status_t sy_srv_group_expand(pmix_proc_t **procs, size_t *nprocs);

/* ---- server_group_info.c: PMIX_GROUP_INFO of OpenPMIx clients ---- */
/* Post the elements of a PMIX_GROUP_INFO directive among dirs (if any)
 * as member's data of group grp. */
pmix_status_t sy_srv_group_info_post(const pmix_proc_t *member, const char *grp,
                                     const pmix_info_t *dirs, size_t ndirs);
/* Group grp has context id cid (kept until finalize). */
void sy_srv_group_info_cid(const char *grp, size_t cid);
/* A GETNB qualified by PMIX_GROUP_CONTEXT_ID: answered (true), else false. */
struct sy_srv_peer;
bool sy_srv_group_info_get(struct sy_srv_peer *peer, uint32_t tag, const pmix_proc_t *target,
                           const char *key, const pmix_info_t *info, size_t ninfo);
void sy_srv_group_info_finalize(void);

/* ---- between server_group.c and server_group_reg.c ---- */

/* A constructed group with at least one member on this node. */
typedef struct sy_group {
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t *members; /* in group-rank order */
    size_t nmembers;
    size_t ctxid;
    bool has_ctxid;
    bool notify_term; /* PMIX_GROUP_NOTIFY_TERMINATION at construction */
    bool via_host;    /* the host took part, so it hears of the destruct too */
    struct sy_group *next;
} sy_group_t;

sy_group_t *sy_group_find(const char *id);
/* Register a new group (members copied); replaces one of the same id. */
pmix_status_t sy_group_add(const char *id, const pmix_proc_t *members, size_t n, bool has_ctxid,
                           size_t ctxid, bool notify_term, bool via_host);
void sy_group_remove(sy_group_t *g);
bool sy_group_has(const sy_group_t *g, const pmix_proc_t *p);

/* Raise a group event to the processes in `to` (a custom range) with
 * PMIX_GROUP_ID, PMIX_EVENT_AFFECTED_PROC (when affected != NULL) and the
 * extra infos; non_default keeps it away from default handlers. */
void sy_group_notify(pmix_status_t code, const char *grp, const pmix_proc_t *source,
                     const pmix_proc_t *to, size_t nto, const pmix_proc_t *affected,
                     const pmix_info_t *extra, size_t nextra, bool non_default);

/* A client of ours that ended (finalized tells how) before now. */
bool sy_group_ended(const pmix_proc_t *p, bool *finalized);

/* Is p a client registered with this server (on this node)? */
bool sy_group_local(const pmix_proc_t *p);

/* A PMIX_DATA_ARRAY of PMIX_STRING in v (copied). */
pmix_status_t sy_group_load_strings(pmix_value_t *v, const char *const *names, size_t n);
/* A PMIX_DATA_ARRAY of PMIX_PROC in v (copied). */
pmix_status_t sy_group_load_procs(pmix_value_t *v, const pmix_proc_t *procs, size_t n);

struct sy_srv_peer;
void sy_group_handle_leave(struct sy_srv_peer *peer, uint32_t tag, pmix_data_buffer_t *b);

/* server_group.c: the pending operation on a group, for LEAVE and events. */
void sy_group_op_left(const char *grp, const pmix_proc_t *who);
void sy_group_op_abort(const char *grp, const pmix_proc_t *by, bool tell);
#endif
