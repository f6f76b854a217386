/* test_quat.c — quaternions against values worked out by hand from the
 * closed-form formulas: roll-pitch-yaw in SDFormat's convention, including
 * gimbal lock, axis-angle, frame axes, normalisation, validity and rotation
 * of vectors. */
#include "math_check.h"

#include "worldkit/wk_base.h"

#include <math.h>

/* cos(pi/4) = sin(pi/4) = sqrt(1/2), the half-angle terms of a right angle. */
#define R2 0.70710678118654752440

static const wk_vec3 ex = {1, 0, 0}, ey = {0, 1, 0}, ez = {0, 0, 1};

static void test_hamilton_units(void)
{
    wk_quat i = {0, 1, 0, 0}, j = {0, 0, 1, 0}, k = {0, 0, 0, 1};
    /* i j = k, j i = -k, i i = -1: the Hamilton product, not its mirror. */
    CHECK_QUAT_NEAR(wk_quat_mul(i, j), k, 0.0);
    CHECK_QUAT_NEAR(wk_quat_mul(j, i), ((wk_quat){0, 0, 0, -1}), 0.0);
    CHECK_QUAT_NEAR(wk_quat_mul(i, i), ((wk_quat){-1, 0, 0, 0}), 0.0);
    CHECK_QUAT_NEAR(wk_quat_mul(wk_quat_identity(), k), k, 0.0);
}

static void test_mul_applies_right_operand_first(void)
{
    wk_quat roll90 = {R2, R2, 0, 0}, yaw90 = {R2, 0, 0, R2};
    /* Roll first takes y to z, which yaw leaves alone: z. */
    CHECK_VEC3_NEAR(wk_quat_rotate(wk_quat_mul(yaw90, roll90), ey), ez, 1e-15);
    /* Yaw first takes y to -x, which roll leaves alone: -x. */
    CHECK_VEC3_NEAR(wk_quat_rotate(wk_quat_mul(roll90, yaw90), ey), ((wk_vec3){-1, 0, 0}), 1e-15);
}

static void test_rotate_right_angles(void)
{
    /* Right-handed quarter turns: yaw takes x to y, roll takes y to z, pitch
     * takes z to x and x to -z. */
    CHECK_VEC3_NEAR(wk_quat_rotate(wk_quat_from_rpy(0, 0, PI / 2), ex), ey, 1e-15);
    CHECK_VEC3_NEAR(wk_quat_rotate(wk_quat_from_rpy(PI / 2, 0, 0), ey), ez, 1e-15);
    CHECK_VEC3_NEAR(wk_quat_rotate(wk_quat_from_rpy(0, PI / 2, 0), ez), ex, 1e-15);
    CHECK_VEC3_NEAR(wk_quat_rotate(wk_quat_from_rpy(0, PI / 2, 0), ex), ((wk_vec3){0, 0, -1}), 1e-15);
    /* A rotation keeps lengths: |(3, -4, 12)| = 13. */
    CHECK_NEAR(wk_vec3_norm(wk_quat_rotate(wk_quat_from_rpy(0.1, 0.2, 0.3), (wk_vec3){3, -4, 12})), 13.0, 1e-14);
}

static void test_from_rpy_single_axes(void)
{
    /* A single angle t about one axis is (cos(t/2), sin(t/2) axis). */
    CHECK_QUAT_NEAR(wk_quat_from_rpy(PI / 2, 0, 0), ((wk_quat){R2, R2, 0, 0}), 1e-15);
    CHECK_QUAT_NEAR(wk_quat_from_rpy(0, PI / 2, 0), ((wk_quat){R2, 0, R2, 0}), 1e-15);
    CHECK_QUAT_NEAR(wk_quat_from_rpy(0, 0, PI / 2), ((wk_quat){R2, 0, 0, R2}), 1e-15);
    CHECK_QUAT_NEAR(wk_quat_from_rpy(0, 0, 0), wk_quat_identity(), 0.0);
}

static void test_from_rpy_matches_half_angle_formula(void)
{
    /* With cr, sr, cp, sp, cy, sy the cosines and sines of roll/2, pitch/2,
     * yaw/2, qz(yaw) qy(pitch) qx(roll) expands to
     *   w = cr cp cy + sr sp sy    x = sr cp cy - cr sp sy
     *   y = cr sp cy + sr cp sy    z = cr cp sy - sr sp cy.
     * For (0.1, 0.2, 0.3): cr = cos 0.05 = 0.998750260394966, sr = 0.049979169270678,
     * cp = cos 0.1 = 0.995004165278026, sp = 0.099833416646828,
     * cy = cos 0.15 = 0.988771077936042, sy = 0.149438132473599, so
     *   w = 0.982602 + 0.000746 = 0.983347443256356
     *   x = 0.049171 - 0.014900 = 0.034270798550482
     *   y = 0.098589 + 0.007431 = 0.106020511061796
     *   z = 0.148506 - 0.004934 = 0.143572175027392. */
    wk_quat q = wk_quat_from_rpy(0.1, 0.2, 0.3);
    CHECK_QUAT_NEAR(q, ((wk_quat){0.983347443256356, 0.034270798550482, 0.106020511061796, 0.143572175027392}),
                    1e-14);

    /* Roll and yaw of a right angle each: qz(pi/2) qx(pi/2) = (R2, 0, 0, R2)
     * (R2, R2, 0, 0) = (1/2, 1/2, 1/2, 1/2), the third of a turn about
     * (1, 1, 1) that takes x to y and y to z. gz-math's rotation tutorial
     * converts (0.5, 0.5, 0.5, 0.5) back to these same angles. */
    wk_quat q2 = wk_quat_from_rpy(PI / 2, 0, PI / 2);
    CHECK_QUAT_NEAR(q2, ((wk_quat){0.5, 0.5, 0.5, 0.5}), 1e-15);
    CHECK_VEC3_NEAR(wk_quat_to_rpy((wk_quat){0.5, 0.5, 0.5, 0.5}), ((wk_vec3){PI / 2, 0, PI / 2}), 1e-15);
    CHECK_VEC3_NEAR(wk_quat_rotate(q2, ex), ey, 1e-15);
    CHECK_VEC3_NEAR(wk_quat_rotate(q2, ey), ez, 1e-15);
}

static void test_to_rpy_recovers_angles(void)
{
    static const wk_vec3 angles[] = {
        {0.1, 0.2, 0.3}, {-2.5, -1.2, 3.0}, {3.1, 1.5, -3.1}, {-1e-7, -1.5, 1e-7}, {0, 0, 0},
    };
    for (size_t i = 0; i < sizeof angles / sizeof *angles; i++) {
        wk_vec3 a = angles[i];
        wk_quat q = wk_quat_from_rpy(a.x, a.y, a.z);
        CHECK_VEC3_NEAR(wk_quat_to_rpy(q), a, 1e-13);
        /* -q is the same rotation and must give the same angles. */
        CHECK_VEC3_NEAR(wk_quat_to_rpy((wk_quat){-q.w, -q.x, -q.y, -q.z}), a, 1e-13);
    }
    /* The angles only depend on the direction of q, not its length. */
    wk_quat q = wk_quat_from_rpy(0.1, 0.2, 0.3);
    CHECK_VEC3_NEAR(wk_quat_to_rpy((wk_quat){3 * q.w, 3 * q.x, 3 * q.y, 3 * q.z}), ((wk_vec3){0.1, 0.2, 0.3}),
                    1e-15);
}

static void test_to_rpy_wraps_roll_and_yaw(void)
{
    /* Roll 4 is roll 4 - 2 pi, yaw -4 is yaw 2 pi - 4. */
    wk_vec3 rpy = wk_quat_to_rpy(wk_quat_from_rpy(4.0, 0.5, -4.0));
    CHECK_VEC3_NEAR(rpy, ((wk_vec3){4.0 - 2 * PI, 0.5, 2 * PI - 4.0}), 1e-14);
}

static void test_gimbal_lock_pitch_up(void)
{
    /* At pitch pi/2, Rz(yaw) Ry(pi/2) = Ry(pi/2) Rx(-yaw), so the rotation is
     * Ry(pi/2) Rx(roll - yaw): for roll 0.3, yaw 0.2 that is
     * (R2, 0, R2, 0) (cos 0.05, sin 0.05, 0, 0)
     *   = R2 (cos 0.05, sin 0.05, cos 0.05, -sin 0.05),
     * and to_rpy must put all of roll - yaw = 0.1 in roll. */
    wk_quat q = wk_quat_from_rpy(0.3, PI / 2, 0.2);
    CHECK_QUAT_NEAR(q, ((wk_quat){R2 * cos(0.05), R2 * sin(0.05), R2 * cos(0.05), -R2 * sin(0.05)}), 1e-15);
    /* Pitching x up by a right angle points it straight down. */
    CHECK_VEC3_NEAR(wk_quat_rotate(q, ex), ((wk_vec3){0, 0, -1}), 1e-15);

    wk_vec3 rpy = wk_quat_to_rpy(q);
    CHECK_NEAR(rpy.y, PI / 2, 1e-15);
    CHECK_NEAR(rpy.x, 0.1, 1e-14);
    CHECK_NEAR(rpy.z, 0.0, 0.0);
    CHECK_SAME_ROTATION(wk_quat_from_rpy(rpy.x, rpy.y, rpy.z), q, 1e-14);
}

static void test_gimbal_lock_pitch_down(void)
{
    /* At pitch -pi/2, Rz(yaw) Ry(-pi/2) = Ry(-pi/2) Rx(yaw), so the rotation
     * is Ry(-pi/2) Rx(roll + yaw): for roll 0.3, yaw 0.2 that is
     * (R2, 0, -R2, 0) (cos 0.25, sin 0.25, 0, 0)
     *   = R2 (cos 0.25, sin 0.25, -cos 0.25, sin 0.25),
     * and to_rpy must put all of roll + yaw = 0.5 in roll. */
    wk_quat q = wk_quat_from_rpy(0.3, -PI / 2, 0.2);
    CHECK_QUAT_NEAR(q, ((wk_quat){R2 * cos(0.25), R2 * sin(0.25), -R2 * cos(0.25), R2 * sin(0.25)}), 1e-15);
    CHECK_VEC3_NEAR(wk_quat_rotate(q, ex), ez, 1e-15);

    wk_vec3 rpy = wk_quat_to_rpy(q);
    CHECK_NEAR(rpy.y, -PI / 2, 1e-15);
    CHECK_NEAR(rpy.x, 0.5, 1e-14);
    CHECK_NEAR(rpy.z, 0.0, 0.0);
    CHECK_SAME_ROTATION(wk_quat_from_rpy(rpy.x, rpy.y, rpy.z), q, 1e-14);
}

static void test_gimbal_lock_wraps_roll(void)
{
    /* Roll -3, yaw 3 at pitch pi/2 leave roll - yaw = -6, which is
     * 2 pi - 6 = 0.2832 once wrapped into [-pi, pi]. */
    wk_quat q = wk_quat_from_rpy(-3.0, PI / 2, 3.0);
    wk_vec3 rpy = wk_quat_to_rpy(q);
    CHECK_VEC3_NEAR(rpy, ((wk_vec3){2 * PI - 6.0, PI / 2, 0.0}), 1e-14);
    CHECK_SAME_ROTATION(wk_quat_from_rpy(rpy.x, rpy.y, rpy.z), q, 1e-14);
}

static void test_near_gimbal_lock_keeps_full_precision(void)
{
    /* A nanoradian from the lock, sin(pitch) = 1 - 5e-19 is far below the
     * rounding noise of the products that compute it from q, so an asin-based
     * conversion gets pitch wrong by about the square root of that noise,
     * 1e-8. Here pitch and roll -/+ yaw, the parts the rotation pins down,
     * come back to full precision, and so does the rotation. */
    double off = 1e-9;
    wk_quat up = wk_quat_from_rpy(0.4, PI / 2 - off, -0.7);
    wk_vec3 rpy = wk_quat_to_rpy(up);
    CHECK_NEAR(rpy.y, PI / 2 - off, 1e-15);
    CHECK_NEAR(rpy.x - rpy.z, 0.4 - -0.7, 1e-14);
    CHECK_SAME_ROTATION(wk_quat_from_rpy(rpy.x, rpy.y, rpy.z), up, 1e-15);

    wk_quat down = wk_quat_from_rpy(0.4, -PI / 2 + off, -0.7);
    rpy = wk_quat_to_rpy(down);
    CHECK_NEAR(rpy.y, -PI / 2 + off, 1e-15);
    CHECK_NEAR(rpy.x + rpy.z, 0.4 + -0.7, 1e-14);
    CHECK_SAME_ROTATION(wk_quat_from_rpy(rpy.x, rpy.y, rpy.z), down, 1e-15);
}

static void test_within_lock_tolerance_snaps_to_lock(void)
{
    /* 1e-13 from the lock is inside its tolerance: the result is reported as
     * locked, and the rotation moves by no more than a few times that. */
    wk_quat q = wk_quat_from_rpy(0.4, PI / 2 - 1e-13, -0.7);
    wk_vec3 rpy = wk_quat_to_rpy(q);
    CHECK_NEAR(rpy.y, PI / 2, 0.0);
    CHECK_NEAR(rpy.z, 0.0, 0.0);
    CHECK_NEAR(rpy.x, 1.1, 1e-12);
    CHECK_SAME_ROTATION(wk_quat_from_rpy(rpy.x, rpy.y, rpy.z), q, 1e-12);
}

static void test_rpy_round_trip_sweep(void)
{
    /* Every combination of roll and yaw with pitches at, near and away from
     * the locks must come back as the same rotation, with pitch in
     * [-pi/2, pi/2] and roll and yaw in [-pi, pi]. */
    static const double turns[] = {-PI, -2.5, -PI / 2, -1e-7, 0.0, 0.3, PI / 2, 3.0, PI};
    static const double pitches[] = {-PI / 2, -PI / 2 + 1e-10, -1.2, 0.0, 0.7, PI / 2 - 1e-6, PI / 2};
    for (size_t r = 0; r < sizeof turns / sizeof *turns; r++) {
        for (size_t p = 0; p < sizeof pitches / sizeof *pitches; p++) {
            for (size_t y = 0; y < sizeof turns / sizeof *turns; y++) {
                wk_quat q = wk_quat_from_rpy(turns[r], pitches[p], turns[y]);
                wk_vec3 rpy = wk_quat_to_rpy(q);
                CHECK(fabs(rpy.x) <= PI && fabs(rpy.y) <= PI / 2 && fabs(rpy.z) <= PI);
                CHECK_SAME_ROTATION(wk_quat_from_rpy(rpy.x, rpy.y, rpy.z), q, 1e-14);
            }
        }
    }
}

static void test_conjugate_inverts(void)
{
    wk_quat q = wk_quat_from_rpy(0.1, 0.2, 0.3);
    CHECK_QUAT_NEAR(wk_quat_conjugate(q), ((wk_quat){q.w, -q.x, -q.y, -q.z}), 0.0);
    CHECK_QUAT_NEAR(wk_quat_mul(wk_quat_conjugate(q), q), wk_quat_identity(), 1e-15);
    wk_vec3 v = {0.3, -0.7, 0.5};
    CHECK_VEC3_NEAR(wk_quat_rotate(wk_quat_conjugate(q), wk_quat_rotate(q, v)), v, 1e-15);
}

static void test_norm(void)
{
    /* 1 + 4 + 4 + 16 = 25. */
    CHECK_NEAR(wk_quat_norm((wk_quat){1, 2, -2, 4}), 5.0, 0.0);
}

static void test_normalize(void)
{
    wk_quat out;
    REQUIRE_INT(wk_quat_normalize((wk_quat){2, 0, 0, 0}, &out), ==, WK_OK);
    CHECK_QUAT_NEAR(out, wk_quat_identity(), 0.0);
    /* |(0, 3, 0, 4)| = 5. */
    REQUIRE_INT(wk_quat_normalize((wk_quat){0, 3, 0, -4}, &out), ==, WK_OK);
    CHECK_QUAT_NEAR(out, ((wk_quat){0, 0.6, 0, -0.8}), 1e-15);
    CHECK(wk_quat_is_valid(out));
}

static void test_normalize_extreme_magnitudes(void)
{
    wk_quat out;
    /* The sum of squares, 2e600, overflows a double; the result must not. */
    REQUIRE_INT(wk_quat_normalize((wk_quat){1e300, 0, 1e300, 0}, &out), ==, WK_OK);
    CHECK_QUAT_NEAR(out, ((wk_quat){R2, 0, R2, 0}), 1e-15);
    /* Subnormal components whose squares underflow to zero: 4 and 3 parts of
     * 2^-1070 normalise to 0.8 and 0.6. */
    REQUIRE_INT(wk_quat_normalize((wk_quat){0, 0, ldexp(4, -1070), ldexp(3, -1070)}, &out), ==, WK_OK);
    CHECK_QUAT_NEAR(out, ((wk_quat){0, 0, 0.8, 0.6}), 1e-15);
}

static void test_normalize_rejects_zero_and_non_finite(void)
{
    static const wk_quat bad[] = {
        {0, 0, 0, 0}, {NAN, 0, 0, 0}, {1, NAN, 0, 0}, {INFINITY, 0, 0, 0}, {1, 0, 0, -INFINITY},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wk_quat out = {7, 7, 7, 7};
        CHECK_INT(wk_quat_normalize(bad[i], &out), ==, WK_INVALID);
        /* A failed call leaves its output alone. */
        CHECK_QUAT_NEAR(out, ((wk_quat){7, 7, 7, 7}), 0.0);
    }
}

static void test_is_valid(void)
{
    CHECK(wk_quat_is_valid(wk_quat_identity()));
    CHECK(wk_quat_is_valid((wk_quat){0.5, -0.5, 0.5, -0.5}));
    /* The tolerance is on |q| - 1 and is 1e-6 either way. */
    CHECK(wk_quat_is_valid((wk_quat){1 + 5e-7, 0, 0, 0}));
    CHECK(wk_quat_is_valid((wk_quat){1 - 5e-7, 0, 0, 0}));
    CHECK(!wk_quat_is_valid((wk_quat){1 + 2e-6, 0, 0, 0}));
    CHECK(!wk_quat_is_valid((wk_quat){1 - 2e-6, 0, 0, 0}));
    /* The same excess spread over all four components: |q| = 1 + 2e-6. */
    double s = 0.5 * (1 + 2e-6);
    CHECK(!wk_quat_is_valid((wk_quat){s, s, s, s}));
    CHECK(!wk_quat_is_valid((wk_quat){0, 0, 0, 0}));
    CHECK(!wk_quat_is_valid((wk_quat){NAN, 0, 0, 0}));
    CHECK(!wk_quat_is_valid((wk_quat){1, 0, NAN, 0}));
    CHECK(!wk_quat_is_valid((wk_quat){INFINITY, 0, 0, 0}));
    CHECK(!wk_quat_is_valid((wk_quat){0, 0, 0, -INFINITY}));
}

static void test_from_axis_angle(void)
{
    wk_quat q;
    /* A quarter turn about z, from an axis of length 5: (cos pi/4, 0, 0, sin pi/4). */
    REQUIRE_INT(wk_quat_from_axis_angle((wk_vec3){0, 0, 5}, PI / 2, &q), ==, WK_OK);
    CHECK_QUAT_NEAR(q, ((wk_quat){R2, 0, 0, R2}), 1e-15);
    CHECK_VEC3_NEAR(wk_quat_rotate(q, ex), ey, 1e-15);
    CHECK(wk_quat_is_valid(q));

    /* A half turn about (1, 1, 0)/sqrt 2 is (0, R2, R2, 0) and swaps x and y. */
    REQUIRE_INT(wk_quat_from_axis_angle((wk_vec3){1, 1, 0}, PI, &q), ==, WK_OK);
    CHECK_QUAT_NEAR(q, ((wk_quat){0, R2, R2, 0}), 1e-15);
    CHECK_VEC3_NEAR(wk_quat_rotate(q, ex), ey, 1e-15);

    /* About x it is the same rotation as a roll. */
    REQUIRE_INT(wk_quat_from_axis_angle((wk_vec3){-2, 0, 0}, 0.7, &q), ==, WK_OK);
    CHECK_QUAT_NEAR(q, wk_quat_from_rpy(-0.7, 0, 0), 1e-15);

    /* An axis whose squared length overflows still normalises. */
    REQUIRE_INT(wk_quat_from_axis_angle((wk_vec3){0, 1e300, 0}, PI / 2, &q), ==, WK_OK);
    CHECK_QUAT_NEAR(q, ((wk_quat){R2, 0, R2, 0}), 1e-15);
}

static void test_from_axis_angle_rejects_bad_input(void)
{
    struct {
        wk_vec3 axis;
        double angle;
    } bad[] = {
        {{0, 0, 0}, 1.0},      {{NAN, 0, 1}, 1.0},       {{0, INFINITY, 0}, 1.0},
        {{0, 0, 1}, NAN},      {{0, 0, 1}, INFINITY},    {{0, 0, 0}, 0.0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wk_quat q = {7, 7, 7, 7};
        CHECK_INT(wk_quat_from_axis_angle(bad[i].axis, bad[i].angle, &q), ==, WK_INVALID);
        CHECK_QUAT_NEAR(q, ((wk_quat){7, 7, 7, 7}), 0.0);
    }
}

static void test_from_axes(void)
{
    /* The identity frame: trace 3 > 0, w = 2 sqrt(4) / 4 = 1. */
    CHECK_QUAT_NEAR(wk_quat_from_axes(ex, ey, ez), wk_quat_identity(), 0.0);

    /* A quarter turn about z takes x to y and y to -x: trace 1, so
     * s = 2 sqrt 2, w = s / 4 = R2 and z = (x.y - y.x) / s = 2 / s = R2. */
    wk_vec3 mx = {-1, 0, 0}, my = {0, -1, 0}, mz = {0, 0, -1};
    CHECK_QUAT_NEAR(wk_quat_from_axes(ey, mx, ez), ((wk_quat){R2, 0, 0, R2}), 1e-15);

    /* Half turns have trace -1 and take the branch of their axis, whose
     * diagonal entry is the largest: s = 2 sqrt(1 + 1 + 1 + 1) = 4, the
     * axis component s / 4 = 1 and every other component 0 / 4. */
    CHECK_QUAT_NEAR(wk_quat_from_axes(ex, my, mz), ((wk_quat){0, 1, 0, 0}), 0.0);
    CHECK_QUAT_NEAR(wk_quat_from_axes(mx, ey, mz), ((wk_quat){0, 0, 1, 0}), 0.0);
    CHECK_QUAT_NEAR(wk_quat_from_axes(mx, my, ez), ((wk_quat){0, 0, 0, 1}), 0.0);

    /* The half turn about (1, 1, 0) swaps x and y and reverses z: trace -1,
     * diagonal (0, 0, -1), so the y branch with s = 2 sqrt 2 gives
     * x = (y.x + x.y) / s = R2, y = s / 4 = R2, as from_axis_angle does. */
    CHECK_QUAT_NEAR(wk_quat_from_axes(ey, ex, mz), ((wk_quat){0, R2, R2, 0}), 1e-15);

    /* The third of a turn about (1, 1, 1) takes x to y, y to z and z to x:
     * trace 0, all diagonal entries 0, so the z branch with s = 2 gives
     * (1/2, 1/2, 1/2, 1/2), the quaternion of test_from_rpy_matches_half_angle_formula. */
    CHECK_QUAT_NEAR(wk_quat_from_axes(ey, ez, ex), ((wk_quat){0.5, 0.5, 0.5, 0.5}), 0.0);

    /* Any rotation comes back from the images of the axes, its columns. */
    wk_quat q = wk_quat_from_rpy(0.1, 0.2, 0.3);
    wk_quat back = wk_quat_from_axes(wk_quat_rotate(q, ex), wk_quat_rotate(q, ey), wk_quat_rotate(q, ez));
    CHECK_SAME_ROTATION(back, q, 1e-15);
    CHECK(wk_quat_is_valid(back));
}

static void test_near(void)
{
    wk_quat q = wk_quat_from_rpy(0.1, 0.2, 0.3);
    CHECK(wk_quat_near(q, q, 0.0));
    /* -q is the same rotation. */
    CHECK(wk_quat_near(q, (wk_quat){-q.w, -q.x, -q.y, -q.z}, 1e-15));

    /* A further 1e-3 rad about z puts the quaternions 2 sin(1e-3 / 4), just
     * under 5e-4, apart. */
    wk_quat turn;
    REQUIRE_INT(wk_quat_from_axis_angle(ez, 1e-3, &turn), ==, WK_OK);
    wk_quat moved = wk_quat_mul(q, turn);
    CHECK(wk_quat_near(q, moved, 5.0e-4));
    CHECK(!wk_quat_near(q, moved, 4.9e-4));
    CHECK(!wk_quat_near(q, (wk_quat){NAN, 0, 0, 0}, 1.0));
}

static const wk_test_case cases[] = {
    {"hamilton_units", test_hamilton_units},
    {"mul_applies_right_operand_first", test_mul_applies_right_operand_first},
    {"rotate_right_angles", test_rotate_right_angles},
    {"from_rpy_single_axes", test_from_rpy_single_axes},
    {"from_rpy_matches_half_angle_formula", test_from_rpy_matches_half_angle_formula},
    {"to_rpy_recovers_angles", test_to_rpy_recovers_angles},
    {"to_rpy_wraps_roll_and_yaw", test_to_rpy_wraps_roll_and_yaw},
    {"gimbal_lock_pitch_up", test_gimbal_lock_pitch_up},
    {"gimbal_lock_pitch_down", test_gimbal_lock_pitch_down},
    {"gimbal_lock_wraps_roll", test_gimbal_lock_wraps_roll},
    {"near_gimbal_lock_keeps_full_precision", test_near_gimbal_lock_keeps_full_precision},
    {"within_lock_tolerance_snaps_to_lock", test_within_lock_tolerance_snaps_to_lock},
    {"rpy_round_trip_sweep", test_rpy_round_trip_sweep},
    {"conjugate_inverts", test_conjugate_inverts},
    {"norm", test_norm},
    {"normalize", test_normalize},
    {"normalize_extreme_magnitudes", test_normalize_extreme_magnitudes},
    {"normalize_rejects_zero_and_non_finite", test_normalize_rejects_zero_and_non_finite},
    {"is_valid", test_is_valid},
    {"from_axis_angle", test_from_axis_angle},
    {"from_axis_angle_rejects_bad_input", test_from_axis_angle_rejects_bad_input},
    {"from_axes", test_from_axes},
    {"near", test_near},
};

WK_TEST_MAIN(cases)
