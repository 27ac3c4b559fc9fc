/* switchyard-fabric: the cost matrix (binary, CSV), the PMIX_FABRIC_GROUPS
 * string and the graph (Graphviz DOT).  Formats: docs/fabric.md. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fabric.h"

int export_matrix_bin(const sy_cost_t *c, const char *path)
{
    FILE *f = out_open(path);
    if (f == NULL) {
        return fail("%s: %s", path, strerror(errno));
    }
    unsigned char hdr[16] = {'S', 'Y', 'C', 'M', 1, 0, 0, 0};
    uint64_t n = c->n;
    for (int i = 0; i < 8; i++) {
        hdr[8 + i] = (unsigned char)(n >> (8 * i));
    }
    fwrite(hdr, 1, sizeof(hdr), f);
    size_t nn = (size_t)c->n * c->n;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (nn > 0) {
        fwrite(c->m, sizeof(uint16_t), nn, f);
    }
#else
    for (size_t i = 0; i < nn; i++) {
        unsigned char b[2] = {(unsigned char)c->m[i], (unsigned char)(c->m[i] >> 8)};
        fwrite(b, 1, 2, f);
    }
#endif
    return out_close(f, path);
}

int export_matrix_csv(const sy_cost_t *c, const char *path)
{
    FILE *f = out_open(path);
    if (f == NULL) {
        return fail("%s: %s", path, strerror(errno));
    }
    for (uint32_t i = 0; i < c->n; i++) {
        const uint16_t *row = c->m + (size_t)i * c->n;
        for (uint32_t j = 0; j < c->n; j++) {
            fprintf(f, j ? ",%u" : "%u", (unsigned)row[j]);
        }
        fputc('\n', f);
    }
    return out_close(f, path);
}

int export_groups(const sy_groups_t *g, const char *path)
{
    if (g->str == NULL) {
        return fail("groups: a name contains ',', ';' or ':', no PMIX_FABRIC_GROUPS string");
    }
    FILE *f = out_open(path);
    if (f == NULL) {
        return fail("%s: %s", path, strerror(errno));
    }
    fprintf(f, "%s\n", g->str);
    return out_close(f, path);
}

/* DOT ids are quoted strings: escape quotes and backslashes. */
static void dot_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; '\0' != *s; s++) {
        if ('"' == *s || '\\' == *s) {
            fputc('\\', f);
        }
        fputc(*s, f);
    }
    fputc('"', f);
}

int export_dot(const sy_topo_t *t, const char *path)
{
    FILE *f = out_open(path);
    if (f == NULL) {
        return fail("%s: %s", path, strerror(errno));
    }
    fprintf(f, "graph fabric {\n  node [fontsize=10];\n");
    for (uint32_t i = 0; i < t->nv; i++) {
        const sy_topo_vertex_t *v = &t->v[i];
        fprintf(f, "  ");
        dot_str(f, v->name);
        fprintf(f, " [shape=%s];\n", v->kind == SY_TOPO_DEVICE ? "ellipse" : "box");
    }
    for (uint32_t e = 0; e < t->ne; e++) {
        const sy_topo_edge_t *x = &t->e[e];
        char label[64] = "";
        if (x->speed) {
            speed_text(x->speed, label, sizeof(label));
        }
        if (x->count > 1) {
            size_t l = strlen(label);
            snprintf(label + l, sizeof(label) - l, "%s(x%u)", l ? " " : "", x->count);
        }
        fprintf(f, "  ");
        dot_str(f, t->v[x->a].name);
        fprintf(f, " -- ");
        dot_str(f, t->v[x->b].name);
        bool down = x->state == PMIX_LINK_DOWN;
        if ('\0' != label[0] || down) {
            fprintf(f, " [");
            if ('\0' != label[0]) {
                fprintf(f, "label=\"%s\"", label);
            }
            if (down) {
                fprintf(f, "%sstyle=dashed", '\0' != label[0] ? ", " : "");
            }
            fprintf(f, "]");
        }
        fprintf(f, ";\n");
    }
    fprintf(f, "}\n");
    return out_close(f, path);
}
