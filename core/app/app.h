/* app.h: the viewer application, platform-neutral: one state (st_app) for
 * everything a front end shows (the page's canvas and panels, a native
 * window), and the operations on it. A platform (wasm/ for the page)
 * creates one st_app, feeds it bytes, canvas size and input, and renders the
 * draw list it builds; the app never draws, reads files or looks at a clock
 * itself: what it needs from the platform comes through st_app_platform.
 *
 * Interaction (view, layout and collapse, tools, selection, search, marks,
 * held keys) is the core's st_ui (core/ui/ui.h): the platform translates its
 * events into st_ui calls on st_app_ui() (x through st_app_route_x first)
 * and hands their ST_UI_* change bits to st_app_apply(), which schedules a
 * redraw, keeps the side-by-side panes together (st_ui_follow) and tells
 * the platform at once which panels to refresh (platform.ui_changed).
 *
 * Loading is incremental and never disturbs what is shown: a new trace is
 * built beside the current one and swapped in only when its load succeeds;
 * a failed load keeps the previous trace on screen.
 *
 * The workspace: the app holds a set of traces (core/set/traceset.h, at
 * most ST_APP_MAX_TRACES), each with its own model, stats, metadata and
 * args source, addressed by typed handles (st_trace_handle: slot and
 * generation; a handle of a closed trace, or {0}, fails every call that
 * takes it). A platform that holds handles as numbers (the page: .id, exact
 * in a double) checks and converts each number once, where it comes in
 * (wasm/api.c st_wasm_handle: a number that is no handle becomes {0}). A batch
 * (st_app_batch_begin ... st_app_batch_end) loads several files one after
 * another into one shared string table and shows them together: one trace
 * as itself, several merged on one timeline (core/model/trace.h), each under
 * a group header, at an offset (its clock, or moved: st_app_set_offset). A
 * load outside a batch is a batch of one. The batch replaces the traces
 * shown once at least one of its files loaded and their view (merge, lod,
 * ui) could be built. When that view does not fit in memory, the batch's
 * last files are left out one by one until it does (st_app_dropped says
 * which, with why); when not even its first file's view fits, the batch
 * goes and the traces shown before stay (st_app_error says what failed).
 *
 * Every call about one trace takes its handle (args reads, args searches,
 * offsets, info, stats). Panels (summary table, flame graph, diff of two
 * runs) are snapshots kept in the app; returned strings are JSON text owned
 * by the app, valid until the next call of the same function.
 *
 *   st_app_desc d = {.alloc = {0}, .platform = {.now_ms = my_clock}};
 *   st_app *app = st_app_create(&d);
 *   st_app_resize(app, 1280, 800, 2);
 *   st_app_set_font(app, &font);              // once glyphs can be made
 *   st_app_load_begin(app, "run.json.gz");
 *   st_app_load_push(app, bytes, n);          // any number of times
 *   int status = st_app_load_finish(app);     // ST_APP_LOAD_*
 *   const st_drawlist *dl = st_app_frame(app); // each animation frame
 *   if (dl) { render(dl); st_app_frame_done(app); }
 *   st_app_destroy(app);
 */
#ifndef STRATA_APP_H
#define STRATA_APP_H

#include "bench_script.h"
#include "source.h"
#include "stream.h"
#include "traceset.h"
#include "draw.h"
#include "ui.h"

/* st_app_load_finish() results. */
enum {
  ST_APP_LOAD_OK = 0,      /* new trace shown */
  ST_APP_LOAD_PARTIAL = 1, /* damaged part-way: what was read before the damage is
                            * shown, and st_app_error holds the CLI's warning line */
  ST_APP_LOAD_FAILED = 2   /* nothing usable; the previous trace stays (see error) */
};

/* Files shown at once (a profile of 256 ranks, its manifest), and in one
 * batch: a batch's load past it fails (st_app_error). The set holds twice
 * as many: a whole batch loads beside the files it replaces. */
#define ST_APP_MAX_TRACES 256

/* What the app needs from its platform. Only now_ms is required. */
typedef struct st_app_platform {
  void *ud;
  /* milliseconds from an arbitrary origin (held-key motion, load times) */
  double (*now_ms)(void *ud);
  /* the process's memory in bytes, for the stats (NULL: 0) */
  uint64_t (*heap_bytes)(void *ud);
  /* parts of the interaction state changed (ST_UI_* bits other than
   * HANDLED / REDRAW / ANIMATING), reported as soon as the change is made,
   * so the platform's panels agree with it at once */
  void (*ui_changed)(void *ud, unsigned bits);
  /* the traces swapped in by the last batch have had their first frame
   * drawn (st_app_frame_done) */
  void (*loaded)(void *ud);
  /* a batch's view (merge, lod, ui) is about to be built (a test hook that
   * limits memory from there; NULL: nothing) */
  void (*view_begins)(void *ud);
  /* called once a frame is built: 1 if some of its glyphs were missing
   * because the font's glyph cache (a texture atlas) was full; the platform
   * has then emptied the cache, and the frame is built once more (one frame
   * never needs a whole cache). NULL: the cache never fills. */
  int (*glyphs_full)(void *ud);
} st_app_platform;

typedef struct st_app_desc {
  st_alloc alloc; /* {0}: the C library's */
  st_app_platform platform;
  float css_w, css_h, dpr; /* canvas; 0: 800 x 600 at 1 until st_app_resize */
} st_app_desc;

typedef struct st_app st_app;

/* NULL if desc or its now_ms is missing, or on allocation failure. */
st_app *st_app_create(const st_app_desc *desc);
void st_app_destroy(st_app *app);
/* The allocator for what the app makes from now on (a platform's counting
 * allocator, installed late); what exists keeps its own. */
void st_app_set_alloc(st_app *app, st_alloc alloc);
/* The font the draw list measures and places text with (kept by pointer;
 * NULL: no frame is built). See platform.glyphs_full. */
void st_app_set_font(st_app *app, const st_font *font);

/* ---- loading ---------------------------------------------------------------- */
int st_app_load_begin(st_app *app, const char *name); /* 1 ok, 0 failed (st_app_error) */
st_code st_app_load_push(st_app *app, const void *data, size_t len);
/* An import split across workers (core/import/load/load.h st_loader_apply):
 * task results applied in order instead of pushes; the same finish. */
int st_app_load_apply_needs_bytes(st_app *app, const void *result, size_t rlen);
st_code st_app_load_apply(st_app *app, const void *result, size_t rlen, const void *bytes,
                          size_t blen);
/* A compressed input split the same way: the raw side's outcome (load.h
 * st_loader_set_inflated), before load_finish. */
void st_app_load_set_inflated(st_app *app, const st_source_info *info, st_code code,
                              const st_error *err);
/* Streaming mode (core/import/stream/stream.h): a load that keeps only a
 * summary and an index (block_bytes, max_buckets: 0 for the defaults);
 * then, as the view asks (st_app_stream_want: {"handle","t0_ns","t1_ns",
 * "bytes"} to read a window of at most budget_bytes, {"handle","summary":
 * true} to put the summary back, or null), the platform reads the window's
 * ranges of the file (decoded bytes: begin returns how many, range(k, 0)
 * the offset, range(k, 1) the length) and pushes each whole, in order;
 * finish swaps the window's model in (1) or says why not (0, st_app_error).
 * "filter": true in a want (pass it to begin): the window's ranges pass the
 * budget (each block of an unsorted trace spans much of its time) but its
 * events, counted from the summary, do not: they are all read, and only
 * the window's kept.
 * The view keeps its time window, scroll and notes across swaps; pending is
 * the bytes still to push. st_app_stream_json: {"files":[{"handle",
 * "windows","blocks","exact","bucket_ns","summary_events","index_bytes",
 * "window_ns"}],"pending","reading","filter"}. */
int st_app_load_begin_stream(st_app *app, const char *name, double block_bytes, double max_buckets);
/* A streamed trace opened from its index file (stream_stx.h) instead of the
 * pass: begin_index (0: not an index, st_app_error says why in one line);
 * then the trace's identity samples: index_samples() of them, sample k at
 * index_range(k, 0) (raw offset) of index_range(k, 1) bytes, each given
 * whole to index_sample; index_verify(the trace file's size): 1 it is the
 * index of this trace (then st_app_load_finish as for any load), 0 not
 * ("index does not match <file>: ...": st_app_load_abort, and load the
 * trace itself). */
int st_app_load_begin_index(st_app *app, const char *name, const void *stx, size_t len);
int st_app_load_index_samples(st_app *app);
double st_app_load_index_range(const st_app *app, int k, int length);
int st_app_load_index_sample(st_app *app, int k, const void *data, size_t len);
int st_app_load_index_verify(st_app *app, double raw_size);
const char *st_app_stream_want(st_app *app, double budget_bytes);
int st_app_stream_begin(st_app *app, st_trace_handle h, double t0_ns, double t1_ns,
                        int filter); /* -1: failed */
double st_app_stream_range(const st_app *app, int k, int length);
/* A compressed file's ranges are read in pieces through its restart points
 * (stream.h st_stream_read): raw_begin(offset, len) of a piece of range k
 * returns the raw offset to read from (-1: failed); raw_push gives the raw
 * bytes from there on, in order, until it returns 1 (the piece's decoded
 * bytes went to the window as range k's next bytes); 0: more raw bytes;
 * -1: failed (st_app_error). n == 0 at the file's end. */
double st_app_stream_raw_begin(st_app *app, double offset, double len);
int st_app_stream_raw_push(st_app *app, int k, const void *raw, size_t n);
int st_app_stream_push(st_app *app, int k, const void *data, size_t len);
int st_app_stream_finish(st_app *app);
void st_app_stream_abort(st_app *app);
int st_app_stream_show_summary(st_app *app, st_trace_handle h);
double st_app_stream_pending(const st_app *app);
/* While a streaming load runs: its summary so far drawn in place of what
 * was shown (again: a newer one, the user's zoom kept); the load's end
 * shows the file, or brings back what was shown if it failed. Returns the
 * preview's events (0: none, no streaming load). */
double st_app_stream_preview(st_app *app);
const char *st_app_stream_json(st_app *app);
/* A re-ordered copy of a streamed file (stream.h st_stream_spill), for the
 * windows of an unsorted or protobuf trace (stream_json's "copy_wanted"):
 * spill_begin(h, parts, buffer_bytes, limit_bytes, write, ud) starts
 * a second pass (0 for the defaults; 1 ok, 0 failed: st_app_error), whose
 * records go to write(ud, offset, data, len) (the platform keeps them);
 * spill_push gives the file's raw bytes in order from its start (1 ok, 0:
 * stop pushing, the file's damage or the copy's failure: finish now);
 * spill_finish makes the copy the file's (1; 0 failed, no copy):
 * from then on its windows are read from the copy (a want's "copy": true:
 * read its ranges from what write kept). One pass at a time; closing the
 * file drops it. st_app_spill_forget (app_internal.h) drops it too. */
int st_app_spill_begin(st_app *app, st_trace_handle h, double parts, double buffer_bytes,
                       double limit_bytes, st_stream_spill_write write, void *ud);
int st_app_spill_push(st_app *app, const void *data, size_t len);
int st_app_spill_finish(st_app *app);
void st_app_spill_abort(st_app *app);
/* The platform could not keep file h's copy after all (its storage
 * refused a write the core had already handed over): the copy is
 * forgotten and the file's windows are read as before it. 1 if it had one. */
int st_app_spill_drop(st_app *app, st_trace_handle h);
int st_app_load_finish(st_app *app); /* ST_APP_LOAD_* */
/* Drops the load in progress (read error in the page); the shown trace stays. */
void st_app_load_abort(st_app *app);
/* Loads the built-in demo trace through the same path as a user's file. */
int st_app_load_demo(st_app *app);
/* The demo's JSON bytes after st_app_load_demo (NULL if they could not be
 * kept), so the platform can read args from them like from a file; then
 * released with st_app_demo_release. */
const unsigned char *st_app_demo_bytes(const st_app *app, size_t *len);
void st_app_demo_release(st_app *app);
/* The last load or batch error, one line ("" if none). */
const char *st_app_error(const st_app *app);

/* ---- the workspace of traces ---------------------------------------------- */
void st_app_batch_begin(st_app *app);
/* Shows the batch's traces in place of those shown (if any loaded):
 * returns how many are shown now from the batch (0: the previous stay, and
 * st_app_error says why when files had loaded). */
uint32_t st_app_batch_end(st_app *app);
/* The last batch's files left out because the view of them all did not
 * fit: "<file>: not shown: <why> (after its N events, X MB read)\n" each. */
const char *st_app_dropped(const st_app *app);
/* The handle of the last file loaded ({0}: none, or closed since). Its id
 * is > 0 and below 2^31, exact in a double. */
st_trace_handle st_app_last_handle(const st_app *app);
/* Names the group of a file loaded in the open batch (a profile manifest's
 * names; traceset.h st_traceset_set_group), shown so at the batch's end.
 * 1 done, 0 a bad handle or out of memory. */
int st_app_set_group(st_app *app, st_trace_handle h, const char *group);
/* [{"handle","name","group","events","offset_us","format"}] in display order. */
const char *st_app_traces_json(st_app *app);
/* Moves a shown trace to offset_us on the shared timeline (the others keep
 * theirs; offsets are normalised so the earliest is 0). 1 done, 0 not
 * possible (one trace shown, bad handle, out of range). */
int st_app_set_offset(st_app *app, st_trace_handle h, double offset_us);
/* "Align": moves the files with a selected event so that their earliest
 * selected events start together with the first such file's. Returns how
 * many files had one (0: fewer than two, nothing moved). */
int st_app_align_selection(st_app *app);
/* Stacked (0) or side by side (1: two panes, the first file left and the
 * second right, zoom and pan kept together). Needs two traces or more
 * shown; returns the layout now in effect, or -1 when the second pane could
 * not be made (out of memory: stacked). */
int st_app_set_side_by_side(st_app *app, int on);
int st_app_side_by_side(const st_app *app);
/* The stats JSON of what is shown (st_stats_json shape; several traces: the
 * totals with "traces": [each one's own]); "null" before any load. */
const char *st_app_stats_json(st_app *app);
/* One trace's own stats, or "null" for a bad handle. */
const char *st_app_trace_stats_json(st_app *app, st_trace_handle h);
/* The first shown trace's top-level metadata as a JSON object ("{}" if none). */
const char *st_app_info_json(const st_app *app);
/* One trace's top-level metadata ("{}" for a bad handle or none). */
const char *st_app_trace_info_json(const st_app *app, st_trace_handle h);
/* SHA-256 of trace h's model (st_trace_digest: the page's check
 * that a load split across workers built the one-worker model): 1, or 0
 * for a bad handle. */
int st_app_trace_digest(const st_app *app, st_trace_handle h, uint8_t out[32]);

/* ---- canvas, view and input ------------------------------------------------ */
/* Canvas size in CSS px and the device pixel ratio. */
void st_app_resize(st_app *app, float css_w, float css_h, float dpr);
void st_app_canvas(const st_app *app, float *css_w, float *css_h, float *dpr);
void st_app_request_redraw(st_app *app);
/* The ui in use (the pane last used, side by side), NULL before the first
 * load: input goes to it, its change bits to st_app_apply. */
st_ui *st_app_ui(st_app *app);
/* Takes the ST_UI_* bits an st_ui call returned: schedules a redraw, keeps
 * held-key animation going, makes the other pane follow, and tells the
 * platform which panels to refresh. */
void st_app_apply(st_app *app, unsigned changes);
/* Side by side: makes the pane under canvas x the one in use and returns x
 * in its coordinates (x unchanged when stacked). A drag keeps its pane:
 * subtract st_app_pane_dx() from its later x instead. */
float st_app_route_x(st_app *app, float x);
float st_app_pane_dx(const st_app *app);
void st_app_fit(st_app *app);
/* The CSS px of the canvas the page's panels cover from its top and from
 * its bottom (ui.h st_ui_set_cover): navigations land clear of them. */
void st_app_set_cover(st_app *app, double top, double bottom);
/* {"start_us","end_us","scroll_y"} in the file's timebase, "null" before a load. */
const char *st_app_view_json(st_app *app);
int st_app_view_set(st_app *app, double start_us, double end_us);
/* Tool 0 select, 1 pan, 2 zoom, 3 timing (kept across loads). */
void st_app_set_tool(st_app *app, int tool);
/* The flow mode (st_flow_mode: 0 off, 1 selection, 2 all; kept across loads,
 * shared by side-by-side panes; key l on the ui cycles it): returns the mode
 * set, or -1 (nothing changed) for a mode out of range. */
int st_app_set_flow_mode(st_app *app, int mode);
int st_app_flow_mode(const st_app *app);
/* Selects the one event at (row, index) of the view (reveal: also scrolls
 * and pans to centre it); 1 done, 0 no such event. */
int st_app_select(st_app *app, double row, double index, int reveal);

/* ---- which tracks show (core/view/view.h), in every pane ----------------------
 * set_track_filter(text) keeps the tracks whose process, label or file name
 *   contains text (ASCII case ignored; "" shows all); 1 done, 0 not (no
 *   trace, out of memory).
 * set_show_empty(on) shows the processes without events (hidden by
 *   default, unless every process is without events).
 * pin(id, on) pins / unpins the track with that id ("<file>.<pid>.<k>":
 *   the file's place in the view, the process's pid, the track's place in
 *   its process; st_app_tracks_json's "id"); 1 if it is now as asked, 0
 *   for an unknown id or more than ST_LAYOUT_MAX_PINS.
 * tracks_state_json() -> {"filter","tracks","shown","processes","empty",
 *   "show_empty","pinned_h","pins":[ids in pin order]}: tracks: labelled
 *   tracks of the sections shown with no filter; shown: those the filter
 *   keeps; empty: processes without events (all of them when empty ==
 *   processes: then they show); "null" before a load.
 * A load starts with no filter, no pin and empty processes hidden. */
int st_app_set_track_filter(st_app *app, const char *text);
void st_app_set_show_empty(st_app *app, int show);
int st_app_pin(st_app *app, const char *id, int on);
const char *st_app_tracks_state_json(st_app *app);

/* ---- the frame ----------------------------------------------------------- */
/* Once per animation frame: advances held-key motion and, when something
 * changed since the last frame drawn, builds the frame and returns its
 * draw list (CSS px, for the platform to render, then st_app_frame_done);
 * NULL when nothing must be drawn or no font is set. */
const st_drawlist *st_app_frame(st_app *app);
/* The list st_app_frame returned has been drawn: frame statistics are
 * taken and a pending "loaded" is reported (platform.loaded). */
void st_app_frame_done(st_app *app);
/* {"frames","last_frame_ms","rects","glyphs","bands","flows":{"mode",
 * "drawn","bundles","bundled","labels","chain","capped"},"path_arrows"}
 * (path_arrows: the critical path's edges drawn, st_drawlist.edges_drawn;
 * bands: idle-gap
 * bands drawn, st_drawlist.bands_drawn; flows: the flow mode and the last
 * frame's st_drawlist.flows_drawn, flow_bundles_drawn, flows_bundled,
 * flow_labels, flows_chain, flows_capped) */
const char *st_app_frame_stats_json(st_app *app);
/* A test hook: with on, every frame records the texts it draws
 * (draw.h st_drawlist.label_log); st_app_label_log is the last frame's
 * record, *len bytes (NULL when off or empty). Redraws. */
void st_app_set_label_log(st_app *app, int on);
const char *st_app_label_log(st_app *app, uint32_t *len);

/* The bench (core/app/bench_script.h) on the trace shown at the canvas's
 * size: st_app_bench_script fills up to cap steps (0 without a trace);
 * st_app_bench_frame builds one step's draw list (NULL on failure); the
 * platform times each with its rendering, then st_app_bench_json sorts
 * the times (ms, n of each; they are reordered) into {"frames",
 * "frame_ms_p50","frame_ms_p99","frame_ms_max","build_ms_p50","build_ms_max",
 * "rects_max","glyphs_max","width","height","dpr"} and schedules a redraw
 * of the user's view. */
uint32_t st_app_bench_script(st_app *app, st_bench_step *steps, uint32_t cap);
const st_drawlist *st_app_bench_frame(st_app *app, const st_view *view);
const char *st_app_bench_json(st_app *app, double *frame_ms, double *build_ms, uint32_t n,
                              uint32_t rects_max, uint32_t glyphs_max);

/* ---- panels of the interaction state (core/ui/panel.h) --------------------- */
const char *st_app_state_json(st_app *app);              /* "null" before a load */
const char *st_app_selection_json(st_app *app, int max); /* "[]" before a load */
const char *st_app_selected_event_json(st_app *app);     /* the one selected, or "null" */
const char *st_app_tracks_json(st_app *app);
const char *st_app_hover_json(st_app *app);
/* A whole-trace name search (empty text clears it); the match count. */
double st_app_search(st_app *app, const char *text);

/* ---- summary table: a snapshot of an aggregation by name --------------------
 * take(window: 0 the selection, 1 the visible window) -> events aggregated
 * (-1 failed); json(col st_agg_col, desc, max rows) -> {"source","events",
 * "names","rows":[...]} (core/ui/panel.h); select(name_id) selects the
 * snapshot's events of that name (< 0: all of them), returns how many are
 * selected. A new view or moved files drop it. */
double st_app_summary_take(st_app *app, int window);
const char *st_app_summary_json(st_app *app, int col, int descending, int max_rows);
double st_app_summary_select(st_app *app, double name_id);
void st_app_summary_forget(st_app *app);

/* ---- flame graph (core/analysis/flame.h), a snapshot of the trace on screen ----
 * take(from: 0 selection, 1 mark, 2 window, -1 the first that applies;
 *      source: 0 samples, 1 slices, -1 samples if any; track: a range's
 *      thread or -1) -> events aggregated (-1 failed)
 * json(min_share) -> {"from","start_us","end_us","track","threads":[...],"tree":{...}}
 * hit(fx, depth) -> node at share fx of row depth, -1 if none
 * select(node) -> selects the events behind node, returns how many */
double st_app_flame_take(st_app *app, int from, int source, int track);
const char *st_app_flame_json(st_app *app, double min_share);
int st_app_flame_hit(st_app *app, double fx, int depth);
double st_app_flame_select(st_app *app, int node);
void st_app_flame_forget(st_app *app);

/* ---- two runs compared: the first two traces shown, A baseline, B candidate --
 * compare_align() moves B onto A at their first common step marker
 * (core/set/profile.h) -> {"kind","offset_us","step"} | "null"
 * diff(by 0 name / 1 category, range 0 whole / 1 [t0_us, t1_us) in the
 *      view's microseconds / 2 step `step` of each, col, desc) -> the diff
 *      JSON (core/analysis/diff.h st_diff_json) | "null"
 * diff_sort(col, desc) re-sorts it; diff_select(row) selects the row's
 * events in A and B and returns how many (-1 failed). */
const char *st_app_compare_align(st_app *app);
const char *st_app_diff(st_app *app, int by, int range, double t0_us, double t1_us, double step,
                        const char *col, int desc);
const char *st_app_diff_sort(st_app *app, const char *col, int desc);
double st_app_diff_select(st_app *app, int row);
void st_app_diff_forget(st_app *app);

/* ---- args of one event, re-read from its trace's file ----------------------
 * The model keeps only an event's `src`; the platform reads the bytes the
 * trace's args source (core/import/args/argsrc.h) asks for and hands them
 * back. Every call names the trace by handle; one read is in flight at a
 * time (a begin drops one in progress):
 *   args_begin(h, src) -> {"read": {"offset", "length"}} | {"error"}
 *     (a B/E slice of the view: the args of its B and E merged)
 *   plain files: args_data(h, bytes) for the range; compressed ones:
 *     once per trace args_index_push(h, whole file) + args_index_finish(h)
 *     (a gzip index: core/import/args/gzindex.h), then per range
 *     args_gz_begin(h, offset, length) -> the compressed offset to read
 *     from (-1: none) and args_gz_push(h, bytes) until it returns 1
 *   args_step(h) -> {"read": ...} again | {"args": {...}, "truncated": 0|1}
 *     | {"error": "<one line>"}
 * args_reset(h) drops h's gzip index. Ints: 0 ok, else an st_code (push),
 * -1 (data). */
const char *st_app_args_begin(st_app *app, st_trace_handle h, double src);
int st_app_args_data(st_app *app, st_trace_handle h, const void *data, size_t len);
const char *st_app_args_step(st_app *app, st_trace_handle h);
void st_app_args_reset(st_app *app, st_trace_handle h);
int st_app_args_index_ready(st_app *app, st_trace_handle h);
int st_app_args_index_push(st_app *app, st_trace_handle h, const void *data, size_t len);
int st_app_args_index_finish(st_app *app, st_trace_handle h);
double st_app_args_gz_begin(st_app *app, st_trace_handle h, double src, double len);
int st_app_args_gz_push(st_app *app, st_trace_handle h, const void *data, size_t len);

/* ---- "in args" search: a pass over one trace's file ------------------------
 * begin(h, text, add): add 0 (one trace shown): the result replaces the
 * search, names OR args; add 1 (several): after the name search, h's args
 * hits are added for its events only, in both panes side by side. Then
 * push(file bytes, in order; 0 ok, else an st_code: stop) and finish ->
 * the match count (-1: failed, see args_search_error). A trace closed
 * mid-pass fails it ("another trace was opened"). */
int st_app_args_search_begin(st_app *app, st_trace_handle h, const char *text, int add);
int st_app_args_search_push(st_app *app, const void *data, size_t len);
double st_app_args_search_finish(st_app *app);
void st_app_args_search_abort(st_app *app);
const char *st_app_args_search_error(const st_app *app);

/* ---- analysis: answers for the files shown (core/analysis/analyze.h) -----------
 * analyze(step_name: NULL or "" automatic steps, else every event of that
 *   name is a step; top_ops: < 0 the CLI's 20, 0 all; max_gaps: <= 0 10)
 *   -> st_analysis_json of the shown files in display order, exactly what
 *   `strata analyze FILE... --json [--step-name N] [--ops N] [--gaps N]`
 *   prints for those files (less "analyze_ms"; "file" is the name the file
 *   was loaded under), times in each file's own microseconds | "null"
 * analyze_show(trace k, device: an index into the last analyze()'s
 *   "devices" (one of file k's), -1 none, start_us, end_us: file k's own
 *   time, as in that JSON) shows that window and scrolls the device's
 *   section (else file k's header) to the top, expanding it; 1 done, 0 bad
 *   arguments. The analysis is kept until the next analyze() or until
 *   the files shown change; analyze() asked the same (step name, top_ops,
 *   max_gaps) again while they neither changed nor moved answers the kept
 *   JSON at once (the page asks once after a trace's first frame).
 * select_name(name) selects every event of slice and async tracks named
 *   exactly `name` in the files shown (an op's instances: its "count") ->
 *   how many (-1 failed) */
const char *st_app_analyze(st_app *app, const char *step_name, int top_ops, int max_gaps);
/* How many analyses st_app_analyze has made (not counting kept answers):
 * what tells a test that the kept one answered. */
uint64_t st_app_analyses_made(const st_app *app);
int st_app_analyze_show(st_app *app, double trace, double device, double start_us, double end_us);
/* memory_show(m, start_us, end_us): the same for entry m of the JSON's
 * "memory" (a device's memory: its section, that window of its file's own
 * time, e.g. around its peak_us); 1 done, 0 bad arguments (issue 34). */
int st_app_memory_show(st_app *app, double mem, double start_us, double end_us);
double st_app_select_name(st_app *app, const char *name);
/* cause_gaps(device, cause: indices into the last analyze()'s "devices"
 * and that device's "idle_causes") highlights exactly the gaps of that
 * idle cause (the ones it has a part of) on its device's rows, in place of
 * the idle-gap overlay (`g` brings that back) -> how many, -1 no such
 * cause (nothing highlighted then).
 * cause_gaps_json() -> {"device","cause","gaps":[[start_us,end_us],...]}
 * the gaps highlighted, in their file's own microseconds as in analyze()'s
 * JSON (`strata analyze --json --cause-gaps`'s "gap_list"), | "null" */
double st_app_cause_gaps(st_app *app, double device, double cause);
const char *st_app_cause_gaps_json(st_app *app);
/* How well the hardware is used (issue 33, app_efficiency.c over the kept
 * analysis): eff_wanted -> [{"h", "src", "name"}] (events whose args to
 * read) | "null"; op_cost(name, args JSON) -> [flops, model_flops, bytes,
 * dtype, source, estimate] | "null"; eff_json(costs: 6 doubles per wanted
 * event, in its order; peaks > 0 override) -> `strata analyze --json`'s
 * "efficiency" | "null". */
const char *st_app_eff_wanted(st_app *app);
const char *st_app_op_cost(st_app *app, const char *name, const char *args);
const char *st_app_eff_json(st_app *app, const double *costs, uint32_t n, double peak_tflops,
                            double peak_gbps);

/* ---- collectives (app_collectives.c; core/analysis/collectives.h) -------------
 * coll_begin() over the last analyze() of the files shown -> 1, 0 (none);
 * coll_add(k, bytes, len): file k's decoded input (NULL: no args: kinds
 *   from the kernels' names) -> 1, 0 (bad k, twice, out of memory);
 * coll_finish() -> {"collectives","clock_offsets","unaligned",
 *   "critical_path","what_if","collectives_summary"} as `strata analyze
 *   --json` writes them | "null";
 * coll_select(i) selects collective i's kernels on every file -> how many
 *   (-1 failed);
 * coll_align() moves the files shown onto the clock the collectives give
 *   (files without collectives keep their own) -> 1 + files moved, 0 failed;
 * coll_path_select(step) selects the critical path of that step (its
 *   collectives' kernels on their blockers, each compute segment's device
 *   work that starts in it) -> how many events (-1: no such step), and
 *   draws its cross-rank edges as arrows (draw.h st_draw_edge: from the
 *   blocker's kernel's start, its arrival, to the end of the same
 *   collective's kernel on the rank that waited for it and goes on along
 *   the path) until the selection changes;
 * coll_path_arrows_json() -> {"step","arrows":[{"from_trace","from_us",
 *   "to_trace","to_us"}]}: those arrows' ends (times on the collectives'
 *   clock, as critical_path's) | "null" when none are shown.
 * Dropped with the analysis. */
int st_app_coll_begin(st_app *app);
int st_app_coll_add(st_app *app, double k, const void *data, size_t len);
const char *st_app_coll_finish(st_app *app);
double st_app_coll_select(st_app *app, double index);
int st_app_coll_align(st_app *app);
double st_app_coll_path_select(st_app *app, double step);
const char *st_app_coll_path_arrows_json(st_app *app);

/* ---- op statistics, duration histograms, idle gaps (app_opstats.c) ----------
 * scope: 0 the whole trace, 1 the visible window, 2 step `step` (its window
 * in each file, as `strata analyze --step`), 3 the selection.
 * opstats_json(scope, step, top: the names kept by self time, 0 all) ->
 *   {"scope","step","names","rows":[{"name","count","total_us","self_us",
 *   "mean_us","min_us","p50_us","p90_us","p99_us","max_us"}]} by self time,
 *   the figures of `strata analyze --json`'s ops (core/analysis/opstats.h);
 *   "null" before a load or for a step that cannot be found.
 * histogram_json(name, scope, step) -> {"name","scope","bins":[{"bin",
 *   "lo_us","hi_us","count"}]} (opstats.h's log bins, [lo, hi)); name NULL:
 *   of every event in the scope (e.g. the whole selection).
 * histogram_select(name, scope, step, lo_us, hi_us) selects exactly the
 *   events of that name (NULL: any) in the scope whose duration is in
 *   [lo, hi); returns how many are selected (-1 failed).
 * idle_gaps_show(on: 1, 0, -1 toggles) highlights every idle gap of the
 *   devices' rows (core/analysis/analyze.h; the ST_APP_GAPS longest) in the
 *   frame; returns how many are highlighted (0 when off).
 * idle_gaps_json(max) -> {"devices","highlighted","shown","gaps":[{"index",
 *   "trace","device","start_us","end_us" (the view's timebase, as
 *   st_app_view_json),"dur_us","host":[{"name","start_us","dur_us",
 *   "overlap_us"}]}]}, longest first.
 * idle_gap_go(index) shows that gap with a margin and scrolls to its
 *   device's rows; 1 done, 0 no such gap. */
#define ST_APP_GAPS 1024
const char *st_app_opstats_json(st_app *app, int scope, double step, int top);
const char *st_app_histogram_json(st_app *app, const char *name, int scope, double step);
double st_app_histogram_select(st_app *app, const char *name, int scope, double step, double lo_us,
                               double hi_us);
double st_app_idle_gaps_show(st_app *app, int on);
int st_app_idle_gaps_shown(const st_app *app);
const char *st_app_idle_gaps_json(st_app *app, int max);
int st_app_idle_gap_go(st_app *app, int index);

/* ---- notes (app_notes.c): a time or a range with a short text ----------------
 * Times are microseconds in the view's timebase (st_app_view_json, the
 * link's t=); a note stays where it was put while files move. Kept sorted by
 * start (then end, then id), drawn on the timeline and the time axis of
 * every pane (a line at a time, a band over a range, a flag with the text
 * on the axis: core/draw/draw.h st_draw_note). A new view (another batch
 * of files) drops them.
 * note_add(t0, t1: NaN or equal to t0 for a time; swapped when before t0,
 *   text: one line, control characters become spaces, cut at
 *   ST_APP_NOTE_TEXT bytes on a character boundary) -> the note's id (> 0),
 *   0 when t0 is not finite or ST_APP_MAX_NOTES notes exist
 * note_remove(id), note_set_text(id, text) -> 1 done, 0 no such note
 * notes_json() -> [{"id","t0_us","t1_us","text"}] in order
 * note_go(id) shows the note: a range with a tenth of it either side, a
 *   time centred in a window as wide as the one shown; 1 done, 0 no such
 *   note or nothing loaded
 * time_at(x) -> the time under canvas x in microseconds (side by side: the
 *   pane under x, which becomes the one in use), NaN off the timeline or
 *   before a load */
#define ST_APP_MAX_NOTES 64
#define ST_APP_NOTE_TEXT 200

typedef struct st_app_note {
  uint32_t id;
  double t0_us, t1_us;
  char text[ST_APP_NOTE_TEXT + 1];
} st_app_note;

double st_app_note_add(st_app *app, double t0_us, double t1_us, const char *text);
int st_app_note_remove(st_app *app, double id);
int st_app_note_set_text(st_app *app, double id, const char *text);
void st_app_notes_clear(st_app *app);
/* The notes in order (count in *count), valid until the next change. */
const st_app_note *st_app_notes(const st_app *app, uint32_t *count);
const char *st_app_notes_json(st_app *app);
int st_app_note_go(st_app *app, double id);
double st_app_time_at(st_app *app, float x);

#endif
