/* PMIx_Publish / PMIx_Lookup / PMIx_Unpublish under Slurm, whose host
 * module answers all three PMIX_ERR_NOT_SUPPORTED: prints what each call
 * returned ("pubsub rank R publish <status> lookup <status> unpublish
 * <status>"); the script compares them with Slurm's answer. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <pmix.h>

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("pubsub: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    char key[64];
    snprintf(key, sizeof key, "sy.pub.%u", me.rank);
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, key, "published", PMIX_STRING);
    pmix_status_t prc = PMIx_Publish(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key);
    pmix_info_t wait;
    bool no = false;
    PMIX_INFO_LOAD(&wait, PMIX_WAIT, &no, PMIX_BOOL);
    pmix_status_t lrc = PMIx_Lookup(&pd, 1, &wait, 1);
    PMIX_INFO_DESTRUCT(&wait);
    PMIX_PDATA_DESTRUCT(&pd);
    char *keys[] = {key, NULL};
    pmix_status_t urc = PMIx_Unpublish(keys, NULL, 0);
    printf("pubsub rank %u publish %s lookup %s unpublish %s\n", me.rank, PMIx_Error_string(prc),
           PMIx_Error_string(lrc), PMIx_Error_string(urc));
    rc = PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : 1;
}
