# Integration tests: a host written only against the public server API
# (test_host.c) forks real clients written only against the public client
# API (test_client.c); both link the real libpmix.so.
check_PROGRAMS += tests/integration/test_host tests/integration/test_client
tests_integration_test_host_SOURCES = tests/integration/test_host.c tests/integration/job_layout.h \
	tests/integration/test_host_ops.c tests/integration/test_host_ops.h
tests_integration_test_host_LDADD = src/libpmix.la
tests_integration_test_host_LDFLAGS = -no-install
tests_integration_test_client_SOURCES = tests/integration/test_client.c tests/integration/job_layout.h
tests_integration_test_client_LDADD = src/libpmix.la
tests_integration_test_client_LDFLAGS = -no-install
TESTS += tests/integration/host-keys.sh tests/integration/host-hostile.sh
EXTRA_DIST += tests/integration/host-keys.sh tests/integration/host-hostile.sh
# Publish/lookup/unpublish through switchyard-run's datastore (run.sh).
check_PROGRAMS += tests/integration/test_pubsub
tests_integration_test_pubsub_SOURCES = tests/integration/test_pubsub.c
tests_integration_test_pubsub_LDADD = src/libpmix.la
tests_integration_test_pubsub_LDFLAGS = -no-install
# Query, log and job control through switchyard-run (run.sh).
check_PROGRAMS += tests/integration/test_hostops
tests_integration_test_hostops_SOURCES = tests/integration/test_hostops.c
tests_integration_test_hostops_LDADD = src/libpmix.la
tests_integration_test_hostops_LDFLAGS = -no-install
# Put/Commit/Fence/direct modex between processes under switchyard-run (run.sh).
check_PROGRAMS += tests/integration/test_modex
tests_integration_test_modex_SOURCES = tests/integration/test_modex.c
tests_integration_test_modex_LDADD = src/libpmix.la
tests_integration_test_modex_LDFLAGS = -no-install
# Event handlers, ordering, chaining, ranges and generated events under
# switchyard-run (run.sh).
check_PROGRAMS += tests/integration/test_events
tests_integration_test_events_SOURCES = tests/integration/test_events.c
tests_integration_test_events_LDADD = src/libpmix.la
tests_integration_test_events_LDFLAGS = -no-install
# A PMIx tool against switchyard-run jobs (tests/tools/tool.sh).
check_PROGRAMS += tests/integration/test_tool
tests_integration_test_tool_SOURCES = tests/integration/test_tool.c
tests_integration_test_tool_LDADD = src/libpmix.la
tests_integration_test_tool_LDFLAGS = -no-install
# Scheduler role and fabric API across processes: switchyard-sched as the
# scheduler and two node daemons (fabric.sh).  fabric_bfs uses only the
# standard API.
check_PROGRAMS += tests/integration/test_fabric tests/integration/fabric_bfs \
	tests/integration/fabric_endpts
tests_integration_fabric_endpts_SOURCES = tests/integration/fabric_endpts.c
tests_integration_fabric_endpts_LDADD = src/libpmix.la
tests_integration_fabric_endpts_LDFLAGS = -no-install
tests_integration_test_fabric_SOURCES = tests/integration/test_fabric.c \
	tests/integration/test_fabric.h
tests_integration_test_fabric_LDADD = src/libpmix.la
tests_integration_test_fabric_LDFLAGS = -no-install
tests_integration_fabric_bfs_SOURCES = tests/integration/fabric_bfs.c
tests_integration_fabric_bfs_LDADD = src/libpmix.la
tests_integration_fabric_bfs_LDFLAGS = -no-install
TESTS += tests/integration/fabric.sh
EXTRA_DIST += tests/integration/fabric.sh
# A node server's matrix to its client in a sealed memfd (fabric_bfs).
TESTS += tests/integration/fabric-shm.sh
EXTRA_DIST += tests/integration/fabric-shm.sh
# The scheduler answers while it recomputes a 31k-device fabric.
check_PROGRAMS += tests/integration/fabric_getlat
tests_integration_fabric_getlat_SOURCES = tests/integration/fabric_getlat.c
tests_integration_fabric_getlat_LDADD = src/libpmix.la
tests_integration_fabric_getlat_LDFLAGS = -no-install
TESTS += tests/integration/fabric-nostall.sh
EXTRA_DIST += tests/integration/fabric-nostall.sh
# The scheduler and two node daemons in three network namespaces over TCP:
# authentication (key, MUNGE), updates, the scheduler's restart, a wrong
# key, a replayed handshake.
check_PROGRAMS += tests/integration/fabric_netns_client
tests_integration_fabric_netns_client_SOURCES = tests/integration/fabric_netns_client.c
tests_integration_fabric_netns_client_LDADD = src/libpmix.la
tests_integration_fabric_netns_client_LDFLAGS = -no-install
TESTS += tests/integration/fabric-netns.sh
EXTRA_DIST += tests/integration/fabric-netns.sh tests/integration/link_replay.py
check_PROGRAMS += tests/integration/test_fabric_sched
tests_integration_test_fabric_sched_SOURCES = tests/integration/test_fabric_sched.c \
	tests/integration/test_fabric.h
tests_integration_test_fabric_sched_LDADD = src/libpmix.la $(HWLOC_LIBS)
tests_integration_test_fabric_sched_LDFLAGS = -no-install
# PMIX_DEVICE_DISTANCES computed on the client for processes of this node
# (run.sh).
check_PROGRAMS += tests/integration/test_distances
tests_integration_test_distances_SOURCES = tests/integration/test_distances.c
tests_integration_test_distances_LDADD = src/libpmix.la
tests_integration_test_distances_LDFLAGS = -no-install
# Process groups between processes under switchyard-run (run.sh).
check_PROGRAMS += tests/integration/test_groups
tests_integration_test_groups_SOURCES = tests/integration/test_groups.c tests/integration/itest.h \
	tests/integration/job_layout.h
tests_integration_test_groups_LDADD = src/libpmix.la
tests_integration_test_groups_LDFLAGS = -no-install
# Process sets, credentials and allocation requests, under switchyard-run
# (run.sh) and against test_host (host-groups.sh).
check_PROGRAMS += tests/integration/test_sets_creds
tests_integration_test_sets_creds_SOURCES = tests/integration/test_sets_creds.c \
	tests/integration/itest.h
tests_integration_test_sets_creds_LDADD = src/libpmix.la
tests_integration_test_sets_creds_LDFLAGS = -no-install
# Credentials carried between jobs in files (cred-munge.sh).
check_PROGRAMS += tests/integration/test_cred_file
tests_integration_test_cred_file_SOURCES = tests/integration/test_cred_file.c
tests_integration_test_cred_file_LDADD = src/libpmix.la
tests_integration_test_cred_file_LDFLAGS = -no-install
TESTS += tests/integration/cred-munge.sh
EXTRA_DIST += tests/integration/cred-munge.sh
# Groups across nodes, process sets, credentials and allocations through
# a host's upcalls, and without them.
TESTS += tests/integration/host-groups.sh
EXTRA_DIST += tests/integration/host-groups.sh
# The host's register_events/deregister_events and event handlers that do
# not answer (PMIX_EVENT_ACTION_TIMEOUT): a host forking itself as clients.
check_PROGRAMS += tests/integration/test_evreg
tests_integration_test_evreg_SOURCES = tests/integration/test_evreg.c tests/integration/forkhost.h
tests_integration_test_evreg_LDADD = src/libpmix.la
tests_integration_test_evreg_LDFLAGS = -no-install
TESTS += tests/integration/test_evreg
# The client's direct channel: refused to another process, held requests
# beside requests on the connection, concurrent blocking requests.
check_PROGRAMS += tests/integration/test_direct
tests_integration_test_direct_SOURCES = tests/integration/test_direct.c tests/integration/forkhost.h
tests_integration_test_direct_LDADD = src/libpmix.la
tests_integration_test_direct_LDFLAGS = -no-install
TESTS += tests/integration/test_direct
# A local attacker speaking the wire protocol itself (forged tool HELLOs,
# stolen tokens) and a rank for the launcher-death test: security.sh and
# litter.sh (tests/tools/).  It packs HELLOs with the library's own code,
# so it links the internal library (the default LDADD).
check_PROGRAMS += tests/integration/test_security
tests_integration_test_security_SOURCES = tests/integration/test_security.c
# How hosts call the server and complete its upcalls (Slurm, ORTE, PRRTE):
# setup_fork in a forked child, client_connected that never calls back,
# callbacks inside the upcall under the host's lock, after an error return
# and after finalize, registered cleanup (issue 16).
check_PROGRAMS += tests/integration/test_conventions
tests_integration_test_conventions_SOURCES = tests/integration/test_conventions.c \
	tests/integration/forkhost.h
tests_integration_test_conventions_LDADD = src/libpmix.la
tests_integration_test_conventions_LDFLAGS = -no-install
TESTS += tests/integration/test_conventions
# A host completing one upcall of each family inside the upcall, later from
# another thread, twice, after the client died, and never (then finalize).
check_PROGRAMS += tests/integration/test_upcalls
tests_integration_test_upcalls_SOURCES = tests/integration/test_upcalls.c \
	tests/integration/forkhost.h
tests_integration_test_upcalls_LDADD = src/libpmix.la
tests_integration_test_upcalls_LDFLAGS = -no-install
TESTS += tests/integration/test_upcalls
# Collectives whose participant finalizes or dies, before or during them
# (depart.sh; test_depart.c also builds against OpenPMIx 4.2.2:
# bench/depart-compare.sh).
check_PROGRAMS += tests/integration/test_depart
tests_integration_test_depart_SOURCES = tests/integration/test_depart.c \
	tests/integration/forkhost.h
tests_integration_test_depart_LDADD = src/libpmix.la
tests_integration_test_depart_LDFLAGS = -no-install
TESTS += tests/integration/depart.sh
EXTRA_DIST += tests/integration/depart.sh
# The local fence: fences of a one-node job in the server's collective
# page (lfence.sh).
check_PROGRAMS += tests/integration/test_lfence
tests_integration_test_lfence_SOURCES = tests/integration/test_lfence.c \
	tests/integration/forkhost.h
tests_integration_test_lfence_LDADD = src/libpmix.la
tests_integration_test_lfence_LDFLAGS = -no-install
TESTS += tests/integration/lfence.sh
EXTRA_DIST += tests/integration/lfence.sh
# The server's limits (fd limit, oversized frames, spawn requests) under
# switchyard-run (tests/tools/limits.sh).
check_PROGRAMS += tests/integration/test_limits
tests_integration_test_limits_SOURCES = tests/integration/test_limits.c
tests_integration_test_limits_LDADD = src/libpmix.la
tests_integration_test_limits_LDFLAGS = -no-install
# The debugger flows (pauses in init, at exec, in the application; debugger
# daemons beside a job; releases) through switchyard-run (tests/tools/debug.sh).
check_PROGRAMS += tests/integration/test_debug
tests_integration_test_debug_SOURCES = tests/integration/test_debug.c
tests_integration_test_debug_LDADD = src/libpmix.la
tests_integration_test_debug_LDFLAGS = -no-install
TESTS += tests/tools/debug.sh
EXTRA_DIST += tests/tools/debug.sh
# A tool that starts switchyard-run as its intermediate launcher
# (PMIX_SPAWN_TOOL, PMIX_LAUNCHER_RNDZ_URI, PMIX_KEEPALIVE_PIPE;
# tests/tools/spawn-tool.sh).
check_PROGRAMS += tests/integration/test_spawn_tool
tests_integration_test_spawn_tool_SOURCES = tests/integration/test_spawn_tool.c
tests_integration_test_spawn_tool_LDADD = src/libpmix.la
tests_integration_test_spawn_tool_LDFLAGS = -no-install
TESTS += tests/tools/spawn-tool.sh
EXTRA_DIST += tests/tools/spawn-tool.sh
EXTRA_DIST += tests/tools/tool-lib.sh
# PMIx_server_init's PMIX_SINGLETON and PMIX_HOMOGENEOUS_SYSTEM, with the
# singleton's real process connecting.
check_PROGRAMS += tests/integration/test_singleton_srv
tests_integration_test_singleton_srv_SOURCES = tests/integration/test_singleton_srv.c
tests_integration_test_singleton_srv_LDADD = src/libpmix.la
tests_integration_test_singleton_srv_LDFLAGS = -no-install
TESTS += tests/integration/test_singleton_srv
