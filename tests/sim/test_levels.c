/* test_levels.c — levels and performers as the levels tutorial (seed 003)
 * tells it: its four stages with R1 as the only performer, the same world
 * with all three performers, a tunnel driven through by two vehicles, and
 * performers added at run time; a failed level load after a reset undone
 * whole. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ecs/ecm_internal.h" /* wk__txn_fail_countdown */
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
    REQUIRE_INT(wk_sim_performer_count(sim), ==, 2);
    wk_vec3 size;
    CHECK_STR(wk_sim_performer(sim, 0, &size), "R1");
    CHECK(size.x == 2 && size.y == 2 && size.z == 2);
    CHECK_STR(wk_sim_performer(sim, 1, &size), "R3");
    CHECK(size.x == 1 && size.y == 1 && size.z == 1);
    CHECK(wk_sim_performer(sim, 2, NULL) == NULL);
    wk_sim_step(sim, 1);
    CHECK(wk_sim_level_loaded(sim, "L2"));
    CHECK(present(sim, "M2"));
    wk_sim_free(sim);
}

/* What a client lists of the levels, and where an absent entity went. */
static void level_info_and_unloaded_entities(void)
{
    wk_sim *sim = start("levels_one_performer.sdf", true);
    REQUIRE(sim);
    wk_level_info l;
    REQUIRE(wk_sim_level_info(sim, 1, &l));
    CHECK_STR(l.name, "L2");
    CHECK(l.center.x == 5 && l.center.y == 5 && l.center.z == 5);
    CHECK(l.size.x == 10 && l.buffer == 2 && !l.loaded);
    REQUIRE_INT(l.entity_count, ==, 2);
    CHECK_STR(l.entities[0], "M2");
    CHECK_STR(l.entities[1], "M3");
    CHECK(wk_sim_level_info(sim, 0, &l) && l.loaded);
    CHECK(!wk_sim_level_info(sim, 3, &l));
    /* M2 is L2's alone; M3 is L1's too, which is loaded; M6 and R1 are
     * global; a scoped name is its model's. */
    CHECK_STR(wk_sim_unloaded_level_of(sim, "M2"), "L2");
    CHECK_STR(wk_sim_unloaded_level_of(sim, "M2::body"), "L2");
    CHECK(wk_sim_unloaded_level_of(sim, "M3") == NULL);
    CHECK(wk_sim_unloaded_level_of(sim, "M6") == NULL);
    CHECK(wk_sim_unloaded_level_of(sim, "M") == NULL);
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

/* ---- the index against the all-pairs check, move by move ----------------
 *
 * The index remembers, per performer, where its box may go without touching
 * other zones, and skips the search while it stays there. These tests put
 * performers exactly where that memory could go wrong (a box edge exactly
 * on a zone edge, one ulp either side, far outside every cell and back,
 * zones spanning many cells) and require the same loads and unloads, in the
 * same order, as the check of every performer against every level. */

typedef struct level_spec {
    double x, y, z, sx, sy, sz, buffer;
} level_spec;

typedef struct performer_spec {
    double x, y, z, sx, sy, sz;
} performer_spec;

/* The zone levels.c makes of a level: its box inflated by its buffer. */
static wk_aabb zone_of(const level_spec *l)
{
    return wk_aabb_inflate(wk_aabb_from_center((wk_vec3){l->x, l->y, l->z}, (wk_vec3){l->sx, l->sy, l->sz}),
                           l->buffer);
}

/* A world of the levels (level i holding model m<i>, even ones also the
 * next level's model) and performers p<k>, written into buf. */
static void spec_world(char *buf, size_t cap, const level_spec *levels, int level_count,
                       const performer_spec *performers, int performer_count)
{
    size_t n = (size_t)snprintf(buf, cap, "<sdf version='1.9'><world name='specs'>");
    for (int i = 0; i < level_count; i++)
        n += (size_t)snprintf(buf + n, cap - n, "<model name='m%d'><pose>%g %g 0 0 0 0</pose><link name='l'/></model>",
                              i, levels[i].x, levels[i].y);
    for (int k = 0; k < performer_count; k++)
        n += (size_t)snprintf(buf + n, cap - n, "<model name='p%d'><pose>%.17g %.17g %.17g 0 0 0</pose>"
                                                "<link name='l'/></model>",
                              k, performers[k].x, performers[k].y, performers[k].z);
    n += (size_t)snprintf(buf + n, cap - n, "<plugin name='gz::sim' filename='x'>");
    for (int k = 0; k < performer_count; k++)
        n += (size_t)snprintf(buf + n, cap - n,
                              "<performer name='q%d'><ref>p%d</ref><geometry><box><size>%g %g %g</size></box>"
                              "</geometry></performer>",
                              k, k, performers[k].sx, performers[k].sy, performers[k].sz);
    for (int i = 0; i < level_count; i++) {
        const level_spec *l = &levels[i];
        n += (size_t)snprintf(buf + n, cap - n,
                              "<level name='L%d'><pose>%g %g %g 0 0 0</pose><geometry><box><size>%g %g %g</size>"
                              "</box></geometry><buffer>%g</buffer><ref>m%d</ref>",
                              i, l->x, l->y, l->z, l->sx, l->sy, l->sz, l->buffer, i);
        if (i % 2 == 0 && i + 1 < level_count)
            n += (size_t)snprintf(buf + n, cap - n, "<ref>m%d</ref>", i + 1);
        n += (size_t)snprintf(buf + n, cap - n, "</level>");
    }
    snprintf(buf + n, cap - n, "</plugin></world></sdf>");
}

/* One world run twice, through the index and all pairs, with the level
 * events of the current step written down for each (room for every level
 * of the test worlds, and short enough for CHECK_STR to print). */
#define EVENTS_CAP 400

typedef struct twin {
    wk_sim *sim[2]; /* indexed, all pairs */
    char events[2][EVENTS_CAP];
    int level_count;
} twin;

static void note_event(wk_sim *sim, const char *level, bool loaded, void *ctx)
{
    char *text = ctx;
    size_t n = strlen(text);
    (void)sim;
    snprintf(text + n, EVENTS_CAP - n, "%s%s %s", n ? ", " : "", loaded ? "load" : "unload", level);
}

static bool twin_start(twin *t, const char *text, int level_count)
{
    *t = (twin){.level_count = level_count};
    for (int which = 0; which < 2; which++) {
        t->sim[which] = grid_sim(text, which == 1);
        if (!t->sim[which])
            return false;
        wk_sim_on_level_event(t->sim[which], note_event, t->events[which]);
    }
    return true;
}

static void twin_free(twin *t)
{
    wk_sim_free(t->sim[0]);
    wk_sim_free(t->sim[1]);
}

/* Puts the named top-level entity at p in both, when it is there. */
static void twin_place(twin *t, const char *name, wk_vec3 p)
{
    for (int which = 0; which < 2; which++) {
        wk_scene *s = wk_sim_scene(t->sim[which]);
        wk_entity e = wk_scene_child(s, wk_sim_world(t->sim[which]), name);
        if (e)
            wk_ecm_set(wk_scene_ecm(s), e, wk_scene_types_of(s)->parent_pose, &(wk_pose){p, wk_quat_identity()});
    }
}

/* Steps both once; true when they loaded and unloaded the same levels in
 * the same order and agree on every level and entity. */
static bool twin_step(twin *t)
{
    t->events[0][0] = t->events[1][0] = '\0';
    wk_sim_step(t->sim[0], 1);
    wk_sim_step(t->sim[1], 1);
    bool same = strcmp(t->events[0], t->events[1]) == 0;
    if (!CHECK(same))
        fprintf(stderr, "    indexed: %s\n    all pairs: %s\n", t->events[0], t->events[1]);
    for (int i = 0; i < t->level_count; i++) {
        char level[16];
        snprintf(level, sizeof level, "L%d", i);
        if (wk_sim_level_loaded(t->sim[0], level) != wk_sim_level_loaded(t->sim[1], level)) {
            CHECK(!"the index and all pairs disagree on a level");
            fprintf(stderr, "    %s\n", level);
            same = false;
        }
    }
    return CHECK_INT(wk_ecm_count(wk_scene_ecm(wk_sim_scene(t->sim[0]))), ==,
                     wk_ecm_count(wk_scene_ecm(wk_sim_scene(t->sim[1])))) &&
           same;
}

/* Places the performer, steps, and returns the events of the step. */
static const char *move_to(twin *t, const char *name, double x, double y, double z)
{
    twin_place(t, name, (wk_vec3){x, y, z});
    twin_step(t);
    return t->events[0];
}

static void box_edge_on_zone_edge(void)
{
    /* L0's zone is [-5, 5] x [-5, 5] x [-3, 3]; p0's box is 2 m wide. */
    static const level_spec levels[] = {{0, 0, 0, 8, 8, 4, 1}, {20, 0, 0, 8, 8, 4, 1}};
    static const performer_spec performers[] = {{0, 0, 0, 2, 2, 2}};
    static char text[8192];
    spec_world(text, sizeof text, levels, 2, performers, 1);
    twin t;
    REQUIRE(twin_start(&t, text, 2));
    CHECK(wk_sim_level_loaded(t.sim[0], "L0"));
    /* The box's min exactly on the zone's max still touches it... */
    CHECK_STR(move_to(&t, "p0", 5.5, 0, 0), "");
    CHECK_STR(move_to(&t, "p0", 6, 0, 0), "");
    /* ...one ulp further does not, and back onto the edge does again. */
    CHECK_STR(move_to(&t, "p0", nextafter(6, 7), 0, 0), "unload L0");
    CHECK_STR(move_to(&t, "p0", 6, 0, 0), "load L0");
    /* The same along y from the other side, and along z from above. */
    CHECK_STR(move_to(&t, "p0", 0, -6, 0), "");
    CHECK_STR(move_to(&t, "p0", 0, nextafter(-6, -7), 0), "unload L0");
    CHECK_STR(move_to(&t, "p0", 0, 0, 4), "load L0");
    CHECK_STR(move_to(&t, "p0", 0, 0, nextafter(4, 5)), "unload L0");
    /* Between the zones, each box edge on one zone's edge: both load. */
    CHECK_STR(move_to(&t, "p0", 10, 0, 0), "");
    CHECK_STR(move_to(&t, "p0", 6, 0, 0), "load L0");
    CHECK_STR(move_to(&t, "p0", 14, 0, 0), "load L1, unload L0");
    twin_free(&t);
}

static void teleported_far(void)
{
    static const level_spec levels[] = {{0, 0, 0, 8, 8, 4, 1}, {10, 0, 0, 8, 8, 4, 1}, {500, 500, 0, 8, 8, 4, 1}};
    static const performer_spec performers[] = {{0, 0, 0, 2, 2, 2}};
    static char text[8192];
    spec_world(text, sizeof text, levels, 3, performers, 1);
    twin t;
    REQUIRE(twin_start(&t, text, 3));
    /* Out of every cell of the grid, and back, and from level to level. */
    CHECK_STR(move_to(&t, "p0", 1e9, -1e9, 0), "unload L0");
    CHECK_STR(move_to(&t, "p0", 1e9, -1e9, 1), "");
    CHECK_STR(move_to(&t, "p0", 0, 0, 0), "load L0");
    CHECK_STR(move_to(&t, "p0", 500, 500, 0), "load L2, unload L0");
    CHECK_STR(move_to(&t, "p0", 5, 0, 0), "load L0, load L1, unload L2");
    CHECK_STR(move_to(&t, "p0", -INFINITY, 0, 0), "unload L0, unload L1");
    CHECK_STR(move_to(&t, "p0", 10, 0, 0), "load L1");
    CHECK_STR(move_to(&t, "p0", NAN, 0, 0), "unload L1");
    CHECK_STR(move_to(&t, "p0", 10, 0, 0), "load L1");
    twin_free(&t);
}

static void buffers_spanning_many_cells(void)
{
    /* Small levels set the grid's cells; L4's buffer spans dozens of them
     * and L5's more than the grid keeps in cells. */
    static const level_spec levels[] = {{0, 0, 0, 4, 4, 4, 0},   {10, 0, 0, 4, 4, 4, 0},  {0, 10, 0, 4, 4, 4, 0},
                                        {10, 10, 0, 4, 4, 4, 0}, {40, 40, 0, 4, 4, 4, 15}, {-40, 40, 0, 2, 2, 2, 45}};
    static const performer_spec performers[] = {{100, 100, 0, 1, 1, 1}};
    static char text[8192];
    spec_world(text, sizeof text, levels, 6, performers, 1);
    twin t;
    REQUIRE(twin_start(&t, text, 6));
    CHECK_STR(move_to(&t, "p0", 57.5, 40, 0), "load L4");  /* box edge on the buffer's */
    CHECK_STR(move_to(&t, "p0", 40, 22.5, 0), "");          /* across the buffer in one step */
    CHECK_STR(move_to(&t, "p0", 25, 40, 0), "");
    CHECK_STR(move_to(&t, "p0", 5, 30, 0), "load L5, unload L4");
    CHECK_STR(move_to(&t, "p0", 6.5, 30, 0), ""); /* L5's zone ends at x = 6 */
    CHECK_STR(move_to(&t, "p0", 10, 10, 0), "load L3, unload L5");
    CHECK_STR(move_to(&t, "p0", 10, 10, 60), "unload L3");
    twin_free(&t);
}

/* A small deterministic generator (xorshift64*). */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static double uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(next_random(s) >> 11) / 9007199254740992.0;
}

static double *axis_of(wk_vec3 *v, int a)
{
    return a == 0 ? &v->x : a == 1 ? &v->y : &v->z;
}

static void random_walks_agree(void)
{
    enum { GRID = 5, LEVELS = GRID * GRID + 5, PERFORMERS = 4, STEPS = 3000 };
    level_spec levels[LEVELS];
    static const double buffers[] = {0, 1, 0.5, 3};
    for (int i = 0; i < GRID * GRID; i++)
        levels[i] = (level_spec){(i % GRID) * 10.0, (i / GRID) * 10.0, 0, 8, 8, 4, buffers[i % 4]};
    levels[GRID * GRID + 0] = (level_spec){20, 20, 0, 8, 8, 4, 12};    /* several cells */
    levels[GRID * GRID + 1] = (level_spec){0, 40, 0, 4, 4, 4, 60};     /* beyond the grid's cells */
    levels[GRID * GRID + 2] = (level_spec){25, 5, 6, 2, 2, 2, 0};      /* above the others */
    levels[GRID * GRID + 3] = (level_spec){15, 15, 0, 0, 0, 0, 0};     /* a point */
    levels[GRID * GRID + 4] = (level_spec){5, 5, 0, 10, 10, 10, 0.25}; /* overlapping four */
    performer_spec performers[PERFORMERS] = {
        {0, 0, 0, 2, 2, 2}, {20, 20, 0, 1, 1, 1}, {35, 5, 0, 0.5, 3, 1}, {15, 15, 0, 0, 0, 0}};
    static char text[32768];
    spec_world(text, sizeof text, levels, LEVELS, performers, PERFORMERS);
    twin t;
    REQUIRE(twin_start(&t, text, LEVELS));
    wk_vec3 at[PERFORMERS];
    for (int k = 0; k < PERFORMERS; k++)
        at[k] = (wk_vec3){performers[k].x, performers[k].y, performers[k].z};
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    int steps_agreeing = 0, events = 0;
    for (int step = 0; step < STEPS; step++) {
        /* Every other stretch, the world entity itself turned and moved:
         * the performers' world poses go through a rotation. */
        if (step % 500 == 0) {
            wk_pose world = step % 1000 ? (wk_pose){{1.5, -2, 0.25}, wk_quat_from_rpy(0, 0.1, 0.3)} : wk_pose_identity();
            for (int which = 0; which < 2; which++) {
                wk_scene *s = wk_sim_scene(t.sim[which]);
                wk_ecm_set(wk_scene_ecm(s), wk_sim_world(t.sim[which]), wk_scene_types_of(s)->parent_pose, &world);
            }
        }
        for (int k = 0; k < PERFORMERS; k++) {
            double half[3] = {performers[k].sx * 0.5, performers[k].sy * 0.5, performers[k].sz * 0.5};
            uint64_t r = next_random(&seed) % 100;
            if (r < 50) { /* a small move */
                for (int a = 0; a < 3; a++)
                    *axis_of(&at[k], a) += uniform(&seed, -0.3, 0.3) * (a == 2 ? 0.3 : 1);
            } else if (r < 75) { /* a box edge onto a zone edge, or an ulp off it */
                const level_spec *l = &levels[next_random(&seed) % LEVELS];
                wk_aabb z = zone_of(l);
                if (next_random(&seed) % 2)
                    at[k] = (wk_vec3){l->x, l->y, l->z};
                int a = (int)(next_random(&seed) % 3);
                double *c = axis_of(&at[k], a);
                *c = next_random(&seed) % 2 ? *axis_of(&z.max, a) + half[a] : *axis_of(&z.min, a) - half[a];
                uint64_t off = next_random(&seed) % 3;
                if (off)
                    *c = nextafter(*c, off == 1 ? INFINITY : -INFINITY);
            } else if (r < 80) { /* far away */
                at[k] = (wk_vec3){uniform(&seed, -1e7, 1e7), uniform(&seed, -1e7, 1e7), 0};
            } else if (r < 90) { /* anywhere near */
                at[k] = (wk_vec3){uniform(&seed, -20, 70), uniform(&seed, -20, 70), uniform(&seed, -4, 8)};
            }
            char name[8];
            snprintf(name, sizeof name, "p%d", k);
            twin_place(&t, name, at[k]);
        }
        steps_agreeing += twin_step(&t);
        events += t.events[0][0] != '\0';
    }
    CHECK_INT(steps_agreeing, ==, STEPS);
    CHECK_INT(events, >, STEPS / 4); /* the walks really load and unload */
    twin_free(&t);
}

static void performer_held_by_level(void)
{
    /* p1 belongs to L0, where p0 starts; p1 stands in L1. When p0 leaves
     * L0, p1 goes with it, and so does L1. */
    static const level_spec levels[] = {{0, 0, 0, 8, 8, 4, 1}, {30, 0, 0, 8, 8, 4, 1}};
    static const performer_spec performers[] = {{0, 0, 0, 2, 2, 2}, {30, 0, 0, 2, 2, 2}};
    static char text[8192];
    spec_world(text, sizeof text, levels, 2, performers, 2);
    /* Make L0 hold p1 as well. */
    char *ref = strstr(text, "<ref>m0</ref>");
    REQUIRE(ref);
    static char edited[8192];
    snprintf(edited, sizeof edited, "%.*s<ref>p1</ref>%s", (int)(ref - text), text, ref);
    /* p1 is no longer global: the world starts without it, then p0's L0
     * brings it, and the next step L1. */
    twin t;
    REQUIRE(twin_start(&t, edited, 2));
    CHECK(wk_sim_level_loaded(t.sim[0], "L0") && !wk_sim_level_loaded(t.sim[0], "L1"));
    CHECK_STR(move_to(&t, "p0", 0.5, 0, 0), "load L1");
    CHECK_STR(move_to(&t, "p0", 15, 0, 0), "unload L0");
    CHECK_STR(move_to(&t, "p0", 15, 0, 0), "unload L1");
    CHECK_STR(move_to(&t, "p0", 0, 0, 0), "load L0");
    CHECK_STR(move_to(&t, "p0", 0, 0, 0), "load L1");
    twin_free(&t);
}

static void reset_loads_levels_again(void)
{
    twin t = {.level_count = 3};
    for (int which = 0; which < 2; which++) {
        char path[512];
        snprintf(path, sizeof path, "%s/levels_one_performer.sdf", WK_TEST_WORLDS);
        wk_world_desc *d = NULL;
        wk_status st = {0};
        REQUIRE_INT(wk_desc_read(&(wk_read_desc){.uri = path}, &d, &st), ==, WK_OK);
        REQUIRE_INT(wk_sim_new(d, &(wk_sim_desc){.levels = true, .naive_levels = which == 1}, &t.sim[which], &st), ==,
                    WK_OK);
        wk_sim_on_level_event(t.sim[which], note_event, t.events[which]);
    }
    /* A reset before anything moved rebuilds the world where it was: L1
     * loads again though no performer's box moved. */
    for (int which = 0; which < 2; which++) {
        wk_status st = {0};
        CHECK_INT(wk_sim_reset(t.sim[which], WK_RESET_ALL, &st), ==, WK_OK);
        CHECK_STR(t.events[which], "load L1");
        CHECK_STR(loaded_models(t.sim[which]), "M1 M3 M6");
    }
    CHECK(twin_step(&t));
    CHECK_STR(t.events[0], "");
    /* R1 leaves L1 for L3; a reset puts it back in L1, which loads again
     * with M1, and L3 does not. */
    CHECK_STR(move_to(&t, "R1", -5, -6, 0), "load L3, unload L1");
    for (int which = 0; which < 2; which++) {
        wk_status st = {0};
        t.events[which][0] = '\0';
        CHECK_INT(wk_sim_reset(t.sim[which], WK_RESET_ALL, &st), ==, WK_OK);
        CHECK_STR(t.events[which], "load L1");
        CHECK(wk_sim_level_loaded(t.sim[which], "L1") && !wk_sim_level_loaded(t.sim[which], "L3"));
        CHECK_STR(loaded_models(t.sim[which]), "M1 M3 M6");
    }
    CHECK(twin_step(&t));
    CHECK_STR(t.events[0], "");
    twin_free(&t);
}

/* A restorer (wk_sim_desc.restore) that puts the world "back" with R1 in
 * L3, away from L1, so that the levels must change after it; it keeps the
 * world's state as it left it. */
static int restore_r1_in_l3(wk_sim *sim, void *ctx, wk_status *st)
{
    wk_entity r1 = wk_scene_child(wk_sim_scene(sim), wk_sim_world(sim), "R1");
    wk_motion m = {.pose = {{-5, -6, 0}, wk_quat_identity()}};
    wk_buf *restored = ctx;
    restored->len = 0;
    if (wk_sim_set_motion(sim, r1, &m, WK_MOTION_POSE) ||
        wk_ecm_state(wk_scene_ecm(wk_sim_scene(sim)), &(wk_state_desc){0}, restored))
        return wk_fail(st, WK_NOMEM, "restoring R1 in L3");
    return WK_OK;
}

/* A whole reset whose levels, loaded in the step right after the restore,
 * fail at their first, second, ... change until they load: each failure
 * leaves the world exactly as the restorer left it (no level half
 * loaded), and the next step loads them. */
static void levels_failing_after_a_restore_are_undone(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/levels_one_performer.sdf", WK_TEST_WORLDS);
    wk_world_desc *d = NULL;
    wk_status st = {0};
    wk_buf restored = {0}, now = {0};
    wk_sim *sim = NULL;
    REQUIRE_INT(wk_desc_read(&(wk_read_desc){.uri = path}, &d, &st), ==, WK_OK);
    REQUIRE_INT(wk_sim_new(d, &(wk_sim_desc){.levels = true, .restore = restore_r1_in_l3, .restore_ctx = &restored},
                           &sim, &st),
                ==, WK_OK);
    wk_ecm *ecm = wk_scene_ecm(wk_sim_scene(sim));
    wk_entity r1 = wk_scene_child(wk_sim_scene(sim), wk_sim_world(sim), "R1");
    size_t failures = 0;
    int rc = WK_NOMEM;
    for (size_t fail_at = 1; fail_at < 1000 && rc; fail_at++) {
        /* R1 back in L1, which is loaded and L3 not. */
        wk_motion home = {.pose = {{-5, 5, 0}, wk_quat_identity()}};
        REQUIRE_INT(wk_sim_set_motion(sim, r1, &home, WK_MOTION_POSE), ==, WK_OK);
        REQUIRE_INT(wk_sim_step(sim, 1), ==, WK_OK);
        CHECK_STR(loaded_models(sim), "M1 M3 M6");
        wk__txn_fail_countdown = fail_at;
        rc = wk_sim_reset(sim, WK_RESET_ALL, &st);
        wk__txn_fail_countdown = 0;
        if (rc == WK_OK)
            break;
        failures++;
        CHECK_INT(rc, ==, WK_NOMEM);
        CHECK(strstr(st.message, "the world is as it began") != NULL);
        now.len = 0;
        REQUIRE_INT(wk_ecm_state(ecm, &(wk_state_desc){0}, &now), ==, WK_OK);
        if (!CHECK(now.len == restored.len && memcmp(now.data, restored.data, now.len) == 0))
            fprintf(stderr, "    failing at change %zu: %s\n", fail_at, st.message);
        CHECK(wk_sim_level_loaded(sim, "L1") && !wk_sim_level_loaded(sim, "L3"));
        /* The next step loads what R1 is in. */
        CHECK_INT(wk_sim_step(sim, 1), ==, WK_OK);
        CHECK_STR(loaded_models(sim), "M3 M4 M5 M6");
    }
    CHECK_INT(rc, ==, WK_OK);
    CHECK(failures > 0);
    CHECK_STR(loaded_models(sim), "M3 M4 M5 M6");
    CHECK(wk_sim_level_loaded(sim, "L3") && !wk_sim_level_loaded(sim, "L1"));
    wk_buf_free(&restored);
    wk_buf_free(&now);
    wk_sim_free(sim);
}

static const wk_test_case cases[] = {
    {"index_agrees_with_all_pairs", index_agrees_with_all_pairs},
    {"tutorial_narrative", tutorial_narrative},
    {"all_performers", all_performers},
    {"without_levels_everything_loads", without_levels_everything_loads},
    {"tunnel", tunnel},
    {"runtime_performer", runtime_performer},
    {"level_info_and_unloaded_entities", level_info_and_unloaded_entities},
    {"unknown_ref_refused", unknown_ref_refused},
    {"box_edge_on_zone_edge", box_edge_on_zone_edge},
    {"teleported_far", teleported_far},
    {"buffers_spanning_many_cells", buffers_spanning_many_cells},
    {"random_walks_agree", random_walks_agree},
    {"performer_held_by_level", performer_held_by_level},
    {"reset_loads_levels_again", reset_loads_levels_again},
    {"levels_failing_after_a_restore_are_undone", levels_failing_after_a_restore_are_undone},
};
WK_TEST_MAIN(cases)
