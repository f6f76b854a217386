/* suffixes.h — the last "_<n>" suffix handed out per wanted world id, for
 * a store no other server shares (one that does keeps its counters in the
 * database: wk__backend's next_suffix). */
#ifndef WK_STORE_SUFFIXES_H
#define WK_STORE_SUFFIXES_H

#include <stddef.h>
#include <stdint.h>

#include "base/hash_index.h"

typedef struct wk__suffix wk__suffix;

typedef struct wk__suffixes {
    wk__index by_base; /* hash of a wanted id -> its place + 1 */
    wk__suffix *items;
    size_t count, cap;
} wk__suffixes;

/* The next suffix number for ids picked from base (1 the first time):
 * WK_OK with *n, or WK_NOMEM. */
int wk__suffix_next(wk__suffixes *s, const char *base, int64_t *n);
void wk__suffixes_free(wk__suffixes *s);

#endif
