/* grid.h — a uniform grid over fixed boxes (level zones), so that finding the
 * boxes a small box touches costs the few cells it covers, not all boxes. */
#ifndef WK_SIM_GRID_H
#define WK_SIM_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "worldkit/wk_math.h"

/* A box in a cell: kept beside its id so that a query reads one run of
 * memory per cell instead of looking each box up. */
typedef struct wk__grid_entry {
    wk_aabb box;
    uint32_t id;
} wk__grid_entry;

typedef struct wk__grid {
    double cell;         /* cell edge, m */
    double x0, y0;       /* the corner of cell (0, 0) */
    int64_t nx, ny;      /* cells along x and y */
    uint32_t *first;     /* per cell, its run in entries; one more at the end */
    wk__grid_entry *entries;
    const wk_aabb *boxes; /* the indexed boxes, borrowed: for large boxes */
    uint32_t *large;     /* boxes too big for the grid, always visited */
    size_t large_count;
    size_t n;            /* boxes indexed */
} wk__grid;

/* Indexes n boxes (ids 0..n-1), which must outlive the grid. 0 or WK_NOMEM. */
int wk__grid_build(wk__grid *g, const wk_aabb *boxes, size_t n);
void wk__grid_free(wk__grid *g);
/* Calls visit with every box (and its id) that may touch box; a box may come
 * more than once. */
typedef void (*wk__grid_visit)(uint32_t id, const wk_aabb *box, void *ctx);
void wk__grid_query(const wk__grid *g, wk_aabb box, wk__grid_visit visit, void *ctx);

#endif
