# Installed command-line programs.  A program in tools/ uses only the public
# API, so it links the installed library (libpmix.la), not libswitchyard.la.
bin_PROGRAMS += tools/switchyard-info
tools_switchyard_info_SOURCES = tools/switchyard-info.c
tools_switchyard_info_LDADD = src/libpmix.la
# switchyard-fabric (owner: engine/CLI engineer): fabric engine summary and
# exports (docs/fabric.md, "Command line").  It calls the internal engine,
# so it links the convenience library, not libpmix.la.
bin_PROGRAMS += tools/switchyard-fabric
tools_switchyard_fabric_SOURCES = tools/switchyard-fabric.c
tools_switchyard_fabric_LDADD = $(FABRIC_LDADD)
