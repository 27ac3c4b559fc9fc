/* Job-data segments: the data of one namespace (or the node resources a
 * host registered) compiled into one read-only file that every process on
 * the node maps, so that a Get of job data is a lookup in shared memory:
 * no IPC, no thread hand-off (docs/data-format.md, "Job-data segments").
 *
 * A segment holds entries (realm, id, key) -> value, where id is
 *   SY_REALM_SESSION  the session id          SY_REALM_JOB   0 (unused)
 *   SY_REALM_APP      the application number  SY_REALM_NODE  the node id
 *   SY_REALM_PROC     the rank
 * and values keep exactly the type they were given.
 *
 * Writer (server, or a singleton client for itself): a builder collects
 * entries, then publishes the image to a file (written aside and renamed
 * into place, so a reader never sees a partial file).  Segments are never
 * modified once published, with one exception: an update (new resources,
 * more data for a namespace) is published as a new file, and the old one
 * is then marked superseded, naming the new path, by sy_jseg_supersede().
 * Readers notice the mark with one atomic load per lookup and switch to
 * the new file; their old mapping stays valid until they close it, so
 * nobody is ever stopped or sees torn data.
 *
 * A namespace's segment also holds the job's layout (jseg_layout.h): the
 * maps as ranges and the per-process values the host gave for many ranks
 * as runs.  What the maps say (a rank's node, host name, local rank,
 * application, a node's peers, ...) is derived from it when asked, so a
 * segment grows with the nodes and with what the host passed, not with
 * the ranks.  Lookups answer the entries first (what the host gave), then
 * the per-process runs, then derived values.
 *
 * Reader: sy_jseg_open() checks the header and the table of chunk sums
 * (nothing that grows with the job); every lookup checks the chunks and
 * records it reads the first time, so a corrupt or hostile file yields
 * PMIX_ERR_UNPACK_FAILURE (at open, or from the lookups that touch the
 * damage), never a crash or a value read from damaged bytes.  All reader
 * functions are thread-safe and lock-free on an open segment. */
#ifndef SWITCHYARD_COMMON_JSEG_H
#define SWITCHYARD_COMMON_JSEG_H
#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>

typedef enum {
    SY_REALM_SESSION = 0,
    SY_REALM_JOB = 1,
    SY_REALM_APP = 2,
    SY_REALM_NODE = 3,
    SY_REALM_PROC = 4,
    SY_REALM_COUNT = 5
} sy_realm_t;

/* ---- writer ---- */
typedef struct sy_jseg_builder sy_jseg_builder_t;

/* nspace may be NULL for a resources segment. */
pmix_status_t sy_jseg_builder_new(const char *nspace, sy_jseg_builder_t **out);
void sy_jseg_builder_free(sy_jseg_builder_t *b);
/* Add or replace (a later put of the same realm/id/key wins) one entry; the
 * value is deep-copied.  Any type the pack layer handles; PMIX_POINTER is
 * refused (PMIX_ERR_BAD_PARAM: an address means nothing in another
 * process).  A PMIX_STRING value with a NULL pointer is stored as such. */
pmix_status_t sy_jseg_put(sy_jseg_builder_t *b, sy_realm_t realm, uint32_t id, const char *key,
                          const pmix_value_t *val);
/* The same without the copy: *val (and whatever it points to) must stay
 * unchanged until the builder is freed. */
pmix_status_t sy_jseg_put_borrowed(sy_jseg_builder_t *b, sy_realm_t realm, uint32_t id,
                                   const char *key, const pmix_value_t *val);
/* The value stored so far, or NULL; valid until the next put/free. */
const pmix_value_t *sy_jseg_peek(const sy_jseg_builder_t *b, sy_realm_t realm, uint32_t id,
                                 const char *key);
/* Ids that have at least one entry in a realm, ascending (malloc'd array;
 * *n may be 0 with *ids NULL). */
pmix_status_t sy_jseg_builder_ids(const sy_jseg_builder_t *b, sy_realm_t realm, uint32_t **ids,
                                  size_t *n);
/* The job's layout section (jseg_layout.h), taken over (freed with the
 * builder); NULL removes it. */
void sy_jseg_set_layout(sy_jseg_builder_t *b, void *blob, size_t size);
/* Write the image to `path` with file mode `mode` (via path.tmp + rename). */
pmix_status_t sy_jseg_publish(const sy_jseg_builder_t *b, const char *path, unsigned mode);
/* The same in two steps, straight to `path` (no rename), for a name that no
 * reader is told before the image is complete, so none can see the file
 * half-written.  sy_jseg_create makes the empty file with `mode` (a
 * publisher may do that early, off its critical path); sy_jseg_publish_fd
 * writes the image into it, always closes fd and removes the file on
 * failure.  The image is built in *scratch (may be NULL), which a frequent
 * publisher keeps between calls so that its pages are not allocated and
 * faulted in every time; it is emptied when it grew above
 * SY_JSEG_SCRATCH_KEEP bytes, and otherwise released with
 * PMIX_DATA_BUFFER_DESTRUCT by its owner. */
#define SY_JSEG_SCRATCH_KEEP ((size_t)16 << 20)
pmix_status_t sy_jseg_create(const char *path, unsigned mode, int *fd);
pmix_status_t sy_jseg_publish_fd(const sy_jseg_builder_t *b, int fd, const char *path,
                                 pmix_data_buffer_t *scratch);
/* Mark the published segment at old_path as replaced by new_path. */
pmix_status_t sy_jseg_supersede(const char *old_path, const char *new_path);

/* ---- reader ---- */
typedef struct sy_jseg sy_jseg_t;

pmix_status_t sy_jseg_open(const char *path, sy_jseg_t **out);
/* sy_jseg_open in two steps, for a reader that may never need the data:
 * sy_jseg_map maps the file (which keeps it readable after an unlink) but
 * checks nothing but its size; until sy_jseg_check has accepted it, the
 * segment can only be checked or closed (lookups fail).  sy_jseg_check
 * checks its header the first time and returns the same status
 * afterwards; it writes the handle, so concurrent callers must exclude
 * each other and lookups. */
pmix_status_t sy_jseg_map(const char *path, sy_jseg_t **out);
pmix_status_t sy_jseg_check(sy_jseg_t *seg);
void sy_jseg_close(sy_jseg_t *seg);
/* NULL for a resources segment. */
const char *sy_jseg_nspace(const sy_jseg_t *seg);
/* NULL, or the path of the segment that replaced this one. */
const char *sy_jseg_superseded_by(const sy_jseg_t *seg);
/* A malloc'd copy of the value (PMIX_VALUE_RELEASE-able), exactly as put;
 * PMIX_ERR_NOT_FOUND when absent. */
pmix_status_t sy_jseg_get(const sy_jseg_t *seg, sy_realm_t realm, uint32_t id, const char *key,
                          pmix_value_t **out);
/* Every value of (realm, id), derived ones included, as a malloc'd
 * pmix_info_t array sorted by key (PMIX_INFO_FREE-able);
 * PMIX_ERR_NOT_FOUND when there is none. */
pmix_status_t sy_jseg_get_all(const sy_jseg_t *seg, sy_realm_t realm, uint32_t id,
                              pmix_info_t **infos, size_t *n);
/* Ids that have values in a realm, ascending, malloc'd. */
pmix_status_t sy_jseg_ids(const sy_jseg_t *seg, sy_realm_t realm, uint32_t **ids, size_t *n);
/* The node whose node-realm PMIX_HOSTNAME (or one of its
 * PMIX_HOSTNAME_ALIASES) equals `name`; the lowest id when several do. */
bool sy_jseg_node_by_name(const sy_jseg_t *seg, const char *name, uint32_t *nodeid);
/* A builder holding everything seg holds (its entries copied, its layout),
 * to publish an update of it. */
pmix_status_t sy_jseg_builder_new_from(const sy_jseg_t *seg, sy_jseg_builder_t **out);

#endif
