/* physics.h — dynamics behind a small interface of the sim layer, so that
 * another engine could sit where MuJoCo sits (physics_mujoco.c). The
 * entities and components stay the truth: each step the engine takes the
 * poses clients set, steps, and writes every moving link's pose back. */
#ifndef WK_SIM_PHYSICS_H
#define WK_SIM_PHYSICS_H

#include "worldkit/wk_sim.h"

typedef struct wk__physics wk__physics;

/* Whether the scene holds a link the engine would move: one in no static
 * model. */
bool wk__physics_moves(wk_scene *s, wk_entity world);
/* An engine for the simulation's world, built from its entities at its
 * first step; NULL when out of memory. */
wk__physics *wk__physics_new(void);
void wk__physics_free(wk__physics *p);
/* One step of dt seconds: the world's links changed since the last step
 * (a spawn, a delete, a level) are taken into the engine's model, its
 * spare bodies filled or parked where they fit, else the model is built
 * again; poses set since the last step are
 * taken (a teleport: the body's velocity is zeroed), the engine steps, and
 * every moving link's ParentPose is written back. */
int wk__physics_step(wk__physics *p, wk_sim *sim, double dt, wk_status *st);

#endif
