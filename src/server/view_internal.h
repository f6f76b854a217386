/* view_internal.h — what the live view's files share: view.c runs the
 * HTTP and WebSocket server, view_mesh.c answers its mesh requests. */
#ifndef WK_SERVER_VIEW_INTERNAL_H
#define WK_SERVER_VIEW_INTERNAL_H

#include <libwebsockets.h>

#include "server/server_internal.h"

/* The endpoint the view of wsi's context serves. */
wk_api *wk__view_api(struct lws *wsi);

/* Whether wsi's request carries the server's token, when it has one
 * (as view.c's opening says). */
bool wk__view_allows(struct lws *wsi);

/* A /mesh request's own data: the glb it sends from memory, and how much
 * of it went out. */
typedef struct wk__view_mesh_session {
    wk_buf glb;
    size_t sent;
} wk__view_mesh_session;

/* The "wk-mesh" protocol's callback, mounted at /mesh. */
int wk__view_mesh(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);

#endif
