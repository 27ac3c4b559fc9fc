/* Switchyard's own attributes: what the PMIx Standard leaves to the
 * implementation (where a scheduler's fabric topology comes from, how a
 * topology change is reported, ...).  Programs that only use the Standard
 * never need this header.  Every key is documented in docs/attributes.md
 * and docs/fabric.md ("Scheduler role"). */
#ifndef SWITCHYARD_H
#define SWITCHYARD_H

/* ---- fabric definitions (PMIx_server_init with PMIX_SERVER_SCHEDULER,
 *      or PMIx_Fabric_register directives in the scheduler) ---- */

/* One fabric: a PMIX_DATA_ARRAY of PMIX_INFO holding SWITCHYARD_FABRIC_TOPOLOGY
 * (+ _FORMAT) or SWITCHYARD_FABRIC_GENERATE, and optionally PMIX_FABRIC_VENDOR,
 * PMIX_FABRIC_IDENTIFIER and SWITCHYARD_FABRIC_WATCH.  May be given several
 * times; the first one is the highest-priority (default) fabric.  The same
 * keys given flat (outside an array) define one fabric too. */
#define SWITCHYARD_FABRIC "sy.fab"               /* pmix_data_array_t of pmix_info_t */
#define SWITCHYARD_FABRIC_TOPOLOGY "sy.fab.topo" /* char*: topology file */
#define SWITCHYARD_FABRIC_FORMAT "sy.fab.fmt"    /* char*: "slurm", "ibnet", "native" */
#define SWITCHYARD_FABRIC_GENERATE "sy.fab.gen"  /* char*: generator spec, "fattree:k=4" */
/* Seconds between checks of the topology file for changes (0: never);
 * default 2. */
#define SWITCHYARD_FABRIC_WATCH "sy.fab.watch" /* double */

/* PMIx_Fabric_register directive: PMIX_FABRIC_COST_MATRIX as a
 * PMIX_BYTE_OBJECT copy (n*n uint16_t, row-major, host byte order) instead
 * of a pointer, so that the info array can be packed and sent (a scheduler
 * host answering a forwarded request). */
#define SWITCHYARD_FABRIC_BY_VALUE "sy.fab.byval" /* bool */

/* PMIx_server_deliver_inventory directives of the scheduler: a topology
 * change.  SWITCHYARD_FABRIC_LINK names a link by its two vertices,
 * separated by one blank ("leaf0 spine1"); SWITCHYARD_FABRIC_LINK_STATE is
 * its new state (PMIX_LINK_UP, PMIX_LINK_DOWN, PMIX_LINK_STATE_UNKNOWN).
 * SWITCHYARD_FABRIC_RELOAD re-reads the topology file now.  Both go to the
 * fabric named by PMIX_FABRIC_INDEX (default: the first). */
#define SWITCHYARD_FABRIC_LINK "sy.fab.link"         /* char* */
#define SWITCHYARD_FABRIC_LINK_STATE "sy.fab.lstate" /* pmix_link_state_t */
#define SWITCHYARD_FABRIC_RELOAD "sy.fab.reload"     /* bool */

/* PMIx_server_collect_inventory result: the node's GPUs and co-processors,
 * a PMIX_DATA_ARRAY of PMIX_INFO, one PMIX_FABRIC_DEVICE-like array each
 * (PMIX_DEVICE_ID first, then PMIX_FABRIC_DEVICE_NAME, _VENDOR, _PCI_DEVID). */
#define SWITCHYARD_INV_GPUS "sy.inv.gpus" /* pmix_data_array_t */

/* ---- limits of the server role (PMIx_server_init) ---- */

/* The largest message (frame body) the server accepts from a client or
 * tool once it has authenticated; a longer one drops that connection with
 * one log line (before authentication the limit is 64 KiB).  Bytes, at
 * least 64 KiB.  Default: SWITCHYARD_MAX_MSG_SIZE_ENV from the environment,
 * else 256 MiB.  What a peer makes the server hold follows what it really
 * sent, not what a frame header claims. */
#define SWITCHYARD_SERVER_MAX_MSG_SIZE "sy.srv.maxmsg" /* size_t (PMIX_SIZE or PMIX_UINT64) */

/* Environment: the same limit for every connection of the process (clients
 * and tools too, for what their server sends): bytes, or with a K, M or G
 * suffix ("64M"). */
#define SWITCHYARD_MAX_MSG_SIZE_ENV "SWITCHYARD_MAX_MSG_SIZE"

/* ---- PMI-1 / PMI-2 wire protocols (docs/pmi.md) ---- */

/* Serve PMI wire clients (MPICH's libmpich): PMIx_server_setup_fork then
 * makes a socketpair for the child and sets PMI_FD (the child's end, an
 * inheritable descriptor of the calling process), PMI_RANK, PMI_SIZE and
 * PMI_JOBID in its environment.  The host closes that descriptor in its
 * own process once the child is forked (or when it does not fork it).
 * Every rank of a PMI job is expected to speak PMI: the job's barrier
 * waits for all of them. */
#define SWITCHYARD_SERVER_PMI "sy.srv.pmi" /* bool */

/* Environment: path of the fabric engine module the scheduler role loads
 * (default: libswitchyard-fabric.so next to libpmix, then in its
 * installed directory). */
#define SWITCHYARD_FABRIC_MODULE_ENV "SWITCHYARD_FABRIC_MODULE"

/* ---- functions of later OpenPMIx releases, beyond 4.2.2's API ----
 * Exported by libpmix.so.2 (an extra export leaves the 4.2.2 ABI whole);
 * declared here, not in <pmix_tool.h>, whose API stays 4.2.2's. */
#include <stdbool.h>

#include <pmix_common.h>

struct pmix_server_module_4_0_0_t;
#ifdef __cplusplus
extern "C" {
#endif
/* Whether the tool has a primary server to talk to. */
PMIX_EXPORT bool PMIx_tool_is_connected(void);
/* The host module of the server this tool runs (PMIX_LAUNCHER): its
 * clients' and tools' requests reach these upcalls from now on.
 * PMIX_ERR_INIT before PMIx_tool_init, PMIX_ERR_NOT_SUPPORTED when the
 * tool runs no server. */
PMIX_EXPORT pmix_status_t PMIx_tool_set_server_module(struct pmix_server_module_4_0_0_t *module);
#ifdef __cplusplus
}
#endif

#endif
