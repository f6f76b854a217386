/* persist.h — what the files of the store's persistence share: the
 * interface every database backend implements (SQLite in persist_sqlite.c,
 * PostgreSQL in persist_pg.c), the database of a store behind it, and its
 * compactor.
 *
 * A backend keeps the same three tables whatever the engine: worlds (wid,
 * id, user tag, last update), snapshots (per wid: the seq of the last
 * journal entry folded in, the state, the order of children) and journal
 * (wid, seq, state). Journal seqs count from 1 per world; a snapshot's seq
 * is that of the last entry folded into it (0: none). Rows are keyed by
 * wid, an integer that belongs to the contents rather than to the id, so
 * that a swap renames two rows and a compaction that raced with a swap or a
 * delete writes where the contents it read went, or nowhere. Every call of
 * a backend is one transaction, committed durably before it returns WK_OK,
 * and safe to call from any thread (the backend serializes its connection). */
#ifndef WK_STORE_PERSIST_H
#define WK_STORE_PERSIST_H

#include "store/store_internal.h"

/* A world's row and snapshot as a backend reads them; borrowed for the
 * duration of the callback. */
typedef struct wk__row {
    int64_t wid, seq, last_update_ns;
    const char *id;
    bool has_user_tag;
    const char *user_tag;
    const uint8_t *state, *order;
    size_t state_len, order_len;
} wk__row;

/* What a backend's load calls, per world: world with its row, entry for
 * each journal entry after the snapshot in order, then done. A nonzero
 * return stops the load with that result. */
typedef struct wk__loader {
    int (*world)(void *ctx, const wk__row *row, wk_status *st);
    int (*entry)(void *ctx, int64_t seq, const uint8_t *bytes, size_t len, wk_status *st);
    int (*done)(void *ctx, wk_status *st);
    void *ctx;
} wk__loader;

/* The operations of a backend. Failures are WK_IO (WK_NOMEM, WK_INVALID
 * where said) with a message naming the database and the engine's reason. */
typedef struct wk__backend {
    /* Connects to the database desc names (creating the schema when it has
     * none, refusing one that is not worldkit's); *impl is the backend's. */
    int (*open)(const wk_store_desc *desc, void **impl, wk_status *st);
    void (*close)(void *impl);
    /* Reads every world (wid 0, in id order) or world wid into l. */
    int (*load)(void *impl, int64_t wid, const wk__loader *l, wk_status *st);
    /* Adds a world (row: id, user tag, last update, snapshot) and deletes
     * the rows of world replaced (0: none) in one transaction; *wid is the
     * new row's. */
    int (*insert)(void *impl, const wk__row *row, int64_t replaced, int64_t *wid, wk_status *st);
    int (*remove)(void *impl, int64_t wid, wk_status *st);
    /* Renames row a to id_a and row b to id_b, both last updated at now. */
    int (*rename_pair)(void *impl, int64_t a, const char *id_a, int64_t b, const char *id_b, int64_t now,
                       wk_status *st);
    /* Writes journal entry seq of world wid and its last update; *gone, writing
     * nothing, when the world's row is not there (deleted meanwhile). */
    int (*append)(void *impl, int64_t wid, int64_t seq, const wk_buf *entry, int64_t now, bool *gone,
                  wk_status *st);
    /* Replaces the snapshot of wid by snap (state, order) as of seq and
     * deletes the entries it folds. */
    int (*fold)(void *impl, int64_t wid, int64_t seq, const wk_buf snap[2], wk_status *st);
    /* Runs SQL without parameters or rows: for tests that make writes fail. */
    int (*exec)(void *impl, const char *sql);
} wk__backend;

extern const wk__backend wk__sqlite_backend;
extern const wk__backend wk__pg_backend;

struct wk__db {
    const wk__backend *ops;
    void *impl;
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

/* The compactor thread (persist_compact.c). */
int wk__compactor_start(wk__db *db, wk_status *st);
void wk__compactor_stop(wk__db *db);

#endif
