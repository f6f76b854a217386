/* test_instantiate.c — descriptions turned into scene entities: every
 * entity's world pose equals its node's, joints point at their links' entities,
 * a subtree placed elsewhere moves rigidly, and failures leave nothing. */
#include <stdio.h>

#include "worldkit/wk_formats.h"
#include "wk_test.h"

#ifndef WK_TEST_WORLDS
#error "WK_TEST_WORLDS must name tests/formats/worlds"
#endif

static wk_world_desc *read_world(const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", WK_TEST_WORLDS, file);
    wk_world_desc *d = NULL;
    wk_status st = {0};
    if (wk_desc_read(&(wk_read_desc){.uri = path, .ignore_missing_or_unsupported_assets = true}, &d, &st))
        fprintf(stderr, "    %s: %s\n", path, st.message);
    return d;
}

static bool same_pose(wk_pose a, wk_pose b, double tol)
{
    return fabs(a.p.x - b.p.x) <= tol && fabs(a.p.y - b.p.y) <= tol && fabs(a.p.z - b.p.z) <= tol &&
           wk_quat_near(a.q, b.q, tol);
}

/* A new scene holding all of file's world (its entity in *world), and
 * its description in *d; NULL (and nothing to free) on failure. */
static wk_scene *load(const char *file, wk_world_desc **d, wk_entity *world)
{
    wk_status st = {0};
    wk_scene *s = (*d = read_world(file)) ? wk_scene_new() : NULL;
    if (s && CHECK_INT(wk_desc_instantiate(s, *d, 0, WK_NULL_ENTITY, NULL, NULL, world, &st), ==, WK_OK))
        return s;
    wk_scene_free(s);
    wk_desc_free(*d);
    return NULL;
}

/* The entities below world that match no node of d by kind, name and
 * world pose. */
static int misplaced(const wk_scene *s, wk_entity world, const wk_world_desc *d)
{
    wk_entity_list all = {0};
    if (!CHECK_INT(wk_ecm_descendants(wk_scene_ecm((wk_scene *)s), world, &all), ==, WK_OK))
        return -1;
    int wrong = 0;
    for (size_t k = 0; k < all.count; k++) {
        const uint8_t *kind = wk_ecm_get(wk_scene_ecm((wk_scene *)s), all.items[k], wk_scene_types_of(s)->kind);
        const char *name = wk_scene_name(s, all.items[k]);
        bool found = false;
        for (uint32_t i = 0; i < wk_desc_node_count(d) && !found; i++) {
            const wk_node *n = wk_desc_node(d, i);
            found = kind && *kind == n->kind && name && !strcmp(name, n->name) &&
                    same_pose(wk_scene_world_pose(s, all.items[k]), n->world, 1e-12);
        }
        if (!found)
            fprintf(stderr, "    %s is not where its node is\n", name ? name : "?");
        wrong += !found;
    }
    wk_entity_list_free(&all);
    return wrong;
}

/* Instantiates the whole world and compares every entity with its node. */
static void check_world(const char *file)
{
    wk_world_desc *d;
    wk_entity world;
    wk_scene *s = load(file, &d, &world);
    REQUIRE(s);
    CHECK_INT(wk_ecm_count(wk_scene_ecm(s)), ==, wk_desc_node_count(d));
    /* Entities were created in node order, children under their parents. */
    wk_entity_list all = {0};
    REQUIRE_INT(wk_ecm_descendants(wk_scene_ecm(s), world, &all), ==, WK_OK);
    CHECK_INT(all.count, ==, wk_desc_node_count(d));
    wk_entity_list_free(&all);
    if (!CHECK_INT(misplaced(s, world, d), ==, 0))
        fprintf(stderr, "    in %s\n", file);
    wk_scene_free(s);
    wk_desc_free(d);
}

static void worlds_reproduce_their_poses(void)
{
    check_world("frames.sdf");
    check_world("nested.sdf");
    check_world("old_1_4.sdf");
    check_world("arm.urdf");
    check_world("attached_frames.sdf");
    /* What Gazebo's own files hold (test_gazebo_files.c). */
    check_world("shapes_to_joint.sdf");
    check_world("flattened.sdf");
    check_world("polylines.sdf");
    check_world("joint_limits_inf.sdf");
    check_world("root_placement.sdf");
    check_world("remote_meshes.sdf");
}

/* The world's frames attached to a model are the model's: moved with
 * UpdateTransform, the model carries them (and the one on its link) along,
 * each keeping its pose relative to the model; the world's own stay, the
 * one attached to nothing and the one whose name the model holds. */
static void world_frames_follow_the_model_moved(wk_scene *s, wk_entity world, wk_entity robot, wk_entity forearm)
{
    wk_entity moving[] = {wk_scene_child(s, robot, "held"), wk_scene_child(s, robot, "beside_held"),
                          wk_scene_child(s, forearm, "above_forearm")};
    wk_entity staying[] = {wk_scene_child(s, world, "drop_zone"), wk_scene_child(s, world, "base")};
    REQUIRE(staying[0] && staying[1]);
    enum { MOVING = sizeof moving / sizeof *moving };
    wk_pose robot_T[MOVING], before[MOVING], staying_before[2] = {wk_scene_pose(s, staying[0]),
                                                                   wk_scene_pose(s, staying[1])};
    for (size_t i = 0; i < MOVING; i++) {
        REQUIRE(moving[i]);
        CHECK(wk_scene_is_frame(s, moving[i]));
        CHECK_U64(wk_scene_object_of(s, moving[i]), ==, robot);
        robot_T[i] = wk_scene_transform(s, robot, moving[i]);
        before[i] = wk_scene_pose(s, moving[i]);
    }
    wk_status st = {0};
    wk_pose world_T_robot = {{-3, 2, 0.5}, wk_quat_from_rpy(0.2, -0.1, 1.4)};
    REQUIRE_INT(wk_scene_update_transform(s, world, robot, WK_NULL_ENTITY, world_T_robot, &st), ==, WK_OK);
    CHECK(same_pose(wk_scene_pose(s, robot), world_T_robot, 1e-12));
    for (size_t i = 0; i < MOVING; i++) {
        wk_pose now = wk_scene_pose(s, moving[i]);
        if (!CHECK(same_pose(now, wk_pose_compose(world_T_robot, robot_T[i]), 1e-12)))
            fprintf(stderr, "    %s did not follow the robot\n", wk_scene_name(s, moving[i]));
        CHECK(!same_pose(now, before[i], 1e-3));
    }
    for (size_t i = 0; i < 2; i++) {
        CHECK(wk_scene_is_frame(s, staying[i]));
        CHECK_U64(wk_scene_object_of(s, staying[i]), ==, world);
        CHECK(same_pose(wk_scene_pose(s, staying[i]), staying_before[i], 1e-12));
    }
}

/* Frames hang below the link their attached_to chain ends at (through
 * frames and joints), or the model it names: a model's, and the world's
 * attached to the model or its link; the world's frames attached to
 * nothing, or sharing a name with a part of the model, stay below the
 * world. Loading keeps every file pose; turning the joint
 * carries the frames on the link it moves and no others; moving the model
 * carries the world's frames attached to it. */
static void frames_follow_what_they_are_attached_to(void)
{
    wk_world_desc *d;
    wk_entity world;
    wk_scene *s = load("attached_frames.sdf", &d, &world);
    REQUIRE(s);
    wk_status st = {0};
    wk_ecm *ecm = wk_scene_ecm(s);
    wk_entity robot = wk_scene_child(s, world, "robot");
    wk_entity forearm = wk_scene_child(s, robot, "forearm");
    wk_entity camera = wk_scene_child(s, robot, "camera");
    REQUIRE(robot && forearm && camera);
    wk_entity on_link[] = {wk_scene_child(s, forearm, "tool"), wk_scene_child(s, forearm, "tool_tip"),
                           wk_scene_child(s, forearm, "elbow_marker"), wk_scene_child(s, forearm, "above_forearm")};
    wk_entity fixed[] = {wk_scene_child(s, robot, "on_model"), wk_scene_child(s, camera, "camera_mount"),
                         wk_scene_child(s, world, "drop_zone"), wk_scene_child(s, robot, "held"),
                         wk_scene_child(s, robot, "beside_held"), wk_scene_child(s, world, "base")};
    enum { ON_LINK = sizeof on_link / sizeof *on_link, FIXED = sizeof fixed / sizeof *fixed };
    for (size_t i = 0; i < ON_LINK; i++)
        REQUIRE(on_link[i]);
    for (size_t i = 0; i < FIXED; i++)
        REQUIRE(fixed[i]);

    REQUIRE_INT(wk_scene_objects_init(s, world, &st), ==, WK_OK);
    CHECK_INT(misplaced(s, world, d), ==, 0);
    REQUIRE_INT(wk_scene_joint_count(s, robot), ==, 1);
    CHECK_U64(wk_scene_object_of(s, on_link[0]), ==, robot);
    CHECK_U64(wk_scene_object_of(s, fixed[1]), ==, camera);

    wk_pose forearm_before = wk_scene_pose(s, forearm), link_T[ON_LINK], fixed_before[FIXED];
    for (size_t i = 0; i < ON_LINK; i++)
        link_T[i] = wk_pose_compose(wk_pose_inverse(forearm_before), wk_scene_pose(s, on_link[i]));
    for (size_t i = 0; i < FIXED; i++)
        fixed_before[i] = wk_scene_pose(s, fixed[i]);
    REQUIRE_INT(wk_scene_set_joint_positions(s, robot, (const char *const[]){"elbow"}, (const double[]){0.5}, 1, &st),
                ==, WK_OK);
    wk_pose forearm_after = wk_scene_pose(s, forearm);
    CHECK(!same_pose(forearm_after, forearm_before, 1e-3));
    for (size_t i = 0; i < ON_LINK; i++) {
        wk_pose now = wk_scene_pose(s, on_link[i]);
        if (!CHECK(same_pose(now, wk_pose_compose(forearm_after, link_T[i]), 1e-12)))
            fprintf(stderr, "    %s does not follow the forearm\n", wk_scene_name(s, on_link[i]));
        CHECK(!same_pose(now, wk_pose_compose(forearm_before, link_T[i]), 1e-3));
    }
    for (size_t i = 0; i < FIXED; i++)
        if (!CHECK(same_pose(wk_scene_pose(s, fixed[i]), fixed_before[i], 1e-12)))
            fprintf(stderr, "    %s moved with the forearm\n", wk_scene_name(s, fixed[i]));
    CHECK_U64(wk_ecm_parent(ecm, fixed[2]), ==, world);
    world_frames_follow_the_model_moved(s, world, robot, forearm);
    wk_scene_free(s);
    wk_desc_free(d);
}

static void joints_point_at_links(void)
{
    wk_world_desc *d;
    wk_entity world;
    wk_scene *s = load("nested.sdf", &d, &world);
    REQUIRE(s);
    wk_entity robot = wk_scene_child(s, world, "robot");
    wk_entity arm = wk_scene_child(s, robot, "arm");
    wk_entity gripper = wk_scene_child(s, arm, "gripper");
    wk_entity joint = wk_scene_child(s, robot, "camera_joint");
    REQUIRE(robot && arm && gripper && joint);
    const wk_scene_joint_links *links = wk_ecm_get(wk_scene_ecm(s), joint, wk_scene_types_of(s)->joint_links);
    REQUIRE(links);
    CHECK_U64(links->parent, ==, wk_scene_child(s, gripper, "palm")); /* arm::gripper::palm */
    CHECK_U64(links->child, ==, wk_scene_child(s, robot, "camera"));
    const wk_scene_joint *j =
        wk_ecm_get(wk_scene_ecm(s), wk_scene_child(s, arm, "elbow"), wk_scene_types_of(s)->joint);
    REQUIRE(j);
    CHECK_INT(j->type, ==, WK_JOINT_REVOLUTE);
    CHECK_NEAR(j->axis.x, 1, 0);
    wk_scene_free(s);
    wk_desc_free(d);
}

static void placed_subtree_moves_rigidly(void)
{
    wk_world_desc *d;
    wk_entity world, copy;
    wk_scene *s = load("nested.sdf", &d, &world);
    REQUIRE(s);
    wk_status st = {0};
    uint32_t robot_node = 1;
    REQUIRE(!strcmp(wk_desc_node(d, robot_node)->name, "robot"));
    wk_pose at = {{10, -4, 1}, wk_quat_from_rpy(0.1, 0.2, 0.3)};
    REQUIRE_INT(wk_desc_instantiate(s, d, robot_node, world, &at, "robot_2", &copy, &st), ==, WK_OK);
    CHECK_STR(wk_scene_name(s, copy), "robot_2");
    CHECK(same_pose(wk_scene_world_pose(s, copy), at, 1e-12));
    /* Every part keeps its pose relative to the model. */
    wk_entity orig = wk_scene_child(s, world, "robot");
    wk_entity a = wk_scene_child(s, wk_scene_child(s, orig, "arm"), "forearm");
    wk_entity b = wk_scene_child(s, wk_scene_child(s, copy, "arm"), "forearm");
    REQUIRE(a && b);
    wk_pose rel_a = wk_pose_compose(wk_pose_inverse(wk_scene_world_pose(s, orig)), wk_scene_world_pose(s, a));
    wk_pose rel_b = wk_pose_compose(wk_pose_inverse(wk_scene_world_pose(s, copy)), wk_scene_world_pose(s, b));
    CHECK(same_pose(rel_a, rel_b, 1e-12));
    CHECK_INT(wk_desc_instantiate(s, d, 99999, world, NULL, NULL, &copy, &st), ==, WK_INVALID);
    CHECK_INT(wk_desc_instantiate(s, d, 0, 123456, NULL, NULL, &copy, &st), ==, WK_STALE);
    wk_scene_free(s);
    wk_desc_free(d);
}

static const wk_test_case cases[] = {
    {"worlds_reproduce_their_poses", worlds_reproduce_their_poses},
    {"frames_follow_what_they_are_attached_to", frames_follow_what_they_are_attached_to},
    {"joints_point_at_links", joints_point_at_links},
    {"placed_subtree_moves_rigidly", placed_subtree_moves_rigidly},
};
WK_TEST_MAIN(cases)
