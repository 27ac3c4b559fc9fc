# cmocka unit tests.  To add one, create tests/unit/test_<area>.c and append
# its program name (no .c) to both lists:
#   check_PROGRAMS += tests/unit/test_<area>
#   TESTS          += tests/unit/test_<area>
# The source defaults to tests/unit/test_<area>.c; programs without their own
# _LDADD get $(UNIT_LDADD) = src/libswitchyard.la + cmocka, so the tests can
# call internal (hidden) functions.  Extra sources for one test:
#   tests_unit_test_<area>_SOURCES = tests/unit/test_<area>.c tests/unit/helper.c
check_PROGRAMS += tests/unit/test_version
TESTS += tests/unit/test_version
# test_strings (owner: strings engineer): the constants and the attribute
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
# test_regex (owner: regex engineer): node/process map generation and parsing.
check_PROGRAMS += tests/unit/test_regex
TESTS += tests/unit/test_regex
# values / info / print (owner: values engineer).  value_samples.c builds a
# sample element of every data type for the value and print tests.
check_PROGRAMS += tests/unit/test_values tests/unit/test_info tests/unit/test_print
TESTS += tests/unit/test_values tests/unit/test_info tests/unit/test_print
tests_unit_test_values_SOURCES = tests/unit/test_values.c tests/unit/value_samples.c
tests_unit_test_print_SOURCES = tests/unit/test_print.c tests/unit/value_samples.c
noinst_HEADERS += tests/unit/value_samples.h
check_PROGRAMS += tests/unit/test_macros
TESTS += tests/unit/test_macros
