/* kinematic_data.c — a kinematic object's Cartesian limits and mounted
 * payload between Intrinsic's messages (icon.CartesianLimits,
 * world.RobotPayload) and the scene's values, both ways: read from
 * UpdateKinematicObjectProperties and CreateWorld's snapshots, written into
 * the KinematicObjectComponent of GetObject's FULL view.
 *
 * The messages are proto3 upstream: a translational bound without values is
 * absent, and a rotational limit or a mass of zero is not written, as a
 * proto3 writer would not. */
#include "api/ows/ows.h"

static int cartesian_limits_in(const IntrinsicProto__Icon__CartesianLimits *msg, wk_cartesian_limits *out,
                               wk_status *st)
{
    const IntrinsicProto__Icon__CartesianLimits *m = msg;
    /* In wk_cartesian_bound's order. */
    const struct {
        const char *name;
        size_t n;
        const double *values;
    } fields[WK_CART_BOUND_COUNT] = {
        {"min_translational_position", m->n_min_translational_position, m->min_translational_position},
        {"max_translational_position", m->n_max_translational_position, m->max_translational_position},
        {"min_translational_velocity", m->n_min_translational_velocity, m->min_translational_velocity},
        {"max_translational_velocity", m->n_max_translational_velocity, m->max_translational_velocity},
        {"min_translational_acceleration", m->n_min_translational_acceleration, m->min_translational_acceleration},
        {"max_translational_acceleration", m->n_max_translational_acceleration, m->max_translational_acceleration},
        {"min_translational_jerk", m->n_min_translational_jerk, m->min_translational_jerk},
        {"max_translational_jerk", m->n_max_translational_jerk, m->max_translational_jerk},
    };
    *out = (wk_cartesian_limits){0};
    for (int b = 0; b < WK_CART_BOUND_COUNT; b++) {
        if (!fields[b].n)
            continue;
        if (fields[b].n != 3)
            return wk_fail(st, WK_INVALID, "cartesian_limits.%s holds %zu values, not 3 (x, y, z)", fields[b].name,
                           fields[b].n);
        out->translational[b] = (wk_vec3){fields[b].values[0], fields[b].values[1], fields[b].values[2]};
        out->present |= 1u << b;
    }
    out->max_rotational_velocity = msg->has_max_rotational_velocity ? msg->max_rotational_velocity : 0;
    out->max_rotational_acceleration = msg->has_max_rotational_acceleration ? msg->max_rotational_acceleration : 0;
    out->max_rotational_jerk = msg->has_max_rotational_jerk ? msg->max_rotational_jerk : 0;
    return WK_OK;
}

int wk__ows_inertia_in(const IntrinsicProto__Matrixd *m, const char *what, double out[3][3], wk_status *st)
{
    if (m->rows != 3 || m->cols != 3 || m->n_values != 9)
        return wk_fail(st, WK_INVALID, "%s is %dx%d with %zu values, not 3x3 with 9", what, (int)m->rows,
                       (int)m->cols, m->n_values);
    /* Matrixd holds its values column after column. */
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            out[r][c] = m->values[c * 3 + r];
    return WK_OK;
}

static int payload_in(const IntrinsicProto__World__RobotPayload *msg, wk_payload *out, wk_status *st)
{
    *out = (wk_payload){.mass_kg = msg->has_mass_kg ? msg->mass_kg : 0};
    out->tip_t_cog = wk__ows_pose_in(msg->tip_t_cog);
    return msg->inertia ? wk__ows_inertia_in(msg->inertia, "mounted_payload.inertia", out->inertia, st) : WK_OK;
}

int wk__ows_set_limits_and_payload(wk_scene *s, wk_entity object, const IntrinsicProto__Icon__CartesianLimits *limits,
                                   const IntrinsicProto__World__RobotPayload *payload, wk_status *st)
{
    wk_cartesian_limits l;
    wk_payload p;
    int rc = WK_OK;
    if (limits && (rc = cartesian_limits_in(limits, &l, st)) == WK_OK)
        rc = wk_scene_set_cartesian_limits(s, object, &l, st);
    if (rc == WK_OK && payload && (rc = payload_in(payload, &p, st)) == WK_OK)
        rc = wk_scene_set_payload(s, object, &p, st);
    return rc;
}

IntrinsicProto__Icon__CartesianLimits *wk__ows_cartesian_limits(wk__call *call, const wk_cartesian_limits *l)
{
    IntrinsicProto__Icon__CartesianLimits *m = wk__ows_new(call, &intrinsic_proto__icon__cartesian_limits__descriptor);
    if (!m)
        return NULL;
    size_t *counts[WK_CART_BOUND_COUNT] = {
        &m->n_min_translational_position,     &m->n_max_translational_position,
        &m->n_min_translational_velocity,     &m->n_max_translational_velocity,
        &m->n_min_translational_acceleration, &m->n_max_translational_acceleration,
        &m->n_min_translational_jerk,         &m->n_max_translational_jerk,
    };
    double **values[WK_CART_BOUND_COUNT] = {
        &m->min_translational_position,     &m->max_translational_position,
        &m->min_translational_velocity,     &m->max_translational_velocity,
        &m->min_translational_acceleration, &m->max_translational_acceleration,
        &m->min_translational_jerk,         &m->max_translational_jerk,
    };
    for (int b = 0; b < WK_CART_BOUND_COUNT; b++) {
        if (!(l->present >> b & 1))
            continue;
        double *v = wk__ows_array(call, 3, sizeof *v);
        if (!v)
            return NULL;
        v[0] = l->translational[b].x, v[1] = l->translational[b].y, v[2] = l->translational[b].z;
        *values[b] = v;
        *counts[b] = 3;
    }
    m->has_max_rotational_velocity = (m->max_rotational_velocity = l->max_rotational_velocity) != 0;
    m->has_max_rotational_acceleration = (m->max_rotational_acceleration = l->max_rotational_acceleration) != 0;
    m->has_max_rotational_jerk = (m->max_rotational_jerk = l->max_rotational_jerk) != 0;
    return m;
}

IntrinsicProto__World__RobotPayload *wk__ows_payload(wk__call *call, const wk_payload *p)
{
    IntrinsicProto__World__RobotPayload *m = wk__ows_new(call, &intrinsic_proto__world__robot_payload__descriptor);
    if (!m)
        return NULL;
    m->has_mass_kg = (m->mass_kg = p->mass_kg) != 0;
    m->tip_t_cog = wk__ows_pose(call, p->tip_t_cog);
    m->inertia = wk__ows_inertia(call, p->inertia);
    return m->tip_t_cog && m->inertia ? m : NULL;
}
