/* object_tree.c — reading the object model off the entity tree: which
 * object an entity belongs to, parents of objects and frames, and walks over
 * an object's entities, frames and child objects. */
#include <string.h>

#include "scene/scene_internal.h"

bool wk_scene_is_object(const wk_scene *s, wk_entity e)
{
    return wk_ecm_has(s->ecm, e, s->types.object);
}

bool wk_scene_is_frame(const wk_scene *s, wk_entity e)
{
    return wk_ecm_has(s->ecm, e, s->types.frame);
}

wk_entity wk_scene_root(const wk_scene *s)
{
    return s->root;
}

const wk_object_info *wk_scene_object_info(const wk_scene *s, wk_entity e)
{
    return wk_ecm_get(s->ecm, e, s->types.object);
}

const char *wk__object_name(const wk_scene *s, wk_entity object)
{
    const wk_object_info *o = wk_scene_object_info(s, object);
    return o && o->name ? o->name : "";
}

const char *wk__entity_name(const wk_scene *s, wk_entity e)
{
    const char *name = wk_scene_name(s, e);
    return name ? name : "";
}

const char *wk__node_name(const wk_scene *s, wk_entity node)
{
    return wk_scene_is_object(s, node) ? wk__object_name(s, node) : wk__entity_name(s, node);
}

wk_entity wk_scene_object_of(const wk_scene *s, wk_entity e)
{
    while (e && !wk_scene_is_object(s, e))
        e = wk_ecm_parent(s->ecm, e);
    return e;
}

wk_entity wk_scene_parent_object(const wk_scene *s, wk_entity object)
{
    return wk_scene_object_of(s, wk_ecm_parent(s->ecm, object));
}

wk_entity wk_scene_parent_frame(const wk_scene *s, wk_entity node)
{
    wk_entity parent = wk_ecm_parent(s->ecm, node);
    return wk_scene_is_frame(s, parent) ? parent : WK_NULL_ENTITY;
}

wk_entity wk_scene_parent_node(const wk_scene *s, wk_entity node)
{
    wk_entity frame = wk_scene_parent_frame(s, node);
    return frame ? frame : wk_scene_object_of(s, wk_ecm_parent(s->ecm, node));
}

/* The next entity of a depth-first walk below top after x, descending into
 * x's children only when down is true. */
static wk_entity walk_next(const wk_ecm *ecm, wk_entity top, wk_entity x, bool down)
{
    wk_entity next = down ? wk_ecm_first_child(ecm, x) : WK_NULL_ENTITY;
    for (; !next && x != top; x = wk_ecm_parent(ecm, x))
        next = wk_ecm_next_sibling(ecm, x);
    return next;
}

int wk__walk_object(const wk_scene *s, wk_entity object, wk__walk_fn fn, void *ctx)
{
    int rc = fn(s, object, true, ctx);
    for (wk_entity x = wk_ecm_first_child(s->ecm, object); x && !rc;) {
        bool inside = !wk_scene_is_object(s, x);
        rc = fn(s, x, inside, ctx);
        x = walk_next(s->ecm, object, x, inside);
    }
    return rc;
}

typedef struct collect {
    wk_entity_list *out;
    enum { CHILD_OBJECTS, FRAMES, ENTITIES } what;
} collect;

static int collect_one(const wk_scene *s, wk_entity e, bool inside, void *ctx)
{
    const collect *c = ctx;
    bool take = c->what == CHILD_OBJECTS ? !inside
              : c->what == FRAMES        ? inside && wk_scene_is_frame(s, e)
                                         : inside;
    return take ? wk_entity_list_push(c->out, e) : WK_OK;
}

int wk_scene_object_children(const wk_scene *s, wk_entity object, wk_entity_list *out)
{
    return wk__walk_object(s, object, collect_one, &(collect){out, CHILD_OBJECTS});
}

int wk_scene_object_frames(const wk_scene *s, wk_entity object, wk_entity_list *out)
{
    return wk__walk_object(s, object, collect_one, &(collect){out, FRAMES});
}

int wk_scene_object_entities(const wk_scene *s, wk_entity object, wk_entity_list *out)
{
    return wk__walk_object(s, object, collect_one, &(collect){out, ENTITIES});
}

int wk_scene_frame_children(const wk_scene *s, wk_entity frame, wk_entity_list *out)
{
    for (wk_entity c = wk_ecm_first_child(s->ecm, frame); c; c = wk_ecm_next_sibling(s->ecm, c))
        if (wk_scene_is_frame(s, c) && wk_entity_list_push(out, c))
            return WK_NOMEM;
    return WK_OK;
}

int wk_scene_objects(const wk_scene *s, wk_entity_list *out)
{
    if (!wk_scene_is_object(s, s->root))
        return WK_OK; /* not an object world, or its root lost its Object to a state applied */
    /* Breadth first over objects: parents before children. */
    size_t first = out->count;
    int rc = wk_entity_list_push(out, s->root);
    for (size_t i = first; rc == WK_OK && i < out->count; i++)
        rc = wk_scene_object_children(s, out->items[i], out);
    return rc;
}
