/* test_vec3.c — the vector arithmetic under everything else in the math layer,
 * against values worked out by hand. */
#include "math_check.h"

#include <math.h>

static void test_add_sub_scale(void)
{
    wk_vec3 a = {1, 2, 3}, b = {-4, 0.5, 10};
    CHECK_VEC3_NEAR(wk_vec3_add(a, b), ((wk_vec3){-3, 2.5, 13}), 0.0);
    CHECK_VEC3_NEAR(wk_vec3_sub(a, b), ((wk_vec3){5, 1.5, -7}), 0.0);
    CHECK_VEC3_NEAR(wk_vec3_scale(a, -2), ((wk_vec3){-2, -4, -6}), 0.0);
}

static void test_min_max_per_axis(void)
{
    wk_vec3 a = {1, -2, 3}, b = {-4, 0.5, 3};
    CHECK_VEC3_NEAR(wk_vec3_min(a, b), ((wk_vec3){-4, -2, 3}), 0.0);
    CHECK_VEC3_NEAR(wk_vec3_max(a, b), ((wk_vec3){1, 0.5, 3}), 0.0);
}

static void test_dot(void)
{
    /* 1*4 + 2*(-5) + 3*6 = 4 - 10 + 18 = 12. */
    CHECK_NEAR(wk_vec3_dot((wk_vec3){1, 2, 3}, (wk_vec3){4, -5, 6}), 12.0, 0.0);
}

static void test_cross_is_right_handed(void)
{
    wk_vec3 x = {1, 0, 0}, y = {0, 1, 0}, z = {0, 0, 1};
    CHECK_VEC3_NEAR(wk_vec3_cross(x, y), z, 0.0);
    CHECK_VEC3_NEAR(wk_vec3_cross(y, z), x, 0.0);
    CHECK_VEC3_NEAR(wk_vec3_cross(z, x), y, 0.0);
    CHECK_VEC3_NEAR(wk_vec3_cross(y, x), ((wk_vec3){0, 0, -1}), 0.0);
    /* (1,2,3) x (4,5,6) = (2*6 - 3*5, 3*4 - 1*6, 1*5 - 2*4) = (-3, 6, -3). */
    CHECK_VEC3_NEAR(wk_vec3_cross((wk_vec3){1, 2, 3}, (wk_vec3){4, 5, 6}), ((wk_vec3){-3, 6, -3}), 0.0);
}

static void test_norm(void)
{
    /* 3^2 + 4^2 + 12^2 = 169 = 13^2. */
    CHECK_NEAR(wk_vec3_norm((wk_vec3){3, -4, 12}), 13.0, 0.0);
    CHECK_NEAR(wk_vec3_norm((wk_vec3){0, 0, 0}), 0.0, 0.0);
}

static void test_is_finite(void)
{
    CHECK(wk_vec3_is_finite((wk_vec3){1e308, -1e308, 0}));
    CHECK(!wk_vec3_is_finite((wk_vec3){NAN, 0, 0}));
    CHECK(!wk_vec3_is_finite((wk_vec3){0, INFINITY, 0}));
    CHECK(!wk_vec3_is_finite((wk_vec3){0, 0, -INFINITY}));
}

static const wk_test_case cases[] = {
    {"add_sub_scale", test_add_sub_scale},
    {"min_max_per_axis", test_min_max_per_axis},
    {"dot", test_dot},
    {"cross_is_right_handed", test_cross_is_right_handed},
    {"norm", test_norm},
    {"is_finite", test_is_finite},
};

WK_TEST_MAIN(cases)
