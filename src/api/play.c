/* play.c — the simulation loop of a PLAYING world, one batch of steps at a
 * time under the endpoint's lock, and the checkpoints of its motion, which
 * is not journaled step by step: every checkpoint_s seconds, after levels
 * change the world's entities (a later journal entry may refer to them), and
 * when it stops playing. The thread that calls it and its pacing
 * belong to the transport (src/server/loop.c); between two batches the lock
 * is free, so service calls, a pause among them, get in. */
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
