/* Query, log and job control through the host (server_hostops.c). */
#ifndef SWITCHYARD_SERVER_HOSTOPS_H
#define SWITCHYARD_SERVER_HOSTOPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

void sy_srv_hostops_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
#endif
