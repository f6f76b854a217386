/* wk_math.h — the math layer: vectors, quaternions, rigid poses and boxes, in
 * double precision.
 *
 * Conventions (they are SDFormat's and gz-math's):
 * - A pose a_T_b maps coordinates in frame b to frame a: p_a = R * p_b + t.
 *   wk_pose_compose(a_T_b, b_T_c) = a_T_c.
 * - Roll-pitch-yaw are fixed-axis angles: roll about X, then pitch about the
 *   fixed Y, then yaw about the fixed Z, so q = qz(yaw) * qy(pitch) * qx(roll).
 * - Quaternions are stored w, x, y, z and compose as Hamilton products. */
#ifndef WK_MATH_H
#define WK_MATH_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wk_vec3 {
    double x, y, z;
} wk_vec3;

typedef struct wk_quat {
    double w, x, y, z;
} wk_quat;

typedef struct wk_pose {
    wk_vec3 p;
    wk_quat q;
} wk_pose;

/* An axis-aligned box; empty when any min exceeds its max. */
typedef struct wk_aabb {
    wk_vec3 min, max;
} wk_aabb;

/* The tolerance on |q| - 1 for a quaternion to count as a rotation. */
#define WK_QUAT_UNIT_TOLERANCE 1e-6

/* The largest magnitude, in metres, of each translation component a pose may
 * have when it comes from outside (either sign; the limit itself is taken).
 * Far past any robot's world, planetary distances included, and small enough
 * that composing billions of such poses stays finite: without it, finite
 * translations such as 1.7e308 and -1.7e308 overflow when composed. */
#define WK_POSE_TRANSLATION_MAX 1e12
/* The same bound for each component of a velocity or an acceleration given
 * from outside (per second, per second squared): their products with lever
 * arms and step times then stay finite too. */
#define WK_RATE_MAX 1e12

wk_vec3 wk_vec3_add(wk_vec3 a, wk_vec3 b);
wk_vec3 wk_vec3_sub(wk_vec3 a, wk_vec3 b);
wk_vec3 wk_vec3_scale(wk_vec3 a, double s);
/* Per axis, the smaller and the larger of a's and b's. */
wk_vec3 wk_vec3_min(wk_vec3 a, wk_vec3 b);
wk_vec3 wk_vec3_max(wk_vec3 a, wk_vec3 b);
double wk_vec3_dot(wk_vec3 a, wk_vec3 b);
wk_vec3 wk_vec3_cross(wk_vec3 a, wk_vec3 b);
double wk_vec3_norm(wk_vec3 a);
bool wk_vec3_is_finite(wk_vec3 a);

wk_quat wk_quat_identity(void);
/* Hamilton product a * b: rotating by b first, then by a. */
wk_quat wk_quat_mul(wk_quat a, wk_quat b);
/* The inverse of a unit quaternion (its conjugate). */
wk_quat wk_quat_conjugate(wk_quat q);
double wk_quat_norm(wk_quat q);
/* Writes q / |q| to out. Fails with WK_INVALID for a zero or non-finite q. */
int wk_quat_normalize(wk_quat q, wk_quat *out);
/* Finite and of unit length within WK_QUAT_UNIT_TOLERANCE. */
bool wk_quat_is_valid(wk_quat q);
wk_vec3 wk_quat_rotate(wk_quat q, wk_vec3 v);
wk_quat wk_quat_from_rpy(double roll, double pitch, double yaw);
/* Inverse of wk_quat_from_rpy with pitch in [-pi/2, pi/2]. At gimbal lock
 * (pitch = +-pi/2) only roll - yaw (or roll + yaw) is defined: yaw is set to
 * zero and roll carries the whole angle. */
wk_vec3 wk_quat_to_rpy(wk_quat q);
/* Rotation of angle radians about axis (any length but zero). Fails with
 * WK_INVALID for a zero or non-finite axis or a non-finite angle. */
int wk_quat_from_axis_angle(wk_vec3 axis, double angle, wk_quat *out);
/* The rotation whose matrix has the orthonormal, right-handed x, y, z as its columns. */
wk_quat wk_quat_from_axes(wk_vec3 x, wk_vec3 y, wk_vec3 z);
/* True when a and b are the same rotation within tol (q and -q are equal). */
bool wk_quat_near(wk_quat a, wk_quat b, double tol);

wk_pose wk_pose_identity(void);
/* a_T_c from a_T_b and b_T_c. */
wk_pose wk_pose_compose(wk_pose a_T_b, wk_pose b_T_c);
/* b_T_a from a_T_b. */
wk_pose wk_pose_inverse(wk_pose a_T_b);
/* b_T_c from a_T_b and a_T_c: wk_pose_compose(wk_pose_inverse(a_T_b), a_T_c)
 * with one rotation instead of two (equal to rounding). */
wk_pose wk_pose_relative(wk_pose a_T_b, wk_pose a_T_c);
/* p_a from a_T_b and p_b. */
wk_vec3 wk_pose_transform_point(wk_pose a_T_b, wk_vec3 p_b);
/* Every component finite and within +-WK_POSE_TRANSLATION_MAX. */
bool wk_translation_is_valid(wk_vec3 p);
/* When p is not a valid translation, writes why to why (cap bytes: the first
 * offending component, its value and the limit) and returns true. */
bool wk_translation_problem(wk_vec3 p, char *why, size_t cap);
/* A valid translation and a valid rotation: the check for poses that came
 * from outside. */
bool wk_pose_is_valid(wk_pose pose);
/* When pose is not valid, writes why to why (cap bytes: the offending
 * translation component with its value and the limit, or the norm of a
 * rotation that is not unit) and returns true. */
bool wk_pose_problem(wk_pose pose, char *why, size_t cap);

/* The box of the given size centred on center. */
wk_aabb wk_aabb_from_center(wk_vec3 center, wk_vec3 size);
/* The box grown by margin on every side. */
wk_aabb wk_aabb_inflate(wk_aabb box, double margin);
/* True when the boxes overlap or touch. */
bool wk_aabb_intersects(wk_aabb a, wk_aabb b);

#ifdef __cplusplus
}
#endif
#endif
