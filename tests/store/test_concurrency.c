/* test_concurrency.c — one world, several threads: writers change it in
 * batches and single calls, readers read it, clone it and hash it at the same
 * time. Readers must never see a torn state: every write keeps the poses of
 * the twin objects "left" and "right" equal and the object count even, and
 * readers check both. Run under ThreadSanitizer as well (make check does),
 * which also proves the pose cache's lock-free reads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "scene/object_world.h"
#include "worldkit/wk_store.h"

#define WRITERS 2
#define READERS 3
#define ROUNDS 300

static wk_store *store;
static atomic_int failures;
static atomic_bool writers_done;

static void fail(const char *what)
{
    fprintf(stderr, "%s\n", what);
    atomic_fetch_add(&failures, 1);
}

static void *writer(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    wk_status st;
    char name[32];
    for (int round = 0; round < ROUNDS; round++) {
        wk_world *w;
        if (wk_store_open(store, "w", true, &w, &st)) {
            fail(st.message);
            break;
        }
        wk_scene *s = wk_world_scene(w);
        wk_pose p = at((double)rand_r(&seed) / RAND_MAX, round, 0, 0, 0, 0.01 * round);
        bool structural = round % 3 == 0;
        if (wk_scene_set_pose(s, find_object(s, "left"), p, &st) || wk_scene_set_pose(s, find_object(s, "right"), p, &st))
            fail(st.message);
        if (structural) {
            /* Two objects made and, in a batch that fails, more: the count stays even. */
            snprintf(name, sizeof name, "a%u_%d", seed, round);
            wk_entity a = object_at(s, name, 0, wk_pose_identity());
            snprintf(name, sizeof name, "b%u_%d", seed, round);
            wk_entity b = object_at(s, name, a, wk_pose_identity());
            if (!a || !b)
                fail("create");
            if (wk_scene_batch_begin(s, &st) == WK_OK) {
                object_at(s, "doomed", 0, wk_pose_identity());
                wk_scene_batch_rollback(s);
            }
            if (round % 2 && wk_scene_delete_object(s, a, true, &st))
                fail(st.message);
        }
        wk_store_close(w, true, structural);
    }
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    wk_status st;
    char clone_id[WK_WORLD_ID_MAX];
    int round = 0;
    while (!atomic_load(&writers_done)) {
        wk_world *w;
        if (wk_store_open(store, "w", false, &w, &st)) {
            fail(st.message);
            break;
        }
        const wk_scene *s = wk_world_scene(w);
        wk_entity left = find_object(s, "left"), right = find_object(s, "right");
        wk_pose l = wk_scene_pose(s, left), r = wk_scene_pose(s, right);
        if (l.p.x != r.p.x || l.p.y != r.p.y || l.q.z != r.q.z)
            fail("torn: left and right differ");
        wk_entity_list objects = {0};
        if (wk_scene_objects(s, &objects) || objects.count % 2 != 0)
            fail("torn: odd object count");
        for (size_t i = 0; i < objects.count; i++)
            wk_scene_transform(s, objects.items[i], left);
        wk_entity_list_free(&objects);
        wk_store_close(w, false, false);
        wk_world_meta m;
        if (wk_store_meta(store, "w", &m, &st))
            fail(st.message);
        if (++round % 20 == 0) {
            if (wk_store_clone(store, "w", NULL, false, NULL, clone_id, &st) || wk_store_delete(store, clone_id, &st))
                fail(st.message);
        }
    }
    return NULL;
}

static void readers_and_writers(void)
{
    store = wk_store_new();
    REQUIRE(store);
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    REQUIRE_INT(wk_store_create(store, &(wk_world_create_desc){.id = "w"}, id, &st), ==, WK_OK);
    wk_world *w;
    REQUIRE_INT(wk_store_open(store, "w", true, &w, &st), ==, WK_OK);
    wk_scene *s = wk_world_scene(w);
    wk_entity shelf = object_at(s, "shelf", 0, at(0, 0, 1, 0, 0, 0));
    REQUIRE(object_at(s, "left", shelf, wk_pose_identity()) && object_at(s, "right", 0, wk_pose_identity()));
    wk_store_close(w, true, true);

    pthread_t threads[WRITERS + READERS];
    for (uintptr_t i = 0; i < WRITERS + READERS; i++)
        REQUIRE_INT(pthread_create(&threads[i], NULL, i < WRITERS ? writer : reader, (void *)(i + 1)), ==, 0);
    for (int i = 0; i < WRITERS; i++)
        pthread_join(threads[i], NULL);
    atomic_store(&writers_done, true);
    for (int i = WRITERS; i < WRITERS + READERS; i++)
        pthread_join(threads[i], NULL);
    CHECK_INT(atomic_load(&failures), ==, 0);

    /* Every writer's surviving objects are there: half its rounds kept a. */
    REQUIRE_INT(wk_store_open(store, "w", false, &w, &st), ==, WK_OK);
    wk_entity_list objects = {0};
    CHECK_INT(wk_scene_objects(wk_world_scene(w), &objects), ==, WK_OK);
    int structural_rounds = (ROUNDS + 2) / 3, kept = structural_rounds - structural_rounds / 2;
    CHECK_INT(objects.count, ==, (size_t)(4 + WRITERS * 2 * kept));
    wk_entity_list_free(&objects);
    wk_store_close(w, false, false);
    wk_world_meta *metas;
    size_t n;
    REQUIRE_INT(wk_store_list(store, &metas, &n), ==, WK_OK);
    CHECK_INT(n, ==, 1); /* every clone was deleted */
    free(metas);
    wk_store_free(store);
}

static const wk_test_case cases[] = {
    {"readers_and_writers", readers_and_writers},
};
WK_TEST_MAIN(cases)
