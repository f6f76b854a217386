/* entity_info.c — GetEntityInfo and SetEntityInfo: an entity's category,
 * description and tags, kept in its EntityInfo component. An entity that
 * was never given one reports its default category (STATIC_OBJECT when
 * static, else OBJECT), no description and no tags. Any entity a name
 * reaches may carry info, scoped names and world-level frames included
 * (a frame's info is what GetNamedPoses reports). */
#include <stdio.h>

#include "api/sim/entity_query.h"

SimulationInterfaces__EntityCategory *wk__msg_category(wk__call *call, uint32_t category)
{
    SimulationInterfaces__EntityCategory *c = wk__call_alloc(call, sizeof *c);
    if (c) {
        simulation_interfaces__entity_category__init(c);
        c->has_category = true;
        c->category = category;
    }
    return c;
}

char **wk__msg_strings(wk__call *call, const char *const *strings, size_t n)
{
    char **out = wk__call_alloc(call, (n ? n : 1) * sizeof *out);
    for (size_t i = 0; out && i < n; i++)
        out[i] = wk__call_strdup(call, strings[i]);
    return out;
}

int wk__get_entity_info(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__GetEntityInfoRequest *req = (const void *)request;
    SimulationInterfaces__GetEntityInfoResponse *resp = (void *)*response;
    SimulationInterfaces__EntityInfo *info = wk__call_alloc(call, sizeof *info);
    if (!info)
        return WK_NOMEM;
    const char *name = req->entity ? req->entity : "";
    wk_entity e = wk__api_named(api, call, name, &resp->result);
    if (!e)
        return WK_OK;
    const wk_entity_info *stored = wk_scene_entity_info(wk_api_scene(api), e);
    simulation_interfaces__entity_info__init(info);
    info->category = wk__msg_category(call, wk__api_category(api, e));
    info->description = wk__call_strdup(call, stored ? stored->description : "");
    info->n_tags = stored ? stored->tag_count : 0;
    info->tags = wk__msg_strings(call, stored ? stored->tags : NULL, info->n_tags);
    resp->info = info;
    resp->result = wk__call_result(call, WK_RESULT_OK, "%s", "");
    return WK_OK;
}

/* Applies the request, or writes why it cannot. */
static uint32_t set_info(wk_api *api, const SimulationInterfaces__SetEntityInfoRequest *req, char *why, size_t cap)
{
    const char *name = req->entity ? req->entity : "";
    wk_entity e = wk__api_entity(api, name);
    if (!e)
        return wk__api_no_entity(api, name, why, cap);
    const SimulationInterfaces__EntityInfo *msg = req->info;
    /* An absent category is ROS's default: 0, CATEGORY_OBJECT. */
    uint32_t category = msg && msg->category ? msg->category->category : WK_CATEGORY_OBJECT;
    if (!wk_entity_category_valid(category))
        return snprintf(why, cap,
                        "entity '%s': %u is not an EntityCategory (OBJECT 0, ROBOT 1, HUMAN 2, DYNAMIC_OBJECT 4, "
                        "STATIC_OBJECT 5)",
                        name, category),
               WK_RESULT_OPERATION_FAILED;
    wk_entity_info info = {.category = category,
                           .description = msg ? msg->description : NULL,
                           .tags = msg ? (const char *const *)msg->tags : NULL,
                           .tag_count = msg ? (uint32_t)msg->n_tags : 0};
    wk_status st = {0};
    if (wk_scene_set_entity_info(wk_api_scene(api), e, &info, &st))
        return snprintf(why, cap, "entity '%s': %s", name, st.message), WK_RESULT_OPERATION_FAILED;
    return WK_RESULT_OK;
}

int wk__set_entity_info(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    char why[WK_STATUS_MSG_MAX] = "";
    uint32_t code = set_info(api, (const void *)request, why, sizeof why);
    return wk__call_reply(*response,
                          wk__call_result(call, code, "%s", why));
}
