/* named_poses.c — GetNamedPoses and GetNamedPoseBounds.
 *
 * worldkit's convention: the named poses are the frames directly under the
 * world, an SDFormat world's own <frame> elements (and any such frame the
 * world gains). A named pose's name is the frame's name, its pose the
 * frame's pose relative to the world, its description and tags the frame's
 * EntityInfo, set with SetEntityInfo on the frame's name. worldkit keeps no
 * bounds for a pose: GetNamedPoseBounds answers TYPE_EMPTY (unbounded, as
 * the standard reads empty bounds) for every named pose, so the feature
 * POSE_BOUNDS is not claimed. */
#include <stdio.h>
#include <string.h>

#include "api/sim/entity_query.h"

/* Appends the world's frames to out. */
static int named_poses(wk_api *api, wk_entity_list *out)
{
    wk_scene *s = wk_api_scene(api);
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_scene_types *t = wk_scene_types_of(s);
    for (wk_entity c = wk_ecm_first_child(ecm, wk_api_world(api)); c; c = wk_ecm_next_sibling(ecm, c)) {
        const uint8_t *kind = wk_ecm_get(ecm, c, t->kind);
        if (kind && *kind == WK_NODE_FRAME && wk_scene_name(s, c) && wk_entity_list_push(out, c))
            return WK_NOMEM;
    }
    return WK_OK;
}

static SimulationInterfaces__NamedPose *pose_msg(wk_api *api, wk__call *call, wk_entity frame)
{
    wk_scene *s = wk_api_scene(api);
    const wk_entity_info *info = wk_scene_entity_info(s, frame);
    SimulationInterfaces__NamedPose *m = wk__call_alloc(call, sizeof *m);
    if (!m)
        return NULL;
    simulation_interfaces__named_pose__init(m);
    m->name = wk__call_strdup(call, wk_scene_name(s, frame));
    m->description = wk__call_strdup(call, info ? info->description : "");
    m->n_tags = info ? info->tag_count : 0;
    m->tags = wk__msg_strings(call, info ? info->tags : NULL, m->n_tags);
    wk_pose world_T_frame = wk_pose_compose(wk_pose_inverse(wk_scene_world_pose(s, wk_api_world(api))),
                                            wk_scene_world_pose(s, frame));
    m->pose = wk__msg_pose(call, world_T_frame);
    return m;
}

int wk__get_named_poses(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__GetNamedPosesRequest *req = (const void *)request;
    SimulationInterfaces__GetNamedPosesResponse *resp = (void *)*response;
    char why[WK_STATUS_MSG_MAX] = "";
    if (!wk__tags_filter_valid(req->tags, why, sizeof why)) {
        resp->result = wk__call_result(call, WK_RESULT_OPERATION_FAILED, "%s", why);
        return WK_OK;
    }
    wk_entity_list frames = {0};
    int rc = named_poses(api, &frames);
    resp->poses = wk__call_alloc(call, (frames.count ? frames.count : 1) * sizeof *resp->poses);
    for (size_t i = 0; rc == WK_OK && resp->poses && i < frames.count; i++) {
        const wk_entity_info *info = wk_scene_entity_info(wk_api_scene(api), frames.items[i]);
        if (wk__tags_match(req->tags, info ? info->tags : NULL, info ? info->tag_count : 0))
            resp->poses[resp->n_poses++] = pose_msg(api, call, frames.items[i]);
    }
    wk_entity_list_free(&frames);
    if (rc)
        return rc;
    resp->result = wk__call_result(call, WK_RESULT_OK, "%s", "");
    return WK_OK;
}

int wk__get_named_pose_bounds(wk_api *api, wk__call *call, const ProtobufCMessage *request,
                              ProtobufCMessage **response)
{
    const SimulationInterfaces__GetNamedPoseBoundsRequest *req = (const void *)request;
    SimulationInterfaces__GetNamedPoseBoundsResponse *resp = (void *)*response;
    const char *name = req->name ? req->name : "";
    wk_scene *s = wk_api_scene(api);
    wk_entity e = name[0] ? wk_scene_child(s, wk_api_world(api), name) : WK_NULL_ENTITY;
    const uint8_t *kind = e ? wk_ecm_get(wk_scene_ecm(s), e, wk_scene_types_of(s)->kind) : NULL;
    if (!kind || *kind != WK_NODE_FRAME) {
        resp->result = wk__call_result(call, WK_RESULT_NOT_FOUND, "no named pose '%s' (a frame directly under the world)",
                                       name);
        return WK_OK;
    }
    resp->bounds = wk__msg_bounds(call, NULL, WK_BOUNDS_TYPE_EMPTY, true);
    resp->result = wk__call_result(call, WK_RESULT_OK, "named pose '%s' is unbounded", name);
    return WK_OK;
}
