/* geometry.c — what GeometryService costs on a mesh file of 80,000
 * triangles (a 200 x 200 grid of squares, each two triangles, as a binary
 * STL), through wk_api_invoke as the gRPC server calls it:
 *   geometry.create_ms          ms, CreateGeometry: the file read by assimp, its triangle mesh, glb and box made
 *   geometry.get_ms             ms, GetGeometry of it, the mean of 20
 *   geometry.get_renderable_ms  ms, GetRenderable of it, the mean of 20
 *   geometry.bounds_us          us, GetEntityBounds of an object whose shape is it, the mean of 200
 * The first is what every Get used to cost, when each call read the file
 * again; the Gets are copies of what that one read made. The bounds are of
 * the box kept of it: the stored data is neither read nor unpacked again. */
#define BENCH_NAME "bench/geometry"
#include <stdint.h>
#include <string.h>

#include "bench.h"
#include "invoke.h"
#include "intrinsic/geometry/proto/geometry_service.pb-c.h"
#include "intrinsic/world/proto/object_world_service.pb-c.h"
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_api.h"

#define SIDE 200
#define GS "/intrinsic_proto.geometry.GeometryService/"
#define GETS 20
#define BOUNDS 200

/* A binary STL: 80 bytes of header, the count, then per triangle a normal,
 * three corners and two bytes of attributes. */
static wk_buf grid_stl(void)
{
    wk_buf stl = {0};
    uint8_t header[80] = {0};
    uint32_t count = 2 * SIDE * SIDE;
    int rc = wk_buf_append(&stl, header, sizeof header) | wk_buf_append(&stl, &count, sizeof count);
    for (int i = 0; i < SIDE && rc == WK_OK; i++)
        for (int j = 0; j < SIDE && rc == WK_OK; j++) {
            float x = (float)i, y = (float)j;
            float t[2][12] = {{0, 0, 1, x, y, 0, x + 1, y, 0, x + 1, y + 1, 0},
                              {0, 0, 1, x, y, 0, x + 1, y + 1, 0, x, y + 1, 0}};
            uint16_t attributes = 0;
            for (int k = 0; k < 2 && rc == WK_OK; k++)
                rc = wk_buf_append(&stl, t[k], sizeof t[k]) | wk_buf_append(&stl, &attributes, sizeof attributes);
        }
    if (rc)
        die("out of memory");
    return stl;
}

/* The mean time of GetEntityBounds of an object "grid" made, in the
 * current world, of the mesh registered as ref, in microseconds. */
static double bounds_us(wk_api *api, const char *ref, wk_buf *out)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"worldId\":\"world\",\"name\":\"grid\",\"createSingleEntityObject\":{\"geometryComponent\":{"
             "\"namedGeometries\":{\"Intrinsic_Collision\":{\"namedGeometries\":{\"shape\":{\"geometry\":{"
             "\"geoRef\":{\"exactGeometryRef\":\"%s\"}}}}}}}}}",
             ref);
    wk_buf bytes = {0};
    wk_status st;
    const ProtobufCMessageDescriptor *d = &intrinsic_proto__world__create_object_request__descriptor;
    ProtobufCMessage *create = wk_json_to_bytes(d, json, strlen(json), NULL, &bytes, &st)
                                   ? NULL
                                   : protobuf_c_message_unpack(d, NULL, bytes.len, bytes.data);
    wk_buf_free(&bytes);
    if (!create)
        die("CreateObject request: %s", st.message);
    bench_invoke(api, NULL, "/intrinsic_proto.world.ObjectWorldService/CreateObject", create, out, true);
    protobuf_c_message_free_unpacked(create, NULL);
    SimulationInterfaces__GetEntityBoundsRequest req = SIMULATION_INTERFACES__GET_ENTITY_BOUNDS_REQUEST__INIT;
    req.entity = "grid";
    double ms = 0;
    for (int i = 0; i < BOUNDS; i++)
        ms += bench_invoke(api, NULL, "/simulation_interfaces.SimulationInterfaces/GetEntityBounds", &req.base, out,
                           true);
    return ms * 1e3 / BOUNDS;
}

int main(void)
{
    wk_api *api = wk_api_new();
    if (!api)
        die("out of memory");
    wk_buf stl = grid_stl(), out = {0};
    IntrinsicProto__Geometry__GeometryData data = INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__INIT;
    data.data_case = INTRINSIC_PROTO__GEOMETRY__GEOMETRY_DATA__DATA_STL_BYTES;
    data.stl_bytes = (ProtobufCBinaryData){stl.len, stl.data};
    IntrinsicProto__Geometry__CreateGeometryRequest create = INTRINSIC_PROTO__GEOMETRY__CREATE_GEOMETRY_REQUEST__INIT;
    create.data = &data;
    printf("bench geometry.create_ms %.1f ms\n",
           bench_invoke(api, NULL, GS "CreateGeometry", &create.base, &out, true));
    IntrinsicProto__Geometry__GeometryWithMetadata *made =
        intrinsic_proto__geometry__geometry_with_metadata__unpack(NULL, out.len, out.data);
    if (!made || !made->geometry_storage_refs)
        die("CreateGeometry answered no refs");
    IntrinsicProto__Geometry__GetGeometryRequest get = INTRINSIC_PROTO__GEOMETRY__GET_GEOMETRY_REQUEST__INIT;
    get.geometry_storage_refs = made->geometry_storage_refs;
    IntrinsicProto__Geometry__GetRenderableRequest glb = INTRINSIC_PROTO__GEOMETRY__GET_RENDERABLE_REQUEST__INIT;
    glb.geometry_storage_refs = made->geometry_storage_refs;
    double get_ms = 0, glb_ms = 0;
    for (int i = 0; i < GETS; i++) {
        get_ms += bench_invoke(api, NULL, GS "GetGeometry", &get.base, &out, true);
        glb_ms += bench_invoke(api, NULL, GS "GetRenderable", &glb.base, &out, true);
    }
    printf("bench geometry.get_ms %.2f ms\n", get_ms / GETS);
    printf("bench geometry.get_renderable_ms %.2f ms\n", glb_ms / GETS);
    printf("bench geometry.bounds_us %.1f us\n", bounds_us(api, made->geometry_storage_refs->exact_geometry_ref, &out));
    intrinsic_proto__geometry__geometry_with_metadata__free_unpacked(made, NULL);
    wk_buf_free(&stl);
    wk_buf_free(&out);
    wk_api_free(api);
    return 0;
}
