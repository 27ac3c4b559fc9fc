/* State shared by the store's files: store.c (lifetime, attached segments,
 * internal values) and store_get.c (the retrieval rules).  Everything here
 * is touched under sy_store_lock: read for lookups, write for changes. */
#ifndef SWITCHYARD_COMMON_STORE_INTERNAL_H
#define SWITCHYARD_COMMON_STORE_INTERNAL_H
#include "common/jseg.h"
#include <pmix_common.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

extern pthread_rwlock_t sy_store_lock;

/* Under the read lock: the segment of nspace, or NULL. */
sy_jseg_t *sy_store_segment(const char *nspace);
/* Under the read lock: the resources segment, or NULL. */
sy_jseg_t *sy_store_resources(void);
/* Under the read lock: the internal value for (nspace, rank, key), or NULL. */
const pmix_value_t *sy_store_internal_find(const char *nspace, pmix_rank_t rank, const char *key);
/* Under the read lock: append copies of every internal value of (nspace,
 * rank) to *infos (grown with realloc), replacing entries of the same key. */
pmix_status_t sy_store_internal_collect(const char *nspace, pmix_rank_t rank, pmix_info_t **infos,
                                        size_t *n);
/* Without any lock: reopen every attached segment that was superseded. */
void sy_store_refresh(void);
/* The resolver and its context as last set. */
void sy_store_resolver(sy_store_resolver_fn *fn, void **ctx);

#endif
