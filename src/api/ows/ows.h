/* ows.h — what the ObjectWorldService handlers of src/api share: resolving
 * the service's references (objects, frames, transform nodes, entities,
 * entity filters, collision rule members) against a scene, rendering the
 * scene as the service's messages (worlds, objects in the BASIC and FULL
 * views, frames, entities, collision settings, poses), and the table of
 * methods with the one entry that runs them.
 *
 * ObjectWorldService acts on the worlds of the endpoint's store (wk_store.h)
 * by world_id. A handler finds the world its request names open for it
 * (call->world, opened by the dispatcher in the row's lock mode, ows.c),
 * resolves references, calls the
 * scene and renders the answer into messages owned by its wk__call. Failures
 * are worldkit codes with a message naming what was looked for; a transport
 * answers them with wk_code_grpc(code) (NOT_FOUND, ALREADY_EXISTS,
 * INVALID_ARGUMENT, FAILED_PRECONDITION, ...). */
#ifndef WK_API_OWS_H
#define WK_API_OWS_H

#include "api/api_internal.h"
#include "intrinsic/world/proto/object_world_service.pb-c.h"
#include "worldkit/wk_store.h"

/* ---- references (refs.c) ----------------------------------------------
 *
 * Each resolves a reference message against s, or fails, changing nothing,
 * with WK_INVALID for a reference that holds nothing (or is NULL) and
 * WK_NOT_FOUND naming what it looked for. Strings of the request are
 * borrowed: a wk_ref filled from a message lives as long as the message. */

/* ObjectReference (id, or by_name.object_name) to a wk_ref / an object's
 * base entity. */
int wk__ows_object_wkref(const IntrinsicProto__World__ObjectReference *msg, wk_ref *out, wk_status *st);
int wk__ows_find_object(const wk_scene *s, const IntrinsicProto__World__ObjectReference *msg, wk_entity *out,
                        wk_status *st);
/* FrameReference (id, or by_name{object_name, frame_name}). */
int wk__ows_frame_wkref(const IntrinsicProto__World__FrameReference *msg, wk_ref *out, wk_status *st);
int wk__ows_find_frame(const wk_scene *s, const IntrinsicProto__World__FrameReference *msg, wk_entity *out,
                       wk_status *st);
/* TransformNodeReference (id of an object or frame, or by_name{object |
 * frame}): an object's base entity or a frame's entity. */
int wk__ows_node_wkref(const IntrinsicProto__World__TransformNodeReference *msg, wk_ref *out, wk_status *st);
int wk__ows_find_node(const wk_scene *s, const IntrinsicProto__World__TransformNodeReference *msg, wk_entity *out,
                      wk_status *st);
/* ObjectFullPath: names from below the root down to the object (none: the
 * root object). */
int wk__ows_find_path(const wk_scene *s, const IntrinsicProto__World__ObjectFullPath *msg, wk_entity *out,
                      wk_status *st);
/* EntityReference ("eid_root" or an entity id): an entity of some object. */
int wk__ows_find_entity(const wk_scene *s, const IntrinsicProto__World__EntityReference *msg, wk_entity *out,
                        wk_status *st);

/* ObjectEntityFilter to a wk_entity_filter (msg NULL: all zero, which
 * selects the base entity). The id array is allocated in call; the strings
 * are the message's. */
int wk__ows_filter(wk__call *call, const IntrinsicProto__World__ObjectEntityFilter *msg, wk_entity_filter *out,
                   wk_status *st);
/* ObjectReferenceWithEntityFilter: the object in *object (may be NULL) and
 * the entities its filter selects appended to entities (may be NULL). */
int wk__ows_find_filtered(const wk_scene *s, wk__call *call,
                          const IntrinsicProto__World__ObjectReferenceWithEntityFilter *msg, wk_entity *object,
                          wk_entity_list *entities, wk_status *st);
/* The one entity an ObjectReferenceWithEntityFilter selects (no filter: the
 * object's base entity), as parent_object and UpdateEntityProperties.entity
 * need it; WK_INVALID when the filter selects several. */
int wk__ows_find_filtered_one(const wk_scene *s, wk__call *call,
                              const IntrinsicProto__World__ObjectReferenceWithEntityFilter *msg, wk_entity *out,
                              wk_status *st);
/* The entity a transform node and its optional filter give: a frame's
 * entity; an object's base entity without a filter, else the one entity the
 * filter selects (WK_INVALID when it selects several; a filter on a frame is
 * refused likewise). GetTransform's and UpdateTransform's rule. */
int wk__ows_find_node_entity(const wk_scene *s, wk__call *call,
                             const IntrinsicProto__World__TransformNodeReference *node,
                             const IntrinsicProto__World__ObjectEntityFilter *filter, wk_entity *out, wk_status *st);
/* Both of GetTransform's nodes by wk__ows_find_node_entity's rule, a's
 * failure first: without filters, resolved together (wk_scene_find_nodes). */
int wk__ows_find_node_pair(const wk_scene *s, wk__call *call, const IntrinsicProto__World__TransformNodeReference *a,
                           const IntrinsicProto__World__ObjectEntityFilter *a_filter,
                           const IntrinsicProto__World__TransformNodeReference *b,
                           const IntrinsicProto__World__ObjectEntityFilter *b_filter, wk_entity out[2], wk_status *st);

/* Collision rule members (ObjectOrEntityReference): object → the whole
 * object; entity → that entity; object_with_filter → one ref per entity
 * selected. Appended to *refs (grown with realloc; the caller frees it),
 * *count updated. */
int wk__ows_collision_refs(const wk_scene *s, wk__call *call,
                           const IntrinsicProto__World__ObjectOrEntityReference *msg, wk_collision_ref **refs,
                           size_t *count, wk_status *st);

/* A Pose message to a wk_pose. An absent pose, position or orientation is
 * the identity's part; a present orientation is read as it is (proto3
 * peers send no w = 1 default, so a zero quaternion stays zero and is
 * refused by whatever checks poses). */
wk_pose wk__ows_pose_in(const IntrinsicProto__Pose *msg);

/* ---- rendering (render.c) ---------------------------------------------
 *
 * Every message is owned by call (NULL when out of memory, call->failed
 * set). world_id fills the messages' world_id fields. */

/* A new, initialised message of the type, owned by call; NULL when out of
 * memory. An array of n elements of size bytes, zeroed, owned by call;
 * NULL for n = 0 and when out of memory. */
void *wk__ows_new(wk__call *call, const ProtobufCMessageDescriptor *type);
void *wk__ows_array(wk__call *call, size_t n, size_t size);

typedef enum wk__ows_view {
    WK__OWS_BASIC = 1,
    WK__OWS_FULL = 2,
} wk__ows_view;

/* A request's ObjectView: UNSPECIFIED (or absent) means BASIC. */
wk__ows_view wk__ows_view_of(protobuf_c_boolean has, IntrinsicProto__World__ObjectView view);

IntrinsicProto__Pose *wk__ows_pose(wk__call *call, wk_pose pose);
IntrinsicProto__Vector3 *wk__ows_vector3(wk__call *call, wk_vec3 v);
IntrinsicProto__World__WorldMetadata *wk__ows_metadata(wk__call *call, const wk_world_meta *meta);
/* IdAndName of an object (its id and name) or a frame. */
IntrinsicProto__World__IdAndName *wk__ows_object_id_name(wk__call *call, const wk_scene *s, wk_entity object);
IntrinsicProto__World__IdAndName *wk__ows_frame_id_name(wk__call *call, const wk_scene *s, wk_entity frame);
/* An ObjectReference by id, with the object's name as debug_hint. */
IntrinsicProto__World__ObjectReference *wk__ows_object_ref(wk__call *call, const wk_scene *s, wk_entity object);
IntrinsicProto__World__EntityReference *wk__ows_entity_ref(wk__call *call, const wk_scene *s, wk_entity e);
/* The names from below the root down to object. */
IntrinsicProto__World__ObjectFullPath *wk__ows_full_path(wk__call *call, const wk_scene *s, wk_entity object);

/* An Object in a view. BASIC: id, name, type, parent, children, frames
 * without parent_t_this, object_full_path, name_is_global_alias,
 * parent_entity, and an object_component holding only parent_t_this (not
 * for the root). FULL: all of BASIC with posed frames, the whole
 * object_component (simulation_component when static, user_data),
 * kinematic_object_component for a kinematic object, the entities map and
 * root_entity_id. */
IntrinsicProto__World__Object *wk__ows_object(wk__call *call, const wk_scene *s, const char *world_id,
                                              wk_entity object, wk__ows_view view);
/* A Frame; parent_t_this only with pose (FULL view and GetFrame). */
IntrinsicProto__World__Frame *wk__ows_frame(wk__call *call, const wk_scene *s, const char *world_id, wk_entity frame,
                                            bool pose);
/* An Entity with the components it carries. */
IntrinsicProto__World__Entity *wk__ows_entity(wk__call *call, const wk_scene *s, const char *world_id, wk_entity e);
/* The entity's Geometry (and Uri) as a GeometryComponent, or NULL when it
 * has none that the message can hold; the mapping is described at the top
 * of geometry.c. wk__ows_geometry_in reads one back (the uri borrowed
 * from msg), failing with WK_UNSUPPORTED for what worldkit cannot keep. */
IntrinsicProto__World__GeometryComponent *wk__ows_geometry(wk__call *call, const wk_scene *s, wk_entity e);
int wk__ows_geometry_in(wk__call *call, const IntrinsicProto__World__GeometryComponent *msg,
                        wk_scene_geometry *out, const char **uri, wk_status *st);
/* The one primitive shape of an inline v1 ExactGeometry (its primitive_set
 * of one shape at the identity) as the scene's shape; anything else is
 * refused WK_UNSUPPORTED saying what to give instead. */
int wk__ows_exact_geometry_in(const IntrinsicProto__Geometry__V1__ExactGeometry *exact, wk_scene_geometry *g,
                              wk_status *st);
/* The Kind of entity msg was written for: WK_NODE_VISUAL or
 * WK_NODE_COLLISION, or 0 for any other entity (or no component). */
uint8_t wk__ows_geometry_kind(const IntrinsicProto__World__GeometryComponent *msg);
/* Whether msg is one empty set: a visual's or collision's whose shape
 * the message cannot hold (or none). */
bool wk__ows_geometry_is_empty(const IntrinsicProto__World__GeometryComponent *msg);
/* A PhysicsComponent as the scene's value (entities.c): what the
 * message leaves out is zero (a proto3 peer omits zeros), the centre of
 * mass the identity; WK_INVALID for an inertia that is not 3x3. */
int wk__ows_physics_in(const IntrinsicProto__World__PhysicsComponent *msg, wk_physics *out, wk_status *st);
/* A KinematicsComponent as the scene's value (entities.c): no axis is +z,
 * no raw_value 0; the motion is checked where the joint is made. */
wk_kinematics wk__ows_kinematics_in(const IntrinsicProto__World__KinematicsComponent *m);
/* A 3x3 Matrixd (column after column) as rows and columns; WK_INVALID,
 * naming what, for any other shape. */
int wk__ows_inertia_in(const IntrinsicProto__Matrixd *m, const char *what, double out[3][3], wk_status *st);
IntrinsicProto__Matrixd *wk__ows_inertia(wk__call *call, const double in[3][3]);
/* A kinematic object's Cartesian limits and mounted payload, both ways
 * (kinematic_data.c). The setter sets each of the two given (NULL: left
 * as it is): WK_INVALID, naming the field, for a translational bound
 * without exactly 3 values or an inertia that is not 3x3, and the scene's
 * refusals of the values. */
int wk__ows_set_limits_and_payload(wk_scene *s, wk_entity object, const IntrinsicProto__Icon__CartesianLimits *limits,
                                   const IntrinsicProto__World__RobotPayload *payload, wk_status *st);
IntrinsicProto__Icon__CartesianLimits *wk__ows_cartesian_limits(wk__call *call, const wk_cartesian_limits *l);
IntrinsicProto__World__RobotPayload *wk__ows_payload(wk__call *call, const wk_payload *p);
IntrinsicProto__World__CollisionSettings *wk__ows_collision_settings(wk__call *call, const wk_scene *s);
/* The settings a CollisionSettings message describes, its references
 * resolved in s, its arrays owned by call (collisions.c). */
int wk__ows_collision_settings_in(wk_scene *s, wk__call *call, const IntrinsicProto__World__CollisionSettings *msg,
                                  wk_collision_settings *out, wk_status *st);
/* Every object of s in a view, root first, parents before children, into
 * *out (owned by call) and *count. */
int wk__ows_objects(wk__call *call, const wk_scene *s, const char *world_id, wk__ows_view view,
                    IntrinsicProto__World__Object ***out, size_t *count);

/* ---- the entry (ows.c) ---------------------------------------------------- */

/* Runs an ObjectWorldService method (by name, or by full path) on a
 * serialized request, appending the packed response to out. A handler
 * reports why it failed in its call's status. Returns WK_OK, WK_NOT_FOUND
 * for an unknown method, WK_PARSE for a request that does not parse, or the
 * handler's code; st says why. check (may be NULL) is the transport's,
 * which long loops ask (wk__call_over). Does not take the endpoint's lock:
 * the store locks each world itself. */
int wk__ows_call(wk_api *api, const char *method, const uint8_t *request, size_t len, int (*check)(void *),
                 void *check_ctx, wk_buf *out, wk_status *st);

/* A request's world_id field ("" when it has none, or the field is empty). */
const char *wk__ows_world_id(const ProtobufCMessage *request);

/* The mutations (batch.c): the one handler of every method that
 * changes a world (CreateObject, DeleteObject, ..., ToggleCollisions; the
 * request type picks what it does), run atomically, and
 * UpdateWorldResources, their all-or-nothing sequence. */
WK__HANDLER(wk__ows_mutate);
WK__HANDLER(wk__ows_update_world_resources);

/* The handlers (read.c). */
WK__HANDLER(wk__ows_get_world);
WK__HANDLER(wk__ows_list_worlds);
WK__HANDLER(wk__ows_create_world);
WK__HANDLER(wk__ows_clone_world);
WK__HANDLER(wk__ows_delete_world);
WK__HANDLER(wk__ows_swap_world);
WK__HANDLER(wk__ows_get_object);
WK__HANDLER(wk__ows_list_objects);
WK__HANDLER(wk__ows_get_frame);
WK__HANDLER(wk__ows_list_frames);
WK__HANDLER(wk__ows_get_transform);
WK__HANDLER(wk__ows_get_collision_settings);
WK__HANDLER(wk__ows_compare_worlds);
WK__HANDLER(wk__ows_sync_object);
/* footprints.c. */
WK__HANDLER(wk__ows_are_footprints_compatible);
/* geometry_service.c: GeometryService's methods, and the shape a
 * reference read as a mesh (g with the mesh's scale, *uri = ref) has when
 * it names a geometry registered in call's store: a primitive set of one
 * shape becomes that shape (*uri NULL); anything else stays a mesh.
 * WK_NOT_FOUND for a registration reference naming none. */
WK__HANDLER(wk__geometry_create);
WK__HANDLER(wk__geometry_get);
WK__HANDLER(wk__geometry_get_renderable);
int wk__geometry_registered(wk__call *call, const char *ref, wk_scene_geometry *g, const char **uri, wk_status *st);
/* The box the vertices of the mesh (OBJ or STL file, or inline triangle
 * mesh) registered as uri (a REF_PREFIX reference) in store fill, read
 * once and kept (mesh_cache.c): a second call for the same mesh reads
 * neither the store nor the mesh. *known false when uri names no such
 * mesh. Fails as the store's read or the mesh's does. */
int wk__geometry_mesh_box(wk_store *store, const char *uri, bool *known, wk_vec3 *lo, wk_vec3 *hi, wk_status *st);

#endif
