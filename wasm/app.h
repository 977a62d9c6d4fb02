/* app.h: the page application's state and the operations every front part
 * (the exported API, input handlers, the main loop) performs on it.
 *
 * Interaction (view, layout and collapse, tools, selection, search, marks,
 * held keys) is the core's st_ui (core/ui/ui.h): input.c translates DOM events
 * into st_ui calls and hands their ST_UI_* change bits to st_app_apply(),
 * which schedules a redraw and tells the page at once which panels to
 * refresh.
 *
 * There is exactly one app per page (one canvas, one GL context), so the
 * state lives in one struct reached through st_app_get(). Nothing here talks
 * to the browser directly: platform calls live in main.c (SDL/GL),
 * input.c (DOM events), js_bridge.c (the named JS functions) and
 * gl_renderer.c / glyphs.c (GL).
 *
 * Loading is incremental and never disturbs what is shown: a new trace is
 * built beside the current one and swapped in only when its load succeeds;
 * a failed load keeps the previous trace on screen.
 *
 * The workspace: the app holds a set of traces (slots, at most
 * ST_APP_MAX_TRACES), each with its own model, stats, metadata and args
 * source (args_reader.h), addressed from the page by handles (slot and a
 * generation: a handle of a closed trace fails validation). A batch
 * (st_app_batch_begin ... st_app_batch_end) loads several files one after
 * another into one shared string table, and shows them together: one trace
 * as itself, several merged on one timeline (core/model/trace.h st_trace_merge),
 * each under a group header, at an offset (its clock, or moved by the
 * user: st_app_set_offset). A load outside a batch is a batch of one. The
 * batch replaces the traces shown once at least one of its files loaded
 * and the view of them (merge, level-of-detail index, ui) could be built.
 * When that view does not fit in memory, the batch's last files are left
 * out one by one until it does (each named in `dropped`, with why); when
 * not even its first file's view fits, the batch goes and the traces shown
 * before stay (their view rebuilt), with `error` saying what failed.
 *
 *   st_app *app = st_app_get();
 *   st_app_load_begin(app, "run.json.gz");
 *   st_app_load_push(app, bytes, n);          // any number of times
 *   int status = st_app_load_finish(app);     // ST_APP_LOAD_*
 *   st_app_request_redraw(app);
 */
#ifndef STRATA_WASM_APP_H
#define STRATA_WASM_APP_H

#include "draw.h"
#include "load.h"
#include "lod.h"
#include "stats.h"
#include "trace.h"
#include "ui.h"

#include "glyphs.h"
#include "gl_renderer.h"

/* st_app_load_finish() results. */
enum {
  ST_APP_LOAD_OK = 0,      /* new trace shown */
  ST_APP_LOAD_PARTIAL = 1, /* damaged part-way: what was read before the damage is
                            * shown, and error holds the CLI's warning line */
  ST_APP_LOAD_FAILED = 2   /* nothing usable; the previous trace stays (see error) */
};

#define ST_APP_MAX_TRACES 64 /* = ST_ARGSRD_SLOTS */

typedef struct st_app_trace {
  st_trace *trace;   /* NULL: a free slot */
  uint32_t gen;      /* bumped when the slot is freed: its old handles go stale */
  int in_batch;      /* loaded by the batch in progress, not shown yet */
  st_stats stats;    /* its own load's numbers */
  char *info_json;   /* its top-level metadata (st_loader_metadata_json), malloc'd */
  char name[256];    /* the file's name */
  char group[256];   /* its group's name on the timeline */
  int64_t offset_ns; /* where its time 0 is on the shared timeline */
  uint64_t seq;      /* load order */
} st_app_trace;

typedef struct st_app {
  st_alloc alloc;

  /* the workspace: loaded traces, and those shown in display order */
  st_app_trace traces[ST_APP_MAX_TRACES];
  uint32_t shown[ST_APP_MAX_TRACES];
  uint32_t shown_count;
  st_strtab *strings;       /* shared by the traces shown */
  st_strtab *batch_strings; /* shared by the batch in progress */
  int batch_open;           /* 1: explicit batch; 2: a single load's own */
  uint32_t batch_loaded;
  double batch_t0_ms;
  uint32_t last_slot; /* the slot of the last load that succeeded */
  uint64_t seq;       /* loads so far */
  st_trace *merged;   /* the merged view of several traces (owned), or NULL */
  /* side by side (two runs compared): two panes, the left one showing the
   * first file, the right one the second, their time windows kept equal;
   * `ui` is the pane last used (pointer, keys, panels) */
  int side;
  st_ui *pane[2];
  float pane_dx; /* x of the pane in use, CSS px */
  st_drawlist dl2;

  /* the trace on screen: one slot's trace, or `merged` (NULL before the
   * first successful load) */
  st_trace *trace;
  st_lod *lod;
  st_ui *ui;      /* view, layout, selection, search: see core/ui/ui.h */
  int tool;       /* st_tool, kept across loads */
  st_stats stats; /* load_ms: the last batch's, to its first frame */
  int has_stats;
  unsigned char *demo_bytes; /* the demo's JSON, kept until the page copies it (args) */
  size_t demo_len, demo_cap;
  char trace_name[256];

  /* the load in progress */
  st_loader *loader;
  double load_t0_ms; /* emscripten_get_now() at load begin */
  char load_name[256];
  st_code push_code; /* first error a push reported */

  char error[320];    /* last load error, one line */
  char dropped[2048]; /* the last batch's files left out of the view: "<file>: <why>\n" each */

  /* canvas */
  float css_w, css_h, dpr;

  /* rendering */
  st_drawlist dl;
  st_glyphs *glyphs;
  st_gl_renderer *renderer;
  int dirty;     /* something changed: draw on the next animation frame */
  int animating; /* held keys: st_ui_tick every frame */
  double last_tick_ms;
  int loaded_pending; /* a new trace was swapped in: report after its first frame */
  uint64_t frames;
  double last_frame_ms;
  uint32_t last_rects, last_glyphs;
} st_app;

st_app *st_app_get(void);

/* Sets up the renderer and glyph atlas once the GL context is current. */
int st_app_init_gfx(st_app *app);

int st_app_load_begin(st_app *app, const char *name);
st_code st_app_load_push(st_app *app, const void *data, size_t len);
int st_app_load_finish(st_app *app);
/* Drops the load in progress (read error in the page); the shown trace stays. */
void st_app_load_abort(st_app *app);
/* Loads the built-in demo trace through the same path as a user's file. */
int st_app_load_demo(st_app *app);
/* The demo's generated JSON bytes after st_app_load_demo (NULL if it could
 * not be kept), so the page can read args from them like from a file; the
 * page copies them and releases them with st_app_demo_release. */
const unsigned char *st_app_demo_bytes(const st_app *app, size_t *len);
void st_app_demo_release(st_app *app);

/* Canvas size in CSS px and the device pixel ratio. */
void st_app_resize(st_app *app, float css_w, float css_h, float dpr);
void st_app_request_redraw(st_app *app);
/* Draws if dirty; called once per animation frame. */
void st_app_frame(st_app *app);

/* Takes the ST_UI_* bits an st_ui call returned: schedules a redraw, keeps
 * held-key animation going, and queues a panel refresh for the page. */
void st_app_apply(st_app *app, unsigned changes);
void st_app_fit(st_app *app);

/* View in microseconds of the file's own timebase (as ts is written). */
void st_app_view_get(const st_app *app, double *start_us, double *end_us, double *scroll_y);
int st_app_view_set(st_app *app, double start_us, double end_us);

/* ---- workspace ---------------------------------------------------------- */
void st_app_batch_begin(st_app *app);
/* Shows the batch's traces in place of those shown (if any loaded):
 * returns how many are shown now from the batch (0: the previous stay, and
 * error says why when files had loaded). Files whose view did not fit are
 * listed in app->dropped. */
uint32_t st_app_batch_end(st_app *app);
/* A handle (slot | gen << 8, > 0) of a loaded trace; slot of a valid one,
 * else UINT32_MAX. */
uint32_t st_app_handle_of(const st_app *app, uint32_t slot);
uint32_t st_app_slot_of(const st_app *app, double handle);
/* Moves a shown trace to offset_ns on the shared timeline (the others keep
 * theirs; offsets are normalised so the earliest is 0). 1 done, 0 not
 * possible (one trace shown, bad handle, out of range). */
int st_app_set_offset(st_app *app, uint32_t slot, double offset_ns);
/* "Align": moves the files with a selected event so that their earliest
 * selected events start together with the first such file's (select one
 * event in each file, e.g. ProfilerStep#550 in every rank). Returns how
 * many files had one (0: fewer than two, nothing moved). */
int st_app_align_selection(st_app *app);
/* Stacked (0: one timeline, A's sections above B's) or side by side (1:
 * two panes, A left and B right, zoom and pan synchronised). Needs two
 * traces or more shown; returns the layout now in effect, or -1 when side
 * by side was asked for and the second pane could not be made (out of
 * memory: the layout stays stacked). */
int st_app_set_side_by_side(st_app *app, int on);
/* Side by side: makes the pane under canvas x the one in use and returns x
 * in its coordinates (x unchanged when stacked). */
float st_app_route_x(st_app *app, float x);
/* [{"handle","name","group","events","offset_us","format"}] in display order. */
const char *st_app_traces_json(st_app *app);

/* The stats JSON of the trace on screen (st_stats_json shape); "null"
 * before any load. With several traces shown, the totals of their stats
 * with "traces": [each one's own stats]. The returned text is valid until
 * the next call. */
const char *st_app_stats_json(st_app *app);
/* The open trace's top-level metadata as a JSON object text ("{}" if none). */
const char *st_app_info_json(const st_app *app);

#endif
