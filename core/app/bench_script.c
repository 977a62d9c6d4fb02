/* bench_script.c: the navigation script of `strata bench` (see bench_script.h).
 *
 * Zoom level k of ST_BENCH_ZOOM_STEPS has the scale
 *   nspp_k = nspp_full * (nspp_target / nspp_full)^(k / ST_BENCH_ZOOM_STEPS)
 * with nspp_target = ST_BENCH_TARGET_NS / timeline width; level k > 0 is
 * centred on the busiest column of level k - 1. Every step is a
 * deterministic function of (trace, lod, layout, canvas), so the page and
 * the CLI replay the same views.
 */
#include "bench_script.h"

#include <math.h>

/* columns tracked when finding the busiest point: wider canvases share
 * bins; 2048 x 4 bytes keeps the histogram small enough for a wasm stack */
#define HIST_BINS 2048

/* ==== busiest point ====================================================== */

typedef struct hist {
  double t0, nspp, cols_per_bin;
  uint32_t bins;
  uint32_t count[HIST_BINS]; /* saturating */
} hist;

static void hist_item(void *ud, const st_lod_item *it) {
  hist *h = ud;
  double col = floor(((double)it->start - h->t0) / h->nspp);
  if (col < 0) col = 0;
  double b = floor(col / h->cols_per_bin);
  uint32_t bin = b >= (double)(h->bins - 1) ? h->bins - 1 : (uint32_t)b;
  h->count[bin] = it->count > UINT32_MAX - h->count[bin] ? UINT32_MAX : h->count[bin] + it->count;
}

double st_bench_busiest_ns(const st_view *v, const st_trace *t, const st_lod *lod) {
  if (!v || !t) return -1;
  double tw = st_view_timeline_w(v);
  if (!lod || !(tw >= 1) || !(v->ns_per_px > 0)) return -1;
  hist h;
  h.t0 = v->t0_ns;
  h.nspp = v->ns_per_px;
  double cols = ceil(tw);
  h.bins = cols < HIST_BINS ? (uint32_t)cols : HIST_BINS;
  h.cols_per_bin = cols / h.bins;
  for (uint32_t i = 0; i < h.bins; i++) h.count[i] = 0;
  double ft0 = floor(v->t0_ns), ft1 = ceil(v->t0_ns + tw * v->ns_per_px) + 1;
  if (!(ft0 > -9e18 && ft1 < 9e18)) return -1;
  uint32_t nrows;
  st_trace_rows(t, &nrows);
  for (uint32_t r = 0; r < nrows; r++)
    st_lod_query_row(lod, r, (int64_t)ft0, (int64_t)ft1, v->ns_per_px, 1.0, hist_item, &h);
  uint32_t best = 0;
  for (uint32_t i = 1; i < h.bins; i++)
    if (h.count[i] > h.count[best]) best = i;
  if (h.count[best] == 0) return -1;
  return h.t0 + ((double)best + 0.5) * h.cols_per_bin * h.nspp;
}

/* ==== script ============================================================= */

typedef struct emitter {
  st_bench_step *out;
  uint32_t cap, n;
  st_view v;
  uint8_t zoom;
} emitter;

static void emit(emitter *e, st_bench_kind kind) {
  if (e->n < e->cap) e->out[e->n] = (st_bench_step){e->v, (uint8_t)kind, e->zoom, 0};
  e->n++;
}

typedef struct script {
  st_view full;
  double nspp_full, ratio, tw, max_scroll;
  double busy[ST_BENCH_ZOOM_STEPS + 1]; /* centre of each zoom level */
} script;

/* View at zoom level k (0 = full view), centred on that level's busiest point. */
static void set_zoom(const script *s, emitter *e, int k) {
  e->zoom = (uint8_t)k;
  float scroll = e->v.scroll_y;
  if (k == 0) {
    e->v = s->full;
  } else {
    e->v.ns_per_px = s->nspp_full * pow(s->ratio, (double)k / ST_BENCH_ZOOM_STEPS);
    e->v.t0_ns = s->busy[k] - s->tw / 2 * e->v.ns_per_px;
  }
  e->v.scroll_y = scroll;
}

/* right `n` steps of `px`, left 2n, right n: ends where it started */
static void pans(emitter *e, int n, float px) {
  for (int i = 0; i < n; i++) st_view_pan_px(&e->v, px), emit(e, ST_BENCH_PAN);
  for (int i = 0; i < 2 * n; i++) st_view_pan_px(&e->v, -px), emit(e, ST_BENCH_PAN);
  for (int i = 0; i < n; i++) st_view_pan_px(&e->v, px), emit(e, ST_BENCH_PAN);
}

/* down to the bottom in n steps, back up to 0 */
static void scrolls(const script *s, emitter *e, int n) {
  for (int i = 1; i <= n; i++)
    e->v.scroll_y = (float)(s->max_scroll * i / n), emit(e, ST_BENCH_SCROLL);
  for (int i = n - 1; i >= 0; i--)
    e->v.scroll_y = (float)(s->max_scroll * i / n), emit(e, ST_BENCH_SCROLL);
}

uint32_t st_bench_script(const st_bench_desc *d, const st_trace *t, const st_lod *lod,
                         const st_layout *lay, st_bench_step *out, uint32_t cap) {
  if (!t || !lay) return 0;
  float w = d && d->width > 0 ? d->width : ST_BENCH_WIDTH;
  float h = d && d->height > 0 ? d->height : ST_BENCH_HEIGHT;
  float dpr = d && d->dpr > 0 ? d->dpr : 1.0f;
  if (!out) cap = 0;
  script s;
  st_view_fit(&s.full, t, w, h, dpr);
  s.tw = st_view_timeline_w(&s.full);
  if (s.tw < 1) s.tw = 1;
  s.nspp_full = s.full.ns_per_px;
  s.ratio = ST_BENCH_TARGET_NS / s.tw / s.nspp_full;
  /* zoom in towards the densest part at every level: level k is centred on
   * the busiest column of level k - 1 (kept if that view is empty) */
  {
    emitter z = {NULL, 0, 0, s.full, 0};
    double prev = (double)st_trace_duration_ns(t) / 2;
    for (int k = 1; k <= ST_BENCH_ZOOM_STEPS; k++) {
      double b = st_bench_busiest_ns(&z.v, t, lod);
      s.busy[k] = b >= 0 ? b : prev;
      prev = s.busy[k];
      set_zoom(&s, &z, k);
    }
    s.busy[0] = s.busy[1];
  }
  double area = (double)h - ST_VIEW_AXIS_H;
  s.max_scroll = st_layout_height(lay) - area;
  if (!(s.max_scroll > 0)) s.max_scroll = 0;

  emitter e = {out, cap, 0, s.full, 0};
  float quarter = (float)(s.tw / 4), half = (float)(s.tw / 2);
  emit(&e, ST_BENCH_FULL); /* 1 */
  for (int k = 1; k <= ST_BENCH_ZOOM_STEPS; k++) set_zoom(&s, &e, k), emit(&e, ST_BENCH_ZOOM_IN);
  pans(&e, 8, quarter); /* 32 at 1 us */
  scrolls(&s, &e, 8);   /* 16 */
  int mid1 = ST_BENCH_ZOOM_STEPS * 7 / 10, mid2 = ST_BENCH_ZOOM_STEPS * 4 / 10;
  for (int k = ST_BENCH_ZOOM_STEPS - 1; k >= mid1; k--)
    set_zoom(&s, &e, k), emit(&e, ST_BENCH_ZOOM_OUT);
  pans(&e, 4, half); /* 16 */
  for (int k = mid1 - 1; k >= mid2; k--) set_zoom(&s, &e, k), emit(&e, ST_BENCH_ZOOM_OUT);
  pans(&e, 4, half);  /* 16 */
  scrolls(&s, &e, 4); /* 8 */
  for (int k = mid2 - 1; k >= 0; k--) set_zoom(&s, &e, k), emit(&e, ST_BENCH_ZOOM_OUT);
  pans(&e, 1, half);  /* 4 */
  scrolls(&s, &e, 4); /* 8 */
  return e.n;
}
