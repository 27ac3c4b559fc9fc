/* Rendezvous files: parsing and searching (rendezvous.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix.h>

#include "common/rendezvous.h"
#include "common/safefile.h"

#define SY_RNDZ_MAX_FILE 8192
/* Open MPI's mpirun keeps them in <tmpdir>/ompi.<host>.<uid>/pid.<pid>/ */
#define SY_RNDZ_NAMED_DEPTH 4

pmix_status_t sy_rndz_parse_uri(const char *uri, char *host, size_t hostlen, int *port)
{
    const char *p = strstr(uri, "tcp");
    if (p == NULL)
        return PMIX_ERR_BAD_PARAM;
    p = strstr(p, "://");
    if (p == NULL)
        return PMIX_ERR_BAD_PARAM;
    p += 3;
    const char *end;
    if (*p == '[') {
        end = strchr(++p, ']');
        if (end == NULL || end[1] != ':')
            return PMIX_ERR_BAD_PARAM;
    } else {
        end = strrchr(p, ':');
        if (end == NULL)
            return PMIX_ERR_BAD_PARAM;
    }
    size_t n = (size_t)(end - p);
    if (n == 0 || n >= hostlen)
        return PMIX_ERR_BAD_PARAM;
    memcpy(host, p, n);
    host[n] = '\0';
    const char *ps = end + (*end == ']' ? 2 : 1);
    char *stop = NULL;
    long v = strtol(ps, &stop, 10);
    if (stop == ps || *stop != '\0' || v <= 0 || v > 65535)
        return PMIX_ERR_BAD_PARAM;
    *port = (int)v;
    return PMIX_SUCCESS;
}

void sy_rndz_free(sy_rndz_t *r)
{
    if (r == NULL)
        return;
    free(r->path);
    free(r->uri);
    free(r->usock);
    free(r->version);
    free(r->hostname);
    free(r->token);
    memset(r, 0, sizeof(*r));
}

void sy_rndz_list_free(sy_rndz_t *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sy_rndz_free(&list[i]);
    free(list);
}

bool sy_rndz_alive(const sy_rndz_t *r)
{
    return sy_proc_alive(r->pid, r->pstart, r->start);
}

const char *sy_rndz_default_dir(void)
{
    const char *t = getenv("TMPDIR");
    return t != NULL && *t == '/' ? t : "/tmp";
}

static char *dup_nonempty(const char *s)
{
    return *s != '\0' ? strdup(s) : NULL;
}

/* "<nspace>.<rank>;..." gives the server's identity when no nspace line does. */
static void identity_from_uri(sy_rndz_t *r)
{
    const char *semi = strchr(r->uri, ';');
    if (semi == NULL)
        return;
    const char *dot = NULL;
    for (const char *p = r->uri; p < semi; p++)
        if (*p == '.')
            dot = p;
    if (dot == NULL || (size_t)(dot - r->uri) > PMIX_MAX_NSLEN)
        return;
    char ns[PMIX_MAX_NSLEN + 1];
    memcpy(ns, r->uri, (size_t)(dot - r->uri));
    ns[dot - r->uri] = '\0';
    PMIX_LOAD_PROCID(&r->server, ns, (pmix_rank_t)strtoul(dot + 1, NULL, 10));
}

/* OpenPMIx's own files (its ptl base writes them): the URI, then its
 * version, its pid, "uid:gid" and the ctime() of when it was written,
 * one a line and without keys.  Recognised by a version line with no
 * colon followed by a line of digits. */
static bool parse_openpmix(const char *text, sy_rndz_t *r)
{
    char *lines[5] = {0};
    char *copy = strdup(text), *save = NULL;
    if (copy == NULL)
        return false;
    int n = 0;
    /* the URI line is never empty in these files */
    for (char *l = strtok_r(copy, "\n", &save); l != NULL && n < 5; l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    bool yes = n >= 3 && strchr(lines[0], ';') != NULL && strchr(lines[1], ':') == NULL &&
               lines[2][0] != '\0' && strspn(lines[2], "0123456789") == strlen(lines[2]);
    if (yes) {
        r->uri = strdup(lines[0]);
        r->version = strdup(lines[1]);
        r->pid = (pid_t)strtol(lines[2], NULL, 10);
        struct tm tm;
        memset(&tm, 0, sizeof(tm));
        tm.tm_isdst = -1;
        if (n >= 5 && strptime(lines[4], "%a %b %d %H:%M:%S %Y", &tm) != NULL)
            r->start = (long long)mktime(&tm);
        r->openpmix = true;
        identity_from_uri(r);
    }
    free(copy);
    return yes;
}

static pmix_status_t parse(char *text, sy_rndz_t *r)
{
    /* our servers' files start with OpenPMIx's five lines too (so that its
     * tools can read them), then our keyed lines: a "pid:" line says ours */
    bool ours = strstr(text, "\npid:") != NULL;
    if (text[0] != '\n' && !ours && parse_openpmix(text, r))
        return r->uri != NULL && r->pid > 0 ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
    char *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    if (line == NULL)
        return PMIX_ERR_BAD_PARAM;
    /* the first line is the URI and may be empty, which strtok_r skips */
    if (text[0] == '\n') {
        r->uri = NULL;
    } else {
        r->uri = dup_nonempty(line);
        line = strtok_r(NULL, "\n", &save);
    }
    r->server.rank = PMIX_RANK_UNDEF;
    bool have_rank = false;
    for (; line != NULL; line = strtok_r(NULL, "\n", &save)) {
        char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        *colon = '\0';
        const char *k = line, *v = colon + 1;
        if (strcmp(k, "pid") == 0)
            r->pid = (pid_t)strtol(v, NULL, 10);
        else if (strcmp(k, "start") == 0)
            r->start = strtoll(v, NULL, 10);
        else if (strcmp(k, "pstart") == 0)
            r->pstart = strtoull(v, NULL, 10);
        else if (strcmp(k, "usock") == 0 && r->usock == NULL)
            r->usock = dup_nonempty(v);
        else if (strcmp(k, "version") == 0 && r->version == NULL)
            r->version = dup_nonempty(v);
        else if (strcmp(k, "hostname") == 0 && r->hostname == NULL)
            r->hostname = dup_nonempty(v);
        else if (strcmp(k, "token") == 0 && r->token == NULL)
            r->token = dup_nonempty(v);
        else if (strcmp(k, "nspace") == 0)
            PMIX_LOAD_NSPACE(r->server.nspace, v);
        else if (strcmp(k, "rank") == 0) {
            r->server.rank = (pmix_rank_t)strtoul(v, NULL, 10);
            have_rank = true;
        }
    }
    if (r->server.nspace[0] == '\0' && r->uri != NULL)
        identity_from_uri(r);
    else if (!have_rank)
        r->server.rank = 0;
    if (r->pid <= 0 || (r->uri == NULL && r->usock == NULL))
        return PMIX_ERR_BAD_PARAM;
    return PMIX_SUCCESS;
}

pmix_status_t sy_rndz_read_fd(int fd, const char *path, sy_rndz_t *out)
{
    memset(out, 0, sizeof(*out));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_uid != geteuid() && st.st_uid != 0))
        return PMIX_ERR_NO_PERMISSIONS;
    char *text = malloc(SY_RNDZ_MAX_FILE + 1);
    if (text == NULL)
        return PMIX_ERR_NOMEM;
    size_t len = 0;
    ssize_t got;
    while (len < SY_RNDZ_MAX_FILE && (got = read(fd, text + len, SY_RNDZ_MAX_FILE - len)) > 0)
        len += (size_t)got;
    text[len] = '\0';
    pmix_status_t rc = parse(text, out);
    free(text);
    if (rc == PMIX_SUCCESS) {
        out->path = strdup(path);
        const char *base = strrchr(path, '/');
        out->system = strncmp(base != NULL ? base + 1 : path, "pmix.sys.", 9) == 0;
        if (out->path == NULL)
            rc = PMIX_ERR_NOMEM;
    }
    if (rc != PMIX_SUCCESS)
        sy_rndz_free(out);
    return rc;
}

pmix_status_t sy_rndz_read(const char *path, sy_rndz_t *out)
{
    memset(out, 0, sizeof(*out));
    /* O_NONBLOCK: a fifo planted under the name must not hang us */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? PMIX_ERR_NOT_FOUND : PMIX_ERR_NO_PERMISSIONS;
    pmix_status_t rc = sy_rndz_read_fd(fd, path, out);
    close(fd);
    return rc;
}

static bool is_rendezvous_name(const char *name)
{
    size_t n = strlen(name);
    if (strncmp(name, "pmix.", 5) != 0 || (n > 4 && strcmp(name + n - 4, ".tmp") == 0))
        return false;
    return strncmp(name, "pmix.sys.", 9) == 0 || strstr(name, ".tool") != NULL;
}

typedef struct {
    sy_rndz_t *list;
    size_t n, cap;
} found_t;

static void consider(found_t *f, const char *path)
{
    sy_rndz_t r;
    if (sy_rndz_read(path, &r) != PMIX_SUCCESS)
        return;
    if (!sy_rndz_alive(&r)) {
        sy_rndz_free(&r);
        return;
    }
    for (size_t i = 0; i < f->n; i++) {
        if (f->list[i].pid == r.pid && f->list[i].start == r.start) {
            /* the same server: prefer the file that says it is the system's */
            if (r.system && !f->list[i].system) {
                sy_rndz_free(&f->list[i]);
                f->list[i] = r;
            } else {
                sy_rndz_free(&r);
            }
            return;
        }
    }
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 8;
        sy_rndz_t *g = realloc(f->list, cap * sizeof(*g));
        if (g == NULL) {
            sy_rndz_free(&r);
            return;
        }
        f->list = g;
        f->cap = cap;
    }
    f->list[f->n++] = r;
}

static void scan_dir(found_t *f, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *path = NULL;
        if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
            break;
        if (is_rendezvous_name(e->d_name)) {
            consider(f, path);
        } else if (depth > 0) {
            struct stat st;
            if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
                (st.st_uid == geteuid() || st.st_uid == 0))
                scan_dir(f, path, depth - 1);
        }
        free(path);
    }
    closedir(d);
}

static bool find_named(const char *dir, const char *name, int depth, sy_rndz_t *out)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *path = NULL;
        if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
            break;
        if (strcmp(e->d_name, name) == 0) {
            found = sy_rndz_read(path, out) == PMIX_SUCCESS;
            if (found && !sy_rndz_alive(out)) {
                sy_rndz_free(out);
                found = false;
            }
        } else if (depth > 0) {
            struct stat st;
            if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
                (st.st_uid == geteuid() || st.st_uid == 0))
                found = find_named(path, name, depth - 1, out);
        }
        free(path);
    }
    closedir(d);
    return found;
}

pmix_status_t sy_rndz_find_named(const char *dir, const char *name, sy_rndz_t *out)
{
    memset(out, 0, sizeof(*out));
    return find_named(dir, name, SY_RNDZ_NAMED_DEPTH, out) ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
}

static int newest_first(const void *a, const void *b)
{
    const sy_rndz_t *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? 1 : -1;
    return x->pid < y->pid ? 1 : x->pid > y->pid ? -1 : 0;
}

pmix_status_t sy_rndz_scan(const char *dir, sy_rndz_t **list, size_t *n)
{
    found_t f = {0};
    scan_dir(&f, dir, 1);
    if (f.n > 1)
        qsort(f.list, f.n, sizeof(*f.list), newest_first);
    *list = f.list;
    *n = f.n;
    return PMIX_SUCCESS;
}
