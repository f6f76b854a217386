/* frames.c — creating and deleting frames and marking attachment frames. */
#include "scene/scene_internal.h"

int wk_scene_create_frame(wk_scene *s, const wk_frame_desc *desc, wk_entity *out, wk_status *st)
{
    wk_entity parent = desc->parent;
    wk_pose parent_T_frame;
    int rc = wk__prepare_node(s, "frame", desc->name, false, &parent, desc->pose, &parent_T_frame, st);
    if (rc)
        return rc;
    const wk_scene_types *t = &s->types;
    uint8_t kind = WK_NODE_FRAME;
    wk_frame_info info = {desc->is_attachment_frame};
    wk_entity e = wk_ecm_create_with(s->ecm, (wk_type[]){t->name, t->kind, t->parent_pose, t->frame},
                                     (const void *[]){&desc->name, &kind, &parent_T_frame, &info}, 4);
    if (!e)
        return wk_fail(st, WK_NOMEM, "creating frame '%s': %s", desc->name, wk_ecm_errmsg(s->ecm));
    if (wk_ecm_set_parent(s->ecm, e, parent)) {
        wk_ecm_destroy(s->ecm, e, false);
        return wk_fail(st, WK_NOMEM, "out of memory creating frame '%s'", desc->name);
    }
    *out = e;
    return WK_OK;
}

/* Moves the objects attached to frame or to frames below it up to target,
 * keeping their world poses. */
static int rescue_objects(wk_scene *s, wk_entity frame, wk_entity target, wk_status *st)
{
    for (wk_entity c = wk_ecm_first_child(s->ecm, frame), next; c; c = next) {
        next = wk_ecm_next_sibling(s->ecm, c);
        int rc = wk_scene_is_object(s, c)   ? wk_scene_reparent(s, c, target, st)
                 : wk_scene_is_frame(s, c) ? rescue_objects(s, c, target, st)
                                           : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

int wk_scene_delete_frame(wk_scene *s, wk_entity frame, bool force, wk_status *st)
{
    if (!wk_scene_is_frame(s, frame))
        return wk_fail(st, WK_NOT_FOUND, "entity %llu is not a frame", (unsigned long long)frame);
    wk_entity_list children = {0};
    int rc = wk_scene_frame_children(s, frame, &children);
    if (rc == WK_OK && children.count && !force)
        rc = wk_fail(st, WK_PRECONDITION, "frame '%s' has %zu child frame(s), '%s' first: delete with force",
                     wk__entity_name(s, frame), children.count, wk__entity_name(s, children.items[0]));
    wk_entity_list_free(&children);
    if (rc == WK_OK && (rc = wk__kinematic_refs_check(s, frame, "deleted", st)) == WK_OK)
        rc = rescue_objects(s, frame, wk_ecm_parent(s->ecm, frame), st);
    if (rc)
        return rc;
    wk__pose_invalidate(s, frame);
    wk_ecm_destroy(s->ecm, frame, true);
    return WK_OK;
}

int wk_scene_set_attachment_frame(wk_scene *s, wk_entity frame, bool is_attachment_frame, wk_status *st)
{
    if (!wk_scene_is_frame(s, frame))
        return wk_fail(st, WK_NOT_FOUND, "entity %llu is not a frame", (unsigned long long)frame);
    wk_frame_info info = {is_attachment_frame};
    int rc = wk_ecm_set(s->ecm, frame, s->types.frame, &info);
    return rc < 0 ? wk_fail(st, rc, "%s", wk_ecm_errmsg(s->ecm)) : WK_OK;
}
