/* A PMIx client for tests/external/interop.sh (the ds21 section), built
 * against OpenPMIx 4.2.2's library or ours: job keys, then put/commit of
 * keys of several sizes (64 B, 4 KiB, 100 KiB, and one key committed
 * twice with a different size), fence with collect, and every peer's
 * values checked byte for byte.  Prints "DS21 yes" when the process
 * mapped the ds21 data segments (/proc/self/maps: what an OpenPMIx client
 * does only when it reads from them) and "DS21PATH <dir>" (the
 * PMIX_DSTORE_21_BASE_PATH it was given), then "rank R of N ok". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, __VA_ARGS__);                                                              \
        exit(1);                                                                                   \
    } while (0)

static const struct {
    const char *key;
    size_t len;
} keys[] = {{"ds21.small", 64}, {"ds21.page", 4096}, {"ds21.big", 100 * 1024}};

static void fill(char *buf, size_t len, pmix_rank_t rank, const char *key, unsigned gen)
{
    size_t h = strlen(key) * 131 + gen * 7;
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)('a' + (rank * 31 + h + i) % 26);
}

static void put(const pmix_proc_t *me, const char *key, size_t len, unsigned gen)
{
    char *buf = malloc(len);
    fill(buf, len, me->rank, key, gen);
    pmix_value_t v;
    pmix_byte_object_t bo = {.bytes = buf, .size = len};
    PMIX_VALUE_LOAD(&v, &bo, PMIX_BYTE_OBJECT);
    if (PMIx_Put(PMIX_GLOBAL, key, &v) != PMIX_SUCCESS)
        FAIL("rank %u: put %s failed\n", me->rank, key);
    PMIX_VALUE_DESTRUCT(&v);
    free(buf);
}

static void check(const pmix_proc_t *me, const pmix_proc_t *peer, const char *key, size_t len,
                  unsigned gen)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(peer, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        FAIL("rank %u: get %s of %u: %s\n", me->rank, key, peer->rank, PMIx_Error_string(rc));
    char *want = malloc(len);
    fill(want, len, peer->rank, key, gen);
    if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size != len ||
        memcmp(v->data.bo.bytes, want, len) != 0)
        FAIL("rank %u: %s of %u: wrong value (type %u, %zu bytes, want %zu)\n", me->rank, key,
             peer->rank, (unsigned)v->type, v->type == PMIX_BYTE_OBJECT ? v->data.bo.size : 0, len);
    free(want);
    PMIX_VALUE_RELEASE(v);
}

static bool mapped_ds21(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    bool yes = false;
    while (f != NULL && !yes && fgets(line, sizeof(line), f) != NULL)
        yes = strstr(line, "/smdataseg-") != NULL;
    if (f != NULL)
        fclose(f);
    return yes;
}

int main(void)
{
    pmix_proc_t me, wild, peer;
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("PMIx_Init: %s\n", PMIx_Error_string(rc));
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS)
        FAIL("rank %u: no job size\n", me.rank);
    uint32_t size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    if (PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &v) != PMIX_SUCCESS || v->data.uint16 != me.rank)
        FAIL("rank %u: wrong or no local rank\n", me.rank);
    PMIX_VALUE_RELEASE(v);
    if (PMIx_Get(&wild, PMIX_LOCAL_SIZE, NULL, 0, &v) != PMIX_SUCCESS || v->data.uint32 != size)
        FAIL("rank %u: wrong or no local size\n", me.rank);
    PMIX_VALUE_RELEASE(v);
    if (PMIx_Get(&wild, PMIX_UNIV_SIZE, NULL, 0, &v) != PMIX_SUCCESS || v->data.uint32 != size)
        FAIL("rank %u: wrong or no universe size\n", me.rank);
    PMIX_VALUE_RELEASE(v);
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
        put(&me, keys[k].key, keys[k].len, 0);
    put(&me, "ds21.again", 10, 0);
    if (PMIx_Commit() != PMIX_SUCCESS)
        FAIL("rank %u: commit failed\n", me.rank);
    put(&me, "ds21.again", 300, 1); /* replaced, with another size */
    if (PMIx_Commit() != PMIX_SUCCESS)
        FAIL("rank %u: second commit failed\n", me.rank);
    pmix_info_t coll;
    bool yes = true;
    PMIX_INFO_LOAD(&coll, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if ((rc = PMIx_Fence(NULL, 0, &coll, 1)) != PMIX_SUCCESS)
        FAIL("rank %u: fence: %s\n", me.rank, PMIx_Error_string(rc));
    for (uint32_t r = 0; r < size; r++) {
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
            check(&me, &peer, keys[k].key, keys[k].len, 0);
        check(&me, &peer, "ds21.again", 300, 1);
        /* a job key of that rank */
        if (PMIx_Get(&peer, PMIX_LOCAL_RANK, NULL, 0, &v) != PMIX_SUCCESS || v->data.uint16 != r)
            FAIL("rank %u: wrong or no local rank of %u\n", me.rank, r);
        PMIX_VALUE_RELEASE(v);
    }
    const char *path = getenv("PMIX_DSTORE_21_BASE_PATH");
    printf("DS21 %s\n", mapped_ds21() ? "yes" : "no");
    if (path != NULL)
        printf("DS21PATH %s\n", path);
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS)
        FAIL("rank %u: second fence: %s\n", me.rank, PMIx_Error_string(rc));
    printf("rank %u of %u ok\n", me.rank, size);
    fflush(stdout);
    return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? 0 : 1;
}
