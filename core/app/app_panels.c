/* app_panels.c: the interaction state as JSON for the platform's panels
 * (core/ui/panel.h: tool, search, selection, the selected event, tracks,
 * hover) and the name search (app.h). Calls app_view.c.
 */
#include "app_internal.h"

#include <string.h>

static const char *panel_text(const st_app *app, st_code c, const char *fail) {
  return c == ST_OK && app->panel.text ? app->panel.text : fail;
}

const char *st_app_state_json(st_app *app) {
  if (!app->ui) return "null";
  return panel_text(app, st_panel_state_json(&app->panel, app->ui, &app->self_alloc), "null");
}

const char *st_app_selection_json(st_app *app, int max) {
  if (!app->ui) return "[]";
  st_code c =
      st_panel_selection_json(&app->panel, app->ui, max > 0 ? (uint32_t)max : 0, &app->self_alloc);
  return panel_text(app, c, "null");
}

const char *st_app_selected_event_json(st_app *app) {
  st_event_ref ref;
  if (!app->ui || !st_ui_selected_one(app->ui, &ref)) return "null";
  return panel_text(app, st_panel_event_json(&app->panel, app->ui, ref, &app->self_alloc), "null");
}

const char *st_app_tracks_json(st_app *app) {
  if (!app->ui) return "[]";
  return panel_text(app, st_panel_tracks_json(&app->panel, app->ui, &app->self_alloc), "null");
}

const char *st_app_hover_json(st_app *app) {
  if (!app->ui) return "null";
  return panel_text(app, st_panel_hover_json(&app->panel, app->ui, &app->self_alloc), "null");
}

double st_app_search(st_app *app, const char *text) {
  if (!app->ui || !text) return 0;
  st_app_apply(app, st_ui_search(app->ui, text, strlen(text)));
  return (double)st_find_count(st_ui_find(app->ui));
}
