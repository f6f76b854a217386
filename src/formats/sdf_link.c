/* sdf_link.c — the SDFormat reader's links and joints, and what links
 * hold: inertials, visuals and collisions with their geometry, sensors and
 * lights (kept whole); joints with their axes, limits and mimics. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/assets.h"
#include "formats/gazebo_materials.h"
#include "formats/sdf.h"

/* ---- geometry ---------------------------------------------------------- */

/* The children each shape may hold that worldkit reads or, being
 * appearance, accepts silently. Anything else, such as a mesh's
 * convex_decomposition or an <image> shape, is unsupported. */
static const struct shape_rule {
    const char *shape;
    const char *const *children;
} shape_rules[] = {
    {"box", NAMES("size")},
    {"sphere", NAMES("radius")},
    {"cylinder", NAMES("radius", "length")},
    {"capsule", NAMES("radius", "length")},
    {"ellipsoid", NAMES("radii")},
    {"plane", NAMES("normal", "size")},
    {"mesh", NAMES("uri", "submesh", "scale")},
    {"heightmap", NAMES("uri", "size", "texture", "blend")}, /* the last two appearance, accepted silently */
    {"polyline", NAMES("point", "height")},
    {"empty", NAMES(NULL)},
};

/* Checks a shape's children and attributes against its rule; unknown
 * shapes are unsupported. */
static int check_shape(sdf_reader *r, xmlNodePtr shape)
{
    const struct shape_rule *rule = shape_rules;
    const struct shape_rule *end = rule + sizeof shape_rules / sizeof shape_rules[0];
    while (rule < end && !wk__xml_is(shape, rule->shape))
        rule++;
    if (rule == end || wk__sdf_child_outside_version(r, shape->parent, rule->shape))
        return wk__sdf_unsupported(r, shape, NULL);
    int rc = wk__sdf_check_attrs(r, shape);
    return rc ? rc : wk__sdf_check_children(r, shape, rule->children);
}

/* One <polyline>: its points and height (1 m unless it says). */
static int read_polyline(sdf_reader *r, xmlNodePtr shape, wk_polyline *out)
{
    size_t n = 0;
    xmlNodePtr c;
    for (c = wk__xml_first(shape); c; c = wk__xml_next(c))
        n += wk__xml_is(c, "point");
    double *pts = wk__desc_alloc(r->d, (n ? n : 1) * 2 * sizeof *pts);
    if (!pts)
        return wk__sdf_nomem(r);
    *out = (wk_polyline){.points = pts, .height = 1};
    int rc = check_shape(r, shape);
    for (c = wk__xml_first(shape); rc == WK_OK && c; c = wk__xml_next(c)) {
        if (wk__xml_is(c, "point"))
            rc = wk__sdf_numbers(r, c, pts + 2 * out->point_count++, 2);
        else if (wk__xml_is(c, "height"))
            rc = wk__sdf_read_double(r, c, &out->height);
    }
    return rc;
}

/* A geometry of polylines (one_shape has checked that every child is
 * one): SDFormat allows several, one extruded outline each. */
static int read_polylines(sdf_reader *r, xmlNodePtr geometry, wk_geometry *g)
{
    size_t n = 0;
    for (xmlNodePtr c = wk__xml_first(geometry); c; c = wk__xml_next(c))
        n++;
    wk_polyline *lines = wk__desc_alloc(r->d, n * sizeof *lines);
    if (!lines)
        return wk__sdf_nomem(r);
    g->type = WK_GEOMETRY_POLYLINE;
    g->polylines = lines;
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(geometry); rc == WK_OK && c; c = wk__xml_next(c)) {
        wk_polyline *line = &lines[g->polyline_count++];
        if ((rc = read_polyline(r, c, line)) == WK_OK)
            g->length = fmax(g->length, line->height);
    }
    return rc;
}

/* True when a geometry holds one shape, or polylines only. */
static bool one_shape(xmlNodePtr shape)
{
    bool polylines = true;
    for (xmlNodePtr c = shape; c; c = wk__xml_next(c))
        polylines &= wk__xml_is(c, "polyline");
    return polylines || !wk__xml_next(shape);
}

static int read_geometry(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    xmlNodePtr shape = wk__xml_first(el);
    if (!shape)
        return WK_OK; /* an empty geometry */
    if (!one_shape(shape))
        return wk__sdf_fail(r, el, WK_PARSE, "holds more than one shape");
    wk_geometry g = {.scale = {1, 1, 1}, .normal = {0, 0, 1}};
    xmlNodePtr c;
    int rc = wk__xml_is(shape, "polyline") ? WK_OK : check_shape(r, shape);
    if (rc)
        return rc;
    const char *name = (const char *)shape->name;
    if (!strcmp(name, "box")) {
        g.type = WK_GEOMETRY_BOX;
        g.size = (wk_vec3){1, 1, 1};
        if ((c = wk__xml_child(shape, "size")))
            rc = wk__sdf_read_vec3(r, c, &g.size);
    } else if (!strcmp(name, "sphere")) {
        g.type = WK_GEOMETRY_SPHERE;
        g.radius = 1;
        if ((c = wk__xml_child(shape, "radius")))
            rc = wk__sdf_read_double(r, c, &g.radius);
    } else if (!strcmp(name, "cylinder") || !strcmp(name, "capsule")) {
        g.type = name[1] == 'y' ? WK_GEOMETRY_CYLINDER : WK_GEOMETRY_CAPSULE;
        g.radius = g.type == WK_GEOMETRY_CYLINDER ? 1 : 0.5;
        g.length = 1;
        if ((c = wk__xml_child(shape, "radius")))
            rc = wk__sdf_read_double(r, c, &g.radius);
        if (rc == WK_OK && (c = wk__xml_child(shape, "length")))
            rc = wk__sdf_read_double(r, c, &g.length);
    } else if (!strcmp(name, "ellipsoid")) {
        g.type = WK_GEOMETRY_ELLIPSOID;
        g.size = (wk_vec3){1, 1, 1};
        if ((c = wk__xml_child(shape, "radii")))
            rc = wk__sdf_read_vec3(r, c, &g.size);
    } else if (!strcmp(name, "plane")) {
        g.type = WK_GEOMETRY_PLANE;
        g.size = (wk_vec3){1, 1, 0};
        double xy[2];
        if ((c = wk__xml_child(shape, "normal")))
            rc = wk__sdf_read_vec3(r, c, &g.normal);
        if (rc == WK_OK && (c = wk__xml_child(shape, "size")) && (rc = wk__sdf_numbers(r, c, xy, 2)) == WK_OK)
            g.size = (wk_vec3){xy[0], xy[1], 0};
    } else if (!strcmp(name, "mesh") || !strcmp(name, "heightmap")) {
        g.type = name[0] == 'm' ? WK_GEOMETRY_MESH : WK_GEOMETRY_HEIGHTMAP;
        g.uri = wk__xml_text(r->d, wk__xml_child(shape, "uri"));
        if (!g.uri || !g.uri[0])
            return wk__sdf_fail(r, shape, WK_PARSE, "needs a <uri>");
        if ((c = wk__xml_child(shape, g.type == WK_GEOMETRY_MESH ? "scale" : "size")))
            rc = wk__sdf_read_vec3(r, c, g.type == WK_GEOMETRY_MESH ? &g.scale : &g.size);
        if (rc == WK_OK && (c = wk__xml_child(shape, "submesh")))
            g.submesh = wk__xml_text(r->d, wk__xml_child(c, "name"));
        if (rc == WK_OK)
            rc = wk__asset_resolve(r->d, r->opts, r->file, g.uri, g.type == WK_GEOMETRY_MESH, wk__xml_line(shape),
                                   &g.path, r->st);
    } else if (!strcmp(name, "polyline")) {
        rc = read_polylines(r, el, &g); /* each checked as it is read */
    } else {
        g.type = WK_GEOMETRY_NONE; /* empty, or an unsupported shape */
    }
    if (rc == WK_OK)
        wk__desc_at(r->d, node)->shape.geometry = g;
    return rc;
}

/* ---- links and what they hold ------------------------------------------ */

/* <inertial>: mass, pose and tensor. Automatic inertia (@auto, 1.11) is not
 * computed, so it is reported; the density and its parameters, which matter
 * to it alone, are not. The fluid's added mass is not kept: reported. */
static int check_inertial(sdf_reader *r, xmlNodePtr el)
{
    int rc = wk__sdf_check_attrs(r, el);
    const char *automatic = rc ? NULL : wk__sdf_version_attr(r, el, "auto");
    if (rc == WK_OK && automatic && (!strcmp(automatic, "true") || !strcmp(automatic, "1")))
        rc = wk__sdf_unsupported(r, el, "auto");
    xmlNodePtr inertia = wk__xml_child(el, "inertia");
    if (rc == WK_OK)
        rc = wk__sdf_check_children(
            r, el, NAMES("mass", "pose", "inertia", "density", "auto_inertia_params"));
    return rc || !inertia ? rc : wk__sdf_check_children(r, inertia, NAMES("ixx", "ixy", "ixz", "iyy", "iyz", "izz"));
}

static int read_inertial(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    wk_inertial in = {.present = true, .mass = 1, .pose = wk_pose_identity(), .ixx = 1, .iyy = 1, .izz = 1};
    xmlNodePtr c;
    int rc = check_inertial(r, el);
    if (rc == WK_OK && (c = wk__xml_child(el, "mass")))
        rc = wk__sdf_read_nonnegative(r, c, &in.mass);
    if (rc == WK_OK && (c = wk__xml_child(el, "pose"))) {
        /* Reuse the pose reader on a scratch node value. */
        wk_node *nd = wk__desc_at(r->d, node);
        wk_pose saved = nd->pose;
        const char *saved_rel = nd->relative_to;
        rc = wk__sdf_read_pose(r, c, node);
        nd = wk__desc_at(r->d, node);
        in.pose = nd->pose;
        bool relative = nd->relative_to != NULL;
        nd->pose = saved;
        nd->relative_to = saved_rel;
        /* An inertial's pose is in its link's frame (1.8 dropped relative_to here). */
        if (rc == WK_OK && relative)
            rc = wk__sdf_unsupported(r, c, "relative_to");
    }
    if (rc == WK_OK && (c = wk__xml_child(el, "inertia"))) {
        static const char *const names[] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
        double *slots[] = {&in.ixx, &in.ixy, &in.ixz, &in.iyy, &in.iyz, &in.izz};
        /* The diagonal (ixx, iyy, izz) cannot be negative. */
        for (int i = 0; rc == WK_OK && i < 6; i++) {
            xmlNodePtr v = wk__xml_child(c, names[i]);
            bool diagonal = i == 0 || i == 3 || i == 5;
            if (v)
                rc = diagonal ? wk__sdf_read_nonnegative(r, v, slots[i]) : wk__sdf_read_double(r, v, slots[i]);
        }
    }
    if (rc == WK_OK)
        wk__desc_at(r->d, node)->link.inertial = in;
    return rc;
}

/* A colour: red, green and blue, and alpha (1 when left out), as
 * libsdformat reads one. */
static int read_colour(sdf_reader *r, xmlNodePtr el, double *rgba)
{
    double v[4] = {0, 0, 0, 1};
    int n = wk__xml_numbers(el, v, 4);
    if (n < 3)
        return wk__sdf_fail(r, el, WK_PARSE, "expected 3 or 4 finite numbers (red green blue [alpha])");
    memcpy(rgba, v, sizeof v);
    return WK_OK;
}

/* A visual's colour is its material's diffuse colour, else its ambient
 * one, else the colour of the Gazebo material its script names (as Gazebo
 * draws it); the rest of a material (shaders, PBR maps, specular, emissive)
 * is appearance that worldkit does not hold. */
static int read_material(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    xmlNodePtr c = wk__xml_child(el, "diffuse");
    if (!c)
        c = wk__xml_child(el, "ambient");
    double rgba[4];
    int rc = WK_OK;
    if (c)
        rc = read_colour(r, c, rgba);
    else if (!wk__gazebo_material_colour(wk__xml_text(r->d, wk__xml_child(wk__xml_child(el, "script"), "name")), rgba))
        return WK_OK;
    if (rc == WK_OK) {
        wk_node *n = wk__desc_at(r->d, node);
        n->shape.has_colour = true;
        memcpy(n->shape.colour, rgba, sizeof rgba);
    }
    return rc;
}

/* A visual's appearance but its colour is accepted silently; its
 * laser_retro, which sensors see, is reported. */
static const child_rule visual_rules[] = {
    {"pose", wk__sdf_read_pose}, {"geometry", read_geometry},   {"plugin", wk__sdf_read_plugin},
    {"material", read_material}, {"cast_shadows", NULL},        {"transparency", NULL},
    {"visibility_flags", NULL},  {"meta", NULL},                {NULL, NULL},
};

/* A collision's <surface>: its friction's ode mu, the coefficient every
 * engine shares; the rest of a surface (bounce, contact, the second
 * direction's mu2, slips, torsional friction) is reported. A negative mu2
 * is refused all the same, as libsdformat, the reference, refuses it (its
 * surface.sdf gives mu2 a minimum of 0); contact's kp and kd have none
 * there, and libsdformat takes negative ones: so does worldkit. */
static int read_surface(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    xmlNodePtr friction, ode, mu, mu2;
    int rc = wk__sdf_check_children(r, el, NAMES("friction"));
    if (rc || !(friction = wk__xml_child(el, "friction")) || (rc = wk__sdf_check_children(r, friction, NAMES("ode"))) ||
        !(ode = wk__xml_child(friction, "ode")) || (rc = wk__sdf_check_children(r, ode, NAMES("mu"))))
        return rc;
    double value;
    if ((mu2 = wk__xml_child(ode, "mu2")) && (rc = wk__sdf_read_nonnegative(r, mu2, &value)))
        return rc;
    if (!(mu = wk__xml_child(ode, "mu")) || (rc = wk__sdf_read_nonnegative(r, mu, &value)))
        return rc;
    wk_node *n = wk__desc_at(r->d, node);
    n->shape.has_friction = true;
    n->shape.friction[0] = value;
    n->shape.friction[1] = 0.005;
    n->shape.friction[2] = 0.0001;
    return WK_OK;
}

/* A collision's density and auto_inertia_params (1.11) matter only to
 * automatic inertia, which is reported where its link asks for it. */
static const child_rule collision_rules[] = {
    {"pose", wk__sdf_read_pose}, {"geometry", read_geometry},           {"surface", read_surface},
    {"density", NULL},           {"auto_inertia_params", NULL},         {NULL, NULL},
};

static int read_shape(sdf_reader *r, xmlNodePtr el, uint32_t link, wk_node_kind kind, const child_rule *rules)
{
    uint32_t node;
    int rc = wk__sdf_add_named(r, el, link, kind, &node);
    return rc ? rc : wk__sdf_read_children(r, el, node, rules);
}

static int read_visual(sdf_reader *r, xmlNodePtr el, uint32_t link)
{
    return read_shape(r, el, link, WK_NODE_VISUAL, visual_rules);
}

static int read_collision(sdf_reader *r, xmlNodePtr el, uint32_t link)
{
    return read_shape(r, el, link, WK_NODE_COLLISION, collision_rules);
}

/* Sensors and lights keep their pose, type and plugins; the whole element
 * is kept too, for later layers to read what worldkit does not. */
static int read_update_rate(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    return wk__sdf_read_double(r, el, &wk__desc_at(r->d, node)->sensor.update_rate);
}

static int read_typed(sdf_reader *r, xmlNodePtr el, uint32_t parent, wk_node_kind kind)
{
    uint32_t node;
    int rc = wk__sdf_add_named(r, el, parent, kind, &node);
    if (rc)
        return rc;
    const char *type = wk__xml_attr(r->d, el, "type"), *xml = wk__xml_dump(r->d, el);
    if (!xml)
        return wk__sdf_nomem(r);
    wk_node *n = wk__desc_at(r->d, node);
    if (kind == WK_NODE_SENSOR)
        n->sensor.type = type, n->sensor.xml = xml;
    else
        n->light.type = type, n->light.xml = xml;
    for (xmlNodePtr c = wk__xml_first(el); rc == WK_OK && c; c = wk__xml_next(c)) {
        if (wk__xml_is(c, "pose"))
            rc = wk__sdf_read_pose(r, c, node);
        else if (wk__xml_is(c, "plugin"))
            rc = wk__sdf_read_plugin(r, c, node);
        else if (kind == WK_NODE_SENSOR && wk__xml_is(c, "update_rate"))
            rc = read_update_rate(r, c, node);
    }
    return rc;
}

static int read_sensor(sdf_reader *r, xmlNodePtr el, uint32_t parent)
{
    return read_typed(r, el, parent, WK_NODE_SENSOR);
}

int wk__sdf_read_light(sdf_reader *r, xmlNodePtr el, uint32_t parent)
{
    return read_typed(r, el, parent, WK_NODE_LIGHT);
}

static const child_rule link_rules[] = {
    {"pose", wk__sdf_read_pose},         {"inertial", read_inertial},  {"visual", read_visual},
    {"collision", read_collision}, {"sensor", read_sensor},    {"light", wk__sdf_read_light},
    {NULL, NULL},
};

int wk__sdf_read_link(sdf_reader *r, xmlNodePtr el, uint32_t model)
{
    uint32_t node;
    int rc = wk__sdf_add_named(r, el, model, WK_NODE_LINK, &node);
    return rc ? rc : wk__sdf_read_children(r, el, node, link_rules);
}

/* ---- joints ------------------------------------------------------------ */

static const struct {
    const char *name;
    wk_joint_type type;
} joint_types[] = {
    {"fixed", WK_JOINT_FIXED},         {"revolute", WK_JOINT_REVOLUTE},   {"continuous", WK_JOINT_CONTINUOUS},
    {"prismatic", WK_JOINT_PRISMATIC}, {"ball", WK_JOINT_BALL},           {"universal", WK_JOINT_UNIVERSAL},
    {"screw", WK_JOINT_SCREW},         {"revolute2", WK_JOINT_REVOLUTE2}, {"gearbox", WK_JOINT_GEARBOX},
};

static int read_axis_into(sdf_reader *r, xmlNodePtr el, wk_joint_axis *axis)
{
    *axis = (wk_joint_axis){.present = true, .xyz = {0, 0, 1}, .lower = -INFINITY, .upper = INFINITY,
                            .effort = INFINITY, .velocity = INFINITY};
    xmlNodePtr c, lim;
    /* The mimic (1.11) is read by the joint. A limit's stiffness and
     * dissipation and an initial_position are not kept, so they are
     * reported. */
    int rc = wk__sdf_check_children(r, el, NAMES("xyz", "limit", "dynamics", "mimic", "use_parent_model_frame"));
    /* use_parent_model_frame (1.5 and 1.6) true says what 1.7's expressed_in="__model__" says. */
    bool in_model = false;
    if (rc == WK_OK && (c = wk__xml_child(el, "use_parent_model_frame")) &&
        !wk__sdf_child_outside_version(r, el, "use_parent_model_frame"))
        rc = wk__sdf_read_bool(r, c, &in_model);
    axis->expressed_in = in_model ? "__model__" : NULL;
    if (rc == WK_OK && (c = wk__xml_child(el, "xyz"))) {
        if ((rc = wk__sdf_check_attrs(r, c)))
            return rc;
        const char *in = wk__sdf_version_attr(r, c, "expressed_in");
        if (in && in[0])
            axis->expressed_in = in;
        if ((rc = wk__sdf_read_vec3(r, c, &axis->xyz)) == WK_OK && wk_vec3_norm(axis->xyz) == 0)
            return wk__sdf_fail(r, c, WK_PARSE, "the axis is zero");
        if (rc == WK_OK)
            axis->xyz = wk_vec3_scale(axis->xyz, 1 / wk_vec3_norm(axis->xyz));
    }
    if (rc == WK_OK && (lim = wk__xml_child(el, "limit"))) {
        static const char *const names[] = {"lower", "upper", "effort", "velocity", NULL};
        double *slots[] = {&axis->lower, &axis->upper, &axis->effort, &axis->velocity};
        rc = wk__sdf_check_children(r, lim, names);
        for (int i = 0; rc == WK_OK && i < 4; i++)
            if ((c = wk__xml_child(lim, names[i])))
                rc = wk__sdf_read_bound(r, c, slots[i]);
    }
    if (rc == WK_OK && (lim = wk__xml_child(el, "dynamics")) &&
        (rc = wk__sdf_check_children(r, lim, NAMES("damping", "friction", "spring_stiffness", "spring_reference"))) ==
            WK_OK) {
        if ((c = wk__xml_child(lim, "damping")))
            rc = wk__sdf_read_double(r, c, &axis->damping);
        if (rc == WK_OK && (c = wk__xml_child(lim, "friction")))
            rc = wk__sdf_read_nonnegative(r, c, &axis->friction);
        if (rc == WK_OK && (c = wk__xml_child(lim, "spring_stiffness")))
            rc = wk__sdf_read_nonnegative(r, c, &axis->spring_stiffness);
        if (rc == WK_OK && (c = wk__xml_child(lim, "spring_reference")))
            rc = wk__sdf_read_double(r, c, &axis->spring_reference);
    }
    return rc;
}

/* <mimic> (1.11) of a joint's first axis: follower = multiplier * (leader -
 * reference) + offset, kept in URDF's form, multiplier * leader + offset.
 * worldkit's joints follow their leader's first axis only. */
static int read_mimic(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    int rc = wk__sdf_check_attrs(r, el);
    rc = rc ? rc : wk__sdf_check_children(r, el, NAMES("multiplier", "offset", "reference"));
    const char *leader = rc ? NULL : wk__xml_attr(r->d, el, "joint");
    const char *axis = rc ? NULL : wk__xml_attr(r->d, el, "axis");
    if (rc)
        return rc;
    if (!leader || !leader[0])
        return wk__sdf_fail(r, el, WK_PARSE, "missing the joint attribute");
    if (axis && strcmp(axis, "axis"))
        return strcmp(axis, "axis2") ? wk__sdf_fail(r, el, WK_PARSE, "axis must be axis or axis2")
                                     : wk__sdf_unsupported(r, el, "axis");
    static const char *const names[] = {"multiplier", "offset", "reference"};
    double v[3] = {1, 0, 0};
    for (int i = 0; rc == WK_OK && i < 3; i++) {
        xmlNodePtr c = wk__xml_child(el, names[i]);
        if (c)
            rc = wk__sdf_read_double(r, c, &v[i]);
    }
    if (rc == WK_OK) {
        wk_node *j = wk__desc_at(r->d, node);
        j->joint.mimic_joint = leader;
        j->joint.mimic_multiplier = v[0];
        j->joint.mimic_offset = v[1] - v[0] * v[2];
    }
    return rc;
}

static int read_axis(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    int rc = read_axis_into(r, el, &wk__desc_at(r->d, node)->joint.axis[0]);
    xmlNodePtr mimic = rc ? NULL : wk__xml_child(el, "mimic");
    return mimic && !wk__sdf_child_outside_version(r, el, "mimic") ? read_mimic(r, mimic, node) : rc;
}

/* A second axis that mimics is unsupported: see read_mimic. */
static int read_axis2(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    int rc = read_axis_into(r, el, &wk__desc_at(r->d, node)->joint.axis[1]);
    xmlNodePtr mimic = rc ? NULL : wk__xml_child(el, "mimic");
    return mimic && !wk__sdf_child_outside_version(r, el, "mimic") ? wk__sdf_unsupported(r, mimic, NULL) : rc;
}

static int read_joint_parent(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    const char *t = wk__xml_text(r->d, el);
    return t ? (wk__desc_at(r->d, node)->joint.parent = t, WK_OK) : wk__sdf_nomem(r);
}

static int read_joint_child(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    const char *t = wk__xml_text(r->d, el);
    return t ? (wk__desc_at(r->d, node)->joint.child = t, WK_OK) : wk__sdf_nomem(r);
}

static const child_rule joint_rules[] = {
    {"pose", wk__sdf_read_pose},    {"parent", read_joint_parent}, {"child", read_joint_child}, {"axis", read_axis},
    {"axis2", read_axis2},  {"sensor", read_sensor},       {NULL, NULL},
};

int wk__sdf_read_joint(sdf_reader *r, xmlNodePtr el, uint32_t model)
{
    uint32_t node;
    int rc = wk__sdf_add_named(r, el, model, WK_NODE_JOINT, &node);
    if (rc)
        return rc;
    const char *type = wk__xml_attr(r->d, el, "type");
    size_t i = 0;
    while (type && i < sizeof joint_types / sizeof joint_types[0] && strcmp(type, joint_types[i].name))
        i++;
    if (!type || i == sizeof joint_types / sizeof joint_types[0])
        return wk__sdf_fail(r, el, WK_PARSE, "type must be one of fixed, revolute, continuous, prismatic, ball, "
                                     "universal, screw, revolute2, gearbox");
    wk__desc_at(r->d, node)->joint.type = joint_types[i].type;
    if ((rc = wk__sdf_read_children(r, el, node, joint_rules)))
        return rc;
    const wk_node *j = wk__desc_at(r->d, node);
    if (!j->joint.parent || !j->joint.child)
        return wk__sdf_fail(r, el, WK_PARSE, "needs a <parent> and a <child>");
    return WK_OK;
}
