/* test_lod.c: level-of-detail queries against brute force on random traces:
 * every event intersecting the window is covered by exactly one item, real
 * events are at least min_px wide, merged blocks hold only narrow events,
 * items are ordered and bounded by ~2 x columns; counters per column match a
 * scan; a tiny event in a huge view still shows; memory per event. */
#include "check.h"
#include "lod.h"

#include <math.h>
#include <stdlib.h>

static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return rs;
}
static int64_t rnd_range(int64_t lo, int64_t hi) {
  return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* log-uniform durations from 0 to ~1e6, some zero */
static int64_t rnd_dur(void) {
  if (rnd() % 10 == 0) return 0;
  return (int64_t)exp((double)(rnd() % 1400) / 100.0);
}

/* Times and durations are multiplied by this: 1 exercises the lod's compact
 * rows, 1 << 22 (gaps and events beyond 2^32 ns) its general rows, 1 << 28
 * time cells whose offsets do not fit in 32 bits. */
static int64_t g_time_scale = 1;

static st_trace *random_trace(int events, int names, int counters_n) {
  st_builder *b = st_builder_create(NULL);
  st_strtab *s = st_builder_strings(b);
  uint32_t p = st_builder_process(b, 1);
  uint32_t as = st_builder_track(b, p, ST_TRACK_ASYNC, 0, 0);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  uint32_t ids[16];
  char nm[8];
  for (int i = 0; i < names && i < 16; i++) {
    nm[0] = (char)('a' + i);
    ids[i] = st_strtab_intern(s, nm, 1);
  }
  for (int i = 0; i < events; i++) {
    uint32_t tr = rnd() % 2 ? as : th;
    st_builder_slice(b, tr, rnd_range(0, 10000000) * g_time_scale, rnd_dur() * g_time_scale,
                     ids[rnd() % (uint64_t)names], 0, (uint64_t)i, 0);
  }
  for (int c = 0; c < counters_n; c++) {
    uint32_t ct = st_builder_track(b, p, ST_TRACK_COUNTER, c, 0);
    int m = (int)rnd_range(0, 3000);
    for (int i = 0; i < m; i++)
      st_builder_counter(b, ct, rnd_range(0, 10000000), (double)rnd_range(-1000, 1000) / 10.0);
  }
  st_trace *t = st_builder_finish(b, NULL);
  return t;
}

typedef struct items {
  st_lod_item v[100000];
  uint32_t n;
} items;
static void collect(void *ud, const st_lod_item *it) {
  items *c = ud;
  if (c->n < sizeof c->v / sizeof c->v[0]) c->v[c->n++] = *it;
}

static items g_items;
static uint64_t g_blocks, g_reals, g_multi; /* coverage of the random test itself */

static void check_row_query(const st_lod *lod, const st_row *r, uint32_t row, int64_t t0,
                            int64_t t1, double nspp, double min_px) {
  items *c = &g_items;
  c->n = 0;
  uint32_t ret = st_lod_query_row(lod, row, t0, t1, nspp, min_px, collect, c);
  CHECK_EQ_INT(ret, c->n);
  double mp = min_px < 1 ? 1 : min_px;
  /* brute force: the events intersecting [t0, t1) are a contiguous range */
  size_t lo = 0, hi;
  while (lo < r->count && !(r->start[lo] + r->dur[lo] > t0 || r->start[lo] >= t0)) lo++;
  hi = lo;
  while (hi < r->count && r->start[hi] < t1) hi++;
  if (lo == hi) {
    CHECK_EQ_INT(c->n, 0);
    return;
  }
  CHECK(c->n > 0);
  if (!c->n) return;
  size_t next = lo;
  int64_t prev_end = INT64_MIN;
  uint32_t blocks = 0, reals = 0;
  for (uint32_t k = 0; k < c->n; k++) {
    const st_lod_item *it = &c->v[k];
    CHECK_EQ_INT(it->index, next); /* exactly once, in order */
    CHECK(it->count >= 1);
    CHECK(it->start >= prev_end);
    CHECK(it->end >= it->start);
    prev_end = it->end;
    CHECK(it->busy >= 0 && it->busy <= 1.0f);
    int64_t busy = 0;
    int name_seen = 0;
    for (size_t i = it->index; i < (size_t)it->index + it->count && i < r->count; i++) {
      CHECK(it->start <= r->start[i]);
      CHECK(it->end >= r->start[i] + r->dur[i]);
      busy += r->dur[i];
      if (r->name[i] == it->name) name_seen = 1;
      if (it->merged) CHECK((double)r->dur[i] < mp * nspp); /* only narrow events merge */
    }
    CHECK(name_seen);
    if (it->merged) {
      blocks++;
      g_blocks++;
      if (it->count > 1) g_multi++;
      if (it->end > it->start)
        CHECK(fabs(it->busy - (double)busy / (double)(it->end - it->start)) < 1e-3);
      /* at least 1 px unless the next event crowds it */
      size_t after = (size_t)it->index + it->count;
      if (after < r->count && r->start[after] < it->start + (int64_t)ceil(nspp))
        CHECK(it->end >= r->start[it->index + it->count - 1] + r->dur[it->index + it->count - 1]);
      else
        CHECK((double)(it->end - it->start) >= nspp - 1);
      if (k > 0 && c->v[k - 1].merged) /* blocks never share a column */
        CHECK(floor((double)it->start / nspp) > floor((double)c->v[k - 1].start / nspp));
    } else {
      reals++;
      g_reals++;
      CHECK_EQ_INT(it->count, 1);
      CHECK((double)(it->end - it->start) >= mp * nspp); /* real events are wide */
      CHECK_EQ_INT(it->end - it->start, r->dur[it->index]);
    }
    next = (size_t)it->index + it->count;
  }
  CHECK(next >= hi);
  /* a block may take events just past t1, but only from t1's column (or,
   * zoomed out, less than 1 px past it: lod.h) */
  if (next > hi) CHECK((double)r->start[next - 1] < (floor((double)t1 / nspp) + 2.0) * nspp + 1);
  double columns = (double)(t1 - t0) / nspp + 2;
  CHECK(blocks <= columns + 1);
  CHECK(reals <= (double)(t1 - t0) / (mp * nspp) + 2);
  CHECK(c->n <= 2 * columns + 4);
}

static void test_rows_vs_brute_force(void) {
  for (int round = 0; round < 21; round++) {
    g_time_scale = round < 12 ? 1 : round < 18 ? (int64_t)1 << 22 : (int64_t)1 << 28;
    st_trace *t = random_trace(round % 12 < 6 ? 3000 : 30000, 1 + round % 6, 0);
    CHECK(t != NULL);
    if (!t) continue;
    st_error err;
    st_lod *lod = st_lod_build(NULL, t, &err);
    CHECK(lod != NULL);
    uint32_t nrows;
    const st_row *rows = st_trace_rows(t, &nrows);
    int64_t dur = st_trace_duration_ns(t);
    for (int q = 0; q < 40; q++) {
      uint32_t row = (uint32_t)(rnd() % nrows);
      int64_t t0 = rnd_range(-1000, dur), span = rnd_range(1, dur + 1000);
      double px = (double)rnd_range(50, 2000);
      double nspp = (double)span / px;
      if (nspp <= 0) nspp = 0.5;
      double min_px = q % 3 == 0 ? 1.0 : q % 3 == 1 ? 3.0 : 0.25;
      check_row_query(lod, &rows[row], row, t0, t0 + span, nspp, min_px);
    }
    /* the full view of every row */
    for (uint32_t row = 0; row < nrows; row++)
      check_row_query(lod, &rows[row], row, 0, dur + 1, (double)(dur + 1) / 1000.0, 1.0);
    st_lod_destroy(lod);
    st_trace_destroy(t);
  }
  g_time_scale = 1;
  printf("random rows: %llu blocks (%llu multi-event), %llu real events\n",
         (unsigned long long)g_blocks, (unsigned long long)g_multi, (unsigned long long)g_reals);
  CHECK(g_blocks > 1000 && g_multi > 100 && g_reals > 1000);
}

/* One 10 ns event in a 10 s view still yields a >= 1 px block. */
static void test_tiny_event_visible(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  uint32_t th2 = st_builder_track(b, p, ST_TRACK_SLICES, 2, 0);
  st_builder_slice(b, th, 5000000000, 10, 3, 0, 0, 0);
  st_builder_slice(b, th2, 0, 10000000000, 4, 0, 0, 0);
  st_trace *t = st_builder_finish(b, NULL);
  st_lod *lod = st_lod_build(NULL, t, NULL);
  items *c = &g_items;
  c->n = 0;
  double nspp = 1e10 / 1000;
  CHECK_EQ_INT(st_lod_query_row(lod, 0, 0, 10000000000, nspp, 1.0, collect, c), 1);
  CHECK_EQ_INT(c->v[0].merged, 1);
  CHECK_EQ_INT(c->v[0].count, 1);
  CHECK_EQ_INT(c->v[0].name, 3);
  CHECK((double)(c->v[0].end - c->v[0].start) >= nspp);
  CHECK(c->v[0].busy < 0.01f);
  c->n = 0;
  CHECK_EQ_INT(st_lod_query_row(lod, 1, 0, 10000000000, nspp, 1.0, collect, c), 1);
  CHECK_EQ_INT(c->v[0].merged, 0);
  /* out-of-range arguments */
  CHECK_EQ_INT(st_lod_query_row(lod, 99, 0, 10, 1.0, 1.0, collect, c), 0);
  CHECK_EQ_INT(st_lod_query_row(lod, 0, 10, 10, 1.0, 1.0, collect, c), 0);
  CHECK_EQ_INT(st_lod_query_row(lod, 0, 0, 10, 0.0, 1.0, collect, c), 0);
  CHECK_EQ_INT(st_lod_query_row(NULL, 0, 0, 10, 1.0, 1.0, collect, c), 0);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

/* A dense row: 1e6 tiny events of alternating names, one dominant by time.
 * The full view yields about one block per column. */
static void test_dense_row(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  const int n = 1000000;
  for (int i = 0; i < n; i++)
    st_builder_slice(b, th, (int64_t)i * 100, i % 4 ? 10 : 80, i % 4 ? 1 : 2, 0, 0, 0);
  st_trace *t = st_builder_finish(b, NULL);
  st_lod *lod = st_lod_build(NULL, t, NULL);
  CHECK(lod != NULL);
  size_t per_event = st_lod_bytes(lod) / (size_t)n;
  printf("lod bytes/event (dense row): %.2f\n", (double)st_lod_bytes(lod) / n);
  CHECK(per_event <= 16);
  items *c = &g_items;
  c->n = 0;
  double nspp = 1e8 / 1920;
  uint32_t got = st_lod_query_row(lod, 0, 0, 100000000, nspp, 1.0, collect, c);
  CHECK(got <= 1922);
  CHECK(got >= 1900);
  uint64_t covered = 0;
  int dominant_ok = 1;
  for (uint32_t k = 0; k < c->n; k++) {
    covered += c->v[k].count;
    if (c->v[k].count > 8 && c->v[k].name != 2) dominant_ok = 0; /* 80 ns x1 vs 10 ns x3 */
  }
  CHECK_EQ_INT(covered, n);
  CHECK(dominant_ok);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

typedef struct samples {
  st_lod_sample v[20000];
  uint32_t n;
} samples;
static samples g_samples;
static void collect_s(void *ud, const st_lod_sample *s) {
  samples *c = ud;
  if (c->n < sizeof c->v / sizeof c->v[0]) c->v[c->n++] = *s;
}

static void test_counters_vs_brute_force(void) {
  for (int round = 0; round < 6; round++) {
    st_trace *t = random_trace(10, 2, 3);
    st_lod *lod = st_lod_build(NULL, t, NULL);
    uint32_t nc;
    const st_counter *cs = st_trace_counters(t, &nc);
    CHECK_EQ_INT(nc, 3);
    int64_t dur = st_trace_duration_ns(t);
    for (int q = 0; q < 30; q++) {
      uint32_t ci = (uint32_t)(rnd() % nc);
      const st_counter *c = &cs[ci];
      int64_t t0 = rnd_range(-100, dur), t1 = t0 + rnd_range(1, dur + 100);
      double nspp = (double)(t1 - t0) / (double)rnd_range(10, 1500);
      samples *out = &g_samples;
      out->n = 0;
      uint32_t got = st_lod_query_counter(lod, ci, t0, t1, nspp, collect_s, out);
      CHECK_EQ_INT(got, out->n);
      /* brute force */
      size_t k = 0;
      while (k < c->count && c->ts[k] < t0) k++;
      uint32_t at = 0;
      if (k > 0) {
        CHECK(at < out->n);
        if (at < out->n) {
          CHECK(out->v[at].last == c->value[k - 1]);
          CHECK(out->v[at].start == t0);
        }
        at++;
      }
      while (k < c->count && c->ts[k] < t1) {
        double col = floor((double)c->ts[k] / nspp);
        double mn = c->value[k], mx = c->value[k], last = c->value[k];
        size_t j = k + 1;
        while (j < c->count && floor((double)c->ts[j] / nspp) == col) {
          if (c->value[j] < mn) mn = c->value[j];
          if (c->value[j] > mx) mx = c->value[j];
          last = c->value[j];
          j++;
        }
        CHECK(at < out->n);
        if (at < out->n) {
          CHECK(out->v[at].min == mn);
          CHECK(out->v[at].max == mx);
          CHECK(out->v[at].last == last);
          CHECK(out->v[at].start <= c->ts[k]);
          CHECK(out->v[at].end >= out->v[at].start);
          if (at + 1 < out->n) CHECK(out->v[at].end == out->v[at + 1].start);
        }
        at++;
        k = j;
      }
      CHECK_EQ_INT(at, out->n);
      if (out->n) CHECK_EQ_INT(out->v[out->n - 1].end, t1);
    }
    st_lod_destroy(lod);
    st_trace_destroy(t);
  }
}

/* A row whose dense start makes its time cells fine, then a sparse tail:
 * zoomed out, the pyramid serves the tail's columns, each holding one
 * narrow event (a block of one keeps that event's name), and a wide event
 * among them is yielded as itself. */
static void test_pyramid_sparse_tail(void) {
  st_builder *b = st_builder_create(NULL);
  st_strtab *s = st_builder_strings(b);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  uint32_t dense = st_strtab_intern(s, "dense", 5), tail = st_strtab_intern(s, "tail", 4);
  uint32_t wide = st_strtab_intern(s, "wide", 4);
  uint64_t src = 0;
  for (int i = 0; i < 10000; i++) st_builder_slice(b, th, 2 * i, 1, dense, 0, src++, 0);
  for (int i = 0; i < 100; i++)
    st_builder_slice(b, th, 1000000 + 1000000 * (int64_t)i, i == 50 ? 3000000 : 10,
                     i == 50 ? wide : tail, 0, src++, 0);
  st_trace *t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  if (!t) return;
  st_error err;
  st_lod *lod = st_lod_build(NULL, t, &err);
  CHECK(lod != NULL);
  const st_row *r = st_trace_rows(t, NULL);
  int64_t dur = st_trace_duration_ns(t);
  check_row_query(lod, r, 0, 0, dur + 1, 300000.0, 1.0);
  items *c = &g_items;
  uint32_t singles = 0, wides = 0;
  for (uint32_t k = 0; k < c->n; k++) {
    const st_lod_item *it = &c->v[k];
    if (it->merged && it->count == 1) {
      singles++;
      CHECK_EQ_INT(it->name, r->name[it->index]);
    }
    if (it->name == wide) {
      wides++;
      CHECK(!it->merged && it->count == 1);
    }
  }
  CHECK(singles >= 90);
  CHECK_EQ_INT(wides, 1);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

/* Rows that mix short events with long ones, as a thread's states do (runs
 * and waits of a few ns to ~50, then a sleep of 500 ns to 50 us): against
 * brute force, zoomed out (where the time cells serve the columns) and in,
 * at the three time scales. */
static st_trace *mixed_trace(int events, int names) {
  st_builder *b = st_builder_create(NULL);
  st_strtab *s = st_builder_strings(b);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  uint32_t ids[8];
  char nm[2] = {0, 0};
  for (int i = 0; i < names && i < 8; i++) {
    nm[0] = (char)('a' + i);
    ids[i] = st_strtab_intern(s, nm, 1);
  }
  int64_t t = 0;
  for (int i = 0; i < events; i++) {
    int64_t d = rnd() % 40 == 0 ? rnd_range(500, 50000) : rnd_range(0, 50);
    st_builder_slice(b, th, t * g_time_scale, d * g_time_scale, ids[rnd() % (uint64_t)names], 0,
                     (uint64_t)i, 0);
    t += d + rnd_range(0, 20);
  }
  return st_builder_finish(b, NULL);
}

static void test_mixed_rows_vs_brute_force(void) {
  uint64_t blocks0 = g_blocks, reals0 = g_reals;
  for (int round = 0; round < 9; round++) {
    g_time_scale = round < 3 ? 1 : round < 6 ? (int64_t)1 << 22 : (int64_t)1 << 28;
    st_trace *t = mixed_trace(round % 3 == 0 ? 3000 : 40000, 1 + round % 3);
    CHECK(t != NULL);
    if (!t) continue;
    st_lod *lod = st_lod_build(NULL, t, NULL);
    CHECK(lod != NULL);
    uint32_t nrows;
    const st_row *rows = st_trace_rows(t, &nrows);
    int64_t dur = st_trace_duration_ns(t);
    for (int q = 0; q < 60; q++) {
      int64_t span = q % 2 ? dur + 1 : rnd_range(1, dur + 1000),
              t0 = q % 2 ? 0 : rnd_range(-1000, dur);
      double px = (double)rnd_range(100, 2000);
      double min_px = q % 3 == 0 ? 1.0 : q % 3 == 1 ? 3.0 : 0.25;
      check_row_query(lod, &rows[0], 0, t0, t0 + span, (double)span / px, min_px);
    }
    st_lod_destroy(lod);
    st_trace_destroy(t);
  }
  g_time_scale = 1;
  printf("mixed rows: %llu blocks, %llu real events\n", (unsigned long long)(g_blocks - blocks0),
         (unsigned long long)(g_reals - reals0));
  CHECK(g_blocks - blocks0 > 1000 && g_reals - reals0 > 1000);
}

/* A column served by the time cells although one of them holds a long
 * event (lod.c, "Mixed columns"). 4096 events whose starts span 426,300 ns
 * make 512 ns level-0 time cells; at 3000 ns per pixel those of 2048 ns
 * (at most 1 px) serve the columns.
 * Column 0 holds 30 short events, then, in the cell that crosses its end
 * (2048..4096), a short one at 3010 and a long one at 3050: the column's
 * block takes the 31 short ones from the cells, and the long event is
 * yielded as itself. (Walked exactly, the column's block would stop at
 * 3000 and the event at 3010 would make a block of its own.) */
static void test_mixed_column_from_cells(void) {
  st_builder *b = st_builder_create(NULL);
  st_strtab *s = st_builder_strings(b);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  uint32_t run = st_strtab_intern(s, "Running", 7), sleep = st_strtab_intern(s, "Sleeping", 8);
  uint64_t src = 0;
  for (int i = 0; i < 30; i++) st_builder_slice(b, th, 100 * i, 10, run, 0, src++, 0);
  st_builder_slice(b, th, 3010, 5, run, 0, src++, 0);
  st_builder_slice(b, th, 3050, 10000, sleep, 0, src++, 0);
  for (int i = 0; i < 4064; i++) st_builder_slice(b, th, 20000 + 100 * i, 10, run, 0, src++, 0);
  st_trace *t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  if (!t) return;
  st_lod *lod = st_lod_build(NULL, t, NULL);
  CHECK(lod != NULL);
  const st_row *r = st_trace_rows(t, NULL);
  CHECK_EQ_INT(r->count, 4096);
  check_row_query(lod, r, 0, 0, 430000, 3000.0, 1.0);
  items *c = &g_items;
  CHECK(c->n >= 2);
  if (c->n >= 2) {
    CHECK_EQ_INT(c->v[0].merged, 1);
    CHECK_EQ_INT(c->v[0].index, 0);
    CHECK_EQ_INT(c->v[0].count, 31);
    CHECK_EQ_INT(c->v[0].name, run);
    CHECK_EQ_INT(c->v[0].start, 0);
    CHECK_EQ_INT(c->v[0].end, 3015); /* the last short event's end */
    CHECK(fabs(c->v[0].busy - 305.0 / 3015.0) < 1e-6);
    CHECK_EQ_INT(c->v[1].merged, 0);
    CHECK_EQ_INT(c->v[1].index, 31);
    CHECK_EQ_INT(c->v[1].name, sleep);
    CHECK_EQ_INT(c->v[1].start, 3050);
    CHECK_EQ_INT(c->v[1].end, 13050);
  }
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

static void test_empty(void) {
  st_builder *b = st_builder_create(NULL);
  st_trace *t = st_builder_finish(b, NULL);
  st_lod *lod = st_lod_build(NULL, t, NULL);
  CHECK(lod != NULL);
  CHECK(st_lod_bytes(lod) > 0);
  CHECK_EQ_INT(st_lod_query_row(lod, 0, 0, 10, 1.0, 1.0, collect, &g_items), 0);
  CHECK_EQ_INT(st_lod_query_counter(lod, 0, 0, 10, 1.0, collect_s, &g_samples), 0);
  st_lod_destroy(lod);
  st_trace_destroy(t);
  CHECK(st_lod_build(NULL, NULL, NULL) == NULL);
}

int main(void) {
  RUN(test_rows_vs_brute_force);
  RUN(test_tiny_event_visible);
  RUN(test_dense_row);
  RUN(test_pyramid_sparse_tail);
  RUN(test_mixed_rows_vs_brute_force);
  RUN(test_mixed_column_from_cells);
  RUN(test_counters_vs_brute_force);
  RUN(test_empty);
  return check_report();
}
