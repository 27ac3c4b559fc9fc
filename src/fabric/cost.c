/* Cost matrix API: allocation, algorithm choice and the worker threads
 * (kernels in cost_bfs.c, conventions in cost.h). */
#include "fabric/cost.h"
#include "fabric/cost_impl.h"
#include "fabric/huge_map.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint16_t *matrix_map(size_t bytes, void **base, size_t *len)
{
    *base = sy_huge_map(bytes, len);
    return *base;
}

void sy_cost_free(sy_cost_t *c)
{
    if (c == NULL) {
        return;
    }
    if (c->map_base != NULL) {
        munmap(c->map_base, c->map_len);
    }
    memset(c, 0, sizeof(*c));
}

typedef struct {
    const sy_cost_ctx_t *ctx;
    bool leaf;
    uint64_t total;
    atomic_uint_fast64_t next;
    atomic_uint_fast64_t done;
    atomic_int status;
    const sy_cost_opts_t *opts;
    uint64_t report_step;
    uint64_t next_report;
} sy_cost_run_t;

static void run_items(sy_cost_run_t *r, bool reporter)
{
    sy_cost_scratch_t s;
    if (sy_cost_scratch_init(r->ctx, r->leaf, &s) != PMIX_SUCCESS) {
        int expected = PMIX_SUCCESS;
        atomic_compare_exchange_strong(&r->status, &expected, PMIX_ERR_NOMEM);
        atomic_store(&r->next, r->total); /* stop the others early */
        return;
    }
    for (;;) {
        uint64_t k = atomic_fetch_add(&r->next, 1);
        if (k >= r->total) {
            break;
        }
        if (r->leaf) {
            sy_cost_leaf_batch(r->ctx, &s, (uint32_t)k);
        } else {
            sy_cost_source_row(r->ctx, &s, (uint32_t)k);
        }
        uint64_t done = atomic_fetch_add(&r->done, 1) + 1;
        if (reporter && r->opts->progress != NULL && done >= r->next_report && done < r->total) {
            r->opts->progress(done, r->total, r->opts->progress_arg);
            r->next_report = done + r->report_step;
        }
    }
    sy_cost_scratch_free(&s);
}

static void *worker(void *arg)
{
    run_items(arg, false);
    return NULL;
}

static unsigned pick_threads(const sy_cost_opts_t *o, uint64_t items)
{
    unsigned n = o->nthreads;
    if (n == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        n = cpus < 1 ? 1
                     : (cpus > (long)SY_COST_DEFAULT_THREADS_CAP ? SY_COST_DEFAULT_THREADS_CAP
                                                                 : (unsigned)cpus);
    }
    if (n > SY_COST_MAX_THREADS) {
        n = SY_COST_MAX_THREADS;
    }
    if (n > items) {
        n = items ? (unsigned)items : 1;
    }
    return n;
}

/* The caller's thread is worker 0 (and the only one reporting progress);
 * a thread that cannot be started just leaves its share to the others. */
static pmix_status_t run_parallel(sy_cost_run_t *r, unsigned nthreads)
{
    pthread_t tid[SY_COST_MAX_THREADS];
    unsigned started = 0;
    r->report_step = (r->total + 99) / 100 ? (r->total + 99) / 100 : 1;
    r->next_report = r->report_step;
    for (unsigned i = 1; i < nthreads; i++) {
        if (pthread_create(&tid[started], NULL, worker, r) == 0) {
            started++;
        }
    }
    run_items(r, true);
    for (unsigned i = 0; i < started; i++) {
        pthread_join(tid[i], NULL);
    }
    pmix_status_t rc = atomic_load(&r->status);
    if (rc == PMIX_SUCCESS && atomic_load(&r->done) < r->total) {
        rc = PMIX_ERR_NOMEM; /* every thread failed its scratch */
    }
    if (rc == PMIX_SUCCESS && r->opts->progress != NULL) {
        r->opts->progress(r->total, r->total, r->opts->progress_arg);
    }
    return rc;
}

pmix_status_t sy_cost_compute(const sy_topo_t *t, const sy_devindex_t *ix,
                              const sy_cost_opts_t *opts, sy_cost_t *out)
{
    static const sy_cost_opts_t defaults = {0};
    sy_devindex_t own = {0};
    sy_cost_ctx_t ctx;
    pmix_status_t rc;

    if (out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    if (t == NULL || (t->nv > 0 && t->v == NULL) || (t->ne > 0 && t->e == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (opts == NULL) {
        opts = &defaults;
    }
    if ((opts->metric != SY_COST_HOPS && opts->metric != SY_COST_SPEED) ||
        opts->algo > SY_COST_ALGO_SOURCE) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (ix == NULL) {
        if ((rc = sy_devindex_build(t, &own)) != PMIX_SUCCESS) {
            return rc;
        }
        ix = &own;
    } else if (ix->ndev > t->nv || ix->vertex_to_dev == NULL ||
               (ix->ndev > 0 && ix->dev_to_vertex == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }

    uint64_t cap = opts->max_bytes ? opts->max_bytes : SY_COST_DEFAULT_MAX_BYTES;
    uint64_t n = ix->ndev;
    /* n <= SY_TOPO_MAX_VERTICES, so n*n*2 cannot overflow 64 bits */
    uint64_t bytes = n * n * sizeof(uint16_t);
    if (bytes > cap || bytes > SIZE_MAX / 2) {
        sy_devindex_free(&own);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }

    memset(&ctx, 0, sizeof(ctx));
    ctx.t = t;
    ctx.ix = ix;
    ctx.metric = opts->metric;
    ctx.ndev = ix->ndev;

    bool leaf = false;
    if (opts->algo != SY_COST_ALGO_SOURCE) {
        if ((rc = sy_cost_build_leaf(&ctx, &leaf)) != PMIX_SUCCESS) {
            goto done;
        }
        if (!leaf && opts->algo == SY_COST_ALGO_LEAF) {
            rc = PMIX_ERR_NOT_SUPPORTED;
            goto done;
        }
    }
    if (!leaf && (rc = sy_cost_build_full(&ctx)) != PMIX_SUCCESS) {
        goto done;
    }

    out->n = ix->ndev;
    out->bytes = (size_t)bytes;
    out->metric = opts->metric;
    out->algo = leaf ? SY_COST_ALGO_LEAF : SY_COST_ALGO_SOURCE;
    out->torus_closed_form = leaf && ctx.lat_nd > 0;
    out->generation = t->generation;
    if (bytes > 0) {
        out->m = matrix_map((size_t)bytes, &out->map_base, &out->map_len);
        if (out->m == NULL) {
            rc = PMIX_ERR_NOMEM;
            goto done;
        }
        ctx.m = out->m;
        sy_cost_run_t run;
        memset(&run, 0, sizeof(run));
        run.ctx = &ctx;
        run.leaf = leaf;
        run.total = leaf ? sy_cost_nbatches(&ctx) : ix->ndev;
        run.opts = opts;
        atomic_init(&run.next, 0);
        atomic_init(&run.done, 0);
        atomic_init(&run.status, PMIX_SUCCESS);
        rc = run_parallel(&run, pick_threads(opts, run.total));
    } else {
        rc = PMIX_SUCCESS;
        if (opts->progress != NULL) {
            opts->progress(0, 0, opts->progress_arg);
        }
    }

done:
    sy_cost_ctx_free(&ctx);
    sy_devindex_free(&own);
    if (rc != PMIX_SUCCESS) {
        sy_cost_free(out);
    }
    return rc;
}
