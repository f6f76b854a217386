/* edit.c — renaming and reparenting objects and frames. */
#include <stdlib.h>
#include <string.h>

#include "scene/scene_internal.h"

static int check_node(const wk_scene *s, wk_entity node, wk_status *st)
{
    if (node == s->root)
        return wk_fail(st, WK_INVALID, "the root object cannot be renamed or moved");
    if (!wk_scene_is_object(s, node) && !wk_scene_is_frame(s, node))
        return wk_fail(st, WK_NOT_FOUND, "entity %llu is neither an object nor a frame", (unsigned long long)node);
    return WK_OK;
}

int wk_scene_rename(wk_scene *s, wk_entity node, const char *name, bool global_alias, wk_status *st)
{
    int rc = check_node(s, node, st);
    if (rc)
        return rc;
    bool object = wk_scene_is_object(s, node);
    wk_entity scope = wk_scene_object_of(s, wk_ecm_parent(s->ecm, node));
    if ((rc = wk__name_free(s, scope, name, object && global_alias, node, st)))
        return rc;
    if (!object) {
        rc = wk_ecm_set(s->ecm, node, s->types.name, &name);
        return rc < 0 ? wk_fail(st, rc, "renaming frame to '%s': %s", name, wk_ecm_errmsg(s->ecm)) : WK_OK;
    }
    wk_object_info info = *wk_scene_object_info(s, node);
    info.name = (char *)name;
    info.name_is_global_alias = global_alias;
    wk__names_remove(s, node);
    rc = wk_ecm_set(s->ecm, node, s->types.object, &info);
    if (wk__names_add(s, node) && rc >= 0)
        rc = WK_NOMEM;
    return rc < 0 ? wk_fail(st, rc, "renaming object to '%s'", name) : WK_OK;
}

typedef struct move_check {
    wk_entity scope;
    wk_status *st;
} move_check;

/* Checks that the frames and objects a moved frame carries along keep
 * unique names in their new object. */
static int carried_names_free(const wk_scene *s, wk_entity node, move_check *m)
{
    for (wk_entity c = wk_ecm_first_child(s->ecm, node); c; c = wk_ecm_next_sibling(s->ecm, c)) {
        bool object = wk_scene_is_object(s, c);
        if (!object && !wk_scene_is_frame(s, c))
            continue;
        const char *name = object ? wk__object_name(s, c) : wk__entity_name(s, c);
        const wk_object_info *info = wk_scene_object_info(s, c);
        int rc = wk__name_free(s, m->scope, name, info && info->name_is_global_alias, c, m->st);
        if (rc || (!object && (rc = carried_names_free(s, c, m))))
            return rc;
    }
    return WK_OK;
}

int wk_scene_reparent(wk_scene *s, wk_entity node, wk_entity parent, wk_status *st)
{
    int rc = check_node(s, node, st);
    if (rc || (rc = wk__check_parent(s, parent, st)))
        return rc;
    for (wk_entity e = parent; e; e = wk_ecm_parent(s->ecm, e))
        if (e == node)
            return wk_fail(st, WK_INVALID, "'%s' cannot be attached below itself", wk__node_name(s, node));
    bool object = wk_scene_is_object(s, node);
    wk_entity scope = wk_scene_object_of(s, parent);
    if (scope != wk_scene_object_of(s, wk_ecm_parent(s->ecm, node))) {
        const wk_object_info *info = wk_scene_object_info(s, node);
        const char *name = wk__node_name(s, node);
        if ((rc = wk__name_free(s, scope, name, object && info->name_is_global_alias, node, st)))
            return rc;
        if (!object && ((rc = carried_names_free(s, node, &(move_check){scope, st})) ||
                        (rc = wk__kinematic_refs_check(s, node, "moved to another object", st))))
            return rc;
    }
    /* An object attached to an attachment frame snaps onto it. */
    wk_pose parent_T_node = object && wk__is_attachment_frame(s, parent) ? wk_pose_identity()
                                                                         : wk_scene_transform(s, parent, node);
    if ((rc = wk_ecm_set_parent(s->ecm, node, parent)) < 0)
        return wk_fail(st, rc, "%s", wk_ecm_errmsg(s->ecm));
    return wk_scene_set_pose(s, node, parent_T_node, st);
}
