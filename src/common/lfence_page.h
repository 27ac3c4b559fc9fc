/* The collective page of a namespace (the local fence): a file the server
 * makes in its tmpdir, mapped read-write by the server and by the clients
 * of the namespace, where fences over the whole namespace meet without a
 * message per member (docs/architecture.md, "The local fence").
 *
 * Everything that decides a fence is one 64-bit word, changed only by
 * compare-and-swap, so that an arrival, a departure, a timeout and the
 * completion never see each other half done:
 *   bits  0-15  arrivals in the current generation
 *   bits 16-31  members expected (live ranks of the namespace)
 *   bits 32-58  the generation (the futex waits on the upper half)
 *   bit  59     the last generation ended by a timeout
 *   bit  60     a member of the current generation asked to collect data
 *   bit  61     the server holds members of the current generation (it
 *               must be told when the last one arrives)
 *   bit  62     the last generation ended with a member gone (partial)
 *   bit  63     some member of the namespace has left (sticky)
 * A generation is complete ("pending") once arrivals >= expected > 0; the
 * party that made it so ends it: it bumps the generation (arrivals 0,
 * result bits set) and wakes every waiter, or, when the server holds
 * members, or data is collected and no reply is ready (`ready`), asks the
 * server to (LFENCE op 1). */
#ifndef SWITCHYARD_COMMON_LFENCE_PAGE_H
#define SWITCHYARD_COMMON_LFENCE_PAGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SY_LFENCE_MAGIC 0x53594c46u /* "SYLF" */
#define SY_LFENCE_VERSION 3u
#define SY_LFENCE_MAX_RANKS 0xffffu
#define SY_LFENCE_REPLY_MAX 16384u /* a packed FENCE reply (segments, retired) */
#define SY_LFENCE_SLOT_GONE 0xffffffffu
/* A slot's value while its member counts itself in (generations are 27
 * bits): written before the compare-and-swap, cleared after it. */
#define SY_LFENCE_SLOT_COUNTING 0x40000000u

#define SY_LF_ARRIVED_MASK 0xffffull
#define SY_LF_EXPECTED_SHIFT 16
#define SY_LF_GEN_SHIFT 32
#define SY_LF_GEN_MASK 0x7ffffffull
#define SY_LF_TIMEOUT (1ull << 59)
#define SY_LF_COLLECT (1ull << 60)
#define SY_LF_SERVER (1ull << 61)
#define SY_LF_PARTIAL (1ull << 62)
#define SY_LF_DEPARTED (1ull << 63)

typedef struct {
    uint32_t magic;
    uint32_t version;
    uint32_t nranks; /* slots: the namespace's ranks 0..nranks-1 */
    uint32_t reserved;
    /* the reply ahead: low half SY_LF_READY when reply holds every datum
     * committed so far (the server published it as the last member
     * committed), for the next collecting fence; whoever ends that fence
     * first claims it (SY_LF_CLAIM_SERVER or SY_LF_CLAIM_RANK0 + rank in
     * the low half, the generation in the high half), so that the server
     * does not rewrite reply while a member hands it out */
    uint64_t ready;
    /* the state word; its own cache line, as arrivals hammer it */
    _Alignas(64) uint64_t word;
    /* written by the server before it ends generation result_gen: the
     * status every member returns (a failed publication), and the packed
     * FENCE reply (native codec) when data was collected */
    _Alignas(64) uint32_t result_gen;
    int32_t result_status;
    uint32_t reply_gen; /* reply holds generation reply_gen's segments */
    uint32_t reply_len;
    unsigned char reply[SY_LFENCE_REPLY_MAX];
    /* per rank, one cache line each: the generation + 1 it arrived in,
     * so that the server knows whether a member that died was counted.
     * The member writes it with SY_LFENCE_SLOT_COUNTING before its
     * compare-and-swap and without it after: a member that died between
     * the two may or may not be counted, which the server settles from
     * the other slots (server_lfence.c).  SY_LFENCE_SLOT_GONE once it
     * left. */
} sy_lfence_page_t;

#define SY_LF_READY_NONE 0u
#define SY_LF_READY 1u
#define SY_LF_CLAIM_SERVER 2u
#define SY_LF_CLAIM_RANK0 3u

static inline uint64_t sy_lf_claim(uint32_t who, uint32_t gen)
{
    return (uint64_t)gen << 32 | who;
}

/* the layout docs/wire-protocol.md ("The local fence page") gives */
_Static_assert(offsetof(sy_lfence_page_t, ready) == 16 && offsetof(sy_lfence_page_t, word) == 64 &&
                   offsetof(sy_lfence_page_t, result_gen) == 128 &&
                   offsetof(sy_lfence_page_t, reply) == 144 && sizeof(sy_lfence_page_t) == 16576,
               "the collective page's layout moved");

#define SY_LFENCE_SLOT_STRIDE 16u /* uint32_t: 64 bytes */

static inline uint32_t *sy_lfence_slot(sy_lfence_page_t *p, uint32_t rank)
{
    return (uint32_t *)(void *)(p + 1) + (uint64_t)rank * SY_LFENCE_SLOT_STRIDE;
}

static inline uint64_t sy_lfence_size(uint32_t nranks)
{
    return sizeof(sy_lfence_page_t) + (uint64_t)nranks * SY_LFENCE_SLOT_STRIDE * 4u;
}

/* The 32-bit half of the word holding the generation: the futex. */
static inline uint32_t *sy_lfence_futex(sy_lfence_page_t *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return (uint32_t *)(void *)&p->word + 1;
#else
    return (uint32_t *)(void *)&p->word;
#endif
}

static inline uint32_t sy_lf_arrived(uint64_t w)
{
    return (uint32_t)(w & SY_LF_ARRIVED_MASK);
}
static inline uint32_t sy_lf_expected(uint64_t w)
{
    return (uint32_t)((w >> SY_LF_EXPECTED_SHIFT) & 0xffffu);
}
static inline uint32_t sy_lf_gen(uint64_t w)
{
    return (uint32_t)((w >> SY_LF_GEN_SHIFT) & SY_LF_GEN_MASK);
}
static inline bool sy_lf_pending(uint64_t w)
{
    return sy_lf_arrived(w) > 0 && sy_lf_arrived(w) >= sy_lf_expected(w);
}
static inline uint64_t sy_lf_make(uint32_t arrived, uint32_t expected, uint32_t gen, uint64_t flags)
{
    return (uint64_t)arrived | ((uint64_t)expected << SY_LF_EXPECTED_SHIFT) |
           ((uint64_t)(gen & SY_LF_GEN_MASK) << SY_LF_GEN_SHIFT) | flags;
}
/* The word after generation gen(w) ended (timeout: by a timeout). */
static inline uint64_t sy_lf_ended(uint64_t w, bool timeout)
{
    uint64_t flags = w & SY_LF_DEPARTED;
    if (timeout)
        flags |= SY_LF_TIMEOUT;
    else if (w & SY_LF_DEPARTED)
        flags |= SY_LF_PARTIAL;
    return sy_lf_make(0, sy_lf_expected(w), sy_lf_gen(w) + 1, flags);
}

#endif
