# OpenPMIx 4.2.2 compatibility (exported pmix_* helpers, deprecated API).
# Append sources with `src_libswitchyard_la_SOURCES += src/compat/foo.c` and
# private headers with `noinst_HEADERS += src/compat/foo.h`.
src_libswitchyard_la_SOURCES +=

# PMI-1 and PMI-2 client libraries over the PMIx client API (docs/pmi.md):
# libpmi.so.0 and libpmi2.so.0, the SONAMEs of Slurm's libraries, each
# exporting exactly its API (version scripts).
lib_LTLIBRARIES += src/compat/libpmi.la src/compat/libpmi2.la
include_HEADERS += include/pmi.h include/pmi2.h
pkgconfig_DATA += src/compat/pmi.pc src/compat/pmi2.pc
noinst_HEADERS += src/compat/pmi_util.h
EXTRA_DIST += src/compat/libpmi.map src/compat/libpmi2.map
src_compat_libpmi_la_SOURCES = src/compat/pmi1.c src/compat/pmi_util.c src/common/pmi_map.c
src_compat_libpmi_la_LIBADD = src/libpmix.la
src_compat_libpmi_la_LDFLAGS = -version-info 0:0:0 -no-undefined \
	-Wl,--version-script=$(srcdir)/src/compat/libpmi.map
EXTRA_src_compat_libpmi_la_DEPENDENCIES = $(srcdir)/src/compat/libpmi.map
src_compat_libpmi2_la_SOURCES = src/compat/pmi2.c src/compat/pmi_util.c src/common/pmi_map.c
src_compat_libpmi2_la_LIBADD = src/libpmix.la
src_compat_libpmi2_la_LDFLAGS = -version-info 0:0:0 -no-undefined \
	-Wl,--version-script=$(srcdir)/src/compat/libpmi2.map
EXTRA_src_compat_libpmi2_la_DEPENDENCIES = $(srcdir)/src/compat/libpmi2.map

# PMI API programs run by tests/compat/pmi-api.sh (real processes under
# switchyard-run and as singletons).
check_PROGRAMS += tests/compat/pmi1_api tests/compat/pmi2_api
tests_compat_pmi1_api_SOURCES = tests/compat/pmi1_api.c
tests_compat_pmi1_api_LDADD = src/compat/libpmi.la
tests_compat_pmi2_api_SOURCES = tests/compat/pmi2_api.c
tests_compat_pmi2_api_LDADD = src/compat/libpmi2.la
TESTS += tests/compat/pmi-api.sh
EXTRA_DIST += tests/compat/pmi-api.sh tests/compat/pmi-lib.sh
src_libswitchyard_la_SOURCES += src/common/pmi_map.c
noinst_HEADERS += src/common/pmi_map.h

# The PMI wire protocols of the server, byte for byte, and jobs mixing
# PMIx and PMI-1 ranks (tests/compat/pmi-wire.sh).
check_PROGRAMS += tests/compat/pmi_wire
tests_compat_pmi_wire_SOURCES = tests/compat/pmi_wire.c
tests_compat_pmi_wire_LDADD = src/libpmix.la
TESTS += tests/compat/pmi-wire.sh
EXTRA_DIST += tests/compat/pmi-wire.sh

# PMI gets across servers: two node daemons relaying direct modex.
check_PROGRAMS += tests/compat/pmi_twohost
tests_compat_pmi_twohost_SOURCES = tests/compat/pmi_twohost.c
tests_compat_pmi_twohost_LDADD = src/libpmix.la
TESTS += tests/compat/pmi-remote.sh
EXTRA_DIST += tests/compat/pmi-remote.sh

# Tools see PMI wire processes (PMIX_QUERY_PROC_TABLE / _LOCAL_PROC_TABLE).
TESTS += tests/compat/pmi-tool.sh
EXTRA_DIST += tests/compat/pmi-tool.sh

# Debian's MPICH 4.0.2 under switchyard-run (PMI-1 wire).
TESTS += tests/external/mpich.sh
EXTRA_DIST += tests/external/mpich.sh tests/external/mpich/mpi_check.c

# PMI_process_mapping strings.
check_PROGRAMS += tests/compat/test_pmi_map
tests_compat_test_pmi_map_SOURCES = tests/compat/test_pmi_map.c
TESTS += tests/compat/test_pmi_map
