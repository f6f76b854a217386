/* test_hub.c — the change stream's hub: a watcher's first message is the
 * full state; later ones merge what changed (latest value wins, one value
 * per changed component), stamped so that each applies on the one before;
 * a watcher too far behind the removal log is sent a full state. Each
 * message is applied to a mirror ECM with wk_ecm_set_state and the mirror
 * compared with the watched ECM (wk_ecm_equal): the stream must rebuild the
 * world exactly. */
#include <pthread.h>
#include <stdlib.h>

#include "../ecs/fixture.h"
#include "wk_test.h"
#include "worldkit/watch.pb-c.h"
#include "worldkit/wk_watch.h"

typedef struct rig {
    fixture src, mirror;
    wk_watch_hub *hub;
    wk_watcher *w;
    uint64_t step;
} rig;

static bool rig_new(rig *r, const wk_watch_desc *desc)
{
    *r = (rig){.src = fixture_new(), .mirror = fixture_new(), .hub = wk_watch_hub_new()};
    if (!r->src.ecm || !r->mirror.ecm || !r->hub)
        return false;
    wk_watch_desc d = desc ? *desc : (wk_watch_desc){0};
    d.world_id = "w";
    r->w = wk_watch_subscribe(r->hub, &d);
    return r->w != NULL;
}

static void rig_free(rig *r)
{
    wk_watcher_free(r->w);
    wk_watch_hub_free(r->hub);
    wk_ecm_free(r->src.ecm);
    wk_ecm_free(r->mirror.ecm);
}

/* Ends a step of the source as a server does: publish, then reset. */
static void commit(rig *r)
{
    r->step++;
    wk_watch_publish(r->hub, "w", r->src.ecm, &(wk_watch_clock){r->step, (double)r->step * 0.001});
    wk_ecm_end_step(r->src.ecm);
}

/* The watcher's next message, unpacked (NULL when there was none). */
static Worldkit__WatchUpdate *next(rig *r)
{
    wk_buf out = {0};
    bool made = false;
    wk_status st;
    int rc = wk_watch_next(r->w, r->src.ecm, &out, &made, &st);
    CHECK_INT(rc, ==, WK_OK);
    Worldkit__WatchUpdate *u = made ? worldkit__watch_update__unpack(NULL, out.len, out.data) : NULL;
    CHECK(!made || u);
    wk_buf_free(&out);
    return u;
}

/* Applies the update's state to the mirror. */
static int apply(rig *r, const Worldkit__WatchUpdate *u)
{
    if (!u->state)
        return WK_OK;
    size_t len = worldkit__ecs__state__get_packed_size(u->state);
    uint8_t *bytes = malloc(len ? len : 1);
    worldkit__ecs__state__pack(u->state, bytes);
    int rc = wk_ecm_set_state(r->mirror.ecm, bytes, len);
    free(bytes);
    wk_ecm_end_step(r->mirror.ecm);
    return rc;
}

static bool mirrored(rig *r)
{
    wk_status why = {0};
    bool same = wk_ecm_equal(r->src.ecm, r->mirror.ecm, &why);
    if (!same)
        fprintf(stderr, "    mirror differs: %s\n", why.message);
    return same;
}

static wk_entity spawn(rig *r, double x, const char *name)
{
    wk_entity e = wk_ecm_create(r->src.ecm);
    wk_ecm_set(r->src.ecm, e, r->src.pos, &(vec){x, 0, 0});
    wk_ecm_set(r->src.ecm, e, r->src.vel, &(vec){1, 0, 0});
    set_name(&r->src, e, name);
    return e;
}

static void first_message_is_full(void)
{
    rig r;
    REQUIRE(rig_new(&r, NULL));
    spawn(&r, 1, "a");
    spawn(&r, 2, "b");
    wk_ecm_end_step(r.src.ecm);
    CHECK(wk_watch_wait(r.w, 0)); /* a first message is always due */
    Worldkit__WatchUpdate *u = next(&r);
    REQUIRE(u);
    CHECK(u->full);
    CHECK_U64(u->base_version, ==, 0);
    CHECK_INT(apply(&r, u), ==, WK_OK);
    CHECK(mirrored(&r));
    worldkit__watch_update__free_unpacked(u, NULL);
    /* Nothing changed since: nothing to send, and a wait times out. */
    CHECK(!wk_watch_wait(r.w, 0.01));
    CHECK(next(&r) == NULL);
    rig_free(&r);
}

static void coalesces_latest_value(void)
{
    rig r;
    REQUIRE(rig_new(&r, NULL));
    wk_entity a = spawn(&r, 0, "a");
    spawn(&r, 5, "b");
    commit(&r);
    Worldkit__WatchUpdate *u = next(&r);
    REQUIRE(u);
    uint64_t v0 = u->version;
    apply(&r, u);
    worldkit__watch_update__free_unpacked(u, NULL);
    /* 100 steps moving a; the watcher reads after all of them. */
    for (int i = 1; i <= 100; i++) {
        wk_ecm_set(r.src.ecm, a, r.src.pos, &(vec){i, 0, 0});
        commit(&r);
    }
    CHECK(wk_watch_wait(r.w, 0));
    u = next(&r);
    REQUIRE(u);
    CHECK(!u->full);
    CHECK_U64(u->base_version, ==, v0);
    CHECK_U64(u->version, ==, v0 + 100);
    CHECK_U64(u->changes, ==, 100);
    CHECK_U64(u->step, ==, r.step);
    /* One value: a's Position, the latest; not its velocity or name, nor b. */
    size_t blocks = 0, columns = 0;
    for (size_t i = 0; u->state && i < u->state->n_blocks; i++) {
        const Worldkit__Ecs__Block *b = u->state->blocks[i];
        if (!b->n_ids)
            continue;
        blocks++;
        CHECK_U64(b->ids[0], ==, a);
        columns += b->n_columns;
        for (size_t c = 0; c < b->n_columns; c++)
            CHECK_U64(b->columns[c]->type, ==, r.src.pos);
    }
    CHECK_INT(blocks, ==, 1);
    CHECK_INT(columns, ==, 1);
    CHECK_INT(apply(&r, u), ==, WK_OK);
    CHECK(mirrored(&r));
    const vec *p = wk_ecm_get(r.mirror.ecm, a, r.mirror.pos);
    CHECK(p && p->x == 100);
    worldkit__watch_update__free_unpacked(u, NULL);
    rig_free(&r);
}

/* Creations, component removals, re-parenting and removals, each message
 * applying on the one before. */
static void versions_chain_and_rebuild(void)
{
    rig r;
    REQUIRE(rig_new(&r, NULL));
    wk_entity a = spawn(&r, 0, "a"), b = spawn(&r, 1, "b"), c = spawn(&r, 2, "c");
    commit(&r);
    uint64_t last = 0;
    for (int round = 0; round < 6; round++) {
        switch (round) {
        case 1:
            wk_ecm_remove(r.src.ecm, b, r.src.vel);
            break;
        case 2:
            wk_ecm_set_parent(r.src.ecm, c, a);
            break;
        case 3:
            wk_ecm_destroy(r.src.ecm, b, false);
            spawn(&r, 9, "d");
            break;
        case 4:
            set_name(&r.src, a, "renamed");
            wk_ecm_set(r.src.ecm, c, r.src.tag, NULL);
            break;
        case 5:
            wk_ecm_request_remove(r.src.ecm, a, true);
            break;
        default:
            break;
        }
        if (round)
            commit(&r);
        Worldkit__WatchUpdate *u = next(&r);
        REQUIRE(u);
        CHECK_U64(u->base_version, ==, last);
        CHECK(u->full == (round == 0));
        last = u->version;
        CHECK_INT(apply(&r, u), ==, WK_OK);
        if (!CHECK(mirrored(&r)))
            fprintf(stderr, "    after round %d\n", round);
        worldkit__watch_update__free_unpacked(u, NULL);
    }
    CHECK_INT(wk_ecm_count(r.mirror.ecm), ==, 1); /* d alone is left */
    rig_free(&r);
}

/* A watcher behind more removals than the log holds takes a full state,
 * and what the hub holds stays bounded meanwhile. */
static void far_behind_gets_full_state(void)
{
    rig r;
    REQUIRE(rig_new(&r, NULL));
    commit(&r);
    Worldkit__WatchUpdate *u = next(&r);
    REQUIRE(u);
    apply(&r, u);
    worldkit__watch_update__free_unpacked(u, NULL);
    wk_entity keep = spawn(&r, 7, "keep");
    commit(&r);
    for (int round = 0; round < 3; round++) {
        wk_entity *made = malloc(WK_WATCH_REMOVALS_MAX * sizeof *made);
        for (size_t i = 0; i < WK_WATCH_REMOVALS_MAX; i++)
            made[i] = wk_ecm_create(r.src.ecm);
        commit(&r);
        for (size_t i = 0; i < WK_WATCH_REMOVALS_MAX; i++)
            wk_ecm_destroy(r.src.ecm, made[i], false);
        commit(&r);
        free(made);
    }
    wk_ecm_set(r.src.ecm, keep, r.src.pos, &(vec){8, 0, 0});
    commit(&r);
    u = next(&r);
    REQUIRE(u);
    CHECK(u->full);
    CHECK_U64(u->base_version, ==, 0);
    CHECK_INT(apply(&r, u), ==, WK_OK);
    CHECK(mirrored(&r));
    worldkit__watch_update__free_unpacked(u, NULL);
    rig_free(&r);
}

/* Kinds and subtree: only Position values, only below the root given. */
static void filters(void)
{
    fixture probe = fixture_new();
    REQUIRE(probe.ecm);
    wk_entity root = wk_ecm_create(probe.ecm); /* the first id the rig's source hands out too */
    wk_ecm_free(probe.ecm);
    const char *kinds[] = {"Position"};
    rig r;
    REQUIRE(rig_new(&r, &(wk_watch_desc){.kinds = kinds, .kind_count = 1, .subtree = root}));
    REQUIRE(wk_ecm_create(r.src.ecm) == root);
    wk_entity in = spawn(&r, 1, "in"), out = spawn(&r, 2, "out");
    wk_ecm_set_parent(r.src.ecm, in, root);
    commit(&r);
    Worldkit__WatchUpdate *u = next(&r);
    REQUIRE(u && u->state);
    for (size_t i = 0; i < u->state->n_blocks; i++)
        for (size_t k = 0; k < u->state->blocks[i]->n_ids; k++) {
            CHECK(u->state->blocks[i]->ids[k] != out);
            for (size_t c = 0; c < u->state->blocks[i]->n_columns; c++)
                CHECK_U64(u->state->blocks[i]->columns[c]->type, ==, r.src.pos);
        }
    worldkit__watch_update__free_unpacked(u, NULL);
    wk_ecm_set(r.src.ecm, out, r.src.pos, &(vec){3, 0, 0});
    commit(&r);
    u = next(&r); /* the world changed outside the subtree: an empty delta */
    REQUIRE(u);
    CHECK(!u->full);
    for (size_t i = 0; u->state && i < u->state->n_blocks; i++)
        CHECK_INT(u->state->blocks[i]->n_ids, ==, 0);
    worldkit__watch_update__free_unpacked(u, NULL);
    rig_free(&r);
}

/* A world replaced whole: the next message is full. */
static void reset_sends_full_state(void)
{
    rig r;
    REQUIRE(rig_new(&r, NULL));
    spawn(&r, 1, "a");
    commit(&r);
    Worldkit__WatchUpdate *u = next(&r);
    REQUIRE(u);
    worldkit__watch_update__free_unpacked(u, NULL);
    wk_watch_reset(r.hub, "w");
    CHECK(wk_watch_wait(r.w, 0));
    u = next(&r);
    REQUIRE(u);
    CHECK(u->full);
    worldkit__watch_update__free_unpacked(u, NULL);
    /* Another world's changes wake nobody here. */
    wk_watch_publish(r.hub, "other", r.src.ecm, NULL);
    CHECK(!wk_watch_wait(r.w, 0.01));
    rig_free(&r);
}

/* A publisher and a watcher on threads of their own, the world's lock
 * between them as a server has it: the publisher writes under the write
 * lock, the watcher makes each message under the read lock. Every message
 * applies on the one before, and once the publisher is done the mirror is
 * the world. */
typedef struct race {
    rig *r;
    pthread_rwlock_t world;
    wk_entity e[50];
    bool done;
} race;

static void *publisher(void *arg)
{
    race *x = arg;
    for (int step = 1; step <= 2000; step++) {
        pthread_rwlock_wrlock(&x->world);
        wk_ecm_set(x->r->src.ecm, x->e[step % 50], x->r->src.pos, &(vec){step, 0, 0});
        if (step % 100 == 0)
            wk_ecm_destroy(x->r->src.ecm, x->e[step / 100], false), x->e[step / 100] = spawn(x->r, step, "new");
        commit(x->r);
        if (step == 2000)
            x->done = true;
        pthread_rwlock_unlock(&x->world);
    }
    return NULL;
}

static void concurrent_publisher_and_watcher(void)
{
    rig r;
    REQUIRE(rig_new(&r, NULL));
    race x = {.r = &r};
    pthread_rwlock_init(&x.world, NULL);
    for (int i = 0; i < 50; i++)
        x.e[i] = spawn(&r, i, "m");
    commit(&r);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, publisher, &x) == 0);
    uint64_t last = 0;
    int messages = 0;
    for (bool done = false; !done;) {
        wk_watch_wait(r.w, 0.01);
        pthread_rwlock_rdlock(&x.world);
        done = x.done;
        Worldkit__WatchUpdate *u = next(&r);
        if (u) {
            messages++;
            CHECK(u->full == (messages == 1));
            CHECK_U64(u->base_version, ==, last);
            last = u->version;
            CHECK_INT(apply(&r, u), ==, WK_OK);
            worldkit__watch_update__free_unpacked(u, NULL);
        }
        pthread_rwlock_unlock(&x.world);
    }
    pthread_join(t, NULL);
    CHECK(mirrored(&r));
    CHECK_INT(messages, >, 1);
    pthread_rwlock_destroy(&x.world);
    rig_free(&r);
}

static const wk_test_case cases[] = {
    {"first_message_is_full", first_message_is_full},
    {"coalesces_latest_value", coalesces_latest_value},
    {"versions_chain_and_rebuild", versions_chain_and_rebuild},
    {"far_behind_gets_full_state", far_behind_gets_full_state},
    {"filters", filters},
    {"reset_sends_full_state", reset_sends_full_state},
    {"concurrent_publisher_and_watcher", concurrent_publisher_and_watcher},
};

WK_TEST_MAIN(cases)
