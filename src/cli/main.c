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
