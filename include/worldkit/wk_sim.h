/* wk_sim.h — the sim layer: a world in motion.
 *
 * A simulation owns a world's scene and the description it came from. Each
 * step runs the registered systems in three phases, in this order:
 *   1. pre-update:  levels load and unload around the performers (built in),
 *                   then the systems registered for this phase;
 *   2. update:      kinematic motion integrates every Acceleration into its
 *                   Velocity and every Velocity into its ParentPose (built
 *                   in), then the systems registered for this phase;
 *   3. post-update: the systems registered for this phase;
 * and then ends the ECM's step: entities marked for removal (unloaded levels
 * among them) are removed, newness and change states are cleared. So a
 * system sees a loaded level's entities as new from the update phase of the
 * step that loads them, and an unloaded level's as removed (each-removed)
 * until the end of the step that unloads them.
 *
 * Levels follow Gazebo's: a level is a box (its pose's orientation ignored)
 * inflated by its buffer; it is loaded while any performer's box touches
 * that, and unloaded when none does. An entity named by several levels stays
 * while any of them is loaded; entities named by none are global, always
 * loaded. Loading recreates a level's models from the description, as the
 * file has them. Without levels everything is loaded. */
#ifndef WK_SIM_H
#define WK_SIM_H

#include "worldkit/wk_formats.h"
#include "worldkit/wk_scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wk_sim wk_sim;

typedef enum wk_phase {
    WK_PRE_UPDATE,
    WK_UPDATE,
    WK_POST_UPDATE,
    WK_PHASE_COUNT,
} wk_phase;

typedef struct wk_step_info {
    uint64_t iteration; /* 1 for the first step */
    double sim_time;    /* seconds at the end of this step */
    double dt;          /* seconds */
} wk_step_info;

typedef void (*wk_system_fn)(wk_sim *sim, const wk_step_info *info, void *ctx);

/* Where something is and how it moves relative to a frame, in that frame's
 * axes: its pose, its velocity (the twist) and the velocity's rate of change
 * as seen from the frame. */
typedef struct wk_motion {
    wk_pose pose;
    wk_vec3 linear, angular;         /* m/s, rad/s */
    wk_vec3 linear_acc, angular_acc; /* m/s^2, rad/s^2 */
} wk_motion;

/* The parts of a motion that wk_sim_set_motion applies; combine with |. */
enum wk_motion_part {
    WK_MOTION_POSE = 1,
    WK_MOTION_TWIST = 2,
    WK_MOTION_ACCELERATION = 4,
};

/* What moves the world's links each step. */
typedef enum wk_physics_engine {
    WK_PHYSICS_NONE,   /* kinematic motion only: Velocity and Acceleration integrated */
    WK_PHYSICS_MUJOCO, /* dynamics on MuJoCo: gravity, contacts, joints, inertia */
    WK_PHYSICS_AUTO,   /* MUJOCO when the world has a dynamic link (one outside a static model) as the
                          simulation is made, else NONE: the command line's default */
} wk_physics_engine;

typedef struct wk_sim_desc {
    /* The scene to run on, borrowed for the simulation's life (or until
     * wk_sim_bind gives it another); NULL: a scene of its own. An empty
     * scene is filled with the world; one that is an object world already
     * (wk_scene_root, e.g. a store's world reloaded from disk) is taken as
     * the world, as wk_sim_bind takes it. */
    wk_scene *scene;
    bool levels;       /* load and unload levels around performers */
    /* The engine that steps the links: with MUJOCO, links move under
     * gravity, collide and are held by their joints, and the kinematic
     * motion system no longer runs (the engine takes its place). */
    wk_physics_engine physics;
    /* Puts the world back as it began, ids and all (a reset of STATE and
     * SPAWNED together, which stopping does too), binding the simulation to
     * the scene that holds it (wk_sim_bind); NULL: the file's entities are
     * made again from the description, with new ids. */
    int (*restore)(wk_sim *sim, void *ctx, wk_status *st);
    void *restore_ctx;
    bool naive_levels; /* check every performer against every level, not
                          through the spatial index: for comparisons */
    /* The links the engine compiles at most (0: WK_MAX_PHYSICS_LINKS).
     * MuJoCo's compile cannot be interrupted and grows with the square of
     * the degrees of freedom (2,000 free bodies took 4 s, 32,000 over 90 s),
     * so a step of a world past it fails WK_LIMIT before anything is
     * compiled, the world as it was. */
    size_t max_physics_links;
} wk_sim_desc;

#define WK_MAX_PHYSICS_LINKS 1000

/* Builds a simulation of the world in desc, which it takes (also on
 * failure). opts may be NULL for the defaults. */
int wk_sim_new(wk_world_desc *desc, const wk_sim_desc *opts, wk_sim **out, wk_status *st);
/* Frees the simulation, and its scene when it made it. */
void wk_sim_free(wk_sim *sim);
/* Runs the simulation on scene from now on: the object world it was given
 * (wk_sim_desc.scene) or one that took that world's place (a store's world
 * cloned over, swapped or reloaded). Its world entity is the scene's root,
 * and which levels are loaded is read back from the top-level entities by
 * name. WK_INVALID for a simulation with a scene of its own, or a scene
 * that is not an object world. */
int wk_sim_bind(wk_sim *sim, wk_scene *scene, wk_status *st);

/* The box the vertices of a mesh file fill (a path the world's reader
 * resolved), in the file's own axes and units, read with assimp the first
 * time this simulation is asked and kept: WK_OK; WK_INVALID with st naming
 * the file and the reason when assimp cannot read it or it holds no
 * vertex (also kept: the file is not tried again); WK_NOMEM. */
int wk_sim_mesh_box(wk_sim *sim, const char *file, wk_vec3 *lo, wk_vec3 *hi, wk_status *st);

/* Borrowed until the simulation is freed or bound to another scene. */
wk_scene *wk_sim_scene(wk_sim *sim);
wk_entity wk_sim_world(const wk_sim *sim);
/* The component types of wk_velocity and wk_acceleration: the scene's own
 * (wk_scene_types' velocity and acceleration). */
wk_type wk_sim_velocity_type(const wk_sim *sim);
wk_type wk_sim_acceleration_type(const wk_sim *sim);

/* The motion relative to frame's own reference of something that moves by
 * rel relative to frame (rel in frame's axes), when frame moves by frame:
 * frame's turning carries the thing round and adds centripetal and Coriolis
 * terms to its acceleration. */
wk_motion wk_motion_compose(const wk_motion *frame, const wk_motion *rel);
/* The inverse of wk_motion_compose: rel from frame and the composed motion. */
wk_motion wk_motion_relative(const wk_motion *frame, const wk_motion *composed);
/* The entity's motion relative to the world entity: the ParentPose, Velocity
 * and Acceleration of it and of its ancestors composed, so that a link moves
 * with its model. The world entity itself (or WK_NULL_ENTITY) is at rest at
 * the identity. */
wk_motion wk_sim_motion(wk_sim *sim, wk_entity e);
/* Gives e the parts of motion m (relative to the world entity) that parts
 * selects, by writing its ParentPose, its Velocity (in the parent's frame) or
 * its Acceleration relative to its parent's motion; the components of the
 * other parts are left as they are. A Velocity that ends up zero with no
 * Acceleration, and a zero Acceleration, are removed, so that a still entity
 * costs the motion system nothing. m must be finite with a unit rotation,
 * its pose within WK_POSE_TRANSLATION_MAX of the parent's in each component.
 * WK_NOT_FOUND for a missing entity or the world entity. */
int wk_sim_set_motion(wk_sim *sim, wk_entity e, const wk_motion *m, unsigned parts);
/* WK_OK when e may be given a twist or an acceleration; WK_INVALID, the
 * message naming it as name, when e or a model it belongs to is static
 * (SDFormat's <static>, UpdateObjectProperties' is_static), which the
 * standard's SetEntityState refuses to move. */
int wk_sim_may_move(wk_sim *sim, wk_entity e, const char *name, wk_status *st);
/* WK_OK when a pose, twist or acceleration set on e would hold;
 * WK_PRECONDITION, the message naming it as name and the joint (or the
 * body it is welded to), when a physics engine
 * places e from a joint's position: e is a link on a joint (fixed ones
 * too), or holds a link joined to something outside it. Floating bodies
 * and static models may be placed; without physics anything may. */
int wk_sim_may_place(wk_sim *sim, wk_entity e, const char *name, wk_status *st);

/* Adds a system to a phase, after those already there. */
int wk_sim_add_system(wk_sim *sim, wk_phase phase, wk_system_fn fn, void *ctx);

/* Runs n steps of the world's step size, as fast as possible. */
int wk_sim_step(wk_sim *sim, uint64_t n);
/* Whether an engine steps the world's links (MUJOCO, or AUTO for a world
 * that had a dynamic link), rather than kinematic motion. */
bool wk_sim_has_physics(const wk_sim *sim);
/* WK_OK when a world of scene, stepped by engine, stays within the links
 * MuJoCo compiles at most (max, 0: WK_MAX_PHYSICS_LINKS): always under
 * NONE, and under AUTO while no link would move; else WK_LIMIT naming the
 * count, the limit and serve's flag. Asked before a world grows, so that
 * what its step would refuse (wk_sim_desc.max_physics_links) is refused
 * with nothing changed. */
int wk_sim_physics_room(wk_scene *scene, wk_physics_engine engine, size_t max, wk_status *st);
/* Why the physics engine failed the last step ("" when it did not);
 * borrowed until the next step. */
const char *wk_sim_error(const wk_sim *sim);
/* Runs n steps paced so that simulated time advances rtf times as fast as
 * wall-clock time (sleeping when ahead); rtf <= 0 runs as fast as possible. */
int wk_sim_run(wk_sim *sim, uint64_t n, double rtf);
/* The world's real_time_factor (1 unless the file says). */
double wk_sim_default_rtf(const wk_sim *sim);
uint64_t wk_sim_iterations(const wk_sim *sim);
double wk_sim_time(const wk_sim *sim);
/* The step size: the world's max_step_size. */
double wk_sim_dt(const wk_sim *sim);

/* How many levels there are (none without wk_sim_desc.levels); the i-th,
 * in file order, is wk_sim_level_info's. */
size_t wk_sim_level_count(const wk_sim *sim);
/* Whether the named level is loaded now; false for an unknown name. */
bool wk_sim_level_loaded(const wk_sim *sim, const char *level);
/* The i-th level as the world file describes it, and whether it is loaded
 * now; false past the end. Its strings are borrowed for the simulation's
 * life. */
typedef struct wk_level_info {
    const char *name;
    wk_vec3 center, size;          /* its box, in the world frame (its orientation is ignored) */
    double buffer;                 /* how far the box is inflated to make its zone */
    bool loaded;
    const char *const *entities;   /* the top-level entities it holds, by name */
    size_t entity_count;
} wk_level_info;
bool wk_sim_level_info(const wk_sim *sim, size_t i, wk_level_info *out);
/* The level holding the top-level entity called name (or the top-level
 * entity of a scoped name, "M1::body") while none holding it is loaded, so
 * that it is absent from the world; NULL when no level holds it or one that
 * does is loaded. Borrowed for the simulation's life. */
const char *wk_sim_unloaded_level_of(const wk_sim *sim, const char *name);
/* The performers (the world file's, then those added), in that order: how
 * many, and the i-th's entity name and box size (NULL past the end),
 * borrowed until the next wk_sim_set_performer. */
size_t wk_sim_performer_count(const wk_sim *sim);
const char *wk_sim_performer(const wk_sim *sim, size_t i, wk_vec3 *size);
/* Makes the top-level entity called name a performer (with a 1 m box), as
 * Gazebo's set_performer service, marking the entity so (its Performer
 * component, which a world reloaded from disk reads back): 1 when added, 0
 * when no such entity exists or it is a performer already, or a negative
 * code. */
int wk_sim_set_performer(wk_sim *sim, const char *name);

/* The states of simulation_interfaces' SimulationState, same numbers. */
typedef enum wk_sim_state {
    WK_SIM_STOPPED = 0,
    WK_SIM_PLAYING = 1,
    WK_SIM_PAUSED = 2,
    WK_SIM_QUITTING = 3,
    WK_SIM_NO_WORLD = 4,
    WK_SIM_LOADING_WORLD = 5,
} wk_sim_state;

/* What a reset puts back; combine with |. */
enum wk_reset_scope {
    WK_RESET_TIME = 1,    /* sim time and iterations to zero */
    WK_RESET_STATE = 2,   /* the world file's entities as the file has them */
    WK_RESET_SPAWNED = 4, /* entities added by spawning removed */
    WK_RESET_ALL = 7,
};

/* A new simulation is STOPPED. */
wk_sim_state wk_sim_state_of(const wk_sim *sim);
/* Moves to target: STOPPED, PLAYING, PAUSED or QUITTING. Stopping is pausing
 * and a reset of everything. Fails with WK_EXISTS when already there, with
 * WK_INVALID for a transition the standard forbids (anything after
 * QUITTING, or to NO_WORLD / LOADING_WORLD, which only worldkit enters),
 * or with the reset's failure, the state then unchanged. */
int wk_sim_set_state(wk_sim *sim, wk_sim_state target, wk_status *st);
/* Resets what scope says (wk_reset_scope bits), between steps. A reset
 * that fails leaves the world as it was, but for one case: a restorer's
 * world back as it began whose levels then fail to load stays as it began
 * (that load undone whole; the next step loads them). */
int wk_sim_reset(wk_sim *sim, unsigned scope, wk_status *st);

/* Called for each level loaded or unloaded, after it happened. */
typedef void (*wk_level_event_fn)(wk_sim *sim, const char *level, bool loaded, void *ctx);
void wk_sim_on_level_event(wk_sim *sim, wk_level_event_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
