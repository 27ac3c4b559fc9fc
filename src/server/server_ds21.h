/* The ds21 shared-memory store offered to OpenPMIx 4.2.x clients
 * (server_ds21.c; the files: server_ds21_store.h).  Loop only. */
#ifndef SWITCHYARD_SERVER_DS21_H
#define SWITCHYARD_SERVER_DS21_H
#include <stdbool.h>
#include <stddef.h>

#include <pmix_common.h>

#include "server/server_internal.h"
#include "server/server_modex.h"

/* A namespace was registered (or again): its store is made, and its
 * clients' setup_fork environment names it, unless SWITCHYARD_OPX_DS21=0
 * in the server's environment or it cannot be made (then clients use
 * hash, as before).  Its job data is written when its first ds21 client
 * connects, and again when the job data changes. */
void sy_srv_ds21_nspace_registered(sy_srv_t *s, sy_srv_nspace_t *ns);
void sy_srv_ds21_job_changed(sy_srv_nspace_t *ns);
bool sy_srv_ds21_offered(const sy_srv_nspace_t *ns);
/* A client that chose ds21 is connecting. */
void sy_srv_ds21_client_ready(sy_srv_nspace_t *ns);
/* What a ds21 client committed (its LOCAL and GLOBAL keys). */
void sy_srv_ds21_commit(const sy_srv_posted_t *p);
/* A fence of procs ends: what its ds21 clients read of the others (the
 * committed data of local non-ds21 clients and the records of other
 * nodes' blob `remote`, which is not consumed), before the replies. */
void sy_srv_ds21_fence(sy_srv_t *s, const pmix_proc_t *procs, size_t nprocs,
                       const pmix_data_buffer_t *remote);
/* The namespace goes: its files with it. */
void sy_srv_ds21_free(sy_srv_nspace_t *ns);
#endif
