/* Reading the rendezvous files servers leave for tools
 * (docs/wire-protocol.md, "Finding a server"): a server writes them
 * (src/server/server_listen.c), tools read them to find a server and its
 * credentials, and queries for PMIX_QUERY_AVAIL_SERVERS list them.
 *
 * A file is text: the server's URI on the first line (empty without TCP),
 * then "key:value" lines (version, pid, start, pstart, usock, nspace,
 * rank, hostname, token).  OpenPMIx's servers write the URI, version,
 * pid, "uid:gid" and a date, one a line, without keys: those are read too
 * (sy_rndz_t.openpmix).  Only files owned by this user or by root are
 * trusted: anyone can create files in /tmp, and a tool must not hand its
 * stdin to a stranger's server. */
#ifndef SWITCHYARD_COMMON_RENDEZVOUS_H
#define SWITCHYARD_COMMON_RENDEZVOUS_H

#include <stdbool.h>
#include <sys/types.h>

#include <pmix_common.h>

typedef struct {
    char *path;  /* the file it was read from */
    char *uri;   /* "<nspace>.<rank>;tcp4://addr:port", or NULL */
    char *usock; /* UNIX socket path, or NULL */
    char *version;
    char *hostname;
    char *token; /* the server's secret for tools over TCP, or NULL */
    pmix_proc_t server;
    pid_t pid;
    long long start;           /* when it started serving, seconds since the epoch */
    unsigned long long pstart; /* its process's start, ticks since boot (0: unknown) */
    bool system;               /* a pmix.sys.<host> file */
    bool openpmix;             /* written by an OpenPMIx server: speak its protocol */
} sy_rndz_t;

/* Parse one file.  PMIX_ERR_NOT_FOUND: no such file; PMIX_ERR_NO_PERMISSIONS:
 * unreadable, or owned by another user than us or root; PMIX_ERR_BAD_PARAM:
 * not a rendezvous file of ours (no pid, or no way to connect). */
pmix_status_t sy_rndz_read(const char *path, sy_rndz_t *out);
/* The same from an open fd (the caller opened it without following
 * symlinks); path is what out->path records. */
pmix_status_t sy_rndz_read_fd(int fd, const char *path, sy_rndz_t *out);
void sy_rndz_free(sy_rndz_t *r);
/* The process that wrote it still runs (its pid is alive and, when the
 * file records it, has the same start time: not a reused pid). */
bool sy_rndz_alive(const sy_rndz_t *r);

/* Every live server announced in `dir` or in its immediate subdirectories
 * (pmix.*.tool.* and pmix.sys.* files), one entry per server (the same
 * server writes several files), newest first.  *list is malloc'd
 * (sy_rndz_list_free). */
pmix_status_t sy_rndz_scan(const char *dir, sy_rndz_t **list, size_t *n);
void sy_rndz_list_free(sy_rndz_t *list, size_t n);
/* The live server announced by a file called `name` (e.g.
 * "pmix.<host>.tool.<pid>") in dir or a directory below it, a few levels
 * down (OpenPMIx servers write theirs into their session directories),
 * through directories of ours or root's only.  PMIX_ERR_NOT_FOUND. */
pmix_status_t sy_rndz_find_named(const char *dir, const char *name, sy_rndz_t *out);

/* The directory tools search by default: $TMPDIR when absolute, else /tmp. */
const char *sy_rndz_default_dir(void);

/* "<nspace>.<rank>;tcp4://<addr>:<port>" or tcp6://[addr]:port: the host and
 * port to dial (the nspace part is optional). */
pmix_status_t sy_rndz_parse_uri(const char *uri, char *host, size_t hostlen, int *port);

#endif
