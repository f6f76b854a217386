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
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_server.h"

#define MODELS 500
#define WORLDS_MAX 64

/* The world's SDFormat: MODELS models on a grid, each one box link. */
static char *world_sdf(void)
{
    size_t cap = 256 + MODELS * 256;
    char *s = malloc(cap);
    if (!s)
        die("out of memory");
    size_t n = (size_t)snprintf(s, cap, "<sdf version='1.9'><world name='bench'>");
    for (int i = 0; i < MODELS; i++)
        n += (size_t)snprintf(s + n, cap - n,
                              "<model name='m%d'><pose>%d %d 0 0 0 0</pose><link name='l'><collision name='c'>"
                              "<geometry><box><size>1 1 1</size></box></geometry></collision></link></model>",
                              i, i % 25, i / 25);
    snprintf(s + n, cap - n, "</world></sdf>");
    return s;
}

static bool ignore(void *ctx, const uint8_t *msg, size_t len)
{
    (void)ctx, (void)msg, (void)len;
    return true;
}

/* Calls a simulation_interfaces method on world id with request. */
static void call(wk_api *api, const char *id, const char *method, const ProtobufCMessage *request)
{
    uint8_t buf[1 << 16];
    if (protobuf_c_message_get_packed_size(request) > sizeof buf)
        die("%s: request too large", method);
    size_t len = protobuf_c_message_pack(request, buf);
    char path[128];
    snprintf(path, sizeof path, "/simulation_interfaces.SimulationInterfaces/%s", method);
    wk_api_sink sink = {.write = ignore, .world_id = id};
    if (wk_api_invoke(api, path, buf, len, &sink) != WK_GRPC_OK)
        die("%s on %s: %s", method, id, sink.message);
}

static void set_state(wk_api *api, const char *id, wk_sim_state state)
{
    SimulationInterfaces__SimulationState s = SIMULATION_INTERFACES__SIMULATION_STATE__INIT;
    s.has_state = true;
    s.state = (uint32_t)state;
    SimulationInterfaces__SetSimulationStateRequest req = SIMULATION_INTERFACES__SET_SIMULATION_STATE_REQUEST__INIT;
    req.state = &s;
    call(api, id, "SetSimulationState", &req.base);
}

/* Every model of the current world moving at 1 m/s along x. */
static void set_moving(wk_api *api)
{
    wk_sim *sim = wk_api_sim(api);
    wk_scene *s = wk_api_scene(api);
    for (wk_entity m = wk_ecm_first_child(wk_scene_ecm(s), wk_api_world(api)); m;
         m = wk_ecm_next_sibling(wk_scene_ecm(s), m)) {
        wk_motion motion = wk_sim_motion(sim, m);
        motion.linear = (wk_vec3){1, 0, 0};
        if (wk_sim_set_motion(sim, m, &motion, WK_MOTION_TWIST))
            die("setting a model's velocity");
    }
}

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
        set_state(api, id, WK_SIM_PAUSED);
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
        set_state(api, id, WK_SIM_PLAYING);
    }
    struct timespec nap = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&nap, NULL);
    double slowest = 1e9;
    for (int i = 0; i < count; i++) {
        world_id(i, id, sizeof id);
        set_state(api, id, WK_SIM_PAUSED);
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
    char *sdf = world_sdf();
    SimulationInterfaces__LoadWorldRequest load = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    load.resource_string = sdf;
    uint8_t *bytes = malloc(protobuf_c_message_get_packed_size(&load.base));
    if (!bytes)
        die("out of memory");
    wk_buf out = {0};
    if (wk_api_call(api, "LoadWorld", bytes, protobuf_c_message_pack(&load.base, bytes), &out))
        die("LoadWorld failed");
    wk_buf_free(&out);
    free(bytes);
    free(sdf);
    set_moving(api);

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
