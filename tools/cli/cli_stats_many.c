/* cli_stats_many.c: `strata stats A B ... [--json]`, a whole profile.
 *
 * The files are loaded one after another, each into its own model (all of
 * them stay in memory, as in the page), then named and placed on one
 * timeline with core/index/profile.h. --json prints one object: the totals of
 * the per-file stats (every count summed, phases per letter, warnings
 * merged by kind with the first file's offset, ts_min_us / ts_max_us the
 * extremes as written in the files, format the common one or "mixed",
 * compressed if any was, load_ms the sum of the loads, heap_bytes the
 * peak of all the loads together: each model stays while the next file
 * loads), plus
 *   "files": N, "wall_ms": the whole command's time,
 *   "traces": [ each file's own stats object, exactly what `strata stats
 *     FILE --json` prints, plus "file", "group" (host / rank / file name,
 *     unique), "group_source" ("hostname" | "rank" | "file" | "none"),
 *     "clock" ("epoch" | "machine" | "none"), "start_ns" (absolute start,
 *     null without a clock) and "offset_us" (its t = 0 on the shared
 *     timeline) ].
 * Without --json, one line per file and the totals. Exit 1 if a file cannot
 * be loaded (after its one-line message).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include "profile.h"
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CAP 256

static const char *const source_names[] = {"hostname", "rank", "file", "none"};
static const char *const clock_names[] = {"none", "epoch", "machine"};

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

static void json_string(const char *s) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      printf("\\%c", *p);
    else if (*p < 0x20)
      printf("\\u%04x", *p);
    else
      putchar(*p);
  }
  putchar('"');
}

/* ns -> exact decimal microseconds */
static void print_us(int64_t ns) {
  uint64_t m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  char f[8];
  snprintf(f, sizeof f, "%03u", (unsigned)(m % 1000));
  size_t fl = 3;
  while (fl > 0 && f[fl - 1] == '0') fl--;
  f[fl] = 0;
  printf("%s%llu%s%s", ns < 0 ? "-" : "", (unsigned long long)(m / 1000), fl ? "." : "", f);
}

static void sum_stats(st_stats *sum, const st_stats *s, int first) {
  if (first) {
    *sum = *s;
    sum->warning_count = 0;
    sum->load_ms = 0;
  } else {
    if (strcmp(sum->format ? sum->format : "", s->format ? s->format : "") != 0)
      sum->format = "mixed";
    sum->compressed |= s->compressed;
    sum->bytes_in += s->bytes_in;
    sum->bytes_decoded += s->bytes_decoded;
    sum->events += s->events;
    for (int c = 0; c < 129; c++) sum->phases[c] += s->phases[c];
    sum->phases_other += s->phases_other;
    sum->slices += s->slices;
    sum->instants += s->instants;
    sum->counter_samples += s->counter_samples;
    sum->async_slices += s->async_slices;
    sum->flows += s->flows;
    sum->processes += s->processes;
    sum->threads += s->threads;
    if (s->has_ts) {
      if (!sum->has_ts || s->ts_min_ns < sum->ts_min_ns) sum->ts_min_ns = s->ts_min_ns;
      if (!sum->has_ts || s->ts_max_ns > sum->ts_max_ns) sum->ts_max_ns = s->ts_max_ns;
      sum->has_ts = 1;
    }
  }
  for (uint32_t i = 0; i < s->warning_count; i++)
    st_stats_warn_n(sum, s->warnings[i].kind, s->warnings[i].first_offset, s->warnings[i].count);
  sum->load_ms += s->load_ms;
}

int strata_cmd_stats_many(const char *const *files, int n, int json) {
  double t0 = cli_now_ms();
  cli_heap total = {0, 0, NULL};
  cli_heap *heaps = calloc((size_t)n, sizeof *heaps);
  cli_loaded *ld = calloc((size_t)n, sizeof *ld);
  st_profile_file *pf = calloc((size_t)n, sizeof *pf);
  st_profile_clock *clocks = calloc((size_t)n, sizeof *clocks);
  int64_t *offsets = calloc((size_t)n, sizeof *offsets);
  char *names = calloc((size_t)n, NAME_CAP);
  int rc = 0;
  if (!heaps || !ld || !pf || !clocks || !offsets || !names) {
    fprintf(stderr, "strata: out of memory\n");
    rc = 1;
  }
  /* one after another, each into its own model */
  for (int i = 0; i < n && rc == 0; i++) {
    heaps[i].parent = &total;
    if (cli_load_file(files[i], &heaps[i], &ld[i]) != 0) rc = 1;
  }
  if (rc == 0) {
    for (int i = 0; i < n; i++) {
      pf[i] = (st_profile_file){ld[i].trace, ld[i].stats.format, ld[i].metadata_json, files[i]};
      st_profile_clock_get(&pf[i], &clocks[i]);
    }
    if (st_profile_group_names(NULL, pf, (size_t)n, names, NAME_CAP) != ST_OK ||
        st_profile_initial_offsets(clocks, (size_t)n, offsets) != ST_OK) {
      fprintf(stderr, "strata: out of memory\n");
      rc = 1;
    }
  }
  if (rc == 0) {
    st_stats sum;
    memset(&sum, 0, sizeof sum);
    for (int i = 0; i < n; i++) sum_stats(&sum, &ld[i].stats, i == 0);
    sum.heap_bytes = total.peak;
    double wall_ms = cli_now_ms() - t0;
    if (json) {
      char *head = stats_open_json(&sum);
      printf("%s,\"files\":%d,\"wall_ms\":%.3f,\"traces\":[", head ? head : "{", n, wall_ms);
      free(head);
      for (int i = 0; i < n; i++) {
        char *own = stats_open_json(&ld[i].stats);
        st_group_source src;
        st_profile_group_name(&pf[i], NULL, 0, &src);
        printf("%s%s,\"file\":", i ? "," : "", own ? own : "{");
        free(own);
        json_string(files[i]);
        printf(",\"group\":");
        json_string(names + (size_t)i * NAME_CAP);
        printf(",\"group_source\":\"%s\",\"clock\":\"%s\",\"start_ns\":", source_names[src],
               clock_names[clocks[i].kind]);
        if (clocks[i].kind == ST_CLOCK_NONE)
          printf("null");
        else
          printf("%lld", (long long)clocks[i].start_ns);
        printf(",\"offset_us\":");
        print_us(offsets[i]);
        printf("}");
      }
      printf("]}\n");
    } else {
      for (int i = 0; i < n; i++)
        printf("%-24s %-10s %12llu events  offset %14.3f us  load %9.3f ms  %s\n",
               names + (size_t)i * NAME_CAP, ld[i].stats.format,
               (unsigned long long)ld[i].stats.events, (double)offsets[i] / 1000.0,
               ld[i].stats.load_ms, files[i]);
      printf("total: %d files, %llu events, %llu slices, %llu flows, load %.3f ms (wall %.3f "
             "ms), peak heap %llu bytes\n",
             n, (unsigned long long)sum.events, (unsigned long long)sum.slices,
             (unsigned long long)sum.flows, sum.load_ms, wall_ms,
             (unsigned long long)sum.heap_bytes);
    }
    for (int i = 0; i < n; i++) cli_warn_damaged(&ld[i]);
  }
  for (int i = 0; ld && i < n; i++) cli_loaded_free(&ld[i]);
  free(heaps);
  free(ld);
  free(pf);
  free(clocks);
  free(offsets);
  free(names);
  return rc;
}
