/* test_names.c — the standard's numbers by name: a result code named as
 * the service answering it reads it (101 is UNSUPPORTED_FORMAT to LoadWorld,
 * NAME_NOT_UNIQUE to SpawnEntity), msg/Result's own codes the same for all,
 * SpawnEntities naming its entries' codes too; states; every feature
 * GetSimulatorFeatures can claim; and NULL for numbers with no name. */
#include "api/methods.h"
#include "wk_test.h"

static void results_by_service(void)
{
    CHECK_STR(wk_api_result_name("GetEntityState", WK_RESULT_NOT_FOUND), "NOT_FOUND");
    CHECK_STR(wk_api_result_name(NULL, WK_RESULT_OK), "OK");
    CHECK_STR(wk_api_result_name("LoadWorld", 101), "UNSUPPORTED_FORMAT");
    CHECK_STR(wk_api_result_name("SpawnEntity", 101), "NAME_NOT_UNIQUE");
    CHECK_STR(wk_api_result_name("SpawnEntities", 101), "NAME_NOT_UNIQUE");
    CHECK_STR(wk_api_result_name("SpawnEntities", WK_SPAWN_ENTITIES_FAILED), "SPAWN_ENTITIES_FAILED");
    CHECK_STR(wk_api_result_name("SetSimulationState", 101), "ALREADY_IN_TARGET_STATE");
    CHECK_STR(wk_api_result_name("GetCurrentWorld", 101), "NO_WORLD_LOADED");
    CHECK_STR(wk_api_result_name("UnloadWorld", 101), "NO_WORLD_LOADED");
    /* A service's own codes are no other service's, nor any of a name
     * that only contains it. */
    CHECK(wk_api_result_name("GetEntityState", 101) == NULL);
    CHECK(wk_api_result_name("Spawn", 101) == NULL);
    CHECK(wk_api_result_name(NULL, 101) == NULL);
    CHECK(wk_api_result_name("SpawnEntity", WK_SPAWN_ENTITIES_FAILED) == NULL);
}

static void states(void)
{
    CHECK_STR(wk_api_state_name(WK_SIM_STOPPED), "STOPPED");
    CHECK_STR(wk_api_state_name(WK_SIM_PAUSED), "PAUSED");
    CHECK_STR(wk_api_state_name(WK_SIM_LOADING_WORLD), "LOADING_WORLD");
    CHECK(wk_api_state_name(6) == NULL);
}

static void every_claimed_feature(void)
{
    uint32_t features[64];
    size_t n = wk__method_features(features, 64);
    REQUIRE_INT(n, <=, 64);
    for (size_t i = 0; i < n; i++)
        if (!CHECK(wk_api_feature_name(features[i]) != NULL))
            fprintf(stderr, "    feature %u has no name\n", features[i]);
    CHECK_STR(wk_api_feature_name(WK_FEATURE_SPAWNING_ENTITIES), "SPAWNING_ENTITIES");
    CHECK_STR(wk_api_feature_name(WK_FEATURE_POSE_BOUNDS), "POSE_BOUNDS");
    CHECK(wk_api_feature_name(15) == NULL);
}

static const wk_test_case cases[] = {
    {"results_by_service", results_by_service},
    {"states", states},
    {"every_claimed_feature", every_claimed_feature},
};
WK_TEST_MAIN(cases)
