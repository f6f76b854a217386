/* view_mesh.c — the live view's meshes: "/mesh/ID" answers with the
 * file the current world's entity ID (a visual, or a collision the page
 * draws for a link with no visual) was found to use when its
 * world file was read (its MeshFile component), for the page to draw the
 * shape from; or, for a shape whose uri names a mesh registered with
 * GeometryService, the binary glTF of it the process holds in memory
 * (wk_api_mesh_glb). The request names an entity, never a path: only files
 * the world's reader resolved through its resource paths are served, and of
 * those only the kinds the page can draw (STL, OBJ, COLLADA); anything else
 * is 404, and 403 without the server's token when it has one. A registered
 * mesh not in memory (after a restart or an eviction, until GetGeometry or
 * GetRenderable reads it again) is 404 too, and the page keeps
 * drawing the shape's box: the view's thread reads no store.
 *
 * The lookup runs on the view's one service thread, which every page's
 * WebSocket frames and files also wait on: it never waits for a world
 * being written (a long batch, a load). While a writer has the world, the
 * answer is 503 with Retry-After: 1, and the page asks again; while another
 * server sharing the database holds it, 404 (it is never taken for a look). */
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
enum { NONE, FOUND, REGISTERED, BUSY };

/* The mesh of entity text (a decimal id) in the current world, copied to
 * out: FOUND with its file's path, REGISTERED with its uri when it has no
 * file, NONE when it has neither, BUSY while the world is being written.
 * The world's read lock is held for this lookup only: the copy lets the
 * mesh itself be read and sent (a piece each time the socket can take
 * one) with the world closed, so a large mesh or a slow browser never
 * holds back a writer. */
static int mesh_of(wk_api *api, const char *text, char *out, size_t cap)
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
    wk_ecm *ecm = wk_scene_ecm(wk_world_scene(w));
    const wk_scene_types *t = wk_scene_types_of(wk_world_scene(w));
    bool exists = wk_ecm_exists(ecm, (wk_entity)id);
    const char *const *file = exists ? wk_ecm_get(ecm, (wk_entity)id, t->mesh_file) : NULL;
    const char *const *uri = exists ? wk_ecm_get(ecm, (wk_entity)id, t->uri) : NULL;
    int kind = file && *file ? FOUND : uri && *uri ? REGISTERED : NONE;
    const char *found = kind == FOUND ? *file : kind == REGISTERED ? *uri : "";
    kind = strlen(found) < cap ? kind : NONE;
    if (kind != NONE)
        memcpy(out, found, strlen(found) + 1);
    wk_store_close(w, false, false);
    return kind;
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

/* Starts sending the glb held in session: its headers now, its bytes as
 * the socket takes them (send_piece); nonzero when the connection is to
 * be closed. */
static int send_glb(struct lws *wsi, wk__view_mesh_session *session)
{
    uint8_t buf[LWS_PRE + 256], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf;
    if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, "model/gltf-binary", session->glb.len, &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    lws_callback_on_writable(wsi);
    return 0;
}

/* Sends the next piece of the session's glb, the last with the end of the
 * reply; nonzero when the connection is to be closed. */
static int send_piece(struct lws *wsi, wk__view_mesh_session *session)
{
    enum { PIECE = 16 << 10 };
    uint8_t buf[LWS_PRE + PIECE];
    size_t n = session->glb.len - session->sent < PIECE ? session->glb.len - session->sent : PIECE;
    bool last = session->sent + n == session->glb.len;
    memcpy(buf + LWS_PRE, session->glb.data + session->sent, n);
    if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n)
        return -1;
    session->sent += n;
    if (!last) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    wk_buf_free(&session->glb);
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

int wk__view_mesh(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    wk__view_mesh_session *session = user;
    if (reason == LWS_CALLBACK_HTTP) {
        char path[4096];
        /* in is the whole path, "/mesh/ID". */
        const char *id = strrchr((const char *)in, '/');
        id = id ? id + 1 : (const char *)in;
        const char *mime = NULL;
        bool allowed = wk__view_allows(wsi);
        int found = allowed ? mesh_of(wk__view_api(wsi), id, path, sizeof path) : NONE;
        if (found == BUSY)
            return busy(wsi);
        *session = (wk__view_mesh_session){0};
        if (found == REGISTERED && wk_api_mesh_glb(path, &session->glb) == WK_OK)
            return send_glb(wsi, session);
        if (found != FOUND || !(mime = mime_of(path))) {
            lws_return_http_status(wsi, allowed ? HTTP_STATUS_NOT_FOUND : HTTP_STATUS_FORBIDDEN, NULL);
            return lws_http_transaction_completed(wsi) ? -1 : 0;
        }
        int n = lws_serve_http_file(wsi, path, mime, NULL, 0);
        return n < 0 || (n > 0 && lws_http_transaction_completed(wsi)) ? -1 : 0;
    }
    if (reason == LWS_CALLBACK_HTTP_FILE_COMPLETION)
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    if (reason == LWS_CALLBACK_HTTP_WRITEABLE && session && session->glb.len)
        return send_piece(wsi, session);
    if (reason == LWS_CALLBACK_CLOSED_HTTP && session)
        wk_buf_free(&session->glb);
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}
