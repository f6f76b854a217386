/* diff.c — what differs between two ECMs, entity by entity (wk_ecm_diff),
 * reading both in memory order.
 *
 * Existence first: the record arrays of both, slot by slot, side by side. An
 * entity alive in one only, or whose slot holds another generation in the
 * other, is reported there. Then every table of a beside its partner in b,
 * the table with the same types by name. Where both tables hold the same
 * entity in the same row (every unchanged row between an ECM and its clone,
 * since a clone keeps table ids and row order) rows are compared a block of
 * 64 at a time, column by column: a plain column's block with one memcmp, a
 * hooked one value by value; parents by slot index. A row whose entity sits
 * elsewhere in b (moved by a removal, or with another set of types) is found
 * through b's record and compared on its own. Sparse types, outside the
 * tables, are compared entity by entity, by lookup. Scratch is sized by the
 * number of types, never by the number of entities. */
#include "ecm_internal.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK 64

typedef struct differ {
    const wk_ecm *a, *b;
    wk_ecm_diff_fn fn;
    void *ctx;
    wk_type *to_b;   /* a's type id -> b's id of the same name and size, or WK_NO_TYPE */
    wk_type *to_a;   /* and back */
    bool same_ids;   /* both map every type to itself: the fast path of clones */
    bool links;      /* either ECM has parent links, so parents can differ */
    bool sparse;     /* either ECM has a sparse type with members */
    WK__VEC(uint32_t) reused; /* slots alive in both with other generations, ascending */
    /* Scratch, one slot per type of a (added: of b). */
    wk_type *mapped;       /* a table's types in b's ids, ascending */
    int32_t *column_in_b;  /* a column of a's table -> the partner's column */
    uint64_t *masks;       /* per column: the rows of the block whose values differ */
    wk_type *changed, *removed, *added; /* the lists of one entry */
} differ;

/* ---- types ---------------------------------------------------------------- */

static bool same_shape(const wk_type_desc *x, const wk_type_desc *y)
{
    return x->size == y->size && x->align == y->align;
}

static int map_types(differ *d)
{
    const wk_ecm *a = d->a, *b = d->b;
    size_t na = a->type_count + 1, nb = b->type_count + 1;
    d->to_b = calloc(na, sizeof *d->to_b);
    d->to_a = calloc(nb, sizeof *d->to_a);
    d->mapped = calloc(na, sizeof *d->mapped);
    d->column_in_b = calloc(na, sizeof *d->column_in_b);
    d->masks = calloc(na, sizeof *d->masks);
    d->changed = calloc(na, sizeof *d->changed);
    d->removed = calloc(na, sizeof *d->removed);
    d->added = calloc(nb, sizeof *d->added);
    if (!d->to_b || !d->to_a || !d->mapped || !d->column_in_b || !d->masks || !d->changed || !d->removed ||
        !d->added)
        return WK_NOMEM;
    d->same_ids = a->type_count == b->type_count;
    for (wk_type t = 1; t <= a->type_count; t++) {
        const char *name = a->types[t].desc.name;
        /* Clones register the same names in the same order: try the same id first. */
        wk_type u = t <= b->type_count && strcmp(b->types[t].desc.name, name) == 0 ? t : wk_ecm_type_by_name(b, name);
        if (u && same_shape(&a->types[t].desc, &b->types[u].desc)) {
            d->to_b[t] = u;
            d->to_a[u] = t;
        }
        d->same_ids &= d->to_b[t] == t;
    }
    return WK_OK;
}

/* ---- existence and parents ------------------------------------------------ */

static int report_only(const differ *d, wk_entity e, wk_ecm_diff_kind kind)
{
    wk_ecm_diff_entry entry = {.entity = e, .kind = kind};
    return d->fn(&entry, d->ctx);
}

/* The slots used in segment k of an ECM: [*lo, *hi) widened to hold them. */
static void widen_to_used(const wk_ecm *ecm, uint32_t k, uint32_t *lo, uint32_t *hi)
{
    if (!ecm->used_hi[k])
        return;
    *lo = ecm->used_lo[k] < *lo ? ecm->used_lo[k] : *lo;
    *hi = ecm->used_hi[k] > *hi ? ecm->used_hi[k] : *hi;
}

/* Walks the slots used in either ECM, segment by segment. Records outside
 * the used ranges read as zeros, that is, dead. */
static int existence(differ *d)
{
    for (uint32_t k = 0; k < WK__SEGMENTS; k++) {
        uint32_t lo = UINT32_MAX, hi = 0;
        widen_to_used(d->a, k, &lo, &hi);
        widen_to_used(d->b, k, &lo, &hi);
        for (uint32_t off = lo; off < hi; off++) {
            uint32_t index = (1u << k) + off;
            const wk__record *ra = wk__slot_or_null(d->a, index), *rb = wk__slot_or_null(d->b, index);
            bool in_a = ra && (ra->flags & WK__ALIVE), in_b = rb && (rb->flags & WK__ALIVE);
            if (in_a && in_b && ra->gen == rb->gen)
                continue;
            int rc = in_a && in_b ? WK__VEC_PUSH(d->reused, index) : WK_OK;
            if (rc == WK_OK && in_a)
                rc = report_only(d, wk__id(index, ra->gen), WK_DIFF_ONLY_A);
            if (rc == WK_OK && in_b)
                rc = report_only(d, wk__id(index, rb->gen), WK_DIFF_ONLY_B);
            if (rc)
                return rc;
        }
    }
    return WK_OK;
}

static uint32_t parent_slot(const wk_ecm *ecm, uint32_t index)
{
    uint32_t k = wk__segment(index);
    const wk__link *seg = ecm->link_segments[k];
    return seg ? seg[index - (1u << k)].parent : 0;
}

static bool is_reused(const differ *d, uint32_t index)
{
    size_t lo = 0, hi = d->reused.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->reused.items[mid] < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->reused.count && d->reused.items[lo] == index;
}

/* The parent of an entity alive in both differs when the parent slots do, or
 * when the common parent slot holds two different entities. */
static bool parent_differs(const differ *d, wk_entity e)
{
    if (!d->links)
        return false;
    uint32_t pa = parent_slot(d->a, wk__index(e)), pb = parent_slot(d->b, wk__index(e));
    return pa != pb || (pa && d->reused.count && is_reused(d, pa));
}

/* ---- tables ----------------------------------------------------------------- */

static int report(const differ *d, wk_entity e, bool parent, size_t changed, size_t removed, size_t added)
{
    wk_ecm_diff_entry entry = {
        .entity = e,
        .kind = WK_DIFF_CHANGED,
        .parent_changed = parent,
        .changed = d->changed,
        .changed_count = changed,
        .removed = d->removed,
        .removed_count = removed,
        .added = d->added,
        .added_count = added,
    };
    return d->fn(&entry, d->ctx);
}

/* b's table with the same types as ta, by name, or NULL. */
static const wk__table *partner(const differ *d, const wk__table *ta)
{
    const wk_ecm *b = d->b;
    uint32_t n = ta->type_count;
    if (d->same_ids) {
        const wk__table *tb = ta->id < b->table_count ? b->tables[ta->id] : NULL;
        if (tb && tb->type_count == n && (n == 0 || memcmp(tb->types, ta->types, n * sizeof *ta->types) == 0))
            return tb;
        return wk__table_find(b, ta->types, n);
    }
    for (uint32_t c = 0; c < n; c++) {
        wk_type u = d->to_b[ta->types[c]];
        if (!u)
            return NULL;
        /* Insertion sort: tables hold a handful of types. */
        uint32_t i = c;
        for (; i > 0 && d->mapped[i - 1] > u; i--)
            d->mapped[i] = d->mapped[i - 1];
        d->mapped[i] = u;
    }
    return wk__table_find(b, d->mapped, n);
}

/* The value of e's component of type in ecm (NULL for a tag) through *value;
 * false when e lacks it or type is WK_NO_TYPE. */
static bool lookup(const wk_ecm *ecm, wk_entity e, wk_type type, void **value)
{
    uint8_t *change;
    return type && wk__component_at(ecm, wk__record_of(ecm, e), e, type, value, &change);
}

/* True when e is a member of a sparse set of ecm: a lookup in each map, far
 * cheaper than the comparisons of sparse_diff. */
static bool in_sparse_set(const wk_ecm *ecm, wk_entity e)
{
    for (size_t k = 0; k < ecm->sparse_types.count; k++)
        if (wk__sparse_find(ecm->types[ecm->sparse_types.items[k]].sparse, wk__index(e)))
            return true;
    return false;
}

static bool has_sparse_members(const wk_ecm *ecm)
{
    for (size_t k = 0; k < ecm->sparse_types.count; k++)
        if (ecm->types[ecm->sparse_types.items[k]].sparse->count)
            return true;
    return false;
}

/* Adds to the entry's lists how e's sparse components differ. */
static void sparse_diff(differ *d, wk_entity e, size_t *changed, size_t *removed, size_t *added)
{
    void *va, *vb;
    for (size_t k = 0; k < d->a->sparse_types.count; k++) {
        wk_type t = d->a->sparse_types.items[k];
        if (!lookup(d->a, e, t, &va))
            continue;
        if (!lookup(d->b, e, d->to_b[t], &vb))
            d->removed[(*removed)++] = t;
        else if (!wk__value_equal(d->a, t, va, vb))
            d->changed[(*changed)++] = t;
    }
    for (size_t k = 0; k < d->b->sparse_types.count; k++) {
        wk_type u = d->b->sparse_types.items[k];
        if (lookup(d->b, e, u, &vb) && !lookup(d->a, e, d->to_a[u], &va))
            d->added[(*added)++] = u;
    }
}

/* Compares the rows of the block starting at r0 that both tables hold for
 * the same entity (the bits of same), column by column. */
static int compare_block(differ *d, const wk__table *ta, const wk__table *tb, uint32_t r0, uint32_t n, uint64_t same)
{
    uint64_t full = n == BLOCK ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1, any = 0;
    for (uint32_t c = 0; c < ta->type_count; c++) {
        const wk__column *ca = &ta->columns[c], *cb = &tb->columns[d->column_in_b[c]];
        size_t size = ca->size;
        uint64_t diff = 0;
        if (size) {
            bool (*equal)(const void *, const void *) = d->a->types[ta->types[c]].desc.hooks.equal;
            const uint8_t *pa = ca->data + (size_t)r0 * size, *pb = cb->data + (size_t)r0 * size;
            if (equal || same != full || memcmp(pa, pb, n * size) != 0)
                for (uint64_t m = same; m; m &= m - 1) {
                    unsigned i = (unsigned)__builtin_ctzll(m);
                    const uint8_t *x = pa + i * size, *y = pb + i * size;
                    if (equal ? !equal(x, y) : memcmp(x, y, size) != 0)
                        diff |= (uint64_t)1 << i;
                }
        }
        d->masks[c] = diff;
        any |= diff;
    }
    uint64_t parents = 0;
    for (uint64_t m = d->links ? same : 0; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        if (parent_differs(d, ta->entities[r0 + i]))
            parents |= (uint64_t)1 << i;
    }
    for (uint64_t m = any | parents | (d->sparse ? same : 0); m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        size_t changed = 0, removed = 0, added = 0;
        for (uint32_t c = 0; c < ta->type_count; c++)
            if (d->masks[c] >> i & 1)
                d->changed[changed++] = ta->types[c];
        wk_entity e = ta->entities[r0 + i];
        if (d->sparse && (in_sparse_set(d->a, e) || in_sparse_set(d->b, e)))
            sparse_diff(d, e, &changed, &removed, &added);
        bool parent = parents >> i & 1;
        int rc = parent || changed || removed || added ? report(d, e, parent, changed, removed, added) : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

/* Compares a row of ta whose entity is not in the same row of the partner:
 * wherever it is in b, if it is there at all. */
static int compare_moved(differ *d, const wk__table *ta, uint32_t row)
{
    wk_entity e = ta->entities[row];
    const wk__record *rb = wk__record_of(d->b, e);
    if (!rb)
        return WK_OK; /* reported by existence() */
    const wk__table *tb = d->b->tables[rb->table];
    size_t changed = 0, removed = 0, added = 0;
    void *va, *vb;
    for (uint32_t c = 0; c < ta->type_count; c++) {
        wk_type t = ta->types[c];
        if (!lookup(d->b, e, d->to_b[t], &vb))
            d->removed[removed++] = t;
        else if (!wk__value_equal(d->a, t, wk__cell(ta, (int32_t)c, row), vb))
            d->changed[changed++] = t;
    }
    for (uint32_t c = 0; c < tb->type_count; c++)
        if (!lookup(d->a, e, d->to_a[tb->types[c]], &va))
            d->added[added++] = tb->types[c];
    if (d->sparse)
        sparse_diff(d, e, &changed, &removed, &added);
    bool parent = parent_differs(d, e);
    return parent || changed || removed || added ? report(d, e, parent, changed, removed, added) : WK_OK;
}

static int compare_table(differ *d, const wk__table *ta)
{
    const wk__table *tb = partner(d, ta);
    for (uint32_t c = 0; tb && c < ta->type_count; c++)
        d->column_in_b[c] = wk__column_index(tb, d->to_b[ta->types[c]]);
    for (uint32_t r0 = 0; r0 < ta->count; r0 += BLOCK) {
        uint32_t n = ta->count - r0 < BLOCK ? ta->count - r0 : BLOCK;
        uint64_t full = n == BLOCK ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1, same = 0;
        if (tb && r0 < tb->count) {
            uint32_t m = tb->count - r0 < n ? tb->count - r0 : n;
            if (m == n && memcmp(ta->entities + r0, tb->entities + r0, n * sizeof *ta->entities) == 0)
                same = full;
            else
                for (uint32_t i = 0; i < m; i++)
                    if (ta->entities[r0 + i] == tb->entities[r0 + i])
                        same |= (uint64_t)1 << i;
        }
        int rc = same ? compare_block(d, ta, tb, r0, n, same) : WK_OK;
        for (uint64_t m = full & ~same; rc == WK_OK && m; m &= m - 1)
            rc = compare_moved(d, ta, r0 + (uint32_t)__builtin_ctzll(m));
        if (rc)
            return rc;
    }
    return WK_OK;
}

/* ---- the whole -------------------------------------------------------------- */

int wk_ecm_diff(const wk_ecm *a, const wk_ecm *b, wk_ecm_diff_fn fn, void *ctx)
{
    if (a == b)
        return WK_OK;
    differ d = {.a = a,
                .b = b,
                .fn = fn,
                .ctx = ctx,
                .links = a->links_used || b->links_used,
                .sparse = has_sparse_members(a) || has_sparse_members(b)};
    int rc = map_types(&d);
    if (rc == WK_OK)
        rc = existence(&d);
    for (uint32_t i = 0; rc == WK_OK && i < a->table_count; i++)
        rc = compare_table(&d, a->tables[i]);
    void *scratch[] = {d.to_b, d.to_a, d.mapped, d.column_in_b, d.masks, d.changed, d.removed, d.added};
    for (size_t i = 0; i < sizeof scratch / sizeof *scratch; i++)
        free(scratch[i]);
    WK__VEC_FREE(d.reused);
    return rc;
}
