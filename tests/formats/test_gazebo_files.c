/* test_gazebo_files.c — what Gazebo's and SDFormat's own files write that
 * worldkit refused, read as libsdformat reads it: comments holding "--",
 * joint limits written inf and -inf, several polylines in one geometry,
 * meshes on a model server, the flattened models of SDFormat 1.7, and
 * visuals coloured by Gazebo's named material scripts. The
 * poses of tests/formats/worlds/ (comments.sdf, joint_limits_inf.sdf,
 * polylines.sdf, remote_meshes.sdf, flattened.sdf, shapes_to_joint.sdf,
 * root_placement.sdf, placement_include.sdf) are checked against
 * libsdformat by the oracle test; here, the values and what stays refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/find_node.h"
#include "worldkit/wk_formats.h"
#include "wk_test.h"

static int read_string(const char *text, bool ignore_assets, wk_status *st, wk_world_desc **out)
{
    wk_world_desc *d = NULL;
    int rc = wk_desc_read(&(wk_read_desc){.resource_string = text, .ignore_missing_or_unsupported_assets = ignore_assets},
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

static void comments_as_tinyxml2_reads_them(void)
{
    wk_status st = {0};
    wk_world_desc *d = NULL;
    /* "--" inside, and "--->" at the end, as tinyxml2 accepts them; the
     * text of a CDATA section that looks like such a comment is no comment
     * and keeps its hyphens. */
    const char *accepted = WORLD(
        "<!-- start with --levels -->\n<!-- ends on a hyphen --->\n"
        "<model name='m'><link name='l'/><!----><plugin name='p' filename='f'><![CDATA[<!-- a -- b -->]]></plugin>"
        "</model>\n");
    REQUIRE_INT(read_string(accepted, false, &st, &d), ==, WK_OK);
    const wk_node *m = find(d, "m");
    REQUIRE(m && m->plugin_count == 1);
    CHECK(strstr(m->plugins[0].xml, "&lt;!-- a -- b --&gt;") != NULL);
    wk_desc_free(d);
    /* What tinyxml2 refuses stays refused: a comment never closed, and a
     * DOCTYPE whatever its comments hold. */
    CHECK_INT(read_string(WORLD("<!-- never closed -- \n<model name='m'><link name='l'/></model>\n"), false, &st, NULL),
              ==, WK_PARSE);
    CHECK_INT(read_string("<?xml version='1.0'?>\n<!DOCTYPE sdf [<!-- a -- b -->]>\n"
                          "<sdf version='1.9'><world name='w'/></sdf>",
                          false, &st, NULL),
              ==, WK_PARSE);
    CHECK_INT(read_string(WORLD("<model name='m'><link name='l'/></model><a b='-->'>\n"), false, &st, NULL), ==,
              WK_PARSE);
}

#define LIMITS(lower, upper)                                                                                 \
    WORLD("<model name='m'><link name='a'/><link name='b'/>\n<joint name='j' type='prismatic'>"              \
          "<parent>a</parent><child>b</child>\n<axis><limit><lower>" lower "</lower><upper>" upper "</upper>" \
          "<effort>inf</effort></limit></axis></joint></model>\n")

static void infinite_joint_limits(void)
{
    wk_status st = {0};
    wk_world_desc *d = NULL;
    REQUIRE_INT(read_string(LIMITS("-inf", "Infinity"), false, &st, &d), ==, WK_OK);
    const wk_node *j = find(d, "m::j");
    REQUIRE(j);
    CHECK(isinf(j->joint.axis[0].lower) && j->joint.axis[0].lower < 0);
    CHECK(isinf(j->joint.axis[0].upper) && j->joint.axis[0].upper > 0);
    CHECK(isinf(j->joint.axis[0].effort));
    wk_desc_free(d);
    /* Not a number, and a number too large for a double (which libsdformat
     * calls out of range), are refused, naming the element. */
    CHECK_INT(read_string(LIMITS("nan", "1"), false, &st, NULL), ==, WK_PARSE);
    check_message(&st, "<string>:6: <lower>: expected a number, inf or -inf");
    CHECK_INT(read_string(LIMITS("-1", "1e400"), false, &st, NULL), ==, WK_PARSE);
    check_message(&st, "<upper>: expected a number, inf or -inf");
    /* Elsewhere an infinity is no more a number than before. */
    CHECK_INT(read_string(WORLD("<model name='m'><pose>inf 0 0 0 0 0</pose><link name='l'/></model>"), false, &st,
                          NULL),
              ==, WK_PARSE);
}

static void several_polylines(void)
{
    wk_status st = {0};
    wk_world_desc *d = NULL;
    REQUIRE_INT(read_string(WORLD("<model name='m'><link name='l'><collision name='c'><geometry>\n"
                                  "<polyline><point>0 0</point><point>1 0</point><point>1 1</point>"
                                  "<height>0.5</height></polyline>\n"
                                  "<polyline><point>2 2</point><point>3 2</point></polyline>\n"
                                  "</geometry></collision></link></model>"),
                            false, &st, &d),
                ==, WK_OK);
    const wk_node *c = find(d, "m::l::c");
    REQUIRE(c);
    const wk_geometry *g = &c->shape.geometry;
    CHECK_INT(g->type, ==, WK_GEOMETRY_POLYLINE);
    REQUIRE_INT(g->polyline_count, ==, 2);
    CHECK_INT(g->polylines[0].point_count, ==, 3);
    CHECK_NEAR(g->polylines[0].points[5], 1, 0);
    CHECK_NEAR(g->polylines[0].height, 0.5, 0);
    CHECK_INT(g->polylines[1].point_count, ==, 2);
    CHECK_NEAR(g->polylines[1].points[2], 3, 0);
    CHECK_NEAR(g->polylines[1].height, 1, 0); /* SDFormat's default */
    CHECK_NEAR(g->length, 1, 0);              /* the tallest */
    wk_desc_free(d);
    /* Polylines are the one shape a geometry may hold several of. */
    CHECK_INT(read_string(WORLD("<model name='m'><link name='l'><visual name='v'><geometry>\n"
                                "<polyline><point>0 0</point></polyline><box/></geometry></visual></link></model>"),
                          false, &st, NULL),
              ==, WK_PARSE);
    check_message(&st, "<string>:4: <geometry>: holds more than one shape");
}

static void meshes_on_a_model_server(void)
{
    const char *text = WORLD("<model name='m'><link name='l'><visual name='v'><geometry><mesh>\n"
                             "<uri>https://fuel.gazebosim.org/1.0/someone/models/m/tip/files/meshes/m.dae</uri>"
                             "</mesh></geometry></visual></link></model>");
    wk_status st = {0};
    wk_world_desc *d = NULL;
    REQUIRE_INT(read_string(text, true, &st, &d), ==, WK_OK);
    REQUIRE_INT(wk_desc_warning_count(d), ==, 1);
    CHECK(strstr(wk_desc_warning(d, 0), "<string>:4: ignored asset https://fuel") != NULL);
    CHECK(strstr(wk_desc_warning(d, 0), "remote URIs are not fetched") != NULL);
    const wk_node *v = find(d, "m::l::v");
    CHECK(v && v->shape.geometry.path == NULL);
    wk_desc_free(d);
    CHECK_INT(read_string(text, false, &st, NULL), ==, WK_UNSUPPORTED_ASSETS);
}

static void flattened_models_nested(void)
{
    wk_status st = {0};
    wk_world_desc *d = NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/flattened.sdf", WK_TEST_WORLDS);
    REQUIRE_INT(wk_desc_read(&(wk_read_desc){.uri = path}, &d, &st), ==, WK_OK);
    const wk_node *inner = find(d, "outer::inner");
    REQUIRE(inner);
    CHECK_INT(inner->kind, ==, WK_NODE_MODEL);
    CHECK_STR(inner->model.canonical_link, "hub");
    const wk_node *spin = find(d, "outer::inner::spin"), *mount = find(d, "outer::mount");
    REQUIRE(spin && mount);
    CHECK_STR(spin->joint.parent, "hub");
    CHECK_STR(spin->joint.axis[0].expressed_in, "__model__");
    CHECK_STR(mount->joint.child, "inner::hub"); /* from outside, through the nested model */
    CHECK(find(d, "outer::inner::__model__") == NULL);
    wk_desc_free(d);
    /* From SDFormat 1.8, `::` in a name is no scope to unflatten. */
    const char *newer = "<sdf version='1.8'><model name='m'><link name='a::b'/></model></sdf>";
    CHECK_INT(read_string(newer, false, &st, &d), ==, WK_OK);
    CHECK(d && find(d, "m::a::b") && wk_desc_node(d, 1)->first_child != WK_NO_NODE);
    wk_desc_free(d);
}

/* A visual whose material names one of Gazebo's scripts and gives no colour
 * takes the diffuse colour Gazebo's gazebo.material gives that name (the
 * numbers below are that file's); its own <diffuse> wins; a textured or
 * unknown name gives none. */
static void gazebo_material_scripts(void)
{
    static const struct {
        const char *visual;
        double rgba[4];
    } coloured[] = {
        {"red::body::visual", {1, 0, 0, 1}},
        {"turquoise::body::visual", {0, 1, 1, 1}},
        {"orange::body::visual", {1, 0.5088, 0.0468, 1}},
        {"own_diffuse::body::visual", {0.2, 0.3, 0.9, 1}},
    };
    wk_status st = {0};
    wk_world_desc *d = NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/materials/gazebo_scripts.sdf", WK_TEST_WORLDS);
    REQUIRE_INT(wk_desc_read(&(wk_read_desc){.uri = path}, &d, &st), ==, WK_OK);
    for (size_t i = 0; i < sizeof coloured / sizeof coloured[0]; i++) {
        const wk_node *v = find(d, coloured[i].visual);
        if (!CHECK(v && v->shape.has_colour))
            continue;
        for (int k = 0; k < 4; k++)
            CHECK_NEAR(v->shape.colour[k], coloured[i].rgba[k], 1e-12);
    }
    const wk_node *wood = find(d, "wood::body::visual"), *unknown = find(d, "unknown::body::visual");
    CHECK(wood && !wood->shape.has_colour);
    CHECK(unknown && !unknown->shape.has_colour);
    wk_desc_free(d);
}

static const wk_test_case cases[] = {
    {"comments_as_tinyxml2_reads_them", comments_as_tinyxml2_reads_them},
    {"infinite_joint_limits", infinite_joint_limits},
    {"several_polylines", several_polylines},
    {"meshes_on_a_model_server", meshes_on_a_model_server},
    {"flattened_models_nested", flattened_models_nested},
    {"gazebo_material_scripts", gazebo_material_scripts},
};
WK_TEST_MAIN(cases)
