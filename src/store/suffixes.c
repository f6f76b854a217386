/* suffixes.c — per wanted world id, the last "_<n>" suffix given; see
 * suffixes.h. Counting on from the last one rather than looking for the
 * first free number makes a taken id cost one lookup however many of its
 * suffixes are taken; the store still skips numbers it finds taken (ids
 * clients gave). Counters are never dropped: one per id ever wanted taken. */
#include "store/suffixes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "worldkit/wk_base.h"
#include "worldkit/wk_store.h"

struct wk__suffix {
    char base[WK_WORLD_ID_MAX];
    int64_t last;
};

static uint64_t base_hash(const char *base)
{
    return wk__hash(base, strlen(base), 0);
}

int wk__suffix_next(wk__suffixes *s, const char *base, int64_t *n)
{
    size_t cursor = 0;
    for (uint64_t v; (v = wk__index_next(&s->by_base, base_hash(base), &cursor));)
        if (!strcmp(s->items[v - 1].base, base)) {
            *n = ++s->items[v - 1].last;
            return WK_OK;
        }
    if (WK__GROW(s->items, s->cap, s->count + 1) || wk__index_add(&s->by_base, base_hash(base), s->count + 1))
        return WK_NOMEM;
    wk__suffix *made = &s->items[s->count++];
    snprintf(made->base, sizeof made->base, "%s", base);
    *n = made->last = 1;
    return WK_OK;
}

void wk__suffixes_free(wk__suffixes *s)
{
    wk__index_free(&s->by_base);
    free(s->items);
    *s = (wk__suffixes){0};
}
