/* persist_pg.h — what the files of the PostgreSQL backend share: its
 * statements, the state of one connection, and the helpers that run SQL on
 * it (persist_pg_conn.c), check and move leases (persist_pg_lease.c) and
 * read and write worlds (persist_pg.c).
 *
 * Every statement is prepared once per session under the name "wk<index>"
 * of its row in the table below. Parameters and results travel in binary
 * (but for text), so snapshots and journal entries are not escaped. */
#ifndef WK_STORE_PERSIST_PG_H
#define WK_STORE_PERSIST_PG_H

#include <libpq-fe.h>

#include "store/persist.h"

/* X(name, SQL). */
#define WK__PG_STMT_TABLE(X)                                                                                   \
    X(INSERT_WORLD, "INSERT INTO worlds(id, has_user_tag, user_tag, last_update_ns) VALUES($1, $2, $3, $4) "   \
                    "RETURNING wid")                                                                           \
    X(INSERT_SNAPSHOT, "INSERT INTO snapshots(wid, seq, state, children) VALUES($1, 0, $2, $3)")               \
    X(DELETE_WORLD, "DELETE FROM worlds WHERE wid = $1")                                                       \
    X(DELETE_SNAPSHOT, "DELETE FROM snapshots WHERE wid = $1")                                                 \
    X(TRIM_JOURNAL, "DELETE FROM journal WHERE wid = $1 AND seq <= $2")                                        \
    X(INSERT_ENTRY, "INSERT INTO journal(wid, seq, state, epoch) VALUES($1, $2, $3, $4)")                      \
    X(TOUCH_WORLD, "UPDATE worlds SET last_update_ns = $2 WHERE wid = $1")                                     \
    X(RENAME_WORLD, "UPDATE worlds SET id = $2, last_update_ns = $3 WHERE wid = $1")                           \
    X(SET_SNAPSHOT, "UPDATE snapshots SET state = $2, children = $3, seq = $4 WHERE wid = $1 AND seq <= $4")   \
    X(SELECT_WORLD, "SELECT w.wid, w.id, w.has_user_tag, w.user_tag, w.last_update_ns, s.state, s.children, " \
                    "s.seq FROM worlds w JOIN snapshots s ON s.wid = w.wid WHERE w.wid = $1")                  \
    X(SELECT_JOURNAL, "SELECT seq, state FROM journal WHERE wid = $1 AND seq > $2 ORDER BY seq")             \
    X(FENCE, "UPDATE leases SET expires = CURRENT_TIMESTAMP + CAST($3 AS interval) WHERE wid = $1 AND epoch = $2") \
    X(NEW_LEASE, "INSERT INTO leases(wid, owner, address, epoch, expires) "                                    \
                 "VALUES($1, $2, $3, 1, CURRENT_TIMESTAMP + CAST($4 AS interval))")                            \
    X(DROP_LEASE, "DELETE FROM leases WHERE wid = $1")                                                         \
    X(RELEASE, "UPDATE leases SET expires = CURRENT_TIMESTAMP WHERE owner = $1")                               \
    X(LET_GO, "UPDATE leases SET expires = CURRENT_TIMESTAMP, owner = '' WHERE wid = $1 AND epoch = $2 "       \
              "AND owner = $3")                                                                                \
    X(FIND_OWNER, "SELECT w.wid, l.epoch, l.address, l.expires <= CURRENT_TIMESTAMP OR l.owner = $2 "          \
                  "FROM worlds w LEFT JOIN leases l ON l.wid = w.wid WHERE w.id = $1")                         \
    X(TAKE_LEASE, "UPDATE leases SET owner = $3, address = $4, epoch = epoch + 1, "                            \
                  "expires = CURRENT_TIMESTAMP + CAST($5 AS interval) "                                        \
                  "WHERE wid = $1 AND epoch = $2 AND (expires <= CURRENT_TIMESTAMP OR owner = $3) RETURNING epoch") \
    X(RENEW, "UPDATE leases SET expires = CURRENT_TIMESTAMP + CAST($2 AS interval), address = $3 "             \
             "WHERE owner = $1 RETURNING wid, epoch")                                                          \
    X(NEXT_NUMBER, "SELECT nextval('world_numbers')")                                                           \
    X(NEXT_SUFFIX, "INSERT INTO id_suffixes(base, last) VALUES($1, 1) "                                         \
                   "ON CONFLICT (base) DO UPDATE SET last = id_suffixes.last + 1 RETURNING last")              \
    X(LIST, "SELECT w.id, w.has_user_tag, w.user_tag, w.last_update_ns, "                                     \
            "CASE WHEN l.expires > CURRENT_TIMESTAMP THEN l.address ELSE '' END "                              \
            "FROM worlds w LEFT JOIN leases l ON l.wid = w.wid ORDER BY w.id")                                \
    X(INSERT_GEOMETRY, "INSERT INTO geometries(id, data) VALUES($1, $2) ON CONFLICT (id) DO NOTHING")          \
    X(SELECT_GEOMETRY, "SELECT data FROM geometries WHERE id = $1")

typedef enum wk__pg_stmt { WK__PG_STMT_TABLE(WK__STMT_ENUM) STMT_COUNT } wk__pg_stmt;

typedef struct wk__pg {
    PGconn *conn;
    char name[256]; /* "PostgreSQL database 'db' at host:port", for messages */
    /* The connection's turns: under lock, busy while a call uses conn
     * and address, urgent counting the lease calls waiting for a turn
     * (they go first), turn signalled as each turn ends. */
    pthread_mutex_t lock;
    pthread_cond_t turn;
    bool busy;
    int urgent;
    char owner[96];       /* this server's name in the leases it holds: unique per process */
    char address[WK_OWNER_MAX];
    char lease[32];   /* the lease's duration as an interval */
    char quarter[32]; /* a quarter of it */
    bool ready;     /* opened: the leases are let go of at the close */
    char failed_state[6]; /* the SQLSTATE of the last failure, "" when it had none */
    bool idled_out; /* PostgreSQL said it ended the session for idling inside a transaction */
} wk__pg;

/* Parameters of one statement, in binary but for text. */
typedef struct wk__pg_params {
    int n;
    const char *values[5];
    int lengths[5], formats[5];
    uint8_t ints[5][8];
} wk__pg_params;

void wk__pg_i64(wk__pg_params *p, int64_t v);
void wk__pg_bool(wk__pg_params *p, bool v);
void wk__pg_bytes(wk__pg_params *p, const void *data, size_t len);
void wk__pg_text(wk__pg_params *p, const char *s);
/* Column col of row of a result, read as a bigint, or as bytes (*len of
 * them, borrowed from res). */
int64_t wk__pg_get_i64(const PGresult *res, int row, int col);
const uint8_t *wk__pg_get_bytes(const PGresult *res, int row, int col, size_t *len);

/* Fails with WK_IO naming the database, what was being done and
 * PostgreSQL's reason (res's, else the connection's); with WK_EXISTS when
 * the reason is a unique key taken (SQLSTATE 23505: a world's id that
 * another server gave a world of its own meanwhile). */
int wk__pg_fail(wk__pg *db, const PGresult *res, wk_status *st, const char *what);
/* Runs a prepared statement; its result (PQclear), or NULL with st set
 * when it failed. */
PGresult *wk__pg_run(wk__pg *db, wk__pg_stmt which, const wk__pg_params *p, wk_status *st, const char *what);
/* Runs a statement whose result is not needed: WK_OK or WK_IO (st set). */
int wk__pg_run_only(wk__pg *db, wk__pg_stmt which, const wk__pg_params *p, wk_status *st, const char *what);
/* Runs SQL without parameters (transaction control, the schema). */
int wk__pg_exec(wk__pg *db, const char *sql, wk_status *st, const char *what);
/* The number of rows of a query, -1 when it fails. */
int wk__pg_count_rows(wk__pg *db, const char *sql, wk_status *st);
/* Hands the connection's notices to the backend (before its first call). */
void wk__pg_watch_notices(wk__pg *db);
/* Sets a new session up (durable commits, timeouts, the statements). */
int wk__pg_session(wk__pg *db, wk_status *st);

#define WK__PG_WRITE "BEGIN"
#define WK__PG_READ "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

/* What wk__pg_txn may do with a transaction: run it again after its
 * answer to COMMIT was lost (running it twice does what running it once
 * does); run it before the calls that are not urgent waiting for the
 * connection (the renewals, and the read of a world being taken, would
 * otherwise wait behind every commit the server's clients queued, each
 * waiting for its fsync: under load, long enough to lose leases and to keep
 * a world taken over from its clients). */
enum { WK__PG_RERUNNABLE = 1, WK__PG_URGENT = 2 };

/* Waits for the connection's turn (urgent: before those not urgent), and
 * gives it back. */
void wk__pg_turn(wk__pg *db, bool urgent);
void wk__pg_turn_end(wk__pg *db);

/* Runs body in one transaction (begun with begin) in a turn of the
 * connection, committed when body returns WK_OK, else rolled back; body
 * and the commit set st when they fail. A transaction whose session was
 * lost (ended by PostgreSQL, or the connection cut) runs once more on a new
 * one when nothing of it was committed, or when it is WK__PG_RERUNNABLE;
 * its body starts over then, and must set its outputs anew. Otherwise, or
 * when the second run loses its session too, it fails with WK_UNAVAILABLE. */
int wk__pg_txn(wk__pg *db, const char *begin, const char *what, unsigned how,
               int (*body)(wk__pg *db, void *ctx, wk_status *st), void *ctx, wk_status *st);
/* Runs statement which, with text its one parameter (NULL: none), outside
 * a transaction, its one bigint in *n; run once more on a new session when
 * the first was lost (a number skipped is harmless). */
int wk__pg_one_number(wk__pg *db, wk__pg_stmt which, const char *text, int64_t *n, wk_status *st, const char *what);

/* The leases (persist_pg_lease.c). fence checks, inside a write, that this
 * server still holds world wid's lease at epoch, extending it; WK_MOVED
 * when it does not. new_lease gives this server the first lease of world
 * wid, inside a transaction (what: for its error message). release lets go of every lease this server
 * holds, in a transaction of its own. */
int wk__pg_fence(wk__pg *db, int64_t wid, int64_t epoch, wk_status *st);
int wk__pg_new_lease(wk__pg *db, int64_t wid, wk_status *st, const char *what);
int wk__pg_release(wk__pg *db, wk_status *st);
int wk__pg_claim(void *impl, const char *id, int64_t *wid, int64_t *epoch, char *owner, wk_status *st);
int wk__pg_renew(void *impl, int64_t **held, size_t *count, wk_status *st);
int wk__pg_let_go(void *impl, int64_t wid, int64_t epoch, wk_status *st);
int wk__pg_list(void *impl, wk__listed **out, size_t *count, wk_status *st);
void wk__pg_set_address(void *impl, const char *address);
void wk__pg_address(void *impl, char *out);

#endif
