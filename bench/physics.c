/* physics.c — what stepping through worldkit costs over stepping MuJoCo
 * bare. A world of 100 free boxes piled over a ground plane runs through
 * wk_sim (--physics mujoco: the entities synced in and out every step), and
 * a copy of the model worldkit compiled, from a copy of its state, runs by
 * mj_step alone, in the same process, in alternating chunks (race says how
 * they are timed): the same compiled model, so both sides take the same
 * trajectory and MuJoCo does the same work on each (a hand-written twin
 * differs in the last bits of its numbers, and a chaotic arm's folds, and
 * the contacts they make, soon differ with them).
 * Prints:
 *   physics.step_us            one worldkit step,
 *   physics.bare_step_us       one bare mj_step of the same world,
 *   physics.step_overhead      their ratio (the target is 1.10 at most),
 *   physics.arm_step_overhead  the same ratio for an arm of 7 links on
 *                              revolute joints, welded to the world,
 *   physics.rtf_100_boxes      worldkit's real-time factor, as fast as it goes,
 *   physics.spawn_pooled_ms    the step after a model of one box is spawned
 *                              into a world of 1,000 bodies (a spare body of
 *                              the engine's pool filled; the pool came with
 *                              a first spawn, which compiled),
 *   physics.spawn_rebuild_ms   the step after a model the pool cannot take
 *                              (two links on a hinge) is spawned there (the
 *                              engine's model compiled again: MuJoCo 2.2.2
 *                              cannot edit one); on stderr, a plain step of
 *                              that world, the ratios, and the step after
 *                              ten spawns, more than the pool holds, which
 *                              compile once at that step,
 *   physics.delete_ms          the step after a body of the first compile
 *                              is deleted there (parked, no compile); on
 *                              stderr, its ratio to a plain step. */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench/physics"
#include "bench.h"
#include "sim/physics_mujoco.h"
#include "sim/sim_internal.h"
#include "worldkit/wk_sim.h"

/* A text built piece by piece, printf-style; the program dies when memory
 * runs out. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

__attribute__((format(printf, 2, 3))) static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = 2 * (t->len + (size_t)n + 1);
        if (!(t->s = realloc(t->s, t->cap)))
            die("out of memory");
    }
    va_start(ap, fmt);
    t->len += (size_t)vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
}

#define BOXES 100
#define STEPS 10000     /* of the boxes, each side */
#define ARM_STEPS 50000 /* of the arm, whose steps are 150 times shorter */

/* The boxes in a 10 x 10 grid, 0.3 m apart in x and y and staggered in
 * height, so that they fall onto the plane and some onto each other. */
static void box_pose(int i, double p[3])
{
    p[0] = 0.25 * (i % 10), p[1] = 0.25 * (i / 10), p[2] = 0.5 + 0.15 * (i % 7);
}

static char *sdf_world(void)
{
    text t = {0};
    put(&t,
        "<sdf version='1.9'><world name='boxes'><gravity>0 0 -9.8</gravity><model name='ground'>"
        "<static>true</static><link name='l'><collision name='c'><geometry><plane><normal>0 0 1"
        "</normal><size>10 10</size></plane></geometry></collision></link></model>");
    for (int i = 0; i < BOXES; i++) {
        double p[3];
        box_pose(i, p);
        put(&t,
            "<model name='b%d'><pose>%g %g %g 0 0 0</pose><link name='l'><inertial><mass>1</mass>"
            "<inertia><ixx>0.0067</ixx><iyy>0.0067</iyy><izz>0.0067</izz></inertia></inertial>"
            "<collision name='c'><geometry><box><size>0.2 0.2 0.2</size></box></geometry>"
            "</collision></link></model>",
            i, p[0], p[1], p[2]);
    }
    put(&t, "</world></sdf>");
    char *s = t.s;
    return s;
}

#define ARM_LINKS 7

/* An arm of ARM_LINKS links of 0.3 m, each on a revolute joint about y at
 * its top end, the first welded to the world at 3 m: it swings down under
 * gravity from level, each link 0.3 m along x from the one before. */
static char *sdf_arm(void)
{
    text t = {0};
    put(&t,
        "<sdf version='1.9'><world name='arm'><gravity>0 0 -9.8</gravity><model name='arm'>");
    for (int i = 0; i < ARM_LINKS; i++) {
        char parent[16] = "world";
        if (i)
            snprintf(parent, sizeof parent, "l%d", i - 1);
        put(&t,
            "<link name='l%d'><pose>%g 0 3 0 0 0</pose><inertial><pose>0.15 0 0 0 0 0</pose><mass>1"
            "</mass><inertia><ixx>0.001</ixx><iyy>0.0075</iyy><izz>0.0075</izz></inertia></inertial>"
            "<collision name='c'><pose>0.15 0 0 0 1.5708 0</pose><geometry><capsule><radius>0.02"
            "</radius><length>0.26</length></capsule></geometry></collision></link><joint name='j%d' "
            "type='revolute'><parent>%s</parent><child>l%d</child><axis><xyz>0 1 0</xyz></axis>"
            "</joint>",
            i, 0.3 * i, i, parent, i);
    }
    put(&t, "</model></world></sdf>");
    char *s = t.s;
    return s;
}

/* A model of one free link with a box: it fits a spare body of the
 * engine's pool. */
#define POOLED "<link name='l'><inertial><mass>1</mass></inertial><collision name='c'><geometry><box>" \
               "<size>0.2 0.2 0.2</size></box></geometry></collision></link>"
/* A model of two links on a hinge: the pool has no room for it, so the
 * engine's model is compiled again. */
#define JOINTED "<link name='a'><inertial><mass>1</mass></inertial></link><link name='b'><inertial><mass>1</mass>" \
                "</inertial></link><joint name='j' type='revolute'><parent>a</parent><child>b</child><axis>" \
                "<xyz>0 0 1</xyz></axis></joint>"

/* Spawns a model named name of links into sim's world; its entity. */
static wk_entity spawn(wk_sim *sim, const char *name, const char *links)
{
    char text[1024];
    snprintf(text, sizeof text, "<sdf version='1.9'><model name='%s'><pose>0 0 5 0 0 0</pose>%s</model></sdf>", name,
             links);
    wk_world_desc *late = NULL;
    wk_status st = {0};
    wk_entity e;
    if (wk_desc_read(&(wk_read_desc){.resource_string = text}, &late, &st) ||
        wk_desc_instantiate(wk_sim_scene(sim), late, 0, wk_sim_world(sim), NULL, NULL, &e, &st))
        die("%s", st.message);
    wk_desc_free(late);
    return e;
}

static void delete_model(wk_sim *sim, wk_entity gone)
{
    if (!gone || wk_ecm_destroy(wk_scene_ecm(wk_sim_scene(sim)), gone, true))
        die("could not delete entity %llu", (unsigned long long)gone);
}

/* How long one step takes, in ms. */
static double step_ms(wk_sim *sim)
{
    double t = now_s();
    if (wk_sim_step(sim, 1))
        die("%s", wk_sim_error(sim));
    return (now_s() - t) * 1e3;
}

/* In a world of 1,000 free bodies in zero gravity, in ms: a plain step;
 * the step that takes the delete of one of them (parked); the step that
 * takes a spawn the pool takes; the step that takes one it
 * does not (a compile); and the step after ten spawns made between two
 * steps, more than the pool holds (one compile). */
typedef struct spawn_costs {
    double plain, pooled, rebuild, ten, deleted;
} spawn_costs;

static spawn_costs spawn_cost(void)
{
    text t = {0};
    put(&t, "<sdf version='1.9'><world name='many'><gravity>0 0 0</gravity>");
    for (int i = 0; i < 1000; i++)
        put(&t,
            "<model name='m%d'><pose>%d %d 0 0 0 0</pose><link name='l'><inertial><mass>1</mass>"
            "</inertial></link></model>",
            i, i % 40, i / 40);
    put(&t, "</world></sdf>");
    char *s = t.s;
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_sim *sim = NULL;
    /* Its 1,000 bodies and the spawns pass the default link limit. */
    if (wk_desc_read(&(wk_read_desc){.resource_string = s}, &d, &st) ||
        wk_sim_new(d, &(wk_sim_desc){.physics = WK_PHYSICS_MUJOCO, .max_physics_links = 2000}, &sim, &st))
        die("%s", st.message);
    free(s);
    if (wk_sim_step(sim, 10))
        die("%s", wk_sim_error(sim));
    /* A world's first model has no spares: the first spawn brings them. It
     * is deleted (parked) so that no later spawn lands on it. */
    wk_entity first = spawn(sim, "first", POOLED);
    if (wk_sim_step(sim, 10))
        die("%s", wk_sim_error(sim));
    delete_model(sim, first);
    if (wk_sim_step(sim, 10))
        die("%s", wk_sim_error(sim));
    spawn_costs c = {.plain = 1e9};
    for (int k = 0; k < 10; k++) {
        double ms = step_ms(sim);
        c.plain = ms < c.plain ? ms : c.plain;
    }
    delete_model(sim, wk_scene_child(wk_sim_scene(sim), wk_sim_world(sim), "m500"));
    c.deleted = step_ms(sim);
    spawn(sim, "pooled", POOLED);
    c.pooled = step_ms(sim);
    spawn(sim, "jointed", JOINTED);
    c.rebuild = step_ms(sim);
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof name, "later%d", i);
        spawn(sim, name, POOLED);
    }
    c.ten = step_ms(sim);
    wk_sim_free(sim);
    return c;
}

/* The CPU time this thread has used, in s: a chunk of steps the scheduler
 * took the CPU from in the middle is not charged for the time it waited. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* How the two sides are timed: the same number of steps each, in CHUNKS
 * pairs of chunks of a hundredth of them (a millisecond or more, so that
 * what a chunk spends bringing its data back to the cache after the other
 * side's is a small part of it), worldkit's and the bare one's taken in
 * turn (which goes first alternates, so neither always inherits the
 * other's cache), so the two pass through the same phases of the motion
 * (free fall, then the pile's contacts) side by side. Each chunk is timed
 * in the thread's CPU time, so a wait for a CPU of a loaded host costs
 * neither side. The figures are medians over the pairs: the step times of
 * each side, and the ratio of each pair's two, so a chunk that a burst of
 * another process's cache traffic or an interrupt slowed, on either side,
 * moves the ratio by one sample of many. */
#define CHUNKS 100

/* Per step, in s: worldkit's and a bare mj_step's medians, the median of
 * their pairs' ratio, and worldkit's wall time in all; and how far apart
 * the two sides' joint positions ended (0: the same trajectory). */
typedef struct step_times {
    double ours, bare, ratio, total, apart;
} step_times;

static step_times race(const char *sdf, int steps)
{
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_sim *sim = NULL;
    if (wk_desc_read(&(wk_read_desc){.resource_string = sdf}, &d, &st) ||
        wk_sim_new(d, &(wk_sim_desc){.physics = WK_PHYSICS_MUJOCO}, &sim, &st))
        die("%s", st.message);
    if (wk_sim_step(sim, 1)) /* the model is built at the first step */
        die("%s", wk_sim_error(sim));
    /* A world's first model carries no spare bodies of the engine's pool
     * (they come with its first spawn): were there any, the bare copy would
     * step them too, and their cost would not show. */
    if (sim->physics->parked)
        die("the engine's first model has %zu spare bodies", sim->physics->parked);
    mjModel *m = mj_copyModel(NULL, sim->physics->m);
    mjData *data = m ? mj_copyData(NULL, m, sim->physics->d) : NULL;
    if (!data)
        die("out of memory copying the engine's model");
    static double ours[CHUNKS], bare[CHUNKS], ratio[CHUNKS];
    step_times t = {0};
    int chunk = steps / CHUNKS;
    for (int c = 0; c < CHUNKS; c++) {
        for (int side = 0; side < 2; side++) {
            double wall = now_s(), at = cpu_s();
            if ((side ^ (c & 1)) == 0) {
                if (wk_sim_step(sim, (uint64_t)chunk))
                    die("%s", wk_sim_error(sim));
                ours[c] = (cpu_s() - at) / chunk;
                t.total += now_s() - wall;
            } else {
                for (int k = 0; k < chunk; k++)
                    mj_step(m, data);
                bare[c] = (cpu_s() - at) / chunk;
            }
        }
        ratio[c] = ours[c] / bare[c];
    }
    t.ours = median(ours, CHUNKS), t.bare = median(bare, CHUNKS), t.ratio = median(ratio, CHUNKS);
    for (int i = 0; i < m->nq; i++)
        t.apart = fmax(t.apart, fabs(data->qpos[i] - sim->physics->d->qpos[i]));
    mj_deleteData(data);
    mj_deleteModel(m);
    wk_sim_free(sim);
    return t;
}

int main(void)
{
    char *sdf = sdf_world();
    step_times boxes = race(sdf, STEPS);
    free(sdf);
    char *arm = sdf_arm();
    step_times arms = race(arm, ARM_STEPS);
    free(arm);
    printf("bench physics.step_us %.2f us\n", boxes.ours * 1e6);
    printf("bench physics.bare_step_us %.2f us\n", boxes.bare * 1e6);
    printf("bench physics.step_overhead %.3f ratio\n", boxes.ratio);
    printf("bench physics.arm_step_overhead %.3f ratio\n", arms.ratio);
    printf("bench physics.rtf_100_boxes %.1f x\n", STEPS * 0.001 / boxes.total);
    fprintf(stderr, BENCH_NAME ": a 7-link arm: a worldkit step %.2f us, a bare one %.2f us\n", arms.ours * 1e6,
            arms.bare * 1e6);
    fprintf(stderr, BENCH_NAME ": the two sides' joint positions ended %g apart (boxes), %g (arm)\n", boxes.apart,
            arms.apart);
    spawn_costs c = spawn_cost();
    printf("bench physics.spawn_pooled_ms %.3f ms\n", c.pooled);
    printf("bench physics.spawn_rebuild_ms %.1f ms\n", c.rebuild);
    printf("bench physics.delete_ms %.3f ms\n", c.deleted);
    fprintf(stderr, BENCH_NAME ": 1,000 bodies: a plain step %.3f ms; a delete's step %.3f ms (%.1fx); a pooled "
                    "spawn's step %.3f ms (%.1fx); a rebuild's %.1f ms (%.0fx); the step after ten spawns, past the "
                    "pool: %.1f ms (one compile)\n",
            c.plain, c.deleted, c.deleted / c.plain, c.pooled, c.pooled / c.plain, c.rebuild, c.rebuild / c.plain,
            c.ten);
    return 0;
}
