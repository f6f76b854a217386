/* delete_entity.c — DeleteEntity, and SpawnEntity, the one-entity form of
 * SpawnEntities. The entities that can be deleted are those GetEntities
 * lists (models directly under the world, from the file or spawned); a part
 * of one (a scoped name such as "robot::arm") is refused, since removing a
 * link would leave its model's joints dangling. A model of the world file
 * comes back with a reset of STATE, as the file has it. */
#include <stdio.h>

#include "api/sim/entity_query.h"

static uint32_t delete_entity(wk_api *api, const char *name, char *why, size_t cap)
{
    wk_scene *s = wk_api_scene(api);
    wk_entity e = wk__api_entity(api, name);
    if (!e)
        return wk__api_no_entity(api, name, why, cap);
    const uint8_t *kind = wk_ecm_get(wk_scene_ecm(s), e, wk_scene_types_of(s)->kind);
    if (wk_ecm_parent(wk_scene_ecm(s), e) != wk_api_world(api) || !kind || *kind != WK_NODE_MODEL)
        return snprintf(why, cap, "'%s' is part of a model, not an entity of its own: delete its model", name),
               WK_RESULT_OPERATION_FAILED;
    /* ObjectWorldService's delete: the object world forgets it too. */
    wk_status st;
    if (wk_scene_delete_object(s, e, true, &st))
        return snprintf(why, cap, "entity '%s': %s", name, st.message), WK_RESULT_OPERATION_FAILED;
    return WK_RESULT_OK;
}

int wk__delete_entity(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__DeleteEntityRequest *req = (const void *)request;
    char why[WK_STATUS_MSG_MAX] = "";
    uint32_t code = delete_entity(api, req->entity ? req->entity : "", why, sizeof why);
    return wk__call_reply(*response,
                          wk__call_result(call, code, "%s", why));
}

int wk__spawn_entity(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    SimulationInterfaces__SpawnEntityRequest *entry = (SimulationInterfaces__SpawnEntityRequest *)request;
    SimulationInterfaces__SpawnEntitiesRequest many = SIMULATION_INTERFACES__SPAWN_ENTITIES_REQUEST__INIT;
    many.n_spawn_requests = 1;
    many.spawn_requests = &entry;
    ProtobufCMessage *inner = NULL;
    if (!wk__call_response(call, &simulation_interfaces__spawn_entities_response__descriptor, &inner))
        return WK_NOMEM;
    int rc = wk__spawn_entities(api, call, &many.base, &inner);
    if (rc)
        return rc;
    const SimulationInterfaces__SpawnEntitiesResponse *all = (const void *)inner;
    SimulationInterfaces__SpawnEntityResponse *resp = (void *)*response;
    if (all->n_results != 1)
        return WK_NOMEM;
    resp->result = all->results[0]->result;
    resp->entity_name = all->results[0]->entity_name;
    return WK_OK;
}
