/* watch.c — worldkit.WorldWatch/Watch, the change stream of a store world,
 * and what feeds it: the store tells the endpoint's hub of every commit
 * (both services' writes) and every world replaced, and each binding's
 * simulation of every step (bindings.c).
 *
 * A watcher's stream runs on the transport's thread: it waits on the hub
 * for a change, opens the world for reading just long enough to make the
 * message (wk_watch_next), and writes it with no world held. Between two
 * messages it waits at least 1 / max_rate_hz; what changed meanwhile is
 * merged into the next. A client that stops reading holds up its own stream
 * only (the transport ends it after a while); the simulation and other
 * callers never wait for it. */
#include <time.h>

#include "api/api_internal.h"
#include "base/clock.h"
#include "worldkit/watch.pb-c.h"

#define DEFAULT_RATE_HZ 30
#define MAX_RATE_HZ 1000
/* Seconds between looks at whether the call is over, while nothing changes. */
#define LOOK_EVERY 0.1

static void committed(wk_world *w, void *ctx)
{
    wk_api *api = ctx;
    wk_watch_publish(api->hub, wk_world_id(w), wk_scene_ecm(wk_world_scene(w)), NULL);
}

static void replaced(const char *id, void *ctx)
{
    wk_api *api = ctx;
    wk_watch_reset(api->hub, id);
}

void wk__api_watch_store(wk_api *api)
{
    wk_store_observe(api->store, &(wk_store_observer){.committed = committed, .replaced = replaced, .ctx = api});
}

/* Checks the request against the world as it is: it exists, and it has the
 * component kinds named. */
static int check_request(wk_api *api, const char *id, const Worldkit__WatchRequest *req, wk_status *st)
{
    wk_world *w;
    int rc = wk_store_open(api->store, id, false, &w, st);
    if (rc)
        return rc;
    const wk_ecm *ecm = wk_scene_ecm(wk_world_scene(w));
    for (size_t i = 0; rc == WK_OK && i < req->n_component_kinds; i++)
        if (wk_ecm_type_by_name(ecm, req->component_kinds[i]) == WK_NO_TYPE)
            rc = wk_fail(st, WK_INVALID, "Watch: world '%s' has no component kind '%.100s' (component_kinds[%zu])", id,
                         req->component_kinds[i], i);
    if (rc == WK_OK && req->has_subtree && req->subtree && !wk_ecm_exists(ecm, req->subtree))
        rc = wk_fail(st, WK_NOT_FOUND, "Watch: world '%s' has no entity %llu (subtree)", id,
                     (unsigned long long)req->subtree);
    wk_store_close(w, false, false);
    return rc;
}

/* The next message of the watcher into out, made with the world open for
 * reading; *made says whether there was one. */
static int make(wk_api *api, const char *id, wk_watcher *watcher, wk_buf *out, bool *made, wk_status *st)
{
    wk_world *w;
    int rc = wk_store_open(api->store, id, false, &w, st);
    if (rc)
        return wk_fail(st, rc, "Watch: world '%s' is gone (deleted while watched)", id);
    rc = wk_watch_next(watcher, wk_scene_ecm(wk_world_scene(w)), out, made, st);
    wk_store_close(w, false, false);
    return rc;
}

static void pause_for(double seconds)
{
    if (seconds > 0)
        nanosleep(&(struct timespec){.tv_sec = (time_t)seconds, .tv_nsec = (long)((seconds - (time_t)seconds) * 1e9)},
                  NULL);
}

/* The stream, until the call is over (its status then ends the stream) or
 * a message fails. */
static int stream(wk_api *api, wk__call *call, const char *id, wk_watcher *watcher, double period)
{
    wk_buf msg = {0};
    int rc = WK_OK;
    double last = -1e9;
    while (rc == WK_OK) {
        int over = call->check ? call->check(call->check_ctx) : 0;
        if (over > 0) {
            rc = over;
            break;
        }
        /* At most one message a period: what changes meanwhile is merged. */
        pause_for(last + period - wk__monotonic_s() < LOOK_EVERY ? last + period - wk__monotonic_s() : LOOK_EVERY);
        if (wk__monotonic_s() < last + period || !wk_watch_wait(watcher, LOOK_EVERY))
            continue;
        bool made = false;
        msg.len = 0;
        rc = make(api, id, watcher, &msg, &made, call->status);
        if (rc == WK_OK && made) {
            last = wk__monotonic_s();
            if (!call->write(call->write_ctx, msg.data, msg.len))
                break; /* the client is gone: the check says how */
        }
    }
    wk_buf_free(&msg);
    return rc;
}

int wk__watch(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)response;
    const Worldkit__WatchRequest *req = (const void *)request;
    wk_api *endpoint = api->endpoint;
    const char *id = req->world_id && req->world_id[0] ? req->world_id : endpoint->world_id;
    double rate = req->has_max_rate_hz && req->max_rate_hz > 0 ? req->max_rate_hz : DEFAULT_RATE_HZ;
    if (!call->write)
        return wk_fail(call->status, WK_UNSUPPORTED, "Watch is a stream: call it through a transport that streams");
    int rc = check_request(endpoint, id, req, call->status);
    if (rc)
        return rc;
    wk_watcher *watcher = wk_watch_subscribe(
        endpoint->hub, &(wk_watch_desc){.world_id = id,
                                        .kinds = req->n_component_kinds ? (const char *const *)req->component_kinds
                                                                        : NULL,
                                        .kind_count = req->n_component_kinds,
                                        .subtree = req->has_subtree ? req->subtree : WK_NULL_ENTITY});
    if (!watcher)
        return wk_fail(call->status, WK_NOMEM, "Watch: out of memory subscribing to world '%s'", id);
    rc = stream(endpoint, call, id, watcher, 1.0 / (rate < MAX_RATE_HZ ? rate : MAX_RATE_HZ));
    wk_watcher_free(watcher);
    return rc;
}
