/* test_persist.c — the store on disk: every world back exactly after a
 * reopen (state, ids, metadata, structure hash, order of objects and
 * frames), journal replay over many commits, compaction inline, explicit
 * and in the background, a failed write that leaves memory and disk as they
 * were, crashes at random moments (SIGKILL) that lose nothing acknowledged
 * and tear no batch, and clear errors for directories and files that cannot
 * serve.
 *
 * Run with WK_TEST_PG_URL set (tests/store/with_postgres.sh does), the same
 * cases run on the PostgreSQL backend: each store is a schema of its own in
 * that database instead of a temporary folder, and the cases that break
 * SQLite's file on purpose break PostgreSQL's tables instead. */
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scene/object_world.h"
#include "store/pg_server.h"
#include "store/store_internal.h"
#include "worldkit/wk_store.h"

/* ---- helpers ------------------------------------------------------------ */

/* Where a store is: a folder, or a PostgreSQL URL naming a schema. */
#define PLACE_MAX 1024

/* A new place for a store: a temporary folder, or (with a PostgreSQL
 * server, pg_server.h) a new schema. */
static bool temp_dir(char *buf)
{
    if (pg_url())
        return pg_new_schema(buf, PLACE_MAX);
    strcpy(buf, "/tmp/wk_persist_XXXXXX");
    return mkdtemp(buf) != NULL;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_dir(const char *dir)
{
    if (pg_url())
        pg_drop_schema(dir);
    else
        nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void sleep_ms(long ms)
{
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000}, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs sql on dir's database with a connection of the test's own (the
 * store must be closed: it holds SQLite's file exclusively); returns the
 * first column of the first row, or -1. */
static long long sql_value(const char *dir, const char *sql)
{
    if (pg_url())
        return pg_value(dir, sql);
    char path[512];
    snprintf(path, sizeof path, "%s/worlds.db", dir);
    sqlite3 *db;
    long long v = -1;
    if (sqlite3_open(path, &db) == SQLITE_OK) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
            int rc = sqlite3_step(s);
            v = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : rc == SQLITE_DONE ? 0 : -1;
            sqlite3_finalize(s);
        }
    }
    sqlite3_close(db);
    return v;
}

static wk_store *open_store(const char *dir, uint32_t compact_entries, bool inline_)
{
    wk_store *store = NULL;
    wk_status st;
    if (wk_store_open_desc(&(wk_store_desc){.dir = pg_url() ? NULL : dir, .url = pg_url() ? dir : NULL,
                                            .compact_entries = compact_entries, .compact_inline = inline_,
                                            .lease_ms = 1000},
                           &store, &st))
        fprintf(stderr, "open %s: %s\n", dir, st.message);
    return store;
}

/* A store in a new temporary folder (its name written to dir) holding an
 * empty world id. */
static wk_store *fresh_store(char *dir, const char *id, uint32_t compact_entries, bool inline_)
{
    if (!temp_dir(dir))
        return NULL;
    wk_store *store = open_store(dir, compact_entries, inline_);
    char out[WK_WORLD_ID_MAX];
    wk_status st;
    if (store && wk_store_create(store, &(wk_world_create_desc){.id = id}, out, &st)) {
        fprintf(stderr, "create %s: %s\n", id, st.message);
        wk_store_free(store);
        return NULL;
    }
    return store;
}

static wk_scene *open_w(wk_store *store, const char *id, wk_world **w)
{
    wk_status st;
    int rc;
    /* On PostgreSQL, a world a killed child held is taken once its lease
     * (1 s) is over. */
    for (int tries = 0; (rc = wk_store_open(store, id, true, w, &st)) == WK_MOVED && tries < 60; tries++)
        sleep_ms(50);
    if (rc) {
        fprintf(stderr, "open %s: %s\n", id, st.message);
        return NULL;
    }
    return wk_world_scene(*w);
}

/* Commits and closes; the commit's result. */
static int done(wk_world *w, bool structural)
{
    wk_status st;
    int rc = wk_store_commit(w, structural, &st);
    if (rc)
        fprintf(stderr, "commit %s: %s\n", wk_world_id(w), st.message);
    wk_store_close(w, false, false);
    return rc;
}

/* Adds an object under the root of world id in a commit of its own. */
static wk_entity add_object(wk_store *store, const char *id, const char *name, wk_pose pose)
{
    wk_world *w;
    wk_scene *s = open_w(store, id, &w);
    if (!s)
        return WK_NULL_ENTITY;
    wk_entity e = object_at(s, name, 0, pose);
    return done(w, true) ? WK_NULL_ENTITY : e;
}

/* What a store holds, to compare with what comes back. */
typedef struct world_copy {
    wk_world_meta meta;
    wk_scene *scene; /* a clone */
} world_copy;

typedef struct store_copy {
    world_copy *worlds;
    size_t count;
} store_copy;

static bool copy_store(wk_store *store, store_copy *out)
{
    wk_world_meta *metas;
    size_t n;
    if (wk_store_list(store, &metas, &n))
        return false;
    out->worlds = calloc(n + 1, sizeof *out->worlds);
    out->count = n;
    for (size_t i = 0; i < n; i++) {
        out->worlds[i].meta = metas[i];
        wk_world *w;
        wk_status st;
        wk_store_meta(store, metas[i].id, &out->worlds[i].meta, &st);
        if (wk_store_open(store, metas[i].id, false, &w, &st) == WK_OK) {
            out->worlds[i].scene = wk_scene_clone(wk_world_scene(w));
            wk_store_close(w, false, false);
        }
    }
    free(metas);
    return true;
}

static void copy_free(store_copy *c)
{
    for (size_t i = 0; i < c->count; i++)
        wk_scene_free(c->worlds[i].scene);
    free(c->worlds);
    *c = (store_copy){0};
}

/* The ids of lists of the same kind, in order. */
static void check_same_ids(const wk_scene *a, const wk_entity_list *la, const wk_scene *b,
                           const wk_entity_list *lb, bool frames)
{
    if (!CHECK_INT(la->count, ==, lb->count))
        return;
    for (size_t i = 0; i < la->count; i++) {
        char ia[WK_ID_MAX], ib[WK_ID_MAX];
        (frames ? wk_scene_frame_id : wk_scene_object_id)(a, la->items[i], ia);
        (frames ? wk_scene_frame_id : wk_scene_object_id)(b, lb->items[i], ib);
        CHECK_STR(ia, ib);
        CHECK_POSE_NEAR(wk_scene_pose(a, la->items[i]), wk_scene_pose(b, lb->items[i]), 1e-12);
    }
}

static void check_same_world(const world_copy *before, wk_scene *after)
{
    wk_status why = {0};
    bool equal = wk_ecm_equal(wk_scene_ecm(before->scene), wk_scene_ecm(after), &why);
    if (!equal)
        fprintf(stderr, "world %s differs: %s\n", before->meta.id, why.message);
    CHECK(equal);
    wk_entity_list oa = {0}, ob = {0};
    REQUIRE_INT(wk_scene_objects(before->scene, &oa), ==, WK_OK);
    REQUIRE_INT(wk_scene_objects(after, &ob), ==, WK_OK);
    check_same_ids(before->scene, &oa, after, &ob, false);
    for (size_t i = 0; i < oa.count && i < ob.count; i++) {
        wk_entity_list fa = {0}, fb = {0}, ea = {0}, eb = {0};
        CHECK_INT(wk_scene_object_frames(before->scene, oa.items[i], &fa), ==, WK_OK);
        CHECK_INT(wk_scene_object_frames(after, ob.items[i], &fb), ==, WK_OK);
        check_same_ids(before->scene, &fa, after, &fb, true);
        CHECK_INT(wk_scene_object_entities(before->scene, oa.items[i], &ea), ==, WK_OK);
        CHECK_INT(wk_scene_object_entities(after, ob.items[i], &eb), ==, WK_OK);
        CHECK_INT(ea.count, ==, eb.count);
        for (size_t k = 0; k < ea.count && k < eb.count; k++)
            CHECK_U64(ea.items[k], ==, eb.items[k]);
        wk_entity_list_free(&fa);
        wk_entity_list_free(&fb);
        wk_entity_list_free(&ea);
        wk_entity_list_free(&eb);
    }
    wk_entity_list_free(&oa);
    wk_entity_list_free(&ob);
}

static void check_same(const store_copy *before, wk_store *after)
{
    wk_world_meta *metas;
    size_t n;
    REQUIRE_INT(wk_store_list(after, &metas, &n), ==, WK_OK);
    CHECK_INT(n, ==, before->count);
    for (size_t i = 0; i < n && i < before->count; i++) {
        const wk_world_meta *a = &before->worlds[i].meta, *b = &metas[i];
        CHECK_STR(b->id, a->id);
        CHECK_INT(b->has_user_tag, ==, a->has_user_tag);
        CHECK(strcmp(b->user_tag, a->user_tag) == 0);
        CHECK_INT(b->last_update_ns, ==, a->last_update_ns);
        /* Asked of the world itself: a listing of a shared database hashes
         * only the worlds this server has loaded. */
        wk_world_meta hashed;
        wk_status st;
        if (CHECK_INT(wk_store_meta(after, a->id, &hashed, &st), ==, WK_OK))
            CHECK_STR(hashed.structure_hash, a->structure_hash);
        wk_world *w;
        if (CHECK_INT(wk_store_open(after, a->id, false, &w, &st), ==, WK_OK)) {
            check_same_world(&before->worlds[i], wk_world_scene(w));
            wk_store_close(w, false, false);
        }
    }
    free(metas);
}

/* Closes the store, reopens it and checks that everything came back. */
static wk_store *reopen_same(wk_store *store, const char *dir, uint32_t compact_entries, bool inline_)
{
    store_copy before = {0};
    CHECK(copy_store(store, &before));
    wk_store_free(store);
    store = open_store(dir, compact_entries, inline_);
    if (CHECK(store != NULL))
        check_same(&before, store);
    copy_free(&before);
    return store;
}

/* ---- a world that uses every kind of change ----------------------------- */

static const wk_joint_desc arm_joints[] = {
    {.name = "shoulder", .link = "upper", .parent = -1, .motion = WK_JOINT_MOTION_REVOLUTE,
     .parent_t_inboard = {{0, 0, 0.1}, {1, 0, 0, 0}}, .limits = {.min_position = -3.2, .max_position = 3.2}},
    {.name = "elbow", .link = "forearm", .parent = 0, .motion = WK_JOINT_MOTION_REVOLUTE, .axis = {0, 1, 0},
     .parent_t_inboard = {{0, 0, 0.5}, {1, 0, 0, 0}}, .limits = {.min_position = -2, .max_position = 2}},
};

/* Each step is one write session, committed. */
static void build_cell(wk_store *store, const char *id)
{
    wk_world *w;
    wk_scene *s;
    wk_status st;
    wk_entity box, table, cup, junk, arm, grip;
    wk_scene_geometry cube = {.type = WK_GEOMETRY_BOX, .size = {0.1, 0.2, 0.3}};

    REQUIRE(s = open_w(store, id, &w));
    box = WK_NULL_ENTITY;
    CHECK_INT(wk_scene_create_object(s, &(wk_object_desc){.name = "box", .pose = at(1, 0, 0, 0, 0, 0.5),
                                                          .geometry = &cube},
                                     &box, &st),
              ==, WK_OK);
    table = object_at(s, "table", 0, at(0, 2, 0, 0, 0, 0));
    cup = object_at(s, "cup", table, at(0, 0, 0.8, 0, 0, 0));
    junk = object_at(s, "junk", 0, at(5, 5, 5, 0, 0, 0));
    grip = frame_at(s, "grip", cup, at(0, 0, 0.1, 0, 0, 0));
    CHECK(box && table && cup && junk && grip);
    REQUIRE_INT(done(w, true), ==, WK_OK);

    REQUIRE(s = open_w(store, id, &w));
    CHECK_INT(wk_scene_set_pose(s, box, at(1, 1, 0, 0.1, 0, 0.5), &st), ==, WK_OK);
    CHECK_INT(wk_scene_rename(s, table, "bench", false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_set_attachment_frame(s, grip, true, &st), ==, WK_OK);
    REQUIRE_INT(done(w, true), ==, WK_OK);

    REQUIRE(s = open_w(store, id, &w));
    CHECK_INT(wk_scene_delete_object(s, junk, false, &st), ==, WK_OK);
    CHECK_INT(wk_scene_reparent(s, cup, box, &st), ==, WK_OK);
    REQUIRE_INT(done(w, true), ==, WK_OK);

    REQUIRE(s = open_w(store, id, &w));
    wk_user_datum data[] = {{.key = "color", .type_url = "type.googleapis.com/x.Color", .value = (const uint8_t *)"\x08\x01",
                             .value_len = 2},
                            {.key = "owner", .value = (const uint8_t *)"me", .value_len = 2}};
    CHECK_INT(wk_scene_update_user_data(s, box, data, 2, WK_USER_DATA_INSERT, &st), ==, WK_OK);
    wk_collision_ref left = {box, true}, right = {cup, true};
    wk_collision_rule rule = {.left = &left, .left_count = 1, .right = &right, .right_count = 1,
                              .action = WK_COLLISION_EXCLUDE};
    CHECK_INT(wk_scene_set_collision_settings(s, &(wk_collision_settings){.has_minimum_margin = true,
                                                                          .minimum_margin = 0.01,
                                                                          .rules = &rule,
                                                                          .rule_count = 1},
                                              &st),
              ==, WK_OK);
    const char *tags[] = {"red", "fragile"};
    CHECK_INT(wk_scene_set_entity_info(s, box, &(wk_entity_info){.category = WK_CATEGORY_STATIC_OBJECT,
                                                                 .description = "a box", .tag_count = 2,
                                                                 .tags = tags},
                                       &st),
              ==, WK_OK);
    CHECK_INT(wk_scene_set_simulation(s, box, &(wk_simulation_component){.is_static = true}, &st), ==, WK_OK);
    REQUIRE_INT(done(w, true), ==, WK_OK);

    REQUIRE(s = open_w(store, id, &w));
    arm = WK_NULL_ENTITY;
    CHECK_INT(wk_scene_create_kinematic_object(s, &(wk_kinematic_object_desc){.name = "arm", .pose = at(0, -1, 0, 0, 0, 0),
                                                                              .joints = arm_joints, .joint_count = 2},
                                               &arm, &st),
              ==, WK_OK);
    REQUIRE_INT(done(w, true), ==, WK_OK);

    REQUIRE(s = open_w(store, id, &w));
    const char *names[] = {"shoulder", "elbow"};
    CHECK_INT(wk_scene_set_joint_positions(s, arm, names, (double[]){0.5, -0.75}, 2, &st), ==, WK_OK);
    REQUIRE_INT(done(w, false), ==, WK_OK);

    REQUIRE(s = open_w(store, id, &w));
    CHECK_INT(wk_scene_update_joint_configurations(s, arm, NULL, 0,
                                                   &(wk_joint_configuration_desc){.name = "home",
                                                                                  .positions = (double[]){0, 0.5},
                                                                                  .count = 2},
                                                   1, &st),
              ==, WK_OK);
    CHECK_INT(wk_scene_set_joint_limits(s, arm, names + 1, 1, NULL,
                                        &(wk_joint_limits_update){.max_position = (double[]){1.5}}, &st),
              ==, WK_OK);
    REQUIRE_INT(done(w, true), ==, WK_OK);
}

static void every_change_comes_back(void)
{
    char dir[PLACE_MAX];
    REQUIRE(temp_dir(dir));
    wk_store *store = open_store(dir, 0, false);
    REQUIRE(store);
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "cell", .user_tag = "v1"}, id, &st), ==, WK_OK);
    build_cell(store, "cell");
    wk_world_desc *desc = NULL;
    REQUIRE_INT(wk_desc_read(&(wk_read_desc){.uri = WK_TEST_WORLDS "/nested.sdf"}, &desc, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "nested", .file = desc}, id, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_clone(store, "cell", "cell_copy", false, "c", id, &st), ==, WK_OK);
    wk_world *w;
    wk_scene *s;
    CHECK(add_object(store, "cell", "only_in_cell", at(0, 0, 3, 0, 0, 0)));
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "gone"}, id, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "a", .user_tag = "ta"}, id, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "b"}, id, &st), ==, WK_OK);
    CHECK(add_object(store, "a", "only_in_a", at(0, 0, 1, 0, 0, 0)));
    CHECK_INT(wk_store_delete(store, "gone", &st), ==, WK_OK);
    CHECK_INT(wk_store_swap(store, "a", "b", &st), ==, WK_OK);
    /* b holds what a held; c a copy of it; a clone over b replaces its
     * rows; then a and c exchange contents: a holds only_in_a again. */
    REQUIRE_INT(wk_store_clone(store, "b", "c", false, NULL, id, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_clone(store, "nested", "b", true, NULL, id, &st), ==, WK_OK);
    CHECK_INT(wk_store_swap(store, "a", "c", &st), ==, WK_OK);
    CHECK(add_object(store, "a", "after_swap", at(0, 0, 1, 0, 0, 0)));

    store = reopen_same(store, dir, 0, false);
    REQUIRE(store);
    wk_world_meta meta;
    REQUIRE_INT(wk_store_meta(store, "a", &meta, &st), ==, WK_OK);
    CHECK(strcmp(meta.user_tag, "ta") == 0);
    REQUIRE(s = open_w(store, "a", &w));
    CHECK(find_object(s, "only_in_a") != WK_NULL_ENTITY);
    /* New objects after a reload take ids no live entity has. */
    wk_entity fresh = object_at(s, "fresh", find_object(s, "only_in_a"), at(0, 0, 1, 0, 0, 0));
    CHECK(fresh != WK_NULL_ENTITY);
    REQUIRE_INT(done(w, true), ==, WK_OK);
    REQUIRE(s = open_w(store, "cell", &w));
    CHECK_INT(wk_scene_set_pose(s, find_object(s, "box"), at(2, 2, 2, 0, 0, 0), &st), ==, WK_OK);
    REQUIRE_INT(done(w, false), ==, WK_OK);
    store = reopen_same(store, dir, 0, false);
    wk_store_free(store);
    remove_dir(dir);
}

/* ---- journal, compaction ------------------------------------------------ */

/* Commit i of a run of many: new objects, poses, deletions, renames. */
static int step(wk_store *store, const char *id, int i)
{
    wk_world *w;
    wk_scene *s = open_w(store, id, &w);
    if (!s)
        return WK_NOT_FOUND;
    char name[32];
    wk_status st;
    int rc = WK_OK;
    bool structural = true;
    if (i % 4 == 3) {
        snprintf(name, sizeof name, "o%d", i - 1);
        rc = wk_scene_set_pose(s, find_object(s, name), at(i, 0, 1, 0, 0, 0.01 * i), &st);
        structural = false;
    } else if (i % 10 == 9) {
        snprintf(name, sizeof name, "o%d", i - 3);
        rc = wk_scene_delete_object(s, find_object(s, name), true, &st);
    } else if (i % 10 == 5) {
        snprintf(name, sizeof name, "o%d", i - 1);
        char to[32];
        snprintf(to, sizeof to, "r%d", i - 1);
        rc = wk_scene_rename(s, find_object(s, name), to, false, &st);
    } else {
        snprintf(name, sizeof name, "o%d", i);
        char parent[32];
        snprintf(parent, sizeof parent, "o%d", i - 2);
        rc = object_at(s, name, find_object(s, parent), at(0.1 * i, 0, 0, 0, 0, 0)) ? WK_OK : WK_INVALID;
    }
    if (rc) {
        fprintf(stderr, "step %d: %s\n", i, st.message);
        wk_store_close(w, false, false);
        return rc;
    }
    return done(w, structural);
}

static void journal_replays_many_commits(void)
{
    char dir[PLACE_MAX];
    wk_store *store = fresh_store(dir, "w", 100000, false);
    REQUIRE(store);
    const int n = 300;
    double t0 = now_s();
    for (int i = 1; i <= n; i++)
        REQUIRE_INT(step(store, "w", i), ==, WK_OK);
    double per = (now_s() - t0) / n;
    printf("bench persist_write_session %.0f us (open, change, commit with fsync, close)\n", per * 1e6);
    /* A write that changes nothing writes nothing. */
    wk_world *w;
    REQUIRE(open_w(store, "w", &w));
    int64_t seq = w->rec.seq;
    CHECK_INT(done(w, true), ==, WK_OK);
    REQUIRE(open_w(store, "w", &w));
    CHECK_INT(w->rec.seq, ==, seq);
    wk_store_close(w, false, false);
    store = reopen_same(store, dir, 100000, false);
    wk_store_free(store);
    CHECK_INT(sql_value(dir, "SELECT count(*) FROM journal"), ==, n);
    CHECK_INT(sql_value(dir, "SELECT max(seq) FROM journal"), ==, n);
    remove_dir(dir);
}

static void compaction_keeps_everything(void)
{
    char dir[PLACE_MAX];
    wk_status st;
    /* At commit time. */
    wk_store *store = fresh_store(dir, "w", 16, true);
    REQUIRE(store);
    for (int i = 1; i <= 100; i++)
        REQUIRE_INT(step(store, "w", i), ==, WK_OK);
    store = reopen_same(store, dir, 16, true);
    REQUIRE(store);
    wk_store_free(store);
    long long rows = sql_value(dir, "SELECT count(*) FROM journal");
    CHECK_INT(rows, <=, 16);
    CHECK_INT(rows, >=, 0);
    CHECK_INT(sql_value(dir, "SELECT s.seq FROM snapshots s JOIN worlds w USING (wid) WHERE w.id = 'w'") + rows, ==, 100);

    /* In the background, then on request. */
    store = open_store(dir, 16, false);
    REQUIRE(store);
    for (int i = 101; i <= 200; i++)
        REQUIRE_INT(step(store, "w", i), ==, WK_OK);
    for (int tries = 0; tries < 100; tries++) {
        wk_world *w;
        REQUIRE(open_w(store, "w", &w));
        bool folded = w->rec.journal_count <= 16;
        wk_store_close(w, false, false);
        if (folded)
            break;
        sleep_ms(20);
    }
    store = reopen_same(store, dir, 16, false);
    REQUIRE(store);
    for (int i = 201; i <= 205; i++)
        REQUIRE_INT(step(store, "w", i), ==, WK_OK);
    CHECK_INT(wk_store_compact(store, "w", &st), ==, WK_OK);
    store = reopen_same(store, dir, 16, false);
    wk_store_free(store);
    CHECK_INT(sql_value(dir, "SELECT count(*) FROM journal"), ==, 0);
    CHECK_INT(sql_value(dir, "SELECT s.seq FROM snapshots s JOIN worlds w USING (wid) WHERE w.id = 'w'"), ==, 205);
    remove_dir(dir);
}

/* The ids of a deleted object's entities are never handed out again, also
 * after a reopen that loads the deletion from a snapshot (compaction folded
 * it in, or the world is a clone made after it) instead of replaying it from
 * the journal: a client holding such an id must not reach a new object. */
static void deleted_ids_stay_used(void)
{
    char dir[PLACE_MAX];
    wk_status st;
    wk_store *store = fresh_store(dir, "w", 100000, false);
    REQUIRE(store);
    wk_entity gone = add_object(store, "w", "gone", at(1, 0, 0, 0, 0, 0));
    REQUIRE(gone && add_object(store, "w", "kept", at(2, 0, 0, 0, 0, 0)));
    wk_world *w;
    wk_scene *s;
    REQUIRE(s = open_w(store, "w", &w));
    wk_entity_list used = {0};
    REQUIRE_INT(wk_ecm_descendants(wk_scene_ecm(s), gone, &used), ==, WK_OK);
    REQUIRE_INT(wk_scene_delete_object(s, gone, false, &st), ==, WK_OK);
    REQUIRE_INT(done(w, true), ==, WK_OK);
    char id[WK_WORLD_ID_MAX];
    REQUIRE_INT(wk_store_clone(store, "w", "clone", false, NULL, id, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_compact(store, "w", &st), ==, WK_OK);
    wk_store_free(store);

    REQUIRE(store = open_store(dir, 100000, false));
    const char *const worlds[] = {"w", "clone"};
    for (int k = 0; k < 2; k++) {
        wk_entity made = add_object(store, worlds[k], "new", at(3, 0, 0, 0, 0, 0));
        REQUIRE(made != WK_NULL_ENTITY);
        REQUIRE(s = open_w(store, worlds[k], &w));
        wk_entity_list fresh = {0};
        REQUIRE_INT(wk_ecm_descendants(wk_scene_ecm(s), made, &fresh), ==, WK_OK);
        wk_store_close(w, false, false);
        for (size_t i = 0; i < fresh.count; i++)
            for (size_t j = 0; j < used.count; j++)
                if (!CHECK(fresh.items[i] != used.items[j]))
                    fprintf(stderr, "    world %s: entity %llu of the new object is one the deleted one had\n",
                            worlds[k], (unsigned long long)fresh.items[i]);
        wk_entity_list_free(&fresh);
    }
    wk_entity_list_free(&used);
    wk_store_free(store);
    remove_dir(dir);
}

/* A taken id's suffixes count on across a reopen (SQLite's store counts
 * itself and skips the ids it loaded; PostgreSQL's counter is a row of
 * id_suffixes), stay within 100 bytes, and skip an id a client gave. */
static void taken_ids_count_on_after_reopen(void)
{
    char dir[PLACE_MAX], id[WK_WORLD_ID_MAX], longest[101], want[101];
    memset(longest, 'w', 100);
    longest[100] = '\0';
    wk_status st;
    wk_store *store = fresh_store(dir, "w", 0, false);
    REQUIRE(store);
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "w"}, id, &st), ==, WK_OK);
    CHECK_STR(id, "w_1");
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = longest}, id, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = longest}, id, &st), ==, WK_OK);
    snprintf(want, sizeof want, "%.98s_1", longest);
    CHECK_STR(id, want);
    wk_store_free(store);

    REQUIRE(store = open_store(dir, 0, false));
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "w"}, id, &st), ==, WK_OK);
    CHECK_STR(id, "w_2");
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "w_3"}, id, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_clone(store, "w", NULL, false, NULL, id, &st), ==, WK_OK);
    CHECK_STR(id, "w_4");
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = longest}, id, &st), ==, WK_OK);
    snprintf(want, sizeof want, "%.98s_2", longest);
    CHECK_STR(id, want);
    wk_store_free(store);
    CHECK_INT(sql_value(dir, "SELECT count(DISTINCT id) FROM worlds"), ==, 8);
    if (pg_url())
        CHECK_INT(sql_value(dir, "SELECT last FROM id_suffixes WHERE base = 'w'"), ==, 4);
    remove_dir(dir);
}

/* ---- failures ----------------------------------------------------------- */

static void failed_write_changes_nothing(void)
{
    char dir[PLACE_MAX];
    wk_store *store = fresh_store(dir, "w", 0, false);
    REQUIRE(store);
    wk_entity box = add_object(store, "w", "box", at(1, 0, 0, 0, 0, 0));
    REQUIRE(box);
    wk_world *w;
    wk_scene *s;
    wk_status st;
    wk_world_meta before;
    REQUIRE_INT(wk_store_meta(store, "w", &before, &st), ==, WK_OK);
    store_copy copy = {0};
    REQUIRE(copy_store(store, &copy));

    /* The database refuses the next journal entry: SQLite's file may not
     * grow, PostgreSQL's journal takes no large entry. */
    const char *refuse = pg_url() ? "ALTER TABLE journal ADD CONSTRAINT wk_small CHECK (octet_length(state) < 100000)"
                                  : "PRAGMA max_page_count = 1";
    const char *allow = pg_url() ? "ALTER TABLE journal DROP CONSTRAINT wk_small" : "PRAGMA max_page_count = 1073741823";
    REQUIRE_INT(wk__db_exec(store, refuse), ==, WK_OK);
    static uint8_t big[256 * 1024];
    memset(big, 7, sizeof big);
    REQUIRE(s = open_w(store, "w", &w));
    CHECK_INT(wk_scene_update_user_data(s, box, &(wk_user_datum){.key = "blob", .value = big, .value_len = sizeof big},
                                        1, WK_USER_DATA_INSERT, &st),
              ==, WK_OK);
    CHECK_INT(wk_scene_set_pose(s, box, at(9, 9, 9, 0, 0, 0), &st), ==, WK_OK);
    CHECK_INT(wk_store_commit(w, true, &st), ==, WK_IO);
    if (pg_url())
        CHECK(strstr(st.message, "PostgreSQL database") && strstr(st.message, "wk_small"));
    else
        CHECK(strstr(st.message, "worlds.db") && strstr(st.message, "full"));
    /* Memory went back to what the disk holds. */
    check_same_world(&copy.worlds[0], wk_world_scene(w));
    CHECK_INT(wk_scene_user_data(wk_world_scene(w), find_object(wk_world_scene(w), "box")).count, ==, 0);
    wk_store_close(w, false, false);
    wk_world_meta after;
    REQUIRE_INT(wk_store_meta(store, "w", &after, &st), ==, WK_OK);
    CHECK_INT(after.last_update_ns, ==, before.last_update_ns);
    CHECK_STR(after.structure_hash, before.structure_hash);
    REQUIRE_INT(wk__db_exec(store, allow), ==, WK_OK);

    /* A batch rolled back leaves nothing to write; an open one refuses. */
    REQUIRE(s = open_w(store, "w", &w));
    box = find_object(s, "box");
    REQUIRE_INT(wk_scene_batch_begin(s, &st), ==, WK_OK);
    CHECK(object_at(s, "never", 0, at(0, 0, 0, 0, 0, 0)));
    CHECK_INT(wk_store_commit(w, true, &st), ==, WK_BUSY);
    CHECK_INT(wk_scene_batch_rollback(s), ==, WK_OK);
    int64_t seq = w->rec.seq;
    CHECK_INT(wk_store_commit(w, true, &st), ==, WK_OK);
    CHECK_INT(w->rec.seq, ==, seq);
    CHECK_INT(wk_scene_set_pose(s, box, at(2, 0, 0, 0, 0, 0), &st), ==, WK_OK);
    CHECK_INT(wk_store_commit(w, false, &st), ==, WK_OK);
    CHECK_INT(w->rec.seq, ==, seq + 1);
    wk_store_close(w, false, false);
    copy_free(&copy);
    store = reopen_same(store, dir, 0, false);
    wk_store_free(store);
    CHECK_INT(sql_value(dir, "SELECT count(*) FROM journal"), ==, 2);
    CHECK_INT(sql_value(dir, "SELECT count(*) FROM journal WHERE length(state) > 100000"), ==, 0);
    remove_dir(dir);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void exec_sql(const char *path, const char *sql)
{
    sqlite3 *db;
    if (sqlite3_open(path, &db) == SQLITE_OK)
        CHECK_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
    sqlite3_close(db);
}

/* Opens the store in dir/sub (made if missing) after running sql on its
 * database when sql is not NULL; the result, the store closed again. */
static int open_after(const char *dir, const char *sub, const char *sql, wk_status *st)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    mkdir(path, 0777);
    if (sql) {
        char file[300];
        snprintf(file, sizeof file, "%s/worlds.db", path);
        exec_sql(file, sql);
    }
    wk_store *store = NULL;
    int rc = wk_store_open_dir(path, &store, st);
    wk_store_free(store);
    return rc;
}

/* Opens the store at url and its world w (worlds load as their leases are
 * taken) after running sql there; the result, the store closed again. */
static int pg_open_after(const char *url, const char *sql, wk_status *st)
{
    if (sql)
        CHECK_INT(pg_value(url, sql), ==, 0);
    wk_store *store = NULL;
    int rc = wk_store_open_desc(&(wk_store_desc){.url = url}, &store, st);
    wk_world *w;
    if (rc == WK_OK && (rc = wk_store_open(store, "w", false, &w, st)) == WK_OK)
        wk_store_close(w, false, false);
    wk_store_free(store);
    return rc;
}

/* PostgreSQL's side of bad_places_and_files: a server that is not there, a
 * schema of someone else's, damaged rows. */
static void bad_databases(void)
{
    wk_store *store = NULL;
    wk_status st;
    CHECK_INT(wk_store_open_desc(&(wk_store_desc){.url = "postgresql:///none?host=/proc/no-such-socket-dir"}, &store,
                                 &st),
              ==, WK_IO);
    CHECK(strstr(st.message, "PostgreSQL") && strstr(st.message, "connecting") && strstr(st.message, "no-such"));
    char place[PLACE_MAX];
    REQUIRE(temp_dir(place));
    CHECK_INT(pg_open_after(place, "CREATE TABLE worlds(text text)", &st), ==, WK_IO);
    CHECK(strstr(st.message, "not a worldkit database"));
    remove_dir(place);

    REQUIRE(temp_dir(place));
    REQUIRE_INT(wk_store_open_desc(&(wk_store_desc){.url = place}, &store, &st), ==, WK_OK);
    char id[WK_WORLD_ID_MAX];
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "w"}, id, &st), ==, WK_OK);
    REQUIRE_INT(step(store, "w", 1), ==, WK_OK);
    wk_store_free(store);
    CHECK_INT(pg_open_after(place, "UPDATE worldkit_schema SET version = 99", &st), ==, WK_IO);
    CHECK(strstr(st.message, "schema version 99"));
    CHECK_INT(pg_value(place, "UPDATE worldkit_schema SET version = 1"), ==, 0);
    CHECK_INT(pg_open_after(place, "UPDATE journal SET state = '\\x0a03ffffff'", &st), ==, WK_IO);
    CHECK(strstr(st.message, "world 'w': journal entry 1 does not apply"));
    CHECK_INT(pg_open_after(place, "DELETE FROM journal; UPDATE snapshots SET state = '\\x12'", &st), ==, WK_IO);
    CHECK(strstr(st.message, "world 'w': the snapshot does not load"));
    remove_dir(place);
}

static void bad_places_and_files(void)
{
    if (pg_url()) {
        bad_databases();
        return;
    }
    char dir[64], path[256]; /* a folder: SQLite only */
    REQUIRE(temp_dir(dir));
    wk_store *store = NULL, *other = NULL;
    wk_status st;
    CHECK_INT(wk_store_open_dir("/proc/worldkit-test/x", &store, &st), ==, WK_IO);
    CHECK(strstr(st.message, "cannot create directory '/proc/worldkit-test/x'"));
    snprintf(path, sizeof path, "%s/file", dir);
    write_file(path, "not a folder");
    CHECK_INT(wk_store_open_dir(path, &store, &st), ==, WK_IO);
    CHECK(strstr(st.message, "is not a directory"));
    CHECK_INT(wk_store_open_dir("", &store, &st), ==, WK_INVALID);
    /* A folder it may not write in; root may write anywhere. */
    snprintf(path, sizeof path, "%s/locked", dir);
    mkdir(path, 0555);
    if (geteuid() != 0) {
        CHECK_INT(wk_store_open_dir(path, &store, &st), ==, WK_IO);
        CHECK(strstr(st.message, "cannot write in directory") && strstr(st.message, "Permission denied"));
    }

    snprintf(path, sizeof path, "%s/junk", dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/junk/worlds.db", dir);
    write_file(path, "SQLite format 2? no: just some bytes that are not a database at all, long enough to matter......");
    snprintf(path, sizeof path, "%s/junk", dir);
    CHECK_INT(wk_store_open_dir(path, &store, &st), ==, WK_IO);
    CHECK(strstr(st.message, "junk/worlds.db") && strstr(st.message, "not a database"));

    CHECK_INT(open_after(dir, "foreign", "CREATE TABLE notes(text)", &st), ==, WK_IO);
    CHECK(strstr(st.message, "not a worldkit database"));

    /* One server per directory. */
    snprintf(path, sizeof path, "%s/good", dir);
    REQUIRE_INT(wk_store_open_dir(path, &store, &st), ==, WK_OK);
    char id[WK_WORLD_ID_MAX];
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "w"}, id, &st), ==, WK_OK);
    REQUIRE_INT(step(store, "w", 1), ==, WK_OK);
    CHECK_INT(wk_store_open_dir(path, &other, &st), ==, WK_IO);
    CHECK(strstr(st.message, "locked"));
    wk_store_free(store);

    /* A damaged journal entry, then a damaged snapshot, name the world. */
    CHECK_INT(open_after(dir, "good", "UPDATE journal SET state = x'0a03ffffff'", &st), ==, WK_IO);
    CHECK(strstr(st.message, "world 'w': journal entry 1 does not apply"));
    CHECK_INT(open_after(dir, "good", "DELETE FROM journal; UPDATE snapshots SET state = x'12'", &st), ==, WK_IO);
    CHECK(strstr(st.message, "world 'w': the snapshot does not load"));
    remove_dir(dir);
}

/* ---- crashes ------------------------------------------------------------ */

/* Op i (from 1) in one commit: creates o<i> at (i, 0, 0), deletes o<i-3>
 * when i is a multiple of 5, and moves the anchor to x = i. So a world
 * after op n holds exactly the objects present(k, n) says, and the anchor
 * says n: a torn batch or a lost acknowledged one shows. */
static bool present(int k, int n)
{
    return k >= 1 && k <= n && !(k % 5 == 2 && k + 3 <= n);
}

static int crash_op(wk_store *store, int i)
{
    wk_world *w;
    wk_scene *s = open_w(store, "crash", &w);
    if (!s)
        return WK_NOT_FOUND;
    char name[32];
    wk_status st;
    int rc = WK_OK;
    if (i % 5 == 0 && i > 3) {
        snprintf(name, sizeof name, "o%d", i - 3);
        rc = wk_scene_delete_object(s, find_object(s, name), false, &st);
    }
    snprintf(name, sizeof name, "o%d", i);
    if (rc == WK_OK && !object_at(s, name, 0, at(i, 0, 0, 0, 0, 0)))
        rc = WK_INVALID;
    if (rc == WK_OK)
        rc = wk_scene_set_pose(s, find_object(s, "anchor"), at(i, 0, 0, 0, 0, 0), &st);
    if (rc) {
        wk_store_close(w, false, false);
        return rc;
    }
    return done(w, true);
}

static void child_run(const char *dir, int first, int fd)
{
    wk_store *store = open_store(dir, 8, false);
    if (!store)
        _exit(2);
    for (int i = first; i < first + 100000; i++) {
        if (crash_op(store, i))
            _exit(3);
        if (write(fd, &i, sizeof i) != sizeof i)
            _exit(4);
    }
    _exit(0);
}

static void crashes_lose_nothing_acknowledged(void)
{
    char dir[PLACE_MAX];
    wk_store *store = fresh_store(dir, "crash", 8, false);
    REQUIRE(store);
    CHECK(add_object(store, "crash", "anchor", at(0, 0, 0, 0, 0, 0)));
    wk_store_free(store);
    wk_world *w;
    wk_scene *s;

    srand((unsigned)time(NULL));
    int n = 0, total_acked = 0;
    for (int round = 0; round < 6; round++) {
        int fds[2];
        REQUIRE(pipe(fds) == 0);
        fflush(NULL);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            child_run(dir, n + 1, fds[1]);
        }
        close(fds[1]);
        sleep_ms(50 + rand() % 400);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        int acked = n, v;
        while (read(fds[0], &v, sizeof v) == sizeof v)
            acked = v;
        close(fds[0]);
        total_acked += acked - n;

        store = open_store(dir, 8, false);
        REQUIRE(store);
        REQUIRE(s = open_w(store, "crash", &w));
        wk_pose anchor = wk_scene_pose(s, find_object(s, "anchor"));
        int got = (int)anchor.p.x;
        /* Every acknowledged op is there; the one under way may be too. */
        CHECK_INT(got, >=, acked);
        CHECK_INT(got, <=, acked + 1);
        wk_entity_list objects = {0};
        CHECK_INT(wk_scene_objects(s, &objects), ==, WK_OK);
        int expected = 0;
        for (int k = 1; k <= got; k++) {
            char name[32];
            snprintf(name, sizeof name, "o%d", k);
            wk_entity e = find_object(s, name);
            if (present(k, got)) {
                expected++;
                if (CHECK(e != WK_NULL_ENTITY))
                    CHECK_NEAR(wk_scene_pose(s, e).p.x, k, 0);
            } else {
                CHECK(e == WK_NULL_ENTITY);
            }
        }
        CHECK_INT(objects.count, ==, expected + 2); /* root and anchor */
        wk_entity_list_free(&objects);
        wk_store_close(w, false, false);
        /* It saves and loads again as it is. */
        store = reopen_same(store, dir, 8, false);
        wk_store_free(store);
        n = got;
    }
    printf("crash: %d acknowledged ops over 6 kills, %d durable at the end\n", total_acked, n);
    CHECK_INT(n, >, 0);
    remove_dir(dir);
}

/* ---- threads ------------------------------------------------------------ */

typedef struct writer {
    wk_store *store;
    const char *world;
    int first, count, failures;
} writer;

static void *write_many(void *arg)
{
    writer *wr = arg;
    for (int i = wr->first; i < wr->first + wr->count; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%d", i);
        if (!add_object(wr->store, wr->world, name, at(i, 0, 0, 0, 0, 0)))
            wr->failures++;
    }
    return NULL;
}

static void *read_many(void *arg)
{
    writer *wr = arg;
    for (int i = 0; i < wr->count; i++) {
        wk_world_meta *metas;
        size_t n;
        if (wk_store_list(wr->store, &metas, &n) == WK_OK)
            free(metas);
        else
            wr->failures++;
    }
    return NULL;
}

/* Writers on two worlds (two on each), a reader of metadata and the
 * compactor at once; then everything comes back. Run under ThreadSanitizer
 * too. */
static void threads_commit_while_compacting(void)
{
    char dir[PLACE_MAX];
    wk_store *store = fresh_store(dir, "one", 8, false);
    REQUIRE(store);
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "two"}, id, &st), ==, WK_OK);
    writer wr[5] = {
        {store, "one", 0, 40, 0}, {store, "one", 1000, 40, 0}, {store, "two", 0, 40, 0},
        {store, "two", 1000, 40, 0}, {store, NULL, 0, 200, 0},
    };
    pthread_t threads[5];
    for (int i = 0; i < 5; i++)
        REQUIRE(pthread_create(&threads[i], NULL, i < 4 ? write_many : read_many, &wr[i]) == 0);
    for (int i = 0; i < 5; i++) {
        pthread_join(threads[i], NULL);
        CHECK_INT(wr[i].failures, ==, 0);
    }
    store = reopen_same(store, dir, 8, false);
    REQUIRE(store);
    wk_world *w;
    REQUIRE_INT(wk_store_open(store, "two", false, &w, &st), ==, WK_OK);
    wk_entity_list objects = {0};
    CHECK_INT(wk_scene_objects(wk_world_scene(w), &objects), ==, WK_OK);
    CHECK_INT(objects.count, ==, 81);
    wk_entity_list_free(&objects);
    wk_store_close(w, false, false);
    wk_store_free(store);
    remove_dir(dir);
}

/* ---- geometries ---------------------------------------------------------- */

/* The bytes kept under id, compared with want (len bytes). */
static void check_geometry(wk_store *store, const char *id, const uint8_t *want, size_t len)
{
    wk_buf got = {0};
    wk_status st;
    CHECK_INT(wk_store_get_geometry(store, id, &got, &st), ==, WK_OK);
    CHECK_INT(got.len, ==, len);
    CHECK(got.len == len && (len == 0 || !memcmp(got.data, want, len)));
    wk_buf_free(&got);
}

/* What GeometryService registers: kept under its id in the store's own
 * table, back after a reopen, the first bytes of an id kept; a write the
 * database refuses fails and keeps nothing. */
static void geometries_survive_reopen(void)
{
    char dir[PLACE_MAX];
    wk_store *store = fresh_store(dir, "w", 0, false);
    REQUIRE(store);
    static uint8_t mesh[3 * 1024 * 1024]; /* past a page, and past a TOAST chunk */
    for (size_t i = 0; i < sizeof mesh; i++)
        mesh[i] = (uint8_t)(i * 31 + (i >> 12));
    const uint8_t box[] = {0x22, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0x00};
    wk_status st;
    CHECK_INT(wk_store_put_geometry(store, "mesh", mesh, sizeof mesh, &st), ==, WK_OK);
    CHECK_INT(wk_store_put_geometry(store, "box", box, sizeof box, &st), ==, WK_OK);
    CHECK_INT(wk_store_put_geometry(store, "box", mesh, 16, &st), ==, WK_OK);
    wk_buf none = {0};
    CHECK_INT(wk_store_get_geometry(store, "absent", &none, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "'absent'"));
    CHECK_INT(none.len, ==, 0);
    char long_id[WK_GEOMETRY_ID_MAX + 1];
    memset(long_id, 'g', WK_GEOMETRY_ID_MAX);
    long_id[WK_GEOMETRY_ID_MAX] = 0;
    CHECK_INT(wk_store_put_geometry(store, long_id, box, sizeof box, &st), ==, WK_INVALID);

    /* The database refuses the next geometry (PostgreSQL's constraint not
     * checking the rows there). */
    const char *refuse = pg_url() ? "ALTER TABLE geometries ADD CONSTRAINT wk_small CHECK (octet_length(data) < 1000) "
                                    "NOT VALID"
                                  : "PRAGMA max_page_count = 1";
    REQUIRE_INT(wk__db_exec(store, refuse), ==, WK_OK);
    CHECK_INT(wk_store_put_geometry(store, "refused", mesh, 100000, &st), ==, WK_IO);
    CHECK(strstr(st.message, pg_url() ? "wk_small" : "worlds.db"));

    store = reopen_same(store, dir, 0, false);
    REQUIRE(store);
    check_geometry(store, "mesh", mesh, sizeof mesh);
    check_geometry(store, "box", box, sizeof box);
    CHECK_INT(wk_store_get_geometry(store, "refused", &none, &st), ==, WK_NOT_FOUND);
    /* Geometries belong to the store: deleting every world keeps them. */
    CHECK_INT(wk_store_delete(store, "w", &st), ==, WK_OK);
    store = reopen_same(store, dir, 0, false);
    REQUIRE(store);
    check_geometry(store, "box", box, sizeof box);
    wk_store_free(store);
    CHECK_INT(sql_value(dir, "SELECT count(*) FROM geometries"), ==, 2);
    remove_dir(dir);

    /* In memory: the same calls, nothing on disk. */
    store = wk_store_new();
    REQUIRE(store);
    CHECK_INT(wk_store_put_geometry(store, "box", box, sizeof box, &st), ==, WK_OK);
    CHECK_INT(wk_store_put_geometry(store, "box", mesh, 16, &st), ==, WK_OK);
    check_geometry(store, "box", box, sizeof box);
    CHECK_INT(wk_store_get_geometry(store, "mesh", &none, &st), ==, WK_NOT_FOUND);
    wk_store_free(store);
}

/* ---- in memory ---------------------------------------------------------- */

static void memory_store_commits_too(void)
{
    wk_store *store = wk_store_new();
    REQUIRE(store);
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "w"}, id, &st), ==, WK_OK);
    wk_world_meta m0, m1;
    REQUIRE_INT(wk_store_meta(store, "w", &m0, &st), ==, WK_OK);
    for (int i = 1; i <= 20; i++)
        REQUIRE_INT(step(store, "w", i), ==, WK_OK);
    REQUIRE_INT(wk_store_meta(store, "w", &m1, &st), ==, WK_OK);
    CHECK(m1.last_update_ns >= m0.last_update_ns);
    CHECK(strcmp(m0.structure_hash, m1.structure_hash) != 0);
    CHECK_INT(wk_store_compact(store, "w", &st), ==, WK_OK);
    wk_world *w;
    REQUIRE_INT(wk_store_open(store, "w", false, &w, &st), ==, WK_OK);
    CHECK_INT(wk_store_commit(w, true, &st), ==, WK_INVALID);
    wk_store_close(w, false, false);
    wk_store_free(store);
}

static const wk_test_case cases[] = {
    {"taken_ids_count_on_after_reopen", taken_ids_count_on_after_reopen},
    {"every_change_comes_back", every_change_comes_back},
    {"journal_replays_many_commits", journal_replays_many_commits},
    {"compaction_keeps_everything", compaction_keeps_everything},
    {"deleted_ids_stay_used", deleted_ids_stay_used},
    {"failed_write_changes_nothing", failed_write_changes_nothing},
    {"bad_places_and_files", bad_places_and_files},
    {"crashes_lose_nothing_acknowledged", crashes_lose_nothing_acknowledged},
    {"threads_commit_while_compacting", threads_commit_while_compacting},
    {"memory_store_commits_too", memory_store_commits_too},
    {"geometries_survive_reopen", geometries_survive_reopen},
};
WK_TEST_MAIN(cases)
