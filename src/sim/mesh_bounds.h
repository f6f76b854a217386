/* mesh_bounds.h — the box a mesh file's vertices fill, read with Debian's
 * assimp, for the meshes the physics engine cannot take as they are and
 * for an entity's bounds (wk_sim_mesh_box, which keeps each file's box);
 * and the table of boxes by name that keeps them, which mesh_cache.c
 * uses too. */
#ifndef WK_SIM_MESH_BOUNDS_H
#define WK_SIM_MESH_BOUNDS_H

#include <stddef.h>

#include "base/hash_index.h"
#include "worldkit/wk_base.h"
#include "worldkit/wk_math.h"

/* The smallest box around every vertex of the file, in the file's own
 * axes and units (COLLADA's <unit> applied, its up axis not: SDFormat
 * places a mesh in the axes its file gives). WK_OK, or WK_INVALID with
 * the reader's reason in why when the file is not a mesh assimp reads or
 * holds no vertex. */
int wk__mesh_bounds(const char *file, wk_vec3 *lo, wk_vec3 *hi, char *why, size_t cap);

/* Boxes of meshes by name (a simulation's mesh files by path; registered
 * meshes by fingerprint, mesh_cache.c): each mesh's box, or why it has
 * none. Not locked: its owner's lock guards it. */
typedef struct wk__mesh_box {
    char *name;
    wk_vec3 lo, hi;
    char *why; /* NULL when the box was read */
} wk__mesh_box;
typedef struct wk__mesh_boxes {
    wk__mesh_box *boxes;
    size_t count, cap;
    wk__index by_name; /* the name's hash -> its box's position + 1 */
} wk__mesh_boxes;

/* The box kept under name, or NULL; valid until the next keep or free. */
const wk__mesh_box *wk__mesh_boxes_find(const wk__mesh_boxes *boxes, const char *name);
/* Keeps under name the box lo, hi, or (why not NULL) why there is none;
 * WK_OK or WK_NOMEM (nothing kept). */
int wk__mesh_boxes_keep(wk__mesh_boxes *boxes, const char *name, wk_vec3 lo, wk_vec3 hi, const char *why);
/* Frees every box, leaving an empty table. */
void wk__mesh_boxes_free(wk__mesh_boxes *boxes);

#endif
