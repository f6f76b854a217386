/* wk_scene.h — the scene layer: the vocabulary of worlds (kinds of things,
 * joint types, shapes) and a world as ECS entities carrying worldkit's
 * standard components.
 *
 * Every model, link, joint, frame, visual, collision, sensor, light, actor,
 * level and performer is one entity, a child of the entity it belongs to,
 * carrying Name (its local name), Kind (a wk_node_kind) and ParentPose
 * (parent_T_this), and as its kind calls for: Static (tag), Joint,
 * JointLinks, Geometry, Uri (mesh or heightmap uri), MeshFile (the file
 * it was found at), Material (a visual's colour), Region and PerformerOf
 * (a level's or performer's box), Physics (a link's
 * inertial, from the file's <inertial>, plus surface parameters). The root
 * entity of an object world may carry CollisionSettings, an object's base
 * entity UserData (see the object world's last section). A world pose
 * is the composition of ParentPose up the parent chain. The formats layer
 * fills scenes from world files (wk_desc_instantiate). */
#ifndef WK_SCENE_H
#define WK_SCENE_H

#include "worldkit/wk_ecm.h"
#include "worldkit/wk_math.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wk_scene wk_scene;

/* X(enum suffix, name printed by `worldkit poses`) */
#define WK_NODE_KIND_TABLE(X) \
    X(WORLD, "world")         \
    X(MODEL, "model")         \
    X(LINK, "link")           \
    X(JOINT, "joint")         \
    X(FRAME, "frame")         \
    X(VISUAL, "visual")       \
    X(COLLISION, "collision") \
    X(SENSOR, "sensor")       \
    X(LIGHT, "light")         \
    X(ACTOR, "actor")         \
    X(LEVEL, "level")         \
    X(PERFORMER, "performer")

typedef enum wk_node_kind {
#define WK__NODE_KIND_ENUM(name, text) WK_NODE_##name,
    WK_NODE_KIND_TABLE(WK__NODE_KIND_ENUM)
#undef WK__NODE_KIND_ENUM
    WK_NODE_KIND_COUNT
} wk_node_kind;

const char *wk_node_kind_name(wk_node_kind kind);

typedef enum wk_joint_type {
    WK_JOINT_FIXED,
    WK_JOINT_REVOLUTE,
    WK_JOINT_CONTINUOUS,
    WK_JOINT_PRISMATIC,
    WK_JOINT_BALL,
    WK_JOINT_UNIVERSAL,
    WK_JOINT_SCREW,
    WK_JOINT_REVOLUTE2,
    WK_JOINT_GEARBOX,
    WK_JOINT_FLOATING,
    WK_JOINT_PLANAR,
} wk_joint_type;

typedef enum wk_geometry_type {
    WK_GEOMETRY_NONE,
    WK_GEOMETRY_BOX,
    WK_GEOMETRY_SPHERE,
    WK_GEOMETRY_CYLINDER,
    WK_GEOMETRY_CAPSULE,
    WK_GEOMETRY_ELLIPSOID,
    WK_GEOMETRY_PLANE,
    WK_GEOMETRY_MESH,
    WK_GEOMETRY_HEIGHTMAP,
    WK_GEOMETRY_POLYLINE,
} wk_geometry_type;

typedef struct wk_inertial {
    bool present;
    double mass;
    wk_pose pose; /* relative to the link */
    double ixx, ixy, ixz, iyy, iyz, izz;
} wk_inertial;

/* A linear and angular velocity that a simulation's motion system (wk_sim.h)
 * integrates into the entity's ParentPose every step, in the parent's frame
 * or the entity's own. Any finite velocity is taken; a step that would carry a translation
 * component past WK_POSE_TRANSLATION_MAX (wk_math.h) stops it there. */
typedef struct wk_velocity {
    wk_vec3 linear;  /* m/s */
    wk_vec3 angular; /* rad/s */
    bool body_frame;
} wk_velocity;

/* A rate of change of an entity's Velocity, which the motion system adds to
 * it every step. It changes the Velocity's numbers as they are, so it is in
 * the Velocity's frame, and it acts only on an entity that has a Velocity. */
typedef struct wk_acceleration {
    wk_vec3 linear;  /* m/s^2 */
    wk_vec3 angular; /* rad/s^2 */
} wk_acceleration;

/* How a world is simulated, on its world entity (a file's <physics> and
 * <gravity>), so that a world cloned or reloaded from disk runs as its file
 * said. */
typedef struct wk_world_settings {
    double step_size;        /* seconds */
    double real_time_factor;
    wk_vec3 gravity;         /* m/s^2 */
} wk_world_settings;

/* The standard component types, registered in every scene's ECM. */
typedef struct wk_scene_types {
    wk_type name;        /* char *, owned */
    wk_type kind;        /* uint8_t, a wk_node_kind */
    wk_type parent_pose; /* wk_pose */
    wk_type is_static;   /* tag */
    wk_type joint;       /* wk_scene_joint */
    wk_type joint_links; /* wk_scene_joint_links */
    wk_type geometry;    /* wk_scene_geometry */
    wk_type uri;         /* char *, owned */
    wk_type physics;     /* wk_physics: a link's mass, inertia and surface */
    wk_type ns;          /* char *, owned: the namespace a spawned entity's interfaces live under */
    wk_type spawned;     /* tag: added by SpawnEntities, not by the world file */
    wk_type spawn_pose;  /* wk_pose: the ParentPose a spawned entity was given, for resets */
    wk_type object;      /* wk_object_info, on an object's base entity */
    wk_type frame;       /* wk_frame_info, on a frame's entity */
    wk_type collision;   /* wk_collision_settings, owned, on the root entity */
    wk_type user_data;   /* wk_user_data, owned, on an object's base entity */
    wk_type kinematics;       /* wk_kinematics, on a joint of a kinematic object */
    wk_type kinematic_object; /* wk_kinematic_object, owned, on a kinematic object's base entity */
    wk_type entity_info;      /* wk_entity_info, owned: category, description and tags */
    wk_type mimic;            /* wk_joint_mimic, on a joint that follows another */
    wk_type velocity;         /* wk_velocity: how a simulation moves the entity */
    wk_type acceleration;     /* wk_acceleration: how its Velocity changes */
    wk_type world_settings;   /* wk_world_settings, on a world entity loaded from a file */
    wk_type world_source;     /* char *, owned, on a world entity loaded from a file: the file's absolute
                                 path, read again for its levels when the world comes back from disk */
    wk_type performer;        /* wk_vec3, on a top-level entity made a performer at run time
                                 (SetPerformer): its box's size, so that it performs again after a restart */
    wk_type cartesian_limits; /* wk_cartesian_limits, on a kinematic object's base entity */
    wk_type payload;          /* wk_payload: what is mounted on a kinematic object's flange */
    wk_type surface;          /* wk_scene_surface, on a collision whose file gives its friction */
    wk_type mesh_file;        /* char *, owned: the file a shape's Uri was found at when its world was read */
    wk_type material;         /* wk_scene_material, on a shape whose file gives its colour */
    wk_type region;           /* wk_scene_region, on a level's or a performer's entity */
    wk_type performer_of;     /* char *, owned, on a performer's entity: the name of the model it follows */
} wk_scene_types;

typedef struct wk_scene_joint {
    wk_joint_type type;
    wk_vec3 axis;         /* in the joint frame */
    double lower, upper;  /* -inf / +inf when unlimited */
    double effort, velocity;
    double damping;       /* N s/m or N m s/rad */
    double friction;      /* N or N m: the joint's dry friction */
    double stiffness;     /* N/m or N m/rad: a spring's, 0 for none */
    double reference;     /* m or rad: where the spring pulls nothing */
} wk_scene_joint;

/* A collision's contact friction as its file gave it: sliding, torsional
 * and rolling coefficients (MuJoCo's geom friction). */
typedef struct wk_scene_surface {
    double friction[3];
} wk_scene_surface;

/* A visual's colour as its file's material gives it (SDFormat's <diffuse>,
 * else its <ambient>; URDF's <color>, its own or its named material's;
 * MJCF's rgba, the geom's or its material's), for whoever draws the world.
 * Red, green, blue and alpha, each 0 to 1. */
typedef struct wk_scene_material {
    double rgba[4];
} wk_scene_material;

/* A level's or a performer's region as its file gives it, for whoever
 * draws the world: a box of size centred on the entity (a performer's, on
 * the model it follows), and a level's buffer around it; and whether the
 * level is loaded (1, as it is in a simulation without levels) or not (0),
 * which a simulation with levels keeps up to date. */
typedef struct wk_scene_region {
    wk_vec3 size;
    double buffer;
    uint64_t loaded;
} wk_scene_region;

typedef struct wk_scene_joint_links {
    wk_entity parent, child; /* WK_NULL_ENTITY for the world */
} wk_scene_joint_links;

/* Mimic: the coupling of a joint to the joint it follows (a file's
 * <mimic>): its position is multiplier * the leader's + offset. */
typedef struct wk_joint_mimic {
    wk_entity leader;
    double multiplier, offset;
} wk_joint_mimic;

typedef struct wk_scene_geometry {
    wk_geometry_type type;
    wk_vec3 size;
    double radius, length;
    wk_vec3 normal, scale;
} wk_scene_geometry;


/* A scene with an empty ECM; NULL when out of memory. Free with wk_scene_free. */
wk_scene *wk_scene_new(void);
void wk_scene_free(wk_scene *s);
/* A deep copy: the same entities with the same ids (cached poses are not
 * copied); NULL when out of memory. */
wk_scene *wk_scene_clone(const wk_scene *s);
/* The scene's ECM, borrowed for the scene's life. */
wk_ecm *wk_scene_ecm(wk_scene *s);
const wk_scene_types *wk_scene_types_of(const wk_scene *s);

/* The entity's pose in the world frame: ParentPose composed up the chain. */
wk_pose wk_scene_world_pose(const wk_scene *s, wk_entity e);
/* The entity's name, or NULL; borrowed until the entity changes. */
const char *wk_scene_name(const wk_scene *s, wk_entity e);
/* The child of parent (WK_NULL_ENTITY: among root entities) with that local
 * name, or WK_NULL_ENTITY. */
wk_entity wk_scene_child(const wk_scene *s, wk_entity parent, const char *name);
/* The name e goes by in scoped names: an object's name for the base entity
 * of an object (ObjectWorldService names an object apart from its base
 * entity, which SDFormat models do not), else its Name; NULL for none. */
const char *wk_scene_local_name(const wk_scene *s, wk_entity e);
/* The entity a scoped name (SDFormat's `model::link::frame`) names within
 * scope (a model, or the world entity): each part names an entity of the
 * model the part before it named, found below that model whatever lies
 * between (a kinematic object hangs each child link below its joint) but
 * not inside a nested model; parts are local names (wk_scene_local_name).
 * WK_NULL_ENTITY when there is none. */
wk_entity wk_scene_scoped(const wk_scene *s, wk_entity scope, const char *name);

/* ---- the object world ------------------------------------------------------
 *
 * The model of Intrinsic's ObjectWorldService over the same entities. An
 * object is a subtree of entities whose top, its base entity, carries Object
 * (wk_object_info); every entity below it belongs to it, up to the base
 * entities of child objects. A frame is an entity carrying Frame, attached to
 * an entity of its object or to another frame. The root object's base entity
 * is the root entity, the ancestor of everything. Nothing is stored twice:
 * which object an entity belongs to, an object's parent object and a frame's
 * parent frame are read off the tree.
 *
 * Ids are opaque strings made from entity ids ("root" and "eid_root" for the
 * root object and entity), so a cloned world keeps them and a lookup by id
 * costs no index. Names: an object's name is unique among the objects and
 * frames under its parent object (globally when it is a global alias); a
 * frame's among the frames and child objects of its object; an entity's
 * among its object's entities. Lookups by name go through an index.
 *
 * World poses are cached per entity and invalidated per subtree when a pose
 * or a parent changes through these calls; reads fill the cache lazily and
 * may run in parallel with each other (not with writes). Changes made to the
 * ECM around these calls need wk_scene_refresh() before the next call. */

#define WK_ID_MAX 32

typedef enum wk_object_type {
    WK_OBJECT_UNSPECIFIED = 0,
    WK_OBJECT_ROOT = 1,
    WK_OBJECT_PHYSICAL = 2,
    WK_OBJECT_KINEMATIC = 3,
} wk_object_type;

typedef struct wk_object_info {
    char *name; /* owned */
    uint8_t type; /* wk_object_type */
    bool name_is_global_alias;
} wk_object_info;

typedef struct wk_frame_info {
    bool is_attachment_frame;
} wk_frame_info;

/* Makes the scene an object world whose root object's base is root (an
 * existing entity, typically a loaded world's; WK_NULL_ENTITY creates one).
 * Models below root become objects (kinematic when they hold a movable
 * joint), SDF frames become frames (a frame is attached to the entity of
 * the link or model its attached_to names, see wk_desc_instantiate). */
int wk_scene_objects_init(wk_scene *s, wk_entity root, wk_status *st);
/* Makes a scene whose ECM already holds an object world (a state applied to
 * a new scene, as the store does when it loads a world from disk) that
 * object world: its root is the one entity whose Object says ROOT. Unlike
 * wk_scene_objects_init it changes nothing in the ECM. WK_NOT_FOUND without
 * a root object, WK_INVALID with two, WK_EXISTS for an object world. */
int wk_scene_objects_adopt(wk_scene *s, wk_status *st);
/* Makes a subtree that was instantiated below these calls (a model a
 * simulation spawned or a level loaded, wk_desc_instantiate) part of the
 * object world, as wk_scene_objects_init does for a whole scene: top and
 * the models below it become objects, its SDF frames frames, and its
 * objects are indexed by name. WK_OK doing nothing in a scene that is not an
 * object world. */
int wk_scene_objects_add(wk_scene *s, wk_entity top, wk_status *st);
/* Drops the cached world poses of e and its subtree: for a writer that
 * changed e's ParentPose in place (a system walking a column), which the
 * scene's own calls do themselves. */
void wk_scene_pose_written(wk_scene *s, wk_entity e);
/* Rebuilds the name index and forgets cached poses: needed after the ECM was
 * changed other than through these calls (a state applied, a rollback). */
int wk_scene_refresh(wk_scene *s);
wk_entity wk_scene_root(const wk_scene *s);
/* Names the root entity, which carries a world file's world name ("root"
 * in a world made empty): for a world rebuilt from a snapshot of another.
 * WK_INVALID for an empty name or one longer than WK_NAME_MAX. */
int wk_scene_name_root(wk_scene *s, const char *name, wk_status *st);

/* True for a name of letters, digits and underscores that starts with a
 * letter and ends with a letter or digit, at most WK_NAME_MAX bytes. */
bool wk_scene_name_valid(const char *name);

/* Ids, written to out (WK_ID_MAX bytes). */
void wk_scene_object_id(const wk_scene *s, wk_entity object, char *out);
void wk_scene_frame_id(const wk_scene *s, wk_entity frame, char *out);
void wk_scene_entity_id(const wk_scene *s, wk_entity e, char *out);

/* A reference to an object, a frame or either (a node of the transform tree):
 * by id, or by names. An object is named by object_name alone, a frame by its
 * object's name and frame_name. */
typedef struct wk_ref {
    const char *id;
    const char *object_name;
    const char *frame_name;
} wk_ref;

/* Each resolves ref or fails with WK_NOT_FOUND (WK_INVALID for an empty or
 * ambiguous reference), naming what it looked for. */
int wk_scene_find_object(const wk_scene *s, const wk_ref *ref, wk_entity *out, wk_status *st);
int wk_scene_find_frame(const wk_scene *s, const wk_ref *ref, wk_entity *out, wk_status *st);
int wk_scene_find_node(const wk_scene *s, const wk_ref *ref, wk_entity *out, wk_status *st);
/* Resolves n node references as wk_scene_find_node does each, in order,
 * failing at the first that does not resolve; their memory reads overlap
 * (GetTransform resolves its two nodes so). */
int wk_scene_find_nodes(const wk_scene *s, const wk_ref *refs, size_t n, wk_entity *out, wk_status *st);
/* The object at the end of a path of object names from the root (n == 0:
 * the root object). */
int wk_scene_find_object_path(const wk_scene *s, const char *const *names, size_t n, wk_entity *out,
                              wk_status *st);

/* Selects entities of an object (ObjectEntityFilter). Nothing set selects the
 * base entity. */
typedef struct wk_entity_filter {
    bool base, final, all;
    const char *const *ids;
    size_t id_count;
    const char *const *names;
    size_t name_count;
} wk_entity_filter;

/* Appends the entities of object that filter selects (filter may be NULL). */
int wk_scene_filter(const wk_scene *s, wk_entity object, const wk_entity_filter *filter, wk_entity_list *out,
                    wk_status *st);
/* The one entity filter selects; WK_INVALID when it selects several. */
int wk_scene_filter_one(const wk_scene *s, wk_entity object, const wk_entity_filter *filter, wk_entity *out,
                        wk_status *st);

bool wk_scene_is_object(const wk_scene *s, wk_entity e);
bool wk_scene_is_frame(const wk_scene *s, wk_entity e);
/* Borrowed until the object changes; NULL when e is not an object's base. */
const wk_object_info *wk_scene_object_info(const wk_scene *s, wk_entity e);
/* The base entity of the object e belongs to (e itself for a base entity). */
wk_entity wk_scene_object_of(const wk_scene *s, wk_entity e);
/* The parent object of an object (WK_NULL_ENTITY for the root object). */
wk_entity wk_scene_parent_object(const wk_scene *s, wk_entity object);
/* The frame a frame or object is attached to, or WK_NULL_ENTITY when it is
 * attached to an entity of an object. */
wk_entity wk_scene_parent_frame(const wk_scene *s, wk_entity node);
/* The transform tree's parent of a node: its parent frame if it has one,
 * else its (parent) object's base entity. */
wk_entity wk_scene_parent_node(const wk_scene *s, wk_entity node);

/* Each appends to out: every object (root first, parents before children);
 * an object's child objects; its frames (also those attached through other
 * frames); its entities (base first, frames included); a frame's child
 * frames. */
int wk_scene_objects(const wk_scene *s, wk_entity_list *out);
int wk_scene_object_children(const wk_scene *s, wk_entity object, wk_entity_list *out);
int wk_scene_object_frames(const wk_scene *s, wk_entity object, wk_entity_list *out);
int wk_scene_object_entities(const wk_scene *s, wk_entity object, wk_entity_list *out);
int wk_scene_frame_children(const wk_scene *s, wk_entity frame, wk_entity_list *out);

typedef struct wk_object_desc {
    const char *name;
    wk_entity parent;        /* an entity of the parent object or a frame; NULL: the root entity */
    wk_pose pose;            /* parent object's base _T_ the new object; zero: identity;
                                ignored under an attachment frame, which the object snaps onto */
    bool name_is_global_alias;
    const char *entity_name; /* the object's single entity; NULL: the object's name */
    const wk_scene_geometry *geometry; /* optional */
    const char *uri;                   /* optional mesh uri */
    const struct wk_physics *physics;  /* optional: the entity's Physics (see wk_scene_update_physics) */
} wk_object_desc;

/* Creates a PHYSICAL_OBJECT of one entity. Fails with WK_INVALID (bad
 * name, pose or parent) or WK_EXISTS (name taken), changing nothing. */
int wk_scene_create_object(wk_scene *s, const wk_object_desc *desc, wk_entity *out, wk_status *st);
/* Deletes an object, its entities and its frames; with force also the
 * objects attached to it (recursively), else WK_PRECONDITION if there are.
 * Collision rules drop their references to what goes (a rule left with an
 * empty side goes too); the IK solvers and flange frames of a kinematic
 * object refer to its own entities only, and go with it. */
int wk_scene_delete_object(wk_scene *s, wk_entity object, bool force, wk_status *st);

typedef struct wk_frame_desc {
    const char *name;
    wk_entity parent; /* a frame, or an entity of an object (NULL: the root entity) */
    wk_pose pose;     /* parent object's base (or parent frame) _T_ the frame; zero: identity */
    bool is_attachment_frame;
} wk_frame_desc;

int wk_scene_create_frame(wk_scene *s, const wk_frame_desc *desc, wk_entity *out, wk_status *st);
/* Deletes a frame; with force also the frames attached to it, else
 * WK_PRECONDITION if there are. Objects attached to deleted frames move to
 * the frame's parent, keeping their world poses. Refused with
 * WK_PRECONDITION, naming the referrer, when a frame that would go is an
 * ISO flange frame or an IK solver's base or tip of its kinematic object
 * (clear those first): a robot does not silently lose its flange. */
int wk_scene_delete_frame(wk_scene *s, wk_entity frame, bool force, wk_status *st);
int wk_scene_set_attachment_frame(wk_scene *s, wk_entity frame, bool is_attachment_frame, wk_status *st);

/* Renames an object (global_alias: its name_is_global_alias) or a frame. */
int wk_scene_rename(wk_scene *s, wk_entity node, const char *name, bool global_alias, wk_status *st);
/* Attaches an object or frame to parent (an entity of another object, or a
 * frame), keeping its world pose; an object attached to an attachment frame
 * snaps onto it instead (identity pose relative to the frame). Fails with WK_INVALID for a parent inside
 * the node's own subtree, WK_EXISTS when the name is taken there, and
 * WK_PRECONDITION for a frame leaving an object whose IK solvers or flange
 * frames refer to it (see wk_scene_delete_frame). */
int wk_scene_reparent(wk_scene *s, wk_entity node, wk_entity parent, wk_status *st);

/* The entity's pose in the world frame, from the cache. */
wk_pose wk_scene_pose(const wk_scene *s, wk_entity e);
/* a_T_b between two entities. */
wk_pose wk_scene_transform(const wk_scene *s, wk_entity a, wk_entity b);
/* The pose of e relative to the transform tree parent of the node it is:
 * parent_t_this as ObjectWorldService reports it. */
wk_pose wk_scene_node_pose(const wk_scene *s, wk_entity node);
/* Sets e's ParentPose; WK_INVALID for a non-finite or non-unit pose. */
int wk_scene_set_pose(wk_scene *s, wk_entity e, wk_pose parent_T_e, wk_status *st);
/* Changes the pose of update (an object's base or a frame) relative to its
 * parent so that a_T_b becomes a_T_b. update may be WK_NULL_ENTITY when one
 * of a and b is the transform tree parent of the other (the child moves);
 * otherwise it must be an ancestor (or the node itself) of exactly one of
 * them, else WK_INVALID. */
int wk_scene_update_transform(wk_scene *s, wk_entity a, wk_entity b, wk_entity update, wk_pose a_T_b, wk_status *st);
/* The node wk_scene_update_transform moves when given none: b when it is a
 * node (an object's base or a frame) whose transform tree parent is the
 * node a belongs to, a likewise, else WK_NULL_ENTITY. */
wk_entity wk_scene_transform_child(const wk_scene *s, wk_entity a, wk_entity b);

/* ---- atomic batches ----------------------------------------------------- */

/* A batch makes a run of changes all or nothing (UpdateWorldResources): after
 * begin, rollback puts the scene back exactly as it was (the same serialized
 * state), commit keeps the changes. Not nestable: WK_BUSY when one is open. */
int wk_scene_batch_begin(wk_scene *s, wk_status *st);
int wk_scene_batch_commit(wk_scene *s);
int wk_scene_batch_rollback(wk_scene *s);

/* ---- comparing and syncing worlds --------------------------------------- */

typedef enum wk_compare_mode {
    WK_COMPARE_BY_ID,   /* objects and frames match by id: worlds branched by clones */
    WK_COMPARE_BY_NAME, /* by full path of names: worlds built separately */
} wk_compare_mode;

typedef struct wk_modified {
    wk_entity base, changed;
    char *what; /* owned: what differs, in words */
} wk_modified;

/* What changed from a base world to a changed one. Objects and frames of the
 * changed world are in added_* and the changed side of modified_*; of the
 * base world in removed_*. Frames of added and removed objects are listed
 * with them. */
typedef struct wk_world_diff {
    wk_entity_list added_objects, removed_objects, added_frames, removed_frames;
    wk_modified *modified_objects, *modified_frames;
    size_t modified_object_count, modified_frame_count;
} wk_world_diff;

int wk_scene_compare(const wk_scene *base, const wk_scene *changed, wk_compare_mode mode, wk_world_diff *out,
                     wk_status *st);
void wk_world_diff_free(wk_world_diff *d);

/* Makes the object (or frame) ref names in from the same in to, with the same
 * ids, entities, components and parents: created or overwritten, or deleted
 * from to when from has no such object. Fails with WK_PRECONDITION, changing
 * nothing, when its parent is not in to, or when one of its ids or its name
 * is taken there by something else. Ids are kept (as by wk_scene_clone), so
 * references between entities need no remapping; collision rules of to that
 * named entities the sync removed drop those references. Inside a batch the
 * caller opened on to, a failure is that batch's to roll back. */
int wk_scene_sync_object(wk_scene *to, const wk_scene *from, const wk_ref *ref, wk_status *st);
int wk_scene_sync_frame(wk_scene *to, const wk_scene *from, const wk_ref *ref, wk_status *st);

/* ---- collision settings, user data, object and entity properties -------
 *
 * Stored as components, so that clones, comparisons, serialized state and
 * batches see them like any other: CollisionSettings on the root entity,
 * UserData and Static (the simulation component) on an object's base entity,
 * Physics and Geometry (with Uri) on the entities that have them. Each call
 * checks everything first and changes nothing when it fails. Collision
 * checking itself is not done here: these are the settings a checker reads. */

/* -- collision settings (GetCollisionSettings, UpdateCollisionSettings,
 *    ToggleCollisions) -- */

typedef enum wk_collision_action {
    WK_COLLISION_ACTION_UNSPECIFIED = 0, /* refused: a rule must say what it does */
    WK_COLLISION_EXCLUDE = 1,            /* is_excluded: the pairs are not checked */
    WK_COLLISION_MARGIN = 2,             /* margin: the pairs keep hard_margin apart */
} wk_collision_action;

/* One side's member of a rule (ObjectOrEntityReference, resolved): the whole
 * object whose base entity is entity (whole_object: an ObjectReference; it
 * covers the object's entities, not those of its child objects, including
 * entities it gains later), or that one entity of an object (an
 * EntityReference, or one entity an ObjectReferenceWithEntityFilter
 * selects). */
typedef struct wk_collision_ref {
    wk_entity entity;
    bool whole_object;
} wk_collision_ref;

/* A rule applies to every pair of an entity covered by left and one covered
 * by right, either way round; an empty right means "anything else". */
typedef struct wk_collision_rule {
    const wk_collision_ref *left; /* at least one */
    size_t left_count;
    const wk_collision_ref *right;
    size_t right_count;
    wk_collision_action action;
    double hard_margin; /* WK_COLLISION_MARGIN: in m, >= 0; ignored (stored as 0) otherwise */
} wk_collision_rule;

typedef struct wk_collision_settings {
    bool disable_collision_checking;
    bool has_minimum_margin; /* minimum_margin is set (>= 0); else stored as 0 */
    double minimum_margin;
    bool has_collision_check_spacing; /* collision_check_spacing is set (> 0); else stored as 0 */
    double collision_check_spacing;
    const wk_collision_rule *rules;
    size_t rule_count;
} wk_collision_settings;

/* The world's collision settings, borrowed until the next structural change
 * of the scene's ECM (any update below, deleting an object, a batch rolled
 * back); all zero (checking on, no margin, no rules) when none were set.
 * Copy them with wk_collision_settings_copy to keep them longer. */
const wk_collision_settings *wk_scene_collision_settings(const wk_scene *s);
/* Deep copy into dst (then owned: free with wk_collision_settings_fini);
 * 0 or WK_NOMEM, leaving dst empty. */
int wk_collision_settings_copy(wk_collision_settings *dst, const wk_collision_settings *src);
void wk_collision_settings_fini(wk_collision_settings *settings);

/* Replaces the settings with a copy of settings (no merge). Fails, changing
 * nothing, with WK_PRECONDITION when the scene is not an object world;
 * WK_INVALID for a negative or non-finite margin, a spacing that is not
 * positive, a rule without action or without left side, a whole_object ref
 * that is not an object's base, a ref to a frame; WK_NOT_FOUND for a ref to
 * an entity that does not exist or belongs to no object. Messages name the
 * rule by index ("collision rule 2: ..."). Settings equal to the default
 * (all zero) remove the component. */
int wk_scene_set_collision_settings(wk_scene *s, const wk_collision_settings *settings, wk_status *st);

/* Whether an EXCLUDE rule covers the pair {x, y}: what a collision checker
 * asks before checking the two (disable_collision_checking aside). */
bool wk_scene_collisions_excluded(const wk_scene *s, wk_entity x, wk_entity y);

typedef enum wk_toggle_mode {
    WK_TOGGLE_UNSPECIFIED = 0, /* refused with WK_INVALID */
    WK_TOGGLE_ENABLE = 1,
    WK_TOGGLE_DISABLE = 2,
} wk_toggle_mode;

/* ToggleCollisions between the entities a (those object_a's filter selects)
 * and the entities b. A pair is excluded when an EXCLUDE rule covers it.
 * DISABLE: when every pair of an entity of a and a different one of b is
 * excluded already, nothing changes; else one rule {left a, right b,
 * EXCLUDE} is appended. ENABLE: every EXCLUDE rule covering such a pair is
 * replaced, in place, by the rules that cover exactly its other pairs
 * (whole-object refs stay whole where the object holds none of a and b,
 * else become the refs of its remaining entities); nothing changes when no
 * pair was excluded. A rule excluding a pair through an empty right side
 * ("anything else") cannot be narrowed to "anything but b": ENABLE then
 * fails with WK_PRECONDITION naming the rule, changing nothing. Margin
 * rules are left alone. Fails with WK_INVALID for an unspecified mode, an
 * empty a or b, or a frame; WK_NOT_FOUND for a missing entity. */
int wk_scene_toggle_collisions(wk_scene *s, const wk_entity *a, size_t a_count, const wk_entity *b, size_t b_count,
                               wk_toggle_mode mode, wk_status *st);

/* -- user data (UpdateObjectProperties.user_data) -- */

/* One entry of an object's user data: a key and a google.protobuf.Any. */
typedef struct wk_user_datum {
    const char *key;
    const char *type_url; /* NULL is read as "" */
    const uint8_t *value; /* the Any's value bytes */
    size_t value_len;
} wk_user_datum;

/* An object's user data: entries sorted by key (strcmp order), keys unique.
 * Sorting, not insertion order, makes two equal maps equal component
 * values and the same bytes whatever order they were built in. */
typedef struct wk_user_data {
    const wk_user_datum *items;
    size_t count;
} wk_user_data;

/* UpdateUserDataPolicy, with the same numbers. */
typedef enum wk_user_data_policy {
    WK_USER_DATA_UNSPECIFIED = 0,       /* as INSERT */
    WK_USER_DATA_INSERT = 1,            /* WK_EXISTS, nothing changed, if any key exists */
    WK_USER_DATA_INSERT_OR_UPDATE = 2,  /* inserts or overwrites */
    WK_USER_DATA_REMOVE = 3,            /* removes the keys given (values ignored); missing keys are no error */
    WK_USER_DATA_CLEAR_AND_REPLACE = 4, /* the entries given, and nothing else */
    WK_USER_DATA_CLEAR_ALL = 5,         /* nothing (entries given are ignored) */
} wk_user_data_policy;

/* The object's user data, borrowed until the next structural change of the
 * ECM; an empty map when it has none (or object is no object's base). */
wk_user_data wk_scene_user_data(const wk_scene *s, wk_entity object);
/* The entry of that key, borrowed likewise, or NULL. */
const wk_user_datum *wk_scene_user_datum(const wk_scene *s, wk_entity object, const char *key);
/* Updates the object's user data with n entries under policy. Fails,
 * changing nothing, with WK_NOT_FOUND when object is no object's base,
 * WK_INVALID for an unknown policy, a NULL key or a key given twice,
 * WK_EXISTS (INSERT) naming the first key that exists. An empty result
 * removes the component. */
int wk_scene_update_user_data(wk_scene *s, wk_entity object, const wk_user_datum *entries, size_t n,
                              wk_user_data_policy policy, wk_status *st);

/* -- the simulation component (UpdateObjectProperties.simulation_component) --
 *
 * is_static is the Static tag that SDFormat's <static> puts on a model's
 * entity, so an object loaded static reports is_static, and SetEntityState
 * and the simulation see what UpdateObjectProperties sets. An object has a
 * simulation component exactly when it is static: a component saying "not
 * static" carries nothing to consider in simulation, which ObjectComponent
 * reports as unset. */

typedef struct wk_simulation_component {
    bool is_static;
} wk_simulation_component;

/* Whether the object has a simulation component, written to *out (when not
 * NULL; all false when it has none). */
bool wk_scene_simulation(const wk_scene *s, wk_entity object, wk_simulation_component *out);
/* Sets (creates or overrides) the object's simulation component. WK_NOT_FOUND
 * for no object's base; WK_INVALID for the root object, whose static flag
 * would freeze the whole world. */
int wk_scene_set_simulation(wk_scene *s, wk_entity object, const wk_simulation_component *sim, wk_status *st);

/* -- entity properties (UpdateEntityProperties: physics and geometry) -- */

typedef struct wk_friction {
    double mu, mu2;     /* unitless */
    double slip1, slip2; /* m/s/N */
    wk_vec3 fdir1;      /* first friction pyramid direction, in the collision's frame */
} wk_friction;

typedef struct wk_torsional {
    double coefficient;
    bool use_patch_radius;
    double patch_radius;   /* used when use_patch_radius */
    double surface_radius; /* used otherwise */
    double ode_slip;
} wk_torsional;

/* A link's PhysicsComponent. The readers of world files fill mass,
 * this_T_com and inertia from <inertial> (and URDF's and MJCF's
 * equivalents); they do not read <surface>, whose parameters stay zero
 * until UpdateEntityProperties sets them. A link without <inertial> has no
 * Physics. */
typedef struct wk_physics {
    double mass_kg;
    wk_pose this_T_com;    /* the centre of mass in the entity's frame */
    double inertia[3][3];  /* about the centre of mass, in this_T_com's axes; symmetric */
    wk_friction friction;
    wk_torsional torsional;
    double contact_kp, contact_kd;
} wk_physics;

/* The entity's physics, borrowed until the next structural change of the
 * ECM, or NULL when it has none. */
const wk_physics *wk_scene_physics(const wk_scene *s, wk_entity e);
/* Replaces the physics of e, an entity of an object. Fails, changing
 * nothing, with WK_PRECONDITION naming the entity and its object when e has
 * no physics yet ("It is an error to set this if the associated entity does
 * not already have a physics component"); WK_NOT_FOUND for a missing entity
 * or one of no object; WK_INVALID for a frame, a non-finite value, a
 * negative mass, a pose that is not a unit rotation or an inertia that is
 * not symmetric. */
int wk_scene_update_physics(wk_scene *s, wk_entity e, const wk_physics *physics, wk_status *st);
/* Replaces the geometry of e (with uri: its Uri, removed when NULL). Fails
 * like wk_scene_update_physics when e has no geometry yet, and with
 * WK_INVALID for an unknown type, a non-finite or negative size, or a mesh
 * or heightmap without uri. */
int wk_scene_update_geometry(wk_scene *s, wk_entity e, const wk_scene_geometry *geometry, const char *uri,
                             wk_status *st);

/* ---- kinematic objects -----------------------------------------------------
 *
 * A KINEMATIC_OBJECT holds joints: entities carrying Kinematics
 * (wk_kinematics), each a degree of freedom (revolute: a rotation about its
 * axis; prismatic: a translation along it) or fixed. A joint's ParentPose is
 * always parent_t_inboard composed with its motion at its position, kept so
 * by the calls below, so what hangs below a joint entity (the link it moves,
 * frames, attached objects) follows it. The object's base entity carries
 * KinematicObject (wk_kinematic_object): the order of its degrees of freedom
 * (fixed joints are not in it), their system and application limits, named
 * joint configurations, IK solvers and ISO flange frames. Positions live in
 * the joints' Kinematics only.
 *
 * Positions and position limits are in radians (revolute) or meters
 * (prismatic), in every call and on the wire (what Intrinsic's clients
 * send, whatever UpdateObjectJointsRequest's comment says). Velocity,
 * acceleration and jerk limits are symmetric, and +inf (like min -inf and
 * max +inf) means unlimited. Application limits are never more liberal than
 * system limits: a change that would make them so is refused, not clamped.
 *
 * A model loaded from a world file that holds a movable joint becomes a
 * kinematic object (wk_scene_objects_init). Each of its joints that joins
 * two of its links (or the world and one) moves below its parent link (the
 * base entity for the world) and its child link below the joint, both
 * re-expressed so that every world pose at position 0 stays the file's.
 * Revolute and continuous joints turn, prismatic ones slide; the others
 * (fixed, ball, universal, screw, planar, floating, gearbox, revolute2) are
 * held rigid as fixed joints. System and application limits come from the
 * file's lower, upper and velocity (unlimited where it gives none). A
 * joint that mimics another (Mimic, from URDF's <mimic> or SDFormat's
 * <axis><mimic>) is not a degree of freedom: whenever its leader's position
 * is set through these calls, its own becomes multiplier * leader + offset,
 * and what hangs below it follows; a leader's position that would put it
 * outside its limits (the file's) is refused like one outside the leader's
 * own. At load every joint is at 0, where the file poses it. A joint that
 * does not fit (a link of a nested model, a loop) keeps the file's layout
 * and is not a joint of the object.
 *
 * Failures: WK_NOT_FOUND for an object or joint that does not exist,
 * WK_PRECONDITION when the object is not a kinematic object, WK_INVALID for
 * a malformed request (wrong count, repeated name, NaN), WK_RANGE
 * for a position outside its application limits or limits that break the
 * rules above; messages name the object, the joint and the limit. Every call
 * that changes something changes all of it or nothing. */

typedef enum wk_joint_motion {
    WK_JOINT_MOTION_UNDEFINED = 0, /* moves like fixed */
    WK_JOINT_MOTION_REVOLUTE = 1,
    WK_JOINT_MOTION_PRISMATIC = 2,
    WK_JOINT_MOTION_FIXED = 3,
} wk_joint_motion;

/* Kinematics: the component of a joint entity (KinematicsComponent). */
typedef struct wk_kinematics {
    wk_pose parent_t_inboard; /* the joint's frame at position 0, in its parent entity's frame */
    wk_vec3 axis;             /* unit, in the inboard frame */
    double position;          /* raw_value: radians or meters */
    uint32_t motion;          /* wk_joint_motion */
    uint32_t reserved;        /* zero */
} wk_kinematics;

/* One joint's limits (one index of a JointLimits message). */
typedef struct wk_joint_limit {
    double min_position, max_position;
    double max_velocity, max_acceleration, max_jerk;
    double max_effort; /* always 0: not supported, as in ObjectWorldService */
} wk_joint_limit;

typedef struct wk_joint_configuration {
    char *name;        /* owned by the component, unique within the object */
    double *positions; /* owned: one per degree of freedom, radians or meters */
} wk_joint_configuration;

typedef struct wk_ik_solver {
    char *key;           /* kinematic_solver_key; owned by the component */
    wk_entity base, tip; /* entities of the object */
} wk_ik_solver;

/* KinematicObject: the component of a kinematic object's base entity. */
typedef struct wk_kinematic_object {
    uint32_t joint_count, configuration_count, ik_solver_count, flange_count;
    wk_entity *joints;                  /* the degrees of freedom, in order */
    wk_joint_limit *system_limits;      /* joint_count each */
    wk_joint_limit *application_limits;
    wk_joint_configuration *configurations;
    wk_ik_solver *ik_solvers;
    wk_entity *flange_frames; /* iso_flange_frames: frames of the object */
} wk_kinematic_object;

/* Borrowed until the entity changes; NULL when joint is not a joint. */
const wk_kinematics *wk_scene_kinematics(const wk_scene *s, wk_entity joint);
/* Borrowed until the object changes; NULL when object is not a kinematic
 * object. */
const wk_kinematic_object *wk_scene_kinematic_object(const wk_scene *s, wk_entity object);
/* The number of degrees of freedom (0 for any other entity). */
size_t wk_scene_joint_count(const wk_scene *s, wk_entity object);
/* Appends the object's joint entities to out, in order. */
int wk_scene_joints(const wk_scene *s, wk_entity object, wk_entity_list *out, wk_status *st);
/* Writes the joint positions, in order, to out (room for n; WK_INVALID when
 * n is less than the joint count). */
int wk_scene_joint_positions(const wk_scene *s, wk_entity object, double *out, size_t n, wk_status *st);

/* New values for some limits of some joints (JointLimitsUpdate): each array
 * not NULL holds one value per joint updated and replaces those limits. */
typedef struct wk_joint_limits_update {
    const double *min_position, *max_position;
    const double *max_velocity, *max_acceleration, *max_jerk;
    const double *max_effort; /* only zeros are accepted */
} wk_joint_limits_update;

/* An update of joints (UpdateObjectJoints(Request)): the joints named in
 * names, or, when names is NULL, all of them in order (count must then be
 * the joint count). Limits are applied first; then every joint whose
 * position or application limits changed must lie within its application
 * limits. */
typedef struct wk_joints_update {
    const char *const *names;
    size_t count;
    const double *positions; /* NULL: unchanged */
    const wk_joint_limits_update *system, *application; /* NULL: unchanged */
} wk_joints_update;

int wk_scene_update_joints(wk_scene *s, wk_entity object, const wk_joints_update *update, wk_status *st);
/* Shorthands of wk_scene_update_joints. */
int wk_scene_set_joint_positions(wk_scene *s, wk_entity object, const char *const *names, const double *positions,
                                 size_t n, wk_status *st);
int wk_scene_set_joint_limits(wk_scene *s, wk_entity object, const char *const *names, size_t n,
                              const wk_joint_limits_update *system, const wk_joint_limits_update *application,
                              wk_status *st);

/* A named joint configuration to set: one position per degree of freedom. */
typedef struct wk_joint_configuration_desc {
    const char *name;
    const double *positions;
    size_t count;
} wk_joint_configuration_desc;

/* Removes the configurations named in remove (WK_NOT_FOUND if one is
 * missing), then sets those of set, replacing any of the same name
 * (UpdateKinematicObjectPropertiesRequest). */
int wk_scene_update_joint_configurations(wk_scene *s, wk_entity object, const char *const *remove,
                                         size_t remove_count, const wk_joint_configuration_desc *set,
                                         size_t set_count, wk_status *st);
/* Replaces the object's IK solvers (kept as data: worldkit solves nothing);
 * keys are copied, base and tip must be entities of the object. */
int wk_scene_set_ik_solvers(wk_scene *s, wk_entity object, const wk_ik_solver *solvers, size_t n, wk_status *st);
/* Replaces the object's ISO flange frames: frames of the object. */
int wk_scene_set_flange_frames(wk_scene *s, wk_entity object, const wk_entity *frames, size_t n, wk_status *st);

/* The Cartesian bounds of a kinematic object's motion (Intrinsic's
 * icon.CartesianLimits), kept as data: worldkit plans nothing with them. */
typedef enum wk_cartesian_bound {
    WK_CART_MIN_POSITION,
    WK_CART_MAX_POSITION,
    WK_CART_MIN_VELOCITY,
    WK_CART_MAX_VELOCITY,
    WK_CART_MIN_ACCELERATION,
    WK_CART_MAX_ACCELERATION,
    WK_CART_MIN_JERK,
    WK_CART_MAX_JERK,
    WK_CART_BOUND_COUNT,
} wk_cartesian_bound;

/* CartesianLimits: metres or radians per second, second^2, second^3. A
 * translational bound is per axis (x, y, z) and may be absent (its bit of
 * present clear, its vector zero); an infinity means unlimited. */
typedef struct wk_cartesian_limits {
    wk_vec3 translational[WK_CART_BOUND_COUNT]; /* indexed by wk_cartesian_bound */
    uint32_t present;                           /* bit b: translational[b] is given */
    uint32_t reserved;                          /* zero */
    double max_rotational_velocity, max_rotational_acceleration, max_rotational_jerk;
} wk_cartesian_limits;

/* Payload: the load mounted on a kinematic object's flange (Intrinsic's
 * RobotPayload). */
typedef struct wk_payload {
    double mass_kg;
    wk_pose tip_t_cog;    /* the centre of gravity in the flange (tip) frame */
    double inertia[3][3]; /* about the centre of gravity, kg m^2; symmetric */
} wk_payload;

/* Sets or replaces the object's Cartesian limits. WK_PRECONDITION when it is
 * not a kinematic object; WK_INVALID for a NaN, a min above its max, or a
 * negative rotational limit (naming the object and the field). */
int wk_scene_set_cartesian_limits(wk_scene *s, wk_entity object, const wk_cartesian_limits *limits, wk_status *st);
/* Borrowed until the object changes; NULL when it has none. */
const wk_cartesian_limits *wk_scene_cartesian_limits(const wk_scene *s, wk_entity object);
/* Sets or replaces the object's mounted payload. WK_PRECONDITION when it is
 * not a kinematic object; WK_INVALID for a negative or non-finite mass, an
 * invalid pose, or an inertia that is not finite and symmetric with a
 * non-negative diagonal. */
int wk_scene_set_payload(wk_scene *s, wk_entity object, const wk_payload *payload, wk_status *st);
/* Borrowed until the object changes; NULL when it has none. */
const wk_payload *wk_scene_payload(const wk_scene *s, wk_entity object);

/* One joint of a kinematic object to create, with the link it moves: the
 * joint entity hangs below its parent link, the link below the joint. */
typedef struct wk_joint_desc {
    const char *name;         /* the joint entity's name */
    const char *link;         /* the name of the link entity it moves */
    int parent;               /* index of the joint whose link it hangs from; -1: the base entity */
    wk_joint_motion motion;   /* revolute, prismatic or fixed */
    wk_vec3 axis;             /* zero: +z */
    wk_pose parent_t_inboard; /* in the parent link's (or base's) frame; zero: identity */
    wk_pose inboard_t_link;   /* the link in the joint's frame; zero: identity */
    wk_joint_limit limits;    /* system and application limits; a zero field: unlimited */
} wk_joint_desc;

typedef struct wk_kinematic_object_desc {
    const char *name;
    wk_entity parent; /* as in wk_object_desc */
    wk_pose pose;
    bool name_is_global_alias;
    const char *entity_name; /* the base entity; NULL: the object's name */
    const wk_joint_desc *joints; /* parents before children */
    size_t joint_count;
} wk_kinematic_object_desc;

/* Creates a KINEMATIC_OBJECT with its joints at position 0 (or at the
 * limit nearest to 0 when the limits leave it out). Fails like
 * wk_scene_create_object, and with WK_INVALID for a bad joint (name taken
 * in the object, parent index, motion, axis, pose or limits), changing
 * nothing. */
int wk_scene_create_kinematic_object(wk_scene *s, const wk_kinematic_object_desc *desc, wk_entity *out,
                                     wk_status *st);

/* One entity to add to an object (wk_scene_add_entity), as an object's
 * snapshot lists it (CreateWorld). */
typedef struct wk_entity_desc {
    /* Unique among the object's links, joints and frames (its base entity
     * aside, as SDFormat scopes a model's name outside it); a visual's
     * among its link's visuals and a collision's among its link's
     * collisions only. */
    const char *name;
    /* WK_NODE_VISUAL or WK_NODE_COLLISION for a shape of its parent link;
     * zero: a LINK, or a JOINT when it has kinematics. */
    uint8_t kind;
    wk_entity parent;      /* an entity of an object, not a frame */
    wk_pose parent_t_this; /* zero: identity; a joint's comes from its kinematics */
    const wk_scene_geometry *geometry; /* optional; a mesh or heightmap needs uri */
    const char *uri;
    const wk_physics *physics;       /* optional */
    const wk_kinematics *kinematics; /* optional: a joint, posed at its position */
} wk_entity_desc;

/* Adds an entity (Kind desc->kind, else JOINT when it has kinematics, else
 * LINK) below an entity of an object. Fails, changing nothing, with
 * WK_NOT_FOUND for a parent of no object, WK_INVALID for a frame as parent
 * or a bad kind, name, pose, geometry, physics or kinematics (motion, unit
 * axis, position), WK_EXISTS for a name taken (see wk_entity_desc.name). */
int wk_scene_add_entity(wk_scene *s, const wk_entity_desc *desc, wk_entity *out, wk_status *st);
/* Makes a PHYSICAL_OBJECT a KINEMATIC_OBJECT whose degrees of freedom are
 * joints (n revolute or prismatic joint entities of it, in order) with these
 * system and application limits (n each), and nothing else set. Fails,
 * changing nothing, with WK_NOT_FOUND for no object, WK_PRECONDITION for an
 * object that is not physical, WK_INVALID for an entity that is not a moving joint of the
 * object or comes twice, WK_RANGE (or WK_INVALID) for limits that break the
 * rules or a position outside its application limits. */
int wk_scene_make_kinematic(wk_scene *s, wk_entity object, const wk_entity *joints, const wk_joint_limit *system,
                            const wk_joint_limit *application, size_t n, wk_status *st);

/* ---- entity info ------------------------------------------------------------
 *
 * What an entity is, as simulation_interfaces' EntityInfo says: a category,
 * a description and tags, kept in the EntityInfo component (so clones,
 * state and batches carry it). An entity without one has none set. */

/* msg/EntityCategory's categories, same numbers (3 is not one). */
enum wk_entity_category {
    WK_CATEGORY_OBJECT = 0,
    WK_CATEGORY_ROBOT = 1,
    WK_CATEGORY_HUMAN = 2,
    WK_CATEGORY_DYNAMIC_OBJECT = 4,
    WK_CATEGORY_STATIC_OBJECT = 5,
};

typedef struct wk_entity_info {
    uint32_t category; /* a wk_entity_category */
    uint32_t tag_count;
    const char *description; /* NULL is read as "" */
    const char *const *tags;
} wk_entity_info;

bool wk_entity_category_valid(uint32_t category);
/* The entity's info, borrowed until the next structural change of the ECM,
 * or NULL when it has none. */
const wk_entity_info *wk_scene_entity_info(const wk_scene *s, wk_entity e);
/* Replaces the entity's info with a copy of info. Fails, changing nothing,
 * with WK_NOT_FOUND for a missing entity, WK_INVALID for an unknown
 * category or a NULL tag. */
int wk_scene_set_entity_info(wk_scene *s, wk_entity e, const wk_entity_info *info, wk_status *st);

#ifdef __cplusplus
}
#endif
#endif
