# Server role (PMIx_server_init and the rest of pmix_server.h): listeners
# and rendezvous files, the HELLO handshake and client commands, the
# registry of namespaces/clients/resources published as job-data segments.
# server_topology.c belongs to src/common/topology.mk.
src_libswitchyard_la_SOURCES += src/server/server_init.c src/server/server_listen.c \
	src/server/server_peer.c src/server/server_opx.c src/server/server_opx_dist.c src/server/server_tcp_owner.c src/server/server_ds21.c src/server/server_ds21_store.c \
	src/server/server_registry.c src/server/server_nspace.c \
	src/server/server_resources.c src/server/server_fork.c src/server/server_fork_env.c src/server/server_util.c \
	src/server/server_modex.c src/server/server_coll.c src/server/server_lfence.c src/server/server_dmodex.c \
	src/server/server_event.c src/server/server_pubsub.c \
	src/server/server_hostops.c src/server/server_fabric.c src/server/server_setup.c \
	src/server/server_group.c src/server/server_group_info.c src/server/server_group_reg.c \
	src/server/server_pset.c \
	src/server/server_setquery.c src/server/server_cred.c src/server/server_cred_munge.c \
	src/server/server_query.c src/server/server_tool.c src/server/server_iof.c \
	src/server/server_monitor.c
# Host upcall tickets and job-control cleanup registrations (issue 16).
src_libswitchyard_la_SOURCES += src/server/server_upcall.c src/server/server_cleanup.c
noinst_HEADERS += src/server/server_internal.h src/server/server_group.h src/server/server_monitor.h \
	src/server/server_modex.h src/server/server_coll.h src/server/server_cleanup.h \
	src/server/server_cred.h src/server/server_event.h src/server/server_fabric.h \
	src/server/server_hostops.h src/server/server_iof.h src/server/server_listen.h \
	src/server/server_msg.h src/server/server_nspace.h src/server/server_peer.h \
	src/server/server_pset.h src/server/server_pubsub.h src/server/server_query.h \
	src/server/server_registry.h src/server/server_setquery.h src/server/server_tool.h \
	src/server/server_upcall.h src/server/server_util.h \
	src/server/server_cred_munge.h src/server/server_module.h src/server/server_fork.h
check_PROGRAMS += tests/unit/test_server
TESTS += tests/unit/test_server
# PMI-1 / PMI-2 wire protocols (issue 18, docs/pmi.md).
src_libswitchyard_la_SOURCES += src/server/server_pmi_wire.c src/server/server_pmi_job.c \
	src/server/server_pmi1.c src/server/server_pmi2.c src/server/server_pmi_spawn.c \
	src/server/server_pmi_port.c src/server/server_pmi_remote.c
noinst_HEADERS += src/server/server_pmi.h src/server/server_opx.h src/server/server_tcp_owner.h src/server/server_ds21.h \
	src/server/server_ds21_store.h
