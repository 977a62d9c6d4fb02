/* api.c: the functions web/ (app.js and its modules) calls (listed in wasm/exports.json): thin
 * wrappers over the page's one st_app (core/app/app.h, which documents
 * each): numbers and C strings cross the boundary, never pointers into the
 * model. Strings returned are valid until the next call of the same
 * function. Every call about one trace takes its handle.
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
 * frame is drawn (at once: the frame is drawn before these return);
 * st_wasm_stats_json() then has the final load_ms.
 *
 * The workspace of traces: handles are numbers the page keeps (a handle's
 * id), each made a typed handle once where it comes in (st_wasm_handle: a
 * number that is no id fails as a closed trace's handle does).
 *   st_wasm_batch_begin()          the next loads go into one batch (finish
 *                                  returns each file's status and shows
 *                                  nothing yet; st_wasm_last_handle() is its
 *                                  handle)
 *   st_wasm_batch_end()            shows the batch in place of the traces
 *                                  shown; returns how many (0: none loaded,
 *                                  the previous stay)
 *   st_wasm_traces_json()          [{"handle","name","group","events","offset_us","format"}]
 *   st_wasm_set_offset(h, us)      moves a file on the shared timeline
 *   st_wasm_set_group(h, name)     names the group of a file of the open
 *                                  batch (a profile manifest's); 1 ok
 *
 * Args of one event of trace h, re-read from its file (app.h's protocol):
 *   st_wasm_args_begin(h, src) -> {"read"} | {"error"}; st_wasm_args_data(h,
 *   ptr, len) or st_wasm_args_gz_begin(h, offset, length) + _gz_push(h, ptr,
 *   len) (after st_wasm_args_index_push(h, ...) / _index_finish(h) once per
 *   file); st_wasm_args_step(h) -> {"read"} | {"args", "truncated"} | {"error"}.
 * The "in args" search over trace h's file:
 *   st_wasm_args_search_begin(h, text) (one trace shown: replaces the search)
 *   or st_wasm_args_search_begin_in(h, text) (several: adds h's hits), then
 *   _push(ptr, len) and _finish() -> the match count (-1: failed,
 *   st_wasm_args_search_error says why); _abort() drops the pass.
 */
#include <emscripten.h>
#include <string.h>

#include "bench.h"
#include "chrome_range.h"
#include "load.h"
#include "web.h"

/* ---- loading ----------------------------------------------------------------------- */

EMSCRIPTEN_KEEPALIVE int st_wasm_load_begin(const char *name) {
  st_heap_budget_load_begins(st_web_heap_budget(), 0);
  return st_app_load_begin(st_web_app(), name);
}

EMSCRIPTEN_KEEPALIVE int st_wasm_load_push(const void *data, size_t len) {
  return (int)st_app_load_push(st_web_app(), data, len);
}

/* A batch that ended shows its first frame now, not at the next animation
 * frame (up to 16 ms of waiting, ~11 ms per load in a profile of the 30 MB
 * trace): WebGL may draw outside requestAnimationFrame, and the browser
 * shows the canvas at its next composite either way. */
EMSCRIPTEN_KEEPALIVE int st_wasm_load_finish(void) {
  int rc = st_app_load_finish(st_web_app());
  st_web_frame();
  return rc;
}

EMSCRIPTEN_KEEPALIVE void st_wasm_load_abort(void) { st_app_load_abort(st_web_app()); }

EMSCRIPTEN_KEEPALIVE int st_wasm_load_demo(void) {
  int rc = st_app_load_demo(st_web_app());
  st_web_frame();
  return rc;
}

/* The demo's JSON bytes (pointer; size from st_wasm_demo_size), which the
 * page copies into a Blob to read args from, then releases. */
EMSCRIPTEN_KEEPALIVE const unsigned char *st_wasm_demo_bytes(void) {
  size_t n;
  return st_app_demo_bytes(st_web_app(), &n);
}
EMSCRIPTEN_KEEPALIVE double st_wasm_demo_size(void) {
  size_t n;
  st_app_demo_bytes(st_web_app(), &n);
  return (double)n;
}
EMSCRIPTEN_KEEPALIVE void st_wasm_demo_release(void) { st_app_demo_release(st_web_app()); }

/* 1 once the WebGL2 renderer is up (0: the browser has no WebGL2). */
EMSCRIPTEN_KEEPALIVE int st_wasm_gfx_ok(void) { return st_web_renderer() != NULL; }

EMSCRIPTEN_KEEPALIVE const char *st_wasm_error(void) { return st_app_error(st_web_app()); }

EMSCRIPTEN_KEEPALIVE const char *st_wasm_trace_info_json(void) {
  return st_app_info_json(st_web_app());
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_stats_json(void) {
  return st_app_stats_json(st_web_app());
}

/* ---- canvas and view ---------------------------------------------------------------- */

EMSCRIPTEN_KEEPALIVE const char *st_wasm_view_json(void) { return st_app_view_json(st_web_app()); }

EMSCRIPTEN_KEEPALIVE int st_wasm_view_set(double start_us, double end_us) {
  return st_app_view_set(st_web_app(), start_us, end_us);
}

EMSCRIPTEN_KEEPALIVE void st_wasm_view_fit(void) { st_app_fit(st_web_app()); }
EMSCRIPTEN_KEEPALIVE void st_wasm_set_cover(double top, double bottom) {
  st_app_set_cover(st_web_app(), top, bottom);
}

EMSCRIPTEN_KEEPALIVE void st_wasm_resize(double css_w, double css_h, double dpr) {
  st_web_resize((float)css_w, (float)css_h, (float)dpr);
}

EMSCRIPTEN_KEEPALIVE void st_wasm_redraw(void) { st_app_request_redraw(st_web_app()); }

EMSCRIPTEN_KEEPALIVE const char *st_wasm_frame_stats_json(void) {
  return st_app_frame_stats_json(st_web_app());
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_bench_json(void) { return st_bench_run_json(); }

/* ---- interaction state (core/ui/ui.h, as JSON from core/ui/panel.h) ---------------------- */

EMSCRIPTEN_KEEPALIVE double st_wasm_search(const char *text) {
  return st_app_search(st_web_app(), text);
}

/* A key pressed in the search box (DOM key name, ST_MOD_* bits): 1 if it
 * was used (the page preventDefault()s). */
EMSCRIPTEN_KEEPALIVE int st_wasm_search_key(const char *key, int mods) {
  st_app *app = st_web_app();
  st_ui *ui = st_app_ui(app);
  if (!ui || !key) return 0;
  unsigned ch = st_ui_search_box_key(ui, key, (unsigned)mods);
  st_app_apply(app, ch);
  return (ch & ST_UI_HANDLED) != 0;
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_ui_state_json(void) {
  return st_app_state_json(st_web_app());
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_selection_json(int max) {
  return st_app_selection_json(st_web_app(), max);
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_selected_event_json(void) {
  return st_app_selected_event_json(st_web_app());
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_tracks_json(void) {
  return st_app_tracks_json(st_web_app());
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_hover_json(void) {
  return st_app_hover_json(st_web_app());
}

/* 0 select, 1 pan, 2 zoom, 3 timing. */
EMSCRIPTEN_KEEPALIVE void st_wasm_set_tool(int tool) { st_app_set_tool(st_web_app(), tool); }

/* Collapses every section, or expands them all if all are collapsed;
 * returns 1 if all are now collapsed. */
EMSCRIPTEN_KEEPALIVE int st_wasm_collapse_all(void) {
  st_app *app = st_web_app();
  st_ui *ui = st_app_ui(app);
  if (!ui) return 0;
  st_app_apply(app, st_ui_collapse_all(ui));
  return st_ui_all_collapsed(ui);
}

EMSCRIPTEN_KEEPALIVE void st_wasm_set_help(int visible) {
  st_app *app = st_web_app();
  if (st_app_ui(app)) st_app_apply(app, st_ui_set_help(st_app_ui(app), visible));
}

/* The flow mode (st_flow_mode: 0 off, 1 selection, 2 all; -1: just ask);
 * returns the mode now (an out-of-range mode changes nothing). */
EMSCRIPTEN_KEEPALIVE int st_wasm_set_flows(int mode) {
  st_app *app = st_web_app();
  if (mode >= 0) st_app_set_flow_mode(app, mode);
  return st_app_flow_mode(app);
}

/* The page's #sel=<row>:<index> links (web/embed.js) and flow links: 1 done. */
EMSCRIPTEN_KEEPALIVE int st_wasm_select(double row, double index) {
  return st_app_select(st_web_app(), row, index, 0);
}

EMSCRIPTEN_KEEPALIVE int st_wasm_reveal(double row, double index) {
  return st_app_select(st_web_app(), row, index, 1);
}

/* ---- panels: summary table, flame graph, two runs compared ------------------------------- */

EMSCRIPTEN_KEEPALIVE double st_wasm_summary_take(int window) {
  return st_app_summary_take(st_web_app(), window);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_summary_json(int col, int descending, int max_rows) {
  return st_app_summary_json(st_web_app(), col, descending, max_rows);
}
EMSCRIPTEN_KEEPALIVE double st_wasm_summary_select(double name_id) {
  return st_app_summary_select(st_web_app(), name_id);
}

EMSCRIPTEN_KEEPALIVE double st_wasm_flame_take(int from, int source, int track) {
  return st_app_flame_take(st_web_app(), from, source, track);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_flame_json(double min_share) {
  return st_app_flame_json(st_web_app(), min_share);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_flame_hit(double fx, int depth) {
  return st_app_flame_hit(st_web_app(), fx, depth);
}
EMSCRIPTEN_KEEPALIVE double st_wasm_flame_select(int node) {
  return st_app_flame_select(st_web_app(), node);
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_compare_align(void) {
  return st_app_compare_align(st_web_app());
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_diff(int by, int range, double t0_us, double t1_us,
                                              double step, const char *col, int desc) {
  return st_app_diff(st_web_app(), by, range, t0_us, t1_us, step, col, desc);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_diff_sort(const char *col, int desc) {
  return st_app_diff_sort(st_web_app(), col, desc);
}
EMSCRIPTEN_KEEPALIVE double st_wasm_diff_select(int row) {
  return st_app_diff_select(st_web_app(), row);
}

/* ---- trace handles --------------------------------------------------------------------------- */

st_trace_handle st_wasm_handle(double number) {
  if (!(number >= 1 && number < 2147483648.0) || (double)(uint32_t)number != number)
    return (st_trace_handle){0};
  return (st_trace_handle){(uint32_t)number};
}

/* ---- args of one event of trace h ----------------------------------------------------------- */

EMSCRIPTEN_KEEPALIVE void st_wasm_args_reset(double h) {
  st_app_args_reset(st_web_app(), st_wasm_handle(h));
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_args_begin(double h, double src) {
  return st_app_args_begin(st_web_app(), st_wasm_handle(h), src);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_args_data(double h, const void *data, size_t len) {
  return st_app_args_data(st_web_app(), st_wasm_handle(h), data, len);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_args_step(double h) {
  return st_app_args_step(st_web_app(), st_wasm_handle(h));
}
EMSCRIPTEN_KEEPALIVE int st_wasm_args_index_ready(double h) {
  return st_app_args_index_ready(st_web_app(), st_wasm_handle(h));
}
EMSCRIPTEN_KEEPALIVE int st_wasm_args_index_push(double h, const void *data, size_t len) {
  return st_app_args_index_push(st_web_app(), st_wasm_handle(h), data, len);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_args_index_finish(double h) {
  return st_app_args_index_finish(st_web_app(), st_wasm_handle(h));
}
EMSCRIPTEN_KEEPALIVE double st_wasm_args_gz_begin(double h, double src, double len) {
  return st_app_args_gz_begin(st_web_app(), st_wasm_handle(h), src, len);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_args_gz_push(double h, const void *data, size_t len) {
  return st_app_args_gz_push(st_web_app(), st_wasm_handle(h), data, len);
}

/* ---- the "in args" search over trace h's file ---------------------------------------------- */

EMSCRIPTEN_KEEPALIVE int st_wasm_args_search_begin(double h, const char *text) {
  return st_app_args_search_begin(st_web_app(), st_wasm_handle(h), text, 0);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_args_search_begin_in(double h, const char *text) {
  return st_app_args_search_begin(st_web_app(), st_wasm_handle(h), text, 1);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_args_search_push(const void *data, size_t len) {
  return st_app_args_search_push(st_web_app(), data, len);
}
EMSCRIPTEN_KEEPALIVE double st_wasm_args_search_finish(void) {
  return st_app_args_search_finish(st_web_app());
}
EMSCRIPTEN_KEEPALIVE void st_wasm_args_search_abort(void) {
  st_app_args_search_abort(st_web_app());
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_args_search_error(void) {
  return st_app_args_search_error(st_web_app());
}

/* ---- the workspace of traces ----------------------------------------------------------------- */

EMSCRIPTEN_KEEPALIVE void st_wasm_batch_begin(void) {
  st_heap_budget_load_begins(st_web_heap_budget(), 1);
  st_app_batch_begin(st_web_app());
}

EMSCRIPTEN_KEEPALIVE int st_wasm_batch_end(void) {
  int n = (int)st_app_batch_end(st_web_app());
  st_heap_budget_batch_ends(st_web_heap_budget());
  st_web_frame();
  return n;
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_batch_dropped(void) {
  return st_app_dropped(st_web_app());
}

EMSCRIPTEN_KEEPALIVE double st_wasm_last_handle(void) {
  return st_app_last_handle(st_web_app()).id;
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_traces_json(void) {
  return st_app_traces_json(st_web_app());
}

EMSCRIPTEN_KEEPALIVE int st_wasm_set_group(double handle, const char *group) {
  return st_app_set_group(st_web_app(), st_wasm_handle(handle), group);
}

EMSCRIPTEN_KEEPALIVE int st_wasm_set_offset(double handle, double offset_us) {
  return st_app_set_offset(st_web_app(), st_wasm_handle(handle), offset_us);
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_trace_info_json_of(double handle) {
  return st_app_trace_info_json(st_web_app(), st_wasm_handle(handle));
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_trace_stats_json(double handle) {
  return st_app_trace_stats_json(st_web_app(), st_wasm_handle(handle));
}

EMSCRIPTEN_KEEPALIVE int st_wasm_align_selection(void) {
  return st_app_align_selection(st_web_app());
}

EMSCRIPTEN_KEEPALIVE int st_wasm_set_side_by_side(int on) {
  return st_app_set_side_by_side(st_web_app(), on);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_side_by_side(void) { return st_app_side_by_side(st_web_app()); }

/* The last finished import's peak heap, less what the heap held when it
 * began (heap_budget.h): stats().import_peak_bytes. */
EMSCRIPTEN_KEEPALIVE double st_wasm_import_peak_bytes(void) {
  return (double)st_heap_budget_import_peak(st_web_heap_budget());
}

/* A test hook (heap_budget.h): the app's allocations (counted since it was
 * made) are refused past the bytes held now plus `more` (more < 0: no limit), as
 * when the 4 GB heap is full; at_view: past the bytes held when the next
 * batch's view starts being built plus `more` instead. Returns the bytes
 * counted now. */
EMSCRIPTEN_KEEPALIVE double st_wasm_test_heap_budget(double more, int at_view) {
  st_heap_budget *b = st_web_heap_budget();
  if (!b->installed) {
    st_alloc a;
    st_heap_budget_install(b, &a);
    st_app_set_alloc(st_web_app(), a);
  }
  uint64_t live = st_heap_budget_live(b);
  int limit = more >= 0 && more < 1e15;
  if (limit && at_view)
    st_heap_budget_at_view(b, (uint64_t)more);
  else
    st_heap_budget_set(b, limit ? live + (uint64_t)more : 0);
  return (double)live;
}

/* ---- analysis of the files shown (issue 18; app.h "analysis") ----------------------------------
 *   st_wasm_analyze(step_name, top_ops, max_gaps) -> `strata analyze --json`'s object | "null"
 *   st_wasm_analyze_show(trace, device, start_us, end_us) -> 1 the view shows that window
 *   st_wasm_select_name(name) -> events selected (every event of that name), -1 failed */

EMSCRIPTEN_KEEPALIVE const char *st_wasm_analyze(const char *step_name, int top_ops, int max_gaps) {
  return st_app_analyze(st_web_app(), step_name, top_ops, max_gaps);
}
/* Test-only: analyses made so far (app.h st_app_analyses_made). */
EMSCRIPTEN_KEEPALIVE double st_wasm_test_analyses_made(void) {
  return (double)st_app_analyses_made(st_web_app());
}
EMSCRIPTEN_KEEPALIVE int st_wasm_analyze_show(double trace, double device, double start_us,
                                              double end_us) {
  return st_app_analyze_show(st_web_app(), trace, device, start_us, end_us);
}
/* st_wasm_memory_show(mem, start_us, end_us): "memory" entry mem's device, that window (issue 34)
 */
EMSCRIPTEN_KEEPALIVE int st_wasm_memory_show(double mem, double start_us, double end_us) {
  return st_app_memory_show(st_web_app(), mem, start_us, end_us);
}
EMSCRIPTEN_KEEPALIVE double st_wasm_select_name(const char *name) {
  return st_app_select_name(st_web_app(), name);
}
/* app.h st_app_cause_gaps / st_app_cause_gaps_json: an idle cause's gaps highlighted */
EMSCRIPTEN_KEEPALIVE double st_wasm_cause_gaps(double device, double cause) {
  return st_app_cause_gaps(st_web_app(), device, cause);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_cause_gaps_json(void) {
  return st_app_cause_gaps_json(st_web_app());
}
/* issue 33 (app.h "How well the hardware is used") */
EMSCRIPTEN_KEEPALIVE const char *st_wasm_eff_wanted(void) {
  return st_app_eff_wanted(st_web_app());
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_op_cost(const char *name, const char *args) {
  return st_app_op_cost(st_web_app(), name, args);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_eff_json(const double *costs, int n, double peak_tflops,
                                                  double peak_gbps) {
  return st_app_eff_json(st_web_app(), costs, n > 0 ? (uint32_t)n : 0, peak_tflops, peak_gbps);
}

/* ---- collectives (issue 32; app.h "collectives") -----------------------------------------------
 *   st_wasm_coll_begin() -> 1 over the last analysis, 0 none
 *   st_wasm_coll_add(k, bytes, len) -> 1 file k's decoded bytes taken (0 bytes: kernels' names)
 *   st_wasm_coll_finish() -> the collectives' JSON | "null"
 *   st_wasm_coll_select(i) -> kernels selected, -1 failed
 *   st_wasm_coll_align() -> 1 + files moved, 0 failed
 *   st_wasm_coll_path_select(step) -> events of that step's critical path selected, -1 none
 *     (its cross-rank edges drawn as arrows until the selection changes)
 *   st_wasm_coll_path_arrows_json() -> {"step","arrows":[{from_trace, from_us, to_trace, to_us}]}
 *     | "null" (a test hook: the arrows shown) */
EMSCRIPTEN_KEEPALIVE int st_wasm_coll_begin(void) { return st_app_coll_begin(st_web_app()); }
EMSCRIPTEN_KEEPALIVE int st_wasm_coll_add(double k, const void *data, double len) {
  return st_app_coll_add(st_web_app(), k, len > 0 ? data : NULL, len > 0 ? (size_t)len : 0);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_coll_finish(void) {
  return st_app_coll_finish(st_web_app());
}
EMSCRIPTEN_KEEPALIVE double st_wasm_coll_select(double i) {
  return st_app_coll_select(st_web_app(), i);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_coll_align(void) { return st_app_coll_align(st_web_app()); }
EMSCRIPTEN_KEEPALIVE double st_wasm_coll_path_select(double step) {
  return st_app_coll_path_select(st_web_app(), step);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_coll_path_arrows_json(void) {
  return st_app_coll_path_arrows_json(st_web_app());
}

/* ---- op statistics, duration histograms, idle gaps (core/app/app_opstats.c) ---------------- */

EMSCRIPTEN_KEEPALIVE const char *st_wasm_opstats_json(int scope, double step, int top) {
  return st_app_opstats_json(st_web_app(), scope, step, top);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_histogram_json(const char *name, int scope, double step) {
  return st_app_histogram_json(st_web_app(), name, scope, step);
}
EMSCRIPTEN_KEEPALIVE double st_wasm_histogram_select(const char *name, int scope, double step,
                                                     double lo_us, double hi_us) {
  return st_app_histogram_select(st_web_app(), name, scope, step, lo_us, hi_us);
}
EMSCRIPTEN_KEEPALIVE double st_wasm_idle_gaps_show(int on) {
  return st_app_idle_gaps_show(st_web_app(), on);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_idle_gaps_shown(void) {
  return st_app_idle_gaps_shown(st_web_app());
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_idle_gaps_json(int max) {
  return st_app_idle_gaps_json(st_web_app(), max);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_idle_gap_go(int index) {
  return st_app_idle_gap_go(st_web_app(), index);
}

/* ---- which tracks show (core/app/app_tracks.c) --------------------------------------------- */

EMSCRIPTEN_KEEPALIVE int st_wasm_set_track_filter(const char *text) {
  return st_app_set_track_filter(st_web_app(), text);
}
EMSCRIPTEN_KEEPALIVE void st_wasm_set_show_empty(int show) {
  st_app_set_show_empty(st_web_app(), show);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_pin(const char *id, int on) {
  return st_app_pin(st_web_app(), id, on);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_tracks_state_json(void) {
  return st_app_tracks_state_json(st_web_app());
}

/* ---- an import split across workers (web/par_load.js; chrome_range.h) ------------------ */
/* The page's parse workers parse tasks (wasm/parse/range_parse.c, also
 * exported here for a task whose worker failed); their results are applied
 * here in task order between st_wasm_load_begin and st_wasm_load_finish.
 *   st_wasm_load_splittable(head, n)  1: the input may be split (Chrome JSON, not gzip)
 *   st_wasm_range_plan(size, workers, tb) -> task count (0: one worker), *tb = task bytes
 *   st_wasm_load_apply_needs(r, rlen) 1: applying r needs its task's bytes
 *   st_wasm_load_apply(r, rlen, b, blen) -> 0 ok, else an st_code (stop, finish says why)
 *   st_wasm_test_digest(h, out)       trace h's st_trace_digest as 64 hex digits + NUL
 *                                     into out[65] (tests: 1 vs N workers); 0 bad handle */

EMSCRIPTEN_KEEPALIVE int st_wasm_load_splittable(const void *head, size_t n) {
  return st_load_splittable(head, n);
}

EMSCRIPTEN_KEEPALIVE double st_wasm_range_plan(double size, int workers, double *task_bytes) {
  uint64_t tb = 0;
  uint32_t n = 0;
  if (size >= 0 && size < 9007199254740992.0 && workers > 0)
    n = st_range_plan((uint64_t)size, (uint32_t)workers, &tb);
  *task_bytes = (double)tb;
  return n;
}

EMSCRIPTEN_KEEPALIVE int st_wasm_load_apply_needs(const void *result, size_t rlen) {
  return st_app_load_apply_needs_bytes(st_web_app(), result, rlen);
}

EMSCRIPTEN_KEEPALIVE int st_wasm_load_apply(const void *result, size_t rlen, const void *bytes,
                                            size_t blen) {
  return (int)st_app_load_apply(st_web_app(), result, rlen, bytes, blen);
}

/* A compressed input split: the inflater's outcome (o[0..7] as
 * wasm/parse/inflate.c's st_wasm_cut_outcome, msg its message), before
 * load_finish: stats and gzip errors as if the raw bytes had been pushed. */
EMSCRIPTEN_KEEPALIVE void st_wasm_load_set_inflated(const double *o, const char *msg) {
  st_source_info si;
  memset(&si, 0, sizeof si);
  si.compression = (st_compression)o[0];
  si.bytes_in = (uint64_t)o[1];
  si.bytes_out = (uint64_t)o[2];
  si.members = (uint32_t)o[3];
  si.trailing_garbage = (uint64_t)o[4];
  si.trailing_offset = (uint64_t)o[5];
  st_code code = (st_code)o[6];
  st_error err;
  memset(&err, 0, sizeof err);
  if (code != ST_OK) st_error_set(&err, code, (uint64_t)o[7], "%s", msg ? msg : "");
  st_app_load_set_inflated(st_web_app(), &si, code, &err);
}

/* 1 if raw[0, n), the head of a gzip/zlib file, inflates to Chrome JSON
 * that may be split (load.h st_load_decoded_splittable). */
EMSCRIPTEN_KEEPALIVE int st_wasm_decoded_splittable(const void *raw, size_t n) {
  return st_load_decoded_splittable(raw, n);
}

EMSCRIPTEN_KEEPALIVE int st_wasm_test_digest(double handle, char *out) {
  uint8_t d[32];
  if (!st_app_trace_digest(st_web_app(), st_wasm_handle(handle), d)) return 0;
  st_hex_lower(d, sizeof d, out);
  return 1;
}

/* Test hooks (app.h st_app_set_label_log): every text the frames draw,
 * "K<drawn>\x1f<given>\x1e" records; read the last frame's with
 * UTF8ToString(st_wasm_test_label_log(), st_wasm_test_label_log_len()). */
EMSCRIPTEN_KEEPALIVE void st_wasm_test_label_log_on(int on) {
  st_app_set_label_log(st_web_app(), on);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_test_label_log(void) {
  uint32_t n;
  return st_app_label_log(st_web_app(), &n);
}
EMSCRIPTEN_KEEPALIVE double st_wasm_test_label_log_len(void) {
  uint32_t n;
  st_app_label_log(st_web_app(), &n);
  return n;
}
