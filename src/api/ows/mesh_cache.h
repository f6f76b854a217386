/* mesh_cache.h — the meshes GeometryService has read, and the boxes of
 * registered meshes an entity's bounds asked for, kept by fingerprint
 * (mesh_cache.c). */
#ifndef WK_API_OWS_MESH_CACHE_H
#define WK_API_OWS_MESH_CACHE_H

#include "api/ows/triangle_mesh.h"

/* The parts of a mesh a caller wants copied. */
enum { WK__MESH_TRIANGLES = 1, WK__MESH_GLB = 2 };

/* A mesh as a call holds it: the parts asked for, allocated in the call;
 * the box always. */
typedef struct wk__mesh_copy {
    ProtobufCBinaryData triangles; /* a packed TriangleMesh */
    ProtobufCBinaryData glb;
    wk_vec3 lo, hi;
} wk__mesh_copy;

/* The mesh of the registration fingerprint id copied into call (NULL
 * when only the box is asked for) from the cache: 1 when it is there, 0
 * when not (a restart, an eviction), or a wk error (what names the mesh). */
int wk__mesh_find(wk__call *call, const char *id, const char *what, unsigned parts, wk__mesh_copy *out, wk_status *st);

/* Appends the glb of id to out when the cache holds it: WK_OK,
 * WK_NOT_FOUND (not held, or no glb), WK_NOMEM. */
int wk__mesh_held_glb(const char *id, wk_buf *out);

/* Reads file (an "obj" or "stl" file as format says; what names its
 * field) with wk__triangle_mesh_parse, failing as it does, copies the
 * parts asked for into call and keeps the mesh under id for the next
 * wk__mesh_find. */
int wk__mesh_read(wk__call *call, const char *id, const ProtobufCBinaryData *file, const char *format,
                  const char *what, unsigned parts, wk__mesh_copy *out, wk_status *st);

/* The bounds box kept for the registration fingerprint id: whether there
 * is one (in lo, hi). */
bool wk__mesh_box_kept(const char *id, wk_vec3 *lo, wk_vec3 *hi);
/* Keeps lo, hi as the bounds box of id, when memory allows. */
void wk__mesh_box_keep(const char *id, wk_vec3 lo, wk_vec3 hi);

#endif
