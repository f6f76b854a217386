/* joints.c — the joints of a description a scene can hold, checked once the
 * file is read, so that a bad one is refused naming file, line and joint
 * rather than dropped or left to fail later.
 *
 * A scene's kinematic objects are trees: a joint hangs below its parent
 * link and its child link below it. In SDFormat a joint whose parent is its
 * child, and a loop of joints (a -> b -> c -> a), left a joint out of the
 * tree without a word. (URDF's reader checks its tree itself; MJCF's bodies
 * are one by construction. A link that is the child of two joints stays
 * allowed, as libsdformat allows it, and tests/formats/worlds/frames.sdf
 * has one: the tree takes the first.) In
 * every format, a chain of mimic joints that comes back on itself loaded,
 * and then every move of its joints failed. */
#include "formats/desc_internal.h"

#include <stdlib.h>
#include <string.h>

static bool is_joint(wk_node_kind kind)
{
    return kind == WK_NODE_JOINT;
}

/* What a joint's parent or child may name: any frame of its scope. */
static bool is_frame(wk_node_kind kind)
{
    return kind == WK_NODE_LINK || kind == WK_NODE_FRAME || kind == WK_NODE_JOINT || kind == WK_NODE_MODEL;
}

/* The node a joint's parent or child names, or WK_NO_NODE. */
static uint32_t end_of(const wk_world_desc *d, uint32_t joint, const char *name)
{
    return name ? wk__desc_find(d, d->nodes[joint].parent, name, is_frame) : WK_NO_NODE;
}

static bool is_link(const wk_world_desc *d, uint32_t node)
{
    return node != WK_NO_NODE && d->nodes[node].kind == WK_NODE_LINK;
}

enum { WHITE, GREY, BLACK };

/* The joints between links as a graph, each from its parent link to its
 * child link, and the state of a depth-first search over it. */
typedef struct graph {
    uint32_t *first; /* count + 1: the joints leaving link n are edges[first[n] .. first[n + 1]) */
    uint32_t *next;  /* per link: the next of its edges to follow */
    uint32_t *edges; /* joints, grouped by parent link */
    uint32_t *parent, *child; /* per joint of the graph: its links; child WK_NO_NODE for other nodes */
    uint32_t *stack;
    uint8_t *color;
} graph;

/* Fills g with the joints whose parent and child are links; refuses a joint
 * whose parent is its child on the way. */
static int build(const wk_world_desc *d, graph *g, wk_status *st)
{
    for (uint32_t j = 0; j < d->count; j++) {
        const wk_node *n = &d->nodes[j];
        if (n->kind != WK_NODE_JOINT)
            continue;
        uint32_t parent = end_of(d, j, n->joint.parent), child = end_of(d, j, n->joint.child);
        if ((parent != WK_NO_NODE && parent == child) ||
            (n->joint.parent && n->joint.child && !strcmp(n->joint.parent, n->joint.child)))
            return wk__desc_fail(d, j, st, "its parent and its child are both '%s'", n->joint.child);
        g->parent[j] = parent;
        g->child[j] = is_link(d, parent) && is_link(d, child) ? child : WK_NO_NODE;
        if (g->child[j] != WK_NO_NODE)
            g->first[parent + 1]++;
    }
    for (uint32_t n = 0; n < d->count; n++)
        g->next[n] = g->first[n + 1] += g->first[n];
    for (uint32_t j = 0; j < d->count; j++)
        if (d->nodes[j].kind == WK_NODE_JOINT && g->child[j] != WK_NO_NODE)
            g->edges[--g->next[g->parent[j]]] = j;
    return WK_OK;
}

/* The first joint found to close a loop: searching depth first from every
 * link, one that leads back to a link whose search is still open.
 * WK_NO_NODE when the joints form trees. */
static uint32_t loop_joint(graph *g, uint32_t count)
{
    for (uint32_t root = 0; root < count; root++) {
        if (g->color[root] != WHITE)
            continue;
        size_t top = 0;
        g->stack[top++] = root;
        g->color[root] = GREY;
        while (top) {
            uint32_t n = g->stack[top - 1];
            if (g->next[n] == g->first[n + 1]) {
                g->color[n] = BLACK;
                top--;
                continue;
            }
            uint32_t j = g->edges[g->next[n]++], c = g->child[j];
            if (g->color[c] == GREY)
                return j;
            if (g->color[c] == WHITE) {
                g->color[c] = GREY;
                g->stack[top++] = c;
            }
        }
    }
    return WK_NO_NODE;
}

static int check_tree(wk_world_desc *d, wk_status *st)
{
    size_t n = d->count;
    uint32_t *words = calloc(6 * n + 1, sizeof *words);
    uint8_t *color = calloc(n ? n : 1, 1);
    graph g = {.first = words,
               .next = words + n + 1,
               .edges = words + 2 * n + 1,
               .parent = words + 3 * n + 1,
               .child = words + 4 * n + 1,
               .stack = words + 5 * n + 1,
               .color = color};
    int rc = words && color ? build(d, &g, st) : wk_fail(st, WK_NOMEM, "out of memory checking joints");
    uint32_t j = rc ? WK_NO_NODE : loop_joint(&g, d->count);
    if (j != WK_NO_NODE)
        rc = wk__desc_fail(d, j, st, "it closes a loop of joints back to link '%s'; the joints must form a tree",
                           d->nodes[g.child[j]].name);
    free(words);
    free(color);
    return rc;
}

static uint32_t leader_of(const wk_world_desc *d, uint32_t node, void *ctx)
{
    (void)ctx;
    const wk_node *n = &d->nodes[node];
    return n->kind == WK_NODE_JOINT && n->joint.mimic_joint
               ? wk__desc_find(d, n->parent, n->joint.mimic_joint, is_joint)
               : WK_NO_NODE;
}

static int check_mimics(wk_world_desc *d, wk_status *st)
{
    uint32_t joint;
    if (wk__desc_find_cycle(d, leader_of, NULL, &joint))
        return wk_fail(st, WK_NOMEM, "out of memory checking joints");
    return joint == WK_NO_NODE ? WK_OK
                               : wk__desc_fail(d, joint, st, "it mimics joint '%s', whose chain of mimics leads back "
                                               "to it", d->nodes[joint].joint.mimic_joint);
}

int wk__desc_check_joints(wk_world_desc *d, wk_status *st)
{
    int rc = d->format == WK_FORMAT_SDF ? check_tree(d, st) : WK_OK;
    return rc ? rc : check_mimics(d, st);
}
