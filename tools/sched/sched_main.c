/* switchyard-sched: the scheduler role on a topology, and the node daemon
 * that forwards its clients' fabric requests to it (sched.h).  Public API
 * only: libpmix and <switchyard.h>.
 *
 *   switchyard-sched --listen SOCK --topology FILE [--watch S] [-- prog ...]
 *   switchyard-sched --node SOCK --hostname NAME [-n N] [-- prog ...]
 *
 * With a program, the daemon runs it as its client(s) and exits with its
 * status; without, it runs until SIGINT or SIGTERM. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>
#include <switchyard.h>

#include "sched.h"

extern char **environ;

static struct {
    const char *listen, *node, *topology, *format, *generate, *hostname;
    double watch;
    bool watch_given, no_inventory, verbose;
    unsigned np;
    char **argv; /* the program, or NULL */
} opt = {.np = 1};

static void usage(FILE *f)
{
    fprintf(f, "usage: switchyard-sched --listen SOCKET (--topology FILE [--format F] |\n"
               "                        --generate SPEC) [--watch SECONDS] [-- program [args]]\n"
               "       switchyard-sched --node SOCKET [--hostname NAME] [--no-inventory]\n"
               "                        [-n N] [-- program [args]]\n"
               "\n"
               "Scheduler mode (--listen): a PMIx server with PMIX_SERVER_SCHEDULER on the\n"
               "topology; node daemons connect to SOCKET and their clients' fabric requests\n"
               "are answered from it; topology changes are sent to them as events.\n"
               "Node mode (--node): a PMIx server whose fabric upcall forwards to the\n"
               "scheduler at SOCKET; it delivers this node's inventory at start.\n"
               "\n"
               "  --topology FILE   Slurm topology.conf, ibnetdiscover output or native file\n"
               "  --format F        slurm, ibnet or native (default: detect)\n"
               "  --generate SPEC   fattree:k=4, dragonfly:a=4,p=2,h=2,g=9, torus:4x4x4\n"
               "  --watch SECONDS   how often the topology file is checked (default 2, 0 never)\n"
               "  --hostname NAME   the node's name (default: this host's)\n"
               "  --no-inventory    do not collect and deliver this node's inventory\n"
               "  -n N              run N copies of the program (ranks 0..N-1)\n"
               "  --verbose         say what the daemon does\n");
}

static int parse(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool arg = i + 1 < argc;
        if (!strcmp(a, "--")) {
            if (i + 1 < argc)
                opt.argv = &argv[i + 1];
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--listen") && arg) {
            opt.listen = argv[++i];
        } else if (!strcmp(a, "--node") && arg) {
            opt.node = argv[++i];
        } else if (!strcmp(a, "--topology") && arg) {
            opt.topology = argv[++i];
        } else if (!strcmp(a, "--format") && arg) {
            opt.format = argv[++i];
        } else if (!strcmp(a, "--generate") && arg) {
            opt.generate = argv[++i];
        } else if (!strcmp(a, "--hostname") && arg) {
            opt.hostname = argv[++i];
        } else if (!strcmp(a, "--watch") && arg) {
            char *end;
            opt.watch = strtod(argv[++i], &end);
            opt.watch_given = true;
            if (*end != '\0' || opt.watch < 0)
                return -1;
        } else if (!strcmp(a, "-n") && arg) {
            opt.np = (unsigned)strtoul(argv[++i], NULL, 10);
            if (opt.np == 0 || opt.np > 1024)
                return -1;
        } else if (!strcmp(a, "--no-inventory")) {
            opt.no_inventory = true;
        } else if (!strcmp(a, "--verbose")) {
            opt.verbose = true;
        } else {
            fprintf(stderr, "switchyard-sched: unknown or incomplete option %s\n", a);
            return -1;
        }
    }
    if ((opt.listen == NULL) == (opt.node == NULL))
        return -1;
    if (opt.listen != NULL && (opt.topology == NULL) == (opt.generate == NULL))
        return -1;
    return 0;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    if (!opt.verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "switchyard-sched[%ld]: ", (long)getpid());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void free_infos(pmix_status_t status, void *cbdata)
{
    (void)status;
    pmix_data_array_t *da = cbdata;
    PMIX_DATA_ARRAY_FREE(da);
}

/* Unpacked infos in a data array, so that one free releases both; NULL
 * (the infos freed) when out of memory. */
static pmix_data_array_t *as_array(pmix_info_t *info, size_t n)
{
    pmix_data_array_t *da = calloc(1, sizeof(*da));
    if (da == NULL) {
        if (info != NULL)
            PMIX_INFO_FREE(info, n);
        return NULL;
    }
    da->type = PMIX_INFO;
    da->array = info;
    da->size = n;
    return da;
}

/* ================= scheduler mode ================= */

#define MAX_NODES 256
static pthread_mutex_t nodes_lock = PTHREAD_MUTEX_INITIALIZER;
static int node_fds[MAX_NODES]; /* -1 once that node left */
static int all_fds[MAX_NODES];  /* closed at the end */
static size_t nnodes;

typedef struct {
    int fd;
    uint32_t id;
    pmix_fabric_t fabric;
} fwd_t;

static void send_reply(int fd, uint32_t id, pmix_status_t status, const pmix_info_t *info, size_t n)
{
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    uint8_t kind = LINK_REPLY;
    PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
    PMIx_Data_pack(NULL, &b, &id, 1, PMIX_UINT32);
    PMIx_Data_pack(NULL, &b, &status, 1, PMIX_STATUS);
    link_pack_infos(&b, status == PMIX_SUCCESS ? info : NULL, status == PMIX_SUCCESS ? n : 0);
    link_send(fd, &b);
    PMIX_DATA_BUFFER_DESTRUCT(&b);
}

static void fwd_free(pmix_status_t status, void *cbdata)
{
    (void)status;
    free(cbdata);
}

/* The fabric registered for a node's request (by value): its data goes
 * back, and the registration is dropped. */
static void fwd_registered(pmix_status_t status, void *cbdata)
{
    fwd_t *f = cbdata;
    send_reply(f->fd, f->id, status, f->fabric.info, f->fabric.ninfo);
    say("answered request %u from a node: %s", f->id, PMIx_Error_string(status));
    if (status != PMIX_SUCCESS ||
        PMIx_Fabric_deregister_nb(&f->fabric, fwd_free, f) != PMIX_SUCCESS)
        free(f);
}

static void sched_fabric(int fd, pmix_data_buffer_t *b)
{
    uint32_t id = 0;
    uint8_t op = 0;
    int32_t one = 1;
    pmix_info_t *dirs = NULL;
    size_t n = 0;
    if (PMIx_Data_unpack(NULL, b, &id, &one, PMIX_UINT32) != PMIX_SUCCESS ||
        PMIx_Data_unpack(NULL, b, &op, &one, PMIX_UINT8) != PMIX_SUCCESS ||
        link_unpack_infos(b, &dirs, &n) != PMIX_SUCCESS) {
        send_reply(fd, id, PMIX_ERR_UNPACK_FAILURE, NULL, 0);
        return;
    }
    /* Both operations are a registration here: an update's directives
     * name the fabric with PMIX_FABRIC_INDEX.  The node's directives plus
     * "by value": the matrix must travel. */
    pmix_info_t *all;
    PMIX_INFO_CREATE(all, n + 1);
    fwd_t *f = all != NULL ? calloc(1, sizeof(*f)) : NULL;
    if (f == NULL) {
        if (all != NULL)
            PMIX_INFO_FREE(all, n + 1);
        if (dirs != NULL)
            PMIX_INFO_FREE(dirs, n);
        send_reply(fd, id, PMIX_ERR_NOMEM, NULL, 0);
        return;
    }
    for (size_t i = 0; i < n; i++)
        PMIx_Info_xfer(&all[i], &dirs[i]);
    PMIX_INFO_LOAD(&all[n], SWITCHYARD_FABRIC_BY_VALUE, NULL, PMIX_BOOL);
    if (dirs != NULL)
        PMIX_INFO_FREE(dirs, n);
    f->fd = fd;
    f->id = id;
    PMIX_FABRIC_CONSTRUCT(&f->fabric);
    pmix_status_t rc = PMIx_Fabric_register_nb(&f->fabric, all, n + 1, fwd_registered, f);
    PMIX_INFO_FREE(all, n + 1);
    if (rc != PMIX_SUCCESS) {
        send_reply(fd, id, rc, NULL, 0);
        free(f);
    }
}

typedef struct {
    int fd;
    uint32_t id;
} setup_req_t;

static void setup_done(pmix_status_t status, pmix_info_t info[], size_t ninfo,
                       void *provided_cbdata, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    setup_req_t *q = provided_cbdata;
    send_reply(q->fd, q->id, status, info, ninfo);
    say("job setup answered: %s, %zu items", PMIx_Error_string(status), ninfo);
    free(q);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
}

/* A node's job: the launch data of PMIx_server_setup_application. */
static void sched_setup(int fd, pmix_data_buffer_t *b)
{
    uint32_t id = 0;
    int32_t one = 1;
    char *ns = NULL;
    pmix_info_t *info = NULL;
    size_t n = 0;
    if (PMIx_Data_unpack(NULL, b, &id, &one, PMIX_UINT32) != PMIX_SUCCESS ||
        PMIx_Data_unpack(NULL, b, &ns, &one, PMIX_STRING) != PMIX_SUCCESS || ns == NULL ||
        link_unpack_infos(b, &info, &n) != PMIX_SUCCESS) {
        free(ns);
        send_reply(fd, id, PMIX_ERR_UNPACK_FAILURE, NULL, 0);
        return;
    }
    setup_req_t *q = calloc(1, sizeof(*q));
    q->fd = fd;
    q->id = id;
    pmix_nspace_t nspace;
    PMIX_LOAD_NSPACE(nspace, ns);
    free(ns);
    pmix_status_t rc = PMIx_server_setup_application(nspace, info, n, setup_done, q);
    if (info != NULL)
        PMIX_INFO_FREE(info, n);
    if (rc != PMIX_SUCCESS) {
        send_reply(fd, id, rc, NULL, 0);
        free(q);
    }
}

static void sched_inventory(pmix_data_buffer_t *b)
{
    pmix_info_t *info = NULL;
    size_t n = 0;
    pmix_data_array_t *da;
    if (link_unpack_infos(b, &info, &n) != PMIX_SUCCESS || (da = as_array(info, n)) == NULL)
        return;
    say("inventory of %zu items delivered", n);
    if (PMIx_server_deliver_inventory(info, n, NULL, 0, free_infos, da) != PMIX_SUCCESS)
        PMIX_DATA_ARRAY_FREE(da);
}

static void *node_reader(void *arg)
{
    int fd = (int)(intptr_t)arg;
    pmix_data_buffer_t b;
    while (link_recv(fd, &b) == 0) {
        uint8_t kind = 0;
        int32_t one = 1;
        if (PMIx_Data_unpack(NULL, &b, &kind, &one, PMIX_UINT8) == PMIX_SUCCESS) {
            if (kind == LINK_FABRIC)
                sched_fabric(fd, &b);
            else if (kind == LINK_INVENTORY)
                sched_inventory(&b);
            else if (kind == LINK_SETUP)
                sched_setup(fd, &b);
        }
        PMIX_DATA_BUFFER_DESTRUCT(&b);
    }
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    pthread_mutex_lock(&nodes_lock);
    for (size_t i = 0; i < nnodes; i++)
        if (node_fds[i] == fd)
            node_fds[i] = -1;
    pthread_mutex_unlock(&nodes_lock);
    say("a node daemon left");
    return NULL;
}

static int listen_fd = -1;
static pthread_t readers[MAX_NODES];

static void *acceptor(void *arg)
{
    (void)arg;
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            return NULL;
        }
        pthread_mutex_lock(&nodes_lock);
        if (nnodes == MAX_NODES ||
            pthread_create(&readers[nnodes], NULL, node_reader, (void *)(intptr_t)fd) != 0) {
            pthread_mutex_unlock(&nodes_lock);
            close(fd);
            continue;
        }
        all_fds[nnodes] = fd;
        node_fds[nnodes++] = fd;
        pthread_mutex_unlock(&nodes_lock);
        say("a node daemon connected");
    }
}

/* PMIX_FABRIC_UPDATE_PENDING in this process: every node daemon hears of
 * it (their servers run the update protocol for their own clients). */
static void on_pending(size_t ref, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)ref;
    (void)results;
    (void)nresults;
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    uint8_t kind = LINK_EVENT;
    pmix_proc_t src;
    PMIX_LOAD_PROCID(&src, source != NULL ? source->nspace : "", source != NULL ? source->rank : 0);
    PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
    PMIx_Data_pack(NULL, &b, &status, 1, PMIX_STATUS);
    PMIx_Data_pack(NULL, &b, &src, 1, PMIX_PROC);
    link_pack_infos(&b, info, ninfo);
    pmix_byte_object_t bo = {0};
    PMIx_Data_unload(&b, &bo);
    pthread_mutex_lock(&nodes_lock);
    for (size_t i = 0; i < nnodes && bo.bytes != NULL; i++)
        if (node_fds[i] >= 0)
            link_send_bytes(node_fds[i], &bo);
    pthread_mutex_unlock(&nodes_lock);
    free(bo.bytes);
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    say("fabric update pending: told the node daemons");
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* ================= node mode ================= */

typedef struct pend {
    uint32_t id;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
    struct pend *next;
} pend_t;

static pthread_mutex_t pend_lock = PTHREAD_MUTEX_INITIALIZER;
static pend_t *pending;
static uint32_t next_id = 1;
static int sched_fd = -1;

static void release_array(void *cbdata)
{
    pmix_data_array_t *da = cbdata;
    PMIX_DATA_ARRAY_FREE(da);
}

static pend_t *add_pending(pmix_info_cbfunc_t cbfunc, void *cbdata);
static pend_t *take_pending(uint32_t id);

static pmix_status_t node_fabric(const pmix_proc_t *requestor, pmix_fabric_operation_t op,
                                 const pmix_info_t directives[], size_t ndirs,
                                 pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    say("fabric request of %s:%u forwarded", requestor->nspace, requestor->rank);
    pend_t *p = add_pending(cbfunc, cbdata);
    if (p == NULL)
        return PMIX_ERR_NOMEM;
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    uint8_t kind = LINK_FABRIC, o = (uint8_t)op;
    PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
    PMIx_Data_pack(NULL, &b, &p->id, 1, PMIX_UINT32);
    PMIx_Data_pack(NULL, &b, &o, 1, PMIX_UINT8);
    link_pack_infos(&b, directives, ndirs);
    uint32_t id = p->id;
    int rc = link_send(sched_fd, &b);
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    if (rc == 0)
        return PMIX_SUCCESS;
    /* unless the reader, seeing the link close, already answered it */
    pend_t *gone = take_pending(id);
    if (gone == NULL)
        return PMIX_SUCCESS;
    free(gone);
    return PMIX_ERR_UNREACH;
}

static pend_t *add_pending(pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    pend_t *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return NULL;
    p->cbfunc = cbfunc;
    p->cbdata = cbdata;
    pthread_mutex_lock(&pend_lock);
    p->id = next_id++;
    p->next = pending;
    pending = p;
    pthread_mutex_unlock(&pend_lock);
    return p;
}

static pend_t *take_pending(uint32_t id)
{
    pthread_mutex_lock(&pend_lock);
    pend_t *found = NULL;
    for (pend_t **pp = &pending; *pp != NULL; pp = &(*pp)->next)
        if (id == 0 || (*pp)->id == id) {
            found = *pp;
            *pp = found->next;
            break;
        }
    pthread_mutex_unlock(&pend_lock);
    return found;
}

static void node_reply(pmix_data_buffer_t *b)
{
    uint32_t id;
    pmix_status_t status;
    int32_t one = 1;
    pmix_info_t *info = NULL;
    size_t n = 0;
    if (PMIx_Data_unpack(NULL, b, &id, &one, PMIX_UINT32) != PMIX_SUCCESS)
        return; /* whose it was is unknown: answered when the link closes */
    if (PMIx_Data_unpack(NULL, b, &status, &one, PMIX_STATUS) != PMIX_SUCCESS ||
        (link_unpack_infos(b, &info, &n) != PMIX_SUCCESS && status == PMIX_SUCCESS))
        status = PMIX_ERR_UNPACK_FAILURE;
    pend_t *p = id != 0 ? take_pending(id) : NULL;
    pmix_data_array_t *da = as_array(info, n);
    if (p == NULL) {
        PMIX_DATA_ARRAY_FREE(da);
        return;
    }
    if (da == NULL)
        p->cbfunc(PMIX_ERR_NOMEM, NULL, 0, p->cbdata, NULL, NULL);
    else
        p->cbfunc(status, info, n, p->cbdata, release_array, da);
    free(p);
}

static void node_event(pmix_data_buffer_t *b)
{
    pmix_status_t code;
    pmix_proc_t source;
    int32_t one = 1;
    pmix_info_t *info = NULL;
    size_t n = 0;
    if (PMIx_Data_unpack(NULL, b, &code, &one, PMIX_STATUS) != PMIX_SUCCESS ||
        PMIx_Data_unpack(NULL, b, &source, &one, PMIX_PROC) != PMIX_SUCCESS ||
        link_unpack_infos(b, &info, &n) != PMIX_SUCCESS)
        return;
    say("event %s from the scheduler", PMIx_Error_string(code));
    pmix_data_array_t *da = as_array(info, n);
    if (da == NULL)
        return;
    /* this node: the server's own handlers and its clients */
    if (PMIx_Notify_event(code, &source, PMIX_RANGE_LOCAL, info, n, free_infos, da) != PMIX_SUCCESS)
        PMIX_DATA_ARRAY_FREE(da);
}

static void *sched_reader(void *arg)
{
    (void)arg;
    pmix_data_buffer_t b;
    while (link_recv(sched_fd, &b) == 0) {
        uint8_t kind = 0;
        int32_t one = 1;
        if (PMIx_Data_unpack(NULL, &b, &kind, &one, PMIX_UINT8) == PMIX_SUCCESS) {
            if (kind == LINK_REPLY)
                node_reply(&b);
            else if (kind == LINK_EVENT)
                node_event(&b);
        }
        PMIX_DATA_BUFFER_DESTRUCT(&b);
    }
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    /* the scheduler is gone: whoever waits hears of it */
    for (pend_t *p; (p = take_pending(0)) != NULL; free(p))
        p->cbfunc(PMIX_ERR_UNREACH, NULL, 0, p->cbdata, NULL, NULL);
    return NULL;
}

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
} waiter_t;

static void inventory_collected(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                                pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    waiter_t *w = cbdata;
    if (status == PMIX_SUCCESS) {
        pmix_data_buffer_t b;
        PMIX_DATA_BUFFER_CONSTRUCT(&b);
        uint8_t kind = LINK_INVENTORY;
        PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
        link_pack_infos(&b, info, ninfo);
        link_send(sched_fd, &b);
        PMIX_DATA_BUFFER_DESTRUCT(&b);
        say("inventory sent (%zu items)", ninfo);
    } else {
        fprintf(stderr, "switchyard-sched: inventory: %s\n", PMIx_Error_string(status));
    }
    if (release_fn != NULL)
        release_fn(release_cbdata);
    pthread_mutex_lock(&w->lock);
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* ================= the program as a client ================= */

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
    pmix_info_t *info;
    size_t ninfo;
} setup_wait_t;

static void setup_answer(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    setup_wait_t *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    if (status == PMIX_SUCCESS && ninfo > 0) {
        PMIX_INFO_CREATE(w->info, ninfo);
        for (size_t i = 0; i < ninfo; i++)
            PMIx_Info_xfer(&w->info[i], &info[i]);
        w->ninfo = ninfo;
    }
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    if (release_fn != NULL)
        release_fn(release_cbdata);
}

/* Node mode: the scheduler computes the job's fabric data
 * (setup_application), this server adds it to the namespace
 * (setup_local_support), as a resource manager does before a launch. */
static pmix_status_t node_setup(const char *nspace, const char *nodes, const char *procs)
{
    setup_wait_t w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0, NULL, 0};
    pend_t *p = add_pending(setup_answer, &w);
    if (p == NULL)
        return PMIX_ERR_NOMEM;
    pmix_info_t in[3];
    size_t one = 1;
    PMIX_INFO_LOAD(&in[0], PMIX_NODE_MAP, nodes, PMIX_STRING);
    PMIX_INFO_LOAD(&in[1], PMIX_PROC_MAP, procs, PMIX_STRING);
    PMIX_INFO_LOAD(&in[2], PMIX_ALLOC_FABRIC_ENDPTS, &one, PMIX_SIZE);
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    uint8_t kind = LINK_SETUP;
    PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
    PMIx_Data_pack(NULL, &b, &p->id, 1, PMIX_UINT32);
    PMIx_Data_pack(NULL, &b, &nspace, 1, PMIX_STRING);
    link_pack_infos(&b, in, 3);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&in[i]);
    uint32_t id = p->id;
    if (link_send(sched_fd, &b) != 0) {
        PMIX_DATA_BUFFER_DESTRUCT(&b);
        free(take_pending(id));
        return PMIX_ERR_UNREACH;
    }
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    pthread_mutex_lock(&w.lock);
    while (!w.done)
        pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    pmix_status_t rc = w.status;
    if (rc == PMIX_SUCCESS)
        rc = PMIx_server_setup_local_support(nspace, w.info, w.ninfo, NULL, NULL);
    if (w.info != NULL)
        PMIX_INFO_FREE(w.info, w.ninfo);
    say("job fabric data: %s", PMIx_Error_string(rc));
    return rc;
}

static int run_program(const char *host)
{
    char nspace[PMIX_MAX_NSLEN + 1], *nodes = NULL, *procs = NULL, ranks[16 * 1024] = "";
    snprintf(nspace, sizeof(nspace), "sched-%s-%ld", host, (long)getpid());
    for (unsigned r = 0; r < opt.np; r++)
        snprintf(ranks + strlen(ranks), sizeof(ranks) - strlen(ranks), "%s%u", r ? "," : "", r);
    if (PMIx_generate_regex(host, &nodes) != PMIX_SUCCESS ||
        PMIx_generate_ppn(ranks, &procs) != PMIX_SUCCESS)
        return 1;
    pmix_info_t info[4];
    uint32_t size = opt.np;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_NODE_MAP, nodes, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_PROC_MAP, procs, PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], PMIX_HOSTNAME, host, PMIX_STRING);
    pmix_status_t rc = PMIx_server_register_nspace(nspace, (int)opt.np, info, 4, NULL, NULL);
    for (int i = 0; i < 4; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc == PMIX_SUCCESS && opt.node != NULL)
        rc = node_setup(nspace, nodes, procs);
    free(nodes);
    free(procs);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "switchyard-sched: preparing the job: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pid_t *pids = calloc(opt.np, sizeof(pid_t));
    for (unsigned r = 0; r < opt.np; r++) {
        pmix_proc_t proc;
        PMIX_LOAD_PROCID(&proc, nspace, r);
        PMIx_server_register_client(&proc, geteuid(), getegid(), NULL, NULL, NULL);
        char **env = NULL;
        size_t n = 0;
        for (char **e = environ; *e != NULL; e++)
            n++;
        env = calloc(n + 1, sizeof(char *));
        for (size_t i = 0; i < n; i++)
            env[i] = strdup(environ[i]);
        if (PMIx_server_setup_fork(&proc, &env) != PMIX_SUCCESS) {
            fprintf(stderr, "switchyard-sched: setup_fork failed\n");
            return 1;
        }
        pid_t self = getpid();
        pids[r] = fork();
        if (pids[r] == 0) {
            /* the program never outlives its daemon (see switchyard-run) */
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != self)
                _exit(127);
            execvpe(opt.argv[0], opt.argv, env);
            fprintf(stderr, "switchyard-sched: %s: %s\n", opt.argv[0], strerror(errno));
            _exit(127);
        }
        for (char **e = env; *e != NULL; e++)
            free(*e);
        free(env);
    }
    int status = 0;
    for (unsigned r = 0; r < opt.np; r++) {
        int st = 0;
        while (waitpid(pids[r], &st, 0) < 0 && errno == EINTR)
            ;
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        if (status == 0)
            status = code;
    }
    free(pids);
    for (unsigned r = 0; r < opt.np; r++) {
        pmix_proc_t proc;
        PMIX_LOAD_PROCID(&proc, nspace, r);
        PMIx_server_deregister_client(&proc, NULL, NULL);
    }
    PMIx_server_deregister_nspace(nspace, NULL, NULL);
    return status;
}

int main(int argc, char **argv)
{
    if (parse(argc, argv) != 0) {
        usage(stderr);
        return 2;
    }
    char host[256];
    if (opt.hostname == NULL) {
        if (gethostname(host, sizeof(host) - 1) != 0)
            snprintf(host, sizeof(host), "localhost");
        host[sizeof(host) - 1] = '\0';
        opt.hostname = host;
    }
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);

    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    pmix_info_t info[6];
    size_t n = 0;
    PMIX_INFO_LOAD(&info[n++], PMIX_HOSTNAME, opt.hostname, PMIX_STRING);
    if (opt.listen != NULL) {
        PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_SCHEDULER, NULL, PMIX_BOOL);
        if (opt.topology != NULL)
            PMIX_INFO_LOAD(&info[n++], SWITCHYARD_FABRIC_TOPOLOGY, opt.topology, PMIX_STRING);
        else
            PMIX_INFO_LOAD(&info[n++], SWITCHYARD_FABRIC_GENERATE, opt.generate, PMIX_STRING);
        if (opt.format != NULL)
            PMIX_INFO_LOAD(&info[n++], SWITCHYARD_FABRIC_FORMAT, opt.format, PMIX_STRING);
        if (opt.watch_given)
            PMIX_INFO_LOAD(&info[n++], SWITCHYARD_FABRIC_WATCH, &opt.watch, PMIX_DOUBLE);
    } else {
        module.fabric = node_fabric;
        sched_fd = link_connect(opt.node, 10.0);
        if (sched_fd < 0) {
            fprintf(stderr, "switchyard-sched: cannot reach the scheduler at %s: %s\n", opt.node,
                    strerror(errno));
            return 1;
        }
    }
    pmix_status_t rc = PMIx_server_init(&module, info, n);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "switchyard-sched: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pthread_t thread;
    bool have_thread = false;
    int status = 0;
    if (opt.listen != NULL) {
        pmix_status_t code = PMIX_FABRIC_UPDATE_PENDING;
        PMIx_Register_event_handler(&code, 1, NULL, 0, on_pending, NULL, NULL);
        /* open the fabric now: a bad topology is reported at start */
        pmix_fabric_t f;
        PMIX_FABRIC_CONSTRUCT(&f);
        rc = PMIx_Fabric_register(&f, NULL, 0);
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "switchyard-sched: the fabric cannot be served: %s\n",
                    PMIx_Error_string(rc));
            PMIx_server_finalize();
            return 1;
        }
        PMIx_Fabric_deregister(&f);
        listen_fd = link_listen(opt.listen);
        if (listen_fd < 0) {
            fprintf(stderr, "switchyard-sched: cannot listen on %s: %s\n", opt.listen,
                    strerror(errno));
            PMIx_server_finalize();
            return 1;
        }
        have_thread = pthread_create(&thread, NULL, acceptor, NULL) == 0;
        say("scheduler listening on %s", opt.listen);
    } else {
        have_thread = pthread_create(&thread, NULL, sched_reader, NULL) == 0;
        if (!opt.no_inventory) {
            waiter_t w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};
            if (PMIx_server_collect_inventory(NULL, 0, inventory_collected, &w) == PMIX_SUCCESS) {
                pthread_mutex_lock(&w.lock);
                while (!w.done)
                    pthread_cond_wait(&w.cond, &w.lock);
                pthread_mutex_unlock(&w.lock);
            }
        }
    }
    if (opt.argv != NULL) {
        status = run_program(opt.hostname);
    } else {
        int sig;
        sigwait(&sigs, &sig);
        say("signal %d: stopping", sig);
    }
    /* stop the link threads before the server goes */
    if (listen_fd >= 0) {
        shutdown(listen_fd, SHUT_RDWR);
        /* our socket, not whatever may have taken the name meanwhile */
        struct stat st;
        if (lstat(opt.listen, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == geteuid())
            unlink(opt.listen);
    }
    if (sched_fd >= 0)
        shutdown(sched_fd, SHUT_RDWR);
    if (have_thread)
        pthread_join(thread, NULL);
    if (listen_fd >= 0)
        close(listen_fd);
    pthread_mutex_lock(&nodes_lock);
    for (size_t i = 0; i < nnodes; i++)
        shutdown(all_fds[i], SHUT_RDWR);
    size_t nr = nnodes;
    pthread_mutex_unlock(&nodes_lock);
    for (size_t i = 0; i < nr; i++) {
        pthread_join(readers[i], NULL);
        close(all_fds[i]);
    }
    if (sched_fd >= 0)
        close(sched_fd);
    PMIx_server_finalize();
    return status;
}
