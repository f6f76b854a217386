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

typedef struct reader {
    wk_ecm *ecm;
    Worldkit__Ecs__State *msg;
    wk_type *local; /* local type of each msg->types entry */
    uint64_t *keys; /* block ids with index and generation swapped, sorted */
    size_t key_count;
    wk_entity *parents; /* parallel to keys: the parent each entity gets */
} reader;

/* Sorting on (index, generation) puts ids sharing a slot side by side. The
 * swap is its own inverse: slot_key of a key is the id. */
static uint64_t slot_key(wk_entity e)
{
    return (e << 32) | (e >> 32);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static wk_type local_type(const reader *r, uint32_t id)
{
    for (size_t i = 0; i < r->msg->n_types; i++)
        if (r->msg->types[i]->has_id && r->msg->types[i]->id == id)
            return r->local[i];
    return WK_NO_TYPE;
}

/* Where e is in keys, or -1. */
static ptrdiff_t key_of(const reader *r, wk_entity e)
{
    uint64_t key = slot_key(e);
    const uint64_t *hit = bsearch(&key, r->keys, r->key_count, sizeof key, cmp_u64);
    return hit ? hit - r->keys : -1;
}

static bool in_message(const reader *r, wk_entity e)
{
    return key_of(r, e) >= 0;
}

/* True when an entity of the message lives in slot index. */
static bool slot_in_message(const reader *r, uint32_t index)
{
    size_t lo = 0, hi = r->key_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uint32_t)(r->keys[mid] >> 32) < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->key_count && (uint32_t)(r->keys[lo] >> 32) == index;
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

static int collect_keys(reader *r)
{
    size_t n = 0;
    for (size_t b = 0; b < r->msg->n_blocks; b++)
        n += r->msg->blocks[b]->n_ids;
    r->keys = malloc((n ? n : 1) * sizeof *r->keys);
    if (!r->keys)
        return wk__ecm_fail(r->ecm, WK_NOMEM, "out of memory reading state");
    for (size_t b = 0; b < r->msg->n_blocks; b++)
        for (size_t i = 0; i < r->msg->blocks[b]->n_ids; i++)
            r->keys[r->key_count++] = slot_key(r->msg->blocks[b]->ids[i]);
    qsort(r->keys, n, sizeof *r->keys, cmp_u64);
    for (size_t i = 1; i < n; i++)
        if ((uint32_t)(r->keys[i] >> 32) == (uint32_t)(r->keys[i - 1] >> 32) && r->keys[i] != r->keys[i - 1])
            return wk__ecm_fail(r->ecm, WK_PARSE, "state: two generations of slot %u",
                                (uint32_t)(r->keys[i] >> 32));
    return WK_OK;
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
    r->parents = calloc(r->key_count ? r->key_count : 1, sizeof *r->parents);
    uint8_t *mark = calloc(r->key_count ? r->key_count : 1, 1);
    int rc = r->parents && mark ? WK_OK : wk__ecm_fail(r->ecm, WK_NOMEM, "out of memory reading state");
    for (size_t b = 0; rc == WK_OK && b < r->msg->n_blocks; b++) {
        const Worldkit__Ecs__Block *blk = r->msg->blocks[b];
        for (size_t i = 0; i < blk->n_ids; i++)
            r->parents[key_of(r, blk->ids[i])] = blk->n_parents ? blk->parents[i] : WK_NULL_ENTITY;
    }
    for (size_t k = 0; rc == WK_OK && k < r->key_count; k++) {
        wk_entity e = slot_key(r->keys[k]);
        ptrdiff_t at = (ptrdiff_t)k;
        while (e && (at < 0 || !mark[at])) {
            if (at >= 0)
                mark[at] = 1;
            e = parent_after(r, e, at);
            at = e ? key_of(r, e) : -1;
        }
        if (e && mark[at] == 1)
            rc = wk__ecm_fail(r->ecm, WK_INVALID, "state: entity %llu would be its own ancestor",
                              (unsigned long long)e);
        for (e = slot_key(r->keys[k]), at = (ptrdiff_t)k; e && (at < 0 || mark[at] == 1);
             e = parent_after(r, e, at), at = e ? key_of(r, e) : -1)
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
        rc = collect_keys(r);
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

static int apply_column(reader *r, const Worldkit__Ecs__Block *b, const Worldkit__Ecs__Column *col, size_t i)
{
    wk_ecm *ecm = r->ecm;
    wk_type t = local_type(r, col->type);
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

static int apply_block(reader *r, const Worldkit__Ecs__Block *b)
{
    for (size_t i = 0; i < b->n_ids; i++) {
        int rc = wk__entity_adopt(r->ecm, b->ids[i]);
        for (size_t k = 0; rc == WK_OK && k < b->n_removed_types; k++)
            rc = wk__remove_now(r->ecm, b->ids[i], local_type(r, b->removed_types[k])) < 0 ? WK_NOMEM : WK_OK;
        for (size_t c = 0; rc == WK_OK && c < b->n_columns; c++)
            rc = apply_column(r, b, b->columns[c], i);
        if (rc)
            return rc;
    }
    return WK_OK;
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
    for (size_t k = 0; rc == WK_OK && k < r->key_count; k++) {
        wk_entity e = slot_key(r->keys[k]);
        if (wk_ecm_parent(r->ecm, e) != r->parents[k])
            rc = wk_ecm_set_parent(r->ecm, e, WK_NULL_ENTITY);
    }
    for (size_t b = 0; rc == WK_OK && b < r->msg->n_blocks; b++) {
        const Worldkit__Ecs__Block *blk = r->msg->blocks[b];
        for (size_t i = 0; rc == WK_OK && i < blk->n_ids; i++)
            rc = wk_ecm_set_parent(r->ecm, blk->ids[i], r->parents[key_of(r, blk->ids[i])]);
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
    if (rc == WK_OK) {
        rc = apply(&r);
        if (rc == WK_NOMEM)
            wk__ecm_fail(ecm, rc, "out of memory applying state");
    }
done:
    free(r.local);
    free(r.keys);
    free(r.parents);
    worldkit__ecs__state__free_unpacked(r.msg, NULL);
    return rc;
}
