/* simulator_features.c — the GetSimulatorFeatures service: the features of
 * the methods in the registry (methods.c), the formats SpawnEntities reads, and
 * a line about worldkit. */
#include "api/methods.h"

static const char *const spawn_formats[] = {"sdf", "urdf", "mjcf"};

int wk__get_simulator_features(wk_api *api, wk__call *call, const ProtobufCMessage *request,
                               ProtobufCMessage **response)
{
    (void)api, (void)request;
    SimulationInterfaces__GetSimulatorFeaturesResponse *resp = (void *)*response;
    SimulationInterfaces__SimulatorFeatures *f = wk__call_alloc(call, sizeof *f);
    size_t n = wk__method_features(NULL, 0);
    uint32_t *features = wk__call_alloc(call, n * sizeof *features);
    if (!f || !features)
        return WK_NOMEM;
    simulation_interfaces__simulator_features__init(f);
    f->n_features = wk__method_features(features, n);
    f->features = features;
    f->n_spawn_formats = sizeof spawn_formats / sizeof spawn_formats[0];
    f->spawn_formats = (char **)spawn_formats; /* only read while packing */
    f->custom_info = "worldkit: a world-state server; SimulateSteps feedback through wk_api_simulate_steps";
    resp->features = f;
    return WK_OK;
}
