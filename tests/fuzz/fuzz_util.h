/* fuzz_util.h: the loader-driving body shared by the loader fuzz targets
 * (fuzz_load.c, fuzz_perfetto.c, fuzz_xplane.c).
 *
 * fuzz_seed(data, size) is the chunking seed taken from the input (its first
 * byte and its size). fuzz_load_chunked(name, prefix, data, size) creates a
 * loader for a file called `name`, pushes `prefix` (if not NULL, as one
 * piece), then data in pieces of random size (1 byte up to 4 KiB, often 1-8
 * bytes) drawn from the seed, which exercises every "cut by the window end"
 * path; finishes, renders the stats and metadata and touches every event,
 * then builds what the page builds from the trace (level-of-detail index,
 * layout) and draws three frames of it: the full view, a deep zoom at its
 * middle and a scroll, so hostile times and durations reach the lod
 * queries and the draw-list code too; and the flame graphs the page builds
 * (samples and nested slices, of the whole trace and of a selection, hit
 * tested, selected from and written as JSON); and the analysis (steps,
 * devices, gaps, op percentiles, a histogram, as JSON) and the diff of the
 * trace with itself (verdicts, rollup, headline). Half the inputs are read
 * with a tiny Perfetto staging limit (load.h staging_limit). Any crash,
 * leak or sanitizer report is a bug. */
#ifndef STRATA_FUZZ_UTIL_H
#define STRATA_FUZZ_UTIL_H

#include "analyze.h"
#include "argsrc.h"
#include "bulk.h"
#include "diff.h"
#include "draw.h"
#include "flame.h"
#include "load.h"
#include "panel.h"
#include "lod.h"
#include "view.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t fuzz_seed(const uint8_t *data, size_t size) {
  return size ? data[0] * 2654435761u + (uint32_t)size : 1;
}

/* A fixed-width font: 7 px per glyph, nothing to rasterise. */
static inline int fuzz_glyph(void *ud, uint32_t cp, st_glyph *g) {
  (void)ud;
  (void)cp;
  memset(g, 0, sizeof *g);
  g->advance = 7;
  g->x1 = 6;
  g->y0 = -9;
  g->y1 = 2;
  return 1;
}

static inline void fuzz_draw(const st_trace *t) {
  st_error err;
  st_lod *lod = st_lod_build(NULL, t, &err);
  st_layout *lay = st_layout_create(NULL, t);
  if (lod && lay) {
    st_font font = {12, 10, 3, fuzz_glyph, NULL};
    st_view v;
    st_view_fit(&v, t, 800, 600, 1);
    st_draw_input in = {t, lod, lay, &v, &font};
    st_drawlist dl;
    memset(&dl, 0, sizeof dl);
    st_draw_frame(&dl, &in, NULL);
    st_view_zoom(&v, 1e4, 500);
    st_draw_frame(&dl, &in, NULL);
    v.scroll_y = 300;
    st_draw_frame(&dl, &in, NULL);
    /* the first view's range (isolated outliers left out) inside the trace */
    st_bulk bulk;
    st_bulk_range(t, &bulk);
    if (bulk.t0_ns > bulk.t1_ns || bulk.before + bulk.after != bulk.outside) __builtin_trap();
    st_drawlist_free(&dl, NULL);
  }
  st_layout_destroy(lay);
  st_lod_destroy(lod);
}

static inline void fuzz_flame(const st_trace *t) {
  st_flame *f = st_flame_create(NULL);
  st_selection *sel = st_selection_create(NULL);
  st_panel_buf b = {0};
  st_alloc a = {0};
  if (f && sel) {
    uint32_t nrows;
    const st_row *rows = st_trace_rows(t, &nrows);
    for (uint32_t r = 0; r < nrows; r += 2) /* every other row's first half */
      st_selection_add(
          sel, r, 0, rows[r].count / 2 + 1 < rows[r].count ? rows[r].count / 2 + 1 : rows[r].count);
    for (int k = 0; k < 4; k++) {
      int64_t d = st_trace_duration_ns(t);
      st_flame_query q = {(k & 1) ? ST_FLAME_SLICES : ST_FLAME_SAMPLES, k < 2 ? NULL : sel,
                          k ? d / 3 : INT64_MIN, d < INT64_MAX ? d + 1 : d, UINT32_MAX};
      if (st_flame_build(f, t, &q) != ST_OK) continue;
      uint32_t n, depth = st_flame_max_depth(f);
      (void)st_flame_nodes(f, &n);
      for (uint32_t dd = 0; dd <= depth && dd < 64; dd++) {
        uint32_t hit = st_flame_hit(f, (double)dd / 64.0, dd);
        if (hit != UINT32_MAX) st_flame_select(f, hit, sel);
      }
      st_panel_flame_json(&b, t, f, k == 3 ? 0.01 : 0, 1000, &a);
    }
  }
  st_panel_buf_free(&b, &a);
  st_selection_destroy(sel);
  st_flame_destroy(f);
}

/* The answers of core/analysis/analyze.h and the diff's verdicts on a
 * hostile trace: bounded JSON, a histogram of the top op. */
static inline void fuzz_analyze(const st_trace *t) {
  st_error err;
  st_analysis *an = st_analyze(NULL, &t, 1, NULL, &err);
  char json[2048];
  if (an) {
    st_analysis_json(an, NULL, json, sizeof json);
    uint32_t n;
    const st_opstat *ops = st_opstats_rows(st_analysis_ops(an), &n);
    st_hist_bin bins[ST_HIST_BINS_MAX];
    if (n) st_opstats_histogram(&t, 1, NULL, NULL, ops[0].name, ops[0].name_len, bins, NULL);
    st_analysis_destroy(an);
  }
  st_diff *d = st_diff_build(NULL, t, t, NULL, &err);
  if (d) {
    st_diff_json(d, 0, json, sizeof json);
    st_diff_destroy(d);
  }
}

static inline void fuzz_load_chunked(const char *name, const char *prefix, const uint8_t *data,
                                     size_t size) {
  uint32_t seed = fuzz_seed(data, size);
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.file_name = name;
  /* half the inputs with a tiny Perfetto ftrace staging (streaming mode's
   * bounded replay: flushes every few records) */
  d.staging_limit = (seed & 1) ? 1 + (seed >> 1) % 16 : 0;
  st_loader *l = st_loader_create(&d);
  if (!l) return;
  if (prefix) st_loader_push(l, prefix, strlen(prefix));
  size_t i = 0;
  while (i < size) {
    seed = seed * 1103515245u + 12345u;
    size_t chunk = (seed >> 16) % 4096 + 1;
    if ((seed >> 8) % 4 == 0) chunk = (seed >> 20) % 8 + 1; /* often tiny */
    if (chunk > size - i) chunk = size - i;
    if (st_loader_push(l, data + i, chunk) != ST_OK) break;
    i += chunk;
  }
  st_error err;
  st_trace *t = st_loader_finish(l, &err);
  char json[4096];
  st_stats_json(st_loader_stats(l), json, sizeof json);
  (void)st_loader_metadata_json(l);
  if (t) {
    uint32_t nrows;
    const st_row *rows = st_trace_rows(t, &nrows);
    volatile uint64_t sink = 0; /* touch every event (unsigned: wraps, no UB) */
    for (uint32_t r = 0; r < nrows; r++)
      for (uint32_t k = 0; k < rows[r].count; k++)
        sink += (uint64_t)rows[r].start[k] + (uint64_t)rows[r].dur[k];
    (void)sink;
    fuzz_draw(t);
    fuzz_flame(t);
    fuzz_analyze(t);
    st_trace_destroy(t);
  }
  st_loader_destroy(l);
}

/* Decodes the args of the event at src (and its end event at end_src, or
 * UINT64_MAX) through the query dialogue, reading from data as the page
 * reads the file; touches the result. */
static inline void fuzz_decode_args(const st_argsrc *as, const uint8_t *data, size_t size,
                                    uint64_t src, uint64_t end_src) {
  st_error err;
  st_args_span rd;
  st_args_query *q = st_args_query_begin_end(as, src, end_src, &rd, &err);
  int more = q != NULL;
  while (more) {
    size_t from = rd.offset < size ? (size_t)rd.offset : size;
    size_t len = rd.length < size - from ? (size_t)rd.length : size - from;
    if (st_args_query_push(q, data + from, len, &more, &rd, &err) != ST_OK) break;
  }
  size_t n = 0;
  int cut = 0;
  const char *s = st_args_query_result(q, &n, &cut);
  volatile size_t sink = n + (size_t)cut + (size_t)(unsigned char)s[0];
  (void)sink;
  st_args_query_end(q);
}

#endif
