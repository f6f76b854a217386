/* persist_pg_conn.c — the PostgreSQL backend's one connection: its session
 * (durable commits, the timeouts, the statements prepared once), the
 * helpers that pass parameters and run statements on it, and the
 * transaction every call of the backend is, under the backend's mutex.
 *
 * A connection found broken is reset (and its statements prepared again)
 * before the next call; a transaction whose session was lost is run once
 * more on a new one where that is safe (wk__pg_txn says when). Durability: the session asks for synchronous_commit
 * = on, so COMMIT returns once the transaction is flushed to the server's
 * write-ahead log. */
#include <stdio.h>
#include <string.h>

#include "store/persist_pg.h"

static const char *const stmt_sql[] = {WK__PG_STMT_TABLE(WK__STMT_SQL)};

int wk__pg_fail(wk__pg *db, const PGresult *res, wk_status *st, const char *what)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    snprintf(db->failed_state, sizeof db->failed_state, "%s", state ? state : "");
    int code = state && strcmp(state, "23505") == 0 ? WK_EXISTS : WK_IO;
    const char *why = res ? PQresultErrorMessage(res) : "";
    if (!*why)
        why = PQerrorMessage(db->conn);
    int len = (int)strlen(why);
    while (len && (why[len - 1] == '\n' || why[len - 1] == ' '))
        len--;
    return wk_fail(st, code, "%s: %s: %.*s", db->name, what, len, why);
}

void wk__pg_i64(wk__pg_params *p, int64_t v)
{
    for (int k = 0; k < 8; k++)
        p->ints[p->n][k] = (uint8_t)((uint64_t)v >> (56 - 8 * k));
    p->values[p->n] = (const char *)p->ints[p->n];
    p->lengths[p->n] = 8;
    p->formats[p->n++] = 1;
}

void wk__pg_bool(wk__pg_params *p, bool v)
{
    p->ints[p->n][0] = v;
    p->values[p->n] = (const char *)p->ints[p->n];
    p->lengths[p->n] = 1;
    p->formats[p->n++] = 1;
}

void wk__pg_bytes(wk__pg_params *p, const void *data, size_t len)
{
    p->values[p->n] = len ? data : "";
    p->lengths[p->n] = (int)len;
    p->formats[p->n++] = 1;
}

void wk__pg_text(wk__pg_params *p, const char *s)
{
    p->values[p->n] = s;
    p->lengths[p->n] = 0;
    p->formats[p->n++] = 0;
}

int64_t wk__pg_get_i64(const PGresult *res, int row, int col)
{
    const uint8_t *b = (const uint8_t *)PQgetvalue(res, row, col);
    uint64_t v = 0;
    for (int k = 0; k < 8 && PQgetlength(res, row, col) == 8; k++)
        v = v << 8 | b[k];
    return (int64_t)v;
}

const uint8_t *wk__pg_get_bytes(const PGresult *res, int row, int col, size_t *len)
{
    *len = (size_t)PQgetlength(res, row, col);
    return (const uint8_t *)PQgetvalue(res, row, col);
}

PGresult *wk__pg_run(wk__pg *db, wk__pg_stmt which, const wk__pg_params *p, wk_status *st, const char *what)
{
    char name[8];
    snprintf(name, sizeof name, "wk%d", (int)which);
    PGresult *res = PQexecPrepared(db->conn, name, p ? p->n : 0, p ? p->values : NULL, p ? p->lengths : NULL,
                                   p ? p->formats : NULL, 1);
    ExecStatusType s = PQresultStatus(res);
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
        return res;
    wk__pg_fail(db, res, st, what);
    PQclear(res);
    return NULL;
}

int wk__pg_run_only(wk__pg *db, wk__pg_stmt which, const wk__pg_params *p, wk_status *st, const char *what)
{
    PGresult *res = wk__pg_run(db, which, p, st, what);
    PQclear(res);
    return res ? WK_OK : WK_IO;
}

int wk__pg_exec(wk__pg *db, const char *sql, wk_status *st, const char *what)
{
    PGresult *res = PQexec(db->conn, sql);
    ExecStatusType s = PQresultStatus(res);
    int rc = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? WK_OK : wk__pg_fail(db, res, st, what);
    PQclear(res);
    return rc;
}

int wk__pg_count_rows(wk__pg *db, const char *sql, wk_status *st)
{
    PGresult *res = PQexec(db->conn, sql);
    int n = PQresultStatus(res) == PGRES_TUPLES_OK ? PQntuples(res) : -1;
    if (n < 0)
        wk__pg_fail(db, res, st, sql);
    PQclear(res);
    return n;
}

static int prepare_all(wk__pg *db, wk_status *st)
{
    for (int i = 0; i < STMT_COUNT; i++) {
        char name[8];
        snprintf(name, sizeof name, "wk%d", i);
        PGresult *res = PQprepare(db->conn, name, stmt_sql[i], 0, NULL);
        int rc = PQresultStatus(res) == PGRES_COMMAND_OK ? WK_OK : wk__pg_fail(db, res, st, stmt_sql[i]);
        PQclear(res);
        if (rc)
            return rc;
    }
    return WK_OK;
}

/* Durable commits; a transaction left open (a server paused inside one)
 * ended by the database after a quarter of a lease's time, so that the
 * lease rows it locked go free before the lease ends; a row locked that
 * long not waited for (the call fails and is tried again); then the
 * statements. Our transactions send their statements back to back: they
 * never idle that long. */
int wk__pg_session(wk__pg *db, wk_status *st)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SET idle_in_transaction_session_timeout = '%s'; SET lock_timeout = '%s'",
             db->quarter, db->quarter);
    int rc = wk__pg_exec(db, "SET synchronous_commit = on", st, "asking for durable commits");
    if (rc == WK_OK)
        rc = wk__pg_exec(db, sql, st, "setting the timeouts");
    return rc ? rc : prepare_all(db, st);
}

/* Notes PostgreSQL's word that it ended the session for idling inside a
 * transaction (SQLSTATE 25P03), which comes between calls, as a notice:
 * the transaction it ended committed nothing. Other notices go to stderr as
 * libpq would print them. */
static void notice(void *arg, const PGresult *res)
{
    wk__pg *db = arg;
    const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    if (state && strcmp(state, "25P03") == 0)
        db->idled_out = true;
    fprintf(stderr, "worldkit: %s: %s", db->name, PQresultErrorMessage(res));
}

void wk__pg_watch_notices(wk__pg *db)
{
    PQsetNoticeReceiver(db->conn, notice, db);
}

/* Makes sure the connection works, resetting a broken one; in a turn. */
static int connected(wk__pg *db, wk_status *st)
{
    if (PQstatus(db->conn) == CONNECTION_OK)
        return WK_OK;
    PQreset(db->conn);
    if (PQstatus(db->conn) != CONNECTION_OK)
        return wk__pg_fail(db, NULL, st, "connecting again");
    return wk__pg_session(db, st);
}

/* Rolls back whatever transaction is open; in a turn. */
static void rollback(wk__pg *db)
{
    if (PQtransactionStatus(db->conn) != PQTRANS_IDLE)
        PQclear(PQexec(db->conn, "ROLLBACK"));
}

/* Whether the session of the call that just failed is gone: PostgreSQL
 * ended it (idle_in_transaction_session_timeout after the process stalled
 * inside a transaction, a restart, pg_terminate_backend) or the connection
 * was cut. */
static bool lost(const wk__pg *db)
{
    return PQstatus(db->conn) == CONNECTION_BAD;
}

/* Fails a call whose session was lost, and that is not run again, with
 * WK_UNAVAILABLE; committing: COMMIT was sent, so what it wrote may be
 * there. */
static int unavailable(wk_status *st, bool committing)
{
    if (!st)
        return WK_UNAVAILABLE;
    char why[sizeof st->message];
    snprintf(why, sizeof why, "%s", st->message);
    return wk_fail(st, WK_UNAVAILABLE, "%s (the connection to the database was lost%s)", why,
                   committing ? " while committing: the change may or may not have been kept" : "");
}

void wk__pg_turn(wk__pg *db, bool urgent)
{
    pthread_mutex_lock(&db->lock);
    db->urgent += urgent;
    while (db->busy || (!urgent && db->urgent))
        pthread_cond_wait(&db->turn, &db->lock);
    db->urgent -= urgent;
    db->busy = true;
    pthread_mutex_unlock(&db->lock);
}

void wk__pg_turn_end(wk__pg *db)
{
    pthread_mutex_lock(&db->lock);
    db->busy = false;
    pthread_cond_broadcast(&db->turn);
    pthread_mutex_unlock(&db->lock);
}

int wk__pg_txn(wk__pg *db, const char *begin, const char *what, unsigned how,
               int (*body)(wk__pg *db, void *ctx, wk_status *st), void *ctx, wk_status *st)
{
    wk__pg_turn(db, how & WK__PG_URGENT);
    int rc;
    for (int run = 0;; run++) {
        bool committing = false;
        db->idled_out = false;
        rc = connected(db, st);
        if (rc == WK_OK && (rc = wk__pg_exec(db, begin, st, what)) == WK_OK && (rc = body(db, ctx, st)) == WK_OK) {
            committing = true;
            rc = wk__pg_exec(db, "COMMIT", st, what);
        }
        if (rc == WK_OK)
            break;
        rollback(db);
        if (!lost(db))
            break;
        /* Nothing was committed unless COMMIT was sent on a live session
         * and its answer lost; a session PostgreSQL had ended for idling
         * (25P03) refused it. */
        committing = committing && strcmp(db->failed_state, "25P03") != 0 && !db->idled_out;
        if (run == 0 && (!committing || (how & WK__PG_RERUNNABLE)))
            continue;
        rc = unavailable(st, committing);
        break;
    }
    wk__pg_turn_end(db);
    return rc;
}

int wk__pg_one_number(wk__pg *db, wk__pg_stmt which, const char *text, int64_t *n, wk_status *st, const char *what)
{
    wk__pg_turn(db, false);
    int rc = WK_OK;
    for (int run = 0; run < 2; run++) {
        rc = connected(db, st);
        wk__pg_params p = {0};
        if (text)
            wk__pg_text(&p, text);
        PGresult *res = rc ? NULL : wk__pg_run(db, which, &p, st, what);
        if (res)
            *n = wk__pg_get_i64(res, 0, 0);
        rc = res ? WK_OK : lost(db) ? unavailable(st, false) : WK_IO;
        PQclear(res);
        if (rc != WK_UNAVAILABLE)
            break;
    }
    wk__pg_turn_end(db);
    return rc;
}
