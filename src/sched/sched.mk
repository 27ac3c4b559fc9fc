# Scheduler role and the fabric API (docs/fabric.md, "Scheduler role").
# In libpmix: fabric_api.c (PMIx_Fabric_* of every role, update protocol),
# sched.c (the scheduler's fabrics, changes, requests), sched_module.c
# (loading the engine module), sched_worker.c (the thread every engine call
# runs on).
src_libswitchyard_la_SOURCES += src/sched/fabric_api.c src/sched/sched.c \
	src/sched/sched_module.c src/sched/distances_api.c src/sched/sched_worker.c
noinst_HEADERS += src/sched/sched.h src/sched/sched_worker.h src/sched/fabmod.h src/sched/fabmod_int.h \
	src/sched/fabmod_util.h
AM_CPPFLAGS += -DSY_PKGLIBDIR='"$(pkglibdir)"'
# The engine module: src/fabric/ with libfabric and igraph, dlopen'ed by
# the scheduler role (and by PMIx_server_collect_inventory) so that no
# other process loads them.  It exports one symbol, the function table.
pkglib_LTLIBRARIES += src/libswitchyard-fabric.la
src_libswitchyard_fabric_la_SOURCES = src/sched/fabmod.c src/sched/fabmod_job.c \
	src/sched/fabmod_util.c
src_libswitchyard_fabric_la_LIBADD = src/libsyfabric.la $(SY_FABRIC_LIBS) $(SY_DEPS_LIBS)
src_libswitchyard_fabric_la_LDFLAGS = -module -avoid-version -no-undefined \
	-export-symbols-regex '^sy_fabmod_v1$$'
