/* Unit test: PMIx_Get_version() must look like an OpenPMIx >= 3 version
 * string (callers parse the leading number) and identify Switchyard. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <pmix.h>

static void test_version_leading_digit(void **state)
{
    (void)state;
    const char *v = PMIx_Get_version();
    assert_non_null(v);
    assert_true(v[0] >= '3' && v[0] <= '9');
}

static void test_version_names_switchyard(void **state)
{
    (void)state;
    assert_non_null(strstr(PMIx_Get_version(), "Switchyard"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_leading_digit),
        cmocka_unit_test(test_version_names_switchyard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
