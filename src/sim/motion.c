/* motion.c — the kinematic motion system: every entity with a Velocity has
 * its ParentPose moved by it each step, a periodic change of the pose, and
 * an Acceleration beside the Velocity changes the Velocity each step. A
 * physics engine, when one comes, takes this system's place. */
#include <math.h>

#include "sim/sim_internal.h"

int wk__motion_bind(wk_sim *sim, wk_status *st)
{
    wk_ecm *ecm = wk_scene_ecm(sim->scene);
    const wk_scene_types *t = wk_scene_types_of(sim->scene);
    wk_type pose = t->parent_pose;
    sim->velocity = t->velocity;
    sim->acceleration = t->acceleration;
    /* The views of a scene left behind stay with its ECM, which frees them.
     * Two disjoint views, so that each loop walks whole columns and neither
     * looks an Acceleration up per entity. */
    sim->moving = wk_query_new(ecm, &(wk_query_desc){.with = {pose, sim->velocity}, .without = {sim->acceleration}});
    sim->accelerating = wk_query_new(ecm, &(wk_query_desc){.with = {pose, sim->velocity, sim->acceleration}});
    if (!sim->moving || !sim->accelerating)
        return wk_fail(st, WK_NOMEM, "%s", wk_ecm_errmsg(ecm));
    return WK_OK;
}

/* The rotation by angular velocity w over dt. */
static wk_quat turn(wk_vec3 w, double dt)
{
    double angle = wk_vec3_norm(w) * dt;
    wk_quat q;
    if (angle == 0 || wk_quat_from_axis_angle(w, angle, &q))
        return wk_quat_identity();
    return q;
}

/* x kept within WK_POSE_TRANSLATION_MAX, the bound every pose from outside
 * meets, so that no composition of a moved pose overflows; was, when x is
 * NaN (an overflowing step turned by a rotation). */
static double bounded(double x, double was)
{
    return isnan(x) ? was : fmax(-WK_POSE_TRANSLATION_MAX, fmin(WK_POSE_TRANSLATION_MAX, x));
}

/* An entity whose velocity would carry it past the bound stops at the bound
 * in that component (its velocity stays as set): any finite velocity is
 * taken, and the pose stays finite however long it runs. */
static wk_pose integrate(wk_pose p, const wk_velocity *v, double dt)
{
    const wk_vec3 was = p.p;
    wk_vec3 step = wk_vec3_scale(v->linear, dt);
    wk_quat spin = turn(v->angular, dt);
    if (v->body_frame) {
        p.p = wk_vec3_add(p.p, wk_quat_rotate(p.q, step));
        p.q = wk_quat_mul(p.q, spin);
    } else {
        p.p = wk_vec3_add(p.p, step);
        p.q = wk_quat_mul(spin, p.q);
    }
    p.p = (wk_vec3){bounded(p.p.x, was.x), bounded(p.p.y, was.y), bounded(p.p.z, was.z)};
    /* Keep the rotation unit over many steps. */
    wk_quat unit;
    if (wk_quat_normalize(p.q, &unit) == WK_OK)
        p.q = unit;
    return p;
}

/* Moves the pose with the velocity it has halfway through the step, then
 * updates the velocity: for a constant linear acceleration that is exact
 * (x = v t + a t^2 / 2), whatever the step size. */
static wk_pose accelerate(wk_pose p, wk_velocity *v, const wk_acceleration *a, double dt)
{
    wk_velocity mid = *v;
    mid.linear = wk_vec3_add(v->linear, wk_vec3_scale(a->linear, dt / 2));
    mid.angular = wk_vec3_add(v->angular, wk_vec3_scale(a->angular, dt / 2));
    v->linear = wk_vec3_add(v->linear, wk_vec3_scale(a->linear, dt));
    v->angular = wk_vec3_add(v->angular, wk_vec3_scale(a->angular, dt));
    return integrate(p, &mid, dt);
}

void wk__motion_update(wk_sim *sim, double dt)
{
    wk_ecm *ecm = wk_scene_ecm(sim->scene);
    wk_type pose = wk_scene_types_of(sim->scene)->parent_pose;
    for (wk_iter it = wk_query_iter(sim->moving); wk_iter_next(&it);) {
        wk_pose *p = wk_iter_column(&it, 0);
        const wk_velocity *v = wk_iter_column(&it, 1);
        for (size_t i = 0; i < it.count; i++) {
            p[i] = integrate(p[i], &v[i], dt);
            wk_ecm_set_changed(ecm, it.entities[i], pose, WK_PERIODIC_CHANGE);
            wk_scene_pose_written(sim->scene, it.entities[i]);
        }
    }
    for (wk_iter it = wk_query_iter(sim->accelerating); wk_iter_next(&it);) {
        wk_pose *p = wk_iter_column(&it, 0);
        wk_velocity *v = wk_iter_column(&it, 1);
        const wk_acceleration *a = wk_iter_column(&it, 2);
        for (size_t i = 0; i < it.count; i++) {
            p[i] = accelerate(p[i], &v[i], &a[i], dt);
            wk_ecm_set_changed(ecm, it.entities[i], pose, WK_PERIODIC_CHANGE);
            wk_scene_pose_written(sim->scene, it.entities[i]);
            wk_ecm_set_changed(ecm, it.entities[i], sim->velocity, WK_PERIODIC_CHANGE);
        }
    }
}
