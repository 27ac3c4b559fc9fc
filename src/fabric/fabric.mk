# Fabric support (PMIx_Fabric_register, libfabric glue, ...).
# Append sources with `src_libswitchyard_la_SOURCES += src/fabric/foo.c` and
# private headers with `noinst_HEADERS += src/fabric/foo.h`.
src_libswitchyard_la_SOURCES +=
