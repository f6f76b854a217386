/* kinematics_component.c — the two components of kinematic objects as ECM
 * values: Kinematics (a joint, fixed size) and KinematicObject (a base
 * entity's joint order, limits, named configurations, IK solvers and flange
 * frames, variable size), with the hooks that copy, free, compare and
 * serialize them, and the rules every stored limit obeys.
 *
 * Both serialize through codec.h (little-endian, length-prefixed). The
 * deserializers check everything a value must satisfy (unit axes, valid
 * poses, limits by the rules, counts that fit the bytes left, no trailing
 * bytes), so a state applied from outside cannot store what the calls of
 * kinematics_joints.c would refuse. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "scene/codec.h"
#include "scene/kinematics_internal.h"

/* ---- limits ------------------------------------------------------------ */

/* The symmetric limits: never negative, and the application one never
 * above the system one. */
static const struct {
    const char *name;
    size_t offset;
} rates[] = {
    {"max_velocity", offsetof(wk_joint_limit, max_velocity)},
    {"max_acceleration", offsetof(wk_joint_limit, max_acceleration)},
    {"max_jerk", offsetof(wk_joint_limit, max_jerk)},
};

static double field(const wk_joint_limit *l, size_t offset)
{
    double v;
    memcpy(&v, (const char *)l + offset, sizeof v);
    return v;
}

static bool any_nan(const wk_joint_limit *l)
{
    return isnan(l->min_position) || isnan(l->max_position) || isnan(l->max_velocity) ||
           isnan(l->max_acceleration) || isnan(l->max_jerk) || isnan(l->max_effort);
}

int wk__limits_check(const wk_joint_limit *system, const wk_joint_limit *application, const char *object,
                     const char *joint, wk_status *st)
{
    const char *o = object ? object : "", *j = joint ? joint : "";
    const wk_joint_limit *both[2] = {system, application};
    static const char *const which[2] = {"system", "application"};
    for (int k = 0; k < 2; k++) {
        const wk_joint_limit *l = both[k];
        if (any_nan(l))
            return wk_fail(st, WK_INVALID, "joint '%s' of object '%s': a %s limit is NaN", j, o, which[k]);
        if (l->max_effort != 0)
            return wk_fail(st, WK_INVALID, "joint '%s' of object '%s': %s max_effort %g is not supported (only 0)", j,
                           o, which[k], l->max_effort);
        if (!(l->min_position <= l->max_position))
            return wk_fail(st, WK_RANGE, "joint '%s' of object '%s': %s min_position %g is above max_position %g", j,
                           o, which[k], l->min_position, l->max_position);
        for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++)
            if (field(l, rates[r].offset) < 0)
                return wk_fail(st, WK_RANGE, "joint '%s' of object '%s': %s %s %g is negative", j, o, which[k],
                               rates[r].name, field(l, rates[r].offset));
    }
    if (application->min_position < system->min_position)
        return wk_fail(st, WK_RANGE,
                       "joint '%s' of object '%s': application min_position %g is below the system limit %g", j, o,
                       application->min_position, system->min_position);
    if (application->max_position > system->max_position)
        return wk_fail(st, WK_RANGE,
                       "joint '%s' of object '%s': application max_position %g is above the system limit %g", j, o,
                       application->max_position, system->max_position);
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
        double a = field(application, rates[r].offset), s = field(system, rates[r].offset);
        if (a > s)
            return wk_fail(st, WK_RANGE, "joint '%s' of object '%s': application %s %g is above the system limit %g",
                           j, o, rates[r].name, a, s);
    }
    return WK_OK;
}

wk_joint_limit wk__limit_from_desc(wk_joint_limit given)
{
    wk_joint_limit l = given;
    if (l.min_position == 0 && l.max_position == 0) {
        l.min_position = -INFINITY;
        l.max_position = INFINITY;
    }
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++)
        if (field(&l, rates[r].offset) == 0)
            memcpy((char *)&l + rates[r].offset, &(double){INFINITY}, sizeof(double));
    return l;
}

/* ---- Kinematics -------------------------------------------------------- */

static bool kinematics_equal(const void *a, const void *b)
{
    const wk_kinematics *x = a, *y = b;
    const wk_pose *p = &x->parent_t_inboard, *q = &y->parent_t_inboard;
    return x->motion == y->motion && wk__same_f64(x->position, y->position) && wk__same_f64(x->axis.x, y->axis.x) &&
           wk__same_f64(x->axis.y, y->axis.y) && wk__same_f64(x->axis.z, y->axis.z) &&
           wk__same_f64(p->p.x, q->p.x) && wk__same_f64(p->p.y, q->p.y) && wk__same_f64(p->p.z, q->p.z) &&
           wk__same_f64(p->q.w, q->q.w) && wk__same_f64(p->q.x, q->q.x) && wk__same_f64(p->q.y, q->q.y) &&
           wk__same_f64(p->q.z, q->q.z);
}

static void put_vec3(wk__enc *e, wk_vec3 v)
{
    wk__put_f64(e, v.x);
    wk__put_f64(e, v.y);
    wk__put_f64(e, v.z);
}

static wk_vec3 get_vec3(wk__dec *d)
{
    wk_vec3 v;
    v.x = wk__get_f64(d);
    v.y = wk__get_f64(d);
    v.z = wk__get_f64(d);
    return v;
}

static int kinematics_serialize(const void *value, wk_buf *out)
{
    const wk_kinematics *k = value;
    wk__enc e = {out, WK_OK};
    put_vec3(&e, k->parent_t_inboard.p);
    wk__put_f64(&e, k->parent_t_inboard.q.w);
    put_vec3(&e, (wk_vec3){k->parent_t_inboard.q.x, k->parent_t_inboard.q.y, k->parent_t_inboard.q.z});
    put_vec3(&e, k->axis);
    wk__put_f64(&e, k->position);
    wk__put_u32(&e, k->motion);
    return e.rc;
}

static int kinematics_deserialize(void *dst, const uint8_t *bytes, size_t len)
{
    wk__dec d = {bytes, len, false};
    wk_kinematics k = {0};
    k.parent_t_inboard.p = get_vec3(&d);
    k.parent_t_inboard.q.w = wk__get_f64(&d);
    wk_vec3 v = get_vec3(&d);
    k.parent_t_inboard.q.x = v.x, k.parent_t_inboard.q.y = v.y, k.parent_t_inboard.q.z = v.z;
    k.axis = get_vec3(&d);
    k.position = wk__get_f64(&d);
    k.motion = wk__get_u32(&d);
    if (d.bad || d.left || k.motion > WK_JOINT_MOTION_FIXED || !wk_pose_is_valid(k.parent_t_inboard) ||
        fabs(wk_vec3_norm(k.axis) - 1) > 1e-9)
        return WK_PARSE;
    memcpy(dst, &k, sizeof k);
    return WK_OK;
}

const wk_type_hooks wk__kinematics_hooks = {
    .equal = kinematics_equal, .serialize = kinematics_serialize, .deserialize = kinematics_deserialize};

/* ---- KinematicObject --------------------------------------------------- */

void wk__kinematic_object_fini(wk_kinematic_object *k)
{
    for (uint32_t i = 0; k->configurations && i < k->configuration_count; i++) {
        free(k->configurations[i].name);
        free(k->configurations[i].positions);
    }
    for (uint32_t i = 0; k->ik_solvers && i < k->ik_solver_count; i++)
        free(k->ik_solvers[i].key);
    free(k->joints);
    free(k->system_limits);
    free(k->application_limits);
    free(k->configurations);
    free(k->ik_solvers);
    free(k->flange_frames);
    memset(k, 0, sizeof *k);
}

static void kinematic_object_destroy(void *value)
{
    wk__kinematic_object_fini(value);
}

/* A copy of n items of size bytes; true on success (NULL for n == 0). */
static bool dup_array(void **dst, const void *src, size_t n, size_t size)
{
    *dst = NULL;
    if (!n)
        return true;
    *dst = malloc(n * size);
    if (*dst)
        memcpy(*dst, src, n * size);
    return *dst != NULL;
}

static int kinematic_object_copy(void *dst, const void *src)
{
    const wk_kinematic_object *from = src;
    wk_kinematic_object to = {.joint_count = from->joint_count,
                              .configuration_count = from->configuration_count,
                              .ik_solver_count = from->ik_solver_count,
                              .flange_count = from->flange_count};
    size_t n = from->joint_count;
    bool ok = dup_array((void **)&to.joints, from->joints, n, sizeof *to.joints) &&
              dup_array((void **)&to.system_limits, from->system_limits, n, sizeof *to.system_limits) &&
              dup_array((void **)&to.application_limits, from->application_limits, n, sizeof *to.application_limits) &&
              dup_array((void **)&to.flange_frames, from->flange_frames, from->flange_count, sizeof *to.flange_frames);
    /* The arrays of owned strings start zeroed, so a failure half way frees
     * exactly what was copied. */
    if (ok && to.configuration_count)
        ok = (to.configurations = calloc(to.configuration_count, sizeof *to.configurations)) != NULL;
    for (uint32_t i = 0; ok && i < to.configuration_count; i++) {
        wk_joint_configuration *c = &to.configurations[i];
        ok = (c->name = strdup(from->configurations[i].name)) &&
             dup_array((void **)&c->positions, from->configurations[i].positions, n, sizeof *c->positions);
    }
    if (ok && to.ik_solver_count)
        ok = (to.ik_solvers = calloc(to.ik_solver_count, sizeof *to.ik_solvers)) != NULL;
    for (uint32_t i = 0; ok && i < to.ik_solver_count; i++) {
        to.ik_solvers[i] = from->ik_solvers[i];
        ok = (to.ik_solvers[i].key = strdup(from->ik_solvers[i].key)) != NULL;
    }
    if (!ok) {
        wk__kinematic_object_fini(&to);
        memset(dst, 0, sizeof to);
        return WK_NOMEM;
    }
    memcpy(dst, &to, sizeof to);
    return WK_OK;
}

static bool limit_equal(const wk_joint_limit *a, const wk_joint_limit *b)
{
    return wk__same_f64(a->min_position, b->min_position) && wk__same_f64(a->max_position, b->max_position) &&
           wk__same_f64(a->max_velocity, b->max_velocity) &&
           wk__same_f64(a->max_acceleration, b->max_acceleration) && wk__same_f64(a->max_jerk, b->max_jerk) &&
           wk__same_f64(a->max_effort, b->max_effort);
}

static bool kinematic_object_equal(const void *a, const void *b)
{
    const wk_kinematic_object *x = a, *y = b;
    if (x->joint_count != y->joint_count || x->configuration_count != y->configuration_count ||
        x->ik_solver_count != y->ik_solver_count || x->flange_count != y->flange_count)
        return false;
    size_t n = x->joint_count;
    for (size_t i = 0; i < n; i++)
        if (x->joints[i] != y->joints[i] || !limit_equal(&x->system_limits[i], &y->system_limits[i]) ||
            !limit_equal(&x->application_limits[i], &y->application_limits[i]))
            return false;
    for (uint32_t i = 0; i < x->configuration_count; i++) {
        const wk_joint_configuration *c = &x->configurations[i], *d = &y->configurations[i];
        if (strcmp(c->name, d->name) != 0)
            return false;
        for (size_t j = 0; j < n; j++)
            if (!wk__same_f64(c->positions[j], d->positions[j]))
                return false;
    }
    for (uint32_t i = 0; i < x->ik_solver_count; i++) {
        const wk_ik_solver *s = &x->ik_solvers[i], *t = &y->ik_solvers[i];
        if (s->base != t->base || s->tip != t->tip || strcmp(s->key, t->key) != 0)
            return false;
    }
    for (uint32_t i = 0; i < x->flange_count; i++)
        if (x->flange_frames[i] != y->flange_frames[i])
            return false;
    return true;
}

/* A limit may be infinite (unlimited), which codec.h's finite doubles
 * refuse: limits travel as raw bits, and only NaN is malformed. */
static void put_limit(wk__enc *e, const wk_joint_limit *l)
{
    const double v[6] = {l->min_position, l->max_position, l->max_velocity, l->max_acceleration, l->max_jerk,
                         l->max_effort};
    for (int i = 0; i < 6; i++) {
        uint64_t bits;
        memcpy(&bits, &v[i], sizeof bits);
        wk__put_u64(e, bits);
    }
}

static wk_joint_limit get_limit(wk__dec *d)
{
    double v[6];
    for (int i = 0; i < 6; i++) {
        uint64_t bits = wk__get_u64(d);
        memcpy(&v[i], &bits, sizeof bits);
    }
    return (wk_joint_limit){v[0], v[1], v[2], v[3], v[4], v[5]};
}

static int kinematic_object_serialize(const void *value, wk_buf *out)
{
    const wk_kinematic_object *k = value;
    wk__enc e = {out, WK_OK};
    wk__put_u32(&e, k->joint_count);
    for (uint32_t i = 0; i < k->joint_count; i++) {
        wk__put_u64(&e, k->joints[i]);
        put_limit(&e, &k->system_limits[i]);
        put_limit(&e, &k->application_limits[i]);
    }
    wk__put_u32(&e, k->configuration_count);
    for (uint32_t i = 0; i < k->configuration_count; i++) {
        const wk_joint_configuration *c = &k->configurations[i];
        wk__put_bytes(&e, c->name, strlen(c->name));
        for (uint32_t j = 0; j < k->joint_count; j++)
            wk__put_f64(&e, c->positions[j]);
    }
    wk__put_u32(&e, k->ik_solver_count);
    for (uint32_t i = 0; i < k->ik_solver_count; i++) {
        wk__put_bytes(&e, k->ik_solvers[i].key, strlen(k->ik_solvers[i].key));
        wk__put_u64(&e, k->ik_solvers[i].base);
        wk__put_u64(&e, k->ik_solvers[i].tip);
    }
    wk__put_u32(&e, k->flange_count);
    for (uint32_t i = 0; i < k->flange_count; i++)
        wk__put_u64(&e, k->flange_frames[i]);
    return e.rc;
}

/* A zeroed array of a count read from the input, each item taking at least
 * min_size bytes there, so that no allocation outgrows the input. NULL with
 * *count 0 for a count of 0, or when the count is malformed (d->bad) or
 * memory ran out (*nomem too). */
static void *get_array(wk__dec *d, size_t min_size, size_t item_size, uint32_t *count, bool *nomem)
{
    uint32_t n = wk__get_u32(d);
    *count = 0;
    if (d->bad || !n)
        return NULL;
    void *items = n <= d->left / min_size ? calloc(n, item_size) : NULL;
    if (!items) {
        *nomem = n <= d->left / min_size;
        d->bad = true;
        return NULL;
    }
    *count = n;
    return items;
}

/* A non-empty string without NUL bytes, owned; NULL when malformed or out
 * of memory. */
static char *get_string(wk__dec *d, bool *nomem)
{
    size_t n;
    const uint8_t *at = wk__get_bytes(d, &n);
    char *s = at && n && !memchr(at, 0, n) ? malloc(n + 1) : NULL;
    if (!s) {
        *nomem = at && n && !memchr(at, 0, n);
        d->bad = true;
        return NULL;
    }
    memcpy(s, at, n);
    s[n] = '\0';
    return s;
}

static void get_joints(wk__dec *d, wk_kinematic_object *k, bool *nomem)
{
    k->joints = get_array(d, 8 + 2 * 6 * 8, sizeof *k->joints, &k->joint_count, nomem);
    uint32_t n = k->joint_count;
    if (n && (!(k->system_limits = malloc(n * sizeof *k->system_limits)) ||
              !(k->application_limits = malloc(n * sizeof *k->application_limits))))
        *nomem = d->bad = true;
    for (uint32_t i = 0; i < n && !d->bad; i++) {
        k->joints[i] = wk__get_u64(d);
        k->system_limits[i] = get_limit(d);
        k->application_limits[i] = get_limit(d);
        if (!d->bad && (!k->joints[i] || wk__limits_check(&k->system_limits[i], &k->application_limits[i], NULL,
                                                          NULL, NULL)))
            d->bad = true;
    }
}

static void get_configurations(wk__dec *d, wk_kinematic_object *k, bool *nomem)
{
    uint32_t joints = k->joint_count;
    k->configurations = get_array(d, 4 + 8 * (size_t)joints, sizeof *k->configurations, &k->configuration_count,
                                  nomem);
    for (uint32_t i = 0; i < k->configuration_count && !d->bad; i++) {
        wk_joint_configuration *c = &k->configurations[i];
        c->name = get_string(d, nomem);
        if (joints && !d->bad && !(c->positions = malloc(joints * sizeof *c->positions)))
            *nomem = d->bad = true;
        for (uint32_t j = 0; j < joints && !d->bad; j++)
            c->positions[j] = wk__get_f64(d);
    }
}

static void get_solvers(wk__dec *d, wk_kinematic_object *k, bool *nomem)
{
    k->ik_solvers = get_array(d, 4 + 16, sizeof *k->ik_solvers, &k->ik_solver_count, nomem);
    for (uint32_t i = 0; i < k->ik_solver_count && !d->bad; i++) {
        k->ik_solvers[i].key = get_string(d, nomem);
        k->ik_solvers[i].base = wk__get_u64(d);
        k->ik_solvers[i].tip = wk__get_u64(d);
    }
}

static void get_flanges(wk__dec *d, wk_kinematic_object *k, bool *nomem)
{
    k->flange_frames = get_array(d, 8, sizeof *k->flange_frames, &k->flange_count, nomem);
    for (uint32_t i = 0; i < k->flange_count && !d->bad; i++)
        k->flange_frames[i] = wk__get_u64(d);
}

static int kinematic_object_deserialize(void *dst, const uint8_t *bytes, size_t len)
{
    wk__dec d = {bytes, len, false};
    wk_kinematic_object k = {0};
    bool nomem = false;
    get_joints(&d, &k, &nomem);
    get_configurations(&d, &k, &nomem);
    get_solvers(&d, &k, &nomem);
    get_flanges(&d, &k, &nomem);
    if (d.bad || d.left) {
        wk__kinematic_object_fini(&k);
        return nomem ? WK_NOMEM : WK_PARSE;
    }
    memcpy(dst, &k, sizeof k);
    return WK_OK;
}

const wk_type_hooks wk__kinematic_object_hooks = {.copy = kinematic_object_copy,
                                                  .destroy = kinematic_object_destroy,
                                                  .equal = kinematic_object_equal,
                                                  .serialize = kinematic_object_serialize,
                                                  .deserialize = kinematic_object_deserialize};
