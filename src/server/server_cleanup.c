/* Cleanup registered through PMIx_Job_control (Chap_API_Job_Mgmt.tex):
 * PMIX_REGISTER_CLEANUP (files), PMIX_REGISTER_CLEANUP_DIR (directories),
 * PMIX_CLEANUP_RECURSIVE, PMIX_CLEANUP_EMPTY, PMIX_CLEANUP_IGNORE and
 * PMIX_CLEANUP_LEAVE_TOPDIR are the server library's to carry out, not
 * the host's (Slurm answers job control NOT_SUPPORTED, and Open MPI's
 * ranks register their session directories this way).  Loop only.
 *
 * Scope, as OpenPMIx 4.2.2 has it: no targets (or a WILDCARD rank) means
 * the requester's job, cleaned when its namespace is deregistered; a
 * target rank is cleaned when that client finalizes or its connection
 * ends.  Whatever is left is cleaned at PMIx_server_finalize.
 *
 * The server often runs as root for clients that are not.  It removes
 * only what the requesting client could remove itself: entries it owns,
 * in directories it may write; it never follows a symbolic link (a link
 * is removed as itself, never entered), never leaves the file system of
 * the registered directory, and walks by directory descriptor so that a
 * path changed meanwhile cannot lead it elsewhere.  Relative paths are
 * refused: they would be the server's, not the client's. */
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

#include "common/info.h"
#include "common/log.h"
#include "server/server_internal.h"
#include "server/server_cleanup.h"

#define SY_CLEANUP_MAX_DEPTH 64

typedef struct entry {
    char *path;
    bool dir, recursive, empty_only, leave_top;
    uid_t uid; /* the requester's: only what it could remove */
    gid_t gid;
    struct entry *next;
} entry_t;

typedef struct scope {
    pmix_proc_t proc; /* rank PMIX_RANK_WILDCARD: the whole job */
    entry_t *entries; /* in registration order */
    char **ignores;
    size_t nignores;
    struct scope *next;
} scope_t;

static scope_t *scopes;

static bool is_cleanup_key(const pmix_info_t *i)
{
    return PMIX_CHECK_KEY(i, PMIX_REGISTER_CLEANUP) ||
           PMIX_CHECK_KEY(i, PMIX_REGISTER_CLEANUP_DIR) ||
           PMIX_CHECK_KEY(i, PMIX_CLEANUP_RECURSIVE) || PMIX_CHECK_KEY(i, PMIX_CLEANUP_EMPTY) ||
           PMIX_CHECK_KEY(i, PMIX_CLEANUP_IGNORE) || PMIX_CHECK_KEY(i, PMIX_CLEANUP_LEAVE_TOPDIR);
}

static scope_t *scope_get(const pmix_proc_t *proc)
{
    for (scope_t *s = scopes; s != NULL; s = s->next)
        if (PMIX_CHECK_PROCID(&s->proc, proc) && s->proc.rank == proc->rank)
            return s;
    scope_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    PMIX_LOAD_PROCID(&s->proc, proc->nspace, proc->rank);
    s->next = scopes;
    scopes = s;
    return s;
}

static void scope_free(scope_t *s)
{
    while (s->entries != NULL) {
        entry_t *e = s->entries;
        s->entries = e->next;
        free(e->path);
        free(e);
    }
    for (size_t i = 0; i < s->nignores; i++)
        free(s->ignores[i]);
    free(s->ignores);
    free(s);
}

/* ---- what the directives ask ---- */

typedef struct {
    char **files, **dirs, **ignores;
    size_t nfiles, ndirs, nignores;
    bool recursive, empty_only, leave_top;
} request_t;

static void strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void request_free(request_t *q)
{
    strv_free(q->files, q->nfiles);
    strv_free(q->dirs, q->ndirs);
    strv_free(q->ignores, q->nignores);
}

/* Append each element of a comma-separated list of absolute paths. */
static pmix_status_t add_paths(const pmix_info_t *i, char ***v, size_t *n)
{
    if (i->value.type != PMIX_STRING || i->value.data.string == NULL)
        return PMIX_ERR_BAD_PARAM;
    const char *s = i->value.data.string;
    while (*s != '\0') {
        size_t len = strcspn(s, ",");
        if (len > 0) {
            if (s[0] != '/')
                return PMIX_ERR_BAD_PARAM;
            char **grown = realloc(*v, (*n + 1) * sizeof(char *));
            if (grown == NULL)
                return PMIX_ERR_NOMEM;
            *v = grown;
            /* without trailing slashes, so that names compare */
            while (len > 1 && s[len - 1] == '/')
                len--;
            if (((*v)[*n] = strndup(s, len)) == NULL)
                return PMIX_ERR_NOMEM;
            (*n)++;
        }
        s += strcspn(s, ",");
        if (*s == ',')
            s++;
    }
    return PMIX_SUCCESS;
}

static pmix_status_t parse(const pmix_info_t *dirs, size_t ndirs, request_t *q)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t k = 0; k < ndirs && rc == PMIX_SUCCESS; k++) {
        const pmix_info_t *i = &dirs[k];
        if (PMIX_CHECK_KEY(i, PMIX_REGISTER_CLEANUP))
            rc = add_paths(i, &q->files, &q->nfiles);
        else if (PMIX_CHECK_KEY(i, PMIX_REGISTER_CLEANUP_DIR))
            rc = add_paths(i, &q->dirs, &q->ndirs);
        else if (PMIX_CHECK_KEY(i, PMIX_CLEANUP_IGNORE))
            rc = add_paths(i, &q->ignores, &q->nignores);
        else if (PMIX_CHECK_KEY(i, PMIX_CLEANUP_RECURSIVE))
            q->recursive = sy_info_true(i);
        else if (PMIX_CHECK_KEY(i, PMIX_CLEANUP_EMPTY))
            q->empty_only = sy_info_true(i);
        else if (PMIX_CHECK_KEY(i, PMIX_CLEANUP_LEAVE_TOPDIR))
            q->leave_top = sy_info_true(i);
    }
    return rc;
}

static bool in(char *const *v, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], path) == 0)
            return true;
    return false;
}

/* A path both to remove and to keep, in the request or against what the
 * scope holds: the standard's PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES. */
static bool conflicts(const scope_t *s, const request_t *q)
{
    for (size_t i = 0; i < q->nignores; i++) {
        if (in(q->files, q->nfiles, q->ignores[i]) || in(q->dirs, q->ndirs, q->ignores[i]))
            return true;
        for (const entry_t *e = s->entries; e != NULL; e = e->next)
            if (strcmp(e->path, q->ignores[i]) == 0)
                return true;
    }
    for (const entry_t *e = s->entries; e != NULL; e = e->next)
        if (in(q->ignores, q->nignores, e->path))
            return true;
    for (size_t i = 0; i < q->nfiles; i++)
        if (in(s->ignores, s->nignores, q->files[i]))
            return true;
    for (size_t i = 0; i < q->ndirs; i++)
        if (in(s->ignores, s->nignores, q->dirs[i]))
            return true;
    return false;
}

static pmix_status_t add_entry(scope_t *s, const char *path, bool dir, const request_t *q,
                               const sy_srv_client_t *c)
{
    entry_t **pp = &s->entries;
    for (; *pp != NULL; pp = &(*pp)->next) {
        entry_t *e = *pp;
        if (e->dir == dir && strcmp(e->path, path) == 0) {
            /* registered again: the broader request wins */
            e->recursive = e->recursive || q->recursive;
            e->leave_top = e->leave_top || q->leave_top;
            e->empty_only = e->empty_only && q->empty_only;
            return PMIX_SUCCESS;
        }
    }
    entry_t *e = calloc(1, sizeof(*e));
    if (e == NULL || (e->path = strdup(path)) == NULL) {
        free(e);
        return PMIX_ERR_NOMEM;
    }
    e->dir = dir;
    e->recursive = dir && q->recursive;
    e->empty_only = dir && q->empty_only;
    e->leave_top = dir && q->leave_top;
    e->uid = c->uid;
    e->gid = c->gid;
    *pp = e;
    return PMIX_SUCCESS;
}

static pmix_status_t record(scope_t *s, const request_t *q, const sy_srv_client_t *c)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < q->nignores && rc == PMIX_SUCCESS; i++) {
        if (in(s->ignores, s->nignores, q->ignores[i]))
            continue;
        char **grown = realloc(s->ignores, (s->nignores + 1) * sizeof(char *));
        if (grown == NULL)
            return PMIX_ERR_NOMEM;
        s->ignores = grown;
        if ((s->ignores[s->nignores] = strdup(q->ignores[i])) == NULL)
            return PMIX_ERR_NOMEM;
        s->nignores++;
    }
    for (size_t i = 0; i < q->nfiles && rc == PMIX_SUCCESS; i++)
        rc = add_entry(s, q->files[i], false, q, c);
    for (size_t i = 0; i < q->ndirs && rc == PMIX_SUCCESS; i++)
        rc = add_entry(s, q->dirs[i], true, q, c);
    return rc;
}

pmix_status_t sy_srv_cleanup_take(const sy_srv_client_t *c, const pmix_proc_t *targets,
                                  size_t ntargets, pmix_info_t **dirs, size_t *ndirs, bool *had)
{
    *had = false;
    size_t ours = 0;
    for (size_t i = 0; i < *ndirs; i++)
        ours += is_cleanup_key(&(*dirs)[i]);
    if (ours == 0)
        return PMIX_SUCCESS;
    *had = true;
    request_t q = {0};
    pmix_status_t rc = parse(*dirs, *ndirs, &q);
    /* every target's scope first, so that a conflict changes nothing */
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, c->proc.nspace, PMIX_RANK_WILDCARD);
    size_t n = ntargets > 0 ? ntargets : 1;
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++) {
        const pmix_proc_t *t = ntargets > 0 ? &targets[i] : &job;
        scope_t *s = scope_get(t);
        if (s == NULL)
            rc = PMIX_ERR_NOMEM;
        else if (conflicts(s, &q))
            rc = PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES;
    }
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++)
        rc = record(scope_get(ntargets > 0 ? &targets[i] : &job), &q, c);
    if (sy_log_enabled(SY_LOG_DEBUG))
        sy_log(SY_LOG_DEBUG,
               "cleanup: %s:%u registers %zu files, %zu directories%s, %zu ignores (%s): %s",
               c->proc.nspace, c->proc.rank, q.nfiles, q.ndirs, q.recursive ? " (recursive)" : "",
               q.nignores, ntargets > 0 ? "its processes" : "its job", PMIx_Error_string(rc));
    request_free(&q);
    if (rc != PMIX_SUCCESS)
        return rc;
    /* what is left is the host's */
    size_t k = 0;
    for (size_t i = 0; i < *ndirs; i++) {
        pmix_info_t *d = &(*dirs)[i];
        if (is_cleanup_key(d)) {
            PMIX_INFO_DESTRUCT(d);
        } else {
            if (k != i) { /* moved: the value goes with it */
                (*dirs)[k] = *d;
                memset(d, 0, sizeof(*d));
            }
            k++;
        }
    }
    if (k == 0) {
        free(*dirs);
        *dirs = NULL;
    }
    *ndirs = k;
    return PMIX_SUCCESS;
}

/* ---- carrying it out ---- */

/* May the client (uid, gid) remove entry st from directory d?  It must
 * own the entry and be able to write and search the directory (group
 * rights by its primary group only: conservative). */
static bool may_remove(const struct stat *d, const struct stat *st, uid_t uid, gid_t gid)
{
    if (uid == 0)
        return true;
    if (st->st_uid != uid)
        return false;
    mode_t m = d->st_mode;
    if (d->st_uid == uid)
        return (m & S_IWUSR) && (m & S_IXUSR);
    if (d->st_gid == gid)
        return (m & S_IWGRP) && (m & S_IXGRP);
    return (m & S_IWOTH) && (m & S_IXOTH);
}

/* May it list and empty directory d? */
static bool may_empty(const struct stat *d, uid_t uid, gid_t gid)
{
    if (uid == 0)
        return true;
    mode_t need = d->st_uid == uid ? S_IRWXU : d->st_gid == gid ? S_IRWXG : S_IRWXO;
    return (d->st_mode & need) == need;
}

static bool ignored(const scope_t *s, const char *path)
{
    return in(s->ignores, s->nignores, path);
}

/* Empty the directory open as dfd (stat ds, path for the ignore list). */
static void empty_dir(const scope_t *s, const entry_t *e, int dfd, const struct stat *ds,
                      const char *path, int depth)
{
    if (!may_empty(ds, e->uid, e->gid))
        return;
    int lfd = dup(dfd);
    DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
    if (d == NULL) {
        if (lfd >= 0)
            close(lfd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        char *sub = NULL;
        if (asprintf(&sub, "%s/%s", path, name) < 0)
            break;
        struct stat st;
        if (!ignored(s, sub) && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            may_remove(ds, &st, e->uid, e->gid)) {
            if (!S_ISDIR(st.st_mode)) {
                if (!e->empty_only)
                    unlinkat(dfd, name, 0);
            } else if (e->recursive && depth < SY_CLEANUP_MAX_DEPTH && st.st_dev == ds->st_dev) {
                /* entered by descriptor, never through a link, and only
                 * if it is still what was checked */
                int cfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                struct stat cs;
                if (cfd >= 0 && fstat(cfd, &cs) == 0 && cs.st_ino == st.st_ino &&
                    cs.st_dev == st.st_dev) {
                    empty_dir(s, e, cfd, &cs, sub, depth + 1);
                    unlinkat(dfd, name, AT_REMOVEDIR); /* fails if something stayed */
                }
                if (cfd >= 0)
                    close(cfd);
            }
        }
        free(sub);
    }
    closedir(d);
}

static void carry_out(const scope_t *s, const entry_t *e)
{
    if (ignored(s, e->path))
        return;
    const char *slash = strrchr(e->path, '/');
    char *parent = slash == e->path ? strdup("/") : strndup(e->path, (size_t)(slash - e->path));
    const char *name = slash + 1;
    if (parent == NULL || *name == '\0') {
        free(parent);
        return;
    }
    int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(parent);
    struct stat ps, st;
    if (pfd < 0 || fstat(pfd, &ps) != 0 || fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (pfd >= 0)
            close(pfd);
        return; /* gone already, most often */
    }
    bool removable = may_remove(&ps, &st, e->uid, e->gid);
    if (!e->dir) {
        if (!S_ISDIR(st.st_mode) && removable)
            unlinkat(pfd, name, 0);
        else if (!removable)
            sy_log(SY_LOG_INFO, "cleanup: %s left: not removable by uid %ld", e->path,
                   (long)e->uid);
    } else if (S_ISDIR(st.st_mode) && (e->uid == 0 || st.st_uid == e->uid)) {
        /* the client's own directory: emptied as it could; removed too
         * when its parent lets the client do that */
        int dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat ds;
        if (dfd >= 0 && fstat(dfd, &ds) == 0 && ds.st_ino == st.st_ino && ds.st_dev == st.st_dev) {
            empty_dir(s, e, dfd, &ds, e->path, 0);
            if (!e->leave_top && removable)
                unlinkat(pfd, name, AT_REMOVEDIR);
        }
        if (dfd >= 0)
            close(dfd);
    }
    close(pfd);
}

/* Files first, then directories, as registered. */
static void run_scope(scope_t *s)
{
    for (const entry_t *e = s->entries; e != NULL; e = e->next)
        if (!e->dir)
            carry_out(s, e);
    for (const entry_t *e = s->entries; e != NULL; e = e->next)
        if (e->dir)
            carry_out(s, e);
}

/* Run and drop the scopes that match (NULL nspace: all). */
static void run_matching(const char *nspace, const pmix_rank_t *rank)
{
    scope_t **pp = &scopes;
    while (*pp != NULL) {
        scope_t *s = *pp;
        bool match = nspace == NULL || (PMIX_CHECK_NSPACE(s->proc.nspace, nspace) &&
                                        (rank == NULL || s->proc.rank == *rank));
        if (!match) {
            pp = &s->next;
            continue;
        }
        *pp = s->next;
        run_scope(s);
        scope_free(s);
    }
}

void sy_srv_cleanup_proc_gone(const pmix_proc_t *proc)
{
    if (proc->rank == PMIX_RANK_WILDCARD)
        return;
    run_matching(proc->nspace, &proc->rank);
}

void sy_srv_cleanup_nspace_gone(const char *nspace)
{
    run_matching(nspace, NULL);
}

void sy_srv_cleanup_finalize(void)
{
    run_matching(NULL, NULL);
}
