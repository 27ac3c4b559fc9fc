/* A client that reports the fabric events it gets (fabric.sh), public API
 * only: "updated N" at every PMIX_FABRIC_UPDATED, "endpoints N" at every
 * PMIX_FABRIC_UPDATE_ENDPOINTS, after which it gets its endpoints again
 * (PMIX_FABRIC_ENDPT, as the standard asks of a process told so); ends
 * when the file STOP appears.
 *
 *   fabric_endpts STOP */
#include <stdio.h>
#include <unistd.h>

#include <pmix.h>

static pmix_proc_t me;
static int updated, endpoints;

static void on_event(size_t ref, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)ref;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (status == PMIX_FABRIC_UPDATED) {
        printf("updated %d\n", ++updated);
    } else if (status == PMIX_FABRIC_UPDATE_ENDPOINTS) {
        pmix_value_t *v = NULL;
        pmix_status_t rc = PMIx_Get(&me, PMIX_FABRIC_ENDPT, NULL, 0, &v);
        printf("endpoints %d (PMIX_FABRIC_ENDPT: %s)\n", ++endpoints, PMIx_Error_string(rc));
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
    }
    fflush(stdout);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

int main(int argc, char **argv)
{
    if (argc != 2 || PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        return 2;
    pmix_status_t codes[2] = {PMIX_FABRIC_UPDATED, PMIX_FABRIC_UPDATE_ENDPOINTS};
    PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL);
    pmix_fabric_t f;
    PMIX_FABRIC_CONSTRUCT(&f);
    if (PMIx_Fabric_register(&f, NULL, 0) != PMIX_SUCCESS)
        return 1;
    printf("ready\n");
    fflush(stdout);
    for (int i = 0; i < 1200 && access(argv[1], F_OK) != 0; i++)
        usleep(100000);
    PMIx_Fabric_deregister(&f);
    PMIx_Finalize(NULL, 0);
    return 0;
}
