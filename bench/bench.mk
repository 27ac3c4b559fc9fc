# Benchmarks (owner: cost engineer).  Built only by `make bench`, never by
# make all or make check; run from the build tree, e.g.
#   make -C build bench && build/bench/fabric_cost
# Results and the exact commands are recorded in docs/performance.md.
EXTRA_PROGRAMS = bench/fabric_cost
bench_fabric_cost_SOURCES = bench/fabric_cost.c
bench_fabric_cost_LDADD = $(FABRIC_LDADD)
CLEANFILES += $(EXTRA_PROGRAMS)
bench_targets = bench/fabric_cost$(EXEEXT)
# End to end on a big fabric: an ibnetdiscover -p capture loaded, every
# result computed, the matrix exported in chunks, against the memory
# floor measured in the same run (docs/performance.md).
EXTRA_PROGRAMS += bench/fabric_e2e
bench_fabric_e2e_SOURCES = bench/fabric_e2e.c tools/sched/sched_shm.c \
	tools/sched/sched_chunk.c tools/sched/sched_link.c tools/sched/sched_auth.c \
	tools/sched/sched_log.c src/server/server_cred_munge.c
bench_fabric_e2e_LDADD = $(FABRIC_LDADD) src/libpmix.la $(MUNGE_LIBS) $(NETTLE_LIBS) -lpthread
# (own object names: server_cred_munge.c is in libpmix too)
bench_fabric_e2e_CPPFLAGS = $(AM_CPPFLAGS)
bench_targets += bench/fabric_e2e$(EXEEXT)

bench: $(bench_targets)

.PHONY: bench

# Launch benchmark (Init, Get of job and proc keys, Finalize): the same
# source is built against OpenPMIx 4.2.2 by bench/launch-compare.sh, which
# prints both side by side with ratios (docs/performance.md).
EXTRA_PROGRAMS += bench/launch
bench_launch_SOURCES = bench/launch.c tests/integration/forkhost.h
bench_launch_LDADD = src/libpmix.la
bench_launch_LDFLAGS = -no-install
bench_targets += bench/launch$(EXEEXT)
EXTRA_DIST += bench/launch-compare.sh

# Modex benchmark (Put/Commit, collecting fence, Get of every peer's key):
# built against OpenPMIx 4.2.2 too by bench/modex-compare.sh; -k and
# bench/fence-cost.sh count what a fence costs (context switches, system
# calls, wake-ups).
EXTRA_PROGRAMS += bench/modex
bench_modex_SOURCES = bench/modex.c tests/integration/forkhost.h
bench_modex_LDADD = src/libpmix.la
bench_modex_LDFLAGS = -no-install
bench_targets += bench/modex$(EXEEXT)
EXTRA_DIST += bench/modex-compare.sh bench/fence-cost.sh bench/openpmix.sh

# Scale benchmark (register_nspace of 10k..1M ranks, a client's Init and
# first Gets, deregister, cycles; N local clients): built against OpenPMIx
# 4.2.2 too by bench/scale-compare.sh (docs/performance.md, "Scale").
EXTRA_PROGRAMS += bench/scale
bench_scale_SOURCES = bench/scale.c tests/integration/forkhost.h
bench_scale_LDADD = src/libpmix.la
bench_scale_LDFLAGS = -no-install
bench_targets += bench/scale$(EXEEXT)
EXTRA_DIST += bench/scale-compare.sh

# Slurm 22.05: srun wall time and slurmstepd CPU time, ours against
# OpenPMIx 4.2.2, two private clusters side by side (bench/slurm-compare.sh
# builds slurm_reaper.c itself).
EXTRA_DIST += bench/slurm-compare.sh bench/slurm_reaper.c
# MPICH hello under switchyard-run vs mpiexec.hydra (issue 18).
EXTRA_DIST += bench/mpich-compare.sh bench/hydra-launch-compare.sh
# PMI-1 barrier / PMI-2 kvs-fence over the wire, switchyard-run vs
# mpiexec.hydra (bench/pmi-compare.sh builds pmi_barrier.c itself).
EXTRA_DIST += bench/pmi-compare.sh bench/pmi_barrier.c
# Mixed pairs (issue 19): launch and modex with the host on one library and
# the clients on the other (-c), all four pairings, ratios to OpenPMIx
# under OpenPMIx (bench/interop-compare.sh builds the OpenPMIx variants).
EXTRA_DIST += bench/interop-compare.sh
