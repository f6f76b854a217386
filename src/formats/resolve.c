/* resolve.c — world poses for every node of a description.
 *
 * SDFormat poses are resolved scope by scope. A scope is a model (or the
 * world); every frame inside it (links, joints, frames, nested models, and
 * the visuals, collisions and sensors of its links) gets its pose relative
 * to the scope's own frame, following the defaults of the specification: a
 * link is relative to its model, a joint to its child link, a frame to the
 * frame it is attached to, a visual to its link, a nested model to its
 * parent model, and an explicit relative_to names any frame of the same
 * scope (or of a nested one, as `a::b`). A model with a placement_frame is
 * placed so that that frame lands where the model's pose says. World poses
 * then follow by composing each scope's pose onto its own scope's.
 *
 * URDF and MJCF readers name the frame of each pose by node instead
 * (relative_node); those poses compose directly onto that node's. */
#include "formats/desc_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NEW, BUSY, DONE };

typedef struct resolver {
    wk_world_desc *d;
    wk_pose *rel; /* relative to the scope's frame, or to relative_node */
    uint8_t *state;
    wk_status *st;
} resolver;

static bool is_scope(const wk_node *n)
{
    return n->kind == WK_NODE_MODEL || n->kind == WK_NODE_WORLD;
}

static uint32_t scope_of(const wk_world_desc *d, uint32_t i)
{
    uint32_t s = d->nodes[i].parent;
    while (s != WK_NO_NODE && !is_scope(&d->nodes[s]))
        s = d->nodes[s].parent;
    return s == WK_NO_NODE ? 0 : s;
}

static int fail_at(resolver *r, uint32_t i, const char *fmt, const char *what)
{
    return wk__desc_fail(r->d, i, r->st, fmt, what);
}

static int rel_pose(resolver *r, uint32_t i, wk_pose *out);

/* What relative_to and attached_to may name. */
static bool is_frame(wk_node_kind kind)
{
    return kind == WK_NODE_LINK || kind == WK_NODE_JOINT || kind == WK_NODE_FRAME || kind == WK_NODE_MODEL;
}

/* The pose of the frame called name relative to scope s's frame. who is the
 * node asking, for the error message. */
static int frame_in_scope(resolver *r, uint32_t s, const char *name, uint32_t who, wk_pose *out)
{
    const wk_world_desc *d = r->d;
    bool world_scope = d->nodes[s].kind == WK_NODE_WORLD;
    if ((!world_scope && strcmp(name, "__model__") == 0) || (world_scope && strcmp(name, "world") == 0)) {
        *out = wk_pose_identity();
        return WK_OK;
    }
    const char *sep = strstr(name, "::");
    uint32_t c = wk__desc_child(d, s, name, sep ? (size_t)(sep - name) : strlen(name), is_frame);
    if (c == WK_NO_NODE || (sep && d->nodes[c].kind != WK_NODE_MODEL))
        return fail_at(r, who, "no frame named '%s' in its scope", name);
    wk_pose scope_T_c;
    int rc = rel_pose(r, c, &scope_T_c);
    if (rc || !sep) {
        *out = scope_T_c;
        return rc;
    }
    wk_pose c_T_frame;
    rc = frame_in_scope(r, c, sep + 2, who, &c_T_frame);
    *out = wk_pose_compose(scope_T_c, c_T_frame);
    return rc;
}

/* The frame a node's pose is expressed in, relative to its scope, when no
 * relative_to is given. */
static int default_base(resolver *r, uint32_t i, uint32_t s, wk_pose *base)
{
    const wk_node *n = &r->d->nodes[i];
    *base = wk_pose_identity();
    switch (n->kind) {
    case WK_NODE_JOINT:
        if (!n->joint.child)
            return fail_at(r, i, "%s", "has no child");
        return frame_in_scope(r, s, n->joint.child, i, base);
    case WK_NODE_FRAME:
        return n->frame.attached_to && n->frame.attached_to[0] ? frame_in_scope(r, s, n->frame.attached_to, i, base)
                                                                : WK_OK;
    case WK_NODE_VISUAL:
    case WK_NODE_COLLISION:
    case WK_NODE_SENSOR:
    case WK_NODE_LIGHT: {
        uint32_t p = n->parent;
        return is_scope(&r->d->nodes[p]) ? WK_OK : rel_pose(r, p, base);
    }
    default:
        return WK_OK;
    }
}

static int rel_pose(resolver *r, uint32_t i, wk_pose *out)
{
    if (r->state[i] == DONE) {
        *out = r->rel[i];
        return WK_OK;
    }
    if (r->state[i] == BUSY)
        return fail_at(r, i, "%s", "its pose depends on itself (a cycle of relative_to / attached_to)");
    r->state[i] = BUSY;
    const wk_node *n = &r->d->nodes[i];
    uint32_t s = scope_of(r->d, i);
    wk_pose base;
    int rc = n->relative_to && n->relative_to[0] ? frame_in_scope(r, s, n->relative_to, i, &base)
                                                 : default_base(r, i, s, &base);
    if (rc)
        return rc;
    wk_pose pose = wk_pose_compose(base, n->pose);
    if (n->kind == WK_NODE_MODEL && n->model.placement_frame && n->model.placement_frame[0]) {
        /* The pose places the placement frame: model = placed * inv(model_T_frame). */
        wk_pose model_T_frame;
        if ((rc = frame_in_scope(r, i, n->model.placement_frame, i, &model_T_frame)))
            return rc;
        pose = wk_pose_compose(pose, wk_pose_inverse(model_T_frame));
    }
    r->rel[i] = *out = pose;
    r->state[i] = DONE;
    return WK_OK;
}

/* World pose of a node whose frame is given by node (URDF, MJCF). */
static int world_by_node(resolver *r, uint32_t i)
{
    if (r->state[i] == DONE)
        return WK_OK;
    if (r->state[i] == BUSY)
        return fail_at(r, i, "%s", "its pose depends on itself");
    r->state[i] = BUSY;
    wk_node *n = &r->d->nodes[i];
    wk_pose base = wk_pose_identity();
    if (n->relative_node != WK_NO_NODE) {
        int rc = world_by_node(r, n->relative_node);
        if (rc)
            return rc;
        base = r->d->nodes[n->relative_node].world;
    }
    n->world = wk_pose_compose(base, n->pose);
    r->state[i] = DONE;
    return WK_OK;
}

/* Refuses a pose as written that wk_pose_is_valid would refuse (a
 * translation beyond WK_POSE_TRANSLATION_MAX above all, as the readers take
 * any finite number), naming the node that carries it. */
static int check_written_poses(resolver *r)
{
    for (uint32_t i = 0; i < r->d->count; i++) {
        const wk_node *n = &r->d->nodes[i];
        char why[128];
        if (wk_pose_problem(n->pose, why, sizeof why))
            return fail_at(r, i, "pose: %s", why);
        if (n->kind == WK_NODE_LINK && n->link.inertial.present &&
            wk_pose_problem(n->link.inertial.pose, why, sizeof why))
            return fail_at(r, i, "inertial pose: %s", why);
    }
    return WK_OK;
}

int wk__desc_resolve(wk_world_desc *d, wk_status *st)
{
    resolver r = {.d = d, .rel = calloc(d->count ? d->count : 1, sizeof *r.rel), .state = calloc(d->count ? d->count : 1, 1), .st = st};
    int rc = r.rel && r.state ? WK_OK : wk_fail(st, WK_NOMEM, "out of memory resolving poses");
    if (rc == WK_OK)
        rc = check_written_poses(&r);
    if (rc == WK_OK && d->format != WK_FORMAT_SDF) {
        for (uint32_t i = 0; rc == WK_OK && i < d->count; i++)
            rc = world_by_node(&r, i);
    } else if (rc == WK_OK) {
        /* Parents precede children, so every scope's world pose is known
         * before the nodes inside it need it. */
        d->nodes[0].world = wk_pose_identity();
        for (uint32_t i = 1; rc == WK_OK && i < d->count; i++) {
            wk_pose rel;
            if ((rc = rel_pose(&r, i, &rel)) == WK_OK)
                d->nodes[i].world = wk_pose_compose(d->nodes[scope_of(d, i)].world, rel);
        }
    }
    free(r.rel);
    free(r.state);
    return rc;
}
