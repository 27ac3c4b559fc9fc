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

#include <pmix.h>

#include "fabric/engine.h"
#include "fabric.h"

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
            "                      ibnetdiscover output, OpenSM subnet.lst, ibsim net\n"
            "                      file or the native format)\n"
            "  --format F          file format: slurm, ibnet, osm-lst, ibsim or native\n"
            "                      (default: detect)\n"
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

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, PROG ": ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '" PROG " --help'.\n");
    va_end(ap);
    return 2;
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

static void summary(sy_fabric_engine_t *eng)
{
    const sy_topo_t *t = sy_fabric_engine_topo(eng);
    uint32_t down = 0;
    for (uint32_t e = 0; e < t->ne; e++) {
        down += t->e[e].state == PMIX_LINK_DOWN;
    }
    printf("source: %s (%s)\n", t->source ? t->source : "-", t->format ? t->format : "-");
    if (t->note != NULL)
        printf("note: %s\n", t->note);
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
            if (strcmp(optarg, "slurm") && strcmp(optarg, "ibnet") && strcmp(optarg, "osm-lst") &&
                strcmp(optarg, "ibsim") && strcmp(optarg, "native")) {
                return usage_error(
                    "--format: expected slurm, ibnet, osm-lst, ibsim or native, not '%s'", optarg);
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
