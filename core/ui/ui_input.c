/* ui_input.c: pointer, wheel and keys (ui.h): clicks, ctrl+clicks and
 * drags by tool (select, pan, zoom, timing), W/S/A/D held with
 * acceleration (st_ui_tick), tool keys, the cursor, help and flow modes. */
#include "ui_internal.h"

#include <string.h>

static float content_y(const st_ui *ui, float y) {
  return st_layout_content_y(ui->layout, &ui->view, y);
}

/* The track whose label the pointer is on (its pin mark shows), or UINT32_MAX. */
uint32_t ui_pin_hover(const st_ui *ui, const st_hit *h) {
  if (h->kind != ST_HIT_GUTTER && h->kind != ST_HIT_PIN) return UINT32_MAX;
  return st_layout_track_head(ui->layout, h->track);
}

static unsigned update_hover(st_ui *ui, float x, float y) {
  st_hit h = st_hit_test(ui->trace, ui->layout, &ui->view, x, y, HIT_SLOP_PX);
  if (hit_same(&h, &ui->hover)) {
    ui->hover = h; /* t_ns / value follow the pointer */
    return 0;
  }
  unsigned pin = ui_pin_hover(ui, &h) != ui_pin_hover(ui, &ui->hover) ? ST_UI_REDRAW : 0;
  ui->hover = h;
  return ST_UI_HOVER | pin;
}

unsigned st_ui_pointer_down(st_ui *ui, float x, float y, unsigned buttons, unsigned mods) {
  if (!ui) return 0;
  ui->px = x;
  ui->py = y;
  ui->pointer_in = 1;
  if (ui->drag) return ST_UI_HANDLED; /* a second button during a drag */
  unsigned button = buttons & ST_BUTTON_LEFT     ? ST_BUTTON_LEFT
                    : buttons & ST_BUTTON_MIDDLE ? ST_BUTTON_MIDDLE
                                                 : 0;
  if (!button) return 0;
  ui->drag = DRAG_PRESSED;
  ui->drag_button = button;
  ui->drag_mods = mods;
  ui->drag_tool = button == ST_BUTTON_MIDDLE ? ST_TOOL_PAN : (int)ui->tool;
  /* a drag on the time axis always measures */
  if (button == ST_BUTTON_LEFT && y < ST_VIEW_AXIS_H && x >= ST_VIEW_GUTTER_W)
    ui->drag_tool = ST_TOOL_TIMING;
  ui->down_x = ui->last_x = x;
  ui->down_y = ui->last_y = y;
  ui->travel = 0;
  ui->down_t = st_view_time_at(&ui->view, x < ST_VIEW_GUTTER_W ? ST_VIEW_GUTTER_W : x);
  ui->down_cy = content_y(ui, y);
  if (button == ST_BUTTON_LEFT && (mods & ST_MOD_ALT)) {
    st_hit h = st_hit_test(ui->trace, ui->layout, &ui->view, x, y, HIT_SLOP_PX);
    if (h.kind == ST_HIT_GROUP) {
      ui->drag_tool = DRAG_SHIFT;
      ui->shift_part = h.row;
      ui->shift_pending_ns = 0;
    }
  }
  ui->mark_before = ui->has_mark;
  ui->mark_before_t0 = ui->mark_t0;
  ui->mark_before_t1 = ui->mark_t1;
  return ST_UI_HANDLED;
}

double ui_time_at_clamped(const st_ui *ui, float x) {
  if (x < ST_VIEW_GUTTER_W) x = ST_VIEW_GUTTER_W;
  if (x > ui->view.width) x = ui->view.width;
  return st_view_time_at(&ui->view, x);
}

unsigned st_ui_pointer_move(st_ui *ui, float x, float y, unsigned buttons, unsigned mods) {
  if (!ui) return 0;
  ui->px = x;
  ui->py = y;
  ui->pointer_in = x >= 0 && y >= 0 && x < ui->view.width && y < ui->view.height;
  if (!ui->drag) return update_hover(ui, x, y);
  if (!(buttons & ui->drag_button)) return st_ui_pointer_up(ui, x, y, buttons, mods);
  float dx = x - ui->last_x, dy = y - ui->last_y;
  ui->last_x = x;
  ui->last_y = y;
  ui->travel += fabsf(dx) + fabsf(dy);
  unsigned ch = ST_UI_HANDLED;
  if (ui->drag == DRAG_PRESSED) {
    if (ui->travel < CLICK_SLOP_PX) return ch;
    ui->drag = DRAG_ACTIVE;
    if (ui->hover.kind != ST_HIT_NONE) {
      ui->hover = no_hit(); /* no tooltip while dragging */
      ch |= ST_UI_HOVER;
    }
    /* the first move past the slop pans by the whole travel */
    dx = x - ui->down_x;
    dy = y - ui->down_y;
  }
  switch (ui->drag_tool) {
  case ST_TOOL_PAN:
    st_view_pan_px(&ui->view, -dx);
    ui_clamp_time(ui);
    if (dy != 0) ui->target_row = UINT32_MAX;
    ui->view.scroll_y -= dy;
    ui_clamp_scroll(ui);
    ch |= ST_UI_VIEW | ST_UI_REDRAW;
    break;
  case ST_TOOL_TIMING: ch |= st_ui_set_mark(ui, ui->down_t, ui_time_at_clamped(ui, x)); break;
  case DRAG_SHIFT:
    ui->shift_pending_ns += (double)dx * ui->view.ns_per_px;
    ch |= ST_UI_SHIFT | ST_UI_REDRAW;
    break;
  default: /* select box, zoom range: drawn from the drag state */ ch |= ST_UI_REDRAW; break;
  }
  return ch;
}

static void click(st_ui *ui, float x, float y, unsigned mods, unsigned *ch) {
  st_hit h = st_hit_test(ui->trace, ui->layout, &ui->view, x, y, HIT_SLOP_PX);
  int add = (mods & (ST_MOD_CTRL | ST_MOD_META)) != 0;
  if (h.kind == ST_HIT_SECTION) {
    *ch |= st_ui_toggle_section(ui, h.process);
  } else if (h.kind == ST_HIT_PIN) {
    *ch |= st_ui_set_pinned(ui, h.track, !st_layout_pinned(ui->layout, h.track));
  } else if (h.kind == ST_HIT_GROUP) {
    *ch |= st_ui_toggle_group(ui, h.row);
  } else if (h.kind == ST_HIT_EVENT) {
    *ch |= st_ui_select(ui, (st_event_ref){h.row, h.index}, add);
  } else if (!add && h.kind != ST_HIT_AXIS && h.kind != ST_HIT_GUTTER &&
             st_selection_count(ui->sel)) {
    st_selection_clear(ui->sel);
    *ch |= ST_UI_SELECTION | ST_UI_REDRAW;
  }
}

unsigned st_ui_pointer_up(st_ui *ui, float x, float y, unsigned buttons, unsigned mods) {
  if (!ui || !ui->drag) return 0;
  unsigned ch = ST_UI_HANDLED;
  int was = ui->drag;
  ui->drag = DRAG_NONE;
  if (was == DRAG_PRESSED) {
    if (ui->drag_button == ST_BUTTON_LEFT) click(ui, ui->down_x, ui->down_y, ui->drag_mods, &ch);
    return ch | update_hover(ui, x, y);
  }
  double t = ui_time_at_clamped(ui, x);
  switch (ui->drag_tool) {
  case ST_TOOL_SELECT: {
    int add = ((ui->drag_mods | mods) & (ST_MOD_CTRL | ST_MOD_META | ST_MOD_SHIFT)) != 0;
    ch |= st_ui_select_box(ui, ui->down_t, t, ui->down_cy, content_y(ui, y), add);
    ch |= ST_UI_REDRAW;
    break;
  }
  case ST_TOOL_ZOOM:
    if (fabs(st_view_x_of(&ui->view, t) - st_view_x_of(&ui->view, ui->down_t)) >= CLICK_SLOP_PX)
      ch |= st_ui_set_view(ui, fmin(ui->down_t, t), fmax(ui->down_t, t));
    ch |= ST_UI_REDRAW;
    break;
  case ST_TOOL_TIMING: ch |= st_ui_set_mark(ui, ui->down_t, t); break;
  default: break;
  }
  return ch | update_hover(ui, x, y);
}

unsigned st_ui_pointer_leave(st_ui *ui) {
  if (!ui) return 0;
  ui->pointer_in = 0;
  if (ui->hover.kind == ST_HIT_NONE) return 0;
  ui->hover = no_hit();
  return ST_UI_HOVER;
}

unsigned st_ui_double_click(st_ui *ui, float x, float y, unsigned mods) {
  if (!ui) return 0;
  st_hit h = st_hit_test(ui->trace, ui->layout, &ui->view, x, y, HIT_SLOP_PX);
  if (h.kind != ST_HIT_EVENT) return 0;
  const st_row *r = &st_trace_rows(ui->trace, NULL)[h.row];
  double s = (double)r->start[h.index], e = s + (double)r->dur[h.index];
  unsigned ch = st_ui_select(ui, (st_event_ref){h.row, h.index}, 0);
  return ch | ui_fit_span(ui, s, e) | update_hover(ui, x, y);
}

unsigned st_ui_wheel(st_ui *ui, float dx, float dy, unsigned mods, float x, float y) {
  if (!ui || !isfinite(dx) || !isfinite(dy)) return 0;
  ui->px = x;
  ui->py = y;
  unsigned ch = ST_UI_HANDLED;
  if (mods & (ST_MOD_CTRL | ST_MOD_META)) {
    ch |= st_ui_zoom(ui, exp(-(double)dy * WHEEL_ZOOM_RATE), x);
  } else if (mods & ST_MOD_SHIFT) {
    /* some platforms turn shift+wheel into a horizontal wheel themselves */
    ch |= st_ui_pan_px(ui, dy != 0 ? dy : dx);
  } else {
    if (dy != 0) ch |= st_ui_scroll_px(ui, dy);
    if (dx != 0) ch |= st_ui_pan_px(ui, dx);
  }
  if (ch & ST_UI_VIEW) ch |= update_hover(ui, x, y);
  return ch;
}

static int hold_index(const char *k) {
  if (!k || !k[0] || k[1]) return -1;
  switch (k[0]) {
  case 'w':
  case 'W': return HOLD_ZOOM_IN;
  case 's':
  case 'S': return HOLD_ZOOM_OUT;
  case 'a':
  case 'A': return HOLD_LEFT;
  case 'd':
  case 'D': return HOLD_RIGHT;
  default: return -1;
  }
}

/* The zoom anchor: the mouse if it is over the timeline, else the centre. */
static float zoom_x(const st_ui *ui) {
  if (ui->pointer_in && ui->px >= ST_VIEW_GUTTER_W && ui->px < ui->view.width &&
      ui->py >= ST_VIEW_AXIS_H)
    return ui->px;
  return -1; /* st_view_zoom: outside the timeline means the centre */
}

static void hold_move(st_ui *ui, int which, double amount) {
  float w = st_view_timeline_w(&ui->view);
  switch (which) {
  case HOLD_ZOOM_IN: st_view_zoom(&ui->view, amount, zoom_x(ui)); break;
  case HOLD_ZOOM_OUT: st_view_zoom(&ui->view, 1.0 / amount, zoom_x(ui)); break;
  case HOLD_LEFT: st_view_pan_px(&ui->view, -(float)(amount * w)); break;
  case HOLD_RIGHT: st_view_pan_px(&ui->view, (float)(amount * w)); break;
  }
  ui_clamp_time(ui);
}

int st_ui_animating(const st_ui *ui) { return ui && ui->held; }

unsigned st_ui_tick(st_ui *ui, double dt) {
  if (!ui || !ui->held) return 0;
  if (!(dt > 0)) return ST_UI_ANIMATING;
  if (dt > TICK_MAX_MS) dt = TICK_MAX_MS;
  for (int k = 0; k < HOLD_N; k++) {
    if (!(ui->held & 1u << k)) continue;
    /* speed rises linearly from 1x to HOLD_MAX_SPEED over HOLD_ACCEL_MS,
     * then stays there; integrate it over [t, t + dt]: the ramp's part is
     * [ta, tb], the maximum's [max(t, tb), t2] */
    double t = ui->held_ms[k], t2 = t + dt;
    double slope = (HOLD_MAX_SPEED - 1) / HOLD_ACCEL_MS;
    double ta = t < HOLD_ACCEL_MS ? t : HOLD_ACCEL_MS, tb = t2 < HOLD_ACCEL_MS ? t2 : HOLD_ACCEL_MS;
    double dist_ms =
        (tb - ta) * (1 + slope * (ta + tb) / 2) + (t2 - (t > tb ? t : tb)) * HOLD_MAX_SPEED;
    ui->held_ms[k] = t2;
    if (k == HOLD_ZOOM_IN || k == HOLD_ZOOM_OUT)
      hold_move(ui, k, exp(HOLD_ZOOM_RATE * dist_ms / 1000.0));
    else
      hold_move(ui, k, HOLD_PAN_RATE * dist_ms / 1000.0);
  }
  return ST_UI_VIEW | ST_UI_REDRAW | ST_UI_ANIMATING | update_hover(ui, ui->px, ui->py);
}

unsigned st_ui_set_tool(st_ui *ui, st_tool tool) {
  if (!ui || (unsigned)tool > ST_TOOL_TIMING) return 0;
  if (ui->tool == tool) return ST_UI_HANDLED;
  ui->tool = tool;
  return ST_UI_HANDLED | ST_UI_TOOL;
}

st_tool st_ui_tool(const st_ui *ui) { return ui ? ui->tool : ST_TOOL_SELECT; }

const char *st_ui_tool_name(st_tool tool) {
  switch (tool) {
  case ST_TOOL_SELECT: return "select";
  case ST_TOOL_PAN: return "pan";
  case ST_TOOL_ZOOM: return "zoom";
  case ST_TOOL_TIMING: return "timing";
  }
  return "select";
}

static unsigned cancel_drag(st_ui *ui) {
  if (!ui->drag) return 0;
  int active = ui->drag == DRAG_ACTIVE;
  ui->drag = DRAG_NONE;
  if (!active) return ST_UI_HANDLED;
  unsigned ch = ST_UI_HANDLED | ST_UI_REDRAW;
  if (ui->drag_tool == ST_TOOL_TIMING) {
    ui->has_mark = ui->mark_before;
    ui->mark_t0 = ui->mark_before_t0;
    ui->mark_t1 = ui->mark_before_t1;
    ch |= ST_UI_MARK;
  }
  return ch;
}

/* p: pins / unpins the track under the pointer (its rows or its label). */
static unsigned pin_key(st_ui *ui) {
  st_hit h = st_hit_test(ui->trace, ui->layout, &ui->view, ui->px, ui->py, HIT_SLOP_PX);
  if (!ui->pointer_in || h.track == UINT32_MAX) return ST_UI_HANDLED;
  unsigned ch = st_ui_set_pinned(ui, h.track, !st_layout_pinned(ui->layout, h.track));
  return ch | ST_UI_HANDLED | update_hover(ui, ui->px, ui->py);
}

unsigned st_ui_key_down(st_ui *ui, const char *key, unsigned mods) {
  if (!ui || !key) return 0;
  int cmd = (mods & (ST_MOD_CTRL | ST_MOD_META)) != 0;
  if (cmd) {
    if ((key[0] == 'f' || key[0] == 'F') && !key[1]) return ST_UI_HANDLED | ST_UI_FOCUS_SEARCH;
    return 0; /* the browser's shortcuts */
  }
  if (mods & ST_MOD_ALT) return 0;
  int h = hold_index(key);
  if (h >= 0) {
    if (ui->held & 1u << h) return ST_UI_HANDLED | ST_UI_ANIMATING; /* auto-repeat */
    ui->held |= 1u << h;
    ui->held_ms[h] = 0;
    hold_move(ui, h, h <= HOLD_ZOOM_OUT ? KEY_TAP_ZOOM : KEY_TAP_PAN);
    return ST_UI_HANDLED | ST_UI_VIEW | ST_UI_REDRAW | ST_UI_ANIMATING |
           update_hover(ui, ui->px, ui->py);
  }
  if (!strcmp(key, "Escape")) {
    unsigned ch = cancel_drag(ui);
    if (ch) return ch;
    if (ui->help) return st_ui_set_help(ui, 0);
    return st_ui_clear(ui);
  }
  int steps = ui_search_key_steps(ui, key, mods);
  if (steps) return st_ui_search_step(ui, steps);
  if (!strcmp(key, "ArrowLeft"))
    return st_ui_pan_px(ui, -st_view_timeline_w(&ui->view) * KEY_TAP_PAN);
  if (!strcmp(key, "ArrowRight"))
    return st_ui_pan_px(ui, st_view_timeline_w(&ui->view) * KEY_TAP_PAN);
  if (!strcmp(key, "ArrowUp")) return st_ui_scroll_px(ui, -ST_VIEW_ROW_H * ARROW_SCROLL_ROWS);
  if (!strcmp(key, "ArrowDown")) return st_ui_scroll_px(ui, ST_VIEW_ROW_H * ARROW_SCROLL_ROWS);
  if (!key[0] || key[1]) return 0;
  switch (key[0]) {
  case '0': return st_ui_fit(ui);
  case '1':
  case '!': return st_ui_set_tool(ui, ST_TOOL_SELECT);
  case '2':
  case '@': return st_ui_set_tool(ui, ST_TOOL_PAN);
  case '3':
  case '#': return st_ui_set_tool(ui, ST_TOOL_ZOOM);
  case '4':
  case '$': return st_ui_set_tool(ui, ST_TOOL_TIMING);
  case 'm':
  case 'M': return st_ui_mark_selection(ui);
  case 'f':
  case 'F': return st_ui_fit_selection(ui);
  case '/': return ST_UI_HANDLED | ST_UI_FOCUS_SEARCH;
  case '?': return st_ui_set_help(ui, !ui->help);
  case 'l':
  case 'L': return st_ui_set_flow_mode(ui, (st_flow_mode)((ui->flow_mode + 1) % 3));
  case 'p':
  case 'P': return pin_key(ui);
  case 't':
  case 'T': return ST_UI_HANDLED | ST_UI_FOCUS_FILTER;
  default: return 0;
  }
}

unsigned st_ui_key_up(st_ui *ui, const char *key, unsigned mods) {
  if (!ui || !key) return 0;
  int h = hold_index(key);
  if (h < 0 || !(ui->held & 1u << h)) return 0;
  ui->held &= ~(1u << h);
  return ST_UI_HANDLED | (ui->held ? ST_UI_ANIMATING : 0);
}

unsigned st_ui_blur(st_ui *ui) {
  if (!ui) return 0;
  ui->held = 0;
  return cancel_drag(ui);
}

st_hit st_ui_hover(const st_ui *ui) { return ui ? ui->hover : no_hit(); }

const char *st_ui_cursor(const st_ui *ui) {
  if (!ui) return "default";
  if (ui->drag == DRAG_ACTIVE) {
    switch (ui->drag_tool) {
    case ST_TOOL_PAN: return "grabbing";
    case ST_TOOL_ZOOM: return "zoom-in";
    case ST_TOOL_TIMING: return "col-resize";
    default: return "crosshair";
    }
  }
  if (ui->hover.kind == ST_HIT_SECTION || ui->hover.kind == ST_HIT_GROUP ||
      ui->hover.kind == ST_HIT_PIN)
    return "pointer";
  if (ui->hover.kind == ST_HIT_AXIS) return "col-resize";
  switch (ui->tool) {
  case ST_TOOL_PAN: return "grab";
  case ST_TOOL_ZOOM: return "zoom-in";
  case ST_TOOL_TIMING: return "col-resize";
  default: return ui->hover.kind == ST_HIT_EVENT ? "pointer" : "default";
  }
}

int st_ui_help_visible(const st_ui *ui) { return ui && ui->help; }

st_flow_mode st_ui_flow_mode(const st_ui *ui) {
  return ui ? (st_flow_mode)ui->flow_mode : ST_FLOWS_SELECTION;
}

unsigned st_ui_set_flow_mode(st_ui *ui, st_flow_mode mode) {
  if (!ui || (unsigned)mode > ST_FLOWS_ALL) return 0;
  ui->flow_mode = (int)mode;
  return ST_UI_HANDLED | ST_UI_FLOWS | ST_UI_REDRAW;
}

const char *st_flow_mode_name(st_flow_mode mode) {
  switch (mode) {
  case ST_FLOWS_OFF: return "off";
  case ST_FLOWS_ALL: return "all";
  default: return "selection";
  }
}

int st_flow_mode_parse(const char *s, size_t len, st_flow_mode *mode) {
  for (int m = ST_FLOWS_OFF; m <= ST_FLOWS_ALL; m++) {
    const char *name = st_flow_mode_name((st_flow_mode)m);
    if (s && strlen(name) == len && !memcmp(name, s, len)) {
      if (mode) *mode = (st_flow_mode)m;
      return 1;
    }
  }
  return 0;
}

unsigned st_ui_set_help(st_ui *ui, int visible) {
  if (!ui) return 0;
  ui->help = visible != 0;
  return ST_UI_HANDLED | ST_UI_HELP;
}
