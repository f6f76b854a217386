/* geometries.c — the geometries a store keeps for Intrinsic's
 * GeometryService: bytes under an id, belonging to the store rather than
 * to a world (the service's calls name none). A store with a database
 * keeps them in its geometries table only, read back on every get, so that
 * a server holds no copy and servers sharing the database see each other's;
 * a store in memory keeps them in a list under its geometry lock, found by
 * the hash of their id (geometries are never removed, so a place in the
 * list stays valid). */
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hash_index.h"
#include "store/persist.h"

struct wk__geometry {
    char id[WK_GEOMETRY_ID_MAX];
    wk_buf bytes;
};

void wk__geometries_free(wk_store *store)
{
    for (size_t i = 0; i < store->geometry_count; i++)
        wk_buf_free(&store->geometries[i].bytes);
    free(store->geometries);
    wk__index_free(&store->geometry_index);
    pthread_mutex_destroy(&store->geometry_lock);
}

static uint64_t id_hash(const char *id)
{
    return wk__hash(id, strlen(id), 0);
}

/* The index of id in the list, or geometry_count; under the lock. */
static size_t find(const wk_store *store, const char *id)
{
    size_t cursor = 0;
    for (uint64_t v; (v = wk__index_next(&store->geometry_index, id_hash(id), &cursor));)
        if (!strcmp(store->geometries[v - 1].id, id))
            return (size_t)v - 1;
    return store->geometry_count;
}

static int put_in_memory(wk_store *store, const char *id, const void *bytes, size_t len, wk_status *st)
{
    int rc = WK_OK;
    pthread_mutex_lock(&store->geometry_lock);
    if (find(store, id) == store->geometry_count) {
        size_t n = store->geometry_count;
        rc = WK__GROW(store->geometries, store->geometry_cap, n + 1);
        struct wk__geometry *g = rc ? NULL : &store->geometries[n];
        if (g) {
            memset(g, 0, sizeof *g);
            strcpy(g->id, id);
            rc = wk_buf_append(&g->bytes, bytes, len);
            if (rc == WK_OK)
                rc = wk__index_add(&store->geometry_index, id_hash(id), n + 1);
            if (rc)
                wk_buf_free(&g->bytes);
            else
                store->geometry_count++;
        }
    }
    pthread_mutex_unlock(&store->geometry_lock);
    return rc ? wk_fail(st, WK_NOMEM, "out of memory keeping geometry '%s' (%zu bytes)", id, len) : WK_OK;
}

int wk_store_put_geometry(wk_store *store, const char *id, const void *bytes, size_t len, wk_status *st)
{
    if (!id || !*id || strlen(id) >= WK_GEOMETRY_ID_MAX)
        return wk_fail(st, WK_INVALID, "a geometry id takes 1 to %d bytes", WK_GEOMETRY_ID_MAX - 1);
    if (!store->db)
        return put_in_memory(store, id, bytes, len, st);
    wk_buf view = {.data = (uint8_t *)bytes, .len = len, .cap = len};
    return store->db->ops->put_geometry(store->db->impl, id, &view, st);
}

int wk_store_get_geometry(wk_store *store, const char *id, wk_buf *out, wk_status *st)
{
    bool found = false;
    int rc = WK_OK;
    if (store->db) {
        rc = store->db->ops->get_geometry(store->db->impl, id, out, &found, st);
    } else {
        pthread_mutex_lock(&store->geometry_lock);
        size_t i = find(store, id);
        found = i < store->geometry_count;
        if (found && wk_buf_append(out, store->geometries[i].bytes.data, store->geometries[i].bytes.len))
            rc = wk_fail(st, WK_NOMEM, "out of memory reading geometry '%s'", id);
        pthread_mutex_unlock(&store->geometry_lock);
    }
    if (rc == WK_OK && !found)
        rc = wk_fail(st, WK_NOT_FOUND, "no geometry '%s' is registered", id);
    return rc;
}
