/* Tool connections (server_tool.c). */
#ifndef SWITCHYARD_SERVER_TOOL_H
#define SWITCHYARD_SERVER_TOOL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

/* A HELLO of kind SY_PEER_TOOL; info is taken. */
void sy_srv_tool_hello(sy_srv_peer_t *peer, uint32_t tag, const pmix_proc_t *claimed,
                       const char *token, pmix_info_t *info, size_t ninfo);
/* A tool's connection ended (called while detaching it). */
void sy_srv_tool_gone(sy_srv_peer_t *peer);
#endif
