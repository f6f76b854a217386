/* wk_store.h — the store layer: the set of worlds a server holds.
 *
 * A store keeps worlds by id (ObjectWorldService's world methods): create,
 * list, clone, delete, swap, compare, sync. Each world is an object world
 * (wk_scene) with metadata and its own reader-writer lock: a caller opens a
 * world for reading (shared with other readers) or writing (exclusive), works
 * on its scene through wk_scene.h, and closes it. All calls are thread-safe.
 *
 * The structure hash of a world is a hash of its content except poses and
 * joint positions, computed when asked after a structural change: equal
 * worlds hash equal (a clone and its source, a world and itself reloaded
 * from disk), a pose update leaves it.
 *
 * Durability. A store opened on a directory (wk_store_open_dir) keeps every
 * world in DIR/worlds.db, an SQLite database in WAL mode with synchronous
 * FULL: per world a snapshot (its full serialized state) and a journal of
 * the batches written since, each journal entry being what one commit
 * changed (wk_ecm_state, changed_only), written in one SQLite transaction,
 * so that after a crash a batch is wholly there or wholly absent. Every
 * call below that changes the set of worlds (create, clone, delete, swap)
 * is on disk when it returns WK_OK, and so is a write ended with
 * wk_store_commit. A background thread folds long journals into new
 * snapshots. Reopening the directory brings every world back with the same
 * ids, entities, components, metadata and structure hash. A store made with
 * wk_store_new keeps nothing.
 *
 * A store opened on a PostgreSQL URL (wk_store_desc.url) keeps the same
 * tables there, with the same guarantee: a call that returns WK_OK has
 * committed its transaction, and the server was asked for synchronous
 * commit.
 *
 * Several servers may share one PostgreSQL database. Each world then has a
 * lease: one server at a time holds it, renewing it in the background, and
 * only that server serves the world. Every write checks, in its own
 * transaction, the epoch of the lease it was taken at (the epoch grows with
 * every change of holder), so a server that lost a lease (paused past it,
 * cut off) never writes the world again. Opening a world another server
 * holds fails with WK_MOVED naming that server's address; opening one whose
 * lease expired (or that no server holds) takes its lease and loads it from
 * the database, snapshot then journal. wk_store_list lists every world of
 * the database with the address of its holder. */
#ifndef WK_STORE_H
#define WK_STORE_H

#include "worldkit/wk_formats.h"
#include "worldkit/wk_scene.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WK_WORLD_ID_MAX 128
#define WK_OWNER_MAX 128
/* What the message of WK_MOVED says before the holder's address. */
#define WK_MOVED_TEXT "is served by the worldkit server at "

typedef struct wk_store wk_store;
typedef struct wk_world wk_world;

typedef struct wk_world_meta {
    char id[WK_WORLD_ID_MAX];
    char structure_hash[17]; /* 16 hex digits */
    int64_t last_update_ns;  /* wall clock, nanoseconds since 1970 */
    bool has_user_tag;
    char user_tag[256];
    /* A store shared between servers: the address of the server that holds
     * the world's lease ("" when none holds a live one); from wk_store_meta,
     * this server's, which holds the lease of every world it opens. "" in
     * a store of one server. */
    char owner[WK_OWNER_MAX];
} wk_world_meta;

/* An in-memory store; NULL when out of memory. */
wk_store *wk_store_new(void);

/* Options of a store kept on disk; zero means the default. */
typedef struct wk_store_desc {
    const char *dir;          /* created (one level) when missing */
    /* Instead of dir: a PostgreSQL connection URL (postgresql://...) or
     * libpq keyword string; the database holds the same tables, created when
     * missing, so that several servers can share it. */
    const char *url;
    uint32_t compact_entries; /* 0: 1000; a longer journal is folded into a new snapshot */
    uint64_t compact_bytes;   /* 0: 4 MiB; likewise a journal larger than this and than its snapshot */
    bool compact_inline;      /* fold at commit time instead of in a background thread */
    /* With url: the address clients reach this server at, which the leases
     * it holds show other servers (wk_store_set_address changes it), and
     * how long a lease lasts unless renewed (0: 10,000 ms). */
    const char *address;
    uint32_t lease_ms;
} wk_store_desc;

/* Opens (creating it when missing) the store kept in dir and loads every
 * world in it. Fails with WK_IO naming the file and SQLite's reason for a
 * directory that cannot be created or written or a file that is not a
 * worldkit database, and with WK_IO naming the world and journal entry for
 * one that does not load; nothing is left open then. wk_store_open_desc
 * does the same for a directory or a PostgreSQL database (naming the
 * database and PostgreSQL's reason when it fails). */
int wk_store_open_dir(const char *dir, wk_store **out, wk_status *st);
int wk_store_open_desc(const wk_store_desc *desc, wk_store **out, wk_status *st);
/* Frees every world; no world may be open. A store on disk first finishes
 * the compaction under way and closes the database (what was committed is
 * on disk already). */
void wk_store_free(wk_store *store);
/* The address a store shared between servers gives the leases it holds
 * from now on (the one clients reach this server at); a no-op otherwise. */
void wk_store_set_address(wk_store *store, const char *address);
/* The most entities a world of the store may hold; 0, a new store's, is
 * no bound. A world created, cloned or replaced with more is refused
 * (WK_LIMIT) and not stored; a writer asks wk_store_room before keeping
 * what it added. Set it before the store is shared between threads. */
void wk_store_set_max_entities(wk_store *store, size_t max);
/* A further bound on what a world may hold, asked wherever the entities
 * are counted (wk_store_room, worlds created, cloned or replaced): WK_OK,
 * or WK_LIMIT with a message saying why, the world named before it. The
 * endpoint's physics bounds its links so (wk_sim_physics_room). Set it
 * before the store is shared between threads. */
typedef int (*wk_store_room_fn)(wk_scene *scene, void *ctx, wk_status *st);
void wk_store_set_room(wk_store *store, wk_store_room_fn fn, void *ctx);
/* WK_OK while the scene of w holds no more entities than its store allows;
 * else WK_LIMIT naming the world, its count and the limit, so that the
 * writer undoes what it added (a scene batch rolled back, an entity
 * deleted) rather than keep it. */
int wk_store_room(const wk_world *w, wk_status *st);
/* Who hears of the store's changes as they are made (the change stream's
 * hub, wk_watch.h); zero: nobody. */
typedef struct wk_store_observer {
    /* A write of w is being committed: called holding w open for writing,
     * once its changes are durable and before its ECM's change tracking is
     * reset, so that the ECM still tells what changed (wk_ecm_step_facts). */
    void (*committed)(wk_world *w, void *ctx);
    /* World id's content was replaced whole (created or cloned over,
     * swapped, deleted, or read back from disk after a failed write): what
     * an observer knew of it is void. */
    void (*replaced)(const char *id, void *ctx);
    void *ctx;
} wk_store_observer;
/* Sets the store's observer; before the store is shared between threads. */
void wk_store_observe(wk_store *store, const wk_store_observer *observer);
/* Folds the journal of world id into a new snapshot now, as the background
 * thread does on its own; WK_OK at once in an in-memory store. */
int wk_store_compact(wk_store *store, const char *id, wk_status *st);

/* Geometries registered with the store (Intrinsic's GeometryService): bytes
 * kept under an id, for the store rather than a world. put keeps len bytes
 * under id (up to WK_GEOMETRY_ID_MAX - 1 bytes), durably (in the database's
 * geometries table) before it returns WK_OK; an id already kept keeps its
 * first bytes, the ids being derived from the contents. get appends the
 * bytes of id to out, WK_NOT_FOUND naming id when none are kept. */
#define WK_GEOMETRY_ID_MAX 128
int wk_store_put_geometry(wk_store *store, const char *id, const void *bytes, size_t len, wk_status *st);
int wk_store_get_geometry(wk_store *store, const char *id, wk_buf *out, wk_status *st);

typedef struct wk_world_create_desc {
    const char *id;       /* NULL or "": "World_<n>"; taken: "<id>_<n>" (id cut to keep 100 bytes),
                             unless replace */
    const char *user_tag; /* NULL: none */
    wk_world_desc *file;  /* NULL: an empty world; else taken (also on failure) */
    /* Instead of file: the world's scene, taken (also on failure), made an
     * object world unless it is one already. */
    wk_scene *scene;
    bool replace;         /* a world with the id is replaced, in one step */
    /* Asked once the world is serialized for the database, before it is
     * written: true gives up with WK_DEADLINE, nothing stored (a call past
     * its deadline). NULL, or a store in memory: never asked. */
    bool (*over)(void *ctx);
    void *over_ctx;
} wk_world_create_desc;

/* Creates a world and writes its id to id_out (WK_WORLD_ID_MAX bytes). Fails
 * with WK_INVALID for an id outside [A-Za-z0-9_.-]{1,100}. A world replaced
 * stays with those who have it open until they close it. */
int wk_store_create(wk_store *store, const wk_world_create_desc *desc, char *id_out, wk_status *st);
/* Clones world id as clone_id (NULL or "": a new id); an existing clone_id
 * is replaced only with allow_overwrite (else WK_EXISTS). user_tag NULL
 * keeps the source's. */
int wk_store_clone(wk_store *store, const char *id, const char *clone_id, bool allow_overwrite,
                   const char *user_tag, char *id_out, wk_status *st);
/* Removes a world; callers that have it open finish first. */
int wk_store_delete(wk_store *store, const char *id, wk_status *st);
/* Exchanges the contents (scenes, user tags) of two worlds; ids stay. */
int wk_store_swap(wk_store *store, const char *id, const char *other, wk_status *st);

int wk_store_meta(wk_store *store, const char *id, wk_world_meta *out, wk_status *st);
/* Metadata of every world, sorted by id, into *out (free()) and *count. */
int wk_store_list(wk_store *store, wk_world_meta **out, size_t *count);

/* Opens world id for reading or writing; NOT_FOUND for an unknown id. */
int wk_store_open(wk_store *store, const char *id, bool write, wk_world **out, wk_status *st);
/* Opens world id for reading if that needs no wait: WK_BUSY at once while
 * a writer has it open, and WK_NOT_FOUND at once for a world this store
 * does not hold in memory, which it never takes from another server
 * sharing the database (wk_store_open does). For a thread that must not
 * stall, as the live view's, and must not move worlds by looking at them.
 * Close with wk_store_close. */
int wk_store_try_open(wk_store *store, const char *id, wk_world **out, wk_status *st);
/* Opens two different worlds at once (WK_INVALID for the same id), locking
 * them in the order every caller of the store shares, so that two callers
 * opening the same pair cannot deadlock (opening one, then the other, can).
 * Close each with wk_store_close. */
int wk_store_open_pair(wk_store *store, const char *id_a, bool write_a, const char *id_b, bool write_b,
                       wk_world **a, wk_world **b, wk_status *st);
/* Ends the changes of a write, durably: when the world's ECM changed since
 * the last commit, what changed is written as one journal entry (store on
 * disk) and the ECM's change tracking is reset (wk_ecm_end_step);
 * last_update moves and, with structural (more changed than poses or joint
 * positions), the structure hash is recomputed when next asked. When
 * nothing changed nothing is written. The world stays open: render the
 * answer from it, then wk_store_close(w, false, false).
 *
 * Answer a client's mutation with OK only once this returned WK_OK. When
 * the write fails (WK_IO, or WK_NOMEM serializing) the world is reloaded
 * from disk, so memory and disk agree and the changes since the last commit
 * are gone from both (the world then has a new scene: call wk_world_scene
 * again before reading it); answer with the error. WK_BUSY, writing nothing, while
 * a scene batch is open (commit or roll it back first). A session may
 * commit several times, one journal entry each. */
int wk_store_commit(wk_world *w, bool structural, wk_status *st);
/* Writes the whole state of w (open for writing) as its new snapshot,
 * folding its journal in: a checkpoint of what changed without being
 * committed (a simulation's motion, which is not journaled step by step).
 * WK_OK at once in an in-memory store. */
int wk_store_checkpoint(wk_world *w, wk_status *st);
/* Closes an open world. After writing, changed says whether anything was
 * changed and structural whether the change was more than poses or joint
 * positions; with changed, close commits what wk_store_commit has not,
 * reporting a failure only on stderr, so servers that answer clients call
 * wk_store_commit first and then close with changed false. */
void wk_store_close(wk_world *w, bool changed, bool structural);
/* The scene of an open world; borrowed until it is closed. Read-only unless
 * opened for writing. */
wk_scene *wk_world_scene(wk_world *w);
const char *wk_world_id(const wk_world *w);

/* CompareWorlds and SyncObject across two worlds of the store. */
int wk_store_compare(wk_store *store, const char *base, const char *changed, wk_compare_mode mode,
                     wk_world_diff *out, wk_status *st);
int wk_store_sync(wk_store *store, const char *from, const char *to, const wk_ref *ref, bool frame, wk_status *st);

#ifdef __cplusplus
}
#endif
#endif
