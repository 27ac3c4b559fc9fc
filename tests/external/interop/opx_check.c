/* Reads what OpenPMIx 4.2.2's own PMIx_Data_pack wrote (opx_client.c with
 * INTEROP_PACK_OUT, run by tests/external/interop.sh) with our decoder of
 * its wire encoding (common/opx_bfrops.h), checks every value, and packs
 * them again: the bytes must be the same.  Cross-checks opx_bfrops against
 * the real library (PMIx_Data_pack uses the v41 module and flex128, as
 * the wire does).  Exit 0 on success, 1 with a message otherwise. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/opx_bfrops.h"

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "opx_check: " __VA_ARGS__);                                                \
        fputc('\n', stderr);                                                                       \
        return 1;                                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 2)
        FAIL("usage: opx_check FILE");
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL)
        FAIL("cannot open %s", argv[1]);
    static uint8_t bytes[65536];
    size_t n = fread(bytes, 1, sizeof(bytes), f);
    fclose(f);
    pmix_data_buffer_t b = {0}, again = {0};
    if (sy_buffer_set_copy(&b, bytes, n) != PMIX_SUCCESS)
        FAIL("no memory");
    int32_t i32, one = 1;
    char *str = NULL;
    pmix_proc_t proc;
    pmix_info_t info[2];
    size_t sz;
    pid_t pid;
    double d;
    pmix_byte_object_t bo;
    pmix_value_t val;
    int32_t two = 2;
#define GET(dst, cnt, type, want)                                                                  \
    do {                                                                                           \
        int32_t c_ = (cnt);                                                                        \
        if (sy_opx_unpack(&b, (dst), &c_, (type)) != PMIX_SUCCESS || c_ != (want))                 \
            FAIL("unpacking %s", #type);                                                           \
        if (sy_opx_pack(&again, (dst), c_, (type)) != PMIX_SUCCESS)                                \
            FAIL("packing %s", #type);                                                             \
    } while (0)
    GET(&i32, one, PMIX_INT32, 1);
    GET(&str, one, PMIX_STRING, 1);
    GET(&proc, one, PMIX_PROC, 1);
    GET(info, two, PMIX_INFO, 2);
    GET(&sz, one, PMIX_SIZE, 1);
    GET(&pid, one, PMIX_PID, 1);
    GET(&d, one, PMIX_DOUBLE, 1);
    GET(&bo, one, PMIX_BYTE_OBJECT, 1);
    GET(&val, one, PMIX_VALUE, 1);
    if (i32 != -5 || str == NULL || strcmp(str, "hello") != 0)
        FAIL("int32 %d / string %s", i32, str ? str : "(null)");
    if (strcmp(proc.nspace, "interop.ns") != 0 || proc.rank != 3)
        FAIL("proc %s:%u", proc.nspace, proc.rank);
    if (strcmp(info[0].key, PMIX_JOB_SIZE) != 0 || info[0].value.type != PMIX_UINT32 ||
        info[0].value.data.uint32 != 4 || strcmp(info[1].key, "k") != 0 ||
        info[1].value.type != PMIX_STRING || strcmp(info[1].value.data.string, "v") != 0)
        FAIL("infos");
    if (sz != 300 || pid != 1234 || d != 1.5)
        FAIL("size %zu pid %d double %f", sz, (int)pid, d);
    if (bo.size != 3 || memcmp(bo.bytes, "\x01\x02\x03", 3) != 0)
        FAIL("byte object");
    if (val.type != PMIX_DATA_ARRAY || val.data.darray->type != PMIX_UINT8 ||
        val.data.darray->size != 2 || ((uint8_t *)val.data.darray->array)[1] != 8)
        FAIL("data array value");
    if (sy_buffer_remaining(&b) != 0)
        FAIL("%zu bytes left over", sy_buffer_remaining(&b));
    if (again.bytes_used != n || memcmp(again.base_ptr, bytes, n) != 0)
        FAIL("our packing differs from OpenPMIx's (%zu vs %zu bytes)", again.bytes_used, n);
    free(str);
    sy_elem_destruct(&info[0], PMIX_INFO);
    sy_elem_destruct(&info[1], PMIX_INFO);
    sy_elem_destruct(&bo, PMIX_BYTE_OBJECT);
    sy_value_destruct(&val);
    sy_buffer_destruct(&b);
    sy_buffer_destruct(&again);
    printf("opx_check: %zu bytes of OpenPMIx's PMIx_Data_pack read and rewritten identically\n", n);
    return 0;
}
