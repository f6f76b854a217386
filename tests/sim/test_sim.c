/* test_sim.c — the loop: phases in order, the end of step after post-update,
 * time from the world's step size, and kinematic motion in the parent's and
 * the body's frame. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/start.h"
#include "wk_test.h"

#define BOX_WORLD                                                                                              \
    "<sdf version='1.9'><world name='w'><physics name='p' type='ode'><max_step_size>0.01</max_step_size>"      \
    "</physics><model name='box'><pose>1 0 0 0 0 0</pose><link name='l'/></model></world></sdf>"

typedef struct trace {
    char text[128];
    wk_entity made; /* created in pre-update, checked after */
    bool new_in_update, removed_seen_in_post;
} trace;

static void note(trace *t, const char *what)
{
    size_t n = strlen(t->text);
    snprintf(t->text + n, sizeof t->text - n, "%s", what);
}

static void pre(wk_sim *sim, const wk_step_info *info, void *ctx)
{
    trace *t = ctx;
    note(t, info->iteration == 1 ? "P" : "p");
    if (info->iteration == 1)
        t->made = wk_ecm_create(wk_scene_ecm(wk_sim_scene(sim)));
    if (info->iteration == 2)
        wk_ecm_request_remove(wk_scene_ecm(wk_sim_scene(sim)), t->made, true);
}

static void update(wk_sim *sim, const wk_step_info *info, void *ctx)
{
    trace *t = ctx;
    note(t, "u");
    if (info->iteration == 1)
        t->new_in_update = wk_ecm_is_new(wk_scene_ecm(wk_sim_scene(sim)), t->made);
}

static void post(wk_sim *sim, const wk_step_info *info, void *ctx)
{
    trace *t = ctx;
    note(t, "o");
    if (info->iteration == 2)
        t->removed_seen_in_post = wk_ecm_is_marked_for_removal(wk_scene_ecm(wk_sim_scene(sim)), t->made);
}

static void phases_and_end_of_step(void)
{
    wk_sim *sim = start_string(BOX_WORLD);
    REQUIRE(sim);
    trace t = {0};
    /* Registered out of order: phases still run pre, update, post. */
    CHECK_INT(wk_sim_add_system(sim, WK_POST_UPDATE, post, &t), ==, WK_OK);
    CHECK_INT(wk_sim_add_system(sim, WK_UPDATE, update, &t), ==, WK_OK);
    CHECK_INT(wk_sim_add_system(sim, WK_PRE_UPDATE, pre, &t), ==, WK_OK);
    CHECK_INT(wk_sim_add_system(sim, WK_PHASE_COUNT, pre, &t), ==, WK_INVALID);
    CHECK_INT(wk_sim_step(sim, 3), ==, WK_OK);
    CHECK_STR(t.text, "Puopuopuo");
    CHECK(t.new_in_update);
    CHECK(t.removed_seen_in_post);
    CHECK(!wk_ecm_exists(wk_scene_ecm(wk_sim_scene(sim)), t.made)); /* gone at the end of step 2 */
    CHECK(!wk_ecm_has_new_entities(wk_scene_ecm(wk_sim_scene(sim))));
    CHECK_INT(wk_sim_iterations(sim), ==, 3);
    CHECK_NEAR(wk_sim_dt(sim), 0.01, 0);
    CHECK_NEAR(wk_sim_time(sim), 0.03, 1e-15);
    wk_sim_free(sim);
}

static wk_pose pose_of(wk_sim *sim, const char *name)
{
    wk_scene *s = wk_sim_scene(sim);
    return wk_scene_world_pose(s, wk_scene_child(s, wk_sim_world(sim), name));
}

static void motion(void)
{
    wk_sim *sim = start_string(BOX_WORLD);
    REQUIRE(sim);
    wk_scene *s = wk_sim_scene(sim);
    wk_entity box = wk_scene_child(s, wk_sim_world(sim), "box");
    REQUIRE(box);
    /* Parent frame: 0.5 m/s along y and a quarter turn a second about z. */
    wk_velocity v = {.linear = {0, 0.5, 0}, .angular = {0, 0, acos(-1.0) / 2}};
    REQUIRE_INT(wk_ecm_set(wk_scene_ecm(s), box, wk_sim_velocity_type(sim), &v), ==, 1);
    wk_sim_step(sim, 100); /* 1 s */
    wk_pose p = pose_of(sim, "box");
    CHECK_NEAR(p.p.x, 1, 1e-12);
    CHECK_NEAR(p.p.y, 0.5, 1e-12);
    CHECK_NEAR(wk_quat_to_rpy(p.q).z, acos(-1.0) / 2, 1e-12);
    CHECK_INT(wk_ecm_changed(wk_scene_ecm(s), box, wk_scene_types_of(s)->parent_pose), ==, WK_NO_CHANGE);
    /* Body frame: moving "forward" (x) now goes along the world's y. */
    v = (wk_velocity){.linear = {1, 0, 0}, .body_frame = true};
    wk_ecm_set(wk_scene_ecm(s), box, wk_sim_velocity_type(sim), &v);
    wk_sim_step(sim, 100);
    p = pose_of(sim, "box");
    CHECK_NEAR(p.p.x, 1, 1e-9);
    CHECK_NEAR(p.p.y, 1.5, 1e-9);
    /* The link moves with its model. */
    wk_pose link = wk_scene_world_pose(s, wk_scene_child(s, box, "l"));
    CHECK_NEAR(link.p.y, 1.5, 1e-9);
    wk_sim_free(sim);
}

static void step_size_defaults(void)
{
    wk_sim *sim = start_string("<sdf version='1.9'><world name='w'/></sdf>");
    REQUIRE(sim);
    CHECK_NEAR(wk_sim_dt(sim), 0.001, 0);
    wk_sim_step(sim, 1000);
    CHECK_NEAR(wk_sim_time(sim), 1, 1e-12);
    wk_sim_free(sim);
}

static const wk_test_case cases[] = {
    {"phases_and_end_of_step", phases_and_end_of_step},
    {"motion", motion},
    {"step_size_defaults", step_size_defaults},
};
WK_TEST_MAIN(cases)
