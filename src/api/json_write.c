/* json_write.c — a protobuf-c message to proto3 JSON text, driven by its
 * descriptor: a jansson tree is built field by field and dumped once.
 *
 * jansson prints every real with one precision per dump; the writer tracks
 * the fewest significant digits (15 to 17) that give each double back
 * exactly and dumps with the largest, so that 0.1 prints as 0.1 unless some
 * other value of the message needs 17 digits. Integral doubles print as
 * integers. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

typedef struct writer {
    const wk_json_desc *desc;
    wk_status *st;
    wk__json_path path;
    int code;      /* the first failure */
    int precision; /* digits the doubles written so far need */
    int depth;
} writer;

static json_t *write_message(writer *w, const ProtobufCMessage *m);

static json_t *fail(writer *w, int code, const char *what)
{
    if (!w->code)
        w->code = wk__path_fail(&w->path, w->st, code, "%s", what);
    return NULL;
}

/* A new jansson value, or the out-of-memory failure. */
static json_t *made(writer *w, json_t *j)
{
    return j ? j : fail(w, WK_NOMEM, "out of memory");
}

static json_t *write_double(writer *w, double v)
{
    if (isnan(v))
        return made(w, json_string("NaN"));
    if (isinf(v))
        return made(w, json_string(v > 0 ? "Infinity" : "-Infinity"));
    if (v == floor(v) && fabs(v) < 9007199254740992.0 && !(v == 0 && signbit(v)))
        return made(w, json_integer((json_int_t)v));
    int p = 15;
    for (char buf[40]; p < 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (p > w->precision)
        w->precision = p;
    return made(w, json_real(v));
}

/* A float as the double of its shortest decimal form, so that 0.1f prints
 * as 0.1 and reads back as the same float. */
static json_t *write_float(writer *w, float f)
{
    double d = f;
    if (isfinite(f))
        for (int p = 6; p <= 9; p++) {
            char buf[40];
            snprintf(buf, sizeof buf, "%.*g", p, (double)f);
            double back = strtod(buf, NULL);
            if ((float)back == f) {
                d = back;
                break;
            }
        }
    return write_double(w, d);
}

static json_t *write_string(writer *w, const char *s)
{
    json_t *j = json_string(s ? s : "");
    return j ? j : fail(w, WK_INVALID, "string is not valid UTF-8");
}

static json_t *write_bytes(writer *w, const ProtobufCBinaryData *b)
{
    char *text;
    if (wk__base64_encode(b->data, b->len, &text))
        return fail(w, WK_NOMEM, "out of memory");
    json_t *j = made(w, json_string(text));
    free(text);
    return j;
}

static json_t *write_enum(writer *w, const ProtobufCFieldDescriptor *f, int32_t v)
{
    const ProtobufCEnumValue *e = protobuf_c_enum_descriptor_get_value(f->descriptor, v);
    return made(w, e ? json_string(e->name) : json_integer(v));
}

/* One value of field f (one element, for a repeated field) at v. */
static json_t *write_value(writer *w, const ProtobufCFieldDescriptor *f, const void *v)
{
    char num[32];
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
        return made(w, json_integer(*(const int32_t *)v));
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
        return made(w, json_integer(*(const uint32_t *)v));
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
        snprintf(num, sizeof num, "%lld", (long long)*(const int64_t *)v);
        return made(w, json_string(num));
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        snprintf(num, sizeof num, "%llu", (unsigned long long)*(const uint64_t *)v);
        return made(w, json_string(num));
    case PROTOBUF_C_TYPE_FLOAT:
        return write_float(w, *(const float *)v);
    case PROTOBUF_C_TYPE_DOUBLE:
        return write_double(w, *(const double *)v);
    case PROTOBUF_C_TYPE_BOOL:
        return made(w, json_boolean(*(const protobuf_c_boolean *)v));
    case PROTOBUF_C_TYPE_ENUM:
        return write_enum(w, f, *(const int32_t *)v);
    case PROTOBUF_C_TYPE_STRING:
        return write_string(w, *(char *const *)v);
    case PROTOBUF_C_TYPE_BYTES:
        return write_bytes(w, v);
    case PROTOBUF_C_TYPE_MESSAGE: {
        const ProtobufCMessage *sub = *(ProtobufCMessage *const *)v;
        /* A required or map-value message left NULL is the empty message. */
        return sub ? write_message(w, sub) : made(w, json_object());
    }
    }
    return fail(w, WK_INVALID, "unknown field type");
}

/* Adds value under key, taking value; false (failure recorded) if not. */
static bool put(writer *w, json_t *obj, const char *key, json_t *value)
{
    if (!value)
        return false;
    if (json_object_set_new(obj, key, value)) {
        fail(w, WK_INVALID, "key is not valid UTF-8");
        return false;
    }
    return true;
}

/* A map key in its JSON form: the key field's value as text. */
static bool map_key(const ProtobufCFieldDescriptor *k, const void *v, char *buf, size_t cap, const char **key)
{
    *key = buf;
    switch (k->type) {
    case PROTOBUF_C_TYPE_STRING:
        *key = *(char *const *)v ? *(char *const *)v : "";
        return true;
    case PROTOBUF_C_TYPE_BOOL:
        *key = *(const protobuf_c_boolean *)v ? "true" : "false";
        return true;
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
        snprintf(buf, cap, "%d", (int)*(const int32_t *)v);
        return true;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
        snprintf(buf, cap, "%u", (unsigned)*(const uint32_t *)v);
        return true;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
        snprintf(buf, cap, "%lld", (long long)*(const int64_t *)v);
        return true;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)v);
        return true;
    default:
        return false;
    }
}

static json_t *write_map(writer *w, const ProtobufCFieldDescriptor *f, ProtobufCMessage *const *entries, size_t n)
{
    json_t *obj = made(w, json_object());
    const ProtobufCMessageDescriptor *e = f->descriptor;
    for (size_t i = 0; obj && i < n; i++) {
        if (!entries[i])
            continue;
        char buf[32];
        const char *key;
        if (!map_key(&e->fields[0], wk__json_member(entries[i], &e->fields[0]), buf, sizeof buf, &key)) {
            fail(w, WK_INVALID, "map key of a type JSON cannot hold");
            break;
        }
        size_t mark = wk__path_map_key(&w->path, key);
        bool ok = put(w, obj, key, write_value(w, &e->fields[1], wk__json_member(entries[i], &e->fields[1])));
        wk__path_pop(&w->path, mark);
        if (!ok)
            break;
    }
    if (w->code) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

static json_t *write_field(writer *w, const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
    const void *member = wk__json_member(m, f);
    if (f->label != PROTOBUF_C_LABEL_REPEATED)
        return write_value(w, f, member);
    size_t n = *(const size_t *)((const char *)m + f->quantifier_offset);
    const char *items = *(char *const *)member;
    if (wk__json_is_map(m->descriptor, f))
        return write_map(w, f, (ProtobufCMessage *const *)items, n);
    json_t *arr = made(w, json_array());
    size_t size = wk__json_elem_size(f->type);
    for (size_t i = 0; arr && i < n; i++) {
        size_t mark = wk__path_index(&w->path, i);
        json_t *v = write_value(w, f, items + i * size);
        wk__path_pop(&w->path, mark);
        if (!v || json_array_append_new(arr, v)) {
            json_decref(arr);
            return v ? fail(w, WK_NOMEM, "out of memory") : NULL;
        }
    }
    return arr;
}

/* The int64 or int32 field of that name, 0 when there is none. */
static int64_t int_field(const ProtobufCMessage *m, const char *name)
{
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(m->descriptor, name);
    if (!f || f->label == PROTOBUF_C_LABEL_REPEATED)
        return 0;
    if (f->type == PROTOBUF_C_TYPE_INT64)
        return *(const int64_t *)wk__json_member(m, f);
    if (f->type == PROTOBUF_C_TYPE_INT32)
        return *(const int32_t *)wk__json_member(m, f);
    return 0;
}

static json_t *write_time(writer *w, const ProtobufCMessage *m, wk__wkt kind)
{
    char buf[64];
    int64_t s = int_field(m, "seconds");
    int64_t n = int_field(m, "nanos");
    int rc = kind == WK__WKT_TIMESTAMP ? wk__timestamp_format(s, (int32_t)n, buf)
                                       : wk__duration_format(s, (int32_t)n, buf);
    if (rc)
        return fail(w, WK_INVALID, kind == WK__WKT_TIMESTAMP ? "Timestamp out of range" : "Duration out of range");
    return made(w, json_string(buf));
}

/* {"@type": url, fields of the message...}; {"@type": url, "value": X}
 * when the message is itself a well-known type with a special form; and
 * {"@type": url, "value": base64} when the type is unknown. */
static json_t *write_any(writer *w, const ProtobufCMessage *m)
{
    const ProtobufCFieldDescriptor *uf = protobuf_c_message_descriptor_get_field_by_name(m->descriptor, "type_url");
    const ProtobufCFieldDescriptor *vf = protobuf_c_message_descriptor_get_field_by_name(m->descriptor, "value");
    if (!uf || !vf || uf->type != PROTOBUF_C_TYPE_STRING || vf->type != PROTOBUF_C_TYPE_BYTES)
        return fail(w, WK_INVALID, "google.protobuf.Any without type_url and value");
    const char *url = *(char *const *)wk__json_member(m, uf);
    const ProtobufCBinaryData *value = wk__json_member(m, vf);
    json_t *obj = made(w, json_object());
    if (!obj || ((!url || !url[0]) && value->len == 0))
        return obj;
    if (!put(w, obj, "@type", write_string(w, url)))
        goto fail_free_obj;
    const ProtobufCMessageDescriptor *d = wk__json_any_type(w->desc, url);
    if (!d) {
        if (!put(w, obj, "value", write_bytes(w, value)))
            goto fail_free_obj;
        return obj;
    }
    ProtobufCMessage *sub = protobuf_c_message_unpack(d, NULL, value->len, value->data);
    if (!sub) {
        fail(w, WK_INVALID, "the Any's value does not parse as its type");
        goto fail_free_obj;
    }
    json_t *body = write_message(w, sub);
    protobuf_c_message_free_unpacked(sub, NULL);
    if (!body)
        goto fail_free_obj;
    if (!json_is_object(body) || wk__json_wkt(d) != WK__WKT_NONE) {
        if (!put(w, obj, "value", body))
            goto fail_free_obj;
    } else {
        int rc = json_object_update(obj, body);
        json_decref(body);
        if (rc) {
            fail(w, WK_NOMEM, "out of memory");
            goto fail_free_obj;
        }
    }
    return obj;

fail_free_obj:
    json_decref(obj);
    return NULL;
}

static json_t *write_message(writer *w, const ProtobufCMessage *m)
{
    if (w->depth >= WK__JSON_MAX_DEPTH)
        return fail(w, WK_INVALID, "messages nested too deep");
    w->depth++;
    json_t *out = NULL;
    const ProtobufCMessageDescriptor *d = m->descriptor;
    wk__wkt kind = wk__json_wkt(d);
    const ProtobufCFieldDescriptor *value = protobuf_c_message_descriptor_get_field_by_name(d, "value");
    if (kind == WK__WKT_WRAPPER && (!value || value->label == PROTOBUF_C_LABEL_REPEATED))
        kind = WK__WKT_NONE; /* not the wrapper we know: its generic form */
    switch (kind) {
    case WK__WKT_TIMESTAMP:
    case WK__WKT_DURATION:
        out = write_time(w, m, kind);
        break;
    case WK__WKT_ANY:
        out = write_any(w, m);
        break;
    case WK__WKT_WRAPPER:
        out = write_value(w, value, wk__json_member(m, value));
        break;
    case WK__WKT_NONE:
        if (!(out = made(w, json_object())))
            break;
        for (unsigned i = 0; i < d->n_fields; i++) {
            const ProtobufCFieldDescriptor *f = &d->fields[i];
            if (!wk__json_present(m, f))
                continue;
            char small[64], *name = strlen(f->name) < sizeof small ? small : malloc(strlen(f->name) + 1);
            if (!name) {
                fail(w, WK_NOMEM, "out of memory");
                break;
            }
            wk__json_name(f->name, name);
            size_t mark = wk__path_key(&w->path, name);
            bool ok = put(w, out, name, write_field(w, m, f));
            wk__path_pop(&w->path, mark);
            if (name != small)
                free(name);
            if (!ok)
                break;
        }
        if (w->code) {
            json_decref(out);
            out = NULL;
        }
        break;
    }
    w->depth--;
    return out;
}

static int append(const char *chunk, size_t size, void *data)
{
    return wk_buf_append(data, chunk, size) ? -1 : 0;
}

int wk_json_from_message(const ProtobufCMessage *m, const wk_json_desc *desc, wk_buf *out, wk_status *st)
{
    writer w = {.desc = desc, .st = st, .precision = 15};
    json_t *root = write_message(&w, m);
    if (!root)
        return w.code;
    int indent = desc && desc->indent > 0 ? desc->indent : 0;
    size_t flags = JSON_ENCODE_ANY | JSON_REAL_PRECISION(w.precision) |
                   (indent ? JSON_INDENT(indent > 31 ? 31 : indent) : JSON_COMPACT);
    size_t len = out->len;
    int rc = json_dump_callback(root, append, out, flags) || wk_buf_reserve(out, 1) ? WK_NOMEM : WK_OK;
    json_decref(root);
    if (rc) {
        out->len = len;
        return wk_fail(st, rc, "out of memory");
    }
    out->data[out->len] = '\0';
    return WK_OK;
}

int wk_json_from_bytes(const ProtobufCMessageDescriptor *d, const uint8_t *bytes, size_t len,
                       const wk_json_desc *desc, wk_buf *out, wk_status *st)
{
    ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, len, bytes);
    if (!m)
        return wk_fail(st, WK_PARSE, "the bytes are not a serialized %s", d->name);
    int rc = wk_json_from_message(m, desc, out, st);
    protobuf_c_message_free_unpacked(m, NULL);
    return rc;
}
