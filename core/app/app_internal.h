/* app_internal.h: the one st_app state (app.h), shared by core/app's files
 * and by nothing outside core/app.
 *
 * The files, each calling only those listed before it (no loops):
 *   app_set.c      the workspace of traces: slots, handles, placement, the
 *                  trace list and the stats (the part that becomes the trace
 *                  set of core/set/ when it lands), the app's text buffers
 *   app_view.c     change bits (apply, pane following), view, canvas,
 *                  panes side by side, offsets of the files shown
 *   app_panels.c   the interaction-state panels and the name search
 *   app_summary.c  the summary table snapshot
 *   app_flame.c    the flame graph snapshot
 *   app_diff.c     two runs compared: alignment and the diff table
 *   app_args.c     args of one event by trace handle, the "in args" search
 *   app_frame.c    the frame: draw list, statistics, the bench
 *   app.c          create / destroy, loading, batches, building the view
 */
#ifndef STRATA_APP_INTERNAL_H
#define STRATA_APP_INTERNAL_H

#include "app.h"
#include "args_search.h"
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

/* One trace of the workspace. */
typedef struct st_app_trace {
  st_trace *trace;   /* NULL: a free slot */
  uint32_t gen;      /* bumped when the slot is freed: its old handles go stale */
  int in_batch;      /* loaded by the batch in progress, not shown yet */
  st_stats stats;    /* its own load's numbers */
  char *info_json;   /* its top-level metadata (st_loader_metadata_json), NULL: none */
  char name[256];    /* the file's name */
  char group[256];   /* its group's name on the timeline */
  int64_t offset_ns; /* where its time 0 is on the shared timeline */
  uint64_t seq;      /* load order */
  st_argsrc *args;   /* its args source (NULL: none) */
  st_gzindex *ix;    /* gzip restart points for its args, built on demand */
  int ix_state;      /* 0 none, 1 building, 2 ready, -1 failed */
} st_app_trace;

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

/* The args read in flight and the "in args" search pass (app_args.c). */
typedef struct st_app_args {
  uint32_t slot;     /* the trace of the read in flight (UINT32_MAX: none) */
  st_args_query *q;  /* the query in progress */
  st_args_span span; /* the range it asked for */
  st_gzread *rd;     /* a compressed range being inflated */
  uint8_t *acc;      /* plain bytes of that range */
  size_t nacc, acc_cap;
  st_panel_buf text;
  /* the search pass */
  st_args_search *s;
  uint32_t s_slot; /* its trace */
  uint32_t s_part; /* add mode: the part of the view; UINT32_MAX: replace */
  char *s_text;
  size_t s_len;
  st_error s_err;
} st_app_args;

struct st_app {
  st_alloc alloc;      /* for what is made from now on (st_app_set_alloc) */
  st_alloc self_alloc; /* the one this struct was made with */
  st_app_platform pf;

  /* ---- the workspace (app_set.c) ---- */
  st_app_trace traces[ST_APP_MAX_TRACES];
  uint32_t shown[ST_APP_MAX_TRACES]; /* slots shown, in display order */
  uint32_t shown_count;
  st_strtab *strings;       /* shared by the traces shown */
  st_strtab *batch_strings; /* shared by the batch in progress */
  int batch_open;           /* 1: explicit batch; 2: a single load's own */
  uint32_t batch_loaded;
  double batch_t0_ms;
  uint32_t last_slot; /* the slot of the last load that succeeded */
  uint64_t seq;       /* loads so far */
  st_trace *merged;   /* the merged view of several traces (owned), or NULL */

  /* ---- the view on screen ---- */
  st_trace *trace; /* one slot's trace, or `merged`; NULL before the first load */
  st_lod *lod;
  st_ui *ui; /* the ui in use: view, layout, selection, search (core/ui/ui.h) */
  int tool;  /* st_tool, kept across loads */
  /* side by side: two panes, the left one showing the first file, the
   * right one the second, their time windows kept equal; `ui` is the pane
   * last used */
  int side;
  st_ui *pane[2];
  float pane_dx;  /* x of the pane in use, CSS px */
  uint64_t moves; /* files moved on the timeline so far (snapshots check it) */
  float css_w, css_h, dpr;

  /* ---- loading ---- */
  st_loader *loader;
  double load_t0_ms; /* platform clock at load begin */
  char load_name[256];
  st_code push_code; /* first error a push reported */
  st_stats stats;    /* load_ms: the last batch's, to its first frame */
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

  /* ---- panels ---- */
  st_app_summary sum;
  st_app_flame fl;
  st_app_cmp cmp;
  st_app_args args;
  st_panel_buf panel; /* the interaction-state panels' text */
  st_panel_buf text;  /* the workspace's lists and stats */
  st_panel_buf small; /* short answers: view, frame stats, bench, alignment */
};

/* ---- app_set.c ---- */
double st_app_now(const st_app *app);                      /* the platform's clock */
uint64_t st_app_heap(const st_app *app);                   /* its memory figure */
uint32_t st_app_slot_of(const st_app *app, double handle); /* UINT32_MAX: stale or bad */
uint32_t st_app_handle_of(const st_app *app, uint32_t slot);
uint32_t st_app_part_of(const st_app *app, uint32_t slot); /* shown position, or UINT32_MAX */
/* A free slot (UINT32_MAX: none); st_app_slot_close frees one: its model,
 * metadata, args source and index (its handles go stale). */
uint32_t st_app_slot_free(const st_app *app);
void st_app_slot_close(st_app *app, uint32_t slot);
/* The slots holding traces of the batch in progress (in_batch) or not, in
 * load order; returns how many. */
uint32_t st_app_slots_by_load(const st_app *app, int in_batch, uint32_t *out);
/* Names the groups of the traces shown (unique) and sets their initial
 * offsets: files that carry absolute time line up on it, others start
 * together with the earliest. */
void st_app_place(st_app *app);
/* "after its 5,000,000 events, 612 MB read" */
void st_app_load_extent(const st_app_trace *s, char *buf, size_t cap);
/* One line of src into dst (newlines become spaces; "" for NULL). */
void st_app_copy_line(char *dst, size_t cap, const char *src);
/* Runs write into b with st_jout, twice if b was too small; b's text, or
 * `fail` when memory ran out. */
typedef void (*st_app_writer)(st_jout *o, st_app *app, const void *arg);
const char *st_app_json(st_app *app, st_panel_buf *b, st_app_writer write, const void *arg,
                        const char *fail);

/* ---- app_view.c ---- */
/* st_app_set_offset by slot, in ns. */
int st_app_set_offset_ns(st_app *app, uint32_t slot, double offset_ns);

/* ---- app_args.c ---- */
/* Drops the args read and search in flight if they are of trace slot
 * `slot` (UINT32_MAX: of any trace), as that trace goes. */
void st_app_args_forget(st_app *app, uint32_t slot);

#endif
