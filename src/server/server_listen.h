/* Listeners and rendezvous files (server_listen.c). */
#ifndef SWITCHYARD_SERVER_LISTEN_H
#define SWITCHYARD_SERVER_LISTEN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

pmix_status_t sy_srv_listen_start(sy_srv_t *s);
void sy_srv_listen_stop(sy_srv_t *s);
/* One of our descriptors was closed: listen again if a failed accept
 * paused the listeners (server_listen.c). */
void sy_srv_accept_resume(sy_srv_t *s);
pmix_status_t sy_srv_rendezvous_write(sy_srv_t *s);
void sy_srv_remember_file(sy_srv_t *s, const char *path);
void sy_srv_remove_files(sy_srv_t *s);
#endif
