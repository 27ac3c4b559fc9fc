/*
 * libFuzzer target: frames sent to a live server peer after its handshake,
 * through the real dispatcher (server_peer.c's on_message and every
 * command handler behind it), not only the unpack layer.
 *
 * Once per process a server is initialized in a private tmpdir with a
 * host module whose upcalls answer at once (fence_nb hands the blob back,
 * publish/lookup/query/log/group/connect succeed or find nothing; nothing
 * is ever started or killed), and a job "fuzz" of two local ranks is
 * registered.  For each input, rank 0 connects over the UNIX socket and
 * says HELLO (authenticated by SO_PEERCRED), then the input is sent:
 *   repeated { u16 big-endian word W, then W & 0x7fff bytes }
 *   W & 0x8000 clear: the bytes are one frame's body (tag 1, 2, ...)
 *   W & 0x8000 set:   the bytes go on the socket as they are (framing)
 * then a JOBSEG request whose reply says the server got through all of
 * it (or the server closed the connection), and the connection closes:
 * the server sees a client leave with whatever it left pending.  The
 * server must never crash, leak, hang or read out of bounds.
 *
 * Seeds: tests/fuzz/corpus/fuzz_server/, one valid request of every
 * command (written by this program with SY_WRITE_CORPUS=<dir>).
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/frame.h"
#include "common/pack.h"
#include "common/wire.h"

#define NSPACE "fuzz"
#define FINAL_TAG 0x7ffffff0u
#define WAIT_MS 5000

static char usock[4096];
static pmix_proc_t me;

/* ---- the host: answers at once, starts nothing ---- */

static pmix_status_t ok_op(const pmix_proc_t *p, void *o, pmix_op_cbfunc_t cb, void *cbd)
{
    (void)p, (void)o, (void)cb, (void)cbd;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t host_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                void *cbdata)
{
    (void)procs, (void)nprocs, (void)info, (void)ninfo;
    cbfunc(PMIX_SUCCESS, data, ndata, cbdata, free, data);
    return PMIX_SUCCESS;
}

static pmix_status_t host_dmodex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                 pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
    return PMIX_ERR_NOT_FOUND;
}

static pmix_status_t host_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t host_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                                 size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc, (void)keys, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
    return PMIX_ERR_NOT_FOUND;
}

static pmix_status_t host_unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                                    size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc, (void)keys, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t host_connect(const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata)
{
    (void)procs, (void)nprocs, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t host_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                                pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)proct, (void)queries, (void)nqueries, (void)cbfunc, (void)cbdata;
    return PMIX_ERR_NOT_FOUND;
}

static void host_log(const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
                     const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
                     void *cbdata)
{
    (void)client, (void)data, (void)ndata, (void)directives, (void)ndirs;
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
}

static pmix_status_t host_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
                                size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                                pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)op, (void)grp, (void)procs, (void)nprocs, (void)directives, (void)ndirs;
    cbfunc(PMIX_SUCCESS, NULL, 0, cbdata, NULL, NULL);
    return PMIX_SUCCESS;
}

static pmix_status_t host_refuse_spawn(const pmix_proc_t *proc, const pmix_info_t job_info[],
                                       size_t ninfo, const pmix_app_t apps[], size_t napps,
                                       pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc, (void)job_info, (void)ninfo, (void)apps, (void)napps, (void)cbfunc, (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

static void wait_op(pmix_status_t status, void *cbdata)
{
    (void)status;
    __atomic_store_n((int *)cbdata, 1, __ATOMIC_RELEASE);
}

static void wait_done(int *done, pmix_status_t rc)
{
    if (rc != PMIX_SUCCESS)
        return;
    while (!__atomic_load_n(done, __ATOMIC_ACQUIRE))
        usleep(1000);
}

/* The server's directory (its socket, rendezvous files): the fuzzer ends
 * with exit(), never with PMIx_server_finalize, so it goes at exit. */
static char *server_dir;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_server_dir(void)
{
    if (server_dir != NULL)
        nftw(server_dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static int setup(void)
{
    static char tmpl[] = "/tmp/sy-fuzz-server.XXXXXX";
    const char *t = getenv("TMPDIR");
    char *dir = NULL;
    if (t != NULL && *t == '/' && asprintf(&dir, "%s/sy-fuzz-server.XXXXXX", t) < 0)
        dir = NULL;
    if (dir == NULL)
        dir = strdup(tmpl);
    if (dir == NULL || mkdtemp(dir) == NULL)
        return -1;
    server_dir = strdup(dir);
    atexit(remove_server_dir);
    setenv("SWITCHYARD_LOG", "error", 0); /* refusals are the point here */
    static pmix_server_module_t m;
    m.client_connected = ok_op;
    m.client_finalized = ok_op;
    m.fence_nb = host_fence;
    m.direct_modex = host_dmodex;
    m.publish = host_publish;
    m.lookup = host_lookup;
    m.unpublish = host_unpublish;
    m.connect = host_connect;
    m.disconnect = host_connect;
    m.query = host_query;
    m.log = host_log;
    m.group = host_group;
    m.spawn = host_refuse_spawn;
    pmix_info_t info[3];
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, dir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_TCP_DISABLE_IPV4, NULL, PMIX_BOOL);
    pmix_status_t rc = PMIx_server_init(&m, info, 3);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    free(dir);
    if (rc != PMIX_SUCCESS)
        return -1;
    pmix_info_t job[2];
    uint32_t two = 2;
    PMIX_INFO_LOAD(&job[0], PMIX_JOB_SIZE, &two, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[1], PMIX_LOCAL_SIZE, &two, PMIX_UINT32);
    int done = 0;
    wait_done(&done, PMIx_server_register_nspace(NSPACE, 2, job, 2, wait_op, &done));
    PMIX_INFO_DESTRUCT(&job[0]);
    PMIX_INFO_DESTRUCT(&job[1]);
    PMIX_LOAD_PROCID(&me, NSPACE, 0);
    done = 0;
    wait_done(&done, PMIx_server_register_client(&me, getuid(), getgid(), NULL, wait_op, &done));
    char **env = NULL;
    if (PMIx_server_setup_fork(&me, &env) != PMIX_SUCCESS)
        return -1;
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        if (strncmp(env[i], SY_ENV_USOCK "=", strlen(SY_ENV_USOCK) + 1) == 0)
            snprintf(usock, sizeof usock, "%s", env[i] + strlen(SY_ENV_USOCK) + 1);
        free(env[i]);
    }
    free(env);
    return usock[0] != '\0' ? 0 : -1;
}

/* ---- talking to it ---- */

static bool send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        len -= (size_t)w;
    }
    return true;
}

static bool send_frame(int fd, uint32_t tag, const void *body, size_t len)
{
    uint8_t hdr[SY_FRAME_HEADER_SIZE];
    sy_frame_header_encode(hdr, tag, 0, (uint32_t)len);
    return send_all(fd, hdr, sizeof hdr) && (len == 0 || send_all(fd, body, len));
}

/* recv exactly len bytes: libFuzzer's -timeout alarm (SIGALRM every
 * timeout/2 s) interrupts blocking calls, which is no answer of the
 * server's. */
static bool recv_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t r = recv(fd, p, len, MSG_WAITALL);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        len -= (size_t)r;
    }
    return true;
}

/* Read frames until one with `tag` (its first status in *status), EOF or
 * the time runs out; false when no such reply came. */
static bool await(int fd, uint32_t tag, pmix_status_t *status)
{
    for (;;) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int p;
        while ((p = poll(&pf, 1, WAIT_MS)) < 0 && errno == EINTR)
            ;
        if (p <= 0)
            return false;
        uint8_t hdr[SY_FRAME_HEADER_SIZE];
        if (!recv_all(fd, hdr, sizeof hdr))
            return false;
        uint32_t rtag, len;
        uint16_t flags;
        if (sy_frame_header_decode(hdr, &rtag, &flags, &len) != PMIX_SUCCESS || len > (64u << 20))
            return false;
        char *body = len > 0 ? malloc(len) : NULL;
        if (len > 0 && (body == NULL || !recv_all(fd, body, len))) {
            free(body);
            return false;
        }
        if (rtag == tag) {
            pmix_data_buffer_t b = {0};
            *status = PMIX_ERROR;
            if (len > 0) {
                sy_buffer_set_copy(&b, body, len);
                int32_t one = 1;
                sy_unpack(&b, status, &one, PMIX_STATUS);
                sy_buffer_destruct(&b);
            }
            free(body);
            return true;
        }
        free(body);
    }
}

static int dial(void)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", usock);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc;
    while (fd >= 0 && (rc = connect(fd, (struct sockaddr *)&sa, sizeof sa)) != 0 && errno == EINTR)
        ;
    if (fd >= 0 && rc != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Rank 0, connected and authenticated: the previous connection may not
 * be gone on the server's side yet (PMIX_EXISTS): try again. */
static int hello(void)
{
    for (int attempt = 0; attempt < 1000; attempt++) {
        int fd = dial();
        if (fd < 0)
            return -1;
        pmix_data_buffer_t req = {0};
        pmix_status_t st = PMIX_ERROR;
        bool sent =
            sy_client_pack_hello(&req, SY_PEER_CLIENT, &me, NULL, NULL, 0) == PMIX_SUCCESS &&
            send_frame(fd, 1, req.base_ptr, req.bytes_used);
        sy_buffer_destruct(&req);
        bool answered = sent && await(fd, 1, &st);
        if (answered && st == PMIX_SUCCESS)
            return fd;
        close(fd);
        if (st != PMIX_EXISTS) {
            fprintf(stderr, "fuzz_server: HELLO %s: %s\n", answered ? "refused" : "not answered",
                    PMIx_Error_string(st));
            return -1;
        }
        usleep(200);
    }
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = hello();
    if (fd < 0 && getenv("SY_FUZZ_PAUSE") != NULL)
        pause(); /* for a debugger */
    if (fd < 0)
        abort(); /* the server no longer takes its own client */
    uint32_t tag = 2;
    bool alive = true;
    while (alive && size >= 2) {
        unsigned w = (unsigned)data[0] << 8 | data[1];
        size_t len = w & 0x7fff;
        data += 2;
        size -= 2;
        if (len > size)
            len = size;
        if (w & 0x8000)
            alive = send_all(fd, data, len);
        else
            alive = send_frame(fd, tag++, data, len);
        data += len;
        size -= len;
    }
    /* the server got through all of it (or hung up on us) */
    pmix_data_buffer_t req = {0};
    uint8_t cmd = SY_CMD_JOBSEG;
    const char *ns = NSPACE;
    pmix_status_t st;
    if (alive && sy_pack(&req, &cmd, 1, PMIX_UINT8) == PMIX_SUCCESS &&
        sy_pack(&req, &ns, 1, PMIX_STRING) == PMIX_SUCCESS &&
        send_frame(fd, FINAL_TAG, req.base_ptr, req.bytes_used) && !await(fd, FINAL_TAG, &st)) {
        /* no reply and no EOF: a stray header may wait for a body that
         * never comes; closing ends it.  A server that hangs shows in the
         * next hello. */
    }
    sy_buffer_destruct(&req);
    close(fd);
    return 0;
}

/* ---- seeds: one valid request of every command ---- */

static void seed(const char *dir, const char *name, pmix_data_buffer_t *b)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return;
    uint8_t w[2] = {(uint8_t)(b->bytes_used >> 8), (uint8_t)b->bytes_used};
    fwrite(w, 1, 2, f);
    fwrite(b->base_ptr, 1, b->bytes_used, f);
    fclose(f);
    sy_buffer_destruct(b);
}

#define P(v, t) sy_pack(&b, (v), 1, (t))
#define PN(v, n, t) sy_pack(&b, (v), (n), (t))

static void write_seeds(const char *dir)
{
    mkdir(dir, 0755);
    pmix_data_buffer_t b = {0};
    uint8_t cmd, u8;
    size_t n0 = 0, n1 = 1, n2 = 2;
    pmix_proc_t all, r1;
    PMIX_LOAD_PROCID(&all, NSPACE, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&r1, NSPACE, 1);
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_info_t pub;
    PMIX_INFO_LOAD(&pub, "fuzz.key", "value", PMIX_STRING);
    const char *key = "fuzz.key", *grp = "fuzzgrp", *msg = "bye", *ns = NSPACE;
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, "value", PMIX_STRING);
    pmix_status_t code = PMIX_MODEL_DECLARED, st0 = PMIX_SUCCESS;
    int status = 3;

    cmd = SY_CMD_FINALIZE;
    P(&cmd, PMIX_UINT8);
    seed(dir, "finalize", &b);
    cmd = SY_CMD_ABORT;
    P(&cmd, PMIX_UINT8), P(&status, PMIX_INT), P(&msg, PMIX_STRING), P(&n0, PMIX_SIZE);
    seed(dir, "abort", &b);
    cmd = SY_CMD_JOBSEG;
    P(&cmd, PMIX_UINT8), P(&ns, PMIX_STRING);
    seed(dir, "jobseg", &b);
    cmd = SY_CMD_COMMIT;
    u8 = PMIX_GLOBAL;
    P(&cmd, PMIX_UINT8), P(&n1, PMIX_SIZE), P(&u8, PMIX_UINT8), P(&key, PMIX_STRING),
        P(&val, PMIX_VALUE);
    seed(dir, "commit", &b);
    uint8_t colls[] = {SY_CMD_FENCE, SY_CMD_CONNECT, SY_CMD_DISCONNECT};
    const char *cnames[] = {"fence", "connect", "disconnect"};
    for (int i = 0; i < 3; i++) {
        P(&colls[i], PMIX_UINT8), P(&n1, PMIX_SIZE), P(&all, PMIX_PROC), P(&n1, PMIX_SIZE),
            P(&info, PMIX_INFO);
        seed(dir, cnames[i], &b);
    }
    cmd = SY_CMD_DMODEX;
    P(&cmd, PMIX_UINT8), P(&r1, PMIX_PROC), P(&key, PMIX_STRING), P(&n0, PMIX_SIZE);
    seed(dir, "dmodex", &b);
    size_t ref = 7;
    cmd = SY_CMD_EVENT_REGISTER;
    P(&cmd, PMIX_UINT8), P(&ref, PMIX_SIZE), P(&n1, PMIX_SIZE), P(&code, PMIX_STATUS);
    seed(dir, "event-register", &b);
    cmd = SY_CMD_EVENT_DEREGISTER;
    P(&cmd, PMIX_UINT8), P(&ref, PMIX_SIZE);
    seed(dir, "event-deregister", &b);
    cmd = SY_CMD_EVENT_NOTIFY;
    u8 = PMIX_RANGE_NAMESPACE;
    P(&cmd, PMIX_UINT8), P(&code, PMIX_STATUS), P(&me, PMIX_PROC), P(&u8, PMIX_UINT8),
        P(&n0, PMIX_SIZE);
    seed(dir, "event-notify", &b);
    cmd = SY_CMD_PUBLISH;
    P(&cmd, PMIX_UINT8), P(&n1, PMIX_SIZE), P(&pub, PMIX_INFO);
    seed(dir, "publish", &b);
    cmd = SY_CMD_LOOKUP;
    P(&cmd, PMIX_UINT8), P(&n1, PMIX_SIZE), P(&key, PMIX_STRING), P(&n0, PMIX_SIZE);
    seed(dir, "lookup", &b);
    cmd = SY_CMD_UNPUBLISH;
    P(&cmd, PMIX_UINT8), P(&n1, PMIX_SIZE), P(&key, PMIX_STRING), P(&n0, PMIX_SIZE);
    seed(dir, "unpublish", &b);
    const char *qkey = PMIX_QUERY_NAMESPACES;
    cmd = SY_CMD_QUERY;
    P(&cmd, PMIX_UINT8), P(&n1, PMIX_SIZE), P(&n1, PMIX_SIZE), P(&qkey, PMIX_STRING),
        P(&n0, PMIX_SIZE);
    seed(dir, "query", &b);
    pmix_info_t logi;
    PMIX_INFO_LOAD(&logi, PMIX_LOG_STDERR, "fuzz log line", PMIX_STRING);
    cmd = SY_CMD_LOG;
    P(&cmd, PMIX_UINT8), P(&n1, PMIX_SIZE), P(&logi, PMIX_INFO), P(&n0, PMIX_SIZE);
    seed(dir, "log", &b);
    PMIX_INFO_DESTRUCT(&logi);
    pmix_info_t ctl;
    PMIX_INFO_LOAD(&ctl, PMIX_JOB_CTRL_PREEMPTIBLE, &yes, PMIX_BOOL);
    cmd = SY_CMD_JOB_CONTROL;
    P(&cmd, PMIX_UINT8), P(&n1, PMIX_SIZE), P(&r1, PMIX_PROC), P(&n1, PMIX_SIZE),
        P(&ctl, PMIX_INFO);
    seed(dir, "job-control", &b);
    PMIX_INFO_DESTRUCT(&ctl);
    pmix_info_t mon;
    int beats = 5;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, &beats, PMIX_INT);
    cmd = SY_CMD_MONITOR;
    P(&cmd, PMIX_UINT8), P(&n1, PMIX_SIZE), P(&mon, PMIX_INFO), P(&code, PMIX_STATUS),
        P(&n0, PMIX_SIZE);
    seed(dir, "monitor", &b);
    PMIX_INFO_DESTRUCT(&mon);
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup("/bin/true");
    app.maxprocs = 1;
    cmd = SY_CMD_SPAWN;
    P(&cmd, PMIX_UINT8), P(&n0, PMIX_SIZE), P(&n1, PMIX_SIZE), P(&app, PMIX_APP);
    seed(dir, "spawn", &b);
    PMIX_APP_DESTRUCT(&app);
    uint16_t chans = PMIX_FWD_STDOUT_CHANNEL;
    cmd = SY_CMD_IOF_PULL;
    P(&cmd, PMIX_UINT8), P(&n1, PMIX_SIZE), P(&all, PMIX_PROC), P(&n0, PMIX_SIZE),
        P(&chans, PMIX_UINT16);
    seed(dir, "iof-pull", &b);
    cmd = SY_CMD_IOF_DEREG;
    P(&cmd, PMIX_UINT8), P(&n1, PMIX_SIZE);
    seed(dir, "iof-dereg", &b);
    pmix_byte_object_t bo = {.bytes = (char *)"input", .size = 5};
    cmd = SY_CMD_IOF_PUSH;
    P(&cmd, PMIX_UINT8), P(&n1, PMIX_SIZE), P(&r1, PMIX_PROC), P(&bo, PMIX_BYTE_OBJECT),
        P(&n0, PMIX_SIZE);
    seed(dir, "iof-push", &b);
    cmd = SY_CMD_FABRIC;
    u8 = 0;
    P(&cmd, PMIX_UINT8), P(&u8, PMIX_UINT8), P(&n0, PMIX_SIZE);
    seed(dir, "fabric", &b);
    pmix_proc_t members[2];
    PMIX_LOAD_PROCID(&members[0], NSPACE, 0);
    PMIX_LOAD_PROCID(&members[1], NSPACE, 1);
    cmd = SY_CMD_GROUP_CONSTRUCT;
    P(&cmd, PMIX_UINT8), P(&grp, PMIX_STRING), P(&n2, PMIX_SIZE), PN(members, 2, PMIX_PROC),
        P(&n0, PMIX_SIZE);
    seed(dir, "group-construct", &b);
    cmd = SY_CMD_GROUP_INVITE;
    P(&cmd, PMIX_UINT8), P(&grp, PMIX_STRING), P(&n1, PMIX_SIZE), P(&r1, PMIX_PROC),
        P(&n0, PMIX_SIZE);
    seed(dir, "group-invite", &b);
    cmd = SY_CMD_GROUP_JOIN;
    u8 = PMIX_GROUP_ACCEPT;
    P(&cmd, PMIX_UINT8), P(&grp, PMIX_STRING), P(&r1, PMIX_PROC), P(&u8, PMIX_UINT8),
        P(&n0, PMIX_SIZE);
    seed(dir, "group-join", &b);
    cmd = SY_CMD_GROUP_DESTRUCT;
    P(&cmd, PMIX_UINT8), P(&grp, PMIX_STRING), P(&n0, PMIX_SIZE);
    seed(dir, "group-destruct", &b);
    cmd = SY_CMD_GROUP_LEAVE;
    P(&cmd, PMIX_UINT8), P(&grp, PMIX_STRING), P(&n0, PMIX_SIZE);
    seed(dir, "group-leave", &b);
    pmix_status_t ev = PMIX_GROUP_MEMBER_FAILED;
    cmd = SY_CMD_GROUP_DECIDE;
    P(&cmd, PMIX_UINT8), P(&grp, PMIX_STRING), P(&ev, PMIX_STATUS), P(&st0, PMIX_STATUS),
        P(&r1, PMIX_PROC);
    seed(dir, "group-decide", &b);
    cmd = SY_CMD_GET_CRED;
    P(&cmd, PMIX_UINT8), P(&n0, PMIX_SIZE);
    seed(dir, "get-cred", &b);
    cmd = SY_CMD_VALIDATE_CRED;
    P(&cmd, PMIX_UINT8), P(&bo, PMIX_BYTE_OBJECT), P(&n0, PMIX_SIZE);
    seed(dir, "validate-cred", &b);
    cmd = SY_CMD_ALLOC;
    u8 = PMIX_ALLOC_NEW;
    P(&cmd, PMIX_UINT8), P(&u8, PMIX_UINT8), P(&n0, PMIX_SIZE);
    seed(dir, "alloc", &b);
    cmd = SY_CMD_HELLO; /* a second HELLO: refused, the connection closed */
    P(&cmd, PMIX_UINT8);
    seed(dir, "hello-again", &b);
    PMIX_INFO_DESTRUCT(&info);
    PMIX_INFO_DESTRUCT(&pub);
    PMIX_VALUE_DESTRUCT(&val);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *dir = getenv("SY_WRITE_CORPUS");
    if (dir != NULL) {
        write_seeds(dir);
        exit(0);
    }
    if (setup() != 0) {
        fprintf(stderr, "fuzz_server: cannot start the server\n");
        exit(1);
    }
    return 0;
}
