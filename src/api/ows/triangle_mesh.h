/* triangle_mesh.h — an OBJ or STL file's bytes as Intrinsic's TriangleMesh
 * or as a binary glTF (triangle_mesh.c), for GeometryService. */
#ifndef WK_API_OWS_TRIANGLE_MESH_H
#define WK_API_OWS_TRIANGLE_MESH_H

#include "api/ows/ows.h"
#include "intrinsic/geometry/proto/triangle_mesh.pb-c.h"

/* The triangles of file, an "obj" or "stl" (binary or ASCII) file as
 * format says, into *out, allocated in the call. A file assimp cannot read,
 * or that holds no triangle or a vertex that is not a finite point, fails
 * WK_INVALID naming what (as "data.obj_data") and assimp's reason. */
int wk__triangle_mesh_read(wk__call *call, const ProtobufCBinaryData *file, const char *format, const char *what,
                           IntrinsicProto__Geometry__TriangleMesh **out, wk_status *st);

/* The same triangles written by assimp as a binary glTF 2.0 (glb) into
 * *glb, allocated in the call; fails as wk__triangle_mesh_read reading. */
int wk__triangle_mesh_glb(wk__call *call, const ProtobufCBinaryData *file, const char *format, const char *what,
                          ProtobufCBinaryData *glb, wk_status *st);

#endif
