/* IOF_PULL / IOF_DEREG / IOF_PUSH and PMIx_server_IOF_deliver (server_iof.c). */
#ifndef SWITCHYARD_SERVER_IOF_H
#define SWITCHYARD_SERVER_IOF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

void sy_srv_iof_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
void sy_srv_iof_peer_gone(sy_srv_peer_t *peer);
void sy_srv_iof_finalize(void);
#endif
