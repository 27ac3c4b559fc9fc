/* State of the client role, shared by the files of src/client/ only. */
#ifndef SWITCHYARD_CLIENT_INTERNAL_H
#define SWITCHYARD_CLIENT_INTERNAL_H
#include <pthread.h>
#include <stdbool.h>

#include <pmix_common.h>

#include "common/frame.h"
#include "common/progress.h"

typedef struct {
    unsigned refcount;   /* PMIx_Init calls not yet finalized */
    pmix_proc_t me;
    bool singleton;
    sy_progress_t *progress;
    sy_conn_t *conn;     /* NULL for a singleton */
    pmix_proc_t server;
    char *server_host;
} sy_client_t;

/* Guards sy_client's fields against concurrent Init/Finalize. */
extern pthread_mutex_t sy_client_lock;
extern sy_client_t sy_client;

/* ---- client_rpc.c: requests to the server over sy_client.conn ---- */
/* The connection's callbacks (the context is unused). */
extern const sy_conn_callbacks_t sy_client_conn_callbacks;
/* Send `body` (taken: malloc'd, freed here) with a fresh tag and wait up
 * to `seconds` for the reply, whose malloc'd body is returned in *reply
 * (caller frees) with its length.  PMIX_ERR_LOST_CONNECTION when the
 * server goes away, PMIX_ERR_TIMEOUT. */
pmix_status_t sy_client_request(sy_conn_t *conn, uint32_t tag, void *body, size_t len,
                                double seconds, void **reply, size_t *reply_len);
/* A tag unique among outstanding requests (1 is the HELLO's). */
uint32_t sy_client_next_tag(void);
/* One request/reply with blocking I/O on the caller's thread, before the
 * socket is handed to a connection (the HELLO: no thread hand-off on the
 * path every Init takes). */
pmix_status_t sy_client_exchange(int fd, uint32_t tag, const void *body, size_t len,
                                 double seconds, void **reply, size_t *reply_len);
/* Fail every outstanding request (the connection is gone). */
void sy_client_fail_requests(pmix_status_t status);

#endif
