/* sync.c — SyncObject: copying one object (or frame) from a world to
 * another with its ids, through the ECM's own state: the source's entities
 * serialized, applied to the destination inside a batch, and the
 * destination's leftovers removed. */
#include <string.h>

#include "scene/scene_internal.h"

/* Fails when an id the copy needs is taken in to by something that is not
 * part of what is being replaced (the node to itself), naming the node
 * synced and what holds the id. */
static int ids_free(const wk_scene *to, const wk_scene *from, const wk_entity_list *copy, wk_entity node, wk_status *st)
{
    for (size_t i = 0; i < copy->count; i++) {
        wk_entity e = copy->items[i];
        if (!wk_ecm_exists(to->ecm, e))
            continue;
        wk_entity owner = wk_scene_is_frame(to, node) ? e : wk_scene_object_of(to, e);
        if (owner != node) {
            char id[WK_ID_MAX];
            wk_scene_entity_id(to, e, id);
            return wk_fail(st, WK_PRECONDITION,
                           "'%s' cannot be synced: its id '%s' is held by '%s' in the destination world",
                           wk__node_name(from, node), id, wk__node_name(to, owner ? owner : e));
        }
    }
    return WK_OK;
}

/* Applies the state of the entities in copy from from to to, then removes
 * the entities of old (what node was in to) that copy does not hold, moving
 * objects attached to them onto node. */
static int apply(wk_scene *to, const wk_scene *from, const wk_entity_list *copy, const wk_entity_list *old,
                 wk_entity node, wk_status *st)
{
    wk_buf state = {0};
    int rc = wk_ecm_state((wk_ecm *)from->ecm, &(wk_state_desc){.entities = copy->items, .entity_count = copy->count},
                          &state);
    if (rc == WK_OK && (rc = wk_ecm_set_state(to->ecm, state.data, state.len)))
        rc = wk_fail(st, rc == WK_NOMEM ? WK_NOMEM : WK_PRECONDITION, "the copy does not fit the destination: %s",
                     wk_ecm_errmsg(to->ecm));
    wk_buf_free(&state);
    if (rc == WK_OK)
        rc = wk_scene_refresh(to);
    for (size_t i = 0; rc == WK_OK && i < old->count; i++) {
        wk_entity e = old->items[i];
        bool kept = false;
        for (size_t j = 0; j < copy->count && !kept; j++)
            kept = copy->items[j] == e;
        if (kept)
            continue;
        for (wk_entity c = wk_ecm_first_child(to->ecm, e), next; c && rc == WK_OK; c = next) {
            next = wk_ecm_next_sibling(to->ecm, c);
            if (wk_scene_is_object(to, c))
                rc = wk_scene_reparent(to, c, node, st);
        }
        if (rc == WK_OK)
            rc = wk_ecm_destroy(to->ecm, e, false);
    }
    /* Collision rules of to may have named entities the copy dropped. */
    return rc ? rc : wk__collision_forget(to, WK_NULL_ENTITY, st);
}

static int sync_node(wk_scene *to, const wk_scene *from, wk_entity node, bool object, wk_status *st)
{
    wk_entity parent = wk_ecm_parent(from->ecm, node);
    char id[WK_ID_MAX];
    if (!wk_ecm_exists(to->ecm, parent) || !wk_scene_object_of(to, parent)) {
        wk_scene_entity_id(from, parent, id);
        return wk_fail(st, WK_PRECONDITION, "the parent of '%s' (entity '%s') is not in the destination world",
                       wk__node_name(from, node), id);
    }
    bool exists = wk_ecm_exists(to->ecm, node) && (object ? wk_scene_is_object(to, node) : wk_scene_is_frame(to, node));
    wk_entity_list copy = {0}, old = {0};
    int rc = object ? wk_scene_object_entities(from, node, &copy) : wk_entity_list_push(&copy, node);
    if (rc == WK_OK && exists)
        rc = object ? wk_scene_object_entities(to, node, &old) : wk_entity_list_push(&old, node);
    if (rc)
        rc = wk_fail(st, WK_NOMEM, "out of memory syncing '%s'", wk__node_name(from, node));
    if (rc == WK_OK)
        rc = ids_free(to, from, &copy, node, st);
    if (rc == WK_OK) {
        const char *name = wk__node_name(from, node);
        rc = wk__name_free(to, wk_scene_object_of(to, parent), name,
                           object && wk_scene_object_info(from, node)->name_is_global_alias,
                           exists ? node : WK_NULL_ENTITY, st);
        if (rc == WK_INVALID) /* a name a file gave, outside the naming rules: fine here */
            rc = WK_OK;
        else if (rc)
            rc = wk_fail(st, WK_PRECONDITION, "'%s' is taken in the destination world", name);
    }
    /* In a batch of the caller's, that batch undoes a failure. */
    bool own = !wk_ecm_txn_open(to->ecm);
    if (rc == WK_OK && (!own || (rc = wk_scene_batch_begin(to, st)) == WK_OK)) {
        rc = apply(to, from, &copy, &old, node, st);
        if (own && rc)
            wk_scene_batch_rollback(to);
        else if (own)
            wk_scene_batch_commit(to);
    }
    wk_entity_list_free(&copy);
    wk_entity_list_free(&old);
    return rc;
}

int wk_scene_sync_object(wk_scene *to, const wk_scene *from, const wk_ref *ref, wk_status *st)
{
    wk_entity node;
    if (wk_scene_find_object(from, ref, &node, NULL) == WK_OK) {
        if (node == from->root)
            return wk_fail(st, WK_INVALID, "the root object cannot be synced");
        return sync_node(to, from, node, true, st);
    }
    /* Gone from the source: gone from the destination too. */
    int rc = wk_scene_find_object(to, ref, &node, st);
    return rc ? rc : wk_scene_delete_object(to, node, true, st);
}

int wk_scene_sync_frame(wk_scene *to, const wk_scene *from, const wk_ref *ref, wk_status *st)
{
    wk_entity node;
    if (wk_scene_find_frame(from, ref, &node, NULL) == WK_OK)
        return sync_node(to, from, node, false, st);
    int rc = wk_scene_find_frame(to, ref, &node, st);
    return rc ? rc : wk_scene_delete_frame(to, node, true, st);
}
