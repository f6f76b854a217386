/* physics_give.c — what a step of the engine gives the entities: every
 * moving link's ParentPose, twist and acceleration, or its carried model's,
 * relative to its parent entity's motion, and a kinematic object's joint
 * positions; each compared with its cell and written there
 * (wk_ecm_place_cell), so that the step costs little over MuJoCo's own
 * (bench/physics). */
#include <string.h>

#include "sim/physics_mujoco.h"

/* e's component of type through place (pointed at it first when it was
 * another's: a body of the pool filled, a model compiled again), to write
 * where it lies, or NULL (wk_ecm_place_cell). */
static inline void *cell_of(wk_ecm *ecm, wk_ecm_place *place, wk_entity e, wk_type type)
{
    if (place->entity != e || place->type != type)
        wk_ecm_place_init(place, e, type);
    return wk_ecm_place_cell(ecm, place);
}

/* The writes below compare a value with its cell field by field, bit for
 * bit as wk_ecm_set compares (a moving body's first field differs, which
 * ends the comparison), and store it there: no copy through
 * wk_ecm_place_set's bytes, no call, 21 times a step for an arm of 7
 * links. */
static inline bool same_bits(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

static inline bool same3(wk_vec3 a, wk_vec3 b)
{
    return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z);
}

static inline __attribute__((always_inline)) bool write_pose(wk_ecm *ecm, wk_ecm_place *place, wk_entity e,
                                                             wk_type type, wk_pose v)
{
    wk_pose *cell = cell_of(ecm, place, e, type);
    if (!cell)
        return wk_ecm_place_set(ecm, place, &v) >= 0;
    if (same3(cell->p, v.p) && same_bits(cell->q.w, v.q.w) && same_bits(cell->q.x, v.q.x) &&
        same_bits(cell->q.y, v.q.y) && same_bits(cell->q.z, v.q.z))
        return true;
    *cell = v;
    wk_ecm_place_changed(ecm, place);
    return true;
}

/* Puts a twist's or an acceleration's parts where they differ; whether
 * they did. */
static inline bool put_rates(wk_vec3 *linear_at, wk_vec3 *angular_at, wk_vec3 linear, wk_vec3 angular)
{
    if (same3(*linear_at, linear) && same3(*angular_at, angular))
        return false;
    *linear_at = linear, *angular_at = angular;
    return true;
}

/* A twist in its parent's axes (body_frame false). */
static inline __attribute__((always_inline)) bool write_twist(wk_ecm *ecm, wk_ecm_place *place, wk_entity e,
                                                              wk_type type, wk_vec3 linear, wk_vec3 angular)
{
    wk_velocity *cell = cell_of(ecm, place, e, type);
    if (!cell)
        return wk_ecm_place_set(ecm, place, &(wk_velocity){linear, angular, false}) >= 0;
    if (put_rates(&cell->linear, &cell->angular, linear, angular) | cell->body_frame)
        cell->body_frame = false, wk_ecm_place_changed(ecm, place);
    return true;
}

static inline __attribute__((always_inline)) bool write_acceleration(wk_ecm *ecm, wk_ecm_place *place, wk_entity e,
                                                                     wk_type type, wk_vec3 linear, wk_vec3 angular)
{
    wk_acceleration *cell = cell_of(ecm, place, e, type);
    if (!cell)
        return wk_ecm_place_set(ecm, place, &(wk_acceleration){linear, angular}) >= 0;
    if (put_rates(&cell->linear, &cell->angular, linear, angular))
        wk_ecm_place_changed(ecm, place);
    return true;
}

/* Body id's world twist at its origin, in the world's axes:
 * mj_objectVelocity's, without its call. MuJoCo's cvel (angular, then
 * linear) is the twist at the centre of mass of the body's tree, which
 * moves to the body's origin as v + w x r. */
static inline wk_velocity world_twist(const wk__physics *p, int id)
{
    const mjtNum *c = &p->d->cvel[6 * id], *x = &p->d->xpos[3 * id];
    const mjtNum *com = &p->d->subtree_com[3 * p->m->body_rootid[id]];
    wk_vec3 w = {c[0], c[1], c[2]}, r = {x[0] - com[0], x[1] - com[1], x[2] - com[2]};
    return (wk_velocity){wk_vec3_add((wk_vec3){c[3], c[4], c[5]}, wk_vec3_cross(w, r)), w, false};
}

/* A carried model's pose, twist and acceleration from its body's: the
 * model where the link, at its place in the model, is where the engine put
 * it. The acceleration is the one the step just taken integrated (qvel +=
 * h qacc): a free joint's linear part in the world's axes, its angular
 * part in the body's. */
static int carry(wk__physics *p, wk_sim *sim, body *b, wk_pose world_T_link)
{
    wk_scene *s = sim->scene;
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_pose *model_T_link = wk_ecm_get(ecm, b->link, wk_scene_types_of(s)->parent_pose);
    wk_pose model = wk_pose_compose(world_T_link, wk_pose_inverse(model_T_link ? *model_T_link : wk_pose_identity()));
    b->twist = world_twist(p, b->id);
    const mjtNum *a = &p->d->qacc[b->dof];
    wk_acceleration acc = {{a[0], a[1], a[2]}, wk_quat_rotate(world_T_link.q, (wk_vec3){a[3], a[4], a[5]})};
    if (!write_pose(ecm, &b->pose_at, b->carries, wk_scene_types_of(s)->parent_pose, model) ||
        !write_twist(ecm, &b->twist_at, b->carries, sim->velocity, b->twist.linear, b->twist.angular) ||
        !write_acceleration(ecm, &b->acc_at, b->carries, sim->acceleration, acc.linear, acc.angular))
        return WK_NOMEM;
    wk_scene_pose_written(s, b->carries);
    return WK_OK;
}

/* The position of a kinematic object's joint (ObjectWorldService reads it)
 * from its body's: the one it had when the model was compiled, where the
 * body's joint stood at zero, plus the joint's travel since. A position
 * the object's limits refuse (MuJoCo's are soft) is left as it was: the
 * link's pose is written relative to the joint's either way. */
static void move_joint(wk__physics *p, wk_scene *s, body *b)
{
    double position = b->at_build + p->d->qpos[b->qpos];
    const char *name = wk_scene_name(s, b->joint);
    (void)wk_scene_set_joint_positions(s, wk_scene_object_of(s, b->joint), &name, &position, 1, NULL);
    b->position = wk_scene_kinematics(s, b->joint)->position;
}

/* Whether body b moves within its model (not welded to the world, and
 * carrying no model): its link has a twist of its own to write. */
static bool moves_in_model(const wk__physics *p, const body *b)
{
    return b->moves && !b->carries && p->m->body_weldid[b->id] != 0;
}

/* Body id's pose in the world. */
static wk_pose world_pose(const wk__physics *p, int id)
{
    const mjtNum *x = &p->d->xpos[3 * id], *q = &p->d->xquat[4 * id];
    return (wk_pose){{x[0], x[1], x[2]}, {q[0], q[1], q[2], q[3]}};
}

/* The world twist of every body that moves within its model, before the
 * step: its acceleration is the step's change of it. The last step left
 * them (write_link); they are looked up again when something may have
 * moved the bodies since (a client, a compile, the pool). */
void wk__physics_note_twists(wk__physics *p)
{
    for (size_t i = 0; i < p->count; i++)
        if (moves_in_model(p, &p->bodies[i]))
            p->bodies[i].before = world_twist(p, p->bodies[i].id);
}

static const parent_frame *frame_of(parent_frame *f, wk_sim *sim, wk_entity parent)
{
    if (f->known && f->entity == parent)
        return f;
    wk_motion m = wk_sim_motion(sim, parent);
    bool still = wk__motion_still(&m);
    wk_pose origin = wk_pose_identity();
    *f = (parent_frame){true, parent, still, still && !memcmp(&m.pose, &origin, sizeof m.pose),
                        wk_pose_inverse(m.pose), m};
    return f;
}

/* Entity e was written: the frame is stale if it is e or below it (a
 * link written is below its parent, the frame, never above it). */
static void frame_written(parent_frame *f, wk_ecm *ecm, wk_entity e)
{
    for (wk_entity up = f->entity; f->known && up; up = wk_ecm_parent(ecm, up))
        if (up == e) {
            f->known = false;
            return;
        }
}

/* A link's ParentPose, and where it moves within its model its twist and
 * acceleration (the engine's world twist, and its change over the step
 * just taken over the step's length), relative to its parent entity's
 * motion, as Velocity and Acceleration hold them.
 * Not MuJoCo's own acceleration (mj_rnePostConstraint's cacc): the qacc
 * the data holds was solved at the step's start, where the pose written is
 * its end, and one solved there is the next step's forward dynamics run
 * twice; the change of the twist is what the integrator did, within
 * 5 mm/s^2 of a pendulum's analytic acceleration (tests/sim/test_physics.c).
 * rate: one over the step's length, worked out once per step. */
static int write_link(wk__physics *p, wk_sim *sim, body *b, const parent_frame *parent, double rate)
{
    wk_ecm *ecm = wk_scene_ecm(sim->scene);
    wk_pose world = world_pose(p, b->id);
    wk_pose local = parent->aligned ? world : wk_pose_compose(parent->inverse, world);
    bool ok = write_pose(ecm, &b->pose_at, b->link, wk_scene_types_of(sim->scene)->parent_pose, local);
    wk_scene_pose_written(sim->scene, b->link);
    if (!ok || !moves_in_model(p, b))
        return ok ? WK_OK : WK_NOMEM;
    wk_velocity twist = world_twist(p, b->id);
    wk_acceleration acc = {wk_vec3_scale(wk_vec3_sub(twist.linear, b->before.linear), rate),
                           wk_vec3_scale(wk_vec3_sub(twist.angular, b->before.angular), rate)};
    b->before = twist;
    if (!parent->aligned) { /* a parent at rest only turns the link's motion into its axes */
        wk_quat R = parent->inverse.q;
        wk_motion m = {world, twist.linear, twist.angular, acc.linear, acc.angular};
        m = parent->still ? (wk_motion){local, wk_quat_rotate(R, m.linear), wk_quat_rotate(R, m.angular),
                                        wk_quat_rotate(R, m.linear_acc), wk_quat_rotate(R, m.angular_acc)}
                          : wk_motion_relative(&parent->motion, &m);
        twist = (wk_velocity){m.linear, m.angular, false};
        acc = (wk_acceleration){m.linear_acc, m.angular_acc};
    }
    return write_twist(ecm, &b->twist_at, b->link, sim->velocity, twist.linear, twist.angular) &&
                   write_acceleration(ecm, &b->acc_at, b->link, sim->acceleration, acc.linear, acc.angular)
               ? WK_OK
               : WK_NOMEM;
}

/* Every moving link's pose from its body's, parents first (MuJoCo numbers
 * bodies so): a carried model's, or the link's ParentPose, with its twist
 * and acceleration where it moves within its model. */
int wk__physics_give(wk__physics *p, wk_sim *sim)
{
    wk_scene *s = sim->scene;
    wk_ecm *ecm = wk_scene_ecm(s);
    parent_frame *frame = &p->frame;
    double rate = 1 / p->m->opt.timestep;
    for (int id = 1; id < p->m->nbody; id++) {
        body *b = p->of_id[id] == SPARE ? NULL : &p->bodies[p->of_id[id]];
        if (!b || !b->moves)
            continue;
        int rc;
        /* A kinematic object's joint moved moves the joint entities, and
         * any mimicking it, wherever they are. */
        if (b->object_joint)
            move_joint(p, s, b), frame->known = false;
        if (b->carries) {
            rc = carry(p, sim, b, world_pose(p, id));
            frame_written(frame, ecm, b->carries);
        } else {
            rc = write_link(p, sim, b, frame_of(frame, sim, b->up), rate);
        }
        if (rc)
            return rc;
        /* Only a free body's is read back (take_changes): the engine's, which
         * the entities' is, to rounding (composing it anew from them took
         * two fifths of a free body's sync). */
        if (b->free)
            b->written = world_pose(p, id);
    }
    /* A leader's position written moves the kinematic joints that mimic
     * it (the scene's coupling, which the engine's equality keeps too):
     * what they hold now is no client's. */
    for (size_t i = 0; wk_ecm_type_in_use(ecm, wk_scene_types_of(s)->mimic) && i < p->count; i++)
        if (p->bodies[i].object_joint)
            p->bodies[i].position = wk_scene_kinematics(s, p->bodies[i].joint)->position;
    return WK_OK;
}
