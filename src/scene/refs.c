/* refs.c — ids of objects, frames and entities, and resolving the references
 * of ObjectWorldService (by id, by name, by path) to entities. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene_internal.h"

static void format_id(const wk_scene *s, wk_entity e, const char *prefix, const char *root_id, char *out)
{
    if (e == s->root)
        snprintf(out, WK_ID_MAX, "%s", root_id);
    else
        snprintf(out, WK_ID_MAX, "%s%" PRIu64, prefix, e);
}

void wk_scene_object_id(const wk_scene *s, wk_entity object, char *out)
{
    format_id(s, object, "obj_", "root", out);
}

void wk_scene_frame_id(const wk_scene *s, wk_entity frame, char *out)
{
    format_id(s, frame, "frm_", "frm_root", out);
}

void wk_scene_entity_id(const wk_scene *s, wk_entity e, char *out)
{
    format_id(s, e, "eid_", "eid_root", out);
}

/* The number that digits (all of the string) spell, or 0 when the string
 * holds anything else or the number does not fit 64 bits. strtoull would do,
 * but its locale and sign handling cost more than the rest of a lookup by
 * id, which the transform service runs twice per call. */
static uint64_t parse_digits(const char *digits)
{
    uint64_t v = 0;
    const unsigned char *c = (const unsigned char *)digits;
    for (unsigned d; (d = *c - (unsigned)'0') <= 9; c++)
        v = v * 10 + d; /* wraps beyond 20 digits, which the checks below refuse */
    /* 2^64 - 1 has 20 digits: fewer always fit, 20 when they do not spell
     * a greater number. */
    size_t n = (size_t)(c - (const unsigned char *)digits);
    if (*c || n > 20 || (n == 20 && strcmp(digits, "18446744073709551615") > 0))
        return 0;
    return v;
}

/* What follows a four-letter prefix (obj_, frm_, eid_) at the start of s,
 * or NULL. Letter by letter, stopping at the first difference (s's end is
 * one): four compares where strncmp would be a call. */
static inline const char *after_prefix(const char *s, const char prefix[4])
{
    return s[0] == prefix[0] && s[1] == prefix[1] && s[2] == prefix[2] && s[3] == prefix[3] ? s + 4 : NULL;
}

/* The entity an id names, given its prefix and the root's id, before any
 * check that it lives: 0 when the id is malformed. */
static inline wk_entity parse_id(const wk_scene *s, const char *id, const char *prefix, const char *root_id)
{
    const char *digits = after_prefix(id, prefix);
    if (!digits || *digits < '1' || *digits > '9')
        return strcmp(id, root_id) == 0 ? s->root : WK_NULL_ENTITY;
    return parse_digits(digits);
}

/* The entity an id names when it is a live entity of the given type (the
 * check reads the entity's record once), else 0. */
static wk_entity parse_id_of(const wk_scene *s, const char *id, const char *prefix, const char *root_id,
                             wk_type type)
{
    wk_entity e = parse_id(s, id, prefix, root_id);
    /* Most lookups by id precede a read of the node's pose: its cache
     * miss then overlaps the record's, instead of following it. */
    wk__pose_prefetch(s, e);
    return wk_ecm_has(s->ecm, e, type) ? e : WK_NULL_ENTITY;
}

static bool empty(const char *s)
{
    return !s || !*s;
}

/* The one object named name: the global alias of that name, else the only
 * object of that name. */
static int object_by_name(const wk_scene *s, const char *name, wk_entity *out, wk_status *st)
{
    if (strcmp(name, "root") == 0) {
        *out = s->root;
        return WK_OK;
    }
    uint64_t h = wk__object_name_hash(name);
    size_t cursor = 0, count = 0;
    *out = WK_NULL_ENTITY;
    for (wk_entity o; (o = wk__index_next(&s->object_names, h, &cursor));) {
        const wk_object_info *info = wk_scene_object_info(s, o);
        if (!info || strcmp(info->name, name) != 0)
            continue;
        if (info->name_is_global_alias) {
            *out = o;
            return WK_OK;
        }
        *out = o;
        count++;
    }
    if (count == 1)
        return WK_OK;
    return count ? wk_fail(st, WK_INVALID, "%zu objects are named '%s': refer to it by id or full path", count, name)
                 : wk_fail(st, WK_NOT_FOUND, "no object named '%s'", name);
}

int wk_scene_find_object(const wk_scene *s, const wk_ref *ref, wk_entity *out, wk_status *st)
{
    if (!empty(ref->id)) {
        if ((*out = parse_id_of(s, ref->id, "obj_", "root", s->types.object)))
            return WK_OK;
        return wk_fail(st, WK_NOT_FOUND, "no object with id '%s'", ref->id);
    }
    if (empty(ref->object_name))
        return wk_fail(st, WK_INVALID, "the object reference holds neither an id nor a name");
    return object_by_name(s, ref->object_name, out, st);
}

/* A walk's search for the frame or child object of a name. */
typedef struct name_search {
    const char *name;
    wk_entity found;
} name_search;

static int frame_named(const wk_scene *s, wk_entity e, bool inside, void *ctx)
{
    name_search *f = ctx;
    if (inside && wk_scene_is_frame(s, e) && strcmp(wk__entity_name(s, e), f->name) == 0) {
        f->found = e;
        return 1;
    }
    return 0;
}

int wk_scene_find_frame(const wk_scene *s, const wk_ref *ref, wk_entity *out, wk_status *st)
{
    if (!empty(ref->id)) {
        if ((*out = parse_id_of(s, ref->id, "frm_", "frm_root", s->types.frame)))
            return WK_OK;
        return wk_fail(st, WK_NOT_FOUND, "no frame with id '%s'", ref->id);
    }
    if (empty(ref->object_name) || empty(ref->frame_name))
        return wk_fail(st, WK_INVALID, "the frame reference needs an id, or an object name and a frame name");
    wk_entity object;
    int rc = object_by_name(s, ref->object_name, &object, st);
    if (rc)
        return rc;
    name_search f = {ref->frame_name, 0};
    wk__walk_object(s, object, frame_named, &f);
    if (!f.found)
        return wk_fail(st, WK_NOT_FOUND, "object '%s' has no frame '%s'", ref->object_name, ref->frame_name);
    *out = f.found;
    return WK_OK;
}

static bool is_frame_id(const char *id)
{
    return after_prefix(id, "frm_") != NULL;
}

int wk_scene_find_node(const wk_scene *s, const wk_ref *ref, wk_entity *out, wk_status *st)
{
    if (!empty(ref->id))
        return is_frame_id(ref->id) ? wk_scene_find_frame(s, ref, out, st) : wk_scene_find_object(s, ref, out, st);
    return empty(ref->frame_name) ? wk_scene_find_object(s, ref, out, st) : wk_scene_find_frame(s, ref, out, st);
}

/* The entity a node's id names, before any check: a frame's id when it
 * starts with 'f', else an object's. */
static wk_entity parse_node_id(const wk_scene *s, const char *id)
{
    return id[0] == 'f' ? parse_id(s, id, "frm_", "frm_root") : parse_id(s, id, "obj_", "root");
}

int wk_scene_find_nodes(const wk_scene *s, const wk_ref *refs, size_t n, wk_entity *out, wk_status *st)
{
    /* Every id first, then every check: the reads of one node's record and
     * cached pose overlap the other nodes' instead of following them. */
    for (size_t i = 0; i < n; i++) {
        out[i] = empty(refs[i].id) ? WK_NULL_ENTITY : parse_node_id(s, refs[i].id);
        wk__pose_prefetch(s, out[i]);
    }
    for (size_t i = 0; i < n; i++) {
        /* An id that parsed starts with 'f' exactly when it is a frame's. */
        if (out[i] && wk_ecm_has(s->ecm, out[i], refs[i].id[0] == 'f' ? s->types.frame : s->types.object))
            continue;
        /* An id that does not resolve, and a reference by names, take
         * wk_scene_find_node's way, which names what it did not find. */
        int rc = wk_scene_find_node(s, &refs[i], &out[i], st);
        if (rc)
            return rc;
    }
    return WK_OK;
}

static int child_object_named(const wk_scene *s, wk_entity e, bool inside, void *ctx)
{
    name_search *c = ctx;
    if (!inside && strcmp(wk__object_name(s, e), c->name) == 0) {
        c->found = e;
        return 1;
    }
    return 0;
}

int wk_scene_find_object_path(const wk_scene *s, const char *const *names, size_t n, wk_entity *out, wk_status *st)
{
    wk_entity object = s->root;
    for (size_t i = 0; i < n; i++) {
        name_search c = {names[i], 0};
        wk__walk_object(s, object, child_object_named, &c);
        if (!c.found)
            return wk_fail(st, WK_NOT_FOUND, "object '%s' has no child object '%s'", wk__object_name(s, object),
                           names[i]);
        object = c.found;
    }
    *out = object;
    return WK_OK;
}

/* ---- entity filters ---------------------------------------------------- */

typedef struct filter_walk {
    const wk_entity_filter *f;
    wk_entity_list *out;
    wk_entity object;
} filter_walk;

static bool listed(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] && strcmp(list[i], s) == 0)
            return true;
    return false;
}

static int filter_one(const wk_scene *s, wk_entity e, bool inside, void *ctx)
{
    filter_walk *w = ctx;
    if (!inside)
        return 0;
    char id[WK_ID_MAX];
    wk_scene_entity_id(s, e, id);
    bool take = w->f->all || (w->f->base && e == w->object) || listed(w->f->ids, w->f->id_count, id) ||
                listed(w->f->names, w->f->name_count, wk__entity_name(s, e));
    return take ? wk_entity_list_push(w->out, e) : 0;
}

static bool contains(const wk_entity_list *list, size_t from, wk_entity e)
{
    for (size_t i = from; i < list->count; i++)
        if (list->items[i] == e)
            return true;
    return false;
}

int wk_scene_filter(const wk_scene *s, wk_entity object, const wk_entity_filter *filter, wk_entity_list *out,
                    wk_status *st)
{
    static const wk_entity_filter base_only = {.base = true};
    if (!filter || (!filter->base && !filter->final && !filter->all && !filter->id_count && !filter->name_count))
        filter = &base_only;
    size_t first = out->count;
    filter_walk w = {filter, out, object};
    if (wk__walk_object(s, object, filter_one, &w))
        return wk_fail(st, WK_NOMEM, "out of memory filtering the entities of object '%s'", wk__object_name(s, object));
    /* Every id and name given must have matched. */
    for (size_t i = 0; i < filter->id_count; i++) {
        wk_entity e = parse_id(s, filter->ids[i] ? filter->ids[i] : "", "eid_", "eid_root");
        if (!e || !contains(out, first, e))
            return wk_fail(st, WK_NOT_FOUND, "object '%s' has no entity with id '%s'", wk__object_name(s, object),
                           filter->ids[i] ? filter->ids[i] : "");
    }
    for (size_t i = 0; i < filter->name_count; i++) {
        bool hit = false;
        for (size_t j = first; j < out->count && !hit; j++)
            hit = filter->names[i] && strcmp(wk__entity_name(s, out->items[j]), filter->names[i]) == 0;
        if (!hit)
            return wk_fail(st, WK_NOT_FOUND, "object '%s' has no entity named '%s'", wk__object_name(s, object),
                           filter->names[i] ? filter->names[i] : "");
    }
    if (filter->final && !filter->all) {
        size_t finals;
        wk_entity final;
        int rc = wk__final_entity(s, object, &finals, &final, st);
        if (rc)
            return rc;
        if (finals != 1)
            return wk_fail(st, WK_INVALID,
                           "object '%s' has %zu final entities (links no other link hangs from), not one",
                           wk__object_name(s, object), finals);
        if (!contains(out, first, final) && wk_entity_list_push(out, final))
            return wk_fail(st, WK_NOMEM, "out of memory");
    }
    return WK_OK;
}

int wk_scene_filter_one(const wk_scene *s, wk_entity object, const wk_entity_filter *filter, wk_entity *out,
                        wk_status *st)
{
    wk_entity_list list = {0};
    int rc = wk_scene_filter(s, object, filter, &list, st);
    if (rc == WK_OK && list.count != 1)
        rc = wk_fail(st, WK_INVALID, "the entity filter selects %zu entities of object '%s', not one", list.count,
                     wk__object_name(s, object));
    if (rc == WK_OK)
        *out = list.items[0];
    wk_entity_list_free(&list);
    return rc;
}
