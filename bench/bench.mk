# Benchmarks (owner: cost engineer).  Built only by `make bench`, never by
# make all or make check; run from the build tree, e.g.
#   make -C build bench && build/bench/fabric_cost
# Results and the exact commands are recorded in docs/performance.md.
EXTRA_PROGRAMS = bench/fabric_cost
bench_fabric_cost_SOURCES = bench/fabric_cost.c
bench_fabric_cost_LDADD = src/libswitchyard.la $(SY_DEPS_LIBS)
CLEANFILES += $(EXTRA_PROGRAMS)
bench_targets = bench/fabric_cost$(EXEEXT)

bench: $(bench_targets)

.PHONY: bench
