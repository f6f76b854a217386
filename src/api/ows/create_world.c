/* create_world.c — CreateWorld: a new world of the store, built from a
 * World snapshot (what GetWorld-style reads and UpdateWorldResources
 * return), all or nothing.
 *
 * What of a snapshot is applied:
 * - world_metadata.id (used when free, as a prefix when taken; none: a new
 *   id) and user_tag; the hash and the time are the new world's own.
 * - The name of the root object's base entity (a world file's world name).
 * - Every object but the root, parents before children whatever the order
 *   in the snapshot: its name, name_is_global_alias, its parent (the object
 *   the parent_entity names, or the frame whose entity it is; a parent
 *   entity the snapshot does not rebuild gives the parent object's base),
 *   object_component.parent_t_this, its simulation component (static) and
 *   user data. Its entities (the FULL view's map): the base entity
 *   (entities[root_entity_id]) with its name, geometry (geometry.c's
 *   mapping) and physics, and every other entity but those of frames below
 *   the entity its parent_id names, with name, parent_t_this, geometry,
 *   physics and kinematics component (wk_scene_add_entity: a visual or a
 *   collision when its geometry component holds only that set, as
 *   geometry.c writes a world file's visuals and collisions (an empty
 *   set: a shape the snapshot cannot hold, left out), else a joint
 *   when it has kinematics, else a link).
 * - Every frame of every object (the root's global frames too), parents
 *   before children: name, parent frame or object (the entity its own
 *   entity hangs from, when rebuilt: a frame on a link stays on it),
 *   parent_t_this and is_attachment_frame.
 * - Once everything else stands (create_world_refs.c): a kinematic
 *   object's KinematicObjectComponent (joints, system and application
 *   limits, joint positions, named configurations, IK solvers and ISO
 *   flange frames), then the world's collision settings.
 * - Where the snapshot gives an entity's own parent_t_this below the same
 *   parent, that pose is kept bit for bit rather than re-expressed from
 *   the object- or frame-relative one.
 * Ids are the new world's: references between parts of the snapshot are
 * followed through a table from the snapshot's ids to the new entities. An
 * empty World (or none) gives an empty world.
 *
 * What a snapshot cannot hold: a mimic coupling (a joint of a world file
 * that follows another, wk_joint_mimic) has no field in Intrinsic's
 * KinematicsComponent or KinematicObjectComponent, and a follower is no
 * degree of freedom, so it comes back as a joint entity at its snapshot
 * position that follows nothing. CloneWorld, which copies the world's
 * components, keeps the coupling. */
#include <stdlib.h>
#include <string.h>

#include "api/ows/create_world.h"

wk_entity wk__id_map_lookup(const wk__id_map *m, const char *id)
{
    for (size_t i = 0; id && *id && i < m->count; i++)
        if (strcmp(m->items[i].id, id) == 0)
            return m->items[i].e;
    return WK_NULL_ENTITY;
}

static int add(wk__id_map *m, const char *id, wk_entity e, wk_status *st)
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
    wk__call *call;
    const IntrinsicProto__World__World *world;
    wk__id_map map;
    wk__id_map frame_entities; /* the entity ids of the snapshot's frames: parents to wait for */
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
    wk_entity e = wk__id_map_lookup(&b->map, parent_entity);
    *ready = true;
    if (e)
        return e;
    if (wk__id_map_lookup(&b->frame_entities, parent_entity)) {
        *ready = false; /* a frame of the snapshot, still to come */
        return WK_NULL_ENTITY;
    }
    e = o->parent ? wk__id_map_lookup(&b->map, o->parent->id) : wk_scene_root(b->s);
    *ready = e != WK_NULL_ENTITY;
    return e;
}

/* Puts the snapshot's own ParentPose of entity m on e when e hangs from
 * the entity m's parent_id names: bit for bit, where re-expressing an
 * object- or frame-relative pose would round it. */
static int keep_own_pose(build *b, wk_entity e, const IntrinsicProto__World__Entity *m, wk_status *st)
{
    if (!m || !m->parent_t_this || wk__id_map_lookup(&b->map, m->parent_id) != wk_ecm_parent(wk_scene_ecm(b->s), e))
        return WK_OK;
    return wk_scene_set_pose(b->s, e, wk__ows_pose_in(m->parent_t_this), st);
}

/* An entity's geometry and physics, when it has them: *geometry and
 * *physics left NULL otherwise. */
typedef struct entity_parts {
    wk_scene_geometry geometry_value;
    wk_physics physics_value;
    const wk_scene_geometry *geometry;
    const wk_physics *physics;
    const char *uri;
} entity_parts;

static int parts_of(wk__call *call, const IntrinsicProto__World__Entity *m, entity_parts *out, wk_status *st)
{
    *out = (entity_parts){0};
    int rc = WK_OK;
    if (m && m->geometry_component && !wk__ows_geometry_is_empty(m->geometry_component) &&
        (rc = wk__ows_geometry_in(call, m->geometry_component, &out->geometry_value, &out->uri, st)) == WK_OK)
        out->geometry = &out->geometry_value;
    if (rc == WK_OK && m && m->physics_component &&
        (rc = wk__ows_physics_in(m->physics_component, &out->physics_value, st)) == WK_OK)
        out->physics = &out->physics_value;
    return rc;
}

static int make_entity(build *b, const char *id, const IntrinsicProto__World__Entity *m, wk_entity parent,
                       wk_status *st)
{
    entity_parts p;
    int rc = parts_of(b->call, m, &p, st);
    wk_kinematics kin;
    if (m->kinematics_component)
        kin = wk__ows_kinematics_in(m->kinematics_component);
    wk_entity_desc desc = {
        .name = m->name,
        .kind = wk__ows_geometry_kind(m->geometry_component),
        .parent = parent,
        .parent_t_this = wk__ows_pose_in(m->parent_t_this),
        .geometry = p.geometry,
        .uri = p.uri,
        .physics = p.physics,
        .kinematics = m->kinematics_component ? &kin : NULL,
    };
    wk_entity e;
    if (rc == WK_OK && (rc = wk_scene_add_entity(b->s, &desc, &e, st)) == WK_OK)
        rc = add(&b->map, id, e, st);
    return rc;
}

/* Whether entity i of o is rebuilt by make_entities: not the base, not a
 * frame's. */
static bool plain_entity(const build *b, const IntrinsicProto__World__Object *o, size_t i)
{
    const char *id = o->entities[i]->key;
    return o->entities[i]->value && !(id && o->root_entity_id && strcmp(id, o->root_entity_id) == 0) &&
           !wk__id_map_lookup(&b->frame_entities, id);
}

/* Rebuilds the entities of o below object's, parents before children
 * whatever their order in the map. */
static int make_entities(build *b, const IntrinsicProto__World__Object *o, wk_entity object, wk_status *st)
{
    bool *done = calloc(o->n_entities + 1, sizeof *done);
    if (!done)
        return wk_fail(st, WK_NOMEM, "out of memory building object '%s'", o->name ? o->name : "");
    for (size_t i = 0; i < o->n_entities; i++)
        done[i] = !plain_entity(b, o, i);
    int rc = WK_OK;
    for (bool progress = true; rc == WK_OK && progress;) {
        progress = false;
        for (size_t i = 0; rc == WK_OK && i < o->n_entities; i++) {
            wk_entity parent = done[i] ? WK_NULL_ENTITY : wk__id_map_lookup(&b->map, o->entities[i]->value->parent_id);
            if (!parent || wk_scene_object_of(b->s, parent) != object)
                continue;
            rc = make_entity(b, o->entities[i]->key, o->entities[i]->value, parent, st);
            done[i] = progress = true;
        }
    }
    for (size_t i = 0; rc == WK_OK && i < o->n_entities; i++)
        if (!done[i])
            rc = wk_fail(st, WK_INVALID,
                         "CreateWorld: entity '%s' of object '%s' hangs from an entity of the object that the "
                         "snapshot does not hold",
                         o->entities[i]->value->name ? o->entities[i]->value->name : "", o->name ? o->name : "");
    free(done);
    return rc;
}

static int make_object(build *b, const IntrinsicProto__World__Object *o, wk_entity parent, wk_status *st)
{
    const char *name = o->name ? o->name : "";
    const IntrinsicProto__World__Entity *base = entity_of(o, o->root_entity_id);
    entity_parts p;
    int rc = parts_of(b->call, base, &p, st);
    if (rc)
        return rc;
    wk_object_desc desc = {
        .name = name,
        .parent = parent,
        .pose = o->object_component ? wk__ows_pose_in(o->object_component->parent_t_this) : wk_pose_identity(),
        .name_is_global_alias = o->name_is_global_alias,
        .entity_name = base && base->name && *base->name ? base->name : NULL,
        .geometry = p.geometry,
        .uri = p.uri,
        .physics = p.physics,
    };
    wk_entity e;
    if ((rc = wk_scene_create_object(b->s, &desc, &e, st)))
        return rc;
    if ((rc = add(&b->map, o->id, e, st)) || (rc = add(&b->map, o->root_entity_id, e, st)) ||
        (rc = keep_own_pose(b, e, base, st)) || (rc = make_entities(b, o, e, st)))
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
    wk_entity object = is_root(o) ? wk_scene_root(b->s) : wk__id_map_lookup(&b->map, o->id);
    for (size_t i = 0; object && i < o->n_frames; i++) {
        const IntrinsicProto__World__Frame *f = o->frames[i];
        if (b->done_frames[oi][i])
            continue;
        const char *entity_id = frame_entity_id(o, f);
        const IntrinsicProto__World__Entity *own = entity_of(o, entity_id);
        wk_entity parent = f->parent_frame && f->parent_frame->id && *f->parent_frame->id
                               ? wk__id_map_lookup(&b->map, f->parent_frame->id)
                               : object;
        wk_entity carrier = own ? wk__id_map_lookup(&b->map, own->parent_id) : WK_NULL_ENTITY;
        if (parent == object && carrier && wk_scene_object_of(b->s, carrier) == object)
            parent = carrier;
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
        if (rc == WK_OK && (rc = add(&b->map, f->id, e, st)) == WK_OK && (rc = add(&b->map, entity_id, e, st)) == WK_OK)
            rc = keep_own_pose(b, e, own, st);
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
            const IntrinsicProto__World__Entity *base = entity_of(o, o->root_entity_id);
            b->done_objects[i] = true;
            if ((rc = add(&b->map, o->id, wk_scene_root(b->s), st)) == WK_OK)
                rc = add(&b->map, o->root_entity_id, wk_scene_root(b->s), st);
            if (rc == WK_OK && base && base->name && *base->name)
                rc = wk_scene_name_root(b->s, base->name, st);
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
    if (rc == WK_OK && (rc = stuck(b, st)) == WK_OK)
        rc = wk__snapshot_kinematics(b->s, b->world, &b->map, st);
    if (rc == WK_OK && b->world->collision_settings)
        rc = wk__snapshot_collisions(b->s, b->call, b->world->collision_settings, &b->map, st);
    return rc;
}

static int apply_snapshot(wk_scene *s, wk__call *call, const IntrinsicProto__World__World *world, wk_status *st)
{
    build b = {.s = s, .call = call, .world = world};
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

int wk__ows_create_world(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    wk_status *st = call->status;
    const IntrinsicProto__World__CreateWorldRequest *req = (const void *)request;
    const IntrinsicProto__World__World *world = req->world;
    const IntrinsicProto__World__WorldMetadata *meta = world ? world->world_metadata : NULL;
    char id[WK_WORLD_ID_MAX];
    wk_world_create_desc desc = {.id = meta ? meta->id : NULL, .user_tag = meta ? meta->user_tag : NULL};
    int rc = wk_store_create(api->store, &desc, id, st);
    if (rc)
        return rc;
    if (world && (world->n_objects || world->collision_settings)) {
        wk_world *w;
        rc = wk_store_open(api->store, id, true, &w, st);
        if (rc == WK_OK) {
            rc = apply_snapshot(wk_world_scene(w), call, world, st);
            if (rc == WK_OK)
                rc = wk_store_room(w, st);
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
