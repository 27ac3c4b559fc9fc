/* Test helper: one sample element of every data type, built the way callers
 * such as Open MPI build them (malloc/strdup, PMIX_*_CREATE), so that the
 * library's destructors are exercised on memory they did not allocate. */
#ifndef SY_TESTS_VALUE_SAMPLES_H
#define SY_TESTS_VALUE_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>

#include <hwloc.h>
#include <pmix.h>

/* Every data type that has a public layout. */
extern const pmix_data_type_t sample_types[];
extern const size_t sample_ntypes;

/* A loaded topology of this machine, for PMIX_TOPO samples (set up once). */
hwloc_topology_t sample_topology(void);
void sample_topology_release(void);

/* Fill zeroed storage `elem` (sy_type_size(type) bytes) with sample number
 * k (0 or 1; the two differ).  The caller releases it with
 * sy_elem_destruct. */
void sample_fill(void *elem, pmix_data_type_t type, int k);

/* calloc'd element filled with sample_fill. */
void *sample_new(pmix_data_type_t type, int k);
/* sy_elem_destruct + free. */
void sample_free(void *elem, pmix_data_type_t type);

/* The `data` argument PMIx_Value_load/PMIx_Data_copy take for an element:
 * the char* for strings, the pointer for PMIX_POINTER, else elem itself. */
const void *sample_data(const void *elem, pmix_data_type_t type);

/* Whether PMIx_Value_compare can report two equal samples as PMIX_EQUAL
 * after a deep copy (false for PMIX_TOPO, compared by identity). */
bool sample_comparable(pmix_data_type_t type);

/* Whether the two samples k=0 and k=1 are distinguishable by compare. */
bool sample_variants_differ(pmix_data_type_t type);

#endif
