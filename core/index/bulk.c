/* bulk.c: the time range holding a trace's events, without isolated far
 * outliers (see bulk.h for the rule). Every question is answered with one
 * binary search per row and per counter: rows' starts and ends are both
 * ascending (start[i] + dur[i] <= start[i + 1]), counters' timestamps too.
 */
#include "bulk.h"

#include "bisect.h"
#include "query.h" /* st_row_first_start_gt */

#define MIN_IQR_NS 1000   /* a trace whose middle half is one instant: 1 us */
#define GAP_IQRS 3        /* Tukey's "far out" */
#define MAX_GROW_STEPS 64 /* more steps: a chain of sparse events, not an outlier */
#define MAX_OUTSIDE_PCT 1 /* at most this % of the events may be left out per side */
#define MIN_SHRINK 2      /* leaving events out must divide the span by this */

static int64_t end_of(const st_row *r, uint32_t i) { return st_sat_add(r->start[i], r->dur[i]); }

/* ---- one row or counter: binary searches --------------------------------- */

static uint32_t row_start_gt(const st_row *r, int64_t x) { return st_row_first_start_gt(r, x); }
static uint32_t row_end_ge(const st_row *r, int64_t x) { return st_row_first_end_ge(r, x); }

static uint32_t ts_gt(const st_counter *c, int64_t x) {
  return (uint32_t)st_upper_bound_i64(c->ts, c->count, x);
}
static uint32_t ts_ge(const st_counter *c, int64_t x) {
  return (uint32_t)st_lower_bound_i64(c->ts, c->count, x);
}

/* ---- the whole trace ------------------------------------------------------ */

typedef struct events {
  const st_row *rows;
  const st_counter *cs;
  uint32_t nr, nc;
} events;

/* Events starting at or before x. */
static uint64_t count_start_le(const events *e, int64_t x) {
  uint64_t n = 0;
  for (uint32_t r = 0; r < e->nr; r++) n += row_start_gt(&e->rows[r], x);
  for (uint32_t c = 0; c < e->nc; c++) n += ts_gt(&e->cs[c], x);
  return n;
}

/* Events ending before x (counter samples end where they start). */
static uint64_t count_end_lt(const events *e, int64_t x) {
  uint64_t n = 0;
  for (uint32_t r = 0; r < e->nr; r++) n += row_end_ge(&e->rows[r], x);
  for (uint32_t c = 0; c < e->nc; c++) n += ts_ge(&e->cs[c], x);
  return n;
}

/* The latest end of the events starting at or before x (INT64_MIN: none). */
static int64_t max_end_starting_le(const events *e, int64_t x) {
  int64_t best = INT64_MIN;
  for (uint32_t r = 0; r < e->nr; r++) {
    uint32_t i = row_start_gt(&e->rows[r], x);
    if (i && end_of(&e->rows[r], i - 1) > best) best = end_of(&e->rows[r], i - 1);
  }
  for (uint32_t c = 0; c < e->nc; c++) {
    uint32_t i = ts_gt(&e->cs[c], x);
    if (i && e->cs[c].ts[i - 1] > best) best = e->cs[c].ts[i - 1];
  }
  return best;
}

/* The earliest start of the events ending at or after x (INT64_MAX: none). */
static int64_t min_start_ending_ge(const events *e, int64_t x) {
  int64_t best = INT64_MAX;
  for (uint32_t r = 0; r < e->nr; r++) {
    uint32_t i = row_end_ge(&e->rows[r], x);
    if (i < e->rows[r].count && e->rows[r].start[i] < best) best = e->rows[r].start[i];
  }
  for (uint32_t c = 0; c < e->nc; c++) {
    uint32_t i = ts_ge(&e->cs[c], x);
    if (i < e->cs[c].count && e->cs[c].ts[i] < best) best = e->cs[c].ts[i];
  }
  return best;
}

/* The k-th smallest start (0-based, k < events): the least x with more
 * than k events starting at or before it, bisected over [lo, hi]. */
static int64_t kth_start(const events *e, uint64_t k, int64_t lo, int64_t hi) {
  while (lo < hi) {
    int64_t m = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
    if (count_start_le(e, m) > k)
      hi = m;
    else
      lo = m + 1;
  }
  return lo;
}

/* Grows the bulk's right end from x over events starting within gap of
 * it; 0 if it did not settle within MAX_GROW_STEPS. *end gets the last
 * end of the events reached. */
static int grow_right(const events *e, int64_t x, int64_t gap, int64_t *end) {
  int64_t reach = st_sat_add(x, gap);
  for (int step = 0; step < MAX_GROW_STEPS; step++) {
    *end = max_end_starting_le(e, reach);
    int64_t next = st_sat_add(*end, gap);
    if (next <= reach) return 1;
    reach = next;
  }
  return 0;
}

static int grow_left(const events *e, int64_t x, int64_t gap, int64_t *start) {
  int64_t reach = st_sat_add(x, -gap);
  for (int step = 0; step < MAX_GROW_STEPS; step++) {
    *start = min_start_ending_ge(e, reach);
    int64_t next = st_sat_add(*start, -gap);
    if (next >= reach) return 1;
    reach = next;
  }
  return 0;
}

void st_bulk_range(const st_trace *t, st_bulk *out) {
  if (!out) return;
  *out = (st_bulk){0};
  if (!t) return;
  events e;
  e.rows = st_trace_rows(t, &e.nr);
  e.cs = st_trace_counters(t, &e.nc);
  uint64_t n = 0;
  int64_t first = INT64_MAX, last_start = INT64_MIN, last_end = INT64_MIN;
  for (uint32_t r = 0; r < e.nr; r++) {
    const st_row *row = &e.rows[r];
    if (!row->count) continue;
    n += row->count;
    if (row->start[0] < first) first = row->start[0];
    if (row->start[row->count - 1] > last_start) last_start = row->start[row->count - 1];
    if (end_of(row, row->count - 1) > last_end) last_end = end_of(row, row->count - 1);
  }
  for (uint32_t c = 0; c < e.nc; c++) {
    const st_counter *cs = &e.cs[c];
    if (!cs->count) continue;
    n += cs->count;
    if (cs->ts[0] < first) first = cs->ts[0];
    if (cs->ts[cs->count - 1] > last_start) last_start = cs->ts[cs->count - 1];
    if (cs->ts[cs->count - 1] > last_end) last_end = cs->ts[cs->count - 1];
  }
  if (!n) return;
  out->t0_ns = first;
  out->t1_ns = last_end;
  if (n < 2) return;

  int64_t q1 = kth_start(&e, (n - 1) / 4, first, last_start);
  int64_t q3 = kth_start(&e, (3 * (n - 1) + 3) / 4, first, last_start);
  int64_t iqr = q3 - q1 > MIN_IQR_NS ? q3 - q1 : MIN_IQR_NS;
  int64_t gap = iqr > INT64_MAX / GAP_IQRS ? INT64_MAX : iqr * GAP_IQRS;
  uint64_t cap = n * MAX_OUTSIDE_PCT / 100 > 1 ? n * MAX_OUTSIDE_PCT / 100 : 1;

  int64_t t0 = first, t1 = last_end;
  uint64_t before = 0, after = 0;
  int64_t s, x;
  if (grow_left(&e, q1, gap, &s) && s > first) {
    uint64_t k = count_end_lt(&e, s);
    if (k <= cap) t0 = s, before = k;
  }
  if (grow_right(&e, q3, gap, &x) && x < last_end) {
    uint64_t k = n - count_start_le(&e, x);
    if (k <= cap) t1 = x, after = k;
  }
  /* worth it only if the span shown shrinks MIN_SHRINK-fold */
  double full = (double)last_end - (double)first, kept = (double)t1 - (double)t0;
  if (!(before + after) || kept * MIN_SHRINK > full) return;
  out->t0_ns = t0;
  out->t1_ns = t1;
  out->before = before;
  out->after = after;
  out->outside = before + after;
}
