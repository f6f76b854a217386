/* reset_simulation.c — the ResetSimulation service: its scope bits (TIME,
 * STATE, SPAWNED; DEFAULT and ALL meaning all three) onto wk_sim_reset's.
 * A reset leaves the simulation in the state it was in: stopping, not
 * resetting, is what takes it to STOPPED. */
#include "api/api_internal.h"

static const struct {
    uint32_t scope;
    unsigned reset;
} scopes[] = {
    {WK_RESET_SCOPE_TIME, WK_RESET_TIME},
    {WK_RESET_SCOPE_STATE, WK_RESET_STATE},
    {WK_RESET_SCOPE_SPAWNED, WK_RESET_SPAWNED},
};

/* The wk_reset_scope bits for a request's scope, or 0 for a scope with bits
 * the standard does not define. */
static unsigned reset_bits(uint32_t scope)
{
    if (scope == WK_RESET_SCOPE_DEFAULT || scope == WK_RESET_SCOPE_ALL)
        return WK_RESET_ALL;
    unsigned bits = 0;
    for (size_t i = 0; i < sizeof scopes / sizeof scopes[0]; i++)
        if (scope & scopes[i].scope) {
            bits |= scopes[i].reset;
            scope &= ~scopes[i].scope;
        }
    return scope ? 0 : bits;
}

static SimulationInterfaces__Result *reset(wk_api *api, wk__call *call, uint32_t scope)
{
    unsigned bits = reset_bits(scope);
    wk_status st = {0};
    if (!bits)
        return wk__call_result(call, WK_RESULT_FEATURE_UNSUPPORTED,
                               "reset scope %u is not ALL (255) or a combination of TIME (1), STATE (2) and "
                               "SPAWNED (4)",
                               scope);
    if (wk_sim_reset(api->sim, bits, &st))
        return wk__call_result(call, WK_RESULT_OPERATION_FAILED, "%s", st.message);
    return wk__call_result(call, WK_RESULT_OK, "%s", "");
}

int wk__reset_simulation(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__ResetSimulationRequest *req = (const void *)request;
    return wk__call_reply(*response,
                          reset(api, call, req->scope));
}
