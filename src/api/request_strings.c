/* request_strings.c — the check that a request's strings hold no NUL byte.
 *
 * protobuf-c hands a string field over as a C string, its length dropped:
 * a name "obj\0evil" reads as "obj", so a client could make the server act
 * on what it did not send (SpawnEntity created `obj`). The length survives
 * only in the wire bytes, so this walks them beside the message's
 * descriptors, into sub-messages, and looks for a NUL in each string. It
 * runs on requests protobuf-c has unpacked, so their framing is sound; it
 * checks bounds all the same. */
#include <stdio.h>
#include <string.h>

#include "api/api_internal.h"

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LENGTH = 2, WIRE_FIXED32 = 5 };

static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t byte = *(*p)++;
        *v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return true;
    }
    return false;
}

static bool clean(const ProtobufCMessageDescriptor *desc, const uint8_t *p, const uint8_t *end, char *why,
                  size_t cap);

/* The len bytes at p of a length-delimited field of desc: a string must hold
 * no NUL, a message is checked in turn, anything else passes. */
static bool clean_field(const ProtobufCMessageDescriptor *desc, uint64_t number, const uint8_t *p, size_t len,
                        char *why, size_t cap)
{
    const ProtobufCFieldDescriptor *f =
        number <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(desc, (unsigned)number) : NULL;
    if (f && f->type == PROTOBUF_C_TYPE_MESSAGE)
        return clean(f->descriptor, p, p + len, why, cap);
    const uint8_t *nul = f && f->type == PROTOBUF_C_TYPE_STRING ? memchr(p, 0, len) : NULL;
    if (nul)
        snprintf(why, cap, "%s.%s holds a NUL byte after '%.*s'", desc->name, f->name,
                 (int)(nul - p > 64 ? 64 : nul - p), (const char *)p);
    return !nul;
}

/* The fields of one message of type desc in [p, end). */
static bool clean(const ProtobufCMessageDescriptor *desc, const uint8_t *p, const uint8_t *end, char *why,
                  size_t cap)
{
    while (p < end) {
        uint64_t key, skip = 0, value;
        if (!read_varint(&p, end, &key))
            return false;
        switch (key & 7) {
        case WIRE_VARINT:
            if (!read_varint(&p, end, &value))
                return false;
            break;
        case WIRE_FIXED64:
            skip = 8;
            break;
        case WIRE_FIXED32:
            skip = 4;
            break;
        case WIRE_LENGTH:
            if (!read_varint(&p, end, &skip) || skip > (uint64_t)(end - p) ||
                !clean_field(desc, key >> 3, p, (size_t)skip, why, cap))
                return false;
            break;
        default:
            /* Groups: protobuf-c refuses them before this runs. */
            return false;
        }
        if (skip > (uint64_t)(end - p))
            return false;
        p += skip;
    }
    return true;
}

bool wk__request_strings_clean(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len, char *why,
                               size_t cap)
{
    why[0] = '\0';
    return clean(desc, data, data + len, why, cap);
}
