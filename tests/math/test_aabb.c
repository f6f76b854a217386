/* test_aabb.c — axis-aligned boxes: construction, inflation, and the
 * intersection test with its edge cases (touching, separation on a single
 * axis, empty boxes). */
#include "math_check.h"

/* The box [0, 1] on every axis. */
static wk_aabb unit_box(void)
{
    return (wk_aabb){{0, 0, 0}, {1, 1, 1}};
}

/* unit_box moved along x, y and z by the given offsets. */
static wk_aabb shifted_unit_box(double dx, double dy, double dz)
{
    return (wk_aabb){{dx, dy, dz}, {1 + dx, 1 + dy, 1 + dz}};
}

static void check_intersects(wk_aabb a, wk_aabb b, bool expected)
{
    /* Intersection is symmetric; checking both orders catches a test that
     * only looks at one side. */
    CHECK_INT(wk_aabb_intersects(a, b), ==, expected);
    CHECK_INT(wk_aabb_intersects(b, a), ==, expected);
}

static void test_from_center(void)
{
    /* Half of (2, 4, 6) either side of (1, 2, 3). */
    wk_aabb box = wk_aabb_from_center((wk_vec3){1, 2, 3}, (wk_vec3){2, 4, 6});
    CHECK_VEC3_NEAR(box.min, ((wk_vec3){0, 0, 0}), 0.0);
    CHECK_VEC3_NEAR(box.max, ((wk_vec3){2, 4, 6}), 0.0);
}

static void test_inflate(void)
{
    wk_aabb grown = wk_aabb_inflate(unit_box(), 0.5);
    CHECK_VEC3_NEAR(grown.min, ((wk_vec3){-0.5, -0.5, -0.5}), 0.0);
    CHECK_VEC3_NEAR(grown.max, ((wk_vec3){1.5, 1.5, 1.5}), 0.0);
    /* A negative margin shrinks, down to emptiness. */
    wk_aabb shrunk = wk_aabb_inflate(unit_box(), -0.25);
    CHECK_VEC3_NEAR(shrunk.min, ((wk_vec3){0.25, 0.25, 0.25}), 0.0);
    CHECK_VEC3_NEAR(shrunk.max, ((wk_vec3){0.75, 0.75, 0.75}), 0.0);
    check_intersects(wk_aabb_inflate(unit_box(), -0.75), unit_box(), false);
}

static void test_inflate_keeps_empty_box_empty(void)
{
    /* x runs from 1 down to 0: empty. Growing it by 1 must not produce the
     * box [0, 1] on x that a blind min - 1, max + 1 would. */
    wk_aabb empty = {{1, 0, 0}, {0, 1, 1}};
    wk_aabb grown = wk_aabb_inflate(empty, 1.0);
    check_intersects(grown, unit_box(), false);
    check_intersects(grown, wk_aabb_inflate(unit_box(), 10.0), false);
}

static void test_overlap_and_containment(void)
{
    check_intersects(unit_box(), shifted_unit_box(0.5, 0.5, 0.5), true);
    check_intersects(unit_box(), unit_box(), true);
    /* One box wholly inside the other. */
    check_intersects(unit_box(), (wk_aabb){{0.4, 0.4, 0.4}, {0.6, 0.6, 0.6}}, true);
    /* A point box (min equal to max) is not empty. */
    check_intersects(unit_box(), wk_aabb_from_center((wk_vec3){0.5, 0.5, 0.5}, (wk_vec3){0, 0, 0}), true);
}

static void test_touching_counts(void)
{
    /* Sharing a face, an edge and a corner. */
    check_intersects(unit_box(), shifted_unit_box(1, 0, 0), true);
    check_intersects(unit_box(), shifted_unit_box(1, 1, 0), true);
    check_intersects(unit_box(), shifted_unit_box(1, -1, 1), true);
}

static void test_separated(void)
{
    /* A gap of 1e-9 is a gap; inflating by it closes it exactly. */
    wk_aabb apart = shifted_unit_box(1 + 1e-9, 0, 0);
    check_intersects(unit_box(), apart, false);
    check_intersects(wk_aabb_inflate(unit_box(), 1e-9), apart, true);
    /* Overlapping on two axes is not enough: each axis alone separates. */
    check_intersects(unit_box(), shifted_unit_box(2, 0.5, 0.5), false);
    check_intersects(unit_box(), shifted_unit_box(0.5, -2, 0.5), false);
    check_intersects(unit_box(), shifted_unit_box(0.5, 0.5, 2), false);
}

static void test_empty_meets_nothing(void)
{
    /* Inverted on z only, and lying inside a larger box: an interval test
     * without the emptiness check would report a hit. */
    wk_aabb empty = {{0.2, 0.2, 0.8}, {0.8, 0.8, 0.2}};
    check_intersects(empty, unit_box(), false);
    check_intersects(empty, empty, false);
    /* A negative size makes an empty box too. */
    check_intersects(wk_aabb_from_center((wk_vec3){0.5, 0.5, 0.5}, (wk_vec3){1, -1, 1}), unit_box(), false);
}

static const wk_test_case cases[] = {
    {"from_center", test_from_center},
    {"inflate", test_inflate},
    {"inflate_keeps_empty_box_empty", test_inflate_keeps_empty_box_empty},
    {"overlap_and_containment", test_overlap_and_containment},
    {"touching_counts", test_touching_counts},
    {"separated", test_separated},
    {"empty_meets_nothing", test_empty_meets_nothing},
};

WK_TEST_MAIN(cases)
