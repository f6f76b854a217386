/* ecs.c — benchmark of the entity-component manager (wk_ecm.h) at one million
 * entities on one thread. It measures creating entities with a Position and a
 * Velocity (each three doubles), iterating a query over one and over both of
 * them (next to the same update over two plain C arrays, the floor), reading a
 * component of random entities, adding and removing a third component on
 * random entities (Tag, registered as sparse: a type added and removed on
 * the fly lives in a sparse set, not in the archetype tables, so adding it
 * does not move the entity's row), serializing the full state and applying
 * it to a fresh ECM, cloning the ECM, diffing it against a clone with 1% of its positions changed and
 * destroying every entity; and, on a world of 100,000, a transaction of 1,000 mixed
 * mutations rolled back. Each figure is the best of several repetitions timed with
 * CLOCK_MONOTONIC: the fast loops repeat for at least ten runs and 100 ms,
 * the heavy ones run five times (create, apply and destroy on a fresh ECM
 * each time), with any set-up left out of the timing. Positions and
 * velocities are dyadic fractions, so every update is exact and the results
 * are checked against a closed form; the benchmark also checks return values,
 * the clone, and that the serialized state applied to a fresh ECM gives an
 * equal one, and exits non-zero on any failure. The clone is timed between
 * steps, as a world is usually cloned, with the figure for the world left
 * mid-step by add_remove (its step lists copied too) on stderr. Figures go to stdout as
 * `bench <name> <value> <unit>` lines, everything else to stderr.
 *
 * Beside the figures it prints these for context: creating with
 * wk_ecm_create and one wk_ecm_set per component (create_2comp uses
 * wk_ecm_create_with), the floor under get_random (the same two dependent
 * random reads, slot then row, over plain arrays), applying the full state
 * (apply_full, in MB/s of the state), the diff and the rollback. On stderr it
 * gives the first run of create_2comp and of clone beside their best: the
 * later runs get the memory the previous run freed, which the library
 * keeps with its pages faulted in, as a long-running server's would. */
#define BENCH_NAME "bench/ecs"
#include "bench.h"
#include "worldkit/wk_ecm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1000000
#define DT (1.0 / 64.0) /* a power of two keeps p += v * dt exact */

typedef struct vec3 {
    double x, y, z;
} vec3;

/* An ECM with the benchmark's types, and the ids of its n entities with
 * Position and Velocity, in creation order. */
typedef struct world {
    wk_ecm *ecm;
    wk_type pos, vel, tag;
    wk_entity *ids;
    size_t n;
} world;

/* How many passes of each kernel have touched the positions. */
typedef struct passes {
    unsigned bump, integrate;
} passes;

static volatile double sink;

static void check_rc(const wk_ecm *ecm, int rc, int want, const char *what)
{
    if (rc != want)
        die("%s returned %d (want %d): %s", what, rc, want, wk_ecm_errmsg(ecm));
}

static void *xmalloc(size_t size)
{
    void *p = malloc(size);
    if (!p)
        die("out of memory allocating %zu bytes", size);
    return p;
}


/* ---- timing ------------------------------------------------------------ */

/* One benchmark: run is timed; setup and teardown (either may be NULL) run
 * around it untimed, to give each run a fresh ECM or check its result. */
typedef struct bench {
    void (*setup)(void *ctx);
    void (*run)(void *ctx);
    void (*teardown)(void *ctx);
} bench;

/* Runs of the benchmarks that touch every one of the N entities once (tens
 * of milliseconds each). The figure is the fastest run: on a shared host
 * the others measure neighbours too. */
#define WHOLE_WORLD_RUNS 5

/* The fastest of at least min_reps runs whose timed part totals at least
 * min_total seconds, in seconds; *first (when not NULL) gets the first
 * run's time. */
static double best_time_first(const bench *b, void *ctx, int min_reps, double min_total, double *first)
{
    double best = 0, total = 0;
    for (int rep = 0; rep < min_reps || total < min_total; rep++) {
        if (b->setup)
            b->setup(ctx);
        double start = now_s();
        b->run(ctx);
        double elapsed = now_s() - start;
        if (b->teardown)
            b->teardown(ctx);
        total += elapsed;
        if (rep == 0 && first)
            *first = elapsed;
        if (rep == 0 || elapsed < best)
            best = elapsed;
    }
    return best;
}

static double best_time(const bench *b, void *ctx, int min_reps, double min_total)
{
    return best_time_first(b, ctx, min_reps, min_total, NULL);
}

/* Context for the figures whose later runs reuse memory an earlier run
 * freed (the library keeps freed large mappings, pages faulted in): the
 * first run's figure, on fresh pages. */
static void report_first_run(const char *name, double first, double per)
{
    fprintf(stderr, BENCH_NAME ": %s first run (fresh pages) %.2f ns/entity\n", name, first * 1e9 / per);
}

static void report(const char *name, double value, const char *unit)
{
    printf("bench %s %.2f %s\n", name, value, unit);
    fflush(stdout);
}

/* ---- the world --------------------------------------------------------- */

static uint64_t xorshift64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static vec3 initial_position(size_t k)
{
    return (vec3){(double)k, -0.5 * (double)k, 0.25 * (double)k + 3.0};
}

/* Masks, not remainders, vary the velocities: create_2comp times this
 * with the ECM, and three divisions by constants cost a tenth of it. */
static vec3 initial_velocity(size_t k)
{
    return (vec3){0.25 * (double)(k & 15) - 2.0, 0.5 * (double)((k >> 4 & 3) + 1), -0.125 * (double)((k >> 6 & 1) + 1)};
}

/* Position of entity k after the given passes; exact, as every term is a
 * small dyadic fraction. */
static vec3 expected_position(size_t k, passes done)
{
    vec3 p = initial_position(k), v = initial_velocity(k);
    double steps = (double)done.integrate * DT;
    return (vec3){p.x + (double)done.bump + steps * v.x, p.y + steps * v.y, p.z + steps * v.z};
}

static wk_type register_vec3(wk_ecm *ecm, const char *name)
{
    wk_type type;
    check_rc(ecm, wk_ecm_register(ecm, &(wk_type_desc){.name = name, .size = sizeof(vec3)}, &type), 0,
             "wk_ecm_register");
    return type;
}

/* An ECM with the three types registered and no entities yet, with room
 * for n ids. */
static void world_init(world *w, size_t n)
{
    w->ecm = wk_ecm_new();
    if (!w->ecm)
        die("wk_ecm_new failed");
    w->pos = register_vec3(w->ecm, "Position");
    w->vel = register_vec3(w->ecm, "Velocity");
    /* Tag is the type added and removed on the fly: sparse, so that neither
     * moves the entity's Position and Velocity to another table. */
    const wk_type_desc tag = {.name = "Tag", .size = sizeof(double), .sparse = true};
    check_rc(w->ecm, wk_ecm_register(w->ecm, &tag, &w->tag), 0, "wk_ecm_register");
    w->ids = n ? xmalloc(n * sizeof *w->ids) : NULL;
    /* Written here, untimed: the runs time the ECM, not the first touch of
     * the benchmark's own pages (8 MB, 2,000 page faults). With all ones,
     * an id no ECM hands out: zeros would let the compiler make this a
     * calloc, which writes nothing. */
    if (n)
        memset(w->ids, 0xff, n * sizeof *w->ids);
    w->n = n;
}

/* Creates the n entities with wk_ecm_create_with, or, when one_by_one,
 * with wk_ecm_create and a wk_ecm_set per component. */
static void world_populate(world *w, bool one_by_one)
{
    const wk_type types[] = {w->pos, w->vel};
    for (size_t k = 0; k < w->n; k++) {
        vec3 p = initial_position(k), v = initial_velocity(k);
        wk_entity e = one_by_one ? wk_ecm_create(w->ecm) : wk_ecm_create_with(w->ecm, types, (const void *[]){&p, &v}, 2);
        if (e == WK_NULL_ENTITY)
            die("creating an entity failed: %s", wk_ecm_errmsg(w->ecm));
        if (one_by_one) {
            check_rc(w->ecm, wk_ecm_set(w->ecm, e, w->pos, &p), 1, "wk_ecm_set(Position)");
            check_rc(w->ecm, wk_ecm_set(w->ecm, e, w->vel, &v), 1, "wk_ecm_set(Velocity)");
        }
        w->ids[k] = e;
    }
}

static void world_free(world *w)
{
    wk_ecm_free(w->ecm);
    free(w->ids);
    *w = (world){0};
}

static void check_count(const wk_ecm *ecm, size_t want, const char *when)
{
    if (wk_ecm_count(ecm) != want)
        die("%s: %zu entities, want %zu", when, wk_ecm_count(ecm), want);
}

static void check_positions(const world *w, passes done, const char *when)
{
    for (size_t k = 0; k < w->n; k++) {
        const vec3 *p = wk_ecm_get(w->ecm, w->ids[k], w->pos);
        vec3 want = expected_position(k, done);
        if (!p || p->x != want.x || p->y != want.y || p->z != want.z)
            die("%s: entity %zu has a wrong or missing Position", when, k);
    }
}

/* ---- kernels, shared by the ECS and raw loops -------------------------- */

__attribute__((noinline)) static void bump_x(vec3 *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i].x += 1.0;
}

/* restrict: the two columns never overlap, and saying so spares the loop
 * a run-time overlap check before it can be vectorised. */
__attribute__((noinline)) static void integrate(vec3 *restrict p, const vec3 *restrict v, size_t n, double dt)
{
    for (size_t i = 0; i < n; i++) {
        p[i].x += v[i].x * dt;
        p[i].y += v[i].y * dt;
        p[i].z += v[i].z * dt;
    }
}

/* ---- benchmarks -------------------------------------------------------- */

static void create_setup(void *ctx)
{
    world_init(ctx, N);
}

static void create_run(void *ctx)
{
    world_populate(ctx, false);
}

static void create_then_set_run(void *ctx)
{
    world_populate(ctx, true);
}

static void create_teardown(void *ctx)
{
    world *w = ctx;
    check_count(w->ecm, N, "after create");
    world_free(w);
}

static void bench_create(void)
{
    world w = {0};
    const bench at_once = {create_setup, create_run, create_teardown};
    double first;
    report("ecs.create_2comp", best_time_first(&at_once, &w, WHOLE_WORLD_RUNS, 0, &first) * 1e9 / N, "ns/entity");
    report_first_run("ecs.create_2comp", first, N);
    const bench one_by_one = {create_setup, create_then_set_run, create_teardown};
    report("ecs.create_then_set_2comp", best_time(&one_by_one, &w, WHOLE_WORLD_RUNS, 0) * 1e9 / N, "ns/entity");
}

typedef struct iterate_ctx {
    wk_query *q;
    passes *done;
} iterate_ctx;

static wk_query *new_query(world *w, wk_type a, wk_type b)
{
    wk_query *q = wk_query_new(w->ecm, &(wk_query_desc){.with = {a, b}});
    if (!q)
        die("wk_query_new failed: %s", wk_ecm_errmsg(w->ecm));
    return q;
}

static void iterate_1comp_run(void *ctx)
{
    iterate_ctx *c = ctx;
    wk_iter it = wk_query_iter(c->q);
    while (wk_iter_next(&it))
        bump_x(wk_iter_column(&it, 0), it.count);
    c->done->bump++;
}

static void iterate_2comp_run(void *ctx)
{
    iterate_ctx *c = ctx;
    wk_iter it = wk_query_iter(c->q);
    while (wk_iter_next(&it))
        integrate(wk_iter_column(&it, 0), wk_iter_column(&it, 1), it.count, DT);
    c->done->integrate++;
}

/* A query pass per run; the positions are checked once at the end. */
static void bench_iterate(world *w, passes *done, const char *name, wk_type second, void (*run)(void *))
{
    iterate_ctx c = {new_query(w, w->pos, second), done};
    const bench b = {NULL, run, NULL};
    double best = best_time(&b, &c, 10, 0.1);
    wk_query_free(c.q);
    check_positions(w, *done, name);
    report(name, best * 1e9 / (double)w->n, "ns/entity");
}

typedef struct raw_ctx {
    vec3 *p, *v;
    size_t n;
    passes done;
} raw_ctx;

static void raw_run(void *ctx)
{
    raw_ctx *c = ctx;
    integrate(c->p, c->v, c->n, DT);
    c->done.integrate++;
}

static void bench_iterate_raw(size_t n)
{
    raw_ctx c = {xmalloc(n * sizeof(vec3)), xmalloc(n * sizeof(vec3)), n, {0, 0}};
    for (size_t k = 0; k < n; k++) {
        c.p[k] = initial_position(k);
        c.v[k] = initial_velocity(k);
    }
    const bench b = {NULL, raw_run, NULL};
    double best = best_time(&b, &c, 10, 0.1);
    for (size_t k = 0; k < n; k++) {
        vec3 want = expected_position(k, c.done);
        if (c.p[k].x != want.x || c.p[k].y != want.y || c.p[k].z != want.z)
            die("raw arrays: element %zu is wrong", k);
    }
    free(c.p);
    free(c.v);
    report("ecs.iterate_2comp_raw", best * 1e9 / (double)n, "ns/entity");
}

typedef struct random_ctx {
    world *w;
    wk_entity *order; /* the world's ids, shuffled */
} random_ctx;

static wk_entity *shuffled_ids(const world *w)
{
    wk_entity *order = xmalloc(w->n * sizeof *order);
    for (size_t k = 0; k < w->n; k++)
        order[k] = w->ids[k];
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (size_t k = w->n; k > 1; k--) {
        size_t j = (size_t)(xorshift64(&state) % k);
        wk_entity t = order[k - 1];
        order[k - 1] = order[j];
        order[j] = t;
    }
    return order;
}

static void get_random_run(void *ctx)
{
    const random_ctx *c = ctx;
    double sum = 0;
    for (size_t k = 0; k < c->w->n; k++) {
        const vec3 *p = wk_ecm_get(c->w->ecm, c->order[k], c->w->pos);
        if (!p)
            die("wk_ecm_get returned NULL");
        sum += p->y;
    }
    sink += sum;
}

/* The floor under get_random: the same two dependent random reads (slot,
 * then row) over plain arrays, in the same shuffled order. */
typedef struct random_raw_ctx {
    const uint32_t *order; /* slots, shuffled */
    const uint32_t *row_of; /* slot -> row */
    const vec3 *rows;
    size_t n;
} random_raw_ctx;

static void get_random_raw_run(void *ctx)
{
    const random_raw_ctx *c = ctx;
    double sum = 0;
    for (size_t k = 0; k < c->n; k++)
        sum += c->rows[c->row_of[c->order[k]]].y;
    sink += sum;
}

static void bench_random_raw(const random_ctx *c)
{
    size_t n = c->w->n;
    uint32_t *order = xmalloc(n * sizeof *order), *row_of = xmalloc(n * sizeof *row_of);
    vec3 *rows = xmalloc(n * sizeof *rows);
    for (size_t k = 0; k < n; k++) {
        order[k] = (uint32_t)(c->order[k] % n);
        row_of[k] = (uint32_t)k;
        rows[k] = initial_position(k);
    }
    random_raw_ctx raw = {order, row_of, rows, n};
    const bench b = {NULL, get_random_raw_run, NULL};
    report("ecs.get_random_raw", best_time(&b, &raw, 10, 0.1) * 1e9 / (double)n, "ns/op");
    free(order);
    free(row_of);
    free(rows);
}

static void add_remove_setup(void *ctx)
{
    const random_ctx *c = ctx;
    /* Clears the step's record of the previous run's changes. */
    check_rc(c->w->ecm, wk_ecm_end_step(c->w->ecm), 0, "wk_ecm_end_step");
}

static void add_remove_run(void *ctx)
{
    const random_ctx *c = ctx;
    wk_ecm *ecm = c->w->ecm;
    for (size_t k = 0; k < c->w->n; k++) {
        double tag = (double)k;
        check_rc(ecm, wk_ecm_set(ecm, c->order[k], c->w->tag, &tag), 1, "wk_ecm_set(Tag)");
        check_rc(ecm, wk_ecm_remove(ecm, c->order[k], c->w->tag), 1, "wk_ecm_remove(Tag)");
    }
}

static void bench_random(world *w, passes done)
{
    random_ctx c = {w, shuffled_ids(w)};
    const bench get = {NULL, get_random_run, NULL};
    report("ecs.get_random", best_time(&get, &c, 10, 0.1) * 1e9 / (double)w->n, "ns/op");
    bench_random_raw(&c);
    fprintf(stderr, "bench/ecs: get_random checksum %.17g\n", sink);

    const bench add_remove = {add_remove_setup, add_remove_run, NULL};
    double best = best_time(&add_remove, &c, WHOLE_WORLD_RUNS, 0);
    if (wk_ecm_first(w->ecm, w->tag, NULL))
        die("an entity kept its Tag after add_remove");
    check_positions(w, done, "after add_remove");
    report("ecs.add_remove", best * 1e9 / (double)w->n, "ns/op");
    free(c.order);
}

typedef struct state_ctx {
    wk_ecm *ecm;
    wk_buf buf; /* the last run's output */
} state_ctx;

static void serialize_setup(void *ctx)
{
    wk_buf_free(&((state_ctx *)ctx)->buf);
}

static void serialize_run(void *ctx)
{
    state_ctx *c = ctx;
    check_rc(c->ecm, wk_ecm_state(c->ecm, NULL, &c->buf), 0, "wk_ecm_state");
}

/* Applying a full state to a fresh ECM, which must then equal the world. */
typedef struct apply_ctx {
    const world *w;
    const wk_buf *state;
    world copy;
} apply_ctx;

static void apply_setup(void *ctx)
{
    world_init(&((apply_ctx *)ctx)->copy, 0);
}

static void apply_run(void *ctx)
{
    apply_ctx *c = ctx;
    check_rc(c->copy.ecm, wk_ecm_set_state(c->copy.ecm, c->state->data, c->state->len), 0, "wk_ecm_set_state");
}

static void apply_teardown(void *ctx)
{
    apply_ctx *c = ctx;
    wk_status why;
    if (!wk_ecm_equal(c->w->ecm, c->copy.ecm, &why))
        die("state applied to a fresh ECM differs: %s", why.message);
    world_free(&c->copy);
}

static void bench_serialize(const world *w)
{
    state_ctx c = {w->ecm, {0}};
    const bench b = {serialize_setup, serialize_run, NULL};
    double best = best_time(&b, &c, 5, 0);
    fprintf(stderr, "bench/ecs: full state is %zu bytes\n", c.buf.len);
    report("ecs.serialize_full", (double)c.buf.len / 1e6 / best, "MB/s");
    apply_ctx a = {w, &c.buf, {0}};
    const bench apply = {apply_setup, apply_run, apply_teardown};
    report("ecs.apply_full", (double)c.buf.len / 1e6 / best_time(&apply, &a, WHOLE_WORLD_RUNS, 0), "MB/s");
    wk_buf_free(&c.buf);
}

typedef struct clone_ctx {
    const wk_ecm *src;
    wk_ecm *copy; /* the last run's clone */
} clone_ctx;

static void clone_setup(void *ctx)
{
    clone_ctx *c = ctx;
    wk_ecm_free(c->copy);
    c->copy = NULL;
}

static void clone_run(void *ctx)
{
    clone_ctx *c = ctx;
    c->copy = wk_ecm_clone(c->src);
    if (!c->copy)
        die("wk_ecm_clone failed: %s", wk_ecm_errmsg(c->src));
}

/* The best time of a clone of the world, checked against it; *first gets
 * the first run's. */
static double time_clone(const world *w, double *first)
{
    clone_ctx c = {w->ecm, NULL};
    const bench b = {clone_setup, clone_run, NULL};
    double best = best_time_first(&b, &c, 5, 0, first);
    check_count(c.copy, w->n, "clone");
    wk_status why;
    if (!wk_ecm_equal(w->ecm, c.copy, &why))
        die("clone differs: %s", why.message);
    wk_ecm_free(c.copy);
    return best;
}

/* add_remove leaves the world mid-step, its step lists holding a touched
 * entity and a removed component per entity, which a clone copies too (24
 * MB beside 74 MB of records and rows). A world is usually cloned between
 * steps, so the figure is taken after wk_ecm_end_step; the mid-step
 * one goes to stderr. */
static void bench_clone(world *w)
{
    double first;
    double mid_step = time_clone(w, &first);
    report_first_run("ecs.clone (mid-step)", first, (double)w->n);
    fprintf(stderr, BENCH_NAME ": ecs.clone mid-step %.2f ns/entity\n", mid_step * 1e9 / (double)w->n);
    check_rc(w->ecm, wk_ecm_end_step(w->ecm), 0, "wk_ecm_end_step");
    report("ecs.clone", time_clone(w, &first) * 1e9 / (double)w->n, "ns/entity");
}

/* ---- diff -------------------------------------------------------------- */

#define DIFF_CHANGES (N / 100)

typedef struct diff_ctx {
    const wk_ecm *a, *b;
    size_t reported;
} diff_ctx;

static int diff_count(const wk_ecm_diff_entry *e, void *ctx)
{
    (void)e;
    ((diff_ctx *)ctx)->reported++;
    return 0;
}

static void diff_run(void *ctx)
{
    diff_ctx *c = ctx;
    c->reported = 0;
    check_rc(c->a, wk_ecm_diff(c->a, c->b, diff_count, c), 0, "wk_ecm_diff");
}

/* The world against a clone with 1% of its positions changed: the diff
 * must report exactly those entities. */
static void bench_diff(const world *w)
{
    wk_ecm *copy = wk_ecm_clone(w->ecm);
    if (!copy)
        die("wk_ecm_clone failed: %s", wk_ecm_errmsg(w->ecm));
    wk_entity *order = shuffled_ids(w);
    for (size_t k = 0; k < DIFF_CHANGES; k++) {
        vec3 p = {1e300, (double)k, 0}; /* far from any position the kernels make */
        check_rc(copy, wk_ecm_set(copy, order[k], w->pos, &p), 1, "wk_ecm_set");
    }
    diff_ctx c = {w->ecm, copy, 0};
    const bench b = {NULL, diff_run, NULL};
    double best = best_time(&b, &c, 5, 0);
    if (c.reported != DIFF_CHANGES)
        die("wk_ecm_diff reported %zu entities, not %d", c.reported, DIFF_CHANGES);
    report("ecs.diff_1m", best * 1e3, "ms");
    free(order);
    wk_ecm_free(copy);
}

/* A populated world whose creation step has ended, so its entities are no
 * longer new, as in a running simulation. */
static void settled_world(world *w)
{
    world_init(w, N);
    world_populate(w, false);
    check_rc(w->ecm, wk_ecm_end_step(w->ecm), 0, "wk_ecm_end_step");
}

static void destroy_setup(void *ctx)
{
    settled_world(ctx);
}

static void destroy_run(void *ctx)
{
    world *w = ctx;
    for (size_t k = 0; k < w->n; k++)
        check_rc(w->ecm, wk_ecm_destroy(w->ecm, w->ids[k], false), 0, "wk_ecm_destroy");
}

static void destroy_teardown(void *ctx)
{
    world *w = ctx;
    check_count(w->ecm, 0, "after destroy");
    world_free(w);
}

static void bench_destroy(void)
{
    world w = {0};
    const bench b = {destroy_setup, destroy_run, destroy_teardown};
    report("ecs.destroy", best_time(&b, &w, WHOLE_WORLD_RUNS, 0) * 1e9 / N, "ns/entity");
}

/* ---- transactions ------------------------------------------------------ */

#define TXN_WORLD 100000
#define TXN_OPS 1000

typedef struct txn_ctx {
    world *w;
    wk_entity *order; /* the world's ids, shuffled: op k works on order[k] */
    wk_buf before, after;
} txn_ctx;

/* A batch of TXN_OPS mixed mutations, as a scene update would make them,
 * then a rollback: overwrite a value, add a component, remove one, destroy
 * an entity, create one with two components, re-parent. */
static void txn_run(void *ctx)
{
    txn_ctx *c = ctx;
    world *w = c->w;
    wk_ecm *ecm = w->ecm;
    check_rc(ecm, wk_ecm_txn_begin(ecm), 0, "wk_ecm_txn_begin");
    const wk_type types[] = {w->pos, w->vel};
    for (size_t k = 0; k < TXN_OPS; k++) {
        wk_entity e = c->order[k];
        vec3 v = {(double)k, 1, 2};
        double tag = (double)k;
        switch (k % 6) {
        case 0:
            check_rc(ecm, wk_ecm_set(ecm, e, w->pos, &v), 1, "wk_ecm_set(Position)");
            break;
        case 1:
            check_rc(ecm, wk_ecm_set(ecm, e, w->tag, &tag), 1, "wk_ecm_set(Tag)");
            break;
        case 2:
            check_rc(ecm, wk_ecm_remove(ecm, e, w->vel), 1, "wk_ecm_remove(Velocity)");
            break;
        case 3:
            check_rc(ecm, wk_ecm_destroy(ecm, e, true), 0, "wk_ecm_destroy");
            break;
        case 4:
            if (!wk_ecm_create_with(ecm, types, (const void *[]){&v, &v}, 2))
                die("wk_ecm_create_with failed: %s", wk_ecm_errmsg(ecm));
            break;
        case 5:
            check_rc(ecm, wk_ecm_set_parent(ecm, e, c->order[k - 1]), 0, "wk_ecm_set_parent");
            break;
        }
    }
    check_rc(ecm, wk_ecm_txn_rollback(ecm), 0, "wk_ecm_txn_rollback");
}

/* The rollback must give back the world's exact serialized state. */
static void txn_teardown(void *ctx)
{
    txn_ctx *c = ctx;
    c->after.len = 0;
    check_rc(c->w->ecm, wk_ecm_state(c->w->ecm, NULL, &c->after), 0, "wk_ecm_state");
    if (c->after.len != c->before.len || memcmp(c->after.data, c->before.data, c->before.len) != 0)
        die("the state after a rollback differs from the state before");
}

static void bench_txn(void)
{
    world w;
    world_init(&w, TXN_WORLD);
    world_populate(&w, false);
    check_rc(w.ecm, wk_ecm_end_step(w.ecm), 0, "wk_ecm_end_step");
    txn_ctx c = {&w, shuffled_ids(&w), {0}, {0}};
    check_rc(w.ecm, wk_ecm_state(w.ecm, NULL, &c.before), 0, "wk_ecm_state");
    const bench b = {NULL, txn_run, txn_teardown};
    report("ecs.txn_rollback_1000", best_time(&b, &c, 10, 0.1) * 1e6, "us");
    wk_buf_free(&c.before);
    wk_buf_free(&c.after);
    free(c.order);
    world_free(&w);
}

int main(void)
{
    bench_create();

    world w;
    settled_world(&w);
    passes done = {0, 0};
    bench_iterate(&w, &done, "ecs.iterate_1comp", WK_NO_TYPE, iterate_1comp_run);
    bench_iterate(&w, &done, "ecs.iterate_2comp", w.vel, iterate_2comp_run);
    bench_iterate_raw(w.n);
    bench_random(&w, done);
    bench_serialize(&w);
    bench_clone(&w);
    bench_diff(&w);
    world_free(&w);

    bench_destroy();
    bench_txn();
    return EXIT_SUCCESS;
}
