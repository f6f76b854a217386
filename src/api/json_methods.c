/* json_methods.c — the RPC methods worldkit serves, by gRPC path, with their
 * request and response types, read from the service descriptors protoc-c
 * generates. A new service is one line of the table. */
#include <string.h>

#include "grpc/health/v1/health.pb-c.h"
#include "intrinsic/world/proto/object_world_service.pb-c.h"
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/levels.pb-c.h"
#include "worldkit/watch.pb-c.h"
#include "worldkit/wk_api.h"

static const ProtobufCServiceDescriptor *const services[] = {
    &simulation_interfaces__simulation_interfaces__descriptor,
    &intrinsic_proto__world__object_world_service__descriptor,
    &worldkit__levels__descriptor,
    &grpc__health__v1__health__descriptor,
    &worldkit__world_watch__descriptor,
};
#define SERVICE_COUNT (sizeof services / sizeof services[0])

static void fill(const ProtobufCServiceDescriptor *s, unsigned i, wk_json_method *m)
{
    *m = (wk_json_method){.service = s->name,
                          .name = s->methods[i].name,
                          .input = s->methods[i].input,
                          .output = s->methods[i].output};
}

bool wk_json_method_at(size_t i, wk_json_method *m)
{
    for (size_t s = 0; s < SERVICE_COUNT; s++) {
        if (i < services[s]->n_methods) {
            fill(services[s], (unsigned)i, m);
            return true;
        }
        i -= services[s]->n_methods;
    }
    return false;
}

int wk_json_find_method(const char *path, wk_json_method *m, wk_status *st)
{
    const char *p = path[0] == '/' ? path + 1 : path;
    const char *slash = strrchr(p, '/');
    const char *name = slash ? slash + 1 : p;
    size_t service_len = slash ? (size_t)(slash - p) : 0;
    int found = 0;
    for (size_t s = 0; s < SERVICE_COUNT; s++) {
        const ProtobufCServiceDescriptor *d = services[s];
        if (slash) {
            bool full = strlen(d->name) == service_len && !strncmp(d->name, p, service_len);
            bool short_name = strlen(d->short_name) == service_len && !strncmp(d->short_name, p, service_len);
            if (!full && !short_name)
                continue;
        }
        const ProtobufCMethodDescriptor *md = protobuf_c_service_descriptor_get_method_by_name(d, name);
        if (!md)
            continue;
        if (found++)
            return wk_fail(st, WK_INVALID, "%s: more than one service has this method; name the service, as %s/%s",
                           path, d->name, name);
        fill(d, (unsigned)(md - d->methods), m);
    }
    if (!found)
        return wk_fail(st, WK_NOT_FOUND, "%s: no such method", path);
    return WK_OK;
}
