/* physics_mujoco.h — what the files of the MuJoCo engine share: the bodies
 * the world's links are, the engine's state, the MJCF writer
 * (physics_mjcf.c) and the pool of spare bodies (physics_pool.c), which
 * takes the common spawn and delete without compiling the model again. */
#ifndef WK_SIM_PHYSICS_MUJOCO_H
#define WK_SIM_PHYSICS_MUJOCO_H

#include <mujoco/mujoco.h>

#include "sim/physics.h"
#include "sim/sim_internal.h"

/* A link and the body it is. */
typedef struct body {
    wk_entity link;
    wk_entity joint;   /* joining it to its parent body; WK_NULL_ENTITY for none */
    int parent;        /* index of its parent body here, or -1 for the world */
    bool moves;        /* not welded to the world */
    bool free;         /* on a free joint: a pose and twist of its own */
    /* As take_changes last saw them (what changes them is a write, which it sees): */
    bool object_joint; /* on a kinematic object's revolute or prismatic joint */
    wk_entity up;      /* its link's parent entity */
    int id;            /* MuJoCo's body id */
    int qpos, dof;     /* its free joint's (root bodies) or its joint's first addresses; -1: none */
    wk_entity carries; /* the model it carries (a free root link right below its model), or WK_NULL_ENTITY */
    wk_pose written;   /* its world pose as last written to the entities (to rounding, moved) */
    double at_build;   /* its joint's position (a kinematic object's) when the model was written */
    double position;   /* that position as last written to the kinematic object, or taken from it */
    wk_velocity twist; /* the carried model's Velocity as last written */
    wk_velocity before; /* a body that moves within its model: its world twist before the step */
    /* Where the step writes its pose, twist and acceleration (its carried
     * model's or its link's), found once (cell_of). */
    wk_ecm_place pose_at, twist_at, acc_at;
} body;

/* The motion of the entity the last link written hangs from, worked out
 * once: the links of a model share it, and working it out walks the
 * hierarchy up to the world. It holds from one step to the next while no
 * one else writes. */
typedef struct parent_frame {
    bool known;
    wk_entity entity;
    bool still;       /* no twist nor acceleration */
    bool aligned;     /* still, at the world's origin, in its axes: a link's world pose and motion are its own */
    wk_pose inverse;  /* its world pose, inverted */
    wk_motion motion; /* in the world */
} parent_frame;

/* of_id's mark for a spare body: no link's. */
#define SPARE SIZE_MAX

struct wk__physics {
    mjModel *m;
    mjData *d;
    body *bodies;
    size_t count;
    size_t *of_id;  /* MuJoCo's body id to its index in bodies (nbody of them; 0, the world's, unused) */
    int *spares;    /* the parked bodies' ids, free to take a spawned link */
    size_t parked;  /* how many */
    wk_buf assets;  /* while a model is written: its meshes' <mesh> elements */
    size_t meshes;  /* how many */
    int written;    /* while a model is written: the bodies written so far */
    bool pooled;    /* the world's links changed while it ran: its models carry spares from then on */
    uint64_t wrote; /* the ECM's version once the last step wrote the bodies' motion */
    parent_frame frame;
};

/* The node kind of e (WK_NODE_KIND_COUNT for none), and whether a model
 * that holds e is static. */
uint8_t wk__kind_of(const wk_scene *s, wk_entity e);
bool wk__in_static_model(wk_scene *s, wk_entity e);
/* The model body i carries (see physics_mujoco.c), or WK_NULL_ENTITY. */
wk_entity wk__carrier_of(const wk__physics *p, wk_scene *s, size_t i);

/* ---- physics_give.c ---- */
/* Notes, before a step, the world twist of every body that moves within
 * its model: its acceleration is the step's change of it. */
void wk__physics_note_twists(wk__physics *p);
/* Writes what the step just taken gives the entities; WK_NOMEM when memory
 * ran out. */
int wk__physics_give(wk__physics *p, wk_sim *sim);

/* ---- physics_mjcf.c ---- */
int wk__add(wk_buf *xml, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The world's bodies (p->bodies, gathered) and spares spare bodies as
 * MJCF; each body's id set. */
int wk__mjcf_write(wk__physics *p, wk_scene *s, double dt, wk_vec3 gravity, size_t spares, wk_buf *xml);
/* The model an MJCF text makes, compiled from memory (the files it names,
 * meshes, from disk); NULL with MuJoCo's complaint in error when it does
 * not compile, or with error empty when memory runs out. */
mjModel *wk__mjcf_compile(const wk_buf *xml, char *error, size_t cap);
/* A primitive shape's MuJoCo type and size (half extents, radius and half
 * length); false for a plane, a mesh, or none. */
bool wk__primitive(const wk_scene_geometry *g, mjtGeom *type, double size[3]);
/* A geom's friction: what a client set on its link's physics (the readers
 * leave that zero), else what the file gave the collision; false, with
 * friction untouched, when neither gave one (MuJoCo's default then). */
bool wk__friction(wk_scene *s, wk_entity collision, const wk_physics *ph, double friction[3]);
/* A moving body's mass, centre of mass and inertia about it, in the body's
 * axes: the link's, or SDFormat's default of 1 kg and a unit inertia where
 * the file gave none. */
void wk__inertia(const wk_physics *ph, double *mass, wk_vec3 *com, double I[3][3]);

/* ---- physics_pool.c ---- */
/* How many spare bodies a model of the world is written with: none for an
 * MJCF world (it welds a link without a joint, so no spawn fits), nor
 * before its links first changed while it ran. */
size_t wk__pool_size(const wk__physics *p, wk_sim *sim);
int wk__pool_write_spare(wk_buf *xml);
/* After a compile: the spares found (their ids noted) and parked; false
 * when out of memory. */
bool wk__pool_found(wk__physics *p);
/* Holds the parked spares where they are, at rest: after each step. */
void wk__pool_hold(wk__physics *p);
/* Takes the change of the world's links into the model as it is: a
 * deleted free single body parked, a spawned one filled into a spare.
 * False when some change does not fit (a joint, a mesh, no spare left...):
 * the model is to be compiled again. */
bool wk__pool_take(wk__physics *p, wk_sim *sim);

#endif
