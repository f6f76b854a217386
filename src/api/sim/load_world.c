/* load_world.c — the LoadWorld service: reads a world file or string and,
 * when it reads, replaces the current world (every entity, spawned ones too)
 * and leaves the simulation stopped. A world that fails to read changes
 * nothing (an endpoint without a world, after UnloadWorld, stays so). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"

static const wk__code_map load_world_codes[] = {
    {WK_UNSUPPORTED_FORMAT, WK_LOAD_WORLD_UNSUPPORTED_FORMAT},
    {WK_NO_RESOURCE, WK_LOAD_WORLD_NO_RESOURCE},
    {WK_PARSE, WK_LOAD_WORLD_RESOURCE_PARSE_ERROR},
    {WK_NOT_FOUND, WK_LOAD_WORLD_RESOURCE_PARSE_ERROR}, /* no such file */
    {WK_MISSING_ASSETS, WK_LOAD_WORLD_MISSING_ASSETS},
    {WK_UNSUPPORTED_ASSETS, WK_LOAD_WORLD_UNSUPPORTED_ASSETS},
    {WK_UNSUPPORTED_ELEMENTS, WK_LOAD_WORLD_UNSUPPORTED_ELEMENTS},
    {0, WK_RESULT_OPERATION_FAILED},
};

/* The absolute path of the file uri names (a path or a file:// URI), in
 * out (PATH_MAX bytes); NULL when it names none that exists. */
static const char *file_path(const char *uri, char *out)
{
    if (!uri || !*uri)
        return NULL;
    if (!strncmp(uri, "file://", 7))
        uri += 7;
    return realpath(uri, out);
}

int wk__load_world(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__LoadWorldRequest *req = (const void *)request;
    SimulationInterfaces__LoadWorldResponse *resp = (void *)*response;
    /* 2.1.0's world_resource, or the earlier fields when it is absent. */
    const SimulationInterfaces__Resource *res = req->world_resource;
    const char *uri = res ? res->uri : req->uri;
    wk_world_desc *desc = NULL;
    wk_status st = {0};
    int rc = wk_desc_read(&(wk_read_desc){.uri = uri,
                                          .resource_string = res ? res->resource_string : req->resource_string,
                                          .fail_on_unsupported_element = req->fail_on_unsupported_element,
                                          .ignore_missing_or_unsupported_assets =
                                              req->ignore_missing_or_unsupported_assets,
                                          .roots = api->roots,
                                          .over = wk__call_over_ctx,
                                          .over_ctx = call},
                          &desc, &st);
    char source[PATH_MAX] = "";
    if (rc == WK_OK)
        rc = wk__api_set_world(api, desc, file_path(uri, source), call, &st);
    /* A world read or made past the call's deadline changes nothing. */
    if (rc == WK_DEADLINE)
        return wk_fail(call->status, WK_DEADLINE, "LoadWorld: %s", st.message);
    if (rc) {
        resp->result = wk__call_result(call, wk__map_code(load_world_codes, rc), "%s", st.message);
        return WK_OK;
    }
    SimulationInterfaces__WorldResource *world = wk__call_alloc(call, sizeof *world);
    if (!world)
        return WK_NOMEM;
    simulation_interfaces__world_resource__init(world);
    world->name = wk__call_strdup(call, wk_scene_name(wk_api_scene(api), wk_api_world(api)));
    world->uri = wk__call_strdup(call, uri ? uri : "");
    resp->world = world;
    wk__api_world_loaded(api, uri);
    resp->result = wk__call_result(call, WK_RESULT_OK, "%s", "");
    return WK_OK;
}
