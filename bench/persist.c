/* persist.c — the store on disk: what a durable write costs, and what
 * reopening costs, on a world of 10,000 objects in a temporary folder:
 *   persist.create_10k          ms, the world's first snapshot written
 *   persist.commit_pose         us/op, one pose update committed (fsync included)
 *   persist.commit_object       us/op, one new object committed
 *   persist.compact_10k         ms, the journal folded into a new snapshot
 *   persist.open_10k            ms, the store reopened: snapshot loaded, journal replayed
 * The fsync a commit waits for dominates; it is the disk's figure more than
 * worldkit's. */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench/persist"
#include "bench.h"
#include "worldkit/wk_store.h"

#define OBJECTS 10000
#define COMMITS 200

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static wk_scene *open_w(wk_store *store, wk_world **w)
{
    wk_status st;
    if (wk_store_open(store, "w", true, w, &st))
        die("open: %s", st.message);
    return wk_world_scene(*w);
}

static void commit(wk_world *w)
{
    wk_status st;
    if (wk_store_commit(w, true, &st))
        die("commit: %s", st.message);
    wk_store_close(w, false, false);
}

static wk_entity object(wk_scene *s, const char *prefix, int i)
{
    char name[32];
    snprintf(name, sizeof name, "%s%d", prefix, i);
    wk_entity e;
    wk_status st;
    if (wk_scene_create_object(s, &(wk_object_desc){.name = name, .pose = {{i, 0, 0}, {1, 0, 0, 0}}}, &e, &st))
        die("create %s: %s", name, st.message);
    return e;
}

int main(void)
{
    char dir[] = "/tmp/wk_bench_persist_XXXXXX";
    if (!mkdtemp(dir))
        die("no temporary folder");
    wk_store *store;
    wk_status st;
    if (wk_store_open_desc(&(wk_store_desc){.dir = dir, .compact_entries = 100000}, &store, &st))
        die("%s", st.message);
    /* The world is built in memory, then created from a clone of it: one
     * snapshot, no journal. */
    char id[WK_WORLD_ID_MAX];
    if (wk_store_create(store, &(wk_world_create_desc){.id = "seed"}, id, &st))
        die("%s", st.message);
    wk_world *w;
    if (wk_store_open(store, "seed", true, &w, &st))
        die("%s", st.message);
    wk_entity *objects = malloc(OBJECTS * sizeof *objects);
    for (int i = 0; i < OBJECTS; i++)
        objects[i] = object(wk_world_scene(w), "o", i);
    wk_store_close(w, false, false);
    double t0 = now_s();
    if (wk_store_clone(store, "seed", "w", false, NULL, id, &st))
        die("%s", st.message);
    printf("bench persist.create_10k %.1f ms\n", (now_s() - t0) * 1e3);
    if (wk_store_delete(store, "seed", &st))
        die("%s", st.message);

    t0 = now_s();
    for (int i = 0; i < COMMITS; i++) {
        wk_scene *s = open_w(store, &w);
        if (wk_scene_set_pose(s, objects[(i * 37) % OBJECTS], (wk_pose){{i, 1, 0}, {1, 0, 0, 0}}, &st))
            die("%s", st.message);
        commit(w);
    }
    printf("bench persist.commit_pose %.0f us/op\n", (now_s() - t0) / COMMITS * 1e6);
    t0 = now_s();
    for (int i = 0; i < COMMITS; i++) {
        wk_scene *s = open_w(store, &w);
        object(s, "n", i);
        commit(w);
    }
    printf("bench persist.commit_object %.0f us/op\n", (now_s() - t0) / COMMITS * 1e6);

    wk_store_free(store);
    t0 = now_s();
    if (wk_store_open_dir(dir, &store, &st))
        die("%s", st.message);
    double open_journal = now_s() - t0;
    t0 = now_s();
    if (wk_store_compact(store, "w", &st))
        die("%s", st.message);
    printf("bench persist.compact_10k %.1f ms\n", (now_s() - t0) * 1e3);
    wk_store_free(store);
    t0 = now_s();
    if (wk_store_open_dir(dir, &store, &st))
        die("%s", st.message);
    printf("bench persist.open_10k %.1f ms\n", (now_s() - t0) * 1e3);
    printf("bench persist.open_10k_journal_400 %.1f ms\n", open_journal * 1e3);
    wk_store_free(store);
    free(objects);
    nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    return 0;
}
