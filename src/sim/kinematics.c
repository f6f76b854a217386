/* kinematics.c — motion across frames: how an entity's ParentPose, Velocity
 * and Acceleration, and those of its ancestors, add up to its motion in the
 * world, and the reverse, for services that read and write ground truth in
 * any frame. Velocities compose by the transport theorem: a point fixed in a
 * turning frame moves at w x r, and a point moving in it also picks up the
 * centripetal w x (w x r) and Coriolis 2 w x v terms. */
#include "sim/sim_internal.h"

static const wk_motion at_rest = {.pose = {{0, 0, 0}, {1, 0, 0, 0}}};

wk_motion wk_motion_compose(const wk_motion *f, const wk_motion *rel)
{
    wk_quat R = f->pose.q;
    wk_vec3 w = f->angular;
    wk_motion m;
    m.pose = wk_pose_compose(f->pose, rel->pose);
    wk_vec3 r = wk_quat_rotate(R, rel->pose.p); /* frame origin to the thing, in the outer axes */
    wk_vec3 v_rel = wk_quat_rotate(R, rel->linear);
    wk_vec3 w_rel = wk_quat_rotate(R, rel->angular);
    m.linear = wk_vec3_add(wk_vec3_add(f->linear, wk_vec3_cross(w, r)), v_rel);
    m.angular = wk_vec3_add(w, w_rel);
    wk_vec3 a = wk_vec3_add(f->linear_acc, wk_vec3_cross(f->angular_acc, r));
    a = wk_vec3_add(a, wk_vec3_cross(w, wk_vec3_cross(w, r)));
    a = wk_vec3_add(a, wk_vec3_scale(wk_vec3_cross(w, v_rel), 2));
    m.linear_acc = wk_vec3_add(a, wk_quat_rotate(R, rel->linear_acc));
    m.angular_acc = wk_vec3_add(f->angular_acc, wk_quat_rotate(R, rel->angular_acc));
    m.angular_acc = wk_vec3_add(m.angular_acc, wk_vec3_cross(w, w_rel));
    return m;
}

wk_motion wk_motion_relative(const wk_motion *f, const wk_motion *m)
{
    wk_quat R = f->pose.q, Rt = wk_quat_conjugate(f->pose.q);
    wk_vec3 w = f->angular;
    wk_motion rel;
    rel.pose = wk_pose_compose(wk_pose_inverse(f->pose), m->pose);
    wk_vec3 r = wk_quat_rotate(R, rel.pose.p);
    wk_vec3 v_rel = wk_vec3_sub(wk_vec3_sub(m->linear, f->linear), wk_vec3_cross(w, r));
    wk_vec3 w_rel = wk_vec3_sub(m->angular, w);
    rel.linear = wk_quat_rotate(Rt, v_rel);
    rel.angular = wk_quat_rotate(Rt, w_rel);
    wk_vec3 a = wk_vec3_sub(m->linear_acc, f->linear_acc);
    a = wk_vec3_sub(a, wk_vec3_cross(f->angular_acc, r));
    a = wk_vec3_sub(a, wk_vec3_cross(w, wk_vec3_cross(w, r)));
    a = wk_vec3_sub(a, wk_vec3_scale(wk_vec3_cross(w, v_rel), 2));
    rel.linear_acc = wk_quat_rotate(Rt, a);
    wk_vec3 alpha = wk_vec3_sub(wk_vec3_sub(m->angular_acc, f->angular_acc), wk_vec3_cross(w, w_rel));
    rel.angular_acc = wk_quat_rotate(Rt, alpha);
    return rel;
}

/* The entity's motion relative to its parent, in the parent's axes, from its
 * own components. A body-frame Velocity turns with the entity, which adds
 * w x v to the rate of change its Acceleration gives. */
static wk_motion own_motion(wk_sim *sim, wk_entity e)
{
    wk_ecm *ecm = wk_scene_ecm(sim->scene);
    wk_motion m = at_rest;
    const wk_pose *pose = wk_ecm_get(ecm, e, wk_scene_types_of(sim->scene)->parent_pose);
    const wk_velocity *v = wk_ecm_get(ecm, e, sim->velocity);
    const wk_acceleration *a = wk_ecm_get(ecm, e, sim->acceleration);
    if (pose)
        m.pose = *pose;
    if (!v)
        return m;
    m.linear = v->linear, m.angular = v->angular;
    if (a)
        m.linear_acc = a->linear, m.angular_acc = a->angular;
    if (v->body_frame) {
        wk_quat R = m.pose.q;
        m.linear_acc = wk_quat_rotate(R, wk_vec3_add(m.linear_acc, wk_vec3_cross(v->angular, v->linear)));
        m.angular_acc = wk_quat_rotate(R, m.angular_acc);
        m.linear = wk_quat_rotate(R, m.linear);
        m.angular = wk_quat_rotate(R, m.angular);
    }
    return m;
}

static bool is_zero(wk_vec3 v)
{
    return v.x == 0 && v.y == 0 && v.z == 0;
}

bool wk__motion_still(const wk_motion *m)
{
    return is_zero(m->linear) && is_zero(m->angular) && is_zero(m->linear_acc) && is_zero(m->angular_acc);
}

wk_motion wk_sim_motion(wk_sim *sim, wk_entity e)
{
    if (!e || e == sim->world)
        return at_rest;
    wk_motion parent = wk_sim_motion(sim, wk_ecm_parent(wk_scene_ecm(sim->scene), e));
    wk_motion own = own_motion(sim, e);
    /* Things at rest in a frame at rest, the common case, are at rest. */
    if (wk__motion_still(&parent) && wk__motion_still(&own))
        return (wk_motion){.pose = wk_pose_compose(parent.pose, own.pose)};
    return wk_motion_compose(&parent, &own);
}

/* Sets the component, or removes it when it is zero. */
static int store(wk_ecm *ecm, wk_entity e, wk_type type, const void *value, bool zero)
{
    int rc = zero ? wk_ecm_remove(ecm, e, type) : wk_ecm_set(ecm, e, type, value);
    return rc < 0 ? rc : WK_OK;
}

int wk_sim_may_move(wk_sim *sim, wk_entity e, const char *name, wk_status *st)
{
    wk_ecm *ecm = wk_scene_ecm(sim->scene);
    for (wk_entity up = e; up; up = wk_ecm_parent(ecm, up))
        if (wk_ecm_has(ecm, up, wk_scene_types_of(sim->scene)->is_static))
            return wk_fail(st, WK_INVALID, "entity '%s' is static: it cannot be given a twist or an acceleration",
                           name);
    return WK_OK;
}

int wk_sim_set_motion(wk_sim *sim, wk_entity e, const wk_motion *m, unsigned parts)
{
    wk_ecm *ecm = wk_scene_ecm(sim->scene);
    if (!wk_ecm_exists(ecm, e) || e == sim->world)
        return WK_NOT_FOUND;
    wk_motion parent = wk_sim_motion(sim, wk_ecm_parent(ecm, e));
    /* The world motion with the new pose and the current relative velocity,
     * then the requested twist and acceleration over it, back to relative:
     * so that the Coriolis term of a new acceleration uses the velocity the
     * entity will have. */
    wk_motion rel = own_motion(sim, e);
    if (parts & WK_MOTION_POSE)
        rel.pose = wk_pose_compose(wk_pose_inverse(parent.pose), m->pose);
    wk_motion world = wk_motion_compose(&parent, &rel);
    if (parts & WK_MOTION_TWIST)
        world.linear = m->linear, world.angular = m->angular;
    if (parts & WK_MOTION_ACCELERATION)
        world.linear_acc = m->linear_acc, world.angular_acc = m->angular_acc;
    rel = wk_motion_relative(&parent, &world);

    /* Parts not selected keep their components exactly as they are. */
    const wk_velocity *had_v = wk_ecm_get(ecm, e, sim->velocity);
    const wk_acceleration *had_a = wk_ecm_get(ecm, e, sim->acceleration);
    wk_velocity v = had_v ? *had_v : (wk_velocity){0};
    wk_acceleration a = had_a ? *had_a : (wk_acceleration){{0, 0, 0}, {0, 0, 0}};
    if (parts & WK_MOTION_TWIST)
        v = (wk_velocity){rel.linear, rel.angular, false};
    if (parts & WK_MOTION_ACCELERATION) {
        a = (wk_acceleration){rel.linear_acc, rel.angular_acc};
        if (v.body_frame) { /* a kept body-frame Velocity: own_motion, reversed */
            wk_quat Rt = wk_quat_conjugate(rel.pose.q);
            a.linear = wk_vec3_sub(wk_quat_rotate(Rt, a.linear), wk_vec3_cross(v.angular, v.linear));
            a.angular = wk_quat_rotate(Rt, a.angular);
        }
    }
    bool still = is_zero(a.linear) && is_zero(a.angular);
    bool stopped = still && is_zero(v.linear) && is_zero(v.angular);
    int rc = parts & WK_MOTION_POSE ? store(ecm, e, wk_scene_types_of(sim->scene)->parent_pose, &rel.pose, false)
                                    : WK_OK;
    if (rc == WK_OK && (parts & (WK_MOTION_TWIST | WK_MOTION_ACCELERATION)))
        rc = store(ecm, e, sim->velocity, &v, stopped);
    if (rc == WK_OK && (parts & WK_MOTION_ACCELERATION))
        rc = store(ecm, e, sim->acceleration, &a, still);
    wk_scene_pose_written(sim->scene, e);
    return rc;
}
