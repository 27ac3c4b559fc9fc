/* PMI wire connections (server_pmi.h): the socketpairs setup_fork makes,
 * reading and framing PMI-1 lines / mcmd blocks and PMI-2 length-prefixed
 * commands, queued replies, and the hooks the rest of the server calls. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include <switchyard.h>

#include "common/log.h"
#include "common/sync.h"
#include "server/server_internal.h"
#include "server/server_fork.h"
#include "server/server_pmi.h"

/* Largest message a PMI client may send: PMI-1 lines are < 1024 bytes,
 * spawn blocks and PMI-2 commands are bounded by PMII_MAX_COMMAND_LEN. */
#define PMI_MAX_MSG (64 * 1024)
#define PMI2_LEN_DIGITS 6

/* set at PMIx_server_init, cleared on the loop at finalize, read by
 * setup_fork on any thread */
static _Atomic bool enabled;
static sy_pmi_conn_t *conns;
static unsigned long next_serial = 1;

sy_pmi_conn_t *sy_pmi_conns(void)
{
    return conns;
}

sy_pmi_conn_t *sy_pmi_conn_by_serial(unsigned long serial)
{
    for (sy_pmi_conn_t *c = conns; c != NULL; c = c->next)
        if (c->serial == serial)
            return c;
    return NULL;
}

/* tell: the process's end is told to the server and the host (not when
 * the server or the namespace goes) */
static void conn_free(sy_pmi_conn_t *c, bool tell)
{
    for (sy_pmi_conn_t **pp = &conns; *pp != NULL; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    if (tell)
        sy_pmi_conn_gone(c);
    if (c->rev != NULL)
        event_free(c->rev);
    if (c->wev != NULL)
        event_free(c->wev);
    if (c->fd >= 0)
        close(c->fd);
    free(c->in);
    free(c->out);
    sy_pmi_spawn_free(c->spawn);
    free(c->fence_thrid);
    while (c->waits != NULL) {
        sy_pmi_nodewait_t *nw = c->waits;
        c->waits = nw->next;
        free(nw->key);
        free(nw->thrid);
        free(nw);
    }
    free(c);
}

void sy_pmi_drop(sy_pmi_conn_t *c, const char *why)
{
    if (c->job == NULL)
        sy_log(SY_LOG_WARN, "pmi: a PMI_PORT connection: %s; connection closed", why);
    else
        sy_log(SY_LOG_WARN, "pmi: %s.%u: %s; connection closed", c->proc.nspace, c->proc.rank, why);
    conn_free(c, true);
}

/* Write what is queued; false when the connection broke (and is freed). */
static bool flush(sy_pmi_conn_t *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n =
            send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            c->out_off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            event_add(c->wev, NULL);
            return true;
        }
        /* the peer is gone: its end of the story is told by the read side */
        c->out_len = c->out_off = 0;
        event_del(c->wev);
        return true;
    }
    c->out_len = c->out_off = 0;
    event_del(c->wev);
    return true;
}

static bool queue(sy_pmi_conn_t *c, const char *a, size_t alen, const char *b, size_t blen)
{
    size_t need = c->out_len + alen + blen;
    if (need > 4 * PMI_MAX_MSG) {
        sy_pmi_drop(c, "the client does not read its replies");
        return false;
    }
    if (need > c->out_cap) {
        size_t cap = need < 1024 ? 1024 : need * 2;
        char *g = realloc(c->out, cap);
        if (g == NULL) {
            sy_pmi_drop(c, "out of memory");
            return false;
        }
        c->out = g;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_len, a, alen);
    memcpy(c->out + c->out_len + alen, b, blen);
    c->out_len += alen + blen;
    return flush(c);
}

bool sy_pmi_send1(sy_pmi_conn_t *c, const char *line)
{
    return queue(c, line, strlen(line), "\n", 1);
}

bool sy_pmi_send2(sy_pmi_conn_t *c, const char *body)
{
    char len[PMI2_LEN_DIGITS + 1];
    size_t n = strlen(body);
    if (n > PMI_MAX_MSG) {
        sy_pmi_drop(c, "a reply too long for PMI-2");
        return false;
    }
    snprintf(len, sizeof(len), "%-6zu", n);
    return queue(c, len, PMI2_LEN_DIGITS, body, n);
}

static void on_writable(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    flush(arg);
}

/* One complete message at the head of c->in, or 0 (need more), or
 * (size_t)-1 (malformed).  The message proper is at *off, *blen long. */
static size_t frame(sy_pmi_conn_t *c, size_t *off, size_t *blen, bool *pmi2)
{
    const char *in = c->in;
    size_t n = c->in_len;
    /* PMI-1 framing whenever the text starts with cmd= or mcmd= (PMI-2
     * clients start with a PMI-1 init); otherwise a PMI-2 length */
    bool v1 = (n >= 4 && memcmp(in, "cmd=", 4) == 0) || (n >= 5 && memcmp(in, "mcmd=", 5) == 0);
    if (!v1 && n < PMI2_LEN_DIGITS) {
        /* too short to tell, unless it cannot become either */
        bool prefix =
            strncmp(in, "mcmd=", n < 5 ? n : 5) == 0 || strncmp(in, "cmd=", n < 4 ? n : 4) == 0;
        for (size_t i = 0; !prefix && i < n; i++)
            if (in[i] != ' ' && (in[i] < '0' || in[i] > '9'))
                return (size_t)-1;
        return 0;
    }
    if (v1) {
        const char *end;
        if (in[0] == 'm') {
            end = memmem(in, n, "endcmd\n", 7);
            if (end == NULL)
                return n > PMI_MAX_MSG ? (size_t)-1 : 0;
            end += 6; /* at the newline */
        } else {
            end = memchr(in, '\n', n);
            if (end == NULL)
                return n > PMI_MAX_MSG ? (size_t)-1 : 0;
        }
        *off = 0;
        *blen = (size_t)(end - in);
        *pmi2 = false;
        return *blen + 1;
    }
    char digits[PMI2_LEN_DIGITS + 1];
    memcpy(digits, in, PMI2_LEN_DIGITS);
    digits[PMI2_LEN_DIGITS] = '\0';
    char *e;
    long len = strtol(digits, &e, 10);
    while (*e == ' ')
        e++;
    if (*e != '\0' || len <= 0 || len > PMI_MAX_MSG)
        return (size_t)-1;
    if (n < PMI2_LEN_DIGITS + (size_t)len)
        return 0;
    *off = PMI2_LEN_DIGITS;
    *blen = (size_t)len;
    *pmi2 = true;
    return PMI2_LEN_DIGITS + (size_t)len;
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    sy_pmi_conn_t *c = arg;
    unsigned long serial = c->serial;
    if (c->in_cap - c->in_len < 4096) {
        size_t cap = c->in_cap ? c->in_cap * 2 : 8192;
        char *g = cap <= 2 * PMI_MAX_MSG + 8192 ? realloc(c->in, cap) : NULL;
        if (g == NULL) {
            sy_pmi_drop(c, "input too large");
            return;
        }
        c->in = g;
        c->in_cap = cap;
    }
    ssize_t n = recv(fd, c->in + c->in_len, c->in_cap - c->in_len - 1, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n <= 0) {
        /* a process that never spoke PMI (a PMIx program) ends quietly */
        if (c->version != 0 && c->job != NULL && !c->finalized && !sy_pmi_job_aborted(c->job))
            sy_log(SY_LOG_WARN, "pmi: %s.%u closed its PMI connection without finalizing",
                   c->proc.nspace, c->proc.rank);
        conn_free(c, true);
        return;
    }
    c->in_len += (size_t)n;
    for (;;) {
        size_t off = 0, blen = 0;
        bool pmi2 = false;
        size_t used = frame(c, &off, &blen, &pmi2);
        if (used == 0)
            return;
        if (used == (size_t)-1) {
            sy_pmi_drop(c, "malformed or oversized PMI message");
            return;
        }
        char *msg = malloc(blen + 1);
        if (msg == NULL) {
            sy_pmi_drop(c, "out of memory");
            return;
        }
        memcpy(msg, c->in + off, blen);
        msg[blen] = '\0';
        memmove(c->in, c->in + used, c->in_len - used);
        c->in_len -= used;
        if (pmi2)
            sy_pmi2_command(c, msg, blen);
        else
            sy_pmi1_command(c, msg, blen);
        free(msg);
        /* the command may have closed the connection */
        if (sy_pmi_conn_by_serial(serial) != c)
            return;
    }
}

/* ---- hooks ---- */

void sy_srv_pmi_init(const pmix_info_t info[], size_t ninfo)
{
    enabled = false;
    for (size_t i = 0; info != NULL && i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], SWITCHYARD_SERVER_PMI))
            enabled = info[i].value.type == PMIX_UNDEF ||
                      (info[i].value.type == PMIX_BOOL && info[i].value.data.flag);
}

void sy_srv_pmi_finalize(void)
{
    while (conns != NULL)
        conn_free(conns, false);
    sy_pmi_port_finalize();
    sy_pmi_jobs_free();
    enabled = false;
}

void sy_srv_pmi_nspace_gone(const char *nspace)
{
    for (sy_pmi_conn_t *c = conns, *next; c != NULL; c = next) {
        next = c->next;
        if (strcmp(c->proc.nspace, nspace) == 0)
            conn_free(c, false);
    }
    sy_pmi_job_free_nspace(nspace);
    sy_pmi_port_forget(nspace);
}

typedef struct {
    pmix_proc_t proc;
    int child_fd;
    uint32_t size;
    bool spawned;
    uint32_t port_id; /* 0: no port mode */
    int port;
    sy_sync_t sync;
} fork_req_t;

sy_pmi_conn_t *sy_pmi_conn_new(int fd, const pmix_proc_t *proc, sy_pmi_job_t *j)
{
    sy_pmi_conn_t *c = calloc(1, sizeof(*c));
    struct event_base *base = sy_progress_base(sy_srv->progress);
    if (c == NULL || (c->rev = event_new(base, fd, EV_READ | EV_PERSIST, on_readable, c)) == NULL ||
        (c->wev = event_new(base, fd, EV_WRITE, on_writable, c)) == NULL ||
        event_add(c->rev, NULL) != 0) {
        if (c != NULL) {
            if (c->rev != NULL)
                event_free(c->rev);
            if (c->wev != NULL)
                event_free(c->wev);
            free(c);
        }
        return NULL;
    }
    c->fd = fd;
    if (proc != NULL)
        c->proc = *proc;
    else
        PMIX_LOAD_PROCID(&c->proc, "", PMIX_RANK_UNDEF);
    c->job = j;
    c->serial = next_serial++;
    c->next = conns;
    conns = c;
    return c;
}

static void setup_on_loop(void *arg)
{
    fork_req_t *r = arg;
    pmix_status_t rc = PMIX_SUCCESS;
    int sv[2] = {-1, -1};
    sy_pmi_job_t *j = sy_pmi_job_get(r->proc.nspace);
    if (j == NULL) {
        rc = PMIX_ERR_NOT_FOUND; /* not registered (yet): no PMI for it */
        goto out;
    }
    /* the server's end closes on exec; the child's end is inherited (the
     * host closes it in its own process after fork: SWITCHYARD_SERVER_PMI) */
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || fcntl(sv[0], F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(sv[0], F_SETFL, O_NONBLOCK) != 0) {
        sy_log(SY_LOG_WARN, "pmi: socketpair for %s.%u: %s", r->proc.nspace, r->proc.rank,
               strerror(errno));
        rc = PMIX_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    if (sy_pmi_conn_new(sv[0], &r->proc, j) == NULL) {
        rc = PMIX_ERR_NOMEM;
        goto out;
    }
    r->child_fd = sv[1];
    r->size = sy_pmi_job_size(j);
    pmix_proc_t parent;
    r->spawned = sy_pmi_parent(r->proc.nspace, &parent);
    /* port mode too (a client without the descriptor): a secret id */
    r->port_id = sy_pmi_port_id(&r->proc, &r->port);
    sy_sync_signal(&r->sync, PMIX_SUCCESS, NULL);
    return;
out:
    if (sv[0] >= 0) {
        close(sv[0]);
        close(sv[1]);
    }
    sy_sync_signal(&r->sync, rc, NULL);
}

pmix_status_t sy_srv_pmi_setup_fork(const pmix_proc_t *proc, char ***env)
{
    if (!enabled)
        return PMIX_SUCCESS;
    sy_progress_t *p = sy_srv_use();
    if (p == NULL)
        return PMIX_SUCCESS;
    fork_req_t r = {.proc = *proc, .child_fd = -1};
    pmix_status_t rc = sy_sync_init(&r.sync);
    if (rc == PMIX_SUCCESS) {
        rc = sy_progress_post(p, setup_on_loop, &r);
        if (rc == PMIX_SUCCESS)
            rc = sy_sync_wait_progress(&r.sync, p);
        sy_sync_destroy(&r.sync);
    }
    sy_srv_unuse();
    if (rc != PMIX_SUCCESS)
        return PMIX_SUCCESS; /* no PMI for this child; PMIx still works */
    char fd[16], rank[16], size[16];
    snprintf(fd, sizeof(fd), "%d", r.child_fd);
    snprintf(rank, sizeof(rank), "%u", proc->rank);
    snprintf(size, sizeof(size), "%u", r.size);
    rc = sy_srv_env_set(env, "PMI_FD", fd);
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_env_set(env, "PMI_RANK", rank);
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_env_set(env, "PMI_SIZE", size);
    /* PMI-2 clients send it back as pmijobid; informative only */
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_env_set(env, "PMI_JOBID", proc->nspace);
    /* MPICH's PMI_Init then says spawned, and the child connects back */
    if (rc == PMIX_SUCCESS && r.spawned)
        rc = sy_srv_env_set(env, "PMI_SPAWNED", "1");
    /* hydra's port mode: a client that has no PMI_FD connects there and
     * names itself with PMI_ID, a secret of this process */
    if (rc == PMIX_SUCCESS && r.port_id != 0) {
        char port[32], id[16];
        snprintf(port, sizeof(port), "127.0.0.1:%d", r.port);
        snprintf(id, sizeof(id), "%u", r.port_id);
        rc = sy_srv_env_set(env, "PMI_PORT", port);
        if (rc == PMIX_SUCCESS)
            rc = sy_srv_env_set(env, "PMI_ID", id);
    }
    if (rc != PMIX_SUCCESS)
        close(r.child_fd);
    return rc;
}
