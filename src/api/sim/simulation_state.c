/* simulation_state.c — GetSimulationState and SetSimulationState: the
 * simulation's SimulationState and moves between STOPPED, PLAYING, PAUSED
 * and QUITTING as wk_sim_set_state allows them. Stopping is pausing plus a
 * reset of everything. QUITTING ends the application, as the standard says
 * (its interfaces are gone after it): the endpoint's quit hook shuts the
 * server down as SIGTERM does, the world kept as it is rather than reset, so
 * that a server keeping its worlds on disk finds them again; an endpoint
 * without a hook has no application to end and refuses it. NO_WORLD and
 * LOADING_WORLD are states worldkit reports, never ones a client may ask
 * for. */
#include "api/api_internal.h"

static const wk__code_map transition_codes[] = {
    {WK_EXISTS, WK_SET_STATE_ALREADY_IN_TARGET_STATE},
    {WK_INVALID, WK_SET_STATE_INCORRECT_TRANSITION},
    {0, WK_SET_STATE_STATE_TRANSITION_ERROR}, /* the reset of a stop failed */
};

static SimulationInterfaces__SimulationState *state_msg(wk__call *call, wk_sim_state state)
{
    SimulationInterfaces__SimulationState *m = wk__call_alloc(call, sizeof *m);
    if (m) {
        simulation_interfaces__simulation_state__init(m);
        m->has_state = true;
        m->state = (uint32_t)state;
    }
    return m;
}

int wk__get_simulation_state(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)request;
    SimulationInterfaces__GetSimulationStateResponse *resp = (void *)*response;
    wk_sim_state state = api->unloaded ? WK_SIM_NO_WORLD : wk_sim_state_of(api->sim);
    resp->state = state_msg(call, state);
    /* Result's error_message is "additional error description when
     * useful": why the loop paused the world. */
    resp->result = wk__call_result(call, WK_RESULT_OK, "%s", state == WK_SIM_PAUSED ? api->paused_why : "");
    return WK_OK;
}

static SimulationInterfaces__Result *set_state(wk_api *api, wk__call *call, uint32_t target)
{
    if (target > WK_SIM_LOADING_WORLD)
        return wk__call_result(call, WK_SET_STATE_INCORRECT_TRANSITION, "%u is not a SimulationState (0 to 5)", target);
    wk_api *endpoint = api->endpoint;
    if (target == WK_SIM_QUITTING && !endpoint->quit)
        return wk__call_result(call, WK_SET_STATE_STATE_TRANSITION_ERROR, "%s",
                               "QUITTING: this endpoint serves no application that could quit");
    wk_status st = {0};
    bool was_playing = wk_sim_state_of(api->sim) == WK_SIM_PLAYING;
    int rc = wk_sim_set_state(api->sim, (wk_sim_state)target, &st);
    if (rc == WK_OK)
        api->paused_why[0] = '\0';
    if (rc == WK_OK && was_playing && api->open)
        wk__api_checkpoint(api);
    if (rc == WK_OK && target == WK_SIM_QUITTING)
        endpoint->quit(endpoint->quit_ctx);
    return rc ? wk__call_result(call, wk__map_code(transition_codes, rc), "%s", st.message)
              : wk__call_result(call, WK_RESULT_OK, "%s", "");
}

int wk__set_simulation_state(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__SetSimulationStateRequest *req = (const void *)request;
    /* An absent state is ROS's default, 0: STOPPED. */
    return wk__call_reply(*response,
                          set_state(api, call, req->state ? req->state->state : WK_SIM_STOPPED));
}
