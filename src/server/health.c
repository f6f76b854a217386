/* health.c — the standard health service, grpc.health.v1.Health, on a
 * thread of its own. Check answers the status at once; Watch streams it:
 * the status at once, then each change. The server as a whole ("") and
 * every service with a method in the api's table are SERVING until
 * shutdown begins, then NOT_SERVING, which each watcher is sent before its
 * stream ends with UNAVAILABLE. Any other name is NOT_FOUND for Check and
 * SERVICE_UNKNOWN for Watch, whose stream stays open, as the protocol says
 * (a service may appear later elsewhere; not here). Neither asks for the
 * server's bearer token: probes (Kubernetes', load balancers') call them
 * without credentials, and they tell no more than whether the server is up.
 *
 * Both are registered methods with a completion queue of their own, served
 * by one thread, never by a worker: a probe must be answered while every
 * worker is held by long world work (a health check waited behind four
 * stuck LoadWorlds), and a watch lasts as long as its client watches. Each
 * event (a new call, a message sent, a call closed) moves its call on by
 * one batch. The thread learns of the shutdown when gRPC fails its pending
 * requests for new calls, which grpc_server_shutdown_and_notify does at
 * once; the shutdown in turn waits for the watchers' calls to end, which
 * they do once told. */
#include <grpc/byte_buffer_reader.h>
#include <grpc/support/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grpc/health/v1/health.pb-c.h"
#include "server/server_internal.h"

/* Watch asks for no token: a bound keeps anyone who can connect from
 * holding memory with open watches. A Check ends as it starts. */
#define MAX_WATCHERS 256

enum method { CHECK, WATCH, METHODS };
static const char *const paths[METHODS] = {"/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"};

typedef struct probe probe;

/* A completion queue tag: which call, and which of its batches. */
typedef struct event {
    probe *probe;
    enum { ACCEPTED, SENT, CLOSED } kind;
} event;

/* One call of Check or Watch. */
struct probe {
    enum method method;
    grpc_call *call;
    gpr_timespec deadline;
    grpc_metadata_array metadata;
    grpc_byte_buffer *request;
    char *service;  /* the name asked about (free) */
    int sent;       /* the last status sent, -1 before the first */
    bool watching;  /* a Watch counted in probes.watching */
    bool metadata_sent;
    bool sending;   /* a send batch is under way */
    bool finished;  /* the status has gone, or the call is over */
    bool closed;    /* the close batch completed */
    int cancelled;  /* its out value */
    event accepted, sent_event, closed_event;
    probe *next;
};

typedef struct probes {
    wk__health *health;
    probe *list;
    int watching;               /* watches not finished */
    bool accepting[METHODS];    /* a request for a new call of the method is pending */
} probes;

void wk__health_register(wk__health *health, wk_server *server)
{
    *health = (wk__health){.server = server, .cq = grpc_completion_queue_create_for_next(NULL)};
    for (int m = 0; m < METHODS; m++)
        health->methods[m] = grpc_server_register_method(server->grpc, paths[m], NULL,
                                                         GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
    grpc_server_register_completion_queue(server->grpc, health->cq, NULL);
}

/* The status of a service by its name ("" for the server), a
 * HealthCheckResponse.ServingStatus: SERVICE_UNKNOWN for a name the server
 * does not serve. */
static int status_of(const wk_server *server, const char *service)
{
    if (service[0] && !wk_api_has_service(service))
        return GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVICE_UNKNOWN;
    return atomic_load(&server->stopping) ? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING
                                          : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING;
}

static probe *probe_new(enum method method)
{
    probe *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    grpc_metadata_array_init(&p->metadata);
    p->method = method;
    p->sent = -1;
    p->accepted = (event){p, ACCEPTED};
    p->sent_event = (event){p, SENT};
    p->closed_event = (event){p, CLOSED};
    return p;
}

static void probe_free(probe *p)
{
    if (p->call)
        grpc_call_unref(p->call);
    grpc_metadata_array_destroy(&p->metadata);
    if (p->request)
        grpc_byte_buffer_destroy(p->request);
    free(p->service);
    free(p);
}

/* Asks gRPC for the next call of method; false when it will send none. */
static bool accept_next(probes *ps, enum method method)
{
    probe *p = probe_new(method);
    wk__health *h = ps->health;
    ps->accepting[method] = p && grpc_server_request_registered_call(h->server->grpc, h->methods[method], &p->call,
                                                                      &p->deadline, &p->metadata, &p->request, h->cq,
                                                                      h->cq, &p->accepted) == GRPC_CALL_OK;
    if (!ps->accepting[method] && p)
        probe_free(p);
    return ps->accepting[method];
}

/* The name the request asks about (free), or NULL when it is none. */
static char *requested_service(probe *p)
{
    grpc_byte_buffer_reader reader;
    if (!p->request || !grpc_byte_buffer_reader_init(&reader, p->request))
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

/* Starts one batch on p's call: the initial metadata with the first
 * message, status (a ServingStatus) unless negative, and the call's status
 * code with details unless details is NULL. */
static void send_batch(probe *p, int status, grpc_status_code code, const char *details)
{
    grpc_op ops[3];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    if (!p->metadata_sent) {
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
        p->metadata_sent = true;
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
        p->sent = status;
    }
    grpc_slice text = details ? grpc_slice_from_copied_string(details) : grpc_empty_slice();
    if (details) {
        ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
        ops[n].data.send_status_from_server.status = code;
        ops[n++].data.send_status_from_server.status_details = &text;
        p->finished = true;
    }
    /* The ops are copied by start_batch, the message by the send. */
    p->sending = grpc_call_start_batch(p->call, ops, n, &p->sent_event, NULL) == GRPC_CALL_OK;
    p->finished |= !p->sending;
    grpc_slice_unref(text);
    if (message)
        grpc_byte_buffer_destroy(message);
}

/* Moves a watch on by the batch its state calls for, if any. */
static void advance(probes *ps, probe *p)
{
    if (p->sending || p->finished)
        return;
    if (p->closed) {
        p->finished = true; /* the client is gone */
        return;
    }
    int now = status_of(ps->health->server, p->service);
    if (atomic_load(&ps->health->server->stopping))
        send_batch(p, now != p->sent ? now : -1, GRPC_STATUS_UNAVAILABLE, "the server is shutting down");
    else if (now != p->sent)
        send_batch(p, now, GRPC_STATUS_OK, NULL);
}

/* Answers a Check whole, in one batch: a name the server does not serve is
 * NOT_FOUND; while shutting down the server is NOT_SERVING, still OK. */
static void answer(probes *ps, probe *p)
{
    int status = status_of(ps->health->server, p->service);
    if (status != GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVICE_UNKNOWN) {
        send_batch(p, status, GRPC_STATUS_OK, "");
        return;
    }
    char why[256];
    snprintf(why, sizeof why, "unknown service '%.200s'", p->service);
    send_batch(p, -1, GRPC_STATUS_NOT_FOUND, why);
}

/* A new call: its request read, and its close batch and first message
 * under way (or its error status). */
static void start(probes *ps, probe *p)
{
    p->next = ps->list;
    ps->list = p;
    grpc_op close = {.op = GRPC_OP_RECV_CLOSE_ON_SERVER, .data.recv_close_on_server.cancelled = &p->cancelled};
    p->closed = grpc_call_start_batch(p->call, &close, 1, &p->closed_event, NULL) != GRPC_CALL_OK;
    if (p->method == WATCH && ps->watching >= MAX_WATCHERS) {
        send_batch(p, -1, GRPC_STATUS_RESOURCE_EXHAUSTED, "too many health watches are open");
        return;
    }
    if (!(p->service = requested_service(p))) {
        send_batch(p, -1, GRPC_STATUS_INVALID_ARGUMENT, "the request is no HealthCheckRequest");
        return;
    }
    if (p->method == CHECK) {
        answer(ps, p);
        return;
    }
    p->watching = true;
    ps->watching++;
    advance(ps, p);
}

/* Frees p once no batch of its is under way. */
static void reap(probes *ps, probe *p)
{
    if (!p->closed || p->sending)
        return;
    if (p->watching)
        ps->watching--;
    for (probe **q = &ps->list; *q; q = &(*q)->next)
        if (*q == p) {
            *q = p->next;
            break;
        }
    probe_free(p);
}

static void *health_main(void *arg)
{
    probes ps = {.health = arg};
    for (int m = 0; m < METHODS; m++)
        accept_next(&ps, (enum method)m);
    while (ps.accepting[CHECK] || ps.accepting[WATCH] || ps.list) {
        grpc_event ev = grpc_completion_queue_next(ps.health->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
        if (ev.type != GRPC_OP_COMPLETE)
            break;
        event *e = ev.tag;
        probe *p = e->probe;
        if (e->kind == ACCEPTED) {
            ps.accepting[p->method] = false;
            if (!ev.success) {
                /* The shutdown has begun: every watcher hears of it. */
                probe_free(p);
                for (probe *x = ps.list; x; x = x->next)
                    advance(&ps, x);
                continue;
            }
            start(&ps, p);
            accept_next(&ps, p->method);
        } else {
            if (e->kind == SENT)
                p->sending = false;
            else
                p->closed = true;
            if (e->kind == SENT && !ev.success)
                p->finished = true;
            advance(&ps, p);
        }
        reap(&ps, p);
    }
    return NULL;
}

int wk__health_start(wk__health *health)
{
    if (pthread_create(&health->thread, NULL, health_main, health))
        return WK_NOMEM;
    health->started = true;
    return WK_OK;
}

void wk__health_join(wk__health *health)
{
    if (health->started)
        pthread_join(health->thread, NULL);
    health->started = false;
}
