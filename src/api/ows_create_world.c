/* ows_create_world.c — CreateWorld: a new world of the store, built from a
 * World snapshot (what GetWorld-style reads and UpdateWorldResources
 * return), all or nothing.
 *
 * What of a snapshot is applied:
 * - world_metadata.id (used when free, as a prefix when taken; none: a new
 *   id) and user_tag; the hash and the time are the new world's own.
 * - Every object but the root, parents before children whatever the order
 *   in the snapshot: its name, name_is_global_alias, its parent (the object
 *   the parent_entity names, or the frame whose entity it is; a parent
 *   entity the snapshot does not rebuild, such as an inner link, gives the
 *   parent object's base), object_component.parent_t_this, its simulation
 *   component (static) and user data. The object is made of its base entity
 *   (entities[root_entity_id], in the FULL view): its name and geometry
 *   (ows_geometry.c's mapping); other entities of a PHYSICAL_OBJECT, and
 *   physics (which only an entity that has it may be given), are not
 *   rebuilt: the scene creates single-entity objects only.
 * - Every frame of every object (the root's global frames too), parents
 *   before children: name, parent frame or object, parent_t_this and
 *   is_attachment_frame.
 * - Not applied: kinematic objects (refused with UNIMPLEMENTED, naming the
 *   object: their joints are not rebuilt from entities), collision settings
 *   (their references are by the snapshot's ids).
 * Ids are the new world's: references between parts of the snapshot are
 * followed through a table from the snapshot's ids to the new entities. An
 * empty World (or none) gives an empty world. */
#include <stdlib.h>
#include <string.h>

#include "api/ows.h"

/* The snapshot's ids (of objects, frames and entities) and what they became. */
typedef struct id_map {
    struct {
        const char *id;
        wk_entity e;
    } *items;
    size_t count;
} id_map;

static wk_entity lookup(const id_map *m, const char *id)
{
    for (size_t i = 0; id && *id && i < m->count; i++)
        if (strcmp(m->items[i].id, id) == 0)
            return m->items[i].e;
    return WK_NULL_ENTITY;
}

static int add(id_map *m, const char *id, wk_entity e, wk_status *st)
{
    if (!id || !*id)
        return WK_OK;
    void *grown = realloc(m->items, (m->count + 1) * sizeof *m->items);
    if (!grown)
        return wk_fail(st, WK_NOMEM, "out of memory building a world from a snapshot");
    m->items = grown;
    m->items[m->count].id = id;
    m->items[m->count++].e = e;
    return WK_OK;
}

static const IntrinsicProto__World__Entity *entity_of(const IntrinsicProto__World__Object *o, const char *id)
{
    for (size_t i = 0; id && i < o->n_entities; i++)
        if (o->entities[i]->key && strcmp(o->entities[i]->key, id) == 0)
            return o->entities[i]->value;
    return NULL;
}

/* The id of the entity a frame of o is derived from: the entity of the same
 * name (Frame's documentation), or NULL in a snapshot without entities. */
static const char *frame_entity_id(const IntrinsicProto__World__Object *o, const IntrinsicProto__World__Frame *f)
{
    for (size_t i = 0; f->name && i < o->n_entities; i++) {
        const IntrinsicProto__World__Entity *e = o->entities[i]->value;
        if (e && e->name && strcmp(e->name, f->name) == 0 && o->entities[i]->key)
            return o->entities[i]->key;
    }
    return NULL;
}

typedef struct build {
    wk_scene *s;
    const IntrinsicProto__World__World *world;
    id_map map;
    id_map frame_entities; /* the entity ids of the snapshot's frames: parents to wait for */
    bool *done_objects, **done_frames;
} build;

static bool is_root(const IntrinsicProto__World__Object *o)
{
    return (o->has_type && o->type == INTRINSIC_PROTO__WORLD__OBJECT_TYPE__ROOT) || (o->id && !strcmp(o->id, "root"));
}

/* The entity a child object of o hangs from, WK_NULL_ENTITY to wait for it
 * (a frame not built yet); *ready false when its parent object is not there
 * yet either. */
static wk_entity object_parent(build *b, const IntrinsicProto__World__Object *o, bool *ready)
{
    const char *parent_entity = o->parent_entity && o->parent_entity->entity_reference_case ==
                                                        INTRINSIC_PROTO__WORLD__ENTITY_REFERENCE__ENTITY_REFERENCE_ID
                                    ? o->parent_entity->id
                                    : NULL;
    wk_entity e = lookup(&b->map, parent_entity);
    *ready = true;
    if (e)
        return e;
    if (lookup(&b->frame_entities, parent_entity)) {
        *ready = false; /* a frame of the snapshot, still to come */
        return WK_NULL_ENTITY;
    }
    e = o->parent ? lookup(&b->map, o->parent->id) : wk_scene_root(b->s);
    *ready = e != WK_NULL_ENTITY;
    return e;
}

static int make_object(build *b, const IntrinsicProto__World__Object *o, wk_entity parent, wk_status *st)
{
    const char *name = o->name ? o->name : "";
    if (o->has_type && o->type == INTRINSIC_PROTO__WORLD__OBJECT_TYPE__KINEMATIC_OBJECT)
        return wk_fail(st, WK_UNSUPPORTED,
                       "CreateWorld: object '%s' is a kinematic object, which a snapshot cannot rebuild yet", name);
    const IntrinsicProto__World__Entity *base = entity_of(o, o->root_entity_id);
    wk_scene_geometry geometry;
    const char *uri = NULL;
    int rc = WK_OK;
    if (base && base->geometry_component && (rc = wk__ows_geometry_in(base->geometry_component, &geometry, &uri, st)))
        return rc;
    wk_object_desc desc = {
        .name = name,
        .parent = parent,
        .pose = o->object_component ? wk__ows_pose_in(o->object_component->parent_t_this) : wk_pose_identity(),
        .name_is_global_alias = o->name_is_global_alias,
        .entity_name = base && base->name && *base->name ? base->name : NULL,
        .geometry = base && base->geometry_component ? &geometry : NULL,
        .uri = uri,
    };
    wk_entity e;
    if ((rc = wk_scene_create_object(b->s, &desc, &e, st)))
        return rc;
    if ((rc = add(&b->map, o->id, e, st)) || (rc = add(&b->map, o->root_entity_id, e, st)))
        return rc;
    const IntrinsicProto__World__ObjectComponent *c = o->object_component;
    if (c && c->simulation_component && c->simulation_component->is_static &&
        (rc = wk_scene_set_simulation(b->s, e, &(wk_simulation_component){.is_static = true}, st)))
        return rc;
    if (c && c->n_user_data) {
        wk_user_datum *data = calloc(c->n_user_data, sizeof *data);
        if (!data)
            return wk_fail(st, WK_NOMEM, "out of memory building object '%s'", name);
        for (size_t i = 0; i < c->n_user_data; i++) {
            const Google__Protobuf__Any *any = c->user_data[i]->value;
            data[i] = (wk_user_datum){c->user_data[i]->key, any ? any->type_url : NULL, any ? any->value.data : NULL,
                                      any ? any->value.len : 0};
        }
        rc = wk_scene_update_user_data(b->s, e, data, c->n_user_data, WK_USER_DATA_INSERT, st);
        free(data);
    }
    return rc;
}

/* Builds the frames of o whose parent is there; *progress set when one was. */
static int make_frames(build *b, size_t oi, bool *progress, wk_status *st)
{
    const IntrinsicProto__World__Object *o = b->world->objects[oi];
    wk_entity object = is_root(o) ? wk_scene_root(b->s) : lookup(&b->map, o->id);
    for (size_t i = 0; object && i < o->n_frames; i++) {
        const IntrinsicProto__World__Frame *f = o->frames[i];
        if (b->done_frames[oi][i])
            continue;
        wk_entity parent = f->parent_frame && f->parent_frame->id && *f->parent_frame->id
                               ? lookup(&b->map, f->parent_frame->id)
                               : object;
        if (!parent)
            continue;
        wk_frame_desc desc = {
            .name = f->name ? f->name : "",
            .parent = parent,
            .pose = wk__ows_pose_in(f->parent_t_this),
            .is_attachment_frame = f->is_attachment_frame,
        };
        wk_entity e;
        int rc = wk_scene_create_frame(b->s, &desc, &e, st);
        if (rc == WK_OK && (rc = add(&b->map, f->id, e, st)) == WK_OK)
            rc = add(&b->map, frame_entity_id(o, f), e, st);
        if (rc)
            return rc;
        b->done_frames[oi][i] = *progress = true;
    }
    return WK_OK;
}

/* Names the first part of the snapshot that could not be placed. */
static int stuck(const build *b, wk_status *st)
{
    for (size_t i = 0; i < b->world->n_objects; i++) {
        const IntrinsicProto__World__Object *o = b->world->objects[i];
        if (!b->done_objects[i])
            return wk_fail(st, WK_INVALID, "CreateWorld: object '%s' hangs from '%s', which the snapshot does not hold",
                           o->name ? o->name : "", o->parent && o->parent->name ? o->parent->name : "");
        for (size_t k = 0; k < o->n_frames; k++)
            if (!b->done_frames[i][k])
                return wk_fail(st, WK_INVALID,
                               "CreateWorld: frame '%s' of object '%s' hangs from a frame the snapshot does not hold",
                               o->frames[k]->name ? o->frames[k]->name : "", o->name ? o->name : "");
    }
    return WK_OK;
}

static int apply(build *b, wk_status *st)
{
    const IntrinsicProto__World__World *w = b->world;
    int rc = add(&b->map, "root", wk_scene_root(b->s), st);
    for (size_t i = 0; rc == WK_OK && i < w->n_objects; i++) {
        const IntrinsicProto__World__Object *o = w->objects[i];
        if (is_root(o)) {
            b->done_objects[i] = true;
            if ((rc = add(&b->map, o->id, wk_scene_root(b->s), st)) == WK_OK)
                rc = add(&b->map, o->root_entity_id, wk_scene_root(b->s), st);
        }
        for (size_t k = 0; rc == WK_OK && k < o->n_frames; k++)
            rc = add(&b->frame_entities, frame_entity_id(o, o->frames[k]), wk_scene_root(b->s), st);
    }
    /* Passes until nothing more can be placed: each places what hangs from
     * what earlier passes placed, so the snapshot's order does not matter. */
    for (bool progress = true; rc == WK_OK && progress;) {
        progress = false;
        for (size_t i = 0; rc == WK_OK && i < w->n_objects; i++) {
            bool ready = false;
            wk_entity parent = b->done_objects[i] ? WK_NULL_ENTITY : object_parent(b, w->objects[i], &ready);
            if (ready && parent) {
                rc = make_object(b, w->objects[i], parent, st);
                b->done_objects[i] = progress = true;
            }
            if (rc == WK_OK)
                rc = make_frames(b, i, &progress, st);
        }
    }
    return rc ? rc : stuck(b, st);
}

static int apply_snapshot(wk_scene *s, const IntrinsicProto__World__World *world, wk_status *st)
{
    build b = {.s = s, .world = world};
    int rc = WK_OK;
    b.done_objects = calloc(world->n_objects, sizeof *b.done_objects);
    b.done_frames = calloc(world->n_objects, sizeof *b.done_frames);
    if (!b.done_objects || !b.done_frames)
        rc = wk_fail(st, WK_NOMEM, "out of memory building a world from a snapshot");
    for (size_t i = 0; rc == WK_OK && i < world->n_objects; i++)
        if (!(b.done_frames[i] = calloc(world->objects[i]->n_frames + 1, sizeof **b.done_frames)))
            rc = wk_fail(st, WK_NOMEM, "out of memory building a world from a snapshot");
    if (rc == WK_OK)
        rc = apply(&b, st);
    for (size_t i = 0; b.done_frames && i < world->n_objects; i++)
        free(b.done_frames[i]);
    free(b.done_frames);
    free(b.done_objects);
    free(b.map.items);
    free(b.frame_entities.items);
    return rc;
}

int wk__ows_create_world(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response,
                         wk_status *st)
{
    const IntrinsicProto__World__CreateWorldRequest *req = (const void *)request;
    const IntrinsicProto__World__World *world = req->world;
    const IntrinsicProto__World__WorldMetadata *meta = world ? world->world_metadata : NULL;
    char id[WK_WORLD_ID_MAX];
    wk_world_create_desc desc = {.id = meta ? meta->id : NULL, .user_tag = meta ? meta->user_tag : NULL};
    int rc = wk_store_create(api->store, &desc, id, st);
    if (rc)
        return rc;
    if (world && world->n_objects) {
        wk_world *w;
        rc = wk_store_open(api->store, id, true, &w, st);
        if (rc == WK_OK) {
            rc = apply_snapshot(wk_world_scene(w), world, st);
            wk_store_close(w, true, true);
        }
        if (rc) {
            /* All or nothing: the half-built world goes. */
            wk_store_delete(api->store, id, NULL);
            return rc;
        }
    }
    wk_world_meta out;
    rc = wk_store_meta(api->store, id, &out, st);
    if (rc == WK_OK)
        *response = (ProtobufCMessage *)wk__ows_metadata(call, &out);
    return rc;
}
