/* query.c — cached views and iteration. A query keeps the list of tables that
 * hold all its `with` types and none of its `without` types, with the column
 * of each term in each table; table.c appends new tables as they appear, so
 * the view never goes stale and iterating skips nothing it need not visit.
 *
 * Iterators defer structural changes: while one is open, adding or removing
 * components and destroying entities are queued (defer.c) and applied when
 * the last one closes. */
#include "ecm_internal.h"

#include <stdlib.h>

enum { MODE_ALL, MODE_NEW, MODE_REMOVED };

bool wk__query_matches(const wk_query *q, const wk__table *t)
{
    for (uint32_t i = 0; i < q->with_count; i++)
        if (wk__column_index(t, q->with[i]) < 0)
            return false;
    for (uint32_t i = 0; i < q->without_count; i++)
        if (wk__column_index(t, q->without[i]) >= 0)
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
    for (uint32_t i = 0; i < ecm->table_count; i++)
        if (wk__query_matches(q, ecm->tables[i]) && wk__query_add_table(q, ecm->tables[i]))
            goto fail_nomem;
    if (WK__VEC_PUSH(ecm->queries, q))
        goto fail_nomem;
    return q;

fail_nomem:
    wk__ecm_fail(ecm, WK_NOMEM, "out of memory creating a query");
fail_free_query:
    free(q->cache.items);
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
    free(q->cache.items);
    free(q);
}

static wk_iter iter_open(wk_query *q, int mode, size_t end)
{
    q->ecm->iter_depth++;
    return (wk_iter){.query = q, .mode = mode, .end = end, .open = true};
}

wk_iter wk_query_iter(wk_query *q)
{
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

/* Steps through a list of entity ids, yielding the live ones that match. */
static bool next_listed(wk_iter *it, const wk_entity *list)
{
    const wk_query *q = it->query;
    while (it->position < it->end) {
        wk_entity e = list[it->position++];
        const wk__record *r = wk__record_of(q->ecm, e);
        if (!r || (it->mode == MODE_REMOVED && !(r->flags & WK__MARKED)))
            continue;
        const wk__table *t = q->ecm->tables[r->table];
        if (!wk__query_matches(q, t))
            continue;
        for (uint32_t i = 0; i < q->with_count; i++)
            it->columns[i] = wk__cell(t, wk__column_index(t, q->with[i]), r->row);
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
    bool more = it->mode == MODE_ALL   ? next_table(it)
                : it->mode == MODE_NEW ? next_listed(it, ecm->created.items)
                                       : next_listed(it, ecm->marked.items);
    if (!more)
        wk_iter_fini(it);
    return more;
}

void *wk_iter_column(const wk_iter *it, size_t term)
{
    return term < it->query->with_count ? it->columns[term] : NULL;
}
