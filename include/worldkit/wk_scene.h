/* wk_scene.h — the scene layer: the vocabulary of worlds (kinds of things,
 * joint types, shapes) and a world as ECS entities carrying worldkit's
 * standard components.
 *
 * Every model, link, joint, frame, visual, collision, sensor, light, actor,
 * level and performer is one entity, a child of the entity it belongs to,
 * carrying Name (its local name), Kind (a wk_node_kind) and ParentPose
 * (parent_T_this), and as its kind calls for: Static (tag), Joint,
 * JointLinks, Geometry, Uri (mesh or heightmap uri), Inertial. A world pose
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
    wk_type inertial;    /* wk_inertial */
    wk_type ns;          /* char *, owned: the namespace a spawned entity's interfaces live under */
    wk_type spawned;     /* tag: added by SpawnEntities, not by the world file */
} wk_scene_types;

typedef struct wk_scene_joint {
    wk_joint_type type;
    wk_vec3 axis;         /* in the joint frame */
    double lower, upper;  /* -inf / +inf when unlimited */
    double effort, velocity;
} wk_scene_joint;

typedef struct wk_scene_joint_links {
    wk_entity parent, child; /* WK_NULL_ENTITY for the world */
} wk_scene_joint_links;

typedef struct wk_scene_geometry {
    wk_geometry_type type;
    wk_vec3 size;
    double radius, length;
    wk_vec3 normal, scale;
} wk_scene_geometry;


/* A scene with an empty ECM; NULL when out of memory. Free with wk_scene_free. */
wk_scene *wk_scene_new(void);
void wk_scene_free(wk_scene *s);
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

#ifdef __cplusplus
}
#endif
#endif
