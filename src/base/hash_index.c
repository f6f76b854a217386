/* hash_index.c — a 64-bit hash and the hash-to-value multimap. */
#include "base/hash_index.h"

#include <stdlib.h>
#include <string.h>

#include "worldkit/wk_base.h"

uint64_t wk__hash(const void *bytes, size_t n, uint64_t seed)
{
    /* FNV-1a over the bytes, then a murmur-style finalizer so that the low
     * bits a power-of-two table uses are well mixed. */
    const uint8_t *p = bytes;
    uint64_t h = 0xcbf29ce484222325ull ^ (seed * 0x9e3779b97f4a7c15ull);
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h ? h : 1;
}

static int grow(wk__index *ix)
{
    size_t cap = ix->cap ? ix->cap * 2 : 64;
    wk__index_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return WK_NOMEM;
    for (size_t i = 0; i < ix->cap; i++) {
        if (!ix->slots[i].hash)
            continue;
        size_t j = ix->slots[i].hash & (cap - 1);
        while (slots[j].hash)
            j = (j + 1) & (cap - 1);
        slots[j] = ix->slots[i];
    }
    free(ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    return WK_OK;
}

int wk__index_add(wk__index *ix, uint64_t hash, uint64_t value)
{
    /* At most half full keeps probe runs short. */
    if ((ix->count + 1) * 2 > ix->cap && grow(ix))
        return WK_NOMEM;
    size_t j = hash & (ix->cap - 1);
    while (ix->slots[j].hash)
        j = (j + 1) & (ix->cap - 1);
    ix->slots[j] = (wk__index_slot){hash, value};
    ix->count++;
    return WK_OK;
}

bool wk__index_remove(wk__index *ix, uint64_t hash, uint64_t value)
{
    if (!ix->cap)
        return false;
    size_t mask = ix->cap - 1, j = hash & mask;
    while (ix->slots[j].hash && (ix->slots[j].hash != hash || ix->slots[j].value != value))
        j = (j + 1) & mask;
    if (!ix->slots[j].hash)
        return false;
    /* Shift back every later slot of the run whose home is at or before the
     * hole, so that lookups never stop early at it. */
    for (size_t k = (j + 1) & mask; ix->slots[k].hash; k = (k + 1) & mask) {
        size_t home = ix->slots[k].hash & mask;
        if (((k - home) & mask) >= ((k - j) & mask)) {
            ix->slots[j] = ix->slots[k];
            j = k;
        }
    }
    ix->slots[j] = (wk__index_slot){0};
    ix->count--;
    return true;
}

uint64_t wk__index_next(const wk__index *ix, uint64_t hash, size_t *cursor)
{
    if (!ix->cap)
        return 0;
    size_t mask = ix->cap - 1;
    /* The cursor counts slots probed past the hash's home. */
    for (size_t j = (hash + *cursor) & mask; ix->slots[j].hash && *cursor <= mask; j = (j + 1) & mask) {
        ++*cursor;
        if (ix->slots[j].hash == hash)
            return ix->slots[j].value;
    }
    return 0;
}

void wk__index_clear(wk__index *ix)
{
    if (ix->slots)
        memset(ix->slots, 0, ix->cap * sizeof *ix->slots);
    ix->count = 0;
}

void wk__index_free(wk__index *ix)
{
    free(ix->slots);
    *ix = (wk__index){0};
}

int wk__index_copy(wk__index *dst, const wk__index *src)
{
    wk__index_slot *slots = NULL;
    if (src->cap && !(slots = malloc(src->cap * sizeof *slots)))
        return WK_NOMEM;
    if (src->cap)
        memcpy(slots, src->slots, src->cap * sizeof *slots);
    free(dst->slots);
    *dst = (wk__index){slots, src->cap, src->count};
    return WK_OK;
}
