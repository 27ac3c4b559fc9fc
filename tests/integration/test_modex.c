/* Run under switchyard-run: data exchange between real processes.
 *   test_modex exchange   (3 ranks) scopes, reserved/conflicting Puts,
 *                         Puts of values whose pointers contradict their
 *                         type or size (NULL string, {NULL, 1000}, ...),
 *                         Commit + collecting Fence, Get of every peer's
 *                         keys with their types, direct modex held until a
 *                         peer commits, PMIX_RANK_UNDEF, OPTIONAL misses,
 *                         PMIX_TIMEOUT on a peer that has not committed.
 *   test_modex connect    (3 ranks) PMIx_Connect, peers' data, PMIx_Disconnect.
 *   test_modex fence-kill (3 ranks) rank 2 dies in the middle of a fence:
 *                         the others' fence ends at once with
 *                         PMIX_ERR_PARTIAL_SUCCESS, no hang.
 *   test_modex fence-finalize (3 ranks) rank 2 joins a fence and finalizes
 *                         before the others arrive: their fence completes
 *                         without it (PMIX_ERR_PARTIAL_SUCCESS), with its
 *                         data.
 *   test_modex fence-many (3 ranks) 300 rounds of Put, Commit, collecting
 *                         Fence (some over two ranks only) and a peer's
 *                         fresh value: every value is the latest, and the
 *                         segments a newer one covers are gone from the
 *                         server's tmpdir and from this process's mappings. */
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

static int failures;
static pmix_proc_t me;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(test_modex rank %u): ", me.rank);                                    \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

static void put_str(pmix_scope_t scope, const char *key, const char *v)
{
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, v, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(scope, key, &val);
    if (rc != PMIX_SUCCESS)
        FAIL("Put(%s): %s", key, PMIx_Error_string(rc));
    PMIX_VALUE_DESTRUCT(&val);
}

static void expect_str(pmix_rank_t r, const char *key, const char *want)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, r);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_STRING || strcmp(v->data.string, want) != 0)
        FAIL("Get(%u, %s): %s", r, key, PMIx_Error_string(rc));
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
}

/* Put of a value whose pointers contradict its type or size: refused
 * with PMIX_ERR_BAD_PARAM, and nothing of it stored or sent. */
static void put_refused(const char *what, pmix_value_t *val)
{
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, "sy.badptr", val);
    if (rc != PMIX_ERR_BAD_PARAM)
        FAIL("Put of %s returned %s", what, PMIx_Error_string(rc));
}

static void bad_pointer_puts(void)
{
    pmix_value_t v;
    pmix_byte_object_t bo = {NULL, 1000};
    memset(&v, 0, sizeof(v));
    v.type = PMIX_STRING;
    put_refused("a NULL string", &v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo = bo;
    put_refused("a byte object {NULL, 1000}", &v);
    v.type = PMIX_COMPRESSED_STRING;
    put_refused("a compressed string {NULL, 1000}", &v);
    memset(&v, 0, sizeof(v));
    v.type = PMIX_PROC;
    put_refused("a NULL PMIX_PROC", &v);
    v.type = PMIX_DATA_ARRAY;
    put_refused("a NULL data array", &v);
    pmix_data_array_t da = {PMIX_UINT32, 5, NULL};
    v.data.darray = &da;
    put_refused("a data array of 5 at NULL", &v);
    char *strs[2] = {"a", NULL};
    da = (pmix_data_array_t){PMIX_STRING, 2, strs};
    put_refused("a string array with a NULL string", &v);
    pmix_info_t inner[1];
    memset(inner, 0, sizeof(inner));
    PMIX_LOAD_KEY(inner[0].key, "sy.inner");
    inner[0].value.type = PMIX_BYTE_OBJECT;
    inner[0].value.data.bo = bo;
    da = (pmix_data_array_t){PMIX_INFO, 1, inner};
    put_refused("an info array holding a byte object {NULL, 1000}", &v);
    memset(&v, 0, sizeof(v));
    v.type = PMIX_ENVAR;
    put_refused("an envar without a name", &v);
    pmix_coord_t coord = {PMIX_COORD_LOGICAL_VIEW, NULL, 3};
    v.type = PMIX_COORD;
    v.data.coord = &coord;
    put_refused("a coordinate of 3 at NULL", &v);
    /* what is empty is fine */
    memset(&v, 0, sizeof(v));
    v.type = PMIX_BYTE_OBJECT;
    if (PMIx_Put(PMIX_GLOBAL, "sy.emptybo", &v) != PMIX_SUCCESS)
        FAIL("Put of an empty byte object {NULL, 0} was refused");
    da = (pmix_data_array_t){PMIX_UINT32, 0, NULL};
    v.type = PMIX_DATA_ARRAY;
    v.data.darray = &da;
    if (PMIx_Put(PMIX_GLOBAL, "sy.emptyda", &v) != PMIX_SUCCESS)
        FAIL("Put of an empty data array was refused");
    /* none of the refused values was kept */
    pmix_info_t o;
    bool yes = true;
    PMIX_INFO_LOAD(&o, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_value_t *got = NULL;
    pmix_status_t rc = PMIx_Get(&me, "sy.badptr", &o, 1, &got);
    if (rc != PMIX_ERR_NOT_FOUND)
        FAIL("a refused Put left a value: Get returned %s", PMIx_Error_string(rc));
    if (got != NULL)
        PMIX_VALUE_RELEASE(got);
    PMIX_INFO_DESTRUCT(&o);
}

static int exchange(void)
{
    char buf[64];
    pmix_value_t val;
    bad_pointer_puts();
    /* bad Puts */
    PMIX_VALUE_LOAD(&val, "x", PMIX_STRING);
    if (PMIx_Put(PMIX_GLOBAL, "pmix.mine", &val) != PMIX_ERR_BAD_PARAM)
        FAIL("a reserved key was accepted");
    if (PMIx_Put(PMIX_GLOBAL, PMIX_JOB_SIZE, &val) != PMIX_ERR_BAD_PARAM)
        FAIL("PMIX_JOB_SIZE was accepted from a client");
    PMIX_VALUE_DESTRUCT(&val);
    /* Open MPI posts its hostname: taken, but the host's value stays */
    pmix_value_t *host = NULL;
    if (PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &host) != PMIX_SUCCESS)
        FAIL("Get(own PMIX_HOSTNAME)");
    PMIX_VALUE_LOAD(&val, "not-my-host", PMIX_STRING);
    if (PMIx_Put(PMIX_GLOBAL, PMIX_HOSTNAME, &val) != PMIX_SUCCESS)
        FAIL("Put(PMIX_HOSTNAME) was refused");
    PMIX_VALUE_DESTRUCT(&val);
    expect_str(me.rank, PMIX_HOSTNAME, host->data.string);
    PMIX_VALUE_RELEASE(host);
    PMIX_VALUE_LOAD(&val, "x", PMIX_STRING);
    if (PMIx_Put(PMIX_SCOPE_UNDEF, "sy.undef", &val) != PMIX_ERR_NOT_SUPPORTED)
        FAIL("PMIX_SCOPE_UNDEF was accepted");
    PMIX_VALUE_DESTRUCT(&val);
    snprintf(buf, sizeof buf, "global-%u", me.rank);
    put_str(PMIX_GLOBAL, "sy.global", buf);
    snprintf(buf, sizeof buf, "local-%u", me.rank);
    put_str(PMIX_LOCAL, "sy.local", buf);
    put_str(PMIX_REMOTE, "sy.remote", "far");
    put_str(PMIX_INTERNAL, "sy.internal", "mine");
    PMIX_VALUE_LOAD(&val, "again", PMIX_STRING);
    if (PMIx_Put(PMIX_LOCAL, "sy.global", &val) == PMIX_SUCCESS)
        FAIL("a key posted in two scopes was accepted");
    PMIX_VALUE_DESTRUCT(&val);
    uint64_t big = 0x0102030405060708ull + me.rank;
    PMIX_VALUE_LOAD(&val, &big, PMIX_UINT64);
    if (PMIx_Put(PMIX_GLOBAL, "sy.u64", &val) != PMIX_SUCCESS)
        FAIL("Put(u64)");
    PMIX_VALUE_DESTRUCT(&val);
    if (me.rank == 1)
        put_str(PMIX_GLOBAL, "sy.unique", "only-rank-1");
    pmix_status_t rc;
    if (me.rank != 2 && (rc = PMIx_Commit()) != PMIX_SUCCESS)
        FAIL("Commit: %s", PMIx_Error_string(rc));
    expect_str(me.rank, "sy.internal", "mine");

    if (me.rank == 0) {
        /* rank 2 has not committed: a held request that times out */
        pmix_proc_t p2;
        PMIX_LOAD_PROCID(&p2, me.nspace, 2);
        pmix_info_t t;
        int secs = 1;
        PMIX_INFO_LOAD(&t, PMIX_TIMEOUT, &secs, PMIX_INT);
        pmix_value_t *v = NULL;
        rc = PMIx_Get(&p2, "sy.global", &t, 1, &v);
        if (rc != PMIX_ERR_TIMEOUT)
            FAIL("Get of an uncommitted peer with a timeout returned %s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&t);
        /* optional: what is here, now */
        pmix_info_t o;
        bool yes = true;
        PMIX_INFO_LOAD(&o, PMIX_OPTIONAL, &yes, PMIX_BOOL);
        rc = PMIx_Get(&p2, "sy.global", &o, 1, &v);
        if (rc != PMIX_ERR_NOT_FOUND)
            FAIL("optional Get returned %s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&o);
        /* direct modex of rank 1, committed: no fence needed */
        expect_str(1, "sy.global", "global-1");
        /* a globally unique key, owner unknown */
        pmix_proc_t any;
        PMIX_LOAD_PROCID(&any, me.nspace, PMIX_RANK_UNDEF);
        rc = PMIx_Get(&any, "sy.unique", NULL, 0, &v);
        if (rc != PMIX_SUCCESS || v->type != PMIX_STRING || strcmp(v->data.string, "only-rank-1"))
            FAIL("Get(RANK_UNDEF): %s", PMIx_Error_string(rc));
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
    }
    if (me.rank == 2) {
        sleep(2); /* rank 0's timed request expires meanwhile */
        if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
            FAIL("Commit: %s", PMIx_Error_string(rc));
    }
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if ((rc = PMIx_Fence(NULL, 0, &collect, 1)) != PMIX_SUCCESS)
        FAIL("Fence: %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&collect);
    for (pmix_rank_t r = 0; r < 3; r++) {
        snprintf(buf, sizeof buf, "global-%u", r);
        expect_str(r, "sy.global", buf);
        snprintf(buf, sizeof buf, "local-%u", r);
        expect_str(r, "sy.local", buf);
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        pmix_value_t *v = NULL;
        rc = PMIx_Get(&p, "sy.u64", NULL, 0, &v);
        if (rc != PMIX_SUCCESS || v->type != PMIX_UINT64 ||
            v->data.uint64 != 0x0102030405060708ull + r)
            FAIL("Get(%u, sy.u64): %s", r, PMIx_Error_string(rc));
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
        if (r != me.rank) {
            pmix_info_t o;
            PMIX_INFO_LOAD(&o, PMIX_OPTIONAL, &yes, PMIX_BOOL);
            rc = PMIx_Get(&p, "sy.remote", &o, 1, &v);
            if (rc == PMIX_SUCCESS)
                FAIL("a REMOTE-scope value was visible to a local peer");
            rc = PMIx_Get(&p, "sy.internal", &o, 1, &v);
            if (rc == PMIX_SUCCESS)
                FAIL("an INTERNAL value was visible to a peer");
            PMIX_INFO_DESTRUCT(&o);
        }
    }
    return 0;
}

/* PMIx_Connect among the job's ranks, then their posted data, then
 * PMIx_Disconnect. */
static int connect_mode(void)
{
    char buf[32];
    snprintf(buf, sizeof buf, "conn-%u", me.rank);
    put_str(PMIX_GLOBAL, "sy.conn", buf);
    pmix_status_t rc = PMIx_Commit();
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Connect(&all, 1, NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("Connect: %s", PMIx_Error_string(rc));
    for (pmix_rank_t r = 0; r < 3; r++) {
        snprintf(buf, sizeof buf, "conn-%u", r);
        expect_str(r, "sy.conn", buf);
    }
    if (PMIx_Connect(NULL, 0, NULL, 0) != PMIX_ERR_BAD_PARAM)
        FAIL("Connect without processes was accepted");
    if ((rc = PMIx_Disconnect(&all, 1, NULL, 0)) != PMIX_SUCCESS)
        FAIL("Disconnect: %s", PMIx_Error_string(rc));
    return 0;
}

static int fence_kill(void)
{
    /* the launcher stops the job when rank 2 dies: survive its SIGTERM long
     * enough to see our fence fail (it sends SIGKILL 2 s later) */
    signal(SIGTERM, SIG_IGN);
    put_str(PMIX_GLOBAL, "sy.k", "v");
    PMIx_Commit();
    if (me.rank == 2) {
        usleep(300000);
        raise(SIGKILL);
    }
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_ERR_PARTIAL_SUCCESS)
        FAIL("a fence with a dead participant returned %s", PMIx_Error_string(rc));
    else
        printf("rank %u: fence ended without the dead rank: %s\n", me.rank, PMIx_Error_string(rc));
    return 0;
}

static void ignore_fence(pmix_status_t status, void *cbdata)
{
    (void)status;
    (void)cbdata;
}

static int fence_finalize(void)
{
    char buf[32];
    snprintf(buf, sizeof buf, "ff-%u", me.rank);
    put_str(PMIX_GLOBAL, "sy.ff", buf);
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        FAIL("Commit: %s", PMIx_Error_string(rc));
    if (me.rank == 2) {
        /* in the fence, then gone (main finalizes) without waiting for it */
        rc = PMIx_Fence_nb(NULL, 0, NULL, 0, ignore_fence, NULL);
        if (rc != PMIX_SUCCESS)
            FAIL("Fence_nb: %s", PMIx_Error_string(rc));
        return 0;
    }
    /* a key rank 2 never posts is held until the server saw it finalize */
    pmix_proc_t p2;
    PMIX_LOAD_PROCID(&p2, me.nspace, 2);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&p2, "sy.never", NULL, 0, &v);
    if (rc != PMIX_ERR_NOT_FOUND)
        FAIL("Get of a key a finalized peer never posted returned %s", PMIx_Error_string(rc));
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    /* done among those who stayed: partial, with everyone's data */
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_ERR_PARTIAL_SUCCESS)
        FAIL("Fence after a member finalized: %s", PMIx_Error_string(rc));
    expect_str(2, "sy.ff", "ff-2");
    return 0;
}

/* Files named modex.* in the server's tmpdir, and such files this process
 * maps (each mapping counted once per file). */
static size_t modex_files(void)
{
    const char *dir = getenv("PMIX_SERVER_TMPDIR");
    DIR *d = dir != NULL ? opendir(dir) : NULL;
    size_t n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, "modex.", 6) == 0;
    if (d != NULL)
        closedir(d);
    return n;
}

static size_t modex_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096], last[4096] = "";
    size_t n = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        char *p = strstr(line, "/modex.");
        if (p == NULL || strcmp(p, last) == 0)
            continue;
        snprintf(last, sizeof last, "%s", p);
        n++;
    }
    if (f != NULL)
        fclose(f);
    return n;
}

static int fence_many(void)
{
    const int rounds = 300;
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_proc_t pair[2];
    PMIX_LOAD_PROCID(&pair[0], me.nspace, 0);
    PMIX_LOAD_PROCID(&pair[1], me.nspace, 1);
    for (int i = 0; i < rounds && failures == 0; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "it-%u-%d", me.rank, i);
        put_str(PMIX_GLOBAL, "sy.iter", buf);
        pmix_status_t rc = PMIx_Commit();
        /* every tenth round ranks 0 and 1 first fence between themselves */
        if (rc == PMIX_SUCCESS && i % 10 == 0 && me.rank < 2)
            rc = PMIx_Fence(pair, 2, &collect, 1);
        if (rc == PMIX_SUCCESS)
            rc = PMIx_Fence(NULL, 0, &collect, 1);
        if (rc != PMIX_SUCCESS) {
            FAIL("round %d: %s", i, PMIx_Error_string(rc));
            break;
        }
        pmix_rank_t peer = (me.rank + 1) % 3;
        snprintf(buf, sizeof buf, "it-%u-%d", peer, i);
        expect_str(peer, "sy.iter", buf);
    }
    PMIX_INFO_DESTRUCT(&collect);
    /* the last fence's segment and a spare, not one per fence */
    size_t files = modex_files(), maps = modex_mappings();
    if (files > 4)
        FAIL("%zu modex files left in the server's tmpdir after %d fences", files, rounds);
    if (maps > 4)
        FAIL("%zu modex segments still mapped after %d fences", maps, rounds);
    PMIx_Fence(NULL, 0, NULL, 0); /* nobody leaves while the others count */
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "exchange";
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (strcmp(mode, "fence-kill") == 0)
        fence_kill();
    else if (strcmp(mode, "fence-finalize") == 0)
        fence_finalize();
    else if (strcmp(mode, "connect") == 0)
        connect_mode();
    else if (strcmp(mode, "fence-many") == 0)
        fence_many();
    else
        exchange();
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("Finalize: %s", PMIx_Error_string(rc));
    if (failures == 0)
        printf("test_modex %s rank %u: ok\n", mode, me.rank);
    return failures == 0 ? 0 : 1;
}
