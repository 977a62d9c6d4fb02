/* cli_bench.c: `strata bench FILE [--json] [--passes N] [--frames] [--threads N]`
 * (DESIGN.md contract 1). --frames prints every frame's time and sizes to
 * stderr.
 *
 * Loads FILE the way `strata stats` does (cli_load_timed: on --threads
 * threads, default the cores, CLOCK_MONOTONIC around it, peak heap through
 * a counting allocator), builds the lod and the layout (timed), then replays the fixed
 * navigation script of core/app/bench_script.h at 1920x1080, dpr 1, through
 * st_draw_frame with a fixed-width fake font, `passes` times (default 3;
 * every frame of every pass counts, the first pass included), timing each
 * st_draw_frame call.
 *
 * --json prints one object:
 *   file, bytes_in, bytes_decoded, events (in the model: slices, instants,
 *   counter samples), events_read (trace events in the file), load_ms,
 *   import_mb_per_s (decoded MB / load_ms), heap_peak_bytes (during the
 *   load), model_bytes (st_trace_bytes: columns + interned strings),
 *   model_bytes_per_event, lod_build_ms, lod_bytes, lod_bytes_per_event,
 *   lod_build_pct_of_load, layout_ms, rows, frames, passes, frame_ms_p50,
 *   frame_ms_p99, frame_ms_max, frame_ms_mean (wall clock), frame_cpu_ms_p50,
 *   frame_cpu_ms_p99, frame_cpu_ms_max (thread CPU time), rects_max, glyphs_max,
 *   lines_max, visible_rows_max, columns (timeline pixel columns),
 *   rects_per_column_row_max (max over frames of rects / (columns x visible
 *   rows); every rect of the frame counts, gutter and axis included),
 *   busiest_us (centre of the 1 us window), p99_by_kind {full, zoom_in, pan, scroll, zoom_out}.
 * p50/p99 are nearest-rank percentiles over all timed frames.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include "bench_script.h"
#include "draw.h"
#include "load.h"
#include "lod.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of this thread: unlike the wall clock it leaves out the time
 * the scheduler gave to other processes, so it is the steadier figure on a
 * shared machine (both are reported). */
static double cpu_ms(void) { return cli_clock_ms(CLOCK_THREAD_CPUTIME_ID); }

/* fixed-width fake font: 7 px advance, ink [0.5, 6.5] x [-9, 2] */
static int fake_glyph(void *ud, uint32_t cp, st_glyph *g) {
  (void)ud;
  *g = (st_glyph){7, 0.5f, -9, 6.5f, 2, 0, 0, 0, 0};
  if (cp == ' ') g->x1 = g->x0; /* blank */
  return 1;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* nearest rank: the smallest value with at least p of the samples <= it */
static double percentile(const double *sorted, size_t n, double p) {
  if (!n) return 0;
  size_t k = (size_t)(p * (double)n + 0.999999);
  if (k < 1) k = 1;
  if (k > n) k = n;
  return sorted[k - 1];
}

static uint32_t visible_rows(const st_layout *lay, const st_view *v) {
  uint32_t n, rows = 0;
  const st_layout_item *items = st_layout_items(lay, &n);
  float top = v->scroll_y, bottom = v->scroll_y + (v->height - ST_VIEW_AXIS_H);
  for (uint32_t i = st_layout_first_at(lay, top); i < n && items[i].y < bottom; i++)
    if (items[i].kind != ST_LAYOUT_SECTION) rows++;
  return rows;
}

static int usage(void) {
  fprintf(stderr, "usage: strata bench FILE [--json] [--passes N] [--frames] " CLI_FEED_USAGE "\n");
  return 2;
}

int strata_cmd_bench(int argc, char **argv) {
  const char *file = NULL;
  int json = 0, dump = 0;
  long passes = 3;
  cli_feed_opts fo = {0};
  for (int i = 2; i < argc; i++) {
    int r = cli_feed_opt(argc, argv, &i, &fo, "bench");
    if (r < 0) return 2;
    if (r) continue;
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--frames") == 0) {
      dump = 1;
    } else if (strcmp(argv[i], "--passes") == 0 && i + 1 < argc) {
      char *end;
      passes = strtol(argv[++i], &end, 10);
      if (*end || passes < 1 || passes > 1000) return usage();
    } else if (!file) {
      file = argv[i];
    } else {
      return usage();
    }
  }
  if (!file) return usage();

  cli_heap heap = {0, 0, NULL};
  st_alloc alloc = {cli_counting_alloc, &heap};
  st_trace *t = NULL;
  st_stats stats;
  double load_ms = 0;
  st_error err;
  st_loader *l = cli_load_timed(file, &fo, NULL, &heap, &t, &err, &load_ms);
  if (!l) return 1;
  stats = *st_loader_stats(l);
  st_loader_destroy(l);
  size_t heap_peak = heap.peak;

  double l0 = cli_now_ms();
  st_lod *lod = st_lod_build(&alloc, t, &err);
  double l1 = cli_now_ms();
  st_layout *lay = lod ? st_layout_create(&alloc, t) : NULL;
  double l2 = cli_now_ms();
  if (!lod || !lay) {
    fprintf(stderr, "strata: %s: out of memory building the index\n", file);
    st_layout_destroy(lay);
    st_lod_destroy(lod);
    st_trace_destroy(t);
    return 1;
  }

  st_bench_step steps[ST_BENCH_FRAMES];
  st_bench_desc bd = {0};
  uint32_t nsteps = st_bench_script(&bd, t, lod, lay, steps, ST_BENCH_FRAMES);
  if (nsteps > ST_BENCH_FRAMES) nsteps = ST_BENCH_FRAMES;
  size_t nframes = (size_t)nsteps * (size_t)passes;
  double *ms = malloc((nframes + 1) * sizeof *ms);
  double *cms = malloc((nframes + 1) * sizeof *cms);
  double *sorted = malloc((nframes + 1) * sizeof *sorted);
  if (!ms || !cms || !sorted) {
    fprintf(stderr, "strata: out of memory\n");
    return 1;
  }
  st_font font = {12, 10, 3, fake_glyph, NULL};
  st_drawlist dl;
  memset(&dl, 0, sizeof dl);
  uint32_t rects_max = 0, glyphs_max = 0, lines_max = 0, rows_max = 0;
  double columns = st_view_timeline_w(&steps[0].view), rcr_max = 0;
  st_code rc = ST_OK;
  for (long p = 0; p < passes && rc == ST_OK; p++) {
    for (uint32_t i = 0; i < nsteps; i++) {
      st_draw_input in = {
          .trace = t, .lod = lod, .layout = lay, .view = &steps[i].view, .font = &font};
      double c0 = cpu_ms(), f0 = cli_now_ms();
      rc = st_draw_frame(&dl, &in, &alloc);
      double f1 = cli_now_ms(), c1 = cpu_ms();
      if (rc != ST_OK) break;
      ms[(size_t)p * nsteps + i] = f1 - f0;
      cms[(size_t)p * nsteps + i] = c1 - c0;
      if (dl.rect_count > rects_max) rects_max = dl.rect_count;
      if (dl.glyph_count > glyphs_max) glyphs_max = dl.glyph_count;
      if (dl.line_count > lines_max) lines_max = dl.line_count;
      uint32_t vr = visible_rows(lay, &steps[i].view);
      if (vr > rows_max) rows_max = vr;
      double rcr = (double)dl.rect_count / (columns * (vr ? vr : 1));
      if (rcr > rcr_max) rcr_max = rcr;
      if (dump)
        fprintf(stderr,
                "frame %ld.%u kind %u zoom %u: %.3f ms (cpu %.3f), %u rects, %u glyphs, %u lines\n",
                p, i, steps[i].kind, steps[i].zoom, f1 - f0, c1 - c0, dl.rect_count, dl.glyph_count,
                dl.line_count);
    }
  }
  if (rc != ST_OK) {
    fprintf(stderr, "strata: %s: drawing failed: %s\n", file, st_code_name(rc));
    return 1;
  }

  /* per step kind p99 (over passes) */
  static const char *kind_names[] = {"full", "zoom_in", "pan", "scroll", "zoom_out"};
  double kind_p99[5] = {0};
  for (int k = 0; k < 5; k++) {
    size_t m = 0;
    for (long p = 0; p < passes; p++)
      for (uint32_t i = 0; i < nsteps; i++)
        if (steps[i].kind == k) sorted[m++] = ms[(size_t)p * nsteps + i];
    qsort(sorted, m, sizeof *sorted, cmp_double);
    kind_p99[k] = percentile(sorted, m, 0.99);
  }
  memcpy(sorted, cms, nframes * sizeof *cms);
  qsort(sorted, nframes, sizeof *sorted, cmp_double);
  double cp50 = percentile(sorted, nframes, 0.5), cp99 = percentile(sorted, nframes, 0.99);
  double cmax = nframes ? sorted[nframes - 1] : 0;
  memcpy(sorted, ms, nframes * sizeof *ms);
  qsort(sorted, nframes, sizeof *sorted, cmp_double);
  double sum = 0;
  for (size_t i = 0; i < nframes; i++) sum += ms[i];
  double p50 = percentile(sorted, nframes, 0.5), p99 = percentile(sorted, nframes, 0.99);
  double fmax = nframes ? sorted[nframes - 1] : 0, mean = nframes ? sum / (double)nframes : 0;

  uint64_t events = st_trace_event_count(t);
  double ev = events ? (double)events : 1;
  size_t model_bytes = st_trace_bytes(t), lod_bytes = st_lod_bytes(lod);
  uint32_t nrows;
  st_trace_rows(t, &nrows);
  double lod_ms = l1 - l0, layout_ms = l2 - l1;
  double mbps = load_ms > 0 ? (double)stats.bytes_decoded / 1e6 / (load_ms / 1e3) : 0;
  /* the centre of the deepest zoom (the busiest point the script found) */
  const st_view *deep = &steps[nsteps > ST_BENCH_ZOOM_STEPS ? ST_BENCH_ZOOM_STEPS : 0].view;
  double busiest = deep->t0_ns + columns / 2 * deep->ns_per_px;

  if (json) {
    printf("{\"file\":");
    cli_print_json_str(file, strlen(file));
    printf(",\"bytes_in\":%llu,\"bytes_decoded\":%llu,\"events\":%llu,\"events_read\":%llu,",
           (unsigned long long)stats.bytes_in, (unsigned long long)stats.bytes_decoded,
           (unsigned long long)events, (unsigned long long)stats.events);
    printf("\"load_ms\":%.3f,\"import_mb_per_s\":%.1f,\"heap_peak_bytes\":%llu,", load_ms, mbps,
           (unsigned long long)heap_peak);
    printf("\"model_bytes\":%llu,\"model_bytes_per_event\":%.2f,", (unsigned long long)model_bytes,
           (double)model_bytes / ev);
    printf("\"lod_build_ms\":%.3f,\"lod_bytes\":%llu,\"lod_bytes_per_event\":%.2f,"
           "\"lod_build_pct_of_load\":%.2f,\"layout_ms\":%.3f,\"rows\":%u,",
           lod_ms, (unsigned long long)lod_bytes, (double)lod_bytes / ev,
           load_ms > 0 ? 100.0 * lod_ms / load_ms : 0, layout_ms, nrows);
    printf("\"frames\":%zu,\"passes\":%ld,\"frame_ms_p50\":%.4f,\"frame_ms_p99\":%.4f,"
           "\"frame_ms_max\":%.4f,\"frame_ms_mean\":%.4f,",
           nframes, passes, p50, p99, fmax, mean);
    printf("\"frame_cpu_ms_p50\":%.4f,\"frame_cpu_ms_p99\":%.4f,\"frame_cpu_ms_max\":%.4f,", cp50,
           cp99, cmax);
    printf("\"rects_max\":%u,\"glyphs_max\":%u,\"lines_max\":%u,\"visible_rows_max\":%u,"
           "\"columns\":%.0f,\"rects_per_column_row_max\":%.4f,\"busiest_us\":%.3f,",
           rects_max, glyphs_max, lines_max, rows_max, columns, rcr_max, busiest / 1e3);
    printf("\"p99_by_kind\":{");
    for (int k = 0; k < 5; k++) printf("%s\"%s\":%.4f", k ? "," : "", kind_names[k], kind_p99[k]);
    printf("}}\n");
  } else {
    printf("file:             %s\n", file);
    printf("events:           %llu in the model (%llu read), %llu bytes decoded\n",
           (unsigned long long)events, (unsigned long long)stats.events,
           (unsigned long long)stats.bytes_decoded);
    printf("load:             %.1f ms (%.1f MB/s), peak heap %llu bytes\n", load_ms, mbps,
           (unsigned long long)heap_peak);
    printf("model:            %llu bytes (%.1f bytes/event)\n", (unsigned long long)model_bytes,
           (double)model_bytes / ev);
    printf("lod:              %.1f ms (%.1f%% of load), %llu bytes (%.1f bytes/event)\n", lod_ms,
           load_ms > 0 ? 100.0 * lod_ms / load_ms : 0, (unsigned long long)lod_bytes,
           (double)lod_bytes / ev);
    printf("frames:           %zu (%u steps x %ld passes) at 1920x1080\n", nframes, nsteps, passes);
    printf("frame ms:         p50 %.3f, p99 %.3f, max %.3f, mean %.3f\n", p50, p99, fmax, mean);
    printf("frame cpu ms:     p50 %.3f, p99 %.3f, max %.3f\n", cp50, cp99, cmax);
    printf("p99 by step:     ");
    for (int k = 0; k < 5; k++) printf(" %s %.3f", kind_names[k], kind_p99[k]);
    printf("\n");
    printf("per frame max:    %u rects, %u glyphs, %u lines, %u visible rows\n", rects_max,
           glyphs_max, lines_max, rows_max);
    printf("rects/(col x row): %.3f (bound: < 4)\n", rcr_max);
  }
  free(ms);
  free(cms);
  free(sorted);
  st_drawlist_free(&dl, &alloc);
  st_layout_destroy(lay);
  st_lod_destroy(lod);
  st_trace_destroy(t);
  return 0;
}
