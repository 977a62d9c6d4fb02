/* hit.h: what is under a point of the canvas (CSS px): a section header, an
 * event of a row, a counter sample, a track label, the axis, or nothing.
 *
 * Cost: one binary search over the layout for the item under y, then one
 * over the row's ends for the event under x: O(log n), never O(events), so
 * it runs on every pointer move.
 *
 * Near misses: an event drawn narrower than a pixel is widened to one, and
 * at coarse zoom many events share a pixel; the event nearest the cursor's
 * time within slop_px is taken (the candidates are the last event ending at
 * or before t and the first ending after it: nothing else can be nearer).
 *
 *   st_hit h = st_hit_test(trace, layout, &view, x, y, 3.0f);
 *   if (h.kind == ST_HIT_EVENT) select(h.row, h.index);
 */
#ifndef STRATA_HIT_H
#define STRATA_HIT_H

#include "view.h"

typedef enum st_hit_kind {
  ST_HIT_NONE = 0, /* outside the canvas, below the last track, or no trace */
  ST_HIT_AXIS,     /* the time axis above the timeline */
  ST_HIT_SECTION,  /* a process header (gutter or timeline): click toggles collapse */
  ST_HIT_EVENT,    /* an event: row, index */
  ST_HIT_ROW,      /* a row with no event near the cursor: row */
  ST_HIT_COUNTER,  /* a counter track: row = counter, index = sample (UINT32_MAX if none) */
  ST_HIT_GUTTER,   /* a track's label area (not a section) */
  ST_HIT_GROUP,    /* a merged trace's file header (view.h ST_LAYOUT_GROUP): row = part */
  ST_HIT_PIN       /* the pin target at the right end of a track's label (ST_VIEW_PIN_W) */
} st_hit_kind;

typedef struct st_hit {
  uint32_t kind;    /* st_hit_kind */
  uint32_t item;    /* layout item index, UINT32_MAX if none */
  uint32_t process; /* UINT32_MAX if none */
  uint32_t track;   /* UINT32_MAX if none */
  uint32_t row;     /* global row (EVENT, ROW) or counter index (COUNTER) */
  uint32_t index;   /* event index (EVENT) or sample index (COUNTER) */
  double t_ns;      /* time under x */
  double value;     /* COUNTER: the value in effect at t_ns (NaN if none) */
} st_hit;

st_hit st_hit_test(const st_trace *t, const st_layout *l, const st_view *v, float x, float y,
                   float slop_px);

/* The layout item of a content y (y in canvas px - ST_VIEW_AXIS_H + scroll),
 * or UINT32_MAX. */
uint32_t st_layout_item_at(const st_layout *l, float content_y);

#endif
