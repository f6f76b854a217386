/* test_frames.c — frames of the object world: under objects and frames,
 * found by names and id, deleted with and without force (objects on them
 * kept in place), renamed and reparented with their child frames. */
#include "scene/object_world.h"

static void create_and_find(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity gripper = object_at(s, "gripper", 0, at(0, 0, 1, 0, 0, 0));
    wk_entity tcp = frame_at(s, "tcp", gripper, at(0, 0, 0.2, 0, 0, 0));
    wk_entity approach = frame_at(s, "approach", tcp, at(0, 0, -0.05, 0, 0, 0));
    REQUIRE(gripper && tcp && approach);
    CHECK_U64(find_frame(s, "gripper", "tcp"), ==, tcp);
    CHECK_U64(find_frame(s, "gripper", "approach"), ==, approach);
    CHECK_U64(wk_scene_parent_frame(s, approach), ==, tcp);
    CHECK_U64(wk_scene_parent_frame(s, tcp), ==, WK_NULL_ENTITY);
    CHECK_U64(wk_scene_object_of(s, approach), ==, gripper);
    CHECK_POSE_NEAR(wk_scene_pose(s, approach), at(0, 0, 1.15, 0, 0, 0), 1e-12);
    char id[WK_ID_MAX];
    wk_scene_frame_id(s, approach, id);
    CHECK(strncmp(id, "frm_", 4) == 0);
    wk_entity e = 0;
    wk_status st;
    CHECK_INT(wk_scene_find_frame(s, &(wk_ref){.id = id}, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, approach);
    CHECK_INT(wk_scene_find_node(s, &(wk_ref){.id = id}, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, approach);
    CHECK_INT(wk_scene_find_node(s, &(wk_ref){.object_name = "gripper", .frame_name = "tcp"}, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, tcp);
    CHECK_INT(wk_scene_find_frame(s, &(wk_ref){.object_name = "gripper", .frame_name = "nope"}, &e, &st), ==,
              WK_NOT_FOUND);
    CHECK(strstr(st.message, "nope") && strstr(st.message, "gripper"));
    CHECK_INT(wk_scene_find_frame(s, &(wk_ref){.object_name = "gripper"}, &e, &st), ==, WK_INVALID);
    /* Global frames hang under root. */
    wk_entity home = frame_at(s, "home", 0, at(1, 1, 0, 0, 0, 0));
    CHECK_U64(find_frame(s, "root", "home"), ==, home);
    /* Frame names are unique within the object, among its frames and its
     * child objects (ObjectWorldService: names under one parent object);
     * another object may use the same name. */
    CHECK_INT(wk_scene_create_frame(s, &(wk_frame_desc){.name = "tcp", .parent = approach}, &e, &st), ==, WK_EXISTS);
    wk_entity finger = object_at(s, "finger", gripper, wk_pose_identity());
    REQUIRE(finger);
    CHECK_INT(wk_scene_create_frame(s, &(wk_frame_desc){.name = "finger", .parent = tcp}, &e, &st), ==, WK_EXISTS);
    CHECK(strstr(st.message, "'finger'") && strstr(st.message, "'gripper'"));
    wk_entity finger_tcp = frame_at(s, "tcp", finger, wk_pose_identity());
    CHECK(finger_tcp != WK_NULL_ENTITY);
    CHECK_U64(find_frame(s, "finger", "tcp"), ==, finger_tcp);
    CHECK_U64(find_frame(s, "gripper", "tcp"), ==, tcp);
    CHECK_INT(wk_scene_delete_object(s, finger, false, &st), ==, WK_OK);
    wk_entity_list list = {0};
    CHECK_INT(wk_scene_object_frames(s, gripper, &list), ==, WK_OK);
    CHECK_INT(list.count, ==, 2);
    list.count = 0;
    CHECK_INT(wk_scene_frame_children(s, tcp, &list), ==, WK_OK);
    CHECK_INT(list.count, ==, 1);
    wk_entity_list_free(&list);
    CHECK_INT(wk_scene_set_attachment_frame(s, tcp, true, &st), ==, WK_OK);
    const wk_frame_info *info = wk_ecm_get(wk_scene_ecm(s), tcp, wk_scene_types_of(s)->frame);
    CHECK(info && info->is_attachment_frame);
    CHECK_INT(wk_scene_set_attachment_frame(s, gripper, true, &st), ==, WK_NOT_FOUND);
    wk_scene_free(s);
}

static void frame_under_a_link_of_its_object(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity robot = object_at(s, "robot", 0, at(1, 0, 0, 0, 0, 0));
    REQUIRE(robot);
    /* A link entity inside the object, posed off its base. */
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_scene_types *t = wk_scene_types_of(s);
    const char *name = "link1";
    wk_pose link_pose = at(0, 0, 0.5, 0, 0, 1.5707963267948966);
    wk_entity link = wk_ecm_create_with(ecm, (wk_type[]){t->name, t->parent_pose}, (const void *[]){&name, &link_pose}, 2);
    REQUIRE(link);
    wk_ecm_set_parent(ecm, link, robot);
    /* The pose given is relative to the object's base, whatever the entity. */
    wk_entity f = frame_at(s, "f", link, at(0.2, 0, 0, 0, 0, 0));
    REQUIRE(f);
    CHECK_U64(wk_ecm_parent(ecm, f), ==, link);
    CHECK_POSE_NEAR(wk_scene_pose(s, f), at(1.2, 0, 0, 0, 0, 0), 1e-12);
    CHECK_POSE_NEAR(wk_scene_node_pose(s, f), at(0.2, 0, 0, 0, 0, 0), 1e-12);
    wk_scene_free(s);
}

static void delete_frames(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity table = object_at(s, "table", 0, at(2, 0, 0, 0, 0, 0));
    wk_entity corner = frame_at(s, "corner", table, at(0.5, 0.5, 0.7, 0, 0, 0.4));
    wk_entity slot = frame_at(s, "slot", corner, at(0.1, 0, 0, 0, 0, 0));
    wk_entity part = object_at(s, "part", slot, at(0, 0, 0.02, 0, 0, 0));
    REQUIRE(table && corner && slot && part);
    wk_pose part_world = wk_scene_pose(s, part);
    size_t before = wk_ecm_count(wk_scene_ecm(s));
    wk_status st;
    CHECK_INT(wk_scene_delete_frame(s, corner, false, &st), ==, WK_PRECONDITION);
    CHECK(strstr(st.message, "slot") != NULL);
    CHECK_INT(wk_ecm_count(wk_scene_ecm(s)), ==, before);
    CHECK_INT(wk_scene_delete_frame(s, corner, true, &st), ==, WK_OK);
    CHECK(!wk_ecm_exists(wk_scene_ecm(s), slot));
    /* The object that sat on the frame stays where it was, on the table. */
    REQUIRE(wk_ecm_exists(wk_scene_ecm(s), part));
    CHECK_U64(wk_scene_parent_object(s, part), ==, table);
    CHECK_U64(wk_scene_parent_frame(s, part), ==, WK_NULL_ENTITY);
    CHECK_POSE_NEAR(wk_scene_pose(s, part), part_world, 1e-12);
    CHECK_INT(wk_scene_delete_frame(s, table, false, &st), ==, WK_NOT_FOUND);
    wk_scene_free(s);
}

static void rename_and_reparent_frames(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity a = object_at(s, "a", 0, at(1, 0, 0, 0, 0, 0));
    wk_entity b = object_at(s, "b", 0, at(0, 3, 0, 0, 0, 1));
    wk_entity top = frame_at(s, "top", a, at(0, 0, 1, 0, 0, 0));
    wk_entity tip = frame_at(s, "tip", top, at(0, 0, 1, 0, 0, 0));
    wk_entity taken = frame_at(s, "tip", b, wk_pose_identity());
    REQUIRE(a && b && top && tip && taken);
    wk_status st;
    CHECK_INT(wk_scene_rename(s, top, "tip", false, &st), ==, WK_EXISTS);
    CHECK_INT(wk_scene_rename(s, top, "peak", false, &st), ==, WK_OK);
    CHECK_U64(find_frame(s, "a", "peak"), ==, top);
    /* Moving peak to b would bring a second "tip" into b. */
    wk_pose tip_world = wk_scene_pose(s, tip);
    CHECK_INT(wk_scene_reparent(s, top, b, &st), ==, WK_EXISTS);
    CHECK(strstr(st.message, "tip") != NULL);
    CHECK_U64(wk_scene_object_of(s, top), ==, a);
    CHECK_INT(wk_scene_rename(s, taken, "other", false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_reparent(s, top, b, &st), ==, WK_OK);
    CHECK_U64(wk_scene_object_of(s, tip), ==, b);
    CHECK_U64(find_frame(s, "b", "tip"), ==, tip);
    CHECK_U64(find_frame(s, "a", "tip"), ==, WK_NULL_ENTITY);
    CHECK_POSE_NEAR(wk_scene_pose(s, tip), tip_world, 1e-12);
    CHECK_INT(wk_scene_reparent(s, top, tip, &st), ==, WK_INVALID);
    wk_scene_free(s);
}

static void objects_snap_onto_attachment_frames(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity gripper = object_at(s, "gripper", 0, at(0, 0, 1, 0, 0, 0.5));
    wk_entity mount = frame_at(s, "mount", gripper, at(0, 0, 0.1, 0.2, 0, 0));
    wk_entity part = object_at(s, "part", 0, at(3, 3, 0, 0, 0, 0));
    REQUIRE(gripper && mount && part);
    wk_status st;
    REQUIRE_INT(wk_scene_set_attachment_frame(s, mount, true, &st), ==, WK_OK);
    CHECK_INT(wk_scene_reparent(s, part, mount, &st), ==, WK_OK);
    CHECK_POSE_NEAR(wk_scene_node_pose(s, part), wk_pose_identity(), 1e-12);
    CHECK_POSE_NEAR(wk_scene_pose(s, part), wk_scene_pose(s, mount), 1e-12);
    wk_entity tool = WK_NULL_ENTITY;
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "tool", .parent = mount, .pose = at(1, 0, 0, 0, 0, 0)},
                                     &tool, &st),
              ==, WK_OK);
    CHECK_POSE_NEAR(wk_scene_node_pose(s, tool), wk_pose_identity(), 1e-12);
    /* A plain frame keeps the world pose instead. */
    wk_entity plain = frame_at(s, "plain", gripper, at(0, 1, 0, 0, 0, 0));
    wk_pose before = wk_scene_pose(s, part);
    CHECK_INT(wk_scene_reparent(s, part, plain, &st), ==, WK_OK);
    CHECK_POSE_NEAR(wk_scene_pose(s, part), before, 1e-12);
    wk_scene_free(s);
}

static const wk_test_case cases[] = {
    {"objects_snap_onto_attachment_frames", objects_snap_onto_attachment_frames},
    {"create_and_find", create_and_find},
    {"frame_under_a_link_of_its_object", frame_under_a_link_of_its_object},
    {"delete_frames", delete_frames},
    {"rename_and_reparent_frames", rename_and_reparent_frames},
};
WK_TEST_MAIN(cases)
