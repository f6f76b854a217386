/* sim.c — how many worlds one server keeps PLAYING at real time.
 *
 * A world of 500 moving models (1,000 entities: each model and its link)
 * is loaded as the current world and cloned; the server's own PLAYING loop
 * (wk_server_start, on a free loopback port) then plays 1, 2, 4, ... of
 * them at once (doubling, then bisecting between the last count that kept
 * up and the first that did not), each count for WK_BENCH_SECONDS (default
 * 2), and reads how far each one's simulated time went. A count keeps real
 * time when every world ran at least 0.95 of wall time. Prints:
 *   sim.worlds_playing_rt  the most worlds that kept real time together,
 *   sim.step_us            one step of one such world alone (for scale),
 * and on stderr the slowest world's real-time factor per count. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench/sim"
#include "bench.h"
#include "moving.h"
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_server.h"

#define MODELS 500
#define WORLDS_MAX 64

static void world_id(int i, char *out, size_t cap)
{
    snprintf(out, cap, i ? "env_%d" : "world", i);
}

/* The slowest real-time factor of the first count worlds played together
 * for seconds. */
static double play(wk_api *api, int count, double seconds)
{
    wk_api *sims[WORLDS_MAX + 1];
    uint64_t before[WORLDS_MAX];
    char id[32];
    for (int i = 0; i < count; i++) {
        world_id(i, id, sizeof id);
        moving_set_state(api, id, WK_SIM_PAUSED);
    }
    size_t n = wk_api_simulations(api, sims, WORLDS_MAX + 1);
    if (n < (size_t)count)
        die("%zu simulations for %d worlds", n, count);
    wk_api_clock clock;
    for (int i = 0; i < count; i++) {
        wk_api_play(sims[i], 0, &clock);
        before[i] = clock.iterations;
    }
    double t0 = now_s();
    for (int i = 0; i < count; i++) {
        world_id(i, id, sizeof id);
        moving_set_state(api, id, WK_SIM_PLAYING);
    }
    struct timespec nap = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&nap, NULL);
    double slowest = 1e9;
    for (int i = 0; i < count; i++) {
        world_id(i, id, sizeof id);
        moving_set_state(api, id, WK_SIM_PAUSED);
        wk_api_play(sims[i], 0, &clock);
        /* Each world's own span: from the first PLAYING to its pause. */
        double rtf = (double)(clock.iterations - before[i]) * clock.dt / (now_s() - t0);
        slowest = rtf < slowest ? rtf : slowest;
    }
    return slowest;
}

int main(void)
{
    const char *env = getenv("WK_BENCH_SECONDS");
    double seconds = env && atof(env) > 0 ? atof(env) : 2;
    wk_api *api = wk_api_new();
    if (!api)
        die("out of memory");
    char *sdf = moving_world_sdf(MODELS, "collision", "");
    moving_load(api, sdf);
    free(sdf);

    /* One step of one world alone, for scale. */
    wk_sim *sim = wk_api_sim(api);
    double t = now_s();
    if (wk_sim_step(sim, 1000))
        die("stepping");
    double step_us = (now_s() - t) * 1e3;

    char id[32], made[WK_WORLD_ID_MAX];
    wk_status st;
    for (int i = 1; i < WORLDS_MAX; i++) {
        world_id(i, id, sizeof id);
        if (wk_store_clone(wk_api_store(api), "world", id, true, NULL, made, &st))
            die("cloning: %s", st.message);
    }
    wk_server *server;
    if (wk_server_start(api, &(wk_server_desc){.listen = "127.0.0.1:0"}, &server, &st))
        die("starting the server: %s", st.message);
    /* Doubling until a count falls behind, then halving the gap. */
    int kept = 0, failed = WORLDS_MAX + 1;
    for (int count = 1; count < failed && count > kept;) {
        double rtf = play(api, count, seconds);
        fprintf(stderr, BENCH_NAME ": %d worlds playing: slowest real-time factor %.3f\n", count, rtf);
        if (rtf >= 0.95)
            kept = count;
        else
            failed = count;
        count = failed > WORLDS_MAX ? (count * 2 > WORLDS_MAX ? WORLDS_MAX : count * 2) : (kept + failed) / 2;
    }
    wk_server_free(server);
    wk_api_free(api);
    printf("bench sim.worlds_playing_rt %d worlds\n", kept);
    printf("bench sim.step_us %.1f us\n", step_us);
    return 0;
}
