/* Forwarding the processes' stdout/stderr: each process writes into its own
 * pipes; we copy whole lines (tagged with --tag-output) to our stdout and
 * stderr, and to --output-dir files.  Pipes are read until EOF, so nothing
 * a process wrote before exiting is lost.  Everything read is also handed
 * to the server library (PMIx_server_IOF_deliver), which keeps some for
 * tools that attach later and sends it to those that pull it; output a tool
 * redirected (run_tool.c) is not printed here meanwhile. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix_server.h>

#include "run.h"

#define RUN_IOF_CHUNK 65536

/* A partial line per stream, kept until its newline arrives (tagging). */
typedef struct {
    char *buf;
    size_t len;
} partial_t;

/* 2 per process, in job->iof */
#define PARTIALS(job) ((partial_t *)(job)->iof)

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static int mkdirs(const char *path)
{
    char *copy = strdup(path);
    if (copy == NULL)
        return -1;
    for (char *s = copy + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            if (mkdir(copy, 0755) != 0 && errno != EEXIST) {
                free(copy);
                return -1;
            }
            *s = '/';
        }
    }
    int rc = (mkdir(copy, 0755) != 0 && errno != EEXIST) ? -1 : 0;
    free(copy);
    return rc;
}

/* fd, opened without following a symlink, is a directory (or a regular
 * file with one link) of ours; else it is closed, errno EPERM, -1. */
static int ours(int fd, bool dir)
{
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
        (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode) && st.st_nlink == 1))
        return fd;
    close(fd);
    errno = EPERM;
    return -1;
}

/* The directory `name` in dirfd, made if missing; it must be ours. */
static int sub_dir(int dirfd, const char *name)
{
    if (mkdirat(dirfd, name, 0755) != 0 && errno != EEXIST)
        return -1;
    return ours(openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), true);
}

/* The file `name` in dirfd, emptied: created, or one of ours (never a
 * symlink, nor a link to another file, followed and truncated). */
static int out_file(int dirfd, const char *name)
{
    int fd = ours(
        openat(dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644), false);
    if (fd >= 0 && ftruncate(fd, 0) != 0) {
        close(fd);
        return -1;
    }
    if (fd >= 0)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* --output-dir DIR: DIR/<app>/rank.<rank>/stdout and stderr.  DIR is the
 * user's, taken as named; what is made below it is checked to be ours,
 * so a name another user made first in a shared DIR is refused. */
static int open_outputs(const char *top, run_proc_t *p)
{
    char app[32], rank[32];
    snprintf(app, sizeof(app), "%u", p->app);
    snprintf(rank, sizeof(rank), "rank.%u", p->rank);
    int t = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int a = t >= 0 ? sub_dir(t, app) : -1;
    int r = a >= 0 ? sub_dir(a, rank) : -1;
    if (r >= 0) {
        p->out_file = out_file(r, "stdout");
        p->err_file = p->out_file >= 0 ? out_file(r, "stderr") : -1;
    }
    int e = errno;
    if (r >= 0)
        close(r);
    if (a >= 0)
        close(a);
    if (t >= 0)
        close(t);
    errno = e;
    return p->out_file >= 0 && p->err_file >= 0 ? 0 : -1;
}

int run_iof_setup(run_job_t *job)
{
    job->iof = calloc(2 * (size_t)job->nprocs, sizeof(partial_t));
    if (job->iof == NULL)
        return -1;
    const char *top = job->opts->output_dir;
    if (top != NULL && mkdirs(top) != 0) {
        fprintf(stderr, "switchyard-run: cannot create %s: %s\n", top, strerror(errno));
        return -1;
    }
    for (unsigned r = 0; r < job->nprocs; r++) {
        run_proc_t *p = &job->procs[r];
        p->out_file = p->err_file = -1;
        if (top != NULL && open_outputs(top, p) != 0) {
            fprintf(
                stderr,
                "switchyard-run: cannot write the output of rank %u under %s/%u/rank.%u: %s%s\n",
                p->rank, top, p->app, p->rank, strerror(errno),
                errno == EPERM || errno == ELOOP ? " (a name there is not ours)" : "");
            return -1;
        }
    }
    return 0;
}

static void emit(run_job_t *job, run_proc_t *p, int stream, const char *data, size_t n)
{
    int out = stream == 0 ? STDOUT_FILENO : STDERR_FILENO;
    int file = stream == 0 ? p->out_file : p->err_file;
    if (file >= 0)
        write_all(file, data, n);
    if (run_tool_redirected(job->nspace, p->rank, stream))
        return;
    if (!job->opts->tag_output) {
        write_all(out, data, n);
        return;
    }
    char tag[PMIX_MAX_NSLEN + 64];
    int tl = snprintf(tag, sizeof(tag), "[%s,%u]<%s>: ", job->nspace, p->rank,
                      stream == 0 ? "stdout" : "stderr");
    partial_t *pt = &PARTIALS(job)[2 * p->rank + (unsigned)stream];
    const char *s = data, *end = data + n;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t chunk = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
        if (nl == NULL) {
            char *g = realloc(pt->buf, pt->len + chunk);
            if (g != NULL) {
                memcpy(g + pt->len, s, chunk);
                pt->buf = g;
                pt->len += chunk;
            }
            break;
        }
        write_all(out, tag, (size_t)tl);
        if (pt->len > 0) {
            write_all(out, pt->buf, pt->len);
            pt->len = 0;
        }
        write_all(out, s, chunk);
        s += chunk;
    }
}

/* At EOF, a tagged stream's unterminated last line still gets out. */
static void flush_partial(run_job_t *job, run_proc_t *p, int stream)
{
    partial_t *pt = &PARTIALS(job)[2 * p->rank + (unsigned)stream];
    if (pt->len == 0)
        return;
    int out = stream == 0 ? STDOUT_FILENO : STDERR_FILENO;
    char tag[PMIX_MAX_NSLEN + 64];
    int tl = snprintf(tag, sizeof(tag), "[%s,%u]<%s>: ", job->nspace, p->rank,
                      stream == 0 ? "stdout" : "stderr");
    write_all(out, tag, (size_t)tl);
    write_all(out, pt->buf, pt->len);
    write_all(out, "\n", 1);
    pt->len = 0;
}

/* To the server library, for tools; at the end, PMIX_IOF_COMPLETE. */
static void to_server(run_job_t *job, run_proc_t *p, int stream, char *data, size_t n)
{
    pmix_proc_t src;
    PMIX_LOAD_PROCID(&src, job->nspace, p->rank);
    pmix_byte_object_t bo = {.bytes = data, .size = n};
    pmix_iof_channel_t ch = stream == 0 ? PMIX_FWD_STDOUT_CHANNEL : PMIX_FWD_STDERR_CHANNEL;
    pmix_info_t end;
    if (n > 0) {
        PMIx_server_IOF_deliver(&src, ch, &bo, NULL, 0, NULL, NULL);
        return;
    }
    PMIX_INFO_LOAD(&end, PMIX_IOF_COMPLETE, NULL, PMIX_BOOL);
    PMIx_server_IOF_deliver(&src, ch, &bo, &end, 1, NULL, NULL);
    PMIX_INFO_DESTRUCT(&end);
}

/* Read once from fd; close it at EOF.  Returns bytes read. */
static ssize_t pump(run_job_t *job, run_proc_t *p, int stream)
{
    int *fd = stream == 0 ? &p->out_fd : &p->err_fd;
    char buf[RUN_IOF_CHUNK];
    ssize_t r = read(*fd, buf, sizeof(buf));
    if (r > 0) {
        to_server(job, p, stream, buf, (size_t)r);
        emit(job, p, stream, buf, (size_t)r);
    } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(*fd);
        *fd = -1;
        flush_partial(job, p, stream);
        to_server(job, p, stream, NULL, 0);
    }
    return r;
}

void run_iof_poll(run_job_t *job, int wake_fd, int timeout_ms)
{
    size_t n = 0;
    struct pollfd *pf = calloc(2 * (size_t)job->nprocs + 2, sizeof(*pf));
    unsigned *who = calloc(2 * (size_t)job->nprocs + 2, sizeof(*who));
    if (pf == NULL || who == NULL) {
        free(pf);
        free(who);
        poll(NULL, 0, timeout_ms);
        return;
    }
    pf[n++] = (struct pollfd){.fd = wake_fd, .events = POLLIN}; /* -1: ignored */
    /* rank 0's stdin, when tools pushed data for it */
    pf[n++] = (struct pollfd){.fd = job->spawned ? -1 : run_tool_stdin_fd(), .events = POLLOUT};
    for (unsigned r = 0; r < job->nprocs; r++) {
        for (int s = 0; s < 2; s++) {
            int fd = s == 0 ? job->procs[r].out_fd : job->procs[r].err_fd;
            if (fd >= 0) {
                who[n] = 2 * r + (unsigned)s;
                pf[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
            }
        }
    }
    if (poll(pf, n, timeout_ms) > 0) {
        if (pf[1].fd >= 0 && pf[1].revents != 0)
            run_tool_stdin_write();
        for (size_t i = 2; i < n; i++)
            if (pf[i].revents != 0)
                pump(job, &job->procs[who[i] / 2], (int)(who[i] % 2));
    }
    free(pf);
    free(who);
}

/* Every process exited: read what they left, until EOF, but not forever (a
 * daemon a rank left behind may hold a pipe open): 2 s without new data
 * ends it. */
void run_iof_drain(run_job_t *job)
{
    for (;;) {
        struct pollfd pf[64];
        unsigned who[64];
        size_t n = 0;
        for (unsigned r = 0; r < job->nprocs && n < 64; r++)
            for (int s = 0; s < 2 && n < 64; s++) {
                int fd = s == 0 ? job->procs[r].out_fd : job->procs[r].err_fd;
                if (fd >= 0) {
                    who[n] = 2 * r + (unsigned)s;
                    pf[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
                }
            }
        if (n == 0 || poll(pf, n, 2000) <= 0)
            return;
        for (size_t i = 0; i < n; i++)
            if (pf[i].revents != 0)
                pump(job, &job->procs[who[i] / 2], (int)(who[i] % 2));
    }
}

void run_iof_close(run_job_t *job)
{
    for (unsigned r = 0; r < job->nprocs; r++) {
        run_proc_t *p = &job->procs[r];
        if (p->out_fd >= 0)
            close(p->out_fd);
        if (p->err_fd >= 0)
            close(p->err_fd);
        if (p->out_file >= 0)
            close(p->out_file);
        if (p->err_file >= 0)
            close(p->err_file);
        p->out_fd = p->err_fd = p->out_file = p->err_file = -1;
    }
    for (size_t i = 0; job->iof != NULL && i < 2 * (size_t)job->nprocs; i++)
        free(PARTIALS(job)[i].buf);
    free(job->iof);
    job->iof = NULL;
}
