/* moving.h — what the benchmarks of a playing world share (sim.c,
 * watch.c): a world of models on a grid, each one box link, loaded as the
 * current world with every model moving at 1 m/s along x; and calls of the
 * simulation_interfaces methods on a world of the endpoint. Include after
 * bench.h. */
#ifndef WK_BENCH_MOVING_H
#define WK_BENCH_MOVING_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "invoke.h"
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_api.h"

/* The world's SDFormat: n models on a grid of 25 columns, each one link
 * holding a 1 m box as its element ("collision" or "visual"), after the
 * world's header (its physics, or ""). */
static char *moving_world_sdf(int n, const char *element, const char *header)
{
    size_t cap = 256 + strlen(header) + (size_t)n * 256;
    char *s = malloc(cap);
    if (!s)
        die("out of memory");
    size_t len = (size_t)snprintf(s, cap, "<sdf version='1.9'><world name='bench'>%s", header);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len,
                                "<model name='m%d'><pose>%d %d 0 0 0 0</pose><link name='l'><%s name='c'>"
                                "<geometry><box><size>1 1 1</size></box></geometry></%s></link></model>",
                                i, i % 25, i / 25, element, element);
    snprintf(s + len, cap - len, "</world></sdf>");
    return s;
}

/* Calls a simulation_interfaces method on world id (NULL: the current one)
 * with request; dies unless it ran, whatever its Result (a state set to
 * the one the world is in answers ALREADY_IN_TARGET_STATE: done). */
static void moving_call(wk_api *api, const char *id, const char *method, const ProtobufCMessage *request)
{
    char path[128];
    snprintf(path, sizeof path, "/simulation_interfaces.SimulationInterfaces/%s", method);
    bench_invoke(api, id, path, request, NULL, false);
}

static void moving_set_state(wk_api *api, const char *id, wk_sim_state state)
{
    SimulationInterfaces__SimulationState s = SIMULATION_INTERFACES__SIMULATION_STATE__INIT;
    s.has_state = true;
    s.state = (uint32_t)state;
    SimulationInterfaces__SetSimulationStateRequest req = SIMULATION_INTERFACES__SET_SIMULATION_STATE_REQUEST__INIT;
    req.state = &s;
    moving_call(api, id, "SetSimulationState", &req.base);
}

/* Loads sdf as the current world and sets every model moving. */
static void moving_load(wk_api *api, const char *sdf)
{
    SimulationInterfaces__LoadWorldRequest load = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    load.resource_string = (char *)sdf;
    moving_call(api, NULL, "LoadWorld", &load.base);
    wk_sim *sim = wk_api_sim(api);
    wk_ecm *ecm = wk_scene_ecm(wk_api_scene(api));
    for (wk_entity m = wk_ecm_first_child(ecm, wk_api_world(api)); m; m = wk_ecm_next_sibling(ecm, m)) {
        wk_motion motion = wk_sim_motion(sim, m);
        motion.linear = (wk_vec3){1, 0, 0};
        if (wk_sim_set_motion(sim, m, &motion, WK_MOTION_TWIST))
            die("setting a model's velocity");
    }
}

#endif
