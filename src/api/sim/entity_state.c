/* entity_state.c — GetEntityState and SetEntityState: an entity's ground
 * truth pose, twist and acceleration. Get answers in the world frame; Set
 * reads them in the frame its header names (empty or "world": the world;
 * otherwise an entity, which may itself be moving) and applies only the
 * parts whose set_ flag is on, all or nothing. Twists and accelerations are
 * the kinematic motion system's Velocity and Acceleration (wk_sim.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/api_internal.h"

static bool is_zero(wk_vec3 v)
{
    return v.x == 0 && v.y == 0 && v.z == 0;
}

/* True when frame is e or lies under it, so that it would move with e. */
static bool moves_with(wk_api *api, wk_entity frame, wk_entity e)
{
    for (; frame; frame = wk_ecm_parent(wk_scene_ecm(wk_api_scene(api)), frame))
        if (frame == e)
            return true;
    return false;
}

SimulationInterfaces__EntityState *wk__msg_entity_state(wk_api *api, wk__call *call, const wk_motion *m)
{
    SimulationInterfaces__EntityState *s = wk__call_alloc(call, sizeof *s);
    SimulationInterfaces__Twist *twist = wk__call_alloc(call, sizeof *twist);
    SimulationInterfaces__Accel *acc = wk__call_alloc(call, sizeof *acc);
    if (!s || !twist || !acc)
        return NULL;
    simulation_interfaces__entity_state__init(s);
    simulation_interfaces__twist__init(twist);
    simulation_interfaces__accel__init(acc);
    twist->linear = wk__msg_vec3(call, m->linear);
    twist->angular = wk__msg_vec3(call, m->angular);
    acc->linear = wk__msg_vec3(call, m->linear_acc);
    acc->angular = wk__msg_vec3(call, m->angular_acc);
    s->header = wk__msg_header(call, wk_sim_time(api->sim), "world");
    s->pose = wk__msg_pose(call, m->pose);
    s->twist = twist;
    s->acceleration = acc;
    return s;
}

int wk__get_entity_state(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    const SimulationInterfaces__GetEntityStateRequest *req = (const void *)request;
    SimulationInterfaces__GetEntityStateResponse *resp = (void *)*response;
    wk_entity e = wk__api_named(api, call, req->entity ? req->entity : "", &resp->result);
    if (e) {
        wk_motion m = wk_sim_motion(api->sim, e);
        resp->state = wk__msg_entity_state(api, call, &m);
        resp->result = wk__call_result(call, WK_RESULT_OK, "%s", "");
    }
    return WK_OK;
}

static bool within_rate(wk_vec3 v)
{
    return fabs(v.x) <= WK_RATE_MAX && fabs(v.y) <= WK_RATE_MAX && fabs(v.z) <= WK_RATE_MAX;
}

/* Reads a twist's or an accel's linear and angular vectors; false when a
 * component is not finite or past WK_RATE_MAX. */
static bool read_vectors(const SimulationInterfaces__Vector3 *linear_msg,
                         const SimulationInterfaces__Vector3 *angular_msg, wk_vec3 *linear, wk_vec3 *angular)
{
    *linear = wk__msg_to_vec3(linear_msg);
    *angular = wk__msg_to_vec3(angular_msg);
    return within_rate(*linear) && within_rate(*angular);
}

/* Writes the parts the request sets into m, the entity's motion relative to
 * the frame (whose other parts stay: the pose is the twist's lever arm);
 * returns OK or a refusal, explained in why. */
static uint32_t requested(const SimulationInterfaces__SetEntityStateRequest *req, const char *name, wk_motion *m,
                          char *why, size_t cap)
{
    const SimulationInterfaces__EntityState *s = req->state;
    if (req->set_pose) {
        m->pose = wk__msg_to_pose(s ? s->pose : NULL);
        char problem[128];
        if (wk_pose_problem(m->pose, problem, sizeof problem))
            return snprintf(why, cap, "entity '%s': %s", name, problem), WK_SET_ENTITY_STATE_INVALID_POSE;
    }
    const SimulationInterfaces__Twist *twist = s ? s->twist : NULL;
    const SimulationInterfaces__Accel *acc = s ? s->acceleration : NULL;
    if (req->set_twist &&
        !read_vectors(twist ? twist->linear : NULL, twist ? twist->angular : NULL, &m->linear, &m->angular))
        return snprintf(why, cap, "entity '%s': a twist component is not finite or past +-%g", name, WK_RATE_MAX),
               WK_RESULT_OPERATION_FAILED;
    if (req->set_acceleration &&
        !read_vectors(acc ? acc->linear : NULL, acc ? acc->angular : NULL, &m->linear_acc, &m->angular_acc))
        return snprintf(why, cap, "entity '%s': an acceleration component is not finite or past +-%g", name,
                        WK_RATE_MAX),
               WK_RESULT_OPERATION_FAILED;
    return WK_RESULT_OK;
}

/* Checks the request and applies it, or writes why it cannot. */
static uint32_t set_state(wk_api *api, const void *request, char *why, size_t cap)
{
    const SimulationInterfaces__SetEntityStateRequest *req = request;
    const char *name = req->entity ? req->entity : "";
    const SimulationInterfaces__EntityState *s = req->state;
    const char *frame_name = s && s->header && s->header->frame_id ? s->header->frame_id : "";
    wk_entity e = wk__api_entity(api, name), frame = wk__api_frame(api, frame_name);
    if (!e)
        return wk__api_no_entity(api, name, why, cap);
    if (!frame)
        return snprintf(why, cap, "entity '%s': reference frame '%s' is not known to the world", name, frame_name),
               WK_RESULT_NOT_FOUND;
    if (moves_with(api, frame, e))
        return snprintf(why, cap, "entity '%s' cannot be set relative to '%s', which moves with it", name, frame_name),
               WK_RESULT_OPERATION_FAILED;
    wk_motion in_frame = wk_sim_motion(api->sim, frame);
    wk_motion now = wk_sim_motion(api->sim, e);
    wk_motion m = wk_motion_relative(&in_frame, &now);
    uint32_t code = requested(req, name, &m, why, cap);
    if (code != WK_RESULT_OK)
        return code;
    /* The standard refuses motion for a static entity, not a zero one. */
    bool moving = (req->set_twist && (!is_zero(m.linear) || !is_zero(m.angular))) ||
                  (req->set_acceleration && (!is_zero(m.linear_acc) || !is_zero(m.angular_acc)));
    wk_status st;
    if (moving && wk_sim_may_move(api->sim, e, name, &st))
        return snprintf(why, cap, "%s", st.message), WK_RESULT_OPERATION_FAILED;
    unsigned parts = (req->set_pose ? WK_MOTION_POSE : 0) | (req->set_twist ? WK_MOTION_TWIST : 0) |
                     (req->set_acceleration ? WK_MOTION_ACCELERATION : 0);
    if (parts && wk_sim_may_place(api->sim, e, name, &st))
        return snprintf(why, cap, "%s", st.message), WK_RESULT_OPERATION_FAILED;
    wk_motion world = wk_motion_compose(&in_frame, &m);
    /* The pose is kept relative to the entity's parent: within the bound
     * there too, as every ParentPose is. */
    char problem[128];
    wk_motion parent = wk_sim_motion(api->sim, wk_ecm_parent(wk_scene_ecm(wk_api_scene(api)), e));
    if (req->set_pose && wk_pose_problem(wk_pose_relative(parent.pose, world.pose), problem, sizeof problem))
        return snprintf(why, cap, "entity '%s': relative to its parent: %s", name, problem),
               WK_SET_ENTITY_STATE_INVALID_POSE;
    int rc = parts ? wk_sim_set_motion(api->sim, e, &world, parts) : WK_OK;
    if (rc)
        return snprintf(why, cap, "entity '%s': %s", name, wk_ecm_errmsg(wk_scene_ecm(wk_api_scene(api)))),
               WK_RESULT_OPERATION_FAILED;
    return WK_RESULT_OK;
}

int wk__set_entity_state(wk_api *api, wk__call *call, const ProtobufCMessage *request, ProtobufCMessage **response)
{
    return wk__call_change(api, call, request, *response, set_state);
}
