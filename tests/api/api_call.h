/* api_call.h — calling the api layer's services the way a client does:
 * pack a protobuf request, call by service name, unpack the response. */
#ifndef WK_TEST_API_CALL_H
#define WK_TEST_API_CALL_H

#include <stdio.h>

#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_api.h"

/* Packs request, calls service, returns the unpacked response (free with
 * protobuf_c_message_free_unpacked) or NULL when the call itself failed. */
static inline ProtobufCMessage *call_service(wk_api *api, const char *service, const ProtobufCMessage *request,
                                             const ProtobufCMessageDescriptor *response_type)
{
    uint8_t *bytes = malloc(protobuf_c_message_get_packed_size(request) + 1);
    if (!bytes)
        return NULL;
    size_t len = protobuf_c_message_pack(request, bytes);
    wk_buf out = {0};
    int rc = wk_api_call(api, service, bytes, len, &out);
    free(bytes);
    ProtobufCMessage *response = rc ? NULL : protobuf_c_message_unpack(response_type, NULL, out.len, out.data);
    if (rc)
        fprintf(stderr, "    %s: %s\n", service, wk_code_name(rc));
    wk_buf_free(&out);
    return response;
}

static inline SimulationInterfaces__LoadWorldResponse *load_world(wk_api *api,
                                                                  const SimulationInterfaces__LoadWorldRequest *req)
{
    return (SimulationInterfaces__LoadWorldResponse *)call_service(
        api, "LoadWorld", &req->base, &simulation_interfaces__load_world_response__descriptor);
}

static inline SimulationInterfaces__SpawnEntitiesResponse *spawn_entities(
    wk_api *api, SimulationInterfaces__SpawnEntityRequest **entries, size_t n)
{
    SimulationInterfaces__SpawnEntitiesRequest req = SIMULATION_INTERFACES__SPAWN_ENTITIES_REQUEST__INIT;
    req.n_spawn_requests = n;
    req.spawn_requests = entries;
    return (SimulationInterfaces__SpawnEntitiesResponse *)call_service(
        api, "SpawnEntities", &req.base, &simulation_interfaces__spawn_entities_response__descriptor);
}

static inline void free_response(void *response)
{
    if (response)
        protobuf_c_message_free_unpacked(response, NULL);
}

#endif
