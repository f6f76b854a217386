/* fuzz_ows_update.c — libFuzzer target for ObjectWorldService's mutations,
 * called as a transport calls them (wk_api_invoke by full path): the first
 * byte picks the method, the rest is its request, run on world "w" holding
 * a box, a cup on it, a frame, an attachment frame and a two-joint arm. Any
 * bytes must give an answer or a refusal, never a crash, a hang or a leak;
 * and since every mutation is all or nothing, a refusal must leave the
 * world's serialized state byte for byte as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/world_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool build(wk_scene *s, wk_status *st)
{
    const wk_scene_geometry box = {.type = WK_GEOMETRY_BOX, .size = {1, 1, 1}, .scale = {1, 1, 1}};
    const wk_physics unit = {.mass_kg = 1, .this_T_com = {{0, 0, 0}, {1, 0, 0, 0}},
                             .inertia = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    const wk_joint_desc joints[] = {
        {.name = "j1", .link = "l1", .parent = -1, .motion = WK_JOINT_MOTION_REVOLUTE, .axis = {0, 0, 1},
         .limits = {.min_position = -2, .max_position = 2}},
        {.name = "j2", .link = "l2", .parent = 0, .motion = WK_JOINT_MOTION_PRISMATIC, .axis = {1, 0, 0},
         .limits = {.min_position = 0, .max_position = 0.5}},
    };
    wk_entity table, cup, shelf, dock, arm;
    return wk_scene_create_object(s, &(wk_object_desc){.name = "table", .geometry = &box, .physics = &unit}, &table,
                                  st) == WK_OK &&
           wk_scene_create_object(s, &(wk_object_desc){.name = "cup", .parent = table, .geometry = &box}, &cup, st) ==
               WK_OK &&
           wk_scene_create_frame(s, &(wk_frame_desc){.name = "shelf"}, &shelf, st) == WK_OK &&
           wk_scene_create_frame(s, &(wk_frame_desc){.name = "dock", .parent = table, .is_attachment_frame = true},
                                 &dock, st) == WK_OK &&
           wk_scene_create_kinematic_object(
               s, &(wk_kinematic_object_desc){.name = "arm", .joints = joints, .joint_count = 2}, &arm, st) == WK_OK;
}

static bool count(void *ctx, const uint8_t *msg, size_t len)
{
    (void)msg, (void)len;
    ++*(int *)ctx;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Append only: the corpus' first bytes index this list. */
    static const char *const methods[] = {
        "CreateObject",          "DeleteObject",         "UpdateObjectName",
        "ReparentObject",        "UpdateObjectJoints",   "UpdateKinematicObjectProperties",
        "UpdateObjectProperties", "UpdateEntityProperties", "CreateFrame",
        "DeleteFrame",           "UpdateFrameName",      "ReparentFrame",
        "UpdateFrameProperties", "UpdateTransform",      "UpdateCollisionSettings",
        "ToggleCollisions",      "UpdateWorldResources",
    };
    const size_t n = sizeof methods / sizeof methods[0];
    if (size == 0)
        return 0;
    wk_api *api = wk_api_new();
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    wk_world *w;
    if (!api || wk_store_create(wk_api_store(api), &(wk_world_create_desc){.id = "w"}, id, &st) ||
        wk_store_open(wk_api_store(api), "w", true, &w, &st))
        abort();
    bool built = build(wk_world_scene(w), &st);
    wk_store_close(w, true, true);
    if (!built)
        abort();
    wk_buf before = fuzz_world_state(api, "w");
    char path[128];
    snprintf(path, sizeof path, "/intrinsic_proto.world.ObjectWorldService/%s", methods[data[0] % n]);
    int writes = 0;
    wk_api_sink sink = {.write = count, .ctx = &writes};
    int status = wk_api_invoke(api, path, data + 1, size - 1, &sink);
    /* One answer exactly when OK; none otherwise. */
    if (writes != (status == WK_GRPC_OK))
        abort();
    if (status == WK_GRPC_UNIMPLEMENTED && strstr(sink.message, "no method"))
        abort(); /* every method of the list is served */
    if (status != WK_GRPC_OK)
        fuzz_world_unchanged(api, "w", &before);
    wk_buf_free(&before);
    wk_api_free(api);
    return 0;
}
