/* app_frame.c: the frame (app.h): held-key motion by the platform's clock,
 * the draw list of the view (with the ui's overlay; side by side, the two
 * panes' lists joined, core/draw/draw.h st_drawlist_append), the font's
 * "cache full, build once more" protocol (platform.glyphs_full), the frame
 * statistics and the bench's frames. The platform renders what is built
 * here. Calls app_view.c, app_set.c, and app_opstats.c and app_notes.c
 * for the overlay's idle gaps and notes.
 */
#include "app_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static st_code build_ui(st_app *app, st_ui *ui, st_drawlist *dl) {
  st_draw_input in = {.trace = app->trace,
                      .lod = app->lod,
                      .layout = st_ui_layout(ui),
                      .view = st_ui_view(ui),
                      .font = app->font};
  st_draw_overlay ov;
  st_ui_overlay(ui, &ov);
  st_app_idle_gaps_overlay(app, &ov);
  st_draw_note notes[ST_APP_MAX_NOTES];
  st_app_notes_overlay(app, &ov, notes);
  ov.edges = app->path_edges;
  ov.edge_count = app->path_edge_count;
  return st_draw_frame_overlay(dl, &in, &ov, &app->self_alloc);
}

static st_code build(st_app *app) {
  if (!app->side) return build_ui(app, app->ui, &app->dl);
  st_code c = build_ui(app, app->pane[0], &app->dl);
  if (c == ST_OK) c = build_ui(app, app->pane[1], &app->dl2);
  if (c == ST_OK) c = st_drawlist_append(&app->dl, &app->dl2, app->css_w / 2, &app->self_alloc);
  return c;
}

static void clear(st_drawlist *dl) {
  dl->rect_count = dl->glyph_count = dl->line_count = dl->cmd_count = 0;
}

const st_drawlist *st_app_frame(st_app *app) {
  if (app->animating && app->ui) {
    /* held navigation keys: the core moves by elapsed time */
    double now = st_app_now(app);
    st_app_apply(app, st_ui_tick(app->ui, now - app->last_tick_ms));
    app->last_tick_ms = now;
    app->animating = st_ui_animating(app->ui);
  }
  if (!app->dirty || !app->font) return NULL;
  app->dirty = 0;
  app->frame_t0_ms = st_app_now(app);
  if (!app->ui) {
    clear(&app->dl);
    return &app->dl;
  }
  st_code c = build(app);
  /* the font's cache filled up: this frame missed glyphs; the cache was
   * started over, so the frame is built once more */
  if (c == ST_OK && app->pf.glyphs_full && app->pf.glyphs_full(app->pf.ud)) {
    c = build(app);
    app->pf.glyphs_full(app->pf.ud);
  }
  if (c != ST_OK) clear(&app->dl);
  return &app->dl;
}

void st_app_frame_done(st_app *app) {
  double t1 = st_app_now(app);
  app->frames++;
  app->last_frame_ms = t1 - app->frame_t0_ms;
  app->last_rects = app->dl.rect_count;
  app->last_glyphs = app->dl.glyph_count;
  app->last_bands = app->dl.bands_drawn;
  const st_drawlist *dl = &app->dl;
  uint32_t flows[6] = {dl->flows_drawn, dl->flow_bundles_drawn, dl->flows_bundled,
                       dl->flow_labels, dl->flows_chain,        dl->flows_capped};
  memcpy(app->last_flows, flows, sizeof flows);
  app->last_edges = dl->edges_drawn;
  if (app->loaded_pending) {
    app->loaded_pending = 0;
    app->stats.load_ms = t1 - app->load_t0_ms;
    if (app->pf.loaded) app->pf.loaded(app->pf.ud);
  }
}

static void write_frame_stats(st_jout *o, st_app *app, const void *arg) {
  (void)arg;
  st_jout_lit(o, "{\"frames\":");
  st_jout_u64(o, app->frames);
  st_jout_lit(o, ",\"last_frame_ms\":");
  st_jout_fixed(o, app->last_frame_ms, 4);
  st_jout_lit(o, ",\"rects\":");
  st_jout_u64(o, app->last_rects);
  st_jout_lit(o, ",\"glyphs\":");
  st_jout_u64(o, app->last_glyphs);
  st_jout_lit(o, ",\"bands\":");
  st_jout_u64(o, app->last_bands);
  st_jout_lit(o, ",\"flows\":{\"mode\":\"");
  st_jout_lit(o, st_flow_mode_name((st_flow_mode)app->flow_mode));
  static const char *const keys[6] = {"\",\"drawn\":", ",\"bundles\":", ",\"bundled\":",
                                      ",\"labels\":",  ",\"chain\":",   ",\"capped\":"};
  for (int k = 0; k < 6; k++) {
    st_jout_lit(o, keys[k]);
    st_jout_u64(o, app->last_flows[k]);
  }
  st_jout_lit(o, "},\"path_arrows\":");
  st_jout_u64(o, app->last_edges);
  st_jout_lit(o, "}");
}

const char *st_app_frame_stats_json(st_app *app) {
  return st_app_json(app, &app->small, write_frame_stats, NULL, "null");
}

void st_app_set_label_log(st_app *app, int on) {
  app->dl.label_log_on = on != 0;
  st_app_request_redraw(app);
}

const char *st_app_label_log(st_app *app, uint32_t *len) {
  *len = app->dl.label_log_on ? app->dl.label_log_len : 0;
  return *len ? app->dl.label_log : NULL;
}

/* ---- the bench -------------------------------------------------------------------- */

uint32_t st_app_bench_script(st_app *app, st_bench_step *steps, uint32_t cap) {
  if (!app->ui || !app->font) return 0;
  st_bench_desc d = {app->css_w, app->css_h, app->dpr};
  uint32_t n = st_bench_script(&d, app->trace, app->lod, st_ui_layout(app->ui), steps, cap);
  return n < cap ? n : cap;
}

const st_drawlist *st_app_bench_frame(st_app *app, const st_view *view) {
  if (!app->ui || !app->font || !view) return NULL;
  st_draw_input in = {.trace = app->trace,
                      .lod = app->lod,
                      .layout = st_ui_layout(app->ui),
                      .view = view,
                      .font = app->font};
  return st_draw_frame(&app->dl, &in, &app->self_alloc) == ST_OK ? &app->dl : NULL;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* nearest-rank percentile of a sorted array */
static double pct(const double *v, uint32_t n, double p) {
  if (!n) return 0;
  uint32_t k = (uint32_t)ceil(p / 100.0 * n);
  return v[k ? k - 1 : 0];
}

typedef struct bench_result {
  const double *frame, *build;
  uint32_t n, rects_max, glyphs_max;
} bench_result;

static void write_bench(st_jout *o, st_app *app, const void *arg) {
  const bench_result *r = arg;
  uint32_t n = r->n;
  st_jout_lit(o, "{\"frames\":");
  st_jout_u64(o, n);
  st_jout_lit(o, ",\"frame_ms_p50\":");
  st_jout_fixed(o, pct(r->frame, n, 50), 4);
  st_jout_lit(o, ",\"frame_ms_p99\":");
  st_jout_fixed(o, pct(r->frame, n, 99), 4);
  st_jout_lit(o, ",\"frame_ms_max\":");
  st_jout_fixed(o, n ? r->frame[n - 1] : 0, 4);
  st_jout_lit(o, ",\"build_ms_p50\":");
  st_jout_fixed(o, pct(r->build, n, 50), 4);
  st_jout_lit(o, ",\"build_ms_max\":");
  st_jout_fixed(o, n ? r->build[n - 1] : 0, 4);
  st_jout_lit(o, ",\"rects_max\":");
  st_jout_u64(o, r->rects_max);
  st_jout_lit(o, ",\"glyphs_max\":");
  st_jout_u64(o, r->glyphs_max);
  st_jout_lit(o, ",\"width\":");
  st_jout_fixed(o, app->css_w, 1);
  st_jout_lit(o, ",\"height\":");
  st_jout_fixed(o, app->css_h, 1);
  st_jout_lit(o, ",\"dpr\":");
  st_jout_fixed(o, app->dpr, 3);
  st_jout_lit(o, "}");
}

const char *st_app_bench_json(st_app *app, double *frame_ms, double *build_ms, uint32_t n,
                              uint32_t rects_max, uint32_t glyphs_max) {
  /* a full font cache mid-run only costs missing glyphs in a few bench frames */
  if (app->pf.glyphs_full) app->pf.glyphs_full(app->pf.ud);
  app->dirty = 1; /* the screen shows the user's view again next frame */
  qsort(frame_ms, n, sizeof *frame_ms, cmp_double);
  qsort(build_ms, n, sizeof *build_ms, cmp_double);
  bench_result r = {frame_ms, build_ms, n, rects_max, glyphs_max};
  return st_app_json(app, &app->small, write_bench, &r, "null");
}
