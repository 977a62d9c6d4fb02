/* api.c: the functions web/app.js calls (listed in wasm/exports.json). Thin
 * wrappers over st_app: numbers and C strings cross the boundary, never
 * pointers into the model. Strings returned are valid until the next call
 * of the same function.
 *
 * Loading (the page streams a file in slices through one reused buffer):
 *   st_wasm_load_begin(name)          -> 1 ok, 0 failed (see st_wasm_error)
 *   st_wasm_load_push(ptr, len)       -> 0 ok, else an st_code (stop pushing)
 *   st_wasm_load_finish()             -> 0 ok; 1 damaged part-way: shown, as the
 *                                        CLI keeps it (st_wasm_error has the
 *                                        warning); 2 failed: previous trace kept,
 *                                        st_wasm_error says why and where
 *   st_wasm_load_abort()              -> drop the load (the page could not read on)
 *   st_wasm_load_demo()               -> same as finish, for the built-in demo
 * After 0 or 1, Module.strataOnLoaded() is called once the new trace's first
 * frame is drawn; st_wasm_stats_json() then has the final load_ms.
 */
#include <emscripten.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "args_reader.h"
#include "bench.h"
#include "heap_budget.h"
#include "panel.h"

EMSCRIPTEN_KEEPALIVE int st_wasm_load_begin(const char *name) {
  return st_app_load_begin(st_app_get(), name);
}

EMSCRIPTEN_KEEPALIVE int st_wasm_load_push(const void *data, size_t len) {
  return (int)st_app_load_push(st_app_get(), data, len);
}

EMSCRIPTEN_KEEPALIVE int st_wasm_load_finish(void) { return st_app_load_finish(st_app_get()); }

EMSCRIPTEN_KEEPALIVE void st_wasm_load_abort(void) { st_app_load_abort(st_app_get()); }

EMSCRIPTEN_KEEPALIVE int st_wasm_load_demo(void) { return st_app_load_demo(st_app_get()); }

/* The demo's JSON bytes (pointer; size from st_wasm_demo_size), which the
 * page copies into a Blob to read args from, then releases. */
EMSCRIPTEN_KEEPALIVE const unsigned char *st_wasm_demo_bytes(void) {
  size_t n;
  return st_app_demo_bytes(st_app_get(), &n);
}
EMSCRIPTEN_KEEPALIVE double st_wasm_demo_size(void) {
  size_t n;
  st_app_demo_bytes(st_app_get(), &n);
  return (double)n;
}
EMSCRIPTEN_KEEPALIVE void st_wasm_demo_release(void) { st_app_demo_release(st_app_get()); }

/* 1 once the WebGL2 renderer is up (0: the browser has no WebGL2). */
EMSCRIPTEN_KEEPALIVE int st_wasm_gfx_ok(void) { return st_app_get()->renderer != NULL; }

EMSCRIPTEN_KEEPALIVE const char *st_wasm_error(void) { return st_app_get()->error; }

/* The open trace's free-form top-level JSON (metadata, otherData,
 * displayTimeUnit, ...) as one object, for the trace-info panel. */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_trace_info_json(void) {
  return st_app_info_json(st_app_get());
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_stats_json(void) {
  return st_app_stats_json(st_app_get());
}


/* {"start_us":..,"end_us":..,"scroll_y":..} in the file's timebase. */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_view_json(void) {
  static char buf[160];
  st_app *app = st_app_get();
  if (!app->trace) return "null";
  double s, e, y;
  st_app_view_get(app, &s, &e, &y);
  snprintf(buf, sizeof buf, "{\"start_us\":%.17g,\"end_us\":%.17g,\"scroll_y\":%.9g}", s, e, y);
  return buf;
}

EMSCRIPTEN_KEEPALIVE int st_wasm_view_set(double start_us, double end_us) {
  return st_app_view_set(st_app_get(), start_us, end_us);
}

EMSCRIPTEN_KEEPALIVE void st_wasm_view_fit(void) { st_app_fit(st_app_get()); }

EMSCRIPTEN_KEEPALIVE void st_wasm_resize(double css_w, double css_h, double dpr) {
  st_app_resize(st_app_get(), (float)css_w, (float)css_h, (float)dpr);
}

EMSCRIPTEN_KEEPALIVE void st_wasm_redraw(void) { st_app_request_redraw(st_app_get()); }

/* {"frames":..,"last_frame_ms":..,"rects":..,"glyphs":..} */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_frame_stats_json(void) {
  static char buf[160];
  st_app *app = st_app_get();
  snprintf(buf, sizeof buf, "{\"frames\":%llu,\"last_frame_ms\":%.4f,\"rects\":%u,\"glyphs\":%u}",
           (unsigned long long)app->frames, app->last_frame_ms, app->last_rects, app->last_glyphs);
  return buf;
}

/* ---- interaction state (core/ui/ui.h, as JSON from core/ui/panel.h) ------------ */

static st_panel_buf g_panel;

static const char *panel_text(st_code c) {
  return c == ST_OK && g_panel.text ? g_panel.text : "null";
}

/* Runs a whole-trace name search (empty text clears it); returns the number
 * of matching events. Non-matches are dimmed on the timeline. */
EMSCRIPTEN_KEEPALIVE double st_wasm_search(const char *text) {
  st_app *app = st_app_get();
  if (!app->ui) return 0;
  st_app_apply(app, st_ui_search(app->ui, text, strlen(text)));
  return (double)st_find_count(st_ui_find(app->ui));
}

/* A key pressed in the search box (DOM key name, ST_MOD_* bits): steps
 * through the matches or hands the keys back to the timeline
 * (st_ui_search_box_key). 1 if it was used (the page preventDefault()s). */
EMSCRIPTEN_KEEPALIVE int st_wasm_search_key(const char *key, int mods) {
  st_app *app = st_app_get();
  if (!app->ui || !key) return 0;
  unsigned ch = st_ui_search_box_key(app->ui, key, (unsigned)mods);
  st_app_apply(app, ch);
  return (ch & ST_UI_HANDLED) != 0;
}

/* {"tool","selected","mark","search":{...},"help","all_collapsed","cursor","animating"} */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_ui_state_json(void) {
  st_app *app = st_app_get();
  if (!app->ui) return "null";
  return panel_text(st_panel_state_json(&g_panel, app->ui, &app->alloc));
}

/* The selected events (at most max): [{"name","cat","ts_us","dur_us","pid","tid",...}] */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_selection_json(int max) {
  st_app *app = st_app_get();
  if (!app->ui) return "[]";
  return panel_text(
      st_panel_selection_json(&g_panel, app->ui, max > 0 ? (uint32_t)max : 0, &app->alloc));
}

/* Details of the one selected event, or null. */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_selected_event_json(void) {
  st_app *app = st_app_get();
  st_event_ref ref;
  if (!app->ui || !st_ui_selected_one(app->ui, &ref)) return "null";
  return panel_text(st_panel_event_json(&g_panel, app->ui, ref, &app->alloc));
}

/* The labelled tracks as laid out (st_panel_tracks_json): window.strata.tracks(). */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_tracks_json(void) {
  st_app *app = st_app_get();
  if (!app->ui) return "[]";
  return panel_text(st_panel_tracks_json(&g_panel, app->ui, &app->alloc));
}

/* The hovered event or counter, or null (tooltip). */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_hover_json(void) {
  st_app *app = st_app_get();
  if (!app->ui) return "null";
  return panel_text(st_panel_hover_json(&g_panel, app->ui, &app->alloc));
}

/* 0 select, 1 pan, 2 zoom, 3 timing. */
EMSCRIPTEN_KEEPALIVE void st_wasm_set_tool(int tool) {
  st_app *app = st_app_get();
  if (tool >= 0 && tool <= 3) {
    app->tool = tool;
    if (app->ui) st_app_apply(app, st_ui_set_tool(app->ui, (st_tool)tool));
  }
}

/* Collapses every process section, or expands them all if all are
 * collapsed (the page's "collapse all" toggle). Returns 1 if all are now
 * collapsed. */
EMSCRIPTEN_KEEPALIVE int st_wasm_collapse_all(void) {
  st_app *app = st_app_get();
  if (!app->ui) return 0;
  st_app_apply(app, st_ui_collapse_all(app->ui));
  return st_ui_all_collapsed(app->ui);
}

/* Shows or hides the help overlay state (the page draws the panel). */
EMSCRIPTEN_KEEPALIVE void st_wasm_set_help(int visible) {
  st_app *app = st_app_get();
  if (app->ui) st_app_apply(app, st_ui_set_help(app->ui, visible));
}

/* Replays the bench navigation script on the trace shown (see bench.h). */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_bench_json(void) {
  return st_bench_run_json(st_app_get());
}

/* ---- args of one event, re-read from the file (see args_reader.h) -------- */

EMSCRIPTEN_KEEPALIVE void st_wasm_args_reset(void) { st_argsrd_reset(); }
/* every format: begin(src) -> {"read"}; data(plain bytes) or gz_begin/push;
 * step() -> {"read"} | {"args", "truncated"} | {"error"}. src is an event's
 * (a slice's) offset: for a B/E slice of the trace shown, the args of its B
 * and E merged (the E's are read after the B's). */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_args_begin(double src) {
  st_app *app = st_app_get();
  double end = -1;
  /* the trace whose args source is in use (st_wasm_args_use) */
  const st_trace *t = app->traces[st_argsrd_current() % ST_APP_MAX_TRACES].trace;
  if (t && src >= 0 && src < 18446744073709551616.0) {
    uint64_t e = st_trace_end_src_of(t, (uint64_t)src);
    if (e != UINT64_MAX) end = (double)e;
  }
  return st_argsrd_begin_end(src, end);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_args_data(const void *data, size_t len) {
  return st_argsrd_data(data, len);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_args_step(void) { return st_argsrd_step(); }
EMSCRIPTEN_KEEPALIVE int st_wasm_args_index_ready(void) { return st_argsrd_index_ready(); }
EMSCRIPTEN_KEEPALIVE int st_wasm_args_index_push(const void *data, size_t len) {
  return st_argsrd_index_push(data, len);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_args_index_finish(void) { return st_argsrd_index_finish(); }
EMSCRIPTEN_KEEPALIVE double st_wasm_args_gz_begin(double src, double len) {
  return st_argsrd_gz_begin(src, len);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_args_gz_push(const void *data, size_t len) {
  return st_argsrd_gz_push(data, len);
}

/* ---- links: the page's #sel=<row>:<index> (web/embed.js) ------------------ */

/* Selects the one event at (row, index) of the trace shown, as a click would;
 * 1 done, 0 no such event (another trace, or a stale link). */
EMSCRIPTEN_KEEPALIVE int st_wasm_select(double row, double index) {
  st_app *app = st_app_get();
  if (!app->ui || !app->trace || !(row >= 0 && row < 4294967295.0) ||
      !(index >= 0 && index < 4294967295.0))
    return 0;
  st_event_ref ref = {(uint32_t)row, (uint32_t)index};
  if (!st_ref_valid(app->trace, ref)) return 0;
  st_app_apply(app, st_ui_select(app->ui, ref, 0));
  return 1;
}

/* Selects the event at (row, index) and scrolls / pans to show it centred
 * (the details pane's flow links); 1 done, 0 no such event. */
EMSCRIPTEN_KEEPALIVE int st_wasm_reveal(double row, double index) {
  st_app *app = st_app_get();
  if (!st_wasm_select(row, index)) return 0;
  st_app_apply(app, st_ui_reveal(app->ui, (st_event_ref){(uint32_t)row, (uint32_t)index}));
  return 1;
}

/* Flow arrows for everything in view on (1) or off (0); returns the state.
 * The selected event's flows are drawn either way. */
EMSCRIPTEN_KEEPALIVE int st_wasm_set_flows(int visible) {
  st_app *app = st_app_get();
  if (!app->ui) return visible != 0;
  st_app_apply(app, st_ui_set_flows(app->ui, visible));
  return st_ui_flows_visible(app->ui);
}

/* ---- the workspace of traces (app.h) --------------------------------------
 * Handles are numbers the page keeps; a closed trace's handle fails.
 *   st_wasm_batch_begin()          the next loads go into one batch
 *   (st_wasm_load_begin / push / finish per file: finish returns the status
 *    of that file, and shows nothing yet; st_wasm_last_handle() is its
 *    handle)
 *   st_wasm_batch_end()            shows the batch (several files merged on one
 *                                  timeline) in place of the traces shown;
 *                                  returns how many (0: none loaded, the
 *                                  previous stay). Module.strataOnLoaded()
 *                                  follows after the first frame.
 *   st_wasm_traces_json()          [{"handle","name","group","events","offset_us","format"}]
 *   st_wasm_set_offset(h, us)      moves a file on the shared timeline
 *   st_wasm_args_use(h)            the args calls above then read h's file */
EMSCRIPTEN_KEEPALIVE void st_wasm_batch_begin(void) { st_app_batch_begin(st_app_get()); }

EMSCRIPTEN_KEEPALIVE int st_wasm_batch_end(void) { return (int)st_app_batch_end(st_app_get()); }

/* The last batch's files left out because the view of them all did not fit
 * in memory: "<file>: not shown: <why> (after its N events, X MB read)\n" each. */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_batch_dropped(void) { return st_app_get()->dropped; }

/* A test hook (heap_budget.h): from now on the app's allocations are counted,
 * and refused past the bytes held now plus `more` (more < 0: no limit), as
 * when the 4 GB heap is full; at_view: past the bytes held when the next
 * batch's view starts being built plus `more` instead. Returns the bytes
 * counted now. */
EMSCRIPTEN_KEEPALIVE double st_wasm_test_heap_budget(double more, int at_view) {
  st_app *app = st_app_get();
  if (app->alloc.fn == NULL) st_heap_budget_install(&app->alloc);
  uint64_t live = st_heap_budget_live();
  int limit = more >= 0 && more < 1e15;
  if (limit && at_view)
    st_heap_budget_at_view((uint64_t)more);
  else
    st_heap_budget_set(limit ? live + (uint64_t)more : 0);
  return (double)live;
}

EMSCRIPTEN_KEEPALIVE double st_wasm_last_handle(void) {
  st_app *app = st_app_get();
  uint32_t s = app->last_slot;
  return s < ST_APP_MAX_TRACES && app->traces[s].trace ? (double)st_app_handle_of(app, s) : 0;
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_traces_json(void) {
  return st_app_traces_json(st_app_get());
}

EMSCRIPTEN_KEEPALIVE int st_wasm_set_offset(double handle, double offset_us) {
  st_app *app = st_app_get();
  uint32_t slot = st_app_slot_of(app, handle);
  return slot != UINT32_MAX && st_app_set_offset(app, slot, offset_us * 1000.0);
}

EMSCRIPTEN_KEEPALIVE int st_wasm_args_use(double handle) {
  st_app *app = st_app_get();
  uint32_t slot = st_app_slot_of(app, handle);
  if (slot == UINT32_MAX) return 0;
  st_argsrd_use(slot);
  return 1;
}

/* One file's top-level metadata (the Info panel's block per file). */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_trace_info_json_of(double handle) {
  st_app *app = st_app_get();
  uint32_t slot = st_app_slot_of(app, handle);
  if (slot == UINT32_MAX || !app->traces[slot].info_json) return "{}";
  return app->traces[slot].info_json;
}

/* One file's own stats (st_stats_json shape), or null. */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_trace_stats_json(double handle) {
  static char buf[8192];
  st_app *app = st_app_get();
  uint32_t slot = st_app_slot_of(app, handle);
  if (slot == UINT32_MAX) return "null";
  size_t need = st_stats_json(&app->traces[slot].stats, buf, sizeof buf);
  return need < sizeof buf ? buf : "null";
}

/* Aligns the files on their selected events (app.h st_app_align_selection). */
EMSCRIPTEN_KEEPALIVE int st_wasm_align_selection(void) {
  return st_app_align_selection(st_app_get());
}

/* Two traces or more: 1 side by side (two panes, zoom and pan synchronised),
 * 0 stacked (one timeline). Returns the layout in effect, -1 if the second
 * pane did not fit in memory (stacked). */
EMSCRIPTEN_KEEPALIVE int st_wasm_set_side_by_side(int on) {
  return st_app_set_side_by_side(st_app_get(), on);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_side_by_side(void) { return st_app_get()->side; }
