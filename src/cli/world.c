/* world.c — `worldkit load` and `worldkit poses`: read a world file and
 * print its tree with diagnostics and build its scene entities, or print the
 * world pose of every model, link, joint, frame, visual and collision, one
 * line each. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "worldkit/wk_formats.h"

/* Parses FILE and the options; NULL (mistake printed) on bad arguments. */
static const char *parse_args(int argc, char **argv, wk_read_desc *desc, const char *usage)
{
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--fail-on-unsupported"))
            desc->fail_on_unsupported_element = true;
        else if (!strcmp(argv[i], "--ignore-missing-assets"))
            desc->ignore_missing_or_unsupported_assets = true;
        else if (argv[i][0] == '-' || file) {
            wk_cli_usage_error(usage, "unexpected argument '%s'", argv[i]);
            return NULL;
        } else
            file = argv[i];
    }
    if (!file || !file[0]) {
        wk_cli_usage_error(usage, "no FILE to read");
        return NULL;
    }
    desc->uri = file;
    return file;
}

/* Reads the world the arguments name; prints the failure and returns NULL
 * with *status the exit status: 2 for bad arguments, 1 for a bad world. */
static wk_world_desc *read_world(int argc, char **argv, const char *usage, int *status)
{
    wk_read_desc desc = {0};
    *status = 2;
    if (!parse_args(argc, argv, &desc, usage))
        return NULL;
    wk_world_desc *d = NULL;
    wk_status st = {0};
    *status = 1;
    if (wk_desc_read(&desc, &d, &st)) {
        fprintf(stderr, "worldkit: %s: %s\n", wk_code_name(st.code), st.message);
        return NULL;
    }
    return d;
}

static bool posed_kind(wk_node_kind kind)
{
    return kind == WK_NODE_MODEL || kind == WK_NODE_LINK || kind == WK_NODE_JOINT || kind == WK_NODE_FRAME ||
           kind == WK_NODE_VISUAL || kind == WK_NODE_COLLISION;
}

int wk_cli_poses(int argc, char **argv)
{
    int status;
    wk_world_desc *d = read_world(argc, argv, "poses FILE [--fail-on-unsupported] [--ignore-missing-assets]", &status);
    if (!d)
        return status;
    char name[1024];
    for (uint32_t i = 0; i < wk_desc_node_count(d); i++) {
        const wk_node *n = wk_desc_node(d, i);
        if (!posed_kind(n->kind))
            continue;
        wk_desc_scoped_name(d, i, name, sizeof name);
        const wk_pose *p = &n->world;
        printf("%s %s %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", wk_node_kind_name(n->kind), name, p->p.x, p->p.y,
               p->p.z, p->q.x, p->q.y, p->q.z, p->q.w);
    }
    wk_desc_free(d);
    return 0;
}

static void print_tree(const wk_world_desc *d, uint32_t i, int depth)
{
    const wk_node *n = wk_desc_node(d, i);
    if (n->kind == WK_NODE_VISUAL || n->kind == WK_NODE_COLLISION)
        return;
    wk_vec3 rpy = wk_quat_to_rpy(n->world.q);
    printf("%*s%s %s", depth * 2, "", wk_node_kind_name(n->kind), n->name);
    if (n->kind == WK_NODE_JOINT)
        printf(" (%s -> %s)", n->joint.parent, n->joint.child);
    if (n->kind == WK_NODE_LEVEL || n->kind == WK_NODE_PERFORMER)
        for (size_t r = 0; r < n->region.ref_count; r++)
            printf("%s%s", r ? ", " : " refs: ", n->region.refs[r]);
    printf("  xyz %.6g %.6g %.6g  rpy %.6g %.6g %.6g\n", n->world.p.x, n->world.p.y, n->world.p.z, rpy.x, rpy.y,
           rpy.z);
    for (uint32_t c = n->first_child; c != WK_NO_NODE; c = wk_desc_node(d, c)->next_sibling)
        print_tree(d, c, depth + 1);
}

/* Builds the world's entities and reports what the ECM holds. */
static int instantiate(const wk_world_desc *d)
{
    wk_scene *s = wk_scene_new();
    wk_entity world;
    wk_status st = {0};
    wk_buf state = {0};
    int rc = s ? wk_desc_instantiate(s, d, 0, WK_NULL_ENTITY, NULL, NULL, &world, &st)
               : wk_fail(&st, WK_NOMEM, "out of memory");
    if (rc == WK_OK && (rc = wk_ecm_state(wk_scene_ecm(s), NULL, &state)))
        wk_fail(&st, rc, "%s", wk_ecm_errmsg(wk_scene_ecm(s)));
    if (rc)
        fprintf(stderr, "worldkit: %s: %s\n", wk_code_name(st.code), st.message);
    else
        printf("scene: %zu entities, full state %zu bytes\n", wk_ecm_count(wk_scene_ecm(s)), state.len);
    wk_buf_free(&state);
    wk_scene_free(s);
    return rc;
}

int wk_cli_load(int argc, char **argv)
{
    int status;
    wk_world_desc *d = read_world(argc, argv, "load FILE [--fail-on-unsupported] [--ignore-missing-assets]", &status);
    if (!d)
        return status;
    print_tree(d, 0, 0);
    for (size_t i = 0; i < wk_desc_warning_count(d); i++)
        fprintf(stderr, "warning: %s\n", wk_desc_warning(d, i));
    int rc = instantiate(d);
    wk_desc_free(d);
    return rc ? 1 : 0;
}
