# Fabric support (PMIx_Fabric_register, libfabric glue, ...).
# Append sources with `src_libsyfabric_la_SOURCES += src/fabric/foo.c` and
# private headers with `noinst_HEADERS += src/fabric/foo.h`.
src_libsyfabric_la_SOURCES +=
# --- topology model, readers and generators (owner: fabric-topology engineer) ---
# topo.c: graph model (vertices, links, name/pair hash, CSR adjacency);
# read_*.c: Slurm topology.conf, ibnetdiscover (default and -p), OpenSM
# subnet.lst, ibsim net, native (read_ib.c: the IB readers' build step);
# load.c: format detection and file loading; gen.c: fat tree, dragonfly,
# torus generators.  Formats and specs: docs/fabric.md.
src_libsyfabric_la_SOURCES += \
	src/fabric/topo.c \
	src/fabric/read_util.c \
	src/fabric/read_slurm.c \
	src/fabric/read_ib.c \
	src/fabric/read_ibnet.c \
	src/fabric/read_osm.c \
	src/fabric/read_ibsim.c \
	src/fabric/read_native.c \
	src/fabric/load.c \
	src/fabric/gen.c
noinst_HEADERS += src/fabric/topo.h src/fabric/read_util.h src/fabric/read_ib.h
# --- device index, cost matrix, planes, switch peers (owner: cost engineer) ---
# devindex.c: device order (PMIX_FABRIC_DEVICE_INDEX); cost.c/cost_bfs.c:
# uint16 cost matrix (leaf-collapse or per-source BFS/Dijkstra, threaded,
# mmap'd); planes.c: components with devices; peers.c: attachment switches.
src_libsyfabric_la_SOURCES += \
	src/fabric/devindex.c \
	src/fabric/huge_map.c \
	src/fabric/cost.c \
	src/fabric/cost_bfs.c \
	src/fabric/planes.c \
	src/fabric/peers.c
noinst_HEADERS += src/fabric/devindex.h src/fabric/huge_map.h src/fabric/cost.h src/fabric/cost_impl.h \
	src/fabric/planes.h src/fabric/peers.h
# --- levels, groups, coordinates, igraph guard (owner: groups engineer) ---
# igraph_guard.c: serialised igraph with non-aborting handlers, igraph view
# of a topology; levels.c: switch levels and device attachments;
# structure.c: pods, dragonfly triangle groups, classification;
# community.c: seeded Leiden fallback; groups.c: PMIX_FABRIC_GROUPS;
# coords.c: device coordinates, dims and shape.  See docs/fabric.md.
src_libsyfabric_la_SOURCES += \
	src/fabric/igraph_guard.c \
	src/fabric/levels.c \
	src/fabric/structure.c \
	src/fabric/community.c \
	src/fabric/groups.c \
	src/fabric/coords.c \
	src/fabric/coords_phys.c
noinst_HEADERS += src/fabric/igraph_guard.h src/fabric/levels.h src/fabric/structure.h \
	src/fabric/groups.h src/fabric/coords.h
# --- local device inventory (owner: devices engineer) ---
# devices.c: records, merge, PMIX_FABRIC_DEVICE conversion; devices_fi.c:
# libfabric (cached fi_getinfo); devices_hwloc.c: hwloc network/OpenFabrics
# OS devices.  (Device distances are in libpmix: src/sched/distances.c.)
src_libsyfabric_la_SOURCES += \
	src/fabric/devices.c \
	src/fabric/devices_fi.c \
	src/fabric/devices_hwloc.c
noinst_HEADERS += src/fabric/devices.h src/fabric/devices_int.h
# --- engine facade and vertex removal (owner: engine/CLI engineer) ---
# engine.c: a topology plus its computed results, incremental changes with
# a generation counter and dirty tracking (docs/fabric.md, "Engine and
# updates"); topo_edit.c: sy_topo_remove_vertex (compact rebuild).
src_libsyfabric_la_SOURCES += \
	src/fabric/topo_edit.c \
	src/fabric/engine.c
noinst_HEADERS += src/fabric/engine.h
# cm_codec.c: the cost matrix's chunk encoding for the scheduler's link
# (runs, palettes, raw; tools/sched/sched_chunk.c, fuzz_cm_decode).
src_libsyfabric_la_SOURCES += src/fabric/cm_codec.c
noinst_HEADERS += src/fabric/cm_codec.h
