/* ecm.c — creating and freeing an ECM, its error message, and the growable
 * vectors its files share. */
#include "ecm_internal.h"

#include "base/mem.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

int wk__vec_grow(void **items, size_t *cap, size_t count, size_t item_size)
{
    if (count < *cap)
        return WK_OK;
    size_t new_cap = *cap ? *cap * 2 : 16;
    if (new_cap > SIZE_MAX / item_size)
        return WK_NOMEM;
    void *grown = wk__mem_resize(*items, *cap * item_size, new_cap * item_size, 16);
    if (!grown)
        return WK_NOMEM;
    *items = grown;
    *cap = new_cap;
    return WK_OK;
}

int wk__ecm_fail(const wk_ecm *ecm, int code, const char *fmt, ...)
{
    /* The message is the one piece of an ECM that const calls may write. */
    wk_status *st = (wk_status *)&ecm->err;
    va_list ap;
    va_start(ap, fmt);
    wk_failv(st, code, fmt, ap);
    va_end(ap);
    return code;
}

int wk__no_table(const wk_ecm *ecm, const char *fmt, ...)
{
    if (ecm->table_count == WK__TABLE_MAX)
        return wk__ecm_fail(ecm, WK_RANGE,
                            "the ECM holds %u combinations of component types, the most it can: no entity can "
                            "take a new one",
                            WK__TABLE_MAX);
    va_list ap;
    va_start(ap, fmt);
    wk_failv((wk_status *)&ecm->err, WK_NOMEM, fmt, ap);
    va_end(ap);
    return WK_NOMEM;
}

const char *wk_ecm_errmsg(const wk_ecm *ecm)
{
    return ecm->err.message;
}

uint64_t wk_ecm_version(const wk_ecm *ecm)
{
    return ecm->version;
}

int wk_entity_list_push(wk_entity_list *list, wk_entity e)
{
    return wk__list_push(list, e);
}

void wk_entity_list_free(wk_entity_list *list)
{
    free(list->items);
    *list = (wk_entity_list){0};
}

int wk__records_reserve(wk_ecm *ecm)
{
    /* Every slot an id can name, or at least a million where address space
     * is short. */
    size_t size = ((size_t)UINT32_MAX + 1) * sizeof(wk__record);
    ecm->records = wk__mem_reserve(&size, ((size_t)1 << 20) * sizeof(wk__record));
    if (!ecm->records)
        return WK_NOMEM;
    ecm->slot_limit = size / sizeof(wk__record);
    return WK_OK;
}

/* Releases the records' reservation. When the slots used all lie low
 * enough for it to be kept for another ECM, their records are cleared
 * first; the pages past the last of them go (see wk__mem_unreserve), so
 * what a kept reservation holds is bounded however sparse its ids were. */
static void release_records(wk_ecm *ecm)
{
    if (!ecm->records)
        return;
    size_t end = 0; /* past the last slot used */
    for (uint32_t k = 0; k < WK__SEGMENTS; k++)
        if (ecm->used_hi[k])
            end = ((size_t)1 << k) + ecm->used_hi[k];
    bool keep = end * sizeof(wk__record) <= WK__RESERVE_KEEP_BYTES;
    for (uint32_t k = 0; keep && k < WK__SEGMENTS; k++)
        memset(&ecm->records[(1u << k) + ecm->used_lo[k]], 0,
               (size_t)(ecm->used_hi[k] - ecm->used_lo[k]) * sizeof(wk__record));
    wk__mem_unreserve(ecm->records, ecm->slot_limit * sizeof(wk__record), end * sizeof(wk__record), keep);
}

uint64_t wk__layout_start(void)
{
    static _Atomic uint64_t ecms;
    return (atomic_fetch_add(&ecms, 1) + 1) << 40;
}

wk_ecm *wk_ecm_new(void)
{
    wk_ecm *ecm = calloc(1, sizeof *ecm);
    if (!ecm || wk__records_reserve(ecm)) {
        free(ecm);
        return NULL;
    }
    ecm->next_index = 1;
    ecm->min_index = 1;
    ecm->layout = wk__layout_start();
    if (!wk__table_for_types(ecm, NULL, 0)) {
        wk_ecm_free(ecm);
        return NULL;
    }
    return ecm;
}

void wk_ecm_free(wk_ecm *ecm)
{
    if (!ecm)
        return;
    wk__txn_free(ecm); /* an open transaction's changes stay: nobody will roll them back */
    for (size_t i = 0; i < ecm->deferred.count; i++)
        free(ecm->deferred.items[i].value);
    WK__VEC_FREE(ecm->deferred);
    while (ecm->queries.count)
        wk_query_free(ecm->queries.items[ecm->queries.count - 1]);
    WK__VEC_FREE(ecm->queries);
    for (uint32_t i = 0; i < ecm->table_count; i++)
        wk__table_free(ecm, ecm->tables[i]);
    free(ecm->tables);
    free(ecm->table_index);
    release_records(ecm);
    for (uint32_t k = 0; k < WK__SEGMENTS; k++)
        wk__mem_free(ecm->link_segments[k], wk__segment_len(k) * sizeof(wk__link));
    WK__VEC_FREE(ecm->free_slots);
    WK__VEC_FREE(ecm->created);
    WK__VEC_FREE(ecm->touched);
    WK__VEC_FREE(ecm->marked);
    WK__VEC_FREE(ecm->destroyed);
    WK__VEC_FREE(ecm->removed_components);
    for (uint32_t t = 1; t <= ecm->type_count; t++) {
        wk__sparse_free(ecm, t, ecm->types[t].sparse);
        free((char *)ecm->types[t].desc.name);
        free(ecm->types[t].values);
    }
    free(ecm->types);
    WK__VEC_FREE(ecm->sparse_types);
    free(ecm);
}
