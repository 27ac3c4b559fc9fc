/* Unit test: compiling the register_nspace descriptions real hosts send
 * (ORTE np=2 and MPMD, Slurm, a nested multi-app multi-node job, NODATA),
 * register_resources and a singleton, checking every value the host gave
 * and every derived one as a reader of the published segment gets it. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmix_server.h>

#include "test_jobinfo_util.h"

#define JOB SY_REALM_JOB
#define APP SY_REALM_APP
#define NODE SY_REALM_NODE
#define PROC SY_REALM_PROC
#define SESSION SY_REALM_SESSION

static void expect_ranks(const sy_jobinfo_summary_t *s, const pmix_rank_t *want, size_t n)
{
    assert_int_equal(s->nlocal, n);
    assert_non_null(s->local_ranks);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(s->local_ranks[i], want[i]);
    }
}

/* open-mpi-4.1-dropin.md §6.2: np=2 on host "vm"; maps from our own
 * generators, as ORTE calls them. */
static void orte_np2(ilist_t *l, bool bound)
{
    char *nmap = NULL, *pmap = NULL;
    assert_int_equal(PMIX_SUCCESS, PMIx_generate_regex("vm", &nmap));
    assert_int_equal(PMIX_SUCCESS, PMIx_generate_ppn("0,1", &pmap));
    il_str(l, PMIX_SERVER_NSPACE, "[24910,0]");
    il_u32(l, PMIX_SERVER_RANK, 0);
    il_str(l, PMIX_JOBID, "[24910,1]");
    il_u32(l, PMIX_NPROC_OFFSET, 0);
    il_str(l, PMIX_NODE_MAP, nmap);
    il_str(l, PMIX_PROC_MAP, pmap);
    il_u32(l, PMIX_NODEID, 0);
    il_u32(l, PMIX_NODE_SIZE, 2);
    il_u32(l, PMIX_NUM_NODES, 1);
    il_u32(l, PMIX_UNIV_SIZE, 2);
    il_u32(l, PMIX_MAX_PROCS, 2);
    il_u32(l, PMIX_JOB_SIZE, 2);
    il_u32(l, PMIX_JOB_NUM_APPS, 1);
    il_u32(l, PMIX_LOCAL_SIZE, 2);
    il_str(l, PMIX_TOPOLOGY_SIGNATURE, "1N:1S:1L3:2L2:2L1:2C:2H:x86_64:le");
    il_u64(l, PMIX_AVAIL_PHYS_MEMORY, 4926431232ULL);
    il_str(l, PMIX_MAPBY, "BYCORE:OVERSUBSCRIBE");
    il_str(l, PMIX_RANKBY, "SLOT");
    il_str(l, PMIX_BINDTO, "CORE:IF-SUPPORTED:OVERLOAD-ALLOWED");
    il_str(l, PMIX_LOCAL_PEERS, "0,1");
    il_rank(l, PMIX_LOCALLDR, 0);
    for (pmix_rank_t r = 0; r < 2; r++) {
        ilist_t pd = {0};
        il_rank(&pd, PMIX_RANK, r);
        il_str(&pd, PMIX_LOCALITY_STRING, bound ? "SK0:L30:L20:L10:CR0:HT0" : NULL);
        if (bound) {
            il_str(&pd, PMIX_CPUSET, "hwloc:0x1");
        }
        il_rank(&pd, PMIX_GLOBAL_RANK, r);
        il_u16(&pd, PMIX_LOCAL_RANK, (uint16_t)r);
        il_u16(&pd, PMIX_NODE_RANK, (uint16_t)r);
        il_u32(&pd, PMIX_NODEID, 0);
        il_str(&pd, PMIX_HOSTNAME, "vm");
        il_arr(l, PMIX_PROC_DATA, &pd);
    }
    free(nmap);
    free(pmap);
}

static void test_orte_np2(void **state)
{
    (void)state;
    ilist_t l = {0};
    sy_jseg_builder_t *b = NULL;
    sy_jobinfo_summary_t s;
    char *err = NULL;
    const pmix_rank_t local[] = {0, 1};

    orte_np2(&l, true);
    assert_int_equal(PMIX_SUCCESS, ji_compile("1632501761", 2, &l, "vm", &b, &s, &err));
    assert_null(err);
    assert_int_equal(s.job_size, 2);
    assert_int_equal(s.nodeid, 0);
    expect_ranks(&s, local, 2);

    /* what the host gave, in its types */
    EXPECT_STR(b, JOB, 0, PMIX_SERVER_NSPACE, "[24910,0]");
    EXPECT_U32(b, JOB, 0, PMIX_SERVER_RANK, 0);
    EXPECT_STR(b, JOB, 0, PMIX_JOBID, "[24910,1]");
    EXPECT_TYPED(b, JOB, 0, PMIX_AVAIL_PHYS_MEMORY, PMIX_UINT64, 4926431232ULL);
    EXPECT_STR(b, JOB, 0, PMIX_MAPBY, "BYCORE:OVERSUBSCRIBE");
    EXPECT_U16(b, PROC, 1, PMIX_LOCAL_RANK, 1);
    EXPECT_STR(b, PROC, 0, PMIX_CPUSET, "hwloc:0x1");
    EXPECT_STR(b, PROC, 1, PMIX_LOCALITY_STRING, "SK0:L30:L20:L10:CR0:HT0");
    /* job realm, including this node's values where Open MPI asks */
    EXPECT_STR(b, JOB, 0, PMIX_NSPACE, "1632501761");
    EXPECT_U32(b, JOB, 0, PMIX_JOB_SIZE, 2);
    EXPECT_U32(b, JOB, 0, PMIX_MAX_PROCS, 2);
    EXPECT_U32(b, JOB, 0, PMIX_UNIV_SIZE, 2);
    EXPECT_U32(b, JOB, 0, PMIX_NUM_NODES, 1);
    EXPECT_STR(b, JOB, 0, PMIX_NODE_LIST, "vm");
    EXPECT_U32(b, JOB, 0, PMIX_JOB_NUM_APPS, 1);
    EXPECT_STR(b, JOB, 0, PMIX_LOCAL_PEERS, "0,1");
    EXPECT_U32(b, JOB, 0, PMIX_LOCAL_SIZE, 2);
    EXPECT_U32(b, JOB, 0, PMIX_NODEID, 0);
    EXPECT_RANK(b, JOB, 0, PMIX_LOCALLDR, 0);
    EXPECT_U32(b, JOB, 0, PMIX_NODE_SIZE, 2);
    /* node realm of this node, the host's flat values included */
    EXPECT_STR(b, NODE, 0, PMIX_HOSTNAME, "vm");
    EXPECT_U32(b, NODE, 0, PMIX_NODEID, 0);
    EXPECT_STR(b, NODE, 0, PMIX_LOCAL_PEERS, "0,1");
    EXPECT_U32(b, NODE, 0, PMIX_LOCAL_SIZE, 2);
    EXPECT_U32(b, NODE, 0, PMIX_NODE_SIZE, 2);
    EXPECT_RANK(b, NODE, 0, PMIX_LOCALLDR, 0);
    EXPECT_TYPED(b, NODE, 0, PMIX_AVAIL_PHYS_MEMORY, PMIX_UINT64, 4926431232ULL);
    /* application 0 */
    EXPECT_U32(b, APP, 0, PMIX_APPNUM, 0);
    EXPECT_U32(b, APP, 0, PMIX_APP_SIZE, 2);
    EXPECT_RANK(b, APP, 0, PMIX_APPLDR, 0);
    EXPECT_U32(b, APP, 0, PMIX_NUM_NODES, 1);
    EXPECT_STR(b, APP, 0, PMIX_NODE_LIST, "vm");
    /* processes: given and derived */
    for (pmix_rank_t r = 0; r < 2; r++) {
        EXPECT_RANK(b, PROC, r, PMIX_RANK, r);
        EXPECT_RANK(b, PROC, r, PMIX_GLOBAL_RANK, r);
        EXPECT_U32(b, PROC, r, PMIX_APPNUM, 0);
        EXPECT_RANK(b, PROC, r, PMIX_APP_RANK, r);
        EXPECT_U16(b, PROC, r, PMIX_LOCAL_RANK, (uint16_t)r);
        EXPECT_U16(b, PROC, r, PMIX_NODE_RANK, (uint16_t)r);
        EXPECT_U32(b, PROC, r, PMIX_NODEID, 0);
        EXPECT_STR(b, PROC, r, PMIX_HOSTNAME, "vm");
    }
    EXPECT_ABSENT(b, PROC, 2, PMIX_RANK);
    EXPECT_ABSENT(b, NODE, 1, PMIX_HOSTNAME);
    EXPECT_ABSENT(b, JOB, 0, PMIX_REGISTER_NODATA);

    sy_jobinfo_summary_free(&s);
    sy_jseg_builder_free(b);
    il_free(&l);
}

/* MPMD: "-n 1 a : -n 2 b"; pmix.app.size appended once per process
 * (duplicates, last wins), NULL pmix.locstr, a zeroed slot and an empty
 * pdata array left over in the host's array, rank not first in pdata. */
static void test_orte_mpmd(void **state)
{
    (void)state;
    ilist_t l = {0};
    sy_jseg_builder_t *b = NULL;
    sy_jobinfo_summary_t s;
    char *err = NULL;
    const pmix_rank_t local[] = {0, 1, 2};
    const uint32_t appof[] = {0, 1, 1};
    const uint32_t appsz[] = {1, 2, 2};

    il_str(&l, PMIX_NODE_MAP, "n7");
    il_str(&l, PMIX_PROC_MAP, "raw:0,1,2");
    il_u32(&l, PMIX_JOB_SIZE, 3);
    il_u32(&l, PMIX_JOB_NUM_APPS, 2);
    il_u32(&l, PMIX_NODEID, 0);
    il_u32(&l, PMIX_LOCAL_SIZE, 3);
    for (pmix_rank_t r = 0; r < 3; r++) {
        il_u32(&l, PMIX_APP_SIZE, appsz[r]);
        ilist_t pd = {0};
        il_str(&pd, PMIX_LOCALITY_STRING, NULL);
        il_rank(&pd, PMIX_RANK, r);
        il_u32(&pd, PMIX_APPNUM, appof[r]);
        il_rank(&pd, PMIX_APPLDR, appof[r] == 0 ? 0 : 1);
        il_rank(&pd, PMIX_APP_RANK, appof[r] == 0 ? 0 : r - 1);
        il_u16(&pd, PMIX_LOCAL_RANK, (uint16_t)r);
        il_arr(&l, PMIX_PROC_DATA, &pd);
    }
    il_zero(&l);
    ilist_t empty = {0};
    il_arr(&l, PMIX_PROC_DATA, &empty);
    assert_int_equal(PMIX_SUCCESS, ji_compile("1632501761", 3, &l, "n7", &b, &s, &err));
    assert_null(err);
    expect_ranks(&s, local, 3);
    assert_int_equal(s.job_size, 3);

    EXPECT_U32(b, JOB, 0, PMIX_APP_SIZE, 2); /* the last duplicate */
    EXPECT_U32(b, JOB, 0, PMIX_JOB_NUM_APPS, 2);
    for (pmix_rank_t r = 0; r < 3; r++) {
        EXPECT_STR(b, PROC, r, PMIX_LOCALITY_STRING, NULL);
        EXPECT_U32(b, PROC, r, PMIX_APPNUM, appof[r]);
        EXPECT_RANK(b, PROC, r, PMIX_APP_RANK, appof[r] == 0 ? 0 : r - 1);
        EXPECT_U16(b, PROC, r, PMIX_NODE_RANK, (uint16_t)r);
        EXPECT_STR(b, PROC, r, PMIX_HOSTNAME, "n7");
    }
    EXPECT_U32(b, APP, 0, PMIX_APP_SIZE, 1);
    EXPECT_RANK(b, APP, 0, PMIX_APPLDR, 0);
    EXPECT_U32(b, APP, 1, PMIX_APP_SIZE, 2);
    EXPECT_RANK(b, APP, 1, PMIX_APPLDR, 1);
    EXPECT_U32(b, APP, 1, PMIX_APPNUM, 1);
    EXPECT_STR(b, JOB, 0, PMIX_LOCAL_PEERS, "0,1,2");
    EXPECT_U32(b, JOB, 0, PMIX_UNIV_SIZE, 3);

    sy_jobinfo_summary_free(&s);
    sy_jseg_builder_free(b);
    il_free(&l);
}

/* slurm-22.05-pmix.md §6.3: 4 ranks on n1,n2 as seen on n2.  Slurm gives
 * every process this node's id (kept: the host's value), INT appnums and
 * UINT32 leaders. */
static void test_slurm(void **state)
{
    (void)state;
    ilist_t l = {0};
    sy_jseg_builder_t *b = NULL;
    sy_jobinfo_summary_t s;
    char *err = NULL;
    const pmix_rank_t local[] = {2, 3};

    il_bool(&l, PMIX_SPAWNED, false);
    il_str(&l, PMIX_TMPDIR, "/tmp/x");
    il_str(&l, PMIX_JOBID, "1.0");
    il_u32(&l, PMIX_NODEID, 1);
    for (pmix_rank_t r = 0; r < 4; r++) {
        ilist_t pd = {0};
        il_rank(&pd, PMIX_RANK, r);
        il_int(&pd, PMIX_APPNUM, 0);
        il_int(&pd, PMIX_APPLDR, 0);
        il_u32(&pd, PMIX_GLOBAL_RANK, r);
        il_u32(&pd, PMIX_APP_RANK, r);
        if (r >= 2) {
            il_u16(&pd, PMIX_LOCAL_RANK, (uint16_t)(r - 2));
            il_u16(&pd, PMIX_NODE_RANK, (uint16_t)(r - 2));
        }
        il_str(&pd, PMIX_HOSTNAME, r < 2 ? "n1" : "n2");
        il_u32(&pd, PMIX_NODEID, 1);
        il_arr(&l, PMIX_PROC_DATA, &pd);
    }
    il_u32(&l, PMIX_UNIV_SIZE, 4);
    il_u32(&l, PMIX_JOB_SIZE, 4);
    il_u32(&l, PMIX_MAX_PROCS, 4);
    il_u32(&l, PMIX_LOCAL_SIZE, 2);
    il_u32(&l, PMIX_NODE_SIZE, 2);
    il_str(&l, PMIX_NODE_MAP, "pmix[n[1:1-2]]");
    il_str(&l, PMIX_PROC_MAP, "raw:0,1;2,3");
    il_str(&l, PMIX_ANL_MAP, "(vector,(0,2,2))");
    il_str(&l, PMIX_LOCAL_PEERS, "2,3");
    il_u32(&l, PMIX_LOCALLDR, 2);
    assert_int_equal(PMIX_SUCCESS, ji_compile("slurm.pmix.1.0", 2, &l, "n2", &b, &s, &err));
    assert_null(err);
    expect_ranks(&s, local, 2);
    assert_int_equal(s.nodeid, 1);
    assert_int_equal(s.job_size, 4);

    /* node ids: n2 from the flat id, n1 its map position (the processes'
     * ids are inconsistent and not used) */
    EXPECT_STR(b, NODE, 0, PMIX_HOSTNAME, "n1");
    EXPECT_STR(b, NODE, 1, PMIX_HOSTNAME, "n2");
    EXPECT_STR(b, NODE, 0, PMIX_LOCAL_PEERS, "0,1");
    EXPECT_RANK(b, NODE, 0, PMIX_LOCALLDR, 0);
    EXPECT_U32(b, NODE, 0, PMIX_LOCAL_SIZE, 2);
    EXPECT_TYPED(b, NODE, 1, PMIX_LOCALLDR, PMIX_UINT32, 2); /* host's type */
    EXPECT_STR(b, NODE, 1, PMIX_LOCAL_PEERS, "2,3");
    EXPECT_STR(b, JOB, 0, PMIX_NODE_LIST, "n1,n2");
    EXPECT_U32(b, JOB, 0, PMIX_NUM_NODES, 2);
    EXPECT_U32(b, JOB, 0, PMIX_JOB_NUM_APPS, 1);
    EXPECT_TYPED(b, JOB, 0, PMIX_LOCALLDR, PMIX_UINT32, 2);
    EXPECT_U32(b, JOB, 0, PMIX_NODEID, 1);
    EXPECT_TYPED(b, PROC, 0, PMIX_APPNUM, PMIX_INT, 0);
    EXPECT_TYPED(b, PROC, 3, PMIX_APP_RANK, PMIX_UINT32, 3);
    EXPECT_TYPED(b, PROC, 0, PMIX_NODEID, PMIX_UINT32, 1); /* host's value wins */
    EXPECT_U16(b, PROC, 0, PMIX_LOCAL_RANK, 0);
    EXPECT_U16(b, PROC, 1, PMIX_LOCAL_RANK, 1);
    EXPECT_U16(b, PROC, 1, PMIX_NODE_RANK, 1);
    EXPECT_U16(b, PROC, 3, PMIX_LOCAL_RANK, 1);
    EXPECT_U32(b, APP, 0, PMIX_APP_SIZE, 4);
    EXPECT_RANK(b, APP, 0, PMIX_APPLDR, 0);
    EXPECT_TYPED(b, JOB, 0, PMIX_SPAWNED, PMIX_BOOL, 0);

    sy_jobinfo_summary_free(&s);
    sy_jseg_builder_free(b);
    il_free(&l);
}

/* Every realm in nested containers: a session holding this job (and
 * another job, ignored), two applications, three nodes named in several
 * ways, node data inside an application array; this host "a2" is known
 * by its fully qualified name. */
static void test_nested(void **state)
{
    (void)state;
    ilist_t l = {0}, ssn = {0}, job = {0}, other = {0}, a0 = {0}, a1 = {0}, n = {0};
    sy_jseg_builder_t *b = NULL;
    sy_jobinfo_summary_t s;
    char *err = NULL;
    const pmix_rank_t local[] = {2, 3, 4};
    /* rank -> (node id, local rank, app, app rank) */
    const uint32_t node_of[] = {10, 10, 1, 1, 1, 2};
    const uint16_t lrank[] = {0, 1, 0, 1, 2, 0};
    const uint32_t app_of[] = {0, 0, 0, 1, 1, 1};
    const char *host_of[] = {"a1", "a1", "a2", "a2", "a2", "a3"};

    il_str(&other, PMIX_NSPACE, "someone.else");
    il_u32(&other, PMIX_JOB_SIZE, 99);
    il_u32(&ssn, PMIX_UNIV_SIZE, 16);
    il_arr(&ssn, PMIX_JOB_INFO_ARRAY, &other);

    il_str(&job, PMIX_NSPACE, "nested");
    il_regex(&job, PMIX_NODE_MAP, "a1,a2,a3");
    il_regex(&job, PMIX_PROC_MAP, "0,1;2,3,4;5");
    il_u32(&a0, PMIX_APP_SIZE, 3);
    il_str(&a0, PMIX_APP_ARGV, "./a");
    il_str(&n, PMIX_HOSTNAME, "a2");
    il_u64(&n, PMIX_AVAIL_PHYS_MEMORY, 1234);
    il_arr(&a0, PMIX_NODE_INFO_ARRAY, &n);
    il_u32(&a0, PMIX_APPNUM, 0); /* identifier not first */
    il_arr(&job, PMIX_APP_INFO_ARRAY, &a0);
    il_u32(&a1, PMIX_APPNUM, 1);
    il_u32(&a1, PMIX_APP_SIZE, 3);
    il_str(&a1, PMIX_APP_ARGV, "./b");
    il_arr(&job, PMIX_APP_INFO_ARRAY, &a1);
    il_u32(&n, PMIX_NODEID, 10);
    il_str(&n, PMIX_HOSTNAME, "a1");
    il_str(&n, PMIX_HOSTNAME_ALIASES, "a1-ib,a1.cluster");
    il_arr(&job, PMIX_NODE_INFO_ARRAY, &n);
    il_str(&n, PMIX_HOSTNAME, "a3");
    il_str(&n, "site.rack", "r9");
    il_arr(&job, PMIX_NODE_INFO_ARRAY, &n);
    il_str(&n, PMIX_HOSTNAME, "spare"); /* not in the map: the next free id */
    il_arr(&job, PMIX_NODE_INFO_ARRAY, &n);
    for (pmix_rank_t r = 6; r-- > 0;) {
        ilist_t pd = {0};
        il_str(&pd, "site.tag", host_of[r]);
        il_rank(&pd, PMIX_RANK, r);
        il_arr(&job, PMIX_PROC_DATA, &pd);
    }
    il_arr(&ssn, PMIX_JOB_INFO_ARRAY, &job);
    il_u32(&ssn, PMIX_SESSION_ID, 7);
    il_arr(&l, PMIX_SESSION_INFO_ARRAY, &ssn);

    assert_int_equal(PMIX_SUCCESS, ji_compile("nested", 3, &l, "a2.example.org", &b, &s, &err));
    assert_null(err);
    expect_ranks(&s, local, 3);
    assert_int_equal(s.nodeid, 1);
    assert_int_equal(s.job_size, 6);

    EXPECT_U32(b, SESSION, 7, PMIX_SESSION_ID, 7);
    EXPECT_U32(b, SESSION, 7, PMIX_UNIV_SIZE, 16);
    EXPECT_U32(b, JOB, 0, PMIX_SESSION_ID, 7);
    EXPECT_U32(b, JOB, 0, PMIX_JOB_SIZE, 6); /* not the other job's 99 */
    EXPECT_U32(b, JOB, 0, PMIX_MAX_PROCS, 6);
    EXPECT_U32(b, JOB, 0, PMIX_UNIV_SIZE, 16);
    EXPECT_U32(b, JOB, 0, PMIX_NUM_NODES, 3);
    EXPECT_STR(b, JOB, 0, PMIX_NODE_LIST, "a1,a2,a3");
    EXPECT_U32(b, JOB, 0, PMIX_JOB_NUM_APPS, 2);
    EXPECT_STR(b, JOB, 0, PMIX_LOCAL_PEERS, "2,3,4");
    EXPECT_U32(b, JOB, 0, PMIX_LOCAL_SIZE, 3);
    EXPECT_U32(b, JOB, 0, PMIX_NODE_SIZE, 3);
    EXPECT_U32(b, JOB, 0, PMIX_NODEID, 1);
    EXPECT_RANK(b, JOB, 0, PMIX_LOCALLDR, 2);

    /* nodes: a1 by its array's id, a2 and a3 by position */
    EXPECT_STR(b, NODE, 10, PMIX_HOSTNAME, "a1");
    EXPECT_STR(b, NODE, 10, PMIX_HOSTNAME_ALIASES, "a1-ib,a1.cluster");
    EXPECT_STR(b, NODE, 10, PMIX_LOCAL_PEERS, "0,1");
    EXPECT_U32(b, NODE, 10, PMIX_NODEID, 10);
    EXPECT_STR(b, NODE, 1, PMIX_HOSTNAME, "a2");
    EXPECT_TYPED(b, NODE, 1, PMIX_AVAIL_PHYS_MEMORY, PMIX_UINT64, 1234);
    EXPECT_U32(b, NODE, 1, PMIX_LOCAL_SIZE, 3);
    EXPECT_RANK(b, NODE, 1, PMIX_LOCALLDR, 2);
    EXPECT_STR(b, NODE, 2, PMIX_HOSTNAME, "a3");
    EXPECT_STR(b, NODE, 2, "site.rack", "r9");
    EXPECT_STR(b, NODE, 2, PMIX_LOCAL_PEERS, "5");
    EXPECT_U32(b, NODE, 2, PMIX_NODE_SIZE, 1);
    EXPECT_ABSENT(b, NODE, 0, PMIX_HOSTNAME);
    EXPECT_STR(b, NODE, 11, PMIX_HOSTNAME, "spare");
    EXPECT_U32(b, NODE, 11, PMIX_NODEID, 11);
    EXPECT_ABSENT(b, NODE, 11, PMIX_LOCAL_PEERS);

    /* applications: sizes given, leaders and node lists derived */
    EXPECT_U32(b, APP, 0, PMIX_APP_SIZE, 3);
    EXPECT_RANK(b, APP, 0, PMIX_APPLDR, 0);
    EXPECT_STR(b, APP, 0, PMIX_NODE_LIST, "a1,a2");
    EXPECT_U32(b, APP, 0, PMIX_NUM_NODES, 2);
    EXPECT_STR(b, APP, 0, PMIX_APP_ARGV, "./a");
    EXPECT_RANK(b, APP, 1, PMIX_APPLDR, 3);
    EXPECT_STR(b, APP, 1, PMIX_NODE_LIST, "a2,a3");
    EXPECT_U32(b, APP, 1, PMIX_MAX_PROCS, 3);

    for (pmix_rank_t r = 0; r < 6; r++) {
        EXPECT_STR(b, PROC, r, "site.tag", host_of[r]);
        EXPECT_RANK(b, PROC, r, PMIX_RANK, r);
        EXPECT_RANK(b, PROC, r, PMIX_GLOBAL_RANK, r);
        EXPECT_U32(b, PROC, r, PMIX_NODEID, node_of[r]);
        EXPECT_STR(b, PROC, r, PMIX_HOSTNAME, host_of[r]);
        EXPECT_U16(b, PROC, r, PMIX_LOCAL_RANK, lrank[r]);
        EXPECT_U16(b, PROC, r, PMIX_NODE_RANK, lrank[r]);
        EXPECT_U32(b, PROC, r, PMIX_APPNUM, app_of[r]);
        EXPECT_RANK(b, PROC, r, PMIX_APP_RANK, r % 3);
    }

    sy_jobinfo_summary_free(&s);
    sy_jseg_builder_free(b);
    il_free(&l);
}

/* The daemon's own namespace as ORTE registers it; and NODATA = false. */
static void test_nodata(void **state)
{
    (void)state;
    ilist_t l = {0};
    sy_jseg_builder_t *b = NULL;
    sy_jobinfo_summary_t s;
    uint32_t *ids = NULL;
    size_t n = 0;

    il_u32(&l, PMIX_JOB_SIZE, 5);
    il_str(&l, PMIX_NODE_MAP, "this is not parsed");
    il_bool(&l, PMIX_REGISTER_NODATA, true);
    assert_int_equal(PMIX_SUCCESS, ji_compile("1632501760", 1, &l, "vm", &b, &s, NULL));
    assert_int_equal(s.nlocal, 1);
    assert_null(s.local_ranks);
    assert_int_equal(s.job_size, 0);
    assert_int_equal(s.nodeid, UINT32_MAX);
    EXPECT_STR(b, JOB, 0, PMIX_NSPACE, "1632501760");
    EXPECT_ABSENT(b, JOB, 0, PMIX_JOB_SIZE);
    for (int r = 0; r < SY_REALM_COUNT; r++) {
        assert_int_equal(PMIX_SUCCESS, ji_ids(b, (sy_realm_t)r, &ids, &n));
        assert_int_equal(n, JOB == r ? 1 : 0);
        free(ids);
    }
    sy_jobinfo_summary_free(&s);
    sy_jseg_builder_free(b);
    il_free(&l);

    il_bool(&l, PMIX_REGISTER_NODATA, false);
    il_u32(&l, PMIX_JOB_SIZE, 5);
    assert_int_equal(PMIX_SUCCESS, ji_compile("x", 0, &l, "vm", &b, &s, NULL));
    EXPECT_U32(b, JOB, 0, PMIX_JOB_SIZE, 5);
    EXPECT_U32(b, JOB, 0, PMIX_LOCAL_SIZE, 0);
    assert_int_equal(s.job_size, 5);
    assert_int_equal(s.nlocal, 0);
    sy_jobinfo_summary_free(&s);
    sy_jseg_builder_free(b);
    il_free(&l);
}

/* A host whose maps do not mention this node: fall back to nlocalprocs
 * and the flat keys. */
static void test_local_not_in_map(void **state)
{
    (void)state;
    ilist_t l = {0};
    sy_jseg_builder_t *b = NULL;
    sy_jobinfo_summary_t s;
    const pmix_rank_t local[] = {4, 5};

    il_str(&l, PMIX_NODE_MAP, "x1,x2");
    il_str(&l, PMIX_PROC_MAP, "0-1;2-3");
    il_str(&l, PMIX_LOCAL_PEERS, "4,5");
    assert_int_equal(PMIX_SUCCESS, ji_compile("spawned", 2, &l, "elsewhere", &b, &s, NULL));
    expect_ranks(&s, local, 2);
    assert_int_equal(s.nodeid, UINT32_MAX);
    EXPECT_U32(b, JOB, 0, PMIX_LOCAL_SIZE, 2);
    EXPECT_ABSENT(b, JOB, 0, PMIX_NODEID);
    EXPECT_U32(b, JOB, 0, PMIX_JOB_SIZE, 4);
    EXPECT_U16(b, PROC, 3, PMIX_LOCAL_RANK, 1);
    EXPECT_STR(b, NODE, 0, PMIX_LOCAL_PEERS, "0,1"); /* not the flat "4,5" */
    EXPECT_STR(b, NODE, 0, PMIX_HOSTNAME, "x1");
    sy_jobinfo_summary_free(&s);
    sy_jseg_builder_free(b);
    il_free(&l);

    /* no maps at all: this node is the one the flat id names */
    il_u32(&l, PMIX_NODEID, 4);
    il_u32(&l, PMIX_NODE_SIZE, 9);
    il_str(&l, PMIX_LOCAL_PEERS, "0-2");
    assert_int_equal(PMIX_SUCCESS, ji_compile("nomaps", 3, &l, "me", &b, &s, NULL));
    assert_int_equal(s.nodeid, 4);
    assert_int_equal(s.local_ranks[2], 2);
    EXPECT_STR(b, NODE, 4, PMIX_HOSTNAME, "me");
    EXPECT_U32(b, NODE, 4, PMIX_NODEID, 4);
    EXPECT_U32(b, NODE, 4, PMIX_NODE_SIZE, 9);
    EXPECT_STR(b, NODE, 4, PMIX_LOCAL_PEERS, "0-2");
    EXPECT_U32(b, JOB, 0, PMIX_LOCAL_SIZE, 3);
    EXPECT_U32(b, JOB, 0, PMIX_JOB_NUM_APPS, 1);
    EXPECT_ABSENT(b, JOB, 0, PMIX_JOB_SIZE);
    sy_jobinfo_summary_free(&s);
    sy_jseg_builder_free(b);
    il_free(&l);

    /* nlocalprocs disagreeing with the map: trusted, ranks not reported */
    il_str(&l, PMIX_NODE_MAP, "x1,x2");
    il_str(&l, PMIX_PROC_MAP, "0-1;2-3");
    assert_int_equal(PMIX_SUCCESS, ji_compile("odd", 3, &l, "x2", &b, &s, NULL));
    assert_int_equal(s.nlocal, 3);
    assert_null(s.local_ranks);
    assert_int_equal(s.nodeid, 1);
    EXPECT_U32(b, JOB, 0, PMIX_LOCAL_SIZE, 2);
    sy_jobinfo_summary_free(&s);
    sy_jseg_builder_free(b);
    il_free(&l);
}

static void test_singleton(void **state)
{
    (void)state;
    sy_jseg_builder_t *b = NULL;

    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new("singleton.1", &b));
    assert_int_equal(PMIX_SUCCESS, sy_jobinfo_compile_singleton("singleton.1", "h0", 4242, b));
    EXPECT_STR(b, JOB, 0, PMIX_NSPACE, "singleton.1");
    EXPECT_U32(b, JOB, 0, PMIX_JOB_SIZE, 1);
    EXPECT_U32(b, JOB, 0, PMIX_MAX_PROCS, 1);
    EXPECT_U32(b, JOB, 0, PMIX_UNIV_SIZE, 1);
    EXPECT_U32(b, JOB, 0, PMIX_NUM_NODES, 1);
    EXPECT_STR(b, JOB, 0, PMIX_NODE_LIST, "h0");
    EXPECT_U32(b, JOB, 0, PMIX_JOB_NUM_APPS, 1);
    EXPECT_STR(b, JOB, 0, PMIX_LOCAL_PEERS, "0");
    EXPECT_U32(b, JOB, 0, PMIX_LOCAL_SIZE, 1);
    EXPECT_U32(b, JOB, 0, PMIX_NODE_SIZE, 1);
    EXPECT_U32(b, JOB, 0, PMIX_NODEID, 0);
    EXPECT_RANK(b, JOB, 0, PMIX_LOCALLDR, 0);
    EXPECT_STR(b, NODE, 0, PMIX_HOSTNAME, "h0");
    EXPECT_U32(b, NODE, 0, PMIX_LOCAL_SIZE, 1);
    EXPECT_U32(b, APP, 0, PMIX_APP_SIZE, 1);
    EXPECT_RANK(b, APP, 0, PMIX_APPLDR, 0);
    EXPECT_RANK(b, PROC, 0, PMIX_RANK, 0);
    EXPECT_RANK(b, PROC, 0, PMIX_GLOBAL_RANK, 0);
    EXPECT_U16(b, PROC, 0, PMIX_LOCAL_RANK, 0);
    EXPECT_U16(b, PROC, 0, PMIX_NODE_RANK, 0);
    EXPECT_U32(b, PROC, 0, PMIX_APPNUM, 0);
    EXPECT_RANK(b, PROC, 0, PMIX_APP_RANK, 0);
    EXPECT_U32(b, PROC, 0, PMIX_NODEID, 0);
    EXPECT_STR(b, PROC, 0, PMIX_HOSTNAME, "h0");
    EXPECT_TYPED(b, PROC, 0, PMIX_PROC_PID, PMIX_PID, 4242);
    sy_jseg_builder_free(b);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_jobinfo_compile_singleton("s", NULL, 1, b));
}

static void test_resources(void **state)
{
    (void)state;
    ilist_t l = {0}, n = {0};
    sy_jseg_builder_t *b = NULL;
    char *err = NULL;

    assert_int_equal(PMIX_SUCCESS, sy_jseg_builder_new(NULL, &b));
    /* first call: this node flat (no id: gets 0), two named nodes */
    il_u64(&l, PMIX_AVAIL_PHYS_MEMORY, 64);
    il_str(&l, PMIX_HOSTNAME_ALIASES, "me-ib");
    il_str(&n, PMIX_HOSTNAME, "r1");
    il_u32(&n, PMIX_NUM_SLOTS, 8);
    il_arr(&l, PMIX_NODE_INFO_ARRAY, &n);
    il_u32(&n, PMIX_NODEID, 7);
    il_str(&n, PMIX_HOSTNAME, "r7");
    il_arr(&l, PMIX_NODE_INFO_ARRAY, &n);
    assert_int_equal(PMIX_SUCCESS, sy_jobinfo_compile_resources(l.info, l.n, "me", b, &err));
    assert_null(err);
    il_free(&l);
    EXPECT_STR(b, NODE, 0, PMIX_HOSTNAME, "me");
    EXPECT_U32(b, NODE, 0, PMIX_NODEID, 0);
    EXPECT_TYPED(b, NODE, 0, PMIX_AVAIL_PHYS_MEMORY, PMIX_UINT64, 64);
    EXPECT_STR(b, NODE, 1, PMIX_HOSTNAME, "r1");
    EXPECT_U32(b, NODE, 1, PMIX_NODEID, 1);
    EXPECT_U32(b, NODE, 1, PMIX_NUM_SLOTS, 8);
    EXPECT_STR(b, NODE, 7, PMIX_HOSTNAME, "r7");

    /* second call: same names again (one by alias) are the same nodes */
    il_str(&n, PMIX_HOSTNAME, "r1");
    il_u32(&n, PMIX_NUM_SLOTS, 16);
    il_arr(&l, PMIX_NODE_INFO_ARRAY, &n);
    il_str(&n, PMIX_HOSTNAME, "new");
    il_arr(&l, PMIX_NODE_INFO_ARRAY, &n);
    il_str(&l, "site.flat", "yes");
    assert_int_equal(PMIX_SUCCESS, sy_jobinfo_compile_resources(l.info, l.n, "me-ib", b, &err));
    il_free(&l);
    EXPECT_U32(b, NODE, 1, PMIX_NUM_SLOTS, 16);
    EXPECT_STR(b, NODE, 8, PMIX_HOSTNAME, "new");
    EXPECT_U32(b, NODE, 8, PMIX_NODEID, 8);
    EXPECT_STR(b, NODE, 0, "site.flat", "yes");
    EXPECT_ABSENT(b, NODE, 2, PMIX_HOSTNAME);

    /* a flat id names this node; job data is refused */
    il_u32(&l, PMIX_NODEID, 3);
    il_str(&l, "site.flat", "three");
    assert_int_equal(PMIX_SUCCESS, sy_jobinfo_compile_resources(l.info, l.n, "other", b, NULL));
    il_free(&l);
    EXPECT_STR(b, NODE, 3, PMIX_HOSTNAME, "other");
    EXPECT_STR(b, NODE, 3, "site.flat", "three");
    il_u32(&n, PMIX_RANK, 0);
    il_arr(&l, PMIX_PROC_DATA, &n);
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_jobinfo_compile_resources(l.info, l.n, "me", b, &err));
    assert_non_null(err);
    assert_non_null(strstr(err, PMIX_PROC_DATA));
    free(err);
    il_free(&l);
    sy_jseg_builder_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orte_np2),  cmocka_unit_test(test_orte_mpmd),
        cmocka_unit_test(test_slurm),     cmocka_unit_test(test_nested),
        cmocka_unit_test(test_nodata),    cmocka_unit_test(test_local_not_in_map),
        cmocka_unit_test(test_singleton), cmocka_unit_test(test_resources),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
