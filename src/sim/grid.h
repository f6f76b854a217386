/* grid.h — a uniform grid over fixed boxes (level zones), so that finding the
 * boxes a small box touches costs the few cells it covers, not all boxes. */
#ifndef WK_SIM_GRID_H
#define WK_SIM_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "worldkit/wk_math.h"

typedef struct wk__grid {
    double cell;         /* cell edge, m */
    double x0, y0;       /* the corner of cell (0, 0) */
    int64_t nx, ny;      /* cells along x and y */
    uint32_t *first;     /* per cell, its run in ids; one more at the end */
    uint32_t *ids;
    uint32_t *large;     /* boxes too big for the grid, always visited */
    size_t large_count;
    size_t n;            /* boxes indexed */
} wk__grid;

/* Indexes n boxes (ids 0..n-1). 0 or WK_NOMEM. */
int wk__grid_build(wk__grid *g, const wk_aabb *boxes, size_t n);
void wk__grid_free(wk__grid *g);
/* Calls visit with every id whose box may touch box (an id may come twice). */
void wk__grid_query(const wk__grid *g, wk_aabb box, void (*visit)(uint32_t id, void *ctx), void *ctx);

#endif
