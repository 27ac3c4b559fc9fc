/* Events on the client side.  Placeholder until issue 4 lands: event
 * messages from the server are ignored, and so is the loss of the
 * connection (pending requests fail with PMIX_ERR_LOST_CONNECTION). */
#include "client/client_internal.h"

void sy_client_event_unsolicited(pmix_data_buffer_t *msg)
{
    (void)msg;
}

void sy_client_event_lost_connection(void)
{
}

void sy_client_event_finalize(void)
{
}
