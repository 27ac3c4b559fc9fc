/* switchyard-fabric: load, generate or discover a fabric, print a summary
 * and export the engine's results (cost matrix, groups, coordinates, DOT
 * graph, PNG heatmap).  Options and formats: --help and docs/fabric.md
 * ("Command line").  Exit status: 0 ok, 1 runtime error, 2 usage error. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include <pmix.h>

#include "fabric/devices.h"
#include "fabric/engine.h"

#define PROG "switchyard-fabric"
#define PNG_MAX_SIDE 4096u

/* Under AddressSanitizer: hwloc's I/O discovery leaks ~1 KiB per
 * topology load in a plugin that is unloaded before LeakSanitizer reports
 * (see tests/unit/test_fabric_devices.c); only that is suppressed, and the
 * fast unwinder cannot see past the unloaded plugin.  Unused otherwise. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:hwloc_topology_load\n";
}
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "fast_unwind_on_malloc=0";
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: " PROG " [options] (--load FILE [--format F] | --generate SPEC | --discover)\n"
            "\n"
            "Build the fabric engine from a topology and print a summary: devices,\n"
            "switches, links, planes (devices, dims, shape), groups, diameter (largest\n"
            "finite cost), a histogram of the cost values, the cost algorithm and the\n"
            "time it took, and the topology generation.\n"
            "\n"
            "Source (exactly one):\n"
            "  --load FILE         read a topology file (Slurm topology.conf,\n"
            "                      ibnetdiscover output or the native format)\n"
            "  --format F          file format: slurm, ibnet or native (default: detect)\n"
            "  --generate SPEC     generate a topology: fattree:k=K,\n"
            "                      dragonfly:a=A,p=P,h=H,g=G, torus:AxBxC[,p=P]\n"
            "                      (each optionally ,speed=SPEED)\n"
            "  --discover          list the fabric devices of this machine (libfabric\n"
            "                      and hwloc) as a table; with --json as JSON\n"
            "\n"
            "Computation:\n"
            "  --cost-metric M     hops (default: links on the shortest path) or speed\n"
            "                      (sum of ceil(fastest link speed / link speed))\n"
            "  --threads N         threads for the cost matrix (default: online CPUs, at\n"
            "                      most 8)\n"
            "  --group-mode M      auto (default), leaf (devices of one switch) or pod\n"
            "                      (fat-tree pods)\n"
            "  --max-matrix-bytes N  refuse cost matrices above N bytes (default 4 GiB)\n"
            "\n"
            "Exports (any number; FILE '-' is standard output):\n"
            "  --matrix-bin FILE   cost matrix: header \"SYCM\", u32 version (1), u64 N,\n"
            "                      then N*N uint16, all little-endian, row-major in\n"
            "                      device-index order; 65535 = unreachable\n"
            "  --matrix-csv FILE   cost matrix as N lines of N comma-separated numbers\n"
            "  --groups FILE       the PMIX_FABRIC_GROUPS string and a newline\n"
            "  --coords-json FILE  JSON: every device with name, host, index, plane,\n"
            "                      group, coordinates and attachment switches\n"
            "  --dot FILE          Graphviz graph: devices as ellipses, switches as\n"
            "                      boxes, link speeds as labels, down links dashed\n"
            "  --png FILE          cost heatmap, one pixel per device pair up to %u\n"
            "                      devices, blocks reduced by their maximum above\n"
            "\n"
            "Output:\n"
            "  --json              with --discover: print JSON instead of a table\n"
            "  --quiet             no summary and no progress bar\n"
            "  --help              this text\n"
            "\n"
            "A progress bar is drawn on standard error during the cost matrix when it\n"
            "is a terminal.\n"
            "\n"
            "Examples:\n"
            "  " PROG " --load /etc/slurm/topology.conf\n"
            "  " PROG " --generate fattree:k=16 --matrix-bin cost.bin --png cost.png\n"
            "  " PROG " --load fabric.topo --format native --dot fabric.dot --quiet\n"
            "  " PROG " --generate torus:8x8x8,p=2 --cost-metric speed --threads 4\n"
            "  " PROG " --discover --json\n"
            "\n"
            "Exit status: 0 success, 1 runtime error, 2 usage error.\n",
            PNG_MAX_SIDE);
}

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, PROG ": ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '" PROG " --help'.\n");
    va_end(ap);
    return 2;
}

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, PROG ": ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* ----------------------------------------------------------- file output */

static FILE *out_open(const char *path)
{
    return strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
}

static int out_close(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (f == stdout) {
        bad |= fflush(f);
    } else {
        bad |= fclose(f);
    }
    return bad ? fail("%s: write error", path) : 0;
}

static void json_str(FILE *f, const char *s)
{
    if (s == NULL) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; '\0' != *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || '\\' == c) {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
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

static void speed_text(uint64_t bps, char *buf, size_t len)
{
    static const struct {
        uint64_t div;
        const char *unit;
    } u[] = {{1000000000000ULL, "T"}, {1000000000ULL, "G"}, {1000000ULL, "M"}, {1000ULL, "K"}};
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
        if (bps >= u[i].div && 0 == bps % u[i].div) {
            snprintf(buf, len, "%llu%sb/s", (unsigned long long)(bps / u[i].div), u[i].unit);
            return;
        }
    }
    snprintf(buf, len, "%llub/s", (unsigned long long)bps);
}

/* --------------------------------------------------------------- progress */

typedef struct {
    bool active;
    bool drawn;
} progress_t;

static void progress_cb(uint64_t done, uint64_t total, void *arg)
{
    progress_t *p = arg;
    if (!p->active || total == 0) {
        return;
    }
    unsigned pct = (unsigned)(done * 100 / total);
    unsigned fill = pct * 40 / 100;
    char bar[41];
    memset(bar, '#', fill);
    memset(bar + fill, ' ', 40 - fill);
    bar[40] = '\0';
    fprintf(stderr, "\rcost matrix [%s] %3u%%", bar, pct);
    p->drawn = true;
    if (done >= total) {
        fputc('\n', stderr);
        p->drawn = false;
    }
    fflush(stderr);
}

/* ---------------------------------------------------------------- discover */

typedef struct {
    const char *title;
    char *(*get)(const sy_device_t *d);
} column_t;

static char *fmt_u(unsigned long long v)
{
    char b[32];
    snprintf(b, sizeof(b), "%llu", v);
    return strdup(b);
}

static char *dup_or_null(const char *s)
{
    return s == NULL ? NULL : strdup(s);
}
static char *c_id(const sy_device_t *d)
{
    return dup_or_null(d->id);
}
static char *c_osname(const sy_device_t *d)
{
    return dup_or_null(d->osname);
}
static char *c_type(const sy_device_t *d)
{
    return dup_or_null(d->type);
}
static char *c_vendor(const sy_device_t *d)
{
    return dup_or_null(d->vendor);
}
static char *c_vendorid(const sy_device_t *d)
{
    return dup_or_null(d->vendorid);
}
static char *c_bus(const sy_device_t *d)
{
    return dup_or_null(d->bus_type);
}
static char *c_pci(const sy_device_t *d)
{
    return dup_or_null(d->pci_devid);
}
static char *c_driver(const sy_device_t *d)
{
    return dup_or_null(d->driver);
}
static char *c_fw(const sy_device_t *d)
{
    return dup_or_null(d->firmware);
}
static char *c_addr(const sy_device_t *d)
{
    return dup_or_null(d->address);
}
static char *c_guid(const sy_device_t *d)
{
    return dup_or_null(d->guid);
}
static char *c_prov(const sy_device_t *d)
{
    return dup_or_null(d->provider);
}
static char *c_mtu(const sy_device_t *d)
{
    return (d->has & SY_DEV_HAS_MTU) ? fmt_u(d->mtu) : NULL;
}
static char *c_speed(const sy_device_t *d)
{
    if (!(d->has & SY_DEV_HAS_SPEED)) {
        return NULL;
    }
    char b[32];
    speed_text(d->speed, b, sizeof(b));
    return strdup(b);
}
static char *c_state(const sy_device_t *d)
{
    return (d->has & SY_DEV_HAS_STATE) ? strdup(PMIx_Link_state_string(d->state)) : NULL;
}
static char *c_index(const sy_device_t *d)
{
    return (d->has & SY_DEV_HAS_INDEX) ? fmt_u(d->index) : NULL;
}
static char *c_devtype(const sy_device_t *d)
{
    return strdup(PMIx_Device_type_string(d->devtype));
}
static char *c_sources(const sy_device_t *d)
{
    const char *s = (d->sources & SY_DEV_SRC_FABRIC)
                        ? ((d->sources & SY_DEV_SRC_HWLOC) ? "libfabric+hwloc" : "libfabric")
                        : ((d->sources & SY_DEV_SRC_HWLOC) ? "hwloc" : "");
    return strdup(s);
}

static const column_t columns[] = {
    {"id", c_id},         {"name", c_osname},       {"type", c_type},    {"devtype", c_devtype},
    {"vendor", c_vendor}, {"vendorid", c_vendorid}, {"bus", c_bus},      {"pci", c_pci},
    {"driver", c_driver}, {"firmware", c_fw},       {"address", c_addr}, {"mtu", c_mtu},
    {"speed", c_speed},   {"state", c_state},       {"index", c_index},  {"guid", c_guid},
    {"provider", c_prov}, {"sources", c_sources}};
#define NCOLS (sizeof(columns) / sizeof(columns[0]))

static int discover(bool json)
{
    sy_device_list_t list = {0};
    pmix_status_t rc = sy_devices_gather(NULL, &list);
    if (rc != PMIX_SUCCESS) {
        return fail("device discovery failed: %s", PMIx_Error_string(rc));
    }
    size_t n = list.n;
    char **cell = calloc(n * NCOLS + 1, sizeof(*cell));
    if (cell == NULL) {
        sy_device_list_free(&list);
        return fail("out of memory");
    }
    size_t width[NCOLS] = {0};
    bool used[NCOLS] = {false};
    for (size_t i = 0; i < n; i++) {
        for (size_t c = 0; c < NCOLS; c++) {
            char *v = columns[c].get(&list.devs[i]);
            if (v != NULL && '\0' != *v) {
                cell[i * NCOLS + c] = v;
                used[c] = true;
                size_t l = strlen(v);
                width[c] = l > width[c] ? l : width[c];
            } else {
                free(v);
            }
        }
    }
    if (json) {
        printf("{\"devices\": [");
        for (size_t i = 0; i < n; i++) {
            printf("%s\n  {", i ? "," : "");
            bool first = true;
            for (size_t c = 0; c < NCOLS; c++) {
                if (cell[i * NCOLS + c] != NULL) {
                    printf("%s", first ? "" : ", ");
                    json_str(stdout, columns[c].title);
                    printf(": ");
                    json_str(stdout, cell[i * NCOLS + c]);
                    first = false;
                }
            }
            printf("}");
        }
        printf("%s]}\n", n ? "\n" : "");
    } else if (n == 0) {
        printf("no fabric devices found\n");
    } else {
        for (size_t c = 0; c < NCOLS; c++) {
            size_t l = strlen(columns[c].title);
            width[c] = l > width[c] ? l : width[c];
        }
        size_t last = 0;
        for (size_t c = 0; c < NCOLS; c++) {
            last = used[c] ? c : last;
        }
        for (size_t row = 0; row <= n; row++) {
            bool first = true;
            for (size_t c = 0; c < NCOLS; c++) {
                if (!used[c]) {
                    continue;
                }
                const char *v = row == 0 ? columns[c].title : cell[(row - 1) * NCOLS + c];
                /* No padding after the last column. */
                printf("%s%-*s", first ? "" : "  ", c == last ? 0 : (int)width[c],
                       v == NULL ? "-" : v);
                first = false;
            }
            printf("\n");
        }
    }
    for (size_t i = 0; i < n * NCOLS; i++) {
        free(cell[i]);
    }
    free(cell);
    sy_device_list_free(&list);
    sy_devices_cache_release();
    return ferror(stdout) ? fail("write error") : 0;
}

/* ----------------------------------------------------------------- summary */

static const char *groups_method_name(sy_groups_method_t m)
{
    switch (m) {
    case SY_GROUPS_LEAF: return "leaf";
    case SY_GROUPS_POD: return "pod";
    case SY_GROUPS_TRIANGLE: return "triangle";
    case SY_GROUPS_COMMUNITY: return "community";
    default: return "auto";
    }
}

static const char *coords_method_name(sy_coords_method_t m)
{
    switch (m) {
    case SY_COORDS_TORUS: return "torus";
    case SY_COORDS_TREE: return "tree";
    case SY_COORDS_DRAGONFLY: return "dragonfly";
    default: return "bfs";
    }
}

static uint16_t finite_max(const sy_cost_t *c)
{
    uint16_t mx = 0;
    size_t nn = (size_t)c->n * c->n;
    for (size_t i = 0; i < nn; i++) {
        if (c->m[i] != SY_COST_UNREACHABLE && c->m[i] > mx) {
            mx = c->m[i];
        }
    }
    return mx;
}

static void summary(sy_fabric_engine_t *eng)
{
    const sy_topo_t *t = sy_fabric_engine_topo(eng);
    uint32_t down = 0;
    for (uint32_t e = 0; e < t->ne; e++) {
        down += t->e[e].state == PMIX_LINK_DOWN;
    }
    printf("source: %s (%s)\n", t->source ? t->source : "-", t->format ? t->format : "-");
    printf("generation: %llu\n", (unsigned long long)sy_fabric_engine_generation(eng));
    printf("devices: %u\n", t->ndevices);
    printf("switches: %u\n", t->nswitches);
    printf("links: %u (%u down)\n", t->ne, down);

    const sy_planes_t *pl = NULL;
    const sy_fabric_shapes_t *sh = NULL;
    const sy_coords_t *co = NULL;
    if (sy_fabric_engine_planes(eng, &pl) == PMIX_SUCCESS) {
        bool shapes_ok = sy_fabric_engine_shapes(eng, &sh) == PMIX_SUCCESS &&
                         sy_fabric_engine_coords(eng, &co) == PMIX_SUCCESS;
        printf("planes: %u\n", pl->nplanes);
        for (uint32_t p = 0; p < pl->nplanes; p++) {
            printf("  %s: %u devices", pl->ids[p], pl->ndev[p]);
            if (shapes_ok && p < sh->nplanes) {
                printf(", dims %u, shape %s", sh->dims, sh->shape_string[p]);
            }
            printf("\n");
        }
        if (shapes_ok) {
            printf("coordinates: %s\n", coords_method_name(co->method));
        }
    } else {
        printf("planes: error: %s\n", sy_fabric_engine_last_error(eng));
    }

    const sy_groups_t *g = NULL;
    if (sy_fabric_engine_groups(eng, &g) == PMIX_SUCCESS) {
        printf("groups: %u (%s)\n", g->ngroups, groups_method_name(g->method));
        uint32_t *sz = calloc(g->ngroups ? g->ngroups : 1, sizeof(*sz));
        if (sz != NULL) {
            for (uint32_t d = 0; d < g->ndev; d++) {
                sz[g->group[d]]++;
            }
            printf("group sizes:");
            for (uint32_t k = 0; k < g->ngroups; k++) {
                printf(" %u", sz[k]);
            }
            printf("\n");
            free(sz);
        }
    } else {
        printf("groups: error: %s\n", sy_fabric_engine_last_error(eng));
    }

    const sy_cost_t *c = NULL;
    if (sy_fabric_engine_cost(eng, &c) == PMIX_SUCCESS) {
        printf("diameter: %u\n", (unsigned)finite_max(c));
        uint64_t *h = calloc(65536, sizeof(*h));
        if (h != NULL) {
            size_t nn = (size_t)c->n * c->n;
            for (size_t i = 0; i < nn; i++) {
                h[c->m[i]]++;
            }
            printf("cost histogram:\n");
            for (uint32_t v = 0; v < SY_COST_UNREACHABLE; v++) {
                if (h[v]) {
                    printf("  %u: %llu\n", v, (unsigned long long)h[v]);
                }
            }
            if (h[SY_COST_UNREACHABLE]) {
                printf("  unreachable: %llu\n", (unsigned long long)h[SY_COST_UNREACHABLE]);
            }
            free(h);
        }
        printf("cost: %ux%u, metric %s, algorithm %s%s, %.3f s\n", c->n, c->n,
               c->metric == SY_COST_SPEED ? "speed" : "hops",
               c->algo == SY_COST_ALGO_LEAF ? "leaf-collapse" : "per-source search",
               c->torus_closed_form ? " (torus closed form)" : "",
               sy_fabric_engine_compute_seconds(eng, SY_FABRIC_R_COST));
    } else {
        printf("cost: not computed: %s\n", sy_fabric_engine_last_error(eng));
    }
}

/* ----------------------------------------------------------------- exports */

static int export_matrix_bin(const sy_cost_t *c, const char *path)
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

static int export_matrix_csv(const sy_cost_t *c, const char *path)
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

static int export_groups(const sy_groups_t *g, const char *path)
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

static int export_coords(sy_fabric_engine_t *eng, const char *path)
{
    const sy_topo_t *t = sy_fabric_engine_topo(eng);
    const sy_devindex_t *ix;
    const sy_planes_t *pl;
    const sy_groups_t *g;
    const sy_coords_t *co;
    const sy_peers_t *pe;
    const sy_fabric_shapes_t *sh;
    if (sy_fabric_engine_devindex(eng, &ix) != PMIX_SUCCESS ||
        sy_fabric_engine_planes(eng, &pl) != PMIX_SUCCESS ||
        sy_fabric_engine_groups(eng, &g) != PMIX_SUCCESS ||
        sy_fabric_engine_coords(eng, &co) != PMIX_SUCCESS ||
        sy_fabric_engine_peers(eng, &pe) != PMIX_SUCCESS ||
        sy_fabric_engine_shapes(eng, &sh) != PMIX_SUCCESS) {
        return fail("%s", sy_fabric_engine_last_error(eng));
    }
    FILE *f = out_open(path);
    if (f == NULL) {
        return fail("%s: %s", path, strerror(errno));
    }
    fprintf(f, "{\n  \"generation\": %llu,\n  \"coord_method\": \"%s\",\n  \"dims\": %u,\n",
            (unsigned long long)sy_fabric_engine_generation(eng), coords_method_name(co->method),
            co->dims);
    fprintf(f, "  \"planes\": [");
    for (uint32_t p = 0; p < pl->nplanes; p++) {
        fprintf(f, "%s\n    {\"index\": %u, \"id\": ", p ? "," : "", p);
        json_str(f, pl->ids[p]);
        fprintf(f, ", \"devices\": %u, \"shape\": ", pl->ndev[p]);
        json_str(f, p < sh->nplanes ? sh->shape_string[p] : NULL);
        fprintf(f, "}");
    }
    fprintf(f, "%s],\n  \"devices\": [", pl->nplanes ? "\n  " : "");
    for (uint32_t d = 0; d < ix->ndev; d++) {
        const sy_topo_vertex_t *v = &t->v[ix->dev_to_vertex[d]];
        fprintf(f, "%s\n    {\"name\": ", d ? "," : "");
        json_str(f, v->name);
        fprintf(f, ", \"host\": ");
        json_str(f, v->host);
        fprintf(f, ", \"index\": %u, \"plane\": %u, \"group\": %u, \"coordinates\": [", d,
                pl->plane_of[d], g->group[d]);
        for (uint32_t k = 0; k < co->dims; k++) {
            fprintf(f, k ? ", %u" : "%u", co->coord[(size_t)d * co->dims + k]);
        }
        fprintf(f, "], \"switches\": [");
        for (uint32_t k = pe->dev_sw_off[d]; k < pe->dev_sw_off[d + 1]; k++) {
            if (k > pe->dev_sw_off[d]) {
                fprintf(f, ", ");
            }
            json_str(f, pe->sw_name[pe->dev_sw[k]]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "%s]\n}\n", ix->ndev ? "\n  " : "");
    return out_close(f, path);
}

static int export_dot(const sy_topo_t *t, const char *path)
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

/* ---- PNG: RGB 8-bit, written with zlib only ---- */

static int png_chunk(FILE *f, const char *type, const unsigned char *data, uint32_t len)
{
    unsigned char b[4] = {(unsigned char)(len >> 24), (unsigned char)(len >> 16),
                          (unsigned char)(len >> 8), (unsigned char)len};
    uLong crc = crc32(0L, (const Bytef *)type, 4);
    if (len) {
        crc = crc32(crc, data, len);
    }
    fwrite(b, 1, 4, f);
    fwrite(type, 1, 4, f);
    if (len) {
        fwrite(data, 1, len, f);
    }
    unsigned char c[4] = {(unsigned char)(crc >> 24), (unsigned char)(crc >> 16),
                          (unsigned char)(crc >> 8), (unsigned char)crc};
    fwrite(c, 1, 4, f);
    return ferror(f) ? -1 : 0;
}

/* Colour map: cost 0 .. diameter runs blue (0,0,255) -> cyan -> green ->
 * yellow -> red (255,0,0), piecewise linear; unreachable is white. */
static void colour(uint16_t v, uint16_t maxc, unsigned char *px)
{
    if (v == SY_COST_UNREACHABLE) {
        px[0] = px[1] = px[2] = 255;
        return;
    }
    double x = maxc ? (double)v / maxc : 0.0;
    static const unsigned char stops[5][3] = {
        {0, 0, 255}, {0, 255, 255}, {0, 255, 0}, {255, 255, 0}, {255, 0, 0}};
    double s = x * 4.0;
    int k = (int)s;
    if (k >= 4) {
        k = 3;
    }
    double fr = s - k;
    for (int i = 0; i < 3; i++) {
        px[i] = (unsigned char)(stops[k][i] + (stops[k + 1][i] - stops[k][i]) * fr + 0.5);
    }
}

static int export_png(const sy_cost_t *c, const char *path)
{
    uint32_t n = c->n;
    uint32_t blk = n <= PNG_MAX_SIDE ? 1 : (n + PNG_MAX_SIDE - 1) / PNG_MAX_SIDE;
    uint32_t side = n ? (n + blk - 1) / blk : 1;
    uint16_t maxc = finite_max(c);
    size_t rowlen = 1 + (size_t)side * 3;
    unsigned char *row = malloc(rowlen);
    uint16_t *red = malloc((size_t)side * sizeof(*red));
    size_t outcap = 1 << 18;
    unsigned char *obuf = malloc(outcap);
    FILE *f = NULL;
    z_stream z;
    memset(&z, 0, sizeof(z));
    int rc = 1;
    bool zinit = false;
    if (row == NULL || red == NULL || obuf == NULL) {
        fail("out of memory");
        goto out;
    }
    if (Z_OK != deflateInit(&z, 6)) {
        fail("zlib initialisation failed");
        goto out;
    }
    zinit = true;
    if ((f = out_open(path)) == NULL) {
        fail("%s: %s", path, strerror(errno));
        goto out;
    }
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    fwrite(sig, 1, 8, f);
    unsigned char ihdr[13] = {(unsigned char)(side >> 24),
                              (unsigned char)(side >> 16),
                              (unsigned char)(side >> 8),
                              (unsigned char)side,
                              (unsigned char)(side >> 24),
                              (unsigned char)(side >> 16),
                              (unsigned char)(side >> 8),
                              (unsigned char)side,
                              8,
                              2,
                              0,
                              0,
                              0};
    png_chunk(f, "IHDR", ihdr, 13);
    for (uint32_t y = 0; y <= side; y++) {
        int flush = Z_NO_FLUSH;
        if (y < side) {
            row[0] = 0; /* filter: none */
            /* Downsampling: each pixel is the maximum of its blk x blk
             * block, so a single unreachable pair stays visible. */
            for (uint32_t x = 0; x < side; x++) {
                red[x] = 0;
            }
            for (uint32_t i = y * blk; i < (y + 1) * blk && i < n; i++) {
                const uint16_t *src = c->m + (size_t)i * n;
                for (uint32_t j = 0; j < n; j++) {
                    uint32_t x = j / blk;
                    if (src[j] > red[x]) {
                        red[x] = src[j];
                    }
                }
            }
            for (uint32_t x = 0; x < side; x++) {
                colour(n ? red[x] : SY_COST_UNREACHABLE, maxc, row + 1 + (size_t)x * 3);
            }
            z.next_in = row;
            z.avail_in = (uInt)rowlen;
        } else {
            z.next_in = NULL;
            z.avail_in = 0;
            flush = Z_FINISH;
        }
        int zr;
        do {
            z.next_out = obuf;
            z.avail_out = (uInt)outcap;
            zr = deflate(&z, flush);
            if (Z_STREAM_ERROR == zr) {
                fail("zlib error");
                goto out;
            }
            uint32_t have = (uint32_t)(outcap - z.avail_out);
            if (have && png_chunk(f, "IDAT", obuf, have) != 0) {
                fail("%s: write error", path);
                goto out;
            }
        } while (z.avail_out == 0 || (Z_FINISH == flush && Z_STREAM_END != zr));
    }
    png_chunk(f, "IEND", NULL, 0);
    rc = out_close(f, path);
    f = NULL;
out:
    if (f != NULL && stdout != f) {
        fclose(f);
    }
    if (zinit) {
        deflateEnd(&z);
    }
    free(row);
    free(red);
    free(obuf);
    return rc;
}

/* -------------------------------------------------------------------- main */

enum {
    O_LOAD = 256,
    O_FORMAT,
    O_GENERATE,
    O_DISCOVER,
    O_METRIC,
    O_THREADS,
    O_GROUP_MODE,
    O_MAXBYTES,
    O_MBIN,
    O_MCSV,
    O_GROUPS,
    O_COORDS,
    O_DOT,
    O_PNG,
    O_JSON,
    O_QUIET,
    O_HELP
};

static bool parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (s == NULL || '\0' == *s || '-' == *s) {
        return false;
    }
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno != 0 || '\0' != *end) {
        return false;
    }
    *v = x;
    return true;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"load", required_argument, NULL, O_LOAD},
                                         {"format", required_argument, NULL, O_FORMAT},
                                         {"generate", required_argument, NULL, O_GENERATE},
                                         {"discover", no_argument, NULL, O_DISCOVER},
                                         {"cost-metric", required_argument, NULL, O_METRIC},
                                         {"threads", required_argument, NULL, O_THREADS},
                                         {"group-mode", required_argument, NULL, O_GROUP_MODE},
                                         {"max-matrix-bytes", required_argument, NULL, O_MAXBYTES},
                                         {"matrix-bin", required_argument, NULL, O_MBIN},
                                         {"matrix-csv", required_argument, NULL, O_MCSV},
                                         {"groups", required_argument, NULL, O_GROUPS},
                                         {"coords-json", required_argument, NULL, O_COORDS},
                                         {"dot", required_argument, NULL, O_DOT},
                                         {"png", required_argument, NULL, O_PNG},
                                         {"json", no_argument, NULL, O_JSON},
                                         {"quiet", no_argument, NULL, O_QUIET},
                                         {"help", no_argument, NULL, O_HELP},
                                         {NULL, 0, NULL, 0}};
    const char *load = NULL, *format = NULL, *spec = NULL;
    const char *mbin = NULL, *mcsv = NULL, *groups = NULL, *coords = NULL, *dot = NULL, *png = NULL;
    bool discover_mode = false, json = false, quiet = false;
    sy_fabric_engine_opts_t eo;
    memset(&eo, 0, sizeof(eo));
    uint64_t v;
    int o;
    opterr = 0;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case O_LOAD: load = optarg; break;
        case O_FORMAT:
            if (strcmp(optarg, "slurm") && strcmp(optarg, "ibnet") && strcmp(optarg, "native")) {
                return usage_error("--format: expected slurm, ibnet or native, not '%s'", optarg);
            }
            format = optarg;
            break;
        case O_GENERATE: spec = optarg; break;
        case O_DISCOVER: discover_mode = true; break;
        case O_METRIC:
            if (strcmp(optarg, "hops") == 0) {
                eo.metric = SY_COST_HOPS;
            } else if (strcmp(optarg, "speed") == 0) {
                eo.metric = SY_COST_SPEED;
            } else {
                return usage_error("--cost-metric: expected hops or speed, not '%s'", optarg);
            }
            break;
        case O_THREADS:
            if (!parse_u64(optarg, &v) || v < 1 || v > SY_COST_MAX_THREADS) {
                return usage_error("--threads: expected 1..%u, not '%s'", SY_COST_MAX_THREADS,
                                   optarg);
            }
            eo.nthreads = (unsigned)v;
            break;
        case O_GROUP_MODE:
            if (strcmp(optarg, "auto") == 0) {
                eo.group_method = SY_GROUPS_AUTO;
            } else if (strcmp(optarg, "leaf") == 0) {
                eo.group_method = SY_GROUPS_LEAF;
            } else if (strcmp(optarg, "pod") == 0) {
                eo.group_method = SY_GROUPS_POD;
            } else {
                return usage_error("--group-mode: expected auto, leaf or pod, not '%s'", optarg);
            }
            break;
        case O_MAXBYTES:
            if (!parse_u64(optarg, &v) || v == 0) {
                return usage_error("--max-matrix-bytes: expected a positive number, not '%s'",
                                   optarg);
            }
            eo.max_bytes = v;
            break;
        case O_MBIN: mbin = optarg; break;
        case O_MCSV: mcsv = optarg; break;
        case O_GROUPS: groups = optarg; break;
        case O_COORDS: coords = optarg; break;
        case O_DOT: dot = optarg; break;
        case O_PNG: png = optarg; break;
        case O_JSON: json = true; break;
        case O_QUIET: quiet = true; break;
        case O_HELP: usage(stdout); return 0;
        default: return usage_error("unknown option or missing argument: %s", argv[optind - 1]);
        }
    }
    if (optind < argc) {
        return usage_error("unexpected argument: %s", argv[optind]);
    }
    int nsrc = (load != NULL) + (spec != NULL) + discover_mode;
    if (nsrc != 1) {
        return usage_error("give exactly one of --load, --generate or --discover");
    }
    if (format != NULL && load == NULL) {
        return usage_error("--format goes with --load");
    }
    if (json && !discover_mode) {
        return usage_error("--json goes with --discover (use --coords-json for the engine)");
    }
    if (discover_mode) {
        if (mbin || mcsv || groups || coords || dot || png) {
            return usage_error("exports need --load or --generate");
        }
        return discover(json);
    }

    progress_t prog = {.active = !quiet && isatty(STDERR_FILENO)};
    eo.progress = progress_cb;
    eo.progress_arg = &prog;
    sy_fabric_engine_t *eng = NULL;
    char *msg = NULL;
    pmix_status_t rc = load != NULL ? sy_fabric_engine_load(load, format, &eo, &eng, &msg)
                                    : sy_fabric_engine_generate(spec, &eo, &eng, &msg);
    if (rc != PMIX_SUCCESS) {
        int r = fail("%s", msg != NULL ? msg : PMIx_Error_string(rc));
        free(msg);
        return r;
    }
    int status = 0;
    if (!quiet) {
        summary(eng);
        if (fflush(stdout) != 0) {
            status = 1;
        }
    }
    const sy_cost_t *c = NULL;
    if ((mbin || mcsv || png) && sy_fabric_engine_cost(eng, &c) != PMIX_SUCCESS) {
        status = fail("cost matrix: %s", sy_fabric_engine_last_error(eng));
        c = NULL;
    }
    if (c != NULL && mbin && export_matrix_bin(c, mbin)) {
        status = 1;
    }
    if (c != NULL && mcsv && export_matrix_csv(c, mcsv)) {
        status = 1;
    }
    if (c != NULL && png && export_png(c, png)) {
        status = 1;
    }
    if (groups) {
        const sy_groups_t *g;
        if (sy_fabric_engine_groups(eng, &g) != PMIX_SUCCESS) {
            status = fail("groups: %s", sy_fabric_engine_last_error(eng));
        } else if (export_groups(g, groups)) {
            status = 1;
        }
    }
    if (coords && export_coords(eng, coords)) {
        status = 1;
    }
    if (dot && export_dot(sy_fabric_engine_topo(eng), dot)) {
        status = 1;
    }
    sy_fabric_engine_free(eng);
    return status;
}
