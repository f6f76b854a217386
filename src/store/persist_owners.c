/* persist_owners.c — what a server sharing a database remembers of the
 * worlds other servers hold: per world id, the holder's address and until
 * when its lease surely runs, as the last claim that found it read them.
 *
 * A call for such a world is answered with that address from memory until
 * then, without a transaction: under load, clients polling a world another
 * server holds would otherwise queue a claim each on the database, and
 * slow the takeovers and writes of the worlds this server does hold. The
 * answer is only a pointer to follow: what it may get wrong is safe. A
 * lease cannot change hands before it expires unless its holder lets it go
 * (at its close, after a failed load) or deletes the world; until the
 * memory runs out (250 ms at most: persist.c's take), clients are sent to
 * a server that no longer holds the world (one still running takes it
 * again or names the new holder; one stopped answers nothing): the price
 * of not asking. Whoever ends up writing, every write
 * still checks its lease's epoch in its own transaction (wk__pg_fence), so
 * memory here never lets two servers write one world. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/grow.h"
#include "store/persist.h"

/* The index of id among the holders remembered, or owner_count; under
 * lease_lock. Those whose lease may have ended are replaced as others are
 * noted: the list stays as long as the worlds held elsewhere. */
static size_t find(const wk__db *db, const char *id)
{
    size_t i = 0;
    while (i < db->owner_count && strcmp(db->owners[i].id, id) != 0)
        i++;
    return i;
}

void wk__owner_note(wk__db *db, const char *id, const char *owner, int64_t epoch, int64_t until)
{
    pthread_mutex_lock(&db->lease_lock);
    size_t i = find(db, id);
    int64_t now = wk__lease_clock();
    for (size_t k = 0; i == db->owner_count && k < db->owner_count; k++)
        if (db->owners[k].until <= now)
            i = k;
    /* Out of memory, nothing is remembered: the next call asks the
     * database. */
    if (i == db->owner_count)
        (void)WK__GROW(db->owners, db->owner_cap, db->owner_count + 1);
    if (i < db->owner_cap) {
        wk__owner *o = &db->owners[i];
        snprintf(o->id, sizeof o->id, "%s", id);
        snprintf(o->owner, sizeof o->owner, "%s", owner);
        o->epoch = epoch;
        o->until = until;
        if (i == db->owner_count)
            db->owner_count++;
    }
    pthread_mutex_unlock(&db->lease_lock);
}

int wk__owner_known(wk__db *db, const char *id, wk_status *st)
{
    pthread_mutex_lock(&db->lease_lock);
    size_t i = find(db, id);
    int rc = WK_OK;
    if (i < db->owner_count && db->owners[i].until > wk__lease_clock())
        rc = wk_fail(st, WK_MOVED, "world '%s' " WK_MOVED_TEXT "%s (lease epoch %" PRId64 ")", id,
                     db->owners[i].owner, db->owners[i].epoch);
    pthread_mutex_unlock(&db->lease_lock);
    return rc;
}
