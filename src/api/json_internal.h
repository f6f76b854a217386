/* json_internal.h — what the JSON mapping's files share: reading a field of
 * a protobuf-c message through its descriptor (storage, presence, names,
 * maps), the well-known types recognised by full name, base64 and the text
 * forms of Timestamp and Duration. The mapping itself is json_write.c
 * (message to JSON) and json_read.c (JSON to message). */
#ifndef WK_JSON_INTERNAL_H
#define WK_JSON_INTERNAL_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "worldkit/wk_api.h"

/* Nesting deeper than this is refused both ways, so that a hostile message
 * or document cannot exhaust the stack (Any inside Any inside ...). */
#define WK__JSON_MAX_DEPTH 100

/* The well-known types whose JSON form is not the generic one. */
typedef enum wk__wkt {
    WK__WKT_NONE,
    WK__WKT_TIMESTAMP, /* "1972-01-01T10:00:20.021Z" */
    WK__WKT_DURATION,  /* "1.5s" */
    WK__WKT_WRAPPER,   /* DoubleValue, ..., BytesValue: the bare value */
    WK__WKT_ANY,       /* {"@type": url, ...} */
} wk__wkt;

wk__wkt wk__json_wkt(const ProtobufCMessageDescriptor *d);

/* The address of a field's member in a message. */
static inline void *wk__json_member(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
    return (char *)m + f->offset;
}

/* The in-memory size of one element of a repeated field of type t. */
size_t wk__json_elem_size(ProtobufCType t);

/* Whether the field is present in m, with the rules protobuf-c packs by:
 * has_ flags, non-NULL pointers other than the default, the oneof case, a
 * non-zero count; fields without presence (proto3) when not zero. */
bool wk__json_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f);

/* Writes the field's JSON name (lowerCamelCase, protoc's json_name rule)
 * into out, which has room for strlen(name) + 1 bytes. */
void wk__json_name(const char *name, char *out);
/* Whether key names the field: its JSON name or its name in the .proto. */
bool wk__json_key_matches(const ProtobufCFieldDescriptor *f, const char *key);

/* Whether the field of message type d is a map<K, V>: protobuf-c keeps no
 * map_entry option, so this recognises the entry message protoc generates
 * (d's nested "<FieldName>Entry" with key = 1 and value = 2), repeated. */
bool wk__json_is_map(const ProtobufCMessageDescriptor *d, const ProtobufCFieldDescriptor *f);

/* Base64 (RFC 4648). Encoding writes the standard alphabet with padding;
 * the text is owned by the caller (free). Decoding accepts the standard and
 * the URL-safe alphabet, padded or not; *out is owned by the caller, NULL
 * for empty input. Both return 0, WK_NOMEM, or WK_PARSE for bad input. */
int wk__base64_encode(const uint8_t *data, size_t len, char **out);
int wk__base64_decode(const char *text, size_t len, uint8_t **out, size_t *out_len);

/* Timestamp and Duration in their JSON text, into buf of at least 40 bytes;
 * WK_RANGE for values outside the types' ranges. */
int wk__timestamp_format(int64_t seconds, int32_t nanos, char *buf);
int wk__timestamp_parse(const char *text, int64_t *seconds, int32_t *nanos);
int wk__duration_format(int64_t seconds, int32_t nanos, char *buf);
int wk__duration_parse(const char *text, int64_t *seconds, int32_t *nanos);

/* The type named by an Any's type URL (the part after the last '/'),
 * looked up with desc's find_type or, without one, wk_json_find_type. */
const ProtobufCMessageDescriptor *wk__json_any_type(const wk_json_desc *desc, const char *url);

/* The JSON path of the value being read or written, for error messages:
 * "spawnRequests[2].initialPose". Pushes return the length to pop back to;
 * a path too long for text is cut, never overrun. */
typedef struct wk__json_path {
    char text[160];
    size_t len;
} wk__json_path;

size_t wk__path_key(wk__json_path *p, const char *key);
size_t wk__path_index(wk__json_path *p, size_t i);
size_t wk__path_map_key(wk__json_path *p, const char *key);
void wk__path_pop(wk__json_path *p, size_t len);
/* Fails st with code and "<path>: <message>" (no prefix at the root). */
int wk__path_fail(const wk__json_path *p, wk_status *st, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
