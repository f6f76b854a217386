/* bounds.c — what an entity's collision geometry occupies, and whether that
 * overlaps a region: the geometry behind GetEntityBounds and the bounds
 * filter of GetEntities and GetEntitiesStates.
 *
 * Every collision below the entity is read from its Geometry, in the frame
 * asked for. Box, sphere, cylinder, capsule and ellipsoid are bounded; for
 * each worldkit keeps its exact axis-aligned box, a sphere holding it, and
 * a few points whose convex hull holds it (a box's eight corners; for the
 * round shapes the corners of a circumscribed box or octagonal prism, so
 * the hull is a little larger than the shape, never smaller). A plane is
 * unbounded. A mesh is bounded by the box its vertices fill, scaled and
 * posed as the mesh is, and counted as that box: a mesh registered with
 * GeometryService by the box made of it once (geometry_service.c), a mesh
 * of a world file by its file, read once per simulation
 * (wk_sim_mesh_box). A mesh
 * whose file was not found or cannot be read is left out, and the answer
 * says so. A heightmap cannot be bounded, and the scene keeps a
 * polyline's height but not its points. The collisions are the
 * collision entities and the shapes of an object's own entities (made by
 * ObjectWorldService, one shape for both roles); visuals do not count. An
 * entity without collision geometry is bounded by its own origin.
 *
 * Overlap is decided by GJK on the hull points against the region's own
 * shape (box, sphere or hull), so a region that only touches counts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ows/ows.h"
#include "api/sim/bounds.h"
#include "base/grow.h"

/* Adds p (in the frame) to the hull and the box. */
static int add_point(wk__hull *h, wk_vec3 p)
{
    if (WK__GROW(h->points, h->cap, h->count + 1))
        return WK_NOMEM;
    h->points[h->count++] = p;
    return WK_OK;
}

/* Grows the exact box by centre +- extent. */
static void add_box(wk__hull *h, wk_vec3 c, wk_vec3 e)
{
    wk_vec3 lo = wk_vec3_sub(c, e), hi = wk_vec3_add(c, e);
    if (!h->any) {
        h->lo = lo, h->hi = hi;
        return;
    }
    h->lo = wk_vec3_min(h->lo, lo);
    h->hi = wk_vec3_max(h->hi, hi);
}

/* The rotation's column k: the collision's axis k in the frame. */
static wk_vec3 axis(wk_pose T, int k)
{
    wk_vec3 unit[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    return wk_quat_rotate(T.q, unit[k]);
}

/* The half extent along the frame's axes of the box of half sizes h posed
 * by T: each frame axis sums |R_ij| h_j. */
static wk_vec3 box_extent(wk_pose T, wk_vec3 half)
{
    wk_vec3 a = axis(T, 0), b = axis(T, 1), c = axis(T, 2);
    return (wk_vec3){fabs(a.x) * half.x + fabs(b.x) * half.y + fabs(c.x) * half.z,
                     fabs(a.y) * half.x + fabs(b.y) * half.y + fabs(c.y) * half.z,
                     fabs(a.z) * half.x + fabs(b.z) * half.y + fabs(c.z) * half.z};
}

/* The eight corners of the box of half sizes half posed by T. */
static int add_corners(wk__hull *h, wk_pose T, wk_vec3 half)
{
    int rc = WK_OK;
    for (int i = 0; i < 8 && rc == WK_OK; i++) {
        wk_vec3 p = {i & 1 ? half.x : -half.x, i & 2 ? half.y : -half.y, i & 4 ? half.z : -half.z};
        rc = add_point(h, wk_pose_transform_point(T, p));
    }
    return rc;
}

/* An octagonal prism around the z axis from z0 to z1 whose octagon holds
 * the circle of radius r. */
static int add_prism(wk__hull *h, wk_pose T, double r, double z0, double z1)
{
    const double pi = 3.14159265358979323846;
    double R = r / cos(pi / 8);
    int rc = WK_OK;
    for (int i = 0; i < 16 && rc == WK_OK; i++) {
        double a = pi / 4 * (i % 8);
        rc = add_point(h, wk_pose_transform_point(T, (wk_vec3){R * cos(a), R * sin(a), i < 8 ? z0 : z1}));
    }
    return rc;
}

/* Adds one bounded primitive posed by T (frame_T_collision). */
static int add_shape(wk__hull *h, const wk_scene_geometry *g, wk_pose T)
{
    wk_vec3 z = axis(T, 2);
    wk_vec3 ext, half;
    double circum;
    int rc;
    size_t first = h->count;
    switch (g->type) {
    case WK_GEOMETRY_BOX:
        half = wk_vec3_scale(g->size, 0.5);
        ext = box_extent(T, half);
        circum = wk_vec3_norm(half);
        rc = add_corners(h, T, half);
        break;
    case WK_GEOMETRY_SPHERE:
        ext = (wk_vec3){g->radius, g->radius, g->radius};
        circum = g->radius;
        rc = add_corners(h, T, ext);
        break;
    case WK_GEOMETRY_CYLINDER: /* along its z axis, length between the faces */
        ext = (wk_vec3){fabs(z.x) * g->length / 2 + g->radius * sqrt(fmax(0, 1 - z.x * z.x)),
                        fabs(z.y) * g->length / 2 + g->radius * sqrt(fmax(0, 1 - z.y * z.y)),
                        fabs(z.z) * g->length / 2 + g->radius * sqrt(fmax(0, 1 - z.z * z.z))};
        circum = hypot(g->radius, g->length / 2);
        rc = add_prism(h, T, g->radius, -g->length / 2, g->length / 2);
        break;
    case WK_GEOMETRY_CAPSULE: /* length between the centres of its caps */
        ext = (wk_vec3){fabs(z.x) * g->length / 2 + g->radius, fabs(z.y) * g->length / 2 + g->radius,
                        fabs(z.z) * g->length / 2 + g->radius};
        circum = g->length / 2 + g->radius;
        rc = add_prism(h, T, g->radius, -g->length / 2 - g->radius, g->length / 2 + g->radius);
        break;
    default: /* WK_GEOMETRY_ELLIPSOID: radii in size */
        half = g->size;
        {
            wk_vec3 a = axis(T, 0), b = axis(T, 1);
            ext = (wk_vec3){sqrt(pow(a.x * half.x, 2) + pow(b.x * half.y, 2) + pow(z.x * half.z, 2)),
                            sqrt(pow(a.y * half.x, 2) + pow(b.y * half.y, 2) + pow(z.y * half.z, 2)),
                            sqrt(pow(a.z * half.x, 2) + pow(b.z * half.y, 2) + pow(z.z * half.z, 2))};
        }
        circum = fmax(half.x, fmax(half.y, half.z));
        rc = add_corners(h, T, half);
        break;
    }
    add_box(h, T.p, ext);
    h->any = true;
    /* Kept until the sphere is made: each primitive's centre, circumradius
     * and the range of its hull points. */
    if (rc == WK_OK && wk__grow(&h->spheres, &h->spheres_cap, h->spheres_count + 1, 6 * sizeof *h->spheres))
        return WK_NOMEM;
    if (rc == WK_OK) {
        double *s = h->spheres + 6 * h->spheres_count++;
        s[0] = T.p.x, s[1] = T.p.y, s[2] = T.p.z, s[3] = circum;
        s[4] = (double)first, s[5] = (double)h->count;
    }
    return rc;
}

/* The bounding sphere: centred on the box, reaching each primitive's
 * farthest point by the nearer of two bounds that both hold it: through its
 * circumsphere, and through its hull points. */
static void make_sphere(wk__hull *h)
{
    h->center = wk_vec3_scale(wk_vec3_add(h->lo, h->hi), 0.5);
    h->radius = 0;
    for (size_t i = 0; i < h->spheres_count; i++) {
        const double *s = h->spheres + 6 * i;
        double reach = wk_vec3_norm(wk_vec3_sub((wk_vec3){s[0], s[1], s[2]}, h->center)) + s[3], by_points = 0;
        for (size_t k = (size_t)s[4]; k < (size_t)s[5]; k++)
            by_points = fmax(by_points, wk_vec3_norm(wk_vec3_sub(h->points[k], h->center)));
        h->radius = fmax(h->radius, fmin(reach, by_points));
    }
}

/* The box a mesh's vertices fill, in the mesh's frame before its scale:
 * of a mesh registered with GeometryService when uri names one, else of
 * the file the world's reader found for collision c (read once per
 * simulation, wk_sim_mesh_box). WK_OK; WK_NOT_FOUND or another error with
 * st saying why there is none. */
static int mesh_box(wk_api *api, wk_entity c, const char *uri, wk_vec3 *lo, wk_vec3 *hi, wk_status *st)
{
    bool known;
    int rc = wk__geometry_mesh_box(api->store, uri, &known, lo, hi, st);
    if (rc || known)
        return rc;
    wk_scene *s = wk_api_scene(api);
    const char *const *file = wk_ecm_get(wk_scene_ecm(s), c, wk_scene_types_of(s)->mesh_file);
    if (!file || !*file)
        return wk_fail(st, WK_NOT_FOUND, "its file '%s' was not found when the world was read", uri);
    return wk_sim_mesh_box(api->sim, *file, lo, hi, st);
}

/* Adds the box of collision c's mesh, scaled and posed by T, counted as a
 * box primitive. A mesh without a box (its file missing or unreadable) is
 * left out, the first such said in note; WK_NOMEM. */
static int add_mesh(wk__hull *h, wk_api *api, wk_entity c, const wk_scene_geometry *g, const char *uri,
                    const char *name, wk_pose T, char *note, size_t cap)
{
    wk_vec3 lo, hi;
    wk_status st;
    int rc = mesh_box(api, c, uri, &lo, &hi, &st);
    if (rc == WK_NOMEM)
        return rc;
    if (rc) {
        if (!*note)
            snprintf(note, cap, "collision '%s' is left out of the bounds: %s", name, st.message);
        return WK_OK;
    }
    /* A scale left unset (all zero) is 1: the mesh in its own units. */
    wk_vec3 k = g->scale.x == 0 && g->scale.y == 0 && g->scale.z == 0 ? (wk_vec3){1, 1, 1} : g->scale;
    wk_vec3 a = {lo.x * k.x, lo.y * k.y, lo.z * k.z}, b = {hi.x * k.x, hi.y * k.y, hi.z * k.z};
    wk_scene_geometry box = {.type = WK_GEOMETRY_BOX, .size = {fabs(b.x - a.x), fabs(b.y - a.y), fabs(b.z - a.z)}};
    wk_vec3 centre = wk_vec3_scale(wk_vec3_add(a, b), 0.5);
    return add_shape(h, &box, wk_pose_compose(T, (wk_pose){centre, {1, 0, 0, 0}}));
}

int wk__hull_of(wk_api *api, wk_entity e, wk_entity frame, wk__hull *h, char *why, size_t cap)
{
    wk_scene *s = wk_api_scene(api);
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_scene_types *t = wk_scene_types_of(s);
    *h = (wk__hull){0};
    wk_pose world_T_frame = wk_scene_world_pose(s, frame);
    wk_pose frame_T_world = wk_pose_inverse(world_T_frame);
    wk_entity_list below = {0};
    int rc = wk_ecm_descendants(ecm, e, &below);
    int kind = WK__BOUNDED;
    for (size_t i = 0; rc == WK_OK && i < below.count && kind == WK__BOUNDED; i++) {
        wk_entity c = below.items[i];
        const uint8_t *k = wk_ecm_get(ecm, c, t->kind);
        const wk_scene_geometry *g = wk_ecm_get(ecm, c, t->geometry);
        /* A visual's shape is seen, not collided with; an object's own
         * entity (CreateObject's) has one shape for both. */
        if (!g || g->type == WK_GEOMETRY_NONE || (k && *k == WK_NODE_VISUAL))
            continue;
        const char *name = wk_scene_name(s, c);
        wk_pose frame_T_shape = wk_pose_compose(frame_T_world, wk_scene_world_pose(s, c));
        switch (g->type) {
        case WK_GEOMETRY_PLANE:
            kind = WK__UNBOUNDED;
            break;
        case WK_GEOMETRY_BOX:
        case WK_GEOMETRY_SPHERE:
        case WK_GEOMETRY_CYLINDER:
        case WK_GEOMETRY_CAPSULE:
        case WK_GEOMETRY_ELLIPSOID:
            rc = add_shape(h, g, frame_T_shape);
            break;
        case WK_GEOMETRY_MESH: {
            char *const *uri = wk_ecm_get(ecm, c, t->uri);
            rc = add_mesh(h, api, c, g, uri && *uri ? *uri : "", name ? name : "", frame_T_shape, why, cap);
            break;
        }
        default:
            snprintf(why, cap, "collision '%s' is a %s, which worldkit cannot bound", name ? name : "",
                     g->type == WK_GEOMETRY_HEIGHTMAP ? "heightmap" : "polyline");
            kind = WK__UNKNOWN;
            break;
        }
    }
    wk_entity_list_free(&below);
    if (rc == WK_OK && kind == WK__BOUNDED && !h->any) {
        /* No collision geometry: the entity's origin alone. */
        wk_vec3 origin = wk_pose_transform_point(frame_T_world, wk_scene_world_pose(s, e).p);
        add_box(h, origin, (wk_vec3){0, 0, 0});
        h->any = true;
        rc = add_point(h, origin);
    }
    if (rc) {
        wk__hull_free(h);
        return rc;
    }
    make_sphere(h);
    return kind;
}

void wk__hull_free(wk__hull *h)
{
    free(h->points);
    free(h->spheres);
    *h = (wk__hull){0};
}

/* ---- overlap --------------------------------------------------------------
 *
 * GJK: the two convex sets meet when the origin lies in their Minkowski
 * difference, which is explored through support points only. */

/* The point of the region farthest along d. */
static wk_vec3 region_support(const wk__region *r, wk_vec3 d)
{
    if (r->type == WK_BOUNDS_TYPE_BOX)
        return (wk_vec3){d.x >= 0 ? r->hi.x : r->lo.x, d.y >= 0 ? r->hi.y : r->lo.y, d.z >= 0 ? r->hi.z : r->lo.z};
    if (r->type == WK_BOUNDS_TYPE_SPHERE) {
        double n = wk_vec3_norm(d);
        return n > 0 ? wk_vec3_add(r->center, wk_vec3_scale(d, r->radius / n)) : r->center;
    }
    return wk__points_support(r->points, r->count, d);
}

wk_vec3 wk__points_support(const wk_vec3 *points, size_t n, wk_vec3 d)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (wk_vec3_dot(points[i], d) > wk_vec3_dot(points[best], d))
            best = i;
    return points[best];
}

static wk_vec3 support(const wk__hull *h, const wk__region *r, wk_vec3 d)
{
    return wk_vec3_sub(wk__points_support(h->points, h->count, d), region_support(r, wk_vec3_scale(d, -1)));
}

static bool tiny(wk_vec3 v)
{
    return wk_vec3_dot(v, v) < 1e-24;
}

/* Reduces the simplex s[0..*n) (newest last) to the part nearest the
 * origin and picks the next direction; true when the origin is inside. */
static bool line(wk_vec3 *s, int *n, wk_vec3 *d)
{
    wk_vec3 a = s[*n - 1], b = s[*n - 2], ab = wk_vec3_sub(b, a), ao = wk_vec3_scale(a, -1);
    if (wk_vec3_dot(ab, ao) > 0) {
        s[0] = b, s[1] = a, *n = 2;
        *d = wk_vec3_cross(wk_vec3_cross(ab, ao), ab);
        return tiny(*d); /* the origin is on the segment */
    }
    s[0] = a, *n = 1;
    *d = ao;
    return tiny(ao);
}

static bool triangle(wk_vec3 *s, int *n, wk_vec3 *d)
{
    wk_vec3 a = s[2], b = s[1], c = s[0];
    wk_vec3 ab = wk_vec3_sub(b, a), ac = wk_vec3_sub(c, a), ao = wk_vec3_scale(a, -1);
    wk_vec3 abc = wk_vec3_cross(ab, ac);
    if (wk_vec3_dot(wk_vec3_cross(abc, ac), ao) > 0) {
        if (wk_vec3_dot(ac, ao) > 0) {
            s[0] = c, s[1] = a, *n = 2;
            *d = wk_vec3_cross(wk_vec3_cross(ac, ao), ac);
            return tiny(*d);
        }
        s[0] = b, s[1] = a, *n = 2;
        return line(s, n, d);
    }
    if (wk_vec3_dot(wk_vec3_cross(ab, abc), ao) > 0) {
        s[0] = b, s[1] = a, *n = 2;
        return line(s, n, d);
    }
    double side = wk_vec3_dot(abc, ao);
    if (fabs(side) < 1e-12 * (1 + wk_vec3_norm(abc)))
        return true; /* the origin lies in the triangle */
    if (side > 0)
        s[0] = c, s[1] = b, s[2] = a, *d = abc;
    else
        s[0] = b, s[1] = c, s[2] = a, *d = wk_vec3_scale(abc, -1);
    *n = 3;
    return false;
}

static bool tetrahedron(wk_vec3 *s, int *n, wk_vec3 *d)
{
    wk_vec3 a = s[3];
    const int faces[3][3] = {{2, 1, 0}, {1, 0, 2}, {0, 2, 1}}; /* b c, opposite */
    for (int f = 0; f < 3; f++) {
        wk_vec3 b = s[faces[f][0]], c = s[faces[f][1]], other = s[faces[f][2]];
        wk_vec3 normal = wk_vec3_cross(wk_vec3_sub(b, a), wk_vec3_sub(c, a));
        if (wk_vec3_dot(normal, wk_vec3_sub(other, a)) > 0)
            normal = wk_vec3_scale(normal, -1);
        if (wk_vec3_dot(normal, wk_vec3_scale(a, -1)) > 0) {
            s[0] = c, s[1] = b, s[2] = a, *n = 3;
            return triangle(s, n, d);
        }
    }
    return true;
}

bool wk__overlaps(const wk__hull *h, const wk__region *r)
{
    if (r->type == WK_BOUNDS_TYPE_EMPTY)
        return true;
    wk_vec3 s[4], d = {1, 0, 0};
    int n = 1;
    s[0] = support(h, r, d);
    d = wk_vec3_scale(s[0], -1);
    for (int iter = 0; iter < 64; iter++) {
        if (tiny(d))
            return true;
        wk_vec3 p = support(h, r, d);
        /* Past the origin by less than rounding: touching counts. */
        if (wk_vec3_dot(p, d) < -1e-12 * wk_vec3_norm(d))
            return false;
        s[n++] = p;
        bool inside = n == 2 ? line(s, &n, &d) : n == 3 ? triangle(s, &n, &d) : tetrahedron(s, &n, &d);
        if (inside)
            return true;
    }
    return true; /* no separating direction found: they touch */
}
