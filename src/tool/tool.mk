# Tool API (PMIx_tool_init, PMIx_tool_attach_to_server, ...).
# Append sources with `src_libswitchyard_la_SOURCES += src/tool/foo.c` and
# private headers with `noinst_HEADERS += src/tool/foo.h`.
src_libswitchyard_la_SOURCES += src/tool/tool_init.c src/tool/tool_attach.c \
	src/tool/tool_rndz.c src/tool/tool_spawn.c
noinst_HEADERS += src/tool/tool_internal.h
