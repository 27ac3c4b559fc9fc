/* The native codec (Switchyard's protocol) and the codec-independent entry
 * points of wire_codec.h.  Every field is one or two PMIx_Data_pack
 * records (buffer.h): ONE is a record of one element, ARRAY a PMIX_SIZE
 * count then, when it is not 0, one record of that many elements, RECORDS a
 * count then each record's fields in turn. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/pack.h"
#include "common/wire_codec.h"
#include "common/wire_msgs.h"

#include "common/wire_msgs.inc"

/* Bytes a record header takes (u16 type, u32 count). */
#define SY_WIRE_HDR 6u

const sy_wire_desc_t *sy_wire_desc(sy_wire_msg_id_t id)
{
    return id < SY_WMSG_COUNT ? &sy_wire_descs[id] : NULL;
}

static void *field_at(const void *msg, size_t offset)
{
    return (char *)msg + offset;
}

/* ---- native pack ---- */

static pmix_status_t pack_fields(pmix_data_buffer_t *b, const sy_wire_desc_t *d, const void *msg);

static pmix_status_t pack_field(pmix_data_buffer_t *b, const sy_wire_field_t *f, const void *msg)
{
    if (f->kind == SY_WIRE_ONE)
        return sy_pack(b, field_at(msg, f->offset), 1, f->type);
    const void *arr = *(void *const *)field_at(msg, f->offset);
    size_t n = arr != NULL ? *(const size_t *)field_at(msg, f->count_offset) : 0;
    if (n > INT32_MAX)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = sy_pack(b, &n, 1, PMIX_SIZE);
    if (rc != PMIX_SUCCESS || n == 0)
        return rc;
    if (f->kind == SY_WIRE_ARRAY)
        return sy_pack(b, arr, (int32_t)n, f->type);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++)
        rc = pack_fields(b, f->record, (const char *)arr + i * f->record->size);
    return rc;
}

static pmix_status_t pack_fields(pmix_data_buffer_t *b, const sy_wire_desc_t *d, const void *msg)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < d->nfields; i++)
        rc = pack_field(b, &d->fields[i], msg);
    return rc;
}

static pmix_status_t native_pack(pmix_data_buffer_t *b, const sy_wire_desc_t *d, const void *msg)
{
    if (d->nfields > 0 && msg == NULL)
        return PMIX_ERR_BAD_PARAM;
    return pack_fields(b, d, msg);
}

/* ---- native unpack ---- */

/* Fewest bytes one instance of d's fields can take on the wire. */
static size_t min_bytes(const sy_wire_desc_t *d)
{
    size_t total = 0;
    for (size_t i = 0; i < d->nfields; i++) {
        const sy_wire_field_t *f = &d->fields[i];
        total +=
            SY_WIRE_HDR + (f->kind == SY_WIRE_ONE ? sy_wire_min_size(f->type) : sizeof(uint64_t));
    }
    return total > 0 ? total : 1;
}

static pmix_status_t unpack_status(pmix_status_t rc)
{
    return rc == PMIX_SUCCESS || rc == PMIX_ERR_NOMEM ? rc : PMIX_ERR_UNPACK_FAILURE;
}

static pmix_status_t unpack_fields(pmix_data_buffer_t *b, const sy_wire_desc_t *d, void *msg);

/* One element: a record of any other count (0 included, which stores
 * nothing) is malformed. */
static pmix_status_t unpack_one(pmix_data_buffer_t *b, void *dst, pmix_data_type_t type)
{
    int32_t one = 1;
    pmix_status_t rc = sy_unpack(b, dst, &one, type);
    if (rc == PMIX_SUCCESS && one != 1)
        rc = PMIX_ERR_UNPACK_FAILURE;
    return unpack_status(rc);
}

/* A count of elements that take at least `each` bytes: one the rest of
 * the buffer cannot hold is a lie, refused before anything is allocated. */
static pmix_status_t unpack_count(pmix_data_buffer_t *b, size_t each, size_t *n)
{
    pmix_status_t rc = unpack_one(b, n, PMIX_SIZE);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (*n > INT32_MAX || each == 0 || *n > sy_buffer_remaining(b) / each)
        return PMIX_ERR_UNPACK_FAILURE;
    return PMIX_SUCCESS;
}

static pmix_status_t unpack_array(pmix_data_buffer_t *b, const sy_wire_field_t *f, void *msg)
{
    size_t n;
    pmix_status_t rc = unpack_count(b, sy_wire_min_size(f->type), &n);
    if (rc != PMIX_SUCCESS)
        return rc;
    /* strings come NULL-terminated (argv, key lists), even when empty */
    bool argv = f->type == PMIX_STRING;
    if (n == 0 && !argv)
        return PMIX_SUCCESS;
    void *arr = calloc(n + (argv ? 1 : 0), sy_type_size(f->type));
    if (arr == NULL)
        return PMIX_ERR_NOMEM;
    /* counted now: whatever a failure leaves is freed with the message */
    *(void **)field_at(msg, f->offset) = arr;
    *(size_t *)field_at(msg, f->count_offset) = n;
    if (n == 0)
        return PMIX_SUCCESS;
    int32_t cnt = (int32_t)n;
    rc = sy_unpack(b, arr, &cnt, f->type);
    if (rc == PMIX_SUCCESS && (size_t)cnt != n)
        rc = PMIX_ERR_UNPACK_FAILURE;
    return unpack_status(rc);
}

static pmix_status_t unpack_records(pmix_data_buffer_t *b, const sy_wire_field_t *f, void *msg)
{
    size_t n;
    pmix_status_t rc = unpack_count(b, min_bytes(f->record), &n);
    if (rc != PMIX_SUCCESS || n == 0)
        return rc;
    char *arr = calloc(n, f->record->size);
    if (arr == NULL)
        return PMIX_ERR_NOMEM;
    /* counted now, so that a failure half way frees what was read */
    *(void **)field_at(msg, f->offset) = arr;
    *(size_t *)field_at(msg, f->count_offset) = n;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++)
        rc = unpack_fields(b, f->record, arr + i * f->record->size);
    return rc;
}

static pmix_status_t unpack_fields(pmix_data_buffer_t *b, const sy_wire_desc_t *d, void *msg)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < d->nfields; i++) {
        const sy_wire_field_t *f = &d->fields[i];
        if (f->kind == SY_WIRE_ONE)
            rc = unpack_one(b, field_at(msg, f->offset), f->type);
        else if (f->kind == SY_WIRE_ARRAY)
            rc = unpack_array(b, f, msg);
        else
            rc = unpack_records(b, f, msg);
    }
    return rc;
}

static pmix_status_t native_unpack(pmix_data_buffer_t *b, const sy_wire_desc_t *d, void *msg)
{
    /* an error reply is its status alone */
    if (d->part == SY_WIRE_REPLY && sy_buffer_remaining(b) == 0)
        return PMIX_SUCCESS;
    return unpack_fields(b, d, msg);
}

/* ---- native heads: PMIX_UINT8 command or kind, PMIX_STATUS status ---- */

static pmix_status_t native_pack_head(pmix_data_buffer_t *b, sy_wire_part_t part, int32_t value)
{
    if (part == SY_WIRE_REPLY) {
        pmix_status_t status = value;
        return sy_pack(b, &status, 1, PMIX_STATUS);
    }
    if (value < 0 || value > UINT8_MAX || part == SY_WIRE_RECORD)
        return PMIX_ERR_BAD_PARAM;
    uint8_t code = (uint8_t)value;
    return sy_pack(b, &code, 1, PMIX_UINT8);
}

static pmix_status_t native_unpack_head(pmix_data_buffer_t *b, sy_wire_part_t part, int32_t *value)
{
    if (part == SY_WIRE_REPLY) {
        pmix_status_t status = PMIX_SUCCESS;
        pmix_status_t rc = unpack_one(b, &status, PMIX_STATUS);
        *value = status;
        return rc;
    }
    if (part == SY_WIRE_RECORD)
        return PMIX_ERR_BAD_PARAM;
    uint8_t code = 0;
    pmix_status_t rc = unpack_one(b, &code, PMIX_UINT8);
    *value = code;
    return rc;
}

const sy_wire_codec_t sy_wire_native = {
    .name = "switchyard",
    .pack = native_pack,
    .unpack = native_unpack,
    .pack_head = native_pack_head,
    .unpack_head = native_unpack_head,
};

/* ---- codec-independent ---- */

static void free_fields(const sy_wire_desc_t *d, void *msg)
{
    for (size_t i = 0; i < d->nfields; i++) {
        const sy_wire_field_t *f = &d->fields[i];
        if (f->kind == SY_WIRE_ONE) {
            sy_elem_destruct(field_at(msg, f->offset), f->type);
            continue;
        }
        void **arr = field_at(msg, f->offset);
        size_t *n = field_at(msg, f->count_offset);
        if (*arr != NULL && f->kind == SY_WIRE_ARRAY) {
            sy_array_free(*arr, *n, f->type);
        } else if (*arr != NULL) {
            for (size_t k = 0; k < *n; k++)
                free_fields(f->record, (char *)*arr + k * f->record->size);
            free(*arr);
        }
        *arr = NULL;
        *n = 0;
    }
}

void sy_wire_free(sy_wire_msg_id_t id, void *msg)
{
    const sy_wire_desc_t *d = sy_wire_desc(id);
    if (d == NULL || msg == NULL)
        return;
    free_fields(d, msg);
    memset(msg, 0, d->size);
}

pmix_status_t sy_wire_pack(const sy_wire_codec_t *c, pmix_data_buffer_t *b, sy_wire_msg_id_t id,
                           const void *msg)
{
    const sy_wire_desc_t *d = sy_wire_desc(id);
    if (c == NULL || b == NULL || d == NULL)
        return PMIX_ERR_BAD_PARAM;
    /* a failure leaves b as it was (sy_pack does so per record) */
    size_t used = b->bytes_used;
    pmix_status_t rc = c->pack(b, d, msg);
    if (rc != PMIX_SUCCESS && b->base_ptr != NULL) {
        b->bytes_used = used;
        b->pack_ptr = b->base_ptr + used;
        if (b->unpack_ptr > b->pack_ptr)
            b->unpack_ptr = b->pack_ptr;
    }
    return rc;
}

pmix_status_t sy_wire_pack_request(const sy_wire_codec_t *c, pmix_data_buffer_t *b,
                                   sy_wire_msg_id_t id, const void *msg)
{
    const sy_wire_desc_t *d = sy_wire_desc(id);
    if (b == NULL)
        return PMIX_ERR_BAD_PARAM;
    memset(b, 0, sizeof(*b));
    if (c == NULL || d == NULL || d->part != SY_WIRE_REQUEST)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = c->pack_head(b, SY_WIRE_REQUEST, d->code);
    if (rc == PMIX_SUCCESS)
        rc = c->pack(b, d, msg);
    if (rc != PMIX_SUCCESS)
        sy_buffer_destruct(b);
    return rc;
}

pmix_status_t sy_wire_pack_message(const sy_wire_codec_t *c, pmix_data_buffer_t *b,
                                   sy_wire_msg_id_t id, const void *msg)
{
    const sy_wire_desc_t *d = sy_wire_desc(id);
    if (b == NULL)
        return PMIX_ERR_BAD_PARAM;
    memset(b, 0, sizeof(*b));
    if (c == NULL || d == NULL || d->part != SY_WIRE_MESSAGE)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = c->pack_head(b, SY_WIRE_MESSAGE, d->code);
    if (rc == PMIX_SUCCESS)
        rc = c->pack(b, d, msg);
    if (rc != PMIX_SUCCESS)
        sy_buffer_destruct(b);
    return rc;
}

pmix_status_t sy_wire_pack_head(const sy_wire_codec_t *c, pmix_data_buffer_t *b,
                                sy_wire_part_t part, int32_t value)
{
    if (c == NULL || b == NULL)
        return PMIX_ERR_BAD_PARAM;
    return c->pack_head(b, part, value);
}

pmix_status_t sy_wire_unpack_head(const sy_wire_codec_t *c, pmix_data_buffer_t *b,
                                  sy_wire_part_t part, int32_t *value)
{
    if (c == NULL || b == NULL || value == NULL)
        return PMIX_ERR_BAD_PARAM;
    return c->unpack_head(b, part, value);
}

pmix_status_t sy_wire_unpack(const sy_wire_codec_t *c, pmix_data_buffer_t *b, sy_wire_msg_id_t id,
                             void *msg)
{
    const sy_wire_desc_t *d = sy_wire_desc(id);
    if (c == NULL || b == NULL || d == NULL || (msg == NULL && d->nfields > 0))
        return PMIX_ERR_BAD_PARAM;
    if (msg != NULL)
        memset(msg, 0, d->size);
    pmix_status_t rc = c->unpack(b, d, msg);
    if (rc != PMIX_SUCCESS && msg != NULL)
        sy_wire_free(id, msg);
    return rc;
}
