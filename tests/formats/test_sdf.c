/* test_sdf.c — the SDFormat reader's failures and options: every result
 * code of LoadWorld, messages naming file:line and element, warnings for
 * what is ignored, and hostile input (DOCTYPEs, paths outside the allowed
 * folders). Poses themselves are checked against libsdformat by the oracle
 * test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "formats/find_node.h"
#include "worldkit/wk_formats.h"
#include "wk_test.h"

/* Reads a string with the given options; returns the code, keeps the status. */
static int read_string(const char *text, bool fail_unsupported, bool ignore_assets, wk_status *st, wk_world_desc **out)
{
    wk_world_desc *d = NULL;
    int rc = wk_desc_read(&(wk_read_desc){.resource_string = text,
                                          .fail_on_unsupported_element = fail_unsupported,
                                          .ignore_missing_or_unsupported_assets = ignore_assets},
                          &d, st);
    if (out)
        *out = d;
    else
        wk_desc_free(d);
    return rc;
}

#define WORLD(body) "<?xml version='1.0'?>\n<sdf version='1.9'>\n<world name='w'>\n" body "</world>\n</sdf>\n"

static void check_message(const wk_status *st, const char *needle)
{
    if (!CHECK(strstr(st->message, needle) != NULL))
        fprintf(stderr, "    message: %s\n    wanted:  %s\n", st->message, needle);
}

static void no_resource(void)
{
    wk_status st = {0};
    wk_world_desc *d = (wk_world_desc *)1;
    CHECK_INT(wk_desc_read(&(wk_read_desc){0}, &d, &st), ==, WK_NO_RESOURCE);
    CHECK(d == NULL);
    CHECK_INT(wk_desc_read(&(wk_read_desc){.uri = "", .resource_string = ""}, &d, &st), ==, WK_NO_RESOURCE);
}

static void unsupported_format(void)
{
    wk_status st = {0};
    CHECK_INT(read_string("<usd><stage/></usd>", false, false, &st, NULL), ==, WK_UNSUPPORTED_FORMAT);
    check_message(&st, "<usd>");
    char dir[] = "/tmp/wk_test_XXXXXX", path[64];
    REQUIRE(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/stage.usda", dir);
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fputs("#usda 1.0\n", f);
    fclose(f);
    wk_world_desc *d = NULL;
    CHECK_INT(wk_desc_read(&(wk_read_desc){.uri = path}, &d, &st), ==, WK_UNSUPPORTED_FORMAT);
    check_message(&st, "usda");
    unlink(path);
    CHECK_INT(wk_desc_read(&(wk_read_desc){.uri = dir}, &d, &st), ==, WK_NOT_FOUND);
    check_message(&st, ": a folder, not a file");
    rmdir(dir);
    CHECK_INT(read_string("<sdf version='2.0'><world name='w'/></sdf>", false, false, &st, NULL), ==,
              WK_UNSUPPORTED_FORMAT);
    CHECK_INT(read_string("<sdf version='1.3'><world name='w'/></sdf>", false, false, &st, NULL), ==,
              WK_UNSUPPORTED_FORMAT);
    CHECK_INT(wk_desc_read(&(wk_read_desc){.uri = "/no/such/world.sdf"}, &d, &st), ==, WK_NOT_FOUND);
    check_message(&st, "/no/such/world.sdf");
}

static void parse_errors_name_line_and_element(void)
{
    wk_status st = {0};
    CHECK_INT(read_string("<sdf version='1.9'><world name='w'>\n<model name='m'>\n</world></sdf>", false, false, &st,
                          NULL),
              ==, WK_PARSE);
    check_message(&st, "<string>:3");
    CHECK_INT(read_string(WORLD("<model name='m'><link name='l'>\n<pose>1 2 3</pose></link></model>\n"), false, false,
                          &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "<string>:5: <pose>: expected 6 numbers");
    CHECK_INT(read_string(WORLD("<model name='m'><link name='l'><pose>1 2 3 nan 0 0</pose></link></model>\n"), false,
                          false, &st, NULL),
              ==, WK_PARSE);
    CHECK_INT(read_string(WORLD("<model><link name='l'/></model>\n"), false, false, &st, NULL), ==, WK_PARSE);
    check_message(&st, "missing the name attribute");
    CHECK_INT(read_string(WORLD("<model name='m'><link name='a'/><link name='b'/>\n"
                                "<joint name='j' type='hinge'><parent>a</parent><child>b</child></joint></model>\n"),
                          false, false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "<joint>: type must be one of");
    CHECK_INT(read_string("<sdf version='99'><world name='w'/></sdf>", false, false, &st, NULL), ==, WK_PARSE);
    check_message(&st, "<sdf>: version \"99\" is not MAJOR.MINOR");
    CHECK_INT(read_string("<sdf><world name='w'/></sdf>", false, false, &st, NULL), ==, WK_PARSE);
    check_message(&st, "<sdf>: needs a version attribute");
}

static void frame_errors(void)
{
    wk_status st = {0};
    CHECK_INT(read_string(WORLD("<model name='m'><link name='l'><pose relative_to='nowhere'>0 0 0 0 0 0</pose>"
                                "</link></model>\n"),
                          false, false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "link m::l: no frame named 'nowhere'");
    CHECK_INT(read_string(WORLD("<model name='m'><link name='l'/>\n<frame name='a' attached_to='b'/>\n"
                                "<frame name='b' attached_to='a'/></model>\n"),
                          false, false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "depends on itself");
    CHECK_INT(read_string(WORLD("<model name='m'><link name='a'/><link name='b'/>\n"
                                "<joint name='j' type='fixed'><parent>a</parent><child>ghost</child></joint></model>\n"),
                          false, false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "'ghost'");
}

/* Joints a tree cannot hold, which left a joint out of the scene without a
 * word: a joint whose parent is its child, and loops of joints, also one
 * through a link with two parent joints (which alone stays allowed). */
static void joint_graph_errors(void)
{
#define LINKS "<model name='m'><link name='a'/><link name='b'/><link name='c'/>\n"
#define JOINT(name, parent, child) \
    "<joint name='" name "' type='fixed'><parent>" parent "</parent><child>" child "</child></joint>\n"
    wk_status st = {0};
    CHECK_INT(read_string(WORLD(LINKS JOINT("ab", "a", "b") JOINT("bb", "b", "b") "</model>\n"), false, false, &st,
                          NULL),
              ==, WK_PARSE);
    check_message(&st, "<string>:6: joint m::bb: its parent and its child are both 'b'");
    CHECK_INT(read_string(WORLD(LINKS JOINT("ab", "a", "b") JOINT("bc", "b", "c") JOINT("ca", "c", "a") "</model>\n"),
                          false, false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "<string>:7: joint m::ca: it closes a loop of joints back to link 'a'");
    CHECK_INT(read_string(WORLD(LINKS JOINT("ab", "a", "b") JOINT("cb", "c", "b") JOINT("bc", "b", "c") "</model>\n"),
                          false, false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "joint m::cb: it closes a loop of joints back to link 'b'");
    CHECK_INT(read_string(WORLD(LINKS JOINT("ab", "a", "b") JOINT("cb", "c", "b") "</model>\n"), false, false, &st,
                          NULL),
              ==, WK_OK);
#undef JOINT
#undef LINKS
}

/* A mass, an inertia's diagonal and a joint's friction below zero, which
 * loaded: refused naming line and element. */
static void negative_quantities(void)
{
    static const char *const cases[][2] = {
        {"<link name='l'><inertial><mass>-2</mass></inertial></link>", "<string>:4: <mass>: -2 is negative"},
        {"<link name='l'><inertial><inertia><ixx>1</ixx><ixy>-0.5</ixy><iyy>-1</iyy></inertia></inertial></link>",
         "<string>:4: <iyy>: -1 is negative"},
        {"<link name='a'/><link name='b'/><joint name='j' type='revolute'><parent>a</parent><child>b</child><axis>"
         "<xyz>0 0 1</xyz><dynamics><friction>-0.3</friction></dynamics></axis></joint>",
         "<string>:4: <friction>: -0.3 is negative"},
    };
    char text[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wk_status st = {0};
        snprintf(text, sizeof text, WORLD("<model name='m'>%s</model>\n"), cases[i][0]);
        CHECK_INT(read_string(text, false, false, &st, NULL), ==, WK_PARSE);
        check_message(&st, cases[i][1]);
    }
}

/* A translation beyond WK_POSE_TRANSLATION_MAX is refused naming the node's
 * line and element; one at the limit is taken, and two of them compose to a
 * finite world pose. */
static void pose_translation_limit(void)
{
    wk_status st = {0};
    CHECK_INT(read_string(WORLD("<model name='m'>\n<link name='l'><pose>0 0 -1000000000001 0 0 0</pose></link>"
                                "</model>\n"),
                          false, false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "<string>:5: link m::l: pose: translation z = -1000000000001 is beyond the limit of +-1e+12 m");
    CHECK_INT(read_string(WORLD("<model name='m'>\n<link name='l'><inertial><pose>1.7e308 0 0 0 0 0</pose>"
                                "</inertial></link></model>\n"),
                          false, false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "<string>:5: link m::l: inertial pose: translation x = 1.7e+308 is beyond the limit");
    wk_world_desc *d = NULL;
    REQUIRE(read_string(WORLD("<model name='m'><pose>1e12 0 0 0 0 0</pose>\n<link name='l'><pose>1e12 0 0 0 0 0"
                              "</pose></link></model>\n"),
                        false, false, &st, &d) == WK_OK);
    const wk_node *link = find(d, "m::l");
    if (CHECK(link != NULL))
        CHECK_NEAR(link->world.p.x, 2e12, 0.0);
    wk_desc_free(d);
}

static void unsupported_elements(void)
{
    const char *text = WORLD("<model name='m'><link name='l'>\n<bogus/>\n</link>\n<pose shiny='yes'>0 0 0 0 0 0</pose>"
                             "</model>\n");
    wk_status st = {0};
    wk_world_desc *d = NULL;
    CHECK_INT(read_string(text, false, false, &st, &d), ==, WK_OK);
    REQUIRE(d);
    CHECK_INT(wk_desc_warning_count(d), ==, 2);
    CHECK(strstr(wk_desc_warning(d, 0), "/sdf/world/model/link/bogus") != NULL);
    CHECK(strstr(wk_desc_warning(d, 0), "<string>:5") != NULL);
    CHECK(strstr(wk_desc_warning(d, 1), "pose@shiny") != NULL);
    wk_desc_free(d);
    CHECK_INT(read_string(text, true, false, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:5: unsupported element /sdf/world/model/link/bogus");
}

/* What the specification defines but worldkit keeps nothing of is
 * reported like an unknown element; appearance alone (a world's <scene> and
 * <gui>, a visual's <material>) is accepted silently. */
static void known_but_not_kept(void)
{
    const char *text = WORLD("<gui fullscreen='0'><camera name='c'/></gui><scene><ambient>1 1 1 1</ambient></scene>\n"
                             "<wind/><atmosphere type='adiabatic'/><audio/><state world_name='w'/>\n"
                             "<population name='p'/><road name='r'/>\n"
                             "<model name='m'><gripper name='g'/><enable_wind>1</enable_wind><link name='l'>\n"
                             "<gravity>0</gravity><kinematic>1</kinematic><visual name='v'><material/>"
                             "<cast_shadows>0</cast_shadows><transparency>0.5</transparency>\n"
                             "<laser_retro>1</laser_retro></visual><collision name='c'><surface><bounce/>"
                             "<friction><torsional/><ode><mu>0.5</mu><mu2>0.4</mu2></ode></friction></surface></collision></link>\n"
                             "<link name='k'/><joint name='j' type='revolute'><parent>l</parent><child>k</child>\n"
                             "<axis><limit><stiffness>1</stiffness></limit><dynamics><spring_stiffness>1"
                             "</spring_stiffness></dynamics></axis><physics/></joint></model>\n"
                             "<actor name='a'><pose>1 0 0 0 0 0</pose><skin/></actor>\n"
                             "<physics name='p' type='ode'><real_time_update_rate>1000</real_time_update_rate><ode/>"
                             "</physics><spherical_coordinates>\n<world_frame_orientation>NED"
                             "</world_frame_orientation></spherical_coordinates>\n");
    static const char *const wanted[] = {
        "<string>:5: ignored unsupported element /sdf/world/wind",
        "<string>:5: ignored unsupported element /sdf/world/atmosphere",
        "<string>:5: ignored unsupported element /sdf/world/audio",
        "<string>:5: ignored unsupported element /sdf/world/state",
        "<string>:6: ignored unsupported element /sdf/world/population",
        "<string>:6: ignored unsupported element /sdf/world/road",
        "<string>:7: ignored unsupported element /sdf/world/model/gripper",
        "<string>:7: ignored unsupported element /sdf/world/model/enable_wind",
        "<string>:8: ignored unsupported element /sdf/world/model/link/gravity",
        "<string>:8: ignored unsupported element /sdf/world/model/link/kinematic",
        "<string>:9: ignored unsupported element /sdf/world/model/link/visual/laser_retro",
        "<string>:9: ignored unsupported element /sdf/world/model/link/collision/surface/bounce",
        "<string>:9: ignored unsupported element /sdf/world/model/link/collision/surface/friction/torsional",
        "<string>:9: ignored unsupported element /sdf/world/model/link/collision/surface/friction/ode/mu2",
        "<string>:11: ignored unsupported element /sdf/world/model/joint/axis/limit/stiffness",
        "<string>:11: ignored unsupported element /sdf/world/model/joint/physics",
        "<string>:12: ignored unsupported element /sdf/world/actor/skin",
        "<string>:13: ignored unsupported element /sdf/world/physics/real_time_update_rate",
        "<string>:13: ignored unsupported element /sdf/world/physics/ode",
        "<string>:14: ignored unsupported element /sdf/world/spherical_coordinates/world_frame_orientation",
    };
    const size_t count = sizeof wanted / sizeof wanted[0];
    wk_status st = {0};
    wk_world_desc *d = NULL;
    CHECK_INT(read_string(text, false, false, &st, &d), ==, WK_OK);
    REQUIRE(d);
    CHECK_INT(wk_desc_warning_count(d), ==, count);
    for (size_t i = 0; i < count; i++)
        if (!CHECK(wk_desc_warning(d, i) && strstr(wk_desc_warning(d, i), wanted[i])))
            fprintf(stderr, "    warning %zu: %s\n    wanted: %s\n", i, wk_desc_warning(d, i), wanted[i]);
    const wk_node *actor = find(d, "a");
    REQUIRE(actor);
    CHECK_NEAR(actor->pose.p.x, 1, 0);
    wk_desc_free(d);
    CHECK_INT(read_string(text, true, false, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:5: unsupported element /sdf/world/wind");
    CHECK_INT(read_string(WORLD("<gui/><scene/>\n<model name='m'><link name='l'><visual name='v'><material/>"
                                "<cast_shadows>0</cast_shadows></visual></link></model>\n"),
                          true, false, &st, NULL),
              ==, WK_OK);
}

/* A world in a fresh folder with a mesh file beside it. */
typedef struct sandbox {
    char dir[64];
    char world[128];
} sandbox;

static bool sandbox_new(sandbox *s, const char *mesh_name, const char *mesh_uri)
{
    snprintf(s->dir, sizeof s->dir, "/tmp/wk_assets_XXXXXX");
    if (!mkdtemp(s->dir))
        return false;
    char mesh[160];
    snprintf(mesh, sizeof mesh, "%s/%s", s->dir, mesh_name);
    FILE *f = fopen(mesh, "w");
    if (!f)
        return false;
    fputs("solid x\nendsolid x\n", f);
    fclose(f);
    snprintf(s->world, sizeof s->world, "%s/world.sdf", s->dir);
    f = fopen(s->world, "w");
    if (!f)
        return false;
    fprintf(f, WORLD("<model name='m'><link name='l'><visual name='v'><geometry><mesh><uri>%s</uri></mesh>"
                     "</geometry></visual></link></model>\n"),
            mesh_uri);
    fclose(f);
    return true;
}

static void sandbox_free(const sandbox *s, const char *mesh_name)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", s->dir, mesh_name);
    unlink(path);
    unlink(s->world);
    rmdir(s->dir);
}

static int read_file(const char *path, bool ignore_assets, wk_status *st, wk_world_desc **out)
{
    *out = NULL;
    return wk_desc_read(&(wk_read_desc){.uri = path, .ignore_missing_or_unsupported_assets = ignore_assets}, out, st);
}

static void assets(void)
{
    sandbox s;
    wk_status st = {0};
    wk_world_desc *d;
    REQUIRE(sandbox_new(&s, "arm.stl", "arm.stl"));
    CHECK_INT(read_file(s.world, false, &st, &d), ==, WK_OK);
    REQUIRE(d);
    const wk_node *v = wk_desc_node(d, 3);
    REQUIRE(v && v->kind == WK_NODE_VISUAL);
    CHECK(v->shape.geometry.path && strstr(v->shape.geometry.path, "/arm.stl"));
    wk_desc_free(d);
    sandbox_free(&s, "arm.stl");

    REQUIRE(sandbox_new(&s, "arm.stl", "model://nowhere/arm.stl"));
    CHECK_INT(read_file(s.world, false, &st, &d), ==, WK_MISSING_ASSETS);
    check_message(&st, "world.sdf:4: asset model://nowhere/arm.stl: not found");
    CHECK_INT(read_file(s.world, true, &st, &d), ==, WK_OK);
    CHECK_INT(wk_desc_warning_count(d), ==, 1);
    wk_desc_free(d);
    sandbox_free(&s, "arm.stl");

    REQUIRE(sandbox_new(&s, "arm.xyz", "arm.xyz"));
    CHECK_INT(read_file(s.world, false, &st, &d), ==, WK_UNSUPPORTED_ASSETS);
    check_message(&st, "arm.xyz");
    CHECK_INT(read_file(s.world, true, &st, &d), ==, WK_OK);
    wk_desc_free(d);
    sandbox_free(&s, "arm.xyz");

    /* A file outside the world's folder and the resource path is refused,
     * as a missing one is. */
    REQUIRE(sandbox_new(&s, "arm.stl", "/etc/hostname"));
    CHECK_INT(read_file(s.world, false, &st, &d), ==, WK_MISSING_ASSETS);
    check_message(&st, "/etc/hostname: not found in the file's folder, the roots or the resource path");
    sandbox_free(&s, "arm.stl");
    REQUIRE(sandbox_new(&s, "arm.stl", "../../etc/hostname"));
    CHECK_INT(read_file(s.world, false, &st, &d), ==, WK_MISSING_ASSETS);
    sandbox_free(&s, "arm.stl");
}

static void doctype_refused(void)
{
    wk_status st = {0};
    CHECK_INT(read_string("<?xml version='1.0'?>\n<!DOCTYPE sdf [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>\n"
                          "<sdf version='1.9'><world name='&x;'/></sdf>",
                          false, false, &st, NULL),
              ==, WK_PARSE);
    CHECK(strstr(st.message, "/etc/passwd") == NULL || strstr(st.message, "root:") == NULL);
    CHECK_INT(read_string("<?xml version='1.0'?>\n<!DOCTYPE lolz [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;'>]>\n"
                          "<sdf version='1.9'><world name='&b;'/></sdf>",
                          false, false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "<string>: a DOCTYPE is not allowed");
}

static void levels_and_performers(void)
{
    wk_status st = {0};
    wk_world_desc *d = NULL;
    CHECK_INT(read_string(WORLD("<plugin name='gz::sim' filename='dummy'>\n"
                                "<level name='L'><pose>1 2 3 0 0 1</pose><geometry><box><size>4 5 6</size></box>"
                                "</geometry><buffer>2</buffer><ref>a</ref><ref>b</ref></level>\n"
                                "<performer name='p'><ref>r</ref><geometry><box><size>1 1 1</size></box></geometry>"
                                "</performer></plugin>\n"),
                          false, false, &st, &d),
              ==, WK_OK);
    REQUIRE(d);
    const wk_node *level = wk_desc_node(d, 1), *perf = wk_desc_node(d, 2);
    REQUIRE(level && perf);
    CHECK_INT(level->kind, ==, WK_NODE_LEVEL);
    CHECK_NEAR(level->world.p.z, 3, 0);
    CHECK_NEAR(level->world.q.w, 1, 0); /* orientation ignored */
    CHECK_NEAR(level->region.size.y, 5, 0);
    CHECK_NEAR(level->region.buffer, 2, 0);
    CHECK_INT(level->region.ref_count, ==, 2);
    CHECK_STR(level->region.refs[1], "b");
    CHECK_INT(perf->kind, ==, WK_NODE_PERFORMER);
    CHECK_STR(perf->region.refs[0], "r");
    wk_desc_free(d);
    CHECK_INT(read_string(WORLD("<plugin name='gz::sim' filename='dummy'><performer name='p'><ref>a</ref><ref>b</ref>"
                                "<geometry><box><size>1 1 1</size></box></geometry></performer></plugin>\n"),
                          false, false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "exactly one <ref>");
}

static void physics(void)
{
    wk_status st = {0};
    wk_world_desc *d = NULL;
    CHECK_INT(read_string(WORLD(""), false, false, &st, &d), ==, WK_OK);
    REQUIRE(d);
    const wk_node *w = wk_desc_node(d, 0);
    CHECK_NEAR(w->settings.max_step_size, 0.001, 0); /* SDFormat's defaults */
    CHECK_NEAR(w->settings.real_time_factor, 1, 0);
    CHECK_NEAR(w->settings.gravity.z, -9.8, 0);
    wk_desc_free(d);
    CHECK_INT(read_string(WORLD("<physics name='slow' type='ode'><max_step_size>0.01</max_step_size></physics>\n"
                                "<physics name='fast' type='ode' default='true'><max_step_size>0.004</max_step_size>"
                                "<real_time_factor>2</real_time_factor></physics>\n"
                                "<gravity>0 0 -1.62</gravity><magnetic_field>1e-5 0 0</magnetic_field>\n"),
                          false, false, &st, &d),
              ==, WK_OK);
    REQUIRE(d);
    w = wk_desc_node(d, 0);
    CHECK_NEAR(w->settings.max_step_size, 0.004, 0); /* the default profile wins */
    CHECK_NEAR(w->settings.real_time_factor, 2, 0);
    CHECK_NEAR(w->settings.gravity.z, -1.62, 0);
    CHECK_NEAR(w->settings.magnetic_field.x, 1e-5, 0);
    CHECK(!w->settings.spherical.present);
    wk_desc_free(d);
    /* A real-time factor whose step waits would not fit a timespec. */
    CHECK_INT(read_string(WORLD("<physics name='p' type='ode'><real_time_factor>1e-300</real_time_factor></physics>\n"),
                          false, false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "<physics>: real_time_factor 1e-300 is neither 0");
    CHECK_INT(read_string(WORLD("<physics name='p' type='ode'><real_time_factor>0</real_time_factor></physics>\n"),
                          false, false, &st, NULL),
              ==, WK_OK);
    CHECK_INT(read_string(WORLD("<spherical_coordinates><surface_model>EARTH_WGS84</surface_model>"
                                "<latitude_deg>47.37</latitude_deg><longitude_deg>8.54</longitude_deg>"
                                "<elevation>408</elevation><heading_deg>90</heading_deg></spherical_coordinates>\n"),
                          false, false, &st, &d),
              ==, WK_OK);
    REQUIRE(d);
    w = wk_desc_node(d, 0);
    CHECK(w->settings.spherical.present);
    CHECK_STR(w->settings.spherical.surface_model, "EARTH_WGS84");
    CHECK_NEAR(w->settings.spherical.latitude_deg, 47.37, 0);
    CHECK_NEAR(w->settings.spherical.longitude_deg, 8.54, 0);
    CHECK_NEAR(w->settings.spherical.elevation, 408, 0);
    CHECK_NEAR(w->settings.spherical.heading_deg, 90, 0);
    wk_desc_free(d);
    CHECK_INT(read_string(WORLD("<physics name='p' type='ode'><max_step_size>0</max_step_size></physics>\n"), false,
                          false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "max_step_size must be positive");
}

static void plugins_and_sensors_kept(void)
{
    wk_status st = {0};
    wk_world_desc *d = NULL;
    CHECK_INT(read_string(WORLD("<plugin name='gz::sim::systems::Physics' filename='gz-sim-physics-system'>"
                                "<engine><filename>dart</filename></engine></plugin>\n"
                                "<model name='m'><plugin name='drive' filename='diff'><wheel>left</wheel></plugin>"
                                "<plugin name='second' filename='x'/>\n"
                                "<link name='l'><sensor name='cam' type='camera'><update_rate>30</update_rate>"
                                "<camera><horizontal_fov>1.0</horizontal_fov></camera>"
                                "<plugin name='noise' filename='n'/></sensor></link></model>\n"),
                          true, false, &st, &d),
              ==, WK_OK);
    REQUIRE(d);
    const wk_node *w = wk_desc_node(d, 0), *m = wk_desc_node(d, 1), *cam = wk_desc_node(d, 3);
    REQUIRE_INT(w->plugin_count, ==, 1);
    CHECK_STR(w->plugins[0].name, "gz::sim::systems::Physics");
    CHECK_STR(w->plugins[0].filename, "gz-sim-physics-system");
    CHECK(strstr(w->plugins[0].xml, "<engine><filename>dart</filename></engine>") != NULL);
    REQUIRE_INT(m->plugin_count, ==, 2);
    CHECK_STR(m->plugins[1].name, "second");
    CHECK(strstr(m->plugins[0].xml, "<wheel>left</wheel>") != NULL);
    REQUIRE_INT(cam->kind, ==, WK_NODE_SENSOR);
    CHECK_STR(cam->sensor.type, "camera");
    CHECK_NEAR(cam->sensor.update_rate, 30, 0);
    CHECK(strstr(cam->sensor.xml, "<horizontal_fov>1.0</horizontal_fov>") != NULL);
    CHECK_INT(cam->plugin_count, ==, 1);
    wk_desc_free(d);
}

static void versions(void)
{
    /* relative_to came in 1.7, capsules in 1.8: a 1.6 file may not use them. */
    const char *text = "<sdf version='1.6'><world name='w'><model name='m'>\n"
                       "<link name='a'><pose relative_to='b'>1 0 0 0 0 0</pose></link><link name='b'>\n"
                       "<visual name='v'><geometry><capsule><radius>1</radius><length>2</length></capsule>"
                       "</geometry></visual></link></model></world></sdf>";
    wk_status st = {0};
    wk_world_desc *d = NULL;
    CHECK_INT(read_string(text, false, false, &st, &d), ==, WK_OK);
    REQUIRE(d);
    CHECK_INT(wk_desc_warning_count(d), ==, 2);
    CHECK(strstr(wk_desc_warning(d, 0), "<string>:2: ignored unsupported attribute /sdf/world/model/link/pose@relative_to"));
    CHECK(strstr(wk_desc_warning(d, 1), "/geometry/capsule"));
    CHECK_NEAR(wk_desc_node(d, 2)->world.p.x, 1, 0); /* relative to the model, as 1.6 reads it */
    wk_desc_free(d);
    CHECK_INT(read_string(text, true, false, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "pose@relative_to");
    /* A world frame came in 1.7, gravity moved from physics to the world in
     * 1.6, pose@frame was in 1.5 and 1.6 only. */
    CHECK_INT(read_string("<sdf version='1.6'><world name='w'>\n<frame name='f'/></world></sdf>", true, false, &st, NULL),
              ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:2: unsupported element /sdf/world/frame");
    CHECK_INT(read_string("<sdf version='1.5'><world name='w'>\n<gravity>0 0 -1</gravity></world></sdf>", true, false,
                          &st, NULL),
              ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:2: unsupported element /sdf/world/gravity");
    const char *framed = "<sdf version='1.%d'><world name='w'><model name='m'><link name='a'>"
                         "<pose>1 0 0 0 0 0</pose></link><link name='b'>\n<pose frame='a'>0 1 0 0 0 0</pose></link>"
                         "</model></world></sdf>";
    char text_1_x[512];
    snprintf(text_1_x, sizeof text_1_x, framed, 4);
    CHECK_INT(read_string(text_1_x, true, false, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:2: unsupported attribute /sdf/world/model/link/pose@frame");
    snprintf(text_1_x, sizeof text_1_x, framed, 5);
    CHECK_INT(read_string(text_1_x, true, false, &st, &d), ==, WK_OK);
    CHECK_NEAR(wk_desc_node(d, 3)->world.p.x, 1, 0); /* relative to a */
    CHECK_NEAR(wk_desc_node(d, 3)->world.p.y, 1, 0);
    wk_desc_free(d);
    /* pose@frame is gone since 1.7. */
    CHECK_INT(read_string(WORLD("<model name='m'><link name='l'><pose frame='x'>0 0 0 0 0 0</pose></link></model>\n"),
                          true, false, &st, NULL),
              ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "pose@frame");
    /* merge is an attribute of 1.9 includes, and only a model may merge. */
    const char *in_world = "<sdf version='1.9'><world name='w'>\n<include merge='true'><uri>model://x</uri>"
                           "<merge>true</merge></include></world></sdf>";
    CHECK_INT(read_string(in_world, true, true, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "/sdf/world/include/merge"); /* the element does not exist */
    const char *old = "<sdf version='1.8'><world name='w'><model name='m'><link name='l'/>\n"
                      "<include merge='true'><uri>model://x</uri></include></model></world></sdf>";
    CHECK_INT(read_string(old, true, true, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:2: unsupported attribute /sdf/world/model/include@merge");
    /* An axis in the model's frame: use_parent_model_frame in 1.5 and 1.6,
     * expressed_in="__model__" from 1.7. */
    const char *parent_frame = "<sdf version='1.%d'><world name='w'><model name='m'><link name='a'/><link name='b'/>"
                               "<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis>\n"
                               "<use_parent_model_frame>true</use_parent_model_frame><xyz>1 0 0</xyz></axis></joint>"
                               "</model></world></sdf>";
    char versioned[512];
    snprintf(versioned, sizeof versioned, parent_frame, 6);
    REQUIRE_INT(read_string(versioned, true, false, &st, &d), ==, WK_OK);
    const wk_node *j = find(d, "m::j");
    REQUIRE(j);
    CHECK_STR(j->joint.axis[0].expressed_in, "__model__");
    wk_desc_free(d);
    snprintf(versioned, sizeof versioned, parent_frame, 7);
    CHECK_INT(read_string(versioned, true, false, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:2: unsupported element /sdf/world/model/joint/axis/use_parent_model_frame");
}

/* Children of inertials and of shapes are checked like any other element's:
 * an unknown one is reported with its path and line, or fails the read. */
static void shape_and_inertial_children(void)
{
    const char *text = WORLD("<model name='m'><link name='l'><inertial>\n<bogus/><inertia><ixx>1</ixx>\n<ixw>2</ixw>"
                             "</inertia></inertial>\n<collision name='c'><geometry><box><size>1 1 1</size>\n<radius>1</radius>"
                             "</box></geometry></collision>\n<visual name='v'><geometry>\n<mesh shiny='yes'>"
                             "<uri>x.dae</uri></mesh></geometry></visual>\n<visual name='w'><geometry><cylinder>"
                             "<radius>1</radius><length>2</length>\n<size>3</size></cylinder></geometry></visual>"
                             "</link></model>\n");
    static const char *const wanted[] = {
        "<string>:5: ignored unsupported element /sdf/world/model/link/inertial/bogus",
        "<string>:6: ignored unsupported element /sdf/world/model/link/inertial/inertia/ixw",
        "<string>:8: ignored unsupported element /sdf/world/model/link/collision/geometry/box/radius",
        "<string>:10: ignored unsupported attribute /sdf/world/model/link/visual/geometry/mesh@shiny",
        "<string>:10: ignored asset x.dae: not found",
        "<string>:12: ignored unsupported element /sdf/world/model/link/visual/geometry/cylinder/size",
    };
    wk_status st = {0};
    wk_world_desc *d = NULL;
    CHECK_INT(read_string(text, false, true, &st, &d), ==, WK_OK);
    REQUIRE(d);
    CHECK_INT(wk_desc_warning_count(d), ==, 6);
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (!CHECK(wk_desc_warning(d, i) && strstr(wk_desc_warning(d, i), wanted[i])))
            fprintf(stderr, "    warning %zu: %s\n    wanted: %s\n", i, wk_desc_warning(d, i), wanted[i]);
    wk_desc_free(d);
    CHECK_INT(read_string(text, true, true, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:5: unsupported element /sdf/world/model/link/inertial/bogus");
}

/* What SDFormat 1.10 and 1.11 added: read or accepted in their files,
 * reported in older ones. What worldkit keeps nothing of is reported in
 * every version: the fluid's added mass, a convex decomposition, an axis's
 * initial_position (1.8 and before), automatic inertia, an inertial pose's
 * relative_to. A first axis's mimic (1.11) is read, a second's is not. */
static void versions_1_10_and_1_11(void)
{
#define NEWER_PARTS                                                                                              \
    "<model name='m'><link name='a'><inertial auto='false'><mass>2</mass>\n<fluid_added_mass><xx>1</xx>"         \
    "</fluid_added_mass><density>900</density>\n<auto_inertia_params/></inertial>\n<collision name='c'>"         \
    "<density>800</density><geometry><mesh optimization='convex_hull'>\n<convex_decomposition/><uri>x.dae</uri>" \
    "</mesh></geometry></collision></link><link name='b'/>\n<joint name='j' type='revolute'><parent>a</parent>"  \
    "<child>b</child><axis><xyz>0 0 1</xyz>\n<mimic joint='k' axis='axis'><multiplier>2</multiplier>"           \
    "<offset>0.5</offset><reference>0.1</reference></mimic></axis></joint></model>"
    static const char *const added_in[] = {
        "<string>:3: ignored unsupported element /sdf/world/model/link/inertial/fluid_added_mass", /* 1.10 */
        "<string>:2: ignored unsupported attribute /sdf/world/model/link/inertial@auto",            /* 1.11 */
    };
    wk_status st = {0};
    wk_world_desc *d = NULL;
    CHECK_INT(read_string("<sdf version='1.11'><world name='w'>\n" NEWER_PARTS "</world></sdf>", true, true, &st, NULL), ==,
              WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:3: unsupported element /sdf/world/model/link/inertial/fluid_added_mass");
    CHECK_INT(read_string("<sdf version='1.11'><world name='w'>\n" NEWER_PARTS "</world></sdf>", false, true, &st, &d), ==,
              WK_OK);
    /* The missing mesh, ignored; the fluid's added mass and the convex
     * decomposition, which worldkit does not keep. */
    CHECK_INT(wk_desc_warning_count(d), ==, 3);
    /* 2 * (leader - 0.1) + 0.5 = 2 * leader + 0.3 */
    const wk_node *j = find(d, "m::j");
    REQUIRE(j);
    CHECK_STR(j->joint.mimic_joint, "k");
    CHECK_NEAR(j->joint.mimic_multiplier, 2, 0);
    CHECK_NEAR(j->joint.mimic_offset, 0.3, 1e-15);
    wk_desc_free(d);
    /* 1.9 and 1.10: 1.11's parts are reported too. */
    for (int minor = 9; minor <= 10; minor++) {
        char older[1024];
        snprintf(older, sizeof older, "<sdf version='1.%d'><world name='w'>\n" NEWER_PARTS "</world></sdf>", minor);
        CHECK_INT(read_string(older, false, true, &st, &d), ==, WK_OK);
        CHECK_INT(wk_desc_warning_count(d), ==, 1 + 8);
        CHECK(d && strstr(wk_desc_warning(d, 0), added_in[1]));
        CHECK(d && strstr(wk_desc_warning(d, 1), added_in[0]));
        wk_desc_free(d);
    }
#undef NEWER_PARTS
    const char *initial = "<model name='m'><link name='a'/><link name='b'/><joint name='j' type='revolute'>"
                          "<parent>a</parent><child>b</child><axis>\n<initial_position>1</initial_position>"
                          "</axis></joint></model>";
    char text[512];
    /* Not kept where 1.8 defines it, not defined from 1.9: reported either way. */
    snprintf(text, sizeof text, "<sdf version='1.8'><world name='w'>\n%s</world></sdf>", initial);
    CHECK_INT(read_string(text, true, true, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:3: unsupported element /sdf/world/model/joint/axis/initial_position");
    snprintf(text, sizeof text, "<sdf version='1.9'><world name='w'>\n%s</world></sdf>", initial);
    CHECK_INT(read_string(text, true, true, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:3: unsupported element /sdf/world/model/joint/axis/initial_position");
    const char *axis2 = "<sdf version='1.11'><world name='w'><model name='m'><link name='a'/><link name='b'/>"
                        "<joint name='j' type='universal'><parent>a</parent><child>b</child><axis2>\n"
                        "<mimic joint='k'/></axis2></joint></model></world></sdf>";
    CHECK_INT(read_string(axis2, true, true, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:2: unsupported element /sdf/world/model/joint/axis2/mimic");
    CHECK_INT(read_string(WORLD("<model name='m'><link name='a'><inertial auto='true'/></link></model>\n"), true, true,
                          &st, NULL),
              ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "inertial@auto");
    CHECK_INT(read_string(WORLD("<model name='m'><link name='a'><inertial>\n<pose relative_to='a'>1 0 0 0 0 0</pose>"
                                "</inertial></link></model>\n"),
                          true, true, &st, NULL),
              ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:5: unsupported attribute /sdf/world/model/link/inertial/pose@relative_to");
}

/* SDFormat 1.10 lets a world merge an included model that holds no link:
 * its nested models and frames become the world's, placed through the frame
 * _merged__convoy__model__ where the include puts the model, at (1 0 0)
 * turned 90 degrees about z (the file's own pose, 5 5 5, gives way). lead
 * is two along that frame's x, so at (1 2 0); tail one back along lead's x,
 * at (1 1 0); middle, a frame of the model, one along x, at (1 1 0); after,
 * a model of the world, one above lead. All keep the 90-degree turn. */
static void world_merge(void)
{
    REQUIRE(setenv("WORLDKIT_RESOURCE_PATH", WK_TEST_WORLDS "/models", 1) == 0);
    const char *text = "<sdf version='1.10'><world name='w'>\n<include merge='true'><uri>model://convoy</uri>"
                       "<pose>1 0 0 0 0 1.5707963267948966</pose></include>\n<model name='after'>"
                       "<pose relative_to='lead'>0 0 1 0 0 0</pose><link name='l'/></model></world></sdf>";
    wk_status st = {0};
    wk_world_desc *d = NULL;
    REQUIRE_INT(read_string(text, true, false, &st, &d), ==, WK_OK);
    static const struct {
        const char *name;
        double x, y, z;
    } wanted[] = {{"_merged__convoy__model__", 1, 0, 0}, {"lead", 1, 2, 0}, {"lead::body", 1, 2, 0},
                  {"tail", 1, 1, 0}, {"middle", 1, 1, 0}, {"after", 1, 2, 1}};
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        const wk_node *n = find(d, wanted[i].name);
        if (!CHECK(n))
            continue;
        CHECK_NEAR(n->world.p.x, wanted[i].x, 1e-12);
        CHECK_NEAR(n->world.p.y, wanted[i].y, 1e-12);
        CHECK_NEAR(n->world.p.z, wanted[i].z, 1e-12);
        CHECK(wk_quat_near(n->world.q, (wk_quat){sqrt(0.5), 0, 0, sqrt(0.5)}, 1e-12));
    }
    const wk_node *proxy = find(d, "_merged__convoy__model__");
    CHECK(proxy && proxy->kind == WK_NODE_FRAME && !strcmp(proxy->frame.attached_to, "lead"));
    CHECK(find(d, "convoy") == NULL);
    wk_desc_free(d);
    /* Before 1.10 only a model may merge; a model with links never merges
     * into a world. */
    const char *old = "<sdf version='1.9'><world name='w'>\n<include merge='true'><uri>model://convoy</uri>"
                      "</include></world></sdf>";
    CHECK_INT(read_string(old, true, false, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:2: unsupported attribute /sdf/world/include@merge");
    const char *links = "<sdf version='1.10'><world name='w'>\n<include merge='true'><uri>model://cart</uri>"
                        "</include></world></sdf>";
    CHECK_INT(read_string(links, true, false, &st, NULL), ==, WK_PARSE);
    check_message(&st, "<string>:2: <include>: a model merged into a world may hold no link");
}

/* SDFormat 1.10 brings joints back into worlds (1.4 to 1.6 had them). pin
 * is posed, by default, relative to its child m::l, which sits at the
 * world's origin turned 90 degrees about z (m at (1 0 0) turned so, l one
 * along m's y): half a unit up from there. */
static void world_joints(void)
{
    const char *text = "<sdf version='1.%d'><world name='w'><model name='m'><pose>1 0 0 0 0 1.5707963267948966</pose>"
                       "<link name='l'><pose>0 1 0 0 0 0</pose></link></model>\n<joint name='pin' type='revolute'>"
                       "<pose>0 0 0.5 0 0 0</pose><parent>world</parent><child>m::l</child></joint></world></sdf>";
    char versioned[512];
    snprintf(versioned, sizeof versioned, text, 10);
    wk_status st = {0};
    wk_world_desc *d = NULL;
    REQUIRE_INT(read_string(versioned, true, false, &st, &d), ==, WK_OK);
    const wk_node *pin = find(d, "pin");
    REQUIRE(pin);
    CHECK_INT(pin->kind, ==, WK_NODE_JOINT);
    CHECK_STR(pin->joint.parent, "world");
    CHECK_NEAR(pin->world.p.x, 0, 1e-12);
    CHECK_NEAR(pin->world.p.y, 0, 1e-12);
    CHECK_NEAR(pin->world.p.z, 0.5, 1e-12);
    CHECK(wk_quat_near(pin->world.q, (wk_quat){sqrt(0.5), 0, 0, sqrt(0.5)}, 1e-12));
    wk_desc_free(d);
    snprintf(versioned, sizeof versioned, text, 9);
    CHECK_INT(read_string(versioned, true, false, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:2: unsupported element /sdf/world/joint");
}

/* Every element read has its attributes checked against the version table:
 * an unknown one, a namespaced one (no version defines those) and one of a
 * later version (model@namespace came in 1.11) are reported. */
static void attributes_checked(void)
{
    const char *text = "<sdf version='1.%d'><world name='w'>\n<model name='m' bogus='1' namespace='n'>\n"
                       "<link name='l' xmlns:gz='http://gazebosim.org/schema' gz:color='red'/></model></world></sdf>";
    static const char *const wanted[] = {
        "<string>:2: ignored unsupported attribute /sdf/world/model@bogus",
        "<string>:2: ignored unsupported attribute /sdf/world/model@namespace",
        "<string>:3: ignored unsupported attribute /sdf/world/model/link@color",
    };
    char versioned[512];
    snprintf(versioned, sizeof versioned, text, 9);
    wk_status st = {0};
    wk_world_desc *d = NULL;
    REQUIRE_INT(read_string(versioned, false, false, &st, &d), ==, WK_OK);
    CHECK_INT(wk_desc_warning_count(d), ==, 3);
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (!CHECK(wk_desc_warning(d, i) && strstr(wk_desc_warning(d, i), wanted[i])))
            fprintf(stderr, "    warning %zu: %s\n    wanted: %s\n", i, wk_desc_warning(d, i), wanted[i]);
    wk_desc_free(d);
    snprintf(versioned, sizeof versioned, text, 11);
    REQUIRE_INT(read_string(versioned, false, false, &st, &d), ==, WK_OK);
    CHECK_INT(wk_desc_warning_count(d), ==, 2); /* namespace is 1.11's */
    wk_desc_free(d);
    CHECK_INT(read_string(versioned, true, false, &st, NULL), ==, WK_UNSUPPORTED_ELEMENTS);
    check_message(&st, "<string>:2: unsupported attribute /sdf/world/model@bogus");
}

static const wk_test_case cases[] = {
    {"versions", versions},
    {"known_but_not_kept", known_but_not_kept},
    {"versions_1_10_and_1_11", versions_1_10_and_1_11},
    {"world_merge", world_merge},
    {"world_joints", world_joints},
    {"attributes_checked", attributes_checked},
    {"shape_and_inertial_children", shape_and_inertial_children},
    {"plugins_and_sensors_kept", plugins_and_sensors_kept},
    {"physics", physics},
    {"no_resource", no_resource},
    {"unsupported_format", unsupported_format},
    {"parse_errors_name_line_and_element", parse_errors_name_line_and_element},
    {"frame_errors", frame_errors},
    {"joint_graph_errors", joint_graph_errors},
    {"negative_quantities", negative_quantities},
    {"pose_translation_limit", pose_translation_limit},
    {"unsupported_elements", unsupported_elements},
    {"assets", assets},
    {"doctype_refused", doctype_refused},
    {"levels_and_performers", levels_and_performers},
};
WK_TEST_MAIN(cases)
