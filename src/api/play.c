/* play.c — the simulation loop of a PLAYING world, one batch of steps at a
 * time under the endpoint's lock, and the checkpoints of its motion, which
 * is not journaled step by step: every checkpoint_s seconds, after levels
 * change the world's entities (a later journal entry may refer to them), and
 * when it stops playing. The thread that calls it and its pacing
 * belong to the transport (src/server/loop.c); between two batches the lock
 * is free, so service calls, a pause among them, get in. A step that fails
 * pauses the world (a world past the physics limit fails every step the
 * same way): the reason is logged once and GetSimulationState tells it. */
#include <stdio.h>

#include "api/api_internal.h"
#include "base/clock.h"

void wk__api_checkpoint(wk_api *api)
{
    wk_status st = {0};
    if (wk_store_checkpoint(api->open, &st))
        fprintf(stderr, "worldkit: checkpoint of world '%s': %s\n", wk_world_id(api->open), st.message);
    api->levels_changed = false;
    api->checkpoint_at = wk__monotonic_s() + api->checkpoint_s;
}

/* PLAYING to PAUSED, as SimulationState's PAUSED keeps the world as the
 * failed step left it (STOPPED would reset it). */
static void pause_failed(wk_api *api, int rc)
{
    const char *error = wk_sim_error(api->sim);
    char code[32];
    snprintf(code, sizeof code, "code %d", rc);
    snprintf(api->paused_why, sizeof api->paused_why, "paused: a step failed: %s", error[0] ? error : code);
    fprintf(stderr, "worldkit: world '%s' %s\n", api->world_id, api->paused_why);
    wk_sim_set_state(api->sim, WK_SIM_PAUSED, NULL);
    api->checkpoint_at = 0; /* its motion so far, as any stop of play */
}

int wk_api_play(wk_api *api, uint64_t steps, wk_api_clock *clock)
{
    pthread_mutex_lock(&api->lock);
    wk_sim *sim = api->sim;
    bool playing = wk_sim_state_of(sim) == WK_SIM_PLAYING && !api->unloaded;
    uint64_t before = wk_sim_iterations(sim);
    /* The steps' motion is not journaled: it is checkpointed. */
    int rc = playing && steps ? wk__api_open_world(api, true, NULL) : WK_OK;
    if (api->open) {
        rc = wk_sim_step(sim, steps);
        if (rc)
            pause_failed(api, rc);
        if (api->levels_changed || wk__monotonic_s() >= api->checkpoint_at)
            wk__api_checkpoint(api);
        wk__api_close_world(api, false, NULL);
    }
    if (clock)
        *clock = (wk_api_clock){
            .state = api->unloaded ? WK_SIM_NO_WORLD : wk_sim_state_of(sim),
            .iterations = wk_sim_iterations(sim),
            .done = wk_sim_iterations(sim) - before,
            .dt = wk_sim_dt(sim),
            .rtf = wk_sim_default_rtf(sim),
        };
    pthread_mutex_unlock(&api->lock);
    return rc;
}
