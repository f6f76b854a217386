/* mjcf.c — the MJCF reader (MuJoCo's model format, as MuJoCo 2.2.2 reads
 * it) into a description.
 *
 * A MuJoCo file holds one model: a tree of bodies below the world body. It
 * becomes a world and one model, both named by <mujoco model>; every body is
 * a link of that model, every joint a joint of the model, and every geom,
 * site, camera and light a collision, frame, frame and light of its body's
 * link (or of the model for the world body's own). The node tree stays flat
 * like SDFormat's; the body tree lives in relative_node: a body's pose is in
 * its parent body's frame, everything else in its body's frame, and a joint's
 * frame is its body's frame moved to the joint's anchor. Unnamed elements are
 * named "<element><index>" by MuJoCo's index, which counts bodies in
 * depth-first order and the other elements body by body: so a body's own
 * elements are read before its child bodies.
 *
 * Attribute values follow MuJoCo's default classes: an element's value is
 * built from the top-level defaults, then each class down to the element's
 * (its class attribute, else the nearest childclass), then the element; each
 * level overwrites what it gives (a short size overwrites only its first
 * numbers). The five orientation forms are separate attributes, applied in
 * MuJoCo 2.2.2's order quat, axisangle, xyaxes, zaxis, euler, whatever level
 * gave them.
 *
 * <include> elements are replaced by the children of the included file's
 * root before reading, each copy tagged with its file for error messages.
 * As in MuJoCo, every path (includes, meshdir) is relative to the main file's
 * folder and a file is included once; worldkit also keeps each file to its
 * own folder and the resource path, by the asset rules. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/assets.h"
#include "formats/xml.h"

#define MAX_INCLUDE_DEPTH 16
#define PI 3.14159265358979323846
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A <default> element. The top-level sections together make the root class
 * (MuJoCo's "main"): each is a record whose parent is the section before it,
 * so that walking a chain from the root applies them in order. */
typedef struct mjcf_class {
    const char *name; /* NULL for a top-level section */
    const struct mjcf_class *parent;
    xmlNodePtr el;
    struct mjcf_class *next;
} mjcf_class;

typedef struct mjcf_mesh {
    const char *name, *uri, *path; /* path NULL when missing and ignored */
    wk_vec3 scale;
    struct mjcf_mesh *next;
} mjcf_mesh;

/* An included file. Its copied elements point to it from _private. */
typedef struct mjcf_file {
    const char *path, *real;       /* as resolved, and its realpath */
    const struct mjcf_file *from;  /* the file holding its <include>; NULL: the main file */
    struct mjcf_file *next;        /* all included files */
} mjcf_file;

/* The element kinds MuJoCo indexes, in the order of index_names. */
enum { BODY, JOINT, GEOM, SITE, CAMERA, LIGHT, INDEX_KINDS };
static const char *const index_names[INDEX_KINDS] = {"body", "joint", "geom", "site", "camera", "light"};

typedef struct mjcf_reader {
    wk_world_desc *d;
    const wk_read_desc *opts;
    wk_status *st;
    xmlDocPtr doc;
    const char *file;     /* the main file, in the arena; NULL for a string */
    const char *main_dir; /* its folder, absolute */
    /* <compiler> */
    bool degree, autolimits, strippath;
    char eulerseq[4];
    const char *meshdir;

    mjcf_class *classes;
    const mjcf_class *root; /* the last top-level section, NULL when none */
    const char *root_name;
    mjcf_mesh *meshes;
    mjcf_file *included;
    uint32_t model;
    uint32_t index[INDEX_KINDS];
} mjcf_reader;

/* The body whose content is being read. */
typedef struct body_ctx {
    const mjcf_class *cls; /* the childclass in force */
    uint32_t node;         /* its link, or the model for the world body */
    const char *name;      /* NULL for the world body */
    const char *parent;    /* its parent body's name, which joints name */
} body_ctx;

/* ---- errors ------------------------------------------------------------ */

/* The included file el came from, NULL for the main file. */
static const mjcf_file *included_from(xmlNodePtr el)
{
    for (xmlNodePtr n = el; n && n->type == XML_ELEMENT_NODE; n = n->parent)
        if (n->_private)
            return n->_private;
    return NULL;
}

static const char *file_of(const mjcf_reader *r, xmlNodePtr el)
{
    const mjcf_file *f = included_from(el);
    return f ? f->path : r->file;
}

static const char *where(const mjcf_reader *r, xmlNodePtr el)
{
    const char *f = file_of(r, el);
    return f ? f : "<string>";
}

static int nomem(mjcf_reader *r)
{
    return wk_fail(r->st, WK_NOMEM, "out of memory reading %s", r->file ? r->file : "<string>");
}

static int fail(mjcf_reader *r, xmlNodePtr el, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(mjcf_reader *r, xmlNodePtr el, int code, const char *fmt, ...)
{
    char what[WK_STATUS_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return wk_fail(r->st, code, "%s:%u: <%s>: %s", where(r, el), wk__xml_line(el), (const char *)el->name, what);
}

/* Reports something worldkit does not read: a warning, or
 * WK_UNSUPPORTED_ELEMENTS when the caller asked to fail on them. */
static int unsupported(mjcf_reader *r, xmlNodePtr el, const char *what)
{
    const char *parent = el->parent && el->parent->type == XML_ELEMENT_NODE ? (const char *)el->parent->name : "";
    if (r->opts->fail_on_unsupported_element)
        return fail(r, el, WK_UNSUPPORTED_ELEMENTS, "unsupported %s in <%s>", what, parent);
    return wk__desc_warn(r->d, "%s:%u: ignored unsupported %s in <%s>", where(r, el), wk__xml_line(el), what, parent)
               ? nomem(r)
               : WK_OK;
}

static int unsupported_element(mjcf_reader *r, xmlNodePtr el)
{
    return wk__xml_unsupported(r->d, r->opts, file_of(r, el), el, NULL, r->st);
}

/* ---- attributes and default classes ------------------------------------ */

/* The attributes worldkit reads from elements and their default classes.
 * X(name, fewest numbers, most numbers); strings have 0, 0. */
#define NUMBER_ATTRS(X)                                                                                    \
    X(pos, 3, 3) X(quat, 4, 4) X(axisangle, 4, 4) X(xyaxes, 6, 6) X(zaxis, 3, 3) X(euler, 3, 3)          \
        X(fromto, 6, 6) X(size, 1, 3) X(axis, 3, 3) X(range, 2, 2) X(damping, 1, 1) X(frictionloss, 1, 1) \
            X(dir, 3, 3) X(scale, 3, 3) X(mass, 1, 1) X(diaginertia, 3, 3) X(fullinertia, 6, 6)
#define STRING_ATTRS(X) X(type, 0, 0) X(mesh, 0, 0) X(limited, 0, 0) X(directional, 0, 0)

typedef struct attrs {
#define NUMBER_FIELD(name, lo, hi) double name[hi];
    NUMBER_ATTRS(NUMBER_FIELD)
#undef NUMBER_FIELD
#define STRING_FIELD(name, lo, hi) const char *name;
    STRING_ATTRS(STRING_FIELD)
#undef STRING_FIELD
    uint32_t given; /* one bit per attribute, HAS_<name> */
} attrs;

enum {
#define ATTR_BIT(name, lo, hi) HAS_##name,
    NUMBER_ATTRS(ATTR_BIT) STRING_ATTRS(ATTR_BIT)
#undef ATTR_BIT
};
#define GIVEN(a, name) (((a)->given >> HAS_##name) & 1u)
#define ORIENTATION_BITS \
    ((1u << HAS_quat) | (1u << HAS_axisangle) | (1u << HAS_xyaxes) | (1u << HAS_zaxis) | (1u << HAS_euler))

static const struct attr_rule {
    const char *name;
    size_t offset;
    int min, max; /* 0, 0: a string */
} attr_rules[] = {
#define ATTR_RULE(name, lo, hi) {#name, offsetof(attrs, name), lo, hi},
    NUMBER_ATTRS(ATTR_RULE) STRING_ATTRS(ATTR_RULE)
#undef ATTR_RULE
};

/* MuJoCo's values when nothing gives an attribute. */
static attrs builtin_attrs(void)
{
    return (attrs){.quat = {1, 0, 0, 0}, .axis = {0, 0, 1}, .dir = {0, 0, -1}, .scale = {1, 1, 1}};
}

/* Reads the attributes one level (a default child or the element) gives. */
static int read_level(mjcf_reader *r, xmlNodePtr level, attrs *a)
{
    uint32_t own = 0;
    for (size_t i = 0; i < COUNT(attr_rules); i++) {
        const struct attr_rule *rule = &attr_rules[i];
        xmlAttrPtr attr = xmlHasProp(level, (const xmlChar *)rule->name);
        if (!attr)
            continue;
        char *field = (char *)a + rule->offset;
        if (rule->max == 0) {
            const char *s = wk__xml_attr(r->d, level, rule->name);
            if (!s)
                return nomem(r);
            memcpy(field, &s, sizeof s);
        } else {
            /* An attribute node's content is its value. */
            int n = wk__xml_numbers((xmlNodePtr)attr, (double *)(void *)field, rule->max);
            if (n < rule->min)
                return fail(r, level, WK_PARSE, "attribute %s: expected %s%d finite number%s", rule->name,
                            rule->min < rule->max ? "1 to " : "", rule->max, rule->max > 1 ? "s" : "");
        }
        own |= 1u << i;
    }
    uint32_t forms = own & ORIENTATION_BITS;
    if (forms & (forms - 1))
        return fail(r, level, WK_PARSE, "more than one of quat, axisangle, xyaxes, zaxis and euler");
    a->given |= own;
    return WK_OK;
}

/* Applies the levels of cls, outermost first: their children named tag. */
static int read_class(mjcf_reader *r, const mjcf_class *cls, const xmlChar *tag, attrs *a)
{
    int rc = cls && cls->parent ? read_class(r, cls->parent, tag, a) : WK_OK;
    for (xmlNodePtr c = cls ? wk__xml_first(cls->el) : NULL; rc == WK_OK && c; c = wk__xml_next(c))
        if (xmlStrEqual(c->name, tag))
            rc = read_level(r, c, a);
    return rc;
}

/* el's attributes over its class's and MuJoCo's defaults, into *a. */
static int read_attrs(mjcf_reader *r, xmlNodePtr el, const mjcf_class *cls, attrs *a)
{
    *a = builtin_attrs();
    int rc = read_class(r, cls, el->name, a);
    return rc ? rc : read_level(r, el, a);
}

static int class_of(mjcf_reader *r, xmlNodePtr el, const char *attr, const mjcf_class *inherited,
                    const mjcf_class **out);

/* The attributes of el, an element of body b, over its class. */
static int element_attrs(mjcf_reader *r, xmlNodePtr el, const body_ctx *b, attrs *a)
{
    const mjcf_class *cls;
    int rc = class_of(r, el, "class", b->cls, &cls);
    return rc ? rc : read_attrs(r, el, cls, a);
}

/* Finds a class by name; *out is NULL for "main" when no defaults exist. */
static bool find_class(const mjcf_reader *r, const char *name, const mjcf_class **out)
{
    *out = NULL;
    if (!strcmp(name, r->root_name)) {
        *out = r->root;
        return true;
    }
    for (const mjcf_class *c = r->classes; c; c = c->next)
        if (c->name && !strcmp(c->name, name))
            return (*out = c), true;
    return false;
}

/* The class named by el's attr, or inherited when el has none. */
static int class_of(mjcf_reader *r, xmlNodePtr el, const char *attr, const mjcf_class *inherited,
                    const mjcf_class **out)
{
    const char *name = wk__xml_attr(r->d, el, attr);
    *out = inherited;
    if (name && !find_class(r, name, out))
        return fail(r, el, WK_PARSE, "unknown default class '%s'", name);
    return WK_OK;
}

/* Picks attr's value of el among words (NULL-terminated) into *out, which
 * keeps its value when el has no attr. */
static int keyword(mjcf_reader *r, xmlNodePtr el, const char *attr, const char *value, const char *const *words,
                   int *out)
{
    if (!value)
        return WK_OK;
    for (int i = 0; words[i]; i++)
        if (!strcmp(value, words[i]))
            return (*out = i), WK_OK;
    char list[128] = "";
    for (size_t i = 0, len = 0; words[i] && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", words[i]);
    return fail(r, el, WK_PARSE, "attribute %s must be one of %s, not '%s'", attr, list, value);
}

static const char *const false_true[] = {"false", "true", NULL};

static int flag(mjcf_reader *r, xmlNodePtr el, const char *attr, bool *out)
{
    int v = *out;
    int rc = keyword(r, el, attr, wk__xml_attr(r->d, el, attr), false_true, &v);
    *out = v;
    return rc;
}

/* ---- orientation ------------------------------------------------------- */

static wk_vec3 unit_axis(int axis)
{
    return (wk_vec3){axis == 0, axis == 1, axis == 2};
}

static wk_quat rotation(wk_vec3 unit, double angle)
{
    double s = sin(angle / 2);
    return (wk_quat){cos(angle / 2), s * unit.x, s * unit.y, s * unit.z};
}

/* The minimal rotation taking the z axis to unit v, as MuJoCo computes it
 * (about x by pi when v is -z). */
static wk_quat z_to(wk_vec3 v)
{
    wk_vec3 axis = wk_vec3_cross((wk_vec3){0, 0, 1}, v);
    double s = wk_vec3_norm(axis);
    axis = s < 1e-10 ? unit_axis(0) : wk_vec3_scale(axis, 1 / s);
    return rotation(axis, atan2(s, v.z));
}

/* The rotation whose columns are the orthonormal axes x, y, z. */
static wk_quat from_axes(wk_vec3 x, wk_vec3 y, wk_vec3 z)
{
    double trace = x.x + y.y + z.z, s;
    if (trace > 0) {
        s = 2 * sqrt(trace + 1);
        return (wk_quat){s / 4, (y.z - z.y) / s, (z.x - x.z) / s, (x.y - y.x) / s};
    }
    if (x.x > y.y && x.x > z.z) {
        s = 2 * sqrt(1 + x.x - y.y - z.z);
        return (wk_quat){(y.z - z.y) / s, s / 4, (y.x + x.y) / s, (z.x + x.z) / s};
    }
    if (y.y > z.z) {
        s = 2 * sqrt(1 + y.y - x.x - z.z);
        return (wk_quat){(z.x - x.z) / s, (y.x + x.y) / s, s / 4, (z.y + y.z) / s};
    }
    s = 2 * sqrt(1 + z.z - x.x - y.y);
    return (wk_quat){(x.y - y.x) / s, (z.x + x.z) / s, (z.y + y.z) / s, s / 4};
}

static wk_vec3 vec3(const double *v)
{
    return (wk_vec3){v[0], v[1], v[2]};
}

/* Normalises v into *out; false when it is too short to have a direction. */
static bool direction(wk_vec3 v, wk_vec3 *out)
{
    double n = wk_vec3_norm(v);
    if (!(n >= 1e-14))
        return false;
    *out = wk_vec3_scale(v, 1 / n);
    return true;
}

static double angle_unit(const mjcf_reader *r)
{
    return r->degree ? PI / 180 : 1;
}

/* Each form sets *q from a, or returns why it cannot. */
typedef const char *(*form_fn)(const mjcf_reader *r, const attrs *a, wk_quat *q);

static const char *from_quat(const mjcf_reader *r, const attrs *a, wk_quat *q)
{
    (void)r;
    return wk_quat_normalize((wk_quat){a->quat[0], a->quat[1], a->quat[2], a->quat[3]}, q) ? "quat is zero" : NULL;
}

static const char *from_axisangle(const mjcf_reader *r, const attrs *a, wk_quat *q)
{
    wk_vec3 axis;
    if (!direction(vec3(a->axisangle), &axis))
        return "the axisangle axis is zero";
    *q = rotation(axis, a->axisangle[3] * angle_unit(r));
    return NULL;
}

static const char *from_xyaxes(const mjcf_reader *r, const attrs *a, wk_quat *q)
{
    (void)r;
    wk_vec3 x, y, z;
    if (!direction(vec3(a->xyaxes), &x))
        return "the xyaxes x axis is zero";
    /* y loses its part along x, as in MuJoCo. */
    wk_vec3 y_raw = vec3(a->xyaxes + 3);
    if (!direction(wk_vec3_sub(y_raw, wk_vec3_scale(x, wk_vec3_dot(x, y_raw))), &y))
        return "the xyaxes y axis is zero or parallel to x";
    if (!direction(wk_vec3_cross(x, y), &z))
        return "the xyaxes axes are parallel";
    *q = from_axes(x, y, z);
    return NULL;
}

static const char *from_zaxis(const mjcf_reader *r, const attrs *a, wk_quat *q)
{
    (void)r;
    wk_vec3 z;
    if (!direction(vec3(a->zaxis), &z))
        return "zaxis is zero";
    *q = z_to(z);
    return NULL;
}

/* Lowercase axes of the compiler's eulerseq rotate with the frame
 * (intrinsic, multiplied on the right), uppercase ones stay fixed
 * (extrinsic, multiplied on the left). */
static const char *from_euler(const mjcf_reader *r, const attrs *a, wk_quat *q)
{
    *q = wk_quat_identity();
    for (int i = 0; i < 3; i++) {
        char c = r->eulerseq[i];
        bool fixed = c >= 'X' && c <= 'Z';
        wk_quat step = rotation(unit_axis(fixed ? c - 'X' : c - 'x'), a->euler[i] * angle_unit(r));
        *q = fixed ? wk_quat_mul(step, *q) : wk_quat_mul(*q, step);
    }
    return NULL;
}

/* MuJoCo 2.2.2's order: each form given overrides the ones before. */
static const struct orientation_form {
    int bit;
    form_fn to_quat;
} forms[] = {
    {HAS_quat, from_quat},   {HAS_axisangle, from_axisangle}, {HAS_xyaxes, from_xyaxes},
    {HAS_zaxis, from_zaxis}, {HAS_euler, from_euler},
};

/* The pose a gives by pos and the orientation forms. */
static int pose_of(mjcf_reader *r, xmlNodePtr el, const attrs *a, wk_pose *out)
{
    *out = (wk_pose){vec3(a->pos), wk_quat_identity()};
    for (size_t i = COUNT(forms); i-- > 0;) {
        if (!((a->given >> forms[i].bit) & 1u))
            continue;
        const char *why = forms[i].to_quat(r, a, &out->q);
        return why ? fail(r, el, WK_PARSE, "%s", why) : WK_OK;
    }
    return WK_OK;
}

/* ---- nodes ------------------------------------------------------------- */

/* Adds a node for el named by its name attribute, or by MuJoCo's index of
 * its kind when unnamed. */
static int add_node(mjcf_reader *r, xmlNodePtr el, wk_node_kind kind, int index_kind, uint32_t parent,
                    uint32_t *out)
{
    const char *name = wk__xml_attr(r->d, el, "name");
    char generated[32];
    uint32_t index = index_kind == BODY ? ++r->index[BODY] : r->index[index_kind]++;
    if (!name || !name[0]) {
        snprintf(generated, sizeof generated, "%s%u", index_names[index_kind], index);
        name = generated;
    }
    *out = wk__desc_add(r->d, kind, parent, name, file_of(r, el), wk__xml_line(el));
    return *out == WK_NO_NODE ? nomem(r) : WK_OK;
}

/* Adds a node for an element of a body, posed in the body's frame. */
static int add_body_node(mjcf_reader *r, xmlNodePtr el, const body_ctx *b, wk_node_kind kind, int index_kind,
                         const wk_pose *pose, uint32_t *out)
{
    int rc = add_node(r, el, kind, index_kind, b->node, out);
    if (rc == WK_OK) {
        wk_node *n = wk__desc_at(r->d, *out);
        n->pose = *pose;
        n->relative_node = b->node;
    }
    return rc;
}

/* ---- geoms and sites --------------------------------------------------- */

static const struct shape {
    const char *name;
    wk_geometry_type type;
    int fromto_axis;      /* the size index fromto sets to half its length; 0: no fromto */
    bool radius_length;   /* radius = size[0], length = 2 size[1] */
    wk_vec3 size_scale;   /* geometry size = scale * MuJoCo size (which holds half sizes) */
} shapes[] = {
    {"sphere", WK_GEOMETRY_SPHERE, 0, true, {0, 0, 0}},    {"capsule", WK_GEOMETRY_CAPSULE, 1, true, {0, 0, 0}},
    {"cylinder", WK_GEOMETRY_CYLINDER, 1, true, {0, 0, 0}}, {"ellipsoid", WK_GEOMETRY_ELLIPSOID, 2, false, {1, 1, 1}},
    {"box", WK_GEOMETRY_BOX, 2, false, {2, 2, 2}},         {"plane", WK_GEOMETRY_PLANE, 0, false, {2, 2, 0}},
    {"mesh", WK_GEOMETRY_MESH, 0, false, {0, 0, 0}},       {"hfield", WK_GEOMETRY_HEIGHTMAP, 0, false, {0, 0, 0}},
};

static int shape_of(mjcf_reader *r, xmlNodePtr el, const attrs *a, const struct shape **out)
{
    const char *type = a->type ? a->type : "sphere";
    for (size_t i = 0; i < COUNT(shapes); i++)
        if (!strcmp(type, shapes[i].name))
            return (*out = &shapes[i]), WK_OK;
    return fail(r, el, WK_PARSE, "unknown type '%s'", type);
}

/* A geom's or site's pose; fromto, when given, places the shape's z axis
 * along the segment (from its end to its start, as MuJoCo does) and sets its
 * half-length in a->size. */
static int shape_pose(mjcf_reader *r, xmlNodePtr el, const struct shape *s, attrs *a, wk_pose *pose)
{
    if (!GIVEN(a, fromto))
        return pose_of(r, el, a, pose);
    if (!s->fromto_axis)
        return fail(r, el, WK_PARSE, "fromto needs a capsule, cylinder, ellipsoid or box");
    wk_vec3 from = vec3(a->fromto), to = vec3(a->fromto + 3), along;
    if (!direction(wk_vec3_sub(from, to), &along))
        return fail(r, el, WK_PARSE, "fromto has two equal ends");
    *pose = (wk_pose){wk_vec3_scale(wk_vec3_add(from, to), 0.5), z_to(along)};
    if (s->fromto_axis == 2)
        a->size[1] = a->size[0];
    a->size[s->fromto_axis] = wk_vec3_norm(wk_vec3_sub(from, to)) / 2;
    return WK_OK;
}

static const mjcf_mesh *find_mesh(const mjcf_reader *r, const char *name)
{
    for (const mjcf_mesh *m = r->meshes; m; m = m->next)
        if (!strcmp(m->name, name))
            return m;
    return NULL;
}

static int geometry(mjcf_reader *r, xmlNodePtr el, const struct shape *s, const attrs *a, wk_geometry *g)
{
    *g = (wk_geometry){.type = s->type, .normal = {0, 0, 1}, .scale = {1, 1, 1}};
    if (s->radius_length) {
        g->radius = a->size[0];
        g->length = s->type == WK_GEOMETRY_SPHERE ? 0 : 2 * a->size[1];
    }
    g->size = (wk_vec3){s->size_scale.x * a->size[0], s->size_scale.y * a->size[1], s->size_scale.z * a->size[2]};
    if (s->type == WK_GEOMETRY_HEIGHTMAP) {
        g->type = WK_GEOMETRY_NONE;
        return unsupported(r, el, "geom type hfield");
    }
    if (s->type != WK_GEOMETRY_MESH)
        return WK_OK;
    const mjcf_mesh *m = a->mesh ? find_mesh(r, a->mesh) : NULL;
    if (!m)
        return fail(r, el, WK_PARSE, a->mesh ? "unknown mesh '%s'" : "a mesh geom needs a mesh attribute%s",
                    a->mesh ? a->mesh : "");
    g->uri = m->uri;
    g->path = m->path;
    g->scale = m->scale;
    return WK_OK;
}

static int read_geom(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    attrs a;
    const struct shape *s;
    wk_pose pose;
    wk_geometry g;
    uint32_t node;
    int rc = element_attrs(r, el, b, &a);
    rc = rc ? rc : shape_of(r, el, &a, &s);
    rc = rc ? rc : shape_pose(r, el, s, &a, &pose);
    rc = rc ? rc : geometry(r, el, s, &a, &g);
    rc = rc ? rc : add_body_node(r, el, b, WK_NODE_COLLISION, GEOM, &pose, &node);
    if (rc == WK_OK)
        wk__desc_at(r->d, node)->shape.geometry = g;
    return rc;
}

/* Sites and cameras are frames of their body. A camera has no type, so it
 * reads as a sphere without fromto: its pose is pos and orientation. */
static int read_frame(mjcf_reader *r, xmlNodePtr el, const body_ctx *b, int index_kind)
{
    attrs a;
    const struct shape *s;
    wk_pose pose;
    uint32_t node;
    int rc = element_attrs(r, el, b, &a);
    rc = rc ? rc : shape_of(r, el, &a, &s);
    rc = rc ? rc : shape_pose(r, el, s, &a, &pose);
    rc = rc ? rc : add_body_node(r, el, b, WK_NODE_FRAME, index_kind, &pose, &node);
    if (rc == WK_OK)
        wk__desc_at(r->d, node)->frame.attached_to = b->name;
    return rc;
}

static int read_site(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    return read_frame(r, el, b, SITE);
}

static int read_camera(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    return read_frame(r, el, b, CAMERA);
}

/* ---- lights, joints, inertials ------------------------------------------ */

/* A light shines along its dir; its node's -z axis is that direction, as an
 * SDFormat light's default direction is. */
static int read_light(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    static const char *const light_types[] = {"spot", "directional", NULL};
    attrs a;
    wk_vec3 minus_dir;
    int directional = 0;
    uint32_t node;
    int rc = element_attrs(r, el, b, &a);
    rc = rc ? rc : keyword(r, el, "directional", a.directional, false_true, &directional);
    if (rc)
        return rc;
    if (!direction(wk_vec3_scale(vec3(a.dir), -1), &minus_dir))
        return fail(r, el, WK_PARSE, "dir is zero");
    wk_pose pose = {vec3(a.pos), z_to(minus_dir)};
    if ((rc = add_body_node(r, el, b, WK_NODE_LIGHT, LIGHT, &pose, &node)) == WK_OK)
        wk__desc_at(r->d, node)->light.type = light_types[directional];
    return rc;
}

static const struct joint_kind {
    const char *name;
    wk_joint_type type;
    bool has_axis, angular;
} joint_kinds[] = {
    {"free", WK_JOINT_FLOATING, false, false},
    {"ball", WK_JOINT_BALL, false, true},
    {"slide", WK_JOINT_PRISMATIC, true, false},
    {"hinge", WK_JOINT_REVOLUTE, true, true},
};

/* Whether the joint is limited: limited="auto" (the default) means "when a
 * range is given" under autolimits, and MuJoCo 2.2.2 refuses a range it
 * cannot decide about otherwise. */
static int joint_limited(mjcf_reader *r, xmlNodePtr el, const attrs *a, bool *limited)
{
    static const char *const words[] = {"false", "true", "auto", NULL};
    int v = 2;
    int rc = keyword(r, el, "limited", a->limited, words, &v);
    if (rc == WK_OK && v == 2 && GIVEN(a, range) && !r->autolimits)
        rc = fail(r, el, WK_PARSE,
                  "a range without limited=\"true\" or \"false\" needs <compiler autolimits=\"true\">");
    *limited = v == 2 ? GIVEN(a, range) : v == 1;
    return rc;
}

/* A joint's node belongs to the model; its pose is its anchor in the body. */
static int add_joint(mjcf_reader *r, xmlNodePtr el, const body_ctx *b, const char *type, const attrs *a)
{
    const struct joint_kind *k = joint_kinds;
    while (k < joint_kinds + COUNT(joint_kinds) && strcmp(type, k->name))
        k++;
    if (k == joint_kinds + COUNT(joint_kinds))
        return fail(r, el, WK_PARSE, "unknown joint type '%s'", type);
    wk_vec3 axis = {0, 0, 1};
    if (k->has_axis && !direction(vec3(a->axis), &axis))
        return fail(r, el, WK_PARSE, "the axis is zero");
    bool limited = false;
    uint32_t node;
    int rc = k->has_axis ? joint_limited(r, el, a, &limited) : WK_OK;
    if (rc || (rc = add_node(r, el, WK_NODE_JOINT, JOINT, r->model, &node)))
        return rc;
    wk_node *j = wk__desc_at(r->d, node);
    j->pose = (wk_pose){vec3(a->pos), wk_quat_identity()};
    j->relative_node = b->node;
    j->joint.type = k->type;
    j->joint.parent = b->parent;
    j->joint.child = b->name;
    double unit = k->angular ? angle_unit(r) : 1;
    j->joint.axis[0] = (wk_joint_axis){
        .present = k->has_axis,
        .xyz = axis,
        .lower = limited ? a->range[0] * unit : -INFINITY,
        .upper = limited ? a->range[1] * unit : INFINITY,
        .effort = INFINITY,
        .velocity = INFINITY,
        .damping = a->damping[0],
        .friction = a->frictionloss[0],
    };
    return WK_OK;
}

static int read_joint(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    attrs a;
    int rc = element_attrs(r, el, b, &a);
    return rc ? rc : add_joint(r, el, b, a.type ? a.type : "hinge", &a);
}

/* <freejoint> takes no class: only its name. */
static int read_freejoint(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    attrs a = builtin_attrs();
    return add_joint(r, el, b, "free", &a);
}

static int read_inertial(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    attrs a = builtin_attrs();
    wk_inertial in = {.present = true};
    int rc = read_level(r, el, &a);
    if (rc == WK_OK && !GIVEN(&a, diaginertia) == !GIVEN(&a, fullinertia))
        rc = fail(r, el, WK_PARSE, "needs one of diaginertia and fullinertia");
    bool full = GIVEN(&a, fullinertia);
    /* MuJoCo takes a full tensor in the body's axes. */
    if (rc == WK_OK && full && (a.given & ORIENTATION_BITS))
        rc = fail(r, el, WK_PARSE, "fullinertia takes no orientation");
    rc = rc ? rc : pose_of(r, el, &a, &in.pose);
    if (rc)
        return rc;
    const double *i = full ? a.fullinertia : a.diaginertia;
    in.mass = a.mass[0];
    in.ixx = i[0], in.iyy = i[1], in.izz = i[2];
    in.ixy = full ? i[3] : 0, in.ixz = full ? i[4] : 0, in.iyz = full ? i[5] : 0;
    wk__desc_at(r->d, b->node)->link.inertial = in;
    return WK_OK;
}

/* ---- bodies ------------------------------------------------------------ */

typedef int (*item_fn)(mjcf_reader *r, xmlNodePtr el, const body_ctx *b);

/* What a body holds besides bodies; plugins change no pose. */
static const struct item_rule {
    const char *name;
    item_fn read; /* NULL: known, nothing to keep */
    bool body_only; /* refused in the world body */
} body_items[] = {
    {"geom", read_geom, false},          {"site", read_site, false},       {"camera", read_camera, false},
    {"light", read_light, false},        {"joint", read_joint, true},      {"freejoint", read_freejoint, true},
    {"inertial", read_inertial, true},   {"body", NULL, false},            {"plugin", NULL, false},
};

/* The first pass over a body: everything but its child bodies. */
static int read_items(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    for (xmlNodePtr c = wk__xml_first(el); c; c = wk__xml_next(c)) {
        const struct item_rule *rule = body_items;
        while (rule < body_items + COUNT(body_items) && !wk__xml_is(c, rule->name))
            rule++;
        int rc = rule == body_items + COUNT(body_items) ? unsupported_element(r, c)
                 : rule->body_only && !b->name         ? fail(r, c, WK_PARSE, "the world body cannot hold one")
                 : rule->read                          ? rule->read(r, c, b)
                                                       : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

static int read_body(mjcf_reader *r, xmlNodePtr el, const body_ctx *parent);

/* The second pass: the child bodies, depth first. */
static int read_bodies(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    for (xmlNodePtr c = wk__xml_first(el); c; c = wk__xml_next(c)) {
        int rc = wk__xml_is(c, "body") ? read_body(r, c, b) : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

static int read_body(mjcf_reader *r, xmlNodePtr el, const body_ctx *parent)
{
    body_ctx b = {.parent = parent->name ? parent->name : "world"};
    attrs a;
    wk_pose pose;
    int rc = class_of(r, el, "childclass", parent->cls, &b.cls);
    rc = rc ? rc : read_attrs(r, el, NULL, &a); /* bodies take no defaults */
    rc = rc ? rc : pose_of(r, el, &a, &pose);
    rc = rc ? rc : add_node(r, el, WK_NODE_LINK, BODY, r->model, &b.node);
    if (rc)
        return rc;
    wk_node *link = wk__desc_at(r->d, b.node);
    link->pose = pose;
    link->relative_node = parent->node;
    b.name = link->name;
    rc = read_items(r, el, &b);
    return rc ? rc : read_bodies(r, el, &b);
}

/* The world body may come in several <worldbody> sections: its own elements
 * come first in MuJoCo's indices, then its bodies. */
static int read_world(mjcf_reader *r, xmlNodePtr root)
{
    body_ctx world = {.cls = r->root, .node = r->model};
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(root); rc == WK_OK && c; c = wk__xml_next(c))
        rc = wk__xml_is(c, "worldbody") ? read_items(r, c, &world) : WK_OK;
    for (xmlNodePtr c = wk__xml_first(root); rc == WK_OK && c; c = wk__xml_next(c))
        rc = wk__xml_is(c, "worldbody") ? read_bodies(r, c, &world) : WK_OK;
    return rc;
}

/* ---- paths and includes ------------------------------------------------- */

/* The uri of file as MuJoCo finds it: in dir (may be NULL), both relative
 * to the main file's folder. Elements of the main file keep it relative
 * (the asset rules resolve it from there); included ones get it absolute. */
static const char *main_relative(mjcf_reader *r, xmlNodePtr el, const char *dir, const char *file)
{
    bool absolute = file[0] == '/';
    const char *base = absolute || file_of(r, el) == r->file ? "" : r->main_dir;
    const char *sub = dir && dir[0] && !absolute ? dir : "";
    size_t len = strlen(base) + strlen(sub) + strlen(file) + 3;
    char *uri = wk__desc_alloc(r->d, len);
    if (uri)
        snprintf(uri, len, "%s%s%s%s%s", base, base[0] ? "/" : "", sub, sub[0] ? "/" : "", file);
    return uri;
}

/* Refuses a file already on el's chain of includes (a cycle) or already
 * included elsewhere (MuJoCo reads a file once), and deep chains; records
 * the file in *out. */
static int check_include(mjcf_reader *r, xmlNodePtr el, const char *path, const char *real, const mjcf_file **out)
{
    const mjcf_file *from = included_from(el);
    int depth = 0;
    char main_real[PATH_MAX];
    for (const mjcf_file *f = from; f; f = f->from, depth++)
        if (!strcmp(f->real, real))
            return fail(r, el, WK_PARSE, "include cycle: %s includes itself", f->path);
    if (r->file && realpath(r->file, main_real) && !strcmp(main_real, real))
        return fail(r, el, WK_PARSE, "include cycle: the main file includes itself");
    if (depth >= MAX_INCLUDE_DEPTH)
        return fail(r, el, WK_PARSE, "includes nest deeper than %d levels", MAX_INCLUDE_DEPTH);
    for (const mjcf_file *f = r->included; f; f = f->next)
        if (!strcmp(f->real, real))
            return fail(r, el, WK_PARSE, "%s is already included (MuJoCo includes a file once)", f->path);
    mjcf_file *f = wk__desc_alloc(r->d, sizeof *f);
    const char *real_copy = wk__desc_strdup(r->d, real);
    if (!f || !real_copy)
        return nomem(r);
    *f = (mjcf_file){.path = path, .real = real_copy, .from = from, .next = r->included};
    *out = r->included = f;
    return WK_OK;
}

/* Puts copies of the children of the included file's root before el. */
static int splice(mjcf_reader *r, xmlNodePtr el, const mjcf_file *file)
{
    xmlDocPtr doc = wk__xml_parse(file->path, NULL, r->st);
    if (!doc)
        return r->st->code;
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(xmlDocGetRootElement(doc)); rc == WK_OK && c; c = wk__xml_next(c)) {
        xmlNodePtr copy = xmlDocCopyNode(c, r->doc, 1);
        if (!copy) {
            rc = nomem(r);
            break;
        }
        copy->_private = (void *)file;
        xmlAddPrevSibling(el, copy);
    }
    xmlFreeDoc(doc);
    return rc;
}

/* Replaces el, an <include>, by the included file's content. */
static int include(mjcf_reader *r, xmlNodePtr el)
{
    const char *file = wk__xml_attr(r->d, el, "file"), *uri = NULL, *path = NULL;
    char real[PATH_MAX];
    int rc = !file || !file[0]                          ? fail(r, el, WK_PARSE, "needs a file attribute")
             : !(uri = main_relative(r, el, NULL, file)) ? nomem(r)
                                                          : wk__asset_resolve(r->d, r->opts, file_of(r, el), uri, false,
                                                                              wk__xml_line(el), &path, r->st);
    if (rc == WK_OK && path && !realpath(path, real))
        rc = fail(r, el, WK_MISSING_ASSETS, "cannot resolve %s", path);
    const mjcf_file *included = NULL;
    rc = rc || !path ? rc : check_include(r, el, path, real, &included); /* no path: missing and ignored */
    rc = rc || !path ? rc : splice(r, el, included);
    xmlUnlinkNode(el);
    xmlFreeNode(el);
    return rc;
}

/* Expands the includes below el, and those the included content holds:
 * reading goes on at the first spliced element. */
static int expand_includes(mjcf_reader *r, xmlNodePtr el)
{
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(el); rc == WK_OK && c;) {
        if (!wk__xml_is(c, "include")) {
            rc = expand_includes(r, c);
            c = wk__xml_next(c);
            continue;
        }
        xmlNodePtr before = c->prev;
        rc = include(r, c);
        c = before ? wk__xml_next(before) : wk__xml_first(el);
    }
    return rc;
}

/* ---- compiler, defaults, assets ------------------------------------------ */

static int read_compiler(mjcf_reader *r, xmlNodePtr el)
{
    static const char *const angles[] = {"radian", "degree", NULL};
    static const char *const coordinates[] = {"local", "global", NULL};
    int degree = r->degree, global = 0;
    int rc = keyword(r, el, "angle", wk__xml_attr(r->d, el, "angle"), angles, &degree);
    rc = rc ? rc : keyword(r, el, "coordinate", wk__xml_attr(r->d, el, "coordinate"), coordinates, &global);
    rc = rc ? rc : flag(r, el, "autolimits", &r->autolimits);
    rc = rc ? rc : flag(r, el, "strippath", &r->strippath);
    if (rc)
        return rc;
    /* Global coordinates change the meaning of every pose: never ignored. */
    if (global)
        return fail(r, el, WK_UNSUPPORTED_ELEMENTS, "coordinate=\"global\" is not supported");
    r->degree = degree;
    const char *seq = wk__xml_attr(r->d, el, "eulerseq");
    if (seq && (strlen(seq) != 3 || strspn(seq, "xyzXYZ") != 3))
        return fail(r, el, WK_PARSE, "eulerseq must be three of x, y, z, X, Y, Z, not '%s'", seq);
    if (seq)
        memcpy(r->eulerseq, seq, 4);
    /* assetdir sets meshdir, which meshdir itself overrides. */
    const char *assetdir = wk__xml_attr(r->d, el, "assetdir"), *meshdir = wk__xml_attr(r->d, el, "meshdir");
    r->meshdir = meshdir ? meshdir : assetdir ? assetdir : r->meshdir;
    return WK_OK;
}

/* Records a <default> and its nested classes. top: a top-level section,
 * which is the root class whatever its class attribute says; as in MuJoCo,
 * that attribute renames the root. */
static int read_default(mjcf_reader *r, xmlNodePtr el, const mjcf_class *parent, bool top)
{
    mjcf_class *c = wk__desc_alloc(r->d, sizeof *c);
    if (!c)
        return nomem(r);
    const char *name = wk__xml_attr(r->d, el, "class");
    const mjcf_class *existing;
    if (!top && !name)
        return fail(r, el, WK_PARSE, "a nested default needs a class attribute");
    if (!top && find_class(r, name, &existing))
        return fail(r, el, WK_PARSE, "default class '%s' is defined twice", name);
    *c = (mjcf_class){.name = top ? NULL : name, .parent = top ? r->root : parent, .el = el, .next = r->classes};
    r->classes = c;
    if (top) {
        r->root = c;
        r->root_name = name ? name : "main";
    }
    for (xmlNodePtr k = wk__xml_first(el); k; k = wk__xml_next(k)) {
        int rc = wk__xml_is(k, "default") ? read_default(r, k, c, false) : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

static int read_default_section(mjcf_reader *r, xmlNodePtr el)
{
    return read_default(r, el, NULL, true);
}

/* A mesh asset: its name defaults to its file's name without folder and
 * extension; its file is found in meshdir. */
static int read_mesh(mjcf_reader *r, xmlNodePtr el)
{
    const mjcf_class *cls;
    attrs a;
    mjcf_mesh *m = wk__desc_alloc(r->d, sizeof *m);
    if (!m)
        return nomem(r);
    int rc = class_of(r, el, "class", r->root, &cls);
    rc = rc ? rc : read_attrs(r, el, cls, &a);
    if (rc)
        return rc;
    const char *file = wk__xml_attr(r->d, el, "file"), *name = wk__xml_attr(r->d, el, "name");
    *m = (mjcf_mesh){.name = name, .scale = vec3(a.scale), .next = r->meshes};
    if (file && r->strippath && strrchr(file, '/'))
        file = strrchr(file, '/') + 1;
    if (!name && file) {
        const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
        const char *dot = strrchr(base, '.');
        char *stem = wk__desc_alloc(r->d, strlen(base) + 1);
        if (!stem)
            return nomem(r);
        snprintf(stem, strlen(base) + 1, "%.*s", (int)(dot ? (size_t)(dot - base) : strlen(base)), base);
        m->name = stem;
    }
    if (!m->name)
        return fail(r, el, WK_PARSE, "needs a name or a file");
    /* A mesh given by its vertices stays a mesh without a uri. */
    const char *uri = file ? main_relative(r, el, r->meshdir, file) : NULL;
    if (file && !uri)
        return nomem(r);
    m->uri = file;
    rc = file ? wk__asset_resolve(r->d, r->opts, file_of(r, el), uri, true, wk__xml_line(el), &m->path, r->st)
              : unsupported(r, el, "mesh without a file");
    if (rc == WK_OK)
        r->meshes = m;
    return rc;
}

static int read_assets(mjcf_reader *r, xmlNodePtr el)
{
    static const char *const known[] = {"texture", "material", "hfield", "skin", NULL};
    for (xmlNodePtr c = wk__xml_first(el); c; c = wk__xml_next(c)) {
        const char *const *k = known;
        while (*k && !wk__xml_is(c, *k))
            k++;
        int rc = wk__xml_is(c, "mesh") ? read_mesh(r, c) : *k ? WK_OK : unsupported_element(r, c);
        if (rc)
            return rc;
    }
    return WK_OK;
}

/* ---- the model ---------------------------------------------------------- */

typedef int (*section_fn)(mjcf_reader *r, xmlNodePtr el);

/* MuJoCo reads the sections in this order whatever the file's order; the
 * ones without a function describe simulation, not the world's layout. */
static const struct section {
    const char *name;
    section_fn read;
} sections[] = {
    {"compiler", read_compiler}, {"default", read_default_section}, {"asset", read_assets},
    {"worldbody", NULL},         {"option", NULL},                  {"size", NULL},
    {"visual", NULL},            {"statistic", NULL},               {"custom", NULL},
    {"extension", NULL},         {"contact", NULL},                 {"equality", NULL},
    {"tendon", NULL},            {"actuator", NULL},                {"sensor", NULL},
    {"keyframe", NULL},
};

static int read_sections(mjcf_reader *r, xmlNodePtr root)
{
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(root); rc == WK_OK && c; c = wk__xml_next(c)) {
        size_t i = 0;
        while (i < COUNT(sections) && !wk__xml_is(c, sections[i].name))
            i++;
        rc = i == COUNT(sections) ? unsupported_element(r, c) : WK_OK;
    }
    for (size_t i = 0; rc == WK_OK && i < COUNT(sections); i++)
        for (xmlNodePtr c = wk__xml_first(root); sections[i].read && rc == WK_OK && c; c = wk__xml_next(c))
            rc = wk__xml_is(c, sections[i].name) ? sections[i].read(r, c) : WK_OK;
    return rc ? rc : read_world(r, root);
}

static int add_world(mjcf_reader *r, xmlNodePtr root)
{
    const char *name = wk__xml_attr(r->d, root, "model");
    if (!name || !name[0])
        name = "default";
    uint32_t line = wk__xml_line(root);
    uint32_t world = wk__desc_add(r->d, WK_NODE_WORLD, WK_NO_NODE, name, r->file, line);
    r->model = world == WK_NO_NODE ? WK_NO_NODE : wk__desc_add(r->d, WK_NODE_MODEL, world, name, r->file, line);
    return r->model == WK_NO_NODE ? nomem(r) : WK_OK;
}

int wk__mjcf_read(wk_world_desc *d, const wk_read_desc *opts, const char *path, xmlDocPtr doc, wk_status *st)
{
    mjcf_reader r = {.d = d, .opts = opts, .st = st, .doc = doc, .file = wk__desc_strdup(d, path),
                     .degree = true, .autolimits = true, .eulerseq = "xyz", .root_name = "main"};
    char dir[PATH_MAX];
    const char *slash = path ? strrchr(path, '/') : NULL;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == path ? 1 : slash - path) : 1, slash ? path : ".");
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return wk_fail(st, WK_NOT_FOUND, "%s: cannot resolve the folder", dir);
    if ((path && !r.file) || !(r.main_dir = wk__desc_strdup(d, real)))
        return nomem(&r);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    int rc = add_world(&r, root);
    rc = rc ? rc : expand_includes(&r, root);
    return rc ? rc : read_sections(&r, root);
}
