/* invoke.h — a method of the endpoint called in the process, as the
 * benchmarks call them: the request packed, the reply's bytes kept or
 * dropped, and the benchmark ended unless the call and its Result
 * succeeded (its Result too, when asked). Include after bench.h. */
#ifndef WK_BENCH_INVOKE_H
#define WK_BENCH_INVOKE_H

#include <stdbool.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>
#include <stdlib.h>

#include "worldkit/wk_api.h"

static bool invoke_keep(void *ctx, const uint8_t *msg, size_t len)
{
    wk_buf *out = ctx;
    if (!out)
        return true;
    out->len = 0;
    return wk_buf_append(out, msg, len) == WK_OK;
}

/* Calls method (its whole path) on world id (NULL: the current one) with
 * request, the reply's bytes in *out unless out is NULL; dies unless it
 * ran, and with check_result unless its Result (if any) is OK; returns the
 * call's time in ms, the packing not counted. */
static double bench_invoke(wk_api *api, const char *id, const char *method, const ProtobufCMessage *request,
                           wk_buf *out, bool check_result)
{
    size_t len = protobuf_c_message_get_packed_size(request);
    uint8_t *bytes = malloc(len ? len : 1);
    if (!bytes)
        die("out of memory");
    protobuf_c_message_pack(request, bytes);
    wk_api_sink sink = {.write = invoke_keep, .ctx = out, .world_id = id};
    double t0 = now_s();
    int status = wk_api_invoke(api, method, bytes, len, &sink);
    double ms = (now_s() - t0) * 1e3;
    free(bytes);
    if (status != WK_GRPC_OK)
        die("%s on %s: status %d: %s", method, id ? id : "the current world", status, sink.message);
    if (check_result && sink.result >= 0 && sink.result != WK_RESULT_OK)
        die("%s on %s: result %d: %s", method, id ? id : "the current world", sink.result, sink.message);
    return ms;
}

#endif
