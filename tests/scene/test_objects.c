/* test_objects.c — objects of the object world: the root object, creating
 * with the naming rules, finding by id, name and path, deleting with and
 * without force, renaming, reparenting with the world pose kept, and the
 * objects a loaded world file turns into. */
#include "scene/object_world.h"
#include "worldkit/wk_formats.h"

static void root_object(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity root = wk_scene_root(s);
    REQUIRE(root != WK_NULL_ENTITY);
    const wk_object_info *info = wk_scene_object_info(s, root);
    REQUIRE(info);
    CHECK_INT(info->type, ==, WK_OBJECT_ROOT);
    CHECK_STR(info->name, "root");
    char id[WK_ID_MAX];
    wk_scene_object_id(s, root, id);
    CHECK_STR(id, "root");
    wk_scene_entity_id(s, root, id);
    CHECK_STR(id, "eid_root");
    CHECK_U64(find_object(s, "root"), ==, root);
    CHECK_U64(wk_scene_parent_object(s, root), ==, WK_NULL_ENTITY);
    wk_status st;
    CHECK_INT(wk_scene_delete_object(s, root, true, &st), ==, WK_INVALID);
    CHECK_INT(wk_scene_rename(s, root, "other", false, &st), ==, WK_INVALID);
    CHECK_INT(wk_scene_objects_init(s, WK_NULL_ENTITY, &st), ==, WK_EXISTS);
    /* Its entity takes a world's name (CreateWorld from a file's
     * snapshot); the object stays "root". */
    CHECK_INT(wk_scene_name_root(s, "", &st), ==, WK_INVALID);
    CHECK_STR(wk_scene_name(s, root), "root");
    REQUIRE_INT(wk_scene_name_root(s, "my-world", &st), ==, WK_OK);
    CHECK_STR(wk_scene_name(s, root), "my-world");
    CHECK_STR(wk_scene_object_info(s, root)->name, "root");
    CHECK_U64(find_object(s, "root"), ==, root);
    wk_scene_free(s);
}

static void create_and_find(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity table = object_at(s, "table", 0, at(1, 0, 0, 0, 0, 1.5707963267948966));
    wk_entity cup = object_at(s, "cup", table, at(0.5, 0, 0.8, 0, 0, 0));
    REQUIRE(table && cup);
    CHECK_INT(wk_scene_object_info(s, cup)->type, ==, WK_OBJECT_PHYSICAL);
    CHECK_U64(wk_scene_parent_object(s, cup), ==, table);
    CHECK_POSE_NEAR(wk_scene_pose(s, cup), at(1, 0.5, 0.8, 0, 0, 1.5707963267948966), 1e-12);
    CHECK_POSE_NEAR(wk_scene_node_pose(s, cup), at(0.5, 0, 0.8, 0, 0, 0), 1e-12);

    char id[WK_ID_MAX];
    wk_scene_object_id(s, cup, id);
    wk_entity e = 0;
    wk_status st;
    CHECK_INT(wk_scene_find_object(s, &(wk_ref){.id = id}, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, cup);
    CHECK_INT(wk_scene_find_object(s, &(wk_ref){.id = "obj_999999"}, &e, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "obj_999999") != NULL);
    CHECK_INT(wk_scene_find_object(s, &(wk_ref){.id = "frm_1"}, &e, &st), ==, WK_NOT_FOUND);
    CHECK_INT(wk_scene_find_object(s, &(wk_ref){0}, &e, &st), ==, WK_INVALID);
    CHECK_INT(wk_scene_find_object(s, &(wk_ref){.object_name = "nothing"}, &e, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "nothing") != NULL);
    const char *path[] = {"table", "cup"};
    CHECK_INT(wk_scene_find_object_path(s, path, 2, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, cup);
    CHECK_INT(wk_scene_find_object_path(s, path + 1, 1, &e, &st), ==, WK_NOT_FOUND);
    CHECK_INT(wk_scene_find_object_path(s, path, 0, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, wk_scene_root(s));

    wk_entity_list list = {0};
    CHECK_INT(wk_scene_objects(s, &list), ==, WK_OK);
    REQUIRE_INT(list.count, ==, 3);
    CHECK_U64(list.items[0], ==, wk_scene_root(s));
    CHECK_U64(list.items[2], ==, cup);
    list.count = 0;
    CHECK_INT(wk_scene_object_children(s, table, &list), ==, WK_OK);
    CHECK_INT(list.count, ==, 1);
    wk_entity_list_free(&list);
    wk_scene_free(s);
}

static void naming_rules(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    static const char *const bad[] = {"", "1abc", "_a", "a-b", "ab_", "a b", "caf\xc3\xa9"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(!wk_scene_name_valid(bad[i]));
    CHECK(wk_scene_name_valid("a"));
    CHECK(wk_scene_name_valid("robot_2"));
    CHECK(!wk_scene_name_valid(NULL));
    char longest[WK_NAME_MAX + 2];
    memset(longest, 'a', WK_NAME_MAX);
    longest[WK_NAME_MAX] = '\0';
    CHECK(wk_scene_name_valid(longest));
    longest[WK_NAME_MAX] = 'a';
    longest[WK_NAME_MAX + 1] = '\0';
    CHECK(!wk_scene_name_valid(longest));

    wk_entity e;
    wk_status st;
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "a-b"}, &e, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "a-b") != NULL);
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "root"}, &e, &st), ==, WK_EXISTS);
    wk_entity a = object_at(s, "a", 0, wk_pose_identity());
    wk_entity b = object_at(s, "b", 0, wk_pose_identity());
    REQUIRE(a && b);
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "a"}, &e, &st), ==, WK_EXISTS);
    /* The same name under another parent is fine, but then ambiguous. */
    wk_entity a_in_b = object_at(s, "a", b, wk_pose_identity());
    REQUIRE(a_in_b);
    CHECK_INT(wk_scene_find_object(s, &(wk_ref){.object_name = "a"}, &e, &st), ==, WK_INVALID);
    /* A frame and an object under the same object share the namespace. */
    CHECK(frame_at(s, "grasp", b, wk_pose_identity()) != WK_NULL_ENTITY);
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "grasp", .parent = b}, &e, &st), ==, WK_EXISTS);
    /* A global alias is unique among all objects. */
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "a", .parent = a, .name_is_global_alias = true},
                                     &e, &st),
              ==, WK_EXISTS);
    wk_entity robot;
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "robot", .parent = a, .name_is_global_alias = true},
                                     &robot, &st),
              ==, WK_OK);
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "robot", .parent = b}, &e, &st), ==, WK_EXISTS);
    CHECK_U64(find_object(s, "robot"), ==, robot);
    /* Non-finite poses are refused. */
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "nan", .pose = {{NAN, 0, 0}, {1, 0, 0, 0}}}, &e,
                                     &st),
              ==, WK_INVALID);
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "skew", .pose = {{0, 0, 0}, {1, 1, 0, 0}}}, &e,
                                     &st),
              ==, WK_INVALID);
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "orphan", .parent = (wk_entity)12345 << 32}, &e,
                                     &st),
              ==, WK_NOT_FOUND);
    wk_scene_free(s);
}

static void delete_with_and_without_force(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity table = object_at(s, "table", 0, wk_pose_identity());
    wk_entity cup = object_at(s, "cup", table, wk_pose_identity());
    wk_entity spoon = object_at(s, "spoon", cup, wk_pose_identity());
    REQUIRE(frame_at(s, "edge", table, wk_pose_identity()));
    size_t before = wk_ecm_count(wk_scene_ecm(s));
    wk_status st;
    CHECK_INT(wk_scene_delete_object(s, table, false, &st), ==, WK_PRECONDITION);
    CHECK(strstr(st.message, "cup") != NULL);
    CHECK_INT(wk_ecm_count(wk_scene_ecm(s)), ==, before);
    /* Frames go with their object even without force. */
    CHECK_INT(wk_scene_delete_object(s, spoon, false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_delete_object(s, table, true, &st), ==, WK_OK);
    CHECK(!wk_ecm_exists(wk_scene_ecm(s), cup));
    CHECK_U64(find_object(s, "cup"), ==, WK_NULL_ENTITY);
    CHECK_U64(find_frame(s, "table", "edge"), ==, WK_NULL_ENTITY);
    CHECK_INT(wk_ecm_count(wk_scene_ecm(s)), ==, 1);
    /* The names are free again. */
    CHECK(object_at(s, "cup", 0, wk_pose_identity()) != WK_NULL_ENTITY);
    CHECK_INT(wk_scene_delete_object(s, table, true, &st), ==, WK_NOT_FOUND);
    wk_scene_free(s);
}

static void rename_objects(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity a = object_at(s, "a", 0, wk_pose_identity());
    wk_entity b = object_at(s, "b", 0, wk_pose_identity());
    REQUIRE(a && b);
    wk_status st;
    CHECK_INT(wk_scene_rename(s, a, "b", false, &st), ==, WK_EXISTS);
    CHECK_STR(wk_scene_object_info(s, a)->name, "a");
    CHECK_INT(wk_scene_rename(s, a, "bad name", false, &st), ==, WK_INVALID);
    CHECK_INT(wk_scene_rename(s, a, "a", true, &st), ==, WK_OK); /* its own name is not a clash */
    CHECK(wk_scene_object_info(s, a)->name_is_global_alias);
    CHECK_INT(wk_scene_rename(s, a, "c", false, &st), ==, WK_OK);
    CHECK_U64(find_object(s, "a"), ==, WK_NULL_ENTITY);
    CHECK_U64(find_object(s, "c"), ==, a);
    CHECK(!wk_scene_object_info(s, a)->name_is_global_alias);
    wk_scene_free(s);
}

/* A clone holds the original's name strings themselves; renaming either
 * replaces its own string, and each outlives the other being freed. */
static void clone_shares_names_until_renamed(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity cup = object_at(s, "cup", 0, wk_pose_identity());
    wk_entity rim = frame_at(s, "rim", cup, wk_pose_identity());
    REQUIRE(cup && rim);
    wk_scene *copy = wk_scene_clone(s);
    REQUIRE(copy);
    CHECK(wk_scene_object_info(copy, cup)->name == wk_scene_object_info(s, cup)->name);
    CHECK(wk_scene_name(copy, rim) == wk_scene_name(s, rim));
    wk_status st;
    CHECK_INT(wk_scene_rename(copy, cup, "mug", false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_rename(s, rim, "lip", false, &st), ==, WK_OK);
    CHECK_STR(wk_scene_object_info(s, cup)->name, "cup");
    CHECK_STR(wk_scene_name(copy, rim), "rim");
    wk_scene *second = wk_scene_clone(copy);
    REQUIRE(second);
    wk_scene_free(s);
    wk_scene_free(copy);
    CHECK_STR(wk_scene_object_info(second, cup)->name, "mug");
    CHECK_STR(wk_scene_name(second, rim), "rim");
    wk_scene_free(second);
}

static void reparent_keeps_world_pose(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity table = object_at(s, "table", 0, at(1, 2, 0, 0, 0, 0.7));
    wk_entity shelf = object_at(s, "shelf", 0, at(-3, 0, 1, 0.2, 0, 0));
    wk_entity cup = object_at(s, "cup", table, at(0.1, 0.2, 0.8, 0, 0.3, 0));
    wk_entity rim = frame_at(s, "rim", cup, at(0, 0, 0.1, 0, 0, 0));
    REQUIRE(table && shelf && cup && rim);
    wk_pose cup_world = wk_scene_pose(s, cup), rim_world = wk_scene_pose(s, rim);
    wk_status st;
    CHECK_INT(wk_scene_reparent(s, cup, shelf, &st), ==, WK_OK);
    CHECK_U64(wk_scene_parent_object(s, cup), ==, shelf);
    CHECK_POSE_NEAR(wk_scene_pose(s, cup), cup_world, 1e-12);
    CHECK_POSE_NEAR(wk_scene_pose(s, rim), rim_world, 1e-12);
    CHECK_POSE_NEAR(wk_scene_world_pose(s, rim), rim_world, 1e-12);
    /* Below itself: refused. */
    CHECK_INT(wk_scene_reparent(s, shelf, rim, &st), ==, WK_INVALID);
    CHECK_INT(wk_scene_reparent(s, shelf, cup, &st), ==, WK_INVALID);
    /* A name taken in the new parent: refused, nothing moved. */
    REQUIRE(object_at(s, "cup", table, wk_pose_identity()));
    CHECK_INT(wk_scene_reparent(s, cup, table, &st), ==, WK_EXISTS);
    CHECK_U64(wk_scene_parent_object(s, cup), ==, shelf);
    /* An object attached to a frame. */
    CHECK_INT(wk_scene_reparent(s, shelf, wk_scene_root(s), &st), ==, WK_OK);
    wk_entity lid = object_at(s, "lid", rim, at(0, 0, 0.01, 0, 0, 0));
    REQUIRE(lid);
    CHECK_U64(wk_scene_parent_frame(s, lid), ==, rim);
    CHECK_U64(wk_scene_parent_object(s, lid), ==, cup);
    CHECK_U64(wk_scene_parent_node(s, lid), ==, rim);
    CHECK_POSE_NEAR(wk_scene_node_pose(s, lid), at(0, 0, 0.01, 0, 0, 0), 1e-12);
    wk_scene_free(s);
}

static void objects_from_a_world_file(void)
{
    wk_world_desc *desc = NULL;
    wk_status st;
    REQUIRE_INT(wk_desc_read(&(wk_read_desc){.uri = WK_TEST_WORLDS "/nested.sdf"}, &desc, &st), ==, WK_OK);
    wk_scene *s = wk_scene_new();
    REQUIRE(s);
    wk_entity world = WK_NULL_ENTITY;
    REQUIRE_INT(wk_desc_instantiate(s, desc, 0, WK_NULL_ENTITY, NULL, NULL, &world, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_objects_init(s, world, &st), ==, WK_OK);
    CHECK_U64(wk_scene_root(s), ==, world);
    wk_entity robot = find_object(s, "robot"), arm = find_object(s, "arm"), gripper = find_object(s, "gripper");
    REQUIRE(robot && arm && gripper);
    /* arm holds the revolute elbow; robot's only own joint is fixed. */
    CHECK_INT(wk_scene_object_info(s, arm)->type, ==, WK_OBJECT_KINEMATIC);
    CHECK_INT(wk_scene_object_info(s, robot)->type, ==, WK_OBJECT_PHYSICAL);
    CHECK_U64(wk_scene_parent_object(s, gripper), ==, arm);
    CHECK_U64(wk_scene_parent_object(s, arm), ==, robot);
    wk_entity tcp = find_frame(s, "gripper", "tcp");
    REQUIRE(tcp);
    CHECK_POSE_NEAR(wk_scene_pose(s, tcp), wk_scene_world_pose(s, tcp), 1e-12);
    CHECK(find_frame(s, "robot", "camera_mount") != WK_NULL_ENTITY);
    CHECK_U64(find_frame(s, "robot", "tcp"), ==, WK_NULL_ENTITY); /* tcp is gripper's */
    wk_entity_list list = {0};
    CHECK_INT(wk_scene_objects(s, &list), ==, WK_OK);
    CHECK_INT(list.count, ==, 6); /* root, robot, arm, gripper, follower, placed */
    wk_entity_list_free(&list);
    wk_scene_free(s);
    wk_desc_free(desc);
}

/* An id is its prefix and the entity's number in decimal, exactly: no
 * sign, space, leading zero, trailing byte or number beyond 64 bits. */
static void ids_are_exact(void)
{
    wk_scene *s = new_world();
    REQUIRE(s);
    wk_entity cup = object_at(s, "cup", 0, at(0, 0, 0, 0, 0, 0));
    wk_entity tcp = 0;
    wk_status st;
    REQUIRE(cup);
    REQUIRE_INT(wk_scene_create_frame(s, &(wk_frame_desc){.name = "tcp", .parent = cup}, &tcp, &st), ==, WK_OK);
    char id[WK_ID_MAX], bad[WK_ID_MAX + 8];
    wk_scene_object_id(s, cup, id);
    wk_entity e = 0;
    CHECK_INT(wk_scene_find_node(s, &(wk_ref){.id = id}, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, cup);
    wk_scene_frame_id(s, tcp, id);
    CHECK_INT(wk_scene_find_node(s, &(wk_ref){.id = id}, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, tcp);
    CHECK_INT(wk_scene_find_node(s, &(wk_ref){.id = "root"}, &e, &st), ==, WK_OK);
    CHECK_U64(e, ==, wk_scene_root(s));
    snprintf(bad, sizeof bad, "obj_%llu", (unsigned long long)cup + ((unsigned long long)1 << 32));
    const char *bad_ids[] = {"obj_",
                             "obj",
                             "o",
                             "obj_0",
                             "obj_-1",
                             "obj_ 1",
                             "obj_+1",
                             "obj_18446744073709551615",
                             "obj_18446744073709551616",
                             "obj_99999999999999999999999",
                             bad /* the cup's slot, another generation */};
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
        CHECK_INT(wk_scene_find_node(s, &(wk_ref){.id = bad_ids[i]}, &e, &st), ==, WK_NOT_FOUND);
        CHECK(strstr(st.message, bad_ids[i]) != NULL);
    }
    wk_scene_object_id(s, cup, id);
    snprintf(bad, sizeof bad, "%sx", id);
    CHECK_INT(wk_scene_find_node(s, &(wk_ref){.id = bad}, &e, &st), ==, WK_NOT_FOUND);
    snprintf(bad, sizeof bad, "obj_0%s", id + 4);
    CHECK_INT(wk_scene_find_node(s, &(wk_ref){.id = bad}, &e, &st), ==, WK_NOT_FOUND);
    /* 2^64 + cup, 20 digits whose value taken modulo 2^64 is the cup's id. */
    snprintf(bad, sizeof bad, "obj_1844674407%010llu", 3709551616ull + (unsigned long long)cup);
    CHECK_INT(wk_scene_find_node(s, &(wk_ref){.id = bad}, &e, &st), ==, WK_NOT_FOUND);
    wk_scene_free(s);
}

static const wk_test_case cases[] = {
    {"root_object", root_object},
    {"create_and_find", create_and_find},
    {"ids_are_exact", ids_are_exact},
    {"naming_rules", naming_rules},
    {"delete_with_and_without_force", delete_with_and_without_force},
    {"rename_objects", rename_objects},
    {"clone_shares_names_until_renamed", clone_shares_names_until_renamed},
    {"reparent_keeps_world_pose", reparent_keeps_world_pose},
    {"objects_from_a_world_file", objects_from_a_world_file},
};
WK_TEST_MAIN(cases)
