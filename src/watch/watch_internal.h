/* watch_internal.h — what the files of src/watch share: the hub, its
 * channels (one per watched world) and their record of changes, and the
 * watcher (hub.c keeps the record, watcher.c reads it into messages). */
#ifndef WK_WATCH_INTERNAL_H
#define WK_WATCH_INTERNAL_H

#include <pthread.h>

#include "base/hash_index.h"
#include "worldkit/wk_store.h"
#include "worldkit/wk_watch.h"

/* When an entity was created and last changed, as versions of its world. */
typedef struct wk__mark {
    wk_entity entity;
    uint64_t created, changed;
} wk__mark;

/* An entity removed (type WK_NO_TYPE) or one of its components, at version. */
typedef struct wk__removal {
    wk_entity entity;
    wk_type type;
    uint64_t version;
} wk__removal;

/* One world's record, under the hub's lock. Versions count the changes
 * published while the world had watchers; a watcher that took version v has
 * seen every change up to v. */
typedef struct wk__channel {
    char id[WK_WORLD_ID_MAX];
    int watchers;
    uint64_t version;
    /* A watcher that took less than this takes a full state: the world was
     * replaced, a change could not be recorded, or the removal log was cut
     * past it. */
    uint64_t full_below;
    wk_watch_clock clock; /* the simulation's at the latest step published */
    const wk_ecm *ecm; /* the ECM the marks are of; another one's change resets them */
    wk__mark *marks;
    size_t mark_count, mark_cap;
    wk__index by_entity; /* hash of the entity -> its mark's place + 1 */
    uint64_t *type_changed; /* per type id: the version it last changed at */
    size_t type_cap;
    wk__removal *removals; /* oldest first */
    size_t removal_count, removal_cap;
} wk__channel;

struct wk_watch_hub {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a channel's version moved, or a wake */
    uint64_t wakes;         /* wk_watch_hub_wake's calls */
    wk__channel **channels;
    size_t count, cap;
};

struct wk_watcher {
    wk_watch_hub *hub;
    wk__channel *channel;
    uint64_t seen;     /* the version it took; 0 before its first message */
    bool started;      /* it took its first message */
    char **kinds;      /* owned copies of the kind names, or NULL: every type */
    size_t kind_count;
    wk_entity subtree;
};

/* The channel of a world, made when missing (NULL when out of memory);
 * under the hub's lock. */
wk__channel *wk__channel_of(wk_watch_hub *hub, const char *world_id);
/* The mark of an entity, or NULL; under the hub's lock. */
const wk__mark *wk__channel_mark(const wk__channel *c, wk_entity e);

#endif
