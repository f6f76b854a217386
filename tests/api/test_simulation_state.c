/* test_simulation_state.c — GetSimulationState and SetSimulationState: the
 * state a new endpoint and a loaded world start in, the whole transition
 * table with its result codes, quitting through the endpoint's hook,
 * stopping as a reset of everything, and
 * requests without a state or with one the standard does not define. */
#include <stdlib.h>
#include <string.h>

#include "api/api_call.h"
#include "api/ows_client.h"
#include "wk_test.h"

enum { STOPPED, PLAYING, PAUSED, QUITTING, NO_WORLD, LOADING_WORLD, BOGUS = 9 };

/* How often the endpoints' quit hook was called. */
static int quits;

static void count_quit(void *ctx)
{
    (void)ctx;
    quits++;
}

/* An endpoint that can quit, brought to state from its start (STOPPED), or
 * NULL. */
static wk_api *api_in(uint32_t state)
{
    wk_api *api = wk_api_new_desc(&(wk_api_desc){.quit = count_quit});
    char msg[256];
    if (api && state != STOPPED && set_state(api, state, msg) != WK_RESULT_OK) {
        fprintf(stderr, "    cannot reach state %u: %s\n", state, msg);
        wk_api_free(api);
        return NULL;
    }
    return api;
}

static void starts_stopped(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    CHECK_INT(get_state(api), ==, STOPPED);
    /* A world loaded while playing leaves the simulation stopped; one that
     * fails to load changes nothing. */
    REQUIRE_INT(set_state(api, PLAYING, NULL), ==, WK_RESULT_OK);
    CHECK_INT(load_string(api, "<sdf version='1.9'><world name='w'/>"), ==, WK_LOAD_WORLD_RESOURCE_PARSE_ERROR);
    CHECK_INT(get_state(api), ==, PLAYING);
    CHECK_INT(load_string(api, "<sdf version='1.9'><world name='w'/></sdf>"), ==, WK_RESULT_OK);
    CHECK_INT(get_state(api), ==, STOPPED);
    wk_api_free(api);
}

static void transition_table(void)
{
    const uint32_t OK = WK_RESULT_OK, SAME = WK_SET_STATE_ALREADY_IN_TARGET_STATE,
                   BAD = WK_SET_STATE_INCORRECT_TRANSITION;
    const uint32_t targets[] = {STOPPED, PLAYING, PAUSED, QUITTING, NO_WORLD, LOADING_WORLD, BOGUS};
    /* expected[from][target], in the order of targets. */
    const uint32_t expected[4][7] = {
        [STOPPED] = {SAME, OK, OK, OK, BAD, BAD, BAD},
        [PLAYING] = {OK, SAME, OK, OK, BAD, BAD, BAD},
        [PAUSED] = {OK, OK, SAME, OK, BAD, BAD, BAD},
        [QUITTING] = {BAD, BAD, BAD, SAME, BAD, BAD, BAD},
    };
    for (uint32_t from = STOPPED; from <= QUITTING; from++)
        for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
            wk_api *api = api_in(from);
            REQUIRE(api);
            char msg[256];
            uint32_t code = set_state(api, targets[t], msg);
            uint32_t after = get_state(api);
            bool ok = CHECK_INT(code, ==, expected[from][t]) &
                      CHECK_INT(after, ==, code == OK ? targets[t] : from) & CHECK(code == OK || msg[0]);
            if (!ok)
                fprintf(stderr, "    from %u to %u: %s\n", from, targets[t], msg);
            wk_api_free(api);
        }
}

/* QUITTING ends the application through the hook, once; an endpoint
 * without one has nothing to end and refuses it. */
static void quitting_calls_the_hook(void)
{
    quits = 0;
    wk_api *api = api_in(PLAYING);
    REQUIRE(api);
    CHECK_INT(set_state(api, QUITTING, NULL), ==, WK_RESULT_OK);
    CHECK_INT(quits, ==, 1);
    CHECK_INT(set_state(api, QUITTING, NULL), ==, WK_SET_STATE_ALREADY_IN_TARGET_STATE);
    CHECK_INT(quits, ==, 1);
    wk_api_free(api);

    api = wk_api_new();
    REQUIRE(api);
    char msg[256];
    CHECK_INT(set_state(api, QUITTING, msg), ==, WK_SET_STATE_STATE_TRANSITION_ERROR);
    CHECK(strstr(msg, "QUITTING") != NULL);
    CHECK_INT(get_state(api), ==, STOPPED);
    wk_api_free(api);
}

static void stopping_resets_everything(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, BOX_WORLD), ==, WK_RESULT_OK);
    SimulationInterfaces__Resource res = SIMULATION_INTERFACES__RESOURCE__INIT;
    res.resource_string = "<sdf version='1.9'><model name='crate'><link name='l'/></model></sdf>";
    SimulationInterfaces__SpawnEntityRequest entry = SIMULATION_INTERFACES__SPAWN_ENTITY_REQUEST__INIT;
    entry.entity_resource = &res;
    SimulationInterfaces__SpawnEntityRequest *list[] = {&entry};
    free_response(spawn_entities(api, list, 1));
    REQUIRE(wk_scene_child(wk_api_scene(api), wk_api_world(api), "crate"));
    REQUIRE_INT(set_state(api, PAUSED, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(step_simulation(api, 5, NULL), ==, WK_RESULT_OK);
    CHECK_INT(set_state(api, STOPPED, NULL), ==, WK_RESULT_OK);
    CHECK_INT(wk_sim_iterations(wk_api_sim(api)), ==, 0);
    CHECK(!wk_scene_child(wk_api_scene(api), wk_api_world(api), "crate"));
    CHECK(wk_scene_child(wk_api_scene(api), wk_api_world(api), "box"));
    wk_api_free(api);
}

static void requests_without_a_state(void)
{
    wk_api *api = api_in(PLAYING);
    REQUIRE(api);
    /* No state in the request is ROS's default, 0: stop. */
    SimulationInterfaces__SetSimulationStateRequest req = SIMULATION_INTERFACES__SET_SIMULATION_STATE_REQUEST__INIT;
    CHECK_INT(call_code(api, "SetSimulationState", &req.base, NULL), ==, WK_RESULT_OK);
    CHECK_INT(get_state(api), ==, STOPPED);
    char msg[256];
    CHECK_INT(set_state(api, 1u << 20, msg), ==, WK_SET_STATE_INCORRECT_TRANSITION);
    CHECK(strstr(msg, "1048576 is not a SimulationState") != NULL);
    wk_api_free(api);
}

/* Two links, one falling: one more than the endpoint's physics below
 * compiles. */
#define TWO_LINKS                                                                                              \
    "<sdf version='1.9'><world name='w'><model name='ground'><static>true</static><link name='l'/></model>"  \
    "<model name='box'><pose>0 0 2 0 0 0</pose><link name='body'/></model></world></sdf>"

/* The GetSimulationState answer's state, its error_message in why. */
static uint32_t state_and_why(wk_api *api, char *why, size_t cap)
{
    SimulationInterfaces__GetSimulationStateRequest req = SIMULATION_INTERFACES__GET_SIMULATION_STATE_REQUEST__INIT;
    SimulationInterfaces__GetSimulationStateResponse *resp = (void *)call_service(
        api, "GetSimulationState", &req.base, &simulation_interfaces__get_simulation_state_response__descriptor);
    uint32_t state = resp && resp->state ? resp->state->state : 999;
    snprintf(why, cap, "%s", resp && resp->result && resp->result->error_message ? resp->result->error_message : "");
    free_response(resp);
    return state;
}

/* A world stored before the physics limit was lowered under it fails
 * every step: playing, its first batch pauses it rather than the loop
 * trying again and again, and GetSimulationState tells why while it stays
 * PAUSED, until a client sets its state. A LoadWorld past the limit is
 * refused up front, the world as it was; a pose moved, which adds no
 * link, is kept. */
static void a_failing_step_pauses(void)
{
    wk_store *store = wk_store_new();
    REQUIRE(store);
    wk_world_desc *d = NULL;
    wk_status st = {0};
    char id[WK_WORLD_ID_MAX], why[256];
    REQUIRE_INT(wk_desc_read(&(wk_read_desc){.resource_string = TWO_LINKS}, &d, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "world", .file = d}, id, &st), ==, WK_OK);
    wk_api *api = wk_api_new_desc(
        &(wk_api_desc){.store = store, .physics = WK_PHYSICS_MUJOCO, .max_physics_links = 1});
    REQUIRE(api);
    REQUIRE_INT(set_state(api, PLAYING, NULL), ==, WK_RESULT_OK);
    wk_api_clock clock;
    CHECK_INT(wk_api_play(api, 1, &clock), ==, WK_LIMIT);
    CHECK_INT(clock.state, ==, PAUSED);
    CHECK_INT(clock.iterations, ==, 0);
    CHECK_INT(state_and_why(api, why, sizeof why), ==, PAUSED);
    CHECK_STR(why, "paused: a step failed: physics: the world does not compile for MuJoCo: its 2 links are past "
                   "the limit of 1 (serve --max-physics-links)");
    /* Paused, the loop's next look steps nothing. */
    CHECK_INT(wk_api_play(api, 1, &clock), ==, WK_OK);
    CHECK_INT(clock.done, ==, 0);
    /* Stopping would put back the world as it began, past the limit as
     * well: refused, naming it. */
    char msg[256];
    CHECK_INT(set_state(api, STOPPED, msg), ==, WK_SET_STATE_STATE_TRANSITION_ERROR);
    CHECK(strstr(msg, "(serve --max-physics-links)") != NULL);
    REQUIRE_INT(set_state(api, PLAYING, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(set_state(api, PAUSED, NULL), ==, WK_RESULT_OK);
    CHECK_INT(state_and_why(api, why, sizeof why), ==, PAUSED);
    CHECK_STR(why, "");
    /* Loading it again is refused before anything changes. */
    SimulationInterfaces__LoadWorldRequest req = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    req.resource_string = TWO_LINKS;
    SimulationInterfaces__LoadWorldResponse *resp = load_world(api, &req);
    CHECK_INT(result_code(resp, resp ? resp->result : NULL, msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(msg, "its 2 links are past the limit of 1 (serve --max-physics-links)") != NULL);
    CHECK_INT(get_state(api), ==, PAUSED);
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'world','nodeA':{'id':'root'},'nodeB':{'byName':{'object':{'objectName':'box'}}},"
               "'aTB':{'position':{'z':3}}}",
               WK_GRPC_OK, "'object':{'worldId':'world'");
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"a_failing_step_pauses", a_failing_step_pauses},
    {"starts_stopped", starts_stopped},
    {"transition_table", transition_table},
    {"quitting_calls_the_hook", quitting_calls_the_hook},
    {"stopping_resets_everything", stopping_resets_everything},
    {"requests_without_a_state", requests_without_a_state},
};
WK_TEST_MAIN(cases)
