# cmocka unit tests.  To add one, create tests/unit/test_<area>.c and append
# its program name (no .c) to both lists:
#   check_PROGRAMS += tests/unit/test_<area>
#   TESTS          += tests/unit/test_<area>
# The source defaults to tests/unit/test_<area>.c; programs without their own
# _LDADD get $(UNIT_LDADD) = src/libsyfabric.la + src/libswitchyard.la + cmocka,
# so the tests can call internal (hidden) functions.  Extra sources for one test:
#   tests_unit_test_<area>_SOURCES = tests/unit/test_<area>.c tests/unit/helper.c
check_PROGRAMS += tests/unit/test_version
TESTS += tests/unit/test_version
# test_strings: the constants and the attribute
# count it checks are read from the public headers at build time.
check_PROGRAMS += tests/unit/test_strings
TESTS += tests/unit/test_strings
tests_unit_test_strings_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_builddir)/tests/unit
EXTRA_DIST += tests/unit/test_strings_gen.awk
CLEANFILES += tests/unit/test_strings_gen.inc
tests/unit/test_strings_gen.inc: $(top_srcdir)/include/pmix_constants.h $(top_srcdir)/include/pmix_attributes.h $(top_srcdir)/tests/unit/test_strings_gen.awk
	@$(MKDIR_P) tests/unit
	$(AM_V_GEN)$(AWK) -f $(top_srcdir)/tests/unit/test_strings_gen.awk \
	  $(top_srcdir)/include/pmix_constants.h $(top_srcdir)/include/pmix_attributes.h > $@.tmp && mv $@.tmp $@
$(tests_unit_test_strings_OBJECTS): tests/unit/test_strings_gen.inc src/common/attr_table.inc
# test_regex: node/process map generation and parsing.
check_PROGRAMS += tests/unit/test_regex
TESTS += tests/unit/test_regex
# values / info / print.  value_samples.c builds a
# sample element of every data type for the value and print tests.
check_PROGRAMS += tests/unit/test_values tests/unit/test_info tests/unit/test_print
TESTS += tests/unit/test_values tests/unit/test_info tests/unit/test_print
tests_unit_test_values_SOURCES = tests/unit/test_values.c tests/unit/value_samples.c
tests_unit_test_print_SOURCES = tests/unit/test_print.c tests/unit/value_samples.c
noinst_HEADERS += tests/unit/value_samples.h
check_PROGRAMS += tests/unit/test_macros
TESTS += tests/unit/test_macros
# test_fabric_topo (owner: fabric-topology engineer): topology model,
# readers and generators; input files in tests/fabric/data/.
check_PROGRAMS += tests/unit/test_fabric_topo
TESTS += tests/unit/test_fabric_topo
tests_unit_test_fabric_topo_CPPFLAGS = $(AM_CPPFLAGS) -DFABRIC_DATA_DIR='"$(abs_top_srcdir)/tests/fabric/data"'
EXTRA_DIST += tests/fabric/data/slurm_2leaf.conf tests/fabric/data/ibnet_default.topo \
	tests/fabric/data/ibnet_ports.txt tests/fabric/data/native_2plane.topo \
	tests/fabric/data/ibnet_ports_verbose.txt tests/fabric/data/osm_subnet.lst \
	tests/fabric/data/ibsim_2leaf.net
# test_pack / test_compress: PMIx_Data_pack/unpack of
# every type, hostile input, load/unload/embed/copy_payload; zlib blocks.
check_PROGRAMS += tests/unit/test_pack tests/unit/test_compress
TESTS += tests/unit/test_pack tests/unit/test_compress
# test_fabric_cost: device index, cost matrix,
# planes, switch peers; reads tests/fabric/data/ like test_fabric_topo.
check_PROGRAMS += tests/unit/test_fabric_cost
TESTS += tests/unit/test_fabric_cost
tests_unit_test_fabric_cost_CPPFLAGS = $(AM_CPPFLAGS) -DFABRIC_DATA_DIR='"$(abs_top_srcdir)/tests/fabric/data"'
# test_fabric_devices: device inventory through
# libfabric (tcp on lo, and the fake provider below) and hwloc (XML in
# tests/fabric/data/), PMIX_FABRIC_DEVICE conversion, device distances.
# The fake libfabric provider is a plain shared object built here and
# loaded by the test with FI_PROVIDER_PATH=$(abs_top_builddir)/tests/fabric/fakeprov.
check_PROGRAMS += tests/unit/test_fabric_devices
TESTS += tests/unit/test_fabric_devices
tests_unit_test_fabric_devices_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFABRIC_DATA_DIR='"$(abs_top_srcdir)/tests/fabric/data"' \
	-DFAKEPROV_DIR='"$(abs_top_builddir)/tests/fabric/fakeprov"'
EXTRA_tests_unit_test_fabric_devices_DEPENDENCIES = tests/fabric/fakeprov/libfakenic-fi.so
EXTRA_DIST += tests/fabric/fakeprov/fakenic.c tests/fabric/data/hwloc_2pkg_ib.xml
CLEANFILES += tests/fabric/fakeprov/libfakenic-fi.so
tests/fabric/fakeprov/libfakenic-fi.so: $(top_srcdir)/tests/fabric/fakeprov/fakenic.c
	@$(MKDIR_P) tests/fabric/fakeprov
	$(AM_V_CC)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -shared -fPIC $(LIBFABRIC_CFLAGS) \
	  -o $@ $(top_srcdir)/tests/fabric/fakeprov/fakenic.c $(LIBFABRIC_LIBS)
# test_fabric_groups / test_fabric_coords: switch
# levels, partitions, PMIX_FABRIC_GROUPS, the igraph guard; coordinates and
# shapes.  Input files in tests/fabric/data/.
check_PROGRAMS += tests/unit/test_fabric_groups tests/unit/test_fabric_coords
TESTS += tests/unit/test_fabric_groups tests/unit/test_fabric_coords
tests_unit_test_fabric_groups_CPPFLAGS = $(AM_CPPFLAGS) -DFABRIC_DATA_DIR='"$(abs_top_srcdir)/tests/fabric/data"'
tests_unit_test_fabric_coords_CPPFLAGS = $(AM_CPPFLAGS) -DFABRIC_DATA_DIR='"$(abs_top_srcdir)/tests/fabric/data"'
# test_fabric_engine (owner: engine/CLI engineer): engine facade, change
# API, dirty tracking, reload; sy_topo_remove_vertex.  fabric-cli.sh runs
# the built tools/switchyard-fabric on tests/fabric/data and generators.
check_PROGRAMS += tests/unit/test_fabric_engine
TESTS += tests/unit/test_fabric_engine tests/tools/fabric-cli.sh
tests_unit_test_fabric_engine_CPPFLAGS = $(AM_CPPFLAGS) -DFABRIC_DATA_DIR='"$(abs_top_srcdir)/tests/fabric/data"'
EXTRA_DIST += tests/tools/fabric-cli.sh
# fabric_fixtures.c: topology loading/finalize/device-index fixtures shared
# by the fabric topo, cost, groups and coords tests.
tests_unit_test_fabric_topo_SOURCES = tests/unit/test_fabric_topo.c tests/unit/fabric_fixtures.c
tests_unit_test_fabric_cost_SOURCES = tests/unit/test_fabric_cost.c tests/unit/fabric_fixtures.c
tests_unit_test_fabric_groups_SOURCES = tests/unit/test_fabric_groups.c tests/unit/fabric_fixtures.c
tests_unit_test_fabric_coords_SOURCES = tests/unit/test_fabric_coords.c tests/unit/fabric_fixtures.c
noinst_HEADERS += tests/unit/fabric_fixtures.h
# test_usock / test_frame: sockets, peer
# credentials, private dirs; framing over socketpair, UNIX and TCP loopback.
check_PROGRAMS += tests/unit/test_usock tests/unit/test_frame
TESTS += tests/unit/test_usock tests/unit/test_frame
# test_progress: progress thread, posts, timers,
# external base/progress modes, sync waits, fork.
check_PROGRAMS += tests/unit/test_progress
TESTS += tests/unit/test_progress
# test_tool: rendezvous files, IOF formatting, the attribute-support table,
# query splitting, PMIx_Register_attributes in a server of this process.
check_PROGRAMS += tests/unit/test_tool
TESTS += tests/unit/test_tool
$(tests_unit_test_tool_OBJECTS): src/common/attr_support.inc
# docs/attributes.md's generated section must be what attr_support.txt says.
TESTS += tests/unit/attr-doc.sh
EXTRA_DIST += tests/unit/attr-doc.sh
# test_wire: the generated messages and the native codec: the bytes the
# hand-written packers wrote, round trips, truncated, corrupted and lying
# bodies (src/common/wire_msgs.txt).
check_PROGRAMS += tests/unit/test_wire
TESTS += tests/unit/test_wire
# docs/wire-protocol.md's table must be what wire_msgs.txt says.
TESTS += tests/unit/wire-doc.sh
EXTRA_DIST += tests/unit/wire-doc.sh
# test_safefile: publication in shared directories, the sweep of dead
# servers' litter, process identity by start time, the token comparison,
# the uid/gid a peer puts among its infos (docs/security.md).
check_PROGRAMS += tests/unit/test_safefile
TESTS += tests/unit/test_safefile
# test_log: the logger's rate limiting (repeats collapsed, floods cut).
check_PROGRAMS += tests/unit/test_log
TESTS += tests/unit/test_log
# test_opx_bfrops: OpenPMIx's v41 payload encoding (issue 19).
check_PROGRAMS += tests/unit/test_opx_bfrops
TESTS += tests/unit/test_opx_bfrops
# test_tcp_owner: the owner of a loopback TCP peer's socket (OpenPMIx
# clients' and tools' identity).
check_PROGRAMS += tests/unit/test_tcp_owner
TESTS += tests/unit/test_tcp_owner
# test_ds21: the ds21 store's files as an OpenPMIx client reads them.
check_PROGRAMS += tests/unit/test_ds21
TESTS += tests/unit/test_ds21
# test_fabric_codec: the cost matrix's chunk encoding (cm_codec.c): round
# trips of engine matrices, random and adversarial entries; malformed input.
check_PROGRAMS += tests/unit/test_fabric_codec
TESTS += tests/unit/test_fabric_codec
tests_unit_test_fabric_codec_SOURCES = tests/unit/test_fabric_codec.c tests/unit/fabric_fixtures.c
# test_sched_chunk: a matrix in chunks over a real daemons' link
# (tools/sched/sched_chunk.c, sched_link.c): encoded and raw from a sender
# process, and hostile chunks refused.
check_PROGRAMS += tests/unit/test_sched_chunk
TESTS += tests/unit/test_sched_chunk
tests_unit_test_sched_chunk_SOURCES = tests/unit/test_sched_chunk.c tools/sched/sched_chunk.c \
	tools/sched/sched_link.c tools/sched/sched_auth.c tools/sched/sched_log.c \
	src/server/server_cred_munge.c
tests_unit_test_sched_chunk_LDADD = $(UNIT_LDADD) $(MUNGE_LIBS) $(NETTLE_LIBS) -lpthread
# (own object names: server_cred_munge.c is in the library too)
tests_unit_test_sched_chunk_CPPFLAGS = $(AM_CPPFLAGS)
