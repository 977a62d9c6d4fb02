/* bench.c: window.strata.bench() (see bench.h). Frame time here is draw
 * list build + GL submission + glFinish, per script step; build time alone
 * is reported too, to compare with `strata bench` natively. */
#include "bench.h"

#include <GLES3/gl3.h>
#include <emscripten.h>
#include <math.h>
#include <stdlib.h>

#include "web.h"

const char *st_bench_run_json(void) {
  st_app *app = st_web_app();
  st_gl_renderer *r = st_web_renderer();
  st_glyphs *g = st_web_glyphs();
  if (!r || !g) return "null";
  st_bench_step *steps = malloc(ST_BENCH_FRAMES * sizeof *steps);
  double *frame = malloc(2 * ST_BENCH_FRAMES * sizeof *frame), *build = frame + ST_BENCH_FRAMES;
  uint32_t n = steps && frame ? st_app_bench_script(app, steps, ST_BENCH_FRAMES) : 0;
  const char *out = "null";
  uint32_t rects_max = 0, glyphs_max = 0, i = 0;
  float css_w, css_h, dpr;
  st_app_canvas(app, &css_w, &css_h, &dpr);
  int fb_w = (int)lroundf(css_w * dpr), fb_h = (int)lroundf(css_h * dpr);
  for (; i < n; i++) {
    double t0 = emscripten_get_now();
    const st_drawlist *dl = st_app_bench_frame(app, &steps[i].view);
    if (!dl) break;
    double t1 = emscripten_get_now();
    st_gl_renderer_draw(r, dl, st_glyphs_texture(g), fb_w, fb_h, dpr);
    glFinish();
    double t2 = emscripten_get_now();
    build[i] = t1 - t0;
    frame[i] = t2 - t0;
    if (dl->rect_count > rects_max) rects_max = dl->rect_count;
    if (dl->glyph_count > glyphs_max) glyphs_max = dl->glyph_count;
  }
  if (n && i == n) out = st_app_bench_json(app, frame, build, n, rects_max, glyphs_max);
  free(steps);
  free(frame);
  return out;
}
