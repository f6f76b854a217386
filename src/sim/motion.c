/* motion.c — the kinematic motion system: every entity with a Velocity has
 * its ParentPose moved by it each step, a periodic change of the pose. A
 * physics engine, when one comes, takes this system's place. */
#include <math.h>

#include "sim/sim_internal.h"

/* The rotation by angular velocity w over dt. */
static wk_quat turn(wk_vec3 w, double dt)
{
    double angle = wk_vec3_norm(w) * dt;
    wk_quat q;
    if (angle == 0 || wk_quat_from_axis_angle(w, angle, &q))
        return wk_quat_identity();
    return q;
}

static wk_pose integrate(wk_pose p, const wk_velocity *v, double dt)
{
    wk_vec3 step = wk_vec3_scale(v->linear, dt);
    wk_quat spin = turn(v->angular, dt);
    if (v->body_frame) {
        p.p = wk_vec3_add(p.p, wk_quat_rotate(p.q, step));
        p.q = wk_quat_mul(p.q, spin);
    } else {
        p.p = wk_vec3_add(p.p, step);
        p.q = wk_quat_mul(spin, p.q);
    }
    /* Keep the rotation unit over many steps. */
    wk_quat unit;
    if (wk_quat_normalize(p.q, &unit) == WK_OK)
        p.q = unit;
    return p;
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
        }
    }
}
