/* serve.c — `worldkit serve`: the api's services over gRPC until SIGINT or
 * SIGTERM, after which calls in flight finish and the process exits 0 (1
 * when calls still ran at the shutdown grace's end, left unanswered). The
 * world given with --world loads through LoadWorld, the service a client
 * would call, so that it loads exactly as a client's would: as the store's
 * world "world" (replacing one kept in --data), which ObjectWorldService
 * and the simulation share, with its initial state kept as "init_world". */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "simulation_interfaces/simulation_interfaces.pb-c.h"
#include "worldkit/wk_server.h"
#include "worldkit/wk_store.h"

#define USAGE                                                                                         \
    "serve [--listen ADDR] [--world FILE [--ignore-missing-assets]] [--root DIR]... [--levels]\n"     \
    "                       [--physics ENGINE [--max-physics-links N]] [--rtf X]\n"                       \
    "                       [--workers N] [--max-request-mib N] [--shutdown-seconds S]\n"              \
    "                       [--max-world-entities N] [--max-response-mib N] [--max-memory-mib N]\n"      \
    "                       [--data DIR | --store DIR|URL [--compact-entries N] [--checkpoint-seconds S]\n" \
    "                        [--lease-ms N] | --memory]\n"                                          \
    "                       [--verbose] [--http ADDR]\n"                                              \
    "                       [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]] [--token-file FILE]"

/* In two strings: a C compiler need take none longer than 4095 bytes. */
static const char *const help[] = {
    "usage: worldkit " USAGE "\n"
    "\n"
    "Serves simulation_interfaces.SimulationInterfaces, intrinsic_proto.world.ObjectWorldService\n"
    "and grpc.health.v1.Health over gRPC\n"
    "until SIGINT or SIGTERM, or a client's SetSimulationState to QUITTING; calls in flight then\n"
    "finish, new ones are refused, and the process exits 0 (1 when calls were still running at\n"
    "--shutdown-seconds' end). Prints \"worldkit: serving on HOST:PORT\" once it takes calls.\n"
    "\n"
    "  --listen ADDR          host:port to listen on (default 127.0.0.1:50051; a host alone listens on\n"
    "                         port 50051; port 0 picks a free one). Other than loopback or unix:, only\n"
    "                         with TLS or a token\n"
    "  --world FILE           a world (SDFormat, URDF, MJCF) to load, as LoadWorld would\n"
    "  --ignore-missing-assets  load the --world file even where a mesh or other asset is not\n"
    "                         found or not fetched (a warning each), as LoadWorld's field does\n"
    "  --root DIR             a folder whose files clients may load and spawn (LoadWorld, SpawnEntity,\n"
    "                         the sources of GetAvailableWorlds and GetSpawnables); repeatable. Also\n"
    "                         read: the resource path (WORLDKIT_RESOURCE_PATH, GZ_SIM_RESOURCE_PATH,\n"
    "                         SDF_PATH) and the --world file's folder. Default: the working folder.\n"
    "                         Other files are answered as missing\n"
    "  --http ADDR            also serve the live view, a web page of the current world in 3D, on\n"
    "                         host:port (port 0 picks a free one; like --listen, an address other\n"
    "                         machines reach needs TLS or a token, which the page then takes as\n"
    "                         ?token=...); prints its address\n"
    "  --levels               load and unload levels around performers\n"
    "  --physics ENGINE       what steps the worlds: mujoco (gravity, contacts, joints) or none\n"
    "                         (kinematic motion of set velocities). Default: mujoco for a world\n"
    "                         with a link outside a static model, none for the others\n"
    "  --max-physics-links N  refuse to grow or step a world past N links with MuJoCo, whose\n"
    "                         compile cannot be interrupted and slows with the square of their\n"
    "                         joints' freedoms (2,000 free bodies: 4 s); default 1000\n"
    "  --rtf X                real-time factor of a PLAYING world (default: the world's own,\n"
    "                         1 unless the file says; 0: as fast as possible)\n"
    "  --workers N            calls served at once (default: the CPU count, at least 4)\n"
    "  --max-request-mib N    larger requests fail RESOURCE_EXHAUSTED (default 16)\n"
    "  --max-world-entities N refuse what would take a world past N entities (a spawn, a load,\n"
    "                         an object or world created), leaving it as it was (default 1000000)\n"
    "  --max-response-mib N   refuse answers past N MiB, as ListObjects FULL of a large world\n"
    "                         (default 16)\n"
    "  --max-memory-mib N     while the process holds more than N MiB, refuse calls that add to\n"
    "                         it (spawns, loads, creations, clones); deletions run (default: none).\n"
    "                         Each refusal is RESOURCE_EXHAUSTED, OPERATION_FAILED in a\n"
    "                         simulation_interfaces Result, naming the limit\n",
    "  --shutdown-seconds S   at SIGINT or SIGTERM, exit within S seconds (default 30): calls in\n"
    "                         flight finish, or are cancelled; those still running are left and\n"
    "                         the process exits 1. A second SIGINT or SIGTERM exits 1 at once\n"
    "  --data DIR             keep ObjectWorldService's worlds in DIR/worlds.db (SQLite): every\n"
    "                         change answered OK is on disk, and a restart brings them back\n"
    "                         (default ./worldkit-data; --data '' is --memory)\n"
    "  --store URL            keep them in a PostgreSQL database instead (postgresql://...; a\n"
    "                         folder is --data): the same tables, created when missing; every change\n"
    "                         answered OK is committed there. Several servers may share one\n"
    "                         database: each world is served by the one holding its lease (a call\n"
    "                         for a world another server holds fails UNAVAILABLE naming it, in\n"
    "                         metadata 'worldkit-owner' too); a lapsed lease is taken over\n"
    "  --lease-ms N           how long a lease lasts unless renewed (default 10000)\n"
    "  --compact-entries N    fold a world's journal of changes into a new snapshot once it\n"
    "                         holds more than N entries (default 1000)\n"
    "  --checkpoint-seconds S write a PLAYING world's motion to DIR every S seconds (default 5)\n"
    "                         and when it stops playing; changes clients make are on disk at once\n"
    "  --memory               keep worlds in memory only, nothing on disk\n"
    "  --verbose              print a line per call: method, status (or the Result by name when a\n"
    "                         simulation_interfaces call failed in band), milliseconds, and why a\n"
    "                         status is not OK; and a line per level loaded or unloaded: world,\n"
    "                         simulated time, load or unload, level\n"
    "  --tls-cert FILE        serve over TLS with this PEM certificate chain ...\n"
    "  --tls-key FILE         ... and its PEM private key\n"
    "  --tls-client-ca FILE   and take only clients with a certificate this CA signed (mutual TLS)\n"
    "  --token-file FILE      every call must carry 'authorization: Bearer TOKEN', TOKEN being the\n"
    "                         file's one line; the file must not be readable by every user.\n"
    "                         Health checks need no token. Without TLS the token is sent in clear\n",
};

#define MAX_ROOTS 16

typedef struct serve_args {
    wk_server_desc server;
    wk_api_desc limits; /* its max_ fields only */
    const char *world;
    const char *roots[MAX_ROOTS + 3]; /* --root's, ".", the world's folder, NULL */
    size_t root_count;
    char world_folder[4096];
    char listen[512]; /* --listen HOST with the default port */
    const char *data; /* NULL: worlds in memory only; a folder or a PostgreSQL URL */
    uint32_t compact_entries;
    uint32_t lease_ms; /* 0: the store's default */
    double checkpoint_seconds; /* 0: the api's default */
    wk_physics_engine physics;
    bool levels;
    bool verbose;
    bool ignore_assets;
} serve_args;

/* Sets the option o takes no value; false when o is no such option. */
static bool flag(const char *o, serve_args *a)
{
    if (!strcmp(o, "--levels"))
        a->levels = true;
    else if (!strcmp(o, "--memory"))
        a->data = NULL;
    else if (!strcmp(o, "--verbose"))
        a->verbose = true;
    else if (!strcmp(o, "--ignore-missing-assets"))
        a->ignore_assets = true;
    else
        return false;
    return true;
}

static void set_workers(serve_args *a, unsigned long long x)
{
    a->server.workers = (int)x;
}
static void set_max_request(serve_args *a, unsigned long long x)
{
    a->server.max_request_bytes = (size_t)x * 1048576;
}
static void set_max_entities(serve_args *a, unsigned long long x)
{
    a->limits.max_world_entities = (size_t)x;
}
static void set_max_physics_links(serve_args *a, unsigned long long x)
{
    a->limits.max_physics_links = (size_t)x;
}
static void set_max_response(serve_args *a, unsigned long long x)
{
    a->limits.max_response_bytes = (size_t)x * 1048576;
}
static void set_max_memory(serve_args *a, unsigned long long x)
{
    a->limits.max_memory_bytes = (size_t)x * 1048576;
}
static void set_grace(serve_args *a, unsigned long long x)
{
    a->server.shutdown_grace = (double)x;
}
static void set_compact(serve_args *a, unsigned long long x)
{
    a->compact_entries = (uint32_t)x;
}

static void set_lease(serve_args *a, unsigned long long x)
{
    a->lease_ms = (uint32_t)x;
}

static void set_checkpoint(serve_args *a, unsigned long long x)
{
    a->checkpoint_seconds = (double)x;
}

/* The count options, their bounds and where each goes. True when o is
 * one; *status is then 2 (printed) for a value out of its bounds. */
static bool numeric(const char *o, const char *v, serve_args *a, int *status)
{
    static const struct {
        const char *name;
        unsigned long long min, max;
        void (*set)(serve_args *a, unsigned long long x);
        const char *what;
    } options[] = {
        {"--workers", 1, 256, set_workers, "a count from 1 to 256"},
        {"--max-request-mib", 1, 2047, set_max_request, "a count of MiB from 1 to 2047"},
        {"--max-world-entities", 1, 1000000000, set_max_entities, "a count from 1 to 1e9"},
        {"--max-physics-links", 1, 1000000000, set_max_physics_links, "a count from 1 to 1e9"},
        {"--max-response-mib", 1, 4095, set_max_response, "a count of MiB from 1 to 4095"},
        {"--max-memory-mib", 1, 1 << 24, set_max_memory, "a count of MiB from 1 to 16777216"},
        {"--shutdown-seconds", 1, 3600, set_grace, "a count of seconds from 1 to 3600"},
        {"--compact-entries", 1, 1000000000, set_compact, "a count from 1 to 1e9"},
        {"--checkpoint-seconds", 1, 86400, set_checkpoint, "a count of seconds from 1 to 86400"},
        {"--lease-ms", 100, 3600000, set_lease, "a count of milliseconds from 100 to 3600000"},
    };
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        if (strcmp(o, options[i].name))
            continue;
        unsigned long long x;
        if (!wk_cli_count(v, &x) || x < options[i].min || x > options[i].max)
            *status = wk_cli_usage_error(USAGE, "%s takes %s, not '%s'", o, options[i].what, v);
        else
            options[i].set(a, x);
        return true;
    }
    return false;
}

/* 0 when parsed, 1 for --help, 2 for a mistake (printed). */
static int parse(int argc, char **argv, serve_args *a)
{
    *a = (serve_args){.data = "worldkit-data", .physics = WK_PHYSICS_AUTO};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int status = 0;
        if (wk_cli_is_help(o))
            return 1;
        if (flag(o, a))
            continue;
        if (o[0] != '-' || o[1] != '-')
            return wk_cli_usage_error(USAGE, "unexpected argument '%s'", o);
        if (!v)
            return wk_cli_usage_error(USAGE, "%s needs a value, or is no option of serve", o);
        if (numeric(o, v, a, &status)) {
            if (status)
                return status;
        } else if (!strcmp(o, "--physics")) {
            if (!wk_cli_physics(v, &a->physics))
                return wk_cli_usage_error(USAGE, "--physics takes " WK_CLI_PHYSICS_TEXT ", not '%s'", v);
        } else if (!strcmp(o, "--rtf")) {
            double x;
            if (!wk_cli_rtf(v, &x))
                return wk_cli_usage_error(USAGE, "--rtf takes " WK_CLI_RTF_TEXT ", not '%s'", v);
            a->server.rtf = x > 0 ? x : -1; /* the server's "as fast as possible" is negative */
        } else if (!strcmp(o, "--listen")) {
            if (!wk_cli_address_ok("--listen", v))
                return 2;
            /* A host alone ("127.0.0.1", "localhost") listens on the default
             * port, as a client without one dials it. */
            bool port = strchr(v, ':') != NULL;
            if (!port && (size_t)snprintf(a->listen, sizeof a->listen, "%s:50051", v) >= sizeof a->listen)
                return wk_cli_usage_error(USAGE, "--listen %.40s...: the address is too long", v);
            a->server.listen = port ? v : a->listen;
        } else if (!strcmp(o, "--http")) {
            if (!wk_cli_address_ok("--http", v))
                return 2;
            a->server.http_listen = v;
        } else if (!strcmp(o, "--world")) {
            if (!v[0])
                return wk_cli_usage_error(USAGE, "--world needs a file name, not ''");
            a->world = v;
        }
        else if (!strcmp(o, "--root")) {
            struct stat st;
            if (a->root_count == MAX_ROOTS)
                return wk_cli_usage_error(USAGE, "at most %d --root folders", MAX_ROOTS);
            if (stat(v, &st) || !S_ISDIR(st.st_mode)) {
                fprintf(stderr, "worldkit: --root %s: no such folder\n", v);
                return 2;
            }
            a->roots[a->root_count++] = v;
        } else if (!strcmp(o, "--data") || !strcmp(o, "--store"))
            a->data = *v ? v : NULL; /* --data '' is --memory */
        else if (!strcmp(o, "--tls-cert"))
            a->server.tls_cert_file = v;
        else if (!strcmp(o, "--tls-key"))
            a->server.tls_key_file = v;
        else if (!strcmp(o, "--tls-client-ca"))
            a->server.tls_client_ca_file = v;
        else if (!strcmp(o, "--token-file"))
            a->server.token_file = v;
        else
            return wk_cli_usage_error(USAGE, "unknown option '%s' (serve --help lists them)", o);
        i++;
    }
    return 0;
}

/* Completes the roots: the working folder unless --root named some, and
 * the --world file's folder. */
static void finish_roots(serve_args *a)
{
    if (!a->root_count)
        a->roots[a->root_count++] = ".";
    if (a->world) {
        const char *slash = strrchr(a->world, '/');
        snprintf(a->world_folder, sizeof a->world_folder, "%.*s", slash ? (int)(slash - a->world) + 1 : 1,
                 slash ? a->world : ".");
        a->roots[a->root_count++] = a->world_folder;
    }
    a->roots[a->root_count] = NULL;
}

/* The gRPC status codes' names (grpc/status.h), by number. */
static const char *const status_names[] = {
    "OK",      "CANCELLED",         "UNKNOWN",        "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
};

/* A line per call: its gRPC status (and why, when not OK), or for a
 * simulation_interfaces call that failed in band (status OK, a Result other
 * than OK), that Result by the name its method gives it. */
static void log_call(const wk_server_call *call, void *ctx)
{
    (void)ctx;
    if (!call->done)
        return;
    unsigned n = sizeof status_names / sizeof status_names[0];
    const char *status = call->status >= 0 && (unsigned)call->status < n ? status_names[call->status] : "UNKNOWN";
    if (call->result >= 0 && call->result != WK_RESULT_OK) {
        const char *method = strrchr(call->method, '/');
        const char *name = wk_api_result_name(method ? method + 1 : call->method, (uint32_t)call->result);
        fprintf(stderr, "worldkit: %s result %d %s %.3f ms\n", call->method, call->result, name ? name : "(unnamed)",
                call->seconds * 1e3);
        return;
    }
    fprintf(stderr, "worldkit: %s %s %.3f ms%s%s\n", call->method, status, call->seconds * 1e3,
            call->message[0] ? ": " : "", call->message);
}

/* Set once a client asked the simulation to quit: the signal that then
 * ends the wait below is our own. */
static atomic_bool quitting;

/* SetSimulationState to QUITTING: the shutdown of SIGTERM, asked for
 * through the signal that the main thread waits for, so that it runs there
 * as it always does, after the call in flight has been answered. */
static void quit(void *ctx)
{
    (void)ctx;
    atomic_store(&quitting, true);
    kill(getpid(), SIGTERM);
}

/* --verbose: a level loaded or unloaded, as `run` prints it, with the
 * world it belongs to. */
static void log_level(const char *world_id, const char *level, bool loaded, double sim_time, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "worldkit: %s: t=%.6g %s %s\n", world_id, sim_time, loaded ? "load" : "unload", level);
}

/* The thread that waits, once the shutdown has begun, for a second SIGINT
 * or SIGTERM: someone who asks twice wants the process gone now, calls in
 * flight left unanswered as at the shutdown's bound (what was answered OK
 * is in the store). */
static void *exit_at_second_signal(void *ctx)
{
    (void)ctx;
    int sig = wk_server_wait_signal();
    fprintf(stderr, "worldkit: second %s: exiting at once, calls in flight left unanswered\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM");
    fflush(stderr);
    _exit(1);
}

/* Loads path through LoadWorld; 0 when its Result is OK. */
static int load(wk_api *api, const char *path, bool ignore_assets)
{
    SimulationInterfaces__LoadWorldRequest req = SIMULATION_INTERFACES__LOAD_WORLD_REQUEST__INIT;
    req.uri = (char *)path;
    req.has_ignore_missing_or_unsupported_assets = ignore_assets;
    req.ignore_missing_or_unsupported_assets = ignore_assets;
    uint8_t *bytes = malloc(protobuf_c_message_get_packed_size(&req.base) + 1);
    wk_buf out = {0};
    int rc = bytes ? wk_api_call(api, "LoadWorld", bytes, protobuf_c_message_pack(&req.base, bytes), &out) : WK_NOMEM;
    free(bytes);
    SimulationInterfaces__LoadWorldResponse *resp =
        rc ? NULL : simulation_interfaces__load_world_response__unpack(NULL, out.len, out.data);
    wk_buf_free(&out);
    const SimulationInterfaces__Result *r = resp ? resp->result : NULL;
    if (!r || r->result != WK_RESULT_OK)
        fprintf(stderr, "worldkit: %s: LoadWorld answered %u: %s\n", path, r ? r->result : 0,
                r && r->error_message ? r->error_message : wk_strerror(rc ? rc : WK_NOMEM));
    rc = r && r->result == WK_RESULT_OK ? 0 : 1;
    if (resp)
        simulation_interfaces__load_world_response__free_unpacked(resp, NULL);
    return rc;
}

int wk_cli_serve(int argc, char **argv)
{
    serve_args a;
    int parsed = parse(argc, argv, &a);
    if (parsed == 1) {
        for (size_t i = 0; i < sizeof help / sizeof help[0]; i++)
            fputs(help[i], stdout);
        return 0;
    }
    if (parsed)
        return parsed;
    wk_store *store = NULL;
    wk_status st = {0};
    /* A URL may hold a password: messages name the database, not it. */
    bool pg = a.data && (!strncmp(a.data, "postgresql://", 13) || !strncmp(a.data, "postgres://", 11));
    wk_store_desc kept = {.dir = pg ? NULL : a.data,
                          .url = pg ? a.data : NULL,
                          .compact_entries = a.compact_entries,
                          .address = a.server.listen ? a.server.listen : "127.0.0.1:50051",
                          .lease_ms = a.lease_ms};
    if (a.data && wk_store_open_desc(&kept, &store, &st)) {
        fprintf(stderr, "worldkit: --data %s: %s: %s\n", pg ? "(PostgreSQL)" : a.data, wk_code_name(st.code),
                st.message);
        return 1;
    }
    finish_roots(&a);
    wk_world_meta meta;
    if (a.world && store && wk_store_meta(store, "world", &meta, NULL) == WK_OK)
        fprintf(stderr, "worldkit: %s replaces the stored world 'world' of %s\n", a.world,
                pg ? "the PostgreSQL database" : a.data);
    wk_api *api = wk_api_new_desc(&(wk_api_desc){.levels = a.levels,
                                                 .physics = a.physics,
                                                 .store = store,
                                                 .roots = a.roots,
                                                 .checkpoint_seconds = a.checkpoint_seconds,
                                                 .quit = quit,
                                                 .on_level = a.verbose ? log_level : NULL,
                                                 .max_world_entities = a.limits.max_world_entities,
                                                 .max_response_bytes = a.limits.max_response_bytes,
                                                 .max_memory_bytes = a.limits.max_memory_bytes,
                                                 .max_physics_links = a.limits.max_physics_links});
    if (!api) {
        fprintf(stderr, "worldkit: NOMEM: out of memory\n");
        return 1;
    }
    if (a.world && load(api, a.world, a.ignore_assets)) {
        wk_api_free(api);
        return 1;
    }
    if (a.verbose)
        a.server.on_call = log_call;
    /* Before any thread starts, so that all of them leave the signals to
     * the wait below. */
    wk_server_block_signals();
    wk_server *server;
    if (wk_server_start(api, &a.server, &server, &st)) {
        fprintf(stderr, "worldkit: %s: %s\n", wk_code_name(st.code), st.message);
        wk_api_free(api);
        return 1;
    }
    if (store) /* port 0 picked one: the leases give the address taken */
        wk_store_set_address(store, wk_server_address(server));
    printf("worldkit: serving on %s\n", wk_server_address(server));
    if (wk_server_view_address(server))
        printf("worldkit: live view on %s\n", wk_server_view_address(server));
    fflush(stdout);
    int sig = wk_server_wait_signal();
    fprintf(stderr, "worldkit: %s: finishing the calls in flight (a second SIGINT or SIGTERM exits at once)\n",
            atomic_load(&quitting) ? "SetSimulationState QUITTING" : sig == SIGINT ? "SIGINT" : "SIGTERM");
    pthread_t second;
    if (!pthread_create(&second, NULL, exit_at_second_signal, NULL))
        pthread_detach(second);
    if (wk_server_shutdown(server)) {
        /* Calls still run, cancelled, in work that does not look at its
         * call; waiting for them would break the bound a supervisor relies
         * on. What was answered is in the store; the rest is left, as a
         * SIGKILL would leave it, without freeing what those calls use. */
        fputs("worldkit: calls still running at the shutdown's end (--shutdown-seconds) are left unanswered\n",
              stderr);
        fflush(stderr);
        _exit(1);
    }
    wk_server_free(server);
    wk_api_free(api);
    return 0;
}
