/* cli_stats_many.c: `strata stats A B ... [--json] [--digest] [--load-info] [--threads N]`,
 * a whole profile.
 *
 * The files are loaded one after another into a trace set
 * (core/set/traceset.h), each into its own model (all of them stay in
 * memory, as in the page), then named and placed on one timeline as the
 * page places them. --json prints one object: the totals of the per-file
 * stats (st_traceset_totals: every count summed, phases per letter, warnings
 * merged by kind with the first file's offset, ts_min_us / ts_max_us the
 * extremes as written in the files, format the common one or "mixed",
 * compressed if any was, load_ms the sum of the loads, heap_bytes the
 * peak of all the loads together: each model stays while the next file
 * loads), plus
 *   "files": N, "wall_ms": the whole command's time,
 *   "traces": [ each file's own stats object, exactly what `strata stats
 *     FILE --json` prints (with --load-info: load_threads and load_tasks,
 *     not the rest), plus "file", "group" (host / rank / file name,
 *     unique), "group_source" ("hostname" | "rank" | "file" | "none"),
 *     "clock" ("epoch" | "machine" | "none"), "start_ns" (absolute start,
 *     null without a clock), "offset_us" (its t = 0 on the shared
 *     timeline) and, with --digest, "model_sha256" (st_trace_digest) ].
 * Without --json, one line per file and the totals. Exit 1 if a file cannot
 * be loaded (after its one-line message).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The JSON text of one stats object, without its closing brace. */
static char *stats_open_json(const st_stats *s) {
  size_t need = st_stats_json(s, NULL, 0) + 1;
  char *out = malloc(need);
  if (!out) return NULL;
  st_stats_json(s, out, need);
  size_t n = strlen(out);
  if (n && out[n - 1] == '}') out[n - 1] = 0;
  return out;
}

int strata_cmd_stats_many(const char *const *files, int n, const cli_stats_opts *o) {
  int json = o->json, digest = o->digest;
  double t0 = cli_now_ms();
  cli_set cs;
  if (cli_set_load(&cs, files, (uint32_t)n, 1, &o->feed)) {
    cli_set_free(&cs);
    return 1;
  }
  st_stats sum;
  st_traceset_totals(cs.set, &sum);
  sum.heap_bytes = cs.total.peak;
  double wall_ms = cli_now_ms() - t0;
  if (json) {
    char *head = stats_open_json(&sum);
    printf("%s,\"files\":%d,\"wall_ms\":%.3f,\"traces\":[", head ? head : "{", n, wall_ms);
    free(head);
    for (int i = 0; i < n; i++) {
      st_traceset_file f = cli_set_file(&cs, (uint32_t)i);
      char *own = stats_open_json(f.stats);
      printf("%s%s,\"file\":", i ? "," : "", own ? own : "{");
      free(own);
      cli_print_json_str(files[i], strlen(files[i]));
      printf(",\"group\":");
      cli_print_json_str(f.group, strlen(f.group));
      printf(",\"group_source\":\"%s\",\"clock\":\"%s\",\"start_ns\":",
             st_group_source_name(f.group_source), st_clock_kind_name(f.clock.kind));
      if (f.clock.kind == ST_CLOCK_NONE)
        printf("null");
      else
        printf("%lld", (long long)f.clock.start_ns);
      if (o->load_info)
        printf(",\"load_threads\":%u,\"load_tasks\":%u", cs.used[i].threads, cs.used[i].tasks);
      printf(",\"offset_us\":");
      cli_print_us(f.offset_ns);
      if (digest) {
        char hex[65];
        cli_trace_digest_hex(f.trace, hex);
        printf(",\"model_sha256\":\"%s\"", hex);
      }
      printf("}");
    }
    printf("]}\n");
  } else {
    for (int i = 0; i < n; i++) {
      st_traceset_file f = cli_set_file(&cs, (uint32_t)i);
      printf("%-24s %-10s %12llu events  offset %14.3f us  load %9.3f ms  %s\n", f.group,
             f.stats->format, (unsigned long long)f.stats->events, (double)f.offset_ns / 1000.0,
             f.stats->load_ms, files[i]);
      if (digest) {
        char hex[65];
        cli_trace_digest_hex(f.trace, hex);
        printf("%-24s model sha256 %s\n", "", hex);
      }
    }
    printf("total: %d files, %llu events, %llu slices, %llu flows, load %.3f ms (wall %.3f "
           "ms), peak heap %llu bytes\n",
           n, (unsigned long long)sum.events, (unsigned long long)sum.slices,
           (unsigned long long)sum.flows, sum.load_ms, wall_ms, (unsigned long long)sum.heap_bytes);
  }
  cli_set_warn_damaged(&cs);
  cli_set_free(&cs);
  return 0;
}
