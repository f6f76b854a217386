/* test_world_proto.c — the intrinsic_proto.world messages as protobuf-c
 * generates them from proto/intrinsic/: round trips that keep oneofs, maps,
 * packed lists and the presence of proto3-optional fields, and packed bytes
 * compared with bytes worked out by hand from Intrinsic's public field
 * numbers and types, which is what a proto3 peer sends and expects.
 *
 * Run with the case name print_wire, the program prints each wire message as
 * "<name> <hex>"; tests/api/world_proto_wire.py compares those lines with
 * what Python's protobuf makes from a proto3 description of the public
 * layout. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intrinsic/world/proto/object_world_service.pb-c.h"
#include "wk_test.h"

/* Packs msg into a malloc'ed buffer (free it) and stores its length. */
static uint8_t *pack(const void *msg, size_t *len)
{
    size_t size = protobuf_c_message_get_packed_size(msg);
    uint8_t *bytes = malloc(size ? size : 1);
    if (bytes)
        *len = protobuf_c_message_pack(msg, bytes);
    return bytes;
}

static ProtobufCMessage *round_trip(const ProtobufCMessage *msg)
{
    size_t len = 0;
    uint8_t *bytes = pack(msg, &len);
    if (!bytes)
        return NULL;
    ProtobufCMessage *back = protobuf_c_message_unpack(msg->descriptor, NULL, len, bytes);
    free(bytes);
    return back;
}

static void hex(const uint8_t *bytes, size_t len, char *out, size_t cap)
{
    out[0] = '\0';
    for (size_t i = 0; i < len && 2 * i + 3 <= cap; i++)
        snprintf(out + 2 * i, cap - 2 * i, "%02x", bytes[i]);
}

/* Checks that msg packs to exactly the expected bytes, printing both as hex
 * when not. The messages here are short: 200 characters hold any of them. */
static void check_wire(const void *msg, const uint8_t *expected, size_t expected_len)
{
    size_t len = 0;
    uint8_t *bytes = pack(msg, &len);
    char got[200], want[200];
    hex(bytes, bytes ? len : 0, got, sizeof got);
    hex(expected, expected_len, want, sizeof want);
    CHECK_STR(got, want);
    free(bytes);
}

/* ---- the wire messages, shared by the byte checks and print_wire ---- */

/* CloneWorldRequest{world_id "a", cloned_world_id "b", allow_overwrite,
 * user_tag ""}: the empty tag is present, as proto3 `optional` allows. */
static IntrinsicProto__World__CloneWorldRequest clone_request(void)
{
    IntrinsicProto__World__CloneWorldRequest req = INTRINSIC_PROTO__WORLD__CLONE_WORLD_REQUEST__INIT;
    req.world_id = "a";
    req.cloned_world_id = "b";
    req.has_allow_overwrite = true;
    req.allow_overwrite = true;
    req.user_tag = "";
    return req;
}

static const uint8_t clone_bytes[] = {
    0x0a, 0x01, 'a',  /* 1 world_id */
    0x2a, 0x01, 'b',  /* 5 cloned_world_id */
    0x30, 0x01,       /* 6 allow_overwrite */
    0x3a, 0x00,       /* 7 user_tag, present and empty */
};

/* GetTransformRequest{world_id "w", node_a by_name frame {o, f},
 * node_b id "root", node_a_filter {include_all_entities}}. The nested
 * messages live in a struct so the caller owns them all on its stack. */
typedef struct transform_request {
    IntrinsicProto__World__FrameReferenceByName frame;
    IntrinsicProto__World__TransformNodeReferenceByName by_name;
    IntrinsicProto__World__TransformNodeReference node_a, node_b;
    IntrinsicProto__World__ObjectEntityFilter filter_a;
    IntrinsicProto__World__GetTransformRequest req;
} transform_request;

static void transform_request_init(transform_request *t)
{
    t->frame = (IntrinsicProto__World__FrameReferenceByName)INTRINSIC_PROTO__WORLD__FRAME_REFERENCE_BY_NAME__INIT;
    t->frame.object_name = "o";
    t->frame.frame_name = "f";
    t->by_name = (IntrinsicProto__World__TransformNodeReferenceByName)
        INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE_BY_NAME__INIT;
    t->by_name.transform_node_reference_by_name_case =
        INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE_BY_NAME__TRANSFORM_NODE_REFERENCE_BY_NAME_FRAME;
    t->by_name.frame = &t->frame;
    t->node_a = (IntrinsicProto__World__TransformNodeReference)INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__INIT;
    t->node_a.transform_node_reference_case =
        INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__TRANSFORM_NODE_REFERENCE_BY_NAME;
    t->node_a.by_name = &t->by_name;
    t->node_b = (IntrinsicProto__World__TransformNodeReference)INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__INIT;
    t->node_b.transform_node_reference_case = INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__TRANSFORM_NODE_REFERENCE_ID;
    t->node_b.id = "root";
    t->filter_a = (IntrinsicProto__World__ObjectEntityFilter)INTRINSIC_PROTO__WORLD__OBJECT_ENTITY_FILTER__INIT;
    t->filter_a.has_include_all_entities = true;
    t->filter_a.include_all_entities = true;
    t->req = (IntrinsicProto__World__GetTransformRequest)INTRINSIC_PROTO__WORLD__GET_TRANSFORM_REQUEST__INIT;
    t->req.world_id = "w";
    t->req.node_a = &t->node_a;
    t->req.node_b = &t->node_b;
    t->req.node_a_filter = &t->filter_a;
}

static const uint8_t transform_bytes[] = {
    0x0a, 0x01, 'w',                          /* 1 world_id */
    0x12, 0x0a,                               /* 2 node_a */
    0x12, 0x08,                               /*   2 by_name */
    0x12, 0x06,                               /*     2 frame */
    0x0a, 0x01, 'o', 0x12, 0x01, 'f',         /*       1 object_name, 2 frame_name */
    0x1a, 0x06, 0x0a, 0x04, 'r', 'o', 'o', 't', /* 3 node_b, 1 id */
    0x22, 0x02, 0x18, 0x01,                   /* 4 node_a_filter, 3 include_all_entities */
};

/* KinematicObjectComponent{joint_positions [1, -0.5], joint_entity_ids
 * ["j"], are_kinematics_updated}: doubles packed, as proto3 packs them. */
static double joint_values[] = {1.0, -0.5};
static char *joint_ids[] = {"j"};

static IntrinsicProto__World__KinematicObjectComponent kinematic_component(void)
{
    IntrinsicProto__World__KinematicObjectComponent k = INTRINSIC_PROTO__WORLD__KINEMATIC_OBJECT_COMPONENT__INIT;
    k.n_joint_positions = 2;
    k.joint_positions = joint_values;
    k.n_joint_entity_ids = 1;
    k.joint_entity_ids = joint_ids;
    k.has_are_kinematics_updated = true;
    k.are_kinematics_updated = true;
    return k;
}

static const uint8_t kinematic_bytes[] = {
    0x0a, 0x10,                                     /* 1 joint_positions, 16 bytes */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f, /*   1.0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0xbf, /*   -0.5 */
    0x2a, 0x01, 'j',                                /* 5 joint_entity_ids */
    0x60, 0x01,                                     /* 12 are_kinematics_updated */
};

/* ObjectWorldUpdate{update_object_joint {joint_position 0, joint_name "j"}}:
 * a field number past 15 (two-byte tag) and an explicit zero that proto3
 * `optional` sends. */
typedef struct joint_update {
    IntrinsicProto__World__UpdateObjectJointRequest joint;
    IntrinsicProto__World__ObjectWorldUpdate update;
} joint_update;

static void joint_update_init(joint_update *u)
{
    u->joint = (IntrinsicProto__World__UpdateObjectJointRequest)INTRINSIC_PROTO__WORLD__UPDATE_OBJECT_JOINT_REQUEST__INIT;
    u->joint.has_joint_position = true;
    u->joint.joint_position = 0.0;
    u->joint.joint_name = "j";
    u->update = (IntrinsicProto__World__ObjectWorldUpdate)INTRINSIC_PROTO__WORLD__OBJECT_WORLD_UPDATE__INIT;
    u->update.update_case = INTRINSIC_PROTO__WORLD__OBJECT_WORLD_UPDATE__UPDATE_UPDATE_OBJECT_JOINT;
    u->update.update_object_joint = &u->joint;
}

static const uint8_t joint_update_bytes[] = {
    0x9a, 0x01, 0x0c,                                     /* 19 update_object_joint, 12 bytes */
    0x19, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*   3 joint_position 0.0 */
    0x3a, 0x01, 'j',                                      /*   7 joint_name */
};

/* ---- cases ---- */

static void wire_matches_public_layout(void)
{
    IntrinsicProto__World__CloneWorldRequest clone = clone_request();
    check_wire(&clone, clone_bytes, sizeof clone_bytes);
    transform_request t;
    transform_request_init(&t);
    check_wire(&t.req, transform_bytes, sizeof transform_bytes);
    IntrinsicProto__World__KinematicObjectComponent k = kinematic_component();
    check_wire(&k, kinematic_bytes, sizeof kinematic_bytes);
    joint_update u;
    joint_update_init(&u);
    check_wire(&u.update, joint_update_bytes, sizeof joint_update_bytes);
}

static void print_wire(void)
{
    IntrinsicProto__World__CloneWorldRequest clone = clone_request();
    transform_request t;
    transform_request_init(&t);
    IntrinsicProto__World__KinematicObjectComponent k = kinematic_component();
    joint_update u;
    joint_update_init(&u);
    const struct {
        const char *name;
        const ProtobufCMessage *msg;
    } all[] = {
        {"clone_world_request", &clone.base},
        {"get_transform_request", &t.req.base},
        {"kinematic_object_component", &k.base},
        {"object_world_update", &u.update.base},
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        size_t len = 0;
        uint8_t *bytes = pack(all[i].msg, &len);
        REQUIRE(bytes);
        char text[200];
        hex(bytes, len, text, sizeof text);
        printf("%s %s\n", all[i].name, text);
        free(bytes);
    }
}

static void transform_request_round_trip(void)
{
    transform_request t;
    transform_request_init(&t);
    static char *names[] = {"link_1", "tool"};
    IntrinsicProto__World__ObjectEntityFilter filter_b = INTRINSIC_PROTO__WORLD__OBJECT_ENTITY_FILTER__INIT;
    filter_b.has_include_base_entity = true;
    filter_b.include_base_entity = false; /* present although false */
    filter_b.n_entity_names = 2;
    filter_b.entity_names = names;
    t.req.node_b_filter = &filter_b;

    IntrinsicProto__World__GetTransformRequest *back =
        (IntrinsicProto__World__GetTransformRequest *)round_trip(&t.req.base);
    REQUIRE(back);
    CHECK_STR(back->world_id, "w");
    REQUIRE(back->node_a && back->node_a->by_name && back->node_a->by_name->frame);
    CHECK_INT(back->node_a->transform_node_reference_case, ==,
              INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__TRANSFORM_NODE_REFERENCE_BY_NAME);
    CHECK_INT(back->node_a->by_name->transform_node_reference_by_name_case, ==,
              INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE_BY_NAME__TRANSFORM_NODE_REFERENCE_BY_NAME_FRAME);
    CHECK_STR(back->node_a->by_name->frame->object_name, "o");
    CHECK_STR(back->node_a->by_name->frame->frame_name, "f");
    CHECK(back->node_a->debug_hint == NULL);
    REQUIRE(back->node_b);
    CHECK_INT(back->node_b->transform_node_reference_case, ==,
              INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__TRANSFORM_NODE_REFERENCE_ID);
    CHECK_STR(back->node_b->id, "root");
    REQUIRE(back->node_a_filter && back->node_b_filter);
    CHECK(back->node_a_filter->has_include_all_entities && back->node_a_filter->include_all_entities);
    CHECK(!back->node_a_filter->has_include_base_entity);
    CHECK(back->node_b_filter->has_include_base_entity && !back->node_b_filter->include_base_entity);
    CHECK(!back->node_b_filter->has_include_final_entity);
    REQUIRE_INT(back->node_b_filter->n_entity_names, ==, 2);
    CHECK_STR(back->node_b_filter->entity_names[0], "link_1");
    CHECK_STR(back->node_b_filter->entity_names[1], "tool");
    protobuf_c_message_free_unpacked(&back->base, NULL);
}

static void object_round_trip(void)
{
    IntrinsicProto__Point position = INTRINSIC_PROTO__POINT__INIT;
    position.has_z = true;
    position.z = 0.25;
    IntrinsicProto__Quaternion orientation = INTRINSIC_PROTO__QUATERNION__INIT;
    orientation.has_w = true;
    orientation.w = 1.0;
    IntrinsicProto__Pose pose = INTRINSIC_PROTO__POSE__INIT;
    pose.position = &position;
    pose.orientation = &orientation;

    IntrinsicProto__World__KinematicsComponent joint = INTRINSIC_PROTO__WORLD__KINEMATICS_COMPONENT__INIT;
    joint.has_motion_type = true;
    joint.motion_type = INTRINSIC_PROTO__WORLD__KINEMATICS_COMPONENT__MOTION_TYPE__MOTION_TYPE_REVOLUTE;
    joint.has_raw_value = true;
    joint.raw_value = 0.0;
    IntrinsicProto__World__Entity base = INTRINSIC_PROTO__WORLD__ENTITY__INIT;
    base.id = "e1";
    base.name = "base";
    IntrinsicProto__World__Entity j1 = INTRINSIC_PROTO__WORLD__ENTITY__INIT;
    j1.id = "e2";
    j1.name = "j";
    j1.parent_id = "e1";
    j1.parent_t_this = &pose;
    j1.kinematics_component = &joint;
    IntrinsicProto__World__Object__EntitiesEntry entry1 = INTRINSIC_PROTO__WORLD__OBJECT__ENTITIES_ENTRY__INIT;
    entry1.key = "e1";
    entry1.value = &base;
    IntrinsicProto__World__Object__EntitiesEntry entry2 = INTRINSIC_PROTO__WORLD__OBJECT__ENTITIES_ENTRY__INIT;
    entry2.key = "e2";
    entry2.value = &j1;
    IntrinsicProto__World__Object__EntitiesEntry *entries[] = {&entry1, &entry2};

    static double lower[] = {-3.0}, upper[] = {3.0};
    IntrinsicProto__RepeatedDouble min_position = INTRINSIC_PROTO__REPEATED_DOUBLE__INIT;
    min_position.n_values = 1;
    min_position.values = lower;
    IntrinsicProto__RepeatedDouble max_position = INTRINSIC_PROTO__REPEATED_DOUBLE__INIT;
    max_position.n_values = 1;
    max_position.values = upper;
    IntrinsicProto__JointLimits limits = INTRINSIC_PROTO__JOINT_LIMITS__INIT;
    limits.min_position = &min_position;
    limits.max_position = &max_position;
    IntrinsicProto__World__KinematicObjectComponent k = kinematic_component();
    k.joint_system_limits = &limits;

    IntrinsicProto__World__Object object = INTRINSIC_PROTO__WORLD__OBJECT__INIT;
    object.world_id = "world";
    object.id = "o1";
    object.name = "arm";
    object.has_type = true;
    object.type = INTRINSIC_PROTO__WORLD__OBJECT_TYPE__KINEMATIC_OBJECT;
    object.kinematic_object_component = &k;
    object.n_entities = 2;
    object.entities = entries;
    object.root_entity_id = "e1";

    IntrinsicProto__World__Object *back = (IntrinsicProto__World__Object *)round_trip(&object.base);
    REQUIRE(back);
    CHECK_STR(back->name, "arm");
    CHECK(back->has_type && back->type == INTRINSIC_PROTO__WORLD__OBJECT_TYPE__KINEMATIC_OBJECT);
    CHECK(!back->has_name_is_global_alias);
    CHECK(back->parent == NULL && back->object_component == NULL);
    REQUIRE_INT(back->n_entities, ==, 2);
    CHECK_STR(back->entities[0]->key, "e1");
    CHECK_STR(back->entities[1]->key, "e2");
    REQUIRE(back->entities[1]->value);
    const IntrinsicProto__World__Entity *e = back->entities[1]->value;
    CHECK_STR(e->parent_id, "e1");
    REQUIRE(e->parent_t_this && e->parent_t_this->position && e->parent_t_this->orientation);
    CHECK(!e->parent_t_this->position->has_x && e->parent_t_this->position->has_z);
    CHECK_NEAR(e->parent_t_this->position->z, 0.25, 0);
    CHECK_NEAR(e->parent_t_this->orientation->w, 1.0, 0);
    REQUIRE(e->kinematics_component);
    CHECK_INT(e->kinematics_component->motion_type, ==,
              INTRINSIC_PROTO__WORLD__KINEMATICS_COMPONENT__MOTION_TYPE__MOTION_TYPE_REVOLUTE);
    /* raw_value is proto3 `optional`: a zero that was set stays set. */
    CHECK(e->kinematics_component->has_raw_value);
    CHECK(e->geometry_component == NULL && e->sensor_component == NULL);
    CHECK(back->entities[0]->value && back->entities[0]->value->kinematics_component == NULL);

    const IntrinsicProto__World__KinematicObjectComponent *kb = back->kinematic_object_component;
    REQUIRE(kb);
    REQUIRE_INT(kb->n_joint_positions, ==, 2);
    CHECK_NEAR(kb->joint_positions[1], -0.5, 0);
    REQUIRE_INT(kb->n_joint_entity_ids, ==, 1);
    CHECK_STR(kb->joint_entity_ids[0], "j");
    CHECK(!kb->has_control_frequency_hz && kb->cartesian_limits == NULL && kb->mounted_payload == NULL);
    REQUIRE(kb->joint_system_limits && kb->joint_system_limits->min_position);
    CHECK(kb->joint_system_limits->max_velocity == NULL);
    REQUIRE_INT(kb->joint_system_limits->min_position->n_values, ==, 1);
    CHECK_NEAR(kb->joint_system_limits->min_position->values[0], -3.0, 0);
    protobuf_c_message_free_unpacked(&back->base, NULL);
}

static void clone_request_presence(void)
{
    /* Set to "": present. */
    IntrinsicProto__World__CloneWorldRequest req = clone_request();
    IntrinsicProto__World__CloneWorldRequest *back = (IntrinsicProto__World__CloneWorldRequest *)round_trip(&req.base);
    REQUIRE(back);
    CHECK_STR(back->world_id, "a");
    CHECK_STR(back->cloned_world_id, "b");
    CHECK(back->has_allow_overwrite && back->allow_overwrite);
    CHECK_STR(back->user_tag, "");
    protobuf_c_message_free_unpacked(&back->base, NULL);

    /* Not set: absent, so the server keeps the source world's tag. */
    req.user_tag = NULL;
    req.has_allow_overwrite = false;
    back = (IntrinsicProto__World__CloneWorldRequest *)round_trip(&req.base);
    REQUIRE(back);
    CHECK(back->user_tag == NULL);
    CHECK(!back->has_allow_overwrite);
    protobuf_c_message_free_unpacked(&back->base, NULL);
}

static void defaults_are_proto3_zeros(void)
{
    /* No non-zero defaults: an absent field reads as proto3's zero. */
    IntrinsicProto__Quaternion q = INTRINSIC_PROTO__QUATERNION__INIT;
    CHECK_NEAR(q.w, 0.0, 0);
    IntrinsicProto__World__GetObjectRequest get = INTRINSIC_PROTO__WORLD__GET_OBJECT_REQUEST__INIT;
    CHECK_INT(get.view, ==, INTRINSIC_PROTO__WORLD__OBJECT_VIEW__OBJECT_VIEW_UNSPECIFIED);
    CHECK_INT(get.object_query_case, ==, INTRINSIC_PROTO__WORLD__GET_OBJECT_REQUEST__OBJECT_QUERY__NOT_SET);
    /* An empty message packs to nothing, as in proto3. */
    size_t len = 99;
    uint8_t *bytes = pack(&q.base, &len);
    CHECK_INT(len, ==, 0);
    free(bytes);
}

static void service_lists_every_method(void)
{
    const ProtobufCServiceDescriptor *svc = &intrinsic_proto__world__object_world_service__descriptor;
    CHECK_STR(svc->name, "intrinsic_proto.world.ObjectWorldService");
    CHECK_INT(svc->n_methods, ==, 32);
    const struct {
        const char *method, *input, *output;
    } some[] = {
        {"GetWorld", "intrinsic_proto.world.GetWorldRequest", "intrinsic_proto.world.WorldMetadata"},
        {"SwapWorld", "intrinsic_proto.world.SwapWorldRequest", "google.protobuf.Empty"},
        {"UpdateCollisionSettings", "intrinsic_proto.world.UpdateCollisionSettingsRequest", "intrinsic_proto.world.World"},
        {"ToggleCollisions", "intrinsic_proto.world.ToggleCollisionsRequest", "intrinsic_proto.world.Objects"},
        {"UpdateEntityProperties", "intrinsic_proto.world.UpdateEntityPropertiesRequest", "intrinsic_proto.world.Entity"},
        {"GetTransform", "intrinsic_proto.world.GetTransformRequest", "intrinsic_proto.world.GetTransformResponse"},
        {"SyncObject", "intrinsic_proto.world.SyncObjectRequest", "intrinsic_proto.world.SyncObjectResponse"},
    };
    for (size_t i = 0; i < sizeof some / sizeof some[0]; i++) {
        const ProtobufCMethodDescriptor *m = protobuf_c_service_descriptor_get_method_by_name(svc, some[i].method);
        if (!CHECK(m != NULL))
            continue;
        CHECK_STR(m->input->name, some[i].input);
        CHECK_STR(m->output->name, some[i].output);
    }
}

static void damaged_bytes_are_refused(void)
{
    /* A length running past the end, and a truncated two-byte tag. */
    static const uint8_t overrun[] = {0x12, 0x7f, 0x0a};
    static const uint8_t cut_tag[] = {0x9a};
    CHECK(protobuf_c_message_unpack(&intrinsic_proto__world__get_transform_request__descriptor, NULL, sizeof overrun,
                                    overrun) == NULL);
    CHECK(protobuf_c_message_unpack(&intrinsic_proto__world__object_world_update__descriptor, NULL, sizeof cut_tag,
                                    cut_tag) == NULL);
}

static const wk_test_case cases[] = {
    {"wire_matches_public_layout", wire_matches_public_layout},
    {"transform_request_round_trip", transform_request_round_trip},
    {"object_round_trip", object_round_trip},
    {"clone_request_presence", clone_request_presence},
    {"defaults_are_proto3_zeros", defaults_are_proto3_zeros},
    {"service_lists_every_method", service_lists_every_method},
    {"damaged_bytes_are_refused", damaged_bytes_are_refused},
    {"print_wire", print_wire},
};

WK_TEST_MAIN(cases)
