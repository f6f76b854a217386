/* api.c — the service endpoint: its lifetime, one simulation_interfaces
 * call from request bytes to response bytes under the lock of the world's
 * simulation, and the helpers every handler uses (allocation, result codes,
 * names). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/methods.h"
#include "base/grow.h"

void *wk__call_alloc(wk__call *call, size_t size)
{
    if (WK__GROW(call->blocks, call->cap, call->count + 1)) {
        call->failed = true;
        return NULL;
    }
    void *p = calloc(1, size ? size : 1);
    if (!p) {
        call->failed = true;
        return NULL;
    }
    return call->blocks[call->count++] = p;
}

bool wk__call_over_now(wk__call *call)
{
    return call->check && call->check(call->check_ctx) != 0;
}

bool wk__call_over(wk__call *call)
{
    return call->checks++ % 64 == 0 && wk__call_over_now(call);
}

bool wk__call_over_ctx(void *call)
{
    return wk__call_over(call);
}

char *wk__call_strdup(wk__call *call, const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = wk__call_alloc(call, n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

SimulationInterfaces__Result *wk__call_result(wk__call *call, uint32_t code, const char *fmt, ...)
{
    SimulationInterfaces__Result *r = wk__call_alloc(call, sizeof *r);
    char message[WK_STATUS_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (!r)
        return NULL;
    simulation_interfaces__result__init(r);
    r->has_result = true;
    r->result = code;
    r->error_message = wk__call_strdup(call, message);
    return r;
}

void *wk__call_response(wk__call *call, const ProtobufCMessageDescriptor *type, ProtobufCMessage **response)
{
    ProtobufCMessage *m = wk__call_alloc(call, type->sizeof_message);
    if (m) {
        type->message_init(m);
        *response = m;
    }
    return m;
}

int wk__call_reply(ProtobufCMessage *response, SimulationInterfaces__Result *result)
{
    const ProtobufCFieldDescriptor *field =
        protobuf_c_message_descriptor_get_field_by_name(response->descriptor, "result");
    if (!field || field->descriptor != &simulation_interfaces__result__descriptor)
        return WK_INVALID; /* a type without a Result: a mistake in a handler */
    if (!result)
        return WK_NOMEM;
    *(SimulationInterfaces__Result **)(void *)((char *)response + field->offset) = result;
    return WK_OK;
}

int wk__call_change(wk_api *api, wk__call *call, const void *request, ProtobufCMessage *response,
                    wk__change_fn change)
{
    char why[WK_STATUS_MSG_MAX] = "";
    uint32_t code = change(api, request, why, sizeof why);
    return wk__call_reply(response, wk__call_result(call, code, "%s", why));
}

uint32_t wk__map_code(const wk__code_map *map, int code)
{
    for (; map->code; map++)
        if (map->code == code)
            return map->result;
    return map->result;
}

const char *wk__state_name(uint32_t state)
{
    static const char *const names[] = {"stopped",  "playing",         "paused",
                                        "quitting", "without a world", "loading a world"};
    return state < sizeof names / sizeof names[0] ? names[state] : "in an unknown state";
}

wk_entity wk__api_entity(wk_api *api, const char *name)
{
    return wk_scene_scoped(wk_api_scene(api), wk_api_world(api), name);
}

uint32_t wk__api_no_entity(wk_api *api, const char *name, char *why, size_t cap)
{
    const char *level = wk_sim_unloaded_level_of(api->sim, name);
    if (level)
        snprintf(why, cap, "no entity named '%s': its level %s is unloaded (it loads while a performer is near)", name,
                 level);
    else
        snprintf(why, cap, "no entity named '%s'", name);
    return WK_RESULT_NOT_FOUND;
}

wk_entity wk__api_named(wk_api *api, wk__call *call, const char *name, SimulationInterfaces__Result **result)
{
    wk_entity e = wk__api_entity(api, name);
    char why[WK_STATUS_MSG_MAX];
    if (!e)
        *result = wk__call_result(call, wk__api_no_entity(api, name, why, sizeof why), "%s", why);
    return e;
}

wk_entity wk__api_frame(wk_api *api, const char *frame)
{
    if (!frame || !frame[0] || !strcmp(frame, "world"))
        return wk_api_world(api);
    return wk__api_entity(api, frame);
}

wk_api *wk_api_new_desc(const wk_api_desc *desc)
{
    wk_api *api = calloc(1, sizeof *api);
    wk_status st;
    if (!api) {
        wk_store_free(desc ? desc->store : NULL);
        return NULL;
    }
    api->endpoint = api;
    snprintf(api->world_id, sizeof api->world_id, "%s", WK__CURRENT_WORLD);
    api->levels = desc && desc->levels;
    api->physics = desc ? desc->physics : WK_PHYSICS_NONE;
    api->max_physics_links = desc ? desc->max_physics_links : 0;
    api->roots = desc ? desc->roots : NULL;
    api->checkpoint_s = desc && desc->checkpoint_seconds > 0 ? desc->checkpoint_seconds : 5;
    api->quit = desc ? desc->quit : NULL;
    api->quit_ctx = desc ? desc->quit_ctx : NULL;
    api->on_level = desc ? desc->on_level : NULL;
    api->level_ctx = desc ? desc->level_ctx : NULL;
    if (pthread_mutex_init(&api->lock, NULL))
        goto fail_free_api;
    if (pthread_mutex_init(&api->bindings_lock, NULL))
        goto fail_destroy_lock;
    if (!(api->store = desc && desc->store ? desc->store : wk_store_new()))
        goto fail_destroy_bindings_lock;
    if (!(api->hub = wk_watch_hub_new()))
        goto fail_free_store;
    wk__api_watch_store(api);
    wk_store_set_max_entities(api->store, desc && desc->max_world_entities ? desc->max_world_entities
                                                                           : WK_MAX_WORLD_ENTITIES);
    wk__api_bound_links(api);
    api->max_response_bytes = desc && desc->max_response_bytes ? desc->max_response_bytes : WK_MAX_RESPONSE_BYTES;
    api->max_memory_bytes = desc ? desc->max_memory_bytes : 0;
    if (wk__api_bind(api, true, &st))
        goto fail_free_store;
    return api;

fail_free_store:
    wk_store_free(api->store);
    wk_watch_hub_free(api->hub);
fail_destroy_bindings_lock:
    pthread_mutex_destroy(&api->bindings_lock);
fail_destroy_lock:
    pthread_mutex_destroy(&api->lock);
fail_free_api:
    free(api);
    return NULL;
}

wk_api *wk_api_new(void)
{
    return wk_api_new_desc(NULL);
}

void wk_api_free(wk_api *api)
{
    if (!api)
        return;
    wk__api_free_bindings(api);
    wk_sim_free(api->sim);
    wk_scene_free(api->initial);
    wk_scene_free(api->elsewhere);
    wk_store_free(api->store);
    wk_watch_hub_free(api->hub);
    pthread_mutex_destroy(&api->bindings_lock);
    pthread_mutex_destroy(&api->lock);
    free(api);
}

wk_sim *wk_api_sim(wk_api *api)
{
    return api->sim;
}

wk_store *wk_api_store(wk_api *api)
{
    return api->store;
}

wk_scene *wk_api_scene(wk_api *api)
{
    return wk_sim_scene(api->sim);
}

wk_entity wk_api_world(const wk_api *api)
{
    return wk_sim_world(api->sim);
}

/* The code of the Result in the response's `result` field; -1 when it has
 * none. */
static int result_code(const ProtobufCMessage *response)
{
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(response->descriptor, "result");
    if (!f || f->descriptor != &simulation_interfaces__result__descriptor || f->label == PROTOBUF_C_LABEL_REPEATED)
        return -1;
    const SimulationInterfaces__Result *r = *(SimulationInterfaces__Result *const *)(const void *)(
        (const char *)response + f->offset);
    return r && r->has_result ? (int)r->result : -1;
}

/* Answers a simulation_interfaces method refused for a bound (limits.c)
 * in its response's Result, OPERATION_FAILED, the standard's code for a
 * call that could not be done. */
static int refuse_limit(wk__call *call, ProtobufCMessage *response, const wk_status *why)
{
    return wk__call_reply(response, wk__call_result(call, WK_RESULT_OPERATION_FAILED, "%s", why->message));
}

/* Begins the scene batch of a method whose row says so (WK__METHOD_BATCH),
 * on the open world; *open says whether one was begun. */
static int batch_begin(wk_api *api, const wk__method *m, bool *open, wk_status *st)
{
    *open = false;
    if (!(m->flags & WK__METHOD_BATCH) || !api->open)
        return WK_OK;
    int rc = wk_scene_batch_begin(wk_api_scene(api), st);
    *open = rc == WK_OK;
    return rc;
}

/* Ends the scene batch: keeps what the handler changed when it answered a
 * Result of OK, else puts the world back as it was. */
static int batch_end(wk_api *api, int rc, const ProtobufCMessage *response)
{
    wk_scene *s = wk_api_scene(api);
    if (rc == WK_OK && result_code(response) == WK_RESULT_OK)
        return wk_scene_batch_commit(s);
    wk_scene_batch_rollback(s);
    return rc;
}

/* Runs the method, or one batch of its steps, under the binding's lock:
 * opens the world in the row's mode, runs the handler, commits, closes, and
 * packs the response unless more batches follow (a method refused
 * for a bound answers a Result saying which). A batch that leaves steps
 * for the next does not commit: the steps' motion is committed with the
 * last. */
static int run_batch(wk_api *api, const wk__method *m, const ProtobufCMessage *req, wk__progress *progress,
                     int (*check)(void *), void *check_ctx, wk_buf *out, int *result, wk_status *st)
{
    wk__call call = {.status = st, .progress = progress, .check = check, .check_ctx = check_ctx};
    ProtobufCMessage *response = NULL;
    bool writes = m->flags & WK__METHOD_WRITES, world = !(m->flags & WK__METHOD_FILES);
    if (world)
        pthread_mutex_lock(&api->lock);
    int rc = check ? check(check_ctx) : 0;
    /* A client deleted the current world through ObjectWorldService: no
     * world is loaded until LoadWorld. */
    if (rc == 0 && world && wk__api_open_world(api, writes, NULL))
        api->unloaded = true;
    progress->more = false;
    wk_status limit = {0};
    if (rc == 0 && !wk__call_response(&call, wk__method_response(m), &response))
        rc = WK_NOMEM;
    else if (rc == 0 && world && wk__api_refuse_without_world(api, &call, m, response))
        rc = WK_OK;
    else if (rc == 0 && wk__api_memory_room(api->endpoint, m, &limit))
        rc = refuse_limit(&call, response, &limit);
    else if (rc == 0) {
        bool batch;
        rc = batch_begin(api, m, &batch, st);
        if (rc == WK_OK)
            rc = m->handle(api, &call, req, &response);
        if (rc == WK_OK && call.failed)
            rc = WK_NOMEM;
        if (batch)
            rc = batch_end(api, rc, response);
    }
    if (rc == WK_OK && (call.failed || !response))
        rc = WK_NOMEM;
    /* What the call changed is on disk before it is answered. */
    int closed = world ? wk__api_close_world(api, rc == WK_OK && writes && !progress->more, st) : WK_OK;
    rc = rc ? rc : closed;
    if (rc == WK_OK && !progress->more) {
        size_t size = protobuf_c_message_get_packed_size(response);
        if (wk__api_response_room(api->endpoint, m, size, &limit)) {
            rc = refuse_limit(&call, response, &limit);
            size = rc ? 0 : protobuf_c_message_get_packed_size(response);
        }
        if (rc == WK_OK)
            rc = wk_buf_reserve(out, size);
        if (rc == WK_OK)
            out->len += protobuf_c_message_pack(response, out->data + out->len);
        if (result)
            *result = result_code(response);
    }
    if (world)
        pthread_mutex_unlock(&api->lock);
    for (size_t i = 0; i < call.count; i++)
        free(call.blocks[i]);
    free(call.blocks);
    return rc;
}

/* Unpacks the request and runs the method, batch after batch, reporting
 * the steps' feedback between them. Parsing needs no world, so it comes
 * before the lock. */
int wk__api_dispatch(wk_api *api, const wk__method *m, const uint8_t *request, size_t len, wk_api_feedback_fn fn,
                     void *ctx, int (*check)(void *), void *check_ctx, wk_buf *out, int *result, wk_status *st)
{
    const ProtobufCMessageDescriptor *type = wk__method_request(m);
    ProtobufCMessage *req = protobuf_c_message_unpack(type, NULL, len, request);
    char why[WK_STATUS_MSG_MAX] = "";
    if (!req || !wk__request_strings_clean(type, request, len, why, sizeof why)) {
        protobuf_c_message_free_unpacked(req, NULL);
        return wk_fail(st, WK_PARSE, "%s", why[0] ? why : "the request does not parse");
    }
    wk__progress progress = {.feedback = fn, .ctx = ctx};
    int rc;
    do {
        rc = run_batch(api, m, req, &progress, check, check_ctx, out, result, st);
        /* The last batch's feedback goes out before its result. */
        if (rc == WK_OK)
            wk__progress_report(&progress);
    } while (rc == WK_OK && progress.more);
    protobuf_c_message_free_unpacked(req, NULL);
    return rc;
}

int wk_api_call(wk_api *api, const char *service, const uint8_t *request, size_t len, wk_buf *out)
{
    const wk__method *m = wk__method_named(&simulation_interfaces__simulation_interfaces__descriptor, service);
    return m ? wk__api_dispatch(api, m, request, len, NULL, NULL, NULL, NULL, out, NULL, NULL) : WK_NOT_FOUND;
}

int wk_api_simulate_steps(wk_api *api, const uint8_t *goal, size_t len, wk_api_feedback_fn fn, void *ctx,
                          wk_buf *out)
{
    const wk__method *m = wk__method_named(&simulation_interfaces__simulation_interfaces__descriptor, "SimulateSteps");
    return wk__api_dispatch(api, m, goal, len, fn, ctx, NULL, NULL, out, NULL, NULL);
}
