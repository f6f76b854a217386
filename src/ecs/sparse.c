/* sparse.c — storage of the types registered as sparse (wk_type_desc.sparse):
 * one sparse set per type, outside the archetype tables. Adding such a
 * component appends to the set's dense arrays and removing it moves the
 * set's last member into the hole, so neither touches the entity's row:
 * that is what makes a component added and removed on the fly cheap. The
 * dense order is kept exactly as the operations leave it, and
 * wk__sparse_reopen undoes a removal in place, so a transaction's rollback
 * restores it (as it restores table rows). */
#include "ecm_internal.h"

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

wk__sparse *wk__sparse_new(size_t size, size_t align)
{
    wk__sparse *s = calloc(1, sizeof *s);
    if (s) {
        s->size = size;
        s->align = align;
    }
    return s;
}

void wk__sparse_free(const wk_ecm *ecm, wk_type type, wk__sparse *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; s->data && i < s->count; i++)
        wk__table_destroy_value(ecm, type, wk__sparse_cell(s, i));
    wk__mem_free(s->map, (size_t)s->map_len * sizeof *s->map);
    wk__mem_free(s->entities, (size_t)s->cap * sizeof *s->entities);
    wk__mem_free(s->data, (size_t)s->cap * s->size);
    wk__mem_free(s->change, s->cap);
    free(s);
}

/* Moves the dense arrays to new ones of cap members, all or nothing. */
static int grow(wk__sparse *s, uint32_t cap)
{
    size_t count = s->count;
    wk_entity *entities = wk__mem_resize(NULL, 0, (size_t)cap * sizeof *entities, 8);
    uint8_t *change = wk__mem_resize(NULL, 0, cap, 1);
    uint8_t *data = s->size ? wk__mem_resize(NULL, 0, (size_t)cap * s->size, s->align) : NULL;
    if (!entities || !change || (s->size && !data)) {
        wk__mem_free(entities, (size_t)cap * sizeof *entities);
        wk__mem_free(change, cap);
        wk__mem_free(data, (size_t)cap * s->size);
        return WK_NOMEM;
    }
    if (count) {
        memcpy(entities, s->entities, count * sizeof *entities);
        memcpy(change, s->change, count);
        if (data)
            memcpy(data, s->data, count * s->size);
    }
    wk__mem_free(s->entities, (size_t)s->cap * sizeof *entities);
    wk__mem_free(s->change, s->cap);
    wk__mem_free(s->data, (size_t)s->cap * s->size);
    s->entities = entities;
    s->change = change;
    s->data = data;
    s->cap = cap;
    return WK_OK;
}

/* A map of len slots built from the members of s, which may be far fewer
 * than the slots: only their pages are touched. NULL when out of memory. */
static uint32_t *map_of_members(const wk__sparse *s, size_t len)
{
    uint32_t *map = wk__mem_zalloc(len * sizeof *map);
    for (uint32_t i = 0; map && i < s->count; i++)
        map[wk__index(s->entities[i])] = i + 1;
    return map;
}

int wk__sparse_reserve(wk__sparse *s, uint32_t index)
{
    if (index >= s->map_len) {
        /* The next power of two above index, at least 64 slots. A big map
         * is a fresh mapping whose pages cost nothing until written, so a
         * world with a high create offset does not pay for the slots below
         * it; and the new map is built from the members, not copied from
         * the old. */
        uint64_t len = 64;
        while (len <= index)
            len *= 2;
        if (len > UINT32_MAX)
            len = UINT32_MAX;
        uint32_t *map = map_of_members(s, len);
        if (!map)
            return WK_NOMEM;
        wk__mem_free(s->map, (size_t)s->map_len * sizeof *s->map);
        s->map = map;
        s->map_len = (uint32_t)len;
    }
    if (s->count < s->cap)
        return WK_OK;
    if (s->cap >= UINT32_MAX / 2)
        return WK_NOMEM;
    return grow(s, s->cap ? s->cap * 2 : 64);
}

bool wk__sparse_holds(const wk__sparse *s, const void *p)
{
    const uint8_t *q = p;
    return s->data && q >= s->data && q < s->data + (size_t)s->cap * s->size;
}

void wk__sparse_reopen(wk__sparse *s, uint32_t pos, wk_entity e, const void *value, uint8_t change)
{
    uint32_t end = s->count++;
    if (pos != end)
        wk__sparse_place(s, end, s->entities[pos], wk__sparse_cell(s, pos), s->change[pos]);
    wk__sparse_place(s, pos, e, value, change);
}

wk__sparse *wk__sparse_clone(const wk_ecm *ecm, wk_type type, const wk__sparse *src)
{
    wk__sparse *s = wk__sparse_new(src->size, src->align);
    if (!s || grow(s, src->count ? src->count : 1))
        goto fail;
    /* Without members the map is left for the first add to make. */
    if (src->count) {
        if (!(s->map = map_of_members(src, src->map_len)))
            goto fail;
        s->map_len = src->map_len;
    }
    memcpy(s->entities, src->entities, (size_t)src->count * sizeof *s->entities);
    memcpy(s->change, src->change, src->count);
    const wk_type_hooks *h = &ecm->types[type].desc.hooks;
    int (*copy)(void *, const void *) = h->share ? h->share : h->copy;
    if (s->size && !copy)
        memcpy(s->data, src->data, (size_t)src->count * s->size);
    for (; s->size && copy && s->count < src->count; s->count++)
        if (copy(wk__sparse_cell(s, s->count), wk__sparse_cell(src, s->count)))
            goto fail;
    s->count = src->count;
    return s;

fail:
    wk__sparse_free(ecm, type, s);
    return NULL;
}

size_t wk__sparse_count_of(const wk_ecm *ecm, wk_entity e)
{
    size_t n = 0;
    for (size_t i = 0; i < ecm->sparse_types.count; i++)
        n += wk__sparse_pos(ecm, ecm->sparse_types.items[i], wk__index(e)) != 0;
    return n;
}

int wk__sparse_drop_entity(wk_ecm *ecm, wk_entity e)
{
    for (size_t i = 0; i < ecm->sparse_types.count; i++) {
        wk_type type = ecm->sparse_types.items[i];
        if (!wk__sparse_pos(ecm, type, wk__index(e)))
            continue;
        void *removed = NULL;
        if (ecm->txn && wk__txn_note_move(ecm, e, wk__record_of(ecm, e), type, false, &removed))
            return WK_NOMEM;
        wk__sparse_remove(ecm, type, e, removed);
    }
    return WK_OK;
}
