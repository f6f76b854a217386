/* test_get_entities.c — GetEntities and GetEntitiesStates with
 * EntityFilters: no filter (every model, in order), POSIX extended regular
 * expressions (matching anywhere, anchored with ^ and $, classes, intervals
 * and alternation; a bad one refused, and so are those that cost glibc's
 * regex gigabytes or minutes, quickly and in little memory),
 * categories (defaults and set ones), tags in ANY and ALL modes, bounds of
 * TYPE_BOX, TYPE_SPHERE and TYPE_CONVEX_HULL (touching counts, a plane meets
 * everything), bad bounds, and states in the world frame. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/api_call.h"
#include "base/clock.h"
#include "base/name_regex.h"
#include "math/math_check.h"
#include "wk_test.h"

/* Unit cubes at x = 0, 3 and 6 (the last static), a ball of radius 0.5 at
 * (0, 5, 0), a ground plane at z = -10, and a world frame (not an entity). */
#define ROW_WORLD                                                                                          \
    "<sdf version='1.9'><world name='w'>"                                                                  \
    "<model name='crate_a'><link name='l'><collision name='c'><geometry><box><size>1 1 1</size></box>"     \
    "</geometry></collision></link></model>"                                                               \
    "<model name='crate_b'><pose>3 0 0 0 0 0</pose><link name='l'><collision name='c'><geometry><box>"     \
    "<size>1 1 1</size></box></geometry></collision></link></model>"                                       \
    "<model name='shelf'><static>true</static><pose>6 0 0 0 0 0</pose><link name='l'><collision name='c'>" \
    "<geometry><box><size>1 1 1</size></box></geometry></collision></link></model>"                        \
    "<model name='ball'><pose>0 5 0 0 0 0</pose><link name='l'><collision name='c'><geometry><sphere>"     \
    "<radius>0.5</radius></sphere></geometry></collision></link></model>"                                  \
    "<model name='floor'><static>true</static><pose>0 0 -10 0 0 0</pose><link name='l'>"                   \
    "<collision name='c'><geometry><plane><normal>0 0 1</normal></plane></geometry></collision></link>"    \
    "</model><frame name='dock'><pose>1 1 0 0 0 0</pose></frame></world></sdf>"

/* A request's filters with room for what they point to. */
typedef struct filters {
    SimulationInterfaces__EntityFilters f;
    SimulationInterfaces__TagsFilter tags;
    SimulationInterfaces__Bounds bounds;
    SimulationInterfaces__Vector3 v[8], *pv[8];
    SimulationInterfaces__EntityCategory c[4], *pc[4];
} filters;

static void filters_init(filters *x)
{
    simulation_interfaces__entity_filters__init(&x->f);
    simulation_interfaces__tags_filter__init(&x->tags);
    simulation_interfaces__bounds__init(&x->bounds);
    for (int i = 0; i < 8; i++) {
        vec3_set(&x->v[i], (wk_vec3){0, 0, 0});
        x->pv[i] = &x->v[i];
    }
    for (int i = 0; i < 4; i++) {
        simulation_interfaces__entity_category__init(&x->c[i]);
        x->c[i].has_category = true;
        x->pc[i] = &x->c[i];
    }
}

static void set_bounds(filters *x, uint32_t type, const wk_vec3 *points, size_t n)
{
    x->bounds.has_type = true;
    x->bounds.type = type;
    for (size_t i = 0; i < n; i++)
        vec3_set(&x->v[i], points[i]);
    x->bounds.n_points = n;
    x->bounds.points = x->pv;
    x->f.bounds = &x->bounds;
}

/* GetEntities: its code and message, the names joined by spaces in got. */
static uint32_t get_entities(wk_api *api, const filters *x, char *got, char *msg)
{
    SimulationInterfaces__GetEntitiesRequest req = SIMULATION_INTERFACES__GET_ENTITIES_REQUEST__INIT;
    req.filters = x ? (SimulationInterfaces__EntityFilters *)&x->f : NULL;
    SimulationInterfaces__GetEntitiesResponse *resp = (SimulationInterfaces__GetEntitiesResponse *)call_service(
        api, "GetEntities", &req.base, &simulation_interfaces__get_entities_response__descriptor);
    got[0] = '\0';
    for (size_t i = 0; resp && i < resp->n_entities; i++)
        snprintf(got + strlen(got), 256 - strlen(got), "%s%s", i ? " " : "", resp->entities[i]);
    return result_code(resp, resp ? resp->result : NULL, msg);
}

static void expect(wk_api *api, const filters *x, const char *want)
{
    char got[256], msg[256];
    CHECK_INT(get_entities(api, x, got, msg), ==, WK_RESULT_OK);
    if (!CHECK_STR(got, want))
        fprintf(stderr, "    %s\n", msg);
}

static void names_and_regex(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, ROW_WORLD), ==, WK_RESULT_OK);
    expect(api, NULL, "crate_a crate_b shelf ball floor");
    filters x;
    filters_init(&x);
    expect(api, &x, "crate_a crate_b shelf ball floor");
    x.f.filter = "crate";
    expect(api, &x, "crate_a crate_b");
    x.f.filter = "^(shelf|ball)$";
    expect(api, &x, "shelf ball");
    x.f.filter = "l$";
    expect(api, &x, "ball");
    x.f.filter = "e_[ab]+";
    expect(api, &x, "crate_a crate_b");
    x.f.filter = "(unclosed";
    char got[256], msg[256];
    CHECK_INT(get_entities(api, &x, got, msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(msg, "'(unclosed'") && strstr(msg, "POSIX extended"));
    wk_api_free(api);
}

/* Names that tell POSIX classes, intervals and alternation apart. */
#define NAMES_WORLD                                                                                     \
    "<sdf version='1.9'><world name='w'><model name='box_1'><link name='l'/></model>"                 \
    "<model name='box_22'><link name='l'/></model><model name='box_x'><link name='l'/></model>"       \
    "<model name='Box_3'><link name='l'/></model><model name='crate9'><link name='l'/></model>" \
    "</world></sdf>"

static void posix_syntax(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, NAMES_WORLD), ==, WK_RESULT_OK);
    filters x;
    filters_init(&x);
    x.f.filter = "^box_[0-9]+$";
    expect(api, &x, "box_1 box_22");
    x.f.filter = "^[[:alpha:]_]+$";
    expect(api, &x, "box_x");
    x.f.filter = "^box_[[:digit:]]{2}$";
    expect(api, &x, "box_22");
    x.f.filter = "^(box_x|crate9)$";
    expect(api, &x, "box_x crate9");
    x.f.filter = "x$|^B";
    expect(api, &x, "box_x Box_3");
    x.f.filter = "B.x";
    expect(api, &x, "Box_3");
    x.f.filter = "[.]";
    expect(api, &x, "");
    wk_api_free(api);
}

/* The most memory the process has held, in MB (VmHWM), or -1. */
static double peak_mb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1024;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lf kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb / 1024;
}

/* Filters that took glibc's regex 24 GB, 1.2 GB and 45 s of CPU, and others
 * past the bounds of base/name_regex.h: each refused within a second,
 * naming the filter and why, the process growing by less than 64 MB in all,
 * and the next filter served as before. */
static void hostile_filters(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, ROW_WORLD), ==, WK_RESULT_OK);
    char nested_groups[12 * 18 + 1] = "", long_filter[WK__NAME_REGEX_LEN_MAX + 2];
    for (int i = 0; i < 12; i++)
        strcat(nested_groups, "((.{10}){10}){10}");
    memset(long_filter, 'a', WK__NAME_REGEX_LEN_MAX + 1);
    long_filter[WK__NAME_REGEX_LEN_MAX + 1] = '\0';
    const struct {
        const char *filter, *why;
    } cases[] = {
        {"a{1,255}{1,255}{1,255}", "repetition {1,255} is too large"},
        {"(a{1,255}){1,255}{1,8}", "repetition {1,255} is too large"},
        {"^(.*)(.*)(.*)(.*)(.*)\\1\\2\\3\\4\\5b", "back-reference \\1 is not supported"},
        {"^a\\w", "not a POSIX extended regular expression (invalid escape sequence: \\w)"},
        {"a{1,600}b{1,600}", "counted repetitions add up to more than 1000"},
        {nested_groups, "too large: compiled, it would pass the budget of 1 MB"},
        {long_filter, "4097 bytes long, past the 4096 a filter may have"},
    };
    filters x;
    filters_init(&x);
    double before = peak_mb();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        x.f.filter = (char *)cases[i].filter;
        char got[256], msg[256], head[80];
        snprintf(head, sizeof head, "filter '%.64s%s': ", x.f.filter, strlen(x.f.filter) > 64 ? "..." : "");
        double t = wk__monotonic_s();
        CHECK_INT(get_entities(api, &x, got, msg), ==, WK_RESULT_OPERATION_FAILED);
        CHECK_NEAR(wk__monotonic_s() - t, 0, 1);
        if (!CHECK(strstr(msg, head) == msg && strstr(msg, cases[i].why)))
            fprintf(stderr, "    filter %zu: %s\n", i, msg);
        CHECK_STR(got, "");
    }
    CHECK_NEAR(peak_mb() - before, 0, 64);
    x.f.filter = "^crate_";
    expect(api, &x, "crate_a crate_b");
    wk_api_free(api);
}

static uint32_t set_info(wk_api *api, const char *name, uint32_t category, char **tags, size_t n)
{
    SimulationInterfaces__EntityCategory c = SIMULATION_INTERFACES__ENTITY_CATEGORY__INIT;
    c.has_category = true;
    c.category = category;
    SimulationInterfaces__EntityInfo info = SIMULATION_INTERFACES__ENTITY_INFO__INIT;
    info.category = &c;
    info.tags = tags;
    info.n_tags = n;
    SimulationInterfaces__SetEntityInfoRequest req = SIMULATION_INTERFACES__SET_ENTITY_INFO_REQUEST__INIT;
    req.entity = (char *)name;
    req.info = &info;
    return call_code(api, "SetEntityInfo", &req.base, NULL);
}

static void categories_and_tags(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, ROW_WORLD), ==, WK_RESULT_OK);
    filters x;
    filters_init(&x);
    /* Defaults: static models are STATIC_OBJECT (5), the others OBJECT (0). */
    x.c[0].category = 5;
    x.f.categories = x.pc;
    x.f.n_categories = 1;
    expect(api, &x, "shelf floor");
    char *red[] = {"red", "heavy"}, *blue[] = {"blue"};
    REQUIRE_INT(set_info(api, "crate_a", 1, red, 2), ==, WK_RESULT_OK);
    REQUIRE_INT(set_info(api, "ball", 2, blue, 1), ==, WK_RESULT_OK);
    x.c[0].category = 1;
    x.c[1].category = 2;
    x.f.n_categories = 2;
    expect(api, &x, "crate_a ball");
    x.f.n_categories = 0;
    char *want_any[] = {"heavy", "blue"}, *want_all[] = {"red", "heavy"}, *want_both[] = {"red", "blue"};
    x.tags.tags = want_any;
    x.tags.n_tags = 2;
    x.f.tags = &x.tags;
    expect(api, &x, "crate_a ball");
    x.tags.has_filter_mode = true;
    x.tags.filter_mode = 1; /* ALL */
    x.tags.tags = want_all;
    expect(api, &x, "crate_a");
    x.tags.tags = want_both;
    expect(api, &x, "");
    x.tags.filter_mode = 2;
    char got[256], msg[256];
    CHECK_INT(get_entities(api, &x, got, msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(msg, "filter_mode 2") != NULL);
    /* All filters at once. */
    x.tags.filter_mode = 0;
    x.tags.tags = want_any;
    x.f.filter = "^c";
    expect(api, &x, "crate_a");
    wk_api_free(api);
}

static void bounds_filters(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, ROW_WORLD), ==, WK_RESULT_OK);
    filters x;
    filters_init(&x);
    /* A box around x in [2, 7]: the cubes at 3 and 6, and the floor (a plane
     * meets everything). Corners in either order. */
    set_bounds(&x, 1, (wk_vec3[]){{7, 1, 1}, {2, -1, -1}}, 2);
    expect(api, &x, "crate_b shelf floor");
    /* Touching the first cube's face at x = 0.5 counts; just past it not. */
    set_bounds(&x, 1, (wk_vec3[]){{0.5, -1, -1}, {-3, 1, 1}}, 2);
    expect(api, &x, "crate_a floor");
    set_bounds(&x, 1, (wk_vec3[]){{2, -1, -1}, {0.5001, 1, 1}}, 2);
    expect(api, &x, "floor");
    /* A sphere at (1.5, 0, 0) of radius 1.05 reaches the cube at 0 (face at
     * 0.5) but not the cube at 3 (face at 2.5); one of 1 touches both. */
    set_bounds(&x, 3, (wk_vec3[]){{1.5, 0, 0}, {0.9, 0, 0}}, 2);
    expect(api, &x, "floor");
    set_bounds(&x, 3, (wk_vec3[]){{1.5, 0, 0}, {1, 0, 0}}, 2);
    expect(api, &x, "crate_a crate_b floor");
    /* Round shapes meet as their hulls: a ball's is its bounding cube, so a
     * sphere off the cube's corner edge (0.566 from it, 0.773 from the ball)
     * misses at radius 0.5 and meets at 0.6, conservatively. */
    set_bounds(&x, 3, (wk_vec3[]){{0.9, 5.9, 0}, {0.5, 0, 0}}, 2);
    expect(api, &x, "floor");
    set_bounds(&x, 3, (wk_vec3[]){{0.9, 5.9, 0}, {0.6, 0, 0}}, 2);
    expect(api, &x, "ball floor");
    /* A tetrahedron whose tip pokes into the static shelf only. */
    set_bounds(&x, 2, (wk_vec3[]){{6, 0, 0.4}, {6, 0, 5}, {5, -1, 5}, {7, -1, 5}, {6, 2, 5}}, 5);
    expect(api, &x, "shelf floor");
    /* A flat triangle beside the cube at 3, in the plane x = 3.6. */
    set_bounds(&x, 2, (wk_vec3[]){{3.6, -5, -5}, {3.6, 5, -5}, {3.6, 0, 5}}, 3);
    expect(api, &x, "floor");
    set_bounds(&x, 2, (wk_vec3[]){{3.4, -5, -5}, {3.4, 5, -5}, {3.4, 0, 5}}, 3);
    expect(api, &x, "crate_b floor");
    /* TYPE_EMPTY: no filter, whatever the points. */
    set_bounds(&x, 0, (wk_vec3[]){{1, 1, 1}}, 1);
    expect(api, &x, "crate_a crate_b shelf ball floor");
    /* Refusals. */
    char got[256], msg[256];
    set_bounds(&x, 1, (wk_vec3[]){{1, 1, 1}}, 1);
    CHECK_INT(get_entities(api, &x, got, msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(msg, "TYPE_BOX take 2 points, not 1") != NULL);
    set_bounds(&x, 2, (wk_vec3[]){{1, 1, 1}, {2, 2, 2}}, 2);
    CHECK_INT(get_entities(api, &x, got, msg), ==, WK_RESULT_OPERATION_FAILED);
    set_bounds(&x, 3, (wk_vec3[]){{1, 1, 1}, {-1, 0, 0}}, 2);
    CHECK_INT(get_entities(api, &x, got, msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(msg, "negative") != NULL);
    set_bounds(&x, 1, (wk_vec3[]){{NAN, 1, 1}, {0, 0, 0}}, 2);
    CHECK_INT(get_entities(api, &x, got, msg), ==, WK_RESULT_OPERATION_FAILED);
    set_bounds(&x, 7, (wk_vec3[]){{1, 1, 1}, {0, 0, 0}}, 2);
    CHECK_INT(get_entities(api, &x, got, msg), ==, WK_RESULT_FEATURE_UNSUPPORTED);
    CHECK(strstr(msg, "bounds type 7") != NULL);
    wk_api_free(api);
}

static void states(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    REQUIRE_INT(load_string(api, ROW_WORLD), ==, WK_RESULT_OK);
    filters x;
    filters_init(&x);
    x.f.filter = "^(crate_b|ball)$";
    SimulationInterfaces__GetEntitiesStatesRequest req = SIMULATION_INTERFACES__GET_ENTITIES_STATES_REQUEST__INIT;
    req.filters = &x.f;
    SimulationInterfaces__GetEntitiesStatesResponse *resp =
        (SimulationInterfaces__GetEntitiesStatesResponse *)call_service(
            api, "GetEntitiesStates", &req.base, &simulation_interfaces__get_entities_states_response__descriptor);
    REQUIRE(resp && resp->result);
    CHECK_INT(resp->result->result, ==, WK_RESULT_OK);
    REQUIRE_INT(resp->n_entities, ==, 2);
    REQUIRE_INT(resp->n_states, ==, 2);
    CHECK_STR(resp->entities[0], "crate_b");
    CHECK_STR(resp->entities[1], "ball");
    REQUIRE(resp->states[1]->pose && resp->states[1]->pose->position && resp->states[1]->header);
    CHECK_NEAR(resp->states[0]->pose->position->x, 3, 0);
    CHECK_NEAR(resp->states[1]->pose->position->y, 5, 0);
    CHECK_STR(resp->states[1]->header->frame_id, "world");
    free_response(resp);
    /* A bad filter: its code, and nothing listed. */
    x.f.filter = "[";
    resp = (SimulationInterfaces__GetEntitiesStatesResponse *)call_service(
        api, "GetEntitiesStates", &req.base, &simulation_interfaces__get_entities_states_response__descriptor);
    REQUIRE(resp && resp->result);
    CHECK_INT(resp->result->result, ==, WK_RESULT_OPERATION_FAILED);
    CHECK_INT(resp->n_entities, ==, 0);
    free_response(resp);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"names_and_regex", names_and_regex},
    {"posix_syntax", posix_syntax},
    {"hostile_filters", hostile_filters},
    {"categories_and_tags", categories_and_tags},
    {"bounds_filters", bounds_filters},
    {"states", states},
};
WK_TEST_MAIN(cases)
