/* instantiate.c — wk_desc_instantiate: turns a subtree of a world
 * description into scene entities. Each node's entity is created in one call with all its
 * components; its ParentPose is derived from the resolved world poses, so
 * the scene reproduces the description's poses exactly, and a subtree placed
 * elsewhere (a spawned model) moves rigidly. A <frame> hangs below the link
 * or model its attached_to chain ends at, so that it follows that link when
 * a joint moves it, or the model when the model is moved. The description's
 * deadline check (wk_desc_set_over) is asked at every entity. */
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "formats/desc_internal.h"

/* A node of the subtree and the entity made for it. */
typedef struct made {
    uint32_t node;
    wk_entity entity;
} made;

typedef struct builder {
    wk_scene *s;
    const wk_world_desc *d;
    made *made; /* in visiting order, then sorted by node for lookups */
    size_t made_count, made_cap;
    wk_pose placement;    /* world_T_root as placed, times inverse of the described one */
    wk_status *st;
} builder;

/* What a joint may name as its parent or child. */
static bool joinable(wk_node_kind kind)
{
    return kind == WK_NODE_LINK || kind == WK_NODE_FRAME;
}

static bool is_joint(wk_node_kind kind)
{
    return kind == WK_NODE_JOINT;
}

/* What a frame may be attached to. */
static bool attachable(wk_node_kind kind)
{
    return joinable(kind) || kind == WK_NODE_JOINT || kind == WK_NODE_MODEL;
}

static bool any_kind(wk_node_kind kind)
{
    (void)kind;
    return true;
}

static uint32_t link_named(const wk_world_desc *d, uint32_t scope, const char *name)
{
    return wk__desc_find(d, scope, name, joinable);
}

/* What attachment_of has learnt: per node, the link or model its chain
 * ends at (node + 1; 0 while unknown), and room for one chain's nodes, so
 * that a chain of N frames each attached to the one before is walked once,
 * not once per frame (4,000 frames took over a minute). */
typedef struct attachments {
    uint32_t *end;
    uint32_t *path;
} attachments;

/* The link or model a frame is attached to in the end, as SDFormat's frame
 * graph has it: a frame through what it is attached to, a joint through its
 * child; the frame's scope (its model, or the world) when the chain ends at
 * the scope's own frame or names nothing (the resolver has refused cycles
 * and unknown names already). */
static uint32_t attachment_of(const wk_world_desc *d, attachments *a, uint32_t frame)
{
    uint32_t at = frame, end = WK_NO_NODE;
    size_t hops = 0;
    for (; hops < wk_desc_node_count(d) && end == WK_NO_NODE; hops++) {
        const wk_node *n = wk_desc_node(d, at);
        uint32_t next = WK_NO_NODE;
        if (a->end[at]) {
            end = a->end[at] - 1;
        } else if (n->kind == WK_NODE_LINK || n->kind == WK_NODE_MODEL) {
            end = at;
        } else {
            const char *name = n->kind == WK_NODE_FRAME ? n->frame.attached_to : n->joint.child;
            if (!name || !*name || !strcmp(name, "__model__") ||
                (next = wk__desc_find(d, n->parent, name, attachable)) == WK_NO_NODE)
                end = n->parent;
        }
        a->path[hops] = at;
        at = next;
    }
    if (end == WK_NO_NODE)
        return wk_desc_node(d, frame)->parent;
    while (hops-- > 0)
        a->end[a->path[hops]] = end + 1;
    return end;
}

static int by_node(const void *a, const void *b)
{
    uint32_t x = ((const made *)a)->node, y = ((const made *)b)->node;
    return (x > y) - (x < y);
}

/* The entity made for node, or WK_NULL_ENTITY (made must be sorted). */
static wk_entity entity_of(const builder *b, uint32_t node)
{
    made key = {node, 0};
    const made *hit = bsearch(&key, b->made, b->made_count, sizeof key, by_node);
    return hit ? hit->entity : WK_NULL_ENTITY;
}

static wk_entity entity_named(const builder *b, uint32_t joint, const char *name)
{
    if (!name || !strcmp(name, "world"))
        return WK_NULL_ENTITY;
    uint32_t n = link_named(b->d, wk_desc_node(b->d, joint)->parent, name);
    return n == WK_NO_NODE ? WK_NULL_ENTITY : entity_of(b, n);
}

/* Components a node's kind calls for, beyond Name, Kind and ParentPose. */
typedef struct extras {
    wk_type types[5];
    const void *values[5];
    size_t n;
    wk_scene_joint joint;
    wk_scene_geometry geometry;
    wk_scene_surface surface;
    wk_scene_material material;
    wk_scene_region region;
    wk_physics physics;
    wk_world_settings world;
    const char *uri, *path, *performer_of;
} extras;

static void add_extra(extras *x, wk_type type, const void *value)
{
    x->types[x->n] = type;
    x->values[x->n++] = value;
}

static void collect_extras(const builder *b, const wk_node *n, extras *x)
{
    const wk_scene_types *t = wk_scene_types_of(b->s);
    x->n = 0;
    switch (n->kind) {
    case WK_NODE_WORLD:
        x->world = (wk_world_settings){n->settings.max_step_size, n->settings.real_time_factor, n->settings.gravity};
        add_extra(x, t->world_settings, &x->world);
        break;
    case WK_NODE_MODEL:
        if (n->model.is_static)
            add_extra(x, t->is_static, NULL);
        break;
    case WK_NODE_LINK:
        if (n->link.inertial.present) {
            const wk_inertial *in = &n->link.inertial;
            x->physics = (wk_physics){.mass_kg = in->mass,
                                      .this_T_com = in->pose,
                                      .inertia = {{in->ixx, in->ixy, in->ixz},
                                                  {in->ixy, in->iyy, in->iyz},
                                                  {in->ixz, in->iyz, in->izz}}};
            add_extra(x, t->physics, &x->physics);
        }
        break;
    case WK_NODE_JOINT: {
        const wk_joint_axis *a = &n->joint.axis[0];
        x->joint = (wk_scene_joint){.type = n->joint.type,
                                    .axis = a->present ? a->xyz : (wk_vec3){0, 0, 1},
                                    .lower = a->present ? a->lower : -1.0 / 0.0,
                                    .upper = a->present ? a->upper : 1.0 / 0.0,
                                    .effort = a->present ? a->effort : 1.0 / 0.0,
                                    .velocity = a->present ? a->velocity : 1.0 / 0.0,
                                    .damping = a->present ? a->damping : 0,
                                    .friction = a->present ? a->friction : 0,
                                    .stiffness = a->present ? a->spring_stiffness : 0,
                                    .reference = a->present ? a->spring_reference : 0};
        add_extra(x, t->joint, &x->joint);
        break;
    }
    case WK_NODE_VISUAL:
    case WK_NODE_COLLISION: {
        const wk_geometry *g = &n->shape.geometry;
        /* Field by field into zeroed storage: a compound literal's padding
         * is left unspecified, and values are compared bytewise (a world
         * rebuilt from a snapshot compared unequal to the file's). */
        memset(&x->geometry, 0, sizeof x->geometry);
        x->geometry.type = g->type;
        x->geometry.size = g->size;
        x->geometry.radius = g->radius;
        x->geometry.length = g->length;
        x->geometry.normal = g->normal;
        x->geometry.scale = g->scale;
        add_extra(x, t->geometry, &x->geometry);
        if (g->uri) {
            x->uri = g->uri;
            add_extra(x, t->uri, &x->uri);
        }
        if (g->path) {
            x->path = g->path;
            add_extra(x, t->mesh_file, &x->path);
        }
        if (n->shape.has_colour) {
            memcpy(x->material.rgba, n->shape.colour, sizeof x->material.rgba);
            add_extra(x, t->material, &x->material);
        }
        if (n->kind == WK_NODE_COLLISION && n->shape.has_friction) {
            memcpy(x->surface.friction, n->shape.friction, sizeof x->surface.friction);
            add_extra(x, t->surface, &x->surface);
        }
        break;
    }
    case WK_NODE_LEVEL:
    case WK_NODE_PERFORMER:
        x->region = (wk_scene_region){n->region.size, n->region.buffer, 1};
        add_extra(x, t->region, &x->region);
        if (n->kind == WK_NODE_PERFORMER && n->region.ref_count) {
            x->performer_of = n->region.refs[0];
            add_extra(x, t->performer_of, &x->performer_of);
        }
        break;
    default:
        break;
    }
}

/* Records that node i's entity is e. */
static int note_made(builder *b, uint32_t i, wk_entity e)
{
    if (WK__GROW(b->made, b->made_cap, b->made_count + 1))
        return WK_NOMEM;
    b->made[b->made_count++] = (made){i, e};
    return WK_OK;
}

static int add_node(builder *b, uint32_t i, wk_entity parent, const wk_pose *parent_T_root, const char *rename)
{
    if (b->d->over && b->d->over(b->d->over_ctx))
        return wk_fail(b->st, WK_DEADLINE, "gave up instantiating the world at the call's deadline, after %zu entities",
                       b->made_count);
    const wk_scene_types *t = wk_scene_types_of(b->s);
    wk_ecm *ecm = wk_scene_ecm(b->s);
    const wk_node *n = wk_desc_node(b->d, i);
    wk_pose world = wk_pose_compose(b->placement, n->world);
    wk_pose local = parent_T_root ? *parent_T_root
                                  : wk_pose_compose(wk_pose_inverse(wk_scene_world_pose(b->s, parent)), world);
    const char *name = rename ? rename : n->name;
    uint8_t kind = (uint8_t)n->kind;
    extras x;
    collect_extras(b, n, &x);
    wk_type types[8] = {t->name, t->kind, t->parent_pose};
    const void *values[8] = {&name, &kind, &local};
    for (size_t k = 0; k < x.n; k++) {
        types[3 + k] = x.types[k];
        values[3 + k] = x.values[k];
    }
    wk_entity e = wk_ecm_create_with(ecm, types, values, 3 + x.n);
    if (!e || (parent && wk_ecm_set_parent(ecm, e, parent))) {
        int rc = wk_fail(b->st, WK_NOMEM, "creating the entity of %s %s: %s", wk_node_kind_name(n->kind), name,
                         wk_ecm_errmsg(ecm));
        if (e)
            wk_ecm_destroy(ecm, e, false);
        return rc;
    }
    if (note_made(b, i, e)) {
        wk_ecm_destroy(ecm, e, false);
        return wk_fail(b->st, WK_NOMEM, "out of memory instantiating %s", name);
    }
    return WK_OK;
}

/* The entity of the joint a joint mimics (in its scope), or
 * WK_NULL_ENTITY. */
static wk_entity leader_of(const builder *b, uint32_t joint)
{
    const wk_node *n = wk_desc_node(b->d, joint);
    uint32_t leader = n->joint.mimic_joint ? wk__desc_find(b->d, n->parent, n->joint.mimic_joint, is_joint) : WK_NO_NODE;
    return leader == WK_NO_NODE || leader == joint ? WK_NULL_ENTITY : entity_of(b, leader);
}

/* Joints name their links and the joints they mimic, which may come after
 * them: linked last. */
static int link_joints(builder *b)
{
    const wk_scene_types *t = wk_scene_types_of(b->s);
    wk_ecm *ecm = wk_scene_ecm(b->s);
    qsort(b->made, b->made_count, sizeof *b->made, by_node);
    for (size_t k = 0; k < b->made_count; k++) {
        const wk_node *n = wk_desc_node(b->d, b->made[k].node);
        if (n->kind != WK_NODE_JOINT)
            continue;
        wk_scene_joint_links links = {entity_named(b, b->made[k].node, n->joint.parent),
                                      entity_named(b, b->made[k].node, n->joint.child)};
        wk_joint_mimic mimic = {leader_of(b, b->made[k].node), n->joint.mimic_multiplier, n->joint.mimic_offset};
        if (wk_ecm_set(ecm, b->made[k].entity, t->joint_links, &links) < 0 ||
            (mimic.leader && wk_ecm_set(ecm, b->made[k].entity, t->mimic, &mimic) < 0))
            return wk_fail(b->st, WK_NOMEM, "linking joint %s", n->name);
    }
    return WK_OK;
}

/* Whether a world's frame named name, hung below target (a link or a
 * model), would share its name with a part of target's model: SDFormat
 * scopes the two names apart, but the object world wants the entities,
 * frames and child objects of one object named apart. */
static bool name_taken_below(const wk_world_desc *d, uint32_t target, const char *name)
{
    const wk_node *t = wk_desc_node(d, target);
    return wk__desc_find(d, t->kind == WK_NODE_MODEL ? target : t->parent, name, any_kind) != WK_NO_NODE;
}

/* Hangs each frame below the entity attachment_of names (made sorted),
 * keeping its world pose: a model's frame, and a world's frame attached to a
 * model or one of its links when that model is instantiated in the same
 * call. A world's frame instantiated apart from the model it is attached to
 * (a simulation adds the world's children one by one, and levels bring
 * models later) stays below the world, where it is a named pose, as does
 * one whose name the model already holds. */
static int hang_frames(builder *b)
{
    wk_ecm *ecm = wk_scene_ecm(b->s);
    size_t count = wk_desc_node_count(b->d);
    attachments a = {calloc(count, sizeof *a.end), malloc(count * sizeof *a.path)};
    int rc = a.end && a.path ? WK_OK : wk_fail(b->st, WK_NOMEM, "out of memory attaching frames");
    for (size_t k = 0; rc == WK_OK && k < b->made_count; k++) {
        const wk_node *n = wk_desc_node(b->d, b->made[k].node);
        if (n->kind != WK_NODE_FRAME || n->parent == WK_NO_NODE)
            continue;
        uint32_t target = attachment_of(b->d, &a, b->made[k].node);
        wk_entity frame = b->made[k].entity, to = entity_of(b, target);
        bool world_frame = wk_desc_node(b->d, n->parent)->kind == WK_NODE_WORLD;
        if (target == n->parent || !to || (world_frame && name_taken_below(b->d, target, n->name)))
            continue;
        wk_pose to_T_frame =
            wk_pose_compose(wk_pose_inverse(wk_scene_world_pose(b->s, to)), wk_scene_world_pose(b->s, frame));
        if (wk_ecm_set_parent(ecm, frame, to) || wk_ecm_set(ecm, frame, wk_scene_types_of(b->s)->parent_pose,
                                                               &to_T_frame) < 0)
            rc = wk_fail(b->st, WK_NOMEM, "attaching frame %s: %s", n->name, wk_ecm_errmsg(ecm));
    }
    free(a.end);
    free(a.path);
    return rc;
}

/* Visits root's subtree parents first, children in document order; only
 * root itself when shallow. */
static int add_subtree(builder *b, uint32_t root, wk_entity parent, const wk_pose *parent_T_root, const char *name,
                       bool shallow)
{
    int rc = add_node(b, root, parent, parent_T_root, name);
    wk_entity entity = rc ? WK_NULL_ENTITY : b->made[b->made_count - 1].entity;
    for (uint32_t c = wk_desc_node(b->d, root)->first_child; !shallow && rc == WK_OK && c != WK_NO_NODE;
         c = wk_desc_node(b->d, c)->next_sibling)
        rc = add_subtree(b, c, entity, NULL, NULL, false);
    return rc;
}

static int instantiate(wk_scene *s, const wk_world_desc *d, uint32_t root, wk_entity parent, const wk_pose *parent_T_root,
                       const char *name, bool shallow, wk_entity *out, wk_status *st)
{
    *out = WK_NULL_ENTITY;
    const wk_node *r = wk_desc_node(d, root);
    if (!r)
        return wk_fail(st, WK_INVALID, "node %u is not in the description", root);
    if (parent && !wk_ecm_exists(wk_scene_ecm(s), parent))
        return wk_fail(st, WK_STALE, "parent entity %llu does not exist", (unsigned long long)parent);
    builder b = {.s = s, .d = d, .placement = wk_pose_identity(), .st = st};
    if (parent_T_root) {
        wk_pose placed = wk_pose_compose(wk_scene_world_pose(s, parent), *parent_T_root);
        b.placement = wk_pose_compose(placed, wk_pose_inverse(r->world));
    }
    int rc = add_subtree(&b, root, parent, parent_T_root, name, shallow);
    /* The root's entity was made first; it owns all the others. */
    wk_entity root_entity = b.made_count ? b.made[0].entity : WK_NULL_ENTITY;
    if (rc == WK_OK && (rc = link_joints(&b)) == WK_OK)
        rc = hang_frames(&b);
    if (rc && root_entity)
        wk_ecm_destroy(wk_scene_ecm(s), root_entity, true);
    else if (rc == WK_OK)
        *out = root_entity;
    free(b.made);
    return rc;
}

int wk_desc_instantiate(wk_scene *s, const wk_world_desc *d, uint32_t root, wk_entity parent,
                        const wk_pose *parent_T_root, const char *name, wk_entity *out, wk_status *st)
{
    return instantiate(s, d, root, parent, parent_T_root, name, false, out, st);
}

int wk_desc_instantiate_world(wk_scene *s, const wk_world_desc *d, wk_entity *out, wk_status *st)
{
    return instantiate(s, d, 0, WK_NULL_ENTITY, NULL, NULL, true, out, st);
}

int wk_desc_instantiate_children(wk_scene *s, const wk_world_desc *d, wk_entity world,
                                 bool (*skip)(uint32_t node, void *ctx), void *ctx, wk_status *st)
{
    wk_ecm *ecm = wk_scene_ecm(s);
    if (!wk_ecm_exists(ecm, world))
        return wk_fail(st, WK_STALE, "world entity %llu does not exist", (unsigned long long)world);
    builder b = {.s = s, .d = d, .placement = wk_pose_identity(), .st = st};
    /* The world's entity stands for node 0, so that its frames find it. */
    int rc = note_made(&b, 0, world) ? wk_fail(st, WK_NOMEM, "out of memory instantiating a world") : WK_OK;
    for (uint32_t c = wk_desc_node(d, 0)->first_child; rc == WK_OK && c != WK_NO_NODE;
         c = wk_desc_node(d, c)->next_sibling)
        if (!skip || !skip(c, ctx))
            rc = add_subtree(&b, c, world, NULL, NULL, false);
    if (rc == WK_OK && (rc = link_joints(&b)) == WK_OK)
        rc = hang_frames(&b);
    /* On failure the top-level entities made go, with all below them. */
    for (size_t k = 0; rc && k < b.made_count; k++)
        if (wk_desc_node(d, b.made[k].node)->parent == 0 && wk_ecm_exists(ecm, b.made[k].entity))
            wk_ecm_destroy(ecm, b.made[k].entity, true);
    free(b.made);
    return rc;
}
