/* fuzz_api.c — libFuzzer target for the service request decoders: the first
 * byte picks the service, the rest is its request. Any bytes must give a
 * response or a refusal code, never a crash, a hang or a leak. */
#include <stdlib.h>

#include "worldkit/wk_api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Append only: the corpus' first bytes index this list. */
    static const char *const services[] = {
        "LoadWorld",      "SpawnEntities",  "GetSimulatorFeatures", "GetSimulationState", "SetSimulationState",
        "StepSimulation", "SimulateSteps",  "ResetSimulation",      "GetEntityState",     "SetEntityState",
        "SpawnEntity",    "DeleteEntity",   "GetEntities",          "GetEntitiesStates",  "GetEntityInfo",
        "SetEntityInfo",  "GetEntityBounds", "GetNamedPoses",       "GetNamedPoseBounds", "GetSpawnables",
        "UnloadWorld",    "GetCurrentWorld", "GetAvailableWorlds",
    };
    const size_t count = sizeof services / sizeof services[0];
    if (size == 0)
        return 0;
    wk_api *api = wk_api_new();
    if (!api)
        return 0;
    wk_buf out = {0};
    int rc = wk_api_call(api, services[data[0] % count], data + 1, size - 1, &out);
    if (rc != WK_OK && rc != WK_PARSE && rc != WK_NOMEM)
        abort();
    if (rc == WK_OK && out.len == 0)
        abort(); /* every answered call carries a Result */
    wk_buf_free(&out);
    wk_api_free(api);
    return 0;
}
