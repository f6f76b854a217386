/* kinematics_joints.c — the joints of kinematic objects: reading their order
 * and positions, and UpdateObjectJoint(s): new positions and limits checked
 * as a whole, then applied to the joints' Kinematics and ParentPose, which
 * moves everything below them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/kinematics_internal.h"

bool wk__joint_moves(uint32_t motion)
{
    return motion == WK_JOINT_MOTION_REVOLUTE || motion == WK_JOINT_MOTION_PRISMATIC;
}

wk_pose wk__joint_pose(const wk_kinematics *k)
{
    wk_pose motion = wk_pose_identity();
    if (k->motion == WK_JOINT_MOTION_REVOLUTE && wk_quat_from_axis_angle(k->axis, k->position, &motion.q))
        motion.q = wk_quat_identity();
    else if (k->motion == WK_JOINT_MOTION_PRISMATIC)
        motion.p = wk_vec3_scale(k->axis, k->position);
    return wk_pose_compose(k->parent_t_inboard, motion);
}

const wk_kinematics *wk_scene_kinematics(const wk_scene *s, wk_entity joint)
{
    return wk_ecm_get(s->ecm, joint, s->types.kinematics);
}

const wk_kinematic_object *wk_scene_kinematic_object(const wk_scene *s, wk_entity object)
{
    const wk_object_info *info = wk_scene_object_info(s, object);
    if (!info || info->type != WK_OBJECT_KINEMATIC)
        return NULL;
    return wk_ecm_get(s->ecm, object, s->types.kinematic_object);
}

int wk__kinematic_object_of(const wk_scene *s, wk_entity object, const wk_kinematic_object **out, wk_status *st)
{
    if (!wk_scene_is_object(s, object))
        return wk_fail(st, WK_NOT_FOUND, "entity %llu is not an object", (unsigned long long)object);
    *out = wk_scene_kinematic_object(s, object);
    if (!*out)
        return wk_fail(st, WK_PRECONDITION, "object '%s' is not a kinematic object", wk__object_name(s, object));
    return WK_OK;
}

int wk__kinematic_object_store(wk_scene *s, wk_entity object, const wk_kinematic_object *k, wk_status *st)
{
    int rc = wk_ecm_set(s->ecm, object, s->types.kinematic_object, k);
    return rc < 0 ? wk_fail(st, rc, "object '%s': %s", wk__object_name(s, object), wk_ecm_errmsg(s->ecm)) : WK_OK;
}

int wk__kin_change_begin(wk_scene *s, wk__kin_change *c, wk_status *st)
{
    c->own = !wk_ecm_txn_open(s->ecm);
    int rc = c->own ? wk_ecm_txn_begin(s->ecm) : WK_OK;
    return rc ? wk_fail(st, rc, "%s", wk_ecm_errmsg(s->ecm)) : WK_OK;
}

int wk__kin_change_end(wk_scene *s, wk__kin_change *c, int rc)
{
    if (!c->own)
        return rc;
    if (rc == WK_OK)
        return wk_ecm_txn_commit(s->ecm);
    /* Poses cached while the change ran may hold what it did. */
    wk_ecm_txn_rollback(s->ecm);
    wk__pose_cache_clear(&s->poses);
    return rc;
}

size_t wk_scene_joint_count(const wk_scene *s, wk_entity object)
{
    const wk_kinematic_object *k = wk_scene_kinematic_object(s, object);
    return k ? k->joint_count : 0;
}

int wk_scene_joints(const wk_scene *s, wk_entity object, wk_entity_list *out, wk_status *st)
{
    const wk_kinematic_object *k;
    int rc = wk__kinematic_object_of(s, object, &k, st);
    for (uint32_t i = 0; rc == WK_OK && i < k->joint_count; i++)
        if (wk_entity_list_push(out, k->joints[i]))
            rc = wk_fail(st, WK_NOMEM, "out of memory listing the joints of '%s'", wk__object_name(s, object));
    return rc;
}

/* The Kinematics of the object's joint i, or a failure naming it. */
static int joint_kinematics(const wk_scene *s, wk_entity object, const wk_kinematic_object *k, uint32_t i,
                            const wk_kinematics **out, wk_status *st)
{
    *out = wk_scene_kinematics(s, k->joints[i]);
    if (!*out)
        return wk_fail(st, WK_STALE, "joint %u (entity %llu) of object '%s' is gone or has no Kinematics", i,
                       (unsigned long long)k->joints[i], wk__object_name(s, object));
    return WK_OK;
}

int wk_scene_joint_positions(const wk_scene *s, wk_entity object, double *out, size_t n, wk_status *st)
{
    const wk_kinematic_object *k;
    int rc = wk__kinematic_object_of(s, object, &k, st);
    if (rc)
        return rc;
    if (n < k->joint_count)
        return wk_fail(st, WK_INVALID, "object '%s' has %u joints: room for %zu positions is too little",
                       wk__object_name(s, object), k->joint_count, n);
    for (uint32_t i = 0; i < k->joint_count; i++) {
        const wk_kinematics *kin;
        if ((rc = joint_kinematics(s, object, k, i, &kin, st)))
            return rc;
        out[i] = kin->position;
    }
    return WK_OK;
}

/* ---- updates ----------------------------------------------------------- */

/* An update worked out before anything changes: which joints it names, and
 * the limits and positions they would have. */
typedef struct plan {
    const wk_scene *s;
    wk_entity object;
    const wk_kinematic_object *k;
    uint32_t *index;           /* count: the object's joint index of each update entry */
    wk_joint_limit *system;    /* joint_count: the limits after the update */
    wk_joint_limit *application;
    double *position;          /* joint_count: the positions after the update */
    uint8_t *motion;           /* joint_count */
    bool *check;               /* joint_count: must lie within its application limits */
} plan;

static void plan_free(plan *p)
{
    free(p->index);
    free(p->system);
    free(p->application);
    free(p->position);
    free(p->motion);
    free(p->check);
}

static int plan_alloc(plan *p, size_t count, wk_status *st)
{
    size_t n = p->k->joint_count ? p->k->joint_count : 1;
    p->index = malloc((count ? count : 1) * sizeof *p->index);
    p->system = malloc(n * sizeof *p->system);
    p->application = malloc(n * sizeof *p->application);
    p->position = malloc(n * sizeof *p->position);
    p->motion = malloc(n);
    p->check = calloc(n, sizeof *p->check);
    if (!p->index || !p->system || !p->application || !p->position || !p->motion || !p->check)
        return wk_fail(st, WK_NOMEM, "out of memory updating the joints of '%s'", wk__object_name(p->s, p->object));
    return WK_OK;
}

static const char *joint_name(const plan *p, uint32_t j)
{
    return wk__entity_name(p->s, p->k->joints[j]);
}

/* Maps the update's entries to joint indices: by name, or in order. */
static int resolve_names(plan *p, const wk_joints_update *u, wk_status *st)
{
    const char *object = wk__object_name(p->s, p->object);
    if (!u->names) {
        if (u->count != p->k->joint_count)
            return wk_fail(st, WK_INVALID, "object '%s' has %u joints, the update gives %zu", object,
                           p->k->joint_count, u->count);
        for (uint32_t j = 0; j < p->k->joint_count; j++)
            p->index[j] = j;
        return WK_OK;
    }
    for (size_t i = 0; i < u->count; i++) {
        const char *name = u->names[i] ? u->names[i] : "";
        uint32_t j = 0;
        while (j < p->k->joint_count && strcmp(joint_name(p, j), name) != 0)
            j++;
        if (j == p->k->joint_count)
            return wk_fail(st, WK_NOT_FOUND, "object '%s' has no joint '%s'", object, name);
        for (size_t before = 0; before < i; before++)
            if (p->index[before] == j)
                return wk_fail(st, WK_INVALID, "joint '%s' of object '%s' is named twice", name, object);
        p->index[i] = j;
    }
    return WK_OK;
}

/* The limit fields an update can replace, in wk_joint_limits_update's and
 * wk_joint_limit's order: six doubles in a row. */
_Static_assert(sizeof(wk_joint_limit) == 6 * sizeof(double), "wk_joint_limit is six doubles");

static void apply_limits(plan *p, size_t count, const wk_joint_limits_update *u, wk_joint_limit *to)
{
    const double *const given[6] = {u->min_position,     u->max_position, u->max_velocity,
                                    u->max_acceleration, u->max_jerk,     u->max_effort};
    for (int f = 0; f < 6; f++)
        for (size_t i = 0; given[f] && i < count; i++) {
            double *limit = (double *)&to[p->index[i]] + f;
            *limit = given[f][i];
        }
}

static int plan_limits(plan *p, const wk_joints_update *u, wk_status *st)
{
    memcpy(p->system, p->k->system_limits, p->k->joint_count * sizeof *p->system);
    memcpy(p->application, p->k->application_limits, p->k->joint_count * sizeof *p->application);
    if (u->system)
        apply_limits(p, u->count, u->system, p->system);
    if (u->application)
        apply_limits(p, u->count, u->application, p->application);
    if (!u->system && !u->application)
        return WK_OK;
    for (size_t i = 0; i < u->count; i++) {
        uint32_t j = p->index[i];
        int rc = wk__limits_check(&p->system[j], &p->application[j], wk__object_name(p->s, p->object),
                                  joint_name(p, j), st);
        if (rc)
            return rc;
        p->check[j] = p->check[j] || u->application != NULL;
    }
    return WK_OK;
}

const char *wk__position_unit(uint32_t motion)
{
    return motion == WK_JOINT_MOTION_PRISMATIC ? "m" : "rad";
}

static int plan_positions(plan *p, const wk_joints_update *u, wk_status *st)
{
    for (uint32_t j = 0; j < p->k->joint_count; j++) {
        const wk_kinematics *kin;
        int rc = joint_kinematics(p->s, p->object, p->k, j, &kin, st);
        if (rc)
            return rc;
        p->position[j] = kin->position;
        p->motion[j] = (uint8_t)kin->motion;
    }
    for (size_t i = 0; u->positions && i < u->count; i++) {
        uint32_t j = p->index[i];
        double q = u->positions[i];
        if (!isfinite(q))
            return wk_fail(st, WK_INVALID, "joint '%s' of object '%s': position %g is not finite", joint_name(p, j),
                           wk__object_name(p->s, p->object), q);
        p->position[j] = q;
        p->check[j] = true;
    }
    for (uint32_t j = 0; j < p->k->joint_count; j++) {
        const wk_joint_limit *l = &p->application[j];
        double q = p->position[j];
        if (p->check[j] && (q < l->min_position || q > l->max_position))
            return wk_fail(st, WK_RANGE,
                           "joint '%s' of object '%s': position %.9g %s is outside its application limits [%g, %g]",
                           joint_name(p, j), wk__object_name(p->s, p->object), q, wk__position_unit(p->motion[j]),
                           l->min_position, l->max_position);
    }
    return WK_OK;
}

static int apply(wk_scene *s, plan *p, const wk_joints_update *u, wk_status *st)
{
    int rc = WK_OK;
    if (u->system || u->application) {
        wk_kinematic_object k = *p->k;
        k.system_limits = p->system;
        k.application_limits = p->application;
        rc = wk__kinematic_object_store(s, p->object, &k, st);
        /* The store moved components: the plan's borrowed pointer is stale. */
        p->k = wk_scene_kinematic_object(s, p->object);
    }
    for (size_t i = 0; rc == WK_OK && u->positions && i < u->count; i++) {
        wk_entity joint = p->k->joints[p->index[i]];
        wk_kinematics kin = *wk_scene_kinematics(s, joint);
        kin.position = p->position[p->index[i]];
        if (wk_ecm_set(s->ecm, joint, s->types.kinematics, &kin) < 0)
            rc = wk_fail(st, WK_NOMEM, "moving joint '%s': %s", wk__entity_name(s, joint), wk_ecm_errmsg(s->ecm));
        else if ((rc = wk_scene_set_pose(s, joint, wk__joint_pose(&kin), st)) == WK_OK)
            rc = wk__mimics_follow(s, p->object, joint, st);
    }
    return rc;
}

int wk_scene_update_joints(wk_scene *s, wk_entity object, const wk_joints_update *u, wk_status *st)
{
    plan p = {.s = s, .object = object};
    int rc = wk__kinematic_object_of(s, object, &p.k, st);
    if (rc)
        return rc;
    if (!u->positions && !u->system && !u->application)
        return wk_fail(st, WK_INVALID, "the update of object '%s' sets neither positions nor limits",
                       wk__object_name(s, object));
    wk__kin_change change;
    if ((rc = plan_alloc(&p, u->count, st)) == WK_OK && (rc = resolve_names(&p, u, st)) == WK_OK &&
        (rc = plan_limits(&p, u, st)) == WK_OK && (rc = plan_positions(&p, u, st)) == WK_OK &&
        (rc = wk__kin_change_begin(s, &change, st)) == WK_OK)
        rc = wk__kin_change_end(s, &change, apply(s, &p, u, st));
    plan_free(&p);
    return rc;
}

int wk_scene_set_joint_positions(wk_scene *s, wk_entity object, const char *const *names, const double *positions,
                                 size_t n, wk_status *st)
{
    if (!positions)
        return wk_fail(st, WK_INVALID, "no joint positions given for object '%s'", wk__object_name(s, object));
    wk_joints_update u = {.names = names, .count = n, .positions = positions};
    return wk_scene_update_joints(s, object, &u, st);
}

int wk_scene_set_joint_limits(wk_scene *s, wk_entity object, const char *const *names, size_t n,
                              const wk_joint_limits_update *system, const wk_joint_limits_update *application,
                              wk_status *st)
{
    wk_joints_update u = {.names = names, .count = n, .system = system, .application = application};
    return wk_scene_update_joints(s, object, &u, st);
}
