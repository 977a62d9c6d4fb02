/* app_view.c: what an input or a panel changed, and the view (app.h):
 * change bits (redraw, held-key animation, the other pane following, the
 * platform's panels), the canvas, the view in file microseconds, the panes
 * side by side, and moving the files shown on the shared timeline. Calls
 * app_set.c only.
 */
#include "app_internal.h"

#include <math.h>
#include <string.h>

/* ---- change bits ---------------------------------------------------------------- */

/* The files shown moved by deltas[k] ns each (the set moved the merged
 * view's times): the lod follows, and the summary snapshot, taken at the
 * old times, goes stale (app->moves). */
static void parts_moved(st_app *app, const int64_t *deltas) {
  uint32_t n;
  const st_trace_part *parts = st_trace_parts(app->trace, &n);
  for (uint32_t k = 0; k < n; k++)
    st_lod_shift_rows(app->lod, parts[k].row_base, parts[k].row_base + parts[k].row_count,
                      deltas[k]);
  app->moves++;
}

/* Moves file h to offset_ns (the others keep theirs). */
static int move_file(st_app *app, st_trace_handle h, double offset_ns) {
  int64_t deltas[ST_APP_MAX_TRACES];
  if (!app->lod || !isfinite(offset_ns) || !(fabs(offset_ns) < 4e18) ||
      st_traceset_set_offset(app->set, h, (int64_t)llround(offset_ns), deltas) != ST_OK)
    return 0;
  parts_moved(app, deltas);
  return 1;
}

void st_app_apply(st_app *app, unsigned ch) {
  uint32_t part;
  double delta;
  st_traceset_file f;
  if ((ch & ST_UI_SHIFT) && app->ui && st_ui_take_shift(app->ui, &part, &delta) &&
      st_traceset_get(app->set, st_app_part(app, part), &f)) /* alt+drag of a file's header */
    if (move_file(app, st_app_part(app, part), (double)f.offset_ns + delta))
      ch |= ST_UI_REDRAW | ST_UI_VIEW;
  if ((ch & ST_UI_FLOWS) && app->ui) app->flow_mode = (int)st_ui_flow_mode(app->ui);
  if ((ch & ST_UI_SELECTION) && app->path_edge_count) { /* the path's arrows go with it */
    app->path_edge_count = 0;
    ch |= ST_UI_REDRAW;
  }
  if (app->side && app->ui) /* the panes show the same time, selection, mark, search, tool */
    ch |= st_ui_follow(app->ui == app->pane[0] ? app->pane[1] : app->pane[0], app->ui, ch);
  if (ch & ST_UI_REDRAW) app->dirty = 1;
  if (ch & ST_UI_ANIMATING) {
    if (!app->animating) app->last_tick_ms = st_app_now(app);
    app->animating = 1;
    app->dirty = 1;
  }
  /* at once, not at the next frame: the platform's panels (tool, search box
   * focus, details) must agree with the state as soon as the event is done */
  unsigned panels = ch & ~(unsigned)(ST_UI_HANDLED | ST_UI_REDRAW | ST_UI_ANIMATING);
  if (panels && app->pf.ui_changed) app->pf.ui_changed(app->pf.ud, panels);
}

void st_app_request_redraw(st_app *app) { app->dirty = 1; }

st_ui *st_app_ui(st_app *app) { return app->ui; }

/* ---- canvas and view ------------------------------------------------------------ */

void st_app_canvas(const st_app *app, float *css_w, float *css_h, float *dpr) {
  if (css_w) *css_w = app->css_w;
  if (css_h) *css_h = app->css_h;
  if (dpr) *dpr = app->dpr;
}

void st_app_resize(st_app *app, float css_w, float css_h, float dpr) {
  if (!(css_w >= 1)) css_w = 1;
  if (!(css_h >= 1)) css_h = 1;
  if (!(dpr > 0)) dpr = 1;
  app->css_w = css_w;
  app->css_h = css_h;
  app->dpr = dpr;
  if (app->side) {
    st_ui_resize(app->pane[1 - (app->ui == app->pane[1])], css_w / 2, css_h, dpr);
    app->pane_dx = app->ui == app->pane[1] ? css_w / 2 : 0;
    st_app_apply(app, st_ui_resize(app->ui, css_w / 2, css_h, dpr));
  } else if (app->ui) {
    st_app_apply(app, st_ui_resize(app->ui, css_w, css_h, dpr));
  }
  app->dirty = 1;
}

void st_app_fit(st_app *app) {
  if (app->ui) st_app_apply(app, st_ui_fit(app->ui));
}

void st_app_set_cover(st_app *app, double top, double bottom) {
  app->cover_top = isfinite(top) && top > 0 && top < 1e6 ? (float)top : 0;
  app->cover_bottom = isfinite(bottom) && bottom > 0 && bottom < 1e6 ? (float)bottom : 0;
  if (app->ui) st_app_apply(app, st_ui_set_cover(app->ui, app->cover_top, app->cover_bottom));
  if (app->side && app->pane[1])
    st_app_apply(app, st_ui_set_cover(app->pane[1], app->cover_top, app->cover_bottom));
}

int st_app_view_set(st_app *app, double start_us, double end_us) {
  if (!app->ui || !isfinite(start_us) || !isfinite(end_us) || !(end_us > start_us)) return 0;
  double origin = (double)st_trace_origin_ns(app->trace);
  st_app_apply(app, st_ui_set_view(app->ui, start_us * 1000.0 - origin, end_us * 1000.0 - origin));
  return 1;
}

int st_app_set_flow_mode(st_app *app, int mode) {
  if (mode < ST_FLOWS_OFF || mode > ST_FLOWS_ALL) return -1;
  app->flow_mode = mode;
  if (app->ui) st_app_apply(app, st_ui_set_flow_mode(app->ui, (st_flow_mode)mode));
  return mode;
}

int st_app_flow_mode(const st_app *app) { return app->flow_mode; }

void st_app_set_tool(st_app *app, int tool) {
  if (tool < 0 || tool > 3) return;
  app->tool = tool;
  if (app->ui) st_app_apply(app, st_ui_set_tool(app->ui, (st_tool)tool));
}

int st_app_select(st_app *app, double row, double index, int reveal) {
  if (!app->ui || !app->trace || !(row >= 0 && row < 4294967295.0) ||
      !(index >= 0 && index < 4294967295.0))
    return 0;
  st_event_ref ref = {(uint32_t)row, (uint32_t)index};
  if (!st_ref_valid(app->trace, ref)) return 0;
  st_app_apply(app, st_ui_select(app->ui, ref, 0));
  if (reveal) st_app_apply(app, st_ui_reveal(app->ui, ref));
  return 1;
}

/* ---- side by side ---------------------------------------------------------------- */

int st_app_side_by_side(const st_app *app) { return app->side; }

float st_app_pane_dx(const st_app *app) { return app->pane_dx; }

int st_app_set_side_by_side(st_app *app, int on) {
  on = on ? 1 : 0;
  if (on == app->side || !app->ui) return app->side;
  if (on && st_app_count(app) < 2) return 0;
  uint32_t nparts;
  st_trace_parts(app->trace, &nparts);
  if (on) {
    st_ui *b = st_ui_create(&app->alloc, app->trace, app->css_w / 2, app->css_h, app->dpr);
    if (!b) return -1; /* out of memory: stays stacked */
    st_ui *a = app->ui;
    st_ui_copy_tracks(b, a);
    for (uint32_t k = 0; k < nparts; k++) {
      st_ui_set_group_hidden(a, k, k != 0);
      st_ui_set_group_hidden(b, k, k != 1);
    }
    double t0, t1;
    st_ui_window(a, &t0, &t1);
    st_ui_resize(a, app->css_w / 2, app->css_h, app->dpr);
    st_ui_set_view(a, t0, t1);
    st_ui_set_view(b, t0, t1);
    st_ui_set_tool(b, (st_tool)app->tool);
    st_ui_set_flow_mode(b, (st_flow_mode)app->flow_mode);
    app->pane[0] = a;
    app->pane[1] = b;
    app->pane_dx = 0;
    app->side = 1;
  } else {
    st_ui *a = app->pane[0];
    double t0, t1;
    st_ui_window(app->ui, &t0, &t1);
    app->ui = a;
    st_ui_destroy(app->pane[1]);
    app->pane[0] = app->pane[1] = NULL;
    app->side = 0;
    app->pane_dx = 0;
    for (uint32_t k = 0; k < nparts; k++) st_ui_set_group_hidden(a, k, 0);
    st_ui_resize(a, app->css_w, app->css_h, app->dpr);
    st_ui_set_view(a, t0, t1);
  }
  st_app_apply(app, ST_UI_REDRAW | ST_UI_VIEW | ST_UI_LAYOUT | ST_UI_SELECTION | ST_UI_SEARCH);
  return app->side;
}

float st_app_route_x(st_app *app, float x) {
  if (!app->side) return x;
  float half = app->css_w / 2;
  st_ui *want = app->pane[x >= half];
  if (want && app->ui != want) {
    st_app_apply(app, st_ui_pointer_leave(app->ui));
    app->ui = want;
    st_app_apply(app, ST_UI_SELECTION | ST_UI_SEARCH | ST_UI_TOOL | ST_UI_MARK);
  }
  app->pane_dx = app->ui == app->pane[1] ? half : 0;
  return x - app->pane_dx;
}

/* ---- offsets of the files shown ------------------------------------------------------ */

int st_app_set_offset_ns(st_app *app, st_trace_handle h, double offset_ns) {
  if (!move_file(app, h, offset_ns)) return 0;
  st_app_apply(app, ST_UI_REDRAW | ST_UI_VIEW | ST_UI_SHIFT);
  return 1;
}

int st_app_set_offset(st_app *app, st_trace_handle h, double offset_us) {
  return st_app_shown(app, h, NULL) && st_app_set_offset_ns(app, h, offset_us * 1000.0);
}

int st_app_align_selection(st_app *app) {
  if (!app->ui || !app->lod || st_app_count(app) < 2) return 0;
  uint32_t ns;
  const st_sel_span *sp = st_selection_spans(st_ui_selection(app->ui), &ns);
  int64_t deltas[ST_APP_MAX_TRACES];
  int count = st_traceset_align_events(app->set, sp, ns, deltas);
  if (count < 2) return 0;
  parts_moved(app, deltas);
  st_app_apply(app, ST_UI_REDRAW | ST_UI_VIEW | ST_UI_SHIFT);
  return count;
}
