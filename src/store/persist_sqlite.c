/* persist_sqlite.c — the store's SQLite backend, the default: DIR/worlds.db,
 * one file beside the server holding the tables persist.h describes.
 *
 * Durability: WAL mode with synchronous FULL makes a commit durable before
 * sqlite3_step returns; every write is one transaction, so a crash keeps a
 * batch whole or drops it whole. The database is opened with exclusive
 * locking: a second server on the same directory is refused rather than
 * allowed to write behind the first one's back. One connection, used under
 * the backend's mutex. */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/persist.h"

#define WK__APPLICATION_ID 0x776b6462 /* "wkdb" */
#define WK__SCHEMA_VERSION 1

/* X(name, SQL). Snapshots live apart from the worlds' metadata so that
 * touching last_update on every commit does not rewrite them. */
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
    X(SELECT_JOURNAL, "SELECT seq, state FROM journal WHERE wid = ?1 AND seq > ?2 ORDER BY seq")             \
    X(INSERT_GEOMETRY, "INSERT INTO geometries(id, data) VALUES(?1, ?2) ON CONFLICT(id) DO NOTHING")         \
    X(SELECT_GEOMETRY, "SELECT data FROM geometries WHERE id = ?1")

typedef enum stmt_id { WK__STMT_TABLE(WK__STMT_ENUM) STMT_COUNT } stmt_id;
static const char *const stmt_sql[] = {WK__STMT_TABLE(WK__STMT_SQL)};

static const char schema[] =
    "CREATE TABLE worlds("
    " wid INTEGER PRIMARY KEY,"
    " id TEXT NOT NULL,"
    " has_user_tag INTEGER NOT NULL,"
    " user_tag TEXT NOT NULL,"
    " last_update_ns INTEGER NOT NULL);"
    "CREATE TABLE snapshots("
    " wid INTEGER PRIMARY KEY,"
    " seq INTEGER NOT NULL,"
    " state BLOB NOT NULL,"
    " children BLOB NOT NULL);"
    "CREATE TABLE journal("
    " wid INTEGER NOT NULL,"
    " seq INTEGER NOT NULL,"
    " state BLOB NOT NULL,"
    " PRIMARY KEY(wid, seq));"
    "PRAGMA application_id = 2003526754;" /* WK__APPLICATION_ID */
    "PRAGMA user_version = 1;";

/* The geometries came after version 1's first tables: made where missing,
 * which an older worldkit reading the file does not notice. */
static const char geometry_schema[] = "CREATE TABLE IF NOT EXISTS geometries(id TEXT PRIMARY KEY, data BLOB NOT NULL)";

typedef struct lite {
    sqlite3 *db;
    char path[4096];
    pthread_mutex_t lock; /* over db and stmts */
    sqlite3_stmt *stmts[STMT_COUNT];
} lite;

/* Fails with WK_IO naming the database file and SQLite's reason. */
static int fail(lite *db, wk_status *st, const char *what)
{
    return wk_fail(st, WK_IO, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->db));
}

/* Runs a statement that returns no rows; under the lock. Binding is the
 * caller's; the statement is reset after. SQLITE_DONE, else SQLite's code. */
static int run(lite *db, stmt_id which)
{
    sqlite3_stmt *s = db->stmts[which];
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc;
}

/* Rolls back the transaction open, if any; under the lock. */
static void rollback(lite *db)
{
    /* After some errors SQLite has rolled back already; then this fails,
     * harmlessly. */
    if (!sqlite3_get_autocommit(db->db))
        run(db, STMT_ROLLBACK);
}

/* Binds bytes (never NULL, which SQLite would store as NULL). */
static void bind_blob(sqlite3_stmt *stmt, int index, const wk_buf *bytes)
{
    static const uint8_t none;
    sqlite3_bind_blob64(stmt, index, bytes->len ? bytes->data : &none, bytes->len, SQLITE_STATIC);
}

/* Takes the lock and runs body in one transaction, committed when body
 * returns WK_OK; a nonzero result (SQLite's error pending) or a failed
 * commit rolls it back and fails with WK_IO saying what. */
static int write_txn(lite *db, const char *what, int (*body)(lite *db, void *ctx), void *ctx, wk_status *st)
{
    pthread_mutex_lock(&db->lock);
    int rc = run(db, STMT_BEGIN) == SQLITE_DONE ? WK_OK : fail(db, st, what);
    if (rc == WK_OK && body(db, ctx)) {
        rc = fail(db, st, what);
        rollback(db);
    } else if (rc == WK_OK && run(db, STMT_COMMIT) != SQLITE_DONE) {
        rc = fail(db, st, what);
        rollback(db);
    }
    pthread_mutex_unlock(&db->lock);
    return rc;
}

/* Runs SQL without rows or parameters (pragmas, the schema). */
static int exec(lite *db, const char *sql, wk_status *st, const char *what)
{
    return sqlite3_exec(db->db, sql, NULL, NULL, NULL) == SQLITE_OK ? WK_OK : fail(db, st, what);
}

/* The single integer a pragma returns. */
static int pragma_int(lite *db, const char *sql, int64_t *out, wk_status *st)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db->db, sql, -1, &s, NULL) != SQLITE_OK)
        return fail(db, st, sql);
    int rc = sqlite3_step(s);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? WK_OK : fail(db, st, sql);
}

/* Creates the schema in a new database, or checks that an existing one is
 * worldkit's, of this version. */
static int check_schema(lite *db, wk_status *st)
{
    int64_t app = 0, version = 0, tables = 0;
    int rc = pragma_int(db, "PRAGMA application_id", &app, st);
    if (rc == WK_OK)
        rc = pragma_int(db, "PRAGMA user_version", &version, st);
    if (rc == WK_OK)
        rc = pragma_int(db, "SELECT count(*) FROM sqlite_master", &tables, st);
    if (rc)
        return rc;
    if (app == 0 && tables == 0) {
        if ((rc = exec(db, "BEGIN IMMEDIATE", st, "creating the schema")) == WK_OK &&
            (rc = exec(db, schema, st, "creating the schema")) == WK_OK)
            rc = exec(db, "COMMIT", st, "creating the schema");
        if (rc)
            rollback(db);
        return rc;
    }
    if (app != WK__APPLICATION_ID)
        return wk_fail(st, WK_IO, "%s: not a worldkit database (application id %" PRId64 ")", db->path, app);
    if (version != WK__SCHEMA_VERSION)
        return wk_fail(st, WK_IO, "%s: schema version %" PRId64 ", this worldkit reads version %d", db->path,
                       version, WK__SCHEMA_VERSION);
    return WK_OK;
}

/* Hands the world of the current row of stmt (SELECT_WORLD(S)) and its
 * journal to l; under the lock. */
static int load_row(lite *db, sqlite3_stmt *row, const wk__loader *l, wk_status *st)
{
    const char *id = (const char *)sqlite3_column_text(row, 1);
    const char *tag = (const char *)sqlite3_column_text(row, 3);
    wk__row r = {
        .wid = sqlite3_column_int64(row, 0),
        .id = id ? id : "",
        .has_user_tag = sqlite3_column_int(row, 2) != 0,
        .user_tag = tag ? tag : "",
        .last_update_ns = sqlite3_column_int64(row, 4),
        .state = sqlite3_column_blob(row, 5),
        .state_len = (size_t)sqlite3_column_bytes(row, 5),
        .order = sqlite3_column_blob(row, 6),
        .order_len = (size_t)sqlite3_column_bytes(row, 6),
        .seq = sqlite3_column_int64(row, 7),
    };
    int rc = l->world(l->ctx, &r, st);
    if (rc)
        return rc;
    sqlite3_stmt *j = db->stmts[STMT_SELECT_JOURNAL];
    sqlite3_bind_int64(j, 1, r.wid);
    sqlite3_bind_int64(j, 2, r.seq);
    int step;
    while (rc == WK_OK && (step = sqlite3_step(j)) == SQLITE_ROW)
        rc = l->entry(l->ctx, sqlite3_column_int64(j, 0), sqlite3_column_blob(j, 1),
                      (size_t)sqlite3_column_bytes(j, 1), st);
    if (rc == WK_OK && step != SQLITE_DONE)
        rc = fail(db, st, "reading a journal");
    sqlite3_reset(j);
    sqlite3_clear_bindings(j);
    return rc ? rc : l->done(l->ctx, st);
}

static int lite_load(void *impl, int64_t wid, const wk__loader *l, wk_status *st)
{
    lite *db = impl;
    pthread_mutex_lock(&db->lock);
    sqlite3_stmt *row = db->stmts[wid ? STMT_SELECT_WORLD : STMT_SELECT_WORLDS];
    if (wid)
        sqlite3_bind_int64(row, 1, wid);
    int rc = WK_OK, step, rows = 0;
    while (rc == WK_OK && (step = sqlite3_step(row)) == SQLITE_ROW) {
        rows++;
        rc = load_row(db, row, l, st);
    }
    if (rc == WK_OK && step != SQLITE_DONE)
        rc = fail(db, st, "reading the worlds");
    else if (rc == WK_OK && wid && !rows)
        rc = wk_fail(st, WK_IO, "%s: world row %" PRId64 " is gone", db->path, wid);
    sqlite3_reset(row);
    sqlite3_clear_bindings(row);
    pthread_mutex_unlock(&db->lock);
    return rc;
}

static void lite_close(void *impl)
{
    lite *db = impl;
    if (!db)
        return;
    for (int i = 0; i < STMT_COUNT; i++)
        sqlite3_finalize(db->stmts[i]);
    sqlite3_close(db->db);
    pthread_mutex_destroy(&db->lock);
    free(db);
}

/* Opens the file with the pragmas that make commits durable and the
 * process its only user. */
static int open_file(lite *db, wk_status *st)
{
    int rc = sqlite3_open_v2(db->path, &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK)
        return db->db ? fail(db, st, "opening") : wk_fail(st, WK_NOMEM, "%s: out of memory", db->path);
    sqlite3_extended_result_codes(db->db, 1);
    sqlite3_busy_timeout(db->db, 2000);
    if ((rc = exec(db, "PRAGMA locking_mode = EXCLUSIVE", st, "opening")))
        return rc;
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db->db, "PRAGMA journal_mode = WAL", -1, &s, NULL) != SQLITE_OK)
        return fail(db, st, "opening");
    int step = sqlite3_step(s);
    const char *mode = step == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
    bool wal = mode && strcmp(mode, "wal") == 0;
    sqlite3_finalize(s);
    if (step != SQLITE_ROW)
        return fail(db, st, "opening");
    if (!wal)
        return wk_fail(st, WK_IO, "%s: cannot use write-ahead logging there", db->path);
    if ((rc = exec(db, "PRAGMA synchronous = FULL", st, "opening")) || (rc = check_schema(db, st)) ||
        (rc = exec(db, geometry_schema, st, "creating the geometries table")))
        return rc;
    for (int i = 0; i < STMT_COUNT; i++)
        if (sqlite3_prepare_v3(db->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &db->stmts[i], NULL) != SQLITE_OK)
            return fail(db, st, stmt_sql[i]);
    return WK_OK;
}

static int lite_open(const wk_store_desc *desc, void **impl, wk_status *st)
{
    const char *dir = desc->dir;
    if (!dir || !*dir)
        return wk_fail(st, WK_INVALID, "no directory given for the store");
    if (mkdir(dir, 0777) && errno != EEXIST)
        return wk_fail(st, WK_IO, "cannot create directory '%s': %s", dir, strerror(errno));
    struct stat sb;
    if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
        return wk_fail(st, WK_IO, "'%s' is not a directory", dir);
    /* SQLite would say only "unable to open database file": the folder
     * must take the database and its WAL files. */
    if (access(dir, W_OK | X_OK))
        return wk_fail(st, WK_IO, "cannot write in directory '%s': %s", dir, strerror(errno));
    lite *db = calloc(1, sizeof *db);
    if (!db)
        return wk_fail(st, WK_NOMEM, "out of memory opening the store in '%s'", dir);
    pthread_mutex_init(&db->lock, NULL);
    int rc;
    if ((size_t)snprintf(db->path, sizeof db->path, "%s/worlds.db", dir) >= sizeof db->path)
        rc = wk_fail(st, WK_INVALID, "directory name '%s' is too long", dir);
    else
        rc = open_file(db, st);
    if (rc) {
        lite_close(db);
        return rc;
    }
    *impl = db;
    return WK_OK;
}

/* Deletes the rows of world wid; inside a transaction. */
static int delete_rows(lite *db, int64_t wid)
{
    if (!wid)
        return WK_OK;
    sqlite3_bind_int64(db->stmts[STMT_DELETE_WORLD], 1, wid);
    if (run(db, STMT_DELETE_WORLD) != SQLITE_DONE)
        return WK_IO;
    sqlite3_bind_int64(db->stmts[STMT_DELETE_SNAPSHOT], 1, wid);
    if (run(db, STMT_DELETE_SNAPSHOT) != SQLITE_DONE)
        return WK_IO;
    sqlite3_bind_int64(db->stmts[STMT_TRIM_JOURNAL], 1, wid);
    sqlite3_bind_int64(db->stmts[STMT_TRIM_JOURNAL], 2, INT64_MAX);
    return run(db, STMT_TRIM_JOURNAL) == SQLITE_DONE ? WK_OK : WK_IO;
}

/* The arguments of the writes below, each one transaction. */
typedef struct change {
    const wk__row *row;
    int64_t wid, other, seq, now;
    const char *id, *other_id;
    const wk_buf *bytes; /* a journal entry; a snapshot and its order */
    bool gone;           /* the world's row was not there */
} change;

static int insert_rows(lite *db, void *ctx)
{
    change *c = ctx;
    if (delete_rows(db, c->other))
        return WK_IO;
    sqlite3_stmt *s = db->stmts[STMT_INSERT_WORLD];
    sqlite3_bind_text(s, 1, c->row->id, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 2, c->row->has_user_tag);
    sqlite3_bind_text(s, 3, c->row->user_tag, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, c->row->last_update_ns);
    if (run(db, STMT_INSERT_WORLD) != SQLITE_DONE)
        return WK_IO;
    c->wid = sqlite3_last_insert_rowid(db->db);
    s = db->stmts[STMT_INSERT_SNAPSHOT];
    sqlite3_bind_int64(s, 1, c->wid);
    bind_blob(s, 2, &(wk_buf){.data = (uint8_t *)c->row->state, .len = c->row->state_len});
    bind_blob(s, 3, &(wk_buf){.data = (uint8_t *)c->row->order, .len = c->row->order_len});
    return run(db, STMT_INSERT_SNAPSHOT) == SQLITE_DONE ? WK_OK : WK_IO;
}

/* One server per database: the epochs are not SQLite's business. */
static int lite_insert(void *impl, const wk__row *row, int64_t replaced, int64_t replaced_epoch, int64_t *wid,
                       int64_t *epoch, wk_status *st)
{
    (void)replaced_epoch;
    change c = {.row = row, .other = replaced};
    int rc = write_txn(impl, "adding a world", insert_rows, &c, st);
    *wid = c.wid;
    *epoch = 0;
    return rc;
}

static int remove_rows(lite *db, void *ctx)
{
    return delete_rows(db, ((change *)ctx)->wid);
}

static int lite_remove(void *impl, int64_t wid, int64_t epoch, wk_status *st)
{
    (void)epoch;
    return write_txn(impl, "deleting a world", remove_rows, &(change){.wid = wid}, st);
}

static int rename_row(lite *db, int64_t wid, const char *id, int64_t now)
{
    sqlite3_stmt *s = db->stmts[STMT_RENAME_WORLD];
    sqlite3_bind_int64(s, 1, wid);
    sqlite3_bind_text(s, 2, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, now);
    return run(db, STMT_RENAME_WORLD) == SQLITE_DONE ? WK_OK : WK_IO;
}

static int rename_rows(lite *db, void *ctx)
{
    change *c = ctx;
    return rename_row(db, c->wid, c->id, c->now) || rename_row(db, c->other, c->other_id, c->now) ? WK_IO : WK_OK;
}

static int lite_rename_pair(void *impl, int64_t a, int64_t epoch_a, const char *id_a, int64_t b, int64_t epoch_b,
                            const char *id_b, int64_t now, wk_status *st)
{
    (void)epoch_a, (void)epoch_b;
    change c = {.wid = a, .id = id_a, .other = b, .other_id = id_b, .now = now};
    return write_txn(impl, "swapping worlds", rename_rows, &c, st);
}

/* The journal entry, and last_update; nothing when the world's row is
 * gone (deleted while the writer had it open). */
static int append_entry(lite *db, void *ctx)
{
    change *c = ctx;
    sqlite3_stmt *touch = db->stmts[STMT_TOUCH_WORLD];
    sqlite3_bind_int64(touch, 1, c->wid);
    sqlite3_bind_int64(touch, 2, c->now);
    if (run(db, STMT_TOUCH_WORLD) != SQLITE_DONE)
        return WK_IO;
    c->gone = sqlite3_changes(db->db) == 0;
    if (c->gone)
        return WK_OK;
    sqlite3_stmt *s = db->stmts[STMT_INSERT_ENTRY];
    sqlite3_bind_int64(s, 1, c->wid);
    sqlite3_bind_int64(s, 2, c->seq);
    bind_blob(s, 3, c->bytes);
    return run(db, STMT_INSERT_ENTRY) == SQLITE_DONE ? WK_OK : WK_IO;
}

static int lite_append(void *impl, int64_t wid, int64_t epoch, int64_t seq, const wk_buf *entry, int64_t now,
                       bool *gone, wk_status *st)
{
    (void)epoch;
    change c = {.wid = wid, .seq = seq, .bytes = entry, .now = now};
    int rc = write_txn(impl, "writing a journal entry", append_entry, &c, st);
    *gone = c.gone;
    return rc;
}

/* The new snapshot, as of the last entry written, and the entries it
 * folds gone. */
static int fold_rows(lite *db, void *ctx)
{
    const change *c = ctx;
    sqlite3_stmt *s = db->stmts[STMT_SET_SNAPSHOT];
    sqlite3_bind_int64(s, 1, c->wid);
    bind_blob(s, 2, &c->bytes[0]);
    bind_blob(s, 3, &c->bytes[1]);
    sqlite3_bind_int64(s, 4, c->seq);
    if (run(db, STMT_SET_SNAPSHOT) != SQLITE_DONE)
        return WK_IO;
    sqlite3_stmt *trim = db->stmts[STMT_TRIM_JOURNAL];
    sqlite3_bind_int64(trim, 1, c->wid);
    sqlite3_bind_int64(trim, 2, c->seq);
    return run(db, STMT_TRIM_JOURNAL) == SQLITE_DONE ? WK_OK : WK_IO;
}

static int lite_fold(void *impl, int64_t wid, int64_t epoch, int64_t seq, const wk_buf snap[2], wk_status *st)
{
    (void)epoch;
    return write_txn(impl, "writing a snapshot", fold_rows, &(change){.wid = wid, .seq = seq, .bytes = snap}, st);
}

typedef struct geometry_row {
    const char *id;
    const wk_buf *bytes;
} geometry_row;

static int insert_geometry(lite *db, void *ctx)
{
    const geometry_row *g = ctx;
    sqlite3_stmt *s = db->stmts[STMT_INSERT_GEOMETRY];
    sqlite3_bind_text(s, 1, g->id, -1, SQLITE_STATIC);
    bind_blob(s, 2, g->bytes);
    return run(db, STMT_INSERT_GEOMETRY) == SQLITE_DONE ? WK_OK : WK_IO;
}

static int lite_put_geometry(void *impl, const char *id, const wk_buf *bytes, wk_status *st)
{
    return write_txn(impl, "keeping a geometry", insert_geometry, &(geometry_row){.id = id, .bytes = bytes}, st);
}

static int lite_get_geometry(void *impl, const char *id, wk_buf *out, bool *found, wk_status *st)
{
    lite *db = impl;
    pthread_mutex_lock(&db->lock);
    sqlite3_stmt *s = db->stmts[STMT_SELECT_GEOMETRY];
    sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    int step = sqlite3_step(s), rc = WK_OK;
    *found = step == SQLITE_ROW;
    if (*found && wk_buf_append(out, sqlite3_column_blob(s, 0), (size_t)sqlite3_column_bytes(s, 0)))
        rc = wk_fail(st, WK_NOMEM, "%s: out of memory reading geometry '%s'", db->path, id);
    else if (!*found && step != SQLITE_DONE)
        rc = fail(db, st, "reading a geometry");
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    pthread_mutex_unlock(&db->lock);
    return rc;
}

static int lite_exec(void *impl, const char *sql)
{
    lite *db = impl;
    pthread_mutex_lock(&db->lock);
    int rc = sqlite3_exec(db->db, sql, NULL, NULL, NULL) == SQLITE_OK ? WK_OK : WK_IO;
    pthread_mutex_unlock(&db->lock);
    return rc;
}

const wk__backend wk__sqlite_backend = {
    .open = lite_open,
    .close = lite_close,
    .load = lite_load,
    .insert = lite_insert,
    .remove = lite_remove,
    .rename_pair = lite_rename_pair,
    .append = lite_append,
    .fold = lite_fold,
    .exec = lite_exec,
    .put_geometry = lite_put_geometry,
    .get_geometry = lite_get_geometry,
};
