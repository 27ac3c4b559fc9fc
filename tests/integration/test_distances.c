/* Run under switchyard-run: PMIx_Get(PMIX_DEVICE_DISTANCES) of this rank
 * and of every peer on the node must equal PMIx_Compute_distances over the
 * cpuset that process really runs on (PMIx_Get_cpuset, the kernel's view
 * of the binding the launcher applied; each rank posts a summary of its
 * own for the others to compare with); the PMIX_DEVICE_ID qualifier
 * narrows the answer to that device; a rank that does not exist is
 * PMIX_ERR_NOT_FOUND. */
#include <stdbool.h>
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

static const pmix_device_type_t all_types = PMIX_DEVTYPE_BLOCK | PMIX_DEVTYPE_GPU |
                                            PMIX_DEVTYPE_NETWORK | PMIX_DEVTYPE_OPENFABRICS |
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

static int by_uuid(const void *a, const void *b)
{
    return strcmp((*(const pmix_device_distance_t *const *)a)->uuid,
                  (*(const pmix_device_distance_t *const *)b)->uuid);
}

/* One line per device, in uuid order (malloc'd; "" for none). */
static char *summary(const pmix_device_distance_t *d, size_t n)
{
    const pmix_device_distance_t **p = calloc(n + 1, sizeof(*p));
    size_t len = 1;
    for (size_t i = 0; p != NULL && i < n; i++) {
        p[i] = &d[i];
        len += strlen(d[i].uuid) + strlen(d[i].osname) + 40;
    }
    char *s = p != NULL ? calloc(1, len) : NULL;
    if (s != NULL) {
        qsort(p, n, sizeof(*p), by_uuid);
        for (size_t i = 0, used = 0; i < n; i++)
            used += (size_t)snprintf(s + used, len - used, "%s %s %d %u %u\n", p[i]->uuid,
                                     p[i]->osname, (int)p[i]->type, p[i]->mindist, p[i]->maxdist);
    }
    free(p);
    return s;
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
    /* no cpuset: the same, as OpenPMIx takes it (its binding) */
    pmix_device_distance_t *dflt = NULL;
    size_t ndflt = 0;
    rc = PMIx_Compute_distances(NULL, NULL, &types, 1, &dflt, &ndflt);
    if (rc != PMIX_SUCCESS || !same(dflt, ndflt, want, nwant))
        FAIL("rank %u: Compute_distances without a cpuset: %s, %zu devices where %zu", me.rank,
             PMIx_Error_string(rc), ndflt, nwant);
    if (dflt != NULL)
        PMIX_DEVICE_DIST_FREE(dflt, ndflt);

    /* for the peers to compare with */
    char *mysum = summary(want, nwant);
    pmix_value_t post;
    PMIX_VALUE_LOAD(&post, mysum != NULL ? mysum : "?", PMIX_STRING);
    if (PMIx_Put(PMIX_LOCAL, "sy.dist", &post) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS)
        FAIL("rank %u: posting the summary", me.rank);
    PMIX_VALUE_DESTRUCT(&post);
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (PMIx_Fence(NULL, 0, &collect, 1) != PMIX_SUCCESS)
        FAIL("rank %u: fence", me.rank);
    PMIX_INFO_DESTRUCT(&collect);

    pmix_value_t *v = NULL;
    rc = PMIx_Get(&me, PMIX_DEVICE_DISTANCES, &types, 1, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_DATA_ARRAY ||
        v->data.darray->type != PMIX_DEVICE_DIST)
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

    /* every peer on the node: served here too, what the peer computed */
    pmix_value_t *sz = NULL;
    uint32_t n = 0;
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &sz) == PMIX_SUCCESS && sz->type == PMIX_UINT32)
        n = sz->data.uint32;
    if (sz != NULL)
        PMIX_VALUE_RELEASE(sz);
    if (n < 2)
        FAIL("rank %u: a job of %u ranks (run it with 2 or more)", me.rank, n);
    for (uint32_t r = 0; r < n; r++) {
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        v = NULL;
        rc = PMIx_Get(&peer, PMIX_DEVICE_DISTANCES, &types, 1, &v);
        pmix_value_t *theirs = NULL;
        pmix_status_t prc = PMIx_Get(&peer, "sy.dist", NULL, 0, &theirs);
        char *got = rc == PMIX_SUCCESS && v->type == PMIX_DATA_ARRAY &&
                            v->data.darray->type == PMIX_DEVICE_DIST
                        ? summary(v->data.darray->array, v->data.darray->size)
                        : NULL;
        if (got == NULL || prc != PMIX_SUCCESS || theirs->type != PMIX_STRING ||
            strcmp(got, theirs->data.string) != 0)
            FAIL("rank %u: Get(peer %u, PMIX_DEVICE_DISTANCES): %s, not what the peer computed",
                 me.rank, r, PMIx_Error_string(rc));
        free(got);
        if (theirs != NULL)
            PMIX_VALUE_RELEASE(theirs);
        if (v != NULL)
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

    free(mysum);
    if (want != NULL)
        PMIX_DEVICE_DIST_FREE(want, nwant);
    PMIx_Cpuset_destruct(&mine);
    PMIX_INFO_DESTRUCT(&types);
    PMIx_Finalize(NULL, 0);
    if (failures == 0)
        printf("test_distances rank %u: ok (%zu devices)\n", me.rank, nwant);
    return failures == 0 ? 0 : 1;
}
