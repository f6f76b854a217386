/* test_spawn_entities.c — the SpawnEntities service: names (given, from the
 * file, generated, made unique), each refusal code of the standard, initial
 * poses in reference frames, namespaces, and a call whose failing entry
 * leaves the world as it was, on disk too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_call.h"
#include "wk_test.h"

#define CRATE WK_TEST_WORLDS "/model_only.sdf" /* model "crate" at (0.5, 0, 0.25), yaw 0.1 */
#define TORSO WK_TEST_WORLDS "/torso.urdf" /* a URDF without meshes */

/* One entry's request, with storage for its nested messages. */
typedef struct entry {
    SimulationInterfaces__SpawnEntityRequest req;
    SimulationInterfaces__Resource res;
    SimulationInterfaces__PoseStamped ps;
    SimulationInterfaces__Header header;
    SimulationInterfaces__Pose pose;
    SimulationInterfaces__Point point;
    SimulationInterfaces__Quaternion quat;
} entry;

static void entry_init(entry *e, const char *name, const char *uri, const char *text)
{
    simulation_interfaces__spawn_entity_request__init(&e->req);
    simulation_interfaces__resource__init(&e->res);
    e->req.name = (char *)name;
    e->res.uri = (char *)uri;
    e->res.resource_string = (char *)text;
    e->req.entity_resource = &e->res;
}

static void entry_pose(entry *e, const char *frame, wk_vec3 p, wk_quat q)
{
    simulation_interfaces__pose_stamped__init(&e->ps);
    simulation_interfaces__header__init(&e->header);
    simulation_interfaces__pose__init(&e->pose);
    simulation_interfaces__point__init(&e->point);
    simulation_interfaces__quaternion__init(&e->quat);
    e->header.frame_id = (char *)frame;
    e->point = (SimulationInterfaces__Point)SIMULATION_INTERFACES__POINT__INIT;
    e->point.has_x = e->point.has_y = e->point.has_z = true;
    e->point.x = p.x, e->point.y = p.y, e->point.z = p.z;
    e->quat.has_x = e->quat.has_y = e->quat.has_z = e->quat.has_w = true;
    e->quat.x = q.x, e->quat.y = q.y, e->quat.z = q.z, e->quat.w = q.w;
    e->pose.position = &e->point;
    e->pose.orientation = &e->quat;
    e->ps.header = &e->header;
    e->ps.pose = &e->pose;
    e->req.initial_pose = &e->ps;
}

/* Spawns one entry; returns its code and copies its name and message. */
static uint32_t spawn_one(wk_api *api, entry *e, char *name, char *msg)
{
    SimulationInterfaces__SpawnEntityRequest *list[] = {&e->req};
    SimulationInterfaces__SpawnEntitiesResponse *resp = spawn_entities(api, list, 1);
    if (!resp || resp->n_results != 1)
        return 999;
    uint32_t code = resp->results[0]->result->result;
    strcpy(name, resp->results[0]->entity_name ? resp->results[0]->entity_name : "");
    strcpy(msg, resp->results[0]->result->error_message ? resp->results[0]->result->error_message : "");
    uint32_t overall = resp->result->result;
    free_response(resp);
    CHECK_INT(overall, ==, code == WK_RESULT_OK ? WK_RESULT_OK : WK_SPAWN_ENTITIES_FAILED);
    return code;
}

static bool near_pose(wk_pose a, wk_pose b)
{
    return wk_vec3_norm(wk_vec3_sub(a.p, b.p)) < 1e-12 && wk_quat_near(a.q, b.q, 1e-12);
}

static void names(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    char name[256], msg[256];
    entry e;
    entry_init(&e, NULL, CRATE, NULL);
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_RESULT_OK);
    CHECK_STR(name, "crate"); /* the file's name */
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_NAME_NOT_UNIQUE);
    CHECK(strstr(msg, "'crate'") != NULL);
    e.req.has_allow_renaming = e.req.allow_renaming = true;
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_RESULT_OK);
    CHECK_STR(name, "crate_0");
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_RESULT_OK);
    CHECK_STR(name, "crate_1");
    entry_init(&e, "box", CRATE, NULL);
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_RESULT_OK);
    CHECK_STR(name, "box");
    entry_init(&e, "bad name!", CRATE, NULL);
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_NAME_INVALID);
    CHECK_STR(name, "");
    entry_init(&e, "9lives", CRATE, NULL);
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_NAME_INVALID);
    char too_long[WK_NAME_MAX + 2];
    memset(too_long, 'x', sizeof too_long - 1);
    too_long[sizeof too_long - 1] = '\0';
    entry_init(&e, too_long, CRATE, NULL);
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_NAME_INVALID);
    CHECK(strstr(msg, "too long") != NULL);
    wk_scene *s = wk_api_scene(api);
    wk_entity world = wk_api_world(api);
    CHECK(wk_scene_child(s, world, "crate_1") != WK_NULL_ENTITY);
    /* Each spawned model is whole: its link and visual came with it. */
    wk_entity crate = wk_scene_child(s, world, "crate");
    CHECK(wk_scene_child(s, wk_scene_child(s, crate, "body"), "v") != WK_NULL_ENTITY);
    CHECK(wk_ecm_has(wk_scene_ecm(s), crate, wk_scene_types_of(s)->spawned));
    wk_api_free(api);
}

static void resources(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    char name[256], msg[256];
    entry e;
    entry_init(&e, "x", NULL, NULL);
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_NO_RESOURCE);
    entry_init(&e, "x", NULL, "<usd/>");
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_UNSUPPORTED_FORMAT);
    entry_init(&e, "x", NULL, "<robot name='r'><link name='a'>");
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_RESOURCE_PARSE_ERROR);
    CHECK(strstr(msg, "<string>:1") != NULL);
    entry_init(&e, "x", NULL,
               "<sdf version='1.9'><model name='m'><link name='l'><visual name='v'><geometry><mesh>"
               "<uri>model://gone/gone.stl</uri></mesh></geometry></visual></link></model></sdf>");
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_MISSING_ASSETS);
    entry_init(&e, "x", NULL,
               "<sdf version='1.9'><world name='w'><model name='a'><link name='l'/></model>"
               "<model name='b'><link name='l'/></model></world></sdf>");
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_RESOURCE_PARSE_ERROR);
    CHECK(strstr(msg, "<string> holds 2 models") != NULL);
    entry_init(&e, NULL, TORSO, NULL); /* URDF: the robot's name */
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_RESULT_OK);
    CHECK(name[0] != '\0');
    CHECK_INT(wk_ecm_count(wk_scene_ecm(wk_api_scene(api))), >, 10);
    wk_api_free(api);
}

static void poses_and_frames(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    wk_scene *s = wk_api_scene(api);
    char name[256], msg[256];
    entry e;
    entry_init(&e, "kept", CRATE, NULL); /* no initial pose: the file's */
    REQUIRE_INT(spawn_one(api, &e, name, msg), ==, WK_RESULT_OK);
    wk_entity kept = wk_scene_child(s, wk_api_world(api), "kept");
    CHECK(near_pose(wk_scene_world_pose(s, kept), (wk_pose){{0.5, 0, 0.25}, wk_quat_from_rpy(0, 0, 0.1)}));

    wk_pose base = {{1, 2, 3}, wk_quat_from_rpy(0, 0, 1.5707963267948966)};
    entry_init(&e, "base", CRATE, NULL);
    entry_pose(&e, "world", base.p, base.q);
    REQUIRE_INT(spawn_one(api, &e, name, msg), ==, WK_RESULT_OK);
    wk_entity b = wk_scene_child(s, wk_api_world(api), "base");
    CHECK(near_pose(wk_scene_world_pose(s, b), base));
    /* The link keeps its place in the model: 0.1 above the model frame. */
    wk_pose link = wk_scene_world_pose(s, wk_scene_child(s, b, "body"));
    CHECK(near_pose(link, wk_pose_compose(base, (wk_pose){{0, 0, 0.1}, wk_quat_identity()})));

    wk_pose rel = {{1, 0, 0}, wk_quat_identity()};
    entry_init(&e, "on_top", CRATE, NULL);
    entry_pose(&e, "base::body", rel.p, rel.q);
    REQUIRE_INT(spawn_one(api, &e, name, msg), ==, WK_RESULT_OK);
    CHECK(near_pose(wk_scene_world_pose(s, wk_scene_child(s, wk_api_world(api), "on_top")), wk_pose_compose(link, rel)));

    entry_init(&e, "lost", CRATE, NULL);
    entry_pose(&e, "nowhere", rel.p, rel.q);
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_RESULT_NOT_FOUND);
    CHECK(strstr(msg, "'nowhere'") != NULL);
    entry_pose(&e, "world", rel.p, (wk_quat){1.1, 0, 0, 0});
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_INVALID_POSE);
    entry_pose(&e, "world", (wk_vec3){NAN, 0, 0}, wk_quat_identity());
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_INVALID_POSE);
    /* Finite but past WK_POSE_TRANSLATION_MAX; the limit itself is taken. */
    entry_pose(&e, "world", (wk_vec3){0, 1.7e308, 0}, wk_quat_identity());
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_INVALID_POSE);
    CHECK(strstr(msg, "initial pose: translation y = 1.7e+308 is beyond the limit of +-1e+12 m") != NULL);
    entry_init(&e, "far_off", CRATE, NULL);
    entry_pose(&e, "world", (wk_vec3){0, -1e12, 0}, wk_quat_identity());
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_RESULT_OK);
    CHECK_NEAR(wk_scene_world_pose(s, wk_scene_child(s, wk_api_world(api), "far_off")).p.y, -1e12, 0.0);
    /* Each within the limit, but past it together: the model would be kept
     * at y = -2e12 under the world. */
    entry_init(&e, "farther", CRATE, NULL);
    entry_pose(&e, "far_off", (wk_vec3){0, -1e12, 0}, wk_quat_identity());
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_SPAWN_INVALID_POSE);
    CHECK(strstr(msg, "relative to 'far_off', in the world frame: translation y = -2e+12 is beyond") != NULL);
    entry_init(&e, "lost", CRATE, NULL);
    entry_pose(&e, "world", rel.p, (wk_quat){1 + 5e-7, 0, 0, 0}); /* within 1e-6 of unit */
    CHECK_INT(spawn_one(api, &e, name, msg), ==, WK_RESULT_OK);
    wk_api_free(api);
}

static void namespaces(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    char name[256], msg[256];
    const struct {
        const char *ns;
        bool valid;
    } cases[] = {
        {"", true}, {"/", true}, {"robot", true}, {"/fleet/robot_1", true}, {"fleet/_r2", true},
        {"//x", false}, {"/x/", false}, {"1robot", false}, {"a b", false}, {"/a//b", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        entry e;
        entry_init(&e, NULL, CRATE, NULL);
        e.req.has_allow_renaming = e.req.allow_renaming = true;
        e.req.entity_namespace = (char *)cases[i].ns;
        uint32_t code = spawn_one(api, &e, name, msg);
        if (!CHECK_INT(code, ==, cases[i].valid ? WK_RESULT_OK : WK_SPAWN_NAMESPACE_INVALID))
            fprintf(stderr, "    namespace '%s'\n", cases[i].ns);
    }
    wk_scene *s = wk_api_scene(api);
    char *const *ns = wk_ecm_get(wk_scene_ecm(s), wk_scene_child(s, wk_api_world(api), "crate_1"),
                                 wk_scene_types_of(s)->ns);
    REQUIRE(ns);
    CHECK_STR(*ns, "robot");
    wk_api_free(api);
}

/* The world's whole serialized state, into out. */
static void world_state(wk_api *api, wk_buf *out)
{
    out->len = 0;
    REQUIRE_INT(wk_ecm_state(wk_scene_ecm(wk_api_scene(api)), &(wk_state_desc){0}, out), ==, WK_OK);
}

/* The call is all or nothing: an entry that fails last, after two others
 * were instantiated, leaves the world exactly as it was, each entry
 * saying why; with the store on disk, what was answered OK is there after
 * a reopen and what was refused is not. */
static void a_failing_entry_spawns_none(void)
{
    char dir[] = "/tmp/wk_spawn_XXXXXX";
    REQUIRE(mkdtemp(dir));
    wk_store *store;
    wk_status st;
    REQUIRE_INT(wk_store_open_dir(dir, &store, &st), ==, WK_OK);
    wk_api *api = wk_api_new_desc(&(wk_api_desc){.store = store});
    REQUIRE(api);
    entry good1, good2, bad, kept;
    entry_init(&kept, "kept", CRATE, NULL);
    entry_init(&good1, "one", CRATE, NULL);
    entry_init(&good2, "three", CRATE, NULL);
    entry_init(&bad, "two", NULL, "<usd/>");
    SimulationInterfaces__SpawnEntityRequest *first[] = {&kept.req};
    SimulationInterfaces__SpawnEntitiesResponse *resp = spawn_entities(api, first, 1);
    REQUIRE(resp);
    CHECK_INT(resp->result->result, ==, WK_RESULT_OK);
    free_response(resp);
    wk_buf before = {0}, after = {0};
    world_state(api, &before);
    SimulationInterfaces__SpawnEntityRequest *list[] = {&good1.req, &good2.req, &bad.req};
    resp = spawn_entities(api, list, 3);
    REQUIRE(resp && resp->n_results == 3);
    CHECK_INT(resp->result->result, ==, WK_SPAWN_ENTITIES_FAILED);
    CHECK(strstr(resp->result->error_message, "1 of 3") != NULL);
    CHECK_INT(resp->results[0]->result->result, ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(resp->results[0]->result->error_message, "entry 2 failed") != NULL);
    CHECK_INT(resp->results[1]->result->result, ==, WK_RESULT_OPERATION_FAILED);
    CHECK_INT(resp->results[2]->result->result, ==, WK_SPAWN_UNSUPPORTED_FORMAT);
    CHECK_STR(resp->results[0]->entity_name, "");
    free_response(resp);
    world_state(api, &after);
    CHECK(before.len == after.len && memcmp(before.data, after.data, before.len) == 0);
    CHECK(wk_scene_child(wk_api_scene(api), wk_api_world(api), "one") == WK_NULL_ENTITY);
    /* An empty call is all of nothing: OK. */
    resp = spawn_entities(api, NULL, 0);
    REQUIRE(resp);
    CHECK_INT(resp->result->result, ==, WK_RESULT_OK);
    free_response(resp);
    wk_api_free(api);
    REQUIRE_INT(wk_store_open_dir(dir, &store, &st), ==, WK_OK);
    wk_world *w;
    REQUIRE_INT(wk_store_open(store, "world", false, &w, &st), ==, WK_OK);
    wk_scene *s = wk_world_scene(w);
    wk_entity root = wk_scene_root(s);
    CHECK(wk_scene_child(s, root, "kept") != WK_NULL_ENTITY);
    CHECK(wk_scene_child(s, root, "one") == WK_NULL_ENTITY && wk_scene_child(s, root, "three") == WK_NULL_ENTITY);
    wk_store_close(w, false, false);
    wk_store_free(store);
    wk_buf_free(&before);
    wk_buf_free(&after);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), ==, 0);
}

static void too_many_entries_refused_whole(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    size_t before = wk_ecm_count(wk_scene_ecm(wk_api_scene(api)));
    size_t n = WK_SPAWN_ENTITIES_MAX + 1;
    entry good;
    entry_init(&good, "one", CRATE, NULL);
    SimulationInterfaces__SpawnEntityRequest **list = malloc(n * sizeof *list);
    REQUIRE(list);
    for (size_t i = 0; i < n; i++)
        list[i] = &good.req;
    SimulationInterfaces__SpawnEntitiesResponse *resp = spawn_entities(api, list, n);
    REQUIRE(resp);
    CHECK_INT(resp->result->result, ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(resp->result->error_message, "10001 spawn requests") != NULL);
    CHECK_INT(resp->n_results, ==, 0);
    CHECK_INT(wk_ecm_count(wk_scene_ecm(wk_api_scene(api))), ==, before);
    free_response(resp);
    resp = spawn_entities(api, list, 1);
    REQUIRE(resp);
    CHECK_INT(resp->result->result, ==, WK_RESULT_OK);
    free_response(resp);
    free(list);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"names", names},
    {"resources", resources},
    {"poses_and_frames", poses_and_frames},
    {"namespaces", namespaces},
    {"a_failing_entry_spawns_none", a_failing_entry_spawns_none},
    {"too_many_entries_refused_whole", too_many_entries_refused_whole},
};
WK_TEST_MAIN(cases)
