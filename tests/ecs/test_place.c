/* test_place.c — a set through a place (wk_ecm_place_set) leaves what a
 * wk_ecm_set would: the value, its change mark, the step's record of the
 * entity touched, the version; and it keeps doing so after the storage
 * under it moved (rows swapped, tables grown, the entity given a
 * component, destroyed) and inside a transaction. A cell written in place
 * (wk_ecm_place_cell, wk_ecm_place_changed) is the component's own, found
 * again when the storage moves, and refused where a set must go the long
 * way. */
#include "ecs/fixture.h"
#include "wk_test.h"

/* Counts the step's WK_STEP_TOUCHED facts of one entity and component. */
typedef struct touched {
    wk_entity e;
    wk_type type;
    int count;
} touched;

static void count_touched(wk_entity e, wk_step_fact fact, wk_type type, void *ctx)
{
    touched *t = ctx;
    t->count += fact == WK_STEP_TOUCHED && e == t->e && type == t->type;
}

static int times_reported(const fixture *f, wk_entity e, wk_type type)
{
    touched t = {e, type, 0};
    wk_ecm_step_facts(f->ecm, count_touched, &t);
    return t.count;
}

static bool holds(const fixture *f, wk_entity e, vec v)
{
    const vec *at = wk_ecm_get(f->ecm, e, f->pos);
    return at && at->x == v.x && at->y == v.y && at->z == v.z;
}

/* An entity holding (x, 0, 0), its creation settled by the end of a step. */
static wk_entity settled(const fixture *f, double x)
{
    wk_entity e = wk_ecm_create(f->ecm);
    CHECK_INT(wk_ecm_set(f->ecm, e, f->pos, &(vec){x, 0, 0}), ==, 1);
    CHECK_INT(wk_ecm_end_step(f->ecm), ==, WK_OK);
    return e;
}

static void a_set_is_reported_every_step(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity e = settled(&f, 0);
    wk_ecm_place place;
    wk_ecm_place_init(&place, e, f.pos);
    for (int step = 1; step <= 3; step++) {
        uint64_t version = wk_ecm_version(f.ecm);
        CHECK_INT(wk_ecm_place_set(f.ecm, &place, &(vec){step, 0, 0}), ==, 1);
        CHECK(holds(&f, e, (vec){step, 0, 0}));
        CHECK_U64(wk_ecm_version(f.ecm), >, version);
        CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_ONE_TIME_CHANGE);
        CHECK_INT(times_reported(&f, e, f.pos), ==, 1);
        /* The same value again is no change, as for wk_ecm_set. */
        version = wk_ecm_version(f.ecm);
        CHECK_INT(wk_ecm_place_set(f.ecm, &place, &(vec){step, 0, 0}), ==, 0);
        CHECK_U64(wk_ecm_version(f.ecm), ==, version);
        REQUIRE_INT(wk_ecm_end_step(f.ecm), ==, WK_OK);
        CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_NO_CHANGE);
        CHECK_INT(times_reported(&f, e, f.pos), ==, 0);
    }
    /* An equal value in a new step leaves it unmarked. */
    CHECK_INT(wk_ecm_place_set(f.ecm, &place, &(vec){3, 0, 0}), ==, 0);
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_NO_CHANGE);
    /* A periodic mark stays periodic, as for wk_ecm_set. */
    REQUIRE_INT(wk_ecm_set_changed(f.ecm, e, f.pos, WK_PERIODIC_CHANGE), ==, WK_OK);
    CHECK_INT(wk_ecm_place_set(f.ecm, &place, &(vec){4, 0, 0}), ==, 1);
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_PERIODIC_CHANGE);
    wk_ecm_free(f.ecm);
}

/* Many entities of one kind, a place each; the storage is moved under the
 * places in each way it can move, and every place set after each. */
#define MANY 100

/* Sets e[i]'s component to (i, round, 0) through its place, for i in
 * [from, to), and checks that each holds its own, marked. */
static void set_all(const fixture *f, const wk_entity *e, wk_ecm_place *place, int from, int to, int round)
{
    for (int i = from; i < to; i++)
        CHECK_INT(wk_ecm_place_set(f->ecm, &place[i], &(vec){i, round, 0}), ==, 1);
    for (int i = from; i < to; i++) {
        CHECK(holds(f, e[i], (vec){i, round, 0}));
        CHECK_INT(wk_ecm_changed(f->ecm, e[i], f->pos), ==, WK_ONE_TIME_CHANGE);
    }
}

/* How many entities hold the value the filler entities were given. */
static size_t fillers(const fixture *f)
{
    wk_entity_list all = {0};
    CHECK_INT(wk_ecm_find(f->ecm, &(wk_match){f->pos, &(vec){-1, -1, -1}}, 1, &all), ==, WK_OK);
    size_t n = all.count;
    wk_entity_list_free(&all);
    return n;
}

static void sets_follow_the_storage(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity e[MANY];
    wk_ecm_place place[MANY];
    for (int i = 0; i < MANY; i++) {
        e[i] = wk_ecm_create(f.ecm);
        REQUIRE_INT(wk_ecm_set(f.ecm, e[i], f.pos, &(vec){i, 0, 0}), ==, 1);
        wk_ecm_place_init(&place[i], e[i], f.pos);
    }
    REQUIRE_INT(wk_ecm_end_step(f.ecm), ==, WK_OK);
    set_all(&f, e, place, 0, MANY, 1);
    REQUIRE_INT(wk_ecm_end_step(f.ecm), ==, WK_OK);
    /* The last one destroyed: its row goes, and a filler created takes it. */
    REQUIRE_INT(wk_ecm_destroy(f.ecm, e[MANY - 1], false), ==, WK_OK);
    REQUIRE_INT(wk_ecm_set(f.ecm, wk_ecm_create(f.ecm), f.pos, &(vec){-1, -1, -1}), ==, 1);
    /* A destroyed entity's place fails as wk_ecm_set does. */
    CHECK_INT(wk_ecm_place_set(f.ecm, &place[MANY - 1], &(vec){0, 2, 0}), ==, WK_STALE);
    set_all(&f, e, place, 0, MANY - 1, 2);
    CHECK_INT(fillers(&f), ==, 1);
    /* The first destroyed: the table's last row moves into its place. */
    REQUIRE_INT(wk_ecm_destroy(f.ecm, e[0], false), ==, WK_OK);
    set_all(&f, e, place, 1, MANY - 1, 3);
    CHECK_INT(fillers(&f), ==, 1);
    /* The second moves to another table, the last row into its place. */
    REQUIRE_INT(wk_ecm_set(f.ecm, e[1], f.vel, &(vec){0, 0, 0}), ==, 1);
    set_all(&f, e, place, 1, MANY - 1, 4);
    CHECK_INT(fillers(&f), ==, 1);
    /* Others grow the table (past the 64 rows it started with, again). */
    for (int i = 0; i < 200; i++)
        REQUIRE_INT(wk_ecm_set(f.ecm, wk_ecm_create(f.ecm), f.pos, &(vec){-1, -1, -1}), ==, 1);
    set_all(&f, e, place, 1, MANY - 1, 5);
    CHECK_INT(fillers(&f), ==, 201);
    /* A step later, settled and set again through the same places. */
    REQUIRE_INT(wk_ecm_end_step(f.ecm), ==, WK_OK);
    for (int i = 1; i < MANY - 1; i++)
        CHECK_INT(wk_ecm_changed(f.ecm, e[i], f.pos), ==, WK_NO_CHANGE);
    set_all(&f, e, place, 1, MANY - 1, 6);
    for (int i = 1; i < MANY - 1; i++)
        CHECK_INT(times_reported(&f, e[i], f.pos), ==, 1);
    wk_ecm_free(f.ecm);
}

/* A settled entity whose place found its cell setting it to (2, 0, 0). */
static wk_entity placed(const fixture *f, wk_ecm_place *place)
{
    wk_entity e = settled(f, 1);
    wk_ecm_place_init(place, e, f->pos);
    CHECK_INT(wk_ecm_place_set(f->ecm, place, &(vec){2, 0, 0}), ==, 1);
    return e;
}

static void a_rollback_undoes_a_set(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_ecm_place place;
    wk_entity e = placed(&f, &place);
    REQUIRE_INT(wk_ecm_end_step(f.ecm), ==, WK_OK);
    REQUIRE_INT(wk_ecm_txn_begin(f.ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_place_set(f.ecm, &place, &(vec){3, 0, 0}), ==, 1);
    CHECK(holds(&f, e, (vec){3, 0, 0}));
    REQUIRE_INT(wk_ecm_txn_rollback(f.ecm), ==, WK_OK);
    CHECK(holds(&f, e, (vec){2, 0, 0}));
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_NO_CHANGE);
    CHECK_INT(times_reported(&f, e, f.pos), ==, 0);
    wk_ecm_free(f.ecm);
}

static void a_place_of_another_ecm_is_found_again(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_ecm_place place;
    wk_entity e = placed(&f, &place);
    wk_ecm *copy = wk_ecm_clone(f.ecm);
    REQUIRE(copy);
    CHECK_INT(wk_ecm_place_set(copy, &place, &(vec){3, 0, 0}), ==, 1);
    CHECK(holds(&f, e, (vec){2, 0, 0}));
    const vec *in_copy = wk_ecm_get(copy, e, f.pos);
    CHECK(in_copy && in_copy->x == 3);
    wk_ecm_free(copy);
    wk_ecm_free(f.ecm);
}

static void a_cell_written_in_place_is_marked(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity first = settled(&f, 0), e = settled(&f, 1);
    wk_ecm_place place;
    wk_ecm_place_init(&place, e, f.pos);
    vec *cell = wk_ecm_place_cell(f.ecm, &place);
    REQUIRE(cell);
    CHECK(cell == wk_ecm_get(f.ecm, e, f.pos));
    uint64_t version = wk_ecm_version(f.ecm);
    cell->y = 5;
    wk_ecm_place_changed(f.ecm, &place);
    CHECK(holds(&f, e, (vec){1, 5, 0}));
    CHECK_U64(wk_ecm_version(f.ecm), >, version);
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_ONE_TIME_CHANGE);
    CHECK_INT(times_reported(&f, e, f.pos), ==, 1);
    /* Its row moves when the table's first row goes: the cell follows. */
    REQUIRE_INT(wk_ecm_destroy(f.ecm, first, false), ==, WK_OK);
    cell = wk_ecm_place_cell(f.ecm, &place);
    REQUIRE(cell);
    CHECK(cell == wk_ecm_get(f.ecm, e, f.pos));
    CHECK(cell->x == 1 && cell->y == 5);
    /* In a transaction a set notes the old value first: no cell. */
    REQUIRE_INT(wk_ecm_txn_begin(f.ecm), ==, WK_OK);
    CHECK(!wk_ecm_place_cell(f.ecm, &place));
    REQUIRE_INT(wk_ecm_txn_commit(f.ecm), ==, WK_OK);
    /* Nor for a component the entity does not have. */
    wk_ecm_place other;
    wk_ecm_place_init(&other, e, f.vel);
    CHECK(!wk_ecm_place_cell(f.ecm, &other));
    wk_ecm_free(f.ecm);
}

static const wk_test_case cases[] = {
    {"a_set_is_reported_every_step", a_set_is_reported_every_step},
    {"sets_follow_the_storage", sets_follow_the_storage},
    {"a_rollback_undoes_a_set", a_rollback_undoes_a_set},
    {"a_place_of_another_ecm_is_found_again", a_place_of_another_ecm_is_found_again},
    {"a_cell_written_in_place_is_marked", a_cell_written_in_place_is_marked},
};
WK_TEST_MAIN(cases)
