# Installed command-line programs.  A program in tools/ uses only the public
# API, so it links the installed library (libpmix.la), not libswitchyard.la.
bin_PROGRAMS += tools/switchyard-info
tools_switchyard_info_SOURCES = tools/switchyard-info.c
tools_switchyard_info_LDADD = src/libpmix.la
# switchyard-tool: a PMIx tool for running jobs (servers, ps, attach, signal,
# attrs, query); public API only.
bin_PROGRAMS += tools/switchyard-tool
tools_switchyard_tool_SOURCES = tools/switchyard-tool.c
tools_switchyard_tool_LDADD = src/libpmix.la
# switchyard-fabric (owner: engine/CLI engineer): fabric engine summary and
# exports (docs/fabric.md, "Command line").  It calls the internal engine,
# so it links the convenience library, not libpmix.la.
bin_PROGRAMS += tools/switchyard-fabric
# libpng writes the heatmap and jansson the JSON exports; only this program
# links them.
tools_switchyard_fabric_SOURCES = tools/fabric/fabric_main.c tools/fabric/fabric_util.c \
	tools/fabric/fabric_discover.c tools/fabric/fabric_export.c tools/fabric/fabric_coords.c \
	tools/fabric/fabric_png.c tools/fabric/fabric.h
tools_switchyard_fabric_CPPFLAGS = $(AM_CPPFLAGS) $(LIBPNG_CFLAGS) $(JANSSON_CFLAGS)
tools_switchyard_fabric_LDADD = $(FABRIC_LDADD) $(LIBPNG_LIBS) $(JANSSON_LIBS)
# switchyard-run: the one-machine launcher (docs/launcher.md).  A host of
# the public server API, so it links libpmix.la, plus hwloc for binding.
bin_PROGRAMS += tools/switchyard-run
tools_switchyard_run_SOURCES = tools/run/run_main.c tools/run/run_launch.c tools/run/run_opts.c \
	tools/run/run_bind.c tools/run/run_job.c tools/run/run_host.c tools/run/run_iof.c \
	tools/run/run_pubsub.c tools/run/run_ops.c tools/run/run_spawn.c tools/run/run_fabric.c \
	tools/run/run_group.c tools/run/run_tool.c tools/run/run_debug.c tools/run/run_il.c \
	tools/run/run.h
tools_switchyard_run_LDADD = src/libpmix.la $(HWLOC_LIBS)
# run_tool.c registers the host's attributes as src/common/attr_support.txt
# lists them (level host), through this generated table.
tools_switchyard_run_CPPFLAGS = $(AM_CPPFLAGS) -Itools/run
CLEANFILES += tools/run/run_attrs.inc
tools/run/run_attrs.inc: $(top_srcdir)/src/common/attr_support.txt $(top_srcdir)/src/common/attr_support.awk
	@$(MKDIR_P) tools/run
	$(AM_V_GEN)$(AWK) -v mode=host -f $(top_srcdir)/src/common/attr_support.awk \
	  $(top_srcdir)/src/common/attr_support.txt > $@.tmp && mv $@.tmp $@
$(tools_switchyard_run_OBJECTS): tools/run/run_attrs.inc
# pmix-hello: the smallest PMIx client, run by the README's main job.
noinst_PROGRAMS += tools/examples/pmix-hello
tools_examples_pmix_hello_SOURCES = tools/examples/pmix-hello.c
tools_examples_pmix_hello_LDADD = src/libpmix.la
TESTS += tests/tools/run.sh tests/tools/tool.sh
EXTRA_DIST += tests/tools/run.sh tests/tools/tool.sh
# Another local user against switchyard-run (planted names, stolen tokens,
# forged tools; root only), and launchers killed with SIGKILL: no orphan
# rank, no litter (docs/security.md).
TESTS += tests/tools/security.sh tests/tools/litter.sh
EXTRA_DIST += tests/tools/security.sh tests/tools/litter.sh
# OpenPMIx 4.2.2's example programs (fetched at test time) under the launcher.
TESTS += tests/external/openpmix-examples.sh
EXTRA_DIST += tests/external/openpmix-examples.sh
# Wire interop with Debian's OpenPMIx 4.2.2 library (issue 19): its
# clients under our server, mixed jobs (docs/wire-protocol.md).
TESTS += tests/external/interop.sh
EXTRA_DIST += tests/external/interop.sh tests/external/interop/opx_client.c \
	tests/external/interop/opx_ops.c tests/external/interop/opx_tool.c \
	tests/external/interop/opx_singleton.c tests/external/interop/opx_dist.c
# Our tool role attached to an OpenPMIx 4.2.2 server (a host built on
# Debian's libpmix): rendezvous, handshake, queries, events, finalize.
TESTS += tests/external/opx-tool.sh
EXTRA_DIST += tests/external/opx-tool.sh tests/external/interop/opx_host.c \
	tests/external/interop/opx_waiter.c tests/external/interop/opx_attach_tool.c \
	tests/external/interop/opx_ds21.c
# opx_check: reads OpenPMIx's own PMIx_Data_pack output with our decoder.
check_PROGRAMS += tests/external/interop/opx_check
# Debian's Open MPI 4.1 (mpirun, orted, ranks) on our library, and
# switchyard-run launching Open MPI ranks directly.
TESTS += tests/external/openmpi.sh
EXTRA_DIST += tests/external/openmpi.sh tests/external/openmpi/sy_mapcheck.h \
	tests/external/openmpi/hello.c tests/external/openmpi/ring.c \
	tests/external/openmpi/mpmd.c tests/external/openmpi/spawn.c \
	tests/external/openmpi/pubsub.c tests/external/openmpi/accept.c \
	tests/external/openmpi/abort.c tests/external/openmpi/nofinalize.c
# Debian's Slurm 22.05 (slurmctld, slurmd, srun --mpi=pmix) on our library,
# one node and two (docs/slurm.md).
# slurm-mixed.sh: Slurm on stock OpenPMIx, the tasks on ours.
TESTS += tests/external/slurm.sh tests/external/slurm-mixed.sh
EXTRA_DIST += tests/external/slurm.sh tests/external/slurm-mixed.sh tests/external/slurm/cluster.sh \
	tests/external/slurm/mapped.h tests/external/slurm/pmix_client.c \
	tests/external/slurm/pmix_abort.c tests/external/slurm/pmix_pubsub.c \
	tests/external/slurm/mpi_hello.c
# switchyard-sched: the scheduler daemon and node daemon (docs/fabric.md,
# "switchyard-sched"); public API only.
bin_PROGRAMS += tools/switchyard-sched
# The link's MUNGE authentication is the library's own MUNGE code
# (server_cred_munge.c) built in; nettle gives the HMACs.
tools_switchyard_sched_SOURCES = tools/sched/sched_main.c tools/sched/sched_link.c \
	tools/sched/sched_auth.c tools/sched/sched_node.c tools/sched/sched_log.c \
	tools/sched/sched_shm.c tools/sched/sched_shm.h tools/sched/sched_chunk.c \
	src/fabric/cm_codec.c src/server/server_cred_munge.c tools/sched/sched_daemon.h
tools_switchyard_sched_LDADD = src/libpmix.la $(MUNGE_LIBS) $(NETTLE_LIBS) -lpthread
# (own object names: server_cred_munge.c is in libpmix too)
tools_switchyard_sched_CPPFLAGS = $(AM_CPPFLAGS)
# sched-client: an example scheduler client (README).
noinst_PROGRAMS += tools/examples/sched-client
tools_examples_sched_client_SOURCES = tools/examples/sched-client.c
tools_examples_sched_client_LDADD = src/libpmix.la
# Debian's python3-pmix (Cython bindings) importing and running on our library.
TESTS += tests/external/python/python3-pmix.sh
EXTRA_DIST += tests/external/python/python3-pmix.sh tests/external/python/client.py
# The server's limits under the launcher: descriptor limit, oversized
# frames, spawn requests (test_limits.c).
TESTS += tests/tools/limits.sh
EXTRA_DIST += tests/tools/limits.sh
