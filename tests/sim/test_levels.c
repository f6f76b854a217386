/* test_levels.c — levels and performers as the levels tutorial (seed 003)
 * tells it: its four stages with R1 as the only performer, the same world
 * with all three performers, a tunnel driven through by two vehicles, and
 * performers added at run time. */
#include <stdio.h>
#include <string.h>

#include "worldkit/wk_sim.h"
#include "sim/start.h"
#include "wk_test.h"

static bool present(wk_sim *sim, const char *name)
{
    return wk_scene_child(wk_sim_scene(sim), wk_sim_world(sim), name) != WK_NULL_ENTITY;
}

/* Which of M1..M6 are loaded, as a string like "M1 M3 M6". */
static const char *loaded_models(wk_sim *sim)
{
    static char buf[64];
    buf[0] = '\0';
    for (int i = 1; i <= 6; i++) {
        char name[4];
        snprintf(name, sizeof name, "M%d", i);
        if (present(sim, name))
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? " " : "", name);
    }
    return buf;
}

/* Drives the named model to y (from its current place) at speed, stepping. */
static void drive_to_y(wk_sim *sim, const char *name, double y, double speed)
{
    wk_scene *s = wk_sim_scene(sim);
    wk_entity e = wk_scene_child(s, wk_sim_world(sim), name);
    double from = wk_scene_world_pose(s, e).p.y;
    wk_velocity v = {.linear = {0, y < from ? -speed : speed, 0}};
    wk_ecm_set(wk_scene_ecm(s), e, wk_sim_velocity_type(sim), &v);
    uint64_t steps = (uint64_t)((from > y ? from - y : y - from) / speed / wk_sim_dt(sim) + 0.5);
    wk_sim_step(sim, steps);
    wk_ecm_remove(wk_scene_ecm(s), e, wk_sim_velocity_type(sim));
    CHECK_NEAR(wk_scene_world_pose(s, e).p.y, y, 1e-9);
}

static void tutorial_narrative(void)
{
    wk_sim *sim = start("levels_one_performer.sdf", true);
    REQUIRE(sim);
    /* 1. R1 starts in L1: L1's models and the global M6. */
    CHECK(present(sim, "R1"));
    CHECK_STR(loaded_models(sim), "M1 M3 M6");
    CHECK(wk_sim_level_loaded(sim, "L1") && !wk_sim_level_loaded(sim, "L3"));
    /* 2. South into L3's buffer (R1's box reaches y = 2): L3 loads too. */
    drive_to_y(sim, "R1", 2.5, 10);
    CHECK_STR(loaded_models(sim), "M1 M3 M4 M5 M6");
    CHECK(wk_sim_level_loaded(sim, "L1") && wk_sim_level_loaded(sim, "L3"));
    /* 3. Out of L1 and into L3, but still inside L1's buffer: both stay. */
    drive_to_y(sim, "R1", -2.5, 10);
    CHECK_STR(loaded_models(sim), "M1 M3 M4 M5 M6");
    /* 4. Beyond L1's buffer: L1 unloads, taking M1; M3 stays with L3. */
    drive_to_y(sim, "R1", -3.5, 10);
    CHECK(!wk_sim_level_loaded(sim, "L1"));
    CHECK_STR(loaded_models(sim), "M3 M4 M5 M6");
    CHECK(present(sim, "R2") && present(sim, "R3")); /* global */
    /* Back north: L1 loads again, M1 as the file has it. */
    drive_to_y(sim, "R1", 5, 10);
    CHECK_STR(loaded_models(sim), "M1 M3 M6");
    wk_pose m1 = wk_scene_world_pose(wk_sim_scene(sim), wk_scene_child(wk_sim_scene(sim), wk_sim_world(sim), "M1"));
    CHECK_NEAR(m1.p.x, -8, 0);
    CHECK_NEAR(m1.p.y, 8, 0);
    wk_sim_free(sim);
}

static void all_performers(void)
{
    wk_sim *sim = start("../../../examples/levels.sdf", true);
    REQUIRE(sim);
    CHECK(wk_sim_level_loaded(sim, "L1"));
    CHECK(wk_sim_level_loaded(sim, "L2"));
    CHECK(!wk_sim_level_loaded(sim, "L3"));
    CHECK_STR(loaded_models(sim), "M1 M2 M3 M6");
    wk_sim_free(sim);
}

static void without_levels_everything_loads(void)
{
    wk_sim *sim = start("levels_one_performer.sdf", false);
    REQUIRE(sim);
    CHECK_STR(loaded_models(sim), "M1 M2 M3 M4 M5 M6");
    drive_to_y(sim, "R1", -20, 50);
    CHECK_STR(loaded_models(sim), "M1 M2 M3 M4 M5 M6");
    wk_sim_free(sim);
}

typedef struct event_log {
    char text[256];
    wk_sim *sim;
} event_log;

static void log_event(wk_sim *sim, const char *level, bool loaded, void *ctx)
{
    event_log *log = ctx;
    size_t n = strlen(log->text);
    snprintf(log->text + n, sizeof log->text - n, "%s%.2f %s %s", n ? ", " : "", wk_sim_time(sim),
             loaded ? "load" : "unload", level);
}

static void tunnel(void)
{
    wk_sim *sim = start("tunnel.sdf", true);
    REQUIRE(sim);
    event_log log = {.sim = sim};
    wk_sim_on_level_event(sim, log_event, &log);
    /* Both vehicles start at x = 0: only the first section is near. */
    CHECK(wk_sim_level_loaded(sim, "section_0") && !wk_sim_level_loaded(sim, "section_1"));
    wk_scene *s = wk_sim_scene(sim);
    wk_ecm *ecm = wk_scene_ecm(s);
    wk_entity blue = wk_scene_child(s, wk_sim_world(sim), "vehicle_blue");
    wk_entity red = wk_scene_child(s, wk_sim_world(sim), "vehicle_red");
    REQUIRE(blue && red);
    wk_ecm_set(ecm, blue, wk_sim_velocity_type(sim), &(wk_velocity){.linear = {4, 0, 0}});
    wk_ecm_set(ecm, red, wk_sim_velocity_type(sim), &(wk_velocity){.linear = {2, 0, 0}});
    /* 20 s: blue goes to x = 80, red to x = 40. Section k's zone spans
     * [20k - 5, 20k + 25]; a vehicle's box is 2 m long. So blue reaches
     * section k when 4t + 1 = 20k - 5, and section 0 goes once red's back
     * passes 25 (2t - 1 = 25). Section 2 is empty for half a second, between
     * blue leaving it (4t - 1 = 65) and red reaching it (2t + 1 = 35). */
    wk_sim_step(sim, (uint64_t)(20.0 / wk_sim_dt(sim) + 0.5));
    CHECK_STR(log.text, "3.50 load section_1, 8.50 load section_2, 13.00 unload section_0, 13.50 load section_3, "
                        "16.50 unload section_2, 17.00 load section_2, 18.50 load section_4");
    for (int k = 0; k < 10; k++) {
        char name[16];
        snprintf(name, sizeof name, "section_%d", k);
        bool want = k >= 1 && k <= 4; /* red near 1-2, blue near 3-4 */
        if (!CHECK(wk_sim_level_loaded(sim, name) == want))
            fprintf(stderr, "    %s\n", name);
        snprintf(name, sizeof name, "tunnel_%d", k);
        CHECK(present(sim, name) == want);
    }
    wk_sim_free(sim);
}

static void runtime_performer(void)
{
    wk_sim *sim = start("levels_one_performer.sdf", true);
    REQUIRE(sim);
    CHECK(!wk_sim_level_loaded(sim, "L2"));
    CHECK_INT(wk_sim_set_performer(sim, "R3"), ==, 1); /* R3 sits in L2 */
    CHECK_INT(wk_sim_set_performer(sim, "R3"), ==, 0); /* already one */
    CHECK_INT(wk_sim_set_performer(sim, "R1"), ==, 0); /* from the file */
    CHECK_INT(wk_sim_set_performer(sim, "nobody"), ==, 0);
    wk_sim_step(sim, 1);
    CHECK(wk_sim_level_loaded(sim, "L2"));
    CHECK(present(sim, "M2"));
    wk_sim_free(sim);
}

static void unknown_ref_refused(void)
{
    wk_world_desc *d = NULL;
    wk_status st = {0};
    REQUIRE_INT(wk_desc_read(&(wk_read_desc){.resource_string =
                                                 "<sdf version='1.9'><world name='w'>"
                                                 "<plugin name='gz::sim' filename='x'><level name='L'>"
                                                 "<geometry><box><size>1 1 1</size></box></geometry>"
                                                 "<ref>ghost</ref></level></plugin></world></sdf>"},
                             &d, &st),
                ==, WK_OK);
    wk_sim *sim = NULL;
    CHECK_INT(wk_sim_new(d, &(wk_sim_desc){.levels = true}, &sim, &st), ==, WK_NOT_FOUND);
    CHECK(strstr(st.message, "level L holds 'ghost'") != NULL);
    CHECK(sim == NULL);
}

/* A grid of side x side levels, 10 m apart, of varied buffers, each holding
 * one model, and `movers` performers. Written into buf. */
static void grid_world(char *buf, size_t cap, int side, int movers)
{
    size_t n = (size_t)snprintf(buf, cap, "<sdf version='1.9'><world name='grid'>");
    for (int i = 0; i < side * side; i++)
        n += (size_t)snprintf(buf + n, cap - n, "<model name='m%d'><pose>%d %d 0 0 0 0</pose><link name='l'/></model>",
                              i, (i % side) * 10, (i / side) * 10);
    for (int k = 0; k < movers; k++)
        n += (size_t)snprintf(buf + n, cap - n, "<model name='p%d'><pose>%d %d 0 0 0 0</pose><link name='l'/></model>",
                              k, (k * 37) % (side * 10), (k * 53) % (side * 10));
    n += (size_t)snprintf(buf + n, cap - n, "<plugin name='gz::sim' filename='x'>");
    for (int k = 0; k < movers; k++)
        n += (size_t)snprintf(buf + n, cap - n,
                              "<performer name='q%d'><ref>p%d</ref><geometry><box><size>1 1 1</size></box>"
                              "</geometry></performer>",
                              k, k);
    for (int i = 0; i < side * side; i++)
        n += (size_t)snprintf(buf + n, cap - n,
                              "<level name='L%d'><pose>%d %d 0 0 0 0</pose><geometry><box><size>8 8 4</size></box>"
                              "</geometry><buffer>%d</buffer><ref>m%d</ref></level>",
                              i, (i % side) * 10, (i / side) * 10, i % 4, i);
    snprintf(buf + n, cap - n, "</plugin></world></sdf>");
}

static wk_sim *grid_sim(const char *text, bool naive)
{
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_sim *sim = NULL;
    if (wk_desc_read(&(wk_read_desc){.resource_string = text}, &d, &st) ||
        wk_sim_new(d, &(wk_sim_desc){.levels = true, .naive_levels = naive}, &sim, &st))
        fprintf(stderr, "    %s\n", st.message);
    return sim;
}

static void index_agrees_with_all_pairs(void)
{
    enum { SIDE = 20, MOVERS = 12 };
    static char text[400000];
    grid_world(text, sizeof text, SIDE, MOVERS);
    wk_sim *fast = grid_sim(text, false), *slow = grid_sim(text, true);
    REQUIRE(fast && slow);
    for (int k = 0; k < MOVERS; k++) {
        char name[8];
        snprintf(name, sizeof name, "p%d", k);
        wk_velocity v = {.linear = {((k * 7) % 11) - 5.0, ((k * 5) % 9) - 4.0, 0}};
        for (int which = 0; which < 2; which++) {
            wk_sim *sim = which ? slow : fast;
            wk_ecm_set(wk_scene_ecm(wk_sim_scene(sim)), wk_scene_child(wk_sim_scene(sim), wk_sim_world(sim), name),
                       wk_sim_velocity_type(sim), &v);
        }
    }
    int differences = 0, loaded = 0;
    for (int round = 0; round < 20; round++) {
        wk_sim_step(fast, 250);
        wk_sim_step(slow, 250);
        for (int i = 0; i < SIDE * SIDE; i++) {
            char level[8];
            snprintf(level, sizeof level, "L%d", i);
            differences += wk_sim_level_loaded(fast, level) != wk_sim_level_loaded(slow, level);
            loaded += wk_sim_level_loaded(fast, level);
        }
    }
    CHECK_INT(differences, ==, 0);
    CHECK_INT(loaded, >, 20 * MOVERS); /* the walk really loads levels */
    CHECK_INT(wk_ecm_count(wk_scene_ecm(wk_sim_scene(fast))), ==, wk_ecm_count(wk_scene_ecm(wk_sim_scene(slow))));
    wk_sim_free(fast);
    wk_sim_free(slow);
}

static const wk_test_case cases[] = {
    {"index_agrees_with_all_pairs", index_agrees_with_all_pairs},
    {"tutorial_narrative", tutorial_narrative},
    {"all_performers", all_performers},
    {"without_levels_everything_loads", without_levels_everything_loads},
    {"tunnel", tunnel},
    {"runtime_performer", runtime_performer},
    {"unknown_ref_refused", unknown_ref_refused},
};
WK_TEST_MAIN(cases)
