# OpenPMIx 4.2.2 compatibility (exported pmix_* helpers, deprecated API).
# Append sources with `src_libswitchyard_la_SOURCES += src/compat/foo.c` and
# private headers with `noinst_HEADERS += src/compat/foo.h`.
src_libswitchyard_la_SOURCES +=
