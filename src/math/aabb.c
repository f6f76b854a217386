/* aabb.c — axis-aligned boxes, the cheap bounds that broad-phase queries test
 * before anything exact. Touching counts as intersecting so that a contact
 * resting exactly on a face is never culled, and an empty box (any min above
 * its max) meets nothing and stays empty when inflated, so a box that
 * stands for nothing cannot turn into one that stands for something. */
#include "worldkit/wk_math.h"

static bool aabb_is_empty(wk_aabb box)
{
    return box.min.x > box.max.x || box.min.y > box.max.y || box.min.z > box.max.z;
}

wk_aabb wk_aabb_from_center(wk_vec3 center, wk_vec3 size)
{
    wk_vec3 half = wk_vec3_scale(size, 0.5);
    return (wk_aabb){wk_vec3_sub(center, half), wk_vec3_add(center, half)};
}

wk_aabb wk_aabb_inflate(wk_aabb box, double margin)
{
    if (aabb_is_empty(box))
        return box;
    wk_vec3 grow = {margin, margin, margin};
    return (wk_aabb){wk_vec3_sub(box.min, grow), wk_vec3_add(box.max, grow)};
}

bool wk_aabb_intersects(wk_aabb a, wk_aabb b)
{
    /* Per axis, the intervals overlap or touch when neither starts after the
     * other ends. That test alone would let an empty box, whose min lies
     * above its max, meet any box straddling it, hence the explicit check. */
    if (aabb_is_empty(a) || aabb_is_empty(b))
        return false;
    return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y &&
           a.min.z <= b.max.z && b.min.z <= a.max.z;
}
