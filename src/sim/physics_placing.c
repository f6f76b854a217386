/* physics_placing.c — which entities a client may place (a pose, twist or
 * acceleration set with SetEntityState) while an engine moves the world.
 * The engine owns a link that hangs on a joint: it writes the link's pose
 * from the joint's position every step, so a pose set there would be
 * undone without a word; such a set is refused, naming the joint. A body
 * on no joint (a floating link, a model carried by its one root link) and
 * a static model (welded where it is put) may be placed. */
#include <stdio.h>

#include "sim/sim_internal.h"

/* The joint, other than a floating one, whose child is link and whose
 * parent link is outside within (the world counting as outside); none when
 * no joint holds it so. */
static wk_entity holding_joint(wk_scene *s, const wk_entity_list *joints, wk_entity link, wk_entity within)
{
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_scene_types *t = wk_scene_types_of(s);
    for (size_t k = 0; k < joints->count; k++) {
        const wk_scene_joint_links *jl = wk_ecm_get(ecm, joints->items[k], t->joint_links);
        const wk_scene_joint *j = wk_ecm_get(ecm, joints->items[k], t->joint);
        if (!jl || !j || jl->child != link || j->type == WK_JOINT_FLOATING)
            continue;
        bool inside = false;
        for (wk_entity up = jl->parent; up && !inside; up = wk_ecm_parent(ecm, up))
            inside = up == within;
        if (!inside)
            return joints->items[k];
    }
    return WK_NULL_ENTITY;
}

/* The joint that holds e's links to what is outside e, and the link it
 * holds in *held; none when e moves on its own. */
static int find_hold(wk_scene *s, wk_entity e, wk_entity *joint, wk_entity *held)
{
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_scene_types *t = wk_scene_types_of(s);
    uint8_t joint_kind = WK_NODE_JOINT, link_kind = WK_NODE_LINK;
    wk_entity_list joints = {0}, inside = {0};
    int rc = wk_ecm_find(ecm, &(wk_match){t->kind, &joint_kind}, 1, &joints);
    if (rc == WK_OK)
        rc = wk_ecm_descendants(ecm, e, &inside);
    *joint = WK_NULL_ENTITY;
    for (size_t i = 0; rc == WK_OK && !*joint && i < inside.count; i++) { /* e itself first */
        wk_entity link = inside.items[i];
        const uint8_t *kind = wk_ecm_get(ecm, link, t->kind);
        if (kind && *kind == link_kind && (*joint = holding_joint(s, &joints, link, e)))
            *held = link;
    }
    wk_entity_list_free(&joints);
    wk_entity_list_free(&inside);
    return rc;
}

int wk_sim_may_place(wk_sim *sim, wk_entity e, const char *name, wk_status *st)
{
    wk_scene *s = sim->scene;
    wk_ecm *ecm = wk_scene_ecm(s);
    if (!sim->physics)
        return WK_OK;
    for (wk_entity up = e; up; up = wk_ecm_parent(ecm, up))
        if (wk_ecm_has(ecm, up, wk_scene_types_of(s)->is_static))
            return WK_OK; /* welded where it is put */
    wk_entity joint, held;
    int rc = find_hold(s, e, &joint, &held);
    if (rc < 0)
        return wk_fail(st, WK_NOMEM, "out of memory");
    if (!joint)
        return WK_OK;
    const wk_scene_joint *j = wk_ecm_get(ecm, joint, wk_scene_types_of(s)->joint);
    const wk_scene_joint_links *jl = wk_ecm_get(ecm, joint, wk_scene_types_of(s)->joint_links);
    char parent[256] = "the world";
    if (jl->parent)
        snprintf(parent, sizeof parent, "'%s'", wk_scene_name(s, jl->parent));
    if (j->type == WK_JOINT_FIXED)
        return wk_fail(st, WK_PRECONDITION, "%s '%s' is welded to %s by fixed joint '%s': the physics engine places it",
                       held == e ? "link" : "entity", name, parent, wk_scene_name(s, joint));
    if (held == e)
        return wk_fail(st, WK_PRECONDITION, "link '%s' is moved by joint '%s'; set the joint position instead", name,
                       wk_scene_name(s, joint));
    return wk_fail(st, WK_PRECONDITION, "entity '%s' hangs on joint '%s' (its link '%s', to %s); set the joint position "
                                   "instead",
                   name, wk_scene_name(s, joint), wk_scene_name(s, held), parent);
}
