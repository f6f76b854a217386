/* test_deadlines.c — calls whose work a request multiplies are bounded: a
 * count past the limit is refused before any work (WK_SOURCES_MAX sources,
 * WK_FOOTPRINT_PAIRS_MAX footprint pairs), and a loop that runs as long as
 * its request makes it gives up with WK_DEADLINE (DEADLINE_EXCEEDED) once
 * the transport's check says the call is over, answering nothing; so do
 * LoadWorld and SpawnEntities in every part of their work (the XML parse,
 * the read, the instantiation, before the store is written, and once the
 * world is serialized for a store on disk), the world left as it was. */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/methods.h"
#include "api/ows/ows.h"
#include "api_call.h"
#include "wk_test.h"

/* A transport's check that lets the first `grace` asks pass. */
typedef struct clock_check {
    int asked, grace;
} clock_check;

static int expires(void *ctx)
{
    clock_check *c = ctx;
    return c->asked++ < c->grace ? 0 : WK_GRPC_DEADLINE_EXCEEDED;
}

/* Calls the simulation_interfaces method with msg, the check (when not
 * NULL) asked as a transport's; the answer appended to out. */
static int dispatch(wk_api *api, const char *method, const ProtobufCMessage *msg, clock_check *check, wk_buf *out,
                    wk_status *st)
{
    wk_buf bytes = {0};
    if (wk_buf_reserve(&bytes, protobuf_c_message_get_packed_size(msg)))
        return WK_NOMEM;
    bytes.len = protobuf_c_message_pack(msg, bytes.data);
    const wk__method *m = wk__method_named(&simulation_interfaces__simulation_interfaces__descriptor, method);
    int rc = wk__api_dispatch(api, m, bytes.data, bytes.len, NULL, NULL, check ? expires : NULL, check, out, NULL,
                              st);
    wk_buf_free(&bytes);
    return rc;
}

static int available_worlds(wk_api *api, size_t sources, clock_check *check, wk_buf *out)
{
    char *list[WK_SOURCES_MAX + 1];
    for (size_t i = 0; i < sources; i++)
        list[i] = (char *)WK_TEST_WORLDS;
    SimulationInterfaces__GetAvailableWorldsRequest req = SIMULATION_INTERFACES__GET_AVAILABLE_WORLDS_REQUEST__INIT;
    req.n_additional_sources = sources;
    req.additional_sources = list;
    wk_status st = {0};
    return dispatch(api, "GetAvailableWorlds", &req.base, check, out, &st);
}

static void sources_bounded(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    wk_buf out = {0};
    CHECK_INT(available_worlds(api, WK_SOURCES_MAX + 1, NULL, &out), ==, WK_OK);
    SimulationInterfaces__GetAvailableWorldsResponse *resp =
        simulation_interfaces__get_available_worlds_response__unpack(NULL, out.len, out.data);
    REQUIRE(resp && resp->result);
    CHECK_INT(resp->result->result, ==, WK_RESULT_OPERATION_FAILED);
    CHECK_STR(resp->result->error_message, "1001 additional_sources: at most 1000 per call");
    CHECK_INT(resp->n_worlds, ==, 0);
    simulation_interfaces__get_available_worlds_response__free_unpacked(resp, NULL);
    /* The world folder walked once per source, until the deadline: the
     * check before the call runs passes, the first in its loop does not. */
    out.len = 0;
    clock_check check = {.grace = 1};
    CHECK_INT(available_worlds(api, WK_SOURCES_MAX, &check, &out), ==, WK_DEADLINE);
    CHECK_INT(out.len, ==, 0);
    CHECK_INT(check.asked, ==, 2);
    /* Without a deadline the 1,000 walks share one budget of entries. */
    CHECK_INT(available_worlds(api, WK_SOURCES_MAX, NULL, &out), ==, WK_OK);
    CHECK(out.len > 0);
    wk_buf_free(&out);
    wk_api_free(api);
}

typedef struct walker {
    wk_api *api;
    int rc;
} walker;

static void *walk(void *arg)
{
    walker *w = arg;
    wk_buf out = {0};
    w->rc = available_worlds(w->api, WK_SOURCES_MAX, NULL, &out);
    wk_buf_free(&out);
    return NULL;
}

/* The walks of GetAvailableWorlds read files only: they run while the
 * world's lock is held (by a step, a load...), and hold it up for nothing
 * in turn; they held it until their deadline. */
static void walks_take_no_world_lock(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    walker w = {.api = api, .rc = -1};
    pthread_t thread;
    pthread_mutex_lock(&api->lock);
    REQUIRE_INT(pthread_create(&thread, NULL, walk, &w), ==, 0);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    int joined = pthread_timedjoin_np(thread, NULL, &until);
    pthread_mutex_unlock(&api->lock);
    CHECK_INT(joined, ==, 0);
    if (joined)
        pthread_join(thread, NULL);
    CHECK_INT(w.rc, ==, WK_OK);
    wk_api_free(api);
}

/* AreFootprintsCompatible of left by right empty footprints in "world". */
static int footprints(wk_api *api, size_t left, size_t right, clock_check *check, wk_status *st)
{
    static IntrinsicProto__Skills__Footprint empty = INTRINSIC_PROTO__SKILLS__FOOTPRINT__INIT;
    IntrinsicProto__Skills__Footprint **sets = malloc((left + right) * sizeof *sets);
    if (!sets)
        return WK_NOMEM;
    for (size_t i = 0; i < left + right; i++)
        sets[i] = &empty;
    IntrinsicProto__World__AreFootprintsCompatibleRequest req =
        INTRINSIC_PROTO__WORLD__ARE_FOOTPRINTS_COMPATIBLE_REQUEST__INIT;
    req.world_id = "world";
    req.n_left_set = left;
    req.left_set = sets;
    req.n_right_set = right;
    req.right_set = sets + left;
    wk_buf bytes = {0}, out = {0};
    int rc = wk_buf_reserve(&bytes, protobuf_c_message_get_packed_size(&req.base));
    bytes.len = rc ? 0 : protobuf_c_message_pack(&req.base, bytes.data);
    rc = rc ? rc : wk__ows_call(api, "AreFootprintsCompatible", bytes.data, bytes.len, check ? expires : NULL, check, &out,
                          st);
    CHECK(rc != WK_OK || out.len > 0);
    wk_buf_free(&bytes);
    wk_buf_free(&out);
    free(sets);
    return rc;
}

static void footprint_pairs_bounded(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    wk_status st = {0};
    CHECK_INT(footprints(api, 400, 400, NULL, &st), ==, WK_INVALID);
    CHECK_STR(st.message, "AreFootprintsCompatible: left_set of 400 and right_set of 400 footprints make 160000 "
                          "pairs; at most 100000 are checked per call");
    CHECK_INT(footprints(api, 300, 300, NULL, &st), ==, WK_OK);
    clock_check check = {.grace = 0};
    CHECK_INT(footprints(api, 300, 300, &check, &st), ==, WK_DEADLINE);
    CHECK_STR(st.message, "AreFootprintsCompatible: the deadline passed after 0 of 600 footprints resolved");
    /* One ask per 64 rounds: the 600 footprints' take 10 (rounds 0 to
     * 576), the 11th comes at round 640, the 40th pair. */
    check = (clock_check){.grace = 10};
    CHECK_INT(footprints(api, 300, 300, &check, &st), ==, WK_DEADLINE);
    CHECK_STR(st.message, "AreFootprintsCompatible: the deadline passed after 40 of 90000 pairs");
    CHECK_INT(wk_code_grpc(WK_DEADLINE), ==, WK_GRPC_DEADLINE_EXCEEDED);
    wk_api_free(api);
}

/* head, then n items (a printf format of one size_t, the item's number),
 * then tail, NUL-terminated, into text; WK_NOMEM. */
static int repeated(wk_buf *text, const char *head, const char *item, size_t n, const char *tail)
{
    int rc = wk_buf_append(text, head, strlen(head));
    char one[96];
    for (size_t i = 0; rc == WK_OK && i < n; i++)
        rc = wk_buf_append(text, one, (size_t)snprintf(one, sizeof one, item, i));
    return rc ? rc : wk_buf_append(text, tail, strlen(tail) + 1);
}

/* Calls the method with msg, whose strings point into text; frees text
 * and the answer. */
static int dispatch_text(wk_api *api, const char *method, const ProtobufCMessage *msg, wk_buf *text,
                         clock_check *check, wk_status *st)
{
    wk_buf out = {0};
    int rc = dispatch(api, method, msg, check, &out, st);
    wk_buf_free(text);
    wk_buf_free(&out);
    return rc;
}

/* LoadWorld of a world string of n models, each a link. */
static int load_models(wk_api *api, size_t n, clock_check *check, wk_status *st)
{
    wk_buf text = {0};
    if (repeated(&text, "<sdf version='1.9'><world name='many'>", "<model name='m%zu'><link name='l'/></model>", n,
                 "</world></sdf>"))
        return WK_NOMEM;
    SimulationInterfaces__LoadWorldRequest req = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    req.resource_string = (char *)text.data;
    return dispatch_text(api, "LoadWorld", &req.base, &text, check, st);
}

/* An endpoint whose world holds 10 models, its entity count in *count; its
 * store in memory, or on disk in a new folder made from dir (a mkdtemp
 * template). */
static wk_api *api_with_world(char *dir, size_t *count)
{
    wk_api *api = dir ? api_on_disk(dir) : wk_api_new();
    wk_status st = {0};
    if (!api || load_models(api, 10, NULL, &st)) {
        wk_api_free(api);
        return NULL;
    }
    *count = wk_ecm_count(wk_scene_ecm(wk_api_scene(api)));
    return api;
}

/* A world being read when the deadline passes is not loaded: the read
 * asks at every element it keeps, and the world stays as it was. */
static void load_world_gives_up(void)
{
    size_t before;
    wk_api *api = api_with_world(NULL, &before);
    REQUIRE(api);
    wk_status st = {0};
    clock_check check = {.grace = 3};
    CHECK_INT(load_models(api, 2000, &check, &st), ==, WK_DEADLINE);
    CHECK(strstr(st.message, "LoadWorld: <string>: gave up reading at the call's deadline, after ") != NULL);
    CHECK_INT(check.asked, ==, 4);
    CHECK_INT(wk_ecm_count(wk_scene_ecm(wk_api_scene(api))), ==, before);
    CHECK_INT(load_models(api, 2000, NULL, &st), ==, WK_OK);
    CHECK(wk_ecm_count(wk_scene_ecm(wk_api_scene(api))) > before + 2000);
    wk_api_free(api);
}

/* The parts of LoadWorld that ask the deadline, by the words each gives
 * up with; the last only in a store on disk. */
static const char *const load_phases[] = {"gave up parsing", "gave up reading", "gave up instantiating",
                                          "made but not stored", "serialized but not stored"};
#define LOAD_PHASES (sizeof load_phases / sizeof load_phases[0])

/* Whichever ask the deadline passes at, from the first to the last a
 * LoadWorld makes (parsing, reading, instantiating, before the store is
 * written, and after the world is serialized for a store on disk), the
 * call gives up with WK_DEADLINE and the world stays as it was; every
 * phase is seen giving up. */
static void gives_up_in_every_phase(char *dir)
{
    size_t before;
    wk_api *api = api_with_world(dir, &before);
    REQUIRE(api);
    wk_status st = {0};
    clock_check all = {.grace = 1 << 30};
    REQUIRE_INT(load_models(api, 300, &all, &st), ==, WK_OK);
    REQUIRE_INT(load_models(api, 10, NULL, &st), ==, WK_OK);
    bool seen[LOAD_PHASES] = {false};
    for (int grace = 1; grace < all.asked; grace++) {
        clock_check check = {.grace = grace};
        CHECK_INT(load_models(api, 300, &check, &st), ==, WK_DEADLINE);
        CHECK_INT(check.asked, ==, grace + 1); /* nothing asked after giving up */
        CHECK_INT(wk_ecm_count(wk_scene_ecm(wk_api_scene(api))), ==, before);
        CHECK_STR(wk_scene_name(wk_api_scene(api), wk_api_world(api)), "many");
        for (size_t p = 0; p < LOAD_PHASES; p++)
            seen[p] = seen[p] || strstr(st.message, load_phases[p]);
    }
    for (size_t p = 0; p < LOAD_PHASES - 1; p++)
        CHECK(seen[p]);
    CHECK(seen[LOAD_PHASES - 1] == (dir != NULL));
    wk_api_free(api);
    if (dir)
        CHECK_INT(remove_dir(dir), ==, 0);
}

static void load_world_gives_up_in_every_phase(void)
{
    char dir[] = "/tmp/wk_deadlines_XXXXXX";
    gives_up_in_every_phase(NULL);
    gives_up_in_every_phase(dir);
}

/* SpawnEntities of count entries, each a model of links links. */
static int spawn_models(wk_api *api, size_t count, size_t links, clock_check *check, wk_status *st)
{
    wk_buf text = {0};
    if (repeated(&text, "<sdf version='1.9'><model name='m'>", "<link name='l%zu'/>", links, "</model></sdf>"))
        return WK_NOMEM;
    SimulationInterfaces__Resource resource = SIMULATION_INTERFACES__RESOURCE__INIT;
    resource.resource_string = (char *)text.data;
    SimulationInterfaces__SpawnEntityRequest entry = SIMULATION_INTERFACES__SPAWN_ENTITY_REQUEST__INIT;
    entry.name = "spawned";
    entry.has_allow_renaming = entry.allow_renaming = true;
    entry.entity_resource = &resource;
    SimulationInterfaces__SpawnEntityRequest *entries[8];
    for (size_t i = 0; i < count; i++)
        entries[i] = &entry;
    SimulationInterfaces__SpawnEntitiesRequest req = SIMULATION_INTERFACES__SPAWN_ENTITIES_REQUEST__INIT;
    req.n_spawn_requests = count;
    req.spawn_requests = entries;
    return dispatch_text(api, "SpawnEntities", &req.base, &text, check, st);
}

/* A SpawnEntities still reading or making an entry at the deadline ends
 * DEADLINE_EXCEEDED naming the entry, and the entries made before it are
 * not kept. */
static void spawn_entities_give_up(void)
{
    size_t before;
    wk_api *api = api_with_world(NULL, &before);
    REQUIRE(api);
    wk_status st = {0};
    clock_check all = {.grace = 1 << 30};
    REQUIRE_INT(spawn_models(api, 3, 200, &all, &st), ==, WK_OK);
    REQUIRE_INT(wk_ecm_count(wk_scene_ecm(wk_api_scene(api))), ==, before + 3 * 201);
    REQUIRE_INT(load_models(api, 10, NULL, &st), ==, WK_OK);
    bool instantiating = false, last_entry = false;
    for (int grace = 1; grace < all.asked; grace++) {
        clock_check check = {.grace = grace};
        CHECK_INT(spawn_models(api, 3, 200, &check, &st), ==, WK_DEADLINE);
        CHECK(!strncmp(st.message, "SpawnEntities: entry ", 21));
        CHECK_INT(wk_ecm_count(wk_scene_ecm(wk_api_scene(api))), ==, before);
        instantiating = instantiating || strstr(st.message, "gave up instantiating");
        last_entry = last_entry || !strncmp(st.message, "SpawnEntities: entry 2:", 23);
    }
    CHECK(instantiating);
    CHECK(last_entry);
    CHECK_INT(wk_code_grpc(WK_DEADLINE), ==, WK_GRPC_DEADLINE_EXCEEDED);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"load_world_gives_up", load_world_gives_up},
    {"load_world_gives_up_in_every_phase", load_world_gives_up_in_every_phase},
    {"spawn_entities_give_up", spawn_entities_give_up},
    {"sources_bounded", sources_bounded},
    {"walks_take_no_world_lock", walks_take_no_world_lock},
    {"footprint_pairs_bounded", footprint_pairs_bounded},
};
WK_TEST_MAIN(cases)
