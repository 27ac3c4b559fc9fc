# The client side of OpenPMIx's wire protocol (issue 19).
src_libswitchyard_la_SOURCES += \
	src/common/opx_connect.c \
	src/common/opx_map.c \
	src/common/opx_jobinfo.c \
	src/common/opx_codec_client.c \
	src/client/client_opx.c
noinst_HEADERS += src/common/opx_client.h
# test_opx_client: which server the environment names, the connect
# message, the map encodings (a blob made here with zlib).
check_PROGRAMS += tests/unit/test_opx_client
TESTS += tests/unit/test_opx_client
tests_unit_test_opx_client_LDADD = $(UNIT_LDADD) $(ZLIB_LIBS)
# tests/external/interop.sh (tools/tools.mk) section 2 builds fence_get.c.
EXTRA_DIST += tests/external/interop/fence_get.c
# The client direction of the OpenPMIx codec against hostile servers.
FUZZ_TARGETS += fuzz_opx_client
EXTRA_DIST += tests/fuzz/fuzz_opx_client.c
