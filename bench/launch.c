/* Launch benchmark: one source, compiled once against Switchyard and once
 * against OpenPMIx 4.2.2 (bench/launch-compare.sh), using only Standard v4
 * calls so both builds do the same work.
 *
 * The host (this program without arguments) inits a server in a private
 * tmpdir, and for N local ranks registers the job the way Open MPI's
 * mpirun does (job-level keys, node/proc maps from PMIx_generate_regex/ppn,
 * per-rank data with the rank first), then forks and execs itself as N
 * clients.  Each client times PMIx_Init, then (after a barrier made of pipes
 * to the host, outside PMIx) a loop of Gets of a job-level key
 * (PMIX_JOB_SIZE, wildcard rank) and of a proc-level key (its own
 * PMIX_LOCAL_RANK), and PMIx_Finalize, checks every value it read, and
 * writes one line to a pipe.  The host reports, per N, the median over
 * repetitions of: max Init over ranks, mean Get latency over ranks, max
 * Finalize, and launch-to-all-exited.
 *
 *   launch [-n "1 2 4 8"] [-r REPS] [-g GETS] [-c CLIENT] [-l]      (host)
 * Output: one line per N, "N init_us getjob_ns getproc_ns fin_us total_us".
 * -c CLIENT: exec CLIENT for the clients instead of this program (the same
 * source built against the other library: bench/interop-compare.sh); every
 * client reports the libpmix it runs on and a launch whose clients do not
 * agree fails.  -l: first print "lib server PATH" and "lib client PATH". */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "../tests/integration/forkhost.h"

/* ---------------- client ---------------- */
/* Barriers outside PMIx (pipes to and from the host), so that no phase of
 * one rank is timed while others run another: without them, ranks looping
 * over cheap Gets would starve the later ranks' Init of CPU. */
static int client(int fd, long gets, uint32_t want, const char *barrier)
{
    fh_step_t s;
    if (fh_step_parse(barrier, &s) != 0)
        return 6;
    pmix_proc_t me, wild;
    double t0 = fh_now_us();
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "launch client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    double t_init = fh_now_us() - t0;
    if (fh_step(&s) != 0)
        return 6;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);

    pmix_value_t *v;
    t0 = fh_now_us();
    for (long i = 0; i < gets; i++) {
        v = NULL;
        if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS || v == NULL ||
            v->type != PMIX_UINT32 || v->data.uint32 != want)
            return 2;
        PMIX_VALUE_RELEASE(v);
    }
    double t_job = (fh_now_us() - t0) * 1e3 / (double)gets;
    t0 = fh_now_us();
    for (long i = 0; i < gets; i++) {
        v = NULL;
        if (PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &v) != PMIX_SUCCESS || v == NULL ||
            v->type != PMIX_UINT16 || v->data.uint16 != me.rank)
            return 3;
        PMIX_VALUE_RELEASE(v);
    }
    double t_proc = (fh_now_us() - t0) * 1e3 / (double)gets;
    if (fh_step(&s) != 0)
        return 6;
    t0 = fh_now_us();
    if (PMIx_Finalize(NULL, 0) != PMIX_SUCCESS)
        return 4;
    double t_fin = fh_now_us() - t0;
    char line[1400], lib[1024];
    fh_libpmix(lib, sizeof lib);
    int len = snprintf(line, sizeof line, "%u %.1f %.1f %.1f %.1f %s\n", me.rank, t_init, t_job,
                       t_proc, t_fin, lib);
    return write(fd, line, (size_t)len) == len ? 0 : 5;
}

/* ---------------- host ---------------- */
static const char *client_prog; /* -c, or NULL: this program */
static char client_lib[1024];   /* the libpmix the clients reported */

/* One launch of n clients; fills the per-launch figures. */
static int launch(unsigned n, int run, long gets, double out[5])
{
    char nspace[64];
    snprintf(nspace, sizeof nspace, "bench-%u-%d", n, run);
    double t0 = fh_now_us();
    if (fh_register_job(nspace, n) != PMIX_SUCCESS)
        return -1;
    int pfd[2];
    if (pipe(pfd) != 0)
        return -1;
    char nbuf[16], gbuf[32], fdbuf[16];
    snprintf(nbuf, sizeof nbuf, "%u", n);
    snprintf(gbuf, sizeof gbuf, "%ld", gets);
    snprintf(fdbuf, sizeof fdbuf, "%d", pfd[1]);
    char *args[] = {"client", fdbuf, gbuf, nbuf, NULL};
    fh_barrier_t b;
    pid_t pids[1024];
    if (fh_start_job_prog(client_prog, nspace, n, args, &b, pids) != 0)
        return -1;
    close(pfd[1]);
    /* Two barriers: after Init, and before Finalize. */
    for (int phase = 0; phase < 2; phase++) {
        int got = fh_barrier_gather(&b, n, -1);
        if (got <= 0 || fh_barrier_release(&b, (unsigned)got) != 0)
            break;
    }
    fh_barrier_close(&b);
    int failed = 0;
    for (unsigned r = 0; r < n; r++) {
        int st;
        waitpid(pids[r], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "client %u failed (status %d)\n", r, WEXITSTATUS(st));
            failed = 1;
        }
    }
    double total = fh_now_us() - t0;
    FILE *f = fdopen(pfd[0], "r");
    double init_max = 0, job_sum = 0, proc_sum = 0, fin_max = 0;
    unsigned lines = 0, rank;
    double a, b1, c, d;
    char lib[1024];
    while (f != NULL && fscanf(f, "%u %lf %lf %lf %lf %1023s", &rank, &a, &b1, &c, &d, lib) == 6) {
        if (client_lib[0] == '\0')
            snprintf(client_lib, sizeof client_lib, "%s", lib);
        else if (strcmp(lib, client_lib) != 0) {
            fprintf(stderr, "launch: clients on %s and %s\n", client_lib, lib);
            failed = 1;
        }
        init_max = a > init_max ? a : init_max;
        job_sum += b1;
        proc_sum += c;
        fin_max = d > fin_max ? d : fin_max;
        lines++;
    }
    if (f != NULL)
        fclose(f);
    fh_deregister_job(nspace, n);
    if (failed || lines != n)
        return -1;
    out[0] = init_max;
    out[1] = job_sum / n;
    out[2] = proc_sum / n;
    out[3] = fin_max;
    out[4] = total;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "client") == 0) {
        int rc = client(atoi(argv[2]), atol(argv[3]), (uint32_t)atoi(argv[4]), argv[5]);
        if (rc != 0)
            fprintf(stderr, "launch client: failed at step %d\n", rc);
        return rc;
    }
    const char *sizes = "1 2 4 8";
    int reps = 5;
    long gets = 20000;
    int opt;
    bool libs = false;
    while ((opt = getopt(argc, argv, "n:r:g:c:l")) != -1) {
        if (opt == 'n')
            sizes = optarg;
        else if (opt == 'r')
            reps = atoi(optarg);
        else if (opt == 'g')
            gets = atol(optarg);
        else if (opt == 'c')
            client_prog = optarg;
        else if (opt == 'l')
            libs = true;
    }
    if (reps < 1 || reps > 100 || gets < 1)
        return 2;
    char tmpdir[] = "/tmp/sy-bench-XXXXXX";
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    if (fh_server_init(&module, tmpdir) != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_server_init failed\n");
        return 1;
    }
    int rc = 0;
    char *list = strdup(sizes), *save = NULL;
    for (char *tok = strtok_r(list, " ,", &save); tok != NULL && rc == 0;
         tok = strtok_r(NULL, " ,", &save)) {
        unsigned n = (unsigned)atoi(tok);
        if (n < 1 || n > 1024)
            continue;
        double fig[5][100];
        for (int run = 0; run < reps && rc == 0; run++) {
            double out[5];
            if (launch(n, run, gets, out) != 0) {
                fprintf(stderr, "launch of %u clients failed\n", n);
                rc = 1;
                break;
            }
            for (int i = 0; i < 5; i++)
                fig[i][run] = out[i];
        }
        if (rc == 0 && libs) {
            char server_lib[1024];
            fh_libpmix(server_lib, sizeof server_lib);
            printf("lib server %s\nlib client %s\n", server_lib, client_lib);
            libs = false;
        }
        if (rc == 0)
            printf("%u %.1f %.1f %.1f %.1f %.1f\n", n, fh_median(fig[0], reps),
                   fh_median(fig[1], reps), fh_median(fig[2], reps), fh_median(fig[3], reps),
                   fh_median(fig[4], reps));
        fflush(stdout);
    }
    free(list);
    fh_server_finalize(tmpdir);
    return rc;
}
