/* OpenPMIx 4.2.x clients on our listener (server_opx.c). */
#ifndef SWITCHYARD_SERVER_OPX_H
#define SWITCHYARD_SERVER_OPX_H
#include <stdint.h>

#include <pmix_common.h>

#include "server/server_internal.h"

/* The connect message of a connection whose framing turned out to be
 * OpenPMIx's: checked like a HELLO, then sy_srv_peer_connect. */
void sy_srv_opx_hello(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b);
/* The connect reply: status, and the peer's index when accepted. */
void sy_srv_opx_answer_connect(sy_srv_peer_t *peer, pmix_status_t status);
/* An OpenPMIx command that maps to no message of ours (REQ, or one we do
 * not serve: a clear status and one log line). */
void sy_srv_opx_command(sy_srv_peer_t *peer, uint8_t opx_cmd, uint32_t tag, pmix_data_buffer_t *b);
/* COMPUTE_DEVICE_DISTANCES: the distances PMIx_Compute_distances gives
 * for the topology, cpuset and directives the client sent
 * (server_opx_dist.c). */
void sy_srv_opx_distances(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b);
/* Its request after the command, read (fuzz_opx reads it too): the
 * topology and cpuset (NULL: none sent) and the directives. */
typedef struct {
    struct hwloc_topology *topo;
    struct hwloc_bitmap_s *cpus;
    pmix_info_t *info;
    size_t ninfo;
} sy_srv_opx_dist_req_t;
pmix_status_t sy_srv_opx_dist_unpack(pmix_data_buffer_t *b, sy_srv_opx_dist_req_t *req);
void sy_srv_opx_dist_req_free(sy_srv_opx_dist_req_t *req);
/* CONNECT's reply to an OpenPMIx client: the status, then the job data
 * of the other namespaces in procs. */
void sy_srv_opx_connect_reply(sy_srv_peer_t *peer, uint32_t tag, pmix_status_t status,
                              const pmix_proc_t *procs, size_t nprocs);
/* GETNB (PMIX_IMMEDIATE) of a "pmix." key of target from the job data;
 * false (nothing sent) when the job data has no such value. */
bool sy_srv_opx_job_value(sy_srv_peer_t *peer, uint32_t tag, const pmix_proc_t *target,
                          const char *key);
/* GETNB of a key that a fence collected for target: target's record and
 * the next ranks' (a batch) from the modex segments; false (nothing
 * sent) when the segments do not have it. */
bool sy_srv_opx_modex_value(sy_srv_peer_t *peer, uint32_t tag, const pmix_proc_t *target,
                            const char *key);
/* Takes the OpenPMIx client's id for an IOF_PULL registration (the
 * codec's last directive, SY_WIRE_OPX_IOF_ID) out of the directives. */
pmix_status_t sy_srv_opx_take_iof_id(pmix_info_t **dirs, size_t *ndirs, size_t *id);
/* A heartbeat frame (tag 1) of an OpenPMIx client. */
void sy_srv_opx_heartbeat(sy_srv_peer_t *peer);
/* Job data an OpenPMIx client is not given as a lone key (maps, arrays,
 * per-process containers). */
bool sy_srv_opx_skipped_key(const char *key);
#endif
