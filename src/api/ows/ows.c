/* ows.c — ObjectWorldService's dispatcher: a method's row of the registry
 * (methods.c) found, its request unpacked, its response made, the world
 * its request names opened in the row's lock mode, its handler run, the
 * world closed and the answer packed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/methods.h"
#include "api/ows/ows.h"

const char *wk__ows_world_id(const ProtobufCMessage *request)
{
    const ProtobufCFieldDescriptor *f =
        protobuf_c_message_descriptor_get_field_by_name(request->descriptor, "world_id");
    const char *id = f ? *(char *const *)(const void *)((const char *)request + f->offset) : NULL;
    return id ? id : "";
}

/* Opens the world the request names for a row that says so. */
static int open_world(wk_api *api, const wk__method *m, const ProtobufCMessage *req, wk__call *call, wk_status *st)
{
    if (!(m->flags & WK__METHOD_OPENS))
        return WK_OK;
    const char *id = wk__ows_world_id(req);
    if (!*id)
        return wk_fail(st, WK_INVALID, "no world_id given");
    return wk_store_open(api->store, id, m->flags & WK__METHOD_WRITES, &call->world, st);
}

/* Runs the handler on the response the row's type gives, with the world
 * it acts on open, then what it left for once that world is closed. */
static int run(wk_api *api, const wk__method *m, const ProtobufCMessage *req, wk__call *call,
               ProtobufCMessage **response, wk_status *st)
{
    int rc = wk__api_memory_room(api, m, st);
    if (rc == WK_OK && !wk__call_response(call, wk__method_response(m), response))
        rc = wk_fail(st, WK_NOMEM, "%s: out of memory making the response", m->name);
    if (rc == WK_OK && (rc = open_world(api, m, req, call, st)) == WK_OK) {
        rc = m->handle(api, call, req, response);
        if (call->world)
            wk_store_close(call->world, false, false);
        call->world = NULL;
    }
    if (rc == WK_OK && call->after)
        rc = call->after(api, call, req, *response);
    if (rc == WK_OK && (call->failed || !*response))
        rc = wk_fail(st, WK_NOMEM, "%s: out of memory building the response", m->name);
    return rc;
}

int wk__ows_call(wk_api *api, const char *method, const uint8_t *request, size_t len, int (*check)(void *),
                 void *check_ctx, wk_buf *out, wk_status *st)
{
    const ProtobufCServiceDescriptor *service = &intrinsic_proto__world__object_world_service__descriptor;
    const char *slash = method ? strrchr(method, '/') : NULL;
    const wk__method *m = slash ? wk__method_find(method) : wk__method_named(service, method);
    /* A bare name is ObjectWorldService's; a path may name GeometryService's
     * methods too, which share this call's shape. */
    if (!m || !m->handle || (m->flags & (WK__METHOD_SIM | WK__METHOD_TRANSPORT)))
        return wk_fail(st, WK_NOT_FOUND, "ObjectWorldService has no method %.100s", method ? method : "(null)");
    ProtobufCMessage *req;
    if (wk__method_unpack(m, request, len, &req, st))
        return WK_PARSE;
    wk__call call = {.status = st, .check = check, .check_ctx = check_ctx, .store = api->store};
    ProtobufCMessage *response = NULL;
    wk_status_clear(st);
    int rc = run(api, m, req, &call, &response, st);
    size_t size = rc == WK_OK ? protobuf_c_message_get_packed_size(response) : 0;
    if (rc == WK_OK && (rc = wk__api_response_room(api, m, size, st)) == WK_OK) {
        rc = wk_buf_reserve(out, size);
        if (rc == WK_OK)
            out->len += protobuf_c_message_pack(response, out->data + out->len);
        else
            wk_fail(st, rc, "%s: out of memory packing the response", m->name);
    }
    for (size_t i = 0; i < call.count; i++)
        free(call.blocks[i]);
    free(call.blocks);
    protobuf_c_message_free_unpacked(req, NULL);
    return rc;
}
