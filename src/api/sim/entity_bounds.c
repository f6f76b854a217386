/* entity_bounds.c — GetEntityBounds: the bounds of an entity's collision
 * geometry in the entity's own frame (bounds.c says how each shape is
 * bounded). The standard answers TYPE_BOX "unless there is a configuration
 * parameter for the simulator to control the type": worldkit's is
 * wk_api_set_bounds_type, which can ask for TYPE_SPHERE or
 * TYPE_CONVEX_HULL instead. */
#include <stdio.h>

#include "api/sim/entity_query.h"

int wk_api_set_bounds_type(wk_api *api, uint32_t type)
{
    if (type != WK_BOUNDS_TYPE_BOX && type != WK_BOUNDS_TYPE_SPHERE && type != WK_BOUNDS_TYPE_CONVEX_HULL)
        return WK_INVALID;
    api->bounds_type = type;
    return WK_OK;
}

SimulationInterfaces__Bounds *wk__msg_bounds(wk__call *call, const wk__hull *h, uint32_t type, bool unbounded)
{
    SimulationInterfaces__Bounds *b = wk__call_alloc(call, sizeof *b);
    if (!b)
        return NULL;
    simulation_interfaces__bounds__init(b);
    b->has_type = true;
    b->type = unbounded ? WK_BOUNDS_TYPE_EMPTY : type;
    if (unbounded)
        return b;
    size_t n = type == WK_BOUNDS_TYPE_CONVEX_HULL ? h->count : 2;
    b->points = wk__call_alloc(call, n * sizeof *b->points);
    if (!b->points)
        return NULL;
    b->n_points = n;
    if (type == WK_BOUNDS_TYPE_BOX) {
        /* "upper right and lower left corners", in that order. */
        b->points[0] = wk__msg_vec3(call, h->hi);
        b->points[1] = wk__msg_vec3(call, h->lo);
    } else if (type == WK_BOUNDS_TYPE_SPHERE) {
        b->points[0] = wk__msg_vec3(call, h->center);
        b->points[1] = wk__msg_vec3(call, (wk_vec3){h->radius, 0, 0});
    } else {
        for (size_t i = 0; i < n; i++)
            b->points[i] = wk__msg_vec3(call, h->points[i]);
    }
    return b;
}

int wk__get_entity_bounds(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__GetEntityBoundsRequest *req = (const void *)request;
    SimulationInterfaces__GetEntityBoundsResponse *resp = (void *)*response;
    const char *name = req->entity ? req->entity : "";
    wk_entity e = wk__api_named(api, call, name, &resp->result);
    if (!e)
        return WK_OK;
    wk__hull h;
    char why[WK_STATUS_MSG_MAX] = "";
    int kind = wk__hull_of(api, e, e, &h, why, sizeof why);
    if (kind < 0)
        return kind;
    if (kind == WK__UNKNOWN) {
        resp->result = wk__call_result(call, WK_RESULT_OPERATION_FAILED, "entity '%s': %s", name, why);
        return WK_OK;
    }
    uint32_t type = api->bounds_type ? api->bounds_type : WK_BOUNDS_TYPE_BOX;
    resp->bounds = wk__msg_bounds(call, &h, type, kind == WK__UNBOUNDED);
    resp->result = kind == WK__UNBOUNDED
                       ? wk__call_result(call, WK_RESULT_OK, "entity '%s' has a plane: it is unbounded", name)
                   : *why ? wk__call_result(call, WK_RESULT_OK, "entity '%s': %s", name, why)
                          : wk__call_result(call, WK_RESULT_OK, "%s", "");
    wk__hull_free(&h);
    return WK_OK;
}
