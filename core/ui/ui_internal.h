/* ui_internal.h: the interaction state (struct st_ui) and what its parts
 * share (ui-private; the module's contract is ui.h).
 *
 *   ui.c          the state: create/destroy, following another pane, the
 *                 summary, the draw overlay
 *   ui_view.c     the time window and the vertical scroll: zoom, pan, fit,
 *                 the first view, reveal, keeping a row clear of panels
 *   ui_select.c   the selection and the timing mark
 *   ui_tracks.c   sections, files' groups, the track filter, pins
 *   ui_search.c   search: the matches, stepping, following
 *   ui_input.c    pointer, wheel, keys and held-key motion, tools, cursor
 *
 * Calls go down that list's layers only: ui_input.c and ui.c use the
 * others, ui_search.c uses view and select, select and tracks use view,
 * view uses none (tools/file_loops.py: no loop).
 *
 * Costs: a pointer move does one hit test (O(log n)); a box selection does
 * two binary searches per row in the box; search stepping is O(rows log n);
 * only explicit summary / select-by-name requests walk events, and only
 * the ones asked about. */
#ifndef STRATA_UI_INTERNAL_H
#define STRATA_UI_INTERNAL_H

#include "ui.h"

#include "bulk.h"

#include <math.h>
#include <stdint.h>

#define CLICK_SLOP_PX 4.0f     /* a press that moves less than this is a click */
#define HIT_SLOP_PX 3.0f       /* pick the nearest event within this many px */
#define WHEEL_ZOOM_RATE 0.0025 /* zoom factor e^(rate * px): a 100 px notch = 1.28x */
#define KEY_TAP_ZOOM 1.25      /* a press of W / S zooms at once by this */
#define KEY_TAP_PAN 0.1f       /* a press of A / D pans at once by this much of the width */
#define HOLD_ZOOM_RATE 1.733   /* ln 2 * 2.5: 2.5 doublings per second at first */
#define HOLD_PAN_RATE 0.6      /* timeline widths per second at first */
#define HOLD_ACCEL_MS 1000.0   /* speed grows linearly to HOLD_MAX_SPEED over this */
#define HOLD_MAX_SPEED 4.0
#define TICK_MAX_MS 100.0 /* a long frame (background tab) moves no further than this */
#define ARROW_SCROLL_ROWS 3.0f
#define FIT_MARGIN 0.05    /* f / double-click: margin on each side, of the span */
#define MIN_FIT_NS 1000.0  /* fitting an instant shows at least 1 us */
#define REVEAL_MIN_PX 32.0 /* reveal zooms in until the event is this wide (a label fits) */
#define SEARCH_PAGE 10     /* PageDown / PageUp step this many matches */

enum { HOLD_ZOOM_IN = 0, HOLD_ZOOM_OUT, HOLD_LEFT, HOLD_RIGHT, HOLD_N };
enum { DRAG_NONE = 0, DRAG_PRESSED, DRAG_ACTIVE };
#define DRAG_SHIFT 100 /* drag_tool: alt+drag of a merged trace's file header moves it */

struct st_ui {
  st_alloc alloc;
  const st_trace *trace;
  st_layout *layout;
  st_view view;
  st_tool tool;
  st_selection *sel;
  st_selection *tmp; /* scratch for select-by-name */
  st_find *find;
  st_event_ref find_cur;
  st_hit hover;
  int pointer_in;
  float px, py; /* last pointer position */
  /* drag */
  int drag;
  int drag_tool;        /* st_tool the drag performs */
  unsigned drag_button; /* ST_BUTTON_* that started it */
  unsigned drag_mods;
  float down_x, down_y, last_x, last_y, travel;
  double down_t;   /* time under the press */
  float down_cy;   /* content y of the press */
  int mark_before; /* the mark before a timing drag (Esc restores it) */
  double mark_before_t0, mark_before_t1;
  /* timing mark */
  int has_mark;
  double mark_t0, mark_t1;
  /* held keys */
  unsigned held;
  double held_ms[HOLD_N];
  int help;
  int flow_mode; /* st_flow_mode; ST_FLOWS_SELECTION by default */
  /* moving a merged trace's part in time (alt+drag of its header): the
   * front end takes the pending move with st_ui_take_shift */
  uint32_t shift_part;
  double shift_pending_ns;
  /* the first view: where the events are (core/index/bulk.h) */
  st_bulk bulk;
  int outliers_hidden; /* the first view leaves bulk.outside events out, until 0 */
  double axis_zero;    /* where the axis reads 0: the bulk's start if events before it were
                        * left out of the first view, else the trace's start (0) */
  /* panels over the canvas (st_ui_set_cover): CSS px covered from its top
   * and from its bottom */
  float cover_top, cover_bottom;
  /* the row a navigation brought into view (with head_items items above it,
   * its headers), kept clear of the panels until the user scrolls;
   * UINT32_MAX: none */
  uint32_t target_row, target_head;
};

static inline int hit_same(const st_hit *a, const st_hit *b) {
  return a->kind == b->kind && a->item == b->item && a->row == b->row && a->index == b->index;
}

static inline st_hit no_hit(void) {
  return (st_hit){ST_HIT_NONE, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, 0, NAN};
}

static inline int64_t to_ns(double t) {
  if (!(t > -9.2e18)) return INT64_MIN + 1;
  if (t > 9.2e18) return INT64_MAX - 1;
  return (int64_t)floor(t);
}

/* ---- ui_view.c ---- */
/* keeps the window inside what can be shown (ns_per_px, t0 bounds) */
void ui_clamp_time(st_ui *ui);
/* keeps scroll_y inside the content; the change bits */
unsigned ui_clamp_scroll(st_ui *ui);
/* the first view: the bulk of the events (outliers left out) */
unsigned ui_fit_bulk(st_ui *ui);
/* the view fitted to [s, e) with a margin */
unsigned ui_fit_span(st_ui *ui, double s, double e);
/* scrolls item i into the free area unless it is there; 1 if it scrolled */
int ui_scroll_to(st_ui *ui, uint32_t i);

/* ---- ui_input.c ---- */
/* the track whose pin the hit is on (UINT32_MAX: none) */
uint32_t ui_pin_hover(const st_ui *ui, const st_hit *h);
/* the time at canvas x, clamped to the timeline */
double ui_time_at_clamped(const st_ui *ui, float x);

/* ---- ui_search.c ---- */
/* the step a key makes in the search matches (0: not a search key) */
int ui_search_key_steps(const st_ui *ui, const char *key, unsigned mods);

#endif
