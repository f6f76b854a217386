/* scene.c — a scene's lifetime, its standard component types, and reading
 * names and poses back from its entities. */
#include <stdlib.h>
#include <string.h>

#include "scene/kinematics_internal.h"
#include "scene/scene_internal.h"
#include "scene/shared_str.h"

const char *wk_node_kind_name(wk_node_kind kind)
{
    static const char *const names[] = {
#define WK__NODE_KIND_NAME(name, text) text,
        WK_NODE_KIND_TABLE(WK__NODE_KIND_NAME)
#undef WK__NODE_KIND_NAME
    };
    return (unsigned)kind < WK_NODE_KIND_COUNT ? names[kind] : "unknown";
}

/* Hooks of the string components (Name, Uri, Namespace). A held string is a
 * shared one (shared_str.h): a clone shares it, a rename replaces it. */
static int str_copy(void *dst, const void *src)
{
    const char *s = *(char *const *)src;
    char *copy = s ? wk__shared_str_new(s, strlen(s)) : NULL;
    *(char **)dst = copy;
    return s && !copy ? WK_NOMEM : WK_OK;
}

static int str_share(void *dst, const void *src)
{
    *(char **)dst = wk__shared_str_ref(*(char *const *)src);
    return WK_OK;
}

static void str_destroy(void *value)
{
    wk__shared_str_release(*(char **)value);
}

static bool str_equal(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    return x == y || (x && y && strcmp(x, y) == 0);
}

static int str_serialize(const void *value, wk_buf *out)
{
    const char *s = *(char *const *)value;
    return s ? wk_buf_append(out, s, strlen(s)) : WK_OK;
}

static int str_deserialize(void *dst, const uint8_t *bytes, size_t len)
{
    if (memchr(bytes, 0, len))
        return WK_PARSE;
    char *s = wk__shared_str_new((const char *)bytes, len);
    if (!s)
        return WK_NOMEM;
    *(char **)dst = s;
    return WK_OK;
}

static const wk_type_hooks string_hooks = {str_copy, str_destroy, str_equal, str_serialize, str_deserialize,
                                           str_share};

/* Hooks of Object: its name is held as the string components' are;
 * serialized as type, alias flag, name. */
static int object_copy(void *dst, const void *src)
{
    const wk_object_info *from = src;
    wk_object_info *to = dst;
    *to = *from;
    return str_copy(&to->name, &from->name);
}

static int object_share(void *dst, const void *src)
{
    const wk_object_info *from = src;
    wk_object_info *to = dst;
    *to = *from;
    return str_share(&to->name, &from->name);
}

static void object_destroy(void *value)
{
    str_destroy(&((wk_object_info *)value)->name);
}

static bool object_equal(const void *a, const void *b)
{
    const wk_object_info *x = a, *y = b;
    return x->type == y->type && x->name_is_global_alias == y->name_is_global_alias && str_equal(&x->name, &y->name);
}

static int object_serialize(const void *value, wk_buf *out)
{
    const wk_object_info *o = value;
    uint8_t head[2] = {o->type, o->name_is_global_alias};
    int rc = wk_buf_append(out, head, sizeof head);
    return rc ? rc : str_serialize(&o->name, out);
}

static int object_deserialize(void *dst, const uint8_t *bytes, size_t len)
{
    wk_object_info *o = dst;
    if (len < 2 || bytes[0] > WK_OBJECT_KINEMATIC || bytes[1] > 1)
        return WK_PARSE;
    o->type = bytes[0];
    o->name_is_global_alias = bytes[1];
    return str_deserialize(&o->name, bytes + 2, len - 2);
}

static const wk_type_hooks object_hooks = {object_copy,      object_destroy,     object_equal,
                                           object_serialize, object_deserialize, object_share};

static int register_types(wk_ecm *ecm, wk_scene_types *t)
{
    const struct {
        wk_type *id;
        wk_type_desc desc;
    } table[] = {
        {&t->name, {.name = "Name", .size = sizeof(char *), .hooks = string_hooks}},
        {&t->kind, {.name = "Kind", .size = sizeof(uint8_t)}},
        {&t->parent_pose, {.name = "ParentPose", .size = sizeof(wk_pose)}},
        {&t->is_static, {.name = "Static"}},
        {&t->joint, {.name = "Joint", .size = sizeof(wk_scene_joint)}},
        {&t->joint_links, {.name = "JointLinks", .size = sizeof(wk_scene_joint_links)}},
        {&t->geometry, {.name = "Geometry", .size = sizeof(wk_scene_geometry)}},
        {&t->uri, {.name = "Uri", .size = sizeof(char *), .hooks = string_hooks}},
        {&t->physics, {.name = "Physics", .size = sizeof(wk_physics), .hooks = wk__physics_hooks}},
        {&t->ns, {.name = "Namespace", .size = sizeof(char *), .hooks = string_hooks}},
        {&t->spawned, {.name = "Spawned"}},
        {&t->spawn_pose, {.name = "SpawnPose", .size = sizeof(wk_pose)}},
        {&t->object, {.name = "Object", .size = sizeof(wk_object_info), .hooks = object_hooks}},
        {&t->frame, {.name = "Frame", .size = sizeof(wk_frame_info)}},
        {&t->collision,
         {.name = "CollisionSettings", .size = sizeof(wk_collision_settings), .hooks = wk__collision_hooks}},
        {&t->user_data, {.name = "UserData", .size = sizeof(wk_user_data), .hooks = wk__user_data_hooks}},
        {&t->kinematics, {.name = "Kinematics", .size = sizeof(wk_kinematics), .hooks = wk__kinematics_hooks}},
        {&t->kinematic_object,
         {.name = "KinematicObject", .size = sizeof(wk_kinematic_object), .hooks = wk__kinematic_object_hooks}},
        {&t->entity_info, {.name = "EntityInfo", .size = sizeof(wk_entity_info), .hooks = wk__entity_info_hooks}},
        {&t->mimic, {.name = "Mimic", .size = sizeof(wk_joint_mimic)}},
        {&t->velocity, {.name = "Velocity", .size = sizeof(wk_velocity)}},
        {&t->acceleration, {.name = "Acceleration", .size = sizeof(wk_acceleration)}},
        {&t->world_settings, {.name = "WorldSettings", .size = sizeof(wk_world_settings)}},
        {&t->world_source, {.name = "WorldSource", .size = sizeof(char *), .hooks = string_hooks}},
        {&t->performer, {.name = "Performer", .size = sizeof(wk_vec3)}},
        {&t->cartesian_limits,
         {.name = "CartesianLimits", .size = sizeof(wk_cartesian_limits), .hooks = wk__cartesian_limits_hooks}},
        {&t->payload, {.name = "Payload", .size = sizeof(wk_payload), .hooks = wk__payload_hooks}},
        {&t->surface, {.name = "Surface", .size = sizeof(wk_scene_surface)}},
        {&t->mesh_file, {.name = "MeshFile", .size = sizeof(char *), .hooks = string_hooks}},
        {&t->material, {.name = "Material", .size = sizeof(wk_scene_material)}},
        {&t->region, {.name = "Region", .size = sizeof(wk_scene_region)}},
        {&t->performer_of, {.name = "PerformerOf", .size = sizeof(char *), .hooks = string_hooks}},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int rc = wk_ecm_register(ecm, &table[i].desc, table[i].id);
        if (rc)
            return rc;
    }
    return WK_OK;
}

wk_scene *wk_scene_new(void)
{
    wk_scene *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (wk__pose_cache_init(&s->poses)) {
        free(s);
        return NULL;
    }
    s->ecm = wk_ecm_new();
    if (!s->ecm || register_types(s->ecm, &s->types)) {
        wk_scene_free(s);
        return NULL;
    }
    return s;
}

void wk_scene_free(wk_scene *s)
{
    if (!s)
        return;
    wk_ecm_free(s->ecm);
    wk__index_free(&s->object_names);
    wk__pose_cache_free(&s->poses);
    free(s);
}

wk_scene *wk_scene_clone(const wk_scene *s)
{
    wk_scene *copy = calloc(1, sizeof *copy);
    if (!copy)
        return NULL;
    if (wk__pose_cache_init(&copy->poses)) {
        free(copy);
        return NULL;
    }
    copy->types = s->types;
    copy->root = s->root;
    copy->ecm = wk_ecm_clone(s->ecm);
    if (!copy->ecm || wk__index_copy(&copy->object_names, &s->object_names)) {
        wk_scene_free(copy);
        return NULL;
    }
    return copy;
}

wk_ecm *wk_scene_ecm(wk_scene *s)
{
    return s->ecm;
}

const wk_scene_types *wk_scene_types_of(const wk_scene *s)
{
    return &s->types;
}

wk_pose wk_scene_world_pose(const wk_scene *s, wk_entity e)
{
    wk_pose pose = wk_pose_identity();
    for (; e; e = wk_ecm_parent(s->ecm, e)) {
        const wk_pose *local = wk_ecm_get(s->ecm, e, s->types.parent_pose);
        if (local)
            pose = wk_pose_compose(*local, pose);
    }
    return pose;
}

const char *wk_scene_name(const wk_scene *s, wk_entity e)
{
    char *const *name = wk_ecm_get(s->ecm, e, s->types.name);
    return name ? *name : NULL;
}

wk_entity wk_scene_child(const wk_scene *s, wk_entity parent, const char *name)
{
    const wk_match match = {s->types.name, &name};
    wk_entity_list found = {0};
    int rc = parent ? wk_ecm_find_children(s->ecm, parent, &match, 1, &found) : wk_ecm_find(s->ecm, &match, 1, &found);
    wk_entity hit = WK_NULL_ENTITY;
    for (size_t i = 0; rc == WK_OK && i < found.count && !hit; i++)
        if (parent || !wk_ecm_parent(s->ecm, found.items[i]))
            hit = found.items[i];
    wk_entity_list_free(&found);
    return hit;
}

const char *wk_scene_local_name(const wk_scene *s, wk_entity e)
{
    const wk_object_info *object = wk_ecm_get(s->ecm, e, s->types.object);
    return object && object->name ? object->name : wk_scene_name(s, e);
}

/* The entity called name (len bytes) below scope, breadth first, not inside
 * a nested model; WK_NULL_ENTITY when none or out of memory. */
static wk_entity in_scope(const wk_scene *s, wk_entity scope, const char *name, size_t len)
{
    wk_entity_list queue = {0};
    wk_entity hit = WK_NULL_ENTITY;
    int rc = wk_ecm_children(s->ecm, scope, &queue);
    for (size_t i = 0; rc == WK_OK && !hit && i < queue.count; i++) {
        wk_entity e = queue.items[i];
        const char *n = wk_scene_local_name(s, e);
        const uint8_t *kind = wk_ecm_get(s->ecm, e, s->types.kind);
        if (n && strlen(n) == len && !memcmp(n, name, len))
            hit = e;
        else if (!kind || *kind != WK_NODE_MODEL)
            rc = wk_ecm_children(s->ecm, e, &queue);
    }
    wk_entity_list_free(&queue);
    return hit;
}

wk_entity wk_scene_scoped(const wk_scene *s, wk_entity scope, const char *name)
{
    if (!name || !name[0])
        return WK_NULL_ENTITY;
    for (wk_entity e = scope;; name += 2) {
        const char *sep = strstr(name, "::");
        size_t len = sep ? (size_t)(sep - name) : strlen(name);
        if (!(e = in_scope(s, e, name, len)) || !sep)
            return e;
        name = sep;
    }
}
