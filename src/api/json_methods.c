/* json_methods.c — the RPC methods worldkit serves, by gRPC path, with their
 * request and response types, for the JSON doors (`worldkit call`, the
 * view's relay): the registry's rows (methods.c), so a method is listed
 * and callable by name exactly when it is served. */
#include <string.h>

#include "api/methods.h"

static void fill(const wk__method *row, wk_json_method *m)
{
    const ProtobufCMethodDescriptor *d = protobuf_c_service_descriptor_get_method_by_name(row->service, row->name);
    *m = (wk_json_method){.service = row->service->name, .name = row->name, .input = d->input, .output = d->output};
}

bool wk_json_method_at(size_t i, wk_json_method *m)
{
    const wk__method *row = wk__method_at(i);
    if (row)
        fill(row, m);
    return row != NULL;
}

/* Whether the service part of a path (len bytes, NULL: none given) names
 * service, by its full or its short name. */
static bool names_service(const char *p, size_t len, const ProtobufCServiceDescriptor *service)
{
    if (!p)
        return true;
    return (strlen(service->name) == len && !strncmp(service->name, p, len)) ||
           (strlen(service->short_name) == len && !strncmp(service->short_name, p, len));
}

int wk_json_find_method(const char *path, wk_json_method *m, wk_status *st)
{
    const char *p = path[0] == '/' ? path + 1 : path;
    const char *slash = strrchr(p, '/');
    const char *name = slash ? slash + 1 : p;
    int found = 0;
    const wk__method *row;
    for (size_t i = 0; (row = wk__method_at(i)); i++) {
        if (strcmp(row->name, name) || !names_service(slash ? p : NULL, slash ? (size_t)(slash - p) : 0, row->service))
            continue;
        if (found++)
            return wk_fail(st, WK_INVALID, "%s: more than one service has this method; name the service, as %s/%s",
                           path, row->service->name, name);
        fill(row, m);
    }
    if (!found)
        return wk_fail(st, WK_NOT_FOUND, "%s: no such method", path);
    return WK_OK;
}
