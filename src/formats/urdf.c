/* urdf.c — the URDF reader (the ROS robot description format) into a
 * description.
 *
 * A URDF file holds one robot: links, and joints that hang every link but
 * one (the root) below a parent link, so that the links form a tree. The
 * robot becomes a model in a world named "default", its links and joints
 * nodes of that model, and their visuals and collisions nodes of their link.
 * URDF frames chain by node (relative_node): the root link sits at the model
 * frame, a joint's origin is in its parent link's frame, a child link's frame
 * is its joint's frame, and visual, collision and inertial origins are in
 * their link's frame.
 *
 * As in sdf.c, one function per element reads the attributes and children it
 * understands, and a table per element lists the children it reads, and
 * the appearance it accepts silently (textures; of materials, worldkit
 * keeps a visual's colour);
 * anything else (<transmission>, <gazebo>, <calibration>...) keeps nothing
 * in worldkit and is an unsupported element: a warning, or WK_UNSUPPORTED_ELEMENTS when
 * the caller asked to fail on them. Joints may name links defined after
 * them, so the tree is linked and checked once the whole robot is read. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/assets.h"
#include "formats/xml.h"

typedef struct urdf_reader {
    wk_world_desc *d;
    const wk_read_desc *opts;
    wk_status *st;
    const char *file; /* in the arena; NULL for a string */
    xmlNodePtr robot; /* the <robot> element, whose materials visuals name */
} urdf_reader;

typedef int (*child_fn)(urdf_reader *r, xmlNodePtr el, uint32_t node);

typedef struct child_rule {
    const char *name;
    child_fn read; /* NULL: appearance, which worldkit does not hold; accepted silently */
} child_rule;

static const char *where(const urdf_reader *r)
{
    return r->file ? r->file : "<string>";
}

static int nomem(urdf_reader *r)
{
    return wk_fail(r->st, WK_NOMEM, "out of memory reading %s", where(r));
}

/* Fails with "file:line: subject: message", the message printf-style. */
static int failv(urdf_reader *r, uint32_t line, const char *subject, int code, const char *fmt, va_list ap)
{
    char what[WK_STATUS_MSG_MAX];
    vsnprintf(what, sizeof what, fmt, ap);
    return wk_fail(r->st, code, "%s:%u: %s: %s", where(r), line, subject, what);
}

/* Fails naming the element, and its name attribute when it has one, since
 * URDF files repeat the same element names many times. */
__attribute__((format(printf, 4, 5))) static int fail(urdf_reader *r, xmlNodePtr el, int code, const char *fmt, ...)
{
    char subject[128];
    xmlChar *name = xmlGetProp(el, (const xmlChar *)"name");
    if (name)
        snprintf(subject, sizeof subject, "<%s name=\"%.80s\">", (const char *)el->name, (const char *)name);
    else
        snprintf(subject, sizeof subject, "<%s>", (const char *)el->name);
    xmlFree(name);
    va_list ap;
    va_start(ap, fmt);
    int rc = failv(r, wk__xml_line(el), subject, code, fmt, ap);
    va_end(ap);
    return rc;
}

/* Fails naming a node already read: the tree checks run after parsing. */
__attribute__((format(printf, 3, 4))) static int fail_node(urdf_reader *r, uint32_t node, const char *fmt, ...)
{
    const wk_node *n = wk__desc_at(r->d, node);
    char subject[128];
    snprintf(subject, sizeof subject, "%s '%.80s'", wk_node_kind_name(n->kind), n->name);
    va_list ap;
    va_start(ap, fmt);
    int rc = failv(r, n->line, subject, WK_PARSE, fmt, ap);
    va_end(ap);
    return rc;
}

/* Reports an element worldkit does not read. */
static int unsupported(urdf_reader *r, xmlNodePtr el)
{
    return wk__xml_unsupported(r->d, r->opts, r->file, el, NULL, r->st);
}

/* Reads el's children by the rules; anything else is unsupported. */
static int read_children(urdf_reader *r, xmlNodePtr el, uint32_t node, const child_rule *rules)
{
    for (xmlNodePtr c = wk__xml_first(el); c; c = wk__xml_next(c)) {
        const child_rule *rule = rules;
        while (rule->name && !wk__xml_is(c, rule->name))
            rule++;
        int rc = !rule->name ? unsupported(r, c) : rule->read ? rule->read(r, c, node) : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

/* ---- attribute values -------------------------------------------------- */

enum { MAX_NUMBERS = 4 }; /* rgba is the longest list */

/* Splits text into up to want finite numbers; returns how many, or -1 when
 * a token is not a finite number or there are too many. */
static int split_numbers(const char *text, double *out, int want)
{
    int count = 0;
    for (const char *s = text;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        if (!*s)
            return count;
        char *end;
        double x = strtod(s, &end);
        if (end == s || !isfinite(x) || count == want)
            return -1;
        out[count++] = x;
        s = end;
    }
}

/* Reads attribute attr of el as exactly want numbers into out. An absent
 * attribute leaves out as it is (its default), or fails when required. */
static int numbers(urdf_reader *r, xmlNodePtr el, const char *attr, double *out, int want, bool required)
{
    xmlChar *text = xmlGetProp(el, (const xmlChar *)attr);
    if (!text)
        return required ? fail(r, el, WK_PARSE, "needs the attribute %s", attr) : WK_OK;
    double v[MAX_NUMBERS];
    int rc = WK_OK;
    if (split_numbers((const char *)text, v, want) != want)
        rc = fail(r, el, WK_PARSE, "%s=\"%.40s\": expected %d finite number%s", attr, (const char *)text, want,
                  want > 1 ? "s" : "");
    else
        memcpy(out, v, (size_t)want * sizeof *v);
    xmlFree(text);
    return rc;
}

/* One number that has no meaning below zero (a mass, an inertia's
 * diagonal, a friction): a negative one fails naming el and attr. */
static int nonnegative(urdf_reader *r, xmlNodePtr el, const char *attr, double *out, bool required)
{
    double v = *out;
    int rc = numbers(r, el, attr, &v, 1, required);
    if (rc == WK_OK && v < 0)
        return fail(r, el, WK_PARSE, "%s=\"%g\" is negative", attr, v);
    *out = v;
    return rc;
}

static int vec3_attr(urdf_reader *r, xmlNodePtr el, const char *attr, wk_vec3 *out, bool required)
{
    double v[3] = {out->x, out->y, out->z};
    int rc = numbers(r, el, attr, v, 3, required);
    *out = (wk_vec3){v[0], v[1], v[2]};
    return rc;
}

/* A name (or link reference) attribute that must be present and not empty. */
static int name_attr(urdf_reader *r, xmlNodePtr el, const char *attr, const char **out)
{
    *out = wk__xml_attr(r->d, el, attr);
    return *out && (*out)[0] ? WK_OK : fail(r, el, WK_PARSE, "needs a non-empty %s attribute", attr);
}

/* An <origin xyz rpy>; both default to zero, rpy being fixed-axis angles. */
static int read_pose_attrs(urdf_reader *r, xmlNodePtr el, wk_pose *out)
{
    wk_vec3 xyz = {0, 0, 0}, rpy = {0, 0, 0};
    int rc = vec3_attr(r, el, "xyz", &xyz, false);
    if (rc == WK_OK)
        rc = vec3_attr(r, el, "rpy", &rpy, false);
    if (rc == WK_OK)
        *out = (wk_pose){xyz, wk_quat_from_rpy(rpy.x, rpy.y, rpy.z)};
    return rc;
}

static int read_origin(urdf_reader *r, xmlNodePtr el, uint32_t node)
{
    return read_pose_attrs(r, el, &wk__desc_at(r->d, node)->pose);
}

/* ---- materials --------------------------------------------------------- */

/* A <color>: kept as its visual's colour (a robot-level material's is read
 * when a visual names it). Textures are checked but not kept. */
static int read_color(urdf_reader *r, xmlNodePtr el, uint32_t node)
{
    double rgba[4];
    int rc = numbers(r, el, "rgba", rgba, 4, true);
    wk_node *n = wk__desc_at(r->d, node);
    if (rc == WK_OK && n->kind == WK_NODE_VISUAL) {
        n->shape.has_colour = true;
        memcpy(n->shape.colour, rgba, sizeof rgba);
    }
    return rc;
}

static const child_rule material_rules[] = {{"color", read_color}, {"texture", NULL}, {NULL, NULL}};

/* The robot-level <material> named name, or NULL. */
static xmlNodePtr robot_material(const urdf_reader *r, const char *name)
{
    for (xmlNodePtr c = wk__xml_first(r->robot); c; c = wk__xml_next(c)) {
        xmlChar *own = wk__xml_is(c, "material") ? xmlGetProp(c, (const xmlChar *)"name") : NULL;
        bool same = own && !strcmp((const char *)own, name);
        xmlFree(own);
        if (same)
            return c;
    }
    return NULL;
}

/* A material, the robot's or a visual's. As urdfdom has it, a visual's
 * material named like one of the robot's is the robot's, whatever colour
 * the visual gives. */
static int read_material(urdf_reader *r, xmlNodePtr el, uint32_t node)
{
    const char *name;
    int rc = name_attr(r, el, "name", &name);
    rc = rc ? rc : read_children(r, el, node, material_rules);
    xmlNodePtr named = rc == WK_OK && wk__desc_at(r->d, node)->kind == WK_NODE_VISUAL ? robot_material(r, name) : NULL;
    if (named && named != el) {
        wk__desc_at(r->d, node)->shape.has_colour = false;
        rc = read_children(r, named, node, material_rules);
    }
    return rc;
}

/* ---- geometry ---------------------------------------------------------- */

static int read_box(urdf_reader *r, xmlNodePtr el, wk_geometry *g)
{
    return vec3_attr(r, el, "size", &g->size, true);
}

static int read_sphere(urdf_reader *r, xmlNodePtr el, wk_geometry *g)
{
    return numbers(r, el, "radius", &g->radius, 1, true);
}

static int read_cylinder(urdf_reader *r, xmlNodePtr el, wk_geometry *g)
{
    int rc = numbers(r, el, "radius", &g->radius, 1, true);
    return rc ? rc : numbers(r, el, "length", &g->length, 1, true);
}

/* package:// file names resolve through the resource path (assets.c). */
static int read_mesh(urdf_reader *r, xmlNodePtr el, wk_geometry *g)
{
    int rc = name_attr(r, el, "filename", &g->uri);
    if (rc == WK_OK)
        rc = vec3_attr(r, el, "scale", &g->scale, false);
    return rc ? rc : wk__asset_resolve(r->d, r->opts, r->file, g->uri, true, wk__xml_line(el), &g->path, r->st);
}

static const struct shape_rule {
    const char *name;
    wk_geometry_type type;
    int (*read)(urdf_reader *r, xmlNodePtr el, wk_geometry *g);
} shape_rules[] = {
    {"box", WK_GEOMETRY_BOX, read_box},
    {"sphere", WK_GEOMETRY_SPHERE, read_sphere},
    {"cylinder", WK_GEOMETRY_CYLINDER, read_cylinder},
    {"mesh", WK_GEOMETRY_MESH, read_mesh},
};

static int read_geometry(urdf_reader *r, xmlNodePtr el, uint32_t node)
{
    xmlNodePtr shape = wk__xml_first(el);
    if (!shape)
        return fail(r, el, WK_PARSE, "needs a box, cylinder, sphere or mesh");
    if (wk__xml_next(shape))
        return fail(r, el, WK_PARSE, "holds more than one shape");
    size_t i = 0, n = sizeof shape_rules / sizeof shape_rules[0];
    while (i < n && !wk__xml_is(shape, shape_rules[i].name))
        i++;
    if (i == n)
        return unsupported(r, shape); /* the geometry stays empty */
    wk_geometry g = {.type = shape_rules[i].type, .scale = {1, 1, 1}, .normal = {0, 0, 1}};
    int rc = shape_rules[i].read(r, shape, &g);
    if (rc == WK_OK)
        wk__desc_at(r->d, node)->shape.geometry = g;
    return rc;
}

/* ---- links and what they hold ------------------------------------------ */

static int read_inertial_origin(urdf_reader *r, xmlNodePtr el, uint32_t link)
{
    return read_pose_attrs(r, el, &wk__desc_at(r->d, link)->link.inertial.pose);
}

static int read_mass(urdf_reader *r, xmlNodePtr el, uint32_t link)
{
    return nonnegative(r, el, "value", &wk__desc_at(r->d, link)->link.inertial.mass, true);
}

static int read_inertia(urdf_reader *r, xmlNodePtr el, uint32_t link)
{
    static const char *const names[] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
    wk_inertial *in = &wk__desc_at(r->d, link)->link.inertial;
    double *slots[] = {&in->ixx, &in->ixy, &in->ixz, &in->iyy, &in->iyz, &in->izz};
    int rc = WK_OK;
    /* The diagonal (ixx, iyy, izz) cannot be negative. */
    for (int i = 0; rc == WK_OK && i < 6; i++)
        rc = i == 0 || i == 3 || i == 5 ? nonnegative(r, el, names[i], slots[i], true)
                                        : numbers(r, el, names[i], slots[i], 1, true);
    return rc;
}

static const child_rule inertial_rules[] = {
    {"origin", read_inertial_origin}, {"mass", read_mass}, {"inertia", read_inertia}, {NULL, NULL}};

static int read_inertial(urdf_reader *r, xmlNodePtr el, uint32_t link)
{
    wk__desc_at(r->d, link)->link.inertial = (wk_inertial){.present = true, .pose = wk_pose_identity()};
    int rc = read_children(r, el, link, inertial_rules);
    if (rc == WK_OK && (!wk__xml_child(el, "mass") || !wk__xml_child(el, "inertia")))
        return fail(r, el, WK_PARSE, "needs a <mass> and an <inertia>");
    return rc;
}

/* Visuals and collisions have optional names; an unnamed one is called
 * <link>_visual_<i> or <link>_collision_<i>, i counting the link's visuals
 * (or collisions) from 0 in document order, named or not. */
static const char *shape_name(urdf_reader *r, xmlNodePtr el, uint32_t link, wk_node_kind kind)
{
    const char *name = wk__xml_attr(r->d, el, "name");
    if (name && name[0])
        return name;
    const wk_node *l = wk__desc_at(r->d, link);
    unsigned index = 0;
    for (uint32_t c = l->first_child; c != WK_NO_NODE; c = wk__desc_at(r->d, c)->next_sibling)
        index += wk__desc_at(r->d, c)->kind == kind;
    const char *kind_name = wk_node_kind_name(kind);
    size_t cap = strlen(l->name) + strlen(kind_name) + 16;
    char *generated = wk__desc_alloc(r->d, cap);
    if (generated)
        snprintf(generated, cap, "%s_%s_%u", l->name, kind_name, index);
    return generated;
}

static int read_shape(urdf_reader *r, xmlNodePtr el, uint32_t link, wk_node_kind kind, const child_rule *rules)
{
    const char *name = shape_name(r, el, link, kind);
    uint32_t node = name ? wk__desc_add(r->d, kind, link, name, r->file, wk__xml_line(el)) : WK_NO_NODE;
    if (node == WK_NO_NODE)
        return nomem(r);
    wk__desc_at(r->d, node)->relative_node = link;
    int rc = read_children(r, el, node, rules);
    if (rc == WK_OK && !wk__xml_child(el, "geometry"))
        return fail(r, el, WK_PARSE, "needs a <geometry>");
    return rc;
}

static const child_rule visual_rules[] = {
    {"origin", read_origin}, {"geometry", read_geometry}, {"material", read_material}, {NULL, NULL}};
static const child_rule collision_rules[] = {{"origin", read_origin}, {"geometry", read_geometry}, {NULL, NULL}};

static int read_visual(urdf_reader *r, xmlNodePtr el, uint32_t link)
{
    return read_shape(r, el, link, WK_NODE_VISUAL, visual_rules);
}

static int read_collision(urdf_reader *r, xmlNodePtr el, uint32_t link)
{
    return read_shape(r, el, link, WK_NODE_COLLISION, collision_rules);
}

static const child_rule link_rules[] = {
    {"inertial", read_inertial}, {"visual", read_visual}, {"collision", read_collision}, {NULL, NULL}};

/* Adds a node for el under parent, named by its required name attribute. */
static int add_named(urdf_reader *r, xmlNodePtr el, uint32_t parent, wk_node_kind kind, uint32_t *out)
{
    const char *name;
    int rc = name_attr(r, el, "name", &name);
    if (rc)
        return rc;
    *out = wk__desc_add(r->d, kind, parent, name, r->file, wk__xml_line(el));
    return *out == WK_NO_NODE ? nomem(r) : WK_OK;
}

/* A link's frame is placed when the tree is linked (link_tree). */
static int read_link(urdf_reader *r, xmlNodePtr el, uint32_t model)
{
    uint32_t node;
    int rc = add_named(r, el, model, WK_NODE_LINK, &node);
    return rc ? rc : read_children(r, el, node, link_rules);
}

/* ---- joints ------------------------------------------------------------ */

static const struct joint_rule {
    const char *name;
    wk_joint_type type;
    bool has_axis; /* the axis means something (a planar joint's is the plane normal) */
    bool limited;  /* needs a <limit>, whose lower and upper bound it */
} joint_rules[] = {
    {"fixed", WK_JOINT_FIXED, false, false},         {"revolute", WK_JOINT_REVOLUTE, true, true},
    {"continuous", WK_JOINT_CONTINUOUS, true, false}, {"prismatic", WK_JOINT_PRISMATIC, true, true},
    {"floating", WK_JOINT_FLOATING, false, false},   {"planar", WK_JOINT_PLANAR, true, false},
};

static const struct joint_rule *joint_rule_of(wk_joint_type type)
{
    size_t i = 0;
    while (joint_rules[i].type != type)
        i++;
    return &joint_rules[i];
}

static int read_parent(urdf_reader *r, xmlNodePtr el, uint32_t joint)
{
    return name_attr(r, el, "link", &wk__desc_at(r->d, joint)->joint.parent);
}

static int read_child(urdf_reader *r, xmlNodePtr el, uint32_t joint)
{
    return name_attr(r, el, "link", &wk__desc_at(r->d, joint)->joint.child);
}

/* Fixed and floating joints ignore their axis, and exporters often write a
 * zero one for them; only a joint that moves along its axis needs a real one. */
static int read_axis(urdf_reader *r, xmlNodePtr el, uint32_t joint)
{
    wk_vec3 xyz = {1, 0, 0};
    int rc = vec3_attr(r, el, "xyz", &xyz, false);
    if (rc)
        return rc;
    wk_joint_axis *axis = &wk__desc_at(r->d, joint)->joint.axis[0];
    double norm = wk_vec3_norm(xyz);
    if (norm > 0)
        axis->xyz = wk_vec3_scale(xyz, 1 / norm);
    else if (axis->present)
        return fail(r, el, WK_PARSE, "the axis is zero");
    return WK_OK;
}

/* lower and upper only bound revolute and prismatic joints (URDF ignores
 * them on continuous ones) and default to 0; effort and velocity are
 * required whatever the type. */
static int read_limit(urdf_reader *r, xmlNodePtr el, uint32_t joint)
{
    wk_node *j = wk__desc_at(r->d, joint);
    wk_joint_axis *axis = &j->joint.axis[0];
    int rc = numbers(r, el, "effort", &axis->effort, 1, true);
    if (rc == WK_OK)
        rc = numbers(r, el, "velocity", &axis->velocity, 1, true);
    if (rc || !joint_rule_of(j->joint.type)->limited)
        return rc;
    axis->lower = axis->upper = 0;
    rc = numbers(r, el, "lower", &axis->lower, 1, false);
    return rc ? rc : numbers(r, el, "upper", &axis->upper, 1, false);
}

static int read_dynamics(urdf_reader *r, xmlNodePtr el, uint32_t joint)
{
    wk_joint_axis *axis = &wk__desc_at(r->d, joint)->joint.axis[0];
    int rc = numbers(r, el, "damping", &axis->damping, 1, false);
    return rc ? rc : nonnegative(r, el, "friction", &axis->friction, false);
}

static int read_mimic(urdf_reader *r, xmlNodePtr el, uint32_t joint)
{
    wk_node *j = wk__desc_at(r->d, joint);
    j->joint.mimic_multiplier = 1;
    j->joint.mimic_offset = 0;
    int rc = name_attr(r, el, "joint", &j->joint.mimic_joint);
    if (rc == WK_OK)
        rc = numbers(r, el, "multiplier", &j->joint.mimic_multiplier, 1, false);
    return rc ? rc : numbers(r, el, "offset", &j->joint.mimic_offset, 1, false);
}

static const child_rule joint_child_rules[] = {
    {"origin", read_origin},     {"parent", read_parent},   {"child", read_child},
    {"axis", read_axis},         {"limit", read_limit},     {"dynamics", read_dynamics},
    {"mimic", read_mimic},       {NULL, NULL},
};

static int read_joint_type(urdf_reader *r, xmlNodePtr el, uint32_t joint)
{
    const char *type = wk__xml_attr(r->d, el, "type");
    size_t i = 0, n = sizeof joint_rules / sizeof joint_rules[0];
    while (type && i < n && strcmp(type, joint_rules[i].name))
        i++;
    if (!type || i == n)
        return fail(r, el, WK_PARSE, "type must be fixed, revolute, continuous, prismatic, floating or planar");
    wk__desc_at(r->d, joint)->joint.type = joint_rules[i].type;
    wk__desc_at(r->d, joint)->joint.axis[0] = (wk_joint_axis){
        .present = joint_rules[i].has_axis,
        .xyz = {1, 0, 0},
        .lower = -INFINITY,
        .upper = INFINITY,
        .effort = INFINITY,
        .velocity = INFINITY,
    };
    return WK_OK;
}

/* The joint is placed relative to its parent link when the tree is linked. */
static int read_joint(urdf_reader *r, xmlNodePtr el, uint32_t model)
{
    uint32_t node;
    int rc = add_named(r, el, model, WK_NODE_JOINT, &node);
    if (rc == WK_OK)
        rc = read_joint_type(r, el, node);
    if (rc == WK_OK)
        rc = read_children(r, el, node, joint_child_rules);
    if (rc)
        return rc;
    const wk_node *j = wk__desc_at(r->d, node);
    if (!j->joint.parent || !j->joint.child)
        return fail(r, el, WK_PARSE, "needs a <parent link> and a <child link>");
    if (joint_rule_of(j->joint.type)->limited && !wk__xml_child(el, "limit"))
        return fail(r, el, WK_PARSE, "a %s joint needs a <limit>", joint_rule_of(j->joint.type)->name);
    return WK_OK;
}

/* ---- the tree ---------------------------------------------------------- */

typedef struct named {
    const char *name;
    uint32_t node;
} named;

/* The model's links or joints, sorted by name (then by document order). */
typedef struct name_index {
    named *items;
    size_t count;
} name_index;

static int by_name(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Fills index with the model's children of the kind; fails on a name used
 * twice, naming the later one. */
static int index_kind(urdf_reader *r, uint32_t model, wk_node_kind kind, name_index *index)
{
    size_t n = 0;
    for (uint32_t c = wk__desc_at(r->d, model)->first_child; c != WK_NO_NODE; c = wk__desc_at(r->d, c)->next_sibling)
        n += wk__desc_at(r->d, c)->kind == kind;
    index->items = malloc((n ? n : 1) * sizeof *index->items);
    if (!index->items)
        return nomem(r);
    for (uint32_t c = wk__desc_at(r->d, model)->first_child; c != WK_NO_NODE; c = wk__desc_at(r->d, c)->next_sibling)
        if (wk__desc_at(r->d, c)->kind == kind)
            index->items[index->count++] = (named){wk__desc_at(r->d, c)->name, c};
    qsort(index->items, index->count, sizeof *index->items, by_name);
    for (size_t i = 1; i < index->count; i++)
        if (!strcmp(index->items[i - 1].name, index->items[i].name))
            return fail_node(r, index->items[i].node, "the name is already used on line %u",
                             wk__desc_at(r->d, index->items[i - 1].node)->line);
    return WK_OK;
}

static uint32_t find(const name_index *index, const char *name)
{
    size_t lo = 0, hi = index->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(index->items[mid].name, name);
        if (c == 0)
            return index->items[mid].node;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return WK_NO_NODE;
}

/* Hangs each joint below its parent link and each child link below its
 * joint; a link's relative_node left at WK_NO_NODE marks a root. */
static int link_joint(urdf_reader *r, uint32_t joint, const name_index *links, const name_index *joints)
{
    const wk_node *j = wk__desc_at(r->d, joint);
    uint32_t parent = find(links, j->joint.parent), child = find(links, j->joint.child);
    if (parent == WK_NO_NODE)
        return fail_node(r, joint, "its parent link '%s' does not exist", j->joint.parent);
    if (child == WK_NO_NODE)
        return fail_node(r, joint, "its child link '%s' does not exist", j->joint.child);
    if (j->joint.mimic_joint && find(joints, j->joint.mimic_joint) == WK_NO_NODE)
        return fail_node(r, joint, "it mimics joint '%s', which does not exist", j->joint.mimic_joint);
    uint32_t other = wk__desc_at(r->d, child)->relative_node;
    if (other != WK_NO_NODE)
        return fail_node(r, joint, "link '%s' is already the child of joint '%s'; a link has one parent joint",
                         j->joint.child, wk__desc_at(r->d, other)->name);
    wk__desc_at(r->d, child)->relative_node = joint;
    wk__desc_at(r->d, joint)->relative_node = parent;
    return WK_OK;
}

/* A link's parent link, through the parent joint link_joint gave it. */
static uint32_t parent_link(const wk_world_desc *d, uint32_t node, void *ctx)
{
    (void)ctx;
    const wk_node *n = wk_desc_node(d, node);
    return n->kind == WK_NODE_LINK && n->relative_node != WK_NO_NODE ? wk_desc_node(d, n->relative_node)->relative_node
                                                                     : WK_NO_NODE;
}

static int check_cycles(urdf_reader *r)
{
    uint32_t link;
    if (wk__desc_find_cycle(r->d, parent_link, NULL, &link))
        return nomem(r);
    return link == WK_NO_NODE ? WK_OK
                              : fail_node(r, wk__desc_at(r->d, link)->relative_node,
                                          "it closes a cycle through link '%s'; the joints must form a tree",
                                          wk__desc_at(r->d, link)->name);
}

/* Places the one link that is no joint's child at the model frame. */
static int place_root(urdf_reader *r, uint32_t model)
{
    uint32_t root = WK_NO_NODE;
    for (uint32_t c = wk__desc_at(r->d, model)->first_child; c != WK_NO_NODE; c = wk__desc_at(r->d, c)->next_sibling) {
        const wk_node *n = wk__desc_at(r->d, c);
        if (n->kind != WK_NODE_LINK || n->relative_node != WK_NO_NODE)
            continue;
        if (root != WK_NO_NODE)
            return fail_node(r, c, "it is a second root next to link '%s' (no joint has either as its child); the "
                                   "links must form one tree",
                             wk__desc_at(r->d, root)->name);
        root = c;
    }
    /* Without a root every link has a parent joint, which check_cycles has
     * already refused as a cycle. */
    wk__desc_at(r->d, root)->relative_node = model;
    wk__desc_at(r->d, model)->model.canonical_link = wk__desc_at(r->d, root)->name;
    return WK_OK;
}

static int link_tree(urdf_reader *r, xmlNodePtr robot, uint32_t model)
{
    name_index links = {0}, joints = {0};
    int rc = index_kind(r, model, WK_NODE_LINK, &links);
    if (rc == WK_OK)
        rc = index_kind(r, model, WK_NODE_JOINT, &joints);
    if (rc == WK_OK && links.count == 0)
        rc = fail(r, robot, WK_PARSE, "holds no <link>");
    for (uint32_t c = wk__desc_at(r->d, model)->first_child; rc == WK_OK && c != WK_NO_NODE;
         c = wk__desc_at(r->d, c)->next_sibling)
        if (wk__desc_at(r->d, c)->kind == WK_NODE_JOINT)
            rc = link_joint(r, c, &links, &joints);
    if (rc == WK_OK)
        rc = check_cycles(r);
    if (rc == WK_OK)
        rc = place_root(r, model);
    free(links.items);
    free(joints.items);
    return rc;
}

/* ---- the robot --------------------------------------------------------- */

/* <transmission> (actuators for ros_control) and <gazebo> extensions keep
 * nothing in worldkit: they are reported as unsupported. */
static const child_rule robot_rules[] = {
    {"link", read_link}, {"joint", read_joint}, {"material", read_material}, {NULL, NULL}};

int wk__urdf_read(wk_world_desc *d, const wk_read_desc *opts, const char *path, xmlDocPtr doc, wk_status *st)
{
    urdf_reader r = {.d = d, .opts = opts, .st = st, .file = wk__desc_strdup(d, path)};
    if (path && !r.file)
        return nomem(&r);
    xmlNodePtr robot = r.robot = xmlDocGetRootElement(doc);
    const char *name;
    int rc = name_attr(&r, robot, "name", &name);
    if (rc)
        return rc;
    uint32_t line = wk__xml_line(robot);
    uint32_t world = wk__desc_add(d, WK_NODE_WORLD, WK_NO_NODE, "default", r.file, line);
    uint32_t model = world == WK_NO_NODE ? WK_NO_NODE : wk__desc_add(d, WK_NODE_MODEL, world, name, r.file, line);
    if (model == WK_NO_NODE)
        return nomem(&r);
    rc = read_children(&r, robot, model, robot_rules);
    return rc ? rc : link_tree(&r, robot, model);
}
