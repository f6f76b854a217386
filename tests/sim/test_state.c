/* test_state.c — the simulation's state machine (simulation_interfaces'
 * SimulationState) and resets of time, the file's entities and spawned ones. */
#include <stdio.h>
#include <string.h>

#include "worldkit/wk_sim.h"
#include "sim/start.h"
#include "wk_test.h"

static wk_entity child(wk_sim *sim, const char *name)
{
    return wk_scene_child(wk_sim_scene(sim), wk_sim_world(sim), name);
}

static void transitions(void)
{
    wk_sim *sim = start("levels_one_performer.sdf", false);
    REQUIRE(sim);
    wk_status st = {0};
    CHECK_INT(wk_sim_state_of(sim), ==, WK_SIM_STOPPED);
    CHECK_INT(wk_sim_set_state(sim, WK_SIM_STOPPED, &st), ==, WK_EXISTS);
    CHECK(strstr(st.message, "stopped already") != NULL);
    CHECK_INT(wk_sim_set_state(sim, WK_SIM_PAUSED, &st), ==, WK_OK); /* start paused */
    CHECK_INT(wk_sim_set_state(sim, WK_SIM_PLAYING, &st), ==, WK_OK);
    CHECK_INT(wk_sim_set_state(sim, WK_SIM_PLAYING, &st), ==, WK_EXISTS);
    CHECK_INT(wk_sim_set_state(sim, WK_SIM_NO_WORLD, &st), ==, WK_INVALID);
    CHECK_INT(wk_sim_set_state(sim, WK_SIM_LOADING_WORLD, &st), ==, WK_INVALID);
    CHECK_INT(wk_sim_state_of(sim), ==, WK_SIM_PLAYING);
    CHECK_INT(wk_sim_set_state(sim, WK_SIM_QUITTING, &st), ==, WK_OK);
    CHECK_INT(wk_sim_set_state(sim, WK_SIM_PLAYING, &st), ==, WK_INVALID);
    CHECK_INT(wk_sim_state_of(sim), ==, WK_SIM_QUITTING);
    wk_sim_free(sim);
}

static void stopping_resets_everything(void)
{
    wk_sim *sim = start("levels_one_performer.sdf", true);
    REQUIRE(sim);
    wk_status st = {0};
    wk_scene *s = wk_sim_scene(sim);
    wk_ecm *ecm = wk_scene_ecm(s);
    REQUIRE_INT(wk_sim_set_state(sim, WK_SIM_PLAYING, &st), ==, WK_OK);
    /* Drive R1 south out of L1, and add an entity as a spawn would. */
    wk_ecm_set(ecm, child(sim, "R1"), wk_sim_velocity_type(sim), &(wk_velocity){.linear = {0, -10, 0}});
    wk_sim_step(sim, 1000);
    CHECK(!wk_sim_level_loaded(sim, "L1"));
    const char *name = "visitor";
    uint8_t kind = WK_NODE_MODEL;
    wk_pose origin = wk_pose_identity();
    const wk_scene_types *t = wk_scene_types_of(s);
    wk_entity visitor = wk_ecm_create_with(ecm, (wk_type[]){t->name, t->kind, t->parent_pose, t->spawned},
                                           (const void *[]){&name, &kind, &origin, NULL}, 4);
    REQUIRE(visitor);
    wk_ecm_set_parent(ecm, visitor, wk_sim_world(sim));

    /* Resetting time only keeps the world as it is. */
    CHECK_INT(wk_sim_reset(sim, WK_RESET_TIME, &st), ==, WK_OK);
    CHECK_INT(wk_sim_iterations(sim), ==, 0);
    CHECK_NEAR(wk_sim_time(sim), 0, 0);
    CHECK_NEAR(wk_scene_world_pose(s, child(sim, "R1")).p.y, -5, 1e-9);
    /* Resetting the state brings the file back, and keeps the visitor. */
    CHECK_INT(wk_sim_reset(sim, WK_RESET_STATE, &st), ==, WK_OK);
    CHECK_NEAR(wk_scene_world_pose(s, child(sim, "R1")).p.y, 5, 0);
    CHECK(!wk_ecm_has(ecm, child(sim, "R1"), wk_sim_velocity_type(sim)));
    CHECK(wk_sim_level_loaded(sim, "L1") && !wk_sim_level_loaded(sim, "L3"));
    CHECK(child(sim, "M1") && !child(sim, "M4"));
    CHECK(child(sim, "visitor") == visitor);
    /* Stopping is pausing and resetting everything: the visitor goes too. */
    wk_sim_step(sim, 10);
    CHECK_INT(wk_sim_set_state(sim, WK_SIM_STOPPED, &st), ==, WK_OK);
    CHECK(!wk_ecm_exists(ecm, visitor));
    CHECK_INT(wk_sim_iterations(sim), ==, 0);
    CHECK(child(sim, "R1") && child(sim, "M6"));
    CHECK_INT(wk_sim_reset(sim, 8, &st), ==, WK_INVALID);
    wk_sim_free(sim);
}

static const wk_test_case cases[] = {
    {"transitions", transitions},
    {"stopping_resets_everything", stopping_resets_everything},
};
WK_TEST_MAIN(cases)
