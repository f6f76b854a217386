/* scene_object.c — CreateObject's create_from_scene_object: a SceneObject's
 * tree of entities made into an object. The root entity (the one without a
 * parent_name) is a link and becomes the object's base entity; every other
 * link is added below its parent link or joint, every frame below its
 * parent link or frame, each at its parent_t_this, with its geometry
 * (primitives and mesh references, as geometry.c reads them) and physics.
 * A joint hangs below its parent link, posed by its kinematics_component
 * (parent_t_inboard moved by raw_value along or about its axis, as
 * CreateWorld poses a snapshot's joints; its parent_t_this is not read);
 * when one of them is revolute or prismatic the object is a
 * KINEMATIC_OBJECT whose degrees of freedom are those joints, in the
 * message's order, unlimited (a SceneObject's joints carry no limits;
 * UpdateObjectJoints sets them). What worldkit cannot keep from the message
 * (sensors, the object's properties, simulation spec and collision rules,
 * the spec's string user data) is refused before anything is made, naming
 * the field; the caller's batch undoes the object when a later entity
 * fails. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/ows/edit.h"

typedef IntrinsicProto__SceneObject__V1__Entity scene_entity;

/* What an entity of the message is; NULL when worldkit keeps it. */
static const char *unsupported_type(const scene_entity *en)
{
    switch (en->entity_type_case) {
    case INTRINSIC_PROTO__SCENE_OBJECT__V1__ENTITY__ENTITY_TYPE_LINK:
    case INTRINSIC_PROTO__SCENE_OBJECT__V1__ENTITY__ENTITY_TYPE_FRAME:
        return NULL;
    case INTRINSIC_PROTO__SCENE_OBJECT__V1__ENTITY__ENTITY_TYPE_JOINT:
        return en->joint->kinematics_component ? NULL : "a joint without a kinematics_component";
    case INTRINSIC_PROTO__SCENE_OBJECT__V1__ENTITY__ENTITY_TYPE_SENSOR:
        return "a sensor";
    default:
        return "of no entity_type";
    }
}

static const char *entity_name(const scene_entity *en)
{
    return en->name ? en->name : "";
}

static bool has_parent(const scene_entity *en)
{
    return en->parent_name && *en->parent_name;
}

/* Everything refused before anything is made; *root is the root entity's
 * index. */
static int check_spec(wk__ows_edit *e, const char *name, const IntrinsicProto__World__ObjectSpecFromSceneObject *spec,
                      size_t *root)
{
    const IntrinsicProto__SceneObject__V1__SceneObject *so = spec->scene_object;
    const char *field = !so                   ? NULL
                        : spec->n_user_data   ? "create_from_scene_object.user_data"
                        : so->properties      ? "scene_object.properties"
                        : so->simulation_spec ? "scene_object.simulation_spec"
                        : so->collision_rules ? "scene_object.collision_rules"
                                              : NULL;
    if (!so)
        return wk_fail(e->st, WK_INVALID, "CreateObject '%s': create_from_scene_object.scene_object is not set", name);
    if (field)
        return wk_fail(e->st, WK_UNSUPPORTED, "CreateObject '%s': %s is not supported", name, field);
    size_t roots = 0;
    for (size_t i = 0; i < so->n_entities; i++) {
        const scene_entity *en = so->entities[i];
        const char *why = unsupported_type(en);
        if (why)
            return wk_fail(e->st, WK_UNSUPPORTED, "CreateObject '%s': scene_object.entities['%s'] is %s", name,
                           entity_name(en), why);
        if (!has_parent(en) && roots++ == 0)
            *root = i;
    }
    if (roots != 1)
        return wk_fail(e->st, WK_INVALID,
                       "CreateObject '%s': scene_object has %zu root entities (without parent_name), not 1", name,
                       roots);
    if (so->entities[*root]->entity_type_case != INTRINSIC_PROTO__SCENE_OBJECT__V1__ENTITY__ENTITY_TYPE_LINK)
        return wk_fail(e->st, WK_UNSUPPORTED,
                       "CreateObject '%s': scene_object's root entity '%s' is a frame: worldkit's objects start at a "
                       "link",
                       name, entity_name(so->entities[*root]));
    return WK_OK;
}

/* A link's geometry and physics into desc-shaped pointers; both optional. */
static int link_parts(wk__ows_edit *e, const IntrinsicProto__SceneObject__V1__Link *link, wk_scene_geometry *geometry,
                      const char **uri, bool *has_geometry, wk_physics *physics, bool *has_physics)
{
    int rc = WK_OK;
    *has_geometry = link->geometry_component != NULL;
    *has_physics = link->physics_component != NULL;
    if (*has_geometry)
        rc = wk__ows_geometry_in(e->call, link->geometry_component, geometry, uri, e->st);
    if (rc == WK_OK && *has_physics)
        rc = wk__ows_physics_in(link->physics_component, physics, e->st);
    return rc;
}

/* An entity by name, for the lookup of parents. */
typedef struct named {
    const char *name;
    size_t index;
} named;

static int compare_names(const void *a, const void *b)
{
    return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* Makes en below parent (a frame or not). */
static int make_one(wk__ows_edit *e, const scene_entity *en, wk_entity parent, bool parent_is_frame, wk_entity *out)
{
    wk_pose parent_t_this = wk_pose_identity();
    int rc = en->parent_t_this ? wk__ows_pose_checked(en->parent_t_this, "parent_t_this", &parent_t_this, e->st)
                               : WK_OK;
    if (rc)
        return rc;
    if (en->entity_type_case == INTRINSIC_PROTO__SCENE_OBJECT__V1__ENTITY__ENTITY_TYPE_FRAME) {
        /* A frame's pose is in its parent frame, or in the object's base
         * entity when it hangs from a link. */
        wk_pose pose = parent_is_frame ? parent_t_this
                                       : wk_pose_compose(wk_pose_relative(wk_scene_pose(e->scene, e->node),
                                                                          wk_scene_pose(e->scene, parent)),
                                                         parent_t_this);
        wk_frame_desc desc = {.name = entity_name(en), .parent = parent, .pose = pose,
                              .is_attachment_frame = en->frame->has_is_attachment_frame &&
                                                     en->frame->is_attachment_frame};
        return wk_scene_create_frame(e->scene, &desc, out, e->st);
    }
    if (en->entity_type_case == INTRINSIC_PROTO__SCENE_OBJECT__V1__ENTITY__ENTITY_TYPE_JOINT) {
        wk_kinematics kin = wk__ows_kinematics_in(en->joint->kinematics_component);
        wk_entity_desc desc = {.name = entity_name(en), .parent = parent, .kinematics = &kin};
        return wk_scene_add_entity(e->scene, &desc, out, e->st);
    }
    wk_scene_geometry geometry;
    wk_physics physics;
    const char *uri = NULL;
    bool has_geometry, has_physics;
    if ((rc = link_parts(e, en->link, &geometry, &uri, &has_geometry, &physics, &has_physics)))
        return rc;
    wk_entity_desc desc = {.name = entity_name(en), .parent = parent, .parent_t_this = parent_t_this,
                           .geometry = has_geometry ? &geometry : NULL, .uri = uri,
                           .physics = has_physics ? &physics : NULL};
    return wk_scene_add_entity(e->scene, &desc, out, e->st);
}

/* Makes every entity but the root (the base entity), each after its
 * parent, made[i] being entity i's: a walk up from each entity to the first made ancestor, made on
 * the way back down, so each entity is visited once whatever the order. */
static int make_entities(wk__ows_edit *e, const char *name, const IntrinsicProto__SceneObject__V1__SceneObject *so,
                         size_t root, wk_entity *made)
{
    size_t n = so->n_entities;
    named *sorted = wk__call_alloc(e->call, n * sizeof *sorted);
    size_t *chain = wk__call_alloc(e->call, n * sizeof *chain);
    uint8_t *state = wk__call_alloc(e->call, n); /* 0 to make, 1 on the walk, 2 made */
    if (!sorted || !chain || !state)
        return wk_fail(e->st, WK_NOMEM, "out of memory creating object '%s'", name);
    for (size_t i = 0; i < n; i++)
        sorted[i] = (named){entity_name(so->entities[i]), i};
    qsort(sorted, n, sizeof *sorted, compare_names);
    for (size_t i = 1; i < n; i++)
        if (strcmp(sorted[i - 1].name, sorted[i].name) == 0)
            return wk_fail(e->st, WK_INVALID, "CreateObject '%s': scene_object names two entities '%s'", name,
                           sorted[i].name);
    memset(state, 0, n);
    made[root] = e->node;
    state[root] = 2;
    for (size_t i = 0; i < n; i++) {
        size_t depth = 0, at = i;
        while (state[at] == 0) {
            state[at] = 1;
            chain[depth++] = at;
            const named key = {so->entities[at]->parent_name, 0};
            const named *found = bsearch(&key, sorted, n, sizeof *sorted, compare_names);
            if (!found)
                return wk_fail(e->st, WK_INVALID,
                               "CreateObject '%s': entity '%s' names parent '%s', which is not in the scene_object",
                               name, entity_name(so->entities[at]), key.name);
            at = found->index;
        }
        if (state[at] == 1)
            return wk_fail(e->st, WK_INVALID, "CreateObject '%s': the parents of entity '%s' lead back to it", name,
                           entity_name(so->entities[at]));
        while (depth--) {
            size_t c = chain[depth];
            bool frame_parent = so->entities[at]->entity_type_case ==
                                INTRINSIC_PROTO__SCENE_OBJECT__V1__ENTITY__ENTITY_TYPE_FRAME;
            int rc = make_one(e, so->entities[c], made[at], frame_parent, &made[c]);
            if (rc)
                return wk__ows_context(e->st, rc, "CreateObject '%s': scene_object.entities['%s']", name,
                                       entity_name(so->entities[c]));
            state[c] = 2;
            at = c;
        }
    }
    return WK_OK;
}

/* Makes the object kinematic when the message holds a moving joint: its
 * moving joints (made[i] for entity i), in the message's order, without
 * limits. */
static int make_kinematic(wk__ows_edit *e, const char *name, const IntrinsicProto__SceneObject__V1__SceneObject *so,
                          const wk_entity *made)
{
    size_t n = 0;
    wk_entity *joints = wk__call_alloc(e->call, so->n_entities * sizeof *joints);
    wk_joint_limit *limits = wk__call_alloc(e->call, so->n_entities * sizeof *limits);
    if (!joints || !limits)
        return wk_fail(e->st, WK_NOMEM, "out of memory creating object '%s'", name);
    for (size_t i = 0; i < so->n_entities; i++) {
        const wk_kinematics *k = wk_scene_kinematics(e->scene, made[i]);
        if (k && (k->motion == WK_JOINT_MOTION_REVOLUTE || k->motion == WK_JOINT_MOTION_PRISMATIC)) {
            limits[n] = (wk_joint_limit){-INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, 0};
            joints[n++] = made[i];
        }
    }
    return n ? wk_scene_make_kinematic(e->scene, e->node, joints, limits, limits, n, e->st) : WK_OK;
}

int wk__ows_create_scene_object(wk__ows_edit *e, const IntrinsicProto__World__ObjectSpecFromSceneObject *spec,
                                wk_object_desc *desc)
{
    const char *name = desc->name;
    size_t root = 0;
    int rc = check_spec(e, name, spec, &root);
    if (rc)
        return rc;
    const IntrinsicProto__SceneObject__V1__SceneObject *so = spec->scene_object;
    const scene_entity *base = so->entities[root];
    wk_scene_geometry geometry;
    wk_physics physics;
    bool has_geometry, has_physics;
    if ((rc = link_parts(e, base->link, &geometry, &desc->uri, &has_geometry, &physics, &has_physics)))
        return wk__ows_context(e->st, rc, "CreateObject '%s': scene_object.entities['%s']", name, entity_name(base));
    desc->entity_name = entity_name(base);
    desc->geometry = has_geometry ? &geometry : NULL;
    if (has_physics)
        desc->physics = &physics;
    wk_entity *made = wk__call_alloc(e->call, so->n_entities * sizeof *made);
    if (!made)
        return wk_fail(e->st, WK_NOMEM, "out of memory creating object '%s'", name);
    if ((rc = wk_scene_create_object(e->scene, desc, &e->node, e->st)) ||
        (rc = make_entities(e, name, so, root, made)))
        return rc;
    return make_kinematic(e, name, so, made);
}
