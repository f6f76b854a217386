/* physics_pool.c — spare bodies compiled into the MuJoCo model so that the
 * common spawn and delete while playing cost a step, not a compile of the
 * whole world (MuJoCo 2.2.2 cannot edit a model; compiling one of 1,000
 * bodies takes a third of a second). A world's first model has none, as
 * their dofs cost every step (an arm of 7 links steps twice as slowly
 * with them): they come with the first compile a change of the links
 * causes, for the changes to come. Each spare is a free body with a few
 * geoms, parked out of the way: its geoms collide with nothing
 * (contype and conaffinity 0) and it is put back at rest after every step,
 * so it never touches the dynamics of the others. A spawned model of one
 * free link with primitive shapes fills a spare: the fields MuJoCo lets
 * one change in a compiled model (geom type, size, pose, friction and
 * collision masks; body mass, inertia and its frame) take the link's, and
 * mj_setConst works out the constants that depend on them. A deleted free
 * body on its own (a spawned one, or one of the first compile) is parked
 * and becomes a spare. Anything else (joints, a
 * mesh, more geoms than a spare has, no spare left) compiles the model
 * again, which writes a fresh pool. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/physics_mujoco.h"

#define SPARES 8
#define GEOMS_PER_SPARE 4
/* Where spares wait: far below the world, a few metres apart. */
#define PARK_DEPTH (-1000.0)

/* Whether the pool serves sim's world: an MJCF world welds a link without
 * a joint, so no spawn fits a spare. */
static bool pools(wk_sim *sim)
{
    return wk_desc_format(sim->desc) != WK_FORMAT_MJCF;
}

size_t wk__pool_size(const wk__physics *p, wk_sim *sim)
{
    return pools(sim) && p->pooled ? SPARES : 0;
}

int wk__pool_write_spare(wk_buf *xml)
{
    /* The inertial off the body's origin and turned, and the geoms off
     * both frames: so MuJoCo compiles the spare for the general case, with
     * none of the shortcuts it takes for a body whose mass matrix is
     * diagonal, which a link filled in may not have. */
    int rc = wk__add(xml, "<body pos='0 0 %g'><freejoint/><inertial pos='0 0 0.001' quat='0.9 0.1 0.1 0.1' "
                          "mass='1' diaginertia='1 1 1'/>",
                     PARK_DEPTH);
    for (int k = 0; rc == WK_OK && k < GEOMS_PER_SPARE; k++)
        rc = wk__add(xml, "<geom type='sphere' size='0.1' pos='0 0.001 0.002' contype='0' conaffinity='0'/>");
    return rc ? rc : wk__add(xml, "</body>");
}

bool wk__pool_found(wk__physics *p)
{
    p->parked = 0;
    p->spares = malloc((size_t)p->m->nbody * sizeof *p->spares);
    if (!p->spares)
        return false;
    /* The spares come after every body of the world. */
    for (int id = p->written + 1; id < p->m->nbody; id++) {
        p->of_id[id] = SPARE;
        p->spares[p->parked++] = id;
    }
    wk__pool_hold(p);
    return true;
}

void wk__pool_hold(wk__physics *p)
{
    for (size_t k = 0; k < p->parked; k++) {
        int id = p->spares[k], jnt = p->m->body_jntadr[id];
        mjtNum *q = &p->d->qpos[p->m->jnt_qposadr[jnt]];
        q[0] = 3.0 * id, q[1] = 0, q[2] = PARK_DEPTH;
        q[3] = 1, q[4] = q[5] = q[6] = 0;
        memset(&p->d->qvel[p->m->jnt_dofadr[jnt]], 0, 6 * sizeof(mjtNum));
    }
}

static void set_collides(mjModel *m, int id, bool collides)
{
    for (int g = m->body_geomadr[id]; g < m->body_geomadr[id] + m->body_geomnum[id]; g++)
        m->geom_contype[g] = m->geom_conaffinity[g] = collides;
}

/* Makes body id, which MuJoCo may have compiled as simple (a root body
 * whose inertia is diagonal in its own frame: its mass matrix block is
 * taken as diagonal, from dof_M0, and skipped when factored), one of the
 * general case, which any link filled in later fits: the general path is
 * right for every body, the simple one an optimisation. Its dofs leave the
 * runs of consecutive simple dofs, those before it cut short. */
static void make_general(mjModel *m, int id)
{
    int first = m->body_dofadr[id], end = first + m->body_dofnum[id];
    m->body_simple[id] = 0;
    m->body_sameframe[id] = 0;
    for (int k = first; k < end; k++)
        m->dof_simplenum[k] = 0;
    for (int k = first - 1; k >= 0 && m->dof_simplenum[k] > first - k; k--)
        m->dof_simplenum[k] = first - k;
}

/* Parks body i, whose link is gone, when it is a free body on its own;
 * false when it is not. */
static bool park(wk__physics *p, size_t i)
{
    const body *b = &p->bodies[i];
    if (!b->free || b->parent >= 0)
        return false;
    for (size_t k = 0; k < p->count; k++)
        if (p->bodies[k].parent == (int)i)
            return false;
    make_general(p->m, b->id);
    set_collides(p->m, b->id, false);
    p->of_id[b->id] = SPARE;
    p->spares[p->parked++] = b->id;
    /* The last body takes its place. */
    size_t last = --p->count;
    if (i == last)
        return true;
    p->bodies[i] = p->bodies[last];
    p->of_id[p->bodies[i].id] = i;
    for (size_t k = 0; k < p->count; k++)
        if (p->bodies[k].parent == (int)last)
            p->bodies[k].parent = (int)i;
    return true;
}

/* How many geoms link's collisions need when it fits a spare: a free
 * link alone in a top-level model that is not static, with no joint, its
 * shapes primitives other than a plane; -1 when it does not. */
static int geoms_needed(wk_scene *s, wk_entity link)
{
    wk_ecm *ecm = wk_scene_ecm(s);
    wk_entity model = wk_ecm_parent(ecm, link);
    if (wk__kind_of(s, model) != WK_NODE_MODEL || wk__kind_of(s, wk_ecm_parent(ecm, model)) != WK_NODE_WORLD ||
        wk__in_static_model(s, link))
        return -1;
    for (wk_entity c = wk_ecm_first_child(ecm, model); c; c = wk_ecm_next_sibling(ecm, c)) {
        uint8_t kind = wk__kind_of(s, c);
        if (c != link && (kind == WK_NODE_LINK || kind == WK_NODE_MODEL || kind == WK_NODE_JOINT))
            return -1;
    }
    int n = 0;
    mjtGeom type;
    double size[3];
    for (wk_entity c = wk_ecm_first_child(ecm, link); c; c = wk_ecm_next_sibling(ecm, c)) {
        const wk_scene_geometry *g =
            wk__kind_of(s, c) == WK_NODE_COLLISION ? wk_ecm_get(ecm, c, wk_scene_types_of(s)->geometry) : NULL;
        if (g && !wk__primitive(g, &type, size))
            return -1;
        n += g != NULL;
    }
    return n;
}

/* A primitive's bounding sphere about its centre, as MuJoCo's compiler
 * works it out (the broad phase reads it). */
static mjtNum bounding_radius(mjtGeom type, const mjtNum size[3])
{
    switch (type) {
    case mjGEOM_SPHERE:
        return size[0];
    case mjGEOM_CAPSULE:
        return size[0] + size[1];
    case mjGEOM_CYLINDER:
        return sqrt(size[0] * size[0] + size[1] * size[1]);
    case mjGEOM_ELLIPSOID:
        return fmax(size[0], fmax(size[1], size[2]));
    default: /* a box */
        return sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]);
    }
}

/* Link's collisions as the geoms of spare body id. */
static void fill_geoms(mjModel *m, wk_scene *s, wk_entity link, int id)
{
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_physics *ph = wk_ecm_get(ecm, link, wk_scene_types_of(s)->physics);
    wk_pose link_T_world = wk_pose_inverse(wk_scene_world_pose(s, link));
    int g = m->body_geomadr[id];
    for (wk_entity c = wk_ecm_first_child(ecm, link); c; c = wk_ecm_next_sibling(ecm, c)) {
        const wk_scene_geometry *shape =
            wk__kind_of(s, c) == WK_NODE_COLLISION ? wk_ecm_get(ecm, c, wk_scene_types_of(s)->geometry) : NULL;
        mjtGeom type;
        if (!shape || !wk__primitive(shape, &type, &m->geom_size[3 * g]))
            continue;
        wk_pose pose = wk_pose_compose(link_T_world, wk_scene_world_pose(s, c));
        double friction[3] = {1, 0.005, 0.0001}; /* MuJoCo's default */
        wk__friction(s, c, ph, friction);
        m->geom_type[g] = type;
        m->geom_dataid[g] = -1;
        m->geom_sameframe[g] = 0; /* the general case: no frame shared */
        m->geom_rbound[g] = bounding_radius(type, &m->geom_size[3 * g]);
        memcpy(&m->geom_pos[3 * g], (mjtNum[]){pose.p.x, pose.p.y, pose.p.z}, 3 * sizeof(mjtNum));
        memcpy(&m->geom_quat[4 * g], (mjtNum[]){pose.q.w, pose.q.x, pose.q.y, pose.q.z}, 4 * sizeof(mjtNum));
        memcpy(&m->geom_friction[3 * g], friction, 3 * sizeof(mjtNum));
        m->geom_contype[g] = m->geom_conaffinity[g] = 1;
        g++;
    }
}

/* Link's body in spare body id: its geoms, its inertia in its principal
 * axes (as the compiler would turn a full inertia), and where it is now,
 * at rest. */
static void fill(wk__physics *p, wk_scene *s, wk_entity link, int id)
{
    mjModel *m = p->m;
    double mass, I[3][3];
    wk_vec3 com;
    wk__inertia(wk_ecm_get(wk_scene_ecm(s), link, wk_scene_types_of(s)->physics), &mass, &com, I);
    mjtNum inertia[9], eigvec[9];
    memcpy(inertia, I, sizeof inertia);
    mju_eig3(&m->body_inertia[3 * id], eigvec, &m->body_iquat[4 * id], inertia);
    m->body_mass[id] = mass;
    memcpy(&m->body_ipos[3 * id], (mjtNum[]){com.x, com.y, com.z}, 3 * sizeof(mjtNum));
    m->body_sameframe[id] = 0;
    fill_geoms(m, s, link, id);
    /* Where it is now: its pose (qpos0 too, as a model compiled now would
     * have it), at rest. */
    wk_pose at = wk_scene_world_pose(s, link);
    int jnt = m->body_jntadr[id];
    mjtNum q[7] = {at.p.x, at.p.y, at.p.z, at.q.w, at.q.x, at.q.y, at.q.z};
    memcpy(&p->d->qpos[m->jnt_qposadr[jnt]], q, sizeof q);
    memcpy(&m->qpos0[m->jnt_qposadr[jnt]], q, sizeof q);
    memcpy(&m->body_pos[3 * id], q, 3 * sizeof(mjtNum));
    memcpy(&m->body_quat[4 * id], q + 3, 4 * sizeof(mjtNum));
    memset(&p->d->qvel[m->jnt_dofadr[jnt]], 0, 6 * sizeof(mjtNum));
}

/* Takes spawned link into a spare with room for its geoms, as body
 * p->count; false when none has. The last parked is taken first: a body
 * deleted and another spawned in its place take one spare. */
static bool take_spawned(wk__physics *p, wk_scene *s, wk_entity link, int geoms)
{
    size_t k = p->parked;
    while (k > 0 && p->m->body_geomnum[p->spares[k - 1]] < geoms)
        k--;
    if (k-- == 0)
        return false;
    body *bodies = realloc(p->bodies, (p->count + 1) * sizeof *bodies);
    if (!bodies)
        return false;
    p->bodies = bodies;
    int id = p->spares[k];
    p->spares[k] = p->spares[--p->parked];
    fill(p, s, link, id);
    int jnt = p->m->body_jntadr[id];
    size_t i = p->count++;
    p->bodies[i] = (body){.link = link, .parent = -1, .moves = true, .free = true, .id = id,
                          .qpos = p->m->jnt_qposadr[jnt], .dof = p->m->jnt_dofadr[jnt],
                          .written = wk_scene_world_pose(s, link)};
    p->of_id[id] = i;
    p->bodies[i].carries = wk__carrier_of(p, s, i);
    return true;
}

/* The mean of the diagonal of J inv(M) J' over J's rows 0-2 and 3-5 (a
 * translation's and a turn's): J's six rows of nv, tmp room for as many. */
static void mean_inverse_weights(const mjModel *m, mjData *d, const mjtNum *jac, mjtNum *tmp, mjtNum out[2])
{
    mjtNum A[36];
    mj_solveM(m, d, tmp, jac, 6);
    mju_mulMatMatT(A, jac, tmp, 6, m->nv, 6);
    out[0] = (A[0] + A[7] + A[14]) / 3;
    out[1] = (A[21] + A[28] + A[35]) / 3;
}

/* The constants MuJoCo's compiler works out from a body's mass and inertia
 * (mj_setConst does them for every body at once, and takes a third of a
 * second for 1,000 of them): body i's inverse weights, its free joint's,
 * its dofs' diagonal inertia, and the subtree masses. The data holds the
 * mass matrix of the model as filled (mj_forward), which for a free body
 * gives at its pose now what it gives at qpos0: these are traces, which
 * turning the body leaves alone. */
static bool set_constants(wk__physics *p, const body *b)
{
    mjModel *m = p->m;
    size_t nv = (size_t)m->nv;
    mjtNum *jac = calloc(12 * nv, sizeof *jac), *tmp = jac + 6 * nv, w[2];
    if (!jac)
        return false;
    mj_jacBodyCom(m, p->d, jac, jac + 3 * nv, b->id);
    mean_inverse_weights(m, p->d, jac, tmp, &m->body_invweight0[2 * b->id]);
    memset(jac, 0, 6 * nv * sizeof *jac);
    for (size_t k = 0; k < 6; k++)
        jac[k * nv + (size_t)b->dof + k] = 1;
    mean_inverse_weights(m, p->d, jac, tmp, w);
    for (int k = 0; k < 6; k++) {
        m->dof_invweight0[b->dof + k] = w[k / 3];
        m->dof_M0[b->dof + k] = p->d->qM[m->dof_Madr[b->dof + k]];
    }
    m->body_subtreemass[0] += m->body_mass[b->id] - m->body_subtreemass[b->id];
    m->body_subtreemass[b->id] = m->body_mass[b->id];
    free(jac);
    return true;
}

static int by_entity(const void *a, const void *b)
{
    wk_entity x = *(const wk_entity *)a, y = *(const wk_entity *)b;
    return (x > y) - (x < y);
}

/* Fills a spare with each link that has no body; false when one does not
 * fit. */
static bool take_spawns(wk__physics *p, wk_scene *s)
{
    uint8_t kind = WK_NODE_LINK;
    wk_entity_list links = {0};
    wk_entity *known = malloc((p->count + 1) * sizeof *known);
    bool ok = known && wk_ecm_find(wk_scene_ecm(s), &(wk_match){wk_scene_types_of(s)->kind, &kind}, 1, &links) ==
                           WK_OK;
    for (size_t i = 0; ok && i < p->count; i++)
        known[i] = p->bodies[i].link;
    size_t count = p->count;
    if (ok)
        qsort(known, count, sizeof *known, by_entity);
    for (size_t i = 0; ok && i < links.count; i++) {
        if (bsearch(&links.items[i], known, count, sizeof *known, by_entity))
            continue;
        int geoms = geoms_needed(s, links.items[i]);
        ok = geoms >= 0 && take_spawned(p, s, links.items[i], geoms);
    }
    wk_entity_list_free(&links);
    free(known);
    return ok;
}

bool wk__pool_take(wk__physics *p, wk_sim *sim)
{
    wk_scene *s = sim->scene;
    if (!pools(sim))
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < p->count;)
        if (wk_ecm_exists(wk_scene_ecm(s), p->bodies[i].link))
            i++;
        else
            ok = park(p, i); /* the last body comes to i */
    size_t before = p->count;
    ok = ok && take_spawns(p, s);
    /* What fitted stays: a compile that follows starts from the world as
     * it is. The contacts and forces of the model as it now is, as after
     * a compile, once the constants of the bodies filled are in. */
    wk__pool_hold(p);
    mj_forward(p->m, p->d);
    for (size_t i = before; i < p->count; i++)
        ok = ok && set_constants(p, &p->bodies[i]);
    if (p->count > before)
        mj_forward(p->m, p->d);
    return ok;
}
