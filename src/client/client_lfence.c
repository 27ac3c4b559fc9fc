/* The local fence on the client side (common/lfence_page.h): a blocking
 * PMIx_Fence over our whole namespace, when the server offers the
 * namespace's collective page, counts itself in there and sleeps on the
 * page's futex on the calling thread; the last to arrive ends the
 * generation itself, or asks the server to (LFENCE op 1) when data is
 * collected or the server counted members in.  Anything else (another
 * proc set, Fence_nb, no page) takes FENCE, which the server counts into
 * the same page: every member meets in one place whichever way it came. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/info.h"
#include "common/lfence_page.h"
#include "common/log.h"

static pthread_mutex_t lf_lock = PTHREAD_MUTEX_INITIALIZER;
static bool lf_fencing; /* a thread of ours is in a fence of the page */
static pthread_cond_t lf_answered = PTHREAD_COND_INITIALIZER;
/* Whether we asked the server for the page: not yet; asked at Init and
 * the answer not in (the progress thread maps the page when it comes, so
 * that no fence waits for a round trip); done (a page, or none). */
static enum { LF_NOT_ASKED, LF_ASKED, LF_DONE } lf_state;
static pmix_rank_t lf_rank; /* ours, when we asked */
static sy_lfence_page_t *lf_page;
static size_t lf_size;
static bool lf_lost; /* the server's connection closed: nobody ends a generation */
static pid_t lf_pid; /* who mapped it: a forked child asks again for itself */

/* Map the page the server names; false: none (fences take FENCE). */
/* Under lf_lock: map the page at path, the server's answer to LFENCE op 0
 * (false: not usable; fences take FENCE). */
static bool map_page(pmix_rank_t rank, const char *path)
{
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
              (size_t)st.st_size >= sizeof(sy_lfence_page_t);
    void *map =
        ok ? mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (fd >= 0)
        close(fd);
    if (map != MAP_FAILED) {
        sy_lfence_page_t *p = map;
        ok = __atomic_load_n(&p->magic, __ATOMIC_ACQUIRE) == SY_LFENCE_MAGIC &&
             p->version == SY_LFENCE_VERSION && rank < p->nranks &&
             sy_lfence_size(p->nranks) == (uint64_t)st.st_size;
        if (ok) {
            /* Take the page faults now, not in the first fence: the file is
             * on the tmpdir's file system, whose shared writable mappings
             * fault on each process's first write to a page (and the
             * kernel's mkwrite can wait on the journal). */
            __atomic_fetch_or(&p->word, 0, __ATOMIC_SEQ_CST);
            uint32_t *slot = sy_lfence_slot(p, rank);
            __atomic_store_n(slot, __atomic_load_n(slot, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
            (void)__atomic_load_n(&p->reply_len, __ATOMIC_ACQUIRE);
            (void)__atomic_load_n((volatile unsigned char *)p->reply + SY_LFENCE_REPLY_MAX - 1,
                                  __ATOMIC_RELAXED);
            __atomic_store_n(&lf_page, p, __ATOMIC_RELEASE);
            lf_size = (size_t)st.st_size;
        } else {
            munmap(map, (size_t)st.st_size);
        }
    }
    if (lf_page == NULL)
        sy_log(SY_LOG_INFO, "client: local fence page %s not usable: fences go to the server",
               path);
    return lf_page != NULL;
}

/* Under lf_lock: ask and map, blocking (no answer asked for at Init). */
static void attach(const pmix_proc_t *me)
{
    lf_state = LF_DONE;
    lf_pid = getpid();
    sy_wire_lfence_req_t m = {.op = 0, .gen = 0};
    sy_wire_lfence_rep_t rep;
    pmix_status_t rc = sy_client_call_direct(SY_WMSG_LFENCE_REQ, &m, 365.0 * 86400, &rep);
    if (rc == PMIX_SUCCESS && rep.path != NULL)
        map_page(me->rank, rep.path);
    sy_wire_lfence_rep_free(&rep);
}

/* The answer to the question asked at Init, on the progress thread. */
static void answered(pmix_status_t status, sy_wire_msg_id_t id, void *reply, sy_client_cb_t user,
                     void *cbdata)
{
    (void)id;
    (void)user;
    (void)cbdata;
    const sy_wire_lfence_rep_t *rep = reply;
    pthread_mutex_lock(&lf_lock);
    if (lf_state == LF_ASKED && lf_pid == getpid()) {
        if (status == PMIX_SUCCESS && rep != NULL && rep->path != NULL &&
            map_page(lf_rank, rep->path))
            sy_log(SY_LOG_DEBUG, "client: local fence page mapped ahead (asked at Init)");
        lf_state = LF_DONE;
        pthread_cond_broadcast(&lf_answered);
    }
    pthread_mutex_unlock(&lf_lock);
}

/* Do procs name our whole namespace (n == 0: the default)? */
static bool whole(const pmix_proc_t *me, const pmix_proc_t procs[], size_t n, uint32_t size)
{
    if (procs == NULL || n == 0)
        return true;
    if (n == 1 && procs[0].rank == PMIX_RANK_WILDCARD)
        return PMIX_CHECK_NSPACE(procs[0].nspace, me->nspace);
    if (n != size)
        return false;
    unsigned char *seen = calloc(size, 1);
    bool all = seen != NULL;
    for (size_t i = 0; all && i < n; i++) {
        if (!PMIX_CHECK_NSPACE(procs[i].nspace, me->nspace) || procs[i].rank >= size ||
            seen[procs[i].rank])
            all = false;
        else
            seen[procs[i].rank] = 1;
    }
    free(seen);
    return all;
}

static void wake_all(sy_lfence_page_t *p)
{
    syscall(SYS_futex, sy_lfence_futex(p), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep while the generation's half of the word still reads `half`, at
 * most `secs`. */
static void futex_wait(sy_lfence_page_t *p, uint32_t half, double secs)
{
    struct timespec ts = {.tv_sec = (time_t)secs,
                          .tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9)};
    syscall(SYS_futex, sy_lfence_futex(p), FUTEX_WAIT, half, &ts, NULL, 0);
}

/* Before sleeping, watch the word a little while: a fence usually ends
 * within a few hundred microseconds, and a CPU that went idle takes long
 * to wake again (on a virtual machine the hypervisor must schedule the
 * halted vCPU), for the members still to arrive as for the wake-up at the
 * end.  Only when the job does not oversubscribe the node (its ranks no
 * more than the CPUs online), as MPI libraries poll only then: otherwise
 * the watcher takes a CPU a member needs, and yielding it hands it to
 * whatever else is runnable for a whole time slice (measured: 2 CPU-bound
 * processes beside an 8-rank job made its fence 3-4x slower).
 * SWITCHYARD_LFENCE_SPIN_US sets the time (0: sleep at once). */
static void spin(sy_lfence_page_t *p, uint32_t gen)
{
    static double limit = -1; /* under lf_lock */
    if (limit < 0) {
        const char *e = getenv("SWITCHYARD_LFENCE_SPIN_US");
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        double us = e != NULL && *e != '\0'         ? strtod(e, NULL)
                    : cpus > 0 && p->nranks <= cpus ? 300
                                                    : 0;
        limit = us > 0 && us < 1e6 ? us / 1e6 : 0;
    }
    if (limit <= 0)
        return;
    double until = now() + limit;
    while (sy_lf_gen(__atomic_load_n(&p->word, __ATOMIC_ACQUIRE)) == gen && now() < until)
        sched_yield();
}

/* Claim the reply the server published ahead for generation gen's end. */
static bool claim_ready(sy_lfence_page_t *p, pmix_rank_t rank, uint32_t gen)
{
    uint64_t r = __atomic_load_n(&p->ready, __ATOMIC_ACQUIRE);
    return (uint32_t)r == SY_LF_READY &&
           __atomic_compare_exchange_n(&p->ready, &r, sy_lf_claim(SY_LF_CLAIM_RANK0 + rank, gen),
                                       false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* How generation gen ended, and the segments it published. */
static pmix_status_t outcome(sy_lfence_page_t *p, uint32_t gen)
{
    uint64_t w = __atomic_load_n(&p->word, __ATOMIC_ACQUIRE);
    pmix_status_t st;
    if (__atomic_load_n(&p->result_gen, __ATOMIC_ACQUIRE) == gen + 1)
        st = p->result_status;
    else
        st = (w & SY_LF_TIMEOUT)   ? PMIX_ERR_TIMEOUT
             : (w & SY_LF_PARTIAL) ? PMIX_ERR_PARTIAL_SUCCESS
                                   : PMIX_SUCCESS;
    if ((st != PMIX_SUCCESS && st != PMIX_ERR_PARTIAL_SUCCESS) ||
        __atomic_load_n(&p->reply_gen, __ATOMIC_ACQUIRE) != gen + 1)
        return st;
    /* the collected data: the FENCE reply the server left for us */
    uint32_t len = p->reply_len;
    if (len > SY_LFENCE_REPLY_MAX)
        return PMIX_ERR_UNPACK_FAILURE;
    pmix_data_buffer_t b = {0};
    if (len > 0 && sy_buffer_append(&b, p->reply, len) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    sy_wire_fence_rep_t rep;
    pmix_status_t rc = sy_wire_unpack(&sy_wire_native, &b, SY_WMSG_FENCE_REP, &rep);
    sy_buffer_destruct(&b);
    if (rc == PMIX_SUCCESS)
        rc = sy_client_attach_segments(rep.segments, rep.nsegments, rep.retired, rep.nretired);
    sy_wire_fence_rep_free(&rep);
    return rc != PMIX_SUCCESS ? rc : st;
}

/* Ask the server to end generation gen (it publishes, or answers the
 * members it counted in). */
static pmix_status_t tell_server(uint32_t gen)
{
    sy_wire_lfence_req_t m = {.op = 1, .gen = gen};
    sy_wire_lfence_rep_t rep;
    pmix_status_t rc = sy_client_call_direct(SY_WMSG_LFENCE_REQ, &m, 365.0 * 86400, &rep);
    sy_wire_lfence_rep_free(&rep);
    return rc;
}

/* Test only (lfence.sh): SWITCHYARD_TEST_LFENCE_DIE=before-count or
 * before-confirm kills this process at that point of its next fence's
 * arrival, the window a real death can hit only by chance. */
enum { LF_DIE_NEVER, LF_DIE_BEFORE_COUNT, LF_DIE_BEFORE_CONFIRM };

static void test_die_in_window(int where)
{
    static int when_read = -1; /* not read yet */
    int when = __atomic_load_n(&when_read, __ATOMIC_RELAXED);
    if (when < 0) {
        const char *e = getenv("SWITCHYARD_TEST_LFENCE_DIE");
        when = e == NULL                          ? LF_DIE_NEVER
               : strcmp(e, "before-count") == 0   ? LF_DIE_BEFORE_COUNT
               : strcmp(e, "before-confirm") == 0 ? LF_DIE_BEFORE_CONFIRM
                                                  : LF_DIE_NEVER;
        __atomic_store_n(&when_read, when, __ATOMIC_RELAXED);
    }
    if (when == where)
        raise(SIGKILL);
}

static pmix_status_t fence(sy_lfence_page_t *p, pmix_rank_t rank, bool collect, double timeout)
{
    uint32_t *slot = sy_lfence_slot(p, rank);
    uint64_t w = __atomic_load_n(&p->word, __ATOMIC_ACQUIRE), nw;
    uint32_t gen;
    for (;;) {
        gen = sy_lf_gen(w);
        if (sy_lf_pending(w)) { /* the last one still being ended */
            futex_wait(p, (uint32_t)(w >> 32), 0.01);
            w = __atomic_load_n(&p->word, __ATOMIC_ACQUIRE);
            continue;
        }
        /* where the server sees whether we were counted, should we die:
         * "counting" until the swap is done, then "counted" */
        __atomic_store_n(slot, (gen + 1) | SY_LFENCE_SLOT_COUNTING, __ATOMIC_SEQ_CST);
        test_die_in_window(LF_DIE_BEFORE_COUNT);
        nw = (w + 1) | (collect ? SY_LF_COLLECT : 0);
        if (__atomic_compare_exchange_n(&p->word, &w, nw, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
            break;
    }
    test_die_in_window(LF_DIE_BEFORE_CONFIRM);
    __atomic_store_n(slot, gen + 1, __ATOMIC_SEQ_CST);
    sy_log(SY_LOG_DEBUG, "client: local fence: rank %u in generation %u (%u of %u)%s",
           (unsigned)rank, gen, sy_lf_arrived(nw), sy_lf_expected(nw),
           sy_lf_pending(nw) ? ", the last" : "");
    if (sy_lf_pending(nw)) { /* the last one: end it */
        if ((nw & SY_LF_SERVER) || ((nw & SY_LF_COLLECT) && !claim_ready(p, rank, gen))) {
            pmix_status_t rc = tell_server(gen);
            if (rc != PMIX_SUCCESS)
                return rc;
        } else {
            /* the data collected is the reply published ahead */
            if (nw & SY_LF_COLLECT)
                __atomic_store_n(&p->reply_gen, gen + 1, __ATOMIC_RELEASE);
            w = nw;
            while (sy_lf_gen(w) == gen &&
                   !__atomic_compare_exchange_n(&p->word, &w, sy_lf_ended(w, false), false,
                                                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
                ;
            wake_all(p);
        }
        return outcome(p, gen);
    }
    double deadline = timeout > 0 ? now() + timeout : 0;
    spin(p, gen);
    for (;;) {
        w = __atomic_load_n(&p->word, __ATOMIC_ACQUIRE);
        if (sy_lf_gen(w) != gen)
            break;
        if (__atomic_load_n(&lf_lost, __ATOMIC_ACQUIRE))
            return PMIX_ERR_LOST_CONNECTION;
        double left = deadline > 0 ? deadline - now() : 1.0;
        if (left <= 0 && !sy_lf_pending(w)) {
            /* PMIX_TIMEOUT: the fence ends for every member that arrived,
             * as the server's timer ends a FENCE */
            if (__atomic_compare_exchange_n(&p->word, &w, sy_lf_ended(w, true), false,
                                            __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
                wake_all(p);
                if (w & SY_LF_SERVER)
                    tell_server(gen); /* it answers the members it holds */
                return PMIX_ERR_TIMEOUT;
            }
            continue;
        }
        if (left <= 0)
            left = 0.01; /* complete: being ended */
        if (left > 1.0)
            left = 1.0;
        futex_wait(p, (uint32_t)(w >> 32), left);
    }
    return outcome(p, gen);
}

static bool usable(pmix_proc_t *me)
{
    pthread_mutex_lock(&sy_client_lock);
    bool ok = sy_client.refcount > 0 && sy_client.conn != NULL && !sy_client.opx &&
              !sy_client.tool && !sy_client.singleton;
    *me = sy_client.me;
    pthread_mutex_unlock(&sy_client_lock);
    return ok;
}

/* Under lf_lock: a page mapped (or asked for) by our parent before a fork
 * is not ours. */
static void forget_parents(void)
{
    if (lf_state != LF_NOT_ASKED && lf_pid != getpid()) {
        if (lf_page != NULL)
            munmap(lf_page, lf_size);
        __atomic_store_n(&lf_page, NULL, __ATOMIC_RELEASE);
        lf_state = LF_NOT_ASKED;
    }
}

/* Under lf_lock: the page (or none) known, waiting for the answer asked
 * for at Init if it is not in yet. */
static void settle(const pmix_proc_t *me)
{
    forget_parents();
    /* on the progress thread the answer cannot come while we wait: this
     * fence takes FENCE, a later one the page */
    if (lf_state == LF_ASKED) {
        pthread_mutex_lock(&sy_client_lock);
        bool in_loop = sy_progress_in_loop(sy_client.progress);
        pthread_mutex_unlock(&sy_client_lock);
        if (in_loop)
            return;
    }
    if (lf_state == LF_ASKED) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 60;
        while (lf_state == LF_ASKED &&
               pthread_cond_timedwait(&lf_answered, &lf_lock, &until) != ETIMEDOUT)
            ;
        if (lf_state == LF_ASKED) {
            sy_log(SY_LOG_WARN, "client: no answer about the local fence page in 60 s: fences "
                                "go to the server");
            lf_state = LF_DONE;
        }
    }
    if (lf_state == LF_NOT_ASKED)
        attach(me);
}

void sy_client_lfence_init(void)
{
    pmix_proc_t me;
    if (!usable(&me))
        return;
    pthread_mutex_lock(&lf_lock);
    forget_parents();
    bool ask = lf_state == LF_NOT_ASKED;
    if (ask) {
        lf_state = LF_ASKED;
        lf_pid = getpid();
        lf_rank = me.rank;
    }
    pthread_mutex_unlock(&lf_lock);
    if (!ask)
        return;
    /* not under lf_lock: the answer takes it */
    sy_wire_lfence_req_t m = {.op = 0, .gen = 0};
    if (sy_client_call_nb(SY_WMSG_LFENCE_REQ, &m, answered, (sy_client_cb_t){0}, NULL) !=
        PMIX_SUCCESS) {
        pthread_mutex_lock(&lf_lock);
        if (lf_state == LF_ASKED)
            lf_state = LF_NOT_ASKED; /* the first fence asks */
        pthread_cond_broadcast(&lf_answered);
        pthread_mutex_unlock(&lf_lock);
    }
}

void sy_client_lfence_prepare(void)
{
    pmix_proc_t me;
    if (!usable(&me) || pthread_mutex_trylock(&lf_lock) != 0)
        return;
    forget_parents();
    if (lf_state == LF_NOT_ASKED)
        attach(&me);
    pthread_mutex_unlock(&lf_lock);
}

bool sy_client_lfence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                      size_t ninfo, pmix_status_t *rc)
{
    pmix_proc_t me;
    if (!usable(&me) || (procs == NULL && nprocs > 0) || (info == NULL && ninfo > 0))
        return false;
    /* one fence of ours at a time: another thread's takes FENCE.  (Not a
     * trylock of lf_lock: the progress thread takes it too, to map the
     * page asked for at Init, and a fence must not leave the page for
     * that.) */
    if (__atomic_exchange_n(&lf_fencing, true, __ATOMIC_ACQUIRE))
        return false;
    pthread_mutex_lock(&lf_lock);
    settle(&me);
    sy_lfence_page_t *p = lf_page;
    size_t ni = info != NULL ? ninfo : 0;
    bool handled = false;
    if (p != NULL && whole(&me, procs, nprocs, p->nranks)) {
        bool collect = sy_info_flag(info, ni, PMIX_COLLECT_DATA) ||
                       sy_info_flag(info, ni, PMIX_COLLECT_GENERATED_JOB_INFO);
        double secs = 0;
        if (sy_info_timeout(info, ni, &secs) != PMIX_SUCCESS)
            secs = 0;
        *rc = fence(p, me.rank, collect, secs);
        handled = true;
    }
    pthread_mutex_unlock(&lf_lock);
    __atomic_store_n(&lf_fencing, false, __ATOMIC_RELEASE);
    return handled;
}

void sy_client_lfence_lost(void)
{
    __atomic_store_n(&lf_lost, true, __ATOMIC_RELEASE);
    /* a waiter wakes and sees it (the page stays mapped until finalize; a
     * wake on an address unmapped meanwhile only fails) */
    sy_lfence_page_t *p = __atomic_load_n(&lf_page, __ATOMIC_ACQUIRE);
    if (p != NULL)
        wake_all(p);
}

void sy_client_lfence_finalize(void)
{
    pthread_mutex_lock(&lf_lock);
    sy_lfence_page_t *p = lf_page;
    __atomic_store_n(&lf_page, NULL, __ATOMIC_RELEASE);
    if (p != NULL)
        munmap(p, lf_size);
    lf_size = 0;
    lf_state = LF_NOT_ASKED;
    __atomic_store_n(&lf_lost, false, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lf_lock);
}
