# Data layer (values, info, buffers, pack/unpack, strings, ...).
# Append sources with `src_libswitchyard_la_SOURCES +=` and private headers
# with `noinst_HEADERS +=`; unit tests go in tests/unit/unit.mk.
src_libswitchyard_la_SOURCES += \
	src/common/version.c \
	src/common/value.c \
	src/common/value_copy.c \
	src/common/value_compare.c \
	src/common/value_free.c \
	src/common/value_check.c \
	src/common/info.c \
	src/common/info_list.c \
	src/common/print.c \
	src/common/strings.c \
	src/common/attr_table.c \
	src/common/buffer.c \
	src/common/pack.c \
	src/common/unpack.c \
	src/common/data_api.c \
	src/common/compress.c \
	src/common/regex.c \
	src/common/opx_bfrops.c \
	src/common/opx_elems.c \
	src/common/opx_attrs.c \
	src/common/wire_codec_opx.c

# --- strings / attribute table ---
# attr_table.c includes common/attr_table.inc, generated from the public
# attribute header so that the table always lists exactly its attributes.
# The prerequisite is put on the library's objects rather than in
# BUILT_SOURCES, so that it also holds when a single test or the library
# alone is built (they all include the public headers anyway, so this costs
# no extra rebuilds).
noinst_HEADERS += src/common/attr_table.h src/common/info.h src/common/opx_bfrops.h \
	src/common/opx_attrs.h
EXTRA_DIST += src/common/attr_table.awk
CLEANFILES += src/common/attr_table.inc
src/common/attr_table.inc: $(top_srcdir)/include/pmix_attributes.h $(top_srcdir)/src/common/attr_table.awk
	@$(MKDIR_P) src/common
	$(AM_V_GEN)$(AWK) -f $(top_srcdir)/src/common/attr_table.awk \
	  $(top_srcdir)/include/pmix_attributes.h > $@.tmp && mv $@.tmp $@
$(src_libswitchyard_la_OBJECTS): src/common/attr_table.inc

# --- attribute support (PMIX_QUERY_ATTRIBUTE_SUPPORT) ---
# attr_support.txt is the one list of the attributes each API honours: the
# library's table (attr_support.inc), switchyard-run's registrations
# (tools/tools.mk) and docs/attributes.md's generated section all come from
# it through attr_support.awk; tests/unit/attr-doc.sh checks the document.
src_libswitchyard_la_SOURCES += src/common/attr_support.c src/common/query_lib.c \
	src/common/rendezvous.c
noinst_HEADERS += src/common/attr_support.h src/common/query_lib.h src/common/rendezvous.h
# safefile.c: exclusive creation and atomic publication in shared
# directories, process identity (pid + start time); sweep.c: removing what
# dead servers of ours left there (docs/security.md).
src_libswitchyard_la_SOURCES += src/common/safefile.c src/common/sweep.c
noinst_HEADERS += src/common/safefile.h src/common/sweep.h
EXTRA_DIST += src/common/attr_support.txt src/common/attr_support.awk
CLEANFILES += src/common/attr_support.inc
src/common/attr_support.inc: $(top_srcdir)/src/common/attr_support.txt $(top_srcdir)/src/common/attr_support.awk
	@$(MKDIR_P) src/common
	$(AM_V_GEN)$(AWK) -v mode=lib -f $(top_srcdir)/src/common/attr_support.awk \
	  $(top_srcdir)/src/common/attr_support.txt > $@.tmp && mv $@.tmp $@
$(src_libswitchyard_la_OBJECTS): src/common/attr_support.inc
# Rewrite docs/attributes.md's generated section from attr_support.txt.
update-attr-doc:
	$(SHELL) $(top_srcdir)/tests/unit/attr-doc.sh --update
.PHONY: update-attr-doc

# --- values / data types ---
# datatype.c holds the per-type table and value glue shared by the whole
# data layer (declared in datatype.h).
src_libswitchyard_la_SOURCES += src/common/datatype.c
noinst_HEADERS += src/common/datatype.h

# --- node/process map regex ---
# regex.c (generators, listed above), regex_parse.c (expansion used by the
# server), regex_util.c (shared buffer and lexing helpers).
src_libswitchyard_la_SOURCES += src/common/regex_parse.c src/common/regex_util.c
noinst_HEADERS += src/common/regex.h src/common/regex_internal.h

# --- buffers, pack/unpack, compression ---
# buffer.c, pack.c, unpack.c, data_api.c and compress.c are listed above;
# topo_xml.c screens received hwloc XML topologies before hwloc imports them.
src_libswitchyard_la_SOURCES += src/common/topo_xml.c
noinst_HEADERS += src/common/buffer.h src/common/pack.h src/common/topo_xml.h

# --- transport: sockets and message framing ---
# usock.c: UNIX/TCP listeners and connectors, SO_PEERCRED, private dirs;
# frame.c: length-framed connections on a caller's event_base
# (docs/wire-protocol.md); sealed.c: sealed memfds whose descriptor rides
# on a frame (docs/security.md).
src_libswitchyard_la_SOURCES += src/common/usock.c src/common/frame.c src/common/sealed.c
noinst_HEADERS += src/common/usock.h src/common/frame.h src/common/sealed.h

# --- progress runtime ---
# progress.c: event base, progress thread, thread-shift queue, timers, fork
# handling; sync.c: wait-for-callback objects for blocking calls.
src_libswitchyard_la_SOURCES += src/common/progress.c src/common/sync.c
noinst_HEADERS += src/common/progress.h src/common/sync.h

# --- runtime shared by the roles ---
# log.c: operator diagnostics on stderr; runtime.c: the one process-wide
# progress runtime and PMIx_Progress; wire.h: message layouts.
src_libswitchyard_la_SOURCES += src/common/log.c src/common/runtime.c
noinst_HEADERS += src/common/log.h src/common/runtime.h src/common/wire.h
# --- wire messages ---
# wire_msgs.txt is the one declaration of every message of the protocol:
# wire_msgs.awk generates from it wire_msgs.h (the command numbers, one
# struct per request, reply and message, typed pack/unpack/free), the
# field descriptors wire_codec.c walks (wire_msgs.inc), and the table of
# docs/wire-protocol.md (checked by tests/unit/wire-doc.sh).  wire.h
# includes wire_msgs.h, and every role, tool and test includes wire.h: the
# header is a BUILT_SOURCE, and a prerequisite of the library's objects
# for builds of the library alone.
src_libswitchyard_la_SOURCES += src/common/wire_codec.c
noinst_HEADERS += src/common/wire_codec.h
EXTRA_DIST += src/common/wire_msgs.txt src/common/wire_msgs.awk
CLEANFILES += src/common/wire_msgs.h src/common/wire_msgs.inc
BUILT_SOURCES += src/common/wire_msgs.h src/common/wire_msgs.inc
src/common/wire_msgs.h: $(top_srcdir)/src/common/wire_msgs.txt $(top_srcdir)/src/common/wire_msgs.awk
	@$(MKDIR_P) src/common
	$(AM_V_GEN)$(AWK) -v mode=h -f $(top_srcdir)/src/common/wire_msgs.awk \
	  $(top_srcdir)/src/common/wire_msgs.txt > $@.tmp && mv $@.tmp $@
src/common/wire_msgs.inc: $(top_srcdir)/src/common/wire_msgs.txt $(top_srcdir)/src/common/wire_msgs.awk
	@$(MKDIR_P) src/common
	$(AM_V_GEN)$(AWK) -v mode=inc -f $(top_srcdir)/src/common/wire_msgs.awk \
	  $(top_srcdir)/src/common/wire_msgs.txt > $@.tmp && mv $@.tmp $@
$(src_libswitchyard_la_OBJECTS): src/common/wire_msgs.h src/common/wire_msgs.inc
# Rewrite docs/wire-protocol.md's generated table from wire_msgs.txt.
update-wire-doc:
	$(SHELL) $(top_srcdir)/tests/unit/wire-doc.sh --update
.PHONY: update-wire-doc

# event.c: the event handler registry and delivery chain, and the public
# PMIx_Register/Deregister_event_handler and PMIx_Notify_event.
src_libswitchyard_la_SOURCES += src/common/event.c
noinst_HEADERS += src/common/event.h
