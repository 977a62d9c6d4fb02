/* cli_feed.h: a trace file read into a loader, on the machine's cores
 * (issue 21; the protocol is core/import/chrome/chrome_range.h).
 *
 * cli_feed reads an open file into a sink: a loader (load.h), a trace
 * set's open load (traceset.h) or the app's (app.h). An uncompressed
 * Chrome JSON file big enough to pay for it (st_range_plan) is cut into
 * tasks; a pool of worker threads takes them in order, each reading its
 * task's bytes with pread and parsing them (st_chrome_range_parse), while
 * the calling thread applies the results in task order as soon as the next
 * one is ready and frees it. At most 2 x threads tasks are in flight, so
 * memory stays bounded whatever the file's size. A gzip/zlib file whose
 * decoded head is Chrome JSON is inflated by one more thread that cuts the
 * decoded stream into the tasks (cli_feed_gz.c). Anything else (protobuf,
 * a pipe, a small file, --threads 1, no thread could be started) is
 * streamed in 1 MiB reads into the sink's push, as it always was. The
 * model, stats, warnings and errors are the same either way (the core
 * checks every result; a wrong cut only costs time).
 *
 *   cli_feed_opts o = {0};                 // the online cores
 *   cli_sink s = {loader_push, loader_apply, loader_needs_bytes, loader, alloc};
 *   int rc = cli_feed(f, &s, &o, NULL);    // 0, CLI_FEED_READ_ERROR, CLI_FEED_NOMEM
 *
 * Platform code (pthreads, pread, fstat) lives here and in cli_feed.c only.
 */
#ifndef STRATA_CLI_FEED_H
#define STRATA_CLI_FEED_H

#include "base.h"
#include "source.h"

#include <stdint.h>
#include <stdio.h>

#define CLI_THREADS_MAX 64 /* the default's cap, and the most --threads takes */

/* How a file is read. A zeroed struct: the online cores, the core's split. */
typedef struct cli_feed_opts {
  uint32_t threads;    /* 0: the online cores (at most CLI_THREADS_MAX); 1: one thread */
  uint64_t task_bytes; /* 0: st_range_plan's tasks; else tasks of this many bytes even for
                          a small file (for tests: many cut points) */
} cli_feed_opts;

/* Where the bytes go: push for the streamed path, apply for task results
 * (load.h st_loader_apply; bytes NULL when needs_bytes said 0, as
 * st_loader_apply_needs_bytes). alloc (zeroed: realloc/free) holds the
 * tasks' bytes and results; it is called from several threads at once. */
typedef struct cli_sink {
  st_code (*push)(void *ud, const void *data, size_t len);
  st_code (*apply)(void *ud, const void *result, size_t rlen, const void *bytes, size_t blen);
  int (*needs_bytes)(void *ud, const void *result, size_t rlen);
  void *ud;
  st_alloc alloc;
  /* compressed input split: the inflater's outcome, before the sink's
   * finish (load.h st_loader_set_inflated); NULL: compressed files stream */
  void (*inflated)(void *ud, const st_source_info *info, st_code code, const st_error *err);
} cli_sink;

enum { CLI_FEED_READ_ERROR = -1, CLI_FEED_NOMEM = -2 };

/* What a cli_feed did: the worker threads that parsed tasks and the tasks
 * (0 and 0: the file was streamed on the calling thread). */
typedef struct cli_feed_used {
  uint32_t threads, tasks;
} cli_feed_used;

/* Reads the open file f, from its start, into s until its end or the first
 * push/apply that fails (the sink's finish then says why). Returns 0, or
 * CLI_FEED_READ_ERROR / CLI_FEED_NOMEM (the caller says so in one line).
 * f's position is left anywhere (rewind before reading it again). used
 * (may be NULL) says how it was read. */
int cli_feed(FILE *f, const cli_sink *s, const cli_feed_opts *o, cli_feed_used *used);

/* The compressed path (cli_feed_gz.c): 0 or CLI_FEED_*, or 1 if it did
 * not start (not JSON inside, no thread, no sink for the outcome): then
 * nothing was read and f is at its start. */
int cli_feed_gz(FILE *f, const cli_sink *s, uint32_t threads, uint64_t task_bytes,
                cli_feed_used *used);

/* The CLI options that choose o: `--threads N` (1..CLI_THREADS_MAX) and
 * `--task-bytes N` (for tests). If argv[*i] is one of them, consumes it and
 * its value (advancing *i) and returns 1; returns 0 if it is not; -1 after
 * one line `strata: CMD: ...` on stderr for a bad value. */
int cli_feed_opt(int argc, char **argv, int *i, cli_feed_opts *o, const char *cmd);

/* The usage text of those options, for the commands' usage lines. */
#define CLI_FEED_USAGE "[--threads N]"

#endif
