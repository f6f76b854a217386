/* pose_cache.c — world poses cached per entity, filled lazily by readers
 * and invalidated per subtree by writers.
 *
 * Readers may run in parallel (the store holds a world's read lock): a
 * clean read is two atomic loads and a copy; a miss fills the chain of
 * missing ancestors under the fill lock. Writers hold the world exclusively,
 * so invalidation needs no lock. */
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/mem.h"
#include "scene/scene_internal.h"

/* The most slots a segment may have beyond the entities a world holds.
 * Worlds fill their ids from the bottom and reuse freed ones, so their
 * slots lie below about their count; a state adopting sparse ids (one near
 * 2^24 made a segment of 1 GB, zeroed at once: fuzz_scene grew past 2 GB in
 * a few thousand inputs) gets no segment past that, its poses computed on
 * each read instead. */
#define SEGMENT_SLACK 4096

static wk__pose_slot *slot_ensure(wk__pose_cache *c, const wk_ecm *ecm, wk_entity e)
{
    wk__pose_slot *slot = wk__pose_slot_of(c, e);
    if (slot || !(uint32_t)e)
        return slot;
    unsigned k = wk__log2((uint32_t)e);
    if (((size_t)1 << k) > 2 * wk_ecm_count(ecm) + SEGMENT_SLACK)
        return NULL;
    /* A slot is a cache line: aligned, a read of a pose is one miss. */
    size_t bytes = ((size_t)1 << k) * sizeof(wk__pose_slot);
    wk__pose_slot *seg = wk__mem_resize(NULL, 0, bytes, WK__POSE_SLOT_ALIGN);
    if (!seg)
        return NULL;
    memset(seg, 0, bytes);
    atomic_store_explicit(&c->segments[k], seg, memory_order_release);
    return &seg[(uint32_t)e - (1u << k)];
}

int wk__pose_cache_init(wk__pose_cache *c)
{
    memset(c, 0, sizeof *c);
    return pthread_mutex_init(&c->fill, NULL) ? WK_NOMEM : WK_OK;
}

void wk__pose_cache_free(wk__pose_cache *c)
{
    for (unsigned k = 0; k < WK__POSE_SEGMENTS; k++)
        wk__mem_free(atomic_load(&c->segments[k]), ((size_t)1 << k) * sizeof(wk__pose_slot));
    free(c->chain);
    pthread_mutex_destroy(&c->fill);
}

void wk__pose_cache_clear(wk__pose_cache *c)
{
    for (unsigned k = 0; k < WK__POSE_SEGMENTS; k++) {
        wk__pose_slot *seg = atomic_load(&c->segments[k]);
        for (size_t i = 0; seg && i < (size_t)1 << k; i++)
            atomic_store_explicit(&seg[i].valid_for, 0, memory_order_relaxed);
    }
}

static bool valid(const wk__pose_slot *slot, wk_entity e)
{
    return slot && atomic_load_explicit(&slot->valid_for, memory_order_acquire) == e;
}

static wk_pose local_pose(const wk_scene *s, wk_entity e)
{
    const wk_pose *p = wk_ecm_get(s->ecm, e, s->types.parent_pose);
    return p ? *p : wk_pose_identity();
}

/* Fills the slots of e and of its uncached ancestors, top down, and returns
 * e's pose. Called with the fill lock held. */
static wk_pose fill(const wk_scene *s, wk_entity e)
{
    wk__pose_cache *c = (wk__pose_cache *)&s->poses; /* the cache is not the scene's state */
    size_t n = 0;
    wk_entity x = e;
    for (; x && !valid(wk__pose_slot_of(c, x), x); x = wk_ecm_parent(s->ecm, x)) {
        if (WK__GROW(c->chain, c->chain_cap, n + 1))
            return wk_scene_world_pose(s, e); /* correct, just not cached */
        c->chain[n++] = x;
    }
    wk_pose pose = x ? wk__pose_slot_of(c, x)->pose : wk_pose_identity();
    while (n--) {
        wk_entity y = c->chain[n];
        pose = wk_pose_compose(pose, local_pose(s, y));
        wk__pose_slot *slot = slot_ensure(c, s->ecm, y);
        if (slot) {
            slot->pose = pose;
            atomic_store_explicit(&slot->valid_for, y, memory_order_release);
        }
    }
    return pose;
}

wk_pose wk__pose_fill(const wk_scene *s, wk_entity e)
{
    pthread_mutex_t *lock = (pthread_mutex_t *)&s->poses.fill;
    pthread_mutex_lock(lock);
    wk_pose pose = fill(s, e);
    pthread_mutex_unlock(lock);
    return pose;
}

/* Clears e's slot; true when it was valid, so its subtree may hold valid
 * slots too. */
static bool forget(wk_scene *s, wk_entity e)
{
    wk__pose_slot *slot = wk__pose_slot_of(&s->poses, e);
    if (!valid(slot, e))
        return false;
    atomic_store_explicit(&slot->valid_for, 0, memory_order_relaxed);
    return true;
}

void wk__pose_invalidate(wk_scene *s, wk_entity e)
{
    if (!forget(s, e))
        return;
    /* Depth first over the subtree, without a stack: down to the first
     * child, else across to the next sibling, else up until one has one. */
    wk_entity x = wk_ecm_first_child(s->ecm, e);
    while (x) {
        wk_entity next = forget(s, x) ? wk_ecm_first_child(s->ecm, x) : WK_NULL_ENTITY;
        while (!next && x != e) {
            next = wk_ecm_next_sibling(s->ecm, x);
            if (!next)
                x = wk_ecm_parent(s->ecm, x);
            else
                break;
        }
        if (x == e && !next)
            break;
        x = next;
    }
}
