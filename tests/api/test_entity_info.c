/* test_entity_info.c — GetEntityInfo and SetEntityInfo: default categories
 * (static models STATIC_OBJECT, others OBJECT), info set and read back
 * (category, description, tags), replaced whole, kept by a clone of the
 * scene, on scoped names and frames, NOT_FOUND for unknown names and
 * OPERATION_FAILED for a category the standard does not define. */
#include <string.h>

#include "api/api_call.h"
#include "wk_test.h"

#define INFO_WORLD                                                                                       \
    "<sdf version='1.9'><world name='w'><model name='robot'><link name='base'/></model>"                 \
    "<model name='wall'><static>true</static><link name='l'/></model><frame name='dock'/></world></sdf>"

typedef struct info {
    uint32_t category;
    char description[128];
    char tags[128];
} info;

static uint32_t get_info(wk_api *api, const char *name, info *out, char *msg)
{
    SimulationInterfaces__GetEntityInfoRequest req = SIMULATION_INTERFACES__GET_ENTITY_INFO_REQUEST__INIT;
    req.entity = (char *)name;
    SimulationInterfaces__GetEntityInfoResponse *resp = (SimulationInterfaces__GetEntityInfoResponse *)call_service(
        api, "GetEntityInfo", &req.base, &simulation_interfaces__get_entity_info_response__descriptor);
    *out = (info){.category = 99};
    if (resp && resp->info) {
        out->category = resp->info->category ? resp->info->category->category : 98;
        snprintf(out->description, sizeof out->description, "%s", resp->info->description);
        for (size_t i = 0; i < resp->info->n_tags; i++)
            snprintf(out->tags + strlen(out->tags), sizeof out->tags - strlen(out->tags), "%s%s", i ? "," : "",
                     resp->info->tags[i]);
    }
    return result_code(resp, resp ? resp->result : NULL, msg);
}

static uint32_t set_info(wk_api *api, const char *name, uint32_t category, const char *description, char **tags,
                         size_t n, char *msg)
{
    SimulationInterfaces__EntityCategory c = SIMULATION_INTERFACES__ENTITY_CATEGORY__INIT;
    c.has_category = true;
    c.category = category;
    SimulationInterfaces__EntityInfo i = SIMULATION_INTERFACES__ENTITY_INFO__INIT;
    i.category = &c;
    i.description = (char *)description;
    i.tags = tags;
    i.n_tags = n;
    SimulationInterfaces__SetEntityInfoRequest req = SIMULATION_INTERFACES__SET_ENTITY_INFO_REQUEST__INIT;
    req.entity = (char *)name;
    req.info = &i;
    return call_code(api, "SetEntityInfo", &req.base, msg);
}

static void defaults_set_and_replaced(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, INFO_WORLD), ==, WK_RESULT_OK);
    info got;
    char msg[256];
    REQUIRE_INT(get_info(api, "robot", &got, msg), ==, WK_RESULT_OK);
    CHECK_INT(got.category, ==, 0);
    CHECK_STR(got.description, "");
    CHECK_STR(got.tags, "");
    REQUIRE_INT(get_info(api, "wall", &got, msg), ==, WK_RESULT_OK);
    CHECK_INT(got.category, ==, 5);

    char *tags[] = {"arm", "mobile"};
    REQUIRE_INT(set_info(api, "robot", 1, "a mobile manipulator", tags, 2, msg), ==, WK_RESULT_OK);
    REQUIRE_INT(get_info(api, "robot", &got, msg), ==, WK_RESULT_OK);
    CHECK_INT(got.category, ==, 1);
    CHECK_STR(got.description, "a mobile manipulator");
    CHECK_STR(got.tags, "arm,mobile");
    /* A scene clone (what the store and batches rely on) keeps it. */
    wk_scene *copy = wk_scene_clone(wk_api_scene(api));
    REQUIRE(copy);
    const wk_entity_info *kept = wk_scene_entity_info(copy, wk_scene_child(copy, wk_api_world(api), "robot"));
    REQUIRE(kept);
    CHECK_INT(kept->tag_count, ==, 2);
    CHECK_STR(kept->tags[1], "mobile");
    wk_scene_free(copy);
    /* Setting replaces all of it. */
    REQUIRE_INT(set_info(api, "robot", 4, NULL, NULL, 0, msg), ==, WK_RESULT_OK);
    REQUIRE_INT(get_info(api, "robot", &got, msg), ==, WK_RESULT_OK);
    CHECK_INT(got.category, ==, 4);
    CHECK_STR(got.description, "");
    CHECK_STR(got.tags, "");
    /* Scoped names and world frames carry info too. */
    REQUIRE_INT(set_info(api, "robot::base", 2, "the base", tags, 1, msg), ==, WK_RESULT_OK);
    REQUIRE_INT(get_info(api, "robot::base", &got, msg), ==, WK_RESULT_OK);
    CHECK_STR(got.description, "the base");
    REQUIRE_INT(set_info(api, "dock", 0, "charging dock", tags, 1, msg), ==, WK_RESULT_OK);
    wk_api_free(api);
}

static void refusals(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, INFO_WORLD), ==, WK_RESULT_OK);
    info got;
    char msg[256];
    CHECK_INT(get_info(api, "nobody", &got, msg), ==, WK_RESULT_NOT_FOUND);
    CHECK(strstr(msg, "'nobody'") != NULL);
    CHECK_INT(set_info(api, "nobody", 0, "", NULL, 0, msg), ==, WK_RESULT_NOT_FOUND);
    CHECK(strstr(msg, "'nobody'") != NULL);
    const uint32_t bad[] = {3, 6, 255};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(set_info(api, "robot", bad[i], "", NULL, 0, msg), ==, WK_RESULT_OPERATION_FAILED);
        CHECK(strstr(msg, "'robot'") && strstr(msg, "not an EntityCategory"));
    }
    REQUIRE_INT(get_info(api, "robot", &got, msg), ==, WK_RESULT_OK);
    CHECK_INT(got.category, ==, 0); /* unchanged */
    /* No info at all: ROS's defaults, category OBJECT. */
    SimulationInterfaces__SetEntityInfoRequest req = SIMULATION_INTERFACES__SET_ENTITY_INFO_REQUEST__INIT;
    req.entity = "wall";
    CHECK_INT(call_code(api, "SetEntityInfo", &req.base, msg), ==, WK_RESULT_OK);
    REQUIRE_INT(get_info(api, "wall", &got, msg), ==, WK_RESULT_OK);
    CHECK_INT(got.category, ==, 0);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"defaults_set_and_replaced", defaults_set_and_replaced},
    {"refusals", refusals},
};
WK_TEST_MAIN(cases)
