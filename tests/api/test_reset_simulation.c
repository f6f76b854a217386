/* test_reset_simulation.c — the ResetSimulation service: each scope and
 * combination (TIME, STATE, SPAWNED, DEFAULT, ALL) resets what it names and
 * nothing else, scopes with other bits are FEATURE_UNSUPPORTED and change
 * nothing, a state reset puts spawned entities back as spawned, and a reset
 * keeps the simulation's state (paused here). A reset that runs out of
 * memory at any point leaves the world exactly as it was. */
#include <string.h>

#include "api/api_call.h"
#include "ecs/ecm_internal.h" /* wk__txn_fail_countdown */
#include "wk_test.h"

/* The box world, paused, with a spawned "crate" and the box driven 10 steps
 * at 1 m/s along x: 0.1 s in, the box at x = 0.1. */
static wk_api *driven_box(void)
{
    wk_api *api = wk_api_new();
    if (!api || load_string(api, BOX_WORLD) != WK_RESULT_OK)
        goto fail;
    SimulationInterfaces__Resource res = SIMULATION_INTERFACES__RESOURCE__INIT;
    res.resource_string = "<sdf version='1.9'><model name='crate'><link name='l'/></model></sdf>";
    SimulationInterfaces__SpawnEntityRequest entry = SIMULATION_INTERFACES__SPAWN_ENTITY_REQUEST__INIT;
    entry.entity_resource = &res;
    SimulationInterfaces__SpawnEntityRequest *list[] = {&entry};
    SimulationInterfaces__SpawnEntitiesResponse *spawned = spawn_entities(api, list, 1);
    if (result_code(spawned, spawned ? spawned->result : NULL, NULL) != WK_RESULT_OK)
        goto fail;
    wk_motion drive = {.linear = {1, 0, 0}};
    if (set_entity(api, "box", "", &drive, WK_MOTION_TWIST, NULL) != WK_RESULT_OK ||
        set_state(api, WK_SIM_PAUSED, NULL) != WK_RESULT_OK || step_simulation(api, 10, NULL) != WK_RESULT_OK)
        goto fail;
    return api;
fail:
    wk_api_free(api);
    return NULL;
}

static uint32_t reset(wk_api *api, uint32_t scope, char *msg)
{
    SimulationInterfaces__ResetSimulationRequest req = SIMULATION_INTERFACES__RESET_SIMULATION_REQUEST__INIT;
    req.has_scope = true;
    req.scope = scope;
    return call_code(api, "ResetSimulation", &req.base, msg);
}

static void scopes(void)
{
    const uint32_t OK = WK_RESULT_OK, NO = WK_RESULT_FEATURE_UNSUPPORTED;
    const struct {
        uint32_t scope, code;
        bool time, state, spawned; /* reset or not */
    } cases[] = {
        {WK_RESET_SCOPE_TIME, OK, true, false, false},
        {WK_RESET_SCOPE_STATE, OK, false, true, false},
        {WK_RESET_SCOPE_SPAWNED, OK, false, false, true},
        {WK_RESET_SCOPE_TIME | WK_RESET_SCOPE_SPAWNED, OK, true, false, true},
        {WK_RESET_SCOPE_STATE | WK_RESET_SCOPE_SPAWNED, OK, false, true, true},
        {WK_RESET_SCOPE_DEFAULT, OK, true, true, true},
        {WK_RESET_SCOPE_ALL, OK, true, true, true},
        {8, NO, false, false, false},
        {WK_RESET_SCOPE_TIME | 16, NO, false, false, false},
        {127, NO, false, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wk_api *api = driven_box();
        REQUIRE(api);
        char msg[256];
        uint32_t code = reset(api, cases[i].scope, msg);
        wk_motion box;
        bool ok = CHECK_INT(code, ==, cases[i].code);
        ok &= CHECK(code == OK || strstr(msg, "is not ALL (255) or a combination") != NULL);
        ok &= CHECK_NEAR(wk_sim_time(wk_api_sim(api)), cases[i].time ? 0 : 0.1, 1e-15);
        ok &= CHECK_INT(get_entity(api, "box", &box, NULL), ==, WK_RESULT_OK);
        ok &= CHECK_NEAR(box.pose.p.x, cases[i].state ? 0 : 0.1, 1e-12);
        ok &= CHECK_NEAR(box.linear.x, cases[i].state ? 0 : 1, 0);
        ok &= CHECK(!wk_scene_child(wk_api_scene(api), wk_api_world(api), "crate") == cases[i].spawned);
        ok &= CHECK_INT(get_state(api), ==, WK_SIM_PAUSED);
        if (!ok)
            fprintf(stderr, "    scope %u: %s\n", cases[i].scope, msg);
        wk_api_free(api);
    }
}

static void absent_scope_is_everything(void)
{
    wk_api *api = driven_box();
    REQUIRE(api);
    SimulationInterfaces__ResetSimulationRequest req = SIMULATION_INTERFACES__RESET_SIMULATION_REQUEST__INIT;
    CHECK_INT(call_code(api, "ResetSimulation", &req.base, NULL), ==, WK_RESULT_OK);
    CHECK_INT(wk_sim_iterations(wk_api_sim(api)), ==, 0);
    CHECK(!wk_scene_child(wk_api_scene(api), wk_api_world(api), "crate"));
    wk_api_free(api);
}

/* A state reset puts a spawned model back where it was spawned, at rest:
 * "poses and velocities", for spawned entities as for the file's. */
static void state_reset_restores_spawned(void)
{
    wk_api *api = driven_box();
    REQUIRE(api);
    wk_motion crate;
    REQUIRE_INT(get_entity(api, "crate", &crate, NULL), ==, WK_RESULT_OK);
    wk_pose spawned = crate.pose;
    wk_motion push = {.pose = {{3, 2, 1}, wk_quat_from_rpy(0, 0, 1)}, .linear = {0, 1, 0}, .linear_acc = {0, 0, 1}};
    REQUIRE_INT(set_entity(api, "crate", "", &push, WK_MOTION_POSE | WK_MOTION_TWIST | WK_MOTION_ACCELERATION, NULL),
                ==, WK_RESULT_OK);
    REQUIRE_INT(step_simulation(api, 5, NULL), ==, WK_RESULT_OK);
    CHECK_INT(reset(api, WK_RESET_SCOPE_STATE, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(get_entity(api, "crate", &crate, NULL), ==, WK_RESULT_OK);
    CHECK_NEAR(crate.pose.p.x, spawned.p.x, 1e-12);
    CHECK_NEAR(crate.pose.p.y, spawned.p.y, 1e-12);
    CHECK_NEAR(crate.pose.q.w, spawned.q.w, 1e-12);
    CHECK_NEAR(crate.linear.y, 0, 0);
    CHECK_NEAR(crate.linear_acc.z, 0, 0);
    /* And it stays there. */
    REQUIRE_INT(step_simulation(api, 5, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(get_entity(api, "crate", &crate, NULL), ==, WK_RESULT_OK);
    CHECK_NEAR(crate.pose.p.y, spawned.p.y, 1e-12);
    wk_api_free(api);
}

static void world_state(wk_api *api, wk_buf *out)
{
    out->len = 0;
    REQUIRE_INT(wk_ecm_state(wk_scene_ecm(wk_api_scene(api)), &(wk_state_desc){0}, out), ==, WK_OK);
}

/* Each scope that resets in place (STATE, SPAWNED), failing at its first,
 * second, ... change until it succeeds: every failure leaves the world's
 * serialized state as it was, and the simulation steps on. */
static void failing_reset_changes_nothing(void)
{
    const uint32_t scopes[] = {WK_RESET_SCOPE_STATE, WK_RESET_SCOPE_SPAWNED};
    for (size_t s = 0; s < sizeof scopes / sizeof scopes[0]; s++) {
        wk_api *api = driven_box();
        REQUIRE(api);
        wk_buf before = {0}, after = {0};
        world_state(api, &before);
        size_t failures = 0;
        uint32_t code = 999;
        char msg[256];
        for (size_t fail_at = 1; fail_at < 1000 && code != WK_RESULT_OK; fail_at++) {
            wk__txn_fail_countdown = fail_at;
            code = reset(api, scopes[s], msg);
            wk__txn_fail_countdown = 0;
            if (code == WK_RESULT_OK)
                break;
            failures++;
            CHECK_INT(code, ==, WK_RESULT_OPERATION_FAILED);
            world_state(api, &after);
            if (!CHECK(before.len == after.len && memcmp(before.data, after.data, before.len) == 0))
                fprintf(stderr, "    scope %u failing at change %zu: %s\n", scopes[s], fail_at, msg);
            double t = wk_sim_time(wk_api_sim(api));
            CHECK_INT(step_simulation(api, 1, NULL), ==, WK_RESULT_OK);
            CHECK(wk_sim_time(wk_api_sim(api)) > t);
            world_state(api, &before);
        }
        CHECK_INT(code, ==, WK_RESULT_OK);
        CHECK(failures > 0);
        CHECK(!wk_scene_child(wk_api_scene(api), wk_api_world(api), "crate") == (scopes[s] == WK_RESET_SCOPE_SPAWNED));
        wk_buf_free(&before);
        wk_buf_free(&after);
        wk_api_free(api);
    }
}

static const wk_test_case cases[] = {
    {"state_reset_restores_spawned", state_reset_restores_spawned},
    {"scopes", scopes},
    {"absent_scope_is_everything", absent_scope_is_everything},
    {"failing_reset_changes_nothing", failing_reset_changes_nothing},
};
WK_TEST_MAIN(cases)
