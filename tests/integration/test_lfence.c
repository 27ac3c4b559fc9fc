/* The local fence (server_lfence.c, client_lfence.c): fences over the
 * whole namespace of a job on one node, with real processes.
 *
 *   test_lfence MODE [N]
 *     rounds:   ROUNDS fences in a row, every other one collecting; after
 *               each, every rank reads its neighbour's value of that round
 *               (PMIX_OPTIONAL after a collecting one: it must be in the
 *               collected data, no server asked)
 *     mixed:    the same, every third fence a Fence_nb
 *     listed:   the same as rounds, the proc list naming every rank
 *     recommit: RECOMMITS rounds: every rank puts and commits, all meet (a
 *               barrier outside PMIx: the server has published their data
 *               ahead), then one rank changes its value and adds a key and
 *               commits again before a collecting fence; every rank must
 *               read both new values from the collected data
 *     kill-wait | kill-during | finalize-during: the last rank waits in a
 *               fence and is killed / is killed while the others wait /
 *               finalizes while the others wait; the others must end with
 *               PMIX_ERR_PARTIAL_SUCCESS, then fence again among themselves
 *     die-before-count | die-before-confirm: the same when the last rank
 *               dies inside its arrival, after writing its slot and before
 *               its count / after its count and before its slot says so
 *               (SWITCHYARD_TEST_LFENCE_DIE): not counted the first time,
 *               counted the second; either way the others end without it
 *     timeout:  ranks but the last fence with PMIX_TIMEOUT 1 s while the
 *               last sleeps: PMIX_ERR_TIMEOUT; then all fence again
 * Output: "rank R: PHASE -> STATUS" lines, and "rank R: bad ..." for a
 * wrong value; exit 0 when every rank ended within 60 s.  lfence.sh
 * checks the lines and the server's debug log (which path was taken). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/lfence_page.h"
#include "forkhost.h"

#define ROUNDS 24
#define RECOMMITS 6

static const char *mode;
static unsigned nprocs = 4;
static pmix_proc_t me;

static void report(const char *phase, pmix_status_t rc)
{
    printf("rank %u: %s -> %s\n", me.rank, phase, PMIx_Error_string(rc));
    fflush(stdout);
}

static pmix_status_t do_fence(unsigned round, bool collect, bool nb)
{
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_proc_t all[64];
    size_t n = 1;
    PMIX_LOAD_PROCID(&all[0], me.nspace, PMIX_RANK_WILDCARD);
    if (strcmp(mode, "listed") == 0) {
        /* every rank by name, in an order that differs per round */
        n = nprocs;
        for (unsigned r = 0; r < nprocs; r++)
            PMIX_LOAD_PROCID(&all[r], me.nspace, (r + round) % nprocs);
    }
    pmix_status_t rc;
    if (nb) {
        fh_waiter_t w = FH_WAITER;
        rc = fh_wait(PMIx_Fence_nb(all, n, collect ? &info : NULL, collect ? 1 : 0, fh_op_cb, &w),
                     &w);
    } else {
        rc = PMIx_Fence(all, n, collect ? &info : NULL, collect ? 1 : 0);
    }
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

static int rounds(void)
{
    int bad = 0;
    for (unsigned k = 0; k < ROUNDS; k++) {
        char key[64];
        snprintf(key, sizeof key, "lf.%u", k);
        pmix_value_t v;
        uint32_t mine = me.rank * 1000 + k;
        PMIX_VALUE_LOAD(&v, &mine, PMIX_UINT32);
        PMIx_Put(PMIX_GLOBAL, key, &v);
        PMIx_Commit();
        bool collect = k % 2 == 1;
        bool nb = strcmp(mode, "mixed") == 0 && k % 3 == 2;
        pmix_status_t rc = do_fence(k, collect, nb);
        if (rc != PMIX_SUCCESS) {
            printf("rank %u: bad fence %u: %s\n", me.rank, k, PMIx_Error_string(rc));
            bad++;
            continue;
        }
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % nprocs);
        pmix_info_t opt;
        bool yes = true;
        PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
        pmix_value_t *got = NULL;
        rc = PMIx_Get(&peer, key, collect ? &opt : NULL, collect ? 1 : 0, &got);
        PMIX_INFO_DESTRUCT(&opt);
        uint32_t want = peer.rank * 1000 + k;
        if (rc != PMIX_SUCCESS || got == NULL || got->type != PMIX_UINT32 ||
            got->data.uint32 != want) {
            printf("rank %u: bad value %s of rank %u (%s): %s\n", me.rank, key, peer.rank,
                   collect ? "collected" : "direct", PMIx_Error_string(rc));
            bad++;
        }
        if (got != NULL)
            PMIX_VALUE_RELEASE(got);
    }
    report("rounds", bad == 0 ? PMIX_SUCCESS : PMIX_ERROR);
    return 0;
}

static bool put_u32(const char *key, uint32_t val)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, &val, PMIX_UINT32);
    bool ok = PMIx_Put(PMIX_GLOBAL, key, &v) == PMIX_SUCCESS;
    PMIX_VALUE_DESTRUCT(&v);
    return ok && PMIx_Commit() == PMIX_SUCCESS;
}

/* rank's key, from the collected data only (PMIX_OPTIONAL) */
static bool read_u32(pmix_rank_t rank, const char *key, uint32_t want)
{
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, rank);
    pmix_info_t opt;
    bool yes = true;
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_value_t *got = NULL;
    pmix_status_t rc = PMIx_Get(&peer, key, &opt, 1, &got);
    PMIX_INFO_DESTRUCT(&opt);
    bool ok =
        rc == PMIX_SUCCESS && got != NULL && got->type == PMIX_UINT32 && got->data.uint32 == want;
    if (!ok)
        printf("rank %u: bad value %s of rank %u: %s (%u, want %u)\n", me.rank, key, rank,
               PMIx_Error_string(rc), got != NULL ? got->data.uint32 : 0, want);
    if (got != NULL)
        PMIX_VALUE_RELEASE(got);
    return ok;
}

static void recommit(fh_step_t *step)
{
    int bad = 0;
    for (unsigned k = 0; k < RECOMMITS; k++) {
        char key[64], extra[64];
        snprintf(key, sizeof key, "rc.%u", k);
        snprintf(extra, sizeof extra, "rc.extra.%u", k);
        pmix_rank_t changer = k % nprocs;
        if (!put_u32(key, me.rank * 1000 + k))
            bad++;
        fh_step(step); /* everyone committed: published ahead */
        if (me.rank == changer && (!put_u32(key, 7000000 + k) || !put_u32(extra, 9000000 + k)))
            bad++;
        pmix_status_t rc = do_fence(k, true, false);
        if (rc != PMIX_SUCCESS) {
            printf("rank %u: bad fence %u: %s\n", me.rank, k, PMIx_Error_string(rc));
            bad++;
            continue;
        }
        for (pmix_rank_t r = 0; r < nprocs; r++)
            if (!read_u32(r, key, r == changer ? 7000000 + k : r * 1000 + k))
                bad++;
        if (!read_u32(changer, extra, 9000000 + k))
            bad++;
    }
    report("recommit", bad == 0 ? PMIX_SUCCESS : PMIX_ERROR);
}

static int client(const char *barg)
{
    fh_step_t step;
    if (fh_step_parse(barg, &step) != 0)
        return 2;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        return 2;
    fh_step(&step); /* 1: everyone connected */
    unsigned last = nprocs - 1;
    if (strcmp(mode, "rounds") == 0 || strcmp(mode, "mixed") == 0 || strcmp(mode, "listed") == 0) {
        rounds();
    } else if (strcmp(mode, "recommit") == 0) {
        recommit(&step);
    } else if (strcmp(mode, "timeout") == 0) {
        if (me.rank == last) {
            fh_step(&step); /* 2: the others timed out */
        } else {
            pmix_info_t t;
            int secs = 1;
            PMIX_INFO_LOAD(&t, PMIX_TIMEOUT, &secs, PMIX_INT);
            report("first", PMIx_Fence(NULL, 0, &t, 1));
            PMIX_INFO_DESTRUCT(&t);
            fh_step(&step); /* 2 */
        }
        report("second", do_fence(0, true, false));
    } else { /* departures */
        bool wait_first = strcmp(mode, "kill-wait") == 0;
        if (me.rank == last) {
            if (wait_first) {
                PMIx_Fence(NULL, 0, NULL, 0); /* killed in it */
                return 3;
            }
            fh_step(&step); /* 2: the others go into the fence */
            usleep(300000);
            if (strcmp(mode, "kill-during") == 0)
                raise(SIGKILL);
            if (strncmp(mode, "die-", 4) == 0) {
                /* the last to arrive dies inside its arrival (the
                 * library's test hook kills it there) */
                setenv("SWITCHYARD_TEST_LFENCE_DIE", mode + 4, 1);
                PMIx_Fence(NULL, 0, NULL, 0);
                return 3;
            }
            PMIx_Finalize(NULL, 0);
            return 0;
        }
        if (!wait_first)
            fh_step(&step); /* 2 */
        else
            fh_step(&step); /* 2: the last rank was killed in the fence */
        report("first", do_fence(0, false, false));
        report("second", do_fence(1, true, false));
        report("third", do_fence(2, false, false));
    }
    PMIx_Finalize(NULL, 0);
    return 0;
}

/* Wait (5 s at most) until the namespace's page in the server's tmpdir
 * says a member left. */
static bool departed(const char *dir)
{
    char pat[4200];
    snprintf(pat, sizeof pat, "%s/lfence.*", dir);
    for (int i = 0; i < 500; i++) {
        glob_t g;
        if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc == 1) {
            int fd = open(g.gl_pathv[0], O_RDONLY);
            globfree(&g);
            void *m = fd >= 0 ? mmap(NULL, sizeof(sy_lfence_page_t), PROT_READ, MAP_SHARED, fd, 0)
                              : MAP_FAILED;
            if (fd >= 0)
                close(fd);
            if (m != MAP_FAILED) {
                const sy_lfence_page_t *pg = m;
                bool gone = (__atomic_load_n(&pg->word, __ATOMIC_ACQUIRE) & SY_LF_DEPARTED) != 0;
                munmap(m, sizeof(sy_lfence_page_t));
                if (gone)
                    return true;
            }
        } else {
            globfree(&g);
        }
        usleep(10000);
    }
    printf("host: the server did not see the member leave within 5 s\n");
    return false;
}

static int host(void)
{
    const char *t = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/sy-lfence.XXXXXX", t != NULL && *t == '/' ? t : "/tmp");
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    if (fh_server_init(&module, tmpl) != PMIX_SUCCESS)
        return 2;
    const char *nspace = "lfence";
    if (fh_register_job(nspace, nprocs) != PMIX_SUCCESS) {
        fh_server_finalize(tmpl);
        return 2;
    }
    char nbuf[16];
    snprintf(nbuf, sizeof nbuf, "%u", nprocs);
    char *args[] = {"client", (char *)mode, nbuf, NULL};
    fh_barrier_t b;
    pid_t pids[64];
    int code = 0;
    if (fh_start_job(nspace, nprocs, args, &b, pids) != 0)
        code = 2;
    unsigned last = nprocs - 1;
    if (code == 0 && fh_barrier_gather(&b, nprocs, 30000) == (int)nprocs)
        fh_barrier_release(&b, nprocs);
    else
        code = 1;
    if (code == 0 && strcmp(mode, "kill-wait") == 0) {
        usleep(300000); /* the last rank waits in its fence */
        kill(pids[last], SIGKILL);
        waitpid(pids[last], NULL, 0);
        pids[last] = -1;
        /* the server sees the death when its loop reads the closed
         * connection: the others fence only once it did (the page says
         * so), or they may end before it with the dead member counted */
        if (!departed(tmpl))
            code = 1;
        if (fh_barrier_gather(&b, nprocs - 1, 30000) == (int)nprocs - 1)
            fh_barrier_release(&b, nprocs - 1);
        else
            code = 1;
    } else if (code == 0 && strcmp(mode, "recommit") == 0) {
        for (unsigned k = 0; code == 0 && k < RECOMMITS; k++)
            if (fh_barrier_gather(&b, nprocs, 30000) == (int)nprocs)
                fh_barrier_release(&b, nprocs);
            else
                code = 1;
    } else if (code == 0 &&
               (strcmp(mode, "kill-during") == 0 || strcmp(mode, "finalize-during") == 0 ||
                strncmp(mode, "die-", 4) == 0 || strcmp(mode, "timeout") == 0)) {
        if (fh_barrier_gather(&b, nprocs, 30000) == (int)nprocs)
            fh_barrier_release(&b, nprocs);
        else
            code = 1;
    }
    for (int waited = 0; code != 2 && waited < 600; waited++) {
        bool left = false;
        for (unsigned r = 0; r < nprocs; r++) {
            int st;
            if (pids[r] > 0 && waitpid(pids[r], &st, WNOHANG) == pids[r])
                pids[r] = -1;
            else if (pids[r] > 0)
                left = true;
        }
        if (!left)
            break;
        usleep(100000);
    }
    for (unsigned r = 0; r < nprocs; r++) {
        if (pids[r] > 0) {
            printf("rank %u: HANG\n", r);
            kill(pids[r], SIGKILL);
            waitpid(pids[r], NULL, 0);
            code = 1;
        }
    }
    fh_barrier_close(&b);
    fh_server_finalize(tmpl);
    return code;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 5 && strcmp(argv[1], "client") == 0) {
        mode = argv[2];
        nprocs = (unsigned)atoi(argv[3]);
        return client(argv[4]);
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODE [N]\n", argv[0]);
        return 2;
    }
    mode = argv[1];
    if (argc > 2)
        nprocs = (unsigned)atoi(argv[2]);
    if (nprocs < 2 || nprocs > 64)
        return 2;
    return host();
}
