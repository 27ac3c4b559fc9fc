/* A PMI-2 program (pmi2.h, libpmi2.so.0): identity, KVS put/fence/get of
 * every peer (with and without a source hint), node attributes (the node
 * root puts, the others wait for it), job attributes, the name service,
 * PMIX_Ring.  Prints "pmi2 ok rank R of N" on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmi2.h>

static int fails;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "pmi2_api: %s:%d: %s\n", __FILE__, __LINE__, #c);                      \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

int main(void)
{
    int spawned = -1, size = -1, rank = -1, appnum = -1, vl = 0, found = 0;
    CHECK(PMI2_Initialized() == 0);
    CHECK(PMI2_Init(&spawned, &size, &rank, &appnum) == PMI2_SUCCESS);
    CHECK(PMI2_Initialized() != 0);
    CHECK(spawned == 0 && appnum == 0 && rank >= 0 && size > rank);
    const char *env_size = getenv("EXPECT_SIZE");
    if (env_size != NULL)
        CHECK(size == atoi(env_size));
    int r2 = -1, lsize = -1;
    CHECK(PMI2_Job_GetRank(&r2) == PMI2_SUCCESS && r2 == rank);
    CHECK(PMI2_Info_GetSize(&lsize) == PMI2_SUCCESS && lsize == size);
    char jobid[256];
    CHECK(PMI2_Job_GetId(jobid, sizeof(jobid)) == PMI2_SUCCESS && jobid[0] != '\0');

    /* node attribute: rank 0 (the node root) puts, the others wait */
    char val[PMI2_MAX_VALLEN], got[PMI2_MAX_VALLEN];
    snprintf(val, sizeof(val), "/dev/shm/segment-of-%s", jobid);
    if (rank == 0)
        CHECK(PMI2_Info_PutNodeAttr("shm-name", val) == PMI2_SUCCESS);
    CHECK(PMI2_Info_GetNodeAttr("shm-name", got, sizeof(got), &found, 1) == PMI2_SUCCESS);
    CHECK(found == 1 && strcmp(got, val) == 0);
    CHECK(PMI2_Info_GetNodeAttr("no-such-attr", got, sizeof(got), &found, 0) == PMI2_SUCCESS);
    CHECK(found == 0);

    /* KVS: every rank's key, every peer's value, with and without srcid */
    char key[PMI2_MAX_KEYLEN], want[PMI2_MAX_VALLEN];
    snprintf(key, sizeof(key), "bc-%d", rank);
    snprintf(val, sizeof(val), "business-card-%d;with=odd chars", rank);
    CHECK(PMI2_KVS_Put(key, val) == PMI2_SUCCESS);
    CHECK(PMI2_KVS_Fence() == PMI2_SUCCESS);
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof(key), "bc-%d", r);
        snprintf(want, sizeof(want), "business-card-%d;with=odd chars", r);
        CHECK(PMI2_KVS_Get(jobid, r, key, got, sizeof(got), &vl) == PMI2_SUCCESS);
        CHECK(strcmp(got, want) == 0 && vl == (int)strlen(want));
        CHECK(PMI2_KVS_Get(NULL, PMI2_ID_NULL, key, got, sizeof(got), &vl) == PMI2_SUCCESS);
        CHECK(strcmp(got, want) == 0);
    }
    /* truncation: negative length */
    snprintf(key, sizeof(key), "bc-%d", (rank + 1) % size);
    CHECK(PMI2_KVS_Get(jobid, PMI2_ID_NULL, key, got, 5, &vl) == PMI2_SUCCESS && vl < 0);
    CHECK(PMI2_KVS_Get(jobid, PMI2_ID_NULL, "no-such-key", got, sizeof(got), &vl) ==
          PMI2_ERR_OTHER);

    /* job attributes */
    snprintf(want, sizeof(want), "(vector,(0,1,%d))", size);
    CHECK(PMI2_Info_GetJobAttr("PMI_process_mapping", got, sizeof(got), &found) == PMI2_SUCCESS);
    CHECK(found == 1 && strcmp(got, want) == 0);
    CHECK(PMI2_Info_GetJobAttr("universeSize", got, sizeof(got), &found) == PMI2_SUCCESS);
    CHECK(found == 1 && atoi(got) >= size);
    CHECK(PMI2_Info_GetJobAttr("no.such.attr", got, sizeof(got), &found) == PMI2_SUCCESS);
    CHECK(found == 0);

    /* name service */
    /* (a singleton has no server, so no name service) */
    if (getenv("SY_NO_NAMESERV") == NULL) {
        char svc[300];
        snprintf(svc, sizeof(svc), "svc2-%s", jobid);
        if (rank == 0)
            CHECK(PMI2_Nameserv_publish(svc, NULL, "port-A") == PMI2_SUCCESS);
        CHECK(PMI2_KVS_Fence() == PMI2_SUCCESS);
        CHECK(PMI2_Nameserv_lookup(svc, NULL, got, sizeof(got)) == PMI2_SUCCESS);
        CHECK(strcmp(got, "port-A") == 0);
        CHECK(PMI2_KVS_Fence() == PMI2_SUCCESS);
        if (rank == 0) {
            CHECK(PMI2_Nameserv_unpublish(svc, NULL) == PMI2_SUCCESS);
            CHECK(PMI2_Nameserv_lookup(svc, NULL, got, sizeof(got)) != PMI2_SUCCESS);
        }
    }

    /* ring */
    char left[64], right[64], mine[64], wl[64], wr[64];
    int rr = -1, rn = -1;
    snprintf(mine, sizeof(mine), "ring-%d", rank);
    snprintf(wl, sizeof(wl), "ring-%d", (rank + size - 1) % size);
    snprintf(wr, sizeof(wr), "ring-%d", (rank + 1) % size);
    CHECK(PMIX_Ring(mine, &rr, &rn, left, right, sizeof(left)) == PMI2_SUCCESS);
    CHECK(rr == rank && rn == size && strcmp(left, wl) == 0 && strcmp(right, wr) == 0);

    CHECK(PMI2_KVS_Fence() == PMI2_SUCCESS);
    CHECK(PMI2_Finalize() == PMI2_SUCCESS);
    if (fails == 0)
        printf("pmi2 ok rank %d of %d\n", rank, size);
    return fails == 0 ? 0 : 1;
}
