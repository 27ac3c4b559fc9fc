/* Job-data segment writer: the builder, publishing an image (entries, their
 * hash index, the node-name index, the layout section, chunk sums) and
 * marking a published segment superseded (layout in jseg_format.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/jseg.h"
#include "common/jseg_format.h"
#include "common/jseg_layout.h"
#include "common/log.h"
#include "common/pack.h"

typedef struct {
    uint32_t hash;
    uint32_t id;
    sy_realm_t realm;
    uint32_t key_idx; /* in the builder's interned keys */
    const char *key;  /* = keys[key_idx] */
    pmix_value_t val;
    bool borrowed; /* val is the caller's (sy_jseg_put_borrowed) */
} builder_entry_t;

/* A job of 100,000 ranks has a million entries but a few dozen distinct
 * keys: each key is stored once, in the builder and in the image. */
struct sy_jseg_builder {
    pmix_nspace_t nspace;
    bool has_nspace;
    builder_entry_t *entries;
    size_t nentries;
    size_t cap;
    uint32_t *slots; /* entry numbers, SY_JSEG_SLOT_EMPTY when free */
    size_t nslots;   /* power of two, more than twice nentries */
    char **keys;     /* interned keys, malloc'd */
    size_t nkeys, keys_cap;
    uint32_t *kslots; /* key numbers, SY_JSEG_SLOT_EMPTY when free */
    size_t nkslots;   /* power of two, more than twice nkeys */
    void *layout;     /* the layout section (jseg_layout.h), malloc'd */
    size_t layout_size;
};

/* Mix one word into the running value (a multiply-rotate step, as in
 * common 64-bit hashes). */
static uint64_t mix(uint64_t h, uint64_t w)
{
    h ^= w * 0x9e3779b97f4a7c15ull;
    h = (h << 31) | (h >> 33);
    return h * 0xff51afd7ed558ccdull;
}

/* Four independent chains so that their multiplies overlap (word i goes
 * to chain i mod 4, the words after the last full group of four to chain
 * 0, a short tail zero-padded): about 4x the speed of one chain. */
uint64_t sy_jseg_sum(const uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t w[4], l0 = seed ^ 0x6a09e667f3bcc909ull ^ n, l1 = seed ^ 0xbb67ae8584caa73bull,
                   l2 = seed ^ 0x3c6ef372fe94f82bull, l3 = seed ^ 0xa54ff53a5f1d36f1ull;
    size_t i = 0;

    for (; i + 32 <= n; i += 32) {
        memcpy(w, p + i, 32);
        l0 = mix(l0, w[0]);
        l1 = mix(l1, w[1]);
        l2 = mix(l2, w[2]);
        l3 = mix(l3, w[3]);
    }
    for (; i + 8 <= n; i += 8) {
        memcpy(&w[0], p + i, 8);
        l0 = mix(l0, w[0]);
    }
    if (i < n) {
        w[0] = 0;
        memcpy(&w[0], p + i, n - i);
        l0 = mix(l0, w[0]);
    }
    uint64_t h = mix(mix(mix(l0, l1), l2), l3);
    return h ^ (h >> 33);
}

uint64_t sy_jseg_header_sum(const sy_jseg_header_t *h)
{
    return sy_jseg_sum((const uint8_t *)h, offsetof(sy_jseg_header_t, checksum), h->file_size);
}

bool sy_jseg_raw_type(pmix_data_type_t type)
{
    return sy_value_kind(type) == SY_VALUE_INLINE && !sy_type_owns(type);
}

pmix_status_t sy_jseg_builder_new(const char *nspace, sy_jseg_builder_t **out)
{
    sy_jseg_builder_t *b;

    if (out == NULL || (nspace != NULL && strlen(nspace) > PMIX_MAX_NSLEN)) {
        return PMIX_ERR_BAD_PARAM;
    }
    b = calloc(1, sizeof(*b));
    if (b == NULL) {
        return PMIX_ERR_NOMEM;
    }
    if (nspace != NULL) {
        sy_load_fixed(b->nspace, nspace, sizeof(b->nspace));
        b->has_nspace = true;
    }
    *out = b;
    return PMIX_SUCCESS;
}

void sy_jseg_builder_free(sy_jseg_builder_t *b)
{
    if (b == NULL) {
        return;
    }
    for (size_t i = 0; i < b->nentries; i++) {
        if (!b->entries[i].borrowed) {
            sy_value_destruct(&b->entries[i].val);
        }
    }
    for (size_t i = 0; i < b->nkeys; i++) {
        free(b->keys[i]);
    }
    free(b->keys);
    free(b->kslots);
    free(b->entries);
    free(b->slots);
    free(b->layout);
    free(b);
}

void sy_jseg_set_layout(sy_jseg_builder_t *b, void *blob, size_t size)
{
    free(b->layout);
    b->layout = blob;
    b->layout_size = blob != NULL ? size : 0;
}

bool sy_jseg_builder_layout(const sy_jseg_builder_t *b, sy_jl_view_t *v)
{
    return b != NULL && b->layout != NULL && sy_jl_view_init(v, b->layout, b->layout_size, NULL, 0);
}

static uint32_t key_hash(const char *key)
{
    uint32_t h = 2166136261u;
    for (; *key != '\0'; key++) {
        h = (h ^ (uint8_t)*key) * 16777619u;
    }
    return h;
}

static size_t key_slot(const sy_jseg_builder_t *b, const char *key, uint32_t hash)
{
    size_t mask = b->nkslots - 1;
    for (size_t s = hash & mask;; s = (s + 1) & mask) {
        uint32_t k = b->kslots[s];
        if (k == SY_JSEG_SLOT_EMPTY || strcmp(b->keys[k], key) == 0) {
            return s;
        }
    }
}

/* The number of `key` among the interned keys, adding it if new. */
static pmix_status_t intern_key(sy_jseg_builder_t *b, const char *key, uint32_t *idx)
{
    uint32_t hash = key_hash(key);
    if (b->nkslots != 0) {
        size_t s = key_slot(b, key, hash);
        if (b->kslots[s] != SY_JSEG_SLOT_EMPTY) {
            *idx = b->kslots[s];
            return PMIX_SUCCESS;
        }
    }
    if (2 * (b->nkeys + 1) > b->nkslots) {
        size_t n = b->nkslots == 0 ? 64 : 2 * b->nkslots;
        uint32_t *ks = malloc(n * sizeof(*ks));
        if (ks == NULL) {
            return PMIX_ERR_NOMEM;
        }
        memset(ks, 0xff, n * sizeof(*ks));
        free(b->kslots);
        b->kslots = ks;
        b->nkslots = n;
        for (size_t i = 0; i < b->nkeys; i++) {
            b->kslots[key_slot(b, b->keys[i], key_hash(b->keys[i]))] = (uint32_t)i;
        }
    }
    if (b->nkeys == b->keys_cap) {
        size_t cap = b->keys_cap == 0 ? 32 : 2 * b->keys_cap;
        char **k = realloc(b->keys, cap * sizeof(*k));
        if (k == NULL) {
            return PMIX_ERR_NOMEM;
        }
        b->keys = k;
        b->keys_cap = cap;
    }
    char *copy = strdup(key);
    if (copy == NULL) {
        return PMIX_ERR_NOMEM;
    }
    b->keys[b->nkeys] = copy;
    b->kslots[key_slot(b, key, hash)] = (uint32_t)b->nkeys;
    *idx = (uint32_t)b->nkeys++;
    return PMIX_SUCCESS;
}

/* The slot holding (realm, id, key), or the empty slot where it belongs. */
static size_t find_slot(const sy_jseg_builder_t *b, uint32_t hash, sy_realm_t realm, uint32_t id,
                        const char *key)
{
    size_t mask = b->nslots - 1;
    size_t s = hash & mask;

    for (;;) {
        uint32_t e = b->slots[s];
        if (e == SY_JSEG_SLOT_EMPTY) {
            return s;
        }
        const builder_entry_t *ent = &b->entries[e];
        if (ent->hash == hash && ent->realm == realm && ent->id == id &&
            strcmp(ent->key, key) == 0) {
            return s;
        }
        s = (s + 1) & mask;
    }
}

static pmix_status_t grow_index(sy_jseg_builder_t *b)
{
    size_t n = b->nslots == 0 ? 64 : 2 * b->nslots;
    uint32_t *slots = malloc(n * sizeof(*slots));

    if (slots == NULL) {
        return PMIX_ERR_NOMEM;
    }
    memset(slots, 0xff, n * sizeof(*slots));
    free(b->slots);
    b->slots = slots;
    b->nslots = n;
    for (size_t i = 0; i < b->nentries; i++) {
        const builder_entry_t *ent = &b->entries[i];
        b->slots[find_slot(b, ent->hash, ent->realm, ent->id, ent->key)] = (uint32_t)i;
    }
    return PMIX_SUCCESS;
}

static bool valid_key(sy_realm_t realm, const char *key)
{
    return (unsigned)realm < SY_REALM_COUNT && key != NULL && '\0' != key[0] &&
           strnlen(key, PMIX_MAX_KEYLEN + 1) <= PMIX_MAX_KEYLEN;
}

static pmix_status_t put(sy_jseg_builder_t *b, sy_realm_t realm, uint32_t id, const char *key,
                         const pmix_value_t *val, bool borrow)
{
    pmix_value_t copy;
    pmix_status_t rc;
    size_t s;
    uint32_t hash;

    if (b == NULL || val == NULL || !valid_key(realm, key)) {
        return PMIX_ERR_BAD_PARAM;
    }
    /* An address or a live topology handle means nothing in another
     * process; everything else must survive the pack layer. */
    if (val->type == PMIX_POINTER || val->type == PMIX_TOPO ||
        (val->type != PMIX_UNDEF && sy_value_kind(val->type) == SY_VALUE_NONE) ||
        !sy_wire_type_known(val->type)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (b->nentries >= UINT32_MAX / 4) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (2 * (b->nentries + 1) > b->nslots && (rc = grow_index(b)) != PMIX_SUCCESS) {
        return rc;
    }
    if (borrow) {
        copy = *val;
    } else if ((rc = sy_value_copy(&copy, val)) != PMIX_SUCCESS) {
        return rc;
    }
    hash = sy_jseg_hash(realm, id, key, strlen(key));
    s = find_slot(b, hash, realm, id, key);
    if (b->slots[s] != SY_JSEG_SLOT_EMPTY) {
        builder_entry_t *ent = &b->entries[b->slots[s]];
        if (!ent->borrowed) {
            sy_value_destruct(&ent->val);
        }
        ent->val = copy;
        ent->borrowed = borrow;
        return PMIX_SUCCESS;
    }
    uint32_t key_idx = 0;
    if ((rc = intern_key(b, key, &key_idx)) != PMIX_SUCCESS) {
        if (!borrow) {
            sy_value_destruct(&copy);
        }
        return rc;
    }
    if (b->nentries == b->cap) {
        size_t cap = b->cap == 0 ? 32 : 2 * b->cap;
        builder_entry_t *e = realloc(b->entries, cap * sizeof(*e));
        if (e == NULL) {
            if (!borrow) {
                sy_value_destruct(&copy);
            }
            return PMIX_ERR_NOMEM;
        }
        b->entries = e;
        b->cap = cap;
    }
    builder_entry_t *ent = &b->entries[b->nentries];
    memset(ent, 0, sizeof(*ent));
    ent->hash = hash;
    ent->id = id;
    ent->realm = realm;
    ent->key_idx = key_idx;
    ent->key = b->keys[key_idx];
    ent->val = copy;
    ent->borrowed = borrow;
    b->slots[s] = (uint32_t)b->nentries++;
    return PMIX_SUCCESS;
}

pmix_status_t sy_jseg_put(sy_jseg_builder_t *b, sy_realm_t realm, uint32_t id, const char *key,
                          const pmix_value_t *val)
{
    return put(b, realm, id, key, val, false);
}

pmix_status_t sy_jseg_put_borrowed(sy_jseg_builder_t *b, sy_realm_t realm, uint32_t id,
                                   const char *key, const pmix_value_t *val)
{
    return put(b, realm, id, key, val, true);
}

const pmix_value_t *sy_jseg_peek(const sy_jseg_builder_t *b, sy_realm_t realm, uint32_t id,
                                 const char *key)
{
    size_t s;

    if (b == NULL || b->nentries == 0 || !valid_key(realm, key)) {
        return NULL;
    }
    s = find_slot(b, sy_jseg_hash(realm, id, key, strlen(key)), realm, id, key);
    return b->slots[s] == SY_JSEG_SLOT_EMPTY ? NULL : &b->entries[b->slots[s]].val;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

pmix_status_t sy_jseg_builder_ids(const sy_jseg_builder_t *b, sy_realm_t realm, uint32_t **ids,
                                  size_t *n)
{
    uint32_t *out;
    size_t k = 0;

    if (b == NULL || ids == NULL || n == NULL || (unsigned)realm >= SY_REALM_COUNT) {
        return PMIX_ERR_BAD_PARAM;
    }
    *ids = NULL;
    *n = 0;
    for (size_t i = 0; i < b->nentries; i++) {
        k += b->entries[i].realm == realm;
    }
    if (k == 0) {
        return PMIX_SUCCESS;
    }
    out = malloc(k * sizeof(*out));
    if (out == NULL) {
        return PMIX_ERR_NOMEM;
    }
    k = 0;
    for (size_t i = 0; i < b->nentries; i++) {
        if (b->entries[i].realm == realm) {
            out[k++] = b->entries[i].id;
        }
    }
    qsort(out, k, sizeof(*out), cmp_u32);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m == 0 || out[m - 1] != out[i]) {
            out[m++] = out[i];
        }
    }
    *ids = out;
    *n = m;
    return PMIX_SUCCESS;
}

/* ---- publishing ---- */

static int cmp_entry_ptr(const void *a, const void *b)
{
    const builder_entry_t *x = *(const builder_entry_t *const *)a;
    const builder_entry_t *y = *(const builder_entry_t *const *)b;
    return sy_jseg_order((uint8_t)x->realm, x->id, x->key, (uint8_t)y->realm, y->id, y->key);
}

static size_t align_up(size_t v)
{
    return (v + SY_JSEG_ALIGN - 1) & ~(size_t)(SY_JSEG_ALIGN - 1);
}

/* Append the encoding of val to img, whose values start at values_off;
 * fills the form and extent of e. */
static pmix_status_t encode_value(pmix_data_buffer_t *img, size_t values_off,
                                  const pmix_value_t *val, sy_jseg_entry_t *e)
{
    size_t start = img->bytes_used;
    pmix_status_t rc;

    e->type = val->type;
    if (val->type == PMIX_STRING) {
        e->form = SY_JSEG_FORM_STRING;
        rc = val->data.string == NULL
                 ? PMIX_SUCCESS
                 : sy_buffer_append(img, val->data.string, strlen(val->data.string) + 1);
    } else if (sy_jseg_raw_type(val->type)) {
        e->form = SY_JSEG_FORM_RAW;
        rc = sy_buffer_append(img, &val->data, sy_type_size(val->type));
    } else {
        e->form = SY_JSEG_FORM_PACKED;
        rc = sy_pack_elems(img, val, 1, PMIX_VALUE, 0);
    }
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    e->val_off = start - values_off;
    e->val_len = img->bytes_used - start;
    /* keep every value aligned so raw elements can be copied as words */
    static const char zeros[SY_JSEG_ALIGN];
    size_t pad = align_up(img->bytes_used) - img->bytes_used;
    return pad == 0 ? PMIX_SUCCESS : sy_buffer_append(img, zeros, pad);
}

/* Roughly the bytes val takes encoded, so that the image is allocated once
 * in the common cases. */
static size_t value_room(const pmix_value_t *val)
{
    switch (val->type) {
    case PMIX_STRING:
        return val->data.string == NULL ? 0 : strlen(val->data.string) + SY_JSEG_ALIGN;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT: return val->data.bo.size + 32;
    default: return 64;
    }
}

/* ---- the node-name index ---- */

typedef struct {
    const char *s; /* in the builder, or in the layout's strings */
    size_t len;
    uint32_t node;
    bool in_layout; /* s points into the layout blob */
} name_t;

typedef struct {
    name_t *v;
    size_t n, cap;
    size_t strings; /* bytes of the names that are not in the layout */
} names_t;

static pmix_status_t add_name(names_t *ns, const char *s, size_t len, uint32_t node, bool layout)
{
    if (len == 0) {
        return PMIX_SUCCESS;
    }
    if (ns->n == ns->cap) {
        size_t cap = ns->cap == 0 ? 64 : 2 * ns->cap;
        name_t *v = realloc(ns->v, cap * sizeof(*v));
        if (v == NULL) {
            return PMIX_ERR_NOMEM;
        }
        ns->v = v;
        ns->cap = cap;
    }
    ns->v[ns->n++] = (name_t){s, len, node, layout};
    if (!layout) {
        ns->strings += len;
    }
    return PMIX_SUCCESS;
}

static int name_cmp(const void *a, const void *b)
{
    const name_t *x = a, *y = b;
    return sy_jseg_name_order(x->s, x->len, x->node, y->s, y->len, y->node);
}

/* Every name a node answers to: the PMIX_HOSTNAME and each of the
 * PMIX_HOSTNAME_ALIASES of node-realm entries, and the names of the
 * layout's nodes that have no PMIX_HOSTNAME entry (which hides them);
 * sorted, repeated (name, node) pairs once. */
static pmix_status_t collect_names(const sy_jseg_builder_t *b, names_t *ns)
{
    pmix_status_t rc = PMIX_SUCCESS;
    sy_jl_view_t v;

    memset(ns, 0, sizeof(*ns));
    for (size_t i = 0; i < b->nentries && rc == PMIX_SUCCESS; i++) {
        const builder_entry_t *e = &b->entries[i];
        if (e->realm != SY_REALM_NODE || e->val.type != PMIX_STRING || e->val.data.string == NULL) {
            continue;
        }
        const char *str = e->val.data.string;
        if (strcmp(e->key, PMIX_HOSTNAME) == 0) {
            rc = add_name(ns, str, strlen(str), e->id, false);
        } else if (strcmp(e->key, PMIX_HOSTNAME_ALIASES) == 0) {
            for (const char *p = str; rc == PMIX_SUCCESS;) {
                const char *comma = strchr(p, ',');
                size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
                rc = add_name(ns, p, len, e->id, false);
                if (comma == NULL) {
                    break;
                }
                p = comma + 1;
            }
        }
    }
    if (rc == PMIX_SUCCESS && sy_jseg_builder_layout(b, &v)) {
        for (uint32_t i = 0; i < v.h.nnodes && rc == PMIX_SUCCESS; i++) {
            uint32_t id;
            const char *name;
            size_t len;
            if (sy_jl_node_at(&v, i, &id, &name, &len) && name != NULL &&
                sy_jseg_peek(b, SY_REALM_NODE, id, PMIX_HOSTNAME) == NULL) {
                rc = add_name(ns, name, len, id, true);
            }
        }
    }
    if (rc != PMIX_SUCCESS || ns->n == 0) {
        return rc;
    }
    qsort(ns->v, ns->n, sizeof(*ns->v), name_cmp);
    size_t k = 1;
    for (size_t i = 1; i < ns->n; i++) {
        if (name_cmp(&ns->v[i], &ns->v[k - 1]) != 0) {
            ns->v[k++] = ns->v[i];
        } else if (!ns->v[i].in_layout) {
            ns->strings -= ns->v[i].len;
        }
    }
    ns->n = k;
    return PMIX_SUCCESS;
}

/* ---- the image ---- */

/* Fill the hash index: every entry at or after its home slot; the longest
 * probe sequence any lookup needs. */
static uint32_t fill_slots(uint32_t *slots, size_t nslots, const sy_jseg_entry_t *ents, size_t n)
{
    uint32_t longest = 1;
    memset(slots, 0xff, nslots * sizeof(*slots));
    for (size_t i = 0; i < n; i++) {
        size_t s = ents[i].hash & (nslots - 1);
        uint32_t probe = 1;
        while (slots[s] != SY_JSEG_SLOT_EMPTY) {
            s = (s + 1) & (nslots - 1);
            probe++;
        }
        slots[s] = (uint32_t)i;
        if (probe > longest) {
            longest = probe;
        }
    }
    /* a miss probes until an empty slot: one more than any hit */
    return longest + 1 < nslots ? longest + 1 : (uint32_t)nslots;
}

/* The chunk sums of the data region and the header's checksums, once
 * every other byte is in place. */
static void seal(uint8_t *base, sy_jseg_header_t *h)
{
    uint32_t *sums = (uint32_t *)(base + h->sums_off);
    for (uint32_t c = 0; c < h->nchunks; c++) {
        uint64_t from = h->data_off + ((uint64_t)c << SY_JSEG_CHUNK_SHIFT);
        uint64_t len = h->sums_off - from < SY_JSEG_CHUNK ? h->sums_off - from : SY_JSEG_CHUNK;
        sums[c] = (uint32_t)sy_jseg_sum(base + from, len, from);
    }
    /* the table and the padding after it: every byte is covered */
    h->sums_check = sy_jseg_sum((const uint8_t *)sums, h->file_size - h->sums_off, h->sums_off);
    h->checksum = sy_jseg_header_sum(h);
}

void sy_jseg_reseal(void *image, size_t size)
{
    sy_jseg_header_t *h = image;
    if (size >= sizeof(*h) && h->sums_off <= size && h->file_size == size &&
        h->sums_off % SY_JSEG_ALIGN == 0 && (size - h->sums_off) / sizeof(uint32_t) >= h->nchunks &&
        h->data_off <= h->sums_off &&
        ((h->sums_off - h->data_off + SY_JSEG_CHUNK - 1) >> SY_JSEG_CHUNK_SHIFT) == h->nchunks) {
        seal(image, h);
    } else if (size >= sizeof(*h)) {
        h->checksum = sy_jseg_header_sum(h);
    }
}

/* The whole file image in *imgp (emptied first, its allocation reused):
 * the fixed sections, the values encoded behind them, then the chunk
 * sums. */
static pmix_status_t build_image(const sy_jseg_builder_t *b, pmix_data_buffer_t *imgp)
{
    const builder_entry_t **order = NULL;
    pmix_data_buffer_t img = *imgp;
    sy_jseg_header_t *h;
    sy_jseg_entry_t *ents = NULL;
    uint32_t *key_off = NULL;
    uint8_t *base;
    names_t ns = {0};
    size_t n = b->nentries, nslots = 16, keys_size = 0, room = 0;
    pmix_status_t rc = PMIX_ERR_NOMEM;

    img.pack_ptr = img.unpack_ptr = img.base_ptr;
    img.bytes_used = 0;
    while (nslots < 2 * n) {
        nslots *= 2;
    }
    if (n != 0 && (order = malloc(n * sizeof(*order))) == NULL) {
        goto out;
    }
    if (b->nkeys != 0 && (key_off = malloc(b->nkeys * sizeof(*key_off))) == NULL) {
        goto out;
    }
    for (size_t k = 0; k < b->nkeys; k++) {
        key_off[k] = (uint32_t)keys_size;
        keys_size += strlen(b->keys[k]) + 1;
    }
    for (size_t i = 0; i < n; i++) {
        order[i] = &b->entries[i];
        room += value_room(&b->entries[i].val);
    }
    if (n != 0) {
        qsort(order, n, sizeof(*order), cmp_entry_ptr);
    }
    if ((rc = collect_names(b, &ns)) != PMIX_SUCCESS) {
        goto out;
    }
    /* the sections a job-level Get reads first, together at the start:
     * its first Get faults in a page or two, not one per section */
    size_t data_off = align_up(sizeof(sy_jseg_header_t));
    size_t entries_off = data_off;
    size_t slots_off = align_up(entries_off + n * sizeof(sy_jseg_entry_t));
    size_t keys_off = align_up(slots_off + nslots * sizeof(uint32_t));
    size_t values_off = align_up(keys_off + keys_size);
    rc = PMIX_ERR_NOMEM;
    ents = calloc(n + 1, sizeof(*ents));
    if (ents == NULL || sy_buffer_reserve(&img, values_off + room) != PMIX_SUCCESS) {
        goto out;
    }
    /* the fixed sections, zeroed; filled in once the values are placed */
    memset(img.pack_ptr, 0, values_off);
    img.pack_ptr += values_off;
    img.bytes_used += values_off;
    for (size_t i = 0; i < n; i++) {
        rc = encode_value(&img, values_off, &order[i]->val, &ents[i]);
        if (rc != PMIX_SUCCESS) {
            goto out;
        }
    }
    /* then the layout (its small sections first), then the name index */
    size_t values_end = img.bytes_used;
    size_t layout_off = align_up(values_end);
    size_t names_off = align_up(layout_off + b->layout_size);
    size_t strings_off = align_up(names_off + ns.n * sizeof(sy_jseg_name_t));
    size_t sums_off = align_up(strings_off + ns.strings);
    size_t nchunks = (sums_off - data_off + SY_JSEG_CHUNK - 1) >> SY_JSEG_CHUNK_SHIFT;
    size_t total = align_up(sums_off + nchunks * sizeof(uint32_t));
    if (nchunks >= UINT32_MAX || sy_buffer_reserve(&img, total - img.bytes_used) != PMIX_SUCCESS) {
        rc = PMIX_ERR_NOMEM;
        goto out;
    }
    memset(img.pack_ptr, 0, total - img.bytes_used);
    img.pack_ptr += total - img.bytes_used;
    img.bytes_used = total;
    base = (uint8_t *)img.base_ptr;
    h = (sy_jseg_header_t *)base;
    memcpy(h->magic, SY_JSEG_MAGIC, SY_JSEG_MAGIC_LEN);
    h->version = SY_JSEG_VERSION;
    h->byte_order = SY_JSEG_BYTE_ORDER;
    h->file_size = total;
    h->data_off = data_off;
    h->sums_off = sums_off;
    h->nchunks = (uint32_t)nchunks;
    h->has_nspace = b->has_nspace;
    h->entries_off = entries_off;
    h->slots_off = slots_off;
    h->nentries = (uint32_t)n;
    h->nslots = (uint32_t)nslots;
    h->nnames = (uint32_t)ns.n;
    h->names_off = names_off;
    h->keys_off = keys_off;
    h->keys_size = keys_size;
    h->values_off = values_off;
    h->values_size = values_end - values_off;
    h->strings_off = strings_off;
    h->strings_size = ns.strings;
    h->layout_off = layout_off;
    h->layout_size = b->layout_size;
    if (b->has_nspace) {
        sy_load_fixed(h->nspace, b->nspace, sizeof(h->nspace));
    }
    for (size_t k = 0; k < b->nkeys; k++) {
        memcpy(base + keys_off + key_off[k], b->keys[k], strlen(b->keys[k]) + 1);
    }
    for (size_t i = 0; i < n; i++) {
        sy_jseg_entry_t *e = &ents[i];
        e->hash = order[i]->hash;
        e->id = order[i]->id;
        e->realm = (uint8_t)order[i]->realm;
        e->key_off = key_off[order[i]->key_idx];
        e->key_len = (uint32_t)strlen(order[i]->key);
    }
    h->max_probe = fill_slots((uint32_t *)(base + slots_off), nslots, ents, n);
    if (n != 0) {
        memcpy(base + entries_off, ents, n * sizeof(*ents));
    }
    if (b->layout_size > 0) {
        memcpy(base + layout_off, b->layout, b->layout_size);
    }
    /* names: copied into the strings, or pointing at the layout's copy */
    size_t at = strings_off;
    sy_jseg_name_t *names = (sy_jseg_name_t *)(base + names_off);
    for (size_t i = 0; i < ns.n; i++) {
        const name_t *nm = &ns.v[i];
        names[i].len = (uint32_t)nm->len;
        names[i].node = nm->node;
        if (nm->in_layout) {
            names[i].off = layout_off + (uint64_t)(nm->s - (const char *)b->layout);
        } else {
            memcpy(base + at, nm->s, nm->len);
            names[i].off = at;
            at += nm->len;
        }
    }
    seal(base, h);
    rc = PMIX_SUCCESS;
out:
    *imgp = img;
    free(ns.v);
    free(ents);
    free(key_off);
    free(order);
    return rc;
}

static pmix_status_t write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (EINTR == errno) {
                continue;
            }
            return PMIX_ERROR;
        }
        p += w;
        n -= (size_t)w;
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_jseg_create(const char *path, unsigned mode, int *fdp)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && EEXIST == errno) {
        /* the name is ours alone: anything there was left by a crashed
         * process that had our pid */
        (void)unlink(path);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    }
    if (fd < 0) {
        sy_log(SY_LOG_WARN, "cannot create job-data segment %s: %s", path, strerror(errno));
        return PMIX_ERR_FILE_OPEN_FAILURE;
    }
    if (fchmod(fd, (mode_t)mode) != 0) {
        sy_log(SY_LOG_WARN, "cannot set the mode of job-data segment %s: %s", path,
               strerror(errno));
        close(fd);
        unlink(path);
        return PMIX_ERROR;
    }
    *fdp = fd;
    return PMIX_SUCCESS;
}

/* Write the image into fd (from sy_jseg_create) and close it; the file is
 * removed again on failure. */
static pmix_status_t write_file(int fd, const char *path, const uint8_t *img, size_t size)
{
    pmix_status_t rc = write_all(fd, img, size);
    if (close(fd) != 0) {
        rc = PMIX_ERROR;
    }
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "cannot write job-data segment %s: %s", path, strerror(errno));
        unlink(path);
    }
    return rc;
}

pmix_status_t sy_jseg_publish(const sy_jseg_builder_t *b, const char *path, unsigned mode)
{
    static atomic_uint serial;
    char tmp[PATH_MAX];
    pmix_data_buffer_t img = {0};
    pmix_status_t rc;

    if (b == NULL || path == NULL || strlen(path) >= SY_JSEG_PATH_MAX) {
        return PMIX_ERR_BAD_PARAM;
    }
    /* unique per thread and process, so concurrent publishers never share
     * a temporary file */
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld.%u", path, (long)getpid(),
                         atomic_fetch_add(&serial, 1)) >= sizeof(tmp)) {
        return PMIX_ERR_BAD_PARAM;
    }
    int fd = -1;
    rc = build_image(b, &img);
    if (rc == PMIX_SUCCESS) {
        rc = sy_jseg_create(tmp, mode, &fd);
    }
    if (rc == PMIX_SUCCESS) {
        rc = write_file(fd, tmp, (const uint8_t *)img.base_ptr, img.bytes_used);
    }
    sy_buffer_destruct(&img);
    if (rc == PMIX_SUCCESS && rename(tmp, path) != 0) {
        sy_log(SY_LOG_WARN, "cannot publish job-data segment %s: %s", path, strerror(errno));
        unlink(tmp);
        rc = PMIX_ERROR;
    }
    return rc;
}

pmix_status_t sy_jseg_publish_fd(const sy_jseg_builder_t *b, int fd, const char *path,
                                 pmix_data_buffer_t *scratch)
{
    pmix_data_buffer_t local = {0}, *img = scratch != NULL ? scratch : &local;
    pmix_status_t rc = b == NULL || path == NULL ? PMIX_ERR_BAD_PARAM : build_image(b, img);

    if (rc == PMIX_SUCCESS) {
        rc = write_file(fd, path, (const uint8_t *)img->base_ptr, img->bytes_used);
    } else {
        close(fd);
        if (path != NULL) {
            unlink(path);
        }
    }
    /* a scratch buffer keeps its pages for the next image, up to a bound */
    if (img == &local || img->bytes_allocated > SY_JSEG_SCRATCH_KEEP) {
        sy_buffer_destruct(img);
    }
    return rc;
}

pmix_status_t sy_jseg_supersede(const char *old_path, const char *new_path)
{
    sy_jseg_header_t *h;
    struct stat st;
    size_t len;
    int fd;

    if (old_path == NULL || new_path == NULL || (len = strlen(new_path)) >= SY_JSEG_PATH_MAX ||
        len == 0) {
        return PMIX_ERR_BAD_PARAM;
    }
    fd = open(old_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 && EACCES == errno) {
        /* published read-only: its owner may still add write permission */
        int ro = open(old_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (ro >= 0) {
            if (fstat(ro, &st) == 0 && fchmod(ro, st.st_mode | S_IWUSR) == 0) {
                fd = open(old_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
                (void)fchmod(ro, st.st_mode & 07777);
            }
            close(ro);
        }
    }
    if (fd < 0) {
        return PMIX_ERR_FILE_OPEN_FAILURE;
    }
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(*h)) {
        close(fd);
        return PMIX_ERR_BAD_PARAM;
    }
    h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (MAP_FAILED == h) {
        return PMIX_ERROR;
    }
    if (memcmp(h->magic, SY_JSEG_MAGIC, SY_JSEG_MAGIC_LEN) != 0) {
        munmap(h, sizeof(*h));
        return PMIX_ERR_BAD_PARAM;
    }
    /* path first, then the flag with release order: a reader that sees the
     * flag (acquire) sees the whole path */
    if (__atomic_load_n(&h->superseded, __ATOMIC_ACQUIRE) == 0) {
        memset(h->superseded_by, 0, sizeof(h->superseded_by));
        memcpy(h->superseded_by, new_path, len);
        __atomic_store_n(&h->superseded, 1u, __ATOMIC_RELEASE);
    } else if (strncmp(h->superseded_by, new_path, sizeof(h->superseded_by)) != 0) {
        /* rewriting a published path under readers could tear it */
        munmap(h, sizeof(*h));
        return PMIX_ERR_BAD_PARAM;
    }
    munmap(h, sizeof(*h));
    return PMIX_SUCCESS;
}
