/* The server role seen from a host and from raw sockets: init attributes,
 * tmpdir contents, setup_fork's environment, registration callbacks, Get
 * inside the server process, and the handshake driven by hand-made frames
 * (good HELLO, unknown rank, garbage, missing TCP token, a second HELLO). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/frame.h"
#include "common/pack.h"
#include "common/usock.h"
#include "common/wire.h"

static char sysdir[64];

/* The API takes pmix_nspace_t (a 256-byte array): never a short literal. */
static char *NS(const char *name)
{
    static pmix_nspace_t slots[8];
    static unsigned next;
    char *s = slots[next++ % 8];
    PMIX_LOAD_NSPACE(s, name);
    return s;
}

static void make_sysdir(void)
{
    snprintf(sysdir, sizeof sysdir, "/tmp/sy-srvtest-XXXXXX");
    assert_non_null(mkdtemp(sysdir));
}

static unsigned count_entries(const char *path)
{
    DIR *d = opendir(path);
    if (d == NULL)
        return 0;
    unsigned n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static char *env_get(char **env, const char *name)
{
    size_t l = strlen(name);
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], name, l) == 0 && env[i][l] == '=')
            return env[i] + l + 1;
    return NULL;
}

static void env_free(char **env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
}

/* ---- waiting for op callbacks ---- */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int fired;
    pmix_status_t status;
} waiter_t;

static void waiter_init(waiter_t *w)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->fired = 0;
    w->status = PMIX_ERROR;
}

static void op_done(pmix_status_t status, void *cbdata)
{
    waiter_t *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->fired++;
    w->status = status;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static pmix_status_t waiter_wait(waiter_t *w)
{
    pthread_mutex_lock(&w->lock);
    for (int i = 0; i < 1000 && w->fired == 0; i++) {
        pthread_mutex_unlock(&w->lock);
        usleep(10000);
        pthread_mutex_lock(&w->lock);
    }
    pmix_status_t st = w->fired == 1 ? w->status : PMIX_ERR_TIMEOUT;
    pthread_mutex_unlock(&w->lock);
    usleep(20000); /* a second firing would show now */
    assert_int_equal(w->fired, 1);
    return st;
}

/* ---- init / finalize ---- */

static void test_default_tmpdir(void **state)
{
    (void)state;
    make_sysdir();
    pmix_info_t info[1];
    PMIX_INFO_LOAD(&info[0], PMIX_SYSTEM_TMPDIR, sysdir, PMIX_STRING);
    assert_int_equal(PMIx_server_init(NULL, info, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info[0]);
    /* a private 0700 dir with our socket, rendezvous and resources files */
    DIR *d = opendir(sysdir);
    assert_non_null(d);
    struct dirent *e;
    char made[512] = "";
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "switchyard.", 11) == 0)
            snprintf(made, sizeof made, "%s/%s", sysdir, e->d_name);
    closedir(d);
    assert_true(made[0] != '\0');
    struct stat st;
    assert_int_equal(stat(made, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_true(count_entries(made) >= 3);

    char rdv[600], line[512];
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    snprintf(rdv, sizeof rdv, "%s/pmix.%s.tool.%ld", made, host, (long)getpid());
    FILE *f = fopen(rdv, "r");
    assert_non_null(f);
    bool pid_seen = false, uri_seen = false;
    while (fgets(line, sizeof line, f) != NULL) {
        long pid;
        if (sscanf(line, "pid:%ld", &pid) == 1 && pid == (long)getpid())
            pid_seen = true;
        if (strstr(line, ";tcp4://127.0.0.1:") != NULL)
            uri_seen = true;
    }
    fclose(f);
    assert_true(pid_seen);
    assert_true(uri_seen);

    /* reference counted */
    assert_int_equal(PMIx_server_init(NULL, NULL, 0), PMIX_SUCCESS);
    assert_int_equal(PMIx_server_finalize(), PMIX_SUCCESS);
    assert_int_equal(stat(made, &st), 0);
    assert_int_equal(PMIx_server_finalize(), PMIX_SUCCESS);
    assert_int_not_equal(stat(made, &st), 0);
    assert_int_equal(PMIx_server_finalize(), PMIX_ERR_INIT);
    assert_int_equal(count_entries(sysdir), 0);
    rmdir(sysdir);
}

/* A host that answers a query of the server's own process after
 * PMIx_server_finalize: the caller's callback still fires, with the answer. */
static pmix_info_cbfunc_t held_query_cb;
static void *held_query_cbdata;

static pmix_status_t hold_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                                pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)proct;
    (void)queries;
    (void)nqueries;
    held_query_cbdata = cbdata;
    /* last: the test thread waits for it (and then reads the cbdata) */
    __atomic_store_n(&held_query_cb, cbfunc, __ATOMIC_RELEASE);
    return PMIX_SUCCESS;
}

typedef struct {
    waiter_t w;
    size_t ninfo;
    char value[32];
} query_answer_t;

static void query_answered(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                           pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    query_answer_t *a = cbdata;
    a->ninfo = ninfo;
    if (ninfo == 1 && info[0].value.type == PMIX_STRING)
        snprintf(a->value, sizeof a->value, "%s", info[0].value.data.string);
    if (release_fn != NULL)
        release_fn(release_cbdata);
    op_done(status, &a->w);
}

static void test_query_answered_after_finalize(void **state)
{
    (void)state;
    make_sysdir();
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.query = hold_query;
    pmix_info_t info[1];
    PMIX_INFO_LOAD(&info[0], PMIX_SYSTEM_TMPDIR, sysdir, PMIX_STRING);
    assert_int_equal(PMIx_server_init(&module, info, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info[0]);
    held_query_cb = NULL;
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {PMIX_QUERY_QUEUE_STATUS, NULL};
    q.keys = keys;
    query_answer_t a;
    memset(&a, 0, sizeof a);
    waiter_init(&a.w);
    assert_int_equal(PMIx_Query_info_nb(&q, 1, query_answered, &a), PMIX_SUCCESS);
    for (int i = 0; i < 1000 && __atomic_load_n(&held_query_cb, __ATOMIC_ACQUIRE) == NULL; i++)
        usleep(10000);
    assert_non_null(held_query_cb);
    assert_int_equal(PMIx_server_finalize(), PMIX_SUCCESS);
    pmix_info_t answer;
    PMIX_INFO_LOAD(&answer, PMIX_QUERY_QUEUE_STATUS, "running", PMIX_STRING);
    held_query_cb(PMIX_SUCCESS, &answer, 1, held_query_cbdata, NULL, NULL);
    PMIX_INFO_DESTRUCT(&answer);
    assert_int_equal(waiter_wait(&a.w), PMIX_SUCCESS);
    assert_int_equal(a.ninfo, 1);
    assert_string_equal(a.value, "running");
    assert_int_equal(count_entries(sysdir), 0);
    rmdir(sysdir);
}

static void test_bad_attributes(void **state)
{
    (void)state;
    make_sysdir();
    pmix_info_t info[3];
    PMIX_INFO_LOAD(&info[0], PMIX_SYSTEM_TMPDIR, sysdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SOCKET_MODE, "0600", PMIX_STRING);
    assert_int_equal(PMIx_server_init(NULL, info, 2), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_DESTRUCT(&info[1]);

    bool yes = true;
    PMIX_INFO_LOAD(&info[1], PMIX_USOCK_DISABLE, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[2], PMIX_TCP_DISABLE_IPV4, &yes, PMIX_BOOL);
    assert_int_equal(PMIx_server_init(NULL, info, 3), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_DESTRUCT(&info[1]);
    PMIX_INFO_DESTRUCT(&info[2]);

    PMIX_INFO_LOAD(&info[1], "sy.test.unknown", &yes, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&info[1]);
    assert_int_equal(PMIx_server_init(NULL, info, 2), PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&info[1]);
    PMIX_INFO_DESTRUCT(&info[0]);
    assert_int_equal(count_entries(sysdir), 0);
    rmdir(sysdir);
}

static void test_system_support_unique(void **state)
{
    (void)state;
    make_sysdir();
    bool yes = true;
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_SYSTEM_TMPDIR, sysdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_SYSTEM_SUPPORT, &yes, PMIX_BOOL);
    /* The second would-be system server is a child forked before our init,
     * so that it starts from a clean library state. */
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) != 1)
            _exit(2);
        pmix_status_t rc = PMIx_server_init(NULL, info, 2);
        if (rc == PMIX_SUCCESS)
            PMIx_server_finalize();
        _exit(rc == PMIX_ERR_INIT ? 0 : 1);
    }
    close(go[0]);
    assert_int_equal(PMIx_server_init(NULL, info, 2), PMIX_SUCCESS);
    char host[256] = "", path[600];
    gethostname(host, sizeof host - 1);
    snprintf(path, sizeof path, "%s/pmix.sys.%s", sysdir, host);
    assert_int_equal(access(path, R_OK), 0);
    assert_int_equal(write(go[1], "x", 1), 1);
    close(go[1]);
    int status = 0;
    waitpid(pid, &status, 0);
    assert_int_equal(PMIx_server_finalize(), PMIX_SUCCESS);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_not_equal(access(path, R_OK), 0);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    assert_int_equal(count_entries(sysdir), 0);
    rmdir(sysdir);
}

/* PMIX_EXTERNAL_PROGRESS: no thread; callbacks come from PMIx_Progress(),
 * and a blocking call drives the loop itself. */
static void test_external_progress(void **state)
{
    (void)state;
    make_sysdir();
    bool yes = true;
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_SYSTEM_TMPDIR, sysdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_EXTERNAL_PROGRESS, &yes, PMIX_BOOL);
    assert_int_equal(PMIx_server_init(NULL, info, 2), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    waiter_t w;
    waiter_init(&w);
    assert_int_equal(PMIx_server_register_nspace(NS("ext-a"), 0, NULL, 0, op_done, &w),
                     PMIX_SUCCESS);
    usleep(20000);
    assert_int_equal(w.fired, 0); /* nobody progressed the loop yet */
    for (int i = 0; i < 1000 && w.fired == 0; i++)
        PMIx_Progress();
    assert_int_equal(w.fired, 1);
    assert_int_equal(w.status, PMIX_SUCCESS);
    assert_int_equal(PMIx_server_register_nspace(NS("ext-b"), 0, NULL, 0, NULL, NULL),
                     PMIX_SUCCESS);
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, "ext-b", PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    assert_int_equal(PMIx_Get(&wild, PMIX_NSPACE, NULL, 0, &v), PMIX_SUCCESS);
    assert_int_equal(v->type, PMIX_STRING);
    assert_string_equal(v->data.string, "ext-b");
    PMIX_VALUE_RELEASE(v);
    assert_int_equal(PMIx_server_finalize(), PMIX_SUCCESS);
    assert_int_equal(count_entries(sysdir), 0);
    rmdir(sysdir);
}

/* ---- a running server for the remaining tests ---- */

static int objects[4];
static int connected2_calls;
static void *connected2_object;

static pmix_status_t on_connected2(const pmix_proc_t *proc, void *server_object, pmix_info_t info[],
                                   size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    (void)info;
    (void)ninfo;
    __atomic_add_fetch(&connected2_calls, 1, __ATOMIC_SEQ_CST);
    connected2_object = server_object;
    cbfunc(PMIX_SUCCESS, cbdata); /* before returning, as hosts may */
    return PMIX_SUCCESS;
}

static int server_up(void **state)
{
    (void)state;
    make_sysdir();
    static pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.client_connected2 = on_connected2;
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, sysdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_NSPACE, "srv-test", PMIX_STRING);
    pmix_status_t rc = PMIx_server_init(&module, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    return rc == PMIX_SUCCESS ? 0 : -1;
}

static int left_open[2] = {-1, -1};

static int server_down(void **state)
{
    (void)state;
    pmix_status_t rc = PMIx_server_finalize();
    for (int i = 0; i < 2; i++)
        if (left_open[i] >= 0)
            close(left_open[i]);
    unsigned left = count_entries(sysdir);
    rmdir(sysdir);
    return rc == PMIX_SUCCESS && left == 0 ? 0 : -1;
}

static void test_setup_fork(void **state)
{
    (void)state;
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "job-env", 3);
    char **env = NULL;
    assert_int_equal(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
    assert_non_null(env);
    assert_string_equal(env_get(env, "PMIX_NAMESPACE"), "job-env");
    assert_string_equal(env_get(env, "PMIX_RANK"), "3");
    assert_non_null(env_get(env, "SWITCHYARD_USOCK"));
    assert_non_null(env_get(env, "PMIX_SERVER_URI41"));
    assert_string_equal(env_get(env, "PMIX_SERVER_URI41"), env_get(env, "PMIX_SERVER_URI2"));
    assert_int_equal(strlen(env_get(env, "SWITCHYARD_TOKEN")), 32);
    for (size_t i = 0; env[i] != NULL; i++)
        assert_null(strchr(env[i], '*'));
    char *token = strdup(env_get(env, "SWITCHYARD_TOKEN"));

    /* an existing entry is replaced, not duplicated; the token is stable */
    PMIX_LOAD_PROCID(&p, "job-env", 4);
    assert_int_equal(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
    size_t nrank = 0;
    for (size_t i = 0; env[i] != NULL; i++)
        nrank += strncmp(env[i], "PMIX_RANK=", 10) == 0;
    assert_int_equal(nrank, 1);
    assert_string_equal(env_get(env, "PMIX_RANK"), "4");
    assert_string_not_equal(env_get(env, "SWITCHYARD_TOKEN"), token);
    env_free(env);
    env = NULL;
    PMIX_LOAD_PROCID(&p, "job-env", 3);
    assert_int_equal(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
    assert_string_equal(env_get(env, "SWITCHYARD_TOKEN"), token);
    env_free(env);
    free(token);
    assert_int_equal(PMIx_server_setup_fork(NULL, &env), PMIX_ERR_BAD_PARAM);
}

static pmix_info_t *small_job(size_t *n)
{
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, 3);
    uint32_t size = 2;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_NODE_MAP, host, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_PROC_MAP, "0,1", PMIX_STRING);
    *n = 3;
    return info;
}

static void test_register_and_get(void **state)
{
    (void)state;
    size_t n;
    pmix_info_t *info = small_job(&n);
    waiter_t w;
    waiter_init(&w);
    assert_int_equal(PMIx_server_register_nspace(NS("job-a"), 2, info, n, op_done, &w),
                     PMIX_SUCCESS);
    assert_int_equal(waiter_wait(&w), PMIX_SUCCESS);
    /* blocking variant */
    assert_int_equal(PMIx_server_register_nspace(NS("job-b"), 2, info, n, NULL, NULL),
                     PMIX_SUCCESS);
    PMIX_INFO_FREE(info, n);

    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, "job-a", PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    assert_int_equal(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_SUCCESS);
    assert_int_equal(v->type, PMIX_UINT32);
    assert_int_equal(v->data.uint32, 2);
    PMIX_VALUE_RELEASE(v);
    pmix_proc_t r1;
    PMIX_LOAD_PROCID(&r1, "job-b", 1);
    assert_int_equal(PMIx_Get(&r1, PMIX_LOCAL_RANK, NULL, 0, &v), PMIX_SUCCESS);
    assert_int_equal(v->type, PMIX_UINT16);
    assert_int_equal(v->data.uint16, 1);
    PMIX_VALUE_RELEASE(v);

    /* bad input is refused with no callback */
    assert_int_equal(PMIx_server_register_nspace(NULL, 1, NULL, 0, op_done, &w),
                     PMIX_ERR_BAD_PARAM);
    pmix_info_t bad;
    PMIX_INFO_LOAD(&bad, PMIX_JOB_SIZE, "two", PMIX_STRING);
    waiter_init(&w);
    assert_int_equal(PMIx_server_register_nspace(NS("job-c"), 1, &bad, 1, op_done, &w),
                     PMIX_SUCCESS);
    assert_int_not_equal(waiter_wait(&w), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&bad);

    waiter_init(&w);
    PMIx_server_deregister_nspace(NS("job-a"), op_done, &w);
    assert_int_equal(waiter_wait(&w), PMIX_SUCCESS);
    PMIx_server_deregister_nspace(NS("job-b"), NULL, NULL);
    assert_int_equal(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_ERR_NOT_FOUND);
}

/* ---- raw handshakes ---- */

static void send_frame(int fd, uint32_t tag, const pmix_data_buffer_t *b)
{
    uint8_t hdr[SY_FRAME_HEADER_SIZE];
    sy_frame_header_encode(hdr, tag, 0, (uint32_t)b->bytes_used);
    assert_int_equal(write(fd, hdr, sizeof hdr), (ssize_t)sizeof hdr);
    if (b->bytes_used > 0)
        assert_int_equal(write(fd, b->base_ptr, b->bytes_used), (ssize_t)b->bytes_used);
}

static void pack_hello(pmix_data_buffer_t *b, const char *nspace, pmix_rank_t rank,
                       const char *token)
{
    memset(b, 0, sizeof *b);
    uint8_t cmd = SY_CMD_HELLO, kind = SY_PEER_CLIENT;
    const char *proto = SY_WIRE_PROTOCOL;
    uint32_t ver = SY_WIRE_VERSION;
    pmix_proc_t me;
    PMIX_LOAD_PROCID(&me, nspace, rank);
    pid_t pid = getpid();
    size_t n = 0;
    assert_int_equal(sy_pack(b, &cmd, 1, PMIX_UINT8), PMIX_SUCCESS);
    assert_int_equal(sy_pack(b, &proto, 1, PMIX_STRING), PMIX_SUCCESS);
    assert_int_equal(sy_pack(b, &ver, 1, PMIX_UINT32), PMIX_SUCCESS);
    assert_int_equal(sy_pack(b, &kind, 1, PMIX_UINT8), PMIX_SUCCESS);
    assert_int_equal(sy_pack(b, &me, 1, PMIX_PROC), PMIX_SUCCESS);
    assert_int_equal(sy_pack(b, &pid, 1, PMIX_PID), PMIX_SUCCESS);
    assert_int_equal(sy_pack(b, &token, 1, PMIX_STRING), PMIX_SUCCESS);
    assert_int_equal(sy_pack(b, &n, 1, PMIX_SIZE), PMIX_SUCCESS);
}

static bool read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 10000) <= 0)
            return false;
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r <= 0)
            return false;
        got += (size_t)r;
    }
    return true;
}

/* The status of the reply to `tag`, or PMIX_ERR_LOST_CONNECTION at EOF. */
static pmix_status_t read_reply(int fd, uint32_t tag, pmix_data_buffer_t *rest)
{
    uint8_t hdr[SY_FRAME_HEADER_SIZE];
    if (!read_full(fd, hdr, sizeof hdr))
        return PMIX_ERR_LOST_CONNECTION;
    uint32_t len = (uint32_t)hdr[12] | (uint32_t)hdr[13] << 8 | (uint32_t)hdr[14] << 16 |
                   (uint32_t)hdr[15] << 24;
    uint32_t rtag = (uint32_t)hdr[8] | (uint32_t)hdr[9] << 8 | (uint32_t)hdr[10] << 16 |
                    (uint32_t)hdr[11] << 24;
    assert_int_equal(rtag, tag);
    char *body = malloc(len);
    assert_true(read_full(fd, body, len));
    pmix_data_buffer_t b = {0};
    b.base_ptr = b.unpack_ptr = body;
    b.pack_ptr = body + len;
    b.bytes_used = b.bytes_allocated = len;
    pmix_status_t st;
    int32_t one = 1;
    assert_int_equal(sy_unpack(&b, &st, &one, PMIX_STATUS), PMIX_SUCCESS);
    if (rest != NULL)
        *rest = b;
    else
        sy_buffer_destruct(&b);
    return st;
}

static bool hung_up(int fd)
{
    char c;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 10000) == 1 && read(fd, &c, 1) <= 0;
}

static int dial_unix(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/pmix-%ld.sock", sysdir, (long)getpid());
    int fd = -1;
    assert_int_equal(sy_usock_connect(path, &fd), PMIX_SUCCESS);
    return fd;
}

static void test_handshakes(void **state)
{
    (void)state;
    size_t n;
    pmix_info_t *info = small_job(&n);
    assert_int_equal(PMIx_server_register_nspace(NS("job-h"), 2, info, n, NULL, NULL),
                     PMIX_SUCCESS);
    PMIX_INFO_FREE(info, n);
    pmix_proc_t p0;
    PMIX_LOAD_PROCID(&p0, "job-h", 0);
    assert_int_equal(PMIx_server_register_client(&p0, getuid(), getgid(), &objects[0], NULL, NULL),
                     PMIX_SUCCESS);
    pmix_proc_t p1;
    PMIX_LOAD_PROCID(&p1, "job-h", 1);
    assert_int_equal(PMIx_server_register_client(&p1, getuid(), getgid(), &objects[1], NULL, NULL),
                     PMIX_SUCCESS);

    /* unknown rank: refused with a reason, then EOF */
    int bad = dial_unix();
    pmix_data_buffer_t b;
    pack_hello(&b, "job-h", 7, NULL);
    send_frame(bad, 1, &b);
    sy_buffer_destruct(&b);
    pmix_data_buffer_t rest;
    assert_int_equal(read_reply(bad, 1, &rest), PMIX_ERR_NOT_FOUND);
    sy_wire_hello_rep_t hr;
    assert_int_equal(sy_wire_hello_rep_unpack(&sy_wire_native, &rest, &hr), PMIX_SUCCESS);
    assert_non_null(hr.reason);
    sy_wire_hello_rep_free(&hr);
    sy_buffer_destruct(&rest);
    assert_true(hung_up(bad));
    close(bad);

    /* garbage: hung up on */
    bad = dial_unix();
    char junk[64];
    memset(junk, 0x5a, sizeof junk);
    assert_int_equal(write(bad, junk, sizeof junk), (ssize_t)sizeof junk);
    assert_true(hung_up(bad));
    close(bad);

    /* a good client, while the others were refused */
    int good = dial_unix();
    pack_hello(&b, "job-h", 0, NULL);
    send_frame(good, 1, &b);
    sy_buffer_destruct(&b);
    assert_int_equal(read_reply(good, 1, &rest), PMIX_SUCCESS);
    assert_int_equal(sy_wire_hello_rep_unpack(&sy_wire_native, &rest, &hr), PMIX_SUCCESS);
    assert_null(hr.reason);
    assert_string_equal(hr.server.nspace, "srv-test");
    assert_string_equal(hr.assigned.nspace, "job-h");
    sy_wire_hello_rep_free(&hr);
    sy_buffer_destruct(&rest);
    assert_int_equal(connected2_calls, 1);
    assert_ptr_equal(connected2_object, &objects[0]);

    /* the same process cannot connect twice */
    int twice = dial_unix();
    pack_hello(&b, "job-h", 0, NULL);
    send_frame(twice, 1, &b);
    sy_buffer_destruct(&b);
    assert_int_equal(read_reply(twice, 1, NULL), PMIX_EXISTS);
    close(twice);

    /* unknown command: not supported, connection kept; then JOBSEG */
    memset(&b, 0, sizeof b);
    uint8_t cmd = 200;
    sy_pack(&b, &cmd, 1, PMIX_UINT8);
    send_frame(good, 2, &b);
    sy_buffer_destruct(&b);
    assert_int_equal(read_reply(good, 2, NULL), PMIX_ERR_NOT_SUPPORTED);
    memset(&b, 0, sizeof b);
    cmd = SY_CMD_JOBSEG;
    const char *ns = "nope";
    sy_pack(&b, &cmd, 1, PMIX_UINT8);
    sy_pack(&b, &ns, 1, PMIX_STRING);
    send_frame(good, 3, &b);
    sy_buffer_destruct(&b);
    assert_int_equal(read_reply(good, 3, NULL), PMIX_ERR_NOT_FOUND);

    /* a second HELLO ends the connection */
    pack_hello(&b, "job-h", 0, NULL);
    send_frame(good, 4, &b);
    sy_buffer_destruct(&b);
    assert_int_equal(read_reply(good, 4, NULL), PMIX_ERR_BAD_PARAM);
    assert_true(hung_up(good));
    close(good);

    /* TCP: the token decides */
    char **env = NULL;
    assert_int_equal(PMIx_server_setup_fork(&p1, &env), PMIX_SUCCESS);
    const char *uri = env_get(env, "PMIX_SERVER_URI41");
    const char *port = strrchr(uri, ':');
    assert_non_null(port);
    int tcp = -1;
    assert_int_equal(sy_tcp_connect("127.0.0.1", atoi(port + 1), &tcp), PMIX_SUCCESS);
    pack_hello(&b, "job-h", 1, NULL);
    send_frame(tcp, 1, &b);
    sy_buffer_destruct(&b);
    assert_int_equal(read_reply(tcp, 1, NULL), PMIX_ERR_NO_PERMISSIONS);
    close(tcp);
    assert_int_equal(sy_tcp_connect("127.0.0.1", atoi(port + 1), &tcp), PMIX_SUCCESS);
    pack_hello(&b, "job-h", 1, env_get(env, "SWITCHYARD_TOKEN"));
    send_frame(tcp, 1, &b);
    sy_buffer_destruct(&b);
    assert_int_equal(read_reply(tcp, 1, NULL), PMIX_SUCCESS);
    assert_int_equal(connected2_calls, 2);
    env_free(env);
    /* left open on purpose: finalize must not wait for these peers */
    left_open[0] = tcp;
    left_open[1] = dial_unix();

    PMIx_server_deregister_client(&p0, NULL, NULL);
    PMIx_server_deregister_client(&p1, NULL, NULL);
    PMIx_server_deregister_nspace(NS("job-h"), NULL, NULL);
}

static void test_resources(void **state)
{
    (void)state;
    pmix_info_t node[2];
    uint32_t id = 7;
    uint64_t mem = 123456;
    PMIX_INFO_LOAD(&node[0], PMIX_HOSTNAME, "far-node", PMIX_STRING);
    PMIX_INFO_LOAD(&node[1], PMIX_AVAIL_PHYS_MEMORY, &mem, PMIX_UINT64);
    pmix_info_t res;
    pmix_data_array_t arr = {.type = PMIX_INFO, .size = 2, .array = node};
    PMIX_INFO_LOAD(&res, PMIX_NODE_INFO_ARRAY, &arr, PMIX_DATA_ARRAY);
    waiter_t w;
    waiter_init(&w);
    assert_int_equal(PMIx_server_register_resources(&res, 1, op_done, &w), PMIX_SUCCESS);
    assert_int_equal(waiter_wait(&w), PMIX_SUCCESS);
    (void)id;

    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, "", PMIX_RANK_WILDCARD);
    pmix_info_t q[2];
    PMIX_INFO_LOAD(&q[0], PMIX_NODE_INFO, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&q[1], PMIX_HOSTNAME, "far-node", PMIX_STRING);
    pmix_value_t *v = NULL;
    assert_int_equal(PMIx_Get(&wild, PMIX_AVAIL_PHYS_MEMORY, q, 2, &v), PMIX_SUCCESS);
    assert_int_equal(v->type, PMIX_UINT64);
    assert_int_equal(v->data.uint64, mem);
    PMIX_VALUE_RELEASE(v);

    /* deregistering the node removes its data */
    pmix_info_t gone;
    pmix_data_array_t garr = {.type = PMIX_INFO, .size = 1, .array = node};
    PMIX_INFO_LOAD(&gone, PMIX_NODE_INFO_ARRAY, &garr, PMIX_DATA_ARRAY);
    assert_int_equal(PMIx_server_deregister_resources(&gone, 1, NULL, NULL), PMIX_SUCCESS);
    assert_int_equal(PMIx_Get(&wild, PMIX_AVAIL_PHYS_MEMORY, q, 2, &v), PMIX_ERR_NOT_FOUND);
    PMIX_INFO_DESTRUCT(&gone);
    PMIX_INFO_DESTRUCT(&res);
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
    PMIX_INFO_DESTRUCT(&node[0]);
    PMIX_INFO_DESTRUCT(&node[1]);
}

int main(void)
{
    const struct CMUnitTest lifecycle[] = {
        cmocka_unit_test(test_default_tmpdir),
        cmocka_unit_test(test_bad_attributes),
        cmocka_unit_test(test_system_support_unique),
        cmocka_unit_test(test_external_progress),
        cmocka_unit_test(test_query_answered_after_finalize),
    };
    const struct CMUnitTest running[] = {
        cmocka_unit_test(test_setup_fork),
        cmocka_unit_test(test_register_and_get),
        cmocka_unit_test(test_handshakes),
        cmocka_unit_test(test_resources),
    };
    int failed = cmocka_run_group_tests_name("server lifecycle", lifecycle, NULL, NULL);
    failed += cmocka_run_group_tests_name("running server", running, server_up, server_down);
    return failed;
}
