/* cli.h: commands of the `strata` CLI that live in their own file
 * (tools/cli_<command>.c); tools/strata_cli.c's main() dispatches to them.
 * Each takes the arguments after the command name's position as main() got
 * them (argv[0] = "strata", argv[1] = the command) and returns the exit code. */
#ifndef STRATA_CLI_H
#define STRATA_CLI_H

/* strata bench FILE [--json] [--passes N] [--frames]: see tools/cli_bench.c */
int strata_cmd_bench(int argc, char **argv);

/* strata export TRACE -o OUT.html [--dist DIR] [--name NAME]: see tools/cli_export.c */
int strata_cmd_export(int argc, char **argv);
/* strata args FILE [--at SRC]... [--name TEXT] [--limit N]: see tools/cli_args.c */
int strata_cmd_args(int argc, char **argv);
/* strata search FILE TEXT [--args] [--json] [--limit N]: see tools/cli_search.c */
int strata_cmd_search(int argc, char **argv);

#endif
