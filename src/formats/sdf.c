/* sdf.c — the SDFormat reader (versions 1.4 to 1.11) into a description.
 *
 * One function per element kind reads the element's attributes and the
 * children it understands; a table per kind lists the children it knows but
 * keeps no data from (they are defined by the specification and change
 * nothing worldkit models), so that anything else is reported as an
 * unsupported element: a warning, or WK_UNSUPPORTED_ELEMENTS when the caller
 * asked to fail on them. What the file's version does not define is
 * unsupported too: sdf_spec_table.c, generated from the specification's
 * description files, says which versions define each element and
 * attribute. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/assets.h"
#include "formats/sdf_spec.h"
#include "formats/xml.h"

typedef struct sdf_reader {
    wk_world_desc *d;
    const wk_read_desc *opts;
    wk_status *st;
    const char *file; /* in the arena; NULL for a string */
    int minor;        /* 1.minor */
    int include_depth;
} sdf_reader;

typedef int (*child_fn)(sdf_reader *r, xmlNodePtr el, uint32_t node);

typedef struct child_rule {
    const char *name;
    child_fn read; /* NULL: known, nothing to keep */
} child_rule;

static const char *where(const sdf_reader *r)
{
    return r->file ? r->file : "<string>";
}

static int fail(sdf_reader *r, xmlNodePtr el, int code, const char *what)
{
    return wk_fail(r->st, code, "%s:%u: <%s>: %s", where(r), wk__xml_line(el), (const char *)el->name, what);
}

static int nomem(sdf_reader *r)
{
    return wk_fail(r->st, WK_NOMEM, "out of memory reading %s", where(r));
}

/* Reports an element or attribute worldkit does not read. */
static int unsupported(sdf_reader *r, xmlNodePtr el, const char *attr)
{
    return wk__xml_unsupported(r->d, r->opts, r->file, el, attr, r->st);
}

static int by_key(const void *key, const void *entry)
{
    const wk__sdf_spec_entry *a = key, *b = entry;
    int c = strcmp(a->parent, b->parent);
    return c ? c : strcmp(a->child, b->child);
}

/* True when the specification defines child (an element's name, or an
 * attribute's as "@name") in an element named parent, but not in the file's
 * version: it is then unsupported, reported and ignored as that version's
 * reader would. What no version defines is left to the rules of the
 * element holding it. */
static bool outside_version(const sdf_reader *r, const char *parent, const char *child)
{
    const wk__sdf_spec_entry key = {parent, child, 0};
    const wk__sdf_spec_entry *e = bsearch(&key, wk__sdf_spec, wk__sdf_spec_count, sizeof *e, by_key);
    return e && !((e->versions >> (r->minor - WK_SDF_SPEC_FIRST_MINOR)) & 1u);
}

static bool child_outside_version(const sdf_reader *r, xmlNodePtr parent, const char *child)
{
    return outside_version(r, (const char *)parent->name, child);
}

/* An attribute the file's version defines; NULL (reported) otherwise, and
 * NULL when absent. *rc gets a failure to report. */
static const char *version_attr(sdf_reader *r, xmlNodePtr el, const char *name, int *rc)
{
    const char *value = wk__xml_attr(r->d, el, name);
    char key[64];
    snprintf(key, sizeof key, "@%s", name);
    if (value && outside_version(r, (const char *)el->name, key)) {
        *rc = wk__xml_unsupported(r->d, r->opts, r->file, el, name, r->st);
        return NULL;
    }
    return value;
}

/* Reads el's children by the rules; anything else is unsupported. */
static int read_children(sdf_reader *r, xmlNodePtr el, uint32_t node, const child_rule *rules)
{
    for (xmlNodePtr c = wk__xml_first(el); c; c = wk__xml_next(c)) {
        const child_rule *rule = rules;
        while (rule->name && !wk__xml_is(c, rule->name))
            rule++;
        int rc = !rule->name || child_outside_version(r, el, rule->name) ? unsupported(r, c, NULL)
                 : rule->read                         ? rule->read(r, c, node)
                                                      : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

/* A NULL-terminated list of names, for check_children and check_attrs. */
#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Reports each child of el that known (NULL-terminated) does not name or
 * that the file's version does not define. */
static int check_children(sdf_reader *r, xmlNodePtr el, const char *const *known)
{
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(el); rc == WK_OK && c; c = wk__xml_next(c)) {
        const char *const *k = known;
        while (*k && !wk__xml_is(c, *k))
            k++;
        if (!*k || child_outside_version(r, el, *k))
            rc = unsupported(r, c, NULL);
    }
    return rc;
}

/* Checks that el has no attributes but the allowed ones. */
static int check_attrs(sdf_reader *r, xmlNodePtr el, const char *const *allowed)
{
    for (xmlAttrPtr a = el->properties; a; a = a->next) {
        const char *const *ok = allowed;
        while (*ok && strcmp(*ok, (const char *)a->name) != 0)
            ok++;
        if (!*ok) {
            int rc = unsupported(r, el, (const char *)a->name);
            if (rc)
                return rc;
        }
    }
    return WK_OK;
}

static int numbers(sdf_reader *r, xmlNodePtr el, double *out, int want)
{
    if (wk__xml_numbers(el, out, want) != want) {
        char what[64];
        snprintf(what, sizeof what, "expected %d finite number%s", want, want > 1 ? "s" : "");
        return fail(r, el, WK_PARSE, what);
    }
    return WK_OK;
}

static int read_double(sdf_reader *r, xmlNodePtr el, double *out)
{
    return numbers(r, el, out, 1);
}

static int read_vec3(sdf_reader *r, xmlNodePtr el, wk_vec3 *out)
{
    double v[3];
    int rc = numbers(r, el, v, 3);
    if (rc == WK_OK)
        *out = (wk_vec3){v[0], v[1], v[2]};
    return rc;
}

static int read_bool(sdf_reader *r, xmlNodePtr el, bool *out)
{
    const char *t = wk__xml_text(r->d, el);
    if (!t)
        return nomem(r);
    if (!strcmp(t, "true") || !strcmp(t, "1"))
        *out = true;
    else if (!strcmp(t, "false") || !strcmp(t, "0"))
        *out = false;
    else
        return fail(r, el, WK_PARSE, "expected true, false, 1 or 0");
    return WK_OK;
}

/* <pose> with @relative_to (@frame in 1.5 and 1.6), @degrees and
 * @rotation_format: six numbers x y z roll pitch yaw, or seven x y z qx qy qz qw. */
static int read_pose(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    static const char *const attrs[] = {"relative_to", "frame", "degrees", "rotation_format", NULL};
    int rc = check_attrs(r, el, attrs);
    const char *format = rc ? NULL : version_attr(r, el, "rotation_format", &rc);
    const char *degrees = rc ? NULL : version_attr(r, el, "degrees", &rc);
    /* @frame (1.5 and 1.6) became @relative_to in 1.7. */
    const char *rel = rc ? NULL : version_attr(r, el, "relative_to", &rc);
    const char *frame = rc ? NULL : version_attr(r, el, "frame", &rc);
    if (rc)
        return rc;
    bool quat = format && !strcmp(format, "quat_xyzw");
    if (format && !quat && strcmp(format, "euler_rpy"))
        return fail(r, el, WK_PARSE, "rotation_format must be euler_rpy or quat_xyzw");
    double v[7] = {0};
    int n = wk__xml_numbers(el, v, 7);
    if (n != 0 && n != (quat ? 7 : 6))
        return fail(r, el, WK_PARSE, quat ? "expected 7 numbers: x y z qx qy qz qw" : "expected 6 numbers: x y z roll pitch yaw");
    wk_pose pose = {{v[0], v[1], v[2]}, wk_quat_identity()};
    if (quat && n) {
        if (wk_quat_normalize((wk_quat){v[6], v[3], v[4], v[5]}, &pose.q))
            return fail(r, el, WK_PARSE, "the quaternion is zero");
    } else if (n) {
        double k = degrees && !strcmp(degrees, "true") ? acos(-1.0) / 180.0 : 1.0;
        pose.q = wk_quat_from_rpy(v[3] * k, v[4] * k, v[5] * k);
    }
    rel = rel ? rel : frame;
    wk_node *nd = wk__desc_at(r->d, node);
    nd->pose = pose;
    nd->relative_to = rel && rel[0] ? rel : NULL;
    return WK_OK;
}

/* Adds a child node for el, named by its @name (required). */
static int add_named(sdf_reader *r, xmlNodePtr el, uint32_t parent, wk_node_kind kind, uint32_t *out)
{
    const char *name = wk__xml_attr(r->d, el, "name");
    if (!name || !name[0])
        return fail(r, el, WK_PARSE, "missing the name attribute");
    *out = wk__desc_add(r->d, kind, parent, name, r->file, wk__xml_line(el));
    return *out == WK_NO_NODE ? nomem(r) : WK_OK;
}

/* <plugin>: kept whole on its node, for the systems that will load it. */
static int read_plugin(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    wk_plugin p = {wk__xml_attr(r->d, el, "name"), wk__xml_attr(r->d, el, "filename"), wk__xml_dump(r->d, el)};
    const wk_node *n = wk__desc_at(r->d, node);
    wk_plugin *list = wk__desc_alloc(r->d, (n->plugin_count + 1) * sizeof *list);
    if (!p.xml || !list)
        return nomem(r);
    for (size_t i = 0; i < n->plugin_count; i++)
        list[i] = n->plugins[i];
    list[n->plugin_count] = p;
    wk_node *m = wk__desc_at(r->d, node);
    m->plugins = list;
    m->plugin_count++;
    return WK_OK;
}

/* ---- geometry ---------------------------------------------------------- */

/* What each shape may hold: the children and attributes the specification
 * defines (in some version) and worldkit reads or knowingly keeps nothing
 * from. Anything else is unsupported. */
static const struct shape_rule {
    const char *shape;
    const char *const *children, *const *attrs;
} shape_rules[] = {
    {"box", NAMES("size"), NAMES(NULL)},
    {"sphere", NAMES("radius"), NAMES(NULL)},
    {"cylinder", NAMES("radius", "length"), NAMES(NULL)},
    {"capsule", NAMES("radius", "length"), NAMES(NULL)},
    {"ellipsoid", NAMES("radii"), NAMES(NULL)},
    {"plane", NAMES("normal", "size"), NAMES(NULL)},
    {"mesh", NAMES("uri", "submesh", "scale", "convex_decomposition"), NAMES("optimization")},
    {"heightmap", NAMES("uri", "size", "pos", "texture", "blend", "use_terrain_paging", "sampling"), NAMES(NULL)},
    {"polyline", NAMES("point", "height"), NAMES(NULL)},
    {"image", NAMES("uri", "scale", "threshold", "height", "granularity"), NAMES(NULL)},
    {"empty", NAMES(NULL), NAMES(NULL)},
};

/* Checks a shape's children and attributes against its rule; unknown
 * shapes are unsupported. */
static int check_shape(sdf_reader *r, xmlNodePtr shape)
{
    const struct shape_rule *rule = shape_rules;
    const struct shape_rule *end = rule + sizeof shape_rules / sizeof shape_rules[0];
    while (rule < end && !wk__xml_is(shape, rule->shape))
        rule++;
    if (rule == end || child_outside_version(r, shape->parent, rule->shape))
        return unsupported(r, shape, NULL);
    int rc = check_attrs(r, shape, rule->attrs);
    for (const char *const *a = rule->attrs; rc == WK_OK && *a; a++)
        version_attr(r, shape, *a, &rc);
    return rc ? rc : check_children(r, shape, rule->children);
}

static int read_geometry(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    xmlNodePtr shape = wk__xml_first(el);
    if (!shape)
        return WK_OK; /* an empty geometry */
    if (wk__xml_next(shape))
        return fail(r, el, WK_PARSE, "holds more than one shape");
    wk_geometry g = {.scale = {1, 1, 1}, .normal = {0, 0, 1}};
    xmlNodePtr c;
    int rc = check_shape(r, shape);
    if (rc)
        return rc;
    const char *name = (const char *)shape->name;
    if (!strcmp(name, "box")) {
        g.type = WK_GEOMETRY_BOX;
        g.size = (wk_vec3){1, 1, 1};
        if ((c = wk__xml_child(shape, "size")))
            rc = read_vec3(r, c, &g.size);
    } else if (!strcmp(name, "sphere")) {
        g.type = WK_GEOMETRY_SPHERE;
        g.radius = 1;
        if ((c = wk__xml_child(shape, "radius")))
            rc = read_double(r, c, &g.radius);
    } else if (!strcmp(name, "cylinder") || !strcmp(name, "capsule")) {
        g.type = name[1] == 'y' ? WK_GEOMETRY_CYLINDER : WK_GEOMETRY_CAPSULE;
        g.radius = g.type == WK_GEOMETRY_CYLINDER ? 1 : 0.5;
        g.length = 1;
        if ((c = wk__xml_child(shape, "radius")))
            rc = read_double(r, c, &g.radius);
        if (rc == WK_OK && (c = wk__xml_child(shape, "length")))
            rc = read_double(r, c, &g.length);
    } else if (!strcmp(name, "ellipsoid")) {
        g.type = WK_GEOMETRY_ELLIPSOID;
        g.size = (wk_vec3){1, 1, 1};
        if ((c = wk__xml_child(shape, "radii")))
            rc = read_vec3(r, c, &g.size);
    } else if (!strcmp(name, "plane")) {
        g.type = WK_GEOMETRY_PLANE;
        g.size = (wk_vec3){1, 1, 0};
        double xy[2];
        if ((c = wk__xml_child(shape, "normal")))
            rc = read_vec3(r, c, &g.normal);
        if (rc == WK_OK && (c = wk__xml_child(shape, "size")) && (rc = numbers(r, c, xy, 2)) == WK_OK)
            g.size = (wk_vec3){xy[0], xy[1], 0};
    } else if (!strcmp(name, "mesh") || !strcmp(name, "heightmap")) {
        g.type = name[0] == 'm' ? WK_GEOMETRY_MESH : WK_GEOMETRY_HEIGHTMAP;
        g.uri = wk__xml_text(r->d, wk__xml_child(shape, "uri"));
        if (!g.uri || !g.uri[0])
            return fail(r, shape, WK_PARSE, "needs a <uri>");
        if ((c = wk__xml_child(shape, g.type == WK_GEOMETRY_MESH ? "scale" : "size")))
            rc = read_vec3(r, c, g.type == WK_GEOMETRY_MESH ? &g.scale : &g.size);
        if (rc == WK_OK && (c = wk__xml_child(shape, "submesh")))
            g.submesh = wk__xml_text(r->d, wk__xml_child(c, "name"));
        if (rc == WK_OK)
            rc = wk__asset_resolve(r->d, r->opts, r->file, g.uri, g.type == WK_GEOMETRY_MESH, wk__xml_line(shape),
                                   &g.path, r->st);
    } else if (!strcmp(name, "polyline")) {
        g.type = WK_GEOMETRY_POLYLINE;
        size_t n = 0;
        for (c = wk__xml_first(shape); c; c = wk__xml_next(c))
            n += wk__xml_is(c, "point");
        double *pts = wk__desc_alloc(r->d, (n ? n : 1) * 2 * sizeof *pts);
        if (!pts)
            return nomem(r);
        g.points = pts;
        for (c = wk__xml_first(shape); rc == WK_OK && c; c = wk__xml_next(c)) {
            if (wk__xml_is(c, "point"))
                rc = numbers(r, c, pts + 2 * g.point_count++, 2);
            else if (wk__xml_is(c, "height"))
                rc = read_double(r, c, &g.length);
        }
    } else {
        g.type = WK_GEOMETRY_NONE; /* empty, or an image, which worldkit does not model */
    }
    if (rc == WK_OK)
        wk__desc_at(r->d, node)->shape.geometry = g;
    return rc;
}

/* ---- links and what they hold ------------------------------------------ */

/* <inertial>: mass, pose and tensor. Automatic inertia (@auto, 1.11) is not
 * computed, so it is reported; the fluid's added mass and the densities are
 * known and kept as nothing. */
static int check_inertial(sdf_reader *r, xmlNodePtr el)
{
    int rc = check_attrs(r, el, NAMES("auto"));
    const char *automatic = rc ? NULL : version_attr(r, el, "auto", &rc);
    if (rc == WK_OK && automatic && (!strcmp(automatic, "true") || !strcmp(automatic, "1")))
        rc = unsupported(r, el, "auto");
    xmlNodePtr inertia = wk__xml_child(el, "inertia");
    rc = rc ? rc
            : check_children(r, el, NAMES("mass", "pose", "inertia", "fluid_added_mass", "density", "auto_inertia_params"));
    return rc || !inertia ? rc : check_children(r, inertia, NAMES("ixx", "ixy", "ixz", "iyy", "iyz", "izz"));
}

static int read_inertial(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    wk_inertial in = {.present = true, .mass = 1, .pose = wk_pose_identity(), .ixx = 1, .iyy = 1, .izz = 1};
    xmlNodePtr c;
    int rc = check_inertial(r, el);
    if (rc == WK_OK && (c = wk__xml_child(el, "mass")))
        rc = read_double(r, c, &in.mass);
    if (rc == WK_OK && (c = wk__xml_child(el, "pose"))) {
        /* Reuse the pose reader on a scratch node value. */
        wk_node *nd = wk__desc_at(r->d, node);
        wk_pose saved = nd->pose;
        const char *saved_rel = nd->relative_to;
        rc = read_pose(r, c, node);
        nd = wk__desc_at(r->d, node);
        in.pose = nd->pose;
        bool relative = nd->relative_to != NULL;
        nd->pose = saved;
        nd->relative_to = saved_rel;
        /* An inertial's pose is in its link's frame (1.8 dropped relative_to here). */
        if (rc == WK_OK && relative)
            rc = unsupported(r, c, "relative_to");
    }
    if (rc == WK_OK && (c = wk__xml_child(el, "inertia"))) {
        static const char *const names[] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
        double *slots[] = {&in.ixx, &in.ixy, &in.ixz, &in.iyy, &in.iyz, &in.izz};
        for (int i = 0; rc == WK_OK && i < 6; i++) {
            xmlNodePtr v = wk__xml_child(c, names[i]);
            if (v)
                rc = read_double(r, v, slots[i]);
        }
    }
    if (rc == WK_OK)
        wk__desc_at(r->d, node)->link.inertial = in;
    return rc;
}

static const child_rule visual_rules[] = {
    {"pose", read_pose},   {"geometry", read_geometry}, {"material", NULL},         {"cast_shadows", NULL},
    {"laser_retro", NULL}, {"transparency", NULL},      {"meta", NULL},             {"plugin", read_plugin},
    {"visibility_flags", NULL}, {NULL, NULL},
};

static const child_rule collision_rules[] = {
    {"pose", read_pose},   {"geometry", read_geometry}, {"laser_retro", NULL}, {"max_contacts", NULL},
    {"surface", NULL},     {"density", NULL},           {"auto_inertia_params", NULL}, {NULL, NULL},
};

static int read_shape(sdf_reader *r, xmlNodePtr el, uint32_t link, wk_node_kind kind, const child_rule *rules)
{
    uint32_t node;
    int rc = add_named(r, el, link, kind, &node);
    return rc ? rc : read_children(r, el, node, rules);
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
    return read_double(r, el, &wk__desc_at(r->d, node)->sensor.update_rate);
}

static int read_typed(sdf_reader *r, xmlNodePtr el, uint32_t parent, wk_node_kind kind)
{
    uint32_t node;
    int rc = add_named(r, el, parent, kind, &node);
    if (rc)
        return rc;
    const char *type = wk__xml_attr(r->d, el, "type"), *xml = wk__xml_dump(r->d, el);
    if (!xml)
        return nomem(r);
    wk_node *n = wk__desc_at(r->d, node);
    if (kind == WK_NODE_SENSOR)
        n->sensor.type = type, n->sensor.xml = xml;
    else
        n->light.type = type, n->light.xml = xml;
    for (xmlNodePtr c = wk__xml_first(el); rc == WK_OK && c; c = wk__xml_next(c)) {
        if (wk__xml_is(c, "pose"))
            rc = read_pose(r, c, node);
        else if (wk__xml_is(c, "plugin"))
            rc = read_plugin(r, c, node);
        else if (kind == WK_NODE_SENSOR && wk__xml_is(c, "update_rate"))
            rc = read_update_rate(r, c, node);
    }
    return rc;
}

static int read_sensor(sdf_reader *r, xmlNodePtr el, uint32_t parent)
{
    return read_typed(r, el, parent, WK_NODE_SENSOR);
}

static int read_light(sdf_reader *r, xmlNodePtr el, uint32_t parent)
{
    return read_typed(r, el, parent, WK_NODE_LIGHT);
}

static const child_rule link_rules[] = {
    {"pose", read_pose},         {"inertial", read_inertial},  {"visual", read_visual},
    {"collision", read_collision}, {"sensor", read_sensor},    {"light", read_light},
    {"gravity", NULL},           {"enable_wind", NULL},        {"self_collide", NULL},
    {"kinematic", NULL},         {"must_be_base_link", NULL},  {"velocity_decay", NULL},
    {"projector", NULL},         {"audio_sink", NULL},         {"audio_source", NULL},
    {"battery", NULL},           {"particle_emitter", NULL},   {NULL, NULL},
};

static int read_link(sdf_reader *r, xmlNodePtr el, uint32_t model)
{
    uint32_t node;
    int rc = add_named(r, el, model, WK_NODE_LINK, &node);
    return rc ? rc : read_children(r, el, node, link_rules);
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
    /* use_parent_model_frame (before 1.7) is not read: reported. A mimic
     * (1.11) or an initial_position (before 1.9) changes no pose. */
    int rc = check_children(r, el, NAMES("xyz", "limit", "dynamics", "mimic", "initial_position"));
    if (rc == WK_OK && (c = wk__xml_child(el, "xyz"))) {
        const char *in = version_attr(r, c, "expressed_in", &rc);
        if (rc)
            return rc;
        axis->expressed_in = in && in[0] ? in : NULL;
        if ((rc = read_vec3(r, c, &axis->xyz)) == WK_OK && wk_vec3_norm(axis->xyz) == 0)
            return fail(r, c, WK_PARSE, "the axis is zero");
        if (rc == WK_OK)
            axis->xyz = wk_vec3_scale(axis->xyz, 1 / wk_vec3_norm(axis->xyz));
    }
    if (rc == WK_OK && (lim = wk__xml_child(el, "limit"))) {
        static const char *const names[] = {"lower", "upper", "effort", "velocity"};
        double *slots[] = {&axis->lower, &axis->upper, &axis->effort, &axis->velocity};
        for (int i = 0; rc == WK_OK && i < 4; i++)
            if ((c = wk__xml_child(lim, names[i])))
                rc = read_double(r, c, slots[i]);
    }
    if (rc == WK_OK && (lim = wk__xml_child(el, "dynamics"))) {
        if ((c = wk__xml_child(lim, "damping")))
            rc = read_double(r, c, &axis->damping);
        if (rc == WK_OK && (c = wk__xml_child(lim, "friction")))
            rc = read_double(r, c, &axis->friction);
    }
    return rc;
}

/* <mimic> (1.11) of a joint's first axis: follower = multiplier * (leader -
 * reference) + offset, kept in URDF's form, multiplier * leader + offset.
 * worldkit's joints follow their leader's first axis only. */
static int read_mimic(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    int rc = check_attrs(r, el, NAMES("joint", "axis"));
    rc = rc ? rc : check_children(r, el, NAMES("multiplier", "offset", "reference"));
    const char *leader = rc ? NULL : wk__xml_attr(r->d, el, "joint");
    const char *axis = rc ? NULL : wk__xml_attr(r->d, el, "axis");
    if (rc)
        return rc;
    if (!leader || !leader[0])
        return fail(r, el, WK_PARSE, "missing the joint attribute");
    if (axis && strcmp(axis, "axis"))
        return strcmp(axis, "axis2") ? fail(r, el, WK_PARSE, "axis must be axis or axis2") : unsupported(r, el, "axis");
    static const char *const names[] = {"multiplier", "offset", "reference"};
    double v[3] = {1, 0, 0};
    for (int i = 0; rc == WK_OK && i < 3; i++) {
        xmlNodePtr c = wk__xml_child(el, names[i]);
        if (c)
            rc = read_double(r, c, &v[i]);
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
    return mimic && !child_outside_version(r, el, "mimic") ? read_mimic(r, mimic, node) : rc;
}

/* A second axis that mimics is unsupported: see read_mimic. */
static int read_axis2(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    int rc = read_axis_into(r, el, &wk__desc_at(r->d, node)->joint.axis[1]);
    xmlNodePtr mimic = rc ? NULL : wk__xml_child(el, "mimic");
    return mimic && !child_outside_version(r, el, "mimic") ? unsupported(r, mimic, NULL) : rc;
}

static int read_joint_parent(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    const char *t = wk__xml_text(r->d, el);
    return t ? (wk__desc_at(r->d, node)->joint.parent = t, WK_OK) : nomem(r);
}

static int read_joint_child(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    const char *t = wk__xml_text(r->d, el);
    return t ? (wk__desc_at(r->d, node)->joint.child = t, WK_OK) : nomem(r);
}

static const child_rule joint_rules[] = {
    {"pose", read_pose},    {"parent", read_joint_parent}, {"child", read_joint_child}, {"axis", read_axis},
    {"axis2", read_axis2},  {"sensor", read_sensor},       {"physics", NULL},           {"gearbox_ratio", NULL},
    {"gearbox_reference_body", NULL}, {"thread_pitch", NULL}, {"screw_thread_pitch", NULL}, {NULL, NULL},
};

static int read_joint(sdf_reader *r, xmlNodePtr el, uint32_t model)
{
    uint32_t node;
    int rc = add_named(r, el, model, WK_NODE_JOINT, &node);
    if (rc)
        return rc;
    const char *type = wk__xml_attr(r->d, el, "type");
    size_t i = 0;
    while (type && i < sizeof joint_types / sizeof joint_types[0] && strcmp(type, joint_types[i].name))
        i++;
    if (!type || i == sizeof joint_types / sizeof joint_types[0])
        return fail(r, el, WK_PARSE, "type must be one of fixed, revolute, continuous, prismatic, ball, "
                                     "universal, screw, revolute2, gearbox");
    wk__desc_at(r->d, node)->joint.type = joint_types[i].type;
    if ((rc = read_children(r, el, node, joint_rules)))
        return rc;
    const wk_node *j = wk__desc_at(r->d, node);
    if (!j->joint.parent || !j->joint.child)
        return fail(r, el, WK_PARSE, "needs a <parent> and a <child>");
    return WK_OK;
}

/* ---- frames, models, includes ------------------------------------------ */

static const child_rule frame_rules[] = {{"pose", read_pose}, {NULL, NULL}};

static int read_frame(sdf_reader *r, xmlNodePtr el, uint32_t scope)
{
    uint32_t node;
    int rc = add_named(r, el, scope, WK_NODE_FRAME, &node);
    if (rc)
        return rc;
    const char *attached = version_attr(r, el, "attached_to", &rc);
    if (rc)
        return rc;
    wk__desc_at(r->d, node)->frame.attached_to = attached && attached[0] ? attached : NULL;
    return read_children(r, el, node, frame_rules);
}

static int read_static(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    return read_bool(r, el, &wk__desc_at(r->d, node)->model.is_static);
}

static int read_self_collide(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    return read_bool(r, el, &wk__desc_at(r->d, node)->model.self_collide);
}

static int read_model(sdf_reader *r, xmlNodePtr el, uint32_t parent);
static int read_include(sdf_reader *r, xmlNodePtr el, uint32_t parent);

static const child_rule model_rules[] = {
    {"pose", read_pose},     {"static", read_static},   {"self_collide", read_self_collide}, {"link", read_link},
    {"joint", read_joint},   {"frame", read_frame},     {"model", read_model},               {"include", read_include},
    {"plugin", read_plugin}, {"gripper", NULL},         {"enable_wind", NULL},               {"allow_auto_disable", NULL},
    {NULL, NULL},
};

/* Reads a <model> under parent; *out (when not NULL) gets its node. */
static int read_model_as(sdf_reader *r, xmlNodePtr el, uint32_t parent, uint32_t *out)
{
    uint32_t node;
    int rc = add_named(r, el, parent, WK_NODE_MODEL, &node);
    if (rc)
        return rc;
    wk_node *m = wk__desc_at(r->d, node);
    const char *canonical = version_attr(r, el, "canonical_link", &rc);
    const char *placement = rc ? NULL : version_attr(r, el, "placement_frame", &rc);
    if (rc)
        return rc;
    m = wk__desc_at(r->d, node);
    m->model.canonical_link = canonical;
    m->model.placement_frame = placement;
    if (out)
        *out = node;
    return read_children(r, el, node, model_rules);
}

static int read_model(sdf_reader *r, xmlNodePtr el, uint32_t parent)
{
    return read_model_as(r, el, parent, NULL);
}

static int read_sdf_version(sdf_reader *r, xmlNodePtr root);

/* Checks an <include>'s children: what it may hold in the file's version. */
static int check_include(sdf_reader *r, xmlNodePtr el)
{
    int rc = check_attrs(r, el, NAMES("merge"));
    return rc ? rc : check_children(r, el, NAMES("uri", "name", "pose", "static", "placement_frame", "plugin"));
}

/* Replaces a relative_to or attached_to naming the merged model's own
 * frame, or left to default to it, by the frame that stands in for it. */
static const char *merged_frame(const char *name, const char *proxy)
{
    return !name || !strcmp(name, "__model__") ? proxy : name;
}

/* Checks that a model merged into a world (SDFormat 1.10) holds no link,
 * as the specification asks, and no joint, which worldkit does not read in
 * a world. */
static int check_world_merge(sdf_reader *r, xmlNodePtr el, const wk_node *m)
{
    if (r->minor < 10)
        return unsupported(r, el, "merge");
    for (uint32_t c = m->first_child; c != WK_NO_NODE; c = wk__desc_at(r->d, c)->next_sibling) {
        wk_node_kind kind = wk__desc_at(r->d, c)->kind;
        if (kind == WK_NODE_LINK)
            return fail(r, el, WK_PARSE, "a model merged into a world may hold no link");
        if (kind == WK_NODE_JOINT)
            return unsupported(r, el, "merge");
    }
    return WK_OK;
}

/* Folds an included model into its parent model, or from SDFormat 1.10 its
 * world (include merge="true"): the model's node becomes the frame
 * _merged__<name>__model__, attached to the model's canonical link (in a
 * world, where it holds no link, to its first nested model, whose canonical
 * link is the model's) and placed where the model was, and its children
 * become the parent's, their references to the model frame redirected to
 * that frame. */
static int merge_model(sdf_reader *r, xmlNodePtr el, uint32_t node)
{
    wk_world_desc *d = r->d;
    wk_node *m = wk__desc_at(d, node);
    uint32_t parent = m->parent;
    bool in_world = wk__desc_at(d, parent)->kind == WK_NODE_WORLD;
    int rc = in_world ? check_world_merge(r, el, m) : WK_OK;
    if (rc)
        return rc;
    if (m->model.placement_frame)
        return unsupported(r, el, "merge");
    const char *canonical = m->model.canonical_link;
    wk_node_kind canonical_kind = in_world ? WK_NODE_MODEL : WK_NODE_LINK;
    for (uint32_t c = m->first_child; !canonical && c != WK_NO_NODE; c = wk__desc_at(d, c)->next_sibling)
        if (wk__desc_at(d, c)->kind == canonical_kind)
            canonical = wk__desc_at(d, c)->name;
    char proxy_name[256];
    snprintf(proxy_name, sizeof proxy_name, "_merged__%s__model__", m->name);
    const char *proxy = wk__desc_strdup(d, proxy_name);
    if (!proxy)
        return nomem(r);
    for (uint32_t c = m->first_child; c != WK_NO_NODE; c = wk__desc_at(d, c)->next_sibling) {
        wk_node *n = wk__desc_at(d, c);
        n->parent = parent;
        bool framed = n->kind == WK_NODE_FRAME && n->frame.attached_to && strcmp(n->frame.attached_to, "__model__");
        if (n->kind != WK_NODE_JOINT && !framed)
            n->relative_to = merged_frame(n->relative_to, proxy);
        else if (n->relative_to && !strcmp(n->relative_to, "__model__"))
            n->relative_to = proxy;
        if (n->kind == WK_NODE_FRAME)
            n->frame.attached_to = merged_frame(n->frame.attached_to, proxy);
        if (n->kind == WK_NODE_JOINT)
            n->joint.parent = !strcmp(n->joint.parent, "__model__") ? proxy : n->joint.parent;
    }
    /* The children join the parent's list after the model node itself. */
    wk_node *p = wk__desc_at(d, parent);
    if (m->first_child != WK_NO_NODE) {
        wk__desc_at(d, m->last_child)->next_sibling = m->next_sibling;
        if (p->last_child == node)
            p->last_child = m->last_child;
        m->next_sibling = m->first_child;
    }
    /* Not left empty: a frame's pose would then be relative to its attached_to. */
    const char *relative_to = m->relative_to ? m->relative_to : in_world ? "world" : "__model__";
    m->kind = WK_NODE_FRAME;
    m->name = proxy;
    m->first_child = m->last_child = WK_NO_NODE;
    m->relative_to = relative_to;
    m->frame.attached_to = canonical;
    return WK_OK;
}

/* <include>: reads the model file the uri names and places it under parent,
 * with the include's name, pose, static and placement_frame overriding the
 * file's, or merges it into parent (merge="true"). */
static int read_include(sdf_reader *r, xmlNodePtr el, uint32_t parent)
{
    if (r->include_depth >= 16)
        return fail(r, el, WK_PARSE, "includes nest deeper than 16 levels");
    int rc = check_include(r, el);
    const char *merge = rc ? NULL : version_attr(r, el, "merge", &rc);
    if (rc)
        return rc;
    const char *uri = wk__xml_text(r->d, wk__xml_child(el, "uri"));
    if (!uri || !uri[0])
        return fail(r, el, WK_PARSE, "needs a <uri>");
    const char *path = NULL;
    rc = wk__model_resolve(r->d, r->opts, r->file, uri, wk__xml_line(el), &path, r->st);
    if (rc || !path)
        return rc; /* missing and ignored: a warning is recorded */
    xmlDocPtr doc = wk__xml_parse(path, NULL, r->st);
    if (!doc)
        return r->st->code;
    sdf_reader inner = *r;
    inner.file = path;
    inner.include_depth++;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    xmlNodePtr model = wk__xml_child(root, "model");
    uint32_t node = WK_NO_NODE;
    rc = !wk__xml_is(root, "sdf") || !model ? fail(&inner, root, WK_PARSE, "an included file must hold an <sdf><model>")
                                            : read_sdf_version(&inner, root);
    if (rc == WK_OK)
        rc = read_model_as(&inner, model, parent, &node);
    if (rc == WK_OK) {
        wk_node *m = wk__desc_at(r->d, node);
        const char *name = wk__xml_text(r->d, wk__xml_child(el, "name"));
        const char *placement = wk__xml_text(r->d, wk__xml_child(el, "placement_frame"));
        if (name && name[0])
            m->name = name;
        if (placement && placement[0])
            m->model.placement_frame = placement;
        xmlNodePtr c;
        if ((c = wk__xml_child(el, "pose")))
            rc = read_pose(r, c, node);
        else
            wk__desc_at(r->d, node)->relative_to = NULL; /* the file's pose is relative to its own world */
        if (rc == WK_OK && (c = wk__xml_child(el, "static")))
            rc = read_static(r, c, node);
        for (c = wk__xml_first(el); rc == WK_OK && c; c = wk__xml_next(c))
            if (wk__xml_is(c, "plugin"))
                rc = read_plugin(r, c, node);
    }
    if (rc == WK_OK && merge && (!strcmp(merge, "true") || !strcmp(merge, "1")))
        rc = merge_model(r, el, node);
    xmlFreeDoc(doc);
    return rc;
}

/* ---- worlds, levels and performers ------------------------------------- */

static int read_box_size(sdf_reader *r, xmlNodePtr el, wk_vec3 *size)
{
    xmlNodePtr box = wk__xml_child(wk__xml_child(el, "geometry"), "box");
    xmlNodePtr s = wk__xml_child(box, "size");
    if (!s)
        return fail(r, el, WK_PARSE, "needs <geometry><box><size>");
    return read_vec3(r, s, size);
}

/* The level and performer elements of the gz::sim plugin (seed 003). */
static int read_region(sdf_reader *r, xmlNodePtr el, uint32_t world, wk_node_kind kind)
{
    uint32_t node;
    int rc = add_named(r, el, world, kind, &node);
    if (rc == WK_OK)
        rc = read_box_size(r, el, &wk__desc_at(r->d, node)->region.size);
    size_t n = 0;
    for (xmlNodePtr c = wk__xml_first(el); c; c = wk__xml_next(c))
        n += wk__xml_is(c, "ref");
    if (rc == WK_OK && (kind == WK_NODE_PERFORMER ? n != 1 : n == 0))
        return fail(r, el, WK_PARSE, kind == WK_NODE_PERFORMER ? "needs exactly one <ref>" : "needs at least one <ref>");
    const char **refs = wk__desc_alloc(r->d, (n ? n : 1) * sizeof *refs);
    if (!refs)
        return nomem(r);
    size_t k = 0;
    for (xmlNodePtr c = wk__xml_first(el); rc == WK_OK && c; c = wk__xml_next(c)) {
        if (wk__xml_is(c, "ref") && !(refs[k++] = wk__xml_text(r->d, c)))
            rc = nomem(r);
        else if (wk__xml_is(c, "pose"))
            rc = read_pose(r, c, node);
        else if (wk__xml_is(c, "buffer"))
            rc = read_double(r, c, &wk__desc_at(r->d, node)->region.buffer);
        else if (!wk__xml_is(c, "ref") && !wk__xml_is(c, "geometry"))
            rc = unsupported(r, c, NULL);
    }
    if (rc == WK_OK) {
        wk_node *nd = wk__desc_at(r->d, node);
        nd->region.refs = refs;
        nd->region.ref_count = k;
        if (kind == WK_NODE_LEVEL)
            nd->pose.q = wk_quat_identity(); /* a level's orientation is ignored */
    }
    return rc;
}

static int read_world_plugin(sdf_reader *r, xmlNodePtr el, uint32_t world)
{
    int rc = read_plugin(r, el, world);
    if (rc)
        return rc;
    const char *name = wk__xml_attr(r->d, el, "name");
    bool sim = name && (!strcmp(name, "gz::sim") || !strcmp(name, "ignition::gazebo"));
    for (xmlNodePtr c = sim ? wk__xml_first(el) : NULL; c; c = wk__xml_next(c)) {
        int rc = wk__xml_is(c, "level")       ? read_region(r, c, world, WK_NODE_LEVEL)
                 : wk__xml_is(c, "performer") ? read_region(r, c, world, WK_NODE_PERFORMER)
                                              : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

static int read_actor(sdf_reader *r, xmlNodePtr el, uint32_t world)
{
    uint32_t node;
    int rc = add_named(r, el, world, WK_NODE_ACTOR, &node);
    xmlNodePtr pose = rc ? NULL : wk__xml_child(el, "pose");
    return pose ? read_pose(r, pose, node) : rc;
}

/* <physics>: the default profile (or the first one) gives the step size
 * and real-time factor; before 1.5 it also held the gravity. */
static int read_physics(sdf_reader *r, xmlNodePtr el, uint32_t world)
{
    const char *is_default = wk__xml_attr(r->d, el, "default");
    bool chosen_before = false;
    for (xmlNodePtr p = wk__xml_first(el->parent); p && p != el; p = wk__xml_next(p))
        chosen_before |= wk__xml_is(p, "physics");
    if (chosen_before && !(is_default && (!strcmp(is_default, "true") || !strcmp(is_default, "1"))))
        return WK_OK;
    xmlNodePtr c;
    int rc = WK_OK;
    if ((c = wk__xml_child(el, "max_step_size")))
        rc = read_double(r, c, &wk__desc_at(r->d, world)->settings.max_step_size);
    if (rc == WK_OK && (c = wk__xml_child(el, "real_time_factor")))
        rc = read_double(r, c, &wk__desc_at(r->d, world)->settings.real_time_factor);
    if (rc == WK_OK && (c = wk__xml_child(el, "gravity")))
        rc = read_vec3(r, c, &wk__desc_at(r->d, world)->settings.gravity);
    if (rc == WK_OK && !(wk__desc_at(r->d, world)->settings.max_step_size > 0))
        return fail(r, el, WK_PARSE, "max_step_size must be positive");
    return rc;
}

static int read_gravity(sdf_reader *r, xmlNodePtr el, uint32_t world)
{
    return read_vec3(r, el, &wk__desc_at(r->d, world)->settings.gravity);
}

static int read_magnetic_field(sdf_reader *r, xmlNodePtr el, uint32_t world)
{
    return read_vec3(r, el, &wk__desc_at(r->d, world)->settings.magnetic_field);
}

/* <spherical_coordinates>: where the world's origin is on the planet. */
static int read_spherical(sdf_reader *r, xmlNodePtr el, uint32_t world)
{
    static const char *const names[] = {"latitude_deg", "longitude_deg", "elevation", "heading_deg"};
    double values[4] = {0};
    int rc = WK_OK;
    for (int i = 0; rc == WK_OK && i < 4; i++) {
        xmlNodePtr c = wk__xml_child(el, names[i]);
        if (c)
            rc = read_double(r, c, &values[i]);
    }
    const char *surface = wk__xml_text(r->d, wk__xml_child(el, "surface_model"));
    if (rc == WK_OK) {
        wk_node *w = wk__desc_at(r->d, world);
        w->settings.spherical.present = true;
        w->settings.spherical.surface_model = surface ? surface : "EARTH_WGS84";
        w->settings.spherical.latitude_deg = values[0];
        w->settings.spherical.longitude_deg = values[1];
        w->settings.spherical.elevation = values[2];
        w->settings.spherical.heading_deg = values[3];
    }
    return rc;
}

static const child_rule world_rules[] = {
    {"model", read_model},     {"include", read_include},     {"frame", read_frame},
    {"light", read_light},     {"actor", read_actor},         {"plugin", read_world_plugin},
    {"physics", read_physics}, {"gravity", read_gravity},     {"magnetic_field", read_magnetic_field},
    {"spherical_coordinates", read_spherical}, {"scene", NULL},         {"atmosphere", NULL},
    {"wind", NULL},            {"gui", NULL},                 {"audio", NULL},
    {"state", NULL},           {"population", NULL},          {"road", NULL},
    {NULL, NULL},
};

static int read_sdf_version(sdf_reader *r, xmlNodePtr root)
{
    const char *version = wk__xml_attr(r->d, root, "version");
    int major = 0, minor = -1;
    if (!version || sscanf(version, "%d.%d", &major, &minor) != 2)
        return fail(r, root, WK_PARSE, "needs a version attribute such as \"1.9\"");
    if (major != 1 || minor < 4 || minor > 11)
        return fail(r, root, WK_UNSUPPORTED_FORMAT, "worldkit reads SDFormat versions 1.4 to 1.11");
    r->minor = minor;
    return WK_OK;
}

int wk__sdf_read(wk_world_desc *d, const wk_read_desc *opts, const char *path, xmlDocPtr doc, wk_status *st)
{
    sdf_reader r = {.d = d, .opts = opts, .st = st, .file = wk__desc_strdup(d, path)};
    xmlNodePtr root = xmlDocGetRootElement(doc);
    int rc = read_sdf_version(&r, root);
    xmlNodePtr world = rc ? NULL : wk__xml_child(root, "world");
    xmlNodePtr model = rc ? NULL : wk__xml_child(root, "model");
    if (rc == WK_OK && !world && !model)
        rc = fail(&r, root, WK_PARSE, "holds neither a <world> nor a <model>");
    const char *name = world ? wk__xml_attr(d, world, "name") : "default";
    uint32_t w = rc ? WK_NO_NODE : wk__desc_add(d, WK_NODE_WORLD, WK_NO_NODE, name, r.file, wk__xml_line(world ? world : root));
    if (rc == WK_OK && w == WK_NO_NODE)
        rc = nomem(&r);
    if (rc == WK_OK)
        rc = world ? read_children(&r, world, w, world_rules) : read_model(&r, model, w);
    return rc;
}
