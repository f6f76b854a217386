/* test_json.c — the proto3 JSON mapping, libprotobuf's behind wk_json_*
 * (src/api/json.cc, json_message.c): messages with every kind of field go
 * to JSON and back unchanged (their serialized bytes compared), chosen
 * messages print exactly as written here, the forms the mapping accepts
 * besides its own are read, every input error names its path and says
 * whether the text was JSON at all, and methods are found by name. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "intrinsic/world/proto/object_world_service.pb-c.h"
#include "json_test.pb-c.h"
#include "json_test_types.h"
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/ecs_state.pb-c.h"
#include "wk_test.h"
#include "worldkit/levels.pb-c.h"
#include "worldkit/watch.pb-c.h"
#include "grpc/health/v1/health.pb-c.h"
#include "worldkit/wk_api.h"


/* The JSON of m, owned by the caller (free); NULL, with the reason printed,
 * on failure. */
static char *to_json(const ProtobufCMessage *m, const wk_json_desc *desc)
{
    wk_buf out = {0};
    wk_status st = {0};
    if (wk_json_from_message(m, desc, &out, &st)) {
        fprintf(stderr, "to_json: %s: %s\n", wk_code_name(st.code), st.message);
        wk_buf_free(&out);
        return NULL;
    }
    return (char *)out.data;
}

static wk_buf pack(const ProtobufCMessage *m)
{
    wk_buf b = {0};
    wk_buf_reserve(&b, protobuf_c_message_get_packed_size(m) + 1);
    b.len = protobuf_c_message_pack(m, b.data);
    return b;
}

/* m to JSON and back: the result must serialize to m's bytes. Returns the
 * JSON for more checks (free it). */
static char *round_trip(const ProtobufCMessage *m)
{
    char *json = to_json(m, WK_JSON_TEST_TYPES);
    if (!CHECK(json != NULL))
        return NULL;
    ProtobufCMessage *back = NULL;
    wk_status st = {0};
    int rc = wk_json_to_message(m->descriptor, json, strlen(json), WK_JSON_TEST_TYPES, &back, &st);
    if (!CHECK_INT(rc, ==, WK_OK)) {
        fprintf(stderr, "    %s\n    %s\n", st.message, json);
        return json;
    }
    wk_buf a = pack(m), b = pack(back);
    if (!CHECK_U64(a.len, ==, b.len) || !CHECK(memcmp(a.data, b.data, a.len) == 0))
        fprintf(stderr, "    bytes differ after %s\n", json);
    wk_buf_free(&a);
    wk_buf_free(&b);
    protobuf_c_message_free_unpacked(back, NULL);
    return json;
}

/* Reads json as a d; the code, and the message in msg (of 256 bytes). */
static int read_error(const ProtobufCMessageDescriptor *d, const char *json, char *msg)
{
    ProtobufCMessage *m = NULL;
    wk_status st = {0};
    int rc = wk_json_to_message(d, json, strlen(json), WK_JSON_TEST_TYPES, &m, &st);
    CHECK(rc != WK_OK || m != NULL);
    protobuf_c_message_free_unpacked(m, NULL);
    memcpy(msg, st.message, sizeof st.message);
    return rc;
}


/* Every scalar kind, extreme values included. */
static void scalars(void)
{
    uint8_t all_bytes[256];
    for (int i = 0; i < 256; i++)
        all_bytes[i] = (uint8_t)i;
    WkJsonTest__All m = WK_JSON_TEST__ALL__INIT;
    m.has_i32 = 1, m.i32 = INT32_MIN;
    m.has_i64 = 1, m.i64 = INT64_MIN;
    m.has_u32 = 1, m.u32 = UINT32_MAX;
    m.has_u64 = 1, m.u64 = UINT64_MAX;
    m.has_s32 = 1, m.s32 = -7;
    m.has_s64 = 1, m.s64 = -(1LL << 60);
    m.has_f32 = 1, m.f32 = 4000000000u;
    m.has_f64 = 1, m.f64 = 0x8000000000000001ULL;
    m.has_sf32 = 1, m.sf32 = -1;
    m.has_sf64 = 1, m.sf64 = INT64_MAX;
    m.has_flt = 1, m.flt = 3.4028235e38f;
    m.has_dbl = 1, m.dbl = 0.1 + 0.2;
    m.has_flag = 1, m.flag = 1;
    m.text = "h\xc3\xa9llo \"w\" \\ \n\t\x01";
    m.has_blob = 1, m.blob = (ProtobufCBinaryData){sizeof all_bytes, all_bytes};
    m.has_color = 1, m.color = WK_JSON_TEST__COLOR__BLUE;
    free(round_trip(&m.base));

    /* Zeros that are present stay present. */
    WkJsonTest__All z = WK_JSON_TEST__ALL__INIT;
    z.has_i32 = z.has_u64 = z.has_dbl = z.has_flag = z.has_blob = z.has_color = 1;
    z.text = "";
    char *json = round_trip(&z.base);
    CHECK_STR(json, "{\"i32\":0,\"u64\":\"0\",\"dbl\":0,\"flag\":false,\"text\":\"\",\"blob\":\"\",\"color\":"
                    "\"COLOR_UNSPECIFIED\"}");
    free(json);
}

/* NaN, the infinities, the smallest and largest values and values needing
 * all 17 digits. */
static void special_doubles(void)
{
    double values[] = {NAN, INFINITY, -INFINITY, 5e-324, 1.7976931348623157e308, 1e300, 0.1, 1.0 / 3, -2.5,
                       9007199254740993.0};
    float floats[] = {NAN, INFINITY, -INFINITY, 0.1f, 1e-45f, 16777217.0f};
    WkJsonTest__All m = WK_JSON_TEST__ALL__INIT;
    m.n_r_dbl = sizeof values / sizeof values[0], m.r_dbl = values;
    m.n_r_flt = sizeof floats / sizeof floats[0], m.r_flt = floats;
    char *json = round_trip(&m.base);
    CHECK(json && strstr(json, "\"rDbl\":[\"NaN\",\"Infinity\",\"-Infinity\",4.94065645841247e-324,"));
    CHECK(json && strstr(json, "\"rFlt\":[\"NaN\",\"Infinity\",\"-Infinity\",0.1,"));
    free(json);

    /* -0 is written as such, but libprotobuf's reader takes "-0" for the
     * integer 0, so it is no round trip. */
    double minus_zero = -0.0;
    m = (WkJsonTest__All)WK_JSON_TEST__ALL__INIT;
    m.n_r_dbl = 1, m.r_dbl = &minus_zero;
    json = to_json(&m.base, WK_JSON_TEST_TYPES);
    CHECK_STR(json, "{\"rDbl\":[-0]}");
    free(json);

    /* 15 digits do when every value needs no more. */
    double human[] = {0.1, 2.5, -1.25e-7};
    float f[] = {0.1f, 3.3f};
    WkJsonTest__All h = WK_JSON_TEST__ALL__INIT;
    h.n_r_dbl = 3, h.r_dbl = human;
    h.n_r_flt = 2, h.r_flt = f;
    json = round_trip(&h.base);
    CHECK_STR(json, "{\"rDbl\":[0.1,2.5,-1.25e-07],\"rFlt\":[0.1,3.3]}");
    free(json);
}

static void repeated_and_nested(void)
{
    int32_t ints[] = {1, -2, INT32_MAX};
    uint64_t u64s[] = {0, 1, UINT64_MAX};
    char *texts[] = {"a", "", "c"};
    uint8_t b1[] = {0xff, 0xfe};
    ProtobufCBinaryData blobs[] = {{2, b1}, {0, NULL}};
    WkJsonTest__Color colors[] = {WK_JSON_TEST__COLOR__RED, WK_JSON_TEST__COLOR__BLUE};
    protobuf_c_boolean flags[] = {1, 0, 1};
    uint64_t f64s[] = {7, UINT64_MAX};
    WkJsonTest__Inner leaf = WK_JSON_TEST__INNER__INIT;
    leaf.has_x = 1, leaf.x = -1.5, leaf.label = "leaf";
    WkJsonTest__Inner *leaves[] = {&leaf, &leaf};
    WkJsonTest__Inner mid = WK_JSON_TEST__INNER__INIT, empty = WK_JSON_TEST__INNER__INIT;
    mid.n_children = 2, mid.children = leaves;
    WkJsonTest__Inner *inners[] = {&mid, &empty, &leaf};

    WkJsonTest__All m = WK_JSON_TEST__ALL__INIT;
    m.n_r_i32 = 3, m.r_i32 = ints;
    m.n_r_u64 = 3, m.r_u64 = u64s;
    m.n_r_text = 3, m.r_text = texts;
    m.n_r_blob = 2, m.r_blob = blobs;
    m.n_r_color = 2, m.r_color = colors;
    m.n_r_flag = 3, m.r_flag = flags;
    m.n_r_f64 = 2, m.r_f64 = f64s;
    m.n_r_inner = 3, m.r_inner = inners;
    m.inner = &mid;
    char *json = round_trip(&m.base);
    CHECK(json && strstr(json, "\"rColor\":[\"RED\",\"BLUE\"]"));
    CHECK(json && strstr(json, "\"rInner\":[{\"children\":[{\"x\":-1.5,\"label\":\"leaf\"},{\"x\":-1.5,\"label\":"
                               "\"leaf\"}]},{},{\"x\":-1.5,\"label\":\"leaf\"}]"));
    free(json);

    /* A number a proto2 enum has no name for is no value of it to
     * libprotobuf, which leaves it out of the JSON (once: the fuzz target
     * found it written as a second "rColor" after the first). */
    WkJsonTest__Color unnamed[] = {WK_JSON_TEST__COLOR__RED, 42, WK_JSON_TEST__COLOR__GREEN};
    m = (WkJsonTest__All)WK_JSON_TEST__ALL__INIT;
    m.n_r_color = 3, m.r_color = unnamed;
    json = to_json(&m.base, WK_JSON_TEST_TYPES);
    CHECK_STR(json, "{\"rColor\":[\"RED\",\"GREEN\"]}");
    free(json);
}

static void oneof_members(void)
{
    WkJsonTest__Inner in = WK_JSON_TEST__INNER__INIT;
    in.label = "in";
    const char *expected[] = {"{\"choiceText\":\"t\"}", "{\"choiceInner\":{\"label\":\"in\"}}",
                              "{\"choiceI64\":\"-9\"}", "{\"choiceColor\":\"GREEN\"}"};
    for (int i = 0; i < 4; i++) {
        WkJsonTest__All m = WK_JSON_TEST__ALL__INIT;
        switch (i) {
        case 0:
            m.choice_case = WK_JSON_TEST__ALL__CHOICE_CHOICE_TEXT, m.choice_text = "t";
            break;
        case 1:
            m.choice_case = WK_JSON_TEST__ALL__CHOICE_CHOICE_INNER, m.choice_inner = &in;
            break;
        case 2:
            m.choice_case = WK_JSON_TEST__ALL__CHOICE_CHOICE_I64, m.choice_i64 = -9;
            break;
        default:
            m.choice_case = WK_JSON_TEST__ALL__CHOICE_CHOICE_COLOR, m.choice_color = WK_JSON_TEST__COLOR__GREEN;
        }
        char *json = round_trip(&m.base);
        CHECK_STR(json, expected[i]);
        free(json);
    }
}

static void maps(void)
{
    WkJsonTest__All__CountsEntry c1 = WK_JSON_TEST__ALL__COUNTS_ENTRY__INIT, c2 = c1;
    c1.key = "one", c1.has_value = 1, c1.value = 1;
    c2.key = "minus", c2.has_value = 1, c2.value = -1;
    WkJsonTest__All__CountsEntry *counts[] = {&c1, &c2};
    WkJsonTest__Inner in = WK_JSON_TEST__INNER__INIT;
    in.has_x = 1, in.x = 2;
    WkJsonTest__All__ByIdEntry i1 = WK_JSON_TEST__ALL__BY_ID_ENTRY__INIT, i2 = i1;
    i1.has_key = 1, i1.key = -5, i1.value = &in;
    i2.has_key = 1, i2.key = INT64_MAX, i2.value = &in;
    WkJsonTest__All__ByIdEntry *by_id[] = {&i1, &i2};
    WkJsonTest__All__ByFlagEntry f1 = WK_JSON_TEST__ALL__BY_FLAG_ENTRY__INIT, f2 = f1;
    f1.has_key = 1, f1.key = 1, f1.value = "yes";
    f2.has_key = 1, f2.key = 0, f2.value = "no";
    WkJsonTest__All__ByFlagEntry *by_flag[] = {&f1, &f2};
    WkJsonTest__All__ColorsEntry k1 = WK_JSON_TEST__ALL__COLORS_ENTRY__INIT;
    k1.has_key = 1, k1.key = 4000000000u, k1.has_value = 1, k1.value = WK_JSON_TEST__COLOR__RED;
    WkJsonTest__All__ColorsEntry *colors[] = {&k1};

    WkJsonTest__All m = WK_JSON_TEST__ALL__INIT;
    m.n_counts = 2, m.counts = counts;
    m.n_by_id = 2, m.by_id = by_id;
    m.n_by_flag = 2, m.by_flag = by_flag;
    m.n_colors = 1, m.colors = colors;
    char *json = round_trip(&m.base);
    CHECK_STR(json, "{\"counts\":{\"one\":1,\"minus\":-1},\"byId\":{\"-5\":{\"x\":2},\"9223372036854775807\":{\"x\":2}"
                    "},\"byFlag\":{\"true\":\"yes\",\"false\":\"no\"},\"colors\":{\"4000000000\":\"RED\"}}");
    free(json);
}

static void presence_and_defaults(void)
{
    /* Nothing set: nothing written, proto2 defaults included. */
    WkJsonTest__All m = WK_JSON_TEST__ALL__INIT;
    char *json = round_trip(&m.base);
    CHECK_STR(json, "{}");
    free(json);
    /* A default value set explicitly is present. */
    m.with_default = "hello";
    m.has_int_default = 1, m.int_default = 7;
    json = round_trip(&m.base);
    CHECK_STR(json, "{\"withDefault\":\"hello\",\"intDefault\":7}");
    free(json);
    /* Reading an absent field leaves protobuf-c's default in place. */
    ProtobufCMessage *back = NULL;
    wk_status st = {0};
    REQUIRE_INT(wk_json_to_message(&wk_json_test__all__descriptor, "{\"i32\":null}", 12, WK_JSON_TEST_TYPES, &back, &st), ==,
                WK_OK);
    WkJsonTest__All *a = (WkJsonTest__All *)back;
    CHECK_STR(a->with_default, "hello");
    CHECK_INT(a->int_default, ==, 7);
    CHECK(!a->has_i32 && !a->has_int_default);
    protobuf_c_message_free_unpacked(back, NULL);
    /* A required field is written even when empty. */
    WkJsonTest__Required r = WK_JSON_TEST__REQUIRED__INIT;
    r.id = "x";
    json = round_trip(&r.base);
    CHECK_STR(json, "{\"id\":\"x\"}");
    free(json);
}

static void well_known_types(void)
{
    Google__Protobuf__Timestamp when = GOOGLE__PROTOBUF__TIMESTAMP__INIT;
    when.seconds = 63108020, when.nanos = 21000000;
    Google__Protobuf__Duration took = GOOGLE__PROTOBUF__DURATION__INIT;
    took.seconds = -1, took.nanos = -500000000;
    Google__Protobuf__BoolValue maybe = GOOGLE__PROTOBUF__BOOL_VALUE__INIT; /* false, still present */
    Google__Protobuf__DoubleValue dval = GOOGLE__PROTOBUF__DOUBLE_VALUE__INIT;
    dval.value = INFINITY;
    Google__Protobuf__Int64Value ival = GOOGLE__PROTOBUF__INT64_VALUE__INIT;
    ival.value = -3;
    Google__Protobuf__StringValue sval = GOOGLE__PROTOBUF__STRING_VALUE__INIT;
    sval.value = "s";
    uint8_t raw[] = {1, 2, 3};
    Google__Protobuf__BytesValue bval = GOOGLE__PROTOBUF__BYTES_VALUE__INIT;
    bval.value = (ProtobufCBinaryData){3, raw};
    Google__Protobuf__UInt32Value uval = GOOGLE__PROTOBUF__UINT32_VALUE__INIT;
    uval.value = 9;
    Google__Protobuf__FloatValue fval = GOOGLE__PROTOBUF__FLOAT_VALUE__INIT;
    fval.value = 0.5f;
    Google__Protobuf__Empty nothing = GOOGLE__PROTOBUF__EMPTY__INIT;
    WkJsonTest__All m = WK_JSON_TEST__ALL__INIT;
    m.when = &when, m.took = &took, m.maybe = &maybe, m.dval = &dval, m.ival = &ival, m.sval = &sval;
    m.bval = &bval, m.uval = &uval, m.fval = &fval, m.nothing = &nothing;
    char *json = round_trip(&m.base);
    CHECK_STR(json, "{\"when\":\"1972-01-01T10:00:20.021Z\",\"took\":\"-1.500s\",\"maybe\":false,\"dval\":\"Infinity\","
                    "\"ival\":\"-3\",\"sval\":\"s\",\"bval\":\"AQID\",\"uval\":9,\"fval\":0.5,\"nothing\":{}}");
    free(json);

    /* The time forms: fractions of 0, 3, 6 or 9 digits, the year range,
     * offsets on input. */
    struct {
        int64_t s;
        int32_t n;
        const char *text;
    } times[] = {{0, 0, "1970-01-01T00:00:00Z"},
                 {-62135596800LL, 0, "0001-01-01T00:00:00Z"},
                 {253402300799LL, 999999999, "9999-12-31T23:59:59.999999999Z"},
                 {951782400, 1000, "2000-02-29T00:00:00.000001Z"},
                 {-1, 0, "1969-12-31T23:59:59Z"}};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        when.seconds = times[i].s, when.nanos = times[i].n;
        json = round_trip(&when.base);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "\"%s\"", times[i].text);
        CHECK_STR(json, quoted);
        free(json);
    }
    ProtobufCMessage *t = NULL;
    wk_status st = {0};
    const char *offset = "\"1972-01-01T12:30:20.5+02:30\"";
    REQUIRE_INT(wk_json_to_message(&google__protobuf__timestamp__descriptor, offset, strlen(offset), NULL, &t, &st),
                ==, WK_OK);
    CHECK_INT(((Google__Protobuf__Timestamp *)t)->seconds, ==, 63108020);
    CHECK_INT(((Google__Protobuf__Timestamp *)t)->nanos, ==, 500000000);
    protobuf_c_message_free_unpacked(t, NULL);
    took.seconds = 0, took.nanos = -1;
    json = round_trip(&took.base);
    CHECK_STR(json, "\"-0.000000001s\"");
    free(json);
    took.seconds = 315576000000LL, took.nanos = 0;
    json = round_trip(&took.base);
    CHECK_STR(json, "\"315576000000s\"");
    free(json);
}

/* Any holding a known message, a known well-known type, and an unknown
 * type, alone and as map values. */
static void any_values(void)
{
    WkJsonTest__Inner in = WK_JSON_TEST__INNER__INIT;
    in.has_x = 1, in.x = 1, in.label = "packed";
    wk_buf inner = pack(&in.base);
    Google__Protobuf__Int64Value iv = GOOGLE__PROTOBUF__INT64_VALUE__INIT;
    iv.value = 5;
    wk_buf ivb = pack(&iv.base);
    uint8_t opaque[] = {8, 1};
    Google__Protobuf__Any known = GOOGLE__PROTOBUF__ANY__INIT, wkt = known, unknown = known, empty = known;
    known.type_url = "type.googleapis.com/wk_json_test.Inner";
    known.value = (ProtobufCBinaryData){inner.len, inner.data};
    wkt.type_url = "type.googleapis.com/google.protobuf.Int64Value";
    wkt.value = (ProtobufCBinaryData){ivb.len, ivb.data};
    unknown.type_url = "example.com/no.such.Type";
    unknown.value = (ProtobufCBinaryData){2, opaque};
    Google__Protobuf__Any *anys[] = {&wkt, &empty};
    WkJsonTest__All__UserDataEntry u = WK_JSON_TEST__ALL__USER_DATA_ENTRY__INIT;
    u.key = "k", u.value = &known;
    WkJsonTest__All__UserDataEntry *user_data[] = {&u};
    WkJsonTest__All m = WK_JSON_TEST__ALL__INIT;
    m.any = &known;
    m.n_anys = 2, m.anys = anys;
    m.n_user_data = 1, m.user_data = user_data;
    char *json = round_trip(&m.base);
    CHECK_STR(json, "{\"userData\":{\"k\":{\"@type\":\"type.googleapis.com/wk_json_test.Inner\",\"x\":1,\"label\":"
                    "\"packed\"}},\"any\":{\"@type\":\"type.googleapis.com/wk_json_test.Inner\",\"x\":1,\"label\":"
                    "\"packed\"},\"anys\":[{\"@type\":\"type.googleapis.com/google.protobuf.Int64Value\",\"value\":"
                    "\"5\"},{}]}");
    free(json);
    /* "@type" need not come first on input. */
    ProtobufCMessage *back = NULL;
    wk_status st = {0};
    const char *late = "{\"any\":{\"x\":1,\"label\":\"packed\",\"@type\":\"type.googleapis.com/wk_json_test.Inner\"}}";
    REQUIRE_INT(wk_json_to_message(&wk_json_test__all__descriptor, late, strlen(late), WK_JSON_TEST_TYPES, &back, &st),
                ==, WK_OK);
    Google__Protobuf__Any *a = ((WkJsonTest__All *)back)->any;
    CHECK(a && a->value.len == inner.len && !memcmp(a->value.data, inner.data, inner.len));
    protobuf_c_message_free_unpacked(back, NULL);
    /* An Any of a type libprotobuf does not know cannot be written. */
    wk_buf out = {0};
    anys[1] = &unknown;
    CHECK_INT(wk_json_from_message(&m.base, WK_JSON_TEST_TYPES, &out, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "example.com/no.such.Type") != NULL);
    CHECK_U64(out.len, ==, 0);
    /* One whose bytes do not parse as its type is written with its type
     * alone: libprotobuf's printer stops at the bytes it cannot read. */
    anys[1] = &empty;
    uint8_t bad[] = {0x0a, 0x05, 'x'};
    known.value = (ProtobufCBinaryData){3, bad};
    m.n_user_data = 0;
    REQUIRE_INT(wk_json_from_message(&m.base, WK_JSON_TEST_TYPES, &out, &st), ==, WK_OK);
    CHECK_STR((const char *)out.data, "{\"any\":{\"@type\":\"type.googleapis.com/wk_json_test.Inner\"},\"anys\":[{"
                                      "\"@type\":\"type.googleapis.com/google.protobuf.Int64Value\",\"value\":\"5\"},{}]}");
    wk_buf_free(&out);
    wk_buf_free(&inner);
    wk_buf_free(&ivb);
}

/* The forms the mapping reads besides those it writes. */
static void lenient_input(void)
{
    const char *json = "{\"i32\":\"-12\",\"i64\":-5,\"u64\":1e3,\"f64\":\"18446744073709551615\",\"flt\":\"1.5\","
                       "\"dbl\":\"-Infinity\",\"color\":-3,\"r_i32\":[1.0,2],\"blob\":\"-_8\",\"r_blob\":[\"AQ\","
                       "\"AQI=\"],\"choice_i64\":\"12\",\"with_default\":\"w\",\"inner\":{\"label\":null}}";
    ProtobufCMessage *out = NULL;
    wk_status st = {0};
    int rc = wk_json_to_message(&wk_json_test__all__descriptor, json, strlen(json), WK_JSON_TEST_TYPES, &out, &st);
    REQUIRE_INT(rc, ==, WK_OK);
    WkJsonTest__All *m = (WkJsonTest__All *)out;
    CHECK_INT(m->i32, ==, -12);
    CHECK_INT(m->i64, ==, -5);
    CHECK_U64(m->u64, ==, 1000);
    CHECK_U64(m->f64, ==, UINT64_MAX);
    CHECK(m->flt == 1.5f);
    CHECK(isinf(m->dbl) && m->dbl < 0);
    CHECK_INT(m->color, ==, WK_JSON_TEST__COLOR__BLUE);
    CHECK(m->n_r_i32 == 2 && m->r_i32[0] == 1 && m->r_i32[1] == 2);
    CHECK(m->blob.len == 2 && m->blob.data[0] == 0xfb && m->blob.data[1] == 0xff);
    CHECK(m->n_r_blob == 2 && m->r_blob[0].len == 1 && m->r_blob[1].len == 2);
    CHECK_INT(m->choice_case, ==, WK_JSON_TEST__ALL__CHOICE_CHOICE_I64);
    CHECK_STR(m->with_default, "w");
    CHECK(m->inner && !m->inner->label);
    protobuf_c_message_free_unpacked(out, NULL);
}

static void exact_output(void)
{
    /* A request of the simulation_interfaces service. */
    SimulationInterfaces__Point position = SIMULATION_INTERFACES__POINT__INIT;
    position.has_x = 1, position.x = 1;
    position.has_z = 1, position.z = 0.25;
    SimulationInterfaces__Pose pose = SIMULATION_INTERFACES__POSE__INIT;
    pose.position = &position;
    SimulationInterfaces__PoseStamped stamped = SIMULATION_INTERFACES__POSE_STAMPED__INIT;
    stamped.pose = &pose;
    SimulationInterfaces__Resource resource = SIMULATION_INTERFACES__RESOURCE__INIT;
    resource.uri = "/worlds/box.sdf";
    SimulationInterfaces__SpawnEntityRequest spawn = SIMULATION_INTERFACES__SPAWN_ENTITY_REQUEST__INIT;
    spawn.name = "box";
    spawn.has_allow_renaming = 1, spawn.allow_renaming = 1;
    spawn.entity_resource = &resource;
    spawn.initial_pose = &stamped;
    SimulationInterfaces__SpawnEntityRequest *spawns[] = {&spawn};
    SimulationInterfaces__SpawnEntitiesRequest req = SIMULATION_INTERFACES__SPAWN_ENTITIES_REQUEST__INIT;
    req.n_spawn_requests = 1, req.spawn_requests = spawns;
    char *json = round_trip(&req.base);
    CHECK_STR(json, "{\"spawnRequests\":[{\"name\":\"box\",\"allowRenaming\":true,\"entityResource\":{\"uri\":"
                    "\"/worlds/box.sdf\"},\"initialPose\":{\"pose\":{\"position\":{\"x\":1,\"z\":0.25}}}}]}");
    free(json);
    /* Indented, as `worldkit call` prints. */
    json = to_json(&position.base, &(wk_json_desc){.indent = true});
    CHECK_STR(json, "{\n \"x\": 1,\n \"z\": 0.25\n}");
    free(json);

    /* A response of ObjectWorldService, with a Timestamp. */
    Google__Protobuf__Timestamp t = GOOGLE__PROTOBUF__TIMESTAMP__INIT;
    t.seconds = 1700000000;
    IntrinsicProto__World__WorldMetadata w = INTRINSIC_PROTO__WORLD__WORLD_METADATA__INIT;
    w.id = "world";
    w.last_update = &t;
    IntrinsicProto__World__WorldMetadata *ws[] = {&w};
    IntrinsicProto__World__ListWorldsResponse list = INTRINSIC_PROTO__WORLD__LIST_WORLDS_RESPONSE__INIT;
    list.n_world_metadatas = 1, list.world_metadatas = ws;
    json = round_trip(&list.base);
    CHECK_STR(json, "{\"worldMetadatas\":[{\"id\":\"world\",\"lastUpdate\":\"2023-11-14T22:13:20Z\"}]}");
    free(json);
}

/* Each input error with the words it must hold: for JSON that does not fit
 * the type, the field's path (libprotobuf's, in the .proto's names, map
 * entries by index; inside an Any, from the Any), for text that is not JSON
 * what is wrong with it. */
static const struct bad_input {
    const ProtobufCMessageDescriptor *type; /* NULL: wk_json_test.All */
    const char *json;
    int code;
    const char *names;
} bad_inputs[] = {
    {&simulation_interfaces__spawn_entities_request__descriptor,
     "{\"spawnRequests\":[{},{},{\"initialPose\":{\"pose\":{\"position\":{\"x\":\"one\"}}}}]}", WK_INVALID,
     "(spawn_requests[2].initial_pose.pose.position.x): invalid value \"one\""},
    {NULL, "{\"inner\":{\"children\":[{\"nope\":1}]}}", WK_INVALID, "(inner.children[0]) nope: Cannot find field"},
    {NULL, "{\"nope\":1}", WK_INVALID, "nope: Cannot find field"},
    {NULL, "{\"color\":\"PURPLE\"}", WK_INVALID, "(color): invalid value \"PURPLE\""},
    {NULL, "{\"color\":true}", WK_INVALID, "(color)"},
    {NULL, "{\"blob\":\"a!==\"}", WK_INVALID, "(blob)"},
    {NULL, "{\"rBlob\":[\"AAAAA\"]}", WK_INVALID, "(r_blob[0])"},
    {NULL, "{\"i32\":2147483648}", WK_INVALID, "(i32)"},
    {NULL, "{\"u32\":-1}", WK_INVALID, "(u32)"},
    {NULL, "{\"u64\":\"-1\"}", WK_INVALID, "(u64)"},
    {NULL, "{\"i64\":\"99999999999999999999\"}", WK_INVALID, "(i64)"},
    {NULL, "{\"i64\":\" 1\"}", WK_INVALID, "(i64)"},
    {NULL, "{\"i32\":1.5}", WK_INVALID, "(i32)"},
    {NULL, "{\"flt\":1e39}", WK_INVALID, "(flt)"},
    {NULL, "{\"dbl\":\"nan\"}", WK_INVALID, "(dbl)"},
    {NULL, "{\"flag\":1}", WK_INVALID, "(flag)"},
    {NULL, "{\"text\":5}", WK_INVALID, "(text)"},
    {NULL, "{\"inner\":[]}", WK_INVALID, "inner: Proto field is not repeating"},
    {NULL, "{\"rI32\":{}}", WK_INVALID, "r_i32"},
    {NULL, "{\"choiceText\":\"a\",\"choiceI64\":\"1\"}", WK_INVALID, "Cannot set 'choiceI64'"},
    {NULL, "{\"counts\":{\"a\":\"x\"}}", WK_INVALID, "(counts[0].value)"},
    {NULL, "{\"byId\":{\"abc\":{}}}", WK_INVALID, "(by_id[0].key)"},
    {NULL, "{\"counts\":[]}", WK_INVALID, "'counts'"},
    {NULL, "{\"when\":\"yesterday\"}", WK_INVALID, "(when)"},
    {NULL, "{\"when\":\"1999-02-29T00:00:00Z\"}", WK_INVALID, "(when)"},
    {NULL, "{\"when\":\"0000-12-31T23:59:59Z\"}", WK_INVALID, "(when)"},
    {NULL, "{\"took\":\"1.5\"}", WK_INVALID, "(took)"},
    {NULL, "{\"took\":\"315576000001s\"}", WK_INVALID, "(took)"},
    {NULL, "{\"req\":{\"n\":1}}", WK_INVALID, "(req): missing field id"},
    {NULL, "{\"any\":{\"value\":\"AA==\"}}", WK_INVALID, "(any)"},
    {NULL, "{\"any\":{\"@type\":\"x/no.Such\",\"a\":1}}", WK_INVALID, "(any)"},
    {NULL, "{\"any\":{\"@type\":\"type.googleapis.com/no.Such\"}}", WK_INVALID, "no.Such"},
    {NULL, "{\"anys\":[{\"@type\":\"type.googleapis.com/wk_json_test.Inner\",\"x\":\"?\"}]}", WK_INVALID, "(x)"},
    {NULL, "{\"any\":{\"@type\":\"type.googleapis.com/google.protobuf.Int64Value\",\"value\":true}}", WK_INVALID,
     "(value)"},
    {NULL, "[]", WK_INVALID, "Root element must be a message"},
    /* protobuf-c's C strings would cut this short. */
    {NULL, "{\"text\":\"a\\u0000b\"}", WK_INVALID, "wk_json_test.All.text holds a NUL byte after 'a'"},
    {NULL, "{\"i32\":", WK_PARSE, "Unexpected end of string"},
    {NULL, "{\"i32\":1} x", WK_PARSE, "Parsing terminated before end of input"},
    {NULL, "{\"i32\":\"x\",", WK_PARSE, "Unexpected end of string"},
    {NULL, "{\"u64\":1e400}", WK_PARSE, "Number exceeds the range of double"},
    {NULL, "", WK_PARSE, "Unexpected end of string"},
    {NULL, " \n\t", WK_PARSE, "Unexpected end of string"},
};

static void input_errors(void)
{
    const ProtobufCMessageDescriptor *all = &wk_json_test__all__descriptor;
    for (size_t i = 0; i < sizeof bad_inputs / sizeof bad_inputs[0]; i++) {
        const struct bad_input *b = &bad_inputs[i];
        char msg[WK_STATUS_MSG_MAX];
        if (!CHECK_INT(read_error(b->type ? b->type : all, b->json, msg), ==, b->code) |
            !CHECK(strstr(msg, b->names) != NULL))
            fprintf(stderr, "    input: %s\n    message: %s\n    expected in it: %s\n", b->json, msg, b->names);
    }
    /* Nesting past libprotobuf's limit is refused, not recursed into. */
    char deep[3000] = "{\"inner\":";
    for (int i = 0; i < 150; i++)
        strcat(deep, "{\"children\":[");
    strcat(deep, "{}");
    for (int i = 0; i < 150; i++)
        strcat(deep, "]}");
    strcat(deep, "}");
    char msg[WK_STATUS_MSG_MAX];
    CHECK_INT(read_error(all, deep, msg), ==, WK_PARSE);
    CHECK(strstr(msg, "Message too deep") != NULL);
}

static void output_errors(void)
{
    /* Bytes of a string that are not UTF-8 are left out of the text (and
     * libprotobuf logs the field's name). */
    WkJsonTest__Inner in = WK_JSON_TEST__INNER__INIT;
    in.label = "bad \xff utf-8";
    WkJsonTest__All m = WK_JSON_TEST__ALL__INIT;
    m.inner = &in;
    wk_buf out = {0};
    wk_status st = {0};
    REQUIRE_INT(wk_json_from_message(&m.base, WK_JSON_TEST_TYPES, &out, &st), ==, WK_OK);
    CHECK_STR((const char *)out.data, "{\"inner\":{\"label\":\"bad  utf-8\"}}");
    out.len = 0;
    /* A required field missing, named by its path (protobuf-c packs a
     * missing required string as an empty one, so bytes give the case):
     * All.req = {n: 1}. */
    uint8_t no_id[] = {0xc2, 0x04, 2, 0x10, 1};
    CHECK_INT(wk_json_from_bytes(&wk_json_test__all__descriptor, no_id, sizeof no_id, WK_JSON_TEST_TYPES, &out, &st),
              ==, WK_INVALID);
    CHECK_STR(st.message, "wk_json_test.All: required field missing: req.id");
    CHECK_U64(out.len, ==, 0);
    Google__Protobuf__Timestamp t = GOOGLE__PROTOBUF__TIMESTAMP__INIT;
    t.seconds = 253402300800LL;
    m = (WkJsonTest__All)WK_JSON_TEST__ALL__INIT;
    m.when = &t;
    CHECK_INT(wk_json_from_message(&m.base, WK_JSON_TEST_TYPES, &out, &st), ==, WK_INVALID);
    CHECK_STR(st.message, "Timestamp seconds exceeds limit for field: when");
    CHECK_U64(out.len, ==, 0);
    wk_buf_free(&out);
}

static void bytes_api(void)
{
    const ProtobufCMessageDescriptor *d = &simulation_interfaces__step_simulation_request__descriptor;
    wk_buf bytes = {0}, json = {0};
    wk_status st = {0};
    REQUIRE_INT(wk_json_to_bytes(d, "{\"steps\":\"10\"}", 14, NULL, &bytes, &st), ==, WK_OK);
    CHECK(bytes.len == 2 && bytes.data[0] == 0x08 && bytes.data[1] == 10);
    REQUIRE_INT(wk_json_from_bytes(d, bytes.data, bytes.len, NULL, &json, &st), ==, WK_OK);
    CHECK_STR((char *)json.data, "{\"steps\":\"10\"}");
    /* An empty message is zero bytes. */
    wk_buf empty = {0};
    CHECK_INT(wk_json_to_bytes(d, "{}", 2, NULL, &empty, &st), ==, WK_OK);
    CHECK_U64(empty.len, ==, 0);
    wk_buf_free(&empty);
    uint8_t garbage[] = {0x08};
    CHECK_INT(wk_json_from_bytes(d, garbage, 1, NULL, &json, &st), ==, WK_PARSE);
    CHECK_STR(st.message, "the bytes are not a serialized simulation_interfaces.StepSimulationRequest");
    wk_buf_free(&bytes);
    wk_buf_free(&json);
}

static void methods(void)
{
    wk_json_method m;
    wk_status st = {0};
    REQUIRE_INT(wk_json_find_method("intrinsic_proto.world.ObjectWorldService/ListWorlds", &m, &st), ==, WK_OK);
    CHECK_STR(m.service, "intrinsic_proto.world.ObjectWorldService");
    CHECK_STR(m.name, "ListWorlds");
    CHECK(m.input == &intrinsic_proto__world__list_worlds_request__descriptor);
    CHECK(m.output == &intrinsic_proto__world__list_worlds_response__descriptor);
    REQUIRE_INT(wk_json_find_method("/simulation_interfaces.SimulationInterfaces/SpawnEntities", &m, &st), ==, WK_OK);
    CHECK(m.input == &simulation_interfaces__spawn_entities_request__descriptor);
    REQUIRE_INT(wk_json_find_method("ObjectWorldService/GetTransform", &m, &st), ==, WK_OK);
    CHECK(m.output == &intrinsic_proto__world__get_transform_response__descriptor);
    REQUIRE_INT(wk_json_find_method("StepSimulation", &m, &st), ==, WK_OK);
    CHECK_STR(m.service, "simulation_interfaces.SimulationInterfaces");
    CHECK_INT(wk_json_find_method("ObjectWorldService/StepSimulation", &m, &st), ==, WK_NOT_FOUND);
    CHECK_INT(wk_json_find_method("Nope", &m, &st), ==, WK_NOT_FOUND);
    CHECK_STR(st.message, "Nope: no such method");
    size_t n = 0;
    while (wk_json_method_at(n, &m))
        n++;
    CHECK_U64(n, ==,
              simulation_interfaces__simulation_interfaces__descriptor.n_methods +
                  intrinsic_proto__world__object_world_service__descriptor.n_methods +
                  worldkit__levels__descriptor.n_methods + worldkit__world_watch__descriptor.n_methods +
                  grpc__health__v1__health__descriptor.n_methods);
}

/* Messages of our own protos, read from JSON in the mapping's own form:
 * they print back as the same text and serialize the same after a second
 * pass. The Any resolves through the services' types (no lookup given). */
static void own_protos(void)
{
    static const struct {
        const ProtobufCMessageDescriptor *type;
        const char *json;
    } cases[] = {
        {&intrinsic_proto__world__object__descriptor,
         "{\"id\":\"7\",\"name\":\"box\",\"type\":\"PHYSICAL_OBJECT\",\"parent\":{\"id\":\"root\",\"name\":"
         "\"root\"},\"objectComponent\":{\"parentTThis\":{\"position\":{\"x\":0.5}},\"userData\":{\"pose\":{"
         "\"@type\":\"type.googleapis.com/intrinsic_proto.Pose\",\"orientation\":{\"w\":1}},\"flag\":{\"@type\":"
         "\"type.googleapis.com/google.protobuf.BoolValue\",\"value\":true}}},\"nameIsGlobalAlias\":false}"},
        {&intrinsic_proto__world__get_transform_request__descriptor,
         "{\"worldId\":\"world\",\"nodeA\":{\"byName\":{\"frame\":{\"objectName\":\"arm\",\"frameName\":"
         "\"tool\"}}},\"nodeB\":{\"id\":\"root\"}}"},
        {&worldkit__ecs__state__descriptor,
         "{\"types\":[{\"id\":1,\"name\":\"Name\",\"size\":\"8\"}],\"blocks\":[{\"ids\":[\"4294967297\","
         "\"18446744073709551615\"],\"parents\":[\"0\",\"4294967297\"],\"columns\":[{\"type\":1,\"packedValues\":"
         "\"AAECAwQFBgc=\",\"values\":[\"\",\"/w==\"]}],\"removedTypes\":[2]}],\"complete\":true}"},
        {&simulation_interfaces__get_entity_state_response__descriptor,
         "{\"result\":{\"result\":1,\"errorMessage\":\"\"},\"state\":{\"header\":{\"stamp\":{\"sec\":-1,"
         "\"nanosec\":4294967295},\"frameId\":\"world\"},\"pose\":{\"orientation\":{\"w\":1}},\"twist\":{"
         "\"linear\":{\"x\":\"NaN\"}}}}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ProtobufCMessage *m = NULL;
        wk_status st = {0};
        const char *json = cases[i].json;
        if (!CHECK_INT(wk_json_to_message(cases[i].type, json, strlen(json), NULL, &m, &st), ==, WK_OK)) {
            fprintf(stderr, "    %s\n", st.message);
            continue;
        }
        char *back = round_trip(m);
        CHECK_STR(back, json);
        free(back);
        protobuf_c_message_free_unpacked(m, NULL);
    }
}

static const wk_test_case cases[] = {
    {"scalars", scalars},
    {"special_doubles", special_doubles},
    {"repeated_and_nested", repeated_and_nested},
    {"oneof_members", oneof_members},
    {"maps", maps},
    {"presence_and_defaults", presence_and_defaults},
    {"well_known_types", well_known_types},
    {"any_values", any_values},
    {"lenient_input", lenient_input},
    {"exact_output", exact_output},
    {"own_protos", own_protos},
    {"input_errors", input_errors},
    {"output_errors", output_errors},
    {"bytes_api", bytes_api},
    {"methods", methods},
};

WK_TEST_MAIN(cases)
