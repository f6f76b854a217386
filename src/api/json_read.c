/* json_read.c — proto3 JSON text to a protobuf-c message, driven by its
 * descriptor. jansson parses the text; the reader walks the tree and fills
 * a message allocated the way protobuf-c's unpack allocates one (the system
 * allocator, every string, array and submessage owned by the message), so
 * protobuf_c_message_free_unpacked frees it, also half-filled after an
 * error: a field is marked present before its value is read, and arrays are
 * zeroed, which free_unpacked takes as empty elements. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

typedef struct reader {
    const wk_json_desc *desc;
    wk_status *st;
    wk__json_path path;
    int depth;
} reader;

static int read_message(reader *r, const json_t *j, ProtobufCMessage *m, bool any_body);

static int fail(reader *r, int code, const char *what)
{
    return wk__path_fail(&r->path, r->st, code, "%s", what);
}

static ProtobufCMessage *new_message(const ProtobufCMessageDescriptor *d)
{
    ProtobufCMessage *m = calloc(1, d->sizeof_message);
    if (m)
        protobuf_c_message_init(d, m);
    return m;
}

/* Marks field f of m present: its has_ flag or its oneof's case. */
static void mark_present(ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
    char *q = (char *)m + f->quantifier_offset;
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
        *(uint32_t *)q = f->id;
    else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->type != PROTOBUF_C_TYPE_STRING &&
             f->type != PROTOBUF_C_TYPE_MESSAGE)
        *(protobuf_c_boolean *)q = 1;
}

/* An integer from a JSON integer, an integral real or a decimal string.
 * Signed values land in *s, unsigned ones in *u; NULL or the problem. */
static const char *integer(const json_t *j, bool is_unsigned, int64_t *s, uint64_t *u)
{
    if (json_is_integer(j)) {
        json_int_t v = json_integer_value(j);
        if (is_unsigned && v < 0)
            return "out of range";
        *s = v;
        *u = (uint64_t)v;
        return NULL;
    }
    if (json_is_real(j)) {
        double d = json_real_value(j);
        if (d != floor(d))
            return "expected an integer";
        /* 2^64 and 2^63 are exact doubles; the ranges end just below. */
        if (is_unsigned ? d < 0 || d >= 0x1p64 : d < -0x1p63 || d >= 0x1p63)
            return "out of range";
        if (is_unsigned)
            *u = (uint64_t)d;
        else
            *s = (int64_t)d;
        return NULL;
    }
    if (!json_is_string(j))
        return "expected an integer";
    const char *t = json_string_value(j);
    /* strtoll would skip spaces and take "+1" and hex-free junk; the
     * mapping wants a plain decimal. */
    if (!(t[0] >= '0' && t[0] <= '9') && !(t[0] == '-' && !is_unsigned && t[1] >= '0' && t[1] <= '9'))
        return "expected an integer";
    char *end;
    errno = 0;
    if (is_unsigned)
        *u = strtoull(t, &end, 10);
    else
        *s = strtoll(t, &end, 10);
    if (*end)
        return "expected an integer";
    return errno == ERANGE ? "out of range" : NULL;
}

/* A double from a number, "NaN", "Infinity", "-Infinity" or a number in a
 * string. */
static const char *number(const json_t *j, double *out)
{
    if (json_is_number(j)) {
        *out = json_number_value(j);
        return NULL;
    }
    if (!json_is_string(j))
        return "expected a number";
    const char *t = json_string_value(j);
    if (!strcmp(t, "NaN"))
        *out = NAN;
    else if (!strcmp(t, "Infinity"))
        *out = INFINITY;
    else if (!strcmp(t, "-Infinity"))
        *out = -INFINITY;
    else {
        char *end;
        if (!((t[0] >= '0' && t[0] <= '9') || (t[0] == '-' && t[1] >= '0' && t[1] <= '9')))
            return "expected a number";
        errno = 0;
        *out = strtod(t, &end);
        if (*end)
            return "expected a number";
        if (errno == ERANGE && isinf(*out))
            return "out of range";
    }
    return NULL;
}

static int read_enum(reader *r, const ProtobufCFieldDescriptor *f, const json_t *j, int32_t *out)
{
    const ProtobufCEnumDescriptor *e = f->descriptor;
    if (json_is_string(j)) {
        const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value_by_name(e, json_string_value(j));
        if (!v)
            return wk__path_fail(&r->path, r->st, WK_INVALID, "\"%s\" is no value of %s", json_string_value(j),
                                 e->name);
        *out = v->value;
        return WK_OK;
    }
    if (!json_is_integer(j))
        return fail(r, WK_INVALID, "expected an enum value name or number");
    json_int_t v = json_integer_value(j);
    if (v < INT32_MIN || v > INT32_MAX)
        return fail(r, WK_INVALID, "out of range");
    *out = (int32_t)v;
    return WK_OK;
}

static int read_string(reader *r, const json_t *j, char **out)
{
    if (!json_is_string(j))
        return fail(r, WK_INVALID, "expected a string");
    if (!(*out = strdup(json_string_value(j))))
        return fail(r, WK_NOMEM, "out of memory");
    return WK_OK;
}

static int read_bytes(reader *r, const json_t *j, ProtobufCBinaryData *out)
{
    if (!json_is_string(j))
        return fail(r, WK_INVALID, "expected a base64 string");
    int rc = wk__base64_decode(json_string_value(j), json_string_length(j), &out->data, &out->len);
    if (rc)
        return rc == WK_NOMEM ? fail(r, rc, "out of memory") : fail(r, WK_INVALID, "not valid base64");
    return WK_OK;
}

static int read_submessage(reader *r, const ProtobufCFieldDescriptor *f, const json_t *j, ProtobufCMessage **slot)
{
    if (!(*slot = new_message(f->descriptor)))
        return fail(r, WK_NOMEM, "out of memory");
    return read_message(r, j, *slot, false);
}

/* One value of field f (one element, for a repeated field) into slot. */
static int read_value(reader *r, const ProtobufCFieldDescriptor *f, const json_t *j, void *slot)
{
    int64_t s = 0;
    uint64_t u = 0;
    double d;
    const char *why;
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
        if ((why = integer(j, false, &s, &u)) || ((s < INT32_MIN || s > INT32_MAX) && (why = "out of range")))
            return fail(r, WK_INVALID, why);
        *(int32_t *)slot = (int32_t)s;
        return WK_OK;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
        if ((why = integer(j, true, &s, &u)) || (u > UINT32_MAX && (why = "out of range")))
            return fail(r, WK_INVALID, why);
        *(uint32_t *)slot = (uint32_t)u;
        return WK_OK;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
        if ((why = integer(j, false, &s, &u)))
            return fail(r, WK_INVALID, why);
        *(int64_t *)slot = s;
        return WK_OK;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        if ((why = integer(j, true, &s, &u)))
            return fail(r, WK_INVALID, why);
        *(uint64_t *)slot = u;
        return WK_OK;
    case PROTOBUF_C_TYPE_FLOAT:
        /* 0x1.ffffffp127 is half an ulp past FLT_MAX: from there on a
         * double rounds to infinity, below it to a finite float. */
        if ((why = number(j, &d)) || (isfinite(d) && fabs(d) >= 0x1.ffffffp127 && (why = "out of range for a float")))
            return fail(r, WK_INVALID, why);
        *(float *)slot = (float)d;
        return WK_OK;
    case PROTOBUF_C_TYPE_DOUBLE:
        if ((why = number(j, &d)))
            return fail(r, WK_INVALID, why);
        *(double *)slot = d;
        return WK_OK;
    case PROTOBUF_C_TYPE_BOOL:
        if (!json_is_boolean(j))
            return fail(r, WK_INVALID, "expected true or false");
        *(protobuf_c_boolean *)slot = json_is_true(j);
        return WK_OK;
    case PROTOBUF_C_TYPE_ENUM:
        return read_enum(r, f, j, slot);
    case PROTOBUF_C_TYPE_STRING:
        return read_string(r, j, slot);
    case PROTOBUF_C_TYPE_BYTES:
        return read_bytes(r, j, slot);
    case PROTOBUF_C_TYPE_MESSAGE:
        return read_submessage(r, f, j, slot);
    }
    return fail(r, WK_INVALID, "unknown field type");
}

/* A map: an object whose keys are the key field's values as text. */
static int read_map(reader *r, const ProtobufCFieldDescriptor *f, const json_t *j, ProtobufCMessage *m)
{
    if (!json_is_object(j))
        return fail(r, WK_INVALID, "expected an object");
    size_t n = json_object_size(j);
    if (n == 0)
        return WK_OK;
    ProtobufCMessage **entries = calloc(n, sizeof *entries);
    if (!entries)
        return fail(r, WK_NOMEM, "out of memory");
    *(ProtobufCMessage ***)wk__json_member(m, f) = entries;
    *(size_t *)((char *)m + f->quantifier_offset) = n;
    const ProtobufCMessageDescriptor *e = f->descriptor;
    const ProtobufCFieldDescriptor *kf = &e->fields[0], *vf = &e->fields[1];
    size_t i = 0;
    const char *key;
    const json_t *value;
    json_object_foreach ((json_t *)j, key, value) {
        size_t mark = wk__path_map_key(&r->path, key);
        int rc;
        if (!(entries[i] = new_message(e))) {
            rc = fail(r, WK_NOMEM, "out of memory");
        } else {
            mark_present(entries[i], kf);
            mark_present(entries[i], vf);
            if (kf->type == PROTOBUF_C_TYPE_BOOL) {
                rc = !strcmp(key, "true") || !strcmp(key, "false") ? WK_OK
                                                                    : fail(r, WK_INVALID, "expected true or false");
                *(protobuf_c_boolean *)wk__json_member(entries[i], kf) = !strcmp(key, "true");
            } else {
                json_t *k = json_string(key);
                rc = k ? read_value(r, kf, k, wk__json_member(entries[i], kf)) : fail(r, WK_NOMEM, "out of memory");
                json_decref(k);
            }
            if (rc == WK_OK)
                rc = json_is_null(value) ? fail(r, WK_INVALID, "a map value cannot be null")
                                         : read_value(r, vf, value, wk__json_member(entries[i], vf));
        }
        wk__path_pop(&r->path, mark);
        if (rc)
            return rc;
        i++;
    }
    return WK_OK;
}

static int read_array(reader *r, const ProtobufCFieldDescriptor *f, const json_t *j, ProtobufCMessage *m)
{
    if (!json_is_array(j))
        return fail(r, WK_INVALID, "expected an array");
    size_t n = json_array_size(j), size = wk__json_elem_size(f->type);
    if (n == 0)
        return WK_OK;
    char *items = calloc(n, size);
    if (!items)
        return fail(r, WK_NOMEM, "out of memory");
    *(char **)wk__json_member(m, f) = items;
    *(size_t *)((char *)m + f->quantifier_offset) = n;
    for (size_t i = 0; i < n; i++) {
        size_t mark = wk__path_index(&r->path, i);
        const json_t *v = json_array_get(j, i);
        int rc = json_is_null(v) ? fail(r, WK_INVALID, "null in an array") : read_value(r, f, v, items + i * size);
        wk__path_pop(&r->path, mark);
        if (rc)
            return rc;
    }
    return WK_OK;
}

static const ProtobufCFieldDescriptor *field_by_key(const ProtobufCMessageDescriptor *d, const char *key)
{
    for (unsigned i = 0; i < d->n_fields; i++)
        if (wk__json_key_matches(&d->fields[i], key))
            return &d->fields[i];
    return NULL;
}

static const ProtobufCFieldDescriptor *field_by_id(const ProtobufCMessageDescriptor *d, uint32_t id)
{
    for (unsigned i = 0; i < d->n_fields; i++)
        if (d->fields[i].id == id)
            return &d->fields[i];
    return NULL;
}

/* The message's fields by JSON name, "a, b, c", as many as fit in cap
 * bytes and "..." after them when not all do. */
static void field_names(const ProtobufCMessageDescriptor *d, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < d->n_fields; i++) {
        char name[128];
        if (strlen(d->fields[i].name) >= sizeof name)
            continue;
        wk__json_name(d->fields[i].name, name);
        int n = snprintf(out + len, cap - len, "%s%s", i ? ", " : "", name);
        if (n < 0 || (size_t)n >= cap - len - 4) {
            snprintf(out + len, cap - len, "%s...", i ? ", " : "");
            return;
        }
        len += (size_t)n;
    }
}

/* The generic form: an object of fields. seen tracks fields already read,
 * since a field may be given under both its names. */
static int read_fields(reader *r, const json_t *j, ProtobufCMessage *m, bool any_body, bool *seen)
{
    const ProtobufCMessageDescriptor *d = m->descriptor;
    const char *key;
    const json_t *value;
    json_object_foreach ((json_t *)j, key, value) {
        if (any_body && !strcmp(key, "@type"))
            continue;
        size_t mark = wk__path_key(&r->path, key);
        const ProtobufCFieldDescriptor *f = field_by_key(d, key);
        int rc = WK_OK;
        if (!f) {
            char names[160];
            field_names(d, names, sizeof names);
            rc = wk__path_fail(&r->path, r->st, WK_INVALID, "no field of that name in %s (its fields: %s)", d->name,
                               names);
        } else if (json_is_null(value)) {
            /* null is the field's default: absent. */
        } else if (seen[f - d->fields]) {
            rc = wk__path_fail(&r->path, r->st, WK_INVALID, "field %s given twice", f->name);
        } else if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *(uint32_t *)((char *)m + f->quantifier_offset)) {
            const ProtobufCFieldDescriptor *other =
                field_by_id(d, *(uint32_t *)((char *)m + f->quantifier_offset));
            rc = wk__path_fail(&r->path, r->st, WK_INVALID, "only one field of a oneof may be set, and %s is",
                               other ? other->name : "another");
        } else {
            seen[f - d->fields] = true;
            if (wk__json_is_map(d, f)) {
                rc = read_map(r, f, value, m);
            } else if (f->label == PROTOBUF_C_LABEL_REPEATED) {
                rc = read_array(r, f, value, m);
            } else {
                mark_present(m, f);
                rc = read_value(r, f, value, wk__json_member(m, f));
            }
        }
        wk__path_pop(&r->path, mark);
        if (rc)
            return rc;
    }
    for (unsigned i = 0; i < d->n_fields; i++)
        if (d->fields[i].label == PROTOBUF_C_LABEL_REQUIRED && !seen[i] && !d->fields[i].default_value) {
            size_t mark = wk__path_key(&r->path, d->fields[i].name);
            int rc = fail(r, WK_INVALID, "required field missing");
            wk__path_pop(&r->path, mark);
            return rc;
        }
    return WK_OK;
}

/* Sets m's int64 or int32 field of that name. */
static void set_int(ProtobufCMessage *m, const char *name, int64_t v)
{
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(m->descriptor, name);
    if (!f || f->label == PROTOBUF_C_LABEL_REPEATED)
        return;
    if (f->type == PROTOBUF_C_TYPE_INT64)
        *(int64_t *)wk__json_member(m, f) = v;
    else if (f->type == PROTOBUF_C_TYPE_INT32)
        *(int32_t *)wk__json_member(m, f) = (int32_t)v;
    else
        return;
    if (v)
        mark_present(m, f);
}

static int read_time(reader *r, const json_t *j, ProtobufCMessage *m, wk__wkt kind)
{
    if (!json_is_string(j))
        return fail(r, WK_INVALID, "expected a string");
    int64_t s;
    int32_t n;
    int rc = kind == WK__WKT_TIMESTAMP ? wk__timestamp_parse(json_string_value(j), &s, &n)
                                       : wk__duration_parse(json_string_value(j), &s, &n);
    if (rc == WK_RANGE)
        return fail(r, WK_INVALID, "out of range");
    if (rc)
        return fail(r, WK_INVALID,
                    kind == WK__WKT_TIMESTAMP ? "expected an RFC 3339 time, as 1972-01-01T10:00:20.021Z"
                                              : "expected a duration in seconds, as 1.5s");
    set_int(m, "seconds", s);
    set_int(m, "nanos", n);
    return WK_OK;
}

/* {"@type": url, ...}: the message the url names, serialized into value. */
static int read_any(reader *r, const json_t *j, ProtobufCMessage *m)
{
    const ProtobufCMessageDescriptor *d = m->descriptor;
    const ProtobufCFieldDescriptor *uf = protobuf_c_message_descriptor_get_field_by_name(d, "type_url");
    const ProtobufCFieldDescriptor *vf = protobuf_c_message_descriptor_get_field_by_name(d, "value");
    if (!uf || !vf || uf->type != PROTOBUF_C_TYPE_STRING || vf->type != PROTOBUF_C_TYPE_BYTES)
        return fail(r, WK_INVALID, "google.protobuf.Any without type_url and value");
    if (!json_is_object(j))
        return fail(r, WK_INVALID, "expected an object");
    if (json_object_size(j) == 0)
        return WK_OK;
    const json_t *type = json_object_get(j, "@type");
    if (!json_is_string(type))
        return fail(r, WK_INVALID, "expected \"@type\" with the type URL");
    const char *url = json_string_value(type);
    const json_t *value = json_object_get(j, "value");
    mark_present(m, uf);
    mark_present(m, vf);
    int rc = read_string(r, type, wk__json_member(m, uf));
    if (rc)
        return rc;
    const ProtobufCMessageDescriptor *t = wk__json_any_type(r->desc, url);
    if (!t) {
        if (!value || json_object_size(j) != 2)
            return wk__path_fail(&r->path, r->st, WK_INVALID,
                                 "unknown type %s: give its serialized bytes as \"value\" in base64", url);
        size_t mark = wk__path_key(&r->path, "value");
        int rc = read_bytes(r, value, wk__json_member(m, vf));
        wk__path_pop(&r->path, mark);
        return rc;
    }
    ProtobufCMessage *sub = new_message(t);
    if (!sub)
        return fail(r, WK_NOMEM, "out of memory");
    if (wk__json_wkt(t) != WK__WKT_NONE) {
        size_t mark = wk__path_key(&r->path, "value");
        rc = !value || json_object_size(j) != 2
                 ? fail(r, WK_INVALID, "expected the value of the well-known type, and nothing else")
                 : read_message(r, value, sub, false);
        wk__path_pop(&r->path, mark);
    } else {
        rc = read_message(r, j, sub, true);
    }
    ProtobufCBinaryData *bytes = wk__json_member(m, vf);
    if (rc == WK_OK && (bytes->len = protobuf_c_message_get_packed_size(sub)) > 0) {
        if (!(bytes->data = malloc(bytes->len))) {
            bytes->len = 0;
            rc = fail(r, WK_NOMEM, "out of memory");
        } else {
            protobuf_c_message_pack(sub, bytes->data);
        }
    }
    protobuf_c_message_free_unpacked(sub, NULL);
    return rc;
}

static int read_message(reader *r, const json_t *j, ProtobufCMessage *m, bool any_body)
{
    if (r->depth >= WK__JSON_MAX_DEPTH)
        return fail(r, WK_INVALID, "messages nested too deep");
    const ProtobufCMessageDescriptor *d = m->descriptor;
    wk__wkt kind = any_body ? WK__WKT_NONE : wk__json_wkt(d);
    const ProtobufCFieldDescriptor *value = protobuf_c_message_descriptor_get_field_by_name(d, "value");
    if (kind == WK__WKT_WRAPPER && (!value || value->label == PROTOBUF_C_LABEL_REPEATED))
        kind = WK__WKT_NONE; /* not the wrapper we know: its generic form */
    r->depth++;
    int rc;
    switch (kind) {
    case WK__WKT_TIMESTAMP:
    case WK__WKT_DURATION:
        rc = read_time(r, j, m, kind);
        break;
    case WK__WKT_ANY:
        rc = read_any(r, j, m);
        break;
    case WK__WKT_WRAPPER:
        mark_present(m, value);
        rc = read_value(r, value, j, wk__json_member(m, value));
        break;
    default:
        if (!json_is_object(j)) {
            rc = fail(r, WK_INVALID, "expected an object");
            break;
        }
        bool *seen = calloc(d->n_fields ? d->n_fields : 1, sizeof *seen);
        rc = seen ? read_fields(r, j, m, any_body, seen) : fail(r, WK_NOMEM, "out of memory");
        free(seen);
        break;
    }
    r->depth--;
    return rc;
}

/* jansson's text, except where it names its own flags (a NUL) or leaves
 * out the way around (a 64-bit integer past its int64, which proto3 JSON
 * also takes as a string). */
static int parse_error(const json_error_t *e, wk_status *st)
{
    const char *text = e->text, *hint = "";
    if (json_error_code(e) == json_error_null_character)
        text = "a string holds \\u0000, which no protobuf string can";
    else if (json_error_code(e) == json_error_numeric_overflow && !strncmp(text, "too big", 7))
        hint = " (give a 64-bit integer as a string: \"18446744073709551615\")";
    return wk_fail(st, WK_PARSE, "line %d column %d: %s%s", e->line, e->column, text, hint);
}

int wk_json_to_message(const ProtobufCMessageDescriptor *d, const char *json, size_t len, const wk_json_desc *desc,
                       ProtobufCMessage **out, wk_status *st)
{
    *out = NULL;
    json_error_t e;
    size_t blank = 0;
    while (blank < len && json[blank] && strchr(" \t\r\n", json[blank]))
        blank++;
    if (blank == len)
        return wk_fail(st, WK_PARSE, "no JSON given ({} is a message with no field set)");
    json_t *root = json_loadb(json, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &e);
    if (!root)
        return parse_error(&e, st);
    reader r = {.desc = desc, .st = st};
    ProtobufCMessage *m = new_message(d);
    int rc = m ? read_message(&r, root, m, false) : wk_fail(st, WK_NOMEM, "out of memory");
    json_decref(root);
    if (rc) {
        protobuf_c_message_free_unpacked(m, NULL);
        return rc;
    }
    *out = m;
    return WK_OK;
}

int wk_json_to_bytes(const ProtobufCMessageDescriptor *d, const char *json, size_t len, const wk_json_desc *desc,
                     wk_buf *out, wk_status *st)
{
    ProtobufCMessage *m;
    int rc = wk_json_to_message(d, json, len, desc, &m, st);
    if (rc)
        return rc;
    size_t size = protobuf_c_message_get_packed_size(m);
    if (wk_buf_reserve(out, size ? size : 1))
        rc = wk_fail(st, WK_NOMEM, "out of memory");
    else
        out->len += protobuf_c_message_pack(m, out->data + out->len);
    protobuf_c_message_free_unpacked(m, NULL);
    return rc;
}
