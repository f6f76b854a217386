/* step_simulation.c — StepSimulation and the SimulateSteps action: a finite
 * number of steps from PAUSED, after which the simulation is still paused.
 * In any other state both answer OPERATION_FAILED, as their definitions say
 * (not INCORRECT_STATE), with the state in the message.
 *
 * The steps run in batches (wk__progress), each a call of its own under
 * the world's lock: a goal of a million steps, or a world whose steps are
 * slow, never holds the world for longer than a batch, and SimulateSteps'
 * feedback goes out between batches, when no world is held, so that a
 * client slow to read it (or that stops) holds up only its own steps. A
 * call that changes the state between two batches (a pause, a load) ends
 * the steps, the answer saying how many were done. */
#include <inttypes.h>

#include "api/api_internal.h"
#include "base/clock.h"

void wk__progress_report(wk__progress *p)
{
    while (p->feedback && !p->cancelled && p->reported < p->done) {
        SimulationInterfaces__SimulateStepsFeedback fb = SIMULATION_INTERFACES__SIMULATE_STEPS_FEEDBACK__INIT;
        fb.has_completed_steps = fb.has_remaining_steps = true;
        fb.completed_steps = ++p->reported;
        fb.remaining_steps = p->goal - p->reported;
        uint8_t bytes[32]; /* two varints */
        p->cancelled = !p->feedback(bytes, protobuf_c_message_pack(&fb.base, bytes), p->ctx);
    }
}

/* One batch of the steps towards p->goal. */
static SimulationInterfaces__Result *run(wk_api *api, wk__call *call, uint64_t steps)
{
    wk__progress *p = call->progress;
    p->goal = steps;
    if (p->cancelled)
        return wk__call_result(call, WK_RESULT_OPERATION_FAILED, "cancelled after %" PRIu64 " of %" PRIu64 " steps",
                               p->done, steps);
    wk_sim_state state = wk_sim_state_of(api->sim);
    if (state != WK_SIM_PAUSED && p->done)
        return wk__call_result(call, WK_RESULT_OPERATION_FAILED,
                               "the simulation became %s after %" PRIu64 " of %" PRIu64 " steps (another call changed "
                               "its state between two batches)",
                               wk__state_name(state), p->done, steps);
    if (state != WK_SIM_PAUSED)
        return wk__call_result(call, WK_RESULT_OPERATION_FAILED,
                               "the simulation is %s: stepping takes a paused simulation", wk__state_name(state));
    uint64_t end = p->done + (steps - p->done < WK__BATCH_STEPS ? steps - p->done : WK__BATCH_STEPS);
    double until = wk__monotonic_s() + WK__BATCH_SECONDS;
    int rc = WK_OK;
    while (rc == WK_OK && p->done < end && (rc = wk_sim_step(api->sim, 1)) == WK_OK)
        if (++p->done < end && wk__monotonic_s() >= until)
            break;
    /* The engine's reason, when it was the engine that failed. */
    const char *why = wk_sim_error(api->sim);
    if (rc)
        return wk__call_result(call, WK_RESULT_OPERATION_FAILED, "a step failed (%s) at iteration %" PRIu64 ": %s",
                               wk_code_name(rc), wk_sim_iterations(api->sim),
                               why[0] ? why : wk_ecm_errmsg(wk_scene_ecm(wk_api_scene(api))));
    p->more = p->done < steps;
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
    return wk__call_reply(*response, result);
}

int wk__simulate_steps(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__SimulateStepsGoal *goal = (const void *)request;
    return wk__call_reply(*response,
                          run(api, call, goal->steps));
}
