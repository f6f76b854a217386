/* test_request_strings.c — requests whose strings hold a NUL byte, which
 * protobuf-c would cut short ("obj\0evil" read as "obj"): refused whole
 * through both services, by wk_api_invoke (INVALID_ARGUMENT naming the
 * field and what precedes the NUL) and wk_api_call (WK_PARSE), in top-level
 * and nested messages, with nothing created; the same requests without the
 * NUL, with zero bytes in their numbers, are served. */
#include <stdlib.h>
#include <string.h>

#include "api/api_call.h"
#include "intrinsic/world/proto/object_world_service.pb-c.h"
#include "wk_test.h"

#define SI "/simulation_interfaces.SimulationInterfaces/"
#define OWS "/intrinsic_proto.world.ObjectWorldService/"

/* A packed request, its first '#' turned into a NUL. */
typedef struct packed {
    uint8_t bytes[1024];
    size_t len;
} packed;

static void pack(const ProtobufCMessage *m, packed *out)
{
    out->len = protobuf_c_message_pack(m, out->bytes);
    uint8_t *mark = memchr(out->bytes, '#', out->len);
    if (mark)
        *mark = '\0';
}

static bool ignore(void *ctx, const uint8_t *msg, size_t len)
{
    (void)ctx, (void)msg, (void)len;
    return true;
}

/* wk_api_invoke's status, its message copied to msg. */
static int invoke(wk_api *api, const char *method, const packed *p, char *msg)
{
    wk_api_sink sink = {.write = ignore};
    int status = wk_api_invoke(api, method, p->bytes, p->len, &sink);
    snprintf(msg, WK_STATUS_MSG_MAX, "%s", sink.message);
    return status;
}

static void entities_are(wk_api *api, const char *want)
{
    SimulationInterfaces__GetEntitiesRequest req = SIMULATION_INTERFACES__GET_ENTITIES_REQUEST__INIT;
    SimulationInterfaces__GetEntitiesResponse *resp = (SimulationInterfaces__GetEntitiesResponse *)call_service(
        api, "GetEntities", &req.base, &simulation_interfaces__get_entities_response__descriptor);
    char got[256] = "";
    for (size_t i = 0; resp && i < resp->n_entities; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", resp->entities[i]);
    CHECK_STR(got, want);
    free_response(resp);
}

static void spawn_names_and_uris(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, BOX_WORLD), ==, WK_RESULT_OK);
    /* A pose at the origin, set: its doubles are zero bytes on the wire. */
    SimulationInterfaces__Point origin = SIMULATION_INTERFACES__POINT__INIT;
    origin.has_x = origin.has_y = origin.has_z = true;
    SimulationInterfaces__Pose pose = SIMULATION_INTERFACES__POSE__INIT;
    pose.position = &origin;
    SimulationInterfaces__PoseStamped stamped = SIMULATION_INTERFACES__POSE_STAMPED__INIT;
    stamped.pose = &pose;
    SimulationInterfaces__Resource resource = SIMULATION_INTERFACES__RESOURCE__INIT;
    resource.resource_string = "<sdf version='1.9'><model name='m'><link name='l'/></model></sdf>";
    SimulationInterfaces__SpawnEntityRequest req = SIMULATION_INTERFACES__SPAWN_ENTITY_REQUEST__INIT;
    req.name = "obj#evil";
    req.entity_resource = &resource;
    req.initial_pose = &stamped;
    packed p;
    char msg[WK_STATUS_MSG_MAX];
    pack(&req.base, &p);
    CHECK_INT(invoke(api, SI "SpawnEntity", &p, msg), ==, WK_GRPC_INVALID_ARGUMENT);
    if (!CHECK(strstr(msg, "simulation_interfaces.SpawnEntityRequest.name holds a NUL byte after 'obj'")))
        fprintf(stderr, "    %s\n", msg);
    wk_buf out = {0};
    CHECK_INT(wk_api_call(api, "SpawnEntity", p.bytes, p.len, &out), ==, WK_PARSE);
    CHECK_INT(out.len, ==, 0);
    entities_are(api, "box");
    /* In a nested message: the resource's uri. */
    req.name = "obj";
    resource.resource_string = NULL;
    resource.uri = "box.sdf#/../../etc/passwd";
    pack(&req.base, &p);
    CHECK_INT(invoke(api, SI "SpawnEntity", &p, msg), ==, WK_GRPC_INVALID_ARGUMENT);
    if (!CHECK(strstr(msg, "simulation_interfaces.Resource.uri holds a NUL byte after 'box.sdf'")))
        fprintf(stderr, "    %s\n", msg);
    entities_are(api, "box");
    /* Without the NUL the same request is served. */
    resource.uri = NULL;
    resource.resource_string = "<sdf version='1.9'><model name='m'><link name='l'/></model></sdf>";
    req.name = "obj_evil";
    pack(&req.base, &p);
    CHECK_INT(invoke(api, SI "SpawnEntity", &p, msg), ==, WK_GRPC_OK);
    entities_are(api, "box obj_evil");
    wk_buf_free(&out);
    wk_api_free(api);
}

static void world_ids(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    IntrinsicProto__World__WorldMetadata meta = INTRINSIC_PROTO__WORLD__WORLD_METADATA__INIT;
    meta.id = "w#x";
    IntrinsicProto__World__World world = INTRINSIC_PROTO__WORLD__WORLD__INIT;
    world.world_metadata = &meta;
    IntrinsicProto__World__CreateWorldRequest req = INTRINSIC_PROTO__WORLD__CREATE_WORLD_REQUEST__INIT;
    req.world = &world;
    packed p;
    char msg[WK_STATUS_MSG_MAX];
    pack(&req.base, &p);
    CHECK_INT(invoke(api, OWS "CreateWorld", &p, msg), ==, WK_GRPC_INVALID_ARGUMENT);
    if (!CHECK(strstr(msg, "intrinsic_proto.world.WorldMetadata.id holds a NUL byte after 'w'")))
        fprintf(stderr, "    %s\n", msg);
    /* None but the endpoint's own, world and init_world. */
    wk_world_meta *metas = NULL;
    size_t n = 0;
    REQUIRE_INT(wk_store_list(wk_api_store(api), &metas, &n), ==, WK_OK);
    CHECK_INT(n, ==, 2);
    free(metas);
    meta.id = "w_x";
    pack(&req.base, &p);
    CHECK_INT(invoke(api, OWS "CreateWorld", &p, msg), ==, WK_GRPC_OK);
    wk_world_meta created;
    wk_status st;
    CHECK_INT(wk_store_meta(wk_api_store(api), "w_x", &created, &st), ==, WK_OK);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"spawn_names_and_uris", spawn_names_and_uris},
    {"world_ids", world_ids},
};
WK_TEST_MAIN(cases)
