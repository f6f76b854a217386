/* client.h — a gRPC client on gRPC's core C API, for the server's tests:
 * a call sends one serialized request and collects the status, its details
 * and every response message, as any gRPC client in any language would. */
#ifndef WK_TEST_SERVER_CLIENT_H
#define WK_TEST_SERVER_CLIENT_H

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worldkit/wk_base.h"

/* What a call got back. */
typedef struct reply {
    int status; /* grpc_status_code */
    char details[512];
    size_t count; /* messages received */
    wk_buf last;  /* the last of them */
    /* Optional: sees every message; returning false cancels the call. */
    bool (*on_message)(const uint8_t *bytes, size_t len, void *ctx);
    void *ctx;
} reply;

static inline void reply_free(reply *r)
{
    wk_buf_free(&r->last);
}

static inline grpc_channel *client_connect(const char *address)
{
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    grpc_channel *ch = grpc_channel_create(address, creds, NULL);
    grpc_channel_credentials_release(creds);
    return ch;
}

static inline gpr_timespec client_deadline_ms(long long ms)
{
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

/* Waits for tag on cq for at most a minute (a test must not hang); whether
 * the batch succeeded. */
static inline bool client_wait(grpc_completion_queue *cq, void *tag)
{
    grpc_event ev = grpc_completion_queue_pluck(cq, tag, client_deadline_ms(60000), NULL);
    if (ev.type != GRPC_OP_COMPLETE)
        fprintf(stderr, "    client: no completion within a minute\n");
    return ev.type == GRPC_OP_COMPLETE && ev.success;
}

/* Calls method with the request's bytes before deadline and fills *out (zero
 * it first, setting on_message and ctx if wanted). Returns out->status. */
static inline int client_call(grpc_channel *ch, const char *method, const void *request, size_t len,
                              gpr_timespec deadline, reply *out)
{
    static char tag_send, tag_status, tag_recv;
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    grpc_call *call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
                                               grpc_slice_from_static_string(method), NULL, deadline, NULL);
    grpc_slice body = len ? grpc_slice_from_copied_buffer(request, len) : grpc_empty_slice();
    grpc_byte_buffer *msg = grpc_raw_byte_buffer_create(&body, 1);
    grpc_slice_unref(body);
    grpc_metadata_array initial, trailing;
    grpc_metadata_array_init(&initial);
    grpc_metadata_array_init(&trailing);
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_slice details = grpc_empty_slice();

    grpc_op ops[4];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = msg;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &initial;
    grpc_call_start_batch(call, ops, 4, &tag_send, NULL);
    grpc_op status_op = {.op = GRPC_OP_RECV_STATUS_ON_CLIENT};
    status_op.data.recv_status_on_client.trailing_metadata = &trailing;
    status_op.data.recv_status_on_client.status = &status;
    status_op.data.recv_status_on_client.status_details = &details;
    grpc_call_start_batch(call, &status_op, 1, &tag_status, NULL);
    client_wait(cq, &tag_send);

    for (;;) {
        grpc_byte_buffer *in = NULL;
        grpc_op recv = {.op = GRPC_OP_RECV_MESSAGE, .data.recv_message.recv_message = &in};
        if (grpc_call_start_batch(call, &recv, 1, &tag_recv, NULL) != GRPC_CALL_OK || !client_wait(cq, &tag_recv) ||
            !in)
            break;
        grpc_byte_buffer_reader reader;
        grpc_byte_buffer_reader_init(&reader, in);
        grpc_slice s = grpc_byte_buffer_reader_readall(&reader);
        grpc_byte_buffer_reader_destroy(&reader);
        grpc_byte_buffer_destroy(in);
        out->count++;
        out->last.len = 0;
        wk_buf_append(&out->last, GRPC_SLICE_START_PTR(s), GRPC_SLICE_LENGTH(s));
        bool more = !out->on_message || out->on_message(GRPC_SLICE_START_PTR(s), GRPC_SLICE_LENGTH(s), out->ctx);
        grpc_slice_unref(s);
        if (!more) {
            grpc_call_cancel(call, NULL);
            break;
        }
    }
    client_wait(cq, &tag_status);
    out->status = status;
    snprintf(out->details, sizeof out->details, "%.*s", (int)GRPC_SLICE_LENGTH(details),
             (const char *)GRPC_SLICE_START_PTR(details));

    grpc_slice_unref(details);
    grpc_byte_buffer_destroy(msg);
    grpc_metadata_array_destroy(&initial);
    grpc_metadata_array_destroy(&trailing);
    grpc_call_unref(call);
    grpc_completion_queue_shutdown(cq);
    grpc_completion_queue_destroy(cq);
    return out->status;
}

#endif
