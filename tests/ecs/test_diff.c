/* test_diff.c — wk_ecm_diff: nothing between clones; each kind of difference
 * with the types it names; a slot reused by another generation; types
 * registered in another order or with another size; the same entity in
 * other rows or tables; the callback stopping the walk; and random
 * mutations of a clone checked against a naive diff through the public API. */
#include <stdio.h>

#include "ecs/fixture.h"
#include "wk_test.h"

/* One reported entity, its type lists as sorted, comma-separated names. */
typedef struct seen {
    wk_entity entity;
    wk_ecm_diff_kind kind;
    bool parent;
    char changed[96], removed[96], added[96];
} seen;

typedef struct recorder {
    const wk_ecm *a, *b;
    seen *items;
    size_t count, cap;
} recorder;

static int by_name(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void names_of(const wk_ecm *ecm, const wk_type *types, size_t n, char *out, size_t cap)
{
    const char *names[16];
    n = n < 16 ? n : 16;
    for (size_t i = 0; i < n; i++)
        names[i] = wk_ecm_type_name(ecm, types[i]);
    qsort(names, n, sizeof *names, by_name);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%s%s", i ? "," : "", names[i]);
    }
}

static int record(const wk_ecm_diff_entry *e, void *ctx)
{
    recorder *r = ctx;
    if (r->count == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 16;
        r->items = realloc(r->items, r->cap * sizeof *r->items);
        if (!r->items)
            return WK_NOMEM;
    }
    seen *s = &r->items[r->count++];
    *s = (seen){.entity = e->entity, .kind = e->kind, .parent = e->parent_changed};
    names_of(r->a, e->changed, e->changed_count, s->changed, sizeof s->changed);
    names_of(r->a, e->removed, e->removed_count, s->removed, sizeof s->removed);
    names_of(r->b, e->added, e->added_count, s->added, sizeof s->added);
    return WK_OK;
}

/* Runs the diff into r (emptied first); its result code. */
static int diff(recorder *r, const wk_ecm *a, const wk_ecm *b)
{
    r->a = a;
    r->b = b;
    r->count = 0;
    return wk_ecm_diff(a, b, record, r);
}

static const seen *find_seen(const recorder *r, wk_entity e, wk_ecm_diff_kind kind)
{
    for (size_t i = 0; i < r->count; i++)
        if (r->items[i].entity == e && r->items[i].kind == kind)
            return &r->items[i];
    return NULL;
}

/* A world over several tables and blocks: 300 entities with Position, every
 * third with Velocity, every second a Name, every fifth Static, each one
 * after the first ten a child of one of those. */
static wk_entity *populate(const fixture *f, size_t n)
{
    wk_entity *ids = calloc(n, sizeof *ids);
    if (!ids)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        ids[i] = wk_ecm_create(f->ecm);
        vec p = {(double)i, 1, 2};
        wk_ecm_set(f->ecm, ids[i], f->pos, &p);
        if (i % 3 == 0)
            wk_ecm_set(f->ecm, ids[i], f->vel, &(vec){0, 0, (double)i});
        if (i % 2 == 0) {
            char name[32];
            snprintf(name, sizeof name, "e%zu", i);
            set_name(f, ids[i], name);
        }
        if (i % 5 == 0)
            wk_ecm_set(f->ecm, ids[i], f->tag, NULL);
        if (i >= 10)
            wk_ecm_set_parent(f->ecm, ids[i], ids[i % 10]);
    }
    return ids;
}

/* A populated world (f), its ids, and a clone of it (b, with fb its
 * fixture) to change. */
typedef struct twins {
    fixture f, fb;
    wk_entity *ids;
    wk_ecm *b;
} twins;

static void twins_free(twins *t)
{
    free(t->ids);
    wk_ecm_free(t->b);
    wk_ecm_free(t->f.ecm);
}

static bool twins_new(twins *t, size_t n)
{
    *t = (twins){.f = fixture_new()};
    t->ids = t->f.ecm ? populate(&t->f, n) : NULL;
    t->b = t->ids ? wk_ecm_clone(t->f.ecm) : NULL;
    t->fb = t->f;
    t->fb.ecm = t->b;
    if (!t->b)
        twins_free(t);
    return t->b != NULL;
}

static void clones_report_nothing(void)
{
    twins t;
    REQUIRE(twins_new(&t, 300));
    fixture f = t.f;
    wk_entity *ids = t.ids;
    wk_ecm *b = t.b;
    recorder r = {0};
    CHECK_INT(diff(&r, f.ecm, b), ==, WK_OK);
    CHECK_INT(r.count, ==, 0);
    CHECK_INT(diff(&r, f.ecm, f.ecm), ==, WK_OK);
    CHECK_INT(r.count, ==, 0);
    /* Setting a value to what it was, or marking it changed, is no difference. */
    vec p = {7, 1, 2};
    CHECK_INT(wk_ecm_set(b, ids[7], f.pos, &p), ==, 0);
    CHECK_INT(wk_ecm_set_changed(b, ids[8], f.pos, WK_PERIODIC_CHANGE), ==, WK_OK);
    CHECK_INT(diff(&r, f.ecm, b), ==, WK_OK);
    CHECK_INT(r.count, ==, 0);
    free(r.items);
    twins_free(&t);
}

static void each_kind_of_difference(void)
{
    twins t;
    REQUIRE(twins_new(&t, 300));
    fixture f = t.f, fb = t.fb;
    wk_entity *ids = t.ids;
    wk_ecm *b = t.b;
    CHECK_INT(wk_ecm_destroy(b, ids[131], false), ==, WK_OK); /* the last row moves into its place */
    wk_entity fresh = wk_ecm_create(b);
    CHECK_INT(wk_ecm_set(b, fresh, f.pos, &(vec){0}), ==, 1);
    CHECK_INT(wk_ecm_set(b, ids[200], f.pos, &(vec){-1, 0, 0}), ==, 1);
    CHECK_INT(set_name(&fb, ids[202], "renamed"), ==, 1);
    CHECK_INT(wk_ecm_set(b, ids[205], f.vel, &(vec){1, 1, 1}), ==, 1); /* another table */
    CHECK_INT(wk_ecm_remove(b, ids[210], f.name), ==, 1);
    CHECK_INT(wk_ecm_set_parent(b, ids[220], ids[3]), ==, WK_OK);
    CHECK_INT(wk_ecm_set(b, ids[221], f.tag, NULL), ==, 1);
    CHECK_INT(wk_ecm_set(b, ids[222], f.pos, &(vec){0}), ==, 1);
    CHECK_INT(wk_ecm_set_parent(b, ids[222], WK_NULL_ENTITY), ==, WK_OK);

    recorder r = {0};
    REQUIRE_INT(diff(&r, f.ecm, b), ==, WK_OK);
    CHECK_INT(r.count, ==, 9);
    const seen *s = find_seen(&r, ids[131], WK_DIFF_ONLY_A);
    CHECK(s && !s->parent && !s->changed[0] && !s->added[0]);
    CHECK(find_seen(&r, fresh, WK_DIFF_ONLY_B) != NULL);
    REQUIRE((s = find_seen(&r, ids[200], WK_DIFF_CHANGED)));
    CHECK_STR(s->changed, "Position");
    CHECK(!s->parent && !s->removed[0] && !s->added[0]);
    REQUIRE((s = find_seen(&r, ids[202], WK_DIFF_CHANGED)));
    CHECK_STR(s->changed, "Name");
    REQUIRE((s = find_seen(&r, ids[205], WK_DIFF_CHANGED)));
    CHECK_STR(s->added, "Velocity");
    CHECK(!s->changed[0] && !s->removed[0]);
    REQUIRE((s = find_seen(&r, ids[210], WK_DIFF_CHANGED)));
    CHECK_STR(s->removed, "Name");
    CHECK(!s->changed[0] && !s->added[0]);
    REQUIRE((s = find_seen(&r, ids[220], WK_DIFF_CHANGED)));
    CHECK(s->parent && !s->changed[0] && !s->removed[0] && !s->added[0]);
    REQUIRE((s = find_seen(&r, ids[221], WK_DIFF_CHANGED)));
    CHECK_STR(s->added, "Static");
    REQUIRE((s = find_seen(&r, ids[222], WK_DIFF_CHANGED)));
    CHECK(s->parent);
    CHECK_STR(s->changed, "Position");
    /* The other way round, only in a becomes only in b and added removed. */
    REQUIRE_INT(diff(&r, b, f.ecm), ==, WK_OK);
    CHECK_INT(r.count, ==, 9);
    CHECK(find_seen(&r, ids[131], WK_DIFF_ONLY_B) != NULL);
    CHECK(find_seen(&r, fresh, WK_DIFF_ONLY_A) != NULL);
    REQUIRE((s = find_seen(&r, ids[205], WK_DIFF_CHANGED)));
    CHECK_STR(s->removed, "Velocity");
    free(r.items);
    twins_free(&t);
}

/* A slot freed and taken again holds another entity: the old id is only in
 * a, the new only in b, and a child attached to the new one has another
 * parent even though the parent slot is the same. */
static void reused_slot_is_another_entity(void)
{
    fixture f = fixture_new();
    REQUIRE(f.ecm);
    wk_entity parent = wk_ecm_create(f.ecm), child = wk_ecm_create(f.ecm);
    CHECK_INT(wk_ecm_set_parent(f.ecm, child, parent), ==, WK_OK);
    wk_ecm *b = wk_ecm_clone(f.ecm);
    REQUIRE(b);
    CHECK_INT(wk_ecm_destroy(b, parent, false), ==, WK_OK);
    wk_entity again = wk_ecm_create(b);
    CHECK_U64((uint32_t)again, ==, (uint32_t)parent);
    CHECK_U64(again, !=, parent);
    CHECK_INT(wk_ecm_set_parent(b, child, again), ==, WK_OK);
    recorder r = {0};
    REQUIRE_INT(diff(&r, f.ecm, b), ==, WK_OK);
    CHECK_INT(r.count, ==, 3);
    CHECK(find_seen(&r, parent, WK_DIFF_ONLY_A) != NULL);
    CHECK(find_seen(&r, again, WK_DIFF_ONLY_B) != NULL);
    const seen *s = find_seen(&r, child, WK_DIFF_CHANGED);
    CHECK(s && s->parent);
    free(r.items);
    wk_ecm_free(b);
    wk_ecm_free(f.ecm);
}

/* b registers the same types backwards, one more, and Mass with another
 * size; entities are made in the same order, so they get the same ids. */
static void types_in_another_order(void)
{
    wk_ecm *a = wk_ecm_new(), *b = wk_ecm_new();
    REQUIRE(a && b);
    fixture fa = {0}, fb = {.ecm = b};
    REQUIRE_INT(fixture_register(a, &fa), ==, WK_OK);
    wk_type extra, mass_a, mass_b;
    REQUIRE_INT(wk_ecm_register(a, &(wk_type_desc){.name = "Mass", .size = 8}, &mass_a), ==, WK_OK);
    REQUIRE_INT(wk_ecm_register(b, &(wk_type_desc){.name = "Extra", .size = 4}, &extra), ==, WK_OK);
    REQUIRE_INT(wk_ecm_register(b, &(wk_type_desc){.name = "Static"}, &fb.tag), ==, WK_OK);
    REQUIRE_INT(wk_ecm_register(b, &(wk_type_desc){.name = "Mass", .size = 4}, &mass_b), ==, WK_OK);
    REQUIRE_INT(wk_ecm_register(b,
                                &(wk_type_desc){.name = "Name",
                                                .size = sizeof(char *),
                                                .hooks = {str_copy, str_destroy, str_equal, str_serialize,
                                                          str_deserialize}},
                                &fb.name),
                ==, WK_OK);
    REQUIRE_INT(wk_ecm_register(b, &(wk_type_desc){.name = "Velocity", .size = sizeof(vec)}, &fb.vel), ==, WK_OK);
    REQUIRE_INT(wk_ecm_register(b, &(wk_type_desc){.name = "Position", .size = sizeof(vec)}, &fb.pos), ==, WK_OK);
    CHECK_INT(fb.pos, !=, fa.pos);
    wk_entity *ia = populate(&fa, 150), *ib = populate(&fb, 150);
    REQUIRE(ia && ib);
    CHECK_U64(ia[149], ==, ib[149]);
    recorder r = {0};
    CHECK_INT(diff(&r, a, b), ==, WK_OK);
    CHECK_INT(r.count, ==, 0);

    CHECK_INT(wk_ecm_set(b, ib[100], fb.pos, &(vec){5, 5, 5}), ==, 1);
    CHECK_INT(wk_ecm_set(b, ib[101], extra, &(int){1}), ==, 1);
    CHECK_INT(wk_ecm_set(a, ia[102], mass_a, &(double){1}), ==, 1);
    CHECK_INT(wk_ecm_set(b, ib[102], mass_b, &(float){1}), ==, 1);
    REQUIRE_INT(diff(&r, a, b), ==, WK_OK);
    CHECK_INT(r.count, ==, 3);
    const seen *s = find_seen(&r, ia[100], WK_DIFF_CHANGED);
    REQUIRE(s);
    CHECK_STR(s->changed, "Position");
    REQUIRE((s = find_seen(&r, ia[101], WK_DIFF_CHANGED)));
    CHECK_STR(s->added, "Extra");
    REQUIRE((s = find_seen(&r, ia[102], WK_DIFF_CHANGED)));
    CHECK_STR(s->removed, "Mass"); /* the same name with another size is another type */
    CHECK_STR(s->added, "Mass");
    CHECK(!s->changed[0]);
    free(r.items);
    free(ia);
    free(ib);
    wk_ecm_free(a);
    wk_ecm_free(b);
}

/* The same ids, built in other orders: rows of a table in another order, and
 * one entity in another table with the same values where both have them. */
static void same_ids_in_other_rows_and_tables(void)
{
    fixture fa = fixture_new(), fb = fixture_new();
    REQUIRE(fa.ecm && fb.ecm);
    enum { N = 100 };
    wk_entity ia[N], ib[N];
    for (size_t i = 0; i < N; i++) {
        ia[i] = wk_ecm_create(fa.ecm);
        ib[i] = wk_ecm_create(fb.ecm);
    }
    for (size_t i = 0; i < N; i++) {
        size_t j = N - 1 - i; /* b fills its table backwards */
        wk_ecm_set(fa.ecm, ia[i], fa.pos, &(vec){(double)i, 0, 0});
        wk_ecm_set(fb.ecm, ib[j], fb.pos, &(vec){(double)j, 0, 0});
    }
    CHECK_INT(wk_ecm_set(fb.ecm, ib[40], fb.vel, &(vec){1, 0, 0}), ==, 1);
    CHECK_INT(wk_ecm_set(fb.ecm, ib[41], fb.pos, &(vec){-1, 0, 0}), ==, 1);
    recorder r = {0};
    REQUIRE_INT(diff(&r, fa.ecm, fb.ecm), ==, WK_OK);
    CHECK_INT(r.count, ==, 2);
    const seen *s = find_seen(&r, ia[40], WK_DIFF_CHANGED);
    REQUIRE(s);
    CHECK_STR(s->added, "Velocity");
    CHECK(!s->changed[0] && !s->removed[0] && !s->parent);
    REQUIRE((s = find_seen(&r, ia[41], WK_DIFF_CHANGED)));
    CHECK_STR(s->changed, "Position");
    free(r.items);
    wk_ecm_free(fa.ecm);
    wk_ecm_free(fb.ecm);
}

static int stop_at_first(const wk_ecm_diff_entry *e, void *ctx)
{
    (void)e;
    ++*(int *)ctx;
    return 42;
}

static void callback_stops_the_diff(void)
{
    twins t;
    REQUIRE(twins_new(&t, 100));
    for (size_t i = 0; i < 100; i += 7)
        wk_ecm_set(t.b, t.ids[i], t.f.pos, &(vec){-1, -1, -1});
    wk_ecm_create(t.b);
    int calls = 0;
    CHECK_INT(wk_ecm_diff(t.f.ecm, t.b, stop_at_first, &calls), ==, 42);
    CHECK_INT(calls, ==, 1);
    twins_free(&t);
}

/* ---- random mutations against a naive diff -------------------------------- */

static unsigned next_rand(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 8;
}

/* What the diff should say about e, from the public API, or false when e
 * is in neither or is the same in both. */
static bool naive(const wk_ecm *a, const wk_ecm *b, wk_entity e, seen *out)
{
    bool in_a = wk_ecm_exists(a, e), in_b = wk_ecm_exists(b, e);
    if (!in_a && !in_b)
        return false;
    *out = (seen){.entity = e, .kind = in_a && in_b ? WK_DIFF_CHANGED : in_a ? WK_DIFF_ONLY_A : WK_DIFF_ONLY_B};
    if (out->kind != WK_DIFF_CHANGED)
        return true;
    wk_type ta[16], tb[16], changed[16], removed[16], added[16];
    size_t na = wk_ecm_component_types(a, e, ta, 16), nb = wk_ecm_component_types(b, e, tb, 16);
    size_t nc = 0, nr = 0, nd = 0;
    for (size_t i = 0; i < na; i++) {
        wk_type u = wk_ecm_type_by_name(b, wk_ecm_type_name(a, ta[i]));
        if (!wk_ecm_has(b, e, u))
            removed[nr++] = ta[i];
        else if (!wk_ecm_values_equal(a, ta[i], wk_ecm_get(a, e, ta[i]), wk_ecm_get(b, e, u)))
            changed[nc++] = ta[i];
    }
    for (size_t i = 0; i < nb; i++)
        if (!wk_ecm_has(a, e, wk_ecm_type_by_name(a, wk_ecm_type_name(b, tb[i]))))
            added[nd++] = tb[i];
    out->parent = wk_ecm_parent(a, e) != wk_ecm_parent(b, e);
    names_of(a, changed, nc, out->changed, sizeof out->changed);
    names_of(a, removed, nr, out->removed, sizeof out->removed);
    names_of(b, added, nd, out->added, sizeof out->added);
    return out->parent || nc || nr || nd;
}

static void random_mutations_match_naive_diff(void)
{
    for (unsigned seed = 1; seed <= 20; seed++) {
        size_t n = 200 + seed * 37;
        twins t;
        REQUIRE(twins_new(&t, n));
        fixture f = t.f, fb = t.fb;
        wk_entity *ids = t.ids;
        wk_ecm *b = t.b;
        /* Every id either ECM ever held. */
        wk_entity_list all = {0};
        for (size_t i = 0; i < n; i++)
            wk_entity_list_push(&all, ids[i]);
        unsigned state = seed;
        for (size_t k = 0; k < n / 10 + seed; k++) {
            wk_entity e = ids[next_rand(&state) % n];
            if (!wk_ecm_exists(b, e))
                continue;
            switch (next_rand(&state) % 8) {
            case 0:
                wk_ecm_set(b, e, f.pos, &(vec){(double)k, 0, 0});
                break;
            case 1:
                wk_ecm_set(b, e, f.vel, &(vec){0, (double)k, 0});
                break;
            case 2:
                wk_ecm_remove(b, e, next_rand(&state) % 2 ? f.pos : f.name);
                break;
            case 3:
                set_name(&fb, e, k % 2 ? "x" : "y");
                break;
            case 4:
                wk_ecm_destroy(b, e, next_rand(&state) % 2);
                break;
            case 5:
                wk_entity_list_push(&all, wk_ecm_create_with(b, &f.pos, (const void *[]){&(vec){1, 2, 3}}, 1));
                break;
            case 6:
                wk_ecm_set_parent(b, e, next_rand(&state) % 3 ? ids[next_rand(&state) % 10] : WK_NULL_ENTITY);
                break;
            case 7:
                wk_ecm_set(b, e, f.tag, NULL);
                break;
            }
        }
        recorder r = {0};
        REQUIRE_INT(diff(&r, f.ecm, b), ==, WK_OK);
        size_t expected = 0;
        for (size_t i = 0; i < all.count; i++) {
            seen want;
            if (!naive(f.ecm, b, all.items[i], &want))
                continue;
            expected++;
            const seen *got = find_seen(&r, want.entity, want.kind);
            if (!CHECK(got)) {
                fprintf(stderr, "    seed %u: entity %llu (kind %d) not reported\n", seed,
                        (unsigned long long)want.entity, want.kind);
                continue;
            }
            CHECK_INT(got->parent, ==, want.parent);
            CHECK_STR(got->changed, want.changed);
            CHECK_STR(got->removed, want.removed);
            CHECK_STR(got->added, want.added);
        }
        CHECK_INT(r.count, ==, expected);
        CHECK(expected > 0);
        free(r.items);
        wk_entity_list_free(&all);
        twins_free(&t);
    }
}

static const wk_test_case cases[] = {
    {"clones_report_nothing", clones_report_nothing},
    {"each_kind_of_difference", each_kind_of_difference},
    {"reused_slot_is_another_entity", reused_slot_is_another_entity},
    {"types_in_another_order", types_in_another_order},
    {"same_ids_in_other_rows_and_tables", same_ids_in_other_rows_and_tables},
    {"callback_stops_the_diff", callback_stops_the_diff},
    {"random_mutations_match_naive_diff", random_mutations_match_naive_diff},
};
WK_TEST_MAIN(cases)
