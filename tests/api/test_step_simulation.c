/* test_step_simulation.c — the StepSimulation service: steps only from
 * PAUSED (OPERATION_FAILED, naming the state, otherwise), exactly N steps of
 * the world's step size, still paused afterwards, and zero steps; more
 * than WK_STEP_SIMULATION_MAX_STEPS refused before any step. */
#include <string.h>

#include "api/api_call.h"
#include "wk_test.h"

/* A quit hook that lets the endpoint reach QUITTING and stay. */
static void stay(void *ctx)
{
    (void)ctx;
}

static void refused_unless_paused(void)
{
    wk_api *api = wk_api_new_desc(&(wk_api_desc){.quit = stay});
    REQUIRE(api);
    REQUIRE_INT(load_string(api, BOX_WORLD), ==, WK_RESULT_OK);
    const struct {
        uint32_t state;
        const char *needle;
    } cases[] = {
        {WK_SIM_STOPPED, "stopped"}, /* as the world starts */
        {WK_SIM_PLAYING, "playing"},
        {WK_SIM_QUITTING, "quitting"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char msg[256];
        if (cases[i].state != WK_SIM_STOPPED)
            REQUIRE_INT(set_state(api, cases[i].state, NULL), ==, WK_RESULT_OK);
        CHECK_INT(step_simulation(api, 3, msg), ==, WK_RESULT_OPERATION_FAILED);
        if (!CHECK(strstr(msg, cases[i].needle) != NULL))
            fprintf(stderr, "    %s\n", msg);
        CHECK_INT(wk_sim_iterations(wk_api_sim(api)), ==, 0);
    }
    wk_api_free(api);
}

static void steps_exactly_n(void)
{
    wk_api *api = paused_api(BOX_WORLD);
    REQUIRE(api);
    wk_sim *sim = wk_api_sim(api);
    CHECK_INT(step_simulation(api, 7, NULL), ==, WK_RESULT_OK);
    CHECK_INT(wk_sim_iterations(sim), ==, 7);
    CHECK_NEAR(wk_sim_time(sim), 7 * 0.01, 1e-15);
    CHECK_INT(get_state(api), ==, WK_SIM_PAUSED);
    CHECK_INT(step_simulation(api, 1, NULL), ==, WK_RESULT_OK);
    CHECK_INT(step_simulation(api, 0, NULL), ==, WK_RESULT_OK); /* nothing to do */
    CHECK_INT(wk_sim_iterations(sim), ==, 8);
    CHECK_NEAR(wk_sim_time(sim), 8 * 0.01, 1e-15);
    /* A request without steps is zero steps too. */
    SimulationInterfaces__StepSimulationRequest req = SIMULATION_INTERFACES__STEP_SIMULATION_REQUEST__INIT;
    CHECK_INT(call_code(api, "StepSimulation", &req.base, NULL), ==, WK_RESULT_OK);
    CHECK_INT(wk_sim_iterations(sim), ==, 8);
    wk_api_free(api);
}

static void too_many_steps_refused(void)
{
    wk_api *api = paused_api(BOX_WORLD);
    REQUIRE(api);
    char msg[256];
    uint64_t counts[] = {WK_STEP_SIMULATION_MAX_STEPS + 1ull, UINT64_MAX};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        CHECK_INT(step_simulation(api, counts[i], msg), ==, WK_RESULT_OPERATION_FAILED);
        char count[32];
        snprintf(count, sizeof count, "%llu steps", (unsigned long long)counts[i]);
        if (!CHECK(strstr(msg, count) != NULL))
            fprintf(stderr, "    %s\n", msg);
    }
    CHECK_INT(wk_sim_iterations(wk_api_sim(api)), ==, 0);
    CHECK_INT(get_state(api), ==, WK_SIM_PAUSED);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"refused_unless_paused", refused_unless_paused},
    {"steps_exactly_n", steps_exactly_n},
    {"too_many_steps_refused", too_many_steps_refused},
};
WK_TEST_MAIN(cases)
