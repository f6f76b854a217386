/* entities.c — entity ids: slot allocation with generations, the create
 * offset, adopting a given id, and freeing an entity's slot. */
#include "ecm_internal.h"

#include <stdlib.h>

/* Makes sure the page holding slot index exists (and its links page, when the
 * graph is in use). */
int wk__slot_reserve(wk_ecm *ecm, uint32_t index)
{
    uint32_t page = index >> WK__PAGE_BITS;
    if (page >= ecm->page_count) {
        uint32_t count = page + 1;
        wk__record **pages = realloc(ecm->pages, count * sizeof *pages);
        if (!pages)
            return WK_NOMEM;
        ecm->pages = pages;
        wk__link **links = realloc(ecm->link_pages, count * sizeof *links);
        if (!links)
            return WK_NOMEM;
        ecm->link_pages = links;
        for (uint32_t p = ecm->page_count; p < count; p++)
            pages[p] = NULL, links[p] = NULL;
        ecm->page_count = count;
    }
    if (!ecm->pages[page]) {
        ecm->pages[page] = calloc(WK__PAGE_SIZE, sizeof(wk__record));
        if (!ecm->pages[page])
            return WK_NOMEM;
    }
    return WK_OK;
}

static bool slot_alive(const wk_ecm *ecm, uint32_t index)
{
    uint32_t page = index >> WK__PAGE_BITS;
    return page < ecm->page_count && ecm->pages[page] && (wk__slot(ecm, index)->flags & WK__ALIVE);
}

/* Brings slot index to life as entity (index, gen) in the root table. */
static int slot_enliven(wk_ecm *ecm, uint32_t index, uint32_t gen)
{
    wk_entity e = wk__id(index, gen);
    if (WK__VEC_PUSH(ecm->created, e))
        return WK_NOMEM;
    int64_t row = wk__table_append(ecm->tables[0], e);
    if (row < 0) {
        ecm->created.count--;
        return WK_NOMEM;
    }
    *wk__slot(ecm, index) = (wk__record){.table = 0, .row = (uint32_t)row, .gen = gen, .flags = WK__ALIVE | WK__NEW};
    ecm->alive++;
    return WK_OK;
}

wk_entity wk_ecm_create(wk_ecm *ecm)
{
    /* Reuse a freed slot first; it may have been adopted since it was freed,
     * or lie below a create offset set since, so check before taking it. */
    while (ecm->free_slots.count) {
        uint32_t index = ecm->free_slots.items[--ecm->free_slots.count];
        if (index < ecm->min_index || slot_alive(ecm, index))
            continue;
        if (slot_enliven(ecm, index, wk__slot(ecm, index)->gen)) {
            ecm->free_slots.count++;
            wk__ecm_fail(ecm, WK_NOMEM, "out of memory creating an entity");
            return WK_NULL_ENTITY;
        }
        return wk__id(index, wk__slot(ecm, index)->gen);
    }
    while (ecm->next_index != UINT32_MAX && slot_alive(ecm, ecm->next_index))
        ecm->next_index++;
    uint32_t index = ecm->next_index;
    if (index == UINT32_MAX) {
        wk__ecm_fail(ecm, WK_RANGE, "entity slots exhausted");
        return WK_NULL_ENTITY;
    }
    if (wk__slot_reserve(ecm, index) || slot_enliven(ecm, index, wk__slot(ecm, index)->gen)) {
        wk__ecm_fail(ecm, WK_NOMEM, "out of memory creating an entity");
        return WK_NULL_ENTITY;
    }
    ecm->next_index++;
    return wk__id(index, wk__slot(ecm, index)->gen);
}

int wk_ecm_set_create_offset(wk_ecm *ecm, uint64_t offset)
{
    if (offset == 0 || offset >= UINT32_MAX)
        return wk__ecm_fail(ecm, WK_RANGE, "entity create offset %llu is outside [1, 2^32)",
                            (unsigned long long)offset);
    ecm->min_index = (uint32_t)offset;
    ecm->next_index = (uint32_t)offset;
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

int wk__entity_adopt(wk_ecm *ecm, wk_entity e)
{
    uint32_t index = wk__index(e);
    if (index == 0)
        return wk__ecm_fail(ecm, WK_INVALID, "entity id %llu has slot 0, which is never used",
                            (unsigned long long)e);
    if (slot_alive(ecm, index)) {
        if (wk__slot(ecm, index)->gen == wk__gen(e))
            return WK_OK;
        return wk__ecm_fail(ecm, WK_EXISTS, "entity %llu: its slot holds entity %llu",
                            (unsigned long long)e,
                            (unsigned long long)wk__id(index, wk__slot(ecm, index)->gen));
    }
    if (wk__slot_reserve(ecm, index) || slot_enliven(ecm, index, wk__gen(e)))
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory adopting entity %llu", (unsigned long long)e);
    return WK_OK;
}

void wk__entity_free(wk_ecm *ecm, wk_entity e)
{
    wk__record *r = wk__record_of(ecm, e);
    uint32_t index = wk__index(e);
    wk__table_delete_row(ecm, ecm->tables[r->table], r->row);
    wk__unlink(ecm, index);
    *r = (wk__record){.gen = r->gen + 1};
    ecm->alive--;
    /* A slot that cannot go back on the free list is simply never reused. */
    (void)WK__VEC_PUSH(ecm->free_slots, index);
}

int wk__touch(wk_ecm *ecm, wk__record *r, wk_entity e)
{
    if (r->flags & (WK__NEW | WK__TOUCHED))
        return WK_OK;
    if (WK__VEC_PUSH(ecm->touched, e))
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory tracking a change of entity %llu",
                            (unsigned long long)e);
    r->flags |= WK__TOUCHED;
    return WK_OK;
}
