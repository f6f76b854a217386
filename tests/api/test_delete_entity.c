/* test_delete_entity.c — DeleteEntity and SpawnEntity: a spawned model and
 * a model of the file deleted (gone from GetEntities, its name free again),
 * the file's model back after a reset of STATE; NOT_FOUND for unknown names,
 * OPERATION_FAILED for a part of a model; SpawnEntity's result and name as
 * SpawnEntities gives them. */
#include <string.h>

#include "api/api_call.h"
#include "wk_test.h"

static uint32_t delete_entity(wk_api *api, const char *name, char *msg)
{
    SimulationInterfaces__DeleteEntityRequest req = SIMULATION_INTERFACES__DELETE_ENTITY_REQUEST__INIT;
    req.entity = (char *)name;
    return call_code(api, "DeleteEntity", &req.base, msg);
}

static uint32_t spawn_one(wk_api *api, const char *name, bool rename, char *got)
{
    SimulationInterfaces__Resource res = SIMULATION_INTERFACES__RESOURCE__INIT;
    res.resource_string = "<sdf version='1.9'><model name='crate'><link name='l'/></model></sdf>";
    SimulationInterfaces__SpawnEntityRequest req = SIMULATION_INTERFACES__SPAWN_ENTITY_REQUEST__INIT;
    req.name = (char *)name;
    req.has_allow_renaming = true;
    req.allow_renaming = rename;
    req.entity_resource = &res;
    SimulationInterfaces__SpawnEntityResponse *resp = (SimulationInterfaces__SpawnEntityResponse *)call_service(
        api, "SpawnEntity", &req.base, &simulation_interfaces__spawn_entity_response__descriptor);
    snprintf(got, 64, "%s", resp && resp->entity_name ? resp->entity_name : "");
    return result_code(resp, resp ? resp->result : NULL, NULL);
}

static void spawn_and_delete(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, BOX_WORLD), ==, WK_RESULT_OK);
    char got[64], msg[256];
    REQUIRE_INT(spawn_one(api, "", false, got), ==, WK_RESULT_OK);
    CHECK_STR(got, "crate");
    CHECK_INT(spawn_one(api, "", false, got), ==, WK_SPAWN_NAME_NOT_UNIQUE);
    CHECK_STR(got, "");
    REQUIRE_INT(spawn_one(api, "", true, got), ==, WK_RESULT_OK);
    CHECK_STR(got, "crate_0");

    wk_motion m;
    REQUIRE_INT(delete_entity(api, "crate", msg), ==, WK_RESULT_OK);
    CHECK_INT(get_entity(api, "crate", &m, NULL), ==, WK_RESULT_NOT_FOUND);
    CHECK_INT(get_entity(api, "crate_0", &m, NULL), ==, WK_RESULT_OK);
    CHECK_INT(delete_entity(api, "crate", msg), ==, WK_RESULT_NOT_FOUND);
    CHECK(strstr(msg, "'crate'") != NULL);
    REQUIRE_INT(spawn_one(api, "", false, got), ==, WK_RESULT_OK); /* the name is free again */

    /* A part of a model is not deleted on its own. */
    CHECK_INT(delete_entity(api, "box::l", msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(msg, "'box::l'") != NULL);
    CHECK_INT(get_entity(api, "box::l", &m, NULL), ==, WK_RESULT_OK);
    CHECK_INT(delete_entity(api, "", msg), ==, WK_RESULT_NOT_FOUND);

    /* The file's model goes, and a reset of STATE brings it back. */
    REQUIRE_INT(delete_entity(api, "box", msg), ==, WK_RESULT_OK);
    CHECK_INT(get_entity(api, "box", &m, NULL), ==, WK_RESULT_NOT_FOUND);
    SimulationInterfaces__ResetSimulationRequest reset = SIMULATION_INTERFACES__RESET_SIMULATION_REQUEST__INIT;
    reset.has_scope = true;
    reset.scope = WK_RESET_SCOPE_STATE;
    REQUIRE_INT(call_code(api, "ResetSimulation", &reset.base, msg), ==, WK_RESULT_OK);
    CHECK_INT(get_entity(api, "box", &m, NULL), ==, WK_RESULT_OK);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"spawn_and_delete", spawn_and_delete},
};
WK_TEST_MAIN(cases)
