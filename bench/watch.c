/* watch.c — what watchers cost a playing world.
 *
 * A world of 500 models moving at 1 m/s (1,000 entities: each model and its
 * link), stepped at 1 kHz (dt 1 ms) in real time by the server's own
 * PLAYING loop (wk_server_start on a free loopback port), played for
 * WK_BENCH_SECONDS (default 3) with no watcher, then with 10 watchers of
 * WorldWatch/Watch at 60 messages a second each. The watchers run in this
 * process, each on a thread of its own, through wk_api_invoke: the server's
 * own handler path (the hub, a message made under the world's read lock,
 * written with nothing held), without gRPC's transport. Each decodes every
 * message's stamp and takes its lag: how long after the simulation reached
 * the message's time (wall time since play began minus simulated time since
 * then) the watcher holds it. Prints:
 *   watch.rtf_ratio_10   real-time factor with 10 watchers / with none (target >= 0.95)
 *   watch.lag_p99_ms     the 99th percentile of every message's lag (target < 50 ms)
 *   watch.fast_ratio_10  steps a second as fast as possible, 10 watchers / none: what
 *                        the watchers take from a simulation with no time to spare */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench/watch"
#include "bench.h"
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/watch.pb-c.h"
#include "worldkit/wk_server.h"

#define MODELS 500
#define WATCHERS 10
#define WATCH_HZ 60
#define LAGS_MAX 100000

/* The world's SDFormat: MODELS models on a grid, each one box link. */
static char *world_sdf(void)
{
    size_t cap = 256 + MODELS * 256;
    char *s = malloc(cap);
    if (!s)
        die("out of memory");
    size_t n = (size_t)snprintf(s, cap, "<sdf version='1.9'><world name='bench'>"
                                        "<physics type='ode'><max_step_size>0.001</max_step_size></physics>");
    for (int i = 0; i < MODELS; i++)
        n += (size_t)snprintf(s + n, cap - n,
                              "<model name='m%d'><pose>%d %d 0 0 0 0</pose><link name='l'><visual name='v'>"
                              "<geometry><box><size>1 1 1</size></box></geometry></visual></link></model>",
                              i, i % 25, i / 25);
    snprintf(s + n, cap - n, "</world></sdf>");
    return s;
}

static bool ignore(void *ctx, const uint8_t *msg, size_t len)
{
    (void)ctx, (void)msg, (void)len;
    return true;
}

static void call(wk_api *api, const char *method, const ProtobufCMessage *request)
{
    size_t len = protobuf_c_message_get_packed_size(request);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        die("out of memory");
    protobuf_c_message_pack(request, buf);
    char path[128];
    snprintf(path, sizeof path, "/simulation_interfaces.SimulationInterfaces/%s", method);
    wk_api_sink sink = {.write = ignore};
    if (wk_api_invoke(api, path, buf, len, &sink) != WK_GRPC_OK)
        die("%s: %s", method, sink.message);
    free(buf);
}

static void set_state(wk_api *api, wk_sim_state state)
{
    SimulationInterfaces__SimulationState s = SIMULATION_INTERFACES__SIMULATION_STATE__INIT;
    s.has_state = true;
    s.state = (uint32_t)state;
    SimulationInterfaces__SetSimulationStateRequest req = SIMULATION_INTERFACES__SET_SIMULATION_STATE_REQUEST__INIT;
    req.state = &s;
    call(api, "SetSimulationState", &req.base);
}

static void set_moving(wk_api *api)
{
    wk_sim *sim = wk_api_sim(api);
    wk_ecm *ecm = wk_scene_ecm(wk_api_scene(api));
    for (wk_entity m = wk_ecm_first_child(ecm, wk_api_world(api)); m; m = wk_ecm_next_sibling(ecm, m)) {
        wk_motion motion = wk_sim_motion(sim, m);
        motion.linear = (wk_vec3){1, 0, 0};
        if (wk_sim_set_motion(sim, m, &motion, WK_MOTION_TWIST))
            die("setting a model's velocity");
    }
}

/* What the watchers share: when play began, and every lag they took. */
typedef struct run {
    wk_api *api;
    double wall0, sim0;
    bool stop;
    pthread_mutex_t lock;
    double lags[LAGS_MAX];
    size_t lag_count;
    size_t messages, bytes;
} run;

static bool take(void *ctx, const uint8_t *msg, size_t len)
{
    run *r = ctx;
    double now = now_s();
    Worldkit__WatchUpdate *u = worldkit__watch_update__unpack(NULL, len, msg);
    if (!u)
        die("a message that does not parse");
    pthread_mutex_lock(&r->lock);
    if (!u->full && r->wall0 > 0 && r->lag_count < LAGS_MAX)
        r->lags[r->lag_count++] = (now - r->wall0) - (u->sim_time - r->sim0);
    r->messages++;
    r->bytes += len;
    bool go_on = !r->stop;
    pthread_mutex_unlock(&r->lock);
    worldkit__watch_update__free_unpacked(u, NULL);
    return go_on;
}

static int over(void *ctx)
{
    run *r = ctx;
    pthread_mutex_lock(&r->lock);
    bool stop = r->stop;
    pthread_mutex_unlock(&r->lock);
    return stop ? WK_GRPC_UNAVAILABLE : 0;
}

static void *watcher(void *arg)
{
    run *r = arg;
    Worldkit__WatchRequest req = WORLDKIT__WATCH_REQUEST__INIT;
    req.has_max_rate_hz = true;
    req.max_rate_hz = WATCH_HZ;
    uint8_t buf[64];
    size_t len = worldkit__watch_request__pack(&req, buf);
    wk_api_sink sink = {.write = take, .check = over, .ctx = r};
    wk_api_invoke(r->api, "/worldkit.WorldWatch/Watch", buf, len, &sink);
    return NULL;
}

static double sim_time(wk_api *api)
{
    wk_api_clock clock;
    wk_api_play(api, 0, &clock);
    return (double)clock.iterations * clock.dt;
}

/* Plays for seconds with n watchers; the real-time factor. */
static double play(wk_api *api, run *r, int n, double seconds)
{
    pthread_t threads[WATCHERS];
    r->stop = false;
    for (int i = 0; i < n; i++)
        if (pthread_create(&threads[i], NULL, watcher, r))
            die("starting a watcher");
    nanosleep(&(struct timespec){.tv_nsec = 200000000}, NULL); /* their full states first */
    pthread_mutex_lock(&r->lock);
    r->sim0 = sim_time(api);
    set_state(api, WK_SIM_PLAYING);
    r->wall0 = now_s();
    pthread_mutex_unlock(&r->lock);
    nanosleep(&(struct timespec){(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)}, NULL);
    set_state(api, WK_SIM_PAUSED);
    double rtf = (sim_time(api) - r->sim0) / (now_s() - r->wall0);
    pthread_mutex_lock(&r->lock);
    r->stop = true;
    r->wall0 = 0;
    pthread_mutex_unlock(&r->lock);
    for (int i = 0; i < n; i++)
        pthread_join(threads[i], NULL);
    return rtf;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The real-time factors with none and with WATCHERS watchers, the loop
 * paced at rtf (negative: as fast as possible). */
static void compare(wk_api *api, run *r, double rtf, double seconds, double *none, double *ten)
{
    wk_server *server;
    wk_status st;
    if (wk_server_start(api, &(wk_server_desc){.listen = "127.0.0.1:0", .rtf = rtf}, &server, &st))
        die("starting the server: %s", st.message);
    *none = play(api, r, 0, seconds);
    *ten = play(api, r, WATCHERS, seconds);
    wk_server_free(server);
}

int main(void)
{
    const char *env = getenv("WK_BENCH_SECONDS");
    double seconds = env && atof(env) > 0 ? atof(env) : 3;
    wk_api *api = wk_api_new();
    if (!api)
        die("out of memory");
    char *sdf = world_sdf();
    SimulationInterfaces__LoadWorldRequest load = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    load.resource_string = sdf;
    call(api, "LoadWorld", &load.base);
    free(sdf);
    set_moving(api);
    set_state(api, WK_SIM_PAUSED);
    run *r = calloc(1, sizeof *r);
    if (!r || pthread_mutex_init(&r->lock, NULL))
        die("out of memory");
    r->api = api;

    double none, ten, fast_none, fast_ten;
    compare(api, r, 1, seconds, &none, &ten);
    size_t paced_lags = r->lag_count, messages = r->messages, bytes = r->bytes;
    qsort(r->lags, paced_lags, sizeof r->lags[0], cmp_double);
    double p99 = paced_lags ? r->lags[(size_t)((double)(paced_lags - 1) * 0.99)] : 1e9;
    compare(api, r, -1, seconds, &fast_none, &fast_ten);
    fprintf(stderr,
            BENCH_NAME ": real time: rtf %.4f alone, %.4f with %d watchers at %d Hz (%zu messages, %.1f MB, lag "
                       "median %.1f ms); as fast as possible: %.0f vs %.0f steps/s\n",
            none, ten, WATCHERS, WATCH_HZ, messages, (double)bytes / 1e6,
            paced_lags ? r->lags[paced_lags / 2] * 1e3 : 0.0, fast_none * 1000, fast_ten * 1000);
    if (!paced_lags)
        die("the watchers took no message");
    printf("bench watch.rtf_ratio_10 %.4f ratio\n", ten / none);
    printf("bench watch.lag_p99_ms %.2f ms\n", p99 * 1e3);
    printf("bench watch.fast_ratio_10 %.4f ratio\n", fast_ten / fast_none);
    pthread_mutex_destroy(&r->lock);
    free(r);
    wk_api_free(api);
    return 0;
}
