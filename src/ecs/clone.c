/* clone.c — deep copies of an ECM and comparing two ECMs. A clone is made
 * table by table: plain columns are copied in one memcpy each, so cloning a
 * world costs about as much as copying its memory. */
#include "ecm_internal.h"

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

static void *dup_bytes(const void *src, size_t n)
{
    void *dst = malloc(n ? n : 1);
    if (dst && n)
        memcpy(dst, src, n);
    return dst;
}

/* A copy of bytes of a WK__VEC's items, a large array as growth makes them
 * (base/mem.h); NULL when out of memory. */
static void *dup_vec_items(const void *items, size_t bytes)
{
    void *copy = wk__mem_resize(NULL, 0, bytes, 16);
    if (copy && bytes)
        memcpy(copy, items, bytes);
    return copy;
}

#define DUP_VEC(dst, src) \
    ((dst).items = dup_vec_items((src).items, (src).count * sizeof *(src).items), \
     (dst).count = (dst).cap = (src).count, (dst).items != NULL)

/* A copy of the first used bytes of an array with room for cap_bytes. */
static void *copy_array(const void *src, size_t used_bytes, size_t cap_bytes, size_t align)
{
    void *dst = wk__mem_resize(NULL, 0, cap_bytes, align);
    if (dst && used_bytes)
        wk__mem_copy(dst, src, used_bytes);
    return dst;
}

static int clone_column(const wk_ecm *ecm, wk_type type, const wk__table *src, uint32_t c, wk__column *dst)
{
    const wk__column *s = &src->columns[c];
    uint32_t cap = src->count ? src->count : 1;
    *dst = (wk__column){.size = s->size, .align = s->align, .change_cap = cap};
    if (!(dst->change = copy_array(s->change, src->count, cap, 1)))
        return WK_NOMEM;
    if (!s->size)
        return WK_OK;
    const wk_type_hooks *h = &ecm->types[type].desc.hooks;
    int (*copy)(void *, const void *) = h->share ? h->share : h->copy;
    size_t used = copy ? 0 : (size_t)src->count * s->size;
    if (!(dst->data = copy_array(s->data, used, (size_t)cap * s->size, s->align)))
        return WK_NOMEM;
    dst->data_cap = cap;
    for (uint32_t row = 0; copy && row < src->count; row++)
        if (copy(dst->data + (size_t)row * s->size, s->data + (size_t)row * s->size)) {
            while (row-- > 0)
                wk__table_destroy_value(ecm, type, dst->data + (size_t)row * s->size);
            wk__mem_free(dst->data, (size_t)cap * s->size);
            dst->data = NULL;
            dst->data_cap = 0;
            return WK_NOMEM;
        }
    return WK_OK;
}

static wk__table *clone_table(const wk_ecm *ecm, const wk__table *src)
{
    size_t slots_bytes = src->slot_count * sizeof *src->column_of;
    wk__table *t = calloc(1, sizeof *t + slots_bytes);
    if (!t)
        return NULL;
    uint32_t cap = src->count ? src->count : 1;
    *t = (wk__table){.id = src->id,
                     .type_count = src->type_count,
                     .slot_count = src->slot_count,
                     .count = src->count,
                     .edge_len = src->edge_len,
                     .destroys = src->destroys,
                     .copies = src->copies};
    memcpy(t->column_of, src->column_of, slots_bytes);
    t->types = dup_bytes(src->types, src->type_count * sizeof *t->types);
    t->add_edge = dup_bytes(src->add_edge, src->edge_len * sizeof *t->add_edge);
    t->remove_edge = dup_bytes(src->remove_edge, src->edge_len * sizeof *t->remove_edge);
    t->columns = calloc(src->type_count ? src->type_count : 1, sizeof *t->columns);
    t->entities = copy_array(src->entities, src->count * sizeof(wk_entity), cap * sizeof(wk_entity), 8);
    t->entities_cap = t->entities ? cap : 0;
    bool ok = t->types && t->entities && t->add_edge && t->remove_edge && t->columns;
    uint32_t c = 0;
    for (; ok && c < src->type_count; c++)
        ok = clone_column(ecm, src->types[c], src, c, &t->columns[c]) == WK_OK;
    if (!ok) {
        /* Values exist only in the columns cloned whole, before column c - 1. */
        t->count = 0;
        for (uint32_t i = 0; i + 1 < c; i++)
            for (uint32_t row = 0; row < src->count; row++)
                wk__table_destroy_value(ecm, t->types[i], wk__cell(t, (int32_t)i, row));
        wk__table_free(NULL, t);
        return NULL;
    }
    t->cap = cap;
    return t;
}

/* Copies segment k of the links, only its used slots; the rest reads as
 * zero, without a pass clearing the used ones first. */
static wk__link *clone_links(const wk__link *seg, uint32_t lo, uint32_t hi, uint32_t k)
{
    if (!seg)
        return NULL;
    size_t from = lo * sizeof *seg, to = hi * sizeof *seg;
    wk__link *copy = wk__mem_zalloc_except(wk__segment_len(k) * sizeof *seg, from, to);
    if (copy)
        wk__mem_copy(copy + lo, seg + lo, to - from);
    return copy;
}

static int clone_into(wk_ecm *dst, const wk_ecm *src)
{
    dst->types = calloc(src->type_count + 1, sizeof *dst->types);
    if (!dst->types)
        return WK_NOMEM;
    for (wk_type t = 1; t <= src->type_count; t++) {
        dst->types[t] = src->types[t];
        dst->types[t].desc.name = strdup(src->types[t].desc.name);
        const wk__sparse *sparse = src->types[t].sparse;
        dst->types[t].sparse = sparse ? wk__sparse_clone(src, t, sparse) : NULL;
        dst->types[t].values = dup_bytes(src->types[t].values, src->table_cap * sizeof(uint8_t *));
        dst->type_count = t;
        if (!dst->types[t].desc.name || (sparse && !dst->types[t].sparse) || !dst->types[t].values)
            return WK_NOMEM;
    }
    dst->tables = calloc(src->table_cap, sizeof *dst->tables);
    dst->table_index = dup_bytes(src->table_index, src->table_index_cap * sizeof *src->table_index);
    if (!dst->tables || !dst->table_index)
        return WK_NOMEM;
    dst->table_cap = src->table_cap;
    dst->table_index_cap = src->table_index_cap;
    for (uint32_t i = 0; i < src->table_count; i++) {
        if (!(dst->tables[i] = clone_table(src, src->tables[i])))
            return WK_NOMEM;
        dst->table_count = i + 1;
        wk__table_publish(dst, dst->tables[i]);
    }
    if (wk__records_reserve(dst))
        return WK_NOMEM;
    for (uint32_t k = 0; k < WK__SEGMENTS; k++) {
        uint32_t lo = src->used_lo[k], hi = src->used_hi[k];
        if (!hi)
            continue;
        uint32_t first = (1u << k) + lo, n = hi - lo;
        if ((uint64_t)first + n > dst->slot_limit)
            return WK_NOMEM; /* this reservation was cut below the slots used */
        wk__mem_copy(&dst->records[first], &src->records[first], n * sizeof(wk__record));
        dst->link_segments[k] = clone_links(src->link_segments[k], lo, hi, k);
        if (src->link_segments[k] && !dst->link_segments[k])
            return WK_NOMEM;
        dst->used_lo[k] = lo;
        dst->used_hi[k] = hi;
    }
    dst->links_used = src->links_used;
    dst->next_index = src->next_index;
    dst->min_index = src->min_index;
    dst->alive = src->alive;
    bool ok = DUP_VEC(dst->free_slots, src->free_slots) && DUP_VEC(dst->created, src->created) &&
              DUP_VEC(dst->touched, src->touched) && DUP_VEC(dst->marked, src->marked) &&
              DUP_VEC(dst->destroyed, src->destroyed) &&
              DUP_VEC(dst->removed_components, src->removed_components) &&
              DUP_VEC(dst->sparse_types, src->sparse_types);
    return ok ? WK_OK : WK_NOMEM;
}

wk_ecm *wk_ecm_clone(const wk_ecm *src)
{
    if (src->iter_depth) {
        wk__ecm_fail(src, WK_BUSY, "cannot clone while an iterator is open");
        return NULL;
    }
    wk_ecm *dst = calloc(1, sizeof *dst);
    if (dst)
        dst->layout = wk__layout_start();
    if (!dst || clone_into(dst, src)) {
        wk_ecm_free(dst);
        wk__ecm_fail(src, WK_NOMEM, "out of memory cloning");
        return NULL;
    }
    return dst;
}

static bool differ(wk_status *why, const char *fmt, unsigned long long e, const char *detail)
{
    if (why)
        wk_fail(why, WK_MISMATCH, fmt, e, detail);
    return false;
}

/* True when b's entity e (record rb) has a's component of type t (record
 * ra) with an equal value. */
static bool same_value(const wk_ecm *a, const wk__record *ra, const wk_ecm *b, const wk__record *rb, wk_entity e,
                       wk_type t, const wk_type *to_b, wk_status *why)
{
    void *va, *vb;
    uint8_t *change;
    const char *name = a->types[t].desc.name;
    wk__component_at(a, ra, e, t, &va, &change);
    if (!to_b[t] || !wk__component_at(b, rb, e, to_b[t], &vb, &change))
        return differ(why, "entity %llu: %s is missing from the second", e, name);
    if (!wk__value_equal(a, t, va, vb))
        return differ(why, "entity %llu: %s values differ", e, name);
    return true;
}

static bool compare(const wk_ecm *a, const wk_ecm *b, const wk_type *to_b, wk_status *why)
{
    if (a->alive != b->alive) {
        if (why)
            wk_fail(why, WK_MISMATCH, "%zu entities against %zu", a->alive, b->alive);
        return false;
    }
    for (uint32_t i = 0; i < a->table_count; i++) {
        const wk__table *ta = a->tables[i];
        for (uint32_t row = 0; row < ta->count; row++) {
            wk_entity e = ta->entities[row];
            const wk__record *rb = wk__record_of(b, e);
            if (!rb)
                return differ(why, "entity %llu is missing from the second%s", e, "");
            if (wk_ecm_parent(a, e) != wk_ecm_parent(b, e))
                return differ(why, "entity %llu has different parents%s", e, "");
            const wk__table *tb = b->tables[rb->table];
            size_t na = ta->type_count + wk__sparse_count_of(a, e);
            if (na != tb->type_count + wk__sparse_count_of(b, e))
                return differ(why, "entity %llu has different component types%s", e, "");
            const wk__record *ra = wk__record_of(a, e);
            for (uint32_t c = 0; c < ta->type_count; c++)
                if (!same_value(a, ra, b, rb, e, ta->types[c], to_b, why))
                    return false;
            for (size_t k = 0; k < a->sparse_types.count; k++)
                if (wk__sparse_pos(a, a->sparse_types.items[k], wk__index(e)) &&
                    !same_value(a, ra, b, rb, e, a->sparse_types.items[k], to_b, why))
                    return false;
        }
    }
    return true;
}

bool wk_ecm_equal(const wk_ecm *a, const wk_ecm *b, wk_status *why)
{
    /* Types match by name: map a's ids to b's once. */
    wk_type *to_b = malloc((a->type_count + 1) * sizeof *to_b);
    if (!to_b) {
        if (why)
            wk_fail(why, WK_NOMEM, "out of memory comparing");
        return false;
    }
    for (wk_type t = 1; t <= a->type_count; t++)
        to_b[t] = wk_ecm_type_by_name(b, a->types[t].desc.name);
    bool same = compare(a, b, to_b, why);
    free(to_b);
    return same;
}
