/* Tools connecting to the server (Chap_API_Tools.tex "Connection
 * Mechanisms", Chap_API_Server.tex tool_connected): the HELLO of a peer of
 * kind SY_PEER_TOOL.  The server must have been told to take tools
 * (PMIX_SERVER_TOOL_SUPPORT, _SYSTEM_SUPPORT or _SESSION_SUPPORT) and the
 * host must have a tool_connected upcall; the host then authorizes the tool
 * and assigns (or confirms) its identity.
 *
 * Credentials: on the UNIX socket the kernel tells us the tool's uid/gid;
 * over TCP the tool must present the token of the rendezvous file
 * (readable only by the server's user), which proves it can act as that
 * user and nothing more: it gets the server's uid/gid, never the ones it
 * claims in its infos (docs/security.md).  Loop only, except the host's
 * callback. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/log.h"
#include "server/server_internal.h"
#include "server/server_tool.h"
#include "server/server_peer.h"
#include "server/server_registry.h"
#include "server/server_upcall.h"

typedef struct {
    sy_srv_peer_t *peer;
    uint32_t tag;
    uid_t uid;
    gid_t gid;
    pmix_info_t *info; /* given to the host; valid until it calls back */
    size_t ninfo;
    pmix_status_t status;
    pmix_proc_t assigned;
} tool_pending_t;

/* Another process already has this identity: a registered client or a
 * connected tool. */
static bool identity_taken(sy_srv_t *s, const pmix_proc_t *p, const sy_srv_peer_t *self)
{
    sy_srv_client_t *c = sy_srv_client_find(s, p);
    if (c != NULL && c->registered)
        return true;
    for (sy_srv_peer_t *q = s->peers; q != NULL; q = q->next)
        if (q != self && q->tool != NULL && sy_srv_peer_open(q) &&
            PMIX_CHECK_PROCID(&q->tool->proc, p))
            return true;
    return false;
}

static bool host_key(const char *key)
{
    return strcmp(key, PMIX_USERID) == 0 || strcmp(key, PMIX_GRPID) == 0 ||
           strcmp(key, PMIX_TOOL_NSPACE) == 0 || strcmp(key, PMIX_TOOL_RANK) == 0 ||
           strcmp(key, PMIX_PROC_PID) == 0;
}

/* What the host gets: the tool's own infos (minus what we vouch for
 * ourselves), then PMIX_USERID, PMIX_GRPID, PMIX_PROC_PID and, when the
 * tool has an identity, PMIX_TOOL_NSPACE/RANK. */
static pmix_status_t host_info(const pmix_info_t *in, size_t nin, uid_t uid, gid_t gid, pid_t pid,
                               const pmix_proc_t *claimed, pmix_info_t **out, size_t *nout)
{
    size_t n = nin + 5;
    PMIX_INFO_CREATE(*out, n);
    if (*out == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; in != NULL && i < nin; i++)
        if (!host_key(in[i].key))
            PMIx_Info_xfer(&(*out)[k++], &in[i]);
    uint32_t u = (uint32_t)uid, g = (uint32_t)gid;
    PMIX_INFO_LOAD(&(*out)[k++], PMIX_USERID, &u, PMIX_UINT32);
    PMIX_INFO_LOAD(&(*out)[k++], PMIX_GRPID, &g, PMIX_UINT32);
    PMIX_INFO_LOAD(&(*out)[k++], PMIX_PROC_PID, &pid, PMIX_PID);
    if (claimed->nspace[0] != '\0') {
        PMIX_INFO_LOAD(&(*out)[k++], PMIX_TOOL_NSPACE, claimed->nspace, PMIX_STRING);
        PMIX_INFO_LOAD(&(*out)[k++], PMIX_TOOL_RANK, &claimed->rank, PMIX_UINT32);
    }
    *nout = k;
    return PMIX_SUCCESS;
}

static void pending_free(tool_pending_t *tp)
{
    if (tp->info != NULL)
        PMIX_INFO_FREE(tp->info, tp->ninfo);
    free(tp);
}

static void connected_on_loop(void *arg)
{
    tool_pending_t *tp = arg;
    sy_srv_peer_t *peer = tp->peer;
    sy_srv_t *s = sy_srv;
    if (sy_srv_peer_awaiting_host(peer)) {
        if (tp->status != PMIX_SUCCESS) {
            sy_srv_peer_refuse(peer, tp->tag, tp->status, "the host refused the tool");
        } else if (tp->assigned.nspace[0] == '\0' || tp->assigned.rank == PMIX_RANK_WILDCARD ||
                   tp->assigned.rank == PMIX_RANK_UNDEF) {
            sy_srv_peer_refuse(peer, tp->tag, PMIX_ERR_BAD_PARAM,
                               "the host gave the tool no identity");
        } else if (identity_taken(s, &tp->assigned, peer)) {
            sy_srv_peer_refuse(peer, tp->tag, PMIX_EXISTS,
                               "the tool's identity belongs to another process");
        } else {
            sy_srv_client_t *c = calloc(1, sizeof(*c));
            if (c == NULL) {
                sy_srv_peer_refuse(peer, tp->tag, PMIX_ERR_NOMEM, "out of memory");
            } else {
                c->proc = tp->assigned;
                c->tool = true;
                c->uid = tp->uid;
                c->gid = tp->gid;
                c->peer = peer;
                peer->tool = c;
                peer->client = c;
                PMIX_LOAD_PROCID(&peer->proc, c->proc.nspace, c->proc.rank);
                sy_srv_peer_welcome(peer, tp->tag, &c->proc);
            }
        }
    }
    sy_srv_peer_release(peer);
    pending_free(tp);
}

static void connected_drop(void *arg)
{
    pending_free(arg);
}

static void host_connected(pmix_status_t status, pmix_proc_t *proc, void *cbdata)
{
    tool_pending_t *tp = cbdata;
    tp->status = status;
    if (status == PMIX_SUCCESS && proc != NULL)
        tp->assigned = *proc;
    sy_srv_post_or_drop(connected_on_loop, connected_drop, tp);
}

void sy_srv_tool_hello(sy_srv_peer_t *peer, uint32_t tag, const pmix_proc_t *claimed,
                       const char *token, pmix_info_t *info, size_t ninfo)
{
    sy_srv_t *s = sy_srv;
    uid_t uid = peer->uid;
    gid_t gid = peer->gid;
    pmix_status_t rc = PMIX_SUCCESS;
    const char *why = NULL;
    if (!(s->tool_support || s->system_support || s->session_support)) {
        rc = PMIX_ERR_NOT_SUPPORTED;
        why = "this server takes no tools (no PMIX_SERVER_TOOL_SUPPORT)";
    } else if (s->module.tool_connected == NULL) {
        rc = PMIX_ERR_NOT_SUPPORTED;
        why = "the host has no tool_connected upcall";
    } else if (!peer->cred_known) {
        if (!sy_srv_token_matches(token, s->tool_token)) {
            rc = PMIX_ERR_NO_PERMISSIONS;
            why = "wrong or missing tool token over TCP";
        } else {
            /* what the token proves: the server's own identity */
            uid = geteuid();
            gid = getegid();
        }
    }
    if (rc == PMIX_SUCCESS && claimed->nspace[0] != '\0' && identity_taken(s, claimed, peer)) {
        rc = PMIX_EXISTS;
        why = "the tool's identity belongs to another process";
    }
    tool_pending_t *tp = rc == PMIX_SUCCESS ? calloc(1, sizeof(*tp)) : NULL;
    if (rc == PMIX_SUCCESS && tp == NULL) {
        rc = PMIX_ERR_NOMEM;
        why = "out of memory";
    }
    if (rc == PMIX_SUCCESS && host_info(info, ninfo, uid, gid, peer->pid, claimed, &tp->info,
                                        &tp->ninfo) != PMIX_SUCCESS) {
        rc = PMIX_ERR_NOMEM;
        why = "out of memory";
    }
    if (info != NULL)
        PMIX_INFO_FREE(info, ninfo);
    if (rc != PMIX_SUCCESS) {
        if (tp != NULL)
            pending_free(tp);
        sy_srv_peer_refuse(peer, tag, rc, why);
        return;
    }
    tp->peer = peer;
    tp->tag = tag;
    tp->uid = uid;
    tp->gid = gid;
    sy_srv_peer_authenticated(peer);
    sy_srv_peer_hold(peer);
    /* The host answers through host_connected, possibly on its own thread. */
    s->module.tool_connected(tp->info, tp->ninfo, host_connected, tp);
}

static void ignore_done(pmix_status_t status, void *cbdata)
{
    (void)status;
    (void)cbdata;
}

/* A tool's connection ended without PMIx_tool_finalize: the host learns
 * it left through client_finalized with no server object (there is no
 * upcall of its own), as OpenPMIx does. */
void sy_srv_tool_gone(sy_srv_peer_t *peer)
{
    sy_srv_t *s = sy_srv;
    if (s == NULL || peer->tool == NULL || peer->finalized || s->module.client_finalized == NULL)
        return;
    pmix_proc_t who = peer->tool->proc;
    s->module.client_finalized(&who, NULL, ignore_done, NULL);
}
