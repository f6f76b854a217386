/* clone.c — deep copies of an ECM and comparing two ECMs. A clone is made
 * table by table: plain columns are copied in one memcpy each, so cloning a
 * world costs about as much as copying its memory. */
#include "ecm_internal.h"

#include <stdlib.h>
#include <string.h>

static void *dup_bytes(const void *src, size_t n)
{
    void *dst = malloc(n ? n : 1);
    if (dst && n)
        memcpy(dst, src, n);
    return dst;
}

#define DUP_VEC(dst, src) \
    ((dst).items = dup_bytes((src).items, (src).count * sizeof *(src).items), \
     (dst).count = (dst).cap = (src).count, (dst).items != NULL)

static int clone_column(const wk_ecm *ecm, wk_type type, const wk__table *src, uint32_t c, wk__column *dst)
{
    const wk__column *s = &src->columns[c];
    *dst = (wk__column){.size = s->size, .align = s->align};
    uint32_t cap = src->cap ? src->cap : 1;
    dst->change = dup_bytes(s->change, src->count);
    if (!dst->change)
        return WK_NOMEM;
    if (!s->size)
        return WK_OK;
    size_t align = s->align < sizeof(void *) ? sizeof(void *) : s->align;
    if (align <= 16 ? !(dst->data = malloc((size_t)cap * s->size))
                    : posix_memalign((void **)&dst->data, align, (size_t)cap * s->size))
        return WK_NOMEM;
    const wk_type_hooks *h = &ecm->types[type].desc.hooks;
    if (!h->copy) {
        memcpy(dst->data, s->data, (size_t)src->count * s->size);
        return WK_OK;
    }
    for (uint32_t row = 0; row < src->count; row++)
        if (h->copy(dst->data + (size_t)row * s->size, s->data + (size_t)row * s->size)) {
            while (row-- > 0)
                wk__table_destroy_value(ecm, type, dst->data + (size_t)row * s->size);
            free(dst->data);
            dst->data = NULL;
            return WK_NOMEM;
        }
    return WK_OK;
}

static wk__table *clone_table(const wk_ecm *ecm, const wk__table *src)
{
    wk__table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    *t = (wk__table){.id = src->id,
                     .type_count = src->type_count,
                     .column_of_len = src->column_of_len,
                     .count = src->count,
                     .cap = src->count,
                     .edge_len = src->edge_len};
    t->types = dup_bytes(src->types, src->type_count * sizeof *t->types);
    t->column_of = dup_bytes(src->column_of, src->column_of_len * sizeof *t->column_of);
    t->entities = dup_bytes(src->entities, src->count * sizeof *t->entities);
    t->add_edge = dup_bytes(src->add_edge, src->edge_len * sizeof *t->add_edge);
    t->remove_edge = dup_bytes(src->remove_edge, src->edge_len * sizeof *t->remove_edge);
    t->columns = calloc(src->type_count ? src->type_count : 1, sizeof *t->columns);
    bool ok = t->types && t->column_of && t->entities && t->add_edge && t->remove_edge && t->columns;
    uint32_t c = 0;
    for (; ok && c < src->type_count; c++)
        ok = clone_column(ecm, src->types[c], src, c, &t->columns[c]) == WK_OK;
    if (!ok) {
        /* Only the columns cloned whole hold values to destroy. */
        t->count = 0;
        for (uint32_t i = 0; i + 1 < c; i++)
            for (uint32_t row = 0; row < src->count; row++)
                wk__table_destroy_value(ecm, t->types[i], wk__cell(t, (int32_t)i, row));
        wk__table_free(NULL, t);
        return NULL;
    }
    t->cap = src->count;
    return t;
}

static void *dup_page(const void *page, size_t size)
{
    return page ? dup_bytes(page, size) : NULL;
}

static int clone_into(wk_ecm *dst, const wk_ecm *src)
{
    dst->types = calloc(src->type_count + 1, sizeof *dst->types);
    if (!dst->types)
        return WK_NOMEM;
    for (wk_type t = 1; t <= src->type_count; t++) {
        dst->types[t] = src->types[t];
        dst->types[t].desc.name = strdup(src->types[t].desc.name);
        if (!dst->types[t].desc.name)
            return WK_NOMEM;
        dst->type_count = t;
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
    }
    dst->pages = calloc(src->page_count ? src->page_count : 1, sizeof *dst->pages);
    dst->link_pages = calloc(src->page_count ? src->page_count : 1, sizeof *dst->link_pages);
    if (!dst->pages || !dst->link_pages)
        return WK_NOMEM;
    dst->page_count = src->page_count;
    for (uint32_t p = 0; p < src->page_count; p++) {
        dst->pages[p] = dup_page(src->pages[p], WK__PAGE_SIZE * sizeof(wk__record));
        dst->link_pages[p] = dup_page(src->link_pages[p], WK__PAGE_SIZE * sizeof(wk__link));
        if ((src->pages[p] && !dst->pages[p]) || (src->link_pages[p] && !dst->link_pages[p]))
            return WK_NOMEM;
    }
    dst->next_index = src->next_index;
    dst->min_index = src->min_index;
    dst->alive = src->alive;
    bool ok = DUP_VEC(dst->free_slots, src->free_slots) && DUP_VEC(dst->created, src->created) &&
              DUP_VEC(dst->touched, src->touched) && DUP_VEC(dst->marked, src->marked) &&
              DUP_VEC(dst->destroyed, src->destroyed) &&
              DUP_VEC(dst->removed_components, src->removed_components);
    return ok ? WK_OK : WK_NOMEM;
}

wk_ecm *wk_ecm_clone(const wk_ecm *src)
{
    if (src->iter_depth) {
        wk__ecm_fail(src, WK_BUSY, "cannot clone while an iterator is open");
        return NULL;
    }
    wk_ecm *dst = calloc(1, sizeof *dst);
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

bool wk_ecm_equal(const wk_ecm *a, const wk_ecm *b, wk_status *why)
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
            if (ta->type_count != tb->type_count)
                return differ(why, "entity %llu has different component types%s", e, "");
            for (uint32_t c = 0; c < ta->type_count; c++) {
                const char *name = a->types[ta->types[c]].desc.name;
                wk_type type_b = wk_ecm_type_by_name(b, name);
                int32_t cb = type_b ? wk__column_index(tb, type_b) : -1;
                if (cb < 0)
                    return differ(why, "entity %llu: %s is missing from the second", e, name);
                if (!wk__value_equal(a, ta->types[c], wk__cell(ta, (int32_t)c, row), wk__cell(tb, cb, rb->row)))
                    return differ(why, "entity %llu: %s values differ", e, name);
            }
        }
    }
    return true;
}
