/* A PMIx client as sites run them under srun --mpi=pmix: its job data is
 * checked against Slurm's own view of the step (SLURM_* variables), then
 * every rank puts a value, commits, fences (with PMIX_COLLECT_DATA when
 * asked) and gets every peer's value; with --no-fence the Gets go straight
 * to the peers' servers (direct modex).  A closing fence keeps every rank
 * until all are served.  Prints one "pmix rank R/N ok ..." line on success,
 * "pmix rank R: FAIL ..." lines otherwise (exit 1).
 *   --collect     fence with PMIX_COLLECT_DATA
 *   --no-fence    no fence before the Gets (direct modex)
 *   --delay R     rank R sleeps 2 s before the fence; every rank prints
 *                 "fence rank R entered <ms> left <ms>" (epoch ms)
 *   --maps        report the libpmix this process and its parent mapped */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <pmix.h>

#include "mapped.h"

static int failures;
static pmix_proc_t me;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        printf("pmix rank %d: FAIL ", (int)me.rank);                                               \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        failures++;                                                                                \
    } while (0)

static long env_long(const char *name)
{
    const char *v = getenv(name);
    if (v == NULL) {
        FAIL("%s is not set", name);
        return -1;
    }
    return strtol(v, NULL, 10);
}

static long long now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* Tasks on node `node` from SLURM_STEP_TASKS_PER_NODE ("2(x2),1"). */
static long tasks_on_node(long node)
{
    const char *s = getenv("SLURM_STEP_TASKS_PER_NODE");
    long seen = 0;
    while (s != NULL && *s != '\0') {
        char *end;
        long n = strtol(s, &end, 10), reps = 1;
        if (end == s)
            break;
        if (strncmp(end, "(x", 2) == 0) {
            reps = strtol(end + 2, &end, 10);
            if (*end == ')')
                end++;
        }
        if (node < seen + reps)
            return n;
        seen += reps;
        if (*end != ',')
            break;
        s = end + 1;
    }
    return -1;
}

/* Get a key of proc as a uint32-like number, -1 when absent. */
static long long get_num(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_Get(%s:%d, %s): %s", p->nspace, (int)p->rank, key, PMIx_Error_string(rc));
        return -1;
    }
    long long out = -1;
    switch (v->type) {
    case PMIX_UINT32: out = v->data.uint32; break;
    case PMIX_UINT16: out = v->data.uint16; break;
    case PMIX_INT: out = v->data.integer; break;
    case PMIX_PROC_RANK: out = v->data.rank; break;
    case PMIX_UINT64: out = (long long)v->data.uint64; break;
    case PMIX_SIZE: out = (long long)v->data.size; break;
    default: FAIL("%s has type %s", key, PMIx_Data_type_string(v->type));
    }
    PMIX_VALUE_RELEASE(v);
    return out;
}

static char *get_str(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_Get(%s:%d, %s): %s", p->nspace, (int)p->rank, key, PMIx_Error_string(rc));
        return NULL;
    }
    char *out = NULL;
    if (v->type == PMIX_STRING && v->data.string != NULL)
        out = strdup(v->data.string);
    else
        FAIL("%s has type %s", key, PMIx_Data_type_string(v->type));
    PMIX_VALUE_RELEASE(v);
    return out;
}

int main(int argc, char **argv)
{
    bool collect = false, fence = true, maps = false;
    long delay = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--collect") == 0)
            collect = true;
        else if (strcmp(argv[i], "--no-fence") == 0)
            fence = false;
        else if (strcmp(argv[i], "--maps") == 0)
            maps = true;
        else if (strcmp(argv[i], "--delay") == 0 && i + 1 < argc)
            delay = strtol(argv[++i], NULL, 10);
    }
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("pmix rank ?: FAIL PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (maps) {
        sy_mapped("task", 0);
        sy_mapped("stepd", getppid());
    }

    /* ---- the job as Slurm sees it ---- */
    char want_ns[PMIX_MAX_NSLEN + 1];
    snprintf(want_ns, sizeof want_ns, "slurm.pmix.%ld.%ld", env_long("SLURM_JOB_ID"),
             env_long("SLURM_STEP_ID"));
    long rank = env_long("SLURM_PROCID"), size = env_long("SLURM_STEP_NUM_TASKS");
    long lrank = env_long("SLURM_LOCALID"), node = env_long("SLURM_NODEID");
    long lsize = tasks_on_node(node);
    const char *host = getenv("SLURMD_NODENAME");
    if (strcmp(me.nspace, want_ns) != 0)
        FAIL("namespace %s, Slurm's step is %s", me.nspace, want_ns);
    if ((long)me.rank != rank)
        FAIL("rank %u, SLURM_PROCID %ld", me.rank, rank);
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    long long n;
    if ((n = get_num(&wild, PMIX_JOB_SIZE)) != size)
        FAIL("PMIX_JOB_SIZE %lld, Slurm says %ld", n, size);
    if ((n = get_num(&wild, PMIX_UNIV_SIZE)) != size)
        FAIL("PMIX_UNIV_SIZE %lld, Slurm says %ld", n, size);
    if ((n = get_num(&wild, PMIX_LOCAL_SIZE)) != lsize)
        FAIL("PMIX_LOCAL_SIZE %lld, Slurm says %ld", n, lsize);
    if ((n = get_num(&me, PMIX_LOCAL_RANK)) != lrank)
        FAIL("PMIX_LOCAL_RANK %lld, SLURM_LOCALID %ld", n, lrank);
    if ((n = get_num(&me, PMIX_NODEID)) != node)
        FAIL("PMIX_NODEID %lld, SLURM_NODEID %ld", n, node);
    if ((n = get_num(&me, PMIX_APPNUM)) != 0)
        FAIL("PMIX_APPNUM %lld", n);
    char *myhost = get_str(&me, PMIX_HOSTNAME);
    if (myhost != NULL && host != NULL && strcmp(myhost, host) != 0)
        FAIL("PMIX_HOSTNAME %s, SLURMD_NODENAME %s", myhost, host);
    char *peers = get_str(&wild, PMIX_LOCAL_PEERS);
    if (peers != NULL) {
        /* lsize ranks, me among them, each one on this host */
        long count = 0;
        bool mine = false;
        for (char *tok = strtok(peers, ","); tok != NULL; tok = strtok(NULL, ",")) {
            pmix_proc_t p;
            PMIX_LOAD_PROCID(&p, me.nspace, (pmix_rank_t)strtoul(tok, NULL, 10));
            count++;
            mine = mine || p.rank == me.rank;
            char *h = get_str(&p, PMIX_HOSTNAME);
            if (h != NULL && myhost != NULL && strcmp(h, myhost) != 0)
                FAIL("local peer %u is on %s", p.rank, h);
            free(h);
        }
        if (count != lsize || !mine)
            FAIL("PMIX_LOCAL_PEERS has %ld ranks (me %s), Slurm says %ld", count,
                 mine ? "among them" : "missing", lsize);
    }
    free(peers);

    /* ---- put, commit, fence, get every peer ---- */
    char value[300];
    snprintf(value, sizeof value, "value-from-rank-%u@%s", me.rank, host != NULL ? host : "?");
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, value, PMIX_STRING);
    if ((rc = PMIx_Put(PMIX_GLOBAL, "sy.test.key", &val)) != PMIX_SUCCESS)
        FAIL("PMIx_Put: %s", PMIx_Error_string(rc));
    PMIX_VALUE_DESTRUCT(&val);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        FAIL("PMIx_Commit: %s", PMIx_Error_string(rc));
    if (fence) {
        if (delay == (long)me.rank)
            sleep(2);
        pmix_info_t info;
        bool yes = true;
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        long long t0 = now_ms();
        rc = PMIx_Fence(&wild, 1, collect ? &info : NULL, collect ? 1 : 0);
        long long t1 = now_ms();
        PMIX_INFO_DESTRUCT(&info);
        if (rc != PMIX_SUCCESS)
            FAIL("PMIx_Fence: %s", PMIx_Error_string(rc));
        if (delay >= 0)
            printf("fence rank %u entered %lld left %lld\n", me.rank, t0, t1);
    }
    for (long r = 0; r < size; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, me.nspace, (pmix_rank_t)r);
        pmix_value_t *v = NULL;
        rc = PMIx_Get(&p, "sy.test.key", NULL, 0, &v);
        if (rc != PMIX_SUCCESS) {
            FAIL("Get sy.test.key of rank %ld: %s", r, PMIx_Error_string(rc));
            continue;
        }
        char *h = get_str(&p, PMIX_HOSTNAME);
        char want[300];
        snprintf(want, sizeof want, "value-from-rank-%ld@%s", r, h != NULL ? h : "?");
        if (v->type != PMIX_STRING || strcmp(v->data.string, want) != 0)
            FAIL("rank %ld's value is '%s', expected '%s'", r,
                 v->type == PMIX_STRING ? v->data.string : "(not a string)", want);
        free(h);
        PMIX_VALUE_RELEASE(v);
    }
    /* nobody leaves (taking its server along) while a peer may still ask */
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS)
        FAIL("closing PMIx_Fence: %s", PMIx_Error_string(rc));
    if (failures == 0)
        printf("pmix rank %u/%ld ok (%s, host %s, local %ld/%ld, %s)\n", me.rank, size, me.nspace,
               myhost != NULL ? myhost : "?", lrank, lsize,
               !fence    ? "direct modex"
               : collect ? "collect"
                         : "no collect");
    free(myhost);
    if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS)
        FAIL("PMIx_Finalize: %s", PMIx_Error_string(rc));
    return failures == 0 ? 0 : 1;
}
