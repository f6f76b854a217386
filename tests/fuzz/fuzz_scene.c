/* fuzz_scene.c — libFuzzer target for a world state applied to an object
 * world: any bytes given to wk_ecm_set_state on a scene holding every scene
 * component type must be refused with the scene unchanged, or applied, after
 * which every reading of the object world (objects, frames, poses, names,
 * kinematics, collision settings, user data) and a comparison with the
 * previous world must run without fault. Seeds: full and partial states of
 * fuzz_scene_world(). */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/scene_world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_everything(wk_scene *s)
{
    wk_entity_list objects = {0}, parts = {0};
    wk_scene_objects(s, &objects);
    for (size_t i = 0; i < objects.count; i++) {
        wk_entity o = objects.items[i];
        parts.count = 0;
        wk_scene_object_entities(s, o, &parts);
        wk_scene_object_frames(s, o, &parts);
        for (size_t j = 0; j < parts.count; j++) {
            wk_scene_pose(s, parts.items[j]);
            wk_scene_kinematics(s, parts.items[j]);
        }
        wk_scene_node_pose(s, o);
        wk_scene_object_info(s, o);
        wk_scene_kinematic_object(s, o);
        wk_scene_user_data(s, o);
        wk_scene_parent_object(s, o);
        char id[WK_ID_MAX];
        wk_scene_object_id(s, o, id);
        wk_entity found;
        wk_scene_find_object(s, &(wk_ref){.id = id}, &found, NULL);
    }
    wk_scene_collision_settings(s);
    wk_entity_list_free(&objects);
    wk_entity_list_free(&parts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wk_scene *s = fuzz_scene_world();
    wk_scene *before = s ? wk_scene_clone(s) : NULL;
    if (!before) {
        wk_scene_free(s);
        return 0;
    }
    int rc = wk_ecm_set_state(wk_scene_ecm(s), data, size);
    if (rc != WK_OK && rc != WK_INVALID && !wk_ecm_equal(wk_scene_ecm(before), wk_scene_ecm(s), NULL)) {
        fprintf(stderr, "fuzz_scene: a refused state (%s) changed the scene\n", wk_code_name(rc));
        abort();
    }
    wk_scene_refresh(s);
    read_everything(s);
    wk_world_diff d;
    if (wk_scene_compare(before, s, WK_COMPARE_BY_ID, &d, NULL) == WK_OK)
        wk_world_diff_free(&d);
    if (wk_scene_compare(before, s, WK_COMPARE_BY_NAME, &d, NULL) == WK_OK)
        wk_world_diff_free(&d);
    wk_scene_free(before);
    wk_scene_free(s);
    return 0;
}
