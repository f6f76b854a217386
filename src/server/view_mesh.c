/* view_mesh.c — the live view's mesh files: "/mesh/ID" answers with the
 * file the current world's entity ID (a visual, or a collision the page
 * draws for a link with no visual) was found to use when its
 * world file was read (its MeshFile component), for the page to draw the
 * shape from. The request names an entity, never a path: only files the
 * world's reader resolved through its resource paths are served, and of
 * those only the kinds the page can draw (STL, OBJ, COLLADA); anything else
 * is 404, and 403 without the server's token when it has one.
 *
 * The lookup runs on the view's one service thread, which every page's
 * WebSocket frames and files also wait on: it never waits for a world
 * being written (a long batch, a load). While a writer has the world, the
 * answer is 503 with Retry-After: 1, and the page asks again. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/view_internal.h"
#include "worldkit/wk_scene.h"
#include "worldkit/wk_store.h"

static const struct mesh_kind {
    const char *extension;
    const char *mime;
} mesh_kinds[] = {
    {".stl", "model/stl"},
    {".obj", "model/obj"},
    {".dae", "model/vnd.collada+xml"},
};

/* The MIME type of a file the page can draw, or NULL. */
static const char *mime_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof mesh_kinds / sizeof mesh_kinds[0]; i++)
        if (!strcasecmp(dot, mesh_kinds[i].extension))
            return mesh_kinds[i].mime;
    return NULL;
}

/* What a lookup found. */
enum { NONE, FOUND, BUSY };

/* The mesh file of entity text (a decimal id) in the current world, copied
 * to out: FOUND, NONE when there is none, BUSY while the world is being
 * written. The world's read lock is held for this lookup only: the copy
 * lets the file itself be read and sent (by lws_serve_http_file, a piece
 * each time the socket can take one) with the world closed, so a large
 * mesh or a slow browser never holds back a writer. */
static int mesh_file(wk_api *api, const char *text, char *out, size_t cap)
{
    char *end;
    unsigned long long id = strtoull(text, &end, 10);
    if (end == text || *end || !id)
        return NONE;
    wk_world *w;
    wk_status st;
    int rc = wk_store_try_open(wk_api_store(api), "world", &w, &st);
    if (rc)
        return rc == WK_BUSY ? BUSY : NONE;
    wk_scene *scene = wk_world_scene(w);
    const char *const *file = wk_ecm_exists(wk_scene_ecm(scene), (wk_entity)id)
                                  ? wk_ecm_get(wk_scene_ecm(scene), (wk_entity)id, wk_scene_types_of(scene)->mesh_file)
                                  : NULL;
    bool found = file && *file && strlen(*file) < cap;
    if (found)
        memcpy(out, *file, strlen(*file) + 1);
    wk_store_close(w, false, false);
    return found ? FOUND : NONE;
}

/* 503, to be asked again in a second; nonzero when the connection is to
 * be closed. */
static int busy(struct lws *wsi)
{
    uint8_t buf[LWS_PRE + 256], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf;
    if (lws_add_http_common_headers(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, "text/plain", 0, &p, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_RETRY_AFTER, (const uint8_t *)"1", 1, &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

int wk__view_mesh(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    if (reason == LWS_CALLBACK_HTTP) {
        char path[4096];
        /* in is the whole path, "/mesh/ID". */
        const char *id = strrchr((const char *)in, '/');
        id = id ? id + 1 : (const char *)in;
        const char *mime = NULL;
        bool allowed = wk__view_allows(wsi);
        int found = allowed ? mesh_file(wk__view_api(wsi), id, path, sizeof path) : NONE;
        if (found == BUSY)
            return busy(wsi);
        if (found != FOUND || !(mime = mime_of(path))) {
            lws_return_http_status(wsi, allowed ? HTTP_STATUS_NOT_FOUND : HTTP_STATUS_FORBIDDEN, NULL);
            return lws_http_transaction_completed(wsi) ? -1 : 0;
        }
        int n = lws_serve_http_file(wsi, path, mime, NULL, 0);
        return n < 0 || (n > 0 && lws_http_transaction_completed(wsi)) ? -1 : 0;
    }
    if (reason == LWS_CALLBACK_HTTP_FILE_COMPLETION)
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}
