/* cli.h — the subcommands of the `worldkit` command. Each takes the
 * arguments after `worldkit` (argv[0] is the subcommand) and returns the
 * process exit status. */
#ifndef WK_CLI_H
#define WK_CLI_H

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

#endif
