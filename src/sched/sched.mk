# Scheduler / allocation support.
# Append sources with `src_libswitchyard_la_SOURCES += src/sched/foo.c` and
# private headers with `noinst_HEADERS += src/sched/foo.h`.
src_libswitchyard_la_SOURCES +=
