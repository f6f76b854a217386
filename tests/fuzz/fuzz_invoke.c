/* fuzz_invoke.c — libFuzzer target for every request decoder a transport
 * reaches: the first byte picks a method of every service worldkit serves
 * (wk_json_method_at's order: simulation_interfaces, then
 * ObjectWorldService), the rest is its request, given to wk_api_invoke by
 * full gRPC path as the server gives it. The endpoint holds a loaded world
 * and a store world "w" made from the same SDFormat text, so that requests
 * naming its models reach past the lookups.
 *
 * Any bytes must give a status, never a crash, a hang or a leak; a unary
 * method writes one answer exactly when OK, a refusal says why, and a
 * refusal leaves world "w" byte for byte as it was. Seeds:
 * make_corpus_invoke.c. */
#include <stdlib.h>

#include "fuzz/invoke_world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Counts the messages; the receiver goes after the first, so that a
 * stream that lasts while its client reads (WorldWatch/Watch) ends. */
static bool count(void *ctx, const uint8_t *msg, size_t len)
{
    (void)msg, (void)len;
    ++*(int *)ctx;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t methods = fuzz_invoke_method_count();
    if (size == 0)
        return 0;
    char path[256];
    bool streaming = false;
    if (!fuzz_invoke_path(data[0] % methods, path, sizeof path))
        abort();
    bool served = wk_api_has_method(path, &streaming);
    wk_api *api = fuzz_invoke_world();
    if (!api)
        abort();
    wk_buf before = fuzz_world_state(api, "w");
    int writes = 0;
    wk_api_sink sink = {.write = count, .ctx = &writes};
    int status = wk_api_invoke(api, path, data + 1, size - 1, &sink);
    if (status < 0 || status > 16 || status != sink.status || (!served && status != WK_GRPC_UNIMPLEMENTED))
        abort();
    if (status == WK_GRPC_OK ? (streaming ? writes < 1 : writes != 1) : (writes != 0 || !sink.message[0]))
        abort();
    if (status != WK_GRPC_OK)
        fuzz_world_unchanged(api, "w", &before);
    wk_buf_free(&before);
    wk_api_free(api);
    return 0;
}
