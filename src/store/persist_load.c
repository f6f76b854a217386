/* persist_load.c — a world's scene to the bytes the store keeps and back: a
 * snapshot (the ECM's full state plus the order of children), then the
 * journal's changed-only states applied in order.
 *
 * The ECM's state says who each entity's parent is, not where it sits among
 * its siblings, and applying it attaches children in the order its blocks
 * come, table by table. Children are listed in the order they were attached
 * (objects, frames and entities are reported that way), so the snapshot
 * keeps that order beside the state and loading puts it back. A journal
 * entry attaches new and moved entities in the order the step first touched
 * them, which is their order in the world as long as the step touched them
 * in the order it attached them, as the scene's calls do. */
#include <stdio.h>
#include <string.h>

#include "store/store_internal.h"

int wk__scene_save(wk_scene *s, wk_buf *state, wk_buf *order)
{
    wk_ecm *ecm = wk_scene_ecm(s);
    int rc = wk_ecm_state(ecm, NULL, state);
    wk_entity root = wk_scene_root(s);
    if (rc || !root)
        return rc;
    /* Breadth first: every parent's children side by side, in order. */
    wk_entity_list all = {0};
    rc = wk_ecm_descendants(ecm, root, &all);
    for (size_t i = 1; rc == WK_OK && i < all.count; i++) {
        uint8_t bytes[8];
        for (int k = 0; k < 8; k++)
            bytes[k] = (uint8_t)(all.items[i] >> (8 * k));
        rc = wk_buf_append(order, bytes, sizeof bytes);
    }
    wk_entity_list_free(&all);
    return rc;
}

/* Attaches every entity of order again, in order, to the parent it has:
 * each goes to the end of its parent's children, so they end up in order. */
static int restore_order(const char *id, wk_ecm *ecm, const uint8_t *order, size_t len, wk_status *st)
{
    if (len % 8)
        return wk_fail(st, WK_IO, "world '%s': the snapshot's order of children is damaged (%zu bytes)", id, len);
    for (size_t at = 0; at < len; at += 8) {
        wk_entity e = 0;
        for (int k = 0; k < 8; k++)
            e |= (wk_entity)order[at + k] << (8 * k);
        wk_entity parent = wk_ecm_parent(ecm, e);
        if (!parent)
            continue;
        if (wk_ecm_set_parent(ecm, e, WK_NULL_ENTITY) || wk_ecm_set_parent(ecm, e, parent))
            return wk_fail(st, WK_NOMEM, "world '%s': putting children in order: %s", id, wk_ecm_errmsg(ecm));
    }
    return WK_OK;
}

int wk__scene_begin(const char *id, const uint8_t *state, size_t len, const uint8_t *order, size_t order_len,
                    wk_scene **out, wk_status *st)
{
    wk_scene *s = wk_scene_new();
    if (!s)
        return wk_fail(st, WK_NOMEM, "out of memory loading world '%s'", id);
    wk_ecm *ecm = wk_scene_ecm(s);
    int rc = wk_ecm_set_state(ecm, state, len);
    if (rc)
        rc = wk_fail(st, rc == WK_NOMEM ? WK_NOMEM : WK_IO, "world '%s': the snapshot does not load: %s", id,
                     wk_ecm_errmsg(ecm));
    if (rc == WK_OK)
        rc = restore_order(id, ecm, order, order_len, st);
    if (rc) {
        wk_scene_free(s);
        return rc;
    }
    *out = s;
    return WK_OK;
}

int wk__scene_replay(const char *id, wk_scene *s, int64_t seq, const uint8_t *entry, size_t len, wk_status *st)
{
    wk_ecm *ecm = wk_scene_ecm(s);
    int rc = wk_ecm_set_state(ecm, entry, len);
    if (rc)
        return wk_fail(st, rc == WK_NOMEM ? WK_NOMEM : WK_IO, "world '%s': journal entry %lld does not apply: %s", id,
                       (long long)seq, wk_ecm_errmsg(ecm));
    return WK_OK;
}

int wk__scene_end(const char *id, wk_scene *s, wk_status *st)
{
    wk_status why;
    int rc = wk_scene_objects_adopt(s, &why);
    if (rc)
        return wk_fail(st, rc == WK_NOMEM ? WK_NOMEM : WK_IO, "world '%s' is no object world: %s", id, why.message);
    return WK_OK;
}
