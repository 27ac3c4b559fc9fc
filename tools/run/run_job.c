/* Registering the job with the embedded server: what a PRRTE job gets
 * (session, job, app and per-process data; the server derives the rest:
 * local peers, local/node ranks, node list, ...). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "run.h"

typedef struct {
    pmix_info_t *info;
    size_t n, cap;
} infos_t;

static pmix_info_t *next(infos_t *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        pmix_info_t *g = realloc(l->info, cap * sizeof(*g));
        if (g == NULL)
            return NULL;
        memset(g + l->cap, 0, (cap - l->cap) * sizeof(*g));
        l->info = g;
        l->cap = cap;
    }
    return &l->info[l->n++];
}

#define ADD(l, key, val, type)                                                                     \
    do {                                                                                           \
        pmix_info_t *_i = next(l);                                                                 \
        if (_i == NULL)                                                                            \
            goto nomem;                                                                            \
        PMIX_INFO_LOAD(_i, key, val, type);                                                        \
    } while (0)

/* Move list `sub` into `l` as a PMIX_DATA_ARRAY of infos under `key`. */
static int add_array(infos_t *l, const char *key, infos_t *sub)
{
    pmix_info_t *i = next(l);
    if (i == NULL)
        return -1;
    pmix_data_array_t *da = malloc(sizeof(*da));
    if (da == NULL)
        return -1;
    da->type = PMIX_INFO;
    da->size = sub->n;
    da->array = sub->info;
    PMIX_LOAD_KEY(i->key, key);
    i->value.type = PMIX_DATA_ARRAY;
    i->value.data.darray = da;
    memset(sub, 0, sizeof(*sub));
    return 0;
}

static char *join_argv(char **argv)
{
    size_t len = 1;
    for (size_t i = 0; argv[i] != NULL; i++)
        len += strlen(argv[i]) + 1;
    char *s = calloc(1, len);
    for (size_t i = 0; s != NULL && argv[i] != NULL; i++) {
        if (i > 0)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

int run_maps(const run_job_t *job, char **nodes, char **procs)
{
    *nodes = *procs = NULL;
    size_t len = 16 + (size_t)job->nprocs * 12, used = 0;
    char *ranks = malloc(len);
    if (ranks == NULL) {
        fprintf(stderr, "switchyard-run: out of memory\n");
        return -1;
    }
    ranks[0] = '\0';
    for (unsigned r = 0; r < job->nprocs; r++)
        used += (size_t)snprintf(ranks + used, len - used, "%s%u", r ? "," : "", r);
    int ret = 0;
    if (PMIx_generate_regex(job->hostname, nodes) != PMIX_SUCCESS ||
        PMIx_generate_ppn(ranks, procs) != PMIX_SUCCESS) {
        fprintf(stderr, "switchyard-run: cannot describe the job's maps\n");
        free(*nodes);
        free(*procs);
        *nodes = *procs = NULL;
        ret = -1;
    }
    free(ranks);
    return ret;
}

int run_register(run_job_t *job)
{
    infos_t l = {0}, sub = {0};
    char *nodes = NULL, *procs = NULL, *nsdir = NULL;
    uint32_t size = job->nprocs, one = 1, napps = job->opts->napps, sid = 1;
    if (run_maps(job, &nodes, &procs) != 0)
        return -1;

    ADD(&sub, PMIX_SESSION_ID, &sid, PMIX_UINT32);
    ADD(&sub, PMIX_UNIV_SIZE, &size, PMIX_UINT32);
    if (add_array(&l, PMIX_SESSION_INFO_ARRAY, &sub) != 0)
        goto nomem;
    ADD(&l, PMIX_JOBID, job->nspace, PMIX_STRING);
    ADD(&l, PMIX_JOB_SIZE, &size, PMIX_UINT32);
    ADD(&l, PMIX_MAX_PROCS, &size, PMIX_UINT32);
    ADD(&l, PMIX_UNIV_SIZE, &size, PMIX_UINT32);
    ADD(&l, PMIX_NUM_NODES, &one, PMIX_UINT32);
    ADD(&l, PMIX_JOB_NUM_APPS, &napps, PMIX_UINT32);
    ADD(&l, PMIX_NODE_MAP, nodes, PMIX_STRING);
    ADD(&l, PMIX_PROC_MAP, procs, PMIX_STRING);
    /* session, namespace and process directories, made here, removed with
     * the session directory when the launcher ends */
    if (job->session_dir != NULL && asprintf(&nsdir, "%s/%s", job->session_dir, job->nspace) >= 0 &&
        (mkdir(nsdir, 0700) == 0 || errno == EEXIST)) {
        ADD(&l, PMIX_TMPDIR, job->session_dir, PMIX_STRING);
        ADD(&l, PMIX_NSDIR, nsdir, PMIX_STRING);
    } else {
        free(nsdir);
        nsdir = NULL;
    }
    if (job->spawned) {
        bool yes = true;
        ADD(&l, PMIX_SPAWNED, &yes, PMIX_BOOL);
        ADD(&l, PMIX_PARENT_ID, &job->parent, PMIX_PROC);
    }
    size_t ndbg = 0;
    pmix_info_t *dbg = run_debug_job_info(job, &ndbg);
    for (size_t i = 0; i < ndbg; i++) {
        pmix_info_t *x = next(&l);
        if (x == NULL) {
            PMIX_INFO_FREE(dbg, 4);
            goto nomem;
        }
        PMIx_Info_xfer(x, &dbg[i]);
    }
    if (dbg != NULL)
        PMIX_INFO_FREE(dbg, 4);
    char cwd[4096] = "";
    if (getcwd(cwd, sizeof(cwd)) == NULL)
        cwd[0] = '\0';
    pmix_rank_t first = 0;
    for (unsigned a = 0; a < job->opts->napps; a++) {
        run_app_t *app = &job->opts->apps[a];
        uint32_t appnum = a, asize = app->np;
        char *argv = join_argv(app->argv);
        const char *wdir = app->wdir ? app->wdir : job->opts->wdir ? job->opts->wdir : cwd;
        ADD(&sub, PMIX_APPNUM, &appnum, PMIX_UINT32);
        ADD(&sub, PMIX_APP_SIZE, &asize, PMIX_UINT32);
        ADD(&sub, PMIX_APPLDR, &first, PMIX_PROC_RANK);
        ADD(&sub, PMIX_APP_ARGV, argv, PMIX_STRING);
        ADD(&sub, PMIX_WDIR, wdir, PMIX_STRING);
        if (app->pset != NULL)
            ADD(&sub, PMIX_PSET_NAME, app->pset, PMIX_STRING);
        free(argv);
        if (add_array(&l, PMIX_APP_INFO_ARRAY, &sub) != 0)
            goto nomem;
        first += app->np;
    }
    for (unsigned r = 0; r < job->nprocs; r++) {
        run_proc_t *p = &job->procs[r];
        uint32_t appnum = p->app;
        pmix_rank_t app_rank = p->app_rank;
        ADD(&sub, PMIX_RANK, &p->rank, PMIX_PROC_RANK);
        ADD(&sub, PMIX_APPNUM, &appnum, PMIX_UINT32);
        ADD(&sub, PMIX_APP_RANK, &app_rank, PMIX_PROC_RANK);
        ADD(&sub, PMIX_HOSTNAME, job->hostname, PMIX_STRING);
        if (p->locality != NULL)
            ADD(&sub, PMIX_LOCALITY_STRING, p->locality, PMIX_STRING);
        if (p->cpuset_str != NULL)
            ADD(&sub, PMIX_CPUSET, p->cpuset_str, PMIX_STRING);
        char *pdir = NULL;
        if (nsdir != NULL && asprintf(&pdir, "%s/%u", nsdir, p->rank) >= 0 &&
            (mkdir(pdir, 0700) == 0 || errno == EEXIST))
            ADD(&sub, PMIX_PROCDIR, pdir, PMIX_STRING);
        free(pdir);
        if (add_array(&l, PMIX_PROC_DATA, &sub) != 0)
            goto nomem;
    }
    pmix_status_t rc =
        PMIx_server_register_nspace(job->nspace, (int)job->nprocs, l.info, l.n, NULL, NULL);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "switchyard-run: registering the job failed: %s\n", PMIx_Error_string(rc));
        goto fail;
    }
    for (unsigned r = 0; r < job->nprocs; r++) {
        pmix_proc_t proc;
        PMIX_LOAD_PROCID(&proc, job->nspace, r);
        rc = PMIx_server_register_client(&proc, geteuid(), getegid(), &job->procs[r], NULL, NULL);
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "switchyard-run: registering rank %u failed: %s\n", r,
                    PMIx_Error_string(rc));
            goto fail;
        }
    }
    PMIX_INFO_FREE(l.info, l.n);
    free(nodes);
    free(procs);
    free(nsdir);
    run_debug_job_registered(job);
    return run_psets_define(job);
nomem:
    fprintf(stderr, "switchyard-run: out of memory\n");
fail:
    if (sub.info != NULL)
        PMIX_INFO_FREE(sub.info, sub.n);
    if (l.info != NULL)
        PMIX_INFO_FREE(l.info, l.n);
    free(nodes);
    free(procs);
    free(nsdir);
    return -1;
}

void run_deregister(run_job_t *job)
{
    run_psets_delete(job);
    for (unsigned r = 0; r < job->nprocs; r++) {
        pmix_proc_t proc;
        PMIX_LOAD_PROCID(&proc, job->nspace, r);
        PMIx_server_deregister_client(&proc, NULL, NULL);
    }
    PMIx_server_deregister_nspace(job->nspace, NULL, NULL);
}
