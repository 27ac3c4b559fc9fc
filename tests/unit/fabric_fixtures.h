/* Fixtures shared by the fabric unit tests: topologies from the data
 * files in tests/fabric/data/, native strings and generator specs, each
 * asserted to load (cmocka), optionally finalized with a device index. */
#ifndef SWITCHYARD_TESTS_FABRIC_FIXTURES_H
#define SWITCHYARD_TESTS_FABRIC_FIXTURES_H

#include "fabric/devindex.h"
#include "fabric/topo.h"

/* Path of `file` under $top_srcdir/tests/fabric/data, or FABRIC_DATA_DIR
 * when top_srcdir is unset.  Static buffer: valid until the next call. */
char *fab_data_path(const char *file);

/* Load, parse or generate; the call must succeed, leave no message and
 * give a topology (not finalized).  format NULL detects it. */
sy_topo_t *fab_load_file(const char *file, const char *format);
sy_topo_t *fab_load_text(const char *text);
sy_topo_t *fab_generate(const char *spec);

/* A finalized topology with its device index. */
typedef struct {
    sy_topo_t *t;
    sy_devindex_t ix;
} fab_t;

/* Finalize f->t and build f->ix (both must succeed). */
void fab_finish(fab_t *f);
fab_t fab_native(const char *text);
fab_t fab_file(const char *file);
fab_t fab_gen(const char *spec);
void fab_free(fab_t *f);

#endif
