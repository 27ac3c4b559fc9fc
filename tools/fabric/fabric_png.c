/* switchyard-fabric --png: the cost matrix as an RGB heatmap, one pixel per
 * device pair up to PNG_MAX_SIDE devices, written with libpng. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "fabric.h"

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

/* Row y of a heatmap SIDE pixels wide whose pixels are BLK x BLK blocks of
 * the matrix.  Each pixel is the maximum of its block, so that a single
 * unreachable pair stays visible when downsampled. */
static void heat_row(const sy_cost_t *c, uint32_t y, uint32_t blk, uint32_t side, uint16_t maxc,
                     uint16_t *block_max, unsigned char *row)
{
    uint32_t n = c->n;
    memset(block_max, 0, (size_t)side * sizeof(*block_max));
    for (uint32_t i = y * blk; i < (y + 1) * blk && i < n; i++) {
        const uint16_t *src = c->m + (size_t)i * n;
        for (uint32_t j = 0; j < n; j++) {
            uint32_t x = j / blk;
            if (src[j] > block_max[x]) {
                block_max[x] = src[j];
            }
        }
    }
    for (uint32_t x = 0; x < side; x++) {
        colour(n ? block_max[x] : SY_COST_UNREACHABLE, maxc, row + (size_t)x * 3);
    }
}

/* libpng reports errors by longjmp; the message goes through fail(). */
static void png_error_fn(png_structp png, png_const_charp msg)
{
    fail("libpng: %s", msg);
    png_longjmp(png, 1);
}

static void png_warning_fn(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* What one heatmap needs, computed before libpng may longjmp. */
typedef struct {
    const sy_cost_t *c;
    uint32_t blk, side;
    uint16_t maxc;
    unsigned char *row;
    uint16_t *block_max;
} heatmap_t;

/* 0, or 1 after libpng reported an error (through png_error_fn). */
static int write_heatmap(png_structp png, png_infop info, FILE *f, const heatmap_t *h)
{
    if (setjmp(png_jmpbuf(png)) != 0) {
        return 1;
    }
    png_init_io(png, f);
    png_set_compression_level(png, 6);
    png_set_IHDR(png, info, h->side, h->side, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < h->side; y++) {
        heat_row(h->c, y, h->blk, h->side, h->maxc, h->block_max, h->row);
        png_write_row(png, h->row);
    }
    png_write_end(png, NULL);
    return 0;
}

int export_png(const sy_cost_t *c, const char *path)
{
    heatmap_t h = {.c = c, .maxc = finite_max(c)};
    h.blk = c->n <= PNG_MAX_SIDE ? 1 : (c->n + PNG_MAX_SIDE - 1) / PNG_MAX_SIDE;
    h.side = c->n ? (c->n + h.blk - 1) / h.blk : 1;
    h.row = malloc((size_t)h.side * 3);
    h.block_max = malloc((size_t)h.side * sizeof(*h.block_max));
    FILE *f = NULL;
    png_structp png = NULL;
    png_infop info = NULL;
    int rc = 1;
    if (h.row == NULL || h.block_max == NULL) {
        fail("out of memory");
    } else if ((f = out_open(path)) == NULL) {
        fail("%s: %s", path, strerror(errno));
    } else if ((png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, png_error_fn,
                                              png_warning_fn)) == NULL ||
               (info = png_create_info_struct(png)) == NULL) {
        fail("out of memory");
    } else {
        rc = write_heatmap(png, info, f, &h);
    }
    png_destroy_write_struct(&png, &info);
    free(h.row);
    free(h.block_max);
    if (f == NULL) {
        return rc;
    }
    if (rc != 0) {
        if (f != stdout) {
            fclose(f);
        }
        return rc;
    }
    return out_close(f, path);
}
