#include "common/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static sy_log_level_t threshold = SY_LOG_WARN;
static pthread_once_t threshold_once = PTHREAD_ONCE_INIT;

static void read_threshold(void)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    const char *env = getenv("SWITCHYARD_LOG");
    if (env == NULL)
        return;
    for (int i = 0; i < 4; i++)
        if (strcasecmp(env, names[i]) == 0)
            threshold = (sy_log_level_t)i;
}

bool sy_log_enabled(sy_log_level_t level)
{
    pthread_once(&threshold_once, read_threshold);
    return level <= threshold;
}

void sy_log(sy_log_level_t level, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    if (!sy_log_enabled(level))
        return;
    /* One write() per line so lines of concurrent threads and processes do
     * not interleave. */
    char line[1024];
    int n = snprintf(line, sizeof line, "switchyard[%d] %s: ", (int)getpid(), names[level]);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}
