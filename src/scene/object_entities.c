/* object_entities.c — objects built entity by entity, as a snapshot
 * describes them (CreateWorld): entities added below an object's entities,
 * and an object made kinematic from the joint entities it holds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/kinematics_internal.h"

static bool is_shape(uint8_t kind)
{
    return kind == WK_NODE_VISUAL || kind == WK_NODE_COLLISION;
}

static uint8_t kind_of(const wk_scene *s, wk_entity e)
{
    const uint8_t *kind = wk_ecm_get(s->ecm, e, s->types.kind);
    return kind ? *kind : WK_NODE_WORLD;
}

/* Neither a visual or collision nor the model counts: SDFormat scopes
 * their names to their link and to the model's parent, and a world file's
 * link may share a name with its visual (a URDF file's unnamed ones) or
 * its model (a URDF robot of one link). */
static int named(const wk_scene *s, wk_entity e, bool inside, void *name)
{
    uint8_t kind = kind_of(s, e);
    return inside && !is_shape(kind) && kind != WK_NODE_MODEL && strcmp(wk__entity_name(s, e), name) == 0;
}

/* Whether d's name is taken where it must be unique: a visual's among its
 * link's visuals, a collision's among its link's collisions (SDFormat's
 * rule, which every world file loaded follows), any other entity's among
 * the object's links, joints and frames. */
static bool name_taken(const wk_scene *s, const wk_entity_desc *d, wk_entity object)
{
    if (!is_shape(d->kind))
        return wk__walk_object(s, object, named, (void *)d->name);
    for (wk_entity c = wk_ecm_first_child(s->ecm, d->parent); c; c = wk_ecm_next_sibling(s->ecm, c))
        if (kind_of(s, c) == d->kind && strcmp(wk__entity_name(s, c), d->name) == 0)
            return true;
    return false;
}

static int check_kinematics(const char *name, const wk_kinematics *k, wk_status *st)
{
    bool motion_ok = wk__joint_moves(k->motion) || k->motion == WK_JOINT_MOTION_FIXED;
    /* Stored axes are unit already; renormalizing one would change its bits. */
    if (!motion_ok || !(fabs(wk_vec3_norm(k->axis) - 1) <= 1e-9) || !isfinite(k->position) ||
        !wk_pose_is_valid(k->parent_t_inboard) || k->reserved)
        return wk_fail(st, WK_INVALID,
                       "joint '%s': its motion (revolute, prismatic or fixed), axis (unit), position or "
                       "parent_t_inboard is not valid",
                       name);
    return WK_OK;
}

static int check_entity(const wk_scene *s, const wk_entity_desc *d, wk_scene_geometry *geometry, wk_status *st)
{
    const char *name = d->name ? d->name : "";
    int rc = wk__check_parent(s, d->parent, st);
    if (rc)
        return rc;
    wk_entity object = wk_scene_object_of(s, d->parent);
    if (wk_scene_is_frame(s, d->parent))
        return wk_fail(st, WK_INVALID, "entity '%s' cannot hang from frame '%s'", name, wk__entity_name(s, d->parent));
    if (!wk_scene_name_valid(name))
        return wk_fail(st, WK_INVALID, "entity name '%s' of object '%s' is invalid", name, wk__object_name(s, object));
    if (d->kind && (!is_shape(d->kind) || d->kinematics))
        return wk_fail(st, WK_INVALID, "entity '%s' of object '%s': only a visual or a collision gives its kind, "
                       "and neither is a joint", name, wk__object_name(s, object));
    if (name_taken(s, d, object) && is_shape(d->kind))
        return wk_fail(st, WK_EXISTS, "'%s' already names a %s of link '%s' of object '%s'", name,
                       d->kind == WK_NODE_VISUAL ? "visual" : "collision", wk__entity_name(s, d->parent),
                       wk__object_name(s, object));
    if (name_taken(s, d, object))
        return wk_fail(st, WK_EXISTS, "'%s' already names an entity of object '%s'", name, wk__object_name(s, object));
    char why[128];
    if (wk_pose_problem(wk__desc_pose(d->parent_t_this), why, sizeof why))
        return wk_fail(st, WK_INVALID, "pose of entity '%s': %s", name, why);
    if (d->kinematics && (rc = check_kinematics(name, d->kinematics, st)))
        return rc;
    if (d->physics && (rc = wk__physics_check(name, d->physics, st)))
        return rc;
    return d->geometry ? wk__geometry_check(name, d->geometry, d->uri, geometry, st) : WK_OK;
}

int wk_scene_add_entity(wk_scene *s, const wk_entity_desc *desc, wk_entity *out, wk_status *st)
{
    wk_scene_geometry geometry;
    int rc = check_entity(s, desc, &geometry, st);
    if (rc)
        return rc;
    const wk_scene_types *t = &s->types;
    uint8_t kind = desc->kind ? desc->kind : desc->kinematics ? WK_NODE_JOINT : WK_NODE_LINK;
    wk_pose pose = desc->kinematics ? wk__joint_pose(desc->kinematics) : wk__desc_pose(desc->parent_t_this);
    wk_type types[7] = {t->name, t->kind, t->parent_pose};
    const void *values[7] = {&desc->name, &kind, &pose};
    size_t n = 3;
    const struct {
        bool given;
        wk_type type;
        const void *value;
    } optional[] = {
        {desc->kinematics, t->kinematics, desc->kinematics},
        {desc->physics, t->physics, desc->physics},
        {desc->geometry, t->geometry, &geometry},
        {desc->geometry && desc->uri, t->uri, &desc->uri},
    };
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        if (optional[i].given) {
            types[n] = optional[i].type;
            values[n++] = optional[i].value;
        }
    wk_entity e = wk_ecm_create_with(s->ecm, types, values, n);
    if (!e || wk_ecm_set_parent(s->ecm, e, desc->parent)) {
        if (e)
            wk_ecm_destroy(s->ecm, e, false);
        return wk_fail(st, WK_NOMEM, "creating entity '%s': %s", desc->name, wk_ecm_errmsg(s->ecm));
    }
    *out = e;
    return WK_OK;
}

/* Checks joint i of a list to make kinematic: a moving joint of object,
 * not listed before, within its limits. */
static int check_dof(const wk_scene *s, wk_entity object, const wk_entity *joints, size_t i,
                     const wk_joint_limit *system, const wk_joint_limit *application, wk_status *st)
{
    const char *o = wk__object_name(s, object);
    const wk_kinematics *k = wk_ecm_exists(s->ecm, joints[i]) ? wk_scene_kinematics(s, joints[i]) : NULL;
    if (!k || !wk__joint_moves(k->motion) || wk_scene_object_of(s, joints[i]) != object)
        return wk_fail(st, WK_INVALID, "degree of freedom %zu of object '%s' is not a revolute or prismatic joint of it",
                       i, o);
    const char *j = wk__entity_name(s, joints[i]);
    for (size_t k2 = 0; k2 < i; k2++)
        if (joints[k2] == joints[i])
            return wk_fail(st, WK_INVALID, "joint '%s' of object '%s' is listed twice", j, o);
    int rc = wk__limits_check(&system[i], &application[i], o, j, st);
    if (rc == WK_OK && !(k->position >= application[i].min_position && k->position <= application[i].max_position))
        rc = wk_fail(st, WK_RANGE, "joint '%s' of object '%s': position %g is outside its application limits", j, o,
                     k->position);
    return rc;
}

int wk_scene_make_kinematic(wk_scene *s, wk_entity object, const wk_entity *joints, const wk_joint_limit *system,
                            const wk_joint_limit *application, size_t n, wk_status *st)
{
    const wk_object_info *info = wk_scene_object_info(s, object);
    if (!info)
        return wk_fail(st, WK_NOT_FOUND, "entity %llu is not an object", (unsigned long long)object);
    if (info->type != WK_OBJECT_PHYSICAL)
        return wk_fail(st, WK_PRECONDITION, "object '%s' is not a physical object to make kinematic", info->name);
    if (n > UINT32_MAX)
        return wk_fail(st, WK_INVALID, "%zu joints are too many", n);
    int rc = WK_OK;
    for (size_t i = 0; rc == WK_OK && i < n; i++)
        rc = check_dof(s, object, joints, i, system, application, st);
    if (rc)
        return rc;
    wk_object_info kinematic = *info;
    kinematic.type = WK_OBJECT_KINEMATIC;
    wk_kinematic_object k = {.joint_count = (uint32_t)n,
                             .joints = (wk_entity *)joints,
                             .system_limits = (wk_joint_limit *)system,
                             .application_limits = (wk_joint_limit *)application};
    wk__kin_change c;
    if ((rc = wk__kin_change_begin(s, &c, st)))
        return rc;
    if (wk_ecm_set(s->ecm, object, s->types.object, &kinematic) < 0)
        rc = wk_fail(st, WK_NOMEM, "out of memory making '%s' kinematic", kinematic.name);
    if (rc == WK_OK)
        rc = wk__kinematic_object_store(s, object, &k, st);
    return wk__kin_change_end(s, &c, rc);
}
