/* test_txn.c — transactions: a rollback after each kind of mutation alone and
 * after long random runs of them leaves the ECM as it was (byte-equal full
 * and changed-only states, wk_ecm_equal, the same ids, child order, step
 * tracking and next ids); a commit keeps what a run without a transaction
 * would have done; a mutation whose record fails (injected out of memory)
 * changes nothing; misuse is refused. Values with hooks are strings, so ASan
 * sees any leak or double free on either path. */
#include "ecs/ecm_internal.h" /* wk__txn_fail_countdown */
#include "ecs/fixture.h"
#include "wk_test.h"

#include <stdint.h>

/* ---- comparing an ECM with what it was --------------------------------- */

/* What an ECM was: its serialized full and changed-only states and a clone. */
typedef struct snapshot {
    wk_buf full, changed;
    wk_ecm *clone;
} snapshot;

static void serialize(wk_ecm *ecm, bool changed_only, wk_buf *out)
{
    out->len = 0;
    CHECK_INT(wk_ecm_state(ecm, &(wk_state_desc){.changed_only = changed_only}, out), ==, WK_OK);
}

static snapshot take(wk_ecm *ecm)
{
    snapshot s = {.clone = wk_ecm_clone(ecm)};
    serialize(ecm, false, &s.full);
    serialize(ecm, true, &s.changed);
    CHECK(s.clone != NULL);
    return s;
}

static void drop(snapshot *s)
{
    wk_buf_free(&s->full);
    wk_buf_free(&s->changed);
    wk_ecm_free(s->clone);
}

static bool same_bytes(const wk_buf *a, const wk_buf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static wk_entity_list all_entities(const wk_ecm *ecm)
{
    wk_entity_list list = {0};
    CHECK_INT(wk_ecm_find(ecm, NULL, 0, &list), ==, WK_OK);
    return list;
}

/* What wk_ecm_equal leaves out: child order, newness, removal marks and
 * change states of every entity of a, compared with b. */
static bool same_tracking(const fixture *f, const wk_ecm *a, const wk_ecm *b)
{
    wk_entity_list list = all_entities(a);
    const wk_type types[] = {f->pos, f->vel, f->name, f->tag};
    bool same = true;
    for (size_t i = 0; same && i < list.count; i++) {
        wk_entity e = list.items[i];
        wk_entity_list ca = {0}, cb = {0};
        wk_ecm_children(a, e, &ca);
        wk_ecm_children(b, e, &cb);
        same = ca.count == cb.count && (ca.count == 0 || memcmp(ca.items, cb.items, ca.count * sizeof *ca.items) == 0);
        same = same && wk_ecm_is_new(a, e) == wk_ecm_is_new(b, e);
        same = same && wk_ecm_is_marked_for_removal(a, e) == wk_ecm_is_marked_for_removal(b, e);
        for (size_t k = 0; same && k < sizeof types / sizeof types[0]; k++)
            same = wk_ecm_changed(a, e, types[k]) == wk_ecm_changed(b, e, types[k]);
        if (!same)
            fprintf(stderr, "    entity %llu: children, newness, mark or change states differ\n",
                    (unsigned long long)e);
        wk_entity_list_free(&ca);
        wk_entity_list_free(&cb);
    }
    wk_entity_list_free(&list);
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
        same = same && wk_ecm_type_in_use(a, types[k]) == wk_ecm_type_in_use(b, types[k]);
    return same && wk_ecm_has_new_entities(a) == wk_ecm_has_new_entities(b) &&
           wk_ecm_has_marked_for_removal(a) == wk_ecm_has_marked_for_removal(b) &&
           wk_ecm_has_one_time_changes(a) == wk_ecm_has_one_time_changes(b);
}

/* The ECM is as the snapshot says: same bytes, equal, same tracking, and
 * the next entities created get the ids they get in the clone. Consumes
 * the snapshot. */
static bool restored(const fixture *f, snapshot *s)
{
    wk_buf full = {0}, changed = {0};
    serialize(f->ecm, false, &full);
    serialize(f->ecm, true, &changed);
    bool ok = CHECK(same_bytes(&full, &s->full));
    ok &= CHECK(same_bytes(&changed, &s->changed));
    wk_status why = {0};
    bool equal = wk_ecm_equal(f->ecm, s->clone, &why) && wk_ecm_equal(s->clone, f->ecm, &why);
    if (!equal)
        fprintf(stderr, "    ECMs differ: %s\n", why.message);
    ok &= CHECK(equal);
    ok &= CHECK(same_tracking(f, f->ecm, s->clone));
    ok &= CHECK_U64(wk_ecm_count(f->ecm), ==, wk_ecm_count(s->clone));
    for (int i = 0; i < 3; i++)
        ok &= CHECK_U64(wk_ecm_create(f->ecm), ==, wk_ecm_create(s->clone));
    wk_buf_free(&full);
    wk_buf_free(&changed);
    drop(s);
    return ok;
}

/* ---- a small world ----------------------------------------------------- */

/* A settled world: a robot with three links (the middle one with a child),
 * two loose entities; then, in the current step, a new entity, a changed
 * value and a removal mark, so the step's tracking is not empty. */
typedef struct world {
    fixture f;
    wk_entity robot, link[3], tool, loose[2], fresh;
} world;

static world world_new(void)
{
    world w = {.f = fixture_new()};
    wk_ecm *ecm = w.f.ecm;
    if (!ecm)
        return w;
    w.robot = wk_ecm_create(ecm);
    set_name(&w.f, w.robot, "robot");
    for (int i = 0; i < 3; i++) {
        w.link[i] = wk_ecm_create(ecm);
        char name[16];
        snprintf(name, sizeof name, "link%d", i);
        set_name(&w.f, w.link[i], name);
        wk_ecm_set(ecm, w.link[i], w.f.pos, &(vec){i, 0, 0});
        wk_ecm_set_parent(ecm, w.link[i], w.robot);
    }
    w.tool = wk_ecm_create_with(ecm, (wk_type[]){w.f.pos, w.f.tag}, (const void *[]){&(vec){9, 9, 9}, NULL}, 2);
    wk_ecm_set_parent(ecm, w.tool, w.link[1]);
    for (int i = 0; i < 2; i++) {
        w.loose[i] = wk_ecm_create(ecm);
        wk_ecm_set(ecm, w.loose[i], w.f.vel, &(vec){0, i, 0});
    }
    wk_ecm_end_step(ecm);
    w.fresh = wk_ecm_create(ecm);
    set_name(&w.f, w.fresh, "fresh");
    wk_ecm_set(ecm, w.loose[0], w.f.vel, &(vec){1, 1, 1});
    wk_ecm_request_remove(ecm, w.loose[1], false);
    return w;
}

/* ---- misuse ------------------------------------------------------------- */

static void misuse_is_refused(void)
{
    world w = world_new();
    wk_ecm *ecm = w.f.ecm;
    REQUIRE(ecm);
    CHECK_INT(wk_ecm_txn_commit(ecm), ==, WK_INVALID);
    CHECK_INT(wk_ecm_txn_rollback(ecm), ==, WK_INVALID);
    CHECK(!wk_ecm_txn_open(ecm));
    CHECK_INT(wk_ecm_txn_begin(ecm), ==, WK_OK);
    CHECK(wk_ecm_txn_open(ecm));
    CHECK_INT(wk_ecm_txn_begin(ecm), ==, WK_BUSY);
    CHECK_INT(wk_ecm_end_step(ecm), ==, WK_BUSY);
    CHECK_INT(wk_ecm_txn_rollback(ecm), ==, WK_OK);
    CHECK(!wk_ecm_txn_open(ecm));

    /* Not while an iterator is open: its queued changes would be left out. */
    wk_query *q = wk_query_new(ecm, &(wk_query_desc){.with = {w.f.pos}});
    REQUIRE(q);
    wk_iter it = wk_query_iter(q);
    CHECK_INT(wk_ecm_txn_begin(ecm), ==, WK_BUSY);
    wk_iter_fini(&it);
    CHECK_INT(wk_ecm_txn_begin(ecm), ==, WK_OK);
    it = wk_query_iter(q);
    CHECK_INT(wk_ecm_txn_commit(ecm), ==, WK_BUSY);
    CHECK_INT(wk_ecm_txn_rollback(ecm), ==, WK_BUSY);
    wk_iter_fini(&it);
    CHECK_INT(wk_ecm_txn_commit(ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_end_step(ecm), ==, WK_OK);
    wk_query_free(q);
    wk_ecm_free(ecm);
}

/* ---- each mutation alone ----------------------------------------------- */

typedef void (*mutation)(world *w);

static void do_create(world *w)
{
    wk_entity e = wk_ecm_create(w->f.ecm);
    CHECK(e != WK_NULL_ENTITY);
    wk_entity g = wk_ecm_create_with(w->f.ecm, (wk_type[]){w->f.name, w->f.pos},
                                     (const void *[]){&(const char *){"born"}, &(vec){1, 2, 3}}, 2);
    CHECK(g != WK_NULL_ENTITY);
    CHECK_INT(wk_ecm_set_parent(w->f.ecm, g, w->robot), ==, WK_OK);
}

static void do_destroy_middle_row(world *w)
{
    /* link0 sits in the middle of its table: the last row fills its place. */
    CHECK_INT(wk_ecm_destroy(w->f.ecm, w->link[0], false), ==, WK_OK);
}

static void do_destroy_parent_alone(world *w)
{
    /* The robot's links become roots; their order must come back. */
    CHECK_INT(wk_ecm_destroy(w->f.ecm, w->robot, false), ==, WK_OK);
}

static void do_destroy_recursive(world *w)
{
    CHECK_INT(wk_ecm_destroy(w->f.ecm, w->robot, true), ==, WK_OK);
    CHECK_U64(wk_ecm_count(w->f.ecm), ==, 3);
}

static void do_destroy_marked_and_new(world *w)
{
    CHECK_INT(wk_ecm_destroy(w->f.ecm, w->loose[1], false), ==, WK_OK);
    CHECK_INT(wk_ecm_destroy(w->f.ecm, w->fresh, false), ==, WK_OK);
}

static void do_set(world *w)
{
    CHECK_INT(wk_ecm_set(w->f.ecm, w->link[1], w->f.pos, &(vec){5, 5, 5}), ==, 1);
    CHECK_INT(set_name(&w->f, w->link[1], "renamed"), ==, 1);
    CHECK_INT(set_name(&w->f, w->link[1], "renamed twice"), ==, 1);
    CHECK_INT(wk_ecm_set(w->f.ecm, w->loose[0], w->f.vel, &(vec){2, 2, 2}), ==, 1);
}

static void do_add(world *w)
{
    CHECK_INT(set_name(&w->f, w->loose[0], "named"), ==, 1);
    vec *v = wk_ecm_get_or_add(w->f.ecm, w->link[2], w->f.vel, &(vec){7, 7, 7});
    CHECK(v && v->x == 7);
    CHECK_INT(wk_ecm_set(w->f.ecm, w->robot, w->f.tag, NULL), ==, 1);
}

static void do_remove(world *w)
{
    CHECK_INT(wk_ecm_remove(w->f.ecm, w->link[0], w->f.name), ==, 1);
    CHECK_INT(wk_ecm_remove(w->f.ecm, w->tool, w->f.tag), ==, 1);
    CHECK_INT(wk_ecm_remove(w->f.ecm, w->fresh, w->f.name), ==, 1);
}

static void do_set_parent(world *w)
{
    CHECK_INT(wk_ecm_set_parent(w->f.ecm, w->link[0], w->loose[0]), ==, WK_OK);
    CHECK_INT(wk_ecm_set_parent(w->f.ecm, w->link[1], WK_NULL_ENTITY), ==, WK_OK);
    CHECK_INT(wk_ecm_set_parent(w->f.ecm, w->loose[1], w->robot), ==, WK_OK);
}

static void do_step_tracking(world *w)
{
    CHECK_INT(wk_ecm_request_remove(w->f.ecm, w->robot, true), ==, WK_OK);
    CHECK_INT(wk_ecm_set_changed(w->f.ecm, w->link[2], w->f.pos, WK_PERIODIC_CHANGE), ==, WK_OK);
    CHECK_INT(wk_ecm_set_changed(w->f.ecm, w->loose[0], w->f.vel, WK_NO_CHANGE), ==, WK_OK);
    CHECK_INT(wk_ecm_set_create_offset(w->f.ecm, 1000), ==, WK_OK);
    CHECK(wk_ecm_create(w->f.ecm) == 1000);
    wk_ecm_request_remove_all(w->f.ecm);
    CHECK(wk_ecm_is_marked_for_removal(w->f.ecm, w->link[2]));
}

static void do_create_then_destroy(world *w)
{
    /* Born and gone inside the transaction, and a slot freed and reused. */
    wk_entity e = wk_ecm_create(w->f.ecm);
    set_name(&w->f, e, "ephemeral");
    CHECK_INT(wk_ecm_set_parent(w->f.ecm, e, w->link[2]), ==, WK_OK);
    CHECK_INT(wk_ecm_destroy(w->f.ecm, e, true), ==, WK_OK);
    CHECK_INT(wk_ecm_destroy(w->f.ecm, w->loose[0], false), ==, WK_OK);
    wk_entity reuse = wk_ecm_create(w->f.ecm);
    CHECK_U64((uint32_t)reuse, ==, (uint32_t)w->loose[0]);
    CHECK(reuse != w->loose[0]);
}

static void do_everything_deferred(world *w)
{
    /* Changes queued by an open iterator are recorded when they apply. */
    wk_query *q = wk_query_new(w->f.ecm, &(wk_query_desc){.with = {w->f.pos}});
    wk_iter it = wk_query_iter(q);
    while (wk_iter_next(&it)) {
        for (size_t i = 0; i < it.count; i++) {
            wk_ecm_set(w->f.ecm, it.entities[i], w->f.vel, &(vec){3, 3, 3});
            wk_ecm_remove(w->f.ecm, it.entities[i], w->f.name);
        }
        wk_ecm_destroy(w->f.ecm, w->link[1], true);
        CHECK(wk_ecm_exists(w->f.ecm, w->link[1]));
    }
    CHECK(!wk_ecm_exists(w->f.ecm, w->link[1]));
    wk_query_free(q);
}

static void do_set_state(world *w)
{
    /* Applying another world's complete state replaces this one, and takes
     * its free slots: link0's slot, two generations on. */
    world other = world_new();
    wk_ecm_destroy(other.f.ecm, other.link[0], false);
    wk_ecm_destroy(other.f.ecm, wk_ecm_create(other.f.ecm), false);
    set_name(&other.f, other.tool, "from afar");
    wk_ecm_set_create_offset(other.f.ecm, 50);
    wk_ecm_create(other.f.ecm);
    /* A full state leaves out entities marked for removal: settle them. */
    wk_ecm_end_step(other.f.ecm);
    wk_buf buf = {0};
    CHECK_INT(wk_ecm_state(other.f.ecm, NULL, &buf), ==, WK_OK);
    CHECK_INT(wk_ecm_set_state(w->f.ecm, buf.data, buf.len), ==, WK_OK);
    CHECK(wk_ecm_equal(w->f.ecm, other.f.ecm, NULL));
    wk_buf_free(&buf);
    wk_ecm_free(other.f.ecm);
}

static const struct {
    const char *name;
    mutation run;
} mutations[] = {
    {"create", do_create},
    {"destroy_middle_row", do_destroy_middle_row},
    {"destroy_parent_alone", do_destroy_parent_alone},
    {"destroy_recursive", do_destroy_recursive},
    {"destroy_marked_and_new", do_destroy_marked_and_new},
    {"set", do_set},
    {"add", do_add},
    {"remove", do_remove},
    {"set_parent", do_set_parent},
    {"step_tracking", do_step_tracking},
    {"create_then_destroy", do_create_then_destroy},
    {"deferred", do_everything_deferred},
    {"set_state", do_set_state},
};

static void each_mutation_rolls_back(void)
{
    for (size_t m = 0; m < sizeof mutations / sizeof mutations[0]; m++) {
        world w = world_new();
        REQUIRE(w.f.ecm);
        snapshot before = take(w.f.ecm);
        CHECK_INT(wk_ecm_txn_begin(w.f.ecm), ==, WK_OK);
        mutations[m].run(&w);
        CHECK_INT(wk_ecm_txn_rollback(w.f.ecm), ==, WK_OK);
        if (!restored(&w.f, &before))
            fprintf(stderr, "    after rolling back %s\n", mutations[m].name);
        wk_ecm_free(w.f.ecm);
    }
}

/* A commit keeps exactly what the same calls do without a transaction. */
static void each_mutation_commits(void)
{
    for (size_t m = 0; m < sizeof mutations / sizeof mutations[0]; m++) {
        world w = world_new(), plain = world_new();
        REQUIRE(w.f.ecm && plain.f.ecm);
        mutations[m].run(&plain);
        snapshot want = take(plain.f.ecm);
        CHECK_INT(wk_ecm_txn_begin(w.f.ecm), ==, WK_OK);
        mutations[m].run(&w);
        CHECK_INT(wk_ecm_txn_commit(w.f.ecm), ==, WK_OK);
        if (!restored(&w.f, &want))
            fprintf(stderr, "    after committing %s\n", mutations[m].name);
        wk_ecm_free(w.f.ecm);
        wk_ecm_free(plain.f.ecm);
    }
}

static void destroyed_ids_come_back(void)
{
    world w = world_new();
    wk_ecm *ecm = w.f.ecm;
    REQUIRE(ecm);
    wk_entity links[3] = {w.link[0], w.link[1], w.link[2]};
    CHECK_INT(wk_ecm_txn_begin(ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_destroy(ecm, w.robot, true), ==, WK_OK);
    CHECK(!wk_ecm_exists(ecm, w.link[1]));
    /* New entities take the freed slots with new generations. */
    wk_entity taken[5];
    for (int i = 0; i < 5; i++)
        taken[i] = wk_ecm_create(ecm);
    CHECK_INT(wk_ecm_txn_rollback(ecm), ==, WK_OK);
    CHECK(wk_ecm_exists(ecm, w.robot));
    CHECK(wk_ecm_exists(ecm, w.tool));
    CHECK_U64(wk_ecm_parent(ecm, w.tool), ==, w.link[1]);
    wk_entity_list children = {0};
    CHECK_INT(wk_ecm_children(ecm, w.robot, &children), ==, WK_OK);
    CHECK_INT(children.count, ==, 3);
    for (size_t i = 0; i < children.count && i < 3; i++)
        CHECK_U64(children.items[i], ==, links[i]);
    wk_entity_list_free(&children);
    CHECK_STR(get_name(&w.f, w.link[1]), "link1");
    const vec *p = wk_ecm_get(ecm, w.tool, w.f.pos);
    CHECK(p && p->x == 9);
    CHECK(wk_ecm_has(ecm, w.tool, w.f.tag));
    for (int i = 0; i < 5; i++) {
        CHECK(!wk_ecm_exists(ecm, taken[i]));
        CHECK_INT(wk_ecm_set(ecm, taken[i], w.f.pos, &(vec){0, 0, 0}), ==, WK_STALE);
    }
    /* An id made stale before the transaction stays stale. */
    wk_entity gone = wk_ecm_create(ecm);
    wk_ecm_destroy(ecm, gone, false);
    CHECK_INT(wk_ecm_txn_begin(ecm), ==, WK_OK);
    wk_entity again = wk_ecm_create(ecm);
    CHECK_U64((uint32_t)again, ==, (uint32_t)gone);
    CHECK_INT(wk_ecm_txn_rollback(ecm), ==, WK_OK);
    CHECK(!wk_ecm_exists(ecm, gone));
    CHECK(!wk_ecm_exists(ecm, again));
    CHECK_U64(wk_ecm_create(ecm), ==, again);
    wk_ecm_free(ecm);
}

/* A complete state applied in a transaction raises the generations of the
 * slots it says are free; rollback lowers them again. */
static void rolled_back_state_keeps_generations(void)
{
    fixture f = fixture_new(), other = fixture_new();
    REQUIRE(f.ecm && other.ecm);
    CHECK_INT(wk_ecm_set_create_offset(other.ecm, 60), ==, WK_OK);
    CHECK_INT(wk_ecm_destroy(other.ecm, wk_ecm_create(other.ecm), false), ==, WK_OK);
    wk_buf state = {0};
    CHECK_INT(wk_ecm_state(other.ecm, NULL, &state), ==, WK_OK);
    CHECK_INT(wk_ecm_txn_begin(f.ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_set_state(f.ecm, state.data, state.len), ==, WK_OK);
    CHECK_INT(wk_ecm_set_create_offset(f.ecm, 60), ==, WK_OK);
    CHECK_U64(wk_ecm_create(f.ecm), ==, ((uint64_t)1 << 32) | 60); /* slot 60 as other would hand it out */
    CHECK_INT(wk_ecm_txn_rollback(f.ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_set_create_offset(f.ecm, 60), ==, WK_OK);
    CHECK_U64(wk_ecm_create(f.ecm), ==, 60); /* generation 0 again */
    wk_buf_free(&state);
    wk_ecm_free(f.ecm);
    wk_ecm_free(other.ecm);
}

/* ---- a failed mutation inside a transaction changes nothing ------------- */

/* A string type whose copy fails for "FAIL", standing in for out of memory. */
static int picky_copy(void *dst, const void *src)
{
    if (strcmp(*(char *const *)src, "FAIL") == 0)
        return WK_NOMEM;
    return str_copy(dst, src);
}

static void failed_mutation_has_no_effect(void)
{
    world w = world_new();
    wk_ecm *ecm = w.f.ecm;
    REQUIRE(ecm);
    wk_type picky;
    REQUIRE_INT(wk_ecm_register(ecm,
                                &(wk_type_desc){.name = "Picky",
                                                .size = sizeof(char *),
                                                .hooks = {picky_copy, str_destroy, str_equal, str_serialize,
                                                          str_deserialize}},
                                &picky),
                ==, WK_OK);
    CHECK_INT(wk_ecm_txn_begin(ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_destroy(ecm, w.link[0], false), ==, WK_OK);
    snapshot mid = take(ecm);
    const char *ok = "fine", *bad = "FAIL";
    CHECK(!wk_ecm_create_with(ecm, (wk_type[]){w.f.pos, picky, w.f.name},
                              (const void *[]){&(vec){1, 1, 1}, &bad, &(const char *){"x"}}, 3));
    CHECK(!wk_ecm_create_with(ecm, (wk_type[]){w.f.name, picky}, (const void *[]){&ok, &bad}, 2));
    CHECK_INT(wk_ecm_set(ecm, w.link[1], picky, &bad), ==, WK_NOMEM);
    restored(&w.f, &mid);
    /* An overwrite that fails keeps the old value. */
    CHECK_INT(wk_ecm_set(ecm, w.link[1], picky, &ok), ==, 1);
    mid = take(ecm);
    CHECK_INT(wk_ecm_set(ecm, w.link[1], picky, &bad), ==, WK_NOMEM);
    char *const *kept = wk_ecm_get(ecm, w.link[1], picky);
    CHECK_STR(kept ? *kept : NULL, "fine");
    restored(&w.f, &mid);
    CHECK_INT(wk_ecm_txn_rollback(ecm), ==, WK_OK);
    CHECK(wk_ecm_exists(ecm, w.link[0]));
    wk_ecm_free(ecm);
}

/* ---- long random runs ------------------------------------------------- */

static uint64_t next_random(uint64_t *state)
{
    /* splitmix64: every seed gives a good sequence */
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The entities a run has made, some of them dead by now: picking dead ones
 * too exercises the stale-id paths. */
typedef struct pool {
    wk_entity items[8192];
    size_t count;
} pool;

static void pool_add(pool *p, wk_entity e)
{
    if (e && p->count < sizeof p->items / sizeof p->items[0])
        p->items[p->count++] = e;
}

static wk_entity pick(const pool *p, uint64_t *rng)
{
    return p->count ? p->items[next_random(rng) % p->count] : WK_NULL_ENTITY;
}

static const char *const words[] = {"alpha", "beta", "gamma", "a much longer name for a string component", ""};

/* One random mutation on both ECMs (b may be NULL); their results must
 * agree, as must the ids they make. */
static void random_op(const fixture *fa, wk_ecm *b, pool *p, uint64_t *rng)
{
    wk_ecm *a = fa->ecm;
    const wk_type types[] = {fa->pos, fa->vel, fa->name, fa->tag};
    wk_entity e = pick(p, rng), other = pick(p, rng);
    wk_type type = types[next_random(rng) % 4];
    const char *word = words[next_random(rng) % 5];
    vec v = {(double)(next_random(rng) % 100), 1, 2};
    const void *value = type == fa->name ? (const void *)&word : type == fa->tag ? NULL : (const void *)&v;
    bool flag = next_random(rng) % 2;
    long long ra = 0, rb = 0;
    switch (next_random(rng) % 12) {
    case 0: {
        wk_entity x = wk_ecm_create(a);
        ra = (long long)x;
        rb = b ? (long long)wk_ecm_create(b) : ra;
        pool_add(p, x);
        break;
    }
    case 1: {
        wk_type two[] = {fa->name, type == fa->name ? fa->pos : type};
        const void *vals[] = {&word, type == fa->name ? (const void *)&v : value};
        wk_entity x = wk_ecm_create_with(a, two, vals, 2);
        ra = (long long)x;
        rb = b ? (long long)wk_ecm_create_with(b, two, vals, 2) : ra;
        pool_add(p, x);
        break;
    }
    case 2:
        ra = wk_ecm_destroy(a, e, flag);
        rb = b ? wk_ecm_destroy(b, e, flag) : ra;
        break;
    case 3:
    case 4:
    case 5:
        ra = wk_ecm_set(a, e, type, value);
        rb = b ? wk_ecm_set(b, e, type, value) : ra;
        break;
    case 6:
        if (type == fa->tag)
            type = fa->vel;
        ra = wk_ecm_get_or_add(a, e, type, type == fa->name ? (const void *)&word : &v) != NULL;
        rb = b ? wk_ecm_get_or_add(b, e, type, type == fa->name ? (const void *)&word : &v) != NULL : ra;
        break;
    case 7:
    case 8:
        ra = wk_ecm_remove(a, e, type);
        rb = b ? wk_ecm_remove(b, e, type) : ra;
        break;
    case 9:
        if (flag)
            other = WK_NULL_ENTITY;
        ra = wk_ecm_set_parent(a, e, other);
        rb = b ? wk_ecm_set_parent(b, e, other) : ra;
        break;
    case 10:
        ra = wk_ecm_request_remove(a, e, flag);
        rb = b ? wk_ecm_request_remove(b, e, flag) : ra;
        break;
    case 11: {
        wk_change change = (wk_change)(next_random(rng) % 3);
        ra = wk_ecm_set_changed(a, e, type, change);
        rb = b ? wk_ecm_set_changed(b, e, type, change) : ra;
        break;
    }
    }
    CHECK_INT(ra, ==, rb);
}

/* The pool of a random run; static, as it is too big for the stack. */
static pool run_pool;

/* A settled world made by ops random calls, plus a step's worth of changes;
 * p starts empty. */
static void random_world(const fixture *f, wk_ecm *twin, pool *p, uint64_t *rng, int ops)
{
    p->count = 0;
    for (int i = 0; i < ops; i++)
        random_op(f, twin, p, rng);
    CHECK_INT(wk_ecm_end_step(f->ecm), ==, WK_OK);
    if (twin)
        CHECK_INT(wk_ecm_end_step(twin), ==, WK_OK);
    for (int i = 0; i < ops / 10; i++)
        random_op(f, twin, p, rng);
}

static void random_runs_roll_back(void)
{
    for (uint64_t seed = 1; seed <= 12; seed++) {
        fixture f = fixture_new();
        REQUIRE(f.ecm);
        uint64_t rng = seed;
        random_world(&f, NULL, &run_pool, &rng, 1500);
        /* A few transactions in a row, rolled back or committed. */
        for (int round = 0; round < 4; round++) {
            snapshot before = take(f.ecm);
            CHECK_INT(wk_ecm_txn_begin(f.ecm), ==, WK_OK);
            int ops = 500 + (int)(next_random(&rng) % 2500);
            for (int i = 0; i < ops; i++)
                random_op(&f, NULL, &run_pool, &rng);
            if (round == 2) {
                CHECK_INT(wk_ecm_txn_commit(f.ecm), ==, WK_OK);
                drop(&before);
                continue;
            }
            CHECK_INT(wk_ecm_txn_rollback(f.ecm), ==, WK_OK);
            if (!restored(&f, &before))
                fprintf(stderr, "    seed %llu, round %d\n", (unsigned long long)seed, round);
        }
        wk_ecm_free(f.ecm);
    }
}

static void random_runs_commit_like_plain_calls(void)
{
    for (uint64_t seed = 100; seed <= 105; seed++) {
        fixture f = fixture_new(), g = fixture_new();
        REQUIRE(f.ecm && g.ecm);
        uint64_t rng = seed;
        random_world(&f, g.ecm, &run_pool, &rng, 1000);
        CHECK_INT(wk_ecm_txn_begin(f.ecm), ==, WK_OK);
        for (int i = 0; i < 3000; i++)
            random_op(&f, g.ecm, &run_pool, &rng);
        CHECK_INT(wk_ecm_txn_commit(f.ecm), ==, WK_OK);
        snapshot want = take(g.ecm);
        restored(&f, &want);
        wk_ecm_free(f.ecm);
        wk_ecm_free(g.ecm);
    }
}

/* Every so often recording fails, as out of memory would: the mutation must
 * then fail without a trace, and the rollback still restore everything. */
static void failed_records_have_no_effect(void)
{
    for (uint64_t seed = 200; seed <= 205; seed++) {
        fixture f = fixture_new();
        REQUIRE(f.ecm);
        uint64_t rng = seed;
        random_world(&f, NULL, &run_pool, &rng, 300);
        snapshot start = take(f.ecm);
        CHECK_INT(wk_ecm_txn_begin(f.ecm), ==, WK_OK);
        int faults = 0;
        for (int i = 0; i < 300; i++) {
            snapshot before = take(f.ecm);
            wk__txn_fail_countdown = 1 + next_random(&rng) % 3;
            random_op(&f, NULL, &run_pool, &rng);
            bool fault = wk__txn_fail_countdown == 0;
            wk__txn_fail_countdown = 0;
            if (!fault) {
                drop(&before);
                continue;
            }
            faults++;
            if (!restored(&f, &before))
                fprintf(stderr, "    seed %llu, op %d failed with an effect\n", (unsigned long long)seed, i);
        }
        CHECK_INT(faults, >, 20);
        CHECK_INT(wk_ecm_txn_rollback(f.ecm), ==, WK_OK);
        restored(&f, &start);
        wk_ecm_free(f.ecm);
    }
}

/* A type registered inside a transaction stays registered (the full state's
 * header lists it), but nothing has it after the rollback. */
static void registration_stays(void)
{
    world w = world_new();
    wk_ecm *ecm = w.f.ecm;
    REQUIRE(ecm);
    wk_ecm *before = wk_ecm_clone(ecm);
    REQUIRE(before);
    CHECK_INT(wk_ecm_txn_begin(ecm), ==, WK_OK);
    wk_type extra;
    REQUIRE_INT(wk_ecm_register(ecm, &(wk_type_desc){.name = "Extra", .size = sizeof(int)}, &extra), ==, WK_OK);
    wk_entity e = wk_ecm_create_with(ecm, &extra, (const void *[]){&(int){4}}, 1);
    CHECK_INT(wk_ecm_set(ecm, w.robot, extra, &(int){5}), ==, 1);
    CHECK(wk_ecm_type_in_use(ecm, extra));
    CHECK_INT(wk_ecm_txn_rollback(ecm), ==, WK_OK);
    CHECK_U64(wk_ecm_type_by_name(ecm, "Extra"), ==, extra);
    CHECK(!wk_ecm_type_in_use(ecm, extra));
    CHECK(!wk_ecm_exists(ecm, e));
    CHECK(!wk_ecm_has(ecm, w.robot, extra));
    CHECK(wk_ecm_equal(ecm, before, NULL) && wk_ecm_equal(before, ecm, NULL));
    CHECK(same_tracking(&w.f, ecm, before));
    wk_ecm_free(before);
    wk_ecm_free(ecm);
}

/* The version moves with every change, and forward on rollback. */
static void version_counts_changes(void)
{
    world w = world_new();
    wk_ecm *ecm = w.f.ecm;
    REQUIRE(ecm);
    uint64_t v = wk_ecm_version(ecm);
#define MOVES(call)                                    \
    do {                                               \
        call;                                          \
        CHECK_U64(wk_ecm_version(ecm), >, v);          \
        v = wk_ecm_version(ecm);                       \
    } while (0)
#define STAYS(call)                                    \
    do {                                               \
        call;                                          \
        CHECK_U64(wk_ecm_version(ecm), ==, v);         \
    } while (0)
    STAYS(wk_ecm_get(ecm, w.link[0], w.f.pos));
    STAYS(wk_ecm_set(ecm, w.link[0], w.f.pos, &(vec){0, 0, 0})); /* equal already */
    STAYS(wk_ecm_set_parent(ecm, w.link[0], w.robot));            /* parent already */
    STAYS(wk_ecm_destroy(ecm, WK_NULL_ENTITY, false));
    MOVES(wk_ecm_set(ecm, w.link[0], w.f.pos, &(vec){1, 0, 0}));
    MOVES(wk_ecm_set(ecm, w.link[0], w.f.vel, &(vec){1, 0, 0}));
    MOVES(wk_ecm_remove(ecm, w.link[0], w.f.vel));
    MOVES(wk_ecm_set_parent(ecm, w.link[0], WK_NULL_ENTITY));
    MOVES(wk_ecm_set_changed(ecm, w.link[0], w.f.pos, WK_PERIODIC_CHANGE));
    MOVES(wk_ecm_request_remove(ecm, w.link[2], false));
    MOVES(wk_ecm_txn_begin(ecm); wk_ecm_create(ecm));
    MOVES(wk_ecm_destroy(ecm, w.robot, true));
    MOVES(wk_ecm_txn_rollback(ecm));
    MOVES(wk_ecm_end_step(ecm));
#undef MOVES
#undef STAYS
    wk_ecm_free(ecm);
}

static const wk_test_case cases[] = {
    {"misuse_is_refused", misuse_is_refused},
    {"each_mutation_rolls_back", each_mutation_rolls_back},
    {"each_mutation_commits", each_mutation_commits},
    {"destroyed_ids_come_back", destroyed_ids_come_back},
    {"rolled_back_state_keeps_generations", rolled_back_state_keeps_generations},
    {"failed_mutation_has_no_effect", failed_mutation_has_no_effect},
    {"random_runs_roll_back", random_runs_roll_back},
    {"random_runs_commit_like_plain_calls", random_runs_commit_like_plain_calls},
    {"failed_records_have_no_effect", failed_records_have_no_effect},
    {"registration_stays", registration_stays},
    {"version_counts_changes", version_counts_changes},
};

WK_TEST_MAIN(cases)
