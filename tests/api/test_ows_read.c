/* test_ows_read.c — ObjectWorldService's world methods and reads, called the
 * way a transport calls them (packed request in, packed response out,
 * through wk__ows_call), on worlds of the endpoint's store built with the
 * scene API: world ids, tags, clones and their overwrite rule, the
 * structure hash across pose updates, objects in the BASIC and FULL views
 * field by field, frames, transforms by ids, names and entity filters
 * against wk_scene's own values, collision settings, comparisons, SyncObject,
 * CreateWorld from a snapshot, and NOT_FOUND messages that name what was
 * looked for. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/ows/ows.h"
#include "math/math_check.h"
#include "wk_test.h"

/* ---- calling ------------------------------------------------------------- */

static int last_code;
static char last_message[WK_STATUS_MSG_MAX];

/* Calls method with request; the unpacked response (free with done()), or
 * NULL with last_code and last_message saying why. */
static void *ows(wk_api *api, const char *method, const void *request, const ProtobufCMessageDescriptor *type)
{
    const ProtobufCMessage *req = request;
    uint8_t *bytes = malloc(protobuf_c_message_get_packed_size(req) + 1);
    if (!bytes)
        return NULL;
    size_t len = protobuf_c_message_pack(req, bytes);
    wk_buf out = {0};
    wk_status st = {0};
    last_code = wk__ows_call(api, method, bytes, len, NULL, NULL, &out, &st);
    snprintf(last_message, sizeof last_message, "%s", st.message);
    free(bytes);
    void *resp = last_code ? NULL : protobuf_c_message_unpack(type, NULL, out.len, out.data);
    wk_buf_free(&out);
    return resp;
}

static void done(void *msg)
{
    if (msg)
        protobuf_c_message_free_unpacked(msg, NULL);
}

/* last_message contains part. */
#define CHECK_MESSAGE(part)                                                     \
    do {                                                                        \
        if (!CHECK(strstr(last_message, (part)) != NULL))                       \
            fprintf(stderr, "    message: %s (wanted '%s')\n", last_message, (part)); \
    } while (0)

static wk_pose pose_of(const IntrinsicProto__Pose *p)
{
    return wk__ows_pose_in(p);
}

#define CHECK_POSE_NEAR(a, b, eps)                          \
    do {                                                    \
        wk_pose wk__pa = (a), wk__pb = (b);                 \
        CHECK_VEC3_NEAR(wk__pa.p, wk__pb.p, eps);           \
        CHECK_SAME_ROTATION(wk__pa.q, wk__pb.q, eps);       \
    } while (0)

/* ---- a world to read ------------------------------------------------------ */

typedef struct fixture {
    wk_entity table, cup, lid, arm, grasp, tip, global, l2;
} fixture;

static wk_pose make_pose(double x, double y, double z, double yaw)
{
    return (wk_pose){{x, y, z}, wk_quat_from_rpy(0, 0, yaw)};
}

/* Builds in world id: a static table (a box) holding a cup, a frame grasp
 * with a child frame tip (an attachment frame) carrying the object lid, a
 * global frame on the root, and (with kinematic) a two-joint arm. */
static bool build(wk_api *api, const char *id, bool kinematic, fixture *f)
{
    wk_status st;
    wk_world *w;
    char out[WK_WORLD_ID_MAX];
    if (wk_store_create(wk_api_store(api), &(wk_world_create_desc){.id = id, .user_tag = "tag"}, out, &st) ||
        wk_store_open(wk_api_store(api), id, true, &w, &st))
        return false;
    wk_scene *s = wk_world_scene(w);
    wk_scene_geometry box = {.type = WK_GEOMETRY_BOX, .size = {1, 0.5, 0.8}};
    bool ok = !wk_scene_create_object(
                  s, &(wk_object_desc){.name = "table", .pose = make_pose(1, 2, 0, 0.5), .geometry = &box}, &f->table,
                  &st) &&
              !wk_scene_create_object(s, &(wk_object_desc){.name = "cup", .parent = f->table, .pose = make_pose(0.1, 0, 0.8, 0)},
                                      &f->cup, &st) &&
              !wk_scene_create_frame(s, &(wk_frame_desc){.name = "grasp", .parent = f->table, .pose = make_pose(0, 0.2, 0.9, 1)},
                                     &f->grasp, &st) &&
              !wk_scene_create_frame(s, &(wk_frame_desc){.name = "tip", .parent = f->grasp, .pose = make_pose(0, 0, 0.1, 0),
                                                         .is_attachment_frame = true},
                                     &f->tip, &st) &&
              !wk_scene_create_object(s, &(wk_object_desc){.name = "lid", .parent = f->tip}, &f->lid, &st) &&
              !wk_scene_create_frame(s, &(wk_frame_desc){.name = "home", .pose = make_pose(-1, 0, 0, 0)}, &f->global,
                                     &st) &&
              !wk_scene_set_simulation(s, f->table, &(wk_simulation_component){.is_static = true}, &st) &&
              !wk_scene_update_user_data(s, f->cup,
                                         &(wk_user_datum){"owner", "type.googleapis.com/google.protobuf.StringValue",
                                                          (const uint8_t *)"\x0a\x03" "bob", 5},
                                         1, WK_USER_DATA_INSERT, &st);
    if (ok && kinematic) {
        wk_joint_desc joints[2] = {
            {.name = "j1", .link = "l1", .parent = -1, .motion = WK_JOINT_MOTION_REVOLUTE,
             .parent_t_inboard = make_pose(0, 0, 0.5, 0), .limits = {.min_position = -1, .max_position = 1, .max_velocity = 2}},
            {.name = "j2", .link = "l2", .parent = 0, .motion = WK_JOINT_MOTION_PRISMATIC, .axis = {1, 0, 0},
             .parent_t_inboard = make_pose(0, 0, 0.3, 0), .inboard_t_link = make_pose(0.2, 0, 0, 0),
             .limits = {.min_position = 0, .max_position = 0.5}},
        };
        ok = !wk_scene_create_kinematic_object(
                 s, &(wk_kinematic_object_desc){.name = "arm", .pose = make_pose(0, -1, 0, 0), .joints = joints, .joint_count = 2},
                 &f->arm, &st) &&
             !wk_scene_set_joint_positions(s, f->arm, NULL, (double[]){0.4, 0.1}, 2, &st);
        f->l2 = ok ? wk_scene_child(s, wk_scene_child(s, wk_scene_child(s, wk_scene_child(s, f->arm, "j1"), "l1"), "j2"), "l2")
                   : WK_NULL_ENTITY;
        ok = ok && f->l2;
    }
    if (!ok)
        fprintf(stderr, "    build: %s\n", st.message);
    wk_store_close(w, true, true);
    return ok;
}

/* The scene of world id, open for reading; close with wk_store_close. */
static wk_scene *peek(wk_api *api, const char *id, wk_world **w)
{
    wk_status st;
    return wk_store_open(wk_api_store(api), id, false, w, &st) ? NULL : wk_world_scene(*w);
}

/* Request parts. */
static IntrinsicProto__World__ObjectReference by_name(const char *name, IntrinsicProto__World__ObjectReferenceByName *n)
{
    intrinsic_proto__world__object_reference_by_name__init(n);
    n->object_name = (char *)name;
    IntrinsicProto__World__ObjectReference r = INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE__INIT;
    r.object_reference_case = INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE__OBJECT_REFERENCE_BY_NAME;
    r.by_name = n;
    return r;
}

static IntrinsicProto__World__ObjectReference by_id(const char *id)
{
    IntrinsicProto__World__ObjectReference r = INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE__INIT;
    r.object_reference_case = INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE__OBJECT_REFERENCE_ID;
    r.id = (char *)id;
    return r;
}

static IntrinsicProto__World__Object *get_object(wk_api *api, const char *world, const char *name, bool full)
{
    IntrinsicProto__World__ObjectReferenceByName n;
    IntrinsicProto__World__ObjectReference ref = by_name(name, &n);
    IntrinsicProto__World__GetObjectRequest req = INTRINSIC_PROTO__WORLD__GET_OBJECT_REQUEST__INIT;
    req.world_id = (char *)world;
    req.object_query_case = INTRINSIC_PROTO__WORLD__GET_OBJECT_REQUEST__OBJECT_QUERY_OBJECT;
    req.object = &ref;
    req.has_view = full;
    req.view = INTRINSIC_PROTO__WORLD__OBJECT_VIEW__FULL;
    return ows(api, "GetObject", &req, &intrinsic_proto__world__object__descriptor);
}

static IntrinsicProto__World__WorldMetadata *get_world(wk_api *api, const char *id)
{
    IntrinsicProto__World__GetWorldRequest req = INTRINSIC_PROTO__WORLD__GET_WORLD_REQUEST__INIT;
    req.world_id = (char *)id;
    return ows(api, "GetWorld", &req, &intrinsic_proto__world__world_metadata__descriptor);
}

static IntrinsicProto__World__WorldMetadata *clone_world(wk_api *api, const char *id, const char *clone, bool overwrite)
{
    IntrinsicProto__World__CloneWorldRequest req = INTRINSIC_PROTO__WORLD__CLONE_WORLD_REQUEST__INIT;
    req.world_id = (char *)id;
    req.cloned_world_id = (char *)clone;
    req.has_allow_overwrite = true;
    req.allow_overwrite = overwrite;
    return ows(api, "CloneWorld", &req, &intrinsic_proto__world__world_metadata__descriptor);
}

/* ---- worlds --------------------------------------------------------------- */

static void worlds(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    IntrinsicProto__World__ListWorldsRequest list = INTRINSIC_PROTO__WORLD__LIST_WORLDS_REQUEST__INIT;
    IntrinsicProto__World__ListWorldsResponse *l = ows(api, "ListWorlds", &list, &intrinsic_proto__world__list_worlds_response__descriptor);
    /* A new endpoint holds the current world and its initial copy. */
    REQUIRE(l);
    CHECK_INT(l->n_world_metadatas, ==, 2);
    CHECK_STR(l->world_metadatas[0]->id, "init_world");
    CHECK_STR(l->world_metadatas[1]->id, "world");
    done(l);

    /* CreateWorld of an empty World: the id when free, a prefix when taken. */
    IntrinsicProto__World__WorldMetadata meta = INTRINSIC_PROTO__WORLD__WORLD_METADATA__INIT;
    meta.id = "w1";
    meta.user_tag = "first";
    IntrinsicProto__World__World world = INTRINSIC_PROTO__WORLD__WORLD__INIT;
    world.world_metadata = &meta;
    IntrinsicProto__World__CreateWorldRequest create = INTRINSIC_PROTO__WORLD__CREATE_WORLD_REQUEST__INIT;
    create.world = &world;
    IntrinsicProto__World__WorldMetadata *m = ows(api, "CreateWorld", &create, &intrinsic_proto__world__world_metadata__descriptor);
    REQUIRE(m);
    CHECK_STR(m->id, "w1");
    CHECK_STR(m->user_tag, "first");
    CHECK_INT(strlen(m->world_structure_hash), ==, 16);
    CHECK(m->last_update && m->last_update->seconds > 1600000000);
    done(m);
    m = ows(api, "CreateWorld", &create, &intrinsic_proto__world__world_metadata__descriptor);
    REQUIRE(m);
    CHECK(strncmp(m->id, "w1_", 3) == 0);
    done(m);
    /* No World at all: an empty world with an id of its own and no tag. */
    IntrinsicProto__World__CreateWorldRequest bare = INTRINSIC_PROTO__WORLD__CREATE_WORLD_REQUEST__INIT;
    m = ows(api, "CreateWorld", &bare, &intrinsic_proto__world__world_metadata__descriptor);
    REQUIRE(m);
    CHECK(m->id && m->id[0]);
    CHECK(m->user_tag == NULL);
    done(m);

    /* GetWorld: the same metadata; unknown and empty ids. */
    m = get_world(api, "w1");
    REQUIRE(m);
    CHECK_STR(m->id, "w1");
    CHECK_STR(m->user_tag, "first");
    done(m);
    CHECK(get_world(api, "nowhere") == NULL);
    CHECK_INT(last_code, ==, WK_NOT_FOUND);
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_NOT_FOUND);
    CHECK_MESSAGE("'nowhere'");
    CHECK(get_world(api, "") == NULL);
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_INVALID_ARGUMENT);
    CHECK_MESSAGE("world_id");

    /* CloneWorld: a new id, then ALREADY_EXISTS unless overwriting; the
     * source's tag unless one is given. */
    m = clone_world(api, "w1", "c", false);
    REQUIRE(m);
    CHECK_STR(m->id, "c");
    CHECK_STR(m->user_tag, "first");
    done(m);
    CHECK(clone_world(api, "w1", "c", false) == NULL);
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_ALREADY_EXISTS);
    CHECK_MESSAGE("'c'");
    IntrinsicProto__World__CloneWorldRequest tagged = INTRINSIC_PROTO__WORLD__CLONE_WORLD_REQUEST__INIT;
    tagged.world_id = "w1";
    tagged.cloned_world_id = "c";
    tagged.has_allow_overwrite = tagged.allow_overwrite = true;
    tagged.user_tag = "second";
    m = ows(api, "CloneWorld", &tagged, &intrinsic_proto__world__world_metadata__descriptor);
    REQUIRE(m);
    CHECK_STR(m->user_tag, "second");
    done(m);
    CHECK(clone_world(api, "missing", "d", false) == NULL);
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_NOT_FOUND);

    /* SwapWorld exchanges contents (the tags show it); ids stay. */
    IntrinsicProto__World__SwapWorldRequest swap = INTRINSIC_PROTO__WORLD__SWAP_WORLD_REQUEST__INIT;
    swap.world_id = "w1";
    swap.target_world_id = "c";
    done(ows(api, "SwapWorld", &swap, &google__protobuf__empty__descriptor));
    CHECK_INT(last_code, ==, WK_OK);
    m = get_world(api, "w1");
    REQUIRE(m);
    CHECK_STR(m->user_tag, "second");
    done(m);

    /* DeleteWorld, then the world is gone; ListWorlds sorted by id. */
    IntrinsicProto__World__DeleteWorldRequest del = INTRINSIC_PROTO__WORLD__DELETE_WORLD_REQUEST__INIT;
    del.world_id = "c";
    done(ows(api, "DeleteWorld", &del, &google__protobuf__empty__descriptor));
    CHECK_INT(last_code, ==, WK_OK);
    CHECK(get_world(api, "c") == NULL);
    done(ows(api, "DeleteWorld", &del, &google__protobuf__empty__descriptor));
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_NOT_FOUND);
    l = ows(api, "ListWorlds", &list, &intrinsic_proto__world__list_worlds_response__descriptor);
    REQUIRE(l);
    CHECK_INT(l->n_world_metadatas, ==, 5);
    for (size_t i = 1; i < l->n_world_metadatas; i++)
        CHECK(strcmp(l->world_metadatas[i - 1]->id, l->world_metadatas[i]->id) < 0);
    done(l);

    /* An unknown method and a request that does not parse. */
    wk_buf out = {0};
    wk_status st;
    CHECK_INT(wk__ows_call(api, "Teleport", NULL, 0, NULL, NULL, &out, &st), ==, WK_NOT_FOUND);
    CHECK_INT(wk__ows_call(api, "/intrinsic_proto.world.ObjectWorldService/GetWorld", (const uint8_t *)"\xff", 1, NULL,
                           NULL, &out, &st),
              ==, WK_PARSE);
    /* A method of another service is not ObjectWorldService's. */
    CHECK_INT(wk__ows_call(api, "/simulation_interfaces.SimulationInterfaces/GetEntities", NULL, 0, NULL, NULL, &out,
                           &st),
              ==, WK_NOT_FOUND);
    wk_buf_free(&out);
    wk_api_free(api);
}

/* The structure hash stays across pose updates and changes with structure. */
static void hash_across_pose_updates(void)
{
    wk_api *api = wk_api_new();
    fixture f;
    REQUIRE(api && build(api, "w", false, &f));
    IntrinsicProto__World__WorldMetadata *before = get_world(api, "w");
    REQUIRE(before);
    wk_world *w;
    wk_status st;
    REQUIRE_INT(wk_store_open(wk_api_store(api), "w", true, &w, &st), ==, WK_OK);
    CHECK_INT(wk_scene_set_pose(wk_world_scene(w), f.table, make_pose(5, 5, 0, 2), &st), ==, WK_OK);
    wk_store_close(w, true, false);
    IntrinsicProto__World__WorldMetadata *after = get_world(api, "w");
    REQUIRE(after);
    CHECK_STR(after->world_structure_hash, before->world_structure_hash);
    CHECK(after->last_update->seconds > before->last_update->seconds ||
          (after->last_update->seconds == before->last_update->seconds &&
           after->last_update->nanos >= before->last_update->nanos));
    REQUIRE_INT(wk_store_open(wk_api_store(api), "w", true, &w, &st), ==, WK_OK);
    wk_entity frame;
    CHECK_INT(wk_scene_create_frame(wk_world_scene(w), &(wk_frame_desc){.name = "extra"}, &frame, &st), ==, WK_OK);
    wk_store_close(w, true, true);
    IntrinsicProto__World__WorldMetadata *changed = get_world(api, "w");
    REQUIRE(changed);
    CHECK(strcmp(changed->world_structure_hash, before->world_structure_hash) != 0);
    done(before);
    done(after);
    done(changed);
    wk_api_free(api);
}

/* ---- objects ------------------------------------------------------------- */

static const IntrinsicProto__World__Frame *frame_named(const IntrinsicProto__World__Object *o, const char *name)
{
    for (size_t i = 0; i < o->n_frames; i++)
        if (o->frames[i]->name && !strcmp(o->frames[i]->name, name))
            return o->frames[i];
    return NULL;
}

static const IntrinsicProto__World__Entity *entity_keyed(const IntrinsicProto__World__Object *o, const char *id)
{
    for (size_t i = 0; id && i < o->n_entities; i++)
        if (!strcmp(o->entities[i]->key, id))
            return o->entities[i]->value;
    return NULL;
}

static void object_views(void)
{
    wk_api *api = wk_api_new();
    fixture f;
    REQUIRE(api && build(api, "w", true, &f));
    wk_world *w;
    wk_scene *s = peek(api, "w", &w);
    REQUIRE(s);
    char id[WK_ID_MAX], eid[WK_ID_MAX];

    /* BASIC: the place in the tree, poses only in object_component. */
    IntrinsicProto__World__Object *o = get_object(api, "w", "table", false);
    REQUIRE(o);
    wk_scene_object_id(s, f.table, id);
    CHECK_STR(o->world_id, "w");
    CHECK_STR(o->id, id);
    CHECK_STR(o->name, "table");
    CHECK(o->has_type && o->type == INTRINSIC_PROTO__WORLD__OBJECT_TYPE__PHYSICAL_OBJECT);
    REQUIRE(o->parent);
    CHECK_STR(o->parent->id, "root");
    CHECK_STR(o->parent->name, "root");
    /* The lid hangs from a frame of the table: a child object all the same. */
    REQUIRE_INT(o->n_children, ==, 2);
    wk_scene_object_id(s, f.cup, id);
    CHECK(!strcmp(o->children[0]->id, id) || !strcmp(o->children[1]->id, id));
    CHECK(!strcmp(o->children[0]->name, "lid") || !strcmp(o->children[1]->name, "lid"));
    REQUIRE_INT(o->n_frames, ==, 2);
    const IntrinsicProto__World__Frame *grasp = frame_named(o, "grasp"), *tip = frame_named(o, "tip");
    REQUIRE(grasp && tip);
    CHECK(grasp->parent_t_this == NULL && tip->parent_t_this == NULL);
    CHECK(tip->parent_frame && !strcmp(tip->parent_frame->name, "grasp"));
    REQUIRE(o->object_component && o->object_component->parent_t_this);
    CHECK_POSE_NEAR(pose_of(o->object_component->parent_t_this), wk_scene_node_pose(s, f.table), 1e-12);
    CHECK(o->object_component->simulation_component == NULL);
    CHECK_INT(o->object_component->n_user_data, ==, 0);
    CHECK_INT(o->n_entities, ==, 0);
    CHECK(o->root_entity_id == NULL || !o->root_entity_id[0]);
    CHECK(o->kinematic_object_component == NULL);
    REQUIRE(o->object_full_path);
    REQUIRE_INT(o->object_full_path->n_object_names, ==, 1);
    CHECK_STR(o->object_full_path->object_names[0], "table");
    CHECK(!o->name_is_global_alias);
    REQUIRE(o->parent_entity);
    CHECK_STR(o->parent_entity->id, "eid_root");
    done(o);

    /* FULL: frames posed, the simulation component, the entities. */
    o = get_object(api, "w", "table", true);
    REQUIRE(o);
    grasp = frame_named(o, "grasp");
    REQUIRE(grasp && grasp->parent_t_this);
    CHECK_POSE_NEAR(pose_of(grasp->parent_t_this), make_pose(0, 0.2, 0.9, 1), 1e-12);
    REQUIRE(o->object_component && o->object_component->simulation_component);
    CHECK(o->object_component->simulation_component->is_static);
    wk_scene_entity_id(s, f.table, eid);
    CHECK_STR(o->root_entity_id, eid);
    const IntrinsicProto__World__Entity *base = entity_keyed(o, eid);
    REQUIRE(base);
    CHECK_STR(base->name, "table");
    CHECK_STR(base->parent_id, "eid_root");
    CHECK(base->object && !strcmp(base->object->name, "table"));
    REQUIRE(base->geometry_component);
    wk_scene_geometry g;
    const char *uri;
    CHECK_INT(wk__ows_geometry_in(&(wk__call){0}, base->geometry_component, &g, &uri, NULL), ==, WK_OK);
    CHECK_INT(g.type, ==, WK_GEOMETRY_BOX);
    CHECK_VEC3_NEAR(g.size, ((wk_vec3){1, 0.5, 0.8}), 0);
    /* The frames' entities are the object's entities too. */
    wk_scene_entity_id(s, f.grasp, eid);
    CHECK(entity_keyed(o, eid) != NULL);
    CHECK(o->kinematic_object_component == NULL);
    done(o);

    /* User data travels as Any. */
    o = get_object(api, "w", "cup", true);
    REQUIRE(o && o->object_component);
    REQUIRE_INT(o->object_component->n_user_data, ==, 1);
    CHECK_STR(o->object_component->user_data[0]->key, "owner");
    CHECK_STR(o->object_component->user_data[0]->value->type_url, "type.googleapis.com/google.protobuf.StringValue");
    CHECK_INT(o->object_component->user_data[0]->value->value.len, ==, 5);
    CHECK(o->object_component->simulation_component == NULL);
    REQUIRE(o->object_full_path && o->object_full_path->n_object_names == 2);
    CHECK_STR(o->object_full_path->object_names[1], "cup");
    done(o);

    /* An object attached to a frame: its parent entity is the frame's. */
    o = get_object(api, "w", "lid", false);
    REQUIRE(o && o->parent_entity && o->parent);
    wk_scene_entity_id(s, f.tip, eid);
    CHECK_STR(o->parent_entity->id, eid);
    CHECK_STR(o->parent->name, "table");
    done(o);

    /* A kinematic object in FULL: joints, positions, limits, kinematics. */
    o = get_object(api, "w", "arm", true);
    REQUIRE(o);
    CHECK(o->type == INTRINSIC_PROTO__WORLD__OBJECT_TYPE__KINEMATIC_OBJECT);
    const IntrinsicProto__World__KinematicObjectComponent *k = o->kinematic_object_component;
    REQUIRE(k);
    REQUIRE_INT(k->n_joint_positions, ==, 2);
    CHECK_NEAR(k->joint_positions[0], 0.4, 0);
    CHECK_NEAR(k->joint_positions[1], 0.1, 0);
    REQUIRE_INT(k->n_joint_entity_ids, ==, 2);
    REQUIRE(k->joint_system_limits && k->joint_system_limits->max_position &&
            k->joint_system_limits->max_position->n_values == 2);
    CHECK_NEAR(k->joint_system_limits->max_position->values[0], 1, 0);
    CHECK_NEAR(k->joint_system_limits->max_position->values[1], 0.5, 0);
    REQUIRE(k->joint_application_limits && k->joint_application_limits->max_effort);
    CHECK_NEAR(k->joint_application_limits->max_effort->values[0], 0, 0);
    const IntrinsicProto__World__Entity *j2 = entity_keyed(o, k->joint_entity_ids[1]);
    REQUIRE(j2 && j2->kinematics_component);
    CHECK_STR(j2->name, "j2");
    CHECK(j2->kinematics_component->motion_type == INTRINSIC_PROTO__WORLD__KINEMATICS_COMPONENT__MOTION_TYPE__MOTION_TYPE_PRISMATIC);
    CHECK_NEAR(j2->kinematics_component->raw_value, 0.1, 0);
    REQUIRE(j2->kinematics_component->axis);
    CHECK_NEAR(j2->kinematics_component->axis->x, 1, 0);
    CHECK_POSE_NEAR(pose_of(j2->kinematics_component->parent_t_inboard), make_pose(0, 0, 0.3, 0), 1e-12);
    CHECK_INT(o->n_entities, ==, 5); /* base, j1, l1, j2, l2 */
    done(o);

    /* The root object: no parent, the top objects as children. */
    IntrinsicProto__World__ObjectReference root = by_id("root");
    IntrinsicProto__World__GetObjectRequest req = INTRINSIC_PROTO__WORLD__GET_OBJECT_REQUEST__INIT;
    req.world_id = "w";
    req.object_query_case = INTRINSIC_PROTO__WORLD__GET_OBJECT_REQUEST__OBJECT_QUERY_OBJECT;
    req.object = &root;
    o = ows(api, "GetObject", &req, &intrinsic_proto__world__object__descriptor);
    REQUIRE(o);
    CHECK(o->type == INTRINSIC_PROTO__WORLD__OBJECT_TYPE__ROOT);
    CHECK(o->parent == NULL && o->parent_entity == NULL);
    CHECK_INT(o->n_children, ==, 2);
    CHECK(frame_named(o, "home") != NULL);
    CHECK(o->object_full_path && o->object_full_path->n_object_names == 0);
    done(o);

    /* By full path; and what is not there, named. */
    char *path[] = {"table", "cup"};
    IntrinsicProto__World__ObjectFullPath full = INTRINSIC_PROTO__WORLD__OBJECT_FULL_PATH__INIT;
    full.object_names = path;
    full.n_object_names = 2;
    req.object_query_case = INTRINSIC_PROTO__WORLD__GET_OBJECT_REQUEST__OBJECT_QUERY_OBJECT_FULL_PATH;
    req.object_full_path = &full;
    o = ows(api, "GetObject", &req, &intrinsic_proto__world__object__descriptor);
    REQUIRE(o);
    CHECK_STR(o->name, "cup");
    done(o);
    path[1] = "plate";
    CHECK(ows(api, "GetObject", &req, &intrinsic_proto__world__object__descriptor) == NULL);
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_NOT_FOUND);
    CHECK_MESSAGE("'plate'");
    req.object_query_case = INTRINSIC_PROTO__WORLD__GET_OBJECT_REQUEST__OBJECT_QUERY_RESOURCE_HANDLE_NAME;
    req.resource_handle_name = "robot_arm";
    CHECK(ows(api, "GetObject", &req, &intrinsic_proto__world__object__descriptor) == NULL);
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_NOT_FOUND);
    CHECK_MESSAGE("'robot_arm'");
    CHECK(get_object(api, "w", "ghost", false) == NULL);
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_NOT_FOUND);
    CHECK_MESSAGE("no object named 'ghost'");
    CHECK(get_object(api, "elsewhere", "table", false) == NULL);
    CHECK_MESSAGE("'elsewhere'");
    IntrinsicProto__World__ObjectReference bad = by_id("obj_999999");
    req.object_query_case = INTRINSIC_PROTO__WORLD__GET_OBJECT_REQUEST__OBJECT_QUERY_OBJECT;
    req.object = &bad;
    CHECK(ows(api, "GetObject", &req, &intrinsic_proto__world__object__descriptor) == NULL);
    CHECK_MESSAGE("'obj_999999'");
    IntrinsicProto__World__ObjectReference empty = INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE__INIT;
    req.object = &empty;
    CHECK(ows(api, "GetObject", &req, &intrinsic_proto__world__object__descriptor) == NULL);
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_INVALID_ARGUMENT);

    /* ListObjects: all, root first; or those asked for, in order. */
    IntrinsicProto__World__ListObjectsRequest list = INTRINSIC_PROTO__WORLD__LIST_OBJECTS_REQUEST__INIT;
    list.world_id = "w";
    IntrinsicProto__World__ListObjectsResponse *l =
        ows(api, "ListObjects", &list, &intrinsic_proto__world__list_objects_response__descriptor);
    REQUIRE(l);
    CHECK_INT(l->n_objects, ==, 5);
    CHECK_STR(l->objects[0]->id, "root");
    CHECK_INT(l->objects[1]->n_entities, ==, 0);
    done(l);
    IntrinsicProto__World__ObjectReferenceByName n1, n2;
    IntrinsicProto__World__ObjectReference q[2] = {by_name("lid", &n1), by_name("arm", &n2)};
    IntrinsicProto__World__ObjectReference *qp[2] = {&q[0], &q[1]};
    list.query_objects = qp;
    list.n_query_objects = 2;
    list.has_view = true;
    list.view = INTRINSIC_PROTO__WORLD__OBJECT_VIEW__FULL;
    l = ows(api, "ListObjects", &list, &intrinsic_proto__world__list_objects_response__descriptor);
    REQUIRE(l && l->n_objects == 2);
    CHECK_STR(l->objects[0]->name, "lid");
    CHECK_STR(l->objects[1]->name, "arm");
    CHECK(l->objects[1]->kinematic_object_component != NULL);
    done(l);
    n2.object_name = "nobody";
    CHECK(ows(api, "ListObjects", &list, &intrinsic_proto__world__list_objects_response__descriptor) == NULL);
    CHECK_MESSAGE("'nobody'");
    /* A request cannot make the reply larger than the world: 100,000
     * references to one object are refused whole. */
    enum { MANY = 100000 };
    IntrinsicProto__World__ObjectReference **many = malloc(MANY * sizeof *many);
    REQUIRE(many);
    for (size_t i = 0; i < MANY; i++)
        many[i] = &q[0];
    list.query_objects = many;
    list.n_query_objects = MANY;
    CHECK(ows(api, "ListObjects", &list, &intrinsic_proto__world__list_objects_response__descriptor) == NULL);
    CHECK_MESSAGE("ListObjects names 100000 objects, more than world 'w' holds");
    free(many);
    wk_store_close(w, false, false);
    wk_api_free(api);
}

/* ---- frames and transforms ------------------------------------------------ */

static IntrinsicProto__World__Frame *get_frame(wk_api *api, const char *object, const char *frame)
{
    IntrinsicProto__World__FrameReferenceByName n = INTRINSIC_PROTO__WORLD__FRAME_REFERENCE_BY_NAME__INIT;
    n.object_name = (char *)object;
    n.frame_name = (char *)frame;
    IntrinsicProto__World__FrameReference ref = INTRINSIC_PROTO__WORLD__FRAME_REFERENCE__INIT;
    ref.frame_reference_case = INTRINSIC_PROTO__WORLD__FRAME_REFERENCE__FRAME_REFERENCE_BY_NAME;
    ref.by_name = &n;
    IntrinsicProto__World__GetFrameRequest req = INTRINSIC_PROTO__WORLD__GET_FRAME_REQUEST__INIT;
    req.world_id = "w";
    req.frame = &ref;
    return ows(api, "GetFrame", &req, &intrinsic_proto__world__frame__descriptor);
}

static void frames(void)
{
    wk_api *api = wk_api_new();
    fixture f;
    REQUIRE(api && build(api, "w", false, &f));
    wk_world *w;
    wk_scene *s = peek(api, "w", &w);
    REQUIRE(s);
    char id[WK_ID_MAX];
    IntrinsicProto__World__Frame *fr = get_frame(api, "table", "grasp");
    REQUIRE(fr);
    wk_scene_frame_id(s, f.grasp, id);
    CHECK_STR(fr->id, id);
    CHECK_STR(fr->name, "grasp");
    CHECK_STR(fr->world_id, "w");
    REQUIRE(fr->object);
    CHECK_STR(fr->object->name, "table");
    CHECK(fr->parent_frame == NULL);
    REQUIRE_INT(fr->n_child_frames, ==, 1);
    CHECK_STR(fr->child_frames[0]->name, "tip");
    CHECK_POSE_NEAR(pose_of(fr->parent_t_this), wk_scene_node_pose(s, f.grasp), 1e-12);
    CHECK(!fr->is_attachment_frame);
    REQUIRE(fr->object_full_path && fr->object_full_path->n_object_names == 1);
    done(fr);
    fr = get_frame(api, "table", "tip");
    REQUIRE(fr);
    CHECK(fr->is_attachment_frame);
    REQUIRE(fr->parent_frame);
    wk_scene_frame_id(s, f.grasp, id);
    CHECK_STR(fr->parent_frame->id, id);
    CHECK_POSE_NEAR(pose_of(fr->parent_t_this), make_pose(0, 0, 0.1, 0), 1e-12);
    done(fr);
    fr = get_frame(api, "root", "home");
    REQUIRE(fr);
    CHECK_STR(fr->object->id, "root");
    done(fr);
    CHECK(get_frame(api, "table", "handle") == NULL);
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_NOT_FOUND);
    CHECK_MESSAGE("'handle'");

    IntrinsicProto__World__ListFramesRequest list = INTRINSIC_PROTO__WORLD__LIST_FRAMES_REQUEST__INIT;
    list.world_id = "w";
    IntrinsicProto__World__ListFramesResponse *l =
        ows(api, "ListFrames", &list, &intrinsic_proto__world__list_frames_response__descriptor);
    REQUIRE(l);
    CHECK_INT(l->n_frames, ==, 3);
    done(l);
    IntrinsicProto__World__ObjectReferenceByName n;
    IntrinsicProto__World__ObjectReference table = by_name("table", &n);
    list.object = &table;
    l = ows(api, "ListFrames", &list, &intrinsic_proto__world__list_frames_response__descriptor);
    REQUIRE(l);
    CHECK_INT(l->n_frames, ==, 2);
    for (size_t i = 0; i < l->n_frames; i++)
        CHECK(l->frames[i]->parent_t_this != NULL);
    done(l);
    wk_store_close(w, false, false);
    wk_api_free(api);
}

static IntrinsicProto__World__TransformNodeReference node_id(const char *id)
{
    IntrinsicProto__World__TransformNodeReference r = INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__INIT;
    r.transform_node_reference_case = INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__TRANSFORM_NODE_REFERENCE_ID;
    r.id = (char *)id;
    return r;
}

/* a_t_b by GetTransform, or NULL (last_code says why). */
static bool get_transform(wk_api *api, IntrinsicProto__World__TransformNodeReference *a,
                          IntrinsicProto__World__TransformNodeReference *b, IntrinsicProto__World__ObjectEntityFilter *fa,
                          IntrinsicProto__World__ObjectEntityFilter *fb, wk_pose *out)
{
    IntrinsicProto__World__GetTransformRequest req = INTRINSIC_PROTO__WORLD__GET_TRANSFORM_REQUEST__INIT;
    req.world_id = "w";
    req.node_a = a, req.node_b = b;
    req.node_a_filter = fa, req.node_b_filter = fb;
    IntrinsicProto__World__GetTransformResponse *r =
        ows(api, "GetTransform", &req, &intrinsic_proto__world__get_transform_response__descriptor);
    if (r && r->a_t_b)
        *out = pose_of(r->a_t_b);
    bool ok = r && r->a_t_b;
    done(r);
    return ok;
}

static void transforms(void)
{
    wk_api *api = wk_api_new();
    fixture f;
    REQUIRE(api && build(api, "w", true, &f));
    wk_world *w;
    wk_scene *s = peek(api, "w", &w);
    REQUIRE(s);
    char table_id[WK_ID_MAX], tip_id[WK_ID_MAX];
    wk_scene_object_id(s, f.table, table_id);
    wk_scene_frame_id(s, f.tip, tip_id);
    wk_pose p;

    /* By ids: root to table, tip to the root. */
    IntrinsicProto__World__TransformNodeReference a = node_id("root"), b = node_id(table_id);
    REQUIRE(get_transform(api, &a, &b, NULL, NULL, &p));
    CHECK_POSE_NEAR(p, wk_scene_transform(s, wk_scene_root(s), f.table), 1e-12);
    CHECK_POSE_NEAR(p, make_pose(1, 2, 0, 0.5), 1e-12);
    a = node_id(tip_id), b = node_id("root");
    REQUIRE(get_transform(api, &a, &b, NULL, NULL, &p));
    CHECK_POSE_NEAR(p, wk_scene_transform(s, f.tip, wk_scene_root(s)), 1e-12);

    /* By names: an object and a frame. */
    IntrinsicProto__World__ObjectReferenceByName on = INTRINSIC_PROTO__WORLD__OBJECT_REFERENCE_BY_NAME__INIT;
    on.object_name = "cup";
    IntrinsicProto__World__FrameReferenceByName fn = INTRINSIC_PROTO__WORLD__FRAME_REFERENCE_BY_NAME__INIT;
    fn.object_name = "table", fn.frame_name = "grasp";
    IntrinsicProto__World__TransformNodeReferenceByName an = INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE_BY_NAME__INIT,
                                                        bn = INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE_BY_NAME__INIT;
    an.transform_node_reference_by_name_case =
        INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE_BY_NAME__TRANSFORM_NODE_REFERENCE_BY_NAME_OBJECT;
    an.object = &on;
    bn.transform_node_reference_by_name_case =
        INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE_BY_NAME__TRANSFORM_NODE_REFERENCE_BY_NAME_FRAME;
    bn.frame = &fn;
    a = (IntrinsicProto__World__TransformNodeReference)INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__INIT;
    b = a;
    a.transform_node_reference_case = b.transform_node_reference_case =
        INTRINSIC_PROTO__WORLD__TRANSFORM_NODE_REFERENCE__TRANSFORM_NODE_REFERENCE_BY_NAME;
    a.by_name = &an, b.by_name = &bn;
    REQUIRE(get_transform(api, &a, &b, NULL, NULL, &p));
    CHECK_POSE_NEAR(p, wk_scene_transform(s, f.cup, f.grasp), 1e-12);

    /* Filters pick an entity of an object: the arm's final link, a joint by
     * name; several entities or a filter on a frame are refused. */
    on.object_name = "arm";
    IntrinsicProto__World__TransformNodeReference root = node_id("root");
    IntrinsicProto__World__ObjectEntityFilter fin = INTRINSIC_PROTO__WORLD__OBJECT_ENTITY_FILTER__INIT;
    fin.has_include_final_entity = fin.include_final_entity = true;
    REQUIRE(get_transform(api, &root, &a, NULL, &fin, &p));
    CHECK_POSE_NEAR(p, wk_scene_transform(s, wk_scene_root(s), f.l2), 1e-12);
    IntrinsicProto__World__ObjectEntityFilter named = INTRINSIC_PROTO__WORLD__OBJECT_ENTITY_FILTER__INIT;
    char *j1[] = {"j1"};
    named.entity_names = j1, named.n_entity_names = 1;
    REQUIRE(get_transform(api, &a, &root, &named, NULL, &p));
    wk_entity joint = wk_scene_child(s, f.arm, "j1");
    CHECK_POSE_NEAR(p, wk_scene_transform(s, joint, wk_scene_root(s)), 1e-12);
    /* The same entity by id. */
    char jid[WK_ID_MAX];
    wk_scene_entity_id(s, joint, jid);
    IntrinsicProto__World__EntityReference er = INTRINSIC_PROTO__WORLD__ENTITY_REFERENCE__INIT;
    er.entity_reference_case = INTRINSIC_PROTO__WORLD__ENTITY_REFERENCE__ENTITY_REFERENCE_ID;
    er.id = jid;
    IntrinsicProto__World__EntityReference *erp = &er;
    IntrinsicProto__World__ObjectEntityFilter by_eid = INTRINSIC_PROTO__WORLD__OBJECT_ENTITY_FILTER__INIT;
    by_eid.entity_references = &erp, by_eid.n_entity_references = 1;
    wk_pose q;
    REQUIRE(get_transform(api, &a, &root, &by_eid, NULL, &q));
    CHECK_POSE_NEAR(q, p, 0);
    IntrinsicProto__World__ObjectEntityFilter all = INTRINSIC_PROTO__WORLD__OBJECT_ENTITY_FILTER__INIT;
    all.has_include_all_entities = all.include_all_entities = true;
    CHECK(!get_transform(api, &a, &root, &all, NULL, &p));
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_INVALID_ARGUMENT);
    CHECK(!get_transform(api, &b, &root, &fin, NULL, &p));
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_INVALID_ARGUMENT);
    CHECK_MESSAGE("'grasp'");
    char *nope[] = {"j9"};
    named.entity_names = nope;
    CHECK(!get_transform(api, &a, &root, &named, NULL, &p));
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_NOT_FOUND);
    CHECK_MESSAGE("'j9'");

    /* Missing nodes are named. */
    IntrinsicProto__World__TransformNodeReference ghost = node_id("frm_424242");
    CHECK(!get_transform(api, &root, &ghost, NULL, NULL, &p));
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_NOT_FOUND);
    CHECK_MESSAGE("'frm_424242'");
    fn.frame_name = "nothing";
    CHECK(!get_transform(api, &root, &b, NULL, NULL, &p));
    CHECK_MESSAGE("'nothing'");
    CHECK(!get_transform(api, &root, NULL, NULL, NULL, &p));
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_INVALID_ARGUMENT);
    wk_store_close(w, false, false);
    wk_api_free(api);
}

/* ---- collision settings ---------------------------------------------------- */

static void collision_settings(void)
{
    wk_api *api = wk_api_new();
    fixture f;
    REQUIRE(api && build(api, "w", false, &f));
    wk_world *w;
    wk_status st;
    REQUIRE_INT(wk_store_open(wk_api_store(api), "w", true, &w, &st), ==, WK_OK);
    wk_scene *s = wk_world_scene(w);
    wk_collision_ref left = {f.table, true}, right = {f.cup, false};
    wk_collision_rule rules[2] = {
        {.left = &left, .left_count = 1, .right = &right, .right_count = 1, .action = WK_COLLISION_EXCLUDE},
        {.left = &right, .left_count = 1, .action = WK_COLLISION_MARGIN, .hard_margin = 0.25},
    };
    wk_collision_settings cs = {.has_minimum_margin = true, .minimum_margin = 0.01, .rules = rules, .rule_count = 2};
    REQUIRE_INT(wk_scene_set_collision_settings(s, &cs, &st), ==, WK_OK);
    char table_id[WK_ID_MAX], cup_eid[WK_ID_MAX];
    wk_scene_object_id(s, f.table, table_id);
    wk_scene_entity_id(s, f.cup, cup_eid);
    wk_store_close(w, true, true);

    IntrinsicProto__World__GetCollisionSettingsRequest req = INTRINSIC_PROTO__WORLD__GET_COLLISION_SETTINGS_REQUEST__INIT;
    req.world_id = "w";
    IntrinsicProto__World__CollisionSettings *c =
        ows(api, "GetCollisionSettings", &req, &intrinsic_proto__world__collision_settings__descriptor);
    REQUIRE(c);
    CHECK(!c->disable_collision_checking);
    CHECK(c->has_minimum_margin && c->minimum_margin == 0.01);
    CHECK(!c->has_collision_check_spacing);
    REQUIRE_INT(c->n_collision_rules, ==, 2);
    const IntrinsicProto__World__CollisionSettings__CollisionRule *r0 = c->collision_rules[0], *r1 = c->collision_rules[1];
    REQUIRE(r0->n_left == 1 && r0->n_right == 1);
    CHECK(r0->left[0]->type_case == INTRINSIC_PROTO__WORLD__OBJECT_OR_ENTITY_REFERENCE__TYPE_OBJECT);
    CHECK_STR(r0->left[0]->object->id, table_id);
    CHECK(r0->right[0]->type_case == INTRINSIC_PROTO__WORLD__OBJECT_OR_ENTITY_REFERENCE__TYPE_ENTITY);
    CHECK_STR(r0->right[0]->entity->id, cup_eid);
    CHECK(r0->collision_action && r0->collision_action->is_excluded);
    CHECK_INT(r1->n_right, ==, 0);
    REQUIRE(r1->collision_action &&
            r1->collision_action->action_case == INTRINSIC_PROTO__WORLD__COLLISION_ACTION__ACTION_MARGIN);
    CHECK_NEAR(r1->collision_action->margin->hard_margin, 0.25, 0);
    done(c);

    /* The references resolve back to what they name. */
    REQUIRE_INT(wk_store_open(wk_api_store(api), "w", false, &w, &st), ==, WK_OK);
    c = NULL;
    wk__call call = {0};
    IntrinsicProto__World__CollisionSettings *again = wk__ows_collision_settings(&call, wk_world_scene(w));
    REQUIRE(again);
    wk_collision_ref *refs = NULL;
    size_t n = 0;
    for (size_t i = 0; i < again->n_collision_rules; i++)
        for (size_t k = 0; k < again->collision_rules[i]->n_left; k++)
            CHECK_INT(wk__ows_collision_refs(wk_world_scene(w), &call, again->collision_rules[i]->left[k], &refs, &n, &st),
                      ==, WK_OK);
    REQUIRE_INT(n, ==, 2);
    CHECK(refs[0].entity == f.table && refs[0].whole_object);
    CHECK(refs[1].entity == f.cup && !refs[1].whole_object);
    free(refs);
    for (size_t i = 0; i < call.count; i++)
        free(call.blocks[i]);
    free(call.blocks);
    wk_store_close(w, false, false);
    wk_api_free(api);
}

/* ---- compare and sync ------------------------------------------------------ */

static void compare_and_sync(void)
{
    wk_api *api = wk_api_new();
    fixture f;
    REQUIRE(api && build(api, "w", false, &f));
    done(clone_world(api, "w", "w2", false));
    wk_world *w;
    wk_status st;
    REQUIRE_INT(wk_store_open(wk_api_store(api), "w2", true, &w, &st), ==, WK_OK);
    wk_scene *s2 = wk_world_scene(w);
    wk_entity plate;
    CHECK_INT(wk_scene_create_object(s2, &(wk_object_desc){.name = "plate", .pose = make_pose(3, 0, 0, 0)}, &plate, &st),
              ==, WK_OK);
    CHECK_INT(wk_scene_set_pose(s2, f.table, make_pose(1, 2, 0.5, 0.5), &st), ==, WK_OK);
    CHECK_INT(wk_scene_delete_object(s2, f.lid, false, &st), ==, WK_OK);
    char plate_id[WK_ID_MAX], table_id[WK_ID_MAX];
    wk_scene_object_id(s2, plate, plate_id);
    wk_scene_object_id(s2, f.table, table_id);
    wk_store_close(w, true, true);

    IntrinsicProto__World__CompareWorldsRequest req = INTRINSIC_PROTO__WORLD__COMPARE_WORLDS_REQUEST__INIT;
    req.base_world_id = "w";
    req.changed_world_id = "w2";
    IntrinsicProto__World__CompareWorldsResponse *r =
        ows(api, "CompareWorlds", &req, &intrinsic_proto__world__compare_worlds_response__descriptor);
    REQUIRE(r);
    REQUIRE_INT(r->n_added, ==, 1);
    CHECK_STR(r->added[0]->id, plate_id);
    REQUIRE_INT(r->n_removed, ==, 1);
    CHECK_STR(r->removed[0]->name, "lid");
    CHECK_STR(r->removed[0]->world_id, "w");
    CHECK_INT(r->removed[0]->n_entities, ==, 0); /* BASIC */
    bool table_modified = false;
    for (size_t i = 0; i < r->n_modified; i++)
        if (!strcmp(r->modified[i]->object->id, table_id))
            table_modified = r->modified[i]->modification && r->modified[i]->modification[0];
    CHECK(table_modified);
    CHECK_INT(r->n_base_world_objects, ==, 0);
    CHECK_INT(r->n_changed_world_objects, ==, 0);
    done(r);

    /* With a view: both worlds' objects, in it; by name, the same answer. */
    req.has_view = true;
    req.view = INTRINSIC_PROTO__WORLD__OBJECT_VIEW__FULL;
    req.has_unique_id_mode = true;
    req.unique_id_mode = INTRINSIC_PROTO__WORLD__COMPARE_WORLDS_REQUEST__IDENTIFICATION_MODE__BY_NAME;
    r = ows(api, "CompareWorlds", &req, &intrinsic_proto__world__compare_worlds_response__descriptor);
    REQUIRE(r);
    CHECK_INT(r->n_added, ==, 1);
    CHECK_INT(r->n_removed, ==, 1);
    CHECK_INT(r->n_base_world_objects, ==, 4);
    CHECK_INT(r->n_changed_world_objects, ==, 4);
    REQUIRE(r->n_base_world_objects == 4);
    CHECK_STR(r->base_world_objects[0]->root_entity_id, "eid_root");
    CHECK_INT(r->base_world_objects[1]->n_entities, ==, 3); /* the table and its two frames */
    done(r);

    /* A world compared with itself: nothing. */
    req.changed_world_id = "w";
    req.has_view = false;
    r = ows(api, "CompareWorlds", &req, &intrinsic_proto__world__compare_worlds_response__descriptor);
    REQUIRE(r);
    CHECK_INT(r->n_added + r->n_removed + r->n_modified + r->n_added_frames + r->n_removed_frames, ==, 0);
    done(r);
    req.changed_world_id = "gone";
    CHECK(ows(api, "CompareWorlds", &req, &intrinsic_proto__world__compare_worlds_response__descriptor) == NULL);
    CHECK_MESSAGE("'gone'");

    /* SyncObject brings plate into w with its id; then they compare equal
     * but for the table and the lid. */
    IntrinsicProto__World__ObjectReferenceByName n;
    IntrinsicProto__World__ObjectReference ref = by_name("plate", &n);
    IntrinsicProto__World__SyncObjectRequest sync = INTRINSIC_PROTO__WORLD__SYNC_OBJECT_REQUEST__INIT;
    sync.from_world_id = "w2";
    sync.to_world_id = "w";
    sync.resource_type_case = INTRINSIC_PROTO__WORLD__SYNC_OBJECT_REQUEST__RESOURCE_TYPE_OBJECT;
    sync.object = &ref;
    done(ows(api, "SyncObject", &sync, &intrinsic_proto__world__sync_object_response__descriptor));
    REQUIRE_INT(last_code, ==, WK_OK);
    IntrinsicProto__World__Object *o = get_object(api, "w", "plate", false);
    REQUIRE(o);
    CHECK_STR(o->id, plate_id);
    done(o);
    req.changed_world_id = "w2";
    req.has_unique_id_mode = false;
    r = ows(api, "CompareWorlds", &req, &intrinsic_proto__world__compare_worlds_response__descriptor);
    REQUIRE(r);
    CHECK_INT(r->n_added, ==, 0);
    CHECK_INT(r->n_removed, ==, 1);
    done(r);
    sync.to_world_id = "nowhere";
    CHECK(ows(api, "SyncObject", &sync, &intrinsic_proto__world__sync_object_response__descriptor) == NULL);
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_NOT_FOUND);
    CHECK_MESSAGE("'nowhere'");
    sync.resource_type_case = INTRINSIC_PROTO__WORLD__SYNC_OBJECT_REQUEST__RESOURCE_TYPE__NOT_SET;
    sync.to_world_id = "w";
    CHECK(ows(api, "SyncObject", &sync, &intrinsic_proto__world__sync_object_response__descriptor) == NULL);
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_INVALID_ARGUMENT);
    wk_api_free(api);
}

/* ---- CreateWorld from a snapshot ------------------------------------------- */

/* World id's objects in the FULL view; free with done. */
static IntrinsicProto__World__ListObjectsResponse *full_objects(wk_api *api, const char *id)
{
    IntrinsicProto__World__ListObjectsRequest list = INTRINSIC_PROTO__WORLD__LIST_OBJECTS_REQUEST__INIT;
    list.world_id = (char *)id;
    list.has_view = true;
    list.view = INTRINSIC_PROTO__WORLD__OBJECT_VIEW__FULL;
    return ows(api, "ListObjects", &list, &intrinsic_proto__world__list_objects_response__descriptor);
}

/* CreateWorld of a World holding l's objects (and collision settings, when
 * not NULL), asking for id; the new world's metadata (free with done) or
 * NULL. */
static IntrinsicProto__World__WorldMetadata *create_world(wk_api *api, const char *id,
                                                          IntrinsicProto__World__ListObjectsResponse *l,
                                                          IntrinsicProto__World__CollisionSettings *collisions)
{
    IntrinsicProto__World__WorldMetadata meta = INTRINSIC_PROTO__WORLD__WORLD_METADATA__INIT;
    meta.id = (char *)id;
    IntrinsicProto__World__World world = INTRINSIC_PROTO__WORLD__WORLD__INIT;
    world.world_metadata = &meta;
    world.objects = l->objects;
    world.n_objects = l->n_objects;
    world.collision_settings = collisions;
    IntrinsicProto__World__CreateWorldRequest create = INTRINSIC_PROTO__WORLD__CREATE_WORLD_REQUEST__INIT;
    create.world = &world;
    return ows(api, "CreateWorld", &create, &intrinsic_proto__world__world_metadata__descriptor);
}

/* Checks that CompareWorlds by name finds nothing between two worlds,
 * printing what it found. */
static void same_by_name(wk_api *api, const char *base, const char *changed)
{
    IntrinsicProto__World__CompareWorldsRequest cmp = INTRINSIC_PROTO__WORLD__COMPARE_WORLDS_REQUEST__INIT;
    cmp.base_world_id = (char *)base;
    cmp.changed_world_id = (char *)changed;
    cmp.has_unique_id_mode = true;
    cmp.unique_id_mode = INTRINSIC_PROTO__WORLD__COMPARE_WORLDS_REQUEST__IDENTIFICATION_MODE__BY_NAME;
    IntrinsicProto__World__CompareWorldsResponse *r =
        ows(api, "CompareWorlds", &cmp, &intrinsic_proto__world__compare_worlds_response__descriptor);
    REQUIRE(r);
    CHECK_INT(r->n_added, ==, 0);
    CHECK_INT(r->n_removed, ==, 0);
    CHECK_INT(r->n_added_frames, ==, 0);
    CHECK_INT(r->n_removed_frames, ==, 0);
    CHECK_INT(r->n_modified_frames, ==, 0);
    for (size_t i = 0; i < r->n_modified_frames; i++)
        fprintf(stderr, "    modified frame %s: %s\n", r->modified_frames[i]->frame->name, r->modified_frames[i]->modification);
    for (size_t i = 0; i < r->n_modified; i++)
        fprintf(stderr, "    modified %s: %s\n", r->modified[i]->object->debug_hint, r->modified[i]->modification);
    CHECK_INT(r->n_modified, ==, 0);
    done(r);
}

static void create_from_snapshot(void)
{
    wk_api *api = wk_api_new();
    fixture f;
    REQUIRE(api && build(api, "plain", false, &f));
    IntrinsicProto__World__ListObjectsResponse *l = full_objects(api, "plain");
    REQUIRE(l);
    /* Children before parents: the order must not matter. */
    for (size_t i = 0; i < l->n_objects / 2; i++) {
        IntrinsicProto__World__Object *t = l->objects[i];
        l->objects[i] = l->objects[l->n_objects - 1 - i];
        l->objects[l->n_objects - 1 - i] = t;
    }
    IntrinsicProto__World__WorldMetadata *m = create_world(api, "copy", l, NULL);
    if (!m)
        fprintf(stderr, "    CreateWorld: %s\n", last_message);
    REQUIRE(m);
    CHECK_STR(m->id, "copy");
    done(m);

    /* The copy matches the original by name: same objects, frames, poses. */
    same_by_name(api, "plain", "copy");
    IntrinsicProto__World__Object *lid = get_object(api, "copy", "lid", false);
    REQUIRE(lid && lid->parent_entity);
    IntrinsicProto__World__Frame *tip = NULL;
    wk_world *w;
    wk_scene *s = peek(api, "copy", &w);
    REQUIRE(s);
    wk_entity parent;
    wk_status st;
    IntrinsicProto__World__EntityReference *pe = lid->parent_entity;
    CHECK_INT(wk__ows_find_entity(s, pe, &parent, &st), ==, WK_OK);
    CHECK_STR(wk_scene_name(s, parent), "tip");
    wk_store_close(w, false, false);
    done(tip);
    done(lid);

    done(l);
    wk_api_free(api);
}

/* CreateWorld of a FULL snapshot holding a kinematic object (joints,
 * limits, positions, a configuration, an IK solver, a flange frame, a
 * frame on a link) builds a world that CompareWorlds finds equal by name,
 * whose arm moves like the original. */
static void create_kinematic_from_snapshot(void)
{
    wk_api *api = wk_api_new();
    fixture f;
    REQUIRE(api && build(api, "robots", true, &f));
    wk_world *w;
    wk_status st;
    REQUIRE_INT(wk_store_open(wk_api_store(api), "robots", true, &w, &st), ==, WK_OK);
    wk_scene *s = wk_world_scene(w);
    wk_entity flange;
    const wk_joint_configuration_desc home = {"home", (const double[]){0.5, 0.2}, 2};
    bool ok = !wk_scene_create_frame(s, &(wk_frame_desc){.name = "flange", .parent = f.l2, .pose = make_pose(0, 0, 0.1, 0)},
                                     &flange, &st) &&
              !wk_scene_set_flange_frames(s, f.arm, &flange, 1, &st) &&
              !wk_scene_set_ik_solvers(s, f.arm, &(wk_ik_solver){"solver", f.arm, f.l2}, 1, &st) &&
              !wk_scene_update_joint_configurations(s, f.arm, NULL, 0, &home, 1, &st) &&
              !wk_scene_set_joint_limits(s, f.arm, (const char *const[]){"j1"}, 1, NULL,
                                         &(wk_joint_limits_update){.max_velocity = (const double[]){1.5}}, &st) &&
              !wk_scene_set_collision_settings(
                  s,
                  &(wk_collision_settings){
                      .has_minimum_margin = true,
                      .minimum_margin = 0.125,
                      .rules = (const wk_collision_rule[]){{&(wk_collision_ref){f.arm, true}, 1,
                                                            &(wk_collision_ref){f.l2, false}, 1, WK_COLLISION_EXCLUDE, 0},
                                                           {&(wk_collision_ref){f.table, true}, 1, NULL, 0,
                                                            WK_COLLISION_MARGIN, 0.25}},
                      .rule_count = 2},
                  &st);
    if (!ok)
        fprintf(stderr, "    %s\n", st.message);
    wk_store_close(w, ok, true);
    REQUIRE(ok);

    IntrinsicProto__World__ListObjectsResponse *l = full_objects(api, "robots");
    REQUIRE(l);
    IntrinsicProto__World__GetCollisionSettingsRequest get = INTRINSIC_PROTO__WORLD__GET_COLLISION_SETTINGS_REQUEST__INIT;
    get.world_id = "robots";
    IntrinsicProto__World__CollisionSettings *collisions =
        ows(api, "GetCollisionSettings", &get, &intrinsic_proto__world__collision_settings__descriptor);
    REQUIRE(collisions);
    IntrinsicProto__World__WorldMetadata *m = create_world(api, "robots_copy", l, collisions);
    if (!m)
        fprintf(stderr, "    CreateWorld: %s\n", last_message);
    REQUIRE(m);
    done(m);
    same_by_name(api, "robots", "robots_copy");

    /* The copy's arm is kinematic, with what the original's held. */
    s = peek(api, "robots_copy", &w);
    REQUIRE(s);
    wk_entity arm;
    REQUIRE_INT(wk_scene_find_object(s, &(wk_ref){.object_name = "arm"}, &arm, &st), ==, WK_OK);
    const wk_kinematic_object *k = wk_scene_kinematic_object(s, arm);
    REQUIRE(k);
    CHECK_INT(k->joint_count, ==, 2);
    double q[2];
    CHECK_INT(wk_scene_joint_positions(s, arm, q, 2, &st), ==, WK_OK);
    CHECK_NEAR(q[0], 0.4, 0);
    CHECK_NEAR(q[1], 0.1, 0);
    CHECK_NEAR(k->application_limits[0].max_velocity, 1.5, 0);
    CHECK_NEAR(k->system_limits[0].max_velocity, 2, 0);
    REQUIRE_INT(k->ik_solver_count, ==, 1);
    CHECK_STR(k->ik_solvers[0].key, "solver");
    CHECK_U64(k->ik_solvers[0].base, ==, arm);
    CHECK_STR(wk_scene_name(s, k->ik_solvers[0].tip), "l2");
    REQUIRE_INT(k->flange_count, ==, 1);
    CHECK_STR(wk_scene_name(s, k->flange_frames[0]), "flange");
    CHECK_STR(wk_scene_name(s, wk_ecm_parent(wk_scene_ecm(s), k->flange_frames[0])), "l2");
    REQUIRE_INT(k->configuration_count, ==, 1);
    CHECK_NEAR(k->configurations[0].positions[1], 0.2, 0);
    /* The collision rules name the copy's entities. */
    const wk_collision_settings *c = wk_scene_collision_settings(s);
    REQUIRE_INT(c->rule_count, ==, 2);
    CHECK_U64(c->rules[0].left[0].entity, ==, arm);
    CHECK_STR(wk_scene_name(s, c->rules[0].right[0].entity), "l2");
    CHECK(!c->rules[0].right[0].whole_object);
    CHECK_NEAR(c->rules[1].hard_margin, 0.25, 0); /* exact in the wire's float */
    CHECK_NEAR(c->minimum_margin, 0.125, 0);
    wk_store_close(w, false, false);

    /* A snapshot naming a joint entity it does not hold is refused whole. */
    char **joint_ids = NULL, *kept = NULL;
    for (size_t i = 0; i < l->n_objects; i++)
        if (l->objects[i]->kinematic_object_component && l->objects[i]->kinematic_object_component->n_joint_entity_ids)
            joint_ids = l->objects[i]->kinematic_object_component->joint_entity_ids;
    REQUIRE(joint_ids);
    kept = joint_ids[0];
    joint_ids[0] = "no_such_entity";
    CHECK(create_world(api, "robots_bad", l, collisions) == NULL);
    CHECK_INT(wk_code_grpc(last_code), ==, WK_GRPC_INVALID_ARGUMENT);
    CHECK_MESSAGE("no_such_entity");
    CHECK(get_world(api, "robots_bad") == NULL);
    joint_ids[0] = kept;
    done(collisions);
    done(l);
    wk_api_free(api);
}

/* ---- through wk_api_invoke, as the gRPC server calls ---------------------- */

static bool keep(void *ctx, const uint8_t *msg, size_t len)
{
    return wk_buf_append(ctx, msg, len) == WK_OK;
}

static void invoked(void)
{
    wk_api *api = wk_api_new();
    fixture f;
    REQUIRE(api && build(api, "w", false, &f));
    const char *path = "/intrinsic_proto.world.ObjectWorldService/GetWorld";
    bool streaming = true;
    CHECK(wk_api_has_method(path, &streaming) && !streaming);
    CHECK(wk_api_has_service("intrinsic_proto.world.ObjectWorldService"));
    CHECK(!wk_api_has_method("/intrinsic_proto.world.ObjectWorldService/Teleport", NULL));
    IntrinsicProto__World__GetWorldRequest req = INTRINSIC_PROTO__WORLD__GET_WORLD_REQUEST__INIT;
    req.world_id = "w";
    uint8_t bytes[64];
    size_t len = protobuf_c_message_pack(&req.base, bytes);
    wk_buf out = {0};
    wk_api_sink sink = {.write = keep, .ctx = &out};
    CHECK_INT(wk_api_invoke(api, path, bytes, len, &sink), ==, WK_GRPC_OK);
    IntrinsicProto__World__WorldMetadata *m =
        intrinsic_proto__world__world_metadata__unpack(NULL, out.len, out.data);
    REQUIRE(m);
    CHECK_STR(m->id, "w");
    CHECK_STR(m->user_tag, "tag");
    done(m);
    /* A failure is the status, with the message naming the world. */
    req.world_id = "missing";
    len = protobuf_c_message_pack(&req.base, bytes);
    out.len = 0;
    CHECK_INT(wk_api_invoke(api, path, bytes, len, &sink), ==, WK_GRPC_NOT_FOUND);
    CHECK_INT(out.len, ==, 0);
    CHECK(strstr(sink.message, "'missing'") != NULL);
    CHECK_INT(wk_api_invoke(api, path, (const uint8_t *)"\xff", 1, &sink), ==, WK_GRPC_INVALID_ARGUMENT);
    wk_buf_free(&out);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"worlds", worlds},
    {"hash_across_pose_updates", hash_across_pose_updates},
    {"object_views", object_views},
    {"frames", frames},
    {"transforms", transforms},
    {"collision_settings", collision_settings},
    {"compare_and_sync", compare_and_sync},
    {"create_from_snapshot", create_from_snapshot},
    {"create_kinematic_from_snapshot", create_kinematic_from_snapshot},
    {"invoked", invoked},
};
WK_TEST_MAIN(cases)
