# Client role: PMIx_Init/Finalize/Abort (handshake, singleton), requests to
# the server, PMIx_Get/Get_nb/Store_internal on the store, Resolve_*.
src_libswitchyard_la_SOURCES += src/client/client_init.c src/client/client_rpc.c src/client/client_msg.c \
	src/client/client_direct.c \
	src/client/client_get.c src/client/client_resolve.c \
	src/client/client_modex.c src/client/client_lfence.c src/client/client_event.c src/client/client_pubsub.c \
	src/client/client_hostops.c src/client/client_fabric.c src/client/client_distances.c \
	src/client/client_group.c src/client/client_cred.c src/client/client_debug.c \
	src/client/client_iof.c src/client/client_iof_fmt.c src/client/client_iof_push.c
noinst_HEADERS += src/client/client_internal.h src/client/client_iof.h
check_PROGRAMS += tests/unit/test_client
TESTS += tests/unit/test_client
