/* persist.h — what persist.c and persist_compact.c share: the database of a
 * store on disk, its prepared statements, and its compactor. */
#ifndef WK_STORE_PERSIST_H
#define WK_STORE_PERSIST_H

#include <sqlite3.h>

#include "store/store_internal.h"

/* X(name, SQL). Journal seqs count from 1 per world; a snapshot's seq is
 * that of the last entry folded into it (0: none). Snapshots live apart from
 * the worlds' metadata so that touching last_update on every commit does
 * not rewrite them. */
#define WK__STMT_TABLE(X)                                                                                    \
    X(BEGIN, "BEGIN IMMEDIATE")                                                                              \
    X(COMMIT, "COMMIT")                                                                                      \
    X(ROLLBACK, "ROLLBACK")                                                                                  \
    X(INSERT_WORLD, "INSERT INTO worlds(id, has_user_tag, user_tag, last_update_ns) VALUES(?1, ?2, ?3, ?4)") \
    X(INSERT_SNAPSHOT, "INSERT INTO snapshots(wid, seq, state, children) VALUES(?1, 0, ?2, ?3)")             \
    X(DELETE_WORLD, "DELETE FROM worlds WHERE wid = ?1")                                                     \
    X(DELETE_SNAPSHOT, "DELETE FROM snapshots WHERE wid = ?1")                                               \
    X(TRIM_JOURNAL, "DELETE FROM journal WHERE wid = ?1 AND seq <= ?2")                                      \
    X(INSERT_ENTRY, "INSERT INTO journal(wid, seq, state) VALUES(?1, ?2, ?3)")                               \
    X(TOUCH_WORLD, "UPDATE worlds SET last_update_ns = ?2 WHERE wid = ?1")                                   \
    X(RENAME_WORLD, "UPDATE worlds SET id = ?2, last_update_ns = ?3 WHERE wid = ?1")                         \
    X(SET_SNAPSHOT, "UPDATE snapshots SET state = ?2, children = ?3, seq = ?4 WHERE wid = ?1 AND seq <= ?4") \
    X(SELECT_WORLDS, "SELECT w.wid, w.id, w.has_user_tag, w.user_tag, w.last_update_ns, s.state, "           \
                     "s.children, s.seq FROM worlds w JOIN snapshots s USING (wid) ORDER BY w.id")           \
    X(SELECT_WORLD, "SELECT w.wid, w.id, w.has_user_tag, w.user_tag, w.last_update_ns, s.state, "            \
                    "s.children, s.seq FROM worlds w JOIN snapshots s USING (wid) WHERE w.wid = ?1")         \
    X(SELECT_JOURNAL, "SELECT seq, state FROM journal WHERE wid = ?1 AND seq > ?2 ORDER BY seq")

typedef enum wk__stmt {
#define WK__STMT_ENUM(name, sql) WK__STMT_##name,
    WK__STMT_TABLE(WK__STMT_ENUM)
#undef WK__STMT_ENUM
    WK__STMT_COUNT
} wk__stmt;

struct wk__db {
    sqlite3 *db;
    char path[4096];
    pthread_mutex_t lock; /* over db and stmts */
    sqlite3_stmt *stmts[WK__STMT_COUNT];
    uint32_t compact_entries;
    uint64_t compact_bytes;
    bool compact_inline;
    /* The compactor: worlds waiting (each with a reference), under queue_lock. */
    pthread_mutex_t queue_lock;
    pthread_cond_t wake;
    bool stop, running;
    pthread_t thread;
    wk_world **queue;
    size_t queue_count, queue_cap;
};

/* Fails with WK_IO naming the database file and SQLite's reason. */
int wk__db_fail(wk__db *db, wk_status *st, const char *what);
/* Runs a statement that returns no rows; under the lock. Binding is the
 * caller's; the statement is reset after. SQLITE_DONE, else SQLite's code. */
int wk__db_run(wk__db *db, wk__stmt which);
/* Rolls back the transaction open, if any; under the lock. */
void wk__db_rollback(wk__db *db);
/* Takes the lock and runs body in one transaction, committed when body
 * returns WK_OK; a nonzero result (SQLite's error pending) or a failed
 * commit rolls it back and fails with WK_IO saying what. */
int wk__db_write(wk__db *db, const char *what, int (*body)(wk__db *db, void *ctx), void *ctx, wk_status *st);
/* Binds bytes (never NULL, which SQLite would store as NULL). */
void wk__db_bind_blob(sqlite3_stmt *stmt, int index, const wk_buf *bytes);

/* The compactor thread (persist_compact.c). */
int wk__compactor_start(wk__db *db, wk_status *st);
void wk__compactor_stop(wk__db *db);

#endif
