/* test_host_ops.c: the host upcalls of test_host's modes for groups,
 * process sets, credentials and allocations (host-group, no-group,
 * host-psets, host-cred, host-alloc, no-alloc). */
#ifndef SY_TEST_HOST_OPS_H
#define SY_TEST_HOST_OPS_H
#include <stdbool.h>

#include <pmix_server.h>

#include "job_layout.h"

bool host_ops_mode(const char *mode);
/* Fill in the mode's upcalls; ngood clients will run. */
void host_ops_module(pmix_server_module_t *m, const char *mode, const layout_t *l,
                     const char *nspace, unsigned ngood);
/* After the job is registered, before its clients start. */
void host_ops_before_clients(void);
/* After the clients ended: the number of failures seen. */
int host_ops_check(void);
#endif
