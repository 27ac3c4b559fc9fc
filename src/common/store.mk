# Job-data segments (jseg.h) and the process-wide store with the reserved-key
# retrieval rules (store.h), with their tests.
noinst_HEADERS += src/common/jseg.h src/common/store.h src/common/jseg_format.h \
	src/common/jseg_internal.h src/common/jseg_layout.h src/common/store_internal.h
src_libswitchyard_la_SOURCES += src/common/jseg_write.c src/common/jseg_read.c \
	src/common/jseg_layout.c \
	src/common/store.c src/common/store_get.c src/common/store_modex.c \
	src/common/store_fabric.c
# test_jseg: round trip of every type, corrupt files; test_store: the
# retrieval rules, internal values, resolver, supersede and attach under
# concurrent readers.
check_PROGRAMS += tests/unit/test_jseg
TESTS += tests/unit/test_jseg
tests_unit_test_jseg_SOURCES = tests/unit/test_jseg.c tests/unit/value_samples.c
check_PROGRAMS += tests/unit/test_store
TESTS += tests/unit/test_store
# Get latency benchmark (build/bench/store_get); a noinst program because
# bench.mk, included after this fragment, sets EXTRA_PROGRAMS with `=`.
noinst_PROGRAMS += bench/store_get
bench_store_get_SOURCES = bench/store_get.c
bench_store_get_LDADD = src/libswitchyard.la $(SY_DEPS_LIBS)
# sy_jseg_open and the readers on arbitrary files (tests/fuzz/fuzz.mk).
FUZZ_TARGETS += fuzz_jseg
