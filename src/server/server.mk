# Server API (PMIx_server_init, pmix_server_module_t upcalls, ...).
# Append sources with `src_libswitchyard_la_SOURCES += src/server/foo.c` and
# private headers with `noinst_HEADERS += src/server/foo.h`.
src_libswitchyard_la_SOURCES +=
