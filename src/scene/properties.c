/* properties.c — the optional components of objects and entities that
 * UpdateObjectProperties and UpdateEntityProperties change: the simulation
 * component (the Static tag), physics (Physics) and geometry (Geometry and
 * Uri). Also the hooks of Physics, whose value owns no memory but holds a
 * bool among doubles: compared and serialized field by field, so padding
 * bytes never make two equal values differ. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/codec.h"
#include "scene/scene_internal.h"

/* ---- Physics hooks ------------------------------------------------------ */

/* The doubles of a physics value in serialized order; the one bool,
 * use_patch_radius, follows them. */
#define WK__PHYSICS_DOUBLES 30

static void physics_doubles(const wk_physics *p, double *out)
{
    const double d[WK__PHYSICS_DOUBLES] = {
        p->mass_kg,
        p->this_T_com.p.x, p->this_T_com.p.y, p->this_T_com.p.z,
        p->this_T_com.q.w, p->this_T_com.q.x, p->this_T_com.q.y, p->this_T_com.q.z,
        p->inertia[0][0], p->inertia[0][1], p->inertia[0][2],
        p->inertia[1][0], p->inertia[1][1], p->inertia[1][2],
        p->inertia[2][0], p->inertia[2][1], p->inertia[2][2],
        p->friction.mu, p->friction.mu2, p->friction.slip1, p->friction.slip2,
        p->friction.fdir1.x, p->friction.fdir1.y, p->friction.fdir1.z,
        p->torsional.coefficient, p->torsional.patch_radius, p->torsional.surface_radius, p->torsional.ode_slip,
        p->contact_kp, p->contact_kd,
    };
    memcpy(out, d, sizeof d);
}

static void physics_from_doubles(wk_physics *p, const double *d, bool use_patch_radius)
{
    *p = (wk_physics){
        .mass_kg = d[0],
        .this_T_com = {{d[1], d[2], d[3]}, {d[4], d[5], d[6], d[7]}},
        .inertia = {{d[8], d[9], d[10]}, {d[11], d[12], d[13]}, {d[14], d[15], d[16]}},
        .friction = {d[17], d[18], d[19], d[20], {d[21], d[22], d[23]}},
        .torsional = {d[24], use_patch_radius, d[25], d[26], d[27]},
        .contact_kp = d[28],
        .contact_kd = d[29],
    };
}

static bool physics_equal(const void *a, const void *b)
{
    const wk_physics *x = a, *y = b;
    double dx[WK__PHYSICS_DOUBLES], dy[WK__PHYSICS_DOUBLES];
    physics_doubles(x, dx);
    physics_doubles(y, dy);
    return x->torsional.use_patch_radius == y->torsional.use_patch_radius && memcmp(dx, dy, sizeof dx) == 0;
}

static int physics_serialize(const void *value, wk_buf *out)
{
    const wk_physics *p = value;
    double d[WK__PHYSICS_DOUBLES];
    physics_doubles(p, d);
    wk__enc e = {out, WK_OK};
    for (size_t i = 0; i < WK__PHYSICS_DOUBLES; i++)
        wk__put_f64(&e, d[i]);
    wk__put_u8(&e, p->torsional.use_patch_radius);
    return e.rc;
}

static int physics_deserialize(void *dst, const uint8_t *bytes, size_t len)
{
    wk__dec d = {bytes, len, false};
    double v[WK__PHYSICS_DOUBLES];
    for (size_t i = 0; i < WK__PHYSICS_DOUBLES; i++)
        v[i] = wk__get_f64(&d);
    bool use_patch_radius = wk__get_bool(&d);
    if (d.bad || d.left)
        return WK_PARSE;
    physics_from_doubles(dst, v, use_patch_radius);
    return WK_OK;
}

const wk_type_hooks wk__physics_hooks = {
    .equal = physics_equal, .serialize = physics_serialize, .deserialize = physics_deserialize};

/* ---- the simulation component ------------------------------------------ */

bool wk_scene_simulation(const wk_scene *s, wk_entity object, wk_simulation_component *out)
{
    bool is_static = wk_scene_is_object(s, object) && wk_ecm_has(s->ecm, object, s->types.is_static);
    if (out)
        out->is_static = is_static;
    return is_static;
}

int wk_scene_set_simulation(wk_scene *s, wk_entity object, const wk_simulation_component *sim, wk_status *st)
{
    if (!wk_scene_is_object(s, object))
        return wk_fail(st, WK_NOT_FOUND, "entity %llu is not an object", (unsigned long long)object);
    if (object == s->root)
        return wk_fail(st, WK_INVALID, "the root object has no simulation component");
    int rc = sim->is_static ? wk_ecm_set(s->ecm, object, s->types.is_static, NULL)
                            : wk_ecm_remove(s->ecm, object, s->types.is_static);
    return rc < 0 ? wk_fail(st, rc, "setting the simulation component of object '%s': %s",
                            wk__object_name(s, object), wk_ecm_errmsg(s->ecm))
                  : WK_OK;
}

/* ---- entity properties --------------------------------------------------- */

/* Whether e is an entity of an object that already has the component what
 * names. */
static int check_target(const wk_scene *s, wk_entity e, wk_type type, const char *what, wk_status *st)
{
    if (!s->root)
        return wk_fail(st, WK_PRECONDITION, "the scene is not an object world");
    wk_entity object = wk_scene_object_of(s, e);
    if (!wk_ecm_exists(s->ecm, e) || !object)
        return wk_fail(st, WK_NOT_FOUND, "entity %llu does not exist or belongs to no object", (unsigned long long)e);
    if (wk_scene_is_frame(s, e))
        return wk_fail(st, WK_INVALID, "'%s' of object '%s' is a frame, not an entity", wk__entity_name(s, e),
                       wk__object_name(s, object));
    if (!wk_ecm_has(s->ecm, e, type))
        return wk_fail(st, WK_PRECONDITION,
                       "entity '%s' of object '%s' has no %s component: an update cannot add one",
                       wk__entity_name(s, e), wk__object_name(s, object), what);
    return WK_OK;
}

const wk_physics *wk_scene_physics(const wk_scene *s, wk_entity e)
{
    return wk_ecm_get(s->ecm, e, s->types.physics);
}

int wk__physics_check(const char *name, const wk_physics *physics, wk_status *st)
{
    double d[WK__PHYSICS_DOUBLES];
    physics_doubles(physics, d);
    for (size_t i = 0; i < WK__PHYSICS_DOUBLES; i++)
        if (!isfinite(d[i]))
            return wk_fail(st, WK_INVALID, "physics of entity '%s': a value is not finite", name);
    /* What has no meaning below zero; a simulator handed it misbehaves. */
    const struct {
        const char *what;
        double value;
    } quantities[] = {
        {"mass (kg)", physics->mass_kg},          {"inertia ixx", physics->inertia[0][0]},
        {"inertia iyy", physics->inertia[1][1]},  {"inertia izz", physics->inertia[2][2]},
        {"friction mu", physics->friction.mu},    {"friction mu2", physics->friction.mu2},
        {"contact_kp", physics->contact_kp},      {"contact_kd", physics->contact_kd},
    };
    for (size_t i = 0; i < sizeof quantities / sizeof quantities[0]; i++)
        if (quantities[i].value < 0)
            return wk_fail(st, WK_INVALID, "physics of entity '%s': %s %g is negative", name, quantities[i].what,
                           quantities[i].value);
    char why[128];
    if (wk_pose_problem(physics->this_T_com, why, sizeof why))
        return wk_fail(st, WK_INVALID, "physics of entity '%s': the centre of mass pose: %s", name, why);
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++) {
            double a = physics->inertia[i][j], b = physics->inertia[j][i];
            if (fabs(a - b) > 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b))))
                return wk_fail(st, WK_INVALID, "physics of entity '%s': inertia is not symmetric (%g at (%d,%d), %g "
                               "at (%d,%d))", name, a, i, j, b, j, i);
        }
    return WK_OK;
}

int wk_scene_update_physics(wk_scene *s, wk_entity e, const wk_physics *physics, wk_status *st)
{
    int rc = check_target(s, e, s->types.physics, "physics", st);
    if (rc)
        return rc;
    const char *name = wk__entity_name(s, e);
    if ((rc = wk__physics_check(name, physics, st)))
        return rc;
    rc = wk_ecm_set(s->ecm, e, s->types.physics, physics);
    return rc < 0 ? wk_fail(st, rc, "updating the physics of entity '%s': %s", name, wk_ecm_errmsg(s->ecm)) : WK_OK;
}

static bool nonnegative(double v)
{
    return isfinite(v) && v >= 0;
}

static bool finite3(wk_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

int wk__geometry_check(const char *name, const wk_scene_geometry *g, const char *uri, wk_scene_geometry *value,
                       wk_status *st)
{
    if ((unsigned)g->type > WK_GEOMETRY_POLYLINE)
        return wk_fail(st, WK_INVALID, "geometry of entity '%s': unknown type %d", name, (int)g->type);
    if (!nonnegative(g->size.x) || !nonnegative(g->size.y) || !nonnegative(g->size.z) || !nonnegative(g->radius) ||
        !nonnegative(g->length) || !finite3(g->normal) || !finite3(g->scale))
        return wk_fail(st, WK_INVALID, "geometry of entity '%s': a size is negative or a value not finite", name);
    if ((g->type == WK_GEOMETRY_MESH || g->type == WK_GEOMETRY_HEIGHTMAP) && !uri)
        return wk_fail(st, WK_INVALID, "geometry of entity '%s': a %s needs a uri", name,
                       g->type == WK_GEOMETRY_MESH ? "mesh" : "heightmap");
    /* Field by field into zeroed storage, so padding compares equal; a
     * normal or scale its shape does not use holds the readers' default, so
     * that a shape equals itself whichever door it came in by (a file, a
     * scene call, a snapshot). */
    memset(value, 0, sizeof *value);
    value->type = g->type;
    value->size = g->size;
    value->radius = g->radius;
    value->length = g->length;
    value->normal = g->type == WK_GEOMETRY_PLANE ? g->normal : (wk_vec3){0, 0, 1};
    value->scale = g->type == WK_GEOMETRY_MESH ? g->scale : (wk_vec3){1, 1, 1};
    return WK_OK;
}

int wk_scene_update_geometry(wk_scene *s, wk_entity e, const wk_scene_geometry *geometry, const char *uri,
                             wk_status *st)
{
    int rc = check_target(s, e, s->types.geometry, "geometry", st);
    if (rc)
        return rc;
    const char *name = wk__entity_name(s, e);
    wk_scene_geometry value;
    if ((rc = wk__geometry_check(name, geometry, uri, &value, st)))
        return rc;
    /* The old uri, to put back should the geometry fail to store. */
    char *const *old = wk_ecm_get(s->ecm, e, s->types.uri);
    char *kept = old && *old ? strdup(*old) : NULL;
    if (old && *old && !kept)
        return wk_fail(st, WK_NOMEM, "out of memory updating the geometry of entity '%s'", name);
    rc = uri ? wk_ecm_set(s->ecm, e, s->types.uri, &uri) : wk_ecm_remove(s->ecm, e, s->types.uri);
    if (rc >= 0 && (rc = wk_ecm_set(s->ecm, e, s->types.geometry, &value)) < 0) {
        if (kept)
            wk_ecm_set(s->ecm, e, s->types.uri, &kept);
        else
            wk_ecm_remove(s->ecm, e, s->types.uri);
    }
    free(kept);
    return rc < 0 ? wk_fail(st, rc, "updating the geometry of entity '%s': %s", name, wk_ecm_errmsg(s->ecm)) : WK_OK;
}
