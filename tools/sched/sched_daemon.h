/* switchyard-sched: a small scheduler daemon and node daemon over the
 * public server API (docs/fabric.md, "switchyard-sched").
 *
 *   sched_main.c  options, the two modes, running the command as a client
 *   sched_link.c  the daemons' own link: framed, PMIx_Data_pack'ed messages
 *
 * The link between a node daemon and the scheduler daemon is a UNIX
 * socket; each message is a 4-byte big-endian length and a packed buffer
 * whose first item is a PMIX_UINT8 kind:
 *   LINK_FABRIC     node -> sched: UINT32 id, UINT8 op, SIZE n, n INFO
 *   LINK_REPLY      sched -> node: UINT32 id, STATUS, SIZE n, n INFO
 *   LINK_INVENTORY  node -> sched: SIZE n, n INFO (collect_inventory's result)
 *   LINK_EVENT      sched -> node: STATUS code, PROC source, SIZE n, n INFO
 *   LINK_SETUP      node -> sched: UINT32 id, STRING nspace, SIZE n, n INFO
 *                   (PMIx_server_setup_application; answered by LINK_REPLY) */
#ifndef SWITCHYARD_TOOLS_SCHED_DAEMON_H
#define SWITCHYARD_TOOLS_SCHED_DAEMON_H

#include <pmix.h>

enum { LINK_FABRIC = 1, LINK_REPLY = 2, LINK_INVENTORY = 3, LINK_EVENT = 4, LINK_SETUP = 5 };

/* Send one message (the buffer is consumed); serialised by a mutex. */
int link_send(int fd, pmix_data_buffer_t *buf);
/* Send one message already unloaded from its buffer (bo is left as is). */
int link_send_bytes(int fd, const pmix_byte_object_t *bo);
/* Receive one message into buf (initialised here); -1 at EOF or error. */
int link_recv(int fd, pmix_data_buffer_t *buf);
/* Pack / unpack n infos as SIZE n, n INFO. */
pmix_status_t link_pack_infos(pmix_data_buffer_t *b, const pmix_info_t *info, size_t n);
pmix_status_t link_unpack_infos(pmix_data_buffer_t *b, pmix_info_t **info, size_t *n);

/* UNIX socket helpers */
int link_listen(const char *path);
int link_connect(const char *path, double wait_seconds);

#endif
