/* pose.c — rigid transforms a_T_b (a rotation and a translation) that place
 * every link, joint and sensor frame relative to its parent. Composition
 * chains them into world poses, the inverse turns a parent-relative pose
 * around, and transforming a point takes coordinates from one frame to
 * another. Rotations are assumed to be unit quaternions; wk_pose_is_valid is
 * the check for data that came from outside, wk_pose_problem says what is
 * wrong with such data. */
#include "worldkit/wk_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

wk_pose wk_pose_identity(void)
{
    return (wk_pose){{0.0, 0.0, 0.0}, wk_quat_identity()};
}

wk_pose wk_pose_compose(wk_pose a_T_b, wk_pose b_T_c)
{
    /* The origin of c sits at b_T_c.p in b, which a_T_b carries into a. */
    return (wk_pose){wk_pose_transform_point(a_T_b, b_T_c.p), wk_quat_mul(a_T_b.q, b_T_c.q)};
}

wk_pose wk_pose_inverse(wk_pose a_T_b)
{
    /* Solving p_a = R p_b + t for p_b gives p_b = R^T p_a - R^T t. */
    wk_quat b_R_a = wk_quat_conjugate(a_T_b.q);
    return (wk_pose){wk_vec3_scale(wk_quat_rotate(b_R_a, a_T_b.p), -1.0), b_R_a};
}

/* Flattened (every call inlined, with LTO across files too): GetTransform
 * runs it per call, and a call to wk_quat_rotate, passing a quaternion
 * and a vector on the stack, costs as much as the rotation. */
__attribute__((flatten)) wk_pose wk_pose_relative(wk_pose a_T_b, wk_pose a_T_c)
{
    /* c's origin seen from b's is their offset in a, turned into b. */
    wk_quat b_R_a = wk_quat_conjugate(a_T_b.q);
    return (wk_pose){wk_quat_rotate(b_R_a, wk_vec3_sub(a_T_c.p, a_T_b.p)), wk_quat_mul(b_R_a, a_T_c.q)};
}

wk_vec3 wk_pose_transform_point(wk_pose a_T_b, wk_vec3 p_b)
{
    return wk_vec3_add(wk_quat_rotate(a_T_b.q, p_b), a_T_b.p);
}

static bool component_is_valid(double x)
{
    return fabs(x) <= WK_POSE_TRANSLATION_MAX; /* false for NaN too */
}

bool wk_translation_is_valid(wk_vec3 p)
{
    return component_is_valid(p.x) && component_is_valid(p.y) && component_is_valid(p.z);
}

/* x in the fewest significant digits that read back as x, so that a value
 * just past the limit does not print as the limit. */
static void shortest(double x, char buf[32])
{
    for (int digits = 6; digits < 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, x);
        if (strtod(buf, NULL) == x)
            return;
    }
    snprintf(buf, 32, "%.17g", x);
}

bool wk_translation_problem(wk_vec3 p, char *why, size_t cap)
{
    const struct {
        const char *name;
        double value;
    } components[] = {{"x", p.x}, {"y", p.y}, {"z", p.z}};
    for (size_t i = 0; i < sizeof components / sizeof *components; i++) {
        double x = components[i].value;
        if (component_is_valid(x))
            continue;
        char value[32];
        shortest(x, value);
        if (isfinite(x))
            snprintf(why, cap, "translation %s = %s is beyond the limit of +-%g m", components[i].name, value,
                     WK_POSE_TRANSLATION_MAX);
        else
            snprintf(why, cap, "translation %s = %s is not finite", components[i].name, value);
        return true;
    }
    return false;
}

bool wk_pose_is_valid(wk_pose pose)
{
    return wk_translation_is_valid(pose.p) && wk_quat_is_valid(pose.q);
}

bool wk_pose_problem(wk_pose pose, char *why, size_t cap)
{
    if (wk_translation_problem(pose.p, why, cap))
        return true;
    if (wk_quat_is_valid(pose.q))
        return false;
    snprintf(why, cap, "the orientation is not a unit quaternion (|q| = %.9g)", wk_quat_norm(pose.q));
    return true;
}
