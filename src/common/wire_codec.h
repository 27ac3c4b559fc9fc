/* The codec layer of the wire protocol: turning the message structs of
 * wire_msgs.h (generated from wire_msgs.txt) into bytes and back.
 *
 * Each message has a descriptor: its fields, their PMIx types, where they
 * sit in its struct.  A codec is a pair of functions that walk a
 * descriptor; the native one (sy_wire_native, wire_codec.c) writes
 * Switchyard's protocol (docs/wire-protocol.md).  Another protocol under
 * the same messages is another codec, chosen per connection: the code that
 * builds and reads the structs stays the same.
 *
 * Ownership: pack only reads the struct.  Unpack fills a struct the caller
 * zeroed; every string and array it stores is malloc'd, and the message's
 * free function (sy_wire_free, or the typed sy_wire_<msg>_free) releases
 * them all, also after an unpack that failed half way.  A caller may take
 * a field (copy the pointer, set the field to NULL and its count to 0)
 * before freeing the rest. */
#ifndef SWITCHYARD_COMMON_WIRE_CODEC_H
#define SWITCHYARD_COMMON_WIRE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

/* What part of a command a descriptor describes. */
typedef enum {
    SY_WIRE_REQUEST = 1, /* after the command byte */
    SY_WIRE_REPLY = 2,   /* after the status */
    SY_WIRE_MESSAGE = 3, /* unsolicited, after the kind byte */
    SY_WIRE_RECORD = 4,  /* an element of a counted array of records */
} sy_wire_part_t;

typedef enum {
    SY_WIRE_ONE = 1,     /* one element of `type` */
    SY_WIRE_ARRAY = 2,   /* SIZE n, then n elements of `type` in one record */
    SY_WIRE_RECORDS = 3, /* SIZE n, then n times the fields of `record` */
} sy_wire_field_kind_t;

typedef struct sy_wire_desc sy_wire_desc_t;

typedef struct {
    const char *name;
    sy_wire_field_kind_t kind;
    pmix_data_type_t type;        /* ONE, ARRAY */
    size_t offset;                /* the value (ONE), the array's pointer */
    size_t count_offset;          /* ARRAY, RECORDS: its size_t count */
    const sy_wire_desc_t *record; /* RECORDS */
} sy_wire_field_t;

struct sy_wire_desc {
    const char *name; /* "QUERY request", for logs */
    uint8_t code;     /* command or message kind (0 for a record) */
    sy_wire_part_t part;
    size_t size; /* of the struct (0: no field) */
    size_t nfields;
    const sy_wire_field_t *fields;
};

/* A codec: pack appends msg's fields to b; unpack reads them into msg
 * (zeroed by the caller).  Both see one descriptor.  pack_head and
 * unpack_head write and read what opens a body: a request's command
 * (SY_WIRE_REQUEST), a reply's status (SY_WIRE_REPLY), an unsolicited
 * message's kind (SY_WIRE_MESSAGE).  Client and server code reach the
 * bytes only through these four, so that a protocol with other heads and
 * encodings is one more codec. */
typedef struct sy_wire_codec {
    const char *name;
    pmix_status_t (*pack)(pmix_data_buffer_t *b, const sy_wire_desc_t *d, const void *msg);
    pmix_status_t (*unpack)(pmix_data_buffer_t *b, const sy_wire_desc_t *d, void *msg);
    pmix_status_t (*pack_head)(pmix_data_buffer_t *b, sy_wire_part_t part, int32_t value);
    pmix_status_t (*unpack_head)(pmix_data_buffer_t *b, sy_wire_part_t part, int32_t *value);
} sy_wire_codec_t;

/* Switchyard's own protocol. */
extern const sy_wire_codec_t sy_wire_native;
/* OpenPMIx 4.2.x's protocol (wire_codec_opx.c).  Its unpack_head gives an
 * OpenPMIx command that has no message of ours as SY_WIRE_OPX_UNMAPPED +
 * its OpenPMIx code (for the role to serve or refuse). */
extern const sy_wire_codec_t sy_wire_openpmix;
#define SY_WIRE_OPX_UNMAPPED 1000
/* An OpenPMIx IOF_PULL names the client's own id for the registration,
 * which output forwarded to it must carry: the codec hands it to the
 * server as a last directive of this key (a size_t), which the server
 * takes out before anyone else sees the directives. */
#define SY_WIRE_OPX_IOF_ID "sy.opx.iofid"
int32_t sy_wire_opx_cmd_from(uint8_t opx_cmd);

/* A message id (SY_WMSG_* of wire_msgs.h). */
typedef unsigned sy_wire_msg_id_t;

const sy_wire_desc_t *sy_wire_desc(sy_wire_msg_id_t id);

/* A request: (re)initialises b, then the command byte and the fields.  On
 * failure b is left empty. */
pmix_status_t sy_wire_pack_request(const sy_wire_codec_t *c, pmix_data_buffer_t *b,
                                   sy_wire_msg_id_t id, const void *msg);
/* The fields of a reply or an unsolicited message, appended to b (the
 * status or kind is the caller's). */
pmix_status_t sy_wire_pack(const sy_wire_codec_t *c, pmix_data_buffer_t *b, sy_wire_msg_id_t id,
                           const void *msg);
/* The head of a body alone: a request's command, a reply's status, a
 * message's kind (part), appended to b / read from b (PMIX_ERR_UNPACK_FAILURE
 * when b does not start with one). */
pmix_status_t sy_wire_pack_head(const sy_wire_codec_t *c, pmix_data_buffer_t *b,
                                sy_wire_part_t part, int32_t value);
pmix_status_t sy_wire_unpack_head(const sy_wire_codec_t *c, pmix_data_buffer_t *b,
                                  sy_wire_part_t part, int32_t *value);
/* An unsolicited message: (re)initialises b, then its kind and fields.
 * On failure b is left empty. */
pmix_status_t sy_wire_pack_message(const sy_wire_codec_t *c, pmix_data_buffer_t *b,
                                   sy_wire_msg_id_t id, const void *msg);
/* Zero msg, then read it from b; on failure msg is freed (and zeroed) and
 * the status says why: PMIX_ERR_UNPACK_FAILURE for a malformed or
 * truncated body (also a count the remaining bytes cannot hold),
 * PMIX_ERR_NOMEM.  A reply whose body stops after its status (an error
 * reply) reads as the empty message. */
pmix_status_t sy_wire_unpack(const sy_wire_codec_t *c, pmix_data_buffer_t *b, sy_wire_msg_id_t id,
                             void *msg);
/* Release what an unpacked msg holds, leaving it zeroed. */
void sy_wire_free(sy_wire_msg_id_t id, void *msg);

#endif
