# libFuzzer targets.
#
# To add one: write tests/fuzz/fuzz_<name>.c defining
#     int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
# (include "config.h" first; internal headers from src/ may be used), append
#     FUZZ_TARGETS += fuzz_<name>
# below, and optionally put seed inputs in tests/fuzz/corpus/fuzz_<name>/.
#
# How it works (the simplest thing that gives an instrumented library):
# fuzzers need clang, ASan/UBSan and libFuzzer coverage instrumentation in
# *all* library code, so `make fuzz` in a normal build does not build them
# there.  It configures a sibling build, ../build-fuzz (or $FUZZ_BUILDDIR),
# with CC=clang --enable-sanitizers --enable-fuzzers (which adds
# -fsanitize=fuzzer-no-link to CFLAGS), builds the library there and runs
# `make fuzz` in it.  scripts/test.sh points FUZZ_BUILDDIR at the ASan
# build, which check-asan configured with --enable-fuzzers (ASAN_FUZZ=yes),
# so the library is built once for both.  In that build (ENABLE_FUZZERS) each target is compiled
# and linked in one step with -fsanitize=fuzzer against the convenience
# archives src/.libs/libsyfabric.a and libswitchyard.a, giving build-fuzz/tests/fuzz/fuzz_<name>.
# The fuzzers are not part of `make check`; scripts/test.sh runs each one for
# a bounded time (FUZZ_TIME seconds each; by default a 120 s budget shared
# by the targets).

FUZZ_TARGETS +=

print-fuzz-targets:
	@echo $(FUZZ_TARGETS)

if ENABLE_FUZZERS
FUZZ_PROGS = $(FUZZ_TARGETS:%=tests/fuzz/%)
CLEANFILES += $(FUZZ_PROGS)

fuzz: $(FUZZ_PROGS)

tests/fuzz/fuzz_%: $(srcdir)/tests/fuzz/fuzz_%.c src/libswitchyard.la src/libsyfabric.la $(include_HEADERS)
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CCLD)$(CC) $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
	  $(AM_CFLAGS) $(CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< \
	  src/.libs/libsyfabric.a src/.libs/libswitchyard.a $(SY_FABRIC_LIBS) $(SY_DEPS_LIBS)
else
fuzz:
	@if test -z "$(FUZZ_TARGETS)"; then echo "fuzz: no FUZZ_TARGETS defined"; exit 0; fi; \
	dir="$${FUZZ_BUILDDIR:-$(abs_top_builddir)/../build-fuzz}"; \
	$(MKDIR_P) "$$dir" && cd "$$dir" && \
	if test ! -f config.status || test "$(abs_top_srcdir)/configure" -nt config.status || \
	   ! grep -q -e "--enable-fuzzers" config.status; then \
	  echo "fuzz: configuring $$dir"; \
	  "$(abs_top_srcdir)/configure" --enable-sanitizers --enable-fuzzers CC=clang || exit 1; \
	fi && \
	$(MAKE) && $(MAKE) fuzz
endif

.PHONY: fuzz print-fuzz-targets
# fabric topology readers (owner: fabric-topology engineer)
FUZZ_TARGETS += fuzz_topo_readers
# fuzz_unpack (owner: pack engineer): PMIx_Data_unpack of every data type
# (and PMIx_Data_decompress) on arbitrary bytes.  Seeds in
# tests/fuzz/corpus/fuzz_unpack/ come from tests/unit/test_pack run with
# SY_WRITE_CORPUS=<dir>.
FUZZ_TARGETS += fuzz_unpack
# fuzz_server (robustness, issue 15): frames sent to a live server peer
# after its handshake, through the real dispatcher and every command
# handler.  Seeds in tests/fuzz/corpus/fuzz_server/ (one valid request of
# every command) come from the target itself run with SY_WRITE_CORPUS=<dir>.
FUZZ_TARGETS += fuzz_server
# fuzz_opx (issue 19): the OpenPMIx codec and v41 encoding, both
# directions (requests as the server reads them, replies, every type).
# Seeds in tests/fuzz/corpus/fuzz_opx/ were written by hand from the format.
FUZZ_TARGETS += fuzz_opx
# fuzz_cm_decode (issue 22): the cost-matrix chunk decoder on arbitrary
# bytes, and the encoder's round trip on what it accepts.  Seeds in
# tests/fuzz/corpus/fuzz_cm_decode/ are the encodings of small runs,
# palette and raw blocks, written by hand from docs/fabric.md.
FUZZ_TARGETS += fuzz_cm_decode
