/* Event registration and notification (server_event.c). */
#ifndef SWITCHYARD_SERVER_EVENT_H
#define SWITCHYARD_SERVER_EVENT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

void sy_srv_event_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
void sy_srv_event_peer_gone(sy_srv_peer_t *peer, bool finalized);
void sy_srv_event_finalize(sy_srv_t *s);
void sy_srv_event_init(sy_srv_t *s);
/* An event of the library itself (groups, process sets): to the clients in
 * range, into the cache for later registrations, and to the host's
 * notify_event when the range reaches other nodes. */
void sy_srv_event_raise(pmix_status_t status, const pmix_proc_t *source, pmix_data_range_t range,
                        const pmix_info_t info[], size_t ninfo);
#endif
