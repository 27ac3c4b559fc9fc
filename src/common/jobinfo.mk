# Compiling register_nspace / register_resources descriptions into job-data
# segments (jobinfo.h), with its tests.
noinst_HEADERS += src/common/jobinfo.h src/common/jobinfo_internal.h
src_libswitchyard_la_SOURCES += \
	src/common/jobinfo.c \
	src/common/jobinfo_values.c \
	src/common/jobinfo_walk.c \
	src/common/jobinfo_maps.c \
	src/common/jobinfo_derive.c \
	src/common/jobinfo_procs.c \
	src/common/jobinfo_resources.c
# test_jobinfo: host descriptions (ORTE, Slurm, nested realms, NODATA),
# resources and singletons; test_jobinfo_input: map forms and bad input;
# test_jobinfo_scale: derived values of a 1M-rank job and the edges of scale.
check_PROGRAMS += tests/unit/test_jobinfo tests/unit/test_jobinfo_input \
	tests/unit/test_jobinfo_scale
TESTS += tests/unit/test_jobinfo tests/unit/test_jobinfo_input tests/unit/test_jobinfo_scale
tests_unit_test_jobinfo_scale_SOURCES = tests/unit/test_jobinfo_scale.c
tests_unit_test_jobinfo_SOURCES = tests/unit/test_jobinfo.c tests/unit/test_jobinfo_util.c
tests_unit_test_jobinfo_input_SOURCES = tests/unit/test_jobinfo_input.c \
	tests/unit/test_jobinfo_util.c
noinst_HEADERS += tests/unit/test_jobinfo_util.h
