/* store_ops.c — what the store does with whole worlds: metadata and the
 * structure hash, listing, swapping, and comparing or syncing two worlds. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash_index.h"
#include "store/persist.h"
#include "worldkit/ecs_state.pb-c.h"

/* The hash of a state message that does not depend on the order of its
 * blocks, rows or columns: a sum over rows of the hash of the row's id and
 * parent, and over its values of the hash of the value seeded with its
 * entity and type name. Tables keep their rows in the order their entities
 * arrived, which a clone keeps and a reload from disk does not. */
static uint64_t state_hash(const Worldkit__Ecs__State *msg)
{
    uint64_t sum = 0;
    for (size_t b = 0; b < msg->n_blocks; b++) {
        const Worldkit__Ecs__Block *blk = msg->blocks[b];
        for (size_t c = 0; c < blk->n_columns; c++) {
            const Worldkit__Ecs__Column *col = blk->columns[c];
            const Worldkit__Ecs__ComponentType *type = NULL;
            for (size_t t = 0; t < msg->n_types && !type; t++)
                if (msg->types[t]->id == col->type)
                    type = msg->types[t];
            const char *name = type && type->name ? type->name : "";
            uint64_t name_hash = wk__hash(name, strlen(name), 0);
            size_t size = col->n_values || !blk->n_ids ? 0 : col->packed_values.len / blk->n_ids;
            for (size_t i = 0; i < blk->n_ids; i++) {
                uint64_t seed = wk__hash(&blk->ids[i], sizeof blk->ids[i], name_hash);
                if (col->n_values)
                    sum += wk__hash(col->values[i].data, col->values[i].len, seed);
                else /* a column of empty values may have no data at all */
                    sum += wk__hash(size ? col->packed_values.data + i * size : NULL, size, seed);
            }
        }
        for (size_t i = 0; i < blk->n_ids; i++) {
            uint64_t row[2] = {blk->ids[i], blk->n_parents ? blk->parents[i] : 0};
            sum += wk__hash(row, sizeof row, 0x5eed);
        }
    }
    return sum;
}

/* Structure: everything but poses. Joint positions live in ParentPose too,
 * which is what keeps a joint's motion out of the hash. */
static int structure_hash(wk_scene *s, char *out)
{
    wk_ecm *ecm = wk_scene_ecm(s);
    wk_type skip = wk_scene_types_of(s)->parent_pose;
    wk_type types[256];
    size_t n = 0;
    for (wk_type t = 1; n < 256 && wk_ecm_type_name(ecm, t); t++)
        if (t != skip)
            types[n++] = t;
    wk_buf state = {0};
    int rc = wk_ecm_state(ecm, &(wk_state_desc){.types = types, .type_count = n}, &state);
    Worldkit__Ecs__State *msg = rc ? NULL : worldkit__ecs__state__unpack(NULL, state.len, state.data);
    if (msg)
        snprintf(out, 17, "%016" PRIx64, state_hash(msg));
    else if (rc == WK_OK)
        rc = WK_NOMEM; /* what we wrote ourselves parses unless memory ran out */
    worldkit__ecs__state__free_unpacked(msg, NULL);
    wk_buf_free(&state);
    return rc;
}

/* Fills out from an open world. */
static int meta_of(wk_world *w, wk_world_meta *out)
{
    int rc = WK_OK;
    pthread_mutex_lock(&w->meta_lock);
    if (w->hash_stale && (rc = structure_hash(w->scene, w->structure_hash)) == WK_OK)
        w->hash_stale = false;
    memcpy(out->structure_hash, w->structure_hash, sizeof out->structure_hash);
    pthread_mutex_unlock(&w->meta_lock);
    snprintf(out->id, sizeof out->id, "%s", w->id);
    out->last_update_ns = w->last_update_ns;
    out->has_user_tag = w->has_user_tag;
    snprintf(out->user_tag, sizeof out->user_tag, "%s", w->user_tag);
    out->owner[0] = '\0'; /* a shared database's: filled by its callers */
    return rc;
}

int wk_store_meta(wk_store *store, const char *id, wk_world_meta *out, wk_status *st)
{
    wk_world *w;
    int rc = wk_store_open(store, id, false, &w, st);
    if (rc)
        return rc;
    rc = meta_of(w, out);
    wk_store_close(w, false, false);
    /* A world of a shared database that opens here is this server's: it
     * holds the world's lease. */
    if (rc == WK_OK && store->db && store->db->ops->address)
        store->db->ops->address(store->db->impl, out->owner);
    return rc ? wk_fail(st, rc, "out of memory hashing world '%s'", id) : WK_OK;
}

static int by_id(const void *a, const void *b)
{
    return strcmp(((const wk_world_meta *)a)->id, ((const wk_world_meta *)b)->id);
}

/* A store whose database other servers share lists the database's worlds
 * with their owners, and the structure hash of those it holds. */
static int list_shared(wk_store *store, wk_world_meta **out, size_t *count)
{
    wk__listed *listed;
    size_t n;
    wk__db *db = store->db;
    if (db->ops->list(db->impl, &listed, &n, NULL))
        return WK_IO;
    wk_world_meta *metas = calloc(n ? n : 1, sizeof *metas);
    int rc = metas ? WK_OK : WK_NOMEM;
    for (size_t i = 0; rc == WK_OK && i < n; i++) {
        metas[i] = listed[i].meta;
        snprintf(metas[i].owner, sizeof metas[i].owner, "%s", listed[i].owner);
        wk_world *w = wk__world_ref(store, metas[i].id);
        if (!w)
            continue;
        wk_world_meta mine;
        pthread_rwlock_rdlock(&w->lock);
        rc = meta_of(w, &mine);
        pthread_rwlock_unlock(&w->lock);
        wk__world_unref(w);
        memcpy(metas[i].structure_hash, mine.structure_hash, sizeof mine.structure_hash);
    }
    free(listed);
    if (rc) {
        free(metas);
        return rc;
    }
    *out = metas;
    *count = n;
    return WK_OK;
}

int wk_store_list(wk_store *store, wk_world_meta **out, size_t *count)
{
    if (store->db && store->db->ops->list)
        return list_shared(store, out, count);
    /* Take a reference on every world, then read each under its own lock. */
    pthread_rwlock_rdlock(&store->lock);
    size_t n = store->count;
    wk_world **worlds = malloc((n ? n : 1) * sizeof *worlds);
    for (size_t i = 0; worlds && i < n; i++) {
        worlds[i] = store->worlds[i];
        atomic_fetch_add(&worlds[i]->refs, 1);
    }
    pthread_rwlock_unlock(&store->lock);
    if (!worlds)
        return WK_NOMEM;
    wk_world_meta *metas = calloc(n ? n : 1, sizeof *metas);
    int rc = metas ? WK_OK : WK_NOMEM;
    for (size_t i = 0; i < n; i++) {
        pthread_rwlock_rdlock(&worlds[i]->lock);
        if (rc == WK_OK)
            rc = meta_of(worlds[i], &metas[i]);
        pthread_rwlock_unlock(&worlds[i]->lock);
        wk__world_unref(worlds[i]);
    }
    free(worlds);
    if (rc) {
        free(metas);
        return rc;
    }
    qsort(metas, n, sizeof *metas, by_id);
    *out = metas;
    *count = n;
    return WK_OK;
}

/* Opens two different worlds, locking them in address order so that two
 * callers opening the same pair cannot deadlock. */
static int open_two(wk_store *store, const char *id_a, bool write_a, const char *id_b, bool write_b, wk_world **a,
                    wk_world **b, wk_status *st)
{
    int pulled = wk__db_pull(store, id_a, st);
    if (pulled == WK_OK && strcmp(id_a, id_b) != 0)
        pulled = wk__db_pull(store, id_b, st);
    if (pulled)
        return pulled;
    pthread_rwlock_rdlock(&store->lock);
    size_t i = wk__find_world(store, id_a), j = wk__find_world(store, id_b);
    int rc = i == store->count   ? wk_fail(st, WK_NOT_FOUND, "no world with id '%s'", id_a)
             : j == store->count ? wk_fail(st, WK_NOT_FOUND, "no world with id '%s'", id_b)
             : i == j            ? wk_fail(st, WK_INVALID, "both worlds are '%s'", id_a)
                                 : WK_OK;
    if (rc == WK_OK) {
        *a = store->worlds[i];
        *b = store->worlds[j];
        atomic_fetch_add(&(*a)->refs, 1);
        atomic_fetch_add(&(*b)->refs, 1);
    }
    pthread_rwlock_unlock(&store->lock);
    if (rc)
        return rc;
    wk_world *first = *a < *b ? *a : *b, *second = *a < *b ? *b : *a;
    bool write_first = first == *a ? write_a : write_b, write_second = first == *a ? write_b : write_a;
    (write_first ? pthread_rwlock_wrlock : pthread_rwlock_rdlock)(&first->lock);
    (write_second ? pthread_rwlock_wrlock : pthread_rwlock_rdlock)(&second->lock);
    if (write_a) /* written only by the holder of the write lock */
        (*a)->writing = true;
    if (write_b)
        (*b)->writing = true;
    return WK_OK;
}

int wk_store_open_pair(wk_store *store, const char *id_a, bool write_a, const char *id_b, bool write_b,
                       wk_world **a, wk_world **b, wk_status *st)
{
    return open_two(store, id_a, write_a, id_b, write_b, a, b, st);
}

int wk_store_swap(wk_store *store, const char *id, const char *other, wk_status *st)
{
    if (strcmp(id, other) == 0)
        return wk_store_meta(store, id, &(wk_world_meta){0}, st); /* itself: nothing to do if it exists */
    wk_world *a, *b;
    int rc = open_two(store, id, true, other, true, &a, &b, st);
    if (rc)
        return rc;
    int64_t now = wk__now_ns();
    if (store->db && (rc = wk__db_swap(store, a, b, now, st))) {
        wk_store_close(a, false, false);
        wk_store_close(b, false, false);
        return rc;
    }
    wk_scene *scene = a->scene;
    a->scene = b->scene;
    b->scene = scene;
    wk__wrec rec = a->rec;
    a->rec = b->rec;
    b->rec = rec;
    char tag[sizeof a->user_tag];
    memcpy(tag, a->user_tag, sizeof tag);
    memcpy(a->user_tag, b->user_tag, sizeof tag);
    memcpy(b->user_tag, tag, sizeof tag);
    bool has_tag = a->has_user_tag;
    a->has_user_tag = b->has_user_tag;
    b->has_user_tag = has_tag;
    /* Nothing changed in either ECM: the contents moved. */
    for (wk_world *w = a; w; w = w == a ? b : NULL) {
        w->last_update_ns = now;
        pthread_mutex_lock(&w->meta_lock);
        w->hash_stale = true;
        pthread_mutex_unlock(&w->meta_lock);
        wk_store_close(w, false, false);
    }
    wk__store_replaced(store, id);
    wk__store_replaced(store, other);
    return WK_OK;
}

int wk_store_compare(wk_store *store, const char *base, const char *changed, wk_compare_mode mode,
                     wk_world_diff *out, wk_status *st)
{
    wk_world *a, *b;
    int rc;
    if (strcmp(base, changed) == 0) {
        if ((rc = wk_store_open(store, base, false, &a, st)))
            return rc;
        rc = wk_scene_compare(a->scene, a->scene, mode, out, st);
        wk_store_close(a, false, false);
        return rc;
    }
    if ((rc = open_two(store, base, false, changed, false, &a, &b, st)))
        return rc;
    rc = wk_scene_compare(a->scene, b->scene, mode, out, st);
    wk_store_close(a, false, false);
    wk_store_close(b, false, false);
    return rc;
}

int wk_store_sync(wk_store *store, const char *from, const char *to, const wk_ref *ref, bool frame, wk_status *st)
{
    wk_world *a, *b;
    int rc = open_two(store, from, false, to, true, &a, &b, st);
    if (rc)
        return rc;
    /* In a batch, so that what would take the world past the entities it
     * may hold goes again, as the other writers' changes do. */
    if ((rc = wk_scene_batch_begin(b->scene, st)) == WK_OK) {
        rc = frame ? wk_scene_sync_frame(b->scene, a->scene, ref, st)
                   : wk_scene_sync_object(b->scene, a->scene, ref, st);
        if (rc == WK_OK)
            rc = wk_store_room(b, st);
        if (rc)
            wk_scene_batch_rollback(b->scene);
        else
            wk_scene_batch_commit(b->scene);
    }
    if (rc == WK_OK)
        rc = wk_store_commit(b, true, st);
    wk_store_close(a, false, false);
    wk_store_close(b, false, false);
    return rc;
}
