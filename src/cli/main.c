/* main.c — the `worldkit` command: a table of subcommands and a dispatcher. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct command {
    const char *name;
    const char *usage;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"load", "load FILE [--fail-on-unsupported] [--ignore-missing-assets]\n"
             "                       read a world; print its tree and diagnostics", wk_cli_load},
    {"poses", "poses FILE [...]      print the world pose of every model, link, joint, frame, visual, collision",
     wk_cli_poses},
    {"run", "run WORLD [--levels] [--steps N] [--rtf X] [--velocity NAME vx vy vz] [--performer NAME]\n"
            "                       run the simulation loop, printing level and entity events", wk_cli_run},
    {"serve", "serve [--listen ADDR] [--world FILE] [--levels] [--data DIR] [--verbose] [...]\n"
              "                       serve the services over gRPC until SIGINT or SIGTERM (serve --help)", wk_cli_serve},
    {"call", "call [--server HOST:PORT] [--timeout SECONDS] METHOD [JSON|-]\n"
             "                       call any RPC: the request in proto3 JSON, each response printed as JSON\n"
             "                       (call --list: the methods; --server defaults to $WORLDKIT_SERVER, then\n"
             "                       127.0.0.1:50051; for a secured server: --token-file FILE, --tls,\n"
             "                       --tls-ca FILE, --tls-cert FILE --tls-key FILE; the short forms below\n"
             "                       take these and --server and --timeout too)",
     wk_cli_call},
    {"worlds", "worlds                list the worlds (ObjectWorldService/ListWorlds)", wk_cli_worlds},
    {"spawn", "spawn FILE [--name N] [--pose x y z roll pitch yaw]\n"
              "                       spawn the model of FILE (SimulationInterfaces/SpawnEntities)", wk_cli_spawn},
    {"tf", "tf A B [--world ID]   the pose of B in A; A, B: OBJECT or OBJECT/FRAME (GetTransform)", wk_cli_tf},
    {"state", "state [playing|paused|stopped]\n"
              "                       get or set the simulation state", wk_cli_state},
    {"step", "step N                step a paused simulation N times (StepSimulation)", wk_cli_step},
};

static int usage(FILE *to)
{
    fprintf(to, "usage: worldkit <command> [args]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(to, "  %s\n", commands[i].usage);
    return to == stderr ? 2 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return usage(stdout);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "worldkit: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
