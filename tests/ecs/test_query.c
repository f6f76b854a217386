/* test_query.c — cached views: matching with and without types, staying
 * correct as tables appear and entities move, iterating new and removed
 * entities, and structural changes made while an iteration is open. */
#include "ecs/fixture.h"
#include "wk_test.h"

/* Sums pos.x over the query's batches, counting rows into *rows. */
static double sum_x(wk_query *q, size_t *rows)
{
    double sum = 0;
    *rows = 0;
    wk_iter it = wk_query_iter(q);
    while (wk_iter_next(&it)) {
        const vec *p = wk_iter_column(&it, 0);
        for (size_t i = 0; i < it.count; i++)
            sum += p[i].x;
        *rows += it.count;
    }
    return sum;
}

static wk_entity spawn(fixture *f, double x, bool with_vel, bool tagged)
{
    wk_entity e = wk_ecm_create(f->ecm);
    wk_ecm_set(f->ecm, e, f->pos, &(vec){x, 0, 0});
    if (with_vel)
        wk_ecm_set(f->ecm, e, f->vel, &(vec){1, 1, 1});
    if (tagged)
        wk_ecm_set(f->ecm, e, f->tag, NULL);
    return e;
}

static void with_and_without(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    spawn(&f, 1, false, false);
    spawn(&f, 2, true, false);
    spawn(&f, 4, true, true);
    wk_query *all = wk_query_new(f.ecm, &(wk_query_desc){.with = {f.pos}});
    wk_query *moving = wk_query_new(f.ecm, &(wk_query_desc){.with = {f.pos, f.vel}});
    wk_query *loose = wk_query_new(f.ecm, &(wk_query_desc){.with = {f.pos}, .without = {f.tag}});
    REQUIRE(all && moving && loose);
    size_t rows;
    CHECK_NEAR(sum_x(all, &rows), 7, 0);
    CHECK_INT(rows, ==, 3);
    CHECK_NEAR(sum_x(moving, &rows), 6, 0);
    CHECK_NEAR(sum_x(loose, &rows), 3, 0);
    CHECK(wk_query_new(f.ecm, &(wk_query_desc){.without = {f.tag}}) == NULL);
    CHECK(wk_query_new(f.ecm, &(wk_query_desc){.with = {77}}) == NULL);
    CHECK(strstr(wk_ecm_errmsg(f.ecm), "77") != NULL);
    wk_query_free(moving);
    wk_ecm_free(f.ecm); /* frees the queries still attached */
}

static void view_stays_correct(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_query *q = wk_query_new(f.ecm, &(wk_query_desc){.with = {f.pos, f.vel}});
    REQUIRE(q);
    size_t rows;
    CHECK_NEAR(sum_x(q, &rows), 0, 0);
    wk_entity a = spawn(&f, 10, true, false); /* tables created after the query */
    wk_entity b = spawn(&f, 20, true, true);
    CHECK_NEAR(sum_x(q, &rows), 30, 0);
    wk_ecm_remove(f.ecm, a, f.vel);
    CHECK_NEAR(sum_x(q, &rows), 20, 0);
    wk_ecm_set(f.ecm, a, f.vel, &(vec){0});
    wk_ecm_remove(f.ecm, b, f.tag);
    CHECK_NEAR(sum_x(q, &rows), 30, 0);
    CHECK_INT(rows, ==, 2);
    wk_ecm_destroy(f.ecm, b, true);
    CHECK_NEAR(sum_x(q, &rows), 10, 0);
    wk_ecm_free(f.ecm);
}

static void iterate_and_mutate_in_place(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    for (int i = 0; i < 100; i++)
        spawn(&f, i, true, i % 3 == 0);
    wk_query *q = wk_query_new(f.ecm, &(wk_query_desc){.with = {f.pos, f.vel}});
    REQUIRE(q);
    wk_iter it = wk_query_iter(q);
    while (wk_iter_next(&it)) {
        vec *p = wk_iter_column(&it, 0);
        const vec *v = wk_iter_column(&it, 1);
        for (size_t i = 0; i < it.count; i++)
            p[i].x += v[i].x * 0.5;
    }
    size_t rows;
    CHECK_NEAR(sum_x(q, &rows), 4950 + 50, 1e-9);
    wk_ecm_free(f.ecm);
}

static void structural_changes_are_deferred(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity ids[10];
    for (int i = 0; i < 10; i++)
        ids[i] = spawn(&f, i, false, false);
    wk_query *q = wk_query_new(f.ecm, &(wk_query_desc){.with = {f.pos}});
    REQUIRE(q);
    size_t visited = 0;
    wk_iter it = wk_query_iter(q);
    while (wk_iter_next(&it)) {
        for (size_t i = 0; i < it.count; i++, visited++) {
            wk_entity e = it.entities[i];
            const vec *p = wk_iter_column(&it, 0);
            int x = (int)p[i].x;
            if (x % 2 == 0) {
                CHECK_INT(wk_ecm_set(f.ecm, e, f.vel, &(vec){x, 0, 0}), ==, 1);
                CHECK(!wk_ecm_has(f.ecm, e, f.vel)); /* not yet */
            }
            if (x == 3)
                CHECK_INT(wk_ecm_destroy(f.ecm, e, true), ==, WK_OK);
            if (x == 5)
                CHECK_INT(wk_ecm_remove(f.ecm, e, f.pos), ==, 1);
            if (x == 7) {
                vec *staged = wk_ecm_get_or_add(f.ecm, e, f.vel, &(vec){70, 0, 0});
                REQUIRE(staged);
                staged->y = 1; /* writes to the queued value are kept */
            }
            CHECK(wk_ecm_exists(f.ecm, e));
        }
    }
    CHECK_INT(visited, ==, 10); /* nothing moved under the iterator */
    CHECK_INT(wk_ecm_end_step(f.ecm), ==, WK_OK);
    CHECK(wk_ecm_has(f.ecm, ids[4], f.vel));
    CHECK(!wk_ecm_exists(f.ecm, ids[3]));
    CHECK(!wk_ecm_has(f.ecm, ids[5], f.pos));
    const vec *v7 = wk_ecm_get(f.ecm, ids[7], f.vel);
    REQUIRE(v7);
    CHECK_NEAR(v7->x, 70, 0);
    CHECK_NEAR(v7->y, 1, 0);
    wk_ecm_free(f.ecm);
}

static void early_exit_needs_fini(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity e = spawn(&f, 1, false, false);
    wk_query *q = wk_query_new(f.ecm, &(wk_query_desc){.with = {f.pos}});
    REQUIRE(q);
    wk_iter it = wk_query_iter(q);
    CHECK(wk_iter_next(&it));
    CHECK_INT(wk_ecm_end_step(f.ecm), ==, WK_BUSY);
    wk_ecm_set(f.ecm, e, f.vel, &(vec){1, 2, 3});
    CHECK(!wk_ecm_has(f.ecm, e, f.vel));
    wk_iter_fini(&it);
    wk_iter_fini(&it); /* idempotent */
    CHECK(wk_ecm_has(f.ecm, e, f.vel));
    CHECK_INT(wk_ecm_end_step(f.ecm), ==, WK_OK);
    wk_ecm_free(f.ecm);
}

static void each_new_and_removed(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_query *q = wk_query_new(f.ecm, &(wk_query_desc){.with = {f.pos}});
    REQUIRE(q);
    wk_entity a = spawn(&f, 1, false, false);
    wk_entity b = spawn(&f, 2, false, false);
    wk_ecm_create(f.ecm); /* new, but no Position */
    size_t n = 0;
    double sum = 0;
    for (wk_iter it = wk_query_iter_new(q); wk_iter_next(&it);)
        n += it.count, sum += ((vec *)wk_iter_column(&it, 0))->x;
    CHECK_INT(n, ==, 2);
    CHECK_NEAR(sum, 3, 0);
    CHECK(wk_ecm_has_new_entities(f.ecm));
    CHECK(wk_ecm_is_new(f.ecm, a));
    wk_ecm_end_step(f.ecm);
    CHECK(!wk_ecm_has_new_entities(f.ecm));
    n = 0;
    for (wk_iter it = wk_query_iter_new(q); wk_iter_next(&it);)
        n += it.count;
    CHECK_INT(n, ==, 0);

    CHECK_INT(wk_ecm_request_remove(f.ecm, b, true), ==, WK_OK);
    wk_entity seen = 0;
    n = 0;
    for (wk_iter it = wk_query_iter_removed(q); wk_iter_next(&it);)
        n += it.count, seen = it.entities[0];
    CHECK_INT(n, ==, 1);
    CHECK_U64(seen, ==, b);
    wk_ecm_free(f.ecm);
}

static const wk_test_case cases[] = {
    {"with_and_without", with_and_without},
    {"view_stays_correct", view_stays_correct},
    {"iterate_and_mutate_in_place", iterate_and_mutate_in_place},
    {"structural_changes_are_deferred", structural_changes_are_deferred},
    {"early_exit_needs_fini", early_exit_needs_fini},
    {"each_new_and_removed", each_new_and_removed},
};
WK_TEST_MAIN(cases)
