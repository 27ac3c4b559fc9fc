#include "common/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define SY_LOG_LINE 1024

static sy_log_level_t threshold = SY_LOG_WARN;
static double rate = SY_LOG_DEFAULT_RATE; /* lines a second after the burst; 0: no limit */
static pthread_once_t threshold_once = PTHREAD_ONCE_INIT;

static const char *const level_names[] = {"error", "warning", "info", "debug"};

/* The rate limiter's state, under log_lock (which also orders the lines
 * of this process's threads). */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char last[SY_LOG_LINE]; /* the text of the last line written */
static sy_log_level_t last_level;
static bool have_last;
static unsigned long repeats; /* identical lines not written since */
static double repeat_since;   /* when the first of them came */
static double tokens = SY_LOG_BURST;
static double tokens_at; /* when tokens was last refilled (0: never) */
static unsigned long suppressed;
static sy_log_level_t suppressed_level;

static void read_threshold(void)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    const char *env = getenv("SWITCHYARD_LOG");
    if (env != NULL)
        for (int i = 0; i < 4; i++)
            if (strcasecmp(env, names[i]) == 0)
                threshold = (sy_log_level_t)i;
    /* asked for every detail: no limit unless one is set too */
    if (threshold == SY_LOG_DEBUG)
        rate = 0;
    const char *r = getenv("SWITCHYARD_LOG_RATE");
    if (r != NULL && *r != '\0') {
        char *end;
        double v = strtod(r, &end);
        if (*end == '\0' && v >= 0)
            rate = v;
    }
}

bool sy_log_enabled(sy_log_level_t level)
{
    pthread_once(&threshold_once, read_threshold);
    return level <= threshold;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One write() per line so lines of concurrent processes do not
 * interleave. */
static void emit(sy_log_level_t level, const char *text)
{
    char line[SY_LOG_LINE + 64];
    int n = snprintf(line, sizeof line, "switchyard[%d] %s: %s", (int)getpid(), level_names[level],
                     text);
    size_t len = n < 0 ? 0 : (size_t)n;
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

static void emit_repeats(void)
{
    if (repeats == 0)
        return;
    char text[64];
    snprintf(text, sizeof text, "last message repeated %lu time%s", repeats,
             repeats == 1 ? "" : "s");
    emit(last_level, text);
    repeats = 0;
}

static void emit_suppressed(void)
{
    if (suppressed == 0)
        return;
    char text[96];
    snprintf(text, sizeof text, "%lu message%s suppressed (more than %g lines a second)",
             suppressed, suppressed == 1 ? "" : "s", rate);
    emit(suppressed_level, text);
    suppressed = 0;
}

/* A token for one more line, refilled at `rate` a second up to a burst. */
static bool take_token(double now)
{
    if (rate <= 0)
        return true;
    if (tokens_at > 0) {
        tokens += (now - tokens_at) * rate;
        if (tokens > SY_LOG_BURST)
            tokens = SY_LOG_BURST;
    }
    tokens_at = now;
    if (tokens < 1)
        return false;
    tokens -= 1;
    return true;
}

void sy_log(sy_log_level_t level, const char *fmt, ...)
{
    if (!sy_log_enabled(level))
        return;
    char text[SY_LOG_LINE];
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (m < 0)
        text[0] = '\0';
    double now = now_s();
    pthread_mutex_lock(&log_lock);
    if (have_last && level == last_level && strcmp(text, last) == 0) {
        if (repeats++ == 0)
            repeat_since = now;
        else if (now - repeat_since >= SY_LOG_REPEAT_SECONDS)
            emit_repeats();
        pthread_mutex_unlock(&log_lock);
        return;
    }
    emit_repeats();
    if (!take_token(now)) {
        if (suppressed++ == 0 || level < suppressed_level)
            suppressed_level = level;
        pthread_mutex_unlock(&log_lock);
        return;
    }
    emit_suppressed();
    emit(level, text);
    memcpy(last, text, strlen(text) + 1);
    last_level = level;
    have_last = true;
    pthread_mutex_unlock(&log_lock);
}

void sy_log_flush(void)
{
    pthread_mutex_lock(&log_lock);
    emit_repeats();
    emit_suppressed();
    pthread_mutex_unlock(&log_lock);
}
