/* sy_log for the library code this program builds in
 * (src/server/server_cred_munge.c): one line on stderr, as the library's
 * own log says things. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "common/log.h"

bool sy_log_enabled(sy_log_level_t level)
{
    return level <= SY_LOG_WARN;
}

void sy_log(sy_log_level_t level, const char *fmt, ...)
{
    if (!sy_log_enabled(level))
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "switchyard-sched[%ld]: %s\n", (long)getpid(), line);
}
