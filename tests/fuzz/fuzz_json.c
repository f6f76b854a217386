/* fuzz_json.c — libFuzzer target for the JSON mapping (src/api/json.cc,
 * json_message.c). The first byte picks a message type and whether the rest is JSON text or
 * serialized protobuf. Whatever the input, the mapping must refuse it or
 * accept it without a crash or a leak; once accepted, its JSON must read back
 * and print the same (JSON is a fixed point after two passes: a third
 * changes nothing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intrinsic/world/proto/object_world_service.pb-c.h"
#include "json_test.pb-c.h"
#include "api/json_test_types.h"
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_api.h"

static void die(const char *what, const wk_status *st, const wk_buf *json)
{
    fprintf(stderr, "fuzz_json: %s: %s\n%.*s\n", what, st->message, json ? (int)json->len : 0,
            json ? (const char *)json->data : "");
    abort(); /* a fuzz target reports a finding by crashing */
}

/* Reads text, JSON the mapping wrote, and writes it again into out. */
static void pass(const ProtobufCMessageDescriptor *d, const wk_json_desc *desc, const wk_buf *text, wk_buf *out)
{
    wk_status st = {0};
    ProtobufCMessage *m = NULL;
    if (wk_json_to_message(d, (const char *)text->data, text->len, desc, &m, &st))
        die("written JSON does not read back", &st, text);
    if (wk_json_from_message(m, desc, out, &st))
        die("a message read back does not write", &st, text);
    protobuf_c_message_free_unpacked(m, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Append only: the corpus' first bytes index this list. */
    static const ProtobufCMessageDescriptor *const messages[] = {
        &wk_json_test__all__descriptor,
        &simulation_interfaces__spawn_entities_request__descriptor,
        &intrinsic_proto__world__list_worlds_response__descriptor,
        &intrinsic_proto__world__object__descriptor,
        &intrinsic_proto__world__get_transform_request__descriptor,
        &simulation_interfaces__get_entity_state_response__descriptor,
    };
    if (size == 0)
        return 0;
    const ProtobufCMessageDescriptor *d = messages[(data[0] & 0x7f) % (sizeof messages / sizeof messages[0])];
    bool bytes = data[0] & 0x80;
    const wk_json_desc *desc = WK_JSON_TEST_TYPES;
    wk_status st = {0};
    wk_buf first = {0}, second = {0}, third = {0}, wire = {0};
    ProtobufCMessage *m = NULL;
    if (bytes) {
        if (wk_json_from_bytes(d, data + 1, size - 1, desc, &first, &st))
            goto done; /* not a message, or one JSON cannot hold */
    } else {
        if (wk_json_to_message(d, (const char *)data + 1, size - 1, desc, &m, &st))
            goto done;
        if (wk_json_from_message(m, desc, &first, &st))
            die("a message read from JSON does not write", &st, NULL);
    }
    /* Two passes, not one: libprotobuf writes -0 as "-0", which its reader
     * takes for the integer 0. */
    pass(d, desc, &first, &second);
    pass(d, desc, &second, &third);
    if (second.len != third.len || memcmp(second.data, third.data, second.len))
        die("JSON changed on a third pass", &st, &third);
    if (wk_json_to_bytes(d, (const char *)third.data, third.len, desc, &wire, &st))
        die("written JSON does not serialize", &st, &third);
done:
    protobuf_c_message_free_unpacked(m, NULL);
    wk_buf_free(&first);
    wk_buf_free(&second);
    wk_buf_free(&third);
    wk_buf_free(&wire);
    return 0;
}
