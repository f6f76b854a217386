/* test_simulator_features.c — the GetSimulatorFeatures service: the
 * features of every service worldkit answers, once each and in order, none
 * it does not (pose bounds, world tags, USD), and the formats
 * SpawnEntities reads; with MuJoCo stepping the world, the same claims,
 * each seen to hold. */
#include <string.h>

#include "api/api_call.h"
#include "wk_test.h"

/* The features api claims are those worldkit's services give. */
static void lists_features(wk_api *api)
{
    SimulationInterfaces__GetSimulatorFeaturesRequest req =
        SIMULATION_INTERFACES__GET_SIMULATOR_FEATURES_REQUEST__INIT;
    const ProtobufCMessageDescriptor *type = &simulation_interfaces__get_simulator_features_response__descriptor;
    SimulationInterfaces__GetSimulatorFeaturesResponse *resp =
        (SimulationInterfaces__GetSimulatorFeaturesResponse *)call_service(api, "GetSimulatorFeatures", &req.base, type);
    REQUIRE(resp && resp->features);
    const uint32_t want[] = {
        WK_FEATURE_SPAWNING,
        WK_FEATURE_DELETING,
        WK_FEATURE_NAMED_POSES,
        WK_FEATURE_ENTITY_TAGS,
        WK_FEATURE_ENTITY_BOUNDS,
        WK_FEATURE_ENTITY_BOUNDS_BOX,
        WK_FEATURE_ENTITY_BOUNDS_CONVEX,
        WK_FEATURE_ENTITY_CATEGORIES,
        WK_FEATURE_SPAWNING_RESOURCE_STRING,
        WK_FEATURE_ENTITY_STATE_GETTING,
        WK_FEATURE_ENTITY_STATE_SETTING,
        WK_FEATURE_ENTITY_INFO_GETTING,
        WK_FEATURE_ENTITY_INFO_SETTING,
        WK_FEATURE_SPAWNABLES,
        WK_FEATURE_SIMULATION_RESET,
        WK_FEATURE_SIMULATION_RESET_TIME,
        WK_FEATURE_SIMULATION_RESET_STATE,
        WK_FEATURE_SIMULATION_RESET_SPAWNED,
        WK_FEATURE_SIMULATION_STATE_GETTING,
        WK_FEATURE_SIMULATION_STATE_SETTING,
        WK_FEATURE_SIMULATION_STATE_PAUSE,
        WK_FEATURE_STEP_SIMULATION_SINGLE,
        WK_FEATURE_STEP_SIMULATION_MULTIPLE,
        WK_FEATURE_STEP_SIMULATION_ACTION,
        WK_FEATURE_WORLD_LOADING,
        WK_FEATURE_WORLD_RESOURCE_STRING,
        WK_FEATURE_WORLD_UNLOADING,
        WK_FEATURE_WORLD_INFO_GETTING,
        WK_FEATURE_AVAILABLE_WORLDS,
        WK_FEATURE_SPAWNING_ENTITIES,
    };
    const SimulationInterfaces__SimulatorFeatures *f = resp->features;
    REQUIRE_INT(f->n_features, ==, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < f->n_features; i++)
        CHECK_INT(f->features[i], ==, want[i]);
    REQUIRE_INT(f->n_spawn_formats, ==, 3);
    CHECK_STR(f->spawn_formats[0], "sdf");
    CHECK_STR(f->spawn_formats[1], "urdf");
    CHECK_STR(f->spawn_formats[2], "mjcf");
    CHECK(f->custom_info && strstr(f->custom_info, "worldkit") == f->custom_info);
    free_response(resp);
}

static void lists_what_worldkit_does(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    lists_features(api);
    wk_api_free(api);
}

/* A 1 kg box 2 m over a ground plane; 1 ms steps. */
#define FALLING                                                                                                \
    "<sdf version='1.9'><world name='w'><physics name='p' type='ode'><max_step_size>0.001</max_step_size>"     \
    "</physics><gravity>0 0 -9.8</gravity><model name='ground'><static>true</static><link name='l'>"           \
    "<collision name='c'><geometry><plane><normal>0 0 1</normal><size>10 10</size></plane></geometry>"         \
    "</collision></link></model><model name='box'><pose>0 0 2 0 0 0</pose><link name='l'><inertial><mass>1"   \
    "</mass><inertia><ixx>0.0067</ixx><iyy>0.0067</iyy><izz>0.0067</izz></inertia></inertial><collision "      \
    "name='c'><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision></link></model></world></sdf>"

/* With MuJoCo stepping the world the claims are the same, and they hold:
 * StepSimulation steps the dynamics one step and many (STEP_SIMULATION_*),
 * and GetEntityState (ENTITY_STATE_GETTING) gives the engine's twist and
 * acceleration: a box in free fall for 0.3 s falls at g t (semi-implicit
 * Euler's velocity is exact under constant gravity: 1e-9) accelerating at
 * g; SetEntityState (ENTITY_STATE_SETTING) teleports it, at rest. */
static void claims_hold_with_physics(void)
{
    wk_api *api = wk_api_new_desc(&(wk_api_desc){.physics = WK_PHYSICS_MUJOCO});
    REQUIRE(api);
    lists_features(api);
    REQUIRE_INT(load_string(api, FALLING), ==, WK_RESULT_OK);
    REQUIRE_INT(set_state(api, WK_SIM_PAUSED, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(step_simulation(api, 1, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(step_simulation(api, 299, NULL), ==, WK_RESULT_OK);
    wk_motion box;
    REQUIRE_INT(get_entity(api, "box", &box, NULL), ==, WK_RESULT_OK);
    CHECK_NEAR(box.linear.z, -9.8 * 0.3, 1e-9);
    CHECK_NEAR(box.linear_acc.z, -9.8, 1e-9);
    CHECK_NEAR(box.linear.x, 0, 1e-12);
    CHECK_NEAR(box.angular_acc.x, 0, 1e-12);
    wk_motion lifted = {.pose = {{1, 0, 3}, wk_quat_identity()}};
    REQUIRE_INT(set_entity(api, "box", "", &lifted, WK_MOTION_POSE, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(step_simulation(api, 1, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(get_entity(api, "box", &box, NULL), ==, WK_RESULT_OK);
    CHECK_NEAR(box.pose.p.x, 1, 1e-12);
    CHECK_NEAR(box.linear.z, -9.8 * 0.001, 1e-12); /* one step from rest */
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"lists_what_worldkit_does", lists_what_worldkit_does},
    {"claims_hold_with_physics", claims_hold_with_physics},
};
WK_TEST_MAIN(cases)
