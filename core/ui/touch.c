/* touch.c: touch gestures -> st_ui calls (see touch.h).
 *
 * The gesture follows at most two fingers; a third is ignored until one of
 * the two lifts. Moves are applied as deltas from the last positions, so
 * lifting one finger of a pinch hands the drag over to the other without a
 * jump. A pinch ends the tap candidate for good (lifting back to one finger
 * never turns into a click).
 */
#include "touch.h"

#include <math.h>

void st_touch_reset(st_touch *g) {
  if (!g) return;
  g->count = 0;
  g->tap = 0;
  g->x0 = g->y0 = 0;
  for (int i = 0; i < 2; i++) g->id[i] = -1, g->x[i] = g->y[i] = 0;
}

static int slot_of(const st_touch *g, long id) {
  for (int i = 0; i < g->count; i++)
    if (g->id[i] == id) return i;
  return -1;
}

static int finite2(float x, float y) { return isfinite(x) && isfinite(y); }

unsigned st_touch_start(st_touch *g, st_ui *ui, long id, float x, float y) {
  if (!g || !ui || !finite2(x, y)) return 0;
  if (slot_of(g, id) >= 0 || g->count == 2) return ST_UI_HANDLED; /* known, or a third finger */
  int k = g->count++;
  g->id[k] = id;
  g->x[k] = x;
  g->y[k] = y;
  if (k == 0) {
    g->x0 = x;
    g->y0 = y;
    g->tap = 1;
  } else {
    g->tap = 0; /* a pinch */
  }
  return ST_UI_HANDLED;
}

unsigned st_touch_move(st_touch *g, st_ui *ui, long id, float x, float y) {
  if (!g || !ui || !finite2(x, y)) return 0;
  int k = slot_of(g, id);
  if (k < 0) return g->count ? ST_UI_HANDLED : 0;
  unsigned ch = ST_UI_HANDLED;
  if (g->count == 1) {
    float dx = x - g->x[0], dy = y - g->y[0];
    if (g->tap && hypotf(x - g->x0, y - g->y0) >= ST_TOUCH_SLOP_PX) g->tap = 0;
    if (g->tap) return ch; /* within the slop: the start point stays the reference */
    /* the content follows the finger: right shows earlier times */
    if (dx != 0) ch |= st_ui_pan_px(ui, -dx);
    if (dy != 0) ch |= st_ui_scroll_px(ui, -dy);
    g->x[0] = x;
    g->y[0] = y;
    return ch;
  }
  /* two fingers: zoom by the change of their distance around the midpoint,
   * then follow the midpoint */
  float omx = (g->x[0] + g->x[1]) / 2, omy = (g->y[0] + g->y[1]) / 2;
  float od = hypotf(g->x[1] - g->x[0], g->y[1] - g->y[0]);
  g->x[k] = x;
  g->y[k] = y;
  float mx = (g->x[0] + g->x[1]) / 2, my = (g->y[0] + g->y[1]) / 2;
  float nd = hypotf(g->x[1] - g->x[0], g->y[1] - g->y[0]);
  if (od >= 1 && nd >= 1 && nd != od) ch |= st_ui_zoom(ui, (double)nd / (double)od, omx);
  if (mx != omx) ch |= st_ui_pan_px(ui, -(mx - omx));
  if (my != omy) ch |= st_ui_scroll_px(ui, -(my - omy));
  return ch;
}

unsigned st_touch_end(st_touch *g, st_ui *ui, long id, float x, float y, int cancelled) {
  if (!g || !ui) return 0;
  int k = slot_of(g, id);
  if (k < 0) return g->count ? ST_UI_HANDLED : 0;
  unsigned ch = ST_UI_HANDLED;
  if (cancelled) {
    st_touch_reset(g);
    return ch;
  }
  if (g->count == 1 && g->tap && finite2(x, y)) {
    /* a tap: a left click where the finger went down */
    ch |= st_ui_pointer_down(ui, g->x0, g->y0, ST_BUTTON_LEFT, 0);
    ch |= st_ui_pointer_up(ui, g->x0, g->y0, 0, 0);
  }
  /* the other finger (if any) carries on from where it is */
  if (k == 0 && g->count == 2) {
    g->id[0] = g->id[1];
    g->x[0] = g->x[1];
    g->y[0] = g->y[1];
  }
  g->count--;
  g->id[g->count] = -1;
  if (!g->count) g->tap = 0;
  return ch;
}
