# Client API (PMIx_Init, PMIx_Get, PMIx_Put, PMIx_Fence, ...).
# Append sources with `src_libswitchyard_la_SOURCES += src/client/foo.c` and
# private headers with `noinst_HEADERS += src/client/foo.h`.
src_libswitchyard_la_SOURCES +=
