/* An OpenPMIx client started with no server in its environment (built
 * against Debian's libpmix, rpath-pinned; tests/external/interop.sh): a
 * singleton.  It may find a system server (pmix.sys.<host> in its tmpdir)
 * and connect to it; either way init, its job size, put/commit/fence of
 * itself, get of its own key and finalize work.  Prints
 *   singleton <nspace>:<rank> size <n>
 *   singleton ok
 * or "FAIL <what>: <status>" (exit 1). */
#include <stdio.h>
#include <string.h>

#include <pmix.h>

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    pmix_proc_t me, wild;
    /* OpenPMIx 4.2.2 says PMIX_ERR_UNREACH when it found no server and runs
     * as a singleton anyway (Open MPI takes it so) */
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS && rc != PMIX_ERR_UNREACH) {
        printf("FAIL PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("init %s\n", rc == PMIX_SUCCESS ? "connected" : "unreachable");
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    uint32_t size = 0;
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_UINT32) {
        printf("FAIL job size: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    printf("singleton %s:%u size %u\n", me.nspace, me.rank, size);
    pmix_value_t put = {.type = PMIX_STRING, .data.string = "alone"};
    int fails = 0;
    if ((rc = PMIx_Put(PMIX_GLOBAL, "interop.single", &put)) != PMIX_SUCCESS ||
        (rc = PMIx_Commit()) != PMIX_SUCCESS ||
        (rc = PMIx_Fence(&wild, 1, NULL, 0)) != PMIX_SUCCESS) {
        printf("FAIL put/commit/fence: %s\n", PMIx_Error_string(rc));
        fails++;
    }
    v = NULL;
    rc = PMIx_Get(&me, "interop.single", NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_STRING ||
        strcmp(v->data.string, "alone") != 0) {
        printf("FAIL get of its own key: %s\n", PMIx_Error_string(rc));
        fails++;
    }
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS) {
        printf("FAIL PMIx_Finalize: %s\n", PMIx_Error_string(rc));
        fails++;
    }
    if (fails == 0)
        printf("singleton ok\n");
    return fails == 0 ? 0 : 1;
}
