/* PMI barrier latency over the wire, under any launcher that gives its
 * ranks PMI_FD (switchyard-run, mpiexec.hydra): for bench/pmi-compare.sh.
 *   pmi_barrier 1 ITER   PMI-1: init, ITER x (barrier_in / barrier_out)
 *   pmi_barrier 2 ITER   PMI-2: init, fullinit, ITER x kvs-fence
 * Rank 0 prints "pmiV N mean_us": the mean time of one barrier over the
 * ITER after 10 untimed ones (which take the first-use costs out).
 * No PMI library: the launcher's server is what is measured. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fd = -1;

static void fail(const char *what)
{
    fprintf(stderr, "pmi_barrier: %s\n", what);
    exit(1);
}

static void send_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            fail("write to PMI_FD failed");
        p += w;
        n -= (size_t)w;
    }
}

static void recv_all(char *p, size_t n)
{
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            fail("PMI_FD closed");
        p += r;
        n -= (size_t)r;
    }
}

/* PMI-1: a line out; the reply line must start with `want`. */
static void pmi1(const char *line, const char *want)
{
    char reply[1024];
    size_t n = 0;
    send_all(line, strlen(line));
    do {
        if (n + 1 >= sizeof(reply))
            fail("PMI-1 reply too long");
        recv_all(reply + n, 1);
    } while (reply[n++] != '\n');
    reply[n] = '\0';
    if (strncmp(reply, want, strlen(want)) != 0)
        fail(reply);
}

/* PMI-2: a length-prefixed command; the reply must start with `want`
 * and say rc=0. */
static void pmi2(const char *cmd, const char *want)
{
    char head[24], reply[1025];
    snprintf(head, sizeof(head), "%-6zu", strlen(cmd));
    send_all(head, 6);
    send_all(cmd, strlen(cmd));
    recv_all(head, 6);
    head[6] = '\0';
    long len = strtol(head, NULL, 10);
    if (len <= 0 || len >= (long)sizeof(reply))
        fail("bad PMI-2 reply length");
    recv_all(reply, (size_t)len);
    reply[len] = '\0';
    if (strncmp(reply, want, strlen(want)) != 0 || strstr(reply, "rc=0;") == NULL)
        fail(reply);
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    const char *s_fd = getenv("PMI_FD"), *s_rank = getenv("PMI_RANK");
    if (argc != 3 || s_fd == NULL || s_rank == NULL)
        fail("usage: pmi_barrier 1|2 ITER, started by a launcher that sets PMI_FD");
    fd = atoi(s_fd);
    int version = atoi(argv[1]), iter = atoi(argv[2]), rank = atoi(s_rank);
    const char *size = getenv("PMI_SIZE");
    if ((version != 1 && version != 2) || iter <= 0)
        fail("bad arguments");

    char line[128];
    if (version == 1) {
        pmi1("cmd=init pmi_version=1 pmi_subversion=1\n", "cmd=response_to_init");
    } else {
        pmi1("cmd=init pmi_version=2 pmi_subversion=0\n", "cmd=response_to_init");
        snprintf(line, sizeof(line), "cmd=fullinit;pmirank=%d;threaded=FALSE;", rank);
        pmi2(line, "cmd=fullinit-response");
    }
    double t0 = 0;
    for (int i = 0; i < iter + 10; i++) {
        if (i == 10)
            t0 = now_us();
        if (version == 1)
            pmi1("cmd=barrier_in\n", "cmd=barrier_out");
        else
            pmi2("cmd=kvs-fence;", "cmd=kvs-fence-response");
    }
    double mean = (now_us() - t0) / iter;
    if (version == 1)
        pmi1("cmd=finalize\n", "cmd=finalize_ack");
    else
        pmi2("cmd=finalize;", "cmd=finalize-response");
    if (rank == 0)
        printf("pmi%d %s %.1f\n", version, size != NULL ? size : "?", mean);
    return 0;
}
