/* switchyard-run: start the job, forward its output, wait for it, and exit
 * with its status (docs/launcher.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>
#include <switchyard.h>

#include "run.h"

extern char **environ;

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

/* Put "NAME=value" into a malloc'd environment; an existing NAME is kept
 * unless overwrite.  false when out of memory. */
static bool env_put(char ***envp, const char *entry, bool overwrite)
{
    char **env = *envp;
    size_t nl = (size_t)(strchr(entry, '=') - entry);
    size_t i = 0;
    for (; env[i] != NULL; i++)
        if (strncmp(env[i], entry, nl) == 0 && env[i][nl] == '=')
            break;
    if (env[i] != NULL && !overwrite)
        return true;
    char *copy = strdup(entry);
    if (copy == NULL)
        return false;
    if (env[i] == NULL) {
        char **g = realloc(env, (i + 2) * sizeof(char *));
        if (g == NULL) {
            free(copy);
            return false;
        }
        *envp = env = g;
        env[i + 1] = NULL;
    } else {
        free(env[i]);
    }
    env[i] = copy;
    return true;
}

static char **build_env(run_job_t *job, const run_proc_t *p)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **env = calloc(n + 1, sizeof(char *));
    if (env == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        env[i] = strdup(environ[i]);
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, job->nspace, p->rank);
    bool ok = PMIx_server_setup_fork(&proc, &env) == PMIX_SUCCESS;
    /* Open MPI 4.1 takes a process that no mpirun started for a singleton
     * unless a launcher it knows (Slurm, jsrun, Flux) says otherwise;
     * without its ORTE detector its ranks use the PMIx server they were
     * given, as under srun.  The user's own setting wins. */
    ok = ok && env_put(&env, "OMPI_MCA_schizo=^orte", false);
    /* -x / --env last, so the user has the final word */
    for (size_t k = 0; ok && k < job->opts->nenv; k++)
        ok = env_put(&env, job->opts->env[k], true);
    char **app_env = job->opts->apps[p->app].env;
    for (size_t k = 0; ok && app_env != NULL && app_env[k] != NULL; k++)
        ok = env_put(&env, app_env[k], true);
    if (!ok) {
        for (size_t i = 0; env[i] != NULL; i++)
            free(env[i]);
        free(env);
        return NULL;
    }
    return env;
}

/* The descriptor the server made for the child's PMI (PMI_FD), which
 * this process closes once the child has it; -1 when none. */
static int env_pmi_fd(char **env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], "PMI_FD=", 7) == 0)
            return atoi(env[i] + 7);
    return -1;
}

static void free_env(char **env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
}

int run_launch(run_job_t *job, run_proc_t *p)
{
    run_app_t *app = &job->opts->apps[p->app];
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(err, O_CLOEXEC) != 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    /* --stdin tools: rank 0 reads what tools push (run_tool.c) */
    int in[2] = {-1, -1};
    bool tools_in = p->rank == 0 && !job->spawned && job->opts->stdin_mode == RUN_STDIN_TOOLS;
    /* exec status: a successful exec closes it, a failure writes errno */
    int ex[2] = {-1, -1};
    char **env = build_env(job, p);
    int pmi_fd = env_pmi_fd(env);
    if (env == NULL || (tools_in && pipe2(in, O_CLOEXEC) != 0) || pipe2(ex, O_CLOEXEC) != 0) {
        if (in[0] >= 0) {
            close(in[0]);
            close(in[1]);
        }
        free_env(env);
        if (pmi_fd >= 0)
            close(pmi_fd);
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
        return -1;
    }
    const char *wdir = app->wdir ? app->wdir : job->opts->wdir;
    /* The child dies with the thread that forks it (PR_SET_PDEATHSIG is
     * tied to that thread, not to the process): ranks are started from the
     * main thread only, which lives as long as the launcher. */
    pid_t launcher = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* a rank never outlives its launcher, even one killed with
         * SIGKILL; a launcher that died before this line is seen by
         * getppid (the child was reparented) */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != launcher)
            _exit(127);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGCHLD, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        /* a session, hence a process group, of its own: stopping a rank
         * stops what it started too (a shell's children would otherwise
         * keep running and hold its output pipes open).  A session rather
         * than only a group, as mpiexec.hydra does: with the kernel's
         * autogroup scheduling a rank left in the caller's session shares
         * one CPU share with everything else started from that terminal
         * (an MPICH job ran 3x slower than under hydra on a busy machine
         * for that alone). */
        if (setsid() < 0)
            setpgid(0, 0);
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        if (in[0] >= 0) {
            dup2(in[0], STDIN_FILENO);
        } else if (p->rank != 0 || job->opts->stdin_mode == RUN_STDIN_NONE) {
            int devnull = open("/dev/null", O_RDONLY);
            if (devnull >= 0)
                dup2(devnull, STDIN_FILENO);
        }
        close(ex[0]);
        int e = 0;
        if (wdir != NULL && chdir(wdir) != 0) {
            e = errno;
            fprintf(stderr, "switchyard-run: rank %u: cannot enter %s: %s\n", p->rank, wdir,
                    strerror(e));
        } else {
            if (p->cpuset != NULL)
                hwloc_set_cpubind(job->topo, p->cpuset, HWLOC_CPUBIND_PROCESS);
            environ = env;
            /* PMIX_DEBUG_STOP_ON_EXEC: traced, so the exec stops it
             * (run_debug_exec_stopped); the debugger releases it */
            if (run_debug_stop_on_exec(job, p))
                ptrace(PTRACE_TRACEME, 0, NULL, NULL);
            execvp(app->argv[0], app->argv);
            e = errno;
        }
        if (write(ex[1], &e, sizeof(e)) < 0) {
            /* the launcher then sees the exit status only */
        }
        _exit(127);
    }
    free_env(env);
    if (pmi_fd >= 0)
        close(pmi_fd);
    close(out[1]);
    close(err[1]);
    close(ex[1]);
    if (in[0] >= 0)
        close(in[0]);
    if (pid < 0) {
        int fork_errno = errno;
        close(ex[0]);
        close(out[0]);
        close(err[0]);
        if (in[1] >= 0)
            close(in[1]);
        p->pid = 0;
        errno = fork_errno;
        return -1;
    }
    p->pid = pid;
    p->exec_fd = ex[0];
    p->stdin_fd = in[1];
    p->out_fd = out[0];
    p->err_fd = err[0];
    return 0;
}

int run_launched(run_job_t *job, run_proc_t *p)
{
    run_app_t *app = &job->opts->apps[p->app];
    /* until the child runs its program, or says why it cannot */
    int exec_errno = 0;
    ssize_t n;
    do {
        n = read(p->exec_fd, &exec_errno, sizeof(exec_errno));
    } while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(exec_errno))
        exec_errno = 0;
    else
        while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    close(p->exec_fd);
    p->exec_fd = -1;
    if (exec_errno != 0) {
        close(p->out_fd);
        close(p->err_fd);
        if (p->stdin_fd >= 0)
            close(p->stdin_fd);
        p->out_fd = p->err_fd = p->stdin_fd = -1;
        errno = exec_errno;
        return -1;
    }
    if (p->stdin_fd >= 0) {
        fcntl(p->stdin_fd, F_SETFL, fcntl(p->stdin_fd, F_GETFL) | O_NONBLOCK);
        run_tool_set_stdin(p->stdin_fd);
        p->stdin_fd = -1;
    }
    pid_t pid = p->pid;
    /* also here, should the child not have made its own session: no race
     * with the child's own call (EPERM when it did) */
    setpgid(pid, pid);
    if (job->opts->verbose)
        fprintf(stderr, "switchyard-run: rank %u: pid %ld, %s%s%s\n", p->rank, (long)pid,
                app->argv[0], p->locality ? ", bound to " : "", p->locality ? p->locality : "");
    return 0;
}

int run_start(run_job_t *job, run_proc_t *p)
{
    return run_launch(job, p) != 0 ? -1 : run_launched(job, p);
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
    /* Fork every rank first, then wait for each exec: the children exec
     * side by side instead of one after the other. */
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
    run_opts_free(&opts);
    return code;
}
