/* Run under switchyard-run with 2 ranks: PMIx_Publish/Lookup/Unpublish
 * through the launcher's datastore.  Rank 0 publishes after a pause; rank
 * 1 looks up with PMIX_WAIT (held until then), then checks the misses,
 * ranges, a duplicate, a timeout and an unpublish. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

static int failures;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(test_pubsub): " __VA_ARGS__);                                        \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

static pmix_status_t lookup1(const char *key, pmix_info_t *info, size_t ninfo, pmix_pdata_t *pd)
{
    PMIX_PDATA_CONSTRUCT(pd);
    PMIX_LOAD_KEY(pd->key, key);
    return PMIx_Lookup(pd, 1, info, ninfo);
}

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (me.rank == 0) {
        usleep(300000); /* rank 1's waiting lookup is held meanwhile */
        pmix_info_t pub[2];
        int port = 4242;
        PMIX_INFO_LOAD(&pub[0], "sy.service", "tcp://node:4242", PMIX_STRING);
        PMIX_INFO_LOAD(&pub[1], "sy.port", &port, PMIX_INT);
        rc = PMIx_Publish(pub, 2);
        if (rc != PMIX_SUCCESS)
            FAIL("Publish: %s", PMIx_Error_string(rc));
        rc = PMIx_Publish(pub, 1);
        if (rc != PMIX_ERR_DUPLICATE_KEY)
            FAIL("duplicate Publish returned %s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&pub[0]);
        PMIX_INFO_DESTRUCT(&pub[1]);
        /* namespace-only data, then gone again */
        pmix_info_t ns[2];
        pmix_data_range_t r = PMIX_RANGE_NAMESPACE;
        PMIX_INFO_LOAD(&ns[0], "sy.ns-only", "x", PMIX_STRING);
        PMIX_INFO_LOAD(&ns[1], PMIX_RANGE, &r, PMIX_DATA_RANGE);
        if ((rc = PMIx_Publish(ns, 2)) != PMIX_SUCCESS)
            FAIL("Publish(range namespace): %s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&ns[0]);
        PMIX_INFO_DESTRUCT(&ns[1]);
    } else {
        pmix_info_t w;
        bool yes = true;
        PMIX_INFO_LOAD(&w, PMIX_WAIT, &yes, PMIX_BOOL);
        pmix_pdata_t pd[2];
        PMIX_PDATA_CONSTRUCT(&pd[0]);
        PMIX_PDATA_CONSTRUCT(&pd[1]);
        PMIX_LOAD_KEY(pd[0].key, "sy.service");
        PMIX_LOAD_KEY(pd[1].key, "sy.port");
        rc = PMIx_Lookup(pd, 2, &w, 1);
        if (rc != PMIX_SUCCESS || pd[0].value.type != PMIX_STRING ||
            strcmp(pd[0].value.data.string, "tcp://node:4242") != 0 ||
            pd[1].value.type != PMIX_INT || pd[1].value.data.integer != 4242 ||
            pd[0].proc.rank != 0 || strcmp(pd[0].proc.nspace, me.nspace) != 0)
            FAIL("waiting Lookup: %s", PMIx_Error_string(rc));
        PMIX_PDATA_DESTRUCT(&pd[0]);
        PMIX_PDATA_DESTRUCT(&pd[1]);
        PMIX_INFO_DESTRUCT(&w);

        pmix_pdata_t one;
        rc = lookup1("sy.never", NULL, 0, &one);
        if (rc != PMIX_ERR_NOT_FOUND)
            FAIL("Lookup of a missing key returned %s", PMIx_Error_string(rc));
        PMIX_PDATA_DESTRUCT(&one);

        pmix_info_t wt[2];
        int secs = 1;
        PMIX_INFO_LOAD(&wt[0], PMIX_WAIT, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&wt[1], PMIX_TIMEOUT, &secs, PMIX_INT);
        rc = lookup1("sy.never", wt, 2, &one);
        if (rc != PMIX_ERR_TIMEOUT)
            FAIL("waiting Lookup with a timeout returned %s", PMIx_Error_string(rc));
        PMIX_PDATA_DESTRUCT(&one);
        PMIX_INFO_DESTRUCT(&wt[0]);
        PMIX_INFO_DESTRUCT(&wt[1]);

        rc = lookup1("sy.ns-only", NULL, 0, &one);
        if (rc != PMIX_SUCCESS)
            FAIL("Lookup of namespace-range data by a peer: %s", PMIx_Error_string(rc));
        PMIX_PDATA_DESTRUCT(&one);

        /* our own data, unpublished again */
        pmix_info_t mine;
        PMIX_INFO_LOAD(&mine, "sy.mine", "m", PMIX_STRING);
        if ((rc = PMIx_Publish(&mine, 1)) != PMIX_SUCCESS)
            FAIL("Publish(sy.mine): %s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&mine);
        char *keys[] = {"sy.mine", NULL};
        if ((rc = PMIx_Unpublish(keys, NULL, 0)) != PMIX_SUCCESS)
            FAIL("Unpublish: %s", PMIx_Error_string(rc));
        rc = lookup1("sy.mine", NULL, 0, &one);
        if (rc != PMIX_ERR_NOT_FOUND)
            FAIL("Lookup after Unpublish returned %s", PMIx_Error_string(rc));
        PMIX_PDATA_DESTRUCT(&one);
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("Finalize: %s", PMIx_Error_string(rc));
    if (failures == 0)
        printf("test_pubsub rank %u: ok\n", me.rank);
    return failures == 0 ? 0 : 1;
}
