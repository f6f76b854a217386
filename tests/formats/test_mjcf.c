/* test_mjcf.c — the MJCF reader: the node tree it builds, the values it
 * keeps (joint limits in radians, full box sizes, light directions,
 * inertials, meshes), its failures with file:line and element, includes
 * (nesting, cycles, repeats, missing files, paths outside the folder) and
 * warnings for what it ignores. World poses of every test world are checked
 * against MuJoCo itself by the oracle test; one is checked by hand here. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/find_node.h"
#include "worldkit/wk_formats.h"
#include "wk_test.h"

#define PI 3.14159265358979323846

/* Line 1 is <mujoco>, line 2 <worldbody>: the body starts on line 3. */
#define MJCF(body) "<mujoco model='m'>\n<worldbody>\n" body "</worldbody>\n</mujoco>\n"

static int read_with(const char *uri, const char *text, bool fail_unsupported, bool ignore_assets, wk_status *st,
                     wk_world_desc **out)
{
    wk_world_desc *d = NULL;
    int rc = wk_desc_read(&(wk_read_desc){.uri = uri,
                                          .resource_string = text,
                                          .fail_on_unsupported_element = fail_unsupported,
                                          .ignore_missing_or_unsupported_assets = ignore_assets},
                          &d, st);
    if (out)
        *out = d;
    else
        wk_desc_free(d);
    return rc;
}

static int read_string(const char *text, wk_status *st, wk_world_desc **out)
{
    return read_with(NULL, text, false, false, st, out);
}

static void check_message(const wk_status *st, const char *needle)
{
    if (!CHECK(strstr(st->message, needle) != NULL))
        fprintf(stderr, "    message: %s\n    wanted:  %s\n", st->message, needle);
}

/* Reads text expecting code and a message holding needle. */
static void check_fails(const char *text, int code, const char *needle)
{
    wk_status st = {0};
    CHECK_INT(read_string(text, &st, NULL), ==, code);
    check_message(&st, needle);
}

static void check_pose(const wk_pose *p, double x, double y, double z, double qw, double qx, double qy, double qz)
{
    CHECK_NEAR(p->p.x, x, 1e-12);
    CHECK_NEAR(p->p.y, y, 1e-12);
    CHECK_NEAR(p->p.z, z, 1e-12);
    if (!CHECK(wk_quat_near(p->q, (wk_quat){qw, qx, qy, qz}, 1e-12)))
        fprintf(stderr, "    quat: %.17g %.17g %.17g %.17g\n", p->q.w, p->q.x, p->q.y, p->q.z);
}

/* ---- the node tree ------------------------------------------------------ */

/* a: at (1 2 3), turned 90 degrees about x. b: one up a's y axis, which is
 * the world's z, turned 90 degrees about its own z: qx(90) * qz(90). */
static void body_pose_by_hand(void)
{
    wk_status st = {0};
    wk_world_desc *d;
    REQUIRE_INT(read_string(MJCF("<body name='a' pos='1 2 3' euler='90 0 0'>\n"
                                 "<body name='b' pos='0 1 0' axisangle='0 0 1 90'/></body>\n"),
                            &st, &d),
                ==, WK_OK);
    const wk_node *world = wk_desc_node(d, 0), *model = wk_desc_node(d, 1), *a = find(d, "m::a"), *b = find(d, "m::b");
    REQUIRE(world && model && a && b);
    CHECK_INT(wk_desc_format(d), ==, WK_FORMAT_MJCF);
    CHECK_INT(world->kind, ==, WK_NODE_WORLD);
    CHECK_STR(world->name, "m");
    CHECK_INT(model->kind, ==, WK_NODE_MODEL);
    CHECK_INT(a->kind, ==, WK_NODE_LINK);
    CHECK_INT(b->parent, ==, 1); /* links are all children of the model */
    CHECK_INT(a->relative_node, ==, 1);
    CHECK(wk_desc_node(d, b->relative_node) == a);
    CHECK_INT(b->line, ==, 4);
    double h = sqrt(0.5);
    check_pose(&a->world, 1, 2, 3, h, h, 0, 0);
    check_pose(&b->pose, 0, 1, 0, h, 0, 0, h);
    check_pose(&b->world, 1, 2, 4, 0.5, 0.5, -0.5, 0.5);
    wk_desc_free(d);
}

/* MuJoCo indexes bodies depth first and the other elements body by body,
 * the world body's first, wherever they stand in the file. */
static void generated_names(void)
{
    wk_status st = {0};
    wk_world_desc *d;
    REQUIRE_INT(read_string("<mujoco>\n<worldbody>\n<geom size='1'/>\n"
                            "<body><geom size='1'/><joint/><body name='x'><geom size='1'/></body></body>\n"
                            "<site/><camera/><light/>\n</worldbody>\n</mujoco>\n",
                            &st, &d),
                ==, WK_OK);
    CHECK_STR(wk_desc_node(d, 0)->name, "default");
    CHECK(find(d, "default::geom0") && find(d, "default::body1") && find(d, "default::body1::geom1"));
    CHECK(find(d, "default::x") && find(d, "default::x::geom2"));
    CHECK(find(d, "default::site0") && find(d, "default::camera0") && find(d, "default::light0"));
    const wk_node *j = find(d, "default::joint0");
    REQUIRE(j);
    CHECK_INT(j->kind, ==, WK_NODE_JOINT);
    CHECK_STR(j->joint.parent, "world");
    CHECK_STR(j->joint.child, "body1");
    wk_desc_free(d);
}

/* MuJoCo 3's <frame>: f sits at (1 0 0) turned 90 degrees about z; body a
 * one along f's x, so at (1 1 0) turned like f. Inside a, an unnamed frame
 * one up a's z, turned 90 degrees about x: geom g one along that frame's y
 * is two up a's z, at (1 1 2), turned qz(90) * qx(90); joint j there too,
 * its y axis turned to a's z, its frame keeping a's axes. The class c of
 * f2's childclass lifts the geom h three along f2's z. Unnamed geoms are
 * numbered in the file's order, inside frames or not, after the world
 * body's h. */
static void frames(void)
{
    wk_status st = {0};
    wk_world_desc *d;
    REQUIRE_INT(read_string("<mujoco model='m'>\n<default><default class='c'><geom pos='0 0 3'/></default></default>\n"
                            "<worldbody>\n<frame name='f' pos='1 0 0' euler='0 0 90'>\n"
                            "<body name='a' pos='1 0 0'><geom size='1'/>\n"
                            "<frame pos='0 0 1' euler='90 0 0'><geom name='g' size='1' pos='0 1 0'/><geom size='1'/>\n"
                            "<joint name='j' pos='0 1 0' axis='0 1 0'/></frame><geom size='1'/></body></frame>\n"
                            "<frame name='f2' pos='0 0 -1' childclass='c'><geom name='h' size='1'/></frame>\n"
                            "</worldbody>\n</mujoco>\n",
                            &st, &d),
                ==, WK_OK);
    double h = sqrt(0.5);
    const wk_node *f = find(d, "m::f"), *a = find(d, "m::a"), *g = find(d, "m::a::g"), *j = find(d, "m::j");
    const wk_node *f2 = find(d, "m::f2"), *gh = find(d, "m::h");
    REQUIRE(f && a && g && j && f2 && gh);
    CHECK_INT(f->kind, ==, WK_NODE_FRAME);
    CHECK_INT(f->line, ==, 4);
    CHECK(f->frame.attached_to == NULL); /* a frame of the world body */
    check_pose(&f->world, 1, 0, 0, h, 0, 0, h);
    check_pose(&a->pose, 1, 1, 0, h, 0, 0, h); /* in the world body's frame */
    check_pose(&a->world, 1, 1, 0, h, 0, 0, h);
    check_pose(&g->pose, 0, 0, 2, h, h, 0, 0);
    check_pose(&g->world, 1, 1, 2, 0.5, 0.5, 0.5, 0.5);
    check_pose(&j->pose, 0, 0, 2, 1, 0, 0, 0);
    check_pose(&j->world, 1, 1, 2, h, 0, 0, h);
    CHECK_NEAR(j->joint.axis[0].xyz.x, 0, 1e-15);
    CHECK_NEAR(j->joint.axis[0].xyz.y, 0, 1e-15);
    CHECK_NEAR(j->joint.axis[0].xyz.z, 1, 1e-15);
    check_pose(&gh->world, 0, 0, 2, 1, 0, 0, 0);
    CHECK(find(d, "m::a::geom1") && find(d, "m::a::geom3") && find(d, "m::a::geom4"));
    /* f, a's link, f2: the unnamed frame left no node. */
    uint32_t frame_nodes = 0;
    for (uint32_t i = 0; i < wk_desc_node_count(d); i++)
        frame_nodes += wk_desc_node(d, i)->kind == WK_NODE_FRAME;
    CHECK_INT(frame_nodes, ==, 2);
    wk_desc_free(d);

    REQUIRE_INT(read_string(MJCF("<body name='b'><frame name='in_b' pos='0 0 1'/></body>\n"), &st, &d), ==, WK_OK);
    const wk_node *in_b = find(d, "m::b::in_b");
    REQUIRE(in_b);
    CHECK_STR(in_b->frame.attached_to, "b");
    check_pose(&in_b->world, 0, 0, 1, 1, 0, 0, 0);
    CHECK_INT(wk_desc_warning_count(d), ==, 0);
    wk_desc_free(d);

    check_fails(MJCF("<frame childclass='nope'/>\n"), WK_PARSE, "<string>:3: <frame>: unknown default class 'nope'");
    check_fails(MJCF("<frame>\n<joint/></frame>\n"), WK_PARSE, "<string>:4: <joint>: the world body cannot hold one");
    check_fails(MJCF("<frame quat='0 0 0 0'/>\n"), WK_PARSE, "<string>:3: <frame>: quat is zero");
}

/* ---- values ------------------------------------------------------------- */

static void joints(void)
{
    wk_status st = {0};
    wk_world_desc *d;
    REQUIRE_INT(read_string(MJCF("<body name='a'><freejoint name='f'/>\n"
                                 "<body name='b' pos='1 0 0'><joint name='h' pos='0 0 1' axis='0 3 4' range='-90 45'"
                                 " damping='2' frictionloss='0.5'/>\n"
                                 "<joint name='s' type='slide' range='-0.5 0.5'/><joint name='free_h' limited='false'"
                                 " range='-1 1'/><joint name='ball' type='ball'/></body></body>\n"),
                            &st, &d),
                ==, WK_OK);
    const wk_node *f = find(d, "m::f"), *h = find(d, "m::h"), *s = find(d, "m::s"), *u = find(d, "m::free_h");
    const wk_node *ball = find(d, "m::ball");
    REQUIRE(f && h && s && u && ball);
    CHECK_INT(f->joint.type, ==, WK_JOINT_FLOATING);
    CHECK(!f->joint.axis[0].present);
    CHECK_STR(f->joint.child, "a");
    CHECK_INT(h->joint.type, ==, WK_JOINT_REVOLUTE);
    CHECK_STR(h->joint.parent, "a");
    CHECK_STR(h->joint.child, "b");
    check_pose(&h->world, 1, 0, 1, 1, 0, 0, 0);
    CHECK_NEAR(h->joint.axis[0].xyz.y, 0.6, 1e-15);
    CHECK_NEAR(h->joint.axis[0].xyz.z, 0.8, 1e-15);
    CHECK_NEAR(h->joint.axis[0].lower, -PI / 2, 1e-15);
    CHECK_NEAR(h->joint.axis[0].upper, PI / 4, 1e-15);
    CHECK_NEAR(h->joint.axis[0].damping, 2, 0);
    CHECK_NEAR(h->joint.axis[0].friction, 0.5, 0);
    CHECK_INT(s->joint.type, ==, WK_JOINT_PRISMATIC);
    CHECK_NEAR(s->joint.axis[0].upper, 0.5, 0); /* lengths are not angles */
    CHECK(isinf(u->joint.axis[0].upper));
    CHECK_INT(ball->joint.type, ==, WK_JOINT_BALL);
    wk_desc_free(d);

    REQUIRE_INT(read_string("<mujoco><compiler angle='radian'/><default><joint range='-1 2'/></default>\n"
                            "<worldbody><body><joint name='j'/></body></worldbody></mujoco>",
                            &st, &d),
                ==, WK_OK);
    const wk_node *j = find(d, "default::j");
    REQUIRE(j);
    CHECK_NEAR(j->joint.axis[0].lower, -1, 0);
    CHECK_NEAR(j->joint.axis[0].upper, 2, 0);
    wk_desc_free(d);
    /* MuJoCo 2.2.2 refuses a range it cannot tell is a limit. */
    check_fails("<mujoco><compiler autolimits='false'/><worldbody><body>\n<joint range='0 1'/>\n"
                "</body></worldbody></mujoco>",
                WK_PARSE, "<string>:2: <joint>: a range without limited");
}

static void geometry_sizes(void)
{
    wk_status st = {0};
    wk_world_desc *d;
    REQUIRE_INT(read_string("<mujoco model='m'><default><default class='c'><geom type='box' size='0.1 0.2 0.3'/>"
                            "</default></default>\n<worldbody>\n"
                            "<geom name='box' type='box' size='1 2 3'/>\n"
                            "<geom name='short' class='c' size='0.5'/>\n"
                            "<geom name='capsule' type='capsule' size='0.1 0.5'/>\n"
                            "<geom name='along' type='cylinder' size='0.2' fromto='0 0 0 3 4 0'/>\n"
                            "<geom name='box_along' type='box' size='0.2 0.7 0.7' fromto='0 0 0 0 0 2'/>\n"
                            "<geom name='ball' size='0.3'/>\n"
                            "<geom name='plane' type='plane' size='5 6 0.1'/>\n"
                            "<geom name='egg' type='ellipsoid' size='0.1 0.2 0.3'/>\n"
                            "</worldbody></mujoco>",
                            &st, &d),
                ==, WK_OK);
    const wk_node *box = find(d, "m::box"), *shrt = find(d, "m::short"), *cap = find(d, "m::capsule");
    const wk_node *along = find(d, "m::along"), *box_along = find(d, "m::box_along"), *ball = find(d, "m::ball");
    const wk_node *plane = find(d, "m::plane"), *egg = find(d, "m::egg");
    REQUIRE(box && shrt && cap && along && box_along && ball && plane && egg);
    CHECK_INT(box->kind, ==, WK_NODE_COLLISION);
    CHECK_INT(box->shape.geometry.type, ==, WK_GEOMETRY_BOX);
    CHECK_NEAR(box->shape.geometry.size.z, 6, 0); /* full sizes, not MuJoCo's half sizes */
    /* A short size overwrites only its first numbers. */
    CHECK_NEAR(shrt->shape.geometry.size.x, 1, 0);
    CHECK_NEAR(shrt->shape.geometry.size.y, 0.4, 0);
    CHECK_NEAR(shrt->shape.geometry.size.z, 0.6, 0);
    CHECK_INT(cap->shape.geometry.type, ==, WK_GEOMETRY_CAPSULE);
    CHECK_NEAR(cap->shape.geometry.radius, 0.1, 0);
    CHECK_NEAR(cap->shape.geometry.length, 1, 0);
    CHECK_INT(along->shape.geometry.type, ==, WK_GEOMETRY_CYLINDER);
    CHECK_NEAR(along->shape.geometry.length, 5, 1e-15);
    CHECK_NEAR(along->world.p.x, 1.5, 1e-15);
    CHECK_NEAR(along->world.p.y, 2, 1e-15);
    /* fromto on a box: x and y half sizes both size[0], z the half length. */
    CHECK_NEAR(box_along->shape.geometry.size.x, 0.4, 1e-15);
    CHECK_NEAR(box_along->shape.geometry.size.y, 0.4, 1e-15);
    CHECK_NEAR(box_along->shape.geometry.size.z, 2, 1e-15);
    CHECK_INT(ball->shape.geometry.type, ==, WK_GEOMETRY_SPHERE);
    CHECK_NEAR(ball->shape.geometry.radius, 0.3, 0);
    CHECK_INT(plane->shape.geometry.type, ==, WK_GEOMETRY_PLANE);
    CHECK_NEAR(plane->shape.geometry.size.y, 12, 0);
    CHECK_NEAR(plane->shape.geometry.normal.z, 1, 0);
    CHECK_INT(egg->shape.geometry.type, ==, WK_GEOMETRY_ELLIPSOID);
    CHECK_NEAR(egg->shape.geometry.size.z, 0.3, 0);
    wk_desc_free(d);
}

/* A text a read must refuse with WK_PARSE, and words its message holds. */
typedef struct refusal {
    const char *text, *needle;
} refusal;

static void check_refusals(const refusal *refused, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check_fails(refused[i].text, WK_PARSE, refused[i].needle);
}

/* Negative masses and moments, refused where MuJoCo 2.2.2's compiler
 * refuses them (oracle/mujoco_refused runs MuJoCo on such files, and
 * oracle/mujoco reads negative_inertia.xml, where it takes them), each
 * naming file, line and element. */
static void negative_inertia_as_mujoco(void)
{
    static const refusal refused[] = {
        {MJCF("<body name='b'>\n<freejoint/><inertial pos='0 0 0' mass='-1' diaginertia='1 1 1'/></body>\n"),
         "<string>:4: <inertial>: body 'b' moves on a joint: its mass cannot be negative"},
        {MJCF("<body name='b'><frame>\n<inertial pos='0 0 0' mass='1' diaginertia='1 1 -1'/></frame>\n"
              "<joint type='slide'/></body>\n"),
         "<string>:4: <inertial>: body 'b' moves on a joint: its inertia cannot be negative"},
        {MJCF("<body name='b'>\n<inertial pos='0 0 0' mass='1' fullinertia='1 1 1 0 0 -1.5'/></body>\n"),
         "<string>:4: <inertial>: fullinertia must have positive eigenvalues"},
        {MJCF("<body name='b'>\n<inertial pos='0 0 0' mass='1' fullinertia='0 0 0 0 0 0'/></body>\n"),
         "fullinertia must have positive eigenvalues"},
        {MJCF("<body name='b'>\n<geom size='1' mass='-0.5'/></body>\n"),
         "<string>:4: <geom>: a geom of body 'b' cannot have a negative mass"},
        {"<mujoco><default><geom density='-1'/></default><worldbody>\n<body name='b'>\n<geom size='1'/>"
         "</body></worldbody></mujoco>",
         "<string>:3: <geom>: a geom of body 'b' cannot have a negative density"},
    };
    check_refusals(refused, sizeof refused / sizeof refused[0]);
    /* Welded bodies (to the world, or to a moving body) and the world
     * body's geoms may have them, as in MuJoCo. */
    wk_status st = {0};
    wk_world_desc *d = NULL;
    CHECK_INT(read_string(MJCF("<geom size='1' mass='-1'/>\n"
                               "<body name='w'><inertial pos='0 0 0' mass='-1' diaginertia='-1 1 1'/></body>\n"
                               "<body name='m'><freejoint/><geom size='1'/>\n"
                               "<body name='r'><inertial pos='0 0 0' mass='-2' diaginertia='1 1 1'/></body></body>\n"),
                          &st, &d),
              ==, WK_OK);
    wk_desc_free(d);
}

/* MuJoCo refuses a geom or site without the sizes its type needs,
 * counting what its default classes and fromto give (its own default size
 * being 0 for a geom, 0.005 for a site). */
static void geometry_sizes_refused(void)
{
    static const refusal refused[] = {
        {MJCF("<geom type='box' size='1'/>\n"),
         "<string>:3: <geom>: attribute size: type box needs 3 positive half-sizes (or 1 to 2 and fromto); size[1] is 0"},
        {MJCF("<geom type='box' size='1 1 -1'/>\n"), "size[2] is -1"},
        {MJCF("<geom type='ellipsoid' size='1 1'/>\n"), "type ellipsoid needs 3 positive radii"},
        {MJCF("<geom type='capsule' size='0.1'/>\n"), "type capsule needs a positive radius and"},
        {MJCF("<geom type='cylinder' size='0.1 0'/>\n"), "size[1] is 0"},
        {MJCF("<geom type='capsule' size='0' fromto='0 0 0 0 0 1'/>\n"), "size[0] is 0"},
        {MJCF("<geom/>\n"), "<string>:3: <geom>: attribute size: type sphere needs a positive radius; size[0] is 0 "
                            "(no size given, here or by a default class)"},
        {MJCF("<geom type='plane' size='1 1'/>\n"), "type plane needs a positive third size"},
        {"<mujoco><default><default class='c'><geom type='box' size='1 1'/></default></default>\n"
         "<worldbody>\n<geom class='c'/>\n</worldbody></mujoco>",
         "<string>:3: <geom>: attribute size: type box needs 3 positive half-sizes"},
        {MJCF("<body><site type='box' size='1 0'/></body>\n"),
         "<string>:3: <site>: attribute size: type box needs 3 positive half-sizes"},
        {MJCF("<body><site type='capsule' size='-1' fromto='0 0 0 0 0 1'/></body>\n"), "size[0] is -1"},
        {MJCF("<body><site type='plane'/></body>\n"), "<string>:3: <site>: type plane: a site cannot be"},
    };
    check_refusals(refused, sizeof refused / sizeof refused[0]);
    /* What MuJoCo takes: a class's sizes, fromto's half-length, a plane's
     * first two sizes (0 or less: infinite), a sphere's unused second size,
     * a site's short size, a camera (which has no size). */
    wk_status st = {0};
    CHECK_INT(read_string("<mujoco><default><default class='c'><geom type='box' size='1 1 1'/></default></default>\n"
                          "<worldbody>\n<geom class='c' size='2'/>\n"
                          "<geom type='box' size='1' fromto='0 0 0 0 0 1'/>\n"
                          "<geom type='capsule' size='1' fromto='0 0 0 0 0 1'/>\n"
                          "<geom type='plane' size='0 -1 1'/>\n"
                          "<geom type='sphere' size='1 -1'/>\n"
                          "<body><site type='box' size='1'/><camera/></body>\n</worldbody></mujoco>",
                          &st, NULL),
              ==, WK_OK);
}

static void lights_cameras_inertials(void)
{
    wk_status st = {0};
    wk_world_desc *d;
    REQUIRE_INT(read_string(MJCF("<light name='lamp' pos='0 0 3' dir='2 0 0'/>\n"
                                 "<light name='sun' directional='true'/>\n"
                                 "<body name='b'><inertial pos='0 0 1' mass='3' diaginertia='1 2 3'"
                                 " euler='0 0 90'/>\n<camera name='eye' pos='1 0 0'/></body>\n"
                                 "<body name='f'><inertial pos='0 0 0' mass='1' fullinertia='1 2 3 0.1 0.2 0.3'/>"
                                 "</body>\n"),
                            &st, &d),
                ==, WK_OK);
    const wk_node *lamp = find(d, "m::lamp"), *sun = find(d, "m::sun"), *b = find(d, "m::b");
    const wk_node *eye = find(d, "m::b::eye"), *f = find(d, "m::f");
    REQUIRE(lamp && sun && b && eye && f);
    CHECK_INT(lamp->kind, ==, WK_NODE_LIGHT);
    CHECK_STR(lamp->light.type, "spot");
    CHECK_STR(sun->light.type, "directional");
    /* A light's -z axis is its direction. */
    wk_vec3 shines = wk_quat_rotate(lamp->world.q, (wk_vec3){0, 0, -1});
    CHECK_NEAR(shines.x, 1, 1e-15);
    CHECK_NEAR(shines.z, 0, 1e-15);
    check_pose(&sun->world, 0, 0, 0, 1, 0, 0, 0);
    CHECK_INT(eye->kind, ==, WK_NODE_FRAME);
    CHECK_STR(eye->frame.attached_to, "b");
    const wk_inertial *in = &b->link.inertial;
    CHECK(in->present);
    CHECK_NEAR(in->mass, 3, 0);
    CHECK_NEAR(in->iyy, 2, 0);
    check_pose(&in->pose, 0, 0, 1, sqrt(0.5), 0, 0, sqrt(0.5));
    CHECK_NEAR(f->link.inertial.izz, 3, 0);
    CHECK_NEAR(f->link.inertial.ixy, 0.1, 0);
    CHECK_NEAR(f->link.inertial.iyz, 0.3, 0);
    /* The world body's content is the model, which holds no inertial: no
     * link stands for the world body. */
    const wk_node *model = find(d, "m");
    CHECK(model && model->kind == WK_NODE_WORLD); /* world and model share the scoped name */
    CHECK(find(d, "m::world") == NULL);
    wk_desc_free(d);
}

/* ---- failures ----------------------------------------------------------- */

static void malformed_numbers(void)
{
    check_fails(MJCF("<body pos='1 x 3'/>\n"), WK_PARSE,
                "<string>:3: <body>: attribute pos: expected 3 finite numbers");
    check_fails(MJCF("<geom size='1 2 3 4'/>\n"), WK_PARSE, "<string>:3: <geom>: attribute size: expected 1 to 3");
    check_fails(MJCF("<body euler='1 2'/>\n"), WK_PARSE, "attribute euler");
    check_fails(MJCF("<body quat='0 0 0 0'/>\n"), WK_PARSE, "<string>:3: <body>: quat is zero");
    check_fails(MJCF("<geom size='1' zaxis='0 0 0'/>\n"), WK_PARSE, "zaxis is zero");
    check_fails(MJCF("<geom size='1' xyaxes='1 0 0 2 0 0'/>\n"), WK_PARSE, "parallel");
    check_fails("<mujoco><default>\n<geom pos='nan 0 0'/>\n</default><worldbody><geom size='1'/></worldbody></mujoco>",
                WK_PARSE, "<string>:2: <geom>: attribute pos");
    /* Finite, but past WK_POSE_TRANSLATION_MAX: named at the node it places. */
    check_fails(MJCF("<body name='b' pos='0 0 2e12'/>\n"), WK_PARSE,
                "<string>:3: link m::b: pose: translation z = 2e+12 is beyond the limit of +-1e+12 m");
}

static void unknown_names(void)
{
    check_fails(MJCF("<geom class='nope' size='1'/>\n"), WK_PARSE, "<string>:3: <geom>: unknown default class 'nope'");
    check_fails(MJCF("<body childclass='nope'/>\n"), WK_PARSE, "unknown default class 'nope'");
    check_fails(MJCF("<geom type='blob'/>\n"), WK_PARSE, "unknown type 'blob'");
    check_fails(MJCF("<body><joint type='weird'/></body>\n"), WK_PARSE, "unknown joint type 'weird'");
    check_fails(MJCF("<geom type='mesh' mesh='ghost'/>\n"), WK_PARSE, "unknown mesh 'ghost'");
    check_fails(MJCF("<geom type='sphere' size='1' fromto='0 0 0 1 0 0'/>\n"), WK_PARSE, "fromto needs");
    /* class='main' names the top-level defaults, which need not exist. */
    wk_status st = {0};
    CHECK_INT(read_string(MJCF("<geom class='main' size='1'/>\n"), &st, NULL), ==, WK_OK);
}

static void defaults_and_compiler(void)
{
    check_fails("<mujoco><default>\n<default><geom size='1'/></default>\n</default></mujoco>", WK_PARSE,
                "<string>:2: <default>: a nested default needs a class attribute");
    check_fails("<mujoco><default><default class='a'/>\n<default class='a'/></default></mujoco>", WK_PARSE,
                "<string>:2: <default>: default class 'a' is defined twice");
    check_fails(MJCF("<geom size='1' euler='0 0 1' quat='1 0 0 0'/>\n"), WK_PARSE, "more than one of quat");
    check_fails("<mujoco>\n<compiler eulerseq='xyw'/></mujoco>", WK_PARSE, "<string>:2: <compiler>: eulerseq");
    check_fails("<mujoco>\n<compiler angle='grad'/></mujoco>", WK_PARSE, "angle must be one of radian, degree");
    /* Global coordinates change every pose: refused even when not failing on
     * unsupported elements. */
    check_fails("<mujoco>\n<compiler coordinate='global'/></mujoco>", WK_UNSUPPORTED_ELEMENTS, "coordinate");
    check_fails(MJCF("<joint/>\n"), WK_PARSE, "<string>:3: <joint>: the world body cannot hold one");
}

static void unsupported_elements(void)
{
    static const char text[] = "<mujoco model='m'>\n<worldbody>\n<body name='b'>\n"
                               "<composite type='grid' count='2 2 1'/>\n</body>\n</worldbody>\n<bogus/>\n"
                               "<actuator/>\n<visual/>\n</mujoco>\n"; /* the viewer's <visual>: silent */
    wk_status st = {0};
    wk_world_desc *d;
    REQUIRE_INT(read_string(text, &st, &d), ==, WK_OK);
    CHECK_INT(wk_desc_warning_count(d), ==, 3);
    const char *w0 = wk_desc_warning(d, 0), *w1 = wk_desc_warning(d, 1), *w2 = wk_desc_warning(d, 2);
    REQUIRE(w0 && w1 && w2);
    CHECK(strstr(w0, "<string>:7: ignored unsupported element /mujoco/bogus") != NULL);
    /* MuJoCo's sections worldkit keeps nothing of are reported too. */
    CHECK(strstr(w1, "<string>:8: ignored unsupported element /mujoco/actuator") != NULL);
    CHECK(strstr(w2, "<string>:4: ignored unsupported element /mujoco/worldbody/body/composite") != NULL);
    wk_desc_free(d);
    CHECK_INT(read_with(NULL, text, true, false, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:7: unsupported element /mujoco/bogus");
}

/* ---- files: includes and meshes ------------------------------------------ */

/* A fresh folder; files and subfolders are removed by folder_free. */
typedef struct folder {
    char dir[64];
    char made[16][160];
    int count;
} folder;

static bool folder_new(folder *f)
{
    f->count = 0;
    snprintf(f->dir, sizeof f->dir, "/tmp/wk_mjcf_XXXXXX");
    return mkdtemp(f->dir) != NULL;
}

static const char *folder_path(const folder *f, const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", f->dir, name);
    return buf;
}

/* Writes text to name; a name ending in '/' makes a subfolder. */
static bool folder_add(folder *f, const char *name, const char *text)
{
    if (f->count == (int)(sizeof f->made / sizeof f->made[0]))
        return false;
    char *path = f->made[f->count];
    folder_path(f, name, path, sizeof f->made[0]);
    size_t len = strlen(path);
    if (path[len - 1] == '/') {
        path[len - 1] = '\0';
        return mkdir(path, 0700) == 0 && ++f->count;
    }
    FILE *file = fopen(path, "w");
    if (!file)
        return false;
    fputs(text, file);
    fclose(file);
    f->count++;
    return true;
}

static void folder_free(folder *f)
{
    while (f->count > 0)
        remove(f->made[--f->count]);
    rmdir(f->dir);
}

static void includes(void)
{
    folder f;
    char main_path[160];
    wk_status st = {0};
    wk_world_desc *d;
    REQUIRE(folder_new(&f));
    REQUIRE(folder_add(&f, "parts/", NULL));
    /* Every include path is relative to the main file's folder. */
    REQUIRE(folder_add(&f, "main.xml",
                       "<mujoco model='m'>\n<include file='parts/settings.xml'/>\n<worldbody>\n"
                       "<include file='parts/arm.xml'/>\n</worldbody>\n</mujoco>\n"));
    REQUIRE(folder_add(&f, "parts/settings.xml", "<mujoco><compiler angle='radian'/></mujoco>\n"));
    REQUIRE(folder_add(&f, "parts/arm.xml",
                       "<mujoco>\n<body name='arm' euler='0 0 1.5707963267948966'>\n"
                       "<include file='parts/hand.xml'/>\n</body>\n</mujoco>\n"));
    REQUIRE(folder_add(&f, "parts/hand.xml", "<hand>\n\n<body name='hand' pos='1 0 0'/>\n</hand>\n"));
    folder_path(&f, "main.xml", main_path, sizeof main_path);
    CHECK_INT(read_with(main_path, NULL, false, false, &st, &d), ==, WK_OK);
    const wk_node *arm = find(d, "m::arm"), *hand = find(d, "m::hand");
    REQUIRE(arm && hand);
    check_pose(&hand->world, 0, 1, 0, sqrt(0.5), 0, 0, sqrt(0.5));
    CHECK(hand->file && strstr(hand->file, "parts/hand.xml"));
    CHECK_INT(hand->line, ==, 3);
    wk_desc_free(d);

    /* Errors inside an included file name that file and line. */
    REQUIRE(folder_add(&f, "parts/bad.xml", "<mujoco>\n<body pos='1 2'/>\n</mujoco>\n"));
    REQUIRE(folder_add(&f, "bad_main.xml", MJCF("<include file='parts/bad.xml'/>\n")));
    CHECK_INT(read_with(folder_path(&f, "bad_main.xml", main_path, sizeof main_path), NULL, false, false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "parts/bad.xml:2: <body>: attribute pos");

    /* Two files including each other, and one file included twice. */
    REQUIRE(folder_add(&f, "parts/a.xml", "<mujoco>\n<include file='parts/b.xml'/>\n</mujoco>\n"));
    REQUIRE(folder_add(&f, "parts/b.xml", "<mujoco>\n<include file='parts/a.xml'/>\n</mujoco>\n"));
    REQUIRE(folder_add(&f, "cycle.xml", "<mujoco>\n<include file='parts/a.xml'/>\n</mujoco>\n"));
    CHECK_INT(read_with(folder_path(&f, "cycle.xml", main_path, sizeof main_path), NULL, false, false, &st, NULL), ==,
              WK_PARSE);
    check_message(&st, "parts/b.xml:2: <include>: include cycle");
    REQUIRE(folder_add(&f, "twice.xml", MJCF("<include file='parts/hand.xml'/>\n<include file='parts/hand.xml'/>\n")));
    CHECK_INT(read_with(folder_path(&f, "twice.xml", main_path, sizeof main_path), NULL, false, false, &st, NULL), ==,
              WK_PARSE);
    check_message(&st, "twice.xml:4: <include>:");
    check_message(&st, "already included");
    REQUIRE(folder_add(&f, "self.xml", "<mujoco>\n<include file='self.xml'/>\n</mujoco>\n"));
    CHECK_INT(read_with(folder_path(&f, "self.xml", main_path, sizeof main_path), NULL, false, false, &st, NULL), ==,
              WK_PARSE);
    check_message(&st, "self.xml:2: <include>: include cycle: the main file includes itself");
    folder_free(&f);
}

static void include_failures(void)
{
    /* A string's includes are relative to the working folder. */
    check_fails(MJCF("<include file='no_such_part.xml'/>\n"), WK_MISSING_ASSETS,
                "<string>:3: asset no_such_part.xml: not found");
    check_fails(MJCF("<include/>\n"), WK_PARSE, "<string>:3: <include>: needs a file attribute");
    wk_status st = {0};
    wk_world_desc *d;
    REQUIRE_INT(read_with(NULL, MJCF("<include file='no_such_part.xml'/>\n<geom name='g' size='1'/>\n"), false, true,
                          &st, &d),
                ==, WK_OK);
    CHECK_INT(wk_desc_warning_count(d), ==, 1);
    CHECK(find(d, "m::g") != NULL);
    wk_desc_free(d);

    folder f;
    char path[160];
    REQUIRE(folder_new(&f));
    REQUIRE(folder_add(&f, "secret.xml", "<mujoco><body name='s'/></mujoco>\n"));
    REQUIRE(folder_add(&f, "sub/", NULL));
    REQUIRE(folder_add(&f, "sub/main.xml", MJCF("<include file='../secret.xml'/>\n")));
    CHECK_INT(read_with(folder_path(&f, "sub/main.xml", path, sizeof path), NULL, false, false, &st, NULL), ==,
              WK_MISSING_ASSETS);
    check_message(&st, "secret.xml: not found in the file's folder"); /* as a missing file is */
    folder_free(&f);
}

static void meshes(void)
{
    folder f;
    char path[160];
    wk_status st = {0};
    wk_world_desc *d;
    REQUIRE(folder_new(&f));
    REQUIRE(folder_add(&f, "meshes/", NULL));
    REQUIRE(folder_add(&f, "meshes/arm.stl", "solid arm\nendsolid arm\n"));
    REQUIRE(folder_add(&f, "robot.xml",
                       "<mujoco model='r'>\n<compiler meshdir='meshes'/>\n<default><mesh scale='2 2 2'/></default>\n"
                       "<asset><mesh file='arm.stl'/><mesh name='gone' file='gone.stl'/></asset>\n"
                       "<worldbody><geom name='g' type='mesh' mesh='arm'/></worldbody>\n</mujoco>\n"));
    folder_path(&f, "robot.xml", path, sizeof path);
    CHECK_INT(read_with(path, NULL, false, false, &st, NULL), ==, WK_MISSING_ASSETS);
    check_message(&st, "robot.xml:4: asset meshes/gone.stl: not found");
    REQUIRE_INT(read_with(path, NULL, false, true, &st, &d), ==, WK_OK);
    CHECK_INT(wk_desc_warning_count(d), ==, 1);
    const wk_node *g = find(d, "r::g");
    REQUIRE(g);
    CHECK_INT(g->shape.geometry.type, ==, WK_GEOMETRY_MESH);
    CHECK_STR(g->shape.geometry.uri, "arm.stl");
    CHECK(g->shape.geometry.path && strstr(g->shape.geometry.path, "meshes/arm.stl"));
    CHECK_NEAR(g->shape.geometry.scale.y, 2, 0);
    wk_desc_free(d);
    folder_free(&f);
}

static void physics_options(void)
{
    wk_status st = {0};
    wk_world_desc *d;
    REQUIRE_INT(read_string("<mujoco><worldbody/></mujoco>", &st, &d), ==, WK_OK);
    CHECK_NEAR(wk_desc_node(d, 0)->settings.max_step_size, 0.002, 0); /* MuJoCo's defaults */
    CHECK_NEAR(wk_desc_node(d, 0)->settings.gravity.z, -9.81, 0);
    wk_desc_free(d);
    REQUIRE_INT(read_string("<mujoco><option timestep='0.0005' gravity='0 0 -3.7'/><worldbody/></mujoco>", &st, &d), ==,
                WK_OK);
    CHECK_NEAR(wk_desc_node(d, 0)->settings.max_step_size, 0.0005, 0);
    CHECK_NEAR(wk_desc_node(d, 0)->settings.gravity.z, -3.7, 0);
    wk_desc_free(d);
    check_fails("<mujoco>\n<option timestep='-1'/></mujoco>", WK_PARSE, "<string>:2: <option>: timestep must be positive");
    check_fails("<mujoco>\n<option gravity='0 0'/></mujoco>", WK_PARSE, "gravity needs 3 finite numbers");
}

static const wk_test_case cases[] = {
    {"physics_options", physics_options},
    {"body_pose_by_hand", body_pose_by_hand},
    {"generated_names", generated_names},
    {"frames", frames},
    {"joints", joints},
    {"geometry_sizes", geometry_sizes},
    {"geometry_sizes_refused", geometry_sizes_refused},
    {"negative_inertia_as_mujoco", negative_inertia_as_mujoco},
    {"lights_cameras_inertials", lights_cameras_inertials},
    {"malformed_numbers", malformed_numbers},
    {"unknown_names", unknown_names},
    {"defaults_and_compiler", defaults_and_compiler},
    {"unsupported_elements", unsupported_elements},
    {"includes", includes},
    {"include_failures", include_failures},
    {"meshes", meshes},
};
WK_TEST_MAIN(cases)
