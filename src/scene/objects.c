/* objects.c — creating and deleting objects. */
#include <stdlib.h>
#include <string.h>

#include "scene/scene_internal.h"

wk_pose wk__pose_under(const wk_scene *s, wk_entity parent, wk_pose base_T_child)
{
    /* Under a frame or the base itself the pose is kept as given, bit for
     * bit: composing with base_T_base would round it. */
    if (wk_scene_is_frame(s, parent) || wk_scene_object_of(s, parent) == parent)
        return base_T_child;
    wk_pose base_T_parent = wk_scene_transform(s, wk_scene_object_of(s, parent), parent);
    return wk_pose_compose(wk_pose_inverse(base_T_parent), base_T_child);
}

int wk__check_parent(const wk_scene *s, wk_entity parent, wk_status *st)
{
    if (!s->root)
        return wk_fail(st, WK_PRECONDITION, "the scene is not an object world");
    if (!wk_ecm_exists(s->ecm, parent) || !wk_scene_object_of(s, parent))
        return wk_fail(st, WK_NOT_FOUND, "parent entity %llu is not part of any object", (unsigned long long)parent);
    return WK_OK;
}

int wk__prepare_node(const wk_scene *s, const char *what, const char *name, bool global_alias, wk_entity *parent,
                     wk_pose base_T_node, wk_pose *parent_T_node, wk_status *st)
{
    if (!*parent)
        *parent = s->root;
    int rc = wk__check_parent(s, *parent, st);
    if (rc)
        return rc;
    base_T_node = wk__desc_pose(base_T_node);
    char why[128];
    if (wk_pose_problem(base_T_node, why, sizeof why))
        return wk_fail(st, WK_INVALID, "pose of new %s '%s': %s", what, name ? name : "", why);
    if ((rc = wk__name_free(s, wk_scene_object_of(s, *parent), name, global_alias, 0, st)))
        return rc;
    *parent_T_node = wk__pose_under(s, *parent, base_T_node);
    if (strcmp(what, "object") == 0 && wk__is_attachment_frame(s, *parent))
        *parent_T_node = wk_pose_identity(); /* snapped onto the frame */
    return WK_OK;
}

int wk_scene_create_object(wk_scene *s, const wk_object_desc *desc, wk_entity *out, wk_status *st)
{
    wk_entity parent = desc->parent;
    wk_pose parent_T_object;
    int rc = wk__prepare_node(s, "object", desc->name, desc->name_is_global_alias, &parent, desc->pose,
                              &parent_T_object, st);
    if (rc)
        return rc;
    const char *entity_name = desc->entity_name ? desc->entity_name : desc->name;
    if (!wk_scene_name_valid(entity_name))
        return wk_fail(st, WK_INVALID, "entity name '%s' of new object '%s' is invalid", entity_name, desc->name);
    wk_scene_geometry geometry;
    if (desc->geometry && (rc = wk__geometry_check(entity_name, desc->geometry, desc->uri, &geometry, st)))
        return rc;
    if (desc->physics && (rc = wk__physics_check(entity_name, desc->physics, st)))
        return rc;

    const wk_scene_types *t = &s->types;
    uint8_t kind = WK_NODE_MODEL;
    wk_object_info info = {(char *)desc->name, WK_OBJECT_PHYSICAL, desc->name_is_global_alias};
    wk_type types[7] = {t->name, t->kind, t->parent_pose, t->object};
    const void *values[7] = {&entity_name, &kind, &parent_T_object, &info};
    size_t n = 4;
    if (desc->physics) {
        types[n] = t->physics;
        values[n++] = desc->physics;
    }
    if (desc->geometry) {
        types[n] = t->geometry;
        values[n++] = &geometry;
    }
    if (desc->uri) {
        types[n] = t->uri;
        values[n++] = &desc->uri;
    }
    wk_entity e = wk_ecm_create_with(s->ecm, types, values, n);
    if (!e)
        return wk_fail(st, WK_NOMEM, "creating object '%s': %s", desc->name, wk_ecm_errmsg(s->ecm));
    if (wk_ecm_set_parent(s->ecm, e, parent) || wk__names_add(s, e)) {
        wk_ecm_destroy(s->ecm, e, false);
        return wk_fail(st, WK_NOMEM, "out of memory creating object '%s'", desc->name);
    }
    *out = e;
    return WK_OK;
}

int wk_scene_delete_object(wk_scene *s, wk_entity object, bool force, wk_status *st)
{
    if (object == s->root)
        return wk_fail(st, WK_INVALID, "the root object cannot be deleted");
    if (!wk_scene_is_object(s, object))
        return wk_fail(st, WK_NOT_FOUND, "entity %llu is not an object", (unsigned long long)object);
    wk_entity_list objects = {0};
    int rc = wk_scene_object_children(s, object, &objects);
    if (rc)
        goto fail_nomem;
    if (objects.count && !force) {
        rc = wk_fail(st, WK_PRECONDITION, "object '%s' has %zu child object(s), '%s' first: delete with force",
                     wk__object_name(s, object), objects.count, wk__object_name(s, objects.items[0]));
        goto done;
    }
    /* Every object of the subtree leaves the name index. */
    objects.count = 0;
    if ((rc = wk_entity_list_push(&objects, object)))
        goto fail_nomem;
    for (size_t i = 0; i < objects.count; i++)
        if ((rc = wk_scene_object_children(s, objects.items[i], &objects)))
            goto fail_nomem;
    if ((rc = wk__collision_forget(s, object, st)))
        goto done;
    for (size_t i = 0; i < objects.count; i++)
        wk__names_remove(s, objects.items[i]);
    wk__pose_invalidate(s, object);
    wk_ecm_destroy(s->ecm, object, true);
    goto done;
fail_nomem:
    rc = wk_fail(st, WK_NOMEM, "out of memory deleting object '%s'", wk__object_name(s, object));
done:
    wk_entity_list_free(&objects);
    return rc;
}

bool wk__is_attachment_frame(const wk_scene *s, wk_entity e)
{
    const wk_frame_info *f = wk_ecm_get(s->ecm, e, s->types.frame);
    return f && f->is_attachment_frame;
}
