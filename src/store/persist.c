/* persist.c — the store on disk: DIR/worlds.db, one SQLite database holding
 * every world as a snapshot plus a journal of the changes written since.
 *
 * Schema: worlds(wid, id, has_user_tag, user_tag, last_update_ns),
 * snapshots(wid, seq, state, children) and journal(wid, seq, state). Rows are keyed
 * by wid, an integer that belongs to the contents rather than to the id, so
 * that a swap renames two rows (the contents keep their journals) and a
 * compaction that raced with a swap or a delete writes where the contents it
 * read went, or nowhere.
 *
 * Durability: WAL mode with synchronous FULL makes a commit durable before
 * sqlite3_step returns; every write is one transaction, so a crash keeps a
 * batch whole or drops it whole. The database is opened with exclusive
 * locking: a second server on the same directory is refused rather than
 * allowed to write behind the first one's back. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/persist.h"

#define WK__APPLICATION_ID 0x776b6462 /* "wkdb" */
#define WK__SCHEMA_VERSION 1

static const char *const stmt_sql[] = {
#define WK__STMT_SQL(name, sql) sql,
    WK__STMT_TABLE(WK__STMT_SQL)
#undef WK__STMT_SQL
};

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

int wk__db_fail(wk__db *db, wk_status *st, const char *what)
{
    return wk_fail(st, WK_IO, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->db));
}

int wk__db_run(wk__db *db, wk__stmt which)
{
    sqlite3_stmt *s = db->stmts[which];
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc;
}

static int db_begin(wk__db *db, wk_status *st, const char *what)
{
    return wk__db_run(db, WK__STMT_BEGIN) == SQLITE_DONE ? WK_OK : wk__db_fail(db, st, what);
}

static int db_commit(wk__db *db, wk_status *st, const char *what)
{
    if (wk__db_run(db, WK__STMT_COMMIT) == SQLITE_DONE)
        return WK_OK;
    int rc = wk__db_fail(db, st, what);
    wk__db_rollback(db);
    return rc;
}

void wk__db_rollback(wk__db *db)
{
    /* After some errors SQLite has rolled back already; then this fails,
     * harmlessly. */
    if (!sqlite3_get_autocommit(db->db))
        wk__db_run(db, WK__STMT_ROLLBACK);
}

void wk__db_bind_blob(sqlite3_stmt *stmt, int index, const wk_buf *bytes)
{
    static const uint8_t none;
    sqlite3_bind_blob64(stmt, index, bytes->len ? bytes->data : &none, bytes->len, SQLITE_STATIC);
}

int wk__db_write(wk__db *db, const char *what, int (*body)(wk__db *db, void *ctx), void *ctx, wk_status *st)
{
    pthread_mutex_lock(&db->lock);
    int rc = db_begin(db, st, what);
    if (rc == WK_OK && body(db, ctx)) {
        rc = wk__db_fail(db, st, what);
        wk__db_rollback(db);
    } else if (rc == WK_OK) {
        rc = db_commit(db, st, what);
    }
    pthread_mutex_unlock(&db->lock);
    return rc;
}

/* Runs SQL without rows or parameters (pragmas, the schema). */
static int exec(wk__db *db, const char *sql, wk_status *st, const char *what)
{
    return sqlite3_exec(db->db, sql, NULL, NULL, NULL) == SQLITE_OK ? WK_OK : wk__db_fail(db, st, what);
}

/* The single integer a pragma returns. */
static int pragma_int(wk__db *db, const char *sql, int64_t *out, wk_status *st)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db->db, sql, -1, &s, NULL) != SQLITE_OK)
        return wk__db_fail(db, st, sql);
    int rc = sqlite3_step(s);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? WK_OK : wk__db_fail(db, st, sql);
}

/* Creates the schema in a new database, or checks that an existing one is
 * worldkit's, of this version. */
static int check_schema(wk__db *db, wk_status *st)
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
            wk__db_rollback(db);
        return rc;
    }
    if (app != WK__APPLICATION_ID)
        return wk_fail(st, WK_IO, "%s: not a worldkit database (application id %" PRId64 ")", db->path, app);
    if (version != WK__SCHEMA_VERSION)
        return wk_fail(st, WK_IO, "%s: schema version %" PRId64 ", this worldkit reads version %d", db->path,
                       version, WK__SCHEMA_VERSION);
    return WK_OK;
}

/* Loads the world of the current row of stmt (SELECT_WORLD(S)) into a new
 * scene, with its record. */
static int load_row(wk__db *db, sqlite3_stmt *row, wk_scene **out, wk__wrec *rec, wk_status *st)
{
    const char *id = (const char *)sqlite3_column_text(row, 1);
    id = id ? id : "";
    *rec = (wk__wrec){.wid = sqlite3_column_int64(row, 0), .seq = sqlite3_column_int64(row, 7)};
    const uint8_t *snap = sqlite3_column_blob(row, 5);
    size_t snap_len = (size_t)sqlite3_column_bytes(row, 5);
    const uint8_t *order = sqlite3_column_blob(row, 6);
    size_t order_len = (size_t)sqlite3_column_bytes(row, 6);
    rec->snapshot_bytes = snap_len + order_len;
    wk_scene *s;
    int rc = wk__scene_begin(id, snap, snap_len, order, order_len, &s, st);
    if (rc)
        return rc;
    sqlite3_stmt *j = db->stmts[WK__STMT_SELECT_JOURNAL];
    sqlite3_bind_int64(j, 1, rec->wid);
    sqlite3_bind_int64(j, 2, rec->seq);
    int step;
    while (rc == WK_OK && (step = sqlite3_step(j)) == SQLITE_ROW) {
        int64_t seq = sqlite3_column_int64(j, 0);
        size_t len = (size_t)sqlite3_column_bytes(j, 1);
        rc = wk__scene_replay(id, s, seq, sqlite3_column_blob(j, 1), len, st);
        rec->seq = seq;
        rec->journal_count++;
        rec->journal_bytes += len;
    }
    if (rc == WK_OK && step != SQLITE_DONE)
        rc = wk__db_fail(db, st, "reading a journal");
    sqlite3_reset(j);
    sqlite3_clear_bindings(j);
    if (rc == WK_OK)
        rc = wk__scene_end(id, s, st);
    if (rc) {
        wk_scene_free(s);
        return rc;
    }
    *out = s;
    return WK_OK;
}

static int load_all(wk_store *store, wk_status *st)
{
    wk__db *db = store->db;
    sqlite3_stmt *row = db->stmts[WK__STMT_SELECT_WORLDS];
    int rc = WK_OK, step;
    while (rc == WK_OK && (step = sqlite3_step(row)) == SQLITE_ROW) {
        wk_scene *s;
        wk__wrec rec;
        if ((rc = load_row(db, row, &s, &rec, st)))
            break;
        const char *id = (const char *)sqlite3_column_text(row, 1);
        const char *tag = (const char *)sqlite3_column_text(row, 3);
        wk_world *w = wk__world_new(store, id ? id : "", s, sqlite3_column_int(row, 2) ? (tag ? tag : "") : NULL);
        if (!w || wk__world_append(store, w)) {
            if (w)
                wk__world_unref(w);
            rc = wk_fail(st, WK_NOMEM, "out of memory loading world '%s'", id ? id : "");
            break;
        }
        w->rec = rec;
        w->last_update_ns = sqlite3_column_int64(row, 4);
        wk__world_settle(w);
    }
    if (rc == WK_OK && step != SQLITE_DONE)
        rc = wk__db_fail(db, st, "reading the worlds");
    sqlite3_reset(row);
    return rc;
}

static void db_free(wk__db *db)
{
    for (int i = 0; i < WK__STMT_COUNT; i++)
        sqlite3_finalize(db->stmts[i]);
    sqlite3_close(db->db);
    pthread_mutex_destroy(&db->lock);
    pthread_mutex_destroy(&db->queue_lock);
    pthread_cond_destroy(&db->wake);
    free(db->queue);
    free(db);
}

/* Opens the file with the pragmas that make commits durable and the
 * process its only user. */
static int open_file(wk__db *db, wk_status *st)
{
    int rc = sqlite3_open_v2(db->path, &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK)
        return db->db ? wk__db_fail(db, st, "opening") : wk_fail(st, WK_NOMEM, "%s: out of memory", db->path);
    sqlite3_extended_result_codes(db->db, 1);
    sqlite3_busy_timeout(db->db, 2000);
    if ((rc = exec(db, "PRAGMA locking_mode = EXCLUSIVE", st, "opening")))
        return rc;
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db->db, "PRAGMA journal_mode = WAL", -1, &s, NULL) != SQLITE_OK)
        return wk__db_fail(db, st, "opening");
    int step = sqlite3_step(s);
    const char *mode = step == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
    bool wal = mode && strcmp(mode, "wal") == 0;
    sqlite3_finalize(s);
    if (step != SQLITE_ROW)
        return wk__db_fail(db, st, "opening");
    if (!wal)
        return wk_fail(st, WK_IO, "%s: cannot use write-ahead logging there", db->path);
    if ((rc = exec(db, "PRAGMA synchronous = FULL", st, "opening")) || (rc = check_schema(db, st)))
        return rc;
    for (int i = 0; i < WK__STMT_COUNT; i++)
        if (sqlite3_prepare_v3(db->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &db->stmts[i], NULL) != SQLITE_OK)
            return wk__db_fail(db, st, stmt_sql[i]);
    return WK_OK;
}

int wk__db_open(wk_store *store, const wk_store_desc *desc, wk_status *st)
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
    wk__db *db = calloc(1, sizeof *db);
    if (!db)
        return wk_fail(st, WK_NOMEM, "out of memory opening the store in '%s'", dir);
    pthread_mutex_init(&db->lock, NULL);
    pthread_mutex_init(&db->queue_lock, NULL);
    pthread_cond_init(&db->wake, NULL);
    db->compact_entries = desc->compact_entries ? desc->compact_entries : 1000;
    db->compact_bytes = desc->compact_bytes ? desc->compact_bytes : (uint64_t)4 << 20;
    db->compact_inline = desc->compact_inline;
    if ((size_t)snprintf(db->path, sizeof db->path, "%s/worlds.db", dir) >= sizeof db->path) {
        db_free(db);
        return wk_fail(st, WK_INVALID, "directory name '%s' is too long", dir);
    }
    int rc = open_file(db, st);
    if (rc) {
        db_free(db);
        return rc;
    }
    store->db = db;
    if ((rc = load_all(store, st)) == WK_OK && !db->compact_inline)
        rc = wk__compactor_start(db, st);
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
    wk__compactor_stop(store->db);
    db_free(store->db);
    store->db = NULL;
}

/* Deletes the rows of world wid; inside a transaction. */
static int delete_rows(wk__db *db, int64_t wid)
{
    if (!wid)
        return WK_OK;
    sqlite3_bind_int64(db->stmts[WK__STMT_DELETE_WORLD], 1, wid);
    if (wk__db_run(db, WK__STMT_DELETE_WORLD) != SQLITE_DONE)
        return WK_IO;
    sqlite3_bind_int64(db->stmts[WK__STMT_DELETE_SNAPSHOT], 1, wid);
    if (wk__db_run(db, WK__STMT_DELETE_SNAPSHOT) != SQLITE_DONE)
        return WK_IO;
    sqlite3_bind_int64(db->stmts[WK__STMT_TRIM_JOURNAL], 1, wid);
    sqlite3_bind_int64(db->stmts[WK__STMT_TRIM_JOURNAL], 2, INT64_MAX);
    return wk__db_run(db, WK__STMT_TRIM_JOURNAL) == SQLITE_DONE ? WK_OK : WK_IO;
}

/* The bodies of the writes below, each one transaction. */
typedef struct change {
    wk_world *w;
    const wk_world *other; /* replaced (insert), the other world (swap) */
    const wk_buf *bytes;   /* snapshot and order (insert), journal entry */
    int64_t now, wid;
    bool gone; /* the world's row was not there */
} change;

static int insert_rows(wk__db *db, void *ctx)
{
    change *c = ctx;
    if (c->other && delete_rows(db, c->other->rec.wid))
        return WK_IO;
    sqlite3_stmt *s = db->stmts[WK__STMT_INSERT_WORLD];
    sqlite3_bind_text(s, 1, c->w->id, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 2, c->w->has_user_tag);
    sqlite3_bind_text(s, 3, c->w->user_tag, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, c->w->last_update_ns);
    if (wk__db_run(db, WK__STMT_INSERT_WORLD) != SQLITE_DONE)
        return WK_IO;
    c->wid = sqlite3_last_insert_rowid(db->db);
    s = db->stmts[WK__STMT_INSERT_SNAPSHOT];
    sqlite3_bind_int64(s, 1, c->wid);
    wk__db_bind_blob(s, 2, &c->bytes[0]);
    wk__db_bind_blob(s, 3, &c->bytes[1]);
    return wk__db_run(db, WK__STMT_INSERT_SNAPSHOT) == SQLITE_DONE ? WK_OK : WK_IO;
}

int wk__db_insert(wk_store *store, wk_world *w, const wk_world *replaced, const wk_buf snap[2], wk_status *st)
{
    change c = {.w = w, .other = replaced, .bytes = snap};
    int rc = wk__db_write(store->db, "adding a world", insert_rows, &c, st);
    if (rc == WK_OK)
        w->rec = (wk__wrec){.wid = c.wid, .snapshot_bytes = snap[0].len + snap[1].len};
    return rc;
}

static int remove_rows(wk__db *db, void *ctx)
{
    return delete_rows(db, ((change *)ctx)->w->rec.wid);
}

int wk__db_delete(wk_store *store, const wk_world *w, wk_status *st)
{
    return wk__db_write(store->db, "deleting a world", remove_rows, &(change){.w = (wk_world *)w}, st);
}

static int rename_row(wk__db *db, int64_t wid, const char *id, int64_t now)
{
    sqlite3_stmt *s = db->stmts[WK__STMT_RENAME_WORLD];
    sqlite3_bind_int64(s, 1, wid);
    sqlite3_bind_text(s, 2, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, now);
    return wk__db_run(db, WK__STMT_RENAME_WORLD) == SQLITE_DONE ? WK_OK : WK_IO;
}

static int rename_rows(wk__db *db, void *ctx)
{
    change *c = ctx;
    return rename_row(db, c->w->rec.wid, c->other->id, c->now) || rename_row(db, c->other->rec.wid, c->w->id, c->now)
               ? WK_IO
               : WK_OK;
}

int wk__db_swap(wk_store *store, const wk_world *a, const wk_world *b, int64_t now, wk_status *st)
{
    return wk__db_write(store->db, "swapping worlds", rename_rows, &(change){.w = (wk_world *)a, .other = b, .now = now},
                        st);
}

/* Puts back the world as the database has it, after a write that failed. */
static int reload(wk_world *w, wk_status *st)
{
    wk__db *db = w->store->db;
    pthread_mutex_lock(&db->lock);
    sqlite3_stmt *row = db->stmts[WK__STMT_SELECT_WORLD];
    sqlite3_bind_int64(row, 1, w->rec.wid);
    int rc = WK_OK, step = sqlite3_step(row);
    wk_scene *s = NULL;
    wk__wrec rec;
    if (step == SQLITE_ROW)
        rc = load_row(db, row, &s, &rec, st);
    else
        rc = wk__db_fail(db, st, "reading the world back");
    sqlite3_reset(row);
    sqlite3_clear_bindings(row);
    pthread_mutex_unlock(&db->lock);
    if (rc)
        return rc;
    wk_scene_free(w->scene);
    w->scene = s;
    rec.queued = w->rec.queued;
    w->rec = rec;
    wk__world_settle(w);
    wk__store_replaced(w->store, w->id);
    return WK_OK;
}

/* The journal entry, and last_update; nothing when the world's row is
 * gone (deleted while the writer had it open). */
static int append_entry(wk__db *db, void *ctx)
{
    change *c = ctx;
    sqlite3_stmt *touch = db->stmts[WK__STMT_TOUCH_WORLD];
    sqlite3_bind_int64(touch, 1, c->w->rec.wid);
    sqlite3_bind_int64(touch, 2, c->now);
    if (wk__db_run(db, WK__STMT_TOUCH_WORLD) != SQLITE_DONE)
        return WK_IO;
    c->gone = sqlite3_changes(db->db) == 0;
    if (c->gone)
        return WK_OK;
    sqlite3_stmt *s = db->stmts[WK__STMT_INSERT_ENTRY];
    sqlite3_bind_int64(s, 1, c->w->rec.wid);
    sqlite3_bind_int64(s, 2, c->w->rec.seq + 1);
    wk__db_bind_blob(s, 3, c->bytes);
    return wk__db_run(db, WK__STMT_INSERT_ENTRY) == SQLITE_DONE ? WK_OK : WK_IO;
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
    change c = {.w = w, .bytes = &changes, .now = now};
    if (rc)
        rc = wk_fail(st, rc, "world '%s': serializing its changes: %s", w->id, wk_ecm_errmsg(ecm));
    else
        rc = wk__db_write(db, "writing a journal entry", append_entry, &c, st);
    if (rc == WK_OK && !c.gone) {
        w->rec.seq++;
        w->rec.journal_count++;
        w->rec.journal_bytes += changes.len;
    }
    wk_status why;
    if (rc && reload(w, &why) && st)
        snprintf(st->message + strlen(st->message), sizeof st->message - strlen(st->message),
                 "; reading the world back failed too (%s): memory holds what the disk does not",
                 why.message);
    wk_buf_free(&changes);
    return rc;
}

int wk__db_exec(wk_store *store, const char *sql)
{
    pthread_mutex_lock(&store->db->lock);
    int rc = sqlite3_exec(store->db->db, sql, NULL, NULL, NULL) == SQLITE_OK ? WK_OK : WK_IO;
    pthread_mutex_unlock(&store->db->lock);
    return rc;
}
