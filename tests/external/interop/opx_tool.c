/* An OpenPMIx tool (built against Debian's libpmix, rpath-pinned) attaching
 * to a running switchyard-run (tests/external/interop.sh): PMIx_tool_init
 * with PMIX_SERVER_PIDINFO (argv[1] "pid" argv[2]) or with no attributes
 * (argv[1] "none": the rendezvous files of the tmpdir), or by pid claiming
 * an identity (argv[1] "claim" argv[2] argv[3]: PMIX_TOOL_NSPACE, rank 0),
 * or unconnected then PMIx_tool_attach_to_server (argv[1] "attach" argv[2]:
 * prints "attached to <server>"), then
 * PMIx_Query_info_nb for the namespaces and each one's process table,
 * PMIx_tool_finalize.  Prints one line per finding for the script to check:
 *   tool id <nspace>:<rank>
 *   namespaces <comma-separated list>
 *   proc <nspace> <rank> <hostname> <pid> <state>
 *   tool finalized
 * and "FAIL <what>: <status>" on any failure (exit 1).  argv[1] "listen"
 * argv[2] registers for an event code and waits for it ("listening", then
 * "event <code> from <source>"); "notify" argv[2] sends it, range GLOBAL
 * ("notified"): two tools, the server between them. */
#include <pthread.h>
#include <stdbool.h>
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

/* ---- events between two tools ---- */

#define EVENT_CODE (PMIX_EXTERNAL_ERR_BASE - 42)

static wait_t heard;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    printf("event %d from %s:%u\n", status, source != NULL ? source->nspace : "-",
           source != NULL ? source->rank : 0);
    pthread_mutex_lock(&heard.m);
    heard.done = 1;
    pthread_cond_signal(&heard.c);
    pthread_mutex_unlock(&heard.m);
    if (cbfunc != NULL)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void registered(pmix_status_t status, size_t ref, void *cbdata)
{
    (void)ref;
    wait_t *w = cbdata;
    pthread_mutex_lock(&w->m);
    w->status = status;
    w->done = 1;
    pthread_cond_signal(&w->c);
    pthread_mutex_unlock(&w->m);
}

static void wait_for(wait_t *w)
{
    pthread_mutex_lock(&w->m);
    while (!w->done)
        pthread_cond_wait(&w->c, &w->m);
    pthread_mutex_unlock(&w->m);
}

/* listen: register for EVENT_CODE, say so, wait for it.  notify: send
 * it to everyone. */
static int events(const char *mode)
{
    pmix_status_t rc;
    if (strcmp(mode, "listen") == 0) {
        wait_t reg;
        memset(&reg, 0, sizeof(reg));
        memset(&heard, 0, sizeof(heard));
        pthread_mutex_init(&reg.m, NULL);
        pthread_cond_init(&reg.c, NULL);
        pthread_mutex_init(&heard.m, NULL);
        pthread_cond_init(&heard.c, NULL);
        pmix_status_t code = EVENT_CODE;
        rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, registered, &reg);
        if (rc == PMIX_SUCCESS)
            wait_for(&reg);
        if (rc != PMIX_SUCCESS || reg.status != PMIX_SUCCESS) {
            printf("FAIL event registration: %s\n",
                   PMIx_Error_string(rc != PMIX_SUCCESS ? rc : reg.status));
            return 1;
        }
        printf("listening\n");
        wait_for(&heard);
        return 0;
    }
    rc = PMIx_Notify_event(EVENT_CODE, NULL, PMIX_RANGE_GLOBAL, NULL, 0, NULL, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        printf("FAIL notify: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("notified\n");
    return 0;
}

int main(int argc, char **argv)
{
    pmix_info_t info[3];
    size_t ninfo = 0;
    const char *mode = argc >= 2 ? argv[1] : "";
    bool attach = strcmp(mode, "attach") == 0;
    bool evmode = strcmp(mode, "listen") == 0 || strcmp(mode, "notify") == 0;
    if (argc >= 3 && (strcmp(mode, "pid") == 0 || strcmp(mode, "claim") == 0 || attach || evmode)) {
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
    pmix_status_t rc;
    if (attach) {
        /* init unconnected, then PMIx_tool_attach_to_server */
        pmix_info_t alone;
        PMIX_INFO_LOAD(&alone, PMIX_TOOL_DO_NOT_CONNECT, NULL, PMIX_BOOL);
        rc = PMIx_tool_init(&me, &alone, 1);
        pmix_proc_t server;
        /* the server it attaches to is the one its requests go to */
        PMIX_INFO_LOAD(&info[ninfo], PMIX_PRIMARY_SERVER, NULL, PMIX_BOOL);
        ninfo++;
        if (rc == PMIX_SUCCESS)
            rc = PMIx_tool_attach_to_server(&me, &server, info, ninfo);
        if (rc != PMIX_SUCCESS) {
            printf("FAIL PMIx_tool_attach_to_server: %s\n", PMIx_Error_string(rc));
            return 1;
        }
        printf("attached to %s:%u\n", server.nspace, server.rank);
    } else {
        rc = PMIx_tool_init(&me, ninfo > 0 ? info : NULL, ninfo);
    }
    if (rc != PMIX_SUCCESS) {
        printf("FAIL PMIx_tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("tool id %s:%u\n", me.nspace, me.rank);
    int fails = 0;
    if (evmode) {
        fails += events(mode);
        rc = PMIx_tool_finalize();
        printf(rc == PMIX_SUCCESS ? "tool finalized\n" : "FAIL PMIx_tool_finalize\n");
        return fails == 0 && rc == PMIX_SUCCESS ? 0 : 1;
    }
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
