/* persist_lease.c — the leases a server holds on worlds of a database it
 * shares with other servers: which it holds, until when it surely does,
 * and the thread that renews them.
 *
 * The database decides who holds a lease (persist_pg.c); this file keeps
 * what the server knows of its own. A lease is surely held until the
 * monotonic time at which the transaction that took or last renewed it
 * began, plus the lease's duration: the database counts from a moment after
 * that. A lease not surely held any more (the renewer was late, the
 * process was paused) is not served: the store lets the world go and takes
 * it again, or learns who holds it now. The renewer extends every lease the
 * server holds every third of their duration, and forgets those the
 * database no longer gives it, their worlds taken out of the store's list
 * then rather than at their next call: a world another server serves now
 * holds no memory here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/grow.h"
#include "store/persist.h"

int64_t wk__lease_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The index of wid among the leases, or lease_count; under lease_lock. */
static size_t find(const wk__db *db, int64_t wid)
{
    size_t i = 0;
    while (i < db->lease_count && db->leases[i].wid != wid)
        i++;
    return i;
}

void wk__lease_note(wk__db *db, int64_t wid, int64_t epoch, int64_t start)
{
    pthread_mutex_lock(&db->lease_lock);
    size_t i = find(db, wid);
    /* Out of memory, the lease is not noted: the world is not served here,
     * and taken again at its next call. */
    if (i == db->lease_count)
        (void)WK__GROW(db->leases, db->lease_cap, db->lease_count + 1);
    if (i < db->lease_cap) {
        db->leases[i] = (wk__lease){wid, epoch, start + db->lease_ns};
        if (i == db->lease_count)
            db->lease_count++;
    }
    pthread_mutex_unlock(&db->lease_lock);
}

void wk__lease_forget(wk__db *db, int64_t wid)
{
    pthread_mutex_lock(&db->lease_lock);
    size_t i = find(db, wid);
    if (i < db->lease_count)
        db->leases[i] = db->leases[--db->lease_count];
    pthread_mutex_unlock(&db->lease_lock);
}

bool wk__lease_held(wk__db *db, int64_t wid, int64_t epoch)
{
    pthread_mutex_lock(&db->lease_lock);
    size_t i = find(db, wid);
    bool held = i < db->lease_count && db->leases[i].epoch == epoch && db->leases[i].valid_until > wk__lease_clock();
    pthread_mutex_unlock(&db->lease_lock);
    return held;
}

/* One renewal: every lease the database still gives this server is good
 * for another duration from start; the others are forgotten. Whether any
 * was. */
static bool renew(wk__db *db)
{
    int64_t start = wk__lease_clock(), *held;
    size_t count;
    wk_status st;
    if (db->ops->renew(db->impl, &held, &count, &st)) {
        fprintf(stderr, "worldkit: %s\n", st.message);
        return false;
    }
    bool lost = false;
    pthread_mutex_lock(&db->lease_lock);
    for (size_t i = 0; i < db->lease_count;) {
        wk__lease *l = &db->leases[i];
        size_t k = 0;
        while (k < count && (held[2 * k] != l->wid || held[2 * k + 1] != l->epoch))
            k++;
        if (k < count) {
            l->valid_until = start + db->lease_ns;
            i++;
        } else {
            *l = db->leases[--db->lease_count];
            lost = true;
        }
    }
    pthread_mutex_unlock(&db->lease_lock);
    free(held);
    return lost;
}

static void *renewer(void *arg)
{
    wk__db *db = arg;
    pthread_mutex_lock(&db->lease_lock);
    while (!db->renew_stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        int64_t ns = until.tv_nsec + db->lease_ns / 3;
        until.tv_sec += ns / 1000000000;
        until.tv_nsec = ns % 1000000000;
        while (!db->renew_stop && pthread_cond_timedwait(&db->renew_wake, &db->lease_lock, &until) == 0) {
        }
        if (db->renew_stop)
            break;
        pthread_mutex_unlock(&db->lease_lock);
        if (renew(db))
            wk__db_drop_lost(db->store);
        pthread_mutex_lock(&db->lease_lock);
    }
    pthread_mutex_unlock(&db->lease_lock);
    return NULL;
}

int wk__renewer_start(wk__db *db, wk_status *st)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_destroy(&db->renew_wake);
    pthread_cond_init(&db->renew_wake, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&db->renewer, NULL, renewer, db))
        return wk_fail(st, WK_NOMEM, "cannot start the thread that renews the leases");
    db->renewing = true;
    return WK_OK;
}

void wk__renewer_stop(wk__db *db)
{
    if (!db->renewing)
        return;
    pthread_mutex_lock(&db->lease_lock);
    db->renew_stop = true;
    pthread_cond_signal(&db->renew_wake);
    pthread_mutex_unlock(&db->lease_lock);
    pthread_join(db->renewer, NULL);
    db->renewing = false;
}
