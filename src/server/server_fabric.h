/* The fabric route, SY_CMD_FABRIC and inventory (server_fabric.c). */
#ifndef SWITCHYARD_SERVER_FABRIC_H
#define SWITCHYARD_SERVER_FABRIC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

pmix_status_t sy_srv_fabric_init(sy_srv_t *s, const pmix_info_t info[], size_t ninfo);
void sy_srv_fabric_finalize(sy_srv_t *s);
void sy_srv_fabric_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b);
/* deregister_resources: remove the fabric devices named by PMIX_DEVICE_ID,
 * or by PMIX_FABRIC_DEVICE_NAME in a node's PMIX_NODE_INFO_ARRAY. */
void sy_srv_fabric_prune_devices(sy_srv_res_t *res, const pmix_info_t *gone, size_t ngone);
#endif
