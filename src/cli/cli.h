/* cli.h — the subcommands of the `worldkit` command. Each takes the
 * arguments after `worldkit` (argv[0] is the subcommand) and returns the
 * process exit status. */
#ifndef WK_CLI_H
#define WK_CLI_H

#include <stdbool.h>

#include "worldkit/wk_sim.h"

int wk_cli_load(int argc, char **argv);
int wk_cli_poses(int argc, char **argv);
int wk_cli_run(int argc, char **argv);
int wk_cli_serve(int argc, char **argv);
/* The gRPC client: `call` and its short forms (call.c, call_short.c). */
int wk_cli_call(int argc, char **argv);
int wk_cli_worlds(int argc, char **argv);
int wk_cli_spawn(int argc, char **argv);
int wk_cli_tf(int argc, char **argv);
int wk_cli_state(int argc, char **argv);
int wk_cli_step(int argc, char **argv);
int wk_cli_levels(int argc, char **argv);
int wk_cli_performer(int argc, char **argv);
int wk_cli_watch(int argc, char **argv);

/* args.c: the arguments' common checks. */
bool wk_cli_is_help(const char *arg); /* --help or -h */
/* Prints "worldkit: " and the formatted reason naming the argument, then
 * "usage: worldkit USAGE", on stderr; returns 2, the status of a mistake. */
int wk_cli_usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The whole of s as a finite number / as a decimal count; false else. */
bool wk_cli_finite(const char *s, double *out);
bool wk_cli_count(const char *s, unsigned long long *out);
/* What wk_rtf_valid takes, for messages. */
#define WK_CLI_RTF_TEXT "0 (as fast as possible) or a real-time factor from 1e-6 to 1e9"
bool wk_cli_rtf(const char *s, double *out);
/* --physics ENGINE: "mujoco" or "none". */
#define WK_CLI_PHYSICS_TEXT "mujoco (dynamics) or none (kinematic motion)"
bool wk_cli_physics(const char *s, wk_physics_engine *out);
/* A HOST:PORT (or unix:PATH) address gRPC can take: not empty, the port,
 * if any, 0 to 65535. False with the reason, naming option, printed. */
bool wk_cli_address_ok(const char *option, const char *addr);

#endif
