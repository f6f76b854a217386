/* query.c — cached views and iteration. A query keeps the list of tables that
 * hold all its `with` types and none of its `without` types, with the column
 * of each term in each table; table.c appends new tables as they appear, so
 * the view never goes stale and iterating skips nothing it need not visit.
 *
 * Iterators defer structural changes: while one is open, adding or removing
 * components and destroying entities are queued (defer.c) and applied when
 * the last one closes.
 *
 * Terms on sparse types are not properties of tables: a query holding any
 * walks the rows of its tables (or, when no `with` type lives in tables,
 * the members of its first sparse `with` type) and keeps the entities that
 * pass them, a run of consecutive rows per batch when its `with` values are
 * contiguous there, one entity per batch otherwise. */
#include "ecm_internal.h"

#include <stdlib.h>

enum { MODE_ALL, MODE_FILTERED, MODE_NEW, MODE_REMOVED };

static bool is_sparse(const wk_query *q, wk_type type)
{
    return q->ecm->types[type].sparse != NULL;
}

/* The table terms; sparse ones pass. */
bool wk__query_matches(const wk_query *q, const wk__table *t)
{
    for (uint32_t i = 0; i < q->with_count; i++)
        if (wk__column_index(t, q->with[i]) < 0 && !is_sparse(q, q->with[i]))
            return false;
    for (uint32_t i = 0; i < q->without_count; i++)
        if (wk__column_index(t, q->without[i]) >= 0)
            return false;
    return true;
}

/* The sparse terms, and with tables the table ones too. */
static bool entity_passes(const wk_query *q, wk_entity e, bool tables)
{
    const wk_ecm *ecm = q->ecm;
    if (tables && !wk__query_matches(q, ecm->tables[wk__record_of(ecm, e)->table]))
        return false;
    for (uint32_t i = 0; i < q->with_count; i++)
        if (is_sparse(q, q->with[i]) && !wk__sparse_pos(ecm, q->with[i], wk__index(e)))
            return false;
    for (uint32_t i = 0; i < q->without_count; i++)
        if (is_sparse(q, q->without[i]) && wk__sparse_pos(ecm, q->without[i], wk__index(e)))
            return false;
    return true;
}

int wk__query_add_table(wk_query *q, const wk__table *t)
{
    size_t need = q->cache.count + 1 + q->with_count;
    while (q->cache.cap < need)
        if (wk__vec_grow((void **)&q->cache.items, &q->cache.cap, q->cache.cap, sizeof *q->cache.items))
            return WK_NOMEM;
    q->cache.items[q->cache.count++] = t->id;
    for (uint32_t i = 0; i < q->with_count; i++)
        q->cache.items[q->cache.count++] = (uint32_t)wk__column_index(t, q->with[i]);
    return WK_OK;
}

/* Copies the non-zero types of src to dst; fails on an unregistered type. */
static int take_terms(wk_ecm *ecm, const wk_type *src, wk_type *dst, uint32_t *count)
{
    *count = 0;
    for (int i = 0; i < WK_QUERY_MAX_TERMS; i++) {
        if (src[i] == WK_NO_TYPE)
            continue;
        if (src[i] > ecm->type_count)
            return wk__ecm_fail(ecm, WK_INVALID, "query term %d: component type %u is not registered", i, src[i]);
        dst[(*count)++] = src[i];
    }
    return WK_OK;
}

wk_query *wk_query_new(wk_ecm *ecm, const wk_query_desc *desc)
{
    wk_query *q = calloc(1, sizeof *q);
    if (!q) {
        wk__ecm_fail(ecm, WK_NOMEM, "out of memory creating a query");
        return NULL;
    }
    q->ecm = ecm;
    if (take_terms(ecm, desc->with, q->with, &q->with_count) ||
        take_terms(ecm, desc->without, q->without, &q->without_count))
        goto fail_free_query;
    if (q->with_count == 0) {
        wk__ecm_fail(ecm, WK_INVALID, "a query needs at least one `with` type");
        goto fail_free_query;
    }
    bool sparse_with = false, table_with = false;
    for (uint32_t i = 0; i < q->with_count; i++) {
        sparse_with |= is_sparse(q, q->with[i]);
        table_with |= !is_sparse(q, q->with[i]);
    }
    q->sparse_terms = sparse_with;
    for (uint32_t i = 0; i < q->without_count; i++)
        q->sparse_terms |= is_sparse(q, q->without[i]);
    q->driver = table_with ? WK_NO_TYPE : q->with[0];
    q->contiguous = !sparse_with || (q->driver && q->with_count == 1);
    for (uint32_t i = 0; i < ecm->table_count; i++)
        if (wk__query_matches(q, ecm->tables[i]) && wk__query_add_table(q, ecm->tables[i]))
            goto fail_nomem;
    if (WK__VEC_PUSH(ecm->queries, q))
        goto fail_nomem;
    return q;

fail_nomem:
    wk__ecm_fail(ecm, WK_NOMEM, "out of memory creating a query");
fail_free_query:
    WK__VEC_FREE(q->cache);
    free(q);
    return NULL;
}

void wk_query_free(wk_query *q)
{
    if (!q)
        return;
    wk_ecm *ecm = q->ecm;
    for (size_t i = 0; i < ecm->queries.count; i++) {
        if (ecm->queries.items[i] == q) {
            ecm->queries.items[i] = ecm->queries.items[--ecm->queries.count];
            break;
        }
    }
    WK__VEC_FREE(q->cache);
    free(q);
}

static wk_iter iter_open(wk_query *q, int mode, size_t end)
{
    q->ecm->iter_depth++;
    return (wk_iter){.query = q, .mode = mode, .end = end, .open = true};
}

wk_iter wk_query_iter(wk_query *q)
{
    if (q->sparse_terms)
        return iter_open(q, MODE_FILTERED, q->driver ? 1 : q->cache.count);
    return iter_open(q, MODE_ALL, q->cache.count);
}

wk_iter wk_query_iter_new(wk_query *q)
{
    return iter_open(q, MODE_NEW, q->ecm->created.count);
}

wk_iter wk_query_iter_removed(wk_query *q)
{
    return iter_open(q, MODE_REMOVED, q->ecm->marked.count);
}

void wk_iter_fini(wk_iter *it)
{
    if (!it->open)
        return;
    it->open = false;
    it->count = 0;
    wk_ecm *ecm = it->query->ecm;
    if (--ecm->iter_depth == 0)
        wk__defer_flush(ecm);
}

static bool next_table(wk_iter *it)
{
    const wk_query *q = it->query;
    while (it->position < it->end) {
        const uint32_t *entry = &q->cache.items[it->position];
        it->position += 1 + q->with_count;
        const wk__table *t = q->ecm->tables[entry[0]];
        if (t->count == 0)
            continue;
        for (uint32_t i = 0; i < q->with_count; i++)
            it->columns[i] = t->columns[entry[1 + i]].data;
        it->count = t->count;
        it->entities = t->entities;
        return true;
    }
    return false;
}

/* Points the batch's columns at the values of its first entity, at pos in
 * the arrays walked (entry: the table's cache entry, or NULL). */
static void point_columns(wk_iter *it, const uint32_t *entry, const wk__table *t, size_t pos)
{
    const wk_query *q = it->query;
    for (uint32_t i = 0; i < q->with_count; i++) {
        wk_type type = q->with[i];
        if (!is_sparse(q, type)) {
            const wk__column *c = &t->columns[entry[1 + i]];
            it->columns[i] = c->data ? c->data + pos * c->size : NULL;
            continue;
        }
        const wk__sparse *s = q->ecm->types[type].sparse;
        it->columns[i] = wk__sparse_cell(s, wk__sparse_find(s, wk__index(it->entities[0])) - 1);
    }
}

static bool next_filtered(wk_iter *it)
{
    const wk_query *q = it->query;
    const wk_ecm *ecm = q->ecm;
    while (it->position < it->end) {
        const uint32_t *entry = q->driver ? NULL : &q->cache.items[it->position];
        const wk__table *t = entry ? ecm->tables[entry[0]] : NULL;
        const wk__sparse *s = entry ? NULL : ecm->types[q->driver].sparse;
        const wk_entity *ids = t ? t->entities : s->entities;
        size_t count = t ? t->count : s->count;
        while (it->row < count && !entity_passes(q, ids[it->row], !t))
            it->row++;
        if (it->row == count) {
            it->position += t ? 1 + q->with_count : 1;
            it->row = 0;
            continue;
        }
        size_t first = it->row++;
        while (q->contiguous && it->row < count && entity_passes(q, ids[it->row], !t))
            it->row++;
        it->entities = ids + first;
        it->count = it->row - first;
        point_columns(it, entry, t, first);
        return true;
    }
    return false;
}

/* Steps through a list of entity ids, yielding the live ones that match. */
static bool next_listed(wk_iter *it, const wk_entity *list)
{
    const wk_query *q = it->query;
    while (it->position < it->end) {
        wk_entity e = list[it->position++];
        const wk__record *r = wk__record_of(q->ecm, e);
        if (!r || (it->mode == MODE_REMOVED && !(r->flags & WK__MARKED)))
            continue;
        if (!entity_passes(q, e, true))
            continue;
        for (uint32_t i = 0; i < q->with_count; i++) {
            uint8_t *change;
            wk__component_at(q->ecm, r, e, q->with[i], &it->columns[i], &change);
        }
        it->single = e;
        it->entities = &it->single;
        it->count = 1;
        return true;
    }
    return false;
}

bool wk_iter_next(wk_iter *it)
{
    if (!it->open)
        return false;
    const wk_ecm *ecm = it->query->ecm;
    bool more = it->mode == MODE_ALL        ? next_table(it)
                : it->mode == MODE_FILTERED ? next_filtered(it)
                : it->mode == MODE_NEW      ? next_listed(it, ecm->created.items)
                                            : next_listed(it, ecm->marked.items);
    if (!more)
        wk_iter_fini(it);
    return more;
}

void *wk_iter_column(const wk_iter *it, size_t term)
{
    return term < it->query->with_count ? it->columns[term] : NULL;
}
