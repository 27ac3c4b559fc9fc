/* Fixtures shared by the fabric unit tests (see fabric_fixtures.h). */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmix_common.h>

#include "fabric_fixtures.h"

#ifndef FABRIC_DATA_DIR
#define FABRIC_DATA_DIR "tests/fabric/data"
#endif

char *fab_data_path(const char *file)
{
    static char path[4096];
    const char *top = getenv("top_srcdir");
    if (top != NULL) {
        snprintf(path, sizeof(path), "%s/tests/fabric/data/%s", top, file);
    } else {
        snprintf(path, sizeof(path), "%s/%s", FABRIC_DATA_DIR, file);
    }
    return path;
}

/* The message is freed before asserting so a failing test leaks nothing. */
static sy_topo_t *loaded(pmix_status_t rc, sy_topo_t *t, char *err, const char *what,
                         const char *arg)
{
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "%s%s: %s\n", what, arg, err ? err : "(no message)");
    }
    bool message = err != NULL;
    free(err);
    assert_int_equal(PMIX_SUCCESS, rc);
    assert_false(message);
    assert_non_null(t);
    return t;
}

sy_topo_t *fab_load_file(const char *file, const char *format)
{
    sy_topo_t *t = NULL;
    char *err = NULL;
    pmix_status_t rc = sy_topo_load(fab_data_path(file), format, &t, &err);
    return loaded(rc, t, err, "load ", file);
}

sy_topo_t *fab_load_text(const char *text)
{
    sy_topo_t *t = NULL;
    char *err = NULL;
    pmix_status_t rc = sy_topo_load_buffer(text, strlen(text), "test", "native", NULL, &t, &err);
    return loaded(rc, t, err, "native", "");
}

sy_topo_t *fab_generate(const char *spec)
{
    sy_topo_t *t = NULL;
    char *err = NULL;
    pmix_status_t rc = sy_topo_generate(spec, &t, &err);
    return loaded(rc, t, err, "generate ", spec);
}

void fab_finish(fab_t *f)
{
    assert_non_null(f->t);
    assert_int_equal(PMIX_SUCCESS, sy_topo_finalize(f->t));
    assert_int_equal(PMIX_SUCCESS, sy_devindex_build(f->t, &f->ix));
}

fab_t fab_native(const char *text)
{
    fab_t f = {.t = fab_load_text(text)};
    fab_finish(&f);
    return f;
}

fab_t fab_file(const char *file)
{
    fab_t f = {.t = fab_load_file(file, NULL)};
    fab_finish(&f);
    return f;
}

fab_t fab_gen(const char *spec)
{
    fab_t f = {.t = fab_generate(spec)};
    fab_finish(&f);
    return f;
}

void fab_free(fab_t *f)
{
    sy_devindex_free(&f->ix);
    sy_topo_free(f->t);
}
