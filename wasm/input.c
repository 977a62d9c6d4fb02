/* input.c: DOM events -> st_ui calls on the app's ui in use (see input.h).
 *
 * Why DOM events rather than SDL's: SDL's wheel event drops ctrlKey (and a
 * trackpad pinch arrives as ctrl+wheel with no key events at all) and
 * quantises deltas; SDL's mouse coordinates are scaled by its own idea of the
 * window size. Here every position is in CSS px relative to the canvas,
 * which is what the core expects. Returning EM_TRUE makes the browser
 * preventDefault() the event: done only when the core used it.
 */
#include "input.h"

#include <emscripten/html5.h>
#include <string.h>

#include "js_bridge.h"

#define CANVAS "#canvas"

static unsigned mods_of(int shift, int ctrl, int alt, int meta) {
  return (shift ? ST_MOD_SHIFT : 0u) | (ctrl ? ST_MOD_CTRL : 0u) | (alt ? ST_MOD_ALT : 0u) |
         (meta ? ST_MOD_META : 0u);
}

static unsigned mouse_mods(const EmscriptenMouseEvent *e) {
  return mods_of(e->shiftKey, e->ctrlKey, e->altKey, e->metaKey);
}

/* Applies what an st_ui call changed; returns whether it used the event. */
static EM_BOOL apply(st_app *app, unsigned ch) {
  st_app_apply(app, ch);
  return (ch & ST_UI_HANDLED) ? EM_TRUE : EM_FALSE;
}

static double wheel_px(double d, unsigned long mode, float page) {
  switch (mode) {
  case DOM_DELTA_LINE: return d * 16.0;
  case DOM_DELTA_PAGE: return d * page;
  default: return d;
  }
}

static EM_BOOL on_wheel(int type, const EmscriptenWheelEvent *e, void *ud) {
  st_input *in = ud;
  st_app *app = in->app;
  if (!st_app_ui(app)) return EM_FALSE;
  float w, h;
  st_app_canvas(app, &w, &h, NULL);
  float dy = (float)wheel_px(e->deltaY, e->deltaMode, h);
  float dx = (float)wheel_px(e->deltaX, e->deltaMode, w);
  float wx = st_app_route_x(app, (float)e->mouse.targetX);
  return apply(
      app, st_ui_wheel(st_app_ui(app), dx, dy, mouse_mods(&e->mouse), wx, (float)e->mouse.targetY));
}

static EM_BOOL on_down(int type, const EmscriptenMouseEvent *e, void *ud) {
  st_input *in = ud;
  st_app *app = in->app;
  if (!st_app_ui(app)) return EM_FALSE;
  unsigned b = (unsigned)e->buttons & 7u;
  /* DOM `buttons` uses the ST_BUTTON_* bits (1 left, 2 right, 4 middle) */
  if (!b) b = e->button == 0 ? ST_BUTTON_LEFT : e->button == 1 ? ST_BUTTON_MIDDLE : ST_BUTTON_RIGHT;
  float px = st_app_route_x(app, (float)e->targetX); /* side by side: the pane pressed */
  unsigned ch = st_ui_pointer_down(st_app_ui(app), px, (float)e->targetY, b, mouse_mods(e));
  if (ch & ST_UI_HANDLED) {
    in->dragging = 1;
    in->origin_x = e->clientX - e->targetX;
    in->origin_y = e->clientY - e->targetY;
  }
  return apply(app, ch); /* also keeps the browser from selecting text while dragging */
}

static EM_BOOL on_canvas_move(int type, const EmscriptenMouseEvent *e, void *ud) {
  st_input *in = ud;
  st_app *app = in->app;
  if (!st_app_ui(app) || in->dragging) return EM_FALSE; /* drags are followed on the document */
  float px = st_app_route_x(app, (float)e->targetX);
  apply(app, st_ui_pointer_move(st_app_ui(app), px, (float)e->targetY, (unsigned)e->buttons,
                                mouse_mods(e)));
  return EM_FALSE;
}

static EM_BOOL on_canvas_leave(int type, const EmscriptenMouseEvent *e, void *ud) {
  st_input *in = ud;
  if (st_app_ui(in->app) && !in->dragging) apply(in->app, st_ui_pointer_leave(st_app_ui(in->app)));
  return EM_FALSE;
}

static EM_BOOL on_doc_move(int type, const EmscriptenMouseEvent *e, void *ud) {
  st_input *in = ud;
  st_app *app = in->app;
  if (!st_app_ui(app) || !in->dragging) return EM_FALSE;
  unsigned ch =
      st_ui_pointer_move(st_app_ui(app), (float)(e->clientX - in->origin_x) - st_app_pane_dx(app),
                         (float)(e->clientY - in->origin_y), (unsigned)e->buttons, mouse_mods(e));
  if (!(e->buttons & 7)) in->dragging = 0; /* released outside the window */
  apply(app, ch);
  return EM_FALSE;
}

static EM_BOOL on_doc_up(int type, const EmscriptenMouseEvent *e, void *ud) {
  st_input *in = ud;
  st_app *app = in->app;
  if (!st_app_ui(app) || !in->dragging) return EM_FALSE;
  if (!(e->buttons & 7)) in->dragging = 0;
  apply(app,
        st_ui_pointer_up(st_app_ui(app), (float)(e->clientX - in->origin_x) - st_app_pane_dx(app),
                         (float)(e->clientY - in->origin_y), (unsigned)e->buttons, mouse_mods(e)));
  return EM_FALSE;
}

static EM_BOOL on_dblclick(int type, const EmscriptenMouseEvent *e, void *ud) {
  st_input *in = ud;
  if (!st_app_ui(in->app)) return EM_FALSE;
  float px = st_app_route_x(in->app, (float)e->targetX);
  return apply(in->app,
               st_ui_double_click(st_app_ui(in->app), px, (float)e->targetY, mouse_mods(e)));
}

/* Touches: each changed finger to the gesture recogniser. Taken touches
 * are preventDefault()ed (EM_TRUE), which also stops the browser from
 * synthesising mouse events from them (a tap would otherwise click twice). */
static EM_BOOL on_touch(int type, const EmscriptenTouchEvent *e, void *ud) {
  st_input *in = ud;
  st_app *app = in->app;
  if (!st_app_ui(app)) return EM_FALSE;
  unsigned ch = 0;
  int n = e->numTouches < 32 ? e->numTouches : 32;
  /* side by side: a gesture belongs to the pane its first finger touched */
  if (type == EMSCRIPTEN_EVENT_TOUCHSTART && e->numTouches == 1)
    st_app_route_x(app, (float)e->touches[0].targetX);
  for (int i = 0; i < n; i++) {
    const EmscriptenTouchPoint *p = &e->touches[i];
    if (!p->isChanged) continue;
    float x = (float)p->targetX - st_app_pane_dx(app), y = (float)p->targetY;
    switch (type) {
    case EMSCRIPTEN_EVENT_TOUCHSTART:
      ch |= st_touch_start(&in->touch, st_app_ui(app), p->identifier, x, y);
      break;
    case EMSCRIPTEN_EVENT_TOUCHMOVE:
      ch |= st_touch_move(&in->touch, st_app_ui(app), p->identifier, x, y);
      break;
    case EMSCRIPTEN_EVENT_TOUCHEND:
      ch |= st_touch_end(&in->touch, st_app_ui(app), p->identifier, x, y, 0);
      break;
    default: ch |= st_touch_end(&in->touch, st_app_ui(app), p->identifier, x, y, 1); break;
    }
  }
  return apply(app, ch);
}

static EM_BOOL on_key_down(int type, const EmscriptenKeyboardEvent *e, void *ud) {
  st_input *in = ud;
  st_app *app = in->app;
  if (!st_app_ui(app) || st_js_focus_in_text_field()) return EM_FALSE;
  if (!strcmp(e->key, "Enter") && st_js_focus_takes_enter()) return EM_FALSE;
  unsigned mods = mods_of(e->shiftKey, e->ctrlKey, e->altKey, e->metaKey);
  return apply(app, st_ui_key_down(st_app_ui(app), e->key, mods));
}

static EM_BOOL on_key_up(int type, const EmscriptenKeyboardEvent *e, void *ud) {
  st_input *in = ud;
  st_app *app = in->app;
  if (!st_app_ui(app)) return EM_FALSE;
  /* always: a held key must be released even if focus moved meanwhile */
  apply(app, st_ui_key_up(st_app_ui(app), e->key,
                          mods_of(e->shiftKey, e->ctrlKey, e->altKey, e->metaKey)));
  return EM_FALSE;
}

static EM_BOOL on_blur(int type, const EmscriptenFocusEvent *e, void *ud) {
  st_input *in = ud;
  in->dragging = 0;
  if (st_app_ui(in->app)) apply(in->app, st_ui_blur(st_app_ui(in->app)));
  return EM_FALSE;
}

void st_input_install(st_input *in, st_app *app) {
  memset(in, 0, sizeof *in);
  in->app = app;
  emscripten_set_wheel_callback(CANVAS, in, EM_FALSE, on_wheel);
  emscripten_set_mousedown_callback(CANVAS, in, EM_FALSE, on_down);
  emscripten_set_mousemove_callback(CANVAS, in, EM_FALSE, on_canvas_move);
  emscripten_set_mouseleave_callback(CANVAS, in, EM_FALSE, on_canvas_leave);
  emscripten_set_dblclick_callback(CANVAS, in, EM_FALSE, on_dblclick);
  st_touch_reset(&in->touch);
  emscripten_set_touchstart_callback(CANVAS, in, EM_FALSE, on_touch);
  emscripten_set_touchmove_callback(CANVAS, in, EM_FALSE, on_touch);
  emscripten_set_touchend_callback(CANVAS, in, EM_FALSE, on_touch);
  emscripten_set_touchcancel_callback(CANVAS, in, EM_FALSE, on_touch);
  emscripten_set_mousemove_callback(EMSCRIPTEN_EVENT_TARGET_DOCUMENT, in, EM_FALSE, on_doc_move);
  emscripten_set_mouseup_callback(EMSCRIPTEN_EVENT_TARGET_DOCUMENT, in, EM_FALSE, on_doc_up);
  emscripten_set_keydown_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, in, EM_FALSE, on_key_down);
  emscripten_set_keyup_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, in, EM_FALSE, on_key_up);
  emscripten_set_blur_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, in, EM_FALSE, on_blur);
}
