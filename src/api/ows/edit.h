/* edit.h — the mutations of ObjectWorldService, shared by the single
 * RPCs and UpdateWorldResources. Each mutation is an apply function that
 * turns one request into wk_scene calls on a world open for writing, inside
 * a batch its caller opened; one table (batch.c) maps each request type
 * to its apply function, its reply and its ObjectWorldUpdate case, so a
 * request runs the same code alone or in a batch. */
#ifndef WK_API_OWS_EDIT_H
#define WK_API_OWS_EDIT_H

#include "api/ows/ows.h"
#include "intrinsic/world/proto/object_world_updates.pb-c.h"

/* One mutation at work: what it acts on and what it leaves for the reply. */
typedef struct wk__ows_edit {
    wk__call *call;       /* owns the reply's strings and arrays */
    wk_scene *scene;      /* the world's scene, open for writing */
    const char *world_id; /* the world's id */
    wk_status *st;        /* the failure, naming its culprit */
    wk__ows_view view;    /* the ObjectView the request asks for (BASIC without one) */
    wk_sim *engine;       /* the simulation whose physics engine places the world's bodies, or NULL */
    /* Set by the apply function for its reply: */
    wk_entity node;        /* the object, frame or entity changed or made */
    wk_entity others[2];   /* ToggleCollisions: the objects of a and b */
    bool pose_only;        /* only poses or joint positions changed */
} wk__ows_edit;

/* Applies request (of the row's type) to e->scene. Returns WK_OK or a code
 * with e->st naming the culprit; what it changed before failing is undone
 * by the caller's rollback. */
typedef int (*wk__ows_apply_fn)(wk__ows_edit *e, const ProtobufCMessage *request);

/* objects.c */
int wk__ows_create_object(wk__ows_edit *e, const ProtobufCMessage *request);
int wk__ows_delete_object(wk__ows_edit *e, const ProtobufCMessage *request);
int wk__ows_update_object_name(wk__ows_edit *e, const ProtobufCMessage *request);
int wk__ows_reparent_object(wk__ows_edit *e, const ProtobufCMessage *request);
int wk__ows_update_object_properties(wk__ows_edit *e, const ProtobufCMessage *request);
/* scene_object.c: creates the object desc describes (name, parent, pose,
 * alias) from spec's SceneObject into e->node, refusing what worldkit
 * cannot keep by name before anything is made. */
int wk__ows_create_scene_object(wk__ows_edit *e, const IntrinsicProto__World__ObjectSpecFromSceneObject *spec,
                                wk_object_desc *desc);
/* entities.c */
int wk__ows_update_entity_properties(wk__ows_edit *e, const ProtobufCMessage *request);
/* frames.c */
int wk__ows_create_frame(wk__ows_edit *e, const ProtobufCMessage *request);
int wk__ows_delete_frame(wk__ows_edit *e, const ProtobufCMessage *request);
int wk__ows_update_frame_name(wk__ows_edit *e, const ProtobufCMessage *request);
int wk__ows_reparent_frame(wk__ows_edit *e, const ProtobufCMessage *request);
int wk__ows_update_frame_properties(wk__ows_edit *e, const ProtobufCMessage *request);
int wk__ows_update_transform(wk__ows_edit *e, const ProtobufCMessage *request);
/* kinematics.c */
int wk__ows_update_object_joints(wk__ows_edit *e, const ProtobufCMessage *request);
int wk__ows_update_object_joint(wk__ows_edit *e, const ProtobufCMessage *request);
int wk__ows_update_kinematic_object_properties(wk__ows_edit *e, const ProtobufCMessage *request);
/* collisions.c */
int wk__ows_update_collision_settings(wk__ows_edit *e, const ProtobufCMessage *request);
int wk__ows_toggle_collisions(wk__ows_edit *e, const ProtobufCMessage *request);

/* batch.c: the object ref names, found into e->node, and its name in
 * *name (borrowed until the object changes). */
int wk__ows_edit_object(wk__ows_edit *e, const IntrinsicProto__World__ObjectReference *ref, const char **name);
/* batch.c: the parent an attach_to oneof gives (the member set, the
 * other NULL): the one entity object's filter selects, or frame;
 * WK_INVALID when neither is set. */
int wk__ows_attach_parent(wk__ows_edit *e, const IntrinsicProto__World__ObjectReferenceWithEntityFilter *object,
                          const IntrinsicProto__World__FrameReference *frame, wk_entity *out);
/* batch.c: a request's pose, refused (WK_INVALID, naming what) when not
 * finite or its rotation not a unit quaternion. */
int wk__ows_pose_checked(const IntrinsicProto__Pose *msg, const char *what, wk_pose *out, wk_status *st);

/* batch.c: puts a printf-style context before st's message ("context:
 * message") and records code; returns code. */
int wk__ows_context(wk_status *st, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* collisions.c: appends the rule {left: ref, right: anything else,
 * action} to the world's collision settings (CreateObject's
 * action_for_object_entities). */
int wk__ows_append_rule(wk_scene *s, const wk_collision_ref *ref, const IntrinsicProto__World__CollisionAction *action,
                        wk_status *st);

/* collisions.c: a CollisionAction as a rule's action and margin;
 * WK_INVALID (naming what) for one with neither case, a negative or
 * non-finite margin, or is_excluded false. */
int wk__ows_collision_action(const IntrinsicProto__World__CollisionAction *msg, wk_collision_action *action,
                             double *margin, const char *what, wk_status *st);

#endif
