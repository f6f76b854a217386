/* persist_pg_lease.c — who owns each world of a PostgreSQL database that
 * several servers share: the leases table (holder, its address, expiry on
 * the database's clock, an epoch that grows with every change of holder),
 * as the PostgreSQL backend takes, checks, renews and lets go of its rows,
 * and the listing of the database's worlds with their holders.
 *
 * A lease is taken only when no other server holds a live one (expired, or
 * already this server's), by an UPDATE that names the epoch it read, so
 * that of two servers taking at once one wins. Every write of a world runs
 * fence in its transaction: the row's epoch must still be the one this
 * server took, or the write is refused, so a server that lost a lease
 * (paused, cut off) never writes again. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/persist_pg.h"

/* A renewal, or a lease let go, may run again (it only moves leases this
 * server's name is on), and goes before the writes. Claims do not: every
 * call for a world another server holds makes one, and as many as clients
 * send would keep the writes from their turn. */
#define LEASE_CALL (WK__PG_RERUNNABLE | WK__PG_URGENT)

int wk__pg_fence(wk__pg *db, int64_t wid, int64_t epoch, wk_status *st)
{
    wk__pg_params p = {0};
    wk__pg_i64(&p, wid);
    wk__pg_i64(&p, epoch);
    wk__pg_text(&p, db->lease);
    PGresult *res = wk__pg_run(db, STMT_FENCE, &p, st, "checking the lease");
    if (!res)
        return WK_IO;
    bool held = strcmp(PQcmdTuples(res), "1") == 0;
    PQclear(res);
    return held ? WK_OK
                : wk_fail(st, WK_MOVED, "%s: world row %" PRId64 ": this server no longer holds its lease (epoch %" PRId64
                          "): another server serves it",
                          db->name, wid, epoch);
}

int wk__pg_new_lease(wk__pg *db, int64_t wid, wk_status *st, const char *what)
{
    wk__pg_params p = {0};
    wk__pg_i64(&p, wid);
    wk__pg_text(&p, db->owner);
    wk__pg_text(&p, db->address);
    wk__pg_text(&p, db->lease);
    return wk__pg_run_only(db, STMT_NEW_LEASE, &p, st, what);
}

static int release_all(wk__pg *db, void *ctx, wk_status *st)
{
    (void)ctx;
    wk__pg_params p = {0};
    wk__pg_text(&p, db->owner);
    return wk__pg_run_only(db, STMT_RELEASE, &p, st, "letting go of the leases");
}

int wk__pg_release(wk__pg *db, wk_status *st)
{
    return wk__pg_txn(db, WK__PG_WRITE, "letting go of the leases", LEASE_CALL, release_all, NULL, st);
}

typedef struct claiming {
    const char *id;
    int64_t wid, epoch;
    char *owner;
} claiming;

/* Takes the lease of world c->id if no other server holds a live one. */
static int claim_lease(wk__pg *db, void *ctx, wk_status *st)
{
    claiming *c = ctx;
    wk__pg_params p = {0};
    wk__pg_text(&p, c->id);
    wk__pg_text(&p, db->owner);
    PGresult *res = wk__pg_run(db, STMT_FIND_OWNER, &p, st, "finding a world's owner");
    if (!res)
        return WK_IO;
    int rc = WK_OK;
    bool leased = PQntuples(res) == 1 && !PQgetisnull(res, 0, 1);
    bool takeable = leased && *PQgetvalue(res, 0, 3);
    if (PQntuples(res) != 1) {
        rc = wk_fail(st, WK_NOT_FOUND, "no world with id '%s'", c->id);
    } else {
        c->wid = wk__pg_get_i64(res, 0, 0);
        c->epoch = leased ? wk__pg_get_i64(res, 0, 1) : 0;
        snprintf(c->owner, WK_OWNER_MAX, "%s", leased ? PQgetvalue(res, 0, 2) : "");
        if (leased && !takeable)
            rc = wk_fail(st, WK_MOVED, "world '%s' " WK_MOVED_TEXT "%s (lease epoch %" PRId64 ")", c->id, c->owner,
                         c->epoch);
    }
    PQclear(res);
    if (rc)
        return rc;
    if (!leased) { /* a world no server ever held: its first lease */
        c->epoch = 1;
        return wk__pg_new_lease(db, c->wid, st, "taking a world's lease");
    }
    p = (wk__pg_params){0};
    wk__pg_i64(&p, c->wid);
    wk__pg_i64(&p, c->epoch);
    wk__pg_text(&p, db->owner);
    wk__pg_text(&p, db->address);
    wk__pg_text(&p, db->lease);
    if (!(res = wk__pg_run(db, STMT_TAKE_LEASE, &p, st, "taking a world's lease")))
        return WK_IO;
    bool taken = PQntuples(res) == 1;
    c->epoch = taken ? wk__pg_get_i64(res, 0, 0) : c->epoch;
    PQclear(res);
    return taken ? WK_OK : wk_fail(st, WK_MOVED, "world '%s': another server took its lease first", c->id);
}

int wk__pg_claim(void *impl, const char *id, int64_t *wid, int64_t *epoch, char *owner, wk_status *st)
{
    claiming c = {.id = id, .owner = owner};
    int rc = wk__pg_txn(impl, WK__PG_WRITE, "taking a world's lease", WK__PG_RERUNNABLE, claim_lease, &c, st);
    *wid = c.wid;
    *epoch = c.epoch;
    return rc;
}

typedef struct held_lease {
    int64_t wid, epoch;
} held_lease;

static int let_go_lease(wk__pg *db, void *ctx, wk_status *st)
{
    const held_lease *h = ctx;
    wk__pg_params p = {0};
    wk__pg_i64(&p, h->wid);
    wk__pg_i64(&p, h->epoch);
    wk__pg_text(&p, db->owner);
    return wk__pg_run_only(db, STMT_LET_GO, &p, st, "letting go of a world's lease");
}

int wk__pg_let_go(void *impl, int64_t wid, int64_t epoch, wk_status *st)
{
    return wk__pg_txn(impl, WK__PG_WRITE, "letting go of a world's lease", LEASE_CALL, let_go_lease,
                      &(held_lease){.wid = wid, .epoch = epoch}, st);
}

typedef struct renewal {
    int64_t *held;
    size_t count;
} renewal;

static int renew_leases(wk__pg *db, void *ctx, wk_status *st)
{
    renewal *r = ctx;
    free(r->held);
    r->held = NULL;
    wk__pg_params p = {0};
    wk__pg_text(&p, db->owner);
    wk__pg_text(&p, db->lease);
    wk__pg_text(&p, db->address);
    PGresult *res = wk__pg_run(db, STMT_RENEW, &p, st, "renewing the leases");
    if (!res)
        return WK_IO;
    size_t n = (size_t)PQntuples(res);
    r->held = malloc((2 * n + 1) * sizeof *r->held);
    for (size_t i = 0; r->held && i < n; i++) {
        r->held[2 * i] = wk__pg_get_i64(res, (int)i, 0);
        r->held[2 * i + 1] = wk__pg_get_i64(res, (int)i, 1);
    }
    r->count = n;
    PQclear(res);
    return r->held ? WK_OK : wk_fail(st, WK_NOMEM, "out of memory renewing the leases");
}

int wk__pg_renew(void *impl, int64_t **held, size_t *count, wk_status *st)
{
    renewal r = {0};
    int rc = wk__pg_txn(impl, WK__PG_WRITE, "renewing the leases", LEASE_CALL, renew_leases, &r, st);
    if (rc) {
        free(r.held);
        return rc;
    }
    *held = r.held;
    *count = r.count;
    return WK_OK;
}

typedef struct listing {
    wk__listed *out;
    size_t count;
} listing;

static int list_worlds(wk__pg *db, void *ctx, wk_status *st)
{
    listing *l = ctx;
    free(l->out);
    l->out = NULL;
    PGresult *res = wk__pg_run(db, STMT_LIST, NULL, st, "listing the worlds");
    if (!res)
        return WK_IO;
    size_t n = (size_t)PQntuples(res);
    l->out = calloc(n + 1, sizeof *l->out);
    for (size_t i = 0; l->out && i < n; i++) {
        wk__listed *w = &l->out[i];
        snprintf(w->meta.id, sizeof w->meta.id, "%s", PQgetvalue(res, (int)i, 0));
        w->meta.has_user_tag = *PQgetvalue(res, (int)i, 1) != 0;
        snprintf(w->meta.user_tag, sizeof w->meta.user_tag, "%s", PQgetvalue(res, (int)i, 2));
        w->meta.last_update_ns = wk__pg_get_i64(res, (int)i, 3);
        snprintf(w->owner, sizeof w->owner, "%s", PQgetvalue(res, (int)i, 4));
    }
    l->count = n;
    PQclear(res);
    return l->out ? WK_OK : wk_fail(st, WK_NOMEM, "out of memory listing the worlds");
}

int wk__pg_list(void *impl, wk__listed **out, size_t *count, wk_status *st)
{
    listing l = {0};
    int rc = wk__pg_txn(impl, WK__PG_READ, "listing the worlds", WK__PG_RERUNNABLE, list_worlds, &l, st);
    if (rc) {
        free(l.out);
        return rc;
    }
    *out = l.out;
    *count = l.count;
    return WK_OK;
}

void wk__pg_set_address(void *impl, const char *address)
{
    wk__pg *db = impl;
    wk__pg_turn(db, false);
    snprintf(db->address, sizeof db->address, "%s", address);
    wk__pg_turn_end(db);
}

void wk__pg_address(void *impl, char *out)
{
    wk__pg *db = impl;
    wk__pg_turn(db, false);
    snprintf(out, WK_OWNER_MAX, "%s", db->address);
    wk__pg_turn_end(db);
}
