/* json_util.c — the pieces of the JSON mapping that read descriptors rather
 * than JSON: field storage and presence as protobuf-c lays them out, JSON
 * names, map detection, the well-known types, and base64 (none of
 * worldkit's libraries offers one that decodes). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

wk__wkt wk__json_wkt(const ProtobufCMessageDescriptor *d)
{
    static const struct {
        const char *name;
        wk__wkt kind;
    } table[] = {
        {"google.protobuf.Timestamp", WK__WKT_TIMESTAMP},  {"google.protobuf.Duration", WK__WKT_DURATION},
        {"google.protobuf.Any", WK__WKT_ANY},              {"google.protobuf.DoubleValue", WK__WKT_WRAPPER},
        {"google.protobuf.FloatValue", WK__WKT_WRAPPER},   {"google.protobuf.Int64Value", WK__WKT_WRAPPER},
        {"google.protobuf.UInt64Value", WK__WKT_WRAPPER},  {"google.protobuf.Int32Value", WK__WKT_WRAPPER},
        {"google.protobuf.UInt32Value", WK__WKT_WRAPPER},  {"google.protobuf.BoolValue", WK__WKT_WRAPPER},
        {"google.protobuf.StringValue", WK__WKT_WRAPPER},  {"google.protobuf.BytesValue", WK__WKT_WRAPPER},
    };
    if (strncmp(d->name, "google.protobuf.", 16) != 0)
        return WK__WKT_NONE;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(d->name, table[i].name))
            return table[i].kind;
    return WK__WKT_NONE;
}

size_t wk__json_elem_size(ProtobufCType t)
{
    switch (t) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
    case PROTOBUF_C_TYPE_ENUM:
        return 4;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 8;
    case PROTOBUF_C_TYPE_BOOL:
        return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    }
    return 0;
}

/* Whether a field without presence (proto3) holds its zero value. */
static bool is_zero(const ProtobufCFieldDescriptor *f, const void *member)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_STRING: {
        const char *s = *(char *const *)member;
        return !s || !s[0];
    }
    case PROTOBUF_C_TYPE_MESSAGE:
        return *(void *const *)member == NULL;
    case PROTOBUF_C_TYPE_BYTES:
        return ((const ProtobufCBinaryData *)member)->len == 0;
    default: {
        /* Bit patterns, so that -0.0 counts as set, as on the wire. */
        static const uint8_t zero[8];
        return memcmp(member, zero, wk__json_elem_size(f->type)) == 0;
    }
    }
}

bool wk__json_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
    const void *member = wk__json_member(m, f);
    const char *q = (const char *)m + f->quantifier_offset;
    bool pointer = f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_MESSAGE;
    if (f->label == PROTOBUF_C_LABEL_REPEATED)
        return *(const size_t *)q > 0;
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        if (*(const uint32_t *)q != f->id)
            return false;
        return !pointer || (*(void *const *)member && *(void *const *)member != f->default_value);
    }
    if (f->label == PROTOBUF_C_LABEL_REQUIRED)
        return true;
    if (f->label == PROTOBUF_C_LABEL_NONE)
        return !is_zero(f, member);
    if (pointer)
        return *(void *const *)member && *(void *const *)member != f->default_value;
    return *(const protobuf_c_boolean *)q;
}

/* The next character of a field name in camelCase, protoc's way: '_' is
 * dropped and the letter after it upper-cased; '\0' at the end. */
static char camel_next(const char **n, bool *upper)
{
    while (**n == '_') {
        *upper = true;
        (*n)++;
    }
    char c = **n;
    if (!c)
        return '\0';
    (*n)++;
    if (*upper && c >= 'a' && c <= 'z')
        c = (char)(c - 'a' + 'A');
    *upper = false;
    return c;
}

void wk__json_name(const char *name, char *out)
{
    bool upper = false;
    while ((*out++ = camel_next(&name, &upper)))
        ;
}

bool wk__json_key_matches(const ProtobufCFieldDescriptor *f, const char *key)
{
    if (!strcmp(f->name, key))
        return true;
    /* The JSON name, compared as it is made. */
    bool upper = false;
    const char *n = f->name;
    char c;
    do {
        c = camel_next(&n, &upper);
        if (*key++ != c)
            return false;
    } while (c);
    return true;
}

bool wk__json_is_map(const ProtobufCMessageDescriptor *d, const ProtobufCFieldDescriptor *f)
{
    if (f->label != PROTOBUF_C_LABEL_REPEATED || f->type != PROTOBUF_C_TYPE_MESSAGE)
        return false;
    const ProtobufCMessageDescriptor *e = f->descriptor;
    if (e->n_fields != 2 || e->fields[0].id != 1 || e->fields[1].id != 2 || strcmp(e->fields[0].name, "key") ||
        strcmp(e->fields[1].name, "value"))
        return false;
    /* protoc names the entry <FieldName>Entry and nests it in d. */
    size_t dn = strlen(d->name);
    if (strncmp(e->name, d->name, dn) || e->name[dn] != '.' || strcmp(e->name + dn + 1, e->short_name))
        return false;
    const char *s = e->short_name, *n = f->name;
    bool upper = true;
    char c;
    while ((c = camel_next(&n, &upper)))
        if (*s++ != c)
            return false;
    return !strcmp(s, "Entry");
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int wk__base64_encode(const uint8_t *data, size_t len, char **out)
{
    char *t = malloc((len + 2) / 3 * 4 + 1);
    if (!(*out = t))
        return WK_NOMEM;
    size_t i = 0;
    for (; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 | data[i + 2];
        *t++ = b64[v >> 18];
        *t++ = b64[v >> 12 & 63];
        *t++ = b64[v >> 6 & 63];
        *t++ = b64[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < len ? (uint32_t)data[i + 1] << 8 : 0);
        *t++ = b64[v >> 18];
        *t++ = b64[v >> 12 & 63];
        *t++ = i + 1 < len ? b64[v >> 6 & 63] : '=';
        *t++ = '=';
    }
    *t = '\0';
    return WK_OK;
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

int wk__base64_decode(const char *text, size_t len, uint8_t **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    /* Padding is optional, but when present it completes the last quad. */
    size_t pad = 0;
    while (len > 0 && text[len - 1] == '=' && pad < 2) {
        len--;
        pad++;
    }
    if (len % 4 == 1 || (pad && (len + pad) % 4))
        return WK_PARSE;
    if (len == 0)
        return WK_OK;
    uint8_t *d = malloc(len / 4 * 3 + 3);
    if (!d)
        return WK_NOMEM;
    size_t n = 0;
    uint32_t acc = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64_value(text[i]);
        if (v < 0) {
            free(d);
            return WK_PARSE;
        }
        acc = acc << 6 | (uint32_t)v;
        if (i % 4 == 3) {
            d[n++] = (uint8_t)(acc >> 16);
            d[n++] = (uint8_t)(acc >> 8);
            d[n++] = (uint8_t)acc;
            acc = 0;
        }
    }
    if (len % 4 == 2) {
        d[n++] = (uint8_t)(acc >> 4);
    } else if (len % 4 == 3) {
        d[n++] = (uint8_t)(acc >> 10);
        d[n++] = (uint8_t)(acc >> 2);
    }
    *out = d;
    *out_len = n;
    return WK_OK;
}

const ProtobufCMessageDescriptor *wk__json_any_type(const wk_json_desc *desc, const char *url)
{
    const char *slash = strrchr(url, '/');
    const char *name = slash ? slash + 1 : url;
    if (desc && desc->find_type)
        return desc->find_type(name, desc->find_type_ctx);
    return wk_json_find_type(name, NULL);
}

static size_t path_append(wk__json_path *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static size_t path_append(wk__json_path *p, const char *fmt, ...)
{
    size_t old = p->len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(p->text + p->len, sizeof p->text - p->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        p->len = p->len + (size_t)n < sizeof p->text ? p->len + (size_t)n : sizeof p->text - 1;
    return old;
}

size_t wk__path_key(wk__json_path *p, const char *key)
{
    return path_append(p, p->len ? ".%s" : "%s", key);
}

size_t wk__path_index(wk__json_path *p, size_t i)
{
    return path_append(p, "[%zu]", i);
}

size_t wk__path_map_key(wk__json_path *p, const char *key)
{
    return path_append(p, "[\"%s\"]", key);
}

void wk__path_pop(wk__json_path *p, size_t len)
{
    p->len = len;
    p->text[len] = '\0';
}

int wk__path_fail(const wk__json_path *p, wk_status *st, int code, const char *fmt, ...)
{
    char what[WK_STATUS_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (p->len)
        return wk_fail(st, code, "%s: %s", p->text, what);
    return wk_fail(st, code, "%s", what);
}
