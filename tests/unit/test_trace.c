/* test_trace.c: the trace builder: nesting, overflow spill, unfinished
 * events, display ordering, counters, lane packing, empty traces, the end
 * events of B/E slices and allocation failure. */
#include "check.h"
#include "trace.h"

#include <stdlib.h>

static uint32_t S(st_builder *b, const char *s) {
  return st_strtab_intern(st_builder_strings(b), s, strlen(s));
}

static const char *name_of(const st_trace *t, uint32_t id) {
  return st_strtab_get(st_trace_strings(t), id, NULL);
}

/* Every row: sorted, non-overlapping; returns the total events in rows. */
static uint64_t check_rows(const st_trace *t) {
  uint32_t nrows, ntracks;
  const st_row *rows = st_trace_rows(t, &nrows);
  const st_track *tracks = st_trace_tracks(t, &ntracks);
  uint64_t total = 0;
  for (uint32_t r = 0; r < nrows; r++) {
    const st_row *row = &rows[r];
    CHECK(row->track < ntracks);
    CHECK(r >= tracks[row->track].first_row &&
          r < tracks[row->track].first_row + tracks[row->track].row_count);
    CHECK_EQ_INT(row->depth, r - tracks[row->track].first_row);
    for (uint32_t i = 0; i < row->count; i++) {
      CHECK(row->dur[i] >= 0);
      CHECK(row->start[i] >= 0);
      if (i + 1 < row->count) CHECK(row->start[i] + row->dur[i] <= row->start[i + 1]);
    }
    total += row->count;
  }
  return total;
}

static void test_nesting(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 42);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 7, S(b, "main"));
  /* added out of order on purpose */
  st_builder_slice(b, th, 1060, 30, S(b, "D"), 0, 4, 0);
  st_builder_slice(b, th, 1000, 100, S(b, "A"), 0, 1, 0);
  st_builder_slice(b, th, 1020, 10, S(b, "C"), 0, 3, 0);
  st_builder_slice(b, th, 1010, 40, S(b, "B"), 0, 2, 0);
  st_builder_slice(b, th, 1100, 0, S(b, "E"), 0, 5, 0); /* zero length at A's end */
  st_error err;
  st_trace *t = st_builder_finish(b, &err);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(err.code, ST_OK);
  CHECK_EQ_INT(st_trace_origin_ns(t), 1000);
  CHECK_EQ_INT(st_trace_duration_ns(t), 100);
  CHECK_EQ_INT(st_trace_event_count(t), 5);
  uint32_t nt, nr;
  const st_track *tr = st_trace_tracks(t, &nt);
  const st_row *rows = st_trace_rows(t, &nr);
  CHECK_EQ_INT(nt, 1);
  CHECK_EQ_INT(nr, 3);
  CHECK_EQ_INT(tr[0].row_count, 3);
  CHECK_EQ_STR(name_of(t, tr[0].name), "main");
  CHECK_EQ_INT(tr[0].key, 7);
  CHECK_EQ_INT(rows[0].count, 2); /* A, E */
  CHECK_EQ_STR(name_of(t, rows[0].name[0]), "A");
  CHECK_EQ_INT(rows[0].start[0], 0);
  CHECK_EQ_STR(name_of(t, rows[0].name[1]), "E");
  CHECK_EQ_INT(rows[1].count, 2); /* B, D */
  CHECK_EQ_STR(name_of(t, rows[1].name[0]), "B");
  CHECK_EQ_STR(name_of(t, rows[1].name[1]), "D");
  CHECK_EQ_INT(rows[1].src[1], 4);
  CHECK_EQ_INT(rows[2].count, 1);
  CHECK_EQ_STR(name_of(t, rows[2].name[0]), "C");
  CHECK_EQ_INT(rows[2].start[0], 20);
  CHECK_EQ_INT(check_rows(t), 5);
  CHECK(st_trace_bytes(t) > 5 * 33);
  st_trace_destroy(t);
}

static void test_overlap_spill(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 5, S(b, "worker"));
  uint32_t other = st_builder_track(b, p, ST_TRACK_SLICES, 6, S(b, "other"));
  st_builder_slice(b, th, 0, 100, S(b, "A"), 0, 0, 0);
  st_builder_slice(b, th, 50, 100, S(b, "B"), 0, 1, 0); /* misnested: ends after A */
  st_builder_slice(b, th, 60, 10, S(b, "C"), 0, 2, 0);  /* inside A and B: nests in A */
  st_builder_slice(b, other, 0, 10, S(b, "X"), 0, 3, 0);
  st_trace *t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  if (!t) return;
  uint32_t nt;
  const st_track *tr = st_trace_tracks(t, &nt);
  CHECK_EQ_INT(nt, 3);
  CHECK_EQ_INT(tr[0].key, 5);
  CHECK_EQ_INT(tr[0].overflow, 0);
  CHECK_EQ_INT(tr[1].key, 5);
  CHECK_EQ_INT(tr[1].overflow, 1);
  CHECK_EQ_STR(name_of(t, tr[1].name), "worker");
  CHECK_EQ_INT(tr[2].key, 6);
  const st_row *rows = st_trace_rows(t, NULL);
  CHECK_EQ_INT(tr[1].row_count, 1);
  const st_row *of = &rows[tr[1].first_row];
  CHECK_EQ_INT(of->count, 1);
  CHECK_EQ_STR(name_of(t, of->name[0]), "B");
  CHECK(of->flags[0] & ST_EV_OVERLAP);
  CHECK_EQ_INT(of->track, 1);
  CHECK_EQ_INT(tr[0].row_count, 2);
  CHECK_EQ_STR(name_of(t, rows[1].name[0]), "C");
  CHECK_EQ_INT(check_rows(t), 4);
  uint32_t np;
  const st_process *ps = st_trace_processes(t, &np);
  CHECK_EQ_INT(np, 1);
  CHECK_EQ_INT(ps[0].first_track, 0);
  CHECK_EQ_INT(ps[0].track_count, 3);
  st_trace_destroy(t);
}

/* A staircase of partially overlapping slices: every one but the first
 * spills, pass after pass; nothing is dropped and rows stay valid. */
static void test_staircase(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  const int n = 2000;
  for (int i = 0; i < n; i++) st_builder_slice(b, th, i, n, S(b, "s"), 0, (uint64_t)i, 0);
  st_trace *t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(check_rows(t), n);
  uint32_t nt, nr;
  const st_track *tr = st_trace_tracks(t, &nt);
  st_trace_rows(t, &nr);
  CHECK_EQ_INT(nt, 2);
  CHECK_EQ_INT(nr, n); /* all mutually overlap: n rows is the minimum */
  CHECK_EQ_INT(tr[0].row_count, 1);
  st_trace_destroy(t);
}

static void test_unfinished(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  st_builder_slice(b, th, 2000, 0, S(b, "open"), 0, 0, ST_EV_UNFINISHED);
  st_builder_slice(b, th, 1000, 4000, S(b, "outer"), 0, 1, 0);
  st_builder_slice(b, th, 1500, -7, S(b, "neg"), 0, 2, 0); /* clamped to 0 */
  st_trace *t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(st_trace_duration_ns(t), 4000);
  const st_row *rows = st_trace_rows(t, NULL);
  CHECK_EQ_INT(rows[0].count, 1);
  CHECK_EQ_STR(name_of(t, rows[0].name[0]), "outer");
  CHECK_EQ_INT(rows[1].count, 2);
  CHECK_EQ_STR(name_of(t, rows[1].name[0]), "neg");
  CHECK_EQ_INT(rows[1].dur[0], 0);
  CHECK_EQ_STR(name_of(t, rows[1].name[1]), "open");
  CHECK_EQ_INT(rows[1].start[1], 1000);
  CHECK_EQ_INT(rows[1].dur[1], 3000); /* ends at the trace end */
  CHECK(rows[1].flags[1] & ST_EV_UNFINISHED);
  st_trace_destroy(t);
}

static void test_ordering(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p9 = st_builder_process(b, 9);
  uint32_t p3 = st_builder_process(b, 3);
  uint32_t p5 = st_builder_process(b, 5);
  CHECK_EQ_INT(st_builder_process(b, 3), p3); /* find, not create */
  st_builder_process_sort(b, p9, -1);
  st_builder_process_name(b, p5, S(b, "five"));
  /* tracks of p3: sort index first, then kind, then key */
  uint32_t a = st_builder_track(b, p3, ST_TRACK_SLICES, 20, 0);
  uint32_t c = st_builder_track(b, p3, ST_TRACK_COUNTER, 1, S(b, "mem"));
  uint32_t d = st_builder_track(b, p3, ST_TRACK_SLICES, 10, 0);
  uint32_t e = st_builder_track(b, p3, ST_TRACK_ASYNC, 0, 0);
  uint32_t f = st_builder_track(b, p3, ST_TRACK_SLICES, 99, 0);
  CHECK_EQ_INT(st_builder_track(b, p3, ST_TRACK_SLICES, 20, 0), a);
  CHECK(st_builder_track(b, p3, ST_TRACK_ASYNC, 20, 0) != a);
  st_builder_track_sort(b, f, -5);
  st_builder_track_name(b, d, S(b, "ten"));
  uint32_t g = st_builder_track(b, p9, ST_TRACK_SLICES, 1, 0);
  uint32_t h = st_builder_track(b, p5, ST_TRACK_SLICES, 1, 0);
  (void)c;
  (void)e;
  st_builder_slice(b, g, 0, 1, 0, 0, 0, 0);
  st_builder_slice(b, h, 0, 1, 0, 0, 0, 0);
  st_trace *t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  if (!t) return;
  uint32_t np, nt;
  const st_process *ps = st_trace_processes(t, &np);
  const st_track *tr = st_trace_tracks(t, &nt);
  CHECK_EQ_INT(np, 3);
  CHECK_EQ_INT(ps[0].pid, 9);
  CHECK_EQ_INT(ps[1].pid, 3);
  CHECK_EQ_INT(ps[2].pid, 5);
  CHECK_EQ_STR(name_of(t, ps[2].name), "five");
  CHECK_EQ_INT(nt, 8);
  CHECK_EQ_INT(ps[1].first_track, 1);
  CHECK_EQ_INT(ps[1].track_count, 6);
  const st_track *q = &tr[ps[1].first_track];
  CHECK_EQ_INT(q[0].key, 99);
  CHECK_EQ_INT(q[1].key, 10);
  CHECK_EQ_STR(name_of(t, q[1].name), "ten");
  CHECK_EQ_INT(q[2].key, 20);
  CHECK_EQ_INT(q[2].kind, ST_TRACK_SLICES);
  CHECK_EQ_INT(q[3].kind, ST_TRACK_ASYNC);
  CHECK_EQ_INT(q[3].key, 0);
  CHECK_EQ_INT(q[4].kind, ST_TRACK_ASYNC);
  CHECK_EQ_INT(q[4].key, 20);
  CHECK_EQ_INT(q[5].kind, ST_TRACK_COUNTER);
  for (uint32_t i = 0; i < nt; i++) CHECK(tr[i].process < np);
  CHECK_EQ_INT(ps[2].first_track, 7);
  st_trace_destroy(t);
}

static void test_counters(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t c = st_builder_track(b, p, ST_TRACK_COUNTER, 0, S(b, "Memory usage (GB)"));
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  CHECK_EQ_INT(st_builder_counter(b, c, 300, 2.5), ST_OK);
  CHECK_EQ_INT(st_builder_counter(b, c, 100, 1.0), ST_OK);
  CHECK_EQ_INT(st_builder_counter(b, c, 200, -4.0), ST_OK);
  CHECK_EQ_INT(st_builder_counter(b, c, 200, 7.0), ST_OK); /* same ts: insertion order kept */
  CHECK_EQ_INT(st_builder_counter(b, th, 1, 1.0), ST_ERR_ARG);
  CHECK_EQ_INT(st_builder_slice(b, c, 1, 1, 0, 0, 0, 0), ST_ERR_ARG);
  st_builder_slice(b, th, 150, 500, 0, 0, 0, 0);
  st_trace *t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(st_trace_origin_ns(t), 100); /* counters count for the origin */
  CHECK_EQ_INT(st_trace_duration_ns(t), 550);
  CHECK_EQ_INT(st_trace_event_count(t), 5);
  uint32_t nc;
  const st_counter *cs = st_trace_counters(t, &nc);
  CHECK_EQ_INT(nc, 1);
  CHECK_EQ_INT(cs[0].count, 4);
  CHECK_EQ_INT(cs[0].ts[0], 0);
  CHECK_EQ_INT(cs[0].ts[1], 100);
  CHECK(cs[0].value[1] == -4.0);
  CHECK(cs[0].value[2] == 7.0);
  CHECK_EQ_INT(cs[0].ts[3], 200);
  CHECK(cs[0].min == -4.0);
  CHECK(cs[0].max == 7.0);
  const st_track *tr = st_trace_tracks(t, NULL);
  CHECK_EQ_INT(tr[cs[0].track].kind, ST_TRACK_COUNTER);
  CHECK_EQ_INT(tr[cs[0].track].counter, 0);
  CHECK_EQ_INT(tr[cs[0].track].row_count, 0);
  st_trace_destroy(t);
}

static void test_lanes(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t as = st_builder_track(b, p, ST_TRACK_ASYNC, 0, 0);
  uint32_t in = st_builder_track(b, p, ST_TRACK_INSTANTS, 0, 0);
  st_builder_slice(b, as, 0, 100, 0, 0, 0, 0);  /* lane 0 */
  st_builder_slice(b, as, 50, 100, 0, 0, 1, 0); /* lane 1 */
  st_builder_slice(b, as, 100, 10, 0, 0, 2, 0); /* lane 0 again (free at 100) */
  st_builder_slice(b, as, 120, 10, 0, 0, 3, 0); /* lane 0 */
  st_builder_slice(b, as, 160, 10, 0, 0, 4, 0); /* lane 0 */
  st_builder_slice(b, in, 10, 0, 0, 0, 5, ST_EV_INSTANT);
  st_builder_slice(b, in, 20, 0, 0, 0, 6, ST_EV_INSTANT);
  st_builder_slice(b, in, 20, 0, 0, 0, 7, ST_EV_INSTANT); /* same ts: second lane */
  st_builder_slice(b, in, 30, 0, 0, 0, 8, ST_EV_INSTANT);
  st_trace *t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  if (!t) return;
  const st_track *tr = st_trace_tracks(t, NULL);
  const st_row *rows = st_trace_rows(t, NULL);
  CHECK_EQ_INT(tr[0].kind, ST_TRACK_ASYNC);
  CHECK_EQ_INT(tr[0].row_count, 2);
  CHECK_EQ_INT(rows[0].count, 4);
  CHECK_EQ_INT(rows[1].count, 1);
  CHECK_EQ_INT(rows[1].src[0], 1);
  CHECK_EQ_INT(tr[1].kind, ST_TRACK_INSTANTS);
  CHECK_EQ_INT(tr[1].row_count, 2);
  CHECK_EQ_INT(rows[2].count, 3);
  CHECK_EQ_INT(rows[3].count, 1);
  CHECK_EQ_INT(check_rows(t), 9);
  st_trace_destroy(t);
}

static void test_empty(void) {
  st_builder *b = st_builder_create(NULL);
  st_error err;
  st_trace *t = st_builder_finish(b, &err);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(err.code, ST_OK);
  uint32_t n = 99;
  CHECK(st_trace_processes(t, &n) == NULL || n == 0);
  CHECK_EQ_INT(n, 0);
  st_trace_rows(t, &n);
  CHECK_EQ_INT(n, 0);
  CHECK_EQ_INT(st_trace_event_count(t), 0);
  CHECK_EQ_INT(st_trace_duration_ns(t), 0);
  st_trace_destroy(t);
  /* a process with an empty track */
  b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  uint32_t nt;
  const st_track *tr = st_trace_tracks(t, &nt);
  CHECK_EQ_INT(nt, 1);
  if (nt) CHECK_EQ_INT(tr[0].row_count, 0);
  st_trace_destroy(t);
  st_builder_destroy(st_builder_create(NULL)); /* destroy without finish */
}

/* Random tracks: every event survives, rows valid, and in base slice rows
 * each event at depth d > 0 lies within an event at depth d - 1. */
static void test_random(void) {
  srand(7);
  for (int round = 0; round < 20; round++) {
    st_builder *b = st_builder_create(NULL);
    uint32_t p = st_builder_process(b, round);
    int n = 0;
    for (int k = 0; k < 4; k++) {
      uint32_t tr = st_builder_track(b, p, (st_track_kind)(k % 3), k, 0);
      int m = rand() % 500;
      for (int i = 0; i < m; i++) {
        int64_t s = rand() % 10000 - 5000;
        int64_t d = rand() % 4 == 0 ? 0 : rand() % 3000;
        uint8_t fl = rand() % 50 == 0 ? ST_EV_UNFINISHED : 0;
        CHECK_EQ_INT(st_builder_slice(b, tr, s, d, (uint32_t)(rand() % 5), 0, (uint64_t)i, fl),
                     ST_OK);
        n++;
      }
    }
    st_trace *t = st_builder_finish(b, NULL);
    CHECK(t != NULL);
    if (!t) continue;
    CHECK_EQ_INT(check_rows(t), n);
    CHECK_EQ_INT(st_trace_event_count(t), n);
    uint32_t nt;
    const st_track *tracks = st_trace_tracks(t, &nt);
    const st_row *rows = st_trace_rows(t, NULL);
    for (uint32_t k = 0; k < nt; k++) {
      if (tracks[k].kind != ST_TRACK_SLICES || tracks[k].overflow) continue;
      for (uint32_t d = 1; d < tracks[k].row_count; d++) {
        const st_row *r = &rows[tracks[k].first_row + d], *up = r - 1;
        uint32_t j = 0;
        for (uint32_t i = 0; i < r->count; i++) {
          while (j < up->count && up->start[j] + up->dur[j] < r->start[i] + r->dur[i]) j++;
          CHECK(j < up->count && up->start[j] <= r->start[i]);
        }
      }
      CHECK(tracks[k].row_count <= 600);
    }
    st_trace_destroy(t);
  }
}

/* End events of B/E slices (st_builder_end_src / st_trace_end_src): sorted
 * by src whatever the call order, the last call for a src wins, lookups by
 * (row, index) need ST_EV_HAS_END, bad refs give UINT64_MAX, and the table
 * is counted in st_trace_bytes (nothing without pairs). */
static st_trace *end_trace(int with_pairs) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  CHECK_EQ_INT(st_builder_slice(b, th, 0, 100, S(b, "outer"), 0, 100, ST_EV_HAS_END), ST_OK);
  CHECK_EQ_INT(st_builder_slice(b, th, 10, 20, S(b, "inner"), 0, 200, ST_EV_HAS_END), ST_OK);
  CHECK_EQ_INT(st_builder_slice(b, th, 40, 20, S(b, "x"), 0, 300, 0), ST_OK);
  CHECK_EQ_INT(st_builder_slice(b, th, 70, 5, S(b, "noend"), 0, 400, ST_EV_HAS_END), ST_OK);
  if (with_pairs) { /* in closing order: inner first */
    CHECK_EQ_INT(st_builder_end_src(b, 200, 250), ST_OK);
    CHECK_EQ_INT(st_builder_end_src(b, 100, 900), ST_OK);
    CHECK_EQ_INT(st_builder_end_src(b, 200, 260), ST_OK); /* the last wins */
    CHECK_EQ_INT(st_builder_end_src(b, 300, 350), ST_OK); /* x has no ST_EV_HAS_END */
  }
  CHECK_EQ_INT(st_builder_end_src(b, UINT64_MAX, 1), ST_ERR_ARG);
  CHECK_EQ_INT(st_builder_end_src(b, 1, UINT64_MAX), ST_ERR_ARG);
  st_trace *t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  return t;
}

static void test_end_srcs(void) {
  CHECK_EQ_INT(st_builder_end_src(NULL, 1, 2), ST_ERR_ARG);
  st_trace *t = end_trace(1), *plain = end_trace(0);
  if (!t || !plain) return;
  size_t n = 99;
  const st_end_src *e = st_trace_end_srcs(t, &n);
  CHECK_EQ_INT(n, 3);
  if (e && n == 3) {
    CHECK(e[0].src == 100 && e[0].end_src == 900);
    CHECK(e[1].src == 200 && e[1].end_src == 260);
    CHECK(e[2].src == 300 && e[2].end_src == 350);
  }
  CHECK_EQ_INT(st_trace_end_src_of(t, 200), 260);
  CHECK(st_trace_end_src_of(t, 250) == UINT64_MAX); /* an end is no slice */
  CHECK(st_trace_end_src_of(t, 0) == UINT64_MAX);
  CHECK(st_trace_end_src_of(t, 1000) == UINT64_MAX);
  CHECK(st_trace_end_src_of(NULL, 100) == UINT64_MAX);
  uint32_t nrows;
  const st_row *rows = st_trace_rows(t, &nrows);
  int seen = 0;
  for (uint32_t r = 0; r < nrows; r++)
    for (uint32_t i = 0; i < rows[r].count; i++) {
      const char *nm = name_of(t, rows[r].name[i]);
      uint64_t end = st_trace_end_src(t, r, i);
      uint64_t want = !strcmp(nm, "outer")   ? 900
                      : !strcmp(nm, "inner") ? 260
                                             : UINT64_MAX; /* x: no flag; noend: none recorded */
      CHECK(end == want);
      seen++;
    }
  CHECK_EQ_INT(seen, 4);
  CHECK(st_trace_end_src(t, nrows, 0) == UINT64_MAX);
  CHECK(st_trace_end_src(t, 0, 1000) == UINT64_MAX);
  CHECK(st_trace_end_src(NULL, 0, 0) == UINT64_MAX);
  /* without pairs: no table, the same bytes as before; with: 16 bytes a pair */
  st_trace_end_srcs(plain, &n);
  CHECK_EQ_INT(n, 0);
  CHECK(st_trace_end_srcs(plain, NULL) == NULL);
  CHECK(st_trace_end_src(plain, 0, 0) == UINT64_MAX);
  CHECK_EQ_INT(st_trace_bytes(t) - st_trace_bytes(plain), 3 * sizeof(st_end_src));
  CHECK_EQ_INT(sizeof(st_end_src), 16);
  st_trace_destroy(t);
  st_trace_destroy(plain);
}

/* Many pairs in random order on several tracks: every HAS_END event finds
 * its own end (end = src * 7 + 1). */
static void test_end_srcs_random(void) {
  srand(11);
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint64_t src = 0;
  int pairs = 0;
  for (int k = 0; k < 3; k++) {
    uint32_t tr = st_builder_track(b, p, (st_track_kind)(k % 2), k, 0);
    for (int i = 0; i < 3000; i++) {
      uint8_t fl = rand() % 3 ? ST_EV_HAS_END : 0;
      src += 1 + (uint64_t)(rand() % 50);
      CHECK_EQ_INT(st_builder_slice(b, tr, rand() % 100000, rand() % 500, 0, 0, src, fl), ST_OK);
      if (fl) {
        CHECK_EQ_INT(st_builder_end_src(b, src, src * 7 + 1), ST_OK);
        pairs++;
      }
    }
  }
  st_trace *t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  if (!t) return;
  size_t n;
  const st_end_src *e = st_trace_end_srcs(t, &n);
  CHECK_EQ_INT(n, pairs);
  for (size_t i = 1; i < n; i++) CHECK(e[i - 1].src < e[i].src);
  uint32_t nrows;
  const st_row *rows = st_trace_rows(t, &nrows);
  int found = 0;
  for (uint32_t r = 0; r < nrows; r++)
    for (uint32_t i = 0; i < rows[r].count; i++) {
      uint64_t end = st_trace_end_src(t, r, i);
      if (rows[r].flags[i] & ST_EV_HAS_END) {
        CHECK(end == rows[r].src[i] * 7 + 1);
        found++;
      } else {
        CHECK(end == UINT64_MAX);
      }
    }
  CHECK_EQ_INT(found, pairs);
  st_trace_destroy(t);
}

/* Allocation failure at every step: finish returns NULL (or the builder
 * call fails) and nothing leaks (checked under ASan). */
typedef struct budget {
  int left;
} budget;
static void *limited(void *ud, void *ptr, size_t size) {
  budget *bu = ud;
  if (size == 0) {
    free(ptr);
    return NULL;
  }
  if (bu->left-- <= 0) return NULL;
  return realloc(ptr, size);
}

static void test_alloc_failure(void) {
  int succeeded = 0;
  for (int limit = 0; limit < 120 && !succeeded; limit++) {
    budget bu = {limit};
    st_alloc a = {limited, &bu};
    st_builder *b = st_builder_create(&a);
    if (!b) continue;
    int ok = 1;
    uint32_t p = st_builder_process(b, 1);
    uint32_t th = p == UINT32_MAX ? UINT32_MAX : st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
    uint32_t c = p == UINT32_MAX ? UINT32_MAX : st_builder_track(b, p, ST_TRACK_COUNTER, 2, 0);
    for (int i = 0; i < 40 && ok; i++) {
      uint8_t fl = i % 2 ? ST_EV_HAS_END : 0;
      if (st_builder_slice(b, th, i * 10, 15, 0, 0, (uint64_t)i, fl) != ST_OK) ok = 0;
      if (fl && ok && st_builder_end_src(b, (uint64_t)i, (uint64_t)i + 1000) != ST_OK) ok = 0;
      if (st_builder_counter(b, c, i, i) != ST_OK) ok = 0;
    }
    st_error err;
    st_trace *t = st_builder_finish(b, &err);
    if (t) {
      succeeded = ok;
      st_trace_destroy(t);
    } else {
      CHECK_EQ_INT(err.code, ST_ERR_NOMEM);
    }
  }
  CHECK(succeeded);
}

int main(void) {
  RUN(test_nesting);
  RUN(test_overlap_spill);
  RUN(test_staircase);
  RUN(test_unfinished);
  RUN(test_ordering);
  RUN(test_counters);
  RUN(test_lanes);
  RUN(test_empty);
  RUN(test_random);
  RUN(test_end_srcs);
  RUN(test_end_srcs_random);
  RUN(test_alloc_failure);
  return check_report();
}
