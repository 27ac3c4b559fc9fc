/* Starting one process of a job.  Everything the child needs (its
 * environment, descriptors, CPU mask, where to look for its program) is
 * built here, in the launcher, before the child exists; the child is
 * started with vfork() and makes async-signal-safe calls only, then execs.
 *
 * Why vfork: fork() of the launcher (a multi-threaded process with the
 * server library, hwloc and their mappings) copies its page tables and
 * makes both sides take copy-on-write faults until the child execs, about
 * a millisecond and a half per rank on a busy machine; vfork() shares the
 * memory and suspends the forking thread until the exec.  The child then
 * must not touch anything but its own stack and the plan below: no malloc,
 * no locks, no stdio, no setenv (other threads of the launcher keep
 * running).  A rank traced for PMIX_DEBUG_STOP_ON_EXEC is started with
 * fork(), as before: its tracer must see it stop at the exec. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc/glibc-sched.h>
#include <pmix.h>
#include <pmix_server.h>

#include "run.h"

extern char **environ;

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

static void free_env(char **env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
}

static char **build_env(run_job_t *job, const run_proc_t *p)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **env = calloc(n + 1, sizeof(char *));
    if (env == NULL)
        return NULL;
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++)
        ok = (env[i] = strdup(environ[i])) != NULL;
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, job->nspace, p->rank);
    ok = ok && PMIx_server_setup_fork(&proc, &env) == PMIX_SUCCESS;
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
        free_env(env);
        return NULL;
    }
    return env;
}

/* The value of NAME in env, or NULL. */
static const char *env_value(char *const *env, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], name, nl) == 0 && env[i][nl] == '=')
            return env[i] + nl + 1;
    return NULL;
}

/* What the child does, all decided by the launcher. */
typedef struct {
    char *const *argv;
    char *const *envp;
    /* execvp's search: the rank's PATH, NULL when argv[0] holds a '/' */
    const char *path;
    /* "/bin/sh", <slot for the program>, argv[1]...: a program the kernel
     * cannot execute (ENOEXEC) is run as a shell script, as execvp does */
    char **sh_argv;
    const char *wdir; /* NULL: the launcher's */
    int out_fd, err_fd;
    int in_fd;       /* stdin, or -1 */
    bool stdin_null; /* ... else /dev/null when set */
    int status_fd;   /* write end of the exec-status pipe */
    pid_t launcher;
    cpu_set_t *mask; /* NULL: unbound */
    size_t mask_size;
    bool trace;          /* PMIX_DEBUG_STOP_ON_EXEC */
    sigset_t child_mask; /* the launcher's mask before it blocked all */
} child_plan_t;

/* What the exec-status pipe carries when the child cannot run its
 * program; a successful exec closes the pipe with nothing written. */
typedef struct {
    int step; /* CHILD_CHDIR or CHILD_EXEC */
    int err;
} child_failure_t;
enum { CHILD_CHDIR = 1, CHILD_EXEC = 2 };

/* fd onto target, inheritable across exec. */
static void child_move_fd(int fd, int target)
{
    if (fd == target)
        fcntl(fd, F_SETFD, 0);
    else
        dup2(fd, target);
}

/* execve of the program, or of each candidate along PATH as execvp does;
 * returns with errno set when none could be executed. */
static void child_exec(const child_plan_t *c)
{
    const char *file = c->argv[0];
    if (c->path == NULL) {
        execve(file, c->argv, c->envp);
        if (errno == ENOEXEC) {
            c->sh_argv[1] = (char *)file;
            execve("/bin/sh", c->sh_argv, c->envp);
            errno = ENOEXEC;
        }
        return;
    }
    size_t flen = strlen(file);
    if (flen == 0) {
        errno = ENOENT;
        return;
    }
    bool denied = false;
    char buf[PATH_MAX];
    for (const char *dir = c->path;; dir++) {
        const char *end = strchr(dir, ':');
        size_t dlen = end != NULL ? (size_t)(end - dir) : strlen(dir);
        /* an empty entry is the current directory */
        if (dlen == 0)
            buf[0] = '.', dlen = 1;
        else if (dlen < sizeof(buf))
            memcpy(buf, dir, dlen);
        if (dlen + 1 + flen + 1 <= sizeof(buf)) {
            buf[dlen] = '/';
            memcpy(buf + dlen + 1, file, flen + 1);
            execve(buf, c->argv, c->envp);
            switch (errno) {
            case EACCES: denied = true; break;
            case ENOENT:
            case ENOTDIR:
            case ESTALE:
            case ENODEV:
            case ETIMEDOUT:
            case ENAMETOOLONG:
            case ELOOP: break;
            case ENOEXEC:
                c->sh_argv[1] = buf;
                execve("/bin/sh", c->sh_argv, c->envp);
                errno = ENOEXEC;
                return;
            default: return;
            }
        }
        if (end == NULL)
            break;
        dir = end;
    }
    errno = denied ? EACCES : ENOENT;
}

/* The child, between vfork (or fork) and exec: async-signal-safe calls on
 * its own stack only. */
__attribute__((noreturn)) static void child_run(const child_plan_t *c)
{
    /* a rank never outlives its launcher, even one killed with SIGKILL; a
     * launcher that died before this line is seen by getppid (the child
     * was reparented) */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != c->launcher)
        _exit(127);
    /* the launcher's handlers are not the program's (and must not run here,
     * on the launcher's memory): default for each one caught, and SIGPIPE,
     * which the launcher ignores; then the signals blocked for the vfork
     * are let through */
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction sa;
        if (sigaction(sig, NULL, &sa) != 0)
            continue;
        bool caught = (sa.sa_flags & SA_SIGINFO) != 0 ||
                      (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
        if (caught || sig == SIGPIPE) {
            struct sigaction dfl = {.sa_handler = SIG_DFL};
            sigemptyset(&dfl.sa_mask);
            sigaction(sig, &dfl, NULL);
        }
    }
    sigprocmask(SIG_SETMASK, &c->child_mask, NULL);
    /* a session, hence a process group, of its own: stopping a rank stops
     * what it started too (a shell's children would otherwise keep running
     * and hold its output pipes open).  A session rather than only a group,
     * as mpiexec.hydra does: with the kernel's autogroup scheduling a rank
     * left in the caller's session shares one CPU share with everything
     * else started from that terminal (an MPICH job ran 3x slower than
     * under hydra on a busy machine for that alone). */
    if (setsid() < 0)
        setpgid(0, 0);
    child_move_fd(c->out_fd, STDOUT_FILENO);
    child_move_fd(c->err_fd, STDERR_FILENO);
    if (c->in_fd >= 0) {
        child_move_fd(c->in_fd, STDIN_FILENO);
    } else if (c->stdin_null) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0 && devnull != STDIN_FILENO) {
            dup2(devnull, STDIN_FILENO);
            close(devnull);
        }
    }
    child_failure_t f = {.step = CHILD_EXEC};
    if (c->wdir != NULL && chdir(c->wdir) != 0) {
        f.step = CHILD_CHDIR;
    } else {
        if (c->mask != NULL)
            sched_setaffinity(0, c->mask_size, c->mask);
        /* PMIX_DEBUG_STOP_ON_EXEC: traced, so the exec stops it
         * (run_debug_exec_stopped); the debugger releases it */
        if (c->trace)
            ptrace(PTRACE_TRACEME, 0, NULL, NULL);
        child_exec(c);
    }
    f.err = errno;
    if (write(c->status_fd, &f, sizeof(f)) < 0) {
        /* the launcher then sees the exit status only */
    }
    _exit(127);
}

/* vfork (fork when traced) with every signal blocked, so that none is
 * handled by the launcher's handlers in the child; -1 with errno. */
static pid_t start_child(child_plan_t *c)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &c->child_mask);
    pid_t pid;
    if (c->trace)
        pid = fork();
    else
        pid = vfork();
    if (pid == 0)
        child_run(c);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &c->child_mask, NULL);
    errno = e;
    return pid;
}

/* The CPU mask of a bound rank in sched_setaffinity's form, or NULL. */
static cpu_set_t *plan_mask(run_job_t *job, const run_proc_t *p, size_t *size)
{
    if (p->cpuset == NULL)
        return NULL;
    int last = hwloc_bitmap_last(p->cpuset);
    int ncpus = last >= CPU_SETSIZE ? last + 1 : CPU_SETSIZE;
    cpu_set_t *mask = CPU_ALLOC((size_t)ncpus);
    if (mask == NULL)
        return NULL;
    *size = CPU_ALLOC_SIZE((size_t)ncpus);
    if (hwloc_cpuset_to_glibc_sched_affinity(job->topo, p->cpuset, mask, *size) != 0) {
        CPU_FREE(mask);
        return NULL;
    }
    return mask;
}

static void close_pair(int fds[2])
{
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    fds[0] = fds[1] = -1;
}

int run_launch(run_job_t *job, run_proc_t *p)
{
    run_app_t *app = &job->opts->apps[p->app];
    /* the ranks' output; the exec status: a successful exec closes it, a
     * failure writes what failed; --stdin tools: rank 0 reads what tools
     * push (run_tool.c) */
    int out[2] = {-1, -1}, err[2] = {-1, -1}, ex[2] = {-1, -1}, in[2] = {-1, -1};
    bool tools_in = p->rank == 0 && !job->spawned && job->opts->stdin_mode == RUN_STDIN_TOOLS;
    size_t argc = 0;
    while (app->argv[argc] != NULL)
        argc++;
    child_plan_t c = {
        .argv = app->argv,
        .wdir = app->wdir ? app->wdir : job->opts->wdir,
        .stdin_null = p->rank != 0 || job->opts->stdin_mode == RUN_STDIN_NONE,
        /* PR_SET_PDEATHSIG is tied to the thread that starts the child,
         * not to the process: ranks are started from the main thread
         * only, which lives as long as the launcher */
        .launcher = getpid(),
        .trace = run_debug_stop_on_exec(job, p),
        .sh_argv = calloc(argc + 2, sizeof(char *)),
    };
    char **env = build_env(job, p);
    int pmi_fd = -1;
    if (env != NULL) {
        const char *v = env_value(env, "PMI_FD");
        pmi_fd = v != NULL ? atoi(v) : -1;
    }
    int rc = -1;
    if (env == NULL || c.sh_argv == NULL || pipe2(out, O_CLOEXEC) != 0 ||
        pipe2(err, O_CLOEXEC) != 0 || (tools_in && pipe2(in, O_CLOEXEC) != 0) ||
        pipe2(ex, O_CLOEXEC) != 0) {
        close_pair(out);
        close_pair(err);
        close_pair(in);
        close_pair(ex);
        goto done;
    }
    c.envp = env;
    if (strchr(app->argv[0], '/') == NULL) {
        c.path = env_value(env, "PATH");
        if (c.path == NULL)
            c.path = "/bin:/usr/bin"; /* execvp's default */
    }
    c.sh_argv[0] = "/bin/sh";
    for (size_t k = 1; k < argc; k++)
        c.sh_argv[k + 1] = app->argv[k];
    c.out_fd = out[1];
    c.err_fd = err[1];
    c.in_fd = in[0];
    c.status_fd = ex[1];
    c.mask = plan_mask(job, p, &c.mask_size);
    pid_t pid = start_child(&c);
    int start_errno = errno;
    close(out[1]);
    close(err[1]);
    close(ex[1]);
    if (in[0] >= 0)
        close(in[0]);
    if (pid < 0) {
        close(ex[0]);
        close(out[0]);
        close(err[0]);
        if (in[1] >= 0)
            close(in[1]);
        p->pid = 0;
        errno = start_errno;
        goto done;
    }
    /* under the host lock: an abort (the server's thread) reads the pids */
    run_host_lock();
    p->pid = pid;
    run_host_unlock();
    p->exec_fd = ex[0];
    p->stdin_fd = in[1];
    p->out_fd = out[0];
    p->err_fd = err[0];
    rc = 0;
done:;
    int saved = errno;
    if (c.mask != NULL)
        CPU_FREE(c.mask);
    free(c.sh_argv);
    free_env(env);
    /* the child has its copy of the PMI descriptor the server made */
    if (pmi_fd >= 0)
        close(pmi_fd);
    errno = saved;
    return rc;
}

int run_launched(run_job_t *job, run_proc_t *p)
{
    run_app_t *app = &job->opts->apps[p->app];
    /* until the child runs its program, or says why it cannot (started
     * with vfork, it has done either by now) */
    child_failure_t f = {0};
    ssize_t n;
    do {
        n = read(p->exec_fd, &f, sizeof(f));
    } while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(f))
        f.err = 0;
    else
        while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    close(p->exec_fd);
    p->exec_fd = -1;
    if (f.err != 0) {
        if (f.step == CHILD_CHDIR) {
            const char *wdir = app->wdir ? app->wdir : job->opts->wdir;
            fprintf(stderr, "switchyard-run: rank %u: cannot enter %s: %s\n", p->rank, wdir,
                    strerror(f.err));
        }
        close(p->out_fd);
        close(p->err_fd);
        if (p->stdin_fd >= 0)
            close(p->stdin_fd);
        p->out_fd = p->err_fd = p->stdin_fd = -1;
        errno = f.err;
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
