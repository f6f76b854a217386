/* sim.c — a simulation's lifetime, its systems and its steps; see wk_sim.h
 * for the order of a step. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "sim/sim_internal.h"

/* Whether a level brings the world's child node (so it is not global). */
static bool level_held(uint32_t node, void *ctx)
{
    return wk__levels_hold(ctx, node);
}

/* Adds the world's global top-level entities (all of them without levels). */
static int add_globals(wk_sim *sim, wk_status *st)
{
    return wk_desc_instantiate_children(sim->scene, sim->desc, sim->world, level_held, sim, st);
}

/* Loads the levels performers start in, and closes the step so that what
 * the world starts with is not news to the first step. */
static int settle_start(wk_sim *sim, wk_status *st)
{
    wk__levels_show(sim);
    int rc = wk__levels_update(sim);
    if (rc)
        return wk_fail(st, rc, "loading the first levels: %s", wk_ecm_errmsg(wk_scene_ecm(sim->scene)));
    return wk_ecm_end_step(wk_scene_ecm(sim->scene));
}

/* settle_start for a world a restorer put back as it began: the levels
 * load in one scene batch, so that a load that fails is undone whole and
 * leaves the world exactly as it began (the next step loads them: a failed
 * check makes it compare every level). The step ends once the batch is
 * closed. */
static int settle_restored(wk_sim *sim, wk_status *st)
{
    wk_ecm *ecm = wk_scene_ecm(sim->scene);
    int rc = wk_scene_batch_begin(sim->scene, st);
    if (rc)
        return rc;
    if ((rc = wk__levels_update(sim))) {
        wk_fail(st, rc, "reset: the world is as it began, but its levels did not load (they load at the next step): %s",
                wk_ecm_errmsg(ecm));
        wk_scene_batch_rollback(sim->scene);
        /* The levels as the entities back say; no more memory than they
         * held before. */
        (void)wk__levels_reread(sim);
        return rc;
    }
    rc = wk_scene_batch_commit(sim->scene);
    if (rc == WK_OK)
        rc = wk_ecm_end_step(ecm);
    return rc ? wk_fail(st, rc, "reset: %s", wk_ecm_errmsg(ecm)) : WK_OK;
}

/* The step size and real-time factor: the world entity's settings, else
 * the description's. */
static void read_settings(wk_sim *sim)
{
    const wk_world_settings *w =
        wk_ecm_get(wk_scene_ecm(sim->scene), sim->world, wk_scene_types_of(sim->scene)->world_settings);
    const wk_node *file = wk_desc_node(sim->desc, 0);
    sim->dt = w ? w->step_size : file->settings.max_step_size;
    sim->rtf = w ? w->real_time_factor : file->settings.real_time_factor;
}

/* Builds the world of the description in the simulation's empty scene. */
static int build(wk_sim *sim, wk_status *st)
{
    int rc = wk_desc_instantiate_world(sim->scene, sim->desc, &sim->world, st);
    if (rc == WK_OK)
        read_settings(sim);
    if (rc == WK_OK)
        rc = add_globals(sim, st);
    return rc ? rc : settle_start(sim, st);
}

int wk_sim_new(wk_world_desc *desc, const wk_sim_desc *opts, wk_sim **out, wk_status *st)
{
    *out = NULL;
    wk_sim *sim = calloc(1, sizeof *sim);
    if (!sim) {
        wk_desc_free(desc);
        return wk_fail(st, WK_NOMEM, "out of memory creating a simulation");
    }
    sim->desc = desc;
    sim->levels_on = opts && opts->levels;
    sim->naive_levels = opts && opts->naive_levels;
    sim->restore = opts ? opts->restore : NULL;
    sim->restore_ctx = opts ? opts->restore_ctx : NULL;
    sim->max_physics_links = opts && opts->max_physics_links ? opts->max_physics_links : WK_MAX_PHYSICS_LINKS;
    sim->owns_scene = !(opts && opts->scene);
    sim->scene = sim->owns_scene ? wk_scene_new() : opts->scene;
    int rc = sim->scene ? WK_OK : wk_fail(st, WK_NOMEM, "out of memory creating a simulation");
    if (rc == WK_OK)
        rc = wk__levels_init(sim, st);
    /* A scene given with an object world in it holds the world already. */
    bool filled = !sim->owns_scene && wk_scene_root(sim->scene);
    if (rc == WK_OK)
        rc = filled ? wk_sim_bind(sim, sim->scene, st) : wk__motion_bind(sim, st);
    if (rc == WK_OK && !filled)
        rc = build(sim, st);
    wk_physics_engine engine = opts ? opts->physics : WK_PHYSICS_NONE;
    if (rc == WK_OK && engine == WK_PHYSICS_AUTO)
        engine = wk__physics_moves(sim->scene, sim->world) ? WK_PHYSICS_MUJOCO : WK_PHYSICS_NONE;
    if (rc == WK_OK && engine == WK_PHYSICS_MUJOCO && !(sim->physics = wk__physics_new()))
        rc = wk_fail(st, WK_NOMEM, "out of memory creating a simulation");
    if (rc) {
        wk_sim_free(sim);
        return rc;
    }
    *out = sim;
    return WK_OK;
}

int wk_sim_bind(wk_sim *sim, wk_scene *scene, wk_status *st)
{
    if (sim->owns_scene && scene != sim->scene)
        return wk_fail(st, WK_INVALID, "the simulation runs on a scene of its own");
    wk_entity world = wk_scene_root(scene);
    if (!world)
        return wk_fail(st, WK_INVALID, "the scene is not an object world: it has no root to run on");
    sim->scene = scene;
    sim->world = world;
    read_settings(sim);
    int rc = wk__motion_bind(sim, st);
    if (rc == WK_OK && (rc = wk__levels_reread(sim)))
        wk_fail(st, rc, "out of memory reading the world's performers");
    return rc;
}

void wk_sim_free(wk_sim *sim)
{
    if (!sim)
        return;
    wk__levels_free(sim);
    wk__physics_free(sim->physics);
    wk__mesh_boxes_free(&sim->mesh_boxes);
    for (int p = 0; p < WK_PHASE_COUNT; p++)
        free(sim->systems[p]);
    if (sim->owns_scene)
        wk_scene_free(sim->scene);
    wk_desc_free(sim->desc);
    free(sim);
}

wk_scene *wk_sim_scene(wk_sim *sim)
{
    return sim->scene;
}

wk_entity wk_sim_world(const wk_sim *sim)
{
    return sim->world;
}

wk_type wk_sim_velocity_type(const wk_sim *sim)
{
    return sim->velocity;
}

wk_type wk_sim_acceleration_type(const wk_sim *sim)
{
    return sim->acceleration;
}

int wk_sim_add_system(wk_sim *sim, wk_phase phase, wk_system_fn fn, void *ctx)
{
    if ((unsigned)phase >= WK_PHASE_COUNT || !fn)
        return WK_INVALID;
    wk__system *grown = realloc(sim->systems[phase], (sim->system_count[phase] + 1) * sizeof *grown);
    if (!grown)
        return WK_NOMEM;
    sim->systems[phase] = grown;
    grown[sim->system_count[phase]++] = (wk__system){fn, ctx};
    return WK_OK;
}

static void run_phase(wk_sim *sim, wk_phase phase, const wk_step_info *info)
{
    for (size_t i = 0; i < sim->system_count[phase]; i++)
        sim->systems[phase][i].fn(sim, info, sim->systems[phase][i].ctx);
}

int wk_sim_step(wk_sim *sim, uint64_t n)
{
    for (uint64_t k = 0; k < n; k++) {
        sim->iterations++;
        /* Time as a product, not a running sum, so that it does not drift. */
        sim->time = (double)sim->iterations * sim->dt;
        wk_step_info info = {sim->iterations, sim->time, sim->dt};
        int rc = wk__levels_update(sim);
        if (rc)
            return rc;
        run_phase(sim, WK_PRE_UPDATE, &info);
        sim->physics_status.message[0] = '\0';
        if (!sim->physics)
            wk__motion_update(sim, sim->dt);
        else if ((rc = wk__physics_step(sim->physics, sim, sim->dt, &sim->physics_status))) {
            /* The engine took no step: nor does the clock. */
            sim->time = (double)--sim->iterations * sim->dt;
            return rc;
        }
        run_phase(sim, WK_UPDATE, &info);
        run_phase(sim, WK_POST_UPDATE, &info);
        if ((rc = wk_ecm_end_step(wk_scene_ecm(sim->scene))))
            return rc;
    }
    return WK_OK;
}

int wk_sim_run(wk_sim *sim, uint64_t n, double rtf)
{
    double start = wk__monotonic_s(), sim_start = sim->time;
    for (uint64_t k = 0; k < n; k++) {
        int rc = wk_sim_step(sim, 1);
        if (rc)
            return rc;
        /* Ahead of the clock: wait until wall time catches up, at most a
         * second at a time, so that a wait of any length fits a timespec. */
        double ahead;
        while (rtf > 0 && (ahead = (sim->time - sim_start) / rtf - (wk__monotonic_s() - start)) > 0)
            nanosleep(&(struct timespec){.tv_sec = ahead >= 1, .tv_nsec = ahead >= 1 ? 0 : (long)(ahead * 1e9)}, NULL);
    }
    return WK_OK;
}

bool wk_sim_has_physics(const wk_sim *sim)
{
    return sim->physics != NULL;
}

const char *wk_sim_error(const wk_sim *sim)
{
    return sim->physics_status.message;
}

double wk_sim_default_rtf(const wk_sim *sim)
{
    return sim->rtf;
}

uint64_t wk_sim_iterations(const wk_sim *sim)
{
    return sim->iterations;
}

double wk_sim_time(const wk_sim *sim)
{
    return sim->time;
}

double wk_sim_dt(const wk_sim *sim)
{
    return sim->dt;
}

wk_sim_state wk_sim_state_of(const wk_sim *sim)
{
    return sim->state;
}

/* Removes the world's top-level entities (all, or all but spawned ones). */
static int remove_top_level(wk_sim *sim, bool spawned, wk_status *st)
{
    wk_ecm *ecm = wk_scene_ecm(sim->scene);
    wk_type tag = wk_scene_types_of(sim->scene)->spawned;
    wk_entity_list children = {0};
    int rc = wk_ecm_children(ecm, sim->world, &children);
    for (size_t i = 0; rc == WK_OK && i < children.count; i++)
        if (wk_ecm_has(ecm, children.items[i], tag) == spawned)
            rc = wk_ecm_destroy(ecm, children.items[i], true);
    wk_entity_list_free(&children);
    return rc ? wk_fail(st, rc, "reset: %s", wk_ecm_errmsg(ecm)) : WK_OK;
}

/* Puts spawned entities back as they were spawned: poses, and no velocity
 * or acceleration. */
static int restore_spawned(wk_sim *sim, wk_status *st)
{
    wk_ecm *ecm = wk_scene_ecm(sim->scene);
    const wk_scene_types *t = wk_scene_types_of(sim->scene);
    wk_entity_list children = {0}, all = {0};
    int rc = wk_ecm_children(ecm, sim->world, &children);
    for (size_t i = 0; rc == WK_OK && i < children.count; i++)
        if (wk_ecm_has(ecm, children.items[i], t->spawned))
            rc = wk_ecm_descendants(ecm, children.items[i], &all);
    for (size_t i = 0; rc == WK_OK && i < all.count; i++) {
        wk_entity e = all.items[i];
        const wk_pose *spawned = wk_ecm_get(ecm, e, t->spawn_pose);
        wk_pose pose = spawned ? *spawned : wk_pose_identity();
        if ((spawned && wk_ecm_set(ecm, e, t->parent_pose, &pose) < 0) ||
            wk_ecm_remove(ecm, e, sim->velocity) < 0 || wk_ecm_remove(ecm, e, sim->acceleration) < 0)
            rc = WK_NOMEM;
    }
    wk_entity_list_free(&children);
    wk_entity_list_free(&all);
    return rc ? wk_fail(st, rc, "reset of spawned entities: %s", wk_ecm_errmsg(ecm)) : WK_OK;
}

/* Resets what scope names in the scene itself (spawned entities removed,
 * the file's rebuilt from the description), in one scene batch: a reset
 * that fails halfway leaves the world, and the levels it has loaded, as
 * they were. The step ends once the batch is closed: an ECM does not end
 * its step inside one. */
static int reset_in_place(wk_sim *sim, unsigned scope, wk_status *st)
{
    int rc = wk_scene_batch_begin(sim->scene, st);
    if (rc)
        return rc;
    if (scope & WK_RESET_SPAWNED)
        rc = remove_top_level(sim, true, st);
    if (rc == WK_OK && (scope & WK_RESET_STATE)) {
        rc = remove_top_level(sim, false, st);
        if (rc == WK_OK) {
            wk__levels_forget(sim);
            rc = add_globals(sim, st);
        }
        if (rc == WK_OK && !(scope & WK_RESET_SPAWNED))
            rc = restore_spawned(sim, st);
        if (rc == WK_OK && (rc = wk__levels_update(sim)))
            wk_fail(st, rc, "reset: loading the first levels: %s", wk_ecm_errmsg(wk_scene_ecm(sim->scene)));
    }
    if (rc) {
        wk_scene_batch_rollback(sim->scene);
        /* The levels as the entities that are back say; this needs no more
         * memory than the levels held before the reset. */
        (void)wk__levels_reread(sim);
        return rc;
    }
    rc = wk_scene_batch_commit(sim->scene);
    if (rc == WK_OK && (scope & WK_RESET_STATE))
        rc = wk_ecm_end_step(wk_scene_ecm(sim->scene));
    return rc ? wk_fail(st, rc, "reset: %s", wk_ecm_errmsg(wk_scene_ecm(sim->scene))) : WK_OK;
}

int wk_sim_reset(wk_sim *sim, unsigned scope, wk_status *st)
{
    if (scope & ~(unsigned)WK_RESET_ALL)
        return wk_fail(st, WK_INVALID, "reset scope %u is not a combination of TIME, STATE and SPAWNED", scope);
    int rc = WK_OK;
    bool whole = (scope & WK_RESET_STATE) && (scope & WK_RESET_SPAWNED);
    if (whole && sim->restore) {
        /* The world as it began, ids and all: the restorer puts a copy of
         * it in place of the world in one step and binds the simulation to
         * it. */
        rc = sim->restore(sim, sim->restore_ctx, st);
        if (rc == WK_OK)
            rc = settle_restored(sim, st);
        scope &= ~(unsigned)(WK_RESET_STATE | WK_RESET_SPAWNED);
    }
    if (rc == WK_OK && (scope & (WK_RESET_STATE | WK_RESET_SPAWNED)))
        rc = reset_in_place(sim, scope, st);
    if (rc == WK_OK && (scope & WK_RESET_TIME))
        sim->iterations = 0, sim->time = 0;
    return rc;
}

int wk_sim_set_state(wk_sim *sim, wk_sim_state target, wk_status *st)
{
    if (target == sim->state)
        return wk_fail(st, WK_EXISTS, "the simulation is %s already",
                       target == WK_SIM_STOPPED   ? "stopped"
                       : target == WK_SIM_PLAYING ? "playing"
                       : target == WK_SIM_PAUSED  ? "paused"
                                                  : "in that state");
    if (sim->state == WK_SIM_QUITTING || target > WK_SIM_QUITTING)
        return wk_fail(st, WK_INVALID, "the simulation cannot go from state %d to state %d", (int)sim->state,
                       (int)target);
    if (target == WK_SIM_STOPPED) {
        int rc = wk_sim_reset(sim, WK_RESET_ALL, st);
        if (rc)
            return rc;
    }
    sim->state = target;
    return WK_OK;
}

void wk_sim_on_level_event(wk_sim *sim, wk_level_event_fn fn, void *ctx)
{
    sim->on_level = fn;
    sim->on_level_ctx = ctx;
}
