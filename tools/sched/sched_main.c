/* switchyard-sched: the scheduler role on a topology, and the node daemon
 * that forwards its clients' fabric requests to it (sched.h).  Public API
 * only: libpmix and <switchyard.h>.
 *
 *   switchyard-sched --listen ADDR --topology FILE [--watch S] [-- prog ...]
 *   switchyard-sched --node ADDR --hostname NAME [-n N] [-- prog ...]
 *
 * ADDR is a UNIX socket path or tcp://HOST:PORT; the link is authenticated
 * (--auth, --key-file: sched_auth.c).
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

#include "fabric/cm_codec.h"
#include "sched_daemon.h"
#include "sched_shm.h"

extern char **environ;

static struct {
    const char *listen, *node, *topology, *format, *generate, *hostname;
    const char *auth, *key_file;
    const char *shm; /* auto, always, never */
    double watch;
    bool watch_given, no_inventory, verbose;
    const char *encode; /* --encode */
    unsigned np;
    char **argv; /* the program, or NULL */
} opt = {.np = 1, .shm = "auto", .encode = "yes"};

static void usage(FILE *f)
{
    fprintf(f, "usage: switchyard-sched --listen ADDR (--topology FILE [--format F] |\n"
               "                        --generate SPEC) [--watch SECONDS] [AUTH]\n"
               "                        [-- program [args]]\n"
               "       switchyard-sched --node ADDR [--hostname NAME] [--no-inventory] [AUTH]\n"
               "                        [-n N] [-- program [args]]\n"
               "\n"
               "Scheduler mode (--listen): a PMIx server with PMIX_SERVER_SCHEDULER on the\n"
               "topology; node daemons connect to ADDR and their clients' fabric requests\n"
               "are answered from it; topology changes are sent to them as events.\n"
               "Node mode (--node): a PMIx server whose fabric upcall forwards to the\n"
               "scheduler at ADDR; it delivers this node's inventory at start, and when the\n"
               "scheduler is away it answers from the last answers and reconnects.\n"
               "ADDR: a UNIX socket path, or tcp://HOST:PORT (HOST:PORT; * = any address).\n"
               "\n"
               "  --topology FILE   Slurm topology.conf, ibnetdiscover output (default or\n"
               "                    -p), OpenSM subnet.lst, ibsim net file, or native file\n"
               "  --format F        slurm, ibnet, osm-lst, ibsim or native (default: detect)\n"
               "  --generate SPEC   fattree:k=4, dragonfly:a=4,p=2,h=2,g=9, torus:4x4x4\n"
               "  --watch SECONDS   how often the topology file is checked (default 2, 0 never)\n"
               "  --shm MODE        matrices above 8 MiB to a node on this host: in shared\n"
               "                    memory (always), in chunks through the socket (never), or\n"
               "                    shared memory when it gets huge pages here (auto, default)\n"
               "  --encode yes|no   matrix chunks encoded (runs, palettes) for the nodes that\n"
               "                    read them (yes, default), or always raw (no)\n"
               "  --hostname NAME   the node's name (default: this host's)\n"
               "  --no-inventory    do not collect and deliver this node's inventory\n"
               "  -n N              run N copies of the program (ranks 0..N-1)\n"
               "AUTH (every connection; both sides must use the same):\n"
               "  --auth M          auto (default: MUNGE when munged answers, else the key\n"
               "                    file, else on a UNIX socket the peer's uid), munge, key\n"
               "                    or none (UNIX sockets only: the peer's uid)\n"
               "  --key-file FILE   shared secret (mode 0600), for --auth key or auto\n"
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
        } else if (!strcmp(a, "--auth") && arg) {
            opt.auth = argv[++i];
        } else if (!strcmp(a, "--shm") && arg) {
            opt.shm = argv[++i];
            if (strcmp(opt.shm, "auto") != 0 && strcmp(opt.shm, "always") != 0 &&
                strcmp(opt.shm, "never") != 0)
                return -1;
        } else if (!strcmp(a, "--encode") && arg) {
            opt.encode = argv[++i];
            if (strcmp(opt.encode, "yes") != 0 && strcmp(opt.encode, "no") != 0)
                return -1;
        } else if (!strcmp(a, "--key-file") && arg) {
            opt.key_file = argv[++i];
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

void say(const char *fmt, ...)
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

/* ================= scheduler mode ================= */

#define MAX_NODES 1024
static pthread_mutex_t nodes_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nodes_cond = PTHREAD_COND_INITIALIZER;
static link_t *node_links[MAX_NODES]; /* NULL once that node left */
static size_t nnodes, nthreads;       /* live connections, their threads */
static bool stopping;
static link_auth_t auth;
static bool use_shm;      /* --shm, decided at start */
static bool use_encoding; /* --encode */

/* Streams of matrices in flight: an update waits for them (the matrix
 * they read is the engine's, valid until this process's PENDING chain
 * completes). */
static int streams;
static pmix_event_notification_cbfunc_fn_t pending_cb;
static void *pending_cbdata;

typedef struct {
    link_t *link;
    uint32_t id;
    bool encode; /* the node reads encoded chunks and we send them */
    pmix_fabric_t fabric;
} fwd_t;

/* The reply; fd >= 0 rides on it (the matrix in shared memory). */
static int send_reply_fd(link_t *l, uint32_t id, pmix_status_t status, const pmix_info_t *info,
                         size_t n, int fd)
{
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    uint8_t kind = LINK_REPLY;
    PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
    PMIx_Data_pack(NULL, &b, &id, 1, PMIX_UINT32);
    PMIx_Data_pack(NULL, &b, &status, 1, PMIX_STATUS);
    link_pack_infos(&b, status == PMIX_SUCCESS ? info : NULL, status == PMIX_SUCCESS ? n : 0);
    int rc = link_send_fd(l, &b, fd);
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    return rc;
}

static void send_reply(link_t *l, uint32_t id, pmix_status_t status, const pmix_info_t *info,
                       size_t n)
{
    send_reply_fd(l, id, status, info, n, -1);
}

static void fwd_free(pmix_status_t status, void *cbdata)
{
    (void)status;
    free(cbdata);
}

static void stream_end(void)
{
    pthread_mutex_lock(&nodes_lock);
    pmix_event_notification_cbfunc_fn_t cb = NULL;
    void *cbdata = NULL;
    if (--streams == 0 && pending_cb != NULL) {
        cb = pending_cb;
        cbdata = pending_cbdata;
        pending_cb = NULL;
    }
    pthread_mutex_unlock(&nodes_lock);
    if (cb != NULL)
        cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* The reply, its matrix in bounded chunks after it (or, to a node on
 * this host, in shared memory), then the registration goes (on a thread
 * of its own: the matrix may be GBs). */
static void *stream_thread(void *arg)
{
    fwd_t *f = arg;
    pmix_info_t *info = f->fabric.info;
    size_t n = f->fabric.ninfo, nd = 0;
    const char *m = NULL;
    size_t msize = 0, at = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_FABRIC_NUM_DEVICES) && info[i].value.type == PMIX_SIZE)
            nd = info[i].value.data.size;
        if (PMIX_CHECK_KEY(&info[i], PMIX_FABRIC_COST_MATRIX))
            at = i;
    }
    if (at != SIZE_MAX && info[at].value.type == PMIX_POINTER) {
        m = info[at].value.data.ptr;
        msize = nd * nd * sizeof(uint16_t);
    } else if (at != SIZE_MAX && info[at].value.type == PMIX_BYTE_OBJECT) {
        m = info[at].value.data.bo.bytes;
        msize = info[at].value.data.bo.size;
    }
    /* a node on this host maps a copy; a remote one gets chunks (and so
     * does a local one when the memfd cannot be made) */
    int shm = -1;
    if (use_shm && msize > LINK_CHUNK_BYTES && m != NULL && link_is_local(f->link)) {
        shm = shm_export(m, msize);
        if (shm < 0)
            say("request %u: no shared memory (%s): chunks instead", f->id, strerror(errno));
    }
    bool encode = f->encode && shm < 0 && msize > LINK_CHUNK_BYTES;
    /* the infos as sent: the matrix inline when small, else its size (and
     * the encoding of its chunks) */
    size_t nout = n + (encode ? 1 : 0);
    pmix_info_t *out;
    PMIX_INFO_CREATE(out, nout > 0 ? nout : 1);
    for (size_t i = 0; out != NULL && i < n; i++) {
        if (i != at) {
            PMIx_Info_xfer(&out[i], &info[i]);
        } else if (msize <= LINK_CHUNK_BYTES) {
            pmix_byte_object_t bo = {.bytes = (char *)m, .size = msize};
            PMIX_INFO_LOAD(&out[i], PMIX_FABRIC_COST_MATRIX, &bo, PMIX_BYTE_OBJECT);
        } else {
            PMIX_INFO_LOAD(&out[i], shm >= 0 ? LINK_SHM : LINK_STREAMED, &msize, PMIX_SIZE);
        }
    }
    if (out != NULL && encode) {
        uint32_t version = SY_CM_CODEC_VERSION;
        PMIX_INFO_LOAD(&out[n], LINK_ENCODING, &version, PMIX_UINT32);
    }
    bool sent = out != NULL;
    send_reply_fd(f->link, f->id, sent ? PMIX_SUCCESS : PMIX_ERR_NOMEM, out, nout, sent ? shm : -1);
    if (out != NULL)
        PMIX_INFO_FREE(out, nout > 0 ? nout : 1);
    /* the node holds its own descriptor now: ours goes, and with the
     * node's the memory (a memfd has no name to remove) */
    if (shm >= 0) {
        close(shm);
        say("request %u: the matrix (%zu bytes) passed in shared memory", f->id, msize);
    }
    size_t payload = 0;
    if (sent && shm < 0 && msize > LINK_CHUNK_BYTES)
        chunk_send_all(f->link, f->id, m, msize, encode, &payload); /* fails when the node left */
    if (encode)
        say("answered request %u from a node (%zu matrix bytes, encoded chunks: %zu bytes)", f->id,
            msize, payload);
    else
        say("answered request %u from a node (%zu matrix bytes)", f->id, msize);
    if (PMIx_Fabric_deregister_nb(&f->fabric, fwd_free, f) != PMIX_SUCCESS)
        free(f);
    stream_end();
    return NULL;
}

/* The fabric registered for a node's request: its data goes back. */
static void fwd_registered(pmix_status_t status, void *cbdata)
{
    fwd_t *f = cbdata;
    if (status != PMIX_SUCCESS) {
        send_reply(f->link, f->id, status, NULL, 0);
        say("answered request %u from a node: %s", f->id, PMIx_Error_string(status));
        free(f);
        stream_end();
        return;
    }
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, stream_thread, f) != 0)
        stream_thread(f);
    pthread_attr_destroy(&at);
}

static void sched_fabric(link_t *l, pmix_data_buffer_t *b)
{
    uint32_t id = 0;
    uint8_t op = 0;
    int32_t one = 1;
    pmix_info_t *dirs = NULL;
    size_t n = 0;
    if (PMIx_Data_unpack(NULL, b, &id, &one, PMIX_UINT32) != PMIX_SUCCESS ||
        PMIx_Data_unpack(NULL, b, &op, &one, PMIX_UINT8) != PMIX_SUCCESS ||
        link_unpack_infos(b, &dirs, &n) != PMIX_SUCCESS) {
        send_reply(l, id, PMIX_ERR_UNPACK_FAILURE, NULL, 0);
        return;
    }
    /* Both operations are a registration here: an update's directives
     * name the fabric with PMIX_FABRIC_INDEX.  Without "by value": the
     * matrix is the engine's own, streamed from there, not copied. */
    size_t keep = 0;
    bool encode = false;
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&dirs[i], LINK_ENCODING)) {
            /* the link's business, not the engine's */
            encode = use_encoding && dirs[i].value.type == PMIX_UINT32 &&
                     dirs[i].value.data.uint32 >= SY_CM_CODEC_VERSION;
            PMIX_INFO_DESTRUCT(&dirs[i]);
            continue;
        }
        if (PMIX_CHECK_KEY(&dirs[i], SWITCHYARD_FABRIC_BY_VALUE)) {
            PMIX_INFO_DESTRUCT(&dirs[i]);
            continue;
        }
        if (keep != i) {
            dirs[keep] = dirs[i];
            memset(&dirs[i], 0, sizeof(dirs[i]));
        }
        keep++;
    }
    fwd_t *f = calloc(1, sizeof(*f));
    if (f == NULL) {
        if (dirs != NULL)
            PMIX_INFO_FREE(dirs, n);
        send_reply(l, id, PMIX_ERR_NOMEM, NULL, 0);
        return;
    }
    f->link = l;
    f->id = id;
    f->encode = encode;
    PMIX_FABRIC_CONSTRUCT(&f->fabric);
    pthread_mutex_lock(&nodes_lock);
    streams++;
    pthread_mutex_unlock(&nodes_lock);
    pmix_status_t rc =
        PMIx_Fabric_register_nb(&f->fabric, keep > 0 ? dirs : NULL, keep, fwd_registered, f);
    if (dirs != NULL)
        PMIX_INFO_FREE(dirs, n);
    if (rc != PMIX_SUCCESS) {
        send_reply(l, id, rc, NULL, 0);
        free(f);
        stream_end();
    }
}

typedef struct {
    link_t *link;
    uint32_t id;
} setup_req_t;

static void setup_done(pmix_status_t status, pmix_info_t info[], size_t ninfo,
                       void *provided_cbdata, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    setup_req_t *q = provided_cbdata;
    send_reply(q->link, q->id, status, info, ninfo);
    say("job setup answered: %s, %zu items", PMIx_Error_string(status), ninfo);
    free(q);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
}

/* A node's job: the launch data of PMIx_server_setup_application. */
static void sched_setup(link_t *l, pmix_data_buffer_t *b)
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
        send_reply(l, id, PMIX_ERR_UNPACK_FAILURE, NULL, 0);
        return;
    }
    setup_req_t *q = calloc(1, sizeof(*q));
    pmix_nspace_t nspace;
    PMIX_LOAD_NSPACE(nspace, ns);
    free(ns);
    if (q != NULL) {
        /* before the call: its answer may come first */
        q->link = l;
        q->id = id;
    }
    pmix_status_t rc =
        q != NULL ? PMIx_server_setup_application(nspace, info, n, setup_done, q) : PMIX_ERR_NOMEM;
    if (info != NULL)
        PMIX_INFO_FREE(info, n);
    if (rc != PMIX_SUCCESS) {
        send_reply(l, id, rc, NULL, 0);
        free(q);
    }
}

static void free_infos(pmix_status_t status, void *cbdata)
{
    (void)status;
    pmix_data_array_t *da = cbdata;
    PMIX_DATA_ARRAY_FREE(da);
}

static void sched_inventory(pmix_data_buffer_t *b)
{
    pmix_info_t *info = NULL;
    size_t n = 0;
    if (link_unpack_infos(b, &info, &n) != PMIX_SUCCESS)
        return;
    pmix_data_array_t *da = calloc(1, sizeof(*da));
    if (da == NULL) {
        if (info != NULL)
            PMIX_INFO_FREE(info, n);
        return;
    }
    da->type = PMIX_INFO;
    da->array = info;
    da->size = n;
    say("inventory of %zu items delivered", n);
    if (PMIx_server_deliver_inventory(info, n, NULL, 0, free_infos, da) != PMIX_SUCCESS)
        PMIX_DATA_ARRAY_FREE(da);
}

/* One node's connection: the handshake, then its frames.  The link
 * stays allocated until the end (answers in flight may still use it). */
static void *node_reader(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char peer[256];
    const char *why = "";
    link_t *l = link_accept(fd, &auth, peer, sizeof(peer), &why);
    if (l == NULL) {
        fprintf(stderr, "switchyard-sched: refused a node (%s): %s\n", peer, why);
        return NULL;
    }
    pthread_mutex_lock(&nodes_lock);
    size_t slot = MAX_NODES;
    for (size_t i = 0; i < MAX_NODES && slot == MAX_NODES; i++)
        if (node_links[i] == NULL)
            slot = i;
    if (slot < MAX_NODES && !stopping) {
        node_links[slot] = l;
        nnodes++;
    }
    pthread_mutex_unlock(&nodes_lock);
    if (slot == MAX_NODES) {
        link_free(l);
        return NULL;
    }
    say("node %s connected (%s)", peer, link_auth_name(auth.method));
    pmix_data_buffer_t b;
    while (link_recv(l, &b) == 0) {
        uint8_t kind = 0;
        int32_t one = 1;
        if (PMIx_Data_unpack(NULL, &b, &kind, &one, PMIX_UINT8) == PMIX_SUCCESS) {
            if (kind == LINK_FABRIC)
                sched_fabric(l, &b);
            else if (kind == LINK_INVENTORY)
                sched_inventory(&b);
            else if (kind == LINK_SETUP)
                sched_setup(l, &b);
        }
        PMIX_DATA_BUFFER_DESTRUCT(&b);
    }
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    /* the node left: no more events to it; the link itself is freed at
     * the end, when no answer can be on its way any more */
    link_shutdown(l);
    say("node %s left", peer);
    return NULL;
}

static int listen_fd = -1;
static pthread_t readers[4 * MAX_NODES];

static void *acceptor(void *arg)
{
    (void)arg;
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return NULL;
        }
        pthread_mutex_lock(&nodes_lock);
        if (stopping || nthreads == sizeof(readers) / sizeof(readers[0]) ||
            pthread_create(&readers[nthreads], NULL, node_reader, (void *)(intptr_t)fd) != 0) {
            pthread_mutex_unlock(&nodes_lock);
            close(fd);
            continue;
        }
        nthreads++;
        pthread_cond_broadcast(&nodes_cond);
        pthread_mutex_unlock(&nodes_lock);
    }
}

/* PMIX_FABRIC_UPDATE_PENDING in this process: every node daemon hears of
 * it (their servers run the update protocol for their own clients); our
 * chain completes when no matrix is being streamed any more. */
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
    for (size_t i = 0; i < MAX_NODES && bo.bytes != NULL; i++)
        if (node_links[i] != NULL)
            link_send_bytes(node_links[i], &bo);
    bool wait = status == PMIX_FABRIC_UPDATE_PENDING && streams > 0 && cbfunc != NULL;
    if (wait) {
        pending_cb = cbfunc;
        pending_cbdata = cbdata;
    }
    pthread_mutex_unlock(&nodes_lock);
    free(bo.bytes);
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    say("%s: told the node daemons", status == PMIX_FABRIC_UPDATE_PENDING
                                         ? "fabric update pending"
                                         : "fabric endpoints changed");
    if (!wait && cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* ================= node mode: sched_node.c ================= */

/* ================= the program as a client ================= */

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

    const char *addr = opt.listen != NULL ? opt.listen : opt.node;
    bool tcp =
        strncmp(addr, "tcp://", 6) == 0 ||
        (strchr(addr, '/') == NULL && strncmp(addr, "unix:", 5) != 0 && strchr(addr, ':') != NULL);
    char *why = NULL;
    if (link_auth_setup(opt.auth, opt.key_file, tcp, &auth, &why) != 0) {
        fprintf(stderr, "switchyard-sched: %s\n",
                why != NULL ? why : "authentication setup failed");
        free(why);
        return 1;
    }
    say("link authentication: %s", link_auth_name(auth.method));
    use_encoding = strcmp(opt.encode, "yes") == 0;
    use_shm = strcmp(opt.shm, "always") == 0 || (strcmp(opt.shm, "auto") == 0 && shm_fast());
    if (opt.listen != NULL)
        say("big matrices to nodes on this host: %s",
            use_shm ? "shared memory" : "chunks through the socket");

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
        node_opts_t no = {.addr = opt.node,
                          .hostname = opt.hostname,
                          .auth = &auth,
                          .inventory = !opt.no_inventory};
        if (node_start(&no, 10.0) != 0)
            return 1;
    }
    pmix_status_t rc = PMIx_server_init(&module, info, n);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "switchyard-sched: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        node_stop();
        return 1;
    }
    pthread_t thread;
    bool have_thread = false;
    int status = 0;
    if (opt.listen != NULL) {
        /* the node daemons hear of updates and of endpoint changes */
        pmix_status_t codes[2] = {PMIX_FABRIC_UPDATE_PENDING, PMIX_FABRIC_UPDATE_ENDPOINTS};
        PMIx_Register_event_handler(codes, 2, NULL, 0, on_pending, NULL, NULL);
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
        listen_fd = link_listen(opt.listen, &tcp);
        if (listen_fd < 0) {
            fprintf(stderr, "switchyard-sched: cannot listen on %s: %s\n", opt.listen,
                    strerror(errno));
            PMIx_server_finalize();
            return 1;
        }
        have_thread = pthread_create(&thread, NULL, acceptor, NULL) == 0;
        say("scheduler listening on %s", opt.listen);
    } else {
        node_deliver_inventory();
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
        const char *path = strncmp(opt.listen, "unix:", 5) == 0 ? opt.listen + 5 : opt.listen;
        struct stat st;
        if (!tcp && lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == geteuid())
            unlink(path);
    }
    if (have_thread)
        pthread_join(thread, NULL);
    if (listen_fd >= 0)
        close(listen_fd);
    node_stop();
    pthread_mutex_lock(&nodes_lock);
    stopping = true;
    for (size_t i = 0; i < MAX_NODES; i++)
        if (node_links[i] != NULL)
            link_shutdown(node_links[i]);
    size_t nr = nthreads;
    pthread_mutex_unlock(&nodes_lock);
    for (size_t i = 0; i < nr; i++)
        pthread_join(readers[i], NULL);
    /* answers in flight end with the server */
    PMIx_server_finalize();
    for (size_t i = 0; i < MAX_NODES; i++)
        link_free(node_links[i]);
    return status;
}
