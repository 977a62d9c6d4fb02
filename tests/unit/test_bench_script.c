/* test_bench_script.c: the navigation script of `strata bench` and the
 * page's frameStats(): fixed length, deterministic, starts at the full view,
 * zooms to a 1 us window around the busiest point and back, every view
 * finite and drawable; truncation to a small cap; NULL handling. */
#include "bench_script.h"
#include "check.h"
#include "draw.h"

#include <math.h>
#include <string.h>

static uint32_t S(st_builder *b, const char *s) {
  return st_strtab_intern(st_builder_strings(b), s, strlen(s));
}

/* Sparse events over 1 s, plus a dense burst of 10 ns events at 700 ms:
 * the busiest point. 60 threads, so the layout is taller than the canvas. */
static st_trace *make_trace(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t name = S(b, "op"), hot = S(b, "hot");
  for (int th = 0; th < 60; th++) {
    uint32_t t = st_builder_track(b, p, ST_TRACK_SLICES, th, 0);
    for (int i = 0; i < 100; i++)
      st_builder_slice(b, t, (int64_t)i * 10000000, 1000000, name, 0, 0, 0);
  }
  uint32_t t = st_builder_track(b, p, ST_TRACK_SLICES, 99, 0);
  for (int i = 0; i < 20000; i++)
    st_builder_slice(b, t, 700000000 + (int64_t)i * 20, 10, hot, 0, 0, 0);
  return st_builder_finish(b, NULL);
}

/* field by field: the struct has tail padding */
static int same_steps(const st_bench_step *x, const st_bench_step *y, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    const st_view *a = &x[i].view, *b = &y[i].view;
    if (a->t0_ns != b->t0_ns || a->ns_per_px != b->ns_per_px || a->width != b->width ||
        a->height != b->height || a->dpr != b->dpr || a->scroll_y != b->scroll_y ||
        x[i].kind != y[i].kind || x[i].zoom != y[i].zoom)
      return 0;
  }
  return 1;
}

static int fake_glyph(void *ud, uint32_t cp, st_glyph *g) {
  (void)ud;
  *g = (st_glyph){7, 0.5f, -9, 6.5f, 2, 0, 0, 0, 0};
  if (cp == ' ') g->x1 = g->x0;
  return 1;
}

static void test_script(void) {
  st_trace *t = make_trace();
  st_lod *lod = st_lod_build(NULL, t, NULL);
  st_layout *lay = st_layout_create(NULL, t);
  CHECK(t && lod && lay);
  if (!t || !lod || !lay) return;
  static st_bench_step a[ST_BENCH_FRAMES], b[ST_BENCH_FRAMES];
  st_bench_desc d = {0};
  CHECK_EQ_INT(st_bench_script(&d, t, lod, lay, a, ST_BENCH_FRAMES), ST_BENCH_FRAMES);
  CHECK_EQ_INT(st_bench_script(NULL, t, lod, lay, b, ST_BENCH_FRAMES), ST_BENCH_FRAMES);
  CHECK(same_steps(a, b, ST_BENCH_FRAMES)); /* deterministic; NULL desc = zeroed desc */

  st_view fit;
  st_view_fit(&fit, t, ST_BENCH_WIDTH, ST_BENCH_HEIGHT, 1);
  CHECK_EQ_INT(a[0].kind, ST_BENCH_FULL);
  CHECK(a[0].view.ns_per_px == fit.ns_per_px && a[0].view.t0_ns == fit.t0_ns);
  CHECK(a[0].view.width == ST_BENCH_WIDTH && a[0].view.height == ST_BENCH_HEIGHT);

  /* zoom in: 10 steps, each narrower, to a 1 us window holding the burst */
  double tw = st_view_timeline_w(&a[0].view);
  for (int k = 1; k <= ST_BENCH_ZOOM_STEPS; k++) {
    CHECK_EQ_INT(a[k].kind, ST_BENCH_ZOOM_IN);
    CHECK_EQ_INT(a[k].zoom, k);
    CHECK(a[k].view.ns_per_px < a[k - 1].view.ns_per_px);
  }
  const st_view *deep = &a[ST_BENCH_ZOOM_STEPS].view;
  CHECK(fabs(deep->ns_per_px * tw - ST_BENCH_TARGET_NS) < 1e-6 * ST_BENCH_TARGET_NS);
  double mid = deep->t0_ns + tw / 2 * deep->ns_per_px;
  CHECK(mid >= 700000000.0 - 1000 && mid <= 700000000.0 + 20000 * 20 + 1000);

  /* scrolls reach the bottom of the layout and come back; the script ends
   * at the full view, scrolled back to the top */
  float max_scroll = st_layout_height(lay) - (ST_BENCH_HEIGHT - ST_VIEW_AXIS_H), seen = 0;
  CHECK(max_scroll > 0);
  for (uint32_t i = 0; i < ST_BENCH_FRAMES; i++) {
    const st_view *v = &a[i].view;
    CHECK(isfinite(v->t0_ns) && v->ns_per_px > 0 && v->scroll_y >= 0);
    if (v->scroll_y > seen) seen = v->scroll_y;
  }
  CHECK(fabsf(seen - max_scroll) < 0.5f);
  CHECK_EQ_INT(a[ST_BENCH_FRAMES - 1].zoom, 0);
  CHECK(a[ST_BENCH_FRAMES - 1].view.scroll_y == 0);

  /* every step draws */
  st_font font = {12, 10, 3, fake_glyph, NULL};
  st_drawlist dl = {0};
  for (uint32_t i = 0; i < ST_BENCH_FRAMES; i++) {
    st_draw_input in = {.trace = t, .lod = lod, .layout = lay, .view = &a[i].view, .font = &font};
    CHECK_EQ_INT(st_draw_frame(&dl, &in, NULL), ST_OK);
    CHECK(dl.rect_count > 0);
  }
  st_drawlist_free(&dl, NULL);

  /* a small cap: the count is still the whole script, the prefix matches */
  st_bench_step few[3];
  CHECK_EQ_INT(st_bench_script(&d, t, lod, lay, few, 3), ST_BENCH_FRAMES);
  CHECK(same_steps(few, a, 3));
  CHECK_EQ_INT(st_bench_script(&d, t, lod, lay, NULL, 0), ST_BENCH_FRAMES);
  CHECK_EQ_INT(st_bench_script(&d, NULL, lod, lay, a, ST_BENCH_FRAMES), 0);
  CHECK_EQ_INT(st_bench_script(&d, t, lod, NULL, a, ST_BENCH_FRAMES), 0);
  /* without a lod the zoom centres on the middle of the trace */
  CHECK_EQ_INT(st_bench_script(&d, t, NULL, lay, b, ST_BENCH_FRAMES), ST_BENCH_FRAMES);
  const st_view *dn = &b[ST_BENCH_ZOOM_STEPS].view;
  CHECK(fabs(dn->t0_ns + tw / 2 * dn->ns_per_px - st_trace_duration_ns(t) / 2.0) < 1);

  st_layout_destroy(lay);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

int main(void) {
  RUN(test_script);
  return check_report();
}
