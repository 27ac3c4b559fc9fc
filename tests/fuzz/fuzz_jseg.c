/*
 * libFuzzer target: sy_jseg_open and every reader function on arbitrary
 * job-data segment files.  Must never crash, leak or read out of bounds.
 *
 * The input is written to a file and opened.  Unless the first byte of the
 * input is 0xff, every sum (the header's, the table of chunk sums, each
 * chunk's) is recomputed first, so that the fuzzer reaches the structural
 * checks behind them (a hostile writer can compute sums too).  A file that
 * opens is then used: every id of every realm is listed and read, the keys
 * that are stored and those derived from the layout section (a rank's node,
 * host name, local and application ranks, a node's peers, node lists) and
 * the per-process columns are looked up, and node names resolved.  The
 * seeds (tests/fuzz/corpus/fuzz_jseg/, written by tests/unit/
 * test_jobinfo_scale with SY_WRITE_CORPUS=<dir>) hold layouts of every
 * kind: maps with names, a process map alone, several applications,
 * per-process runs of every form.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "common/jseg.h"
#include "common/jseg_format.h"

static char path[64];

static void cleanup(void)
{
    if ('\0' != path[0]) {
        unlink(path);
    }
}

static void use(sy_jseg_t *seg)
{
    static const char *keys[] = {
        PMIX_JOB_SIZE,  PMIX_HOSTNAME,    PMIX_HOSTNAME_ALIASES, PMIX_NODEID,
        PMIX_APPNUM,    PMIX_LOCAL_PEERS, PMIX_NODE_LIST,        PMIX_LOCAL_RANK,
        PMIX_NODE_RANK, PMIX_APP_RANK,    PMIX_GLOBAL_RANK,      PMIX_RANK,
        PMIX_LOCALLDR,  PMIX_LOCAL_SIZE,  PMIX_NODE_SIZE,        PMIX_APPLDR,
        "site.tag",     "site.num",       PMIX_LOCALITY_STRING,
    };
    for (int r = 0; r < SY_REALM_COUNT; r++) {
        uint32_t *ids;
        size_t n;
        if (sy_jseg_ids(seg, (sy_realm_t)r, &ids, &n) != PMIX_SUCCESS) {
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            pmix_info_t *infos;
            size_t ni;
            if (sy_jseg_get_all(seg, (sy_realm_t)r, ids[i], &infos, &ni) == PMIX_SUCCESS) {
                PMIX_INFO_FREE(infos, ni);
            }
            for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
                pmix_value_t *v;
                if (sy_jseg_get(seg, (sy_realm_t)r, ids[i], keys[k], &v) == PMIX_SUCCESS) {
                    PMIX_VALUE_RELEASE(v);
                }
            }
        }
        free(ids);
    }
    static const char *names[] = {"node0", "n0", "c001", "c002", "h"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        (void)sy_jseg_node_by_name(seg, names[i], NULL);
    }
    /* ranks no listing names, and the process realm's extremes */
    static const uint32_t ranks[] = {0, 1, 63, 64, 1000, 0xfffffff0u, 0xfffffffeu};
    for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
        pmix_value_t *v;
        if (sy_jseg_get(seg, SY_REALM_PROC, ranks[i], PMIX_HOSTNAME, &v) == PMIX_SUCCESS) {
            PMIX_VALUE_RELEASE(v);
        }
        uint32_t u;
        (void)sy_jseg_get_u32(seg, SY_REALM_PROC, ranks[i], PMIX_NODEID, &u);
    }
    (void)sy_jseg_nspace(seg);
    (void)sy_jseg_superseded_by(seg);
}

/* Refused files are logged at warn; keep the fuzzer's output readable. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("SWITCHYARD_LOG", "error", 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy;
    sy_jseg_t *seg;
    FILE *f;

    if ('\0' == path[0]) {
        snprintf(path, sizeof(path), "/tmp/sy-fuzz-jseg-%ld.seg", (long)getpid());
        atexit(cleanup);
    }
    copy = malloc(size + 1);
    if (copy == NULL) {
        return 0;
    }
    memcpy(copy, data, size);
    if (size >= sizeof(sy_jseg_header_t) && 0xff != data[0]) {
        sy_jseg_reseal(copy, size);
    }
    f = fopen(path, "wb");
    if (f != NULL) {
        size_t w = fwrite(copy, 1, size, f);
        fclose(f);
        if (w == size && sy_jseg_open(path, &seg) == PMIX_SUCCESS) {
            use(seg);
            sy_jseg_close(seg);
        }
    }
    free(copy);
    return 0;
}
