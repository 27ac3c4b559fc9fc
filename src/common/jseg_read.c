/* Job-data segment reader: open (validating every byte a lookup will ever
 * touch), lookups by hash, and decoding values (layout in jseg_format.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/jseg.h"
#include "common/jseg_format.h"
#include "common/log.h"
#include "common/pack.h"

struct sy_jseg {
    const uint8_t *base;
    size_t size;
    const sy_jseg_header_t *hdr;
    const sy_jseg_entry_t *entries;
    const uint32_t *slots;
    const char *keys;
    const uint8_t *values;
    uint32_t nentries;
    uint32_t mask;
    bool has_nspace;
    pmix_nspace_t nspace;
    bool checked;           /* sy_jseg_check ran */
    pmix_status_t check_rc; /* and said this; lookups need PMIX_SUCCESS */
};

/* Lookups read offsets from the file: only after it passed the checks. */
static inline bool usable(const sy_jseg_t *seg)
{
    return seg->checked && seg->check_rc == PMIX_SUCCESS;
}

/* ---- decoding ---- */

/* Decode entry e into the caller's zeroed value. */
static pmix_status_t decode_into(const sy_jseg_t *seg, const sy_jseg_entry_t *e, pmix_value_t *v)
{
    const uint8_t *p = seg->values + e->val_off;
    pmix_data_buffer_t buf;
    pmix_status_t rc;

    switch (e->form) {
    case SY_JSEG_FORM_RAW:
        v->type = e->type;
        memcpy(&v->data, p, e->val_len);
        return PMIX_SUCCESS;
    case SY_JSEG_FORM_STRING:
        v->type = PMIX_STRING;
        if (e->val_len != 0) {
            v->data.string = malloc(e->val_len);
            if (v->data.string == NULL) {
                return PMIX_ERR_NOMEM;
            }
            memcpy(v->data.string, p, e->val_len);
        }
        return PMIX_SUCCESS;
    default:
        /* the buffer only reads through unpack_ptr, never frees or writes */
        memset(&buf, 0, sizeof(buf));
        buf.base_ptr = (char *)p;
        buf.unpack_ptr = buf.base_ptr;
        buf.pack_ptr = buf.base_ptr + e->val_len;
        buf.bytes_allocated = e->val_len;
        buf.bytes_used = e->val_len;
        rc = sy_unpack_elems(&buf, v, 1, PMIX_VALUE, 0);
        if (rc == PMIX_SUCCESS && buf.unpack_ptr != buf.pack_ptr) {
            sy_value_destruct(v);
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
        return rc;
    }
}

/* ---- validation ---- */

static bool range_ok(uint64_t off, uint64_t len, uint64_t size)
{
    return off <= size && len <= size - off;
}

static bool entry_ok(const sy_jseg_t *seg, const sy_jseg_header_t *h, uint32_t i)
{
    const sy_jseg_entry_t *e = &seg->entries[i];
    const uint8_t *p;
    pmix_value_t v;

    if (e->realm >= SY_REALM_COUNT || e->key_len == 0 || e->key_len > PMIX_MAX_KEYLEN ||
        !range_ok(e->key_off, (uint64_t)e->key_len + 1, h->keys_size) ||
        !range_ok(e->val_off, e->val_len, h->values_size)) {
        return false;
    }
    const char *key = seg->keys + e->key_off;
    if (key[e->key_len] != '\0' || memchr(key, '\0', e->key_len) != NULL ||
        e->hash != sy_jseg_hash((sy_realm_t)e->realm, e->id, key, e->key_len)) {
        return false;
    }
    if (i > 0) {
        const sy_jseg_entry_t *prev = &seg->entries[i - 1];
        if (sy_jseg_order(prev->realm, prev->id, seg->keys + prev->key_off, e->realm, e->id, key) >=
            0) {
            return false; /* unsorted or duplicate */
        }
    }
    p = seg->values + e->val_off;
    switch (e->form) {
    case SY_JSEG_FORM_RAW:
        if (!sy_jseg_raw_type(e->type) || e->val_len != sy_type_size(e->type) ||
            e->val_len > sizeof(v.data)) {
            return false;
        }
        /* a bool must be 0 or 1 to be a valid C bool */
        return e->type != PMIX_BOOL || p[0] <= 1;
    case SY_JSEG_FORM_STRING:
        return e->type == PMIX_STRING &&
               (e->val_len == 0 || memchr(p, '\0', e->val_len) == p + e->val_len - 1);
    case SY_JSEG_FORM_PACKED:
        if (e->type == PMIX_STRING || sy_jseg_raw_type(e->type) || e->type == PMIX_POINTER ||
            e->type == PMIX_TOPO) {
            return false;
        }
        memset(&v, 0, sizeof(v));
        if (decode_into(seg, e, &v) != PMIX_SUCCESS) {
            return false;
        }
        bool same = v.type == e->type;
        sy_value_destruct(&v);
        return same;
    default: return false;
    }
}

/* Every slot names a distinct entry and every entry is reachable from its
 * home slot without crossing an empty one, so lookups find everything and
 * a probe always ends (there are empty slots). */
static bool index_ok(const sy_jseg_t *seg)
{
    uint32_t nslots = seg->mask + 1;
    uint8_t *seen = calloc(seg->nentries + 1, 1);
    bool ok = true;

    if (seen == NULL) {
        return false;
    }
    for (uint32_t s = 0; s < nslots && ok; s++) {
        uint32_t e = seg->slots[s];
        if (e == SY_JSEG_SLOT_EMPTY) {
            continue;
        }
        if (e >= seg->nentries || seen[e]) {
            ok = false;
            break;
        }
        seen[e] = 1;
        for (uint32_t t = seg->entries[e].hash & seg->mask; t != s; t = (t + 1) & seg->mask) {
            if (seg->slots[t] == SY_JSEG_SLOT_EMPTY) {
                ok = false;
                break;
            }
        }
    }
    for (uint32_t i = 0; i < seg->nentries && ok; i++) {
        ok = seen[i];
    }
    free(seen);
    return ok;
}

static bool header_ok(const sy_jseg_header_t *h, size_t size)
{
    if (size < sizeof(*h) || memcmp(h->magic, SY_JSEG_MAGIC, SY_JSEG_MAGIC_LEN) != 0 ||
        h->version != SY_JSEG_VERSION || h->byte_order != SY_JSEG_BYTE_ORDER ||
        h->file_size != size || h->has_nspace > 1) {
        return false;
    }
    if (h->nslots < 2 || (h->nslots & (h->nslots - 1)) != 0 ||
        (uint64_t)h->nslots < 2 * (uint64_t)h->nentries) {
        return false;
    }
    if (h->entries_off % SY_JSEG_ALIGN || h->slots_off % SY_JSEG_ALIGN ||
        h->values_off % SY_JSEG_ALIGN || h->entries_off < sizeof(*h) || h->slots_off < sizeof(*h) ||
        h->keys_off < sizeof(*h) || h->values_off < sizeof(*h) ||
        !range_ok(h->entries_off, (uint64_t)h->nentries * sizeof(sy_jseg_entry_t), size) ||
        !range_ok(h->slots_off, (uint64_t)h->nslots * sizeof(uint32_t), size) ||
        !range_ok(h->keys_off, h->keys_size, size) ||
        !range_ok(h->values_off, h->values_size, size)) {
        return false;
    }
    if (h->has_nspace && memchr(h->nspace, '\0', sizeof(h->nspace)) == NULL) {
        return false;
    }
    return h->checksum == sy_jseg_checksum((const uint8_t *)h, size);
}

static pmix_status_t validate(sy_jseg_t *seg)
{
    const sy_jseg_header_t *h = (const sy_jseg_header_t *)seg->base;

    if (!header_ok(h, seg->size)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    seg->hdr = h;
    seg->entries = (const sy_jseg_entry_t *)(seg->base + h->entries_off);
    seg->slots = (const uint32_t *)(seg->base + h->slots_off);
    seg->keys = (const char *)(seg->base + h->keys_off);
    seg->values = seg->base + h->values_off;
    seg->nentries = h->nentries;
    seg->mask = h->nslots - 1;
    seg->has_nspace = h->has_nspace != 0;
    if (seg->has_nspace) {
        sy_load_fixed(seg->nspace, h->nspace, sizeof(seg->nspace));
    }
    for (uint32_t i = 0; i < seg->nentries; i++) {
        if (!entry_ok(seg, h, i)) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
    }
    return index_ok(seg) ? PMIX_SUCCESS : PMIX_ERR_UNPACK_FAILURE;
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
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
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
    free(seg);
}

const char *sy_jseg_nspace(const sy_jseg_t *seg)
{
    return seg != NULL && seg->checked && seg->has_nspace ? seg->nspace : NULL;
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

static const sy_jseg_entry_t *find(const sy_jseg_t *seg, sy_realm_t realm, uint32_t id,
                                   const char *key)
{
    size_t len = strlen(key);
    uint32_t h = sy_jseg_hash(realm, id, key, len);

    for (uint32_t s = h & seg->mask;; s = (s + 1) & seg->mask) {
        uint32_t i = seg->slots[s];
        if (i == SY_JSEG_SLOT_EMPTY) {
            return NULL;
        }
        const sy_jseg_entry_t *e = &seg->entries[i];
        if (e->hash == h && e->id == id && e->realm == (uint8_t)realm && e->key_len == len &&
            memcmp(seg->keys + e->key_off, key, len) == 0) {
            return e;
        }
    }
}

pmix_status_t sy_jseg_get(const sy_jseg_t *seg, sy_realm_t realm, uint32_t id, const char *key,
                          pmix_value_t **out)
{
    const sy_jseg_entry_t *e;
    pmix_value_t *v;
    pmix_status_t rc;

    if (seg == NULL || key == NULL || out == NULL || (unsigned)realm >= SY_REALM_COUNT) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!usable(seg)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    e = find(seg, realm, id, key);
    if (e == NULL) {
        return PMIX_ERR_NOT_FOUND;
    }
    v = calloc(1, sizeof(*v));
    if (v == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rc = decode_into(seg, e, v);
    if (rc != PMIX_SUCCESS) {
        free(v);
        return rc;
    }
    *out = v;
    return PMIX_SUCCESS;
}

/* First entry not ordered before (realm, id). */
static uint32_t lower_bound(const sy_jseg_t *seg, uint8_t realm, uint32_t id)
{
    uint32_t lo = 0, hi = seg->nentries;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const sy_jseg_entry_t *e = &seg->entries[mid];
        if (e->realm < realm || (e->realm == realm && e->id < id)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

pmix_status_t sy_jseg_get_all(const sy_jseg_t *seg, sy_realm_t realm, uint32_t id,
                              pmix_info_t **infos, size_t *n)
{
    uint32_t first, end;
    pmix_info_t *arr;
    pmix_status_t rc;

    if (seg == NULL || infos == NULL || n == NULL || (unsigned)realm >= SY_REALM_COUNT) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!usable(seg)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    first = lower_bound(seg, (uint8_t)realm, id);
    for (end = first; end < seg->nentries && seg->entries[end].realm == (uint8_t)realm &&
                      seg->entries[end].id == id;
         end++) {
    }
    if (end == first) {
        return PMIX_ERR_NOT_FOUND;
    }
    arr = calloc(end - first, sizeof(*arr));
    if (arr == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t i = first; i < end; i++) {
        const sy_jseg_entry_t *e = &seg->entries[i];
        pmix_info_t *info = &arr[i - first];
        sy_load_fixed(info->key, seg->keys + e->key_off, sizeof(info->key));
        rc = decode_into(seg, e, &info->value);
        if (rc != PMIX_SUCCESS) {
            sy_array_free(arr, end - first, PMIX_INFO);
            return rc;
        }
    }
    *infos = arr;
    *n = end - first;
    return PMIX_SUCCESS;
}

pmix_status_t sy_jseg_ids(const sy_jseg_t *seg, sy_realm_t realm, uint32_t **ids, size_t *n)
{
    uint32_t first, end, *out;
    size_t k = 0;

    if (seg == NULL || ids == NULL || n == NULL || (unsigned)realm >= SY_REALM_COUNT) {
        return PMIX_ERR_BAD_PARAM;
    }
    *ids = NULL;
    *n = 0;
    if (!usable(seg)) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    first = lower_bound(seg, (uint8_t)realm, 0);
    for (end = first; end < seg->nentries && seg->entries[end].realm == (uint8_t)realm; end++) {
    }
    if (end == first) {
        return PMIX_SUCCESS;
    }
    out = malloc((end - first) * sizeof(*out));
    if (out == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t i = first; i < end; i++) {
        if (k == 0 || out[k - 1] != seg->entries[i].id) {
            out[k++] = seg->entries[i].id;
        }
    }
    *ids = out;
    *n = k;
    return PMIX_SUCCESS;
}

/* name appears in the comma-separated list. */
static bool in_list(const char *list, const char *name, size_t len)
{
    for (const char *p = list; p != NULL; p = strchr(p, ',')) {
        if (',' == *p) {
            p++;
        }
        if (strncmp(p, name, len) == 0 && (p[len] == ',' || '\0' == p[len])) {
            return true;
        }
    }
    return false;
}

bool sy_jseg_node_by_name(const sy_jseg_t *seg, const char *name, uint32_t *nodeid)
{
    size_t len;

    if (seg == NULL || name == NULL || '\0' == name[0] || !usable(seg)) {
        return false;
    }
    len = strlen(name);
    for (uint32_t i = lower_bound(seg, SY_REALM_NODE, 0);
         i < seg->nentries && seg->entries[i].realm == SY_REALM_NODE; i++) {
        const sy_jseg_entry_t *e = &seg->entries[i];
        const char *key = seg->keys + e->key_off;
        const char *val = (const char *)(seg->values + e->val_off);
        bool match;
        if (e->form != SY_JSEG_FORM_STRING || e->val_len == 0) {
            continue;
        }
        if (strcmp(key, PMIX_HOSTNAME) == 0) {
            match = strcmp(val, name) == 0;
        } else if (strcmp(key, PMIX_HOSTNAME_ALIASES) == 0) {
            match = in_list(val, name, len);
        } else {
            continue;
        }
        if (match) {
            if (nodeid != NULL) {
                *nodeid = e->id;
            }
            return true;
        }
    }
    return false;
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
    const sy_jseg_entry_t *e;
    pmix_value_t v;

    if (seg == NULL || (unsigned)realm >= SY_REALM_COUNT || !usable(seg)) {
        return false;
    }
    e = find(seg, realm, id, key);
    if (e == NULL || e->form != SY_JSEG_FORM_RAW) {
        return false;
    }
    memset(&v, 0, sizeof(v));
    v.type = e->type;
    memcpy(&v.data, seg->values + e->val_off, e->val_len);
    return sy_jseg_value_u32(&v, out);
}
