/* test_ows_footprints.c — ObjectWorldService's AreFootprintsCompatible
 * through the method table: reads and writes of objects and frames, the
 * completion of permissions (ancestors read, descendants written) and
 * skip_missing_permissions, lock_the_universe, the resource sharing types,
 * the first pair or all of them, and the refusals (unknown object, frame or
 * world, volume reservations, unknown sharing type) naming the
 * reservation. */
#include "api/ows_client.h"

#define BOX OWS_SHAPE("'box':{'size':{'x':1,'y':1,'z':1}}")

/* World "w": table, cup on table, a frame "edge" of table, and robot. */
static wk_api *workcell(void)
{
    wk_api *api = wk_api_new();
    bool ok = api && ows_world(api) &&
              OWS_EXPECT(api, "CreateObject",
                         "{'worldId':'w','name':'table','createSingleEntityObject':{'geometryComponent':" BOX "}}",
                         WK_GRPC_OK, NULL) &&
              OWS_EXPECT(api, "CreateObject",
                         "{'worldId':'w','name':'cup','parentObject':{'reference':{'byName':{'objectName':'table'}}},"
                         "'createSingleEntityObject':{'geometryComponent':" BOX "}}",
                         WK_GRPC_OK, NULL) &&
              OWS_EXPECT(api, "CreateObject",
                         "{'worldId':'w','name':'robot','createSingleEntityObject':{'geometryComponent':" BOX "}}",
                         WK_GRPC_OK, NULL) &&
              OWS_EXPECT(api, "CreateFrame",
                         "{'worldId':'w','newFrameName':'edge','parentObject':{'byName':{'objectName':'table'}}}",
                         WK_GRPC_OK, NULL);
    if (!ok) {
        wk_api_free(api);
        return NULL;
    }
    return api;
}

/* Footprints as JSON: one object or frame reservation, with the
 * permissions completed or (_ONLY) not. */
#define OBJECT_RESERVATION(type, name) "{'type':'" type "','object':{'objectName':'" name "'}}"
#define FRAME_RESERVATION(type, object, frame) \
    "{'type':'" type "','frame':{'objectName':'" object "','frameName':'" frame "'}}"
#define HOLDING(reservation) "{'objectReservation':[" reservation "]}"
#define HOLDING_ONLY(reservation) "{'skipMissingPermissions':true,'objectReservation':[" reservation "]}"
#define OBJ(type, name) HOLDING(OBJECT_RESERVATION(type, name))
#define OBJ_ONLY(type, name) HOLDING_ONLY(OBJECT_RESERVATION(type, name))
#define FRAME(type, object, frame) HOLDING(FRAME_RESERVATION(type, object, frame))
#define FRAME_ONLY(type, object, frame) HOLDING_ONLY(FRAME_RESERVATION(type, object, frame))
#define RESOURCE(type, name) "{'resourceReservation':[{'type':'" type "','name':'" name "'}]}"
#define UNIVERSE "{'lockTheUniverse':true}"

/* AreFootprintsCompatible of the footprints left and right (JSON) in world
 * "w", all pairs asked for: its status, and in *pairs how many pairs it
 * answered, checking that the answer holds needle (when not NULL; its
 * quotes as they are: the reasons quote names with ''). */
static int compatible(wk_api *api, const char *left, const char *right, const char *needle, int *pairs)
{
    char json[2048];
    snprintf(json, sizeof json, "{'worldId':'w','leftSet':[%s],'rightSet':[%s],'returnAllIncompatiblePairs':true}",
             left, right);
    ows_answer a;
    int status = ows_call(api, "AreFootprintsCompatible", json, &a);
    *pairs = 0;
    for (const char *p = a.json.data ? (const char *)a.json.data : ""; (p = strstr(p, "\"reason\"")); p++)
        ++*pairs;
    if (status == WK_GRPC_OK && needle && *pairs && !CHECK(strstr((const char *)a.json.data, needle) != NULL))
        fprintf(stderr, "    no %s in %s\n", needle, (const char *)a.json.data);
    wk_buf_free(&a.json);
    return status;
}

/* Whether the one left and one right footprint are compatible, with
 * needle in the reason when they are not. */
static bool compatible_pair(wk_api *api, const char *left, const char *right, const char *needle)
{
    int pairs = -1;
    CHECK_INT(compatible(api, left, right, needle, &pairs), ==, WK_GRPC_OK);
    return pairs == 0;
}

static void objects_and_frames(void)
{
    wk_api *api = workcell();
    REQUIRE(api);
    CHECK(compatible_pair(api, OBJ("READ", "table"), OBJ("READ", "table"), NULL));
    CHECK(!compatible_pair(api, OBJ("WRITE", "table"), OBJ("READ", "table"),
                           "both hold entity 'table' of object 'table': left_set[0] writes it, right_set[0] reads it"));
    CHECK(!compatible_pair(api, OBJ("WRITE", "robot"), OBJ("WRITE", "robot"), "robot"));
    /* Type defaults to WRITE (its zero). */
    CHECK(!compatible_pair(api, "{'objectReservation':[{'object':{'objectName':'robot'}}]}", OBJ("READ", "robot"),
                           "writes"));
    CHECK(compatible_pair(api, OBJ("WRITE", "robot"), OBJ("WRITE", "table"), NULL));
    CHECK(compatible_pair(api, FRAME("WRITE", "table", "edge"), FRAME("READ", "table", "edge"), NULL) == false);
    CHECK(compatible_pair(api, FRAME("READ", "table", "edge"), FRAME("READ", "table", "edge"), NULL));
    wk_api_free(api);
}

static void completed_permissions(void)
{
    wk_api *api = workcell();
    REQUIRE(api);
    /* Writing table writes what hangs from it: cup and the frame edge. */
    CHECK(!compatible_pair(api, OBJ("WRITE", "table"), OBJ_ONLY("READ", "cup"), "entity 'cup' of object 'cup'"));
    CHECK(!compatible_pair(api, OBJ("WRITE", "table"), FRAME_ONLY("READ", "table", "edge"), "entity 'edge'"));
    /* Reading cup reads table, its parent; so a writer of table conflicts
     * even when it skips its own completion. */
    CHECK(!compatible_pair(api, OBJ_ONLY("WRITE", "table"), OBJ("READ", "cup"), "entity 'table'"));
    /* Skipped on both sides: table's own entities and cup's are apart. */
    CHECK(compatible_pair(api, OBJ_ONLY("WRITE", "table"), OBJ_ONLY("READ", "cup"), NULL));
    CHECK(compatible_pair(api, OBJ_ONLY("WRITE", "table"), FRAME_ONLY("WRITE", "table", "edge"), NULL) == false);
    /* Siblings written at once share only reads of their parent (root). */
    CHECK(compatible_pair(api, OBJ("WRITE", "cup"), FRAME("WRITE", "table", "edge"), NULL));
    CHECK(compatible_pair(api, OBJ("WRITE", "cup"), OBJ("WRITE", "robot"), NULL));
    wk_api_free(api);
}

static void universe(void)
{
    wk_api *api = workcell();
    REQUIRE(api);
    CHECK(!compatible_pair(api, UNIVERSE, OBJ("READ", "robot"), "left_set[0] locks the universe"));
    CHECK(!compatible_pair(api, FRAME("READ", "table", "edge"), UNIVERSE, "right_set[0] locks the universe"));
    CHECK(!compatible_pair(api, UNIVERSE, UNIVERSE, "locks the universe"));
    CHECK(compatible_pair(api, UNIVERSE, "{}", NULL));
    CHECK(compatible_pair(api, UNIVERSE, RESOURCE("WRITE", "gripper"), NULL));
    /* The universe's own object and volume reservations are ignored: a
     * volume refused elsewhere is not here, nor a name the world lacks. */
    CHECK(compatible_pair(api,
                          "{'lockTheUniverse':true,'volume':[{'shape':{}}],"
                          "'objectReservation':[{'object':{'objectName':'nothing'}}]}",
                          "{}", NULL));
    wk_api_free(api);
}

static void resources(void)
{
    wk_api *api = workcell();
    REQUIRE(api);
    static const struct {
        const char *a, *b;
        bool compatible;
    } table[] = {
        {"WRITE", "READ", false},
        {"WRITE", "WRITE_NONEXCLUSIVE", false},
        {"READ", "READ", true},
        {"READ", "WRITE_NONEXCLUSIVE", true},
        {"READ", "WRITE_EXCLUSIVE_READ_NONEXCLUSIVE", true},
        {"WRITE_EXCLUSIVE_READ_NONEXCLUSIVE", "WRITE_EXCLUSIVE_READ_NONEXCLUSIVE", false},
        {"WRITE_EXCLUSIVE_READ_NONEXCLUSIVE", "WRITE_NONEXCLUSIVE", false},
        {"WRITE_EXCLUSIVE_READ_NONEXCLUSIVE", "UNSPECIFIED", false},
        {"WRITE_NONEXCLUSIVE", "WRITE_NONEXCLUSIVE", true},
        {"UNSPECIFIED", "WRITE_NONEXCLUSIVE", true},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        char a[256], b[256];
        snprintf(a, sizeof a, "{'resourceReservation':[{'type':'%s','name':'gripper'}]}", table[i].a);
        snprintf(b, sizeof b, "{'resourceReservation':[{'type':'%s','name':'gripper'}]}", table[i].b);
        for (int swap = 0; swap < 2; swap++)
            if (!CHECK(compatible_pair(api, swap ? b : a, swap ? a : b, "both hold resource 'gripper'") ==
                       table[i].compatible))
                fprintf(stderr, "    %s with %s\n", table[i].a, table[i].b);
    }
    CHECK(compatible_pair(api, RESOURCE("WRITE", "gripper"), RESOURCE("WRITE", "camera"), NULL));
    wk_api_free(api);
}

static void first_or_all_pairs(void)
{
    wk_api *api = workcell();
    REQUIRE(api);
    const char *sets = "'leftSet':[" OBJ("WRITE", "robot") "," OBJ("READ", "cup") "],"
                       "'rightSet':[" OBJ("READ", "table") "," OBJ("READ", "robot") "," OBJ("WRITE", "cup") "]";
    char json[2048];
    snprintf(json, sizeof json, "{'worldId':'w',%s,'returnAllIncompatiblePairs':true}", sets);
    /* robot/robot (0,1) and cup/cup (1,2) conflict; the rest do not. */
    CHECK(OWS_EXPECT(api, "AreFootprintsCompatible", json, WK_GRPC_OK,
                     "'pairs':[{'leftIndex':0,'rightIndex':1,'reason':{'code':9,"));
    CHECK(OWS_EXPECT(api, "AreFootprintsCompatible", json, WK_GRPC_OK, "{'leftIndex':1,'rightIndex':2,"));
    CHECK(OWS_EXPECT(api, "AreFootprintsCompatible", json, WK_GRPC_OK, "'worldId':'w'"));
    int pairs;
    CHECK_INT(compatible(api, OBJ("WRITE", "robot") "," OBJ("READ", "cup"),
                         OBJ("READ", "table") "," OBJ("READ", "robot") "," OBJ("WRITE", "cup"), NULL, &pairs),
              ==, WK_GRPC_OK);
    CHECK_INT(pairs, ==, 2);
    snprintf(json, sizeof json, "{'worldId':'w',%s}", sets);
    ows_answer a;
    CHECK_INT(ows_call(api, "AreFootprintsCompatible", json, &a), ==, WK_GRPC_OK);
    CHECK(ows_has(&a, "'rightIndex':1"));
    CHECK(a.json.data && !strstr((const char *)a.json.data, "\"rightIndex\": 2") &&
          !strstr((const char *)a.json.data, "\"rightIndex\":2"));
    wk_buf_free(&a.json);
    CHECK(OWS_EXPECT(api, "AreFootprintsCompatible", "{'worldId':'w'}", WK_GRPC_OK, "'worldId':'w'"));
    wk_api_free(api);
}

static void refusals(void)
{
    wk_api *api = workcell();
    REQUIRE(api);
    wk_buf before = ows_state(api, "w");
    CHECK(OWS_EXPECT(api, "AreFootprintsCompatible",
                     "{'worldId':'w','leftSet':[{}, " OBJ("READ", "nothing") "],'rightSet':[{}]}", WK_GRPC_NOT_FOUND,
                     "left_set[1].object_reservation[0]: "));
    CHECK(OWS_EXPECT(api, "AreFootprintsCompatible",
                     "{'worldId':'w','leftSet':[{}],'rightSet':[" FRAME("READ", "table", "nothing") "]}",
                     WK_GRPC_NOT_FOUND, "right_set[0].object_reservation[0]: "));
    CHECK(OWS_EXPECT(api, "AreFootprintsCompatible",
                     "{'worldId':'w','leftSet':[{'objectReservation':[{'type':'READ'}]}],'rightSet':[{}]}",
                     WK_GRPC_INVALID_ARGUMENT, "neither an object nor a frame"));
    CHECK(OWS_EXPECT(api, "AreFootprintsCompatible",
                     "{'worldId':'w','leftSet':[{}],'rightSet':[{'volume':[{'shape':{}}]}]}", WK_GRPC_INVALID_ARGUMENT,
                     "right_set[0].volume[0]: volume reservations are not checked"));
    CHECK(OWS_EXPECT(api, "AreFootprintsCompatible", "{'worldId':'nowhere','leftSet':[{}],'rightSet':[{}]}",
                     WK_GRPC_NOT_FOUND, "nowhere"));
    CHECK(OWS_EXPECT(api, "AreFootprintsCompatible", "{'leftSet':[{}]}", WK_GRPC_INVALID_ARGUMENT, "world_id"));
    CHECK(ows_unchanged(api, "w", &before));
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"objects_and_frames", objects_and_frames},
    {"completed_permissions", completed_permissions},
    {"universe", universe},
    {"resources", resources},
    {"first_or_all_pairs", first_or_all_pairs},
    {"refusals", refusals},
};

WK_TEST_MAIN(cases)
