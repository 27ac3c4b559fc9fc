# Everything here is in libpmix: the fabric API of every role and the
# scheduler role (docs/fabric.md, "Scheduler role").  fabric_api.c
# (PMIx_Fabric_* of every role, update protocol), sched.c (the scheduler's
# fabrics, changes, requests), sched_module.c (loading the engine module,
# src/fabmod/), sched_worker.c (the thread every engine call runs on),
# distances_api.c over distances.c (PMIx_Compute_distances from hwloc
# locality: hwloc only, so no engine needed).
src_libswitchyard_la_SOURCES += src/sched/fabric_api.c src/sched/sched.c \
	src/sched/sched_module.c src/sched/sched_worker.c src/sched/distances_api.c \
	src/sched/distances.c
noinst_HEADERS += src/sched/sched.h src/sched/sched_worker.h src/sched/distances.h
AM_CPPFLAGS += -DSY_PKGLIBDIR='"$(pkglibdir)"'
