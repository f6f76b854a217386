/* physics_start.h — the worlds and helpers the physics tests share:
 * starting a simulation on MuJoCo, stepping it, and reading links'
 * heights. */
#ifndef WK_TEST_SIM_PHYSICS_START_H
#define WK_TEST_SIM_PHYSICS_START_H

#include <stdint.h>
#include <stdio.h>

#include "worldkit/wk_sim.h"

#define WORLD_OPEN(gravity)                                                                                     \
    "<sdf version='1.9'><world name='w'><physics name='p' type='ode'><max_step_size>0.001</max_step_size>"    \
    "</physics><gravity>" gravity "</gravity>"

/* A static ground plane, and a 1 kg box of side 0.2 m at height 2 m. */
#define BOX_DROP                                                                                               \
    WORLD_OPEN("0 0 -9.8")                                                                                     \
    "<model name='ground'><static>true</static><link name='l'><collision name='c'><geometry><plane>"          \
    "<normal>0 0 1</normal><size>100 100</size></plane></geometry></collision></link></model>"                \
    "<model name='box'><pose>0 0 2 0 0 0</pose><link name='body'><inertial><mass>1</mass><inertia>"            \
    "<ixx>0.00667</ixx><iyy>0.00667</iyy><izz>0.00667</izz></inertia></inertial><collision name='c'>"        \
    "<geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision></link></model></world></sdf>"

/* A simulation on MuJoCo of the world in text, or in the file at uri. */
static inline wk_sim *physics_sim_of(const char *text, const char *uri)
{
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_sim *sim = NULL;
    if (wk_desc_read(&(wk_read_desc){.resource_string = text, .uri = uri}, &d, &st) ||
        wk_sim_new(d, &(wk_sim_desc){.physics = WK_PHYSICS_MUJOCO}, &sim, &st))
        fprintf(stderr, "    %s\n", st.message);
    return sim;
}

static inline wk_sim *physics_sim(const char *text)
{
    return physics_sim_of(text, NULL);
}

/* n steps, the engine's complaint printed when they fail. */
static inline int steps(wk_sim *sim, uint64_t n)
{
    int rc = wk_sim_step(sim, n);
    if (rc)
        fprintf(stderr, "    %s\n", wk_sim_error(sim));
    return rc;
}

static inline wk_entity link_of(wk_sim *sim, const char *scoped)
{
    return wk_scene_scoped(wk_sim_scene(sim), wk_sim_world(sim), scoped);
}

static inline double height(wk_sim *sim, const char *scoped)
{
    return wk_scene_world_pose(wk_sim_scene(sim), link_of(sim, scoped)).p.z;
}

/* The box model itself, which follows its link. */
static inline double model_height(wk_sim *sim, const char *model)
{
    return wk_sim_motion(sim, wk_scene_scoped(wk_sim_scene(sim), wk_sim_world(sim), model)).pose.p.z;
}

#endif
