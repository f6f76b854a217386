/* main.c — the `worldkit` command: a table of subcommands and a dispatcher. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "client.h"

enum {
    TAKES_CLIENT_OPTIONS = 1, /* WK_CLIENT_USAGE */
    OWN_HELP = 2,             /* prints its own --help */
};

static const struct command {
    const char *name;
    const char *usage;
    int (*run)(int argc, char **argv);
    unsigned flags; /* TAKES_CLIENT_OPTIONS, OWN_HELP */
} commands[] = {
    {"load", "load FILE [--fail-on-unsupported] [--ignore-missing-assets]\n"
             "                       read a world; print its tree and diagnostics", wk_cli_load, 0},
    {"poses", "poses FILE [--fail-on-unsupported] [--ignore-missing-assets]\n"
              "                       print the world pose of every model, link, joint, frame, visual, collision",
     wk_cli_poses, 0},
    {"run", "run WORLD [--levels] [--steps N] [--rtf X] [--velocity NAME vx vy vz] [--performer NAME]\n"
            "                       run the simulation loop, printing level and entity events; it stops\n"
            "                       after N steps, 1,000 unless --steps says", wk_cli_run, 0},
    {"serve", "serve [--listen ADDR] [--world FILE] [--levels] [--data DIR] [--verbose] [...]\n"
              "                       serve the services over gRPC until SIGINT or SIGTERM (serve --help)",
     wk_cli_serve, OWN_HELP},
    {"call", "call [--server HOST:PORT] [--timeout SECONDS] METHOD [JSON|-]\n"
             "                       call any RPC: the request in proto3 JSON, each response printed as JSON\n"
             "                       (call --list: the methods; --server defaults to $WORLDKIT_SERVER, then\n"
             "                       127.0.0.1:50051; for a secured server: --token-file FILE, --tls,\n"
             "                       --tls-ca FILE, --tls-cert FILE --tls-key FILE; the short forms below\n"
             "                       take these and --server and --timeout too)",
     wk_cli_call, TAKES_CLIENT_OPTIONS},
    {"worlds", "worlds                list the worlds (ObjectWorldService/ListWorlds)", wk_cli_worlds,
     TAKES_CLIENT_OPTIONS},
    {"spawn", "spawn FILE [--name N] [--pose x y z roll pitch yaw] [--ignore-missing-assets]\n"
              "                       spawn the model of FILE (SimulationInterfaces/SpawnEntities);\n"
              "                       --pose in metres and radians, as SDFormat's <pose>",
     wk_cli_spawn, TAKES_CLIENT_OPTIONS},
    {"tf", "tf A B [--world ID]   the pose of B in A; A, B: OBJECT or OBJECT/FRAME; ID defaults to 'world'\n"
           "                       (ObjectWorldService/GetTransform)",
     wk_cli_tf, TAKES_CLIENT_OPTIONS},
    {"state", "state [playing|paused|stopped]\n"
              "                       get or set the simulation state", wk_cli_state, TAKES_CLIENT_OPTIONS},
    {"step", "step N                step a paused simulation N times (StepSimulation)", wk_cli_step,
     TAKES_CLIENT_OPTIONS},
    {"levels", "levels                list the levels: box, buffer, loaded or not, entities (worldkit.Levels)",
     wk_cli_levels, TAKES_CLIENT_OPTIONS},
    {"performer", "performer NAME        make entity NAME a performer, which loads the levels it nears\n"
                  "                       (worldkit.Levels/SetPerformer; serve --levels)",
     wk_cli_performer, TAKES_CLIENT_OPTIONS},
    {"watch", "watch [--rate HZ]      follow a world's changes, one JSON object a line: its full state, then\n"
              "                       what changed (worldkit.WorldWatch/Watch; --world ID, --kind NAME)",
     wk_cli_watch, TAKES_CLIENT_OPTIONS},
};

static int usage(FILE *to)
{
    fprintf(to, "usage: worldkit <command> [args]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(to, "  %s\n", commands[i].usage);
    return to == stderr ? 2 : 0;
}

/* `worldkit COMMAND ... --help`: the command's usage on stdout. */
static int command_help(const struct command *c)
{
    printf("usage: worldkit %s\n", c->usage);
    if (c->flags & TAKES_CLIENT_OPTIONS)
        printf("client options: " WK_CLIENT_USAGE "\n");
    return 0;
}

static bool asks_help(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (wk_cli_is_help(argv[i]))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (!strcmp(argv[1], "help") || wk_cli_is_help(argv[1]))
        return usage(stdout);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return asks_help(argc, argv) && !(commands[i].flags & OWN_HELP) ? command_help(&commands[i])
                                                                  : commands[i].run(argc - 1, argv + 1);
    if (argv[1][0] == '-')
        fprintf(stderr, "worldkit: '%s': options go after the command (worldkit --help lists the commands)\n",
                argv[1]);
    else
        fprintf(stderr, "worldkit: unknown command '%s' (worldkit --help lists the commands)\n", argv[1]);
    return 2;
}
