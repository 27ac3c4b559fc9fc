/* Unit test: the logger's rate limiting (src/common/log.c).  Each case
 * runs in a child process (the settings are read once per process) whose
 * stderr is a pipe we read, so what is counted is what an operator would
 * see: a run of identical lines is one line plus "last message repeated N
 * times"; a flood of distinct lines is cut to the burst plus the rate, with
 * the number suppressed reported; SWITCHYARD_LOG_RATE=0 lets every line
 * through. */
#define _GNU_SOURCE
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/log.h"

typedef void (*scenario_fn)(void);

/* Run fn in a child with the environment variable `env` (NAME=VALUE, or
 * NULL) and return everything it wrote to stderr (malloc'd). */
static char *run(scenario_fn fn, const char *env)
{
    int p[2];
    assert_int_equal(0, pipe(p));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], STDERR_FILENO);
        unsetenv("SWITCHYARD_LOG");
        unsetenv("SWITCHYARD_LOG_RATE");
        if (env != NULL)
            putenv((char *)env);
        fn();
        sy_log_flush();
        _exit(0);
    }
    close(p[1]);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    for (;;) {
        if (len + 4096 > cap) {
            cap *= 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
        ssize_t r = read(p[0], out + len, cap - len - 1);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    out[len] = '\0';
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return out;
}

static size_t count_lines(const char *s, const char *containing)
{
    size_t n = 0;
    for (const char *l = s; *l != '\0';) {
        const char *e = strchr(l, '\n');
        size_t len = e != NULL ? (size_t)(e - l) : strlen(l);
        if (containing == NULL || (memmem(l, len, containing, strlen(containing)) != NULL))
            n++;
        l += len + (e != NULL);
    }
    return n;
}

static void same_10000(void)
{
    for (int i = 0; i < 10000; i++)
        sy_log(SY_LOG_WARN, "accept failed: Too many open files");
    sy_log(SY_LOG_WARN, "something else");
}

static void test_repeats_collapse(void **state)
{
    (void)state;
    char *out = run(same_10000, NULL);
    /* the line once, the count, the next line */
    assert_int_equal(3, count_lines(out, NULL));
    assert_int_equal(1, count_lines(out, "Too many open files"));
    assert_int_equal(1, count_lines(out, "last message repeated 9999 times"));
    assert_int_equal(1, count_lines(out, "something else"));
    free(out);
}

static void same_then_flush(void)
{
    for (int i = 0; i < 3; i++)
        sy_log(SY_LOG_ERROR, "the same");
    /* run() flushes at the end, as the last finalize does */
}

static void test_flush_reports_repeats(void **state)
{
    (void)state;
    char *out = run(same_then_flush, NULL);
    assert_int_equal(2, count_lines(out, NULL));
    assert_int_equal(1, count_lines(out, "error: last message repeated 2 times"));
    free(out);
}

static void distinct_10000(void)
{
    for (int i = 0; i < 10000; i++)
        sy_log(SY_LOG_WARN, "peer %d dropped", i);
}

static void test_flood_limited(void **state)
{
    (void)state;
    char *out = run(distinct_10000, NULL);
    /* the burst, what the rate let through meanwhile (the loop takes far
     * less than a second on any machine this runs on, but the bound
     * allows many), and the count of the rest */
    size_t lines = count_lines(out, "dropped");
    assert_true(lines >= SY_LOG_BURST);
    assert_true(lines < 1000);
    assert_int_equal(1, count_lines(out, "messages suppressed"));
    free(out);
}

static void test_rate_zero_lets_all_through(void **state)
{
    (void)state;
    char *out = run(distinct_10000, "SWITCHYARD_LOG_RATE=0");
    assert_int_equal(10000, count_lines(out, "dropped"));
    assert_int_equal(0, count_lines(out, "suppressed"));
    free(out);
}

static void below_threshold(void)
{
    for (int i = 0; i < 100; i++)
        sy_log(SY_LOG_DEBUG, "not shown %d", i);
    sy_log(SY_LOG_ERROR, "shown");
}

static void test_threshold(void **state)
{
    (void)state;
    char *out = run(below_threshold, NULL);
    assert_int_equal(1, count_lines(out, NULL));
    assert_int_equal(1, count_lines(out, "] error: shown"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repeats_collapse), cmocka_unit_test(test_flush_reports_repeats),
        cmocka_unit_test(test_flood_limited),    cmocka_unit_test(test_rate_zero_lets_all_through),
        cmocka_unit_test(test_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
