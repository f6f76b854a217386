/* test_step.c — removal requests processed at the end of a step, newness,
 * and per-component change tracking; the step's lists keep no ids of
 * entities destroyed within the step, however long it lasts. */
#include "ecs/ecm_internal.h" /* the step's created list */
#include "ecs/fixture.h"
#include "wk_test.h"

static void request_remove_waits_for_end_of_step(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity parent = wk_ecm_create(f.ecm), child = wk_ecm_create(f.ecm), other = wk_ecm_create(f.ecm);
    wk_ecm_set_parent(f.ecm, child, parent);
    CHECK(!wk_ecm_has_marked_for_removal(f.ecm));
    CHECK_INT(wk_ecm_request_remove(f.ecm, parent, true), ==, WK_OK);
    CHECK(wk_ecm_has_marked_for_removal(f.ecm));
    CHECK(wk_ecm_is_marked_for_removal(f.ecm, child));
    CHECK(!wk_ecm_is_marked_for_removal(f.ecm, other));
    CHECK(wk_ecm_exists(f.ecm, parent) && wk_ecm_exists(f.ecm, child));
    CHECK_INT(wk_ecm_end_step(f.ecm), ==, WK_OK);
    CHECK(!wk_ecm_exists(f.ecm, parent) && !wk_ecm_exists(f.ecm, child));
    CHECK(wk_ecm_exists(f.ecm, other));
    CHECK(!wk_ecm_has_marked_for_removal(f.ecm));
    CHECK_INT(wk_ecm_request_remove(f.ecm, parent, true), ==, WK_STALE);
    wk_ecm_free(f.ecm);
}

static void flat_request_keeps_children(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity parent = wk_ecm_create(f.ecm), child = wk_ecm_create(f.ecm);
    wk_ecm_set_parent(f.ecm, child, parent);
    CHECK_INT(wk_ecm_request_remove(f.ecm, parent, false), ==, WK_OK);
    CHECK(!wk_ecm_is_marked_for_removal(f.ecm, child));
    wk_ecm_end_step(f.ecm);
    CHECK(wk_ecm_exists(f.ecm, child));
    CHECK_U64(wk_ecm_parent(f.ecm, child), ==, WK_NULL_ENTITY);
    wk_ecm_free(f.ecm);
}

static void remove_all(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    for (int i = 0; i < 50; i++) {
        wk_entity e = wk_ecm_create(f.ecm);
        if (i % 2)
            set_name(&f, e, "x");
    }
    wk_ecm_request_remove_all(f.ecm);
    CHECK_INT(wk_ecm_count(f.ecm), ==, 50);
    wk_ecm_end_step(f.ecm);
    CHECK_INT(wk_ecm_count(f.ecm), ==, 0);
    wk_ecm_free(f.ecm);
}

static void change_states(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity e = wk_ecm_create(f.ecm);
    wk_ecm_set(f.ecm, e, f.pos, &(vec){1, 2, 3});
    wk_ecm_set(f.ecm, e, f.vel, &(vec){0});
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_ONE_TIME_CHANGE); /* added */
    CHECK(wk_ecm_has_one_time_changes(f.ecm));
    wk_ecm_end_step(f.ecm);
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_NO_CHANGE);
    CHECK(!wk_ecm_has_one_time_changes(f.ecm));

    CHECK_INT(wk_ecm_set(f.ecm, e, f.pos, &(vec){1, 2, 3}), ==, 0);
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_NO_CHANGE); /* equal value: no change */
    CHECK_INT(wk_ecm_set_changed(f.ecm, e, f.vel, WK_PERIODIC_CHANGE), ==, WK_OK);
    CHECK(!wk_ecm_has_one_time_changes(f.ecm));
    wk_type periodic[4];
    CHECK_INT(wk_ecm_periodic_types(f.ecm, periodic, 4), ==, 1);
    CHECK_INT(periodic[0], ==, f.vel);
    CHECK_INT(wk_ecm_set(f.ecm, e, f.pos, &(vec){9, 2, 3}), ==, 1);
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_ONE_TIME_CHANGE);
    CHECK(wk_ecm_has_one_time_changes(f.ecm));
    /* A set does not demote a periodic change. */
    CHECK_INT(wk_ecm_set(f.ecm, e, f.vel, &(vec){1, 0, 0}), ==, 1);
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.vel), ==, WK_PERIODIC_CHANGE);
    CHECK_INT(wk_ecm_set_changed(f.ecm, e, f.tag, WK_ONE_TIME_CHANGE), ==, WK_NOT_FOUND);
    CHECK_INT(wk_ecm_set_changed(f.ecm, e, f.pos, (wk_change)7), ==, WK_INVALID);
    CHECK_INT(wk_ecm_set_changed(f.ecm, e, f.pos, WK_NO_CHANGE), ==, WK_OK);
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_NO_CHANGE);
    wk_ecm_end_step(f.ecm);
    CHECK_INT(wk_ecm_periodic_types(f.ecm, periodic, 4), ==, 0);
    /* Change states travel with the row when the entity changes tables. */
    wk_ecm_set_changed(f.ecm, e, f.pos, WK_PERIODIC_CHANGE);
    wk_ecm_set(f.ecm, e, f.tag, NULL);
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.pos), ==, WK_PERIODIC_CHANGE);
    CHECK_INT(wk_ecm_changed(f.ecm, e, f.vel), ==, WK_NO_CHANGE);
    wk_ecm_free(f.ecm);
}

/* Checks the change states of e's position, velocity and tag. */
static bool states_are(const fixture *f, wk_entity e, wk_change pos, wk_change vel, wk_change tag)
{
    bool ok = CHECK_INT(wk_ecm_changed(f->ecm, e, f->pos), ==, pos);
    ok &= CHECK_INT(wk_ecm_changed(f->ecm, e, f->vel), ==, vel);
    return ok & CHECK_INT(wk_ecm_changed(f->ecm, e, f->tag), ==, tag);
}

/* Each column's change state stays with its entity when the row moves to
 * the next table, whose columns shift around the type added or removed,
 * and when the table's last row fills the row left; end of step clears
 * every column's. Each entity holds different states, so that one read
 * from the wrong row or column shows. */
static void change_states_follow_rows(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity e[3];
    for (int i = 0; i < 3; i++) {
        e[i] = wk_ecm_create(f.ecm);
        wk_ecm_set(f.ecm, e[i], f.pos, &(vec){i, 0, 0});
        wk_ecm_set(f.ecm, e[i], f.tag, NULL);
    }
    wk_ecm_end_step(f.ecm);
    CHECK_INT(wk_ecm_set_changed(f.ecm, e[0], f.tag, WK_PERIODIC_CHANGE), ==, WK_OK);
    CHECK_INT(wk_ecm_set_changed(f.ecm, e[1], f.pos, WK_PERIODIC_CHANGE), ==, WK_OK);
    CHECK_INT(wk_ecm_set_changed(f.ecm, e[2], f.pos, WK_ONE_TIME_CHANGE), ==, WK_OK);
    CHECK_INT(wk_ecm_set_changed(f.ecm, e[2], f.tag, WK_PERIODIC_CHANGE), ==, WK_OK);

    /* Velocity goes between position and tag; e[2] fills e[0]'s row. */
    CHECK_INT(wk_ecm_set(f.ecm, e[0], f.vel, &(vec){1, 0, 0}), ==, 1);
    CHECK(states_are(&f, e[0], WK_NO_CHANGE, WK_ONE_TIME_CHANGE, WK_PERIODIC_CHANGE));
    CHECK(states_are(&f, e[1], WK_PERIODIC_CHANGE, WK_NO_CHANGE, WK_NO_CHANGE));
    CHECK(states_are(&f, e[2], WK_ONE_TIME_CHANGE, WK_NO_CHANGE, WK_PERIODIC_CHANGE));

    /* Position leaves from before the tag; e[1] fills e[2]'s row. */
    CHECK_INT(wk_ecm_remove(f.ecm, e[2], f.pos), ==, 1);
    CHECK(states_are(&f, e[2], WK_NO_CHANGE, WK_NO_CHANGE, WK_PERIODIC_CHANGE));
    CHECK(states_are(&f, e[1], WK_PERIODIC_CHANGE, WK_NO_CHANGE, WK_NO_CHANGE));

    wk_ecm_end_step(f.ecm);
    for (int i = 0; i < 3; i++)
        CHECK(states_are(&f, e[i], WK_NO_CHANGE, WK_NO_CHANGE, WK_NO_CHANGE));
    CHECK_INT(wk_ecm_periodic_types(f.ecm, NULL, 0), ==, 0);
    wk_ecm_free(f.ecm);
}

static void a_long_step_forgets_the_destroyed(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity kept = wk_ecm_create(f.ecm);
    for (int i = 0; i < 100000; i++) {
        wk_entity e = wk_ecm_create(f.ecm);
        wk_ecm_set(f.ecm, e, f.tag, NULL);
        REQUIRE_INT(wk_ecm_destroy(f.ecm, e, true), ==, WK_OK);
    }
    /* Also through transactions, which trim before they begin. */
    for (int i = 0; i < 1000; i++) {
        REQUIRE_INT(wk_ecm_txn_begin(f.ecm), ==, WK_OK);
        wk_entity e = wk_ecm_create(f.ecm);
        REQUIRE_INT(wk_ecm_txn_commit(f.ecm), ==, WK_OK);
        REQUIRE_INT(wk_ecm_destroy(f.ecm, e, true), ==, WK_OK);
    }
    CHECK_INT(f.ecm->created.count, <, 200);
    CHECK(wk_ecm_is_new(f.ecm, kept));
    CHECK(wk_ecm_has_new_entities(f.ecm));
    CHECK_INT(wk_ecm_end_step(f.ecm), ==, WK_OK);
    CHECK(!wk_ecm_is_new(f.ecm, kept));
    CHECK_INT(f.ecm->created.count, ==, 0);
    wk_ecm_free(f.ecm);
}

static const wk_test_case cases[] = {
    {"request_remove_waits_for_end_of_step", request_remove_waits_for_end_of_step},
    {"flat_request_keeps_children", flat_request_keeps_children},
    {"remove_all", remove_all},
    {"change_states", change_states},
    {"change_states_follow_rows", change_states_follow_rows},
    {"a_long_step_forgets_the_destroyed", a_long_step_forgets_the_destroyed},
};
WK_TEST_MAIN(cases)
