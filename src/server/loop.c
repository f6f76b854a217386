/* loop.c — the thread that runs the worlds that are PLAYING (the current
 * one and every other a call has named), each at its own pace, in turn.
 *
 * It steps in small batches through wk_api_play, each under the api's lock,
 * so calls get in between batches. Pacing keeps simulated time at rtf times
 * wall-clock time since an anchor: the wall time and iteration at which the
 * thread last found the world PLAYING with a clock it did not expect (just
 * started playing, or stepped, reset or loaded by a call in between). When it
 * falls further behind than BEHIND_MAX allows, it drops the backlog and
 * anchors again, running as fast as it can rather than catching up in a
 * burst. Outside PLAYING it looks again every IDLE seconds. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "server/server_internal.h"

#define IDLE 0.01       /* seconds between looks at a world that is not PLAYING */
#define BATCH 64        /* steps at most per hold of the lock */
#define FAST_REST 20e-6 /* seconds between batches as fast as possible, for calls to get the lock */
#define BEHIND_MAX 0.25 /* wall seconds of steps it may owe before it anchors again */

/* Sleeps up to seconds, less if stop is asked; whether it is. */
static bool rest(wk__loop *l, double seconds)
{
    pthread_mutex_lock(&l->lock);
    if (!l->stop && seconds > 0) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        long long ns = until.tv_nsec + (long long)(seconds * 1e9);
        until.tv_sec += (time_t)(ns / 1000000000);
        until.tv_nsec = (long)(ns % 1000000000);
        pthread_cond_timedwait(&l->wake, &l->lock, &until);
    }
    bool stop = l->stop;
    pthread_mutex_unlock(&l->lock);
    return stop;
}

/* Where the thread is in the world's time. */
typedef struct pace {
    bool anchored;
    double wall0;     /* wall time at the anchor */
    uint64_t iter0;   /* iterations at the anchor */
    uint64_t expected; /* iterations the next look should find */
} pace;

/* Decides, from the clock, how many steps the next batch runs and how long
 * to rest before it. */
static uint64_t plan(pace *p, const wk_api_clock *c, double rtf, double *rest_for)
{
    double t = wk__monotonic_s();
    *rest_for = IDLE;
    if (c->state != WK_SIM_PLAYING) {
        p->anchored = false;
        return 0;
    }
    if (!p->anchored || c->iterations != p->expected)
        *p = (pace){.anchored = true, .wall0 = t, .iter0 = c->iterations};
    uint64_t steps = 0;
    if (rtf <= 0 || c->dt <= 0) {
        steps = BATCH;
        *rest_for = FAST_REST;
    } else {
        /* Steps since the anchor; a bound keeps the count's cast defined
         * (far behind, the anchor moves anyway). */
        double due = (t - p->wall0) * rtf / c->dt;
        uint64_t target = p->iter0 + (uint64_t)(due < 1e15 ? due : 1e15);
        if (target > c->iterations && (double)(target - c->iterations) * c->dt / rtf > BEHIND_MAX) {
            *p = (pace){.anchored = true, .wall0 = t, .iter0 = c->iterations};
            target = c->iterations;
        }
        if (target > c->iterations) {
            steps = target - c->iterations < BATCH ? target - c->iterations : BATCH;
            *rest_for = 0;
        } else {
            /* Until the next step is due, but look at least every IDLE. */
            double next = p->wall0 + (double)(c->iterations + 1 - p->iter0) * c->dt / rtf;
            *rest_for = next - t < IDLE ? next - t : IDLE;
        }
    }
    p->expected = c->iterations + steps;
    return steps;
}

/* One world's place in the loop: its pace and its next batch. */
typedef struct lane {
    pace pace;
    uint64_t steps;
    double due; /* wall time of its next look */
} lane;

/* Room for n worlds and their lanes, new lanes zero; false when out of
 * memory (the loop then plays the worlds it has room for). */
static bool grow(wk_api ***worlds, lane **lanes, size_t *cap, size_t n)
{
    wk_api **w = realloc(*worlds, n * sizeof *w);
    if (w)
        *worlds = w;
    lane *grown = w ? realloc(*lanes, n * sizeof *grown) : NULL;
    if (!grown)
        return false;
    memset(grown + *cap, 0, (n - *cap) * sizeof *grown);
    *lanes = grown;
    *cap = n;
    return true;
}

/* Plays the world whose turn it is: a batch, then its plan for the next. */
static void play(wk__loop *l, wk_api *world, lane *lane, double now)
{
    if (now < lane->due)
        return;
    wk_api_clock clock;
    double rest_for;
    int rc = wk_api_play(world, lane->steps, &clock);
    double rtf = l->rtf > 0 ? l->rtf : l->rtf < 0 ? 0 : clock.rtf;
    lane->steps = plan(&lane->pace, &clock, rtf, &rest_for);
    if (rc) {
        /* A step failed: wk_api_play paused the world, which stays as the
         * step left it until a client plays it again. */
        lane->steps = 0;
        lane->pace.anchored = false;
        rest_for = IDLE;
    }
    lane->due = wk__monotonic_s() + rest_for;
}

/* Plays every world in turn, one batch each, so that PLAYING worlds share
 * the thread fairly; each batch holds only its own world's lock, so calls
 * on the others go on meanwhile. */
static void *loop_main(void *arg)
{
    wk__loop *l = arg;
    lane *lanes = NULL;
    size_t cap = 0;
    wk_api **worlds = NULL;
    for (;;) {
        size_t n = wk_api_simulations(l->api, worlds, cap);
        if (n > cap && grow(&worlds, &lanes, &cap, n))
            n = wk_api_simulations(l->api, worlds, cap);
        n = n < cap ? n : cap;
        double next = wk__monotonic_s() + IDLE;
        for (size_t i = 0; i < n; i++) {
            play(l, worlds[i], &lanes[i], wk__monotonic_s());
            next = lanes[i].due < next ? lanes[i].due : next;
        }
        if (rest(l, next - wk__monotonic_s()))
            break;
    }
    free(worlds);
    free(lanes);
    return NULL;
}

int wk__loop_start(wk__loop *l, wk_api *api, double rtf)
{
    *l = (wk__loop){.api = api, .rtf = rtf};
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr))
        return WK_NOMEM;
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&l->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (rc)
        return WK_NOMEM;
    if (pthread_mutex_init(&l->lock, NULL))
        goto fail_destroy_cond;
    if (pthread_create(&l->thread, NULL, loop_main, l))
        goto fail_destroy_lock;
    l->started = true;
    return WK_OK;

fail_destroy_lock:
    pthread_mutex_destroy(&l->lock);
fail_destroy_cond:
    pthread_cond_destroy(&l->wake);
    return WK_NOMEM;
}

void wk__loop_stop(wk__loop *l)
{
    if (!l->started)
        return;
    pthread_mutex_lock(&l->lock);
    l->stop = true;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->lock);
    pthread_join(l->thread, NULL);
    pthread_mutex_destroy(&l->lock);
    pthread_cond_destroy(&l->wake);
    l->started = false;
}
