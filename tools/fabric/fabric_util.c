/* switchyard-fabric: output helpers shared by the summary and the exports. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fabric.h"

int fail(const char *fmt, ...)
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

FILE *out_open(const char *path)
{
    return strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
}

int out_close(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (f == stdout) {
        bad |= fflush(f);
    } else {
        bad |= fclose(f);
    }
    return bad ? fail("%s: write error", path) : 0;
}

void speed_text(uint64_t bps, char *buf, size_t len)
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

const char *coords_method_name(sy_coords_method_t m)
{
    switch (m) {
    case SY_COORDS_TORUS: return "torus";
    case SY_COORDS_TREE: return "tree";
    case SY_COORDS_DRAGONFLY: return "dragonfly";
    default: return "bfs";
    }
}

uint16_t finite_max(const sy_cost_t *c)
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
