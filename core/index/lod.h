/* lod.h: level-of-detail queries over the trace's rows, so that drawing any
 * viewport costs O(visible pixel columns x visible rows), never O(events).
 *
 * For one row and a window [t0, t1) at a resolution of ns_per_px, a query
 * yields every event at least `min_px` wide as itself, and folds runs of
 * narrower events into merged blocks (count, busy fraction, dominant name)
 * at most about one per pixel column. Nothing that exists disappears: a 10 ns
 * event in a 10 s view still yields a block >= 1 px wide. Rows are per depth,
 * so merged blocks never hide their parents.
 *
 * Counters: a query yields, per pixel column, the min/max/last value.
 *
 *   st_lod *lod = st_lod_build(&alloc, trace, &err);
 *   st_lod_query_row(lod, row, t0, t1, nspp, 1.0, visit, ud);
 */
#ifndef STRATA_LOD_H
#define STRATA_LOD_H

#include "trace.h"

typedef struct st_lod st_lod;

typedef struct st_lod_item {
  int64_t start, end; /* ns from trace start; a merged block spans its events */
  uint32_t index;     /* first event's index in the row */
  uint32_t count;     /* 1: a real event; > 1: a merged block */
  uint32_t name;      /* the event's name, or the block's dominant name */
  float busy;         /* fraction of [start, end) covered by events (1 for an event) */
  uint8_t flags;      /* ST_EV_* of the event (0 for merged blocks of count > 1) */
  uint8_t merged;     /* 1: a LOD block of events narrower than min_px (count may be 1;
                       * then name/flags/index are that event's and start/end are
                       * widened to about 1 px); 0: one event at its true extent */
} st_lod_item;

typedef struct st_lod_sample {
  int64_t start, end; /* the pixel column's time range */
  double min, max, last;
} st_lod_sample;

typedef void (*st_lod_item_fn)(void *ud, const st_lod_item *item);
typedef void (*st_lod_sample_fn)(void *ud, const st_lod_sample *sample);

st_lod *st_lod_build(const st_alloc *a, const st_trace *t, st_error *err);
void st_lod_destroy(st_lod *lod);
size_t st_lod_bytes(const st_lod *lod);
/* The events of rows [row_lo, row_hi) were all moved by delta ns in place
 * (trace.h st_trace_merge_set_offsets): moves the index with them, O(rows). */
void st_lod_shift_rows(st_lod *lod, uint32_t row_lo, uint32_t row_hi, int64_t delta);

/* Items of `row` that intersect [t0, t1), in time order. Returns the number
 * of items visited. Pixel columns are anchored at t = 0 (column c covers
 * [c * ns_per_px, (c + 1) * ns_per_px)) so blocks do not shimmer while
 * panning; a block holds the events starting in its column and, zoomed out
 * on a big row, possibly some starting less than 1 px after it (the
 * index's time cells are at most 1 px wide); blocks never share a
 * column. min_px < 1 is treated as 1. At most about columns + 1 blocks plus
 * window / min_px + 2 events per row; O(log n) work per item.
 * The lod keeps pointers into the trace: the trace must outlive it. */
uint32_t st_lod_query_row(const st_lod *lod, uint32_t row, int64_t t0, int64_t t1, double ns_per_px,
                          double min_px, st_lod_item_fn fn, void *ud);
/* Counter samples of counter `counter` over [t0, t1), one per pixel column
 * that holds samples (plus the value carried in from the left). Each sample
 * spans from its column's start to the next sample's column (the last one
 * to t1), so the items tile the window: draw min..max in the column and
 * `last` from there to `end`. NaN values are skipped in min/max. */
uint32_t st_lod_query_counter(const st_lod *lod, uint32_t counter, int64_t t0, int64_t t1,
                              double ns_per_px, st_lod_sample_fn fn, void *ud);

#endif
