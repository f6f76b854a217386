/* worker.c — a worker thread: asks the server for a call on its own
 * completion queue, serves it to the end, and asks again, until the server
 * shuts down and the request fails. See server_internal.h for why each
 * worker has a queue of its own.
 *
 * Only the first worker always serves. Worker i > 0 serves while every
 * worker before it is in a call that has run for SPARE_AFTER_NS or more (a
 * long method, a stream, a wait for a world's lock), and rests otherwise,
 * with no request for a call pending. Two workers both asking for calls
 * would share a burst of short calls out between them, and the handoff of
 * gRPC's socket reads between threads costs more than such a call: on 2
 * CPUs, GetTransform took 37 us of server CPU per call with one worker
 * serving and 66 us with two (bench/server). A resting worker looks every
 * SPARE_AFTER_NS while the worker before it has had a call in the last
 * IDLE_AFTER_NS, and otherwise sleeps until that worker takes one. */
#include <time.h>

#include "base/clock.h"
#include "server/server_internal.h"

#define SPARE_AFTER_NS 1000000LL /* 1 ms */
#define IDLE_AFTER_NS 100000000LL /* 100 ms */

/* Whether every worker before w is in a call begun SPARE_AFTER_NS ago. */
static bool needed(const wk__worker *w, long long now)
{
    for (int j = 0; j < w->index; j++) {
        long long began = atomic_load(&w->server->workers[j].call_began);
        if (!began || now - began < SPARE_AFTER_NS)
            return false;
    }
    return true;
}

/* Rests until w is needed (true) or the server quits (false). */
static bool rest(wk__worker *w)
{
    wk_server *s = w->server;
    const wk__worker *before = &s->workers[w->index - 1];
    for (;;) {
        long long now = wk__monotonic_ns();
        if (atomic_load(&s->quit))
            return false;
        if (needed(w, now))
            return true;
        if (now - atomic_load(&before->last_began) < IDLE_AFTER_NS) {
            nanosleep(&(struct timespec){.tv_nsec = SPARE_AFTER_NS}, NULL);
            continue;
        }
        /* Sleep until the worker before takes a call: it stores last_began,
         * then reads resting; this stores resting, then reads last_began,
         * so one of the two sees the other's store. */
        pthread_mutex_lock(&s->rest_lock);
        atomic_store(&w->resting, true);
        while (!atomic_load(&s->quit) && wk__monotonic_ns() - atomic_load(&before->last_began) >= IDLE_AFTER_NS)
            pthread_cond_wait(&s->rest_wake, &s->rest_lock);
        atomic_store(&w->resting, false);
        pthread_mutex_unlock(&s->rest_lock);
    }
}

/* Tells the worker after w, if it sleeps, that w has taken a call. */
static void stir_next(const wk__worker *w)
{
    wk_server *s = w->server;
    if (w->index + 1 < s->worker_count && atomic_load(&s->workers[w->index + 1].resting)) {
        pthread_mutex_lock(&s->rest_lock);
        pthread_cond_broadcast(&s->rest_wake);
        pthread_mutex_unlock(&s->rest_lock);
    }
}

void wk__workers_quit(wk_server *s)
{
    pthread_mutex_lock(&s->rest_lock);
    atomic_store(&s->quit, true);
    pthread_cond_broadcast(&s->rest_wake);
    pthread_mutex_unlock(&s->rest_lock);
}

/* Takes the next call and serves it; false once the server shuts down. */
static bool serve_next(wk__worker *w)
{
    static char accept_tag; /* the only event on the queue between calls */
    wk__call_slot slot = {0};
    grpc_call_details_init(&slot.details);
    grpc_metadata_array_init(&slot.metadata);
    grpc_call_error e =
        grpc_server_request_call(w->server->grpc, &slot.call, &slot.details, &slot.metadata, w->cq, w->cq, &accept_tag);
    grpc_event ev = {.type = GRPC_QUEUE_SHUTDOWN};
    if (e == GRPC_CALL_OK)
        ev = grpc_completion_queue_next(w->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
    if (ev.type != GRPC_OP_COMPLETE || !ev.success) {
        /* The server is shutting down: no call came, nothing to free but
         * the slot. */
        grpc_call_details_destroy(&slot.details);
        grpc_metadata_array_destroy(&slot.metadata);
        return false;
    }
    long long began = wk__monotonic_ns();
    atomic_store(&w->last_began, began);
    atomic_store(&w->call_began, began);
    stir_next(w);
    atomic_fetch_add(&w->server->calls, 1);
    wk__call_serve(w, &slot);
    atomic_fetch_sub(&w->server->calls, 1);
    atomic_store(&w->call_began, 0);
    return true;
}

void *wk__worker_main(void *arg)
{
    wk__worker *w = arg;
    while ((w->index == 0 || rest(w)) && serve_next(w))
        ;
    return NULL;
}
