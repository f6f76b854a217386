/* txn.c — atomic transactions: an undo log of the ECM's primitive mutations.
 *
 * While a transaction is open, each primitive mutation (an entity made live,
 * an entity freed, a row moved to the next table, a value overwritten, a
 * change state set, a parent changed, a free slot's generation raised)
 * first appends to the log what undoes it. Rollback walks the log
 * backwards, undoing each entry on exactly the state the mutation left, so
 * every row goes back to its own place: a freed row's slot is reopened by
 * moving its swap-remove filler back to the end, and a moved row returns to
 * the row it left. Tables therefore hold the same entities in the same order
 * as before, and the full-state serializer, which writes tables row by row
 * straight from column memory, writes the same bytes. (The alternative, a
 * serializer canonical in entity-id order, would have to sort and gather
 * every column on every snapshot; restoring rows costs nothing outside a
 * transaction and O(changes) inside one.)
 *
 * Values leave the world by moving: the bytes of a destroyed, removed or
 * overwritten value go into the log as they are, without copy or destroy
 * hooks, and go back the same way on rollback. Commit hands the values the
 * log holds to their destroy hooks. Rollback allocates nothing: a freed row's
 * table keeps the capacity it had, and everything else is restored in place,
 * so the log is reserved while recording, where running out of memory makes
 * the mutation fail without effect.
 *
 * The step's lists (created, touched, marked, destroyed, removed components)
 * only grow during a step, so they are restored by truncation, clearing the
 * flags the truncated entries set; scalars (create offset, next slot, slot
 * ranges, which types are in use) are saved at begin. The free-slot list is a
 * stack: pops below its height at begin save the popped slot, so rollback
 * rebuilds it exactly and the next entity created gets the id it would have
 * had without the transaction. */
#include "ecm_internal.h"

#include "base/mem.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The log's alignment: the largest a component type may ask for, so that a
 * value kept at an offset aligned for its type is aligned in memory. */
#define LOG_ALIGN 4096u
#define ENTRY_ALIGN 16u

enum op { OP_CREATE, OP_DESTROY, OP_ADD, OP_REMOVE, OP_SET, OP_CHANGE, OP_PARENT, OP_GEN, OP_SPARSE_ADD, OP_SPARSE_REMOVE };

/* One undo entry; its payload (values, children) follows at HDR bytes. */
typedef struct entry {
    wk_entity entity;
    uint8_t op;
    uint8_t change; /* OP_REMOVE, OP_SPARSE_REMOVE, OP_SET, OP_CHANGE: the change state before */
    wk_type type;   /* all but OP_CREATE, OP_DESTROY, OP_PARENT, OP_GEN */
    union {
        uint32_t gen; /* OP_CREATE, OP_GEN: the slot's generation before */
        struct {
            /* OP_ADD, OP_REMOVE: where the row was; OP_SPARSE_REMOVE: row
             * is the position in the set */
            uint32_t table, row;
        } from;
        struct {
            wk__record record;
            wk__link link;     /* parent and siblings; the children follow the values */
            uint32_t children;
        } destroy;
        wk__link parent; /* OP_PARENT: parent and siblings before */
    } u;
} entry;

#define HDR ((sizeof(entry) + ENTRY_ALIGN - 1) & ~(size_t)(ENTRY_ALIGN - 1))

struct wk__txn {
    uint8_t *log; /* LOG_ALIGN-aligned */
    size_t len, cap;
    WK__VEC(size_t) entries; /* offset of each entry in log */
    wk__savepoint begin;
    uint32_t next_index, min_index;
    uint32_t used_lo[WK__SEGMENTS], used_hi[WK__SEGMENTS];
    bool links_used;
    size_t alive;
    uint32_t type_count; /* types registered at begin */
    bool *in_use;        /* their in_use flags */
    size_t free_low;     /* the free-slot list's lowest height since begin */
    WK__VEC(uint32_t) free_saved; /* slots popped below the height at begin, in pop order */
};

static size_t align_up(size_t n, size_t align)
{
    return (n + align - 1) & ~(align - 1);
}

/* Where a value of size bytes goes after *off (aligned for its type); moves
 * *off past it. Record, undo and commit lay out a payload with the same calls. */
static size_t place(size_t *off, size_t size, size_t align)
{
    size_t at = align_up(*off, align ? align : 1);
    *off = at + size;
    return at;
}

static entry *entry_at(const wk__txn *x, size_t i)
{
    return (entry *)(x->log + x->entries.items[i]);
}

/* Where the next entry goes. */
static size_t next_at(const wk__txn *x)
{
    return align_up(x->len, ENTRY_ALIGN);
}

size_t wk__txn_fail_countdown;

/* True when fault injection says this allocation fails. */
static bool injected_failure(void)
{
    return wk__txn_fail_countdown && --wk__txn_fail_countdown == 0;
}

/* Appends an entry at offset at (next_at) whose payload ends at end, zeroed
 * but for op and entity; NULL when out of memory. */
static entry *push(wk_ecm *ecm, size_t at, size_t end, uint8_t op, wk_entity e)
{
    wk__txn *x = ecm->txn;
    if (injected_failure())
        return NULL;
    if (end > x->cap) {
        size_t cap = x->cap ? x->cap : LOG_ALIGN;
        while (cap < end)
            cap *= 2;
        uint8_t *log = wk__mem_resize(x->log, x->cap, cap, LOG_ALIGN);
        if (!log)
            return NULL;
        x->log = log;
        x->cap = cap;
    }
    if (WK__VEC_PUSH(x->entries, at))
        return NULL;
    x->len = end;
    entry *n = (entry *)(x->log + at);
    memset(n, 0, sizeof *n);
    n->op = op;
    n->entity = e;
    return n;
}

static const wk_type_desc *desc_of(const wk_ecm *ecm, wk_type type)
{
    return &ecm->types[type].desc;
}

/* ---- recording --------------------------------------------------------- */

int wk__txn_note_create(wk_ecm *ecm, wk_entity e, uint32_t old_gen)
{
    size_t at = next_at(ecm->txn);
    entry *n = push(ecm, at, at + HDR, OP_CREATE, e);
    if (!n)
        return WK_NOMEM;
    n->u.gen = old_gen;
    return WK_OK;
}

int wk__txn_note_destroy(wk_ecm *ecm, wk_entity e, const wk__record *r)
{
    const wk__table *t = ecm->tables[r->table];
    const wk__link *l = wk__link_of(ecm, wk__index(e));
    uint32_t children = 0;
    for (uint32_t c = l ? l->first_child : 0; c; c = wk__link_of(ecm, c)->next)
        children++;
    size_t at = next_at(ecm->txn), off = at + HDR + t->type_count;
    for (uint32_t c = 0; c < t->type_count; c++)
        place(&off, t->columns[c].size, t->columns[c].align);
    place(&off, children * sizeof(uint32_t), sizeof(uint32_t));
    entry *n = push(ecm, at, off, OP_DESTROY, e);
    if (!n)
        return WK_NOMEM;
    uint8_t *log = ecm->txn->log;
    n->u.destroy.record = *r;
    /* Scratch marks of wk_ecm_set_state must not come back with the entity. */
    n->u.destroy.record.flags &= ~(uint32_t)WK__DOOMED;
    if (l)
        n->u.destroy.link = *l;
    n->u.destroy.children = children;
    off = at + HDR;
    uint8_t *changes = log + off;
    off += t->type_count;
    for (uint32_t c = 0; c < t->type_count; c++) {
        const wk__column *col = &t->columns[c];
        changes[c] = col->change[r->row];
        size_t v = place(&off, col->size, col->align);
        if (col->size)
            memcpy(log + v, wk__cell(t, (int32_t)c, r->row), col->size);
    }
    uint32_t *kids = (uint32_t *)(log + place(&off, children * sizeof(uint32_t), sizeof(uint32_t)));
    for (uint32_t c = l ? l->first_child : 0, k = 0; c; c = wk__link_of(ecm, c)->next)
        kids[k++] = c;
    return WK_OK;
}

int wk__txn_note_move(wk_ecm *ecm, wk_entity e, const wk__record *r, wk_type type, bool adding, void **removed)
{
    const wk_type_desc *d = desc_of(ecm, type);
    const wk__sparse *s = ecm->types[type].sparse;
    size_t at = next_at(ecm->txn), off = at + HDR;
    size_t v = adding ? 0 : place(&off, d->size, d->align);
    uint8_t op = s ? (adding ? OP_SPARSE_ADD : OP_SPARSE_REMOVE) : (adding ? OP_ADD : OP_REMOVE);
    entry *n = push(ecm, at, off, op, e);
    if (!n)
        return WK_NOMEM;
    n->type = type;
    n->u.from.table = r->table;
    n->u.from.row = s && !adding ? wk__sparse_find(s, wk__index(e)) - 1 : r->row;
    if (!adding) {
        const wk__table *t = ecm->tables[r->table];
        n->change = s ? s->change[n->u.from.row] : t->columns[wk__column_index(t, type)].change[r->row];
        *removed = d->size ? ecm->txn->log + v : NULL;
    }
    return WK_OK;
}

int wk__txn_note_set(wk_ecm *ecm, wk_entity e, wk_type type, void *cell, uint8_t change)
{
    const wk_type_desc *d = desc_of(ecm, type);
    size_t at = next_at(ecm->txn), off = at + HDR;
    size_t v = place(&off, d->size, d->align);
    entry *n = push(ecm, at, off, OP_SET, e);
    if (!n)
        return WK_NOMEM;
    n->type = type;
    n->change = change;
    memcpy(ecm->txn->log + v, cell, d->size);
    return WK_OK;
}

int wk__txn_note_change(wk_ecm *ecm, wk_entity e, wk_type type, uint8_t change)
{
    size_t at = next_at(ecm->txn);
    entry *n = push(ecm, at, at + HDR, OP_CHANGE, e);
    if (!n)
        return WK_NOMEM;
    n->type = type;
    n->change = change;
    return WK_OK;
}

int wk__txn_note_parent(wk_ecm *ecm, wk_entity child, const wk__link *old)
{
    size_t at = next_at(ecm->txn);
    entry *n = push(ecm, at, at + HDR, OP_PARENT, child);
    if (!n)
        return WK_NOMEM;
    n->u.parent = *old;
    return WK_OK;
}

int wk__txn_note_gen(wk_ecm *ecm, uint32_t index, uint32_t old_gen)
{
    size_t at = next_at(ecm->txn);
    entry *n = push(ecm, at, at + HDR, OP_GEN, wk__id(index, 0));
    if (!n)
        return WK_NOMEM;
    n->u.gen = old_gen;
    return WK_OK;
}

int wk__txn_note_pop(wk_ecm *ecm)
{
    wk__txn *x = ecm->txn;
    if (ecm->free_slots.count != x->free_low)
        return WK_OK;
    if (injected_failure() || WK__VEC_PUSH(x->free_saved, ecm->free_slots.items[ecm->free_slots.count - 1]))
        return WK_NOMEM;
    x->free_low--;
    return WK_OK;
}

void wk__txn_drop(wk_ecm *ecm)
{
    wk__txn *x = ecm->txn;
    x->len = x->entries.items[--x->entries.count];
}

/* ---- undoing ----------------------------------------------------------- */

static void undo_create(wk_ecm *ecm, const entry *n, bool partial)
{
    uint32_t index = wk__index(n->entity);
    wk__record *r = wk__slot(ecm, index);
    wk__table *t = ecm->tables[r->table];
    assert(r->gen == wk__gen(n->entity) && r->row + 1 == t->count);
    wk__table_delete_row(ecm, t, r->row);
    *r = (wk__record){.gen = n->u.gen};
    ecm->alive--;
    /* A full rollback rebuilds the free list; a partial one gives the slot
     * back, or, short of memory, never reuses it. */
    if (partial)
        (void)WK__VEC_PUSH(ecm->free_slots, index);
}

static void undo_destroy(wk_ecm *ecm, const entry *n, bool partial)
{
    uint8_t *log = ecm->txn->log;
    uint32_t index = wk__index(n->entity);
    wk__record rec = n->u.destroy.record;
    wk__table *t = ecm->tables[rec.table];
    assert(t->count < t->cap);
    wk__table_reopen_row(ecm, t, rec.row);
    t->entities[rec.row] = n->entity;
    size_t off = (size_t)((const uint8_t *)n - log) + HDR;
    const uint8_t *changes = log + off;
    off += t->type_count;
    for (uint32_t c = 0; c < t->type_count; c++) {
        wk__column *col = &t->columns[c];
        col->change[rec.row] = changes[c];
        size_t v = place(&off, col->size, col->align);
        if (col->size)
            memcpy(wk__cell(t, (int32_t)c, rec.row), log + v, col->size);
    }
    *wk__slot(ecm, index) = rec;
    ecm->alive++;
    const wk__link *l = &n->u.destroy.link;
    if (l->parent)
        wk__link_insert(ecm, index, l->parent, l->prev, l->next);
    const uint32_t *kids = (const uint32_t *)(log + place(&off, 0, sizeof(uint32_t)));
    for (uint32_t k = 0; k < n->u.destroy.children; k++)
        wk__link_insert(ecm, kids[k], index, k ? kids[k - 1] : 0, 0);
    if (partial && ecm->free_slots.count > ecm->txn->free_low &&
        ecm->free_slots.items[ecm->free_slots.count - 1] == index)
        ecm->free_slots.count--;
}

static void undo_move(wk_ecm *ecm, const entry *n)
{
    uint8_t *log = ecm->txn->log;
    wk__record *r = wk__slot(ecm, wk__index(n->entity));
    wk__table *to = ecm->tables[r->table], *from = ecm->tables[n->u.from.table];
    uint32_t last = r->row, row = n->u.from.row;
    assert(last + 1 == to->count && from->count < from->cap);
    wk__table_reopen_row(ecm, from, row);
    for (uint32_t c = 0; c < from->type_count; c++) {
        wk__column *col = &from->columns[c];
        int32_t j = wk__column_index(to, from->types[c]);
        void *cell = wk__cell(from, (int32_t)c, row);
        if (j >= 0) {
            col->change[row] = to->columns[j].change[last];
            if (cell)
                memcpy(cell, wk__cell(to, j, last), col->size);
            continue;
        }
        /* The removed type: its value comes back from the log. */
        size_t off = (size_t)((const uint8_t *)n - log) + HDR;
        size_t v = place(&off, col->size, col->align);
        col->change[row] = n->change;
        if (cell)
            memcpy(cell, log + v, col->size);
    }
    if (n->op == OP_ADD)
        wk__table_destroy_value(ecm, n->type, wk__cell(to, wk__column_index(to, n->type), last));
    from->entities[row] = n->entity;
    to->count--;
    r->table = from->id;
    r->row = row;
}

/* Where an entry's value sits in the log. */
static uint8_t *logged_value(const wk_ecm *ecm, const entry *n)
{
    const wk_type_desc *d = desc_of(ecm, n->type);
    size_t off = (size_t)((const uint8_t *)n - ecm->txn->log) + HDR;
    return ecm->txn->log + place(&off, d->size, d->align);
}

static void undo_set(wk_ecm *ecm, const entry *n)
{
    const wk__record *r = wk__slot(ecm, wk__index(n->entity));
    void *cell;
    uint8_t *change;
    wk__component_at(ecm, r, n->entity, n->type, &cell, &change);
    *change = n->change;
    if (n->op == OP_CHANGE)
        return;
    wk__table_destroy_value(ecm, n->type, cell);
    memcpy(cell, logged_value(ecm, n), desc_of(ecm, n->type)->size);
}

static void undo_sparse(wk_ecm *ecm, const entry *n)
{
    wk__sparse *s = ecm->types[n->type].sparse;
    if (n->op == OP_SPARSE_ADD) {
        assert(s->count && s->entities[s->count - 1] == n->entity);
        wk__sparse_remove(ecm, n->type, n->entity, NULL);
    } else {
        wk__sparse_reopen(s, n->u.from.row, n->entity, logged_value(ecm, n), n->change);
    }
}

static void undo_parent(wk_ecm *ecm, const entry *n)
{
    uint32_t index = wk__index(n->entity);
    const wk__link *old = &n->u.parent;
    wk__link_detach(ecm, index);
    if (old->parent)
        wk__link_insert(ecm, index, old->parent, old->prev, old->next);
}

static void undo(wk_ecm *ecm, const entry *n, bool partial)
{
    switch (n->op) {
    case OP_CREATE:
        undo_create(ecm, n, partial);
        break;
    case OP_DESTROY:
        undo_destroy(ecm, n, partial);
        break;
    case OP_ADD:
    case OP_REMOVE:
        undo_move(ecm, n);
        break;
    case OP_SET:
    case OP_CHANGE:
        undo_set(ecm, n);
        break;
    case OP_SPARSE_ADD:
    case OP_SPARSE_REMOVE:
        undo_sparse(ecm, n);
        break;
    case OP_PARENT:
        undo_parent(ecm, n);
        break;
    case OP_GEN:
        wk__slot(ecm, wk__index(n->entity))->gen = n->u.gen;
        break;
    }
}

/* Truncates a step list to count, clearing the flag its dropped entries set
 * (each entity is listed once, when the flag was set). */
static void truncate_list(wk_ecm *ecm, wk__entity_vec *list, size_t count, uint32_t flag)
{
    for (size_t i = count; flag && i < list->count; i++) {
        wk__record *r = wk__record_of(ecm, list->items[i]);
        if (r)
            r->flags &= ~flag;
    }
    if (count < list->count)
        list->count = count;
}

static void rewind_to(wk_ecm *ecm, const wk__savepoint *sp, bool partial)
{
    wk__txn *x = ecm->txn;
    while (x->entries.count > sp->entries) {
        undo(ecm, entry_at(x, x->entries.count - 1), partial);
        wk__txn_drop(ecm);
    }
    truncate_list(ecm, &ecm->touched, sp->touched, WK__TOUCHED);
    truncate_list(ecm, &ecm->marked, sp->marked, WK__MARKED);
    truncate_list(ecm, &ecm->created, sp->created, 0);
    truncate_list(ecm, &ecm->destroyed, sp->destroyed, 0);
    if (sp->removed_components < ecm->removed_components.count)
        ecm->removed_components.count = sp->removed_components;
}

wk__savepoint wk__txn_savepoint(const wk_ecm *ecm)
{
    return (wk__savepoint){
        .entries = ecm->txn->entries.count,
        .created = ecm->created.count,
        .touched = ecm->touched.count,
        .marked = ecm->marked.count,
        .destroyed = ecm->destroyed.count,
        .removed_components = ecm->removed_components.count,
    };
}

void wk__txn_undo_to(wk_ecm *ecm, const wk__savepoint *sp)
{
    rewind_to(ecm, sp, true);
}

/* ---- begin, commit, rollback ------------------------------------------- */

/* Hands the values the log holds to their destroy hooks. */
static void release_values(wk_ecm *ecm)
{
    wk__txn *x = ecm->txn;
    for (size_t i = 0; i < x->entries.count; i++) {
        const entry *n = entry_at(x, i);
        size_t off = x->entries.items[i] + HDR;
        if (n->op == OP_REMOVE || n->op == OP_SPARSE_REMOVE || n->op == OP_SET) {
            const wk_type_desc *d = desc_of(ecm, n->type);
            wk__table_destroy_value(ecm, n->type, x->log + place(&off, d->size, d->align));
        } else if (n->op == OP_DESTROY) {
            const wk__table *t = ecm->tables[n->u.destroy.record.table];
            off += t->type_count;
            for (uint32_t c = 0; c < t->type_count; c++) {
                size_t v = place(&off, t->columns[c].size, t->columns[c].align);
                if (t->columns[c].size)
                    wk__table_destroy_value(ecm, t->types[c], x->log + v);
            }
        }
    }
}

static void txn_free(wk_ecm *ecm)
{
    wk__txn *x = ecm->txn;
    wk__mem_free(x->log, x->cap);
    WK__VEC_FREE(x->entries);
    free(x->in_use);
    WK__VEC_FREE(x->free_saved);
    free(x);
    ecm->txn = NULL;
}

void wk__txn_free(wk_ecm *ecm)
{
    if (!ecm->txn)
        return;
    release_values(ecm);
    txn_free(ecm);
}

static int check_open(wk_ecm *ecm, const char *what)
{
    if (!ecm->txn)
        return wk__ecm_fail(ecm, WK_INVALID, "cannot %s: no transaction is open", what);
    if (ecm->iter_depth)
        return wk__ecm_fail(ecm, WK_BUSY, "cannot %s a transaction while an iterator is open", what);
    return WK_OK;
}

int wk_ecm_txn_begin(wk_ecm *ecm)
{
    if (ecm->txn)
        return wk__ecm_fail(ecm, WK_BUSY, "a transaction is open already; they do not nest");
    if (ecm->iter_depth)
        return wk__ecm_fail(ecm, WK_BUSY, "cannot begin a transaction while an iterator is open");
    wk__step_lists_trim(ecm);
    wk__txn *x = calloc(1, sizeof *x);
    bool *in_use = calloc(ecm->type_count + 1, sizeof *in_use);
    if (!x || !in_use) {
        free(x);
        free(in_use);
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory beginning a transaction");
    }
    for (wk_type t = 1; t <= ecm->type_count; t++)
        in_use[t] = ecm->types[t].in_use;
    x->in_use = in_use;
    x->type_count = ecm->type_count;
    x->next_index = ecm->next_index;
    x->min_index = ecm->min_index;
    memcpy(x->used_lo, ecm->used_lo, sizeof x->used_lo);
    memcpy(x->used_hi, ecm->used_hi, sizeof x->used_hi);
    x->links_used = ecm->links_used;
    x->alive = ecm->alive;
    x->free_low = ecm->free_slots.count;
    ecm->txn = x;
    x->begin = wk__txn_savepoint(ecm);
    return WK_OK;
}

int wk_ecm_txn_commit(wk_ecm *ecm)
{
    int rc = check_open(ecm, "commit");
    if (rc)
        return rc;
    wk__txn_free(ecm);
    return WK_OK;
}

int wk_ecm_txn_rollback(wk_ecm *ecm)
{
    int rc = check_open(ecm, "roll back");
    if (rc)
        return rc;
    wk__txn *x = ecm->txn;
    rewind_to(ecm, &x->begin, false);
    assert(ecm->alive == x->alive);
    /* The free list below free_low was never touched; above it, the saved
     * slots go back in the order they were popped from, and the list's
     * capacity is still what it was at begin. */
    ecm->free_slots.count = x->free_low;
    for (size_t i = x->free_saved.count; i-- > 0;)
        ecm->free_slots.items[ecm->free_slots.count++] = x->free_saved.items[i];
    ecm->next_index = x->next_index;
    ecm->min_index = x->min_index;
    memcpy(ecm->used_lo, x->used_lo, sizeof x->used_lo);
    memcpy(ecm->used_hi, x->used_hi, sizeof x->used_hi);
    ecm->links_used = x->links_used;
    /* Types registered since begin stay registered (types are schema, not
     * state), but none of their components exists any more. */
    for (wk_type t = 1; t <= ecm->type_count; t++)
        ecm->types[t].in_use = t <= x->type_count && x->in_use[t];
    /* Forward, not back to its value at begin: whatever was derived from the
     * transaction's states must not pass for current. */
    ecm->version++;
    txn_free(ecm);
    return WK_OK;
}

bool wk_ecm_txn_open(const wk_ecm *ecm)
{
    return ecm->txn != NULL;
}
