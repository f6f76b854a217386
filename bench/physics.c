/* physics.c — what stepping through worldkit costs over stepping MuJoCo
 * bare. A world of 100 free boxes piled over a ground plane runs through
 * wk_sim (--physics mujoco: the entities synced in and out every step), and
 * the same boxes, written by hand as MJCF, run by mj_step alone, in the
 * same process, alternating rounds. Prints:
 *   physics.step_us            one worldkit step,
 *   physics.bare_step_us       one bare mj_step of the same world,
 *   physics.step_overhead      their ratio (the target is 1.10 at most),
 *   physics.rtf_100_boxes      worldkit's real-time factor, as fast as it goes,
 *   physics.spawn_pooled_ms    the step after a model of one box is spawned
 *                              into a world of 1,000 bodies (a spare body of
 *                              the engine's pool filled),
 *   physics.spawn_rebuild_ms   the step after a model the pool cannot take
 *                              (two links on a hinge) is spawned there (the
 *                              engine's model compiled again: MuJoCo 2.2.2
 *                              cannot edit one); on stderr, a plain step of
 *                              that world, the ratios, and the step after
 *                              ten spawns, more than the pool holds, which
 *                              compile once at that step. */
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench/physics"
#include "bench.h"
#include "worldkit/wk_sim.h"

#define BOXES 100
#define STEPS 2000
#define ROUNDS 5

/* The boxes in a 10 x 10 grid, 0.3 m apart in x and y and staggered in
 * height, so that they fall onto the plane and some onto each other. */
static void box_pose(int i, double p[3])
{
    p[0] = 0.25 * (i % 10), p[1] = 0.25 * (i / 10), p[2] = 0.5 + 0.15 * (i % 7);
}

static char *sdf_world(void)
{
    size_t cap = 1024 + BOXES * 512, n = 0;
    char *s = malloc(cap);
    if (!s)
        die("out of memory");
    n += (size_t)snprintf(s + n, cap - n,
                          "<sdf version='1.9'><world name='boxes'><gravity>0 0 -9.8</gravity><model name='ground'>"
                          "<static>true</static><link name='l'><collision name='c'><geometry><plane><normal>0 0 1"
                          "</normal><size>10 10</size></plane></geometry></collision></link></model>");
    for (int i = 0; i < BOXES; i++) {
        double p[3];
        box_pose(i, p);
        n += (size_t)snprintf(s + n, cap - n,
                              "<model name='b%d'><pose>%g %g %g 0 0 0</pose><link name='l'><inertial><mass>1</mass>"
                              "<inertia><ixx>0.0067</ixx><iyy>0.0067</iyy><izz>0.0067</izz></inertia></inertial>"
                              "<collision name='c'><geometry><box><size>0.2 0.2 0.2</size></box></geometry>"
                              "</collision></link></model>",
                              i, p[0], p[1], p[2]);
    }
    snprintf(s + n, cap - n, "</world></sdf>");
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

/* Spawns a model named name of links into sim's world. */
static void spawn(wk_sim *sim, const char *name, const char *links)
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
 * the step that takes a spawn the pool takes; the step that takes one it
 * does not (a compile); and the step after ten spawns made between two
 * steps, more than the pool holds (one compile). */
typedef struct spawn_costs {
    double plain, pooled, rebuild, ten;
} spawn_costs;

static spawn_costs spawn_cost(void)
{
    size_t cap = 1024 + 1000 * 200, n = 0;
    char *s = malloc(cap);
    if (!s)
        die("out of memory");
    n += (size_t)snprintf(s + n, cap - n, "<sdf version='1.9'><world name='many'><gravity>0 0 0</gravity>");
    for (int i = 0; i < 1000; i++)
        n += (size_t)snprintf(s + n, cap - n,
                              "<model name='m%d'><pose>%d %d 0 0 0 0</pose><link name='l'><inertial><mass>1</mass>"
                              "</inertial></link></model>",
                              i, i % 40, i / 40);
    snprintf(s + n, cap - n, "</world></sdf>");
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_sim *sim = NULL;
    if (wk_desc_read(&(wk_read_desc){.resource_string = s}, &d, &st) ||
        wk_sim_new(d, &(wk_sim_desc){.physics = WK_PHYSICS_MUJOCO}, &sim, &st))
        die("%s", st.message);
    free(s);
    if (wk_sim_step(sim, 10))
        die("%s", wk_sim_error(sim));
    spawn_costs c = {1e9, 0, 0, 0};
    for (int k = 0; k < 10; k++) {
        double ms = step_ms(sim);
        c.plain = ms < c.plain ? ms : c.plain;
    }
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

static mjModel *bare_model(void)
{
    size_t cap = 1024 + BOXES * 320, n = 0;
    char *s = malloc(cap);
    if (!s)
        die("out of memory");
    n += (size_t)snprintf(s + n, cap - n,
                          "<mujoco><compiler angle='radian' inertiafromgeom='false'/><option timestep='0.001' "
                          "gravity='0 0 -9.8'/><size nconmax='908' njmax='3632'/><worldbody><geom type='plane' size='0 0 1'/>");
    for (int i = 0; i < BOXES; i++) {
        double p[3];
        box_pose(i, p);
        n += (size_t)snprintf(s + n, cap - n,
                              "<body pos='%g %g %g'><freejoint/><inertial pos='0 0 0' mass='1' "
                              "diaginertia='0.0067 0.0067 0.0067'/><geom type='box' size='0.1 0.1 0.1'/></body>",
                              p[0], p[1], p[2]);
    }
    snprintf(s + n, cap - n, "</worldbody></mujoco>");
    mjVFS *vfs = malloc(sizeof *vfs);
    if (!vfs)
        die("out of memory");
    mj_defaultVFS(vfs);
    mj_makeEmptyFileVFS(vfs, "bare.xml", (int)strlen(s));
    memcpy(vfs->filedata[mj_findFileVFS(vfs, "bare.xml")], s, strlen(s));
    char error[512];
    mjModel *m = mj_loadXML("bare.xml", vfs, error, sizeof error);
    mj_deleteVFS(vfs);
    free(vfs);
    free(s);
    if (!m)
        die("the bare model does not compile: %s", error);
    return m;
}

int main(void)
{
    char *sdf = sdf_world();
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_sim *sim = NULL;
    if (wk_desc_read(&(wk_read_desc){.resource_string = sdf}, &d, &st) ||
        wk_sim_new(d, &(wk_sim_desc){.physics = WK_PHYSICS_MUJOCO}, &sim, &st))
        die("%s", st.message);
    free(sdf);
    mjModel *m = bare_model();
    mjData *data = mj_makeData(m);
    if (wk_sim_step(sim, 1)) /* the model is built at the first step */
        die("%s", wk_sim_error(sim));
    double best = 1e9, best_bare = 1e9, total = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double t = now_s();
        if (wk_sim_step(sim, STEPS))
            die("%s", wk_sim_error(sim));
        double ours = (now_s() - t) / STEPS;
        total += ours * STEPS;
        t = now_s();
        for (int k = 0; k < STEPS; k++)
            mj_step(m, data);
        double bare = (now_s() - t) / STEPS;
        best = ours < best ? ours : best;
        best_bare = bare < best_bare ? bare : best_bare;
    }
    printf("bench physics.step_us %.2f us\n", best * 1e6);
    printf("bench physics.bare_step_us %.2f us\n", best_bare * 1e6);
    printf("bench physics.step_overhead %.3f ratio\n", best / best_bare);
    printf("bench physics.rtf_100_boxes %.1f x\n", ROUNDS * STEPS * 0.001 / total);
    spawn_costs c = spawn_cost();
    printf("bench physics.spawn_pooled_ms %.3f ms\n", c.pooled);
    printf("bench physics.spawn_rebuild_ms %.1f ms\n", c.rebuild);
    fprintf(stderr, BENCH_NAME ": 1,000 bodies: a plain step %.3f ms; a pooled spawn's step %.3f ms (%.1fx); a "
                    "rebuild's %.1f ms (%.0fx); the step after ten spawns, past the pool: %.1f ms (one compile)\n",
            c.plain, c.pooled, c.pooled / c.plain, c.rebuild, c.rebuild / c.plain, c.ten);
    mj_deleteData(data);
    mj_deleteModel(m);
    wk_sim_free(sim);
    return 0;
}
