/* Length-framed messages over a connected stream socket (docs/wire-protocol.md).
 *
 * A frame is a 16-byte little-endian header followed by `length` body bytes:
 *   u32 magic "SYW1"  u16 version (1)  u16 flags  u32 tag  u32 length
 * The framing layer gives the tag and the low 14 flag bits no meaning (the
 * two high ones are its own: SY_FRAME_F_FD, SY_FRAME_F_MORE); the roles use
 * the tag to match replies to requests (0 = unsolicited) and the body is
 * normally a packed pmix_data_buffer_t.
 *
 * Threads: the connection lives on a caller-supplied event_base whose loop
 * runs in one thread (the "loop thread").  sy_conn_send*() may be called
 * from any thread; the base must then have been created after
 * evthread_use_pthreads() (libevent_pthreads) so that event_add/event_active
 * from another thread are safe.  sy_conn_create/close/free must be called
 * from the loop thread, or while the loop is not running.  Callbacks run in
 * the loop thread.
 *
 * Closing: on_close fires exactly once, when the connection dies on its own
 * (peer EOF or reset, protocol violation, write error) — never after
 * sy_conn_close() or sy_conn_free(), and no callback of any kind runs after
 * those return.  Both may be called from inside a callback; the memory is
 * released once the callback returns. */
#ifndef SWITCHYARD_COMMON_FRAME_H
#define SWITCHYARD_COMMON_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pmix_common.h"

struct event_base;

#define SY_FRAME_MAGIC 0x31575953u /* bytes 'S' 'Y' 'W' '1' on the wire */
#define SY_FRAME_VERSION 1
#define SY_FRAME_HEADER_SIZE 16
/* The largest frame body a connection accepts from its peer when
 * sy_conn_create() is given max_body == 0: SWITCHYARD_MAX_MSG_SIZE (bytes,
 * or with a K, M or G suffix; at least SY_FRAME_MIN_MAX_BODY), else
 * SY_FRAME_DEFAULT_MAX_BODY.  Far above any legitimate message (job and
 * fence data travel in shared-memory segments; a commit carries one
 * process's own data), and it bounds what a peer can make us hold: a
 * longer frame closes the connection.  A body's memory grows with the
 * bytes that actually arrive, never with what the header claims. */
#define SY_FRAME_MAX_ENV "SWITCHYARD_MAX_MSG_SIZE"
#define SY_FRAME_DEFAULT_MAX_BODY ((size_t)256 << 20)
#define SY_FRAME_MIN_MAX_BODY ((size_t)64 << 10)
size_t sy_frame_default_max_body(void);
/* "1048576", "64K", "256M", "1G" -> bytes; PMIX_ERR_BAD_PARAM when it is
 * not a size, below SY_FRAME_MIN_MAX_BODY or above UINT32_MAX. */
pmix_status_t sy_frame_parse_size(const char *text, size_t *out);

typedef struct sy_conn sy_conn_t;

typedef struct {
    /* One complete frame.  `body` (NULL when len == 0) is valid only during
     * the call unless taken with sy_conn_take_body(). */
    void (*on_message)(sy_conn_t *conn, uint32_t tag, uint16_t flags, const void *body, size_t len,
                       void *ctx);
    /* The connection died: PMIX_ERR_LOST_CONNECTION (EOF, reset, write
     * failure, EOF in the middle of a frame) or PMIX_ERR_UNPACK_FAILURE (bad
     * magic, unknown version, body longer than max_body).  `why` is a
     * human-readable sentence for logs.  The fd is already closed; the
     * callback may call sy_conn_free(). */
    void (*on_close)(sy_conn_t *conn, pmix_status_t reason, const char *why, void *ctx);
    /* Accept descriptors from the peer (UNIX sockets): a frame flagged
     * SY_FRAME_F_FD brings one, which on_message may take with
     * sy_conn_take_fd().  Without it the kernel closes whatever a peer
     * passes, and a frame flagged so closes the connection. */
    bool receive_fds;
    /* Accept a message in pieces (SY_FRAME_F_MORE): on_message sees it
     * once, whole.  Without it a frame so flagged closes the connection. */
    bool accept_continued;
} sy_conn_callbacks_t;

/* The one flag bit of the framing layer (our framing only): a descriptor
 * rides on this frame, passed with SCM_RIGHTS on the first byte of its
 * header (docs/wire-protocol.md, "Descriptors").  A receiver holds at most
 * SY_CONN_MAX_FDS descriptors whose frame has not come yet; one more, or a
 * frame flagged without one, is a protocol violation that closes the
 * connection (PMIX_ERR_UNPACK_FAILURE, one log line).  But a descriptor the
 * kernel could not give us (our descriptor table full) leaves the
 * connection up: its frame comes without (sy_conn_take_fd() is -1). */
#define SY_FRAME_F_FD 0x8000u
#define SY_CONN_MAX_FDS 4
/* A message longer than a frame may carry (a cost matrix of gigabytes to a
 * client that cannot map it) goes in pieces: every frame but the last is
 * flagged SY_FRAME_F_MORE, all carry the same tag and nothing comes
 * between them (sy_conn_send_owned_pieces queues them together).  A
 * receiver that accepts them (accept_continued) delivers the message
 * once, whole, with the last frame's flags; each piece is still bounded
 * by max_body, and memory grows with the bytes that arrive.  A piece with
 * a descriptor, or a frame of another tag before the last piece, closes
 * the connection (PMIX_ERR_UNPACK_FAILURE, one log line). */
#define SY_FRAME_F_MORE 0x4000u

/* Wrap connected stream socket `fd` (made non-blocking and close-on-exec
 * here; the connection owns it from now on, even on failure).  max_body is
 * the largest body accepted from the peer (0 = sy_frame_default_max_body(),
 * at most UINT32_MAX). */
pmix_status_t sy_conn_create(struct event_base *base, int fd, const sy_conn_callbacks_t *cbs,
                             void *ctx, size_t max_body, sy_conn_t **out);

/* Two framings share the 16-byte header size (docs/wire-protocol.md):
 * ours above, and OpenPMIx's {i32 pindex, u32 tag, u32 nbytes, u32 pad}
 * in network order, which has no magic and no flags: on an OpenPMIx
 * connection on_message always sees flags 0 and every header carries
 * `pindex` (the index the server gave the client at the handshake; 0 from
 * a server).  A client fixes the framing when it makes the connection; a
 * listener's connection may detect it (sy_conn_detect_openpmix). */
typedef enum {
    SY_FRAMING_NATIVE = 0,
    SY_FRAMING_DETECT = 1, /* until the first header */
    SY_FRAMING_OPENPMIX = 2,
} sy_framing_t;
pmix_status_t sy_conn_create_framed(struct event_base *base, int fd, sy_framing_t framing,
                                    int32_t pindex, const sy_conn_callbacks_t *cbs, void *ctx,
                                    size_t max_body, sy_conn_t **out);
void sy_frame_opx_header_encode(uint8_t out[SY_FRAME_HEADER_SIZE], int32_t pindex, uint32_t tag,
                                uint32_t len);
void sy_frame_opx_header_decode(const uint8_t in[SY_FRAME_HEADER_SIZE], int32_t *pindex,
                                uint32_t *tag, uint32_t *len);

/* Queue one frame; never blocks.  The body is copied.  Returns
 * PMIX_ERR_LOST_CONNECTION once the connection is closed or dead,
 * PMIX_ERR_BAD_PARAM for a body over UINT32_MAX bytes. */
pmix_status_t sy_conn_send(sy_conn_t *conn, uint32_t tag, uint16_t flags, const void *body,
                           size_t len);

/* Same, taking ownership of malloc'd `body` (freed with free() once sent,
 * and also when an error is returned). */
pmix_status_t sy_conn_send_owned(sy_conn_t *conn, uint32_t tag, uint16_t flags, void *body,
                                 size_t len);

/* The same, in frames of at most `piece` bytes when len is longer
 * (SY_FRAME_F_MORE on all but the last; our framing only: on an OpenPMIx
 * connection it is one frame, as sy_conn_send_owned). */
pmix_status_t sy_conn_send_owned_pieces(sy_conn_t *conn, uint32_t tag, uint16_t flags, void *body,
                                        size_t len, size_t piece);

/* The same with descriptor `fd` riding on the frame (SY_FRAME_F_FD is set
 * here): a UNIX-socket connection of our framing only.  fd is taken: closed
 * once the frame's first byte is sent (the peer then has its own), and
 * also when an error is returned (PMIX_ERR_NOT_SUPPORTED on an OpenPMIx
 * connection). */
pmix_status_t sy_conn_send_owned_fd(sy_conn_t *conn, uint32_t tag, uint16_t flags, void *body,
                                    size_t len, int fd);

/* Inside on_message only: the descriptor that came with this frame (the
 * caller closes it), or -1.  One not taken is closed after on_message. */
int sy_conn_take_fd(sy_conn_t *conn);

/* Inside on_message only: take the malloc'd body (caller frees it), to load
 * it into a pmix_data_buffer_t without a copy.  NULL when len == 0 or
 * outside on_message. */
void *sy_conn_take_body(sy_conn_t *conn);

/* Stop: close the fd, drop unsent frames, no more callbacks.  Later sends
 * fail with PMIX_ERR_LOST_CONNECTION.  Idempotent. */
void sy_conn_close(sy_conn_t *conn);

/* Graceful local close, e.g. after a refusal reply: stop reading (no more
 * on_message), refuse new sends, write what is queued, then close the fd.
 * No callback fires afterwards, even if the final writes fail.  The object
 * stays valid until sy_conn_free() (which may come at any time and drops
 * whatever is still unsent).  A peer that never reads keeps the queue
 * pending: the caller bounds that with its own timer. */
void sy_conn_close_after_flush(sy_conn_t *conn);

/* Close (if needed) and release.  NULL is ignored. */
void sy_conn_free(sy_conn_t *conn);

/* The fd (-1 once closed), e.g. for sy_peer_cred(). */
int sy_conn_fd(const sy_conn_t *conn);

/* Change the largest body accepted from now on (0 = default), e.g. once a
 * peer has authenticated.  On the connection's loop only. */
void sy_conn_set_max_body(sy_conn_t *conn, size_t max_body);

/* Bytes queued but not yet written (for back-pressure decisions). */
size_t sy_conn_pending(sy_conn_t *conn);

/* OpenPMIx peers (docs/wire-protocol.md, "OpenPMIx protocol").  A
 * listener's connection may be told to detect them: its first header
 * decides, once, whether it carries our frames or OpenPMIx's (a 16-byte
 * header of int32 pindex, u32 tag, u32 nbytes, u32 padding in network
 * order; the connect message has pindex -1, tag UINT32_MAX and nbytes in
 * host order).  From then on headers are read and written in that form;
 * the flags of sy_conn_send have no place in OpenPMIx headers.  On the
 * loop, before the first frame arrives. */
void sy_conn_detect_openpmix(sy_conn_t *conn);
bool sy_conn_openpmix(const sy_conn_t *conn);
/* Queue bytes with no header at all (OpenPMIx's connect reply). */
pmix_status_t sy_conn_send_raw(sy_conn_t *conn, const void *bytes, size_t len);

/* Write/parse a header (used by the tests and by tools that speak the
 * protocol without a sy_conn_t). */
void sy_frame_header_encode(uint8_t out[SY_FRAME_HEADER_SIZE], uint32_t tag, uint16_t flags,
                            uint32_t len);

/* Parse a header: PMIX_ERR_UNPACK_FAILURE for a wrong magic or version.
 * For peers that exchange a frame with blocking I/O before handing the
 * socket to a connection (the client's handshake). */
pmix_status_t sy_frame_header_decode(const uint8_t in[SY_FRAME_HEADER_SIZE], uint32_t *tag,
                                     uint16_t *flags, uint32_t *len);

#endif
