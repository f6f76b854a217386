/* persist.c — the store kept in a database: every world as a snapshot plus
 * a journal of the changes written since, through one backend (persist.h)
 * chosen by the store's description: SQLite in a directory, or PostgreSQL
 * at a URL. What is common to both lives here: loading worlds into the
 * store, keeping each world's record (its row, its seq, how much journal it
 * has), and putting a world back as the database has it after a write that
 * failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/persist.h"

/* A load in progress: the scene being rebuilt and its record. */
typedef struct loading {
    wk_store *store; /* NULL: one world read back (reload), kept in scene */
    wk_scene *scene;
    wk__wrec rec;
    char id[WK_WORLD_ID_MAX];
    bool has_user_tag;
    char user_tag[256];
    int64_t last_update_ns;
} loading;

static int load_world(void *ctx, const wk__row *row, wk_status *st)
{
    loading *l = ctx;
    wk_scene_free(l->scene);
    l->scene = NULL;
    snprintf(l->id, sizeof l->id, "%s", row->id);
    l->has_user_tag = row->has_user_tag;
    snprintf(l->user_tag, sizeof l->user_tag, "%s", row->user_tag);
    l->last_update_ns = row->last_update_ns;
    l->rec = (wk__wrec){.wid = row->wid, .seq = row->seq, .snapshot_bytes = row->state_len + row->order_len};
    return wk__scene_begin(l->id, row->state, row->state_len, row->order, row->order_len, &l->scene, st);
}

static int load_entry(void *ctx, int64_t seq, const uint8_t *bytes, size_t len, wk_status *st)
{
    loading *l = ctx;
    l->rec.seq = seq;
    l->rec.journal_count++;
    l->rec.journal_bytes += len;
    return wk__scene_replay(l->id, l->scene, seq, bytes, len, st);
}

/* Ends a world's load: into the store's list when loading the store. */
static int load_done(void *ctx, wk_status *st)
{
    loading *l = ctx;
    int rc = wk__scene_end(l->id, l->scene, st);
    if (rc || !l->store)
        return rc;
    wk_world *w = wk__world_new(l->store, l->id, l->scene, l->has_user_tag ? l->user_tag : NULL);
    l->scene = NULL; /* the world's now, or freed */
    if (!w || wk__world_append(l->store, w)) {
        if (w)
            wk__world_unref(w);
        return wk_fail(st, WK_NOMEM, "out of memory loading world '%s'", l->id);
    }
    w->rec = l->rec;
    w->last_update_ns = l->last_update_ns;
    wk__world_settle(w);
    return WK_OK;
}

static void db_free(wk__db *db)
{
    if (db->impl)
        db->ops->close(db->impl);
    pthread_mutex_destroy(&db->queue_lock);
    pthread_cond_destroy(&db->wake);
    pthread_mutex_destroy(&db->lease_lock);
    pthread_mutex_destroy(&db->take_lock);
    pthread_cond_destroy(&db->renew_wake);
    pthread_cond_destroy(&db->taken_wake);
    free(db->queue);
    free(db->leases);
    free(db->owners);
    free(db);
}

int wk__db_open(wk_store *store, const wk_store_desc *desc, wk_status *st)
{
    wk__db *db = calloc(1, sizeof *db);
    if (!db)
        return wk_fail(st, WK_NOMEM, "out of memory opening the store");
    pthread_mutex_init(&db->queue_lock, NULL);
    pthread_cond_init(&db->wake, NULL);
    pthread_mutex_init(&db->lease_lock, NULL);
    pthread_mutex_init(&db->take_lock, NULL);
    pthread_cond_init(&db->renew_wake, NULL);
    pthread_cond_init(&db->taken_wake, NULL);
    db->lease_ns = (int64_t)(desc->lease_ms ? desc->lease_ms : 10000) * 1000000;
    db->ops = desc->url && *desc->url ? &wk__pg_backend : &wk__sqlite_backend;
    db->compact_entries = desc->compact_entries ? desc->compact_entries : 1000;
    db->compact_bytes = desc->compact_bytes ? desc->compact_bytes : (uint64_t)4 << 20;
    db->compact_inline = desc->compact_inline;
    int rc = db->ops->open(desc, &db->impl, st);
    if (rc) {
        db_free(db);
        return rc;
    }
    db->store = store;
    store->db = db;
    loading l = {.store = store};
    rc = db->ops->load(db->impl, 0, &(wk__loader){load_world, load_entry, load_done, &l}, st);
    wk_scene_free(l.scene);
    if (rc == WK_OK && !db->compact_inline)
        rc = wk__compactor_start(db, st);
    if (rc == WK_OK && db->ops->claim)
        rc = wk__renewer_start(db, st);
    if (rc) {
        wk__db_close(store);
        return rc;
    }
    /* A journal left long by a crash is folded now rather than at the next
     * write. */
    for (size_t i = 0; i < store->count; i++) {
        pthread_rwlock_wrlock(&store->worlds[i]->lock);
        wk__db_want_compaction(store->worlds[i]);
        pthread_rwlock_unlock(&store->worlds[i]->lock);
    }
    return WK_OK;
}

void wk__db_close(wk_store *store)
{
    if (!store->db)
        return;
    wk__renewer_stop(store->db);
    wk__compactor_stop(store->db);
    db_free(store->db);
    store->db = NULL;
}

int wk__db_insert(wk_store *store, wk_world *w, const wk_world *replaced, const wk_buf snap[2], wk_status *st)
{
    wk__row row = {
        .id = w->id,
        .has_user_tag = w->has_user_tag,
        .user_tag = w->user_tag,
        .last_update_ns = w->last_update_ns,
        .state = snap[0].data,
        .state_len = snap[0].len,
        .order = snap[1].data,
        .order_len = snap[1].len,
    };
    int64_t wid = 0, epoch = 0, start = wk__lease_clock();
    wk__db *db = store->db;
    int rc = db->ops->insert(db->impl, &row, replaced ? replaced->rec.wid : 0, replaced ? replaced->rec.epoch : 0,
                             &wid, &epoch, st);
    if (rc == WK_OK)
        w->rec = (wk__wrec){.wid = wid, .epoch = epoch, .snapshot_bytes = snap[0].len + snap[1].len};
    if (rc == WK_OK && db->ops->claim) {
        if (replaced)
            wk__lease_forget(db, replaced->rec.wid);
        wk__lease_note(db, wid, epoch, start);
    }
    return rc;
}

int wk__db_delete(wk_store *store, const wk_world *w, wk_status *st)
{
    wk__db *db = store->db;
    int rc = w->rec.wid ? db->ops->remove(db->impl, w->rec.wid, w->rec.epoch, st) : WK_OK;
    if (rc == WK_OK && db->ops->claim)
        wk__lease_forget(db, w->rec.wid);
    return rc;
}

int wk__db_swap(wk_store *store, const wk_world *a, const wk_world *b, int64_t now, wk_status *st)
{
    return store->db->ops->rename_pair(store->db->impl, a->rec.wid, a->rec.epoch, b->id, b->rec.wid, b->rec.epoch,
                                       a->id, now, st);
}

/* Puts back the world as the database has it, after a write that failed. */
static int reload(wk_world *w, wk_status *st)
{
    wk__db *db = w->store->db;
    loading l = {0};
    int rc = db->ops->load(db->impl, w->rec.wid, &(wk__loader){load_world, load_entry, load_done, &l}, st);
    if (rc) {
        wk_scene_free(l.scene);
        return rc;
    }
    wk_scene_free(w->scene);
    w->scene = l.scene;
    l.rec.queued = w->rec.queued;
    w->rec = l.rec;
    wk__world_settle(w);
    wk__store_replaced(w->store, w->id);
    return WK_OK;
}

int wk__db_journal(wk_world *w, int64_t now, bool *wrote, wk_status *st)
{
    wk__db *db = w->store->db;
    wk_ecm *ecm = wk_scene_ecm(w->scene);
    wk_buf changes = {0};
    int rc = wk_ecm_state(ecm, &(wk_state_desc){.changed_only = true}, &changes);
    *wrote = rc != WK_OK || changes.len != w->rec.empty_len;
    if (rc == WK_OK && !*wrote) {
        wk_buf_free(&changes);
        return WK_OK;
    }
    bool gone = false;
    if (rc)
        rc = wk_fail(st, rc, "world '%s': serializing its changes: %s", w->id, wk_ecm_errmsg(ecm));
    else
        rc = db->ops->append(db->impl, w->rec.wid, w->rec.epoch, w->rec.seq + 1, &changes, now, &gone, st);
    if (rc == WK_OK && !gone) {
        w->rec.seq++;
        w->rec.journal_count++;
        w->rec.journal_bytes += changes.len;
    }
    /* A world whose lease went elsewhere is not read back: it is let go. */
    if (rc == WK_MOVED)
        wk__lease_forget(db, w->rec.wid);
    wk_status why;
    if (rc && rc != WK_MOVED && reload(w, &why) && st)
        snprintf(st->message + strlen(st->message), sizeof st->message - strlen(st->message),
                 "; reading the world back failed too (%s): memory holds what the disk does not",
                 why.message);
    wk_buf_free(&changes);
    return rc;
}

/* Whether w, in the list, is one this server may serve; w locked. */
static bool serves(wk__db *db, const wk_world *w)
{
    return wk__lease_held(db, w->rec.wid, w->rec.epoch);
}

/* Takes out of the list world w, at index k; under the store's write
 * lock. Those who have it open keep it until they close it. */
static void drop(wk_store *store, size_t k)
{
    wk__world_unref(wk__world_take_out(store, k));
}

/* Lets go of the lease of world id (wid, held at epoch) taken for a load
 * that failed, saying why on stderr: renewed with the others it would keep
 * the world from every server. */
static void let_go(wk__db *db, const char *id, int64_t wid, int64_t epoch, const wk_status *why)
{
    wk_status st;
    fprintf(stderr, "worldkit: world '%s' could not be loaded: %s; its lease is let go\n", id,
            why ? why->message : "(no reason kept)");
    if (db->ops->let_go(db->impl, wid, epoch, &st))
        fprintf(stderr, "worldkit: world '%s': %s; the lease stays until it expires\n", id, st.message);
}

/* How long a holder found by a claim is named from memory, at most. */
#define OWNER_MEMORY_NS 250000000

/* Takes the lease of world id and loads it into the store's list; id
 * among the worlds being taken. The lease is noted as soon as it is taken,
 * so that the renewer extends it while the world loads: a load longer than
 * the lease (a long journal, a loaded host) would otherwise end with the
 * lease already counted lost, and the world taken, and loaded, again. */
static int take(wk_store *store, const char *id, wk_status *st)
{
    wk__db *db = store->db;
    int64_t wid, epoch, left = 0, start = wk__lease_clock();
    char owner[WK_OWNER_MAX];
    int rc = db->ops->claim(db->impl, id, &wid, &epoch, owner, &left, st);
    /* The claim's transaction began after start: the holder's lease runs
     * at least until start + left, unless the holder lets it go (a server
     * stopped cleanly): remembered OWNER_MEMORY_NS at most, so that a
     * world let go is taken that soon rather than at its lease's end. */
    if (rc == WK_MOVED && left > 0)
        wk__owner_note(db, id, owner, epoch, start + (left < OWNER_MEMORY_NS ? left : OWNER_MEMORY_NS));
    if (rc)
        return rc;
    wk__lease_note(db, wid, epoch, start);
    loading l = {0};
    wk_world *w = NULL;
    rc = db->ops->load(db->impl, wid, &(wk__loader){load_world, load_entry, load_done, &l}, st);
    if (rc) {
        wk_scene_free(l.scene);
        goto fail_let_go;
    }
    w = wk__world_new(store, l.id, l.scene, l.has_user_tag ? l.user_tag : NULL);
    if (!w) {
        rc = wk_fail(st, WK_NOMEM, "out of memory loading world '%s'", id);
        goto fail_let_go;
    }
    w->rec = l.rec;
    w->rec.epoch = epoch;
    w->last_update_ns = l.last_update_ns;
    wk__world_settle(w);
    pthread_rwlock_wrlock(&store->lock);
    rc = wk__world_append(store, w);
    pthread_rwlock_unlock(&store->lock);
    if (rc) {
        wk__world_unref(w);
        rc = wk_fail(st, WK_NOMEM, "out of memory loading world '%s'", id);
        goto fail_let_go;
    }
    return WK_OK;

fail_let_go:
    wk__lease_forget(db, wid);
    let_go(db, id, wid, epoch, st);
    return rc;
}

/* Whether world id is in the store's list and served here; a world in the
 * list but not served is taken out of it. */
static bool held_here(wk_store *store, const char *id)
{
    wk_world *w = wk__world_ref(store, id);
    if (!w)
        return false;
    pthread_rwlock_rdlock(&w->lock);
    bool held = serves(store->db, w);
    pthread_rwlock_unlock(&w->lock);
    if (!held) { /* lost: out of the list, to be taken again if free */
        pthread_rwlock_wrlock(&store->lock);
        size_t k = wk__find_world(store, id);
        if (k < store->count && store->worlds[k] == w)
            drop(store, k);
        pthread_rwlock_unlock(&store->lock);
    }
    wk__world_unref(w);
    return held;
}

/* Makes id one of the worlds being taken when no take of it is in progress
 * and it is not in the list; whether it did. */
static bool start_take(wk__db *db, wk__taking *mine)
{
    bool started = false;
    pthread_mutex_lock(&db->take_lock);
    bool busy = false;
    for (const wk__taking *t = db->taking; t && !busy; t = t->next)
        busy = strcmp(t->id, mine->id) == 0;
    if (busy) {
        pthread_cond_wait(&db->taken_wake, &db->take_lock);
    } else {
        wk_world *w = wk__world_ref(db->store, mine->id);
        if (w)
            wk__world_unref(w); /* taken meanwhile: looked at again */
        else {
            mine->next = db->taking;
            db->taking = mine;
            started = true;
        }
    }
    pthread_mutex_unlock(&db->take_lock);
    return started;
}

static void end_take(wk__db *db, wk__taking *mine)
{
    pthread_mutex_lock(&db->take_lock);
    wk__taking **link = &db->taking;
    while (*link != mine)
        link = &(*link)->next;
    *link = mine->next;
    pthread_cond_broadcast(&db->taken_wake);
    pthread_mutex_unlock(&db->take_lock);
}

int wk__db_pull(wk_store *store, const char *id, wk_status *st)
{
    wk__db *db = store->db;
    if (!db || !db->ops->claim)
        return WK_OK;
    /* A world held here is served without waiting for any take; a world
     * is taken by one call at a time, and takes of different worlds run
     * side by side. take_lock is never held while waiting for a world's
     * lock: a caller may hold one world's while it pulls another. */
    wk__taking mine = {.id = id};
    do {
        if (held_here(store, id))
            return WK_OK;
        /* Held elsewhere, surely: answered from memory (persist_owners.c). */
        int rc = wk__owner_known(db, id, st);
        if (rc)
            return rc;
    } while (!start_take(db, &mine));
    /* Runs to its end whatever the caller does meanwhile: the calls after
     * it find the world here. */
    int rc = take(store, id, st);
    end_take(db, &mine);
    return rc;
}

void wk__db_drop_lost(wk_store *store)
{
    wk__db *db = store->db;
    pthread_mutex_lock(&db->take_lock);
    pthread_rwlock_wrlock(&store->lock);
    for (size_t k = 0; k < store->count;) {
        wk_world *w = store->worlds[k];
        /* Tried, not waited for: a caller may hold w while it waits for
         * take_lock (a world opened, then another pulled). */
        bool lost = false;
        if (pthread_rwlock_tryrdlock(&w->lock) == 0) {
            lost = !serves(db, w);
            pthread_rwlock_unlock(&w->lock);
        }
        if (lost)
            drop(store, k);
        else
            k++;
    }
    pthread_rwlock_unlock(&store->lock);
    pthread_mutex_unlock(&db->take_lock);
}

int wk__db_exec(wk_store *store, const char *sql)
{
    return store->db->ops->exec(store->db->impl, sql);
}
