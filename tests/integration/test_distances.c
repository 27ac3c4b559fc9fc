/* Run under switchyard-run: PMIx_Get(PMIX_DEVICE_DISTANCES) of this rank
 * and of every peer on the node must equal PMIx_Compute_distances over the
 * cpuset the process really runs on (PMIx_Get_cpuset, the kernel's view of
 * the binding the launcher applied); the PMIX_DEVICE_ID qualifier narrows
 * the answer to that device; a rank that does not exist is
 * PMIX_ERR_NOT_FOUND. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static int failures;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(test_distances): " __VA_ARGS__);                                     \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

static const pmix_device_type_t all_types =
    PMIX_DEVTYPE_BLOCK | PMIX_DEVTYPE_GPU | PMIX_DEVTYPE_NETWORK | PMIX_DEVTYPE_OPENFABRICS |
    PMIX_DEVTYPE_DMA | PMIX_DEVTYPE_COPROC;

static int same(const pmix_device_distance_t *a, size_t na, const pmix_device_distance_t *b,
                size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++) {
        size_t j = 0;
        while (j < nb && strcmp(a[i].uuid, b[j].uuid) != 0)
            j++;
        if (j == nb || a[i].mindist != b[j].mindist || a[i].maxdist != b[j].maxdist ||
            a[i].type != b[j].type || strcmp(a[i].osname, b[j].osname) != 0)
            return 0;
    }
    return 1;
}

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL(test_distances): PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_info_t types;
    PMIX_INFO_LOAD(&types, PMIX_DEVICE_TYPE, &all_types, PMIX_DEVTYPE);

    /* what this process really runs on */
    pmix_cpuset_t mine;
    memset(&mine, 0, sizeof(mine));
    pmix_device_distance_t *want = NULL;
    size_t nwant = 0;
    rc = PMIx_Get_cpuset(&mine, PMIX_CPUBIND_PROCESS);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Compute_distances(NULL, &mine, &types, 1, &want, &nwant);
    if (rc != PMIX_SUCCESS)
        FAIL("rank %u: Compute_distances over its own binding: %s", me.rank, PMIx_Error_string(rc));

    pmix_value_t *v = NULL;
    rc = PMIx_Get(&me, PMIX_DEVICE_DISTANCES, &types, 1, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_DATA_ARRAY || v->data.darray->type != PMIX_DEVICE_DIST)
        FAIL("rank %u: Get(PMIX_DEVICE_DISTANCES): %s", me.rank, PMIx_Error_string(rc));
    else if (!same(v->data.darray->array, v->data.darray->size, want, nwant))
        FAIL("rank %u: Get(PMIX_DEVICE_DISTANCES) differs from the distances of its binding",
             me.rank);
    else if (nwant > 0) {
        /* one device by id */
        pmix_info_t byid;
        pmix_value_t *one = NULL;
        PMIX_INFO_LOAD(&byid, PMIX_DEVICE_ID, want[0].uuid, PMIX_STRING);
        rc = PMIx_Get(&me, PMIX_DEVICE_DISTANCES, &byid, 1, &one);
        if (rc != PMIX_SUCCESS || one->data.darray->size != 1 ||
            !same(one->data.darray->array, 1, want, 1))
            FAIL("rank %u: PMIX_DEVICE_ID %s: %s", me.rank, want[0].uuid, PMIx_Error_string(rc));
        if (one != NULL)
            PMIX_VALUE_RELEASE(one);
        PMIX_INFO_DESTRUCT(&byid);
    }
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);

    /* every peer on the node: served here too, without asking it */
    pmix_value_t *sz = NULL;
    uint32_t n = 0;
    if (PMIx_Get(&(pmix_proc_t){.rank = PMIX_RANK_WILDCARD}, PMIX_JOB_SIZE, NULL, 0, &sz) ==
        PMIX_SUCCESS)
        n = sz->data.uint32;
    if (sz != NULL)
        PMIX_VALUE_RELEASE(sz);
    for (uint32_t r = 0; r < n; r++) {
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        rc = PMIx_Get(&peer, PMIX_DEVICE_DISTANCES, &types, 1, &v);
        if (rc != PMIX_SUCCESS)
            FAIL("rank %u: Get(peer %u, PMIX_DEVICE_DISTANCES): %s", me.rank, r,
                 PMIx_Error_string(rc));
        else
            PMIX_VALUE_RELEASE(v);
    }
    pmix_proc_t nobody;
    PMIX_LOAD_PROCID(&nobody, me.nspace, n + 7);
    v = NULL;
    rc = PMIx_Get(&nobody, PMIX_DEVICE_DISTANCES, &types, 1, &v);
    if (rc != PMIX_ERR_NOT_FOUND)
        FAIL("rank %u: a rank that does not exist: %s", me.rank, PMIx_Error_string(rc));
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);

    if (want != NULL)
        PMIX_DEVICE_DIST_FREE(want, nwant);
    PMIx_Cpuset_destruct(&mine);
    PMIX_INFO_DESTRUCT(&types);
    PMIx_Finalize(NULL, 0);
    if (failures == 0)
        printf("test_distances rank %u: ok (%zu devices)\n", me.rank, nwant);
    return failures == 0 ? 0 : 1;
}
