/* vec3.c — three-vectors in double precision: the arithmetic that poses,
 * quaternion rotation and boxes are built from. Every function takes and
 * returns values, so callers can nest them without temporaries, and none can
 * fail: non-finite input propagates to the result, and wk_vec3_is_finite is
 * how a caller checks data that came from outside before trusting it. */
#include "worldkit/wk_math.h"

#include <math.h>

wk_vec3 wk_vec3_add(wk_vec3 a, wk_vec3 b)
{
    return (wk_vec3){a.x + b.x, a.y + b.y, a.z + b.z};
}

wk_vec3 wk_vec3_sub(wk_vec3 a, wk_vec3 b)
{
    return (wk_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

wk_vec3 wk_vec3_min(wk_vec3 a, wk_vec3 b)
{
    return (wk_vec3){fmin(a.x, b.x), fmin(a.y, b.y), fmin(a.z, b.z)};
}

wk_vec3 wk_vec3_max(wk_vec3 a, wk_vec3 b)
{
    return (wk_vec3){fmax(a.x, b.x), fmax(a.y, b.y), fmax(a.z, b.z)};
}

wk_vec3 wk_vec3_scale(wk_vec3 a, double s)
{
    return (wk_vec3){a.x * s, a.y * s, a.z * s};
}

double wk_vec3_dot(wk_vec3 a, wk_vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

wk_vec3 wk_vec3_cross(wk_vec3 a, wk_vec3 b)
{
    return (wk_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

double wk_vec3_norm(wk_vec3 a)
{
    return sqrt(wk_vec3_dot(a, a));
}

bool wk_vec3_is_finite(wk_vec3 a)
{
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}
