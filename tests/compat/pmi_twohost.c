/* Two node daemons on this machine, for tests/compat/pmi-remote.sh: a
 * host written against the public server API forks itself into "node-a"
 * and "node-b" (PMIx_server_init with PMIX_HOSTNAME and
 * SWITCHYARD_SERVER_PMI), each serving 2 ranks of one 4-rank job whose
 * ranks run CLIENT ARGS... with setup_fork's environment (PMI_FD).  The
 * two hosts talk over a socketpair, as node daemons over their network:
 *   - fence_nb: a barrier between the two nodes that carries no data (as
 *     a host whose data collection is off), so every key of the other
 *     node comes by direct modex;
 *   - direct_modex: forwarded to the other daemon, which answers with its
 *     PMIx_server_dmodex_request.
 *   pmi_twohost CLIENT [ARGS...]
 * Prints "node-X: N direct modex requests" (those it sent the other).
 * Exit status 0 when every rank on both nodes exited 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix_server.h>
#include <switchyard.h>

#define NSPACE "pmi-two"
#define PER_NODE 2
#define NODES 2

extern char **environ;

enum { M_FENCE = 1, M_DMX_REQ, M_DMX_REP, M_DONE };

typedef struct {
    uint32_t type, id, rank;
    int32_t status;
    uint32_t len;
} msg_t;

static int node, link_fd = -1;
static pmix_nspace_t nspace = NSPACE;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;

/* fences: the n-th local one completes once the peer's n-th arrived */
static unsigned local_fences, peer_fences;
static pmix_modex_cbfunc_t fence_cb;
static void *fence_cbdata;
/* direct modex requests out with the peer */
typedef struct dmx {
    uint32_t id;
    pmix_modex_cbfunc_t cb;
    void *cbdata;
    struct dmx *next;
} dmx_t;
static dmx_t *dmxs;
static uint32_t next_id = 1;
static bool peer_done;
static unsigned ndmx; /* direct modex requests this node sent */

static void die(const char *what)
{
    fprintf(stderr, "pmi_twohost node %d: %s\n", node, what);
    exit(1);
}

static void send_msg(uint32_t type, uint32_t id, uint32_t rank, int32_t status, const void *data,
                     uint32_t len)
{
    msg_t m = {type, id, rank, status, len};
    pthread_mutex_lock(&write_lock);
    if (write(link_fd, &m, sizeof(m)) != (ssize_t)sizeof(m) ||
        (len > 0 && write(link_fd, data, len) != (ssize_t)len))
        die("write to the other node");
    pthread_mutex_unlock(&write_lock);
}

static bool read_all(void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(link_fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
    }
    return true;
}

/* With the lock held: a fence both nodes reached ends. */
static void fence_try(void)
{
    if (fence_cb != NULL && peer_fences >= local_fences) {
        pmix_modex_cbfunc_t cb = fence_cb;
        fence_cb = NULL;
        cb(PMIX_SUCCESS, NULL, 0, fence_cbdata, NULL, NULL);
    }
}

static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata)
{
    (void)procs, (void)nprocs, (void)info, (void)ninfo, (void)ndata;
    /* the node's blob is the host's to free (OpenPMIx's rule too); this
     * host relays no data */
    free(data);
    pthread_mutex_lock(&lock);
    local_fences++;
    fence_cb = cbfunc;
    fence_cbdata = cbdata;
    send_msg(M_FENCE, 0, 0, 0, NULL, 0);
    fence_try();
    pthread_mutex_unlock(&lock);
    return PMIX_SUCCESS;
}

static pmix_status_t direct_modex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)info, (void)ninfo;
    dmx_t *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return PMIX_ERR_NOMEM;
    d->cb = cbfunc;
    d->cbdata = cbdata;
    pthread_mutex_lock(&lock);
    d->id = next_id++;
    ndmx++;
    d->next = dmxs;
    dmxs = d;
    send_msg(M_DMX_REQ, d->id, proc->rank, 0, NULL, 0);
    pthread_mutex_unlock(&lock);
    return PMIX_SUCCESS;
}

/* our server's answer to the peer's request */
static void dmx_answer(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    send_msg(M_DMX_REP, (uint32_t)(uintptr_t)cbdata, 0, status, data, (uint32_t)sz);
}

static void *relay(void *arg)
{
    (void)arg;
    msg_t m;
    while (read_all(&m, sizeof(m))) {
        char *data = m.len > 0 ? malloc(m.len) : NULL;
        if (m.len > 0 && (data == NULL || !read_all(data, m.len)))
            die("read from the other node");
        if (m.type == M_FENCE) {
            pthread_mutex_lock(&lock);
            peer_fences++;
            fence_try();
            pthread_mutex_unlock(&lock);
        } else if (m.type == M_DMX_REQ) {
            pmix_proc_t p;
            PMIX_LOAD_PROCID(&p, nspace, m.rank);
            pmix_status_t rc = PMIx_server_dmodex_request(&p, dmx_answer, (void *)(uintptr_t)m.id);
            if (rc != PMIX_SUCCESS)
                send_msg(M_DMX_REP, m.id, 0, rc, NULL, 0);
        } else if (m.type == M_DMX_REP) {
            pthread_mutex_lock(&lock);
            dmx_t **pp = &dmxs;
            while (*pp != NULL && (*pp)->id != m.id)
                pp = &(*pp)->next;
            dmx_t *d = *pp;
            if (d != NULL)
                *pp = d->next;
            pthread_mutex_unlock(&lock);
            if (d != NULL)
                d->cb(m.status, data, m.len, d->cbdata, NULL, NULL);
            free(d);
        } else if (m.type == M_DONE) {
            pthread_mutex_lock(&lock);
            peer_done = true;
            pthread_cond_broadcast(&cond);
            pthread_mutex_unlock(&lock);
        }
        free(data);
    }
    pthread_mutex_lock(&lock);
    peer_done = true; /* the other node is gone */
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void op_done(pmix_status_t status, void *cbdata)
{
    (void)status;
    pthread_mutex_lock(&lock);
    *(bool *)cbdata = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void wait_flag(bool *flag)
{
    pthread_mutex_lock(&lock);
    while (!*flag)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
}

static void check(const char *what, pmix_status_t rc, bool *flag)
{
    if (rc == PMIX_SUCCESS)
        wait_flag(flag);
    else if (rc != PMIX_OPERATION_SUCCEEDED)
        die(what);
}

static int daemon_main(char **client)
{
    char tmpl[4096], name[32], peers[32];
    const char *td = getenv("TMPDIR");
    snprintf(tmpl, sizeof(tmpl), "%s/pmi-twohost.XXXXXX", td != NULL ? td : "/tmp");
    if (mkdtemp(tmpl) == NULL)
        die("mkdtemp");
    snprintf(name, sizeof(name), "node-%c", 'a' + node);
    pmix_server_module_t module = {.fence_nb = fence_nb, .direct_modex = direct_modex};
    pmix_info_t si[5];
    bool yes = true;
    pmix_rank_t zero = 0;
    PMIX_INFO_LOAD(&si[0], PMIX_SERVER_TMPDIR, tmpl, PMIX_STRING);
    PMIX_INFO_LOAD(&si[1], PMIX_SYSTEM_TMPDIR, tmpl, PMIX_STRING);
    PMIX_INFO_LOAD(&si[2], PMIX_HOSTNAME, name, PMIX_STRING);
    PMIX_INFO_LOAD(&si[3], SWITCHYARD_SERVER_PMI, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&si[4], PMIX_SERVER_RANK, &zero, PMIX_PROC_RANK);
    if (PMIx_server_init(&module, si, 5) != PMIX_SUCCESS)
        die("PMIx_server_init");
    for (int i = 0; i < 5; i++)
        PMIX_INFO_DESTRUCT(&si[i]);
    pthread_t th;
    if (pthread_create(&th, NULL, relay, NULL) != 0)
        die("pthread_create");

    /* the job: 4 ranks, 0-1 on node-a, 2-3 on node-b */
    uint32_t size = NODES * PER_NODE, local = PER_NODE, nodeid = (uint32_t)node;
    snprintf(peers, sizeof(peers), "%d,%d", node * PER_NODE, node * PER_NODE + 1);
    pmix_info_t ji[4];
    PMIX_INFO_LOAD(&ji[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&ji[1], PMIX_LOCAL_SIZE, &local, PMIX_UINT32);
    PMIX_INFO_LOAD(&ji[2], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    PMIX_INFO_LOAD(&ji[3], PMIX_NODEID, &nodeid, PMIX_UINT32);
    bool done = false;
    check("register_nspace", PMIx_server_register_nspace(nspace, PER_NODE, ji, 4, op_done, &done),
          &done);
    PMIX_INFO_DESTRUCT(&ji[2]); /* the one that holds memory */
    pid_t pids[PER_NODE];
    for (int i = 0; i < PER_NODE; i++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, nspace, (pmix_rank_t)(node * PER_NODE + i));
        done = false;
        check("register_client",
              PMIx_server_register_client(&p, getuid(), getgid(), NULL, op_done, &done), &done);
        char **env = NULL;
        for (char **e = environ; *e != NULL; e++)
            pmix_argv_append_nosize(&env, *e);
        if (PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS)
            die("setup_fork");
        int pmi_fd = -1;
        for (char **e = env; *e != NULL; e++)
            if (strncmp(*e, "PMI_FD=", 7) == 0)
                pmi_fd = atoi(*e + 7);
        if (pmi_fd < 0)
            die("no PMI_FD from setup_fork");
        pids[i] = fork();
        if (pids[i] == 0) {
            close(link_fd);
            execve(client[0], client, env);
            _exit(127);
        }
        close(pmi_fd); /* the child's end */
        pmix_argv_free(env);
    }
    int failed = 0;
    for (int i = 0; i < PER_NODE; i++) {
        int st;
        while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "pmi_twohost node %d: rank %d ended with status %d\n", node,
                    node * PER_NODE + i, st);
            failed++;
        }
    }
    pthread_mutex_lock(&lock);
    unsigned sent = ndmx;
    pthread_mutex_unlock(&lock);
    printf("node-%c: %u direct modex requests\n", 'a' + node, sent);
    fflush(stdout);
    /* the other node's ranks may still ask ours for data */
    send_msg(M_DONE, 0, 0, 0, NULL, 0);
    wait_flag(&peer_done);
    done = false;
    PMIx_server_deregister_nspace(nspace, op_done, &done);
    wait_flag(&done); /* a void call: its callback always comes */
    PMIx_server_finalize();
    shutdown(link_fd, SHUT_RDWR);
    pthread_join(th, NULL);
    close(link_fd);
    rmdir(tmpl);
    return failed == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: pmi_twohost CLIENT [ARGS...]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        die("socketpair");
    pid_t other = fork();
    if (other < 0)
        die("fork");
    node = other == 0 ? 1 : 0;
    link_fd = sv[node];
    close(sv[1 - node]);
    int rc = daemon_main(argv + 1);
    if (node == 1)
        return rc;
    int st;
    while (waitpid(other, &st, 0) < 0 && errno == EINTR)
        ;
    return rc == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
