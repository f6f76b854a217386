/* watcher.c — a watcher's subscription and its messages. A message is made
 * when the watcher asks for one, from its world's record (hub.c) and the
 * world's current values: the entities created since the version it took
 * (every component), those changed since (the component types that changed
 * since), and the removals since; or the full state when it has taken none
 * yet or fell behind what the record reaches back to. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "watch/watch_internal.h"
#include "worldkit/ecs_state.pb-c.h"
#include "worldkit/watch.pb-c.h"

wk_watcher *wk_watch_subscribe(wk_watch_hub *hub, const wk_watch_desc *desc)
{
    wk_watcher *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->hub = hub;
    w->subtree = desc->subtree;
    if (desc->kinds) {
        w->kinds = calloc(desc->kind_count ? desc->kind_count : 1, sizeof *w->kinds);
        if (!w->kinds)
            goto fail_free;
        for (; w->kind_count < desc->kind_count; w->kind_count++)
            if (!(w->kinds[w->kind_count] = strdup(desc->kinds[w->kind_count])))
                goto fail_free;
    }
    pthread_mutex_lock(&hub->lock);
    w->channel = wk__channel_of(hub, desc->world_id ? desc->world_id : "");
    if (w->channel && w->channel->watchers++ == 0) {
        /* Nothing was recorded while nobody watched: what is there is old. */
        w->channel->mark_count = 0;
        wk__index_clear(&w->channel->by_entity);
        w->channel->removal_count = 0;
    }
    pthread_mutex_unlock(&hub->lock);
    if (!w->channel)
        goto fail_free;
    return w;

fail_free:
    for (size_t i = 0; i < w->kind_count; i++)
        free(w->kinds[i]);
    free(w->kinds);
    free(w);
    return NULL;
}

void wk_watcher_free(wk_watcher *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->hub->lock);
    w->channel->watchers--;
    pthread_mutex_unlock(&w->hub->lock);
    for (size_t i = 0; i < w->kind_count; i++)
        free(w->kinds[i]);
    free(w->kinds);
    free(w);
}

static bool pending(const wk_watcher *w)
{
    return !w->started || w->channel->version != w->seen;
}

bool wk_watch_wait(wk_watcher *w, double seconds)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long long ns = until.tv_nsec + (long long)(seconds * 1e9);
    until.tv_sec += (time_t)(ns / 1000000000);
    until.tv_nsec = (long)(ns % 1000000000);
    pthread_mutex_lock(&w->hub->lock);
    uint64_t wakes = w->hub->wakes;
    int rc = 0;
    while (!pending(w) && w->hub->wakes == wakes && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&w->hub->changed, &w->hub->lock, &until);
    bool any = pending(w);
    pthread_mutex_unlock(&w->hub->lock);
    return any;
}

/* What one message holds, gathered under the hub's lock. */
typedef struct gather {
    bool full;
    uint64_t version, base;
    wk_watch_clock clock;
    wk_entity_list created, changed, removed;
    wk__removal *dropped; /* components removed */
    size_t dropped_count;
    wk_type *types; /* the types changed since base */
    size_t type_count;
} gather;

static void gather_free(gather *g)
{
    wk_entity_list_free(&g->created);
    wk_entity_list_free(&g->changed);
    wk_entity_list_free(&g->removed);
    free(g->dropped);
    free(g->types);
}

static int gather_changes(const wk__channel *c, uint64_t seen, gather *g)
{
    int rc = WK_OK;
    for (size_t i = 0; rc == WK_OK && i < c->mark_count; i++) {
        const wk__mark *m = &c->marks[i];
        if (m->created > seen)
            rc = wk_entity_list_push(&g->created, m->entity);
        else if (m->changed > seen)
            rc = wk_entity_list_push(&g->changed, m->entity);
    }
    g->types = malloc((c->type_cap ? c->type_cap : 1) * sizeof *g->types);
    g->dropped = malloc((c->removal_count ? c->removal_count : 1) * sizeof *g->dropped);
    if (rc || !g->types || !g->dropped)
        return WK_NOMEM;
    for (wk_type t = 0; t < c->type_cap; t++)
        if (c->type_changed[t] > seen)
            g->types[g->type_count++] = t;
    for (size_t i = 0; rc == WK_OK && i < c->removal_count; i++) {
        const wk__removal *r = &c->removals[i];
        if (r->version <= seen)
            continue;
        if (r->type == WK_NO_TYPE)
            rc = wk_entity_list_push(&g->removed, r->entity);
        else
            g->dropped[g->dropped_count++] = *r;
    }
    return rc;
}

/* Under the hub's lock: what the watcher's next message holds; *made false
 * when there is nothing to send. */
static int take(wk_watcher *w, const wk_ecm *ecm, gather *g, bool *made)
{
    const wk__channel *c = w->channel;
    g->full = !w->started || w->seen < c->full_below || (c->ecm && c->ecm != ecm);
    *made = g->full || c->version != w->seen;
    if (!*made)
        return WK_OK;
    g->version = c->version;
    g->base = g->full ? 0 : w->seen;
    g->clock = c->clock;
    return g->full ? WK_OK : gather_changes(c, w->seen, g);
}

static bool in_subtree(const wk_ecm *ecm, wk_entity e, wk_entity root)
{
    for (; e != WK_NULL_ENTITY; e = wk_ecm_parent(ecm, e))
        if (e == root)
            return true;
    return false;
}

/* Keeps the entities of list that live and pass the subtree filter. */
static void keep_wanted(const wk_watcher *w, const wk_ecm *ecm, wk_entity_list *list)
{
    size_t n = 0;
    for (size_t i = 0; i < list->count; i++)
        if (wk_ecm_exists(ecm, list->items[i]) &&
            (w->subtree == WK_NULL_ENTITY || in_subtree(ecm, list->items[i], w->subtree)))
            list->items[n++] = list->items[i];
    list->count = n;
}

/* The types the watcher's kinds name in ecm; *all when it names none. */
static int wanted_types(const wk_watcher *w, const wk_ecm *ecm, wk_type **out, size_t *n, bool *all)
{
    *all = w->kinds == NULL;
    *n = 0;
    *out = malloc((w->kind_count ? w->kind_count : 1) * sizeof **out);
    if (!*out)
        return WK_NOMEM;
    for (size_t i = 0; i < w->kind_count; i++) {
        wk_type t = wk_ecm_type_by_name(ecm, w->kinds[i]);
        if (t != WK_NO_TYPE)
            (*out)[(*n)++] = t;
    }
    return WK_OK;
}

static bool wanted(wk_type t, const wk_type *types, size_t n, bool all)
{
    for (size_t i = 0; !all && i < n; i++)
        if (types[i] == t)
            return true;
    return all;
}

/* The removals: a State holding the removed entities, and a block per
 * component removed from an entity that still lacks it. */
static int pack_removals(const gather *g, const wk_ecm *ecm, const wk_type *types, size_t n, bool all, wk_buf *out)
{
    size_t cap = g->dropped_count ? g->dropped_count : 1;
    Worldkit__Ecs__Block *blocks = calloc(cap, sizeof *blocks);
    Worldkit__Ecs__Block **block_ptrs = calloc(cap, sizeof *block_ptrs);
    Worldkit__Ecs__ComponentType *kinds = calloc(cap, sizeof *kinds);
    Worldkit__Ecs__ComponentType **kind_ptrs = calloc(cap, sizeof *kind_ptrs);
    wk_entity *ids = calloc(cap, sizeof *ids);
    uint32_t *dropped_types = calloc(cap, sizeof *dropped_types);
    int rc = WK_NOMEM;
    if (!blocks || !block_ptrs || !kinds || !kind_ptrs || !ids || !dropped_types)
        goto done;
    Worldkit__Ecs__State msg = WORLDKIT__ECS__STATE__INIT;
    msg.n_removed = g->removed.count;
    msg.removed = g->removed.items;
    for (size_t i = 0; i < g->dropped_count; i++) {
        const wk__removal *r = &g->dropped[i];
        if (!wk_ecm_exists(ecm, r->entity) || wk_ecm_has(ecm, r->entity, r->type) || !wanted(r->type, types, n, all))
            continue;
        size_t k = msg.n_blocks++;
        worldkit__ecs__block__init(&blocks[k]);
        ids[k] = r->entity;
        dropped_types[k] = r->type;
        blocks[k].n_ids = 1;
        blocks[k].ids = &ids[k];
        blocks[k].n_removed_types = 1;
        blocks[k].removed_types = &dropped_types[k];
        block_ptrs[k] = &blocks[k];
        worldkit__ecs__component_type__init(&kinds[k]);
        kinds[k].has_id = true;
        kinds[k].id = r->type;
        kinds[k].name = (char *)wk_ecm_type_name(ecm, r->type);
        kind_ptrs[k] = &kinds[k];
    }
    msg.blocks = block_ptrs;
    msg.n_types = msg.n_blocks;
    msg.types = kind_ptrs;
    size_t len = worldkit__ecs__state__get_packed_size(&msg);
    if (wk_buf_reserve(out, len))
        goto done;
    out->len += worldkit__ecs__state__pack(&msg, out->data + out->len);
    rc = WK_OK;
done:
    free(blocks);
    free(block_ptrs);
    free(kinds);
    free(kind_ptrs);
    free(ids);
    free(dropped_types);
    return rc;
}

/* The state a message carries, appended to out. */
static int write_state(const wk_watcher *w, wk_ecm *ecm, gather *g, wk_buf *out)
{
    wk_type *types = NULL, *changed_types = NULL;
    size_t n = 0, changed_n = 0;
    bool all;
    wk_entity_list subtree = {0};
    int rc = wanted_types(w, ecm, &types, &n, &all);
    if (rc)
        return rc;
    const wk_type *filter = all ? NULL : types;
    if (g->full) {
        if (w->subtree != WK_NULL_ENTITY)
            rc = wk_ecm_descendants(ecm, w->subtree, &subtree);
        if (rc == WK_OK)
            rc = wk_ecm_state(ecm,
                              &(wk_state_desc){.types = filter,
                                               .type_count = n,
                                               .entities = w->subtree ? subtree.items : NULL,
                                               .entity_count = subtree.count},
                              out);
        goto done;
    }
    keep_wanted(w, ecm, &g->created);
    keep_wanted(w, ecm, &g->changed);
    changed_types = malloc((g->type_count ? g->type_count : 1) * sizeof *changed_types);
    if (!changed_types) {
        rc = WK_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < g->type_count; i++)
        if (wk_ecm_type_name(ecm, g->types[i]) && wanted(g->types[i], types, n, all))
            changed_types[changed_n++] = g->types[i];
    rc = pack_removals(g, ecm, types, n, all, out);
    if (rc == WK_OK && g->created.count)
        rc = wk_ecm_state(
            ecm, &(wk_state_desc){.types = filter, .type_count = n, .entities = g->created.items, .entity_count = g->created.count},
            out);
    if (rc == WK_OK && g->changed.count)
        rc = wk_ecm_state(ecm,
                          &(wk_state_desc){.types = changed_types,
                                           .type_count = changed_n,
                                           .entities = g->changed.items,
                                           .entity_count = g->changed.count},
                          out);
done:
    wk_entity_list_free(&subtree);
    free(types);
    free(changed_types);
    return rc;
}

/* Appends the update: its stamps, then its state as field 8, a message
 * written as its bytes (a length-delimited field). */
static int pack_update(const wk_watcher *w, const gather *g, const wk_buf *state, wk_buf *out)
{
    Worldkit__WatchUpdate u = WORLDKIT__WATCH_UPDATE__INIT;
    u.world_id = w->channel->id;
    u.has_full = u.has_version = u.has_base_version = u.has_changes = u.has_step = u.has_sim_time = true;
    u.full = g->full;
    u.version = g->version;
    u.base_version = g->base;
    u.changes = g->version - g->base;
    u.step = g->clock.step;
    u.sim_time = g->clock.sim_time;
    size_t head = worldkit__watch_update__get_packed_size(&u);
    if (wk_buf_reserve(out, head + 11 + state->len))
        return WK_NOMEM;
    out->len += worldkit__watch_update__pack(&u, out->data + out->len);
    out->data[out->len++] = 8 << 3 | 2;
    for (uint64_t v = state->len; ; v >>= 7) {
        out->data[out->len++] = (uint8_t)(v & 0x7f) | (v >= 0x80 ? 0x80 : 0);
        if (v < 0x80)
            break;
    }
    if (state->len)
        memcpy(out->data + out->len, state->data, state->len);
    out->len += state->len;
    return WK_OK;
}

int wk_watch_next(wk_watcher *w, wk_ecm *ecm, wk_buf *out, bool *made, wk_status *st)
{
    gather g = {0};
    *made = false;
    if (w->subtree != WK_NULL_ENTITY && !wk_ecm_exists(ecm, w->subtree))
        return wk_fail(st, WK_INVALID, "world '%s' has no entity %llu to watch the subtree of", w->channel->id,
                       (unsigned long long)w->subtree);
    pthread_mutex_lock(&w->hub->lock);
    int rc = take(w, ecm, &g, made);
    pthread_mutex_unlock(&w->hub->lock);
    wk_buf state = {0};
    if (rc == WK_OK && *made)
        rc = write_state(w, ecm, &g, &state);
    if (rc == WK_OK && *made)
        rc = pack_update(w, &g, &state, out);
    if (rc == WK_OK && *made) {
        w->seen = g.version;
        w->started = true;
    }
    wk_buf_free(&state);
    gather_free(&g);
    if (rc) {
        *made = false;
        return wk_fail(st, rc, "world '%s': out of memory making a watcher's message", w->channel->id);
    }
    return WK_OK;
}
