/* object_world.h — helpers of the object-world tests: a fresh object world,
 * creating objects and frames in one line, and comparing poses. */
#ifndef WK_TESTS_SCENE_OBJECT_WORLD_H
#define WK_TESTS_SCENE_OBJECT_WORLD_H

#include "math/math_check.h"
#include "worldkit/wk_scene.h"

#define CHECK_POSE_NEAR(a, b, eps)                        \
    do {                                                  \
        wk_pose wk__pa = (a), wk__pb = (b);               \
        CHECK_VEC3_NEAR(wk__pa.p, wk__pb.p, eps);         \
        CHECK_SAME_ROTATION(wk__pa.q, wk__pb.q, eps);     \
    } while (0)

static inline wk_scene *new_world(void)
{
    wk_scene *s = wk_scene_new();
    wk_status st;
    if (s && wk_scene_objects_init(s, WK_NULL_ENTITY, &st)) {
        wk_scene_free(s);
        return NULL;
    }
    return s;
}

static inline wk_pose at(double x, double y, double z, double roll, double pitch, double yaw)
{
    return (wk_pose){{x, y, z}, wk_quat_from_rpy(roll, pitch, yaw)};
}

/* An object or WK_NULL_ENTITY; the failure, if any, goes to stderr. */
static inline wk_entity object_at(wk_scene *s, const char *name, wk_entity parent, wk_pose pose)
{
    wk_entity e = WK_NULL_ENTITY;
    wk_status st;
    if (wk_scene_create_object(s, &(wk_object_desc){.name = name, .parent = parent, .pose = pose}, &e, &st))
        fprintf(stderr, "create_object %s: %s\n", name, st.message);
    return e;
}

static inline wk_entity frame_at(wk_scene *s, const char *name, wk_entity parent, wk_pose pose)
{
    wk_entity e = WK_NULL_ENTITY;
    wk_status st;
    if (wk_scene_create_frame(s, &(wk_frame_desc){.name = name, .parent = parent, .pose = pose}, &e, &st))
        fprintf(stderr, "create_frame %s: %s\n", name, st.message);
    return e;
}

static inline wk_entity find_object(const wk_scene *s, const char *name)
{
    wk_entity e = WK_NULL_ENTITY;
    wk_status st;
    return wk_scene_find_object(s, &(wk_ref){.object_name = name}, &e, &st) ? WK_NULL_ENTITY : e;
}

static inline wk_entity find_frame(const wk_scene *s, const char *object, const char *frame)
{
    wk_entity e = WK_NULL_ENTITY;
    wk_status st;
    return wk_scene_find_frame(s, &(wk_ref){.object_name = object, .frame_name = frame}, &e, &st) ? WK_NULL_ENTITY
                                                                                                    : e;
}

#endif
