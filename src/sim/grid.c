/* grid.c — the uniform grid of grid.h. Cells are as big as the boxes are on
 * average, so a box covers a handful of cells; boxes covering more than
 * LARGE_CELLS cells are kept aside and visited by every query. Cells live
 * in a hash table of runs into one array of ids, built once. */
#include <math.h>
#include <stdlib.h>

#include "sim/grid.h"
#include "worldkit/wk_base.h"

#define LARGE_CELLS 64
#define COORD_LIMIT 1048575 /* 21 bits each, signed */

typedef struct cell_range {
    int64_t lo[3], hi[3];
} cell_range;

static int64_t cell_of(double x, double cell)
{
    double c = floor(x / cell);
    return c < -COORD_LIMIT ? -COORD_LIMIT : c > COORD_LIMIT ? COORD_LIMIT : (int64_t)c;
}

static cell_range range_of(wk_aabb b, double cell)
{
    return (cell_range){{cell_of(b.min.x, cell), cell_of(b.min.y, cell), cell_of(b.min.z, cell)},
                        {cell_of(b.max.x, cell), cell_of(b.max.y, cell), cell_of(b.max.z, cell)}};
}

static uint64_t cells_in(const cell_range *r)
{
    return (uint64_t)(r->hi[0] - r->lo[0] + 1) * (uint64_t)(r->hi[1] - r->lo[1] + 1) * (uint64_t)(r->hi[2] - r->lo[2] + 1);
}

/* Packs a cell; never 0, which marks an empty slot. */
static uint64_t key_of(int64_t x, int64_t y, int64_t z)
{
    const uint64_t m = (1u << 21) - 1;
    return ((uint64_t)(x + COORD_LIMIT + 1) & m) << 42 | ((uint64_t)(y + COORD_LIMIT + 1) & m) << 21 |
           ((uint64_t)(z + COORD_LIMIT + 1) & m);
}

static size_t slot_of(uint64_t key, size_t mask)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & mask;
}

typedef struct pair {
    uint64_t key;
    uint32_t id;
} pair;

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const pair *)a)->key, y = ((const pair *)b)->key;
    return (x > y) - (x < y);
}

/* Every (cell, id) pair of the boxes small enough for the grid. */
static pair *pairs_of(wk__grid *g, const wk_aabb *boxes, size_t n, size_t *count)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        cell_range r = range_of(boxes[i], g->cell);
        uint64_t c = cells_in(&r);
        total += c > LARGE_CELLS ? 0 : c;
    }
    pair *pairs = malloc((total ? total : 1) * sizeof *pairs);
    g->large = malloc((n ? n : 1) * sizeof *g->large);
    if (!pairs || !g->large) {
        free(pairs);
        return NULL;
    }
    *count = 0;
    for (uint32_t i = 0; i < n; i++) {
        cell_range r = range_of(boxes[i], g->cell);
        if (cells_in(&r) > LARGE_CELLS) {
            g->large[g->large_count++] = i;
            continue;
        }
        for (int64_t x = r.lo[0]; x <= r.hi[0]; x++)
            for (int64_t y = r.lo[1]; y <= r.hi[1]; y++)
                for (int64_t z = r.lo[2]; z <= r.hi[2]; z++)
                    pairs[(*count)++] = (pair){key_of(x, y, z), i};
    }
    return pairs;
}

int wk__grid_build(wk__grid *g, const wk_aabb *boxes, size_t n)
{
    *g = (wk__grid){.cell = 1, .n = n};
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        wk_vec3 e = wk_vec3_sub(boxes[i].max, boxes[i].min);
        sum += fmax(e.x, fmax(e.y, e.z));
    }
    if (n && sum > 0)
        g->cell = sum / (double)n;
    size_t count;
    pair *pairs = pairs_of(g, boxes, n, &count);
    if (!pairs)
        return WK_NOMEM;
    qsort(pairs, count, sizeof *pairs, by_key);
    size_t cap = 16;
    while (cap < count * 2)
        cap *= 2;
    g->mask = cap - 1;
    g->keys = calloc(cap, sizeof *g->keys);
    g->first = malloc(cap * sizeof *g->first);
    g->count = malloc(cap * sizeof *g->count);
    g->ids = malloc((count ? count : 1) * sizeof *g->ids);
    if (!g->keys || !g->first || !g->count || !g->ids) {
        free(pairs);
        wk__grid_free(g);
        return WK_NOMEM;
    }
    for (size_t i = 0; i < count;) {
        size_t j = i;
        while (j < count && pairs[j].key == pairs[i].key)
            g->ids[j] = pairs[j].id, j++;
        size_t s = slot_of(pairs[i].key, g->mask);
        while (g->keys[s])
            s = (s + 1) & g->mask;
        g->keys[s] = pairs[i].key;
        g->first[s] = (uint32_t)i;
        g->count[s] = (uint32_t)(j - i);
        i = j;
    }
    free(pairs);
    return WK_OK;
}

void wk__grid_free(wk__grid *g)
{
    free(g->keys);
    free(g->first);
    free(g->count);
    free(g->ids);
    free(g->large);
    *g = (wk__grid){0};
}

void wk__grid_query(const wk__grid *g, wk_aabb box, void (*visit)(uint32_t id, void *ctx), void *ctx)
{
    for (size_t i = 0; i < g->large_count; i++)
        visit(g->large[i], ctx);
    if (!g->keys)
        return;
    cell_range r = range_of(box, g->cell);
    if (cells_in(&r) > LARGE_CELLS * LARGE_CELLS) {
        /* A query box far bigger than the levels: every box is a candidate. */
        for (uint32_t i = 0; i < g->n; i++)
            visit(i, ctx);
        return;
    }
    for (int64_t x = r.lo[0]; x <= r.hi[0]; x++)
        for (int64_t y = r.lo[1]; y <= r.hi[1]; y++)
            for (int64_t z = r.lo[2]; z <= r.hi[2]; z++) {
                uint64_t key = key_of(x, y, z);
                for (size_t s = slot_of(key, g->mask); g->keys[s]; s = (s + 1) & g->mask)
                    if (g->keys[s] == key) {
                        for (uint32_t k = 0; k < g->count[s]; k++)
                            visit(g->ids[g->first[s] + k], ctx);
                        break;
                    }
            }
}
