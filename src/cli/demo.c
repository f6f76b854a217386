/* demo.c — `worldkit demo`: builds a small world (a ground plane and a
 * two-link arm) in the ECS, steps it once, and prints the entity tree with
 * every entity's components and world pose. It shows the core working end to
 * end until the server takes over as the main job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "worldkit/wk_ecm.h"
#include "worldkit/wk_math.h"

typedef struct demo_types {
    wk_type name, pose, link, model;
} demo_types;

static int name_copy(void *dst, const void *src)
{
    char *s = strdup(*(char *const *)src);
    *(char **)dst = s;
    return s ? 0 : WK_NOMEM;
}

static void name_destroy(void *value)
{
    free(*(char **)value);
}

static bool name_equal(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b) == 0;
}

static int name_serialize(const void *value, wk_buf *out)
{
    const char *s = *(char *const *)value;
    return wk_buf_append(out, s, strlen(s));
}

static int name_deserialize(void *dst, const uint8_t *bytes, size_t len)
{
    char *s = malloc(len + 1);
    if (!s)
        return WK_NOMEM;
    memcpy(s, bytes, len);
    s[len] = '\0';
    *(char **)dst = s;
    return 0;
}

static int register_types(wk_ecm *ecm, demo_types *t)
{
    int rc = wk_ecm_register(ecm,
                             &(wk_type_desc){.name = "Name",
                                             .size = sizeof(char *),
                                             .hooks = {.copy = name_copy,
                                                       .destroy = name_destroy,
                                                       .equal = name_equal,
                                                       .serialize = name_serialize,
                                                       .deserialize = name_deserialize}},
                             &t->name);
    if (!rc)
        rc = wk_ecm_register(ecm, &(wk_type_desc){.name = "ParentPose", .size = sizeof(wk_pose)}, &t->pose);
    if (!rc)
        rc = wk_ecm_register(ecm, &(wk_type_desc){.name = "Link"}, &t->link);
    if (!rc)
        rc = wk_ecm_register(ecm, &(wk_type_desc){.name = "Model"}, &t->model);
    return rc;
}

/* Creates a named entity under parent with pose parent_T_this. */
static wk_entity add(wk_ecm *ecm, const demo_types *t, wk_entity parent, const char *name, wk_type kind,
                     wk_pose pose)
{
    wk_entity e = wk_ecm_create(ecm);
    if (!e || wk_ecm_set(ecm, e, t->name, &name) < 0 || wk_ecm_set(ecm, e, t->pose, &pose) < 0 ||
        (kind && wk_ecm_set(ecm, e, kind, NULL) < 0) || (parent && wk_ecm_set_parent(ecm, e, parent)))
        return WK_NULL_ENTITY;
    return e;
}

static wk_pose world_pose(const wk_ecm *ecm, const demo_types *t, wk_entity e)
{
    const wk_pose *local = wk_ecm_get(ecm, e, t->pose);
    wk_pose pose = local ? *local : wk_pose_identity();
    for (wk_entity p = wk_ecm_parent(ecm, e); p; p = wk_ecm_parent(ecm, p)) {
        const wk_pose *up = wk_ecm_get(ecm, p, t->pose);
        if (up)
            pose = wk_pose_compose(*up, pose);
    }
    return pose;
}

static void print_tree(const wk_ecm *ecm, const demo_types *t, wk_entity e, int depth)
{
    const char *const *name = wk_ecm_get(ecm, e, t->name);
    wk_pose w = world_pose(ecm, t, e);
    wk_vec3 rpy = wk_quat_to_rpy(w.q);
    const char *kind = wk_ecm_has(ecm, e, t->model) ? "model" : wk_ecm_has(ecm, e, t->link) ? "link" : "entity";
    printf("%*s%-6s %-10s id=%-4llu world xyz=(%.3f %.3f %.3f) rpy=(%.3f %.3f %.3f)\n", depth * 2, "", kind,
           name ? *name : "?", (unsigned long long)e, w.p.x, w.p.y, w.p.z, rpy.x, rpy.y, rpy.z);
    wk_entity_list children = {0};
    if (wk_ecm_children(ecm, e, &children) == WK_OK)
        for (size_t i = 0; i < children.count; i++)
            print_tree(ecm, t, children.items[i], depth + 1);
    wk_entity_list_free(&children);
}

int wk_cli_demo(int argc, char **argv)
{
    (void)argc, (void)argv;
    wk_ecm *ecm = wk_ecm_new();
    demo_types t;
    if (!ecm || register_types(ecm, &t)) {
        fprintf(stderr, "worldkit demo: %s\n", ecm ? wk_ecm_errmsg(ecm) : "out of memory");
        wk_ecm_free(ecm);
        return 1;
    }
    wk_pose id = wk_pose_identity();
    wk_entity world = add(ecm, &t, WK_NULL_ENTITY, "world", WK_NO_TYPE, id);
    wk_entity ground = add(ecm, &t, world, "ground", t.model, id);
    add(ecm, &t, ground, "plane", t.link, id);
    wk_entity arm = add(ecm, &t, world, "arm", t.model, (wk_pose){{1, 0, 0}, wk_quat_from_rpy(0, 0, 1.5707963267948966)});
    wk_entity base = add(ecm, &t, arm, "base", t.link, (wk_pose){{0, 0, 0.1}, wk_quat_identity()});
    wk_entity upper = add(ecm, &t, base, "upper", t.link, (wk_pose){{0.5, 0, 0}, wk_quat_identity()});
    if (!world || !upper) {
        fprintf(stderr, "worldkit demo: %s\n", wk_ecm_errmsg(ecm));
        wk_ecm_free(ecm);
        return 1;
    }
    wk_buf state = {0};
    int rc = wk_ecm_state(ecm, NULL, &state);
    printf("world: %zu entities, full state %zu bytes\n", wk_ecm_count(ecm), state.len);
    print_tree(ecm, &t, world, 0);
    wk_buf_free(&state);
    wk_ecm_free(ecm);
    return rc ? 1 : 0;
}
