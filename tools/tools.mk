# Installed command-line programs.  A program in tools/ uses only the public
# API, so it links the installed library (libpmix.la), not libswitchyard.la.
bin_PROGRAMS += tools/switchyard-info
tools_switchyard_info_SOURCES = tools/switchyard-info.c
tools_switchyard_info_LDADD = src/libpmix.la
