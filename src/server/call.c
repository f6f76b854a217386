/* call.c — one call's life on its worker: check its bearer token, receive
 * the request, check the deadline, run the method through wk_api_invoke
 * (the health service is health.c's, never a worker's), then send the
 * initial metadata, the response message(s) and the status. Every batch is waited for on the worker's
 * queue before the next starts. A GRPC_OP_RECV_CLOSE_ON_SERVER batch
 * completes early only when the call is cancelled (client gone, deadline
 * passed), which is how a call that waited for the world's lock, or a
 * stream between two messages, learns it should stop. A stream starts it
 * first; a unary call only once it has waited a millisecond, and otherwise
 * sends it with its reply, which saves a batch and a wake-up per call.
 *
 * A unary method's reply is held and goes out in the same batch as the
 * initial metadata and the status; a stream sends each message as the
 * method writes it (with no world held: wk_api_sink), so a slow reader
 * slows the stream rather than filling memory. A reader that takes no
 * message for STALL_SECONDS has stopped: its call is ended with
 * RESOURCE_EXHAUSTED, so that it holds a worker no longer; so is a unary
 * reply not taken whole in STALL_SECONDS plus a second per MiB (a reader
 * slower than 1 MiB/s, or none: gRPC tells no progress within a message). Nor may readers
 * that take nothing hold most workers meanwhile: a send that would make
 * more than half of them (one at least) wait on one ends its call at once
 * (8 clients that never read a big ListObjects held all 4 workers, and
 * every other call waited as long as they did; with one worker left, the
 * calls queued behind them still took it a second). */
#include <grpc/byte_buffer_reader.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "server/server_internal.h"

/* How long a stream's message may wait for its client's HTTP/2 flow
 * control, which holds it back once the client has stopped reading and
 * the window (64 KB and more: thousands of SimulateSteps updates) is full. */
#define STALL_SECONDS 5
#define MIN_READ_BYTES_PER_SECOND (1 << 20)
/* A send not taken in this long counts as held by its reader: longer than
 * a client that reads takes over a big answer on a busy host, so that only
 * readers that read nothing are ever counted. */
#define HELD_AFTER_MS 250

/* Tags of the batches of the call a worker serves (its only one). */
static char tag_recv, tag_close, tag_send;

typedef struct call {
    wk__worker *worker;
    wk__call_slot *slot;
    char *method;           /* the path, NUL-terminated (gpr_free) */
    bool streaming;         /* messages go out as they are written */
    bool metadata_sent;
    bool closing;           /* the close batch is started */
    bool closed;            /* the close batch completed */
    int cancelled;          /* what it says: whether the call ended otherwise than by our status */
    bool broken;            /* a batch failed: the call is over */
    int ended;              /* the status a stream we cancelled (stalled, shutdown) was ended with; 0 otherwise */
    grpc_byte_buffer *held; /* a unary reply, sent with the status */
    double started;         /* when the worker took the call, seconds */
} call;

/* Waits on the worker's queue for tag until until, noting the close
 * batch if it completes first; the event's success, false when until came
 * first (*late then says so). */
static bool wait_until(call *c, void *tag, gpr_timespec until, bool *late)
{
    if (tag == &tag_close && c->closed)
        return true;
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(c->worker->cq, until, NULL);
        if (ev.type == GRPC_QUEUE_TIMEOUT) {
            *late = true;
            return false;
        }
        if (ev.type != GRPC_OP_COMPLETE)
            return false; /* the queue shut down, which it does only once no call is served */
        if (ev.tag == &tag_close)
            c->closed = true;
        if (ev.tag == tag)
            return ev.success != 0;
    }
}

static bool wait_for(call *c, void *tag)
{
    bool late = false;
    return wait_until(c, tag, gpr_inf_future(GPR_CLOCK_MONOTONIC), &late);
}

/* Ends the call with status and why; gRPC completes its send once it is
 * cancelled, and only then may the message be freed. */
static void end_call(call *c, grpc_status_code status, const char *why)
{
    c->ended = status;
    grpc_call_cancel_with_status(c->slot->call, status, why, NULL);
    wait_for(c, &tag_send);
}

/* Waits for a send of a message of size bytes; ends the call when its
 * client has not taken it in its time (above), at once when the server
 * shuts down (a send held back by a client that does not read would
 * otherwise hold the shutdown for the stall's length), and at once when
 * half the workers wait on such a client already. */
static bool wait_for_reader(call *c, size_t size)
{
    wk_server *s = c->worker->server;
    int seconds = STALL_SECONDS + (c->streaming ? 0 : (int)(size / MIN_READ_BYTES_PER_SECOND));
    gpr_timespec start = gpr_now(GPR_CLOCK_MONOTONIC);
    gpr_timespec stall = gpr_time_add(start, gpr_time_from_seconds(seconds, GPR_TIMESPAN));
    gpr_timespec counted = gpr_time_add(start, gpr_time_from_millis(HELD_AFTER_MS, GPR_TIMESPAN));
    int may_hold = s->worker_count / 2 > 1 ? s->worker_count / 2 : 1;
    bool held = false, too_many = false, sent = false;
    const char *what = c->streaming ? "message" : "answer";
    for (;;) {
        bool late = false;
        gpr_timespec look = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(50, GPR_TIMESPAN));
        if ((sent = wait_until(c, &tag_send, gpr_time_min(look, stall), &late)) || !late)
            break;
        /* Counted once it has waited HELD_AFTER_MS, or at its first look
         * when half the workers wait on such readers already: the calls
         * queued behind (8 unread listings on 4 workers kept GetTransform
         * waiting 3 rounds of 250 ms) get the worker rather than it. */
        if (!held && (gpr_time_cmp(gpr_now(GPR_CLOCK_MONOTONIC), counted) >= 0 ||
                      atomic_load(&s->held_by_readers) >= may_hold)) {
            held = true;
            too_many = atomic_fetch_add(&s->held_by_readers, 1) + 1 > may_hold;
        }
        bool stopping = atomic_load(&s->stopping);
        if (!stopping && !too_many && gpr_time_cmp(gpr_now(GPR_CLOCK_MONOTONIC), stall) < 0)
            continue;
        char why[240];
        if (stopping)
            snprintf(why, sizeof why, "%s: the server is shutting down: the call is ended", c->method);
        else if (too_many)
            snprintf(why, sizeof why,
                     "%s: the client read no %s, and %d of the server's %d workers wait on clients that read "
                     "nothing: the call is ended rather than hold another",
                     c->method, what, may_hold, s->worker_count);
        else if (c->streaming)
            snprintf(why, sizeof why, "%s: the client read no message for %d s (it stopped reading): the call is ended",
                     c->method, seconds);
        else
            snprintf(why, sizeof why,
                     "%s: the client did not read its answer of %.1f MiB within %d s (it reads slower than 1 MiB/s, "
                     "or not at all): the call is ended",
                     c->method, (double)size / 1048576.0, seconds);
        end_call(c, stopping ? GRPC_STATUS_UNAVAILABLE : GRPC_STATUS_RESOURCE_EXHAUSTED, why);
        break;
    }
    if (held)
        atomic_fetch_sub(&s->held_by_readers, 1);
    return sent;
}

/* Whether the call is over for its client: cancelled, past its deadline, or
 * broken. Between batches the close batch is the only one that can have
 * completed, so a look at the queue that does not wait finds it. */
static bool start_close(call *c)
{
    if (!c->closing) {
        grpc_op op = {.op = GRPC_OP_RECV_CLOSE_ON_SERVER, .data.recv_close_on_server.cancelled = &c->cancelled};
        c->closing = grpc_call_start_batch(c->slot->call, &op, 1, &tag_close, NULL) == GRPC_CALL_OK;
    }
    return c->closing;
}

static bool gone(call *c)
{
    /* A look costs a batch, a wait on the queue and a futex; a unary call
     * cancelled in its first millisecond runs to its end anyway, so only
     * streams and calls that have waited (for a world's lock, say) look. */
    if (!c->closed && (c->streaming || wk__monotonic_s() - c->started > 1e-3) && start_close(c)) {
        grpc_event ev = grpc_completion_queue_next(c->worker->cq, gpr_time_0(GPR_CLOCK_MONOTONIC), NULL);
        if (ev.type == GRPC_OP_COMPLETE && ev.tag == &tag_close)
            c->closed = true;
    }
    /* Before our status is sent, a closed call is a cancelled one. */
    return c->broken || c->closed;
}

static bool expired(const call *c)
{
    gpr_timespec deadline = gpr_convert_clock_type(c->slot->details.deadline, GPR_CLOCK_MONOTONIC);
    return gpr_time_cmp(deadline, gpr_now(GPR_CLOCK_MONOTONIC)) <= 0;
}

/* wk_api_sink's check: asked once the method holds the world's lock. */
static int check(void *ctx)
{
    call *c = ctx;
    if (expired(c))
        return GRPC_STATUS_DEADLINE_EXCEEDED;
    /* A stream (SimulateSteps) may go on for ever: a shutdown ends it at
     * its next batch rather than waiting out the grace for it. */
    if (c->streaming && atomic_load(&c->worker->server->stopping))
        return GRPC_STATUS_UNAVAILABLE;
    return gone(c) ? GRPC_STATUS_CANCELLED : 0;
}

/* Sends, in one batch, the initial metadata unless sent already, msg if not
 * NULL (which it takes) and the status if status is not NULL (then with
 * the close unless started), and waits for it to complete. */
static bool send(call *c, grpc_byte_buffer *msg, const grpc_status_code *status, const char *details)
{
    grpc_op ops[4];
    size_t n = 0;
    memset(ops, 0, sizeof ops);
    if (!c->metadata_sent) {
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
        c->metadata_sent = true;
    }
    /* Read before the batch, which takes the message's slices. */
    size_t size = msg ? grpc_byte_buffer_length(msg) : 0;
    if (msg) {
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = msg;
    }
    grpc_slice text = grpc_empty_slice();
    /* A world another server holds: its address also in trailing metadata,
     * for clients to follow. */
    const char *owner = status && *status == GRPC_STATUS_UNAVAILABLE ? strstr(details, WK_MOVED_TEXT) : NULL;
    grpc_metadata owner_md = {.key = grpc_empty_slice(), .value = grpc_empty_slice()};
    if (owner) {
        owner += strlen(WK_MOVED_TEXT);
        owner_md.key = grpc_slice_from_static_string("worldkit-owner");
        owner_md.value = grpc_slice_from_copied_buffer(owner, strcspn(owner, " "));
    }
    if (status) {
        text = grpc_slice_from_copied_string(details);
        ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
        ops[n].data.send_status_from_server.status = *status;
        ops[n].data.send_status_from_server.trailing_metadata_count = owner ? 1 : 0;
        ops[n].data.send_status_from_server.trailing_metadata = owner ? &owner_md : NULL;
        ops[n++].data.send_status_from_server.status_details = &text;
        if (!c->closing) {
            ops[n].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
            ops[n++].data.recv_close_on_server.cancelled = &c->cancelled;
        }
    }
    bool ok = grpc_call_start_batch(c->slot->call, ops, n, &tag_send, NULL) == GRPC_CALL_OK &&
              (c->streaming || msg ? wait_for_reader(c, size) : wait_for(c, &tag_send));
    grpc_slice_unref(text);
    grpc_slice_unref(owner_md.value);
    if (msg)
        grpc_byte_buffer_destroy(msg);
    c->broken |= !ok;
    return ok;
}

/* wk_api_sink's write. */
static bool write_message(void *ctx, const uint8_t *bytes, size_t len)
{
    call *c = ctx;
    if (c->broken)
        return false;
    grpc_slice s = len ? grpc_slice_from_copied_buffer((const char *)bytes, len) : grpc_empty_slice();
    grpc_byte_buffer *msg = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    /* A unary method writes once; should one write twice, both go out. */
    if (c->held)
        send(c, c->held, NULL, NULL);
    c->held = msg;
    if (c->streaming) {
        c->held = NULL;
        send(c, msg, NULL, NULL);
    }
    return c->streaming ? !gone(c) : !c->broken;
}

static void report(const call *c, bool done, int status, int result, double seconds, const char *message)
{
    const wk_server_desc *d = &c->worker->server->desc;
    if (d->on_call)
        d->on_call(&(wk_server_call){.method = c->method, .done = done, .status = status, .result = result,
                                     .seconds = seconds, .message = message},
                   d->ctx);
}

/* Runs the method on the request's bytes. */
static void run(call *c, grpc_byte_buffer *payload, wk_api_sink *sink)
{
    grpc_byte_buffer_reader reader;
    if (!grpc_byte_buffer_reader_init(&reader, payload)) {
        sink->status = GRPC_STATUS_INTERNAL;
        snprintf(sink->message, sizeof sink->message, "the request could not be read");
        return;
    }
    grpc_slice request = grpc_byte_buffer_reader_readall(&reader);
    grpc_byte_buffer_reader_destroy(&reader);
    const uint8_t *bytes = GRPC_SLICE_START_PTR(request);
    size_t len = GRPC_SLICE_LENGTH(request);
    wk_api_invoke(c->worker->server->api, c->method, bytes, len, sink);
    grpc_slice_unref(request);
}

/* The world a call names in its metadata worldkit-world-id, written to
 * out; "" when it names none. A value too long for the buffer is cut, and
 * still names no world (ids have 100 characters at most). */
static void world_of(const grpc_metadata_array *md, char *out, size_t cap)
{
    out[0] = '\0';
    for (size_t i = 0; i < md->count; i++) {
        if (grpc_slice_str_cmp(md->metadata[i].key, "worldkit-world-id"))
            continue;
        size_t len = GRPC_SLICE_LENGTH(md->metadata[i].value);
        snprintf(out, cap, "%.*s", (int)(len < cap ? len : cap - 1),
                 (const char *)GRPC_SLICE_START_PTR(md->metadata[i].value));
    }
}

void wk__call_serve(wk__worker *w, wk__call_slot *slot)
{
    /* Read before the call is reported begun: a call the hook has seen
     * begin is in flight, and a shutdown lets it finish, however long its
     * request takes to arrive. */
    bool refused_for_shutdown = atomic_load(&w->server->stopping);
    double t0 = wk__monotonic_s();
    call c = {.worker = w, .slot = slot, .method = grpc_slice_to_c_string(slot->details.method), .started = t0};
    report(&c, false, 0, -1, 0, "");

    grpc_byte_buffer *payload = NULL;
    grpc_op recv_op = {.op = GRPC_OP_RECV_MESSAGE, .data.recv_message.recv_message = &payload};
    wk_api_has_method(c.method, &c.streaming);
    if (c.streaming)
        start_close(&c);
    /* A call without the token is refused before its request is read. */
    bool allowed = wk__auth_allows(w->server, &slot->metadata);
    bool received = allowed && grpc_call_start_batch(slot->call, &recv_op, 1, &tag_recv, NULL) == GRPC_CALL_OK &&
                    wait_for(&c, &tag_recv);

    char world[WK_WORLD_ID_MAX];
    world_of(&slot->metadata, world, sizeof world);
    wk_api_sink sink = {.write = write_message, .check = check, .ctx = &c, .world_id = world, .result = -1};
    if (refused_for_shutdown) {
        sink.status = GRPC_STATUS_UNAVAILABLE;
        snprintf(sink.message, sizeof sink.message, "%s: the server is shutting down", c.method);
    } else if (!allowed) {
        sink.status = GRPC_STATUS_UNAUTHENTICATED;
        snprintf(sink.message, sizeof sink.message,
                 "%s: the call carries no valid bearer token (metadata 'authorization: Bearer <token>')", c.method);
    } else if (!received || gone(&c)) {
        c.broken = true;
        sink.status = GRPC_STATUS_CANCELLED;
    } else if (!payload) {
        sink.status = GRPC_STATUS_INVALID_ARGUMENT;
        snprintf(sink.message, sizeof sink.message, "%s: no request message", c.method);
    } else if (expired(&c)) {
        sink.status = GRPC_STATUS_DEADLINE_EXCEEDED;
        snprintf(sink.message, sizeof sink.message, "%s: the deadline passed before the call ran", c.method);
    } else {
        run(&c, payload, &sink);
    }

    grpc_byte_buffer *reply = c.held;
    if (reply && sink.status != GRPC_STATUS_OK) {
        grpc_byte_buffer_destroy(reply);
        reply = NULL;
    }
    grpc_status_code status = (grpc_status_code)sink.status;
    /* At a shutdown a stream ends at once: its status sent behind messages
     * its client has not read yet would hold the connection, and so the
     * shutdown, open until the client reads them. A cancel sends the
     * status and drops those messages. */
    if (!c.broken && c.streaming && atomic_load(&w->server->stopping)) {
        if (status != GRPC_STATUS_UNAVAILABLE)
            snprintf(sink.message, sizeof sink.message, "%s: the server is shutting down", c.method);
        status = GRPC_STATUS_UNAVAILABLE;
        c.ended = GRPC_STATUS_UNAVAILABLE;
        c.broken = grpc_call_cancel_with_status(slot->call, status, sink.message, NULL) == GRPC_CALL_OK;
    }
    if (!c.broken)
        send(&c, reply, &status, sink.message);
    else if (reply)
        grpc_byte_buffer_destroy(reply);
    /* A call that broke may still be open on our side: cancelling it makes
     * sure the close batch completes. A close sent with the status
     * completed with it. */
    if (c.broken)
        grpc_call_cancel(slot->call, NULL);
    if (c.closing)
        wait_for(&c, &tag_close);
    report(&c, true,
           c.ended                                  ? c.ended
           : c.broken && status == GRPC_STATUS_OK ? GRPC_STATUS_CANCELLED
                                                    : status,
           status == GRPC_STATUS_OK ? sink.result : -1, wk__monotonic_s() - t0, sink.message);

    if (payload)
        grpc_byte_buffer_destroy(payload);
    gpr_free(c.method);
    grpc_call_unref(slot->call);
    grpc_call_details_destroy(&slot->details);
    grpc_metadata_array_destroy(&slot->metadata);
}
