/* frames.c — ObjectWorldService's frame mutations and UpdateTransform as
 * wk_scene calls: CreateFrame, DeleteFrame, UpdateFrameName, ReparentFrame,
 * UpdateFrameProperties, and UpdateTransform on objects and frames alike
 * (refused, under physics, for an object the engine places from a joint).
 * Each runs inside its caller's batch (batch.c). */
#include "api/ows/edit.h"

/* The name a frame request gives for messages: its frame name, or its id. */
static const char *frame_hint(const IntrinsicProto__World__FrameReference *ref)
{
    if (!ref)
        return "";
    if (ref->frame_reference_case == INTRINSIC_PROTO__WORLD__FRAME_REFERENCE__FRAME_REFERENCE_BY_NAME && ref->by_name &&
        ref->by_name->frame_name)
        return ref->by_name->frame_name;
    return ref->frame_reference_case == INTRINSIC_PROTO__WORLD__FRAME_REFERENCE__FRAME_REFERENCE_ID && ref->id ? ref->id
                                                                                                              : "";
}

int wk__ows_create_frame(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__CreateFrameRequest *req = (const void *)request;
    const char *name = req->new_frame_name ? req->new_frame_name : "";
    wk_frame_desc desc = {
        .name = name,
        .is_attachment_frame = req->has_designate_as_attachment_frame && req->designate_as_attachment_frame,
    };
    int rc;
    switch (req->attach_to_case) {
    case INTRINSIC_PROTO__WORLD__CREATE_FRAME_REQUEST__ATTACH_TO_PARENT_OBJECT:
        /* The frame hangs from the object's base entity. */
        rc = wk__ows_find_object(e->scene, req->parent_object, &desc.parent, e->st);
        break;
    case INTRINSIC_PROTO__WORLD__CREATE_FRAME_REQUEST__ATTACH_TO_PARENT_FRAME:
        rc = wk__ows_find_frame(e->scene, req->parent_frame, &desc.parent, e->st);
        break;
    case INTRINSIC_PROTO__WORLD__CREATE_FRAME_REQUEST__ATTACH_TO_PARENT_OBJECT_WITH_FILTER:
        /* The one entity the filter picks; without a filter, the base
         * entity, as parent_object does. The pose stays relative to the
         * object's base either way. */
        rc = wk__ows_attach_parent(e, req->parent_object_with_filter, NULL, &desc.parent);
        break;
    default:
        return wk_fail(e->st, WK_INVALID,
                       "CreateFrame '%s': attach_to is not set (parent_object, parent_frame or "
                       "parent_object_with_filter)",
                       name);
    }
    if (rc == WK_OK && req->parent_t_new_frame)
        rc = wk__ows_pose_checked(req->parent_t_new_frame, "parent_t_new_frame", &desc.pose, e->st);
    if (rc)
        return wk__ows_context(e->st, rc, "CreateFrame '%s'", name);
    return wk_scene_create_frame(e->scene, &desc, &e->node, e->st);
}

int wk__ows_delete_frame(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__DeleteFrameRequest *req = (const void *)request;
    wk_entity frame;
    int rc = wk__ows_find_frame(e->scene, req->frame, &frame, e->st);
    return rc ? rc : wk_scene_delete_frame(e->scene, frame, req->has_force && req->force, e->st);
}

int wk__ows_update_frame_name(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__UpdateFrameNameRequest *req = (const void *)request;
    int rc = wk__ows_find_frame(e->scene, req->frame, &e->node, e->st);
    return rc ? rc : wk_scene_rename(e->scene, e->node, req->name ? req->name : "", false, e->st);
}

int wk__ows_reparent_frame(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__ReparentFrameRequest *req = (const void *)request;
    int rc = wk__ows_find_frame(e->scene, req->frame, &e->node, e->st);
    if (rc)
        return rc;
    bool object = req->attach_to_case == INTRINSIC_PROTO__WORLD__REPARENT_FRAME_REQUEST__ATTACH_TO_PARENT_OBJECT;
    bool frame = req->attach_to_case == INTRINSIC_PROTO__WORLD__REPARENT_FRAME_REQUEST__ATTACH_TO_PARENT_FRAME;
    wk_entity parent;
    rc = wk__ows_attach_parent(e, object ? req->parent_object : NULL, frame ? req->parent_frame : NULL, &parent);
    if (rc)
        return wk__ows_context(e->st, rc, "ReparentFrame '%s'", frame_hint(req->frame));
    return wk_scene_reparent(e->scene, e->node, parent, e->st);
}

int wk__ows_update_frame_properties(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__UpdateFramePropertiesRequest *req = (const void *)request;
    int rc = wk__ows_find_frame(e->scene, req->frame, &e->node, e->st);
    if (rc || !req->is_attachment_frame)
        return rc;
    return wk_scene_set_attachment_frame(e->scene, e->node, req->is_attachment_frame->value, e->st);
}

int wk__ows_update_transform(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__UpdateTransformRequest *req = (const void *)request;
    e->pose_only = true;
    wk_entity a, b, update = WK_NULL_ENTITY;
    wk_pose a_T_b;
    int rc = wk__ows_find_node_entity(e->scene, e->call, req->node_a, req->node_a_filter, &a, e->st);
    if (rc)
        return wk__ows_context(e->st, rc, "UpdateTransform: node_a");
    if ((rc = wk__ows_find_node_entity(e->scene, e->call, req->node_b, req->node_b_filter, &b, e->st)))
        return wk__ows_context(e->st, rc, "UpdateTransform: node_b");
    if (req->node_to_update && (rc = wk__ows_find_node(e->scene, req->node_to_update, &update, e->st)))
        return wk__ows_context(e->st, rc, "UpdateTransform: node_to_update");
    if (!req->a_t_b)
        return wk_fail(e->st, WK_INVALID, "UpdateTransform: a_t_b is not set");
    if ((rc = wk__ows_pose_checked(req->a_t_b, "a_t_b", &a_T_b, e->st)))
        return wk__ows_context(e->st, rc, "UpdateTransform");
    /* The reply shows the node that moves: the one named, or the child of
     * the two neighbours, by the scene's own rule. */
    if (!update)
        update = wk_scene_transform_child(e->scene, a, b);
    /* Under physics, an object the engine places from a joint is refused
     * as SetEntityState refuses it: the same check, the same words. */
    if (e->engine && update && update != wk_scene_root(e->scene) && wk_scene_is_object(e->scene, update) &&
        (rc = wk_sim_may_place(e->engine, update, wk_scene_local_name(e->scene, update), e->st)))
        return wk__ows_context(e->st, rc, "UpdateTransform");
    if ((rc = wk_scene_update_transform(e->scene, a, b, update, a_T_b, e->st)))
        return wk__ows_context(e->st, rc, "UpdateTransform");
    e->node = update;
    return WK_OK;
}
