/* test_get_entity_state.c — the GetEntityState service: NOT_FOUND for
 * unknown names (and for the world itself), scoped names, the world pose of
 * a nested link, a header stamped with simulated time in the world frame,
 * and the twist and acceleration a link gets from its turning model. */
#include <math.h>
#include <string.h>

#include "api/api_call.h"
#include "math/math_check.h"
#include "wk_test.h"

/* A table turned 1.2 rad at (1, 2, 0.5), its top 0.4 m above it. */
#define TABLE_WORLD                                                                                       \
    "<sdf version='1.9'><world name='w'><physics name='p' type='ode'><max_step_size>0.01</max_step_size>" \
    "</physics><model name='table'><pose>1 2 0.5 0 0 1.2</pose><link name='top'><pose>0.3 0 0.4 0 0 0</pose>" \
    "</link></model></world></sdf>"

static void not_found(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, TABLE_WORLD), ==, WK_RESULT_OK);
    const char *names[] = {"nobody", "", "world", "table::nothing", "top"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        wk_motion m;
        char msg[256], want[64];
        snprintf(want, sizeof want, "no entity named '%s'", names[i]);
        CHECK_INT(get_entity(api, names[i], &m, msg), ==, WK_RESULT_NOT_FOUND);
        if (!CHECK(strstr(msg, want) != NULL))
            fprintf(stderr, "    %s\n", msg);
    }
    /* A request without a name names nobody. */
    SimulationInterfaces__GetEntityStateRequest req = SIMULATION_INTERFACES__GET_ENTITY_STATE_REQUEST__INIT;
    SimulationInterfaces__GetEntityStateResponse *resp = (SimulationInterfaces__GetEntityStateResponse *)call_service(
        api, "GetEntityState", &req.base, &simulation_interfaces__get_entity_state_response__descriptor);
    CHECK_INT(result_code(resp, resp ? resp->result : NULL, NULL), ==, WK_RESULT_NOT_FOUND);
    wk_api_free(api);
}

static void world_pose_and_header(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, TABLE_WORLD), ==, WK_RESULT_OK);
    wk_motion m;
    REQUIRE_INT(get_entity(api, "table::top", &m, NULL), ==, WK_RESULT_OK);
    wk_scene *s = wk_api_scene(api);
    wk_entity top = wk_scene_child(s, wk_scene_child(s, wk_api_world(api), "table"), "top");
    wk_pose want = wk_scene_world_pose(wk_api_scene(api), top);
    CHECK_VEC3_NEAR(m.pose.p, want.p, 1e-15);
    CHECK_VEC3_NEAR(m.pose.p, ((wk_vec3){1 + 0.3 * cos(1.2), 2 + 0.3 * sin(1.2), 0.9}), 1e-15);
    CHECK(wk_quat_near(m.pose.q, want.q, 1e-15));
    CHECK_VEC3_NEAR(m.linear, ((wk_vec3){0, 0, 0}), 0);
    /* The header: the world frame, stamped with the simulated time. */
    REQUIRE_INT(set_state(api, WK_SIM_PAUSED, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(step_simulation(api, 123, NULL), ==, WK_RESULT_OK);
    SimulationInterfaces__GetEntityStateRequest req = SIMULATION_INTERFACES__GET_ENTITY_STATE_REQUEST__INIT;
    req.entity = "table";
    SimulationInterfaces__GetEntityStateResponse *resp = (SimulationInterfaces__GetEntityStateResponse *)call_service(
        api, "GetEntityState", &req.base, &simulation_interfaces__get_entity_state_response__descriptor);
    REQUIRE(resp && resp->state && resp->state->header && resp->state->header->stamp);
    CHECK_STR(resp->state->header->frame_id, "world");
    CHECK_INT(resp->state->header->stamp->sec, ==, 1);
    CHECK_INT(resp->state->header->stamp->nanosec, ==, 230000000);
    free_response(resp);
    wk_api_free(api);
}

static void carried_by_a_turning_model(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, TABLE_WORLD), ==, WK_RESULT_OK);
    wk_motion spin = {.angular = {0, 0, 2}, .angular_acc = {0, 0, 0.5}};
    REQUIRE_INT(set_entity(api, "table", "", &spin, WK_MOTION_TWIST | WK_MOTION_ACCELERATION, NULL), ==, WK_RESULT_OK);
    wk_motion top;
    REQUIRE_INT(get_entity(api, "table::top", &top, NULL), ==, WK_RESULT_OK);
    /* r = 0.3 m at 1.2 rad: v = w x r, a = alpha x r + w x (w x r). */
    wk_vec3 r = {0.3 * cos(1.2), 0.3 * sin(1.2), 0};
    wk_vec3 w = {0, 0, 2}, alpha = {0, 0, 0.5};
    CHECK_VEC3_NEAR(top.linear, wk_vec3_cross(w, r), 1e-12);
    CHECK_VEC3_NEAR(top.angular, w, 1e-12);
    CHECK_VEC3_NEAR(top.linear_acc, wk_vec3_add(wk_vec3_cross(alpha, r), wk_vec3_cross(w, wk_vec3_cross(w, r))), 1e-12);
    CHECK_VEC3_NEAR(top.angular_acc, alpha, 1e-12);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"not_found", not_found},
    {"world_pose_and_header", world_pose_and_header},
    {"carried_by_a_turning_model", carried_by_a_turning_model},
};
WK_TEST_MAIN(cases)
