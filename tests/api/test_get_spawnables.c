/* test_get_spawnables.c — the GetSpawnables service: the model folders of
 * tests/formats/worlds/models found through the resource path and as a
 * request source, each with the SDFormat file its model.config names (the
 * highest version) and its description; sources that cannot be searched
 * named in the message without failing; a spawnable's uri spawns. */
#include <stdlib.h>
#include <string.h>

#include "api/api_call.h"
#include "wk_test.h"

#define MODELS WK_TEST_WORLDS "/models"

/* "uri|description" of each spawnable, joined by spaces, in got. */
static uint32_t spawnables(wk_api *api, char **sources, size_t n, char *got, char *msg)
{
    SimulationInterfaces__GetSpawnablesRequest req = SIMULATION_INTERFACES__GET_SPAWNABLES_REQUEST__INIT;
    req.sources = sources;
    req.n_sources = n;
    SimulationInterfaces__GetSpawnablesResponse *resp = (SimulationInterfaces__GetSpawnablesResponse *)call_service(
        api, "GetSpawnables", &req.base, &simulation_interfaces__get_spawnables_response__descriptor);
    got[0] = '\0';
    for (size_t i = 0; resp && i < resp->n_spawnables; i++) {
        const SimulationInterfaces__Spawnable *s = resp->spawnables[i];
        const char *uri = s->entity_resource ? s->entity_resource->uri : "?";
        if (!strncmp(uri, MODELS "/", strlen(MODELS "/")))
            uri += strlen(MODELS "/");
        snprintf(got + strlen(got), 400 - strlen(got), "%s%s|%s", i ? " " : "", uri, s->description);
    }
    return result_code(resp, resp ? resp->result : NULL, msg);
}

static void models_of_the_test_worlds(void)
{
    unsetenv("GZ_SIM_RESOURCE_PATH");
    unsetenv("SDF_PATH");
    setenv("WORLDKIT_RESOURCE_PATH", MODELS, 1);
    wk_api *api = wk_api_new();
    REQUIRE(api);
    char got[400], msg[256];
    CHECK_INT(spawnables(api, NULL, 0, got, msg), ==, WK_RESULT_OK);
    /* No description: an empty one (the space above is the separator). */
    CHECK_STR(got, "cart/model.sdf| convoy/model.sdf|"
                   " shelf/shelf.sdf|A shelf with a frame on its top board, for include tests."
                   " stand/model.sdf|A stand placed by its foot, for placement_frame tests.");
    /* Through a source instead; the same folder twice is listed once, and
     * what cannot be searched is named without failing. */
    unsetenv("WORLDKIT_RESOURCE_PATH");
    CHECK_INT(spawnables(api, NULL, 0, got, msg), ==, WK_RESULT_OK);
    CHECK_STR(got, "");
    char *sources[] = {"file://" MODELS, MODELS "/cart", "https://fuel.example/models", MODELS "/nothing"};
    CHECK_INT(spawnables(api, sources, 4, got, msg), ==, WK_RESULT_OK);
    CHECK_STR(got, "cart/model.sdf| convoy/model.sdf|"
                   " shelf/shelf.sdf|A shelf with a frame on its top board, for include tests."
                   " stand/model.sdf|A stand placed by its foot, for placement_frame tests.");
    CHECK(strstr(msg, "https://fuel.example/models") && strstr(msg, "remote"));
    CHECK(strstr(msg, MODELS "/nothing' is not a folder") != NULL);
    /* A spawnable's uri is what SpawnEntities takes (the cart includes
     * model://shelf, found through the resource path). */
    setenv("WORLDKIT_RESOURCE_PATH", MODELS, 1);
    SimulationInterfaces__Resource res = SIMULATION_INTERFACES__RESOURCE__INIT;
    res.uri = MODELS "/cart/model.sdf";
    SimulationInterfaces__SpawnEntityRequest e = SIMULATION_INTERFACES__SPAWN_ENTITY_REQUEST__INIT;
    e.entity_resource = &res;
    SimulationInterfaces__SpawnEntityRequest *entries[] = {&e};
    SimulationInterfaces__SpawnEntitiesResponse *resp = spawn_entities(api, entries, 1);
    CHECK_INT(result_code(resp, resp ? resp->result : NULL, msg), ==, WK_RESULT_OK);
    unsetenv("WORLDKIT_RESOURCE_PATH");
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"models_of_the_test_worlds", models_of_the_test_worlds},
};
WK_TEST_MAIN(cases)
