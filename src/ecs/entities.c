/* entities.c — entity ids: slot allocation with generations, the create
 * offset, adopting a given id, and freeing an entity's slot. */
#include "ecm_internal.h"

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

/* Counts slot index (>= 1, below ecm->slot_limit) in its segment's used
 * range; returns its record. */
static inline wk__record *slot_use(wk_ecm *ecm, uint32_t index)
{
    uint32_t k = wk__segment(index), offset = index - (1u << k);
    if (!ecm->used_hi[k] || offset < ecm->used_lo[k])
        ecm->used_lo[k] = offset;
    if (offset >= ecm->used_hi[k])
        ecm->used_hi[k] = offset + 1;
    return wk__slot(ecm, index);
}

int wk__slot_check(const wk_ecm *ecm, uint32_t index)
{
    if (index < ecm->slot_limit)
        return WK_OK;
    return wk__ecm_fail(ecm, WK_RANGE, "slot %u is past the %llu slots this process could reserve address space for",
                        index, (unsigned long long)ecm->slot_limit);
}

int wk__slot_use(wk_ecm *ecm, uint32_t index)
{
    int rc = wk__slot_check(ecm, index);
    if (rc == WK_OK)
        slot_use(ecm, index);
    return rc;
}

static bool slot_alive(const wk_ecm *ecm, uint32_t index)
{
    const wk__record *r = wk__slot_or_null(ecm, index);
    return r && (r->flags & WK__ALIVE);
}

/* Brings slot index, whose record is r, to life as entity (index, gen) in
 * a new row of table t. */
static inline __attribute__((always_inline)) int slot_enliven(wk_ecm *ecm, wk__record *r, uint32_t index, uint32_t gen, wk__table *t)
{
    wk_entity e = wk__id(index, gen);
    if (ecm->txn && wk__txn_note_create(ecm, e, r->gen))
        return WK_NOMEM;
    wk__step_lists_trim(ecm);
    if (WK__VEC_PUSH(ecm->created, e))
        goto fail_drop_note;
    int64_t row = wk__table_append(ecm, t, e);
    if (row < 0) {
        ecm->created.count--;
        goto fail_drop_note;
    }
    /* One 8-byte store; the fields' places are the ones wk__record_of reads. */
    uint64_t bits = (uint64_t)row | (uint64_t)t->id << 32 |
                    (uint64_t)(gen | (WK__ALIVE | WK__NEW) << WK__GEN_BITS) << 48;
    memcpy(r, &bits, sizeof bits);
    ecm->alive++;
    ecm->version++;
    return WK_OK;

fail_drop_note:
    if (ecm->txn)
        wk__txn_drop(ecm);
    return WK_NOMEM;
}

/* The record of the slot a new entity takes, with its index in *index: a
 * freed slot, popped off the list (*reused), or the next never-used one;
 * NULL (message set) when there is none. */
static inline __attribute__((always_inline)) wk__record *slot_take(wk_ecm *ecm, uint32_t *index, bool *reused)
{
    /* Reuse a freed slot first; it may have been adopted since it was freed,
     * or lie below a create offset set since, so check before taking it. */
    while (ecm->free_slots.count) {
        if (ecm->txn && wk__txn_note_pop(ecm)) {
            wk__ecm_fail(ecm, WK_NOMEM, "out of memory creating an entity");
            return NULL;
        }
        uint32_t i = ecm->free_slots.items[--ecm->free_slots.count];
        if (i >= ecm->min_index && !slot_alive(ecm, i)) {
            *index = i;
            *reused = true;
            return wk__slot(ecm, i);
        }
    }
    /* A never-used slot, past any adopted since. next_index is 32 bits, so
     * creating stops short of slot UINT32_MAX, which only an adopted id can
     * take. */
    uint64_t end = ecm->slot_limit < UINT32_MAX ? ecm->slot_limit : UINT32_MAX;
    uint32_t i = ecm->next_index;
    while (i < end && (wk__slot(ecm, i)->flags & WK__ALIVE))
        i++;
    ecm->next_index = i;
    if (i >= end) {
        wk__ecm_fail(ecm, WK_RANGE, "entity slots exhausted");
        return NULL;
    }
    wk__record *r = slot_use(ecm, i);
    *index = i;
    *reused = false;
    return r;
}

/* A new entity in a new row of table t, whose change states the caller
 * sets: the entity's record, with its id in *out, or NULL (message set).
 * Inlined into both callers: as a call, with slot_enliven, it cost a
 * fifth of create_with's instructions in saving and restoring registers. */
static inline __attribute__((always_inline)) wk__record *entity_new(wk_ecm *ecm, wk__table *t, wk_entity *out)
{
    uint32_t index;
    bool reused;
    wk__record *r = slot_take(ecm, &index, &reused);
    if (!r)
        return NULL;
    uint32_t gen = r->gen;
    if (slot_enliven(ecm, r, index, gen, t)) {
        if (reused)
            ecm->free_slots.count++;
        wk__ecm_fail(ecm, WK_NOMEM, "out of memory creating an entity");
        return NULL;
    }
    if (!reused)
        ecm->next_index++;
    *out = wk__id(index, gen);
    return r;
}

wk_entity wk_ecm_create(wk_ecm *ecm)
{
    wk_entity e;
    return entity_new(ecm, ecm->tables[0], &e) ? e : WK_NULL_ENTITY;
}

wk__table *wk__table_of(wk_ecm *ecm, const wk_type *types, size_t n, bool *sparse)
{
    wk__table *t = ecm->tables[0];
    for (size_t i = 0; i < n; i++) {
        if (types[i] == WK_NO_TYPE || types[i] > ecm->type_count) {
            wk__ecm_fail(ecm, WK_INVALID, "component type %u is not registered", types[i]);
            return NULL;
        }
        bool repeated = wk__column_index(t, types[i]) >= 0;
        for (size_t j = 0; ecm->types[types[i]].sparse && j < i; j++)
            repeated |= types[j] == types[i];
        if (repeated) {
            wk__ecm_fail(ecm, WK_INVALID, "component type %s is given twice", ecm->types[types[i]].desc.name);
            return NULL;
        }
        *sparse |= ecm->types[types[i]].sparse != NULL;
        if (!ecm->types[types[i]].sparse && !(t = wk__table_with(ecm, t, types[i]))) {
            wk__no_table(ecm, "out of memory creating an entity");
            return NULL;
        }
    }
    return t;
}

/* Creates through wk_ecm_create and sets, which copy values that live in
 * the ECM's own columns before moving anything. */
static wk_entity create_then_set(wk_ecm *ecm, const wk_type *types, const void *const *values, size_t n)
{
    wk__savepoint sp = ecm->txn ? wk__txn_savepoint(ecm) : (wk__savepoint){0};
    wk_entity e = wk_ecm_create(ecm);
    for (size_t k = 0; e && k < n; k++)
        if (wk_ecm_set(ecm, e, types[k], values ? values[k] : NULL) < 0) {
            if (ecm->txn)
                wk__txn_undo_to(ecm, &sp);
            else
                wk__destroy_now(ecm, e, false);
            return WK_NULL_ENTITY;
        }
    return e;
}

/* wk__table_of, through ecm->last_kind when the types are the ones it holds. */
static wk__table *kind_table(wk_ecm *ecm, const wk_type *types, size_t n, bool *sparse)
{
    if (ecm->last_kind.table && n == ecm->last_kind.n && memcmp(types, ecm->last_kind.types, n * sizeof *types) == 0)
        return ecm->last_kind.table;
    wk__table *t = wk__table_of(ecm, types, n, sparse);
    if (t && !*sparse && n <= WK__LAST_KIND_MAX) {
        ecm->last_kind.table = t;
        ecm->last_kind.n = (uint32_t)n;
        memcpy(ecm->last_kind.types, types, n * sizeof *types);
    }
    return t;
}

/* Sets row `row` of t, just added for a new entity, to hold the n given
 * components: change states set, plain values copied, values of types
 * with a copy hook zeroed, for the caller to copy. first_row: t was empty
 * before. */
static inline __attribute__((always_inline)) void row_fill(wk_ecm *ecm, wk__table *t, bool first_row, uint32_t row,
                                                           const wk_type *types, const void *const *values, size_t n)
{
    /* A table holds rows only of types in use, so its first row marks them. */
    for (uint32_t c = 0; first_row && c < t->type_count; c++)
        ecm->types[t->types[c]].in_use = true;
    for (size_t i = 0; i < n; i++) {
        wk__column *col = &t->columns[t->column_of[types[i]]];
        const void *value = values ? values[i] : NULL;
        col->change[row] = WK_ONE_TIME_CHANGE;
        if (!col->size)
            continue;
        uint8_t *cell = col->data + (size_t)row * col->size;
        if (value && !(t->copies && ecm->types[types[i]].desc.hooks.copy))
            wk__copy_value(cell, value, col->size);
        else
            memset(cell, 0, col->size);
    }
}

/* A new entity in a new row of t holding the n given components (see
 * row_fill), its id in *out: the row's record, or NULL (message set). */
static inline __attribute__((always_inline)) const wk__record *
entity_new_with(wk_ecm *ecm, wk__table *t, const wk_type *types, const void *const *values, size_t n, wk_entity *out)
{
    bool first_row = t->count == 0;
    const wk__record *r = entity_new(ecm, t, out);
    if (r)
        row_fill(ecm, t, first_row, r->row, types, values, n);
    return r;
}

/* create_with into a table with a copy hook: hooked values are copied once
 * the row holds zeroes, which the destroy hooks accept, so that a failed
 * copy can undo the create. */
static wk_entity create_hooked(wk_ecm *ecm, wk__table *t, const wk_type *types, const void *const *values, size_t n)
{
    wk__savepoint sp = ecm->txn ? wk__txn_savepoint(ecm) : (wk__savepoint){0};
    wk_entity e;
    const wk__record *r = entity_new_with(ecm, t, types, values, n, &e);
    if (!r)
        return WK_NULL_ENTITY;
    for (size_t i = 0; values && i < n; i++) {
        int32_t c = wk__column_index(t, types[i]);
        if (values[i] && ecm->types[types[i]].desc.hooks.copy &&
            wk__value_copy(ecm, types[i], wk__cell(t, c, r->row), values[i])) {
            memset(wk__cell(t, c, r->row), 0, t->columns[c].size);
            if (ecm->txn) {
                wk__txn_undo_to(ecm, &sp);
            } else {
                wk__entity_free(ecm, e);
                ecm->created.count--;
            }
            wk__ecm_fail(ecm, WK_NOMEM, "out of memory copying %s", ecm->types[types[i]].desc.name);
            return WK_NULL_ENTITY;
        }
    }
    return e;
}

wk_entity wk_ecm_create_with(wk_ecm *ecm, const wk_type *types, const void *const *values, size_t n)
{
    if (ecm->iter_depth && n) {
        wk__ecm_fail(ecm, WK_BUSY, "cannot create an entity with components while an iterator is open");
        return WK_NULL_ENTITY;
    }
    bool sparse = false;
    wk__table *t = kind_table(ecm, types, n, &sparse);
    if (!t)
        return WK_NULL_ENTITY;
    if (sparse)
        return create_then_set(ecm, types, values, n);
    /* A value inside the table would move when the new row grows it. */
    for (size_t i = 0; values && t->count == t->cap && i < n; i++)
        if (values[i] && wk__table_holds(t, values[i]))
            return create_then_set(ecm, types, values, n);
    if (t->copies)
        return create_hooked(ecm, t, types, values, n);
    wk_entity e;
    return entity_new_with(ecm, t, types, values, n, &e) ? e : WK_NULL_ENTITY;
}

int wk_ecm_set_create_offset(wk_ecm *ecm, uint64_t offset)
{
    if (offset == 0 || offset >= UINT32_MAX)
        return wk__ecm_fail(ecm, WK_RANGE, "entity create offset %llu is outside [1, 2^32)",
                            (unsigned long long)offset);
    ecm->min_index = (uint32_t)offset;
    ecm->next_index = (uint32_t)offset;
    ecm->version++;
    return WK_OK;
}

bool wk_ecm_exists(const wk_ecm *ecm, wk_entity e)
{
    return wk__record_of(ecm, e) != NULL;
}

size_t wk_ecm_count(const wk_ecm *ecm)
{
    return ecm->alive;
}

int wk__entity_adopt_with(wk_ecm *ecm, wk_entity e, wk__table *t, const wk_type *types, const void *const *values,
                          size_t n)
{
    uint32_t index = wk__index(e);
    if (index == 0 || wk__gen(e) > WK__GEN_MAX)
        return wk__ecm_fail(ecm, WK_INVALID, "entity id %llu has slot 0 or a generation past %u", (unsigned long long)e,
                            WK__GEN_MAX);
    if (slot_alive(ecm, index))
        return wk__ecm_fail(ecm, WK_EXISTS, "entity %llu: its slot holds entity %llu", (unsigned long long)e,
                            (unsigned long long)wk__id(index, wk__slot(ecm, index)->gen));
    int rc = wk__slot_use(ecm, index);
    if (rc)
        return rc;
    bool first_row = t->count == 0;
    wk__record *r = wk__slot(ecm, index);
    if (slot_enliven(ecm, r, index, wk__gen(e), t))
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory adopting entity %llu", (unsigned long long)e);
    row_fill(ecm, t, first_row, r->row, types, values, n);
    return WK_OK;
}

int wk__entity_free(wk_ecm *ecm, wk_entity e)
{
    return wk__entity_free_at(ecm, wk__record_of(ecm, e), e);
}

int wk__entity_free_at(wk_ecm *ecm, wk__record *r, wk_entity e)
{
    uint32_t index = wk__index(e);
    wk__table *t = ecm->tables[r->table];
    if (ecm->sparse_types.count && wk__sparse_drop_entity(ecm, e))
        return WK_NOMEM;
    if (!ecm->txn)
        wk__table_delete_row(ecm, t, r->row);
    else if (wk__txn_note_destroy(ecm, e, r))
        return WK_NOMEM;
    else
        wk__table_remove_row(ecm, t, r->row); /* the values moved to the log */
    wk__unlink(ecm, index);
    bool retired = r->gen == WK__GEN_MAX;
    *r = (wk__record){.gen = retired ? r->gen : r->gen + 1};
    ecm->created_live = ecm->touched_live = false;
    ecm->alive--;
    ecm->version++;
    /* A slot that cannot go back on the free list is simply never reused. */
    if (!retired)
        (void)WK__VEC_PUSH(ecm->free_slots, index);
    return WK_OK;
}

