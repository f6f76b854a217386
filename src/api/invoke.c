/* invoke.c — the one entry a transport calls: a method's full gRPC path, in
 * one table, to the function that serves it, and the outcome as a gRPC
 * status. A method's own outcome (NOT_FOUND for an unknown entity, say)
 * travels in its response's Result with status OK; a status other than OK
 * says the method did not run, or ran out of memory.
 *
 * The simulation_interfaces methods are the api's own table of services
 * (api.c), each called by its wk_api_call name.
 * ObjectWorldService keeps its methods in a table of its own (ows.c), run
 * by ows_unary: its outcome is the gRPC status itself, as the service
 * answers in statuses, not in Results. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/ows.h"

struct method;
typedef int (*method_fn)(wk_api *api, const struct method *m, const uint8_t *request, size_t len,
                         wk_api_sink *sink);

static int unary(wk_api *api, const struct method *m, const uint8_t *request, size_t len, wk_api_sink *sink);
static int simulate_steps(wk_api *api, const struct method *m, const uint8_t *request, size_t len,
                          wk_api_sink *sink);

#define SI_SERVICE "simulation_interfaces.SimulationInterfaces"
#define SI_PREFIX "/" SI_SERVICE "/"

/* A simulation_interfaces method: every service of the api's table, at
 * SI_PREFIX + its name; SimulateSteps streams. */
typedef struct method {
    const char *path;
    method_fn serve;
    const char *name; /* the function's argument: wk_api_call's service name */
    bool streaming;   /* writes more than one message */
} method;

#define OWS_SERVICE "intrinsic_proto.world.ObjectWorldService"
#define OWS_PREFIX "/" OWS_SERVICE "/"

/* Whether path is a full path of an ObjectWorldService method. */
static bool is_ows(const char *path)
{
    return path && !strncmp(path, OWS_PREFIX, sizeof OWS_PREFIX - 1) && wk__ows_find_method(path);
}

/* Fills m for a simulation_interfaces method path; false for any other. */
static bool find(const char *path, method *m)
{
    if (!path || strncmp(path, SI_PREFIX, sizeof SI_PREFIX - 1) || !wk__api_has_service(path + sizeof SI_PREFIX - 1))
        return false;
    const char *name = path + sizeof SI_PREFIX - 1;
    bool streaming = !strcmp(name, "SimulateSteps");
    *m = (method){path, streaming ? simulate_steps : unary, name, streaming};
    return true;
}

bool wk_api_has_method(const char *method, bool *server_streaming)
{
    struct method m;
    bool si = find(method, &m), ows = !si && is_ows(method);
    if (server_streaming)
        *server_streaming = si && m.streaming;
    return si || ows;
}

bool wk_api_has_service(const char *service)
{
    return service && (!strcmp(service, OWS_SERVICE) || !strcmp(service, SI_SERVICE));
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

/* The status for what wk__api_dispatch returned: the check's answer as it
 * is (positive), a worldkit code through the code table. */
static int finish(wk_api_sink *sink, const struct method *m, int rc, const wk_status *st)
{
    if (rc > 0)
        return answer(sink, rc, "%s did not run: the call was over when its turn came", m->path);
    if (rc == WK_PARSE)
        return answer(sink, WK_GRPC_INVALID_ARGUMENT, "%s: %s", m->path, st->message);
    if (rc)
        return answer(sink, wk_code_grpc(rc), "%s: %s", m->path, wk_strerror(rc));
    return answer(sink, WK_GRPC_OK, "%s", "");
}

static int unary(wk_api *api, const struct method *m, const uint8_t *request, size_t len, wk_api_sink *sink)
{
    wk_buf out = {0};
    wk_status st = {0};
    int rc = wk__api_dispatch(api, m->name, request, len, NULL, NULL, sink->check, sink->ctx, &out, &st);
    /* A receiver that is gone has nothing left to tell: the status is the
     * method's all the same. */
    if (rc == WK_OK)
        (void)sink->write(sink->ctx, out.data, out.len);
    wk_buf_free(&out);
    return finish(sink, m, rc, &st);
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

static int simulate_steps(wk_api *api, const struct method *m, const uint8_t *request, size_t len,
                          wk_api_sink *sink)
{
    wk_buf out = {0};
    wk_status st = {0};
    int rc = wk__api_dispatch(api, m->name, request, len, feedback, sink, sink->check, sink->ctx, &out, &st);
    if (rc == WK_OK)
        (void)write_update(sink, true, out.data, out.len);
    wk_buf_free(&out);
    return finish(sink, m, rc, &st);
}

/* An ObjectWorldService method. It takes no endpoint lock (the store locks
 * each world), so the check is asked just before it runs. */
static int ows_unary(wk_api *api, const char *path, const uint8_t *request, size_t len, wk_api_sink *sink)
{
    int rc = sink->check ? sink->check(sink->ctx) : 0;
    if (rc > 0)
        return answer(sink, rc, "%s did not run: the call was over when its turn came", path);
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

int wk_api_invoke(wk_api *api, const char *method, const uint8_t *request, size_t len, wk_api_sink *sink)
{
    if (is_ows(method))
        return ows_unary(api, method, request, len, sink);
    struct method m;
    if (!find(method, &m))
        return answer(sink, WK_GRPC_UNIMPLEMENTED, "no method %.200s", method ? method : "(null)");
    wk_status st = {0};
    wk_api *world;
    int rc = wk__api_binding(api, sink->world_id, &world, &st);
    if (rc)
        return answer(sink, wk_code_grpc(rc), "%s: %s", m.path, st.message);
    return m.serve(world, &m, request, len, sink);
}
