/* test_ows_kinematics.c — ObjectWorldService's updates of kinematic objects:
 * UpdateObjectJoints (revolute positions in radians, as Intrinsic's clients send them,
 * prismatic ones in metres, an order by joint_names, application and system
 * limits, counts that do not match, positions outside the limits, objects
 * that are not kinematic), UpdateObjectJoint through UpdateWorldResources,
 * and UpdateKinematicObjectProperties (named configurations, the IK solver
 * key, Cartesian limits and the mounted payload returned, cloned, compared
 * and rebuilt by CreateWorld, what worldkit does not keep refused by name),
 * each refusal leaving
 * the world's serialized state as it was; mimic joints' limits, and what
 * CloneWorld and CreateWorld keep of their coupling. */
#include <math.h>

#include "api/ows_client.h"
#include "scene/object_world.h"
#include "worldkit/wk_formats.h"

/* World "w" with a kinematic object "arm": j1 revolute about z (limits
 * +-2 rad) moving l1, j2 prismatic along x (0 to 0.5 m) moving l2 on l1;
 * an IK solver from the base to l2; and a plain object "crate". */
static wk_api *arm_world(void)
{
    wk_api *api = wk_api_new();
    if (!api || !ows_world(api)) {
        wk_api_free(api);
        return NULL;
    }
    wk_world *w;
    wk_status st;
    int rc = wk_store_open(wk_api_store(api), "w", true, &w, &st);
    if (rc == WK_OK) {
        wk_scene *s = wk_world_scene(w);
        const wk_joint_desc joints[] = {
            {.name = "j1", .link = "l1", .parent = -1, .motion = WK_JOINT_MOTION_REVOLUTE, .axis = {0, 0, 1},
             .limits = {.min_position = -2, .max_position = 2, .max_velocity = 1}},
            {.name = "j2", .link = "l2", .parent = 0, .motion = WK_JOINT_MOTION_PRISMATIC, .axis = {1, 0, 0},
             .parent_t_inboard = {{0, 0, 1}, {1, 0, 0, 0}}, .limits = {.min_position = 0, .max_position = 0.5}},
        };
        wk_entity arm, crate;
        rc = wk_scene_create_kinematic_object(s, &(wk_kinematic_object_desc){.name = "arm", .joints = joints,
                                                                             .joint_count = 2},
                                              &arm, &st);
        if (rc == WK_OK)
            rc = wk_scene_create_object(s, &(wk_object_desc){.name = "crate"}, &crate, &st);
        wk_entity_list all = {0};
        if (rc == WK_OK && (rc = wk_scene_object_entities(s, arm, &all)) == WK_OK) {
            const wk_ik_solver solver = {"first", arm, all.items[all.count - 1]};
            rc = wk_scene_set_ik_solvers(s, arm, &solver, 1, &st);
        }
        wk_entity_list_free(&all);
        wk_store_close(w, rc == WK_OK, true);
    }
    if (rc) {
        fprintf(stderr, "    arm_world: %s\n", st.message);
        wk_api_free(api);
        return NULL;
    }
    return api;
}

/* The arm's joint positions (radians and metres). */
static void positions(wk_api *api, double out[2])
{
    out[0] = out[1] = NAN;
    wk_world *w;
    wk_status st;
    if (wk_store_open(wk_api_store(api), "w", false, &w, &st))
        return;
    wk_scene *s = wk_world_scene(w);
    wk_entity arm;
    if (wk_scene_find_object(s, &(wk_ref){.object_name = "arm"}, &arm, &st) == WK_OK)
        (void)wk_scene_joint_positions(s, arm, out, 2, &st);
    wk_store_close(w, false, false);
}

static const wk_kinematic_object *arm_of(wk_api *api, wk_world **w)
{
    wk_status st;
    wk_entity arm;
    if (wk_store_open(wk_api_store(api), "w", false, w, &st))
        return NULL;
    wk_scene *s = wk_world_scene(*w);
    return wk_scene_find_object(s, &(wk_ref){.object_name = "arm"}, &arm, &st) ? NULL
                                                                               : wk_scene_kinematic_object(s, arm);
}

static void joint_positions(void)
{
    wk_api *api = arm_world();
    REQUIRE(api);
    double q[2];
    /* In order: a quarter turn and 0.1 m, read and shown in radians (not
     * in degrees, as the request's comment upstream says). */
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'jointPositions':[1.5707963267948966,0.1],"
               "'view':'FULL'}",
               WK_GRPC_OK, "'jointPositions':[1.5707963267948");
    positions(api, q);
    CHECK_NEAR(q[0], M_PI / 2, 1e-12);
    CHECK_NEAR(q[1], 0.1, 1e-12);
    /* By name, in another order. */
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'jointNames':['j2','j1'],"
               "'jointPositions':[0.25,-0.7853981633974483]}",
               WK_GRPC_OK, "'name':'arm'");
    positions(api, q);
    CHECK_NEAR(q[0], -M_PI / 4, 1e-12);
    CHECK_NEAR(q[1], 0.25, 1e-12);

    wk_buf before = ows_state(api, "w");
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'jointPositions':[10]}",
               WK_GRPC_INVALID_ARGUMENT, "UpdateObjectJoints 'arm': 1 joint positions for 2 joints");
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'jointNames':['j1'],'jointPositions':[1,2]}",
               WK_GRPC_INVALID_ARGUMENT, "2 joint positions for 1 joint names");
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'jointNames':['j9'],'jointPositions':[1]}",
               WK_GRPC_NOT_FOUND, "j9");
    /* pi is past j1's 2 rad. */
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'jointPositions':[3.14159,0]}",
               WK_GRPC_OUT_OF_RANGE, "j1");
    OWS_EXPECT(api, "UpdateObjectJoints", "{'worldId':'w','object':{'byName':{'objectName':'arm'}}}",
               WK_GRPC_INVALID_ARGUMENT, "none of joint_positions, joint_application_limits and joint_system_limits");
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'crate'}},'jointPositions':[1]}",
               WK_GRPC_FAILED_PRECONDITION, "object 'crate' is not a kinematic object");
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'robot'}},'jointPositions':[1]}", WK_GRPC_NOT_FOUND,
               "robot");
    CHECK(ows_unchanged(api, "w", &before));
    wk_api_free(api);
}

static void joint_limits(void)
{
    wk_api *api = arm_world();
    REQUIRE(api);
    /* Application limits narrowed within the system's, by name. */
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'jointNames':['j1'],"
               "'jointApplicationLimits':{'minPosition':{'values':[-1]},'maxPosition':{'values':[1]}}}",
               WK_GRPC_OK, NULL);
    wk_world *w;
    const wk_kinematic_object *k = arm_of(api, &w);
    REQUIRE(k);
    CHECK_NEAR(k->application_limits[0].min_position, -1, 0);
    CHECK_NEAR(k->application_limits[0].max_position, 1, 0);
    CHECK_NEAR(k->system_limits[0].max_position, 2, 0);
    wk_store_close(w, false, false);
    /* 1.4 rad is within the system limits, not the application ones. */
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'jointPositions':[1.4,0]}",
               WK_GRPC_OUT_OF_RANGE, "j1");
    /* Wider application limits than the system's are refused; a list of
     * the wrong length too. */
    wk_buf before = ows_state(api, "w");
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},"
               "'jointApplicationLimits':{'maxPosition':{'values':[3,0.5]}}}",
               WK_GRPC_OUT_OF_RANGE, "j1");
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},"
               "'jointSystemLimits':{'maxVelocity':{'values':[3]}}}",
               WK_GRPC_INVALID_ARGUMENT, "joint_system_limits.max_velocity holds 1 values for 2 joints");
    CHECK(ows_unchanged(api, "w", &before));
    /* System and application limits together, positions checked against
     * the new ones. */
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'jointPositions':[2.6,0.2],"
               "'jointSystemLimits':{'maxPosition':{'values':[3,0.5]}},"
               "'jointApplicationLimits':{'maxPosition':{'values':[3,0.5]}}}",
               WK_GRPC_OK, NULL);
    double q[2];
    positions(api, q);
    CHECK_NEAR(q[0], 2.6, 1e-12);
    wk_api_free(api);
}

/* Joint positions alone leave the structure hash; limits change it. */
static void structure_hash(void)
{
    wk_api *api = arm_world();
    REQUIRE(api);
    wk_world_meta m0, m1, m2;
    wk_status st;
    REQUIRE_INT(wk_store_meta(wk_api_store(api), "w", &m0, &st), ==, WK_OK);
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'jointPositions':[0.5,0.3]}", WK_GRPC_OK, NULL);
    REQUIRE_INT(wk_store_meta(wk_api_store(api), "w", &m1, &st), ==, WK_OK);
    CHECK_STR(m1.structure_hash, m0.structure_hash);
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},"
               "'jointApplicationLimits':{'maxVelocity':{'values':[0.5,0.5]}}}",
               WK_GRPC_OK, NULL);
    REQUIRE_INT(wk_store_meta(wk_api_store(api), "w", &m2, &st), ==, WK_OK);
    CHECK(strcmp(m2.structure_hash, m1.structure_hash) != 0);
    wk_api_free(api);
}

/* UpdateObjectJoint exists only as a case of UpdateWorldResources. */
static void one_joint(void)
{
    wk_api *api = arm_world();
    REQUIRE(api);
    OWS_EXPECT(api, "UpdateWorldResources",
               "{'worldId':'w','worldUpdates':{'updates':[{'updateObjectJoint':{'object':{'byName':{'objectName':'arm'}},"
               "'jointName':'j1','jointPosition':-0.5}}]}}",
               WK_GRPC_OK, "'name':'arm'");
    double q[2];
    positions(api, q);
    CHECK_NEAR(q[0], -0.5, 1e-12);
    CHECK_NEAR(q[1], 0, 0);
    OWS_EXPECT(api, "UpdateWorldResources",
               "{'worldId':'w','worldUpdates':{'updates':[{'updateObjectJoint':{'object':{'byName':{'objectName':'arm'}},"
               "'jointName':'j2'}}]}}",
               WK_GRPC_INVALID_ARGUMENT, "update 0 (update_object_joint): UpdateObjectJoint 'arm': joint_position of "
                                         "joint 'j2' is not set");
    OWS_EXPECT(api, "UpdateWorldResources",
               "{'worldId':'w','worldUpdates':{'updates':[{'updateObjectJoint':{'object':{'byName':{'objectName':'arm'}},"
               "'jointPosition':1}}]}}",
               WK_GRPC_INVALID_ARGUMENT, "joint_name is not set");
    OWS_EXPECT(api, "UpdateWorldResources",
               "{'worldId':'w','worldUpdates':{'updates':[{'updateObjectJoint':{'object':{'byName':{'objectName':'arm'}},"
               "'jointName':'j2','jointPosition':0.9}}]}}",
               WK_GRPC_OUT_OF_RANGE, "j2");
    wk_api_free(api);
}

static void kinematic_properties(void)
{
    wk_api *api = arm_world();
    REQUIRE(api);
    OWS_EXPECT(api, "UpdateKinematicObjectProperties",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'view':'FULL',"
               "'namedJointConfigurationsToSet':[{'name':'home','jointPositions':[0,0]},"
               "{'name':'reach','jointPositions':[1,0.4]}]}",
               WK_GRPC_OK, "'namedJointConfigurations':[{'name':'home'");
    OWS_EXPECT(api, "UpdateKinematicObjectProperties",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'namedJointConfigurationsToRemove':['home'],"
               "'namedJointConfigurationsToSet':[{'name':'reach','jointPositions':[0.5,0.2]}],"
               "'robotKinematicsUpdate':{'ikSolverKey':'second'}}",
               WK_GRPC_OK, NULL);
    wk_world *w;
    const wk_kinematic_object *k = arm_of(api, &w);
    REQUIRE(k);
    CHECK_INT(k->configuration_count, ==, 1);
    if (k->configuration_count == 1) {
        CHECK_STR(k->configurations[0].name, "reach");
        CHECK_NEAR(k->configurations[0].positions[0], 0.5, 0);
    }
    CHECK(k->ik_solver_count == 1 && strcmp(k->ik_solvers[0].key, "second") == 0);
    wk_store_close(w, false, false);

    wk_buf before = ows_state(api, "w");
    OWS_EXPECT(api, "UpdateKinematicObjectProperties",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'namedJointConfigurationsToRemove':['home']}",
               WK_GRPC_NOT_FOUND, "home");
    OWS_EXPECT(api, "UpdateKinematicObjectProperties",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},"
               "'namedJointConfigurationsToSet':[{'name':'short','jointPositions':[1]}]}",
               WK_GRPC_INVALID_ARGUMENT, "UpdateKinematicObjectProperties 'arm': ");
    OWS_EXPECT(api, "UpdateKinematicObjectProperties",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},"
               "'robotKinematicsUpdate':{'robotEntityUpdates':{'entities':[{'entityName':'l1'}]}}}",
               WK_GRPC_INVALID_ARGUMENT, "robot_kinematics_update.robot_entity_updates is not supported");
    OWS_EXPECT(api, "UpdateKinematicObjectProperties",
               "{'worldId':'w','object':{'byName':{'objectName':'crate'}},"
               "'namedJointConfigurationsToSet':[{'name':'home','jointPositions':[]}]}",
               WK_GRPC_FAILED_PRECONDITION, "object 'crate' is not a kinematic object");
    CHECK(ows_unchanged(api, "w", &before));
    wk_api_free(api);
}

/* A parent_object's filter must pick exactly one entity of the arm. */
static void parent_filters(void)
{
    wk_api *api = arm_world();
    REQUIRE(api);
    const char *box = "'createSingleEntityObject':{'geometryComponent':" OWS_SHAPE("'sphere':{'radius':0.1}") "}";
    char json[1024];
    snprintf(json, sizeof json,
             "{'worldId':'w','name':'tool','parentObject':{'reference':{'byName':{'objectName':'arm'}},"
             "'entityFilter':{'includeAllEntities':true}},%s}",
             box);
    OWS_EXPECT(api, "CreateObject", json, WK_GRPC_INVALID_ARGUMENT, "CreateObject 'tool': parent_object: ");
    snprintf(json, sizeof json,
             "{'worldId':'w','name':'tool','parentObject':{'reference':{'byName':{'objectName':'arm'}},"
             "'entityFilter':{'entityNames':['l2']}},'parentObjectTCreatedObject':{'position':{'x':0.1}},%s}",
             box);
    OWS_EXPECT(api, "CreateObject", json, WK_GRPC_OK, "'name':'tool'");
    /* The tool hangs from l2: moving j2 moves it. */
    wk_world *w;
    wk_status st;
    wk_entity tool;
    REQUIRE_INT(wk_store_open(wk_api_store(api), "w", false, &w, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_find_object(wk_world_scene(w), &(wk_ref){.object_name = "tool"}, &tool, &st), ==, WK_OK);
    double x0 = wk_scene_pose(wk_world_scene(w), tool).p.x;
    wk_store_close(w, false, false);
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'jointNames':['j2'],'jointPositions':[0.3]}",
               WK_GRPC_OK, NULL);
    REQUIRE_INT(wk_store_open(wk_api_store(api), "w", false, &w, &st), ==, WK_OK);
    CHECK_NEAR(wk_scene_pose(wk_world_scene(w), tool).p.x, x0 + 0.3, 1e-12);
    wk_store_close(w, false, false);
    wk_api_free(api);
}

/* A world made from a file whose frames are attached to a link below a
 * revolute joint (tests/formats/worlds/attached_frames.sdf), the model's
 * own and a world's (attached_to robot::forearm, a frame of the object
 * robot): turning the joint through UpdateObjectJoints carries the frames
 * along. */
static void file_frames_follow_joints(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    wk_world_desc *desc = NULL;
    wk_status st;
    REQUIRE_INT(wk_desc_read(&(wk_read_desc){.uri = WK_TEST_WORLDS "/attached_frames.sdf"}, &desc, &st), ==, WK_OK);
    char id[WK_WORLD_ID_MAX];
    REQUIRE_INT(wk_store_create(wk_api_store(api), &(wk_world_create_desc){.id = "f", .file = desc}, id, &st), ==,
                WK_OK);
    wk_world *w;
    REQUIRE_INT(wk_store_open(wk_api_store(api), "f", false, &w, &st), ==, WK_OK);
    wk_scene *s = wk_world_scene(w);
    wk_entity tool, tip, above, forearm;
    REQUIRE_INT(wk_scene_find_frame(s, &(wk_ref){.object_name = "robot", .frame_name = "tool"}, &tool, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_find_frame(s, &(wk_ref){.object_name = "robot", .frame_name = "tool_tip"}, &tip, &st), ==,
                WK_OK);
    REQUIRE_INT(wk_scene_find_frame(s, &(wk_ref){.object_name = "robot", .frame_name = "above_forearm"}, &above, &st),
                ==, WK_OK);
    forearm = wk_ecm_parent(wk_scene_ecm(s), tool);
    CHECK_STR(wk_scene_name(s, forearm), "forearm");
    CHECK_U64(wk_ecm_parent(wk_scene_ecm(s), above), ==, forearm);
    wk_pose forearm0 = wk_scene_pose(s, forearm), tool0 = wk_scene_pose(s, tool), tip0 = wk_scene_pose(s, tip),
            above0 = wk_scene_pose(s, above);
    wk_store_close(w, false, false);
    OWS_EXPECT(api, "UpdateObjectJoints",
               "{'worldId':'f','object':{'byName':{'objectName':'robot'}},'jointNames':['elbow'],'jointPositions':[0.5]}",
               WK_GRPC_OK, "'name':'robot'");
    REQUIRE_INT(wk_store_open(wk_api_store(api), "f", false, &w, &st), ==, WK_OK);
    s = wk_world_scene(w);
    wk_pose forearm1 = wk_scene_pose(s, forearm), moved = wk_pose_compose(forearm1, wk_pose_inverse(forearm0));
    CHECK(fabs(forearm1.p.x - forearm0.p.x) + fabs(forearm1.p.y - forearm0.p.y) > 0.01);
    CHECK_POSE_NEAR(wk_scene_pose(s, tool), wk_pose_compose(moved, tool0), 1e-12);
    CHECK_POSE_NEAR(wk_scene_pose(s, tip), wk_pose_compose(moved, tip0), 1e-12);
    CHECK_POSE_NEAR(wk_scene_pose(s, above), wk_pose_compose(moved, above0), 1e-12);
    wk_store_close(w, false, false);
    wk_api_free(api);
}

/* World id of the store made from tests/formats/worlds/arm.urdf, whose
 * finger_right_joint mimics finger_left_joint (multiplier 1, offset 0.001,
 * both limited to [0, 0.04] m). */
static bool arm_file_world(wk_api *api, const char *id)
{
    wk_world_desc *desc = NULL;
    wk_status st;
    char made[WK_WORLD_ID_MAX];
    if (wk_desc_read(&(wk_read_desc){.uri = WK_TEST_WORLDS "/arm.urdf", .ignore_missing_or_unsupported_assets = true},
                     &desc, &st) == WK_OK &&
        wk_store_create(wk_api_store(api), &(wk_world_create_desc){.id = id, .file = desc}, made, &st) == WK_OK)
        return true;
    fprintf(stderr, "    arm.urdf: %s\n", st.message);
    return false;
}

/* The position of joint name of world id's object arm, NAN when missing. */
static double arm_joint_position(wk_api *api, const char *id, const char *name)
{
    double q = NAN;
    wk_world *w;
    wk_status st;
    wk_entity arm;
    if (wk_store_open(wk_api_store(api), id, false, &w, &st))
        return q;
    wk_scene *s = wk_world_scene(w);
    wk_entity_list all = {0};
    if (wk_scene_find_object(s, &(wk_ref){.object_name = "arm"}, &arm, &st) == WK_OK &&
        wk_scene_object_entities(s, arm, &all) == WK_OK)
        for (size_t i = 0; i < all.count; i++)
            if (!strcmp(wk_scene_name(s, all.items[i]), name) && wk_scene_kinematics(s, all.items[i]))
                q = wk_scene_kinematics(s, all.items[i])->position;
    wk_entity_list_free(&all);
    wk_store_close(w, false, false);
    return q;
}

/* Sets world id's finger_left_joint to q with UpdateObjectJoints. */
static bool set_leader(wk_api *api, const char *id, double q, int status, const char *needle)
{
    char json[256];
    snprintf(json, sizeof json,
             "{'worldId':'%s','object':{'byName':{'objectName':'arm'}},'jointNames':['finger_left_joint'],"
             "'jointPositions':[%.17g]}",
             id, q);
    return OWS_EXPECT(api, "UpdateObjectJoints", json, status, needle);
}

/* A leader position that puts the follower past its limits is refused as
 * OUT_OF_RANGE naming the follower, the world unchanged. */
static void mimic_limits(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api && arm_file_world(api, "a"));
    REQUIRE(set_leader(api, "a", 0.02, WK_GRPC_OK, NULL));
    CHECK_NEAR(arm_joint_position(api, "a", "finger_right_joint"), 0.021, 1e-15);
    wk_buf before = ows_state(api, "a");
    CHECK(set_leader(api, "a", 0.04, WK_GRPC_OUT_OF_RANGE, "joint 'finger_right_joint' of object 'arm'"));
    CHECK(ows_unchanged(api, "a", &before));
    wk_api_free(api);
}

/* Intrinsic's messages have no field for a mimic coupling: CloneWorld,
 * which copies the world whole, keeps it, and the clone's follower moves
 * with its leader; CreateWorld from the FULL snapshot (ListObjects' objects
 * as the World) rebuilds the follower as a joint at its snapshot position
 * that follows nothing. */
static void mimic_in_copies(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api && arm_file_world(api, "a"));
    REQUIRE(set_leader(api, "a", 0.01, WK_GRPC_OK, NULL));
    OWS_EXPECT(api, "CloneWorld", "{'worldId':'a','clonedWorldId':'a_clone'}", WK_GRPC_OK, "'id':'a_clone'");
    REQUIRE(set_leader(api, "a_clone", 0.02, WK_GRPC_OK, NULL));
    CHECK_NEAR(arm_joint_position(api, "a_clone", "finger_right_joint"), 0.021, 1e-15);
    CHECK_NEAR(arm_joint_position(api, "a", "finger_right_joint"), 0.011, 1e-15);

    ows_answer list;
    REQUIRE_INT(ows_call(api, "ListObjects", "{'worldId':'a','view':'FULL'}", &list), ==, WK_GRPC_OK);
    const char *objects = (const char *)list.json.data;
    REQUIRE(objects[0] == '{');
    size_t len = strlen(objects) + 64;
    char *create = malloc(len);
    REQUIRE(create);
    snprintf(create, len, "{'world':{'worldMetadata':{'id':'a_copy'},%s}", objects + 1);
    OWS_EXPECT(api, "CreateWorld", create, WK_GRPC_OK, "'id':'a_copy'");
    free(create);
    wk_buf_free(&list.json);
    CHECK_NEAR(arm_joint_position(api, "a_copy", "finger_right_joint"), 0.011, 1e-15);
    REQUIRE(set_leader(api, "a_copy", 0.02, WK_GRPC_OK, NULL));
    CHECK_NEAR(arm_joint_position(api, "a_copy", "finger_left_joint"), 0.02, 1e-15);
    CHECK_NEAR(arm_joint_position(api, "a_copy", "finger_right_joint"), 0.011, 1e-15);
    wk_api_free(api);
}

/* Cartesian limits and the mounted payload: kept as given, returned in the
 * FULL view only, copied by CloneWorld and CreateWorld, seen by
 * CompareWorlds; malformed ones refused, naming the field, with the world
 * unchanged. */
static const char *const limits_and_payload =
    "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'view':'FULL',"
    "'cartesianLimits':{'minTranslationalVelocity':[-1,-2,-3],'maxTranslationalVelocity':[1,2,3],"
    "'maxTranslationalPosition':[5,'Infinity',6],'maxRotationalVelocity':0.5},"
    "'mountedPayload':{'massKg':2.5,'tipTCog':{'position':{'z':0.1},'orientation':{'w':1}},"
    "'inertia':{'rows':3,'cols':3,'values':[0.1,0,0,0,0.2,0,0,0,0.3]}}}";

static void cartesian_limits_and_payload(void)
{
    wk_api *api = arm_world();
    REQUIRE(api);
    OWS_EXPECT(api, "UpdateKinematicObjectProperties", limits_and_payload, WK_GRPC_OK,
               "'cartesianLimits':{'minTranslationalVelocity':[-1,-2,-3],'maxTranslationalVelocity':[1,2,3],"
               "'maxTranslationalPosition':[5,'Infinity',6],'maxRotationalVelocity':0.5},");
    wk_world *w;
    wk_status st;
    wk_entity arm;
    REQUIRE(wk_store_open(wk_api_store(api), "w", false, &w, &st) == WK_OK);
    wk_scene *s = wk_world_scene(w);
    const wk_cartesian_limits *l = NULL;
    const wk_payload *p = NULL;
    if (wk_scene_find_object(s, &(wk_ref){.object_name = "arm"}, &arm, &st) == WK_OK) {
        l = wk_scene_cartesian_limits(s, arm);
        p = wk_scene_payload(s, arm);
    }
    CHECK(l && p);
    if (l && p) {
        CHECK_INT(l->present, ==, 1u << WK_CART_MIN_VELOCITY | 1u << WK_CART_MAX_VELOCITY | 1u << WK_CART_MAX_POSITION);
        CHECK_NEAR(l->translational[WK_CART_MIN_VELOCITY].y, -2, 0);
        CHECK(isinf(l->translational[WK_CART_MAX_POSITION].y));
        CHECK_NEAR(l->max_rotational_velocity, 0.5, 0);
        CHECK_NEAR(p->mass_kg, 2.5, 0);
        CHECK_NEAR(p->tip_t_cog.p.z, 0.1, 0);
        CHECK_NEAR(p->inertia[2][2], 0.3, 0);
    }
    wk_store_close(w, false, false);

    ows_answer basic;
    REQUIRE_INT(ows_call(api, "GetObject", "{'worldId':'w','object':{'byName':{'objectName':'arm'}}}", &basic), ==,
                WK_GRPC_OK);
    CHECK(!ows_has(&basic, "cartesianLimits") && !ows_has(&basic, "mountedPayload"));
    wk_buf_free(&basic.json);
    OWS_EXPECT(api, "GetObject", "{'worldId':'w','object':{'byName':{'objectName':'arm'}},'view':'FULL'}", WK_GRPC_OK,
               "'inertia':{'rows':3,'cols':3,'values':[0.1,0,0,0,0.2,0,0,0,0.3]}");

    /* A clone is equal; a payload changed on it is a difference. */
    OWS_EXPECT(api, "CloneWorld", "{'worldId':'w','clonedWorldId':'w2'}", WK_GRPC_OK, "'id':'w2'");
    OWS_EXPECT(api, "GetObject", "{'worldId':'w2','object':{'byName':{'objectName':'arm'}},'view':'FULL'}",
               WK_GRPC_OK, "'maxTranslationalVelocity':[1,2,3]");
    ows_answer same;
    REQUIRE_INT(ows_call(api, "CompareWorlds", "{'baseWorldId':'w','changedWorldId':'w2'}", &same), ==, WK_GRPC_OK);
    CHECK(!ows_has(&same, "modified"));
    wk_buf_free(&same.json);
    OWS_EXPECT(api, "UpdateKinematicObjectProperties",
               "{'worldId':'w2','object':{'byName':{'objectName':'arm'}},'mountedPayload':{'massKg':3}}", WK_GRPC_OK,
               NULL);
    OWS_EXPECT(api, "CompareWorlds", "{'baseWorldId':'w','changedWorldId':'w2'}", WK_GRPC_OK, "Payload changed");

    /* CreateWorld from the FULL snapshot rebuilds both. */
    ows_answer list;
    REQUIRE_INT(ows_call(api, "ListObjects", "{'worldId':'w','view':'FULL'}", &list), ==, WK_GRPC_OK);
    const char *objects = (const char *)list.json.data;
    size_t len = strlen(objects) + 64;
    char *create = malloc(len);
    REQUIRE(create && objects[0] == '{');
    snprintf(create, len, "{'world':{'worldMetadata':{'id':'w3'},%s}", objects + 1);
    OWS_EXPECT(api, "CreateWorld", create, WK_GRPC_OK, "'id':'w3'");
    free(create);
    wk_buf_free(&list.json);
    OWS_EXPECT(api, "GetObject", "{'worldId':'w3','object':{'byName':{'objectName':'arm'}},'view':'FULL'}",
               WK_GRPC_OK, "'mountedPayload':{'massKg':2.5,'tipTCog':{'position':{'x':0,'y':0,'z':0.1}");

    wk_buf before = ows_state(api, "w");
    static const struct {
        const char *part, *status_says;
        int code;
    } refused[] = {
        {"'cartesianLimits':{'maxTranslationalJerk':[1,2]}", "cartesian_limits.max_translational_jerk holds 2 values",
         WK_GRPC_INVALID_ARGUMENT},
        {"'cartesianLimits':{'minTranslationalPosition':[0,0,2],'maxTranslationalPosition':[1,1,1]}",
         "min_translational_position[2] 2 is above max_translational_position[2] 1", WK_GRPC_INVALID_ARGUMENT},
        {"'cartesianLimits':{'maxRotationalJerk':-1}", "cartesian_limits.max_rotational_jerk -1",
         WK_GRPC_INVALID_ARGUMENT},
        {"'mountedPayload':{'massKg':-1}", "object 'arm': mounted_payload.mass_kg -1", WK_GRPC_INVALID_ARGUMENT},
        {"'mountedPayload':{'inertia':{'rows':2,'cols':2,'values':[1,0,0,1]}}",
         "mounted_payload.inertia is 2x2 with 4 values", WK_GRPC_INVALID_ARGUMENT},
        {"'mountedPayload':{'inertia':{'rows':3,'cols':3,'values':[1,0,0,0.5,1,0,0,0,1]}}",
         "mounted_payload.inertia is not finite and symmetric", WK_GRPC_INVALID_ARGUMENT},
        {"'mountedPayload':{'tipTCog':{'orientation':{'x':2}}}", "mounted_payload.tip_t_cog is not a valid pose",
         WK_GRPC_INVALID_ARGUMENT},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char json[512];
        snprintf(json, sizeof json, "{'worldId':'w','object':{'byName':{'objectName':'arm'}},%s}", refused[i].part);
        OWS_EXPECT(api, "UpdateKinematicObjectProperties", json, refused[i].code, refused[i].status_says);
    }
    OWS_EXPECT(api, "UpdateKinematicObjectProperties",
               "{'worldId':'w','object':{'byName':{'objectName':'crate'}},'mountedPayload':{'massKg':1}}",
               WK_GRPC_FAILED_PRECONDITION, "object 'crate' is not a kinematic object");
    CHECK(ows_unchanged(api, "w", &before));
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"file_frames_follow_joints", file_frames_follow_joints},
    {"parent_filters", parent_filters},
    {"joint_positions", joint_positions},
    {"joint_limits", joint_limits},
    {"structure_hash", structure_hash},
    {"one_joint", one_joint},
    {"kinematic_properties", kinematic_properties},
    {"cartesian_limits_and_payload", cartesian_limits_and_payload},
    {"mimic_limits", mimic_limits},
    {"mimic_in_copies", mimic_in_copies},
};
WK_TEST_MAIN(cases)
