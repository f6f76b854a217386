/* world.c — the object world at scale: 100,000 objects and frames in a
 * random tree no deeper than 12, then the figures the issue names:
 *   world.get_transform_clean       ns/op, random pairs resolved by id together, as GetTransform does
 *   world.get_transform_floor       ns/op, the same pairs' poses from a plain array: the machine's floor
 *   world.get_transform_after_update ns/op, each after a pose update near the root
 *   world.update_transform          ns/op, a node against its parent
 *   world.clone_100k                ms
 *   world.compare_100k              ms, by id, 1% of the nodes moved
 *   world.batch_1000                ms, 1,000 mixed updates in one atomic batch */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench/world"
#include "bench.h"
#include "worldkit/wk_scene.h"

#define NODES 100000
#define MAX_DEPTH 12

static unsigned seed = 12345;

static size_t pick(size_t n)
{
    return (size_t)rand_r(&seed) % n;
}

static wk_pose random_pose(void)
{
    double r = (double)rand_r(&seed) / RAND_MAX;
    return (wk_pose){{r, 1 - r, 0.5 * r}, wk_quat_from_rpy(r, 0.3 * r, -r)};
}

typedef struct world {
    wk_scene *s;
    wk_entity nodes[NODES + 1]; /* 0: the root object */
    unsigned char depth[NODES + 1];
    char ids[NODES + 1][WK_ID_MAX];
} world;

static void build(world *w)
{
    wk_status st;
    w->s = wk_scene_new();
    if (!w->s || wk_scene_objects_init(w->s, WK_NULL_ENTITY, &st))
        die("no scene");
    w->nodes[0] = wk_scene_root(w->s);
    wk_scene_object_id(w->s, w->nodes[0], w->ids[0]);
    char name[16];
    for (size_t i = 1; i <= NODES; i++) {
        size_t parent;
        do
            parent = pick(i);
        while (w->depth[parent] >= MAX_DEPTH);
        snprintf(name, sizeof name, "n%zu", i);
        int rc = i % 3 == 0 ? wk_scene_create_frame(w->s, &(wk_frame_desc){.name = name, .parent = w->nodes[parent],
                                                                            .pose = random_pose()},
                                                    &w->nodes[i], &st)
                            : wk_scene_create_object(w->s, &(wk_object_desc){.name = name, .parent = w->nodes[parent],
                                                                             .pose = random_pose()},
                                                     &w->nodes[i], &st);
        if (rc)
            die("creating %s: %s", name, st.message);
        w->depth[i] = (unsigned char)(w->depth[parent] + 1);
        (i % 3 == 0 ? wk_scene_frame_id : wk_scene_object_id)(w->s, w->nodes[i], w->ids[i]);
    }
}

static double checksum; /* keeps the optimizer from dropping the work */

static double transforms_by_id(world *w, size_t ops, bool update_first)
{
    wk_status st;
    size_t near_root = 1; /* node 1 hangs off the root */
    double t0 = now_s();
    for (size_t k = 0; k < ops; k++) {
        if (update_first && wk_scene_set_pose(w->s, w->nodes[near_root], random_pose(), &st))
            die("set_pose: %s", st.message);
        size_t a = pick(NODES + 1), b = pick(NODES + 1);
        const wk_ref refs[2] = {{.id = w->ids[a]}, {.id = w->ids[b]}};
        wk_entity ab[2];
        if (wk_scene_find_nodes(w->s, refs, 2, ab, &st))
            die("find: %s", st.message);
        checksum += wk_scene_transform(w->s, ab[0], ab[1]).p.x;
    }
    return (now_s() - t0) / (double)ops * 1e9;
}

/* The floor under get_transform on this machine: a_T_b from two random
 * poses in a plain array as big as the world, and the ids' strings read as
 * the service reads them: no lookups, no checks. */
static double transform_floor(world *w, size_t ops)
{
    wk_pose *poses = malloc((NODES + 1) * sizeof *poses);
    if (!poses)
        die("out of memory");
    for (size_t i = 0; i <= NODES; i++)
        poses[i] = random_pose();
    double t0 = now_s();
    for (size_t k = 0; k < ops; k++) {
        size_t a = pick(NODES + 1), b = pick(NODES + 1);
        checksum += w->ids[a][4] + w->ids[b][4];
        checksum += wk_pose_compose(wk_pose_inverse(poses[a]), poses[b]).p.x;
    }
    double ns = (now_s() - t0) / (double)ops * 1e9;
    free(poses);
    return ns;
}

static double update_transforms(world *w, size_t ops)
{
    wk_status st;
    double t0 = now_s();
    for (size_t k = 0; k < ops; k++) {
        wk_entity b = w->nodes[1 + pick(NODES)];
        if (wk_scene_update_transform(w->s, wk_scene_parent_node(w->s, b), b, WK_NULL_ENTITY, random_pose(), &st))
            die("update_transform: %s", st.message);
    }
    return (now_s() - t0) / (double)ops * 1e9;
}

static double clone_ms(world *w)
{
    double t0 = now_s();
    wk_scene *copy = wk_scene_clone(w->s);
    double ms = (now_s() - t0) * 1e3;
    if (!copy)
        die("clone failed");
    wk_scene_free(copy);
    return ms;
}

static double compare_ms(world *w)
{
    wk_scene *changed = wk_scene_clone(w->s);
    if (!changed)
        die("clone failed");
    wk_status st;
    for (size_t k = 0; k < NODES / 100; k++)
        if (wk_scene_set_pose(changed, w->nodes[1 + pick(NODES)], random_pose(), &st))
            die("set_pose: %s", st.message);
    wk_world_diff d;
    double t0 = now_s();
    if (wk_scene_compare(w->s, changed, WK_COMPARE_BY_ID, &d, &st))
        die("compare: %s", st.message);
    double ms = (now_s() - t0) * 1e3;
    if (d.modified_object_count + d.modified_frame_count == 0 || d.added_objects.count || d.removed_objects.count)
        die("compare found %zu + %zu modified, %zu added, %zu removed", d.modified_object_count,
            d.modified_frame_count, d.added_objects.count, d.removed_objects.count);
    wk_world_diff_free(&d);
    wk_scene_free(changed);
    return ms;
}

/* 1,000 updates: poses, renames, new frames, reparented frames, deletions of
 * the frames made here, in one batch. */
static double batch_ms(world *w)
{
    wk_status st;
    wk_entity made[200];
    size_t made_count = 0;
    char name[32];
    double t0 = now_s();
    if (wk_scene_batch_begin(w->s, &st))
        die("begin: %s", st.message);
    for (size_t k = 0; k < 1000; k++) {
        size_t i = 1 + pick(NODES);
        int rc = WK_OK;
        switch (k % 5) {
        case 0:
            rc = wk_scene_set_pose(w->s, w->nodes[i], random_pose(), &st);
            break;
        case 1:
            snprintf(name, sizeof name, "renamed%zu", k);
            rc = wk_scene_rename(w->s, w->nodes[i], name, false, &st);
            break;
        case 2:
            snprintf(name, sizeof name, "batch%zu", k);
            rc = wk_scene_create_frame(w->s, &(wk_frame_desc){.name = name, .parent = w->nodes[i]}, &made[made_count],
                                       &st);
            made_count += rc == WK_OK;
            break;
        case 3:
            rc = made_count ? wk_scene_reparent(w->s, made[made_count - 1], w->nodes[0], &st) : WK_OK;
            break;
        case 4:
            rc = made_count ? wk_scene_delete_frame(w->s, made[--made_count], true, &st) : WK_OK;
            break;
        }
        if (rc)
            die("batch update %zu: %s", k, st.message);
    }
    wk_scene_batch_commit(w->s);
    return (now_s() - t0) * 1e3;
}

int main(void)
{
    static world w;
    double t0 = now_s();
    build(&w);
    printf("bench world.build_100k %.1f ms\n", (now_s() - t0) * 1e3);
    transforms_by_id(&w, 200000, false); /* warm the cache */
    printf("bench world.get_transform_clean %.0f ns\n", transforms_by_id(&w, 1000000, false));
    printf("bench world.get_transform_floor %.0f ns\n", transform_floor(&w, 1000000));
    printf("bench world.get_transform_after_update %.0f ns\n", transforms_by_id(&w, 2000, true));
    printf("bench world.update_transform %.0f ns\n", update_transforms(&w, 100000));
    printf("bench world.clone_100k %.1f ms\n", clone_ms(&w));
    printf("bench world.compare_100k %.1f ms\n", compare_ms(&w));
    printf("bench world.batch_1000 %.2f ms\n", batch_ms(&w));
    if (checksum == 0.123456789)
        puts("");
    wk_scene_free(w.s);
    return 0;
}
