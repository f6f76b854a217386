/* test_simulate_steps.c — the SimulateSteps action: through wk_api_call it
 * runs to its result; through wk_api_simulate_steps each step reports its
 * feedback (completed and remaining steps, in order), and a receiver can
 * cancel the rest, which stop after the batch in hand. The feedback goes
 * out with no world held: a receiver may call the api, and one that pauses
 * or stops the simulation ends the steps. Not paused, it fails before any
 * step or feedback. */
#include <string.h>

#include "api/api_call.h"
#include "wk_test.h"

typedef struct progress {
    uint64_t completed[16], remaining[16];
    size_t count;
    size_t cancel_at; /* cancels after this many reports; 0: never */
    bool garbled;
    wk_api *stop_at_3; /* stops this api's simulation at the third report (a call of its own) */
    uint32_t stop_result;
} progress;

static bool on_step(const uint8_t *bytes, size_t len, void *ctx)
{
    progress *p = ctx;
    SimulationInterfaces__SimulateStepsFeedback *fb =
        simulation_interfaces__simulate_steps_feedback__unpack(NULL, len, bytes);
    if (!fb) {
        p->garbled = true;
        return false;
    }
    if (p->count < 16) {
        p->completed[p->count] = fb->completed_steps;
        p->remaining[p->count] = fb->remaining_steps;
    }
    p->count++;
    simulation_interfaces__simulate_steps_feedback__free_unpacked(fb, NULL);
    if (p->stop_at_3 && p->count == 3)
        p->stop_result = set_state(p->stop_at_3, WK_SIM_STOPPED, NULL);
    return p->count != p->cancel_at;
}

/* Runs the action with feedback to p: its result code and message. */
static uint32_t simulate(wk_api *api, uint64_t steps, progress *p, char *msg)
{
    SimulationInterfaces__SimulateStepsGoal goal = SIMULATION_INTERFACES__SIMULATE_STEPS_GOAL__INIT;
    goal.has_steps = true;
    goal.steps = steps;
    uint8_t bytes[16];
    size_t len = simulation_interfaces__simulate_steps_goal__pack(&goal, bytes);
    wk_buf out = {0};
    if (wk_api_simulate_steps(api, bytes, len, on_step, p, &out) != WK_OK)
        return 999;
    SimulationInterfaces__SimulateStepsResult *r =
        simulation_interfaces__simulate_steps_result__unpack(NULL, out.len, out.data);
    wk_buf_free(&out);
    return result_code(r, r ? r->result : NULL, msg);
}

static void feedback_every_step(void)
{
    wk_api *api = paused_api(BOX_WORLD);
    REQUIRE(api);
    progress p = {0};
    char msg[256];
    CHECK_INT(simulate(api, 5, &p, msg), ==, WK_RESULT_OK);
    REQUIRE_INT(p.count, ==, 5);
    for (size_t i = 0; i < p.count; i++) {
        CHECK_INT(p.completed[i], ==, i + 1);
        CHECK_INT(p.remaining[i], ==, 5 - (i + 1));
    }
    CHECK(!p.garbled);
    CHECK_INT(wk_sim_iterations(wk_api_sim(api)), ==, 5);
    CHECK_NEAR(wk_sim_time(wk_api_sim(api)), 0.05, 1e-15);
    CHECK_INT(get_state(api), ==, WK_SIM_PAUSED);
    /* The same goal through wk_api_call: no feedback, the same steps. */
    SimulationInterfaces__SimulateStepsGoal goal = SIMULATION_INTERFACES__SIMULATE_STEPS_GOAL__INIT;
    goal.has_steps = true;
    goal.steps = 3;
    CHECK_INT(call_code(api, "SimulateSteps", &goal.base, NULL), ==, WK_RESULT_OK);
    CHECK_INT(wk_sim_iterations(wk_api_sim(api)), ==, 8);
    /* Many batches: a report for every step all the same. */
    p = (progress){0};
    CHECK_INT(simulate(api, 10000, &p, msg), ==, WK_RESULT_OK);
    CHECK_INT(p.count, ==, 10000);
    CHECK_INT(p.remaining[15], ==, 10000 - 16);
    CHECK_INT(wk_sim_iterations(wk_api_sim(api)), ==, 10008);
    wk_api_free(api);
}

static void cancelled(void)
{
    wk_api *api = paused_api(BOX_WORLD);
    REQUIRE(api);
    progress p = {.cancel_at = 3};
    char msg[256];
    CHECK_INT(simulate(api, 100000, &p, msg), ==, WK_RESULT_OPERATION_FAILED);
    /* The steps stop after the first batch, whose feedback was cancelled. */
    uint64_t done = wk_sim_iterations(wk_api_sim(api));
    char want[64];
    snprintf(want, sizeof want, "cancelled after %llu of 100000 steps", (unsigned long long)done);
    CHECK_STR(msg, want);
    CHECK_INT(p.count, ==, 3);
    CHECK(done >= 3 && done <= 256);
    CHECK_INT(get_state(api), ==, WK_SIM_PAUSED);
    wk_api_free(api);
}

/* The receiver stops the simulation through the api itself, which it can
 * only while no batch holds the world: the steps end with the next batch,
 * saying how many were done. */
static void stopped_between_batches(void)
{
    wk_api *api = paused_api(BOX_WORLD);
    REQUIRE(api);
    progress p = {.stop_at_3 = api};
    char msg[256];
    CHECK_INT(simulate(api, 100000, &p, msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK_INT(p.stop_result, ==, WK_RESULT_OK);
    CHECK(strstr(msg, "the simulation became stopped after ") != NULL);
    CHECK(strstr(msg, " of 100000 steps") != NULL);
    CHECK_INT(get_state(api), ==, WK_SIM_STOPPED);
    CHECK(p.count >= 3 && p.count <= 256);
    wk_api_free(api);
}

static void refused_unless_paused(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    progress p = {0};
    char msg[256];
    CHECK_INT(simulate(api, 4, &p, msg), ==, WK_RESULT_OPERATION_FAILED);
    CHECK(strstr(msg, "stopped") != NULL);
    CHECK_INT(p.count, ==, 0);
    CHECK_INT(wk_sim_iterations(wk_api_sim(api)), ==, 0);
    uint8_t garbage[] = {0xff, 0xff};
    wk_buf out = {0};
    CHECK_INT(wk_api_simulate_steps(api, garbage, sizeof garbage, on_step, &p, &out), ==, WK_PARSE);
    CHECK_INT(out.len, ==, 0);
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"feedback_every_step", feedback_every_step},
    {"cancelled", cancelled},
    {"stopped_between_batches", stopped_between_batches},
    {"refused_unless_paused", refused_unless_paused},
};
WK_TEST_MAIN(cases)
