/* compare.c — CompareWorlds: the objects and frames added, removed and
 * modified from one world to another, matched by id or by name, with each
 * modification described in words.
 *
 * By id, every object of one world is looked up by id in the other. By name,
 * the object trees are matched top down: children of matched objects by
 * name, so an object is the same when its full path is. Within a matched
 * pair, entities and frames are matched the same way, and their components
 * compared value by value through the types' equal hooks. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene_internal.h"

typedef enum kind { OBJECTS, FRAMES, ENTITIES } kind;

typedef struct differ {
    const wk_scene *a, *b; /* base, changed */
    wk_compare_mode mode;
    wk_world_diff *out;
    wk_type *type_in_b; /* base type id -> the changed world's id of that name */
    wk_type type_count; /* ids below this are mapped */
    wk_buf what;        /* the description being written */
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

static int compare_frame(differ *d, wk_entity fa, wk_entity fb)
{
    const char *na = wk__entity_name(d->a, fa), *nb = wk__entity_name(d->b, fb);
    if (strcmp(na, nb) != 0)
        note(d, "renamed '%s' to '%s'", na, nb);
    compare_parent(d, fa, fb);
    compare_components(d, "frame", fa, fb, &d->a->types.name, 1);
    return record(d, &d->out->modified_frames, &d->out->modified_frame_count, fa, fb);
}

static int compare_entity(differ *d, wk_entity ea, wk_entity eb)
{
    char label[WK_STATUS_MSG_MAX];
    snprintf(label, sizeof label, "entity '%s'", wk__entity_name(d->a, ea));
    /* The base entity's Object is compared field by field by the caller. */
    compare_components(d, label, ea, eb, &d->a->types.object, 1);
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

static int compare_object(differ *d, wk_entity oa, wk_entity ob)
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

static int compare_objects(differ *d)
{
    if (d->mode == WK_COMPARE_BY_NAME)
        return compare_tree(d, d->a->root, d->b->root);
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
    if (!base->root || !changed->root)
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
