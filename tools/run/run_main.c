/* switchyard-run: start the job, forward its output, wait for it, and exit
 * with its status (docs/launcher.md).  Starting each process: run_launch.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>
#include <switchyard.h>

#include "run.h"

static int wake_pipe[2] = {-1, -1};
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    int saved = errno;
    if (sig != SIGCHLD)
        got_signal = sig;
    char c = (char)sig;
    if (write(wake_pipe[1], &c, 1) < 0) {
        /* the pipe is full: a wake-up is pending anyway */
    }
    errno = saved;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The launcher starts stopping the job: the end is explained (by the
 * caller) and nothing that dies from now on is a failure of its own. */
static void set_failing(run_job_t *job)
{
    run_host_lock();
    job->failing = true;
    run_host_unlock();
}

/* Stop the job and what it spawned: SIGTERM now, SIGKILL 2 s later. */
static void stop_all(run_job_t *job, double *kill_at)
{
    set_failing(job);
    run_kill_all(job, SIGTERM);
    run_spawn_kill_all(SIGTERM);
    *kill_at = now_s() + 2.0;
}

/* Reap what exited; the first failure (or our kill) stops the rest. */
static void reap(run_job_t *job, double *term_at, double *kill_at)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        /* a traced child stopped at its exec (PMIX_DEBUG_STOP_ON_EXEC) */
        if (WIFSTOPPED(status)) {
            run_debug_exec_stopped(pid);
            continue;
        }
        bool child_failed = false;
        if (run_spawn_reaped(pid, status, &child_failed)) {
            /* a system server alone outlives the jobs it spawned */
            if (child_failed && !job->failing && job->nprocs > 0) {
                set_failing(job);
                job->spawn_status = status;
                *term_at = now_s();
                *kill_at = *term_at + 2.0;
            }
            continue;
        }
        for (unsigned r = 0; r < job->nprocs; r++) {
            run_proc_t *p = &job->procs[r];
            if (p->pid != pid || p->exited)
                continue;
            /* under the host lock: job control (run_ops.c) reads exited
             * from the server's thread */
            run_host_lock();
            p->exited = true;
            p->status = status;
            job->nexited++;
            run_host_unlock();
            pmix_proc_t who;
            PMIX_LOAD_PROCID(&who, job->nspace, p->rank);
            run_pubsub_proc_gone(&who);
            bool bad = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
            run_host_lock();
            /* unless the job's end is explained by something else: then
             * this process went in reaction, or was stopped by us */
            bool own = !job->failing && !job->aborted &&
                       (job->first_failed < 0 || job->first_failed == (int)r);
            /* connected, then gone without PMIx_Finalize: as mpirun, a
             * failure even with status 0 (its peers may wait for it) */
            if (own && p->connected && !p->finalized)
                bad = true;
            if (own && bad)
                job->first_failed = (int)r;
            bool tell = bad && !job->failing;
            if (bad)
                job->failing = true;
            run_host_unlock();
            if (tell) {
                /* Tell the others first (PMIX_PROC_TERMINATED, then
                 * PMIX_ERR_PROC_ABORTED about the failed rank, to its
                 * namespace), give their handlers a moment, then stop the
                 * job as mpirun does. */
                pmix_info_t info[2];
                int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &who, PMIX_PROC);
                PMIX_INFO_LOAD(&info[1], PMIX_EXIT_CODE, &code, PMIX_INT);
                PMIx_Notify_event(PMIX_PROC_TERMINATED, &who, PMIX_RANGE_NAMESPACE, info, 2, NULL,
                                  NULL);
                PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, &who, PMIX_RANGE_NAMESPACE, info, 2, NULL,
                                  NULL);
                PMIX_INFO_DESTRUCT(&info[0]);
                PMIX_INFO_DESTRUCT(&info[1]);
                *term_at = now_s() + 0.5;
                *kill_at = *term_at + 2.0;
            }
        }
    }
}

static int report(run_job_t *job, bool timed_out)
{
    int code = 0;
    run_host_lock();
    if (job->aborted) {
        fprintf(stderr, "switchyard-run: rank %u called PMIx_Abort with status %d%s%s\n",
                job->abort_rank, job->abort_status, job->abort_msg ? ": " : "",
                job->abort_msg ? job->abort_msg : "");
        /* an abort in reaction to an earlier failure does not explain it */
        if (!job->abort_late)
            code = (job->abort_status & 0xff) != 0 ? job->abort_status & 0xff : 1;
    }
    if (timed_out) {
        fprintf(stderr, "switchyard-run: the job did not finish within %g s and was killed\n",
                job->opts->timeout);
        code = code ? code : 124;
    }
    /* SIGTERM/SIGINT is how a system server alone is stopped: no failure */
    if (got_signal != 0 && got_signal != SIGCHLD && job->nprocs > 0) {
        fprintf(stderr, "switchyard-run: interrupted by signal %d; the job was killed\n",
                (int)got_signal);
        code = code ? code : 128 + got_signal;
    }
    /* The first process that failed on its own explains the job's end; the
     * others were stopped by us. */
    if (code == 0 && job->first_failed >= 0) {
        run_proc_t *p = &job->procs[job->first_failed];
        const char *prog = job->opts->apps[p->app].argv[0];
        bool no_finalize = p->connected && !p->finalized;
        if (WIFEXITED(p->status) && WEXITSTATUS(p->status) != 0) {
            fprintf(stderr, "switchyard-run: rank %u (%s, pid %ld) exited with status %d%s\n",
                    p->rank, prog, (long)p->pid, WEXITSTATUS(p->status),
                    no_finalize ? " without calling PMIx_Finalize" : "");
            code = WEXITSTATUS(p->status);
        } else if (WIFSIGNALED(p->status)) {
            fprintf(stderr, "switchyard-run: rank %u (%s, pid %ld) was killed by signal %d (%s)\n",
                    p->rank, prog, (long)p->pid, WTERMSIG(p->status),
                    strsignal(WTERMSIG(p->status)));
            code = 128 + WTERMSIG(p->status);
        } else if (no_finalize) {
            fprintf(stderr,
                    "switchyard-run: rank %u (%s, pid %ld) exited with status 0 without calling "
                    "PMIx_Finalize\n",
                    p->rank, prog, (long)p->pid);
            code = 1;
        }
    }
    run_host_unlock();
    /* a spawned process that failed first (run_spawn.c said which) */
    if (code == 0 && job->spawn_status != 0)
        code = WIFEXITED(job->spawn_status) ? WEXITSTATUS(job->spawn_status)
                                            : 128 + WTERMSIG(job->spawn_status);
    return code;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

int main(int argc, char **argv)
{
    char *session_dir = NULL;
    run_opts_t opts;
    int prc = run_parse(argc, argv, &opts);
    if (prc != 0) {
        run_opts_free(&opts);
        return prc == 2 ? 0 : 2;
    }
    run_job_t job = {.opts = &opts, .first_failed = -1};
    for (unsigned a = 0; a < opts.napps; a++)
        job.nprocs += opts.apps[a].np;
    job.procs = calloc(job.nprocs > 0 ? job.nprocs : 1, sizeof(*job.procs));
    if (job.procs == NULL)
        return 1;
    for (unsigned a = 0, r = 0; a < opts.napps; a++)
        for (unsigned k = 0; k < opts.apps[a].np; k++, r++)
            job.procs[r] = (run_proc_t){.rank = r,
                                        .app = a,
                                        .app_rank = k,
                                        .out_fd = -1,
                                        .exec_fd = -1,
                                        .stdin_fd = -1,
                                        .err_fd = -1,
                                        .out_file = -1,
                                        .err_file = -1};
    if (gethostname(job.hostname, sizeof(job.hostname) - 1) != 0)
        snprintf(job.hostname, sizeof(job.hostname), "localhost");
    snprintf(job.nspace, sizeof(job.nspace), "switchyard.%ld.1", (long)getpid());

    int code = 1;
    bool server_up = false, registered = false;
    /* Cores and packages are all we place on: no I/O discovery (slow, and
     * hwloc's PCI plugin leaks a little each time it runs). */
    /* ... nor hwloc's plugins: they are for I/O devices (pci, opencl, gl)
     * and libxml2's XML reader (hwloc has its own); loading them and what
     * they link (ICU, X11, OpenCL) was a third of the launcher's start.
     * hwloc reads the list once, when it loads its components (the first
     * topology init); the ranks must not inherit it, their MPI wants the
     * devices. */
    bool own_blacklist = getenv("HWLOC_PLUGINS_BLACKLIST") == NULL;
    if (own_blacklist)
        setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_xml_libxml", 0);
    int topo_rc = hwloc_topology_init(&job.topo);
    if (own_blacklist)
        unsetenv("HWLOC_PLUGINS_BLACKLIST");
    if (topo_rc != 0 ||
        hwloc_topology_set_io_types_filter(job.topo, HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_load(job.topo) != 0) {
        fprintf(stderr, "switchyard-run: hwloc cannot read this machine's topology\n");
        goto out;
    }
    if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        goto out;
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGCHLD, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* our session directory (PMIX_TMPDIR/NSDIR/PROCDIR), also the server's
     * tmpdir; removed, with whatever the job left in it, at the end */
    const char *tmpdir = getenv("TMPDIR");
    if (asprintf(&session_dir, "%s/switchyard-run.%ld.XXXXXX",
                 tmpdir != NULL && *tmpdir == '/' ? tmpdir : "/tmp", (long)getpid()) < 0 ||
        mkdtemp(session_dir) == NULL) {
        fprintf(stderr, "switchyard-run: cannot create a session directory: %s\n", strerror(errno));
        free(session_dir);
        session_dir = NULL;
        goto out;
    }
    job.session_dir = session_dir;

    pmix_server_module_t module;
    run_host_module(&module, &job);
    run_spawn_module(&module, wake_pipe[1]);
    run_tool_module(&module, &job, wake_pipe[1]);
    run_debug_module(&module, &job);
    pmix_info_t sinfo[10];
    char srv_ns[PMIX_MAX_NSLEN + 1];
    snprintf(srv_ns, sizeof(srv_ns), "switchyard-run.%ld", (long)getpid());
    /* started by a tool: the identity it gave us, which it looks us up by */
    const char *given_ns = run_il_server_nspace();
    if (given_ns != NULL)
        snprintf(srv_ns, sizeof(srv_ns), "%s", given_ns);
    PMIX_INFO_LOAD(&sinfo[0], PMIX_SERVER_NSPACE, srv_ns, PMIX_STRING);
    PMIX_INFO_LOAD(&sinfo[1], PMIX_HOSTNAME, job.hostname, PMIX_STRING);
    PMIX_INFO_LOAD(&sinfo[2], PMIX_SERVER_TMPDIR, session_dir, PMIX_STRING);
    /* tools may attach while the job runs (rendezvous files in $TMPDIR) */
    PMIX_INFO_LOAD(&sinfo[3], PMIX_SERVER_TOOL_SUPPORT, NULL, PMIX_BOOL);
    /* MPICH's ranks speak PMI-1 over PMI_FD (docs/pmi.md) */
    bool pmi_wire = true;
    PMIX_INFO_LOAD(&sinfo[4], SWITCHYARD_SERVER_PMI, &pmi_wire, PMIX_BOOL);
    /* heartbeats (PMIx_Process_monitor, PMIx_Heartbeat): the library's */
    PMIX_INFO_LOAD(&sinfo[5], PMIX_SERVER_ENABLE_MONITORING, NULL, PMIX_BOOL);
    size_t nsinfo = 6;
    /* --system: pmix.sys.<host>, written safely by the library, which
     * refuses to start beside a live system server */
    if (opts.system)
        PMIX_INFO_LOAD(&sinfo[nsinfo++], PMIX_SERVER_SYSTEM_SUPPORT, NULL, PMIX_BOOL);
    nsinfo += run_fabric_server_info(&opts, &sinfo[nsinfo]);
    /* The server uses the topology loaded above (lent, not copied: it is
     * destroyed after PMIx_server_finalize) instead of loading its own; on
     * a busy machine a load costs up to a second, hwloc's x86 backend
     * binding the thread to each CPU in turn. */
    pmix_topology_t lent = {.source = "hwloc", .topology = job.topo};
    PMIX_INFO_CONSTRUCT(&sinfo[nsinfo]);
    PMIX_LOAD_KEY(sinfo[nsinfo].key, PMIX_TOPOLOGY2);
    sinfo[nsinfo].value.type = PMIX_TOPO;
    sinfo[nsinfo].value.data.topo = &lent;
    pmix_status_t rc = PMIx_server_init(&module, sinfo, nsinfo + 1);
    for (size_t i = 0; i < nsinfo; i++) /* not the lent topology */
        PMIX_INFO_DESTRUCT(&sinfo[i]);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "switchyard-run: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        goto out;
    }
    server_up = true;
    /* after the server has the topology: placing asks it for locality
     * strings */
    if (run_place(&job) != 0)
        goto out;
    if (run_tool_register_attrs() != 0 || run_debug_init() != 0)
        goto out;
    run_host_watch_losses();
    /* started by a tool: held until it releases us, answering tools (it
     * attaches to us meanwhile); then its directives apply to the job */
    if (run_il_start(wake_pipe[1]) != 0)
        goto out;
    while (run_il_holding() && got_signal == 0) {
        run_iof_poll(&job, wake_pipe[0], 100);
        run_tool_service();
        char drain[64];
        while (read(wake_pipe[0], drain, sizeof(drain)) > 0)
            ;
    }
    if (got_signal != 0 || run_il_released(&job) != 0)
        goto out;
    /* a system server alone has no job of its own to register */
    if (job.nprocs > 0 && run_register(&job) != 0)
        goto out;
    registered = job.nprocs > 0;
    if (run_fabric_setup(&job) != 0)
        goto out;
    if (run_iof_setup(&job) != 0)
        goto out;

    bool timed_out = false;
    double term_at = 0, kill_at = 0, deadline = opts.timeout > 0 ? now_s() + opts.timeout : 0;
    /* Start every rank, then read each one's exec status (a rank traced
     * for PMIX_DEBUG_STOP_ON_EXEC is forked and may not have exec'd yet). */
    unsigned launched = 0;
    int launch_errno = 0;
    while (launched < job.nprocs && got_signal == 0) {
        if (run_launch(&job, &job.procs[launched]) != 0) {
            launch_errno = errno;
            break;
        }
        launched++;
    }
    int failed_rank = -1, failed_errno = 0;
    for (unsigned r = 0; r < launched; r++) {
        if (run_launched(&job, &job.procs[r]) == 0)
            continue;
        /* reaped already: it never ran its program */
        job.procs[r].exited = true;
        job.procs[r].status = 127 << 8;
        job.nexited++;
        if (failed_rank < 0) {
            failed_rank = (int)r;
            failed_errno = errno;
        }
    }
    if (failed_rank < 0 && launched < job.nprocs && got_signal == 0) {
        failed_rank = (int)launched; /* fork failed */
        failed_errno = launch_errno;
    }
    if (failed_rank >= 0) {
        fprintf(stderr, "switchyard-run: cannot start %s (rank %d): %s\n",
                opts.apps[job.procs[failed_rank].app].argv[0], failed_rank, strerror(failed_errno));
        run_host_lock();
        if (job.first_failed < 0)
            job.first_failed = failed_rank;
        run_host_unlock();
        stop_all(&job, &kill_at);
    } else if (launched < job.nprocs) {
        /* a signal stopped the launch: the ranks not started never run */
        stop_all(&job, &kill_at);
    } else {
        run_il_launched(&job);
    }
    /* the ranks never started count as exited */
    for (unsigned k = launched; k < job.nprocs; k++) {
        job.procs[k].exited = true;
        job.procs[k].status = failed_rank >= 0 ? 127 << 8 : (128 + got_signal) << 8;
        job.nexited++;
    }
    /* a system server with no job serves until it is told to stop */
    while (job.nexited < job.nprocs || run_spawn_active() || (job.nprocs == 0 && got_signal == 0)) {
        run_iof_poll(&job, wake_pipe[0], run_spawn_launching() ? 0 : 100);
        run_spawn_service(&job);
        run_tool_service();
        char drain[64];
        while (read(wake_pipe[0], drain, sizeof(drain)) > 0)
            ;
        reap(&job, &term_at, &kill_at);
        run_pubsub_tick();
        run_ops_tick();
        double t = now_s();
        run_host_lock();
        bool aborted = job.aborted;
        double extra = job.extra_time;
        run_host_unlock();
        if ((got_signal != 0 || aborted || run_il_parent_gone()) && !job.failing)
            stop_all(&job, &kill_at);
        if (deadline > 0 && t > deadline + extra && !job.failing) {
            timed_out = true;
            stop_all(&job, &kill_at);
        }
        if (job.failing && term_at > 0 && t > term_at) {
            run_kill_all(&job, SIGTERM);
            run_spawn_kill_all(SIGTERM);
            term_at = 0;
        }
        if (job.failing && kill_at > 0 && t > kill_at) {
            run_kill_all(&job, SIGKILL);
            run_spawn_kill_all(SIGKILL);
            kill_at = 0;
        }
    }
    run_iof_drain(&job);
    code = report(&job, timed_out);
    run_il_ended(&job, code);
out:
    run_il_finish();
    run_iof_close(&job);
    run_tool_finish();
    run_debug_finish(); /* before the jobs it looks at go */
    run_spawn_finish();
    run_pubsub_free();
    run_ops_cleanup();
    run_alloc_free();
    if (registered)
        run_deregister(&job);
    if (server_up)
        PMIx_server_finalize();
    if (session_dir != NULL) {
        nftw(session_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(session_dir);
    }
    for (unsigned r = 0; r < job.nprocs; r++) {
        if (job.procs[r].cpuset != NULL)
            hwloc_bitmap_free(job.procs[r].cpuset);
        free(job.procs[r].locality);
        free(job.procs[r].cpuset_str);
    }
    free(job.procs);
    free(job.abort_msg);
    if (job.topo != NULL)
        hwloc_topology_destroy(job.topo);
    if (wake_pipe[0] >= 0) {
        close(wake_pipe[0]);
        close(wake_pipe[1]);
    }
    /* the launch directives of the tool that started us (run_il.c) */
    run_debug_free(opts.debug);
    run_opts_free(&opts);
    return code;
}
