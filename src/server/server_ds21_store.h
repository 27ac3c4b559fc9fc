/* The shared-memory datastore OpenPMIx 4.2.x clients read when their
 * gds/ds21 component is offered (docs/wire-protocol.md, "OpenPMIx
 * protocol", ds21): one namespace's files in one directory of its own,
 *   smlockseg-<ns>                  the header and the readers' mutexes
 *   initial-pmix_shared-segment-0   the namespace's entry (segment counts)
 *   smseg-<ns>-0                    one {rank, offset, count} per rank
 *   smdataseg-<ns>-<N>              key records, chained per rank
 * laid out as the 4.2.2 client expects (native byte order and size_t).
 * Only the writer is here; values arrive already encoded (a v41 pack
 * call of one pmix_value_t).  One writer (the server's loop), many
 * readers in other processes, between sy_ds21_lock and sy_ds21_unlock. */
#ifndef SWITCHYARD_SERVER_DS21_STORE_H
#define SWITCHYARD_SERVER_DS21_STORE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

typedef struct sy_ds21 sy_ds21_t;

typedef struct {
    size_t initial; /* INITIAL_SEG_SIZE */
    size_t meta;    /* NS_META_SEG_SIZE */
    size_t data;    /* NS_DATA_SEG_SIZE */
} sy_ds21_sizes_t;

/* Create the files of nspace (nranks ranks, nlocks reader slots) in dir,
 * which is made here, exclusively (mode 0700).  sizes zero: the defaults
 * (page, enough for nranks, 4 MiB); *out gets the sizes used.  nspace
 * must be one safe path component. */
pmix_status_t sy_ds21_create(const char *dir, const char *nspace, uint32_t nranks, uint32_t nlocks,
                             const sy_ds21_sizes_t *sizes, sy_ds21_t **out);
const char *sy_ds21_dir(const sy_ds21_t *d);
void sy_ds21_sizes(const sy_ds21_t *d, sy_ds21_sizes_t *out);
/* Unmap, unlink every file and remove the directory. */
void sy_ds21_destroy(sy_ds21_t *d);

/* Take every reader's mutex (robust: a reader that died holding one does
 * not stop us).  PMIX_ERR_TIMEOUT after timeout_ms when a live reader
 * holds one: then nothing is held and the store takes no more writes
 * (its readers fall back to asking the server). */
pmix_status_t sy_ds21_lock(sy_ds21_t *d, unsigned timeout_ms);
void sy_ds21_unlock(sy_ds21_t *d);
bool sy_ds21_broken(const sy_ds21_t *d);

/* Under the lock: the key/value records of rank (PMIX_RANK_WILDCARD or
 * < nranks).  A key stored before is replaced (in place when the size is
 * the same, else the old record is invalidated).  A record larger than a
 * data segment is left out (its old value invalidated): readers then ask
 * the server.  Other errors: the store is left consistent. */
typedef struct {
    const char *key;
    const void *bytes; /* the encoded value */
    size_t len;
} sy_ds21_kv_t;
pmix_status_t sy_ds21_put(sy_ds21_t *d, pmix_rank_t rank, const sy_ds21_kv_t *kvs, size_t n);

/* Marks kept per rank for the caller (e.g. "its commits come here"). */
void sy_ds21_mark(sy_ds21_t *d, pmix_rank_t rank);
bool sy_ds21_marked(const sy_ds21_t *d, pmix_rank_t rank);
#endif
