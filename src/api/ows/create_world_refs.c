/* create_world_refs.c — the parts of a CreateWorld snapshot that refer
 * to others by the snapshot's ids, applied once every object, entity and
 * frame stands (create_world.c): kinematic objects (joints, limits,
 * positions, named configurations, IK solvers, ISO flange frames) and the
 * collision settings, whose references by id are translated to the new
 * world's ids. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api/ows/create_world.h"
#include "api/ows/edit.h"

/* A snapshot's JointLimits as n limits: what it leaves out is unlimited
 * (max_effort 0); a list present must hold n values. */
static int limits_in(const IntrinsicProto__JointLimits *m, size_t n, wk_joint_limit *out, const char *object,
                     wk_status *st)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (wk_joint_limit){-INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, 0};
    if (!m)
        return WK_OK;
    const struct {
        const char *name;
        const IntrinsicProto__RepeatedDouble *list;
        size_t offset;
    } fields[] = {
        {"min_position", m->min_position, offsetof(wk_joint_limit, min_position)},
        {"max_position", m->max_position, offsetof(wk_joint_limit, max_position)},
        {"max_velocity", m->max_velocity, offsetof(wk_joint_limit, max_velocity)},
        {"max_acceleration", m->max_acceleration, offsetof(wk_joint_limit, max_acceleration)},
        {"max_jerk", m->max_jerk, offsetof(wk_joint_limit, max_jerk)},
        {"max_effort", m->max_effort, offsetof(wk_joint_limit, max_effort)},
    };
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        if (!fields[f].list)
            continue;
        if (fields[f].list->n_values != n)
            return wk_fail(st, WK_INVALID, "CreateWorld: object '%s': joint limits' %s hold %zu values for %zu joints",
                           object, fields[f].name, fields[f].list->n_values, n);
        for (size_t i = 0; i < n; i++)
            memcpy((char *)&out[i] + fields[f].offset, &fields[f].list->values[i], sizeof(double));
    }
    return WK_OK;
}

/* The entity the snapshot's id became, or WK_INVALID naming what refers
 * to it. */
static int mapped(const wk__id_map *map, const char *id, const char *what, const char *object, wk_entity *out,
                  wk_status *st)
{
    *out = wk__id_map_lookup(map, id);
    return *out ? WK_OK
                : wk_fail(st, WK_INVALID, "CreateWorld: object '%s': %s '%s' is not in the snapshot", object, what,
                          id ? id : "");
}

/* Joints, limits and positions of a kinematic object's component. */
static int make_joints(wk_scene *s, const wk__id_map *map, const IntrinsicProto__World__KinematicObjectComponent *k, wk_entity object,
                       const char *name, wk_status *st)
{
    size_t n = k ? k->n_joint_entity_ids : 0;
    wk_entity *joints = calloc(n + 1, sizeof *joints);
    wk_joint_limit *limits = calloc(2 * n + 1, sizeof *limits);
    int rc = joints && limits ? WK_OK : wk_fail(st, WK_NOMEM, "out of memory building object '%s'", name);
    for (size_t i = 0; rc == WK_OK && i < n; i++)
        rc = mapped(map, k->joint_entity_ids[i], "joint entity", name, &joints[i], st);
    if (rc == WK_OK && (rc = limits_in(k ? k->joint_system_limits : NULL, n, limits, name, st)) == WK_OK)
        rc = k && k->joint_application_limits ? limits_in(k->joint_application_limits, n, limits + n, name, st)
                                              : (memcpy(limits + n, limits, n * sizeof *limits), WK_OK);
    if (rc == WK_OK)
        rc = wk_scene_make_kinematic(s, object, joints, limits, limits + n, n, st);
    if (rc == WK_OK && k && k->n_joint_positions)
        rc = wk_scene_set_joint_positions(s, object, NULL, k->joint_positions, k->n_joint_positions, st);
    free(joints);
    free(limits);
    return rc;
}

/* Named configurations, IK solvers, flange frames, Cartesian limits and
 * mounted payload of a kinematic object's component. */
static int make_kinematic_props(wk_scene *s, const wk__id_map *map, const IntrinsicProto__World__KinematicObjectComponent *k, wk_entity object,
                                const char *name, wk_status *st)
{
    size_t nc = k->n_named_joint_configurations, ni = k->n_ik_solvers, nf = k->n_iso_flange_frames;
    wk_joint_configuration_desc *configs = calloc(nc + 1, sizeof *configs);
    wk_ik_solver *solvers = calloc(ni + 1, sizeof *solvers);
    wk_entity *flanges = calloc(nf + 1, sizeof *flanges);
    int rc = configs && solvers && flanges ? WK_OK : wk_fail(st, WK_NOMEM, "out of memory building object '%s'", name);
    for (size_t i = 0; rc == WK_OK && i < nc; i++) {
        const IntrinsicProto__World__NamedJointConfiguration *c = k->named_joint_configurations[i];
        configs[i] = (wk_joint_configuration_desc){c->name ? c->name : "", c->joint_positions, c->n_joint_positions};
    }
    for (size_t i = 0; rc == WK_OK && i < ni; i++) {
        solvers[i].key = k->ik_solvers[i]->kinematic_solver_key;
        if ((rc = mapped(map, k->ik_solvers[i]->base_entity_id, "IK solver base entity", name, &solvers[i].base, st)) ==
            WK_OK)
            rc = mapped(map, k->ik_solvers[i]->tip_entity_id, "IK solver tip entity", name, &solvers[i].tip, st);
    }
    for (size_t i = 0; rc == WK_OK && i < nf; i++)
        rc = mapped(map, k->iso_flange_frames[i] ? k->iso_flange_frames[i]->id : NULL, "flange frame", name,
                    &flanges[i], st);
    if (rc == WK_OK && nc)
        rc = wk_scene_update_joint_configurations(s, object, NULL, 0, configs, nc, st);
    if (rc == WK_OK && ni)
        rc = wk_scene_set_ik_solvers(s, object, solvers, ni, st);
    if (rc == WK_OK && nf)
        rc = wk_scene_set_flange_frames(s, object, flanges, nf, st);
    if (rc == WK_OK)
        rc = wk__ows_set_limits_and_payload(s, object, k->cartesian_limits, k->mounted_payload, st);
    free(configs);
    free(solvers);
    free(flanges);
    return rc;
}

int wk__snapshot_kinematics(wk_scene *s, const IntrinsicProto__World__World *world, const wk__id_map *map,
                            wk_status *st)
{
    int rc = WK_OK;
    for (size_t i = 0; rc == WK_OK && i < world->n_objects; i++) {
        const IntrinsicProto__World__Object *o = world->objects[i];
        if (!o->has_type || o->type != INTRINSIC_PROTO__WORLD__OBJECT_TYPE__KINEMATIC_OBJECT)
            continue;
        const char *name = o->name ? o->name : "";
        wk_entity object = wk__id_map_lookup(map, o->id);
        if ((rc = make_joints(s, map, o->kinematic_object_component, object, name, st)) == WK_OK &&
            o->kinematic_object_component)
            rc = make_kinematic_props(s, map, o->kinematic_object_component, object, name, st);
    }
    return rc;
}

/* ---- collision settings ----------------------------------------------- */

/* What the references of a snapshot's collision rules become: copies made
 * in the call, each id the snapshot holds replaced by the new world's. */
typedef struct remap {
    wk_scene *s;
    wk__call *call;
    const wk__id_map *map;
    bool failed;
} remap;

static void *copy_of(remap *r, const void *msg, size_t size)
{
    void *copy = msg ? wk__call_alloc(r->call, size) : NULL;
    if (copy)
        memcpy(copy, msg, size);
    r->failed |= msg && !copy;
    return copy;
}

/* The new world's id for id (its object's id when object), or id itself
 * when the snapshot does not hold it: the resolver then names it. */
static char *new_id(remap *r, char *id, bool object)
{
    wk_entity e = wk__id_map_lookup(r->map, id);
    if (!e)
        return id;
    char buf[WK_ID_MAX];
    if (object)
        wk_scene_object_id(r->s, e, buf);
    else
        wk_scene_entity_id(r->s, e, buf);
    char *copy = wk__call_strdup(r->call, buf);
    r->failed |= !copy;
    return copy;
}

static IntrinsicProto__World__ObjectReference *object_ref(remap *r, const IntrinsicProto__World__ObjectReference *m)
{
    IntrinsicProto__World__ObjectReference *c = copy_of(r, m, sizeof *m);
    if (c && c->object_reference_case == INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE__OBJECT_REFERENCE_ID)
        c->id = new_id(r, c->id, true);
    return c;
}

static IntrinsicProto__World__EntityReference *entity_ref(remap *r, const IntrinsicProto__World__EntityReference *m)
{
    IntrinsicProto__World__EntityReference *c = copy_of(r, m, sizeof *m);
    if (c && c->entity_reference_case == INTRINSIC_PROTO__WORLD__ENTITY_REFERENCE__ENTITY_REFERENCE_ID)
        c->id = new_id(r, c->id, false);
    return c;
}

static IntrinsicProto__World__ObjectReferenceWithEntityFilter *
filtered_ref(remap *r, const IntrinsicProto__World__ObjectReferenceWithEntityFilter *m)
{
    IntrinsicProto__World__ObjectReferenceWithEntityFilter *c = copy_of(r, m, sizeof *m);
    if (!c)
        return NULL;
    c->reference = object_ref(r, m->reference);
    IntrinsicProto__World__ObjectEntityFilter *f = c->entity_filter = copy_of(r, m->entity_filter, sizeof *f);
    size_t n = f ? f->n_entity_references : 0;
    IntrinsicProto__World__EntityReference **refs = n ? wk__call_alloc(r->call, n * sizeof *refs) : NULL;
    r->failed |= n && !refs;
    for (size_t i = 0; refs && i < n; i++)
        refs[i] = entity_ref(r, m->entity_filter->entity_references[i]);
    if (f)
        f->entity_references = refs;
    return c;
}

static IntrinsicProto__World__ObjectOrEntityReference **members(remap *r,
                                                                IntrinsicProto__World__ObjectOrEntityReference **list,
                                                                size_t n)
{
    IntrinsicProto__World__ObjectOrEntityReference **out = n ? wk__call_alloc(r->call, n * sizeof *out) : NULL;
    r->failed |= n && !out;
    for (size_t i = 0; out && i < n; i++) {
        IntrinsicProto__World__ObjectOrEntityReference *c = out[i] = copy_of(r, list[i], sizeof *c);
        if (!c)
            continue;
        if (c->type_case == INTRINSIC_PROTO__WORLD__OBJECT_OR_ENTITY_REFERENCE__TYPE_OBJECT)
            c->object = object_ref(r, c->object);
        else if (c->type_case == INTRINSIC_PROTO__WORLD__OBJECT_OR_ENTITY_REFERENCE__TYPE_ENTITY)
            c->entity = entity_ref(r, c->entity);
        else if (c->type_case == INTRINSIC_PROTO__WORLD__OBJECT_OR_ENTITY_REFERENCE__TYPE_OBJECT_WITH_FILTER)
            c->object_with_filter = filtered_ref(r, c->object_with_filter);
    }
    return out;
}

int wk__snapshot_collisions(wk_scene *s, wk__call *call, const IntrinsicProto__World__CollisionSettings *msg,
                            const wk__id_map *map, wk_status *st)
{
    remap r = {.s = s, .call = call, .map = map};
    IntrinsicProto__World__CollisionSettings *c = copy_of(&r, msg, sizeof *msg);
    size_t n = c ? c->n_collision_rules : 0;
    IntrinsicProto__World__CollisionSettings__CollisionRule **rules = n ? wk__call_alloc(call, n * sizeof *rules) : NULL;
    r.failed |= n && !rules;
    for (size_t i = 0; rules && i < n; i++) {
        IntrinsicProto__World__CollisionSettings__CollisionRule *rule = rules[i] =
            copy_of(&r, msg->collision_rules[i], sizeof *rule);
        if (rule) {
            rule->left = members(&r, rule->left, rule->n_left);
            rule->right = members(&r, rule->right, rule->n_right);
        }
    }
    if (r.failed || !c)
        return wk_fail(st, WK_NOMEM, "out of memory reading the snapshot's collision settings");
    c->collision_rules = rules;
    wk_collision_settings settings;
    int rc = wk__ows_collision_settings_in(s, call, c, &settings, st);
    if (rc == WK_OK)
        rc = wk_scene_set_collision_settings(s, &settings, st);
    return rc ? wk__ows_context(st, rc, "CreateWorld: collision settings") : WK_OK;
}
