/* test_urdf.c — the URDF reader: what it keeps of links, joints, inertials
 * and shapes, the frame each pose is expressed in, package:// meshes, and
 * its failures, each naming file:line and the culprit. World poses
 * themselves are checked against urdfdom by the oracle test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worldkit/wk_formats.h"
#include "wk_test.h"

static int read_string(const char *text, bool fail_unsupported, wk_status *st, wk_world_desc **out)
{
    wk_world_desc *d = NULL;
    int rc = wk_desc_read(&(wk_read_desc){.resource_string = text, .fail_on_unsupported_element = fail_unsupported},
                          &d, st);
    if (out)
        *out = d;
    else
        wk_desc_free(d);
    return rc;
}

#define ROBOT(body) "<?xml version='1.0'?>\n<robot name='r'>\n" body "</robot>\n"

/* A joint element between two links; lines are counted from "<robot" on line 2. */
#define JOINT(name, type, parent, child) \
    "<joint name='" name "' type='" type "'><parent link='" parent "'/><child link='" child "'/></joint>\n"

/* The node whose scoped name is name, or WK_NO_NODE. */
static uint32_t find(const wk_world_desc *d, const char *name)
{
    char buf[256];
    for (uint32_t i = 0; i < wk_desc_node_count(d); i++) {
        wk_desc_scoped_name(d, i, buf, sizeof buf);
        if (!strcmp(buf, name))
            return i;
    }
    return WK_NO_NODE;
}

static void check_message(const wk_status *st, const char *needle)
{
    if (!CHECK(strstr(st->message, needle) != NULL))
        fprintf(stderr, "    message: %s\n    wanted:  %s\n", st->message, needle);
}

/* Reading text fails with code, and the message holds both needles. */
static void check_fails(const char *text, int code, const char *where, const char *culprit)
{
    wk_status st = {0};
    CHECK_INT(read_string(text, false, &st, NULL), ==, code);
    check_message(&st, where);
    check_message(&st, culprit);
}

static const char *const arm =
    ROBOT("<link name='base'>\n"
          "  <inertial><origin xyz='0 0 0.1' rpy='0 0 1'/><mass value='3'/>\n"
          "    <inertia ixx='1' ixy='0.1' ixz='0.2' iyy='2' iyz='0.3' izz='4'/></inertial>\n"
          "  <visual name='shell'><origin xyz='0 0 0.2'/><geometry><box size='1 2 3'/></geometry>\n"
          "    <material name='red'><color rgba='1 0 0 1'/></material></visual>\n"
          "  <visual><geometry><sphere radius='0.5'/></geometry></visual>\n"
          "  <collision><geometry><cylinder radius='0.1' length='0.4'/></geometry></collision>\n"
          "</link>\n"
          "<joint name='lift' type='prismatic'><origin xyz='0 0 1'/>\n"
          "  <parent link='base'/><child link='top'/><axis xyz='0 0 2'/>\n"
          "  <limit lower='-0.5' upper='0.5' effort='10' velocity='2'/><dynamics damping='0.3'/></joint>\n"
          "<link name='top'/>\n"
          "<joint name='spin' type='continuous'><parent link='top'/><child link='spinner'/>\n"
          "  <limit effort='1' velocity='7' lower='-1' upper='1'/><mimic joint='lift'/></joint>\n"
          "<link name='spinner'/>\n");

static void links_joints_and_frames(void)
{
    wk_status st = {0};
    wk_world_desc *d = NULL;
    REQUIRE_INT(read_string(arm, true, &st, &d), ==, WK_OK);
    CHECK_INT(wk_desc_format(d), ==, WK_FORMAT_URDF);
    CHECK_STR(wk_desc_node(d, 0)->name, "default");
    uint32_t model = find(d, "r"), base = find(d, "r::base"), lift = find(d, "r::lift"), top = find(d, "r::top");
    REQUIRE(model != WK_NO_NODE && base != WK_NO_NODE && lift != WK_NO_NODE && top != WK_NO_NODE);
    CHECK_INT(wk_desc_node(d, model)->kind, ==, WK_NODE_MODEL);
    CHECK_STR(wk_desc_node(d, model)->model.canonical_link, "base");
    /* The frame chain: root link at the model, joint at its parent link,
     * child link at its joint. */
    CHECK_U64(wk_desc_node(d, base)->relative_node, ==, model);
    CHECK_U64(wk_desc_node(d, lift)->relative_node, ==, base);
    CHECK_U64(wk_desc_node(d, top)->relative_node, ==, lift);
    CHECK_NEAR(wk_desc_node(d, top)->world.p.z, 1, 1e-12);

    const wk_node *j = wk_desc_node(d, lift);
    CHECK_INT(j->joint.type, ==, WK_JOINT_PRISMATIC);
    CHECK_STR(j->joint.parent, "base");
    CHECK_STR(j->joint.child, "top");
    CHECK(j->joint.axis[0].present);
    CHECK_NEAR(j->joint.axis[0].xyz.z, 1, 0); /* normalized */
    CHECK_NEAR(j->joint.axis[0].lower, -0.5, 0);
    CHECK_NEAR(j->joint.axis[0].upper, 0.5, 0);
    CHECK_NEAR(j->joint.axis[0].effort, 10, 0);
    CHECK_NEAR(j->joint.axis[0].velocity, 2, 0);
    CHECK_NEAR(j->joint.axis[0].damping, 0.3, 0);
    CHECK_NEAR(j->joint.axis[0].friction, 0, 0);

    /* A continuous joint stays unbounded whatever its <limit> says; the
     * axis defaults to x; a mimic defaults to multiplier 1, offset 0. */
    const wk_node *spin = wk_desc_node(d, find(d, "r::spin"));
    CHECK_INT(spin->joint.type, ==, WK_JOINT_CONTINUOUS);
    CHECK_NEAR(spin->joint.axis[0].xyz.x, 1, 0);
    CHECK(isinf(spin->joint.axis[0].lower) && spin->joint.axis[0].lower < 0);
    CHECK(isinf(spin->joint.axis[0].upper) && spin->joint.axis[0].upper > 0);
    CHECK_NEAR(spin->joint.axis[0].velocity, 7, 0);
    CHECK_STR(spin->joint.mimic_joint, "lift");
    CHECK_NEAR(spin->joint.mimic_multiplier, 1, 0);
    CHECK_NEAR(spin->joint.mimic_offset, 0, 0);
    wk_desc_free(d);
}

static void inertials_and_shapes(void)
{
    wk_status st = {0};
    wk_world_desc *d = NULL;
    REQUIRE_INT(read_string(arm, true, &st, &d), ==, WK_OK);
    uint32_t base = find(d, "r::base");
    REQUIRE(base != WK_NO_NODE);
    const wk_inertial *in = &wk_desc_node(d, base)->link.inertial;
    CHECK(in->present);
    CHECK_NEAR(in->mass, 3, 0);
    CHECK_NEAR(in->pose.p.z, 0.1, 0);
    CHECK_NEAR(in->pose.q.z, sin(0.5), 1e-15);
    CHECK_NEAR(in->ixy, 0.1, 0);
    CHECK_NEAR(in->iyz, 0.3, 0);
    CHECK_NEAR(in->izz, 4, 0);
    CHECK(!wk_desc_node(d, find(d, "r::top"))->link.inertial.present);

    /* Unnamed shapes are numbered among their link's visuals (collisions). */
    uint32_t shell = find(d, "r::base::shell"), ball = find(d, "r::base::base_visual_1");
    uint32_t can = find(d, "r::base::base_collision_0");
    REQUIRE(shell != WK_NO_NODE && ball != WK_NO_NODE && can != WK_NO_NODE);
    CHECK_U64(wk_desc_node(d, shell)->relative_node, ==, base);
    CHECK_NEAR(wk_desc_node(d, shell)->world.p.z, 0.2, 0);
    const wk_geometry *g = &wk_desc_node(d, shell)->shape.geometry;
    CHECK_INT(g->type, ==, WK_GEOMETRY_BOX);
    CHECK_NEAR(g->size.y, 2, 0);
    CHECK_INT(wk_desc_node(d, ball)->shape.geometry.type, ==, WK_GEOMETRY_SPHERE);
    CHECK_NEAR(wk_desc_node(d, ball)->shape.geometry.radius, 0.5, 0);
    g = &wk_desc_node(d, can)->shape.geometry;
    CHECK_INT(g->type, ==, WK_GEOMETRY_CYLINDER);
    CHECK_NEAR(g->radius, 0.1, 0);
    CHECK_NEAR(g->length, 0.4, 0);
    wk_desc_free(d);
}

/* package:// meshes are looked up in the resource path. */
static void package_mesh(void)
{
    char dir[] = "/tmp/wk_urdf_XXXXXX", folder[96], mesh[128];
    REQUIRE(mkdtemp(dir));
    snprintf(folder, sizeof folder, "%s/pkg", dir);
    snprintf(mesh, sizeof mesh, "%s/pkg/m.stl", dir);
    REQUIRE(mkdir(folder, 0700) == 0);
    FILE *f = fopen(mesh, "w");
    REQUIRE(f);
    fclose(f);
    const char *text = ROBOT("<link name='l'><visual><geometry>\n"
                             "<mesh filename='package://pkg/m.stl' scale='2 2 2'/></geometry></visual></link>\n");
    const char *text_missing = ROBOT("<link name='l'><visual><geometry>\n"
                                     "<mesh filename='package://pkg/none.stl'/></geometry></visual></link>\n");
    wk_status st = {0};
    wk_world_desc *d = NULL;
    CHECK_INT(read_string(text, false, &st, NULL), ==, WK_MISSING_ASSETS);
    setenv("WORLDKIT_RESOURCE_PATH", dir, 1);
    if (CHECK_INT(read_string(text, false, &st, &d), ==, WK_OK)) {
        const wk_geometry *g = &wk_desc_node(d, find(d, "r::l::l_visual_0"))->shape.geometry;
        CHECK_INT(g->type, ==, WK_GEOMETRY_MESH);
        CHECK_STR(g->uri, "package://pkg/m.stl");
        CHECK(g->path && strstr(g->path, "/pkg/m.stl"));
        CHECK_NEAR(g->scale.x, 2, 0);
    }
    wk_desc_free(d);
    CHECK_INT(read_string(text_missing, false, &st, NULL), ==, WK_MISSING_ASSETS);
    check_message(&st, "<string>:4");
    check_message(&st, "package://pkg/none.stl");
    unsetenv("WORLDKIT_RESOURCE_PATH");
    unlink(mesh);
    rmdir(folder);
    rmdir(dir);
}

static void tree_errors(void)
{
    check_fails(ROBOT("<link name='a'/>\n<link name='b'/>\n"), WK_PARSE, "<string>:4: link 'b'", "link 'a'");
    check_fails(ROBOT("<link name='a'/>\n" JOINT("j", "fixed", "nowhere", "a")), WK_PARSE, "<string>:4: joint 'j'",
                "'nowhere'");
    check_fails(ROBOT("<link name='a'/>\n" JOINT("j", "fixed", "a", "nowhere")), WK_PARSE, "<string>:4: joint 'j'",
                "'nowhere'");
    check_fails(ROBOT("<link name='a'/><link name='b'/><link name='c'/>\n" JOINT("j1", "fixed", "a", "c")
                          JOINT("j2", "fixed", "b", "c")),
                WK_PARSE, "<string>:5: joint 'j2'", "joint 'j1'");
    /* A cycle beside a proper root, and a robot that is nothing but a cycle. */
    check_fails(ROBOT("<link name='root'/><link name='a'/><link name='b'/>\n" JOINT("ab", "fixed", "a", "b")
                          JOINT("ba", "fixed", "b", "a")),
                WK_PARSE, "<string>:", "cycle");
    check_fails(ROBOT("<link name='a'/>\n" JOINT("aa", "fixed", "a", "a")), WK_PARSE, "<string>:4: joint 'aa'",
                "cycle");
    check_fails(ROBOT("<link name='a'/>\n<link name='a'/>\n"), WK_PARSE, "<string>:4: link 'a'", "line 3");
    check_fails(ROBOT("<link name='a'/><link name='b'/>\n" JOINT("j", "fixed", "a", "b") JOINT("j", "fixed", "b", "a")),
                WK_PARSE, "<string>:5: joint 'j'", "line 4");
    check_fails(ROBOT("<material name='m'/>\n"), WK_PARSE, "<string>:2: <robot name=\"r\">", "no <link>");
    check_fails(ROBOT("<link name='a'/><link name='b'/>\n"
                      "<joint name='j' type='fixed'><parent link='a'/><child link='b'/><mimic joint='x'/></joint>\n"),
                WK_PARSE, "<string>:4: joint 'j'", "'x'");
}

/* Chains of mimic joints that come back on themselves loaded, and every
 * move of their joints then failed: refused, naming the joint. */
static void mimic_cycles(void)
{
#define MIMIC(name, parent, child, leader)                                                             \
    "<joint name='" name "' type='revolute'><parent link='" parent "'/><child link='" child "'/>"      \
    "<limit effort='1' velocity='1' lower='-1' upper='1'/><mimic joint='" leader "'/></joint>\n"
    check_fails(ROBOT("<link name='a'/><link name='b'/><link name='c'/>\n" MIMIC("j1", "a", "b", "j2")
                          MIMIC("j2", "b", "c", "j1")),
                WK_PARSE, "<string>:4: joint r::j1", "it mimics joint 'j2', whose chain of mimics leads back to it");
    check_fails(ROBOT("<link name='a'/><link name='b'/>\n" MIMIC("j", "a", "b", "j")), WK_PARSE,
                "<string>:4: joint r::j", "it mimics joint 'j'");
#undef MIMIC
}

/* A mass, an inertia's diagonal and a joint's friction below zero, which
 * loaded: refused naming line, element and attribute. */
static void negative_quantities(void)
{
    check_fails(ROBOT("<link name='a'><inertial>\n<mass value='-1'/><inertia ixx='1' ixy='0' ixz='0' iyy='1' "
                      "iyz='0' izz='1'/></inertial></link>\n"),
                WK_PARSE, "<string>:4: <mass>", "value=\"-1\" is negative");
    check_fails(ROBOT("<link name='a'><inertial><mass value='1'/>\n<inertia ixx='1' ixy='-0.2' ixz='0' iyy='1' "
                      "iyz='0' izz='-1'/></inertial></link>\n"),
                WK_PARSE, "<string>:4: <inertia>", "izz=\"-1\" is negative");
    check_fails(ROBOT("<link name='a'/><link name='b'/>\n<joint name='j' type='continuous'><parent link='a'/>"
                      "<child link='b'/><dynamics friction='-0.3'/></joint>\n"),
                WK_PARSE, "<string>:4: <dynamics>", "friction=\"-0.3\" is negative");
}

static void element_errors(void)
{
    check_fails("<robot>\n<link name='a'/></robot>", WK_PARSE, "<string>:1: <robot>", "name");
    check_fails(ROBOT("<link>\n</link>\n"), WK_PARSE, "<string>:3: <link>", "name");
    check_fails(ROBOT("<link name='a'><visual>\n<origin xyz='1 2 x'/><geometry><sphere radius='1'/></geometry>"
                      "</visual></link>\n"),
                WK_PARSE, "<string>:4: <origin>", "xyz=\"1 2 x\"");
    check_fails(ROBOT("<link name='a'><visual>\n<origin rpy='1 2'/><geometry><sphere radius='1'/></geometry>"
                      "</visual></link>\n"),
                WK_PARSE, "<string>:4: <origin>", "expected 3");
    check_fails(ROBOT("<link name='a'><collision>\n<geometry><box size='1 nan 1'/></geometry></collision></link>\n"),
                WK_PARSE, "<string>:4: <box>", "size");
    check_fails(ROBOT("<link name='a'><inertial>\n<mass value='heavy'/></inertial></link>\n"), WK_PARSE,
                "<string>:4: <mass>", "value");
    check_fails(ROBOT("<link name='a'><inertial>\n<mass value='1'/></inertial></link>\n"), WK_PARSE,
                "<string>:3: <inertial>", "<inertia>");
    check_fails(ROBOT("<link name='a'>\n<visual name='v'/></link>\n"), WK_PARSE, "<string>:4: <visual name=\"v\">",
                "<geometry>");
    check_fails(ROBOT("<link name='a'/><link name='b'/>\n<joint name='j' type='hinge'/>\n"), WK_PARSE,
                "<string>:4: <joint name=\"j\">", "type");
    check_fails(ROBOT("<link name='a'/><link name='b'/>\n" JOINT("j", "revolute", "a", "b")), WK_PARSE,
                "<string>:4: <joint name=\"j\">", "<limit>");
    check_fails(ROBOT("<link name='a'/><link name='b'/>\n<joint name='j' type='fixed'><parent link='a'/></joint>\n"),
                WK_PARSE, "<string>:4: <joint name=\"j\">", "<child link>");
    check_fails(ROBOT("<link name='a'/><link name='b'/>\n<joint name='j' type='revolute'>"
                      "<parent link='a'/><child link='b'/><axis xyz='0 0 0'/>"
                      "<limit effort='1' velocity='1'/></joint>\n"),
                WK_PARSE, "<string>:4: <axis>", "zero");
    check_fails(ROBOT("<link name='a'/><link name='b'/>\n<joint name='j' type='revolute'>"
                      "<parent link='a'/><child link='b'/><limit effort='1'/></joint>\n"),
                WK_PARSE, "<string>:4: <limit>", "velocity");
    check_fails(ROBOT("<material name='m'>\n<color rgba='1 0 0'/></material><link name='a'/>\n"), WK_PARSE,
                "<string>:4: <color>", "rgba");
    /* A translation past WK_POSE_TRANSLATION_MAX, named at its joint. */
    check_fails(ROBOT("<link name='a'/><link name='b'/>\n<joint name='j' type='fixed'><origin xyz='0 2e12 0'/>"
                      "<parent link='a'/><child link='b'/></joint>\n"),
                WK_PARSE, "<string>:4: joint r::j: pose: ", "translation y = 2e+12 is beyond the limit of +-1e+12 m");
}

/* A fixed joint ignores its axis, so the zero axis exporters write is fine. */
static void zero_axis_on_fixed_joint(void)
{
    wk_status st = {0};
    CHECK_INT(read_string(ROBOT("<link name='a'/><link name='b'/>\n<joint name='j' type='fixed'><parent link='a'/>"
                                "<child link='b'/><axis xyz='0 0 0'/></joint>\n"),
                          true, &st, NULL),
              ==, WK_OK);
}

static void unsupported_elements(void)
{
    const char *text = ROBOT("<link name='a'><visual><geometry>\n<capsule radius='1' length='2'/></geometry>"
                             "</visual></link>\n<gazebo reference='a'/>\n");
    wk_status st = {0};
    wk_world_desc *d = NULL;
    CHECK_INT(read_string(text, true, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:4: unsupported element /robot/link/visual/geometry/capsule");
    REQUIRE_INT(read_string(text, false, &st, &d), ==, WK_OK);
    CHECK_INT(wk_desc_warning_count(d), ==, 2);
    CHECK(wk_desc_warning(d, 1) && strstr(wk_desc_warning(d, 1), "<string>:5: ignored unsupported element /robot/gazebo"));
    CHECK_INT(wk_desc_node(d, find(d, "r::a::a_visual_0"))->shape.geometry.type, ==, WK_GEOMETRY_NONE);
    wk_desc_free(d);
}

/* A transmission, a joint's calibration and safety controller keep nothing
 * in worldkit and are reported; a material, appearance alone, is not. */
static void known_but_not_kept(void)
{
    const char *text = ROBOT("<material name='red'><color rgba='1 0 0 1'/><texture filename='t.png'/></material>\n"
                             "<link name='a'/><link name='b'/><joint name='j' type='revolute'><parent link='a'/>"
                             "<child link='b'/>\n<calibration rising='0'/><safety_controller k_velocity='1'/>"
                             "<limit effort='1' velocity='1'/></joint>\n<transmission name='t'/>\n");
    static const char *const wanted[] = {
        "<string>:5: ignored unsupported element /robot/joint/calibration",
        "<string>:5: ignored unsupported element /robot/joint/safety_controller",
        "<string>:6: ignored unsupported element /robot/transmission",
    };
    wk_status st = {0};
    wk_world_desc *d = NULL;
    REQUIRE_INT(read_string(text, false, &st, &d), ==, WK_OK);
    CHECK_INT(wk_desc_warning_count(d), ==, 3);
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (!CHECK(wk_desc_warning(d, i) && strstr(wk_desc_warning(d, i), wanted[i])))
            fprintf(stderr, "    warning %zu: %s\n    wanted: %s\n", i, wk_desc_warning(d, i), wanted[i]);
    wk_desc_free(d);
    CHECK_INT(read_string(text, true, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:5: unsupported element /robot/joint/calibration");
}

static const wk_test_case cases[] = {
    {"links_joints_and_frames", links_joints_and_frames},
    {"inertials_and_shapes", inertials_and_shapes},
    {"package_mesh", package_mesh},
    {"tree_errors", tree_errors},
    {"mimic_cycles", mimic_cycles},
    {"negative_quantities", negative_quantities},
    {"element_errors", element_errors},
    {"zero_axis_on_fixed_joint", zero_axis_on_fixed_joint},
    {"unsupported_elements", unsupported_elements},
    {"known_but_not_kept", known_but_not_kept},
};

WK_TEST_MAIN(cases)
