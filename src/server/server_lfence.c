/* The local fence (common/lfence_page.h): fences over the whole namespace
 * of a job that lives on this node alone meet in a page the server shares
 * with the namespace's clients.  A client of ours counts itself in there
 * and sleeps on a futex; the server counts in every other arrival (FENCE
 * from a client that does not map the page, Fence_nb, OpenPMIx clients,
 * PMI barriers) and answers them when the generation ends, publishes the
 * collected data when asked, and takes departures and timeouts into the
 * word.  Loop only (the clients are the other writers of the page). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "common/buffer.h"
#include "common/lfence_page.h"
#include "common/log.h"
#include "common/safefile.h"
#include "common/wire.h"
#include "server/server_coll.h"
#include "server/server_group.h"
#include "server/server_internal.h"
#include "server/server_lfence.h"
#include "server/server_modex.h"
#include "server/server_msg.h"
#include "server/server_peer.h"
#include "server/server_registry.h"

typedef struct lf_member {
    sy_srv_peer_t *peer; /* NULL: told through notify */
    uint32_t tag;
    pmix_proc_t proc;
    sy_srv_coll_notify_fn notify;
    void *ctx;
    struct lf_member *next;
} lf_member_t;

typedef struct lf_ns {
    char nspace[PMIX_MAX_NSLEN + 1];
    char *path;
    sy_lfence_page_t *page;
    size_t size;
    uint32_t nranks;   /* ours: the page's copy is writable by every client */
    lf_member_t *held; /* members the server counted in, of generation held_gen */
    uint32_t held_gen;
    sy_timer_t *timer; /* the held members' PMIX_TIMEOUT */
    /* per rank, the generation + 1 in which it last committed since the
     * last publication (0: not since); nfresh counts those of generation
     * fresh_gen.  When every expected member has committed in the current
     * generation, the data is published ahead (prepare).  Only commits of
     * the current generation count: a member commits in it after its last
     * fence returned, so it no longer reads the reply that fence left in
     * the page, which publishing rewrites; one that committed before it
     * arrived at the last fence may still be reading it. */
    uint32_t *fresh;
    uint32_t nfresh, fresh_gen;
    sy_wire_fence_rep_t ready_rep; /* what the page's ready reply says */
    struct lf_ns *next;
} lf_ns_t;

static lf_ns_t *pages;
static unsigned long page_serial;
static unsigned long server_arrivals; /* counted in by the server (SWITCHYARD_LOG=debug) */

static bool enabled(void)
{
    const char *e = getenv("SWITCHYARD_LOCAL_FENCE");
    return e == NULL || strcmp(e, "0") != 0;
}

static void wake_all(lf_ns_t *l)
{
    syscall(SYS_futex, sy_lfence_futex(l->page), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static lf_ns_t *find(const char *nspace)
{
    for (lf_ns_t *l = pages; l != NULL; l = l->next)
        if (PMIX_CHECK_NSPACE(l->nspace, nspace))
            return l;
    return NULL;
}

/* Every rank of ns lives here: the job is on this node alone. */
static bool eligible(const sy_srv_nspace_t *ns)
{
    return ns != NULL && ns->summary.job_size > 0 && ns->summary.job_size == ns->summary.nlocal &&
           ns->summary.job_size <= SY_LFENCE_MAX_RANKS && enabled();
}

static lf_ns_t *create(sy_srv_t *s, const sy_srv_nspace_t *ns)
{
    uint32_t n = ns->summary.job_size;
    lf_ns_t *l = calloc(1, sizeof(*l));
    if (l == NULL)
        return NULL;
    PMIX_LOAD_NSPACE(l->nspace, ns->name);
    l->size = sy_lfence_size(n);
    l->fresh = calloc(n, sizeof(*l->fresh));
    if (l->fresh == NULL ||
        asprintf(&l->path, "%s/lfence.%u.%lu", s->tmpdir, ns->id, ++page_serial) < 0) {
        free(l->fresh);
        free(l);
        return NULL;
    }
    /* exclusively, 0600, in the server's 0700 tmpdir (docs/security.md) */
    int fd = open(l->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    const char *why = NULL;
    if (fd < 0 || !sy_safe_fd_ours(fd, false, 077, &why) || ftruncate(fd, (off_t)l->size) != 0) {
        sy_log(SY_LOG_WARN, "server: local fence page %s: %s", l->path,
               why != NULL ? why : strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(l->path);
        }
        free(l->path);
        free(l->fresh);
        free(l);
        return NULL;
    }
    void *map = mmap(NULL, l->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        unlink(l->path);
        free(l->path);
        free(l->fresh);
        free(l);
        return NULL;
    }
    l->page = map;
    l->page->nranks = n;
    l->nranks = n;
    l->page->version = SY_LFENCE_VERSION;
    /* ranks that ended already are not waited for (as skip_ended) */
    uint32_t expected = n;
    uint64_t flags = 0;
    for (uint32_t r = 0; r < n; r++) {
        pmix_proc_t p;
        bool finalized;
        PMIX_LOAD_PROCID(&p, ns->name, r);
        if (sy_group_ended(&p, &finalized)) {
            *sy_lfence_slot(l->page, r) = SY_LFENCE_SLOT_GONE;
            expected--;
            flags = SY_LF_DEPARTED;
        }
    }
    __atomic_store_n(&l->page->word, sy_lf_make(0, expected, 0, flags), __ATOMIC_SEQ_CST);
    __atomic_store_n(&l->page->magic, SY_LFENCE_MAGIC, __ATOMIC_RELEASE);
    l->next = pages;
    pages = l;
    sy_log(SY_LOG_DEBUG, "server: local fence page of %s: %s (%u ranks, %u expected)", l->nspace,
           l->path, n, expected);
    return l;
}

/* The namespace's page, made on first use; NULL: its fences take the
 * collective engine. */
static lf_ns_t *page_of(const char *nspace)
{
    lf_ns_t *l = find(nspace);
    if (l != NULL)
        return l;
    sy_srv_nspace_t *ns = sy_srv_nspace_find(sy_srv, nspace);
    return eligible(ns) ? create(sy_srv, ns) : NULL;
}

static pmix_status_t result_of(const lf_ns_t *l, uint64_t w, uint32_t gen)
{
    if (__atomic_load_n(&l->page->result_gen, __ATOMIC_ACQUIRE) == gen + 1)
        return l->page->result_status;
    return (w & SY_LF_TIMEOUT)   ? PMIX_ERR_TIMEOUT
           : (w & SY_LF_PARTIAL) ? PMIX_ERR_PARTIAL_SUCCESS
                                 : PMIX_SUCCESS;
}

static void answer_held(lf_ns_t *l, pmix_status_t st, const sy_wire_fence_rep_t *rep)
{
    if (l->timer != NULL) {
        sy_timer_cancel(l->timer);
        l->timer = NULL;
    }
    /* held is newest first; answered in arrival order, as the collective
     * engine answers: the member that has waited longest is told first,
     * instead of after every later arrival's reply (a fence's time is its
     * slowest member's) */
    lf_member_t *first = NULL;
    while (l->held != NULL) {
        lf_member_t *m = l->held;
        l->held = m->next;
        m->next = first;
        first = m;
    }
    while (first != NULL) {
        lf_member_t *m = first;
        first = m->next;
        if (m->peer != NULL) {
            sy_srv_peer_reply_msg(m->peer, m->tag, st, SY_WMSG_FENCE_REP, rep);
            sy_srv_peer_release(m->peer);
        } else {
            m->notify(st, m->ctx);
        }
        free(m);
    }
}

/* The held members' generation ended without us (a client's timeout):
 * tell them how. */
static void sync_held(lf_ns_t *l)
{
    if (l->held == NULL)
        return;
    uint64_t w = __atomic_load_n(&l->page->word, __ATOMIC_ACQUIRE);
    if (sy_lf_gen(w) != l->held_gen)
        answer_held(l, result_of(l, w, l->held_gen), NULL);
}

/* Pack rep where the members read it. */
static pmix_status_t write_reply(lf_ns_t *l, const sy_wire_fence_rep_t *rep)
{
    pmix_data_buffer_t b = {0};
    pmix_status_t rc = sy_wire_pack(&sy_wire_native, &b, SY_WMSG_FENCE_REP, rep);
    if (rc == PMIX_SUCCESS && b.bytes_used > SY_LFENCE_REPLY_MAX) {
        sy_log(SY_LOG_WARN, "server: local fence of %s: reply of %zu bytes too large", l->nspace,
               b.bytes_used);
        rc = PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS) {
        memcpy(l->page->reply, b.base_ptr, b.bytes_used);
        l->page->reply_len = (uint32_t)b.bytes_used;
    }
    sy_buffer_destruct(&b);
    return rc;
}

/* Publish every datum the namespace's members committed so far. */
static pmix_status_t publish(lf_ns_t *l, sy_wire_fence_rep_t *rep)
{
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, l->nspace, PMIX_RANK_WILDCARD);
    pmix_data_buffer_t none = {0};
    memset(l->fresh, 0, l->nranks * sizeof(*l->fresh));
    l->nfresh = 0;
    return sy_srv_modex_publish(sy_srv, &all, 1, &none, rep);
}

/* Every expected member committed since the last publication: publish
 * now, before the last commit is acknowledged, so that the member that
 * ends the next collecting fence hands the reply out itself. */
static void prepare(lf_ns_t *l)
{
    sy_lfence_page_t *pg = l->page;
    /* ready first: a member claims after it made the word pending */
    uint64_t r = __atomic_load_n(&pg->ready, __ATOMIC_SEQ_CST);
    uint64_t w = __atomic_load_n(&pg->word, __ATOMIC_SEQ_CST);
    if ((uint32_t)r >= SY_LF_CLAIM_SERVER && (uint32_t)(r >> 32) == sy_lf_gen(w) &&
        sy_lf_pending(w))
        return; /* the reply is being handed out */
    /* (no member reads reply now: each committed in this generation, so
     * after its last fence returned; see lf_ns_t.fresh) */
    __atomic_store_n(&pg->ready, sy_lf_claim(SY_LF_READY_NONE, 0), __ATOMIC_SEQ_CST);
    __atomic_store_n(&pg->reply_gen, 0, __ATOMIC_RELEASE);
    sy_wire_fence_rep_t rep;
    pmix_status_t rc = publish(l, &rep);
    if (rc == PMIX_SUCCESS)
        rc = write_reply(l, &rep);
    if (rc != PMIX_SUCCESS) {
        sy_wire_fence_rep_free(&rep);
        return; /* the fence's end publishes */
    }
    sy_wire_fence_rep_free(&l->ready_rep);
    l->ready_rep = rep;
    __atomic_store_n(&pg->ready, sy_lf_claim(SY_LF_READY, 0), __ATOMIC_RELEASE);
    sy_log(SY_LOG_DEBUG, "server: local fence of %s: data published ahead", l->nspace);
}

/* End generation gen if it is complete: publish what was collected (or
 * take the reply published ahead), write the reply where the members read
 * it, bump the generation, wake them, answer the held ones.  A member that
 * claimed the ready reply ends it itself, unless it left meanwhile. */
static void finish(lf_ns_t *l, uint32_t gen)
{
    sy_lfence_page_t *pg = l->page;
    uint64_t w = __atomic_load_n(&pg->word, __ATOMIC_ACQUIRE);
    if (sy_lf_gen(w) != gen || !sy_lf_pending(w)) {
        sync_held(l);
        return;
    }
    sy_wire_fence_rep_t rep = {0};
    const sy_wire_fence_rep_t *answer = &rep;
    bool collected = (w & SY_LF_COLLECT) != 0;
    pmix_status_t rc = PMIX_SUCCESS;
    if (collected) {
        uint64_t r = __atomic_load_n(&pg->ready, __ATOMIC_SEQ_CST);
        for (;;) {
            uint32_t who = (uint32_t)r;
            if (who >= SY_LF_CLAIM_RANK0 && (uint32_t)(r >> 32) == gen) {
                uint32_t rank = who - SY_LF_CLAIM_RANK0;
                if (rank < l->nranks && __atomic_load_n(sy_lfence_slot(pg, rank),
                                                        __ATOMIC_ACQUIRE) != SY_LFENCE_SLOT_GONE)
                    return;             /* that member is ending it */
                answer = &l->ready_rep; /* it left before it could */
                break;
            }
            if (who == SY_LF_READY) {
                /* a member may claim it meanwhile: then it ends it */
                if (__atomic_compare_exchange_n(&pg->ready, &r,
                                                sy_lf_claim(SY_LF_CLAIM_SERVER, gen), false,
                                                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
                    answer = &l->ready_rep; /* published ahead */
                    break;
                }
                continue;
            }
            rc = publish(l, &rep);
            if (rc == PMIX_SUCCESS)
                rc = write_reply(l, &rep);
            break;
        }
        if (rc == PMIX_SUCCESS)
            __atomic_store_n(&pg->reply_gen, gen + 1, __ATOMIC_RELEASE);
    }
    if (rc != PMIX_SUCCESS) {
        pg->result_status = rc;
        __atomic_store_n(&pg->result_gen, gen + 1, __ATOMIC_RELEASE);
    }
    sy_log(SY_LOG_DEBUG, "server: local fence of %s: generation %u ends%s: %s", l->nspace, gen,
           !collected       ? ""
           : answer == &rep ? ", data collected"
                            : ", data published ahead",
           PMIx_Error_string(rc));
    uint64_t nw;
    do {
        if (sy_lf_gen(w) != gen)
            break; /* cannot happen while pending; defensive */
        nw = sy_lf_ended(w, false);
    } while (
        !__atomic_compare_exchange_n(&pg->word, &w, nw, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    wake_all(l);
    pmix_status_t st = rc != PMIX_SUCCESS          ? rc
                       : (w & SY_LF_DEPARTED) != 0 ? PMIX_ERR_PARTIAL_SUCCESS
                                                   : PMIX_SUCCESS;
    if (l->held != NULL && l->held_gen == gen)
        answer_held(l, st, rc == PMIX_SUCCESS && collected ? answer : NULL);
    sy_wire_fence_rep_free(&rep);
}

void sy_srv_lfence_data_changed(const pmix_proc_t *who)
{
    lf_ns_t *l = find(who->nspace);
    if (l == NULL)
        return; /* no page yet: nothing published ahead */
    /* what was published ahead no longer holds everything (before the
     * change is acknowledged, so before its member can arrive) */
    uint64_t r = __atomic_load_n(&l->page->ready, __ATOMIC_ACQUIRE);
    while ((uint32_t)r == SY_LF_READY &&
           !__atomic_compare_exchange_n(&l->page->ready, &r, sy_lf_claim(SY_LF_READY_NONE, 0),
                                        false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        ;
}

void sy_srv_lfence_committed(const pmix_proc_t *who)
{
    lf_ns_t *l = page_of(who->nspace);
    if (l == NULL || who->rank >= l->nranks)
        return;
    uint64_t w = __atomic_load_n(&l->page->word, __ATOMIC_ACQUIRE);
    uint32_t gen = sy_lf_gen(w);
    if (l->fresh_gen != gen) { /* a fence ended: earlier commits count no more */
        l->fresh_gen = gen;
        l->nfresh = 0;
    }
    if (l->fresh[who->rank] != gen + 1) {
        l->fresh[who->rank] = gen + 1;
        l->nfresh++;
    }
    if (l->nfresh >= sy_lf_expected(w) && sy_lf_expected(w) > 0 && !sy_lf_pending(w))
        prepare(l);
}

static void held_timeout(void *arg)
{
    lf_ns_t *l = arg;
    if (l->timer != NULL) {
        sy_timer_cancel(l->timer);
        l->timer = NULL;
    }
    uint64_t w = __atomic_load_n(&l->page->word, __ATOMIC_ACQUIRE);
    while (l->held != NULL && sy_lf_gen(w) == l->held_gen && !sy_lf_pending(w)) {
        if (__atomic_compare_exchange_n(&l->page->word, &w, sy_lf_ended(w, true), false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            wake_all(l);
            break;
        }
    }
    sync_held(l);
}

bool sy_srv_lfence_whole(const pmix_proc_t *procs, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 1; i < n; i++)
        if (!PMIX_CHECK_NSPACE(procs[i].nspace, procs[0].nspace))
            return false;
    sy_srv_nspace_t *ns = sy_srv_nspace_find(sy_srv, procs[0].nspace);
    if (!eligible(ns))
        return false;
    if (n == 1 && procs[0].rank == PMIX_RANK_WILDCARD)
        return true;
    uint32_t size = ns->summary.job_size;
    if (n != size)
        return false;
    /* every rank listed once */
    unsigned char *seen = calloc(size, 1);
    bool whole = seen != NULL;
    for (size_t i = 0; whole && i < n; i++) {
        if (procs[i].rank >= size || seen[procs[i].rank])
            whole = false;
        else
            seen[procs[i].rank] = 1;
    }
    free(seen);
    return whole;
}

pmix_status_t sy_srv_lfence_join(const char *nspace, sy_srv_peer_t *peer, uint32_t tag,
                                 const pmix_proc_t *who, sy_srv_coll_notify_fn notify, void *ctx,
                                 bool collect, double timeout)
{
    lf_ns_t *l = page_of(nspace);
    if (l == NULL)
        return PMIX_ERR_NOT_SUPPORTED;
    sync_held(l);
    lf_member_t *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return PMIX_ERR_NOMEM;
    m->peer = peer;
    m->tag = tag;
    m->proc = *who;
    m->notify = notify;
    m->ctx = ctx;
    if (peer != NULL)
        sy_srv_peer_hold(peer);
    uint64_t w = __atomic_load_n(&l->page->word, __ATOMIC_ACQUIRE), nw;
    do {
        nw = w + 1; /* one more arrival */
        nw |= SY_LF_SERVER | (collect ? SY_LF_COLLECT : 0);
    } while (!__atomic_compare_exchange_n(&l->page->word, &w, nw, false, __ATOMIC_SEQ_CST,
                                          __ATOMIC_SEQ_CST));
    l->held_gen = sy_lf_gen(nw);
    m->next = l->held;
    l->held = m;
    server_arrivals++;
    sy_log(SY_LOG_DEBUG, "server: local fence of %s: %s.%u counted in by the server (%lu so far)",
           l->nspace, who->nspace, who->rank, server_arrivals);
    if (timeout > 0 && l->timer == NULL)
        sy_progress_timer(sy_srv->progress, timeout, held_timeout, l, &l->timer);
    if (sy_lf_pending(nw))
        finish(l, sy_lf_gen(nw));
    else if (collect)
        sy_srv_modex_make_spare(sy_srv); /* while waiting for the others */
    return PMIX_SUCCESS;
}

void sy_srv_lfence_command(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_wire_lfence_req_t m;
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, SY_WMSG_LFENCE_REQ, &m);
    if (rc != PMIX_SUCCESS) {
        sy_srv_peer_reply_status(peer, tag, rc);
        return;
    }
    uint8_t op = m.op;
    uint32_t gen = m.gen & (uint32_t)SY_LF_GEN_MASK;
    sy_wire_lfence_req_free(&m);
    /* only our own clients of the server's uid map the page: the others'
     * fences come as FENCE and are counted in here */
    lf_ns_t *l = NULL;
    if (peer->client != NULL && peer->tool == NULL && !peer->opx && !peer->tcp &&
        peer->cred_known && peer->uid == geteuid())
        l = page_of(peer->proc.nspace);
    if (l == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_SUPPORTED);
        return;
    }
    if (op == 0) {
        sy_wire_lfence_rep_t rep = {.path = l->path};
        sy_srv_peer_reply_msg(peer, tag, PMIX_SUCCESS, SY_WMSG_LFENCE_REP, &rep);
        return;
    }
    finish(l, gen);
    uint64_t w = __atomic_load_n(&l->page->word, __ATOMIC_ACQUIRE);
    sy_srv_peer_reply_status(peer, tag, sy_lf_gen(w) != gen ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM);
}

/* A member left: it is expected no more, and no longer counted in the
 * generation it had joined; a generation complete without it ends. */
/* How long a departure waits for live members to finish counting
 * themselves in before it can tell whether a dead one was counted. */
#define SETTLE_SECONDS 1.0

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A member that died between writing its slot "counting" and its
 * compare-and-swap may or may not have been counted.  The word's arrivals
 * are the members that counted themselves (their slots say "counted" once
 * they are done) and those the server holds: 1 when the dead one's count
 * is among them, 0 when not, -1 when that cannot be told yet (a live
 * member is counting itself in, or the word moved meanwhile: ask again). */
static int count_went_in(lf_ns_t *l, uint32_t dead, uint64_t w)
{
    uint32_t gen1 = sy_lf_gen(w) + 1, counted = 0;
    for (uint32_t r = 0; r < l->nranks; r++) {
        if (r == dead)
            continue;
        uint32_t s = __atomic_load_n(sy_lfence_slot(l->page, r), __ATOMIC_ACQUIRE);
        if (s == (gen1 | SY_LFENCE_SLOT_COUNTING))
            return -1;
        counted += s == gen1;
    }
    for (const lf_member_t *m = l->held; m != NULL && l->held_gen == sy_lf_gen(w); m = m->next)
        counted++;
    if (__atomic_load_n(&l->page->word, __ATOMIC_ACQUIRE) != w)
        return -1;
    uint32_t arrived = sy_lf_arrived(w);
    return arrived == counted + 1 ? 1 : arrived == counted ? 0 : -1;
}

static void gone(const sy_srv_peer_t *peer, const pmix_proc_t *who)
{
    lf_ns_t *l = find(who->nspace);
    if (l == NULL || who->rank >= l->nranks)
        return;
    bool held = false;
    for (lf_member_t **pp = &l->held; *pp != NULL;) {
        lf_member_t *m = *pp;
        if (PMIX_CHECK_PROCID(&m->proc, who) && (peer == NULL || m->peer == peer)) {
            *pp = m->next;
            if (m->peer != NULL)
                sy_srv_peer_release(m->peer);
            free(m);
            held = true;
        } else {
            pp = &m->next;
        }
    }
    if (l->fresh[who->rank] != 0 && l->fresh[who->rank] == l->fresh_gen + 1) {
        l->fresh[who->rank] = 0;
        l->nfresh--;
    }
    uint32_t *slot = sy_lfence_slot(l->page, who->rank);
    if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) == SY_LFENCE_SLOT_GONE)
        return;
    uint64_t w = __atomic_load_n(&l->page->word, __ATOMIC_ACQUIRE), nw;
    double settle_until = 0;
    for (;;) {
        /* counted: held here, or it counted itself in this generation */
        uint32_t mine = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        uint32_t gen1 = (sy_lf_gen(w) & SY_LF_GEN_MASK) + 1;
        bool counted = held || mine == gen1;
        if (!held && mine == (gen1 | SY_LFENCE_SLOT_COUNTING)) {
            /* it died inside its arrival: whether its count went in
             * follows from the others' */
            int settled = count_went_in(l, who->rank, w);
            if (settled < 0 && settle_until == 0)
                settle_until = mono_now() + SETTLE_SECONDS;
            if (settled < 0 && mono_now() < settle_until) {
                /* a live member finishing its own arrival: microseconds */
                nanosleep(&(struct timespec){0, 20000}, NULL);
                w = __atomic_load_n(&l->page->word, __ATOMIC_ACQUIRE);
                continue;
            }
            if (settled < 0)
                sy_log(SY_LOG_WARN,
                       "server: local fence of %s: rank %u died while counting itself in and "
                       "the count could not be settled in %.1f s: taken as counted",
                       l->nspace, who->rank, SETTLE_SECONDS);
            counted = settled != 0;
        }
        uint32_t arrived = sy_lf_arrived(w), expected = sy_lf_expected(w);
        if (counted && arrived > 0 && !(held && l->held_gen != sy_lf_gen(w)))
            arrived--;
        if (expected > 0)
            expected--;
        nw = sy_lf_make(arrived, expected, sy_lf_gen(w),
                        (w & ~(SY_LF_ARRIVED_MASK | (0xffffull << SY_LF_EXPECTED_SHIFT) |
                               (SY_LF_GEN_MASK << SY_LF_GEN_SHIFT))) |
                            SY_LF_DEPARTED);
        if (__atomic_compare_exchange_n(&l->page->word, &w, nw, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
            break;
    }
    __atomic_store_n(slot, SY_LFENCE_SLOT_GONE, __ATOMIC_RELEASE);
    sy_log(SY_LOG_DEBUG, "server: local fence of %s: rank %u left (%u of %u arrived)", l->nspace,
           who->rank, sy_lf_arrived(nw), sy_lf_expected(nw));
    if (sy_lf_pending(nw))
        finish(l, sy_lf_gen(nw));
    else
        sync_held(l);
}

void sy_srv_lfence_peer_gone(const sy_srv_peer_t *peer)
{
    gone(peer, &peer->proc);
}

void sy_srv_lfence_proc_gone(const pmix_proc_t *who)
{
    gone(NULL, who);
}

static void page_free(lf_ns_t *l, pmix_status_t why)
{
    answer_held(l, why, NULL);
    /* waiters (none should be left) see the generation move */
    uint64_t w = __atomic_load_n(&l->page->word, __ATOMIC_ACQUIRE);
    l->page->result_status = why;
    __atomic_store_n(&l->page->result_gen, sy_lf_gen(w) + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&l->page->word, sy_lf_ended(w, false), __ATOMIC_SEQ_CST);
    wake_all(l);
    munmap(l->page, l->size);
    unlink(l->path);
    free(l->path);
    free(l->fresh);
    sy_wire_fence_rep_free(&l->ready_rep);
    free(l);
}

void sy_srv_lfence_nspace_gone(const char *nspace)
{
    for (lf_ns_t **pp = &pages; *pp != NULL;) {
        lf_ns_t *l = *pp;
        if (nspace == NULL || PMIX_CHECK_NSPACE(l->nspace, nspace)) {
            *pp = l->next;
            page_free(l, PMIX_ERR_LOST_CONNECTION);
        } else {
            pp = &l->next;
        }
    }
}

unsigned long sy_srv_lfence_server_arrivals(void)
{
    return server_arrivals;
}
