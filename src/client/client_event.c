/* Events on the client side: notifications to and from the server
 * (EVENT_NOTIFY, SY_MSG_EVENT), the events the client generates itself
 * (lost connection, model declared); the registry is common/event.c. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/event.h"
#include "common/frame.h"
#include "common/log.h"
#include "common/opx_client.h"
#include "common/runtime.h"
#include "common/sync.h"

/* The connection of an initialized client, or NULL. */
static sy_conn_t *server_conn(void)
{
    pthread_mutex_lock(&sy_client_lock);
    sy_conn_t *conn = sy_client.refcount > 0 ? sy_client.conn : NULL;
    pthread_mutex_unlock(&sy_client_lock);
    return conn;
}

/* The connection until PMIx_Finalize drops it (on the loop, as this
 * runs): notifications posted before finalize still leave. */
static sy_conn_t *notify_conn(void)
{
    pthread_mutex_lock(&sy_client_lock);
    sy_conn_t *conn = sy_client.conn;
    pthread_mutex_unlock(&sy_client_lock);
    return conn;
}

/* Beyond this process: the server spreads it over its range. */
static void forward(pmix_status_t status, const pmix_proc_t *source, pmix_data_range_t range,
                    const pmix_info_t info[], size_t ninfo)
{
    sy_wire_event_notify_req_t m = {.code = status,
                                    .source = *source,
                                    .range = (uint8_t)range,
                                    .info = (pmix_info_t *)info,
                                    .ninfo = ninfo};
    sy_client_send_nb(notify_conn(), SY_WMSG_EVENT_NOTIFY_REQ, &m);
}

/* An OpenPMIx server keeps one registration per code and client, and
 * learns of a code none of our handlers wants any more from DEREGEVENTS
 * (its client sends the codes whose last handler went; a default
 * handler's is PMIX_MAX_ERR_CONSTANT, INT32_MIN).  So with one we count
 * handlers per code. */
#define OPX_DEFAULT_CODE INT32_MIN

typedef struct {
    pmix_status_t code;
    size_t n;
} code_count_t;

static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;
static code_count_t *counts;
static size_t ncounts;

static void count_codes(const pmix_status_t *codes, size_t ncodes)
{
    pmix_status_t dflt = OPX_DEFAULT_CODE;
    if (ncodes == 0) {
        codes = &dflt;
        ncodes = 1;
    }
    pthread_mutex_lock(&counts_lock);
    for (size_t i = 0; i < ncodes; i++) {
        size_t k = 0;
        while (k < ncounts && counts[k].code != codes[i])
            k++;
        if (k == ncounts) {
            code_count_t *g = realloc(counts, (ncounts + 1) * sizeof(*g));
            if (g == NULL)
                continue; /* not counted: never reported gone */
            counts = g;
            counts[ncounts++] = (code_count_t){codes[i], 0};
        }
        counts[k].n++;
    }
    pthread_mutex_unlock(&counts_lock);
}

/* The codes of a handler that went whose count drops to zero, into gone
 * (room for ncodes, at least 1); their number. */
static size_t uncount_codes(const pmix_status_t *codes, size_t ncodes, pmix_status_t *gone)
{
    pmix_status_t dflt = OPX_DEFAULT_CODE;
    if (ncodes == 0) {
        codes = &dflt;
        ncodes = 1;
    }
    size_t ngone = 0;
    pthread_mutex_lock(&counts_lock);
    for (size_t i = 0; i < ncodes; i++) {
        for (size_t k = 0; k < ncounts; k++) {
            if (counts[k].code != codes[i] || counts[k].n == 0)
                continue;
            if (--counts[k].n == 0) {
                gone[ngone++] = codes[i];
                counts[k] = counts[--ncounts];
            }
            break;
        }
    }
    if (ncounts == 0) {
        free(counts);
        counts = NULL;
    }
    pthread_mutex_unlock(&counts_lock);
    return ngone;
}

/* DEREGEVENTS: one way (OpenPMIx's server answers nothing). */
static void opx_deregistered(const pmix_status_t *codes, size_t ncodes)
{
    pmix_status_t stack[8];
    pmix_status_t *gone = ncodes <= 8 ? stack : calloc(ncodes, sizeof(*gone));
    if (gone == NULL)
        return;
    size_t ngone = uncount_codes(codes, ncodes, gone);
    sy_conn_t *conn = server_conn();
    pmix_data_buffer_t b = {0};
    if (ngone > 0 && conn != NULL && sy_opx_pack_deregevents(&b, gone, ngone) == PMIX_SUCCESS) {
        if (sy_conn_send_owned(conn, sy_client_next_tag(), 0, b.base_ptr, b.bytes_used) !=
            PMIX_SUCCESS)
            sy_log(SY_LOG_INFO, "client: the OpenPMIx server was not told of a deregistration");
        memset(&b, 0, sizeof(b)); /* the connection owns the bytes */
    }
    sy_buffer_destruct(&b);
    if (gone != stack)
        free(gone);
}

/* A new handler: the server replays the events it cached that it wants. */
static void registered(size_t ref, const pmix_status_t *codes, size_t ncodes, uint64_t seen)
{
    if (sy_client.opx)
        count_codes(codes, ncodes);
    sy_wire_event_register_req_t m = {
        .ref = ref, .codes = (pmix_status_t *)codes, .ncodes = ncodes, .seen = seen};
    sy_client_send_nb(server_conn(), SY_WMSG_EVENT_REGISTER_REQ, &m);
}

/* A handler went: the server counts registrations per code for its host's
 * deregister_events. */
static void deregistered(size_t ref, const pmix_status_t *codes, size_t ncodes)
{
    if (sy_client.opx) {
        opx_deregistered(codes, ncodes);
        return;
    }
    sy_wire_event_deregister_req_t m = {.ref = ref};
    sy_client_send_nb(server_conn(), SY_WMSG_EVENT_DEREGISTER_REQ, &m);
}

/* The hooks are ours (not a server's of this same process). */
static bool hooked;

void sy_client_event_init(const pmix_info_t info[], size_t ninfo, bool route)
{
    sy_event_set_self(&sy_client.me);
    /* a tool may get its server later: the forwarder looks at send time */
    hooked = route && (sy_client.conn != NULL || sy_client.tool);
    if (hooked) {
        sy_event_set_forwarder(SY_EVENT_ROUTE_CLIENT, forward);
        sy_event_set_register_hook(SY_EVENT_ROUTE_CLIENT, registered);
        sy_event_set_deregister_hook(SY_EVENT_ROUTE_CLIENT, deregistered);
    }
    /* PMIX_MODEL_DECLARED: a programming model announced itself at init */
    for (size_t i = 0; info != NULL && i < ninfo; i++) {
        if (strncmp(info[i].key, PMIX_PROGRAMMING_MODEL, PMIX_MAX_KEYLEN) == 0) {
            PMIx_Notify_event(PMIX_MODEL_DECLARED, &sy_client.me, PMIX_RANGE_PROC_LOCAL, info,
                              ninfo, NULL, NULL);
            break;
        }
    }
}

void sy_client_event_unsolicited(pmix_data_buffer_t *msg, bool replay, bool primary)
{
    if (replay) {
        sy_wire_event_replay_msg_t m;
        if (sy_wire_event_replay_msg_unpack(sy_client_codec(), msg, &m) != PMIX_SUCCESS)
            return;
        sy_event_deliver_to(m.ref, m.code, &m.source, m.info, m.ninfo);
        sy_wire_event_replay_msg_free(&m);
        return;
    }
    sy_wire_event_msg_t m;
    if (sy_wire_event_msg_unpack(sy_client_codec(), msg, &m) != PMIX_SUCCESS)
        return;
    /* the registrations' `seen` counts the events of the server they go to */
    if (primary)
        sy_event_deliver_counted(m.code, &m.source, (pmix_data_range_t)m.range, m.info, m.ninfo);
    else
        sy_event_deliver(m.code, &m.source, (pmix_data_range_t)m.range, m.info, m.ninfo);
    sy_wire_event_msg_free(&m);
}

void sy_client_event_lost_connection(void)
{
    pthread_mutex_lock(&sy_client_lock);
    bool up = sy_client.refcount > 0;
    pmix_proc_t server = sy_client.server;
    pthread_mutex_unlock(&sy_client_lock);
    if (up)
        sy_event_deliver(PMIX_ERR_LOST_CONNECTION, &server, PMIX_RANGE_PROC_LOCAL, NULL, 0);
}

void sy_client_event_finalize(void)
{
    /* PMIx_Notify_event posts to the loop (FIFO): what was posted before
     * finalize must be forwarded before the forwarder goes, and so reach
     * the server before our FINALIZE (a daemon's release, then its exit).
     * sy_client_iof_finalize's hop through the loop, just before, did
     * that: a second hop would cost every process one more sleep and
     * wake-up while all of a job's ranks finalize at once. */
    if (hooked) {
        sy_event_set_forwarder(SY_EVENT_ROUTE_CLIENT, NULL);
        sy_event_set_register_hook(SY_EVENT_ROUTE_CLIENT, NULL);
        sy_event_set_deregister_hook(SY_EVENT_ROUTE_CLIENT, NULL);
    }
    hooked = false;
    pthread_mutex_lock(&counts_lock);
    free(counts);
    counts = NULL;
    ncounts = 0;
    pthread_mutex_unlock(&counts_lock);
}
