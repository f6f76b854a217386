/* render.c — a scene as ObjectWorldService's messages: world metadata,
 * objects in the BASIC and FULL views, frames, entities with their
 * components, collision settings and poses. Every message is allocated in
 * the call (wk__call), so a handler builds its answer and forgets it.
 *
 * Scalars that are plain (not `optional`) in Intrinsic's proto3 files are
 * written only when they differ from zero, as a proto3 writer does, so a
 * peer sees the same bytes; proto3 `optional` ones (user_tag,
 * minimum_margin, collision_check_spacing, raw_value) by presence. Geometry
 * is geometry.c's. */
#include <string.h>

#include "api/ows/ows.h"

void *wk__ows_new(wk__call *call, const ProtobufCMessageDescriptor *type)
{
    ProtobufCMessage *m = wk__call_alloc(call, type->sizeof_message);
    if (m)
        type->message_init(m);
    return m;
}

void *wk__ows_array(wk__call *call, size_t n, size_t size)
{
    return n ? wk__call_alloc(call, n * size) : NULL;
}

wk__ows_view wk__ows_view_of(protobuf_c_boolean has, IntrinsicProto__World__ObjectView view)
{
    return has && view == INTRINSIC_PROTO__WORLD__OBJECT_VIEW__FULL ? WK__OWS_FULL : WK__OWS_BASIC;
}

static char *dup(wk__call *call, const char *s)
{
    return wk__call_strdup(call, s ? s : "");
}

IntrinsicProto__Pose *wk__ows_pose(wk__call *call, wk_pose pose)
{
    IntrinsicProto__Pose *m = wk__ows_new(call, &intrinsic_proto__pose__descriptor);
    IntrinsicProto__Point *p = wk__ows_new(call, &intrinsic_proto__point__descriptor);
    IntrinsicProto__Quaternion *q = wk__ows_new(call, &intrinsic_proto__quaternion__descriptor);
    if (!m || !p || !q)
        return NULL;
    p->has_x = p->has_y = p->has_z = true;
    p->x = pose.p.x, p->y = pose.p.y, p->z = pose.p.z;
    q->has_x = q->has_y = q->has_z = q->has_w = true;
    q->x = pose.q.x, q->y = pose.q.y, q->z = pose.q.z, q->w = pose.q.w;
    m->position = p;
    m->orientation = q;
    return m;
}

/* parent_t_this of an object or frame: its ParentPose, read as stored, when
 * its transform tree parent is its entity's parent (nearly always), so
 * that a pose written is read back bit for bit; else composed through the
 * world poses (an object hanging from an inner entity of its parent). */
static wk_pose node_pose(const wk_scene *s, wk_entity node)
{
    wk_ecm *ecm = wk_scene_ecm((wk_scene *)s);
    const wk_pose *pose = wk_ecm_get(ecm, node, wk_scene_types_of(s)->parent_pose);
    if (pose && wk_ecm_parent(ecm, node) == wk_scene_parent_node(s, node))
        return *pose;
    return wk_scene_node_pose(s, node);
}

IntrinsicProto__Vector3 *wk__ows_vector3(wk__call *call, wk_vec3 v)
{
    IntrinsicProto__Vector3 *m = wk__ows_new(call, &intrinsic_proto__vector3__descriptor);
    if (m) {
        m->has_x = m->has_y = m->has_z = true;
        m->x = v.x, m->y = v.y, m->z = v.z;
    }
    return m;
}

static IntrinsicProto__Point *point(wk__call *call, wk_vec3 v)
{
    IntrinsicProto__Point *m = wk__ows_new(call, &intrinsic_proto__point__descriptor);
    if (m) {
        m->has_x = m->has_y = m->has_z = true;
        m->x = v.x, m->y = v.y, m->z = v.z;
    }
    return m;
}

IntrinsicProto__World__WorldMetadata *wk__ows_metadata(wk__call *call, const wk_world_meta *meta)
{
    IntrinsicProto__World__WorldMetadata *m = wk__ows_new(call, &intrinsic_proto__world__world_metadata__descriptor);
    Google__Protobuf__Timestamp *t = wk__ows_new(call, &google__protobuf__timestamp__descriptor);
    if (!m || !t)
        return NULL;
    m->id = dup(call, meta->id);
    m->world_structure_hash = dup(call, meta->structure_hash);
    /* Timestamp's nanos are never negative, also before 1970. */
    int64_t s = meta->last_update_ns / 1000000000, ns = meta->last_update_ns % 1000000000;
    if (ns < 0)
        s -= 1, ns += 1000000000;
    t->seconds = s;
    t->nanos = (int32_t)ns;
    m->last_update = t;
    if (meta->has_user_tag)
        m->user_tag = dup(call, meta->user_tag);
    if (*meta->owner)
        m->owner = dup(call, meta->owner);
    return m;
}

static const char *object_name(const wk_scene *s, wk_entity object)
{
    const wk_object_info *info = wk_scene_object_info(s, object);
    return info && info->name ? info->name : "";
}

static IntrinsicProto__World__IdAndName *id_name(wk__call *call, const char *id, const char *name)
{
    IntrinsicProto__World__IdAndName *m = wk__ows_new(call, &intrinsic_proto__world__id_and_name__descriptor);
    if (m) {
        m->id = dup(call, id);
        m->name = dup(call, name);
    }
    return m;
}

IntrinsicProto__World__IdAndName *wk__ows_object_id_name(wk__call *call, const wk_scene *s, wk_entity object)
{
    char id[WK_ID_MAX];
    wk_scene_object_id(s, object, id);
    return id_name(call, id, object_name(s, object));
}

IntrinsicProto__World__IdAndName *wk__ows_frame_id_name(wk__call *call, const wk_scene *s, wk_entity frame)
{
    char id[WK_ID_MAX];
    wk_scene_frame_id(s, frame, id);
    return id_name(call, id, wk_scene_name(s, frame));
}

IntrinsicProto__World__ObjectReference *wk__ows_object_ref(wk__call *call, const wk_scene *s, wk_entity object)
{
    IntrinsicProto__World__ObjectReference *m =
        wk__ows_new(call, &intrinsic_proto__world__object_reference__descriptor);
    char id[WK_ID_MAX];
    if (!m)
        return NULL;
    wk_scene_object_id(s, object, id);
    m->object_reference_case = INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE__OBJECT_REFERENCE_ID;
    m->id = dup(call, id);
    m->debug_hint = dup(call, object_name(s, object));
    return m;
}

IntrinsicProto__World__EntityReference *wk__ows_entity_ref(wk__call *call, const wk_scene *s, wk_entity e)
{
    IntrinsicProto__World__EntityReference *m =
        wk__ows_new(call, &intrinsic_proto__world__entity_reference__descriptor);
    char id[WK_ID_MAX];
    if (!m)
        return NULL;
    wk_scene_entity_id(s, e, id);
    m->entity_reference_case = INTRINSIC_PROTO__WORLD__ENTITY_REFERENCE__ENTITY_REFERENCE_ID;
    m->id = dup(call, id);
    return m;
}

IntrinsicProto__World__ObjectFullPath *wk__ows_full_path(wk__call *call, const wk_scene *s, wk_entity object)
{
    IntrinsicProto__World__ObjectFullPath *m = wk__ows_new(call, &intrinsic_proto__world__object_full_path__descriptor);
    if (!m)
        return NULL;
    size_t n = 0;
    for (wk_entity o = object; o && o != wk_scene_root(s); o = wk_scene_parent_object(s, o))
        n++;
    m->object_names = wk__ows_array(call, n, sizeof *m->object_names);
    if (n && !m->object_names)
        return NULL;
    m->n_object_names = n;
    for (wk_entity o = object; n; o = wk_scene_parent_object(s, o))
        m->object_names[--n] = dup(call, object_name(s, o));
    return m;
}

/* A list of entities as IdAndName messages, through one of the two above. */
static IntrinsicProto__World__IdAndName **id_names(wk__call *call, const wk_scene *s, const wk_entity *items,
                                                   size_t n, bool frames)
{
    IntrinsicProto__World__IdAndName **out = wk__ows_array(call, n, sizeof *out);
    for (size_t i = 0; out && i < n; i++)
        out[i] = frames ? wk__ows_frame_id_name(call, s, items[i]) : wk__ows_object_id_name(call, s, items[i]);
    return out;
}

IntrinsicProto__World__Frame *wk__ows_frame(wk__call *call, const wk_scene *s, const char *world_id, wk_entity frame,
                                            bool pose)
{
    IntrinsicProto__World__Frame *m = wk__ows_new(call, &intrinsic_proto__world__frame__descriptor);
    char id[WK_ID_MAX];
    if (!m)
        return NULL;
    wk_entity object = wk_scene_object_of(s, frame);
    wk_scene_frame_id(s, frame, id);
    m->world_id = dup(call, world_id);
    m->id = dup(call, id);
    m->name = dup(call, wk_scene_name(s, frame));
    m->object = wk__ows_object_id_name(call, s, object);
    if (pose)
        m->parent_t_this = wk__ows_pose(call, node_pose(s, frame));
    wk_entity parent = wk_scene_parent_frame(s, frame);
    if (parent)
        m->parent_frame = wk__ows_frame_id_name(call, s, parent);
    wk_entity_list children = {0};
    if (wk_scene_frame_children(s, frame, &children)) {
        call->failed = true;
    } else {
        m->child_frames = id_names(call, s, children.items, children.count, true);
        m->n_child_frames = m->child_frames ? children.count : 0;
    }
    wk_entity_list_free(&children);
    m->object_full_path = wk__ows_full_path(call, s, object);
    const wk_frame_info *info = wk_ecm_get(wk_scene_ecm((wk_scene *)s), frame, wk_scene_types_of(s)->frame);
    m->has_is_attachment_frame = m->is_attachment_frame = info && info->is_attachment_frame;
    return m;
}

IntrinsicProto__Matrixd *wk__ows_inertia(wk__call *call, const double in[3][3])
{
    IntrinsicProto__Matrixd *m = wk__ows_new(call, &intrinsic_proto__matrixd__descriptor);
    double *v = wk__ows_array(call, 9, sizeof *v);
    if (!m || !v)
        return NULL;
    m->has_rows = m->has_cols = true;
    m->rows = m->cols = 3;
    /* Column after column; the matrix is symmetric, but the layout is the
     * message's all the same. */
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            v[c * 3 + r] = in[r][c];
    m->values = v;
    m->n_values = 9;
    return m;
}

static IntrinsicProto__World__PhysicsComponent *physics(wk__call *call, const wk_physics *p)
{
    IntrinsicProto__World__PhysicsComponent *m = wk__ows_new(call, &intrinsic_proto__world__physics_component__descriptor);
    IntrinsicProto__World__Friction *f = wk__ows_new(call, &intrinsic_proto__world__friction__descriptor);
    IntrinsicProto__World__Torsional *t = wk__ows_new(call, &intrinsic_proto__world__torsional__descriptor);
    if (!m || !f || !t)
        return NULL;
    m->has_mass_kg = true, m->mass_kg = p->mass_kg;
    m->this_t_center_of_mass = wk__ows_pose(call, p->this_T_com);
    m->inertia = wk__ows_inertia(call, p->inertia);
    f->has_mu = f->has_mu2 = f->has_slip1 = f->has_slip2 = true;
    f->mu = p->friction.mu, f->mu2 = p->friction.mu2;
    f->slip1 = p->friction.slip1, f->slip2 = p->friction.slip2;
    f->fdir1 = point(call, p->friction.fdir1);
    m->friction = f;
    t->has_coefficient = t->has_use_patch_radius = t->has_patch_radius = t->has_surface_radius = t->has_ode_slip = true;
    t->coefficient = p->torsional.coefficient;
    t->use_patch_radius = p->torsional.use_patch_radius;
    t->patch_radius = p->torsional.patch_radius;
    t->surface_radius = p->torsional.surface_radius;
    t->ode_slip = p->torsional.ode_slip;
    m->torsional = t;
    m->has_contact_kp = m->has_contact_kd = true;
    m->contact_kp = p->contact_kp, m->contact_kd = p->contact_kd;
    return m;
}

static IntrinsicProto__World__KinematicsComponent *kinematics(wk__call *call, const wk_kinematics *k)
{
    IntrinsicProto__World__KinematicsComponent *m =
        wk__ows_new(call, &intrinsic_proto__world__kinematics_component__descriptor);
    if (!m)
        return NULL;
    m->has_motion_type = k->motion != WK_JOINT_MOTION_UNDEFINED;
    m->motion_type = (IntrinsicProto__World__KinematicsComponent__MotionType)k->motion;
    m->has_raw_value = true, m->raw_value = k->position;
    m->parent_t_inboard = wk__ows_pose(call, k->parent_t_inboard);
    m->axis = wk__ows_vector3(call, k->axis);
    return m;
}

IntrinsicProto__World__Entity *wk__ows_entity(wk__call *call, const wk_scene *s, const char *world_id, wk_entity e)
{
    IntrinsicProto__World__Entity *m = wk__ows_new(call, &intrinsic_proto__world__entity__descriptor);
    wk_ecm *ecm = wk_scene_ecm((wk_scene *)s);
    char id[WK_ID_MAX];
    if (!m)
        return NULL;
    wk_scene_entity_id(s, e, id);
    m->world_id = dup(call, world_id);
    m->id = dup(call, id);
    m->object = wk__ows_object_id_name(call, s, wk_scene_object_of(s, e));
    m->name = dup(call, wk_scene_name(s, e));
    /* The root entity has no parent and no pose. */
    if (e != wk_scene_root(s)) {
        wk_entity parent = wk_ecm_parent(ecm, e);
        const wk_pose *pose = wk_ecm_get(ecm, e, wk_scene_types_of(s)->parent_pose);
        if (parent) {
            wk_scene_entity_id(s, parent, id);
            m->parent_id = dup(call, id);
        }
        m->parent_t_this = wk__ows_pose(call, pose ? *pose : wk_pose_identity());
    }
    const wk_physics *p = wk_scene_physics(s, e);
    if (p)
        m->physics_component = physics(call, p);
    m->geometry_component = wk__ows_geometry(call, s, e);
    const wk_kinematics *k = wk_scene_kinematics(s, e);
    if (k)
        m->kinematics_component = kinematics(call, k);
    return m;
}

/* One list of JointLimits: field (by offset) of each joint's limit. */
static IntrinsicProto__RepeatedDouble *limit_list(wk__call *call, const wk_joint_limit *limits, size_t n,
                                                  size_t offset)
{
    IntrinsicProto__RepeatedDouble *m = wk__ows_new(call, &intrinsic_proto__repeated_double__descriptor);
    double *v = wk__ows_array(call, n, sizeof *v);
    if (!m || (n && !v))
        return NULL;
    for (size_t i = 0; i < n; i++)
        memcpy(&v[i], (const char *)&limits[i] + offset, sizeof v[i]);
    m->values = v;
    m->n_values = n;
    return m;
}

static IntrinsicProto__JointLimits *joint_limits(wk__call *call, const wk_joint_limit *limits, size_t n)
{
    IntrinsicProto__JointLimits *m = wk__ows_new(call, &intrinsic_proto__joint_limits__descriptor);
    if (!m)
        return NULL;
    m->min_position = limit_list(call, limits, n, offsetof(wk_joint_limit, min_position));
    m->max_position = limit_list(call, limits, n, offsetof(wk_joint_limit, max_position));
    m->max_velocity = limit_list(call, limits, n, offsetof(wk_joint_limit, max_velocity));
    m->max_acceleration = limit_list(call, limits, n, offsetof(wk_joint_limit, max_acceleration));
    m->max_jerk = limit_list(call, limits, n, offsetof(wk_joint_limit, max_jerk));
    m->max_effort = limit_list(call, limits, n, offsetof(wk_joint_limit, max_effort));
    return m;
}

static IntrinsicProto__World__KinematicObjectComponent *kinematic_object(wk__call *call, const wk_scene *s,
                                                                         wk_entity object)
{
    const wk_kinematic_object *k = wk_scene_kinematic_object(s, object);
    IntrinsicProto__World__KinematicObjectComponent *m =
        wk__ows_new(call, &intrinsic_proto__world__kinematic_object_component__descriptor);
    if (!k || !m)
        return m;
    size_t n = k->joint_count;
    char id[WK_ID_MAX];
    m->joint_positions = wk__ows_array(call, n, sizeof *m->joint_positions);
    m->joint_entity_ids = wk__ows_array(call, n, sizeof *m->joint_entity_ids);
    if (n && (!m->joint_positions || !m->joint_entity_ids ||
              wk_scene_joint_positions(s, object, m->joint_positions, n, NULL))) {
        call->failed = true;
        return NULL;
    }
    m->n_joint_positions = m->n_joint_entity_ids = n;
    for (size_t i = 0; i < n; i++) {
        wk_scene_entity_id(s, k->joints[i], id);
        m->joint_entity_ids[i] = dup(call, id);
    }
    m->joint_system_limits = joint_limits(call, k->system_limits, n);
    m->joint_application_limits = joint_limits(call, k->application_limits, n);
    m->named_joint_configurations =
        wk__ows_array(call, k->configuration_count, sizeof *m->named_joint_configurations);
    for (size_t i = 0; m->named_joint_configurations && i < k->configuration_count; i++) {
        IntrinsicProto__World__NamedJointConfiguration *c =
            wk__ows_new(call, &intrinsic_proto__world__named_joint_configuration__descriptor);
        double *v = wk__ows_array(call, n, sizeof *v);
        if (!c || (n && !v))
            return NULL;
        memcpy(v, k->configurations[i].positions, n * sizeof *v);
        c->name = dup(call, k->configurations[i].name);
        c->joint_positions = v;
        c->n_joint_positions = n;
        m->named_joint_configurations[m->n_named_joint_configurations++] = c;
    }
    m->ik_solvers = wk__ows_array(call, k->ik_solver_count, sizeof *m->ik_solvers);
    for (size_t i = 0; m->ik_solvers && i < k->ik_solver_count; i++) {
        IntrinsicProto__World__KinematicObjectComponent__IkSolver *ik =
            wk__ows_new(call, &intrinsic_proto__world__kinematic_object_component__ik_solver__descriptor);
        if (!ik)
            return NULL;
        ik->kinematic_solver_key = dup(call, k->ik_solvers[i].key);
        wk_scene_entity_id(s, k->ik_solvers[i].base, id);
        ik->base_entity_id = dup(call, id);
        wk_scene_entity_id(s, k->ik_solvers[i].tip, id);
        ik->tip_entity_id = dup(call, id);
        m->ik_solvers[m->n_ik_solvers++] = ik;
    }
    m->iso_flange_frames = id_names(call, s, k->flange_frames, k->flange_count, true);
    m->n_iso_flange_frames = m->iso_flange_frames ? k->flange_count : 0;
    const wk_cartesian_limits *limits = wk_scene_cartesian_limits(s, object);
    const wk_payload *payload = wk_scene_payload(s, object);
    if ((limits && !(m->cartesian_limits = wk__ows_cartesian_limits(call, limits))) ||
        (payload && !(m->mounted_payload = wk__ows_payload(call, payload)))) {
        call->failed = true;
        return NULL;
    }
    return m;
}

static IntrinsicProto__World__ObjectComponent *object_component(wk__call *call, const wk_scene *s, wk_entity object,
                                                                bool full)
{
    IntrinsicProto__World__ObjectComponent *m =
        wk__ows_new(call, &intrinsic_proto__world__object_component__descriptor);
    if (!m)
        return NULL;
    m->parent_t_this = wk__ows_pose(call, node_pose(s, object));
    if (!full || object == wk_scene_root(s))
        return m;
    wk_simulation_component sim;
    if (wk_scene_simulation(s, object, &sim)) {
        IntrinsicProto__World__SimulationComponent *c =
            wk__ows_new(call, &intrinsic_proto__world__simulation_component__descriptor);
        if (!c)
            return NULL;
        c->has_is_static = sim.is_static, c->is_static = sim.is_static;
        m->simulation_component = c;
    }
    wk_user_data data = wk_scene_user_data(s, object);
    m->user_data = wk__ows_array(call, data.count, sizeof *m->user_data);
    for (size_t i = 0; m->user_data && i < data.count; i++) {
        IntrinsicProto__World__ObjectComponent__UserDataEntry *e =
            wk__ows_new(call, &intrinsic_proto__world__object_component__user_data_entry__descriptor);
        Google__Protobuf__Any *any = wk__ows_new(call, &google__protobuf__any__descriptor);
        uint8_t *bytes = wk__ows_array(call, data.items[i].value_len, 1);
        if (!e || !any || (data.items[i].value_len && !bytes))
            return NULL;
        if (data.items[i].value_len)
            memcpy(bytes, data.items[i].value, data.items[i].value_len);
        any->type_url = dup(call, data.items[i].type_url);
        any->value = (ProtobufCBinaryData){data.items[i].value_len, bytes};
        e->key = dup(call, data.items[i].key);
        e->value = any;
        m->user_data[m->n_user_data++] = e;
    }
    return m;
}

/* The entities map of an object in the FULL view, base entity first. */
static int entities(wk__call *call, const wk_scene *s, const char *world_id, wk_entity object,
                    IntrinsicProto__World__Object *m)
{
    wk_entity_list list = {0};
    int rc = wk_scene_object_entities(s, object, &list);
    if (rc == WK_OK) {
        m->entities = wk__ows_array(call, list.count, sizeof *m->entities);
        for (size_t i = 0; m->entities && i < list.count; i++) {
            IntrinsicProto__World__Object__EntitiesEntry *e =
                wk__ows_new(call, &intrinsic_proto__world__object__entities_entry__descriptor);
            if (!e)
                break;
            e->value = wk__ows_entity(call, s, world_id, list.items[i]);
            e->key = e->value ? e->value->id : NULL;
            m->entities[m->n_entities++] = e;
        }
    }
    wk_entity_list_free(&list);
    return rc;
}

IntrinsicProto__World__Object *wk__ows_object(wk__call *call, const wk_scene *s, const char *world_id,
                                              wk_entity object, wk__ows_view view)
{
    IntrinsicProto__World__Object *m = wk__ows_new(call, &intrinsic_proto__world__object__descriptor);
    const wk_object_info *info = wk_scene_object_info(s, object);
    bool full = view == WK__OWS_FULL;
    char id[WK_ID_MAX];
    if (!m || !info)
        return NULL;
    wk_scene_object_id(s, object, id);
    m->world_id = dup(call, world_id);
    m->id = dup(call, id);
    m->name = dup(call, info->name);
    m->has_type = true;
    m->type = (IntrinsicProto__World__ObjectType)info->type;
    bool root = object == wk_scene_root(s);
    if (!root) {
        m->parent = wk__ows_object_id_name(call, s, wk_scene_parent_object(s, object));
        m->parent_entity = wk__ows_entity_ref(call, s, wk_ecm_parent(wk_scene_ecm((wk_scene *)s), object));
    }
    wk_entity_list list = {0};
    if (wk_scene_object_children(s, object, &list) == WK_OK) {
        m->children = id_names(call, s, list.items, list.count, false);
        m->n_children = m->children ? list.count : 0;
    } else {
        call->failed = true;
    }
    list.count = 0;
    if (wk_scene_object_frames(s, object, &list) == WK_OK) {
        m->frames = wk__ows_array(call, list.count, sizeof *m->frames);
        for (size_t i = 0; m->frames && i < list.count; i++)
            m->frames[m->n_frames++] = wk__ows_frame(call, s, world_id, list.items[i], full);
    } else {
        call->failed = true;
    }
    wk_entity_list_free(&list);
    m->object_component = object_component(call, s, object, full);
    m->has_name_is_global_alias = m->name_is_global_alias = info->name_is_global_alias;
    m->object_full_path = wk__ows_full_path(call, s, object);
    if (!full)
        return m;
    if (info->type == WK_OBJECT_KINEMATIC)
        m->kinematic_object_component = kinematic_object(call, s, object);
    if (entities(call, s, world_id, object, m))
        call->failed = true;
    wk_scene_entity_id(s, object, id);
    m->root_entity_id = dup(call, id);
    return m;
}

static IntrinsicProto__World__ObjectOrEntityReference *collision_member(wk__call *call, const wk_scene *s,
                                                                        const wk_collision_ref *ref)
{
    IntrinsicProto__World__ObjectOrEntityReference *m =
        wk__ows_new(call, &intrinsic_proto__world__object_or_entity_reference__descriptor);
    if (!m)
        return NULL;
    if (ref->whole_object) {
        m->type_case = INTRINSIC_PROTO__WORLD__OBJECT_OR_ENTITY_REFERENCE__TYPE_OBJECT;
        m->object = wk__ows_object_ref(call, s, ref->entity);
    } else {
        m->type_case = INTRINSIC_PROTO__WORLD__OBJECT_OR_ENTITY_REFERENCE__TYPE_ENTITY;
        m->entity = wk__ows_entity_ref(call, s, ref->entity);
    }
    return m;
}

static IntrinsicProto__World__ObjectOrEntityReference **collision_members(wk__call *call, const wk_scene *s,
                                                                          const wk_collision_ref *refs, size_t n)
{
    IntrinsicProto__World__ObjectOrEntityReference **out = wk__ows_array(call, n, sizeof *out);
    for (size_t i = 0; out && i < n; i++)
        out[i] = collision_member(call, s, &refs[i]);
    return out;
}

IntrinsicProto__World__CollisionSettings *wk__ows_collision_settings(wk__call *call, const wk_scene *s)
{
    const wk_collision_settings *cs = wk_scene_collision_settings(s);
    IntrinsicProto__World__CollisionSettings *m =
        wk__ows_new(call, &intrinsic_proto__world__collision_settings__descriptor);
    if (!m)
        return NULL;
    m->has_disable_collision_checking = m->disable_collision_checking = cs->disable_collision_checking;
    m->has_minimum_margin = cs->has_minimum_margin, m->minimum_margin = cs->minimum_margin;
    m->has_collision_check_spacing = cs->has_collision_check_spacing;
    m->collision_check_spacing = cs->collision_check_spacing;
    m->collision_rules = wk__ows_array(call, cs->rule_count, sizeof *m->collision_rules);
    for (size_t i = 0; m->collision_rules && i < cs->rule_count; i++) {
        const wk_collision_rule *r = &cs->rules[i];
        IntrinsicProto__World__CollisionSettings__CollisionRule *rule =
            wk__ows_new(call, &intrinsic_proto__world__collision_settings__collision_rule__descriptor);
        IntrinsicProto__World__CollisionAction *action =
            wk__ows_new(call, &intrinsic_proto__world__collision_action__descriptor);
        if (!rule || !action)
            return NULL;
        rule->left = collision_members(call, s, r->left, r->left_count);
        rule->n_left = rule->left ? r->left_count : 0;
        rule->right = collision_members(call, s, r->right, r->right_count);
        rule->n_right = rule->right ? r->right_count : 0;
        if (r->action == WK_COLLISION_EXCLUDE) {
            action->action_case = INTRINSIC_PROTO__WORLD__COLLISION_ACTION__ACTION_IS_EXCLUDED;
            action->is_excluded = true;
        } else if (r->action == WK_COLLISION_MARGIN) {
            IntrinsicProto__World__CollisionMarginPair *margin =
                wk__ows_new(call, &intrinsic_proto__world__collision_margin_pair__descriptor);
            if (!margin)
                return NULL;
            margin->has_hard_margin = true;
            margin->hard_margin = (float)r->hard_margin;
            action->action_case = INTRINSIC_PROTO__WORLD__COLLISION_ACTION__ACTION_MARGIN;
            action->margin = margin;
        }
        rule->collision_action = action;
        m->collision_rules[m->n_collision_rules++] = rule;
    }
    return m;
}

int wk__ows_objects(wk__call *call, const wk_scene *s, const char *world_id, wk__ows_view view,
                    IntrinsicProto__World__Object ***out, size_t *count)
{
    wk_entity_list list = {0};
    int rc = wk_scene_objects(s, &list);
    *out = NULL;
    *count = 0;
    if (rc == WK_OK && list.count) {
        *out = wk__ows_array(call, list.count, sizeof **out);
        rc = *out ? WK_OK : WK_NOMEM;
        for (size_t i = 0; rc == WK_OK && i < list.count; i++)
            (*out)[(*count)++] = wk__ows_object(call, s, world_id, list.items[i], view);
    }
    wk_entity_list_free(&list);
    return call->failed ? WK_NOMEM : rc;
}
