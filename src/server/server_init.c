/* PMIx_server_init / PMIx_server_finalize: the attributes a host passes,
 * the private tmpdir, and the order in which the pieces of the server come
 * up and go down. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/log.h"
#include "common/runtime.h"
#include "common/store.h"
#include "common/sweep.h"
#include "common/sync.h"
#include "common/usock.h"
#include "common/info.h"
#include "server/server_internal.h"
#include "server/server_cleanup.h"
#include "server/server_cred.h"
#include "server/server_event.h"
#include "server/server_fabric.h"
#include "server/server_upcall.h"
#include "server/server_group.h"
#include "server/server_iof.h"
#include "server/server_listen.h"
#include "server/server_peer.h"
#include "server/server_pset.h"
#include "server/server_query.h"
#include "server/server_registry.h"
#include "server/server_util.h"
#include "server/server_modex.h"
#include "server/server_pmi.h"
#include "server/server_module.h"
#include "server/server_monitor.h"
#include "server/server_topology.h"
#include "switchyard.h"

static unsigned srv_refcount;

static const char *const known_keys[] = {PMIX_SERVER_NSPACE,
                                         PMIX_SERVER_RANK,
                                         PMIX_SERVER_TMPDIR,
                                         PMIX_SYSTEM_TMPDIR,
                                         PMIX_SERVER_TOOL_SUPPORT,
                                         PMIX_SERVER_SYSTEM_SUPPORT,
                                         PMIX_SERVER_SESSION_SUPPORT,
                                         PMIX_SERVER_GATEWAY,
                                         PMIX_SERVER_SCHEDULER,
                                         PMIX_SERVER_REMOTE_CONNECTIONS,
                                         PMIX_SOCKET_MODE,
                                         PMIX_SINGLE_LISTENER,
                                         PMIX_USOCK_DISABLE,
                                         PMIX_TCP_IF_INCLUDE,
                                         PMIX_TCP_IF_EXCLUDE,
                                         PMIX_TCP_IPV4_PORT,
                                         PMIX_TCP_IPV6_PORT,
                                         PMIX_TCP_DISABLE_IPV4,
                                         PMIX_TCP_DISABLE_IPV6,
                                         PMIX_EXTERNAL_PROGRESS,
                                         PMIX_EVENT_BASE,
                                         PMIX_HOSTNAME,
                                         PMIX_TOPOLOGY2,
                                         PMIX_SERVER_SHARE_TOPOLOGY,
                                         PMIX_HWLOC_SHARE_TOPO,
                                         SWITCHYARD_FABRIC,
                                         SWITCHYARD_FABRIC_TOPOLOGY,
                                         SWITCHYARD_FABRIC_FORMAT,
                                         SWITCHYARD_FABRIC_GENERATE,
                                         SWITCHYARD_FABRIC_WATCH,
                                         SWITCHYARD_SERVER_MAX_MSG_SIZE,
                                         PMIX_HOMOGENEOUS_SYSTEM,
                                         PMIX_SERVER_ENABLE_MONITORING,
                                         PMIX_SINGLETON,
                                         PMIX_FABRIC_VENDOR,
                                         PMIX_FABRIC_IDENTIFIER,
                                         NULL};

static bool key_known(const char *key)
{
    for (size_t i = 0; known_keys[i] != NULL; i++)
        if (strncmp(key, known_keys[i], PMIX_MAX_KEYLEN) == 0)
            return true;
    return false;
}

static pmix_status_t bad_type(const pmix_info_t *inf)
{
    sy_log(SY_LOG_WARN, "PMIx_server_init: attribute %s given as %s", inf->key,
           PMIx_Data_type_string(inf->value.type));
    return PMIX_ERR_BAD_PARAM;
}

static pmix_status_t take_string(const pmix_info_t *inf, char **dst)
{
    if (inf->value.type != PMIX_STRING || inf->value.data.string == NULL)
        return bad_type(inf);
    free(*dst);
    *dst = strdup(inf->value.data.string);
    return *dst != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

static pmix_status_t take_bool(const pmix_info_t *inf, bool *dst)
{
    if (inf->value.type != PMIX_BOOL && inf->value.type != PMIX_UNDEF)
        return bad_type(inf);
    *dst = sy_info_true(inf);
    return PMIX_SUCCESS;
}

static pmix_status_t take_int(const pmix_info_t *inf, long long *dst)
{
    const pmix_value_t *v = &inf->value;
    switch (v->type) {
    case PMIX_INT: *dst = v->data.integer; break;
    case PMIX_INT32: *dst = v->data.int32; break;
    case PMIX_INT16: *dst = v->data.int16; break;
    case PMIX_UINT: *dst = v->data.uint; break;
    case PMIX_UINT32: *dst = v->data.uint32; break;
    case PMIX_UINT16: *dst = v->data.uint16; break;
    case PMIX_PROC_RANK: *dst = v->data.rank; break;
    case PMIX_SIZE: *dst = (long long)v->data.size; break;
    case PMIX_UINT64: *dst = (long long)v->data.uint64; break;
    case PMIX_INT64: *dst = v->data.int64; break;
    default: return bad_type(inf);
    }
    return PMIX_SUCCESS;
}

static char **split_list(const char *s)
{
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += (*p == ',');
    char **out = calloc(n + 1, sizeof(char *));
    char *copy = strdup(s);
    if (out == NULL || copy == NULL) {
        free(out);
        free(copy);
        return NULL;
    }
    size_t k = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        out[k++] = strdup(tok);
    free(copy);
    return out;
}

static void free_list(char **l)
{
    for (size_t i = 0; l != NULL && l[i] != NULL; i++)
        free(l[i]);
    free(l);
}

/* PMIX_SINGLETON: the server was started for a process that began on
 * its own ("nspace.rank"); it becomes the one process of its job here,
 * so that it can connect (its identity, a job of size one on this node,
 * our user's). */
static pmix_status_t register_singleton(const char *name)
{
    const char *dot = strrchr(name, '.');
    char *end = NULL;
    unsigned long r = dot != NULL ? strtoul(dot + 1, &end, 10) : 0;
    if (dot == NULL || dot == name || end == dot + 1 || *end != '\0' || r >= PMIX_RANK_VALID ||
        (size_t)(dot - name) > PMIX_MAX_NSLEN) {
        sy_log(SY_LOG_WARN, "PMIx_server_init: PMIX_SINGLETON %s is no \"nspace.rank\"", name);
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_proc_t proc;
    char ns[PMIX_MAX_NSLEN + 1];
    snprintf(ns, sizeof(ns), "%.*s", (int)(dot - name), name);
    PMIX_LOAD_PROCID(&proc, ns, (pmix_rank_t)r);
    uint32_t one = 1;
    char rank[16];
    snprintf(rank, sizeof(rank), "%u", proc.rank);
    pmix_info_t info[5];
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_LOCAL_SIZE, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_UNIV_SIZE, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[3], PMIX_LOCAL_PEERS, rank, PMIX_STRING);
    PMIX_INFO_LOAD(&info[4], PMIX_SINGLETON, name, PMIX_STRING);
    pmix_status_t rc = PMIx_server_register_nspace(ns, 1, info, 5, NULL, NULL);
    for (size_t i = 0; i < 5; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_server_register_client(&proc, geteuid(), getegid(), NULL, NULL, NULL);
    if (rc != PMIX_SUCCESS)
        sy_log(SY_LOG_WARN, "PMIx_server_init: cannot register the singleton %s: %s", name,
               PMIx_Error_string(rc));
    return rc;
}

static pmix_status_t parse_attrs(sy_srv_t *s, const pmix_info_t info[], size_t ninfo)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; info != NULL && i < ninfo && rc == PMIX_SUCCESS; i++) {
        const pmix_info_t *inf = &info[i];
        long long num = 0;
        char *str = NULL;
        if (sy_info_is(inf, PMIX_SERVER_NSPACE)) {
            if ((rc = take_string(inf, &str)) == PMIX_SUCCESS)
                PMIX_LOAD_NSPACE(s->me.nspace, str);
        } else if (sy_info_is(inf, PMIX_SERVER_RANK)) {
            if ((rc = take_int(inf, &num)) == PMIX_SUCCESS)
                s->me.rank = (pmix_rank_t)num;
        } else if (sy_info_is(inf, PMIX_SERVER_TMPDIR)) {
            rc = take_string(inf, &s->tmpdir);
        } else if (sy_info_is(inf, PMIX_SYSTEM_TMPDIR)) {
            rc = take_string(inf, &s->system_tmpdir);
        } else if (sy_info_is(inf, PMIX_SERVER_TOOL_SUPPORT)) {
            rc = take_bool(inf, &s->tool_support);
        } else if (sy_info_is(inf, PMIX_SERVER_SYSTEM_SUPPORT)) {
            rc = take_bool(inf, &s->system_support);
        } else if (sy_info_is(inf, PMIX_SERVER_SESSION_SUPPORT)) {
            rc = take_bool(inf, &s->session_support);
        } else if (sy_info_is(inf, PMIX_SERVER_GATEWAY)) {
            rc = take_bool(inf, &s->gateway);
        } else if (sy_info_is(inf, PMIX_SERVER_SCHEDULER)) {
            rc = take_bool(inf, &s->scheduler);
        } else if (sy_info_is(inf, PMIX_SERVER_REMOTE_CONNECTIONS)) {
            rc = take_bool(inf, &s->remote);
        } else if (sy_info_is(inf, PMIX_SINGLE_LISTENER)) {
            rc = take_bool(inf, &s->single_listener);
        } else if (sy_info_is(inf, PMIX_USOCK_DISABLE)) {
            rc = take_bool(inf, &s->usock_disable);
        } else if (sy_info_is(inf, PMIX_TCP_DISABLE_IPV4)) {
            rc = take_bool(inf, &s->tcp4_disable);
        } else if (sy_info_is(inf, PMIX_TCP_DISABLE_IPV6)) {
            rc = take_bool(inf, &s->tcp6_disable);
        } else if (sy_info_is(inf, PMIX_SOCKET_MODE)) {
            if ((rc = take_int(inf, &num)) == PMIX_SUCCESS) {
                if (num < 0 || num > 0777) {
                    sy_log(SY_LOG_WARN, "PMIx_server_init: socket mode %llo is not a mode", num);
                    rc = PMIX_ERR_BAD_PARAM;
                }
                s->sock_mode = (mode_t)num;
            }
        } else if (sy_info_is(inf, PMIX_TCP_IPV4_PORT) || sy_info_is(inf, PMIX_TCP_IPV6_PORT)) {
            if ((rc = take_int(inf, &num)) == PMIX_SUCCESS) {
                if (num < 0 || num > 65535) {
                    sy_log(SY_LOG_WARN, "PMIx_server_init: %s %lld is not a port", inf->key, num);
                    rc = PMIX_ERR_BAD_PARAM;
                } else if (sy_info_is(inf, PMIX_TCP_IPV4_PORT)) {
                    s->tcp4_port = (int)num;
                } else {
                    s->tcp6_port = (int)num;
                }
            }
        } else if (sy_info_is(inf, PMIX_TCP_IF_INCLUDE) || sy_info_is(inf, PMIX_TCP_IF_EXCLUDE)) {
            if ((rc = take_string(inf, &str)) == PMIX_SUCCESS) {
                char ***dst =
                    sy_info_is(inf, PMIX_TCP_IF_INCLUDE) ? &s->if_include : &s->if_exclude;
                free_list(*dst);
                *dst = split_list(str);
                if (*dst == NULL)
                    rc = PMIX_ERR_NOMEM;
            }
        } else if (sy_info_is(inf, SWITCHYARD_SERVER_MAX_MSG_SIZE)) {
            if ((rc = take_int(inf, &num)) == PMIX_SUCCESS) {
                if (num < (long long)SY_FRAME_MIN_MAX_BODY || num > (long long)UINT32_MAX) {
                    sy_log(SY_LOG_WARN, "PMIx_server_init: %s %lld is not between %zu and %u bytes",
                           inf->key, num, SY_FRAME_MIN_MAX_BODY, UINT32_MAX);
                    rc = PMIX_ERR_BAD_PARAM;
                } else {
                    s->max_msg = (size_t)num;
                }
            }
        } else if (sy_info_is(inf, PMIX_SERVER_ENABLE_MONITORING)) {
            rc = take_bool(inf, &s->monitoring);
        } else if (sy_info_is(inf, PMIX_HOMOGENEOUS_SYSTEM)) {
            rc = take_bool(inf, &s->homogeneous);
        } else if (sy_info_is(inf, PMIX_SINGLETON)) {
            rc = take_string(inf, &s->singleton);
        } else if (sy_info_is(inf, PMIX_HOSTNAME)) {
            if ((rc = take_string(inf, &str)) == PMIX_SUCCESS)
                snprintf(s->hostname, sizeof(s->hostname), "%s", str);
        } else if (PMIX_INFO_IS_REQUIRED(inf) && !key_known(inf->key)) {
            sy_log(SY_LOG_WARN, "PMIx_server_init: required attribute %s is not supported",
                   inf->key);
            rc = PMIX_ERR_NOT_SUPPORTED;
        }
        free(str);
    }
    if (rc == PMIX_SUCCESS && s->usock_disable && s->tcp4_disable &&
        (s->tcp6_disable || s->tcp6_port < 0)) {
        sy_log(SY_LOG_WARN, "PMIx_server_init: every listener is disabled");
        rc = PMIX_ERR_BAD_PARAM;
    }
    return rc;
}

static pmix_status_t setup_tmpdir(sy_srv_t *s)
{
    if (s->system_tmpdir == NULL) {
        const char *t = getenv("TMPDIR");
        s->system_tmpdir = strdup(t != NULL && *t == '/' ? t : "/tmp");
        if (s->system_tmpdir == NULL)
            return PMIX_ERR_NOMEM;
    }
    /* what servers of ours killed on this host left there (sweep.h) */
    sy_sweep_dead(s->system_tmpdir, s->hostname);
    if (s->tmpdir == NULL) {
        char *tmpl = NULL;
        if (asprintf(&tmpl, "%s/switchyard.%ld.XXXXXX", s->system_tmpdir, (long)getpid()) < 0)
            return PMIX_ERR_NOMEM;
        if (mkdtemp(tmpl) == NULL) {
            sy_log(SY_LOG_WARN, "PMIx_server_init: cannot create a tmpdir under %s: %s",
                   s->system_tmpdir, strerror(errno));
            free(tmpl);
            return PMIX_ERR_NO_PERMISSIONS;
        }
        s->tmpdir = tmpl;
        s->tmpdir_made = true;
        return PMIX_SUCCESS;
    }
    struct stat st;
    if (lstat(s->tmpdir, &st) == 0) {
        if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
            sy_log(SY_LOG_WARN, "PMIx_server_init: %s is not a directory of ours", s->tmpdir);
            return PMIX_ERR_NO_PERMISSIONS;
        }
        return PMIX_SUCCESS;
    }
    pmix_status_t rc = sy_mkdir_private(s->tmpdir);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "PMIx_server_init: cannot create %s: %s", s->tmpdir, sy_usock_error());
        return rc;
    }
    s->tmpdir_made = true;
    return PMIX_SUCCESS;
}

static void srv_free(sy_srv_t *s)
{
    if (s == NULL)
        return;
    free(s->tmpdir);
    free(s->system_tmpdir);
    free(s->usock_path);
    free(s->uri);
    free(s->singleton);
    free(s->res_path);
    free_list(s->if_include);
    free_list(s->if_exclude);
    for (size_t i = 0; i < s->nmade_files; i++)
        free(s->made_files[i]);
    free(s->made_files);
    free(s);
}

typedef struct {
    sy_srv_t *s;
    sy_sync_t sync;
} loop_job_t;

static void start_on_loop(void *arg)
{
    loop_job_t *job = arg;
    sy_srv_t *s = job->s;
    pmix_status_t rc = sy_srv_listen_start(s);
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_resources_publish(s);
    if (rc == PMIX_SUCCESS)
        sy_srv_event_init(s);
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_rendezvous_write(s);
    sy_sync_signal(&job->sync, rc, NULL);
}

static void stop_on_loop(void *arg)
{
    loop_job_t *job = arg;
    sy_srv_t *s = job->s;
    /* Host upcalls never answered end first (their requesters in this
     * process hear of it; a late callback finds no ticket), then pending
     * collectives and event registrations let go of their peers (firing
     * what they owe the host) before the peers are freed. */
    sy_srv_reqs_finalize();
    sy_srv_pmi_finalize();
    sy_srv_modex_finalize(s);
    sy_srv_fabric_finalize(s);
    sy_srv_monitor_finalize();
    sy_srv_group_finalize(s);
    sy_srv_pset_finalize(s);
    sy_srv_cred_finalize(s);
    sy_srv_event_finalize(s);
    sy_srv_iof_finalize();
    sy_srv_query_finalize();
    sy_srv_peers_close_all(s);
    sy_srv_cleanup_finalize(); /* registered cleanup not done yet */
    sy_srv_listen_stop(s);
    sy_srv_registry_free(s);
    sy_srv_remove_files(s);
    if (s->tmpdir_made && rmdir(s->tmpdir) != 0)
        sy_log(SY_LOG_WARN, "PMIx_server_finalize: %s not removed: %s", s->tmpdir, strerror(errno));
    sy_sync_signal(&job->sync, PMIX_SUCCESS, NULL);
}

static pmix_status_t run_on_loop(sy_progress_t *p, sy_progress_fn_t fn, sy_srv_t *s)
{
    loop_job_t job = {.s = s};
    pmix_status_t rc = sy_sync_init(&job.sync);
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = sy_progress_post(p, fn, &job);
    if (rc == PMIX_SUCCESS)
        rc = sy_sync_wait_progress(&job.sync, p);
    sy_sync_destroy(&job.sync);
    return rc;
}

static void *release_runtime_later(void *arg)
{
    (void)arg;
    sy_runtime_release();
    return NULL;
}

/* The last release of a threaded runtime joins its thread, which the loop
 * thread itself cannot do: a host that finalizes from inside one of our
 * upcalls gets the release done by a short-lived thread instead. */
static void release_runtime(sy_progress_t *p)
{
    pthread_t t;
    if (sy_progress_in_loop(p) && pthread_create(&t, NULL, release_runtime_later, NULL) == 0) {
        pthread_detach(t);
        return;
    }
    sy_runtime_release();
}

PMIX_EXPORT pmix_status_t PMIx_server_init(pmix_server_module_t *module, pmix_info_t info[],
                                           size_t ninfo)
{
    sy_srv_atfork_init();
    pthread_mutex_lock(&sy_srv_life_lock);
    if (srv_refcount > 0) {
        srv_refcount++;
        pthread_mutex_unlock(&sy_srv_life_lock);
        return PMIX_SUCCESS;
    }
    pthread_mutex_unlock(&sy_srv_life_lock);

    sy_srv_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return PMIX_ERR_NOMEM;
    if (module != NULL)
        s->module = *module;
    s->me.rank = 0;
    snprintf(s->me.nspace, sizeof(s->me.nspace), "switchyard-server-%ld", (long)getpid());
    s->sock_mode = 0600;
    s->tcp4_port = 0;
    s->tcp6_port = -1;
    s->usock_fd = s->tcp4_fd = s->tcp6_fd = -1;
    s->start_time = time(NULL);
    if (gethostname(s->hostname, sizeof(s->hostname) - 1) != 0)
        snprintf(s->hostname, sizeof(s->hostname), "localhost");

    sy_srv_hex_token(s->tool_token);
    s->client_key_ok = sy_srv_random(s->client_key, sizeof(s->client_key)) == PMIX_SUCCESS;
    pmix_status_t rc = parse_attrs(s, info, ninfo);
    sy_srv_pmi_init(info, ninfo);
    if (rc == PMIX_SUCCESS)
        rc = setup_tmpdir(s);
    if (rc != PMIX_SUCCESS) {
        if (s->tmpdir_made)
            rmdir(s->tmpdir);
        srv_free(s);
        return rc;
    }
    pmix_info_t *topo = NULL;
    size_t ntopo = 0;
    rc = sy_server_topology_setup(info, ninfo, &topo, &ntopo);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "PMIx_server_init: topology: %s", PMIx_Error_string(rc));
        goto fail_dir;
    }
    if (ntopo > 0) {
        s->topo_resources = calloc(1, sizeof(*s->topo_resources));
        if (s->topo_resources == NULL) {
            PMIX_INFO_FREE(topo, ntopo);
            rc = PMIX_ERR_NOMEM;
            goto fail_topo;
        }
        s->topo_resources->info = topo;
        s->topo_resources->ninfo = ntopo;
    }
    sy_progress_t *p = NULL;
    rc = sy_runtime_acquire(info, ninfo, &p);
    if (rc != PMIX_SUCCESS)
        goto fail_topo;
    s->progress = p;
    sy_store_acquire();

    pthread_mutex_lock(&sy_srv_life_lock);
    sy_srv = s;
    sy_srv_alive = true;
    srv_refcount = 1;
    pthread_mutex_unlock(&sy_srv_life_lock);

    rc = sy_srv_fabric_init(s, info, ninfo);
    if (rc == PMIX_SUCCESS)
        rc = run_on_loop(p, start_on_loop, s);
    if (rc == PMIX_SUCCESS) {
        sy_srv_query_init();
        pthread_mutex_lock(&sy_srv_life_lock);
        s->started = true;
        pthread_mutex_unlock(&sy_srv_life_lock);
        if (s->singleton == NULL)
            return PMIX_SUCCESS;
        rc = register_singleton(s->singleton);
        if (rc == PMIX_SUCCESS)
            return PMIX_SUCCESS;
        PMIx_server_finalize();
        return rc;
    }

    pthread_mutex_lock(&sy_srv_life_lock);
    sy_srv_alive = false;
    srv_refcount = 0;
    sy_srv_wait_unused();
    pthread_mutex_unlock(&sy_srv_life_lock);
    run_on_loop(p, stop_on_loop, s);
    pthread_mutex_lock(&sy_srv_life_lock);
    sy_srv = NULL;
    pthread_mutex_unlock(&sy_srv_life_lock);
    sy_store_release();
    sy_runtime_release();
    sy_server_topology_finalize();
    srv_free(s);
    return rc;
fail_topo:
    sy_server_topology_finalize();
    if (s->topo_resources != NULL) {
        PMIX_INFO_FREE(s->topo_resources->info, s->topo_resources->ninfo);
        free(s->topo_resources);
    }
fail_dir:
    if (s->tmpdir_made)
        rmdir(s->tmpdir);
    srv_free(s);
    return rc;
}

typedef struct {
    sy_srv_op_t op; /* first */
    pmix_server_module_t module;
} set_module_t;

static void set_module_on_loop(void *arg)
{
    set_module_t *m = arg;
    sy_srv->module = m->module;
    sy_srv_op_finish(&m->op, PMIX_SUCCESS);
}

bool sy_srv_running(void)
{
    pthread_mutex_lock(&sy_srv_life_lock);
    bool up = srv_refcount > 0;
    pthread_mutex_unlock(&sy_srv_life_lock);
    return up;
}

char *sy_srv_uri_dup(void)
{
    pthread_mutex_lock(&sy_srv_life_lock);
    char *uri =
        srv_refcount > 0 && sy_srv != NULL && sy_srv->uri != NULL ? strdup(sy_srv->uri) : NULL;
    pthread_mutex_unlock(&sy_srv_life_lock);
    return uri;
}

pmix_status_t sy_srv_set_module(const pmix_server_module_t *module)
{
    set_module_t *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return PMIX_ERR_NOMEM;
    m->module = *module;
    return sy_srv_op_start(&m->op, set_module_on_loop, NULL, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_server_finalize(void)
{
    pthread_mutex_lock(&sy_srv_life_lock);
    if (srv_refcount == 0) {
        pthread_mutex_unlock(&sy_srv_life_lock);
        return PMIX_ERR_INIT;
    }
    if (--srv_refcount > 0) {
        pthread_mutex_unlock(&sy_srv_life_lock);
        return PMIX_SUCCESS;
    }
    sy_srv_t *s = sy_srv;
    /* From here on host completions are dropped instead of posted; the
     * ones already posted (or being posted) run before stop_on_loop (posts
     * are FIFO). */
    sy_srv_alive = false;
    sy_srv_wait_unused();
    pthread_mutex_unlock(&sy_srv_life_lock);

    run_on_loop(s->progress, stop_on_loop, s);
    pthread_mutex_lock(&sy_srv_life_lock);
    sy_srv = NULL;
    pthread_mutex_unlock(&sy_srv_life_lock);
    sy_store_release();
    sy_progress_t *p = s->progress;
    srv_free(s);
    sy_server_topology_finalize();
    release_runtime(p);
    return PMIX_SUCCESS;
}
