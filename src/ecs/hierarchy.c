/* hierarchy.c — the parent/child forest. Links are kept by slot index, a
 * segment of the slot space at a time (see ecm_internal.h), allocated only
 * once an entity in it gets a parent, so worlds that never use the graph
 * pay nothing for it. */
#include "ecm_internal.h"

#include "base/grow.h"
#include "base/mem.h"

#include <stdint.h>
#include <stdlib.h>

int wk__list_push(wk_entity_list *list, wk_entity e)
{
    /* malloc'd, not a large array: callers free lists with free(). */
    if (WK__GROW(list->items, list->cap, list->count + 1))
        return WK_NOMEM;
    list->items[list->count++] = e;
    return WK_OK;
}

wk__link *wk__link_of(const wk_ecm *ecm, uint32_t index)
{
    uint32_t k = wk__segment(index);
    wk__link *seg = ecm->link_segments[k];
    return seg ? &seg[index - (1u << k)] : NULL;
}

static wk__link *link_ensure(wk_ecm *ecm, uint32_t index)
{
    uint32_t k = wk__segment(index);
    wk__link **seg = &ecm->link_segments[k];
    if (!*seg)
        *seg = wk__mem_zalloc(wk__segment_len(k) * sizeof(wk__link));
    if (!*seg)
        return NULL;
    ecm->links_used = true;
    return &(*seg)[index - (1u << k)];
}

/* Takes slot index out of its parent's child list and clears its parent and
 * sibling links; its own children stay. */
void wk__link_detach(wk_ecm *ecm, uint32_t index)
{
    wk__link *l = wk__link_of(ecm, index);
    if (!l || !l->parent)
        return;
    wk__link *p = wk__link_of(ecm, l->parent);
    if (l->prev)
        wk__link_of(ecm, l->prev)->next = l->next;
    else
        p->first_child = l->next;
    if (l->next)
        wk__link_of(ecm, l->next)->prev = l->prev;
    else
        p->last_child = l->prev;
    l->parent = l->prev = l->next = 0;
}

/* Makes slot index (detached, its link allocated) a child of parent, between
 * the adjacent children prev and next (0: the list's start or end). */
void wk__link_insert(wk_ecm *ecm, uint32_t index, uint32_t parent, uint32_t prev, uint32_t next)
{
    wk__link *l = wk__link_of(ecm, index), *p = wk__link_of(ecm, parent);
    l->parent = parent;
    l->prev = prev;
    l->next = next;
    if (prev)
        wk__link_of(ecm, prev)->next = index;
    else
        p->first_child = index;
    if (next)
        wk__link_of(ecm, next)->prev = index;
    else
        p->last_child = index;
}

/* Detaches slot index from its parent and its children from it, and clears
 * its links. */
void wk__unlink(wk_ecm *ecm, uint32_t index)
{
    wk__link *l = wk__link_of(ecm, index);
    if (!l)
        return;
    wk__link_detach(ecm, index);
    for (uint32_t c = l->first_child; c;) {
        wk__link *child = wk__link_of(ecm, c);
        c = child->next;
        child->parent = child->next = child->prev = 0;
    }
    *l = (wk__link){0};
}

static wk_entity entity_at(const wk_ecm *ecm, uint32_t index)
{
    return index ? wk__id(index, wk__slot(ecm, index)->gen) : WK_NULL_ENTITY;
}

int wk_ecm_set_parent(wk_ecm *ecm, wk_entity child, wk_entity parent)
{
    wk__record *r = wk__record_of(ecm, child);
    if (!r)
        return wk__ecm_fail(ecm, WK_STALE, "cannot set the parent of entity %llu: it does not exist",
                            (unsigned long long)child);
    if (parent && !wk__record_of(ecm, parent))
        return wk__ecm_fail(ecm, WK_STALE, "cannot make entity %llu the parent of %llu: it does not exist",
                            (unsigned long long)parent, (unsigned long long)child);
    uint32_t ci = wk__index(child), pi = wk__index(parent);
    for (uint32_t a = pi; a; a = wk__link_of(ecm, a) ? wk__link_of(ecm, a)->parent : 0)
        if (a == ci)
            return wk__ecm_fail(ecm, WK_INVALID, "entity %llu cannot be the parent of %llu, its ancestor",
                                (unsigned long long)parent, (unsigned long long)child);
    const wk__link *current = wk__link_of(ecm, ci);
    if ((current ? current->parent : 0) == pi)
        return WK_OK;
    wk__link *cl = link_ensure(ecm, ci);
    wk__link *pl = pi ? link_ensure(ecm, pi) : NULL;
    if (!cl || (pi && !pl) || (ecm->txn && wk__txn_note_parent(ecm, child, cl)))
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory setting the parent of entity %llu",
                            (unsigned long long)child);
    if (wk__touch(ecm, r, child)) {
        if (ecm->txn)
            wk__txn_drop(ecm);
        return WK_NOMEM;
    }
    /* The child keeps its own children. */
    wk__link_detach(ecm, ci);
    if (pi)
        wk__link_insert(ecm, ci, pi, pl->last_child, 0);
    ecm->version++;
    return WK_OK;
}

wk_entity wk_ecm_parent(const wk_ecm *ecm, wk_entity e)
{
    if (!wk__record_of(ecm, e))
        return WK_NULL_ENTITY;
    const wk__link *l = wk__link_of(ecm, wk__index(e));
    return l ? entity_at(ecm, l->parent) : WK_NULL_ENTITY;
}

wk_entity wk_ecm_first_child(const wk_ecm *ecm, wk_entity e)
{
    const wk__link *l = wk__record_of(ecm, e) ? wk__link_of(ecm, wk__index(e)) : NULL;
    return l ? entity_at(ecm, l->first_child) : WK_NULL_ENTITY;
}

wk_entity wk_ecm_next_sibling(const wk_ecm *ecm, wk_entity e)
{
    const wk__link *l = wk__record_of(ecm, e) ? wk__link_of(ecm, wk__index(e)) : NULL;
    return l ? entity_at(ecm, l->next) : WK_NULL_ENTITY;
}

static int push_children(const wk_ecm *ecm, uint32_t index, wk_entity_list *out)
{
    const wk__link *l = wk__link_of(ecm, index);
    for (uint32_t c = l ? l->first_child : 0; c; c = wk__link_of(ecm, c)->next)
        if (wk__list_push(out, entity_at(ecm, c)))
            return WK_NOMEM;
    return WK_OK;
}

int wk_ecm_children(const wk_ecm *ecm, wk_entity e, wk_entity_list *out)
{
    if (!wk__record_of(ecm, e))
        return wk__ecm_fail(ecm, WK_STALE, "entity %llu does not exist", (unsigned long long)e);
    if (push_children(ecm, wk__index(e), out))
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory listing children of %llu", (unsigned long long)e);
    return WK_OK;
}

/* Breadth first: out doubles as the queue, so parents precede children. */
int wk__descendants(const wk_ecm *ecm, wk_entity e, wk_entity_list *out)
{
    size_t start = out->count;
    if (wk__list_push(out, e))
        return WK_NOMEM;
    for (size_t i = start; i < out->count; i++)
        if (push_children(ecm, wk__index(out->items[i]), out))
            return WK_NOMEM;
    return WK_OK;
}

int wk_ecm_descendants(const wk_ecm *ecm, wk_entity e, wk_entity_list *out)
{
    if (!wk__record_of(ecm, e))
        return wk__ecm_fail(ecm, WK_STALE, "entity %llu does not exist", (unsigned long long)e);
    if (wk__descendants(ecm, e, out))
        return wk__ecm_fail(ecm, WK_NOMEM, "out of memory listing descendants of %llu", (unsigned long long)e);
    return WK_OK;
}
