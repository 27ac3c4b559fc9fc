/* PMI_process_mapping: "(vector,(start_node,nodes,procs_per_node),...)",
 * the node map MPICH reads from its process manager (docs/pmi.md).  Pure
 * formatting, shared by the server's PMI wire protocols and the PMI
 * client libraries. */
#ifndef SWITCHYARD_COMMON_PMI_MAP_H
#define SWITCHYARD_COMMON_PMI_MAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Appends one rank's node id, in rank order; then format.  Consecutive
 * ranks on one node make a run; runs of equal length on consecutive nodes
 * make one block, so the result is exact for any placement (MPICH's
 * wrap-around rule is never needed). */
typedef struct {
    uint32_t blk_start, blk_nodes, blk_ppn;
    uint32_t run_node, run_len;
    char *out;
    size_t len, used;
} sy_pmi_map_t;

void sy_pmi_map_begin(sy_pmi_map_t *m, char *out, size_t len);
void sy_pmi_map_add(sy_pmi_map_t *m, uint32_t node);
/* false when out was too small (the text is then cut). */
bool sy_pmi_map_end(sy_pmi_map_t *m);
#endif
