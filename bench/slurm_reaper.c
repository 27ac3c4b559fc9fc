/* Runs a command (slurmd) as a child subreaper and logs the CPU time of
 * every process that ends below it: slurmd double-forks its slurmstepds,
 * which are then reparented here rather than to init.  Before reaping a
 * process the log gets one line, "<pid> <comm> <utime> <stime>" (clock
 * ticks of the process itself, its threads included, its children not),
 * read from /proc while it is still a zombie.  Used by
 * bench/slurm-compare.sh for slurmstepd's own CPU time per job step.
 *   slurm_reaper LOGFILE COMMAND [ARGS...]
 * Exits with the command's status once the command itself ended. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* comm, utime and stime of a zombie: fields 2, 14 and 15 of its stat. */
static int zombie_times(pid_t pid, char *comm, size_t len, unsigned long *ut, unsigned long *st)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    if (open == NULL || close == NULL || close < open)
        return -1;
    snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
    /* after ") ": state is field 3; utime is field 14 */
    char *p = close + 2;
    for (int field = 3; field < 14 && p != NULL; field++) {
        p = strchr(p, ' ');
        if (p != NULL)
            p++;
    }
    return p != NULL && sscanf(p, "%lu %lu", ut, st) == 2 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: slurm_reaper LOGFILE COMMAND [ARGS...]\n");
        return 2;
    }
    FILE *log = fopen(argv[1], "a");
    if (log == NULL || prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        perror("slurm_reaper");
        return 2;
    }
    setvbuf(log, NULL, _IOLBF, 0);
    pid_t cmd = fork();
    if (cmd == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    if (cmd < 0)
        return 2;
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) != 0) {
            if (errno == EINTR)
                continue;
            return 1; /* no children left */
        }
        pid_t pid = si.si_pid;
        char comm[64] = "?";
        unsigned long ut = 0, st = 0;
        if (zombie_times(pid, comm, sizeof comm, &ut, &st) == 0)
            fprintf(log, "%ld %s %lu %lu\n", (long)pid, comm, ut, st);
        int status = 0;
        waitpid(pid, &status, 0);
        if (pid == cmd)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
}
