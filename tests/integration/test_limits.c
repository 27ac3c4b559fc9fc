/* Resource limits of the server, from a rank under switchyard-run (public
 * client API plus plain sockets; tests/tools/limits.sh drives it).
 *
 *   test_limits fdflood N READY GO
 *       Rank 0 opens N idle connections to the server's UNIX socket (it
 *       raises its own soft descriptor limit; the launcher runs under a low
 *       one), creates the file READY, and until the file GO exists asks
 *       the server something every 100 ms: every request must be
 *       answered.  Then it closes them.  Rank 1 only calls PMIx_Init once
 *       GO exists: the server must accept again once descriptors are free.
 *   test_limits bigframe CLAIM SEND WAIT
 *       Opens this process's direct channel by hand (an authenticated
 *       connection), sends a frame header claiming CLAIM body bytes and
 *       SEND bytes of it, then waits up to WAIT s for the server to close
 *       the connection.  Prints "bigframe: closed" or "bigframe: open",
 *       and "bigframe: server-vm-growth-kb K", how much the server's
 *       virtual memory grew meanwhile.  Its own connection must still be
 *       served afterwards.
 *   test_limits spawn-bad DIR
 *       PMIx_Spawn requests the library or the launcher must refuse, each
 *       with its status (printed "spawn CASE: STATUS"): no program, a
 *       program that is not there (a path, a name not in PATH), one that
 *       is not executable (a file, a directory), a script whose
 *       interpreter is missing (it fails to start: exec fails), maxprocs 0
 *       and -3, an environment entry without '=', a working directory
 *       that is not there.  The parent job goes on: a request to the server
 *       after each, and a good spawn at the end (with --oversubscribe).
 *   test_limits spawn-huge
 *       A spawn of 100,000 processes: refused, the job goes on.
 *   test_limits spawn-many N FILE
 *       Rank 0 spawns N processes that each append their pid to FILE and
 *       sleep (the launcher is stopped meanwhile by the test); other ranks
 *       append their own pid to FILE and sleep.
 * Each mode prints "<mode> rank R: ok" when its checks held. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static int failures;
static pmix_proc_t me;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL(test_limits rank %u): ", me.rank);                                   \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int dial(bool nonblocking)
{
    const char *path = getenv("SWITCHYARD_USOCK");
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (path == NULL || strlen(path) >= sizeof sa.sun_path)
        return -1;
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | (nonblocking ? SOCK_NONBLOCK : 0), 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A request the server answers itself (a fence of this process alone). */
static pmix_status_t ask_server(void)
{
    return PMIx_Fence(&me, 1, NULL, 0);
}

static int fdflood(unsigned n, const char *ready, const char *go)
{
    if (me.rank != 0) {
        /* connect only once the flood is over */
        while (!exists(go))
            usleep(50000);
        pmix_status_t rc = PMIx_Init(&me, NULL, 0);
        if (rc != PMIX_SUCCESS)
            FAIL("PMIx_Init after the flood: %s", PMIx_Error_string(rc));
        else if ((rc = ask_server()) != PMIX_SUCCESS)
            FAIL("a request after the flood: %s", PMIx_Error_string(rc));
        return 0;
    }
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_Init: %s", PMIx_Error_string(rc));
        return 0;
    }
    /* the first request also opens the direct channel (another
     * connection): before the flood */
    if ((rc = ask_server()) != PMIX_SUCCESS)
        FAIL("a request before the flood: %s", PMIx_Error_string(rc));
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int *fds = calloc(n, sizeof(int));
    unsigned opened = 0;
    for (unsigned i = 0; fds != NULL && i < n; i++) {
        int fd = dial(true); /* a full backlog must not block us */
        if (fd >= 0)
            fds[opened++] = fd;
    }
    printf("fdflood: %u of %u connections opened\n", opened, n);
    int f = open(ready, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (f >= 0)
        close(f);
    unsigned answered = 0;
    while (!exists(go)) {
        if ((rc = ask_server()) != PMIX_SUCCESS)
            FAIL("request %u at the descriptor limit: %s", answered, PMIx_Error_string(rc));
        else
            answered++;
        usleep(100000);
    }
    if (answered == 0)
        FAIL("no request was answered at the descriptor limit");
    printf("fdflood: %u requests answered at the limit\n", answered);
    for (unsigned i = 0; i < opened; i++)
        close(fds[i]);
    free(fds);
    if ((rc = ask_server()) != PMIX_SUCCESS)
        FAIL("a request after the flood: %s", PMIx_Error_string(rc));
    return 0;
}

static void put_le(uint8_t *p, uint32_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static bool write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        len -= (size_t)w;
    }
    return true;
}

/* A HELLO asking for this process's direct channel (wire-protocol.md). */
static int open_direct(void)
{
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    uint8_t cmd = 1, kind = 1; /* HELLO, a client */
    const char *proto = "switchyard", *token = getenv("SWITCHYARD_TOKEN");
    uint32_t version = 2; /* SY_WIRE_VERSION */
    pid_t pid = getpid();
    size_t n = 1;
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, "switchyard.direct", &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Data_pack(NULL, &b, &cmd, 1, PMIX_UINT8);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &proto, 1, PMIX_STRING);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &version, 1, PMIX_UINT32);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &me, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &pid, 1, PMIX_PID);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &token, 1, PMIX_STRING);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &n, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Data_pack(NULL, &b, &info, 1, PMIX_INFO);
    PMIX_INFO_DESTRUCT(&info);
    int fd = rc == PMIX_SUCCESS ? dial(false) : -1;
    uint8_t hdr[16];
    memcpy(hdr, "SYW1", 4);
    put_le(hdr + 4, 1, 2);
    put_le(hdr + 6, 0, 2);
    put_le(hdr + 8, 1, 4);
    put_le(hdr + 12, (uint32_t)b.bytes_used, 4);
    bool ok = fd >= 0 && write_all(fd, hdr, 16) && write_all(fd, b.base_ptr, b.bytes_used);
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    /* the reply: a header and a status */
    uint8_t rh[16];
    struct timeval tv = {10, 0};
    if (ok)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (!ok || recv(fd, rh, 16, MSG_WAITALL) != 16) {
        FAIL("no answer to the direct channel's HELLO");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    uint32_t len =
        (uint32_t)rh[12] | (uint32_t)rh[13] << 8 | (uint32_t)rh[14] << 16 | (uint32_t)rh[15] << 24;
    char body[256];
    pmix_status_t answer = PMIX_ERROR;
    if (len > 0 && len <= sizeof body && recv(fd, body, len, MSG_WAITALL) == (ssize_t)len) {
        pmix_data_buffer_t r;
        PMIX_DATA_BUFFER_CONSTRUCT(&r);
        char *copy = malloc(len);
        memcpy(copy, body, len);
        PMIX_DATA_BUFFER_LOAD(&r, copy, len);
        int32_t one = 1;
        if (PMIx_Data_unpack(NULL, &r, &answer, &one, PMIX_STATUS) != PMIX_SUCCESS)
            answer = PMIX_ERROR;
        PMIX_DATA_BUFFER_DESTRUCT(&r);
    }
    if (answer != PMIX_SUCCESS) {
        FAIL("the direct channel was refused: %s", PMIx_Error_string(answer));
        close(fd);
        return -1;
    }
    return fd;
}

/* The parent's (the launcher's, the server's) virtual size in kB. */
static long server_vm_kb(void)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)getppid());
    FILE *f = fopen(path, "r");
    long kb = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmSize: %ld", &kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kb;
}

static int bigframe(uint32_t claim, size_t send, int wait_s)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_Init: %s", PMIx_Error_string(rc));
        return 0;
    }
    int fd = open_direct();
    if (fd < 0)
        return 0;
    long vm_before = server_vm_kb();
    uint8_t hdr[16];
    memcpy(hdr, "SYW1", 4);
    put_le(hdr + 4, 1, 2);
    put_le(hdr + 6, 0, 2);
    put_le(hdr + 8, 0x80000002u, 4); /* a tag of the direct channel */
    put_le(hdr + 12, claim, 4);
    signal(SIGPIPE, SIG_IGN);
    bool sent = write_all(fd, hdr, 16);
    static char chunk[65536];
    for (size_t done = 0; sent && done < send; done += sizeof chunk)
        sent = write_all(fd, chunk, send - done < sizeof chunk ? send - done : sizeof chunk);
    /* a moment for the server to read what came */
    usleep(500000);
    long vm_after = server_vm_kb();
    printf("bigframe: server-vm-growth-kb %ld\n", vm_after - vm_before);
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    bool closed = false;
    for (int waited = 0; waited < 10 * wait_s && !closed; waited++) {
        if (poll(&pf, 1, 100) > 0) {
            char c;
            ssize_t r = recv(fd, &c, 1, MSG_DONTWAIT);
            closed = r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR);
        }
    }
    printf("bigframe: %s\n", closed ? "closed" : "open");
    close(fd);
    if ((rc = ask_server()) != PMIX_SUCCESS)
        FAIL("a request after the big frame: %s", PMIx_Error_string(rc));
    return 0;
}

static pmix_status_t spawn_one(const char *cmd, char **argv, char **env, const char *cwd,
                               int maxprocs)
{
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = cmd != NULL ? strdup(cmd) : NULL;
    app.argv = argv;
    app.env = env;
    app.cwd = cwd != NULL ? strdup(cwd) : NULL;
    app.maxprocs = maxprocs;
    pmix_nspace_t ns;
    pmix_status_t rc = PMIx_Spawn(NULL, 0, &app, 1, ns);
    free(app.cmd);
    free(app.cwd);
    return rc;
}

static void expect_spawn(const char *what, pmix_status_t got, pmix_status_t want)
{
    printf("spawn %s: %s\n", what, PMIx_Error_string(got));
    if (got != want)
        FAIL("spawn %s: %s, not %s", what, PMIx_Error_string(got), PMIx_Error_string(want));
    pmix_status_t rc = ask_server();
    if (rc != PMIX_SUCCESS)
        FAIL("the parent after spawn %s: %s", what, PMIx_Error_string(rc));
}

static int spawn_bad(const char *dir)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_Init: %s", PMIx_Error_string(rc));
        return 0;
    }
    char script[4096], notexec[4096];
    snprintf(script, sizeof script, "%s/bad-interpreter.sh", dir);
    snprintf(notexec, sizeof notexec, "%s/not-executable", dir);
    FILE *f = fopen(script, "w");
    if (f != NULL) {
        fputs("#!/nonexistent/interpreter\necho never\n", f);
        fclose(f);
        chmod(script, 0755);
    }
    f = fopen(notexec, "w");
    if (f != NULL) {
        fputs("#!/bin/sh\necho never\n", f);
        fclose(f);
        chmod(notexec, 0644);
    }
    char *no_eq[] = {"JUST_A_NAME", NULL};
    char *empty_name[] = {"=value", NULL};
    expect_spawn("without a program", spawn_one(NULL, NULL, NULL, NULL, 1),
                 PMIX_ERR_JOB_NO_EXE_SPECIFIED);
    expect_spawn("with an empty program", spawn_one("", NULL, NULL, NULL, 1),
                 PMIX_ERR_JOB_NO_EXE_SPECIFIED);
    expect_spawn("of a missing path", spawn_one("/nonexistent/program", NULL, NULL, NULL, 1),
                 PMIX_ERR_JOB_EXE_NOT_FOUND);
    expect_spawn("of a name not in PATH",
                 spawn_one("no-such-program-switchyard", NULL, NULL, NULL, 1),
                 PMIX_ERR_JOB_EXE_NOT_FOUND);
    expect_spawn("of a file without x permission", spawn_one(notexec, NULL, NULL, NULL, 1),
                 PMIX_ERR_JOB_APP_NOT_EXECUTABLE);
    expect_spawn("of a directory", spawn_one(dir, NULL, NULL, NULL, 1),
                 PMIX_ERR_JOB_APP_NOT_EXECUTABLE);
    expect_spawn("of a script whose interpreter is missing", spawn_one(script, NULL, NULL, NULL, 1),
                 PMIX_ERR_JOB_EXE_NOT_FOUND);
    expect_spawn("with maxprocs 0", spawn_one("/bin/true", NULL, NULL, NULL, 0),
                 PMIX_ERR_BAD_PARAM);
    expect_spawn("with maxprocs -3", spawn_one("/bin/true", NULL, NULL, NULL, -3),
                 PMIX_ERR_BAD_PARAM);
    expect_spawn("with an env entry without '='", spawn_one("/bin/true", NULL, no_eq, NULL, 1),
                 PMIX_ERR_BAD_PARAM);
    expect_spawn("with an env entry without a name",
                 spawn_one("/bin/true", NULL, empty_name, NULL, 1), PMIX_ERR_BAD_PARAM);
    expect_spawn("in a missing directory",
                 spawn_one("/bin/true", NULL, NULL, "/nonexistent/dir", 1),
                 PMIX_ERR_JOB_WDIR_NOT_FOUND);
    char *args[] = {"true", NULL};
    expect_spawn("of true (a good one)", spawn_one(NULL, args, NULL, NULL, 1), PMIX_SUCCESS);
    return 0;
}

static int spawn_huge(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_Init: %s", PMIx_Error_string(rc));
        return 0;
    }
    expect_spawn("of 100000 processes", spawn_one("/bin/true", NULL, NULL, NULL, 100000),
                 PMIX_ERR_JOB_INSUFFICIENT_RESOURCES);
    return 0;
}

static int spawn_many(int n, const char *file)
{
    char line[64];
    if (me.rank != 0) {
        /* a running rank of the parent job */
        FILE *f = fopen(file, "a");
        if (f != NULL) {
            fprintf(f, "%ld\n", (long)getpid());
            fclose(f);
        }
        pause();
        return 0;
    }
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        FAIL("PMIx_Init: %s", PMIx_Error_string(rc));
        return 0;
    }
    snprintf(line, sizeof line, "echo $$ >> \"$SY_STARTED\"; exec sleep 120");
    char *args[] = {"sh", "-c", line, NULL};
    char env_file[4200];
    snprintf(env_file, sizeof env_file, "SY_STARTED=%s", file);
    char *env[] = {env_file, NULL};
    rc = spawn_one("/bin/sh", args, env, NULL, n);
    printf("spawn-many: %s\n", PMIx_Error_string(rc));
    pause();
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *r = getenv("PMIX_RANK");
    me.rank = r != NULL ? (pmix_rank_t)atoi(r) : 0;
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "fdflood") == 0 && argc == 5)
        fdflood((unsigned)atoi(argv[2]), argv[3], argv[4]);
    else if (strcmp(mode, "spawn-bad") == 0 && argc == 3)
        spawn_bad(argv[2]);
    else if (strcmp(mode, "spawn-huge") == 0)
        spawn_huge();
    else if (strcmp(mode, "spawn-many") == 0 && argc == 4)
        spawn_many(atoi(argv[2]), argv[3]);
    else if (strcmp(mode, "bigframe") == 0 && argc == 5)
        bigframe((uint32_t)strtoul(argv[2], NULL, 0), (size_t)strtoul(argv[3], NULL, 0),
                 atoi(argv[4]));
    else {
        fprintf(stderr, "usage: test_limits fdflood N READY GO | bigframe CLAIM SEND WAIT |\n"
                        "       spawn-bad DIR | spawn-huge | spawn-many N FILE\n");
        return 2;
    }
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("Finalize: %s", PMIx_Error_string(rc));
    if (failures == 0)
        printf("%s rank %u: ok\n", mode, me.rank);
    return failures == 0 ? 0 : 1;
}
