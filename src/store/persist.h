/* persist.h — what the files of the store's persistence share: the
 * interface every database backend implements (SQLite in persist_sqlite.c,
 * PostgreSQL in persist_pg.c), the database of a store behind it, and its
 * compactor.
 *
 * A backend keeps the same tables whatever the engine: worlds (wid, id,
 * user tag, last update), snapshots (per wid: the seq of the last journal
 * entry folded in, the state, the order of children), journal (wid, seq,
 * state), and geometries (id, bytes: what Intrinsic's GeometryService
 * registered, which belongs to the store rather than to a world); a
 * shared one also leases and id_suffixes (per wanted id, the last suffix
 * number given). Journal seqs count from 1 per world; a snapshot's seq
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

/* A world of the database as a listing shows it: with its owner. */
typedef struct wk__listed {
    wk_world_meta meta; /* id, user tag, last update; no structure hash */
    char owner[WK_OWNER_MAX]; /* the address of the server holding its lease; "" when none does */
} wk__listed;

/* The operations of a backend. Failures are WK_IO (WK_NOMEM, WK_INVALID
 * where said) with a message naming the database and the engine's reason.
 *
 * A backend whose database several servers share (PostgreSQL's) also keeps
 * a lease per world: the server that holds it, until when, and an epoch
 * that grows with every change of holder. Every write names the epoch its
 * server holds the world's lease at (0 in SQLite's, which ignores it) and
 * checks it in the same transaction, failing with WK_MOVED when the lease
 * went to another server: a server that lost a lease never writes again. */
typedef struct wk__backend {
    /* Connects to the database desc names (creating the schema when it has
     * none, refusing one that is not worldkit's); *impl is the backend's. */
    int (*open)(const wk_store_desc *desc, void **impl, wk_status *st);
    void (*close)(void *impl);
    /* Reads every world (wid 0, in id order) or world wid into l. A shared
     * backend reads every world only when asked for one (wid). */
    int (*load)(void *impl, int64_t wid, const wk__loader *l, wk_status *st);
    /* Adds a world (row: id, user tag, last update, snapshot) and deletes
     * the rows of world replaced (0: none, else held at replaced_epoch) in
     * one transaction; *wid is the new row's, *epoch its lease's. */
    int (*insert)(void *impl, const wk__row *row, int64_t replaced, int64_t replaced_epoch, int64_t *wid,
                  int64_t *epoch, wk_status *st);
    int (*remove)(void *impl, int64_t wid, int64_t epoch, wk_status *st);
    /* Renames row a to id_a and row b to id_b, both last updated at now. */
    int (*rename_pair)(void *impl, int64_t a, int64_t epoch_a, const char *id_a, int64_t b, int64_t epoch_b,
                       const char *id_b, int64_t now, wk_status *st);
    /* Writes journal entry seq of world wid and its last update; *gone, writing
     * nothing, when the world's row is not there (deleted meanwhile). */
    int (*append)(void *impl, int64_t wid, int64_t epoch, int64_t seq, const wk_buf *entry, int64_t now, bool *gone,
                  wk_status *st);
    /* Replaces the snapshot of wid by snap (state, order) as of seq and
     * deletes the entries it folds. */
    int (*fold)(void *impl, int64_t wid, int64_t epoch, int64_t seq, const wk_buf snap[2], wk_status *st);
    /* Keeps bytes under geometry id; an id already there keeps its bytes
     * (ids are derived from the contents). */
    int (*put_geometry)(void *impl, const char *id, const wk_buf *bytes, wk_status *st);
    /* Appends the bytes of geometry id to out; *found false when none. */
    int (*get_geometry)(void *impl, const char *id, wk_buf *out, bool *found, wk_status *st);
    /* Runs SQL without parameters or rows: for tests that make writes fail. */
    int (*exec)(void *impl, const char *sql);

    /* The leases; NULL in a backend of one server. claim takes the lease
     * of world id when no server holds a live one (*wid, *epoch: the world
     * and the lease now held), WK_NOT_FOUND when there is no such world, or
     * WK_MOVED naming the holder, its address in owner (WK_OWNER_MAX bytes)
     * and in *left how long its lease ran on when the claim's transaction
     * began (ns; 0 when not known). */
    int (*claim)(void *impl, const char *id, int64_t *wid, int64_t *epoch, char *owner, int64_t *left,
                 wk_status *st);
    /* Extends every lease this server holds; *held (free()) lists the wids
     * and epochs still held, *count of them. */
    int (*renew)(void *impl, int64_t **held, size_t *count, wk_status *st);
    /* Lets go of the lease of wid held at epoch at once, so that another
     * server may take the world without waiting for it to expire; renew
     * does not extend it again. */
    int (*let_go)(void *impl, int64_t wid, int64_t epoch, wk_status *st);
    /* Every world of the database with its owner, in id order (free()). */
    int (*list)(void *impl, wk__listed **out, size_t *count, wk_status *st);
    /* A number no server of the database was given before, for the id of
     * a world made without one. */
    int (*next_number)(void *impl, int64_t *n, wk_status *st);
    /* The next "_<n>" suffix number for ids picked from base, a counter
     * per base that no two servers of the database get the same value of
     * (1 the first time); NULL in a backend of one server, whose store
     * counts itself. */
    int (*next_suffix)(void *impl, const char *base, int64_t *n, wk_status *st);
    /* The address this server's leases give clients to reach it. */
    void (*set_address)(void *impl, const char *address);
    /* That address, in out (WK_OWNER_MAX bytes). */
    void (*address)(void *impl, char *out);
} wk__backend;

/* A backend's statements come from a table X(name, SQL): these make of it
 * an enum of STMT_<name> and an array of the SQL, in the same order. */
#define WK__STMT_ENUM(name, sql) STMT_##name,
#define WK__STMT_SQL(name, sql) sql,

extern const wk__backend wk__sqlite_backend;
extern const wk__backend wk__pg_backend;

/* A take in progress (wk__db_pull), on its caller's stack. */
typedef struct wk__taking {
    const char *id;
    struct wk__taking *next;
} wk__taking;

typedef struct wk__lease {
    int64_t wid, epoch, valid_until;
} wk__lease;

/* A world another server holds, as a claim found it (persist_owners.c):
 * its holder's address and lease epoch, and the monotonic time until which
 * that lease surely runs. */
typedef struct wk__owner {
    char id[WK_WORLD_ID_MAX];
    char owner[WK_OWNER_MAX];
    int64_t epoch, until;
} wk__owner;

struct wk__db {
    wk_store *store; /* the store it keeps */
    const wk__backend *ops;
    void *impl;
    uint32_t compact_entries;
    uint64_t compact_bytes;
    bool compact_inline;
    /* A shared backend's leases (persist_lease.c): those held, each with
     * the monotonic time until which it surely is (start of the
     * transaction that took or renewed it, plus the lease's duration),
     * under lease_lock. Under take_lock, the worlds being taken (one take
     * per world at a time; the takes of different worlds run side by side),
     * and taken_wake, signalled as each take ends. */
    int64_t lease_ns;
    pthread_mutex_t lease_lock, take_lock;
    pthread_cond_t renew_wake, taken_wake;
    struct wk__taking *taking;
    wk__lease *leases;
    size_t lease_count, lease_cap;
    wk__owner *owners; /* the worlds held elsewhere, also under lease_lock */
    size_t owner_count, owner_cap;
    pthread_t renewer;
    bool renewing, renew_stop;
    /* The compactor: worlds waiting (each with a reference), under queue_lock. */
    pthread_mutex_t queue_lock;
    pthread_cond_t wake;
    bool stop, running;
    pthread_t thread;
    wk_world **queue;
    size_t queue_count, queue_cap;
};

/* The leases held (persist_lease.c): the monotonic clock they count on;
 * noting one taken at epoch, at start (that clock); forgetting one; and
 * whether wid is surely held at epoch now. */
int64_t wk__lease_clock(void);
void wk__lease_note(wk__db *db, int64_t wid, int64_t epoch, int64_t start);
void wk__lease_forget(wk__db *db, int64_t wid);
bool wk__lease_held(wk__db *db, int64_t wid, int64_t epoch);
/* The worlds other servers hold (persist_owners.c): noting world id's
 * holder (address owner, lease epoch) surely holding it until until (the
 * monotonic clock); and WK_MOVED naming that holder while it surely does,
 * else WK_OK. */
void wk__owner_note(wk__db *db, const char *id, const char *owner, int64_t epoch, int64_t until);
int wk__owner_known(wk__db *db, const char *id, wk_status *st);
/* The thread renewing them every third of their duration; after a renewal
 * that found leases lost, it drops their worlds (wk__db_drop_lost). */
int wk__renewer_start(wk__db *db, wk_status *st);
void wk__renewer_stop(wk__db *db);

/* The compactor thread (persist_compact.c). */
int wk__compactor_start(wk__db *db, wk_status *st);
void wk__compactor_stop(wk__db *db);

#endif
