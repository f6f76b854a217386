/* test_sparse.c — component types registered as sparse (wk_type_desc.sparse):
 * every ECM operation on them, checked against what the entity is known to
 * hold: get/set/has/remove and the list of types, entity rows that stay put,
 * destroy, create_with, queries mixing sparse and table terms (and removal
 * during iteration), change tracking, serialized state (full, changed-only,
 * subsets) applied to another ECM, clone, equal and diff, and transaction
 * rollback. Label is a sparse string with every hook, so ASan sees any leak
 * or double free of sparse values. */
#include "ecs/ecm_internal.h" /* wk__txn_fail_countdown */
#include "ecs/fixture.h"
#include "wk_test.h"

typedef struct sparse_fixture {
    fixture f;
    wk_type marker; /* sparse double */
    wk_type label;  /* sparse string with hooks */
    wk_type flag;   /* sparse tag */
} sparse_fixture;

static int register_sparse(wk_ecm *ecm, sparse_fixture *s)
{
    int rc = fixture_register(ecm, &s->f);
    rc = rc ? rc
            : wk_ecm_register(ecm, &(wk_type_desc){.name = "Marker", .size = sizeof(double), .sparse = true},
                              &s->marker);
    rc = rc ? rc
            : wk_ecm_register(ecm,
                              &(wk_type_desc){.name = "Label",
                                              .size = sizeof(char *),
                                              .hooks = {str_copy, str_destroy, str_equal, str_serialize,
                                                        str_deserialize},
                                              .sparse = true},
                              &s->label);
    return rc ? rc : wk_ecm_register(ecm, &(wk_type_desc){.name = "Flag", .sparse = true}, &s->flag);
}

static sparse_fixture sparse_new(void)
{
    sparse_fixture s = {0};
    wk_ecm *ecm = wk_ecm_new();
    if (ecm && register_sparse(ecm, &s) == WK_OK)
        return s;
    wk_ecm_free(ecm);
    return (sparse_fixture){0};
}

static wk_entity make(const sparse_fixture *s, double x)
{
    vec p = {x, 0, 0};
    wk_type types[] = {s->f.pos};
    const void *values[] = {&p};
    return wk_ecm_create_with(s->f.ecm, types, values, 1);
}

static double marker_of(const sparse_fixture *s, wk_entity e)
{
    const double *m = wk_ecm_get(s->f.ecm, e, s->marker);
    return m ? *m : -1;
}

static int set_label(const sparse_fixture *s, wk_entity e, const char *text)
{
    return wk_ecm_set(s->f.ecm, e, s->label, &text);
}

static const char *label_of(const sparse_fixture *s, wk_entity e)
{
    char *const *l = wk_ecm_get(s->f.ecm, e, s->label);
    return l ? *l : NULL;
}

static void basic_operations(void)
{
    sparse_fixture s = sparse_new();
    REQUIRE(s.f.ecm);
    wk_ecm *ecm = s.f.ecm;
    wk_entity e = make(&s, 1);
    vec *p = wk_ecm_get(ecm, e, s.f.pos);
    double m = 2.5;
    CHECK_INT(wk_ecm_set(ecm, e, s.marker, &m), ==, 1);
    CHECK_INT(wk_ecm_set(ecm, e, s.marker, &m), ==, 0);
    CHECK(wk_ecm_has(ecm, e, s.marker));
    CHECK_NEAR(marker_of(&s, e), 2.5, 0);
    /* The row did not move: the Position pointer is still good. */
    CHECK(wk_ecm_get(ecm, e, s.f.pos) == p);
    CHECK_INT(set_label(&s, e, "hello"), ==, 1);
    CHECK_INT(wk_ecm_set(ecm, e, s.flag, NULL), ==, 1);
    CHECK(wk_ecm_get(ecm, e, s.flag) == NULL);
    CHECK(wk_ecm_has(ecm, e, s.flag));
    CHECK_STR(label_of(&s, e), "hello");

    wk_type types[8];
    CHECK_INT(wk_ecm_component_types(ecm, e, types, 8), ==, 4);
    CHECK_INT(types[0], ==, s.f.pos);
    CHECK_INT(types[1], ==, s.marker);
    CHECK_INT(types[2], ==, s.label);
    CHECK_INT(types[3], ==, s.flag);
    CHECK_INT(wk_ecm_component_types(ecm, e, types, 2), ==, 4);
    wk_type both[] = {s.f.pos, s.label};
    CHECK(wk_ecm_matches(ecm, e, both, 2));

    wk_entity owner = 0;
    CHECK(wk_ecm_first(ecm, s.marker, &owner) != NULL);
    CHECK_U64(owner, ==, e);
    wk_entity other = make(&s, 2);
    CHECK(!wk_ecm_has(ecm, other, s.marker));
    CHECK(wk_ecm_get(ecm, other, s.marker) == NULL);
    double dflt = 7;
    double *added = wk_ecm_get_or_add(ecm, other, s.marker, &dflt);
    CHECK(added && *added == 7);
    CHECK_NEAR(marker_of(&s, e), 2.5, 0);

    wk_match match = {s.label, &(const char *){"hello"}};
    CHECK_U64(wk_ecm_find_one(ecm, &match, 1), ==, e);
    wk_match by_marker = {s.marker, &dflt};
    CHECK_U64(wk_ecm_find_one(ecm, &by_marker, 1), ==, other);

    CHECK_INT(wk_ecm_remove(ecm, e, s.marker), ==, 1);
    CHECK_INT(wk_ecm_remove(ecm, e, s.marker), ==, 0);
    CHECK(!wk_ecm_has(ecm, e, s.marker));
    CHECK_NEAR(marker_of(&s, other), 7, 0);
    CHECK(wk_ecm_get(ecm, e, s.f.pos) == p);
    CHECK_INT(wk_ecm_component_types(ecm, e, types, 8), ==, 3);
    CHECK_INT(wk_ecm_set(ecm, e, s.marker + 100, &m), ==, WK_INVALID);
    CHECK(!wk_ecm_has(ecm, e, s.marker + 100));

    /* A name registered again must keep its storage. */
    wk_type again;
    CHECK_INT(wk_ecm_register(ecm, &(wk_type_desc){.name = "Marker", .size = sizeof(double)}, &again), ==,
              WK_MISMATCH);
    CHECK_INT(wk_ecm_register(ecm, &(wk_type_desc){.name = "Marker", .size = sizeof(double), .sparse = true}, &again),
              ==, WK_OK);
    CHECK_INT(again, ==, s.marker);

    /* A slot far up (a high create offset) costs the map no memory below it. */
    CHECK_INT(wk_ecm_set_create_offset(ecm, 1u << 30), ==, WK_OK);
    wk_entity high = wk_ecm_create(ecm);
    CHECK_INT(wk_ecm_set(ecm, high, s.marker, &m), ==, 1);
    CHECK_NEAR(marker_of(&s, high), 2.5, 0);
    CHECK_NEAR(marker_of(&s, other), 7, 0);
    CHECK_INT(wk_ecm_remove(ecm, high, s.marker), ==, 1);
    wk_ecm_free(ecm);
}

/* Adds and removes at random over many entities and checks every value
 * against a model, so that each swap-remove is exercised. */
static void many_adds_and_removes(void)
{
    sparse_fixture s = sparse_new();
    REQUIRE(s.f.ecm);
    enum { N = 3000 };
    static wk_entity ids[N];
    static double model[N]; /* -1: absent */
    for (int i = 0; i < N; i++) {
        ids[i] = make(&s, i);
        model[i] = -1;
    }
    uint32_t seed = 12345;
    for (int step = 0; step < 20000; step++) {
        seed = seed * 1103515245u + 12345u;
        int i = (int)((seed >> 8) % N);
        if (model[i] < 0) {
            double v = step;
            CHECK_INT(wk_ecm_set(s.f.ecm, ids[i], s.marker, &v), ==, 1);
            model[i] = v;
        } else {
            CHECK_INT(wk_ecm_remove(s.f.ecm, ids[i], s.marker), ==, 1);
            model[i] = -1;
        }
    }
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += marker_of(&s, ids[i]) != model[i];
    CHECK_INT(wrong, ==, 0);
    wk_ecm_free(s.f.ecm);
}

static void destroy_and_create_with(void)
{
    sparse_fixture s = sparse_new();
    REQUIRE(s.f.ecm);
    wk_ecm *ecm = s.f.ecm;
    wk_entity a = make(&s, 1), b = make(&s, 2);
    CHECK_INT(set_label(&s, a, "a"), ==, 1);
    CHECK_INT(set_label(&s, b, "b"), ==, 1);
    CHECK_INT(wk_ecm_destroy(ecm, a, false), ==, WK_OK);
    CHECK_STR(label_of(&s, b), "b");
    wk_entity reused = wk_ecm_create(ecm);
    CHECK_U64((uint32_t)reused, ==, (uint32_t)a);
    CHECK(!wk_ecm_has(ecm, reused, s.label));

    double m = 3;
    const char *text = "made";
    wk_type types[] = {s.f.pos, s.marker, s.label};
    const void *values[] = {&(vec){1, 2, 3}, &m, &text};
    wk_entity c = wk_ecm_create_with(ecm, types, values, 3);
    CHECK(c != WK_NULL_ENTITY);
    CHECK_NEAR(marker_of(&s, c), 3, 0);
    CHECK_STR(label_of(&s, c), "made");
    CHECK_NEAR(((vec *)wk_ecm_get(ecm, c, s.f.pos))->y, 2, 0);
    wk_entity d = wk_ecm_create_with(ecm, types, NULL, 3);
    CHECK(d && wk_ecm_has(ecm, d, s.marker) && marker_of(&s, d) == 0);
    wk_type twice[] = {s.marker, s.f.pos, s.marker};
    CHECK_U64(wk_ecm_create_with(ecm, twice, NULL, 3), ==, WK_NULL_ENTITY);
    /* Marked entities go at the end of the step, with their sparse values. */
    CHECK_INT(wk_ecm_request_remove(ecm, c, false), ==, WK_OK);
    CHECK_INT(wk_ecm_end_step(ecm), ==, WK_OK);
    CHECK(!wk_ecm_exists(ecm, c));
    CHECK(wk_ecm_first(ecm, s.label, NULL) != NULL);
    wk_ecm_free(ecm);
}

/* How many entities pass the query, by asking each entity. */
static size_t expected(const sparse_fixture *s, const wk_entity *ids, size_t n, const wk_query_desc *d)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        bool ok = true;
        for (int t = 0; t < WK_QUERY_MAX_TERMS; t++) {
            ok &= !d->with[t] || wk_ecm_has(s->f.ecm, ids[i], d->with[t]);
            ok &= !d->without[t] || !wk_ecm_has(s->f.ecm, ids[i], d->without[t]);
        }
        count += ok;
    }
    return count;
}

/* Iterates the query; checks that every batch's columns hold its entities'
 * values. */
static size_t iterate(const sparse_fixture *s, wk_query *q, const wk_query_desc *d)
{
    size_t count = 0;
    for (wk_iter it = wk_query_iter(q); wk_iter_next(&it);) {
        for (int t = 0; t < WK_QUERY_MAX_TERMS && d->with[t]; t++) {
            const uint8_t *col = wk_iter_column(&it, (size_t)t);
            size_t size = d->with[t] == s->f.pos ? sizeof(vec) : d->with[t] == s->marker ? sizeof(double) : 0;
            for (size_t i = 0; size && i < it.count; i++)
                CHECK(col + i * size == wk_ecm_get(s->f.ecm, it.entities[i], d->with[t]));
        }
        count += it.count;
    }
    return count;
}

static void queries(void)
{
    sparse_fixture s = sparse_new();
    REQUIRE(s.f.ecm);
    wk_ecm *ecm = s.f.ecm;
    enum { N = 200 };
    wk_entity ids[N];
    for (int i = 0; i < N; i++) {
        double m = i;
        ids[i] = i % 5 == 0 ? wk_ecm_create(ecm) : make(&s, i);
        if (i % 3 == 0)
            wk_ecm_set(ecm, ids[i], s.marker, &m);
        if (i % 4 == 0)
            set_label(&s, ids[i], "x");
        if (i % 7 == 0)
            wk_ecm_set(ecm, ids[i], s.f.vel, &(vec){0});
    }
    const wk_query_desc descs[] = {
        {.with = {s.f.pos, s.marker}},
        {.with = {s.marker}},
        {.with = {s.marker, s.label}},
        {.with = {s.f.pos}, .without = {s.marker}},
        {.with = {s.marker}, .without = {s.f.pos}},
        {.with = {s.marker}, .without = {s.label, s.f.vel}},
        {.with = {s.label, s.f.pos}, .without = {s.f.vel}},
    };
    for (size_t k = 0; k < sizeof descs / sizeof *descs; k++) {
        wk_query *q = wk_query_new(ecm, &descs[k]);
        REQUIRE(q);
        size_t want = expected(&s, ids, N, &descs[k]);
        CHECK(want > 0);
        CHECK_INT(iterate(&s, q, &descs[k]), ==, want);
        wk_query_free(q);
    }

    /* Removal during iteration is deferred to the end of it. */
    wk_query *q = wk_query_new(ecm, &descs[0]);
    REQUIRE(q);
    size_t seen = 0, want = expected(&s, ids, N, &descs[0]);
    for (wk_iter it = wk_query_iter(q); wk_iter_next(&it);)
        for (size_t i = 0; i < it.count; i++, seen++) {
            CHECK_INT(wk_ecm_remove(ecm, it.entities[i], s.marker), ==, 1);
            CHECK(wk_ecm_has(ecm, it.entities[i], s.marker));
        }
    CHECK_INT(seen, ==, want);
    CHECK_INT(expected(&s, ids, N, &descs[0]), ==, 0);
    CHECK_INT(iterate(&s, q, &descs[0]), ==, 0);
    wk_query_free(q);

    /* EachNew and EachRemoved test sparse terms too. */
    CHECK_INT(wk_ecm_end_step(ecm), ==, WK_OK);
    wk_entity fresh = make(&s, 9), plain = make(&s, 10);
    CHECK_INT(set_label(&s, fresh, "new"), ==, 1);
    const wk_query_desc labelled = {.with = {s.label}};
    q = wk_query_new(ecm, &labelled);
    REQUIRE(q);
    size_t n = 0;
    for (wk_iter it = wk_query_iter_new(q); wk_iter_next(&it);) {
        n += it.count;
        CHECK_U64(it.entities[0], ==, fresh);
        CHECK_STR(*(char **)wk_iter_column(&it, 0), "new");
    }
    CHECK_INT(n, ==, 1);
    CHECK_INT(wk_ecm_request_remove(ecm, plain, false), ==, WK_OK);
    CHECK_INT(wk_ecm_request_remove(ecm, fresh, false), ==, WK_OK);
    n = 0;
    for (wk_iter it = wk_query_iter_removed(q); wk_iter_next(&it);)
        n += it.count;
    CHECK_INT(n, ==, 1);
    wk_query_free(q);
    wk_ecm_free(ecm);
}

static void change_tracking(void)
{
    sparse_fixture s = sparse_new();
    REQUIRE(s.f.ecm);
    wk_ecm *ecm = s.f.ecm;
    wk_entity e = make(&s, 1);
    double m = 1;
    CHECK_INT(wk_ecm_set(ecm, e, s.marker, &m), ==, 1);
    CHECK_INT(wk_ecm_changed(ecm, e, s.marker), ==, WK_ONE_TIME_CHANGE);
    CHECK_INT(wk_ecm_end_step(ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_changed(ecm, e, s.marker), ==, WK_NO_CHANGE);
    CHECK(!wk_ecm_has_one_time_changes(ecm));
    m = 2;
    CHECK_INT(wk_ecm_set(ecm, e, s.marker, &m), ==, 1);
    CHECK_INT(wk_ecm_changed(ecm, e, s.marker), ==, WK_ONE_TIME_CHANGE);
    CHECK(wk_ecm_has_one_time_changes(ecm));
    CHECK_INT(wk_ecm_end_step(ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_set_changed(ecm, e, s.marker, WK_PERIODIC_CHANGE), ==, WK_OK);
    wk_type periodic[4];
    CHECK_INT(wk_ecm_periodic_types(ecm, periodic, 4), ==, 1);
    CHECK_INT(periodic[0], ==, s.marker);
    CHECK_INT(wk_ecm_set_changed(ecm, e, s.label, WK_PERIODIC_CHANGE), ==, WK_NOT_FOUND);
    CHECK_INT(wk_ecm_end_step(ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_periodic_types(ecm, periodic, 4), ==, 0);
    wk_ecm_free(ecm);
}

/* A world with sparse values on some entities, parents, and a step's worth
 * of changes. */
static void populate(const sparse_fixture *s, wk_entity *ids, int n)
{
    for (int i = 0; i < n; i++) {
        double m = i * 0.5;
        ids[i] = make(s, i);
        if (i % 2)
            wk_ecm_set(s->f.ecm, ids[i], s->marker, &m);
        if (i % 3 == 0)
            set_label(s, ids[i], i % 2 ? "odd" : "even");
        if (i % 5 == 0)
            wk_ecm_set(s->f.ecm, ids[i], s->flag, NULL);
        if (i > 0 && i % 4 == 0)
            wk_ecm_set_parent(s->f.ecm, ids[i], ids[i - 1]);
    }
}

typedef struct diff_seen {
    int entries;
    wk_entity entity;
    size_t changed, removed, added;
} diff_seen;

static int note_diff(const wk_ecm_diff_entry *entry, void *ctx)
{
    diff_seen *seen = ctx;
    seen->entries++;
    seen->entity = entry->entity;
    seen->changed = entry->changed_count;
    seen->removed = entry->removed_count;
    seen->added = entry->added_count;
    return 0;
}

static void state_round_trip(void)
{
    sparse_fixture a = sparse_new(), b = sparse_new();
    REQUIRE(a.f.ecm && b.f.ecm);
    enum { N = 40 };
    wk_entity ids[N];
    populate(&a, ids, N);
    CHECK_INT(wk_ecm_request_remove(a.f.ecm, ids[13], false), ==, WK_OK);
    wk_buf buf = {0};
    CHECK_INT(wk_ecm_state(a.f.ecm, NULL, &buf), ==, WK_OK);
    CHECK_INT(wk_ecm_set_state(b.f.ecm, buf.data, buf.len), ==, WK_OK);
    CHECK_INT(wk_ecm_end_step(a.f.ecm), ==, WK_OK); /* ids[13] goes; the state left it out */
    CHECK_INT(wk_ecm_end_step(b.f.ecm), ==, WK_OK);
    wk_status why = {0};
    CHECK(wk_ecm_equal(a.f.ecm, b.f.ecm, &why));
    CHECK_NEAR(marker_of(&b, ids[5]), 2.5, 0);
    CHECK_STR(label_of(&b, ids[9]), "odd");
    CHECK(wk_ecm_has(b.f.ecm, ids[10], b.flag));
    CHECK_U64(wk_ecm_parent(b.f.ecm, ids[8]), ==, ids[7]);

    /* A step's changes: a sparse value added, one changed, one removed, an
     * entity destroyed. */
    double m = 99;
    CHECK_INT(wk_ecm_set(a.f.ecm, ids[0], a.marker, &m), ==, 1);
    CHECK_INT(set_label(&a, ids[6], "changed"), ==, 1);
    CHECK_INT(wk_ecm_remove(a.f.ecm, ids[5], a.marker), ==, 1);
    CHECK_INT(wk_ecm_remove(a.f.ecm, ids[10], a.flag), ==, 1);
    CHECK_INT(wk_ecm_destroy(a.f.ecm, ids[9], false), ==, WK_OK);
    buf.len = 0;
    CHECK_INT(wk_ecm_state(a.f.ecm, &(wk_state_desc){.changed_only = true}, &buf), ==, WK_OK);
    CHECK_INT(wk_ecm_set_state(b.f.ecm, buf.data, buf.len), ==, WK_OK);
    CHECK(wk_ecm_equal(a.f.ecm, b.f.ecm, &why));
    CHECK_NEAR(marker_of(&b, ids[0]), 99, 0);
    CHECK(!wk_ecm_has(b.f.ecm, ids[5], b.marker));
    CHECK(!wk_ecm_has(b.f.ecm, ids[10], b.flag));
    CHECK_STR(label_of(&b, ids[6]), "changed");

    /* Subsets: only Marker, of two entities. */
    sparse_fixture c = sparse_new();
    REQUIRE(c.f.ecm);
    wk_entity two[] = {ids[1], ids[6]};
    buf.len = 0;
    CHECK_INT(wk_ecm_state(a.f.ecm, &(wk_state_desc){.entities = two, .entity_count = 2, .types = &a.marker,
                                                      .type_count = 1},
                           &buf),
              ==, WK_OK);
    CHECK_INT(wk_ecm_set_state(c.f.ecm, buf.data, buf.len), ==, WK_OK);
    CHECK_INT(wk_ecm_count(c.f.ecm), ==, 2);
    CHECK_NEAR(marker_of(&c, ids[1]), 0.5, 0);
    CHECK(!wk_ecm_has(c.f.ecm, ids[6], c.marker));
    CHECK(!wk_ecm_has(c.f.ecm, ids[6], c.label));
    CHECK(!wk_ecm_has(c.f.ecm, ids[1], c.f.pos));

    /* The state does not depend on storage: an ECM keeping the same types
     * in tables reads it, and compares equal. */
    fixture tables = fixture_new();
    wk_type marker, label, flag;
    REQUIRE(tables.ecm);
    CHECK_INT(wk_ecm_register(tables.ecm, &(wk_type_desc){.name = "Marker", .size = sizeof(double)}, &marker), ==,
              WK_OK);
    CHECK_INT(wk_ecm_register(tables.ecm,
                              &(wk_type_desc){.name = "Label",
                                              .size = sizeof(char *),
                                              .hooks = {str_copy, str_destroy, str_equal, str_serialize,
                                                        str_deserialize}},
                              &label),
              ==, WK_OK);
    CHECK_INT(wk_ecm_register(tables.ecm, &(wk_type_desc){.name = "Flag"}, &flag), ==, WK_OK);
    buf.len = 0;
    CHECK_INT(wk_ecm_state(a.f.ecm, NULL, &buf), ==, WK_OK);
    CHECK_INT(wk_ecm_set_state(tables.ecm, buf.data, buf.len), ==, WK_OK);
    CHECK(wk_ecm_equal(a.f.ecm, tables.ecm, &why));
    CHECK(wk_ecm_equal(tables.ecm, a.f.ecm, &why));
    CHECK_NEAR(*(double *)wk_ecm_get(tables.ecm, ids[0], marker), 99, 0);
    diff_seen seen = {0};
    CHECK_INT(wk_ecm_diff(a.f.ecm, tables.ecm, note_diff, &seen), ==, 0);
    CHECK_INT(seen.entries, ==, 0);
    CHECK_INT(wk_ecm_set(tables.ecm, ids[0], marker, &(double){98}), ==, 1);
    CHECK_INT(wk_ecm_diff(tables.ecm, a.f.ecm, note_diff, &seen), ==, 0);
    CHECK_INT(seen.entries, ==, 1);
    CHECK_INT(seen.changed, ==, 1);
    CHECK_U64(seen.entity, ==, ids[0]);
    CHECK(wk_ecm_has(tables.ecm, ids[15], flag));
    wk_buf_free(&buf);
    wk_ecm_free(a.f.ecm);
    wk_ecm_free(b.f.ecm);
    wk_ecm_free(c.f.ecm);
    wk_ecm_free(tables.ecm);
}

static void clone_equal_diff(void)
{
    sparse_fixture a = sparse_new();
    REQUIRE(a.f.ecm);
    enum { N = 30 };
    wk_entity ids[N];
    populate(&a, ids, N);
    wk_ecm *b = wk_ecm_clone(a.f.ecm);
    REQUIRE(b);
    wk_status why = {0};
    CHECK(wk_ecm_equal(a.f.ecm, b, &why));
    diff_seen seen = {0};
    CHECK_INT(wk_ecm_diff(a.f.ecm, b, note_diff, &seen), ==, 0);
    CHECK_INT(seen.entries, ==, 0);

    /* The clone's values are its own. */
    double m = 42;
    CHECK_INT(wk_ecm_set(b, ids[1], a.marker, &m), ==, 1);
    CHECK_NEAR(marker_of(&a, ids[1]), 0.5, 0);
    CHECK(!wk_ecm_equal(a.f.ecm, b, &why));
    seen = (diff_seen){0};
    CHECK_INT(wk_ecm_diff(a.f.ecm, b, note_diff, &seen), ==, 0);
    CHECK_INT(seen.entries, ==, 1);
    CHECK_U64(seen.entity, ==, ids[1]);
    CHECK_INT(seen.changed, ==, 1);

    /* Removed in b, and added in b (on the same entity). */
    CHECK_INT(wk_ecm_set(b, ids[1], a.marker, &(double){0.5}), ==, 1);
    CHECK_INT(wk_ecm_remove(b, ids[3], a.marker), ==, 1);
    CHECK_INT(wk_ecm_set(b, ids[3], a.flag, NULL), ==, 1);
    seen = (diff_seen){0};
    CHECK_INT(wk_ecm_diff(a.f.ecm, b, note_diff, &seen), ==, 0);
    CHECK_INT(seen.entries, ==, 1);
    CHECK_U64(seen.entity, ==, ids[3]);
    CHECK_INT(seen.removed, ==, 1);
    CHECK_INT(seen.added, ==, 1);
    CHECK(!wk_ecm_equal(a.f.ecm, b, &why));
    /* An entity that moved table in b is compared through its record. */
    CHECK_INT(wk_ecm_remove(b, ids[3], a.flag), ==, 1);
    CHECK_INT(wk_ecm_set(b, ids[3], a.marker, &(double){1.5}), ==, 1);
    CHECK_INT(wk_ecm_set(b, ids[3], a.f.vel, &(vec){0}), ==, 1);
    seen = (diff_seen){0};
    CHECK_INT(wk_ecm_diff(a.f.ecm, b, note_diff, &seen), ==, 0);
    CHECK_INT(seen.entries, ==, 1);
    CHECK_INT(seen.added, ==, 1);
    CHECK_INT(seen.changed + seen.removed, ==, 0);
    wk_ecm_free(b);
    wk_ecm_free(a.f.ecm);
}

/* The mutations of a transaction below, results ignored. */
static void mutate(const sparse_fixture *s, const wk_entity *ids)
{
    wk_ecm *ecm = s->f.ecm;
    double m = 6;
    wk_ecm_set(ecm, ids[4], s->marker, &m);           /* add */
    wk_ecm_set(ecm, ids[1], s->marker, &m);           /* set */
    wk_ecm_remove(ecm, ids[3], s->marker);            /* remove, moves the last */
    set_label(s, ids[0], "new text");                 /* hooked set */
    wk_ecm_remove(ecm, ids[6], s->label);             /* hooked remove */
    wk_ecm_set_changed(ecm, ids[5], s->marker, WK_PERIODIC_CHANGE);
    wk_ecm_destroy(ecm, ids[9], false);               /* with Marker and Label */
    wk_ecm_destroy(ecm, ids[7], true);                /* with a child */
    wk_entity fresh = make(s, 100);
    set_label(s, fresh, "fresh");
    wk_type types[] = {s->f.pos, s->marker, s->label};
    const void *values[] = {&(vec){1, 2, 3}, &m, &(const char *){"made"}};
    wk_ecm_create_with(ecm, types, values, 3);
}

static void txn_rollback(void)
{
    sparse_fixture s = sparse_new();
    REQUIRE(s.f.ecm);
    wk_ecm *ecm = s.f.ecm;
    enum { N = 30 };
    wk_entity ids[N];
    populate(&s, ids, N);
    CHECK_INT(wk_ecm_end_step(ecm), ==, WK_OK);
    double m = 5;
    CHECK_INT(wk_ecm_set(ecm, ids[2], s.marker, &m), ==, 1);
    wk_buf before = {0}, after = {0};
    CHECK_INT(wk_ecm_state(ecm, NULL, &before), ==, WK_OK);
    wk_ecm *copy = wk_ecm_clone(ecm);
    REQUIRE(copy);

    /* Whole, and with the log failing at each of its first records in turn
     * (then the failed mutation changes nothing and the rest go on). */
    wk_status why = {0};
    for (size_t fail_at = 0; fail_at < 40; fail_at++) {
        CHECK_INT(wk_ecm_txn_begin(ecm), ==, WK_OK);
        wk__txn_fail_countdown = fail_at;
        mutate(&s, ids);
        wk__txn_fail_countdown = 0;
        CHECK_INT(wk_ecm_changed(ecm, ids[2], s.marker), ==, WK_ONE_TIME_CHANGE);
        CHECK_INT(wk_ecm_txn_rollback(ecm), ==, WK_OK);
        after.len = 0;
        CHECK_INT(wk_ecm_state(ecm, NULL, &after), ==, WK_OK);
        CHECK(before.len == after.len && memcmp(before.data, after.data, before.len) == 0);
        CHECK(wk_ecm_equal(ecm, copy, &why));
    }
    CHECK_NEAR(marker_of(&s, ids[1]), 0.5, 0);
    CHECK_STR(label_of(&s, ids[9]), "odd");
    CHECK_INT(wk_ecm_changed(ecm, ids[5], s.marker), ==, WK_NO_CHANGE);
    CHECK_INT(wk_ecm_changed(ecm, ids[2], s.marker), ==, WK_ONE_TIME_CHANGE);
    CHECK_INT(wk_ecm_count(ecm), ==, N);

    /* A commit keeps the changes, and frees what it logged. */
    CHECK_INT(wk_ecm_txn_begin(ecm), ==, WK_OK);
    CHECK_INT(wk_ecm_remove(ecm, ids[6], s.label), ==, 1);
    CHECK_INT(wk_ecm_destroy(ecm, ids[9], false), ==, WK_OK);
    CHECK_INT(wk_ecm_txn_commit(ecm), ==, WK_OK);
    CHECK(!wk_ecm_has(ecm, ids[6], s.label));
    wk_buf_free(&before);
    wk_buf_free(&after);
    wk_ecm_free(copy);
    wk_ecm_free(ecm);
}

static const wk_test_case cases[] = {
    {"basic_operations", basic_operations},
    {"many_adds_and_removes", many_adds_and_removes},
    {"destroy_and_create_with", destroy_and_create_with},
    {"queries", queries},
    {"change_tracking", change_tracking},
    {"state_round_trip", state_round_trip},
    {"clone_equal_diff", clone_equal_diff},
    {"txn_rollback", txn_rollback},
};
WK_TEST_MAIN(cases)
