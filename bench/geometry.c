/* geometry.c — what GeometryService costs on a mesh file of 80,000
 * triangles (a 200 x 200 grid of squares, each two triangles, as a binary
 * STL), through wk_api_invoke as the gRPC server calls it:
 *   geometry.create_ms          ms, CreateGeometry: the file read by assimp, its triangle mesh, glb and box made
 *   geometry.get_ms             ms, GetGeometry of it, the mean of 20
 *   geometry.get_renderable_ms  ms, GetRenderable of it, the mean of 20
 * The first is what every Get used to cost, when each call read the file
 * again; the others are copies of what that one read made. */
#define BENCH_NAME "bench/geometry"
#include <stdint.h>
#include <string.h>

#include "bench.h"
#include "invoke.h"
#include "intrinsic/geometry/proto/geometry_service.pb-c.h"
#include "worldkit/wk_api.h"

#define SIDE 200
#define GS "/intrinsic_proto.geometry.GeometryService/"
#define GETS 20

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
    intrinsic_proto__geometry__geometry_with_metadata__free_unpacked(made, NULL);
    wk_buf_free(&stl);
    wk_buf_free(&out);
    wk_api_free(api);
    return 0;
}
