/* fuzz_txn.c — libFuzzer target for ECM transactions. The input is a program
 * of ECM calls, two bytes each (the call, then an operand choosing entity,
 * type, value and flag), run on a small world inside a transaction and, call
 * for call, on a twin without one: both must return the same. The first
 * byte chooses the end: a rollback, after which the state must serialize to
 * the same bytes as before and compare equal to a clone taken at begin, or a
 * commit, after which the world must equal its twin byte for byte. Either
 * way the change states, marks and child order of every entity the program
 * knows must agree too. Built with
 * -fsanitize=fuzzer under clang (WK_FUZZ=ON), and replayed over its corpus
 * by the tests in every build. */
#include <stdio.h>
#include <stdlib.h>

#include "ecs/fixture.h"

static void die(const char *what, const wk_ecm *ecm)
{
    fprintf(stderr, "fuzz_txn: %s: %s\n", what, ecm ? wk_ecm_errmsg(ecm) : "");
    abort(); /* a fuzz target reports a finding by crashing */
}

#define MAX_POOL 256

typedef struct pool {
    wk_entity items[MAX_POOL];
    size_t count;
} pool;

static void pool_add(pool *p, wk_entity e)
{
    if (e && p->count < MAX_POOL)
        p->items[p->count++] = e;
}

static const char *const words[] = {"", "a", "link", "a name long enough to live on the heap, surely"};

/* One call on an ECM; its result as a number to compare with the twin's. */
static long long call(const fixture *f, wk_ecm *ecm, pool *p, uint8_t op, uint8_t arg)
{
    const wk_type types[] = {f->pos, f->vel, f->name, f->tag};
    wk_entity e = p->count ? p->items[arg % p->count] : WK_NULL_ENTITY;
    wk_entity other = p->count ? p->items[(arg * 7u + 3u) % p->count] : WK_NULL_ENTITY;
    wk_type type = types[(arg >> 4) % 4];
    const char *word = words[(arg >> 2) % 4];
    vec v = {arg, arg >> 3, 1};
    const void *value = type == f->name ? (const void *)&word : type == f->tag ? NULL : (const void *)&v;
    bool flag = arg & 1;
    switch (op % 12) {
    case 0:
        return (long long)wk_ecm_create(ecm);
    case 1: {
        wk_type two[] = {f->name, f->pos};
        return (long long)wk_ecm_create_with(ecm, two, (const void *[]){&word, &v}, 2);
    }
    case 2:
        return wk_ecm_destroy(ecm, e, flag);
    case 3:
    case 4:
        return wk_ecm_set(ecm, e, type, value);
    case 5:
        return wk_ecm_get_or_add(ecm, e, f->vel, &v) != NULL;
    case 6:
        return wk_ecm_remove(ecm, e, type);
    case 7:
        return wk_ecm_set_parent(ecm, e, flag ? WK_NULL_ENTITY : other);
    case 8:
        return wk_ecm_request_remove(ecm, e, flag);
    case 9:
        return wk_ecm_set_changed(ecm, e, type, (wk_change)(arg % 3));
    case 10:
        return wk_ecm_set_create_offset(ecm, 1 + arg % 40);
    default:
        return wk_ecm_get(ecm, e, type) != NULL;
    }
}

static bool same_state(wk_ecm *a, wk_ecm *b, bool changed_only)
{
    wk_buf x = {0}, y = {0};
    const wk_state_desc desc = {.changed_only = changed_only};
    if (wk_ecm_state(a, &desc, &x) || wk_ecm_state(b, &desc, &y))
        die("serializing", a);
    bool same = x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, x.len) == 0);
    wk_buf_free(&x);
    wk_buf_free(&y);
    return same;
}

/* What the states leave out, for every entity of the pool: existence, change
 * states, newness, removal marks and the order of children. */
static bool same_tracking(const fixture *f, const wk_ecm *a, const wk_ecm *b, const pool *p)
{
    const wk_type types[] = {f->pos, f->vel, f->name, f->tag};
    bool same = true;
    for (size_t i = 0; same && i < p->count; i++) {
        wk_entity e = p->items[i];
        same = wk_ecm_exists(a, e) == wk_ecm_exists(b, e) && wk_ecm_is_new(a, e) == wk_ecm_is_new(b, e) &&
               wk_ecm_is_marked_for_removal(a, e) == wk_ecm_is_marked_for_removal(b, e);
        for (size_t k = 0; same && k < 4; k++)
            same = wk_ecm_changed(a, e, types[k]) == wk_ecm_changed(b, e, types[k]);
        wk_entity_list ca = {0}, cb = {0};
        if (same && wk_ecm_exists(a, e) && (wk_ecm_children(a, e, &ca) || wk_ecm_children(b, e, &cb)))
            die("listing children", a);
        same = same && ca.count == cb.count &&
               (ca.count == 0 || memcmp(ca.items, cb.items, ca.count * sizeof *ca.items) == 0);
        wk_entity_list_free(&ca);
        wk_entity_list_free(&cb);
    }
    return same;
}

/* A world with some structure and a step in progress. */
static void populate(fixture *f, pool *p)
{
    wk_entity root = wk_ecm_create(f->ecm);
    set_name(f, root, "root");
    pool_add(p, root);
    for (int i = 0; i < 6; i++) {
        wk_entity e = wk_ecm_create_with(f->ecm, (wk_type[]){f->pos}, (const void *[]){&(vec){i, 0, 0}}, 1);
        wk_ecm_set_parent(f->ecm, e, p->items[i / 2]);
        if (i % 2)
            set_name(f, e, "child");
        pool_add(p, e);
    }
    wk_ecm_end_step(f->ecm);
    wk_ecm_set(f->ecm, p->items[2], f->vel, &(vec){1, 1, 1});
    wk_ecm_request_remove(f->ecm, p->items[5], false);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fixture f = fixture_new(), twin = fixture_new();
    if (!f.ecm || !twin.ecm)
        die("fixture", NULL);
    pool p = {0}, twin_pool = {0};
    populate(&f, &p);
    populate(&twin, &twin_pool);
    wk_ecm *before = wk_ecm_clone(f.ecm);
    if (!before)
        die("clone", f.ecm);
    bool roll_back = size == 0 || data[0] % 2 == 0;
    if (wk_ecm_txn_begin(f.ecm))
        die("begin", f.ecm);
    for (size_t i = 1; i + 1 < size; i += 2) {
        long long got = call(&f, f.ecm, &p, data[i], data[i + 1]);
        long long want = call(&twin, twin.ecm, &twin_pool, data[i], data[i + 1]);
        if (got != want)
            die("a call inside the transaction returned what it does not outside", f.ecm);
        if ((data[i] % 12 == 0 || data[i] % 12 == 1) && got) {
            pool_add(&p, (wk_entity)got);
            pool_add(&twin_pool, (wk_entity)want);
        }
    }
    if (roll_back) {
        if (wk_ecm_txn_rollback(f.ecm))
            die("rollback", f.ecm);
        if (!same_state(f.ecm, before, false) || !same_state(f.ecm, before, true))
            die("the state after a rollback differs from the state before", f.ecm);
        if (!wk_ecm_equal(f.ecm, before, NULL) || !same_tracking(&f, f.ecm, before, &p) ||
            wk_ecm_create(f.ecm) != wk_ecm_create(before))
            die("the ECM after a rollback differs from a clone taken before", f.ecm);
    } else {
        if (wk_ecm_txn_commit(f.ecm))
            die("commit", f.ecm);
        if (!same_state(f.ecm, twin.ecm, false) || !same_state(f.ecm, twin.ecm, true) ||
            !wk_ecm_equal(f.ecm, twin.ecm, NULL) || !same_tracking(&f, f.ecm, twin.ecm, &p))
            die("a committed transaction differs from the same calls without one", f.ecm);
    }
    wk_ecm_free(before);
    wk_ecm_free(f.ecm);
    wk_ecm_free(twin.ecm);
    return 0;
}
