/* app_build.c: the app's part of the view the trace set builds (the set's
 * build_view and drop_view hooks, traceset.h): the level-of-detail index and
 * the ui on the view, and, when it goes, them and every snapshot taken of
 * it. Used by a batch's end (app.c) and by streaming mode's swaps of a
 * file's model (app_stream.c), so neither calls the other for it.
 */
#include "app_internal.h"

/* What the app built on the set's view goes (the ui and the lod point into
 * the traces), and every snapshot taken of it. The set's drop_view hook. */
void st_app_drop_view(void *ud) {
  st_app *app = ud;
  st_app_summary_forget(app);
  st_app_flame_forget(app);
  st_app_diff_forget(app);
  st_app_analyze_forget(app);
  st_app_opstats_forget(app);
  if (!app->stream.swapping) st_app_notes_clear(app); /* notes are times: a window keeps them */
  if (app->side) {                                    /* back to one pane */
    app->ui = app->pane[0];
    st_ui_destroy(app->pane[1]);
    app->pane[0] = app->pane[1] = NULL;
    app->side = 0;
    app->pane_dx = 0;
  }
  st_ui_destroy(app->ui);
  st_lod_destroy(app->lod);
  app->ui = NULL;
  app->lod = NULL;
  app->trace = NULL;
}

/* The app's part of the view the set built (one file's model, or several
 * merged): its level-of-detail index and ui. The set's build_view hook; on
 * failure nothing of it is kept and err says which stage failed. */
st_code st_app_build_view(void *ud, const st_traceset *set, st_trace *view, st_error *err) {
  st_app *app = ud;
  (void)set;
  st_lod *lod = st_lod_build(&app->alloc, view, err);
  st_ui *ui = lod ? st_ui_create(&app->alloc, view, app->css_w, app->css_h, app->dpr) : NULL;
  if (!ui) {
    if (lod) st_error_set(err, ST_ERR_NOMEM, 0, "out of memory creating the view");
    st_lod_destroy(lod);
    return err->code != ST_OK ? err->code : ST_ERR_NOMEM;
  }
  app->trace = view;
  app->lod = lod;
  app->ui = ui;
  app->animating = 0;
  st_ui_set_tool(ui, (st_tool)app->tool);
  st_ui_set_cover(ui, app->cover_top, app->cover_bottom);
  st_ui_set_flow_mode(ui, (st_flow_mode)app->flow_mode);
  return ST_OK;
}
