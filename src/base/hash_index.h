/* hash_index.h — hashing, and a multimap from 64-bit hashes to 64-bit values
 * (internal to the library).
 *
 * The index keeps no keys, only their hashes: callers check each value a
 * lookup yields against the real key, which makes the index a plain array
 * (copied with memcpy when a world is cloned) and lets several values share
 * a key. Open addressing with linear probing; removal shifts the run back,
 * so there are no tombstones. */
#ifndef WK_BASE_HASH_INDEX_H
#define WK_BASE_HASH_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A 64-bit hash of n bytes, mixed with seed. Never 0. */
uint64_t wk__hash(const void *bytes, size_t n, uint64_t seed);

typedef struct wk__index_slot {
    uint64_t hash; /* 0: empty */
    uint64_t value;
} wk__index_slot;

typedef struct wk__index {
    wk__index_slot *slots;
    size_t cap; /* a power of two, or 0 */
    size_t count;
} wk__index;

/* 0 or WK_NOMEM. */
int wk__index_add(wk__index *ix, uint64_t hash, uint64_t value);
/* Removes one (hash, value) pair; false when there was none. */
bool wk__index_remove(wk__index *ix, uint64_t hash, uint64_t value);
/* The values stored under hash, one per call: start with *cursor = 0; 0 when
 * there are no more (values must not be 0). */
uint64_t wk__index_next(const wk__index *ix, uint64_t hash, size_t *cursor);
void wk__index_clear(wk__index *ix);
void wk__index_free(wk__index *ix);
/* dst becomes a copy of src (dst's old contents freed); 0 or WK_NOMEM. */
int wk__index_copy(wk__index *dst, const wk__index *src);

#endif
