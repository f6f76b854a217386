/* levels.c — levels and performers (Gazebo's, seed 003): which of the
 * world's top-level entities are loaded, as performers move. A level holds
 * the models its <ref>s name; its zone is its box inflated by its buffer.
 * Each step, a level is loaded when some performer's box touches its zone
 * and unloaded when none does; a model is present while any loaded level
 * holds it. Loads are done before unloads, so a model passing from one
 * level to the next is never removed and recreated.
 *
 * A step costs in proportion to the performers and the levels near them:
 * performers find the zones they touch through a grid (grid.c), and only
 * the loaded levels are checked for unloading. */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

/* By name, then by id among equal names (file order for nodes). */
static int by_name(const void *a, const void *b)
{
    const wk__named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* The first id named name in a sorted array, or WK_NO_NODE. */
static uint32_t find_name(const wk__named *items, size_t count, const char *name)
{
    wk__named key = {name, 0};
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (by_name(&items[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && !strcmp(items[lo].name, name) ? items[lo].id : WK_NO_NODE;
}

/* The world's top-level nodes, sorted by name; *count gets how many. */
static wk__named *top_level_names(const wk_world_desc *d, size_t *count)
{
    wk__named *items = malloc(wk_desc_node_count(d) * sizeof *items);
    *count = 0;
    if (!items)
        return NULL;
    for (uint32_t c = wk_desc_node(d, 0)->first_child; c != WK_NO_NODE; c = wk_desc_node(d, c)->next_sibling)
        items[(*count)++] = (wk__named){wk_desc_node(d, c)->name, c};
    qsort(items, *count, sizeof *items, by_name);
    return items;
}

static int add_performer(wk_sim *sim, const char *name, wk_vec3 size)
{
    wk__performer *grown = realloc(sim->performers, (sim->performer_count + 1) * sizeof *grown);
    if (!grown)
        return WK_NOMEM;
    sim->performers = grown;
    char *copy = strdup(name);
    if (!copy)
        return WK_NOMEM;
    grown[sim->performer_count++] = (wk__performer){copy, size, WK_NULL_ENTITY};
    return WK_OK;
}

static int add_level(wk_sim *sim, const wk__named *names, size_t name_count, uint32_t node, wk_status *st)
{
    const wk_node *n = wk_desc_node(sim->desc, node);
    size_t i = sim->level_count++;
    wk__level *l = &sim->levels[i];
    *l = (wk__level){.node = node, .refs = calloc(n->region.ref_count ? n->region.ref_count : 1, sizeof *l->refs)};
    sim->zones[i] = wk_aabb_inflate(wk_aabb_from_center(n->world.p, n->region.size), n->region.buffer);
    if (!l->refs)
        return wk_fail(st, WK_NOMEM, "out of memory reading level %s", n->name);
    for (size_t r = 0; r < n->region.ref_count; r++) {
        uint32_t held = find_name(names, name_count, n->region.refs[r]);
        if (held == WK_NO_NODE)
            return wk_fail(st, WK_NOT_FOUND, "%s:%u: level %s holds '%s', which the world does not have",
                           n->file ? n->file : "<string>", n->line, n->name, n->region.refs[r]);
        l->refs[l->ref_count++] = held;
        sim->held[held] = true;
    }
    return WK_OK;
}

static int read_levels(wk_sim *sim, wk_status *st)
{
    size_t name_count;
    wk__named *names = top_level_names(sim->desc, &name_count);
    if (!names)
        return wk_fail(st, WK_NOMEM, "out of memory reading levels");
    int rc = WK_OK;
    for (uint32_t c = wk_desc_node(sim->desc, 0)->first_child; rc == WK_OK && c != WK_NO_NODE;
         c = wk_desc_node(sim->desc, c)->next_sibling) {
        const wk_node *n = wk_desc_node(sim->desc, c);
        if (n->kind == WK_NODE_LEVEL)
            rc = add_level(sim, names, name_count, c, st);
        else if (n->kind == WK_NODE_PERFORMER && add_performer(sim, n->region.refs[0], n->region.size))
            rc = wk_fail(st, WK_NOMEM, "out of memory reading performers");
    }
    free(names);
    if (rc == WK_OK && wk__grid_build(&sim->grid, sim->zones, sim->level_count))
        rc = wk_fail(st, WK_NOMEM, "out of memory indexing levels");
    sim->level_names = rc ? NULL : malloc((sim->level_count ? sim->level_count : 1) * sizeof *sim->level_names);
    if (rc == WK_OK && !sim->level_names)
        rc = wk_fail(st, WK_NOMEM, "out of memory indexing levels");
    for (uint32_t i = 0; rc == WK_OK && i < sim->level_count; i++)
        sim->level_names[i] = (wk__named){wk_desc_node(sim->desc, sim->levels[i].node)->name, i};
    if (rc == WK_OK)
        qsort(sim->level_names, sim->level_count, sizeof *sim->level_names, by_name);
    return rc;
}

int wk__levels_init(wk_sim *sim, wk_status *st)
{
    size_t count = wk_desc_node_count(sim->desc);
    sim->holders = calloc(count, sizeof *sim->holders);
    sim->loaded = calloc(count, sizeof *sim->loaded);
    sim->held = calloc(count, sizeof *sim->held);
    sim->levels = calloc(count, sizeof *sim->levels);
    sim->zones = calloc(count, sizeof *sim->zones);
    sim->loaded_levels = calloc(count, sizeof *sim->loaded_levels);
    sim->to_load = calloc(count, sizeof *sim->to_load);
    if (!sim->holders || !sim->loaded || !sim->held || !sim->levels || !sim->zones || !sim->loaded_levels ||
        !sim->to_load)
        return wk_fail(st, WK_NOMEM, "out of memory reading levels");
    return sim->levels_on ? read_levels(sim, st) : WK_OK;
}

void wk__levels_free(wk_sim *sim)
{
    for (size_t i = 0; i < sim->level_count; i++)
        free(sim->levels[i].refs);
    free(sim->levels);
    free(sim->level_names);
    free(sim->zones);
    wk__grid_free(&sim->grid);
    for (size_t i = 0; i < sim->performer_count; i++)
        free(sim->performers[i].name);
    free(sim->performers);
    free(sim->holders);
    free(sim->loaded);
    free(sim->held);
    free(sim->loaded_levels);
    free(sim->to_load);
}

/* Forgets every loaded level, for a rebuild of the world's entities. */
void wk__levels_forget(wk_sim *sim)
{
    for (size_t i = 0; i < sim->level_count; i++)
        sim->levels[i].loaded = false;
    sim->loaded_level_count = 0;
    size_t count = wk_desc_node_count(sim->desc);
    memset(sim->holders, 0, count * sizeof *sim->holders);
    memset(sim->loaded, 0, count * sizeof *sim->loaded);
}

bool wk__levels_hold(const wk_sim *sim, uint32_t node)
{
    return sim->held[node];
}

/* The performer's box now, or false when its entity is not in the world. */
static bool performer_box(wk_sim *sim, wk__performer *p, wk_aabb *box)
{
    if (!wk_ecm_exists(wk_scene_ecm(sim->scene), p->entity))
        p->entity = wk_scene_child(sim->scene, sim->world, p->name);
    if (!p->entity)
        return false;
    *box = wk_aabb_from_center(wk_scene_world_pose(sim->scene, p->entity).p, p->size);
    return true;
}

typedef struct touch_ctx {
    wk_sim *sim;
    wk_aabb box;
} touch_ctx;

/* Marks level id touched in this check when the performer's box reaches its
 * zone, and queues it for loading when it is not loaded yet. */
static void touch(uint32_t id, const wk_aabb *zone, void *ctx)
{
    touch_ctx *t = ctx;
    if (!wk_aabb_intersects(t->box, *zone))
        return;
    wk__level *l = &t->sim->levels[id];
    if (l->touched == t->sim->check)
        return;
    l->touched = t->sim->check;
    if (!l->loaded)
        t->sim->to_load[t->sim->to_load_count++] = id;
}

static void find_touched(wk_sim *sim)
{
    sim->check++;
    sim->to_load_count = 0;
    for (size_t i = 0; i < sim->performer_count; i++) {
        touch_ctx t = {.sim = sim};
        if (!performer_box(sim, &sim->performers[i], &t.box))
            continue;
        if (!sim->naive_levels) {
            wk__grid_query(&sim->grid, t.box, touch, &t);
            continue;
        }
        for (uint32_t id = 0; id < sim->level_count; id++)
            touch(id, &sim->zones[id], &t);
    }
}

static int by_index(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void announce(wk_sim *sim, const wk__level *l)
{
    if (sim->on_level)
        sim->on_level(sim, wk_desc_node(sim->desc, l->node)->name, l->loaded, sim->on_level_ctx);
}

static int load(wk_sim *sim, uint32_t id)
{
    wk__level *l = &sim->levels[id];
    for (size_t r = 0; r < l->ref_count; r++) {
        uint32_t node = l->refs[r];
        if (sim->holders[node]++ > 0)
            continue;
        wk_status st;
        int rc = wk_desc_instantiate(sim->scene, sim->desc, node, sim->world, NULL, NULL, &sim->loaded[node], &st);
        if (rc)
            return rc;
    }
    l->loaded = true;
    sim->loaded_levels[sim->loaded_level_count++] = id;
    announce(sim, l);
    return WK_OK;
}

static int unload(wk_sim *sim, uint32_t id)
{
    wk__level *l = &sim->levels[id];
    for (size_t r = 0; r < l->ref_count; r++) {
        uint32_t node = l->refs[r];
        if (--sim->holders[node] > 0)
            continue;
        int rc = wk_ecm_request_remove(wk_scene_ecm(sim->scene), sim->loaded[node], true);
        if (rc)
            return rc;
        sim->loaded[node] = WK_NULL_ENTITY;
    }
    l->loaded = false;
    announce(sim, l);
    return WK_OK;
}

int wk__levels_update(wk_sim *sim)
{
    if (!sim->levels_on)
        return WK_OK;
    find_touched(sim);
    /* In level order, so that events do not depend on the index. */
    qsort(sim->to_load, sim->to_load_count, sizeof *sim->to_load, by_index);
    for (size_t i = 0; i < sim->to_load_count; i++) {
        int rc = load(sim, sim->to_load[i]);
        if (rc)
            return rc;
    }
    /* The untouched loaded levels go, also in level order; to_load is free
     * again to list them. */
    size_t kept = 0, leaving = 0;
    for (size_t i = 0; i < sim->loaded_level_count; i++) {
        uint32_t id = sim->loaded_levels[i];
        if (sim->levels[id].touched == sim->check)
            sim->loaded_levels[kept++] = id;
        else
            sim->to_load[leaving++] = id;
    }
    sim->loaded_level_count = kept;
    qsort(sim->to_load, leaving, sizeof *sim->to_load, by_index);
    for (size_t i = 0; i < leaving; i++) {
        int rc = unload(sim, sim->to_load[i]);
        if (rc)
            return rc;
    }
    return WK_OK;
}

bool wk_sim_level_loaded(const wk_sim *sim, const char *level)
{
    uint32_t id = find_name(sim->level_names, sim->level_count, level);
    return id != WK_NO_NODE && sim->levels[id].loaded;
}

int wk_sim_set_performer(wk_sim *sim, const char *name)
{
    if (!wk_scene_child(sim->scene, sim->world, name))
        return 0;
    for (size_t i = 0; i < sim->performer_count; i++)
        if (!strcmp(sim->performers[i].name, name))
            return 0;
    return add_performer(sim, name, (wk_vec3){1, 1, 1}) ? WK_NOMEM : 1;
}
