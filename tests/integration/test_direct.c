/* The client's direct channel (src/common/wire.h): blocking modex requests
 * whose replies the requesting thread reads itself.
 *
 * The host (this program) inits a server, registers a job of two local
 * ranks and forks/execs itself twice as the clients.
 *   - Once both are connected, the host (another process than rank 0)
 *     opens a connection to the server's socket and asks for rank 0's
 *     direct channel: refused (PMIX_ERR_NO_PERMISSIONS), the server stays
 *     up.  The same for a rank that is not connected.
 *   - Rank 0: one thread waits in a Get of a key no rank has posted yet
 *     (PMIX_RANK_UNDEF: held by the server), which holds the direct
 *     channel; meanwhile the main thread Puts, Commits and Fences with
 *     PMIX_COLLECT_DATA over the connection and reads rank 1's data.
 *     Rank 1 Puts/Commits/Fences, then posts the awaited key: the held Get
 *     returns it, attributed to rank 1.
 *   - Both ranks then run, from two threads at once, 200 blocking fences
 *     and 200 Gets of the peer's key that must ask the server
 *     (PMIX_GET_REFRESH_CACHE): every one succeeds with the right value,
 *     whichever channel it took.
 * Exit status 0 when all held. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "forkhost.h"

static const char *who = "host";
static int failures;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(test_direct %s): ", who);                                            \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

/* ---------------- client ---------------- */

static pmix_proc_t me;

static void *held_get(void *arg)
{
    pmix_status_t *out = arg;
    pmix_proc_t any;
    PMIX_LOAD_PROCID(&any, me.nspace, PMIX_RANK_UNDEF);
    pmix_value_t *v = NULL;
    pmix_info_t t;
    int secs = 60;
    PMIX_INFO_LOAD(&t, PMIX_TIMEOUT, &secs, PMIX_INT);
    *out = PMIx_Get(&any, "direct.late", &t, 1, &v);
    PMIX_INFO_DESTRUCT(&t);
    if (*out == PMIX_SUCCESS &&
        (v == NULL || v->type != PMIX_STRING || strcmp(v->data.string, "late-value") != 0))
        *out = PMIX_ERR_BAD_PARAM;
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    return NULL;
}

static void put_commit(const char *key, const char *val)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, val, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        FAIL("put/commit %s: %s", key, PMIx_Error_string(rc));
}

static void fence_collect(void)
{
    pmix_info_t c;
    bool yes = true;
    PMIX_INFO_LOAD(&c, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, &c, 1);
    PMIX_INFO_DESTRUCT(&c);
    if (rc != PMIX_SUCCESS)
        FAIL("fence: %s", PMIx_Error_string(rc));
}

static void *fences(void *arg)
{
    int *bad = arg;
    for (int i = 0; i < 200; i++)
        if (PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS)
            (*bad)++;
    return NULL;
}

static void *refreshing_gets(void *arg)
{
    int *bad = arg;
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, 1 - me.rank);
    char key[32], val[32];
    snprintf(key, sizeof key, "direct.r%u", 1 - me.rank);
    snprintf(val, sizeof val, "value-%u", 1 - me.rank);
    pmix_info_t r;
    bool yes = true;
    PMIX_INFO_LOAD(&r, PMIX_GET_REFRESH_CACHE, &yes, PMIX_BOOL);
    for (int i = 0; i < 200; i++) {
        pmix_value_t *v = NULL;
        if (PMIx_Get(&peer, key, &r, 1, &v) != PMIX_SUCCESS || v == NULL ||
            v->type != PMIX_STRING || strcmp(v->data.string, val) != 0)
            (*bad)++;
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&r);
    return NULL;
}

static int client(const char *barrier)
{
    fh_step_t s;
    if (fh_step_parse(barrier, &s) != 0)
        return 2;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_Init: %s", PMIx_Error_string(rc));
        return 1;
    }
    static char name[32];
    snprintf(name, sizeof(name), "rank %u", me.rank);
    who = name;
    if (fh_step(&s) != 0) /* the host tried to steal our channel */
        return 2;
    pmix_status_t held = PMIX_ERROR;
    pthread_t t;
    if (me.rank == 0) {
        if (pthread_create(&t, NULL, held_get, &held) != 0)
            return 2;
        usleep(100000); /* let it take the direct channel first */
    }
    char key[32], val[32];
    snprintf(key, sizeof key, "direct.r%u", me.rank);
    snprintf(val, sizeof val, "value-%u", me.rank);
    put_commit(key, val);
    fence_collect();
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, 1 - me.rank);
    pmix_value_t *v = NULL;
    snprintf(key, sizeof key, "direct.r%u", 1 - me.rank);
    snprintf(val, sizeof val, "value-%u", 1 - me.rank);
    rc = PMIx_Get(&peer, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_STRING ||
        strcmp(v->data.string, val) != 0)
        FAIL("Get of %s: %s", key, PMIx_Error_string(rc));
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    if (me.rank == 1)
        put_commit("direct.late", "late-value");
    if (me.rank == 0) {
        pthread_join(t, NULL);
        if (held != PMIX_SUCCESS)
            FAIL("the held Get: %s", PMIx_Error_string(held));
    }
    int bad[2] = {0, 0};
    pthread_t f[2];
    pthread_create(&f[0], NULL, fences, &bad[0]);
    pthread_create(&f[1], NULL, refreshing_gets, &bad[1]);
    for (int i = 0; i < 2; i++)
        pthread_join(f[i], NULL);
    if (bad[0] != 0 || bad[1] != 0)
        FAIL("of 200 fences %d failed, of 200 Gets %d", bad[0], bad[1]);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("finalize: %s", PMIx_Error_string(rc));
    return failures == 0 ? 0 : 4;
}

/* ---------------- host ---------------- */

static void put_le(uint8_t *p, uint32_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Ask the server at `sock` for the direct channel of `proc` from this
 * process, with the public pack API for the body; the status it answers. */
static pmix_status_t steal_channel(const char *sock, const pmix_proc_t *proc)
{
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    uint8_t cmd = 1, kind = 1; /* HELLO, a client */
    const char *proto = "switchyard", *token = NULL;
    uint32_t version = 2; /* SY_WIRE_VERSION */
    pid_t pid = getpid();
    size_t n = 1;
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, "switchyard.direct", &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Data_pack(NULL, &b, &cmd, 1, PMIX_UINT8);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &proto, 1, PMIX_STRING);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &version, 1, PMIX_UINT32);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, (void *)proc, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &pid, 1, PMIX_PID);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &token, 1, PMIX_STRING);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &n, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &info, 1, PMIX_INFO);
    PMIX_INFO_DESTRUCT(&info);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
    if (rc != PMIX_SUCCESS || fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        FAIL("cannot talk to the server at %s", sock);
        if (fd >= 0)
            close(fd);
        PMIX_DATA_BUFFER_DESTRUCT(&b);
        return PMIX_ERROR;
    }
    uint8_t hdr[16];
    memcpy(hdr, "SYW1", 4);
    put_le(hdr + 4, 1, 2); /* version */
    put_le(hdr + 6, 0, 2); /* flags */
    put_le(hdr + 8, 1, 4); /* tag */
    put_le(hdr + 12, (uint32_t)b.bytes_used, 4);
    pmix_status_t answer = PMIX_ERROR;
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (write(fd, hdr, 16) == 16 && write(fd, b.base_ptr, b.bytes_used) == (ssize_t)b.bytes_used) {
        uint8_t rh[16];
        if (recv(fd, rh, 16, MSG_WAITALL) == 16) {
            uint32_t len = (uint32_t)rh[12] | (uint32_t)rh[13] << 8 | (uint32_t)rh[14] << 16 |
                           (uint32_t)rh[15] << 24;
            char *body = len > 0 && len < 65536 ? malloc(len) : NULL;
            if (body != NULL && recv(fd, body, len, MSG_WAITALL) == (ssize_t)len) {
                pmix_data_buffer_t r;
                PMIX_DATA_BUFFER_CONSTRUCT(&r);
                PMIX_DATA_BUFFER_LOAD(&r, body, len);
                body = NULL;
                int32_t one = 1;
                if (PMIx_Data_unpack(NULL, &r, &answer, &one, PMIX_STATUS) != PMIX_SUCCESS)
                    answer = PMIX_ERROR;
                PMIX_DATA_BUFFER_DESTRUCT(&r);
            }
            free(body);
        }
    }
    close(fd);
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    return answer;
}

/* The server's socket for clients, from the environment setup_fork gives. */
static void server_socket(const pmix_proc_t *p, char *sock, size_t len)
{
    char **env = NULL;
    sock[0] = '\0';
    if (PMIx_server_setup_fork(p, &env) != PMIX_SUCCESS)
        return;
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        if (strncmp(env[i], "SWITCHYARD_USOCK=", 17) == 0)
            snprintf(sock, len, "%s", env[i] + 17);
        free(env[i]);
    }
    free(env);
}

static int host(void)
{
    char tmpdir[] = "/tmp/sy-direct-XXXXXX";
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    pmix_status_t rc = fh_server_init(&module, tmpdir);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_server_init: %s", PMIx_Error_string(rc));
        return 1;
    }
    const char *nspace = "direct";
    rc = fh_register_job(nspace, 2);
    if (rc != PMIX_SUCCESS) {
        FAIL("registering the job: %s", PMIx_Error_string(rc));
        return 1;
    }
    fh_barrier_t b;
    char *args[] = {"client", NULL};
    pid_t pids[2];
    if (fh_start_job(nspace, 2, args, &b, pids) != 0) {
        FAIL("cannot start the clients");
        return 1;
    }
    if (fh_barrier_gather(&b, 2, -1) != 2)
        FAIL("a client vanished");
    /* both connected: a channel for rank 0 from this process */
    pmix_proc_t p0, p7;
    PMIX_LOAD_PROCID(&p0, nspace, 0);
    PMIX_LOAD_PROCID(&p7, nspace, 7);
    char sock[4096];
    server_socket(&p0, sock, sizeof sock);
    if (sock[0] == '\0')
        FAIL("setup_fork gave no SWITCHYARD_USOCK");
    else {
        pmix_status_t a = steal_channel(sock, &p0);
        if (a != PMIX_ERR_NO_PERMISSIONS)
            FAIL("another process got rank 0's direct channel: %s", PMIx_Error_string(a));
        a = steal_channel(sock, &p7);
        if (a == PMIX_SUCCESS)
            FAIL("a direct channel for a rank that is not connected");
    }
    if (fh_barrier_release(&b, 2) != 0)
        FAIL("cannot release the clients");
    for (int i = 0; i < 2; i++) {
        int st;
        waitpid(pids[i], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            FAIL("rank %d failed (status %d)", i, st);
    }
    fh_barrier_close(&b);
    fh_deregister_job(nspace, 2);
    rc = fh_server_finalize(tmpdir);
    if (rc != PMIX_SUCCESS)
        FAIL("server finalize: %s", PMIx_Error_string(rc));
    return failures == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "client") == 0)
        return client(argv[2]);
    int rc = host();
    if (rc == 0)
        printf("test_direct: ok\n");
    return rc;
}
