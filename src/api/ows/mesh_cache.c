/* mesh_cache.c — what assimp made of a registered mesh file, kept so that
 * the file is read once: CreateGeometry reads it (to refuse a file that is
 * no mesh) and keeps the result; GetGeometry, GetRenderable and an
 * object's bounds copy from it; the live view serves its glb
 * (wk_api_mesh_glb). Apart from them, the box an entity's bounds take of
 * each registered mesh (wk__geometry_mesh_box), so that a bounds query
 * reads no stored geometry once the box is known.
 *
 * The key is the registration's fingerprint, the SHA-256 of its data, so
 * an entry can never be stale and one cache serves every store in the
 * process. It lives in memory only: after a restart, or once evicted, the
 * next call reads the stored file again and keeps it anew. It holds at
 * most CACHE_BYTES of triangles and glb; past that the entry used least
 * recently goes. A mesh larger than the whole bound is read on every call
 * rather than kept. Two calls that miss at once both read the file; the
 * second keeps the first's entry. The boxes (a few hundred bytes each,
 * with their ids and index) are at most BOXES_MAX, some 4 MiB: past that
 * they are all let go and kept anew. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/ows/mesh_cache.h"
#include "base/grow.h"
#include "sim/mesh_bounds.h"

#define CACHE_BYTES ((size_t)64 << 20)
#define BOXES_MAX 16384

typedef struct entry {
    char id[WK_GEOMETRY_ID_MAX];
    wk__parsed_mesh mesh;
    unsigned long long used; /* the clock at its last use */
} entry;

static struct {
    pthread_mutex_t lock;
    entry *entries;
    size_t count, cap, bytes;
    unsigned long long clock;
    wk__mesh_boxes boxes; /* by fingerprint */
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t bytes_of(const wk__parsed_mesh *m)
{
    return m->triangles.len + m->glb.len;
}

/* The entry of id, or NULL; under the lock. */
static entry *find(const char *id)
{
    for (size_t i = 0; i < cache.count; i++)
        if (!strcmp(cache.entries[i].id, id))
            return &cache.entries[i];
    return NULL;
}

static void evict_one(void)
{
    size_t oldest = 0;
    for (size_t i = 1; i < cache.count; i++)
        if (cache.entries[i].used < cache.entries[oldest].used)
            oldest = i;
    cache.bytes -= bytes_of(&cache.entries[oldest].mesh);
    wk__parsed_mesh_free(&cache.entries[oldest].mesh);
    cache.entries[oldest] = cache.entries[--cache.count];
}

/* Keeps m under id (taking it), or frees it when it cannot be kept; under
 * the lock. */
static void keep(const char *id, wk__parsed_mesh *m)
{
    size_t size = bytes_of(m);
    if (find(id) || size > CACHE_BYTES || strlen(id) >= WK_GEOMETRY_ID_MAX) {
        wk__parsed_mesh_free(m);
        return;
    }
    while (cache.count && cache.bytes + size > CACHE_BYTES)
        evict_one();
    if (WK__GROW(cache.entries, cache.cap, cache.count + 1)) {
        wk__parsed_mesh_free(m); /* not kept: read again next time */
        return;
    }
    entry *e = &cache.entries[cache.count++];
    strcpy(e->id, id);
    e->mesh = *m;
    e->used = ++cache.clock;
    cache.bytes += size;
}

/* Copies bytes into the call. */
static bool copy(wk__call *call, const wk_buf *from, ProtobufCBinaryData *to)
{
    to->len = from->len;
    to->data = wk__call_alloc(call, from->len ? from->len : 1);
    if (to->data)
        memcpy(to->data, from->data, from->len);
    return to->data != NULL;
}

static int copy_out(wk__call *call, const wk__parsed_mesh *m, const char *what, unsigned parts, wk__mesh_copy *out,
                    wk_status *st)
{
    out->lo = m->lo, out->hi = m->hi;
    if (((parts & WK__MESH_TRIANGLES) && !copy(call, &m->triangles, &out->triangles)) ||
        ((parts & WK__MESH_GLB) && !copy(call, &m->glb, &out->glb)))
        return wk_fail(st, WK_NOMEM, "out of memory copying the mesh of %s", what);
    return WK_OK;
}

int wk__mesh_find(wk__call *call, const char *id, const char *what, unsigned parts, wk__mesh_copy *out, wk_status *st)
{
    *out = (wk__mesh_copy){0};
    pthread_mutex_lock(&cache.lock);
    entry *e = find(id);
    int rc = WK_OK;
    if (e) {
        e->used = ++cache.clock;
        rc = copy_out(call, &e->mesh, what, parts, out, st);
    }
    pthread_mutex_unlock(&cache.lock);
    return rc ? rc : e != NULL;
}

int wk__mesh_held_glb(const char *id, wk_buf *out)
{
    pthread_mutex_lock(&cache.lock);
    entry *e = find(id);
    int rc = e && e->mesh.glb.len ? wk_buf_append(out, e->mesh.glb.data, e->mesh.glb.len) : WK_NOT_FOUND;
    if (e)
        e->used = ++cache.clock;
    pthread_mutex_unlock(&cache.lock);
    return rc;
}

int wk__mesh_read(wk__call *call, const char *id, const ProtobufCBinaryData *file, const char *format,
                  const char *what, unsigned parts, wk__mesh_copy *out, wk_status *st)
{
    /* Read with the cache open: a read takes long, and others may hit. */
    wk__parsed_mesh m;
    int rc = wk__triangle_mesh_parse(file, format, what, &m, st);
    if (rc)
        return rc;
    rc = copy_out(call, &m, what, parts, out, st);
    pthread_mutex_lock(&cache.lock);
    keep(id, &m);
    pthread_mutex_unlock(&cache.lock);
    return rc;
}

bool wk__mesh_box_kept(const char *id, wk_vec3 *lo, wk_vec3 *hi)
{
    pthread_mutex_lock(&cache.lock);
    const wk__mesh_box *box = wk__mesh_boxes_find(&cache.boxes, id);
    if (box)
        *lo = box->lo, *hi = box->hi;
    pthread_mutex_unlock(&cache.lock);
    return box != NULL;
}

void wk__mesh_box_keep(const char *id, wk_vec3 lo, wk_vec3 hi)
{
    pthread_mutex_lock(&cache.lock);
    if (!wk__mesh_boxes_find(&cache.boxes, id)) { /* two misses at once keep one */
        if (cache.boxes.count >= BOXES_MAX)
            wk__mesh_boxes_free(&cache.boxes);
        wk__mesh_boxes_keep(&cache.boxes, id, lo, hi, NULL); /* out of memory: made again next time */
    }
    pthread_mutex_unlock(&cache.lock);
}
