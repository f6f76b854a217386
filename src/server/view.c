/* view.c — the live view's HTTP and WebSocket side, on libwebsockets: the
 * page (web/, or wk_server_desc.http_root) at "/", Debian's three.js (and
 * its mesh loaders) at "/three/", the world's meshes at "/mesh/"
 * (view_mesh.c: files, and registered meshes' glb), and at "/ws" (protocol "worldkit-view") the current world's
 * change stream, one WatchUpdate a text frame as proto3 JSON, plus the
 * page's buttons: a text frame "METHOD JSON" calls a simulation_interfaces
 * method of the short list below, as gRPC would.
 *
 * Threads. libwebsockets runs on one thread of its own (service). Each
 * WebSocket has a thread that runs WorldWatch/Watch through wk_api_invoke,
 * as a gRPC worker would; its sink hands each message to the service
 * thread and waits until that thread has written it, so that a browser
 * slow to read slows its own stream only.
 *
 * Security follows the gRPC server's: an address other machines reach
 * needs TLS or a token; with TLS the view speaks HTTPS with the server's
 * certificate (and asks for a client certificate when the server does);
 * with a token, the WebSocket and the mesh files (what carries the world)
 * are refused to a request without it, as a query argument token=... (a
 * browser's WebSocket cannot send headers) or an "Authorization: Bearer"
 * header. The page and three.js, which hold nothing of the world, are
 * served to anyone. */
#define _DEFAULT_SOURCE /* readlink */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "server/view_internal.h"
#include "worldkit/watch.pb-c.h"

#ifndef WK_WEB_DIR
#define WK_WEB_DIR "web"
#endif
#ifndef WK_WEB_FROM_BIN
#define WK_WEB_FROM_BIN "../share/worldkit/web"
#endif
#define THREE_DIR "/usr/share/javascript/three"
#define VIEW_RATE_HZ 30

/* The methods a page may call: the simulation's state and steps. */
static const char *const callable[] = {"SetSimulationState", "StepSimulation", "GetSimulationState"};

typedef struct conn {
    struct wk__view *view;
    struct lws *wsi;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t taken; /* pending was written, or the socket closed */
    wk_buf pending;       /* the next frame, owned; len 0: none */
    bool closed;
    struct conn *next;
} conn;

struct wk__view {
    wk_server *server;
    struct lws_context *context;
    struct lws_http_mount mounts[3];
    char host[256];
    char root[4096];
    char address[300];
    pthread_t thread;
    bool stop; /* read and written on the service thread and by stop, under lock */
    pthread_mutex_t lock;
    conn *conns; /* the service thread's */
};

/* The watcher's sink, on the connection's thread. */
static bool conn_write(void *ctx, const uint8_t *msg, size_t len)
{
    conn *c = ctx;
    wk_buf json = {0};
    wk_status st;
    if (wk_json_from_bytes(&worldkit__watch_update__descriptor, msg, len, NULL, &json, &st)) {
        wk_buf_free(&json);
        return false;
    }
    pthread_mutex_lock(&c->lock);
    while (c->pending.len && !c->closed)
        pthread_cond_wait(&c->taken, &c->lock);
    bool open = !c->closed;
    if (open) {
        wk_buf_free(&c->pending);
        c->pending = json;
    }
    pthread_mutex_unlock(&c->lock);
    if (!open)
        wk_buf_free(&json);
    else
        lws_cancel_service(c->view->context);
    return open;
}

static int conn_check(void *ctx)
{
    conn *c = ctx;
    pthread_mutex_lock(&c->lock);
    bool closed = c->closed;
    pthread_mutex_unlock(&c->lock);
    return closed || atomic_load(&c->view->server->stopping) ? WK_GRPC_UNAVAILABLE : 0;
}

static void *conn_main(void *arg)
{
    conn *c = arg;
    Worldkit__WatchRequest req = WORLDKIT__WATCH_REQUEST__INIT;
    req.has_max_rate_hz = true;
    req.max_rate_hz = VIEW_RATE_HZ;
    uint8_t bytes[32];
    size_t len = worldkit__watch_request__pack(&req, bytes);
    wk_api_sink sink = {.write = conn_write, .check = conn_check, .ctx = c};
    wk_api_invoke(c->view->server->api, "/worldkit.WorldWatch/Watch", bytes, len, &sink);
    return NULL;
}

static conn *conn_open(struct wk__view *v, struct lws *wsi)
{
    conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = (conn){.view = v, .wsi = wsi, .next = v->conns};
    if (pthread_mutex_init(&c->lock, NULL))
        goto fail_free;
    if (pthread_cond_init(&c->taken, NULL))
        goto fail_destroy_lock;
    if (pthread_create(&c->thread, NULL, conn_main, c))
        goto fail_destroy_cond;
    v->conns = c;
    return c;

fail_destroy_cond:
    pthread_cond_destroy(&c->taken);
fail_destroy_lock:
    pthread_mutex_destroy(&c->lock);
fail_free:
    free(c);
    return NULL;
}

static void conn_close(struct wk__view *v, conn *c)
{
    pthread_mutex_lock(&c->lock);
    c->closed = true;
    pthread_cond_broadcast(&c->taken);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->thread, NULL);
    for (conn **p = &v->conns; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    wk_buf_free(&c->pending);
    pthread_cond_destroy(&c->taken);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Writes the connection's pending frame. */
static int conn_send(conn *c)
{
    pthread_mutex_lock(&c->lock);
    wk_buf frame = c->pending;
    c->pending = (wk_buf){0};
    pthread_mutex_unlock(&c->lock);
    int rc = 0;
    if (frame.len) {
        uint8_t *out = malloc(LWS_PRE + frame.len);
        if (out) {
            memcpy(out + LWS_PRE, frame.data, frame.len);
            rc = lws_write(c->wsi, out + LWS_PRE, frame.len, LWS_WRITE_TEXT) < (int)frame.len ? -1 : 0;
            free(out);
        } else {
            rc = -1;
        }
    }
    wk_buf_free(&frame);
    pthread_mutex_lock(&c->lock);
    pthread_cond_broadcast(&c->taken);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static bool ignore(void *ctx, const uint8_t *msg, size_t len)
{
    (void)ctx, (void)msg, (void)len;
    return true;
}

/* A page's call, "METHOD JSON", of a method of the list; its answer goes
 * nowhere: what it changes shows in the stream. */
static void call(struct wk__view *v, const char *text, size_t len)
{
    char line[4096];
    if (len >= sizeof line)
        return;
    memcpy(line, text, len);
    line[len] = '\0';
    char *json = strchr(line, ' ');
    if (!json)
        return;
    *json++ = '\0';
    bool allowed = false;
    for (size_t i = 0; i < sizeof callable / sizeof callable[0]; i++)
        allowed |= !strcmp(line, callable[i]);
    wk_json_method m;
    wk_status st;
    wk_buf request = {0};
    char path[128];
    if (allowed && wk_json_find_method(line, &m, &st) == WK_OK &&
        wk_json_to_bytes(m.input, json, strlen(json), NULL, &request, &st) == WK_OK) {
        snprintf(path, sizeof path, "/%s/%s", m.service, m.name);
        wk_api_invoke(v->server->api, path, request.data, request.len, &(wk_api_sink){.write = ignore});
    }
    wk_buf_free(&request);
}

static int on_view(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    struct wk__view *v = lws_context_user(lws_get_context(wsi));
    conn **session = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: /* the upgrade's request: its token */
        return wk__view_allows(wsi) ? 0 : -1;
    case LWS_CALLBACK_ESTABLISHED:
        *session = conn_open(v, wsi);
        return *session ? 0 : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return *session ? conn_send(*session) : 0;
    case LWS_CALLBACK_RECEIVE:
        call(v, in, len);
        return 0;
    case LWS_CALLBACK_CLOSED:
        if (*session)
            conn_close(v, *session);
        *session = NULL;
        return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        for (conn *c = v->conns; c; c = c->next) {
            pthread_mutex_lock(&c->lock);
            bool ready = c->pending.len > 0;
            pthread_mutex_unlock(&c->lock);
            if (ready)
                lws_callback_on_writable(c->wsi);
        }
        return 0;
    default:
        return 0;
    }
}

static const struct lws_protocols protocols[] = {
    {"http", lws_callback_http_dummy, 0, 0, 0, NULL, 0},
    {"worldkit-view", on_view, sizeof(conn *), 1 << 16, 0, NULL, 0},
    {"wk-mesh", wk__view_mesh, sizeof(wk__view_mesh_session), 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

wk_api *wk__view_api(struct lws *wsi)
{
    const struct wk__view *v = lws_context_user(lws_get_context(wsi));
    return v->server->api;
}

bool wk__view_allows(struct lws *wsi)
{
    const struct wk__view *v = lws_context_user(lws_get_context(wsi));
    const wk_server *s = v->server;
    if (!s->token[0])
        return true;
    char given[WK_SERVER_TOKEN_MAX + 16];
    /* Each query argument comes url-decoded, as "name=value". */
    for (int i = 0; lws_hdr_copy_fragment(wsi, given, sizeof given, WSI_TOKEN_HTTP_URI_ARGS, i) > 0; i++)
        if (!strncmp(given, "token=", 6) && wk__auth_token_is(s, given + 6, strlen(given + 6)))
            return true;
    int n = lws_hdr_copy(wsi, given, sizeof given, WSI_TOKEN_HTTP_AUTHORIZATION);
    return n > 7 && !strncasecmp(given, "bearer ", 7) && wk__auth_token_is(s, given + 7, (size_t)n - 7);
}

/* The page's folder when none is given: the one installed beside the
 * running program (WK_WEB_FROM_BIN from its folder), else the source
 * tree's, for a program run from its build tree. */
static void default_root(char *out, size_t cap)
{
    char exe[PATH_MAX], page[PATH_MAX + sizeof WK_WEB_FROM_BIN + 16];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
        *slash = '\0';
        snprintf(page, sizeof page, "%s/" WK_WEB_FROM_BIN "/index.html", exe);
        if (access(page, R_OK) == 0) {
            snprintf(out, cap, "%s/" WK_WEB_FROM_BIN, exe);
            return;
        }
    }
    snprintf(out, cap, "%s", WK_WEB_DIR);
}

static void *service_main(void *arg)
{
    struct wk__view *v = arg;
    for (;;) {
        pthread_mutex_lock(&v->lock);
        bool stop = v->stop;
        pthread_mutex_unlock(&v->lock);
        if (stop || lws_service(v->context, 0) < 0)
            break;
    }
    return NULL;
}

int wk__view_start(wk_server *s, const wk_server_desc *d, struct wk__view **out, wk_status *st)
{
    *out = NULL;
    const char *listen = d->http_listen, *root = d->http_root;
    bool tls = d->tls_cert_file != NULL;
    if (!wk__address_is_local(listen) && !tls && !s->token[0])
        return wk_fail(st, WK_UNSUPPORTED,
                       "--http %s: an address other machines reach needs TLS (--tls-cert and --tls-key) or a token "
                       "(--token-file), as --listen does; or give 127.0.0.1:PORT",
                       listen);
    struct wk__view *v = calloc(1, sizeof *v);
    if (!v || pthread_mutex_init(&v->lock, NULL)) {
        free(v);
        return wk_fail(st, WK_NOMEM, "out of memory starting the live view");
    }
    v->server = s;
    const char *colon = strrchr(listen, ':');
    int port = colon ? atoi(colon + 1) : 8080;
    snprintf(v->host, sizeof v->host, "%.*s", colon ? (int)(colon - listen) : (int)strlen(listen), listen);
    if (root)
        snprintf(v->root, sizeof v->root, "%s", root);
    else
        default_root(v->root, sizeof v->root);
    v->mounts[0] = (struct lws_http_mount){.mount_next = &v->mounts[1],
                                           .mountpoint = "/",
                                           .mountpoint_len = 1,
                                           .origin = v->root,
                                           .def = "index.html",
                                           .origin_protocol = LWSMPRO_FILE};
    v->mounts[1] = (struct lws_http_mount){.mount_next = &v->mounts[2],
                                           .mountpoint = "/three",
                                           .mountpoint_len = 6,
                                           .origin = THREE_DIR,
                                           .origin_protocol = LWSMPRO_FILE};
    v->mounts[2] = (struct lws_http_mount){
        .mountpoint = "/mesh", .mountpoint_len = 5, .origin = "wk-mesh", .origin_protocol = LWSMPRO_CALLBACK};
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info = {0};
    info.port = port;
    info.iface = v->host;
    info.protocols = protocols;
    info.mounts = v->mounts;
    info.user = v;
    info.gid = -1;
    info.uid = -1;
    /* The gRPC server's certificate, key and client CA serve the view too. */
    if (tls) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = d->tls_cert_file;
        info.ssl_private_key_filepath = d->tls_key_file;
        if (d->tls_client_ca_file) {
            info.ssl_ca_filepath = d->tls_client_ca_file;
            info.options |= LWS_SERVER_OPTION_REQUIRE_VALID_OPENSSL_CLIENT_CERT;
        }
    }
    v->context = lws_create_context(&info);
    if (!v->context) {
        pthread_mutex_destroy(&v->lock);
        free(v);
        return wk_fail(st, WK_INVALID, "--http %s: the live view cannot listen there (taken, or not an address)",
                       listen);
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(v->context, "default");
    snprintf(v->address, sizeof v->address, "%s://%s:%d/", tls ? "https" : "http", v->host,
             vh ? lws_get_vhost_listen_port(vh) : port);
    if (pthread_create(&v->thread, NULL, service_main, v)) {
        lws_context_destroy(v->context);
        pthread_mutex_destroy(&v->lock);
        free(v);
        return wk_fail(st, WK_NOMEM, "cannot start the live view's thread");
    }
    *out = v;
    return WK_OK;
}

const char *wk__view_address(const struct wk__view *v)
{
    return v->address;
}

void wk__view_stop(struct wk__view *v)
{
    if (!v)
        return;
    pthread_mutex_lock(&v->lock);
    v->stop = true;
    pthread_mutex_unlock(&v->lock);
    lws_cancel_service(v->context);
    pthread_join(v->thread, NULL);
    /* Destroying the context closes every socket: each closes its stream. */
    lws_context_destroy(v->context);
    pthread_mutex_destroy(&v->lock);
    free(v);
}
