/* An OpenPMIx tool (built against Debian's libpmix, rpath-pinned) attaching
 * to a running switchyard-run (tests/external/interop.sh): PMIx_tool_init
 * with PMIX_SERVER_PIDINFO (argv[1] "pid" argv[2]) or with no attributes
 * (argv[1] "none": the rendezvous files of the tmpdir), or by pid claiming
 * an identity (argv[1] "claim" argv[2] argv[3]: PMIX_TOOL_NSPACE, rank 0),
 * then
 * PMIx_Query_info_nb for the namespaces and each one's process table,
 * PMIx_tool_finalize.  Prints one line per finding for the script to check:
 *   tool id <nspace>:<rank>
 *   namespaces <comma-separated list>
 *   proc <nspace> <rank> <hostname> <pid> <state>
 *   tool finalized
 * and "FAIL <what>: <status>" on any failure (exit 1). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_tool.h>

typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    int done;
    pmix_status_t status;
    pmix_info_t *info;
    size_t ninfo;
} wait_t;

static void query_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                       pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    wait_t *w = cbdata;
    pthread_mutex_lock(&w->m);
    w->status = status;
    w->ninfo = ninfo;
    if (ninfo > 0) {
        PMIX_INFO_CREATE(w->info, ninfo);
        for (size_t i = 0; i < ninfo; i++)
            PMIX_INFO_XFER(&w->info[i], &info[i]);
    }
    w->done = 1;
    pthread_cond_signal(&w->c);
    pthread_mutex_unlock(&w->m);
    if (release_fn != NULL)
        release_fn(release_cbdata);
}

/* One query of key (qualified by nspace when given), non-blocking. */
static pmix_status_t query(const char *key, const char *nspace, wait_t *w)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(w->status, q.keys, key);
    if (nspace != NULL) {
        PMIX_INFO_CREATE(q.qualifiers, 1);
        q.nqual = 1;
        PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_NSPACE, nspace, PMIX_STRING);
    }
    memset(w, 0, sizeof(*w));
    pthread_mutex_init(&w->m, NULL);
    pthread_cond_init(&w->c, NULL);
    pmix_status_t rc = PMIx_Query_info_nb(&q, 1, query_done, w);
    if (rc == PMIX_SUCCESS) {
        pthread_mutex_lock(&w->m);
        while (!w->done)
            pthread_cond_wait(&w->c, &w->m);
        pthread_mutex_unlock(&w->m);
        rc = w->status;
    }
    PMIX_QUERY_DESTRUCT(&q);
    return rc;
}

static int proc_table(const char *nspace)
{
    wait_t w;
    pmix_status_t rc = query(PMIX_QUERY_PROC_TABLE, nspace, &w);
    if (rc != PMIX_SUCCESS || w.ninfo < 1 || w.info[0].value.type != PMIX_DATA_ARRAY ||
        w.info[0].value.data.darray->type != PMIX_PROC_INFO) {
        printf("FAIL proc table of %s: %s (%zu infos)\n", nspace, PMIx_Error_string(rc), w.ninfo);
        return 1;
    }
    pmix_data_array_t *da = w.info[0].value.data.darray;
    pmix_proc_info_t *pi = da->array;
    for (size_t i = 0; i < da->size; i++)
        printf("proc %s %u %s %ld %d\n", pi[i].proc.nspace, pi[i].proc.rank,
               pi[i].hostname != NULL ? pi[i].hostname : "-", (long)pi[i].pid, (int)pi[i].state);
    PMIX_INFO_FREE(w.info, w.ninfo);
    return 0;
}

int main(int argc, char **argv)
{
    pmix_info_t info[3];
    size_t ninfo = 0;
    if (argc >= 3 && (strcmp(argv[1], "pid") == 0 || strcmp(argv[1], "claim") == 0)) {
        pid_t pid = (pid_t)strtol(argv[2], NULL, 10);
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
        ninfo = 1;
    } else if (argc < 2 || strcmp(argv[1], "none") != 0) {
        fprintf(stderr, "usage: %s pid <server pid> | none | claim <server pid> <nspace>\n",
                argv[0]);
        return 2;
    }
    if (strcmp(argv[1], "claim") == 0 && argc >= 4) {
        /* an identity of its own choosing: rank 0 of that namespace */
        pmix_rank_t rank = 0;
        PMIX_INFO_LOAD(&info[1], PMIX_TOOL_NSPACE, argv[3], PMIX_STRING);
        PMIX_INFO_LOAD(&info[2], PMIX_TOOL_RANK, &rank, PMIX_PROC_RANK);
        ninfo = 3;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, ninfo > 0 ? info : NULL, ninfo);
    if (rc != PMIX_SUCCESS) {
        printf("FAIL PMIx_tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("tool id %s:%u\n", me.nspace, me.rank);
    int fails = 0;
    wait_t w;
    rc = query(PMIX_QUERY_NAMESPACES, NULL, &w);
    if (rc != PMIX_SUCCESS || w.ninfo < 1 || w.info[0].value.type != PMIX_STRING) {
        printf("FAIL namespaces: %s (%zu infos)\n", PMIx_Error_string(rc), w.ninfo);
        fails++;
    } else {
        printf("namespaces %s\n", w.info[0].value.data.string);
        char *list = strdup(w.info[0].value.data.string), *save = NULL;
        for (char *ns = strtok_r(list, ",", &save); ns != NULL; ns = strtok_r(NULL, ",", &save))
            fails += proc_table(ns);
        free(list);
        PMIX_INFO_FREE(w.info, w.ninfo);
    }
    rc = PMIx_tool_finalize();
    if (rc != PMIX_SUCCESS) {
        printf("FAIL PMIx_tool_finalize: %s\n", PMIx_Error_string(rc));
        fails++;
    } else {
        printf("tool finalized\n");
    }
    return fails == 0 ? 0 : 1;
}
