/* test_scene.c — the scene's standard components: registered once, string
 * components owned and copied, world poses composed up the parent chain,
 * children found by name. */
#include "worldkit/wk_scene.h"
#include "wk_test.h"

static wk_entity add(wk_scene *s, wk_entity parent, const char *name, wk_pose pose)
{
    const wk_scene_types *t = wk_scene_types_of(s);
    uint8_t kind = WK_NODE_LINK;
    wk_entity e = wk_ecm_create_with(wk_scene_ecm(s), (wk_type[]){t->name, t->kind, t->parent_pose},
                                     (const void *[]){&name, &kind, &pose}, 3);
    if (e && parent)
        wk_ecm_set_parent(wk_scene_ecm(s), e, parent);
    return e;
}

static void types_registered(void)
{
    wk_scene *s = wk_scene_new();
    REQUIRE(s);
    const wk_scene_types *t = wk_scene_types_of(s);
    CHECK_STR(wk_ecm_type_name(wk_scene_ecm(s), t->parent_pose), "ParentPose");
    CHECK_STR(wk_ecm_type_name(wk_scene_ecm(s), t->name), "Name");
    CHECK_INT(wk_ecm_type_by_name(wk_scene_ecm(s), "JointLinks"), ==, t->joint_links);
    CHECK_STR(wk_node_kind_name(WK_NODE_COLLISION), "collision");
    CHECK_STR(wk_node_kind_name((wk_node_kind)99), "unknown");
    wk_scene_free(s);
    wk_scene_free(NULL);
}

static void world_pose_and_names(void)
{
    wk_scene *s = wk_scene_new();
    REQUIRE(s);
    char name[] = "base";
    wk_entity base = add(s, WK_NULL_ENTITY, name, (wk_pose){{1, 0, 0}, wk_quat_from_rpy(0, 0, 1.5707963267948966)});
    name[0] = 'X'; /* the component holds its own copy */
    wk_entity arm = add(s, base, "arm", (wk_pose){{2, 0, 0}, wk_quat_identity()});
    wk_entity tip = add(s, arm, "tip", (wk_pose){{0, 0, 3}, wk_quat_from_rpy(0.5, 0, 0)});
    REQUIRE(base && arm && tip);
    CHECK_STR(wk_scene_name(s, base), "base");
    wk_pose w = wk_scene_world_pose(s, tip);
    /* base turns +x into +y: arm sits at (1, 2, 0), tip 3 above it. */
    CHECK_NEAR(w.p.x, 1, 1e-12);
    CHECK_NEAR(w.p.y, 2, 1e-12);
    CHECK_NEAR(w.p.z, 3, 1e-12);
    wk_vec3 rpy = wk_quat_to_rpy(w.q);
    CHECK_NEAR(rpy.x, 0.5, 1e-12);
    CHECK_NEAR(rpy.z, 1.5707963267948966, 1e-12);
    CHECK_U64(wk_scene_child(s, base, "arm"), ==, arm);
    CHECK_U64(wk_scene_child(s, WK_NULL_ENTITY, "base"), ==, base);
    CHECK_U64(wk_scene_child(s, WK_NULL_ENTITY, "arm"), ==, WK_NULL_ENTITY); /* not a root */
    CHECK_U64(wk_scene_child(s, arm, "nothing"), ==, WK_NULL_ENTITY);
    wk_scene_free(s);
}

static const wk_test_case cases[] = {
    {"types_registered", types_registered},
    {"world_pose_and_names", world_pose_and_names},
};
WK_TEST_MAIN(cases)
