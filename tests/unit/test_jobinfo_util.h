/* Helpers shared by the jobinfo unit tests: building register_nspace
 * descriptions (info lists and nested containers) and checking what a
 * reader of the builder's published segment gets (host values, derived
 * ones), failing at the caller's line. */
#ifndef SWITCHYARD_TESTS_UNIT_TEST_JOBINFO_UTIL_H
#define SWITCHYARD_TESTS_UNIT_TEST_JOBINFO_UTIL_H
#include <stdbool.h>
#include <stdint.h>

#include <pmix_common.h>

#include "common/jobinfo.h"
#include "common/jseg.h"

typedef struct {
    pmix_info_t *info;
    size_t n;
} ilist_t;

/* Appenders (the list owns copies of everything). */
void il_str(ilist_t *l, const char *key, const char *s); /* s may be NULL */
void il_regex(ilist_t *l, const char *key, const char *s);
void il_u32(ilist_t *l, const char *key, uint32_t v);
void il_u16(ilist_t *l, const char *key, uint16_t v);
void il_u64(ilist_t *l, const char *key, uint64_t v);
void il_int(ilist_t *l, const char *key, int v);
void il_rank(ilist_t *l, const char *key, pmix_rank_t v);
void il_bool(ilist_t *l, const char *key, bool v);
/* An entry whose key and value are all zero (an unused slot). */
void il_zero(ilist_t *l);
/* A container of `sub`'s entries (sub is consumed and reset). */
void il_arr(ilist_t *l, const char *key, ilist_t *sub);
void il_free(ilist_t *l);

/* The ids of a realm in the builder's published segment. */
pmix_status_t ji_ids(const sy_jseg_builder_t *b, sy_realm_t realm, uint32_t **ids, size_t *n);

/* Compile l into a fresh builder (*b, freed by the caller before l). */
pmix_status_t ji_compile(const char *nspace, int nlocal, const ilist_t *l, const char *host,
                         sy_jseg_builder_t **b, sy_jobinfo_summary_t *s, char **error);

void ji_expect_u32(const char *file, int line, const sy_jseg_builder_t *b, sy_realm_t realm,
                   uint32_t id, const char *key, uint32_t want);
void ji_expect_u16(const char *file, int line, const sy_jseg_builder_t *b, sy_realm_t realm,
                   uint32_t id, const char *key, uint16_t want);
void ji_expect_rank(const char *file, int line, const sy_jseg_builder_t *b, sy_realm_t realm,
                    uint32_t id, const char *key, pmix_rank_t want);
/* want NULL: a PMIX_STRING holding a NULL pointer. */
void ji_expect_str(const char *file, int line, const sy_jseg_builder_t *b, sy_realm_t realm,
                   uint32_t id, const char *key, const char *want);
/* Any type; the value read as an unsigned integer. */
void ji_expect_typed(const char *file, int line, const sy_jseg_builder_t *b, sy_realm_t realm,
                     uint32_t id, const char *key, pmix_data_type_t type, uint64_t want);
void ji_expect_absent(const char *file, int line, const sy_jseg_builder_t *b, sy_realm_t realm,
                      uint32_t id, const char *key);

#define EXPECT_U32(...) ji_expect_u32(__FILE__, __LINE__, __VA_ARGS__)
#define EXPECT_U16(...) ji_expect_u16(__FILE__, __LINE__, __VA_ARGS__)
#define EXPECT_RANK(...) ji_expect_rank(__FILE__, __LINE__, __VA_ARGS__)
#define EXPECT_STR(...) ji_expect_str(__FILE__, __LINE__, __VA_ARGS__)
#define EXPECT_TYPED(...) ji_expect_typed(__FILE__, __LINE__, __VA_ARGS__)
#define EXPECT_ABSENT(...) ji_expect_absent(__FILE__, __LINE__, __VA_ARGS__)

#endif
