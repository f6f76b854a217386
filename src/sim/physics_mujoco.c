/* physics_mujoco.c — the physics engine on MuJoCo's C API. MuJoCo 2.2.2
 * compiles models from MJCF and cannot edit one, so the world's links are
 * written as MJCF (one body a link, nested along the joints that join them;
 * a free joint for the root link of a model that is not static; joints
 * with their limits, damping, dry friction and springs, mimics as joint
 * equalities; the collision shapes as geoms with their friction, meshes
 * as mesh assets where MuJoCo reads the file and as the box around their
 * vertices where it does not; inertials as the file gave them), compiled
 * from memory, and compiled again at the step boundary when the set of
 * links changes, carrying each body's velocity over. Poses are the
 * entities': the model is written at the links' current world poses, and
 * after each step every moving link's ParentPose, twist and acceleration
 * and kinematic joint's position is written back; what clients set
 * between steps (poses, twists, joint positions) is taken before the
 * next. */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/mesh_bounds.h"
#include "sim/physics.h"
#include "sim/sim_internal.h"

/* Room for contacts: MuJoCo 2.2.2 allocates its contact and constraint
 * buffers once, 100 contacts by default, and drops what does not fit; a
 * constraint buffer per contact row (4 for a pyramidal cone of condim 3). */
#define CONTACTS_PER_GEOM 8
#define ROWS_PER_CONTACT 4

/* A link and the body it is. */
typedef struct body {
    wk_entity link;
    wk_entity joint;   /* joining it to its parent body; WK_NULL_ENTITY for none */
    int parent;        /* index of its parent body here, or -1 for the world */
    bool moves;        /* not welded to the world */
    bool free;         /* on a free joint: a pose and twist of its own */
    int id;            /* MuJoCo's body id */
    int qpos, dof;     /* its free joint's (root bodies) or its joint's first addresses; -1: none */
    wk_entity carries; /* the model it carries (a free root link right below its model), or WK_NULL_ENTITY */
    wk_pose written;   /* its world pose as last written to the entities */
    double at_build;   /* its joint's position (a kinematic object's) when the model was written */
    double position;   /* that position as last written to the kinematic object, or taken from it */
    wk_velocity twist; /* the carried model's Velocity as last written */
    mjtNum before[6];  /* a body that moves within its model: its world twist (angular, linear) before the step */
} body;

struct wk__physics {
    mjModel *m;
    mjData *d;
    body *bodies;
    size_t count;
    size_t *of_id; /* MuJoCo's body id to its index in bodies (nbody of them; 0, the world's, unused) */
    wk_buf assets; /* while a model is written: its meshes' <mesh> elements */
    size_t meshes; /* how many */
};

/* MuJoCo's warnings (a full contact buffer, an unstable step) go to stderr
 * as worldkit's lines, not to its stdout and a log file in the working
 * folder. */
static void warn(const char *message)
{
    fprintf(stderr, "worldkit: physics (MuJoCo): %s\n", message);
}

wk__physics *wk__physics_new(void)
{
    mju_user_warning = warn;
    return calloc(1, sizeof(wk__physics));
}

static void drop_model(wk__physics *p)
{
    mj_deleteData(p->d);
    mj_deleteModel(p->m);
    p->d = NULL;
    p->m = NULL;
}

void wk__physics_free(wk__physics *p)
{
    if (!p)
        return;
    drop_model(p);
    free(p->bodies);
    free(p->of_id);
    free(p);
}

/* ---- writing the model --------------------------------------------------- */

static int add(wk_buf *xml, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int add(wk_buf *xml, const char *fmt, ...)
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
    return add(xml, " pos='%.17g %.17g %.17g' quat='%.17g %.17g %.17g %.17g'", p.p.x, p.p.y, p.p.z, p.q.w, p.q.x,
               p.q.y, p.q.z);
}

static uint8_t kind_of(const wk_scene *s, wk_entity e)
{
    const uint8_t *kind = wk_ecm_get(wk_scene_ecm((wk_scene *)s), e, wk_scene_types_of(s)->kind);
    return kind ? *kind : WK_NODE_KIND_COUNT;
}

/* Whether a model that holds e is static. */
static bool in_static_model(wk_scene *s, wk_entity e)
{
    for (; e; e = wk_ecm_parent(wk_scene_ecm(s), e))
        if (kind_of(s, e) == WK_NODE_MODEL && wk_ecm_has(wk_scene_ecm(s), e, wk_scene_types_of(s)->is_static))
            return true;
    return false;
}

bool wk__physics_moves(wk_scene *s, wk_entity world)
{
    wk_entity_list all = {0};
    bool moves = false;
    if (wk_ecm_descendants(wk_scene_ecm(s), world, &all) == WK_OK)
        for (size_t i = 0; !moves && i < all.count; i++)
            moves = kind_of(s, all.items[i]) == WK_NODE_LINK && !in_static_model(s, all.items[i]);
    wk_entity_list_free(&all);
    return moves;
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

/* A geom's friction: what a client set on its link's physics (the
 * readers leave that zero), else what the file gave the collision, else
 * MuJoCo's default. */
static int add_friction(wk_buf *xml, wk_scene *s, wk_entity collision, const wk_physics *ph)
{
    const wk_scene_surface *surface = wk_ecm_get(wk_scene_ecm(s), collision, wk_scene_types_of(s)->surface);
    if (ph && ph->friction.mu > 0)
        return add(xml, " friction='%.17g 0.005 0.0001'", ph->friction.mu);
    if (surface)
        return add(xml, " friction='%.17g %.17g %.17g'", surface->friction[0], surface->friction[1],
                   surface->friction[2]);
    return WK_OK;
}

/* The model an MJCF text makes, compiled from memory (the files it names,
 * meshes, from disk); NULL with MuJoCo's complaint in error when it does
 * not compile, or with error empty when memory runs out. */
static mjModel *compile(const wk_buf *xml, char *error, size_t cap)
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
    if (add(&probe, "<mujoco><asset><mesh name='m' file='%s'/></asset></mujoco>", file) == WK_OK)
        m = compile(&probe, why, cap);
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
    return add(&p->assets, "<mesh name='m%zu' file='%s' scale='%.17g %.17g %.17g'/>", p->meshes++, *file, g->scale.x,
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
    switch (g->type) {
    case WK_GEOMETRY_BOX:
        type = "box";
        snprintf(size, sizeof size, "%.17g %.17g %.17g", g->size.x / 2, g->size.y / 2, g->size.z / 2);
        break;
    case WK_GEOMETRY_SPHERE:
        type = "sphere";
        snprintf(size, sizeof size, "%.17g", g->radius);
        break;
    case WK_GEOMETRY_CYLINDER:
    case WK_GEOMETRY_CAPSULE:
        type = g->type == WK_GEOMETRY_CYLINDER ? "cylinder" : "capsule";
        snprintf(size, sizeof size, "%.17g %.17g", g->radius, g->length / 2);
        break;
    case WK_GEOMETRY_ELLIPSOID:
        type = "ellipsoid";
        snprintf(size, sizeof size, "%.17g %.17g %.17g", g->size.x, g->size.y, g->size.z);
        break;
    case WK_GEOMETRY_PLANE:
        type = "plane";
        snprintf(size, sizeof size, "0 0 1");
        pose.q = wk_quat_mul(pose.q, z_onto(g->normal));
        break;
    case WK_GEOMETRY_MESH: {
        int rc = add_mesh(p, s, collision, g, mesh, sizeof mesh, size, sizeof size, &pose);
        if (rc || !mesh[0])
            return rc;
        type = mesh;
        break;
    }
    default:
        return WK_OK;
    }
    int rc = add(xml, "<geom type='%s'", type);
    if (rc == WK_OK && size[0])
        rc = add(xml, " size='%s'", size);
    if (rc == WK_OK)
        rc = add_pose(xml, pose);
    if (rc == WK_OK)
        rc = add_friction(xml, s, collision, ph);
    return rc ? rc : add(xml, "/>");
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
        return add(xml, "<freejoint/>");
    if (!type) /* fixed, and what MuJoCo has no joint for: welded */
        return WK_OK;
    wk_pose link_T_joint = wk_pose_compose(wk_pose_inverse(world_T_link), wk_scene_world_pose(s, b->joint));
    wk_vec3 axis = wk_quat_rotate(link_T_joint.q, j->axis);
    int rc = add(xml, "<joint name='j%zu' type='%s' pos='%.17g %.17g %.17g' axis='%.17g %.17g %.17g'", i, type,
                 link_T_joint.p.x, link_T_joint.p.y, link_T_joint.p.z, axis.x, axis.y, axis.z);
    if (rc == WK_OK && j->type != WK_JOINT_BALL)
        rc = add(xml, " damping='%.17g' frictionloss='%.17g' stiffness='%.17g' springref='%.17g'", j->damping,
                 j->friction, j->stiffness, j->reference - b->at_build);
    /* A ball's range is a cone MuJoCo measures differently: left free. */
    if (rc == WK_OK && j->type != WK_JOINT_CONTINUOUS && j->type != WK_JOINT_BALL && isfinite(j->lower) &&
        isfinite(j->upper) && j->lower < j->upper)
        rc = add(xml, " limited='true' range='%.17g %.17g'", j->lower - b->at_build, j->upper - b->at_build);
    return rc ? rc : add(xml, "/>");
}

/* The inertial of a moving body: the link's, or SDFormat's default of 1 kg
 * and a unit inertia where the file gave none. */
static int add_inertial(wk_buf *xml, const wk_physics *ph)
{
    if (!ph || ph->mass_kg <= 0)
        return add(xml, "<inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>");
    /* MJCF takes a full inertia in the body's axes only: R I R^T, R the
     * centre of mass frame's turn, column by column from turned axes. */
    double R[3][3], I[3][3] = {{0}};
    for (int c = 0; c < 3; c++) {
        wk_vec3 axis = wk_quat_rotate(ph->this_T_com.q, (wk_vec3){c == 0, c == 1, c == 2});
        R[0][c] = axis.x, R[1][c] = axis.y, R[2][c] = axis.z;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++)
                    I[i][j] += R[i][k] * ph->inertia[k][l] * R[j][l];
    wk_vec3 c = ph->this_T_com.p;
    return add(xml, "<inertial pos='%.17g %.17g %.17g' mass='%.17g' fullinertia='%.17g %.17g %.17g %.17g %.17g %.17g'/>",
               c.x, c.y, c.z, ph->mass_kg, I[0][0], I[1][1], I[2][2], I[0][1], I[0][2], I[1][2]);
}

/* Body i and the bodies below it, in world_T_parent's frame. */
static int add_body(wk__physics *p, wk_scene *s, size_t i, wk_pose world_T_parent, wk_buf *xml)
{
    body *b = &p->bodies[i];
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_scene_types *t = wk_scene_types_of(s);
    wk_pose world_T_link = wk_scene_world_pose(s, b->link);
    int rc = add(xml, "<body name='b%zu'", i);
    if (rc == WK_OK)
        rc = add_pose(xml, wk_pose_compose(wk_pose_inverse(world_T_parent), world_T_link));
    if (rc == WK_OK)
        rc = add(xml, ">");
    const wk_physics *ph = wk_ecm_get(ecm, b->link, t->physics);
    if (rc == WK_OK && b->moves)
        rc = b->parent < 0 && !b->joint ? add(xml, "<freejoint/>") : add_joint(xml, s, i, b, world_T_link);
    if (rc == WK_OK && b->moves)
        rc = add_inertial(xml, ph);
    for (wk_entity c = wk_ecm_first_child(ecm, b->link); rc == WK_OK && c; c = wk_ecm_next_sibling(ecm, c))
        if (kind_of(s, c) == WK_NODE_COLLISION)
            rc = add_geom(p, xml, s, c, wk_pose_compose(wk_pose_inverse(world_T_link), wk_scene_world_pose(s, c)),
                          ph);
    for (size_t k = 0; rc == WK_OK && k < p->count; k++)
        if (p->bodies[k].parent == (int)i)
            rc = add_body(p, s, k, world_T_link, xml);
    return rc ? rc : add(xml, "</body>");
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
        if (kind_of(s, wk_ecm_parent(ecm, shapes.items[i])) == WK_NODE_MODEL)
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
                rc = add(xml, "<equality>");
            open = true;
            if (rc == WK_OK)
                rc = add(xml, "<joint joint1='j%zu' joint2='j%zu' polycoef='%.17g %.17g 0 0 0'/>", i, k,
                         m->multiplier * l->at_build + m->offset - f->at_build, m->multiplier);
        }
    }
    return rc == WK_OK && open ? add(xml, "</equality>") : rc;
}

/* The links of the world and the joints between them, as bodies. */
static int gather(wk__physics *p, wk_scene *s, bool mjcf)
{
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_scene_types *t = wk_scene_types_of(s);
    uint8_t link = WK_NODE_LINK, joint = WK_NODE_JOINT;
    wk_entity_list links = {0}, joints = {0};
    int rc = wk_ecm_find(ecm, &(wk_match){t->kind, &link}, 1, &links);
    if (rc == WK_OK)
        rc = wk_ecm_find(ecm, &(wk_match){t->kind, &joint}, 1, &joints);
    body *bodies = rc == WK_OK ? calloc(links.count ? links.count : 1, sizeof *bodies) : NULL;
    if (!bodies)
        rc = WK_NOMEM;
    for (size_t i = 0; rc == WK_OK && i < links.count; i++)
        bodies[i] = (body){.link = links.items[i], .parent = -1, .qpos = -1, .dof = -1,
                           .moves = !in_static_model(s, links.items[i])};
    for (size_t k = 0; rc == WK_OK && k < joints.count; k++) {
        const wk_scene_joint_links *jl = wk_ecm_get(ecm, joints.items[k], t->joint_links);
        for (size_t i = 0; jl && i < links.count; i++)
            if (bodies[i].link == jl->child && !bodies[i].joint) {
                bodies[i].joint = joints.items[k];
                for (size_t j = 0; jl->parent && j < links.count; j++)
                    if (bodies[j].link == jl->parent && j != i)
                        bodies[i].parent = (int)j;
            }
    }
    /* The model is written at the links' poses now: where each joint stands
     * is its zero there, so its range and spring are moved by as much. */
    for (size_t i = 0; rc == WK_OK && i < links.count; i++) {
        const wk_kinematics *k = bodies[i].joint ? wk_scene_kinematics(s, bodies[i].joint) : NULL;
        bodies[i].at_build = bodies[i].position = k ? k->position : 0;
    }
    size_t count = links.count;
    /* MJCF welds a body without a joint to its parent, the world's too;
     * SDFormat lets a link without one float. */
    for (size_t i = 0; rc == WK_OK && mjcf && i < links.count; i++)
        bodies[i].moves &= bodies[i].joint != WK_NULL_ENTITY || bodies[i].parent >= 0;
    wk_entity_list_free(&links);
    wk_entity_list_free(&joints);
    if (rc) {
        free(bodies);
        return rc;
    }
    free(p->bodies);
    p->bodies = bodies;
    p->count = count;
    return WK_OK;
}

/* The model body i carries: its model, when it is the model's one root
 * link, free, right below it, and the model is a top-level one, so that the
 * model's pose and twist follow the link as Gazebo's follow a canonical
 * link; else none, and the link moves within its model. */
static wk_entity carrier_of(const wk__physics *p, wk_scene *s, size_t i)
{
    const body *b = &p->bodies[i];
    wk_ecm *ecm = wk_scene_ecm(s);
    wk_entity model = wk_ecm_parent(ecm, b->link);
    if (!b->free || kind_of(s, model) != WK_NODE_MODEL || kind_of(s, wk_ecm_parent(ecm, model)) != WK_NODE_WORLD)
        return WK_NULL_ENTITY;
    /* Only the model's one root body carries it (MJCF puts a whole world's
     * bodies, free and welded, in one model). */
    for (size_t k = 0; k < p->count; k++)
        if (k != i && p->bodies[k].parent < 0 && wk_ecm_parent(ecm, p->bodies[k].link) == model)
            return WK_NULL_ENTITY;
    return model;
}

/* How many geoms the model written so far holds. */
static size_t geoms_in(const wk_buf *xml)
{
    size_t n = 0;
    /* add() keeps the text NUL-terminated. */
    for (const char *at = xml->len ? (const char *)xml->data : ""; (at = strstr(at, "<geom ")); at += 6)
        n++;
    return n;
}

/* Compiles the world as it is now; the velocities of the bodies of the
 * model it replaces carry over. */
static int build(wk__physics *p, wk_sim *sim, double dt, wk_status *st)
{
    wk__physics old = *p;
    p->bodies = NULL;
    p->m = NULL;
    p->d = NULL;
    wk_scene *s = sim->scene;
    const wk_world_settings *w = wk_ecm_get(wk_scene_ecm(s), sim->world, wk_scene_types_of(s)->world_settings);
    wk_vec3 g = w ? w->gravity : (wk_vec3){0, 0, -9.8};
    wk_buf xml = {0};
    int rc = gather(p, s, wk_desc_format(sim->desc) == WK_FORMAT_MJCF);
    if (rc == WK_OK)
        rc = add(&xml,
                 "<mujoco><compiler angle='radian' inertiafromgeom='false'/>"
                 "<option timestep='%.17g' gravity='%.17g %.17g %.17g'/><worldbody>",
                 dt, g.x, g.y, g.z);
    if (rc == WK_OK)
        rc = add_world_geoms(p, s, &xml);
    for (size_t i = 0; rc == WK_OK && i < p->count; i++)
        if (p->bodies[i].parent < 0)
            rc = add_body(p, s, i, wk_pose_identity(), &xml);
    size_t contacts = CONTACTS_PER_GEOM * geoms_in(&xml) + 100;
    if (rc == WK_OK)
        rc = add(&xml, "</worldbody><size nconmax='%zu' njmax='%zu'/>", contacts,
                 ROWS_PER_CONTACT * contacts);
    if (rc == WK_OK)
        rc = add_mimics(p, s, &xml);
    if (rc == WK_OK && p->meshes)
        rc = add(&xml, "<asset>%.*s</asset>", (int)p->assets.len, (const char *)p->assets.data);
    if (rc == WK_OK)
        rc = add(&xml, "</mujoco>");
    wk_buf_free(&p->assets);
    p->meshes = 0;
    char error[1024] = "";
    if (rc == WK_OK)
        p->m = compile(&xml, error, sizeof error);
    wk_buf_free(&xml);
    p->d = p->m ? mj_makeData(p->m) : NULL;
    p->of_id = p->d ? calloc((size_t)p->m->nbody, sizeof *p->of_id) : NULL;
    if (!p->of_id) {
        drop_model(p);
        free(p->bodies);
        *p = old;
        return wk_fail(st, rc ? rc : WK_INVALID, "physics: the world does not compile for MuJoCo: %s",
                       error[0] ? error : "out of memory");
    }
    char name[32];
    for (size_t i = 0; i < p->count; i++) {
        body *b = &p->bodies[i];
        snprintf(name, sizeof name, "b%zu", i);
        b->id = mj_name2id(p->m, mjOBJ_BODY, name);
        int jnt = p->m->body_jntnum[b->id] ? p->m->body_jntadr[b->id] : -1;
        b->qpos = jnt >= 0 ? p->m->jnt_qposadr[jnt] : -1;
        b->free = jnt >= 0 && p->m->jnt_type[jnt] == mjJNT_FREE;
        b->dof = jnt >= 0 ? p->m->jnt_dofadr[jnt] : -1;
        p->of_id[b->id] = i;
        b->written = wk_scene_world_pose(s, b->link);
        b->carries = carrier_of(p, s, i);
        /* The velocity it had in the model replaced, when it was there. */
        for (size_t k = 0; old.d && k < old.count; k++) {
            const body *was = &old.bodies[k];
            if (was->link != b->link)
                continue;
            b->twist = was->twist;
            size_t n = (size_t)p->m->body_dofnum[b->id];
            if (b->dof < 0 || was->dof < 0 || (size_t)old.m->body_dofnum[was->id] != n)
                continue;
            /* And the solver's warm start, so that the bodies' next steps
             * are those they would have had. */
            memcpy(&p->d->qvel[b->dof], &old.d->qvel[was->dof], n * sizeof(mjtNum));
            memcpy(&p->d->qacc_warmstart[b->dof], &old.d->qacc_warmstart[was->dof], n * sizeof(mjtNum));
        }
    }
    mj_forward(p->m, p->d);
    mj_deleteData(old.d);
    mj_deleteModel(old.m);
    free(old.bodies);
    free(old.of_id);
    return WK_OK;
}

/* Whether the world's links are those the model was built from. */
static bool same_links(const wk__physics *p, wk_scene *s)
{
    if (!p->m)
        return false;
    uint8_t link = WK_NODE_LINK;
    wk_entity_list links = {0};
    const wk_scene_types *t = wk_scene_types_of(s);
    bool same = wk_ecm_find(wk_scene_ecm(s), &(wk_match){t->kind, &link}, 1, &links) == WK_OK &&
                links.count == p->count;
    for (size_t i = 0; same && i < p->count; i++)
        same = wk_ecm_exists(wk_scene_ecm(s), p->bodies[i].link);
    wk_entity_list_free(&links);
    return same;
}

/* Whether two poses differ, past rounding. */
static bool moved(wk_pose a, wk_pose b)
{
    return fabs(a.p.x - b.p.x) + fabs(a.p.y - b.p.y) + fabs(a.p.z - b.p.z) + fabs(a.q.w - b.q.w) +
               fabs(a.q.x - b.q.x) + fabs(a.q.y - b.q.y) + fabs(a.q.z - b.q.z) >
           1e-12;
}

/* Whether a client moved a body welded to the world (a static model):
 * where it is is part of the compiled model. */
static bool welded_moved(const wk__physics *p, wk_scene *s)
{
    for (size_t i = 0; i < p->count; i++)
        if (!p->bodies[i].moves && p->bodies[i].parent < 0 &&
            moved(wk_scene_world_pose(s, p->bodies[i].link), p->bodies[i].written))
            return true;
    return false;
}

/* Whether a twist differs from the one last written. */
static bool twist_set(const wk_velocity *a, const wk_velocity *b)
{
    return memcmp(&a->linear, &b->linear, sizeof a->linear) || memcmp(&a->angular, &b->angular, sizeof a->angular);
}

/* Whether body b turns or slides on a joint of a kinematic object. */
static bool on_object_joint(const wk__physics *p, wk_scene *s, const body *b)
{
    if (!b->joint || b->qpos < 0 || b->free || !wk_scene_kinematics(s, b->joint))
        return false;
    int type = p->m->jnt_type[p->m->body_jntadr[b->id]];
    return type == mjJNT_HINGE || type == mjJNT_SLIDE;
}

/* A joint position a client set (UpdateObjectJoints, or a leader's that
 * its mimic follows) goes to the engine, the joint at rest there. */
static bool take_joint(wk__physics *p, wk_scene *s, body *b)
{
    double now = wk_scene_kinematics(s, b->joint)->position;
    if (now == b->position)
        return false;
    p->d->qpos[b->qpos] = now - b->at_build;
    p->d->qvel[b->dof] = 0;
    b->position = now;
    return true;
}

/* What clients changed since the last step goes to the engine: a free body
 * whose link was moved (itself or its model) goes where it was put, at
 * rest (a teleport); a twist set on a carried model is the body's; a
 * kinematic object's joint set goes to its body's joint. */
static bool take_changes(wk__physics *p, wk_sim *sim)
{
    bool taken = false;
    wk_scene *s = sim->scene;
    for (size_t i = 0; i < p->count; i++) {
        body *b = &p->bodies[i];
        if (on_object_joint(p, s, b))
            taken |= take_joint(p, s, b);
        if (!b->free)
            continue;
        wk_pose now = wk_scene_world_pose(s, b->link);
        mjtNum *q = &p->d->qpos[b->qpos], *v = &p->d->qvel[b->dof];
        if (moved(now, b->written)) {
            q[0] = now.p.x, q[1] = now.p.y, q[2] = now.p.z;
            q[3] = now.q.w, q[4] = now.q.x, q[5] = now.q.y, q[6] = now.q.z;
            memset(v, 0, 6 * sizeof(mjtNum));
            taken = true;
        }
        const wk_velocity *twist = b->carries ? wk_ecm_get(wk_scene_ecm(s), b->carries, sim->velocity) : NULL;
        if (!twist || !twist_set(twist, &b->twist))
            continue;
        /* In the world's axes (the model's parent is the world); MuJoCo
         * takes a free body's angular velocity in the body's own axes. */
        wk_vec3 w = wk_quat_rotate(wk_quat_conjugate(now.q), twist->angular);
        v[0] = twist->linear.x, v[1] = twist->linear.y, v[2] = twist->linear.z;
        v[3] = w.x, v[4] = w.y, v[5] = w.z;
        taken = true;
    }
    return taken;
}

/* A carried model's pose, twist and acceleration from its body's: the
 * model where the link, at its place in the model, is where the engine put
 * it. The acceleration is the one the step just taken integrated (qvel +=
 * h qacc): a free joint's linear part in the world's axes, its angular
 * part in the body's. */
static int carry(wk__physics *p, wk_sim *sim, body *b, wk_pose world_T_link)
{
    wk_scene *s = sim->scene;
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_pose *model_T_link = wk_ecm_get(ecm, b->link, wk_scene_types_of(s)->parent_pose);
    wk_pose model = wk_pose_compose(world_T_link, wk_pose_inverse(model_T_link ? *model_T_link : wk_pose_identity()));
    mjtNum vel[6]; /* angular then linear, in the world's axes */
    mj_objectVelocity(p->m, p->d, mjOBJ_BODY, b->id, vel, 0);
    b->twist = (wk_velocity){{vel[3], vel[4], vel[5]}, {vel[0], vel[1], vel[2]}, false};
    const mjtNum *a = &p->d->qacc[b->dof];
    wk_acceleration acc = {{a[0], a[1], a[2]}, wk_quat_rotate(world_T_link.q, (wk_vec3){a[3], a[4], a[5]})};
    if (wk_ecm_set(ecm, b->carries, wk_scene_types_of(s)->parent_pose, &model) < 0 ||
        wk_ecm_set(ecm, b->carries, sim->velocity, &b->twist) < 0 ||
        wk_ecm_set(ecm, b->carries, sim->acceleration, &acc) < 0)
        return WK_NOMEM;
    wk_scene_pose_written(s, b->carries);
    return WK_OK;
}

/* The position of a kinematic object's joint (ObjectWorldService reads it)
 * from its body's: the one it had when the model was compiled, where the
 * body's joint stood at zero, plus the joint's travel since. A position
 * the object's limits refuse (MuJoCo's are soft) is left as it was: the
 * link's pose is written relative to the joint's either way. */
static void move_joint(wk__physics *p, wk_scene *s, body *b)
{
    if (!on_object_joint(p, s, b))
        return;
    double position = b->at_build + p->d->qpos[b->qpos];
    const char *name = wk_scene_name(s, b->joint);
    (void)wk_scene_set_joint_positions(s, wk_scene_object_of(s, b->joint), &name, &position, 1, NULL);
    b->position = wk_scene_kinematics(s, b->joint)->position;
}

/* Whether body b moves within its model (not welded to the world, and
 * carrying no model): its link has a twist of its own to write. */
static bool moves_in_model(const wk__physics *p, const body *b)
{
    return b->moves && !b->carries && p->m->body_weldid[b->id] != 0;
}

/* The world twist of every body that moves within its model, before the
 * step: its acceleration is the step's change of it. */
static void note_twists(wk__physics *p)
{
    for (size_t i = 0; i < p->count; i++)
        if (moves_in_model(p, &p->bodies[i]))
            mj_objectVelocity(p->m, p->d, mjOBJ_BODY, p->bodies[i].id, p->bodies[i].before, 0);
}

/* A link's twist and acceleration (the engine's world twist, and its
 * change over the step just taken over the step's length), relative to
 * its parent entity's motion, as Velocity and Acceleration hold them. */
static int write_motion(wk__physics *p, wk_sim *sim, const body *b, wk_pose world)
{
    mjtNum v[6]; /* angular then linear, in the world's axes */
    mj_objectVelocity(p->m, p->d, mjOBJ_BODY, b->id, v, 0);
    double h = p->m->opt.timestep;
    const mjtNum *w = b->before;
    wk_motion m = {world,
                   {v[3], v[4], v[5]},
                   {v[0], v[1], v[2]},
                   {(v[3] - w[3]) / h, (v[4] - w[4]) / h, (v[5] - w[5]) / h},
                   {(v[0] - w[0]) / h, (v[1] - w[1]) / h, (v[2] - w[2]) / h}};
    wk_ecm *ecm = wk_scene_ecm(sim->scene);
    wk_motion parent = wk_sim_motion(sim, wk_ecm_parent(ecm, b->link));
    wk_motion rel = wk_motion_relative(&parent, &m);
    wk_velocity twist = {rel.linear, rel.angular, false};
    wk_acceleration acc = {rel.linear_acc, rel.angular_acc};
    return wk_ecm_set(ecm, b->link, sim->velocity, &twist) < 0 || wk_ecm_set(ecm, b->link, sim->acceleration, &acc) < 0
               ? WK_NOMEM
               : WK_OK;
}

/* Every moving link's pose from its body's, parents first (MuJoCo numbers
 * bodies so): a carried model's, or the link's ParentPose, with its twist
 * and acceleration where it moves within its model. */
static int give_changes(wk__physics *p, wk_sim *sim)
{
    wk_scene *s = sim->scene;
    wk_ecm *ecm = wk_scene_ecm(s);
    wk_type parent_pose = wk_scene_types_of(s)->parent_pose;
    for (int id = 1; id < p->m->nbody; id++) {
        body *b = &p->bodies[p->of_id[id]];
        if (!b->moves)
            continue;
        const mjtNum *x = &p->d->xpos[3 * id], *q = &p->d->xquat[4 * id];
        wk_pose world = {{x[0], x[1], x[2]}, {q[0], q[1], q[2], q[3]}};
        int rc;
        if (b->joint && b->qpos >= 0 && !b->free)
            move_joint(p, s, b);
        if (b->carries) {
            rc = carry(p, sim, b, world);
        } else {
            wk_pose local =
                wk_pose_compose(wk_pose_inverse(wk_scene_world_pose(s, wk_ecm_parent(ecm, b->link))), world);
            rc = wk_ecm_set(ecm, b->link, parent_pose, &local) < 0 ? WK_NOMEM : WK_OK;
            wk_scene_pose_written(s, b->link);
            if (rc == WK_OK && moves_in_model(p, b))
                rc = write_motion(p, sim, b, world);
        }
        if (rc)
            return rc;
        b->written = wk_scene_world_pose(s, b->link);
    }
    /* A leader's position written moves the kinematic joints that mimic
     * it (the scene's coupling, which the engine's equality keeps too):
     * what they hold now is no client's. */
    for (size_t i = 0; wk_ecm_type_in_use(ecm, wk_scene_types_of(s)->mimic) && i < p->count; i++)
        if (on_object_joint(p, s, &p->bodies[i]))
            p->bodies[i].position = wk_scene_kinematics(s, p->bodies[i].joint)->position;
    return WK_OK;
}

int wk__physics_step(wk__physics *p, wk_sim *sim, double dt, wk_status *st)
{
    wk_scene *s = sim->scene;
    if (!same_links(p, s) || welded_moved(p, s)) {
        int rc = build(p, sim, dt, st);
        if (rc)
            return rc;
    }
    /* mj_step in its two halves, the first run after the second: so the
     * bodies' poses and velocities are those of the positions just
     * integrated, which is what gets written, at no extra cost; the first
     * half runs again only when a client changed a state. */
    if (take_changes(p, sim))
        mj_step1(p->m, p->d);
    note_twists(p);
    mj_step2(p->m, p->d);
    mj_step1(p->m, p->d);
    return give_changes(p, sim) ? wk_fail(st, WK_NOMEM, "physics: out of memory writing poses") : WK_OK;
}
