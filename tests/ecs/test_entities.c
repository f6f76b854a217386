/* test_entities.c — entity ids: creation, existence, counting, generations
 * that expose stale ids, slot reuse, and the create offset. */
#include "ecs/fixture.h"
#include "wk_test.h"

static void create_exists_count(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    CHECK_INT(wk_ecm_count(ecm), ==, 0);
    wk_entity a = wk_ecm_create(ecm), b = wk_ecm_create(ecm);
    CHECK(a != WK_NULL_ENTITY && b != WK_NULL_ENTITY && a != b);
    CHECK_U64(a, ==, 1); /* first slot, generation 0: ids read like Gazebo's */
    CHECK_U64(b, ==, 2);
    CHECK(wk_ecm_exists(ecm, a));
    CHECK(!wk_ecm_exists(ecm, WK_NULL_ENTITY));
    CHECK(!wk_ecm_exists(ecm, 999));
    CHECK_INT(wk_ecm_count(ecm), ==, 2);
    wk_ecm_free(ecm);
    wk_ecm_free(NULL); /* a no-op, as free(NULL) is */
}

static void stale_id_is_never_aliased(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity a = wk_ecm_create(f.ecm);
    CHECK_INT(wk_ecm_destroy(f.ecm, a, true), ==, WK_OK);
    CHECK(!wk_ecm_exists(f.ecm, a));
    wk_entity b = wk_ecm_create(f.ecm);
    /* Same slot, new generation. */
    CHECK_U64((uint32_t)b, ==, (uint32_t)a);
    CHECK_U64(b, !=, a);
    CHECK(wk_ecm_exists(f.ecm, b));
    CHECK(!wk_ecm_exists(f.ecm, a));
    vec v = {1, 2, 3};
    CHECK_INT(wk_ecm_set(f.ecm, a, f.pos, &v), ==, WK_STALE);
    CHECK(strstr(wk_ecm_errmsg(f.ecm), "does not exist") != NULL);
    CHECK(wk_ecm_get(f.ecm, a, f.pos) == NULL);
    CHECK_INT(wk_ecm_destroy(f.ecm, a, true), ==, WK_STALE);
    CHECK(wk_ecm_exists(f.ecm, b));
    CHECK_INT(wk_ecm_count(f.ecm), ==, 1);
    wk_ecm_free(f.ecm);
}

static void create_offset(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    wk_entity a = wk_ecm_create(ecm);
    CHECK_INT(wk_ecm_set_create_offset(ecm, 0), ==, WK_RANGE);
    CHECK_INT(wk_ecm_set_create_offset(ecm, 1ull << 32), ==, WK_RANGE);
    CHECK_INT(wk_ecm_set_create_offset(ecm, 1000000), ==, WK_OK);
    wk_entity b = wk_ecm_create(ecm), c = wk_ecm_create(ecm);
    CHECK_U64(b, ==, 1000000);
    CHECK_U64(c, ==, 1000001);
    /* A slot freed below the offset is not reused. */
    CHECK_INT(wk_ecm_destroy(ecm, a, false), ==, WK_OK);
    CHECK_U64(wk_ecm_create(ecm), ==, 1000002);
    CHECK_INT(wk_ecm_count(ecm), ==, 3);
    wk_ecm_free(ecm);
}

static void offset_below_live_entities_skips_them(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    for (int i = 0; i < 5; i++)
        wk_ecm_create(ecm);
    CHECK_INT(wk_ecm_set_create_offset(ecm, 3), ==, WK_OK);
    wk_entity e = wk_ecm_create(ecm);
    CHECK_U64(e, ==, 6); /* 3, 4 and 5 are alive */
    CHECK_INT(wk_ecm_count(ecm), ==, 6);
    wk_ecm_free(ecm);
}

static void many_entities_cross_pages(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    enum { N = 10000 };
    static wk_entity ids[N];
    for (int i = 0; i < N; i++) {
        ids[i] = wk_ecm_create(f.ecm);
        vec v = {i, 0, 0};
        REQUIRE_INT(wk_ecm_set(f.ecm, ids[i], f.pos, &v), ==, 1);
    }
    for (int i = 0; i < N; i += 2)
        CHECK_INT(wk_ecm_destroy(f.ecm, ids[i], false), ==, WK_OK);
    CHECK_INT(wk_ecm_count(f.ecm), ==, N / 2);
    int bad = 0;
    for (int i = 1; i < N; i += 2) {
        const vec *v = wk_ecm_get(f.ecm, ids[i], f.pos);
        bad += !v || v->x != i;
    }
    CHECK_INT(bad, ==, 0);
    wk_ecm_free(f.ecm);
}

static const wk_test_case cases[] = {
    {"create_exists_count", create_exists_count},
    {"stale_id_is_never_aliased", stale_id_is_never_aliased},
    {"create_offset", create_offset},
    {"offset_below_live_entities_skips_them", offset_below_live_entities_skips_them},
    {"many_entities_cross_pages", many_entities_cross_pages},
};
WK_TEST_MAIN(cases)
