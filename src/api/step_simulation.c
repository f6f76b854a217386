/* step_simulation.c — StepSimulation and the SimulateSteps action: a finite
 * number of steps from PAUSED, after which the simulation is still paused.
 * In any other state both answer OPERATION_FAILED, as their definitions say
 * (not INCORRECT_STATE), with the state in the message. SimulateSteps also
 * reports each step to the call's feedback function, if it has one. */
#include <inttypes.h>

#include "api/api_internal.h"

/* Packs one SimulateStepsFeedback (two varints fit in 32 bytes) and hands
 * it over; false when the receiver cancels. */
static bool report(wk__call *call, uint64_t done, uint64_t steps)
{
    SimulationInterfaces__SimulateStepsFeedback fb = SIMULATION_INTERFACES__SIMULATE_STEPS_FEEDBACK__INIT;
    fb.has_completed_steps = fb.has_remaining_steps = true;
    fb.completed_steps = done;
    fb.remaining_steps = steps - done;
    uint8_t bytes[32];
    size_t len = protobuf_c_message_pack(&fb.base, bytes);
    return call->feedback(bytes, len, call->feedback_ctx);
}

static SimulationInterfaces__Result *run(wk_api *api, wk__call *call, uint64_t steps)
{
    wk_sim_state state = wk_sim_state_of(api->sim);
    if (state != WK_SIM_PAUSED)
        return wk__call_result(call, WK_RESULT_OPERATION_FAILED,
                               "the simulation is %s: stepping takes a paused simulation", wk__state_name(state));
    int rc = call->feedback ? WK_OK : wk_sim_step(api->sim, steps);
    for (uint64_t done = 0; call->feedback && rc == WK_OK && done < steps;) {
        rc = wk_sim_step(api->sim, 1);
        if (rc == WK_OK && !report(call, ++done, steps))
            return wk__call_result(call, WK_RESULT_OPERATION_FAILED,
                                   "cancelled after %" PRIu64 " of %" PRIu64 " steps", done, steps);
    }
    if (rc)
        return wk__call_result(call, WK_RESULT_OPERATION_FAILED, "a step failed (%s) at iteration %" PRIu64 ": %s",
                               wk_code_name(rc), wk_sim_iterations(api->sim),
                               wk_ecm_errmsg(wk_scene_ecm(wk_api_scene(api))));
    return wk__call_result(call, WK_RESULT_OK, "%s", "");
}

int wk__step_simulation(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__StepSimulationRequest *req = (const void *)request;
    SimulationInterfaces__Result *result =
        req->steps > WK_STEP_SIMULATION_MAX_STEPS
            ? wk__call_result(call, WK_RESULT_OPERATION_FAILED,
                              "StepSimulation of %" PRIu64 " steps: at most %d per call (SimulateSteps takes more, "
                              "and can be cancelled)",
                              req->steps, WK_STEP_SIMULATION_MAX_STEPS)
            : run(api, call, req->steps);
    return wk__call_reply(call, &simulation_interfaces__step_simulation_response__descriptor, response, result);
}

int wk__simulate_steps(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__SimulateStepsGoal *goal = (const void *)request;
    return wk__call_reply(call, &simulation_interfaces__simulate_steps_result__descriptor, response,
                          run(api, call, goal->steps));
}
