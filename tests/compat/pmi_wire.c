/* A raw PMI wire client over PMI_FD (no library), for
 * tests/compat/pmi-wire.sh:
 *   pmi_wire pmi1      the PMI-1 conversation MPICH has, checked reply by reply
 *   pmi_wire pmi2      PMI-2 after a PMI-1 init: fullinit, ';' escaping, MPICH
 *                      4.0.2's 6 garbage bytes, thrid echo, node attributes
 *                      (waiting), kvs put/fence/get of every peer
 *   pmi_wire bad MODE  a protocol violation (garbage, oversized, noinit,
 *                      unknown): the server must close the connection
 *   pmi_wire mixed     even ranks are PMIx clients (Put/Commit/Fence/Get),
 *                      odd ranks PMI-1 wire clients (put/barrier/get):
 *                      one job, one fence, each reads every other's key
 *   pmi_wire port1|port2  pmi1 / pmi2 over TCP to PMI_PORT instead of
 *                      PMI_FD, identified by PMI_ID (PMI-1: initack first)
 *   pmi_wire bad badid a PMI_PORT connection with a wrong PMI_ID
 *   pmi_wire spawn1    rank 0 spawns 2 x "pmi_wire child1" with mcmd=spawn
 *                      (a preput key, an argument, info wdir)
 *   pmi_wire spawn2    the same with PMI-2's spawn (child2)
 *   pmi_wire child1|2  a spawned child: PMI_SPAWNED / spawner-jobid, the
 *                      parent's preput key by a plain get, a barrier
 *   pmi_wire die MODE  mixed, and rank 1 ends mid-barrier, once the others
 *                      are in it (each makes a file in $PMI_WIRE_SYNC
 *                      first), without entering it (MODE close: its PMI
 *                      connection ends, the process waits to be stopped;
 *                      kill: SIGKILL): the others' fence or barrier must
 *                      fail, not hang
 *   pmi_wire threads   a threaded PMI-2 client with several requests out
 *                      on its one connection (two node attribute waits, a
 *                      name publish and lookup): each reply carries the
 *                      thrid of its own request
 *   pmi_wire remote    (under pmi_twohost: ranks 0-1 on one server, 2-3 on
 *                      another) even ranks PMI-1, odd ranks PMI-2: put,
 *                      barrier / fence, then get every other rank's key,
 *                      the other node's through the servers' direct
 *                      modex, and a key nobody put: not found
 *   pmi_wire wait      even ranks PMI-1, odd ranks PMI-2: init, then the
 *                      pid in $PMI_WIRE_SYNC/pid.<rank>, then wait for
 *                      $PMI_WIRE_SYNC/stop (a tool looks meanwhile), then
 *                      a barrier / fence and finalize
 * Prints "wire <mode> ok rank R" on success. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pmix.h>

static int fd = -1, rank, size;
static const char *pmirank; /* what fullinit sends: PMI_ID in port mode, else PMI_RANK */
static int fails;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pmi_wire rank %d: ", rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void put_all(const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            die("write: %s", strerror(errno));
        p += w;
        n -= (size_t)w;
    }
}

static void get_all(char *buf, size_t n)
{
    while (n > 0) {
        ssize_t r = read(fd, buf, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            die("read: %s", r == 0 ? "EOF" : strerror(errno));
        buf += r;
        n -= (size_t)r;
    }
}

/* PMI-1: one line out, one line back (without its newline). */
static void req1(const char *line, char *reply, size_t len)
{
    put_all(line, strlen(line));
    size_t n = 0;
    for (;;) {
        if (n + 1 >= len)
            die("reply too long to '%s'", line);
        get_all(reply + n, 1);
        if (reply[n] == '\n')
            break;
        n++;
    }
    reply[n] = '\0';
}

static void expect(const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "pmi_wire rank %d: got '%s', expected '%s'\n", rank, got, want);
        fails++;
    }
}

/* PMI-2: length-prefixed; junk bytes after the command as MPICH sends. */
static void req2(const char *cmd, bool junk, char *reply, size_t len)
{
    char hdr[32];
    size_t n = strlen(cmd) + (junk ? 6 : 0);
    snprintf(hdr, sizeof(hdr), "%-6zu", n);
    put_all(hdr, 6);
    put_all(cmd, strlen(cmd));
    if (junk)
        put_all("\0001-0;v", 6);
    get_all(hdr, 6);
    size_t rl = (size_t)atoi(hdr);
    if (rl + 1 > len)
        die("PMI-2 reply too long");
    get_all(reply, rl);
    reply[rl] = '\0';
}

static void pmi1(void)
{
    char r[2048], line[2048], kvs[300], want[2048];
    req1("cmd=init pmi_version=1 pmi_subversion=1\n", r, sizeof(r));
    expect(r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
    req1("cmd=get_maxes\n", r, sizeof(r));
    expect(r, "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024");
    req1("cmd=get_appnum\n", r, sizeof(r));
    expect(r, "cmd=appnum appnum=0");
    req1("cmd=get_universe_size\n", r, sizeof(r));
    snprintf(want, sizeof(want), "cmd=universe_size size=%d", size);
    expect(r, want);
    req1("cmd=get_my_kvsname\n", r, sizeof(r));
    if (sscanf(r, "cmd=my_kvsname kvsname=%299s", kvs) != 1)
        die("kvsname: '%s'", r);
    snprintf(line, sizeof(line), "cmd=get kvsname=%s key=PMI_process_mapping\n", kvs);
    req1(line, r, sizeof(r));
    snprintf(want, sizeof(want), "cmd=get_result rc=0 msg=success value=(vector,(0,1,%d))", size);
    expect(r, want);
    /* a value with blanks survives (taken to the end of the line) */
    snprintf(line, sizeof(line), "cmd=put kvsname=%s key=k-%d value=v %d x=y\n", kvs, rank, rank);
    req1(line, r, sizeof(r));
    expect(r, "cmd=put_result rc=0 msg=success");
    snprintf(line, sizeof(line), "cmd=put kvsname=other-kvs key=k value=v\n");
    req1(line, r, sizeof(r));
    if (strncmp(r, "cmd=put_result rc=-1", 20) != 0)
        expect(r, "cmd=put_result rc=-1 ...");
    /* the longest value a get reply can carry in 1023 bytes, and one more */
    char big[1100];
    memset(big, 'A', sizeof(big));
    big[984] = '\0';
    snprintf(line, sizeof(line), "cmd=put kvsname=%s key=long-%d value=%s\n", kvs, rank, big);
    req1(line, r, sizeof(r));
    expect(r, "cmd=put_result rc=0 msg=success");
    big[984] = 'A';
    big[985] = '\0';
    snprintf(line, sizeof(line), "cmd=put kvsname=%s key=longer value=%s\n", kvs, big);
    req1(line, r, sizeof(r));
    expect(r, "cmd=put_result rc=-1 msg=value_too_long");
    big[984] = '\0';
    snprintf(line, sizeof(line), "cmd=get kvsname=%s key=long-%d\n", kvs, rank);
    req1(line, r, sizeof(r));
    snprintf(want, sizeof(want), "cmd=get_result rc=0 msg=success value=%s", big);
    expect(r, want);
    if (strlen(r) + 1 > 1023)
        expect(r, "a reply shorter than 1024 bytes");
    req1("cmd=barrier_in\n", r, sizeof(r));
    expect(r, "cmd=barrier_out");
    for (int p = 0; p < size; p++) {
        snprintf(line, sizeof(line), "cmd=get kvsname=%s key=k-%d\n", kvs, p);
        req1(line, r, sizeof(r));
        snprintf(want, sizeof(want), "cmd=get_result rc=0 msg=success value=v %d x=y", p);
        expect(r, want);
    }
    snprintf(line, sizeof(line), "cmd=get kvsname=%s key=nokey\n", kvs);
    req1(line, r, sizeof(r));
    expect(r, "cmd=get_result rc=-1 msg=key_nokey_not_found value=unknown");
    req1("cmd=barrier_in\n", r, sizeof(r));
    expect(r, "cmd=barrier_out");
    req1("cmd=finalize\n", r, sizeof(r));
    expect(r, "cmd=finalize_ack");
}

static void pmi2(void)
{
    char r[4096], cmd[2048], want[2048], jobid[300];
    req1("cmd=init pmi_version=2 pmi_subversion=0\n", r, sizeof(r));
    expect(r, "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0");
    snprintf(cmd, sizeof(cmd), "cmd=fullinit;pmirank=%s;threaded=FALSE;", pmirank);
    req2(cmd, true, r, sizeof(r));
    snprintf(want, sizeof(want),
             "cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=%d;size=%d;appnum=0;"
             "debugged=FALSE;pmiverbose=FALSE;rc=0;",
             rank, size);
    expect(r, want);
    req2("cmd=job-getid;thrid=0x7ffd1234;", true, r, sizeof(r));
    if (sscanf(r, "cmd=job-getid-response;thrid=0x7ffd1234;jobid=%299[^;];rc=0;", jobid) != 1)
        die("job-getid: '%s'", r);
    req2("cmd=info-getjobattr;key=PMI_process_mapping;", false, r, sizeof(r));
    snprintf(want, sizeof(want),
             "cmd=info-getjobattr-response;found=TRUE;value=(vector,(0,1,%d));rc=0;", size);
    expect(r, want);
    /* node attribute: rank 0 puts it late, the others wait */
    if (rank == 0) {
        usleep(100000);
        req2("cmd=info-putnodeattr;key=-bcast-1-0;value=2F6465762F;", true, r, sizeof(r));
        expect(r, "cmd=info-putnodeattr-response;rc=0;");
    }
    req2("cmd=info-getnodeattr;key=-bcast-1-0;wait=TRUE;", true, r, sizeof(r));
    expect(r, "cmd=info-getnodeattr-response;found=TRUE;value=2F6465762F;rc=0;");
    /* ';' escaped as ";;" both ways */
    snprintf(cmd, sizeof(cmd), "cmd=kvs-put;key=raw-%d;value=a;;b=c d%d;", rank, rank);
    req2(cmd, true, r, sizeof(r));
    expect(r, "cmd=kvs-put-response;rc=0;");
    req2("cmd=kvs-fence;", true, r, sizeof(r));
    expect(r, "cmd=kvs-fence-response;rc=0;");
    for (int p = 0; p < size; p++) {
        snprintf(cmd, sizeof(cmd), "cmd=kvs-get;jobid=%s;srcid=-1;key=raw-%d;", jobid, p);
        req2(cmd, true, r, sizeof(r));
        snprintf(want, sizeof(want), "cmd=kvs-get-response;found=TRUE;value=a;;b=c d%d;rc=0;", p);
        expect(r, want);
    }
    snprintf(cmd, sizeof(cmd), "cmd=kvs-get;jobid=%s;srcid=-1;key=nokey;", jobid);
    req2(cmd, false, r, sizeof(r));
    expect(r, "cmd=kvs-get-response;found=FALSE;rc=0;");
    req2("cmd=kvs-fence;thrid=0x42;", false, r, sizeof(r));
    expect(r, "cmd=kvs-fence-response;thrid=0x42;rc=0;");
    req2("cmd=finalize;", true, r, sizeof(r));
    expect(r, "cmd=finalize-response;rc=0;");
}

/* PMI-1 init and the job's kvsname (kvs: 300 bytes). */
static void pmi1_start(char *kvs)
{
    char r[512];
    req1("cmd=init pmi_version=1 pmi_subversion=1\n", r, sizeof(r));
    expect(r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
    req1("cmd=get_my_kvsname\n", r, sizeof(r));
    if (sscanf(r, "cmd=my_kvsname kvsname=%299s", kvs) != 1)
        die("kvsname: '%s'", r);
}

/* ---- a job of PMIx and PMI-1 ranks ---- */

static const char *die_how; /* die mode: rank 1 ends mid-barrier */

/* die mode: this rank is about to enter the barrier */
static void entering(void)
{
    char path[4096];
    const char *dir = getenv("PMI_WIRE_SYNC");
    if (die_how == NULL)
        return;
    if (dir == NULL)
        die("PMI_WIRE_SYNC is not set");
    snprintf(path, sizeof(path), "%s/in.%d", dir, rank);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        die("cannot create %s", path);
    fclose(f);
}

/* die mode, rank 1: until every other rank entered the barrier */
static void wait_others(void)
{
    char path[4096];
    const char *dir = getenv("PMI_WIRE_SYNC");
    if (dir == NULL)
        die("PMI_WIRE_SYNC is not set");
    for (int q = 0; q < size; q++) {
        snprintf(path, sizeof(path), "%s/in.%d", dir, q);
        for (int tries = 0; q != rank && access(path, F_OK) != 0; tries++) {
            if (tries > 6000)
                die("rank %d never entered the barrier", q);
            usleep(10000);
        }
    }
}

static bool is_pmix_rank(int r)
{
    return r % 2 == 0;
}

/* the PMIx ranks: false when the fence failed */
static bool mixed_pmix(void)
{
    pmix_proc_t me, p;
    pmix_value_t v, *got = NULL;
    char key[64], val[64];
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        die("PMIx_Init");
    snprintf(key, sizeof(key), "mix-%d", rank);
    snprintf(val, sizeof(val), "from rank %d", rank);
    PMIX_VALUE_LOAD(&v, val, PMIX_STRING);
    if (PMIx_Put(PMIX_GLOBAL, key, &v) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS)
        die("PMIx_Put/Commit");
    PMIX_VALUE_DESTRUCT(&v);
    bool collect = true;
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    entering();
    pmix_status_t rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        printf("wire rank %d: fence failed: %s\n", rank, PMIx_Error_string(rc));
        fflush(stdout);
        return false;
    }
    for (int q = 0; q < size; q++) {
        if (q == rank)
            continue;
        PMIX_LOAD_PROCID(&p, me.nspace, (pmix_rank_t)q);
        snprintf(key, sizeof(key), "mix-%d", q);
        snprintf(val, sizeof(val), "from rank %d", q);
        rc = PMIx_Get(&p, key, NULL, 0, &got);
        if (rc != PMIX_SUCCESS || got->type != PMIX_STRING || strcmp(got->data.string, val) != 0) {
            fprintf(stderr, "pmi_wire rank %d: PMIx_Get %s of rank %d: %s\n", rank, key, q,
                    PMIx_Error_string(rc));
            fails++;
        }
        if (got != NULL)
            PMIX_VALUE_RELEASE(got);
        got = NULL;
    }
    PMIx_Finalize(NULL, 0);
    return true;
}

/* the PMI-1 ranks: false when the barrier failed (the server closed) */
static bool mixed_pmi1(void)
{
    char r[2048], line[2048], kvs[300];
    pmi1_start(kvs);
    snprintf(line, sizeof(line), "cmd=put kvsname=%s key=mix-%d value=from rank %d\n", kvs, rank,
             rank);
    req1(line, r, sizeof(r));
    expect(r, "cmd=put_result rc=0 msg=success");
    if (die_how != NULL && rank == 1) {
        /* the others wait in the barrier: it cannot end without us */
        wait_others();
        if (strcmp(die_how, "kill") == 0)
            raise(SIGKILL);
        close(fd); /* as a death, to the server; stopped by the launcher */
        sleep(60);
        exit(3);
    }
    entering();
    put_all("cmd=barrier_in\n", 15);
    size_t n = 0;
    for (;;) {
        ssize_t got = read(fd, r + n, 1);
        if (got <= 0) {
            printf("wire rank %d: barrier failed: connection closed\n", rank);
            fflush(stdout);
            return false;
        }
        if (r[n] == '\n')
            break;
        if (++n + 1 >= sizeof(r))
            die("barrier_out too long");
    }
    r[n] = '\0';
    expect(r, "cmd=barrier_out");
    for (int q = 0; q < size; q++) {
        if (q == rank)
            continue;
        char want[128];
        snprintf(line, sizeof(line), "cmd=get kvsname=%s key=mix-%d\n", kvs, q);
        req1(line, r, sizeof(r));
        snprintf(want, sizeof(want), "cmd=get_result rc=0 msg=success value=from rank %d", q);
        expect(r, want);
    }
    req1("cmd=finalize\n", r, sizeof(r));
    expect(r, "cmd=finalize_ack");
    return true;
}

static void mixed(const char *how)
{
    die_how = how;
    bool ok = is_pmix_rank(rank) ? mixed_pmix() : mixed_pmi1();
    if (!ok)
        exit(2);
}

/* ---- threads mode: several threaded PMI-2 requests out at once ---- */

static void send2(const char *cmd)
{
    char hdr[32];
    snprintf(hdr, sizeof(hdr), "%-6zu", strlen(cmd));
    put_all(hdr, 6);
    put_all(cmd, strlen(cmd));
}

static void recv2(char *reply, size_t len)
{
    char hdr[7];
    get_all(hdr, 6);
    hdr[6] = '\0';
    size_t rl = (size_t)atoi(hdr);
    if (rl + 1 > len)
        die("PMI-2 reply too long");
    get_all(reply, rl);
    reply[rl] = '\0';
}

/* The next n replies, in any order, must be exactly want[0..n). */
static void expect_set(const char *const *want, int n)
{
    char r[1024];
    bool seen[8] = {false};
    for (int i = 0; i < n; i++) {
        recv2(r, sizeof(r));
        int k = 0;
        while (k < n && (seen[k] || strcmp(r, want[k]) != 0))
            k++;
        if (k == n) {
            fprintf(stderr, "pmi_wire rank %d: unexpected reply '%s'\n", rank, r);
            fails++;
        } else {
            seen[k] = true;
        }
    }
}

static void threads(void)
{
    char r[1024], port[128], cmd[512], want[512];
    req1("cmd=init pmi_version=2 pmi_subversion=0\n", r, sizeof(r));
    req2("cmd=fullinit;pmirank=0;threaded=TRUE;", false, r, sizeof(r));
    if (strncmp(r, "cmd=fullinit-response;", 22) != 0)
        die("fullinit: '%s'", r);
    /* thread A waits for a node attribute; thread B publishes meanwhile:
     * only B's reply can come, with B's thrid */
    snprintf(port, sizeof(port), "port-of-%d", rank);
    send2("cmd=info-getnodeattr;thrid=0xA;key=attr-a;wait=TRUE;");
    snprintf(cmd, sizeof(cmd), "cmd=name-publish;thrid=0xB;name=svc-%d;port=%s;", rank, port);
    send2(cmd);
    recv2(r, sizeof(r));
    expect(r, "cmd=name-publish-response;thrid=0xB;rc=0;");
    /* C looks the name up while A and a second wait E are out */
    send2("cmd=info-getnodeattr;thrid=0xE;key=attr-e;wait=TRUE;");
    snprintf(cmd, sizeof(cmd), "cmd=name-lookup;thrid=0xC;name=svc-%d;", rank);
    send2(cmd);
    recv2(r, sizeof(r));
    snprintf(want, sizeof(want), "cmd=name-lookup-response;thrid=0xC;port=%s;found=TRUE;rc=0;",
             port);
    expect(r, want);
    /* D puts A's attribute: D's and A's replies, each with its thrid */
    send2("cmd=info-putnodeattr;thrid=0xD;key=attr-a;value=va;");
    const char *ad[] = {"cmd=info-putnodeattr-response;thrid=0xD;rc=0;",
                        "cmd=info-getnodeattr-response;thrid=0xA;found=TRUE;value=va;rc=0;"};
    expect_set(ad, 2);
    /* E still waits; F (no wait) and G (unpublish) answer meanwhile */
    send2("cmd=info-getnodeattr;thrid=0xF;key=attr-e;");
    recv2(r, sizeof(r));
    expect(r, "cmd=info-getnodeattr-response;thrid=0xF;found=FALSE;rc=0;");
    snprintf(cmd, sizeof(cmd), "cmd=name-unpublish;thrid=0xG;name=svc-%d;", rank);
    send2(cmd);
    recv2(r, sizeof(r));
    expect(r, "cmd=name-unpublish-response;thrid=0xG;rc=0;");
    send2("cmd=info-putnodeattr;thrid=0xH;key=attr-e;value=ve;");
    const char *eh[] = {"cmd=info-putnodeattr-response;thrid=0xH;rc=0;",
                        "cmd=info-getnodeattr-response;thrid=0xE;found=TRUE;value=ve;rc=0;"};
    expect_set(eh, 2);
    req2("cmd=finalize;", false, r, sizeof(r));
    expect(r, "cmd=finalize-response;rc=0;");
}

/* ---- remote mode: keys of ranks served by another server ---- */

static void remote(void)
{
    char r[2048], line[2048], want[2048], kvs[300];
    if (rank % 2 == 0) {
        pmi1_start(kvs);
        snprintf(line, sizeof(line), "cmd=put kvsname=%s key=rk-%d value=from %d\n", kvs, rank,
                 rank);
        req1(line, r, sizeof(r));
        expect(r, "cmd=put_result rc=0 msg=success");
        req1("cmd=barrier_in\n", r, sizeof(r));
        expect(r, "cmd=barrier_out");
        for (int q = 0; q < size; q++) {
            snprintf(line, sizeof(line), "cmd=get kvsname=%s key=rk-%d\n", kvs, q);
            req1(line, r, sizeof(r));
            snprintf(want, sizeof(want), "cmd=get_result rc=0 msg=success value=from %d", q);
            expect(r, want);
        }
        snprintf(line, sizeof(line), "cmd=get kvsname=%s key=nokey\n", kvs);
        req1(line, r, sizeof(r));
        expect(r, "cmd=get_result rc=-1 msg=key_nokey_not_found value=unknown");
        req1("cmd=barrier_in\n", r, sizeof(r));
        expect(r, "cmd=barrier_out");
        req1("cmd=finalize\n", r, sizeof(r));
        expect(r, "cmd=finalize_ack");
        return;
    }
    req1("cmd=init pmi_version=2 pmi_subversion=0\n", r, sizeof(r));
    req2("cmd=fullinit;pmirank=0;threaded=FALSE;", false, r, sizeof(r));
    req2("cmd=job-getid;", false, r, sizeof(r));
    if (sscanf(r, "cmd=job-getid-response;jobid=%299[^;]", kvs) != 1)
        die("jobid: '%s'", r);
    snprintf(line, sizeof(line), "cmd=kvs-put;key=rk-%d;value=from %d;", rank, rank);
    req2(line, false, r, sizeof(r));
    expect(r, "cmd=kvs-put-response;rc=0;");
    req2("cmd=kvs-fence;", false, r, sizeof(r));
    expect(r, "cmd=kvs-fence-response;rc=0;");
    for (int q = 0; q < size; q++) {
        /* the source named (srcid) and not (-1), with a thrid */
        for (int hint = 0; hint < 2; hint++) {
            snprintf(line, sizeof(line), "cmd=kvs-get;thrid=0x%d;jobid=%s;srcid=%d;key=rk-%d;", q,
                     kvs, hint ? q : -1, q);
            req2(line, false, r, sizeof(r));
            snprintf(want, sizeof(want),
                     "cmd=kvs-get-response;thrid=0x%d;found=TRUE;value=from %d;rc=0;", q, q);
            expect(r, want);
        }
    }
    snprintf(line, sizeof(line), "cmd=kvs-get;jobid=%s;srcid=-1;key=nokey;", kvs);
    req2(line, false, r, sizeof(r));
    expect(r, "cmd=kvs-get-response;found=FALSE;rc=0;");
    req2("cmd=kvs-fence;", false, r, sizeof(r));
    expect(r, "cmd=kvs-fence-response;rc=0;");
    req2("cmd=finalize;", false, r, sizeof(r));
    expect(r, "cmd=finalize-response;rc=0;");
}

/* ---- wait mode: PMI processes a tool looks at ---- */

static void wait_for_tool(void)
{
    char r[2048], path[4096], tmp[4096];
    const char *dir = getenv("PMI_WIRE_SYNC");
    if (dir == NULL)
        die("PMI_WIRE_SYNC is not set");
    bool v1 = rank % 2 == 0;
    if (v1) {
        req1("cmd=init pmi_version=1 pmi_subversion=1\n", r, sizeof(r));
        expect(r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
    } else {
        req1("cmd=init pmi_version=2 pmi_subversion=0\n", r, sizeof(r));
        req2("cmd=fullinit;pmirank=0;threaded=FALSE;", false, r, sizeof(r));
        if (strncmp(r, "cmd=fullinit-response;", 22) != 0)
            die("fullinit: '%s'", r);
    }
    /* written whole, then renamed: the script never reads half a pid */
    snprintf(tmp, sizeof(tmp), "%s/.pid.%d", dir, rank);
    snprintf(path, sizeof(path), "%s/pid.%d", dir, rank);
    FILE *f = fopen(tmp, "w");
    if (f == NULL || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0 ||
        rename(tmp, path) != 0)
        die("cannot write %s", path);
    snprintf(path, sizeof(path), "%s/stop", dir);
    for (int tries = 0; access(path, F_OK) != 0; tries++) {
        if (tries > 6000)
            die("never told to stop");
        usleep(10000);
    }
    if (v1) {
        req1("cmd=barrier_in\n", r, sizeof(r));
        expect(r, "cmd=barrier_out");
        req1("cmd=finalize\n", r, sizeof(r));
        expect(r, "cmd=finalize_ack");
    } else {
        req2("cmd=kvs-fence;", false, r, sizeof(r));
        expect(r, "cmd=kvs-fence-response;rc=0;");
        req2("cmd=finalize;", false, r, sizeof(r));
        expect(r, "cmd=finalize-response;rc=0;");
    }
}

/* ---- PMI_PORT mode ---- */

static void port_connect(void)
{
    const char *port = getenv("PMI_PORT");
    const char *colon = port != NULL ? strrchr(port, ':') : NULL;
    if (colon == NULL || getenv("PMI_ID") == NULL)
        die("no PMI_PORT/PMI_ID");
    char host[256];
    snprintf(host, sizeof(host), "%.*s", (int)(colon - port), port);
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai = NULL;
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0 || ai == NULL)
        die("cannot resolve PMI_PORT %s", port);
    close(fd); /* the descriptor is not used in port mode */
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0)
        die("connect to %s: %s", port, strerror(errno));
    freeaddrinfo(ai);
}

static void port1(void)
{
    char r[256], want[256];
    port_connect();
    snprintf(want, sizeof(want), "cmd=initack pmiid=%s\n", getenv("PMI_ID"));
    req1(want, r, sizeof(r));
    expect(r, "cmd=initack");
    const char *names[3] = {"size", "rank", "debug"};
    int vals[3] = {size, rank, 0};
    for (int i = 0; i < 3; i++) { /* the rest of the same reply */
        size_t n = 0;
        do
            get_all(r + n, 1);
        while (r[n] != '\n' && ++n + 1 < sizeof(r));
        r[n] = '\0';
        snprintf(want, sizeof(want), "cmd=set %s=%d", names[i], vals[i]);
        expect(r, want);
    }
}

/* ---- spawn over the wire ---- */

static void self_exe(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0)
        die("readlink /proc/self/exe");
    buf[n] = '\0';
}

static void spawn1(void)
{
    char r[2048], exe[1024], cwd[1024], block[4096];
    req1("cmd=init pmi_version=1 pmi_subversion=1\n", r, sizeof(r));
    expect(r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
    if (rank == 0) {
        self_exe(exe, sizeof(exe));
        if (getcwd(cwd, sizeof(cwd)) == NULL)
            die("getcwd");
        /* as MPICH writes it: header and arg1, then the rest */
        snprintf(block, sizeof(block),
                 "mcmd=spawn\nnprocs=2\nexecname=%s\ntotspawns=1\nspawnssofar=1\narg1=child1\n",
                 exe);
        put_all(block, strlen(block));
        snprintf(block, sizeof(block),
                 "argcnt=1\npreput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\n"
                 "preput_val_0=tag#0$port#5555$ with blanks\ninfo_num=1\ninfo_key_0=wdir\n"
                 "info_val_0=%s\nendcmd\n",
                 cwd);
        req1(block, r, sizeof(r));
        expect(r, "cmd=spawn_result rc=0");
    }
    req1("cmd=finalize\n", r, sizeof(r));
    expect(r, "cmd=finalize_ack");
}

static void spawn2(void)
{
    char r[2048], exe[1024], cmd[2048];
    req1("cmd=init pmi_version=2 pmi_subversion=0\n", r, sizeof(r));
    req2("cmd=fullinit;pmirank=0;threaded=FALSE;", true, r, sizeof(r));
    if (strstr(r, "spawner-jobid=") != NULL)
        die("a job not spawned has a spawner: '%s'", r);
    if (rank == 0) {
        self_exe(exe, sizeof(exe));
        snprintf(cmd, sizeof(cmd),
                 "cmd=spawn;thrid=0x7;ncmds=1;preputcount=1;ppkey0=PARENT_ROOT_PORT_NAME;"
                 "ppval0=port;;2;subcmd=%s;maxprocs=2;argc=1;argv0=child2;infokeycount=1;"
                 "infokey0=unknownkey;infoval0=x;",
                 exe);
        req2(cmd, true, r, sizeof(r));
        if (strncmp(r, "cmd=spawn-response;thrid=0x7;jobid=", 35) != 0 ||
            strstr(r, ";nerrs=0;rc=0;") == NULL) {
            fprintf(stderr, "pmi_wire rank %d: spawn: '%s'\n", rank, r);
            fails++;
        }
    }
    req2("cmd=finalize;", true, r, sizeof(r));
    expect(r, "cmd=finalize-response;rc=0;");
}

static void child(int version)
{
    char r[2048], line[2048], kvs[300];
    const char *sp = getenv("PMI_SPAWNED");
    if (sp == NULL || strcmp(sp, "1") != 0)
        die("PMI_SPAWNED is not 1 in a spawned child");
    if (version == 1) {
        pmi1_start(kvs);
        snprintf(line, sizeof(line), "cmd=get kvsname=%s key=PARENT_ROOT_PORT_NAME\n", kvs);
        req1(line, r, sizeof(r));
        expect(r, "cmd=get_result rc=0 msg=success value=tag#0$port#5555$ with blanks");
        req1("cmd=barrier_in\n", r, sizeof(r));
        expect(r, "cmd=barrier_out");
        req1("cmd=finalize\n", r, sizeof(r));
        expect(r, "cmd=finalize_ack");
        return;
    }
    req1("cmd=init pmi_version=2 pmi_subversion=0\n", r, sizeof(r));
    req2("cmd=fullinit;pmirank=0;threaded=FALSE;", true, r, sizeof(r));
    if (strstr(r, ";spawner-jobid=") == NULL)
        die("no spawner-jobid in '%s'", r);
    req2("cmd=job-getid;", true, r, sizeof(r));
    if (sscanf(r, "cmd=job-getid-response;jobid=%299[^;]", kvs) != 1)
        die("jobid: '%s'", r);
    snprintf(line, sizeof(line), "cmd=kvs-get;jobid=%s;srcid=-1;key=PARENT_ROOT_PORT_NAME;", kvs);
    req2(line, true, r, sizeof(r));
    expect(r, "cmd=kvs-get-response;found=TRUE;value=port;;2;rc=0;");
    req2("cmd=kvs-fence;", true, r, sizeof(r));
    expect(r, "cmd=kvs-fence-response;rc=0;");
    req2("cmd=finalize;", true, r, sizeof(r));
    expect(r, "cmd=finalize-response;rc=0;");
}

/* The server must close on us: EOF after the violation. */
static void bad(const char *mode)
{
    char r[256];
    if (strcmp(mode, "noinit") == 0) {
        put_all("cmd=get_maxes\n", 14);
    } else if (strcmp(mode, "garbage") == 0) {
        put_all("\x01\x02garbage\n", 10);
    } else if (strcmp(mode, "unknown") == 0) {
        req1("cmd=init pmi_version=1 pmi_subversion=1\n", r, sizeof(r));
        put_all("cmd=frobnicate\n", 15);
    } else if (strcmp(mode, "oversized") == 0) {
        req1("cmd=init pmi_version=1 pmi_subversion=1\n", r, sizeof(r));
        char *big = malloc(200000);
        memcpy(big, "cmd=put kvsname=x key=k value=", 30);
        memset(big + 30, 'A', 200000 - 30);
        /* the server may close while we write: EPIPE is fine */
        size_t off = 0;
        while (off < 200000) {
            ssize_t w = write(fd, big + off, 200000 - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        free(big);
    } else if (strcmp(mode, "badid") == 0) {
        port_connect();
        put_all("cmd=initack pmiid=12345\n", 24);
    } else if (strcmp(mode, "badlen") == 0) {
        req1("cmd=init pmi_version=2 pmi_subversion=0\n", r, sizeof(r));
        put_all("99999999", 8);
    } else {
        die("unknown bad mode %s", mode);
    }
    ssize_t n;
    do {
        n = read(fd, r, sizeof(r));
    } while (n > 0 || (n < 0 && errno == EINTR));
    if (n < 0 && errno != ECONNRESET)
        die("read: %s", strerror(errno));
}

int main(int argc, char **argv)
{
    const char *e = getenv("PMI_FD");
    if (e == NULL || getenv("PMI_RANK") == NULL || getenv("PMI_SIZE") == NULL)
        die("no PMI_FD/PMI_RANK/PMI_SIZE");
    fd = atoi(e);
    rank = atoi(getenv("PMI_RANK"));
    size = atoi(getenv("PMI_SIZE"));
    signal(SIGPIPE, SIG_IGN);
    const char *mode = argc > 1 ? argv[1] : "pmi1";
    pmirank = getenv("PMI_RANK");
    if (strcmp(mode, "pmi1") == 0)
        pmi1();
    else if (strcmp(mode, "pmi2") == 0)
        pmi2();
    else if (strcmp(mode, "port1") == 0)
        port1(), pmi1();
    else if (strcmp(mode, "port2") == 0)
        port_connect(), pmirank = getenv("PMI_ID"), pmi2();
    else if (strcmp(mode, "bad") == 0 && argc > 2)
        bad(argv[2]);
    else if (strcmp(mode, "mixed") == 0)
        mixed(NULL);
    else if (strcmp(mode, "spawn1") == 0)
        spawn1();
    else if (strcmp(mode, "spawn2") == 0)
        spawn2();
    else if (strcmp(mode, "child1") == 0 || strcmp(mode, "child2") == 0)
        child(mode[5] - '0');
    else if (strcmp(mode, "die") == 0 && argc > 2)
        mixed(argv[2]);
    else if (strcmp(mode, "wait") == 0)
        wait_for_tool();
    else if (strcmp(mode, "threads") == 0)
        threads();
    else if (strcmp(mode, "remote") == 0)
        remote();
    else
        die("usage: pmi_wire pmi1|pmi2|mixed|spawn1|spawn2|child1|child2|wait|threads|remote|bad "
            "MODE|die "
            "close|kill");
    if (fails == 0)
        printf("wire %s ok rank %d\n", mode, rank);
    return fails == 0 ? 0 : 1;
}
