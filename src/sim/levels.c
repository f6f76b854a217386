/* levels.c — levels and performers (Gazebo's, seed 003): which of the
 * world's top-level entities are loaded, as performers move. A level holds
 * the models its <ref>s name; its zone is its box inflated by its buffer.
 * Each step, a level is loaded when some performer's box touches its zone
 * and unloaded when none does; a model is present while any loaded level
 * holds it. Loads are done before unloads, so a model passing from one
 * level to the next is never removed and recreated.
 *
 * A step costs in proportion to the performers and the levels whose state
 * changes: each level counts the performers touching it, a performer finds
 * the zones it touches through a grid (grid.c) only when its box has left
 * the region where its last answer holds, and only levels whose count went
 * to or from zero are considered for loading or unloading. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
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
    grown[sim->performer_count++] = (wk__performer){.name = copy, .size = size};
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
    sim->kept = calloc(count, sizeof *sim->kept);
    sim->held = calloc(count, sizeof *sim->held);
    sim->levels = calloc(count, sizeof *sim->levels);
    sim->zones = calloc(count, sizeof *sim->zones);
    sim->changed = calloc(count, sizeof *sim->changed);
    sim->to_load = calloc(count, sizeof *sim->to_load);
    sim->to_unload = calloc(count, sizeof *sim->to_unload);
    sim->scratch = calloc(count, sizeof *sim->scratch);
    if (!sim->holders || !sim->loaded || !sim->kept || !sim->held || !sim->levels || !sim->zones || !sim->changed ||
        !sim->to_load || !sim->to_unload || !sim->scratch)
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
    for (size_t i = 0; i < sim->performer_count; i++) {
        free(sim->performers[i].name);
        free(sim->performers[i].touching);
    }
    free(sim->performers);
    free(sim->holders);
    free(sim->loaded);
    for (size_t i = 0; sim->kept && i < wk_desc_node_count(sim->desc); i++)
        wk_buf_free(&sim->kept[i].state);
    free(sim->kept);
    free(sim->held);
    free(sim->changed);
    free(sim->to_load);
    free(sim->to_unload);
    free(sim->scratch);
}

/* Forgets every loaded level, for a rebuild of the world's entities. The
 * performers' counts stay right (they follow the boxes, not the entities),
 * so the next check loads again what they touch. */
void wk__levels_forget(wk_sim *sim)
{
    for (size_t i = 0; i < sim->level_count; i++)
        sim->levels[i].loaded = false;
    sim->recheck = true;
    size_t count = wk_desc_node_count(sim->desc);
    memset(sim->holders, 0, count * sizeof *sim->holders);
    memset(sim->loaded, 0, count * sizeof *sim->loaded);
}

/* Whether name is one of the simulation's performers. */
static bool is_performer(const wk_sim *sim, const char *name)
{
    for (size_t i = 0; i < sim->performer_count; i++)
        if (!strcmp(sim->performers[i].name, name))
            return true;
    return false;
}

int wk__levels_reread(wk_sim *sim)
{
    wk__levels_forget(sim);
    /* The performers SetPerformer made, which the entities carry. */
    wk_ecm *ecm = wk_scene_ecm(sim->scene);
    wk_type performer = wk_scene_types_of(sim->scene)->performer;
    for (wk_entity e = wk_ecm_first_child(ecm, sim->world); sim->levels_on && e; e = wk_ecm_next_sibling(ecm, e)) {
        const wk_vec3 *size = wk_ecm_get(ecm, e, performer);
        const char *name = wk_scene_name(sim->scene, e);
        if (size && name && !is_performer(sim, name) && add_performer(sim, name, *size))
            return WK_NOMEM;
    }
    /* A level is loaded when all its entities are there: one it shares
     * with a loaded level says nothing of it. */
    for (size_t i = 0; i < sim->level_count; i++) {
        wk__level *l = &sim->levels[i];
        l->loaded = l->ref_count > 0;
        for (size_t r = 0; r < l->ref_count; r++)
            l->loaded &= (sim->loaded[l->refs[r]] =
                              wk_scene_child(sim->scene, sim->world, wk_desc_node(sim->desc, l->refs[r])->name)) != 0;
        for (size_t r = 0; l->loaded && r < l->ref_count; r++)
            sim->holders[l->refs[r]]++;
    }
    for (size_t i = 0; i < sim->performer_count; i++)
        sim->performers[i].entity = WK_NULL_ENTITY, sim->performers[i].settled = false;
    wk__levels_show(sim);
    return WK_OK;
}

bool wk__levels_hold(const wk_sim *sim, uint32_t node)
{
    return sim->held[node];
}

/* a_T_b applied to the point p (in b): wk_pose_transform_point's arithmetic
 * (wk_quat_rotate, then the translation added), the same operations in the
 * same order, so the same result to the bit. It is written out here because
 * called across files it takes its structs on the stack, and reading them
 * back stalls on store forwarding: that was a third of a step's time. */
static inline wk_vec3 transform_point(const wk_pose *a_T_b, wk_vec3 p)
{
    const wk_quat *q = &a_T_b->q;
    wk_vec3 t = {(q->y * p.z - q->z * p.y) * 2.0, (q->z * p.x - q->x * p.z) * 2.0, (q->x * p.y - q->y * p.x) * 2.0};
    wk_vec3 r = {p.x + t.x * q->w, p.y + t.y * q->w, p.z + t.z * q->w};
    r = (wk_vec3){r.x + (q->y * t.z - q->z * t.y), r.y + (q->z * t.x - q->x * t.z), r.z + (q->x * t.y - q->y * t.x)};
    return (wk_vec3){r.x + a_T_b->p.x, r.y + a_T_b->p.y, r.z + a_T_b->p.z};
}

/* The entity's position in the world: wk_scene_world_pose's, by the same
 * operations, without composing the rotations, which a box does not need. */
static wk_vec3 world_position(const wk_sim *sim, wk_entity e)
{
    const wk_ecm *ecm = wk_scene_ecm(sim->scene);
    wk_type parent_pose = wk_scene_types_of(sim->scene)->parent_pose;
    wk_vec3 p = wk_pose_identity().p;
    for (; e; e = wk_ecm_parent(ecm, e)) {
        const wk_pose *local = wk_ecm_get(ecm, e, parent_pose);
        if (local)
            p = transform_point(local, p);
    }
    return p;
}

#ifndef NDEBUG
/* True when p is wk_scene_world_pose's position of e, bit for bit: an
 * invariant of world_position, checked in debug builds. */
static bool is_scene_position(const wk_sim *sim, wk_entity e, wk_vec3 p)
{
    wk_vec3 scene = wk_scene_world_pose(sim->scene, e).p;
    return !memcmp(&p, &scene, sizeof p);
}
#endif

/* The performer's entity now, looked up again when it went; false when
 * there is none. */
static bool performer_entity(wk_sim *sim, wk__performer *p)
{
    if (!wk_ecm_exists(wk_scene_ecm(sim->scene), p->entity))
        p->entity = wk_scene_child(sim->scene, sim->world, p->name);
    return p->entity != WK_NULL_ENTITY;
}

/* As wk_aabb_intersects has it: a box with a min above its max meets nothing. */
static bool is_empty(const wk_aabb *b)
{
    return b->min.x > b->max.x || b->min.y > b->max.y || b->min.z > b->max.z;
}

static int by_index(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Writes whether l is loaded on its entity's Region, for whoever draws the
 * world; a level whose entity a client deleted has none to write on. */
static void show(wk_sim *sim, const wk__level *l)
{
    wk_ecm *ecm = wk_scene_ecm(sim->scene);
    wk_type region = wk_scene_types_of(sim->scene)->region;
    wk_entity e = wk_scene_child(sim->scene, sim->world, wk_desc_node(sim->desc, l->node)->name);
    const wk_scene_region *r = e ? wk_ecm_get(ecm, e, region) : NULL;
    if (r && r->loaded != l->loaded) {
        wk_scene_region now = *r;
        now.loaded = l->loaded;
        (void)wk_ecm_set(ecm, e, region, &now); /* an existing component: nothing to allocate */
    }
}

void wk__levels_show(wk_sim *sim)
{
    for (size_t i = 0; i < sim->level_count; i++)
        show(sim, &sim->levels[i]);
}

static void announce(wk_sim *sim, const wk__level *l)
{
    show(sim, l);
    if (sim->on_level)
        sim->on_level(sim, wk_desc_node(sim->desc, l->node)->name, l->loaded, sim->on_level_ctx);
}

/* Brings a model of a level back from the state it was first loaded in,
 * with the same ids: true when it came, false when it must be made anew
 * (never loaded yet, or one of its ids taken since, or out of memory). */
static bool bring_back(wk_sim *sim, uint32_t node)
{
    wk__kept *k = &sim->kept[node];
    if (!k->state.len || wk_ecm_set_state(wk_scene_ecm(sim->scene), k->state.data, k->state.len))
        return false;
    sim->loaded[node] = k->top;
    /* A pose the same ids had before the unload is stale. */
    wk_scene_pose_written(sim->scene, k->top);
    /* Kept before the scene became an object world (the first levels load
     * as the world is built), it is made an object now. */
    if (!wk_scene_is_object(sim->scene, k->top))
        return wk_scene_objects_add(sim->scene, k->top, NULL) == WK_OK;
    return wk_scene_refresh(sim->scene) == WK_OK;
}

/* Makes a model of a level from the description, and keeps its state for
 * the next load. */
static int make(wk_sim *sim, uint32_t node)
{
    wk_status st;
    int rc = wk_desc_instantiate(sim->scene, sim->desc, node, sim->world, NULL, NULL, &sim->loaded[node], &st);
    if (rc == WK_OK)
        rc = wk_scene_objects_add(sim->scene, sim->loaded[node], &st);
    if (rc)
        return rc;
    wk__kept *k = &sim->kept[node];
    wk_entity_list all = {0};
    k->state.len = 0;
    k->top = sim->loaded[node];
    /* Without a kept state, the next load makes the model anew. */
    if (wk_ecm_descendants(wk_scene_ecm(sim->scene), k->top, &all) == WK_OK &&
        wk_ecm_state(wk_scene_ecm(sim->scene), &(wk_state_desc){.entities = all.items, .entity_count = all.count},
                     &k->state))
        k->state.len = 0;
    wk_entity_list_free(&all);
    return WK_OK;
}

static int load(wk_sim *sim, uint32_t id)
{
    wk__level *l = &sim->levels[id];
    for (size_t r = 0; r < l->ref_count; r++) {
        uint32_t node = l->refs[r];
        if (sim->holders[node]++ > 0 || bring_back(sim, node))
            continue;
        int rc = make(sim, node);
        if (rc)
            return rc;
    }
    l->loaded = true;
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
        /* Gone already when a client deleted it. */
        wk_ecm *ecm = wk_scene_ecm(sim->scene);
        int rc = wk_ecm_exists(ecm, sim->loaded[node]) ? wk_ecm_request_remove(ecm, sim->loaded[node], true) : WK_OK;
        if (rc)
            return rc;
        sim->loaded[node] = WK_NULL_ENTITY;
    }
    l->loaded = false;
    announce(sim, l);
    return WK_OK;
}

/* Loads the first loads levels of to_load, then unloads the first unloads
 * of to_unload, each list in level order so that events do not depend on
 * how the levels were found. Loads go first, so that a model passing from
 * one level to the next is never removed and recreated. */
static int load_and_unload(wk_sim *sim, size_t loads, size_t unloads)
{
    for (size_t i = 0; i < loads; i++) {
        int rc = load(sim, sim->to_load[i]);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < unloads; i++) {
        int rc = unload(sim, sim->to_unload[i]);
        if (rc)
            return rc;
    }
    return WK_OK;
}

/* ---- all pairs ----------------------------------------------------------
 *
 * Every performer against every level, every check: the plain statement of
 * the rule, kept to measure and test the index against. */

static int update_all_pairs(wk_sim *sim)
{
    uint64_t now = ++sim->stamp;
    for (size_t i = 0; i < sim->performer_count; i++) {
        wk__performer *p = &sim->performers[i];
        if (!performer_entity(sim, p))
            continue;
        wk_aabb box = wk_aabb_from_center(wk_scene_world_pose(sim->scene, p->entity).p, p->size);
        for (uint32_t id = 0; id < sim->level_count; id++)
            if (wk_aabb_intersects(box, sim->zones[id]))
                sim->levels[id].mark = now;
    }
    size_t loads = 0, unloads = 0;
    for (uint32_t id = 0; id < sim->level_count; id++) {
        const wk__level *l = &sim->levels[id];
        if (l->mark == now && !l->loaded)
            sim->to_load[loads++] = id;
        else if (l->mark != now && l->loaded)
            sim->to_unload[unloads++] = id;
    }
    return load_and_unload(sim, loads, unloads);
}

/* ---- through the index --------------------------------------------------
 *
 * Each level counts the performers whose boxes touch its zone, and each
 * performer keeps the levels it touches, so a check only has to find the
 * performers whose set of levels changed: only levels whose count went to
 * or from zero can load or unload. A performer's box moves a little each
 * step, and it touches the same zones as long as every comparison
 * wk_aabb_intersects makes between it and a nearby zone comes out the same;
 * its last query recorded the bounds within which that holds, so a check
 * mostly costs a box and twelve comparisons per performer. The bounds are
 * comparisons of the box's own coordinates with the zones' edges, the very
 * numbers wk_aabb_intersects compares, so they are exact, not a tolerance. */

/* How far a query looks beyond the box, as a part of a grid cell: zones
 * beyond that are not seen, so the box must stay within it. */
#define QUERY_REACH 0.25

typedef struct query_ctx {
    wk_sim *sim;
    wk__performer *p;
    wk_aabb box;
    uint64_t old, kept, fresh; /* marks: in the old set; in both; only in the new */
    size_t count;              /* in sim->scratch */
} query_ctx;

/* Narrows the interval in which v = box.min stays on the same side of a
 * zone's max and w = box.max on the same side of its min, along one axis:
 * (*lo_v, *hi_v] and [*lo_w, *hi_w). A NaN edge narrows nothing: a zone with
 * one meets nothing anyway. */
static void narrow(double v, double w, double zone_min, double zone_max, double *lo_v, double *hi_v, double *lo_w,
                   double *hi_w)
{
    if (zone_max < v) {
        if (zone_max > *lo_v)
            *lo_v = zone_max;
    } else if (zone_max < *hi_v) {
        *hi_v = zone_max;
    }
    if (zone_min <= w) {
        if (zone_min > *lo_w)
            *lo_w = zone_min;
    } else if (zone_min < *hi_w) {
        *hi_w = zone_min;
    }
}

/* A zone the grid offers: it bounds where the box may go, and joins the
 * performer's new set (once) when the box touches it. */
static void offer(uint32_t id, const wk_aabb *zone, void *ctx)
{
    query_ctx *q = ctx;
    wk__performer *p = q->p;
    if (is_empty(zone))
        return; /* touches nothing, wherever the box goes */
    narrow(q->box.min.x, q->box.max.x, zone->min.x, zone->max.x, &p->low.min.x, &p->high.min.x, &p->low.max.x,
           &p->high.max.x);
    narrow(q->box.min.y, q->box.max.y, zone->min.y, zone->max.y, &p->low.min.y, &p->high.min.y, &p->low.max.y,
           &p->high.max.y);
    narrow(q->box.min.z, q->box.max.z, zone->min.z, zone->max.z, &p->low.min.z, &p->high.min.z, &p->low.max.z,
           &p->high.max.z);
    if (!wk_aabb_intersects(q->box, *zone))
        return;
    wk__level *l = &q->sim->levels[id];
    if (l->mark == q->kept || l->mark == q->fresh)
        return;
    l->mark = l->mark == q->old ? q->kept : q->fresh;
    q->sim->scratch[q->count++] = id;
}

/* Lists the level as changed in this check, once. */
static void note(wk_sim *sim, uint32_t id)
{
    if (sim->levels[id].noted != sim->check) {
        sim->levels[id].noted = sim->check;
        sim->changed[sim->changed_count++] = id;
    }
}

/* Gives the performer the set of levels its box touches now (none when box
 * is NULL), counting it in and out of the levels that gained or lost it. */
static int requery(wk_sim *sim, wk__performer *p, const wk_aabb *box)
{
    query_ctx q = {.sim = sim, .p = p, .old = sim->stamp + 1, .kept = sim->stamp + 2, .fresh = sim->stamp + 3};
    sim->stamp += 3;
    p->settled = false;
    for (size_t i = 0; i < p->touch_count; i++)
        sim->levels[p->touching[i]].mark = q.old;
    if (box) {
        q.box = *box;
        wk_aabb reach = wk_aabb_inflate(*box, sim->grid.cell * QUERY_REACH);
        p->low = (wk_aabb){{reach.min.x, reach.min.y, -INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
        p->high = (wk_aabb){{INFINITY, INFINITY, INFINITY}, {reach.max.x, reach.max.y, INFINITY}};
        wk__grid_query(&sim->grid, reach, offer, &q);
    }
    if (WK__GROW(p->touching, p->touch_cap, q.count))
        return WK_NOMEM;
    for (size_t i = 0; i < q.count; i++) {
        wk__level *l = &sim->levels[sim->scratch[i]];
        if (l->mark == q.fresh && l->performers++ == 0)
            note(sim, sim->scratch[i]);
    }
    for (size_t i = 0; i < p->touch_count; i++) {
        wk__level *l = &sim->levels[p->touching[i]];
        if (l->mark == q.old && --l->performers == 0)
            note(sim, p->touching[i]);
    }
    if (q.count)
        memcpy(p->touching, sim->scratch, q.count * sizeof *p->touching);
    p->touch_count = q.count;
    p->settled = box != NULL;
    return WK_OK;
}

/* True when the box is where the performer's last query says its set of
 * levels holds. */
static bool settled(const wk__performer *p, const wk_aabb *b)
{
    const wk_aabb *lo = &p->low, *hi = &p->high;
    return p->settled && lo->min.x < b->min.x && b->min.x <= hi->min.x && lo->max.x <= b->max.x &&
           b->max.x < hi->max.x && lo->min.y < b->min.y && b->min.y <= hi->min.y && lo->max.y <= b->max.y &&
           b->max.y < hi->max.y && lo->min.z < b->min.z && b->min.z <= hi->min.z && lo->max.z <= b->max.z &&
           b->max.z < hi->max.z;
}

static int update_indexed(wk_sim *sim)
{
    sim->changed_count = 0;
    for (size_t i = 0; i < sim->performer_count; i++) {
        wk__performer *p = &sim->performers[i];
        wk_aabb box = {0};
        bool there = performer_entity(sim, p);
        if (there) {
            wk_vec3 at = world_position(sim, p->entity);
            assert(is_scene_position(sim, p->entity, at));
            box = wk_aabb_from_center(at, p->size);
            there = !is_empty(&box);
        }
        if (there && settled(p, &box))
            continue;
        if (!there && !p->touch_count)
            continue;
        int rc = requery(sim, p, there ? &box : NULL);
        if (rc)
            return rc;
    }
    if (sim->recheck) {
        for (uint32_t id = 0; id < sim->level_count; id++)
            if ((sim->levels[id].performers > 0) != sim->levels[id].loaded)
                note(sim, id);
        sim->recheck = false;
    }
    size_t loads = 0, unloads = 0;
    for (size_t i = 0; i < sim->changed_count; i++) {
        uint32_t id = sim->changed[i];
        const wk__level *l = &sim->levels[id];
        if (l->performers && !l->loaded)
            sim->to_load[loads++] = id;
        else if (!l->performers && l->loaded)
            sim->to_unload[unloads++] = id;
    }
    qsort(sim->to_load, loads, sizeof *sim->to_load, by_index);
    qsort(sim->to_unload, unloads, sizeof *sim->to_unload, by_index);
    return load_and_unload(sim, loads, unloads);
}

int wk__levels_update(wk_sim *sim)
{
    if (!sim->levels_on)
        return WK_OK;
    sim->check++;
    int rc = sim->naive_levels ? update_all_pairs(sim) : update_indexed(sim);
    /* A failed load or unload leaves levels out of step with their counts:
     * compare them all next time, as the all-pairs check does each time. */
    if (rc)
        sim->recheck = true;
    return rc;
}

bool wk_sim_level_loaded(const wk_sim *sim, const char *level)
{
    uint32_t id = find_name(sim->level_names, sim->level_count, level);
    return id != WK_NO_NODE && sim->levels[id].loaded;
}

size_t wk_sim_level_count(const wk_sim *sim)
{
    return sim->level_count;
}

bool wk_sim_level_info(const wk_sim *sim, size_t i, wk_level_info *out)
{
    if (i >= sim->level_count)
        return false;
    const wk_node *n = wk_desc_node(sim->desc, sim->levels[i].node);
    *out = (wk_level_info){.name = n->name,
                           .center = n->world.p,
                           .size = n->region.size,
                           .buffer = n->region.buffer,
                           .loaded = sim->levels[i].loaded,
                           .entities = n->region.refs,
                           .entity_count = n->region.ref_count};
    return true;
}

const char *wk_sim_unloaded_level_of(const wk_sim *sim, const char *name)
{
    /* Asked only for a name the world lacks: a walk of the levels' refs
     * costs nothing a lookup would save. */
    const char *scope = strstr(name, "::");
    size_t len = scope ? (size_t)(scope - name) : strlen(name);
    for (size_t i = 0; i < sim->level_count; i++) {
        const wk__level *l = &sim->levels[i];
        for (size_t r = 0; r < l->ref_count; r++) {
            const char *held = wk_desc_node(sim->desc, l->refs[r])->name;
            if (strlen(held) == len && !strncmp(held, name, len))
                return sim->holders[l->refs[r]] ? NULL : wk_desc_node(sim->desc, l->node)->name;
        }
    }
    return NULL;
}

size_t wk_sim_performer_count(const wk_sim *sim)
{
    return sim->performer_count;
}

const char *wk_sim_performer(const wk_sim *sim, size_t i, wk_vec3 *size)
{
    if (i >= sim->performer_count)
        return NULL;
    if (size)
        *size = sim->performers[i].size;
    return sim->performers[i].name;
}

int wk_sim_set_performer(wk_sim *sim, const char *name)
{
    wk_entity e = wk_scene_child(sim->scene, sim->world, name);
    if (!e || is_performer(sim, name))
        return 0;
    wk_vec3 size = {1, 1, 1};
    if (wk_ecm_set(wk_scene_ecm(sim->scene), e, wk_scene_types_of(sim->scene)->performer, &size) < 0)
        return WK_NOMEM;
    return add_performer(sim, name, size) ? WK_NOMEM : 1;
}
