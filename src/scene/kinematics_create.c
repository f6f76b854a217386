/* kinematics_create.c — where kinematic objects come from: built from a list
 * of joints (wk_scene_create_kinematic_object), or made from the joints of
 * a model loaded from a world file.
 *
 * Either way a joint entity hangs below the link (or base entity) it is
 * mounted on, and the link it moves hangs below the joint, so a joint's
 * ParentPose, parent_t_inboard composed with its motion, carries the link
 * and everything attached to it. A world file poses every link in the
 * model's frame instead; a loaded joint is therefore moved below its parent
 * link and its child link below it, each re-expressed relative to its new
 * parent so that every world pose at position 0 stays what the file says. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/kinematics_internal.h"

/* A joint of a desc, checked and completed. */
typedef struct prepared {
    wk_kinematics kin;
    wk_joint_limit limit;
    wk_pose link_pose;
} prepared;

static bool name_taken(const wk_kinematic_object_desc *d, size_t i, const char *name, const char *base)
{
    if (strcmp(name, base) == 0)
        return true;
    for (size_t k = 0; k < i; k++)
        if (strcmp(d->joints[k].name, name) == 0 || strcmp(d->joints[k].link, name) == 0)
            return true;
    return false;
}

/* The unit axis of a joint, +z when none is given; false when it cannot
 * be made unit. */
static bool unit_axis(wk_vec3 axis, wk_vec3 *out)
{
    if (axis.x == 0 && axis.y == 0 && axis.z == 0) {
        *out = (wk_vec3){0, 0, 1};
        return true;
    }
    double n = wk_vec3_norm(axis);
    if (!isfinite(n) || n == 0)
        return false;
    *out = wk_vec3_scale(axis, 1 / n);
    return true;
}

static int prepare_joint(const wk_kinematic_object_desc *d, size_t i, const char *base, prepared *out, wk_status *st)
{
    const wk_joint_desc *j = &d->joints[i];
    const char *o = d->name ? d->name : "";
    if (!wk_scene_name_valid(j->name) || !wk_scene_name_valid(j->link))
        return wk_fail(st, WK_INVALID, "joint %zu of new object '%s': joint name '%s' or link name '%s' is invalid", i,
                       o, j->name ? j->name : "", j->link ? j->link : "");
    if (name_taken(d, i, j->name, base) || name_taken(d, i, j->link, base) || strcmp(j->name, j->link) == 0)
        return wk_fail(st, WK_INVALID, "joint '%s' of new object '%s': its name or its link's ('%s') is taken", j->name,
                       o, j->link);
    if (j->parent < -1 || j->parent >= (int)i)
        return wk_fail(st, WK_INVALID, "joint '%s' of new object '%s': parent %d is not an earlier joint", j->name, o,
                       j->parent);
    if (!wk__joint_moves(j->motion) && j->motion != WK_JOINT_MOTION_FIXED)
        return wk_fail(st, WK_INVALID, "joint '%s' of new object '%s': motion %d is not revolute, prismatic or fixed",
                       j->name, o, (int)j->motion);
    out->kin = (wk_kinematics){.parent_t_inboard = wk__desc_pose(j->parent_t_inboard), .motion = j->motion};
    out->link_pose = wk__desc_pose(j->inboard_t_link);
    if (!unit_axis(j->axis, &out->kin.axis))
        return wk_fail(st, WK_INVALID, "joint '%s' of new object '%s': its axis is zero or not finite", j->name, o);
    char why[128];
    if (wk_pose_problem(out->kin.parent_t_inboard, why, sizeof why))
        return wk_fail(st, WK_INVALID, "joint '%s' of new object '%s': parent_t_inboard: %s", j->name, o, why);
    if (wk_pose_problem(out->link_pose, why, sizeof why))
        return wk_fail(st, WK_INVALID, "joint '%s' of new object '%s': inboard_t_link: %s", j->name, o, why);
    out->limit = wk__limit_from_desc(j->limits);
    int rc = wk__limits_check(&out->limit, &out->limit, o, j->name, st);
    if (rc)
        return rc;
    /* Position 0, or the limit nearest to it. */
    out->kin.position = fmin(fmax(0.0, out->limit.min_position), out->limit.max_position);
    return WK_OK;
}

/* A named entity of kind below parent, carrying Kinematics when kin is not
 * NULL; WK_NULL_ENTITY when out of memory. */
static wk_entity add_entity(wk_scene *s, wk_entity parent, const char *name, wk_node_kind kind, wk_pose pose,
                            const wk_kinematics *kin)
{
    const wk_scene_types *t = &s->types;
    uint8_t k = (uint8_t)kind;
    wk_entity e = wk_ecm_create_with(s->ecm, (wk_type[]){t->name, t->kind, t->parent_pose, t->kinematics},
                                     (const void *[]){&name, &k, &pose, kin}, kin ? 4 : 3);
    if (e && wk_ecm_set_parent(s->ecm, e, parent)) {
        wk_ecm_destroy(s->ecm, e, false);
        e = WK_NULL_ENTITY;
    }
    return e;
}

/* Makes object KINEMATIC with the degrees of freedom listed. */
static int make_kinematic(wk_scene *s, wk_entity object, const wk_kinematic_object *k, wk_status *st)
{
    wk_object_info info = *wk_scene_object_info(s, object);
    info.type = WK_OBJECT_KINEMATIC;
    if (wk_ecm_set(s->ecm, object, s->types.object, &info) < 0)
        return wk_fail(st, WK_NOMEM, "out of memory making '%s' kinematic", info.name);
    return wk__kinematic_object_store(s, object, k, st);
}

/* Builds the joints and links of desc below base, listing the degrees of
 * freedom in k (whose arrays have room for all joints). */
static int build(wk_scene *s, const wk_kinematic_object_desc *d, wk_entity base, const prepared *p, wk_entity *links,
                 wk_kinematic_object *k, wk_status *st)
{
    for (size_t i = 0; i < d->joint_count; i++) {
        const wk_joint_desc *j = &d->joints[i];
        wk_entity parent = j->parent < 0 ? base : links[j->parent];
        wk_entity joint = add_entity(s, parent, j->name, WK_NODE_JOINT, wk__joint_pose(&p[i].kin), &p[i].kin);
        links[i] = joint ? add_entity(s, joint, j->link, WK_NODE_LINK, p[i].link_pose, NULL) : WK_NULL_ENTITY;
        if (!links[i])
            return wk_fail(st, WK_NOMEM, "creating joint '%s' of '%s': %s", j->name, d->name, wk_ecm_errmsg(s->ecm));
        if (!wk__joint_moves(p[i].kin.motion))
            continue;
        k->joints[k->joint_count] = joint;
        k->system_limits[k->joint_count] = p[i].limit;
        k->application_limits[k->joint_count++] = p[i].limit;
    }
    return make_kinematic(s, base, k, st);
}

int wk_scene_create_kinematic_object(wk_scene *s, const wk_kinematic_object_desc *desc, wk_entity *out,
                                     wk_status *st)
{
    const char *base_name = desc->entity_name ? desc->entity_name : desc->name ? desc->name : "";
    size_t n = desc->joint_count;
    if (n && !desc->joints)
        return wk_fail(st, WK_INVALID, "new object '%s' lists %zu joints but gives none", base_name, n);
    if (n > INT32_MAX)
        return wk_fail(st, WK_INVALID, "%zu joints are too many", n);
    prepared *p = malloc((n ? n : 1) * sizeof *p);
    wk_entity *links = malloc((n ? n : 1) * sizeof *links);
    wk_kinematic_object k = {0};
    k.joints = malloc((n ? n : 1) * sizeof *k.joints);
    k.system_limits = malloc((n ? n : 1) * sizeof *k.system_limits);
    k.application_limits = malloc((n ? n : 1) * sizeof *k.application_limits);
    int rc = p && links && k.joints && k.system_limits && k.application_limits
                 ? WK_OK
                 : wk_fail(st, WK_NOMEM, "out of memory creating object '%s'", base_name);
    for (size_t i = 0; rc == WK_OK && i < n; i++)
        rc = prepare_joint(desc, i, base_name, &p[i], st);
    wk_entity base = WK_NULL_ENTITY;
    if (rc == WK_OK)
        rc = wk_scene_create_object(s,
                                    &(wk_object_desc){.name = desc->name,
                                                      .parent = desc->parent,
                                                      .pose = desc->pose,
                                                      .name_is_global_alias = desc->name_is_global_alias,
                                                      .entity_name = desc->entity_name},
                                    &base, st);
    if (rc == WK_OK && (rc = build(s, desc, base, p, links, &k, st)))
        wk_scene_delete_object(s, base, true, NULL);
    if (rc == WK_OK)
        *out = base;
    free(p);
    free(links);
    wk__kinematic_object_fini(&k);
    return rc;
}

/* ---- from world files -------------------------------------------------- */

static uint8_t kind_of(const wk_scene *s, wk_entity e)
{
    const uint8_t *kind = wk_ecm_get(s->ecm, e, s->types.kind);
    return kind ? *kind : WK_NODE_KIND_COUNT;
}

static bool below(const wk_scene *s, wk_entity e, wk_entity ancestor)
{
    for (; e; e = wk_ecm_parent(s->ecm, e))
        if (e == ancestor)
            return true;
    return false;
}

/* Kinematics has one degree of freedom or none: revolute and continuous
 * joints turn, prismatic ones slide, and the others (fixed, and those with
 * several degrees of freedom or coupled ones, which it cannot express) are
 * held rigid where the file puts them. */
static uint32_t motion_of(wk_joint_type type)
{
    switch (type) {
    case WK_JOINT_REVOLUTE:
    case WK_JOINT_CONTINUOUS:
        return WK_JOINT_MOTION_REVOLUTE;
    case WK_JOINT_PRISMATIC:
        return WK_JOINT_MOTION_PRISMATIC;
    default:
        return WK_JOINT_MOTION_FIXED;
    }
}

wk_joint_limit wk__limit_from_file(const wk_scene_joint *j)
{
    wk_joint_limit l = {-INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, 0};
    if (j->type != WK_JOINT_CONTINUOUS && j->lower <= j->upper) {
        l.min_position = j->lower;
        l.max_position = j->upper;
    }
    if (j->velocity > 0)
        l.max_velocity = j->velocity;
    return l;
}

/* Moves joint below its parent link and its child link below it, keeping
 * world poses: 1 when done, 0 when the joint does not connect two links of
 * object (or the world and one) in a way the tree can hold, WK_NOMEM. */
static int mount(wk_scene *s, wk_entity object, wk_entity joint, wk_kinematics *kin)
{
    const wk_scene_joint *j = wk_ecm_get(s->ecm, joint, s->types.joint);
    const wk_scene_joint_links *links = wk_ecm_get(s->ecm, joint, s->types.joint_links);
    if (!j || !links)
        return 0;
    wk_entity parent = links->parent ? links->parent : object, child = links->child;
    if (!child || kind_of(s, child) != WK_NODE_LINK || wk_ecm_parent(s->ecm, child) != object ||
        wk_ecm_parent(s->ecm, joint) != object || !wk_ecm_exists(s->ecm, parent) ||
        wk_scene_object_of(s, parent) != object || below(s, parent, child))
        return 0;
    wk_pose world_parent = wk_scene_world_pose(s, parent), world_joint = wk_scene_world_pose(s, joint);
    wk_pose joint_T_child = wk_pose_compose(wk_pose_inverse(world_joint), wk_scene_world_pose(s, child));
    *kin = (wk_kinematics){.parent_t_inboard = wk_pose_compose(wk_pose_inverse(world_parent), world_joint),
                           .motion = motion_of(j->type)};
    if (!unit_axis(j->axis, &kin->axis))
        kin->axis = (wk_vec3){0, 0, 1};
    const wk_scene_types *t = &s->types;
    bool ok = wk_ecm_set_parent(s->ecm, joint, parent) == WK_OK &&
              wk_ecm_set(s->ecm, joint, t->parent_pose, &kin->parent_t_inboard) >= 0 &&
              wk_ecm_set(s->ecm, joint, t->kinematics, kin) >= 0 && wk_ecm_set_parent(s->ecm, child, joint) == WK_OK &&
              wk_ecm_set(s->ecm, child, t->parent_pose, &joint_T_child) >= 0;
    return ok ? 1 : WK_NOMEM;
}

static int collect_joint(const wk_scene *s, wk_entity e, bool inside, void *ctx)
{
    return inside && wk_ecm_has(s->ecm, e, s->types.joint) ? wk_entity_list_push(ctx, e) : WK_OK;
}

/* A joint of a loaded model on its way to being mounted. */
typedef struct mounting {
    wk_entity parent, child; /* its links (parent: the object for the world) */
    uint32_t depth;          /* its child's in the tree of joints, 1 below a root link; 0: not mounted */
    int mounted;             /* mount's answer */
    wk_kinematics kin;
} mounting;

/* A link and the first joint, in the file's order, that moves it. */
typedef struct moved_by {
    wk_entity link;
    uint32_t joint;
} moved_by;

static int by_link(const void *a, const void *b)
{
    const moved_by *x = a, *y = b;
    return x->link != y->link ? (x->link < y->link ? -1 : 1) : (x->joint > y->joint) - (x->joint < y->joint);
}

/* The joint that moves link (the first in the file's order), or UINT32_MAX. */
static uint32_t joint_moving(const moved_by *list, size_t n, wk_entity link)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (list[mid].link < link)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && list[lo].link == link ? list[lo].joint : UINT32_MAX;
}

/* Each joint's depth in the tree the joints make: 1 when its parent link
 * is moved by no joint, else one more than the joint moving that link's.
 * 0, not to be mounted: a second joint moving a link already moved, and
 * the joints of a loop (which the readers refuse).
 * Each chain is walked once, its depths written on the way back down. */
static int joint_depths(mounting *m, size_t n)
{
    enum { UNKNOWN = 0, NOT_MOUNTED = UINT32_MAX - 1, ON_PATH = UINT32_MAX };
    moved_by *list = malloc((n ? n : 1) * sizeof *list);
    uint32_t *path = malloc((n ? n : 1) * sizeof *path);
    if (!list || !path) {
        free(list);
        free(path);
        return WK_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        list[i] = (moved_by){m[i].child, (uint32_t)i};
    qsort(list, n, sizeof *list, by_link);
    for (size_t i = 0; i < n; i++)
        m[i].depth = m[i].child && joint_moving(list, n, m[i].child) == i ? UNKNOWN : NOT_MOUNTED;
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        uint32_t x = (uint32_t)i;
        while (x != UINT32_MAX && m[x].depth == UNKNOWN) {
            m[x].depth = ON_PATH;
            path[len++] = x;
            x = joint_moving(list, n, m[x].parent);
        }
        bool loop = x != UINT32_MAX && m[x].depth == ON_PATH;
        uint32_t above = x == UINT32_MAX || m[x].depth == NOT_MOUNTED ? 0 : m[x].depth;
        while (len--)
            m[path[len]].depth = loop ? NOT_MOUNTED : ++above;
    }
    for (size_t i = 0; i < n; i++)
        if (m[i].depth == NOT_MOUNTED)
            m[i].depth = 0;
    free(list);
    free(path);
    return WK_OK;
}

static int deepest_first(const void *a, const void *b)
{
    const mounting *x = *(mounting *const *)a, *y = *(mounting *const *)b;
    return (x->depth < y->depth) - (x->depth > y->depth);
}

/* Mounts the joints deepest first: a joint's parent link then still hangs
 * below the object, so neither the checks of mount nor the ECM's walk up
 * from the new parent go further than a step, and the link moved carries
 * a subtree whose poses are not cached yet (a chain of 50,000 joints
 * mounted in the file's order took minutes). */
static int mount_all(wk_scene *s, wk_entity object, const wk_entity_list *joints, mounting *m)
{
    for (size_t i = 0; i < joints->count; i++) {
        const wk_scene_joint_links *links = wk_ecm_get(s->ecm, joints->items[i], s->types.joint_links);
        m[i] = (mounting){.parent = links && links->parent ? links->parent : object, .child = links ? links->child : 0};
    }
    mounting **order = malloc((joints->count ? joints->count : 1) * sizeof *order);
    int rc = order ? joint_depths(m, joints->count) : WK_NOMEM;
    for (size_t i = 0; rc == WK_OK && i < joints->count; i++)
        order[i] = &m[i];
    if (rc == WK_OK)
        qsort(order, joints->count, sizeof *order, deepest_first);
    for (size_t i = 0; rc == WK_OK && i < joints->count && order[i]->depth; i++) {
        mounting *x = order[i];
        x->mounted = mount(s, object, joints->items[x - m], &x->kin);
        rc = x->mounted < 0 ? x->mounted : WK_OK;
    }
    free(order);
    return rc;
}

int wk__kinematics_from_joints(wk_scene *s, wk_entity object)
{
    wk_entity_list joints = {0};
    wk_kinematic_object k = {0};
    int rc = wk__walk_object(s, object, collect_joint, &joints);
    size_t n = joints.count ? joints.count : 1;
    mounting *m = NULL;
    if (rc == WK_OK && (!(m = calloc(n, sizeof *m)) || !(k.joints = malloc(n * sizeof *k.joints)) ||
                        !(k.system_limits = malloc(n * sizeof *k.system_limits)) ||
                        !(k.application_limits = malloc(n * sizeof *k.application_limits))))
        rc = WK_NOMEM;
    if (rc == WK_OK)
        rc = mount_all(s, object, &joints, m);
    /* The degrees of freedom in the file's order. */
    for (size_t i = 0; rc == WK_OK && i < joints.count; i++) {
        wk_entity joint = joints.items[i];
        /* A joint that mimics another follows it: no degree of freedom. */
        if (m[i].mounted <= 0 || !wk__joint_moves(m[i].kin.motion) || wk_ecm_has(s->ecm, joint, s->types.mimic))
            continue;
        wk_joint_limit l = wk__limit_from_file(wk_ecm_get(s->ecm, joint, s->types.joint));
        k.joints[k.joint_count] = joint;
        k.system_limits[k.joint_count] = l;
        k.application_limits[k.joint_count++] = l;
    }
    free(m);
    if (rc == WK_OK && wk__kinematic_object_store(s, object, &k, NULL))
        rc = WK_NOMEM;
    wk_entity_list_free(&joints);
    wk__kinematic_object_fini(&k);
    return rc;
}
