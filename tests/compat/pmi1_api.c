/* A PMI-1 program (pmi.h, libpmi.so.0) checking what every rank sees:
 * identity, the job's key-value space (every peer's key after a barrier),
 * cliques, PMI_process_mapping, the name service; "abort N" makes the
 * last rank call PMI_Abort(N).  Prints "pmi1 ok rank R of N" on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmi.h>

static int fails;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "pmi1_api: %s:%d: %s\n", __FILE__, __LINE__, #c);                      \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    int spawned = -1, rank = -1, size = -1, appnum = -1, usize = -1;
    PMI_BOOL inited = PMI_TRUE;
    CHECK(PMI_Initialized(&inited) == PMI_SUCCESS && inited == PMI_FALSE);
    CHECK(PMI_Init(&spawned) == PMI_SUCCESS);
    CHECK(spawned == PMI_FALSE);
    CHECK(PMI_Initialized(&inited) == PMI_SUCCESS && inited == PMI_TRUE);
    CHECK(PMI_Get_rank(&rank) == PMI_SUCCESS && rank >= 0);
    CHECK(PMI_Get_size(&size) == PMI_SUCCESS && size > rank);
    CHECK(PMI_Get_appnum(&appnum) == PMI_SUCCESS && appnum == 0);
    CHECK(PMI_Get_universe_size(&usize) == PMI_SUCCESS && usize >= size);
    const char *env_size = getenv("EXPECT_SIZE");
    if (env_size != NULL)
        CHECK(size == atoi(env_size));

    int nmax = 0, kmax = 0, vmax = 0;
    CHECK(PMI_KVS_Get_name_length_max(&nmax) == PMI_SUCCESS && nmax > 0);
    CHECK(PMI_KVS_Get_key_length_max(&kmax) == PMI_SUCCESS && kmax >= 32);
    CHECK(PMI_KVS_Get_value_length_max(&vmax) == PMI_SUCCESS && vmax >= 256);
    char *kvs = malloc((size_t)nmax);
    CHECK(PMI_KVS_Get_my_name(kvs, nmax) == PMI_SUCCESS && kvs[0] != '\0');
    char tiny[2];
    CHECK(PMI_KVS_Get_my_name(tiny, 1) != PMI_SUCCESS);

    if (argc > 2 && strcmp(argv[1], "abort") == 0) {
        PMI_Barrier();
        if (rank == size - 1)
            PMI_Abort(atoi(argv[2]), "pmi1_api: aborting on request");
        /* the others wait to be killed */
        PMI_Barrier();
        fprintf(stderr, "pmi1_api: survived the abort\n");
        return 1;
    }

    /* every rank's key, then every peer's value */
    char key[64], val[1024], want[1024];
    snprintf(key, sizeof(key), "key-%d", rank);
    snprintf(val, sizeof(val), "value-of-%d-%s", rank, kvs);
    CHECK(PMI_KVS_Put(kvs, key, val) == PMI_SUCCESS);
    CHECK(PMI_KVS_Put("not-my-kvs", key, val) != PMI_SUCCESS);
    CHECK(PMI_KVS_Commit(kvs) == PMI_SUCCESS);
    /* own key readable before the barrier */
    char got[1024];
    CHECK(PMI_KVS_Get(kvs, key, got, sizeof(got)) == PMI_SUCCESS && strcmp(got, val) == 0);
    CHECK(PMI_Barrier() == PMI_SUCCESS);
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof(key), "key-%d", r);
        snprintf(want, sizeof(want), "value-of-%d-%s", r, kvs);
        got[0] = '\0';
        CHECK(PMI_KVS_Get(kvs, key, got, sizeof(got)) == PMI_SUCCESS);
        CHECK(strcmp(got, want) == 0);
    }
    CHECK(PMI_KVS_Get(kvs, "no-such-key", got, sizeof(got)) == PMI_FAIL);
    /* a second round: a new value replaces nothing of the first */
    snprintf(key, sizeof(key), "round2-%d", rank);
    CHECK(PMI_KVS_Put(kvs, key, "second") == PMI_SUCCESS);
    CHECK(PMI_KVS_Commit(kvs) == PMI_SUCCESS);
    CHECK(PMI_Barrier() == PMI_SUCCESS);
    snprintf(key, sizeof(key), "round2-%d", (rank + 1) % size);
    CHECK(PMI_KVS_Get(kvs, key, got, sizeof(got)) == PMI_SUCCESS && strcmp(got, "second") == 0);

    /* iteration over what this process put */
    char ik[64], iv[1024];
    int nput = 0;
    CHECK(PMI_KVS_Iter_first(kvs, ik, sizeof(ik), iv, sizeof(iv)) == PMI_SUCCESS);
    while (ik[0] != '\0' && nput < 10) {
        nput++;
        CHECK(PMI_KVS_Iter_next(kvs, ik, sizeof(ik), iv, sizeof(iv)) == PMI_SUCCESS);
    }
    CHECK(nput == 2);

    /* clique: one node, so every rank */
    int csize = -1;
    CHECK(PMI_Get_clique_size(&csize) == PMI_SUCCESS && csize == size);
    int *cr = calloc((size_t)size, sizeof(int));
    CHECK(PMI_Get_clique_ranks(cr, size) == PMI_SUCCESS);
    int seen_self = 0;
    for (int i = 0; i < csize && i < size; i++)
        seen_self |= cr[i] == rank;
    CHECK(seen_self);
    free(cr);

    /* process mapping: all ranks on node 0 */
    snprintf(want, sizeof(want), "(vector,(0,1,%d))", size);
    CHECK(PMI_KVS_Get(kvs, "PMI_process_mapping", got, sizeof(got)) == PMI_SUCCESS);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "pmi1_api: mapping '%s', expected '%s'\n", got, want);
        fails++;
    }

    /* name service: rank 0 publishes, the last rank looks it up */
    /* (a singleton has no server, so no name service) */
    if (getenv("SY_NO_NAMESERV") == NULL) {
        char svc[300], port[1024];
        snprintf(svc, sizeof(svc), "svc-%s", kvs);
        if (rank == 0)
            CHECK(PMI_Publish_name(svc, "tag#0$port#1234$") == PMI_SUCCESS);
        CHECK(PMI_Barrier() == PMI_SUCCESS);
        if (rank == size - 1) {
            CHECK(PMI_Lookup_name(svc, port) == PMI_SUCCESS);
            CHECK(strcmp(port, "tag#0$port#1234$") == 0);
        }
        CHECK(PMI_Barrier() == PMI_SUCCESS);
        if (rank == 0) {
            CHECK(PMI_Unpublish_name(svc) == PMI_SUCCESS);
            CHECK(PMI_Lookup_name(svc, port) != PMI_SUCCESS);
        }
    }

    /* option helpers */
    char *args[] = {"-wdir=/tmp", "host=a"};
    PMI_keyval_t *kv = NULL;
    int np = 0, nkv = 0;
    CHECK(PMI_Parse_option(2, args, &np, &kv, &nkv) == PMI_SUCCESS && nkv == 2);
    CHECK(kv != NULL && strcmp(kv[0].key, "wdir") == 0 && strcmp(kv[1].val, "a") == 0);
    PMI_Free_keyvals(kv, nkv);

    CHECK(PMI_Barrier() == PMI_SUCCESS);
    CHECK(PMI_Finalize() == PMI_SUCCESS);
    free(kvs);
    if (fails == 0)
        printf("pmi1 ok rank %d of %d\n", rank, size);
    return fails == 0 ? 0 : 1;
}
