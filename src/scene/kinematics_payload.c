/* kinematics_payload.c — two properties of kinematic objects kept as plain
 * data on the object's base entity: its Cartesian limits (CartesianLimits)
 * and the payload mounted on its flange (Payload). Both are fixed-size
 * values of doubles, so the ECM copies and compares them as bytes; they
 * serialize through codec.h, and the deserializers apply the same checks as
 * the setters, so a state applied from outside cannot store what a call
 * would refuse. */
#include <math.h>
#include <string.h>

#include "scene/codec.h"
#include "scene/kinematics_internal.h"

static const char *const bound_names[WK_CART_BOUND_COUNT] = {
    "min_translational_position",     "max_translational_position", "min_translational_velocity",
    "max_translational_velocity",     "min_translational_acceleration", "max_translational_acceleration",
    "min_translational_jerk",         "max_translational_jerk",
};

/* The rules of a CartesianLimits; object names it in messages (NULL with a
 * NULL st, from a deserializer). */
static int check_cartesian(const void *value, const char *object, wk_status *st)
{
    const wk_cartesian_limits *l = value;
    const double rotational[3] = {l->max_rotational_velocity, l->max_rotational_acceleration,
                                  l->max_rotational_jerk};
    static const char *const rotational_names[3] = {"max_rotational_velocity", "max_rotational_acceleration",
                                                    "max_rotational_jerk"};
    if (l->present >> WK_CART_BOUND_COUNT || l->reserved)
        return wk_fail(st, WK_INVALID, "object '%s': malformed Cartesian limits", object);
    for (int b = 0; b < WK_CART_BOUND_COUNT; b++) {
        const wk_vec3 v = l->translational[b];
        if (isnan(v.x) || isnan(v.y) || isnan(v.z))
            return wk_fail(st, WK_INVALID, "object '%s': cartesian_limits.%s holds NaN", object, bound_names[b]);
    }
    /* Each min/max pair sits side by side in wk_cartesian_bound. */
    for (int b = 0; b < WK_CART_BOUND_COUNT; b += 2) {
        if (!(l->present >> b & 1) || !(l->present >> (b + 1) & 1))
            continue;
        const double *lo = &l->translational[b].x, *hi = &l->translational[b + 1].x;
        for (int axis = 0; axis < 3; axis++)
            if (lo[axis] > hi[axis])
                return wk_fail(st, WK_INVALID, "object '%s': cartesian_limits.%s[%d] %g is above %s[%d] %g", object,
                               bound_names[b], axis, lo[axis], bound_names[b + 1], axis, hi[axis]);
    }
    for (int r = 0; r < 3; r++)
        if (isnan(rotational[r]) || rotational[r] < 0)
            return wk_fail(st, WK_INVALID, "object '%s': cartesian_limits.%s %g is not a non-negative number", object,
                           rotational_names[r], rotational[r]);
    return WK_OK;
}

static int check_payload(const void *value, const char *object, wk_status *st)
{
    const wk_payload *p = value;
    if (!isfinite(p->mass_kg) || p->mass_kg < 0)
        return wk_fail(st, WK_INVALID, "object '%s': mounted_payload.mass_kg %g is not a non-negative number", object,
                       p->mass_kg);
    if (!wk_pose_is_valid(p->tip_t_cog))
        return wk_fail(st, WK_INVALID, "object '%s': mounted_payload.tip_t_cog is not a valid pose", object);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double a = p->inertia[r][c], b = p->inertia[c][r];
            if (!isfinite(a) || fabs(a - b) > 1e-9 * fmax(1, fabs(a)) || (r == c && a < 0))
                return wk_fail(st, WK_INVALID,
                               "object '%s': mounted_payload.inertia is not finite and symmetric with a "
                               "non-negative diagonal (at row %d, column %d: %g)",
                               object, r, c, a);
        }
    return WK_OK;
}

/* Sets type on object, a kinematic object, to value after check passes. */
static int store(wk_scene *s, wk_entity object, wk_type type, const void *value,
                 int (*check)(const void *, const char *, wk_status *), wk_status *st)
{
    const wk_kinematic_object *k;
    int rc = wk__kinematic_object_of(s, object, &k, st);
    if (rc || (rc = check(value, wk__object_name(s, object), st)))
        return rc;
    rc = wk_ecm_set(s->ecm, object, type, value);
    return rc < 0 ? wk_fail(st, rc, "object '%s': %s", wk__object_name(s, object), wk_ecm_errmsg(s->ecm)) : WK_OK;
}

int wk_scene_set_cartesian_limits(wk_scene *s, wk_entity object, const wk_cartesian_limits *limits, wk_status *st)
{
    return store(s, object, s->types.cartesian_limits, limits, check_cartesian, st);
}

const wk_cartesian_limits *wk_scene_cartesian_limits(const wk_scene *s, wk_entity object)
{
    return wk_ecm_get(s->ecm, object, s->types.cartesian_limits);
}

int wk_scene_set_payload(wk_scene *s, wk_entity object, const wk_payload *payload, wk_status *st)
{
    return store(s, object, s->types.payload, payload, check_payload, st);
}

const wk_payload *wk_scene_payload(const wk_scene *s, wk_entity object)
{
    return wk_ecm_get(s->ecm, object, s->types.payload);
}

/* ---- serialization ------------------------------------------------------ */

/* Both values are doubles and 32-bit words only; they travel as their
 * doubles' raw bits (limits may be infinite, which wk__get_f64 refuses). */
static void put_doubles(wk__enc *e, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &v[i], sizeof bits);
        wk__put_u64(e, bits);
    }
}

static void get_doubles(wk__dec *d, double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t bits = wk__get_u64(d);
        memcpy(&v[i], &bits, sizeof bits);
    }
}

static int cartesian_serialize(const void *value, wk_buf *out)
{
    const wk_cartesian_limits *l = value;
    wk__enc e = {out, WK_OK};
    put_doubles(&e, &l->translational[0].x, 3 * WK_CART_BOUND_COUNT);
    wk__put_u32(&e, l->present);
    put_doubles(&e, &l->max_rotational_velocity, 3);
    return e.rc;
}

static int cartesian_deserialize(void *dst, const uint8_t *bytes, size_t len)
{
    wk__dec d = {bytes, len, false};
    wk_cartesian_limits l = {0};
    get_doubles(&d, &l.translational[0].x, 3 * WK_CART_BOUND_COUNT);
    l.present = wk__get_u32(&d);
    get_doubles(&d, &l.max_rotational_velocity, 3);
    if (d.bad || d.left || check_cartesian(&l, NULL, NULL))
        return WK_PARSE;
    memcpy(dst, &l, sizeof l);
    return WK_OK;
}

static int payload_serialize(const void *value, wk_buf *out)
{
    const wk_payload *p = value;
    wk__enc e = {out, WK_OK};
    const double pose[7] = {p->tip_t_cog.p.x, p->tip_t_cog.p.y, p->tip_t_cog.p.z, p->tip_t_cog.q.w,
                            p->tip_t_cog.q.x, p->tip_t_cog.q.y, p->tip_t_cog.q.z};
    put_doubles(&e, &p->mass_kg, 1);
    put_doubles(&e, pose, 7);
    put_doubles(&e, &p->inertia[0][0], 9);
    return e.rc;
}

static int payload_deserialize(void *dst, const uint8_t *bytes, size_t len)
{
    wk__dec d = {bytes, len, false};
    wk_payload p = {0};
    double pose[7];
    get_doubles(&d, &p.mass_kg, 1);
    get_doubles(&d, pose, 7);
    get_doubles(&d, &p.inertia[0][0], 9);
    p.tip_t_cog = (wk_pose){{pose[0], pose[1], pose[2]}, {pose[3], pose[4], pose[5], pose[6]}};
    if (d.bad || d.left || check_payload(&p, NULL, NULL))
        return WK_PARSE;
    memcpy(dst, &p, sizeof p);
    return WK_OK;
}

const wk_type_hooks wk__cartesian_limits_hooks = {.serialize = cartesian_serialize,
                                                  .deserialize = cartesian_deserialize};
const wk_type_hooks wk__payload_hooks = {.serialize = payload_serialize, .deserialize = payload_deserialize};
