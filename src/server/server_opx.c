/* OpenPMIx 4.2.x clients on our listener (docs/wire-protocol.md, "OpenPMIx
 * protocol"): their connect message, our connect reply, the job data their
 * gds/hash component expects at REQ, and the commands that have no
 * message of ours.  Everything else they send goes through the OpenPMIx
 * codec (wire_codec_opx.c) to the same handlers as our own clients.
 * Loop only. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/jseg.h"
#include "common/log.h"
#include "common/opx_bfrops.h"
#include "common/store.h"
#include "server/server_ds21.h"
#include "server/server_internal.h"
#include "server/server_monitor.h"
#include "server/server_msg.h"
#include "server/server_opx.h"
#include "server/server_peer.h"
#include "server/server_registry.h"
#include "server/server_tcp_owner.h"
#include "server/server_tool.h"

/* the process types of OpenPMIx's connect message */
#define OPX_SIMPLE_CLIENT 0
#define OPX_TOOL_NEEDS_ID 3
#define OPX_TOOL_GIVEN_ID 4
#define OPX_TOOL_CLIENT 5
#define OPX_LAUNCHER_NEEDS_ID 6
#define OPX_LAUNCHER_CLIENT 8
#define OPX_SINGLETON 9

/* ---- the connect message ---- */

typedef struct {
    const uint8_t *p;
    size_t left;
} cursor_t;

static const char *take_string(cursor_t *c)
{
    size_t n = strnlen((const char *)c->p, c->left);
    if (n == c->left)
        return NULL;
    const char *s = (const char *)c->p;
    c->p += n + 1;
    c->left -= n + 1;
    return s;
}

static bool take_u32(cursor_t *c, uint32_t *v)
{
    if (c->left < 4)
        return false;
    uint32_t be;
    memcpy(&be, c->p, 4);
    *v = ntohl(be);
    c->p += 4;
    c->left -= 4;
    return true;
}

static void refuse(sy_srv_peer_t *peer, pmix_status_t status, const char *why)
{
    sy_srv_peer_refuse(peer, UINT32_MAX, status, why);
}

/* The modules a peer names in its connect message that we speak: native
 * security, the v4/v41 encoding of non-described buffers.  Refuses the
 * peer (one log line) otherwise. */
static bool modules_supported(sy_srv_peer_t *peer, const char *psec, const char *bfrops,
                              uint8_t buftype)
{
    if (strcmp(psec, "native") != 0) {
        refuse(peer, PMIX_ERR_NOT_SUPPORTED, "OpenPMIx security module other than native");
        return false;
    }
    if (strcmp(bfrops, "v41") != 0 && strcmp(bfrops, "v4") != 0) {
        refuse(peer, PMIX_ERR_NOT_SUPPORTED, "OpenPMIx bfrops other than v41/v4");
        return false;
    }
    if (buftype != SY_OPX_BUFFER_NON_DESC) {
        refuse(peer, PMIX_ERR_NOT_SUPPORTED, "OpenPMIx fully described buffers");
        return false;
    }
    return true;
}

/* ---- tools ---- */

static bool needs_id(uint8_t kind)
{
    return kind == OPX_TOOL_NEEDS_ID || kind == OPX_LAUNCHER_NEEDS_ID;
}

/* Is gid one of uid's groups (its primary one or a supplementary one)? */
static bool gid_of_user(uid_t uid, gid_t gid)
{
    long sz = sysconf(_SC_GETPW_R_SIZE_MAX);
    size_t bufsz = sz > 0 ? (size_t)sz : 16384;
    char *buf = malloc(bufsz);
    struct passwd pw, *res = NULL;
    bool ok = false;
    if (buf != NULL && getpwuid_r(uid, &pw, buf, bufsz, &res) == 0 && res != NULL) {
        if (pw.pw_gid == gid) {
            ok = true;
        } else {
            int n = 64;
            gid_t *groups = malloc((size_t)n * sizeof(*groups));
            if (groups != NULL && getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) < 0 && n > 64) {
                gid_t *more = realloc(groups, (size_t)n * sizeof(*groups));
                if (more == NULL || getgrouplist(pw.pw_name, pw.pw_gid, more, &n) < 0)
                    n = 0;
                groups = more != NULL ? more : groups;
            }
            for (int i = 0; groups != NULL && i < n && !ok; i++)
                ok = groups[i] == gid;
            free(groups);
        }
    }
    free(buf);
    return ok;
}

/* The infos an OpenPMIx tool appends to its connect message: a pack call
 * of one SIZE, then a pack call of that many INFO.  *pid is the
 * PMIX_PROC_PID among them (what the tool says: over TCP nothing else
 * tells). */
static pmix_status_t take_tool_infos(cursor_t *c, pmix_info_t **info, size_t *ninfo, pid_t *pid)
{
    *info = NULL;
    *ninfo = 0;
    if (c->left == 0)
        return PMIX_SUCCESS;
    pmix_data_buffer_t b = {0};
    pmix_status_t rc = sy_buffer_append(&b, c->p, c->left);
    size_t n = 0;
    int32_t one = 1;
    if (rc == PMIX_SUCCESS)
        rc = sy_opx_unpack(&b, &n, &one, PMIX_SIZE);
    void *arr = NULL;
    size_t got = 0;
    if (rc == PMIX_SUCCESS && n > 0)
        rc = sy_opx_unpack_alloc(&b, PMIX_INFO, &arr, &got);
    sy_buffer_destruct(&b);
    if (rc != PMIX_SUCCESS || got != n) {
        if (arr != NULL)
            sy_array_free(arr, got, PMIX_INFO);
        return rc != PMIX_SUCCESS ? rc : PMIX_ERR_UNPACK_FAILURE;
    }
    *info = arr;
    *ninfo = got;
    for (size_t i = 0; i < got; i++)
        if (PMIX_CHECK_KEY(&(*info)[i], PMIX_PROC_PID) && (*info)[i].value.type == PMIX_PID)
            *pid = (*info)[i].value.data.pid;
    return PMIX_SUCCESS;
}

/* An OpenPMIx tool (or launcher): after the type, u32 uid and gid, its
 * identity unless it needs one, then the version, bfrops, buffer type,
 * gds and its infos.  Served as our own tools are (server_tool.c): the
 * host's tool_connected assigns the identity. */
static void opx_tool_hello(sy_srv_peer_t *peer, uint32_t tag, const char *psec, const uint8_t *cred,
                           uint32_t credlen, cursor_t *c)
{
    uint32_t uid, gid, rank = PMIX_RANK_UNDEF;
    const char *nspace = "", *version = NULL, *bfrops = NULL, *gds = NULL;
    if (!take_u32(c, &uid) || !take_u32(c, &gid) ||
        (!needs_id(peer->opx_kind) && ((nspace = take_string(c)) == NULL || !take_u32(c, &rank))) ||
        (version = take_string(c)) == NULL || (bfrops = take_string(c)) == NULL || c->left < 1) {
        refuse(peer, PMIX_ERR_BAD_PARAM, "malformed OpenPMIx tool connect message");
        return;
    }
    uint8_t buftype = c->p[0];
    c->p++;
    c->left--;
    if ((gds = take_string(c)) == NULL) {
        refuse(peer, PMIX_ERR_BAD_PARAM, "malformed OpenPMIx tool connect message");
        return;
    }
    if (strlen(nspace) > PMIX_MAX_NSLEN) {
        refuse(peer, PMIX_ERR_BAD_PARAM, "OpenPMIx tool's namespace is too long");
        return;
    }
    if (!modules_supported(peer, psec, bfrops, buftype))
        return;
    /* who the tool is: the kernel's owner of its socket, which the
     * credential and the uid it names must both be; its gid must be one
     * of that user's groups */
    uid_t kuid;
    uint32_t claimed[2];
    if (sy_srv_tcp_peer_uid(sy_conn_fd(peer->conn), &kuid) != PMIX_SUCCESS) {
        refuse(peer, PMIX_ERR_NO_PERMISSIONS, "cannot tell who owns the OpenPMIx peer's socket");
        return;
    }
    if (credlen != sizeof(claimed)) {
        refuse(peer, PMIX_ERR_NO_PERMISSIONS, "malformed native credential");
        return;
    }
    memcpy(claimed, cred, sizeof(claimed));
    if (kuid != claimed[0] || uid != kuid || claimed[1] != gid || !gid_of_user(kuid, gid)) {
        refuse(peer, PMIX_ERR_NO_PERMISSIONS, "the tool's uid/gid are not its socket's owner's");
        return;
    }
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    pid_t pid = 0;
    if (take_tool_infos(c, &info, &ninfo, &pid) != PMIX_SUCCESS) {
        refuse(peer, PMIX_ERR_BAD_PARAM, "malformed infos in the OpenPMIx tool connect message");
        return;
    }
    peer->uid = kuid;
    peer->gid = gid;
    peer->pid = pid;
    peer->cred_known = true;
    pmix_proc_t who;
    PMIX_LOAD_PROCID(&who, nspace, rank);
    sy_srv_client_t *cl = peer->opx_kind == OPX_TOOL_CLIENT || peer->opx_kind == OPX_LAUNCHER_CLIENT
                              ? sy_srv_client_find(sy_srv, &who)
                              : NULL;
    if (cl != NULL && cl->registered && !cl->tool) {
        /* a process the host launched as a client, now a tool: it is
         * that client, on the registration's terms */
        if (info != NULL)
            PMIX_INFO_FREE(info, ninfo);
        if (kuid != cl->uid || gid != cl->gid) {
            refuse(peer, PMIX_ERR_NO_PERMISSIONS, "uid/gid differ from the registration");
        } else if (cl->peer != NULL) {
            refuse(peer, PMIX_EXISTS, "this client is already connected");
        } else {
            PMIX_LOAD_PROCID(&peer->proc, nspace, rank);
            sy_srv_peer_connect(peer, tag, cl, NULL, 0);
        }
        return;
    }
    sy_log(SY_LOG_DEBUG, "server: OpenPMIx %s tool (type %u, gds %s), pid %ld", version,
           peer->opx_kind, gds, (long)pid);
    sy_srv_tool_hello(peer, tag, &who, NULL, info, ninfo);
}

void sy_srv_opx_hello(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_srv_t *s = sy_srv;
    peer->opx = true;
    cursor_t c = {(const uint8_t *)b->unpack_ptr, sy_buffer_remaining(b)};
    const char *psec = take_string(&c);
    uint32_t credlen = 0;
    if (psec == NULL || !take_u32(&c, &credlen) || credlen > c.left) {
        refuse(peer, PMIX_ERR_BAD_PARAM, "malformed OpenPMIx connect message");
        return;
    }
    const uint8_t *cred = c.p;
    c.p += credlen;
    c.left -= credlen;
    uint8_t type;
    if (c.left < 1) {
        refuse(peer, PMIX_ERR_BAD_PARAM, "malformed OpenPMIx connect message");
        return;
    }
    type = c.p[0];
    c.p++;
    c.left--;
    peer->opx_kind = type;
    if (type >= OPX_TOOL_NEEDS_ID && type <= OPX_LAUNCHER_CLIENT) {
        opx_tool_hello(peer, tag, psec, cred, credlen, &c);
        return;
    }
    if (type != OPX_SIMPLE_CLIENT) {
        /* a singleton that found a system server: left to run alone */
        refuse(peer, PMIX_ERR_NOT_SUPPORTED,
               type == OPX_SINGLETON ? "OpenPMIx singletons are not served (they run alone)"
                                     : "unknown OpenPMIx process type");
        return;
    }
    const char *nspace = take_string(&c);
    uint32_t rank;
    const char *version = NULL, *bfrops = NULL, *gds = NULL;
    if (nspace == NULL || !take_u32(&c, &rank) || (version = take_string(&c)) == NULL ||
        (bfrops = take_string(&c)) == NULL || c.left < 1) {
        refuse(peer, PMIX_ERR_BAD_PARAM, "malformed OpenPMIx connect message");
        return;
    }
    uint8_t buftype = c.p[0];
    c.p++;
    c.left--;
    gds = take_string(&c);
    PMIX_LOAD_PROCID(&peer->proc, nspace, rank);
    if (gds == NULL) {
        refuse(peer, PMIX_ERR_BAD_PARAM, "malformed OpenPMIx connect message");
        return;
    }
    if (!modules_supported(peer, psec, bfrops, buftype))
        return;
    /* its job and modex data: asked for (hash), or read from the ds21
     * store we offered its namespace (server_ds21.c) */
    sy_srv_nspace_t *ns = sy_srv_nspace_find(s, nspace);
    bool ds21 = strcmp(gds, "ds21") == 0;
    if (strcmp(gds, "hash") != 0 && !ds21) {
        refuse(peer, PMIX_ERR_NOT_SUPPORTED, "OpenPMIx gds other than hash and ds21");
        return;
    }
    if (ds21 && !sy_srv_ds21_offered(ns)) {
        refuse(peer, PMIX_ERR_NOT_SUPPORTED, "OpenPMIx gds ds21 not offered to this namespace");
        return;
    }
    sy_srv_client_t *cl = sy_srv_client_find(s, &peer->proc);
    uid_t kuid;
    uint32_t claimed[2];
    if (cl == NULL || !cl->registered) {
        refuse(peer, PMIX_ERR_NOT_FOUND, "no such client was registered");
        return;
    }
    if (sy_srv_tcp_peer_uid(sy_conn_fd(peer->conn), &kuid) != PMIX_SUCCESS) {
        refuse(peer, PMIX_ERR_NO_PERMISSIONS, "cannot tell who owns the OpenPMIx peer's socket");
        return;
    }
    if (credlen != sizeof(claimed)) {
        refuse(peer, PMIX_ERR_NO_PERMISSIONS, "malformed native credential");
        return;
    }
    memcpy(claimed, cred, sizeof(claimed));
    if (kuid != cl->uid || claimed[0] != cl->uid || claimed[1] != cl->gid) {
        refuse(peer, PMIX_ERR_NO_PERMISSIONS, "uid/gid differ from the registration");
        return;
    }
    if (cl->peer != NULL) {
        refuse(peer, PMIX_EXISTS, "this client is already connected");
        return;
    }
    peer->uid = kuid;
    peer->gid = cl->gid;
    peer->cred_known = true;
    peer->opx_ds21 = ds21;
    if (ds21)
        sy_srv_ds21_client_ready(ns); /* its job data, before it asks */
    sy_log(SY_LOG_DEBUG, "server: OpenPMIx %s client %s:%u (%s, %s)", version, nspace, rank, bfrops,
           gds);
    sy_srv_peer_connect(peer, tag, cl, NULL, 0);
}

static uint8_t *put_raw_u32(uint8_t *p, uint32_t v)
{
    uint32_t be = htonl(v);
    memcpy(p, &be, sizeof(be));
    return p + sizeof(be);
}

static uint8_t *put_raw_nspace(uint8_t *p, const char *nspace)
{
    memset(p, 0, PMIX_MAX_NSLEN + 1);
    memcpy(p, nspace, strnlen(nspace, PMIX_MAX_NSLEN));
    return p + PMIX_MAX_NSLEN + 1;
}

/* What a tool reads after the status: the identity it was given (when it
 * asked for one), the server's, each namespace in a fixed field of
 * PMIX_MAX_NSLEN + 1 bytes and the rank a network-order u32, then the
 * status of the credential's check. */
static void answer_tool(sy_srv_peer_t *peer)
{
    uint8_t msg[2 * (PMIX_MAX_NSLEN + 1) + 4 * sizeof(uint32_t)];
    uint8_t *p = put_raw_u32(msg, (uint32_t)PMIX_SUCCESS);
    if (needs_id(peer->opx_kind)) {
        p = put_raw_nspace(p, peer->proc.nspace);
        p = put_raw_u32(p, peer->proc.rank);
    }
    p = put_raw_nspace(p, sy_srv->me.nspace);
    p = put_raw_u32(p, sy_srv->me.rank);
    p = put_raw_u32(p, (uint32_t)PMIX_SUCCESS); /* the credential's check */
    sy_conn_send_raw(peer->conn, msg, (size_t)(p - msg));
}

void sy_srv_opx_answer_connect(sy_srv_peer_t *peer, pmix_status_t status)
{
    if (peer->opx_kind != OPX_SIMPLE_CLIENT) {
        /* A refused tool or singleton gets no answer, only the close:
         * OpenPMIx 4.2.2 ignores the status of a tool's handshake (it
         * would go on as if connected and wait forever), but a connection
         * closed before the status fails its connect: PMIx_tool_init says
         * PMIX_ERR_UNREACH, a singleton runs alone. */
        if (status == PMIX_SUCCESS)
            answer_tool(peer);
        return;
    }
    /* a raw status, then (accepted) our index for the peer; both in
     * network order, no header */
    uint32_t words[2] = {htonl((uint32_t)status), htonl((uint32_t)(peer->serial & 0x7fffffff))};
    sy_conn_send_raw(peer->conn, words, status == PMIX_SUCCESS ? sizeof(words) : sizeof(words[0]));
}

/* ---- REQ: the job data, as gds/hash stores it ---- */

static pmix_status_t put_kval(pmix_data_buffer_t *b, const char *key, const pmix_value_t *v)
{
    pmix_status_t rc = sy_opx_put_int(b, 1); /* a pack call of one KVAL */
    return rc == PMIX_SUCCESS ? sy_opx_pack_kval(b, key, v) : rc;
}

/* A realm's infos as one PMIX_*_INFO_ARRAY / PMIX_PROC_DATA kval, with
 * the key that names the entity first. */
static pmix_status_t put_array(pmix_data_buffer_t *b, const char *arraykey, const char *idkey,
                               uint32_t id, pmix_data_type_t idtype, const pmix_info_t *infos,
                               size_t n)
{
    pmix_info_t *all = calloc(n + 1, sizeof(*all));
    if (all == NULL)
        return PMIX_ERR_NOMEM;
    PMIX_LOAD_KEY(all[0].key, idkey);
    all[0].value.type = idtype;
    if (idtype == PMIX_PROC_RANK)
        all[0].value.data.rank = id;
    else
        all[0].value.data.uint32 = id;
    size_t k = 1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(infos[i].key, idkey) != 0)
            all[k++] = infos[i]; /* borrowed */
    pmix_data_array_t da = {.type = PMIX_INFO, .size = k, .array = all};
    pmix_value_t v = {.type = PMIX_DATA_ARRAY, .data.darray = &da};
    pmix_status_t rc = put_kval(b, arraykey, &v);
    free(all);
    return rc;
}

bool sy_srv_opx_skipped_key(const char *key)
{
    /* the maps travel as the arrays below; containers have no place as
     * lone values */
    return strcmp(key, PMIX_NODE_MAP) == 0 || strcmp(key, PMIX_PROC_MAP) == 0 ||
           strcmp(key, PMIX_NODE_INFO_ARRAY) == 0 || strcmp(key, PMIX_APP_INFO_ARRAY) == 0 ||
           strcmp(key, PMIX_SESSION_INFO_ARRAY) == 0 || strcmp(key, PMIX_JOB_INFO_ARRAY) == 0 ||
           strcmp(key, PMIX_PROC_DATA) == 0;
}

static pmix_status_t put_realm(pmix_data_buffer_t *b, const sy_jseg_t *seg, sy_realm_t realm,
                               const char *arraykey, const char *idkey, pmix_data_type_t idtype)
{
    uint32_t *ids = NULL;
    size_t nids = 0;
    if (sy_jseg_ids(seg, realm, &ids, &nids) != PMIX_SUCCESS)
        return PMIX_SUCCESS; /* none */
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < nids; i++) {
        pmix_info_t *infos = NULL;
        size_t n = 0;
        if (sy_jseg_get_all(seg, realm, ids[i], &infos, &n) != PMIX_SUCCESS)
            continue;
        rc = put_array(b, arraykey, idkey, ids[i], idtype, infos, n);
        PMIX_INFO_FREE(infos, n);
    }
    free(ids);
    return rc;
}

static pmix_status_t pack_job_info(sy_srv_nspace_t *ns, pmix_data_buffer_t *b)
{
    sy_jseg_t *seg = NULL;
    pmix_status_t rc = sy_jseg_open(ns->seg_path, &seg);
    if (rc != PMIX_SUCCESS)
        return rc;
    char *name = ns->name;
    rc = sy_opx_pack(b, &name, 1, PMIX_STRING);
    pmix_info_t *infos = NULL;
    size_t n = 0;
    if (rc == PMIX_SUCCESS && sy_jseg_get_all(seg, SY_REALM_JOB, 0, &infos, &n) == PMIX_SUCCESS) {
        for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++)
            if (!sy_srv_opx_skipped_key(infos[i].key))
                rc = put_kval(b, infos[i].key, &infos[i].value);
        PMIX_INFO_FREE(infos, n);
    }
    if (rc == PMIX_SUCCESS)
        rc = put_realm(b, seg, SY_REALM_NODE, PMIX_NODE_INFO_ARRAY, PMIX_NODEID, PMIX_UINT32);
    if (rc == PMIX_SUCCESS)
        rc = put_realm(b, seg, SY_REALM_APP, PMIX_APP_INFO_ARRAY, PMIX_APPNUM, PMIX_UINT32);
    /* every rank, derived values included (what the layout says) */
    for (uint32_t r = 0; rc == PMIX_SUCCESS && r < ns->summary.job_size; r++) {
        infos = NULL;
        n = 0;
        if (sy_jseg_get_all(seg, SY_REALM_PROC, r, &infos, &n) != PMIX_SUCCESS)
            continue;
        rc = put_array(b, PMIX_PROC_DATA, PMIX_RANK, r, PMIX_PROC_RANK, infos, n);
        PMIX_INFO_FREE(infos, n);
    }
    sy_jseg_close(seg);
    return rc;
}

static void answer_req(sy_srv_peer_t *peer, uint32_t tag)
{
    sy_srv_nspace_t *ns = sy_srv_nspace_find(sy_srv, peer->proc.nspace);
    pmix_data_buffer_t b = {0};
    pmix_status_t rc;
    if (peer->tool != NULL && ns == NULL) {
        /* a tool's own namespace has no job data here: the name alone,
         * as OpenPMIx's server answers (the tool makes up the rest) */
        char *name = peer->proc.nspace;
        rc = sy_opx_pack(&b, &name, 1, PMIX_STRING);
    } else {
        rc = ns == NULL || ns->seg_path == NULL ? PMIX_ERR_NOT_FOUND : pack_job_info(ns, &b);
    }
    if (rc != PMIX_SUCCESS) {
        /* the client takes a reply without its namespace as a failure */
        sy_log(SY_LOG_WARN, "server: no job data for OpenPMIx client %s:%u: %s", peer->proc.nspace,
               peer->proc.rank, PMIx_Error_string(rc));
        sy_buffer_destruct(&b);
        sy_srv_peer_reply_status(peer, tag, rc);
        return;
    }
    sy_srv_peer_reply(peer, tag, &b);
}

/* ---- CONNECT: the job data of the other namespaces ---- */

void sy_srv_opx_connect_reply(sy_srv_peer_t *peer, uint32_t tag, pmix_status_t status,
                              const pmix_proc_t *procs, size_t nprocs)
{
    /* after the status, one byte object per namespace taking part other
     * than the peer's own: the namespace, then its job data as at REQ
     * (what the client's gds/hash stores, so that it can get the other
     * job's keys and ranks) */
    pmix_data_buffer_t rest = {0};
    pmix_status_t rc = PMIX_SUCCESS;
    bool ok = status == PMIX_SUCCESS || status == PMIX_ERR_PARTIAL_SUCCESS;
    for (size_t i = 0; ok && rc == PMIX_SUCCESS && i < nprocs; i++) {
        const char *name = procs[i].nspace;
        bool seen = PMIX_CHECK_NSPACE(name, peer->proc.nspace);
        for (size_t j = 0; !seen && j < i; j++)
            seen = PMIX_CHECK_NSPACE(name, procs[j].nspace);
        sy_srv_nspace_t *ns = seen ? NULL : sy_srv_nspace_find(sy_srv, name);
        if (ns == NULL || ns->seg_path == NULL)
            continue; /* a namespace served elsewhere: its host's to tell */
        pmix_data_buffer_t one = {0};
        rc = pack_job_info(ns, &one);
        if (rc == PMIX_SUCCESS) {
            pmix_byte_object_t bo = {.bytes = one.base_ptr, .size = one.bytes_used};
            rc = sy_opx_pack(&rest, &bo, 1, PMIX_BYTE_OBJECT);
        }
        sy_buffer_destruct(&one);
    }
    if (rc != PMIX_SUCCESS)
        sy_log(SY_LOG_WARN, "server: no job data for OpenPMIx client %s:%u's connect: %s",
               peer->proc.nspace, peer->proc.rank, PMIx_Error_string(rc));
    sy_srv_peer_reply_with(peer, tag, rc == PMIX_SUCCESS ? status : rc, &rest);
    sy_buffer_destruct(&rest);
}

/* ---- GETNB of a reserved key: the job data ---- */

/* One byte object of a GETNB reply: the process, then its pairs, each
 * its own pack call (the client unpacks them one at a time). */
static pmix_status_t put_proc_pairs(pmix_data_buffer_t *b, const char *nspace, pmix_rank_t rank,
                                    const pmix_info_t *infos, size_t n)
{
    pmix_data_buffer_t in = {0};
    pmix_proc_t who;
    PMIX_LOAD_PROCID(&who, nspace, rank);
    pmix_status_t rc = sy_opx_pack(&in, &who, 1, PMIX_PROC);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++)
        if (!sy_srv_opx_skipped_key(infos[i].key))
            rc = put_kval(&in, infos[i].key, &infos[i].value);
    if (rc == PMIX_SUCCESS) {
        pmix_byte_object_t bo = {.bytes = in.base_ptr, .size = in.bytes_used};
        rc = sy_opx_pack(b, &bo, 1, PMIX_BYTE_OBJECT);
    }
    sy_buffer_destruct(&in);
    return rc;
}

/* A job's data as GETNB answers carry it: the job level under the
 * wildcard rank, then each rank's values (derived ones included). */
static pmix_status_t pack_job_by_proc(sy_srv_nspace_t *ns, sy_jseg_t *seg, pmix_data_buffer_t *b)
{
    pmix_info_t *infos = NULL;
    size_t n = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    if (sy_jseg_get_all(seg, SY_REALM_JOB, 0, &infos, &n) == PMIX_SUCCESS) {
        rc = put_proc_pairs(b, ns->name, PMIX_RANK_WILDCARD, infos, n);
        PMIX_INFO_FREE(infos, n);
    }
    for (uint32_t r = 0; rc == PMIX_SUCCESS && r < ns->summary.job_size; r++) {
        infos = NULL;
        n = 0;
        if (sy_jseg_get_all(seg, SY_REALM_PROC, r, &infos, &n) != PMIX_SUCCESS)
            continue;
        rc = put_proc_pairs(b, ns->name, r, infos, n);
        PMIX_INFO_FREE(infos, n);
    }
    return rc;
}

bool sy_srv_opx_job_value(sy_srv_peer_t *peer, uint32_t tag, const pmix_proc_t *target,
                          const char *key)
{
    /* An OpenPMIx client asks its server (PMIX_IMMEDIATE) for a "pmix."
     * key it did not find in what it was given, e.g. PMIX_PARENT_ID of
     * its own rank, which we keep at job level: the rank's value, else
     * the job's. */
    /* A job-level key of another namespace (the wildcard rank: a job it
     * spawned or connected to) comes the same way. */
    bool job = target->rank == PMIX_RANK_WILDCARD;
    sy_srv_nspace_t *ns = sy_srv_nspace_find(sy_srv, target->nspace);
    if (ns == NULL || ns->seg_path == NULL || strncmp(key, "pmix.", 5) != 0 ||
        (!job && (target->rank >= PMIX_RANK_VALID || target->rank >= ns->summary.job_size)))
        return false;
    sy_jseg_t *seg = NULL;
    if (sy_jseg_open(ns->seg_path, &seg) != PMIX_SUCCESS)
        return false;
    pmix_value_t *v = NULL;
    if (job || sy_jseg_get(seg, SY_REALM_PROC, target->rank, key, &v) != PMIX_SUCCESS)
        (void)sy_jseg_get(seg, SY_REALM_JOB, 0, key, &v);
    if (v != NULL && !PMIX_CHECK_NSPACE(target->nspace, peer->proc.nspace)) {
        /* another job's: all of its data, which the client keeps (it asks
         * no more for that namespace's reserved keys) */
        PMIX_VALUE_RELEASE(v);
        pmix_data_buffer_t rest = {0};
        pmix_status_t rc = pack_job_by_proc(ns, seg, &rest);
        sy_jseg_close(seg);
        if (rc == PMIX_SUCCESS)
            sy_srv_peer_reply_with(peer, tag, PMIX_SUCCESS, &rest);
        sy_buffer_destruct(&rest);
        return rc == PMIX_SUCCESS;
    }
    sy_jseg_close(seg);
    if (v == NULL)
        return false;
    sy_wire_dmodex_rep_t rep = {.owner = *target, .key = (char *)key, .value = *v};
    sy_srv_peer_reply_msg(peer, tag, PMIX_SUCCESS, SY_WMSG_DMODEX_REP, &rep);
    PMIX_VALUE_RELEASE(v);
    return true;
}

/* ---- GETNB of a key a fence collected: records in batches ---- */

/* An OpenPMIx client keeps every record a GETNB reply carries and looks
 * in them before asking again; an OpenPMIx server gives its own clients
 * the collected data in shared memory (ds21), which we do not offer.  So
 * the answer to "rank R's key" is R's whole record plus the records of
 * the ranks after R, up to a batch: a loop over the job's peers asks once
 * per batch instead of once per peer and key.  The batch is bounded so
 * that a large job's clients do not each receive everyone's data. */
enum { OPX_BATCH_RANKS = 64, OPX_BATCH_BYTES = 256 * 1024 };

static bool has_key(const pmix_info_t *infos, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_KEY(&infos[i], key))
            return true;
    return false;
}

bool sy_srv_opx_modex_value(sy_srv_peer_t *peer, uint32_t tag, const pmix_proc_t *target,
                            const char *key)
{
    if (target->rank >= PMIX_RANK_VALID)
        return false;
    pmix_data_buffer_t rest = {0};
    pmix_status_t rc = PMIX_SUCCESS;
    pmix_rank_t end = target->rank + OPX_BATCH_RANKS;
    if (end > PMIX_RANK_VALID || end < target->rank)
        end = PMIX_RANK_VALID;
    for (pmix_rank_t r = target->rank; rc == PMIX_SUCCESS && r < end; r++) {
        if (r != target->rank && rest.bytes_used >= OPX_BATCH_BYTES)
            break;
        pmix_proc_t who;
        PMIX_LOAD_PROCID(&who, target->nspace, r);
        pmix_info_t *infos = NULL;
        size_t n = 0;
        bool have = sy_store_modex_record(&who, &infos, &n) == PMIX_SUCCESS;
        if (r == target->rank && !(have && has_key(infos, n, key))) {
            if (have)
                PMIX_INFO_FREE(infos, n);
            return false; /* not collected (yet): the usual path holds it */
        }
        if (!have)
            continue;
        rc = put_proc_pairs(&rest, target->nspace, r, infos, n);
        PMIX_INFO_FREE(infos, n);
    }
    if (rc == PMIX_SUCCESS)
        sy_srv_peer_reply_with(peer, tag, PMIX_SUCCESS, &rest);
    sy_buffer_destruct(&rest);
    return rc == PMIX_SUCCESS;
}

/* ---- IOF_PULL: the client's id for its registration ---- */

pmix_status_t sy_srv_opx_take_iof_id(pmix_info_t **dirs, size_t *ndirs, size_t *id)
{
    size_t n = *dirs != NULL ? *ndirs : 0;
    if (n == 0 || !PMIX_CHECK_KEY(&(*dirs)[n - 1], SY_WIRE_OPX_IOF_ID) ||
        (*dirs)[n - 1].value.type != PMIX_SIZE)
        return PMIX_ERR_UNPACK_FAILURE;
    *id = (*dirs)[n - 1].value.data.size;
    PMIX_INFO_DESTRUCT(&(*dirs)[n - 1]);
    if (--n == 0) {
        free(*dirs);
        *dirs = NULL;
    }
    *ndirs = n;
    return PMIX_SUCCESS;
}

/* ---- heartbeats (tag 1, no body) ---- */

static void beat_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)status;
    (void)info;
    (void)ninfo;
    (void)cbdata;
    sy_srv_release_later(release_fn, release_cbdata);
}

void sy_srv_opx_heartbeat(sy_srv_peer_t *peer)
{
    /* PMIx_Heartbeat of an OpenPMIx client: a one-way frame, our
     * MONITOR with PMIX_SEND_HEARTBEAT to the host, nothing answered */
    static pmix_info_t beat = {.key = PMIX_SEND_HEARTBEAT,
                               .value = {.type = PMIX_BOOL, .data.flag = true}};
    pmix_server_module_t *m = &sy_srv->module;
    pmix_status_t st;
    if (peer->client != NULL && sy_srv->monitoring &&
        sy_srv_monitor_take(&peer->client->proc, &beat, PMIX_SUCCESS, NULL, 0, &st))
        return; /* PMIX_SERVER_ENABLE_MONITORING: ours to count */
    if (peer->client == NULL || m->monitor == NULL)
        return;
    pmix_status_t rc =
        m->monitor(&peer->client->proc, &beat, PMIX_SUCCESS, NULL, 0, beat_done, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
        sy_log(SY_LOG_DEBUG, "server: heartbeat of %s:%u: %s", peer->proc.nspace, peer->proc.rank,
               PMIx_Error_string(rc));
}

/* ---- commands with no message of ours ---- */

void sy_srv_opx_command(sy_srv_peer_t *peer, uint8_t opx_cmd, uint32_t tag, pmix_data_buffer_t *b)
{
    if (opx_cmd == 0) { /* PMIX_REQ_CMD */
        answer_req(peer, tag);
        return;
    }
    if (opx_cmd == 14) {
        /* PMIX_DEREGEVENTS_CMD names no registration of ours: the
         * client's handlers go with it, ours with the connection.  No
         * reply: the client sends it without waiting for one (OpenPMIx's
         * server answers none), so a reply would reach it as an
         * UNEXPECTED MESSAGE under a tag nobody waits on. */
        (void)tag;
        return;
    }
    if (opx_cmd == 32) { /* PMIX_COMPUTE_DEVICE_DISTANCES_CMD */
        sy_srv_opx_distances(peer, tag, b);
        return;
    }
    /* the commands we do not serve, by OpenPMIx's names */
    static const char *const names[] = {[25] = "GROUP_JOIN", [26] = "GROUP_INVITE"};
    const char *name = opx_cmd < sizeof(names) / sizeof(names[0]) ? names[opx_cmd] : NULL;
    sy_log(SY_LOG_WARN, "server: OpenPMIx client %s:%u: command %u (%s) is not supported",
           peer->proc.nspace, peer->proc.rank, opx_cmd, name != NULL ? name : "unknown");
    sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_SUPPORTED);
}
