/* Mapping and binding with hwloc: rank r goes to the r-th core (map-by
 * core) or round-robin over packages (map-by package), and is bound to that
 * core, its package, or nothing.  The cpuset also yields the locality and
 * cpuset strings registered for each process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "run.h"

/* The cores in map order. */
static hwloc_obj_t *map_cores(run_job_t *job, unsigned *ncores)
{
    hwloc_topology_t t = job->topo;
    int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    if (n <= 0) {
        *ncores = 0;
        return NULL;
    }
    hwloc_obj_t *cores = calloc((size_t)n, sizeof(*cores));
    if (cores == NULL)
        return NULL;
    int npk = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
    if (job->opts->map_by == RUN_MAP_PACKAGE && npk > 1) {
        /* round-robin: first core of each package, then the second, ... */
        unsigned k = 0;
        for (int round = 0; k < (unsigned)n; round++) {
            bool any = false;
            for (int p = 0; p < npk; p++) {
                hwloc_obj_t pkg = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, (unsigned)p);
                int in = hwloc_get_nbobjs_inside_cpuset_by_type(t, pkg->cpuset, HWLOC_OBJ_CORE);
                if (round < in) {
                    cores[k++] = hwloc_get_obj_inside_cpuset_by_type(t, pkg->cpuset, HWLOC_OBJ_CORE,
                                                                     (unsigned)round);
                    any = true;
                }
            }
            if (!any)
                break;
        }
        *ncores = k;
    } else {
        for (int c = 0; c < n; c++)
            cores[c] = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, (unsigned)c);
        *ncores = (unsigned)n;
    }
    return cores;
}

int run_place(run_job_t *job)
{
    unsigned ncores = 0;
    hwloc_obj_t *cores = map_cores(job, &ncores);
    run_opts_t *o = job->opts;
    if (ncores == 0) {
        fprintf(stderr, "switchyard-run: hwloc found no cores\n");
        free(cores);
        return -1;
    }
    if (job->nprocs > ncores && !o->oversubscribe) {
        fprintf(stderr,
                "switchyard-run: %u processes but only %u cores: add --oversubscribe to run "
                "more processes than cores\n",
                job->nprocs, ncores);
        free(cores);
        return -1;
    }
    run_bind_t bind = o->bind_to;
    if (job->nprocs > ncores && !o->bind_given)
        bind = RUN_BIND_NONE; /* oversubscribed: binding would only hurt */
    for (unsigned r = 0; r < job->nprocs; r++) {
        run_proc_t *p = &job->procs[r];
        if (bind == RUN_BIND_NONE)
            continue;
        hwloc_obj_t core = cores[r % ncores];
        hwloc_obj_t target = core;
        if (bind == RUN_BIND_PACKAGE) {
            hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(job->topo, HWLOC_OBJ_PACKAGE, core);
            if (pkg != NULL)
                target = pkg;
        }
        p->cpuset = hwloc_bitmap_dup(target->cpuset);
        pmix_cpuset_t cs = {.source = "hwloc", .bitmap = p->cpuset};
        if (PMIx_server_generate_locality_string(&cs, &p->locality) != PMIX_SUCCESS)
            p->locality = NULL;
        if (PMIx_server_generate_cpuset_string(&cs, &p->cpuset_str) != PMIX_SUCCESS)
            p->cpuset_str = NULL;
    }
    free(cores);
    return 0;
}
