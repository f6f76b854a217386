/* test_kinematics.c — kinematic objects: an arm built from joints, positions
 * set and stored in radians, a tool frame posed where the joints
 * put it, limits and their rules, all-or-nothing refusals, named
 * configurations, IK solvers and flanges as data, prismatic joints carrying
 * attached objects, clones and serialized state, malformed component bytes,
 * and the kinematic objects world files turn into. */
#include <math.h>
#include <stdlib.h>

#include "scene/kinematics_internal.h"
#include "scene/object_world.h"
#include "worldkit/wk_formats.h"

static const double pi = 3.14159265358979323846;

/* arm: shoulder turns about z at 0.1 above the base, elbow about y at 0.5
 * above the shoulder's link, slide along x 0.4 out from the elbow's link;
 * tcp hangs 0.1 below the hand. */
typedef struct arm {
    wk_scene *s;
    wk_entity base, upper, forearm, hand, tcp;
    wk_entity shoulder, elbow, slide;
} arm;

static const wk_joint_desc arm_joints[] = {
    {.name = "shoulder", .link = "upper", .parent = -1, .motion = WK_JOINT_MOTION_REVOLUTE,
     .parent_t_inboard = {{0, 0, 0.1}, {1, 0, 0, 0}}, .limits = {.min_position = -3.2, .max_position = 3.2}},
    {.name = "elbow", .link = "forearm", .parent = 0, .motion = WK_JOINT_MOTION_REVOLUTE, .axis = {0, 2, 0},
     .parent_t_inboard = {{0, 0, 0.5}, {1, 0, 0, 0}},
     .limits = {.min_position = -2, .max_position = 2, .max_velocity = 1.5}},
    {.name = "slide", .link = "hand", .parent = 1, .motion = WK_JOINT_MOTION_PRISMATIC, .axis = {1, 0, 0},
     .parent_t_inboard = {{0.4, 0, 0}, {1, 0, 0, 0}}, .limits = {.min_position = 0, .max_position = 0.2}},
};

static wk_entity child_named(const wk_scene *s, wk_entity parent, const char *name)
{
    return wk_scene_child(s, parent, name);
}

static bool make_arm(arm *a)
{
    a->s = new_world();
    if (!a->s)
        return false;
    wk_status st;
    wk_kinematic_object_desc desc = {.name = "arm", .pose = at(1, 0, 0, 0, 0, 0), .joints = arm_joints,
                                     .joint_count = 3};
    if (wk_scene_create_kinematic_object(a->s, &desc, &a->base, &st)) {
        fprintf(stderr, "create_kinematic_object: %s\n", st.message);
        return false;
    }
    a->shoulder = child_named(a->s, a->base, "shoulder");
    a->upper = child_named(a->s, a->shoulder, "upper");
    a->elbow = child_named(a->s, a->upper, "elbow");
    a->forearm = child_named(a->s, a->elbow, "forearm");
    a->slide = child_named(a->s, a->forearm, "slide");
    a->hand = child_named(a->s, a->slide, "hand");
    /* Frame poses are given in the object's base frame; at zero the hand
     * sits at (0.4, 0, 0.6) there, unturned. */
    a->tcp = frame_at(a->s, "tcp", a->hand, at(0.4, 0, 0.5, 0, 0, 0));
    return a->hand && a->tcp;
}

static void positions(const wk_scene *s, wk_entity object, double out[3])
{
    wk_status st;
    if (wk_scene_joint_positions(s, object, out, 3, &st))
        fprintf(stderr, "joint_positions: %s\n", st.message);
}

static void build_an_arm(void)
{
    arm a;
    REQUIRE(make_arm(&a));
    const wk_object_info *info = wk_scene_object_info(a.s, a.base);
    CHECK_INT(info->type, ==, WK_OBJECT_KINEMATIC);
    CHECK_INT(wk_scene_joint_count(a.s, a.base), ==, 3);
    wk_entity_list joints = {0};
    wk_status st;
    CHECK_INT(wk_scene_joints(a.s, a.base, &joints, &st), ==, WK_OK);
    REQUIRE_INT(joints.count, ==, 3);
    CHECK_U64(joints.items[0], ==, a.shoulder);
    CHECK_U64(joints.items[1], ==, a.elbow);
    CHECK_U64(joints.items[2], ==, a.slide);
    wk_entity_list_free(&joints);
    const wk_kinematics *elbow = wk_scene_kinematics(a.s, a.elbow);
    REQUIRE(elbow);
    CHECK_INT(elbow->motion, ==, WK_JOINT_MOTION_REVOLUTE);
    CHECK_VEC3_NEAR(elbow->axis, ((wk_vec3){0, 1, 0}), 0); /* made unit */
    CHECK_U64(wk_scene_kinematics(a.s, a.hand), ==, 0);
    /* The desc's zero fields are unlimited; max_effort is always 0. */
    const wk_kinematic_object *k = wk_scene_kinematic_object(a.s, a.base);
    REQUIRE(k);
    CHECK_NEAR(k->system_limits[1].max_velocity, 1.5, 0);
    CHECK(isinf(k->system_limits[0].max_velocity));
    CHECK_NEAR(k->application_limits[2].max_position, 0.2, 0);
    CHECK_NEAR(k->application_limits[2].max_effort, 0, 0);
    CHECK_POSE_NEAR(wk_scene_pose(a.s, a.tcp), at(1.4, 0, 0.5, 0, 0, 0), 1e-12);
    /* A physical object is not kinematic. */
    wk_entity table = object_at(a.s, "table", 0, wk_pose_identity());
    CHECK_U64(wk_scene_kinematic_object(a.s, table), ==, 0);
    CHECK_INT(wk_scene_joint_count(a.s, table), ==, 0);
    double q[3];
    CHECK_INT(wk_scene_joint_positions(a.s, table, q, 3, &st), ==, WK_PRECONDITION);
    CHECK_STR(st.message, "object 'table' is not a kinematic object");
    CHECK_INT(wk_scene_joint_positions(a.s, a.base, q, 2, &st), ==, WK_INVALID);
    CHECK_INT(wk_scene_joints(a.s, a.hand, &joints, &st), ==, WK_NOT_FOUND);
    wk_scene_free(a.s);
}

static void positions_move_the_tool(void)
{
    arm a;
    REQUIRE(make_arm(&a));
    wk_status st;
    const double q90[] = {pi / 2, pi / 2, 0.1}; /* radians, and meters for the prismatic joint */
    REQUIRE_INT(wk_scene_set_joint_positions(a.s, a.base, NULL, q90, 3, &st), ==, WK_OK);
    double q[3];
    positions(a.s, a.base, q);
    CHECK_NEAR(q[0], pi / 2, 1e-15);
    CHECK_NEAR(q[1], pi / 2, 1e-15);
    CHECK_NEAR(q[2], 0.1, 0);
    CHECK_NEAR(wk_scene_kinematics(a.s, a.elbow)->position, pi / 2, 1e-15);
    /* By hand: Rz(90) at (1, 0, 0.1); the elbow 0.5 up, turned Ry(90); the
     * hand 0.5 along the turned x, which now points down; the tcp 0.1 along
     * the turned -z, which now points along -y. */
    wk_pose want = at(1, -0.1, 0.1, 0, pi / 2, pi / 2);
    CHECK_POSE_NEAR(wk_scene_pose(a.s, a.tcp), want, 1e-12);
    CHECK_POSE_NEAR(wk_scene_world_pose(a.s, a.tcp), want, 1e-12);
    CHECK_POSE_NEAR(wk_scene_transform(a.s, a.base, a.tcp), at(0, -0.1, 0.1, 0, pi / 2, pi / 2), 1e-12);
    /* The joint's ParentPose is its inboard pose composed with its motion. */
    const wk_pose *elbow_pose = wk_ecm_get(wk_scene_ecm(a.s), a.elbow, wk_scene_types_of(a.s)->parent_pose);
    CHECK_POSE_NEAR(*elbow_pose, at(0, 0, 0.5, 0, pi / 2, 0), 1e-15);
    /* One joint by name (UpdateObjectJointRequest), in radians this time. */
    const char *names[] = {"shoulder"};
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, names, (double[]){0}, 1, &st), ==, WK_OK);
    positions(a.s, a.base, q);
    CHECK_NEAR(q[0], 0, 0);
    CHECK_NEAR(q[1], pi / 2, 1e-15);
    CHECK_POSE_NEAR(wk_scene_pose(a.s, a.tcp), at(0.9, 0, 0.1, 0, pi / 2, 0), 1e-12);
    /* Names give the order. */
    const char *order[] = {"slide", "elbow", "shoulder"};
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, order, (double[]){0.05, -0.5, 0.25}, 3, &st), ==,
              WK_OK);
    positions(a.s, a.base, q);
    CHECK_NEAR(q[0], 0.25, 0);
    CHECK_NEAR(q[1], -0.5, 0);
    CHECK_NEAR(q[2], 0.05, 0);
    CHECK_POSE_NEAR(wk_scene_pose(a.s, a.tcp), wk_scene_world_pose(a.s, a.tcp), 1e-12);
    wk_scene_free(a.s);
}

/* Whether the scene's ECM still equals a copy taken before, and the cache
 * still agrees with the uncached poses. */
static void check_unchanged(wk_scene *s, const wk_ecm *before, const arm *a)
{
    wk_status why = {0};
    CHECK(wk_ecm_equal(before, wk_scene_ecm(s), &why));
    if (why.message[0])
        fprintf(stderr, "    %s\n", why.message);
    CHECK_POSE_NEAR(wk_scene_pose(s, a->tcp), wk_scene_world_pose(s, a->tcp), 1e-12);
}

static void refusals_change_nothing(void)
{
    arm a;
    REQUIRE(make_arm(&a));
    wk_status st;
    REQUIRE_INT(wk_scene_set_joint_positions(a.s, a.base, NULL, (double[]){0.5, 0.5, 0.1}, 3, &st), ==, WK_OK);
    wk_pose tcp = wk_scene_pose(a.s, a.tcp);
    wk_ecm *before = wk_ecm_clone(wk_scene_ecm(a.s));
    REQUIRE(before);
    /* 3.5 rad is past the elbow's 2: nothing moves, not even the shoulder
     * that came first. */
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, NULL, (double[]){0.2, 3.5, 0}, 3, &st), ==, WK_RANGE);
    CHECK(strstr(st.message, "'elbow'") && strstr(st.message, "'arm'") && strstr(st.message, "[-2, 2]"));
    check_unchanged(a.s, before, &a);
    CHECK_POSE_NEAR(wk_scene_pose(a.s, a.tcp), tcp, 0);
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, NULL, (double[]){0, 0, 0.3}, 3, &st), ==, WK_RANGE);
    CHECK(strstr(st.message, "'slide'") && strstr(st.message, " m "));
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, NULL, (double[]){0, 0}, 2, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "3 joints") != NULL);
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, NULL, (double[]){NAN, 0, 0}, 3, &st), ==, WK_INVALID);
    const char *unknown[] = {"wrist"}, *twice[] = {"elbow", "elbow"};
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, unknown, (double[]){0}, 1, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "'wrist'") != NULL);
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, twice, (double[]){0, 0}, 2, &st), ==, WK_INVALID);
    CHECK_INT(wk_scene_update_joints(a.s, a.base, &(wk_joints_update){.count = 3}, &st), ==, WK_INVALID);
    check_unchanged(a.s, before, &a);
    /* Inside a batch the caller's rollback undoes what the call did. */
    REQUIRE_INT(wk_ecm_txn_begin(wk_scene_ecm(a.s)), ==, WK_OK);
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, NULL, (double[]){0, 0, 0}, 3, &st), ==, WK_OK);
    CHECK_INT(wk_ecm_txn_rollback(wk_scene_ecm(a.s)), ==, WK_OK);
    CHECK_INT(wk_scene_refresh(a.s), ==, WK_OK);
    check_unchanged(a.s, before, &a);
    wk_ecm_free(before);
    wk_scene_free(a.s);
}

static void limits_keep_their_rules(void)
{
    arm a;
    REQUIRE(make_arm(&a));
    wk_status st;
    const char *elbow[] = {"elbow"};
    wk_ecm *before = wk_ecm_clone(wk_scene_ecm(a.s));
    REQUIRE(before);
    /* Application limits wider than the system's: refused. */
    wk_joint_limits_update wide = {.min_position = (double[]){-2.5}, .max_position = (double[]){1}};
    CHECK_INT(wk_scene_set_joint_limits(a.s, a.base, elbow, 1, NULL, &wide, &st), ==, WK_RANGE);
    CHECK(strstr(st.message, "application min_position -2.5") && strstr(st.message, "system limit -2"));
    wk_joint_limits_update fast = {.max_velocity = (double[]){2}};
    CHECK_INT(wk_scene_set_joint_limits(a.s, a.base, elbow, 1, NULL, &fast, &st), ==, WK_RANGE);
    CHECK(strstr(st.message, "max_velocity") != NULL);
    /* System limits tightened under the application ones: refused too. */
    wk_joint_limits_update tight = {.max_position = (double[]){1}};
    CHECK_INT(wk_scene_set_joint_limits(a.s, a.base, elbow, 1, &tight, NULL, &st), ==, WK_RANGE);
    wk_joint_limits_update effort = {.max_effort = (double[]){5}};
    CHECK_INT(wk_scene_set_joint_limits(a.s, a.base, elbow, 1, &effort, NULL, &st), ==, WK_INVALID);
    wk_joint_limits_update negative = {.max_jerk = (double[]){-1}};
    CHECK_INT(wk_scene_set_joint_limits(a.s, a.base, elbow, 1, &negative, NULL, &st), ==, WK_RANGE);
    wk_joint_limits_update crossed = {.min_position = (double[]){1}, .max_position = (double[]){-1}};
    CHECK_INT(wk_scene_set_joint_limits(a.s, a.base, elbow, 1, &crossed, &crossed, &st), ==, WK_RANGE);
    check_unchanged(a.s, before, &a);
    /* Both at once, in order. */
    wk_joint_limits_update system = {.min_position = (double[]){-1.5, -0.1, -2},
                                     .max_position = (double[]){1.5, 0.3, 2},
                                     .max_acceleration = (double[]){10, 20, 30}};
    /* Unlimited application accelerations would now exceed the system's:
     * they must come down too. */
    wk_joint_limits_update application = {.min_position = (double[]){-1, 0, -1}, .max_position = (double[]){1, 0.2, 1}};
    CHECK_INT(wk_scene_set_joint_limits(a.s, a.base, (const char *[]){"elbow", "slide", "shoulder"}, 3, &system,
                                        &application, &st),
              ==, WK_RANGE);
    CHECK(strstr(st.message, "application max_acceleration inf is above the system limit 10") != NULL);
    application.max_acceleration = system.max_acceleration;
    CHECK_INT(wk_scene_set_joint_limits(a.s, a.base, (const char *[]){"elbow", "slide", "shoulder"}, 3, &system,
                                        &application, &st),
              ==, WK_OK);
    const wk_kinematic_object *k = wk_scene_kinematic_object(a.s, a.base);
    CHECK_NEAR(k->system_limits[1].min_position, -1.5, 0);
    CHECK_NEAR(k->system_limits[2].max_position, 0.3, 0);
    CHECK_NEAR(k->system_limits[0].max_acceleration, 30, 0);
    CHECK_NEAR(k->application_limits[1].max_position, 1, 0);
    CHECK_NEAR(k->application_limits[1].max_velocity, 1.5, 0); /* not given: kept */
    CHECK_NEAR(k->system_limits[1].max_effort, 0, 0);
    /* The new application limits bound positions. */
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, elbow, (double[]){1.2}, 1, &st), ==, WK_RANGE);
    CHECK(strstr(st.message, "[-1, 1]") != NULL);
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, elbow, (double[]){0.99}, 1, &st), ==, WK_OK);
    /* Application limits that leave the current position out: refused,
     * unless the same update moves the joint inside. */
    wk_joint_limits_update away = {.min_position = (double[]){-0.5}, .max_position = (double[]){0.5}};
    CHECK_INT(wk_scene_set_joint_limits(a.s, a.base, elbow, 1, NULL, &away, &st), ==, WK_RANGE);
    wk_joints_update both = {.names = elbow, .count = 1, .positions = (double[]){0.25}, .application = &away};
    CHECK_INT(wk_scene_update_joints(a.s, a.base, &both, &st), ==, WK_OK);
    CHECK_NEAR(wk_scene_kinematic_object(a.s, a.base)->application_limits[1].max_position, 0.5, 0);
    CHECK_NEAR(wk_scene_kinematics(a.s, a.elbow)->position, 0.25, 0);
    wk_ecm_free(before);
    wk_scene_free(a.s);
}

static void named_configurations(void)
{
    arm a;
    REQUIRE(make_arm(&a));
    wk_status st;
    wk_joint_configuration_desc set[] = {{"home", (double[]){0, 0, 0}, 3}, {"ready", (double[]){0.5, -1, 0.1}, 3}};
    CHECK_INT(wk_scene_update_joint_configurations(a.s, a.base, NULL, 0, set, 2, &st), ==, WK_OK);
    const wk_kinematic_object *k = wk_scene_kinematic_object(a.s, a.base);
    REQUIRE_INT(k->configuration_count, ==, 2);
    CHECK_STR(k->configurations[1].name, "ready");
    CHECK_NEAR(k->configurations[1].positions[1], -1, 0);
    /* Setting a name again overrides it; removing a missing one fails and
     * changes nothing, not even the other half of the request. */
    wk_joint_configuration_desc again = {"home", (double[]){0.1, 0.2, 0.05}, 3};
    const char *missing[] = {"away"};
    wk_ecm *before = wk_ecm_clone(wk_scene_ecm(a.s));
    REQUIRE(before);
    CHECK_INT(wk_scene_update_joint_configurations(a.s, a.base, missing, 1, &again, 1, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "'away'") && strstr(st.message, "'arm'"));
    check_unchanged(a.s, before, &a);
    wk_joint_configuration_desc short_one = {"short", (double[]){0}, 1};
    CHECK_INT(wk_scene_update_joint_configurations(a.s, a.base, NULL, 0, &short_one, 1, &st), ==, WK_INVALID);
    check_unchanged(a.s, before, &a);
    const char *ready[] = {"ready"};
    CHECK_INT(wk_scene_update_joint_configurations(a.s, a.base, ready, 1, &again, 1, &st), ==, WK_OK);
    k = wk_scene_kinematic_object(a.s, a.base);
    REQUIRE_INT(k->configuration_count, ==, 1);
    CHECK_STR(k->configurations[0].name, "home");
    CHECK_NEAR(k->configurations[0].positions[2], 0.05, 0);
    /* Removed twice: the second time it is missing. */
    CHECK_INT(wk_scene_update_joint_configurations(a.s, a.base, ready, 1, NULL, 0, &st), ==, WK_NOT_FOUND);
    wk_ecm_free(before);
    wk_scene_free(a.s);
}

static void solvers_and_flanges_are_data(void)
{
    arm a;
    REQUIRE(make_arm(&a));
    wk_status st;
    wk_entity flange = frame_at(a.s, "flange", a.hand, at(0.4, 0, 0.6, 0, 0, 0));
    wk_entity cup = object_at(a.s, "cup", 0, wk_pose_identity());
    REQUIRE(flange && cup);
    wk_ik_solver solvers[] = {{"arm_ik", a.base, a.tcp}};
    CHECK_INT(wk_scene_set_ik_solvers(a.s, a.base, solvers, 1, &st), ==, WK_OK);
    const wk_kinematic_object *k = wk_scene_kinematic_object(a.s, a.base);
    REQUIRE_INT(k->ik_solver_count, ==, 1);
    CHECK_STR(k->ik_solvers[0].key, "arm_ik");
    CHECK_U64(k->ik_solvers[0].tip, ==, a.tcp);
    wk_ik_solver elsewhere[] = {{"cup_ik", a.base, cup}}, keyless[] = {{"", a.base, a.tcp}};
    CHECK_INT(wk_scene_set_ik_solvers(a.s, a.base, elsewhere, 1, &st), ==, WK_INVALID);
    CHECK_INT(wk_scene_set_ik_solvers(a.s, a.base, keyless, 1, &st), ==, WK_INVALID);
    CHECK_INT(wk_scene_set_flange_frames(a.s, a.base, &flange, 1, &st), ==, WK_OK);
    CHECK_INT(wk_scene_set_flange_frames(a.s, a.base, &a.hand, 1, &st), ==, WK_INVALID);
    k = wk_scene_kinematic_object(a.s, a.base);
    CHECK_INT(k->flange_count, ==, 1);
    CHECK_U64(k->flange_frames[0], ==, flange);
    CHECK_INT(k->ik_solver_count, ==, 1);
    CHECK_INT(wk_scene_set_ik_solvers(a.s, a.base, NULL, 0, &st), ==, WK_OK);
    CHECK_INT(wk_scene_kinematic_object(a.s, a.base)->ik_solver_count, ==, 0);
    CHECK_INT(wk_scene_set_ik_solvers(a.s, cup, NULL, 0, &st), ==, WK_PRECONDITION);
    wk_scene_free(a.s);
}

/* A frame an IK solver or the flange list refers to cannot be deleted (nor
 * a frame above it, with force) or moved to another object: refused with
 * FAILED_PRECONDITION naming the referrer, changing nothing; once the
 * reference is cleared it can. Deleting the whole object takes its
 * references with it. */
static void referenced_frames_stay(void)
{
    arm a;
    REQUIRE(make_arm(&a));
    wk_status st;
    wk_entity flange = frame_at(a.s, "flange", a.hand, at(0.4, 0, 0.6, 0, 0, 0));
    wk_entity tip = frame_at(a.s, "tip", flange, wk_pose_identity());
    wk_entity cup = object_at(a.s, "cup", 0, wk_pose_identity());
    REQUIRE(flange && tip && cup);
    REQUIRE_INT(wk_scene_set_flange_frames(a.s, a.base, &flange, 1, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_set_ik_solvers(a.s, a.base, &(wk_ik_solver){"arm_ik", a.base, tip}, 1, &st), ==, WK_OK);
    wk_ecm *before = wk_ecm_clone(wk_scene_ecm(a.s));
    REQUIRE(before);
    CHECK_INT(wk_scene_delete_frame(a.s, tip, false, &st), ==, WK_PRECONDITION);
    CHECK(strstr(st.message, "'tip'") && strstr(st.message, "IK solver 'arm_ik'") && strstr(st.message, "'arm'"));
    CHECK_INT(wk_scene_delete_frame(a.s, flange, true, &st), ==, WK_PRECONDITION);
    CHECK(strstr(st.message, "ISO flange frame") && strstr(st.message, "'flange'"));
    CHECK_INT(wk_scene_reparent(a.s, tip, cup, &st), ==, WK_PRECONDITION);
    CHECK(strstr(st.message, "'tip'") && strstr(st.message, "moved"));
    check_unchanged(a.s, before, &a);
    wk_ecm_free(before);
    /* Within the object a referenced frame may move. */
    CHECK_INT(wk_scene_reparent(a.s, tip, a.forearm, &st), ==, WK_OK);
    CHECK_INT(wk_scene_set_ik_solvers(a.s, a.base, NULL, 0, &st), ==, WK_OK);
    CHECK_INT(wk_scene_delete_frame(a.s, tip, false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_set_flange_frames(a.s, a.base, NULL, 0, &st), ==, WK_OK);
    CHECK_INT(wk_scene_delete_frame(a.s, flange, false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_delete_object(a.s, a.base, true, &st), ==, WK_OK);
    wk_scene_free(a.s);
}

static void attached_things_follow(void)
{
    arm a;
    REQUIRE(make_arm(&a));
    wk_status st;
    /* A cup on the hand (posed in the world) and a frame on the forearm. */
    wk_entity cup = WK_NULL_ENTITY;
    REQUIRE_INT(wk_scene_create_object(a.s, &(wk_object_desc){.name = "cup", .parent = a.hand,
                                                               .pose = at(0.45, 0, 0.6, 0, 0, 0.3)},
                                       &cup, &st),
                ==, WK_OK);
    wk_entity mark = frame_at(a.s, "mark", a.forearm, at(0.2, 0, 0.6, 0, 0, 0));
    REQUIRE(mark);
    wk_pose cup0 = wk_scene_pose(a.s, cup), mark0 = wk_scene_pose(a.s, mark);
    /* The slide runs along x: the cup moves 0.15 with it, the mark stays. */
    const char *slide[] = {"slide"};
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, slide, (double[]){0.15}, 1, &st), ==, WK_OK);
    wk_pose moved = cup0;
    moved.p.x += 0.15;
    CHECK_POSE_NEAR(wk_scene_pose(a.s, cup), moved, 1e-12);
    CHECK_POSE_NEAR(wk_scene_world_pose(a.s, cup), moved, 1e-12);
    CHECK_POSE_NEAR(wk_scene_pose(a.s, mark), mark0, 1e-12);
    CHECK_POSE_NEAR(wk_scene_transform(a.s, a.hand, cup), at(0.05, 0, 0, 0, 0, 0.3), 1e-12);
    /* The shoulder turns everything above it about the base's z. */
    const char *shoulder[] = {"shoulder"};
    CHECK_INT(wk_scene_set_joint_positions(a.s, a.base, shoulder, (double[]){pi}, 1, &st), ==, WK_OK);
    CHECK_POSE_NEAR(wk_scene_pose(a.s, cup), at(1 - 0.6, 0, 0.6, 0, 0, 0.3 + pi), 1e-12);
    CHECK_POSE_NEAR(wk_scene_pose(a.s, mark), at(1 - 0.2, 0, 0.6, 0, 0, pi), 1e-12);
    CHECK_POSE_NEAR(wk_scene_world_pose(a.s, mark), wk_scene_pose(a.s, mark), 1e-12);
    wk_scene_free(a.s);
}

static void creation_is_checked(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    size_t before = wk_ecm_count(wk_scene_ecm(s));
    wk_entity e = WK_NULL_ENTITY;
    wk_status st;
    wk_joint_desc bad[] = {
        {.name = "j1", .link = "l1", .parent = -1, .motion = WK_JOINT_MOTION_REVOLUTE},
        {.name = "j2", .link = "l2", .parent = 0, .motion = WK_JOINT_MOTION_REVOLUTE},
    };
    wk_kinematic_object_desc desc = {.name = "robot", .joints = bad, .joint_count = 2};
    bad[1].parent = 1; /* itself */
    CHECK_INT(wk_scene_create_kinematic_object(s, &desc, &e, &st), ==, WK_INVALID);
    bad[1].parent = 0;
    bad[1].link = "l1";
    CHECK_INT(wk_scene_create_kinematic_object(s, &desc, &e, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "taken") != NULL);
    bad[1].link = "l2";
    bad[1].motion = WK_JOINT_MOTION_UNDEFINED;
    CHECK_INT(wk_scene_create_kinematic_object(s, &desc, &e, &st), ==, WK_INVALID);
    bad[1].motion = WK_JOINT_MOTION_PRISMATIC;
    bad[1].axis = (wk_vec3){NAN, 0, 0};
    CHECK_INT(wk_scene_create_kinematic_object(s, &desc, &e, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "joint 'j2' of new object 'robot': its axis") != NULL);
    bad[1].axis = (wk_vec3){0, 0, 0};
    bad[1].inboard_t_link = (wk_pose){{0, 2e12, 0}, {1, 0, 0, 0}}; /* past WK_POSE_TRANSLATION_MAX */
    CHECK_INT(wk_scene_create_kinematic_object(s, &desc, &e, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "'j2' of new object 'robot': inboard_t_link: translation y = 2e+12 is beyond") != NULL);
    bad[1].inboard_t_link = (wk_pose){0};
    bad[1].limits = (wk_joint_limit){.min_position = 1, .max_position = -1};
    CHECK_INT(wk_scene_create_kinematic_object(s, &desc, &e, &st), ==, WK_RANGE);
    bad[1].limits = (wk_joint_limit){0};
    desc.name = "bad name";
    CHECK_INT(wk_scene_create_kinematic_object(s, &desc, &e, &st), ==, WK_INVALID);
    CHECK_INT(wk_ecm_count(wk_scene_ecm(s)), ==, before);
    /* Fixed joints hang links but are no degree of freedom; a range that
     * leaves 0 out starts at its nearest end. */
    desc.name = "robot";
    bad[0].motion = WK_JOINT_MOTION_FIXED;
    bad[1].limits = (wk_joint_limit){.min_position = 0.1, .max_position = 0.3};
    CHECK_INT(wk_scene_create_kinematic_object(s, &desc, &e, &st), ==, WK_OK);
    CHECK_INT(wk_scene_joint_count(s, e), ==, 1);
    double q = 0;
    CHECK_INT(wk_scene_joint_positions(s, e, &q, 1, &st), ==, WK_OK);
    CHECK_NEAR(q, 0.1, 0);
    wk_entity l2 = wk_scene_child(s, wk_scene_child(s, wk_scene_child(s, wk_scene_child(s, e, "j1"), "l1"), "j2"),
                                  "l2");
    CHECK_POSE_NEAR(wk_scene_pose(s, l2), at(0, 0, 0.1, 0, 0, 0), 1e-15);
    CHECK_INT(wk_scene_kinematics(s, wk_scene_child(s, e, "j1"))->motion, ==, WK_JOINT_MOTION_FIXED);
    CHECK_INT(wk_scene_create_kinematic_object(s, &desc, &e, &st), ==, WK_EXISTS);
    wk_scene_free(s);
}

/* An object built entity by entity (as CreateWorld rebuilds a snapshot):
 * wk_scene_add_entity refuses a bad entity and wk_scene_make_kinematic a
 * bad joint list, changing nothing; a good one moves like any kinematic
 * object. */
static void built_entity_by_entity(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_status st;
    wk_entity base = object_at(s, "robot", 0, wk_pose_identity()), grip = frame_at(s, "grip", base, wk_pose_identity());
    REQUIRE(base && grip);
    wk_ecm *before = wk_ecm_clone(wk_scene_ecm(s));
    REQUIRE(before);
    wk_kinematics turn = {.parent_t_inboard = at(0, 0, 0.5, 0, 0, 0), .axis = {0, 0, 1}, .position = 0.25,
                          .motion = WK_JOINT_MOTION_REVOLUTE};
    wk_kinematics skew = turn;
    skew.axis = (wk_vec3){0, 0, 2};
    wk_scene_geometry negative = {.type = WK_GEOMETRY_BOX, .size = {-1, 1, 1}};
    const struct {
        wk_entity_desc desc;
        int code;
    } refused[] = {
        {{.name = "joint", .parent = grip, .kinematics = &turn}, WK_INVALID},
        {{.name = "bad name", .parent = base}, WK_INVALID},
        {{.name = "grip", .parent = base}, WK_EXISTS},
        {{.name = "shell", .kind = WK_NODE_JOINT, .parent = base}, WK_INVALID},
        {{.name = "shell", .kind = WK_NODE_VISUAL, .parent = base, .kinematics = &turn}, WK_INVALID},
        {{.name = "joint", .parent = base, .kinematics = &skew}, WK_INVALID},
        {{.name = "box", .parent = base, .geometry = &negative}, WK_INVALID},
        {{.name = "lost", .parent = (wk_entity)777 << 32}, WK_NOT_FOUND},
    };
    wk_entity e;
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (!CHECK_INT(wk_scene_add_entity(s, &refused[i].desc, &e, &st), ==, refused[i].code))
            fprintf(stderr, "    case %zu: %s\n", i, st.message);
    CHECK(wk_ecm_equal(before, wk_scene_ecm(s), NULL));
    wk_ecm_free(before);

    wk_entity joint, link;
    REQUIRE_INT(wk_scene_add_entity(s, &(wk_entity_desc){.name = "joint", .parent = base, .kinematics = &turn}, &joint,
                                    &st),
                ==, WK_OK);
    REQUIRE_INT(wk_scene_add_entity(s, &(wk_entity_desc){.name = "link", .parent = joint, .parent_t_this =
                                                             at(0.5, 0, 0, 0, 0, 0)},
                                    &link, &st),
                ==, WK_OK);
    CHECK_POSE_NEAR(wk_scene_pose(s, link), at(0.5 * cos(0.25), 0.5 * sin(0.25), 0.5, 0, 0, 0.25), 1e-12);
    wk_joint_limit wide = {-1, 1, INFINITY, INFINITY, INFINITY, 0}, narrow = {0.5, 1, 1, 1, 1, 0};
    CHECK_INT(wk_scene_make_kinematic(s, base, &link, &wide, &wide, 1, &st), ==, WK_INVALID);
    CHECK_INT(wk_scene_make_kinematic(s, base, (wk_entity[]){joint, joint}, (wk_joint_limit[]){wide, wide},
                                      (wk_joint_limit[]){wide, wide}, 2, &st),
              ==, WK_INVALID);
    CHECK_INT(wk_scene_make_kinematic(s, base, &joint, &wide, &narrow, 1, &st), ==, WK_RANGE);
    CHECK(strstr(st.message, "'joint'") && strstr(st.message, "outside"));
    CHECK_INT(wk_scene_object_info(s, base)->type, ==, WK_OBJECT_PHYSICAL);
    CHECK_INT(wk_scene_make_kinematic(s, base, &joint, &wide, &wide, 1, &st), ==, WK_OK);
    CHECK_INT(wk_scene_object_info(s, base)->type, ==, WK_OBJECT_KINEMATIC);
    CHECK_INT(wk_scene_make_kinematic(s, base, &joint, &wide, &wide, 1, &st), ==, WK_PRECONDITION);
    CHECK_INT(wk_scene_set_joint_positions(s, base, NULL, (double[]){0}, 1, &st), ==, WK_OK);
    CHECK_POSE_NEAR(wk_scene_pose(s, link), at(0.5, 0, 0.5, 0, 0, 0), 1e-12);
    wk_scene_free(s);
}

/* Names as SDFormat scopes them: a visual's among its link's visuals, a
 * collision's among its link's collisions, a link's among the object's
 * links, joints and frames, but not its model's (the base entity). */
static void entity_names_are_scoped(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_status st;
    wk_entity base = object_at(s, "door", 0, wk_pose_identity()), e;
    REQUIRE(base && frame_at(s, "grip", base, wk_pose_identity()));
    wk_entity link, other;
    REQUIRE_INT(wk_scene_add_entity(s, &(wk_entity_desc){.name = "door", .parent = base}, &link, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_add_entity(s, &(wk_entity_desc){.name = "frame", .parent = base}, &other, &st), ==, WK_OK);
    const struct {
        wk_entity_desc desc;
        int code;
    } cases[] = {
        {{.name = "panel", .kind = WK_NODE_VISUAL, .parent = link}, WK_OK},
        {{.name = "panel", .kind = WK_NODE_COLLISION, .parent = link}, WK_OK},
        {{.name = "panel", .kind = WK_NODE_VISUAL, .parent = other}, WK_OK},
        {{.name = "door", .kind = WK_NODE_VISUAL, .parent = link}, WK_OK},
        {{.name = "panel", .kind = WK_NODE_VISUAL, .parent = link}, WK_EXISTS},
        {{.name = "panel", .kind = WK_NODE_COLLISION, .parent = link}, WK_EXISTS},
        {{.name = "panel", .parent = base}, WK_OK},
        {{.name = "panel", .parent = link}, WK_EXISTS},
        {{.name = "frame", .parent = link}, WK_EXISTS},
        {{.name = "grip", .parent = link}, WK_EXISTS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!CHECK_INT(wk_scene_add_entity(s, &cases[i].desc, &e, &st), ==, cases[i].code))
            fprintf(stderr, "    case %zu: %s\n", i, st.message);
    CHECK_STR(st.message, "'grip' already names an entity of object 'door'");
    CHECK_INT(wk_scene_add_entity(s, &cases[4].desc, &e, &st), ==, WK_EXISTS);
    CHECK_STR(st.message, "'panel' already names a visual of link 'door' of object 'door'");
    wk_entity visual = wk_scene_child(s, link, "door");
    REQUIRE(visual);
    CHECK_INT(*(const uint8_t *)wk_ecm_get(wk_scene_ecm(s), visual, wk_scene_types_of(s)->kind), ==, WK_NODE_VISUAL);
    wk_scene_free(s);
}

/* Cartesian limits (one bound unlimited) and a payload, for the tests of
 * copies and bytes. */
static const wk_cartesian_limits test_limits = {
    .translational = {[WK_CART_MIN_VELOCITY] = {-1, -2, -3}, [WK_CART_MAX_VELOCITY] = {1, 2, INFINITY}},
    .present = 1u << WK_CART_MIN_VELOCITY | 1u << WK_CART_MAX_VELOCITY,
    .max_rotational_velocity = 0.5,
    .max_rotational_jerk = 100,
};
static const wk_payload test_payload = {
    .mass_kg = 2.5, .tip_t_cog = {{0, 0, 0.1}, {1, 0, 0, 0}}, .inertia = {{0.1, 0.01, 0}, {0.01, 0.2, 0}, {0, 0, 0.3}}};

/* What the setters refuse: each names the field; nothing is stored. */
static void limits_and_payload_are_checked(void)
{
    arm a;
    REQUIRE(make_arm(&a));
    wk_status st;
    wk_cartesian_limits l = test_limits;
    l.translational[WK_CART_MIN_VELOCITY].x = 4;
    CHECK_INT(wk_scene_set_cartesian_limits(a.s, a.base, &l, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "min_translational_velocity[0] 4 is above max_translational_velocity[0] 1") != NULL);
    l = test_limits;
    l.max_rotational_acceleration = NAN;
    CHECK_INT(wk_scene_set_cartesian_limits(a.s, a.base, &l, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "max_rotational_acceleration") != NULL);
    wk_payload p = test_payload;
    p.inertia[0][1] = 0.5;
    CHECK_INT(wk_scene_set_payload(a.s, a.base, &p, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "mounted_payload.inertia") != NULL);
    p = test_payload;
    p.mass_kg = -1;
    CHECK_INT(wk_scene_set_payload(a.s, a.base, &p, &st), ==, WK_INVALID);
    CHECK(!wk_scene_payload(a.s, a.base) && !wk_scene_cartesian_limits(a.s, a.base));
    /* Only kinematic objects carry them. */
    wk_entity crate;
    REQUIRE_INT(wk_scene_create_object(a.s, &(wk_object_desc){.name = "crate"}, &crate, &st), ==, WK_OK);
    CHECK_INT(wk_scene_set_payload(a.s, crate, &test_payload, &st), ==, WK_PRECONDITION);
    CHECK(strstr(st.message, "crate") != NULL);
    wk_scene_free(a.s);
}

static void clones_and_state_keep_everything(void)
{
    arm a;
    REQUIRE(make_arm(&a));
    wk_status st;
    REQUIRE_INT(wk_scene_set_joint_positions(a.s, a.base, NULL, (double[]){0.3, -0.2, 0.1}, 3, &st), ==,
                WK_OK);
    wk_joint_configuration_desc home = {"home", (double[]){0, 0, 0}, 3};
    REQUIRE_INT(wk_scene_update_joint_configurations(a.s, a.base, NULL, 0, &home, 1, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_set_ik_solvers(a.s, a.base, (wk_ik_solver[]){{"arm_ik", a.base, a.tcp}}, 1, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_set_flange_frames(a.s, a.base, &a.tcp, 1, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_set_cartesian_limits(a.s, a.base, &test_limits, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_set_payload(a.s, a.base, &test_payload, &st), ==, WK_OK);
    wk_scene *copy = wk_scene_clone(a.s);
    REQUIRE(copy);
    wk_status why = {0};
    CHECK(wk_ecm_equal(wk_scene_ecm(a.s), wk_scene_ecm(copy), &why));
    CHECK_POSE_NEAR(wk_scene_pose(copy, a.tcp), wk_scene_pose(a.s, a.tcp), 0);
    /* The copy moves on its own. */
    const char *elbow[] = {"elbow"};
    CHECK_INT(wk_scene_set_joint_positions(copy, a.base, elbow, (double[]){0.4}, 1, &st), ==, WK_OK);
    CHECK(!wk_ecm_equal(wk_scene_ecm(a.s), wk_scene_ecm(copy), NULL));
    CHECK_NEAR(wk_scene_kinematics(a.s, a.elbow)->position, -0.2, 0);
    /* Serialized state makes the same world elsewhere. */
    wk_buf bytes = {0};
    REQUIRE_INT(wk_ecm_state(wk_scene_ecm(a.s), NULL, &bytes), ==, WK_OK);
    wk_scene *other = wk_scene_new();
    REQUIRE(other);
    CHECK_INT(wk_ecm_set_state(wk_scene_ecm(other), bytes.data, bytes.len), ==, WK_OK);
    CHECK(wk_ecm_equal(wk_scene_ecm(a.s), wk_scene_ecm(other), &why));
    if (why.message[0])
        fprintf(stderr, "    %s\n", why.message);
    const wk_payload *p = wk_scene_payload(other, a.base);
    const wk_cartesian_limits *l = wk_scene_cartesian_limits(other, a.base);
    CHECK(p && memcmp(p, &test_payload, sizeof *p) == 0);
    CHECK(l && memcmp(l, &test_limits, sizeof *l) == 0);
    wk_buf_free(&bytes);
    wk_scene_free(other);
    wk_scene_free(copy);
    wk_scene_free(a.s);
}

/* Every truncation and many corruptions of a KinematicObject's and a
 * Kinematics' bytes either decode to a value that serializes back to the
 * same bytes, or are refused; none crashes (the sanitizers watch). */
static void check_decoder(const wk_type_hooks *h, size_t size, const wk_buf *good)
{
    void *value = malloc(size);
    uint8_t *bytes = malloc(good->len + 1);
    REQUIRE(value && bytes);
    unsigned seed = 11;
    int accepted = 0;
    for (size_t round = 0; round < good->len * 12 + 1; round++) {
        memcpy(bytes, good->data, good->len);
        size_t len = good->len;
        if (round <= good->len)
            len = round; /* every truncation, then the whole */
        else if (round % 3)
            bytes[rand_r(&seed) % len] = (uint8_t)rand_r(&seed);
        else
            bytes[rand_r(&seed) % len] ^= (uint8_t)(1u << (rand_r(&seed) % 8));
        int rc = h->deserialize(value, bytes, len);
        CHECK(rc == WK_OK || rc == WK_PARSE);
        if (rc != WK_OK)
            continue;
        accepted++;
        wk_buf again = {0};
        CHECK_INT(h->serialize(value, &again), ==, WK_OK);
        CHECK(again.len == len && memcmp(again.data, bytes, len) == 0);
        CHECK(h->equal == NULL || h->equal(value, value));
        wk_buf_free(&again);
        if (h->destroy)
            h->destroy(value);
    }
    CHECK(accepted > 0);
    free(bytes);
    free(value);
}

static void malformed_bytes_are_refused(void)
{
    arm a;
    REQUIRE(make_arm(&a));
    wk_status st;
    wk_joint_configuration_desc home = {"home", (double[]){0, 0, 0}, 3};
    REQUIRE_INT(wk_scene_update_joint_configurations(a.s, a.base, NULL, 0, &home, 1, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_set_ik_solvers(a.s, a.base, (wk_ik_solver[]){{"arm_ik", a.base, a.tcp}}, 1, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_set_flange_frames(a.s, a.base, &a.tcp, 1, &st), ==, WK_OK);
    wk_buf good = {0};
    REQUIRE_INT(wk__kinematic_object_hooks.serialize(wk_scene_kinematic_object(a.s, a.base), &good), ==, WK_OK);
    check_decoder(&wk__kinematic_object_hooks, sizeof(wk_kinematic_object), &good);
    good.len = 0;
    REQUIRE_INT(wk__kinematics_hooks.serialize(wk_scene_kinematics(a.s, a.elbow), &good), ==, WK_OK);
    check_decoder(&wk__kinematics_hooks, sizeof(wk_kinematics), &good);
    good.len = 0;
    REQUIRE_INT(wk__cartesian_limits_hooks.serialize(&test_limits, &good), ==, WK_OK);
    check_decoder(&wk__cartesian_limits_hooks, sizeof(wk_cartesian_limits), &good);
    good.len = 0;
    REQUIRE_INT(wk__payload_hooks.serialize(&test_payload, &good), ==, WK_OK);
    check_decoder(&wk__payload_hooks, sizeof(wk_payload), &good);
    /* A count far past the bytes is refused before anything is allocated. */
    const uint8_t huge[] = {0xff, 0xff, 0xff, 0x7f};
    wk_kinematic_object k;
    CHECK_INT(wk__kinematic_object_hooks.deserialize(&k, huge, sizeof huge), ==, WK_PARSE);
    wk_buf_free(&good);
    wk_scene_free(a.s);
}

/* A world file's scene made an object world, with the world poses every
 * entity had before. */
typedef struct loaded {
    wk_scene *s;
    wk_entity_list entities;
    wk_pose *poses;
} loaded;

static void loaded_free(loaded *l)
{
    free(l->poses);
    wk_entity_list_free(&l->entities);
    wk_scene_free(l->s);
}

/* Every entity where the file put it, cached and uncached. */
static void check_poses_kept(const loaded *l)
{
    for (size_t i = 0; i < l->entities.count; i++) {
        CHECK_POSE_NEAR(wk_scene_world_pose(l->s, l->entities.items[i]), l->poses[i], 1e-12);
        CHECK_POSE_NEAR(wk_scene_pose(l->s, l->entities.items[i]), l->poses[i], 1e-12);
    }
}

/* Loads a file (path), or text when path is NULL. */
static bool load_from(const char *path, const char *text, loaded *l)
{
    *l = (loaded){0};
    wk_world_desc *desc = NULL;
    wk_status st;
    wk_read_desc read = {.uri = path, .resource_string = text, .ignore_missing_or_unsupported_assets = true};
    if (wk_desc_read(&read, &desc, &st)) {
        fprintf(stderr, "%s: %s\n", path ? path : "text", st.message);
        return false;
    }
    wk_entity world = WK_NULL_ENTITY;
    int rc = (l->s = wk_scene_new()) ? WK_OK : WK_NOMEM;
    if (rc == WK_OK)
        rc = wk_desc_instantiate(l->s, desc, 0, WK_NULL_ENTITY, NULL, NULL, &world, &st);
    wk_desc_free(desc);
    if (rc == WK_OK)
        rc = wk_ecm_descendants(wk_scene_ecm(l->s), world, &l->entities);
    if (rc == WK_OK && !(l->poses = malloc(l->entities.count * sizeof *l->poses)))
        rc = WK_NOMEM;
    for (size_t i = 0; rc == WK_OK && i < l->entities.count; i++)
        l->poses[i] = wk_scene_world_pose(l->s, l->entities.items[i]);
    if (rc == WK_OK && (rc = wk_scene_objects_init(l->s, world, &st)))
        fprintf(stderr, "objects_init: %s\n", st.message);
    if (rc) {
        loaded_free(l);
        return false;
    }
    check_poses_kept(l);
    return true;
}

/* The leader's upper limit, 0.04, is within its own limits but puts the
 * follower at 0.041, past its file's upper limit 0.04: the update is refused
 * as WK_RANGE naming the follower, and nothing of it is done, not even the
 * wrist turn given before the leader in the same update. */
static void urdf_mimic_limits(wk_scene *s, wk_entity robot, wk_entity follower, const wk_entity fingers[2])
{
    size_t n = wk_scene_joint_count(s, robot);
    double before[8];
    REQUIRE(n <= 8);
    wk_status st;
    REQUIRE_INT(wk_scene_joint_positions(s, robot, before, n, &st), ==, WK_OK);
    double follower_before = wk_scene_kinematics(s, follower)->position;
    wk_pose finger_before[2] = {wk_scene_pose(s, fingers[0]), wk_scene_pose(s, fingers[1])};
    CHECK_INT(wk_scene_set_joint_positions(s, robot, (const char *const[]){"wrist", "finger_left_joint"},
                                           (double[]){0.3, 0.04}, 2, &st),
              ==, WK_RANGE);
    CHECK(strstr(st.message, "'finger_right_joint'") != NULL);
    CHECK(strstr(st.message, "0.041") != NULL);
    double after[8];
    REQUIRE_INT(wk_scene_joint_positions(s, robot, after, n, &st), ==, WK_OK);
    for (size_t i = 0; i < n; i++)
        CHECK(after[i] == before[i]);
    CHECK(wk_scene_kinematics(s, follower)->position == follower_before);
    CHECK_POSE_NEAR(wk_scene_pose(s, fingers[0]), finger_before[0], 0);
    CHECK_POSE_NEAR(wk_scene_pose(s, fingers[1]), finger_before[1], 0);
    /* Inside: the leader at 0.035 puts the follower at 0.036. */
    CHECK_INT(wk_scene_set_joint_positions(s, robot, (const char *const[]){"finger_left_joint"}, (double[]){0.035}, 1, &st),
              ==, WK_OK);
    CHECK_NEAR(wk_scene_kinematics(s, follower)->position, 0.036, 1e-15);
}

/* arm.urdf's finger_right_joint mimics finger_left_joint (multiplier 1,
 * offset 0.001): setting the leader slides both fingers, and a frame on
 * each follows its finger. */
static void urdf_mimic(wk_scene *s, wk_entity robot)
{
    wk_entity left_joint = WK_NULL_ENTITY, right_joint = WK_NULL_ENTITY;
    wk_entity_list all = {0};
    REQUIRE_INT(wk_scene_object_entities(s, robot, &all), ==, WK_OK);
    for (size_t i = 0; i < all.count; i++) {
        if (!strcmp(wk_scene_name(s, all.items[i]), "finger_left_joint"))
            left_joint = all.items[i];
        if (!strcmp(wk_scene_name(s, all.items[i]), "finger_right_joint"))
            right_joint = all.items[i];
    }
    wk_entity_list_free(&all);
    REQUIRE(left_joint && right_joint);
    const wk_joint_mimic *m = wk_ecm_get(wk_scene_ecm(s), right_joint, wk_scene_types_of(s)->mimic);
    REQUIRE(m);
    CHECK_U64(m->leader, ==, left_joint);
    wk_entity left = wk_scene_child(s, left_joint, "finger_left"), right = wk_scene_child(s, right_joint, "finger_right");
    REQUIRE(left && right);
    wk_entity pads[2] = {frame_at(s, "left_pad", left, wk_pose_identity()),
                         frame_at(s, "right_pad", right, wk_pose_identity())};
    REQUIRE(pads[0] && pads[1]);
    wk_pose left0 = wk_scene_pose(s, left), right0 = wk_scene_pose(s, right);
    wk_pose pad_T[2] = {wk_pose_compose(wk_pose_inverse(left0), wk_scene_pose(s, pads[0])),
                        wk_pose_compose(wk_pose_inverse(right0), wk_scene_pose(s, pads[1]))};
    wk_status st;
    REQUIRE_INT(wk_scene_set_joint_positions(s, robot, (const char *const[]){"finger_left_joint"}, (double[]){0.02}, 1, &st),
                ==, WK_OK);
    CHECK_NEAR(wk_scene_kinematics(s, right_joint)->position, 0.021, 1e-15);
    /* Both joints slide their fingers along their y axes. */
    wk_pose left1 = wk_scene_pose(s, left), right1 = wk_scene_pose(s, right);
    CHECK_POSE_NEAR(left1, wk_pose_compose(left0, at(0, 0.02, 0, 0, 0, 0)), 1e-12);
    CHECK_POSE_NEAR(right1, wk_pose_compose(right0, at(0, 0.021, 0, 0, 0, 0)), 1e-12);
    CHECK_POSE_NEAR(wk_scene_pose(s, pads[0]), wk_pose_compose(left1, pad_T[0]), 1e-12);
    CHECK_POSE_NEAR(wk_scene_pose(s, pads[1]), wk_pose_compose(right1, pad_T[1]), 1e-12);
    CHECK_POSE_NEAR(wk_scene_world_pose(s, pads[1]), wk_scene_pose(s, pads[1]), 1e-12);
    /* The follower is no degree of freedom: it cannot be set alone. */
    CHECK_INT(wk_scene_set_joint_positions(s, robot, (const char *const[]){"finger_right_joint"}, (double[]){0.01}, 1, &st),
              ==, WK_NOT_FOUND);
    urdf_mimic_limits(s, robot, right_joint, (wk_entity[]){left, right});
}

static bool load(const char *path, loaded *l)
{
    return load_from(path, NULL, l);
}

/* SDFormat 1.11's <mimic>: the follower turns by multiplier * (leader -
 * reference) + offset whenever the leader is set, carrying its link. */
static void sdf_mimic(void)
{
    static const char *const world =
        "<sdf version='1.11'><model name='gripper'><link name='palm'/>"
        "<link name='left'><pose>0.1 0 0 0 0 0</pose></link><link name='right'><pose>-0.1 0 0 0 0 0</pose></link>"
        "<joint name='lead' type='revolute'><parent>palm</parent><child>left</child>"
        "<axis><xyz>0 0 1</xyz></axis></joint>"
        "<joint name='follow' type='revolute'><parent>palm</parent><child>right</child>"
        "<axis><xyz>0 0 1</xyz><mimic joint='lead' axis='axis'><multiplier>-2</multiplier><offset>0.1</offset>"
        "<reference>0.05</reference></mimic></axis></joint></model></sdf>";
    loaded file;
    REQUIRE(load_from(NULL, world, &file));
    wk_scene *s = file.s;
    wk_entity gripper = find_object(s, "gripper");
    REQUIRE(gripper);
    REQUIRE_INT(wk_scene_joint_count(s, gripper), ==, 1);
    const wk_kinematic_object *k = wk_scene_kinematic_object(s, gripper);
    wk_entity follow = wk_scene_child(s, wk_scene_child(s, gripper, "palm"), "follow");
    REQUIRE(follow);
    wk_entity right = wk_scene_child(s, follow, "right");
    REQUIRE(right);
    CHECK_STR(wk_scene_name(s, k->joints[0]), "lead");
    wk_pose right0 = wk_scene_pose(s, right);
    wk_status st;
    REQUIRE_INT(wk_scene_set_joint_positions(s, gripper, NULL, (double[]){0.3}, 1, &st), ==, WK_OK);
    double q = -2 * (0.3 - 0.05) + 0.1;
    CHECK_NEAR(wk_scene_kinematics(s, follow)->position, q, 1e-15);
    /* The joint frame is the child link's: the link turns in place. */
    CHECK_POSE_NEAR(wk_scene_pose(s, right), wk_pose_compose(right0, at(0, 0, 0, 0, 0, q)), 1e-12);
    loaded_free(&file);
}

static void urdf_arm(void)
{
    loaded file;
    REQUIRE(load(WK_TEST_WORLDS "/arm.urdf", &file));
    wk_scene *s = file.s;
    wk_entity robot = find_object(s, "arm");
    REQUIRE(robot);
    CHECK_INT(wk_scene_object_info(s, robot)->type, ==, WK_OBJECT_KINEMATIC);
    const wk_kinematic_object *k = wk_scene_kinematic_object(s, robot);
    REQUIRE(k);
    /* The file's order; fixed, floating and planar joints are no degree of
     * freedom, nor the mimic joint, which follows finger_left_joint. */
    static const struct {
        const char *name;
        uint32_t motion;
        double lower, upper, velocity;
    } want[] = {
        {"shoulder_pan", WK_JOINT_MOTION_REVOLUTE, -2.9, 2.9, 2},
        {"elbow", WK_JOINT_MOTION_REVOLUTE, -INFINITY, INFINITY, INFINITY},
        {"slide", WK_JOINT_MOTION_PRISMATIC, 0, 0.2, 0.5},
        {"wrist", WK_JOINT_MOTION_REVOLUTE, -1, 1, 3},
        {"finger_left_joint", WK_JOINT_MOTION_PRISMATIC, 0, 0.04, 0.1},
    };
    REQUIRE_INT(k->joint_count, ==, 5);
    for (size_t i = 0; i < 5; i++) {
        CHECK_STR(wk_scene_name(s, k->joints[i]), want[i].name);
        CHECK_INT(wk_scene_kinematics(s, k->joints[i])->motion, ==, want[i].motion);
        CHECK(k->system_limits[i].min_position == want[i].lower);
        CHECK(k->system_limits[i].max_position == want[i].upper);
        CHECK(k->system_limits[i].max_velocity == want[i].velocity);
        CHECK(k->system_limits[i].max_effort == 0);
        CHECK(memcmp(&k->system_limits[i], &k->application_limits[i], sizeof(wk_joint_limit)) == 0);
    }
    /* The axis "0 0 2" is made unit. */
    CHECK_VEC3_NEAR(wk_scene_kinematics(s, k->joints[0])->axis, ((wk_vec3){0, 0, 1}), 1e-15);
    wk_entity hand = wk_scene_child(s, k->joints[3], "hand");
    REQUIRE(hand);
    wk_entity tool_mount = wk_scene_child(s, hand, "tool_mount");
    REQUIRE(tool_mount);
    CHECK_INT(wk_scene_kinematics(s, tool_mount)->motion, ==, WK_JOINT_MOTION_FIXED);
    wk_entity tool = wk_scene_child(s, tool_mount, "tool");
    wk_entity base = wk_scene_child(s, robot, "base");
    REQUIRE(tool && base);
    /* Turning the wrist turns the hand about its joint's z (URDF puts the
     * joint frame on the child link), carrying the tool along. */
    wk_pose hand0 = wk_scene_pose(s, hand), tool0 = wk_scene_pose(s, tool), base0 = wk_scene_pose(s, base);
    const char *wrist[] = {"wrist"};
    wk_status st;
    CHECK_INT(wk_scene_set_joint_positions(s, robot, wrist, (double[]){0.5}, 1, &st), ==, WK_OK);
    wk_pose turned = wk_pose_compose(hand0, at(0, 0, 0, 0, 0, 0.5));
    CHECK_POSE_NEAR(wk_scene_pose(s, hand), turned, 1e-12);
    CHECK_POSE_NEAR(wk_scene_pose(s, tool),
                    wk_pose_compose(turned, wk_pose_compose(wk_pose_inverse(hand0), tool0)), 1e-12);
    CHECK_POSE_NEAR(wk_scene_world_pose(s, tool), wk_scene_pose(s, tool), 1e-12);
    CHECK_POSE_NEAR(wk_scene_pose(s, base), base0, 0);
    CHECK_INT(wk_scene_set_joint_positions(s, robot, wrist, (double[]){1.5}, 1, &st), ==, WK_RANGE);
    /* Back to zero: the file's poses again. */
    CHECK_INT(wk_scene_set_joint_positions(s, robot, wrist, (double[]){0}, 1, &st), ==, WK_OK);
    check_poses_kept(&file);
    wk_scene *copy = wk_scene_clone(s);
    REQUIRE(copy);
    CHECK(wk_ecm_equal(wk_scene_ecm(s), wk_scene_ecm(copy), NULL));
    wk_scene_free(copy);
    urdf_mimic(s, robot);
    loaded_free(&file);
}

static void sdf_nested_models(void)
{
    loaded file;
    REQUIRE(load(WK_TEST_WORLDS "/nested.sdf", &file));
    wk_scene *s = file.s;
    wk_entity robot = find_object(s, "robot"), arm_object = find_object(s, "arm");
    REQUIRE(robot && arm_object);
    /* robot's only joint is fixed and it stays a physical object: its
     * joint keeps the file's layout. */
    CHECK_U64(wk_scene_kinematic_object(s, robot), ==, 0);
    wk_entity camera_joint = wk_scene_child(s, robot, "camera_joint");
    REQUIRE(camera_joint);
    CHECK_U64(wk_scene_kinematics(s, camera_joint), ==, 0);
    const wk_kinematic_object *k = wk_scene_kinematic_object(s, arm_object);
    REQUIRE(k);
    REQUIRE_INT(k->joint_count, ==, 1);
    wk_entity elbow = k->joints[0];
    CHECK_STR(wk_scene_name(s, elbow), "elbow");
    CHECK(isinf(k->system_limits[0].min_position) && isinf(k->system_limits[0].max_position));
    const wk_kinematics *kin = wk_scene_kinematics(s, elbow);
    CHECK_VEC3_NEAR(kin->axis, ((wk_vec3){1, 0, 0}), 0);
    wk_entity base = wk_scene_child(s, arm_object, "base");
    REQUIRE(base);
    CHECK_U64(wk_ecm_parent(wk_scene_ecm(s), elbow), ==, base);
    wk_entity forearm = wk_scene_child(s, elbow, "forearm");
    REQUIRE(forearm);
    /* The elbow turns the forearm about the joint's x, which SDFormat puts
     * on the child link. */
    wk_pose forearm0 = wk_scene_pose(s, forearm);
    wk_status st;
    CHECK_INT(wk_scene_set_joint_positions(s, arm_object, NULL, (double[]){-pi / 6}, 1, &st), ==, WK_OK);
    CHECK_POSE_NEAR(wk_scene_pose(s, forearm), wk_pose_compose(forearm0, at(0, 0, 0, -pi / 6, 0, 0)), 1e-12);
    CHECK_POSE_NEAR(wk_scene_world_pose(s, forearm), wk_scene_pose(s, forearm), 1e-12);
    loaded_free(&file);
}

static const wk_test_case cases[] = {
    {"build_an_arm", build_an_arm},
    {"positions_move_the_tool", positions_move_the_tool},
    {"refusals_change_nothing", refusals_change_nothing},
    {"limits_keep_their_rules", limits_keep_their_rules},
    {"named_configurations", named_configurations},
    {"solvers_and_flanges_are_data", solvers_and_flanges_are_data},
    {"referenced_frames_stay", referenced_frames_stay},
    {"built_entity_by_entity", built_entity_by_entity},
    {"entity_names_are_scoped", entity_names_are_scoped},
    {"attached_things_follow", attached_things_follow},
    {"creation_is_checked", creation_is_checked},
    {"limits_and_payload_are_checked", limits_and_payload_are_checked},
    {"clones_and_state_keep_everything", clones_and_state_keep_everything},
    {"malformed_bytes_are_refused", malformed_bytes_are_refused},
    {"urdf_arm", urdf_arm},
    {"sdf_nested_models", sdf_nested_models},
    {"sdf_mimic", sdf_mimic},
};
WK_TEST_MAIN(cases)
