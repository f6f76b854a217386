/* physics_mujoco.c — the physics engine on MuJoCo's C API. MuJoCo 2.2.2
 * compiles models from MJCF and cannot edit one, so the world's links are
 * gathered as bodies, written as MJCF (physics_mjcf.c) and compiled, and
 * compiled again at the step boundary when the set of links changes in a
 * way the pool of spare bodies cannot take (physics_pool.c), carrying each
 * body's velocity over. Poses are the entities': the model is written at
 * the links' current world poses, and after each step every moving link's
 * ParentPose, twist and acceleration and kinematic joint's position is
 * written back; what clients set between steps (poses, twists, joint
 * positions) is taken before the next. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/physics_mujoco.h"

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
    free(p->spares);
    free(p);
}

uint8_t wk__kind_of(const wk_scene *s, wk_entity e)
{
    const uint8_t *kind = wk_ecm_get(wk_scene_ecm((wk_scene *)s), e, wk_scene_types_of(s)->kind);
    return kind ? *kind : WK_NODE_KIND_COUNT;
}

bool wk__in_static_model(wk_scene *s, wk_entity e)
{
    for (; e; e = wk_ecm_parent(wk_scene_ecm(s), e))
        if (wk__kind_of(s, e) == WK_NODE_MODEL && wk_ecm_has(wk_scene_ecm(s), e, wk_scene_types_of(s)->is_static))
            return true;
    return false;
}

bool wk__physics_moves(wk_scene *s, wk_entity world)
{
    wk_entity_list all = {0};
    bool moves = false;
    if (wk_ecm_descendants(wk_scene_ecm(s), world, &all) == WK_OK)
        for (size_t i = 0; !moves && i < all.count; i++)
            moves = wk__kind_of(s, all.items[i]) == WK_NODE_LINK && !wk__in_static_model(s, all.items[i]);
    wk_entity_list_free(&all);
    return moves;
}

static int find_kind(wk_scene *s, uint8_t kind, wk_entity_list *out)
{
    return wk_ecm_find(wk_scene_ecm(s), &(wk_match){wk_scene_types_of(s)->kind, &kind}, 1, out);
}

static int past_the_limit(size_t links, size_t max, char *error, size_t cap)
{
    snprintf(error, cap, "its %zu links are past the limit of %zu (serve --max-physics-links)", links, max);
    return WK_LIMIT;
}

/* A view of every entity's node kind, to go through the links of s
 * without listing them; NULL out of memory. */
static wk_query *kinds_of(wk_scene *s)
{
    return wk_query_new(wk_scene_ecm(s), &(wk_query_desc){.with = {wk_scene_types_of(s)->kind}});
}

/* How many links s holds, or SIZE_MAX out of memory: asked at every spawn
 * and at every step a client wrote before. */
static size_t link_count(wk_scene *s)
{
    wk_query *q = kinds_of(s);
    if (!q)
        return SIZE_MAX;
    size_t n = 0;
    for (wk_iter it = wk_query_iter(q); wk_iter_next(&it);) {
        const uint8_t *kind = wk_iter_column(&it, 0);
        for (size_t i = 0; i < it.count; i++)
            n += kind[i] == WK_NODE_LINK;
    }
    wk_query_free(q);
    return n;
}

/* Whether a link of s would move (is in no static model), walked up from
 * each until one would; WK_NOMEM out of memory. */
static int a_link_moves(wk_scene *s, bool *moves)
{
    wk_query *q = kinds_of(s);
    if (!q)
        return WK_NOMEM;
    *moves = false;
    wk_iter it = wk_query_iter(q);
    while (!*moves && wk_iter_next(&it)) {
        const uint8_t *kind = wk_iter_column(&it, 0);
        for (size_t i = 0; !*moves && i < it.count; i++)
            *moves = kind[i] == WK_NODE_LINK && !wk__in_static_model(s, it.entities[i]);
    }
    wk_iter_fini(&it);
    wk_query_free(q);
    return WK_OK;
}

int wk_sim_physics_room(wk_scene *s, wk_physics_engine engine, size_t max, wk_status *st)
{
    max = max ? max : WK_MAX_PHYSICS_LINKS;
    /* Links are entities: a world of no more entities than that has room,
     * known without counting them. AUTO steps a world with MuJoCo once a
     * link of it would move, which is looked for only past the limit. */
    if (engine == WK_PHYSICS_NONE || wk_ecm_count(wk_scene_ecm(s)) <= max)
        return WK_OK;
    size_t links = link_count(s);
    bool compiled = engine == WK_PHYSICS_MUJOCO;
    if (links == SIZE_MAX || (links > max && !compiled && a_link_moves(s, &compiled)))
        return wk_fail(st, WK_NOMEM, "out of memory counting links");
    if (links <= max || !compiled)
        return WK_OK;
    char why[128];
    return wk_fail(st, past_the_limit(links, max, why, sizeof why), "physics (MuJoCo): %s", why);
}

/* The links of the world and the joints between them, as bodies; WK_LIMIT,
 * with why in error, when there are more than max links: they are counted
 * before anything else is done, as writing the model and MuJoCo's compile
 * grow faster than their count. */
static int gather(wk__physics *p, wk_scene *s, bool mjcf, size_t max, char *error, size_t cap)
{
    wk_ecm *ecm = wk_scene_ecm(s);
    const wk_scene_types *t = wk_scene_types_of(s);
    wk_entity_list links = {0}, joints = {0};
    int rc = find_kind(s, WK_NODE_LINK, &links);
    if (rc == WK_OK && links.count > max)
        rc = past_the_limit(links.count, max, error, cap);
    if (rc == WK_OK)
        rc = find_kind(s, WK_NODE_JOINT, &joints);
    body *bodies = rc == WK_OK ? calloc(links.count ? links.count : 1, sizeof *bodies) : NULL;
    if (rc == WK_OK && !bodies)
        rc = WK_NOMEM;
    for (size_t i = 0; rc == WK_OK && i < links.count; i++)
        bodies[i] = (body){.link = links.items[i], .parent = -1, .qpos = -1, .dof = -1,
                           .moves = !wk__in_static_model(s, links.items[i])};
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
wk_entity wk__carrier_of(const wk__physics *p, wk_scene *s, size_t i)
{
    const body *b = &p->bodies[i];
    wk_ecm *ecm = wk_scene_ecm(s);
    wk_entity model = wk_ecm_parent(ecm, b->link);
    if (!b->free || wk__kind_of(s, model) != WK_NODE_MODEL || wk__kind_of(s, wk_ecm_parent(ecm, model)) != WK_NODE_WORLD)
        return WK_NULL_ENTITY;
    /* Only the model's one root body carries it (MJCF puts a whole world's
     * bodies, free and welded, in one model): a model of one link is the
     * common case, and needs no look at the others. */
    size_t links = 0;
    for (wk_entity c = wk_ecm_first_child(ecm, model); c; c = wk_ecm_next_sibling(ecm, c))
        links += wk__kind_of(s, c) == WK_NODE_LINK;
    for (size_t k = 0; links > 1 && k < p->count; k++)
        if (k != i && p->bodies[k].parent < 0 && wk_ecm_parent(ecm, p->bodies[k].link) == model)
            return WK_NULL_ENTITY;
    return model;
}

/* The index in old of the body of link, or -1: looked for from *from on,
 * where the last one was found, as gather lists links in the same order
 * each time. */
static long was_at(const wk__physics *old, wk_entity link, size_t *from)
{
    for (size_t n = 0; n < old->count; n++) {
        size_t k = (*from + n) % old->count;
        if (old->bodies[k].link == link) {
            *from = k + 1;
            return (long)k;
        }
    }
    return -1;
}

/* The velocity body b had in the model replaced, when it was there, and
 * the solver's warm start, so that its next steps are those it would have
 * had. */
static void carry_over(wk__physics *p, body *b, const wk__physics *old, size_t *from)
{
    long k = old->d ? was_at(old, b->link, from) : -1;
    if (k < 0)
        return;
    const body *was = &old->bodies[k];
    b->twist = was->twist;
    size_t n = (size_t)p->m->body_dofnum[b->id];
    if (b->dof < 0 || was->dof < 0 || (size_t)old->m->body_dofnum[was->id] != n)
        return;
    memcpy(&p->d->qvel[b->dof], &old->d->qvel[was->dof], n * sizeof(mjtNum));
    memcpy(&p->d->qacc_warmstart[b->dof], &old->d->qacc_warmstart[was->dof], n * sizeof(mjtNum));
}

/* Compiles the world as it is now, with the pool's spare bodies; the
 * velocities of the bodies of the model it replaces carry over. */
static int build(wk__physics *p, wk_sim *sim, double dt, wk_status *st)
{
    wk__physics old = *p;
    p->bodies = NULL;
    p->spares = NULL;
    p->m = NULL;
    p->d = NULL;
    wk_scene *s = sim->scene;
    const wk_world_settings *w = wk_ecm_get(wk_scene_ecm(s), sim->world, wk_scene_types_of(s)->world_settings);
    wk_buf xml = {0};
    char error[1024] = "";
    int rc = gather(p, s, wk_desc_format(sim->desc) == WK_FORMAT_MJCF, sim->max_physics_links, error, sizeof error);
    if (rc == WK_OK)
        rc = wk__mjcf_write(p, s, dt, w ? w->gravity : (wk_vec3){0, 0, -9.8}, wk__pool_size(p, sim), &xml);
    if (rc == WK_OK)
        p->m = wk__mjcf_compile(&xml, error, sizeof error);
    wk_buf_free(&xml);
    p->d = p->m ? mj_makeData(p->m) : NULL;
    p->of_id = p->d ? malloc((size_t)p->m->nbody * sizeof *p->of_id) : NULL;
    if (!p->of_id || !wk__pool_found(p)) {
        drop_model(p);
        free(p->bodies);
        free(p->of_id);
        free(p->spares);
        *p = old;
        return wk_fail(st, rc ? rc : WK_INVALID, "physics: the world does not compile for MuJoCo: %s",
                       error[0] ? error : "out of memory");
    }
    size_t from = 0;
    for (size_t i = 0; i < p->count; i++) {
        body *b = &p->bodies[i];
        int jnt = p->m->body_jntnum[b->id] ? p->m->body_jntadr[b->id] : -1;
        b->qpos = jnt >= 0 ? p->m->jnt_qposadr[jnt] : -1;
        b->free = jnt >= 0 && p->m->jnt_type[jnt] == mjJNT_FREE;
        b->dof = jnt >= 0 ? p->m->jnt_dofadr[jnt] : -1;
        p->of_id[b->id] = i;
        b->written = wk_scene_world_pose(s, b->link);
        b->carries = wk__carrier_of(p, s, i);
        carry_over(p, b, &old, &from);
    }
    mj_forward(p->m, p->d);
    mj_deleteData(old.d);
    mj_deleteModel(old.m);
    free(old.bodies);
    free(old.of_id);
    free(old.spares);
    return WK_OK;
}

/* Whether the world's links are those the model was built from. */
static bool same_links(const wk__physics *p, wk_scene *s)
{
    bool same = link_count(s) == p->count;
    for (size_t i = 0; same && i < p->count; i++)
        same = wk_ecm_exists(wk_scene_ecm(s), p->bodies[i].link);
    return same;
}

/* Whether two poses differ, past rounding: the entities' world pose of a
 * body is composed from the ParentPoses written from the engine's, and
 * rounds to a few units in the last place of its coordinates. */
static bool moved(wk_pose a, wk_pose b)
{
    return fabs(a.p.x - b.p.x) + fabs(a.p.y - b.p.y) + fabs(a.p.z - b.p.z) + fabs(a.q.w - b.q.w) +
               fabs(a.q.x - b.q.x) + fabs(a.q.y - b.q.y) + fabs(a.q.z - b.q.z) >
           1e-12 * (1 + fabs(a.p.x) + fabs(a.p.y) + fabs(a.p.z));
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
        b->up = wk_ecm_parent(wk_scene_ecm(s), b->link);
        if ((b->object_joint = on_object_joint(p, s, b)))
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

int wk__physics_step(wk__physics *p, wk_sim *sim, double dt, wk_status *st)
{
    wk_scene *s = sim->scene;
    /* Nothing changed in the entities since the last step wrote them but
     * the end of that step (one change of the ECM's counter; a removal
     * there is one more): the engine holds the world as it is, with
     * nothing to take. */
    wk_ecm *ecm = wk_scene_ecm(s);
    bool quiet = p->m && wk_ecm_version(ecm) == p->wrote + 1;
    bool changed = !quiet && p->m && !same_links(p, s);
    if (!quiet && (!p->m || welded_moved(p, s) || (changed && !wk__pool_take(p, sim)))) {
        p->pooled |= changed;
        int rc = build(p, sim, dt, st);
        if (rc)
            return rc;
    }
    /* mj_step in its two halves, the first run after the second: so the
     * bodies' poses and velocities are those of the positions just
     * integrated, which is what gets written, at no extra cost; the first
     * half runs again only when a client changed a state. */
    if (!quiet && take_changes(p, sim))
        mj_step1(p->m, p->d);
    if (!quiet) {
        wk__physics_note_twists(p);
        p->frame.known = false;
    }
    mj_step2(p->m, p->d);
    wk__pool_hold(p);
    mj_step1(p->m, p->d);
    if (wk__physics_give(p, sim))
        return wk_fail(st, WK_NOMEM, "physics: out of memory writing poses");
    p->wrote = wk_ecm_version(ecm);
    return WK_OK;
}
