/* draw.h: turns (trace, lod, layout, view) into a backend-neutral draw list:
 * rect instances, glyph quads and lines, grouped into commands with a clip
 * rectangle each. The WebGL renderer in wasm/ only uploads and draws it, so
 * everything here is testable natively and headless.
 *
 * Units are CSS pixels (origin top-left); the renderer scales by dpr.
 * Colours are packed 0xAABBGGRR (bytes R, G, B, A in memory), which GL takes
 * as normalised unsigned bytes.
 *
 * Text: the caller supplies an st_font whose glyph() returns metrics and
 * atlas coordinates for a code point (the page rasterises glyphs on demand
 * with the system UI font at the device pixel ratio). Labels are elided with
 * an ellipsis to fit and never overflow their slice.
 *
 *   st_drawlist dl = {0};
 *   st_draw_input in = {trace, lod, layout, &view, &font};
 *   st_draw_frame(&dl, &in, &alloc);   // reuses dl's buffers frame to frame
 *   ... st_drawlist_free(&dl, &alloc);
 */
#ifndef STRATA_DRAW_H
#define STRATA_DRAW_H

#include "flow_bundle.h"
#include "lod.h"
#include "view.h"
#include "select.h"

enum {
  ST_RECT_MERGED = 1u << 0, /* a merged LOD block (renderer shows density) */
  ST_RECT_SELECTED = 1u << 1,
  ST_RECT_DIMMED = 1u << 2,
  ST_RECT_UNFINISHED = 1u << 3
};

typedef struct st_rect {
  float x, y, w, h;
  uint32_t rgba;
  uint32_t flags; /* ST_RECT_*; low 8 bits of `flags >> 8` = density 0..255 for merged */
} st_rect;

typedef struct st_glyph_quad {
  float x, y, w, h;     /* CSS px */
  float u0, v0, u1, v1; /* atlas texture coordinates, 0..1 */
  uint32_t rgba;
} st_glyph_quad;

typedef struct st_line {
  float x0, y0, x1, y1;
  float width; /* CSS px */
  uint32_t rgba;
} st_line;

typedef enum st_draw_kind { ST_DRAW_RECTS = 0, ST_DRAW_GLYPHS = 1, ST_DRAW_LINES = 2 } st_draw_kind;

typedef struct st_draw_cmd {
  uint32_t kind;  /* st_draw_kind */
  uint32_t first; /* index into the array of that kind */
  uint32_t count;
  float clip_x, clip_y, clip_w, clip_h; /* CSS px */
} st_draw_cmd;

typedef struct st_drawlist {
  st_rect *rects;
  uint32_t rect_count, rect_cap;
  st_glyph_quad *glyphs;
  uint32_t glyph_count, glyph_cap;
  st_line *lines;
  uint32_t line_count, line_cap;
  st_draw_cmd *cmds;
  uint32_t cmd_count, cmd_cap;
  uint32_t clear_rgba;         /* background */
  uint32_t flows_drawn;        /* flow arrows in this frame (a bundle is one) */
  uint32_t flows_capped;       /* flows left out by the per-frame caps */
  uint32_t bands_drawn;        /* band rects (st_draw_band_set) in this frame */
  uint32_t flow_bundles_drawn; /* arrows drawn that stand for >= 2 flows (flow_bundle.h) */
  uint32_t flows_bundled;      /* flows those bundles stand for */
  uint32_t flow_labels;        /* bundles' count labels drawn */
  uint32_t flows_chain;        /* arrows of the selected events' chain drawn */
  uint32_t edges_drawn;        /* st_draw_overlay.edges drawn (any part in view) */
  /* a test hook: with label_log_on, every text drawn in the frame, as
   * records "K<drawn>\x1f<given>\x1e" (K: 's' a slice's label, 'o' other
   * text; <drawn> is what the glyphs pushed spell, "\u2026" where it was
   * cut; <given> the text asked for), label_log_len bytes, not
   * NUL-terminated. Off: nothing is recorded (no cost). Not carried by
   * st_drawlist_append. */
  int label_log_on;
  char *label_log;
  uint32_t label_log_len, label_log_cap;
  /* internal: name id -> colour, kept across the frames of one trace
   * (freed by st_drawlist_free; zero-initialise the struct) */
  uint32_t *color_cache;
  uint32_t color_cap;
  uint64_t color_key;
  /* internal: memory blocks tracks' pixel rows (draw_blocks.c), kept across the
   * frames of one trace (and its files' offsets) */
  struct st_block_index *blocks_ix;
  uint64_t blocks_key;
  /* internal: the flow bundler's buffers, and the translucent slices'
   * backings over flows drawn under the rows, kept from frame to frame */
  st_flow_bundler flow_bundles;
  st_rect *backing;
  uint32_t backing_cap;
} st_drawlist;

typedef struct st_glyph {
  float advance;        /* pen advance, CSS px */
  float x0, y0, x1, y1; /* quad relative to the pen on the baseline, CSS px (y down) */
  float u0, v0, u1, v1; /* atlas coordinates; x0 == x1 for blank glyphs */
} st_glyph;

typedef struct st_font {
  float size;    /* CSS px */
  float ascent;  /* CSS px above the baseline */
  float descent; /* CSS px below the baseline */
  /* Fill *out for code point cp; return 0 if it cannot be shown (the caller
   * then uses U+FFFD or '?'). */
  int (*glyph)(void *ud, uint32_t cp, st_glyph *out);
  void *ud;
} st_font;

/* Time intervals shaded over some rows (a device's idle gaps over its
 * stream rows): rows[row_count] (global row indices) and the intervals
 * [t0_ns[i], t1_ns[i]) in ns from trace start, ascending and disjoint. A
 * frame visits only the intervals inside its window (binary search) on the
 * visible rows: O(rows x log + visible intervals); intervals under a pixel
 * are drawn 1 px wide, and those falling on one pixel are one rect. */
typedef struct st_draw_band_set {
  const uint32_t *rows;
  uint32_t row_count;
  const int64_t *t0_ns, *t1_ns;
  uint32_t count;
} st_draw_band_set;

/* A note (core/app/app.h st_app_note_add): a time (t1_ns == t0_ns) or the
 * range [t0_ns, t1_ns], ns from trace start, with its text (UTF-8, len
 * bytes; not NUL-terminated necessarily). Drawn over the rows as a line
 * (ST_DRAW_NOTE_RGBA, 1.5 px wide) at a time or a band with an edge line
 * each side over a range, and on the time axis as a flag at t0 holding
 * the text (elided to fit before the next note's flag). */
typedef struct st_draw_note {
  double t0_ns, t1_ns;
  const char *text;
  size_t len;
} st_draw_note;

#define ST_DRAW_NOTE_RGBA 0xffc83caau /* the notes' line, edges and flags: rgb(170, 60, 200) */

/* An arrow between two events' ends (the cross-rank edges of a critical
 * path): from event row0[index0]'s start (end0 == 0) or end (end0 != 0) to
 * row1[index1]'s, rows global; drawn like a flow (at the middle of the
 * rows, or of a collapsed section's header) so it follows zoom, scroll and
 * moved files. */
typedef struct st_draw_edge {
  uint32_t row0, index0, row1, index1;
  int end0, end1;
} st_draw_edge;

#define ST_DRAW_EDGE_RGBA 0xff2828dcu /* the edges' colour: rgb(220, 40, 40) */

/* Interaction state drawn over the timeline (all optional; a zeroed struct
 * draws nothing extra). Ranges of events are row[index, index + count)
 * (count > 1 for a merged LOD block); the callbacks must be O(log n). */
typedef struct st_draw_overlay {
  /* 1 if any event of the range is selected (ST_RECT_SELECTED outline) */
  int (*selected)(void *ud, uint32_t row, uint32_t index, uint32_t count);
  /* 1 if any event of the range matches the active search; NULL when no
   * search is active. Ranges without a match are dimmed (ST_RECT_DIMMED). */
  int (*matches)(void *ud, uint32_t row, uint32_t index, uint32_t count);
  void *ud;
  /* where the time axis reads 0 (ns from trace start): 0, or the start of
   * the events first shown when outliers before them were left out of the
   * first view (an epoch trace with one event near 0 reads from its work,
   * not "80000 s"); ticks are round steps from it */
  double axis_zero_ns;
  /* the timing mark: a band over the timeline, its duration on the axis */
  int has_mark;
  double mark_t0_ns, mark_t1_ns;
  /* the box being dragged by the selection tool (canvas CSS px) */
  int has_box;
  float box_x0, box_y0, box_x1, box_y1;
  /* the time range being dragged by the zoom tool */
  int has_range;
  double range_t0_ns, range_t1_ns;
  /* flow arrows (st_trace_flows): with flows != 0, every flow with an end
   * on a visible row inside the time window, bundled (flow_bundle.h: cells
   * ST_DRAW_FLOW_CELL_PX wide, a count label on bundles of two or more) and
   * drawn under the rows, so that slices always paint over them; at most
   * ST_DRAW_MAX_FLOW_SCAN flows looked at and ST_DRAW_MAX_FLOWS arrows
   * drawn per frame (the rest: st_drawlist.flows_capped). With has_focus,
   * the chain of the selected events (core/index/flow_chain.h, at most
   * ST_FLOW_CHAIN_MAX arrows in all, each once), highlighted, over
   * everything: of every event of chain_sel if it is set (a box selection),
   * else of event focus_row[focus_index]. Ends on rows of a collapsed
   * section attach to its header. */
  int flows;
  int has_focus;
  uint32_t focus_row, focus_index;
  const st_selection *chain_sel;
  /* bands (idle gaps) shaded over their rows; NULL: none */
  const st_draw_band_set *bands;
  uint32_t band_sets;
  /* the track under the pointer: its pin mark (view.h ST_VIEW_PIN_W) shows */
  int pin_hover;
  uint32_t pin_hover_track;
  /* notes, ascending by t0_ns; NULL: none */
  const st_draw_note *notes;
  uint32_t note_count;
  /* the selection (NULL: none): a memory blocks track (trace.h
   * st_track.block_span), drawn by pixel row rather than by event, outlines
   * its selected blocks from it (at most 4,096 per frame) */
  const st_selection *sel;
  /* arrows over everything, 2 px, ST_DRAW_EDGE_RGBA; NULL: none. A frame
   * costs O(edge_count). */
  const st_draw_edge *edges;
  uint32_t edge_count;
} st_draw_overlay;

#define ST_DRAW_MAX_FLOWS 4096
#define ST_DRAW_MAX_FLOW_SCAN (1u << 15)
/* The chain of chain_sel is looked for from its first spans (runs of
 * selected events in a row, in row order), at most this many per frame: a
 * selection of every "kernel" of a trace (Op stats) is one span per
 * instance, and each span costs binary searches. A larger selection counts
 * one in st_drawlist.flows_capped. */
#define ST_DRAW_MAX_CHAIN_SPANS 4096u
#define ST_DRAW_FLOW_CELL_PX 24.0f

typedef struct st_draw_input {
  const st_trace *trace;
  const st_lod *lod;
  const st_layout *layout;
  const st_view *view;
  const st_font *font;
} st_draw_input;

st_code st_draw_frame(st_drawlist *dl, const st_draw_input *in, const st_alloc *a);
/* The same, with interaction state drawn in (selection outlines, search
 * dimming, the timing mark on the axis, the box / zoom range being
 * dragged); ov may be NULL. */
st_code st_draw_frame_overlay(st_drawlist *dl, const st_draw_input *in, const st_draw_overlay *ov,
                              const st_alloc *a);
void st_drawlist_free(st_drawlist *dl, const st_alloc *a);
/* Appends src's primitives and commands to dst moved right by dx CSS px
 * (the right pane of two drawn side by side: one list for the renderer).
 * dst's buffers grow as needed and are kept (no allocation once they are
 * large enough); the flow counts add up. ST_ERR_NOMEM leaves dst as it was;
 * ST_ERR_LIMIT if the counts would overflow. */
st_code st_drawlist_append(st_drawlist *dst, const st_drawlist *src, float dx, const st_alloc *a);

/* Stable colour for a name (same name -> same colour in every session). */
uint32_t st_color_for_name(const char *s, size_t len);

/* A value in three significant digits with an SI suffix from 1000 up
 * ("1.80 M" for 1803000, "42.5 k", "950"), as the counters' scale shows it;
 * returns the length written (NUL-terminated, truncated to cap). */
size_t st_format_value(double v, char *buf, size_t cap);
/* A counter's value with its unit (st_track.unit; "" or NULL: none, as
 * st_format_value): a time unit "ns" as a duration ("1.803 ms"), any other
 * after the SI suffix ("1.80 MB", "950 B", "42.5 kW"). */
size_t st_format_quantity(double v, const char *unit, size_t unit_len, char *buf, size_t cap);

/* Time-axis tick step (ns) for a scale: a round 1/2/5 x 10^k value giving
 * ticks at least min_px apart. */
double st_axis_tick_step(double ns_per_px, double min_px);
/* Formats a time offset (ns from trace start) in adaptive units
 * ("0", "250 ns", "1.5 us", "12 ms", "3.25 s") given the tick step; returns
 * the length written (NUL-terminated, truncated to cap). */
size_t st_format_time(double t_ns, double step_ns, char *buf, size_t cap);

#endif
