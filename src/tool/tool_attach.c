/* Finding and connecting to servers (Chap_API_Tools.tex, "Connection
 * Mechanisms"): the precedence chain of PMIx_tool_init and
 * PMIx_tool_attach_to_server over rendezvous files (common/rendezvous.c),
 * the tool HELLO, and the list of servers with its primary. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

#include "common/info.h"
#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/log.h"
#include "common/opx_client.h"
#include "common/rendezvous.h"
#include "common/sync.h"
#include "common/usock.h"
#include "tool/tool_internal.h"

pthread_mutex_t sy_tool_lock = PTHREAD_MUTEX_INITIALIZER;
sy_tool_t sy_tool;

static const char *str_of(const pmix_info_t info[], size_t n, const char *key)
{
    const pmix_info_t *i = sy_info_find(info, n, key);
    return i != NULL && i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

static bool num_of(const pmix_info_t info[], size_t n, const char *key, long *out)
{
    const pmix_info_t *i = sy_info_find(info, n, key);
    if (i == NULL)
        return false;
    switch (i->value.type) {
    case PMIX_PID: *out = i->value.data.pid; return true;
    case PMIX_UINT32: *out = (long)i->value.data.uint32; return true;
    case PMIX_INT32: *out = i->value.data.int32; return true;
    case PMIX_INT: *out = i->value.data.integer; return true;
    case PMIX_UINT: *out = (long)i->value.data.uint; return true;
    case PMIX_SIZE: *out = (long)i->value.data.size; return true;
    case PMIX_UINT64: *out = (long)i->value.data.uint64; return true;
    default: return false;
    }
}

/* ---- the list of servers ---- */

void sy_tool_make_primary(sy_tool_server_t *s)
{
    sy_tool.primary = s;
    char *host = s->host != NULL ? strdup(s->host) : NULL;
    pthread_mutex_lock(&sy_client_lock);
    sy_client.conn = s->conn;
    sy_client.server = s->proc;
    free(sy_client.server_host);
    sy_client.server_host = host;
    pthread_mutex_unlock(&sy_client_lock);
}

static void unlink_locked(sy_tool_server_t *s)
{
    for (sy_tool_server_t **pp = &sy_tool.servers; *pp != NULL; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    sy_conn_t **g = realloc(sy_tool.closed, (sy_tool.nclosed + 1) * sizeof(*g));
    if (g != NULL) {
        sy_tool.closed = g;
        sy_tool.closed[sy_tool.nclosed++] = s->conn;
    }
    if (sy_tool.primary == s) {
        sy_tool.primary = NULL;
        pthread_mutex_lock(&sy_client_lock);
        sy_client.conn = NULL;
        pthread_mutex_unlock(&sy_client_lock);
    }
}

static void server_free(sy_tool_server_t *s)
{
    free(s->host);
    free(s->uri);
    free(s);
}

/* A server's connection died (on the loop). */
static void on_close(sy_conn_t *conn, pmix_status_t reason, const char *why, void *ctx)
{
    sy_tool_server_t *s = ctx;
    pthread_mutex_lock(&sy_tool_lock);
    bool listed = false;
    for (sy_tool_server_t *x = sy_tool.servers; x != NULL && !listed; x = x->next)
        listed = x == s;
    bool primary = listed && sy_tool.primary == s;
    if (listed)
        unlink_locked(s);
    pthread_mutex_unlock(&sy_tool_lock);
    if (!listed)
        return; /* sy_tool_drop took it (the server closed after FINALIZE):
                 * its drop_on_loop, queued behind us, frees it */
    sy_log(SY_LOG_INFO, "tool: server %s:%u went away: %s", s->proc.nspace, s->proc.rank, why);
    if (primary) {
        /* the client's own handling: fail requests, end IOF, raise
         * PMIX_ERR_LOST_CONNECTION */
        sy_client_conn_callbacks.on_close(conn, reason, why, NULL);
    } else {
        sy_client_fail_requests_on(conn, PMIX_ERR_LOST_CONNECTION);
        sy_client_iof_lost(conn);
    }
    server_free(s);
}

typedef struct {
    sy_tool_server_t *s;
    sy_sync_t sync;
} drop_t;

static void drop_on_loop(void *arg)
{
    drop_t *d = arg;
    sy_tool_server_t *s = d->s;
    sy_conn_close(s->conn);
    sy_client_fail_requests_on(s->conn, PMIX_ERR_UNREACH);
    sy_client_iof_lost(s->conn);
    server_free(s);
    sy_sync_signal(&d->sync, PMIX_SUCCESS, NULL);
}

pmix_status_t sy_tool_drop(sy_tool_server_t *s)
{
    /* say goodbye first, so the host learns through client_finalized */
    pmix_status_t rc = sy_client_call(s->conn, SY_WMSG_FINALIZE_REQ, NULL, SY_REQUEST_WAIT, NULL);
    if (rc == PMIX_ERR_LOST_CONNECTION)
        rc = PMIX_SUCCESS;
    pthread_mutex_lock(&sy_tool_lock);
    bool listed = false;
    for (sy_tool_server_t *x = sy_tool.servers; x != NULL && !listed; x = x->next)
        listed = x == s;
    if (listed)
        unlink_locked(s);
    pthread_mutex_unlock(&sy_tool_lock);
    if (!listed)
        return rc; /* it died meanwhile: on_close forgot it */
    drop_t d = {.s = s};
    if (sy_sync_init(&d.sync) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    sy_progress_t *p = sy_client.progress;
    if (sy_progress_post(p, drop_on_loop, &d) == PMIX_SUCCESS)
        sy_sync_wait_progress(&d.sync, p);
    sy_sync_destroy(&d.sync);
    return rc;
}

static void close_all_on_loop(void *arg)
{
    pthread_mutex_lock(&sy_tool_lock);
    while (sy_tool.servers != NULL) {
        sy_tool_server_t *s = sy_tool.servers;
        unlink_locked(s);
        server_free(s);
    }
    for (size_t i = 0; i < sy_tool.nclosed; i++)
        sy_conn_free(sy_tool.closed[i]);
    free(sy_tool.closed);
    sy_tool.closed = NULL;
    sy_tool.nclosed = 0;
    pthread_mutex_unlock(&sy_tool_lock);
    sy_sync_signal(arg, PMIX_SUCCESS, NULL);
}

void sy_tool_close_all(void)
{
    sy_sync_t sync;
    sy_progress_t *p = sy_client.progress;
    if (sy_sync_init(&sync) != PMIX_SUCCESS)
        return;
    if (sy_progress_post(p, close_all_on_loop, &sync) == PMIX_SUCCESS)
        sy_sync_wait_progress(&sync, p);
    sy_sync_destroy(&sync);
    sy_client_fail_requests(PMIX_ERR_UNREACH);
}

/* ---- connecting ---- */

static bool connected_to(const sy_rndz_t *r)
{
    bool yes = false;
    pthread_mutex_lock(&sy_tool_lock);
    for (sy_tool_server_t *s = sy_tool.servers; s != NULL && !yes; s = s->next)
        yes = (r->pid > 0 && s->pid == r->pid) ||
              (r->server.nspace[0] != '\0' && PMIX_CHECK_PROCID(&s->proc, &r->server)) ||
              (r->uri != NULL && s->uri != NULL && strcmp(r->uri, s->uri) == 0);
    pthread_mutex_unlock(&sy_tool_lock);
    return yes;
}

static pmix_status_t dial(const sy_rndz_t *r, bool tcp_only, int *fd)
{
    if (!tcp_only && r->usock != NULL && sy_usock_connect(r->usock, fd) == PMIX_SUCCESS)
        return PMIX_SUCCESS;
    char host[256];
    int port = 0;
    if (r->uri != NULL && sy_rndz_parse_uri(r->uri, host, sizeof(host), &port) == PMIX_SUCCESS &&
        sy_tcp_connect(host, port, fd) == PMIX_SUCCESS)
        return PMIX_SUCCESS;
    return PMIX_ERR_UNREACH;
}

/* The HELLO's infos: who we are (over TCP the token vouches for it), our
 * version, and what the caller passed. */
static pmix_info_t *hello_info(const pmix_info_t info[], size_t ninfo, size_t *n)
{
    size_t k = 0, total = ninfo + 3;
    pmix_info_t *out;
    PMIX_INFO_CREATE(out, total);
    if (out == NULL)
        return NULL;
    uint32_t uid = (uint32_t)geteuid(), gid = (uint32_t)getegid();
    PMIX_INFO_LOAD(&out[k++], PMIX_USERID, &uid, PMIX_UINT32);
    PMIX_INFO_LOAD(&out[k++], PMIX_GRPID, &gid, PMIX_UINT32);
    PMIX_INFO_LOAD(&out[k++], PMIX_VERSION_INFO, PMIx_Get_version(), PMIX_STRING);
    for (size_t i = 0; info != NULL && i < ninfo; i++)
        if (info[i].value.type != PMIX_POINTER) /* addresses mean nothing there */
            PMIx_Info_xfer(&out[k++], &info[i]);
    *n = k;
    return out;
}

/* How long an OpenPMIx server's handshake may take. */
#define SY_TOOL_OPX_WAIT 30.0

/* A server we have no rendezvous file of ours for (OpenPMIx's own file, or
 * a bare URI: our servers take no tool over TCP without the token of their
 * file) speaks OpenPMIx's protocol. */
static bool speaks_openpmix(const sy_rndz_t *r)
{
    return r->openpmix || (r->path == NULL && r->uri != NULL);
}

/* The client's codec is one for all of a tool's connections: every server
 * it attaches to speaks the protocol of the first one. */
static pmix_status_t same_protocol(const sy_rndz_t *r, bool opx)
{
    pthread_mutex_lock(&sy_tool_lock);
    bool mixed = sy_tool.servers != NULL && sy_tool.servers->opx != opx;
    pthread_mutex_unlock(&sy_tool_lock);
    if (!mixed)
        return PMIX_SUCCESS;
    sy_log(SY_LOG_WARN,
           "tool: not attaching to %s: it speaks %s protocol, the servers this tool is "
           "attached to the other one",
           r->uri != NULL     ? r->uri
           : r->usock != NULL ? r->usock
                              : "a server",
           opx ? "OpenPMIx's" : "Switchyard's");
    return PMIX_ERR_NOT_SUPPORTED;
}

/* The OpenPMIx handshake of a tool (opx_connect.c); the host's answer is
 * its identity for us and the server's own. */
static pmix_status_t hello_openpmix(const sy_rndz_t *r, const pmix_proc_t *me, int *fd,
                                    sy_tool_server_t *s, pmix_proc_t *assigned)
{
    if (r->uri == NULL)
        return PMIX_ERR_UNREACH;
    pmix_status_t rc = sy_opx_tool_connect(r->uri, me, SY_TOOL_OPX_WAIT, fd, assigned, &s->proc);
    if (rc != PMIX_SUCCESS)
        return rc;
    char host[256] = "localhost";
    gethostname(host, sizeof(host) - 1);
    s->host = strdup(host);
    s->opx = true;
    if (s->host == NULL) {
        close(*fd);
        *fd = -1;
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

/* Our own HELLO as a tool. */
static pmix_status_t hello_native(const sy_rndz_t *r, bool tcp_only, const pmix_info_t info[],
                                  size_t ninfo, const pmix_proc_t *me, int *fd, sy_tool_server_t *s,
                                  pmix_proc_t *assigned)
{
    pmix_status_t rc = dial(r, tcp_only, fd);
    if (rc != PMIX_SUCCESS)
        return rc;
    size_t nh = 0;
    pmix_info_t *hinfo = hello_info(info, ninfo, &nh);
    if (hinfo == NULL)
        return PMIX_ERR_NOMEM;
    rc = sy_client_hello(*fd, SY_PEER_TOOL, me, r->token, hinfo, nh, &s->proc, &s->host, assigned);
    PMIX_INFO_FREE(hinfo, nh);
    return rc;
}

static pmix_status_t connect_one(const sy_rndz_t *r, bool tcp_only, const pmix_info_t info[],
                                 size_t ninfo, bool primary, pmix_proc_t *server)
{
    bool opx = speaks_openpmix(r);
    pmix_status_t rc = same_protocol(r, opx);
    if (rc != PMIX_SUCCESS)
        return rc;
    int fd = -1;
    pthread_mutex_lock(&sy_client_lock);
    pmix_proc_t me = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    if (me.nspace[0] == '\0')
        me.rank = PMIX_RANK_UNDEF;
    sy_tool_server_t *s = calloc(1, sizeof(*s));
    pmix_proc_t assigned = {0};
    if (s == NULL)
        return PMIX_ERR_NOMEM;
    if (opx) {
        rc = hello_openpmix(r, &me, &fd, s, &assigned);
        /* a bare URI that refused OpenPMIx's handshake may be one of our
         * servers: its own answer to our HELLO is the one to give */
        if (rc != PMIX_SUCCESS && rc != PMIX_ERR_UNREACH && !r->openpmix &&
            same_protocol(r, false) == PMIX_SUCCESS) {
            opx = false;
            pmix_status_t native = hello_native(r, tcp_only, info, ninfo, &me, &fd, s, &assigned);
            if (native != PMIX_ERR_UNREACH && native != PMIX_ERR_LOST_CONNECTION &&
                native != PMIX_ERR_TIMEOUT)
                rc = native;
        }
        if (rc == PMIX_ERR_LOST_CONNECTION)
            rc = PMIX_ERR_UNREACH; /* closed on us by whoever listens there */
    } else {
        rc = hello_native(r, tcp_only, info, ninfo, &me, &fd, s, &assigned);
    }
    if (rc == PMIX_SUCCESS && me.nspace[0] != '\0' && !PMIX_CHECK_PROCID(&me, &assigned)) {
        /* our identity is ours everywhere (the standard's rule) */
        sy_log(SY_LOG_WARN, "tool: server %s:%u gave us %s:%u, but we are %s:%u", s->proc.nspace,
               s->proc.rank, assigned.nspace, assigned.rank, me.nspace, me.rank);
        rc = PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc != PMIX_SUCCESS) {
        if (fd >= 0)
            close(fd);
        server_free(s);
        return rc;
    }
    s->pid = r->pid;
    s->uri = r->uri != NULL ? strdup(r->uri) : NULL;
    /* the client's messages, our own end of the connection */
    sy_conn_callbacks_t cbs = {.on_message = sy_client_conn_callbacks.on_message,
                               .on_close = on_close,
                               .receive_fds = sy_client_conn_callbacks.receive_fds,
                               .accept_continued = sy_client_conn_callbacks.accept_continued};
    /* OpenPMIx never tells a tool its peer index: its headers carry 0 */
    rc = sy_conn_create_framed(sy_progress_base(sy_client.progress), fd,
                               opx ? SY_FRAMING_OPENPMIX : SY_FRAMING_NATIVE, 0, &cbs, s, 0,
                               &s->conn);
    if (rc != PMIX_SUCCESS) {
        server_free(s);
        return rc;
    }
    pthread_mutex_lock(&sy_tool_lock);
    sy_tool_server_t **tail = &sy_tool.servers;
    while (*tail != NULL)
        tail = &(*tail)->next;
    *tail = s;
    pthread_mutex_lock(&sy_client_lock);
    if (me.nspace[0] == '\0')
        sy_client.me = assigned;
    sy_client.opx = opx; /* the codec of every request from now on */
    pthread_mutex_unlock(&sy_client_lock);
    if (primary || sy_tool.primary == NULL)
        sy_tool_make_primary(s);
    if (server != NULL)
        *server = s->proc;
    pthread_mutex_unlock(&sy_tool_lock);
    sy_log(SY_LOG_DEBUG, "tool: attached to %s:%u (pid %ld)", s->proc.nspace, s->proc.rank,
           (long)s->pid);
    return PMIX_SUCCESS;
}

/* A connection attempt that another try may fix (the server is not up yet). */
static bool retryable(pmix_status_t rc)
{
    return rc == PMIX_ERR_NOT_FOUND || rc == PMIX_ERR_UNREACH;
}

typedef struct {
    const pmix_info_t *info;
    size_t ninfo;
    const char *server_dir, *system_dir;
    bool primary;
    pmix_proc_t *server;
} chain_t;

/* Connect to a server already listed, or report it. */
static pmix_status_t try_rndz(chain_t *c, const sy_rndz_t *r, bool tcp_only)
{
    if (connected_to(r)) {
        pthread_mutex_lock(&sy_tool_lock);
        for (sy_tool_server_t *s = sy_tool.servers; s != NULL; s = s->next)
            if (s->pid == r->pid || PMIX_CHECK_PROCID(&s->proc, &r->server)) {
                if (c->server != NULL)
                    *c->server = s->proc;
                if (c->primary)
                    sy_tool_make_primary(s);
                break;
            }
        pthread_mutex_unlock(&sy_tool_lock);
        return PMIX_SUCCESS;
    }
    return connect_one(r, tcp_only, c->info, c->ninfo, c->primary, c->server);
}

typedef bool (*match_fn)(const sy_rndz_t *r, const void *arg);

static bool match_pid(const sy_rndz_t *r, const void *arg)
{
    return r->pid == *(const pid_t *)arg;
}

static bool match_nspace(const sy_rndz_t *r, const void *arg)
{
    return PMIX_CHECK_NSPACE(r->server.nspace, (const char *)arg);
}

static bool match_uri(const sy_rndz_t *r, const void *arg)
{
    return r->uri != NULL && strcmp(r->uri, (const char *)arg) == 0;
}

/* The first live server announced in the server directory (and, with
 * both, the system directory) that matches. */
static pmix_status_t find_rndz(chain_t *c, match_fn m, const void *arg, bool both, sy_rndz_t *out)
{
    const char *dirs[2] = {c->server_dir, c->system_dir};
    for (int d = 0; d < (both ? 2 : 1); d++) {
        if (d == 1 && strcmp(dirs[0], dirs[1]) == 0)
            break;
        sy_rndz_t *list = NULL;
        size_t n = 0;
        sy_rndz_scan(dirs[d], &list, &n);
        for (size_t i = 0; i < n; i++) {
            if (m(&list[i], arg)) {
                *out = list[i];
                memset(&list[i], 0, sizeof(list[i]));
                sy_rndz_list_free(list, n);
                return PMIX_SUCCESS;
            }
        }
        sy_rndz_list_free(list, n);
    }
    return PMIX_ERR_NOT_FOUND;
}

/* The file "pmix.<host>.tool.<pid or nspace>" a few levels down the
 * server directory, where OpenPMIx servers (Open MPI's mpirun) keep theirs
 * in session directories. */
static pmix_status_t find_named(chain_t *c, long pid, const char *ns, sy_rndz_t *out)
{
    char host[256] = "localhost", *name = NULL;
    gethostname(host, sizeof(host) - 1);
    int n = ns != NULL ? asprintf(&name, "pmix.%s.tool.%s", host, ns)
                       : asprintf(&name, "pmix.%s.tool.%ld", host, pid);
    if (n < 0)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = sy_rndz_find_named(c->server_dir, name, out);
    free(name);
    return rc;
}

/* One named target, with the retries PMIX_CONNECT_MAX_RETRIES asks for. */
typedef enum { T_FILE, T_URI, T_TCP_URI, T_PID, T_NSPACE, T_SYSTEM } target_t;

static pmix_status_t try_target(chain_t *c, target_t t, const void *arg)
{
    sy_rndz_t r = {0};
    pmix_status_t rc;
    char *path = NULL;
    char host[256] = "localhost";
    switch (t) {
    case T_FILE:
        rc = sy_rndz_read((const char *)arg, &r);
        if (rc == PMIX_SUCCESS && !sy_rndz_alive(&r))
            rc = PMIX_ERR_UNREACH;
        break;
    case T_URI:
    case T_TCP_URI:
        /* a rendezvous file with that URI gives the token (and a socket) */
        if (find_rndz(c, match_uri, arg, true, &r) != PMIX_SUCCESS) {
            memset(&r, 0, sizeof(r));
            r.uri = strdup((const char *)arg);
            rc = r.uri != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
        } else {
            rc = PMIX_SUCCESS;
        }
        break;
    /* the standard looks for these in PMIX_SERVER_TMPDIR only; OpenPMIx
     * servers (Open MPI's mpirun) name their files so, deeper down */
    case T_PID:
        rc = find_rndz(c, match_pid, arg, false, &r);
        if (rc != PMIX_SUCCESS)
            rc = find_named(c, (long)*(const pid_t *)arg, NULL, &r);
        break;
    case T_NSPACE:
        rc = find_rndz(c, match_nspace, arg, false, &r);
        if (rc != PMIX_SUCCESS)
            rc = find_named(c, 0, (const char *)arg, &r);
        break;
    default:
        gethostname(host, sizeof(host) - 1);
        if (asprintf(&path, "%s/pmix.sys.%s", c->system_dir, host) < 0)
            return PMIX_ERR_NOMEM;
        rc = sy_rndz_read(path, &r);
        free(path);
        if (rc == PMIX_SUCCESS && !sy_rndz_alive(&r))
            rc = PMIX_ERR_UNREACH;
        break;
    }
    if (rc == PMIX_SUCCESS)
        rc = try_rndz(c, &r, t == T_TCP_URI);
    sy_rndz_free(&r);
    return rc;
}

static pmix_status_t with_retries(chain_t *c, target_t t, const void *arg)
{
    long retries = 0, delay = 1;
    num_of(c->info, c->ninfo, PMIX_CONNECT_MAX_RETRIES, &retries);
    num_of(c->info, c->ninfo, PMIX_CONNECT_RETRY_DELAY, &delay);
    pmix_status_t rc;
    for (long attempt = 0;; attempt++) {
        rc = try_target(c, t, arg);
        if (!retryable(rc) || attempt >= retries)
            break;
        struct timespec ts = {.tv_sec = delay > 0 ? delay : 0};
        nanosleep(&ts, NULL);
    }
    return rc;
}

/* Every server in the tree under the server directory, newest first, until
 * one accepts us. */
static pmix_status_t search(chain_t *c)
{
    sy_rndz_t *list = NULL;
    size_t n = 0;
    sy_rndz_scan(c->server_dir, &list, &n);
    pmix_status_t rc = PMIX_ERR_UNREACH, last = PMIX_ERR_UNREACH;
    for (size_t i = 0; i < n && rc != PMIX_SUCCESS; i++) {
        /* a PMIX_LAUNCHER tool's own server is not one to attach to */
        if (connected_to(&list[i]) || list[i].pid == getpid())
            continue;
        rc = connect_one(&list[i], false, c->info, c->ninfo, c->primary, c->server);
        if (rc != PMIX_SUCCESS)
            last = rc;
    }
    sy_rndz_list_free(list, n);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "tool: no server under %s accepted us%s", c->server_dir,
               n == 0 ? " (no rendezvous file found)" : "");
        /* nobody at all is UNREACH; a refusal says why */
        rc = n == 0 ? PMIX_ERR_UNREACH : last;
    }
    return rc;
}

pmix_status_t sy_tool_attach(const pmix_info_t info[], size_t ninfo, bool primary,
                             pmix_proc_t *server)
{
    const char *sdir = str_of(info, ninfo, PMIX_SERVER_TMPDIR);
    const char *ydir = str_of(info, ninfo, PMIX_SYSTEM_TMPDIR);
    chain_t c = {.info = info,
                 .ninfo = ninfo,
                 .server_dir = sdir != NULL ? sdir : sy_rndz_default_dir(),
                 .system_dir = ydir != NULL ? ydir : sy_rndz_default_dir(),
                 .primary = primary || sy_info_flag(info, ninfo, PMIX_PRIMARY_SERVER),
                 .server = server};
    const char *file = str_of(info, ninfo, PMIX_TOOL_ATTACHMENT_FILE);
    const char *uri = str_of(info, ninfo, PMIX_SERVER_URI);
    const char *tcp = str_of(info, ninfo, PMIX_TCP_URI);
    const char *ns = str_of(info, ninfo, PMIX_SERVER_NSPACE);
    long pid = 0;
    bool have_pid = num_of(info, ninfo, PMIX_SERVER_PIDINFO, &pid);
    if (uri != NULL && tcp != NULL) {
        sy_log(SY_LOG_WARN, "tool: PMIX_SERVER_URI and PMIX_TCP_URI given together");
        return PMIX_ERR_BAD_PARAM;
    }
    if (file != NULL)
        return with_retries(&c, T_FILE, file);
    if (uri != NULL || tcp != NULL)
        return with_retries(&c, uri != NULL ? T_URI : T_TCP_URI, uri != NULL ? uri : tcp);
    if (have_pid) {
        pid_t p = (pid_t)pid;
        return with_retries(&c, T_PID, &p);
    }
    if (ns != NULL)
        return with_retries(&c, T_NSPACE, ns);
    if (sy_info_flag(info, ninfo, PMIX_CONNECT_TO_SYSTEM))
        return with_retries(&c, T_SYSTEM, NULL);
    if (sy_info_flag(info, ninfo, PMIX_CONNECT_SYSTEM_FIRST) &&
        try_target(&c, T_SYSTEM, NULL) == PMIX_SUCCESS)
        return PMIX_SUCCESS;
    return search(&c);
}
