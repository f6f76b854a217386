/* test_serve.c — `worldkit serve` as people (and the Python tests) run it:
 * a child process that prints the address it serves on, answers calls, and
 * on SIGTERM lets a stream in flight finish, refuses new calls, and exits 0;
 * a remote listen address and a taken port refused; --help. */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "server/client.h"
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_api.h"
#include "wk_test.h"

#define SI "/simulation_interfaces.SimulationInterfaces/"

typedef struct child {
    pid_t pid;
    int out, err; /* its stdout and stderr */
} child;

/* Runs `worldkit serve` with args (NULL-terminated). */
static bool spawn(child *c, const char *const *args)
{
    int out[2], err[2];
    if (pipe(out) || pipe(err))
        return false;
    const char *argv[16] = {WK_CLI, "serve"};
    for (int i = 0; args[i] && i < 13; i++)
        argv[i + 2] = args[i];
    c->pid = fork();
    if (c->pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]), close(err[0]), close(out[1]), close(err[1]);
        execv(WK_CLI, (char *const *)argv);
        _exit(127);
    }
    close(out[1]), close(err[1]);
    c->out = out[0];
    c->err = err[0];
    return c->pid > 0;
}

/* Reads fd into buf until a newline, EOF or 30 s. */
static void read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (n + 1 < cap && poll(&p, 1, 30000) == 1 && read(fd, buf + n, 1) == 1 && buf[n] != '\n')
        n++;
    buf[n] = '\0';
}

/* Waits for the child to end; its exit status, or -1 if a signal ended it. */
static int finish(child *c)
{
    int status = 0;
    waitpid(c->pid, &status, 0);
    close(c->out), close(c->err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Counts a SimulateSteps stream, stops the server after its first message,
 * and halfway makes another call, which must be refused. */
typedef struct stream_count {
    child *server;
    grpc_channel *ch;
    size_t feedbacks, ok_results;
    int late_status;    /* the other call's */
    bool not_serving;   /* the health check said NOT_SERVING, or found the server gone */
} stream_count;

/* Once the server has said it is stopping, a new call is refused as
 * UNAVAILABLE (tries for up to 5 s), and the health check answers
 * NOT_SERVING, unless the server has stopped listening by then: once the
 * stream's last bytes are in the kernel's buffers, its call is over for
 * the server, however far the client has read, and a check that arrives
 * as it closes is cancelled with the rest of its calls. */
static int late_call(stream_count *n)
{
    char line[256];
    read_line(n->server->err, line, sizeof line);
    reply r = {0};
    for (int i = 0; i < 500; i++) {
        r = (reply){0};
        client_call(n->ch, SI "GetSimulationState", NULL, 0, client_deadline_ms(30000), &r);
        reply_free(&r);
        if (r.status == GRPC_STATUS_UNAVAILABLE && strstr(r.details, "shutting down"))
            break;
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    reply health = {0};
    static const uint8_t not_serving[] = {0x08, 0x02}; /* HealthCheckResponse { status: NOT_SERVING } */
    int status = client_call(n->ch, "/grpc.health.v1.Health/Check", NULL, 0, client_deadline_ms(30000), &health);
    n->not_serving = status == GRPC_STATUS_OK ? health.last.len == sizeof not_serving &&
                                                    !memcmp(health.last.data, not_serving, sizeof not_serving)
                                              : (status == GRPC_STATUS_UNAVAILABLE && !strstr(health.details, "shutting down")) ||
                                                    status == GRPC_STATUS_CANCELLED;
    if (!n->not_serving)
        fprintf(stderr, "    health check: status %d (%s), %zu bytes\n", status, health.details, health.last.len);
    reply_free(&health);
    return r.status;
}

static bool count_updates(const uint8_t *bytes, size_t len, void *ctx)
{
    stream_count *n = ctx;
    SimulationInterfaces__SimulateStepsUpdate *u =
        simulation_interfaces__simulate_steps_update__unpack(NULL, len, bytes);
    if (!u)
        return false;
    if (u->update_case == SIMULATION_INTERFACES__SIMULATE_STEPS_UPDATE__UPDATE_FEEDBACK) {
        if (n->feedbacks == 0)
            kill(n->server->pid, SIGTERM);
        else if (n->feedbacks == 100)
            n->late_status = late_call(n);
        n->feedbacks++;
    }
    else if (u->update_case == SIMULATION_INTERFACES__SIMULATE_STEPS_UPDATE__UPDATE_RESULT && u->result->result)
        n->ok_results += u->result->result->result == WK_RESULT_OK;
    simulation_interfaces__simulate_steps_update__free_unpacked(u, NULL);
    return true;
}

static void serves_then_stops_on_sigterm(void)
{
    child c;
    /* Kinematic motion: the stream's count of feedbacks before the
     * shutdown assumes steps as quick as an empty world's. */
    const char *args[] = {"--listen", "127.0.0.1:0", "--memory", "--world", WK_TEST_WORLDS "/nested.sdf",
                          "--levels", "--physics", "none", NULL};
    REQUIRE(spawn(&c, args));
    char line[256];
    read_line(c.out, line, sizeof line);
    const char *prefix = "worldkit: serving on 127.0.0.1:";
    if (!CHECK(!strncmp(line, prefix, strlen(prefix)))) {
        fprintf(stderr, "    first line: %s\n", line);
        kill(c.pid, SIGKILL);
        finish(&c);
        return;
    }
    grpc_init();
    grpc_channel *ch = client_connect(line + strlen("worldkit: serving on "));

    /* The world of --world is there. */
    SimulationInterfaces__GetEntityStateRequest get = SIMULATION_INTERFACES__GET_ENTITY_STATE_REQUEST__INIT;
    get.entity = "robot::arm::gripper::palm";
    uint8_t bytes[128];
    size_t len = protobuf_c_message_pack(&get.base, bytes);
    reply r = {0};
    CHECK_INT(client_call(ch, SI "GetEntityState", bytes, len, client_deadline_ms(30000), &r), ==, GRPC_STATUS_OK);
    SimulationInterfaces__GetEntityStateResponse *resp =
        simulation_interfaces__get_entity_state_response__unpack(NULL, r.last.len, r.last.data);
    CHECK(resp && resp->result && resp->result->result == WK_RESULT_OK);
    if (resp)
        simulation_interfaces__get_entity_state_response__free_unpacked(resp, NULL);
    reply_free(&r);

    /* SIGTERM arrives after the stream's first message: a new call is
     * refused, the stream ends UNAVAILABLE at its next batch (a stream may
     * run for ever: it does not hold the shutdown), then the process exits
     * 0. */
    static const uint8_t pause[] = {0x0a, 0x02, 0x08, WK_SIM_PAUSED}; /* state { state: PAUSED } */
    r = (reply){0};
    CHECK_INT(client_call(ch, SI "SetSimulationState", pause, sizeof pause, client_deadline_ms(30000), &r), ==,
              GRPC_STATUS_OK);
    reply_free(&r);
    SimulationInterfaces__SimulateStepsGoal goal = SIMULATION_INTERFACES__SIMULATE_STEPS_GOAL__INIT;
    goal.has_steps = true;
    goal.steps = 2000;
    len = protobuf_c_message_pack(&goal.base, bytes);
    stream_count counts = {.server = &c, .ch = ch};
    r = (reply){.on_message = count_updates, .ctx = &counts};
    CHECK_INT(client_call(ch, SI "SimulateSteps", bytes, len, client_deadline_ms(60000), &r), ==,
              GRPC_STATUS_UNAVAILABLE);
    CHECK(strstr(r.details, "shutting down") != NULL);
    CHECK_U64(counts.feedbacks, <, 2000);
    CHECK_U64(counts.feedbacks, >, 100);
    CHECK_U64(counts.ok_results, ==, 0);
    CHECK_INT(counts.late_status, ==, GRPC_STATUS_UNAVAILABLE);
    CHECK(counts.not_serving);
    reply_free(&r);
    /* The server's shutdown waits for its connections to close, which an
     * idle channel of this process (no thread polls it) would do only when
     * gRPC's backup poller runs, seconds later. */
    grpc_channel_destroy(ch);
    CHECK_INT(finish(&c), ==, 0);
    grpc_shutdown();
}

static void refuses_a_remote_address(void)
{
    child c;
    const char *args[] = {"--listen", "0.0.0.0:50051", "--memory", NULL};
    REQUIRE(spawn(&c, args));
    char line[512];
    read_line(c.err, line, sizeof line);
    CHECK(strstr(line, "UNSUPPORTED") && strstr(line, "TLS"));
    CHECK_INT(finish(&c), ==, 1);
}

/* A second server on a taken port must not start: with SO_REUSEPORT the
 * kernel would share the calls out between the two. */
static void refuses_a_taken_port(void)
{
    child first, second;
    const char *args[] = {"--listen", "127.0.0.1:0", "--memory", NULL};
    REQUIRE(spawn(&first, args));
    char line[512], taken[64];
    read_line(first.out, line, sizeof line);
    const char *prefix = "worldkit: serving on ";
    REQUIRE(!strncmp(line, prefix, strlen(prefix)));
    snprintf(taken, sizeof taken, "%s", line + strlen(prefix));
    const char *again[] = {"--listen", taken, "--memory", NULL};
    REQUIRE(spawn(&second, again));
    /* One line says why: gRPC's own lines about it are kept off. */
    read_line(second.err, line, sizeof line);
    if (!CHECK(!strncmp(line, "worldkit: ", 10) && strstr(line, "cannot listen on") && strstr(line, taken)))
        fprintf(stderr, "    line: %s\n", line);
    kill(second.pid, SIGTERM); /* in case it serves */
    CHECK_INT(finish(&second), ==, 1);
    kill(first.pid, SIGTERM);
    CHECK_INT(finish(&first), ==, 0);
}

static void help(void)
{
    child c;
    const char *args[] = {"--help", NULL};
    REQUIRE(spawn(&c, args));
    char line[256];
    read_line(c.out, line, sizeof line);
    CHECK(strstr(line, "usage: worldkit serve") != NULL);
    CHECK_INT(finish(&c), ==, 0);
}

static const wk_test_case cases[] = {
    {"serves_then_stops_on_sigterm", serves_then_stops_on_sigterm},
    {"refuses_a_remote_address", refuses_a_remote_address},
    {"refuses_a_taken_port", refuses_a_taken_port},
    {"help", help},
};

WK_TEST_MAIN(cases)
