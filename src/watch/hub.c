/* hub.c — the hub's record of each watched world's changes: which entity
 * was created or changed at which version, which component type changed
 * last when, and the recent removals. A publish turns the ECM's step facts
 * (wk_ecm_step_facts) into that record under the hub's lock, costing
 * O(changes); watcher.c reads it back into messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "watch/watch_internal.h"

wk_watch_hub *wk_watch_hub_new(void)
{
    wk_watch_hub *hub = calloc(1, sizeof *hub);
    if (!hub)
        return NULL;
    if (pthread_mutex_init(&hub->lock, NULL))
        goto fail_free;
    if (pthread_cond_init(&hub->changed, NULL))
        goto fail_destroy_lock;
    return hub;

fail_destroy_lock:
    pthread_mutex_destroy(&hub->lock);
fail_free:
    free(hub);
    return NULL;
}

/* Forgets what the channel recorded: its marks, types and removals. */
static void forget(wk__channel *c)
{
    c->mark_count = 0;
    wk__index_clear(&c->by_entity);
    if (c->type_cap)
        memset(c->type_changed, 0, c->type_cap * sizeof *c->type_changed);
    c->removal_count = 0;
}

void wk_watch_hub_free(wk_watch_hub *hub)
{
    if (!hub)
        return;
    for (size_t i = 0; i < hub->count; i++) {
        wk__channel *c = hub->channels[i];
        free(c->marks);
        wk__index_free(&c->by_entity);
        free(c->type_changed);
        free(c->removals);
        free(c);
    }
    free(hub->channels);
    pthread_cond_destroy(&hub->changed);
    pthread_mutex_destroy(&hub->lock);
    free(hub);
}

static wk__channel *find(const wk_watch_hub *hub, const char *world_id)
{
    for (size_t i = 0; i < hub->count; i++)
        if (!strcmp(hub->channels[i]->id, world_id))
            return hub->channels[i];
    return NULL;
}

wk__channel *wk__channel_of(wk_watch_hub *hub, const char *world_id)
{
    wk__channel *c = find(hub, world_id);
    if (c)
        return c;
    if (WK__GROW(hub->channels, hub->cap, hub->count + 1))
        return NULL;
    c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    snprintf(c->id, sizeof c->id, "%s", world_id);
    hub->channels[hub->count++] = c;
    return c;
}

static uint64_t entity_hash(wk_entity e)
{
    return wk__hash(&e, sizeof e, 0);
}

static size_t mark_place(const wk__channel *c, wk_entity e)
{
    size_t cursor = 0;
    for (uint64_t v; (v = wk__index_next(&c->by_entity, entity_hash(e), &cursor));)
        if (c->marks[v - 1].entity == e)
            return (size_t)v;
    return 0;
}

const wk__mark *wk__channel_mark(const wk__channel *c, wk_entity e)
{
    size_t place = mark_place(c, e);
    return place ? &c->marks[place - 1] : NULL;
}

/* The entity's mark, made when missing; NULL when out of memory. */
static wk__mark *mark_of(wk__channel *c, wk_entity e)
{
    size_t place = mark_place(c, e);
    if (place)
        return &c->marks[place - 1];
    if (WK__GROW(c->marks, c->mark_cap, c->mark_count + 1))
        return NULL;
    if (wk__index_add(&c->by_entity, entity_hash(e), c->mark_count + 1))
        return NULL;
    c->marks[c->mark_count] = (wk__mark){.entity = e};
    return &c->marks[c->mark_count++];
}

/* Drops the entity's mark: the last mark takes its place. */
static void unmark(wk__channel *c, wk_entity e)
{
    size_t place = mark_place(c, e);
    if (!place)
        return;
    wk__index_remove(&c->by_entity, entity_hash(e), place);
    size_t last = c->mark_count--;
    if (place == last)
        return;
    wk__mark moved = c->marks[last - 1];
    wk__index_remove(&c->by_entity, entity_hash(moved.entity), last);
    /* Cannot fail: the pair just removed freed its room. */
    wk__index_add(&c->by_entity, entity_hash(moved.entity), place);
    c->marks[place - 1] = moved;
}

/* Records a removal; past the log's bound the older half goes, and
 * watchers that had not seen it take a full state. */
static int log_removal(wk__channel *c, wk_entity e, wk_type type)
{
    if (c->removal_count == WK_WATCH_REMOVALS_MAX) {
        size_t half = WK_WATCH_REMOVALS_MAX / 2;
        uint64_t cut = c->removals[half - 1].version;
        c->full_below = cut > c->full_below ? cut : c->full_below;
        memmove(c->removals, c->removals + half, (c->removal_count - half) * sizeof *c->removals);
        c->removal_count -= half;
    }
    if (WK__GROW(c->removals, c->removal_cap, c->removal_count + 1))
        return WK_NOMEM;
    c->removals[c->removal_count++] = (wk__removal){.entity = e, .type = type, .version = c->version};
    return WK_OK;
}

static int note_type(wk__channel *c, wk_type type)
{
    if (type >= c->type_cap) {
        size_t old_cap = c->type_cap;
        if (WK__GROW(c->type_changed, c->type_cap, (size_t)type + 1))
            return WK_NOMEM;
        memset(c->type_changed + old_cap, 0, (c->type_cap - old_cap) * sizeof *c->type_changed);
    }
    c->type_changed[type] = c->version;
    return WK_OK;
}

typedef struct noting {
    wk__channel *channel;
    bool lost; /* out of memory: a fact went unrecorded */
} noting;

static void note(wk_entity e, wk_step_fact fact, wk_type type, void *ctx)
{
    noting *n = ctx;
    wk__channel *c = n->channel;
    wk__mark *m;
    switch (fact) {
    case WK_STEP_CREATED:
        if ((m = mark_of(c, e)))
            m->created = m->changed = c->version;
        n->lost |= !m;
        break;
    case WK_STEP_TOUCHED:
        if (type != WK_NO_TYPE) {
            n->lost |= note_type(c, type) != WK_OK;
        } else if ((m = mark_of(c, e))) {
            m->changed = c->version;
        } else {
            n->lost = true;
        }
        break;
    case WK_STEP_COMPONENT_REMOVED:
        n->lost |= log_removal(c, e, type) != WK_OK;
        break;
    case WK_STEP_REMOVED:
        unmark(c, e);
        n->lost |= log_removal(c, e, WK_NO_TYPE) != WK_OK;
        break;
    }
}

/* Whether the ECM holds anything to record: a fact at all. */
static void any_fact(wk_entity e, wk_step_fact fact, wk_type type, void *ctx)
{
    (void)e, (void)fact, (void)type;
    *(bool *)ctx = true;
}

void wk_watch_publish(wk_watch_hub *hub, const char *world_id, const wk_ecm *ecm, const wk_watch_clock *clock)
{
    pthread_mutex_lock(&hub->lock);
    wk__channel *c = find(hub, world_id);
    if (!c || !c->watchers) {
        pthread_mutex_unlock(&hub->lock);
        return;
    }
    if (clock)
        c->clock = *clock;
    if (!c->ecm) {
        c->ecm = ecm; /* the first since the record began */
    } else if (c->ecm != ecm) {
        /* Another ECM than the one the marks are of: the world was
         * replaced without word (wk_watch_reset); start again from it. */
        forget(c);
        c->ecm = ecm;
        c->full_below = ++c->version;
        pthread_cond_broadcast(&hub->changed);
    }
    bool any = false;
    wk_ecm_step_facts(ecm, any_fact, &any);
    if (any) {
        c->version++;
        noting n = {.channel = c};
        wk_ecm_step_facts(ecm, note, &n);
        if (n.lost)
            c->full_below = ++c->version;
        pthread_cond_broadcast(&hub->changed);
    }
    pthread_mutex_unlock(&hub->lock);
}

void wk_watch_reset(wk_watch_hub *hub, const char *world_id)
{
    pthread_mutex_lock(&hub->lock);
    wk__channel *c = find(hub, world_id);
    if (c && c->watchers) {
        forget(c);
        c->ecm = NULL;
        c->full_below = ++c->version;
        pthread_cond_broadcast(&hub->changed);
    }
    pthread_mutex_unlock(&hub->lock);
}

void wk_watch_hub_wake(wk_watch_hub *hub)
{
    pthread_mutex_lock(&hub->lock);
    hub->wakes++;
    pthread_cond_broadcast(&hub->changed);
    pthread_mutex_unlock(&hub->lock);
}
