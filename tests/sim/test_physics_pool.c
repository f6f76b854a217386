/* test_physics_pool.c — spawns and deletes while playing that the MuJoCo
 * engine takes into spare bodies of its compiled model rather than by
 * compiling it again: a spawned body moves as the same body present from
 * the start does, and the spare and parked bodies touch nothing (the other
 * bodies' trajectories stay those of a run without them, and no entity
 * appears for them). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim/physics_mujoco.h"
#include "sim/physics_start.h"
#include "wk_test.h"

/* A brick turned in the air, its centre of mass off its origin and its
 * inertia with a product term: it lands on a corner and tumbles, so its
 * inertia (turned to its principal axes), contact and friction all show
 * in its motion. */
#define BRICK_BODY                                                                                                 \
    "<model name='brick'><pose>3 0 1 0.3 0.2 0.1</pose><link name='l'><inertial><pose>0.01 0 0 0 0.2 0</pose>"    \
    "<mass>2</mass><inertia><ixx>0.01</ixx><iyy>0.03</iyy><izz>0.035</izz><ixy>0.002</ixy></inertia></inertial>" \
    "<collision name='c'><geometry><box><size>0.4 0.2 0.1</size></box></geometry><surface><friction><ode>"        \
    "<mu>0.6</mu></ode></friction></surface></collision>"
#define BRICK                                                                                                      \
    BRICK_BODY "<collision name='tip'><pose>0.2 0 0 0 0 0</pose><geometry><sphere><radius>0.04</radius></sphere>" \
               "</geometry></collision></link></model>"
/* The brick without its tip: one geom, as BOX_DROP's box has. */
#define SLAB BRICK_BODY "</link></model>"

/* BOX_DROP with the brick in it from the start. */
#define WITH_BRICK                                                                                                \
    WORLD_OPEN("0 0 -9.8")                                                                                        \
    "<model name='ground'><static>true</static><link name='l'><collision name='c'><geometry><plane>"             \
    "<normal>0 0 1</normal><size>100 100</size></plane></geometry></collision></link></model>" BRICK "</world></sdf>"

static wk_entity spawn(wk_sim *sim, const char *model)
{
    char text[2048];
    snprintf(text, sizeof text, "<sdf version='1.9'>%s</sdf>", model);
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_entity e = WK_NULL_ENTITY;
    if (wk_desc_read(&(wk_read_desc){.resource_string = text}, &d, &st) ||
        wk_desc_instantiate(wk_sim_scene(sim), d, 0, wk_sim_world(sim), NULL, NULL, &e, &st))
        fprintf(stderr, "    %s\n", st.message);
    wk_desc_free(d);
    return e;
}

/* The model the engine steps: the same pointer until it compiles again. */
static const mjModel *engine_model(wk_sim *sim)
{
    return sim->physics ? sim->physics->m : NULL;
}

/* The first spawn into a world brings the engine's pool (its first model
 * has none): a ball spawned, stepped (a compile) and deleted (parked). */
static void bring_the_pool(wk_sim *sim)
{
    wk_entity ball = spawn(sim, "<model name='ball'><pose>-3 0 1 0 0 0</pose><link name='l'><inertial><mass>1"
                                "</mass></inertial><collision name='c'><geometry><sphere><radius>0.1</radius>"
                                "</sphere></geometry></collision></link></model>");
    REQUIRE(ball);
    REQUIRE_INT(steps(sim, 1), ==, WK_OK);
    REQUIRE_INT(wk_ecm_destroy(wk_scene_ecm(wk_sim_scene(sim)), ball, true), ==, WK_OK);
    REQUIRE_INT(steps(sim, 1), ==, WK_OK);
}

static size_t links_in(wk_sim *sim)
{
    uint8_t kind = WK_NODE_LINK;
    wk_entity_list links = {0};
    wk_scene *s = wk_sim_scene(sim);
    size_t n = wk_ecm_find(wk_scene_ecm(s), &(wk_match){wk_scene_types_of(s)->kind, &kind}, 1, &links) == WK_OK
                   ? links.count
                   : SIZE_MAX;
    wk_entity_list_free(&links);
    return n;
}

/* The brick spawned into a running world (a spare filled, the pool
 * brought by an earlier spawn) moves as the
 * brick present from the start, step for step from when each was let go:
 * through its fall, its landing on a corner and its tumble to rest. Within
 * 1e-6 m and 1e-6 in the quaternion: the two models differ only in the
 * spare bodies left, which the constraint solver's tolerance scales with.
 * After 2 s it rests on a face, its centre half the brick's extent across
 * that face up (the sphere at its tip stays inside the box). */
static void pooled_spawn_moves_as_if_there_from_the_start(void)
{
    wk_sim *from_start = physics_sim(WITH_BRICK), *spawned = physics_sim(BOX_DROP);
    REQUIRE(from_start && spawned);
    REQUIRE_INT(steps(spawned, 148), ==, WK_OK);
    bring_the_pool(spawned);
    const mjModel *m = engine_model(spawned);
    size_t before = links_in(spawned);
    REQUIRE(spawn(spawned, BRICK));
    for (int k = 0; k < 2000; k++) {
        REQUIRE_INT(steps(from_start, 1), ==, WK_OK);
        REQUIRE_INT(steps(spawned, 1), ==, WK_OK);
        wk_pose a = wk_scene_world_pose(wk_sim_scene(from_start), link_of(from_start, "brick::l"));
        wk_pose b = wk_scene_world_pose(wk_sim_scene(spawned), link_of(spawned, "brick::l"));
        double turned = fabs(a.q.w * b.q.w + a.q.x * b.q.x + a.q.y * b.q.y + a.q.z * b.q.z);
        if (!CHECK_NEAR(wk_vec3_norm(wk_vec3_sub(b.p, a.p)), 0, 1e-6) || !CHECK_NEAR(turned, 1, 1e-6)) {
            fprintf(stderr, "    at step %d\n", k);
            break;
        }
    }
    double h = height(spawned, "brick::l");
    CHECK_NEAR(fmin(fabs(h - 0.05), fmin(fabs(h - 0.1), fabs(h - 0.2))), 0, 2e-3);
    /* One link more, and nothing else: the spares are no entities. */
    CHECK_INT(links_in(spawned), ==, before + 1);
    CHECK(engine_model(spawned) == m); /* a spare took it: no compile */
    wk_sim_free(from_start);
    wk_sim_free(spawned);
}

/* Spawns into spares and deletes that park them, mid-run, the bricks
 * landing and the box bouncing meanwhile, leave the box's trajectory that
 * of a run with none of it, within 1e-9: a spare, filled, parked or
 * refilled, touches no other body. */
static void spares_touch_nothing(void)
{
    wk_sim *plain = physics_sim(BOX_DROP), *busy = physics_sim(BOX_DROP);
    REQUIRE(plain && busy);
    wk_entity brick = WK_NULL_ENTITY;
    size_t before = links_in(busy);
    for (int k = 0; k < 1200; k++) {
        if (k % 300 == 100)
            REQUIRE((brick = spawn(busy, BRICK)));
        if (k % 300 == 250) /* and parked back */
            REQUIRE_INT(wk_ecm_destroy(wk_scene_ecm(wk_sim_scene(busy)), brick, true), ==, WK_OK);
        REQUIRE_INT(steps(plain, 1), ==, WK_OK);
        REQUIRE_INT(steps(busy, 1), ==, WK_OK);
        if (!CHECK_NEAR(height(busy, "box::body"), height(plain, "box::body"), 1e-9)) {
            fprintf(stderr, "    at step %d\n", k);
            break;
        }
    }
    CHECK_INT(links_in(busy), ==, before);
    wk_sim_free(plain);
    wk_sim_free(busy);
}

/* More spawns between two steps than the pool holds, and a model it cannot
 * take (two links on a hinge): the model is compiled again, and every
 * body, pooled before or not, keeps its state across. */
static void past_the_pool_compiles_again(void)
{
    wk_sim *sim = physics_sim(BOX_DROP);
    REQUIRE(sim);
    REQUIRE_INT(steps(sim, 100), ==, WK_OK);
    REQUIRE(spawn(sim, BRICK));
    REQUIRE_INT(steps(sim, 100), ==, WK_OK);
    double box = height(sim, "box::body"), brick = height(sim, "brick::l");
    char model[256];
    for (int i = 0; i < 12; i++) {
        snprintf(model, sizeof model,
                 "<model name='ball%d'><pose>%d 5 1 0 0 0</pose><link name='l'><inertial><mass>1</mass></inertial>"
                 "<collision name='c'><geometry><sphere><radius>0.1</radius></sphere></geometry></collision>"
                 "</link></model>",
                 i, i);
        REQUIRE(spawn(sim, model));
    }
    REQUIRE(spawn(sim, "<model name='hinged'><pose>0 -5 1 0 0 0</pose><link name='a'><inertial><mass>1</mass>"
                       "</inertial></link><link name='b'><inertial><mass>1</mass></inertial></link><joint name='j' "
                       "type='revolute'><parent>a</parent><child>b</child><axis><xyz>0 1 0</xyz></axis></joint>"
                       "</model>"));
    REQUIRE_INT(steps(sim, 1), ==, WK_OK);
    /* Both still falling, a step further down at the speed they had (the
     * box 0.2 s in, about 2 mm a step; the brick 0.1 s in, about 1 mm),
     * not from rest (0.01 mm). */
    CHECK_NEAR(box - height(sim, "box::body"), 9.8 * 0.201 * 0.001, 1e-4);
    CHECK_NEAR(brick - height(sim, "brick::l"), 9.8 * 0.101 * 0.001, 1e-4);
    REQUIRE_INT(steps(sim, 800), ==, WK_OK);
    CHECK_NEAR(height(sim, "ball11::l"), 0.1, 2e-3);
    wk_sim_free(sim);
}

/* SLAB, from the start, after ground, in a world of the pool's spares. */
#define WITH_SLAB                                                                                                 \
    WORLD_OPEN("0 0 -9.8")                                                                                        \
    "<model name='ground'><static>true</static><link name='l'><collision name='c'><geometry><plane>"             \
    "<normal>0 0 1</normal><size>100 100</size></plane></geometry></collision></link></model>" SLAB "</world></sdf>"

/* A body of the first compile (BOX_DROP's box, which MuJoCo compiles as
 * simple: its inertia diagonal in its frame, so its mass matrix block is
 * taken as constant and diagonal) is parked when deleted, no compile, and
 * the slab spawned in its place at once takes that body; the slab, its
 * centre of mass off its origin and its inertia turned, then moves as the
 * slab present from the start, within 1e-6 through its fall, landing and
 * tumble: had the body kept MuJoCo's shortcut, it would move as the box's
 * mass matrix says. */
static void deleted_first_compile_body_is_parked_and_refilled(void)
{
    wk_sim *from_start = physics_sim(WITH_SLAB), *recycled = physics_sim(BOX_DROP);
    REQUIRE(from_start && recycled);
    REQUIRE_INT(steps(recycled, 150), ==, WK_OK);
    const mjModel *m = engine_model(recycled);
    wk_scene *s = wk_sim_scene(recycled);
    wk_entity model = wk_scene_child(s, wk_sim_world(recycled), "box"), link = link_of(recycled, "box::body");
    int simple = -1;
    for (size_t i = 0; i < recycled->physics->count; i++)
        if (recycled->physics->bodies[i].link == link)
            simple = m->body_simple[recycled->physics->bodies[i].id];
    CHECK_INT(simple, ==, 1);
    REQUIRE_INT(wk_ecm_destroy(wk_scene_ecm(s), model, true), ==, WK_OK);
    REQUIRE(spawn(recycled, SLAB));
    for (int k = 0; k < 2000; k++) {
        REQUIRE_INT(steps(from_start, 1), ==, WK_OK);
        REQUIRE_INT(steps(recycled, 1), ==, WK_OK);
        wk_pose a = wk_scene_world_pose(wk_sim_scene(from_start), link_of(from_start, "brick::l"));
        wk_pose b = wk_scene_world_pose(s, link_of(recycled, "brick::l"));
        double turned = fabs(a.q.w * b.q.w + a.q.x * b.q.x + a.q.y * b.q.y + a.q.z * b.q.z);
        if (!CHECK_NEAR(wk_vec3_norm(wk_vec3_sub(b.p, a.p)), 0, 1e-6) || !CHECK_NEAR(turned, 1, 1e-6)) {
            fprintf(stderr, "    at step %d\n", k);
            break;
        }
    }
    CHECK(engine_model(recycled) == m); /* never compiled again */
    wk_sim_free(from_start);
    wk_sim_free(recycled);
}

static const wk_test_case cases[] = {
    {"pooled_spawn_moves_as_if_there_from_the_start", pooled_spawn_moves_as_if_there_from_the_start},
    {"spares_touch_nothing", spares_touch_nothing},
    {"past_the_pool_compiles_again", past_the_pool_compiles_again},
    {"deleted_first_compile_body_is_parked_and_refilled", deleted_first_compile_body_is_parked_and_refilled},
};
WK_TEST_MAIN(cases)
