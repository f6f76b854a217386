/* batch.c — how ObjectWorldService's mutations run: one table from each
 * request type to its apply function (objects.c, frames.c, ...) and
 * its reply, used both by the single RPCs (wk__ows_mutate) and by
 * UpdateWorldResources, whose ObjectWorldUpdate cases are found through the
 * same table by their message type. Every run is one scene batch on a world
 * open for writing: all of it is kept, or on the first failure none of it.
 * What is kept is made durable (wk_store_commit, structural unless every
 * change was a pose or joint position) before the reply is made from it, so
 * a client hears OK only for a change the store has. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/ows/edit.h"

/* ---- shared by the apply functions ------------------------------------- */

int wk__ows_context(wk_status *st, int code, const char *fmt, ...)
{
    char context[WK_STATUS_MSG_MAX], message[WK_STATUS_MSG_MAX];
    snprintf(message, sizeof message, "%s", st ? st->message : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
    return message[0] ? wk_fail(st, code, "%s: %s", context, message) : wk_fail(st, code, "%s", context);
}

int wk__ows_pose_checked(const IntrinsicProto__Pose *msg, const char *what, wk_pose *out, wk_status *st)
{
    *out = wk__ows_pose_in(msg);
    char why[128];
    if (wk_pose_problem(*out, why, sizeof why))
        return wk_fail(st, WK_INVALID, "%s: %s", what, why);
    return WK_OK;
}

int wk__ows_edit_object(wk__ows_edit *e, const IntrinsicProto__World__ObjectReference *ref, const char **name)
{
    int rc = wk__ows_find_object(e->scene, ref, &e->node, e->st);
    if (rc == WK_OK)
        *name = wk_scene_object_info(e->scene, e->node)->name;
    return rc;
}

int wk__ows_attach_parent(wk__ows_edit *e, const IntrinsicProto__World__ObjectReferenceWithEntityFilter *object,
                          const IntrinsicProto__World__FrameReference *frame, wk_entity *out)
{
    if (object)
        return wk__ows_find_filtered_one(e->scene, e->call, object, out, e->st);
    if (frame)
        return wk__ows_find_frame(e->scene, frame, out, e->st);
    return wk_fail(e->st, WK_INVALID, "attach_to is not set (parent_object or parent_frame)");
}

/* ---- replies ------------------------------------------------------------ */

typedef int (*reply_fn)(wk__ows_edit *e, ProtobufCMessage **response);

static int nomem(wk__ows_edit *e)
{
    return wk_fail(e->st, WK_NOMEM, "out of memory answering for world '%s'", e->world_id);
}

static int reply_empty(wk__ows_edit *e, ProtobufCMessage **response)
{
    (void)e;
    (void)response;
    return WK_OK;
}

static int reply_object(wk__ows_edit *e, ProtobufCMessage **response)
{
    IntrinsicProto__World__Object *m = wk__ows_object(e->call, e->scene, e->world_id, e->node, e->view);
    *response = m ? &m->base : NULL;
    return m && !e->call->failed ? WK_OK : nomem(e);
}

static int reply_frame(wk__ows_edit *e, ProtobufCMessage **response)
{
    IntrinsicProto__World__Frame *m = wk__ows_frame(e->call, e->scene, e->world_id, e->node, true);
    *response = m ? &m->base : NULL;
    return m && !e->call->failed ? WK_OK : nomem(e);
}

static int reply_entity(wk__ows_edit *e, ProtobufCMessage **response)
{
    IntrinsicProto__World__Entity *m = wk__ows_entity(e->call, e->scene, e->world_id, e->node);
    *response = m ? &m->base : NULL;
    return m && !e->call->failed ? WK_OK : nomem(e);
}

/* UpdateTransformResponse: the node that moved, an Object in the view asked
 * for or a Frame, always whole. */
static int reply_transform(wk__ows_edit *e, ProtobufCMessage **response)
{
    IntrinsicProto__World__UpdateTransformResponse *m = (void *)*response;
    if (wk_scene_is_frame(e->scene, e->node)) {
        m->updated_node_case = INTRINSIC_PROTO__WORLD__UPDATE_TRANSFORM_RESPONSE__UPDATED_NODE_FRAME;
        m->frame = wk__ows_frame(e->call, e->scene, e->world_id, e->node, true);
    } else {
        m->updated_node_case = INTRINSIC_PROTO__WORLD__UPDATE_TRANSFORM_RESPONSE__UPDATED_NODE_OBJECT;
        m->object = wk__ows_object(e->call, e->scene, e->world_id, e->node, e->view);
    }
    return e->call->failed ? nomem(e) : WK_OK;
}

/* ToggleCollisions: the objects of both sides (once when they are one). */
static int reply_objects(wk__ows_edit *e, ProtobufCMessage **response)
{
    IntrinsicProto__World__Objects *m = (void *)*response;
    size_t n = e->others[0] == e->others[1] ? 1 : 2;
    IntrinsicProto__World__Object **objects = wk__ows_array(e->call, n, sizeof *objects);
    if (!objects)
        return nomem(e);
    for (size_t i = 0; i < n; i++)
        objects[i] = wk__ows_object(e->call, e->scene, e->world_id, e->others[i], e->view);
    m->objects = objects;
    m->n_objects = n;
    return e->call->failed ? nomem(e) : WK_OK;
}

/* World.world_metadata of a World reply, read once the world is closed (the
 * store hashes a world under its own read lock): the call's after. */
static int world_meta(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage *response)
{
    const char *world_id = wk__ows_world_id(request);
    wk_world_meta meta;
    int rc = wk_store_meta(api->store, world_id, &meta, call->status);
    if (rc)
        return rc;
    ((IntrinsicProto__World__World *)response)->world_metadata = wk__ows_metadata(call, &meta);
    return call->failed ? wk_fail(call->status, WK_NOMEM, "out of memory answering for world '%s'", world_id)
                        : WK_OK;
}

/* UpdateCollisionSettings: the World after the update, its objects in the
 * FULL view as World says; the metadata follows once the world is closed
 * (world_meta above). */
static int reply_world(wk__ows_edit *e, ProtobufCMessage **response)
{
    IntrinsicProto__World__World *m = (void *)*response;
    e->call->after = world_meta;
    m->collision_settings = wk__ows_collision_settings(e->call, e->scene);
    int rc = wk__ows_objects(e->call, e->scene, e->world_id, WK__OWS_FULL, &m->objects, &m->n_objects);
    return rc || e->call->failed ? nomem(e) : WK_OK;
}

/* ---- the table ---------------------------------------------------------- */

static const struct mutation {
    const ProtobufCMessageDescriptor *request;
    wk__ows_apply_fn apply;
    reply_fn reply;
} mutations[] = {
    {&intrinsic_proto__world__create_object_request__descriptor, wk__ows_create_object, reply_object},
    {&intrinsic_proto__world__delete_object_request__descriptor, wk__ows_delete_object, reply_empty},
    {&intrinsic_proto__world__update_object_name_request__descriptor, wk__ows_update_object_name, reply_object},
    {&intrinsic_proto__world__reparent_object_request__descriptor, wk__ows_reparent_object, reply_object},
    {&intrinsic_proto__world__update_object_joints_request__descriptor, wk__ows_update_object_joints, reply_object},
    {&intrinsic_proto__world__update_object_joint_request__descriptor, wk__ows_update_object_joint, reply_object},
    {&intrinsic_proto__world__update_kinematic_object_properties_request__descriptor,
     wk__ows_update_kinematic_object_properties, reply_object},
    {&intrinsic_proto__world__update_object_properties_request__descriptor, wk__ows_update_object_properties,
     reply_object},
    {&intrinsic_proto__world__update_entity_properties_request__descriptor, wk__ows_update_entity_properties,
     reply_entity},
    {&intrinsic_proto__world__create_frame_request__descriptor, wk__ows_create_frame, reply_frame},
    {&intrinsic_proto__world__delete_frame_request__descriptor, wk__ows_delete_frame, reply_empty},
    {&intrinsic_proto__world__update_frame_name_request__descriptor, wk__ows_update_frame_name, reply_frame},
    {&intrinsic_proto__world__reparent_frame_request__descriptor, wk__ows_reparent_frame, reply_frame},
    {&intrinsic_proto__world__update_frame_properties_request__descriptor, wk__ows_update_frame_properties,
     reply_frame},
    {&intrinsic_proto__world__update_transform_request__descriptor, wk__ows_update_transform, reply_transform},
    {&intrinsic_proto__world__update_collision_settings_request__descriptor, wk__ows_update_collision_settings,
     reply_world},
    {&intrinsic_proto__world__toggle_collisions_request__descriptor, wk__ows_toggle_collisions, reply_objects},
};

static const struct mutation *mutation_of(const ProtobufCMessageDescriptor *type)
{
    for (size_t i = 0; i < sizeof mutations / sizeof mutations[0]; i++)
        if (mutations[i].request == type)
            return &mutations[i];
    return NULL;
}

/* A request's ObjectView (BASIC when it has none, or no view field). */
static wk__ows_view view_of(const ProtobufCMessage *request)
{
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(request->descriptor, "view");
    if (!f)
        return WK__OWS_BASIC;
    const char *base = (const char *)request;
    return wk__ows_view_of(*(const protobuf_c_boolean *)(base + f->quantifier_offset),
                           *(const IntrinsicProto__World__ObjectView *)(base + f->offset));
}

/* ---- running ------------------------------------------------------------ */

/* The world open for writing (the dispatcher's) with a batch begun on its
 * scene. */
typedef struct run {
    wk_world *world;
    wk_scene *scene;
    uint64_t version; /* the ECM's when the batch began */
} run;

static int run_begin(wk__call *call, run *r, wk_status *st)
{
    r->world = call->world;
    r->scene = wk_world_scene(r->world);
    r->version = wk_ecm_version(wk_scene_ecm(r->scene));
    int rc = wk_scene_batch_begin(r->scene, st);
    return rc ? wk__ows_context(st, rc, "world '%s'", wk_world_id(r->world)) : WK_OK;
}

/* Ends the batch: when rc is WK_OK and the world holds no more entities
 * than its store allows, keeps its changes and makes them durable
 * (wk_store_commit: structural unless only poses or joint positions
 * changed), else rolls them back. A batch that changed nothing commits
 * nothing: the ECM's version also moves when an earlier batch was rolled
 * back, which is no update of the world.
 * The world stays open for the reply (the dispatcher closes it), which is
 * made only from what was kept. Returns rc, or why the changes could not be kept (the store then
 * has put the world back as it was before them). */
static int run_keep(run *r, int rc, bool pose_only, wk_status *st)
{
    /* Asked of every batch that may have added entities: one that moved
     * poses or joints only adds none, and the ask counts the world's links
     * (what MuJoCo would compile), as long as the world is big. */
    if (rc == WK_OK && !pose_only)
        rc = wk_store_room(r->world, st);
    if (rc == WK_OK && (rc = wk_scene_batch_commit(r->scene)))
        rc = wk_fail(st, rc, "world '%s': the batch could not be committed", wk_world_id(r->world));
    if (rc) {
        wk_scene_batch_rollback(r->scene);
        return rc;
    }
    if (wk_ecm_version(wk_scene_ecm(r->scene)) == r->version)
        return WK_OK;
    rc = wk_store_commit(r->world, !pose_only, st);
    r->scene = wk_world_scene(r->world); /* a failed commit reloads the world */
    return rc ? wk__ows_context(st, rc, "world '%s': the change could not be kept", wk_world_id(r->world)) : WK_OK;
}

int wk__ows_mutate(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    wk_status *st = call->status;
    const struct mutation *m = mutation_of(request->descriptor);
    if (!m)
        return wk_fail(st, WK_UNSUPPORTED, "%s is not an update of ObjectWorldService", request->descriptor->name);
    const char *world_id = wk__ows_world_id(request);
    run r;
    int rc = run_begin(call, &r, st);
    if (rc)
        return rc;
    wk__ows_edit e = {.call = call, .scene = r.scene, .world_id = world_id, .st = st, .view = view_of(request),
                      .engine = wk__api_engine_on(api->endpoint, world_id, r.scene)};
    if ((rc = m->apply(&e, request)))
        rc = wk__ows_context(st, rc, "world '%s'", world_id);
    rc = run_keep(&r, rc, e.pose_only, st);
    e.scene = r.scene;
    return rc ? rc : m->reply(&e, response);
}

int wk__ows_update_world_resources(wk_api *api, wk__call *call, const ProtobufCMessage *request,
                                   ProtobufCMessage **response)
{
    wk_status *st = call->status;
    const IntrinsicProto__World__UpdateWorldResourcesRequest *req = (const void *)request;
    const char *world_id = req->world_id ? req->world_id : "";
    size_t n = req->world_updates ? req->world_updates->n_updates : 0;
    run r;
    int rc = run_begin(call, &r, st);
    if (rc)
        return rc;
    wk__ows_view view = wk__ows_view_of(req->has_view, req->view);
    wk_sim *engine = wk__api_engine_on(api->endpoint, world_id, r.scene);
    bool pose_only = true;
    for (size_t i = 0; rc == WK_OK && i < n; i++) {
        const IntrinsicProto__World__ObjectWorldUpdate *u = req->world_updates->updates[i];
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field(u->base.descriptor, (unsigned)u->update_case);
        const ProtobufCMessage *one = f ? *(ProtobufCMessage *const *)((const char *)u + f->offset) : NULL;
        const struct mutation *m = one ? mutation_of(one->descriptor) : NULL;
        if (!m) {
            rc = wk_fail(st, WK_INVALID, "UpdateWorldResources on world '%s': update %zu holds no update", world_id,
                         i);
            break;
        }
        if (*wk__ows_world_id(one)) {
            rc = wk_fail(st, WK_INVALID,
                         "UpdateWorldResources on world '%s': update %zu (%s) sets world_id '%s': updates of a batch "
                         "must not set one",
                         world_id, i, f->name, wk__ows_world_id(one));
            break;
        }
        wk__ows_edit e = {.call = call, .scene = r.scene, .world_id = world_id, .st = st, .view = view,
                          .engine = engine};
        if ((rc = m->apply(&e, one)))
            rc = wk__ows_context(st, rc, "UpdateWorldResources on world '%s': update %zu (%s)", world_id, i,
                                 f->name);
        pose_only = pose_only && e.pose_only;
    }
    if ((rc = run_keep(&r, rc, pose_only, st)) == WK_OK) {
        IntrinsicProto__World__UpdateWorldResourcesResponse *m = (void *)*response;
        m->collision_settings = wk__ows_collision_settings(call, r.scene);
        rc = wk__ows_objects(call, r.scene, world_id, view, &m->objects, &m->n_objects);
        if (rc || call->failed)
            rc = wk_fail(st, WK_NOMEM, "out of memory answering for world '%s'", world_id);
    }
    return rc;
}
