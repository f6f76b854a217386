/* ows.c — ObjectWorldService's methods: one table from method name to the
 * request type and the handler, one entry that unpacks a request, runs its
 * handler and packs the answer, and the opening of the world a request
 * names. The table is data: a method is served once it has a row here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ows.h"

#define OWS_SERVICE "intrinsic_proto.world.ObjectWorldService"

static const wk__ows_method methods[] = {
    {"GetWorld", &intrinsic_proto__world__get_world_request__descriptor, wk__ows_get_world},
    {"ListWorlds", &intrinsic_proto__world__list_worlds_request__descriptor, wk__ows_list_worlds},
    {"CreateWorld", &intrinsic_proto__world__create_world_request__descriptor, wk__ows_create_world},
    {"CloneWorld", &intrinsic_proto__world__clone_world_request__descriptor, wk__ows_clone_world},
    {"DeleteWorld", &intrinsic_proto__world__delete_world_request__descriptor, wk__ows_delete_world},
    {"SwapWorld", &intrinsic_proto__world__swap_world_request__descriptor, wk__ows_swap_world},
    {"GetObject", &intrinsic_proto__world__get_object_request__descriptor, wk__ows_get_object},
    {"ListObjects", &intrinsic_proto__world__list_objects_request__descriptor, wk__ows_list_objects},
    {"GetFrame", &intrinsic_proto__world__get_frame_request__descriptor, wk__ows_get_frame},
    {"ListFrames", &intrinsic_proto__world__list_frames_request__descriptor, wk__ows_list_frames},
    {"GetTransform", &intrinsic_proto__world__get_transform_request__descriptor, wk__ows_get_transform},
    {"GetCollisionSettings", &intrinsic_proto__world__get_collision_settings_request__descriptor,
     wk__ows_get_collision_settings},
    {"CompareWorlds", &intrinsic_proto__world__compare_worlds_request__descriptor, wk__ows_compare_worlds},
    {"SyncObject", &intrinsic_proto__world__sync_object_request__descriptor, wk__ows_sync_object},
    {"AreFootprintsCompatible", &intrinsic_proto__world__are_footprints_compatible_request__descriptor,
     wk__ows_are_footprints_compatible},
    /* The mutations: one handler, the request type picks the update
     * (ows_batch.c). UpdateObjectJoint has no method of its own: it is a
     * case of UpdateWorldResources only. */
    {"CreateObject", &intrinsic_proto__world__create_object_request__descriptor, wk__ows_mutate},
    {"DeleteObject", &intrinsic_proto__world__delete_object_request__descriptor, wk__ows_mutate},
    {"UpdateObjectName", &intrinsic_proto__world__update_object_name_request__descriptor, wk__ows_mutate},
    {"ReparentObject", &intrinsic_proto__world__reparent_object_request__descriptor, wk__ows_mutate},
    {"UpdateObjectJoints", &intrinsic_proto__world__update_object_joints_request__descriptor, wk__ows_mutate},
    {"UpdateKinematicObjectProperties", &intrinsic_proto__world__update_kinematic_object_properties_request__descriptor,
     wk__ows_mutate},
    {"UpdateObjectProperties", &intrinsic_proto__world__update_object_properties_request__descriptor, wk__ows_mutate},
    {"UpdateEntityProperties", &intrinsic_proto__world__update_entity_properties_request__descriptor, wk__ows_mutate},
    {"CreateFrame", &intrinsic_proto__world__create_frame_request__descriptor, wk__ows_mutate},
    {"DeleteFrame", &intrinsic_proto__world__delete_frame_request__descriptor, wk__ows_mutate},
    {"UpdateFrameName", &intrinsic_proto__world__update_frame_name_request__descriptor, wk__ows_mutate},
    {"ReparentFrame", &intrinsic_proto__world__reparent_frame_request__descriptor, wk__ows_mutate},
    {"UpdateFrameProperties", &intrinsic_proto__world__update_frame_properties_request__descriptor, wk__ows_mutate},
    {"UpdateTransform", &intrinsic_proto__world__update_transform_request__descriptor, wk__ows_mutate},
    {"UpdateCollisionSettings", &intrinsic_proto__world__update_collision_settings_request__descriptor,
     wk__ows_mutate},
    {"ToggleCollisions", &intrinsic_proto__world__toggle_collisions_request__descriptor, wk__ows_mutate},
    {"UpdateWorldResources", &intrinsic_proto__world__update_world_resources_request__descriptor,
     wk__ows_update_world_resources},
};

#define METHOD_COUNT (sizeof methods / sizeof methods[0])

const wk__ows_method *wk__ows_find_method(const char *name)
{
    static const char prefix[] = "/" OWS_SERVICE "/";
    if (name && strncmp(name, prefix, sizeof prefix - 1) == 0)
        name += sizeof prefix - 1;
    for (size_t i = 0; name && i < METHOD_COUNT; i++)
        if (strcmp(methods[i].name, name) == 0)
            return &methods[i];
    return NULL;
}

int wk__ows_call(wk_api *api, const char *method, const uint8_t *request, size_t len, int (*check)(void *),
                 void *check_ctx, wk_buf *out, wk_status *st)
{
    const wk__ows_method *m = wk__ows_find_method(method);
    if (!m)
        return wk_fail(st, WK_NOT_FOUND, "ObjectWorldService has no method %.100s", method ? method : "(null)");
    ProtobufCMessage *req = protobuf_c_message_unpack(m->request, NULL, len, request);
    char why[WK_STATUS_MSG_MAX] = "";
    if (!req || !wk__request_strings_clean(m->request, request, len, why, sizeof why)) {
        protobuf_c_message_free_unpacked(req, NULL);
        return why[0] ? wk_fail(st, WK_PARSE, "%s: %s", m->name, why)
                      : wk_fail(st, WK_PARSE, "%s: the request does not parse as %s", m->name, m->request->name);
    }
    wk__call call = {.check = check, .check_ctx = check_ctx};
    ProtobufCMessage *response = NULL;
    wk_status_clear(st);
    int rc = m->handle(api, &call, req, &response, st);
    if (rc == WK_OK && (call.failed || !response))
        rc = wk_fail(st, WK_NOMEM, "%s: out of memory building the response", m->name);
    if (rc == WK_OK) {
        size_t size = protobuf_c_message_get_packed_size(response);
        rc = wk_buf_reserve(out, size);
        if (rc == WK_OK)
            out->len += protobuf_c_message_pack(response, out->data + out->len);
        else
            wk_fail(st, rc, "%s: out of memory packing the response", m->name);
    }
    for (size_t i = 0; i < call.count; i++)
        free(call.blocks[i]);
    free(call.blocks);
    protobuf_c_message_free_unpacked(req, NULL);
    return rc;
}

int wk__ows_open(wk_api *api, const char *world_id, bool write, wk_world **out, wk_status *st)
{
    if (!world_id || !*world_id)
        return wk_fail(st, WK_INVALID, "no world_id given");
    return wk_store_open(api->store, world_id, write, out, st);
}
