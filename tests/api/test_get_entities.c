/* test_get_entities.c — GetEntities and GetEntitiesStates with
 * EntityFilters: no filter (every model, in order), POSIX extended regular
 * expressions (matching anywhere, anchored with ^ and $, a bad one refused),
 * categories (defaults and set ones), tags in ANY and ALL modes, bounds of
 * TYPE_BOX, TYPE_SPHERE and TYPE_CONVEX_HULL (touching counts, a plane meets
 * everything), bad bounds, and states in the world frame. */
#include <math.h>
#include <string.h>

#include "api/api_call.h"
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
    {"categories_and_tags", categories_and_tags},
    {"bounds_filters", bounds_filters},
    {"states", states},
};
WK_TEST_MAIN(cases)
