/* The reader's handle of a job-data segment, shared by jseg_read.c (open,
 * checks, entries) and jseg_layout.c (the layout section), which read the
 * mapped bytes through sy_jseg_at. */
#ifndef SWITCHYARD_COMMON_JSEG_INTERNAL_H
#define SWITCHYARD_COMMON_JSEG_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>

#include <pmix_common.h>

#include "common/jseg.h"
#include "common/jseg_format.h"
#include "common/jseg_layout.h"

struct sy_jseg {
    const uint8_t *base;
    size_t size;
    const sy_jseg_header_t *hdr;
    uint64_t data_off, data_end; /* the summed region */
    const uint32_t *sums;
    uint32_t nchunks;
    uint64_t *chunk_ok; /* one bit per chunk that matched its sum, set atomically */
    uint32_t nentries, mask, max_probe, nnames;
    bool has_nspace;
    bool has_layout;
    pmix_nspace_t nspace;
    sy_jl_view_t layout;
    bool checked;           /* sy_jseg_check ran */
    pmix_status_t check_rc; /* and said this; lookups need PMIX_SUCCESS */
};

/* sy_jseg_at's slow path: [off, off + len) checked chunk by chunk. */
const void *sy_jseg_at_slow(const sy_jseg_t *seg, uint64_t off, uint64_t len);

/* The bytes [off, off + len) of the file, once their chunks matched their
 * sums; NULL when they lie outside the data region or are damaged.  Safe
 * from any number of threads.  Inline: every lookup reads through it. */
static inline const void *sy_jseg_at(const sy_jseg_t *seg, uint64_t off, uint64_t len)
{
    uint64_t rel = off - seg->data_off; /* wraps when off is below the region */
    if (rel < seg->data_end - seg->data_off && len != 0 && len <= seg->data_end - off) {
        uint64_t c = rel >> SY_JSEG_CHUNK_SHIFT;
        /* within one chunk already checked: the common case */
        if (c == (rel + len - 1) >> SY_JSEG_CHUNK_SHIFT &&
            (__atomic_load_n(&seg->chunk_ok[c >> 6], __ATOMIC_RELAXED) & (1ull << (c & 63))) != 0) {
            return seg->base + off;
        }
    }
    return sy_jseg_at_slow(seg, off, len);
}

#endif
