/* Data exchange on the server side, in three files:
 *   server_modex.c   what clients committed, and its publication as modex
 *                    segments once a collective gathered it;
 *   server_coll.c    the collective engine: FENCE, CONNECT, DISCONNECT and
 *                    the group operations, with the host's fence_nb,
 *                    connect and disconnect;
 *   server_dmodex.c  direct modex: DMODEX requests, the host's direct_modex
 *                    and PMIx_server_dmodex_request.
 * Loop only.
 *
 * Blob (the fence_nb data and direct_modex answers), a sequence of records:
 *   PMIX_PROC proc, PMIX_SIZE n, n x (PMIX_UINT8 scope, PMIX_STRING key,
 *   PMIX_VALUE value) */
#ifndef SWITCHYARD_SERVER_MODEX_H
#define SWITCHYARD_SERVER_MODEX_H
#include <stdbool.h>
#include <stdint.h>

#include <pmix_common.h>

#include "server/server_internal.h"

/* ---- server_modex.c: the entry points of the peer and registry code ---- */
void sy_srv_modex_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
/* The connection of a READY client ended; finalized tells whether it
 * called PMIx_Finalize first. */
void sy_srv_modex_peer_gone(sy_srv_peer_t *peer, bool finalized);
/* The same for a process of ours with no PMIx connection (a PMI wire
 * client, server_pmi.h): its collectives and the requests for its data. */
void sy_srv_modex_proc_gone(const pmix_proc_t *proc, bool finalized);
void sy_srv_modex_nspace_gone(sy_srv_t *s, const char *nspace);
void sy_srv_modex_finalize(sy_srv_t *s);

/* ---- server_modex.c: committed data, shared by the three files ---- */
typedef struct sy_srv_kv {
    uint8_t scope;
    char *key;
    pmix_value_t val;
    struct sy_srv_kv *next;
} sy_srv_kv_t;

typedef struct sy_srv_posted {
    pmix_proc_t proc;
    bool committed;
    bool gone; /* finalized or dead: nothing more will come */
    sy_srv_kv_t *kvs;
    struct sy_srv_posted *next;
} sy_srv_posted_t;

/* Every process's record (iterate with ->next), one of them, or NULL. */
sy_srv_posted_t *sy_srv_posted_all(void);
sy_srv_posted_t *sy_srv_posted_find(const pmix_proc_t *p, bool create);
const sy_srv_kv_t *sy_srv_kv_find(const sy_srv_posted_t *p, const char *key);
/* Take k (allocated, its key and value owned) into p's data: a key given
 * again replaces the old value.  Every change of a process's data goes
 * through here (a reply the local fence published ahead is unmarked). */
void sy_srv_posted_put(sy_srv_posted_t *p, sy_srv_kv_t *k);
/* Append p's record to a blob: what its local peers may see (local_view),
 * or what other nodes may. */
pmix_status_t sy_srv_pack_record(pmix_data_buffer_t *b, const sy_srv_posted_t *p, bool local_view);
/* Publish the posted data of procs plus the records of the blob `remote`
 * (other nodes', may be empty) as modex segments; out (a FENCE reply,
 * free it with sy_wire_fence_rep_free) receives the segments to map and
 * those retired. */
pmix_status_t sy_srv_modex_publish(sy_srv_t *s, const pmix_proc_t *procs, size_t nprocs,
                                   pmix_data_buffer_t *remote, sy_wire_fence_rep_t *out);
/* Make the file of the next segment ahead, while nothing waits for it. */
void sy_srv_modex_make_spare(sy_srv_t *s);

/* Is p among procs (PMIX_RANK_WILDCARD naming a whole namespace)? */
bool sy_srv_proc_in_set(const pmix_proc_t *procs, size_t n, const pmix_proc_t *p);
/* Is rank r of namespace ns on this node? */
bool sy_srv_rank_local(const sy_srv_nspace_t *ns, pmix_rank_t r);

/* ---- server_coll.c ---- */
void sy_srv_coll_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
void sy_srv_coll_peer_gone(sy_srv_peer_t *peer, bool finalized);
void sy_srv_coll_finalize(void);

/* ---- server_dmodex.c ---- */
void sy_srv_dmodex_command(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b);
/* proc committed: the requests held for it may be answerable now. */
void sy_srv_dmodex_poke(const pmix_proc_t *proc);
/* The library's own direct modex (a PMI get, server_pmi.h): the host's
 * direct_modex for key of target, on another node.  done(status, value,
 * arg) once, on the loop (value lent, NULL unless found), or with
 * PMIX_ERR_INIT, maybe on another thread, when the server goes first
 * (then free arg only).  PMIX_ERR_NOT_SUPPORTED (done never called):
 * the host has no direct_modex. */
typedef void (*sy_srv_dmodex_fn)(pmix_status_t status, const pmix_value_t *value, void *arg);
pmix_status_t sy_srv_dmodex_ask(const pmix_proc_t *target, const char *key, sy_srv_dmodex_fn done,
                                void *arg);
void sy_srv_dmodex_peer_gone(sy_srv_peer_t *peer, bool finalized);
void sy_srv_dmodex_proc_gone(const pmix_proc_t *proc, bool finalized);
void sy_srv_dmodex_finalize(void);
#endif
