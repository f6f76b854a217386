/* grid.c — the grid of grid.h: a dense 2D array of cells over the boxes'
 * horizontal extent (worlds spread out horizontally; height is left to the
 * exact test the caller makes). Cells are as big as the boxes are on
 * average, and grow until the array holds at most a few cells per box, so
 * a box covers a handful of cells and memory stays linear. Boxes covering
 * more than LARGE_CELLS cells are kept aside and visited by every query. */
#include <math.h>
#include <stdlib.h>

#include "sim/grid.h"
#include "worldkit/wk_base.h"

#define LARGE_CELLS 64
#define CELLS_PER_BOX 16

typedef struct cell_range {
    int64_t x0, y0, x1, y1; /* inclusive */
} cell_range;

static int64_t clamp(double c, int64_t n)
{
    return c < 0 ? 0 : c >= (double)n ? n - 1 : (int64_t)c;
}

/* The cells box covers, clamped to the grid; false when it misses it. */
static bool range_of(const wk__grid *g, wk_aabb b, cell_range *r)
{
    double x0 = floor((b.min.x - g->x0) / g->cell), x1 = floor((b.max.x - g->x0) / g->cell);
    double y0 = floor((b.min.y - g->y0) / g->cell), y1 = floor((b.max.y - g->y0) / g->cell);
    if (!(x1 >= 0 && y1 >= 0 && x0 < (double)g->nx && y0 < (double)g->ny))
        return false;
    *r = (cell_range){clamp(x0, g->nx), clamp(y0, g->ny), clamp(x1, g->nx), clamp(y1, g->ny)};
    return true;
}

static int64_t cells_in(const cell_range *r)
{
    return (r->x1 - r->x0 + 1) * (r->y1 - r->y0 + 1);
}

/* Picks the grid's extent and cell size for the boxes. */
static void shape(wk__grid *g, const wk_aabb *boxes, size_t n)
{
    double minx = INFINITY, miny = INFINITY, maxx = -INFINITY, maxy = -INFINITY, sum = 0;
    for (size_t i = 0; i < n; i++) {
        minx = fmin(minx, boxes[i].min.x), miny = fmin(miny, boxes[i].min.y);
        maxx = fmax(maxx, boxes[i].max.x), maxy = fmax(maxy, boxes[i].max.y);
        sum += fmax(boxes[i].max.x - boxes[i].min.x, boxes[i].max.y - boxes[i].min.y);
    }
    g->cell = n && sum > 0 ? sum / (double)n : 1;
    g->x0 = n ? minx : 0;
    g->y0 = n ? miny : 0;
    for (;;) {
        double nx = n ? floor((maxx - minx) / g->cell) + 1 : 1, ny = n ? floor((maxy - miny) / g->cell) + 1 : 1;
        if (nx * ny <= (double)(CELLS_PER_BOX * n + 1024)) {
            g->nx = (int64_t)nx;
            g->ny = (int64_t)ny;
            return;
        }
        g->cell *= 2;
    }
}

/* Calls fn for every cell of box i that the grid holds it in. */
static void each_cell(const wk__grid *g, const wk_aabb *box, void (*fn)(wk__grid *g, int64_t cell, uint32_t i),
                      wk__grid *target, uint32_t i)
{
    cell_range r;
    if (!range_of(g, *box, &r))
        return;
    for (int64_t y = r.y0; y <= r.y1; y++)
        for (int64_t x = r.x0; x <= r.x1; x++)
            fn(target, y * g->nx + x, i);
}

static void count_cell(wk__grid *g, int64_t cell, uint32_t i)
{
    (void)i;
    g->first[cell + 1]++;
}

static void fill_cell(wk__grid *g, int64_t cell, uint32_t i)
{
    g->entries[g->first[cell]++] = (wk__grid_entry){g->boxes[i], i};
}

static bool is_large(const wk__grid *g, const wk_aabb *box)
{
    cell_range r;
    return range_of(g, *box, &r) && cells_in(&r) > LARGE_CELLS;
}

int wk__grid_build(wk__grid *g, const wk_aabb *boxes, size_t n)
{
    *g = (wk__grid){.n = n, .boxes = boxes};
    shape(g, boxes, n);
    size_t cells = (size_t)(g->nx * g->ny);
    g->first = calloc(cells + 1, sizeof *g->first);
    g->large = malloc((n ? n : 1) * sizeof *g->large);
    if (!g->first || !g->large)
        goto fail;
    /* Counting sort: cell sizes, then offsets, then ids. */
    for (uint32_t i = 0; i < n; i++) {
        if (is_large(g, &boxes[i]))
            g->large[g->large_count++] = i;
        else
            each_cell(g, &boxes[i], count_cell, g, i);
    }
    for (size_t c = 0; c < cells; c++)
        g->first[c + 1] += g->first[c];
    g->entries = malloc((g->first[cells] ? g->first[cells] : 1) * sizeof *g->entries);
    if (!g->entries)
        goto fail;
    for (uint32_t i = 0; i < n; i++)
        if (!is_large(g, &boxes[i]))
            each_cell(g, &boxes[i], fill_cell, g, i);
    /* fill_cell moved each offset to its cell's end: shift them back. */
    for (size_t c = cells; c > 0; c--)
        g->first[c] = g->first[c - 1];
    g->first[0] = 0;
    return WK_OK;
fail:
    wk__grid_free(g);
    return WK_NOMEM;
}

void wk__grid_free(wk__grid *g)
{
    free(g->first);
    free(g->entries);
    free(g->large);
    *g = (wk__grid){0};
}

void wk__grid_query(const wk__grid *g, wk_aabb box, wk__grid_visit visit, void *ctx)
{
    for (size_t i = 0; i < g->large_count; i++)
        visit(g->large[i], &g->boxes[g->large[i]], ctx);
    cell_range r;
    if (!g->first || !range_of(g, box, &r))
        return;
    if (cells_in(&r) > LARGE_CELLS * LARGE_CELLS) {
        /* A query box far bigger than the levels: every box is a candidate. */
        for (uint32_t i = 0; i < g->n; i++)
            visit(i, &g->boxes[i], ctx);
        return;
    }
    for (int64_t y = r.y0; y <= r.y1; y++)
        for (int64_t x = r.x0; x <= r.x1; x++) {
            int64_t c = y * g->nx + x;
            for (uint32_t k = g->first[c]; k < g->first[c + 1]; k++)
                visit(g->entries[k].id, &g->entries[k].box, ctx);
        }
}
