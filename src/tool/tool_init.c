/* PMIx_tool_init / _finalize and the management of a tool's servers:
 * PMIx_tool_attach_to_server (and the deprecated _connect_to_server),
 * _disconnect, _get_servers, _set_server (Chap_API_Tools.tex,
 * "Tool-Specific APIs").  The tool uses the client's state: its identity,
 * its runtime, and the primary server's connection as the client's. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>
#include <switchyard.h>

#include "common/info.h"
#include "client/client_internal.h"
#include "server/server_module.h"
#include "common/event.h"
#include "common/log.h"
#include "common/runtime.h"
#include "common/store.h"
#include "common/topology.h"
#include "tool/tool_internal.h"

typedef struct {
    bool do_not_connect, optional, launcher;
    pmix_proc_t me; /* nspace empty: none given */
} init_opts_t;

static pmix_status_t parse(const pmix_info_t info[], size_t ninfo, init_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->me.rank = PMIX_RANK_UNDEF;
    bool rank_given = false;
    for (size_t i = 0; info != NULL && i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        if (sy_info_is(in, PMIX_TOOL_NSPACE)) {
            if (in->value.type != PMIX_STRING || in->value.data.string == NULL ||
                strlen(in->value.data.string) > PMIX_MAX_NSLEN)
                return PMIX_ERR_BAD_PARAM;
            PMIX_LOAD_NSPACE(o->me.nspace, in->value.data.string);
        } else if (sy_info_is(in, PMIX_TOOL_RANK)) {
            if (in->value.type == PMIX_UINT32)
                o->me.rank = in->value.data.uint32;
            else if (in->value.type == PMIX_PROC_RANK)
                o->me.rank = in->value.data.rank;
            else
                return PMIX_ERR_BAD_PARAM;
            rank_given = true;
        } else if (sy_info_is(in, PMIX_TOOL_DO_NOT_CONNECT)) {
            o->do_not_connect = sy_info_true(in);
        } else if (sy_info_is(in, PMIX_TOOL_CONNECT_OPTIONAL)) {
            o->optional = sy_info_true(in);
        } else if (sy_info_is(in, PMIX_LAUNCHER)) {
            o->launcher = sy_info_true(in);
        }
    }
    if (o->me.nspace[0] != '\0' && !rank_given)
        o->me.rank = 0;
    /* started by another tool: the identity it gave us, unless we chose */
    if (o->me.nspace[0] == '\0' && !rank_given)
        sy_tool_rndz_identity(&o->me);
    /* a launcher with no server to name it names itself: the processes
     * it starts are known under its namespace */
    if (o->me.nspace[0] == '\0' && o->launcher) {
        char host[64] = "localhost";
        gethostname(host, sizeof(host) - 1);
        char ns[PMIX_MAX_NSLEN + 1];
        snprintf(ns, sizeof(ns), "switchyard-tool.%.64s.%ld", host, (long)getpid());
        PMIX_LOAD_PROCID(&o->me, ns, 0);
    }
    if (o->me.nspace[0] == '\0' && rank_given)
        return PMIX_ERR_BAD_PARAM; /* a rank in no namespace */
    return PMIX_SUCCESS;
}

/* PMIX_LAUNCHER: a server of our own, for the processes we will start,
 * with the rendezvous files that let others find it.  Only the
 * attributes that configure a server are passed on. */
/* PMIX_LAUNCHER's server: set or cleared under the lock (tool APIs read
 * it on other threads); the old value. */
static bool set_launcher(bool on)
{
    pthread_mutex_lock(&sy_tool_lock);
    bool was = sy_tool.launcher;
    sy_tool.launcher = on;
    pthread_mutex_unlock(&sy_tool_lock);
    return was;
}

static pmix_status_t start_launcher(const pmix_info_t info[], size_t ninfo, const pmix_proc_t *me)
{
    static const char *const keys[] = {PMIX_SERVER_TMPDIR,    PMIX_SYSTEM_TMPDIR,
                                       PMIX_SOCKET_MODE,      PMIX_TCP_IPV4_PORT,
                                       PMIX_TCP_IPV6_PORT,    PMIX_TCP_DISABLE_IPV4,
                                       PMIX_TCP_DISABLE_IPV6, PMIX_SINGLE_LISTENER,
                                       PMIX_USOCK_DISABLE,    NULL};
    pmix_info_t *sinfo;
    size_t n = 0;
    PMIX_INFO_CREATE(sinfo, ninfo + 3);
    if (sinfo == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; info != NULL && i < ninfo; i++)
        for (size_t k = 0; keys[k] != NULL; k++)
            if (sy_info_is(&info[i], keys[k]))
                PMIx_Info_xfer(&sinfo[n++], &info[i]);
    if (me->nspace[0] != '\0') {
        PMIX_INFO_LOAD(&sinfo[n], PMIX_SERVER_NSPACE, me->nspace, PMIX_STRING);
        n++;
        PMIX_INFO_LOAD(&sinfo[n], PMIX_SERVER_RANK, &me->rank, PMIX_PROC_RANK);
        n++;
    }
    /* the tools it starts connect back to it (PMIX_LAUNCHER_RNDZ_URI) */
    PMIX_INFO_LOAD(&sinfo[n], PMIX_SERVER_TOOL_SUPPORT, NULL, PMIX_BOOL);
    n++;
    pmix_server_module_t none;
    memset(&none, 0, sizeof(none));
    sy_tool_spawn_module(&none);
    pmix_status_t rc = PMIx_server_init(&none, sinfo, n);
    PMIX_INFO_FREE(sinfo, ninfo + 3);
    return rc;
}

static void reset(void)
{
    free(sy_client.server_host);
    memset(&sy_client, 0, sizeof(sy_client));
}

PMIX_EXPORT pmix_status_t PMIx_tool_init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo)
{
    if (info == NULL && ninfo > 0)
        return PMIX_ERR_BAD_PARAM;
    pthread_mutex_lock(&sy_tool_lock);
    if (sy_tool.refcount > 0) {
        sy_tool.refcount++;
        pthread_mutex_unlock(&sy_tool_lock);
        pthread_mutex_lock(&sy_client_lock);
        if (proc != NULL)
            *proc = sy_client.me;
        pthread_mutex_unlock(&sy_client_lock);
        return PMIX_SUCCESS;
    }
    pthread_mutex_unlock(&sy_tool_lock);
    if (PMIx_Initialized()) {
        sy_log(SY_LOG_WARN, "PMIx_tool_init: this process is already a PMIx client");
        return PMIX_ERR_INIT;
    }
    init_opts_t o;
    pmix_status_t rc = parse(info, ninfo, &o);
    if (rc != PMIX_SUCCESS)
        return rc;
    sy_progress_t *p = NULL;
    if ((rc = sy_runtime_acquire(info, ninfo, &p)) != PMIX_SUCCESS)
        return rc;
    sy_store_acquire();
    pthread_mutex_lock(&sy_client_lock);
    reset();
    sy_client.progress = p;
    sy_client.tool = true;
    sy_client.me = o.me;
    /* up from now on: the client API answers PMIX_ERR_UNREACH until a
     * server is attached */
    sy_client.refcount = 1;
    pthread_mutex_unlock(&sy_client_lock);
    pthread_mutex_lock(&sy_tool_lock);
    sy_tool.refcount = 1;
    pthread_mutex_unlock(&sy_tool_lock);
    sy_store_set_resolver(sy_client_resolve_nspace, NULL);
    sy_store_set_provider(PMIX_DEVICE_DISTANCES, sy_client_device_distances);
    /* a launcher a tool started runs its own server first: its events
     * keep going out through that server */
    bool own_server = sy_srv_running() && !o.launcher;
    if (o.launcher) {
        rc = start_launcher(info, ninfo, &o.me);
        if (rc != PMIX_SUCCESS)
            sy_log(SY_LOG_WARN, "PMIx_tool_init: PMIX_LAUNCHER: no server: %s",
                   PMIx_Error_string(rc));
        else
            set_launcher(true);
    }
    /* a tool another tool started connects back to it, and only there */
    if (rc == PMIX_SUCCESS && !o.do_not_connect && !sy_tool_rndz_given()) {
        rc = sy_tool_attach(info, ninfo, true, NULL);
        if (rc != PMIX_SUCCESS && o.optional) {
            sy_log(SY_LOG_INFO, "PMIx_tool_init: no server (%s); going on unconnected",
                   PMIx_Error_string(rc));
            rc = PMIX_SUCCESS;
        }
    }
    if (rc != PMIX_SUCCESS) {
        pthread_mutex_lock(&sy_tool_lock);
        sy_tool.refcount = 0;
        pthread_mutex_unlock(&sy_tool_lock);
        sy_tool_close_all();
        if (set_launcher(false))
            PMIx_server_finalize();
        sy_store_set_resolver(NULL, NULL);
        sy_store_set_provider(PMIX_DEVICE_DISTANCES, NULL);
        sy_store_release();
        sy_runtime_release();
        pthread_mutex_lock(&sy_client_lock);
        reset();
        pthread_mutex_unlock(&sy_client_lock);
        return rc;
    }
    pthread_mutex_lock(&sy_client_lock);
    pmix_proc_t me = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    sy_client_event_init(info, ninfo, !own_server);
    pthread_mutex_lock(&sy_tool_lock);
    bool serving = sy_tool.launcher;
    pthread_mutex_unlock(&sy_tool_lock);
    if (serving)
        sy_client_set_local_spawn(sy_tool_self_spawn);
    rc = sy_tool_rndz_connect(&me);
    if (rc != PMIX_SUCCESS) {
        PMIx_tool_finalize();
        return rc;
    }
    pthread_mutex_lock(&sy_client_lock);
    me = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    if (proc != NULL)
        *proc = me;
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_tool_finalize(void)
{
    pthread_mutex_lock(&sy_tool_lock);
    if (sy_tool.refcount == 0) {
        pthread_mutex_unlock(&sy_tool_lock);
        return PMIX_ERR_INIT;
    }
    if (--sy_tool.refcount > 0) {
        pthread_mutex_unlock(&sy_tool_lock);
        return PMIX_SUCCESS;
    }
    pthread_mutex_unlock(&sy_tool_lock);
    sy_client_set_local_spawn(NULL);
    sy_tool_rndz_finalize();
    sy_client_iof_finalize();
    sy_client_event_finalize();
    /* each server hears that we leave (its host's client_finalized) */
    pmix_status_t rc = PMIX_SUCCESS;
    for (;;) {
        pthread_mutex_lock(&sy_tool_lock);
        sy_tool_server_t *s = sy_tool.servers;
        pthread_mutex_unlock(&sy_tool_lock);
        if (s == NULL)
            break;
        pmix_status_t r = sy_tool_drop(s);
        if (r != PMIX_SUCCESS)
            rc = r;
    }
    sy_store_set_resolver(NULL, NULL);
    sy_store_set_provider(PMIX_DEVICE_DISTANCES, NULL);
    sy_tool_close_all();
    if (set_launcher(false)) {
        sy_tool_spawn_finalize();
        PMIx_server_finalize();
    }
    pthread_mutex_lock(&sy_client_lock);
    pmix_proc_t me = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    sy_store_detach(me.nspace);
    sy_store_release();
    sy_topology_release_cached();
    sy_runtime_release();
    pthread_mutex_lock(&sy_client_lock);
    reset();
    pthread_mutex_unlock(&sy_client_lock);
    return rc;
}

static bool tool_up(void)
{
    pthread_mutex_lock(&sy_tool_lock);
    bool up = sy_tool.refcount > 0;
    pthread_mutex_unlock(&sy_tool_lock);
    return up;
}

PMIX_EXPORT pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t *myproc, pmix_proc_t *server,
                                                     pmix_info_t info[], size_t ninfo)
{
    if (!tool_up())
        return PMIX_ERR_INIT;
    if (info == NULL && ninfo > 0)
        return PMIX_ERR_BAD_PARAM;
    pmix_proc_t srv;
    pmix_status_t rc = sy_tool_attach(info, ninfo, false, &srv);
    if (rc != PMIX_SUCCESS)
        return rc;
    pthread_mutex_lock(&sy_client_lock);
    pmix_proc_t me = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    /* a first server may just have given us our identity */
    sy_event_set_self(&me);
    if (myproc != NULL)
        *myproc = me;
    if (server != NULL)
        *server = srv;
    return PMIX_SUCCESS;
}

/* The deprecated form: the server reached becomes the primary one. */
PMIX_EXPORT pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t *proc, pmix_info_t info[],
                                                      size_t ninfo)
{
    if (!tool_up())
        return PMIX_ERR_INIT;
    if (info == NULL && ninfo > 0)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = sy_tool_attach(info, ninfo, true, NULL);
    if (rc == PMIX_SUCCESS && proc != NULL) {
        pthread_mutex_lock(&sy_client_lock);
        *proc = sy_client.me;
        pthread_mutex_unlock(&sy_client_lock);
    }
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_tool_disconnect(const pmix_proc_t *server)
{
    if (!tool_up())
        return PMIX_ERR_INIT;
    if (server == NULL)
        return PMIX_ERR_BAD_PARAM;
    pthread_mutex_lock(&sy_tool_lock);
    sy_tool_server_t *s = sy_tool.servers;
    while (s != NULL && !PMIX_CHECK_PROCID(&s->proc, server))
        s = s->next;
    pthread_mutex_unlock(&sy_tool_lock);
    if (s == NULL)
        return PMIX_ERR_NOT_FOUND;
    return sy_tool_drop(s);
}

PMIX_EXPORT pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[], size_t *nservers)
{
    if (servers == NULL || nservers == NULL)
        return PMIX_ERR_BAD_PARAM;
    *servers = NULL;
    *nservers = 0;
    if (!tool_up())
        return PMIX_ERR_INIT;
    pthread_mutex_lock(&sy_tool_lock);
    size_t n = 0;
    for (sy_tool_server_t *s = sy_tool.servers; s != NULL; s = s->next)
        n++;
    pmix_status_t rc = PMIX_SUCCESS;
    if (n > 0) {
        pmix_proc_t *out;
        PMIX_PROC_CREATE(out, n);
        if (out == NULL) {
            rc = PMIX_ERR_NOMEM;
        } else {
            size_t k = 0;
            if (sy_tool.primary != NULL)
                out[k++] = sy_tool.primary->proc;
            for (sy_tool_server_t *s = sy_tool.servers; s != NULL; s = s->next)
                if (s != sy_tool.primary)
                    out[k++] = s->proc;
            *servers = out;
            *nservers = n;
        }
    }
    pthread_mutex_unlock(&sy_tool_lock);
    return rc;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

PMIX_EXPORT pmix_status_t PMIx_tool_set_server(const pmix_proc_t *server, pmix_info_t info[],
                                               size_t ninfo)
{
    if (!tool_up())
        return PMIX_ERR_INIT;
    if (server == NULL || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    bool wait = false;
    double timeout = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (sy_info_is(&info[i], PMIX_WAIT_FOR_CONNECTION)) {
            wait = sy_info_true(&info[i]);
        } else if (sy_info_is(&info[i], PMIX_TIMEOUT) &&
                   sy_info_timeout_of(&info[i], &timeout) != PMIX_SUCCESS) {
            return PMIX_ERR_BAD_PARAM;
        }
    }
    /* With PMIX_WAIT_FOR_CONNECTION, another thread may be attaching to it
     * right now: look again until the timeout (none: look once). */
    double deadline = mono() + (wait ? timeout : 0);
    for (;;) {
        pthread_mutex_lock(&sy_tool_lock);
        sy_tool_server_t *s = sy_tool.servers;
        while (s != NULL && !PMIX_CHECK_PROCID(&s->proc, server))
            s = s->next;
        if (s != NULL)
            sy_tool_make_primary(s);
        pthread_mutex_unlock(&sy_tool_lock);
        if (s != NULL)
            return PMIX_SUCCESS;
        /* a launcher we started connected back to us ("the specified
         * process has connected to the requesting tool"): we attach to
         * its server, announced under its namespace */
        if (sy_tool_spawn_connected(server)) {
            pmix_info_t by_ns;
            PMIX_INFO_LOAD(&by_ns, PMIX_SERVER_NSPACE, server->nspace, PMIX_STRING);
            pmix_status_t rc = sy_tool_attach(&by_ns, 1, true, NULL);
            PMIX_INFO_DESTRUCT(&by_ns);
            if (rc == PMIX_SUCCESS)
                return PMIX_SUCCESS;
        }
        if (mono() >= deadline)
            return wait ? PMIX_ERR_TIMEOUT : PMIX_ERR_NOT_FOUND;
        struct timespec ts = {.tv_nsec = 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

PMIX_EXPORT bool PMIx_tool_is_connected(void)
{
    pthread_mutex_lock(&sy_tool_lock);
    bool up = sy_tool.refcount > 0 && sy_tool.primary != NULL;
    pthread_mutex_unlock(&sy_tool_lock);
    return up;
}

PMIX_EXPORT pmix_status_t PMIx_tool_set_server_module(pmix_server_module_t *module)
{
    pthread_mutex_lock(&sy_tool_lock);
    bool up = sy_tool.refcount > 0, serving = sy_tool.launcher;
    pthread_mutex_unlock(&sy_tool_lock);
    if (!up)
        return PMIX_ERR_INIT;
    if (module == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (!serving) {
        sy_log(SY_LOG_WARN, "PMIx_tool_set_server_module: this tool runs no server "
                            "(PMIx_tool_init with PMIX_LAUNCHER starts one)");
        return PMIX_ERR_NOT_SUPPORTED;
    }
    return sy_srv_set_module(module);
}
