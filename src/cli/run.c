/* run.c — `worldkit run WORLD [--levels] [--steps N] [--rtf X]
 * [--velocity NAME vx vy vz] [--performer NAME]`: runs the simulation loop
 * and prints, one line each as they happen, levels loading and unloading and
 * top-level entities added and removed, then a summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "worldkit/wk_sim.h"

#define USAGE                                                                                        \
    "run WORLD [--levels] [--steps N] [--rtf X] [--physics mujoco|none] [--velocity NAME vx vy vz]\n" \
    "           [--performer NAME]\n"                                                               \
    "       (stops after N steps: 1,000 unless --steps says; physics: mujoco for a world with\n"      \
    "       dynamic links unless --physics says)"
#define MAX_ITEMS 16

typedef struct velocity_arg {
    const char *name;
    wk_vec3 linear;
} velocity_arg;

typedef struct run_args {
    const char *world;
    bool levels;
    unsigned long long steps;
    double rtf; /* negative: the world's */
    wk_physics_engine physics;
    velocity_arg velocities[MAX_ITEMS];
    int velocity_count;
    const char *performers[MAX_ITEMS];
    int performer_count;
} run_args;

/* Reads the vector --velocity gives NAME; false when a part is no finite number. */
static bool vector(char **parts, wk_vec3 *v)
{
    return wk_cli_finite(parts[0], &v->x) && wk_cli_finite(parts[1], &v->y) && wk_cli_finite(parts[2], &v->z);
}

/* How many arguments follow option o. */
static int values_after(const char *o)
{
    if (!strcmp(o, "--velocity"))
        return 4;
    return !strcmp(o, "--steps") || !strcmp(o, "--rtf") || !strcmp(o, "--performer") || !strcmp(o, "--physics");
}

/* 0 when parsed, else 2 with the mistake printed. */
static int parse(int argc, char **argv, run_args *a)
{
    *a = (run_args){.steps = 1000, .rtf = -1, .physics = WK_PHYSICS_AUTO};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        int values = values_after(o);
        if (i + values >= argc)
            return wk_cli_usage_error(USAGE, "%s needs %s", o, values == 4 ? "NAME vx vy vz" : "a value");
        if (!strcmp(o, "--levels")) {
            a->levels = true;
        } else if (!strcmp(o, "--steps")) {
            if (!wk_cli_count(argv[++i], &a->steps))
                return wk_cli_usage_error(USAGE, "--steps takes a count, not '%s'", argv[i]);
        } else if (!strcmp(o, "--physics")) {
            if (!wk_cli_physics(argv[++i], &a->physics))
                return wk_cli_usage_error(USAGE, "--physics takes " WK_CLI_PHYSICS_TEXT ", not '%s'", argv[i]);
        } else if (!strcmp(o, "--rtf")) {
            if (!wk_cli_rtf(argv[++i], &a->rtf))
                return wk_cli_usage_error(USAGE, "--rtf takes " WK_CLI_RTF_TEXT ", not '%s'", argv[i]);
        } else if (!strcmp(o, "--velocity")) {
            if (a->velocity_count == MAX_ITEMS)
                return wk_cli_usage_error(USAGE, "at most %d --velocity options", MAX_ITEMS);
            velocity_arg *v = &a->velocities[a->velocity_count++];
            v->name = argv[i + 1];
            if (!vector(argv + i + 2, &v->linear))
                return wk_cli_usage_error(USAGE, "--velocity %s: vx vy vz must be finite numbers", v->name);
            i += 4;
        } else if (!strcmp(o, "--performer")) {
            if (a->performer_count == MAX_ITEMS)
                return wk_cli_usage_error(USAGE, "at most %d --performer options", MAX_ITEMS);
            a->performers[a->performer_count++] = argv[++i];
        } else if (o[0] != '-' && !a->world) {
            a->world = o;
        } else {
            return wk_cli_usage_error(USAGE, "unexpected argument '%s'", o);
        }
    }
    return a->world && a->world[0] ? 0 : wk_cli_usage_error(USAGE, "no WORLD file to run");
}

static void on_level(wk_sim *sim, const char *level, bool loaded, void *ctx)
{
    (void)ctx;
    printf("t=%.6g %s %s\n", wk_sim_time(sim), loaded ? "load" : "unload", level);
}

/* Post-update: reports top-level entities that arrived or are leaving. */
static void report_entities(wk_sim *sim, const wk_step_info *info, void *ctx)
{
    wk_query *q = ctx;
    wk_ecm *ecm = wk_scene_ecm(wk_sim_scene(sim));
    for (int removed = 0; removed < 2; removed++)
        for (wk_iter it = removed ? wk_query_iter_removed(q) : wk_query_iter_new(q); wk_iter_next(&it);)
            if (wk_ecm_parent(ecm, it.entities[0]) == wk_sim_world(sim))
                printf("t=%.6g %s %s\n", info->sim_time, removed ? "remove" : "add", *(char **)wk_iter_column(&it, 0));
}

/* What the world starts with, as the events that brought it would have
 * printed it: the levels loaded, then the top-level entities. */
static void report_start(wk_sim *sim)
{
    wk_level_info level;
    for (size_t i = 0; wk_sim_level_info(sim, i, &level); i++)
        if (level.loaded)
            printf("t=0 load %s\n", level.name);
    wk_scene *s = wk_sim_scene(sim);
    for (wk_entity e = wk_ecm_first_child(wk_scene_ecm(s), wk_sim_world(sim)); e;
         e = wk_ecm_next_sibling(wk_scene_ecm(s), e))
        if (wk_scene_name(s, e))
            printf("t=0 add %s\n", wk_scene_name(s, e));
}

/* Where the dynamics left each top-level model, and how fast it still goes. */
static void report_rest(wk_sim *sim)
{
    wk_scene *s = wk_sim_scene(sim);
    for (wk_entity e = wk_ecm_first_child(wk_scene_ecm(s), wk_sim_world(sim)); e;
         e = wk_ecm_next_sibling(wk_scene_ecm(s), e)) {
        const uint8_t *kind = wk_ecm_get(wk_scene_ecm(s), e, wk_scene_types_of(s)->kind);
        if (!kind || *kind != WK_NODE_MODEL)
            continue;
        wk_motion m = wk_sim_motion(sim, e);
        printf("t=%.6g %s at %.4f %.4f %.4f, %.4f m/s\n", wk_sim_time(sim), wk_scene_name(s, e), m.pose.p.x, m.pose.p.y,
               m.pose.p.z, wk_vec3_norm(m.linear));
    }
}

static int setup(wk_sim *sim, const run_args *a, wk_query **names)
{
    wk_scene *s = wk_sim_scene(sim);
    for (int i = 0; i < a->velocity_count; i++) {
        wk_entity e = wk_scene_child(s, wk_sim_world(sim), a->velocities[i].name);
        wk_velocity v = {.linear = a->velocities[i].linear};
        wk_status st;
        if (!e) {
            fprintf(stderr, "worldkit: NOT_FOUND: no entity named %s to give a velocity\n", a->velocities[i].name);
            return 1;
        }
        /* Refused as the server's SetEntityState refuses it. */
        if ((wk_vec3_norm(v.linear) != 0 && wk_sim_may_move(sim, e, a->velocities[i].name, &st)) ||
            wk_sim_may_place(sim, e, a->velocities[i].name, &st)) {
            fprintf(stderr, "worldkit: OPERATION_FAILED: %s\n", st.message);
            return 1;
        }
        if (wk_ecm_set(wk_scene_ecm(s), e, wk_sim_velocity_type(sim), &v) < 0) {
            fprintf(stderr, "worldkit: NOMEM: out of memory\n");
            return 1;
        }
    }
    for (int i = 0; i < a->performer_count; i++)
        if (wk_sim_set_performer(sim, a->performers[i]) != 1) {
            fprintf(stderr, "worldkit: NOT_FOUND: %s is no entity, or a performer already\n", a->performers[i]);
            return 1;
        }
    const wk_scene_types *t = wk_scene_types_of(s);
    *names = wk_query_new(wk_scene_ecm(s), &(wk_query_desc){.with = {t->name}});
    if (!*names || wk_sim_add_system(sim, WK_POST_UPDATE, report_entities, *names)) {
        fprintf(stderr, "worldkit: NOMEM: out of memory\n");
        return 1;
    }
    wk_sim_on_level_event(sim, on_level, NULL);
    report_start(sim);
    return 0;
}

int wk_cli_run(int argc, char **argv)
{
    run_args a;
    int mistake = parse(argc, argv, &a);
    if (mistake)
        return mistake;
    wk_world_desc *d = NULL;
    wk_sim *sim = NULL;
    wk_status st = {0};
    if (wk_desc_read(&(wk_read_desc){.uri = a.world}, &d, &st) ||
        wk_sim_new(d, &(wk_sim_desc){.levels = a.levels, .physics = a.physics}, &sim, &st)) {
        fprintf(stderr, "worldkit: %s: %s\n", wk_code_name(st.code), st.message);
        return 1;
    }
    wk_query *names = NULL;
    int rc = setup(sim, &a, &names);
    double rtf = a.rtf >= 0 ? a.rtf : wk_sim_default_rtf(sim);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (rc == 0 && wk_sim_run(sim, a.steps, rtf)) {
        fprintf(stderr, "worldkit: the loop failed: %s\n", wk_ecm_errmsg(wk_scene_ecm(wk_sim_scene(sim))));
        rc = 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (rc == 0 && wk_sim_has_physics(sim))
        report_rest(sim);
    if (rc == 0)
        printf("steps %llu, sim time %.6g s, wall time %.6g s, real-time factor %.3g\n",
               (unsigned long long)wk_sim_iterations(sim), wk_sim_time(sim), wall,
               wall > 0 ? wk_sim_time(sim) / wall : 0.0);
    wk_sim_free(sim);
    return rc;
}
