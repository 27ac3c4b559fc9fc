/* Diagnostics for operators: one line per event on stderr,
 *   "switchyard[<pid>] <level>: <message>"
 * The threshold comes from the SWITCHYARD_LOG environment variable
 * (error, warn, info, debug; default warn), read once.  Refused handshakes,
 * dropped connections and host misbehaviour are logged at warn, so a site
 * sees them without asking.  Thread-safe; never allocates on the heap. */
#ifndef SWITCHYARD_COMMON_LOG_H
#define SWITCHYARD_COMMON_LOG_H
#include <stdbool.h>

typedef enum {
    SY_LOG_ERROR = 0,
    SY_LOG_WARN = 1,
    SY_LOG_INFO = 2,
    SY_LOG_DEBUG = 3
} sy_log_level_t;

bool sy_log_enabled(sy_log_level_t level);
void sy_log(sy_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
