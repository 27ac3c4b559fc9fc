/* Shared by the files of the fabric engine module only. */
#ifndef SWITCHYARD_SCHED_FABMOD_INT_H
#define SWITCHYARD_SCHED_FABMOD_INT_H

#include "fabric/engine.h"
#include "fabmod/fabmod.h"

struct sy_fabmod_fab {
    sy_fabric_engine_t *eng;
};

/* sy_fabmod_ops_t.job_data (fabmod_job.c). */
pmix_status_t sy_fabmod_job_data(sy_fabmod_fab_t *f, const sy_fabmod_node_t *nodes, size_t nnodes,
                                 pmix_info_t **info, size_t *ninfo);

#endif
