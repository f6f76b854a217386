/* invoke.c — the one entry a transport calls: a method's full gRPC path to
 * its row of the registry (methods.c), and the outcome as a gRPC status. A
 * method's own outcome (NOT_FOUND for an unknown entity, say) travels in its
 * response's Result with status OK for simulation_interfaces; a status
 * other than OK says the method did not run, or ran out of memory.
 * ObjectWorldService answers in statuses: its outcome is the status itself. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/methods.h"
#include "api/ows/ows.h"

bool wk_api_has_method(const char *method, bool *server_streaming)
{
    const wk__method *m = wk__method_find(method);
    bool served = m && m->handle;
    if (server_streaming)
        *server_streaming = served && (m->flags & WK__METHOD_STREAMING);
    return served;
}

bool wk_api_has_service(const char *service)
{
    for (size_t i = 0; service && wk__method_at(i); i++)
        if (wk__method_at(i)->handle && !strcmp(wk__method_at(i)->service->name, service))
            return true;
    return false;
}

static int answer(wk_api_sink *sink, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int answer(wk_api_sink *sink, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sink->message, sizeof sink->message, fmt, ap);
    va_end(ap);
    return sink->status = status;
}

/* The status for what a method's run returned: the check's answer as it
 * is (positive), a worldkit code through the code table. */
static int finish(wk_api_sink *sink, const char *path, int rc, const wk_status *st)
{
    if (rc == WK_GRPC_UNAVAILABLE)
        return answer(sink, rc, "%s: the server is shutting down", path);
    if (rc > 0)
        return answer(sink, rc, "%s did not run: the call was over when its turn came", path);
    if (rc == WK_PARSE)
        return answer(sink, WK_GRPC_INVALID_ARGUMENT, "%s: %s", path, st->message);
    if (rc)
        return answer(sink, wk_code_grpc(rc), "%s: %s", path, st->message[0] ? st->message : wk_strerror(rc));
    return answer(sink, WK_GRPC_OK, "%s", "");
}

/* Writes a packed SimulateStepsFeedback, or the SimulateStepsResult when
 * result, as the stream's message: a SimulateStepsUpdate holding it. */
static bool write_update(wk_api_sink *sink, bool result, const uint8_t *bytes, size_t len)
{
    SimulationInterfaces__SimulateStepsUpdate update = SIMULATION_INTERFACES__SIMULATE_STEPS_UPDATE__INIT;
    ProtobufCMessage *inner = protobuf_c_message_unpack(
        result ? &simulation_interfaces__simulate_steps_result__descriptor
               : &simulation_interfaces__simulate_steps_feedback__descriptor,
        NULL, len, bytes);
    if (!inner)
        return false;
    if (result) {
        update.update_case = SIMULATION_INTERFACES__SIMULATE_STEPS_UPDATE__UPDATE_RESULT;
        update.result = (SimulationInterfaces__SimulateStepsResult *)inner;
    } else {
        update.update_case = SIMULATION_INTERFACES__SIMULATE_STEPS_UPDATE__UPDATE_FEEDBACK;
        update.feedback = (SimulationInterfaces__SimulateStepsFeedback *)inner;
    }
    wk_buf out = {0};
    bool ok = wk_buf_reserve(&out, protobuf_c_message_get_packed_size(&update.base)) == WK_OK;
    if (ok) {
        out.len = protobuf_c_message_pack(&update.base, out.data);
        ok = sink->write(sink->ctx, out.data, out.len);
    }
    wk_buf_free(&out);
    protobuf_c_message_free_unpacked(inner, NULL);
    return ok;
}

static bool feedback(const uint8_t *bytes, size_t len, void *ctx)
{
    return write_update(ctx, false, bytes, len);
}

/* A simulation_interfaces method, on the simulation of the world the call
 * names: its answer, or its stream (SimulateSteps: a SimulateStepsUpdate
 * per step's feedback, then one holding the result). */
static int run_sim(wk_api *api, const wk__method *m, const char *path, const uint8_t *request, size_t len,
                   wk_api_sink *sink)
{
    wk_status st = {0};
    wk_api *world;
    int rc = wk__api_binding(api, sink->world_id, &world, &st);
    if (rc)
        return answer(sink, wk_code_grpc(rc), "%s: %s", path, st.message);
    bool stream = m->flags & WK__METHOD_STREAMING;
    wk_buf out = {0};
    rc = wk__api_dispatch(world, m, request, len, stream ? feedback : NULL, sink, sink->check, sink->ctx, &out,
                          &sink->result, &st);
    /* A receiver that is gone has nothing left to tell: the status is the
     * method's all the same. */
    if (rc == WK_OK && stream)
        (void)write_update(sink, true, out.data, out.len);
    else if (rc == WK_OK)
        (void)sink->write(sink->ctx, out.data, out.len);
    wk_buf_free(&out);
    return finish(sink, path, rc, &st);
}

/* An ObjectWorldService method. It takes no simulation's lock (the store
 * locks each world), so the check is asked just before it runs. */
static int run_ows(wk_api *api, const char *path, const uint8_t *request, size_t len, wk_api_sink *sink)
{
    int rc = sink->check ? sink->check(sink->ctx) : 0;
    if (rc > 0)
        return finish(sink, path, rc, NULL);
    wk_buf out = {0};
    wk_status st = {0};
    rc = wk__ows_call(api, path, request, len, sink->check, sink->ctx, &out, &st);
    if (rc == WK_OK)
        (void)sink->write(sink->ctx, out.data, out.len);
    wk_buf_free(&out);
    if (rc)
        return answer(sink, wk_code_grpc(rc), "%s", st.message[0] ? st.message : wk_strerror(rc));
    return answer(sink, WK_GRPC_OK, "%s", "");
}

/* A stream of worldkit's own (WorldWatch/Watch): no simulation's lock; the
 * handler writes its messages through the sink itself, holding no world
 * while it does, and what it returns ends the stream. */
static int run_stream(wk_api *api, const wk__method *m, const char *path, const uint8_t *request, size_t len,
                      wk_api_sink *sink)
{
    wk_status st = {0};
    ProtobufCMessage *req;
    int rc = wk__method_unpack(m, request, len, &req, &st);
    if (rc == WK_OK) {
        wk__call call = {
            .status = &st, .check = sink->check, .check_ctx = sink->ctx, .write = sink->write, .write_ctx = sink->ctx};
        ProtobufCMessage *response = NULL;
        rc = m->handle(api, &call, req, &response);
        protobuf_c_message_free_unpacked(req, NULL);
    }
    return finish(sink, path, rc, &st);
}

int wk_api_invoke(wk_api *api, const char *method, const uint8_t *request, size_t len, wk_api_sink *sink)
{
    const wk__method *m = wk__method_find(method);
    sink->result = -1;
    if (!m || !m->handle)
        return answer(sink, WK_GRPC_UNIMPLEMENTED, "no method %.200s", method ? method : "(null)");
    if (m->flags & WK__METHOD_SIM)
        return run_sim(api, m, method, request, len, sink);
    if (m->flags & WK__METHOD_STREAMING)
        return run_stream(api, m, method, request, len, sink);
    return run_ows(api, method, request, len, sink);
}
