/* persist.c — the store in a database: what a durable write costs, and
 * what reopening costs, on a world of 10,000 objects, in SQLite (a
 * temporary folder) and then, in the same run, in PostgreSQL (a server of
 * its own, started by tests/store/with_postgres.sh, which this program runs
 * itself under; a unix socket, fsync on):
 *   persist.create_10k          ms, the world's first snapshot written
 *   persist.commit_pose         us/op, one pose update committed (fsync included)
 *   persist.commit_object       us/op, one new object committed
 *   persist.compact_10k         ms, the journal folded into a new snapshot
 *   persist.open_10k            ms, the store reopened: snapshot loaded, journal replayed
 *                               (in PostgreSQL: the world's lease taken and the world loaded)
 * and the same as persist_pg.*, then persist_pg.<figure>_vs_sqlite, the
 * ratio. persist_pg.takeover_10k is the time from the SIGKILL of a process
 * holding the world's lease (1 s) to another store serving it.
 * The fsync a commit waits for dominates; it is the disk's figure more than
 * worldkit's. */
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* The figures of one backend. */
typedef struct figures {
    double create, pose, object, compact, open;
} figures;

static wk_store *open_store(const wk_store_desc *desc)
{
    wk_store *store;
    wk_status st;
    if (wk_store_open_desc(desc, &store, &st))
        die("%s", st.message);
    return store;
}

static void print(const char *prefix, const figures *f)
{
    printf("bench %s.create_10k %.1f ms\n", prefix, f->create * 1e3);
    printf("bench %s.commit_pose %.0f us/op\n", prefix, f->pose * 1e6);
    printf("bench %s.commit_object %.0f us/op\n", prefix, f->object * 1e6);
    printf("bench %s.compact_10k %.1f ms\n", prefix, f->compact * 1e3);
    printf("bench %s.open_10k %.1f ms\n", prefix, f->open * 1e3);
}

/* The time from the SIGKILL of a process holding world w's lease to desc's
 * store serving it. */
static double takeover(const wk_store_desc *desc)
{
    int ready[2];
    if (pipe(ready))
        die("no pipe");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        wk_store *store = open_store(desc);
        wk_world *w;
        wk_status st;
        if (wk_store_open(store, "w", false, &w, &st))
            _exit(2);
        wk_store_close(w, false, false);
        if (write(ready[1], "r", 1) != 1)
            _exit(3);
        pause();
        _exit(0);
    }
    char c;
    if (pid < 0 || read(ready[0], &c, 1) != 1)
        die("the process holding the lease did not start");
    kill(pid, SIGKILL);
    double t0 = now_s();
    waitpid(pid, NULL, 0);
    close(ready[0]);
    close(ready[1]);
    wk_store *store = open_store(desc);
    wk_world *w;
    wk_status st;
    int rc;
    while ((rc = wk_store_open(store, "w", false, &w, &st)) == WK_MOVED)
        if (now_s() - t0 > 30)
            die("not taken over in 30 s");
    if (rc)
        die("%s", st.message);
    double t = now_s() - t0;
    wk_store_close(w, false, false);
    wk_store_free(store);
    return t;
}

static figures run(const wk_store_desc *desc)
{
    figures f;
    wk_store *store = open_store(desc);
    wk_status st;
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
    f.create = now_s() - t0;
    if (wk_store_delete(store, "seed", &st))
        die("%s", st.message);

    t0 = now_s();
    for (int i = 0; i < COMMITS; i++) {
        wk_scene *s = open_w(store, &w);
        if (wk_scene_set_pose(s, objects[(i * 37) % OBJECTS], (wk_pose){{i, 1, 0}, {1, 0, 0, 0}}, &st))
            die("%s", st.message);
        commit(w);
    }
    f.pose = (now_s() - t0) / COMMITS;
    t0 = now_s();
    for (int i = 0; i < COMMITS; i++) {
        wk_scene *s = open_w(store, &w);
        object(s, "n", i);
        commit(w);
    }
    f.object = (now_s() - t0) / COMMITS;

    wk_store_free(store);
    store = open_store(desc);
    t0 = now_s();
    if (wk_store_compact(store, "w", &st))
        die("%s", st.message);
    f.compact = now_s() - t0;
    wk_store_free(store);
    /* Opened and the world read: a store on a shared database loads a
     * world when it is first asked for. */
    t0 = now_s();
    store = open_store(desc);
    if (wk_store_open(store, "w", false, &w, &st))
        die("%s", st.message);
    wk_store_close(w, false, false);
    f.open = now_s() - t0;
    wk_store_free(store);
    free(objects);
    return f;
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *url = getenv("WK_TEST_PG_URL");
    if (!url || !*url) {
        /* A PostgreSQL server of our own: run again beside one. */
        execlp("sh", "sh", WK_WITH_POSTGRES, argv[0], (char *)NULL);
        die("cannot run %s", WK_WITH_POSTGRES);
    }
    char dir[] = "/tmp/wk_bench_persist_XXXXXX";
    if (!mkdtemp(dir))
        die("no temporary folder");
    figures lite = run(&(wk_store_desc){.dir = dir, .compact_entries = 100000});
    print("persist", &lite);
    nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    wk_store_desc pg_desc = {.url = url, .compact_entries = 100000, .lease_ms = 1000};
    figures pg = run(&pg_desc);
    print("persist_pg", &pg);
    printf("bench persist_pg.commit_pose_vs_sqlite %.2f x\n", pg.pose / lite.pose);
    printf("bench persist_pg.commit_object_vs_sqlite %.2f x\n", pg.object / lite.object);
    printf("bench persist_pg.open_10k_vs_sqlite %.2f x\n", pg.open / lite.open);
    printf("bench persist_pg.takeover_10k %.0f ms\n", takeover(&pg_desc) * 1e3);
    return 0;
}
