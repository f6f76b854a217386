/* kinematics.c — ObjectWorldService's updates of kinematic objects as
 * wk_scene calls: UpdateObjectJoints (positions in radians for revolute
 * joints, limits, an order by joint names), UpdateObjectJoint, and
 * UpdateKinematicObjectProperties (named configurations, Cartesian limits,
 * the mounted payload and the IK solver key; what worldkit does not keep,
 * entity pose updates, is refused by name). Each runs inside its
 * caller's batch (batch.c). */
#include <string.h>

#include "api/ows/edit.h"

/* One JointLimitsUpdate as the scene's: each RepeatedDouble present must
 * hold count values. what names the message for errors. */
static int limits_of(wk__ows_edit *e, const IntrinsicProto__JointLimitsUpdate *msg, size_t count, const char *what,
                     wk_joint_limits_update *out)
{
    const struct {
        const char *name;
        const IntrinsicProto__RepeatedDouble *values;
        const double **dst;
    } fields[] = {
        {"min_position", msg->min_position, &out->min_position},
        {"max_position", msg->max_position, &out->max_position},
        {"max_velocity", msg->max_velocity, &out->max_velocity},
        {"max_acceleration", msg->max_acceleration, &out->max_acceleration},
        {"max_jerk", msg->max_jerk, &out->max_jerk},
        {"max_effort", msg->max_effort, &out->max_effort},
    };
    *out = (wk_joint_limits_update){0};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (!fields[i].values)
            continue;
        if (fields[i].values->n_values != count)
            return wk_fail(e->st, WK_INVALID, "%s.%s holds %zu values for %zu joints", what, fields[i].name,
                           fields[i].values->n_values, count);
        *fields[i].dst = fields[i].values->values;
    }
    return WK_OK;
}

int wk__ows_update_object_joints(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__UpdateObjectJointsRequest *req = (const void *)request;
    const char *name;
    int rc = wk__ows_edit_object(e, req->object, &name);
    if (rc)
        return rc;
    if (!req->n_joint_positions && !req->joint_application_limits && !req->joint_system_limits)
        return wk_fail(e->st, WK_INVALID,
                       "UpdateObjectJoints '%s': none of joint_positions, joint_application_limits and "
                       "joint_system_limits is set",
                       name);
    if (!wk_scene_kinematic_object(e->scene, e->node))
        return wk_fail(e->st, WK_PRECONDITION, "UpdateObjectJoints: object '%s' is not a kinematic object", name);
    /* Without names the values are for every joint, in order. */
    size_t count = req->n_joint_names ? req->n_joint_names : wk_scene_joint_count(e->scene, e->node);
    if (req->n_joint_positions && req->n_joint_positions != count)
        return wk_fail(e->st, WK_INVALID, "UpdateObjectJoints '%s': %zu joint positions for %zu %s", name,
                       req->n_joint_positions, count, req->n_joint_names ? "joint names" : "joints");
    wk_joint_limits_update application, system;
    if (req->joint_application_limits &&
        (rc = limits_of(e, req->joint_application_limits, count, "joint_application_limits", &application)))
        return wk__ows_context(e->st, rc, "UpdateObjectJoints '%s'", name);
    if (req->joint_system_limits && (rc = limits_of(e, req->joint_system_limits, count, "joint_system_limits", &system)))
        return wk__ows_context(e->st, rc, "UpdateObjectJoints '%s'", name);
    /* Limits change what the object may do; positions alone only move it. */
    e->pose_only = !req->joint_application_limits && !req->joint_system_limits;
    wk_joints_update update = {
        .names = req->n_joint_names ? (const char *const *)req->joint_names : NULL,
        .count = count,
        .positions = req->n_joint_positions ? req->joint_positions : NULL,
        .system = req->joint_system_limits ? &system : NULL,
        .application = req->joint_application_limits ? &application : NULL,
    };
    return wk_scene_update_joints(e->scene, e->node, &update, e->st);
}

int wk__ows_update_object_joint(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__UpdateObjectJointRequest *req = (const void *)request;
    e->pose_only = true;
    const char *name;
    int rc = wk__ows_edit_object(e, req->object, &name);
    if (rc)
        return rc;
    if (!req->joint_name || !*req->joint_name)
        return wk_fail(e->st, WK_INVALID, "UpdateObjectJoint '%s': joint_name is not set", name);
    if (!req->has_joint_position)
        return wk_fail(e->st, WK_INVALID, "UpdateObjectJoint '%s': joint_position of joint '%s' is not set", name,
                       req->joint_name);
    const char *names[1] = {req->joint_name};
    return wk_scene_set_joint_positions(e->scene, e->node, names, &req->joint_position, 1, e->st);
}

/* RobotKinematicsUpdate.ik_solver_key: every IK solver of the object keeps
 * its base and tip and takes the new key. */
static int replace_solver_keys(wk__ows_edit *e, const char *name, const char *key)
{
    const wk_kinematic_object *k = wk_scene_kinematic_object(e->scene, e->node);
    size_t n = k->ik_solver_count;
    if (!n)
        return wk_fail(e->st, WK_PRECONDITION,
                       "UpdateKinematicObjectProperties '%s': ik_solver_key given, but the object has no IK solver "
                       "to take it",
                       name);
    wk_ik_solver *solvers = wk__call_alloc(e->call, n * sizeof *solvers);
    if (!solvers)
        return wk_fail(e->st, WK_NOMEM, "out of memory updating the IK solvers of '%s'", name);
    for (size_t i = 0; i < n; i++)
        solvers[i] = (wk_ik_solver){(char *)key, k->ik_solvers[i].base, k->ik_solvers[i].tip};
    return wk_scene_set_ik_solvers(e->scene, e->node, solvers, n, e->st);
}

int wk__ows_update_kinematic_object_properties(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__UpdateKinematicObjectPropertiesRequest *req = (const void *)request;
    const char *name;
    int rc = wk__ows_edit_object(e, req->object, &name);
    if (rc)
        return rc;
    /* What worldkit does not keep is refused before anything changes. */
    if (req->robot_kinematics_update && req->robot_kinematics_update->robot_entity_updates)
        return wk_fail(e->st, WK_UNSUPPORTED,
                       "UpdateKinematicObjectProperties '%s': robot_kinematics_update.robot_entity_updates is not "
                       "supported (worldkit keeps joint limits, named joint configurations, Cartesian limits, the "
                       "mounted payload and IK solver keys)",
                       name);
    if (!wk_scene_kinematic_object(e->scene, e->node))
        return wk_fail(e->st, WK_PRECONDITION, "UpdateKinematicObjectProperties: object '%s' is not a kinematic object",
                       name);
    size_t n = req->n_named_joint_configurations_to_set;
    wk_joint_configuration_desc *set = n ? wk__call_alloc(e->call, n * sizeof *set) : NULL;
    if (n && !set)
        return wk_fail(e->st, WK_NOMEM, "out of memory updating the configurations of '%s'", name);
    for (size_t i = 0; i < n; i++) {
        const IntrinsicProto__World__NamedJointConfiguration *c = req->named_joint_configurations_to_set[i];
        set[i] = (wk_joint_configuration_desc){c->name ? c->name : "", c->joint_positions, c->n_joint_positions};
    }
    if (req->n_named_joint_configurations_to_remove || n) {
        rc = wk_scene_update_joint_configurations(
            e->scene, e->node, (const char *const *)req->named_joint_configurations_to_remove,
            req->n_named_joint_configurations_to_remove, set, n, e->st);
        if (rc)
            return wk__ows_context(e->st, rc, "UpdateKinematicObjectProperties '%s'", name);
    }
    rc = wk__ows_set_limits_and_payload(e->scene, e->node, req->cartesian_limits, req->mounted_payload, e->st);
    if (rc)
        return wk__ows_context(e->st, rc, "UpdateKinematicObjectProperties '%s'", name);
    if (req->robot_kinematics_update && req->robot_kinematics_update->ik_solver_key)
        return replace_solver_keys(e, name, req->robot_kinematics_update->ik_solver_key);
    return WK_OK;
}
