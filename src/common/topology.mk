# hwloc topology: loading, sharing, locality and cpuset strings, relative
# locality, with their tests.
# topology.c: the process-wide topology (host-given, from the store, or
# discovered), PMIx_Load_topology, PMIx_Get_cpuset; topology_locality.c:
# locality/cpuset strings and their parsers; server_topology.c: what
# PMIx_server_init shares, PMIx_server_generate_locality/cpuset_string.
src_libswitchyard_la_SOURCES += src/common/topology.c src/common/topology_locality.c \
	src/server/server_topology.c
noinst_HEADERS += src/common/topology.h src/server/server_topology.h
check_PROGRAMS += tests/unit/test_topology
TESTS += tests/unit/test_topology
