/* api_call.h — calling the api layer's services the way a client does:
 * pack a protobuf request, call by service name, unpack the response. */
#ifndef WK_TEST_API_CALL_H
#define WK_TEST_API_CALL_H

#include <stdio.h>
#include <stdlib.h>

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

/* An endpoint on a store on disk, in a new folder made from dir (a
 * mkdtemp template); NULL when either fails. */
static inline wk_api *api_on_disk(char *dir)
{
    wk_store *store;
    wk_status st;
    if (!mkdtemp(dir) || wk_store_open_dir(dir, &store, &st))
        return NULL;
    return wk_api_new_desc(&(wk_api_desc){.store = store});
}

/* Removes the folder api_on_disk made, and all in it; 0 when it did. */
static inline int remove_dir(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
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

/* The code of a response's Result (999 when the call or the Result is
 * missing), its message copied to msg when msg is not NULL; frees it. */
static inline uint32_t result_code(void *response, const SimulationInterfaces__Result *result, char *msg)
{
    uint32_t code = response && result ? result->result : 999;
    if (msg)
        snprintf(msg, 256, "%s", result && result->error_message ? result->error_message : "");
    free_response(response);
    return code;
}

/* Calls a service whose response is a Result as field 1 (SetSimulationState,
 * StepSimulation, SimulateSteps, ResetSimulation, SetEntityState): its code
 * and message. */
static inline uint32_t call_code(wk_api *api, const char *service, const ProtobufCMessage *request, char *msg)
{
    /* These responses share one layout: a Result at field 1. */
    SimulationInterfaces__SetEntityStateResponse *resp = (SimulationInterfaces__SetEntityStateResponse *)call_service(
        api, service, request, &simulation_interfaces__set_entity_state_response__descriptor);
    return result_code(resp, resp ? resp->result : NULL, msg);
}

static inline uint32_t set_state(wk_api *api, uint32_t target, char *msg)
{
    SimulationInterfaces__SimulationState state = SIMULATION_INTERFACES__SIMULATION_STATE__INIT;
    state.has_state = true;
    state.state = target;
    SimulationInterfaces__SetSimulationStateRequest req = SIMULATION_INTERFACES__SET_SIMULATION_STATE_REQUEST__INIT;
    req.state = &state;
    return call_code(api, "SetSimulationState", &req.base, msg);
}

/* The state GetSimulationState reports, or 999. */
static inline uint32_t get_state(wk_api *api)
{
    SimulationInterfaces__GetSimulationStateRequest req = SIMULATION_INTERFACES__GET_SIMULATION_STATE_REQUEST__INIT;
    const ProtobufCMessageDescriptor *type = &simulation_interfaces__get_simulation_state_response__descriptor;
    SimulationInterfaces__GetSimulationStateResponse *resp =
        (SimulationInterfaces__GetSimulationStateResponse *)call_service(api, "GetSimulationState", &req.base, type);
    bool ok = resp && resp->state && resp->result && resp->result->result == WK_RESULT_OK;
    uint32_t state = ok ? resp->state->state : 999;
    free_response(resp);
    return state;
}

static inline uint32_t step_simulation(wk_api *api, uint64_t steps, char *msg)
{
    SimulationInterfaces__StepSimulationRequest req = SIMULATION_INTERFACES__STEP_SIMULATION_REQUEST__INIT;
    req.has_steps = true;
    req.steps = steps;
    return call_code(api, "StepSimulation", &req.base, msg);
}

static inline wk_vec3 vec3_of(const SimulationInterfaces__Vector3 *v)
{
    return v ? (wk_vec3){v->x, v->y, v->z} : (wk_vec3){0, 0, 0};
}

/* GetEntityState: its code, and the state in the world frame in *m. */
static inline uint32_t get_entity(wk_api *api, const char *name, wk_motion *m, char *msg)
{
    SimulationInterfaces__GetEntityStateRequest req = SIMULATION_INTERFACES__GET_ENTITY_STATE_REQUEST__INIT;
    req.entity = (char *)name;
    SimulationInterfaces__GetEntityStateResponse *resp = (SimulationInterfaces__GetEntityStateResponse *)call_service(
        api, "GetEntityState", &req.base, &simulation_interfaces__get_entity_state_response__descriptor);
    const SimulationInterfaces__EntityState *s = resp ? resp->state : NULL;
    *m = (wk_motion){.pose = wk_pose_identity()};
    if (s && s->pose && s->pose->position && s->pose->orientation) {
        const SimulationInterfaces__Point *p = s->pose->position;
        const SimulationInterfaces__Quaternion *q = s->pose->orientation;
        m->pose = (wk_pose){{p->x, p->y, p->z}, {q->w, q->x, q->y, q->z}};
    }
    if (s && s->twist)
        m->linear = vec3_of(s->twist->linear), m->angular = vec3_of(s->twist->angular);
    if (s && s->acceleration)
        m->linear_acc = vec3_of(s->acceleration->linear), m->angular_acc = vec3_of(s->acceleration->angular);
    return result_code(resp, resp ? resp->result : NULL, msg);
}

/* A SetEntityState request with storage for all it points to. */
typedef struct entity_state_request {
    SimulationInterfaces__SetEntityStateRequest req;
    SimulationInterfaces__EntityState state;
    SimulationInterfaces__Header header;
    SimulationInterfaces__Pose pose;
    SimulationInterfaces__Point point;
    SimulationInterfaces__Quaternion quat;
    SimulationInterfaces__Twist twist;
    SimulationInterfaces__Accel acc;
    SimulationInterfaces__Vector3 v[4];
} entity_state_request;

static inline void vec3_set(SimulationInterfaces__Vector3 *msg, wk_vec3 v)
{
    simulation_interfaces__vector3__init(msg);
    msg->has_x = msg->has_y = msg->has_z = true;
    msg->x = v.x, msg->y = v.y, msg->z = v.z;
}

/* Fills r to set the parts (WK_MOTION_*) of m, given in frame, on name. */
static inline void entity_state_init(entity_state_request *r, const char *name, const char *frame, const wk_motion *m,
                                     unsigned parts)
{
    simulation_interfaces__set_entity_state_request__init(&r->req);
    simulation_interfaces__entity_state__init(&r->state);
    simulation_interfaces__header__init(&r->header);
    simulation_interfaces__pose__init(&r->pose);
    simulation_interfaces__point__init(&r->point);
    simulation_interfaces__quaternion__init(&r->quat);
    simulation_interfaces__twist__init(&r->twist);
    simulation_interfaces__accel__init(&r->acc);
    r->req.entity = (char *)name;
    r->header.frame_id = (char *)frame;
    r->point.has_x = r->point.has_y = r->point.has_z = true;
    r->point.x = m->pose.p.x, r->point.y = m->pose.p.y, r->point.z = m->pose.p.z;
    r->quat.has_x = r->quat.has_y = r->quat.has_z = r->quat.has_w = true;
    r->quat.w = m->pose.q.w, r->quat.x = m->pose.q.x, r->quat.y = m->pose.q.y, r->quat.z = m->pose.q.z;
    vec3_set(&r->v[0], m->linear);
    vec3_set(&r->v[1], m->angular);
    vec3_set(&r->v[2], m->linear_acc);
    vec3_set(&r->v[3], m->angular_acc);
    r->pose.position = &r->point;
    r->pose.orientation = &r->quat;
    r->twist.linear = &r->v[0], r->twist.angular = &r->v[1];
    r->acc.linear = &r->v[2], r->acc.angular = &r->v[3];
    r->state.header = &r->header;
    r->state.pose = &r->pose;
    r->state.twist = &r->twist;
    r->state.acceleration = &r->acc;
    r->req.state = &r->state;
    r->req.has_set_pose = r->req.has_set_twist = r->req.has_set_acceleration = true;
    r->req.set_pose = parts & WK_MOTION_POSE;
    r->req.set_twist = parts & WK_MOTION_TWIST;
    r->req.set_acceleration = parts & WK_MOTION_ACCELERATION;
}

/* SetEntityState of the parts of m, in frame: its code and message. */
static inline uint32_t set_entity(wk_api *api, const char *name, const char *frame, const wk_motion *m, unsigned parts,
                                  char *msg)
{
    entity_state_request r;
    entity_state_init(&r, name, frame, m, parts);
    return call_code(api, "SetEntityState", &r.req.base, msg);
}

/* A world with a model "box" (link "l") at the origin, stepping 10 ms. */
#define BOX_WORLD                                                                                         \
    "<sdf version='1.9'><world name='w'><physics name='p' type='ode'><max_step_size>0.01</max_step_size>" \
    "</physics><model name='box'><link name='l'/></model></world></sdf>"

static inline uint32_t load_string(wk_api *api, const char *sdf)
{
    SimulationInterfaces__LoadWorldRequest req = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    req.resource_string = (char *)sdf;
    SimulationInterfaces__LoadWorldResponse *resp = load_world(api, &req);
    return result_code(resp, resp ? resp->result : NULL, NULL);
}

/* An endpoint with the world in sdf loaded and paused, or NULL. */
static inline wk_api *paused_api(const char *sdf)
{
    wk_api *api = wk_api_new();
    if (api && (load_string(api, sdf) != WK_RESULT_OK || set_state(api, WK_SIM_PAUSED, NULL) != WK_RESULT_OK)) {
        wk_api_free(api);
        return NULL;
    }
    return api;
}

#endif
