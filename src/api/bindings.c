/* bindings.c — a simulation bound to a world of the store: the endpoint's
 * to the current world "world", and one per other world a call names
 * (wk_api_sink.world_id), so that every store world can be simulated, each
 * with its own state, time and lock. A binding opens its world for each
 * call and batch of steps, and its simulation runs on whatever scene the
 * store holds for it then (a client may have cloned or swapped another
 * world onto it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "base/grow.h"

/* Notes that a level loaded or unloaded, for the next checkpoint, and
 * tells the endpoint's hook. */
static void level_changed(wk_sim *sim, const char *level, bool loaded, void *ctx)
{
    wk_api *api = ctx;
    api->levels_changed = true;
    if (api->endpoint->on_level)
        api->endpoint->on_level(api->world_id, level, loaded, wk_sim_time(sim), api->endpoint->level_ctx);
}

static int read_empty(wk_world_desc **out, wk_status *st)
{
    return wk_desc_read(&(wk_read_desc){.resource_string = "<sdf version='1.9'><world name='default'/></sdf>"}, out,
                        st);
}

/* The last system of every step: what it changed goes to the world's
 * watchers, stamped with the simulation's clock, before the step ends. */
static void publish_step(wk_sim *sim, const wk_step_info *info, void *ctx)
{
    wk_api *api = ctx;
    wk_watch_publish(api->endpoint->hub, api->world_id, wk_scene_ecm(wk_sim_scene(sim)),
                     &(wk_watch_clock){.step = info->iteration, .sim_time = info->sim_time});
}

/* Makes sim the binding's, and its scene as it is now the state a reset
 * puts back. */
static void use_sim(wk_api *api, wk_sim *sim)
{
    wk_sim_free(api->sim);
    api->sim = sim;
    wk_sim_on_level_event(sim, level_changed, api);
    /* The levels a simulation starts with loaded were loaded before it
     * had the hook: the hook hears of them now, as of time 0. */
    wk_level_info level;
    for (size_t i = 0; api->endpoint->on_level && wk_sim_level_info(sim, i, &level); i++)
        if (level.loaded)
            api->endpoint->on_level(api->world_id, level.name, true, wk_sim_time(sim), api->endpoint->level_ctx);
    wk_scene_free(api->initial);
    api->initial = wk_scene_clone(wk_sim_scene(sim));
}

/* After the store replaced the binding's world: the call goes on with the
 * new world, open for writing as before, and lets the one it held go
 * without a commit (that world is no longer in the store: committing it
 * would write a stale journal entry, or fail as busy). The simulation is
 * bound to the new world when it is not its scene already. */
static int take_replacement(wk_api *api, wk_status *st)
{
    bool was_open = api->open != NULL;
    wk__api_close_world(api, false, NULL);
    int rc = wk__api_open_world(api, true, st);
    if (!was_open)
        wk__api_close_world(api, false, NULL);
    return rc;
}

/* wk__call_over_now for the store's check (wk_world_create_desc.over). */
static bool over_now(void *call)
{
    return wk__call_over_now(call);
}

/* Replaces the binding's world in the store with scene (taken, also on
 * failure): one step, on disk when it returns WK_OK. With call (NULL for
 * none), its deadline is asked before the write, as serializing a large
 * world takes a while. */
static int replace_world(wk_api *api, const char *id, wk_scene *scene, wk__call *call, wk_status *st)
{
    char out[WK_WORLD_ID_MAX];
    return wk_store_create(api->store,
                           &(wk_world_create_desc){.id = id,
                                                   .scene = scene,
                                                   .replace = true,
                                                   .over = call ? over_now : NULL,
                                                   .over_ctx = call},
                           out, st);
}

/* The simulation's restorer (wk_sim_desc.restore): the world's scene
 * becomes a copy of its initial one, in the store, and the simulation runs
 * on it. The copy is made before anything is replaced, and the replace is
 * one step of the store: a restore that fails leaves the world as it was. */
static int restore_initial(wk_sim *sim, void *ctx, wk_status *st)
{
    (void)sim;
    wk_api *api = ctx;
    wk_scene *copy = api->initial ? wk_scene_clone(api->initial) : NULL;
    if (!copy)
        return wk_fail(st, WK_NOMEM, "out of memory restoring world '%s' as it began", api->world_id);
    int rc = replace_world(api, api->world_id, copy, NULL, st);
    return rc ? rc : take_replacement(api, st);
}

/* A simulation of desc (which it takes) on scene, as the endpoint runs its
 * worlds: levels, engine, the restorer of the binding, and the system that
 * feeds the change stream. */
static int sim_new(wk_api *api, wk_world_desc *desc, wk_scene *scene, wk_sim **out, wk_status *st)
{
    int rc = wk_sim_new(desc,
                        &(wk_sim_desc){.scene = scene,
                                       .levels = api->levels,
                                       .physics = api->physics,
                                       .max_physics_links = api->endpoint->max_physics_links,
                                       .restore = restore_initial,
                                       .restore_ctx = api},
                        out, st);
    if (rc == WK_OK && wk_sim_add_system(*out, WK_POST_UPDATE, publish_step, api)) {
        wk_sim_free(*out);
        *out = NULL;
        rc = wk_fail(st, WK_NOMEM, "out of memory adding the change stream to world '%s'", api->world_id);
    }
    return rc;
}

/* Keeps the file a world was read from on its world entity. */
static int keep_source(wk_scene *scene, wk_entity world, const char *source, wk_status *st)
{
    if (!source || !*source)
        return WK_OK;
    wk_ecm *ecm = wk_scene_ecm(scene);
    return wk_ecm_set(ecm, world, wk_scene_types_of(scene)->world_source, &source) < 0
               ? wk_fail(st, WK_NOMEM, "out of memory keeping the world's file %s", source)
               : WK_OK;
}

/* Puts scene (taken) in the store as the binding's world and, for the
 * endpoint, a copy of it as its initial world (WK__INITIAL_WORLD), both or
 * neither: what can fail in memory is done before the first replace, and
 * when the second fails the world held open before is put back. call's
 * deadline is asked before the first write only. */
static int replace_both(wk_api *api, wk_scene *scene, wk__call *call, wk_status *st)
{
    if (api->endpoint != api)
        return replace_world(api, api->world_id, scene, call, st);
    wk_scene *initial = wk_scene_clone(scene);
    wk_scene *back = initial && api->open ? wk_scene_clone(wk_world_scene(api->open)) : NULL;
    if (!initial || (api->open && !back)) {
        wk_scene_free(scene);
        wk_scene_free(initial);
        return wk_fail(st, WK_NOMEM, "out of memory replacing world '%s'", api->world_id);
    }
    int rc = replace_world(api, api->world_id, scene, call, st);
    if (rc) {
        wk_scene_free(initial);
        wk_scene_free(back);
        return rc;
    }
    rc = replace_world(api, WK__INITIAL_WORLD, initial, NULL, st);
    if (rc == WK_OK || !back) {
        wk_scene_free(back);
        return rc;
    }
    wk_status undo = {0};
    if (replace_world(api, api->world_id, back, NULL, &undo))
        fprintf(stderr, "worldkit: world '%s' could not be put back after a failed replace: %s\n", api->world_id,
                undo.message);
    (void)take_replacement(api, &undo);
    return rc;
}

int wk__api_set_world(wk_api *api, wk_world_desc *desc, const char *source, wk__call *call, wk_status *st)
{
    int rc = desc ? WK_OK : read_empty(&desc, st);
    if (rc)
        return rc;
    wk_scene *scene = wk_scene_new();
    if (!scene) {
        wk_desc_free(desc);
        return wk_fail(st, WK_NOMEM, "out of memory creating a world");
    }
    wk_desc_set_over(desc, call ? wk__call_over_ctx : NULL, call);
    wk_sim *sim = NULL;
    rc = sim_new(api, desc, scene, &sim, st); /* which takes desc */
    if (rc == WK_OK)
        wk_desc_set_over(desc, NULL, NULL); /* the simulation keeps desc past the call */
    if (rc == WK_OK)
        rc = wk_scene_objects_init(scene, wk_sim_world(sim), st);
    if (rc == WK_OK)
        rc = keep_source(scene, wk_sim_world(sim), source, st);
    if (rc == WK_OK && call && wk__call_over_now(call))
        rc = wk_fail(st, WK_DEADLINE, "gave up at the call's deadline, the world made but not stored");
    if (rc)
        wk_scene_free(scene);
    else
        rc = replace_both(api, scene, call, st); /* takes the scene */
    if (rc) {
        wk_sim_free(sim);
        return rc;
    }
    use_sim(api, sim);
    return take_replacement(api, st);
}

/* The description a world back from the store runs with: its file's
 * again, when it was read from one and levels run (they live in the
 * description, not in the entities); else an empty one. A file that no
 * longer reads is said on stderr, and the world runs without levels. */
static int read_source(wk_api *api, wk_scene *scene, wk_world_desc **out, wk_status *st)
{
    char *const *source = wk_ecm_get(wk_scene_ecm(scene), wk_scene_root(scene), wk_scene_types_of(scene)->world_source);
    if (!api->levels || !source || !*source)
        return read_empty(out, st);
    wk_status why = {0};
    if (wk_desc_read(&(wk_read_desc){.uri = *source, .roots = api->roots}, out, &why) == WK_OK)
        return WK_OK;
    fprintf(stderr, "worldkit: world '%s' runs without its levels: %s\n", api->world_id, why.message);
    return read_empty(out, st);
}

/* A simulation for api on scene (borrowed), which it copies as its
 * initial state. */
static int sim_on(wk_api *api, wk_scene *scene, wk_status *st)
{
    wk_world_desc *desc = NULL;
    wk_sim *sim = NULL;
    int rc = read_source(api, scene, &desc, st);
    if (rc == WK_OK)
        rc = sim_new(api, desc, scene, &sim, st);
    if (rc == WK_OK)
        use_sim(api, sim);
    return rc;
}

int wk__api_bind(wk_api *api, bool create, wk_status *st)
{
    wk_world *w;
    int rc = wk_store_open(api->store, api->world_id, false, &w, st);
    if (rc == WK_MOVED && create) {
        /* Another server sharing the store's database holds the world:
         * calls for it, which open it first, are answered with its
         * address; the simulation waits on an empty scene of its own. */
        if (!(api->elsewhere = wk_scene_new()))
            return wk_fail(st, WK_NOMEM, "out of memory binding world '%s'", api->world_id);
        rc = wk_scene_objects_init(api->elsewhere, WK_NULL_ENTITY, st);
        return rc ? rc : sim_on(api, api->elsewhere, st);
    }
    if (rc)
        return create ? wk__api_set_world(api, NULL, NULL, NULL, st) : WK_NOT_FOUND;
    rc = sim_on(api, wk_world_scene(w), st); /* with the world open: its initial copy is taken */
    wk_store_close(w, false, false);
    return rc;
}

int wk__api_open_world(wk_api *api, bool write, wk_status *st)
{
    int rc = wk_store_open(api->store, api->world_id, write, &api->open, st);
    if (rc) {
        api->open = NULL;
        return rc;
    }
    wk_scene *scene = wk_world_scene(api->open);
    if (scene == wk_sim_scene(api->sim))
        return WK_OK;
    /* Another scene, when a client cloned or swapped a world onto it: the
     * simulation's views of it are made under the write lock, since they
     * change its ECM. */
    if (!write) {
        wk__api_close_world(api, false, NULL);
        return wk__api_open_world(api, true, st) ? WK_NOT_FOUND : WK_OK;
    }
    if ((rc = wk_sim_bind(api->sim, scene, st)))
        wk__api_close_world(api, false, NULL);
    return rc;
}

int wk__api_close_world(wk_api *api, bool commit, wk_status *st)
{
    if (!api->open)
        return WK_OK;
    int rc = commit ? wk_store_commit(api->open, true, st) : WK_OK;
    wk_store_close(api->open, false, false);
    api->open = NULL;
    return rc;
}

/* A new binding of the endpoint's world id, the store having it. */
static int binding_new(wk_api *endpoint, const char *id, wk_api **out, wk_status *st)
{
    wk_api *b = calloc(1, sizeof *b);
    if (!b || pthread_mutex_init(&b->lock, NULL)) {
        free(b);
        return wk_fail(st, WK_NOMEM, "out of memory binding world '%s'", id);
    }
    b->endpoint = endpoint;
    snprintf(b->world_id, sizeof b->world_id, "%s", id);
    b->store = endpoint->store;
    b->levels = endpoint->levels;
    b->physics = endpoint->physics;
    b->roots = endpoint->roots;
    b->checkpoint_s = endpoint->checkpoint_s;
    b->bounds_type = endpoint->bounds_type;
    int rc = wk__api_bind(b, false, st);
    if (rc == WK_NOT_FOUND)
        wk_fail(st, rc, "no world with id '%s' (metadata worldkit-world-id)", id);
    if (rc) {
        pthread_mutex_destroy(&b->lock);
        free(b);
        return rc;
    }
    *out = b;
    return WK_OK;
}

int wk__api_binding(wk_api *endpoint, const char *world_id, wk_api **out, wk_status *st)
{
    *out = endpoint;
    if (!world_id || !world_id[0] || !strcmp(world_id, endpoint->world_id))
        return WK_OK;
    pthread_mutex_lock(&endpoint->bindings_lock);
    int rc = WK_OK;
    wk_api *b = NULL;
    for (size_t i = 0; i < endpoint->binding_count && !b; i++)
        if (!strcmp(endpoint->bindings[i]->world_id, world_id))
            b = endpoint->bindings[i];
    if (!b && WK__GROW(endpoint->bindings, endpoint->binding_cap, endpoint->binding_count + 1))
        rc = wk_fail(st, WK_NOMEM, "out of memory binding world '%s'", world_id);
    if (!b && rc == WK_OK && (rc = binding_new(endpoint, world_id, &b, st)) == WK_OK)
        endpoint->bindings[endpoint->binding_count++] = b;
    pthread_mutex_unlock(&endpoint->bindings_lock);
    if (b)
        *out = b;
    return rc;
}

wk_sim *wk__api_engine_on(wk_api *endpoint, const char *world_id, const wk_scene *scene)
{
    wk_api *b = !strcmp(world_id, endpoint->world_id) ? endpoint : NULL;
    pthread_mutex_lock(&endpoint->bindings_lock);
    for (size_t i = 0; i < endpoint->binding_count && !b; i++)
        if (!strcmp(endpoint->bindings[i]->world_id, world_id))
            b = endpoint->bindings[i];
    pthread_mutex_unlock(&endpoint->bindings_lock);
    /* The scene is open for writing by the caller, so no call of the
     * binding's runs: its simulation, when it is on that scene, stays. */
    wk_sim *sim = b ? b->sim : NULL;
    return sim && wk_sim_scene(sim) == scene && wk_sim_has_physics(sim) ? sim : NULL;
}

void wk__api_free_bindings(wk_api *endpoint)
{
    for (size_t i = 0; i < endpoint->binding_count; i++) {
        wk_sim_free(endpoint->bindings[i]->sim);
        wk_scene_free(endpoint->bindings[i]->initial);
        pthread_mutex_destroy(&endpoint->bindings[i]->lock);
        free(endpoint->bindings[i]);
    }
    free(endpoint->bindings);
}

size_t wk_api_simulations(wk_api *api, wk_api **out, size_t cap)
{
    pthread_mutex_lock(&api->bindings_lock);
    size_t n = 1 + api->binding_count;
    for (size_t i = 0; i < n && i < cap; i++)
        out[i] = i ? api->bindings[i - 1] : api;
    pthread_mutex_unlock(&api->bindings_lock);
    return n;
}
