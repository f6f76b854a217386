/* test_user_data.c — an object's user data under the six policies of
 * UpdateUserData, each from the same starting map with a before/after
 * table; keys kept sorted whatever the order they came in; values that are
 * arbitrary bytes; and the component surviving clone, state copy and
 * damaged bytes. */
#include "scene/copies.h"
#include "scene/object_world.h"

#define URL "type.googleapis.com/google.protobuf.StringValue"

/* Parses "k=v,k2=v2" into entries (values as bytes, one type url);
 * returns how many. Keys and values point into buf. */
static size_t parse(const char *text, char *buf, size_t cap, wk_user_datum *out)
{
    size_t n = 0;
    snprintf(buf, cap, "%s", text);
    for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
        char *eq = strchr(item, '=');
        if (eq)
            *eq = '\0';
        const char *value = eq ? eq + 1 : "";
        out[n++] = (wk_user_datum){item, URL, (const uint8_t *)value, strlen(value)};
    }
    return n;
}

/* The object's user data as "k=v,k2=v2", in stored order. */
static const char *show(wk_scene *s, wk_entity object, char *out, size_t cap)
{
    wk_user_data u = wk_scene_user_data(s, object);
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < u.count && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s=%.*s", i ? "," : "", u.items[i].key,
                                (int)u.items[i].value_len, (const char *)u.items[i].value);
    return out;
}

static int update(wk_scene *s, wk_entity object, const char *given, wk_user_data_policy policy, wk_status *st)
{
    char buf[256];
    wk_user_datum entries[16];
    size_t n = parse(given, buf, sizeof buf, entries);
    return wk_scene_update_user_data(s, object, entries, n, policy, st);
}

static void every_policy(void)
{
    const struct {
        wk_user_data_policy policy;
        const char *given;
        int code;
        const char *after; /* starting from a=1,b=2 */
    } table[] = {
        {WK_USER_DATA_UNSPECIFIED, "c=3", WK_OK, "a=1,b=2,c=3"},
        {WK_USER_DATA_UNSPECIFIED, "b=20,c=3", WK_EXISTS, "a=1,b=2"},
        {WK_USER_DATA_INSERT, "d=4,c=3", WK_OK, "a=1,b=2,c=3,d=4"},
        {WK_USER_DATA_INSERT, "c=3,a=10", WK_EXISTS, "a=1,b=2"},
        {WK_USER_DATA_INSERT, "", WK_OK, "a=1,b=2"},
        {WK_USER_DATA_INSERT_OR_UPDATE, "b=20,c=3", WK_OK, "a=1,b=20,c=3"},
        {WK_USER_DATA_INSERT_OR_UPDATE, "a=1", WK_OK, "a=1,b=2"},
        {WK_USER_DATA_REMOVE, "b=ignored,z=9", WK_OK, "a=1"},
        {WK_USER_DATA_REMOVE, "z", WK_OK, "a=1,b=2"},
        {WK_USER_DATA_REMOVE, "a,b", WK_OK, ""},
        {WK_USER_DATA_CLEAR_AND_REPLACE, "c=3,b=20", WK_OK, "b=20,c=3"},
        {WK_USER_DATA_CLEAR_AND_REPLACE, "", WK_OK, ""},
        {WK_USER_DATA_CLEAR_ALL, "c=3", WK_OK, ""},
        {(wk_user_data_policy)6, "c=3", WK_INVALID, "a=1,b=2"},
        {WK_USER_DATA_INSERT_OR_UPDATE, "c=3,c=4", WK_INVALID, "a=1,b=2"},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        wk_scene *s = new_world();
        REQUIRE(s);
        wk_entity o = object_at(s, "o", 0, wk_pose_identity());
        REQUIRE(o);
        wk_status st;
        REQUIRE_INT(update(s, o, "b=2,a=1", WK_USER_DATA_INSERT, &st), ==, WK_OK);
        char text[256];
        bool ok = CHECK_INT(update(s, o, table[i].given, table[i].policy, &st), ==, table[i].code);
        ok &= CHECK_STR(show(s, o, text, sizeof text), table[i].after);
        /* An empty map is no component at all. */
        ok &= CHECK_INT(wk_ecm_has(wk_scene_ecm(s), o, wk_scene_types_of(s)->user_data), ==, table[i].after[0] != 0);
        if (!ok)
            fprintf(stderr, "    row %zu: policy %d given '%s' (%s)\n", i, table[i].policy, table[i].given,
                    st.message);
        if (table[i].code == WK_EXISTS)
            CHECK(strstr(st.message, "'b'") || strstr(st.message, "'a'"));
        wk_scene_free(s);
    }
}

static void errors(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity o = object_at(s, "o", 0, wk_pose_identity());
    wk_entity f = frame_at(s, "f", o, wk_pose_identity());
    REQUIRE(o && f);
    wk_status st;
    CHECK_INT(update(s, f, "a=1", WK_USER_DATA_INSERT, &st), ==, WK_NOT_FOUND);
    wk_user_datum no_key = {NULL, URL, NULL, 0};
    CHECK_INT(wk_scene_update_user_data(s, o, &no_key, 1, WK_USER_DATA_INSERT, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "'o'") != NULL);
    /* The root object has user data like any other. */
    CHECK_INT(update(s, wk_scene_root(s), "k=v", WK_USER_DATA_INSERT, &st), ==, WK_OK);
    CHECK(wk_scene_user_datum(s, wk_scene_root(s), "k") != NULL);
    CHECK(wk_scene_user_datum(s, o, "k") == NULL);
    CHECK(wk_scene_user_datum(s, wk_scene_root(s), NULL) == NULL);
    wk_scene_free(s);
}

/* Values are bytes (NULs included), keys may be empty, type urls are kept,
 * and the order things came in does not matter. */
static void values_and_order(void)
{
    wk_scene *x = new_world(), *y = new_world();
    REQUIRE(x && y);
    wk_entity ox = object_at(x, "o", 0, wk_pose_identity()), oy = object_at(y, "o", 0, wk_pose_identity());
    REQUIRE(ox && oy);
    static const uint8_t blob[] = {0, 1, 0, 255};
    const wk_user_datum forward[] = {
        {"", NULL, NULL, 0},
        {"blob", "type.googleapis.com/google.protobuf.BytesValue", blob, sizeof blob},
        {"z", URL, (const uint8_t *)"last", 4},
    };
    const wk_user_datum backward[] = {forward[2], forward[1], forward[0]};
    wk_status st;
    REQUIRE_INT(wk_scene_update_user_data(x, ox, forward, 3, WK_USER_DATA_INSERT, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_update_user_data(y, oy, backward, 1, WK_USER_DATA_INSERT, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_update_user_data(y, oy, backward + 1, 2, WK_USER_DATA_INSERT, &st), ==, WK_OK);
    wk_status why = {0};
    if (!CHECK(wk_ecm_equal(wk_scene_ecm(x), wk_scene_ecm(y), &why)))
        fprintf(stderr, "    %s\n", why.message);
    wk_user_data u = wk_scene_user_data(x, ox);
    REQUIRE_INT(u.count, ==, 3);
    CHECK_STR(u.items[0].key, "");
    CHECK_STR(u.items[0].type_url, "");
    CHECK_STR(u.items[1].key, "blob");
    CHECK_INT(u.items[1].value_len, ==, sizeof blob);
    CHECK(memcmp(u.items[1].value, blob, sizeof blob) == 0);
    CHECK_STR(u.items[1].type_url, "type.googleapis.com/google.protobuf.BytesValue");
    CHECK_STR(u.items[2].key, "z");
    /* Setting the same value again changes nothing. */
    REQUIRE_INT(wk_ecm_end_step(wk_scene_ecm(x)), ==, WK_OK);
    REQUIRE_INT(wk_scene_update_user_data(x, ox, forward + 2, 1, WK_USER_DATA_INSERT_OR_UPDATE, &st), ==, WK_OK);
    CHECK_INT(wk_ecm_changed(wk_scene_ecm(x), ox, wk_scene_types_of(x)->user_data), ==, WK_NO_CHANGE);
    wk_scene_free(x);
    wk_scene_free(y);
}

static void copies_and_damage(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity a = object_at(s, "a", 0, wk_pose_identity()), b = object_at(s, "b", a, wk_pose_identity());
    REQUIRE(a && b);
    wk_status st;
    REQUIRE_INT(update(s, a, "x=1,y=22", WK_USER_DATA_INSERT, &st), ==, WK_OK);
    REQUIRE_INT(update(s, b, "k=v", WK_USER_DATA_INSERT, &st), ==, WK_OK);
    check_copies(s);
    wk_scene *g = state_copy(s);
    REQUIRE(g);
    char text[64];
    CHECK_STR(show(g, a, text, sizeof text), "x=1,y=22");
    CHECK_STR(wk_scene_user_datum(g, b, "k")->type_url, URL);
    wk_scene_free(g);
    CHECK_INT(check_decoder(s, "UserData"), >, 100);
    /* The data goes with its object. */
    REQUIRE_INT(wk_scene_delete_object(s, b, false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_user_data(s, b).count, ==, 0);
    wk_scene_free(s);
}

static const wk_test_case cases[] = {
    {"every_policy", every_policy},
    {"errors", errors},
    {"values_and_order", values_and_order},
    {"copies_and_damage", copies_and_damage},
};
WK_TEST_MAIN(cases)
