/* Events on the server side: registration and notification.
 * Placeholder until issue 4 lands: every request is answered
 * PMIX_ERR_NOT_SUPPORTED, so clients get a clear status. */
#include "server/server_internal.h"

void sy_srv_event_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b)
{
    (void)cmd;
    (void)b;
    sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_SUPPORTED);
}

void sy_srv_event_peer_gone(sy_srv_peer_t *peer, bool finalized)
{
    (void)peer;
    (void)finalized;
}

void sy_srv_event_finalize(sy_srv_t *s)
{
    (void)s;
}
