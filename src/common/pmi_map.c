/* PMI_process_mapping formatting (pmi_map.h). */
#include <stdio.h>

#include "common/pmi_map.h"

/* Appends; past the end only counts, so sy_pmi_map_end can tell. */
static void emit(sy_pmi_map_t *m, uint32_t a, uint32_t b, uint32_t c)
{
    char blk[48];
    int n = snprintf(blk, sizeof(blk), ",(%u,%u,%u)", a, b, c);
    for (int i = 0; i < n; i++, m->used++)
        if (m->used + 1 < m->len)
            m->out[m->used] = blk[i];
    if (m->len > 0)
        m->out[m->used + 1 < m->len ? m->used : m->len - 1] = '\0';
}

void sy_pmi_map_begin(sy_pmi_map_t *m, char *out, size_t len)
{
    *m = (sy_pmi_map_t){.out = out, .len = len};
    m->used = (size_t)snprintf(out, len, "(vector");
}

static void end_run(sy_pmi_map_t *m)
{
    if (m->run_len == 0)
        return;
    if (m->blk_nodes > 0 && m->run_node == m->blk_start + m->blk_nodes &&
        m->run_len == m->blk_ppn) {
        m->blk_nodes++;
        return;
    }
    if (m->blk_nodes > 0)
        emit(m, m->blk_start, m->blk_nodes, m->blk_ppn);
    m->blk_start = m->run_node;
    m->blk_nodes = 1;
    m->blk_ppn = m->run_len;
}

void sy_pmi_map_add(sy_pmi_map_t *m, uint32_t node)
{
    if (m->run_len > 0 && node == m->run_node) {
        m->run_len++;
        return;
    }
    end_run(m);
    m->run_node = node;
    m->run_len = 1;
}

bool sy_pmi_map_end(sy_pmi_map_t *m)
{
    end_run(m);
    if (m->blk_nodes > 0)
        emit(m, m->blk_start, m->blk_nodes, m->blk_ppn);
    if (m->used + 1 < m->len) {
        m->out[m->used] = ')';
        m->out[m->used + 1] = '\0';
    }
    m->used++;
    return m->used < m->len;
}
