/* test_server.c — the gRPC server in-process on an ephemeral port, called
 * through gRPC's core C client with serialized simulation_interfaces
 * messages (and one ObjectWorldService call): unary calls, the SimulateSteps stream and its cancellation,
 * the health check, the statuses of unknown methods, garbage, late
 * deadlines and oversized requests, the PLAYING loop, calls from several
 * threads at once, a shutdown that lets a call in flight finish, the health
 * check answered while every worker is stuck, and a shutdown bounded by its
 * grace even then. */
#include <pthread.h>
#include <time.h>

#include "base/clock.h"
#include "grpc/health/v1/health.pb-c.h"
#include "server/client.h"
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_server.h"
#include "wk_test.h"

#define SI "/simulation_interfaces.SimulationInterfaces/"
#define HEALTH "/grpc.health.v1.Health/Check"

typedef struct fixture {
    wk_api *api;
    wk_server *server;
    grpc_channel *ch;
} fixture;

static bool up(fixture *f, const wk_server_desc *desc)
{
    *f = (fixture){.api = wk_api_new()};
    wk_server_desc d = desc ? *desc : (wk_server_desc){0};
    d.listen = "127.0.0.1:0";
    wk_status st = {0};
    if (!CHECK(f->api) || !CHECK_INT(wk_server_start(f->api, &d, &f->server, &st), ==, WK_OK)) {
        fprintf(stderr, "    %s\n", st.message);
        wk_api_free(f->api);
        return false;
    }
    CHECK(wk_server_port(f->server) > 0);
    grpc_init();
    f->ch = client_connect(wk_server_address(f->server));
    return true;
}

static void down(fixture *f)
{
    grpc_channel_destroy(f->ch);
    grpc_shutdown();
    wk_server_free(f->server);
    wk_api_free(f->api);
}

/* Packs m and calls method with it, no deadline to speak of. */
static int call(fixture *f, const char *method, const ProtobufCMessage *m, reply *r)
{
    uint8_t *bytes = malloc(protobuf_c_message_get_packed_size(m) + 1);
    size_t len = protobuf_c_message_pack(m, bytes);
    int status = client_call(f->ch, method, bytes, len, client_deadline_ms(30000), r);
    free(bytes);
    return status;
}

/* Calls method with m and unpacks the reply as a message of type (free
 * with protobuf_c_message_free_unpacked); NULL unless the status is OK and
 * the reply parses. */
static void *call_for(fixture *f, const char *method, const ProtobufCMessage *m, const ProtobufCMessageDescriptor *type)
{
    reply r = {0};
    int status = call(f, method, m, &r);
    ProtobufCMessage *resp = status == GRPC_STATUS_OK ? protobuf_c_message_unpack(type, NULL, r.last.len, r.last.data)
                                                      : NULL;
    if (status != GRPC_STATUS_OK)
        fprintf(stderr, "    %s: status %d: %s\n", method, status, r.details);
    reply_free(&r);
    return resp;
}

static uint32_t sim_state(fixture *f)
{
    SimulationInterfaces__GetSimulationStateRequest req = SIMULATION_INTERFACES__GET_SIMULATION_STATE_REQUEST__INIT;
    SimulationInterfaces__GetSimulationStateResponse *resp = call_for(
        f, SI "GetSimulationState", &req.base, &simulation_interfaces__get_simulation_state_response__descriptor);
    uint32_t state = resp && resp->result && resp->state ? resp->state->state : 999;
    if (resp)
        protobuf_c_message_free_unpacked(&resp->base, NULL);
    return state;
}

/* Sets the state through the server; the Result's code. */
static uint32_t set_state(fixture *f, uint32_t target)
{
    SimulationInterfaces__SimulationState state = SIMULATION_INTERFACES__SIMULATION_STATE__INIT;
    state.has_state = true;
    state.state = target;
    SimulationInterfaces__SetSimulationStateRequest req = SIMULATION_INTERFACES__SET_SIMULATION_STATE_REQUEST__INIT;
    req.state = &state;
    SimulationInterfaces__SetSimulationStateResponse *resp = call_for(
        f, SI "SetSimulationState", &req.base, &simulation_interfaces__set_simulation_state_response__descriptor);
    uint32_t code = resp && resp->result ? resp->result->result : 999;
    if (resp)
        protobuf_c_message_free_unpacked(&resp->base, NULL);
    return code;
}

static void get_simulation_state(void)
{
    fixture f;
    REQUIRE(up(&f, NULL));
    CHECK_INT(sim_state(&f), ==, WK_SIM_STOPPED);
    /* An empty request is a valid GetSimulationStateRequest: zero bytes. */
    reply r = {0};
    CHECK_INT(client_call(f.ch, SI "GetSimulationState", NULL, 0, client_deadline_ms(30000), &r), ==,
              GRPC_STATUS_OK);
    CHECK_INT(r.count, ==, 1);
    reply_free(&r);
    down(&f);
}

static void load_world_then_entity_state(void)
{
    fixture f;
    REQUIRE(up(&f, NULL));
    SimulationInterfaces__LoadWorldRequest load = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    load.uri = WK_TEST_WORLDS "/nested.sdf";
    SimulationInterfaces__LoadWorldResponse *loaded =
        call_for(&f, SI "LoadWorld", &load.base, &simulation_interfaces__load_world_response__descriptor);
    REQUIRE(loaded);
    CHECK(loaded->result && loaded->result->result == WK_RESULT_OK);
    CHECK(loaded->world && loaded->world->name && !strcmp(loaded->world->name, "nested"));
    protobuf_c_message_free_unpacked(&loaded->base, NULL);

    SimulationInterfaces__GetEntityStateRequest get = SIMULATION_INTERFACES__GET_ENTITY_STATE_REQUEST__INIT;
    get.entity = "robot::arm::forearm";
    SimulationInterfaces__GetEntityStateResponse *resp =
        call_for(&f, SI "GetEntityState", &get.base, &simulation_interfaces__get_entity_state_response__descriptor);
    REQUIRE(resp && resp->result && resp->state && resp->state->pose && resp->state->pose->position);
    CHECK_INT(resp->result->result, ==, WK_RESULT_OK);
    /* The pose is the one the scene computes (no call runs now). */
    wk_scene *s = wk_api_scene(f.api);
    wk_entity forearm = wk_scene_scoped(s, wk_api_world(f.api), "robot::arm::forearm");
    wk_pose want = wk_scene_world_pose(s, forearm);
    CHECK_NEAR(resp->state->pose->position->x, want.p.x, 1e-12);
    CHECK_NEAR(resp->state->pose->position->y, want.p.y, 1e-12);
    CHECK_NEAR(resp->state->pose->position->z, want.p.z, 1e-12);
    protobuf_c_message_free_unpacked(&resp->base, NULL);
    down(&f);
}

static void object_world_service_too(void)
{
    fixture f;
    REQUIRE(up(&f, NULL));
    reply r = {0};
    CHECK_INT(client_call(f.ch, "/intrinsic_proto.world.ObjectWorldService/ListWorlds", NULL, 0,
                          client_deadline_ms(30000), &r),
              ==, GRPC_STATUS_OK);
    CHECK_INT(r.count, ==, 1);
    reply_free(&r);
    down(&f);
}

static void unknown_method_and_garbage(void)
{
    fixture f;
    REQUIRE(up(&f, NULL));
    reply r = {0};
    CHECK_INT(client_call(f.ch, "/simulation_interfaces.SimulationInterfaces/Teleport", NULL, 0,
                          client_deadline_ms(30000), &r),
              ==, GRPC_STATUS_UNIMPLEMENTED);
    CHECK(strstr(r.details, "Teleport") != NULL);
    CHECK_INT(r.count, ==, 0);
    reply_free(&r);
    /* A length-delimited field whose length runs past the end. */
    static const uint8_t garbage[] = {0x0a, 0x7f, 0x01};
    r = (reply){0};
    CHECK_INT(client_call(f.ch, SI "GetEntityState", garbage, sizeof garbage, client_deadline_ms(30000), &r), ==,
              GRPC_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(r.details, "does not parse") != NULL);
    CHECK_INT(r.count, ==, 0);
    reply_free(&r);
    down(&f);
}

static void deadline_in_the_past(void)
{
    fixture f;
    REQUIRE(up(&f, NULL));
    SimulationInterfaces__SimulationState state = SIMULATION_INTERFACES__SIMULATION_STATE__INIT;
    state.has_state = true;
    state.state = WK_SIM_PLAYING;
    SimulationInterfaces__SetSimulationStateRequest req = SIMULATION_INTERFACES__SET_SIMULATION_STATE_REQUEST__INIT;
    req.state = &state;
    uint8_t bytes[64];
    size_t len = protobuf_c_message_pack(&req.base, bytes);
    reply r = {0};
    CHECK_INT(client_call(f.ch, SI "SetSimulationState", bytes, len, client_deadline_ms(-1000), &r), ==,
              GRPC_STATUS_DEADLINE_EXCEEDED);
    reply_free(&r);
    /* It did not act. */
    CHECK_INT(sim_state(&f), ==, WK_SIM_STOPPED);
    down(&f);
}

/* Collects a SimulateSteps stream: the completed steps of each feedback in
 * order, and the result's code. */
typedef struct stream_log {
    uint64_t feedbacks, last_completed;
    bool in_order;
    uint32_t result; /* 0 until the result came */
    int results;
    uint64_t cancel_after; /* 0: never */
} stream_log;

static bool on_update(const uint8_t *bytes, size_t len, void *ctx)
{
    stream_log *log = ctx;
    SimulationInterfaces__SimulateStepsUpdate *u =
        simulation_interfaces__simulate_steps_update__unpack(NULL, len, bytes);
    if (!u)
        return false;
    if (u->update_case == SIMULATION_INTERFACES__SIMULATE_STEPS_UPDATE__UPDATE_FEEDBACK) {
        log->feedbacks++;
        log->in_order &= u->feedback->completed_steps == log->last_completed + 1;
        log->last_completed = u->feedback->completed_steps;
    } else if (u->update_case == SIMULATION_INTERFACES__SIMULATE_STEPS_UPDATE__UPDATE_RESULT) {
        log->results++;
        log->result = u->result->result ? u->result->result->result : 998;
    }
    simulation_interfaces__simulate_steps_update__free_unpacked(u, NULL);
    return !log->cancel_after || log->feedbacks < log->cancel_after;
}

static int simulate_steps(fixture *f, uint64_t steps, stream_log *log)
{
    SimulationInterfaces__SimulateStepsGoal goal = SIMULATION_INTERFACES__SIMULATE_STEPS_GOAL__INIT;
    goal.has_steps = true;
    goal.steps = steps;
    log->in_order = true;
    reply r = {.on_message = on_update, .ctx = log};
    int status = call(f, SI "SimulateSteps", &goal.base, &r);
    reply_free(&r);
    return status;
}

static void simulate_steps_stream(void)
{
    fixture f;
    REQUIRE(up(&f, NULL));
    REQUIRE_INT(set_state(&f, WK_SIM_PAUSED), ==, WK_RESULT_OK);
    stream_log log = {0};
    CHECK_INT(simulate_steps(&f, 25, &log), ==, GRPC_STATUS_OK);
    CHECK_U64(log.feedbacks, ==, 25);
    CHECK(log.in_order);
    CHECK_INT(log.results, ==, 1);
    CHECK_INT(log.result, ==, WK_RESULT_OK);
    CHECK_U64(wk_sim_iterations(wk_api_sim(f.api)), ==, 25);
    down(&f);
}

static void simulate_steps_cancelled(void)
{
    fixture f;
    REQUIRE(up(&f, NULL));
    REQUIRE_INT(set_state(&f, WK_SIM_PAUSED), ==, WK_RESULT_OK);
    stream_log log = {.cancel_after = 3};
    CHECK_INT(simulate_steps(&f, 1000000, &log), ==, GRPC_STATUS_CANCELLED);
    CHECK_INT(log.results, ==, 0);
    /* The server stops stepping once it sees the cancellation; the next
     * call waits for the world's lock, so it runs after that. */
    CHECK_INT(sim_state(&f), ==, WK_SIM_PAUSED);
    CHECK_U64(wk_sim_iterations(wk_api_sim(f.api)), <, 1000000);
    down(&f);
}

/* The serving status Check gives for service; 999 when the call fails. */
static uint32_t health(fixture *f, const char *service)
{
    Grpc__Health__V1__HealthCheckRequest req = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
    req.service = (char *)service;
    Grpc__Health__V1__HealthCheckResponse *resp =
        call_for(f, HEALTH, &req.base, &grpc__health__v1__health_check_response__descriptor);
    uint32_t serving = resp && resp->has_status ? (uint32_t)resp->status : 999;
    if (resp)
        protobuf_c_message_free_unpacked(&resp->base, NULL);
    return serving;
}

static void health_check(void)
{
    fixture f;
    REQUIRE(up(&f, NULL));
    CHECK_INT(health(&f, ""), ==, GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING);
    CHECK_INT(health(&f, "simulation_interfaces.SimulationInterfaces"), ==,
              GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING);
    CHECK_INT(health(&f, "intrinsic_proto.world.ObjectWorldService"), ==,
              GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING);
    Grpc__Health__V1__HealthCheckRequest unknown = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
    unknown.service = "simulation_interfaces.Nothing";
    reply r = {0};
    CHECK_INT(call(&f, HEALTH, &unknown.base, &r), ==, GRPC_STATUS_NOT_FOUND);
    reply_free(&r);
    /* A request without the field asks about the server as a whole. */
    r = (reply){0};
    CHECK_INT(client_call(f.ch, HEALTH, NULL, 0, client_deadline_ms(30000), &r), ==, GRPC_STATUS_OK);
    reply_free(&r);
    down(&f);
}

static void request_size_limit(void)
{
    fixture f;
    REQUIRE(up(&f, &(wk_server_desc){.max_request_bytes = 1024}));
    SimulationInterfaces__LoadWorldRequest load = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    char big[4096];
    memset(big, ' ', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    load.resource_string = big;
    reply r = {0};
    CHECK_INT(call(&f, SI "LoadWorld", &load.base, &r), ==, GRPC_STATUS_RESOURCE_EXHAUSTED);
    reply_free(&r);
    /* The server is still there for requests within the limit. */
    CHECK_INT(sim_state(&f), ==, WK_SIM_STOPPED);
    down(&f);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void playing_runs_in_real_time(void)
{
    fixture f;
    REQUIRE(up(&f, NULL));
    /* The empty world steps 1 ms at a real-time factor of 1. The clock
     * starts before the call: the loop may step before its reply is read. */
    double t0 = seconds_now(), slowest = 0;
    REQUIRE_INT(set_state(&f, WK_SIM_PLAYING), ==, WK_RESULT_OK);
    while (seconds_now() - t0 < 0.4) {
        double c0 = seconds_now();
        CHECK_INT(sim_state(&f), ==, WK_SIM_PLAYING);
        double took = seconds_now() - c0;
        slowest = took > slowest ? took : slowest;
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    REQUIRE_INT(set_state(&f, WK_SIM_PAUSED), ==, WK_RESULT_OK);
    double wall = seconds_now() - t0;
    /* Simulated time kept to wall time (a loaded machine may lag, never
     * lead), and calls got in between the loop's batches. */
    double sim = wk_sim_time(wk_api_sim(f.api));
    CHECK(sim <= wall + 0.01);
    CHECK(sim >= 0.5 * wall);
    CHECK(slowest < 0.25);
    /* Paused, it stays put. */
    uint64_t steps = wk_sim_iterations(wk_api_sim(f.api));
    struct timespec nap = {0, 50 * 1000 * 1000};
    nanosleep(&nap, NULL);
    CHECK_INT(sim_state(&f), ==, WK_SIM_PAUSED);
    CHECK_U64(wk_sim_iterations(wk_api_sim(f.api)), ==, steps);
    down(&f);
}

/* One of the threads of concurrent_calls: steps one at a time and reads an
 * entity's state in between; counts what did not go as it should. */
typedef struct client_thread {
    fixture *f;
    pthread_t thread;
    int steps, failures;
} client_thread;

static void *client_main(void *arg)
{
    client_thread *t = arg;
    for (int i = 0; i < t->steps; i++) {
        SimulationInterfaces__StepSimulationRequest step = SIMULATION_INTERFACES__STEP_SIMULATION_REQUEST__INIT;
        step.has_steps = true;
        step.steps = 1;
        SimulationInterfaces__StepSimulationResponse *stepped =
            call_for(t->f, SI "StepSimulation", &step.base, &simulation_interfaces__step_simulation_response__descriptor);
        t->failures += !stepped || !stepped->result || stepped->result->result != WK_RESULT_OK;
        SimulationInterfaces__GetEntityStateRequest get = SIMULATION_INTERFACES__GET_ENTITY_STATE_REQUEST__INIT;
        get.entity = "robot";
        SimulationInterfaces__GetEntityStateResponse *got =
            call_for(t->f, SI "GetEntityState", &get.base, &simulation_interfaces__get_entity_state_response__descriptor);
        t->failures += !got || !got->result || got->result->result != WK_RESULT_OK;
        if (stepped)
            protobuf_c_message_free_unpacked(&stepped->base, NULL);
        if (got)
            protobuf_c_message_free_unpacked(&got->base, NULL);
    }
    return NULL;
}

static void concurrent_calls(void)
{
    fixture f;
    REQUIRE(up(&f, &(wk_server_desc){.workers = 3}));
    SimulationInterfaces__LoadWorldRequest load = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    load.uri = WK_TEST_WORLDS "/nested.sdf";
    reply r = {0};
    CHECK_INT(call(&f, SI "LoadWorld", &load.base, &r), ==, GRPC_STATUS_OK);
    reply_free(&r);
    REQUIRE_INT(set_state(&f, WK_SIM_PAUSED), ==, WK_RESULT_OK);
    client_thread threads[5];
    for (int i = 0; i < 5; i++) {
        threads[i] = (client_thread){.f = &f, .steps = 20};
        REQUIRE(pthread_create(&threads[i].thread, NULL, client_main, &threads[i]) == 0);
    }
    for (int i = 0; i < 5; i++) {
        pthread_join(threads[i].thread, NULL);
        CHECK_INT(threads[i].failures, ==, 0);
    }
    /* Every step of every thread happened, none twice or lost. */
    CHECK_U64(wk_sim_iterations(wk_api_sim(f.api)), ==, 100);
    down(&f);
}

/* graceful_shutdown's pieces: a thread that holds the current world open
 * for writing, as a long call would, until released, so that calls wait
 * for it; and the server's call hook saying when a call has arrived. */
typedef struct gate {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool holding, release, shutdown_done;
    int calls_started; /* GetSimulationState calls */
    wk_api *api;
    fixture *f;
} gate;

/* A GetSimulationState call made through the gate's server. */
typedef struct gate_call {
    gate *g;
    pthread_t thread;
    reply r;
} gate_call;

static void *holder_main(void *arg)
{
    gate *g = arg;
    wk_world *w = NULL;
    wk_status st = {0};
    if (wk_store_open(wk_api_store(g->api), "world", true, &w, &st))
        fprintf(stderr, "    the holder could not open the world: %s\n", st.message);
    pthread_mutex_lock(&g->lock);
    g->holding = true;
    pthread_cond_broadcast(&g->changed);
    while (!g->release)
        pthread_cond_wait(&g->changed, &g->lock);
    pthread_mutex_unlock(&g->lock);
    if (w)
        wk_store_close(w, false, false);
    return NULL;
}

static void on_call(const wk_server_call *c, void *ctx)
{
    gate *g = ctx;
    pthread_mutex_lock(&g->lock);
    if (!c->done && strstr(c->method, "GetSimulationState"))
        g->calls_started++;
    pthread_cond_broadcast(&g->changed);
    pthread_mutex_unlock(&g->lock);
}

static void *caller_main(void *arg)
{
    gate_call *c = arg;
    client_call(c->g->f->ch, SI "GetSimulationState", NULL, 0, client_deadline_ms(30000), &c->r);
    return NULL;
}

static void *shutdown_main(void *arg)
{
    gate *g = arg;
    wk_server_shutdown(g->f->server);
    pthread_mutex_lock(&g->lock);
    g->shutdown_done = true;
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

static void wait_until(gate *g, const bool *flag)
{
    pthread_mutex_lock(&g->lock);
    while (!*flag)
        pthread_cond_wait(&g->changed, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

/* Starts n calls, and returns once the server has them all waiting (10 s
 * at most). */
static void start_held_calls(gate *g, gate_call *calls, int n)
{
    for (int i = 0; i < n; i++) {
        calls[i] = (gate_call){.g = g};
        REQUIRE(pthread_create(&calls[i].thread, NULL, caller_main, &calls[i]) == 0);
    }
    struct timespec limit;
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_sec += 10;
    pthread_mutex_lock(&g->lock);
    while (g->calls_started < n && pthread_cond_timedwait(&g->changed, &g->lock, &limit) == 0)
        ;
    int started = g->calls_started;
    pthread_mutex_unlock(&g->lock);
    REQUIRE_INT(started, ==, n); /* else a worker that should serve did not */
}

static void release(gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->release = true;
    pthread_cond_broadcast(&g->changed);
    pthread_mutex_unlock(&g->lock);
}

/* Joins the calls, each answered. */
static void end_held_calls(gate_call *calls, int n)
{
    for (int i = 0; i < n; i++) {
        pthread_join(calls[i].thread, NULL);
        CHECK_INT(calls[i].r.status, ==, GRPC_STATUS_OK);
        CHECK_INT(calls[i].r.count, ==, 1);
        reply_free(&calls[i].r);
    }
}

/* Two calls waiting for the world hold two of three workers; the third,
 * which rests while the first is free, answers a call that needs no world
 * (an unknown method's UNIMPLEMENTED). */
static void spare_worker_serves_beside_long_calls(void)
{
    gate g = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};
    fixture f;
    REQUIRE(up(&f, &(wk_server_desc){.workers = 3, .on_call = on_call, .ctx = &g}));
    g.api = f.api;
    g.f = &f;
    REQUIRE_INT(set_state(&f, WK_SIM_PAUSED), ==, WK_RESULT_OK);
    pthread_t holder;
    REQUIRE(pthread_create(&holder, NULL, holder_main, &g) == 0);
    wait_until(&g, &g.holding);
    gate_call held[2];
    start_held_calls(&g, held, 2);
    reply r = {0};
    CHECK_INT(client_call(f.ch, "/no.Such/Method", NULL, 0, client_deadline_ms(5000), &r), ==,
              GRPC_STATUS_UNIMPLEMENTED);
    reply_free(&r);
    pthread_mutex_lock(&g.lock);
    CHECK_INT(g.calls_started, ==, 2); /* still waiting */
    pthread_mutex_unlock(&g.lock);
    release(&g);
    pthread_join(holder, NULL);
    end_held_calls(held, 2);
    down(&f);
}

static void graceful_shutdown(void)
{
    gate g = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};
    fixture f;
    REQUIRE(up(&f, &(wk_server_desc){.on_call = on_call, .ctx = &g}));
    g.api = f.api;
    g.f = &f;
    REQUIRE_INT(set_state(&f, WK_SIM_PAUSED), ==, WK_RESULT_OK);
    pthread_t holder, stopper;
    REQUIRE(pthread_create(&holder, NULL, holder_main, &g) == 0);
    wait_until(&g, &g.holding);
    /* A call arrives and waits for the world. */
    gate_call held;
    start_held_calls(&g, &held, 1);
    REQUIRE(pthread_create(&stopper, NULL, shutdown_main, &g) == 0);
    struct timespec nap = {0, 200 * 1000 * 1000};
    nanosleep(&nap, NULL);
    pthread_mutex_lock(&g.lock);
    CHECK(!g.shutdown_done); /* it waits for the call in flight */
    pthread_mutex_unlock(&g.lock);
    release(&g);
    pthread_join(holder, NULL);
    end_held_calls(&held, 1);
    pthread_join(stopper, NULL);
    /* No new calls after. */
    reply r = {0};
    CHECK(client_call(f.ch, SI "GetSimulationState", NULL, 0, client_deadline_ms(5000), &r) != GRPC_STATUS_OK);
    reply_free(&r);
    down(&f);
}

/* The serving status a health check answers, -1 unless it answers OK
 * within 1 s. */
static int health_within_1s(fixture *f)
{
    reply r = {0};
    int status = client_call(f->ch, HEALTH, NULL, 0, client_deadline_ms(1000), &r);
    Grpc__Health__V1__HealthCheckResponse *resp =
        status == GRPC_STATUS_OK ? grpc__health__v1__health_check_response__unpack(NULL, r.last.len, r.last.data)
                                 : NULL;
    if (status != GRPC_STATUS_OK)
        fprintf(stderr, "    health check: status %d: %s\n", status, r.details);
    int serving = resp ? (int)resp->status : -1;
    if (resp)
        grpc__health__v1__health_check_response__free_unpacked(resp, NULL);
    reply_free(&r);
    return serving;
}

/* Both workers wait for a world another thread holds, as they would behind
 * long world work; the health check, answered on a thread of its own, is
 * answered within 1 s all the same (it waited for a free worker). */
static void health_beside_stuck_workers(void)
{
    gate g = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};
    fixture f;
    REQUIRE(up(&f, &(wk_server_desc){.workers = 2, .on_call = on_call, .ctx = &g}));
    g.api = f.api;
    g.f = &f;
    REQUIRE_INT(set_state(&f, WK_SIM_PAUSED), ==, WK_RESULT_OK);
    pthread_t holder;
    REQUIRE(pthread_create(&holder, NULL, holder_main, &g) == 0);
    wait_until(&g, &g.holding);
    gate_call held[2];
    start_held_calls(&g, held, 2);
    for (int i = 0; i < 3; i++)
        CHECK_INT(health_within_1s(&f), ==, GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING);
    pthread_mutex_lock(&g.lock);
    CHECK_INT(g.calls_started, ==, 2); /* still waiting */
    pthread_mutex_unlock(&g.lock);
    release(&g);
    pthread_join(holder, NULL);
    end_held_calls(held, 2);
    down(&f);
}

/* Calls that wait for a world held past the shutdown grace see no cancel:
 * the shutdown gives up on them at the grace's end (WK_DEADLINE), rather
 * than wait; once the world is let go they end unanswered, and a second
 * shutdown completes. */
static void shutdown_bounded_with_stuck_calls(void)
{
    gate g = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};
    fixture f;
    REQUIRE(up(&f, &(wk_server_desc){.workers = 2, .shutdown_grace = 1.0, .on_call = on_call, .ctx = &g}));
    g.api = f.api;
    g.f = &f;
    REQUIRE_INT(set_state(&f, WK_SIM_PAUSED), ==, WK_RESULT_OK);
    pthread_t holder;
    REQUIRE(pthread_create(&holder, NULL, holder_main, &g) == 0);
    wait_until(&g, &g.holding);
    gate_call held[2];
    start_held_calls(&g, held, 2);
    double t0 = wk__monotonic_s();
    CHECK_INT(wk_server_shutdown(f.server), ==, WK_DEADLINE);
    double took = wk__monotonic_s() - t0;
    CHECK(took >= 0.9 && took < 1.5);
    fprintf(stderr, "    shutdown gave up after %.3f s (grace 1 s)\n", took);
    release(&g);
    pthread_join(holder, NULL);
    for (int i = 0; i < 2; i++) {
        pthread_join(held[i].thread, NULL);
        /* Unanswered: cancelled, or cut off as the connection closed. */
        CHECK(held[i].r.status == GRPC_STATUS_CANCELLED || held[i].r.status == GRPC_STATUS_UNAVAILABLE);
        reply_free(&held[i].r);
    }
    CHECK_INT(wk_server_shutdown(f.server), ==, WK_OK);
    down(&f);
}

static void refuses_remote_addresses(void)
{
    wk_api *api = wk_api_new();
    REQUIRE(api);
    const char *remote[] = {"0.0.0.0:0", "[::]:0", "192.168.1.2:50051", ":50051", "example.com:50051"};
    for (size_t i = 0; i < sizeof remote / sizeof remote[0]; i++) {
        wk_server *s = NULL;
        wk_status st = {0};
        CHECK_INT(wk_server_start(api, &(wk_server_desc){.listen = remote[i]}, &s, &st), ==, WK_UNSUPPORTED);
        CHECK(s == NULL);
        CHECK(strstr(st.message, "TLS") != NULL);
    }
    wk_api_free(api);
}

static const wk_test_case cases[] = {
    {"get_simulation_state", get_simulation_state},
    {"load_world_then_entity_state", load_world_then_entity_state},
    {"object_world_service_too", object_world_service_too},
    {"unknown_method_and_garbage", unknown_method_and_garbage},
    {"deadline_in_the_past", deadline_in_the_past},
    {"simulate_steps_stream", simulate_steps_stream},
    {"simulate_steps_cancelled", simulate_steps_cancelled},
    {"health_check", health_check},
    {"request_size_limit", request_size_limit},
    {"playing_runs_in_real_time", playing_runs_in_real_time},
    {"concurrent_calls", concurrent_calls},
    {"spare_worker_serves_beside_long_calls", spare_worker_serves_beside_long_calls},
    {"graceful_shutdown", graceful_shutdown},
    {"health_beside_stuck_workers", health_beside_stuck_workers},
    {"shutdown_bounded_with_stuck_calls", shutdown_bounded_with_stuck_calls},
    {"refuses_remote_addresses", refuses_remote_addresses},
};

WK_TEST_MAIN(cases)
