/*
 * Switchyard -- PMIx tool role (PMIx Standard v5.0, "Tools and Debuggers").
 *
 * A tool (debugger, launcher front end, monitoring utility) is a process
 * that was not started by a PMIx server but connects to one -- or to
 * several, switching between them -- to query, control and exchange
 * standard I/O with the jobs it serves.  Tools also use the general API
 * of <pmix.h>, which this header includes.
 *
 * Prototypes are kept identical to OpenPMIx 4.2.2; tests/abi/prototypes.sh
 * checks this.
 */
#ifndef PMIx_TOOL_API_H
#define PMIx_TOOL_API_H

#include <pmix.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Tool lifecycle ---- */

/* On success *proc holds the identifier the tool was given (or chose,
 * see PMIX_TOOL_NSPACE / PMIX_TOOL_RANK). */
PMIX_EXPORT pmix_status_t PMIx_tool_init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_tool_finalize(void);

/* ---- Managing connections to servers ---- */

/* Connect to one more server (chosen by the info directives).  Either
 * pointer may be NULL; otherwise *myproc receives the tool's identifier
 * and *server that of the server reached.  The new server only becomes
 * the target of requests with PMIX_PRIMARY_SERVER or PMIx_tool_set_server. */
PMIX_EXPORT pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t *myproc, pmix_proc_t *server,
                                                     pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_tool_disconnect(const pmix_proc_t *server);
/* The servers currently connected, primary first, then in order of
 * attachment; *servers is allocated for the caller (PMIX_PROC_FREE). */
PMIX_EXPORT pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[], size_t *nservers);
/* Make server the primary one, the target of subsequent requests. */
PMIX_EXPORT pmix_status_t PMIx_tool_set_server(const pmix_proc_t *server, pmix_info_t info[],
                                               size_t ninfo);
/* PMIx_tool_connect_to_server, the deprecated predecessor of
 * PMIx_tool_attach_to_server, is declared in pmix_common.h. */

/* ---- Standard I/O forwarding ---- */

/* Receives forwarded output: iofhdlr is the registration it matches,
 * payload the bytes that source wrote on channel (possibly several
 * writes, not NUL-terminated).  payload and info belong to the library
 * and are valid only during the call. */
typedef void (*pmix_iof_cbfunc_t)(size_t iofhdlr, pmix_iof_channel_t channel, pmix_proc_t *source,
                                  pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo);

/* Register cbfunc for the given output channels of procs.  The
 * registration number (for PMIx_IOF_deregister) is reported through
 * regcbfunc; on an error return regcbfunc is not called. */
PMIX_EXPORT pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[], size_t nprocs,
                                        const pmix_info_t directives[], size_t ndirs,
                                        pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
                                        pmix_hdlr_reg_cbfunc_t regcbfunc, void *regcbdata);
PMIX_EXPORT pmix_status_t PMIx_IOF_deregister(size_t iofhdlr, const pmix_info_t directives[],
                                              size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata);
/* Send bo to the stdin of targets.  bo must stay valid until cbfunc runs,
 * which means the library no longer needs it, not that it was delivered. */
PMIX_EXPORT pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t ntargets,
                                        pmix_byte_object_t *bo, const pmix_info_t directives[],
                                        size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata);

#ifdef __cplusplus
}
#endif

#endif /* PMIx_TOOL_API_H */
