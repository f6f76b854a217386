/* triangle_mesh.h — an OBJ or STL file's bytes read once by assimp into
 * what GeometryService serves of it (triangle_mesh.c); mesh_cache.c keeps
 * the result. */
#ifndef WK_API_OWS_TRIANGLE_MESH_H
#define WK_API_OWS_TRIANGLE_MESH_H

#include "api/ows/ows.h"
#include "intrinsic/geometry/proto/triangle_mesh.pb-c.h"

/* What one read of a mesh file gives: owned, freed by
 * wk__parsed_mesh_free. */
typedef struct wk__parsed_mesh {
    wk_buf triangles; /* intrinsic_proto.geometry.TriangleMesh, packed */
    wk_buf glb;       /* the same triangles as assimp writes a binary glTF 2.0 */
    wk_vec3 lo, hi;   /* the axis-aligned box the vertices fill */
} wk__parsed_mesh;

/* Reads file, an "obj" or "stl" (binary or ASCII) file as format says,
 * into *out. A file assimp cannot read, or that holds no triangle or a
 * vertex that is not a finite point, fails WK_INVALID naming what (as
 * "data.obj_data") and assimp's reason; *out then holds nothing. */
int wk__triangle_mesh_parse(const ProtobufCBinaryData *file, const char *format, const char *what,
                            wk__parsed_mesh *out, wk_status *st);
void wk__parsed_mesh_free(wk__parsed_mesh *m);

/* How many files assimp has read for wk__triangle_mesh_parse since the
 * process began, failed reads included: what a test counts to see that a
 * mesh is read once. */
unsigned long wk__triangle_mesh_parses(void);

#endif
