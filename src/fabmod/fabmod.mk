# The engine module libswitchyard-fabric.so: the engine (src/fabric/,
# with libfabric and igraph) behind one function table (fabmod.h, the
# contract with libpmix's src/sched/sched_module.c), dlopen'ed by the
# scheduler role and by PMIx_server_collect_inventory so that no other
# process loads those libraries.  It exports that one symbol.
pkglib_LTLIBRARIES += src/libswitchyard-fabric.la
src_libswitchyard_fabric_la_SOURCES = src/fabmod/fabmod.c src/fabmod/fabmod_job.c \
	src/fabmod/fabmod_util.c
noinst_HEADERS += src/fabmod/fabmod.h src/fabmod/fabmod_int.h src/fabmod/fabmod_util.h
src_libswitchyard_fabric_la_LIBADD = src/libsyfabric.la $(SY_FABRIC_LIBS) $(SY_DEPS_LIBS)
src_libswitchyard_fabric_la_LDFLAGS = -module -avoid-version -no-undefined \
	-export-symbols-regex '^sy_fabmod_v1$$'
