/* Tools attaching to a running switchyard-run job (docs/launcher.md,
 * "Tools"): the host upcalls tool_connected, iof_pull and push_stdin, the
 * stdin of rank 0 fed by tools (--stdin tools), and the registration of
 * the host's attributes (PMIx_Register_attributes, from
 * src/common/attr_support.txt).
 *
 * Upcalls run on the server's thread; the main loop writes rank 0's stdin
 * and answers tool connections (the host must not call back from inside
 * tool_connected).  Everything shared is under tool_lock. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "run.h"

#define RUN_STDIN_CAP ((size_t)1 << 20)

static pthread_mutex_t tool_lock = PTHREAD_MUTEX_INITIALIZER;
static run_job_t *main_job;
static int wake = -1;
static unsigned ntools;

/* ---- tool connections ---- */

typedef struct pending {
    pmix_status_t status;
    pmix_proc_t proc;
    pmix_tool_connection_cbfunc_t cbfunc;
    void *cbdata;
    struct pending *next;
} pending_t;

static pending_t *pending;

static void wake_main(void)
{
    char c = 't';
    if (wake >= 0 && write(wake, &c, 1) < 0) {
        /* the main loop polls every 100 ms anyway */
    }
}

/* One of our jobs' namespaces: "switchyard.<pid>.<n>". */
static bool job_nspace(const char *ns)
{
    if (main_job != NULL && PMIX_CHECK_NSPACE(ns, main_job->nspace))
        return true;
    return run_spawn_knows(ns);
}

static void tool_connected(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                           void *cbdata)
{
    pending_t *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        /* nothing to queue the answer in: the one case answered at once */
        cbfunc(PMIX_ERR_NOMEM, NULL, cbdata);
        return;
    }
    p->cbfunc = cbfunc;
    p->cbdata = cbdata;
    uint32_t uid = UINT32_MAX;
    const char *ns = NULL;
    pmix_rank_t rank = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_USERID) && info[i].value.type == PMIX_UINT32)
            uid = info[i].value.data.uint32;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_TOOL_NSPACE) && info[i].value.type == PMIX_STRING)
            ns = info[i].value.data.string;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_TOOL_RANK) && info[i].value.type == PMIX_UINT32)
            rank = info[i].value.data.uint32;
    }
    pthread_mutex_lock(&tool_lock);
    if (uid != (uint32_t)getuid() && uid != 0) {
        /* the job belongs to the user who started it */
        p->status = PMIX_ERR_NO_PERMISSIONS;
    } else if (ns != NULL && job_nspace(ns)) {
        p->status = PMIX_EXISTS;
    } else if (ns != NULL) {
        PMIX_LOAD_PROCID(&p->proc, ns, rank);
    } else {
        char name[PMIX_MAX_NSLEN + 1];
        snprintf(name, sizeof(name), "switchyard.%ld.tool.%u", (long)getpid(), ++ntools);
        PMIX_LOAD_PROCID(&p->proc, name, 0);
    }
    p->next = pending;
    pending = p;
    pthread_mutex_unlock(&tool_lock);
    wake_main();
}

/* ---- output redirected to tools ---- */

typedef struct redirect {
    pmix_proc_t proc; /* rank may be PMIX_RANK_WILDCARD */
    pmix_iof_channel_t channels;
    unsigned count;
    struct redirect *next;
} redirect_t;

static redirect_t *redirects;

static pmix_status_t iof_pull(const pmix_proc_t procs[], size_t nprocs,
                              const pmix_info_t directives[], size_t ndirs,
                              pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)cbfunc;
    (void)cbdata;
    bool stop = false, copy = false;
    for (size_t i = 0; i < ndirs; i++) {
        bool on = PMIX_INFO_TRUE(&directives[i]);
        if (PMIX_CHECK_KEY(&directives[i], PMIX_IOF_STOP))
            stop = on;
        else if (PMIX_CHECK_KEY(&directives[i], PMIX_IOF_COPY))
            copy = on;
        else if (PMIX_CHECK_KEY(&directives[i], PMIX_IOF_REDIRECT))
            copy = !on;
    }
    pthread_mutex_lock(&tool_lock);
    for (size_t i = 0; i < nprocs; i++) {
        if (!job_nspace(procs[i].nspace)) {
            pthread_mutex_unlock(&tool_lock);
            return PMIX_ERR_NOT_FOUND;
        }
    }
    /* every process's output is already handed to the server library
     * (run_iof.c); what a tool changes is whether we print it too */
    for (size_t i = 0; i < nprocs && !copy; i++) {
        redirect_t *r = redirects;
        while (r != NULL && !(r->channels == channels && PMIX_CHECK_PROCID(&r->proc, &procs[i]) &&
                              r->proc.rank == procs[i].rank))
            r = r->next;
        if (stop) {
            if (r != NULL && r->count > 0)
                r->count--;
        } else if (r != NULL) {
            r->count++;
        } else if ((r = calloc(1, sizeof(*r))) != NULL) {
            r->proc = procs[i];
            r->channels = channels;
            r->count = 1;
            r->next = redirects;
            redirects = r;
        }
    }
    pthread_mutex_unlock(&tool_lock);
    return PMIX_OPERATION_SUCCEEDED;
}

bool run_tool_redirected(const char *nspace, pmix_rank_t rank, int stream)
{
    pmix_iof_channel_t ch = stream == 0 ? PMIX_FWD_STDOUT_CHANNEL : PMIX_FWD_STDERR_CHANNEL;
    bool yes = false;
    pthread_mutex_lock(&tool_lock);
    for (redirect_t *r = redirects; r != NULL && !yes; r = r->next)
        yes = r->count > 0 && (r->channels & ch) && PMIX_CHECK_NSPACE(r->proc.nspace, nspace) &&
              (r->proc.rank == rank || r->proc.rank == PMIX_RANK_WILDCARD);
    pthread_mutex_unlock(&tool_lock);
    return yes;
}

/* ---- rank 0's stdin, fed by tools ---- */

static struct {
    int fd; /* write end, -1 when none or closed */
    char *buf;
    size_t len;
    bool closing; /* PMIX_IOF_COMPLETE: close once written */
    bool done;    /* closed: further pushes are refused */
} in = {.fd = -1};

void run_tool_set_stdin(int fd)
{
    pthread_mutex_lock(&tool_lock);
    in.fd = fd;
    in.done = fd < 0;
    pthread_mutex_unlock(&tool_lock);
}

static pmix_status_t push_stdin(const pmix_proc_t *source, const pmix_proc_t targets[],
                                size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)source;
    (void)cbfunc;
    (void)cbdata;
    size_t cap = RUN_STDIN_CAP;
    bool oldest = false, complete = false;
    for (size_t i = 0; i < ndirs; i++) {
        const pmix_info_t *d = &directives[i];
        bool on = PMIX_INFO_TRUE(d);
        if (PMIX_CHECK_KEY(d, PMIX_IOF_CACHE_SIZE) && d->value.type == PMIX_UINT32)
            cap = d->value.data.uint32;
        else if (PMIX_CHECK_KEY(d, PMIX_IOF_DROP_OLDEST))
            oldest = on;
        else if (PMIX_CHECK_KEY(d, PMIX_IOF_COMPLETE))
            complete = on;
    }
    if (main_job == NULL || main_job->opts->stdin_mode != RUN_STDIN_TOOLS) {
        fprintf(stderr,
                "switchyard-run: a tool pushed stdin, but this job reads %s "
                "(start it with --stdin tools)\n",
                main_job != NULL && main_job->opts->stdin_mode == RUN_STDIN_NONE
                    ? "/dev/null"
                    : "the launcher's own stdin");
        return PMIX_ERR_NOT_SUPPORTED;
    }
    for (size_t t = 0; t < ntargets; t++) {
        if (!PMIX_CHECK_NSPACE(targets[t].nspace, main_job->nspace) || targets[t].rank != 0) {
            fprintf(stderr, "switchyard-run: stdin goes to rank 0 of %s only\n", main_job->nspace);
            return PMIX_ERR_NOT_SUPPORTED;
        }
    }
    pthread_mutex_lock(&tool_lock);
    if (in.done || in.closing) {
        pthread_mutex_unlock(&tool_lock);
        return PMIX_ERR_IOF_COMPLETE;
    }
    size_t n = bo != NULL ? bo->size : 0;
    const char *data = n > 0 ? bo->bytes : NULL;
    if (in.len + n > cap) {
        /* rank 0 reads slower than tools push */
        if (oldest) {
            size_t drop = in.len + n - cap < in.len ? in.len + n - cap : in.len;
            if (drop > 0) {
                memmove(in.buf, in.buf + drop, in.len - drop);
                in.len -= drop;
            }
            if (n > cap) {
                data += n - cap;
                n = cap;
            }
        } else {
            n = cap > in.len ? cap - in.len : 0;
        }
    }
    pmix_status_t rc = PMIX_OPERATION_SUCCEEDED;
    if (n > 0) {
        char *g = realloc(in.buf, in.len + n);
        if (g == NULL) {
            rc = PMIX_ERR_NOMEM;
        } else {
            in.buf = g;
            memcpy(in.buf + in.len, data, n);
            in.len += n;
        }
    }
    if (complete)
        in.closing = true;
    pthread_mutex_unlock(&tool_lock);
    wake_main();
    return rc;
}

int run_tool_stdin_fd(void)
{
    pthread_mutex_lock(&tool_lock);
    int fd = in.fd >= 0 && (in.len > 0 || in.closing) ? in.fd : -1;
    pthread_mutex_unlock(&tool_lock);
    return fd;
}

void run_tool_stdin_write(void)
{
    pthread_mutex_lock(&tool_lock);
    while (in.fd >= 0 && in.len > 0) {
        ssize_t w = write(in.fd, in.buf, in.len);
        if (w > 0) {
            memmove(in.buf, in.buf + w, in.len - (size_t)w);
            in.len -= (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else {
            if (w < 0 && errno != EAGAIN) {
                /* rank 0 closed its stdin or exited: nothing more goes */
                close(in.fd);
                in.fd = -1;
                in.done = true;
                in.len = 0;
            }
            break;
        }
    }
    if (in.fd >= 0 && in.len == 0 && in.closing) {
        close(in.fd);
        in.fd = -1;
        in.done = true;
    }
    pthread_mutex_unlock(&tool_lock);
}

/* ---- the main loop's part ---- */

void run_tool_service(void)
{
    for (;;) {
        pthread_mutex_lock(&tool_lock);
        pending_t *p = pending;
        if (p != NULL)
            pending = p->next;
        pthread_mutex_unlock(&tool_lock);
        if (p == NULL)
            break;
        if (main_job != NULL && main_job->opts->verbose && p->status == PMIX_SUCCESS)
            fprintf(stderr, "switchyard-run: tool %s:%u attached\n", p->proc.nspace, p->proc.rank);
        p->cbfunc(p->status, p->status == PMIX_SUCCESS ? &p->proc : NULL, p->cbdata);
        free(p);
    }
}

void run_tool_finish(void)
{
    /* connections never answered are refused: the server is going */
    pthread_mutex_lock(&tool_lock);
    pending_t *p = pending;
    pending = NULL;
    while (redirects != NULL) {
        redirect_t *r = redirects;
        redirects = r->next;
        free(r);
    }
    if (in.fd >= 0)
        close(in.fd);
    in.fd = -1;
    free(in.buf);
    in.buf = NULL;
    in.len = 0;
    pthread_mutex_unlock(&tool_lock);
    while (p != NULL) {
        pending_t *next = p->next;
        p->cbfunc(PMIX_ERR_JOB_CANCELED, NULL, p->cbdata);
        free(p);
        p = next;
    }
}

void run_tool_module(pmix_server_module_t *m, run_job_t *job, int wake_fd)
{
    main_job = job;
    wake = wake_fd;
    m->tool_connected = tool_connected;
    m->iof_pull = iof_pull;
    m->push_stdin = push_stdin;
}

/* What this host supports, per upcall, as src/common/attr_support.txt
 * lists it (tools/tools.mk generates run_attrs.inc from it). */
static const struct {
    const char *fn, *attr;
} host_attrs[] = {
#define RUN_FN(f) {f, NULL},
#define RUN_ATTR(f, a) {f, a},
#include "run_attrs.inc"
#undef RUN_FN
#undef RUN_ATTR
};

int run_tool_register_attrs(void)
{
    size_t n = sizeof(host_attrs) / sizeof(host_attrs[0]);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        char *names[64];
        size_t k = 0;
        for (; j < n && strcmp(host_attrs[j].fn, host_attrs[i].fn) == 0; j++)
            if (host_attrs[j].attr != NULL && k < 63)
                names[k++] = (char *)host_attrs[j].attr;
        names[k] = NULL;
        pmix_status_t rc = PMIx_Register_attributes((char *)host_attrs[i].fn, names);
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "switchyard-run: PMIx_Register_attributes(%s): %s\n", host_attrs[i].fn,
                    PMIx_Error_string(rc));
            return -1;
        }
        i = j;
    }
    return 0;
}
