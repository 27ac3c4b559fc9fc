/*
 * libFuzzer target: the fabric topology readers (Slurm topology.conf,
 * ibnetdiscover default and -p, OpenSM subnet.lst, ibsim net, native) and
 * the format detector on arbitrary bytes.  Must never crash, hang, leak or read out of bounds,
 * and a successful read must give a consistent graph.
 *
 * Input: one selector byte, then the text.
 *   selector % 6   0 slurm, 1 ibnet, 2 native, 3 auto-detect, 4 osm-lst,
 *                  5 ibsim
 * The vertex and link limits are lowered so that a short hostile hostlist
 * ("n[0-9999999]") is refused quickly instead of exhausting the fuzzer's
 * memory budget; the limit logic itself is what gets exercised.
 * Seeds: tests/fuzz/corpus/fuzz_topo_readers/ (selector byte + a file of
 * tests/fabric/data/).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/topo.h"

static void check_graph(sy_topo_t *t)
{
    if (t->ndevices + t->nswitches != t->nv) {
        abort();
    }
    for (uint32_t i = 0; i < t->nv; i++) {
        uint32_t v;
        if (sy_topo_find(t, t->v[i].name, &v) != PMIX_SUCCESS || v != i) {
            abort();
        }
    }
    for (uint32_t i = 0; i < t->ne; i++) {
        if (t->e[i].a >= t->e[i].b || t->e[i].b >= t->nv || t->e[i].count == 0) {
            abort();
        }
    }
    if (sy_topo_finalize(t) != PMIX_SUCCESS || t->adj_off[t->nv] != 2 * t->ne) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    static const char *const formats[] = {"slurm", "ibnet", "native", NULL, "osm-lst", "ibsim"};
    const char *format = formats[data[0] % 6];
    /* A private copy: libFuzzer's buffer ends exactly at size, so any
     * read past the end is caught. */
    size_t len = size - 1;
    char *buf = malloc(len ? len : 1);
    if (buf == NULL) {
        return 0;
    }
    memcpy(buf, data + 1, len);
    sy_topo_limits_t lim = {.max_vertices = 20000, .max_edges = 100000};
    sy_topo_t *t = NULL;
    char *err = NULL;
    (void)sy_topo_detect_format(buf, len);
    pmix_status_t rc = sy_topo_load_buffer(buf, len, "fuzz", format, &lim, &t, &err);
    if (rc == PMIX_SUCCESS) {
        if (t == NULL || err != NULL) {
            abort();
        }
        check_graph(t);
        /* a note is one printable line */
        for (const char *n = t->note; n != NULL && *n != '\0'; n++) {
            if (*n == '\n') {
                abort();
            }
        }
        sy_topo_free(t);
    } else {
        if (t != NULL) {
            abort();
        }
        free(err);
    }
    free(buf);
    return 0;
}
