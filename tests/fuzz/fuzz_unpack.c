/*
 * libFuzzer target: PMIx_Data_unpack (and PMIx_Data_decompress) on
 * arbitrary bytes.  Must never crash, leak or read out of bounds.
 *
 * Input: one selector byte, then the bytes loaded into a buffer.
 *   selector & 0x07  room given to each unpack call (0..7 elements)
 *   selector & 0x08  ask for a type derived from the selector instead of
 *                    the one the record announces (type mismatch paths)
 *   selector & 0x10  pack whatever was unpacked again (pack must accept
 *                    everything unpack produces)
 *   selector & 0x80  also feed the bytes to PMIx_Data_decompress
 * Records are unpacked one after the other, each with the type read from
 * its own header, so every data type, nested ones included, is reachable.
 * Seeds: tests/fuzz/corpus/fuzz_unpack/ (written by tests/unit/test_pack
 * with SY_WRITE_CORPUS set).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* RTLD_NEXT */
#endif
#include "config.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <hwloc/export.h>

#include <pmix.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/pack.h"

/* Bounds the work per input: a record of zero-count elements is 6 bytes. */
#define MAX_RECORDS 256

static void unpack_all(pmix_data_buffer_t *b, uint8_t sel)
{
    int32_t room = sel & 0x07;
    for (int r = 0; r < MAX_RECORDS && sy_buffer_remaining(b) >= 2; r++) {
        const uint8_t *p = (const uint8_t *)b->unpack_ptr;
        pmix_data_type_t type = (pmix_data_type_t)(p[0] | (p[1] << 8));
        if (sel & 0x08) {
            type = (pmix_data_type_t)((sel * 7 + r) % SY_WIRE_TYPE_LIMIT);
        }
        size_t size = sy_type_size(type);
        void *dst = calloc(room > 0 ? (size_t)room : 1, size > 0 ? size : 1);
        if (dst == NULL) {
            return;
        }
        int32_t n = room;
        pmix_status_t rc = PMIx_Data_unpack(NULL, b, dst, &n, type);
        if (rc == PMIX_SUCCESS || rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE) {
            if (n < 0 || n > room) {
                abort();
            }
            if (sel & 0x10) {
                pmix_data_buffer_t again = PMIX_DATA_BUFFER_STATIC_INIT;
                (void)PMIx_Data_pack(NULL, &again, dst, n, type);
                PMIX_DATA_BUFFER_DESTRUCT(&again);
            }
            for (int32_t i = 0; i < n; i++) {
                sy_elem_destruct((char *)dst + (size_t)i * size, type);
            }
        }
        free(dst);
        if (rc != PMIX_SUCCESS && rc != PMIX_ERR_UNPACK_INADEQUATE_SPACE) {
            return;
        }
    }
}

/*
 * hwloc's XML importer is hwloc's to fuzz, not ours, and it is not robust:
 * hwloc 2.9 crashes on a root object without complete_cpuset and leaks on
 * some misnested caches (both reproducible with hwloc_topology_set_xml +
 * load alone).  So hwloc never sees the fuzzed document: this definition
 * takes the place of hwloc's for the library linked into this program, and
 * whenever a document got past Switchyard's own screening (topo_xml.c) it
 * hands hwloc this machine's topology instead.  Everything of ours around
 * the import (screening, success and failure paths, release, re-export) is
 * still exercised.
 */
int hwloc_topology_set_xmlbuffer(hwloc_topology_t topology, const char *buffer, int size)
{
    static int (*real)(hwloc_topology_t, const char *, int);
    static char *reference;
    static int reference_len;
    (void)buffer;
    (void)size;
    if (real == NULL) {
        real = (int (*)(hwloc_topology_t, const char *, int))dlsym(RTLD_NEXT,
                                                                   "hwloc_topology_set_xmlbuffer");
        hwloc_topology_t machine;
        if (real == NULL || hwloc_topology_init(&machine) != 0) {
            abort();
        }
        if (hwloc_topology_load(machine) != 0 ||
            hwloc_topology_export_xmlbuffer(machine, &reference, &reference_len, 0) != 0) {
            abort();
        }
        /* reference stays allocated for the life of the process */
        hwloc_topology_destroy(machine);
    }
    return real(topology, reference, reference_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    uint8_t sel = data[0];
    pmix_byte_object_t bo = {(char *)(data + 1), size - 1};
    pmix_data_buffer_t b = PMIX_DATA_BUFFER_STATIC_INIT;
    if (PMIx_Data_embed(&b, &bo) != PMIX_SUCCESS) {
        return 0;
    }
    unpack_all(&b, sel);
    PMIX_DATA_BUFFER_DESTRUCT(&b);

    if (sel & 0x80) {
        uint8_t *out = NULL;
        size_t nout = 0;
        if (PMIx_Data_decompress(data + 1, size - 1, &out, &nout)) {
            free(out);
        }
    }
    return 0;
}
