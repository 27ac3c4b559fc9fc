/*
 * libFuzzer target: the client direction of the OpenPMIx codec on
 * arbitrary bytes, i.e. what a hostile or broken OpenPMIx server can send
 * a client of ours.  Must never crash, leak or read out of bounds.
 *
 * Input: one selector byte, then the body.
 *   selector % 8 == 0  the job data of a REQ reply (sy_opx_jobinfo_parse)
 *   selector % 8 == 1  a node/proc map value (sy_opx_map_decode)
 *   selector % 8 == 2  an unsolicited message: its head, then an EVENT
 *   otherwise          a reply: its status, then the reply of the request
 *                      the selector picks among every message id
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/opx_client.h"
#include "common/wire_codec.h"
#include "common/wire_msgs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t sel = data[0];
    data++;
    size--;
    pmix_data_buffer_t b = {0};
    if (size > 0 && sy_buffer_set_copy(&b, data, size) != PMIX_SUCCESS)
        return 0;
    switch (sel % 8) {
    case 0: {
        pmix_info_t *info = NULL;
        size_t n = 0;
        if (sy_opx_jobinfo_parse(&b, "fuzz.job", &info, &n) == PMIX_SUCCESS)
            sy_array_free(info, n, PMIX_INFO);
        break;
    }
    case 1: {
        char *s = NULL;
        if (sy_opx_map_decode(data, size, &s) == PMIX_SUCCESS)
            free(s);
        break;
    }
    case 2: {
        int32_t kind = 0;
        if (sy_wire_unpack_head(&sy_wire_opx_client, &b, SY_WIRE_MESSAGE, &kind) == PMIX_SUCCESS) {
            sy_wire_event_msg_t m;
            if (sy_wire_unpack(&sy_wire_opx_client, &b, SY_WMSG_EVENT_MSG, &m) == PMIX_SUCCESS)
                sy_wire_free(SY_WMSG_EVENT_MSG, &m);
        }
        break;
    }
    default: {
        /* reply ids follow their request ids */
        sy_wire_msg_id_t id = (sy_wire_msg_id_t)(sel >> 3);
        const sy_wire_desc_t *d = sy_wire_desc(id);
        int32_t status = 0;
        if (d == NULL || d->part != SY_WIRE_REPLY ||
            sy_wire_unpack_head(&sy_wire_opx_client, &b, SY_WIRE_REPLY, &status) != PMIX_SUCCESS)
            break;
        void *m = d->size > 0 ? calloc(1, d->size) : NULL;
        if (d->size > 0 && m == NULL)
            break;
        if (sy_wire_unpack(&sy_wire_opx_client, &b, id, m) == PMIX_SUCCESS && m != NULL)
            sy_wire_free(id, m);
        free(m);
        break;
    }
    }
    sy_buffer_destruct(&b);
    return 0;
}
