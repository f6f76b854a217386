/* worlds.c — UnloadWorld, GetCurrentWorld and GetAvailableWorlds, and what
 * having no world means for the other services.
 *
 * An endpoint starts with an empty world called "default" loaded. UnloadWorld
 * swaps the world for an empty one and marks the endpoint as holding none:
 * GetSimulationState then reports STATE_NO_WORLD, UnloadWorld and
 * GetCurrentWorld answer NO_WORLD_LOADED, and every service that acts on a
 * world answers INCORRECT_STATE until LoadWorld loads one. LoadWorld,
 * GetAvailableWorlds, GetSpawnables and GetSimulatorFeatures work either way.
 *
 * GetAvailableWorlds lists the world files in the folders of the resource
 * path (formats/assets.c's: WORLDKIT_RESOURCE_PATH, GZ_SIM_RESOURCE_PATH,
 * SDF_PATH), a few levels deep, and in the request's additional sources
 * (folders or files, as paths or file:// URIs). A world file is an SDFormat
 * file (.sdf, .world) whose <sdf> holds a <world>, or an MJCF file (.xml,
 * .mjcf) whose root is <mujoco>; a URDF describes a robot, not a world.
 * Worlds carry no tags (no format worldkit reads has them), so a tags
 * filter that names any tag matches none, and WORLD_TAGS is not claimed.
 * worldkit fetches nothing remote: with offline_only a remote source is
 * skipped, without it it is a source that failed. A folder of the resource
 * path that cannot be read fails with DEFAULT_SOURCES_FAILED, a named source
 * with OPERATION_FAILED; with continue_on_error the search goes on and
 * succeeds when any world was found, the failures named in the message. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/sim/entity_query.h"
#include "api/methods.h"
#include "api/sim/sources.h"

void wk__api_world_loaded(wk_api *api, const char *uri)
{
    api->unloaded = false;
    snprintf(api->world_uri, sizeof api->world_uri, "%s", uri ? uri : "");
}

bool wk__api_refuse_without_world(wk_api *api, wk__call *call, const wk__method *m, ProtobufCMessage *response)
{
    if (!api->unloaded || (m->flags & WK__METHOD_ANY_WORLD))
        return false;
    wk__call_reply(response,
                   wk__call_result(call, WK_RESULT_INCORRECT_STATE,
                                   "no world is loaded (UnloadWorld removed it): %s needs one, LoadWorld first",
                                   m->name));
    return true;
}

static SimulationInterfaces__WorldResource *world_msg(wk__call *call, const char *name, const char *uri)
{
    SimulationInterfaces__WorldResource *w = wk__call_alloc(call, sizeof *w);
    SimulationInterfaces__Resource *r = wk__call_alloc(call, sizeof *r);
    if (!w || !r)
        return NULL;
    simulation_interfaces__world_resource__init(w);
    simulation_interfaces__resource__init(r);
    r->uri = wk__call_strdup(call, uri);
    w->name = wk__call_strdup(call, name);
    w->uri = r->uri;
    w->world_resource = r;
    return w;
}

int wk__unload_world(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)request;
    if (api->unloaded)
        return wk__call_reply(*response,
                              wk__call_result(call, WK_UNLOAD_WORLD_NO_WORLD_LOADED, "no world is loaded"));
    wk_status st = {0};
    char name[256];
    snprintf(name, sizeof name, "%s", wk_scene_name(wk_api_scene(api), wk_api_world(api)));
    int rc = wk__api_set_world(api, NULL, NULL, NULL, &st);
    if (rc)
        return wk__call_reply(*response,
                              wk__call_result(call, WK_RESULT_OPERATION_FAILED, "unloading '%s': %s", name, st.message));
    wk__api_world_loaded(api, "");
    api->unloaded = true;
    return wk__call_reply(*response, wk__call_result(call, WK_RESULT_OK, "%s", ""));
}

int wk__get_current_world(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)request;
    SimulationInterfaces__GetCurrentWorldResponse *resp = (void *)*response;
    if (api->unloaded) {
        resp->result = wk__call_result(call, WK_UNLOAD_WORLD_NO_WORLD_LOADED, "no world is loaded");
        return WK_OK;
    }
    const char *name = wk_scene_name(wk_api_scene(api), wk_api_world(api));
    resp->world = world_msg(call, name ? name : "", api->world_uri);
    resp->result = wk__call_result(call, WK_RESULT_OK, "%s", "");
    return WK_OK;
}

/* ---- GetAvailableWorlds -------------------------------------------------- */

typedef struct search {
    const wk_api *api;
    wk__call *call;
    wk__walks walks;
    const SimulationInterfaces__GetAvailableWorldsRequest *req;
    SimulationInterfaces__WorldResource **worlds;
    size_t count, cap;
    char (*seen)[PATH_MAX]; /* real paths of the worlds listed */
    uint32_t failure;       /* the first failure's code, or 0 */
    char message[WK_STATUS_MSG_MAX];
} search;

/* Records a failure; answers nonzero to stop the search unless it goes on
 * after errors. */
static int fail(search *s, uint32_t code, const char *fmt, const char *what)
{
    size_t used = strlen(s->message);
    snprintf(s->message + used, sizeof s->message - used, "%s", used ? "; " : "");
    used = strlen(s->message);
    snprintf(s->message + used, sizeof s->message - used, fmt, what);
    if (!s->failure)
        s->failure = code;
    return s->req->continue_on_error ? 0 : 1;
}

static bool has_extension(const char *path, const char *const *exts, size_t n)
{
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < n; i++)
        if (!strcasecmp(dot + 1, exts[i]))
            return true;
    return false;
}

/* The world's name when path is a world file, written to name; false when
 * it is not one. */
static bool world_file(const char *path, char *name, size_t cap)
{
    static const char *const exts[] = {"sdf", "world", "xml", "mjcf"};
    if (!has_extension(path, exts, sizeof exts / sizeof exts[0]))
        return false;
    xmlDocPtr doc = wk__read_xml(path);
    xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
    xmlNodePtr world = NULL;
    if (root && !strcmp((const char *)root->name, "sdf"))
        for (xmlNodePtr c = root->children; c && !world; c = c->next)
            if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, "world"))
                world = c;
    if (root && !strcmp((const char *)root->name, "mujoco"))
        world = root;
    if (world) {
        xmlChar *attr = xmlGetProp(world, (const xmlChar *)(world == root ? "model" : "name"));
        const char *slash = strrchr(path, '/');
        snprintf(name, cap, "%s", attr && attr[0] ? (const char *)attr : slash ? slash + 1 : path);
        xmlFree(attr);
    }
    xmlFreeDoc(doc);
    return world != NULL;
}

static int add_world(search *s, const char *path, const char *name)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    for (size_t i = 0; i < s->count; i++)
        if (!strcmp(s->seen[i], real))
            return 0; /* reached through two sources */
    if (!wk__tags_match(s->req->filter, NULL, 0))
        return 0; /* worlds have no tags */
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        SimulationInterfaces__WorldResource **w = wk__call_alloc(s->call, cap * sizeof *w);
        char(*seen)[PATH_MAX] = realloc(s->seen, cap * sizeof *seen);
        if (seen)
            s->seen = seen;
        if (!w || !seen)
            return -1;
        if (s->count)
            memcpy(w, s->worlds, s->count * sizeof *s->worlds);
        s->worlds = w;
        s->seen = seen;
        s->cap = cap;
    }
    snprintf(s->seen[s->count], PATH_MAX, "%s", real);
    s->worlds[s->count] = world_msg(s->call, name, path);
    return s->worlds[s->count++] ? 0 : -1;
}

static int visit(const char *path, bool is_dir, void *ctx)
{
    char name[256];
    return !is_dir && world_file(path, name, sizeof name) ? add_world(ctx, path, name) : 0;
}

static int default_source(const char *dir, void *ctx)
{
    if (!wk__is_dir(dir))
        return fail(ctx, WK_AVAILABLE_WORLDS_DEFAULT_SOURCES_FAILED,
                    "the resource path folder '%s' cannot be read", dir);
    return wk__walk(&((search *)ctx)->walks, dir, visit, ctx);
}

static int named_source(search *s, const char *uri)
{
    char path[PATH_MAX], name[256];
    wk__source why = wk__source_path(s->api, uri, path, sizeof path);
    if (why == WK__SOURCE_REMOTE && s->req->offline_only)
        return 0;
    if (why != WK__SOURCE_PATH)
        return fail(s, WK_RESULT_OPERATION_FAILED, wk__source_refusal(why), uri);
    if (wk__is_dir(path))
        return wk__walk(&s->walks, path, visit, s);
    if (world_file(path, name, sizeof name))
        return add_world(s, path, name);
    return fail(s, WK_RESULT_OPERATION_FAILED, "source '%s' is neither a folder nor a world file", uri);
}

int wk__get_available_worlds(wk_api *api, wk__call *call, const ProtobufCMessage *request,
                             ProtobufCMessage **response)
{
    const SimulationInterfaces__GetAvailableWorldsRequest *req = (const void *)request;
    SimulationInterfaces__GetAvailableWorldsResponse *resp = (void *)*response;
    search s = {.api = api, .call = call, .walks = {.call = call, .roots = api->roots, .left = WK__WALK_MAX}, .req = req};
    if (req->n_additional_sources > WK_SOURCES_MAX) {
        resp->result = wk__call_result(call, WK_RESULT_OPERATION_FAILED,
                                       "%zu additional_sources: at most %d per call", req->n_additional_sources,
                                       WK_SOURCES_MAX);
        return WK_OK;
    }
    if (!wk__tags_filter_valid(req->filter, s.message, sizeof s.message)) {
        resp->result = wk__call_result(call, WK_RESULT_OPERATION_FAILED, "%s", s.message);
        return WK_OK;
    }
    int rc = wk__resource_dirs(default_source, &s);
    for (size_t i = 0; rc == 0 && i < req->n_additional_sources && !wk__walks_over(&s.walks); i++)
        rc = named_source(&s, req->additional_sources[i] ? req->additional_sources[i] : "");
    free(s.seen);
    if (s.walks.over)
        return WK_DEADLINE;
    if (rc < 0)
        return WK_NOMEM;
    resp->worlds = s.worlds;
    resp->n_worlds = s.count;
    bool failed = s.failure && (!req->continue_on_error || s.count == 0);
    resp->result = wk__call_result(call, failed ? s.failure : WK_RESULT_OK, "%s", s.message);
    return WK_OK;
}
