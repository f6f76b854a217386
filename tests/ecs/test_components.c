/* test_components.c — component types and per-entity components: register,
 * set (with its changed result), get, get-or-add, remove, has, type lists,
 * first, and finding entities by component values. */
#include "ecs/fixture.h"
#include "wk_test.h"

static void register_is_stable_per_name(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_type again = 0;
    CHECK_INT(wk_ecm_register(f.ecm, &(wk_type_desc){.name = "Position", .size = sizeof(vec)}, &again), ==, WK_OK);
    CHECK_INT(again, ==, f.pos);
    CHECK_INT(wk_ecm_register(f.ecm, &(wk_type_desc){.name = "Position", .size = 8}, &again), ==, WK_MISMATCH);
    CHECK(strstr(wk_ecm_errmsg(f.ecm), "Position") != NULL);
    CHECK_INT(wk_ecm_register(f.ecm, &(wk_type_desc){.name = "", .size = 8}, &again), ==, WK_INVALID);
    CHECK_INT(wk_ecm_register(f.ecm, &(wk_type_desc){.name = "Odd", .size = 8, .align = 3}, &again), ==, WK_INVALID);
    CHECK_INT(wk_ecm_type_by_name(f.ecm, "Velocity"), ==, f.vel);
    CHECK_INT(wk_ecm_type_by_name(f.ecm, "Nope"), ==, WK_NO_TYPE);
    CHECK_STR(wk_ecm_type_name(f.ecm, f.name), "Name");
    CHECK(wk_ecm_type_name(f.ecm, 999) == NULL);
    wk_ecm_free(f.ecm);
}

static void set_get_reports_change(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity e = wk_ecm_create(f.ecm);
    CHECK(!wk_ecm_type_in_use(f.ecm, f.pos));
    vec v = {1, 2, 3};
    CHECK_INT(wk_ecm_set(f.ecm, e, f.pos, &v), ==, 1); /* added */
    CHECK(wk_ecm_type_in_use(f.ecm, f.pos));
    CHECK_INT(wk_ecm_set(f.ecm, e, f.pos, &v), ==, 0); /* same value */
    v.y = 5;
    CHECK_INT(wk_ecm_set(f.ecm, e, f.pos, &v), ==, 1); /* changed */
    const vec *got = wk_ecm_get(f.ecm, e, f.pos);
    REQUIRE(got);
    CHECK_NEAR(got->y, 5, 0);
    CHECK(wk_ecm_get(f.ecm, e, f.vel) == NULL);
    CHECK(wk_ecm_has(f.ecm, e, f.pos));
    CHECK(!wk_ecm_has(f.ecm, e, f.vel));
    CHECK_INT(wk_ecm_set(f.ecm, e, 999, &v), ==, WK_INVALID);
    CHECK(strstr(wk_ecm_errmsg(f.ecm), "999") != NULL);
    wk_ecm_free(f.ecm);
}

static void hooked_values_are_deep_copies(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity e = wk_ecm_create(f.ecm);
    char buf[16] = "robot";
    CHECK_INT(set_name(&f, e, buf), ==, 1);
    strcpy(buf, "other");
    CHECK_STR(get_name(&f, e), "robot");
    CHECK_INT(set_name(&f, e, "robot"), ==, 0); /* equal through the hook */
    CHECK_INT(set_name(&f, e, "arm"), ==, 1);
    CHECK_STR(get_name(&f, e), "arm");
    wk_ecm_free(f.ecm); /* ASan reports any string leaked or freed twice */
}

static void set_from_own_storage_survives_moves(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity first = wk_ecm_create(f.ecm);
    vec v = {7, 8, 9};
    wk_ecm_set(f.ecm, first, f.pos, &v);
    set_name(&f, first, "first");
    /* Each set below moves rows and may grow the columns its value lives in. */
    for (int i = 0; i < 200; i++) {
        wk_entity e = wk_ecm_create(f.ecm);
        CHECK_INT(wk_ecm_set(f.ecm, e, f.pos, wk_ecm_get(f.ecm, first, f.pos)), ==, 1);
        CHECK_INT(wk_ecm_set(f.ecm, e, f.name, wk_ecm_get(f.ecm, first, f.name)), ==, 1);
    }
    wk_entity_list same = {0};
    CHECK_INT(wk_ecm_find(f.ecm, (wk_match[]){{f.pos, &v}, {f.name, &(const char *){"first"}}}, 2, &same), ==,
              WK_OK);
    CHECK_INT(same.count, ==, 201);
    wk_entity_list_free(&same);
    wk_ecm_free(f.ecm);
}

static void get_or_add(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity e = wk_ecm_create(f.ecm);
    vec dflt = {4, 5, 6};
    vec *p = wk_ecm_get_or_add(f.ecm, e, f.pos, &dflt);
    REQUIRE(p);
    CHECK_NEAR(p->z, 6, 0);
    p->z = 10;
    vec other = {0, 0, 0};
    vec *q = wk_ecm_get_or_add(f.ecm, e, f.pos, &other);
    CHECK(q == p);
    CHECK_NEAR(q->z, 10, 0);
    CHECK(wk_ecm_get_or_add(f.ecm, e, f.tag, NULL) == NULL); /* tags have no data */
    vec *zero = wk_ecm_get_or_add(f.ecm, e, f.vel, NULL);
    REQUIRE(zero);
    CHECK_NEAR(zero->x + zero->y + zero->z, 0, 0);
    wk_ecm_free(f.ecm);
}

static void remove_and_types(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity e = wk_ecm_create(f.ecm);
    vec v = {1, 1, 1};
    wk_ecm_set(f.ecm, e, f.vel, &v);
    wk_ecm_set(f.ecm, e, f.tag, NULL);
    set_name(&f, e, "n");
    wk_type types[8];
    CHECK_INT(wk_ecm_component_types(f.ecm, e, types, 8), ==, 3);
    CHECK_INT(types[0], ==, f.vel);
    CHECK_INT(types[1], ==, f.name);
    CHECK_INT(types[2], ==, f.tag);
    CHECK(wk_ecm_matches(f.ecm, e, (wk_type[]){f.vel, f.tag}, 2));
    CHECK(!wk_ecm_matches(f.ecm, e, (wk_type[]){f.vel, f.pos}, 2));
    CHECK_INT(wk_ecm_remove(f.ecm, e, f.name), ==, 1);
    CHECK_INT(wk_ecm_remove(f.ecm, e, f.name), ==, 0);
    CHECK_INT(wk_ecm_remove(f.ecm, e, f.pos), ==, 0);
    CHECK(!wk_ecm_has(f.ecm, e, f.name));
    const vec *kept = wk_ecm_get(f.ecm, e, f.vel);
    REQUIRE(kept);
    CHECK_NEAR(kept->x, 1, 0);
    CHECK(wk_ecm_has(f.ecm, e, f.tag));
    CHECK_INT(wk_ecm_component_types(f.ecm, e, types, 1), ==, 2);
    CHECK_INT(wk_ecm_remove(f.ecm, 12345, f.pos), ==, WK_STALE);
    wk_ecm_free(f.ecm);
}

static void first_and_find(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    CHECK(wk_ecm_first(f.ecm, f.pos, NULL) == NULL);
    wk_entity parent = wk_ecm_create(f.ecm);
    wk_entity a = wk_ecm_create(f.ecm), b = wk_ecm_create(f.ecm), c = wk_ecm_create(f.ecm);
    set_name(&f, a, "camera");
    set_name(&f, b, "lidar");
    set_name(&f, c, "camera");
    wk_ecm_set(f.ecm, c, f.tag, NULL);
    wk_ecm_set_parent(f.ecm, a, parent);
    wk_ecm_set_parent(f.ecm, b, parent);
    wk_entity owner = 0;
    char *const *first = wk_ecm_first(f.ecm, f.name, &owner);
    REQUIRE(first);
    CHECK(owner == a || owner == b || owner == c);
    CHECK_STR(*first, get_name(&f, owner));

    const char *camera = "camera";
    wk_entity_list found = {0};
    CHECK_INT(wk_ecm_find(f.ecm, (wk_match[]){{f.name, &camera}}, 1, &found), ==, WK_OK);
    CHECK_INT(found.count, ==, 2);
    found.count = 0;
    CHECK_INT(wk_ecm_find(f.ecm, (wk_match[]){{f.name, &camera}, {f.tag, NULL}}, 2, &found), ==, WK_OK);
    CHECK_INT(found.count, ==, 1);
    CHECK_U64(found.items[0], ==, c);
    CHECK_U64(wk_ecm_find_one(f.ecm, (wk_match[]){{f.name, &(const char *){"lidar"}}}, 1), ==, b);
    CHECK_U64(wk_ecm_find_one(f.ecm, (wk_match[]){{f.name, &(const char *){"radar"}}}, 1), ==, WK_NULL_ENTITY);
    found.count = 0;
    CHECK_INT(wk_ecm_find_children(f.ecm, parent, (wk_match[]){{f.name, &camera}}, 1, &found), ==, WK_OK);
    CHECK_INT(found.count, ==, 1);
    CHECK_U64(found.items[0], ==, a);
    wk_entity_list_free(&found);
    wk_ecm_free(f.ecm);
}

static void aligned_type(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    typedef struct wide {
        _Alignas(64) double v[8];
    } wide;
    wk_type t;
    REQUIRE_INT(wk_ecm_register(ecm, &(wk_type_desc){.name = "Wide", .size = sizeof(wide), .align = 64}, &t), ==,
                WK_OK);
    int misaligned = 0;
    for (int i = 0; i < 300; i++) {
        wk_entity e = wk_ecm_create(ecm);
        wide w = {{i}};
        wk_ecm_set(ecm, e, t, &w);
        misaligned += ((uintptr_t)wk_ecm_get(ecm, e, t) % 64) != 0;
    }
    CHECK_INT(misaligned, ==, 0);
    wk_ecm_free(ecm);
}

static void create_with_components(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    const char *name = "rover";
    vec p = {1, 2, 3};
    wk_type types[] = {f.name, f.pos, f.tag, f.vel};
    wk_entity e = wk_ecm_create_with(f.ecm, types, (const void *[]){&name, &p, NULL, NULL}, 4);
    REQUIRE(e != WK_NULL_ENTITY);
    CHECK_STR(get_name(&f, e), "rover");
    const vec *got = wk_ecm_get(f.ecm, e, f.pos), *zero = wk_ecm_get(f.ecm, e, f.vel);
    REQUIRE(got && zero);
    CHECK_NEAR(got->z, 3, 0);
    CHECK_NEAR(zero->x + zero->y + zero->z, 0, 0);
    CHECK(wk_ecm_has(f.ecm, e, f.tag));
    CHECK(wk_ecm_is_new(f.ecm, e));
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_ONE_TIME_CHANGE);
    CHECK(wk_ecm_type_in_use(f.ecm, f.tag));
    /* The same table as sets in another order reach. */
    wk_entity g = wk_ecm_create(f.ecm);
    wk_ecm_set(f.ecm, g, f.vel, &p);
    wk_ecm_set(f.ecm, g, f.tag, NULL);
    set_name(&f, g, "x");
    wk_ecm_set(f.ecm, g, f.pos, &p);
    wk_query *q = wk_query_new(f.ecm, &(wk_query_desc){.with = {f.name, f.pos, f.vel, f.tag}});
    REQUIRE(q);
    wk_iter it = wk_query_iter(q);
    CHECK(wk_iter_next(&it));
    CHECK_INT(it.count, ==, 2);
    wk_iter_fini(&it);

    CHECK_U64(wk_ecm_create_with(f.ecm, (wk_type[]){f.pos, f.pos}, NULL, 2), ==, WK_NULL_ENTITY);
    CHECK(strstr(wk_ecm_errmsg(f.ecm), "twice") != NULL);
    CHECK_U64(wk_ecm_create_with(f.ecm, (wk_type[]){f.pos, 99}, NULL, 2), ==, WK_NULL_ENTITY);
    CHECK_INT(wk_ecm_count(f.ecm), ==, 2); /* failures create nothing */
    wk_ecm_free(f.ecm);
}

static void create_with_values_from_own_storage(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_type types[] = {f.pos, f.name};
    const char *name = "twin";
    vec p = {5, 6, 7};
    wk_entity first = wk_ecm_create_with(f.ecm, types, (const void *[]){&p, &name}, 2);
    REQUIRE(first);
    /* Copies of the first entity's own values, across table growth. */
    int wrong = 0;
    for (int i = 0; i < 300; i++) {
        wk_entity e = wk_ecm_create_with(
            f.ecm, types, (const void *[]){wk_ecm_get(f.ecm, first, f.pos), wk_ecm_get(f.ecm, first, f.name)}, 2);
        const vec *v = wk_ecm_get(f.ecm, e, f.pos);
        wrong += !v || v->y != 6 || !get_name(&f, e) || strcmp(get_name(&f, e), "twin") != 0;
    }
    CHECK_INT(wrong, ==, 0);
    wk_ecm_free(f.ecm);
}

/* Entities of kinds made in turn each get exactly their kind's types, and
 * a table emptied by a rollback marks its types in use again when next
 * filled. */
static void create_with_kinds_in_turn(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    const wk_type kinds[][2] = {{f.pos, f.vel}, {f.pos, 0}, {f.vel, f.pos}, {f.pos, f.vel}, {f.vel, 0}};
    const size_t sizes[] = {2, 1, 2, 2, 1};
    const wk_type want[][2] = {{f.pos, f.vel}, {f.pos, 0}, {f.pos, f.vel}, {f.pos, f.vel}, {f.vel, 0}};
    for (size_t k = 0; k < 5; k++) {
        wk_entity e = wk_ecm_create_with(f.ecm, kinds[k], NULL, sizes[k]);
        REQUIRE(e != WK_NULL_ENTITY);
        wk_type got[4] = {0};
        CHECK_INT(wk_ecm_component_types(f.ecm, e, got, 4), ==, sizes[k]);
        CHECK_INT(got[0], ==, want[k][0]);
        CHECK_INT(got[1], ==, want[k][1]);
    }
    /* A list that fails after one that was remembered still fails. */
    CHECK_U64(wk_ecm_create_with(f.ecm, (wk_type[]){f.vel, f.vel}, NULL, 2), ==, WK_NULL_ENTITY);
    CHECK_INT(wk_ecm_count(f.ecm), ==, 5);

    wk_ecm *ecm = fixture_new().ecm;
    REQUIRE(ecm);
    wk_type name = wk_ecm_type_by_name(ecm, "Name");
    REQUIRE(wk_ecm_txn_begin(ecm) == WK_OK);
    REQUIRE(wk_ecm_create_with(ecm, &name, NULL, 1));
    CHECK(wk_ecm_type_in_use(ecm, name));
    REQUIRE(wk_ecm_txn_rollback(ecm) == WK_OK);
    CHECK(!wk_ecm_type_in_use(ecm, name));
    REQUIRE(wk_ecm_create_with(ecm, &name, NULL, 1));
    CHECK(wk_ecm_type_in_use(ecm, name));
    wk_ecm_free(ecm);
    wk_ecm_free(f.ecm);
}

static const wk_test_case cases[] = {
    {"create_with_components", create_with_components},
    {"create_with_values_from_own_storage", create_with_values_from_own_storage},
    {"create_with_kinds_in_turn", create_with_kinds_in_turn},
    {"register_is_stable_per_name", register_is_stable_per_name},
    {"set_get_reports_change", set_get_reports_change},
    {"hooked_values_are_deep_copies", hooked_values_are_deep_copies},
    {"set_from_own_storage_survives_moves", set_from_own_storage_survives_moves},
    {"get_or_add", get_or_add},
    {"remove_and_types", remove_and_types},
    {"first_and_find", first_and_find},
    {"aligned_type", aligned_type},
};
WK_TEST_MAIN(cases)
