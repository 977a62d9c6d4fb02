/* app_view_json.c: the view as the page's view() reads it (app.h
 * st_app_view_json): its window and where the axis reads 0 in file
 * microseconds, the scroll, and the streaming bytes still due for it. Kept
 * apart from app_view.c so that the view's state does not call the
 * streaming reads (which build views again): calls app_set.c and
 * app_stream.c only, and nothing in core/app calls it.
 */
#include "app_internal.h"

static void write_view(st_jout *o, st_app *app, const void *arg) {
  (void)arg;
  double t0 = 0, t1 = 0, origin = (double)st_trace_origin_ns(app->trace);
  st_ui_window(app->ui, &t0, &t1);
  st_jout_lit(o, "{\"start_us\":");
  st_jout_sig(o, (origin + t0) / 1000.0, 17);
  st_jout_lit(o, ",\"end_us\":");
  st_jout_sig(o, (origin + t1) / 1000.0, 17);
  st_jout_lit(o, ",\"axis_zero_us\":"); /* where the axis reads 0, in the file's clock */
  st_jout_sig(o, (origin + st_ui_axis_zero(app->ui)) / 1000.0, 17);
  st_jout_lit(o, ",\"scroll_y\":");
  st_jout_sig(o, st_ui_view(app->ui)->scroll_y, 9);
  st_jout_lit(o, ",\"pending\":"); /* streaming mode: window bytes still to read */
  st_jout_u64(o, st_app_stream_due(app));
  st_jout_lit(o, "}");
}

const char *st_app_view_json(st_app *app) {
  if (!app->trace || !app->ui) return "null";
  return st_app_json(app, &app->small, write_view, NULL, "null");
}
