/* levels.c — levels and performers (Gazebo's, seed 003): which of the
 * world's top-level entities are loaded, as performers move. A level holds
 * the models its <ref>s name; its zone is its box inflated by its buffer.
 * Each step, a level is loaded when some performer's box touches its zone
 * and unloaded when none does; a model is present while any loaded level
 * holds it. Loads are done before unloads, so a model passing from one
 * level to the next is never removed and recreated. */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

/* The top-level node of the description named name, or WK_NO_NODE. */
static uint32_t top_level_node(const wk_world_desc *d, const char *name)
{
    for (uint32_t c = wk_desc_node(d, 0)->first_child; c != WK_NO_NODE; c = wk_desc_node(d, c)->next_sibling)
        if (!strcmp(wk_desc_node(d, c)->name, name))
            return c;
    return WK_NO_NODE;
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

static int add_level(wk_sim *sim, uint32_t node, wk_status *st)
{
    const wk_node *n = wk_desc_node(sim->desc, node);
    wk__level *l = &sim->levels[sim->level_count++];
    *l = (wk__level){.node = node,
                     .zone = wk_aabb_inflate(wk_aabb_from_center(n->world.p, n->region.size), n->region.buffer),
                     .refs = calloc(n->region.ref_count ? n->region.ref_count : 1, sizeof *l->refs)};
    if (!l->refs)
        return wk_fail(st, WK_NOMEM, "out of memory reading level %s", n->name);
    for (size_t r = 0; r < n->region.ref_count; r++) {
        uint32_t held = top_level_node(sim->desc, n->region.refs[r]);
        if (held == WK_NO_NODE)
            return wk_fail(st, WK_NOT_FOUND, "%s:%u: level %s holds '%s', which the world does not have",
                           n->file ? n->file : "<string>", n->line, n->name, n->region.refs[r]);
        l->refs[l->ref_count++] = held;
    }
    return WK_OK;
}

int wk__levels_init(wk_sim *sim, wk_status *st)
{
    size_t count = wk_desc_node_count(sim->desc);
    sim->holders = calloc(count, sizeof *sim->holders);
    sim->loaded = calloc(count, sizeof *sim->loaded);
    sim->levels = calloc(count, sizeof *sim->levels);
    if (!sim->holders || !sim->loaded || !sim->levels)
        return wk_fail(st, WK_NOMEM, "out of memory reading levels");
    if (!sim->levels_on)
        return WK_OK;
    for (uint32_t c = wk_desc_node(sim->desc, 0)->first_child; c != WK_NO_NODE;
         c = wk_desc_node(sim->desc, c)->next_sibling) {
        const wk_node *n = wk_desc_node(sim->desc, c);
        int rc = n->kind == WK_NODE_LEVEL ? add_level(sim, c, st)
                 : n->kind == WK_NODE_PERFORMER && add_performer(sim, n->region.refs[0], n->region.size)
                     ? wk_fail(st, WK_NOMEM, "out of memory reading performers")
                     : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

void wk__levels_free(wk_sim *sim)
{
    for (size_t i = 0; i < sim->level_count; i++)
        free(sim->levels[i].refs);
    free(sim->levels);
    for (size_t i = 0; i < sim->performer_count; i++)
        free(sim->performers[i].name);
    free(sim->performers);
    free(sim->holders);
    free(sim->loaded);
}

bool wk__levels_hold(const wk_sim *sim, uint32_t node)
{
    for (size_t i = 0; i < sim->level_count; i++)
        for (size_t r = 0; r < sim->levels[i].ref_count; r++)
            if (sim->levels[i].refs[r] == node)
                return true;
    return false;
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

static bool touched(wk_sim *sim, const wk__level *l)
{
    for (size_t i = 0; i < sim->performer_count; i++) {
        wk_aabb box;
        if (performer_box(sim, &sim->performers[i], &box) && wk_aabb_intersects(box, l->zone))
            return true;
    }
    return false;
}

static int load(wk_sim *sim, wk__level *l)
{
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
    return WK_OK;
}

static int unload(wk_sim *sim, wk__level *l)
{
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
    return WK_OK;
}

static void announce(wk_sim *sim, const wk__level *l)
{
    if (sim->on_level)
        sim->on_level(sim, wk_desc_node(sim->desc, l->node)->name, l->loaded, sim->on_level_ctx);
}

int wk__levels_update(wk_sim *sim)
{
    if (!sim->levels_on)
        return WK_OK;
    for (int pass = 0; pass < 2; pass++) {
        bool loading = pass == 0;
        for (size_t i = 0; i < sim->level_count; i++) {
            wk__level *l = &sim->levels[i];
            if (l->loaded == loading || touched(sim, l) != loading)
                continue;
            int rc = loading ? load(sim, l) : unload(sim, l);
            if (rc)
                return rc;
            announce(sim, l);
        }
    }
    return WK_OK;
}

bool wk_sim_level_loaded(const wk_sim *sim, const char *level)
{
    for (size_t i = 0; i < sim->level_count; i++)
        if (!strcmp(wk_desc_node(sim->desc, sim->levels[i].node)->name, level))
            return sim->levels[i].loaded;
    return false;
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
