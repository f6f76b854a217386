/* test_load_world.c — the LoadWorld service: each result code of the
 * standard, the world replaced (spawned entities included) on success and
 * untouched on failure (init_world too, for a refusal after the file
 * read), the WorldResource it returns, and with a store on disk, the new
 * world there before OK while the old one had changes not yet committed,
 * and the old world put back when init_world's replace fails after it. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_call.h"
#include "store/store_internal.h" /* wk__db_exec */
#include "wk_test.h"

#define LEVELS_WORLD WK_TEST_WORLDS "/../../../examples/levels.sdf"
#define SMALL_WORLD                                                                                                   \
    "<sdf version='1.9'><world name='small'><model name='box'><link name='l'/></model></world></sdf>"

static uint32_t load_code(wk_api *api, SimulationInterfaces__LoadWorldRequest *req, char *msg, size_t cap)
{
    SimulationInterfaces__LoadWorldResponse *resp = load_world(api, req);
    if (!resp || !resp->result)
        return 999;
    uint32_t code = resp->result->result;
    snprintf(msg, cap, "%s", resp->result->error_message ? resp->result->error_message : "");
    free_response(resp);
    return code;
}

static SimulationInterfaces__LoadWorldRequest request(const char *uri, const char *text)
{
    SimulationInterfaces__LoadWorldRequest req = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    req.uri = (char *)uri;
    req.resource_string = (char *)text;
    return req;
}

static void loads_and_replaces(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    CHECK_STR(wk_scene_name(wk_api_scene(api), wk_api_world(api)), "default");
    SimulationInterfaces__LoadWorldRequest req = request(LEVELS_WORLD, NULL);
    SimulationInterfaces__LoadWorldResponse *resp = load_world(api, &req);
    REQUIRE(resp && resp->result && resp->world);
    CHECK_INT(resp->result->result, ==, WK_RESULT_OK);
    CHECK_STR(resp->world->name, "default");
    CHECK_STR(resp->world->uri, LEVELS_WORLD);
    free_response(resp);
    wk_scene *scene = wk_api_scene(api);
    CHECK_INT(wk_ecm_count(wk_scene_ecm(scene)), ==, 43);
    CHECK(wk_scene_child(scene, wk_api_world(api), "R1") != WK_NULL_ENTITY);

    /* A second world replaces the first entirely. */
    req = request(NULL, SMALL_WORLD);
    char msg[256];
    CHECK_INT(load_code(api, &req, msg, sizeof msg), ==, WK_RESULT_OK);
    scene = wk_api_scene(api);
    CHECK_STR(wk_scene_name(scene, wk_api_world(api)), "small");
    CHECK_INT(wk_ecm_count(wk_scene_ecm(scene)), ==, 3);
    CHECK(wk_scene_child(scene, wk_api_world(api), "R1") == WK_NULL_ENTITY);
    wk_api_free(api);
}

static void failures_change_nothing(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    SimulationInterfaces__LoadWorldRequest req = request(LEVELS_WORLD, NULL);
    char msg[256];
    REQUIRE_INT(load_code(api, &req, msg, sizeof msg), ==, WK_RESULT_OK);
    const struct {
        const char *uri, *text;
        bool strict;
        uint32_t code;
        const char *needle;
    } cases[] = {
        {NULL, NULL, false, WK_LOAD_WORLD_NO_RESOURCE, "empty"},
        {"", "", false, WK_LOAD_WORLD_NO_RESOURCE, "empty"},
        {NULL, "<usd/>", false, WK_LOAD_WORLD_UNSUPPORTED_FORMAT, "<usd>"},
        {NULL, "<sdf version='1.9'><world name='w'>", false, WK_LOAD_WORLD_RESOURCE_PARSE_ERROR, "<string>:1"},
        {"/no/such/world.sdf", NULL, false, WK_LOAD_WORLD_RESOURCE_PARSE_ERROR, "/no/such/world.sdf"},
        {NULL,
         "<sdf version='1.9'><world name='w'><model name='m'><link name='l'><visual name='v'><geometry><mesh>"
         "<uri>model://gone/gone.dae</uri></mesh></geometry></visual></link></model></world></sdf>",
         false, WK_LOAD_WORLD_MISSING_ASSETS, "model://gone/gone.dae"},
        {NULL, "<sdf version='1.9'><world name='w'><bogus/></world></sdf>", true, WK_LOAD_WORLD_UNSUPPORTED_ELEMENTS,
         "/sdf/world/bogus"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        req = request(cases[i].uri, cases[i].text);
        req.has_fail_on_unsupported_element = req.fail_on_unsupported_element = cases[i].strict;
        uint32_t code = load_code(api, &req, msg, sizeof msg);
        if (!CHECK_INT(code, ==, cases[i].code) || !CHECK(strstr(msg, cases[i].needle) != NULL))
            fprintf(stderr, "    case %zu: %s\n", i, msg);
    }
    /* The loaded world is still there, whole. */
    CHECK_INT(wk_ecm_count(wk_scene_ecm(wk_api_scene(api))), ==, 43);
    wk_api_free(api);
}

static void options_are_honoured(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    SimulationInterfaces__LoadWorldRequest req =
        request(NULL, "<sdf version='1.9'><world name='w'><model name='m'><link name='l'><visual name='v'>"
                      "<geometry><mesh><uri>model://gone/gone.dae</uri></mesh></geometry></visual></link></model>"
                      "<bogus/></world></sdf>");
    req.has_ignore_missing_or_unsupported_assets = req.ignore_missing_or_unsupported_assets = true;
    char msg[256];
    CHECK_INT(load_code(api, &req, msg, sizeof msg), ==, WK_RESULT_OK);
    CHECK_STR(wk_scene_name(wk_api_scene(api), wk_api_world(api)), "w");
    uint8_t garbage[] = {0xff, 0xff, 0xff};
    wk_buf out = {0};
    CHECK_INT(wk_api_call(api, "LoadWorld", garbage, sizeof garbage, &out), ==, WK_PARSE);
    CHECK_INT(wk_api_call(api, "NoSuchService", NULL, 0, &out), ==, WK_NOT_FOUND);
    CHECK_INT(out.len, ==, 0);
    wk_api_free(api);
}

/* The entities of store world id; 0 when it is not there. */
static size_t world_size(wk_store *store, const char *id)
{
    wk_world *w;
    wk_status st;
    if (wk_store_open(store, id, false, &w, &st))
        return 0;
    size_t n = wk_ecm_count(wk_scene_ecm(wk_world_scene(w)));
    wk_store_close(w, false, false);
    return n;
}

/* A world read whole, then refused by the store's bound on entities: the
 * current world, init_world and the simulation stay as they were, and a
 * reset still puts back the first world's start. */
static void refused_after_the_read_changes_nothing(void)
{
    wk_api *api = wk_api_new_desc(&(wk_api_desc){.max_world_entities = 43});
    REQUIRE(api);
    SimulationInterfaces__LoadWorldRequest req = request(LEVELS_WORLD, NULL);
    char msg[256];
    REQUIRE_INT(load_code(api, &req, msg, sizeof msg), ==, WK_RESULT_OK);
    wk_store *store = wk_api_store(api);
    REQUIRE_INT(world_size(store, "world"), ==, 43);
    REQUIRE_INT(world_size(store, "init_world"), ==, 43);
    wk_sim *sim = wk_api_sim(api);
    req = request(NULL, "<sdf version='1.9'><world name='big'><model name='a'><link name='l'/></model>"
                        "<model name='b'><link name='l'/></model><model name='c'><link name='l'/></model>"
                        "<model name='d'><link name='l'/></model><model name='e'><link name='l'/></model>"
                        "<model name='f'><link name='l'/></model><model name='g'><link name='l'/></model>"
                        "<model name='h'><link name='l'/></model><model name='i'><link name='l'/></model>"
                        "<model name='j'><link name='l'/></model><model name='k'><link name='l'/></model>"
                        "<model name='m'><link name='l'/></model><model name='n'><link name='l'/></model>"
                        "<model name='o'><link name='l'/></model><model name='p'><link name='l'/></model>"
                        "<model name='q'><link name='l'/></model><model name='r'><link name='l'/></model>"
                        "<model name='s'><link name='l'/></model><model name='t'><link name='l'/></model>"
                        "<model name='u'><link name='l'/></model><model name='v'><link name='l'/></model>"
                        "<model name='w'><link name='l'/></model></world></sdf>");
    CHECK_INT(load_code(api, &req, msg, sizeof msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(msg, "past the limit of 43") != NULL);
    CHECK(wk_api_sim(api) == sim);
    CHECK_STR(wk_scene_name(wk_api_scene(api), wk_api_world(api)), "default");
    CHECK_INT(world_size(store, "world"), ==, 43);
    CHECK_INT(world_size(store, "init_world"), ==, 43);
    CHECK(wk_scene_child(wk_api_scene(api), wk_api_world(api), "R1") != WK_NULL_ENTITY);
    SimulationInterfaces__ResetSimulationRequest reset = SIMULATION_INTERFACES__RESET_SIMULATION_REQUEST__INIT;
    CHECK_INT(call_code(api, "ResetSimulation", &reset.base, NULL), ==, WK_RESULT_OK);
    CHECK_INT(wk_ecm_count(wk_scene_ecm(wk_api_scene(api))), ==, 43);
    wk_api_free(api);
}

/* Journal entries of the store in dir whose world is not in it; -1 when
 * the database does not answer. */
static int orphan_entries(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/worlds.db", dir);
    sqlite3 *db;
    sqlite3_stmt *q = NULL;
    int n = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT count(*) FROM journal WHERE wid NOT IN (SELECT wid FROM worlds)", -1, &q,
                           NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        n = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return n;
}

/* An api whose store is on disk in dir (a mkdtemp template), with
 * LEVELS_WORLD loaded; NULL when either fails. */
static wk_api *levels_on_disk(char *dir)
{
    wk_api *api = api_on_disk(dir);
    SimulationInterfaces__LoadWorldRequest req = request(LEVELS_WORLD, NULL);
    char msg[256];
    if (api && load_code(api, &req, msg, sizeof msg) != WK_RESULT_OK) {
        fprintf(stderr, "    %s\n", msg);
        wk_api_free(api);
        return NULL;
    }
    return api;
}

/* With the store on disk, a world that changed since its last commit (as
 * the PLAYING loop's motion leaves it) is replaced, not committed: LoadWorld
 * and UnloadWorld answer OK, no journal entry is written for a world the
 * store no longer holds, and a reopen finds what each answered, world and
 * init_world alike. */
static void replaced_world_is_not_committed(void)
{
    char dir[] = "/tmp/wk_load_XXXXXX";
    wk_api *api = levels_on_disk(dir);
    REQUIRE(api);
    SimulationInterfaces__LoadWorldRequest req;
    char msg[256];
    wk_status st;
    for (int round = 0; round < 2; round++) {
        /* Motion the loop made and no call committed. */
        wk_scene *scene = wk_api_scene(api);
        wk_entity r1 = wk_scene_child(scene, wk_api_world(api), round ? "box" : "R1");
        REQUIRE(r1 != WK_NULL_ENTITY);
        wk_pose moved = {{7, 0, 0}, {0, 0, 0, 1}};
        REQUIRE(wk_ecm_set(wk_scene_ecm(scene), r1, wk_scene_types_of(scene)->parent_pose, &moved) >= 0);
        /* The second time with a batch left open on it, which a commit
         * would refuse (WK_BUSY) after the replace. */
        REQUIRE(!round || wk_scene_batch_begin(scene, &st) == WK_OK);
        req = request(NULL, SMALL_WORLD);
        if (!CHECK_INT(load_code(api, &req, msg, sizeof msg), ==, WK_RESULT_OK))
            fprintf(stderr, "    round %d: %s\n", round, msg);
    }
    SimulationInterfaces__UnloadWorldRequest unload = SIMULATION_INTERFACES__UNLOAD_WORLD_REQUEST__INIT;
    CHECK_INT(call_code(api, "UnloadWorld", &unload.base, msg), ==, WK_RESULT_OK);
    wk_api_free(api);
    CHECK_INT(orphan_entries(dir), ==, 0);
    wk_store *store;
    REQUIRE_INT(wk_store_open_dir(dir, &store, &st), ==, WK_OK);
    CHECK_INT(world_size(store, "world"), ==, 1); /* the empty world's own entity */
    CHECK_INT(world_size(store, "init_world"), ==, 1);
    wk_store_free(store);
    CHECK_INT(remove_dir(dir), ==, 0);
}

/* Store world id's serialized state, in out. */
static void stored_state(wk_store *store, const char *id, wk_buf *out)
{
    wk_world *w;
    wk_status st;
    out->len = 0;
    REQUIRE_INT(wk_store_open(store, id, false, &w, &st), ==, WK_OK);
    CHECK_INT(wk_ecm_state(wk_scene_ecm(wk_world_scene(w)), &(wk_state_desc){0}, out), ==, WK_OK);
    wk_store_close(w, false, false);
}

static bool same(const wk_buf *a, const wk_buf *b)
{
    return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* The database refuses the second of LoadWorld's two replaces (that of
 * init_world), after the first took the old world: the old world is put
 * back, so world and init_world are as they were, in memory and on disk,
 * and the simulation runs on them as before. */
static void refused_init_world_puts_the_old_world_back(void)
{
    char dir[] = "/tmp/wk_load_XXXXXX";
    wk_api *api = levels_on_disk(dir);
    REQUIRE(api);
    char msg[256];
    wk_status st;
    /* world apart from init_world: R1 moved by a client. */
    wk_motion moved = {.pose = {{-4, 6, 0}, {0, 0, 0, 1}}};
    REQUIRE_INT(set_entity(api, "R1", "", &moved, WK_MOTION_POSE, NULL), ==, WK_RESULT_OK);
    wk_store *store = wk_api_store(api);
    wk_buf world = {0}, init = {0}, now = {0};
    stored_state(store, "world", &world);
    stored_state(store, "init_world", &init);
    REQUIRE(!same(&world, &init));
    wk_sim *sim = wk_api_sim(api);
    REQUIRE_INT(wk__db_exec(store, "CREATE TRIGGER wk_no_init BEFORE INSERT ON worlds WHEN NEW.id = 'init_world' "
                                   "BEGIN SELECT RAISE(ABORT, 'init_world refused'); END"),
                ==, WK_OK);
    SimulationInterfaces__LoadWorldRequest req = request(NULL, SMALL_WORLD);
    CHECK_INT(load_code(api, &req, msg, sizeof msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(msg, "init_world refused") != NULL);
    stored_state(store, "world", &now);
    CHECK(same(&now, &world));
    stored_state(store, "init_world", &now);
    CHECK(same(&now, &init));
    CHECK(wk_api_sim(api) == sim);
    CHECK_STR(wk_scene_name(wk_api_scene(api), wk_api_world(api)), "default");
    wk_motion r1;
    CHECK_INT(get_entity(api, "R1", &r1, NULL), ==, WK_RESULT_OK);
    CHECK_NEAR(r1.pose.p.x, -4, 1e-12);
    CHECK_INT(set_state(api, WK_SIM_PAUSED, NULL), ==, WK_RESULT_OK);
    CHECK_INT(step_simulation(api, 1, NULL), ==, WK_RESULT_OK);
    REQUIRE_INT(wk__db_exec(store, "DROP TRIGGER wk_no_init"), ==, WK_OK);
    wk_api_free(api);
    /* On disk too. */
    REQUIRE_INT(wk_store_open_dir(dir, &store, &st), ==, WK_OK);
    CHECK_INT(world_size(store, "world"), ==, 43);
    stored_state(store, "init_world", &now);
    CHECK(same(&now, &init));
    wk_world *w;
    REQUIRE_INT(wk_store_open(store, "world", false, &w, &st), ==, WK_OK);
    wk_scene *s = wk_world_scene(w);
    CHECK_NEAR(wk_scene_world_pose(s, wk_scene_child(s, wk_scene_root(s), "R1")).p.x, -4, 1e-12);
    wk_store_close(w, false, false);
    wk_store_free(store);
    wk_buf_free(&world);
    wk_buf_free(&init);
    wk_buf_free(&now);
    CHECK_INT(remove_dir(dir), ==, 0);
}

static const wk_test_case cases[] = {
    {"loads_and_replaces", loads_and_replaces},
    {"failures_change_nothing", failures_change_nothing},
    {"options_are_honoured", options_are_honoured},
    {"refused_after_the_read_changes_nothing", refused_after_the_read_changes_nothing},
    {"replaced_world_is_not_committed", replaced_world_is_not_committed},
    {"refused_init_world_puts_the_old_world_back", refused_init_world_puts_the_old_world_back},
};
WK_TEST_MAIN(cases)
