/* state_write.c — serializing an ECM's state (State / ChangedState) as a
 * worldkit.ecs.State message.
 *
 * The message is written as a run of small State messages, which protobuf
 * merges into one: a header with the type table, the removed entities (and,
 * in a complete state, the free slots), then one message per block. A full
 * snapshot makes one block per table whose plain-data columns go out as
 * single byte strings pointing straight at the column memory; filtered and
 * changed-only states make one block per entity. Sparse types' values go in
 * an entity's own block, and in a full snapshot in blocks of their own, a
 * block per sparse type (holding the ids and parents again, which the
 * reader applies as it does for any block). */
#include "ecm_internal.h"

#include <stdlib.h>
#include <string.h>

#include "worldkit/ecs_state.pb-c.h"

typedef struct writer {
    wk_ecm *ecm;
    wk_buf *out;
    const wk_state_desc *desc;
    bool *wanted_type; /* index = type id */
    wk_entity *filter; /* sorted copy of desc->entities */
    wk__removed_component *removals; /* the step's component removals, by entity */
    size_t removal_count;
    wk_buf scratch; /* values written by serialize hooks */
} writer;

static int pack(writer *w, const Worldkit__Ecs__State *msg)
{
    size_t size = worldkit__ecs__state__get_packed_size(msg);
    if (wk_buf_reserve(w->out, size))
        return WK_NOMEM;
    w->out->len += worldkit__ecs__state__pack(msg, w->out->data + w->out->len);
    return WK_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_removal(const void *a, const void *b)
{
    return cmp_u64(&((const wk__removed_component *)a)->entity, &((const wk__removed_component *)b)->entity);
}

static bool wanted_entity(const writer *w, wk_entity e)
{
    return !w->filter || bsearch(&e, w->filter, w->desc->entity_count, sizeof e, cmp_u64);
}

/* Writes n values of type stored one after the other from values, or
 * fails out of memory. */
static int fill_column(writer *w, wk_type type, uint8_t *values, uint32_t n, Worldkit__Ecs__Column *col)
{
    const wk__type_info *info = &w->ecm->types[type];
    size_t size = info->desc.size;
    col->has_type = true;
    col->type = type;
    if (size == 0)
        return WK_OK;
    if (!info->desc.hooks.serialize) {
        col->has_packed_values = true;
        col->packed_values.len = n * size;
        col->packed_values.data = values;
        return WK_OK;
    }
    col->values = calloc(n, sizeof *col->values);
    if (!col->values)
        return WK_NOMEM;
    col->n_values = n;
    /* Lengths only: the scratch buffer may move while it grows, so the
     * pointers are set by fix_values once the block is complete. */
    for (uint32_t i = 0; i < n; i++) {
        size_t before = w->scratch.len;
        int rc = info->desc.hooks.serialize(values + i * size, &w->scratch);
        if (rc)
            return rc;
        col->values[i].len = w->scratch.len - before;
    }
    return WK_OK;
}

/* Points hook-serialized values at the scratch buffer once it stops growing. */
static void fix_values(writer *w, Worldkit__Ecs__Column *cols, size_t ncols)
{
    /* Values that all serialized to nothing leave the buffer unallocated. */
    static uint8_t nothing;
    uint8_t *base = w->scratch.data ? w->scratch.data : &nothing;
    size_t offset = 0;
    for (size_t c = 0; c < ncols; c++)
        for (size_t i = 0; i < cols[c].n_values; i++) {
            cols[c].values[i].data = base + offset;
            offset += cols[c].values[i].len;
        }
}

/* Where a block's columns come from: rows [row, row + n) of a table, or
 * members [row, row + n) of a sparse set, with (for an entity's own block,
 * n = 1) its sparse types too. */
typedef struct source {
    const wk__table *t;
    wk_type sparse_type;
    uint32_t row, n;
    bool with_sparse;
} source;

/* Appends a column unless the type is unwanted or, with changed_only, unchanged. */
static int add_column(writer *w, wk_type type, uint8_t *values, uint32_t n, uint8_t change, bool changed_only,
                      Worldkit__Ecs__Column *cols, size_t *ncols)
{
    if (!w->wanted_type[type] || (changed_only && change == WK_NO_CHANGE))
        return WK_OK;
    worldkit__ecs__column__init(&cols[*ncols]);
    return fill_column(w, type, values, n, &cols[(*ncols)++]);
}

/* Emits one block. With changed_only, only the columns changed this step
 * go (all of them for a new entity), followed by the types removed from the
 * entity. */
/* An entity's parent as the step's end leaves it: none when the parent is
 * marked for removal, since the state sends the parent as removed. */
static wk_entity parent_after_step(const wk_ecm *ecm, wk_entity e)
{
    wk_entity parent = wk_ecm_parent(ecm, e);
    return parent && wk_ecm_is_marked_for_removal(ecm, parent) ? 0 : parent;
}

static int emit_block(writer *w, const source *src, bool changed_only)
{
    int rc = WK_NOMEM;
    wk_ecm *ecm = w->ecm;
    const wk__table *t = src->t;
    const wk__sparse *set = src->sparse_type ? ecm->types[src->sparse_type].sparse : NULL;
    uint32_t row = src->row, n = src->n;
    size_t max_cols = (t ? t->type_count : 1) + (src->with_sparse ? ecm->sparse_types.count : 0);
    Worldkit__Ecs__Column *cols = calloc(max_cols ? max_cols : 1, sizeof *cols);
    Worldkit__Ecs__Column **col_ptrs = calloc(max_cols ? max_cols : 1, sizeof *col_ptrs);
    uint64_t *parents = NULL;
    uint32_t *removed = NULL;
    if (!cols || !col_ptrs)
        goto done;
    const wk_entity *ids = t ? &t->entities[row] : &set->entities[row];
    bool is_new = n == 1 && (wk__record_of(ecm, ids[0])->flags & WK__NEW);
    changed_only &= !is_new;
    size_t ncols = 0;
    w->scratch.len = 0;
    for (uint32_t c = 0; t && c < t->type_count; c++) {
        uint8_t *values = t->columns[c].data ? t->columns[c].data + (size_t)row * t->columns[c].size : NULL;
        if ((rc = add_column(w, t->types[c], values, n, t->columns[c].change[row], changed_only, cols, &ncols)))
            goto done;
    }
    if (set && (rc = add_column(w, src->sparse_type, wk__sparse_cell(set, row), n, WK_ONE_TIME_CHANGE, false, cols,
                                &ncols)))
        goto done;
    for (size_t k = 0; src->with_sparse && k < ecm->sparse_types.count; k++) {
        wk_type type = ecm->sparse_types.items[k];
        const wk__sparse *s = ecm->types[type].sparse;
        uint32_t pos = wk__sparse_find(s, wk__index(ids[0]));
        if (pos && (rc = add_column(w, type, wk__sparse_cell(s, pos - 1), 1, s->change[pos - 1], changed_only, cols,
                                    &ncols)))
            goto done;
    }
    for (size_t c = 0; c < ncols; c++)
        col_ptrs[c] = &cols[c];
    fix_values(w, cols, ncols);

    Worldkit__Ecs__Block block = WORLDKIT__ECS__BLOCK__INIT;
    block.n_ids = n;
    block.ids = (uint64_t *)ids;
    block.n_columns = ncols;
    block.columns = col_ptrs;
    if (ecm->links_used) {
        parents = malloc(n * sizeof *parents);
        if (!parents)
            goto done;
        bool any = false;
        for (uint32_t i = 0; i < n; i++) {
            parents[i] = parent_after_step(ecm, ids[i]);
            any |= parents[i] != 0;
        }
        block.n_parents = any ? n : 0;
        block.parents = parents;
    }
    if (changed_only && w->removal_count) {
        wk__removed_component key = {.entity = ids[0]};
        wk__removed_component *hit = bsearch(&key, w->removals, w->removal_count, sizeof key, cmp_removal);
        while (hit && hit > w->removals && hit[-1].entity == key.entity)
            hit--;
        size_t count = 0;
        for (wk__removed_component *r = hit; r && r < w->removals + w->removal_count && r->entity == key.entity; r++)
            count++;
        removed = malloc((count ? count : 1) * sizeof *removed);
        if (!removed)
            goto done;
        for (size_t i = 0; i < count; i++)
            if (w->wanted_type[hit[i].type])
                removed[block.n_removed_types++] = hit[i].type;
        block.removed_types = removed;
    }
    Worldkit__Ecs__Block *blocks[] = {&block};
    Worldkit__Ecs__State msg = WORLDKIT__ECS__STATE__INIT;
    msg.n_blocks = 1;
    msg.blocks = blocks;
    rc = pack(w, &msg);
done:
    for (size_t c = 0; cols && c < max_cols; c++)
        free(cols[c].values);
    free(cols);
    free(col_ptrs);
    free(parents);
    free(removed);
    return rc;
}

static int emit_entity(writer *w, wk_entity e, bool changed_only)
{
    const wk__record *r = wk__record_of(w->ecm, e);
    source src = {.t = w->ecm->tables[r->table], .row = r->row, .n = 1, .with_sparse = true};
    return emit_block(w, &src, changed_only);
}

static int push_removed(wk_entity_list *removed, const writer *w, const wk__entity_vec *list, bool need_mark)
{
    for (size_t i = 0; i < list->count; i++) {
        wk_entity e = list->items[i];
        const wk__record *r = wk__record_of(w->ecm, e);
        if ((need_mark && (!r || !(r->flags & WK__MARKED))) || !wanted_entity(w, e))
            continue;
        if (wk__list_push(removed, e))
            return WK_NOMEM;
    }
    return WK_OK;
}

/* The free slots as the ids they would hand out next, in the list's order
 * (entity_new reuses from its end); a slot adopted since it was freed is
 * not free. */
static int push_free_slots(wk_entity_list *out, const wk_ecm *ecm)
{
    for (size_t i = 0; i < ecm->free_slots.count; i++) {
        uint32_t index = ecm->free_slots.items[i];
        const wk__record *r = wk__slot_or_null(ecm, index);
        if (r && !(r->flags & WK__ALIVE) && wk__list_push(out, wk__id(index, r->gen)))
            return WK_NOMEM;
    }
    return WK_OK;
}

static int emit_header(writer *w, bool complete, const wk_entity_list *removed, const wk_entity_list *free_slots)
{
    wk_ecm *ecm = w->ecm;
    Worldkit__Ecs__ComponentType *types = calloc(ecm->type_count + 1, sizeof *types);
    Worldkit__Ecs__ComponentType **type_ptrs = calloc(ecm->type_count + 1, sizeof *type_ptrs);
    int rc = WK_NOMEM;
    if (types && type_ptrs) {
        Worldkit__Ecs__State msg = WORLDKIT__ECS__STATE__INIT;
        for (wk_type t = 1; t <= ecm->type_count; t++) {
            if (!w->wanted_type[t])
                continue;
            Worldkit__Ecs__ComponentType *ct = &types[msg.n_types];
            worldkit__ecs__component_type__init(ct);
            ct->has_id = ct->has_size = true;
            ct->id = t;
            ct->name = (char *)ecm->types[t].desc.name;
            ct->size = ecm->types[t].desc.size;
            type_ptrs[msg.n_types++] = ct;
        }
        msg.types = type_ptrs;
        msg.n_removed = removed->count;
        msg.removed = removed->items;
        msg.has_complete = complete;
        msg.complete = complete;
        msg.n_free_slots = free_slots->count;
        msg.free_slots = free_slots->items;
        rc = pack(w, &msg);
    }
    free(types);
    free(type_ptrs);
    return rc;
}

/* A full state of every entity: a block per table, except that rows marked
 * for removal travel in the removed list instead, so tables holding any go
 * row by row. */
static int emit_tables(writer *w)
{
    wk_ecm *ecm = w->ecm;
    bool *has_marked = calloc(ecm->table_count, sizeof *has_marked);
    if (!has_marked)
        return WK_NOMEM;
    for (size_t i = 0; i < ecm->marked.count; i++) {
        const wk__record *r = wk__record_of(ecm, ecm->marked.items[i]);
        if (r && (r->flags & WK__MARKED))
            has_marked[r->table] = true;
    }
    int rc = WK_OK;
    for (uint32_t i = 0; rc == WK_OK && i < ecm->table_count; i++) {
        const wk__table *t = ecm->tables[i];
        if (!t->count)
            continue;
        if (!has_marked[i]) {
            rc = emit_block(w, &(source){.t = t, .n = t->count}, false);
            continue;
        }
        for (uint32_t row = 0; rc == WK_OK && row < t->count; row++)
            if (!(wk__record_of(ecm, t->entities[row])->flags & WK__MARKED))
                rc = emit_block(w, &(source){.t = t, .row = row, .n = 1}, false);
    }
    free(has_marked);
    return rc;
}

/* The rest of a full state: each wanted sparse type's members, a block per
 * run of members not marked for removal. */
static int emit_sparse_sets(writer *w)
{
    const wk_ecm *ecm = w->ecm;
    for (size_t k = 0; k < ecm->sparse_types.count; k++) {
        wk_type type = ecm->sparse_types.items[k];
        const wk__sparse *s = ecm->types[type].sparse;
        for (uint32_t first = 0, end = 0; w->wanted_type[type] && first < s->count; first = end + 1) {
            end = first;
            while (end < s->count && !(wk__record_of(ecm, s->entities[end])->flags & WK__MARKED))
                end++;
            int rc = end > first ? emit_block(w, &(source){.sparse_type = type, .row = first, .n = end - first}, false)
                                 : WK_OK;
            if (rc)
                return rc;
        }
    }
    return WK_OK;
}

/* Emits the listed live, unmarked entities that pass the filter. */
static int emit_listed(writer *w, const wk__entity_vec *list, bool changed_only)
{
    for (size_t i = 0; i < list->count; i++) {
        wk_entity e = list->items[i];
        const wk__record *r = wk__record_of(w->ecm, e);
        if (!r || (r->flags & WK__MARKED) || !wanted_entity(w, e))
            continue;
        int rc = emit_entity(w, e, changed_only);
        if (rc)
            return rc;
    }
    return WK_OK;
}

static int write_state(writer *w)
{
    wk_ecm *ecm = w->ecm;
    const wk_state_desc *d = w->desc;
    wk_entity_list removed = {0}, free_slots = {0};
    int rc = push_removed(&removed, w, &ecm->marked, true);
    if (rc == WK_OK && d->changed_only)
        rc = push_removed(&removed, w, &ecm->destroyed, false);
    bool complete = !d->changed_only && !d->entities && !d->types;
    if (rc == WK_OK && complete)
        rc = push_free_slots(&free_slots, ecm);
    if (rc == WK_OK)
        rc = emit_header(w, complete, &removed, &free_slots);
    wk_entity_list_free(&removed);
    wk_entity_list_free(&free_slots);
    if (rc)
        return rc;
    if (d->changed_only) {
        rc = emit_listed(w, &ecm->created, true);
        return rc ? rc : emit_listed(w, &ecm->touched, true);
    }
    if (!d->entities) {
        rc = emit_tables(w);
        return rc ? rc : emit_sparse_sets(w);
    }
    wk__entity_vec listed = {.items = w->filter, .count = d->entity_count};
    return emit_listed(w, &listed, false);
}

int wk_ecm_state(wk_ecm *ecm, const wk_state_desc *desc, wk_buf *out)
{
    static const wk_state_desc everything = {0};
    writer w = {.ecm = ecm, .out = out, .desc = desc ? desc : &everything};
    int rc = WK_NOMEM;
    w.wanted_type = calloc(ecm->type_count + 1, sizeof *w.wanted_type);
    if (!w.wanted_type)
        goto done;
    for (wk_type t = 1; t <= ecm->type_count; t++)
        w.wanted_type[t] = !w.desc->types;
    for (size_t i = 0; w.desc->types && i < w.desc->type_count; i++) {
        wk_type t = w.desc->types[i];
        if (t == WK_NO_TYPE || t > ecm->type_count) {
            rc = wk__ecm_fail(ecm, WK_INVALID, "state: component type %u is not registered", t);
            goto done;
        }
        w.wanted_type[t] = true;
    }
    if (w.desc->entities) {
        w.filter = malloc((w.desc->entity_count ? w.desc->entity_count : 1) * sizeof *w.filter);
        if (!w.filter)
            goto done;
        memcpy(w.filter, w.desc->entities, w.desc->entity_count * sizeof *w.filter);
        qsort(w.filter, w.desc->entity_count, sizeof *w.filter, cmp_u64);
    }
    if (w.desc->changed_only && ecm->removed_components.count) {
        size_t n = ecm->removed_components.count;
        w.removals = malloc(n * sizeof *w.removals);
        if (!w.removals)
            goto done;
        memcpy(w.removals, ecm->removed_components.items, n * sizeof *w.removals);
        qsort(w.removals, n, sizeof *w.removals, cmp_removal);
        w.removal_count = n;
    }
    size_t start = out->len;
    rc = write_state(&w);
    if (rc) {
        out->len = start;
        wk__ecm_fail(ecm, rc, "serializing state: %s", wk_strerror(rc));
    }
done:
    if (rc == WK_NOMEM)
        wk__ecm_fail(ecm, rc, "out of memory serializing state");
    free(w.wanted_type);
    free(w.filter);
    free(w.removals);
    wk_buf_free(&w.scratch);
    return rc;
}
