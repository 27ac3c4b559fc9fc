/* PMIX_SERVER_ENABLE_MONITORING: heartbeat monitoring served by the
 * server library itself (server_monitor.c).  Loop only. */
#ifndef SWITCHYARD_SERVER_MONITOR_H
#define SWITCHYARD_SERVER_MONITOR_H
#include <stdbool.h>

#include <pmix_common.h>

/* A monitor request of `who` (PMIx_Process_monitor): true when the library
 * served it (*status its outcome); false leaves it to the host. */
bool sy_srv_monitor_take(const pmix_proc_t *who, const pmix_info_t *monitor, pmix_status_t error,
                         const pmix_info_t directives[], size_t ndirs, pmix_status_t *status);
/* The process left: its monitors go, with no alert. */
void sy_srv_monitor_proc_gone(const pmix_proc_t *who);
void sy_srv_monitor_finalize(void);
#endif
