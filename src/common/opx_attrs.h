/* The answer to PMIX_QUERY_ATTRIBUTE_SUPPORT as an OpenPMIx 4.2.2 peer
 * reads it (docs/wire-protocol.md, "Attribute support").  Our answer has
 * the standard's shape: per function, an info per level holding that
 * level's pmix_regattr_t array.  OpenPMIx 4.2.2 (its pattrs) reads
 * PMIX_QUERY_ATTRIBUTE_SUPPORT -> function -> pmix_regattr_t array, takes
 * the count of every function's array from the first one's, and prints
 * descriptions into a fixed line without bounds. */
#ifndef SWITCHYARD_COMMON_OPX_ATTRS_H
#define SWITCHYARD_COMMON_OPX_ATTRS_H

#include <stdbool.h>
#include <stddef.h>

#include <pmix_common.h>

/* When info[] holds attribute-support answers, *reshaped and a copy of it
 * in the OpenPMIx shape into *out (free with PMIX_INFO_FREE(*out, *nout);
 * NULL when it is empty); otherwise *reshaped false and nothing to do.  Other answers (the
 * level-FUNCTIONS strings, which OpenPMIx's tools read as they are, and
 * any other key) are copied unchanged, in order. */
pmix_status_t sy_opx_attrs_reshape(const pmix_info_t *info, size_t ninfo, pmix_info_t **out,
                                   size_t *nout, bool *reshaped);

#endif
