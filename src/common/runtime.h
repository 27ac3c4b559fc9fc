/* The process-wide runtime: one sy_progress_t shared by every role in the
 * process (a server process that also calls PMIx_Get, a tool that is also a
 * client, ...), as the standard's "one progress thread" model wants.
 *
 * Each role init acquires it and each role finalize releases it; the first
 * acquire creates it in the mode its info asks for (PMIX_EXTERNAL_PROGRESS:
 * no thread, PMIx_Progress() drives it; PMIX_EVENT_BASE: the caller's
 * base; otherwise our own thread).  A later acquire asking for another mode
 * gets the existing runtime and PMIX_ERR_NOT_SUPPORTED is NOT returned:
 * roles share it as it is (logged at info).  The last release destroys it,
 * so a process can init again afterwards. */
#ifndef SWITCHYARD_COMMON_RUNTIME_H
#define SWITCHYARD_COMMON_RUNTIME_H
#include <pmix_common.h>
#include "common/progress.h"

pmix_status_t sy_runtime_acquire(const pmix_info_t info[], size_t ninfo, sy_progress_t **out);
void sy_runtime_release(void);
/* The current runtime or NULL.  Only meaningful between acquire/release of
 * the caller's own role. */
sy_progress_t *sy_runtime(void);
#endif
