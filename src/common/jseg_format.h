/* The on-disk layout of a job-data segment (docs/data-format.md, "Job-data
 * segments"), shared by the writer (jseg_write.c), the reader
 * (jseg_read.c) and the layout section (jseg_layout.h).  Segments never
 * leave the node that wrote them, so integers are in host byte order; the
 * header records that order and the reader refuses any other.  Every
 * position is an offset from the start of the file, so a segment can be
 * mapped at any address.
 *
 * A file is the header, then the data region (every section), then the
 * chunk sums: one 32-bit sum per 4 KiB of the data region.  Opening checks
 * the header (its own checksum) and the table of sums; a lookup checks
 * each chunk it reads the first time it reads it.  So a reader pays for
 * what it touches, never for the size of the job, and damage anywhere is
 * found before a value read from it is used. */
#ifndef SWITCHYARD_COMMON_JSEG_FORMAT_H
#define SWITCHYARD_COMMON_JSEG_FORMAT_H
#include "common/jseg.h"
#include <pmix_common.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SY_JSEG_MAGIC "SYJSEG\r\n"
#define SY_JSEG_MAGIC_LEN 8
#define SY_JSEG_VERSION 3u
#define SY_JSEG_BYTE_ORDER 0x01020304u
/* Room for the path of the replacing segment, NUL included. */
#define SY_JSEG_PATH_MAX 4096
/* Sections start at multiples of this. */
#define SY_JSEG_ALIGN 8u
/* An index slot holding this is empty; others hold an entry number. */
#define SY_JSEG_SLOT_EMPTY UINT32_MAX
/* The data region is summed in chunks of this many bytes. */
#define SY_JSEG_CHUNK_SHIFT 12u
#define SY_JSEG_CHUNK ((size_t)1 << SY_JSEG_CHUNK_SHIFT)

typedef struct {
    char magic[SY_JSEG_MAGIC_LEN];
    uint32_t version;
    uint32_t byte_order;
    uint64_t file_size;
    uint64_t data_off;   /* the data region: [data_off, sums_off) */
    uint64_t sums_off;   /* nchunks uint32_t, one per chunk of the region */
    uint64_t sums_check; /* sy_jseg_sum of the sums and the padding after them */
    uint32_t nchunks;
    uint32_t has_nspace;
    uint64_t entries_off; /* nentries sy_jseg_entry_t, sorted by (realm, id, key) */
    uint64_t slots_off;   /* nslots uint32_t: open-addressed hash index */
    uint32_t nentries;
    uint32_t nslots;    /* a power of two, at least 2 * nentries */
    uint32_t max_probe; /* no lookup probes more slots than this */
    uint32_t nnames;    /* entries of the node-name index */
    uint64_t names_off; /* nnames sy_jseg_name_t, sorted by (name, node) */
    uint64_t keys_off;  /* NUL-terminated keys */
    uint64_t keys_size;
    uint64_t values_off; /* encoded values, see sy_jseg_form_t */
    uint64_t values_size;
    uint64_t strings_off; /* names from node-realm entries (the index points here
                           * or at the layout's node names) */
    uint64_t strings_size;
    uint64_t layout_off; /* the job's layout (jseg_layout.h), 0 bytes when none */
    uint64_t layout_size;
    char nspace[PMIX_MAX_NSLEN + 1];
    /* sy_jseg_sum of every byte above, seeded with file_size */
    uint64_t checksum;
    /* The only bytes written after publication.  0, or 1 once
     * superseded_by holds a complete path: written last, read with
     * acquire semantics. */
    uint32_t superseded;
    uint32_t reserved;
    char superseded_by[SY_JSEG_PATH_MAX];
} sy_jseg_header_t;

_Static_assert(offsetof(sy_jseg_header_t, checksum) % 8 == 0 &&
                   offsetof(sy_jseg_header_t, superseded) % 8 == 0 &&
                   sizeof(sy_jseg_header_t) % 8 == 0,
               "the header's words are summed whole");

/* A 64-bit multiply-rotate sum of n bytes read as 8-byte words (a short
 * tail zero-padded), in four interleaved chains so that their multiplies
 * overlap.  It finds accidental damage; it is no protection against a
 * writer (only the writing server may write the file). */
uint64_t sy_jseg_sum(const uint8_t *p, size_t n, uint64_t seed);

/* The header's checksum field as it must read. */
uint64_t sy_jseg_header_sum(const sy_jseg_header_t *h);
/* Recompute every sum of a segment image (the chunks', the header's) after
 * its bytes were changed: tests and the fuzzer reach the structural checks
 * behind the sums this way, as a hostile writer could. */
void sy_jseg_reseal(void *image, size_t size);

/* How the bytes of a value are encoded. */
typedef enum {
    /* The element of a plain inline type (no pointers inside), as it sits
     * in pmix_value_t.data: sy_type_size(type) bytes. */
    SY_JSEG_FORM_RAW = 0,
    /* PMIX_STRING: the characters and their NUL; 0 bytes for a NULL. */
    SY_JSEG_FORM_STRING = 1,
    /* Anything else: one PMIX_VALUE element in the pack layer's format. */
    SY_JSEG_FORM_PACKED = 2
} sy_jseg_form_t;

typedef struct {
    uint32_t hash; /* sy_jseg_hash(realm, id, key) */
    uint32_t id;
    uint8_t realm;
    uint8_t form;
    uint16_t type;
    uint32_t key_off; /* from keys_off */
    uint32_t key_len; /* without the NUL */
    uint32_t reserved;
    uint64_t val_off; /* from values_off */
    uint64_t val_len;
} sy_jseg_entry_t;

/* One name a node answers to: its PMIX_HOSTNAME, or one of its
 * PMIX_HOSTNAME_ALIASES; `off` is from the start of the file (the strings
 * section, or a node name in the layout). */
typedef struct {
    uint64_t off;
    uint32_t len;
    uint32_t node;
} sy_jseg_name_t;

/* FNV-1a over realm, id (little-endian) and the key's bytes. */
static inline uint32_t sy_jseg_hash(sy_realm_t realm, uint32_t id, const char *key, size_t len)
{
    uint32_t h = 2166136261u;
    h = (h ^ (uint8_t)realm) * 16777619u;
    for (int i = 0; i < 4; i++) {
        h = (h ^ ((id >> (8 * i)) & 0xffu)) * 16777619u;
    }
    for (size_t i = 0; i < len; i++) {
        h = (h ^ (uint8_t)key[i]) * 16777619u;
    }
    return h;
}

/* Order of entries in the file: realm, then id, then key bytes. */
static inline int sy_jseg_order(uint8_t ra, uint32_t ia, const char *ka, uint8_t rb, uint32_t ib,
                                const char *kb)
{
    if (ra != rb) {
        return ra < rb ? -1 : 1;
    }
    if (ia != ib) {
        return ia < ib ? -1 : 1;
    }
    return strcmp(ka, kb);
}

/* Order of the name index: bytes, then length, then node. */
static inline int sy_jseg_name_order(const char *a, size_t la, uint32_t na, const char *b,
                                     size_t lb, uint32_t nb)
{
    int c = memcmp(a, b, la < lb ? la : lb);
    if (c != 0) {
        return c;
    }
    if (la != lb) {
        return la < lb ? -1 : 1;
    }
    return na < nb ? -1 : na > nb;
}

/* True for types whose element is stored in SY_JSEG_FORM_RAW. */
bool sy_jseg_raw_type(pmix_data_type_t type);

/* Without allocating: the value of (realm, id, key) when it is an integer
 * of any type in 0..UINT32_MAX-1 (the store's lookups of node ids, app
 * numbers and session ids on the Get path); derived values included. */
bool sy_jseg_get_u32(const sy_jseg_t *seg, sy_realm_t realm, uint32_t id, const char *key,
                     uint32_t *out);

/* Any integer value in 0..UINT32_MAX-1 as a uint32_t. */
bool sy_jseg_value_u32(const pmix_value_t *v, uint32_t *out);

#endif
