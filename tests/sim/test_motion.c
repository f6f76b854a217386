/* test_motion.c — accelerations in the motion system, and motion across
 * frames: a turning model carries its links round, composing and relating
 * motions are inverses, and setting a world motion writes the components
 * that give it back. */
#include <math.h>

#include "math/math_check.h"
#include "sim/start.h"
#include "wk_test.h"

/* A car at x = 1 whose body link sits 2 m to its left; 10 ms steps. */
#define CAR_WORLD                                                                                             \
    "<sdf version='1.9'><world name='w'><physics name='p' type='ode'><max_step_size>0.01</max_step_size>"     \
    "</physics><model name='car'><pose>1 0 0 0 0 0</pose><link name='body'><pose>0 2 0 0 0 0</pose></link>" \
    "</model></world></sdf>"

static wk_entity car_of(wk_sim *sim)
{
    return wk_scene_child(wk_sim_scene(sim), wk_sim_world(sim), "car");
}

static wk_entity body_of(wk_sim *sim)
{
    return wk_scene_child(wk_sim_scene(sim), car_of(sim), "body");
}

static void constant_acceleration(void)
{
    wk_sim *sim = start_string(CAR_WORLD);
    REQUIRE(sim);
    wk_ecm *ecm = wk_scene_ecm(wk_sim_scene(sim));
    wk_entity car = car_of(sim);
    wk_ecm_set(ecm, car, wk_sim_velocity_type(sim), &(wk_velocity){0});
    wk_ecm_set(ecm, car, wk_sim_acceleration_type(sim), &(wk_acceleration){{1, 0, 0}, {0, 0, 0.2}});
    wk_sim_step(sim, 100); /* 1 s */
    /* x = a t^2 / 2 and yaw = alpha t^2 / 2, exactly, whatever the step. */
    wk_pose p = wk_scene_world_pose(wk_sim_scene(sim), car);
    CHECK_NEAR(p.p.x, 1.5, 1e-12);
    CHECK_NEAR(p.p.y, 0, 1e-12);
    CHECK_NEAR(wk_quat_to_rpy(p.q).z, 0.1, 1e-12);
    const wk_velocity *v = wk_ecm_get(ecm, car, wk_sim_velocity_type(sim));
    REQUIRE(v);
    CHECK_NEAR(v->linear.x, 1, 1e-12);
    CHECK_NEAR(v->angular.z, 0.2, 1e-12);
    /* Without a Velocity an Acceleration moves nothing. */
    wk_entity body = body_of(sim);
    wk_ecm_set(ecm, body, wk_sim_acceleration_type(sim), &(wk_acceleration){{1, 0, 0}, {0, 0, 0}});
    wk_pose before = *(const wk_pose *)wk_ecm_get(ecm, body, wk_scene_types_of(wk_sim_scene(sim))->parent_pose);
    wk_sim_step(sim, 10);
    const wk_pose *after = wk_ecm_get(ecm, body, wk_scene_types_of(wk_sim_scene(sim))->parent_pose);
    CHECK_NEAR(after->p.x, before.p.x, 0);
    CHECK(!wk_ecm_has(ecm, body, wk_sim_velocity_type(sim)));
    wk_sim_free(sim);
}

static void turning_model_carries_its_link(void)
{
    wk_sim *sim = start_string(CAR_WORLD);
    REQUIRE(sim);
    wk_ecm *ecm = wk_scene_ecm(wk_sim_scene(sim));
    wk_ecm_set(ecm, car_of(sim), wk_sim_velocity_type(sim), &(wk_velocity){.angular = {0, 0, 1}});
    /* 2 m from the axis at 1 rad/s: 2 m/s sideways, 2 m/s^2 inwards. */
    wk_motion m = wk_sim_motion(sim, body_of(sim));
    CHECK_VEC3_NEAR(m.pose.p, ((wk_vec3){1, 2, 0}), 1e-15);
    CHECK_VEC3_NEAR(m.linear, ((wk_vec3){-2, 0, 0}), 1e-15);
    CHECK_VEC3_NEAR(m.angular, ((wk_vec3){0, 0, 1}), 1e-15);
    CHECK_VEC3_NEAR(m.linear_acc, ((wk_vec3){0, -2, 0}), 1e-15);
    /* 1.57 rad later the link has gone round with the car. */
    wk_sim_step(sim, 157);
    m = wk_sim_motion(sim, body_of(sim));
    CHECK_VEC3_NEAR(m.pose.p, ((wk_vec3){1 - 2 * sin(1.57), 2 * cos(1.57), 0}), 1e-12);
    CHECK_VEC3_NEAR(m.linear, ((wk_vec3){-2 * cos(1.57), -2 * sin(1.57), 0}), 1e-12);
    CHECK(wk_sim_motion(sim, wk_sim_world(sim)).pose.q.w == 1);
    wk_sim_free(sim);
}

static void compose_and_relative_are_inverses(void)
{
    wk_motion frame = {{{1, -2, 0.5}, {0, 0, 0, 0}}, {0.3, 0.1, -0.2}, {0.5, -1, 2}, {1, 2, 3}, {-0.4, 0.2, 0.9}};
    REQUIRE(wk_quat_normalize((wk_quat){0.9, 0.1, -0.3, 0.2}, &frame.pose.q) == WK_OK);
    wk_motion rel = {{{0.2, 0.7, -1}, {1, 0, 0, 0}}, {1, 0, -1}, {0.1, 0.2, 0.3}, {-2, 1, 0.5}, {0.3, -0.3, 1}};
    REQUIRE(wk_quat_normalize((wk_quat){0.2, 0.5, 0.1, -0.8}, &rel.pose.q) == WK_OK);
    wk_motion composed = wk_motion_compose(&frame, &rel);
    wk_motion back = wk_motion_relative(&frame, &composed);
    CHECK_VEC3_NEAR(back.pose.p, rel.pose.p, 1e-12);
    CHECK(wk_quat_near(back.pose.q, rel.pose.q, 1e-12));
    CHECK_VEC3_NEAR(back.linear, rel.linear, 1e-12);
    CHECK_VEC3_NEAR(back.angular, rel.angular, 1e-12);
    CHECK_VEC3_NEAR(back.linear_acc, rel.linear_acc, 1e-12);
    CHECK_VEC3_NEAR(back.angular_acc, rel.angular_acc, 1e-12);
}

static void set_motion_writes_components(void)
{
    wk_sim *sim = start_string(CAR_WORLD);
    REQUIRE(sim);
    wk_ecm *ecm = wk_scene_ecm(wk_sim_scene(sim));
    wk_entity body = body_of(sim);
    wk_ecm_set(ecm, car_of(sim), wk_sim_velocity_type(sim), &(wk_velocity){.angular = {0, 0, 1}});
    /* The link at rest in the world although its car turns. */
    wk_motion want = wk_sim_motion(sim, body);
    want.linear = want.angular = want.linear_acc = want.angular_acc = (wk_vec3){0, 0, 0};
    REQUIRE_INT(wk_sim_set_motion(sim, body, &want, WK_MOTION_TWIST | WK_MOTION_ACCELERATION), ==, WK_OK);
    wk_motion got = wk_sim_motion(sim, body);
    CHECK_VEC3_NEAR(got.linear, want.linear, 1e-12);
    CHECK_VEC3_NEAR(got.angular, want.angular, 1e-12);
    CHECK_VEC3_NEAR(got.linear_acc, want.linear_acc, 1e-12);
    CHECK(wk_ecm_has(ecm, body, wk_sim_velocity_type(sim)));
    /* With the car still, the same request removes both components. */
    wk_ecm_remove(ecm, car_of(sim), wk_sim_velocity_type(sim));
    REQUIRE_INT(wk_sim_set_motion(sim, body, &want, WK_MOTION_TWIST | WK_MOTION_ACCELERATION), ==, WK_OK);
    CHECK(!wk_ecm_has(ecm, body, wk_sim_velocity_type(sim)));
    CHECK(!wk_ecm_has(ecm, body, wk_sim_acceleration_type(sim)));
    /* An acceleration alone brings a zero Velocity with it. */
    want.linear_acc = (wk_vec3){0, 0, -9.81};
    REQUIRE_INT(wk_sim_set_motion(sim, body, &want, WK_MOTION_ACCELERATION), ==, WK_OK);
    const wk_velocity *v = wk_ecm_get(ecm, body, wk_sim_velocity_type(sim));
    CHECK(v && v->linear.z == 0);
    CHECK_INT(wk_sim_set_motion(sim, wk_sim_world(sim), &want, WK_MOTION_POSE), ==, WK_NOT_FOUND);
    wk_sim_free(sim);
}

static void body_frame_acceleration(void)
{
    wk_sim *sim = start_string(CAR_WORLD);
    REQUIRE(sim);
    wk_ecm *ecm = wk_scene_ecm(wk_sim_scene(sim));
    wk_entity car = car_of(sim);
    wk_ecm_set(ecm, car, wk_sim_velocity_type(sim), &(wk_velocity){{1, 0, 0}, {0, 0, 1}, true});
    wk_ecm_set(ecm, car, wk_sim_acceleration_type(sim), &(wk_acceleration){{0.5, 0, 0}, {0, 0, 0}});
    /* The reported acceleration is the velocity's rate of change: turning
     * a body-frame velocity adds w x v to it. */
    wk_motion m0 = wk_sim_motion(sim, car);
    CHECK_VEC3_NEAR(m0.linear_acc, ((wk_vec3){0.5, 1, 0}), 1e-15);
    wk_sim_step(sim, 1);
    wk_motion m1 = wk_sim_motion(sim, car);
    CHECK_VEC3_NEAR(wk_vec3_scale(wk_vec3_sub(m1.linear, m0.linear), 100), m0.linear_acc, 0.02);
    /* Setting only the acceleration keeps the body-frame Velocity and writes
     * the Acceleration in its frame. */
    m1.linear_acc = (wk_vec3){0, 0, 0};
    REQUIRE_INT(wk_sim_set_motion(sim, car, &m1, WK_MOTION_ACCELERATION), ==, WK_OK);
    CHECK(((const wk_velocity *)wk_ecm_get(ecm, car, wk_sim_velocity_type(sim)))->body_frame);
    CHECK_VEC3_NEAR(wk_sim_motion(sim, car).linear_acc, m1.linear_acc, 1e-12);
    wk_sim_free(sim);
}

/* A finite velocity that would carry the pose past WK_POSE_TRANSLATION_MAX
 * stops it there, in the parent's frame and the body's, so that the world
 * poses stay finite; the velocity stays as set. */
static void huge_velocity_stops_at_the_limit(void)
{
    wk_sim *sim = start_string(CAR_WORLD);
    REQUIRE(sim);
    wk_ecm *ecm = wk_scene_ecm(wk_sim_scene(sim));
    wk_entity car = car_of(sim), body = body_of(sim);
    wk_ecm_set(ecm, car, wk_sim_velocity_type(sim), &(wk_velocity){.linear = {1.7e308, -1.7e308, 1e14}});
    wk_ecm_set(ecm, body, wk_sim_velocity_type(sim),
               &(wk_velocity){.linear = {-1.7e308, 1.7e308, 0}, .angular = {0, 0, 1}, .body_frame = true});
    wk_ecm_set(ecm, body, wk_sim_acceleration_type(sim), &(wk_acceleration){{1e300, 0, 0}, {0, 0, 0}});
    wk_sim_step(sim, 3);
    wk_pose car_pose = wk_scene_world_pose(wk_sim_scene(sim), car);
    CHECK_VEC3_NEAR(car_pose.p, ((wk_vec3){1e12, -1e12, 1e12}), 0.0);
    const wk_pose *rel = wk_ecm_get(ecm, body, wk_scene_types_of(wk_sim_scene(sim))->parent_pose);
    REQUIRE(rel);
    CHECK(wk_pose_is_valid(*rel));
    CHECK(wk_vec3_is_finite(wk_scene_transform(wk_sim_scene(sim), body, car).p));
    CHECK(wk_vec3_is_finite(wk_scene_world_pose(wk_sim_scene(sim), body).p));
    const wk_velocity *v = wk_ecm_get(ecm, car, wk_sim_velocity_type(sim));
    REQUIRE(v);
    CHECK_NEAR(v->linear.x, 1.7e308, 0.0);
    wk_sim_free(sim);
}

static const wk_test_case cases[] = {
    {"constant_acceleration", constant_acceleration},
    {"turning_model_carries_its_link", turning_model_carries_its_link},
    {"compose_and_relative_are_inverses", compose_and_relative_are_inverses},
    {"set_motion_writes_components", set_motion_writes_components},
    {"body_frame_acceleration", body_frame_acceleration},
    {"huge_velocity_stops_at_the_limit", huge_velocity_stops_at_the_limit},
};
WK_TEST_MAIN(cases)
