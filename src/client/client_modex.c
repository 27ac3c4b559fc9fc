/* Data exchange on the client side: Put, Commit, Fence and Gets of the
 * data peers posted.  Placeholder until issue 4 lands: a store miss is
 * final. */
#include "client/client_internal.h"

pmix_status_t sy_client_modex_get(const pmix_proc_t *proc, const char *key,
                                  const pmix_info_t info[], size_t ninfo, pmix_value_t **val)
{
    (void)proc;
    (void)key;
    (void)info;
    (void)ninfo;
    (void)val;
    return PMIX_ERR_NOT_FOUND;
}

void sy_client_modex_finalize(void)
{
}
