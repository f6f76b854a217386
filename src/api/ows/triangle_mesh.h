/* triangle_mesh.h — an OBJ or STL file's bytes read once by assimp into
 * what GeometryService serves of it, and a triangle mesh given inline
 * checked and written as such a file (triangle_mesh.c); mesh_cache.c keeps
 * the result. */
#ifndef WK_API_OWS_TRIANGLE_MESH_H
#define WK_API_OWS_TRIANGLE_MESH_H

#include "api/ows/ows.h"
#include "intrinsic/geometry/proto/triangle_mesh.pb-c.h"
#include "intrinsic/geometry/proto/v1/triangle_mesh.pb-c.h"

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

/* A triangle mesh given inline (v1's TriangleMesh): whole triples of
 * finite coordinates and of indices naming its vertices, one triangle at
 * least; else WK_INVALID naming what and the first fault. */
int wk__triangle_mesh_check(const IntrinsicProto__Geometry__V1__TriangleMesh *m, const char *what, wk_status *st);
/* m, checked, as the text of an OBJ file appended to out, for assimp to
 * read as it reads a file given; WK_NOMEM. */
int wk__triangle_mesh_obj(const IntrinsicProto__Geometry__V1__TriangleMesh *m, wk_buf *out);
/* The box m's vertices (at least one) fill, exactly as given. */
void wk__triangle_mesh_box(const IntrinsicProto__Geometry__V1__TriangleMesh *m, wk_vec3 *lo, wk_vec3 *hi);

#endif
