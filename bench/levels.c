/* levels.c — the cost of a simulation step with levels, through the spatial
 * index and, in the same run, with every performer checked against every
 * level. The world: 100,000 levels on a 400 x 250 grid 10 m apart, each
 * holding one model, and 1,000 performers driving across it at up to
 * 10 m/s. Each figure is the mean wall time of a whole step (level checks,
 * the loads and unloads they cause, motion), after a warm-up. Prints
 * levels.step_indexed, levels.step_naive (us) and their ratio. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench/levels"
#include "bench.h"
#include "worldkit/wk_sim.h"

#define COLS 400
#define ROWS 250
#define PERFORMERS 1000


/* Appends to a growing string. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap ? t->cap * 2 : 1 << 20;
        if (!(t->s = realloc(t->s, t->cap)))
            die("out of memory");
    }
}

static char *world_text(void)
{
    text t = {0};
    add(&t, "<sdf version='1.9'><world name='grid'>");
    for (int i = 0; i < COLS * ROWS; i++)
        add(&t, "<model name='m%d'><static>true</static><pose>%d %d 0 0 0 0</pose><link name='l'/></model>", i,
            (i % COLS) * 10, (i / COLS) * 10);
    for (int k = 0; k < PERFORMERS; k++)
        add(&t, "<model name='p%d'><pose>%d %d 0 0 0 0</pose><link name='l'/></model>", k, (k * 397) % (COLS * 10),
            (k * 211) % (ROWS * 10));
    add(&t, "<plugin name='gz::sim' filename='x'>");
    for (int k = 0; k < PERFORMERS; k++)
        add(&t, "<performer name='q%d'><ref>p%d</ref><geometry><box><size>2 2 2</size></box></geometry></performer>",
            k, k);
    for (int i = 0; i < COLS * ROWS; i++)
        add(&t,
            "<level name='L%d'><pose>%d %d 0 0 0 0</pose><geometry><box><size>8 8 4</size></box></geometry>"
            "<buffer>1</buffer><ref>m%d</ref></level>",
            i, (i % COLS) * 10, (i / COLS) * 10, i);
    add(&t, "</plugin></world></sdf>");
    return t.s;
}

static wk_sim *start(const char *world, bool naive)
{
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_sim *sim = NULL;
    if (wk_desc_read(&(wk_read_desc){.resource_string = world}, &d, &st) ||
        wk_sim_new(d, &(wk_sim_desc){.levels = true, .naive_levels = naive}, &sim, &st))
        die("%s", st.message);
    wk_scene *s = wk_sim_scene(sim);
    for (int k = 0; k < PERFORMERS; k++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", k);
        wk_velocity v = {.linear = {(double)(k % 21) - 10.0, (double)(k % 17) - 8.0, 0}};
        wk_entity e = wk_scene_child(s, wk_sim_world(sim), name);
        if (!e || wk_ecm_set(wk_scene_ecm(s), e, wk_sim_velocity_type(sim), &v) < 0)
            die("no performer to drive");
    }
    return sim;
}

/* Mean microseconds per step over steps steps, after warm-up ones. */
static double step_time(wk_sim *sim, int warmup, int steps)
{
    if (wk_sim_step(sim, (uint64_t)warmup))
        die("step failed");
    double t0 = now_s() * 1e6;
    if (wk_sim_step(sim, (uint64_t)steps))
        die("step failed");
    return (now_s() * 1e6 - t0) / steps;
}

int main(void)
{
    char *world = world_text();
    wk_sim *indexed = start(world, false);
    wk_sim *naive = start(world, true);
    free(world);
    /* Both must load the same levels: compare them after the same steps. */
    double slow = step_time(naive, 2, 10);
    if (wk_sim_step(indexed, wk_sim_iterations(naive)))
        die("step failed");
    for (int i = 0; i < COLS * ROWS; i++) {
        char name[16];
        snprintf(name, sizeof name, "L%d", i);
        if (wk_sim_level_loaded(indexed, name) != wk_sim_level_loaded(naive, name))
            die("the index and the all-pairs check disagree");
    }
    double fast = step_time(indexed, 50, 1000);
    fprintf(stderr, "bench/levels: %zu entities loaded\n", wk_ecm_count(wk_scene_ecm(wk_sim_scene(indexed))));
    printf("bench levels.step_indexed %.1f us\n", fast);
    printf("bench levels.step_naive %.1f us\n", slow);
    printf("bench levels.speedup %.0f x\n", slow / fast);
    wk_sim_free(indexed);
    wk_sim_free(naive);
    return 0;
}
