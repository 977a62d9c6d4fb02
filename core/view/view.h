/* view.h: the viewport (time window, vertical scroll, canvas size) and the
 * vertical layout of sections and tracks, plus hit testing.
 *
 * Coordinates are CSS pixels with the origin at the canvas's top-left; the
 * renderer multiplies by dpr. The canvas is split into the label gutter on
 * the left (ST_VIEW_GUTTER_W wide), the time axis at the top
 * (ST_VIEW_AXIS_H high) and the timeline area (the rest). Time runs along x:
 *   x = gutter + (t_ns - t0_ns) / ns_per_px
 *
 *   st_layout *lay = st_layout_create(&alloc, trace);
 *   st_view v; st_view_fit(&v, trace, 1280, 800, 2.0f);
 *   st_view_zoom(&v, 2.0, mouse_x);   // zoom in 2x around the mouse
 */
#ifndef STRATA_VIEW_H
#define STRATA_VIEW_H

#include "trace.h"

#define ST_VIEW_GUTTER_W 220.0f /* label column */
#define ST_VIEW_AXIS_H 28.0f    /* time axis */
#define ST_VIEW_ROW_H 20.0f     /* one slice row */
#define ST_VIEW_SECTION_H 24.0f /* process header */
#define ST_VIEW_GROUP_H 26.0f   /* a merged trace's file header (above its processes) */
#define ST_VIEW_COUNTER_H 40.0f /* counter track */
/* A memory blocks track (st_track.block_span > 0): its lanes' rows all laid
 * out at the same y, this high (one item per row, so st_layout_item_of_row
 * holds), its blocks drawn as bands by address (core/draw/draw.h) */
#define ST_VIEW_BLOCKS_H 160.0f
#define ST_VIEW_TRACK_GAP 4.0f /* space after a track */
#define ST_VIEW_PIN_W 18.0f    /* the pin target at the right end of a track's label */

typedef struct st_view {
  double t0_ns;        /* time at the left edge of the timeline area */
  double ns_per_px;    /* horizontal scale (CSS px) */
  float width, height; /* canvas, CSS px */
  float dpr;           /* device pixels per CSS px */
  float scroll_y;      /* vertical scroll of the track area, CSS px */
} st_view;

/* Show the whole trace (with a small margin) in a canvas of w x h CSS px. */
void st_view_fit(st_view *v, const st_trace *t, float w, float h, float dpr);
/* Zoom by `factor` (> 1 zooms in) keeping the time under x fixed; x outside
 * the timeline area zooms around its centre. Scale clamped to [1e-3, 1e15]. */
void st_view_zoom(st_view *v, double factor, float x);
void st_view_pan_px(st_view *v, float dx_px); /* positive: later times */
double st_view_time_at(const st_view *v, float x);
float st_view_x_of(const st_view *v, double t_ns);
float st_view_timeline_w(const st_view *v);

typedef enum st_layout_kind {
  ST_LAYOUT_SECTION = 0, /* process header (clickable to collapse) */
  ST_LAYOUT_ROW = 1,     /* one row of a slice/async/instant track */
  ST_LAYOUT_COUNTER = 2, /* a counter track */
  ST_LAYOUT_GROUP = 3    /* a merged trace's part (one file): its header above its
                          * processes; row = part index, process = its first process */
} st_layout_kind;

typedef struct st_layout_item {
  uint8_t kind;           /* st_layout_kind */
  uint8_t first_of_track; /* 1 on the first row of a track (draws its label); 0 on a
                           * thread's slices under its marker lane (one track) */
  uint16_t reserved;
  uint32_t process;
  uint32_t track; /* UINT32_MAX for sections */
  uint32_t row;   /* global row index (ROW) or counter index (COUNTER) */
  float y, h;     /* content y (before scroll; add ST_VIEW_AXIS_H - scroll_y) */
} st_layout_item;

typedef struct st_layout st_layout;

st_layout *st_layout_create(const st_alloc *a, const st_trace *t);
void st_layout_destroy(st_layout *l);
void st_layout_set_collapsed(st_layout *l, uint32_t process, int collapsed);
int st_layout_collapsed(const st_layout *l, uint32_t process);
/* A merged trace (trace.h st_trace_merge) lays out one group per part, a
 * header above its processes, collapsible as a whole. */
uint32_t st_layout_group_count(const st_layout *l);
void st_layout_set_group_collapsed(st_layout *l, uint32_t part, int collapsed);
int st_layout_group_collapsed(const st_layout *l, uint32_t part);
/* Leaves a group out of the layout altogether (no header, no processes):
 * a pane that shows some of the files, e.g. B beside A when comparing. */
void st_layout_set_group_hidden(st_layout *l, uint32_t part, int hidden);
/* Items in top-to-bottom order, for the current collapse state. */
const st_layout_item *st_layout_items(const st_layout *l, uint32_t *count);
float st_layout_height(const st_layout *l);
/* The gutter label of a track (core/view/track_label.h: a thread's instants
 * are the marker lane on top of its slices, under one label; no two labels
 * of a section read the same). Returns the length written. */
size_t st_layout_track_label(const st_layout *l, uint32_t track, char *buf, size_t cap);
/* ---- which sections and tracks show (core/view/track_filter.h) ------------
 * Processes without events are left out unless shown (st_layout_set_
 * show_empty), except when every process of the trace is without events
 * (then all show: never a blank timeline with nothing to say). The track
 * filter keeps the tracks whose process, label or file name contains the
 * text (ASCII case ignored; a process whose name matches keeps all its
 * tracks; sections without a kept track go, and a file's header when none
 * of its sections is left). Pinned tracks (a labelled track with the
 * tracks continuing it) are laid out first, in the order they were
 * pinned, whatever the filter, the empty sections and the collapse say;
 * items [0, st_layout_pinned_items) are they, their content y in
 * [0, st_layout_pinned_height), drawn below the axis without scrolling,
 * and the other items scroll under them (st_layout_spans). */
uint32_t st_layout_empty_count(const st_layout *l); /* processes without events */
void st_layout_set_show_empty(st_layout *l, int show);
int st_layout_show_empty(const st_layout *l);
/* 1 done, 0 out of memory (the filter is then unchanged). "" clears it. */
int st_layout_set_filter(st_layout *l, const char *text, size_t len);
const char *st_layout_filter(const st_layout *l); /* "" if none */
/* 1 if the track filter leaves global row `row` out: a filter is set, the
 * row's track is neither kept by it nor pinned (its process not left out
 * for another reason: an empty process, a file the pane does not show).
 * O(1) (the tracks continuing a labelled one aside). */
int st_layout_row_filtered(const st_layout *l, uint32_t row);
/* Labelled tracks of the sections not left out as empty, and how many of
 * them the filter keeps (*shown; all without a filter). Collapse does not
 * change either. */
uint32_t st_layout_track_counts(const st_layout *l, uint32_t *shown);
/* Pins or unpins track ti (a track continuing a labelled one stands for
 * it). 1 if the state changed; at most ST_LAYOUT_MAX_PINS pinned. */
#define ST_LAYOUT_MAX_PINS 256
int st_layout_set_pinned(st_layout *l, uint32_t track, int pinned);
int st_layout_pinned(const st_layout *l, uint32_t track);
/* The labelled track that track belongs to (itself, or the one it continues). */
uint32_t st_layout_track_head(const st_layout *l, uint32_t track);
/* The pinned tracks (labelled track indices), in pin order. */
const uint32_t *st_layout_pins(const st_layout *l, uint32_t *count);
uint32_t st_layout_pinned_items(const st_layout *l);
float st_layout_pinned_height(const st_layout *l);

/* What of the layout is on screen in view v: span 0 the pinned items, span
 * 1 the scrolled ones (items [first, end), screen y = item y + dy), each
 * drawn in the screen rows [clip_y0, clip_y1). Returns the spans filled
 * (0..2; spans without an item are left out). */
typedef struct st_layout_span {
  uint32_t first, end;
  float dy;
  float clip_y0, clip_y1;
} st_layout_span;
uint32_t st_layout_spans(const st_layout *l, const st_view *v, st_layout_span out[2]);
/* The screen y of an item's top (pinned: fixed, else scrolled). */
float st_layout_screen_y(const st_layout *l, const st_view *v, uint32_t item);
/* 1 if some of the item is on screen (not scrolled under the pinned ones). */
int st_layout_on_screen(const st_layout *l, const st_view *v, uint32_t item);
/* The content y under screen y (y >= ST_VIEW_AXIS_H): in the pinned area
 * its own, below it scrolled. */
float st_layout_content_y(const st_layout *l, const st_view *v, float screen_y);

/* Index of the first item whose bottom is below content y (binary search). */
uint32_t st_layout_first_at(const st_layout *l, float content_y);
/* The item showing global row `row`: its ROW item, or its process's
 * SECTION item when that section is collapsed (its GROUP item when its
 * group is); UINT32_MAX if the row is not laid out (an empty or unknown
 * row, or one the filter or the empty processes leave out). O(log items),
 * plus the pinned items for a row of a pinned track. */
uint32_t st_layout_item_of_row(const st_layout *l, uint32_t row);

#endif
