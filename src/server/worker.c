/* worker.c — a worker thread: asks the server for a call on its own
 * completion queue, serves it to the end, and asks again, until the server
 * shuts down and the request fails. See server_internal.h for why each
 * worker has a queue of its own. */
#include "server/server_internal.h"

void *wk__worker_main(void *arg)
{
    wk__worker *w = arg;
    static char accept_tag; /* the only event on the queue between calls */
    for (;;) {
        wk__call_slot slot = {0};
        grpc_call_details_init(&slot.details);
        grpc_metadata_array_init(&slot.metadata);
        grpc_call_error e =
            grpc_server_request_call(w->server->grpc, &slot.call, &slot.details, &slot.metadata, w->cq, w->cq, &accept_tag);
        grpc_event ev = {.type = GRPC_QUEUE_SHUTDOWN};
        if (e == GRPC_CALL_OK)
            ev = grpc_completion_queue_next(w->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
        if (ev.type != GRPC_OP_COMPLETE || !ev.success) {
            /* The server is shutting down: no call came, nothing to free
             * but the slot. */
            grpc_call_details_destroy(&slot.details);
            grpc_metadata_array_destroy(&slot.metadata);
            return NULL;
        }
        atomic_fetch_add(&w->server->calls, 1);
        wk__call_serve(w, &slot);
        atomic_fetch_sub(&w->server->calls, 1);
    }
}
