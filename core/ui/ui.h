/* ui.h: the viewer's interaction state and the semantic input calls that
 * change it. Front ends (the page, a native window, tests) translate their
 * events into these calls and render from the state; nothing about
 * interaction is decided outside the core.
 *
 * State: the view and layout (collapse), the tool (select / pan / zoom /
 * timing), the selection (spans of events), hover, the timing mark, the
 * search (query, matches, current match; non-matches are dimmed), held
 * navigation keys, the help overlay flag.
 *
 * Input (coordinates in canvas CSS px, see view.h):
 *   pointer_down/move/up(x, y, buttons, mods), pointer_leave, double_click
 *   wheel(dx, dy, mods, x, y): ctrl/cmd (and a trackpad pinch, which
 *       browsers send as ctrl+wheel) zoom at the cursor; shift pans; plain
 *       wheel scrolls the tracks (dx pans). Deltas in CSS px.
 *   key_down/key_up(key, mods): key is a DOM KeyboardEvent.key value
 *       ("w", "W", "Escape", "ArrowLeft", "!" ...). W/S zoom around the mouse
 *       (the centre if the mouse is outside the timeline), A/D pan: a press
 *       moves at once, and holding keeps moving, faster the longer it is
 *       held, as st_ui_tick(dt_ms) advances time (the core has no clock).
 *       0 fits the trace; 1-4 and ! @ # $ pick a tool; m marks the
 *       selection's time span; f fits the view to it; Esc cancels a drag,
 *       else closes help, else clears selection, mark and the search; / and
 *       ctrl/cmd+F ask for the search box (ST_UI_FOCUS_SEARCH); ? toggles
 *       help; l cycles the flow mode off -> selection -> all -> off
 *       (ST_UI_FLOWS); p pins / unpins the track under the pointer; t asks
 *       for the track filter box (ST_UI_FOCUS_FILTER). While a search is
 *       active, Enter / shift+Enter step to the next / previous match and
 *       PageDown / PageUp ten at a time (st_ui_search_step).
 *   search_box_key(key, mods): the same keys typed in the front end's
 *       search box; Esc there leaves the box (ST_UI_TO_TIMELINE) and
 *       keeps the search and selection, so a second Esc clears them.
 * Every call returns ST_UI_* bits saying what changed, so the front end
 * redraws only when needed and refreshes only the panels concerned;
 * ST_UI_HANDLED means the event was used (the page then preventDefault()s).
 *
 * Tools (a drag with the left button; a click selects in every tool, a
 * click on a section header collapses or expands it, and a click on a
 * track's pin target, ST_HIT_PIN, pins or unpins it):
 *   select: drag selects every event in the box (ctrl/cmd/shift: adds)
 *   pan:    drag moves the view in time and vertically (also: middle button)
 *   zoom:   drag a time range to zoom into it
 *   timing: drag marks an interval (also: a drag on the time axis, any tool)
 *
 *   st_ui *ui = st_ui_create(&alloc, trace, 1280, 800, 2.0f);
 *   unsigned ch = st_ui_pointer_down(ui, x, y, ST_BUTTON_LEFT, 0);
 *   if (ch & ST_UI_REDRAW) { st_draw_overlay ov; st_ui_overlay(ui, &ov); ... }
 *   st_ui_destroy(ui);
 */
#ifndef STRATA_UI_H
#define STRATA_UI_H

#include "draw.h"
#include "hit.h"
#include "query.h"
#include "select.h"

typedef enum st_tool {
  ST_TOOL_SELECT = 0,
  ST_TOOL_PAN = 1,
  ST_TOOL_ZOOM = 2,
  ST_TOOL_TIMING = 3
} st_tool;

enum { ST_MOD_SHIFT = 1, ST_MOD_CTRL = 2, ST_MOD_ALT = 4, ST_MOD_META = 8 };
enum { ST_BUTTON_LEFT = 1, ST_BUTTON_RIGHT = 2, ST_BUTTON_MIDDLE = 4 };

/* What an input call changed. */
enum {
  ST_UI_HANDLED = 1u << 0,      /* the event was used */
  ST_UI_REDRAW = 1u << 1,       /* the timeline must be redrawn */
  ST_UI_VIEW = 1u << 2,         /* time window or scroll changed */
  ST_UI_SELECTION = 1u << 3,    /* the selection changed */
  ST_UI_HOVER = 1u << 4,        /* the hovered thing changed */
  ST_UI_TOOL = 1u << 5,         /* the tool changed */
  ST_UI_MARK = 1u << 6,         /* the timing mark changed */
  ST_UI_SEARCH = 1u << 7,       /* search query, matches or current match changed */
  ST_UI_FOCUS_SEARCH = 1u << 8, /* the user asked for the search box */
  ST_UI_HELP = 1u << 9,         /* the help overlay was toggled */
  ST_UI_ANIMATING = 1u << 10,   /* keys are held: call st_ui_tick on the next frame */
  ST_UI_LAYOUT = 1u << 11,      /* sections were collapsed or expanded */
  ST_UI_FLOWS = 1u << 12,       /* the flow mode changed */
  ST_UI_TO_TIMELINE = 1u << 13, /* the search box hands the keys back to the timeline */
  ST_UI_SHIFT = 1u << 14,       /* a merged trace's part is being moved: st_ui_take_shift */
  ST_UI_TRACKS = 1u << 15,      /* the track filter, pins or empty sections shown changed */
  ST_UI_FOCUS_FILTER = 1u << 16 /* the user asked for the track filter box (key t) */
};

typedef struct st_ui st_ui;

/* The trace must outlive the ui. NULL on allocation failure. */
st_ui *st_ui_create(const st_alloc *a, const st_trace *t, float w, float h, float dpr);
void st_ui_destroy(st_ui *ui);

const st_view *st_ui_view(const st_ui *ui);
const st_layout *st_ui_layout(const st_ui *ui);
const st_trace *st_ui_trace(const st_ui *ui);

/* ---- view ---------------------------------------------------------------- */
unsigned st_ui_resize(st_ui *ui, float w, float h, float dpr);
/* Fits the whole trace (key 0). The first view (st_ui_create) instead fits
 * where the events are when a few lie far outside (core/index/bulk.h). */
unsigned st_ui_fit(st_ui *ui);
/* While the first view leaves isolated outliers out (until st_ui_fit):
 * how many events lie outside it, and its range; 0 otherwise. */
uint64_t st_ui_outliers_hidden(const st_ui *ui, int64_t *t0_ns, int64_t *t1_ns);
/* Where the time axis reads 0 (ns from trace start; st_draw_overlay
 * axis_zero_ns): the start of the events first shown when the first view
 * left outliers before them out, else 0. Kept after st_ui_fit. */
double st_ui_axis_zero(const st_ui *ui);
/* Sets it (a streamed trace's window keeps its summary's: the same time base). */
void st_ui_set_axis_zero(st_ui *ui, double zero_ns);
/* Shows [t0_ns, t1_ns) (ns from trace start) across the timeline. */
unsigned st_ui_set_view(st_ui *ui, double t0_ns, double t1_ns);
unsigned st_ui_zoom(st_ui *ui, double factor, float x);
unsigned st_ui_pan_px(st_ui *ui, float dx);
unsigned st_ui_scroll_px(st_ui *ui, float dy); /* clamped to the layout */
/* Panels the front end shows over the canvas: CSS px covered from its top
 * (a panel's bottom edge) and from its bottom. Navigations (st_ui_reveal,
 * st_ui_show_row, fit selection) bring their target into the part no panel
 * covers, and the last target (until the user scrolls) is moved out from
 * under a panel that opens or grows; the content can scroll above a bottom
 * panel. */
unsigned st_ui_set_cover(st_ui *ui, float top, float bottom);
/* Scrolls row (a global row) into the free part of the scrolled area
 * (st_ui_set_cover), with the head layout items above it (its section's
 * header): a third from the top, or at the top with at_top; nothing if it
 * is there already (and not at_top), pinned, or not shown. */
unsigned st_ui_show_row(st_ui *ui, uint32_t row, uint32_t head, int at_top);
/* Visible time window [t0, t1) in ns from trace start. */
void st_ui_window(const st_ui *ui, double *t0_ns, double *t1_ns);

/* ---- input --------------------------------------------------------------- */
unsigned st_ui_pointer_down(st_ui *ui, float x, float y, unsigned buttons, unsigned mods);
unsigned st_ui_pointer_move(st_ui *ui, float x, float y, unsigned buttons, unsigned mods);
unsigned st_ui_pointer_up(st_ui *ui, float x, float y, unsigned buttons, unsigned mods);
unsigned st_ui_pointer_leave(st_ui *ui);
unsigned st_ui_double_click(st_ui *ui, float x, float y, unsigned mods);
unsigned st_ui_wheel(st_ui *ui, float dx, float dy, unsigned mods, float x, float y);
unsigned st_ui_key_down(st_ui *ui, const char *key, unsigned mods);
unsigned st_ui_key_up(st_ui *ui, const char *key, unsigned mods);
/* The window lost focus: held keys are released, a drag is cancelled. */
unsigned st_ui_blur(st_ui *ui);
/* Advances held-key motion by dt_ms (clamped to 100 ms per call). */
unsigned st_ui_tick(st_ui *ui, double dt_ms);
int st_ui_animating(const st_ui *ui);

/* ---- tool, hover, help ---------------------------------------------------- */
unsigned st_ui_set_tool(st_ui *ui, st_tool tool);
st_tool st_ui_tool(const st_ui *ui);
const char *st_ui_tool_name(st_tool tool); /* "select", "pan", "zoom", "timing" */
st_hit st_ui_hover(const st_ui *ui);
/* A CSS cursor name for the pointer's position and the tool. */
const char *st_ui_cursor(const st_ui *ui);
int st_ui_help_visible(const st_ui *ui);
/* Which flow arrows are drawn (key l cycles off -> selection -> all):
 *   off        none;
 *   selection  (the default) the chain of the selected event, or the
 *              union of the chains of the selected events (a box), at most
 *              ST_FLOW_CHAIN_MAX arrows in all (core/index/flow_chain.h),
 *              highlighted over the slices;
 *   all        those, and every flow in view, bundled where they share a few
 *              pixels and drawn under the slices (core/draw/draw.h). */
typedef enum st_flow_mode {
  ST_FLOWS_OFF = 0,
  ST_FLOWS_SELECTION = 1,
  ST_FLOWS_ALL = 2
} st_flow_mode;
st_flow_mode st_ui_flow_mode(const st_ui *ui);
/* 0 (nothing changed) for a mode out of range. */
unsigned st_ui_set_flow_mode(st_ui *ui, st_flow_mode mode);
/* "off", "selection", "all"; parse: 1 and *mode if s[0, len) is one of them. */
const char *st_flow_mode_name(st_flow_mode mode);
int st_flow_mode_parse(const char *s, size_t len, st_flow_mode *mode);
unsigned st_ui_set_help(st_ui *ui, int visible);

/* ---- selection and marks ------------------------------------------------- */
const st_selection *st_ui_selection(const st_ui *ui);
/* The one selected event (if exactly one is selected). */
int st_ui_selected_one(const st_ui *ui, st_event_ref *out);
/* Replaces the selection with ref (add != 0: toggles it in the selection). */
unsigned st_ui_select(st_ui *ui, st_event_ref ref, int add);
/* Selects every event of rows in content y [y0, y1) intersecting
 * [t0, t1] (add != 0: adds to the selection). */
unsigned st_ui_select_box(st_ui *ui, double t0_ns, double t1_ns, float y0, float y1, int add);
/* Narrows the selection (window != 0: the events intersecting the visible
 * time window) to the events named `name`. */
unsigned st_ui_select_name(st_ui *ui, uint32_t name, int window);
/* Replaces the selection with a copy of s (a set the front end kept, e.g.
 * the one a summary table was built from). 0 on allocation failure (then
 * the selection is unchanged). */
unsigned st_ui_set_selection(st_ui *ui, const st_selection *s);
unsigned st_ui_clear(st_ui *ui); /* what Esc does when not dragging */
/* The time span of the selection; 0 if it is empty. */
int st_ui_selection_span(const st_ui *ui, int64_t *t0_ns, int64_t *t1_ns);
unsigned st_ui_mark_selection(st_ui *ui); /* m */
unsigned st_ui_fit_selection(st_ui *ui);  /* f */
unsigned st_ui_set_mark(st_ui *ui, double t0_ns, double t1_ns);
unsigned st_ui_clear_mark(st_ui *ui);
int st_ui_mark(const st_ui *ui, double *t0_ns, double *t1_ns);
/* Scrolls / pans (and expands a collapsed section) so the event is shown,
 * centred in time; zooms out if it is wider than most of the window, and
 * in until it is at least 32 px wide if it is narrower (instants keep the
 * zoom). */
unsigned st_ui_reveal(st_ui *ui, st_event_ref ref);

/* ---- search -------------------------------------------------------------- */
unsigned st_ui_search(st_ui *ui, const char *text, size_t len);
const st_find *st_ui_find(const st_ui *ui);
/* "In args": the name search for text, plus the events whose src is in
 * srcs (ascending; core/import/args/args_search.h). */
unsigned st_ui_search_srcs(st_ui *ui, const char *text, size_t len, const uint64_t *srcs, size_t n);
/* Adds the events of one file (part of a merged trace; query.h
 * st_find_add_srcs_part) whose src is in srcs to the active search: the
 * "in args" search over several files, one pass per file after the name
 * search (st_ui_search). 0 if no search is active. */
unsigned st_ui_search_add_srcs(st_ui *ui, uint32_t part, const uint64_t *srcs, size_t n);
/* Steps |dir| matches forward (dir > 0) or back in time order from the
 * current one (wrapping; from none: the first / last is one step): selects
 * the match reached and reveals it (st_ui_reveal). The matches in tracks
 * the track filter hides (view.h st_layout_row_filtered) are skipped: the
 * filter stays, and st_ui_search_hidden says how many there are. */
unsigned st_ui_search_step(st_ui *ui, int dir);
/* Matches in tracks the track filter hides (0 without a filter). O(rows). */
uint64_t st_ui_search_hidden(const st_ui *ui);
/* The current match's 0-based place among the matches the filter leaves
 * shown (all without a filter); -1 if there is none or the filter hides it. */
int64_t st_ui_search_place(const st_ui *ui);
/* A key pressed in the search box: Enter / shift+Enter step one match,
 * PageDown / PageUp ten; Escape returns ST_UI_TO_TIMELINE (the search
 * and selection stay). 0 for keys the box types itself. */
unsigned st_ui_search_box_key(st_ui *ui, const char *key, unsigned mods);
st_event_ref st_ui_search_current(const st_ui *ui);
/* Makes ref (a match of the active search, or ST_REF_NONE) the current
 * match without selecting it, and reveals it: a second view of the same
 * trace following a step made in the first (side-by-side panes), so that
 * the next step there goes on from it. 0 if ref is not a match. */
unsigned st_ui_search_follow(st_ui *ui, st_event_ref ref);
/* Makes dst's search the same as src's (query, matches including "in
 * args" ones, current match; query.h st_find_copy): two views of one
 * trace side by side. Nothing is selected or revealed. 0 if they do not
 * show the same trace or memory ran out (dst's search is then cleared). */
unsigned st_ui_search_copy(st_ui *dst, const st_ui *src);
/* A second view of the same trace following the first (side-by-side
 * panes): for the ST_UI_* bits a call on src returned (`changes`), dst
 * takes src's time window (ST_UI_VIEW), selection (ST_UI_SELECTION), timing
 * mark (ST_UI_MARK), search and current match (ST_UI_SEARCH: a new query,
 * or "in args" matches dst lacks or must drop, are copied; a step made in
 * src moves dst's current match with it) and tool (ST_UI_TOOL). Returns
 * ST_UI_REDRAW when dst changed (0 when nothing was followed). */
unsigned st_ui_follow(st_ui *dst, const st_ui *src, unsigned changes);

/* ---- sections ------------------------------------------------------------ */
unsigned st_ui_toggle_section(st_ui *ui, uint32_t process);
/* A merged trace's file group (view.h ST_LAYOUT_GROUP): a click on its
 * header collapses / expands it; alt+drag on it moves the file in time:
 * the ui only records the move (ST_UI_SHIFT), the owner of the traces
 * applies it (trace.h st_trace_merge_set_offsets, lod.h
 * st_lod_shift_rows) after taking it here: 1 and the part and the ns to
 * add to its offset, or 0 if nothing is pending. */
unsigned st_ui_toggle_group(st_ui *ui, uint32_t part);
int st_ui_take_shift(st_ui *ui, uint32_t *part, double *delta_ns);
/* Shows only some files in this ui's layout (view.h st_layout_set_group_hidden). */
unsigned st_ui_set_group_hidden(st_ui *ui, uint32_t part, int hidden);
/* Which tracks show (view.h): the track filter (text, len; 0 clears), a
 * track pinned or not (any track of a labelled group stands for it),
 * processes without events shown or not. ST_UI_TRACKS | ST_UI_LAYOUT when
 * something changed (the scroll is kept inside the new layout). */
unsigned st_ui_set_track_filter(st_ui *ui, const char *text, size_t len);
unsigned st_ui_set_pinned(st_ui *ui, uint32_t track, int pinned);
unsigned st_ui_set_show_empty(st_ui *ui, int show);
/* dst shows the same tracks as src (filter, pins, empty processes): a
 * second view of the same trace (side-by-side panes). */
unsigned st_ui_copy_tracks(st_ui *dst, const st_ui *src);
/* Collapses every section, or expands them all if all are collapsed. */
unsigned st_ui_collapse_all(st_ui *ui);
int st_ui_all_collapsed(const st_ui *ui);

/* ---- summary ------------------------------------------------------------- */
/* Aggregates the selection (window != 0: every event intersecting the
 * visible time window) into g (reset first). */
st_code st_ui_summarize(const st_ui *ui, st_agg *g, int window);

/* ---- drawing ------------------------------------------------------------- */
/* Fills the overlay for st_draw_input: selection, search dimming, mark,
 * box / zoom range being dragged. Valid until the next ui call. */
void st_ui_overlay(const st_ui *ui, st_draw_overlay *out);

#endif
