/* scene_world.h — the object world the scene fuzz target starts from, and
 * whose state its seeds hold: objects, frames, a kinematic arm, collision
 * settings and user data, so that every scene component type is present. */
#ifndef WK_TESTS_FUZZ_SCENE_WORLD_H
#define WK_TESTS_FUZZ_SCENE_WORLD_H

#include "worldkit/wk_scene.h"

static inline wk_scene *fuzz_scene_world(void)
{
    wk_scene *s = wk_scene_new();
    wk_status st;
    if (!s || wk_scene_objects_init(s, WK_NULL_ENTITY, &st)) {
        wk_scene_free(s);
        return NULL;
    }
    wk_entity table = 0, cup = 0, arm = 0, edge = 0;
    wk_scene_geometry box = {.type = WK_GEOMETRY_BOX, .size = {1, 1, 0.1}};
    const wk_joint_desc joints[] = {
        {.name = "shoulder", .link = "upper", .parent = -1, .motion = WK_JOINT_MOTION_REVOLUTE},
        {.name = "slide", .link = "lower", .parent = 0, .motion = WK_JOINT_MOTION_PRISMATIC, .axis = {1, 0, 0}},
    };
    int rc = wk_scene_create_object(s, &(wk_object_desc){.name = "table", .geometry = &box}, &table, &st);
    if (rc == WK_OK)
        rc = wk_scene_create_object(s, &(wk_object_desc){.name = "cup", .parent = table}, &cup, &st);
    if (rc == WK_OK)
        rc = wk_scene_create_frame(s, &(wk_frame_desc){.name = "edge", .parent = table, .is_attachment_frame = true},
                                   &edge, &st);
    if (rc == WK_OK)
        rc = wk_scene_create_kinematic_object(
            s, &(wk_kinematic_object_desc){.name = "arm", .joints = joints, .joint_count = 2}, &arm, &st);
    if (rc == WK_OK)
        rc = wk_scene_toggle_collisions(s, &table, 1, &cup, 1, WK_TOGGLE_DISABLE, &st);
    if (rc == WK_OK)
        rc = wk_scene_update_user_data(s, cup, &(wk_user_datum){"owner", "type.googleapis.com/x", (const uint8_t *)"ab", 2},
                                       1, WK_USER_DATA_INSERT, &st);
    if (rc) {
        wk_scene_free(s);
        return NULL;
    }
    return s;
}

#endif
