/* bench.c: window.strata.bench() (see bench.h). Frame time here is draw
 * list build + GL submission + glFinish, per script step; build time alone
 * is reported too, to compare with `strata bench` natively. */
#include "bench.h"

#include <GLES3/gl3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_script.h"
#include "platform.h"

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

const char *st_bench_run_json(st_app *app) {
  static char buf[512];
  if (!app->ui || !app->renderer || !app->glyphs) return "null";
  static st_bench_step steps[ST_BENCH_FRAMES];
  st_bench_desc d = {app->css_w, app->css_h, app->dpr};
  uint32_t n =
      st_bench_script(&d, app->trace, app->lod, st_ui_layout(app->ui), steps, ST_BENCH_FRAMES);
  if (n > ST_BENCH_FRAMES) n = ST_BENCH_FRAMES;
  double frame[ST_BENCH_FRAMES], build[ST_BENCH_FRAMES];
  uint32_t rects_max = 0, glyphs_max = 0;
  int fb_w = (int)lroundf(app->css_w * app->dpr), fb_h = (int)lroundf(app->css_h * app->dpr);
  for (uint32_t i = 0; i < n; i++) {
    st_draw_input in = {.trace = app->trace,
                        .lod = app->lod,
                        .layout = st_ui_layout(app->ui),
                        .view = &steps[i].view,
                        .font = st_glyphs_font(app->glyphs)};
    double t0 = st_platform_now_ms();
    if (st_draw_frame(&app->dl, &in, &app->alloc) != ST_OK) return "null";
    double t1 = st_platform_now_ms();
    st_gl_renderer_draw(app->renderer, &app->dl, st_glyphs_texture(app->glyphs), fb_w, fb_h,
                        app->dpr);
    glFinish();
    double t2 = st_platform_now_ms();
    build[i] = t1 - t0;
    frame[i] = t2 - t0;
    if (app->dl.rect_count > rects_max) rects_max = app->dl.rect_count;
    if (app->dl.glyph_count > glyphs_max) glyphs_max = app->dl.glyph_count;
  }
  /* a full atlas mid-run only costs missing glyphs in a few bench frames */
  if (st_glyphs_end_frame(app->glyphs)) st_glyphs_reset(app->glyphs);
  qsort(frame, n, sizeof *frame, cmp_double);
  qsort(build, n, sizeof *build, cmp_double);
  snprintf(buf, sizeof buf,
           "{\"frames\":%u,\"frame_ms_p50\":%.4f,\"frame_ms_p99\":%.4f,\"frame_ms_max\":%.4f,"
           "\"build_ms_p50\":%.4f,\"build_ms_max\":%.4f,\"rects_max\":%u,\"glyphs_max\":%u,"
           "\"width\":%.1f,\"height\":%.1f,\"dpr\":%.3f}",
           n, pct(frame, n, 50), pct(frame, n, 99), n ? frame[n - 1] : 0, pct(build, n, 50),
           n ? build[n - 1] : 0, rects_max, glyphs_max, app->css_w, app->css_h, app->dpr);
  st_app_request_redraw(app); /* the screen shows the user's view again next frame */
  return buf;
}
