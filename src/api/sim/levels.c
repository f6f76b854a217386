/* levels.c — worldkit.Levels (proto/worldkit/levels.proto): Gazebo's
 * runtime performers (its set_performer service) and what a client needs
 * to see of levels, which simulation_interfaces has no word for: each
 * level's box, buffer, entities and whether it is loaded now, and the
 * performers. They act on the simulation of the world the call names, as
 * the simulation_interfaces handlers do, and answer a Result in band. */
#include <stdio.h>

#include "api/api_internal.h"
#include "worldkit/levels.pb-c.h"

int wk__set_performer(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const Worldkit__SetPerformerRequest *req = (const void *)request;
    Worldkit__SetPerformerResponse *resp = (void *)*response;
    const char *name = req->name ? req->name : "";
    char why[WK_STATUS_MSG_MAX];
    int rc = api->levels ? wk_sim_set_performer(api->sim, name) : 0;
    if (rc < 0)
        return rc;
    resp->has_added = true;
    resp->added = rc == 1;
    if (!api->levels)
        resp->result = wk__call_result(call, WK_RESULT_FEATURE_UNSUPPORTED, "%s",
                                       "the server runs without levels (serve --levels): performers load nothing");
    else if (resp->added)
        resp->result = wk__call_result(call, WK_RESULT_OK, "%s", "");
    else if (!wk_scene_child(wk_api_scene(api), wk_api_world(api), name))
        resp->result = wk__call_result(call, wk__api_no_entity(api, name, why, sizeof why),
                                       "%s (a performer is an entity directly under the world)", why);
    else
        resp->result = wk__call_result(call, WK_RESULT_OPERATION_FAILED, "'%s' is a performer already", name);
    return WK_OK;
}

static Worldkit__Level *level_msg(wk__call *call, const wk_level_info *info)
{
    Worldkit__Level *l = wk__call_alloc(call, sizeof *l);
    if (!l)
        return NULL;
    worldkit__level__init(l);
    l->name = (char *)info->name; /* only read while packing */
    l->center = wk__msg_vec3(call, info->center);
    l->size = wk__msg_vec3(call, info->size);
    l->has_buffer = l->has_loaded = true;
    l->buffer = info->buffer;
    l->loaded = info->loaded;
    l->n_entities = info->entity_count;
    l->entities = (char **)info->entities;
    return l;
}

int wk__list_levels(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)request;
    Worldkit__ListLevelsResponse *resp = (void *)*response;
    size_t n = wk_sim_level_count(api->sim);
    Worldkit__Level **levels = wk__call_alloc(call, n * sizeof *levels);
    if (!levels)
        return WK_NOMEM;
    wk_level_info info;
    for (size_t i = 0; wk_sim_level_info(api->sim, i, &info); i++)
        levels[i] = level_msg(call, &info);
    resp->n_levels = n;
    resp->levels = levels;
    resp->result = wk__call_result(call, WK_RESULT_OK, "%s", "");
    return WK_OK;
}

int wk__list_performers(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    (void)request;
    Worldkit__ListPerformersResponse *resp = (void *)*response;
    size_t n = wk_sim_performer_count(api->sim);
    Worldkit__Performer **performers = wk__call_alloc(call, n * sizeof *performers);
    if (!performers)
        return WK_NOMEM;
    for (size_t i = 0; i < n; i++) {
        wk_vec3 size;
        const char *name = wk_sim_performer(api->sim, i, &size);
        Worldkit__Performer *p = performers[i] = wk__call_alloc(call, sizeof *p);
        if (!p)
            return WK_NOMEM;
        worldkit__performer__init(p);
        p->name = (char *)name; /* only read while packing */
        p->size = wk__msg_vec3(call, size);
    }
    resp->n_performers = n;
    resp->performers = performers;
    resp->result = wk__call_result(call, WK_RESULT_OK, "%s", "");
    return WK_OK;
}
