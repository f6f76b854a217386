/* test_entities.c — entity ids: creation, existence, counting, generations
 * that expose stale ids, slot reuse, and the create offset. */
#include "ecs/ecm_internal.h" /* slot_limit, to stand for a cut reservation */
#include "ecs/fixture.h"
#include "wk_test.h"

static void create_exists_count(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    CHECK_INT(wk_ecm_count(ecm), ==, 0);
    wk_entity a = wk_ecm_create(ecm), b = wk_ecm_create(ecm);
    CHECK(a != WK_NULL_ENTITY && b != WK_NULL_ENTITY && a != b);
    CHECK_U64(a, ==, 1); /* first slot, generation 0: ids read like Gazebo's */
    CHECK_U64(b, ==, 2);
    CHECK(wk_ecm_exists(ecm, a));
    CHECK(!wk_ecm_exists(ecm, WK_NULL_ENTITY));
    CHECK(!wk_ecm_exists(ecm, 999));
    CHECK_INT(wk_ecm_count(ecm), ==, 2);
    wk_ecm_free(ecm);
    wk_ecm_free(NULL); /* a no-op, as free(NULL) is */
}

static void stale_id_is_never_aliased(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity a = wk_ecm_create(f.ecm);
    CHECK_INT(wk_ecm_destroy(f.ecm, a, true), ==, WK_OK);
    CHECK(!wk_ecm_exists(f.ecm, a));
    wk_entity b = wk_ecm_create(f.ecm);
    /* Same slot, new generation. */
    CHECK_U64((uint32_t)b, ==, (uint32_t)a);
    CHECK_U64(b, !=, a);
    CHECK(wk_ecm_exists(f.ecm, b));
    CHECK(!wk_ecm_exists(f.ecm, a));
    vec v = {1, 2, 3};
    CHECK_INT(wk_ecm_set(f.ecm, a, f.pos, &v), ==, WK_STALE);
    CHECK(strstr(wk_ecm_errmsg(f.ecm), "does not exist") != NULL);
    CHECK(wk_ecm_get(f.ecm, a, f.pos) == NULL);
    CHECK_INT(wk_ecm_destroy(f.ecm, a, true), ==, WK_STALE);
    CHECK(wk_ecm_exists(f.ecm, b));
    CHECK_INT(wk_ecm_count(f.ecm), ==, 1);
    wk_ecm_free(f.ecm);
}

/* Generations are 11 bits: a slot whose generation would wrap is retired,
 * and an id no slot can hold is refused, not truncated. */
static void exhausted_slot_is_retired(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    wk_entity first = wk_ecm_create(ecm), e = first;
    for (int i = 0; i < 2047; i++) {
        CHECK_INT(wk_ecm_destroy(ecm, e, false), ==, WK_OK);
        e = wk_ecm_create(ecm);
    }
    CHECK_U64((uint32_t)e, ==, (uint32_t)first);
    CHECK_U64(e >> 32, ==, 2047);
    CHECK_INT(wk_ecm_destroy(ecm, e, false), ==, WK_OK);
    wk_entity next = wk_ecm_create(ecm);
    CHECK_U64((uint32_t)next, !=, (uint32_t)first); /* a fresh slot */
    CHECK(!wk_ecm_exists(ecm, e) && !wk_ecm_exists(ecm, first));
    CHECK(wk_ecm_get(ecm, e, 1) == NULL);
    CHECK_INT(wk_ecm_count(ecm), ==, 1);
    wk_ecm_free(ecm);
}

/* 17 types have 2^17 combinations; an ECM holds 2^16 tables. Walking the
 * combinations in Gray-code order makes a new one at every step. */
static void table_limit_is_a_clear_error(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    wk_type types[17];
    for (int i = 0; i < 17; i++) {
        char name[8];
        snprintf(name, sizeof name, "T%d", i);
        const wk_type_desc d = {.name = name, .size = 1};
        REQUIRE(wk_ecm_register(ecm, &d, &types[i]) == WK_OK);
    }
    wk_entity e = wk_ecm_create(ecm);
    uint32_t steps = 0;
    int rc = WK_OK;
    for (uint32_t k = 1; k < (1u << 17) && rc >= 0; k++, steps++) {
        int bit = __builtin_ctz(k);
        uint32_t gray = k ^ (k >> 1);
        rc = gray & (1u << bit) ? wk_ecm_set(ecm, e, types[bit], NULL) : wk_ecm_remove(ecm, e, types[bit]);
    }
    CHECK_INT(rc, ==, WK_RANGE);
    CHECK_INT(steps, ==, 65536); /* the root and 65535 others, then the refusal */
    CHECK(strstr(wk_ecm_errmsg(ecm), "65536 combinations") != NULL);
    CHECK(wk_ecm_exists(ecm, e));
    wk_ecm_free(ecm);
}

static void create_offset(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    wk_entity a = wk_ecm_create(ecm);
    CHECK_INT(wk_ecm_set_create_offset(ecm, 0), ==, WK_RANGE);
    CHECK_INT(wk_ecm_set_create_offset(ecm, 1ull << 32), ==, WK_RANGE);
    CHECK_INT(wk_ecm_set_create_offset(ecm, 1000000), ==, WK_OK);
    wk_entity b = wk_ecm_create(ecm), c = wk_ecm_create(ecm);
    CHECK_U64(b, ==, 1000000);
    CHECK_U64(c, ==, 1000001);
    /* A slot freed below the offset is not reused. */
    CHECK_INT(wk_ecm_destroy(ecm, a, false), ==, WK_OK);
    CHECK_U64(wk_ecm_create(ecm), ==, 1000002);
    CHECK_INT(wk_ecm_count(ecm), ==, 3);
    wk_ecm_free(ecm);
}

static int count_diff(const wk_ecm_diff_entry *entry, void *ctx)
{
    (void)entry;
    ++*(int *)ctx;
    return 0;
}

/* Ids at the very top of the id space beside ids at the bottom: lookups,
 * clone and diff find them, and creating stops short of the last slot. */
static void slots_at_both_ends_of_the_id_space(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity low = wk_ecm_create(f.ecm);
    CHECK_INT(wk_ecm_set_create_offset(f.ecm, UINT32_MAX - 2), ==, WK_OK);
    wk_entity a = wk_ecm_create(f.ecm), b = wk_ecm_create(f.ecm);
    CHECK_U64(a, ==, UINT32_MAX - 2);
    CHECK_U64(b, ==, UINT32_MAX - 1);
    CHECK_U64(wk_ecm_create(f.ecm), ==, WK_NULL_ENTITY);
    CHECK(strstr(wk_ecm_errmsg(f.ecm), "slots exhausted") != NULL);
    vec v = {1, 2, 3};
    CHECK_INT(wk_ecm_set(f.ecm, b, f.pos, &v), ==, 1);
    CHECK(!wk_ecm_exists(f.ecm, UINT32_MAX));

    wk_ecm *copy = wk_ecm_clone(f.ecm);
    REQUIRE(copy);
    const vec *got = wk_ecm_get(copy, b, f.pos);
    REQUIRE(got);
    CHECK(got->x == 1 && got->y == 2 && got->z == 3);
    CHECK(wk_ecm_exists(copy, low) && wk_ecm_exists(copy, a));
    CHECK(wk_ecm_equal(f.ecm, copy, NULL));
    CHECK_INT(wk_ecm_destroy(copy, a, false), ==, WK_OK);
    int differing = 0;
    CHECK_INT(wk_ecm_diff(f.ecm, copy, count_diff, &differing), ==, 0);
    CHECK_INT(differing, ==, 1);
    wk_ecm_free(copy);
    wk_ecm_free(f.ecm);
}

/* A freed ECM's records are cleared before its address space is kept for
 * another: no entity of it shows in the ECMs made after it. */
static void records_of_a_freed_ecm_read_as_free(void)
{
    wk_ecm *old = wk_ecm_new();
    REQUIRE(old);
    wk_entity ids[4] = {wk_ecm_create(old), wk_ecm_create(old)};
    CHECK_INT(wk_ecm_set_create_offset(old, 1u << 20), ==, WK_OK);
    ids[2] = wk_ecm_create(old);
    CHECK_INT(wk_ecm_set_create_offset(old, UINT32_MAX - 1), ==, WK_OK);
    ids[3] = wk_ecm_create(old);
    wk_ecm_free(old);
    /* More ECMs than reservations are kept, so one of them gets old's. */
    wk_ecm *next[6];
    for (int i = 0; i < 6; i++) {
        next[i] = wk_ecm_new();
        REQUIRE(next[i]);
        for (int k = 0; k < 4; k++)
            CHECK(!wk_ecm_exists(next[i], ids[k]));
        CHECK_U64(wk_ecm_create(next[i]), ==, 1);
    }
    for (int i = 0; i < 6; i++)
        wk_ecm_free(next[i]);
}

/* Where the system grants less address space than every slot needs, the
 * ECM holds fewer slots (ecm->slot_limit): past them, creating and applying
 * a state are refused as WK_RANGE, and nothing changes. */
static void slots_past_a_cut_reservation_are_refused(void)
{
    wk_ecm *ecm = wk_ecm_new(), *sender = wk_ecm_new();
    REQUIRE(ecm && sender);
    uint64_t reserved = ecm->slot_limit;
    ecm->slot_limit = 4; /* slots 1, 2 and 3 */
    for (int i = 0; i < 3; i++)
        CHECK(wk_ecm_create(ecm) != WK_NULL_ENTITY);
    CHECK_U64(wk_ecm_create(ecm), ==, WK_NULL_ENTITY);
    CHECK(strstr(wk_ecm_errmsg(ecm), "slots exhausted") != NULL);
    CHECK(!wk_ecm_exists(ecm, 4));

    CHECK_INT(wk_ecm_set_create_offset(sender, 7), ==, WK_OK);
    wk_entity far = wk_ecm_create(sender);
    CHECK_U64(far, ==, 7);
    wk_buf state = {0};
    REQUIRE_INT(wk_ecm_state(sender, NULL, &state), ==, WK_OK);
    uint64_t version = wk_ecm_version(ecm);
    CHECK_INT(wk_ecm_set_state(ecm, state.data, state.len), ==, WK_RANGE);
    CHECK(strstr(wk_ecm_errmsg(ecm), "slot 7 is past the 4 slots") != NULL);
    CHECK_U64(wk_ecm_version(ecm), ==, version);
    CHECK_INT(wk_ecm_count(ecm), ==, 3);
    wk_buf_free(&state);
    ecm->slot_limit = reserved; /* so that the whole reservation is released */
    wk_ecm_free(ecm);
    wk_ecm_free(sender);
}

static void offset_below_live_entities_skips_them(void)
{
    wk_ecm *ecm = wk_ecm_new();
    REQUIRE(ecm);
    for (int i = 0; i < 5; i++)
        wk_ecm_create(ecm);
    CHECK_INT(wk_ecm_set_create_offset(ecm, 3), ==, WK_OK);
    wk_entity e = wk_ecm_create(ecm);
    CHECK_U64(e, ==, 6); /* 3, 4 and 5 are alive */
    CHECK_INT(wk_ecm_count(ecm), ==, 6);
    wk_ecm_free(ecm);
}

static void many_entities_cross_pages(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    enum { N = 10000 };
    static wk_entity ids[N];
    for (int i = 0; i < N; i++) {
        ids[i] = wk_ecm_create(f.ecm);
        vec v = {i, 0, 0};
        REQUIRE_INT(wk_ecm_set(f.ecm, ids[i], f.pos, &v), ==, 1);
    }
    for (int i = 0; i < N; i += 2)
        CHECK_INT(wk_ecm_destroy(f.ecm, ids[i], false), ==, WK_OK);
    CHECK_INT(wk_ecm_count(f.ecm), ==, N / 2);
    int bad = 0;
    for (int i = 1; i < N; i += 2) {
        const vec *v = wk_ecm_get(f.ecm, ids[i], f.pos);
        bad += !v || v->x != i;
    }
    CHECK_INT(bad, ==, 0);
    wk_ecm_free(f.ecm);
}

/* e is alive and new, holds exactly p and v, both changed once this step. */
static void check_created(const fixture *f, wk_entity e, vec p, vec v)
{
    CHECK(wk_ecm_exists(f->ecm, e));
    CHECK(wk_ecm_is_new(f->ecm, e));
    const vec *gp = wk_ecm_get(f->ecm, e, f->pos), *gv = wk_ecm_get(f->ecm, e, f->vel);
    REQUIRE(gp && gv);
    CHECK(gp->x == p.x && gp->y == p.y && gp->z == p.z);
    CHECK(gv->x == v.x && gv->y == v.y && gv->z == v.z);
    CHECK_INT(wk_ecm_changed(f->ecm, e, f->pos), ==, WK_ONE_TIME_CHANGE);
    CHECK_INT(wk_ecm_changed(f->ecm, e, f->vel), ==, WK_ONE_TIME_CHANGE);
    CHECK(!wk_ecm_has(f->ecm, e, f->name));
}

static wk_entity create_pos_vel(const fixture *f, vec p, vec v)
{
    return wk_ecm_create_with(f->ecm, (wk_type[]){f->pos, f->vel}, (const void *[]){&p, &v}, 2);
}

static void create_with_fresh_reused_and_skipped_slots(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    vec p1 = {1, 2, 3}, v1 = {4, 5, 6}, p2 = {-1, -2, -3}, v2 = {0.5, 0, 8};
    wk_entity a = create_pos_vel(&f, p1, v1), b = create_pos_vel(&f, p2, v2);
    CHECK_U64(a, ==, 1);
    CHECK_U64(b, ==, 2);
    check_created(&f, a, p1, v1);
    check_created(&f, b, p2, v2);
    CHECK_INT(wk_ecm_end_step(f.ecm), ==, WK_OK);
    CHECK(!wk_ecm_is_new(f.ecm, b));
    CHECK_INT(wk_ecm_changed(f.ecm, b, f.pos), ==, WK_NO_CHANGE);

    /* A freed slot comes back with the next generation; b's row moved into
     * a's place keeps its values and change states. */
    CHECK_INT(wk_ecm_destroy(f.ecm, a, false), ==, WK_OK);
    wk_entity c = create_pos_vel(&f, v1, p2);
    CHECK_U64(c, ==, (1ull << 32) | 1);
    check_created(&f, c, v1, p2);
    CHECK_INT(wk_ecm_changed(f.ecm, b, f.vel), ==, WK_NO_CHANGE);
    const vec *bp = wk_ecm_get(f.ecm, b, f.pos);
    REQUIRE(bp);
    CHECK(bp->x == p2.x && bp->z == p2.z);

    /* Below the offset a live slot is skipped, a fresh one above taken. */
    CHECK_INT(wk_ecm_set_create_offset(f.ecm, 2), ==, WK_OK);
    wk_entity d = create_pos_vel(&f, p1, p1);
    CHECK_U64(d, ==, 3);
    check_created(&f, d, p1, p1);
    CHECK_INT(wk_ecm_count(f.ecm), ==, 3);
    wk_ecm_free(f.ecm);
}

static void create_with_in_transaction(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    vec p = {1, 2, 3}, v = {7, 8, 9};
    wk_entity a = create_pos_vel(&f, p, v), b = create_pos_vel(&f, v, p);
    CHECK_INT(wk_ecm_end_step(f.ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_destroy(f.ecm, a, false), ==, WK_OK);

    CHECK_INT(wk_ecm_txn_begin(f.ecm), ==, WK_OK);
    wk_entity reused = create_pos_vel(&f, v, v), fresh = create_pos_vel(&f, p, p);
    CHECK_U64((uint32_t)reused, ==, (uint32_t)a);
    CHECK_U64(fresh, ==, 3);
    check_created(&f, reused, v, v);
    check_created(&f, fresh, p, p);
    CHECK_INT(wk_ecm_txn_rollback(f.ecm), ==, WK_OK);
    CHECK(!wk_ecm_exists(f.ecm, reused));
    CHECK(!wk_ecm_exists(f.ecm, fresh));
    CHECK(!wk_ecm_has_new_entities(f.ecm));
    CHECK_INT(wk_ecm_count(f.ecm), ==, 1);

    /* The rollback gave back the slots and generations it took. */
    CHECK_INT(wk_ecm_txn_begin(f.ecm), ==, WK_OK);
    CHECK_U64(create_pos_vel(&f, p, v), ==, reused);
    CHECK_U64(create_pos_vel(&f, v, p), ==, fresh);
    CHECK_INT(wk_ecm_txn_commit(f.ecm), ==, WK_OK);
    check_created(&f, reused, p, v);
    check_created(&f, fresh, v, p);
    CHECK(wk_ecm_exists(f.ecm, b));
    CHECK_INT(wk_ecm_count(f.ecm), ==, 3);
    wk_ecm_free(f.ecm);
}

/* Many creations without a removal, then removals between creations: the
 * step still reports exactly the live new entities. */
static void new_entities_after_creates_and_destroys(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_query *q = wk_query_new(f.ecm, &(wk_query_desc){.with = {f.pos}});
    REQUIRE(q);
    enum { N = 3000 };
    static wk_entity ids[N];
    size_t live = 0;
    for (int i = 0; i < N; i++) {
        ids[i] = create_pos_vel(&f, (vec){i, 0, 0}, (vec){0, i, 0});
        REQUIRE(ids[i] != WK_NULL_ENTITY);
        if (i >= N / 2 && i % 3 == 0)
            CHECK_INT(wk_ecm_destroy(f.ecm, ids[i - 1], false), ==, WK_OK);
    }
    for (int i = 0; i < N; i++)
        live += wk_ecm_exists(f.ecm, ids[i]);
    CHECK_INT(live, ==, N - N / 6);
    size_t reported = 0, wrong = 0;
    wk_iter it = wk_query_iter_new(q);
    while (wk_iter_next(&it)) {
        const vec *pos = wk_iter_column(&it, 0);
        /* Entity i was created with x = i. */
        for (size_t k = 0; k < it.count; k++)
            wrong += !(pos[k].x >= 0 && pos[k].x < N) || ids[(int)pos[k].x] != it.entities[k] ||
                     !wk_ecm_exists(f.ecm, it.entities[k]);
        reported += it.count;
    }
    CHECK_INT(reported, ==, live);
    CHECK_INT(wrong, ==, 0);
    wk_query_free(q);
    wk_ecm_free(f.ecm);
}

static const wk_test_case cases[] = {
    {"create_exists_count", create_exists_count},
    {"stale_id_is_never_aliased", stale_id_is_never_aliased},
    {"exhausted_slot_is_retired", exhausted_slot_is_retired},
    {"table_limit_is_a_clear_error", table_limit_is_a_clear_error},
    {"create_offset", create_offset},
    {"offset_below_live_entities_skips_them", offset_below_live_entities_skips_them},
    {"slots_at_both_ends_of_the_id_space", slots_at_both_ends_of_the_id_space},
    {"slots_past_a_cut_reservation_are_refused", slots_past_a_cut_reservation_are_refused},
    {"records_of_a_freed_ecm_read_as_free", records_of_a_freed_ecm_read_as_free},
    {"many_entities_cross_pages", many_entities_cross_pages},
    {"create_with_fresh_reused_and_skipped_slots", create_with_fresh_reused_and_skipped_slots},
    {"create_with_in_transaction", create_with_in_transaction},
    {"new_entities_after_creates_and_destroys", new_entities_after_creates_and_destroys},
};
WK_TEST_MAIN(cases)
