/* read.c — ObjectWorldService's world methods and the methods that
 * read a world: GetWorld, ListWorlds, CloneWorld, DeleteWorld, SwapWorld,
 * GetObject, ListObjects, GetFrame, ListFrames, GetTransform,
 * GetCollisionSettings, CompareWorlds, and SyncObject (which writes one
 * object or frame of a world from another). Each is a thin translation:
 * the request's references resolved (refs.c), one call of the store or
 * the scene, the answer rendered (render.c). CreateWorld is
 * create_world.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ows/ows.h"

/* A world id the request must carry; field names it in the message. */
static int need_id(const char *id, const char *field, wk_status *st)
{
    return id && *id ? WK_OK : wk_fail(st, WK_INVALID, "no %s given", field);
}

int wk__ows_get_world(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    wk_status *st = call->status;
    const IntrinsicProto__World__GetWorldRequest *req = (const void *)request;
    wk_world_meta meta;
    int rc = need_id(req->world_id, "world_id", st);
    if (rc == WK_OK)
        rc = wk_store_meta(api->store, req->world_id, &meta, st);
    if (rc == WK_OK)
        *response = (ProtobufCMessage *)wk__ows_metadata(call, &meta);
    return rc;
}

int wk__ows_list_worlds(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    wk_status *st = call->status;
    (void)request;
    IntrinsicProto__World__ListWorldsResponse *resp = (void *)*response;
    wk_world_meta *metas = NULL;
    size_t n = 0;
    int rc = wk_store_list(api->store, &metas, &n);
    if (rc)
        return wk_fail(st, rc, "listing the worlds: %s", wk_strerror(rc));
    resp->world_metadatas = wk__ows_array(call, n, sizeof *resp->world_metadatas);
    for (size_t i = 0; resp->world_metadatas && i < n; i++)
        resp->world_metadatas[resp->n_world_metadatas++] = wk__ows_metadata(call, &metas[i]);
    free(metas);
    return WK_OK;
}

int wk__ows_clone_world(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    wk_status *st = call->status;
    const IntrinsicProto__World__CloneWorldRequest *req = (const void *)request;
    char id[WK_WORLD_ID_MAX];
    wk_world_meta meta;
    int rc = need_id(req->world_id, "world_id", st);
    /* user_tag is proto3 `optional`: absent keeps the source's, "" sets an
     * empty one. */
    if (rc == WK_OK)
        rc = wk_store_clone(api->store, req->world_id, req->cloned_world_id, req->allow_overwrite, req->user_tag, id,
                            st);
    if (rc == WK_OK)
        rc = wk_store_meta(api->store, id, &meta, st);
    if (rc == WK_OK)
        *response = (ProtobufCMessage *)wk__ows_metadata(call, &meta);
    return rc;
}

int wk__ows_delete_world(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)response;
    wk_status *st = call->status;
    const IntrinsicProto__World__DeleteWorldRequest *req = (const void *)request;
    int rc = need_id(req->world_id, "world_id", st);
    if (rc == WK_OK)
        rc = wk_store_delete(api->store, req->world_id, st);
    return rc;
}

int wk__ows_swap_world(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)response;
    wk_status *st = call->status;
    const IntrinsicProto__World__SwapWorldRequest *req = (const void *)request;
    int rc = need_id(req->world_id, "world_id", st);
    if (rc == WK_OK)
        rc = need_id(req->target_world_id, "target_world_id", st);
    if (rc == WK_OK)
        rc = wk_store_swap(api->store, req->world_id, req->target_world_id, st);
    return rc;
}

int wk__ows_get_object(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)api;
    wk_status *st = call->status;
    const IntrinsicProto__World__GetObjectRequest *req = (const void *)request;
    wk_entity object = WK_NULL_ENTITY;
    int rc;
    const wk_scene *s = wk_world_scene(call->world);
    switch (req->object_query_case) {
    case INTRINSIC_PROTO__WORLD__GET_OBJECT_REQUEST__OBJECT_QUERY_OBJECT:
        rc = wk__ows_find_object(s, req->object, &object, st);
        break;
    case INTRINSIC_PROTO__WORLD__GET_OBJECT_REQUEST__OBJECT_QUERY_OBJECT_FULL_PATH:
        rc = wk__ows_find_path(s, req->object_full_path, &object, st);
        break;
    case INTRINSIC_PROTO__WORLD__GET_OBJECT_REQUEST__OBJECT_QUERY_RESOURCE_HANDLE_NAME:
        /* worldkit keeps no equipment (resource handles), so no object has one. */
        rc = wk_fail(st, WK_NOT_FOUND, "no object is associated with resource '%s': worldkit keeps no resource handles",
                     req->resource_handle_name ? req->resource_handle_name : "");
        break;
    default:
        rc = wk_fail(st, WK_INVALID, "GetObject needs an object reference, a full path or a resource handle name");
    }
    if (rc == WK_OK)
        *response = (ProtobufCMessage *)wk__ows_object(call, s, req->world_id, object,
                                                       wk__ows_view_of(req->has_view, req->view));
    return rc;
}

int wk__ows_list_objects(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)api;
    wk_status *st = call->status;
    const IntrinsicProto__World__ListObjectsRequest *req = (const void *)request;
    IntrinsicProto__World__ListObjectsResponse *resp = (void *)*response;
    wk__ows_view view = wk__ows_view_of(req->has_view, req->view);
    wk_scene *s = wk_world_scene(call->world);
    int rc = WK_OK;
    /* More references than the world has entities cannot all name
     * different objects: refused, rather than answered object by object. */
    size_t entities = wk_ecm_count(wk_scene_ecm(s));
    if (!req->n_query_objects) {
        rc = wk__ows_objects(call, s, req->world_id, view, &resp->objects, &resp->n_objects);
    } else if (req->n_query_objects > entities) {
        rc = wk_fail(st, WK_INVALID, "ListObjects names %zu objects, more than world '%s' holds (%zu entities)",
                     req->n_query_objects, req->world_id, entities);
    } else {
        resp->objects = wk__ows_array(call, req->n_query_objects, sizeof *resp->objects);
        for (size_t i = 0; resp->objects && rc == WK_OK && i < req->n_query_objects; i++) {
            wk_entity object;
            rc = wk__ows_find_object(s, req->query_objects[i], &object, st);
            if (rc == WK_OK)
                resp->objects[resp->n_objects++] = wk__ows_object(call, s, req->world_id, object, view);
        }
    }
    return rc;
}

int wk__ows_get_frame(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)api;
    wk_status *st = call->status;
    const IntrinsicProto__World__GetFrameRequest *req = (const void *)request;
    wk_entity frame;
    int rc = wk__ows_find_frame(wk_world_scene(call->world), req->frame, &frame, st);
    if (rc == WK_OK)
        *response = (ProtobufCMessage *)wk__ows_frame(call, wk_world_scene(call->world), req->world_id, frame, true);
    return rc;
}

int wk__ows_list_frames(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)api;
    wk_status *st = call->status;
    const IntrinsicProto__World__ListFramesRequest *req = (const void *)request;
    IntrinsicProto__World__ListFramesResponse *resp = (void *)*response;
    const wk_scene *s = wk_world_scene(call->world);
    int rc;
    wk_entity_list objects = {0}, frames = {0};
    if (req->object) {
        wk_entity object;
        rc = wk__ows_find_object(s, req->object, &object, st);
        if (rc == WK_OK)
            rc = wk_entity_list_push(&objects, object);
    } else {
        rc = wk_scene_objects(s, &objects);
    }
    for (size_t i = 0; rc == WK_OK && i < objects.count; i++)
        rc = wk_scene_object_frames(s, objects.items[i], &frames);
    if (rc == WK_OK) {
        resp->frames = wk__ows_array(call, frames.count, sizeof *resp->frames);
        for (size_t i = 0; resp->frames && i < frames.count; i++)
            resp->frames[resp->n_frames++] = wk__ows_frame(call, s, req->world_id, frames.items[i], true);
    } else if (rc == WK_NOMEM) {
        wk_fail(st, rc, "out of memory listing frames");
    }
    wk_entity_list_free(&objects);
    wk_entity_list_free(&frames);
    return rc;
}

int wk__ows_get_transform(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)api;
    wk_status *st = call->status;
    const IntrinsicProto__World__GetTransformRequest *req = (const void *)request;
    IntrinsicProto__World__GetTransformResponse *resp = (void *)*response;
    wk_entity ab[2];
    const wk_scene *s = wk_world_scene(call->world);
    int rc = wk__ows_find_node_pair(s, call, req->node_a, req->node_a_filter, req->node_b, req->node_b_filter, ab, st);
    if (rc == WK_OK)
        resp->a_t_b = wk__ows_pose(call, wk_scene_transform(s, ab[0], ab[1]));
    return rc;
}

int wk__ows_get_collision_settings(wk_api *api, wk__call *call, const ProtobufCMessage *request,
                                   ProtobufCMessage **response)
{
    (void)api;
    (void)request;
    *response = (ProtobufCMessage *)wk__ows_collision_settings(call, wk_world_scene(call->world));
    return WK_OK;
}

/* ---- CompareWorlds ----------------------------------------------------- */

typedef struct compared {
    const wk_scene *base, *changed;
    const char *base_id, *changed_id;
    wk__ows_view view;
} compared;

static IntrinsicProto__World__Frame **frames_of(wk__call *call, const wk_scene *s, const char *world_id,
                                                const wk_entity_list *list, size_t *n)
{
    IntrinsicProto__World__Frame **out = wk__ows_array(call, list->count, sizeof *out);
    for (size_t i = 0; out && i < list->count; i++)
        out[i] = wk__ows_frame(call, s, world_id, list->items[i], true);
    *n = out ? list->count : 0;
    return out;
}

/* Fills the response from the diff, rendering each side with its scene. */
static void render_diff(wk__call *call, const compared *c, const wk_world_diff *d,
                        IntrinsicProto__World__CompareWorldsResponse *resp)
{
    resp->added = wk__ows_array(call, d->added_objects.count, sizeof *resp->added);
    for (size_t i = 0; resp->added && i < d->added_objects.count; i++)
        resp->added[resp->n_added++] = wk__ows_object_ref(call, c->changed, d->added_objects.items[i]);
    resp->removed = wk__ows_array(call, d->removed_objects.count, sizeof *resp->removed);
    for (size_t i = 0; resp->removed && i < d->removed_objects.count; i++)
        resp->removed[resp->n_removed++] =
            wk__ows_object(call, c->base, c->base_id, d->removed_objects.items[i], c->view);
    resp->modified = wk__ows_array(call, d->modified_object_count, sizeof *resp->modified);
    for (size_t i = 0; resp->modified && i < d->modified_object_count; i++) {
        IntrinsicProto__World__CompareWorldsResponse__ModifiedObject *m =
            wk__ows_new(call, &intrinsic_proto__world__compare_worlds_response__modified_object__descriptor);
        if (!m)
            return;
        m->object = wk__ows_object_ref(call, c->changed, d->modified_objects[i].changed);
        m->modification = wk__call_strdup(call, d->modified_objects[i].what ? d->modified_objects[i].what : "");
        resp->modified[resp->n_modified++] = m;
    }
    resp->added_frames = frames_of(call, c->changed, c->changed_id, &d->added_frames, &resp->n_added_frames);
    resp->removed_frames = frames_of(call, c->base, c->base_id, &d->removed_frames, &resp->n_removed_frames);
    resp->modified_frames = wk__ows_array(call, d->modified_frame_count, sizeof *resp->modified_frames);
    for (size_t i = 0; resp->modified_frames && i < d->modified_frame_count; i++) {
        IntrinsicProto__World__CompareWorldsResponse__ModifiedFrame *m =
            wk__ows_new(call, &intrinsic_proto__world__compare_worlds_response__modified_frame__descriptor);
        if (!m)
            return;
        m->frame = wk__ows_frame(call, c->changed, c->changed_id, d->modified_frames[i].changed, true);
        m->modification = wk__call_strdup(call, d->modified_frames[i].what ? d->modified_frames[i].what : "");
        resp->modified_frames[resp->n_modified_frames++] = m;
    }
}

int wk__ows_compare_worlds(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    wk_status *st = call->status;
    const IntrinsicProto__World__CompareWorldsRequest *req = (const void *)request;
    IntrinsicProto__World__CompareWorldsResponse *resp = (void *)*response;
    int rc = need_id(req->base_world_id, "base_world_id", st);
    if (rc == WK_OK)
        rc = need_id(req->changed_world_id, "changed_world_id", st);
    if (rc)
        return rc;
    wk_compare_mode mode = WK_COMPARE_BY_ID;
    if (req->has_unique_id_mode && req->unique_id_mode == INTRINSIC_PROTO__WORLD__COMPARE_WORLDS_REQUEST__IDENTIFICATION_MODE__BY_NAME)
        mode = WK_COMPARE_BY_NAME;
    /* Both worlds stay open while the answer is rendered from their scenes:
     * one lock for a world compared with itself, else the pair's. */
    wk_world *a, *b;
    bool same = strcmp(req->base_world_id, req->changed_world_id) == 0;
    rc = same ? wk_store_open(api->store, req->base_world_id, false, &a, st)
              : wk_store_open_pair(api->store, req->base_world_id, false, req->changed_world_id, false, &a, &b, st);
    if (rc)
        return rc;
    if (same)
        b = a;
    compared c = {wk_world_scene(a), wk_world_scene(b), req->base_world_id, req->changed_world_id,
                  wk__ows_view_of(req->has_view, req->view)};
    wk_world_diff diff = {0};
    rc = wk_scene_compare(c.base, c.changed, mode, &diff, st);
    if (rc == WK_OK)
        render_diff(call, &c, &diff, resp);
    /* The request documents both worlds' objects "if view == FULL or BASIC":
     * they come with a view asked for, in that view, and not without one. */
    if (rc == WK_OK && req->has_view && req->view != INTRINSIC_PROTO__WORLD__OBJECT_VIEW__OBJECT_VIEW_UNSPECIFIED) {
        rc = wk__ows_objects(call, c.base, c.base_id, c.view, &resp->base_world_objects, &resp->n_base_world_objects);
        if (rc == WK_OK)
            rc = wk__ows_objects(call, c.changed, c.changed_id, c.view, &resp->changed_world_objects,
                                 &resp->n_changed_world_objects);
        if (rc)
            wk_fail(st, rc, "out of memory rendering the worlds compared");
    }
    wk_world_diff_free(&diff);
    wk_store_close(a, false, false);
    if (!same)
        wk_store_close(b, false, false);
    return rc;
}

int wk__ows_sync_object(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)response;
    wk_status *st = call->status;
    const IntrinsicProto__World__SyncObjectRequest *req = (const void *)request;
    wk_ref ref;
    bool frame = req->resource_type_case == INTRINSIC_PROTO__WORLD__SYNC_OBJECT_REQUEST__RESOURCE_TYPE_FRAME;
    int rc = need_id(req->from_world_id, "from_world_id", st);
    if (rc == WK_OK)
        rc = need_id(req->to_world_id, "to_world_id", st);
    if (rc == WK_OK && req->resource_type_case == INTRINSIC_PROTO__WORLD__SYNC_OBJECT_REQUEST__RESOURCE_TYPE__NOT_SET)
        rc = wk_fail(st, WK_INVALID, "SyncObject needs an object or a frame reference");
    if (rc == WK_OK)
        rc = frame ? wk__ows_frame_wkref(req->frame, &ref, st) : wk__ows_object_wkref(req->object, &ref, st);
    if (rc == WK_OK)
        rc = wk_store_sync(api->store, req->from_world_id, req->to_world_id, &ref, frame, st);
    return rc;
}
