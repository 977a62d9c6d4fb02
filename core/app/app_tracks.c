/* app_tracks.c: which tracks show (app.h): the track filter, processes
 * without events shown or not, pinned tracks by their stable id
 * (core/view/track_filter.h), applied to every pane, and their state as
 * JSON for the page's box, Info count and link. Calls app_view.c and
 * app_set.c.
 *
 * The state lives in the panes' layouts: a new view (a load) starts with
 * no filter, no pin and empty processes hidden; the second pane of side by
 * side takes the first one's (ui.h st_ui_copy_tracks).
 */
#include "app_internal.h"

#include <string.h>

#include "track_filter.h"

/* Runs the change on every pane (one when stacked) and applies the bits. */
static void each_pane(st_app *app, unsigned (*fn)(st_ui *, const void *), const void *arg) {
  unsigned ch = 0;
  if (app->side) {
    for (int k = 0; k < 2; k++) ch |= fn(app->pane[k], arg);
  } else if (app->ui) {
    ch = fn(app->ui, arg);
  }
  st_app_apply(app, ch);
}

static unsigned do_filter(st_ui *ui, const void *arg) {
  const char *t = arg;
  return st_ui_set_track_filter(ui, t, strlen(t));
}

int st_app_set_track_filter(st_app *app, const char *text) {
  if (!app->ui || !text) return 0;
  each_pane(app, do_filter, text);
  return strcmp(st_layout_filter(st_ui_layout(app->ui)), text) == 0;
}

static unsigned do_empty(st_ui *ui, const void *arg) {
  return st_ui_set_show_empty(ui, *(const int *)arg);
}

void st_app_set_show_empty(st_app *app, int show) {
  show = show != 0;
  each_pane(app, do_empty, &show);
}

typedef struct pin_arg {
  uint32_t track;
  int on;
} pin_arg;

static unsigned do_pin(st_ui *ui, const void *arg) {
  const pin_arg *p = arg;
  return st_ui_set_pinned(ui, p->track, p->on);
}

int st_app_pin(st_app *app, const char *id, int on) {
  if (!app->ui || !id) return 0;
  uint32_t ti = st_track_by_id(app->trace, id, strlen(id));
  if (ti == UINT32_MAX) return 0;
  pin_arg a = {ti, on != 0};
  each_pane(app, do_pin, &a);
  return st_layout_pinned(st_ui_layout(app->ui), ti) == (on != 0);
}

static void write_state(st_jout *o, st_app *app, const void *arg) {
  (void)arg;
  const st_layout *l = st_ui_layout(app->ui);
  uint32_t shown, total = st_layout_track_counts(l, &shown), npins;
  const char *f = st_layout_filter(l);
  st_jout_lit(o, "{\"filter\":");
  st_jout_str(o, f, strlen(f));
  st_jout_lit(o, ",\"tracks\":");
  st_jout_u64(o, total);
  st_jout_lit(o, ",\"shown\":");
  st_jout_u64(o, shown);
  uint32_t np;
  st_trace_processes(app->trace, &np);
  st_jout_lit(o, ",\"processes\":");
  st_jout_u64(o, np);
  st_jout_lit(o, ",\"empty\":");
  st_jout_u64(o, st_layout_empty_count(l));
  st_jout_lit(o, st_layout_show_empty(l) ? ",\"show_empty\":true" : ",\"show_empty\":false");
  st_jout_lit(o, ",\"pinned_h\":");
  st_jout_sig(o, st_layout_pinned_height(l), 9);
  st_jout_lit(o, ",\"pins\":[");
  const uint32_t *pins = st_layout_pins(l, &npins);
  char id[48];
  for (uint32_t k = 0; k < npins; k++) {
    if (k) st_jout_lit(o, ",");
    st_jout_str(o, id, st_track_id(app->trace, pins[k], id, sizeof id));
  }
  st_jout_lit(o, "]}");
}

const char *st_app_tracks_state_json(st_app *app) {
  if (!app->ui) return "null";
  return st_app_json(app, &app->small, write_state, NULL, "null");
}
