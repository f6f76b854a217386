/* sim.c — a simulation's lifetime, its systems and its steps; see wk_sim.h
 * for the order of a step. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/sim_internal.h"

static int build_world(wk_sim *sim, wk_status *st)
{
    int rc = wk_desc_instantiate_world(sim->scene, sim->desc, &sim->world, st);
    const wk_node *w = wk_desc_node(sim->desc, 0);
    for (uint32_t c = w->first_child; rc == WK_OK && c != WK_NO_NODE; c = wk_desc_node(sim->desc, c)->next_sibling) {
        if (wk__levels_hold(sim, c))
            continue; /* its levels bring it */
        wk_entity e;
        rc = wk_desc_instantiate(sim->scene, sim->desc, c, sim->world, NULL, NULL, &e, st);
    }
    return rc;
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
    sim->dt = wk_desc_node(desc, 0)->settings.max_step_size;
    sim->scene = wk_scene_new();
    int rc = sim->scene ? WK_OK : wk_fail(st, WK_NOMEM, "out of memory creating a simulation");
    if (rc == WK_OK && wk_ecm_register(wk_scene_ecm(sim->scene),
                                       &(wk_type_desc){.name = "Velocity", .size = sizeof(wk_velocity)}, &sim->velocity))
        rc = wk_fail(st, WK_NOMEM, "%s", wk_ecm_errmsg(wk_scene_ecm(sim->scene)));
    if (rc == WK_OK) {
        const wk_scene_types *t = wk_scene_types_of(sim->scene);
        sim->moving = wk_query_new(wk_scene_ecm(sim->scene), &(wk_query_desc){.with = {t->parent_pose, sim->velocity}});
        if (!sim->moving)
            rc = wk_fail(st, WK_NOMEM, "%s", wk_ecm_errmsg(wk_scene_ecm(sim->scene)));
    }
    if (rc == WK_OK)
        rc = wk__levels_init(sim, st);
    if (rc == WK_OK)
        rc = build_world(sim, st);
    if (rc == WK_OK && (rc = wk__levels_update(sim)) != WK_OK)
        wk_fail(st, rc, "loading the first levels: %s", wk_ecm_errmsg(wk_scene_ecm(sim->scene)));
    /* What the world starts with is not news to the first step. */
    if (rc == WK_OK)
        rc = wk_ecm_end_step(wk_scene_ecm(sim->scene));
    if (rc) {
        wk_sim_free(sim);
        return rc;
    }
    *out = sim;
    return WK_OK;
}

void wk_sim_free(wk_sim *sim)
{
    if (!sim)
        return;
    wk__levels_free(sim);
    for (int p = 0; p < WK_PHASE_COUNT; p++)
        free(sim->systems[p]);
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
        wk__motion_update(sim, sim->dt);
        run_phase(sim, WK_UPDATE, &info);
        run_phase(sim, WK_POST_UPDATE, &info);
        if ((rc = wk_ecm_end_step(wk_scene_ecm(sim->scene))))
            return rc;
    }
    return WK_OK;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int wk_sim_run(wk_sim *sim, uint64_t n, double rtf)
{
    double start = now_s(), sim_start = sim->time;
    for (uint64_t k = 0; k < n; k++) {
        int rc = wk_sim_step(sim, 1);
        if (rc)
            return rc;
        /* Ahead of the clock: wait until wall time catches up. */
        double ahead = rtf > 0 ? (sim->time - sim_start) / rtf - (now_s() - start) : 0;
        if (ahead > 0) {
            struct timespec pause = {(time_t)ahead, (long)((ahead - (double)(time_t)ahead) * 1e9)};
            nanosleep(&pause, NULL);
        }
    }
    return WK_OK;
}

double wk_sim_default_rtf(const wk_sim *sim)
{
    return wk_desc_node(sim->desc, 0)->settings.real_time_factor;
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

void wk_sim_on_level_event(wk_sim *sim, wk_level_event_fn fn, void *ctx)
{
    sim->on_level = fn;
    sim->on_level_ctx = ctx;
}
