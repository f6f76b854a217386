/* objects_init.c — turning a scene (empty, or loaded from a world file) into
 * an object world, and refreshing the derived indexes after changes made
 * below the scene's calls. */
#include <string.h>

#include "scene/kinematics_internal.h"
#include "scene/scene_internal.h"

static bool movable(wk_joint_type type)
{
    return type != WK_JOINT_FIXED;
}

/* Whether the object (a model) holds a joint that moves. */
static int has_movable_joint(const wk_scene *s, wk_entity e, bool inside, void *ctx)
{
    (void)ctx;
    const wk_scene_joint *j = inside ? wk_ecm_get(s->ecm, e, s->types.joint) : NULL;
    return j && movable(j->type);
}

static uint8_t kind_of(const wk_scene *s, wk_entity e)
{
    const uint8_t *kind = wk_ecm_get(s->ecm, e, s->types.kind);
    return kind ? *kind : WK_NODE_KIND_COUNT;
}

/* Marks e as an object when it is a model, or as a frame when it is an SDF
 * frame. */
static int mark(wk_scene *s, wk_entity e)
{
    if (kind_of(s, e) == WK_NODE_MODEL) {
        wk_object_info info = {(char *)wk__entity_name(s, e), WK_OBJECT_PHYSICAL, false};
        return wk_ecm_set(s->ecm, e, s->types.object, &info);
    }
    if (kind_of(s, e) == WK_NODE_FRAME)
        return wk_ecm_set(s->ecm, e, s->types.frame, &(wk_frame_info){false});
    return WK_OK;
}

/* Marks the models below e as objects and the SDF frames as frames, top
 * down so that each model knows its joints once its child models are
 * objects. */
static int adopt(wk_scene *s, wk_entity e)
{
    for (wk_entity c = wk_ecm_first_child(s->ecm, e); c; c = wk_ecm_next_sibling(s->ecm, c)) {
        int rc = mark(s, c);
        if (rc < 0 || (rc = adopt(s, c)))
            return rc;
    }
    return WK_OK;
}

/* Makes the object kinematic when it holds a joint that moves. */
static int classify_one(wk_scene *s, wk_entity object)
{
    if (!wk__walk_object(s, object, has_movable_joint, NULL))
        return WK_OK;
    /* Set, not written through the pointer: transactions and change
     * tracking only see what goes through the ECM's calls. */
    wk_object_info info = *wk_scene_object_info(s, object);
    info.type = WK_OBJECT_KINEMATIC;
    int rc = wk_ecm_set(s->ecm, object, s->types.object, &info);
    return rc < 0 ? rc : wk__kinematics_from_joints(s, object);
}

static int classify(wk_scene *s)
{
    wk_entity_list objects = {0};
    int rc = wk_scene_objects(s, &objects);
    for (size_t i = 1; rc == WK_OK && i < objects.count; i++)
        rc = classify_one(s, objects.items[i]);
    wk_entity_list_free(&objects);
    return rc;
}

int wk_scene_objects_init(wk_scene *s, wk_entity root, wk_status *st)
{
    if (s->root)
        return wk_fail(st, WK_EXISTS, "the scene is an object world already");
    if (root && !wk_ecm_exists(s->ecm, root))
        return wk_fail(st, WK_NOT_FOUND, "root entity %llu does not exist", (unsigned long long)root);
    if (!root) {
        const char *name = "root";
        uint8_t kind = WK_NODE_WORLD;
        root = wk_ecm_create_with(s->ecm, (wk_type[]){s->types.name, s->types.kind},
                                  (const void *[]){&name, &kind}, 2);
        if (!root)
            return wk_fail(st, WK_NOMEM, "creating the root entity: %s", wk_ecm_errmsg(s->ecm));
    }
    wk_object_info info = {"root", WK_OBJECT_ROOT, false};
    int rc = wk_ecm_set(s->ecm, root, s->types.object, &info);
    s->root = root;
    if (rc >= 0 && (rc = adopt(s, root)) == WK_OK && (rc = classify(s)) == WK_OK)
        rc = wk_scene_refresh(s);
    if (rc < 0)
        return wk_fail(st, rc, "making an object world: %s", wk_ecm_errmsg(s->ecm));
    return WK_OK;
}

int wk_scene_name_root(wk_scene *s, const char *name, wk_status *st)
{
    if (!s->root)
        return wk_fail(st, WK_PRECONDITION, "the scene is not an object world");
    if (!*name || strlen(name) > WK_NAME_MAX)
        return wk_fail(st, WK_INVALID, "a world's root entity needs a name of 1 to %d bytes", WK_NAME_MAX);
    int rc = wk_ecm_set(s->ecm, s->root, s->types.name, &name);
    return rc < 0 ? wk_fail(st, rc, "naming the root entity '%s': %s", name, wk_ecm_errmsg(s->ecm)) : WK_OK;
}

int wk_scene_objects_add(wk_scene *s, wk_entity top, wk_status *st)
{
    if (!s->root)
        return WK_OK;
    wk_entity_list below = {0};
    int rc = mark(s, top);
    if (rc >= 0)
        rc = adopt(s, top);
    if (rc >= 0)
        rc = wk_ecm_descendants(s->ecm, top, &below);
    /* Parents first, as classify goes over a whole scene. */
    for (size_t i = 0; rc >= 0 && i < below.count; i++)
        if (wk_scene_is_object(s, below.items[i]) && (rc = classify_one(s, below.items[i])) >= 0)
            rc = wk__names_add(s, below.items[i]);
    wk_entity_list_free(&below);
    return rc < 0 ? wk_fail(st, rc, "adding objects to the object world: %s", wk_ecm_errmsg(s->ecm)) : WK_OK;
}

void wk_scene_pose_written(wk_scene *s, wk_entity e)
{
    wk__pose_invalidate(s, e);
}

int wk_scene_objects_adopt(wk_scene *s, wk_status *st)
{
    if (s->root)
        return wk_fail(st, WK_EXISTS, "the scene is an object world already");
    wk_entity_list objects = {0};
    wk_entity root = WK_NULL_ENTITY;
    int rc = wk_ecm_find(s->ecm, &(wk_match){s->types.object, NULL}, 1, &objects);
    if (rc)
        rc = wk_fail(st, rc, "looking for the root object: %s", wk_ecm_errmsg(s->ecm));
    for (size_t i = 0; rc == WK_OK && i < objects.count; i++) {
        const wk_object_info *info = wk_ecm_get(s->ecm, objects.items[i], s->types.object);
        if (info->type != WK_OBJECT_ROOT)
            continue;
        if (root)
            rc = wk_fail(st, WK_INVALID, "entities %llu and %llu are both root objects", (unsigned long long)root,
                         (unsigned long long)objects.items[i]);
        root = objects.items[i];
    }
    wk_entity_list_free(&objects);
    if (rc == WK_OK && !root)
        rc = wk_fail(st, WK_NOT_FOUND, "the scene holds no root object");
    if (rc)
        return rc;
    s->root = root;
    rc = wk_scene_refresh(s);
    return rc ? wk_fail(st, rc, "indexing the object world: %s", wk_strerror(rc)) : WK_OK;
}

int wk_scene_refresh(wk_scene *s)
{
    wk__pose_cache_clear(&s->poses);
    return wk__names_rebuild(s);
}
