/* test_touch.c: touch gestures (core/ui/touch.h) on a real st_ui: a one-finger
 * drag pans time and scrolls tracks with the finger, a two-finger spread
 * zooms in around the midpoint (the time under it stays put) and a pinch
 * zooms out, a tap selects the event under it while a drag never does,
 * lifting one finger of a pinch hands over without a jump, a third finger
 * and unknown ids are ignored, a cancel forgets everything. */
#include "check.h"
#include "touch.h"

#include <math.h>
#include <string.h>

#define W 1220.0f /* timeline 1000 px wide */
#define H 300.0f  /* short: the tracks scroll */

static uint32_t S(st_builder *b, const char *s) {
  return st_strtab_intern(st_builder_strings(b), s, strlen(s));
}

/* 30 threads of one process, each a 1 ms slice "s<k>" every 2 ms for 100 ms */
static st_trace *trace(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  for (int k = 0; k < 30; k++) {
    uint32_t t = st_builder_track(b, p, ST_TRACK_SLICES, (uint64_t)k + 1, 0);
    char nm[8] = {'s', (char)('a' + k), 0}; /* sa .. s~ */
    for (int i = 0; i < 50; i++)
      st_builder_slice(b, t, (int64_t)i * 2000000, 1000000, S(b, nm), 0, (uint64_t)i, 0);
  }
  return st_builder_finish(b, NULL);
}

static double t_at(const st_ui *ui, float x) { return st_view_time_at(st_ui_view(ui), x); }

static void test_one_finger_drag(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, H, 1);
  st_ui_zoom(ui, 4, 700); /* room to pan both ways */
  st_touch g;
  st_touch_reset(&g);
  double before = t_at(ui, 700);
  float sy0 = st_ui_view(ui)->scroll_y;
  CHECK(st_touch_start(&g, ui, 7, 700, 200) & ST_UI_HANDLED);
  /* within the slop: nothing moves yet */
  CHECK(!(st_touch_move(&g, ui, 7, 703, 201) & ST_UI_VIEW));
  unsigned ch = 0;
  for (int k = 1; k <= 10; k++) ch |= st_touch_move(&g, ui, 7, 700 + 10.0f * k, 200 - 5.0f * k);
  CHECK(ch & ST_UI_VIEW);
  /* the time that was under the finger is under it again (right: earlier times shown) */
  CHECK(fabs(t_at(ui, 800) - before) < st_ui_view(ui)->ns_per_px * 0.51);
  CHECK(st_ui_view(ui)->scroll_y > sy0); /* finger up: the tracks scroll up */
  CHECK(fabsf(st_ui_view(ui)->scroll_y - (sy0 + 50)) < 0.01f);
  ch = st_touch_end(&g, ui, 7, 800, 150, 0);
  CHECK(!(ch & ST_UI_SELECTION)); /* a drag is no tap */
  CHECK(st_selection_count(st_ui_selection(ui)) == 0);
  CHECK_EQ_INT(g.count, 0);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

static void test_pinch(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, H, 1);
  st_touch g;
  st_touch_reset(&g);
  double nspp0 = st_ui_view(ui)->ns_per_px, mid_t = t_at(ui, 620);
  st_touch_start(&g, ui, 1, 520, 150);
  st_touch_start(&g, ui, 2, 720, 150);
  /* spread to twice the distance, symmetric around x = 620 */
  for (int k = 1; k <= 10; k++) {
    st_touch_move(&g, ui, 1, 520 - 10.0f * k, 150);
    st_touch_move(&g, ui, 2, 720 + 10.0f * k, 150);
  }
  double ratio = nspp0 / st_ui_view(ui)->ns_per_px;
  CHECK(ratio > 1.95 && ratio < 2.05);                                /* zoomed in 2x */
  CHECK(fabs(t_at(ui, 620) - mid_t) < st_ui_view(ui)->ns_per_px * 2); /* around the midpoint */
  /* a third finger is ignored */
  CHECK(st_touch_start(&g, ui, 3, 100, 100) == ST_UI_HANDLED);
  CHECK_EQ_INT(g.count, 2);
  CHECK(st_touch_move(&g, ui, 3, 300, 100) == ST_UI_HANDLED);
  /* lift finger 1: finger 2 drags on from where it is, no jump */
  double before = st_ui_view(ui)->t0_ns;
  st_touch_end(&g, ui, 1, 420, 150, 0);
  CHECK_EQ_INT(g.count, 1);
  CHECK(st_ui_view(ui)->t0_ns == before);
  double under = t_at(ui, 820);
  st_touch_move(&g, ui, 2, 800, 150);
  CHECK(fabs(t_at(ui, 800) - under) < st_ui_view(ui)->ns_per_px * 0.51);
  /* and lifting it is no tap */
  CHECK(!(st_touch_end(&g, ui, 2, 800, 150, 0) & ST_UI_SELECTION));
  CHECK(st_selection_count(st_ui_selection(ui)) == 0);
  /* pinch in: zooms out */
  double nspp1 = st_ui_view(ui)->ns_per_px;
  st_touch_start(&g, ui, 4, 400, 150);
  st_touch_start(&g, ui, 5, 800, 150);
  st_touch_move(&g, ui, 4, 500, 150);
  st_touch_move(&g, ui, 5, 700, 150);
  CHECK(st_ui_view(ui)->ns_per_px > nspp1 * 1.5);
  /* a cancel forgets the gesture */
  st_touch_end(&g, ui, 4, 500, 150, 1);
  CHECK_EQ_INT(g.count, 0);
  CHECK_EQ_INT(st_touch_move(&g, ui, 5, 600, 150), 0);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

static void test_tap_selects(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, H, 1);
  st_ui_set_view(ui, 0, 10e6); /* 10 ms: slices 100 px wide */
  st_touch g;
  st_touch_reset(&g);
  /* the first track's first slice: find a y on its row by hit testing */
  float y = -1;
  for (float yy = ST_VIEW_AXIS_H; yy < H; yy += 2) {
    st_hit h = st_hit_test(t, st_ui_layout(ui), st_ui_view(ui), 220 + 50, yy, 0);
    if (h.kind == ST_HIT_EVENT) {
      y = yy;
      break;
    }
  }
  CHECK(y > 0);
  st_touch_start(&g, ui, 9, 270, y);
  st_touch_move(&g, ui, 9, 272, y + 2); /* a finger wobbles a little */
  unsigned ch = st_touch_end(&g, ui, 9, 272, y + 2, 0);
  CHECK(ch & ST_UI_SELECTION);
  CHECK_EQ_INT(st_selection_count(st_ui_selection(ui)), 1);
  /* nothing moved */
  CHECK(st_ui_view(ui)->t0_ns == 0);
  /* unknown ids and bad input */
  CHECK_EQ_INT(st_touch_end(&g, ui, 42, 0, 0, 0), 0);
  CHECK_EQ_INT(st_touch_start(&g, ui, 1, NAN, 0), 0);
  CHECK_EQ_INT(st_touch_start(NULL, ui, 1, 0, 0), 0);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

int main(void) {
  RUN(test_one_finger_drag);
  RUN(test_pinch);
  RUN(test_tap_selects);
  return check_report();
}
