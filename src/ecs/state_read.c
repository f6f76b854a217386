/* state_read.c — applying a worldkit.ecs.State message to an ECM (SetState).
 *
 * Everything that can be wrong with a message is checked before the ECM is
 * touched: that it parses, that its types are registered here with the same
 * size, that every value decodes, that ids do not collide with live entities
 * the message does not remove, and that parents exist and make no cycle.
 * Only then are the
 * removals, the blocks and the parents applied, in that order, and last a
 * complete state's free slots taken. */
#include "ecm_internal.h"

#include <stdlib.h>
#include <string.h>

#include "worldkit/ecs_state.pb-c.h"

/* A slot of the message's entities: where in reader.ids its entity is,
 * plus 1; 0 for an empty cell. */
typedef struct slot_cell {
    uint32_t slot, at;
} slot_cell;

typedef struct reader {
    wk_ecm *ecm;
    Worldkit__Ecs__State *msg;
    wk_type *local; /* local type of each msg->types entry */
    wk_entity *ids; /* the message's entities, each once, as first listed */
    size_t id_count;
    /* ids by slot (a message holds one generation a slot). Dense: the
     * message's slots lie within the cells from base, each in its own cell,
     * as a world's slots mostly do, so that neighbours stay neighbours.
     * Otherwise an open-addressing table, by a hash of the slot. */
    slot_cell *cells;
    uint32_t cell_mask;
    bool dense;
    uint32_t base;       /* dense */
    unsigned cell_shift; /* not dense: 64 - log2 of the cells */
    wk_entity *parents;  /* parallel to ids: the parent each entity gets */
} reader;

static wk_type local_type(const reader *r, uint32_t id)
{
    for (size_t i = 0; i < r->msg->n_types; i++)
        if (r->msg->types[i]->has_id && r->msg->types[i]->id == id)
            return r->local[i];
    return WK_NO_TYPE;
}

/* The cell of slot index, one of the message's or about to be. */
static slot_cell *cell_for(const reader *r, uint32_t index)
{
    if (r->dense)
        return &r->cells[index - r->base];
    /* Fibonacci hashing (the product's top bits) scatters slots that share
     * their low bits, so no message can pile its slots into one run. */
    uint32_t i = (uint32_t)(((uint64_t)index * 0x9E3779B97F4A7C15ull) >> r->cell_shift);
    while (r->cells[i].at && r->cells[i].slot != index)
        i = (i + 1) & r->cell_mask;
    return &r->cells[i];
}

/* Where in ids the message's entity in slot index is, plus 1; 0 if none. */
static uint32_t slot_at(const reader *r, uint32_t index)
{
    if (r->dense && index - r->base > r->cell_mask)
        return 0;
    return cell_for(r, index)->at;
}

/* Where e is in ids, or -1. */
static ptrdiff_t position_of(const reader *r, wk_entity e)
{
    uint32_t at = slot_at(r, wk__index(e));
    return at && r->ids[at - 1] == e ? (ptrdiff_t)at - 1 : -1;
}

static bool in_message(const reader *r, wk_entity e)
{
    return position_of(r, e) >= 0;
}

/* True when an entity of the message lives in slot index. */
static bool slot_in_message(const reader *r, uint32_t index)
{
    return slot_at(r, index) != 0;
}

static bool doomed(const wk_ecm *ecm, wk_entity e)
{
    const wk__record *rec = wk__record_of(ecm, e);
    return rec && (rec->flags & WK__DOOMED);
}

static int check_types(reader *r)
{
    wk_ecm *ecm = r->ecm;
    for (size_t i = 0; i < r->msg->n_types; i++) {
        const Worldkit__Ecs__ComponentType *ct = r->msg->types[i];
        if (!ct->name || !ct->has_id)
            return wk__ecm_fail(ecm, WK_PARSE, "state: type entry %zu lacks a name or id", i);
        wk_type t = wk_ecm_type_by_name(ecm, ct->name);
        if (!t)
            return wk__ecm_fail(ecm, WK_NOT_FOUND, "state: component type %s is not registered here", ct->name);
        if (ct->has_size && ct->size != ecm->types[t].desc.size)
            return wk__ecm_fail(ecm, WK_MISMATCH, "state: component type %s has size %llu there, %zu here",
                                ct->name, (unsigned long long)ct->size, ecm->types[t].desc.size);
        r->local[i] = t;
    }
    return WK_OK;
}

static int check_column(const reader *r, const Worldkit__Ecs__Block *b, const Worldkit__Ecs__Column *col)
{
    wk_ecm *ecm = r->ecm;
    wk_type t = col->has_type ? local_type(r, col->type) : WK_NO_TYPE;
    if (!t)
        return wk__ecm_fail(ecm, WK_PARSE, "state: column of undeclared type %u", col->type);
    const wk_type_desc *d = &ecm->types[t].desc;
    if (d->size == 0)
        return WK_OK;
    if (!d->hooks.deserialize) {
        if (col->n_values || col->packed_values.len != b->n_ids * d->size)
            return wk__ecm_fail(ecm, WK_PARSE, "state: column %s holds %zu bytes for %zu values of %zu bytes",
                                d->name, col->packed_values.len, b->n_ids, d->size);
        return WK_OK;
    }
    if (col->n_values != b->n_ids)
        return wk__ecm_fail(ecm, WK_PARSE, "state: column %s holds %zu values for %zu entities", d->name,
                            col->n_values, b->n_ids);
    void *tmp = NULL;
    if (posix_memalign(&tmp, d->align < sizeof(void *) ? sizeof(void *) : d->align, d->size))
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory checking state");
    int rc = WK_OK;
    for (size_t i = 0; rc == WK_OK && i < col->n_values; i++) {
        if (d->hooks.deserialize(tmp, col->values[i].data, col->values[i].len))
            rc = wk__ecm_fail(ecm, WK_PARSE, "state: %s value of entity %llu does not decode", d->name,
                              (unsigned long long)b->ids[i]);
        else
            wk__table_destroy_value(ecm, t, tmp);
    }
    free(tmp);
    return rc;
}

static int check_block(const reader *r, const Worldkit__Ecs__Block *b)
{
    wk_ecm *ecm = r->ecm;
    if (b->n_parents && b->n_parents != b->n_ids)
        return wk__ecm_fail(ecm, WK_PARSE, "state: block has %zu parents for %zu entities", b->n_parents, b->n_ids);
    for (size_t i = 0; i < b->n_removed_types; i++)
        if (!local_type(r, b->removed_types[i]))
            return wk__ecm_fail(ecm, WK_PARSE, "state: removal of undeclared type %u", b->removed_types[i]);
    for (size_t c = 0; c < b->n_columns; c++) {
        int rc = check_column(r, b, b->columns[c]);
        if (rc)
            return rc;
        wk_type t = local_type(r, b->columns[c]->type);
        for (size_t k = 0; k < c; k++)
            if (local_type(r, b->columns[k]->type) == t)
                return wk__ecm_fail(ecm, WK_PARSE, "state: block has two columns of %s", ecm->types[t].desc.name);
    }
    for (size_t i = 0; i < b->n_ids; i++) {
        wk_entity e = b->ids[i];
        uint32_t index = wk__index(e);
        if (index == 0 || wk__gen(e) > WK__GEN_MAX)
            return wk__ecm_fail(ecm, WK_PARSE, "state: entity id %llu is not valid (slot 0, or generation past %u)",
                                (unsigned long long)e, WK__GEN_MAX);
        int rc = wk__slot_check(ecm, index);
        if (rc)
            return rc;
        const wk__record *slot = wk__slot(ecm, index);
        if ((slot->flags & WK__ALIVE) && slot->gen != wk__gen(e) && !(slot->flags & WK__DOOMED))
            return wk__ecm_fail(ecm, WK_EXISTS, "state: entity %llu collides with live entity %llu",
                                (unsigned long long)e, (unsigned long long)wk__id(index, slot->gen));
        wk_entity parent = b->n_parents ? b->parents[i] : WK_NULL_ENTITY;
        if (parent && !in_message(r, parent) && (!wk_ecm_exists(ecm, parent) || doomed(ecm, parent)))
            return wk__ecm_fail(ecm, WK_NOT_FOUND, "state: parent %llu of entity %llu exists nowhere",
                                (unsigned long long)parent, (unsigned long long)e);
    }
    return WK_OK;
}

/* Sizes the cells for the message's n entities, whose slots run from lo
 * to hi: dense when that span is within twice the cells a hash needs. */
static int cells_new(reader *r, size_t n, uint32_t lo, uint32_t hi)
{
    size_t cells = 16;
    r->cell_shift = 60;
    for (; cells < 2 * n; cells *= 2)
        r->cell_shift--;
    r->dense = n && (size_t)(hi - lo) < 2 * cells;
    while (r->dense && cells <= (size_t)(hi - lo))
        cells *= 2;
    r->base = lo;
    r->cell_mask = (uint32_t)(cells - 1);
    r->cells = calloc(cells, sizeof *r->cells);
    return r->cells ? WK_OK : wk__ecm_fail(r->ecm, WK_NOMEM, "out of memory reading state");
}

static int collect_ids(reader *r)
{
    size_t n = 0;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t b = 0; b < r->msg->n_blocks; b++)
        for (size_t i = 0; i < r->msg->blocks[b]->n_ids; i++, n++) {
            uint32_t index = wk__index(r->msg->blocks[b]->ids[i]);
            lo = index < lo ? index : lo;
            hi = index > hi ? index : hi;
        }
    if (n > (size_t)1 << 30) /* keeps the cells' count a 32-bit one */
        return wk__ecm_fail(r->ecm, WK_RANGE, "state: %zu entities in one message are more than 2^30", n);
    r->ids = malloc((n ? n : 1) * sizeof *r->ids);
    if (!r->ids)
        return wk__ecm_fail(r->ecm, WK_NOMEM, "out of memory reading state");
    int rc = cells_new(r, n, lo, hi);
    for (size_t b = 0; rc == WK_OK && b < r->msg->n_blocks; b++)
        for (size_t i = 0; rc == WK_OK && i < r->msg->blocks[b]->n_ids; i++) {
            wk_entity e = r->msg->blocks[b]->ids[i];
            slot_cell *c = cell_for(r, wk__index(e));
            if (!c->at) {
                *c = (slot_cell){wk__index(e), (uint32_t)++r->id_count};
                r->ids[r->id_count - 1] = e;
            } else if (r->ids[c->at - 1] != e) {
                rc = wk__ecm_fail(r->ecm, WK_PARSE, "state: two generations of slot %u", wk__index(e));
            }
        }
    return rc;
}

static bool is_complete(const reader *r)
{
    return r->msg->has_complete && r->msg->complete;
}

static void set_doomed(wk__record *rec, bool on)
{
    if (rec)
        rec->flags = on ? rec->flags | WK__DOOMED : rec->flags & ~(uint32_t)WK__DOOMED;
}

/* Flags (or unflags) the live entities the message removes: those it lists
 * as removed and, for a complete state, those it does not hold. */
static void flag_doomed(reader *r, bool on)
{
    wk_ecm *ecm = r->ecm;
    for (size_t i = 0; i < r->msg->n_removed; i++)
        set_doomed(wk__record_of(ecm, r->msg->removed[i]), on);
    if (!is_complete(r))
        return;
    for (uint32_t t = 0; t < ecm->table_count; t++)
        for (uint32_t row = 0; row < ecm->tables[t]->count; row++) {
            wk_entity e = ecm->tables[t]->entities[row];
            if (!in_message(r, e))
                set_doomed(wk__record_of(ecm, e), on);
        }
}

/* A complete state's free slots are slots its entities do not live in. */
static int check_free_slots(const reader *r)
{
    for (size_t i = 0; is_complete(r) && i < r->msg->n_free_slots; i++) {
        uint32_t index = wk__index(r->msg->free_slots[i]);
        if (index == 0 || slot_in_message(r, index) || wk__gen(r->msg->free_slots[i]) > WK__GEN_MAX)
            return wk__ecm_fail(r->ecm, WK_PARSE,
                                "state: free slot %u is slot 0, holds an entity of the state, or has a generation "
                                "past %u",
                                index, WK__GEN_MAX);
        int rc = wk__slot_check(r->ecm, index);
        if (rc)
            return rc;
    }
    return WK_OK;
}

/* The parent e has once the message is applied: the message's, else its
 * own unless the message removes that. */
static wk_entity parent_after(const reader *r, wk_entity e, ptrdiff_t key)
{
    if (key >= 0)
        return r->parents[key];
    wk_entity parent = wk_ecm_parent(r->ecm, e);
    return doomed(r->ecm, parent) ? WK_NULL_ENTITY : parent;
}

/* Refuses parents that would make a cycle. Only the message's entities can
 * close one (the ECM has none), so only they are marked: 1 while on the
 * chain being walked, 2 once their chain is known to end. */
static int check_cycles(reader *r)
{
    r->parents = calloc(r->id_count ? r->id_count : 1, sizeof *r->parents);
    uint8_t *mark = calloc(r->id_count ? r->id_count : 1, 1);
    int rc = r->parents && mark ? WK_OK : wk__ecm_fail(r->ecm, WK_NOMEM, "out of memory reading state");
    for (size_t b = 0; rc == WK_OK && b < r->msg->n_blocks; b++) {
        const Worldkit__Ecs__Block *blk = r->msg->blocks[b];
        for (size_t i = 0; i < blk->n_ids; i++)
            r->parents[position_of(r, blk->ids[i])] = blk->n_parents ? blk->parents[i] : WK_NULL_ENTITY;
    }
    for (size_t k = 0; rc == WK_OK && k < r->id_count; k++) {
        wk_entity e = r->ids[k];
        ptrdiff_t at = (ptrdiff_t)k;
        while (e && (at < 0 || !mark[at])) {
            if (at >= 0)
                mark[at] = 1;
            e = parent_after(r, e, at);
            at = e ? position_of(r, e) : -1;
        }
        if (e && mark[at] == 1)
            rc = wk__ecm_fail(r->ecm, WK_INVALID, "state: entity %llu would be its own ancestor",
                              (unsigned long long)e);
        for (e = r->ids[k], at = (ptrdiff_t)k; e && (at < 0 || mark[at] == 1);
             e = parent_after(r, e, at), at = e ? position_of(r, e) : -1)
            if (at >= 0)
                mark[at] = 2;
    }
    free(mark);
    return rc;
}

static int check(reader *r)
{
    int rc = check_types(r);
    if (rc == WK_OK)
        rc = collect_ids(r);
    if (rc == WK_OK)
        rc = check_free_slots(r);
    if (rc)
        return rc;
    flag_doomed(r, true);
    for (size_t b = 0; rc == WK_OK && b < r->msg->n_blocks; b++)
        rc = check_block(r, r->msg->blocks[b]);
    if (rc == WK_OK)
        rc = check_cycles(r);
    if (rc)
        flag_doomed(r, false);
    return rc;
}

/* Sets value i of col, of local type t, on entity i of block b. */
static int apply_column(reader *r, const Worldkit__Ecs__Block *b, const Worldkit__Ecs__Column *col, wk_type t,
                        size_t i)
{
    wk_ecm *ecm = r->ecm;
    const wk_type_desc *d = &ecm->types[t].desc;
    if (d->size == 0 || !d->hooks.deserialize) {
        const void *value = d->size ? col->packed_values.data + i * d->size : NULL;
        return wk__set_now(ecm, b->ids[i], t, value) < 0 ? WK_NOMEM : WK_OK;
    }
    void *tmp = NULL;
    if (posix_memalign(&tmp, d->align < sizeof(void *) ? sizeof(void *) : d->align, d->size))
        return WK_NOMEM;
    int rc = d->hooks.deserialize(tmp, col->values[i].data, col->values[i].len) ? WK_PARSE : WK_OK;
    if (rc == WK_OK) {
        rc = wk__set_now(ecm, b->ids[i], t, tmp) < 0 ? WK_NOMEM : WK_OK;
        wk__table_destroy_value(ecm, t, tmp);
    }
    free(tmp);
    return rc;
}

/* Whether a new entity's values of type t are copied into its row as
 * they are: a plain type of the tables. */
static bool plain_column(const wk_ecm *ecm, wk_type t)
{
    const wk__type_info *info = &ecm->types[t];
    return !info->sparse && !info->desc.hooks.copy && !info->desc.hooks.deserialize;
}

/* Writes value i of col, of type t with a hook, into the zeroed cell of a
 * new entity: decoded there, or copied through the copy hook. A failure,
 * which the check makes one of memory, leaves the cell zeroed again. */
static int fill_hooked(const reader *r, const Worldkit__Ecs__Column *col, size_t i, wk_type t, void *cell)
{
    const wk_type_desc *d = &r->ecm->types[t].desc;
    int rc = d->hooks.deserialize ? d->hooks.deserialize(cell, col->values[i].data, col->values[i].len)
                                  : wk__value_copy(r->ecm, t, cell, col->packed_values.data + i * d->size);
    if (rc)
        memset(cell, 0, d->size);
    return rc ? WK_NOMEM : WK_OK;
}

/* Makes entity i of block b, new here, in table t with the values of the
 * block's n columns of t's types (types[k] in column[k]). */
static int adopt(const reader *r, const Worldkit__Ecs__Block *b, size_t i, wk__table *t, const wk_type *types,
                 const size_t *column, const void **values, size_t n)
{
    wk_ecm *ecm = r->ecm;
    for (size_t k = 0; k < n; k++) {
        size_t size = ecm->types[types[k]].desc.size;
        bool plain = size && plain_column(ecm, types[k]);
        values[k] = plain ? b->columns[column[k]]->packed_values.data + i * size : NULL;
    }
    if (wk__entity_adopt_with(ecm, b->ids[i], t, types, values, n))
        return WK_NOMEM;
    uint32_t row = wk__record_of(ecm, b->ids[i])->row;
    int rc = WK_OK;
    for (size_t k = 0; rc == WK_OK && k < n; k++)
        if (ecm->types[types[k]].desc.size && !plain_column(ecm, types[k]))
            rc = fill_hooked(r, b->columns[column[k]], i, types[k], wk__cell(t, t->column_of[types[k]], row));
    return rc;
}

/* Applies a block. An entity new here is made at once in the table of the
 * block's types, with their values; its sparse components, and those of
 * the entities that exist, are set one at a time. */
static int apply_block(reader *r, const Worldkit__Ecs__Block *b)
{
    wk_ecm *ecm = r->ecm;
    size_t n = b->n_columns;
    /* The local type of each column, then those of the table's types. */
    wk_type *local = malloc(2 * (n ? n : 1) * sizeof *local), *types = local ? local + n : NULL;
    const void **values = malloc((n ? n : 1) * sizeof *values);
    size_t *column = malloc((n ? n : 1) * sizeof *column); /* of each of types */
    int rc = local && values && column ? WK_OK : WK_NOMEM;
    size_t in_table = 0;
    for (size_t c = 0; rc == WK_OK && c < n; c++) {
        local[c] = local_type(r, b->columns[c]->type);
        if (!ecm->types[local[c]].sparse) {
            column[in_table] = c;
            types[in_table++] = local[c];
        }
    }
    bool sparse = false;
    wk__table *table = rc == WK_OK ? wk__table_of(ecm, types, in_table, &sparse) : NULL;
    if (!table)
        rc = WK_NOMEM;
    for (size_t i = 0; rc == WK_OK && i < b->n_ids; i++) {
        bool fresh = !wk_ecm_exists(ecm, b->ids[i]);
        if (fresh)
            rc = adopt(r, b, i, table, types, column, values, in_table);
        for (size_t k = 0; rc == WK_OK && !fresh && k < b->n_removed_types; k++)
            rc = wk__remove_now(ecm, b->ids[i], local_type(r, b->removed_types[k])) < 0 ? WK_NOMEM : WK_OK;
        for (size_t c = 0; rc == WK_OK && c < n; c++)
            if (!fresh || ecm->types[local[c]].sparse)
                rc = apply_column(r, b, b->columns[c], local[c], i);
    }
    free(local);
    free(values);
    free(column);
    return rc;
}

/* Removes the entities flag_doomed flagged. */
static int remove_doomed(reader *r)
{
    wk_ecm *ecm = r->ecm;
    wk_entity_list gone = {0};
    for (uint32_t t = 0; t < ecm->table_count; t++)
        for (uint32_t row = 0; row < ecm->tables[t]->count; row++) {
            wk_entity e = ecm->tables[t]->entities[row];
            if (doomed(ecm, e) && wk__list_push(&gone, e)) {
                wk_entity_list_free(&gone);
                flag_doomed(r, false);
                return WK_NOMEM;
            }
        }
    int rc = WK_OK;
    for (size_t i = 0; rc == WK_OK && i < gone.count; i++)
        rc = wk__destroy_now(ecm, gone.items[i], false);
    wk_entity_list_free(&gone);
    return rc;
}

/* Takes a complete state's free slots as this ECM's own: each slot keeps at
 * least the generation the sender would hand out there, and they are
 * reused in the sender's order. (A transaction's rollback lowers the
 * generations again and drops the slots from the list.) */
static int take_free_slots(reader *r)
{
    wk_ecm *ecm = r->ecm;
    for (size_t i = 0; is_complete(r) && i < r->msg->n_free_slots; i++) {
        uint32_t index = wk__index(r->msg->free_slots[i]), gen = wk__gen(r->msg->free_slots[i]);
        int rc = wk__slot_use(ecm, index);
        if (rc)
            return rc;
        wk__record *slot = wk__slot(ecm, index);
        if (slot->gen < gen) {
            if (ecm->txn && wk__txn_note_gen(ecm, index, slot->gen))
                return WK_NOMEM;
            slot->gen = gen;
        }
        if (WK__VEC_PUSH(ecm->free_slots, index))
            return WK_NOMEM;
    }
    return WK_OK;
}

/* Gives each of the message's entities the parent check_cycles found it
 * gets: first those whose parent changes are detached, then each is
 * attached, in the message's order, which is its children's order. The
 * forest is then a part of the final one at every step, so no step can
 * close a cycle; the message's parents one by one could (an entity listed
 * twice, its first parent itself, or a child that becomes the parent of
 * its parent). */
static int apply_parents(reader *r)
{
    int rc = WK_OK;
    for (size_t k = 0; rc == WK_OK && k < r->id_count; k++) {
        wk_entity e = r->ids[k];
        if (wk_ecm_parent(r->ecm, e) != r->parents[k])
            rc = wk_ecm_set_parent(r->ecm, e, WK_NULL_ENTITY);
    }
    for (size_t b = 0; rc == WK_OK && b < r->msg->n_blocks; b++) {
        const Worldkit__Ecs__Block *blk = r->msg->blocks[b];
        for (size_t i = 0; rc == WK_OK && i < blk->n_ids; i++)
            rc = wk_ecm_set_parent(r->ecm, blk->ids[i], r->parents[position_of(r, blk->ids[i])]);
    }
    return rc; /* 0, or out of memory */
}

static int apply(reader *r)
{
    int rc = remove_doomed(r);
    if (rc)
        return rc;
    for (size_t b = 0; b < r->msg->n_blocks; b++) {
        rc = apply_block(r, r->msg->blocks[b]);
        if (rc)
            return rc;
    }
    if ((rc = apply_parents(r)))
        return rc;
    return take_free_slots(r);
}

/* apply, undone if it fails, which after check only running out of memory
 * can make it do: inside the caller's transaction back to where apply
 * began, else in a transaction of its own. */
static int apply_or_undo(reader *r)
{
    wk_ecm *ecm = r->ecm;
    bool own = !ecm->txn;
    wk__savepoint sp = own ? (wk__savepoint){0} : wk__txn_savepoint(ecm);
    int rc = own ? wk_ecm_txn_begin(ecm) : WK_OK;
    if (rc == WK_OK)
        rc = apply(r);
    if (rc == WK_OK)
        return own ? wk_ecm_txn_commit(ecm) : WK_OK;
    if (own && ecm->txn)
        wk_ecm_txn_rollback(ecm);
    else if (!own)
        wk__txn_undo_to(ecm, &sp);
    flag_doomed(r, false); /* those apply did not get to */
    return rc;
}

int wk_ecm_set_state(wk_ecm *ecm, const uint8_t *bytes, size_t len)
{
    if (ecm->iter_depth)
        return wk__ecm_fail(ecm, WK_BUSY, "cannot apply a state while an iterator is open");
    reader r = {.ecm = ecm};
    r.msg = worldkit__ecs__state__unpack(NULL, len, bytes);
    if (!r.msg)
        return wk__ecm_fail(ecm, WK_PARSE, "state: %zu bytes are not a worldkit.ecs.State message", len);
    int rc = WK_NOMEM;
    r.local = calloc(r.msg->n_types + 1, sizeof *r.local);
    if (!r.local) {
        wk__ecm_fail(ecm, rc, "out of memory reading state");
        goto done;
    }
    rc = check(&r);
    if (rc == WK_OK && (rc = apply_or_undo(&r)) == WK_NOMEM)
        wk__ecm_fail(ecm, rc, "out of memory applying state");
done:
    free(r.local);
    free(r.ids);
    free(r.cells);
    free(r.parents);
    worldkit__ecs__state__free_unpacked(r.msg, NULL);
    return rc;
}
