/* test_simulator_features.c — the GetSimulatorFeatures service: the
 * features of every service worldkit answers, once each and in order, none
 * it does not (pose bounds, world tags, USD), and the formats
 * SpawnEntities reads. */
#include <string.h>

#include "api/api_call.h"
#include "wk_test.h"

static void lists_what_worldkit_does(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
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
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"lists_what_worldkit_does", lists_what_worldkit_does},
};
WK_TEST_MAIN(cases)
