/* components.c — adding, setting, reading and removing components, destroying
 * entities, and finding entities by component values. */
#include "ecm_internal.h"

#include <stdlib.h>
#include <string.h>

/* A private copy of a value, taken before a structural change: the caller's
 * value may point into the ECM's own columns, which the change can move. */
typedef struct staged {
    _Alignas(16) unsigned char small[128];
    void *value;
} staged;

static int stage(const wk_ecm *ecm, wk_type type, const void *value, staged *s)
{
    const wk_type_desc *d = &ecm->types[type].desc;
    s->value = s->small;
    if (d->size > sizeof s->small || d->align > 16) {
        if (posix_memalign(&s->value, d->align < sizeof(void *) ? sizeof(void *) : d->align, d->size))
            return WK_NOMEM;
    }
    if (!value) {
        memset(s->value, 0, d->size);
        return WK_OK;
    }
    int rc = wk__value_copy(ecm, type, s->value, value);
    if (rc && s->value != s->small)
        free(s->value);
    return rc;
}

static void unstage(staged *s)
{
    if (s->value != s->small)
        free(s->value);
}

static int check_entity(const wk_ecm *ecm, wk_entity e, wk__record **r)
{
    *r = wk__record_of(ecm, e);
    if (!*r)
        return wk__ecm_fail(ecm, WK_STALE, "entity %llu does not exist (removed or never created)",
                            (unsigned long long)e);
    return WK_OK;
}

static int check_type(const wk_ecm *ecm, wk_type type)
{
    if (type == WK_NO_TYPE || type > ecm->type_count)
        return wk__ecm_fail(ecm, WK_INVALID, "component type %u is not registered", type);
    return WK_OK;
}

static int check(const wk_ecm *ecm, wk_entity e, wk_type type, wk__record **r)
{
    int rc = check_entity(ecm, e, r);
    return rc ? rc : check_type(ecm, type);
}

/* Sets the value at cell, whose change state is at *change_state. Inlined
 * into its callers: it is the common case of wk_ecm_set. */
static inline __attribute__((always_inline)) int set_existing(wk_ecm *ecm, wk__record *r, wk_entity e, wk_type type,
                                                              void *cell, uint8_t *change_state, const void *value)
{
    size_t size = ecm->types[type].desc.size;
    if (size == 0 || (value && wk__value_equal(ecm, type, cell, value)))
        return 0;
    uint8_t change = *change_state;
    if (ecm->types[type].plain) {
        if (ecm->txn && wk__txn_note_set(ecm, e, type, cell, change))
            return wk__ecm_fail(ecm, WK_NOMEM, "out of memory recording %s of entity %llu",
                                ecm->types[type].desc.name, (unsigned long long)e);
        wk__fill_value(cell, value, size); /* value is not cell: that compared equal */
    } else {
        staged s;
        if (stage(ecm, type, value, &s))
            return wk__ecm_fail(ecm, WK_NOMEM, "out of memory copying %s of entity %llu",
                                ecm->types[type].desc.name, (unsigned long long)e);
        /* In a transaction the old value moves to the log instead of dying. */
        if (!ecm->txn) {
            wk__table_destroy_value(ecm, type, cell);
        } else if (wk__txn_note_set(ecm, e, type, cell, change)) {
            wk__table_destroy_value(ecm, type, s.value);
            unstage(&s);
            return wk__ecm_fail(ecm, WK_NOMEM, "out of memory recording %s of entity %llu",
                                ecm->types[type].desc.name, (unsigned long long)e);
        }
        memcpy(cell, s.value, size);
        unstage(&s);
    }
    wk__mark_changed(ecm, r, e, change_state);
    ecm->version++;
    return 1;
}

/* Takes back a wk__touch whose mutation then failed: a failed call leaves
 * no trace, not even in the step's record. */
static void untouch(wk_ecm *ecm, wk__record *r, bool touched_here)
{
    if (touched_here) {
        ecm->touched.count--;
        r->flags &= ~(uint32_t)WK__TOUCHED;
    }
}

static bool touches(const wk__record *r)
{
    return !(r->flags & (WK__NEW | WK__TOUCHED));
}

/* The table a row moves to when it gains (adding) or loses type, if the
 * edge is known and that table has room for the row; else NULL. */
static inline wk__table *ready_edge(const wk_ecm *ecm, const wk__table *from, wk_type type, bool adding)
{
    if (type >= from->edge_len)
        return NULL;
    uint32_t id = (adding ? from->add_edge : from->remove_edge)[type];
    wk__table *to = id ? ecm->tables[id - 1] : NULL;
    return to && to->count < to->cap ? to : NULL;
}

/* Adds the entity to the step's touched list when the list has room
 * already; false when that needs the slow path. */
static inline bool touch_in_place(wk_ecm *ecm, wk__record *r, wk_entity e)
{
    if (r->flags & (WK__NEW | WK__TOUCHED))
        return true;
    if (ecm->touched.count == ecm->touched.cap)
        return false;
    ecm->touched.items[ecm->touched.count++] = e;
    r->flags |= WK__TOUCHED;
    return true;
}

static int add_slow(wk_ecm *ecm, wk__record *r, wk_entity e, wk_type type, const void *value);

/* True when appending slot index to s needs no allocation. */
static inline bool sparse_ready(const wk__sparse *s, uint32_t index)
{
    return s->count < s->cap && index < s->map_len;
}

/* Adding a plain value outside a transaction, along a known edge, to a
 * table with room, is one row move and nothing that can fail: the common
 * case takes no other branch. The value cannot move under the copy, since
 * the destination does not grow. (Sparse types have no edges: they go to
 * add_slow unless wk_ecm_set's own fast path took them.) */
static int add_new(wk_ecm *ecm, wk__record *r, wk_entity e, wk_type type, const void *value)
{
    wk__table *to;
    if (ecm->txn || ecm->types[type].desc.hooks.copy || !(to = ready_edge(ecm, ecm->tables[r->table], type, true)) ||
        !touch_in_place(ecm, r, e))
        return add_slow(ecm, r, e, type, value);
    wk__table_move(ecm, r, to, type, value, NULL); /* cannot fail: `to` has room */
    ecm->types[type].in_use = true;
    return 1;
}

/* Every other add: the row moves to the neighbouring table, or, for a
 * sparse type, the value joins the type's set and the row stays. */
static int add_slow(wk_ecm *ecm, wk__record *r, wk_entity e, wk_type type, const void *value)
{
    const wk_type_desc *d = &ecm->types[type].desc;
    wk__sparse *sparse = ecm->types[type].sparse;
    wk__table *to = sparse ? NULL : wk__table_with(ecm, ecm->tables[r->table], type);
    if (!sparse && !to)
        return wk__no_table(ecm, "out of memory adding %s to entity %llu", d->name, (unsigned long long)e);
    /* Plain bytes go straight into the new row, unless they live in the
     * destination and the append is about to move its arrays. */
    staged s; /* left uninitialised: it is big, and mostly unused */
    bool moves = sparse ? sparse->count == sparse->cap && wk__sparse_holds(sparse, value)
                        : to->count == to->cap && wk__table_holds(to, value);
    bool staging = value && (d->hooks.copy || moves);
    if (staging) {
        if (stage(ecm, type, value, &s))
            return wk__ecm_fail(ecm, WK_NOMEM, "out of memory copying %s for entity %llu", d->name,
                                (unsigned long long)e);
        value = s.value;
    }
    bool touched_here = touches(r);
    int rc = sparse ? wk__sparse_reserve(sparse, wk__index(e)) : WK_OK;
    if (rc == WK_OK)
        rc = wk__touch(ecm, r, e);
    if (rc == WK_OK && ecm->txn && (rc = wk__txn_note_move(ecm, e, r, type, true, NULL))) {
        untouch(ecm, r, touched_here);
    } else if (rc == WK_OK && sparse) {
        wk__sparse_append(sparse, e, value);
        ecm->version++;
    } else if (rc == WK_OK && (rc = wk__table_move(ecm, r, to, type, value, NULL))) {
        if (ecm->txn)
            wk__txn_drop(ecm);
        untouch(ecm, r, touched_here);
    }
    if (staging && rc && d->hooks.copy)
        wk__table_destroy_value(ecm, type, s.value);
    if (staging)
        unstage(&s);
    if (rc)
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory adding %s to entity %llu", d->name,
                            (unsigned long long)e);
    ecm->types[type].in_use = true;
    return 1;
}

int wk__set_now(wk_ecm *ecm, wk_entity e, wk_type type, const void *value)
{
    wk__record *r = wk__record_of(ecm, e);
    void *cell;
    uint8_t *change;
    if (wk__component_at(ecm, r, e, type, &cell, &change))
        return set_existing(ecm, r, e, type, cell, change, value);
    return add_new(ecm, r, e, type, value);
}

/* The record of e and the set of type when both are valid and the type is
 * sparse, else NULL. */
static inline wk__sparse *sparse_of(const wk_ecm *ecm, wk_entity e, wk_type type, wk__record **r)
{
    *r = wk__record_of(ecm, e);
    return *r && type != WK_NO_TYPE && type <= ecm->type_count ? ecm->types[type].sparse : NULL;
}

/* The entity's record r was looked up already (NULL: e is not alive). */
__attribute__((noinline)) static int set_general(wk_ecm *ecm, wk__record *r, wk_entity e, wk_type type,
                                                 const void *value)
{
    int rc = r ? check_type(ecm, type) : check_entity(ecm, e, &r);
    if (rc)
        return rc;
    void *cell;
    uint8_t *change;
    if (wk__component_at(ecm, r, e, type, &cell, &change))
        return set_existing(ecm, r, e, type, cell, change, value);
    if (ecm->iter_depth) {
        rc = wk__defer(ecm, WK__OP_SET, e, type, value, false, NULL);
        return rc ? rc : 1;
    }
    return add_new(ecm, r, e, type, value);
}

/* Adding a sparse component is an append to its set. In the common case (no
 * iterator or transaction open, a plain value, room in the set and in the
 * step's list) that takes a few dozen instructions, kept apart from the
 * general case so that the function stays small: calls on random entities
 * then overlap in the CPU, each costing less than its cache misses. */
int wk_ecm_set(wk_ecm *ecm, wk_entity e, wk_type type, const void *value)
{
    wk__record *r;
    wk__sparse *s = sparse_of(ecm, e, type, &r);
    uint32_t index = wk__index(e);
    if (s && !ecm->iter_depth && !ecm->txn && !ecm->types[type].desc.hooks.copy && !wk__sparse_find(s, index) &&
        sparse_ready(s, index) && touch_in_place(ecm, r, e)) {
        wk__sparse_append(s, e, value);
        ecm->types[type].in_use = true;
        ecm->version++;
        return 1;
    }
    return set_general(ecm, r, e, type, value);
}

/* Kept out of wk_ecm_get's way: table types are the common case. */
static void *sparse_get(const wk_ecm *ecm, wk_entity e, wk_type type)
{
    uint32_t pos = wk__sparse_pos(ecm, type, wk__index(e));
    return pos ? wk__sparse_cell(ecm->types[type].sparse, pos - 1) : NULL;
}

void *wk_ecm_get(const wk_ecm *ecm, wk_entity e, wk_type type)
{
    const wk__record *r = wk__record_of(ecm, e);
    if (!r || type - 1 >= ecm->type_count) /* WK_NO_TYPE wraps around */
        return NULL;
    const wk__type_info *info = &ecm->types[type];
    uint8_t *values = info->values[r->table];
    if (values)
        return values + (size_t)r->row * info->desc.size;
    return sparse_get(ecm, e, type);
}

void *wk_ecm_get_or_add(wk_ecm *ecm, wk_entity e, wk_type type, const void *dflt)
{
    wk__record *r;
    if (check(ecm, e, type, &r))
        return NULL;
    if (ecm->types[type].desc.size == 0) {
        wk__ecm_fail(ecm, WK_INVALID, "%s is a tag type without data", ecm->types[type].desc.name);
        return NULL;
    }
    void *value = wk_ecm_get(ecm, e, type);
    if (value)
        return value;
    if (ecm->iter_depth) {
        void *staged_value = NULL;
        return wk__defer(ecm, WK__OP_SET, e, type, dflt, false, &staged_value) ? NULL : staged_value;
    }
    if (add_new(ecm, r, e, type, dflt) < 0)
        return NULL;
    return wk_ecm_get(ecm, e, type);
}

static int remove_slow(wk_ecm *ecm, wk__record *r, wk_entity e, wk_type type);

/* The entity has the type. As for adding, the common case (no transaction,
 * a known edge, room in the destination and in the step's lists) is one row
 * move. */
static int remove_at(wk_ecm *ecm, wk__record *r, wk_entity e, wk_type type)
{
    wk__table *to;
    bool record = !(r->flags & WK__NEW);
    if (ecm->txn || ecm->types[type].sparse || !(to = ready_edge(ecm, ecm->tables[r->table], type, false)) ||
        (record && ecm->removed_components.count == ecm->removed_components.cap) || !touch_in_place(ecm, r, e))
        return remove_slow(ecm, r, e, type);
    if (record)
        ecm->removed_components.items[ecm->removed_components.count++] = (wk__removed_component){e, type};
    wk__table_move(ecm, r, to, type, NULL, NULL); /* cannot fail: `to` has room */
    return 1;
}

/* True when the entity has the type, in its table or its sparse set. */
static bool has(const wk_ecm *ecm, const wk__record *r, wk_entity e, wk_type type)
{
    const wk__sparse *s = ecm->types[type].sparse;
    return s ? wk__sparse_find(s, wk__index(e)) != 0 : wk__column_index(ecm->tables[r->table], type) >= 0;
}

int wk__remove_now(wk_ecm *ecm, wk_entity e, wk_type type)
{
    wk__record *r = wk__record_of(ecm, e);
    if (!has(ecm, r, e, type))
        return 0;
    return remove_at(ecm, r, e, type);
}

static int remove_slow(wk_ecm *ecm, wk__record *r, wk_entity e, wk_type type)
{
    wk__sparse *sparse = ecm->types[type].sparse;
    wk__table *to = sparse ? NULL : wk__table_without(ecm, ecm->tables[r->table], type);
    bool record = !(r->flags & WK__NEW), touched_here = touches(r);
    if (!sparse && !to)
        return wk__no_table(ecm, "out of memory removing %s from entity %llu", ecm->types[type].desc.name,
                            (unsigned long long)e);
    if (wk__touch(ecm, r, e))
        goto fail_nomem;
    if (record && WK__VEC_PUSH(ecm->removed_components, ((wk__removed_component){e, type})))
        goto fail_untouch;
    void *removed = NULL;
    if (ecm->txn && wk__txn_note_move(ecm, e, r, type, false, &removed))
        goto fail_unrecord;
    if (sparse) {
        wk__sparse_remove(ecm, type, e, removed);
        ecm->version++;
    } else if (wk__table_move(ecm, r, to, type, NULL, removed)) {
        if (ecm->txn)
            wk__txn_drop(ecm);
        goto fail_unrecord;
    }
    return 1;

fail_unrecord:
    if (record)
        ecm->removed_components.count--;
fail_untouch:
    untouch(ecm, r, touched_here);
fail_nomem:
    return wk__ecm_fail(ecm, WK_NOMEM, "out of memory removing %s from entity %llu", ecm->types[type].desc.name,
                        (unsigned long long)e);
}

__attribute__((noinline)) static int remove_general(wk_ecm *ecm, wk__record *r, wk_entity e, wk_type type)
{
    int rc = r ? check_type(ecm, type) : check_entity(ecm, e, &r);
    if (rc)
        return rc;
    if (!has(ecm, r, e, type))
        return 0;
    if (ecm->iter_depth) {
        rc = wk__defer(ecm, WK__OP_REMOVE, e, type, NULL, false, NULL);
        return rc ? rc : 1;
    }
    return remove_at(ecm, r, e, type);
}

/* As wk_ecm_set, a common case kept small: removing a sparse component
 * moves its set's last member into the hole. */
int wk_ecm_remove(wk_ecm *ecm, wk_entity e, wk_type type)
{
    wk__record *r;
    wk__sparse *s = sparse_of(ecm, e, type, &r);
    bool record = r && !(r->flags & WK__NEW);
    if (s && wk__sparse_find(s, wk__index(e)) && !ecm->iter_depth && !ecm->txn &&
        !(record && ecm->removed_components.count == ecm->removed_components.cap) && touch_in_place(ecm, r, e)) {
        if (record)
            ecm->removed_components.items[ecm->removed_components.count++] = (wk__removed_component){e, type};
        wk__sparse_remove(ecm, type, e, NULL);
        ecm->version++;
        return 1;
    }
    return remove_general(ecm, r, e, type);
}

static int note_destroyed(wk_ecm *ecm, wk_entity e)
{
    if (wk__record_of(ecm, e)->flags & WK__NEW)
        return WK_OK;
    return WK__VEC_PUSH(ecm->destroyed, e);
}

int wk__destroy_now(wk_ecm *ecm, wk_entity e, bool recursive)
{
    /* Freeing fails only in a transaction, whose log then undoes the part
     * done; outside one, nothing is freed before every list push succeeded. */
    wk__savepoint sp = ecm->txn ? wk__txn_savepoint(ecm) : (wk__savepoint){0};
    size_t destroyed = ecm->destroyed.count;
    const wk__link *l = wk__link_of(ecm, wk__index(e));
    int rc = WK_OK;
    if (!recursive || !l || !l->first_child) {
        rc = note_destroyed(ecm, e);
        if (rc == WK_OK)
            rc = wk__entity_free(ecm, e);
    } else {
        wk_entity_list doomed = {0};
        rc = wk__descendants(ecm, e, &doomed);
        for (size_t i = 0; rc == WK_OK && i < doomed.count; i++)
            rc = note_destroyed(ecm, doomed.items[i]);
        for (size_t i = doomed.count; rc == WK_OK && i-- > 0;)
            rc = wk__entity_free(ecm, doomed.items[i]);
        wk_entity_list_free(&doomed);
    }
    if (rc == WK_OK)
        return WK_OK;
    if (ecm->txn)
        wk__txn_undo_to(ecm, &sp);
    else
        ecm->destroyed.count = destroyed;
    return wk__ecm_fail(ecm, WK_NOMEM, "out of memory destroying entity %llu", (unsigned long long)e);
}

int wk_ecm_destroy(wk_ecm *ecm, wk_entity e, bool recursive)
{
    wk__record *r;
    int rc = check_entity(ecm, e, &r);
    if (rc)
        return rc;
    if (ecm->iter_depth)
        return wk__defer(ecm, WK__OP_DESTROY, e, WK_NO_TYPE, NULL, recursive, NULL);
    /* Outside a transaction, an entity without children (or whose children
     * stay) goes at once, once the step's list has room to record it. */
    const wk__link *l = recursive ? wk__link_of(ecm, wk__index(e)) : NULL;
    if (!ecm->txn && (!l || !l->first_child)) {
        if (!(r->flags & WK__NEW)) {
            if (WK__VEC_PUSH(ecm->destroyed, e))
                return wk__ecm_fail(ecm, WK_NOMEM, "out of memory destroying entity %llu", (unsigned long long)e);
        }
        return wk__entity_free_at(ecm, r, e); /* cannot fail outside a transaction */
    }
    return wk__destroy_now(ecm, e, recursive);
}

bool wk_ecm_has(const wk_ecm *ecm, wk_entity e, wk_type type)
{
    const wk__record *r = wk__record_of(ecm, e);
    return r && type != WK_NO_TYPE && type <= ecm->type_count && has(ecm, r, e, type);
}

bool wk_ecm_matches(const wk_ecm *ecm, wk_entity e, const wk_type *types, size_t n)
{
    const wk__record *r = wk__record_of(ecm, e);
    if (!r)
        return false;
    for (size_t i = 0; i < n; i++)
        if (types[i] == WK_NO_TYPE || types[i] > ecm->type_count || !has(ecm, r, e, types[i]))
            return false;
    return true;
}

size_t wk_ecm_component_types(const wk_ecm *ecm, wk_entity e, wk_type *out, size_t cap)
{
    const wk__record *r = wk__record_of(ecm, e);
    if (!r)
        return 0;
    /* Both lists ascend: merge them. */
    const wk__table *t = ecm->tables[r->table];
    size_t n = 0, i = 0;
    for (size_t k = 0; k < ecm->sparse_types.count; k++) {
        wk_type type = ecm->sparse_types.items[k];
        if (!wk__sparse_pos(ecm, type, wk__index(e)))
            continue;
        for (; i < t->type_count && t->types[i] < type; i++, n++)
            if (n < cap)
                out[n] = t->types[i];
        if (n++ < cap)
            out[n - 1] = type;
    }
    for (; i < t->type_count; i++, n++)
        if (n < cap)
            out[n] = t->types[i];
    return n;
}

void *wk_ecm_first(const wk_ecm *ecm, wk_type type, wk_entity *owner)
{
    const wk__sparse *s = type && type <= ecm->type_count ? ecm->types[type].sparse : NULL;
    if (s) {
        if (s->count && owner)
            *owner = s->entities[0];
        return s->count ? wk__sparse_cell(s, 0) : NULL;
    }
    for (uint32_t i = 0; i < ecm->table_count; i++) {
        const wk__table *t = ecm->tables[i];
        int32_t c = wk__column_index(t, type);
        if (c < 0 || t->count == 0)
            continue;
        if (owner)
            *owner = t->entities[0];
        return wk__cell(t, c, 0);
    }
    return NULL;
}

static bool is_sparse(const wk_ecm *ecm, wk_type type)
{
    return type != WK_NO_TYPE && type <= ecm->type_count && ecm->types[type].sparse;
}

/* True when row of t holds every (type, value) pair. */
static bool row_matches(const wk_ecm *ecm, const wk__table *t, uint32_t row, const wk_match *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int32_t c = wk__column_index(t, m[i].type);
        const void *cell;
        if (c >= 0) {
            cell = wk__cell(t, c, row);
        } else {
            uint32_t pos = is_sparse(ecm, m[i].type) ? wk__sparse_pos(ecm, m[i].type, wk__index(t->entities[row])) : 0;
            if (!pos)
                return false;
            cell = wk__sparse_cell(ecm->types[m[i].type].sparse, pos - 1);
        }
        if (m[i].value && !wk__value_equal(ecm, m[i].type, cell, m[i].value))
            return false;
    }
    return true;
}

/* Sparse types are checked row by row. */
static bool table_has_types(const wk_ecm *ecm, const wk__table *t, const wk_match *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (wk__column_index(t, m[i].type) < 0 && !is_sparse(ecm, m[i].type))
            return false;
    return true;
}

/* Appends matches to out (all of them, or the first when out is NULL). */
static wk_entity find(const wk_ecm *ecm, const wk_match *m, size_t n, wk_entity_list *out, int *rc)
{
    for (uint32_t i = 0; i < ecm->table_count; i++) {
        const wk__table *t = ecm->tables[i];
        if (!table_has_types(ecm, t, m, n))
            continue;
        for (uint32_t row = 0; row < t->count; row++) {
            if (!row_matches(ecm, t, row, m, n))
                continue;
            if (!out)
                return t->entities[row];
            if ((*rc = wk__list_push(out, t->entities[row])))
                return WK_NULL_ENTITY;
        }
    }
    return WK_NULL_ENTITY;
}

int wk_ecm_find(const wk_ecm *ecm, const wk_match *match, size_t n, wk_entity_list *out)
{
    int rc = WK_OK;
    find(ecm, match, n, out, &rc);
    return rc ? wk__ecm_fail(ecm, rc, "out of memory listing entities") : WK_OK;
}

wk_entity wk_ecm_find_one(const wk_ecm *ecm, const wk_match *match, size_t n)
{
    int rc = WK_OK;
    return find(ecm, match, n, NULL, &rc);
}

int wk_ecm_find_children(const wk_ecm *ecm, wk_entity parent, const wk_match *match, size_t n,
                         wk_entity_list *out)
{
    wk_entity_list children = {0};
    int rc = wk_ecm_children(ecm, parent, &children);
    for (size_t i = 0; rc == WK_OK && i < children.count; i++) {
        const wk__record *r = wk__record_of(ecm, children.items[i]);
        if (row_matches(ecm, ecm->tables[r->table], r->row, match, n))
            rc = wk__list_push(out, children.items[i]);
    }
    wk_entity_list_free(&children);
    return rc ? wk__ecm_fail(ecm, rc, "listing children of entity %llu: %s", (unsigned long long)parent,
                             wk_strerror(rc))
              : WK_OK;
}
