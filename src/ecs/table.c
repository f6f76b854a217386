/* table.c — archetype tables: finding the table for a set of types, growing
 * columns, appending, moving and deleting rows, and the add/remove edges
 * that make moving an entity to its next table a single array lookup. */
#include "ecm_internal.h"

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_types(const wk_type *types, uint32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ types[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

static bool same_types(const wk__table *t, const wk_type *types, uint32_t n)
{
    return t->type_count == n && (n == 0 || memcmp(t->types, types, n * sizeof *types) == 0);
}

static wk__table *index_find(const wk_ecm *ecm, const wk_type *types, uint32_t n)
{
    if (!ecm->table_index_cap)
        return NULL;
    uint32_t mask = ecm->table_index_cap - 1;
    for (uint32_t i = (uint32_t)hash_types(types, n) & mask;; i = (i + 1) & mask) {
        uint32_t slot = ecm->table_index[i];
        if (!slot)
            return NULL;
        if (same_types(ecm->tables[slot - 1], types, n))
            return ecm->tables[slot - 1];
    }
}

wk__table *wk__table_find(const wk_ecm *ecm, const wk_type *types, uint32_t n)
{
    return index_find(ecm, types, n);
}

static void index_put(wk_ecm *ecm, const wk__table *t)
{
    uint32_t mask = ecm->table_index_cap - 1;
    uint32_t i = (uint32_t)hash_types(t->types, t->type_count) & mask;
    while (ecm->table_index[i])
        i = (i + 1) & mask;
    ecm->table_index[i] = t->id + 1;
}

/* Keeps the index at most half full. */
static int index_reserve(wk_ecm *ecm, uint32_t table_count)
{
    if (table_count * 2 <= ecm->table_index_cap)
        return WK_OK;
    uint32_t cap = ecm->table_index_cap ? ecm->table_index_cap * 2 : 64;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return WK_NOMEM;
    free(ecm->table_index);
    ecm->table_index = slots;
    ecm->table_index_cap = cap;
    for (uint32_t i = 0; i < ecm->table_count; i++)
        index_put(ecm, ecm->tables[i]);
    return WK_OK;
}

void wk__table_free(wk_ecm *ecm, wk__table *t)
{
    if (ecm)
        wk__layout_moved(ecm);
    if (!t)
        return;
    for (uint32_t c = 0; c < t->type_count && t->columns; c++) {
        wk__column *col = &t->columns[c];
        if (ecm && ecm->types[t->types[c]].desc.hooks.destroy)
            for (uint32_t row = 0; row < t->count; row++)
                wk__table_destroy_value(ecm, t->types[c], wk__cell(t, (int32_t)c, row));
        wk__mem_free(col->data, (size_t)col->data_cap * col->size);
        wk__mem_free(col->change, col->change_cap);
    }
    free(t->columns);
    free(t->types);
    wk__mem_free(t->entities, (size_t)t->entities_cap * sizeof *t->entities);
    free(t->add_edge);
    free(t->remove_edge);
    free(t);
}

static wk__table *table_new(wk_ecm *ecm, const wk_type *types, uint32_t n)
{
    uint32_t slots = n ? types[n - 1] + 1 : 0;
    wk__table *t = calloc(1, sizeof *t + slots * sizeof *t->column_of);
    if (!t)
        return NULL;
    t->id = ecm->table_count;
    t->type_count = n;
    t->slot_count = slots;
    t->types = malloc((n ? n : 1) * sizeof *t->types);
    t->columns = calloc(n ? n : 1, sizeof *t->columns);
    if (!t->types || !t->columns) {
        wk__table_free(ecm, t);
        return NULL;
    }
    for (uint32_t i = 0; i < slots; i++)
        t->column_of[i] = -1;
    for (uint32_t c = 0; c < n; c++) {
        const wk__type_info *info = &ecm->types[types[c]];
        t->types[c] = types[c];
        t->columns[c].size = info->desc.size;
        t->columns[c].align = info->desc.align;
        t->column_of[types[c]] = (int32_t)c;
        t->destroys |= info->desc.hooks.destroy != NULL;
        t->copies |= info->desc.hooks.copy != NULL;
    }
    return t;
}

int wk__values_grow(wk__type_info *info, uint32_t old_cap, uint32_t cap)
{
    uint8_t **values = realloc(info->values, (cap ? cap : 1) * sizeof *values);
    if (!values)
        return WK_NOMEM;
    memset(values + old_cap, 0, (cap - old_cap) * sizeof *values);
    info->values = values;
    return WK_OK;
}

/* Grows the tables array, and every type's values with it, to cap. */
static int tables_grow(wk_ecm *ecm, uint32_t cap)
{
    wk__table **tables = realloc(ecm->tables, cap * sizeof *tables);
    if (!tables)
        return WK_NOMEM;
    ecm->tables = tables;
    for (wk_type t = 1; t <= ecm->type_count; t++)
        if (wk__values_grow(&ecm->types[t], ecm->table_cap, cap))
            return WK_NOMEM; /* those grown already are simply longer */
    ecm->table_cap = cap;
    return WK_OK;
}

wk__table *wk__table_for_types(wk_ecm *ecm, const wk_type *types, uint32_t n)
{
    wk__table *t = index_find(ecm, types, n);
    if (t || ecm->table_count == WK__TABLE_MAX)
        return t;
    if (ecm->table_count == ecm->table_cap && tables_grow(ecm, ecm->table_cap ? ecm->table_cap * 2 : 16))
        return NULL;
    if (index_reserve(ecm, ecm->table_count + 1))
        return NULL;
    t = table_new(ecm, types, n);
    if (!t)
        return NULL;
    for (size_t i = 0; i < ecm->queries.count; i++) {
        wk_query *q = ecm->queries.items[i];
        if (wk__query_matches(q, t) && wk__query_add_table(q, t)) {
            /* Undo the tables already registered with earlier queries. */
            while (i-- > 0) {
                wk_query *earlier = ecm->queries.items[i];
                if (wk__query_matches(earlier, t))
                    earlier->cache.count -= 1 + earlier->with_count;
            }
            wk__table_free(ecm, t);
            return NULL;
        }
    }
    ecm->tables[ecm->table_count++] = t;
    index_put(ecm, t);
    return t;
}

static int edge_reserve(wk_ecm *ecm, wk__table *t)
{
    uint32_t len = ecm->type_count + 1;
    if (t->edge_len >= len)
        return WK_OK;
    uint32_t *add = realloc(t->add_edge, len * sizeof *add);
    if (!add)
        return WK_NOMEM;
    t->add_edge = add;
    uint32_t *remove = realloc(t->remove_edge, len * sizeof *remove);
    if (!remove)
        return WK_NOMEM;
    t->remove_edge = remove;
    for (uint32_t i = t->edge_len; i < len; i++)
        add[i] = remove[i] = 0;
    t->edge_len = len;
    return WK_OK;
}

wk__table *wk__table_neighbour(wk_ecm *ecm, wk__table *from, wk_type type, bool adding)
{
    if ((wk__column_index(from, type) >= 0) == adding)
        return from;
    wk_type small[16];
    wk_type *types = from->type_count < 16 ? small : malloc((from->type_count + 1) * sizeof *types);
    if (!types)
        return NULL;
    uint32_t n = 0;
    for (uint32_t i = 0; i < from->type_count; i++) {
        if (adding && n == i && type < from->types[i])
            types[n++] = type;
        if (from->types[i] != type)
            types[n++] = from->types[i];
    }
    if (adding && n == from->type_count)
        types[n++] = type;
    wk__table *to = wk__table_for_types(ecm, types, n);
    if (types != small)
        free(types);
    if (to && edge_reserve(ecm, from) == WK_OK)
        (adding ? from->add_edge : from->remove_edge)[type] = to->id + 1;
    return to;
}

/* Grows one array of a table to cap rows; *array_cap says how many rows it
 * holds, so that a table whose growth stopped halfway stays consistent. */
static int grow_array(void *array, uint32_t *array_cap, uint32_t cap, size_t row_size, size_t align)
{
    if (*array_cap >= cap || row_size == 0)
        return WK_OK;
    void **p = array;
    void *grown = wk__mem_resize(*p, (size_t)*array_cap * row_size, (size_t)cap * row_size, align);
    if (!grown)
        return WK_NOMEM;
    *p = grown;
    *array_cap = cap;
    return WK_OK;
}

void wk__table_publish(wk_ecm *ecm, const wk__table *t)
{
    for (uint32_t c = 0; c < t->type_count; c++)
        ecm->types[t->types[c]].values[t->id] = t->columns[c].data;
}

static int table_reserve(wk_ecm *ecm, wk__table *t, uint32_t cap)
{
    if (cap <= t->cap)
        return WK_OK;
    if (grow_array(&t->entities, &t->entities_cap, cap, sizeof(wk_entity), 8))
        return WK_NOMEM;
    uint32_t c = 0;
    for (; c < t->type_count; c++) {
        wk__column *col = &t->columns[c];
        if (grow_array(&col->change, &col->change_cap, cap, 1, 1) ||
            grow_array(&col->data, &col->data_cap, cap, col->size, col->align))
            break;
    }
    /* A column grown before a failure has moved too. */
    wk__table_publish(ecm, t);
    wk__layout_moved(ecm);
    if (c < t->type_count)
        return WK_NOMEM;
    t->cap = cap;
    return WK_OK;
}

static int grow_by_one(wk_ecm *ecm, wk__table *t)
{
    if (t->count == UINT32_MAX)
        return WK_NOMEM;
    return table_reserve(ecm, t, t->cap >= UINT32_MAX / 2 ? UINT32_MAX : (t->cap ? t->cap * 2 : 64));
}

/* Makes room for one more row; 0 or WK_NOMEM. */
static inline int room_for_one(wk_ecm *ecm, wk__table *t)
{
    return t->count < t->cap ? WK_OK : grow_by_one(ecm, t);
}

int64_t wk__table_append(wk_ecm *ecm, wk__table *t, wk_entity e)
{
    if (room_for_one(ecm, t))
        return -1;
    uint32_t row = t->count++;
    t->entities[row] = e;
    return row;
}

void wk__table_destroy_value(const wk_ecm *ecm, wk_type type, void *value)
{
    void (*destroy)(void *) = ecm->types[type].desc.hooks.destroy;
    if (destroy && value)
        destroy(value);
}

/* Copies row src of t over row dst, values and change states as bytes, and
 * tells the moved entity's record. */
static void move_row(wk_ecm *ecm, wk__table *t, uint32_t dst, uint32_t src)
{
    for (uint32_t c = 0; c < t->type_count; c++) {
        wk__column *col = &t->columns[c];
        if (col->size)
            wk__copy_value(col->data + (size_t)dst * col->size, col->data + (size_t)src * col->size, col->size);
        col->change[dst] = col->change[src];
    }
    wk_entity moved = t->entities[src];
    t->entities[dst] = moved;
    wk__slot(ecm, wk__index(moved))->row = dst;
}

/* Fills row `row` with the last row and drops the last row. */
void wk__table_remove_row(wk_ecm *ecm, wk__table *t, uint32_t row)
{
    wk__layout_moved(ecm); /* the row is another entity's, or none's */
    uint32_t last = --t->count;
    if (row != last)
        move_row(ecm, t, row, last);
}

void wk__table_reopen_row(wk_ecm *ecm, wk__table *t, uint32_t row)
{
    wk__layout_moved(ecm);
    uint32_t end = t->count++;
    if (row != end)
        move_row(ecm, t, end, row);
}

void wk__table_delete_row(wk_ecm *ecm, wk__table *t, uint32_t row)
{
    for (uint32_t c = 0; t->destroys && c < t->type_count; c++)
        wk__table_destroy_value(ecm, t->types[c], wk__cell(t, (int32_t)c, row));
    wk__table_remove_row(ecm, t, row);
}

/* Copies one value and its change state from row sr of column s to row dr
 * of column d (same type). */
static inline void copy_cell(wk__column *restrict d, uint32_t dr, const wk__column *restrict s, uint32_t sr)
{
    size_t size = s->size;
    if (size)
        wk__copy_value(d->data + (size_t)dr * size, s->data + (size_t)sr * size, size);
    d->change[dr] = s->change[sr];
}

int wk__table_move(wk_ecm *ecm, wk__record *r, wk__table *to, wk_type type, const void *added, void *removed)
{
    wk__table *from = ecm->tables[r->table];
    uint32_t row = r->row;
    /* The row is usually cold. Its values are read below by independent
     * loads, which the CPU issues together, so the misses overlap without
     * prefetching. */
    if (room_for_one(ecm, to))
        return WK_NOMEM;
    uint32_t dst = to->count++;
    to->entities[dst] = from->entities[row];
    /* The two tables' columns are in the same order but for the one of
     * `type`, at position p of the larger table. */
    const wk__column *fc = from->columns;
    wk__column *tc = to->columns;
    uint32_t n = from->type_count;
    if (to->type_count > n) {
        uint32_t p = (uint32_t)to->column_of[type];
        for (uint32_t c = 0; c < p; c++)
            copy_cell(&tc[c], dst, &fc[c], row);
        for (uint32_t c = p; c < n; c++)
            copy_cell(&tc[c + 1], dst, &fc[c], row);
        wk__column *a = &tc[p];
        if (a->size)
            wk__fill_value(a->data + (size_t)dst * a->size, added, a->size);
        a->change[dst] = WK_ONE_TIME_CHANGE;
    } else {
        uint32_t p = (uint32_t)from->column_of[type];
        for (uint32_t c = 0; c < p; c++)
            copy_cell(&tc[c], dst, &fc[c], row);
        for (uint32_t c = p + 1; c < n; c++)
            copy_cell(&tc[c - 1], dst, &fc[c], row);
        const wk__column *gone = &fc[p];
        if (gone->size) {
            void *cell = gone->data + (size_t)row * gone->size;
            if (removed)
                wk__copy_value(removed, cell, gone->size);
            else
                wk__table_destroy_value(ecm, type, cell);
        }
    }
    wk__table_remove_row(ecm, from, row);
    r->table = to->id;
    r->row = dst;
    ecm->version++;
    return WK_OK;
}

bool wk__table_holds(const wk__table *t, const void *p)
{
    const uint8_t *q = p;
    for (uint32_t c = 0; c < t->type_count; c++) {
        const wk__column *col = &t->columns[c];
        if (col->data && q >= col->data && q < col->data + (size_t)col->data_cap * col->size)
            return true;
    }
    return false;
}
