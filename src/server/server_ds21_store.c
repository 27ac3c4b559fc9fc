/* The ds21 datastore's files and their writer (server_ds21_store.h).
 * Layouts, as an OpenPMIx 4.2.2 client reads them (docs/wire-protocol.md):
 *   lock file: size_t size, u32 nlocks, size_t stride, size_t offset of
 *     mutex 0, int32 in_use[nlocks], then 2 x nlocks process-shared
 *     mutexes (slot k: 2k signals the writer's coming, 2k+1 guards reads);
 *   initial segment: size_t count, size_t full, entries of 288 bytes
 *     (name[256], size_t, int32 + pad, size_t nmeta, size_t ndata);
 *   meta segment: size_t (unused), then {rank, offset, count} per rank,
 *     slot rank + 1 (slot 0: the wildcard rank);
 *   data segments: size_t free offset, then records: size_t length with
 *     flags (bit 63 an extension slot, bit 62 invalidated), size_t sum of
 *     the key's chars, the key with its NUL, the value.  An offset is
 *     global: segment number x segment size + offset in it.  A rank's
 *     chain ends with an extension slot whose value is 0, and goes on
 *     where a non-zero one points. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/safefile.h"
#include "server/server_ds21_store.h"

#define EXT_FLAG ((size_t)1 << 63)
#define INVALID_FLAG ((size_t)1 << 62)
#define LEN_MASK (INVALID_FLAG - 1)
#define EXT_SIZE (2 * sizeof(size_t) + 1 + sizeof(size_t)) /* key "" */
#define ENTRY_SIZE 288
#define ENTRY_NMETA 272
#define ENTRY_NDATA 280
#define LOCK_HDR 32 /* size, nlocks (+pad), stride, mutex offset */
#define DEFAULT_DATA_SIZE (4u << 20)
#define CHUNK 1024 /* ranks per chunk of writer state */

typedef struct {
    char *key;
    size_t off; /* global offset of its record */
    size_t len; /* the record's length */
} key_t_;

typedef struct {
    size_t first; /* global offset of the chain, 0: none */
    size_t count; /* valid records */
    size_t tail;  /* global offset of the chain's last extension slot */
    key_t_ *keys;
    size_t nkeys, cap;
    bool mark;
} rank_t_;

struct sy_ds21 {
    char *dir, *nspace;
    sy_ds21_sizes_t sz;
    size_t page;
    uint32_t nranks, nlocks;
    bool lock_made, init_made, active; /* active: mapped, segments made */
    uint8_t *lock;
    size_t lock_size, stride, mutex_offs;
    uint8_t *init, *meta;
    uint8_t **data;
    size_t ndata;
    size_t free_off; /* in the last data segment */
    /* index rank + 1 (0: the wildcard rank), in chunks made when a rank
     * of theirs is first written: a job's size costs nothing until then */
    rank_t_ **chunks;
    size_t nchunks;
    bool broken;
};

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* The files' names, as the client makes them from the namespace */
typedef enum { DS_LOCK, DS_INITIAL, DS_META, DS_DATA } file_kind_t;

static char *file_path(const sy_ds21_t *d, file_kind_t kind, unsigned n)
{
    char *path = NULL;
    int rc = -1;
    switch (kind) {
    case DS_LOCK: rc = asprintf(&path, "%s/smlockseg-%s", d->dir, d->nspace); break;
    case DS_INITIAL: rc = asprintf(&path, "%s/initial-pmix_shared-segment-%u", d->dir, n); break;
    case DS_META: rc = asprintf(&path, "%s/smseg-%s-%u", d->dir, d->nspace, n); break;
    case DS_DATA: rc = asprintf(&path, "%s/smdataseg-%s-%u", d->dir, d->nspace, n); break;
    }
    return rc < 0 ? NULL : path;
}

/* A file of `size` bytes (sparse) starting with `len` bytes of head,
 * mapped shared when map; never through a name that existed (create), or
 * only a regular file of ours (!create).  NULL on failure; (void *)1 for
 * a file made and not mapped. */
static uint8_t *open_file(const char *path, bool create, size_t size, const void *head, size_t len,
                          bool map)
{
    int fd = create ? open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)
                    : open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        sy_log(SY_LOG_WARN, "ds21: cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    const char *why = NULL;
    void *p = MAP_FAILED;
    if (!sy_safe_fd_ours(fd, false, 077, &why))
        sy_log(SY_LOG_WARN, "ds21: %s %s", path, why);
    else if (create && ftruncate(fd, (off_t)size) != 0)
        sy_log(SY_LOG_WARN, "ds21: cannot size %s: %s", path, strerror(errno));
    else if (len > 0 && pwrite(fd, head, len, 0) != (ssize_t)len)
        sy_log(SY_LOG_WARN, "ds21: cannot write %s: %s", path, strerror(errno));
    else if (!map)
        p = (void *)1;
    else
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

static uint8_t *make_file(const char *path, size_t size)
{
    return open_file(path, true, size, NULL, 0, true);
}

static pmix_status_t add_data_segment(sy_ds21_t *d);

static pthread_mutex_t *mutex_at(const sy_ds21_t *d, uint32_t i)
{
    return (pthread_mutex_t *)(d->lock + d->mutex_offs + d->stride * i);
}

/* The lock file, written whole and not mapped: until a client of the
 * store connects (sy_ds21_lock), a namespace costs no mapping. */
static pmix_status_t make_lock(sy_ds21_t *d)
{
    long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    size_t l = line > 0 ? (size_t)line : 64;
    d->stride = round_up(sizeof(pthread_mutex_t), l);
    d->mutex_offs = round_up(LOCK_HDR + 4 * (size_t)d->nlocks, d->stride);
    d->lock_size = round_up(d->mutex_offs + 2 * (size_t)d->nlocks * d->stride, d->page);
    size_t used = d->mutex_offs + 2 * (size_t)d->nlocks * d->stride;
    uint8_t *img = calloc(1, used);
    if (img == NULL)
        return PMIX_ERR_NOMEM;
    memcpy(img, &d->lock_size, sizeof(size_t));
    memcpy(img + 8, &d->nlocks, sizeof(uint32_t));
    memcpy(img + 16, &d->stride, sizeof(size_t));
    memcpy(img + 24, &d->mutex_offs, sizeof(size_t));
    pthread_mutexattr_t a;
    int e = pthread_mutexattr_init(&a);
    /* robust: a reader that dies holding its mutex must not stop the
     * writer (a process-shared default mutex would, forever); an
     * unlocked mutex is its bytes, written into the file as they are */
    if (e == 0)
        e = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    if (e == 0)
        e = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    for (uint32_t i = 0; e == 0 && i < 2 * d->nlocks; i++)
        e = pthread_mutex_init((pthread_mutex_t *)(img + d->mutex_offs + d->stride * i), &a);
    pthread_mutexattr_destroy(&a);
    char *path = e == 0 ? file_path(d, DS_LOCK, 0) : NULL;
    d->lock_made = path != NULL && open_file(path, true, d->lock_size, img, used, false) != NULL;
    free(path);
    free(img);
    return e != 0 ? PMIX_ERR_INIT : d->lock_made ? PMIX_SUCCESS : PMIX_ERR_FILE_OPEN_FAILURE;
}

/* Map the lock file and the initial segment; make the meta and first
 * data segments; name them in the initial segment's entry. */
static pmix_status_t activate(sy_ds21_t *d)
{
    char *path = file_path(d, DS_LOCK, 0);
    d->lock = path != NULL ? open_file(path, false, d->lock_size, NULL, 0, true) : NULL;
    free(path);
    path = file_path(d, DS_INITIAL, 0);
    d->init = path != NULL ? open_file(path, false, d->sz.initial, NULL, 0, true) : NULL;
    free(path);
    path = file_path(d, DS_META, 0);
    d->meta =
        path != NULL && d->lock != NULL && d->init != NULL ? make_file(path, d->sz.meta) : NULL;
    free(path);
    if (d->meta == NULL)
        return PMIX_ERR_FILE_OPEN_FAILURE;
    size_t one = 1;
    memcpy(d->init + 16, d->nspace, strlen(d->nspace));
    memcpy(d->init + 16 + ENTRY_NMETA, &one, sizeof(one));
    pmix_status_t rc = add_data_segment(d);
    if (rc == PMIX_SUCCESS)
        memcpy(d->init, &one, sizeof(one)); /* one entry, not full */
    d->active = rc == PMIX_SUCCESS;
    return rc;
}

static pmix_status_t add_data_segment(sy_ds21_t *d)
{
    uint8_t **g = realloc(d->data, (d->ndata + 1) * sizeof(*g));
    if (g == NULL)
        return PMIX_ERR_NOMEM;
    d->data = g;
    char *path = file_path(d, DS_DATA, (unsigned)d->ndata);
    uint8_t *seg = path != NULL ? make_file(path, d->sz.data) : NULL;
    free(path);
    if (seg == NULL)
        return PMIX_ERR_FILE_OPEN_FAILURE;
    size_t start = sizeof(size_t);
    memcpy(seg, &start, sizeof(start));
    d->data[d->ndata++] = seg;
    d->free_off = start;
    /* readers map as many segments as the entry says: raised only once
     * the file exists */
    memcpy(d->init + 16 + ENTRY_NDATA, &d->ndata, sizeof(size_t));
    return PMIX_SUCCESS;
}

pmix_status_t sy_ds21_create(const char *dir, const char *nspace, uint32_t nranks, uint32_t nlocks,
                             const sy_ds21_sizes_t *sizes, sy_ds21_t **out)
{
    *out = NULL;
    if (!sy_safe_name(nspace) || strlen(nspace) > PMIX_MAX_NSLEN || nlocks == 0 ||
        nranks >= PMIX_RANK_VALID)
        return PMIX_ERR_BAD_PARAM;
    sy_ds21_t *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return PMIX_ERR_NOMEM;
    long pg = sysconf(_SC_PAGESIZE);
    d->page = pg > 0 ? (size_t)pg : 4096;
    d->nranks = nranks;
    d->nlocks = nlocks;
    d->sz.initial = sizes != NULL && sizes->initial ? sizes->initial : d->page;
    d->sz.meta = sizes != NULL && sizes->meta ? sizes->meta : 0;
    d->sz.data = sizes != NULL && sizes->data ? sizes->data : DEFAULT_DATA_SIZE;
    size_t meta_need = sizeof(size_t) + 3 * sizeof(size_t) * ((size_t)nranks + 1);
    if (d->sz.meta == 0)
        d->sz.meta = round_up(meta_need, d->page);
    /* the client raises a size below a page to a page: never below */
    pmix_status_t rc = PMIX_SUCCESS;
    if (d->sz.initial < d->page || d->sz.meta < d->page || d->sz.data < d->page ||
        d->sz.initial < 16 + ENTRY_SIZE || d->sz.meta < meta_need)
        rc = PMIX_ERR_BAD_PARAM; /* one meta segment holds every rank */
    d->nchunks = ((size_t)nranks + 1 + CHUNK - 1) / CHUNK;
    d->chunks = rc == PMIX_SUCCESS ? calloc(d->nchunks, sizeof(*d->chunks)) : NULL;
    d->dir = strdup(dir);
    d->nspace = strdup(nspace);
    if (rc == PMIX_SUCCESS && (d->chunks == NULL || d->dir == NULL || d->nspace == NULL))
        rc = PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS && mkdir(dir, 0700) != 0) {
        sy_log(SY_LOG_WARN, "ds21: cannot create %s: %s", dir, strerror(errno));
        free(d->dir);
        d->dir = NULL; /* not ours to remove */
        rc = PMIX_ERR_FILE_OPEN_FAILURE;
    }
    if (rc == PMIX_SUCCESS)
        rc = make_lock(d);
    if (rc == PMIX_SUCCESS) {
        /* no entry yet: it comes with the segments it names (activate) */
        char *path = file_path(d, DS_INITIAL, 0);
        d->init_made = path != NULL && open_file(path, true, d->sz.initial, NULL, 0, false) != NULL;
        free(path);
        rc = d->init_made ? PMIX_SUCCESS : PMIX_ERR_FILE_OPEN_FAILURE;
    }
    if (rc != PMIX_SUCCESS) {
        sy_ds21_destroy(d);
        return rc;
    }
    *out = d;
    return PMIX_SUCCESS;
}

const char *sy_ds21_dir(const sy_ds21_t *d)
{
    return d->dir;
}

void sy_ds21_sizes(const sy_ds21_t *d, sy_ds21_sizes_t *out)
{
    *out = d->sz;
}

bool sy_ds21_broken(const sy_ds21_t *d)
{
    return d->broken;
}

static void unmap_unlink(const sy_ds21_t *d, uint8_t *map, size_t size, bool made, file_kind_t kind,
                         unsigned n)
{
    if (map != NULL)
        munmap(map, size);
    char *path = made ? file_path(d, kind, n) : NULL;
    if (path != NULL)
        unlink(path);
    free(path);
}

void sy_ds21_destroy(sy_ds21_t *d)
{
    if (d == NULL)
        return;
    if (d->dir != NULL && d->nspace != NULL) {
        unmap_unlink(d, d->lock, d->lock_size, d->lock_made, DS_LOCK, 0);
        unmap_unlink(d, d->init, d->sz.initial, d->init_made, DS_INITIAL, 0);
        unmap_unlink(d, d->meta, d->sz.meta, d->meta != NULL, DS_META, 0);
        for (size_t i = 0; i < d->ndata; i++)
            unmap_unlink(d, d->data[i], d->sz.data, true, DS_DATA, (unsigned)i);
        if (rmdir(d->dir) != 0)
            sy_log(SY_LOG_WARN, "ds21: %s not removed: %s", d->dir, strerror(errno));
    }
    for (size_t c = 0; d->chunks != NULL && c < d->nchunks; c++) {
        for (size_t r = 0; d->chunks[c] != NULL && r < CHUNK; r++) {
            for (size_t k = 0; k < d->chunks[c][r].nkeys; k++)
                free(d->chunks[c][r].keys[k].key);
            free(d->chunks[c][r].keys);
        }
        free(d->chunks[c]);
    }
    free(d->chunks);
    free(d->data);
    free(d->dir);
    free(d->nspace);
    free(d);
}

/* ---- the lock ---- */

static int take(pthread_mutex_t *m, const struct timespec *until)
{
    int e = pthread_mutex_timedlock(m, until);
    if (e == EOWNERDEAD) {
        /* its reader died mid-read: reading changes nothing */
        pthread_mutex_consistent(m);
        e = 0;
    }
    return e;
}

pmix_status_t sy_ds21_lock(sy_ds21_t *d, unsigned timeout_ms)
{
    if (d->broken)
        return PMIX_ERR_TIMEOUT;
    if (!d->active && activate(d) != PMIX_SUCCESS) {
        d->broken = true;
        sy_log(SY_LOG_WARN, "ds21: the store of %s cannot be set up", d->nspace);
        return PMIX_ERR_FILE_OPEN_FAILURE;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    /* every signal mutex first: readers stop starting, then every reader
     * in progress finishes */
    uint32_t sig = 0, main = 0;
    int e = 0;
    while (e == 0 && sig < d->nlocks && (e = take(mutex_at(d, 2 * sig), &until)) == 0)
        sig++;
    while (e == 0 && main < d->nlocks && (e = take(mutex_at(d, 2 * main + 1), &until)) == 0)
        main++;
    if (e == 0)
        return PMIX_SUCCESS;
    for (uint32_t k = 0; k < sig; k++)
        pthread_mutex_unlock(mutex_at(d, 2 * k));
    for (uint32_t k = 0; k < main; k++)
        pthread_mutex_unlock(mutex_at(d, 2 * k + 1));
    d->broken = true;
    sy_log(SY_LOG_WARN, "ds21: a reader of %s holds its lock (%s): no more shared-memory writes",
           d->nspace, strerror(e));
    return PMIX_ERR_TIMEOUT;
}

void sy_ds21_unlock(sy_ds21_t *d)
{
    for (uint32_t i = 0; i < d->nlocks; i++) {
        pthread_mutex_unlock(mutex_at(d, 2 * i));
        pthread_mutex_unlock(mutex_at(d, 2 * i + 1));
    }
}

/* ---- records ---- */

static uint8_t *at(const sy_ds21_t *d, size_t global)
{
    return d->data[global / d->sz.data] + global % d->sz.data;
}

static size_t here(const sy_ds21_t *d)
{
    return (d->ndata - 1) * d->sz.data + d->free_off;
}

static size_t key_sum(const char *key)
{
    size_t h = 0;
    for (size_t i = 0; key[i] != '\0'; i++)
        h += (size_t)key[i]; /* char as the client has it */
    return h;
}

static void write_record(sy_ds21_t *d, size_t flags, const char *key, const void *v, size_t vlen)
{
    uint8_t *p = d->data[d->ndata - 1] + d->free_off;
    size_t klen = strlen(key) + 1, len = 2 * sizeof(size_t) + klen + vlen;
    size_t word = len | flags, h = key_sum(key);
    memcpy(p, &word, sizeof(word));
    memcpy(p + 8, &h, sizeof(h));
    memcpy(p + 16, key, klen);
    memcpy(p + 16 + klen, v, vlen);
    d->free_off += len;
    memcpy(d->data[d->ndata - 1], &d->free_off, sizeof(size_t));
}

static void write_ext(sy_ds21_t *d, size_t next)
{
    write_record(d, EXT_FLAG, "", &next, sizeof(next));
}

static void set_ext(sy_ds21_t *d, size_t ext, size_t next)
{
    memcpy(at(d, ext) + 2 * sizeof(size_t) + 1, &next, sizeof(next));
}

static key_t_ *find_key(rank_t_ *r, const char *key)
{
    for (size_t i = 0; i < r->nkeys; i++)
        if (strcmp(r->keys[i].key, key) == 0)
            return &r->keys[i];
    return NULL;
}

static void drop_key(rank_t_ *r, key_t_ *k)
{
    free(k->key);
    *k = r->keys[--r->nkeys];
}

/* A rank's writer state, made when create (NULL: no such rank, or no
 * memory for it). */
static rank_t_ *rank_of(sy_ds21_t *d, pmix_rank_t rank, bool create)
{
    if (rank != PMIX_RANK_WILDCARD && rank >= d->nranks)
        return NULL;
    size_t k = rank == PMIX_RANK_WILDCARD ? 0 : (size_t)rank + 1;
    rank_t_ **c = &d->chunks[k / CHUNK];
    if (*c == NULL && create)
        *c = calloc(CHUNK, sizeof(**c));
    return *c != NULL ? &(*c)[k % CHUNK] : NULL;
}

void sy_ds21_mark(sy_ds21_t *d, pmix_rank_t rank)
{
    rank_t_ *r = rank_of(d, rank, true);
    if (r != NULL)
        r->mark = true;
}

bool sy_ds21_marked(const sy_ds21_t *d, pmix_rank_t rank)
{
    rank_t_ *r = rank_of((sy_ds21_t *)d, rank, false);
    return r != NULL && r->mark;
}

pmix_status_t sy_ds21_put(sy_ds21_t *d, pmix_rank_t rank, const sy_ds21_kv_t *kvs, size_t n)
{
    if (d->broken || (rank != PMIX_RANK_WILDCARD && rank >= d->nranks))
        return PMIX_ERR_BAD_PARAM;
    rank_t_ *r = rank_of(d, rank, true);
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    size_t start = 0;    /* where this batch's first record (or link) went */
    size_t dead_end = 0; /* a link left at 0: no segment came after it */
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++) {
        size_t klen = strlen(kvs[i].key) + 1, len = 2 * sizeof(size_t) + klen + kvs[i].len;
        key_t_ *old = find_key(r, kvs[i].key);
        if (old != NULL && old->len == len) {
            memcpy(at(d, old->off) + 2 * sizeof(size_t) + klen, kvs[i].bytes, kvs[i].len);
            continue;
        }
        if (old != NULL) {
            uint8_t *p = at(d, old->off);
            size_t word;
            memcpy(&word, p, sizeof(word));
            word |= INVALID_FLAG;
            memcpy(p, &word, sizeof(word));
            r->count--;
            drop_key(r, old);
        }
        if (len + EXT_SIZE > d->sz.data - sizeof(size_t))
            continue; /* too large for a segment: the server answers it */
        if (r->cap == r->nkeys) {
            size_t cap = r->cap ? 2 * r->cap : 8;
            key_t_ *g = realloc(r->keys, cap * sizeof(*g));
            if (g == NULL) {
                rc = PMIX_ERR_NOMEM;
                break;
            }
            r->keys = g;
            r->cap = cap;
        }
        char *key = strdup(kvs[i].key);
        if (key == NULL) {
            rc = PMIX_ERR_NOMEM;
            break;
        }
        if (start == 0)
            start = here(d);
        if (d->free_off + len + EXT_SIZE > d->sz.data) {
            /* room for a link is always left: to the next segment */
            size_t link = here(d);
            write_ext(d, 0);
            rc = add_data_segment(d);
            if (rc != PMIX_SUCCESS) {
                free(key);
                if (start == link)
                    start = 0; /* nothing of this batch went in */
                else
                    dead_end = link; /* the chain's end, for now */
                break;
            }
            set_ext(d, link, here(d));
        }
        r->keys[r->nkeys++] = (key_t_){.key = key, .off = here(d), .len = len};
        write_record(d, 0, kvs[i].key, kvs[i].bytes, kvs[i].len);
        r->count++;
    }
    if (start != 0) {
        /* the batch ends its chain; the previous end now leads to it */
        size_t tail = dead_end;
        if (tail == 0) {
            tail = here(d);
            write_ext(d, 0);
        }
        if (r->first == 0)
            r->first = start;
        else
            set_ext(d, r->tail, start);
        r->tail = tail;
    }
    /* the rank's slot, published last */
    size_t slot[3] = {rank, r->first, r->count};
    size_t k = rank == PMIX_RANK_WILDCARD ? 0 : (size_t)rank + 1;
    memcpy(d->meta + sizeof(size_t) + k * sizeof(slot), slot, sizeof(slot));
    return rc;
}
