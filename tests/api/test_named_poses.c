/* test_named_poses.c — GetNamedPoses and GetNamedPoseBounds under
 * worldkit's convention: the frames directly under the world are the named
 * poses, posed relative to the world, described and tagged through
 * SetEntityInfo; frames inside models are not; tags filters in ANY and ALL
 * modes; bounds are unbounded (TYPE_EMPTY), NOT_FOUND for other names. */
#include <math.h>
#include <string.h>

#include "api/api_call.h"
#include "math/math_check.h"
#include "wk_test.h"

#define POSES_WORLD                                                                                          \
    "<sdf version='1.9'><world name='w'><frame name='dock'><pose>1 2 0 0 0 1.5707963267948966</pose></frame>" \
    "<frame name='spawn'><pose relative_to='dock'>1 0 0 0 0 0</pose></frame>"                               \
    "<model name='m'><link name='l'/><frame name='inner'/></model></world></sdf>"

static uint32_t set_tags(wk_api *api, const char *name, const char *description, char **tags, size_t n)
{
    SimulationInterfaces__EntityInfo info = SIMULATION_INTERFACES__ENTITY_INFO__INIT;
    info.description = (char *)description;
    info.tags = tags;
    info.n_tags = n;
    SimulationInterfaces__SetEntityInfoRequest req = SIMULATION_INTERFACES__SET_ENTITY_INFO_REQUEST__INIT;
    req.entity = (char *)name;
    req.info = &info;
    return call_code(api, "SetEntityInfo", &req.base, NULL);
}

static SimulationInterfaces__GetNamedPosesResponse *named(wk_api *api, char **tags, size_t n, uint32_t mode)
{
    SimulationInterfaces__TagsFilter filter = SIMULATION_INTERFACES__TAGS_FILTER__INIT;
    filter.tags = tags;
    filter.n_tags = n;
    filter.has_filter_mode = true;
    filter.filter_mode = mode;
    SimulationInterfaces__GetNamedPosesRequest req = SIMULATION_INTERFACES__GET_NAMED_POSES_REQUEST__INIT;
    req.tags = &filter;
    return (SimulationInterfaces__GetNamedPosesResponse *)call_service(
        api, "GetNamedPoses", &req.base, &simulation_interfaces__get_named_poses_response__descriptor);
}

static void world_frames(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, POSES_WORLD), ==, WK_RESULT_OK);
    SimulationInterfaces__GetNamedPosesResponse *resp = named(api, NULL, 0, 0);
    REQUIRE(resp && resp->result);
    CHECK_INT(resp->result->result, ==, WK_RESULT_OK);
    REQUIRE_INT(resp->n_poses, ==, 2);
    CHECK_STR(resp->poses[0]->name, "dock");
    CHECK_STR(resp->poses[1]->name, "spawn");
    /* spawn is 1 m along dock's x, which points along the world's y. */
    const SimulationInterfaces__Pose *p = resp->poses[1]->pose;
    REQUIRE(p && p->position && p->orientation);
    CHECK_VEC3_NEAR(((wk_vec3){p->position->x, p->position->y, p->position->z}), ((wk_vec3){1, 3, 0}), 1e-12);
    CHECK_NEAR(p->orientation->z, sqrt(0.5), 1e-12);
    CHECK_STR(resp->poses[0]->description, "");
    CHECK_INT(resp->poses[0]->n_tags, ==, 0);
    free_response(resp);

    char *both[] = {"spawn", "charging"}, *one[] = {"spawn"};
    REQUIRE_INT(set_tags(api, "dock", "near the charger", both, 2), ==, WK_RESULT_OK);
    REQUIRE_INT(set_tags(api, "spawn", "", one, 1), ==, WK_RESULT_OK);
    resp = named(api, one, 1, 0);
    REQUIRE(resp);
    CHECK_INT(resp->n_poses, ==, 2);
    CHECK_STR(resp->poses[0]->description, "near the charger");
    CHECK_INT(resp->poses[0]->n_tags, ==, 2);
    free_response(resp);
    resp = named(api, both, 2, 1); /* ALL */
    REQUIRE(resp);
    REQUIRE_INT(resp->n_poses, ==, 1);
    CHECK_STR(resp->poses[0]->name, "dock");
    free_response(resp);
    resp = named(api, both, 2, 3);
    REQUIRE(resp && resp->result);
    CHECK_INT(resp->result->result, ==, WK_RESULT_OPERATION_FAILED);
    free_response(resp);
    wk_api_free(api);
}

static uint32_t pose_bounds(wk_api *api, const char *name, uint32_t *type)
{
    SimulationInterfaces__GetNamedPoseBoundsRequest req = SIMULATION_INTERFACES__GET_NAMED_POSE_BOUNDS_REQUEST__INIT;
    req.name = (char *)name;
    SimulationInterfaces__GetNamedPoseBoundsResponse *resp =
        (SimulationInterfaces__GetNamedPoseBoundsResponse *)call_service(
            api, "GetNamedPoseBounds", &req.base, &simulation_interfaces__get_named_pose_bounds_response__descriptor);
    *type = resp && resp->bounds ? resp->bounds->type : 99;
    if (resp && resp->bounds)
        CHECK_INT(resp->bounds->n_points, ==, 0);
    return result_code(resp, resp ? resp->result : NULL, NULL);
}

static void bounds(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, POSES_WORLD), ==, WK_RESULT_OK);
    uint32_t type;
    CHECK_INT(pose_bounds(api, "dock", &type), ==, WK_RESULT_OK);
    CHECK_INT(type, ==, 0);
    CHECK_INT(pose_bounds(api, "m", &type), ==, WK_RESULT_NOT_FOUND); /* a model, not a pose */
    CHECK_INT(pose_bounds(api, "inner", &type), ==, WK_RESULT_NOT_FOUND);
    CHECK_INT(pose_bounds(api, "", &type), ==, WK_RESULT_NOT_FOUND);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"world_frames", world_frames},
    {"bounds", bounds},
};
WK_TEST_MAIN(cases)
