/* compare.c — CompareWorlds: the objects and frames added, removed and
 * modified from one world to another, matched by id or by name, with each
 * modification described in words.
 *
 * By id, the ECMs' own diff (wk_ecm_diff, a sequential walk of both worlds'
 * tables) names the entities that differ; only the objects owning one of
 * them, in either world, are examined, so an untouched object costs nothing
 * beyond the diff. By name, the object trees are matched top down: children
 * of matched objects by name, so an object is the same when its full path
 * is. Within a matched pair, entities and frames are matched the same way
 * (by id or by name), and their components compared value by value through
 * the types' equal hooks; by name, those that hold entity ids
 * (KinematicObject, Mimic, JointLinks, CollisionSettings) through the names
 * of those entities. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "scene/scene_internal.h"

typedef enum kind { OBJECTS, FRAMES, ENTITIES } kind;

typedef struct differ {
    const wk_scene *a, *b; /* base, changed */
    wk_compare_mode mode;
    wk_world_diff *out;
    wk_type *type_in_b; /* base type id -> the changed world's id of that name */
    wk_type type_count; /* ids below this are mapped */
    wk_buf what;        /* the description being written */
    /* By id: the entities in both worlds that the ECM diff found different;
     * matched entities not in it are equal and need no description. NULL:
     * compare every matched pair. */
    const wk__index *reported;
    /* Scratch of compare_object, kept from one object to the next. */
    wk_entity_list ea, eb, fa, fb, removed, added;
} differ;

static const char *key_name(const wk_scene *s, wk_entity e, kind k)
{
    return k == OBJECTS ? wk__object_name(s, e) : wk__entity_name(s, e);
}

static uint64_t key_hash(const differ *d, const wk_scene *s, wk_entity e, kind k)
{
    if (d->mode == WK_COMPARE_BY_ID)
        return wk__hash(&e, sizeof e, k);
    const char *name = key_name(s, e, k);
    return wk__hash(name, strlen(name), k);
}

static bool same_key(const differ *d, wk_entity ea, wk_entity eb, kind k)
{
    if (d->mode == WK_COMPARE_BY_ID)
        return ea == eb;
    return strcmp(key_name(d->a, ea, k), key_name(d->b, eb, k)) == 0;
}

typedef int (*pair_fn)(differ *d, wk_entity ea, wk_entity eb);

/* Pairs the entities of la and lb with equal keys; those of la without a
 * partner go to only_a, of lb to only_b (either may be NULL: dropped). */
static int match(differ *d, kind k, const wk_entity_list *la, const wk_entity_list *lb, pair_fn on_pair,
                 wk_entity_list *only_a, wk_entity_list *only_b)
{
    /* Worlds branched by a clone mostly list the same things in the same
     * order: pair those directly, without building an index. */
    size_t same = 0;
    while (same < la->count && same < lb->count && same_key(d, la->items[same], lb->items[same], k))
        same++;
    if (same == la->count && same == lb->count) {
        int rc = WK_OK;
        for (size_t i = 0; rc == WK_OK && i < same; i++)
            rc = on_pair(d, la->items[i], lb->items[i]);
        return rc;
    }
    wk__index index = {0};
    bool *taken = calloc(lb->count + 1, sizeof *taken);
    int rc = taken ? WK_OK : WK_NOMEM;
    for (size_t j = 0; rc == WK_OK && j < lb->count; j++)
        rc = wk__index_add(&index, key_hash(d, d->b, lb->items[j], k), j + 1);
    for (size_t i = 0; rc == WK_OK && i < la->count; i++) {
        wk_entity ea = la->items[i];
        uint64_t h = key_hash(d, d->a, ea, k);
        size_t cursor = 0, partner = 0;
        for (uint64_t j; !partner && (j = wk__index_next(&index, h, &cursor));)
            if (!taken[j - 1] && same_key(d, ea, lb->items[j - 1], k))
                partner = j;
        if (partner) {
            taken[partner - 1] = true;
            rc = on_pair(d, ea, lb->items[partner - 1]);
        } else if (only_a) {
            rc = wk_entity_list_push(only_a, ea);
        }
    }
    for (size_t j = 0; rc == WK_OK && j < lb->count; j++)
        if (!taken[j] && only_b)
            rc = wk_entity_list_push(only_b, lb->items[j]);
    wk__index_free(&index);
    free(taken);
    return rc;
}

/* ---- describing a modification ------------------------------------------ */

static void note(differ *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(differ *d, const char *fmt, ...)
{
    char line[WK_STATUS_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (d->what.len)
        wk_buf_append(&d->what, "; ", 2);
    wk_buf_append(&d->what, line, strlen(line));
}

/* Notes the components that differ between ea and eb, except skip. */
static void compare_components(differ *d, const char *label, wk_entity ea, wk_entity eb, const wk_type *skip,
                               size_t skip_count)
{
    wk_ecm *ma = d->a->ecm, *mb = d->b->ecm;
    wk_type ta[64], tb[64];
    size_t na = wk_ecm_component_types(ma, ea, ta, 64), nb = wk_ecm_component_types(mb, eb, tb, 64);
    na = na < 64 ? na : 64;
    nb = nb < 64 ? nb : 64;
    bool seen_b[64] = {0};
    for (size_t i = 0; i < na; i++) {
        bool skipped = false;
        for (size_t k = 0; k < skip_count; k++)
            skipped |= ta[i] == skip[k];
        wk_type t = ta[i] < d->type_count ? d->type_in_b[ta[i]] : WK_NO_TYPE;
        size_t j = 0;
        while (j < nb && tb[j] != t)
            j++;
        if (j < nb)
            seen_b[j] = true;
        if (skipped)
            continue;
        const char *name = wk_ecm_type_name(ma, ta[i]);
        if (j == nb)
            note(d, "%s: %s removed", label, name);
        else if (!wk_ecm_values_equal(ma, ta[i], wk_ecm_get(ma, ea, ta[i]), wk_ecm_get(mb, eb, t)))
            note(d, "%s: %s changed", label, name);
    }
    for (size_t j = 0; j < nb; j++) {
        bool skipped = false;
        for (size_t k = 0; k < skip_count; k++)
            skipped |= d->type_in_b[skip[k]] == tb[j];
        if (!seen_b[j] && !skipped)
            note(d, "%s: %s added", label, wk_ecm_type_name(mb, tb[j]));
    }
}

/* Notes a change of the entity a node is attached to. */
static void compare_parent(differ *d, wk_entity ea, wk_entity eb)
{
    wk_entity pa = wk_ecm_parent(d->a->ecm, ea), pb = wk_ecm_parent(d->b->ecm, eb);
    bool same = d->mode == WK_COMPARE_BY_ID ? pa == pb
                                            : strcmp(wk__entity_name(d->a, pa), wk__entity_name(d->b, pb)) == 0;
    if (!same)
        note(d, "attached to '%s' instead of '%s'", wk__entity_name(d->b, pb), wk__entity_name(d->a, pa));
}

static int record(differ *d, wk_modified **list, size_t *count, wk_entity ea, wk_entity eb)
{
    if (!d->what.len)
        return WK_OK;
    char *what = malloc(d->what.len + 1);
    wk_modified *grown = what ? realloc(*list, (*count + 1) * sizeof **list) : NULL;
    if (!grown) {
        free(what);
        return WK_NOMEM;
    }
    memcpy(what, d->what.data, d->what.len);
    what[d->what.len] = '\0';
    *list = grown;
    (*list)[(*count)++] = (wk_modified){ea, eb, what};
    d->what.len = 0;
    return WK_OK;
}

/* ---- frames, entities, objects ----------------------------------------- */

/* True when the diff has shown e to be the same in both worlds. */
static bool known_equal(const differ *d, wk_entity e);

static int compare_frame(differ *d, wk_entity fa, wk_entity fb)
{
    if (known_equal(d, fa))
        return WK_OK;
    const char *na = wk__entity_name(d->a, fa), *nb = wk__entity_name(d->b, fb);
    if (strcmp(na, nb) != 0)
        note(d, "renamed '%s' to '%s'", na, nb);
    compare_parent(d, fa, fb);
    compare_components(d, "frame", fa, fb, &d->a->types.name, 1);
    return record(d, &d->out->modified_frames, &d->out->modified_frame_count, fa, fb);
}

/* Whether the entity lists name the same entities in the same order. */
static bool same_names(const differ *d, const wk_entity *a, const wk_entity *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(wk__entity_name(d->a, a[i]), wk__entity_name(d->b, b[i])) != 0)
            return false;
    return true;
}

static bool same_doubles(const double *a, const double *b, size_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

/* By name, a KinematicObject's entities (joints, IK bases and tips, flange
 * frames) are the same when they have the same names. */
static bool same_kinematic_object(const differ *d, const wk_kinematic_object *a, const wk_kinematic_object *b)
{
    if (!a || !b)
        return a == b;
    if (a->joint_count != b->joint_count || a->configuration_count != b->configuration_count ||
        a->ik_solver_count != b->ik_solver_count || a->flange_count != b->flange_count ||
        !same_names(d, a->joints, b->joints, a->joint_count) ||
        !same_names(d, a->flange_frames, b->flange_frames, a->flange_count) ||
        memcmp(a->system_limits, b->system_limits, a->joint_count * sizeof *a->system_limits) != 0 ||
        memcmp(a->application_limits, b->application_limits, a->joint_count * sizeof *a->application_limits) != 0)
        return false;
    for (uint32_t i = 0; i < a->configuration_count; i++)
        if (strcmp(a->configurations[i].name, b->configurations[i].name) != 0 ||
            !same_doubles(a->configurations[i].positions, b->configurations[i].positions, a->joint_count))
            return false;
    for (uint32_t i = 0; i < a->ik_solver_count; i++) {
        const wk_ik_solver *x = &a->ik_solvers[i], *y = &b->ik_solvers[i];
        if (strcmp(x->key, y->key) != 0 || !same_names(d, &x->base, &y->base, 1) || !same_names(d, &x->tip, &y->tip, 1))
            return false;
    }
    return true;
}

static bool same_mimic(const differ *d, const wk_joint_mimic *a, const wk_joint_mimic *b)
{
    if (!a || !b)
        return a == b;
    return same_names(d, &a->leader, &b->leader, 1) && a->multiplier == b->multiplier && a->offset == b->offset;
}

static bool same_joint_links(const differ *d, const wk_scene_joint_links *a, const wk_scene_joint_links *b)
{
    if (!a || !b)
        return a == b;
    return same_names(d, &a->parent, &b->parent, 1) && same_names(d, &a->child, &b->child, 1);
}

static bool same_collision_refs(const differ *d, const wk_collision_ref *a, const wk_collision_ref *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].whole_object != b[i].whole_object || !same_names(d, &a[i].entity, &b[i].entity, 1))
            return false;
    return true;
}

static bool same_collision_settings(const differ *d, const wk_collision_settings *a, const wk_collision_settings *b)
{
    if (!a || !b)
        return a == b;
    if (a->disable_collision_checking != b->disable_collision_checking ||
        a->has_minimum_margin != b->has_minimum_margin || a->minimum_margin != b->minimum_margin ||
        a->has_collision_check_spacing != b->has_collision_check_spacing ||
        a->collision_check_spacing != b->collision_check_spacing || a->rule_count != b->rule_count)
        return false;
    for (size_t i = 0; i < a->rule_count; i++) {
        const wk_collision_rule *x = &a->rules[i], *y = &b->rules[i];
        if (x->action != y->action || x->hard_margin != y->hard_margin || x->left_count != y->left_count ||
            x->right_count != y->right_count || !same_collision_refs(d, x->left, y->left, x->left_count) ||
            !same_collision_refs(d, x->right, y->right, x->right_count))
            return false;
    }
    return true;
}

/* By name, the components that hold entity ids (KinematicObject, Mimic,
 * JointLinks, CollisionSettings) compare through the names of the entities
 * they refer to: ids differ between worlds built apart. */
static void compare_references(differ *d, const char *label, wk_entity ea, wk_entity eb)
{
    const wk_scene_types *ta = &d->a->types, *tb = &d->b->types;
    wk_ecm *ma = d->a->ecm, *mb = d->b->ecm;
    if (!same_collision_settings(d, wk_ecm_get(ma, ea, ta->collision), wk_ecm_get(mb, eb, tb->collision)))
        note(d, "%s: %s changed", label, wk_ecm_type_name(ma, ta->collision));
    if (!same_kinematic_object(d, wk_ecm_get(ma, ea, ta->kinematic_object), wk_ecm_get(mb, eb, tb->kinematic_object)))
        note(d, "%s: %s changed", label, wk_ecm_type_name(ma, ta->kinematic_object));
    if (!same_mimic(d, wk_ecm_get(ma, ea, ta->mimic), wk_ecm_get(mb, eb, tb->mimic)))
        note(d, "%s: %s changed", label, wk_ecm_type_name(ma, ta->mimic));
    if (!same_joint_links(d, wk_ecm_get(ma, ea, ta->joint_links), wk_ecm_get(mb, eb, tb->joint_links)))
        note(d, "%s: %s changed", label, wk_ecm_type_name(ma, ta->joint_links));
}

static int compare_entity(differ *d, wk_entity ea, wk_entity eb)
{
    if (known_equal(d, ea))
        return WK_OK;
    char label[WK_STATUS_MSG_MAX];
    snprintf(label, sizeof label, "entity '%s'", wk__entity_name(d->a, ea));
    /* The base entity's Object is compared field by field by the caller;
     * by name, what refers to entities by compare_references. */
    const wk_type skip[5] = {d->a->types.object, d->a->types.kinematic_object, d->a->types.mimic,
                             d->a->types.joint_links, d->a->types.collision};
    bool by_name = d->mode == WK_COMPARE_BY_NAME;
    compare_components(d, label, ea, eb, skip, by_name ? 5 : 1);
    if (by_name)
        compare_references(d, label, ea, eb);
    return WK_OK;
}

/* The object's own entities and its frames, apart. */
static int parts(const wk_scene *s, wk_entity object, wk_entity_list *entities, wk_entity_list *frames)
{
    wk_entity_list all = {0};
    int rc = wk_scene_object_entities(s, object, &all);
    for (size_t i = 0; rc == WK_OK && i < all.count; i++)
        rc = wk_entity_list_push(wk_scene_is_frame(s, all.items[i]) ? frames : entities, all.items[i]);
    wk_entity_list_free(&all);
    return rc;
}

static void note_count(const wk_entity_list *list, differ *d, const char *what)
{
    if (list->count)
        note(d, "%zu entit%s %s", list->count, list->count == 1 ? "y" : "ies", what);
}

/* Notes what differs in the object's own description: its Object and the
 * entity it is attached to. */
static void compare_object_info(differ *d, wk_entity oa, wk_entity ob)
{
    const wk_object_info *ia = wk_scene_object_info(d->a, oa), *ib = wk_scene_object_info(d->b, ob);
    if (strcmp(ia->name, ib->name) != 0)
        note(d, "renamed '%s' to '%s'", ia->name, ib->name);
    if (ia->type != ib->type)
        note(d, "type %d instead of %d", ib->type, ia->type);
    if (ia->name_is_global_alias != ib->name_is_global_alias)
        note(d, "name %s a global alias", ib->name_is_global_alias ? "became" : "is no longer");
    if (oa != d->a->root)
        compare_parent(d, oa, ob);
}

static int compare_object(differ *d, wk_entity oa, wk_entity ob)
{
    compare_object_info(d, oa, ob);
    d->ea.count = d->eb.count = d->fa.count = d->fb.count = d->removed.count = d->added.count = 0;
    int rc = parts(d->a, oa, &d->ea, &d->fa);
    if (rc == WK_OK)
        rc = parts(d->b, ob, &d->eb, &d->fb);
    if (rc == WK_OK)
        rc = match(d, ENTITIES, &d->ea, &d->eb, compare_entity, &d->removed, &d->added);
    note_count(&d->removed, d, "removed");
    note_count(&d->added, d, "added");
    if (rc == WK_OK)
        rc = record(d, &d->out->modified_objects, &d->out->modified_object_count, oa, ob);
    if (rc == WK_OK)
        rc = match(d, FRAMES, &d->fa, &d->fb, compare_frame, &d->out->removed_frames, &d->out->added_frames);
    return rc;
}

/* By name: the children of a matched pair are matched by name in turn; the
 * subtrees of unmatched ones are added or removed whole. */
static int compare_tree(differ *d, wk_entity oa, wk_entity ob);

static int subtree(const wk_scene *s, wk_entity object, wk_entity_list *out)
{
    size_t first = out->count;
    int rc = wk_entity_list_push(out, object);
    for (size_t i = first; rc == WK_OK && i < out->count; i++)
        rc = wk_scene_object_children(s, out->items[i], out);
    return rc;
}

static int compare_tree(differ *d, wk_entity oa, wk_entity ob)
{
    wk_entity_list ca = {0}, cb = {0}, removed = {0}, added = {0};
    int rc = compare_object(d, oa, ob);
    if (rc == WK_OK)
        rc = wk_scene_object_children(d->a, oa, &ca);
    if (rc == WK_OK)
        rc = wk_scene_object_children(d->b, ob, &cb);
    if (rc == WK_OK)
        rc = match(d, OBJECTS, &ca, &cb, compare_tree, &removed, &added);
    for (size_t i = 0; rc == WK_OK && i < removed.count; i++)
        rc = subtree(d->a, removed.items[i], &d->out->removed_objects);
    for (size_t i = 0; rc == WK_OK && i < added.count; i++)
        rc = subtree(d->b, added.items[i], &d->out->added_objects);
    wk_entity_list_free(&ca);
    wk_entity_list_free(&cb);
    wk_entity_list_free(&removed);
    wk_entity_list_free(&added);
    return rc;
}

/* By id, every object of one world looked up in the other: the path taken
 * when the diff cannot tell which objects changed. */
static int compare_all_by_id(differ *d)
{
    wk_entity_list la = {0}, lb = {0};
    int rc = wk_scene_objects(d->a, &la);
    if (rc == WK_OK)
        rc = wk_scene_objects(d->b, &lb);
    if (rc == WK_OK)
        rc = match(d, OBJECTS, &la, &lb, compare_object, &d->out->removed_objects, &d->out->added_objects);
    wk_entity_list_free(&la);
    wk_entity_list_free(&lb);
    return rc;
}

/* ---- by id, through the ECM diff ---------------------------------------- */

/* An object the diff touched. When nothing that changed can have moved an
 * entity into or out of it, and at most one of its entities other than
 * frames changed, its changes are described from the diff alone; otherwise
 * (walk) its entities and frames are listed in both worlds and matched, as
 * the full comparison does, which also puts several entities' notes in the
 * order of the object's tree. */
typedef struct node {
    wk_entity object;
    long depth;      /* below the root entity, for parents-before-children order */
    bool walk;
    size_t entities; /* changed entities that are not frames */
} node;

/* An entity changed in place (same object, same parent, frame or not as
 * before), in the order the diff reported it. */
typedef struct change {
    wk_entity object, entity;
    size_t seq;
    bool frame;
} change;

typedef struct touched {
    const differ *d;
    wk__index reported; /* entities in both that differ */
    wk__index seen;     /* object -> its place in nodes + 1 */
    node *nodes;
    size_t node_count, node_cap;
    change *changes;
    size_t change_count, change_cap;
    wk_entity_list removed, added;
} touched;

/* The diff's callback result asking for the full comparison instead. */
#define FULL_COMPARISON 1

static uint64_t entity_hash(wk_entity e)
{
    return wk__hash(&e, sizeof e, 0);
}

static bool in_set(const wk__index *set, wk_entity e)
{
    size_t cursor = 0;
    for (uint64_t v; (v = wk__index_next(set, entity_hash(e), &cursor));)
        if (v == e)
            return true;
    return false;
}

static bool known_equal(const differ *d, wk_entity e)
{
    return d->reported && !in_set(d->reported, e);
}

/* How many parents up e meets the root entity, or -1 when it is not below
 * it: an object not below the root is not in the object world. */
static long depth(const wk_scene *s, wk_entity e)
{
    long n = 0;
    for (; e; e = wk_ecm_parent(s->ecm, e), n++)
        if (e == s->root)
            return n;
    return -1;
}

/* The node of object (made when new), or NULL when out of memory. */
static node *touch(touched *t, wk_entity object)
{
    size_t cursor = 0;
    for (uint64_t i; (i = wk__index_next(&t->seen, entity_hash(object), &cursor));)
        if (t->nodes[i - 1].object == object)
            return &t->nodes[i - 1];
    if (WK__GROW(t->nodes, t->node_cap, t->node_count + 1) ||
        wk__index_add(&t->seen, entity_hash(object), t->node_count + 1))
        return NULL;
    t->nodes[t->node_count] = (node){.object = object};
    return &t->nodes[t->node_count++];
}

/* Marks the object (if any) to be walked. */
static int walk(touched *t, wk_entity object)
{
    node *n = object ? touch(t, object) : NULL;
    if (n)
        n->walk = true;
    return !object || n ? WK_OK : WK_NOMEM;
}

static bool has_type(const wk_type *types, size_t n, wk_type type)
{
    for (size_t i = 0; i < n; i++)
        if (types[i] == type)
            return true;
    return false;
}

/* An entity only in the base world belonged to an object there, which it
 * left (or it was that object's base: the object is removed); one only in
 * the changed world joined an object there (or is a new object's base).
 * One in both belongs to an object in each: when it may have moved (a new
 * parent, Object or Frame gained or lost, another owner) both objects'
 * members must be matched anew, else it is a change in place. */
static int on_entity(const wk_ecm_diff_entry *x, void *ctx)
{
    touched *t = ctx;
    const wk_scene *a = t->d->a, *b = t->d->b;
    wk_entity e = x->entity, oa = WK_NULL_ENTITY, ob = WK_NULL_ENTITY;
    bool in_a = x->kind != WK_DIFF_ONLY_B, in_b = x->kind != WK_DIFF_ONLY_A;
    bool object_a = in_a && wk_scene_is_object(a, e), object_b = in_b && wk_scene_is_object(b, e);
    int rc = WK_OK;
    if (x->kind == WK_DIFF_CHANGED) {
        /* A node moved into or out of the tree under the root takes its
         * whole subtree along, which the diff does not list: rare enough
         * (the scene's own calls never do it) to compare everything. */
        if (x->parent_changed && (depth(a, e) < 0) != (depth(b, e) < 0))
            return FULL_COMPARISON;
        rc = wk__index_add(&t->reported, entity_hash(e), e);
    }
    if (in_a && object_a && !object_b)
        rc = rc ? rc : wk_entity_list_push(&t->removed, e);
    else if (in_a)
        oa = wk_scene_object_of(a, e);
    if (in_b && object_b && !object_a)
        rc = rc ? rc : wk_entity_list_push(&t->added, e);
    else if (in_b)
        ob = wk_scene_object_of(b, e);
    bool moved = x->kind != WK_DIFF_CHANGED || x->parent_changed || object_a != object_b || oa != ob ||
                 has_type(x->removed, x->removed_count, a->types.frame) ||
                 has_type(x->added, x->added_count, b->types.frame);
    if (rc || moved)
        return rc ? rc : walk(t, oa) ? WK_NOMEM : walk(t, ob);
    if (!oa)
        return WK_OK; /* not part of any object */
    node *n = touch(t, oa);
    if (!n || WK__GROW(t->changes, t->change_cap, t->change_count + 1))
        return WK_NOMEM;
    bool frame = wk_scene_is_frame(a, e);
    n->entities += !frame;
    t->changes[t->change_count] = (change){oa, e, t->change_count, frame};
    t->change_count++;
    return WK_OK;
}

static int by_rank(const void *x, const void *y)
{
    const node *p = x, *q = y;
    if (p->depth != q->depth)
        return p->depth < q->depth ? -1 : 1;
    return p->object < q->object ? -1 : p->object > q->object;
}

static int by_object(const void *x, const void *y)
{
    const change *p = x, *q = y;
    if (p->object != q->object)
        return p->object < q->object ? -1 : 1;
    return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* Keeps the nodes of objects in both object worlds, parents before children
 * (by depth, then id), as wk_scene_objects lists them. Depth in the base
 * world only: unless the diff asked for the full comparison, no entity in
 * both worlds moved into or out of the tree under the root (a move of one of
 * its ancestors would have been reported and checked), so it is below the
 * root in both or in neither. */
static void rank_nodes(touched *t)
{
    const differ *d = t->d;
    size_t kept = 0;
    for (size_t i = 0; i < t->node_count; i++) {
        node n = t->nodes[i];
        n.depth = wk_scene_is_object(d->a, n.object) && wk_scene_is_object(d->b, n.object) ? depth(d->a, n.object) : -1;
        if (n.depth >= 0)
            t->nodes[kept++] = n;
    }
    t->node_count = kept;
    if (kept) /* nodes may be NULL, which qsort must not be given */
        qsort(t->nodes, kept, sizeof *t->nodes, by_rank);
}

/* The same for a list of objects of one world. */
static int rank_list(const wk_scene *s, wk_entity_list *list)
{
    node *r = malloc((list->count + 1) * sizeof *r);
    if (!r)
        return WK_NOMEM;
    size_t n = 0;
    for (size_t i = 0; i < list->count; i++) {
        long depth_i = wk_scene_is_object(s, list->items[i]) ? depth(s, list->items[i]) : -1;
        if (depth_i >= 0)
            r[n++] = (node){.object = list->items[i], .depth = depth_i};
    }
    qsort(r, n, sizeof *r, by_rank);
    for (size_t i = 0; i < n; i++)
        list->items[i] = r[i].object;
    list->count = n;
    free(r);
    return WK_OK;
}

/* Describes an object changed in place from its changes (count of them,
 * from changes): the object's own description, its one changed entity
 * other than a frame (if any), then its changed frames. */
static int describe(differ *d, wk_entity object, const change *changes, size_t count)
{
    compare_object_info(d, object, object);
    for (size_t i = 0; i < count; i++)
        if (!changes[i].frame)
            compare_entity(d, changes[i].entity, changes[i].entity);
    int rc = record(d, &d->out->modified_objects, &d->out->modified_object_count, object, object);
    for (size_t i = 0; rc == WK_OK && i < count; i++)
        if (changes[i].frame)
            rc = compare_frame(d, changes[i].entity, changes[i].entity);
    return rc;
}

static int append(wk_entity_list *to, const wk_entity_list *from)
{
    int rc = WK_OK;
    for (size_t i = 0; rc == WK_OK && i < from->count; i++)
        rc = wk_entity_list_push(to, from->items[i]);
    return rc;
}

static int compare_touched(differ *d, touched *t)
{
    rank_nodes(t);
    if (t->change_count)
        qsort(t->changes, t->change_count, sizeof *t->changes, by_object);
    d->reported = &t->reported;
    int rc = WK_OK;
    for (size_t i = 0; rc == WK_OK && i < t->node_count; i++) {
        const node *n = &t->nodes[i];
        if (n->walk || n->entities > 1) {
            rc = compare_object(d, n->object, n->object);
            continue;
        }
        /* The node's changes: a run of the sorted changes, found by bisection. */
        size_t lo = 0, hi = t->change_count;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (t->changes[mid].object < n->object)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t end = lo;
        while (end < t->change_count && t->changes[end].object == n->object)
            end++;
        rc = describe(d, n->object, t->changes + lo, end - lo);
    }
    d->reported = NULL;
    if (rc == WK_OK)
        rc = rank_list(d->a, &t->removed);
    if (rc == WK_OK)
        rc = rank_list(d->b, &t->added);
    if (rc == WK_OK)
        rc = append(&d->out->removed_objects, &t->removed);
    if (rc == WK_OK)
        rc = append(&d->out->added_objects, &t->added);
    return rc;
}

/* By id: only the objects the diff touched are examined. */
static int compare_by_id(differ *d)
{
    /* Another root, or one that lost its Object (to a state applied): the
     * object lists of the two worlds are nothing alike. */
    if (d->a->root != d->b->root || !wk_scene_is_object(d->a, d->a->root) || !wk_scene_is_object(d->b, d->b->root))
        return compare_all_by_id(d);
    touched t = {.d = d};
    int rc = wk_ecm_diff(d->a->ecm, d->b->ecm, on_entity, &t);
    rc = rc == FULL_COMPARISON ? compare_all_by_id(d) : rc ? rc : compare_touched(d, &t);
    wk__index_free(&t.reported);
    wk__index_free(&t.seen);
    free(t.nodes);
    free(t.changes);
    wk_entity_list_free(&t.removed);
    wk_entity_list_free(&t.added);
    return rc;
}

static int compare_objects(differ *d)
{
    return d->mode == WK_COMPARE_BY_NAME ? compare_tree(d, d->a->root, d->b->root) : compare_by_id(d);
}

/* The frames of the objects in objects, appended to frames. */
static int frames_of(const wk_scene *s, const wk_entity_list *objects, wk_entity_list *frames)
{
    int rc = WK_OK;
    for (size_t i = 0; rc == WK_OK && i < objects->count; i++)
        rc = wk_scene_object_frames(s, objects->items[i], frames);
    return rc;
}

static int map_types(differ *d)
{
    while (wk_ecm_type_name(d->a->ecm, d->type_count + 1))
        d->type_count++;
    d->type_count++;
    d->type_in_b = calloc(d->type_count, sizeof *d->type_in_b);
    if (!d->type_in_b)
        return WK_NOMEM;
    for (wk_type t = 1; t < d->type_count; t++)
        d->type_in_b[t] = wk_ecm_type_by_name(d->b->ecm, wk_ecm_type_name(d->a->ecm, t));
    return WK_OK;
}

int wk_scene_compare(const wk_scene *base, const wk_scene *changed, wk_compare_mode mode, wk_world_diff *out,
                     wk_status *st)
{
    memset(out, 0, sizeof *out);
    if (!wk_scene_is_object(base, base->root) || !wk_scene_is_object(changed, changed->root))
        return wk_fail(st, WK_PRECONDITION, "only object worlds can be compared");
    differ d = {.a = base, .b = changed, .mode = mode, .out = out};
    int rc = map_types(&d);
    if (rc == WK_OK)
        rc = compare_objects(&d);
    if (rc == WK_OK)
        rc = frames_of(base, &out->removed_objects, &out->removed_frames);
    if (rc == WK_OK)
        rc = frames_of(changed, &out->added_objects, &out->added_frames);
    free(d.type_in_b);
    wk_buf_free(&d.what);
    wk_entity_list *scratch[] = {&d.ea, &d.eb, &d.fa, &d.fb, &d.removed, &d.added};
    for (size_t i = 0; i < sizeof scratch / sizeof *scratch; i++)
        wk_entity_list_free(scratch[i]);
    if (rc) {
        wk_world_diff_free(out);
        return wk_fail(st, rc, "out of memory comparing worlds");
    }
    return WK_OK;
}

static void free_modified(wk_modified *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(list[i].what);
    free(list);
}

void wk_world_diff_free(wk_world_diff *d)
{
    wk_entity_list_free(&d->added_objects);
    wk_entity_list_free(&d->removed_objects);
    wk_entity_list_free(&d->added_frames);
    wk_entity_list_free(&d->removed_frames);
    free_modified(d->modified_objects, d->modified_object_count);
    free_modified(d->modified_frames, d->modified_frame_count);
    memset(d, 0, sizeof *d);
}
