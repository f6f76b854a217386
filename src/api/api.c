/* api.c — the service endpoint: its world, the table of services, and one
 * call from request bytes to response bytes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"

typedef int (*handler_fn)(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response);

static const struct service {
    const char *name;
    const ProtobufCMessageDescriptor *request;
    handler_fn handle;
} services[] = {
    {"LoadWorld", &simulation_interfaces__load_world_request__descriptor, wk__load_world},
    {"SpawnEntities", &simulation_interfaces__spawn_entities_request__descriptor, wk__spawn_entities},
};

void *wk__call_alloc(wk__call *call, size_t size)
{
    if (call->count == call->cap) {
        size_t cap = call->cap ? call->cap * 2 : 16;
        void **blocks = realloc(call->blocks, cap * sizeof *blocks);
        if (!blocks) {
            call->failed = true;
            return NULL;
        }
        call->blocks = blocks;
        call->cap = cap;
    }
    void *p = calloc(1, size ? size : 1);
    if (!p) {
        call->failed = true;
        return NULL;
    }
    return call->blocks[call->count++] = p;
}

char *wk__call_strdup(wk__call *call, const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = wk__call_alloc(call, n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

SimulationInterfaces__Result *wk__call_result(wk__call *call, uint32_t code, const char *fmt, ...)
{
    SimulationInterfaces__Result *r = wk__call_alloc(call, sizeof *r);
    char message[WK_STATUS_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (!r)
        return NULL;
    simulation_interfaces__result__init(r);
    r->has_result = true;
    r->result = code;
    r->error_message = wk__call_strdup(call, message);
    return r;
}

uint32_t wk__map_code(const wk__code_map *map, int code)
{
    for (; map->code; map++)
        if (map->code == code)
            return map->result;
    return WK_RESULT_OPERATION_FAILED;
}

int wk__api_set_world(wk_api *api, wk_world_desc *desc, wk_status *st)
{
    int rc = desc ? WK_OK
                  : wk_desc_read(&(wk_read_desc){.resource_string = "<sdf version='1.9'><world name='default'/></sdf>"},
                                 &desc, st);
    wk_sim *sim = NULL;
    if (rc == WK_OK)
        rc = wk_sim_new(desc, NULL, &sim, st);
    if (rc)
        return rc;
    wk_sim_free(api->sim);
    api->sim = sim;
    return WK_OK;
}

wk_api *wk_api_new(void)
{
    wk_api *api = calloc(1, sizeof *api);
    wk_status st;
    if (api && wk__api_set_world(api, NULL, &st)) {
        free(api);
        return NULL;
    }
    return api;
}

void wk_api_free(wk_api *api)
{
    if (!api)
        return;
    wk_sim_free(api->sim);
    free(api);
}

wk_scene *wk_api_scene(wk_api *api)
{
    return wk_sim_scene(api->sim);
}

wk_entity wk_api_world(const wk_api *api)
{
    return wk_sim_world(api->sim);
}

int wk_api_call(wk_api *api, const char *service, const uint8_t *request, size_t len, wk_buf *out)
{
    const struct service *s = NULL;
    for (size_t i = 0; i < sizeof services / sizeof services[0] && !s; i++)
        if (!strcmp(services[i].name, service))
            s = &services[i];
    if (!s)
        return WK_NOT_FOUND;
    ProtobufCMessage *req = protobuf_c_message_unpack(s->request, NULL, len, request);
    if (!req)
        return WK_PARSE;
    wk__call call = {0};
    ProtobufCMessage *response = NULL;
    int rc = s->handle(api, &call, req, &response);
    if (rc == WK_OK && (call.failed || !response))
        rc = WK_NOMEM;
    if (rc == WK_OK) {
        size_t size = protobuf_c_message_get_packed_size(response);
        rc = wk_buf_reserve(out, size);
        if (rc == WK_OK)
            out->len += protobuf_c_message_pack(response, out->data + out->len);
    }
    for (size_t i = 0; i < call.count; i++)
        free(call.blocks[i]);
    free(call.blocks);
    protobuf_c_message_free_unpacked(req, NULL);
    return rc;
}
