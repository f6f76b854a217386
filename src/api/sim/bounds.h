/* bounds.h — collision geometry as bounds, and overlap with a region
 * (bounds.c); the Bounds message read and written (entity_filters.c). */
#ifndef WK_API_BOUNDS_H
#define WK_API_BOUNDS_H

#include "api/api_internal.h"

/* msg/Bounds' types, same numbers. */
enum {
    WK_BOUNDS_TYPE_EMPTY = 0,
    WK_BOUNDS_TYPE_BOX = 1,
    WK_BOUNDS_TYPE_CONVEX_HULL = 2,
    WK_BOUNDS_TYPE_SPHERE = 3,
};

/* What wk__hull_of found. */
enum {
    WK__BOUNDED = 1,   /* the hull holds all collision geometry */
    WK__UNBOUNDED = 2, /* a plane: no finite bounds */
    WK__UNKNOWN = 3,   /* a heightmap or polyline: why names it */
};

/* An entity's collision geometry in one frame: its exact box, a sphere
 * holding it and points whose convex hull holds it. */
typedef struct wk__hull {
    wk_vec3 lo, hi;
    wk_vec3 center;
    double radius;
    wk_vec3 *points;
    size_t count, cap;
    double *spheres; /* per primitive: centre x, y, z, circumradius, first and end hull point */
    size_t spheres_count, spheres_cap;
    bool any;
} wk__hull;

/* The geometry of the collisions below e (or e's origin when it has none)
 * in the frame of entity frame, in api's current world, with meshes as
 * their vertices' box. Returns WK__BOUNDED, WK__UNBOUNDED or WK__UNKNOWN
 * (h then holds nothing, why says why), or a negative wk error. why (empty
 * on entry) also names a mesh left out of a bounded hull. Free h with
 * wk__hull_free. */
int wk__hull_of(wk_api *api, wk_entity e, wk_entity frame, wk__hull *h, char *why, size_t cap);
void wk__hull_free(wk__hull *h);

/* A region to test against: a box (lo, hi), a sphere (center, radius) or
 * the hull of points (borrowed); EMPTY is everywhere. */
typedef struct wk__region {
    uint32_t type;
    wk_vec3 lo, hi;
    wk_vec3 center;
    double radius;
    const wk_vec3 *points;
    size_t count;
} wk__region;

/* Whether the hull meets the region (touching counts). */
bool wk__overlaps(const wk__hull *h, const wk__region *r);
/* The point of points farthest along d (n > 0). */
wk_vec3 wk__points_support(const wk_vec3 *points, size_t n, wk_vec3 d);

#endif
