/* store_internal.h — what the files of src/store share: the store, a
 * world's record, and the persistence layer's entry points (persist*.c). */
#ifndef WK_STORE_INTERNAL_H
#define WK_STORE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/hash_index.h"
#include "store/suffixes.h"
#include "worldkit/wk_store.h"

typedef struct wk__db wk__db;

/* What the store on disk knows of a world's scene: the rows that hold it and
 * how much journal has piled up on its snapshot. It belongs to the scene,
 * not to the id: a swap exchanges it with the scene. All zero in memory. */
typedef struct wk__wrec {
    int64_t wid;      /* worlds.wid */
    int64_t seq;      /* seq of the last journal entry written */
    int64_t epoch;    /* of the lease this server holds the world at (a shared database) */
    uint64_t journal_count, journal_bytes, snapshot_bytes; /* since the snapshot */
    uint64_t version;  /* the ECM's version when tracking was last reset */
    size_t empty_len;  /* the length of a changed-only state that holds no change */
    bool queued;       /* waiting for the compactor */
} wk__wrec;

struct wk_world {
    char id[WK_WORLD_ID_MAX];
    wk_store *store;
    pthread_rwlock_t lock; /* over scene and the fields below but meta_lock's */
    _Atomic int refs;      /* the store's, and one per open */
    bool writing;          /* opened for writing now */
    wk_scene *scene;
    wk__wrec rec;
    bool has_user_tag;
    char user_tag[256];
    int64_t last_update_ns;
    /* The structure hash is computed by readers on demand: under meta_lock. */
    pthread_mutex_t meta_lock;
    bool hash_stale;
    char structure_hash[17];
};

struct wk_store {
    pthread_rwlock_t lock; /* over the list */
    wk_world **worlds;
    size_t count, cap;
    wk__index world_index; /* hash of a world's id -> its place in worlds + 1 */
    wk__db *db; /* NULL: in memory */
    size_t max_entities; /* per world; 0: no bound (wk_store_set_max_entities) */
    wk_store_room_fn room; /* a further bound, or NULL (wk_store_set_room) */
    void *room_ctx;
    wk_store_observer observer;
    /* The number the next world made without an id is tried with (World_<n>),
     * in a store no other server shares; under the store's write lock. */
    uint64_t next_number;
    /* The "_<n>" suffixes given to ids wanted taken, in a store no other
     * server shares; under the store's write lock. */
    wk__suffixes suffixes;
    /* The geometries of a store kept in memory (geometries.c); a store
     * with a database keeps them there only. */
    pthread_mutex_t geometry_lock;
    struct wk__geometry *geometries;
    size_t geometry_count, geometry_cap;
    wk__index geometry_index; /* hash of an id -> its place + 1 */
};

/* Frees the geometries a store keeps in memory. */
void wk__geometries_free(wk_store *store);

/* Tells the store's observer that world id was replaced whole. */
void wk__store_replaced(const wk_store *store, const char *id);

int64_t wk__now_ns(void);
/* The index of id in the list, or count; under the store's lock. */
size_t wk__find_world(const wk_store *store, const char *id);
/* Takes the world at index k out of the list (the last takes its place),
 * leaving the caller its reference; under the store's write lock. */
wk_world *wk__world_take_out(wk_store *store, size_t k);
void wk__world_unref(wk_world *w);
/* The world with id in the list, with a reference taken (wk__world_unref),
 * or NULL; takes the store's lock. */
wk_world *wk__world_ref(wk_store *store, const char *id);
/* A new world holding scene (taken, also on failure), with one reference:
 * the store's; NULL when out of memory. */
wk_world *wk__world_new(wk_store *store, const char *id, wk_scene *scene, const char *user_tag);
/* Appends w to the list (the store's reference); under the store's write
 * lock. 0 or WK_NOMEM. */
int wk__world_append(wk_store *store, wk_world *w);
/* Resets the change tracking of w's ECM after its state was recorded (or,
 * in memory, after a commit), noting the version. */
int wk__world_settle(wk_world *w);

/* ---- persistence (persist.c, persist_load.c, persist_compact.c) -----------
 *
 * One SQLite connection per store, used under the database's mutex. Lock
 * order: the store's lock, then a world's, then the database's; nothing
 * takes a world's lock while holding the database's. */

/* Opens dir's database, creating the schema, and loads every world into the
 * store; on failure the store has no database (and the worlds loaded before
 * the failure are the caller's to free, with the store). */
int wk__db_open(wk_store *store, const wk_store_desc *desc, wk_status *st);
/* Stops the compactor and closes the database. */
void wk__db_close(wk_store *store);
/* Writes w (not in the list yet) as a new row with its snapshot (snap[0]
 * the state, snap[1] the order, from wk__scene_save), deleting the rows of
 * replaced (may be NULL) in the same transaction; sets w->rec. Under the
 * store's write lock. */
int wk__db_insert(wk_store *store, wk_world *w, const wk_world *replaced, const wk_buf snap[2], wk_status *st);
/* Deletes w's rows. */
int wk__db_delete(wk_store *store, const wk_world *w, wk_status *st);
/* Renames the rows of two worlds whose scenes (and records) are about to be
 * exchanged: a's row takes b's id and b's a's, both last updated at now. */
int wk__db_swap(wk_store *store, const wk_world *a, const wk_world *b, int64_t now, wk_status *st);
/* Records what changed in w (open for writing) since the last reset as one
 * journal entry, last updated at now. *wrote says whether there was
 * anything to write. On failure w's scene is reloaded from disk. */
int wk__db_journal(wk_world *w, int64_t now, bool *wrote, wk_status *st);
/* Folds w's journal into a new snapshot; w open (read or write) by the
 * caller. Without always, nothing is written while the journal is empty. */
int wk__db_compact(wk_world *w, bool always, wk_status *st);
/* Hands w to the compactor (or compacts at once when inline); w open for
 * writing. */
void wk__db_want_compaction(wk_world *w);

/* In a store whose database other servers share: makes sure world id is
 * in the list and this server holds its lease, taking the lease and
 * loading the world when no server holds it (a lease found lapsed takes the
 * world out of the list first). WK_OK at once in other stores; else
 * WK_NOT_FOUND (no such world in the database), WK_MOVED (another server
 * holds it: the message names its address) or WK_IO. */
int wk__db_pull(wk_store *store, const char *id, wk_status *st);
/* Takes out of the list the worlds whose leases this server lost (another
 * server serves them now); one open at the moment, or its lease noted
 * meanwhile, is not waited for: the next renewal or call finds it. */
void wk__db_drop_lost(wk_store *store);

/* Runs SQL on the store's database: for tests that make it fail. */
int wk__db_exec(wk_store *store, const char *sql);

/* persist_load.c: a world's state to bytes and back. */

/* The snapshot of a scene: its full state, and the order of every parent's
 * children (which the state does not hold) as 8-byte ids, each parent's
 * children in order. */
int wk__scene_save(wk_scene *s, wk_buf *state, wk_buf *order);
/* The scene a snapshot, then the journal entries after it, describe; each
 * step names the world (id) when it fails. */
int wk__scene_begin(const char *id, const uint8_t *state, size_t len, const uint8_t *order, size_t order_len,
                    wk_scene **out, wk_status *st);
int wk__scene_replay(const char *id, wk_scene *s, int64_t seq, const uint8_t *entry, size_t len, wk_status *st);
int wk__scene_end(const char *id, wk_scene *s, wk_status *st);

#endif
