/* store_internal.h — what the files of src/store share: the store and a
 * world's record. */
#ifndef WK_STORE_INTERNAL_H
#define WK_STORE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "worldkit/wk_store.h"

struct wk_world {
    char id[WK_WORLD_ID_MAX];
    pthread_rwlock_t lock; /* over scene and the fields below but meta_lock's */
    _Atomic int refs;      /* the store's, and one per open */
    bool writing;          /* opened for writing now */
    wk_scene *scene;
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
};

int64_t wk__now_ns(void);
/* The index of id in the list, or count; under the store's lock. */
size_t wk__find_world(const wk_store *store, const char *id);
void wk__world_unref(wk_world *w);

#endif
