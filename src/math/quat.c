/* quat.c — unit quaternions as rotations: Hamilton products, rotating
 * vectors, and conversion from and to the roll-pitch-yaw angles and
 * axis-angle pairs that SDFormat worlds are written in, and from the frame
 * axes (rotation matrix columns) MuJoCo's xyaxes give. The conventions are
 * the ones wk_math.h states (gz-math's), so a pose read from a world file
 * means here what it means to Gazebo. Only the calls that take untrusted
 * input and cannot give a meaningful answer for all of it return a result
 * code; the rest propagate NaN and leave checking to wk_quat_is_valid. */
#include "worldkit/wk_math.h"

#include "worldkit/wk_base.h"

#include <math.h>

/* C11 leaves M_PI out of math.h. */
static const double pi = 3.14159265358979323846;

/* How close, in radians, pitch must come to +-pi/2 for wk_quat_to_rpy to call
 * the rotation gimbal-locked. Near the lock the split between roll and yaw is
 * ill-conditioned: its rounding error grows like 1e-16 over the distance to
 * the lock, so a few ulps away it is pure noise. Snapping everything within
 * this tolerance to the lock gives the defined answer there, and moves the
 * rotation by at most a few times this angle, far below anything a
 * simulation can tell apart. The tolerance sits well above the noise a chain
 * of double-precision products leaves (around 1e-15). */
static const double rpy_lock_tolerance = 1e-12;

static bool quat_is_finite(wk_quat q)
{
    return isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z);
}

static wk_quat quat_div(wk_quat q, double d)
{
    return (wk_quat){q.w / d, q.x / d, q.y / d, q.z / d};
}

static double quat_dot(wk_quat a, wk_quat b)
{
    return a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
}

/* Maps an angle to [-pi, pi], the range roll and yaw are reported in. */
static double wrap_angle(double angle)
{
    return remainder(angle, 2.0 * pi);
}

wk_quat wk_quat_identity(void)
{
    return (wk_quat){1.0, 0.0, 0.0, 0.0};
}

wk_quat wk_quat_mul(wk_quat a, wk_quat b)
{
    return (wk_quat){
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
    };
}

wk_quat wk_quat_conjugate(wk_quat q)
{
    return (wk_quat){q.w, -q.x, -q.y, -q.z};
}

double wk_quat_norm(wk_quat q)
{
    return sqrt(quat_dot(q, q));
}

int wk_quat_normalize(wk_quat q, wk_quat *out)
{
    if (!quat_is_finite(q))
        return WK_INVALID;
    double largest = fmax(fmax(fabs(q.w), fabs(q.x)), fmax(fabs(q.y), fabs(q.z)));
    if (largest == 0.0)
        return WK_INVALID;
    /* Dividing by the largest component first puts the norm in [1, 2], so the
     * sum of squares can neither overflow nor underflow and every finite
     * nonzero q normalises, however large or small its components. */
    wk_quat scaled = quat_div(q, largest);
    *out = quat_div(scaled, wk_quat_norm(scaled));
    return WK_OK;
}

bool wk_quat_is_valid(wk_quat q)
{
    /* A NaN or infinite component makes the norm NaN or infinite, and either
     * fails this comparison, so it also covers the finiteness half. */
    return fabs(wk_quat_norm(q) - 1.0) <= WK_QUAT_UNIT_TOLERANCE;
}

wk_vec3 wk_quat_rotate(wk_quat q, wk_vec3 v)
{
    /* q v q* expanded for a unit q with vector part u is v + w t + u x t,
     * where t = 2 u x v: about half the arithmetic of two Hamilton products. */
    wk_vec3 u = {q.x, q.y, q.z};
    wk_vec3 t = wk_vec3_scale(wk_vec3_cross(u, v), 2.0);
    return wk_vec3_add(wk_vec3_add(v, wk_vec3_scale(t, q.w)), wk_vec3_cross(u, t));
}

wk_quat wk_quat_from_rpy(double roll, double pitch, double yaw)
{
    /* Built the way the convention reads, one elementary rotation per fixed
     * axis, so the order can be checked against SDFormat at a glance; the
     * expanded closed form would save a few multiplications in a call that
     * runs when worlds are loaded, not per step. */
    wk_quat qx = {cos(0.5 * roll), sin(0.5 * roll), 0.0, 0.0};
    wk_quat qy = {cos(0.5 * pitch), 0.0, sin(0.5 * pitch), 0.0};
    wk_quat qz = {cos(0.5 * yaw), 0.0, 0.0, sin(0.5 * yaw)};
    return wk_quat_mul(qz, wk_quat_mul(qy, qx));
}

wk_vec3 wk_quat_to_rpy(wk_quat q)
{
    /* Expanding q = qz(yaw) * qy(pitch) * qx(roll) in half angles, with c and
     * s the cosine and sine of pitch / 2, gives two polar pairs:
     *   w + y = (c + s) cos((roll - yaw) / 2),  x - z = (c + s) sin((roll - yaw) / 2),
     *   w - y = (c - s) cos((roll + yaw) / 2),  x + z = (c - s) sin((roll + yaw) / 2).
     * atan2 of each pair gives the half difference and half sum of roll and
     * yaw, and the ratio of the pair lengths, (c - s) / (c + s), is
     * tan(pi/4 - pitch/2). The textbook route, asin of the matrix entry
     * sin(pitch) with its argument clamped, loses half the digits of pitch
     * near +-pi/2 (an error of 1e-8 rather than 1e-16), which is where this
     * conversion most needs to be right; every step here stays well
     * conditioned up to the lock itself. None of it needs q to be of unit
     * length, and negating q moves both half angles by pi, which the
     * wrapping below absorbs. */
    double half_sum = atan2(q.x + q.z, q.w - q.y);
    double half_diff = atan2(q.x - q.z, q.w + q.y);
    double plus_len = hypot(q.w + q.y, q.x - q.z);
    double minus_len = hypot(q.w - q.y, q.x + q.z);
    /* The angles from pitch to +pi/2 and to -pi/2; they add up to pi. */
    double to_up = 2.0 * atan2(minus_len, plus_len);
    double to_down = 2.0 * atan2(plus_len, minus_len);

    /* At the lock one pair has zero length, so only roll - yaw (pitch up) or
     * roll + yaw (pitch down) is defined; yaw takes zero and roll the rest. */
    if (to_up <= rpy_lock_tolerance)
        return (wk_vec3){wrap_angle(2.0 * half_diff), 0.5 * pi, 0.0};
    if (to_down <= rpy_lock_tolerance)
        return (wk_vec3){wrap_angle(2.0 * half_sum), -0.5 * pi, 0.0};
    return (wk_vec3){
        wrap_angle(half_sum + half_diff),
        0.5 * (to_down - to_up),
        wrap_angle(half_sum - half_diff),
    };
}

int wk_quat_from_axis_angle(wk_vec3 axis, double angle, wk_quat *out)
{
    /* Normalising the axis as a pure quaternion reuses the overflow-safe
     * scaling and the rejection of zero and non-finite axes. */
    wk_quat unit;
    if (!isfinite(angle) || wk_quat_normalize((wk_quat){0.0, axis.x, axis.y, axis.z}, &unit) != WK_OK)
        return WK_INVALID;
    double s = sin(0.5 * angle);
    *out = (wk_quat){cos(0.5 * angle), s * unit.x, s * unit.y, s * unit.z};
    return WK_OK;
}

wk_quat wk_quat_from_axes(wk_vec3 x, wk_vec3 y, wk_vec3 z)
{
    /* With R the matrix of columns x, y, z: 4 w^2 = 1 + trace(R),
     * 4 q.x^2 = 1 + R00 - R11 - R22 (q.y, q.z likewise), and the sums and
     * differences of opposite off-diagonal entries are 4 times the products
     * of two components. Each branch takes one component from its square
     * root, w when the trace is positive (then w > 1/2), else the one whose
     * diagonal entry is largest, and the other three from the products: the
     * division is never by a small number, so rounding in R stays small. */
    double trace = x.x + y.y + z.z, s;
    if (trace > 0) {
        s = 2 * sqrt(trace + 1);
        return (wk_quat){s / 4, (y.z - z.y) / s, (z.x - x.z) / s, (x.y - y.x) / s};
    }
    if (x.x > y.y && x.x > z.z) {
        s = 2 * sqrt(1 + x.x - y.y - z.z);
        return (wk_quat){(y.z - z.y) / s, s / 4, (y.x + x.y) / s, (z.x + x.z) / s};
    }
    if (y.y > z.z) {
        s = 2 * sqrt(1 + y.y - x.x - z.z);
        return (wk_quat){(z.x - x.z) / s, (y.x + x.y) / s, s / 4, (z.y + y.z) / s};
    }
    s = 2 * sqrt(1 + z.z - x.x - y.y);
    return (wk_quat){(x.y - y.x) / s, (z.x + x.z) / s, (z.y + y.z) / s, s / 4};
}

bool wk_quat_near(wk_quat a, wk_quat b, double tol)
{
    /* q and -q are the same rotation, so a is compared with whichever of b
     * and -b lies in its half of the sphere. For unit quaternions the
     * distance |a - b| is 2 sin(angle / 4), about half the angle between the
     * two rotations. */
    double sign = quat_dot(a, b) < 0.0 ? -1.0 : 1.0;
    wk_quat d = {a.w - sign * b.w, a.x - sign * b.x, a.y - sign * b.y, a.z - sign * b.z};
    return wk_quat_norm(d) <= tol;
}
