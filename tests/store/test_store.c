/* test_store.c — the set of worlds: creating (empty and from a file) with
 * ids picked as CreateWorld says (within 100 bytes), listing, metadata and
 * the structure hash, cloning with and without overwrite, deleting while
 * open, swapping, the bound on a world's entities, and the geometries a
 * store without a database keeps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/object_world.h"
#include "worldkit/wk_store.h"

static wk_entity add_object(wk_store *store, const char *world, const char *name)
{
    wk_world *w;
    wk_status st;
    if (wk_store_open(store, world, true, &w, &st))
        return WK_NULL_ENTITY;
    wk_entity e = object_at(wk_world_scene(w), name, 0, wk_pose_identity());
    wk_store_close(w, e != WK_NULL_ENTITY, true);
    return e;
}

static void create_and_list(void)
{
    wk_store *store = wk_store_new();
    REQUIRE(store);
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    CHECK_INT(wk_store_create(store, &(wk_world_create_desc){0}, id, &st), ==, WK_OK);
    CHECK_STR(id, "World_1");
    CHECK_INT(wk_store_create(store, &(wk_world_create_desc){.id = "cell", .user_tag = "v1"}, id, &st), ==, WK_OK);
    CHECK_STR(id, "cell");
    CHECK_INT(wk_store_create(store, &(wk_world_create_desc){.id = "cell"}, id, &st), ==, WK_OK);
    CHECK_STR(id, "cell_1");
    CHECK_INT(wk_store_create(store, &(wk_world_create_desc){.id = "no/slash"}, id, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "no/slash") != NULL);

    wk_world_meta *metas = NULL;
    size_t n = 0;
    REQUIRE_INT(wk_store_list(store, &metas, &n), ==, WK_OK);
    REQUIRE_INT(n, ==, 3);
    CHECK_STR(metas[0].id, "World_1");
    CHECK_STR(metas[1].id, "cell");
    CHECK(metas[1].has_user_tag);
    CHECK_STR(metas[1].user_tag, "v1");
    CHECK(!metas[2].has_user_tag);
    CHECK_INT(strlen(metas[0].structure_hash), ==, 16);
    /* Empty worlds have the same structure. */
    CHECK_STR(metas[0].structure_hash, metas[2].structure_hash);
    free(metas);

    wk_world *w;
    CHECK_INT(wk_store_open(store, "nope", false, &w, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "nope") != NULL);
    wk_store_free(store);
}

static void create_from_a_file(void)
{
    wk_store *store = wk_store_new();
    REQUIRE(store);
    wk_world_desc *desc = NULL;
    wk_status st;
    REQUIRE_INT(wk_desc_read(&(wk_read_desc){.uri = WK_TEST_WORLDS "/nested.sdf"}, &desc, &st), ==, WK_OK);
    char id[WK_WORLD_ID_MAX];
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "nested", .file = desc}, id, &st), ==, WK_OK);
    wk_world *w;
    REQUIRE_INT(wk_store_open(store, "nested", false, &w, &st), ==, WK_OK);
    CHECK(find_object(wk_world_scene(w), "gripper") != WK_NULL_ENTITY);
    CHECK_STR(wk_world_id(w), "nested");
    wk_store_close(w, false, false);
    wk_store_free(store);
}

static void structure_hash_ignores_poses(void)
{
    wk_store *store = wk_store_new();
    REQUIRE(store);
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "w"}, id, &st), ==, WK_OK);
    wk_world_meta m0, m1, m2, m3;
    REQUIRE_INT(wk_store_meta(store, "w", &m0, &st), ==, WK_OK);
    wk_entity box = add_object(store, "w", "box");
    REQUIRE(box);
    REQUIRE_INT(wk_store_meta(store, "w", &m1, &st), ==, WK_OK);
    CHECK(strcmp(m0.structure_hash, m1.structure_hash) != 0);
    CHECK(m1.last_update_ns >= m0.last_update_ns);
    wk_world *w;
    REQUIRE_INT(wk_store_open(store, "w", true, &w, &st), ==, WK_OK);
    CHECK_INT(wk_scene_set_pose(wk_world_scene(w), box, at(1, 2, 3, 0, 0, 1), &st), ==, WK_OK);
    wk_store_close(w, true, false);
    REQUIRE_INT(wk_store_meta(store, "w", &m2, &st), ==, WK_OK);
    CHECK_STR(m2.structure_hash, m1.structure_hash);
    CHECK(m2.last_update_ns >= m1.last_update_ns);
    REQUIRE_INT(wk_store_open(store, "w", true, &w, &st), ==, WK_OK);
    CHECK_INT(wk_scene_rename(wk_world_scene(w), box, "crate", false, &st), ==, WK_OK);
    wk_store_close(w, true, true);
    REQUIRE_INT(wk_store_meta(store, "w", &m3, &st), ==, WK_OK);
    CHECK(strcmp(m3.structure_hash, m2.structure_hash) != 0);
    wk_store_free(store);
}

static void clone_and_overwrite(void)
{
    wk_store *store = wk_store_new();
    REQUIRE(store);
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "base", .user_tag = "t"}, id, &st), ==, WK_OK);
    wk_entity box = add_object(store, "base", "box");
    REQUIRE(box);
    CHECK_INT(wk_store_clone(store, "base", NULL, false, NULL, id, &st), ==, WK_OK);
    CHECK_STR(id, "base_1");
    wk_world_meta a, b;
    REQUIRE_INT(wk_store_meta(store, "base", &a, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_meta(store, "base_1", &b, &st), ==, WK_OK);
    CHECK_STR(a.structure_hash, b.structure_hash);
    CHECK_STR(b.user_tag, "t");
    /* The clone keeps ids and is independent. */
    wk_world *w;
    REQUIRE_INT(wk_store_open(store, "base_1", true, &w, &st), ==, WK_OK);
    char oid[WK_ID_MAX];
    wk_scene_object_id(wk_world_scene(w), box, oid);
    wk_entity e;
    CHECK_INT(wk_scene_find_object(wk_world_scene(w), &(wk_ref){.id = oid}, &e, &st), ==, WK_OK);
    CHECK_INT(wk_scene_delete_object(wk_world_scene(w), e, false, &st), ==, WK_OK);
    wk_store_close(w, true, true);
    REQUIRE_INT(wk_store_open(store, "base", false, &w, &st), ==, WK_OK);
    CHECK(find_object(wk_world_scene(w), "box") == box);
    wk_store_close(w, false, false);

    CHECK_INT(wk_store_clone(store, "base", "base_1", false, "x", id, &st), ==, WK_EXISTS);
    CHECK_INT(wk_store_clone(store, "base", "base_1", true, "x", id, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_meta(store, "base_1", &b, &st), ==, WK_OK);
    CHECK_STR(b.user_tag, "x");
    CHECK_STR(a.structure_hash, b.structure_hash);
    CHECK_INT(wk_store_clone(store, "missing", NULL, false, NULL, id, &st), ==, WK_NOT_FOUND);
    wk_store_free(store);
}

static void delete_while_open_and_swap(void)
{
    wk_store *store = wk_store_new();
    REQUIRE(store);
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "a", .user_tag = "ta"}, id, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "b"}, id, &st), ==, WK_OK);
    REQUIRE(add_object(store, "a", "only_in_a"));
    CHECK_INT(wk_store_swap(store, "a", "b", &st), ==, WK_OK);
    wk_world *w;
    REQUIRE_INT(wk_store_open(store, "b", false, &w, &st), ==, WK_OK);
    CHECK(find_object(wk_world_scene(w), "only_in_a") != WK_NULL_ENTITY);
    wk_store_close(w, false, false);
    wk_world_meta m;
    REQUIRE_INT(wk_store_meta(store, "b", &m, &st), ==, WK_OK);
    CHECK_STR(m.user_tag, "ta");
    REQUIRE_INT(wk_store_meta(store, "a", &m, &st), ==, WK_OK);
    CHECK(!m.has_user_tag);
    CHECK_INT(wk_store_swap(store, "a", "zzz", &st), ==, WK_NOT_FOUND);

    /* Deleted while open: the opener keeps a working world until closing. */
    REQUIRE_INT(wk_store_open(store, "b", false, &w, &st), ==, WK_OK);
    CHECK_INT(wk_store_delete(store, "b", &st), ==, WK_OK);
    CHECK(find_object(wk_world_scene(w), "only_in_a") != WK_NULL_ENTITY);
    wk_store_close(w, false, false);
    CHECK_INT(wk_store_open(store, "b", false, &w, &st), ==, WK_NOT_FOUND);
    CHECK_INT(wk_store_delete(store, "b", &st), ==, WK_NOT_FOUND);
    wk_store_free(store);
}

/* Ids of the longest length: a taken one gets its "_<n>" suffix in place of
 * its last bytes (it got 102 bytes, past what any call takes), by create and
 * by clone alike, and each new id opens. */
static void longest_ids(void)
{
    wk_store *store = wk_store_new();
    REQUIRE(store);
    char id[WK_WORLD_ID_MAX], longest[101], want[101];
    memset(longest, 'w', 100);
    longest[100] = '\0';
    wk_status st;
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = longest}, id, &st), ==, WK_OK);
    CHECK_STR(id, longest);
    for (int n = 1; n <= 2; n++) {
        REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = longest}, id, &st), ==, WK_OK);
        snprintf(want, sizeof want, "%.98s_%d", longest, n);
        CHECK_STR(id, want);
    }
    REQUIRE_INT(wk_store_clone(store, longest, NULL, false, NULL, id, &st), ==, WK_OK);
    snprintf(want, sizeof want, "%.98s_3", longest);
    CHECK_STR(id, want);
    wk_world *w;
    REQUIRE_INT(wk_store_open(store, id, false, &w, &st), ==, WK_OK);
    wk_store_close(w, false, false);
    /* 101 bytes: refused, naming the limit. */
    char over[102];
    snprintf(over, sizeof over, "%sw", longest);
    CHECK_INT(wk_store_create(store, &(wk_world_create_desc){.id = over}, id, &st), ==, WK_INVALID);
    CHECK(strstr(st.message, "1 to 100") != NULL);
    wk_store_free(store);
}

/* A taken id gets the next number of its own counter: past the numbers
 * given before (a deleted one is not given again) and past ids clients
 * gave; many copies of one id cost a lookup each, not a search through
 * the suffixes taken (2,000 took 21 s of CPU so, under ASan: n^3 / 3
 * comparisons of ids). */
static void taken_ids_count_on(void)
{
    wk_store *store = wk_store_new();
    REQUIRE(store);
    char id[WK_WORLD_ID_MAX], want[WK_WORLD_ID_MAX];
    wk_status st;
    const char *expect[] = {"cell", "cell_1", "cell_2"};
    for (int i = 0; i < 3; i++) {
        REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "cell"}, id, &st), ==, WK_OK);
        CHECK_STR(id, expect[i]);
    }
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "cell_3"}, id, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "cell"}, id, &st), ==, WK_OK);
    CHECK_STR(id, "cell_4");
    REQUIRE_INT(wk_store_delete(store, "cell_1", &st), ==, WK_OK);
    REQUIRE_INT(wk_store_clone(store, "cell", NULL, false, NULL, id, &st), ==, WK_OK);
    CHECK_STR(id, "cell_5");
    CHECK_INT(wk_store_meta(store, "cell_1", &(wk_world_meta){0}, &st), ==, WK_NOT_FOUND);

    enum { MANY = 2000 };
    for (int i = 0; i < MANY; i++) {
        REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "many"}, id, &st), ==, WK_OK);
        snprintf(want, sizeof want, i ? "many_%d" : "many", i);
        if (strcmp(id, want))
            CHECK_STR(id, want);
    }
    wk_world_meta *metas = NULL;
    size_t n = 0;
    REQUIRE_INT(wk_store_list(store, &metas, &n), ==, WK_OK);
    CHECK_INT(n, ==, 5 + MANY);
    free(metas);
    /* Each still found by its id after the deletions moved others. */
    REQUIRE_INT(wk_store_delete(store, "many_7", &st), ==, WK_OK);
    for (int i = 1; i < MANY; i++) {
        snprintf(want, sizeof want, "many_%d", i);
        int rc = wk_store_meta(store, want, &(wk_world_meta){0}, &st);
        if (rc != (i == 7 ? WK_NOT_FOUND : WK_OK))
            CHECK_INT(rc, ==, i == 7 ? WK_NOT_FOUND : WK_OK);
    }
    wk_store_free(store);
}

/* The bound on a world's entities: a clone, a world created with a scene
 * and a writer's wk_store_room each hold to it, naming it and its flag;
 * a world just at the bound passes. */
static void max_entities(void)
{
    wk_store *store = wk_store_new();
    REQUIRE(store);
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "a"}, id, &st), ==, WK_OK);
    REQUIRE(add_object(store, "a", "box") && add_object(store, "a", "cup"));
    wk_world *w;
    REQUIRE_INT(wk_store_open(store, "a", true, &w, &st), ==, WK_OK);
    size_t held = wk_ecm_count(wk_scene_ecm(wk_world_scene(w)));
    wk_store_set_max_entities(store, held - 1);
    CHECK_INT(wk_store_room(w, &st), ==, WK_LIMIT);
    CHECK(strstr(st.message, "world 'a'") && strstr(st.message, "--max-world-entities"));
    wk_scene *copy = wk_scene_clone(wk_world_scene(w));
    wk_store_close(w, false, false);
    CHECK_INT(wk_store_create(store, &(wk_world_create_desc){.id = "b", .scene = copy}, id, &st), ==, WK_LIMIT);
    CHECK_INT(wk_store_clone(store, "a", "c", false, NULL, id, &st), ==, WK_LIMIT);
    CHECK(strstr(st.message, "world 'c'") != NULL);
    wk_world_meta meta;
    CHECK_INT(wk_store_meta(store, "b", &meta, NULL), ==, WK_NOT_FOUND);
    CHECK_INT(wk_store_meta(store, "c", &meta, NULL), ==, WK_NOT_FOUND);
    wk_store_set_max_entities(store, held);
    CHECK_INT(wk_store_clone(store, "a", "c", false, NULL, id, &st), ==, WK_OK);
    /* SyncObject asks too: box synced back into a c without it would take
     * c past the limit, and c stays as it was. */
    REQUIRE_INT(wk_store_open(store, "c", true, &w, &st), ==, WK_OK);
    wk_entity box;
    REQUIRE_INT(wk_scene_find_object(wk_world_scene(w), &(wk_ref){.object_name = "box"}, &box, &st), ==, WK_OK);
    REQUIRE_INT(wk_scene_delete_object(wk_world_scene(w), box, true, &st), ==, WK_OK);
    REQUIRE_INT(wk_store_commit(w, true, &st), ==, WK_OK);
    size_t without_box = wk_ecm_count(wk_scene_ecm(wk_world_scene(w)));
    wk_store_close(w, false, false);
    wk_store_set_max_entities(store, held - 1);
    CHECK_INT(wk_store_sync(store, "a", "c", &(wk_ref){.object_name = "box"}, false, &st), ==, WK_LIMIT);
    CHECK(strstr(st.message, "world 'c'") && strstr(st.message, "--max-world-entities"));
    REQUIRE_INT(wk_store_open(store, "c", false, &w, &st), ==, WK_OK);
    CHECK_INT(wk_ecm_count(wk_scene_ecm(wk_world_scene(w))), ==, without_box);
    CHECK_INT(wk_scene_find_object(wk_world_scene(w), &(wk_ref){.object_name = "box"}, &box, &st), ==, WK_NOT_FOUND);
    wk_store_close(w, false, false);
    wk_store_set_max_entities(store, held);
    CHECK_INT(wk_store_sync(store, "a", "c", &(wk_ref){.object_name = "box"}, false, &st), ==, WK_OK);
    wk_store_free(store);
}

/* Many geometries in memory, each found under its own id (by hash: a
 * search one by one made n puts cost n^2 / 2 comparisons), the first bytes
 * of an id kept. */
static void geometries_in_memory(void)
{
    wk_store *store = wk_store_new();
    REQUIRE(store);
    enum { N = 20000 };
    char id[32];
    wk_status st;
    for (unsigned i = 0; i < N; i++) {
        snprintf(id, sizeof id, "mesh_%u", i);
        REQUIRE_INT(wk_store_put_geometry(store, id, &i, sizeof i, &st), ==, WK_OK);
    }
    unsigned other = 7;
    CHECK_INT(wk_store_put_geometry(store, "mesh_3", &other, sizeof other, &st), ==, WK_OK);
    for (unsigned i = 0; i < N; i++) {
        snprintf(id, sizeof id, "mesh_%u", i);
        wk_buf got = {0};
        REQUIRE_INT(wk_store_get_geometry(store, id, &got, &st), ==, WK_OK);
        unsigned back = 0;
        CHECK_INT(got.len, ==, sizeof back);
        if (got.len == sizeof back)
            memcpy(&back, got.data, sizeof back);
        if (back != i)
            CHECK_INT(back, ==, i);
        wk_buf_free(&got);
    }
    wk_buf none = {0};
    CHECK_INT(wk_store_get_geometry(store, "mesh_20000", &none, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "'mesh_20000'") != NULL);
    CHECK_INT(none.len, ==, 0);
    wk_buf_free(&none);
    wk_store_free(store);
}

static const wk_test_case cases[] = {
    {"geometries_in_memory", geometries_in_memory},
    {"max_entities", max_entities},
    {"create_and_list", create_and_list},
    {"longest_ids", longest_ids},
    {"taken_ids_count_on", taken_ids_count_on},
    {"create_from_a_file", create_from_a_file},
    {"structure_hash_ignores_poses", structure_hash_ignores_poses},
    {"clone_and_overwrite", clone_and_overwrite},
    {"delete_while_open_and_swap", delete_while_open_and_swap},
};
WK_TEST_MAIN(cases)
