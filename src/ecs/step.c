/* step.c — what happens within and at the end of a simulation step: removal
 * requests, newness, per-component change states, and wk_ecm_end_step. */
#include "ecm_internal.h"

#include <stdlib.h>

static int mark(wk_ecm *ecm, wk_entity e)
{
    wk__record *r = wk__record_of(ecm, e);
    if (r->flags & WK__MARKED)
        return WK_OK;
    if (WK__VEC_PUSH(ecm->marked, e))
        return WK_NOMEM;
    r->flags |= WK__MARKED;
    ecm->version++;
    return WK_OK;
}

int wk_ecm_request_remove(wk_ecm *ecm, wk_entity e, bool recursive)
{
    if (!wk__record_of(ecm, e))
        return wk__ecm_fail(ecm, WK_STALE, "cannot remove entity %llu: it does not exist", (unsigned long long)e);
    wk_entity_list doomed = {0};
    int rc = recursive ? wk__descendants(ecm, e, &doomed) : wk__list_push(&doomed, e);
    for (size_t i = 0; rc == WK_OK && i < doomed.count; i++)
        rc = mark(ecm, doomed.items[i]);
    wk_entity_list_free(&doomed);
    return rc ? wk__ecm_fail(ecm, rc, "out of memory marking entity %llu for removal", (unsigned long long)e)
              : WK_OK;
}

void wk_ecm_request_remove_all(wk_ecm *ecm)
{
    for (uint32_t i = 0; i < ecm->table_count; i++) {
        const wk__table *t = ecm->tables[i];
        for (uint32_t row = 0; row < t->count; row++)
            if (mark(ecm, t->entities[row])) {
                wk__ecm_fail(ecm, WK_NOMEM, "out of memory marking every entity for removal");
                return;
            }
    }
}

static bool has_flagged(const wk_ecm *ecm, const wk_entity *list, size_t n, uint32_t flag)
{
    for (size_t i = 0; i < n; i++) {
        const wk__record *r = wk__record_of(ecm, list[i]);
        if (r && (r->flags & flag))
            return true;
    }
    return false;
}

bool wk_ecm_is_marked_for_removal(const wk_ecm *ecm, wk_entity e)
{
    const wk__record *r = wk__record_of(ecm, e);
    return r && (r->flags & WK__MARKED);
}

bool wk_ecm_has_marked_for_removal(const wk_ecm *ecm)
{
    return has_flagged(ecm, ecm->marked.items, ecm->marked.count, WK__MARKED);
}

bool wk_ecm_is_new(const wk_ecm *ecm, wk_entity e)
{
    const wk__record *r = wk__record_of(ecm, e);
    return r && (r->flags & WK__NEW);
}

bool wk_ecm_has_new_entities(const wk_ecm *ecm)
{
    return has_flagged(ecm, ecm->created.items, ecm->created.count, WK__NEW);
}

int wk_ecm_set_changed(wk_ecm *ecm, wk_entity e, wk_type type, wk_change change)
{
    wk__record *r = wk__record_of(ecm, e);
    if (!r)
        return wk__ecm_fail(ecm, WK_STALE, "entity %llu does not exist", (unsigned long long)e);
    if (change != WK_NO_CHANGE && change != WK_ONE_TIME_CHANGE && change != WK_PERIODIC_CHANGE)
        return wk__ecm_fail(ecm, WK_INVALID, "%d is not a change state", (int)change);
    void *cell;
    uint8_t *state;
    if (type == WK_NO_TYPE || type > ecm->type_count || !wk__component_at(ecm, r, e, type, &cell, &state))
        return wk__ecm_fail(ecm, WK_NOT_FOUND, "entity %llu has no component of type %u", (unsigned long long)e,
                            type);
    if (ecm->txn && wk__txn_note_change(ecm, e, type, *state))
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory recording a change of entity %llu", (unsigned long long)e);
    if (change != WK_NO_CHANGE && wk__touch(ecm, r, e)) {
        if (ecm->txn)
            wk__txn_drop(ecm);
        return WK_NOMEM;
    }
    *state = (uint8_t)change;
    ecm->version++;
    return WK_OK;
}

wk_change wk_ecm_changed(const wk_ecm *ecm, wk_entity e, wk_type type)
{
    const wk__record *r = wk__record_of(ecm, e);
    void *cell;
    uint8_t *state;
    if (!r || type == WK_NO_TYPE || type > ecm->type_count || !wk__component_at(ecm, r, e, type, &cell, &state))
        return WK_NO_CHANGE;
    return (wk_change)*state;
}

/* Calls visit for every component changed this step: changes only ever
 * happen to entities in the created or touched lists. Stops when visit
 * returns true, and returns true then. */
static bool each_change(const wk_ecm *ecm, bool (*visit)(wk_type, uint8_t, void *), void *ctx)
{
    const wk__entity_vec *lists[] = {&ecm->created, &ecm->touched};
    for (int l = 0; l < 2; l++) {
        for (size_t i = 0; i < lists[l]->count; i++) {
            const wk__record *r = wk__record_of(ecm, lists[l]->items[i]);
            if (!r)
                continue;
            const wk__table *t = ecm->tables[r->table];
            for (uint32_t c = 0; c < t->type_count; c++)
                if (t->columns[c].change[r->row] != WK_NO_CHANGE &&
                    visit(t->types[c], t->columns[c].change[r->row], ctx))
                    return true;
            for (size_t k = 0; k < ecm->sparse_types.count; k++) {
                wk_type type = ecm->sparse_types.items[k];
                const wk__sparse *s = ecm->types[type].sparse;
                uint32_t pos = wk__sparse_find(s, wk__index(lists[l]->items[i]));
                if (pos && s->change[pos - 1] != WK_NO_CHANGE && visit(type, s->change[pos - 1], ctx))
                    return true;
            }
        }
    }
    return false;
}

static bool is_one_time(wk_type type, uint8_t change, void *ctx)
{
    (void)type, (void)ctx;
    return change == WK_ONE_TIME_CHANGE;
}

bool wk_ecm_has_one_time_changes(const wk_ecm *ecm)
{
    return each_change(ecm, is_one_time, NULL);
}

static bool note_periodic(wk_type type, uint8_t change, void *ctx)
{
    if (change == WK_PERIODIC_CHANGE)
        ((bool *)ctx)[type] = true;
    return false;
}

size_t wk_ecm_periodic_types(const wk_ecm *ecm, wk_type *out, size_t cap)
{
    bool *seen = calloc(ecm->type_count + 1, sizeof *seen);
    if (!seen) {
        wk__ecm_fail(ecm, WK_NOMEM, "out of memory listing periodic changes");
        return 0;
    }
    each_change(ecm, note_periodic, seen);
    size_t n = 0;
    for (wk_type t = 1; t <= ecm->type_count; t++)
        if (seen[t] && n++ < cap)
            out[n - 1] = t;
    free(seen);
    return n;
}

/* Clears the step's flags and change states of the listed live entities. */
static void settle(wk_ecm *ecm, const wk_entity *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        wk__record *r = wk__record_of(ecm, list[i]);
        if (!r)
            continue;
        r->flags &= ~(uint32_t)(WK__NEW | WK__TOUCHED);
        /* In locals: the byte stores below could alias the table's fields,
         * which would otherwise be loaded again for every column. */
        const wk__table *t = ecm->tables[r->table];
        const wk__column *columns = t->columns;
        uint32_t row = r->row, types = t->type_count;
        for (uint32_t c = 0; c < types; c++)
            columns[c].change[row] = WK_NO_CHANGE;
        size_t sparse = ecm->sparse_types.count;
        for (size_t k = 0; k < sparse; k++) {
            wk__sparse *s = ecm->types[ecm->sparse_types.items[k]].sparse;
            uint32_t pos = wk__sparse_find(s, wk__index(list[i]));
            if (pos)
                s->change[pos - 1] = WK_NO_CHANGE;
        }
    }
}

/* Keeps the ids of list that still name an entity, in order; returns the
 * new length. */
static size_t keep_alive(const wk_ecm *ecm, wk__entity_vec *list)
{
    size_t kept = 0;
    for (size_t i = 0; i < list->count; i++)
        if (wk__record_of(ecm, list->items[i]))
            list->items[kept++] = list->items[i];
    return list->count = kept;
}

/* keep_alive, skipped while no entity was freed since the list's last pass. */
static size_t trim_list(const wk_ecm *ecm, wk__entity_vec *list, bool *live)
{
    size_t kept = *live ? list->count : keep_alive(ecm, list);
    *live = true;
    return kept;
}

/* An entity created or touched and destroyed within one step leaves
 * nothing to report, yet its id stays in the lists until the step ends: a
 * world whose steps never end (a simulation kept stopped while clients
 * spawn and delete) would keep every id it ever made. Trimming once a list
 * has doubled keeps the cost a constant per entry. */
void wk__step_lists_trim(wk_ecm *ecm)
{
    if (ecm->txn)
        return;
    if (ecm->created.count >= ecm->created_trim_at)
        ecm->created_trim_at = 2 * trim_list(ecm, &ecm->created, &ecm->created_live) + 64;
    if (ecm->touched.count >= ecm->touched_trim_at)
        ecm->touched_trim_at = 2 * trim_list(ecm, &ecm->touched, &ecm->touched_live) + 64;
}

int wk_ecm_end_step(wk_ecm *ecm)
{
    if (ecm->iter_depth)
        return wk__ecm_fail(ecm, WK_BUSY, "cannot end the step while an iterator is open");
    /* Ending the step forgets what a rollback would restore. */
    if (ecm->txn)
        return wk__ecm_fail(ecm, WK_BUSY, "cannot end the step while a transaction is open");
    /* Descendants of a recursive request were marked one by one, so each
     * marked entity goes alone; children of the others become roots. */
    for (size_t i = 0; i < ecm->marked.count; i++) {
        const wk__record *r = wk__record_of(ecm, ecm->marked.items[i]);
        if (r && (r->flags & WK__MARKED))
            (void)wk__entity_free(ecm, ecm->marked.items[i]); /* cannot fail outside a transaction */
    }
    settle(ecm, ecm->created.items, ecm->created.count);
    settle(ecm, ecm->touched.items, ecm->touched.count);
    ecm->marked.count = 0;
    ecm->created.count = ecm->created_trim_at = 0;
    ecm->touched.count = ecm->touched_trim_at = 0;
    ecm->destroyed.count = 0;
    ecm->removed_components.count = 0;
    ecm->version++;
    return WK_OK;
}
