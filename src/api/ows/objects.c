/* objects.c — ObjectWorldService's object mutations as wk_scene calls:
 * CreateObject (a single-entity physical object with default physics, or
 * one made from a SceneObject by scene_object.c; user data and a collision
 * rule for its entities), DeleteObject, UpdateObjectName,
 * ReparentObject and UpdateObjectProperties. Each runs inside its caller's
 * batch (batch.c), so a failure after a first change is undone there. */
#include <string.h>

#include "api/ows/edit.h"

/* An Intrinsic request's optional string: NULL and "" both mean "not set",
 * as a proto3 peer cannot tell them apart. */
static bool set(const char *s)
{
    return s && *s;
}

/* The physics an object created by CreateObject starts with ("a single
 * entity and some default physics parameters"): SDFormat's defaults for a
 * link and its surface (<inertial>: 1 kg, unit diagonal inertia at the
 * origin; <friction><ode>: mu = mu2 = 1; <torsional>: coefficient 1 with
 * use_patch_radius; <contact><ode>: kp 1e12, kd 1), so that an object made
 * here behaves like one read from a world file without those elements. */
static const wk_physics default_physics = {
    .mass_kg = 1,
    .this_T_com = {{0, 0, 0}, {1, 0, 0, 0}},
    .inertia = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
    .friction = {.mu = 1, .mu2 = 1},
    .torsional = {.coefficient = 1, .use_patch_radius = true},
    .contact_kp = 1e12,
    .contact_kd = 1,
};

/* The entries of a map<string, Any> field as scene user data, owned by the
 * call. Each message with such a map has its own entry type, all of them
 * {key = 1, value = 2}: read through the entry's descriptor, one function
 * serves them all. */
static int user_data_entries(wk__ows_edit *e, ProtobufCMessage *const *map, size_t n, wk_user_datum **out)
{
    *out = n ? wk__call_alloc(e->call, n * sizeof **out) : NULL;
    if (n && !*out)
        return wk_fail(e->st, WK_NOMEM, "out of memory reading user data");
    for (size_t i = 0; i < n; i++) {
        const ProtobufCMessageDescriptor *d = map[i]->descriptor;
        const ProtobufCFieldDescriptor *key = protobuf_c_message_descriptor_get_field(d, 1);
        const ProtobufCFieldDescriptor *value = protobuf_c_message_descriptor_get_field(d, 2);
        const char *k = *(char *const *)((const char *)map[i] + key->offset);
        const Google__Protobuf__Any *any = *(Google__Protobuf__Any *const *)((const char *)map[i] + value->offset);
        (*out)[i] = (wk_user_datum){
            .key = k ? k : "",
            .type_url = any ? any->type_url : NULL,
            .value = any ? any->value.data : NULL,
            .value_len = any ? any->value.len : 0,
        };
    }
    return WK_OK;
}

int wk__ows_create_object(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__CreateObjectRequest *req = (const void *)request;
    const char *name = req->name ? req->name : "";
    bool from_scene =
        req->object_spec_case == INTRINSIC_PROTO__WORLD__CREATE_OBJECT_REQUEST__OBJECT_SPEC_CREATE_FROM_SCENE_OBJECT;
    if (!from_scene &&
        req->object_spec_case != INTRINSIC_PROTO__WORLD__CREATE_OBJECT_REQUEST__OBJECT_SPEC_CREATE_SINGLE_ENTITY_OBJECT)
        return wk_fail(e->st, WK_INVALID,
                       "CreateObject '%s': object_spec is not set (create_single_entity_object or "
                       "create_from_scene_object)",
                       name);
    const IntrinsicProto__World__ObjectSpecForSingleEntityObject *spec = req->create_single_entity_object;
    if (!from_scene && !spec->geometry_component)
        return wk_fail(e->st, WK_INVALID,
                       "CreateObject '%s': create_single_entity_object has no geometry_component: a single-entity "
                       "object needs a geometry",
                       name);
    wk_scene_geometry geometry;
    const char *uri = NULL;
    int rc = from_scene ? WK_OK : wk__ows_geometry_in(e->call, spec->geometry_component, &geometry, &uri, e->st);
    if (rc)
        return wk__ows_context(e->st, rc, "CreateObject '%s'", name);

    wk_object_desc desc = {
        .name = name,
        .pose = wk_pose_identity(),
        .name_is_global_alias = req->has_name_is_global_alias && req->name_is_global_alias,
        .entity_name = !from_scene && set(spec->entity_local_name) ? spec->entity_local_name : NULL,
        .geometry = from_scene ? NULL : &geometry,
        .uri = uri,
        .physics = &default_physics,
    };
    if (req->parent_object &&
        (rc = wk__ows_find_filtered_one(e->scene, e->call, req->parent_object, &desc.parent, e->st)))
        return wk__ows_context(e->st, rc, "CreateObject '%s': parent_object", name);
    if (req->parent_object_t_created_object &&
        (rc = wk__ows_pose_checked(req->parent_object_t_created_object, "parent_object_t_created_object", &desc.pose,
                                    e->st)))
        return wk__ows_context(e->st, rc, "CreateObject '%s'", name);
    if ((rc = from_scene ? wk__ows_create_scene_object(e, req->create_from_scene_object, &desc)
                         : wk_scene_create_object(e->scene, &desc, &e->node, e->st)))
        return rc;
    const IntrinsicProto__SceneObject__V1__SceneObject *so = from_scene ? req->create_from_scene_object->scene_object
                                                                        : NULL;
    /* The SceneObject's user data, then the request's. */
    const struct {
        const char *field;
        ProtobufCMessage *const *map;
        size_t n;
    } data[2] = {
        {"scene_object.user_data", so ? (ProtobufCMessage *const *)so->user_data : NULL, so ? so->n_user_data : 0},
        {"user_data", (ProtobufCMessage *const *)req->user_data, req->n_user_data},
    };
    for (int i = 0; i < 2; i++) {
        wk_user_datum *entries;
        if (data[i].n &&
            ((rc = user_data_entries(e, data[i].map, data[i].n, &entries)) ||
             (rc = wk_scene_update_user_data(e->scene, e->node, entries, data[i].n, WK_USER_DATA_INSERT, e->st))))
            return wk__ows_context(e->st, rc, "CreateObject '%s': %s", name, data[i].field);
    }
    if (req->action_for_object_entities) {
        wk_collision_ref whole = {e->node, true};
        if ((rc = wk__ows_append_rule(e->scene, &whole, req->action_for_object_entities, e->st)))
            return wk__ows_context(e->st, rc, "CreateObject '%s': action_for_object_entities", name);
    }
    return WK_OK;
}

int wk__ows_delete_object(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__DeleteObjectRequest *req = (const void *)request;
    bool force = req->has_force && req->force;
    bool reparent = req->has_reparent_child_objects && req->reparent_child_objects;
    wk_entity object;
    int rc = wk__ows_find_object(e->scene, req->object, &object, e->st);
    if (rc)
        return rc;
    const char *name = wk_scene_object_info(e->scene, object)->name;
    if (force && reparent)
        return wk_fail(e->st, WK_INVALID, "DeleteObject '%s': force and reparent_child_objects exclude each other",
                       name);
    if (reparent && object != wk_scene_root(e->scene)) {
        /* The children move to where the object hangs, keeping their world
         * poses, before it goes; the batch undoes the moves should one fail. */
        wk_entity_list children = {0};
        wk_entity parent = wk_ecm_parent(wk_scene_ecm(e->scene), object);
        rc = wk_scene_object_children(e->scene, object, &children);
        if (rc)
            rc = wk_fail(e->st, rc, "out of memory listing the child objects of '%s'", name);
        for (size_t i = 0; rc == WK_OK && i < children.count; i++)
            if ((rc = wk_scene_reparent(e->scene, children.items[i], parent, e->st)))
                rc = wk__ows_context(e->st, rc, "DeleteObject '%s': moving child object '%s' up", name,
                             wk_scene_object_info(e->scene, children.items[i])->name);
        wk_entity_list_free(&children);
        if (rc)
            return rc;
    }
    return wk_scene_delete_object(e->scene, object, force, e->st);
}

int wk__ows_update_object_name(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__UpdateObjectNameRequest *req = (const void *)request;
    const char *name;
    int rc = wk__ows_edit_object(e, req->object, &name);
    if (rc)
        return rc;
    bool alias = req->has_name_is_global_alias && req->name_is_global_alias;
    return wk_scene_rename(e->scene, e->node, req->name ? req->name : "", alias, e->st);
}

int wk__ows_reparent_object(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__ReparentObjectRequest *req = (const void *)request;
    const char *name;
    int rc = wk__ows_edit_object(e, req->object, &name);
    if (rc)
        return rc;
    /* new_parent is parent_object's older name, read when neither member
     * of the oneof is set. */
    bool object = req->attach_to_case == INTRINSIC_PROTO__WORLD__REPARENT_OBJECT_REQUEST__ATTACH_TO_PARENT_OBJECT;
    bool frame = req->attach_to_case == INTRINSIC_PROTO__WORLD__REPARENT_OBJECT_REQUEST__ATTACH_TO_PARENT_FRAME;
    wk_entity parent;
    rc = wk__ows_attach_parent(e, object ? req->parent_object : frame ? NULL : req->new_parent,
                               frame ? req->parent_frame : NULL, &parent);
    if (rc)
        return wk__ows_context(e->st, rc, "ReparentObject '%s'", name);
    if (e->node == wk_scene_root(e->scene))
        return wk_fail(e->st, WK_INVALID, "ReparentObject: the root object cannot be reparented");
    return wk_scene_reparent(e->scene, e->node, parent, e->st);
}

int wk__ows_update_object_properties(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__UpdateObjectPropertiesRequest *req = (const void *)request;
    const char *name;
    int rc = wk__ows_edit_object(e, req->object, &name);
    if (rc)
        return rc;
    if (req->simulation_component) {
        wk_simulation_component sim = {req->simulation_component->has_is_static &&
                                       req->simulation_component->is_static};
        if ((rc = wk_scene_set_simulation(e->scene, e->node, &sim, e->st)))
            return wk__ows_context(e->st, rc, "UpdateObjectProperties '%s': simulation_component", name);
    }
    if (req->user_data) {
        const IntrinsicProto__World__UpdateUserData *u = req->user_data;
        wk_user_datum *entries;
        /* The policies have UpdateUserDataPolicy's numbers. */
        wk_user_data_policy policy = u->has_policy ? (wk_user_data_policy)u->policy : WK_USER_DATA_UNSPECIFIED;
        if ((rc = user_data_entries(e, (ProtobufCMessage *const *)u->user_data, u->n_user_data, &entries)) ||
            (rc = wk_scene_update_user_data(e->scene, e->node, entries, u->n_user_data, policy, e->st)))
            return wk__ows_context(e->st, rc, "UpdateObjectProperties '%s': user_data", name);
    }
    return WK_OK;
}
