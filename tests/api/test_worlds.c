/* test_worlds.c — UnloadWorld, GetCurrentWorld and GetAvailableWorlds:
 * the current world's name and uri (file, string, 2.1.0's world_resource),
 * NO_WORLD_LOADED after unloading and STATE_NO_WORLD, INCORRECT_STATE from
 * services that need a world until LoadWorld; the world files of a
 * resource path made in a temporary folder (SDFormat worlds and MJCF found,
 * models and URDF not, hidden folders skipped), additional sources,
 * offline_only, continue_on_error and both failure codes, tag filters. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api_call.h"
#include "wk_test.h"

static uint32_t current(wk_api *api, char *name, char *uri)
{
    SimulationInterfaces__GetCurrentWorldRequest req = SIMULATION_INTERFACES__GET_CURRENT_WORLD_REQUEST__INIT;
    SimulationInterfaces__GetCurrentWorldResponse *resp = (SimulationInterfaces__GetCurrentWorldResponse *)call_service(
        api, "GetCurrentWorld", &req.base, &simulation_interfaces__get_current_world_response__descriptor);
    name[0] = uri[0] = '\0';
    if (resp && resp->world) {
        snprintf(name, 256, "%s", resp->world->name);
        snprintf(uri, 256, "%s", resp->world->uri);
        if (!resp->world->world_resource || strcmp(resp->world->world_resource->uri, uri))
            snprintf(uri, 256, "world_resource differs");
    }
    return result_code(resp, resp ? resp->result : NULL, NULL);
}

static uint32_t unload(wk_api *api, char *msg)
{
    SimulationInterfaces__UnloadWorldRequest req = SIMULATION_INTERFACES__UNLOAD_WORLD_REQUEST__INIT;
    return call_code(api, "UnloadWorld", &req.base, msg);
}

static void current_and_unload(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    char name[256], uri[256], msg[256];
    REQUIRE_INT(current(api, name, uri), ==, WK_RESULT_OK);
    CHECK_STR(name, "default");
    CHECK_STR(uri, "");
    SimulationInterfaces__LoadWorldRequest req = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    req.uri = WK_TEST_WORLDS "/frames.sdf";
    SimulationInterfaces__LoadWorldResponse *loaded = load_world(api, &req);
    REQUIRE_INT(result_code(loaded, loaded ? loaded->result : NULL, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(current(api, name, uri), ==, WK_RESULT_OK);
    CHECK_STR(uri, WK_TEST_WORLDS "/frames.sdf");

    /* Unloaded: no world, and the services that need one say so. */
    REQUIRE_INT(unload(api, msg), ==, WK_RESULT_OK);
    CHECK_INT(current(api, name, uri), ==, WK_UNLOAD_WORLD_NO_WORLD_LOADED);
    CHECK_INT(unload(api, msg), ==, WK_UNLOAD_WORLD_NO_WORLD_LOADED);
    CHECK_INT(get_state(api), ==, WK_SIM_NO_WORLD);
    CHECK_INT(set_state(api, WK_SIM_PLAYING, msg), ==, WK_RESULT_INCORRECT_STATE);
    CHECK(strstr(msg, "SetSimulationState needs one") != NULL);
    CHECK_INT(step_simulation(api, 1, msg), ==, WK_RESULT_INCORRECT_STATE);
    wk_motion m;
    CHECK_INT(get_entity(api, "box", &m, msg), ==, WK_RESULT_INCORRECT_STATE);
    SimulationInterfaces__SimulateStepsGoal goal = SIMULATION_INTERFACES__SIMULATE_STEPS_GOAL__INIT;
    CHECK_INT(call_code(api, "SimulateSteps", &goal.base, msg), ==, WK_RESULT_INCORRECT_STATE);
    SimulationInterfaces__SpawnEntitiesResponse *spawned = spawn_entities(api, NULL, 0);
    CHECK_INT(result_code(spawned, spawned ? spawned->result : NULL, NULL), ==, WK_RESULT_INCORRECT_STATE);

    /* A world from a string, sent the 2.1.0 way. */
    SimulationInterfaces__Resource res = SIMULATION_INTERFACES__RESOURCE__INIT;
    res.resource_string = BOX_WORLD;
    SimulationInterfaces__LoadWorldRequest req2 = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    req2.world_resource = &res;
    req2.uri = "ignored.sdf"; /* world_resource wins */
    loaded = load_world(api, &req2);
    REQUIRE_INT(result_code(loaded, loaded ? loaded->result : NULL, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(current(api, name, uri), ==, WK_RESULT_OK);
    CHECK_STR(name, "w");
    CHECK_STR(uri, "");
    CHECK_INT(get_state(api), ==, WK_SIM_STOPPED);
    CHECK_INT(get_entity(api, "box", &m, NULL), ==, WK_RESULT_OK);
    wk_api_free(api);
}

/* ---- GetAvailableWorlds ---- */

static char root[64];

static void write_file(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void make_tree(void)
{
    snprintf(root, sizeof root, "/tmp/wk_worlds_XXXXXX");
    if (!mkdtemp(root))
        return;
    char path[256];
    const char *dirs[] = {"worlds", "worlds/deep", "models", "models/cart", ".hidden"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
        mkdir(path, 0700);
    }
    write_file("worlds/empty.sdf", "<sdf version='1.9'><world name='empty'/></sdf>");
    write_file("worlds/deep/cave.world", "<sdf version='1.6'><world name='cave'/></sdf>");
    write_file("worlds/arena.xml", "<mujoco model='arena'><worldbody/></mujoco>");
    write_file("worlds/notes.txt", "<sdf version='1.9'><world name='not_a_world_file'/></sdf>");
    write_file("worlds/broken.sdf", "<sdf version='1.9'><world name='x'>");
    write_file("models/cart/model.sdf", "<sdf version='1.9'><model name='cart'><link name='l'/></model></sdf>");
    write_file("models/robot.urdf", "<robot name='r'><link name='l'/></robot>");
    write_file(".hidden/secret.sdf", "<sdf version='1.9'><world name='secret'/></sdf>");
}

static void remove_tree(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (root[0] && system(cmd) != 0)
        fprintf(stderr, "    could not remove %s\n", root);
}

typedef struct worlds_request {
    SimulationInterfaces__GetAvailableWorldsRequest req;
    SimulationInterfaces__TagsFilter tags;
    char *sources[4];
} worlds_request;

/* The worlds' names, joined by spaces, in got; the code and message. */
static uint32_t available(wk_api *api, worlds_request *r, char *got, char *msg)
{
    SimulationInterfaces__GetAvailableWorldsResponse *resp =
        (SimulationInterfaces__GetAvailableWorldsResponse *)call_service(
            api, "GetAvailableWorlds", &r->req.base, &simulation_interfaces__get_available_worlds_response__descriptor);
    got[0] = '\0';
    for (size_t i = 0; resp && i < resp->n_worlds; i++) {
        const char *uri = resp->worlds[i]->world_resource ? resp->worlds[i]->world_resource->uri : "";
        /* Each uri loads: it is a path under the tree. */
        if (!strstr(uri, root))
            snprintf(got + strlen(got), 400 - strlen(got), "%s[bad uri %s]", i ? " " : "", uri);
        snprintf(got + strlen(got), 400 - strlen(got), "%s%s", i ? " " : "", resp->worlds[i]->name);
    }
    return result_code(resp, resp ? resp->result : NULL, msg);
}

static void worlds_request_init(worlds_request *r)
{
    simulation_interfaces__get_available_worlds_request__init(&r->req);
    simulation_interfaces__tags_filter__init(&r->tags);
}

static void available_worlds(void)
{
    make_tree();
    REQUIRE(root[0]);
    char path[256], got[400], msg[256];
    snprintf(path, sizeof path, "%s/worlds:%s/models", root, root);
    setenv("WORLDKIT_RESOURCE_PATH", path, 1);
    unsetenv("GZ_SIM_RESOURCE_PATH");
    unsetenv("SDF_PATH");
    wk_api *api = wk_api_new();
    REQUIRE(api);
    worlds_request r;
    worlds_request_init(&r);
    /* In name order, folders walked as they come: arena.xml, deep/, empty.sdf. */
    CHECK_INT(available(api, &r, got, msg), ==, WK_RESULT_OK);
    CHECK_STR(got, "arena cave empty");

    /* Tags: worlds have none, so a filter naming one matches nothing. */
    char *indoor[] = {"indoor"};
    r.tags.tags = indoor;
    r.tags.n_tags = 1;
    r.req.filter = &r.tags;
    CHECK_INT(available(api, &r, got, msg), ==, WK_RESULT_OK);
    CHECK_STR(got, "");
    r.tags.has_filter_mode = true;
    r.tags.filter_mode = 5;
    CHECK_INT(available(api, &r, got, msg), ==, WK_RESULT_OPERATION_FAILED);
    r.req.filter = NULL;

    /* Additional sources: a file, a folder, file:// and a remote one. */
    snprintf(path, sizeof path, "%s/.hidden/secret.sdf", root);
    char remote[] = "https://example.com/worlds", file_uri[300];
    snprintf(file_uri, sizeof file_uri, "file://%s/.hidden", root);
    r.sources[0] = path;
    r.req.additional_sources = r.sources;
    r.req.n_additional_sources = 1;
    CHECK_INT(available(api, &r, got, msg), ==, WK_RESULT_OK);
    CHECK_STR(got, "arena cave empty secret");
    r.sources[0] = file_uri; /* the same world: listed once */
    r.sources[1] = path;
    r.req.n_additional_sources = 2;
    CHECK_INT(available(api, &r, got, msg), ==, WK_RESULT_OK);
    CHECK_STR(got, "arena cave empty secret");
    r.sources[0] = remote;
    r.req.n_additional_sources = 2;
    CHECK_INT(available(api, &r, got, msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(msg, remote) && strstr(msg, "remote"));
    r.req.has_offline_only = true;
    r.req.offline_only = true; /* the remote source is skipped */
    CHECK_INT(available(api, &r, got, msg), ==, WK_RESULT_OK);
    CHECK_STR(got, "arena cave empty secret");
    char missing[300];
    snprintf(missing, sizeof missing, "%s/nowhere", root);
    r.sources[0] = missing;
    CHECK_INT(available(api, &r, got, msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(msg, "nowhere") != NULL);
    r.req.has_continue_on_error = true;
    r.req.continue_on_error = true; /* the rest still found */
    CHECK_INT(available(api, &r, got, msg), ==, WK_RESULT_OK);
    CHECK_STR(got, "arena cave empty secret");
    CHECK(strstr(msg, "nowhere") != NULL);
    r.req.n_additional_sources = 0;
    r.req.continue_on_error = false;

    /* A folder of the resource path that does not exist. */
    snprintf(path, sizeof path, "%s/gone:%s/worlds", root, root);
    setenv("WORLDKIT_RESOURCE_PATH", path, 1);
    CHECK_INT(available(api, &r, got, msg), ==, WK_AVAILABLE_WORLDS_DEFAULT_SOURCES_FAILED);
    CHECK(strstr(msg, "gone") != NULL);
    r.req.continue_on_error = true;
    CHECK_INT(available(api, &r, got, msg), ==, WK_RESULT_OK);
    CHECK_STR(got, "arena cave empty");
    snprintf(path, sizeof path, "%s/gone", root);
    setenv("WORLDKIT_RESOURCE_PATH", path, 1);
    CHECK_INT(available(api, &r, got, msg), ==, WK_AVAILABLE_WORLDS_DEFAULT_SOURCES_FAILED);
    unsetenv("WORLDKIT_RESOURCE_PATH");
    wk_api_free(api);
    remove_tree();
}

static const wk_test_case cases[] = {
    {"current_and_unload", current_and_unload},
    {"available_worlds", available_worlds},
};
WK_TEST_MAIN(cases)
