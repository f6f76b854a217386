/* entities.c — UpdateEntityProperties as wk_scene calls: a
 * PhysicsComponent or GeometryComponent replacing the one an entity has
 * (the scene refuses to add one: FAILED_PRECONDITION, naming the entity and
 * its object), and the deprecated collision_action as a rule between the
 * entity and anything else. Runs inside its caller's batch (batch.c).
 * Also the readers of an entity's physics and kinematics components that
 * CreateWorld and CreateObject share. */
#include "api/ows/edit.h"

wk_kinematics wk__ows_kinematics_in(const IntrinsicProto__World__KinematicsComponent *m)
{
    return (wk_kinematics){
        .parent_t_inboard = wk__ows_pose_in(m->parent_t_inboard),
        .axis = m->axis ? (wk_vec3){m->axis->x, m->axis->y, m->axis->z} : (wk_vec3){0, 0, 1},
        .position = m->has_raw_value ? m->raw_value : 0,
        .motion = m->has_motion_type ? (uint32_t)m->motion_type : WK_JOINT_MOTION_UNDEFINED,
    };
}

int wk__ows_physics_in(const IntrinsicProto__World__PhysicsComponent *msg, wk_physics *out, wk_status *st)
{
    *out = (wk_physics){.mass_kg = msg->mass_kg, .contact_kp = msg->contact_kp, .contact_kd = msg->contact_kd};
    out->this_T_com = wk__ows_pose_in(msg->this_t_center_of_mass);
    int rc = msg->inertia ? wk__ows_inertia_in(msg->inertia, "physics_component.inertia", out->inertia, st) : WK_OK;
    if (rc)
        return rc;
    if (msg->friction) {
        const IntrinsicProto__World__Friction *f = msg->friction;
        out->friction = (wk_friction){f->mu, f->mu2, f->slip1, f->slip2, {0, 0, 0}};
        if (f->fdir1)
            out->friction.fdir1 = (wk_vec3){f->fdir1->x, f->fdir1->y, f->fdir1->z};
    }
    if (msg->torsional) {
        const IntrinsicProto__World__Torsional *t = msg->torsional;
        out->torsional = (wk_torsional){t->coefficient, t->use_patch_radius, t->patch_radius, t->surface_radius,
                                        t->ode_slip};
    }
    return WK_OK;
}

int wk__ows_update_entity_properties(wk__ows_edit *e, const ProtobufCMessage *request)
{
    const IntrinsicProto__World__UpdateEntityPropertiesRequest *req = (const void *)request;
    int rc = wk__ows_find_filtered_one(e->scene, e->call, req->entity, &e->node, e->st);
    if (rc)
        return wk__ows_context(e->st, rc, "UpdateEntityProperties: entity");
    const char *name = wk_scene_name(e->scene, e->node);
    const char *object = wk_scene_object_info(e->scene, wk_scene_object_of(e->scene, e->node))->name;
    if (req->physics_component) {
        wk_physics physics;
        if ((rc = wk__ows_physics_in(req->physics_component, &physics, e->st)) ||
            (rc = wk_scene_update_physics(e->scene, e->node, &physics, e->st)))
            return wk__ows_context(e->st, rc, "UpdateEntityProperties '%s' of object '%s'", name ? name : "", object);
    }
    if (req->geometry_component) {
        wk_scene_geometry geometry;
        const char *uri = NULL;
        if ((rc = wk__ows_geometry_in(e->call, req->geometry_component, &geometry, &uri, e->st)) ||
            (rc = wk_scene_update_geometry(e->scene, e->node, &geometry, uri, e->st)))
            return wk__ows_context(e->st, rc, "UpdateEntityProperties '%s' of object '%s'", name ? name : "", object);
    }
    if (req->collision_action) {
        /* Deprecated upstream for UpdateCollisionSettings; kept as the rule
         * it stood for: this entity against anything else. */
        wk_collision_ref ref = {e->node, false};
        if ((rc = wk__ows_append_rule(e->scene, &ref, req->collision_action, e->st)))
            return wk__ows_context(e->st, rc, "UpdateEntityProperties '%s' of object '%s': collision_action",
                                   name ? name : "", object);
    }
    return WK_OK;
}
