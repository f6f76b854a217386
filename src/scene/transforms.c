/* transforms.c — poses in the transform tree: world poses from the cache,
 * a_T_b between any two entities, setting a pose, and UpdateTransform's
 * rule for which node moves. */
#include "scene/scene_internal.h"

wk_pose wk__desc_pose(wk_pose p)
{
    if (p.q.w == 0 && p.q.x == 0 && p.q.y == 0 && p.q.z == 0)
        p.q = wk_quat_identity();
    return p;
}

wk_pose wk_scene_pose(const wk_scene *s, wk_entity e)
{
    return wk__pose_of(s, e);
}

wk_pose wk_scene_transform(const wk_scene *s, wk_entity a, wk_entity b)
{
    return wk_pose_relative(wk__pose_of(s, a), wk__pose_of(s, b));
}

wk_pose wk_scene_node_pose(const wk_scene *s, wk_entity node)
{
    wk_entity parent = wk_scene_parent_node(s, node);
    return parent ? wk_scene_transform(s, parent, node) : wk_pose_identity();
}

int wk_scene_set_pose(wk_scene *s, wk_entity e, wk_pose parent_T_e, wk_status *st)
{
    char why[128];
    if (wk_pose_problem(parent_T_e, why, sizeof why))
        return wk_fail(st, WK_INVALID, "pose of '%s': %s", wk__node_name(s, e), why);
    int rc = wk_ecm_set(s->ecm, e, s->types.parent_pose, &parent_T_e);
    if (rc < 0)
        return wk_fail(st, rc, "%s", wk_ecm_errmsg(s->ecm));
    wk__pose_invalidate(s, e);
    return WK_OK;
}

/* The object base or frame e belongs to as a node of the transform tree. */
static wk_entity node_of(const wk_scene *s, wk_entity e)
{
    while (e && !wk_scene_is_object(s, e) && !wk_scene_is_frame(s, e))
        e = wk_ecm_parent(s->ecm, e);
    return e;
}

static bool ancestor_or_self(const wk_scene *s, wk_entity a, wk_entity e)
{
    for (; e; e = wk_ecm_parent(s->ecm, e))
        if (e == a)
            return true;
    return false;
}

wk_entity wk_scene_transform_child(const wk_scene *s, wk_entity a, wk_entity b)
{
    wk_entity na = node_of(s, a), nb = node_of(s, b);
    if (b == nb && wk_scene_parent_node(s, nb) == na)
        return b;
    if (a == na && wk_scene_parent_node(s, na) == nb)
        return a;
    return WK_NULL_ENTITY;
}

int wk_scene_update_transform(wk_scene *s, wk_entity a, wk_entity b, wk_entity update, wk_pose a_T_b, wk_status *st)
{
    char why[128];
    if (wk_pose_problem(a_T_b, why, sizeof why))
        return wk_fail(st, WK_INVALID, "a_t_b: %s", why);
    if (!update && !(update = wk_scene_transform_child(s, a, b)))
        return wk_fail(st, WK_INVALID,
                       "'%s' and '%s' are not neighbours in the transform tree (or one is refined below its node): "
                       "name the node to update",
                       wk__node_name(s, a), wk__node_name(s, b));
    if (update == s->root || (!wk_scene_is_object(s, update) && !wk_scene_is_frame(s, update)))
        return wk_fail(st, WK_INVALID, "'%s' cannot be moved: only objects other than root, and frames, can",
                       wk__entity_name(s, update));
    bool above_a = ancestor_or_self(s, update, a), above_b = ancestor_or_self(s, update, b);
    if (above_a == above_b)
        return wk_fail(st, WK_INVALID, "the node to update must be an ancestor of exactly one of the two nodes, not %s",
                       above_a ? "both" : "neither");
    /* Moving update changes the world pose of the side below it only:
     * solve world_T_update from the other side's unchanged world pose. */
    wk_pose world_T_parent = wk__pose_of(s, wk_ecm_parent(s->ecm, update));
    wk_pose world_T_update;
    if (above_b) {
        wk_pose update_T_b = wk_scene_transform(s, update, b);
        world_T_update = wk_pose_compose(wk_pose_compose(wk__pose_of(s, a), a_T_b), wk_pose_inverse(update_T_b));
    } else {
        wk_pose update_T_a = wk_scene_transform(s, update, a);
        world_T_update = wk_pose_compose(wk_pose_compose(wk__pose_of(s, b), wk_pose_inverse(a_T_b)),
                                         wk_pose_inverse(update_T_a));
    }
    wk_pose parent_T_update = wk_pose_compose(wk_pose_inverse(world_T_parent), world_T_update);
    wk_quat_normalize(parent_T_update.q, &parent_T_update.q);
    return wk_scene_set_pose(s, update, parent_T_update, st);
}
