/* math_check.h — checks shared by the math tests: component-wise comparison
 * of vectors and quaternions, and a comparison of rotations by their action
 * on probe vectors, which is independent of the quaternion sign and of
 * wk_quat_near, the function some of these tests are about. They are macros
 * so that a failure reports the line of the test, not of this file. */
#ifndef WK_TESTS_MATH_CHECK_H
#define WK_TESTS_MATH_CHECK_H

#include "wk_test.h"
#include "worldkit/wk_math.h"

/* C11 leaves M_PI out of math.h. */
#define PI 3.14159265358979323846

#define CHECK_VEC3_NEAR(a, b, eps)              \
    do {                                        \
        wk_vec3 wk__va = (a), wk__vb = (b);     \
        CHECK_NEAR(wk__va.x, wk__vb.x, eps);    \
        CHECK_NEAR(wk__va.y, wk__vb.y, eps);    \
        CHECK_NEAR(wk__va.z, wk__vb.z, eps);    \
    } while (0)

#define CHECK_QUAT_NEAR(a, b, eps)              \
    do {                                        \
        wk_quat wk__qa = (a), wk__qb = (b);     \
        CHECK_NEAR(wk__qa.w, wk__qb.w, eps);    \
        CHECK_NEAR(wk__qa.x, wk__qb.x, eps);    \
        CHECK_NEAR(wk__qa.y, wk__qb.y, eps);    \
        CHECK_NEAR(wk__qa.z, wk__qb.z, eps);    \
    } while (0)

/* The three axes and one vector off every axis and diagonal: two rotations
 * that agree on these agree everywhere. */
static const wk_vec3 wk_probe_vectors[] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.3, -0.7, 0.5}};

#define CHECK_SAME_ROTATION(qa, qb, eps)                                                  \
    do {                                                                                  \
        wk_quat wk__ra = (qa), wk__rb = (qb);                                             \
        for (size_t wk__i = 0; wk__i < sizeof wk_probe_vectors / sizeof *wk_probe_vectors; wk__i++) \
            CHECK_VEC3_NEAR(wk_quat_rotate(wk__ra, wk_probe_vectors[wk__i]),              \
                            wk_quat_rotate(wk__rb, wk_probe_vectors[wk__i]), eps);        \
    } while (0)

#endif
