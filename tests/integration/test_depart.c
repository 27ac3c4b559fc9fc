/* Collectives whose participant leaves: Fence, Connect, Disconnect and
 * Group_construct over three local ranks (and, with "remote", a fourth
 * rank on another node that the host stands for), where rank 2 calls
 * PMIx_Finalize or is killed, before the others start the collective or
 * while they wait in it.  The operation must end for ranks 0 and 1 with
 * no PMIX_TIMEOUT given; the status they get is printed, and checked
 * against the expected one by depart.sh.
 *
 * Standard API only, like forkhost.h: the same file also builds against
 * OpenPMIx 4.2.2 (bench/depart-compare.sh) to see what it answers.
 *
 *   test_depart OP HOW [remote]
 *     OP:  fence | connect | disconnect | group
 *     HOW: finalize-before | finalize-during | kill-before | kill-during:
 *          rank 2 leaves before the others start, or while they wait;
 *          join-finalize | join-kill: rank 2 starts the operation too,
 *          then leaves before the others start; none: nobody leaves
 * Output (stdout), one line per remaining rank and one of the host's:
 *   rank R: OP -> STATUS
 *   host: local-status STATUS     (remote: what the host's upcall got as
 *                                  PMIX_LOCAL_COLLECTIVE_STATUS)
 * Exit status 0 when every remaining rank returned from the operation
 * (whatever the status), 1 when one did not within 60 s. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "forkhost.h"

#define NLOCAL 3
#define LEAVER 2

static const char *op, *how;
static bool remote;

/* ---------------- client ---------------- */

static pmix_proc_t me;

static void op_done(pmix_status_t status, void *cbdata)
{
    fh_op_cb(status, cbdata);
}

static void group_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                       pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)info;
    (void)ninfo;
    fh_op_cb(status, cbdata);
    if (release_fn != NULL)
        release_fn(release_cbdata);
}

/* Start the operation over the whole job (or its members). */
static pmix_status_t start_op(fh_waiter_t *w)
{
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    if (strcmp(op, "fence") == 0) {
        pmix_info_t info;
        bool yes = true;
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        pmix_status_t rc = PMIx_Fence_nb(&all, 1, &info, 1, op_done, w);
        PMIX_INFO_DESTRUCT(&info);
        return rc;
    }
    if (strcmp(op, "connect") == 0)
        return PMIx_Connect_nb(&all, 1, NULL, 0, op_done, w);
    if (strcmp(op, "disconnect") == 0)
        return PMIx_Disconnect_nb(&all, 1, NULL, 0, op_done, w);
    unsigned n = NLOCAL + (remote ? 1 : 0);
    pmix_proc_t members[NLOCAL + 1];
    for (unsigned r = 0; r < n; r++)
        PMIX_LOAD_PROCID(&members[r], me.nspace, r);
    return PMIx_Group_construct_nb("departgrp", members, n, NULL, 0, group_done, w);
}

static int client(const char *barg)
{
    fh_step_t step;
    if (fh_step_parse(barg, &step) != 0)
        return 2;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, "x", PMIX_STRING);
    PMIx_Put(PMIX_GLOBAL, "depart.key", &v);
    PMIX_VALUE_DESTRUCT(&v);
    PMIx_Commit();
    if (strcmp(op, "disconnect") == 0) {
        /* a disconnect undoes a connect: everyone connects first */
        pmix_proc_t all;
        PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
        rc = PMIx_Connect(&all, 1, NULL, 0);
        if (rc != PMIX_SUCCESS)
            fprintf(stderr, "rank %u: the first connect: %s\n", me.rank, PMIx_Error_string(rc));
    }
    fh_step(&step); /* 1: everyone is connected */
    bool before = strstr(how, "before") != NULL || strncmp(how, "join", 4) == 0;
    bool kill_it = strstr(how, "kill") != NULL;
    bool none = strcmp(how, "none") == 0;
    fh_waiter_t w = FH_WAITER;
    if (me.rank == LEAVER && !none) {
        if (!before)
            fh_step(&step); /* 2: the others started the operation */
        if (strncmp(how, "join", 4) == 0) {
            /* in the operation first (the request reaches the server
             * before what follows on the same connection) */
            start_op(&w);
            usleep(300000);
        }
        if (kill_it)
            raise(SIGKILL);
        PMIx_Finalize(NULL, 0);
        if (before)
            fh_step(&step); /* 2: the others may start now */
        return 0;
    }
    if (before)
        fh_step(&step); /* 2: the leaver is gone (or finalized) */
    rc = start_op(&w);
    if (!before)
        fh_step(&step); /* 2 */
    rc = fh_wait(rc, &w);
    printf("rank %u: %s -> %s\n", me.rank, op, PMIx_Error_string(rc));
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}

/* ---------------- host ---------------- */

static atomic_int local_status = 1; /* 1: no upcall */

static void note_local_status(const pmix_info_t info[], size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_LOCAL_COLLECTIVE_STATUS) &&
            info[i].value.type == PMIX_STATUS)
            atomic_store(&local_status, info[i].value.data.status);
    if (atomic_load(&local_status) == 1)
        atomic_store(&local_status, 2); /* called, without the attribute */
}

/* The other node: it contributes nothing and ends the collective with the
 * status this node reported. */
static pmix_status_t host_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                void *cbdata)
{
    (void)procs;
    (void)nprocs;
    note_local_status(info, ninfo);
    int st = atomic_load(&local_status);
    pmix_status_t rc = st <= 0 ? st : PMIX_SUCCESS;
    char *copy = ndata > 0 ? malloc(ndata) : NULL;
    if (copy != NULL)
        memcpy(copy, data, ndata);
    free(data);
    cbfunc(rc, copy, copy != NULL ? ndata : 0, cbdata, free, copy);
    return PMIX_SUCCESS;
}

static pmix_status_t host_connect(const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata)
{
    (void)procs;
    (void)nprocs;
    note_local_status(info, ninfo);
    int st = atomic_load(&local_status);
    cbfunc(st <= 0 ? st : PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t host_group(pmix_group_operation_t gop, char grp[], const pmix_proc_t procs[],
                                size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                                pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)gop;
    (void)grp;
    (void)procs;
    (void)nprocs;
    note_local_status(directives, ndirs);
    int st = atomic_load(&local_status);
    cbfunc(st <= 0 ? st : PMIX_SUCCESS, NULL, 0, cbdata, NULL, NULL);
    return PMIX_SUCCESS;
}

/* Three ranks here and, with remote, rank 3 on "farhost". */
static pmix_status_t register_job(const char *nspace)
{
    if (!remote)
        return fh_register_job(nspace, NLOCAL);
    char host[256] = "", *nodes = NULL, *procs = NULL, list[600];
    gethostname(host, sizeof host - 1);
    snprintf(list, sizeof list, "%s,farhost", host);
    pmix_status_t rc = PMIx_generate_regex(list, &nodes);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_generate_ppn("0,1,2;3", &procs);
    if (rc != PMIX_SUCCESS) {
        free(nodes);
        return rc;
    }
    uint32_t size = NLOCAL + 1, nlocal = NLOCAL, two = 2;
    pmix_info_t info[9 + NLOCAL];
    size_t k = 0;
    PMIX_INFO_LOAD(&info[k++], PMIX_UNIV_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_MAX_PROCS, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_LOCAL_SIZE, &nlocal, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_LOCAL_PEERS, "0,1,2", PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_NODE_MAP, nodes, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_PROC_MAP, procs, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_JOBID, nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_NUM_NODES, &two, PMIX_UINT32);
    free(nodes);
    free(procs);
    for (unsigned r = 0; r < NLOCAL; r++) {
        pmix_info_t pd[4];
        pmix_rank_t rank = r;
        uint16_t lr = (uint16_t)r;
        PMIX_INFO_LOAD(&pd[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&pd[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pd[2], PMIX_NODE_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pd[3], PMIX_HOSTNAME, host, PMIX_STRING);
        pmix_data_array_t da = {.type = PMIX_INFO, .size = 4, .array = pd};
        PMIX_INFO_LOAD(&info[k++], PMIX_PROC_DATA, &da, PMIX_DATA_ARRAY);
        for (int i = 0; i < 4; i++)
            PMIX_INFO_DESTRUCT(&pd[i]);
    }
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace);
    fh_waiter_t w = FH_WAITER;
    rc = fh_wait(PMIx_server_register_nspace(ns, NLOCAL, info, k, fh_op_cb, &w), &w);
    for (size_t i = 0; i < k; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    for (unsigned r = 0; rc == PMIX_SUCCESS && r < NLOCAL; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, nspace, r);
        fh_waiter_t wc = FH_WAITER;
        rc = fh_wait(PMIx_server_register_client(&p, getuid(), getgid(), NULL, fh_op_cb, &wc), &wc);
    }
    return rc;
}

static int host(void)
{
    const char *t = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/sy-depart.XXXXXX", t != NULL && *t == '/' ? t : "/tmp");
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    module.fence_nb = host_fence;
    module.connect = host_connect;
    module.disconnect = host_connect;
    module.group = host_group;
    if (fh_server_init(&module, tmpl) != PMIX_SUCCESS) {
        fprintf(stderr, "host: PMIx_server_init failed\n");
        return 2;
    }
    const char *nspace = "depart";
    int code = 0;
    if (register_job(nspace) != PMIX_SUCCESS) {
        fprintf(stderr, "host: cannot register the job\n");
        fh_server_finalize(tmpl);
        return 2;
    }
    char *args[] = {"client", (char *)op, (char *)how, remote ? "remote" : "local", NULL};
    fh_barrier_t b;
    pid_t pids[NLOCAL];
    if (fh_start_job(nspace, NLOCAL, args, &b, pids) != 0) {
        fprintf(stderr, "host: cannot start the clients\n");
        code = 2;
    }
    bool before = strstr(how, "before") != NULL || strncmp(how, "join", 4) == 0;
    bool kill_it = strstr(how, "kill") != NULL;
    /* 1: everyone connected */
    if (code == 0 && fh_barrier_gather(&b, NLOCAL, 30000) == NLOCAL)
        fh_barrier_release(&b, NLOCAL);
    else
        code = 1;
    if (code == 0) {
        /* 2: before: the leaver is gone first; during: the others have
         * started and the leaver goes */
        unsigned n2 = (before && kill_it) ? NLOCAL - 1 : NLOCAL;
        if (before && kill_it) {
            int st;
            waitpid(pids[LEAVER], &st, 0);
            pids[LEAVER] = -1;
        }
        if (fh_barrier_gather(&b, n2, 30000) == (int)n2)
            fh_barrier_release(&b, n2);
        else
            code = 1;
    }
    /* the remaining ranks end (or hang: killed after 60 s) */
    for (int waited = 0; code != 2 && waited < 600; waited++) {
        bool left = false;
        for (unsigned r = 0; r < NLOCAL; r++) {
            if (pids[r] <= 0)
                continue;
            int st;
            if (waitpid(pids[r], &st, WNOHANG) == pids[r])
                pids[r] = -1;
            else
                left = true;
        }
        if (!left)
            break;
        usleep(100000);
    }
    for (unsigned r = 0; r < NLOCAL; r++) {
        if (pids[r] > 0) {
            printf("rank %u: %s -> HANG\n", r, op);
            kill(pids[r], SIGKILL);
            waitpid(pids[r], NULL, 0);
            code = 1;
        }
    }
    int st = atomic_load(&local_status);
    printf("host: local-status %s\n", st == 1   ? "none"
                                      : st == 2 ? "absent"
                                                : PMIx_Error_string(st));
    fh_barrier_close(&b);
    fh_server_finalize(tmpl);
    return code;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 6 && strcmp(argv[1], "client") == 0) {
        op = argv[2];
        how = argv[3];
        remote = strcmp(argv[4], "remote") == 0;
        return client(argv[5]);
    }
    if (argc < 3) {
        fprintf(stderr, "usage: %s fence|connect|disconnect|group HOW [remote]\n", argv[0]);
        return 2;
    }
    op = argv[1];
    how = argv[2];
    remote = argc > 3 && strcmp(argv[3], "remote") == 0;
    return host();
}
