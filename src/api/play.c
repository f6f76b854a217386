/* play.c — the simulation loop of a PLAYING world, one batch of steps at a
 * time under the endpoint's lock. The thread that calls it and its pacing
 * belong to the transport (src/server/loop.c); between two batches the lock
 * is free, so service calls, a pause among them, get in. */
#include "api/api_internal.h"

int wk_api_play(wk_api *api, uint64_t steps, wk_api_clock *clock)
{
    pthread_mutex_lock(&api->lock);
    wk_sim *sim = api->sim;
    bool playing = wk_sim_state_of(sim) == WK_SIM_PLAYING && !api->unloaded;
    uint64_t before = wk_sim_iterations(sim);
    wk_world *w = NULL;
    /* The steps' motion is not journaled: it is the store's to checkpoint. */
    int rc = playing && steps ? wk__api_open_world(api, &w, NULL) : WK_OK;
    if (w) {
        rc = wk_sim_step(sim, steps);
        wk_store_close(w, false, false);
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
