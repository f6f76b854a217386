/* mjcf.c — the MJCF reader (MuJoCo's model format, as MuJoCo 2.2.2 reads
 * it, plus MuJoCo 3's <frame>) into a description: the model's sections and
 * its body tree.
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
 * A <frame> is a pose that MuJoCo composes onto its children (bodies, geoms,
 * sites, cameras, lights, joints, inertials, frames) and then forgets: it
 * holds no entity of its own and counts in no index, and its childclass
 * gives its children their class as a body's does. Its children are read in
 * their place among their body's, their poses composed onto the frame's. A
 * named frame is also kept, as a frame of its body like a site, so that
 * poses can be asked relative to it; an unnamed one leaves nothing behind.
 *
 * Attribute values and default classes are read by mjcf_attrs.c, poses and
 * orientation forms by mjcf_pose.c, includes and mesh assets by
 * mjcf_include.c; mjcf.h holds what they share. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/mjcf.h"

/* The names of unnamed elements, by the kinds of mjcf.h. */
static const char *const index_names[INDEX_KINDS] = {"body", "joint", "geom", "site", "camera", "light"};

/* ---- errors ------------------------------------------------------------ */

static const char *where(const mjcf_reader *r, xmlNodePtr el)
{
    const char *f = wk__mjcf_file_of(r, el);
    return f ? f : "<string>";
}

int wk__mjcf_nomem(mjcf_reader *r)
{
    return wk_fail(r->st, WK_NOMEM, "out of memory reading %s", r->file ? r->file : "<string>");
}

int wk__mjcf_fail(mjcf_reader *r, xmlNodePtr el, int code, const char *fmt, ...)
{
    char what[WK_STATUS_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return wk_fail(r->st, code, "%s:%u: <%s>: %s", where(r, el), wk__xml_line(el), (const char *)el->name, what);
}

int wk__mjcf_unsupported(mjcf_reader *r, xmlNodePtr el, const char *what)
{
    const char *parent = el->parent && el->parent->type == XML_ELEMENT_NODE ? (const char *)el->parent->name : "";
    if (r->opts->fail_on_unsupported_element)
        return wk__mjcf_fail(r, el, WK_UNSUPPORTED_ELEMENTS, "unsupported %s in <%s>", what, parent);
    return wk__desc_warn(r->d, "%s:%u: ignored unsupported %s in <%s>", where(r, el), wk__xml_line(el), what, parent)
               ? wk__mjcf_nomem(r)
               : WK_OK;
}

int wk__mjcf_unsupported_element(mjcf_reader *r, xmlNodePtr el)
{
    return wk__xml_unsupported(r->d, r->opts, wk__mjcf_file_of(r, el), el, NULL, r->st);
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
    *out = wk__desc_add(r->d, kind, parent, name, wk__mjcf_file_of(r, el), wk__xml_line(el));
    return *out == WK_NO_NODE ? wk__mjcf_nomem(r) : WK_OK;
}

/* Places node, an element of body b given pose in the enclosing frames, in
 * the body's frame. */
static void place_in_body(mjcf_reader *r, uint32_t node, const body_ctx *b, const wk_pose *pose)
{
    wk_node *n = wk__desc_at(r->d, node);
    n->pose = wk_pose_compose(b->in_body, *pose);
    n->relative_node = b->node;
}

/* Adds a node for an element of a body, posed in the enclosing frames. */
static int add_body_node(mjcf_reader *r, xmlNodePtr el, const body_ctx *b, wk_node_kind kind, int index_kind,
                         const wk_pose *pose, uint32_t *out)
{
    int rc = add_node(r, el, kind, index_kind, b->node, out);
    if (rc == WK_OK)
        place_in_body(r, *out, b, pose);
    return rc;
}

/* ---- geoms and sites --------------------------------------------------- */

static const struct shape {
    const char *name;
    wk_geometry_type type;
    int fromto_axis;      /* the size index fromto sets to half its length; 0: no fromto */
    bool radius_length;   /* radius = size[0], length = 2 size[1] */
    wk_vec3 size_scale;   /* geometry size = scale * MuJoCo size (which holds half sizes) */
    unsigned positive;    /* bit i: size[i] must be positive, as MuJoCo requires */
    const char *sizes;    /* what those sizes are, for the message refusing them */
    bool site;            /* a site may have this type */
} shapes[] = {
    {"sphere", WK_GEOMETRY_SPHERE, 0, true, {0, 0, 0}, 01, "a positive radius", true},
    {"capsule", WK_GEOMETRY_CAPSULE, 1, true, {0, 0, 0}, 03, "a positive radius and half-length (or fromto)", true},
    {"cylinder", WK_GEOMETRY_CYLINDER, 1, true, {0, 0, 0}, 03, "a positive radius and half-length (or fromto)", true},
    {"ellipsoid", WK_GEOMETRY_ELLIPSOID, 2, false, {1, 1, 1}, 07, "3 positive radii (or 1 to 2 and fromto)", true},
    {"box", WK_GEOMETRY_BOX, 2, false, {2, 2, 2}, 07, "3 positive half-sizes (or 1 to 2 and fromto)", true},
    {"plane", WK_GEOMETRY_PLANE, 0, false, {2, 2, 0}, 04, "a positive third size, its grid spacing", false},
    {"mesh", WK_GEOMETRY_MESH, 0, false, {0, 0, 0}, 0, NULL, false},
    {"hfield", WK_GEOMETRY_HEIGHTMAP, 0, false, {0, 0, 0}, 0, NULL, false},
};

static int shape_of(mjcf_reader *r, xmlNodePtr el, const attrs *a, const struct shape **out)
{
    const char *type = a->type ? a->type : "sphere";
    for (size_t i = 0; i < COUNT(shapes); i++)
        if (!strcmp(type, shapes[i].name))
            return (*out = &shapes[i]), WK_OK;
    return wk__mjcf_fail(r, el, WK_PARSE, "unknown type '%s'", type);
}

static const mjcf_mesh *find_mesh(const mjcf_reader *r, const char *name)
{
    for (const mjcf_mesh *m = r->meshes; m; m = m->next)
        if (!strcmp(m->name, name))
            return m;
    return NULL;
}

/* A size the shape uses, scaled; 0 for one it does not: never the -0 of
 * an unused negative size (values are compared bytewise). */
static double scaled(double scale, double size)
{
    return scale != 0 ? scale * size : 0;
}

static int geometry(mjcf_reader *r, xmlNodePtr el, const struct shape *s, const attrs *a, wk_geometry *g)
{
    *g = (wk_geometry){.type = s->type, .normal = {0, 0, 1}, .scale = {1, 1, 1}};
    if (s->radius_length) {
        g->radius = a->size[0];
        g->length = s->type == WK_GEOMETRY_SPHERE ? 0 : 2 * a->size[1];
    }
    g->size = (wk_vec3){scaled(s->size_scale.x, a->size[0]), scaled(s->size_scale.y, a->size[1]),
                        scaled(s->size_scale.z, a->size[2])};
    if (s->type == WK_GEOMETRY_HEIGHTMAP) {
        g->type = WK_GEOMETRY_NONE;
        return wk__mjcf_unsupported(r, el, "geom type hfield");
    }
    if (s->type != WK_GEOMETRY_MESH)
        return WK_OK;
    const mjcf_mesh *m = a->mesh ? find_mesh(r, a->mesh) : NULL;
    if (!m)
        return wk__mjcf_fail(r, el, WK_PARSE, a->mesh ? "unknown mesh '%s'" : "a mesh geom needs a mesh attribute%s",
                             a->mesh ? a->mesh : "");
    g->uri = m->uri;
    g->path = m->path;
    g->scale = m->scale;
    return WK_OK;
}

/* A geom's colour as MuJoCo draws it: its rgba, unless that is MuJoCo's
 * default grey and it names a material, whose colour it then takes. */
static int colour(mjcf_reader *r, xmlNodePtr el, const attrs *a, double *rgba)
{
    memcpy(rgba, a->rgba, 4 * sizeof *rgba);
    if (!a->material)
        return WK_OK;
    const mjcf_material *m = r->materials;
    while (m && strcmp(m->name, a->material))
        m = m->next;
    if (!m)
        return wk__mjcf_fail(r, el, WK_PARSE, "unknown material '%s'", a->material);
    if (a->rgba[0] == 0.5 && a->rgba[1] == 0.5 && a->rgba[2] == 0.5 && a->rgba[3] == 1)
        memcpy(rgba, m->rgba, 4 * sizeof *rgba);
    return WK_OK;
}

/* Refuses a geom or site whose sizes MuJoCo refuses: those its type needs,
 * after its default classes and fromto gave theirs, must be positive.
 * MuJoCo's own default size is 0 for a geom (0.005 for a site), so a number
 * no level gave a geom counts as 0. */
static int check_sizes(mjcf_reader *r, xmlNodePtr el, const struct shape *s, const attrs *a)
{
    for (int i = 0; i < 3; i++)
        if ((s->positive >> i & 1u) && !(a->size[i] > 0))
            return wk__mjcf_fail(r, el, WK_PARSE, "attribute size: type %s needs %s; size[%d] is %g%s", s->name,
                                 s->sizes, i, a->size[i],
                                 GIVEN(a, size) ? "" : " (no size given, here or by a default class)");
    return WK_OK;
}

static int read_geom(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    attrs a;
    const struct shape *s;
    wk_pose pose;
    wk_geometry g;
    uint32_t node;
    int rc = wk__mjcf_element_attrs(r, el, b, &a);
    rc = rc ? rc : shape_of(r, el, &a, &s);
    rc = rc ? rc : wk__mjcf_shape_pose(r, el, s->fromto_axis, &a, &pose);
    rc = rc ? rc : check_sizes(r, el, s, &a);
    rc = rc ? rc : geometry(r, el, s, &a, &g);
    double rgba[4];
    rc = rc ? rc : colour(r, el, &a, rgba);
    /* MuJoCo's compiler refuses these in a body's geom; the world body's
     * geoms have no mass to speak of, and it takes them there. */
    if (rc == WK_OK && b->name && ((GIVEN(&a, mass) && a.mass[0] < 0) || (GIVEN(&a, density) && a.density[0] < 0)))
        rc = wk__mjcf_fail(r, el, WK_PARSE, "a geom of body '%s' cannot have a negative %s", b->name,
                           GIVEN(&a, mass) && a.mass[0] < 0 ? "mass" : "density");
    rc = rc ? rc : add_body_node(r, el, b, WK_NODE_COLLISION, GEOM, &pose, &node);
    if (rc == WK_OK) {
        wk_node *n = wk__desc_at(r->d, node);
        n->shape.geometry = g;
        /* Taken as given, negative too: MuJoCo 2.2.2's compiler, MJCF's
         * reference, checks no sign of friction. */
        n->shape.has_friction = true;
        memcpy(n->shape.friction, a.friction, sizeof n->shape.friction);
        n->shape.has_colour = true;
        memcpy(n->shape.colour, rgba, sizeof rgba);
    }
    return rc;
}

/* Sites and cameras are frames of their body. A camera has no type, so it
 * reads as a sphere without fromto: its pose is pos and orientation. A
 * site's size places nothing, but MuJoCo refuses what it refuses in a geom,
 * and a site that is a plane, mesh or hfield. */
static int read_site_or_camera(mjcf_reader *r, xmlNodePtr el, const body_ctx *b, int index_kind)
{
    attrs a;
    const struct shape *s;
    wk_pose pose;
    uint32_t node;
    int rc = wk__mjcf_element_attrs(r, el, b, &a);
    rc = rc ? rc : shape_of(r, el, &a, &s);
    if (rc == WK_OK && index_kind == SITE && !s->site)
        return wk__mjcf_fail(r, el, WK_PARSE, "type %s: a site cannot be a plane, mesh or hfield", s->name);
    rc = rc ? rc : wk__mjcf_shape_pose(r, el, s->fromto_axis, &a, &pose);
    rc = rc || index_kind != SITE ? rc : check_sizes(r, el, s, &a);
    rc = rc ? rc : add_body_node(r, el, b, WK_NODE_FRAME, index_kind, &pose, &node);
    if (rc == WK_OK)
        wk__desc_at(r->d, node)->frame.attached_to = b->name;
    return rc;
}

static int read_site(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    return read_site_or_camera(r, el, b, SITE);
}

static int read_camera(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    return read_site_or_camera(r, el, b, CAMERA);
}

/* ---- lights, joints, inertials ------------------------------------------ */

/* A light shines along its dir; its node's -z axis is that direction, as an
 * SDFormat light's default direction is. Its turn about that axis means
 * nothing: inside a frame, the frame simply carries it along. */
static int read_light(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    static const char *const light_types[] = {"spot", "directional", NULL};
    attrs a;
    wk_vec3 minus_dir;
    int directional = 0;
    uint32_t node;
    int rc = wk__mjcf_element_attrs(r, el, b, &a);
    rc = rc ? rc : wk__mjcf_keyword(r, el, "directional", a.directional, wk__mjcf_false_true, &directional);
    if (rc)
        return rc;
    if (!wk__mjcf_direction(wk_vec3_scale(wk__mjcf_vec3(a.dir), -1), &minus_dir))
        return wk__mjcf_fail(r, el, WK_PARSE, "dir is zero");
    wk_pose pose = {wk__mjcf_vec3(a.pos), wk__mjcf_z_to(minus_dir)};
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
    int rc = wk__mjcf_keyword(r, el, "limited", a->limited, words, &v);
    if (rc == WK_OK && v == 2 && GIVEN(a, range) && !r->autolimits)
        rc = wk__mjcf_fail(r, el, WK_PARSE,
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
        return wk__mjcf_fail(r, el, WK_PARSE, "unknown joint type '%s'", type);
    wk_vec3 axis = {0, 0, 1};
    if (k->has_axis && !wk__mjcf_direction(wk__mjcf_vec3(a->axis), &axis))
        return wk__mjcf_fail(r, el, WK_PARSE, "the axis is zero");
    bool limited = false;
    uint32_t node;
    int rc = k->has_axis ? joint_limited(r, el, a, &limited) : WK_OK;
    if (rc || (rc = add_node(r, el, WK_NODE_JOINT, JOINT, r->model, &node)))
        return rc;
    /* Frames move the anchor and turn the axis; the joint's frame keeps the
     * body's axes, as MuJoCo's joints have no orientation of their own. */
    wk_node *j = wk__desc_at(r->d, node);
    j->pose = (wk_pose){wk_pose_transform_point(b->in_body, wk__mjcf_vec3(a->pos)), wk_quat_identity()};
    j->relative_node = b->node;
    j->joint.type = k->type;
    j->joint.parent = b->parent;
    j->joint.child = b->name;
    double unit = k->angular ? wk__mjcf_angle_unit(r) : 1;
    j->joint.axis[0] = (wk_joint_axis){
        .present = k->has_axis,
        .xyz = wk_quat_rotate(b->in_body.q, axis),
        .lower = limited ? a->range[0] * unit : -INFINITY,
        .upper = limited ? a->range[1] * unit : INFINITY,
        .effort = INFINITY,
        .velocity = INFINITY,
        .damping = a->damping[0],
        .friction = a->frictionloss[0],
        .spring_stiffness = a->stiffness[0],
        .spring_reference = a->springref[0] * unit,
    };
    return WK_OK;
}

static int read_joint(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    attrs a;
    int rc = wk__mjcf_element_attrs(r, el, b, &a);
    return rc ? rc : add_joint(r, el, b, a.type ? a.type : "hinge", &a);
}

/* <freejoint> takes no class: only its name. */
static int read_freejoint(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    attrs a = wk__mjcf_builtin_attrs();
    return add_joint(r, el, b, "free", &a);
}

static int read_inertial(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    attrs a = wk__mjcf_builtin_attrs();
    wk_inertial in = {.present = true};
    int rc = wk__mjcf_read_level(r, el, &a);
    if (rc == WK_OK && !GIVEN(&a, diaginertia) == !GIVEN(&a, fullinertia))
        rc = wk__mjcf_fail(r, el, WK_PARSE, "needs one of diaginertia and fullinertia");
    bool full = GIVEN(&a, fullinertia);
    /* MuJoCo takes a full tensor in the body's axes. */
    if (rc == WK_OK && full && (a.given & ORIENTATION_BITS))
        rc = wk__mjcf_fail(r, el, WK_PARSE, "fullinertia takes no orientation");
    rc = rc ? rc : wk__mjcf_pose_of(r, el, &a, &in.pose);
    if (rc)
        return rc;
    /* In a frame, the tensor stays in the frame's axes, which the pose turns. */
    in.pose = wk_pose_compose(b->in_body, in.pose);
    const double *i = full ? a.fullinertia : a.diaginertia;
    /* MuJoCo takes a full tensor only with positive eigenvalues, welded
     * body or not: its leading minors positive (Sylvester's criterion). */
    double minor2 = i[0] * i[1] - i[3] * i[3];
    double det = i[0] * (i[1] * i[2] - i[5] * i[5]) - i[3] * (i[3] * i[2] - i[5] * i[4]) +
                 i[4] * (i[3] * i[5] - i[1] * i[4]);
    if (full && !(i[0] > 0 && minor2 > 0 && det > 0))
        return wk__mjcf_fail(r, el, WK_PARSE, "fullinertia must have positive eigenvalues (be positive definite)");
    in.mass = a.mass[0];
    in.ixx = i[0], in.iyy = i[1], in.izz = i[2];
    in.ixy = full ? i[3] : 0, in.ixz = full ? i[4] : 0, in.iyz = full ? i[5] : 0;
    wk__desc_at(r->d, b->node)->link.inertial = in;
    return WK_OK;
}

/* ---- bodies ------------------------------------------------------------ */

typedef int (*item_fn)(mjcf_reader *r, xmlNodePtr el, const body_ctx *b);

static int read_frame(mjcf_reader *r, xmlNodePtr el, const body_ctx *b);

/* What a body holds besides bodies; plugins change no pose. */
static const struct item_rule {
    const char *name;
    item_fn read; /* NULL: known, nothing to keep */
    bool body_only; /* refused in the world body */
} body_items[] = {
    {"geom", read_geom, false},          {"site", read_site, false},       {"camera", read_camera, false},
    {"light", read_light, false},        {"joint", read_joint, true},      {"freejoint", read_freejoint, true},
    {"inertial", read_inertial, true},   {"frame", read_frame, false},     {"body", NULL, false},
    {"plugin", NULL, false},
};

/* The first pass over a body: everything but its child bodies. */
static int read_items(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    for (xmlNodePtr c = wk__xml_first(el); c; c = wk__xml_next(c)) {
        const struct item_rule *rule = body_items;
        while (rule < body_items + COUNT(body_items) && !wk__xml_is(c, rule->name))
            rule++;
        bool known = rule < body_items + COUNT(body_items);
        int rc = !known                        ? wk__mjcf_unsupported_element(r, c)
                 : rule->body_only && !b->name ? wk__mjcf_fail(r, c, WK_PARSE, "the world body cannot hold one")
                 : rule->read                  ? rule->read(r, c, b)
                                               : WK_OK;
        if (rc)
            return rc;
    }
    return WK_OK;
}

/* The context of a <frame>'s children: its childclass, its pose composed
 * onto the enclosing frames' (*pose gets its own). Frames, like bodies,
 * take no defaults. */
static int enter_frame(mjcf_reader *r, xmlNodePtr el, const body_ctx *outer, body_ctx *inner, wk_pose *pose)
{
    attrs a;
    *inner = *outer;
    int rc = wk__mjcf_class_of(r, el, "childclass", outer->cls, &inner->cls);
    rc = rc ? rc : wk__mjcf_read_attrs(r, el, NULL, &a);
    rc = rc ? rc : wk__mjcf_pose_of(r, el, &a, pose);
    if (rc == WK_OK)
        inner->in_body = wk_pose_compose(outer->in_body, *pose);
    return rc;
}

/* The first pass over a frame: a node when it is named, then its children
 * but bodies. */
static int read_frame(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    body_ctx inner;
    wk_pose pose;
    int rc = enter_frame(r, el, b, &inner, &pose);
    const char *name = rc ? NULL : wk__xml_attr(r->d, el, "name");
    if (name && name[0]) {
        uint32_t node = wk__desc_add(r->d, WK_NODE_FRAME, b->node, name, wk__mjcf_file_of(r, el), wk__xml_line(el));
        if (node == WK_NO_NODE)
            return wk__mjcf_nomem(r);
        place_in_body(r, node, b, &pose);
        wk__desc_at(r->d, node)->frame.attached_to = b->name;
    }
    return rc ? rc : read_items(r, el, &inner);
}

static int read_body(mjcf_reader *r, xmlNodePtr el, const body_ctx *parent);

/* The first child of el named tag, looking into <frame>s too; NULL if none. */
static xmlNodePtr find_item(xmlNodePtr el, const char *tag)
{
    for (xmlNodePtr c = wk__xml_first(el); c; c = wk__xml_next(c)) {
        xmlNodePtr found = wk__xml_is(c, tag) ? c : wk__xml_is(c, "frame") ? find_item(c, tag) : NULL;
        if (found)
            return found;
    }
    return NULL;
}

/* MuJoCo's compiler refuses a negative mass or principal moment in the
 * <inertial> of a body that moves on joints of its own; a body welded to its
 * parent (no joint: to the world, or to a moving body) may have them. */
static int check_moving_inertia(mjcf_reader *r, xmlNodePtr el, const wk_node *link)
{
    const wk_inertial *in = &link->link.inertial;
    xmlNodePtr inertial = find_item(el, "inertial");
    bool negative = in->mass < 0 || in->ixx < 0 || in->iyy < 0 || in->izz < 0;
    if (!inertial || !negative || !(find_item(el, "joint") || find_item(el, "freejoint")))
        return WK_OK;
    return wk__mjcf_fail(r, inertial, WK_PARSE, "body '%s' moves on a joint: its %s cannot be negative", link->name,
                         in->mass < 0 ? "mass" : "inertia");
}

/* The second pass: the child bodies, depth first, those inside frames in
 * their place. */
static int read_bodies(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(el); rc == WK_OK && c; c = wk__xml_next(c)) {
        body_ctx inner;
        wk_pose pose;
        if (wk__xml_is(c, "body"))
            rc = read_body(r, c, b);
        else if (wk__xml_is(c, "frame") && (rc = enter_frame(r, c, b, &inner, &pose)) == WK_OK)
            rc = read_bodies(r, c, &inner);
    }
    return rc;
}

/* A body with no joint inside another body is welded to it: a fixed joint,
 * named after the body (MuJoCo names none), says so in SDFormat's terms,
 * so that an engine nests it under its parent and a client is told that
 * its parent carries it. It counts in no index of MuJoCo's. */
static int weld(mjcf_reader *r, xmlNodePtr el, const body_ctx *b)
{
    if (!strcmp(b->parent, "world") || find_item(el, "joint") || find_item(el, "freejoint"))
        return WK_OK;
    char name[256];
    snprintf(name, sizeof name, "%s_weld", b->name);
    uint32_t node = wk__desc_add(r->d, WK_NODE_JOINT, r->model, name, wk__mjcf_file_of(r, el), wk__xml_line(el));
    if (node == WK_NO_NODE)
        return wk__mjcf_nomem(r);
    wk_node *j = wk__desc_at(r->d, node);
    j->pose = wk_pose_identity();
    j->relative_node = b->node;
    j->joint.type = WK_JOINT_FIXED;
    j->joint.parent = b->parent;
    j->joint.child = b->name;
    return WK_OK;
}

static int read_body(mjcf_reader *r, xmlNodePtr el, const body_ctx *parent)
{
    body_ctx b = {.parent = parent->name ? parent->name : "world", .in_body = wk_pose_identity()};
    attrs a;
    wk_pose pose;
    int rc = wk__mjcf_class_of(r, el, "childclass", parent->cls, &b.cls);
    rc = rc ? rc : wk__mjcf_read_attrs(r, el, NULL, &a); /* bodies take no defaults */
    rc = rc ? rc : wk__mjcf_pose_of(r, el, &a, &pose);
    rc = rc ? rc : add_node(r, el, WK_NODE_LINK, BODY, r->model, &b.node);
    if (rc)
        return rc;
    wk_node *link = wk__desc_at(r->d, b.node);
    link->pose = wk_pose_compose(parent->in_body, pose);
    link->relative_node = parent->node;
    b.name = link->name;
    rc = read_items(r, el, &b);
    rc = rc ? rc : check_moving_inertia(r, el, wk__desc_at(r->d, b.node));
    rc = rc ? rc : weld(r, el, &b);
    return rc ? rc : read_bodies(r, el, &b);
}

/* The world body may come in several <worldbody> sections: its own elements
 * come first in MuJoCo's indices, then its bodies. */
static int read_world(mjcf_reader *r, xmlNodePtr root)
{
    body_ctx world = {.cls = r->root, .node = r->model, .in_body = wk_pose_identity()};
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(root); rc == WK_OK && c; c = wk__xml_next(c))
        rc = wk__xml_is(c, "worldbody") ? read_items(r, c, &world) : WK_OK;
    for (xmlNodePtr c = wk__xml_first(root); rc == WK_OK && c; c = wk__xml_next(c))
        rc = wk__xml_is(c, "worldbody") ? read_bodies(r, c, &world) : WK_OK;
    return rc;
}

/* ---- the compiler ------------------------------------------------------- */

static int read_compiler(mjcf_reader *r, xmlNodePtr el)
{
    static const char *const angles[] = {"radian", "degree", NULL};
    static const char *const coordinates[] = {"local", "global", NULL};
    int degree = r->degree, global = 0;
    int rc = wk__mjcf_keyword(r, el, "angle", wk__xml_attr(r->d, el, "angle"), angles, &degree);
    rc = rc ? rc : wk__mjcf_keyword(r, el, "coordinate", wk__xml_attr(r->d, el, "coordinate"), coordinates, &global);
    rc = rc ? rc : wk__mjcf_flag(r, el, "autolimits", &r->autolimits);
    rc = rc ? rc : wk__mjcf_flag(r, el, "strippath", &r->strippath);
    if (rc)
        return rc;
    /* Global coordinates change the meaning of every pose: never ignored. */
    if (global)
        return wk__mjcf_fail(r, el, WK_UNSUPPORTED_ELEMENTS, "coordinate=\"global\" is not supported");
    r->degree = degree;
    const char *seq = wk__xml_attr(r->d, el, "eulerseq");
    if (seq && (strlen(seq) != 3 || strspn(seq, "xyzXYZ") != 3))
        return wk__mjcf_fail(r, el, WK_PARSE, "eulerseq must be three of x, y, z, X, Y, Z, not '%s'", seq);
    if (seq)
        memcpy(r->eulerseq, seq, 4);
    /* assetdir sets meshdir, which meshdir itself overrides. */
    const char *assetdir = wk__xml_attr(r->d, el, "assetdir"), *meshdir = wk__xml_attr(r->d, el, "meshdir");
    r->meshdir = meshdir ? meshdir : assetdir ? assetdir : r->meshdir;
    return WK_OK;
}

/* <option>: the time step and gravity of the simulation. */
static int read_option(mjcf_reader *r, xmlNodePtr el)
{
    static const struct {
        const char *name;
        int count;
        size_t offset;
    } fields[] = {
        {"timestep", 1, offsetof(wk_node, settings.max_step_size)},
        {"gravity", 3, offsetof(wk_node, settings.gravity)},
        {"magnetic", 3, offsetof(wk_node, settings.magnetic_field)},
    };
    for (size_t i = 0; i < COUNT(fields); i++) {
        xmlAttrPtr a = xmlHasProp(el, (const xmlChar *)fields[i].name);
        double v[3];
        if (a && wk__xml_numbers((xmlNodePtr)a, v, fields[i].count) != fields[i].count)
            return wk__mjcf_fail(r, el, WK_PARSE, "%s needs %d finite number%s", fields[i].name, fields[i].count,
                                 fields[i].count > 1 ? "s" : "");
        if (a)
            memcpy((char *)wk__desc_at(r->d, 0) + fields[i].offset, v, (size_t)fields[i].count * sizeof *v);
    }
    if (!(wk__desc_at(r->d, 0)->settings.max_step_size > 0))
        return wk__mjcf_fail(r, el, WK_PARSE, "timestep must be positive");
    return WK_OK;
}

/* ---- the model ---------------------------------------------------------- */

typedef int (*section_fn)(mjcf_reader *r, xmlNodePtr el);

/* MuJoCo reads the sections in this order whatever the file's order. The
 * ones without a function are the world body, read last by read_world, and
 * the viewer's settings (visual, statistic), appearance that a server
 * rendering nothing accepts silently. Any other section (actuators,
 * tendons, sensors, contacts, equalities, keyframes, size, custom...) keeps
 * nothing in worldkit, so it is reported as unsupported. */
static const struct section {
    const char *name;
    section_fn read;
} sections[] = {
    {"compiler", read_compiler},
    {"default", wk__mjcf_read_default_section},
    {"asset", wk__mjcf_read_assets},
    {"worldbody", NULL},
    {"option", read_option},
    {"visual", NULL},
    {"statistic", NULL},
};

static int read_sections(mjcf_reader *r, xmlNodePtr root)
{
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(root); rc == WK_OK && c; c = wk__xml_next(c)) {
        size_t i = 0;
        while (i < COUNT(sections) && !wk__xml_is(c, sections[i].name))
            i++;
        rc = i == COUNT(sections) ? wk__mjcf_unsupported_element(r, c) : WK_OK;
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
    if (r->model == WK_NO_NODE)
        return wk__mjcf_nomem(r);
    /* MuJoCo's defaults, which <option> may change. */
    wk__desc_at(r->d, world)->settings.max_step_size = 0.002;
    wk__desc_at(r->d, world)->settings.gravity = (wk_vec3){0, 0, -9.81};
    return WK_OK;
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
        return wk__mjcf_nomem(&r);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    int rc = add_world(&r, root);
    rc = rc ? rc : wk__mjcf_expand_includes(&r, root);
    return rc ? rc : read_sections(&r, root);
}
