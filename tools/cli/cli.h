/* cli.h: commands of the `strata` CLI that live in their own file
 * (tools/cli_<command>.c); tools/cli/strata_cli.c's main() dispatches to them.
 * Each takes the arguments after the command name's position as main() got
 * them (argv[0] = "strata", argv[1] = the command) and returns the exit code. */
#ifndef STRATA_CLI_H
#define STRATA_CLI_H

#include "load.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* strata bench FILE [--json] [--passes N] [--frames]: see tools/cli/cli_bench.c */
int strata_cmd_bench(int argc, char **argv);

/* strata export TRACE -o OUT.html [--dist DIR] [--name NAME]: see tools/cli/cli_export.c */
int strata_cmd_export(int argc, char **argv);
/* strata args FILE [--at SRC]... [--name TEXT] [--limit N]: see tools/cli/cli_args.c */
int strata_cmd_args(int argc, char **argv);
/* strata flame FILE... [--from US] [--to US] [--tid N [--pid N] [--file K]] [--slices]
 * [--min-share F] [--json]: see tools/cli/cli_flame.c */
int strata_cmd_flame(int argc, char **argv);
/* strata search FILE TEXT [--args] [--json] [--limit N]: see tools/cli/cli_search.c */
int strata_cmd_search(int argc, char **argv);
/* strata diff A B [--by name|cat] [--json] [--range-a T0,T1] [--range-b T0,T1] [--step N]
 * [--sort COL] [--asc] [--limit N]: see tools/cli/cli_diff.c */
int strata_cmd_diff(int argc, char **argv);
/* strata view FILE... [--screenshot OUT.png] [--size WxH] [--frame-json OUT.json]: the
 * viewer in a native window, see tools/cli/cli_view.c and native/native.h */
int strata_cmd_view(int argc, char **argv);
/* strata stats A B ... [--json]: see tools/cli/cli_stats_many.c (files = argv
 * entries that are not options; json = --json given) */
int strata_cmd_stats_many(const char *const *files, int n, int json);

/* ---- loading a trace file (tools/cli/cli_load.c) ----------------------------- */

/* A heap counter for cli_counting_alloc (an st_alloc function; ud = the
 * cli_heap): current and peak bytes in use. */
typedef struct cli_heap {
  size_t current, peak;
  struct cli_heap *parent; /* NULL, or a heap counting several loads together */
} cli_heap;
void *cli_counting_alloc(void *ud, void *ptr, size_t size);

/* CLOCK_MONOTONIC in milliseconds. */
double cli_now_ms(void);

/* Opens FILE and streams it in 1 MiB reads into a loader allocating through
 * cli_counting_alloc(heap); *load_ms is the wall time from creating the
 * loader to st_loader_finish. Returns the finished loader (its stats stay
 * valid until the caller destroys it) with *out the trace and *err the
 * finish status (not ST_OK for a trace damaged part-way: what was read is
 * kept); or NULL after one `strata: FILE: ...` line on stderr (cannot open,
 * out of memory, read error, no trace). */
st_loader *cli_load_timed(const char *file, cli_heap *heap, st_trace **out, st_error *err,
                          double *load_ms);
/* The same, interning names into `strings` (NULL: the trace's own table),
 * so that several files loaded so can be merged (trace.h st_trace_merge). */
st_loader *cli_load_timed_in(const char *file, cli_heap *heap, st_strtab *strings, st_trace **out,
                             st_error *err, double *load_ms);

/* Streams the open file f (named `file`) through buf[cap] into a default
 * loader until EOF; f stays open. Returns the finished loader with *out the
 * trace, or NULL after one `strata: ...` line on stderr. */
st_loader *cli_load_stream(FILE *f, const char *file, uint8_t *buf, size_t cap, st_trace **out,
                           st_error *err);

/* A loaded file, without its loader: the trace, the stats (load_ms and
 * heap_bytes set) and a copy of the top-level metadata JSON. */
typedef struct cli_loaded {
  const char *file;
  st_trace *trace;
  st_stats stats;
  char *metadata_json; /* malloc'd; "{}" if none */
  st_error err;        /* finish status: not ST_OK for a trace damaged part-way */
} cli_loaded;

/* cli_load_timed into *out, the loader destroyed; heap counts it (heap->parent
 * too). Returns 0, or 1 after the one-line message on stderr. */
int cli_load_file(const char *file, cli_heap *heap, cli_loaded *out);
void cli_loaded_free(cli_loaded *l);
/* The warning line `strata stats` prints for a trace damaged part-way or
 * truncated (nothing otherwise). */
void cli_warn_damaged(const cli_loaded *l);

#endif
