/* A PMIx client for tests/external/interop.sh, built against whichever
 * library the script links it with (OpenPMIx 4.2.2's or ours): init, job
 * keys, a default event handler, an event from the last rank to the
 * others, publish (rank 0) / lookup (all) /
 * unpublish, put/commit/fence with collect, every peer's key, finalize.
 * argv[1] "abort": rank 0 calls PMIx_Abort(7) after init instead.
 * Prints which libpmix it runs on (from /proc/self/maps) so the script can
 * check it is the one it meant. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define CHECK(what, rc)                                                                            \
    do {                                                                                           \
        if ((rc) != PMIX_SUCCESS) {                                                                \
            fprintf(stderr, "rank %u: %s failed: %s\n", me.rank, (what), PMIx_Error_string(rc));   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    if (cbfunc != NULL)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

#define INTEROP_EVENT (PMIX_EXTERNAL_ERR_BASE - 77)
static volatile int got_event;

static void on_interop_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                             pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                             size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                             void *cbdata)
{
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    if (status == INTEROP_EVENT)
        __atomic_store_n(&got_event, 1, __ATOMIC_SEQ_CST);
    if (cbfunc != NULL)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void print_lib(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        char *p = strstr(line, "libpmix.so");
        if (p != NULL) {
            char *path = strchr(line, '/');
            if (path != NULL) {
                path[strcspn(path, "\n")] = '\0';
                printf("LIB %s\n", path);
                break;
            }
        }
    }
    if (f != NULL)
        fclose(f);
}

int main(int argc, char **argv)
{
    static pmix_proc_t me;
    pmix_proc_t wild, peer;
    pmix_value_t *v = NULL, val;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    CHECK("PMIx_Init", rc);
    if (me.rank == 0)
        print_lib();
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    CHECK("Get PMIX_JOB_SIZE", rc);
    uint32_t size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    rc = PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &v);
    CHECK("Get PMIX_LOCAL_RANK", rc);
    if (v->data.uint16 != me.rank) {
        fprintf(stderr, "rank %u: local rank %u\n", me.rank, v->data.uint16);
        return 1;
    }
    PMIX_VALUE_RELEASE(v);
    rc = PMIx_Get(&wild, PMIX_LOCAL_SIZE, NULL, 0, &v);
    CHECK("Get PMIX_LOCAL_SIZE", rc);
    if (v->data.uint32 != size) {
        fprintf(stderr, "rank %u: local size %u of %u\n", me.rank, v->data.uint32, size);
        return 1;
    }
    PMIX_VALUE_RELEASE(v);
    const char *out = getenv("INTEROP_PACK_OUT");
    if (out != NULL && me.rank == 0) {
        /* this library's own PMIx_Data_pack, for opx_check */
        pmix_data_buffer_t db;
        PMIX_DATA_BUFFER_CONSTRUCT(&db);
        int32_t i32 = -5;
        char *str = "hello";
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, "interop.ns", 3);
        pmix_info_t inf[2];
        uint32_t four = 4;
        PMIX_INFO_LOAD(&inf[0], PMIX_JOB_SIZE, &four, PMIX_UINT32);
        PMIX_INFO_LOAD(&inf[1], "k", "v", PMIX_STRING);
        size_t sz = 300;
        pid_t pid = 1234;
        double d = 1.5;
        pmix_byte_object_t bo = {.bytes = "\x01\x02\x03", .size = 3};
        uint8_t two[2] = {7, 8};
        pmix_data_array_t da = {.type = PMIX_UINT8, .size = 2, .array = two};
        pmix_value_t dv = {.type = PMIX_DATA_ARRAY, .data.darray = &da};
        if (PMIx_Data_pack(NULL, &db, &i32, 1, PMIX_INT32) != PMIX_SUCCESS ||
            PMIx_Data_pack(NULL, &db, &str, 1, PMIX_STRING) != PMIX_SUCCESS ||
            PMIx_Data_pack(NULL, &db, &p, 1, PMIX_PROC) != PMIX_SUCCESS ||
            PMIx_Data_pack(NULL, &db, inf, 2, PMIX_INFO) != PMIX_SUCCESS ||
            PMIx_Data_pack(NULL, &db, &sz, 1, PMIX_SIZE) != PMIX_SUCCESS ||
            PMIx_Data_pack(NULL, &db, &pid, 1, PMIX_PID) != PMIX_SUCCESS ||
            PMIx_Data_pack(NULL, &db, &d, 1, PMIX_DOUBLE) != PMIX_SUCCESS ||
            PMIx_Data_pack(NULL, &db, &bo, 1, PMIX_BYTE_OBJECT) != PMIX_SUCCESS ||
            PMIx_Data_pack(NULL, &db, &dv, 1, PMIX_VALUE) != PMIX_SUCCESS) {
            fprintf(stderr, "rank 0: PMIx_Data_pack failed\n");
            return 1;
        }
        FILE *f = fopen(out, "wb");
        if (f == NULL || fwrite(db.base_ptr, 1, db.bytes_used, f) != db.bytes_used) {
            fprintf(stderr, "rank 0: cannot write %s\n", out);
            return 1;
        }
        fclose(f);
        PMIX_INFO_DESTRUCT(&inf[0]);
        PMIX_INFO_DESTRUCT(&inf[1]);
        PMIX_DATA_BUFFER_DESTRUCT(&db);
    }
    if (argc > 1 && strcmp(argv[1], "abort") == 0) {
        if (me.rank == 0)
            PMIx_Abort(7, "interop abort", NULL, 0);
        PMIx_Fence(NULL, 0, NULL, 0); /* the others wait to be killed */
        return 0;
    }
    /* a default event handler, as Open MPI registers at init */
    rc = PMIx_Register_event_handler(NULL, 0, NULL, 0, on_event, NULL, NULL);
    if (rc < 0) {
        fprintf(stderr, "rank %u: PMIx_Register_event_handler failed: %s\n", me.rank,
                PMIx_Error_string(rc));
        return 1;
    }
    pmix_status_t code = INTEROP_EVENT;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_interop_event, NULL, NULL);
    if (rc < 0) {
        fprintf(stderr, "rank %u: registering for the interop event failed: %s\n", me.rank,
                PMIx_Error_string(rc));
        return 1;
    }
    if (me.rank == 0) {
        /* a query and a log, answered by the server and its host */
        pmix_query_t q;
        pmix_info_t *results = NULL;
        size_t nresults = 0;
        PMIX_QUERY_CONSTRUCT(&q);
        PMIX_ARGV_APPEND(rc, q.keys, PMIX_QUERY_NAMESPACES);
        rc = PMIx_Query_info(&q, 1, &results, &nresults);
        CHECK("PMIx_Query_info(PMIX_QUERY_NAMESPACES)", rc);
        if (nresults < 1 || results[0].value.type != PMIX_STRING ||
            strstr(results[0].value.data.string, me.nspace) == NULL) {
            fprintf(stderr, "rank 0: the namespaces query does not name ours\n");
            return 1;
        }
        PMIX_INFO_FREE(results, nresults);
        PMIX_QUERY_DESTRUCT(&q);
        pmix_info_t line;
        PMIX_INFO_LOAD(&line, PMIX_LOG_STDERR, "interop: logged by rank 0\n", PMIX_STRING);
        rc = PMIx_Log(&line, 1, NULL, 0);
        CHECK("PMIx_Log", rc);
        PMIX_INFO_DESTRUCT(&line);
    }
    pmix_info_t pub;
    if (me.rank == 0) {
        PMIX_INFO_LOAD(&pub, "interop.pub", "published-by-0", PMIX_STRING);
        rc = PMIx_Publish(&pub, 1);
        CHECK("PMIx_Publish", rc);
        PMIX_INFO_DESTRUCT(&pub);
    }
    char key[64], want[64];
    snprintf(want, sizeof(want), "value-of-%u", me.rank);
    PMIX_VALUE_LOAD(&val, want, PMIX_STRING);
    rc = PMIx_Put(PMIX_GLOBAL, "interop.key", &val);
    CHECK("PMIx_Put", rc);
    PMIX_VALUE_DESTRUCT(&val);
    /* every peer runs on this node: its LOCAL key is visible, its REMOTE
     * one is not (the scopes survive whichever library serves them) */
    snprintf(want, sizeof(want), "local-of-%u", me.rank);
    PMIX_VALUE_LOAD(&val, want, PMIX_STRING);
    rc = PMIx_Put(PMIX_LOCAL, "interop.local", &val);
    CHECK("PMIx_Put local", rc);
    PMIX_VALUE_DESTRUCT(&val);
    PMIX_VALUE_LOAD(&val, "remote-only", PMIX_STRING);
    rc = PMIx_Put(PMIX_REMOTE, "interop.remote", &val);
    CHECK("PMIx_Put remote", rc);
    PMIX_VALUE_DESTRUCT(&val);
    rc = PMIx_Commit();
    CHECK("PMIx_Commit", rc);
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(&wild, 1, &info, 1);
    CHECK("PMIx_Fence", rc);
    for (uint32_t r = 0; r < size; r++) {
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        rc = PMIx_Get(&peer, "interop.key", NULL, 0, &v);
        snprintf(key, sizeof(key), "Get interop.key of rank %u", r);
        CHECK(key, rc);
        snprintf(want, sizeof(want), "value-of-%u", r);
        if (v->type != PMIX_STRING || strcmp(v->data.string, want) != 0) {
            fprintf(stderr, "rank %u: rank %u's key is wrong\n", me.rank, r);
            return 1;
        }
        PMIX_VALUE_RELEASE(v);
        if (r == me.rank)
            continue;
        rc = PMIx_Get(&peer, "interop.local", NULL, 0, &v);
        snprintf(key, sizeof(key), "Get interop.local of rank %u", r);
        CHECK(key, rc);
        snprintf(want, sizeof(want), "local-of-%u", r);
        if (v->type != PMIX_STRING || strcmp(v->data.string, want) != 0) {
            fprintf(stderr, "rank %u: rank %u's local key is wrong\n", me.rank, r);
            return 1;
        }
        PMIX_VALUE_RELEASE(v);
        v = NULL;
        rc = PMIx_Get(&peer, "interop.remote", NULL, 0, &v);
        if (rc == PMIX_SUCCESS) {
            fprintf(stderr, "rank %u: rank %u's REMOTE-scoped key was visible on its node\n",
                    me.rank, r);
            return 1;
        }
    }
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, "interop.pub");
    rc = PMIx_Lookup(&pd, 1, NULL, 0);
    CHECK("PMIx_Lookup", rc);
    if (pd.value.type != PMIX_STRING || strcmp(pd.value.data.string, "published-by-0") != 0 ||
        pd.proc.rank != 0) {
        fprintf(stderr, "rank %u: lookup found the wrong datum\n", me.rank);
        return 1;
    }
    PMIX_PDATA_DESTRUCT(&pd);
    /* the last rank tells the others (of either library) */
    if (me.rank == size - 1) {
        rc = PMIx_Notify_event(INTEROP_EVENT, &me, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL);
        CHECK("PMIx_Notify_event", rc);
    } else {
        for (int i = 0; i < 2000 && !__atomic_load_n(&got_event, __ATOMIC_SEQ_CST); i++)
            usleep(10000);
        if (!got_event) {
            fprintf(stderr, "rank %u: the interop event never came\n", me.rank);
            return 1;
        }
    }
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    CHECK("PMIx_Fence (2)", rc);
    if (me.rank == 0) {
        char *keys[] = {"interop.pub", NULL};
        rc = PMIx_Unpublish(keys, NULL, 0);
        CHECK("PMIx_Unpublish", rc);
    }
    rc = PMIx_Finalize(NULL, 0);
    CHECK("PMIx_Finalize", rc);
    printf("rank %u of %u ok\n", me.rank, size);
    return 0;
}
