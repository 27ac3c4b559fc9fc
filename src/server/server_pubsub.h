/* Publish / lookup / unpublish through the host (server_pubsub.c). */
#ifndef SWITCHYARD_SERVER_PUBSUB_H
#define SWITCHYARD_SERVER_PUBSUB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

void sy_srv_pubsub_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
#endif
