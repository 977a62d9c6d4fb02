/* app_internal.h: the one st_app state (app.h), shared by core/app's files
 * and by nothing outside core/app.
 *
 * The files, each calling only those listed before it (no loops; the
 * build's objects are checked by shared/tools/file_loops.py); below the
 * state, what each shares with the others, in the same order:
 *   app_set.c         the workspace: the app's side of the trace set
 *                     (core/set/traceset.h: the files shown by handle, what
 *                     the app keeps with each file, the list, the stats,
 *                     metadata) and the helpers every file uses (clock,
 *                     text buffers)
 *   app_view.c        change bits (apply, pane following), view, canvas,
 *                     panes side by side, offsets of the files shown
 *   app_panels.c      the interaction-state panels and the name search
 *   app_tracks.c      which tracks show: filter, pins, empty processes
 *   app_summary.c     the summary table snapshot
 *   app_flame.c       the flame graph snapshot
 *   app_opstats.c     op statistics, duration histograms, idle gaps
 *   app_diff.c        two runs compared: alignment and the diff table
 *   app_collectives.c collectives matched across the files shown, their
 *                     table's selection, the critical path and its arrows
 *   app_analyze.c     answers for the files shown (analyze.h), going to a
 *                     file's window, an idle cause's gaps, a memory peak,
 *                     selecting every event of a name
 *   app_efficiency.c  FLOPs and peaks of the ops shown (efficiency.h)
 *   app_args.c        args of one event by trace handle, the "in args" search
 *   app_notes.c       notes on the timeline: the list, going to one, the overlay
 *   app_frame.c       the frame: draw list, statistics, the bench
 *   app_build.c       building and dropping the view (every snapshot above
 *                     forgotten with it)
 *   app_spill.c       streaming mode's re-ordered copy
 *   app_stream.c      streaming mode: summaries, windows read again, what the
 *                     view wants read
 *   app_view_json.c   the view as the page reads it (view(): window, axis
 *                     zero, scroll, the streaming bytes still due)
 *   app.c             create / destroy, loading, batches
 */
#ifndef STRATA_APP_INTERNAL_H
#define STRATA_APP_INTERNAL_H

#include "app.h"
#include "args_search.h"
#include "analyze.h"
#include "argsrc.h"
#include "diff.h"
#include "flame.h"
#include "gzindex.h"
#include "json_out.h"
#include "load.h"
#include "lod.h"
#include "panel.h"
#include "stats.h"
#include "trace.h"
#include "stream_stx.h"
#include "traceset.h"

_Static_assert(ST_APP_MAX_TRACES == ST_TRACESET_MAX, "the app's set holds as many files");
/* The set's slots: the files shown and a whole batch loading beside them
 * (a profile of ST_APP_MAX_TRACES files opened while another is shown). */
#define ST_APP_SET_SLOTS (2 * ST_APP_MAX_TRACES)

/* What the app keeps with each file of the set, in the file's slot
 * (st_traceset_data: zero when the file opens, zeroed when it closes, after
 * on_close has freed what it points to), so it cannot outlive its file. */
typedef struct st_app_file {
  /* the gzip restart points for its args, built on demand (app_args.c) */
  st_gzindex *ix;
  int ix_state; /* 0 none, 1 building, 2 ready, -1 failed */
  /* streaming mode (app_stream.c): the window its model shows, in the
   * file's ns, while the set shows a window of it (window 1) */
  int window;
  int64_t window_t0, window_t1;
} st_app_file;

/* The summary table's snapshot (app_summary.c). */
typedef struct st_app_summary {
  st_agg *agg;        /* the aggregation, sorted on demand */
  st_selection *base; /* the events it came from */
  int source;         /* -1 none, 0 selection, 1 window */
  const st_ui *ui;    /* the ui it was taken from */
  uint64_t moves;     /* app->moves when taken: files moved since drop it */
  st_panel_buf text;
} st_app_summary;

/* The flame graph's snapshot (app_flame.c). */
typedef struct st_app_flame {
  st_flame *f;
  const st_trace *trace; /* the trace on screen it was taken from (side by
                          * side both panes show it) */
  int from;              /* 0 selection, 1 mark, 2 window; -1 none */
  int track;             /* the range's thread, -1 all */
  double t0_ns, t1_ns;
  st_panel_buf tree, threads, text;
} st_app_flame;

/* The diff of two runs (app_diff.c). */
typedef struct st_app_cmp {
  st_diff *diff;
  const st_trace *merged; /* the view the diff's rows map to */
  st_panel_buf text;
} st_app_cmp;

/* Op statistics, histograms and idle gaps (app_opstats.c). */
typedef struct st_app_ops {
  st_analysis *an;        /* steps and idle gaps of `trace` (NULL: not made yet) */
  const st_trace *trace;  /* the view it is of */
  uint64_t moves;         /* app->moves when made: files moved since drop it */
  st_draw_band_set *sets; /* per device with gaps: its rows and gaps (the overlay) */
  uint32_t nsets;
  uint32_t *set_of; /* device -> its set, UINT32_MAX: none */
  int64_t *g0, *g1; /* the gaps by device, then start */
  uint32_t *rows;   /* the sets' rows, in the view */
  int gaps_on;      /* the highlight is on */
  st_panel_buf text;
} st_app_ops;

/* The args read in flight and the "in args" search pass (app_args.c). */
typedef struct st_app_args {
  st_trace_handle h; /* the trace of the read in flight ({0}: none) */
  st_args_query *q;  /* the query in progress */
  st_args_span span; /* the range it asked for */
  st_gzread *rd;     /* a compressed range being inflated */
  uint8_t *acc;      /* plain bytes of that range */
  size_t nacc, acc_cap;
  st_panel_buf text;
  /* the search pass */
  st_args_search *s;
  st_trace_handle s_h; /* its trace */
  uint32_t s_part;     /* add mode: the part of the view; UINT32_MAX: replace */
  char *s_text;
  size_t s_len;
  st_error s_err;
} st_app_args;

/* Streaming mode's window loads (app_stream.c). */
typedef struct st_app_stream {
  st_stream_window *w; /* the load in flight (NULL: none) */
  st_trace_handle h;   /* its file */
  st_stream_range *ranges;
  uint32_t n, cap;
  uint64_t bytes, pushed;
  int64_t t0, t1;     /* its window, the file's time (ns since its origin) */
  int filter;         /* it keeps only the window's events (st_stream_window_set_filter) */
  st_stream_read *rd; /* a compressed file's piece of a range being inflated */
  /* a load from an index file: the trace's identity samples read so far */
  uint8_t *sample[ST_STX_SAMPLES];
  size_t sample_len[ST_STX_SAMPLES];
  int swapping; /* a window's model replaces another: the notes stay */
  /* the preview's view as it was shown (absolute ns): the user moved it if
   * the view differs, and then keeps it on the next preview and the load's end */
  double pv0, pv1;
  st_panel_buf text;
  /* a re-ordering pass (app_spill.c): its file, and the copy's bytes so far */
  st_stream_spill *spill;
  st_trace_handle spill_h;
  /* the budget the front end last asked st_app_stream_want with (0: none
   * since the last abort): view().pending counts a read the view needs
   * under it before the read has begun */
  double want_budget;
} st_app_stream;

/* The analysis of the files shown (app_analyze.c; app.h "analysis").
 * What it caches: the last st_app_analyze's analysis (result) and JSON
 * (text), with what it was asked (step, top, gaps) and app->moves then;
 * the same ask while no file has moved since answers text again without
 * analysing. Made from it: the highlight of one idle cause's gaps
 * (st_app_cause_gaps) and the collectives (app_collectives.c, app->coll).
 * When it is invalidated: a different ask or a move (analysed again on the
 * next ask), and the view going (st_app_analyze_forget from app_build.c:
 * a new batch, a streaming preview or window swapped in), which drops
 * what was made from it too. */
typedef struct st_app_analysis {
  st_analysis *result; /* NULL: none */
  st_panel_buf text;   /* its JSON */
  char *step;          /* what it was asked with: the step name ("" automatic), */
  int top, gaps;       /* top ops, max gaps */
  uint64_t moves;      /* app->moves then */
  uint64_t made;       /* analyses made (st_analyze runs): a kept answer makes none */
  /* one idle cause's gaps highlighted (cause_on 0: none), drawn in place
   * of the idle-gap overlay (app_opstats.c) */
  int cause_on;
  uint32_t cause_dev, cause_ix;
  st_draw_band_set cause_band;
  int64_t *cause_g0, *cause_g1;
  uint32_t *cause_rows;
  st_panel_buf cause_text;
} st_app_analysis;

/* Notes on the timeline (app_notes.c). */
typedef struct st_app_notes {
  st_app_note list[ST_APP_MAX_NOTES]; /* sorted (app.h) */
  uint32_t count;
  uint32_t last_id;
  st_panel_buf text;
} st_app_note_list;

struct st_app {
  st_alloc alloc;      /* for what is made from now on (st_app_set_alloc) */
  st_alloc self_alloc; /* the one this struct was made with */
  st_app_platform pf;

  /* ---- the workspace: the trace set (core/set/traceset.h) ---- */
  st_traceset *set;
  st_alloc set_alloc; /* forwards to `alloc`, so the set follows st_app_set_alloc */
  int batch_open;     /* 1: explicit batch; 2: a single load's own */
  uint32_t batch_loaded;
  double batch_t0_ms;
  st_trace_handle last; /* the last load that succeeded */
  int loading;          /* a load is in progress */

  /* ---- the view on screen ---- */
  st_trace *trace; /* the set's view (one file's model, or several merged); NULL
                    * before the first load */
  st_lod *lod;
  st_ui *ui;     /* the ui in use: view, layout, selection, search (core/ui/ui.h) */
  int tool;      /* st_tool, kept across loads */
  int flow_mode; /* st_flow_mode, kept across loads and given to a side pane */
  /* side by side: two panes, the left one showing the first file, the
   * right one the second, their time windows kept equal; `ui` is the pane
   * last used */
  int side;
  st_ui *pane[2];
  float pane_dx;  /* x of the pane in use, CSS px */
  uint64_t moves; /* files moved on the timeline so far (snapshots check it) */
  float css_w, css_h, dpr;
  float cover_top, cover_bottom; /* panels over the canvas (st_app_set_cover) */

  /* ---- loading ---- */
  double load_t0_ms; /* platform clock at load begin */
  char load_name[256];
  st_stats stats; /* load_ms: the last batch's, to its first frame */
  int has_stats;
  unsigned char *demo_bytes; /* the demo's JSON, kept until the platform copies it */
  size_t demo_len, demo_cap;
  char error[320];    /* last load error, one line */
  char dropped[2048]; /* the last batch's files left out: "<file>: <why>\n" each */

  /* ---- the frame (app_frame.c) ---- */
  const st_font *font;
  st_drawlist dl, dl2; /* the frame; the right pane's before it is appended */
  int dirty;           /* something changed: build a frame on the next call */
  int animating;       /* held keys: st_ui_tick every frame */
  double last_tick_ms;
  int loaded_pending; /* a new trace was swapped in: report after its first frame */
  uint64_t frames;
  double frame_t0_ms, last_frame_ms;
  uint32_t last_rects, last_glyphs;
  uint32_t last_bands; /* idle-gap bands drawn (st_drawlist.bands_drawn) */
  /* the last frame's flow arrows: drawn, bundles, flows in them, count
   * labels, the selection's chain, left out (st_drawlist.flows_*) */
  uint32_t last_flows[6];

  /* ---- panels ---- */
  st_app_summary sum;
  st_app_flame fl;
  st_app_cmp cmp;
  st_app_args args;
  st_app_ops ops;
  st_app_note_list notes;
  st_panel_buf panel; /* the interaction-state panels' text */
  st_panel_buf text;  /* the workspace's lists and stats */
  st_panel_buf small; /* short answers: view, frame stats, bench, alignment */

  st_app_stream stream;
  st_app_analysis an;
  /* the collectives over an.result (app_collectives.c; NULL: none), done
   * once finished, their JSON; dropped with the analysis */
  struct st_collectives *coll;
  int coll_done;
  st_panel_buf coll_text;
  /* the cross-rank edges of the critical path selected (coll_path_select),
   * drawn as arrows until the selection changes; the last frame's count
   * drawn */
  st_draw_edge *path_edges;
  uint32_t path_edge_count, path_edge_cap, last_edges;
  int64_t path_step;
};

/* ---- app_set.c ---- */
double st_app_now(const st_app *app);    /* the platform's clock */
uint64_t st_app_heap(const st_app *app); /* its memory figure */
/* What the app keeps with open file h (NULL: a stale handle). */
st_app_file *st_app_file_of(const st_app *app, st_trace_handle h);
/* File h is shown: 1 and *f (may be NULL) filled; 0 for a stale handle
 * or {0}, or a file of the batch in progress. */
int st_app_shown(const st_app *app, st_trace_handle h, st_traceset_file *f);
/* The file shown as part k of the view ({0} if none). */
st_trace_handle st_app_part(const st_app *app, uint32_t k);
uint32_t st_app_count(const st_app *app); /* files shown */
/* One line of src into dst (newlines become spaces; "" for NULL). */
void st_app_copy_line(char *dst, size_t cap, const char *src);
/* Runs write into b with st_jout, twice if b was too small; b's text, or
 * `fail` when memory ran out. */
typedef void (*st_app_writer)(st_jout *o, st_app *app, const void *arg);
const char *st_app_json(st_app *app, st_panel_buf *b, st_app_writer write, const void *arg,
                        const char *fail);

/* ---- app_view.c ---- */
/* st_app_set_offset by handle, in ns. */
int st_app_set_offset_ns(st_app *app, st_trace_handle h, double offset_ns);

/* ---- app_opstats.c ---- */
/* Drops the analysis (the view goes). */
void st_app_opstats_forget(st_app *app);
/* Puts the idle-gap bands into ov when the highlight is on. */
void st_app_idle_gaps_overlay(st_app *app, st_draw_overlay *ov);

/* ---- app_collectives.c ---- */
/* Drops the collectives (their analysis goes). */
void st_app_coll_forget(st_app *app);

/* ---- app_analyze.c ---- */
/* Drops the last analysis (the view it was of goes). */
void st_app_analyze_forget(st_app *app);

/* ---- app_args.c ---- */
/* Drops the args read and search in flight if they are of trace h ({0}:
 * of any trace), and h's gzip index, as that trace goes. */
void st_app_args_forget(st_app *app, st_trace_handle h);

/* ---- app_notes.c ---- */
/* Puts the notes into ov, converted into out[ST_APP_MAX_NOTES]. */
void st_app_notes_overlay(st_app *app, st_draw_overlay *ov, st_draw_note *out);

/* ---- app_build.c ---- */
/* The set's hooks (traceset.h st_traceset_end_desc): the app's part of a
 * view (its lod and ui), and dropping it with every snapshot of it. */
st_code st_app_build_view(void *ud, const st_traceset *set, st_trace *view, st_error *err);
void st_app_drop_view(void *ud);

/* ---- app_spill.c ---- */
/* Drops the re-ordering pass of file h (h.id 0: whichever runs). */
void st_app_spill_forget(st_app *app, st_trace_handle h);

/* ---- app_stream.c ---- */
/* Drops the window load in flight if it is of file h ({0}: any). */
void st_app_stream_forget(st_app *app, st_trace_handle h);
/* view().pending: the bytes of the window read in flight still to come,
 * else those of the read the view needs (st_app_stream_want under the
 * budget last asked with; 1 if it has no bytes to plan), else 0. */
uint64_t st_app_stream_due(st_app *app);
/* 1 and the view's window (absolute ns) if a preview is shown and the user
 * moved its view; st_app_stream_keep_view puts such a window back (on the
 * loaded file's view). */
int st_app_stream_user_view(const st_app *app, double *a0, double *a1);
void st_app_stream_keep_view(st_app *app, double a0, double a1);
/* Frees the identity samples of a load from an index file. */
void st_app_stream_drop_samples(st_app *app);

#endif
