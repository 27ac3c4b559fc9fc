/* Credentials, the host's or the server's own (server_cred.c). */
#ifndef SWITCHYARD_SERVER_CRED_H
#define SWITCHYARD_SERVER_CRED_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

void sy_srv_cred_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
void sy_srv_cred_finalize(sy_srv_t *s);
#endif
