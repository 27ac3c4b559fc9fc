/* A PMIx client for the interop test (tests/external/interop.sh): init,
 * job-level Gets, put/commit, fence with collect, get of every peer's
 * value, finalize.  It prints one line per check ("ok"/"FAIL ...") and
 * exits non-zero on the first failure, so it tests whichever client
 * library it is linked or loaded with under whichever server. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "../openmpi/sy_mapcheck.h"

static pmix_proc_t me;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("rank %u FAIL ", me.rank);                                                      \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            fflush(stdout);                                                                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static uint32_t get_u32(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v != NULL, "Get %s: %s", key, PMIx_Error_string(rc));
    uint32_t out = 0;
    if (v->type == PMIX_UINT32)
        out = v->data.uint32;
    else if (v->type == PMIX_UINT16)
        out = v->data.uint16;
    else if (v->type == PMIX_PROC_RANK)
        out = v->data.rank;
    else
        CHECK(0, "Get %s: type %s", key, PMIx_Data_type_string(v->type));
    PMIX_VALUE_RELEASE(v);
    return out;
}

int main(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("FAIL PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t size = get_u32(&job, PMIX_JOB_SIZE);
    uint32_t lsize = get_u32(&job, PMIX_LOCAL_SIZE);
    uint32_t lrank = get_u32(&me, PMIX_LOCAL_RANK);
    CHECK(size > 0 && me.rank < size, "rank %u of a job of %u", me.rank, size);
    CHECK(lrank < lsize, "local rank %u of %u", lrank, lsize);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&job, PMIX_LOCAL_PEERS, NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v->type == PMIX_STRING, "Get local peers: %s",
          PMIx_Error_string(rc));
    char mine[16];
    snprintf(mine, sizeof(mine), "%u", me.rank);
    int listed = 0;
    char *peers = strdup(v->data.string), *save = NULL;
    for (char *t = strtok_r(peers, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save))
        listed += strcmp(t, mine) == 0;
    CHECK(listed == 1, "rank %s not once in local peers '%s'", mine, v->data.string);
    free(peers);
    PMIX_VALUE_RELEASE(v);
    rc = PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &v);
    CHECK(rc == PMIX_SUCCESS && v->type == PMIX_STRING, "Get hostname: %s", PMIx_Error_string(rc));
    PMIX_VALUE_RELEASE(v);
    sy_mapcheck("rank", 0);
    sy_mapcheck("parent", getppid());
    printf("rank %u ok job size %u local rank %u of %u\n", me.rank, size, lrank, lsize);

    char want[64];
    pmix_value_t val;
    snprintf(want, sizeof(want), "value-of-%u", me.rank);
    PMIX_VALUE_LOAD(&val, want, PMIX_STRING);
    rc = PMIx_Put(PMIX_GLOBAL, "interop.key", &val);
    CHECK(rc == PMIX_SUCCESS, "Put: %s", PMIx_Error_string(rc));
    PMIX_VALUE_DESTRUCT(&val);
    rc = PMIx_Commit();
    CHECK(rc == PMIX_SUCCESS, "Commit: %s", PMIx_Error_string(rc));
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(&job, 1, &collect, 1);
    CHECK(rc == PMIX_SUCCESS, "Fence: %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&collect);
    for (uint32_t r = 0; r < size; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        snprintf(want, sizeof(want), "value-of-%u", r);
        rc = PMIx_Get(&p, "interop.key", NULL, 0, &v);
        CHECK(rc == PMIX_SUCCESS && v->type == PMIX_STRING && strcmp(v->data.string, want) == 0,
              "Get interop.key of rank %u: %s", r, PMIx_Error_string(rc));
        PMIX_VALUE_RELEASE(v);
    }
    printf("rank %u ok fence and every peer's value\n", me.rank);
    rc = PMIx_Finalize(NULL, 0);
    CHECK(rc == PMIX_SUCCESS, "Finalize: %s", PMIx_Error_string(rc));
    printf("rank %u ok finalize\n", me.rank);
    return 0;
}
