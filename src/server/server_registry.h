/* The registry of clients and namespaces (server_registry.c). */
#ifndef SWITCHYARD_SERVER_REGISTRY_H
#define SWITCHYARD_SERVER_REGISTRY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

sy_srv_client_t *sy_srv_client_find(sy_srv_t *s, const pmix_proc_t *proc);
sy_srv_client_t *sy_srv_client_get(sy_srv_t *s, const pmix_proc_t *proc); /* find or add */
sy_srv_nspace_t *sy_srv_nspace_find(sy_srv_t *s, const char *nspace);
/* A fresh secret of SY_SRV_TOKEN_LEN hex digits (empty without randomness). */
void sy_srv_hex_token(char out[SY_SRV_TOKEN_LEN + 1]);
/* The token of a client (empty when the server has no key). */
void sy_srv_client_token(const sy_srv_t *s, const pmix_proc_t *proc,
                         char out[SY_SRV_TOKEN_LEN + 1]);
void sy_srv_registry_free(sy_srv_t *s);
/* Its segment detached and removed, its memory freed (already unlisted). */
void sy_srv_nspace_free(sy_srv_nspace_t *ns);
/* unlink, with a warning unless the file is gone already (path may be NULL). */
void sy_srv_unlink(const char *path);
pmix_status_t sy_srv_resources_publish(sy_srv_t *s);
#endif
