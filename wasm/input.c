/* input.c: DOM input -> st_app navigation (bindings in input.h).
 *
 * Why DOM events rather than SDL's: SDL's wheel event drops ctrlKey (and a
 * trackpad pinch arrives as ctrl+wheel with no key events at all) and
 * quantises deltas; SDL's mouse coordinates are scaled by its own idea of the
 * window size. Here every position is in CSS px relative to the canvas,
 * which is what st_view expects.
 */
#include "input.h"

#include <emscripten/html5.h>
#include <math.h>
#include <string.h>

#include "js_bridge.h"

#define CANVAS "#canvas"
#define CLICK_SLOP_PX 4.0f     /* a press that moves less than this is a click */
#define WHEEL_ZOOM_RATE 0.0025 /* zoom factor e^(rate * px): 100 px notch = 1.28x */
#define KEY_ZOOM 1.25
#define KEY_PAN_FRACTION 0.1f /* of the timeline width per key press */

typedef struct input_state {
  st_app *app;
  int dragging;
  float down_x, down_y;  /* canvas CSS px at press */
  long last_cx, last_cy; /* client px of the last drag event */
  float travel;          /* total drag distance, CSS px */
  int hover;             /* pointer over the canvas */
  float hover_x, hover_y;
} input_state;

static input_state g_in;

static double wheel_px(double d, unsigned long mode, float page) {
  switch (mode) {
  case DOM_DELTA_LINE: return d * 16.0;
  case DOM_DELTA_PAGE: return d * page;
  default: return d;
  }
}

static EM_BOOL on_wheel(int type, const EmscriptenWheelEvent *e, void *ud) {
  input_state *in = ud;
  st_app *app = in->app;
  double dy = wheel_px(e->deltaY, e->deltaMode, app->css_h);
  double dx = wheel_px(e->deltaX, e->deltaMode, app->css_w);
  float x = (float)e->mouse.targetX;
  if (e->mouse.ctrlKey || e->mouse.metaKey) {
    st_app_zoom(app, exp(-dy * WHEEL_ZOOM_RATE), x);
  } else if (e->mouse.shiftKey) {
    /* some platforms turn shift+wheel into a horizontal wheel themselves */
    st_app_pan_px(app, (float)(dy != 0 ? dy : dx));
  } else {
    if (dy != 0) st_app_scroll_px(app, (float)dy);
    if (dx != 0) st_app_pan_px(app, (float)dx);
  }
  return EM_TRUE; /* keep the page (and browser zoom) from scrolling */
}

static EM_BOOL on_down(int type, const EmscriptenMouseEvent *e, void *ud) {
  input_state *in = ud;
  if (e->button != 0) return EM_FALSE;
  in->dragging = 1;
  in->down_x = (float)e->targetX;
  in->down_y = (float)e->targetY;
  in->last_cx = e->clientX;
  in->last_cy = e->clientY;
  in->travel = 0;
  return EM_TRUE; /* no text selection while dragging */
}

static EM_BOOL on_canvas_move(int type, const EmscriptenMouseEvent *e, void *ud) {
  input_state *in = ud;
  in->hover = 1;
  in->hover_x = (float)e->targetX;
  in->hover_y = (float)e->targetY;
  return EM_FALSE;
}

static EM_BOOL on_canvas_leave(int type, const EmscriptenMouseEvent *e, void *ud) {
  input_state *in = ud;
  in->hover = 0;
  return EM_FALSE;
}

static EM_BOOL on_doc_move(int type, const EmscriptenMouseEvent *e, void *ud) {
  input_state *in = ud;
  if (!in->dragging) return EM_FALSE;
  if (!(e->buttons & 1)) { /* released outside the window */
    in->dragging = 0;
    return EM_FALSE;
  }
  float dx = (float)(e->clientX - in->last_cx), dy = (float)(e->clientY - in->last_cy);
  in->last_cx = e->clientX;
  in->last_cy = e->clientY;
  in->travel += fabsf(dx) + fabsf(dy);
  if (in->travel >= CLICK_SLOP_PX) {
    if (dx != 0) st_app_pan_px(in->app, -dx);
    if (dy != 0) st_app_scroll_px(in->app, -dy);
  }
  return EM_FALSE;
}

static EM_BOOL on_doc_up(int type, const EmscriptenMouseEvent *e, void *ud) {
  input_state *in = ud;
  if (!in->dragging || e->button != 0) return EM_FALSE;
  in->dragging = 0;
  if (in->travel < CLICK_SLOP_PX) st_app_click(in->app, in->down_x, in->down_y);
  return EM_FALSE;
}

static EM_BOOL on_key(int type, const EmscriptenKeyboardEvent *e, void *ud) {
  input_state *in = ud;
  st_app *app = in->app;
  if (e->ctrlKey || e->metaKey || e->altKey) return EM_FALSE; /* browser shortcuts */
  if (st_js_focus_in_text_field()) return EM_FALSE;
  float x = in->hover ? in->hover_x : -1.0f; /* -1: zoom around the centre */
  float pan = st_view_timeline_w(&app->view) * KEY_PAN_FRACTION;
  const char *k = e->key;
  if (!strcmp(k, "w") || !strcmp(k, "W") || !strcmp(k, "+") || !strcmp(k, "=")) {
    st_app_zoom(app, KEY_ZOOM, x);
  } else if (!strcmp(k, "s") || !strcmp(k, "S") || !strcmp(k, "-")) {
    st_app_zoom(app, 1.0 / KEY_ZOOM, x);
  } else if (!strcmp(k, "a") || !strcmp(k, "A") || !strcmp(k, "ArrowLeft")) {
    st_app_pan_px(app, -pan);
  } else if (!strcmp(k, "d") || !strcmp(k, "D") || !strcmp(k, "ArrowRight")) {
    st_app_pan_px(app, pan);
  } else if (!strcmp(k, "ArrowUp")) {
    st_app_scroll_px(app, -ST_VIEW_ROW_H * 3);
  } else if (!strcmp(k, "ArrowDown")) {
    st_app_scroll_px(app, ST_VIEW_ROW_H * 3);
  } else if (!strcmp(k, "0")) {
    st_app_fit(app);
  } else {
    return EM_FALSE;
  }
  return EM_TRUE;
}

void st_input_install(st_app *app) {
  memset(&g_in, 0, sizeof g_in);
  g_in.app = app;
  emscripten_set_wheel_callback(CANVAS, &g_in, EM_FALSE, on_wheel);
  emscripten_set_mousedown_callback(CANVAS, &g_in, EM_FALSE, on_down);
  emscripten_set_mousemove_callback(CANVAS, &g_in, EM_FALSE, on_canvas_move);
  emscripten_set_mouseleave_callback(CANVAS, &g_in, EM_FALSE, on_canvas_leave);
  emscripten_set_mousemove_callback(EMSCRIPTEN_EVENT_TARGET_DOCUMENT, &g_in, EM_FALSE, on_doc_move);
  emscripten_set_mouseup_callback(EMSCRIPTEN_EVENT_TARGET_DOCUMENT, &g_in, EM_FALSE, on_doc_up);
  emscripten_set_keydown_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, &g_in, EM_FALSE, on_key);
}
