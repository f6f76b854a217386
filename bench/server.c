/* server.c — how many calls `worldkit serve` answers over gRPC on loopback,
 * and how fast, when 8 streams call it back to back.
 *
 * It starts the worldkit command (this build's, path from CMake) as a
 * child process serving an empty world on a free loopback port, then runs
 * helpers/grpc_load once per figure: a client on gRPC's C++ library, not on
 * worldkit's code, which builds the world the figure needs over the API
 * (not measured), then keeps 8 calls in flight, each stream calling again
 * as soon as it is answered, for WK_BENCH_SECONDS (default 10), and
 * reports calls, latency percentiles and its own CPU. The server's
 * CPU over the same span comes from /proc. Prints:
 *   server.get_transform_rps, server.get_transform_p99_ms  (GetTransform,
 *     frame to object, in a world of 100 objects and 200 frames),
 *   server.get_transform_floor_rps, server.get_transform_vs_floor  (the
 *     same calls against helpers/grpc_floor, a bare gRPC server answering
 *     empty messages, and GetTransform's calls/s over the floor's: absolute
 *     figures swing 2x from day to day on shared hosts, the ratio does not),
 *   server.spawn_rps  (SpawnEntities of one small SDFormat model, each
 *     deleted again with DeleteEntity in the same loop),
 *   server.list_objects_1k_rps  (ListObjects of a world of 1,000 objects),
 * and on stderr, per figure, the median, the slowest call and CPU per call.
 *
 * Environment: WK_BENCH_SECONDS (per figure), WK_BENCH_CHANNELS (1: the
 * streams share one connection, the default; up to 8: connections taken in
 * turn), WK_BENCH_CLIENT_THREADS (threads driving the streams, default 1),
 * WK_BENCH_WORKERS (the server's --workers; unset: its default),
 * WK_BENCH_WORLDKIT (another worldkit command to serve with, to compare two
 * builds of the server under the same client). A failed call, a server
 * that does not start or does not stop cleanly ends the program non-zero.
 *
 * `server --hostile` runs GetTransform's load while one stream sends
 * requests that once held the server, and prints server.p99_under_attack_ms.
 *
 * `server --soak [SECONDS]` runs the soak instead: the three loads at once
 * for SECONDS (default 600) while the server's RSS is read every 2 s, and
 * prints soak.rss_growth_mb (RSS at the end minus RSS after the warm-up)
 * and soak.rss_peak_mb. */
#define _DEFAULT_SOURCE /* mkdtemp, kill */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BENCH_NAME "bench/server"
#include "bench.h"

#ifndef WK_WORLDKIT_BIN
#error "WK_WORLDKIT_BIN (the worldkit command) comes from CMake"
#endif
#ifndef WK_GRPC_LOAD_BIN
#error "WK_GRPC_LOAD_BIN (bench/helpers/grpc_load) comes from CMake"
#endif
#ifndef WK_GRPC_FLOOR_BIN
#error "WK_GRPC_FLOOR_BIN (bench/helpers/grpc_floor) comes from CMake"
#endif

#define STREAMS 8

/* What grpc_load printed for one figure. */
typedef struct figure {
    double calls, seconds, p50_ms, p99_ms, max_ms, client_cpu_s, delete_p99_ms;
    double server_cpu_s; /* the server's CPU while the calls were measured */
} figure;

/* The environment's settings. */
typedef struct options {
    double seconds;     /* per figure */
    int channels;       /* connections the streams share */
    int client_threads; /* threads of grpc_load driving the streams */
    int workers;        /* the server's --workers; 0: its default */
    const char *worldkit; /* the command that serves */
} options;

typedef struct server {
    pid_t pid;
    int out; /* its stdout, kept open so that a late line cannot SIGPIPE it */
    char address[256];
} server;

/* The servers still running (worldkit's and the floor), killed at exit
 * should the benchmark die, so that a failed run leaves no process behind. */
static pid_t running[2];

static void kill_running_servers(void)
{
    for (int i = 0; i < 2; i++)
        if (running[i] > 0) {
            kill(running[i], SIGKILL);
            waitpid(running[i], NULL, 0);
        }
}

/* Notes pid as running (or, with was, no longer). */
static void note_running(pid_t was, pid_t pid)
{
    for (int i = 0; i < 2; i++)
        if (running[i] == was) {
            running[i] = pid;
            return;
        }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        die("cannot write %s", path);
}

static double env_number(const char *name, double fallback)
{
    const char *v = getenv(name);
    if (!v || !v[0])
        return fallback;
    char *end;
    double x = strtod(v, &end);
    if (*end || x <= 0)
        die("%s=%s: a positive number, please", name, v);
    return x;
}

/* Starts a server (argv, a NULL-terminated exec list) and waits for the line
 * beginning with prefix that tells where it listens: what follows it is the
 * address, or a port on 127.0.0.1 with port_only. */
static server start_child(char *const argv[], const char *prefix, bool port_only)
{
    int fds[2];
    if (pipe(fds))
        die("pipe: %s", strerror(errno));
    server s = {.pid = fork()};
    if (s.pid < 0)
        die("fork: %s", strerror(errno));
    if (s.pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    note_running(0, s.pid);
    /* The line comes once the world is loaded and the port bound: seconds
     * at most. The rest of its stdout is left unread: it prints nothing
     * more there. */
    char line[512];
    size_t len = 0, prefix_len = strlen(prefix);
    for (;;) {
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        if (poll(&p, 1, 30000) <= 0)
            die("%s did not say it was serving within 30 s", argv[0]);
        ssize_t got = read(fds[0], line + len, 1);
        if (got <= 0)
            die("%s ended before serving (see its messages above)", argv[0]);
        if (line[len] == '\n') {
            line[len] = '\0';
            if (!strncmp(line, prefix, prefix_len))
                break;
            len = 0;
        } else if (++len == sizeof line - 1) {
            die("%s printed a line too long to be its address", argv[0]);
        }
    }
    s.out = fds[0];
    snprintf(s.address, sizeof s.address, "%s%s", port_only ? "127.0.0.1:" : "", line + prefix_len);
    return s;
}

/* Starts worldkit serve on a free loopback port. */
static server start_server(const char *bin, const char *world, int workers)
{
    char workers_arg[16];
    snprintf(workers_arg, sizeof workers_arg, "%d", workers);
    char *argv[] = {(char *)bin, "serve",   "--listen", "127.0.0.1:0", "--memory", "--world", (char *)world,
                    "--workers", workers_arg, NULL};
    if (workers <= 0)
        argv[7] = NULL;
    return start_child(argv, "worldkit: serving on ", false);
}

/* The floor: bench/helpers/grpc_floor, as many threads as the host has
 * cores, on a free loopback port. It has no clean exit: it is killed. */
static server start_floor(void)
{
    char threads[16];
    snprintf(threads, sizeof threads, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    char *argv[] = {WK_GRPC_FLOOR_BIN, threads, NULL};
    return start_child(argv, "listening ", true);
}

static void stop_floor(server *s)
{
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    note_running(s->pid, 0);
    close(s->out);
}

/* Stops the server as Ctrl-C would; it must exit 0. */
static void stop_server(server *s)
{
    if (kill(s->pid, SIGTERM))
        die("kill: %s", strerror(errno));
    int status;
    if (waitpid(s->pid, &status, 0) != s->pid)
        die("waitpid: %s", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("worldkit serve did not exit cleanly on SIGTERM (status %d)", status);
    note_running(s->pid, 0);
    close(s->out);
}

/* The server's CPU time (user and system, every thread) in seconds, from
 * /proc/PID/stat: fields 14 and 15, in clock ticks. */
static double server_cpu_s(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    /* The command name (field 2) is in parentheses and may hold spaces:
     * count fields from the last ')'. */
    const char *p = strrchr(buf, ')');
    unsigned long long utime, stime;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
        die("cannot read %s", path);
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* The server's resident memory in MB: VmRSS of /proc/PID/status. */
static double server_rss_mb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    double kb = -1;
    while (f && kb < 0 && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %lf kB", &kb) != 1)
            kb = -1;
    if (f)
        fclose(f);
    if (kb < 0)
        die("cannot read VmRSS from %s", path);
    return kb / 1024;
}

/* Starts grpc_load for one figure; its stdout as a stream in *out. */
static pid_t start_load(const server *s, const char *name, const options *o, const char *model, FILE **out)
{
    char secs[32], streams[16], chans[16], threads[16];
    snprintf(secs, sizeof secs, "%g", o->seconds);
    snprintf(streams, sizeof streams, "%d", STREAMS);
    snprintf(chans, sizeof chans, "%d", o->channels);
    snprintf(threads, sizeof threads, "%d", o->client_threads);
    int fds[2];
    if (pipe(fds))
        die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[1]);
        /* A NULL model ends the arguments there: only spawn and mixed take
         * one. */
        execl(WK_GRPC_LOAD_BIN, "grpc_load", s->address, name, secs, streams, chans, threads, model, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    *out = fdopen(fds[0], "r");
    if (!*out)
        die("fdopen: %s", strerror(errno));
    return pid;
}

/* Waits for grpc_load, which must have succeeded. */
static void end_load(pid_t pid, const char *name)
{
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("%s: the load failed (grpc_load's message above)", name);
}

/* Runs grpc_load for one figure and reads its "key value" lines. */
static figure run_load(const server *s, const char *name, const options *o, const char *model)
{
    FILE *out;
    pid_t pid = start_load(s, name, o, model, &out);
    /* grpc_load says "measuring" once the world is built and the clock
     * starts, and prints the rest once it stops: the server's CPU between
     * the two is the figure's alone. */
    figure f = {0};
    char key[64];
    double value, cpu0 = -1;
    while (fscanf(out, "%63s %lf", key, &value) == 2) {
        if (!strcmp(key, "measuring"))
            cpu0 = server_cpu_s(s->pid);
        else if (!strcmp(key, "calls") && cpu0 >= 0)
            f.server_cpu_s = server_cpu_s(s->pid) - cpu0;
        struct {
            const char *key;
            double *at;
        } fields[] = {{"calls", &f.calls},   {"seconds", &f.seconds}, {"p50_ms", &f.p50_ms},
                      {"p99_ms", &f.p99_ms}, {"max_ms", &f.max_ms},   {"client_cpu_s", &f.client_cpu_s},
                      {"delete_p99_ms", &f.delete_p99_ms}};
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
            if (!strcmp(key, fields[i].key))
                *fields[i].at = value;
    }
    fclose(out);
    end_load(pid, name);
    if (f.calls <= 0 || f.seconds <= 0)
        die("%s: grpc_load reported no calls", name);
    return f;
}

/* Runs one figure and says on stderr what the bench lines leave out. */
static figure measure(const server *s, const char *name, const options *o, const char *model)
{
    figure f = run_load(s, name, o, model);
    fprintf(stderr,
            "bench/server: %s: %.0f calls in %.1f s, p50 %.3f ms, p99 %.3f ms, max %.1f ms; CPU per call: server "
            "%.0f us, client %.0f us\n",
            name, f.calls, f.seconds, f.p50_ms, f.p99_ms, f.max_ms, f.server_cpu_s / f.calls * 1e6,
            f.client_cpu_s / f.calls * 1e6);
    if (f.delete_p99_ms > 0)
        fprintf(stderr, "bench/server: %s: %s p99 %.3f ms\n", name,
                strcmp(name, "hostile") ? "DeleteEntity (CPU above: per spawn and delete)" : "the attacks'",
                f.delete_p99_ms);
    return f;
}

#define FLOOR_ROUNDS 3

/* The figures: each load alone for o->seconds. GetTransform's alternates
 * with the floor, a bare gRPC server that answers empty messages, in
 * FLOOR_ROUNDS rounds that split the time, so that both meet the host's
 * swings alike (one server idle while the other is measured); its p99 is
 * the worst round's. */
static void run_figures(const server *s, const options *o, const char *model)
{
    options round = *o;
    round.seconds = o->seconds / FLOOR_ROUNDS;
    double calls = 0, seconds = 0, floor_calls = 0, floor_seconds = 0, p99 = 0;
    server floor = start_floor();
    for (int r = 0; r < FLOOR_ROUNDS; r++) {
        figure tf = measure(s, "get_transform", &round, NULL);
        figure fl = measure(&floor, "get_transform_floor", &round, NULL);
        calls += tf.calls, seconds += tf.seconds, floor_calls += fl.calls, floor_seconds += fl.seconds;
        p99 = tf.p99_ms > p99 ? tf.p99_ms : p99;
    }
    stop_floor(&floor);
    printf("bench server.get_transform_rps %.0f calls/s\n", calls / seconds);
    printf("bench server.get_transform_p99_ms %.3f ms\n", p99);
    printf("bench server.get_transform_floor_rps %.0f calls/s\n", floor_calls / floor_seconds);
    printf("bench server.get_transform_vs_floor %.2f ratio\n", (calls / seconds) / (floor_calls / floor_seconds));
    fflush(stdout);
    figure sp = measure(s, "spawn", o, model);
    printf("bench server.spawn_rps %.0f calls/s\n", sp.calls / sp.seconds);
    fflush(stdout);
    figure lo = measure(s, "list_objects", o, NULL);
    printf("bench server.list_objects_1k_rps %.0f calls/s\n", lo.calls / lo.seconds);
    fflush(stdout);
}

#define SOAK_SAMPLE_S 2.0 /* between two readings of the server's RSS */

/* The soak: the mixed load (every figure's calls at once, on worlds built
 * once) for o->seconds, the server's RSS read every SOAK_SAMPLE_S. The
 * warm-up is the first fifth of the run, at most 60 s: growth counts from
 * the RSS at its end to the RSS at the end of the run. */
static void soak(const server *s, const options *o, const char *model)
{
    FILE *out;
    pid_t pid = start_load(s, "mixed", o, model, &out);
    double warm_up = o->seconds / 5 < 60 ? o->seconds / 5 : 60;
    double start = -1, next_sample = 0, next_report = 0, rss = 0, rss_warm = -1, peak = 0, calls = 0, seconds = 0;
    char line[256];
    int fd = fileno(out);
    for (bool open = true; open;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 1000) > 0) {
            /* grpc_load prints a line as the clock starts and the rest as
             * it stops: a blocking line read does not wait long. */
            open = fgets(line, sizeof line, out) != NULL;
            if (open && !strncmp(line, "measuring", 9))
                start = now_s();
            if (open)
                (void)(sscanf(line, "calls %lf", &calls) || sscanf(line, "seconds %lf", &seconds));
        }
        if (!open || now_s() < next_sample)
            continue;
        next_sample = now_s() + SOAK_SAMPLE_S;
        rss = server_rss_mb(s->pid);
        peak = rss > peak ? rss : peak;
        if (start >= 0 && rss_warm < 0 && now_s() - start >= warm_up)
            rss_warm = rss;
        if (start >= 0 && now_s() >= next_report) {
            next_report = now_s() + 60;
            if (rss_warm < 0)
                fprintf(stderr, "bench/server: soak: %4.0f s: RSS %.1f MB (warming up)\n", now_s() - start, rss);
            else
                fprintf(stderr, "bench/server: soak: %4.0f s: RSS %.1f MB (after warm-up %.1f MB, peak %.1f MB)\n",
                        now_s() - start, rss, rss_warm, peak);
        }
    }
    fclose(out);
    end_load(pid, "mixed");
    if (rss_warm < 0 || calls <= 0 || seconds <= 0)
        die("soak: the run ended before its warm-up did (%.0f s)", warm_up);
    fprintf(stderr, "bench/server: soak: %.0f calls in %.0f s (%.0f calls/s), RSS %.1f MB after a %.0f s warm-up\n",
            calls, seconds, calls / seconds, rss_warm, warm_up);
    printf("bench soak.rss_growth_mb %.1f MB\n", rss - rss_warm);
    printf("bench soak.rss_peak_mb %.1f MB\n", peak);
}

/* --hostile: GetTransform's load while one stream attacks (grpc_load's
 * hostile figure): the p99 of GetTransform, which the attacks must not
 * move (the target is 50 ms at most), and of the attacks' answers. */
static void under_attack(const server *s, const options *o)
{
    figure f = measure(s, "hostile", o, NULL);
    printf("bench server.p99_under_attack_ms %.3f ms\n", f.p99_ms);
    printf("bench server.attack_p99_ms %.3f ms\n", f.delete_p99_ms);
}

int main(int argc, char **argv)
{
    /* --soak [SECONDS]: the soak alone, SECONDS (default 600) long;
     * --hostile: GetTransform under attack alone. */
    bool soaking = argc > 1 && !strcmp(argv[1], "--soak");
    bool hostile = argc == 2 && !strcmp(argv[1], "--hostile");
    if (argc > 3 || (argc > 1 && !soaking && !hostile))
        die("usage: server [--soak [SECONDS] | --hostile]");
    char *end = NULL;
    double soak_s = argc == 3 ? strtod(argv[2], &end) : 600;
    if (end && (*end || soak_s <= 0))
        die("--soak %s: a positive number of seconds, please", argv[2]);
    options o = {
        .seconds = env_number("WK_BENCH_SECONDS", 10),
        .channels = (int)env_number("WK_BENCH_CHANNELS", 1),
        .client_threads = (int)env_number("WK_BENCH_CLIENT_THREADS", 1),
        .workers = (int)env_number("WK_BENCH_WORKERS", 0),
        .worldkit = getenv("WK_BENCH_WORLDKIT") && getenv("WK_BENCH_WORLDKIT")[0] ? getenv("WK_BENCH_WORLDKIT")
                                                                                   : WK_WORLDKIT_BIN,
    };
    if (o.channels > STREAMS || o.client_threads > STREAMS)
        die("WK_BENCH_CHANNELS and WK_BENCH_CLIENT_THREADS go up to %d, the streams", STREAMS);

    char dir[] = "/tmp/wk_bench_server_XXXXXX";
    if (!mkdtemp(dir))
        die("mkdtemp: %s", strerror(errno));
    char world[64], model[64];
    snprintf(world, sizeof world, "%s/empty.sdf", dir);
    snprintf(model, sizeof model, "%s/box.sdf", dir);
    write_file(world, "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"bench\"/>\n</sdf>\n");
    write_file(model,
               "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<model name=\"box\">\n"
               "  <link name=\"body\">\n"
               "    <inertial><mass>1</mass></inertial>\n"
               "    <visual name=\"visual\"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></visual>\n"
               "    <collision name=\"collision\"><geometry><box><size>0.2 0.2 0.2</size></box></geometry>"
               "</collision>\n"
               "  </link>\n</model>\n</sdf>\n");

    if (soaking)
        o.seconds = soak_s;
    if (atexit(kill_running_servers))
        die("atexit");
    server s = start_server(o.worldkit, world, o.workers);
    fprintf(stderr,
            "bench/server: %s serve (pid %d) on %s, %s workers; %d streams on %d connection(s), %d client "
            "thread(s); %g s %s\n",
            o.worldkit, (int)s.pid, s.address, o.workers > 0 ? getenv("WK_BENCH_WORKERS") : "default", STREAMS,
            o.channels, o.client_threads, o.seconds, soaking ? "of soak" : "per figure");

    if (soaking)
        soak(&s, &o, model);
    else if (hostile)
        under_attack(&s, &o);
    else
        run_figures(&s, &o, model);
    stop_server(&s);
    unlink(world);
    unlink(model);
    rmdir(dir);
    return 0;
}
