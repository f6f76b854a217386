/* test_pose.c — rigid poses against hand-worked compositions, inverses and
 * point transforms, in the a_T_b convention of wk_math.h. */
#include "math_check.h"

#include <math.h>
#include <stdio.h>

#define R2 0.70710678118654752440

/* a_T_b: b sits at (1, 2, 3) in a, turned a quarter turn about z. */
static wk_pose yawed_pose(void)
{
    return (wk_pose){{1, 2, 3}, {R2, 0, 0, R2}};
}

/* b_T_c: c sits at (1, 0, 0) in b, turned a quarter turn about x. */
static wk_pose rolled_pose(void)
{
    return (wk_pose){{1, 0, 0}, {R2, R2, 0, 0}};
}

/* Nothing special about its numbers, so no cancellation hides a mistake. */
static wk_pose generic_pose(void)
{
    return (wk_pose){{0.5, -1.0, 2.0}, wk_quat_from_rpy(0.1, 0.2, 0.3)};
}

static void test_identity(void)
{
    wk_pose id = wk_pose_identity();
    CHECK_VEC3_NEAR(id.p, ((wk_vec3){0, 0, 0}), 0.0);
    CHECK_QUAT_NEAR(id.q, wk_quat_identity(), 0.0);
    wk_vec3 v = {0.3, -0.7, 0.5};
    CHECK_VEC3_NEAR(wk_pose_transform_point(id, v), v, 0.0);
}

static void test_transform_point(void)
{
    /* Rz(pi/2) takes (x, y, z) to (-y, x, z); then the translation is added:
     * (1, 0, 0) -> (0, 1, 0) + (1, 2, 3) = (1, 3, 3),
     * (0, 1, 0) -> (-1, 0, 0) + (1, 2, 3) = (0, 2, 3). */
    CHECK_VEC3_NEAR(wk_pose_transform_point(yawed_pose(), (wk_vec3){1, 0, 0}), ((wk_vec3){1, 3, 3}), 1e-15);
    CHECK_VEC3_NEAR(wk_pose_transform_point(yawed_pose(), (wk_vec3){0, 1, 0}), ((wk_vec3){0, 2, 3}), 1e-15);
}

static void test_compose_known_poses(void)
{
    /* a_T_c places c's origin at a_T_b applied to (1, 0, 0), which is
     * (1, 3, 3) above, and turns it by qz(pi/2) qx(pi/2) = (1/2, 1/2, 1/2, 1/2). */
    wk_pose a_T_c = wk_pose_compose(yawed_pose(), rolled_pose());
    CHECK_VEC3_NEAR(a_T_c.p, ((wk_vec3){1, 3, 3}), 1e-15);
    CHECK_QUAT_NEAR(a_T_c.q, ((wk_quat){0.5, 0.5, 0.5, 0.5}), 1e-15);

    /* (0, 1, 0) in c is (1, 0, 0) + Rx(pi/2)(0, 1, 0) = (1, 0, 1) in b, and
     * (1, 2, 3) + Rz(pi/2)(1, 0, 1) = (1, 2, 3) + (0, 1, 1) = (1, 3, 4) in a,
     * whether taken in two steps or through the composition. */
    wk_vec3 p_c = {0, 1, 0};
    wk_vec3 p_b = wk_pose_transform_point(rolled_pose(), p_c);
    CHECK_VEC3_NEAR(p_b, ((wk_vec3){1, 0, 1}), 1e-15);
    CHECK_VEC3_NEAR(wk_pose_transform_point(yawed_pose(), p_b), ((wk_vec3){1, 3, 4}), 1e-15);
    CHECK_VEC3_NEAR(wk_pose_transform_point(a_T_c, p_c), ((wk_vec3){1, 3, 4}), 1e-15);
}

static void test_compose_is_not_commutative(void)
{
    /* The other order puts a's origin at (1, 0, 0) + Rx(pi/2)(1, 2, 3)
     * = (1, 0, 0) + (1, -3, 2) = (2, -3, 2): getting the order wrong shows. */
    wk_pose swapped = wk_pose_compose(rolled_pose(), yawed_pose());
    CHECK_VEC3_NEAR(swapped.p, ((wk_vec3){2, -3, 2}), 1e-15);
}

static void test_compose_is_associative(void)
{
    wk_pose a = yawed_pose(), b = generic_pose(), c = rolled_pose();
    wk_pose left = wk_pose_compose(wk_pose_compose(a, b), c);
    wk_pose right = wk_pose_compose(a, wk_pose_compose(b, c));
    CHECK_VEC3_NEAR(left.p, right.p, 1e-15);
    CHECK_QUAT_NEAR(left.q, right.q, 1e-15);
}

static void test_inverse_known_pose(void)
{
    /* b_T_a = (-R^T t, R^T) with R^T = Rz(-pi/2), which takes (x, y, z) to
     * (y, -x, z): -(2, -1, 3) = (-2, 1, -3), rotation (R2, 0, 0, -R2). */
    wk_pose b_T_a = wk_pose_inverse(yawed_pose());
    CHECK_VEC3_NEAR(b_T_a.p, ((wk_vec3){-2, 1, -3}), 1e-15);
    CHECK_QUAT_NEAR(b_T_a.q, ((wk_quat){R2, 0, 0, -R2}), 0.0);
    /* a's point (1, 3, 3) is b's (1, 0, 0), from test_transform_point. */
    CHECK_VEC3_NEAR(wk_pose_transform_point(b_T_a, (wk_vec3){1, 3, 3}), ((wk_vec3){1, 0, 0}), 1e-15);
}

static void test_inverse_composes_to_identity(void)
{
    wk_pose pose = generic_pose();
    wk_pose inv = wk_pose_inverse(pose);
    wk_pose left = wk_pose_compose(inv, pose), right = wk_pose_compose(pose, inv);
    CHECK_VEC3_NEAR(left.p, ((wk_vec3){0, 0, 0}), 1e-15);
    CHECK_QUAT_NEAR(left.q, wk_quat_identity(), 1e-15);
    CHECK_VEC3_NEAR(right.p, ((wk_vec3){0, 0, 0}), 1e-15);
    CHECK_QUAT_NEAR(right.q, wk_quat_identity(), 1e-15);

    wk_vec3 v = {0.3, -0.7, 0.5};
    CHECK_VEC3_NEAR(wk_pose_transform_point(inv, wk_pose_transform_point(pose, v)), v, 1e-15);
}

static void test_relative(void)
{
    /* b_T_c from a_T_b and a_T_c = a_T_b b_T_c gives back b_T_c. */
    wk_pose a_T_c = wk_pose_compose(yawed_pose(), rolled_pose());
    wk_pose b_T_c = wk_pose_relative(yawed_pose(), a_T_c);
    CHECK_VEC3_NEAR(b_T_c.p, rolled_pose().p, 1e-15);
    CHECK_QUAT_NEAR(b_T_c.q, rolled_pose().q, 1e-15);

    wk_pose x = generic_pose(), y = {{-0.4, 0.9, 0.1}, wk_quat_from_rpy(-0.5, 0.3, 1.2)};
    wk_pose want = wk_pose_compose(wk_pose_inverse(x), y), got = wk_pose_relative(x, y);
    CHECK_VEC3_NEAR(got.p, want.p, 1e-15);
    CHECK_QUAT_NEAR(got.q, want.q, 1e-15);
    wk_pose self = wk_pose_relative(x, x);
    CHECK_VEC3_NEAR(self.p, ((wk_vec3){0, 0, 0}), 1e-15);
    CHECK_QUAT_NEAR(self.q, wk_quat_identity(), 1e-15);
}

static void test_is_valid(void)
{
    CHECK(wk_pose_is_valid(wk_pose_identity()));
    CHECK(wk_pose_is_valid(generic_pose()));
    CHECK(!wk_pose_is_valid((wk_pose){{NAN, 0, 0}, {1, 0, 0, 0}}));
    CHECK(!wk_pose_is_valid((wk_pose){{0, 0, INFINITY}, {1, 0, 0, 0}}));
    CHECK(!wk_pose_is_valid((wk_pose){{0, 0, 0}, {1 + 2e-6, 0, 0, 0}}));
    CHECK(!wk_pose_is_valid((wk_pose){{0, 0, 0}, {0, 0, 0, 0}}));
    CHECK(!wk_pose_is_valid((wk_pose){{0, 0, 0}, {NAN, 0, 0, 0}}));
}

/* Each component of the translation at, and just past, the limit, on both
 * sides: the limit itself is taken, the next double beyond it is not. */
static void test_translation_limit(void)
{
    const double max = WK_POSE_TRANSLATION_MAX, past = nextafter(max, INFINITY);
    CHECK(max == 1e12);
    for (int axis = 0; axis < 3; axis++) {
        for (int sign = -1; sign <= 1; sign += 2) {
            double at[3] = {0, 0, 0}, beyond[3] = {0, 0, 0};
            at[axis] = sign * max;
            beyond[axis] = sign * past;
            wk_pose ok = {{at[0], at[1], at[2]}, {1, 0, 0, 0}};
            wk_pose bad = {{beyond[0], beyond[1], beyond[2]}, {1, 0, 0, 0}};
            char why[128] = "";
            CHECK(wk_pose_is_valid(ok));
            CHECK(!wk_pose_problem(ok, why, sizeof why));
            CHECK(!wk_pose_is_valid(bad));
            CHECK(!wk_translation_is_valid(bad.p));
            REQUIRE(wk_pose_problem(bad, why, sizeof why));
            char want[128];
            snprintf(want, sizeof want, "translation %c = %s1000000000000.0001 is beyond the limit of +-1e+12 m",
                     "xyz"[axis], sign < 0 ? "-" : "");
            CHECK_STR(why, want);
        }
    }
    /* Two poses at the limit on either side compose to a finite answer. */
    wk_pose a = {{max, 0, 0}, {1, 0, 0, 0}}, b = {{-max, 0, 0}, {1, 0, 0, 0}};
    CHECK_NEAR(wk_pose_relative(a, b).p.x, -2e12, 0.0);
}

static void test_problem_names_the_culprit(void)
{
    char why[128];
    REQUIRE(wk_pose_problem((wk_pose){{0, NAN, 0}, {1, 0, 0, 0}}, why, sizeof why));
    CHECK_STR(why, "translation y = nan is not finite");
    REQUIRE(wk_pose_problem((wk_pose){{0, 0, -1.7e308}, {1, 0, 0, 0}}, why, sizeof why));
    CHECK_STR(why, "translation z = -1.7e+308 is beyond the limit of +-1e+12 m");
    /* The translation is named before the rotation. */
    REQUIRE(wk_pose_problem((wk_pose){{2e12, 0, 0}, {2, 0, 0, 0}}, why, sizeof why));
    CHECK_STR(why, "translation x = 2e+12 is beyond the limit of +-1e+12 m");
    REQUIRE(wk_pose_problem((wk_pose){{1, 2, 3}, {2, 0, 0, 0}}, why, sizeof why));
    CHECK_STR(why, "the orientation is not a unit quaternion (|q| = 2)");
    CHECK(!wk_pose_problem(generic_pose(), why, sizeof why));
}

static const wk_test_case cases[] = {
    {"identity", test_identity},
    {"transform_point", test_transform_point},
    {"compose_known_poses", test_compose_known_poses},
    {"compose_is_not_commutative", test_compose_is_not_commutative},
    {"compose_is_associative", test_compose_is_associative},
    {"inverse_known_pose", test_inverse_known_pose},
    {"inverse_composes_to_identity", test_inverse_composes_to_identity},
    {"relative", test_relative},
    {"is_valid", test_is_valid},
    {"translation_limit", test_translation_limit},
    {"problem_names_the_culprit", test_problem_names_the_culprit},
};

WK_TEST_MAIN(cases)
