/* store.c — the set of worlds: ids, lifetimes, locks, and the commit that
 * ends a write.
 *
 * The store's own lock guards the list of worlds; each world has a
 * reader-writer lock of its own and a reference count, so a world deleted or
 * replaced while someone has it open lives until they close it. Lock order:
 * the store's lock before any world's; two worlds by address; the
 * database's mutex (persist.c) last. In a store on disk every change to the
 * list is written before it is made in memory, and a commit writes the
 * world's changes before it resets their tracking. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/grow.h"
#include "base/hash_index.h"
#include "store/persist.h"

int64_t wk__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void wk__world_unref(wk_world *w)
{
    if (atomic_fetch_sub(&w->refs, 1) != 1)
        return;
    wk_scene_free(w->scene);
    pthread_rwlock_destroy(&w->lock);
    pthread_mutex_destroy(&w->meta_lock);
    free(w);
}

wk_world *wk__world_new(wk_store *store, const char *id, wk_scene *scene, const char *user_tag)
{
    wk_world *w = calloc(1, sizeof *w);
    if (!w || pthread_rwlock_init(&w->lock, NULL)) {
        free(w);
        wk_scene_free(scene);
        return NULL;
    }
    if (pthread_mutex_init(&w->meta_lock, NULL)) {
        pthread_rwlock_destroy(&w->lock);
        free(w);
        wk_scene_free(scene);
        return NULL;
    }
    atomic_init(&w->refs, 1);
    w->store = store;
    snprintf(w->id, sizeof w->id, "%s", id);
    w->scene = scene;
    w->has_user_tag = user_tag != NULL;
    snprintf(w->user_tag, sizeof w->user_tag, "%s", user_tag ? user_tag : "");
    w->last_update_ns = wk__now_ns();
    w->hash_stale = true;
    return w;
}

int wk__world_settle(wk_world *w)
{
    wk_ecm *ecm = wk_scene_ecm(w->scene);
    int rc = wk_ecm_end_step(ecm);
    w->rec.version = wk_ecm_version(ecm);
    if (rc == WK_OK && w->store->db) {
        wk_buf empty = {0};
        rc = wk_ecm_state(ecm, &(wk_state_desc){.changed_only = true}, &empty);
        w->rec.empty_len = empty.len;
        wk_buf_free(&empty);
    }
    return rc;
}

wk_store *wk_store_new(void)
{
    wk_store *store = calloc(1, sizeof *store);
    if (store && pthread_rwlock_init(&store->lock, NULL)) {
        free(store);
        return NULL;
    }
    if (store && pthread_mutex_init(&store->geometry_lock, NULL)) {
        pthread_rwlock_destroy(&store->lock);
        free(store);
        return NULL;
    }
    return store;
}

int wk_store_open_desc(const wk_store_desc *desc, wk_store **out, wk_status *st)
{
    wk_store *store = wk_store_new();
    if (!store)
        return wk_fail(st, WK_NOMEM, "out of memory opening the store");
    int rc = wk__db_open(store, desc, st);
    if (rc) {
        wk_store_free(store);
        return rc;
    }
    *out = store;
    return WK_OK;
}

int wk_store_open_dir(const char *dir, wk_store **out, wk_status *st)
{
    return wk_store_open_desc(&(wk_store_desc){.dir = dir}, out, st);
}

void wk_store_free(wk_store *store)
{
    if (!store)
        return;
    /* The compactor holds references to worlds: stop it first. */
    wk__db_close(store);
    for (size_t i = 0; i < store->count; i++)
        wk__world_unref(store->worlds[i]);
    free(store->worlds);
    wk__index_free(&store->world_index);
    wk__suffixes_free(&store->suffixes);
    wk__geometries_free(store);
    pthread_rwlock_destroy(&store->lock);
    free(store);
}

void wk_store_set_address(wk_store *store, const char *address)
{
    if (store->db && store->db->ops->set_address)
        store->db->ops->set_address(store->db->impl, address);
}

void wk_store_observe(wk_store *store, const wk_store_observer *observer)
{
    store->observer = *observer;
}

void wk__store_replaced(const wk_store *store, const char *id)
{
    if (store->observer.replaced)
        store->observer.replaced(id, store->observer.ctx);
}

void wk_store_set_max_entities(wk_store *store, size_t max)
{
    store->max_entities = max;
}

void wk_store_set_room(wk_store *store, wk_store_room_fn fn, void *ctx)
{
    store->room = fn;
    store->room_ctx = ctx;
}

/* WK_LIMIT when scene, to be world id of store, holds more entities than
 * the store allows, or more than its further bound does. The flag named is
 * the one a user of the server raises it with. */
static int check_size(const wk_store *store, const char *id, wk_scene *scene, wk_status *st)
{
    size_t n = wk_ecm_count(wk_scene_ecm(scene));
    id = id && *id ? id : "(new)";
    if (store->max_entities && n > store->max_entities)
        return wk_fail(st, WK_LIMIT,
                       "world '%s' would hold %zu entities, past the limit of %zu a world may hold "
                       "(serve --max-world-entities)",
                       id, n, store->max_entities);
    wk_status why = {0};
    int rc = store->room ? store->room(scene, store->room_ctx, &why) : WK_OK;
    return rc ? wk_fail(st, rc, "world '%s': %s", id, why.message) : WK_OK;
}

int wk_store_room(const wk_world *w, wk_status *st)
{
    return check_size(w->store, w->id, w->scene, st);
}

static uint64_t id_hash(const char *id)
{
    return wk__hash(id, strlen(id), 0);
}

size_t wk__find_world(const wk_store *store, const char *id)
{
    size_t cursor = 0;
    for (uint64_t v; (v = wk__index_next(&store->world_index, id_hash(id), &cursor));)
        if (v <= store->count && strcmp(store->worlds[v - 1]->id, id) == 0)
            return (size_t)v - 1;
    return store->count;
}

wk_world *wk__world_take_out(wk_store *store, size_t k)
{
    wk_world *w = store->worlds[k];
    size_t last = --store->count;
    wk__index_remove(&store->world_index, id_hash(w->id), k + 1);
    if (k != last) {
        wk_world *moved = store->worlds[last];
        wk__index_remove(&store->world_index, id_hash(moved->id), last + 1);
        /* Cannot fail: the pair just removed freed its room. */
        (void)wk__index_add(&store->world_index, id_hash(moved->id), k + 1);
        store->worlds[k] = moved;
    }
    return w;
}

/* The longest world id, in bytes. */
#define ID_LEN_MAX 100

/* WK_OK for an id a caller may ask for (NULL and "" ask for a new one), or
 * WK_INVALID naming it. */
static int check_id(const char *id, wk_status *st)
{
    size_t n = id ? strlen(id) : 0;
    bool valid = n <= ID_LEN_MAX;
    for (size_t i = 0; valid && i < n; i++)
        valid = (id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9') ||
                id[i] == '_' || id[i] == '.' || id[i] == '-';
    return valid ? WK_OK
                 : wk_fail(st, WK_INVALID, "world id '%s' is not 1 to %d of letters, digits, '_', '.', '-'", id,
                           ID_LEN_MAX);
}

/* Writes to out want with the suffix "_<n>", want cut short so that the id
 * stays within ID_LEN_MAX (a taken id of 100 bytes gave one of 102, which
 * no call could then name). Distinct n give distinct ids. */
static void suffixed(const char *want, int64_t n, char *out)
{
    char suffix[24];
    int len = snprintf(suffix, sizeof suffix, "_%" PRId64, n);
    snprintf(out, WK_WORLD_ID_MAX, "%.*s%s", ID_LEN_MAX - len, want, suffix);
}

/* The next suffix number for ids picked from want: the database's counter
 * when other servers share it, else the store's own. */
static int next_suffix(wk_store *store, const char *want, int64_t *n, wk_status *st)
{
    wk__db *db = store->db;
    if (db && db->ops->next_suffix)
        return db->ops->next_suffix(db->impl, want, n, st);
    return wk__suffix_next(&store->suffixes, want, n) ? wk_fail(st, WK_NOMEM, "out of memory picking an id for '%s'", want)
                                                      : WK_OK;
}

/* Brings world id here (wk__db_pull) when it is named to be written over:
 * a world that is nowhere yet is no failure. */
static int pull_target(wk_store *store, const char *id, wk_status *st)
{
    int rc = id && *id ? wk__db_pull(store, id, st) : WK_OK;
    return rc == WK_NOT_FOUND ? WK_OK : rc;
}

/* Room for one more world in the list. */
static int reserve(wk_store *store)
{
    return WK__GROW(store->worlds, store->cap, store->count + 1);
}

/* Indexes w, about to be put at the end of the list (reserve'd); 0 or
 * WK_NOMEM. */
static int index_last(wk_store *store, const wk_world *w)
{
    return wk__index_add(&store->world_index, id_hash(w->id), store->count + 1);
}

int wk__world_append(wk_store *store, wk_world *w)
{
    if (reserve(store) || index_last(store, w))
        return WK_NOMEM;
    store->worlds[store->count++] = w;
    return WK_OK;
}

/* Puts w in the list, replacing the world at index at when at < count, and
 * in the database first with its snapshot snap (serialized before the
 * store's lock was taken: it may be large); under the store's write lock.
 * The world replaced goes to *replaced, for the caller to let go
 * (wk__world_unref) once the lock is released: freeing a large world took
 * long enough to hold every other call that looks a world up. On failure w
 * is the caller's still. */
static int insert(wk_store *store, wk_world *w, size_t at, const wk_buf snap[2], wk_world **replaced,
                  wk_status *st)
{
    /* Room first, so that nothing fails once the row is written. */
    if (at == store->count && (reserve(store) || index_last(store, w)))
        return wk_fail(st, WK_NOMEM, "out of memory adding world '%s'", w->id);
    const wk_world *old = at < store->count ? store->worlds[at] : NULL;
    int rc = store->db ? wk__db_insert(store, w, old, snap, st) : WK_OK;
    if (rc) {
        if (at == store->count)
            wk__index_remove(&store->world_index, id_hash(w->id), store->count + 1);
        return rc;
    }
    if (at < store->count) {
        *replaced = store->worlds[at];
        store->worlds[at] = w;
    } else {
        store->worlds[store->count++] = w;
    }
    /* Its construction is recorded by the snapshot: what changes next is
     * the first journal entry. Failing leaves the construction tracked, to be
     * written again (harmlessly) with the next commit. */
    (void)wk__world_settle(w);
    wk__store_replaced(store, w->id);
    return WK_OK;
}

/* How many times a World_<n> is picked again when a client gave a world
 * that id on another server (which the database's UNIQUE constraint
 * refuses). */
#define PICK_TRIES 8

/* An id for a world made without one, World_<n>, free here, in out: n
 * from the database's numbers when other servers share it (so that no two
 * servers try the same), else from the store's own count. Neither lists
 * the worlds: a new world's id costs the same however many there are. */
static int number_id(wk_store *store, char *out, wk_status *st)
{
    wk__db *db = store->db;
    for (;;) {
        int64_t n = 0;
        int rc = WK_OK;
        if (db && db->ops->next_number)
            rc = db->ops->next_number(db->impl, &n, st);
        else
            n = (int64_t)++store->next_number;
        if (rc)
            return rc;
        snprintf(out, WK_WORLD_ID_MAX, "World_%" PRId64, n);
        if (wk__find_world(store, out) == store->count)
            return WK_OK;
    }
}

/* How many suffixes are tried for a wanted id that is taken: each try
 * takes a number no try had before, so only ids that clients gave
 * themselves (or that older worldkit gave, before the counters) make a
 * try fail. */
#define SUFFIX_TRIES 1000

/* Puts w, new, at the end of the list under an id picked from want, written
 * to w->id; under the store's write lock. want itself when it is free, else
 * want with the next "_<n>" suffix of its counter (next_suffix) that is
 * free: one lookup here per try, and in a database other servers share an
 * id one of them has is refused by the UNIQUE constraint (WK_EXISTS) and
 * the next number tried. The database's ids are not looked up for want
 * itself: the caller pulled it (pull_target), so no other server has it
 * unless it took it since. Without want, number_id's World_<n>. On failure
 * w is the caller's still. */
static int insert_new(wk_store *store, wk_world *w, const char *want, const wk_buf snap[2], wk_status *st)
{
    int rc = WK_EXISTS;
    if (!want || !*want) {
        for (int attempt = 0; rc == WK_EXISTS && attempt < PICK_TRIES; attempt++)
            if ((rc = number_id(store, w->id, st)) == WK_OK)
                rc = insert(store, w, store->count, snap, NULL, st); /* at the end: nothing replaced */
        return rc;
    }
    if (wk__find_world(store, want) == store->count) {
        snprintf(w->id, WK_WORLD_ID_MAX, "%s", want);
        rc = insert(store, w, store->count, snap, NULL, st);
    }
    for (int attempt = 0; rc == WK_EXISTS && attempt < SUFFIX_TRIES; attempt++) {
        int64_t n;
        if ((rc = next_suffix(store, want, &n, st)))
            return rc;
        suffixed(want, n, w->id);
        rc = wk__find_world(store, w->id) < store->count ? WK_EXISTS : insert(store, w, store->count, snap, NULL, st);
    }
    return rc == WK_EXISTS ? wk_fail(st, WK_EXISTS, "no free id for '%s' after %d suffixes", want, SUFFIX_TRIES) : rc;
}

/* The scene a world is created with: the one given, or one of a file
 * description, or an empty one; made an object world. Frees what desc gives
 * it on failure. */
static int scene_from(const wk_world_create_desc *desc, wk_scene **out, wk_status *st)
{
    wk_scene *s = desc->scene ? desc->scene : wk_scene_new();
    wk_entity root = WK_NULL_ENTITY;
    int rc = s ? WK_OK : wk_fail(st, WK_NOMEM, "out of memory creating a world");
    if (rc == WK_OK && desc->file && !desc->scene)
        rc = wk_desc_instantiate(s, desc->file, 0, WK_NULL_ENTITY, NULL, NULL, &root, st);
    if (rc == WK_OK && !wk_scene_root(s))
        rc = wk_scene_objects_init(s, root, st);
    wk_desc_free(desc->file);
    if (rc) {
        wk_scene_free(s);
        return rc;
    }
    *out = s;
    return WK_OK;
}

int wk_store_create(wk_store *store, const wk_world_create_desc *desc, char *id_out, wk_status *st)
{
    int rc = check_id(desc->id, st);
    if (rc == WK_OK)
        rc = pull_target(store, desc->id, st);
    if (rc) {
        wk_desc_free(desc->file);
        wk_scene_free(desc->scene);
        return rc;
    }
    wk_scene *scene;
    rc = scene_from(desc, &scene, st);
    if (rc)
        return rc;
    if ((rc = check_size(store, desc->id, scene, st))) {
        wk_scene_free(scene);
        return rc;
    }
    wk_buf snap[2] = {{0}, {0}};
    if (store->db && wk__scene_save(scene, &snap[0], &snap[1])) {
        wk_scene_free(scene);
        wk_buf_free(&snap[0]);
        wk_buf_free(&snap[1]);
        return wk_fail(st, WK_NOMEM, "out of memory serializing a new world");
    }
    if (store->db && desc->over && desc->over(desc->over_ctx)) {
        wk_scene_free(scene);
        wk_buf_free(&snap[0]);
        wk_buf_free(&snap[1]);
        return wk_fail(st, WK_DEADLINE, "gave up at the call's deadline, the world serialized but not stored");
    }
    pthread_rwlock_wrlock(&store->lock);
    char id[WK_WORLD_ID_MAX];
    size_t at = desc->replace && desc->id ? wk__find_world(store, desc->id) : store->count;
    wk_world *w = wk__world_new(store, at < store->count ? desc->id : "", scene, desc->user_tag), *replaced = NULL;
    if (!w)
        rc = wk_fail(st, WK_NOMEM, "out of memory creating world '%s'", desc->id ? desc->id : "(new)");
    else
        rc = at < store->count ? insert(store, w, at, snap, &replaced, st) : insert_new(store, w, desc->id, snap, st);
    if (w)
        snprintf(id, sizeof id, "%s", w->id);
    pthread_rwlock_unlock(&store->lock);
    if (replaced)
        wk__world_unref(replaced);
    wk_buf_free(&snap[0]);
    wk_buf_free(&snap[1]);
    if (rc) {
        if (w)
            wk__world_unref(w);
        return rc;
    }
    snprintf(id_out, WK_WORLD_ID_MAX, "%s", id);
    return WK_OK;
}

wk_world *wk__world_ref(wk_store *store, const char *id)
{
    pthread_rwlock_rdlock(&store->lock);
    size_t i = wk__find_world(store, id);
    wk_world *w = i < store->count ? store->worlds[i] : NULL;
    if (w)
        atomic_fetch_add(&w->refs, 1);
    pthread_rwlock_unlock(&store->lock);
    return w;
}

int wk_store_try_open(wk_store *store, const char *id, wk_world **out, wk_status *st)
{
    /* Never pulled: a take from another server waits on the database and
     * would move the world here for a mere look. */
    wk_world *w = wk__world_ref(store, id);
    if (!w)
        return wk_fail(st, WK_NOT_FOUND, "world '%s' is not held by this server", id);
    if (pthread_rwlock_tryrdlock(&w->lock)) {
        wk__world_unref(w);
        return wk_fail(st, WK_BUSY, "world '%s' is being written: try again", id);
    }
    *out = w;
    return WK_OK;
}

int wk_store_open(wk_store *store, const char *id, bool write, wk_world **out, wk_status *st)
{
    int rc = wk__db_pull(store, id, st);
    if (rc)
        return rc;
    wk_world *w = wk__world_ref(store, id);
    if (!w)
        return wk_fail(st, WK_NOT_FOUND, "no world with id '%s'", id);
    if (write) {
        pthread_rwlock_wrlock(&w->lock);
        w->writing = true; /* only ever written under the write lock */
    } else {
        pthread_rwlock_rdlock(&w->lock);
    }
    *out = w;
    return WK_OK;
}

int wk_store_commit(wk_world *w, bool structural, wk_status *st)
{
    if (!w->writing)
        return wk_fail(st, WK_INVALID, "world '%s' is not open for writing", w->id);
    wk_ecm *ecm = wk_scene_ecm(w->scene);
    if (wk_ecm_version(ecm) == w->rec.version)
        return WK_OK;
    if (wk_ecm_txn_open(ecm))
        return wk_fail(st, WK_BUSY, "world '%s' has a batch open: commit or roll it back first", w->id);
    int64_t now = wk__now_ns();
    bool wrote = true;
    int rc = w->store->db ? wk__db_journal(w, now, &wrote, st) : WK_OK;
    if (rc)
        return rc;
    if (w->store->observer.committed)
        w->store->observer.committed(w, w->store->observer.ctx);
    if (wk__world_settle(w))
        return wk_fail(st, WK_NOMEM, "world '%s': out of memory ending the step", w->id);
    if (!wrote) /* changes undone by a rolled back batch */
        return WK_OK;
    w->last_update_ns = now;
    if (structural) {
        pthread_mutex_lock(&w->meta_lock);
        w->hash_stale = true;
        pthread_mutex_unlock(&w->meta_lock);
    }
    if (w->store->db)
        wk__db_want_compaction(w);
    return WK_OK;
}

void wk_store_close(wk_world *w, bool changed, bool structural)
{
    wk_status st;
    if (w->writing && changed && wk_store_commit(w, structural, &st))
        fprintf(stderr, "worldkit: world '%s' closed without its changes: %s\n", w->id, st.message);
    if (w->writing)
        w->writing = false;
    pthread_rwlock_unlock(&w->lock);
    wk__world_unref(w);
}

wk_scene *wk_world_scene(wk_world *w)
{
    return w->scene;
}

const char *wk_world_id(const wk_world *w)
{
    return w->id;
}

int wk_store_clone(wk_store *store, const char *id, const char *clone_id, bool allow_overwrite,
                   const char *user_tag, char *id_out, wk_status *st)
{
    if (check_id(clone_id, st))
        return WK_INVALID;
    int pulled = pull_target(store, clone_id, st);
    if (pulled)
        return pulled;
    wk_world *source;
    int rc = wk_store_open(store, id, false, &source, st);
    if (rc)
        return rc;
    wk_scene *copy = wk_scene_clone(source->scene);
    const char *tag = user_tag ? user_tag : source->has_user_tag ? source->user_tag : NULL;
    char tag_copy[sizeof source->user_tag];
    snprintf(tag_copy, sizeof tag_copy, "%s", tag ? tag : "");
    wk_store_close(source, false, false);
    if (copy && (rc = check_size(store, clone_id && *clone_id ? clone_id : id, copy, st))) {
        wk_scene_free(copy);
        return rc;
    }
    wk_buf snap[2] = {{0}, {0}};
    if (copy && store->db && wk__scene_save(copy, &snap[0], &snap[1])) {
        wk_scene_free(copy);
        copy = NULL;
    }
    if (!copy) {
        wk_buf_free(&snap[0]);
        wk_buf_free(&snap[1]);
        return wk_fail(st, WK_NOMEM, "out of memory cloning world '%s'", id);
    }

    pthread_rwlock_wrlock(&store->lock);
    char new_id[WK_WORLD_ID_MAX];
    bool named = clone_id && *clone_id;
    size_t at = named ? wk__find_world(store, clone_id) : store->count;
    if (at < store->count && !allow_overwrite)
        rc = wk_fail(st, WK_EXISTS, "world '%s' exists and allow_overwrite is not set", clone_id);
    wk_world *w = NULL, *replaced = NULL;
    if (rc == WK_OK) {
        w = wk__world_new(store, named ? clone_id : "", copy, tag ? tag_copy : NULL);
        copy = NULL; /* the world's now, or freed */
        if (!w)
            rc = wk_fail(st, WK_NOMEM, "out of memory cloning world '%s'", id);
        else
            rc = named ? insert(store, w, at, snap, &replaced, st) : insert_new(store, w, id, snap, st);
    }
    if (w)
        snprintf(new_id, sizeof new_id, "%s", w->id);
    pthread_rwlock_unlock(&store->lock);
    if (replaced)
        wk__world_unref(replaced);
    wk_buf_free(&snap[0]);
    wk_buf_free(&snap[1]);
    wk_scene_free(copy);
    if (rc) {
        if (w)
            wk__world_unref(w);
        return rc;
    }
    snprintf(id_out, WK_WORLD_ID_MAX, "%s", new_id);
    return WK_OK;
}

int wk_store_delete(wk_store *store, const char *id, wk_status *st)
{
    int pulled = wk__db_pull(store, id, st);
    if (pulled)
        return pulled;
    pthread_rwlock_wrlock(&store->lock);
    size_t i = wk__find_world(store, id);
    wk_world *w = i < store->count ? store->worlds[i] : NULL;
    int rc = !w ? wk_fail(st, WK_NOT_FOUND, "no world with id '%s'", id)
             : store->db ? wk__db_delete(store, w, st)
                         : WK_OK;
    if (rc == WK_OK)
        (void)wk__world_take_out(store, i);
    pthread_rwlock_unlock(&store->lock);
    if (rc)
        return rc;
    wk__store_replaced(store, id);
    wk__world_unref(w);
    return WK_OK;
}

int wk_store_compact(wk_store *store, const char *id, wk_status *st)
{
    wk_world *w;
    /* For writing: the compactor thread is the only one that compacts under
     * a read lock. */
    int rc = wk_store_open(store, id, true, &w, st);
    if (rc)
        return rc;
    rc = wk_store_checkpoint(w, st);
    wk_store_close(w, false, false);
    return rc;
}

int wk_store_checkpoint(wk_world *w, wk_status *st)
{
    if (!w->writing)
        return wk_fail(st, WK_INVALID, "world '%s' is not open for writing", w->id);
    return w->store->db ? wk__db_compact(w, true, st) : WK_OK;
}
