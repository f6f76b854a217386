/* persist_compact.c — folding a world's journal into a new snapshot, and
 * the thread that does it in the background.
 *
 * A world's journal grows by one entry per commit; loading it replays them
 * all. When it holds more than compact_entries entries, or more bytes than
 * both compact_bytes and its snapshot, the world is queued; the compactor
 * takes its read lock (so no commit runs meanwhile and the state it reads is
 * exactly what the journal's last entry left), serializes it, and in one
 * transaction replaces the snapshot and deletes the entries it folds. A crash
 * before that commit leaves the old snapshot and every entry; after it, the
 * new snapshot and the entries written since. Holding the read lock through
 * the write keeps the world's record (its rows, its seq) from moving under
 * it; readers go on meanwhile, writers of that world wait one write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "store/persist.h"

int wk__db_compact(wk_world *w, bool always, wk_status *st)
{
    wk__db *db = w->store->db;
    wk__wrec *r = &w->rec;
    if (!r->journal_count && !always)
        return WK_OK;
    wk_buf snap[2] = {{0}, {0}};
    int rc = wk__scene_save(w->scene, &snap[0], &snap[1]);
    if (rc) {
        rc = wk_fail(st, rc, "world '%s': serializing a snapshot: %s", w->id, wk_ecm_errmsg(wk_scene_ecm(w->scene)));
        goto done;
    }
    rc = db->ops->fold(db->impl, r->wid, r->epoch, r->seq, snap, st);
    if (rc == WK_OK) {
        r->journal_count = 0;
        r->journal_bytes = 0;
        r->snapshot_bytes = snap[0].len + snap[1].len;
    }
done:
    wk_buf_free(&snap[0]);
    wk_buf_free(&snap[1]);
    return rc;
}

void wk__db_want_compaction(wk_world *w)
{
    wk__db *db = w->store->db;
    wk__wrec *r = &w->rec;
    uint64_t bytes = db->compact_bytes > r->snapshot_bytes ? db->compact_bytes : r->snapshot_bytes;
    if (r->journal_count <= db->compact_entries && r->journal_bytes <= bytes)
        return;
    if (db->compact_inline) {
        wk_status st;
        if (wk__db_compact(w, false, &st))
            fprintf(stderr, "worldkit: %s\n", st.message);
        return;
    }
    if (r->queued)
        return;
    pthread_mutex_lock(&db->queue_lock);
    if (WK__GROW(db->queue, db->queue_cap, db->queue_count + 1)) { /* it will be asked again at the next commit */
        pthread_mutex_unlock(&db->queue_lock);
        return;
    }
    atomic_fetch_add(&w->refs, 1);
    db->queue[db->queue_count++] = w;
    r->queued = true;
    pthread_cond_signal(&db->wake);
    pthread_mutex_unlock(&db->queue_lock);
}

static void *compactor(void *arg)
{
    wk__db *db = arg;
    pthread_mutex_lock(&db->queue_lock);
    for (;;) {
        while (!db->stop && !db->queue_count)
            pthread_cond_wait(&db->wake, &db->queue_lock);
        if (db->stop)
            break;
        wk_world *w = db->queue[0];
        memmove(db->queue, db->queue + 1, --db->queue_count * sizeof *db->queue);
        pthread_mutex_unlock(&db->queue_lock);
        pthread_rwlock_rdlock(&w->lock);
        /* Only this thread writes queued (and the record) under a read lock;
         * commits do under the write lock. */
        w->rec.queued = false;
        wk_status st;
        if (wk__db_compact(w, false, &st))
            fprintf(stderr, "worldkit: %s\n", st.message);
        pthread_rwlock_unlock(&w->lock);
        wk__world_unref(w);
        pthread_mutex_lock(&db->queue_lock);
    }
    pthread_mutex_unlock(&db->queue_lock);
    return NULL;
}

int wk__compactor_start(wk__db *db, wk_status *st)
{
    if (pthread_create(&db->thread, NULL, compactor, db))
        return wk_fail(st, WK_NOMEM, "cannot start the compaction thread");
    db->running = true;
    return WK_OK;
}

void wk__compactor_stop(wk__db *db)
{
    if (db->running) {
        pthread_mutex_lock(&db->queue_lock);
        db->stop = true;
        pthread_cond_signal(&db->wake);
        pthread_mutex_unlock(&db->queue_lock);
        pthread_join(db->thread, NULL);
        db->running = false;
    }
    for (size_t i = 0; i < db->queue_count; i++) {
        db->queue[i]->rec.queued = false;
        wk__world_unref(db->queue[i]);
    }
    db->queue_count = 0;
}
