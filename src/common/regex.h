/* Node-map and process-map "regex" strings (PMIX_NODE_MAP / PMIX_PROC_MAP).
 *
 * PMIx_generate_regex / PMIx_generate_ppn (include/pmix_server.h) produce
 * them; the server library expands them with the parsers below.  Syntax of
 * what we generate (full description with examples in docs, summarised):
 *
 *   raw:<input>          the generator's input verbatim, used whenever the
 *                        compressed form is not shorter.
 *   pmix:<items>         node map: comma-separated items, in input order.
 *                        An item is a literal name or
 *                            prefix[W:ranges]suffix   (W omitted when 1)
 *                        expanding, for every value v of ranges in order,
 *                        to prefix + v printed in decimal zero-padded to at
 *                        least W digits + suffix.  ranges = comma-separated
 *                        "a" or "a-b" (b < a counts down).  In prefix,
 *                        suffix and literals the bytes % [ ] , * and
 *                        anything outside 0x21..0x7e are written %XX.
 *   pmix:<procs>         process map: one field per node, separated by ';',
 *                        each a comma-separated list of "a" / "a-b" ranks.
 *
 * Both parsers also accept "raw:" + a plain list, a plain list without any
 * prefix, and OpenPMIx 4.2.2's "pmix[...]" forms (node items
 * prefix[W:ranges]suffix with W mandatory and no escapes; process maps
 * "pmix[0-3;4-7]").  "blob:" (zlib) maps are not supported.
 *
 * Generated strings are printable ASCII and never contain '*' (Open MPI's
 * singleton path splits environment entries on it). */
#ifndef SWITCHYARD_COMMON_REGEX_H
#define SWITCHYARD_COMMON_REGEX_H

#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

/* Expansions larger than this are rejected as malformed rather than
 * attempted: no real job has ten million nodes or processes. */
#define SY_REGEX_MAX_ENTRIES 10000000ULL
/* Bound on the bytes of expanded text (names or rank lists, terminators
 * included) so a short hostile string cannot demand gigabytes. */
#define SY_REGEX_MAX_BYTES (256ULL << 20)

/* Expand a node map into a NULL-terminated argv of malloc'd names (the
 * array and every string freed with free()); position i is node index i.
 * An empty map yields an argv holding only NULL.
 * PMIX_ERR_BAD_PARAM on NULL arguments or malformed/oversized input,
 * PMIX_ERR_NOT_SUPPORTED for "blob:" maps, PMIX_ERR_NOMEM.  *names_out is
 * set only on success. */
pmix_status_t sy_regex_parse_nodes(const char *regex, char ***names_out);

/* Expand a process map into a NULL-terminated argv with one malloc'd string
 * per node, each the node's ranks as "r,r,r" in map order ("" for a node
 * without processes).  Errors as sy_regex_parse_nodes; ranks must be below
 * PMIX_RANK_VALID. */
pmix_status_t sy_regex_parse_procs(const char *regex, char ***per_node_out);

/* A process map as ranges, without expanding it: node i holds the ranges
 * ranges[starts[i]] .. ranges[starts[i + 1] - 1], in map order ("a-b" with
 * b < a gives first b), possibly overlapping.  The same syntax and limits
 * as sy_regex_parse_procs; free with sy_regex_ranges_free. */
typedef struct {
    uint32_t first, count;
} sy_rx_range_t;
typedef struct {
    size_t *starts; /* nnodes + 1 */
    sy_rx_range_t *ranges;
    size_t nnodes, nranges;
} sy_rx_ranges_t;
pmix_status_t sy_regex_parse_proc_ranges(const char *regex, sy_rx_ranges_t *out);
void sy_regex_ranges_free(sy_rx_ranges_t *r);

/* The text of a map value typed PMIX_STRING or PMIX_REGEX (the standard's
 * examples pass maps as PMIX_REGEX; PMIx_Value_load keeps such a string
 * as a plain char* with size 0, a host may also give a byte object holding
 * NUL-terminated text).  NULL for anything else. */
const char *sy_regex_value_text(const pmix_value_t *v);

#endif
