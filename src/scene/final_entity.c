/* final_entity.c — the final entity of an object, which an entity filter's
 * include_final_entity picks: the end of the object's kinematic chain, the
 * one link no other link hangs from. Frames, visuals, collisions, sensors
 * and lights hang from links without being links, and joints join links
 * without being links, so none of them is ever the final entity, nor keeps
 * the link they hang from from being it: a two-link arm whose links carry
 * collision entities has one final entity, its second link. */
#include "scene/scene_internal.h"

/* Whether e is a link of the chain: an entity of the object that is neither
 * a frame nor of a kind that only hangs from links. An entity without a
 * kind (made through the ECM alone) counts as a link. */
static bool is_link(const wk_scene *s, wk_entity e)
{
    if (wk_scene_is_frame(s, e))
        return false;
    const uint8_t *kind = wk_ecm_get(s->ecm, e, s->types.kind);
    if (!kind)
        return true;
    switch (*kind) {
    case WK_NODE_JOINT:
    case WK_NODE_VISUAL:
    case WK_NODE_COLLISION:
    case WK_NODE_SENSOR:
    case WK_NODE_LIGHT:
        return false;
    default:
        return true;
    }
}

/* Whether a link hangs from e in the entity tree, directly or below joints
 * (a kinematic object's links hang from the joint that moves them). */
static bool has_link_below(const wk_scene *s, wk_entity e)
{
    for (wk_entity c = wk_ecm_first_child(s->ecm, e); c; c = wk_ecm_next_sibling(s->ecm, c)) {
        if (wk_scene_is_object(s, c))
            continue;
        if (is_link(s, c))
            return true;
        const uint8_t *kind = wk_ecm_get(s->ecm, c, s->types.kind);
        if (kind && *kind == WK_NODE_JOINT && has_link_below(s, c))
            return true;
    }
    return false;
}

typedef struct final_walk {
    wk_entity_list joint_parents; /* links some joint names as its parent, joined to another link */
    size_t count;
    wk_entity final;
} final_walk;

static int collect_joint_parents(const wk_scene *s, wk_entity e, bool inside, void *ctx)
{
    final_walk *w = ctx;
    const wk_scene_joint_links *links = inside ? wk_ecm_get(s->ecm, e, s->types.joint_links) : NULL;
    if (links && links->parent && links->child && links->child != links->parent)
        return wk_entity_list_push(&w->joint_parents, links->parent);
    return 0;
}

static bool listed(const wk_entity_list *list, wk_entity e)
{
    for (size_t i = 0; i < list->count; i++)
        if (list->items[i] == e)
            return true;
    return false;
}

static int count_final(const wk_scene *s, wk_entity e, bool inside, void *ctx)
{
    final_walk *w = ctx;
    /* A joint may also join links that hang side by side (a model's fixed
     * joints): its parent link is not final either. */
    if (inside && is_link(s, e) && !has_link_below(s, e) && !listed(&w->joint_parents, e)) {
        w->count++;
        w->final = e;
    }
    return 0;
}

int wk__final_entity(const wk_scene *s, wk_entity object, size_t *count, wk_entity *final, wk_status *st)
{
    final_walk w = {0};
    int rc = wk__walk_object(s, object, collect_joint_parents, &w);
    if (rc == 0)
        rc = wk__walk_object(s, object, count_final, &w);
    wk_entity_list_free(&w.joint_parents);
    if (rc)
        return wk_fail(st, WK_NOMEM, "out of memory finding the final entity of object '%s'",
                       wk__object_name(s, object));
    *count = w.count;
    *final = w.final;
    return WK_OK;
}
