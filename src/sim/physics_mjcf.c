/* physics_mjcf.c — the world's links written as MJCF for MuJoCo 2.2.2,
 * which compiles models from MJCF and cannot edit one: one body a link,
 * nested along the joints that join them; a free joint for the root link
 * of a model that is not static; joints with their limits, damping, dry
 * friction and springs, mimics as joint equalities; the collision shapes
 * as geoms with their friction, meshes as mesh assets where MuJoCo reads
 * the file and as the box around their vertices where it does not;
 * inertials as the file gave them; and the pool's spare bodies
 * (physics_pool.c). Also the terms a link's shapes, friction and inertia
 * take in MuJoCo, which the pool sets in a compiled model directly. */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/mesh_bounds.h"
#include "sim/physics_mujoco.h"

/* Room for contacts: MuJoCo 2.2.2 allocates its contact and constraint
 * buffers once, 100 contacts by default, and drops what does not fit; a
 * constraint buffer per contact row (4 for a pyramidal cone of condim 3). */
#define CONTACTS_PER_GEOM 8
#define ROWS_PER_CONTACT 4

int wk__add(wk_buf *xml, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || wk_buf_reserve(xml, (size_t)n + 1))
        return WK_NOMEM;
    va_start(ap, fmt);
    vsnprintf((char *)xml->data + xml->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    xml->len += (size_t)n;
    return WK_OK;
}

static int add_pose(wk_buf *xml, wk_pose p)
{
    return wk__add(xml, " pos='%.17g %.17g %.17g' quat='%.17g %.17g %.17g %.17g'", p.p.x, p.p.y, p.p.z, p.q.w, p.q.x,
               p.q.y, p.q.z);
}

/* The turn that takes the z axis onto n: a plane's normal is its z axis. */
static wk_quat z_onto(wk_vec3 n)
{
    double len = wk_vec3_norm(n);
    wk_vec3 axis = {-n.y, n.x, 0}; /* z x n */
    wk_quat q;
    if (len == 0 || wk_vec3_norm(axis) < 1e-12 * len ||
        wk_quat_from_axis_angle(axis, acos(fmax(-1, fmin(1, n.z / len))), &q))
        return n.z < 0 ? (wk_quat){0, 1, 0, 0} : wk_quat_identity();
    return q;
}

bool wk__primitive(const wk_scene_geometry *g, mjtGeom *type, double size[3])
{
    switch (g->type) {
    case WK_GEOMETRY_BOX:
        *type = mjGEOM_BOX;
        size[0] = g->size.x / 2, size[1] = g->size.y / 2, size[2] = g->size.z / 2;
        return true;
    case WK_GEOMETRY_SPHERE:
        *type = mjGEOM_SPHERE;
        size[0] = g->radius, size[1] = size[2] = 0;
        return true;
    case WK_GEOMETRY_CYLINDER:
    case WK_GEOMETRY_CAPSULE:
        *type = g->type == WK_GEOMETRY_CYLINDER ? mjGEOM_CYLINDER : mjGEOM_CAPSULE;
        size[0] = g->radius, size[1] = g->length / 2, size[2] = 0;
        return true;
    case WK_GEOMETRY_ELLIPSOID:
        *type = mjGEOM_ELLIPSOID;
        size[0] = g->size.x, size[1] = g->size.y, size[2] = g->size.z;
        return true;
    default:
        return false;
    }
}

bool wk__friction(wk_scene *s, wk_entity collision, const wk_physics *ph, double friction[3])
{
    const wk_scene_surface *surface = wk_ecm_get(wk_scene_ecm(s), collision, wk_scene_types_of(s)->surface);
    if (ph && ph->friction.mu > 0) {
        friction[0] = ph->friction.mu, friction[1] = 0.005, friction[2] = 0.0001;
        return true;
    }
    if (surface)
        memcpy(friction, surface->friction, 3 * sizeof *friction);
    return surface != NULL;
}

/* The model an MJCF text makes, compiled from memory (the files it names,
 * meshes, from disk); NULL with MuJoCo's complaint in error when it does
 * not compile, or with error empty when memory runs out. */
mjModel *wk__mjcf_compile(const wk_buf *xml, char *error, size_t cap)
{
    mjVFS *vfs = malloc(sizeof *vfs);
    mjModel *m = NULL;
    if (!vfs)
        return NULL;
    mj_defaultVFS(vfs);
    if (mj_makeEmptyFileVFS(vfs, "world.xml", (int)xml->len) == 0) {
        memcpy(vfs->filedata[mj_findFileVFS(vfs, "world.xml")], xml->data, xml->len);
        m = mj_loadXML("world.xml", vfs, error, (int)cap);
    }
    mj_deleteVFS(vfs);
    free(vfs);
    return m;
}

/* Whether MuJoCo 2.2.2 reads the mesh file: it takes binary STL, OBJ and
 * its own MSH, and not an ASCII STL or what other tools write (COLLADA,
 * glTF...); asked of MuJoCo itself, with a model of that one mesh. */
static bool mujoco_reads(const char *file, char *why, size_t cap)
{
    const char *dot = strrchr(file, '.');
    if (!dot || (strcasecmp(dot, ".stl") && strcasecmp(dot, ".obj") && strcasecmp(dot, ".msh"))) {
        snprintf(why, cap, "MuJoCo 2.2.2 reads STL, OBJ and MSH meshes only");
        return false;
    }
    if (strpbrk(file, "'\"&<")) {
        snprintf(why, cap, "its path holds a character MJCF would need escaped");
        return false;
    }
    wk_buf probe = {0};
    mjModel *m = NULL;
    if (wk__add(&probe, "<mujoco><asset><mesh name='m' file='%s'/></asset></mujoco>", file) == WK_OK)
        m = wk__mjcf_compile(&probe, why, cap);
    wk_buf_free(&probe);
    mj_deleteModel(m);
    return m != NULL;
}

/* A mesh MuJoCo cannot read as its bounding box, from the file's vertices
 * scaled: the geom's size and its centre's offset in the mesh's frame. */
static int as_bounding_box(const char *file, const wk_scene_geometry *g, char *size, size_t cap, wk_vec3 *centre,
                           char *why, size_t why_cap)
{
    wk_vec3 lo, hi;
    int rc = wk__mesh_bounds(file, &lo, &hi, why, why_cap);
    if (rc)
        return rc;
    /* A negative scale mirrors: the half sizes are magnitudes either way. */
    wk_vec3 half = {fabs(g->scale.x * (hi.x - lo.x)) / 2, fabs(g->scale.y * (hi.y - lo.y)) / 2,
                    fabs(g->scale.z * (hi.z - lo.z)) / 2};
    *centre = (wk_vec3){g->scale.x * (lo.x + hi.x) / 2, g->scale.y * (lo.y + hi.y) / 2, g->scale.z * (lo.z + hi.z) / 2};
    snprintf(size, cap, "%.17g %.17g %.17g", fmax(half.x, 1e-9), fmax(half.y, 1e-9), fmax(half.z, 1e-9));
    return WK_OK;
}

/* A mesh collision's geom: a <mesh> asset of its file where MuJoCo reads
 * it (which collides as the file's convex hull); else a box around its
 * vertices where assimp reads them (type and size set, *pose moved to the
 * box's centre), with a warning; else nothing (type empty), with a
 * warning. The warnings name the shape and its file. */
static int add_mesh(wk__physics *p, wk_scene *s, wk_entity collision, const wk_scene_geometry *g, char *type,
                    size_t cap, char *size, size_t size_cap, wk_pose *pose)
{
    const char *const *file = wk_ecm_get(wk_scene_ecm(s), collision, wk_scene_types_of(s)->mesh_file);
    const char *name = wk_scene_name(s, collision);
    char why[512] = "", no_box[512];
    wk_vec3 centre;
    if (!file || !*file) {
        fprintf(stderr, "worldkit: physics: collision '%s' is left out: its mesh file was not found when the world was "
                        "read\n", name);
        type[0] = 0;
        return WK_OK;
    }
    if (!mujoco_reads(*file, why, sizeof why)) {
        if (!why[0])
            return WK_NOMEM;
        why[strcspn(why, "\n")] = 0; /* MuJoCo's first line says why */
        int rc = as_bounding_box(*file, g, size, size_cap, &centre, no_box, sizeof no_box);
        if (rc == WK_NOMEM)
            return rc;
        if (rc) {
            fprintf(stderr, "worldkit: physics: collision '%s' (%s) is left out: %s; %s\n", name, *file, why, no_box);
            type[0] = 0;
            return WK_OK;
        }
        fprintf(stderr, "worldkit: physics: collision '%s' (%s) collides as its bounding box: %s\n", name, *file, why);
        pose->p = wk_vec3_add(pose->p, wk_quat_rotate(pose->q, centre));
        snprintf(type, cap, "box");
        return WK_OK;
    }
    snprintf(type, cap, "mesh' mesh='m%zu", p->meshes);
    return wk__add(&p->assets, "<mesh name='m%zu' file='%s' scale='%.17g %.17g %.17g'/>", p->meshes++, *file, g->scale.x,
               g->scale.y, g->scale.z);
}

/* The geom of collision, at pose in its body; nothing for the shapes
 * MuJoCo has no primitive for. */
static int add_geom(wk__physics *p, wk_buf *xml, wk_scene *s, wk_entity collision, wk_pose pose,
                    const wk_physics *ph)
{
    const wk_scene_geometry *g = wk_ecm_get(wk_scene_ecm(s), collision, wk_scene_types_of(s)->geometry);
    if (!g)
        return WK_OK;
    char size[160] = "", mesh[64];
    const char *type;
    mjtGeom primitive;
    double half[3];
    if (wk__primitive(g, &primitive, half)) {
        type = primitive == mjGEOM_BOX         ? "box"
               : primitive == mjGEOM_SPHERE    ? "sphere"
               : primitive == mjGEOM_CYLINDER  ? "cylinder"
               : primitive == mjGEOM_CAPSULE   ? "capsule"
                                               : "ellipsoid";
        snprintf(size, sizeof size, "%.17g %.17g %.17g", half[0], half[1], half[2]);
    } else if (g->type == WK_GEOMETRY_PLANE) {
        type = "plane";
        snprintf(size, sizeof size, "0 0 1");
        pose.q = wk_quat_mul(pose.q, z_onto(g->normal));
    } else if (g->type == WK_GEOMETRY_MESH) {
        int rc = add_mesh(p, s, collision, g, mesh, sizeof mesh, size, sizeof size, &pose);
        if (rc || !mesh[0])
            return rc;
        type = mesh;
    } else {
        return WK_OK;
    }
    int rc = wk__add(xml, "<geom type='%s'", type);
    if (rc == WK_OK && size[0])
        rc = wk__add(xml, " size='%s'", size);
    if (rc == WK_OK)
        rc = add_pose(xml, pose);
    double friction[3];
    if (rc == WK_OK && wk__friction(s, collision, ph, friction))
        rc = wk__add(xml, " friction='%.17g %.17g %.17g'", friction[0], friction[1], friction[2]);
    return rc ? rc : wk__add(xml, "/>");
}

/* The joint element that joins body i, b, to its parent, in b's frame;
 * named j<i>. */
static int add_joint(wk_buf *xml, wk_scene *s, size_t i, const body *b, wk_pose world_T_link)
{
    const wk_scene_joint *j = wk_ecm_get(wk_scene_ecm(s), b->joint, wk_scene_types_of(s)->joint);
    if (!j)
        return WK_OK;
    const char *type = j->type == WK_JOINT_REVOLUTE || j->type == WK_JOINT_CONTINUOUS ? "hinge"
                       : j->type == WK_JOINT_PRISMATIC                               ? "slide"
                       : j->type == WK_JOINT_BALL                                    ? "ball"
                                                                                     : NULL;
    if (j->type == WK_JOINT_FLOATING)
        return wk__add(xml, "<freejoint/>");
    if (!type) /* fixed, and what MuJoCo has no joint for: welded */
        return WK_OK;
    wk_pose link_T_joint = wk_pose_compose(wk_pose_inverse(world_T_link), wk_scene_world_pose(s, b->joint));
    wk_vec3 axis = wk_quat_rotate(link_T_joint.q, j->axis);
    int rc = wk__add(xml, "<joint name='j%zu' type='%s' pos='%.17g %.17g %.17g' axis='%.17g %.17g %.17g'", i, type,
                 link_T_joint.p.x, link_T_joint.p.y, link_T_joint.p.z, axis.x, axis.y, axis.z);
    if (rc == WK_OK && j->type != WK_JOINT_BALL)
        rc = wk__add(xml, " damping='%.17g' frictionloss='%.17g' stiffness='%.17g' springref='%.17g'", j->damping,
                 j->friction, j->stiffness, j->reference - b->at_build);
    /* A ball's range is a cone MuJoCo measures differently: left free. */
    if (rc == WK_OK && j->type != WK_JOINT_CONTINUOUS && j->type != WK_JOINT_BALL && isfinite(j->lower) &&
        isfinite(j->upper) && j->lower < j->upper)
        rc = wk__add(xml, " limited='true' range='%.17g %.17g'", j->lower - b->at_build, j->upper - b->at_build);
    return rc ? rc : wk__add(xml, "/>");
}

void wk__inertia(const wk_physics *ph, double *mass, wk_vec3 *com, double I[3][3])
{
    memset(I, 0, 9 * sizeof **I);
    if (!ph || ph->mass_kg <= 0) {
        *mass = 1, *com = (wk_vec3){0, 0, 0};
        I[0][0] = I[1][1] = I[2][2] = 1;
        return;
    }
    /* R I R^T, R the centre of mass frame's turn, column by column from
     * turned axes. */
    double R[3][3];
    for (int c = 0; c < 3; c++) {
        wk_vec3 axis = wk_quat_rotate(ph->this_T_com.q, (wk_vec3){c == 0, c == 1, c == 2});
        R[0][c] = axis.x, R[1][c] = axis.y, R[2][c] = axis.z;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++)
                    I[i][j] += R[i][k] * ph->inertia[k][l] * R[j][l];
    *mass = ph->mass_kg, *com = ph->this_T_com.p;
}

/* The inertial of a moving body; MJCF takes a full inertia in the body's
 * axes only. */
static int add_inertial(wk_buf *xml, const wk_physics *ph)
{
    double mass, I[3][3];
    wk_vec3 c;
    wk__inertia(ph, &mass, &c, I);
    return wk__add(xml, "<inertial pos='%.17g %.17g %.17g' mass='%.17g' fullinertia='%.17g %.17g %.17g %.17g %.17g %.17g'/>",
               c.x, c.y, c.z, mass, I[0][0], I[1][1], I[2][2], I[0][1], I[0][2], I[1][2]);
}

/* Body i and the bodies below it, in world_T_parent's frame. */
static int add_body(wk__physics *p, wk_scene *s, size_t i, wk_pose world_T_parent, wk_buf *xml)
{
    body *b = &p->bodies[i];
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_scene_types *t = wk_scene_types_of(s);
    wk_pose world_T_link = wk_scene_world_pose(s, b->link);
    b->id = ++p->written; /* MuJoCo numbers bodies in the order written */
    int rc = wk__add(xml, "<body name='b%zu'", i);
    if (rc == WK_OK)
        rc = add_pose(xml, wk_pose_compose(wk_pose_inverse(world_T_parent), world_T_link));
    if (rc == WK_OK)
        rc = wk__add(xml, ">");
    const wk_physics *ph = wk_ecm_get(ecm, b->link, t->physics);
    if (rc == WK_OK && b->moves)
        rc = b->parent < 0 && !b->joint ? wk__add(xml, "<freejoint/>") : add_joint(xml, s, i, b, world_T_link);
    if (rc == WK_OK && b->moves)
        rc = add_inertial(xml, ph);
    for (wk_entity c = wk_ecm_first_child(ecm, b->link); rc == WK_OK && c; c = wk_ecm_next_sibling(ecm, c))
        if (wk__kind_of(s, c) == WK_NODE_COLLISION)
            rc = add_geom(p, xml, s, c, wk_pose_compose(wk_pose_inverse(world_T_link), wk_scene_world_pose(s, c)),
                          ph);
    for (size_t k = 0; rc == WK_OK && k < p->count; k++)
        if (p->bodies[k].parent == (int)i)
            rc = add_body(p, s, k, world_T_link, xml);
    return rc ? rc : wk__add(xml, "</body>");
}

/* The collision shapes of models rather than links (MJCF's world body's
 * geoms): the world's, fixed where they are. */
static int add_world_geoms(wk__physics *p, wk_scene *s, wk_buf *xml)
{
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_scene_types *t = wk_scene_types_of(s);
    uint8_t collision = WK_NODE_COLLISION;
    wk_entity_list shapes = {0};
    int rc = wk_ecm_find(ecm, &(wk_match){t->kind, &collision}, 1, &shapes);
    for (size_t i = 0; rc == WK_OK && i < shapes.count; i++)
        if (wk__kind_of(s, wk_ecm_parent(ecm, shapes.items[i])) == WK_NODE_MODEL)
            rc = add_geom(p, xml, s, shapes.items[i], wk_scene_world_pose(s, shapes.items[i]), NULL);
    wk_entity_list_free(&shapes);
    return rc;
}

/* Whether body b turns or slides on its joint (a hinge or a slide in the
 * model written). */
static bool hinge_or_slide(wk_scene *s, const body *b)
{
    const wk_scene_joint *j = b->moves && b->joint ? wk_ecm_get(wk_scene_ecm(s), b->joint, wk_scene_types_of(s)->joint)
                                                  : NULL;
    return j && (j->type == WK_JOINT_REVOLUTE || j->type == WK_JOINT_CONTINUOUS || j->type == WK_JOINT_PRISMATIC);
}

/* Joints that mimic others, as MuJoCo's joint equalities: the follower's
 * position is multiplier * the leader's + offset, which, each joint
 * counted from where it stood when the model was written (its zero here),
 * is polycoef's a0 + a1 x with a1 the multiplier. */
static int add_mimics(const wk__physics *p, wk_scene *s, wk_buf *xml)
{
    const wk_scene_types *t = wk_scene_types_of(s);
    bool open = false;
    int rc = WK_OK;
    for (size_t i = 0; rc == WK_OK && i < p->count; i++) {
        const body *f = &p->bodies[i];
        const wk_joint_mimic *m = hinge_or_slide(s, f) ? wk_ecm_get(wk_scene_ecm(s), f->joint, t->mimic) : NULL;
        for (size_t k = 0; m && rc == WK_OK && k < p->count; k++) {
            const body *l = &p->bodies[k];
            if (l->joint != m->leader || !hinge_or_slide(s, l))
                continue;
            if (!open)
                rc = wk__add(xml, "<equality>");
            open = true;
            if (rc == WK_OK)
                rc = wk__add(xml, "<joint joint1='j%zu' joint2='j%zu' polycoef='%.17g %.17g 0 0 0'/>", i, k,
                         m->multiplier * l->at_build + m->offset - f->at_build, m->multiplier);
        }
    }
    return rc == WK_OK && open ? wk__add(xml, "</equality>") : rc;
}

/* How many geoms the model written so far holds. */
static size_t geoms_in(const wk_buf *xml)
{
    size_t n = 0;
    /* wk__add() keeps the text NUL-terminated. */
    for (const char *at = xml->len ? (const char *)xml->data : ""; (at = strstr(at, "<geom ")); at += 6)
        n++;
    return n;
}

int wk__mjcf_write(wk__physics *p, wk_scene *s, double dt, wk_vec3 gravity, size_t spares, wk_buf *xml)
{
    p->written = 0;
    int rc = wk__add(xml,
                 "<mujoco><compiler angle='radian' inertiafromgeom='false'/>"
                 "<option timestep='%.17g' gravity='%.17g %.17g %.17g'/><worldbody>",
                 dt, gravity.x, gravity.y, gravity.z);
    if (rc == WK_OK)
        rc = add_world_geoms(p, s, xml);
    for (size_t i = 0; rc == WK_OK && i < p->count; i++)
        if (p->bodies[i].parent < 0)
            rc = add_body(p, s, i, wk_pose_identity(), xml);
    for (size_t k = 0; rc == WK_OK && k < spares; k++)
        rc = wk__pool_write_spare(xml);
    size_t contacts = CONTACTS_PER_GEOM * geoms_in(xml) + 100;
    if (rc == WK_OK)
        rc = wk__add(xml, "</worldbody><size nconmax='%zu' njmax='%zu'/>", contacts, ROWS_PER_CONTACT * contacts);
    if (rc == WK_OK)
        rc = add_mimics(p, s, xml);
    if (rc == WK_OK && p->meshes)
        rc = wk__add(xml, "<asset>%.*s</asset>", (int)p->assets.len, (const char *)p->assets.data);
    if (rc == WK_OK)
        rc = wk__add(xml, "</mujoco>");
    wk_buf_free(&p->assets);
    p->meshes = 0;
    return rc;
}
