/* strata_cli.c: the `strata` command line (DESIGN.md contract 1).
 *
 *   strata stats FILE [--json] [--digest] [--load-info] [--threads N] [--task-bytes N]
 *   strata stats A B ... [--json]   (a profile: tools/cli/cli_stats_many.c)
 *   strata diff A B ...             (two runs compared: tools/cli/cli_diff.c)
 *   strata view FILE...             (a native window: tools/cli/cli_view.c, native/)
 *   strata analyze FILE...          (answers: tools/cli/cli_analyze.c)
 *   strata index FILE / window FILE (streaming mode: tools/cli/cli_index.c, cli_window.c)
 *   strata manifest DIR ...         (a profile's files listed: tools/cli/cli_manifest.c)
 *   strata mcp                      (the MCP server: tools/cli/cli_mcp.c)
 *
 * Reads FILE into the core's loader on --threads threads (default: the
 * cores; tools/cli/cli_feed.h) or streamed in 1 MiB chunks, timing the
 * load with CLOCK_MONOTONIC and measuring the peak heap through a counting
 * allocator handed to the loader (and the threads). --digest adds the
 * model's SHA-256 (st_trace_digest; JSON: "model_sha256"): two loads built
 * the same model iff they print the same digest. --load-info adds how the
 * file was read: load_threads, load_tasks, load_split_bytes (the bytes
 * whose events the threads parsed), load_cpu_ms and load_main_cpu_ms (the
 * CPU time of the process and of the main thread during the load); without
 * it the JSON is the page's stats() (DESIGN.md). --task-bytes N (for tests)
 * cuts even a small file into tasks of N bytes. On a file it cannot
 * read it prints one line, `strata: FILE: <what> (at byte N[, line L,
 * column C])`, and exits 1. A trace damaged part-way still prints its
 * statistics, plus a one-line warning on stderr, and exits 0.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "load.h"
#include "stats.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(FILE *f, int code) {
  fprintf(
      f, "usage: strata stats FILE [--json] [--digest] [--load-info]\n"
         "       strata stats A B ... [--json] [--digest] [--load-info]   (many files: one "
         "timeline)\n"
         "       strata diff A B [--by name|cat] [--json] [--range-a T0,T1] [--range-b T0,T1]\n"
         "                   [--step N] [--sort COL] [--asc] [--limit N] [--wide]\n"
         "                   [--fail-on-regression]   (exit 3 on a significant regression)\n"
         "       strata analyze FILE... [--json] [--wide] [--step-name NAME] [--ops N] [--gaps N]\n"
         "                   [--from US --to US | --step N] [--hist NAME]\n"
         "       strata bench FILE [--json] [--passes N] [--frames]\n"
         "       strata args FILE [--at SRC]... [--name TEXT] [--limit N]\n"
         "       strata search FILE TEXT [--args] [--json] [--limit N]\n"
         "       strata flame FILE... [--from US] [--to US] [--tid N [--pid N] [--file K]] "
         "[--slices]\n"
         "                   [--min-share F] [--json]   (many files: merged, stacks by name)\n"
         "       strata export FILE -o REPORT.html   (or --viewer-only -o VIEWER.html)\n"
         "       strata view FILE... [--screenshot OUT.png] [--size WxH]   (a native window)\n"
         "       strata index FILE [-o OUT.stx] [--json]   (streaming mode's index file)\n"
         "       strata window FILE [--index FILE.stx] --from US --to US [--json] [--events]\n"
         "       strata manifest DIR [-o profile.json] [--json]   (a profile's files, for the "
         "page)\n"
         "       strata mcp   (a Model Context Protocol server on stdin/stdout)\n"
         "FILE: Chrome trace JSON (.json, .json.gz), XProf .xplane.pb or a Perfetto\n"
         "protobuf trace, compressed or not (the format is read from the content).\n"
         "Every command reading trace files takes --threads N: the threads a big\n"
         "uncompressed JSON file is read on (default: the cores; 1: one thread).\n");
  return code;
}

static const st_warning *find_warning(const st_stats *s, const char *kind) {
  for (uint32_t i = 0; i < s->warning_count; i++)
    if (strcmp(s->warnings[i].kind, kind) == 0) return &s->warnings[i];
  return NULL;
}

static void print_text(const char *file, const st_stats *s, const st_trace *t,
                       const cli_feed_used *used, uint64_t split) {
  printf("file:            %s\n", file);
  printf("format:          %s%s\n", s->format, s->compressed ? " (compressed)" : "");
  printf("bytes:           %llu in, %llu decoded\n", (unsigned long long)s->bytes_in,
         (unsigned long long)s->bytes_decoded);
  printf("events:          %llu\n", (unsigned long long)s->events);
  printf("phases:         ");
  for (int c = 0; c <= 128; c++)
    if (s->phases[c])
      printf(" %s%c=%llu", c == 128 ? "(none)" : "", c == 128 ? ' ' : c,
             (unsigned long long)s->phases[c]);
  printf("\n");
  printf("slices:          %llu\n", (unsigned long long)s->slices);
  printf("instants:        %llu\n", (unsigned long long)s->instants);
  printf("counter samples: %llu\n", (unsigned long long)s->counter_samples);
  printf("async slices:    %llu\n", (unsigned long long)s->async_slices);
  printf("flows:           %llu\n", (unsigned long long)s->flows);
  printf("samples:         %llu (%llu stack frames)\n", (unsigned long long)s->samples,
         (unsigned long long)s->stack_frames);
  printf("processes:       %llu\n", (unsigned long long)s->processes);
  printf("threads:         %llu\n", (unsigned long long)s->threads);
  /* the JSON writer's exact decimals for the time range (json_out.h) */
  char t0[40] = "null", t1[40] = "null";
  if (s->has_ts) {
    st_jout a = {.buf = t0, .cap = sizeof t0}, b = {.buf = t1, .cap = sizeof t1};
    st_jout_us(&a, s->ts_min_ns);
    st_jout_us(&b, s->ts_max_ns);
    st_jout_end(&a);
    st_jout_end(&b);
  }
  printf("time range (us): %s .. %s\n", t0, t1);
  for (uint32_t i = 0; i < s->warning_count; i++)
    printf("warning:         %s x%llu (first at byte %llu)\n", s->warnings[i].kind,
           (unsigned long long)s->warnings[i].count,
           (unsigned long long)s->warnings[i].first_offset);
  if (t) {
    uint32_t np, nt;
    st_trace_processes(t, &np);
    st_trace_tracks(t, &nt);
    printf("model:           %u processes, %u tracks, %llu bytes\n", np, nt,
           (unsigned long long)st_trace_bytes(t));
  }
  printf("load:            %.3f ms, peak heap %llu bytes", s->load_ms,
         (unsigned long long)s->heap_bytes);
  if (used->tasks)
    printf(", %u threads (%u tasks, %.1f%% of the bytes parsed by them)", used->threads,
           used->tasks, s->bytes_decoded ? 100.0 * (double)split / (double)s->bytes_decoded : 0.0);
  printf("\n");
}

static int cmd_stats(const char *file, const cli_stats_opts *o) {
  cli_heap heap = {0, 0, NULL};
  st_trace *t = NULL;
  st_error err;
  double load_ms = 0;
  cli_feed_used used;
  double cpu0 = cli_clock_ms(CLOCK_PROCESS_CPUTIME_ID),
         main0 = cli_clock_ms(CLOCK_THREAD_CPUTIME_ID);
  st_loader *l = cli_load_timed(file, &o->feed, &used, &heap, &t, &err, &load_ms);
  double cpu = cli_clock_ms(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  double main_cpu = cli_clock_ms(CLOCK_THREAD_CPUTIME_ID) - main0;
  if (!l) return 1;
  st_stats s = *st_loader_stats(l);
  s.load_ms = load_ms;
  s.heap_bytes = heap.peak;

  char line[512], hex[65];
  if (o->digest) cli_trace_digest_hex(t, hex);
  if (o->json) {
    size_t need = st_stats_json(&s, NULL, 0) + 1;
    char *out = malloc(need);
    if (out) {
      st_stats_json(&s, out, need);
      size_t n = strlen(out);
      if (n && out[n - 1] == '}') out[n - 1] = 0;
      printf("%s", out);
      if (o->load_info)
        printf(",\"load_threads\":%u,\"load_tasks\":%u,\"load_split_bytes\":%llu,"
               "\"load_cpu_ms\":%.3f,\"load_main_cpu_ms\":%.3f",
               used.threads, used.tasks, (unsigned long long)st_loader_split_bytes(l), cpu,
               main_cpu);
      if (o->digest) printf(",\"model_sha256\":\"%s\"", hex);
      printf("}\n");
      free(out);
    }
  } else {
    print_text(file, &s, t, &used, st_loader_split_bytes(l));
    if (o->digest) printf("model sha256:    %s\n", hex);
  }
  if (err.code != ST_OK) {
    st_load_error_line(&err, NULL, line, sizeof line);
    fprintf(stderr, "strata: %s: warning: %s; kept what was read before it\n", file, line);
  } else {
    const st_warning *w = find_warning(&s, "truncated");
    if (w)
      fprintf(stderr,
              "strata: %s: warning: truncated trace: the event list ends without ']' (at byte "
              "%llu); complete events kept\n",
              file, (unsigned long long)w->first_offset);
  }
  st_trace_destroy(t);
  st_loader_destroy(l);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage(stderr, 2);
  if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
    return usage(stdout, 0);
  if (strcmp(argv[1], "bench") == 0) return strata_cmd_bench(argc, argv);
  if (strcmp(argv[1], "export") == 0) return strata_cmd_export(argc, argv);
  if (strcmp(argv[1], "args") == 0) return strata_cmd_args(argc, argv);
  if (strcmp(argv[1], "search") == 0) return strata_cmd_search(argc, argv);
  if (strcmp(argv[1], "flame") == 0) return strata_cmd_flame(argc, argv);
  if (strcmp(argv[1], "diff") == 0) return strata_cmd_diff(argc, argv);
  if (strcmp(argv[1], "view") == 0) return strata_cmd_view(argc, argv);
  if (strcmp(argv[1], "analyze") == 0) return strata_cmd_analyze(argc, argv);
  if (strcmp(argv[1], "index") == 0) return strata_cmd_index(argc, argv);
  if (strcmp(argv[1], "window") == 0) return strata_cmd_window(argc, argv);
  if (strcmp(argv[1], "manifest") == 0) return strata_cmd_manifest(argc, argv);
  if (strcmp(argv[1], "mcp") == 0) return strata_cmd_mcp(argc, argv);
  if (strcmp(argv[1], "stats") == 0) {
    const char **files = malloc((size_t)argc * sizeof *files);
    if (!files) return 1;
    int nfiles = 0, rc = 2;
    cli_stats_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 2; i < argc; i++) {
      int r = cli_feed_opt(argc, argv, &i, &o.feed, "stats");
      if (r < 0) return free(files), 2; /* after its one line */
      if (r) continue;
      if (strcmp(argv[i], "--json") == 0)
        o.json = 1;
      else if (strcmp(argv[i], "--digest") == 0)
        o.digest = 1;
      else if (strcmp(argv[i], "--load-info") == 0)
        o.load_info = 1;
      else if (argv[i][0] == '-' && argv[i][1])
        goto done;
      else
        files[nfiles++] = argv[i];
    }
    if (nfiles > 1)
      rc = strata_cmd_stats_many(files, nfiles, &o);
    else if (nfiles == 1)
      rc = cmd_stats(files[0], &o);
  done:
    free(files);
    return rc == 2 ? usage(stderr, 2) : rc;
  }
  return usage(stderr, 2);
}
