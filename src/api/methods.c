/* methods.c — the registry: one row per RPC method of every service
 * worldkit serves (simulation_interfaces, ObjectWorldService, Intrinsic's
 * GeometryService, worldkit's levels, the health check), holding its handler, what it is (flags) and
 * the features it brings. Request and response types come from the service descriptors
 * protoc-c generates from proto/, so a row names its method only. The
 * router (invoke.c), the lock a method takes (api.c), the answer without a
 * world (sim/worlds.c) and GetSimulatorFeatures read these rows: a method is
 * served once it has one. */
#include <string.h>

#include "api/methods.h"
#include "api/ows/ows.h"
#include "grpc/health/v1/health.pb-c.h"
#include "intrinsic/geometry/proto/geometry_service.pb-c.h"
#include "worldkit/levels.pb-c.h"
#include "worldkit/watch.pb-c.h"

#define SI &simulation_interfaces__simulation_interfaces__descriptor
#define OWS &intrinsic_proto__world__object_world_service__descriptor
#define GEOMETRY &intrinsic_proto__geometry__geometry_service__descriptor
#define HEALTH &grpc__health__v1__health__descriptor
#define LEVELS &worldkit__levels__descriptor
/* A simulation_interfaces mutation: writes, all or nothing. */
#define MUTATES (WK__METHOD_SIM | WK__METHOD_WRITES | WK__METHOD_BATCH)
/* An ObjectWorldService mutation: one handler, the request type choosing
 * what it does, on the world the request names, opened for writing. */
#define OWS_MUTATION(name, flags) {OWS, name, wk__ows_mutate, WK__METHOD_OPENS | WK__METHOD_WRITES | (flags), 0, {0}}
#define WATCH &worldkit__world_watch__descriptor

static const wk__method methods[] = {
    {SI, "LoadWorld", wk__load_world, WK__METHOD_SIM | WK__METHOD_WRITES | WK__METHOD_ANY_WORLD | WK__METHOD_GROWS,
     2, {WK_FEATURE_WORLD_LOADING, WK_FEATURE_WORLD_RESOURCE_STRING}},
    {SI, "SpawnEntities", wk__spawn_entities, MUTATES | WK__METHOD_GROWS,
     1, {WK_FEATURE_SPAWNING_ENTITIES}},
    {SI, "GetSimulatorFeatures", wk__get_simulator_features, WK__METHOD_SIM | WK__METHOD_ANY_WORLD, 0, {0}},
    {SI, "GetSimulationState", wk__get_simulation_state, WK__METHOD_SIM | WK__METHOD_ANY_WORLD,
     1, {WK_FEATURE_SIMULATION_STATE_GETTING}},
    {SI, "SetSimulationState", wk__set_simulation_state, WK__METHOD_SIM | WK__METHOD_WRITES,
     2, {WK_FEATURE_SIMULATION_STATE_SETTING, WK_FEATURE_SIMULATION_STATE_PAUSE}},
    {SI, "StepSimulation", wk__step_simulation, WK__METHOD_SIM | WK__METHOD_WRITES,
     2, {WK_FEATURE_STEP_SIMULATION_SINGLE, WK_FEATURE_STEP_SIMULATION_MULTIPLE}},
    {SI, "SimulateSteps", wk__simulate_steps, WK__METHOD_SIM | WK__METHOD_WRITES | WK__METHOD_STREAMING,
     1, {WK_FEATURE_STEP_SIMULATION_ACTION}},
    {SI, "ResetSimulation", wk__reset_simulation, WK__METHOD_SIM | WK__METHOD_WRITES,
     4, {WK_FEATURE_SIMULATION_RESET, WK_FEATURE_SIMULATION_RESET_TIME, WK_FEATURE_SIMULATION_RESET_STATE,
      WK_FEATURE_SIMULATION_RESET_SPAWNED}},
    {SI, "GetEntityState", wk__get_entity_state, WK__METHOD_SIM, 1, {WK_FEATURE_ENTITY_STATE_GETTING}},
    {SI, "SetEntityState", wk__set_entity_state, MUTATES,
     1, {WK_FEATURE_ENTITY_STATE_SETTING}},
    {SI, "SpawnEntity", wk__spawn_entity, MUTATES | WK__METHOD_GROWS,
     2, {WK_FEATURE_SPAWNING, WK_FEATURE_SPAWNING_RESOURCE_STRING}},
    {SI, "DeleteEntity", wk__delete_entity, MUTATES, 1, {WK_FEATURE_DELETING}},
    {SI, "GetEntities", wk__get_entities, WK__METHOD_SIM,
     4, {WK_FEATURE_ENTITY_TAGS, WK_FEATURE_ENTITY_BOUNDS_BOX, WK_FEATURE_ENTITY_BOUNDS_CONVEX,
      WK_FEATURE_ENTITY_CATEGORIES}},
    {SI, "GetEntitiesStates", wk__get_entities_states, WK__METHOD_SIM, 0, {0}},
    {SI, "GetEntityInfo", wk__get_entity_info, WK__METHOD_SIM, 1, {WK_FEATURE_ENTITY_INFO_GETTING}},
    {SI, "SetEntityInfo", wk__set_entity_info, MUTATES,
     1, {WK_FEATURE_ENTITY_INFO_SETTING}},
    {SI, "GetEntityBounds", wk__get_entity_bounds, WK__METHOD_SIM, 1, {WK_FEATURE_ENTITY_BOUNDS}},
    {SI, "GetNamedPoses", wk__get_named_poses, WK__METHOD_SIM, 1, {WK_FEATURE_NAMED_POSES}},
    /* No POSE_BOUNDS: it answers every pose unbounded (sim/named_poses.c). */
    {SI, "GetNamedPoseBounds", wk__get_named_pose_bounds, WK__METHOD_SIM, 0, {0}},
    {SI, "GetSpawnables", wk__get_spawnables, WK__METHOD_SIM | WK__METHOD_ANY_WORLD | WK__METHOD_FILES,
     1, {WK_FEATURE_SPAWNABLES}},
    {SI, "UnloadWorld", wk__unload_world, WK__METHOD_SIM | WK__METHOD_WRITES | WK__METHOD_ANY_WORLD,
     1, {WK_FEATURE_WORLD_UNLOADING}},
    {SI, "GetCurrentWorld", wk__get_current_world, WK__METHOD_SIM | WK__METHOD_ANY_WORLD,
     1, {WK_FEATURE_WORLD_INFO_GETTING}},
    /* No WORLD_TAGS: worlds carry none (sim/worlds.c). */
    {SI, "GetAvailableWorlds", wk__get_available_worlds, WK__METHOD_SIM | WK__METHOD_ANY_WORLD | WK__METHOD_FILES,
     1, {WK_FEATURE_AVAILABLE_WORLDS}},

    {OWS, "GetWorld", wk__ows_get_world, 0, 0, {0}},
    {OWS, "ListWorlds", wk__ows_list_worlds, 0, 0, {0}},
    {OWS, "CreateWorld", wk__ows_create_world, WK__METHOD_WRITES | WK__METHOD_GROWS, 0, {0}},
    {OWS, "CloneWorld", wk__ows_clone_world, WK__METHOD_WRITES | WK__METHOD_GROWS, 0, {0}},
    {OWS, "DeleteWorld", wk__ows_delete_world, WK__METHOD_WRITES, 0, {0}},
    {OWS, "SwapWorld", wk__ows_swap_world, WK__METHOD_WRITES, 0, {0}},
    {OWS, "GetObject", wk__ows_get_object, WK__METHOD_OPENS, 0, {0}},
    {OWS, "ListObjects", wk__ows_list_objects, WK__METHOD_OPENS, 0, {0}},
    {OWS, "GetFrame", wk__ows_get_frame, WK__METHOD_OPENS, 0, {0}},
    {OWS, "ListFrames", wk__ows_list_frames, WK__METHOD_OPENS, 0, {0}},
    {OWS, "GetTransform", wk__ows_get_transform, WK__METHOD_OPENS, 0, {0}},
    {OWS, "GetCollisionSettings", wk__ows_get_collision_settings, WK__METHOD_OPENS, 0, {0}},
    {OWS, "CompareWorlds", wk__ows_compare_worlds, 0, 0, {0}},
    {OWS, "SyncObject", wk__ows_sync_object, WK__METHOD_WRITES | WK__METHOD_GROWS, 0, {0}},
    {OWS, "AreFootprintsCompatible", wk__ows_are_footprints_compatible, WK__METHOD_OPENS, 0, {0}},
    OWS_MUTATION("CreateObject", WK__METHOD_GROWS),
    OWS_MUTATION("DeleteObject", 0),
    OWS_MUTATION("UpdateObjectName", 0),
    OWS_MUTATION("ReparentObject", 0),
    OWS_MUTATION("UpdateObjectJoints", 0),
    OWS_MUTATION("UpdateKinematicObjectProperties", 0),
    OWS_MUTATION("UpdateObjectProperties", 0),
    OWS_MUTATION("UpdateEntityProperties", 0),
    OWS_MUTATION("CreateFrame", WK__METHOD_GROWS),
    OWS_MUTATION("DeleteFrame", 0),
    OWS_MUTATION("UpdateFrameName", 0),
    OWS_MUTATION("ReparentFrame", 0),
    OWS_MUTATION("UpdateFrameProperties", 0),
    OWS_MUTATION("UpdateTransform", 0),
    OWS_MUTATION("UpdateCollisionSettings", 0),
    OWS_MUTATION("ToggleCollisions", 0),
    {OWS, "UpdateWorldResources", wk__ows_update_world_resources,
     WK__METHOD_OPENS | WK__METHOD_WRITES | WK__METHOD_GROWS, 0, {0}},

    /* Intrinsic's geometry store: the store's, on no world
     * (ows/geometry_service.c). */
    {GEOMETRY, "CreateGeometry", wk__geometry_create, WK__METHOD_GROWS, 0, {0}},
    {GEOMETRY, "GetGeometry", wk__geometry_get, 0, 0, {0}},
    {GEOMETRY, "GetRenderable", wk__geometry_get_renderable, 0, 0, {0}},

    /* worldkit's own: levels and performers, on a simulation as above. */
    {LEVELS, "SetPerformer", wk__set_performer, MUTATES, 0, {0}},
    {LEVELS, "ListLevels", wk__list_levels, WK__METHOD_SIM, 0, {0}},
    {LEVELS, "ListPerformers", wk__list_performers, WK__METHOD_SIM, 0, {0}},

    /* worldkit's change stream: no simulation's lock, any store world. */
    {WATCH, "Watch", wk__watch, WK__METHOD_STREAMING, 0, {0}},

    {HEALTH, "Check", NULL, WK__METHOD_TRANSPORT, 0, {0}},
    {HEALTH, "Watch", NULL, WK__METHOD_TRANSPORT | WK__METHOD_STREAMING, 0, {0}},
};

#define METHOD_COUNT (sizeof methods / sizeof methods[0])

const wk__method *wk__method_at(size_t i)
{
    return i < METHOD_COUNT ? &methods[i] : NULL;
}

const wk__method *wk__method_named(const ProtobufCServiceDescriptor *service, const char *name)
{
    for (size_t i = 0; name && i < METHOD_COUNT; i++)
        if (methods[i].service == service && !strcmp(methods[i].name, name))
            return &methods[i];
    return NULL;
}

const wk__method *wk__method_find(const char *path)
{
    if (!path)
        return NULL;
    path += path[0] == '/';
    const char *slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    size_t len = (size_t)(slash - path);
    for (size_t i = 0; i < METHOD_COUNT; i++) {
        const char *service = methods[i].service->name;
        if (strlen(service) == len && !strncmp(service, path, len) && !strcmp(methods[i].name, slash + 1))
            return &methods[i];
    }
    return NULL;
}

static const ProtobufCMethodDescriptor *described(const wk__method *m)
{
    return protobuf_c_service_descriptor_get_method_by_name(m->service, m->name);
}

const ProtobufCMessageDescriptor *wk__method_request(const wk__method *m)
{
    return described(m)->input;
}

const ProtobufCMessageDescriptor *wk__method_response(const wk__method *m)
{
    /* The stream sends SimulateStepsUpdates, the handler answers the
     * result the last of them holds. */
    if (m->handle == wk__simulate_steps)
        return &simulation_interfaces__simulate_steps_result__descriptor;
    return described(m)->output;
}

int wk__method_unpack(const wk__method *m, const uint8_t *request, size_t len, ProtobufCMessage **out,
                      wk_status *st)
{
    const ProtobufCMessageDescriptor *type = wk__method_request(m);
    ProtobufCMessage *req = protobuf_c_message_unpack(type, NULL, len, request);
    char why[WK_STATUS_MSG_MAX] = "";
    if (!req || !wk__request_strings_clean(type, request, len, why, sizeof why)) {
        protobuf_c_message_free_unpacked(req, NULL);
        *out = NULL;
        return why[0] ? wk_fail(st, WK_PARSE, "%s: %s", m->name, why)
                      : wk_fail(st, WK_PARSE, "%s: the request does not parse as %s", m->name, type->name);
    }
    *out = req;
    return WK_OK;
}

size_t wk__method_features(uint32_t *out, size_t cap)
{
    /* Features are small numbers: mark them, then read them out in order. */
    bool seen[256] = {0};
    for (size_t i = 0; i < METHOD_COUNT; i++)
        for (size_t k = 0; k < methods[i].feature_count; k++)
            if (methods[i].features[k] < 256) /* msg/SimulatorFeatures' codes all are */
                seen[methods[i].features[k]] = true;
    size_t n = 0;
    for (uint32_t f = 0; f < 256; f++)
        if (seen[f] && n++ < cap)
            out[n - 1] = f;
    return n;
}
