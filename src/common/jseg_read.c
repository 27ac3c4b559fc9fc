/* Job-data segment reader: open (the header and the table of chunk sums,
 * nothing that grows with the job), lookups that check each chunk and
 * record they touch, decoding values, and the layout's derived values
 * behind the entries (layout in jseg_format.h and jseg_layout.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/jseg.h"
#include "common/jseg_format.h"
#include "common/jseg_internal.h"
#include "common/jseg_layout.h"
#include "common/log.h"
#include "common/pack.h"

/* Segments up to this size are mapped with MAP_POPULATE (sy_jseg_map). */
#define SY_JSEG_POPULATE_MAX ((uint64_t)8 << 20)

/* Lookups read offsets from the file: only after its header was checked. */
static inline bool usable(const sy_jseg_t *seg)
{
    return seg->checked && seg->check_rc == PMIX_SUCCESS;
}

/* ---- chunks ---- */

static bool chunk_check(const sy_jseg_t *seg, uint64_t c)
{
    uint64_t bit = 1ull << (c & 63);
    uint64_t from = seg->data_off + (c << SY_JSEG_CHUNK_SHIFT);
    uint64_t len = seg->data_end - from < SY_JSEG_CHUNK ? seg->data_end - from : SY_JSEG_CHUNK;
    if ((uint32_t)sy_jseg_sum(seg->base + from, len, from) != seg->sums[c]) {
        return false;
    }
    /* the bytes never change: a racing thread that checks again is harmless */
    __atomic_fetch_or(&seg->chunk_ok[c >> 6], bit, __ATOMIC_RELAXED);
    return true;
}

const void *sy_jseg_at_slow(const sy_jseg_t *seg, uint64_t off, uint64_t len)
{
    if (off < seg->data_off || off > seg->data_end || len > seg->data_end - off) {
        return NULL;
    }
    if (len > 0) {
        uint64_t first = (off - seg->data_off) >> SY_JSEG_CHUNK_SHIFT;
        uint64_t last = (off + len - 1 - seg->data_off) >> SY_JSEG_CHUNK_SHIFT;
        for (uint64_t c = first; c <= last; c++) {
            if ((__atomic_load_n(&seg->chunk_ok[c >> 6], __ATOMIC_RELAXED) & (1ull << (c & 63))) ==
                    0 &&
                !chunk_check(seg, c)) {
                return NULL;
            }
        }
    }
    return seg->base + off;
}

/* ---- entries ---- */

/* sy_type_size of the types stored raw, 0 for the others: a table, since
 * every decoded value is checked against it. */
static uint8_t raw_size[256];
static bool raw_ready;
static pthread_once_t raw_once = PTHREAD_ONCE_INIT;

static void raw_sizes(void)
{
    for (unsigned t = 0; t < 256; t++) {
        size_t size = sy_jseg_raw_type((pmix_data_type_t)t) ? sy_type_size((pmix_data_type_t)t) : 0;
        raw_size[t] = size <= sizeof(((pmix_value_t *)0)->data) ? (uint8_t)size : 0;
    }
    __atomic_store_n(&raw_ready, true, __ATOMIC_RELEASE);
}

static size_t raw_type_size(uint16_t type)
{
    if (!__atomic_load_n(&raw_ready, __ATOMIC_ACQUIRE)) {
        pthread_once(&raw_once, raw_sizes);
    }
    return type < 256 ? raw_size[type] : 0;
}

static const sy_jseg_entry_t *entry_at(const sy_jseg_t *seg, uint32_t i)
{
    return i < seg->nentries
               ? sy_jseg_at(seg, seg->hdr->entries_off + (uint64_t)i * sizeof(sy_jseg_entry_t),
                            sizeof(sy_jseg_entry_t))
               : NULL;
}

/* The key of an entry, checked: in bounds, terminated, no NUL inside,
 * hashed as the entry says. */
static const char *entry_key(const sy_jseg_t *seg, const sy_jseg_entry_t *e)
{
    const sy_jseg_header_t *h = seg->hdr;
    if (e->realm >= SY_REALM_COUNT || e->key_len == 0 || e->key_len > PMIX_MAX_KEYLEN ||
        e->key_off > h->keys_size || (uint64_t)e->key_len + 1 > h->keys_size - e->key_off) {
        return NULL;
    }
    const char *key = sy_jseg_at(seg, h->keys_off + e->key_off, (uint64_t)e->key_len + 1);
    if (key == NULL || key[e->key_len] != '\0' || memchr(key, '\0', e->key_len) != NULL ||
        e->hash != sy_jseg_hash((sy_realm_t)e->realm, e->id, key, e->key_len)) {
        return NULL;
    }
    return key;
}

/* Decode entry e into the caller's zeroed value, checking its encoding. */
static pmix_status_t decode_into(const sy_jseg_t *seg, const sy_jseg_entry_t *e, pmix_value_t *v)
{
    const sy_jseg_header_t *h = seg->hdr;
    pmix_data_buffer_t buf;
    pmix_status_t rc;

    if (e->val_off > h->values_size || e->val_len > h->values_size - e->val_off) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    const uint8_t *p = sy_jseg_at(seg, h->values_off + e->val_off, e->val_len);
    if (p == NULL) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    switch (e->form) {
    case SY_JSEG_FORM_RAW:
        if (e->val_len == 0 || e->val_len != raw_type_size(e->type) ||
            (e->type == PMIX_BOOL && p[0] > 1)) {
            return PMIX_ERR_UNPACK_FAILURE; /* a bool must be 0 or 1 to be a C bool */
        }
        v->type = e->type;
        memcpy(&v->data, p, e->val_len);
        return PMIX_SUCCESS;
    case SY_JSEG_FORM_STRING:
        if (e->type != PMIX_STRING ||
            (e->val_len != 0 && memchr(p, '\0', e->val_len) != p + e->val_len - 1)) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        v->type = PMIX_STRING;
        if (e->val_len != 0) {
            v->data.string = malloc(e->val_len);
            if (v->data.string == NULL) {
                return PMIX_ERR_NOMEM;
            }
            memcpy(v->data.string, p, e->val_len);
        }
        return PMIX_SUCCESS;
    case SY_JSEG_FORM_PACKED:
        if (e->type == PMIX_STRING || sy_jseg_raw_type(e->type) || e->type == PMIX_POINTER ||
            e->type == PMIX_TOPO) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        /* the buffer only reads through unpack_ptr, never frees or writes */
        memset(&buf, 0, sizeof(buf));
        buf.base_ptr = (char *)p;
        buf.unpack_ptr = buf.base_ptr;
        buf.pack_ptr = buf.base_ptr + e->val_len;
        buf.bytes_allocated = e->val_len;
        buf.bytes_used = e->val_len;
        rc = sy_unpack_elems(&buf, v, 1, PMIX_VALUE, 0);
        if (rc == PMIX_SUCCESS && (buf.unpack_ptr != buf.pack_ptr || v->type != e->type)) {
            sy_value_destruct(v);
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
        return rc == PMIX_SUCCESS ? rc : PMIX_ERR_UNPACK_FAILURE;
    default: return PMIX_ERR_UNPACK_FAILURE;
    }
}

/* ---- opening ---- */

static bool range_ok(uint64_t off, uint64_t len, uint64_t from, uint64_t to)
{
    return off >= from && off <= to && len <= to - off;
}

static bool header_ok(const sy_jseg_header_t *h, size_t size)
{
    if (size < sizeof(*h) || memcmp(h->magic, SY_JSEG_MAGIC, SY_JSEG_MAGIC_LEN) != 0 ||
        h->version != SY_JSEG_VERSION || h->byte_order != SY_JSEG_BYTE_ORDER ||
        h->file_size != size || h->has_nspace > 1 || h->checksum != sy_jseg_header_sum(h)) {
        return false;
    }
    uint64_t from = h->data_off, to = h->sums_off;
    if (from < sizeof(*h) || from % SY_JSEG_ALIGN || to % SY_JSEG_ALIGN || to < from || to > size ||
        h->nchunks != ((to - from + SY_JSEG_CHUNK - 1) >> SY_JSEG_CHUNK_SHIFT) ||
        (size - to) / sizeof(uint32_t) < h->nchunks) {
        return false;
    }
    if (h->nslots < 2 || (h->nslots & (h->nslots - 1)) != 0 ||
        (uint64_t)h->nslots < 2 * (uint64_t)h->nentries || h->max_probe == 0 ||
        h->max_probe > h->nslots) {
        return false;
    }
    if (h->entries_off % SY_JSEG_ALIGN || h->slots_off % SY_JSEG_ALIGN ||
        h->names_off % SY_JSEG_ALIGN || h->layout_off % SY_JSEG_ALIGN ||
        !range_ok(h->entries_off, (uint64_t)h->nentries * sizeof(sy_jseg_entry_t), from, to) ||
        !range_ok(h->slots_off, (uint64_t)h->nslots * sizeof(uint32_t), from, to) ||
        !range_ok(h->names_off, (uint64_t)h->nnames * sizeof(sy_jseg_name_t), from, to) ||
        !range_ok(h->keys_off, h->keys_size, from, to) ||
        !range_ok(h->values_off, h->values_size, from, to) ||
        !range_ok(h->strings_off, h->strings_size, from, to) ||
        !range_ok(h->layout_off, h->layout_size, from, to)) {
        return false;
    }
    if (h->has_nspace && memchr(h->nspace, '\0', sizeof(h->nspace)) == NULL) {
        return false;
    }
    const uint8_t *sums = (const uint8_t *)h + to;
    return h->sums_check == sy_jseg_sum(sums, size - to, to);
}

static pmix_status_t validate(sy_jseg_t *seg)
{
    const sy_jseg_header_t *h = (const sy_jseg_header_t *)seg->base;

    if (!header_ok(h, seg->size)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    seg->hdr = h;
    seg->data_off = h->data_off;
    seg->data_end = h->sums_off;
    seg->sums = (const uint32_t *)(seg->base + h->sums_off);
    seg->nchunks = h->nchunks;
    seg->chunk_ok = calloc(((size_t)h->nchunks + 63) / 64 + 1, sizeof(uint64_t));
    if (seg->chunk_ok == NULL) {
        return PMIX_ERR_NOMEM;
    }
    seg->nentries = h->nentries;
    seg->mask = h->nslots - 1;
    seg->max_probe = h->max_probe;
    seg->nnames = h->nnames;
    seg->has_nspace = h->has_nspace != 0;
    if (seg->has_nspace) {
        sy_load_fixed(seg->nspace, h->nspace, sizeof(seg->nspace));
    }
    if (h->layout_size > 0) {
        if (!sy_jl_view_init(&seg->layout, seg->base + h->layout_off, h->layout_size, seg,
                             h->layout_off)) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        seg->has_layout = true;
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_jseg_map(const char *path, sy_jseg_t **out)
{
    struct stat st;
    sy_jseg_t *seg;
    void *map;
    int fd;

    if (path == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return ENOENT == errno ? PMIX_ERR_NOT_FOUND : PMIX_ERR_FILE_OPEN_FAILURE;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return PMIX_ERR_FILE_OPEN_FAILURE;
    }
    if ((uint64_t)st.st_size < sizeof(sy_jseg_header_t)) {
        close(fd);
        sy_log(SY_LOG_WARN, "job-data segment %s is corrupt (too short)", path);
        return PMIX_ERR_UNPACK_FAILURE;
    }
    /* A fault costs 10-30 us where page tables are paravirtualised, a
     * populated page about 0.1 us: a segment of a regular job (1.4 MB at
     * 1M ranks) is mapped whole, so that a first Get pays no faults; a
     * bigger one (per-rank data the maps do not give) is faulted in as
     * lookups touch it, keeping attach cheap. */
    int flags = MAP_SHARED | ((uint64_t)st.st_size <= SY_JSEG_POPULATE_MAX ? MAP_POPULATE : 0);
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, flags, fd, 0);
    close(fd);
    if (MAP_FAILED == map) {
        return PMIX_ERR_FILE_OPEN_FAILURE;
    }
    seg = calloc(1, sizeof(*seg));
    if (seg == NULL) {
        munmap(map, (size_t)st.st_size);
        return PMIX_ERR_NOMEM;
    }
    seg->base = map;
    seg->size = (size_t)st.st_size;
    *out = seg;
    return PMIX_SUCCESS;
}

pmix_status_t sy_jseg_check(sy_jseg_t *seg)
{
    if (seg == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!seg->checked) {
        seg->check_rc = validate(seg);
        seg->checked = true;
    }
    return seg->check_rc;
}

pmix_status_t sy_jseg_open(const char *path, sy_jseg_t **out)
{
    sy_jseg_t *seg = NULL;
    pmix_status_t rc = sy_jseg_map(path, &seg);

    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    rc = sy_jseg_check(seg);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "job-data segment %s is corrupt; refused", path);
        sy_jseg_close(seg);
        return rc;
    }
    *out = seg;
    return PMIX_SUCCESS;
}

void sy_jseg_close(sy_jseg_t *seg)
{
    if (seg == NULL) {
        return;
    }
    munmap((void *)seg->base, seg->size);
    free(seg->chunk_ok);
    free(seg);
}

const char *sy_jseg_nspace(const sy_jseg_t *seg)
{
    return seg != NULL && usable(seg) && seg->has_nspace ? seg->nspace : NULL;
}

const char *sy_jseg_superseded_by(const sy_jseg_t *seg)
{
    const char *path;

    if (seg == NULL || !usable(seg) ||
        __atomic_load_n(&seg->hdr->superseded, __ATOMIC_ACQUIRE) == 0) {
        return NULL;
    }
    path = seg->hdr->superseded_by;
    /* the writer terminates the path before raising the flag; a file
     * tampered with afterwards is treated as not superseded */
    if ('\0' == path[0] || memchr(path, '\0', SY_JSEG_PATH_MAX) == NULL) {
        return NULL;
    }
    return path;
}

/* ---- lookups ---- */

/* The entry of (realm, id, key): *out NULL when absent; an error when what
 * the lookup read is damaged. */
static pmix_status_t find(const sy_jseg_t *seg, sy_realm_t realm, uint32_t id, const char *key,
                          const sy_jseg_entry_t **out)
{
    size_t len = strlen(key);
    uint32_t h = sy_jseg_hash(realm, id, key, len);

    *out = NULL;
    for (uint32_t probe = 0, s = h & seg->mask; probe < seg->max_probe;
         probe++, s = (s + 1) & seg->mask) {
        const uint32_t *slot = sy_jseg_at(seg, seg->hdr->slots_off + (uint64_t)s * 4, 4);
        if (slot == NULL) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        if (*slot == SY_JSEG_SLOT_EMPTY) {
            return PMIX_SUCCESS;
        }
        const sy_jseg_entry_t *e = entry_at(seg, *slot);
        if (e == NULL) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        if (e->hash != h || e->id != id || e->realm != (uint8_t)realm || e->key_len != len) {
            continue;
        }
        /* the bytes equal the key asked for, hashed as the entry says: no
         * more to check of them */
        const char *k = e->key_off <= seg->hdr->keys_size && len < seg->hdr->keys_size - e->key_off
                            ? sy_jseg_at(seg, seg->hdr->keys_off + e->key_off, len)
                            : NULL;
        if (k == NULL) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        if (memcmp(k, key, len) == 0) {
            *out = e;
            return PMIX_SUCCESS;
        }
    }
    return PMIX_SUCCESS;
}

/* (realm, id, key) from the entries, then the layout's columns and
 * derived values, into the caller's zeroed value. */
static pmix_status_t lookup(const sy_jseg_t *seg, sy_realm_t realm, uint32_t id, const char *key,
                            pmix_value_t *v)
{
    const sy_jseg_entry_t *e;
    pmix_status_t rc = find(seg, realm, id, key, &e);

    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (e != NULL) {
        return decode_into(seg, e, v);
    }
    if (!seg->has_layout) {
        return PMIX_ERR_NOT_FOUND;
    }
    if (realm == SY_REALM_PROC) {
        rc = sy_jl_column_get(&seg->layout, id, key, v);
        if (rc != PMIX_ERR_NOT_FOUND) {
            return rc;
        }
    }
    return sy_jl_derive(&seg->layout, realm, id, key, v);
}

pmix_status_t sy_jseg_get(const sy_jseg_t *seg, sy_realm_t realm, uint32_t id, const char *key,
                          pmix_value_t **out)
{
    pmix_value_t *v;
    pmix_status_t rc;

    if (seg == NULL || key == NULL || out == NULL || (unsigned)realm >= SY_REALM_COUNT) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!usable(seg)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    pmix_value_t found;
    memset(&found, 0, sizeof(found));
    rc = lookup(seg, realm, id, key, &found);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    /* allocated only for a hit: Gets that fall back through realms miss */
    if ((v = malloc(sizeof(*v))) == NULL) {
        sy_value_destruct(&found);
        return PMIX_ERR_NOMEM;
    }
    *v = found;
    *out = v;
    return PMIX_SUCCESS;
}

/* First entry not ordered before (realm, id); *bad when a probe read
 * damaged bytes. */
static uint32_t lower_bound(const sy_jseg_t *seg, uint8_t realm, uint32_t id, bool *bad)
{
    uint32_t lo = 0, hi = seg->nentries;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const sy_jseg_entry_t *e = entry_at(seg, mid);
        if (e == NULL) {
            *bad = true;
            return 0;
        }
        if (e->realm < realm || (e->realm == realm && e->id < id)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* get_all's result: the entries of (realm, id), then the layout's values
 * of keys no entry has. */
typedef struct {
    pmix_info_t *v;
    size_t n, cap;
    size_t nentries; /* the first ones, from entries */
} infos_t;

static pmix_status_t infos_add(infos_t *l, const char *key, pmix_value_t *val)
{
    if (l->n == l->cap) {
        size_t cap = l->cap == 0 ? 16 : 2 * l->cap;
        pmix_info_t *v = realloc(l->v, cap * sizeof(*v));
        if (v == NULL) {
            sy_value_destruct(val);
            return PMIX_ERR_NOMEM;
        }
        l->v = v;
        l->cap = cap;
    }
    pmix_info_t *info = &l->v[l->n++];
    memset(info, 0, sizeof(*info));
    sy_load_fixed(info->key, key, sizeof(info->key));
    info->value = *val;
    return PMIX_SUCCESS;
}

/* A layout value: kept unless an entry or an earlier layout value (a
 * column) has the key. */
static pmix_status_t add_layout_value(const char *key, pmix_value_t *val, void *ctx)
{
    infos_t *l = ctx;
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->v[i].key, key) == 0) {
            sy_value_destruct(val);
            return PMIX_SUCCESS;
        }
    }
    return infos_add(l, key, val);
}

static int info_key_cmp(const void *a, const void *b)
{
    return strcmp(((const pmix_info_t *)a)->key, ((const pmix_info_t *)b)->key);
}

pmix_status_t sy_jseg_get_all(const sy_jseg_t *seg, sy_realm_t realm, uint32_t id,
                              pmix_info_t **infos, size_t *n)
{
    infos_t l = {0};
    pmix_status_t rc = PMIX_SUCCESS;
    bool bad = false;

    if (seg == NULL || infos == NULL || n == NULL || (unsigned)realm >= SY_REALM_COUNT) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!usable(seg)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    for (uint32_t i = lower_bound(seg, (uint8_t)realm, id, &bad); !bad && i < seg->nentries; i++) {
        const sy_jseg_entry_t *e = entry_at(seg, i);
        if (e == NULL) {
            bad = true;
            break;
        }
        if (e->realm != (uint8_t)realm || e->id != id) {
            break;
        }
        const char *key = entry_key(seg, e);
        pmix_value_t val;
        memset(&val, 0, sizeof(val));
        if (key == NULL) {
            bad = true;
            break;
        }
        if ((rc = decode_into(seg, e, &val)) != PMIX_SUCCESS ||
            (rc = infos_add(&l, key, &val)) != PMIX_SUCCESS) {
            break;
        }
    }
    if (bad) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc == PMIX_SUCCESS && seg->has_layout) {
        rc = sy_jl_each(&seg->layout, realm, id, add_layout_value, &l);
    }
    if (rc == PMIX_SUCCESS && l.n == 0) {
        rc = PMIX_ERR_NOT_FOUND;
    }
    if (rc != PMIX_SUCCESS) {
        for (size_t i = 0; i < l.n; i++) {
            sy_value_destruct(&l.v[i].value);
        }
        free(l.v);
        return rc;
    }
    qsort(l.v, l.n, sizeof(*l.v), info_key_cmp);
    *infos = l.v;
    *n = l.n;
    return PMIX_SUCCESS;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

pmix_status_t sy_jseg_ids(const sy_jseg_t *seg, sy_realm_t realm, uint32_t **ids, size_t *n)
{
    uint32_t first, end, *out = NULL, *lay = NULL;
    size_t k = 0, nlay = 0;
    bool bad = false;
    pmix_status_t rc;

    if (seg == NULL || ids == NULL || n == NULL || (unsigned)realm >= SY_REALM_COUNT) {
        return PMIX_ERR_BAD_PARAM;
    }
    *ids = NULL;
    *n = 0;
    if (!usable(seg)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    if (seg->has_layout && (rc = sy_jl_ids(&seg->layout, realm, &lay, &nlay)) != PMIX_SUCCESS) {
        return rc;
    }
    first = lower_bound(seg, (uint8_t)realm, 0, &bad);
    for (end = first; !bad && end < seg->nentries; end++) {
        const sy_jseg_entry_t *e = entry_at(seg, end);
        if (e == NULL) {
            bad = true;
        } else if (e->realm != (uint8_t)realm) {
            break;
        }
    }
    if (bad) {
        free(lay);
        return PMIX_ERR_UNPACK_FAILURE;
    }
    if (end - first + nlay == 0) {
        return PMIX_SUCCESS;
    }
    out = malloc((end - first + nlay) * sizeof(*out));
    if (out == NULL) {
        free(lay);
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t i = first; i < end; i++) {
        uint32_t id = entry_at(seg, i)->id;
        if (k == 0 || out[k - 1] != id) {
            out[k++] = id;
        }
    }
    if (nlay > 0) {
        memcpy(out + k, lay, nlay * sizeof(*out));
        k += nlay;
        qsort(out, k, sizeof(*out), cmp_u32);
        size_t u = 1;
        for (size_t i = 1; i < k; i++) {
            if (out[i] != out[u - 1]) {
                out[u++] = out[i];
            }
        }
        k = u;
    }
    free(lay);
    *ids = out;
    *n = k;
    return PMIX_SUCCESS;
}

bool sy_jseg_node_by_name(const sy_jseg_t *seg, const char *name, uint32_t *nodeid)
{
    size_t len;
    uint32_t lo = 0, hi;

    if (seg == NULL || name == NULL || '\0' == name[0] || !usable(seg)) {
        return false;
    }
    len = strlen(name);
    hi = seg->nnames;
    /* the first (name, node) pair not before (name, 0): the lowest node */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const sy_jseg_name_t *nm = sy_jseg_at(
            seg, seg->hdr->names_off + (uint64_t)mid * sizeof(sy_jseg_name_t), sizeof(*nm));
        const char *s = nm != NULL ? sy_jseg_at(seg, nm->off, nm->len) : NULL;
        if (s == NULL) {
            return false;
        }
        if (sy_jseg_name_order(s, nm->len, nm->node, name, len, 0) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == seg->nnames) {
        return false;
    }
    const sy_jseg_name_t *nm =
        sy_jseg_at(seg, seg->hdr->names_off + (uint64_t)lo * sizeof(sy_jseg_name_t), sizeof(*nm));
    const char *s = nm != NULL ? sy_jseg_at(seg, nm->off, nm->len) : NULL;
    if (s == NULL || nm->len != len || memcmp(s, name, len) != 0) {
        return false;
    }
    if (nodeid != NULL) {
        *nodeid = nm->node;
    }
    return true;
}

bool sy_jseg_value_u32(const pmix_value_t *v, uint32_t *out)
{
    int64_t s;
    uint64_t u;

    switch (v->type) {
    case PMIX_INT: s = v->data.integer; break;
    case PMIX_INT8: s = v->data.int8; break;
    case PMIX_INT16: s = v->data.int16; break;
    case PMIX_INT32: s = v->data.int32; break;
    case PMIX_INT64: s = v->data.int64; break;
    case PMIX_UINT: u = v->data.uint; goto unsigned_value;
    case PMIX_UINT8: u = v->data.uint8; goto unsigned_value;
    case PMIX_UINT16: u = v->data.uint16; goto unsigned_value;
    case PMIX_UINT32: u = v->data.uint32; goto unsigned_value;
    case PMIX_PROC_RANK: u = v->data.rank; goto unsigned_value;
    case PMIX_UINT64: u = v->data.uint64; goto unsigned_value;
    case PMIX_SIZE: u = v->data.size; goto unsigned_value;
    default: return false;
    }
    if (s < 0) {
        return false;
    }
    u = (uint64_t)s;
unsigned_value:
    if (u >= UINT32_MAX) {
        return false;
    }
    *out = (uint32_t)u;
    return true;
}

bool sy_jseg_get_u32(const sy_jseg_t *seg, sy_realm_t realm, uint32_t id, const char *key,
                     uint32_t *out)
{
    pmix_value_t v;
    bool ok;

    if (seg == NULL || (unsigned)realm >= SY_REALM_COUNT || !usable(seg)) {
        return false;
    }
    memset(&v, 0, sizeof(v));
    if (lookup(seg, realm, id, key, &v) != PMIX_SUCCESS) {
        return false;
    }
    ok = sy_jseg_value_u32(&v, out);
    if (!ok) {
        sy_value_destruct(&v); /* integers own nothing: only others need this */
    }
    return ok;
}

/* ---- a builder seeded with a published segment ---- */

pmix_status_t sy_jseg_builder_new_from(const sy_jseg_t *seg, sy_jseg_builder_t **out)
{
    sy_jseg_builder_t *b = NULL;
    pmix_status_t rc;

    if (seg == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!usable(seg)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    if ((rc = sy_jseg_builder_new(sy_jseg_nspace(seg), &b)) != PMIX_SUCCESS) {
        return rc;
    }
    for (uint32_t i = 0; i < seg->nentries && rc == PMIX_SUCCESS; i++) {
        const sy_jseg_entry_t *e = entry_at(seg, i);
        const char *key = e != NULL ? entry_key(seg, e) : NULL;
        pmix_value_t v;
        memset(&v, 0, sizeof(v));
        rc = key == NULL ? PMIX_ERR_UNPACK_FAILURE : decode_into(seg, e, &v);
        if (rc == PMIX_SUCCESS) {
            rc = sy_jseg_put(b, (sy_realm_t)e->realm, e->id, key, &v);
            sy_value_destruct(&v);
        }
    }
    if (rc == PMIX_SUCCESS && seg->has_layout) {
        const void *blob = sy_jseg_at(seg, seg->hdr->layout_off, seg->hdr->layout_size);
        void *copy = blob != NULL ? malloc(seg->hdr->layout_size) : NULL;
        if (copy == NULL) {
            rc = blob == NULL ? PMIX_ERR_UNPACK_FAILURE : PMIX_ERR_NOMEM;
        } else {
            memcpy(copy, blob, seg->hdr->layout_size);
            sy_jseg_set_layout(b, copy, seg->hdr->layout_size);
        }
    }
    if (rc != PMIX_SUCCESS) {
        sy_jseg_builder_free(b);
        return rc;
    }
    *out = b;
    return PMIX_SUCCESS;
}
