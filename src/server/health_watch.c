/* health_watch.c — grpc.health.v1.Health/Watch: a stream that sends the
 * watched service's status at once, then each change. The only change
 * there is comes at shutdown: SERVING becomes NOT_SERVING, which each
 * watcher is sent before its stream ends with UNAVAILABLE. A name the
 * server does not serve is SERVICE_UNKNOWN, and the stream stays open, as
 * the protocol says (a service may appear later elsewhere; not here).
 *
 * One thread serves every watcher from the watch's own completion queue:
 * each event (a new call, a message sent, a call closed) moves its watcher
 * on by one batch. The thread learns of the shutdown when gRPC fails its
 * pending request for a new call, which grpc_server_shutdown_and_notify
 * does at once; the shutdown in turn waits for the watchers' calls to end,
 * which they do once told. */
#include <grpc/byte_buffer_reader.h>
#include <grpc/support/time.h>
#include <stdlib.h>
#include <string.h>

#include "grpc/health/v1/health.pb-c.h"
#include "server/server_internal.h"

#define WATCH_PATH "/grpc.health.v1.Health/Watch"
/* Watch asks for no token (see health.c): a bound keeps anyone who can
 * connect from holding memory with open watches. */
#define MAX_WATCHERS 256

typedef struct watcher watcher;

/* A completion queue tag: which watcher, and which of its batches. */
typedef struct event {
    watcher *watcher;
    enum { ACCEPTED, SENT, CLOSED } kind;
} event;

struct watcher {
    grpc_call *call;
    gpr_timespec deadline;
    grpc_metadata_array metadata;
    grpc_byte_buffer *request;
    char *service;  /* the name watched (free) */
    int sent;       /* the last status sent, -1 before the first */
    bool metadata_sent;
    bool sending;   /* a send batch is under way */
    bool finished;  /* the status has gone, or the call is over */
    bool closed;    /* the close batch completed */
    int cancelled;  /* its out value */
    event accepted, sent_event, closed_event;
    watcher *next;
};

typedef struct watchers {
    wk__watch *watch;
    watcher *list;
    int open; /* watchers not finished */
    bool accepting; /* a request for a new call is pending */
} watchers;

void wk__watch_register(wk__watch *watch, wk_server *server)
{
    *watch = (wk__watch){.server = server, .cq = grpc_completion_queue_create_for_next(NULL)};
    watch->method = grpc_server_register_method(server->grpc, WATCH_PATH, NULL,
                                                GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
    grpc_server_register_completion_queue(server->grpc, watch->cq, NULL);
}

static watcher *watcher_new(void)
{
    watcher *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    grpc_metadata_array_init(&w->metadata);
    w->sent = -1;
    w->accepted = (event){w, ACCEPTED};
    w->sent_event = (event){w, SENT};
    w->closed_event = (event){w, CLOSED};
    return w;
}

static void watcher_free(watcher *w)
{
    if (w->call)
        grpc_call_unref(w->call);
    grpc_metadata_array_destroy(&w->metadata);
    if (w->request)
        grpc_byte_buffer_destroy(w->request);
    free(w->service);
    free(w);
}

/* Asks gRPC for the next Watch call; false when it will send none. */
static bool accept_next(watchers *ws)
{
    watcher *w = watcher_new();
    wk__watch *watch = ws->watch;
    ws->accepting = w && grpc_server_request_registered_call(watch->server->grpc, watch->method, &w->call,
                                                             &w->deadline, &w->metadata, &w->request, watch->cq,
                                                             watch->cq, &w->accepted) == GRPC_CALL_OK;
    if (!ws->accepting && w)
        watcher_free(w);
    return ws->accepting;
}

/* The name the request watches (free), or NULL when it is none. */
static char *requested_service(watcher *w)
{
    grpc_byte_buffer_reader reader;
    if (!w->request || !grpc_byte_buffer_reader_init(&reader, w->request))
        return NULL;
    grpc_slice bytes = grpc_byte_buffer_reader_readall(&reader);
    grpc_byte_buffer_reader_destroy(&reader);
    Grpc__Health__V1__HealthCheckRequest *req = grpc__health__v1__health_check_request__unpack(
        NULL, GRPC_SLICE_LENGTH(bytes), GRPC_SLICE_START_PTR(bytes));
    grpc_slice_unref(bytes);
    if (!req)
        return NULL;
    char *service = strdup(req->service ? req->service : "");
    grpc__health__v1__health_check_request__free_unpacked(req, NULL);
    return service;
}

/* Starts one batch on w's call: the initial metadata with the first
 * message, status (a ServingStatus) unless negative, and the call's status
 * code with details unless details is NULL. */
static void send_batch(watcher *w, int status, grpc_status_code code, const char *details)
{
    grpc_op ops[3];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    if (!w->metadata_sent) {
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
        w->metadata_sent = true;
    }
    grpc_byte_buffer *message = NULL;
    if (status >= 0) {
        Grpc__Health__V1__HealthCheckResponse resp = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;
        resp.has_status = true;
        resp.status = (Grpc__Health__V1__HealthCheckResponse__ServingStatus)status;
        uint8_t bytes[8]; /* one enum field */
        grpc_slice slice = grpc_slice_from_copied_buffer(
            (const char *)bytes, grpc__health__v1__health_check_response__pack(&resp, bytes));
        message = grpc_raw_byte_buffer_create(&slice, 1);
        grpc_slice_unref(slice);
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = message;
        w->sent = status;
    }
    grpc_slice text = details ? grpc_slice_from_copied_string(details) : grpc_empty_slice();
    if (details) {
        ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
        ops[n].data.send_status_from_server.status = code;
        ops[n++].data.send_status_from_server.status_details = &text;
        w->finished = true;
    }
    /* The ops are copied by start_batch, the message by the send. */
    w->sending = grpc_call_start_batch(w->call, ops, n, &w->sent_event, NULL) == GRPC_CALL_OK;
    w->finished |= !w->sending;
    grpc_slice_unref(text);
    if (message)
        grpc_byte_buffer_destroy(message);
}

/* Moves w on by the batch its state calls for, if any. */
static void advance(watchers *ws, watcher *w)
{
    if (w->sending || w->finished)
        return;
    if (w->closed) {
        w->finished = true; /* the client is gone */
        return;
    }
    int now = wk__health_status(ws->watch->server, w->service);
    bool stopping = atomic_load(&ws->watch->server->stopping);
    if (stopping)
        send_batch(w, now != w->sent ? now : -1, GRPC_STATUS_UNAVAILABLE, "the server is shutting down");
    else if (now != w->sent)
        send_batch(w, now, GRPC_STATUS_OK, NULL);
}

/* A new call: its request read, and its close batch and first message
 * under way (or its error status). */
static void start(watchers *ws, watcher *w)
{
    w->next = ws->list;
    ws->list = w;
    grpc_op close = {.op = GRPC_OP_RECV_CLOSE_ON_SERVER, .data.recv_close_on_server.cancelled = &w->cancelled};
    w->closed = grpc_call_start_batch(w->call, &close, 1, &w->closed_event, NULL) != GRPC_CALL_OK;
    if (ws->open >= MAX_WATCHERS) {
        send_batch(w, -1, GRPC_STATUS_RESOURCE_EXHAUSTED, "too many health watches are open");
        return;
    }
    if (!(w->service = requested_service(w))) {
        send_batch(w, -1, GRPC_STATUS_INVALID_ARGUMENT, "the request is no HealthCheckRequest");
        return;
    }
    ws->open++;
    advance(ws, w);
}

/* Frees w once no batch of its is under way. */
static void reap(watchers *ws, watcher *w)
{
    if (!w->closed || w->sending)
        return;
    if (w->service)
        ws->open--;
    for (watcher **p = &ws->list; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    watcher_free(w);
}

static void *watch_main(void *arg)
{
    watchers ws = {.watch = arg};
    accept_next(&ws);
    while (ws.accepting || ws.list) {
        grpc_event ev = grpc_completion_queue_next(ws.watch->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
        if (ev.type != GRPC_OP_COMPLETE)
            break;
        event *e = ev.tag;
        watcher *w = e->watcher;
        if (e->kind == ACCEPTED) {
            ws.accepting = false;
            if (!ev.success) {
                /* The shutdown has begun: every watcher hears of it. */
                watcher_free(w);
                for (watcher *x = ws.list; x; x = x->next)
                    advance(&ws, x);
                continue;
            }
            start(&ws, w);
            accept_next(&ws);
        } else {
            if (e->kind == SENT)
                w->sending = false;
            else
                w->closed = true;
            if (e->kind == SENT && !ev.success)
                w->finished = true;
            advance(&ws, w);
        }
        reap(&ws, w);
    }
    return NULL;
}

int wk__watch_start(wk__watch *watch)
{
    if (pthread_create(&watch->thread, NULL, watch_main, watch))
        return WK_NOMEM;
    watch->started = true;
    return WK_OK;
}

void wk__watch_join(wk__watch *watch)
{
    if (watch->started)
        pthread_join(watch->thread, NULL);
    watch->started = false;
}
