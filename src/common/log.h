/* Diagnostics for operators: one line per event on stderr,
 *   "switchyard[<pid>] <level>: <message>"
 * The threshold comes from the SWITCHYARD_LOG environment variable
 * (error, warn, info, debug; default warn), read once.  Refused handshakes,
 * dropped connections and host misbehaviour are logged at warn, so a site
 * sees them without asking.  Thread-safe; never allocates on the heap.
 *
 * No path can flood stderr (docs/architecture.md, "Logging"):
 *   - a line identical to the previous one (same level and text) is not
 *     written again; "last message repeated N times" follows when another
 *     line comes, at the latest SY_LOG_REPEAT_SECONDS after the first
 *     repeat, and at sy_log_flush();
 *   - beyond a burst of SY_LOG_BURST lines, at most SWITCHYARD_LOG_RATE
 *     lines a second are written (default SY_LOG_DEFAULT_RATE; 0: no
 *     limit, the default when SWITCHYARD_LOG=debug); the others are
 *     counted and reported as "N messages suppressed". */
#ifndef SWITCHYARD_COMMON_LOG_H
#define SWITCHYARD_COMMON_LOG_H
#include <stdbool.h>

typedef enum {
    SY_LOG_ERROR = 0,
    SY_LOG_WARN = 1,
    SY_LOG_INFO = 2,
    SY_LOG_DEBUG = 3
} sy_log_level_t;

#define SY_LOG_REPEAT_SECONDS 10.0
#define SY_LOG_BURST 50
#define SY_LOG_DEFAULT_RATE 10

bool sy_log_enabled(sy_log_level_t level);
void sy_log(sy_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write what the rate limiting holds back (a pending repeat count, a
 * count of suppressed lines); called when the last role finalizes. */
void sy_log_flush(void);

#endif
