/* json_message.c — the JSON mapping on protobuf-c's unpacked messages:
 * wk_json_to_message and wk_json_from_message pass through the serialized
 * bytes that json.cc converts with libprotobuf. */
#include <protobuf-c/protobuf-c.h>

#include "api/api_internal.h"
#include "worldkit/wk_api.h"

int wk_json_to_message(const ProtobufCMessageDescriptor *d, const char *json, size_t len, const wk_json_desc *desc,
                       ProtobufCMessage **out, wk_status *st)
{
    *out = NULL;
    wk_buf bytes = {0};
    int rc = wk_json_to_bytes(d, json, len, desc, &bytes, st);
    if (rc)
        goto free_bytes;
    ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, bytes.len, bytes.data);
    if (!m) {
        /* The bytes are libprotobuf's serialization of d's own type. */
        rc = wk_fail(st, WK_NOMEM, "%s: protobuf-c could not unpack the message (out of memory?)", d->name);
        goto free_bytes;
    }
    /* libprotobuf keeps a "\u0000" in a string, which the C string protobuf-c
     * hands over would cut short; an empty message has no string. */
    char why[WK_STATUS_MSG_MAX];
    if (bytes.len && !wk__request_strings_clean(d, bytes.data, bytes.len, why, sizeof why)) {
        protobuf_c_message_free_unpacked(m, NULL);
        rc = wk_fail(st, WK_INVALID, "%s", why);
        goto free_bytes;
    }
    *out = m;
free_bytes:
    wk_buf_free(&bytes);
    return rc;
}

int wk_json_from_message(const ProtobufCMessage *m, const wk_json_desc *desc, wk_buf *out, wk_status *st)
{
    wk_buf bytes = {0};
    if (wk_buf_reserve(&bytes, protobuf_c_message_get_packed_size(m)))
        return wk_fail(st, WK_NOMEM, "%s: no memory to serialize the message", m->descriptor->name);
    bytes.len = protobuf_c_message_pack(m, bytes.data);
    int rc = wk_json_from_bytes(m->descriptor, bytes.data, bytes.len, desc, out, st);
    wk_buf_free(&bytes);
    return rc;
}
