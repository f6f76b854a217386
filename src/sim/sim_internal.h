/* sim_internal.h — the simulation's state, shared by the files of src/sim. */
#ifndef WK_SIM_INTERNAL_H
#define WK_SIM_INTERNAL_H

#include "sim/grid.h"
#include "sim/mesh_bounds.h"
#include "sim/physics.h"
#include "worldkit/wk_sim.h"

typedef struct wk__system {
    wk_system_fn fn;
    void *ctx;
} wk__system;

typedef struct wk__level {
    uint32_t node;   /* in the description */
    uint32_t *refs;  /* top-level nodes it holds */
    size_t ref_count;
    uint32_t performers; /* whose boxes touch its zone (through the index) */
    uint64_t mark;       /* scratch stamp of levels.c's set comparisons */
    uint64_t noted;      /* the last level check that listed it as changed */
    bool loaded;
} wk__level;

/* A name and what it names, in arrays sorted by name for lookups. */
typedef struct wk__named {
    const char *name;
    uint32_t id;
} wk__named;

typedef struct wk__performer {
    char *name; /* the top-level entity's name, owned */
    wk_vec3 size;
    wk_entity entity; /* last seen; looked up again when stale */
    /* The levels whose zones its box touched at its last query, and where
     * the box may go without that changing: while settled, per axis,
     *   low.min < box.min <= high.min  and  low.max <= box.max < high.max. */
    bool settled;
    wk_aabb low, high;
    uint32_t *touching; /* owned */
    size_t touch_count, touch_cap;
} wk__performer;

/* A level's model as it was first loaded: its subtree's state, applied to
 * load it again with the same ids, and its top entity. */
typedef struct wk__kept {
    wk_buf state;
    wk_entity top;
} wk__kept;

struct wk_sim {
    wk_scene *scene;  /* the world it runs on */
    bool owns_scene;  /* made by wk_sim_new, not given (wk_sim_desc.scene) */
    int (*restore)(wk_sim *sim, void *ctx, wk_status *st); /* wk_sim_desc's */
    void *restore_ctx;
    wk_world_desc *desc;
    wk_entity world;
    wk_type velocity, acceleration;
    wk__physics *physics; /* the engine, or NULL for kinematic motion */
    wk__mesh_boxes mesh_boxes; /* wk_sim_mesh_box's, by path */
    wk_status physics_status; /* why the engine's last step failed */
    size_t max_physics_links; /* wk_sim_desc's, 0 made the default */
    wk_query *moving;       /* ParentPose and Velocity, no Acceleration */
    wk_query *accelerating; /* ParentPose, Velocity and Acceleration */
    wk__system *systems[WK_PHASE_COUNT];
    size_t system_count[WK_PHASE_COUNT];
    uint64_t iterations;
    double time, dt;
    double rtf; /* the world's real_time_factor */
    wk_sim_state state;

    bool levels_on, naive_levels;
    bool recheck;   /* compare every level's performers with its state */
    wk__level *levels;
    wk_aabb *zones; /* per level: its box inflated by its buffer */
    size_t level_count;
    wk__grid grid;  /* over the zones */
    uint64_t check; /* level checks so far */
    uint64_t stamp; /* marks handed out */
    /* Per level check: the levels whose performer count went to or from
     * zero, then those to load and to unload; a performer's new levels. */
    uint32_t *changed, *to_load, *to_unload, *scratch;
    size_t changed_count;
    bool *held;     /* per node: some level holds it */
    struct wk__named *level_names; /* sorted by name */
    wk__performer *performers;
    size_t performer_count;
    uint32_t *holders;  /* per node: loaded levels holding it */
    wk_entity *loaded;  /* per node: its entity while loaded */
    wk__kept *kept;     /* per node: as first loaded, for the next load */
    wk_level_event_fn on_level;
    void *on_level_ctx;
};

/* levels.c */
int wk__levels_init(wk_sim *sim, wk_status *st);
void wk__levels_free(wk_sim *sim);
/* True when the top-level node belongs to some level (levels on). */
bool wk__levels_hold(const wk_sim *sim, uint32_t node);
int wk__levels_update(wk_sim *sim);

void wk__levels_forget(wk_sim *sim);
/* Writes on each level's entity (its Region) whether it is loaded. */
void wk__levels_show(wk_sim *sim);
/* Reads which levels are loaded back from the scene's entities (by name),
 * for a scene the simulation did not build itself, and the performers
 * SetPerformer made (their Performer component); WK_NOMEM. */
int wk__levels_reread(wk_sim *sim);

/* kinematics.c: whether a motion is at rest (no twist nor acceleration). */
bool wk__motion_still(const wk_motion *m);

/* motion.c: the motion system's views of the scene, made again when the
 * simulation runs on another scene. */
int wk__motion_bind(wk_sim *sim, wk_status *st);
void wk__motion_update(wk_sim *sim, double dt);

#endif
