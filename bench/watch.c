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
#include "moving.h"
#include "worldkit/watch.pb-c.h"
#include "worldkit/wk_server.h"

#define MODELS 500
#define WATCHERS 10
#define WATCH_HZ 60
#define LAGS_MAX 100000

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
    moving_set_state(api, NULL, WK_SIM_PLAYING);
    r->wall0 = now_s();
    pthread_mutex_unlock(&r->lock);
    nanosleep(&(struct timespec){(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)}, NULL);
    moving_set_state(api, NULL, WK_SIM_PAUSED);
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
    char *sdf = moving_world_sdf(MODELS, "visual", "<physics type='ode'><max_step_size>0.001</max_step_size></physics>");
    moving_load(api, sdf);
    free(sdf);
    moving_set_state(api, NULL, WK_SIM_PAUSED);
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
