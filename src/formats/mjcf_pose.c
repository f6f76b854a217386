/* mjcf_pose.c — the MJCF reader's poses: a position and one of MuJoCo's
 * orientation forms (quat, axisangle, xyaxes, zaxis, euler in the compiler's
 * eulerseq), or for geoms and sites a fromto segment.
 *
 * The five orientation forms are separate attributes, applied in MuJoCo
 * 2.2.2's order quat, axisangle, xyaxes, zaxis, euler, whatever level gave
 * them: the last form given in that order is the one that counts. Angles are
 * in degrees unless <compiler angle="radian">. */
#include <math.h>
#include <stddef.h>

#include "formats/mjcf.h"

#define PI 3.14159265358979323846

static wk_vec3 unit_axis(int axis)
{
    return (wk_vec3){axis == 0, axis == 1, axis == 2};
}

static wk_quat rotation(wk_vec3 unit, double angle)
{
    double s = sin(angle / 2);
    return (wk_quat){cos(angle / 2), s * unit.x, s * unit.y, s * unit.z};
}

/* Like MuJoCo, this turns about x by pi when v is -z. */
wk_quat wk__mjcf_z_to(wk_vec3 v)
{
    wk_vec3 axis = wk_vec3_cross((wk_vec3){0, 0, 1}, v);
    double s = wk_vec3_norm(axis);
    axis = s < 1e-10 ? unit_axis(0) : wk_vec3_scale(axis, 1 / s);
    return rotation(axis, atan2(s, v.z));
}

bool wk__mjcf_direction(wk_vec3 v, wk_vec3 *out)
{
    double n = wk_vec3_norm(v);
    if (!(n >= 1e-14))
        return false;
    *out = wk_vec3_scale(v, 1 / n);
    return true;
}

double wk__mjcf_angle_unit(const mjcf_reader *r)
{
    return r->degree ? PI / 180 : 1;
}

/* Each form sets *q from a, or returns why it cannot. */
typedef const char *(*form_fn)(const mjcf_reader *r, const attrs *a, wk_quat *q);

static const char *from_quat(const mjcf_reader *r, const attrs *a, wk_quat *q)
{
    (void)r;
    return wk_quat_normalize((wk_quat){a->quat[0], a->quat[1], a->quat[2], a->quat[3]}, q) ? "quat is zero" : NULL;
}

static const char *from_axisangle(const mjcf_reader *r, const attrs *a, wk_quat *q)
{
    wk_vec3 axis;
    if (!wk__mjcf_direction(wk__mjcf_vec3(a->axisangle), &axis))
        return "the axisangle axis is zero";
    *q = rotation(axis, a->axisangle[3] * wk__mjcf_angle_unit(r));
    return NULL;
}

static const char *from_xyaxes(const mjcf_reader *r, const attrs *a, wk_quat *q)
{
    (void)r;
    wk_vec3 x, y, z;
    if (!wk__mjcf_direction(wk__mjcf_vec3(a->xyaxes), &x))
        return "the xyaxes x axis is zero";
    /* y loses its part along x, as in MuJoCo. */
    wk_vec3 y_raw = wk__mjcf_vec3(a->xyaxes + 3);
    if (!wk__mjcf_direction(wk_vec3_sub(y_raw, wk_vec3_scale(x, wk_vec3_dot(x, y_raw))), &y))
        return "the xyaxes y axis is zero or parallel to x";
    if (!wk__mjcf_direction(wk_vec3_cross(x, y), &z))
        return "the xyaxes axes are parallel";
    *q = wk_quat_from_axes(x, y, z);
    return NULL;
}

static const char *from_zaxis(const mjcf_reader *r, const attrs *a, wk_quat *q)
{
    (void)r;
    wk_vec3 z;
    if (!wk__mjcf_direction(wk__mjcf_vec3(a->zaxis), &z))
        return "zaxis is zero";
    *q = wk__mjcf_z_to(z);
    return NULL;
}

/* Lowercase axes of the compiler's eulerseq rotate with the frame
 * (intrinsic, multiplied on the right), uppercase ones stay fixed
 * (extrinsic, multiplied on the left). */
static const char *from_euler(const mjcf_reader *r, const attrs *a, wk_quat *q)
{
    *q = wk_quat_identity();
    for (int i = 0; i < 3; i++) {
        char c = r->eulerseq[i];
        bool fixed = c >= 'X' && c <= 'Z';
        wk_quat step = rotation(unit_axis(fixed ? c - 'X' : c - 'x'), a->euler[i] * wk__mjcf_angle_unit(r));
        *q = fixed ? wk_quat_mul(step, *q) : wk_quat_mul(*q, step);
    }
    return NULL;
}

/* MuJoCo 2.2.2's order: each form given overrides the ones before. */
static const struct orientation_form {
    int bit;
    form_fn to_quat;
} forms[] = {
    {HAS_quat, from_quat},   {HAS_axisangle, from_axisangle}, {HAS_xyaxes, from_xyaxes},
    {HAS_zaxis, from_zaxis}, {HAS_euler, from_euler},
};

int wk__mjcf_pose_of(mjcf_reader *r, xmlNodePtr el, const attrs *a, wk_pose *out)
{
    *out = (wk_pose){wk__mjcf_vec3(a->pos), wk_quat_identity()};
    for (size_t i = COUNT(forms); i-- > 0;) {
        if (!((a->given >> forms[i].bit) & 1u))
            continue;
        const char *why = forms[i].to_quat(r, a, &out->q);
        return why ? wk__mjcf_fail(r, el, WK_PARSE, "%s", why) : WK_OK;
    }
    return WK_OK;
}

/* fromto, when given, places the shape's z axis along the segment (from its
 * end to its start, as MuJoCo does) and sets its half-length in a->size. */
int wk__mjcf_shape_pose(mjcf_reader *r, xmlNodePtr el, int fromto_axis, attrs *a, wk_pose *pose)
{
    if (!GIVEN(a, fromto))
        return wk__mjcf_pose_of(r, el, a, pose);
    if (!fromto_axis)
        return wk__mjcf_fail(r, el, WK_PARSE, "fromto needs a capsule, cylinder, ellipsoid or box");
    wk_vec3 from = wk__mjcf_vec3(a->fromto), to = wk__mjcf_vec3(a->fromto + 3), along;
    if (!wk__mjcf_direction(wk_vec3_sub(from, to), &along))
        return wk__mjcf_fail(r, el, WK_PARSE, "fromto has two equal ends");
    *pose = (wk_pose){wk_vec3_scale(wk_vec3_add(from, to), 0.5), wk__mjcf_z_to(along)};
    if (fromto_axis == 2)
        a->size[1] = a->size[0];
    a->size[fromto_axis] = wk_vec3_norm(wk_vec3_sub(from, to)) / 2;
    return WK_OK;
}
