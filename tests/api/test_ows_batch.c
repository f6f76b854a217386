/* test_ows_batch.c — UpdateWorldResources and the collision mutations:
 * updates applied in order, each to the world the previous left (the
 * service's rename-then-rename example), the answer (every object in the
 * view asked for, the collision settings); a failing update, named by its
 * index, leaving the world's serialized state byte for byte as it was;
 * world_id refused inside a batch; a store on disk holding what was
 * answered OK and not what was refused; and UpdateCollisionSettings (a
 * World answered, rules resolved, bad margins refused) and
 * ToggleCollisions. */
#include <unistd.h>

#include "api/ows_client.h"

#define BOX OWS_SHAPE("'box':{'size':{'x':1,'y':1,'z':1}}")

/* World "w" holding the objects first_name and other, and a frame "spot". */
static wk_api *two_objects(void)
{
    wk_api *api = wk_api_new();
    if (!api || !ows_world(api) ||
        !OWS_EXPECT(api, "CreateObject",
                    "{'worldId':'w','name':'first_name','createSingleEntityObject':{'geometryComponent':" BOX "}}",
                    WK_GRPC_OK, NULL) ||
        !OWS_EXPECT(api, "CreateObject",
                    "{'worldId':'w','name':'other','createSingleEntityObject':{'geometryComponent':" BOX "}}",
                    WK_GRPC_OK, NULL) ||
        !OWS_EXPECT(api, "CreateFrame", "{'worldId':'w','newFrameName':'spot','parentObject':{'id':'root'}}",
                    WK_GRPC_OK, NULL)) {
        wk_api_free(api);
        return NULL;
    }
    return api;
}

static bool has_object(wk_api *api, const char *name)
{
    wk_world *w;
    wk_status st;
    wk_entity e = WK_NULL_ENTITY;
    if (wk_store_open(wk_api_store(api), "w", false, &w, &st))
        return false;
    bool found = wk_scene_find_object(wk_world_scene(w), &(wk_ref){.object_name = name}, &e, &st) == WK_OK;
    wk_store_close(w, false, false);
    return found;
}

/* The service's own example: the second update names the object by the
 * name the first gave it. */
static void rename_then_rename(void)
{
    wk_api *api = two_objects();
    REQUIRE(api);
    OWS_EXPECT(api, "UpdateWorldResources",
               "{'worldId':'w','view':'FULL','worldUpdates':{'updates':["
               "{'updateObjectName':{'object':{'byName':{'objectName':'first_name'}},'name':'second_name'}},"
               "{'updateObjectName':{'object':{'byName':{'objectName':'second_name'}},'name':'third_name'}}]}}",
               WK_GRPC_OK, "'name':'third_name'");
    CHECK(has_object(api, "third_name"));
    CHECK(!has_object(api, "first_name") && !has_object(api, "second_name"));
    wk_api_free(api);
}

/* The answer: every object (root first) in the view asked for, and the
 * collision settings. */
static void answer(void)
{
    wk_api *api = two_objects();
    REQUIRE(api);
    ows_answer a;
    REQUIRE_INT(ows_call(api, "UpdateWorldResources",
                         "{'worldId':'w','worldUpdates':{'updates':[{'toggleCollisions':{'toggleMode':"
                         "'TOGGLE_MODE_DISABLE','objectA':{'reference':{'byName':{'objectName':'first_name'}}},"
                         "'objectB':{'reference':{'byName':{'objectName':'other'}}}}}]}}",
                         &a),
                ==, WK_GRPC_OK);
    CHECK(ows_has(&a, "{'objects':[{'worldId':'w','id':'root'"));
    CHECK(ows_has(&a, "'name':'first_name'") && ows_has(&a, "'name':'other'"));
    CHECK(ows_has(&a, "'collisionSettings':{'collisionRules':[{'left':"));
    CHECK(ows_has(&a, "'isExcluded':true"));
    /* BASIC: no entities. */
    CHECK(strstr((const char *)a.json.data, "\"entities\"") == NULL);
    wk_buf_free(&a.json);
    /* An empty batch changes nothing and answers the world. */
    OWS_EXPECT(api, "UpdateWorldResources", "{'worldId':'w','view':'FULL','worldUpdates':{}}", WK_GRPC_OK,
               "'entities':{");
    wk_api_free(api);
}

/* Any failure undoes all before it; the message names the update. */
static void all_or_nothing(void)
{
    wk_api *api = two_objects();
    REQUIRE(api);
    wk_buf before = ows_state(api, "w");
    const struct {
        const char *json;
        int status;
        const char *needle;
    } cases[] = {
        /* Four updates that work, then one that does not. */
        {"{'worldId':'w','worldUpdates':{'updates':["
         "{'updateObjectName':{'object':{'byName':{'objectName':'first_name'}},'name':'renamed'}},"
         "{'createFrame':{'newFrameName':'f2','parentObject':{'byName':{'objectName':'renamed'}}}},"
         "{'updateTransform':{'nodeA':{'id':'root'},'nodeB':{'byName':{'object':{'objectName':'other'}}},"
         "'aTB':{'position':{'x':3}}}},"
         "{'deleteFrame':{'frame':{'byName':{'objectName':'root','frameName':'spot'}}}},"
         "{'deleteObject':{'object':{'byName':{'objectName':'first_name'}}}}]}}",
         WK_GRPC_NOT_FOUND, "UpdateWorldResources on world 'w': update 4 (delete_object): "},
        /* A world_id inside the batch. */
        {"{'worldId':'w','worldUpdates':{'updates':["
         "{'updateObjectName':{'object':{'byName':{'objectName':'first_name'}},'name':'renamed'}},"
         "{'deleteObject':{'worldId':'w','object':{'byName':{'objectName':'other'}}}}]}}",
         WK_GRPC_INVALID_ARGUMENT, "update 1 (delete_object) sets world_id 'w': updates of a batch must not set one"},
        /* An update that holds nothing. */
        {"{'worldId':'w','worldUpdates':{'updates':["
         "{'updateObjectName':{'object':{'byName':{'objectName':'first_name'}},'name':'renamed'}},{}]}}",
         WK_GRPC_INVALID_ARGUMENT, "update 1 holds no update"},
        /* Collision settings replaced, then a bad reparenting. */
        {"{'worldId':'w','worldUpdates':{'updates':["
         "{'updateCollisionSettings':{'collisionSettings':{'disableCollisionChecking':true}}},"
         "{'reparentObject':{'object':{'byName':{'objectName':'other'}},"
         "'parentObject':{'reference':{'byName':{'objectName':'other'}}}}}]}}",
         WK_GRPC_INVALID_ARGUMENT, "update 1 (reparent_object): "},
        /* Deleting, then creating under what was deleted. */
        {"{'worldId':'w','worldUpdates':{'updates':["
         "{'deleteObject':{'object':{'byName':{'objectName':'other'}}}},"
         "{'createFrame':{'newFrameName':'f3','parentObject':{'byName':{'objectName':'other'}}}}]}}",
         WK_GRPC_NOT_FOUND, "update 1 (create_frame): CreateFrame 'f3': "},
        {"{'worldId':'nowhere','worldUpdates':{'updates':[]}}", WK_GRPC_NOT_FOUND, "nowhere"},
        {"{'worldUpdates':{'updates':[]}}", WK_GRPC_INVALID_ARGUMENT, "world_id"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!OWS_EXPECT(api, "UpdateWorldResources", cases[i].json, cases[i].status, cases[i].needle))
            fprintf(stderr, "    case %zu\n", i);
        wk_buf after = ows_state(api, "w");
        if (!CHECK(ows_same_bytes(&before, &after)))
            fprintf(stderr, "    case %zu changed the world\n", i);
        wk_buf_free(&after);
    }
    CHECK(has_object(api, "first_name") && has_object(api, "other") && !has_object(api, "renamed"));
    wk_buf_free(&before);
    wk_api_free(api);
}

static void collision_settings(void)
{
    wk_api *api = two_objects();
    REQUIRE(api);
    OWS_EXPECT(api, "UpdateCollisionSettings",
               "{'worldId':'w','collisionSettings':{'minimumMargin':0.01,'collisionRules':[{'left':[{'object':"
               "{'byName':{'objectName':'first_name'}}}],'right':[{'objectWithFilter':{'reference':{'byName':"
               "{'objectName':'other'}},'entityFilter':{'includeAllEntities':true}}}],'collisionAction':{'margin':"
               "{'hardMargin':0.5}}}]}}",
               WK_GRPC_OK, "'worldMetadata':{'id':'w'");
    wk_world *w;
    wk_status st;
    REQUIRE_INT(wk_store_open(wk_api_store(api), "w", false, &w, &st), ==, WK_OK);
    const wk_collision_settings *cs = wk_scene_collision_settings(wk_world_scene(w));
    CHECK(cs->has_minimum_margin && cs->minimum_margin == 0.01);
    CHECK(cs->rule_count == 1 && cs->rules[0].action == WK_COLLISION_MARGIN && cs->rules[0].hard_margin == 0.5);
    CHECK(cs->rule_count == 1 && cs->rules[0].left[0].whole_object && !cs->rules[0].right[0].whole_object);
    wk_store_close(w, false, false);

    wk_buf before = ows_state(api, "w");
    OWS_EXPECT(api, "UpdateCollisionSettings", "{'worldId':'w','collisionSettings':{'minimumMargin':-1}}",
               WK_GRPC_INVALID_ARGUMENT, "UpdateCollisionSettings of world 'w': ");
    OWS_EXPECT(api, "UpdateCollisionSettings",
               "{'worldId':'w','collisionSettings':{'collisionRules':[{'left':[{'object':{'byName':{'objectName':"
               "'first_name'}}}]}]}}",
               WK_GRPC_INVALID_ARGUMENT, "collision rule 0: the collision action is neither");
    OWS_EXPECT(api, "UpdateCollisionSettings",
               "{'worldId':'w','collisionSettings':{'collisionRules':[{'left':[{'object':{'byName':{'objectName':"
               "'ghost'}}}],'collisionAction':{'isExcluded':true}}]}}",
               WK_GRPC_NOT_FOUND, "collision rule 0: left 0: ");
    OWS_EXPECT(api, "UpdateCollisionSettings", "{'worldId':'w'}", WK_GRPC_INVALID_ARGUMENT,
               "collision_settings is not set");
    CHECK(ows_unchanged(api, "w", &before));
    wk_api_free(api);
}

static void toggle_collisions(void)
{
    wk_api *api = two_objects();
    REQUIRE(api);
    const char *disable = "{'worldId':'w','toggleMode':'TOGGLE_MODE_DISABLE','view':'FULL',"
                          "'objectA':{'reference':{'byName':{'objectName':'first_name'}}},"
                          "'objectB':{'reference':{'byName':{'objectName':'other'}}}}";
    OWS_EXPECT(api, "ToggleCollisions", disable, WK_GRPC_OK, "{'objects':[{'worldId':'w'");
    wk_world *w;
    wk_status st;
    REQUIRE_INT(wk_store_open(wk_api_store(api), "w", false, &w, &st), ==, WK_OK);
    wk_scene *s = wk_world_scene(w);
    wk_entity a, b;
    REQUIRE_INT(wk_scene_find_object(s, &(wk_ref){.object_name = "first_name"}, &a, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_find_object(s, &(wk_ref){.object_name = "other"}, &b, &st), ==, WK_OK);
    CHECK(wk_scene_collisions_excluded(s, a, b));
    wk_store_close(w, false, false);
    /* Disabling again is a no-op; refusals change nothing either. */
    wk_buf before = ows_state(api, "w");
    OWS_EXPECT(api, "ToggleCollisions", disable, WK_GRPC_OK, NULL);
    OWS_EXPECT(api, "ToggleCollisions",
               "{'worldId':'w','objectA':{'reference':{'byName':{'objectName':'first_name'}}},"
               "'objectB':{'reference':{'byName':{'objectName':'other'}}}}",
               WK_GRPC_INVALID_ARGUMENT, "ToggleCollisions between 'first_name' and 'other': ");
    OWS_EXPECT(api, "ToggleCollisions",
               "{'worldId':'w','toggleMode':'TOGGLE_MODE_ENABLE','objectA':{'reference':{'byName':{'objectName':"
               "'first_name'}}},'objectB':{'reference':{'byName':{'objectName':'nobody'}}}}",
               WK_GRPC_NOT_FOUND, "ToggleCollisions: object_b: ");
    OWS_EXPECT(api, "ToggleCollisions",
               "{'worldId':'w','toggleMode':'TOGGLE_MODE_ENABLE','objectA':{'reference':{'byName':{'objectName':"
               "'first_name'}},'entityFilter':{'entityNames':['nothing']}},"
               "'objectB':{'reference':{'byName':{'objectName':'other'}}}}",
               WK_GRPC_NOT_FOUND, "ToggleCollisions: object_a: ");
    CHECK(ows_unchanged(api, "w", &before));
    /* Enabled again: the rule goes. */
    OWS_EXPECT(api, "ToggleCollisions",
               "{'worldId':'w','toggleMode':'TOGGLE_MODE_ENABLE','objectA':{'reference':{'byName':{'objectName':"
               "'other'}}},'objectB':{'reference':{'byName':{'objectName':'first_name'}}}}",
               WK_GRPC_OK, "'name':'other'");
    REQUIRE_INT(wk_store_open(wk_api_store(api), "w", false, &w, &st), ==, WK_OK);
    CHECK(!wk_scene_collisions_excluded(wk_world_scene(w), a, b));
    wk_store_close(w, false, false);
    /* All entities, Intrinsic's client's default filter, with a frame on
     * each object: the frames are skipped, not refused. */
    OWS_EXPECT(api, "CreateFrame", "{'worldId':'w','newFrameName':'grip','parentObject':{'byName':{'objectName':'other'}}}",
               WK_GRPC_OK, NULL);
    OWS_EXPECT(api, "CreateFrame",
               "{'worldId':'w','newFrameName':'mark','parentObject':{'byName':{'objectName':'first_name'}}}", WK_GRPC_OK,
               NULL);
    OWS_EXPECT(api, "ToggleCollisions",
               "{'worldId':'w','toggleMode':'TOGGLE_MODE_DISABLE',"
               "'objectA':{'reference':{'byName':{'objectName':'first_name'}},'entityFilter':{'includeAllEntities':true}},"
               "'objectB':{'reference':{'byName':{'objectName':'other'}},'entityFilter':{'includeAllEntities':true}}}",
               WK_GRPC_OK, "'name':'other'");
    REQUIRE_INT(wk_store_open(wk_api_store(api), "w", false, &w, &st), ==, WK_OK);
    CHECK(wk_scene_collisions_excluded(wk_world_scene(w), a, b));
    wk_store_close(w, false, false);
    /* A filter that picks a frame alone picks nothing that collides. */
    OWS_EXPECT(api, "ToggleCollisions",
               "{'worldId':'w','toggleMode':'TOGGLE_MODE_ENABLE',"
               "'objectA':{'reference':{'byName':{'objectName':'first_name'}},'entityFilter':{'entityNames':['mark']}},"
               "'objectB':{'reference':{'byName':{'objectName':'other'}}}}",
               WK_GRPC_INVALID_ARGUMENT, "selects no entity of object 'first_name' but frames");
    wk_api_free(api);
}

static bool count_write(void *ctx, const uint8_t *msg, size_t len)
{
    (void)msg, (void)len;
    ++*(int *)ctx;
    return true;
}

/* What a transport sees (wk_api_invoke by full path): the mutation's code
 * as the gRPC status with its message, and one message only when OK. */
static void through_invoke(void)
{
    wk_api *api = two_objects();
    REQUIRE(api);
    static const char *const requests[2] = {
        "{'worldId':'w','worldUpdates':{'updates':[{'deleteObject':{'object':{'byName':{'objectName':'other'}}}},"
        "{'deleteObject':{'object':{'byName':{'objectName':'other'}}}}]}}",
        "{'worldId':'w','worldUpdates':{'updates':[{'deleteObject':{'object':{'byName':{'objectName':'other'}}}}]}}",
    };
    const int want[2] = {WK_GRPC_NOT_FOUND, WK_GRPC_OK};
    wk_json_method m;
    wk_status st;
    REQUIRE_INT(wk_json_find_method("UpdateWorldResources", &m, &st), ==, WK_OK);
    for (int i = 0; i < 2; i++) {
        char *text = ows_quotes(requests[i]);
        wk_buf bytes = {0};
        REQUIRE_INT(wk_json_to_bytes(m.input, text, strlen(text), NULL, &bytes, &st), ==, WK_OK);
        free(text);
        int writes = 0;
        wk_api_sink sink = {.write = count_write, .ctx = &writes};
        CHECK_INT(wk_api_invoke(api, "/intrinsic_proto.world.ObjectWorldService/UpdateWorldResources", bytes.data,
                                bytes.len, &sink),
                  ==, want[i]);
        CHECK_INT(writes, ==, want[i] == WK_GRPC_OK);
        if (want[i])
            CHECK(strstr(sink.message, "update 1 (delete_object): ") != NULL);
        wk_buf_free(&bytes);
    }
    CHECK(!has_object(api, "other") && has_object(api, "first_name"));
    wk_api_free(api);
}

/* With the store on disk, what a mutation answered OK for is there after
 * the store is reopened, and what a batch refused is not. */
static void durable(void)
{
    char dir[] = "/tmp/wk_ows_batch_XXXXXX";
    REQUIRE(mkdtemp(dir));
    wk_api *api = wk_api_new();
    REQUIRE(api);
    wk_status st;
    wk_store_free(api->store);
    api->store = NULL;
    REQUIRE_INT(wk_store_open_dir(dir, &api->store, &st), ==, WK_OK);
    REQUIRE(ows_world(api));
    OWS_EXPECT(api, "CreateObject", "{'worldId':'w','name':'kept','createSingleEntityObject':{'geometryComponent':" BOX "}}",
               WK_GRPC_OK, NULL);
    OWS_EXPECT(api, "UpdateWorldResources",
               "{'worldId':'w','worldUpdates':{'updates':[{'updateObjectName':{'object':{'byName':{'objectName':"
               "'kept'}},'name':'gone'}},{'deleteObject':{'object':{'byName':{'objectName':'nobody'}}}}]}}",
               WK_GRPC_NOT_FOUND, "update 1 (delete_object)");
    OWS_EXPECT(api, "UpdateTransform",
               "{'worldId':'w','nodeA':{'id':'root'},'nodeB':{'byName':{'object':{'objectName':'kept'}}},"
               "'aTB':{'position':{'z':2}}}",
               WK_GRPC_OK, NULL);
    wk_store_free(api->store);
    api->store = NULL;
    REQUIRE_INT(wk_store_open_dir(dir, &api->store, &st), ==, WK_OK);
    CHECK(has_object(api, "kept") && !has_object(api, "gone"));
    wk_world *w;
    REQUIRE_INT(wk_store_open(wk_api_store(api), "w", false, &w, &st), ==, WK_OK);
    wk_entity kept;
    REQUIRE_INT(wk_scene_find_object(wk_world_scene(w), &(wk_ref){.object_name = "kept"}, &kept, &st), ==, WK_OK);
    CHECK_NEAR(wk_scene_pose(wk_world_scene(w), kept).p.z, 2, 1e-12);
    wk_store_close(w, false, false);
    wk_api_free(api);
    char db[sizeof dir + 32];
    const char *files[] = {"worlds.db", "worlds.db-wal", "worlds.db-shm"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(db, sizeof db, "%s/%s", dir, files[i]);
        remove(db);
    }
    CHECK_INT(rmdir(dir), ==, 0);
}

static const wk_test_case cases[] = {
    {"durable", durable},
    {"through_invoke", through_invoke},
    {"rename_then_rename", rename_then_rename},
    {"answer", answer},
    {"all_or_nothing", all_or_nothing},
    {"collision_settings", collision_settings},
    {"toggle_collisions", toggle_collisions},
};
WK_TEST_MAIN(cases)
