/* refs.c — ObjectWorldService's references resolved against a scene:
 * objects, frames and transform nodes by id or by name, objects by full
 * path, entities by id, entity filters, and the members of collision rules.
 * The scene does the finding (wk_scene_find_*, wk_scene_filter); this file
 * only reads the messages' oneofs into its vocabulary and names, in each
 * error, what the request looked for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ows/ows.h"

static bool empty(const char *s)
{
    return !s || !*s;
}

int wk__ows_object_wkref(const IntrinsicProto__World__ObjectReference *msg, wk_ref *out, wk_status *st)
{
    *out = (wk_ref){0};
    if (msg && msg->object_reference_case == INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE__OBJECT_REFERENCE_ID &&
        !empty(msg->id))
        out->id = msg->id;
    else if (msg && msg->object_reference_case == INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE__OBJECT_REFERENCE_BY_NAME &&
             msg->by_name && !empty(msg->by_name->object_name))
        out->object_name = msg->by_name->object_name;
    else
        return wk_fail(st, WK_INVALID, "the object reference%s%s holds neither an id nor a name",
                       msg && !empty(msg->debug_hint) ? " " : "", msg && !empty(msg->debug_hint) ? msg->debug_hint : "");
    return WK_OK;
}

int wk__ows_find_object(const wk_scene *s, const IntrinsicProto__World__ObjectReference *msg, wk_entity *out,
                        wk_status *st)
{
    wk_ref ref;
    int rc = wk__ows_object_wkref(msg, &ref, st);
    return rc ? rc : wk_scene_find_object(s, &ref, out, st);
}

int wk__ows_frame_wkref(const IntrinsicProto__World__FrameReference *msg, wk_ref *out, wk_status *st)
{
    *out = (wk_ref){0};
    if (msg && msg->frame_reference_case == INTRINSIC_PROTO__WORLD__FRAME_REFERENCE__FRAME_REFERENCE_ID &&
        !empty(msg->id)) {
        out->id = msg->id;
        return WK_OK;
    }
    if (msg && msg->frame_reference_case == INTRINSIC_PROTO__WORLD__FRAME_REFERENCE__FRAME_REFERENCE_BY_NAME &&
        msg->by_name) {
        /* An empty object name is left for the scene to refuse, naming the frame. */
        out->object_name = msg->by_name->object_name;
        out->frame_name = msg->by_name->frame_name;
        if (!empty(out->frame_name))
            return WK_OK;
    }
    return wk_fail(st, WK_INVALID, "the frame reference%s%s needs an id, or an object name and a frame name",
                   msg && !empty(msg->debug_hint) ? " " : "", msg && !empty(msg->debug_hint) ? msg->debug_hint : "");
}

int wk__ows_find_frame(const wk_scene *s, const IntrinsicProto__World__FrameReference *msg, wk_entity *out,
                       wk_status *st)
{
    wk_ref ref;
    int rc = wk__ows_frame_wkref(msg, &ref, st);
    return rc ? rc : wk_scene_find_frame(s, &ref, out, st);
}

int wk__ows_node_wkref(const IntrinsicProto__World__TransformNodeReference *msg, wk_ref *out, wk_status *st)
{
    *out = (wk_ref){0};
    const IntrinsicProto__World__TransformNodeReferenceByName *by_name = NULL;
    if (msg && msg->transform_node_reference_case ==
                   INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__TRANSFORM_NODE_REFERENCE_ID &&
        !empty(msg->id)) {
        out->id = msg->id;
        return WK_OK;
    }
    if (msg && msg->transform_node_reference_case ==
                   INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__TRANSFORM_NODE_REFERENCE_BY_NAME)
        by_name = msg->by_name;
    if (by_name &&
        by_name->transform_node_reference_by_name_case ==
            INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE_BY_NAME__TRANSFORM_NODE_REFERENCE_BY_NAME_OBJECT &&
        by_name->object && !empty(by_name->object->object_name)) {
        out->object_name = by_name->object->object_name;
        return WK_OK;
    }
    if (by_name &&
        by_name->transform_node_reference_by_name_case ==
            INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE_BY_NAME__TRANSFORM_NODE_REFERENCE_BY_NAME_FRAME &&
        by_name->frame && !empty(by_name->frame->object_name) && !empty(by_name->frame->frame_name)) {
        out->object_name = by_name->frame->object_name;
        out->frame_name = by_name->frame->frame_name;
        return WK_OK;
    }
    return wk_fail(st, WK_INVALID, "the transform node reference%s%s holds neither an id nor an object or frame name",
                   msg && !empty(msg->debug_hint) ? " " : "", msg && !empty(msg->debug_hint) ? msg->debug_hint : "");
}

int wk__ows_find_node(const wk_scene *s, const IntrinsicProto__World__TransformNodeReference *msg, wk_entity *out,
                      wk_status *st)
{
    wk_ref ref;
    int rc = wk__ows_node_wkref(msg, &ref, st);
    return rc ? rc : wk_scene_find_node(s, &ref, out, st);
}

int wk__ows_find_path(const wk_scene *s, const IntrinsicProto__World__ObjectFullPath *msg, wk_entity *out,
                      wk_status *st)
{
    if (!msg)
        return wk_fail(st, WK_INVALID, "no object full path given");
    for (size_t i = 0; i < msg->n_object_names; i++)
        if (empty(msg->object_names[i]))
            return wk_fail(st, WK_INVALID, "object full path: name %zu is empty", i);
    return wk_scene_find_object_path(s, (const char *const *)msg->object_names, msg->n_object_names, out, st);
}

int wk__ows_find_entity(const wk_scene *s, const IntrinsicProto__World__EntityReference *msg, wk_entity *out,
                        wk_status *st)
{
    if (!msg || msg->entity_reference_case != INTRINSIC_PROTO__WORLD__ENTITY_REFERENCE__ENTITY_REFERENCE_ID ||
        empty(msg->id))
        return wk_fail(st, WK_INVALID, "the entity reference holds no id");
    /* Ids are "eid_root" or "eid_<entity>": read the number, then require
     * that the entity's own id is exactly the one given, so that one format
     * (the scene's) decides what is well formed. */
    wk_entity e = WK_NULL_ENTITY;
    if (strcmp(msg->id, "eid_root") == 0) {
        e = wk_scene_root(s);
    } else if (strncmp(msg->id, "eid_", 4) == 0 && msg->id[4] >= '1' && msg->id[4] <= '9') {
        char *end;
        e = (wk_entity)strtoull(msg->id + 4, &end, 10);
        if (*end)
            e = WK_NULL_ENTITY;
    }
    char id[WK_ID_MAX] = "";
    if (e && wk_ecm_exists(wk_scene_ecm((wk_scene *)s), e))
        wk_scene_entity_id(s, e, id);
    if (!e || strcmp(id, msg->id) != 0 || !wk_scene_object_of(s, e))
        return wk_fail(st, WK_NOT_FOUND, "no entity with id '%s'", msg->id);
    *out = e;
    return WK_OK;
}

int wk__ows_filter(wk__call *call, const IntrinsicProto__World__ObjectEntityFilter *msg, wk_entity_filter *out,
                   wk_status *st)
{
    *out = (wk_entity_filter){0};
    if (!msg)
        return WK_OK;
    out->base = msg->include_base_entity;
    out->final = msg->include_final_entity;
    out->all = msg->include_all_entities;
    out->names = (const char *const *)msg->entity_names;
    out->name_count = msg->n_entity_names;
    if (msg->n_entity_references) {
        const char **ids = wk__call_alloc(call, msg->n_entity_references * sizeof *ids);
        if (!ids)
            return wk_fail(st, WK_NOMEM, "out of memory reading an entity filter");
        for (size_t i = 0; i < msg->n_entity_references; i++) {
            const IntrinsicProto__World__EntityReference *r = msg->entity_references[i];
            if (!r || r->entity_reference_case != INTRINSIC_PROTO__WORLD__ENTITY_REFERENCE__ENTITY_REFERENCE_ID ||
                empty(r->id))
                return wk_fail(st, WK_INVALID, "entity filter: entity reference %zu holds no id", i);
            ids[i] = r->id;
        }
        out->ids = ids;
        out->id_count = msg->n_entity_references;
    }
    return WK_OK;
}

int wk__ows_find_filtered(const wk_scene *s, wk__call *call,
                          const IntrinsicProto__World__ObjectReferenceWithEntityFilter *msg, wk_entity *object,
                          wk_entity_list *entities, wk_status *st)
{
    if (!msg)
        return wk_fail(st, WK_INVALID, "no object reference with entity filter given");
    wk_entity o;
    wk_entity_filter filter;
    int rc = wk__ows_find_object(s, msg->reference, &o, st);
    if (rc == WK_OK)
        rc = wk__ows_filter(call, msg->entity_filter, &filter, st);
    if (rc == WK_OK && entities)
        rc = wk_scene_filter(s, o, &filter, entities, st);
    if (rc == WK_OK && object)
        *object = o;
    return rc;
}

int wk__ows_find_filtered_one(const wk_scene *s, wk__call *call,
                              const IntrinsicProto__World__ObjectReferenceWithEntityFilter *msg, wk_entity *out,
                              wk_status *st)
{
    wk_entity object;
    wk_entity_filter filter;
    int rc = wk__ows_find_filtered(s, call, msg, &object, NULL, st);
    if (rc == WK_OK)
        rc = wk__ows_filter(call, msg->entity_filter, &filter, st);
    return rc ? rc : wk_scene_filter_one(s, object, &filter, out, st);
}

int wk__ows_find_node_entity(const wk_scene *s, wk__call *call,
                             const IntrinsicProto__World__TransformNodeReference *node,
                             const IntrinsicProto__World__ObjectEntityFilter *filter, wk_entity *out, wk_status *st)
{
    wk_entity e;
    int rc = wk__ows_find_node(s, node, &e, st);
    if (rc || !filter) {
        if (rc == WK_OK)
            *out = e;
        return rc;
    }
    if (!wk_scene_is_object(s, e)) {
        const char *name = wk_scene_name(s, e);
        return wk_fail(st, WK_INVALID, "an entity filter applies to an object, and '%s' is a frame", name ? name : "");
    }
    wk_entity_filter f;
    rc = wk__ows_filter(call, filter, &f, st);
    return rc ? rc : wk_scene_filter_one(s, e, &f, out, st);
}

int wk__ows_find_node_pair(const wk_scene *s, wk__call *call, const IntrinsicProto__World__TransformNodeReference *a,
                           const IntrinsicProto__World__ObjectEntityFilter *a_filter,
                           const IntrinsicProto__World__TransformNodeReference *b,
                           const IntrinsicProto__World__ObjectEntityFilter *b_filter, wk_entity out[2], wk_status *st)
{
    wk_ref refs[2];
    if (!a_filter && !b_filter && !wk__ows_node_wkref(a, &refs[0], NULL) && !wk__ows_node_wkref(b, &refs[1], NULL))
        return wk_scene_find_nodes(s, refs, 2, out, st);
    /* One after the other, so that a's failure, filters included, is the
     * one reported. */
    int rc = wk__ows_find_node_entity(s, call, a, a_filter, &out[0], st);
    return rc ? rc : wk__ows_find_node_entity(s, call, b, b_filter, &out[1], st);
}

/* Appends one collision ref to *refs. */
static int push_ref(wk_collision_ref **refs, size_t *count, wk_entity e, bool whole, wk_status *st)
{
    wk_collision_ref *grown = realloc(*refs, (*count + 1) * sizeof *grown);
    if (!grown)
        return wk_fail(st, WK_NOMEM, "out of memory reading a collision rule");
    grown[(*count)++] = (wk_collision_ref){.entity = e, .whole_object = whole};
    *refs = grown;
    return WK_OK;
}

int wk__ows_collision_refs(const wk_scene *s, wk__call *call,
                           const IntrinsicProto__World__ObjectOrEntityReference *msg, wk_collision_ref **refs,
                           size_t *count, wk_status *st)
{
    wk_entity e;
    int rc;
    switch (msg ? msg->type_case : INTRINSIC_PROTO__WORLD__OBJECT_OR_ENTITY_REFERENCE__TYPE__NOT_SET) {
    case INTRINSIC_PROTO__WORLD__OBJECT_OR_ENTITY_REFERENCE__TYPE_OBJECT:
        rc = wk__ows_find_object(s, msg->object, &e, st);
        return rc ? rc : push_ref(refs, count, e, true, st);
    case INTRINSIC_PROTO__WORLD__OBJECT_OR_ENTITY_REFERENCE__TYPE_ENTITY:
        rc = wk__ows_find_entity(s, msg->entity, &e, st);
        return rc ? rc : push_ref(refs, count, e, false, st);
    case INTRINSIC_PROTO__WORLD__OBJECT_OR_ENTITY_REFERENCE__TYPE_OBJECT_WITH_FILTER: {
        wk_entity_list list = {0};
        rc = wk__ows_find_filtered(s, call, msg->object_with_filter, NULL, &list, st);
        for (size_t i = 0; rc == WK_OK && i < list.count; i++)
            rc = push_ref(refs, count, list.items[i], false, st);
        wk_entity_list_free(&list);
        return rc;
    }
    default:
        return wk_fail(st, WK_INVALID, "the object or entity reference holds neither");
    }
}

wk_pose wk__ows_pose_in(const IntrinsicProto__Pose *msg)
{
    wk_pose pose = wk_pose_identity();
    if (msg && msg->position)
        pose.p = (wk_vec3){msg->position->x, msg->position->y, msg->position->z};
    if (msg && msg->orientation)
        pose.q = (wk_quat){msg->orientation->w, msg->orientation->x, msg->orientation->y, msg->orientation->z};
    return pose;
}
