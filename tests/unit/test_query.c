/* test_query.c: whole-trace search (counts, case folding, next / previous in
 * time order with ties and wrap, rank, per-range counts), self time and
 * aggregation by name (numbers checked by hand and against brute force on a
 * random nested trace), duration formatting, and the selection set. */
#include "check.h"
#include "query.h"
#include "select.h"

#include <stdlib.h>

static uint32_t S(st_builder *b, const char *s) {
  return st_strtab_intern(st_builder_strings(b), s, strlen(s));
}

/* P10/T1: A [0, 9000) "Fusion.1" > B [1000, 2000) "copy" > C [1100, 1200) "fusion.2";
 *         A > D [4000, 6000) "copy"; E [11000, 11500) "FUSION.3"
 * P20/T2: F [500, 800) "other", G [4000, 4100) "fusion.4"
 * P20/T3: H [4000, 4050) "fusion.5" (same start as G and D)
 * (times after rebasing: the first event starts at 1000 in absolute ns) */
static st_trace *small(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p1 = st_builder_process(b, 10), p2 = st_builder_process(b, 20);
  st_builder_process_name(b, p1, S(b, "host"));
  uint32_t t1 = st_builder_track(b, p1, ST_TRACK_SLICES, 1, S(b, "main"));
  uint32_t t2 = st_builder_track(b, p2, ST_TRACK_SLICES, 2, 0);
  uint32_t t3 = st_builder_track(b, p2, ST_TRACK_SLICES, 3, 0);
  uint32_t cat = S(b, "xla");
  st_builder_slice(b, t1, 1000, 9000, S(b, "Fusion.1"), cat, 111, 0);
  st_builder_slice(b, t1, 2000, 1000, S(b, "copy"), cat, 222, 0);
  st_builder_slice(b, t1, 2100, 100, S(b, "fusion.2"), cat, 333, 0);
  st_builder_slice(b, t1, 5000, 2000, S(b, "copy"), cat, 444, 0);
  st_builder_slice(b, t1, 12000, 500, S(b, "FUSION.3"), cat, 555, 0);
  st_builder_slice(b, t2, 1500, 300, S(b, "other"), 0, 0, 0);
  st_builder_slice(b, t2, 5000, 100, S(b, "fusion.4"), 0, 0, 0);
  st_builder_slice(b, t3, 5000, 50, S(b, "fusion.5"), 0, 0, 0);
  S(b, "fusion.unused"); /* a matching name no event carries */
  return st_builder_finish(b, NULL);
}

/* The ref of the event called name (first found). */
static st_event_ref find(const st_trace *t, const char *name) {
  uint32_t nr;
  const st_row *rows = st_trace_rows(t, &nr);
  const st_strtab *s = st_trace_strings(t);
  for (uint32_t r = 0; r < nr; r++)
    for (uint32_t i = 0; i < rows[r].count; i++)
      if (!strcmp(st_strtab_get(s, rows[r].name[i], NULL), name)) return (st_event_ref){r, i};
  return ST_REF_NONE;
}

static const char *name_of(const st_trace *t, st_event_ref r) {
  if (!st_ref_valid(t, r)) return "(none)";
  return st_strtab_get(st_trace_strings(t), st_trace_rows(t, NULL)[r.row].name[r.index], NULL);
}

static void test_search_small(void) {
  st_trace *t = small();
  st_find *f = st_find_create(NULL, t);
  CHECK(f && !st_find_active(f) && st_find_count(f) == 0);
  CHECK(st_find_set(f, "fUsIoN", 6) == ST_OK);
  CHECK(st_find_active(f));
  CHECK_EQ_STR(st_find_text(f), "fUsIoN");
  CHECK_EQ_INT(st_find_count(f), 5);
  CHECK_EQ_INT(st_find_name_count(f), 6); /* incl. the unused one */
  st_event_ref A = find(t, "Fusion.1"), B = find(t, "copy"), C = find(t, "fusion.2"),
               E = find(t, "FUSION.3"), G = find(t, "fusion.4"), H = find(t, "fusion.5");
  CHECK(st_find_is_match(f, A.row, A.index) && !st_find_is_match(f, B.row, B.index));
  /* time order: A(0) C(1100) G(4000, row of T2) H(4000, row of T3) E(11000) */
  const st_event_ref order[] = {A, C, G, H, E};
  CHECK(G.row < H.row);
  st_event_ref cur = ST_REF_NONE, next;
  for (int k = 0; k < 5; k++) {
    CHECK(st_find_step(f, cur, +1, 0, &next));
    CHECK_EQ_STR(name_of(t, next), name_of(t, order[k]));
    CHECK_EQ_INT(st_find_rank(f, next), k);
    cur = next;
  }
  CHECK(!st_find_step(f, cur, +1, 0, &next)); /* end without wrap */
  CHECK(st_find_step(f, cur, +1, 1, &next));  /* wraps to the first */
  CHECK_EQ_STR(name_of(t, next), "Fusion.1");
  cur = ST_REF_NONE;
  for (int k = 4; k >= 0; k--) {
    CHECK(st_find_step(f, cur, -1, 0, &next));
    CHECK_EQ_STR(name_of(t, next), name_of(t, order[k]));
    cur = next;
  }
  CHECK(st_find_step(f, cur, -1, 1, &next));
  CHECK_EQ_STR(name_of(t, next), "FUSION.3");
  /* stepping from a non-matching event: the next match after its time */
  CHECK(st_find_step(f, B, +1, 0, &next));
  CHECK_EQ_STR(name_of(t, next), "fusion.2");
  CHECK(st_find_step(f, B, -1, 0, &next));
  CHECK_EQ_STR(name_of(t, next), "Fusion.1");
  /* per-range counts */
  CHECK_EQ_INT(st_find_count_in(f, A.row, 0, 2), 2);
  CHECK_EQ_INT(st_find_count_in(f, B.row, 0, 2), 0);
  CHECK_EQ_INT(st_find_count_in(f, A.row, 1, 99), 1);
  /* no match, empty query, exact case-insensitive whole name */
  CHECK(st_find_set(f, "zzz", 3) == ST_OK && st_find_active(f) && st_find_count(f) == 0);
  CHECK(!st_find_step(f, ST_REF_NONE, 1, 1, &next));
  CHECK(st_find_set(f, "COPY", 4) == ST_OK);
  CHECK_EQ_INT(st_find_count(f), 2);
  CHECK(st_find_set(f, "", 0) == ST_OK && !st_find_active(f) && st_find_count(f) == 0);
  CHECK(st_find_set(f, "other", 5) == ST_OK && st_find_count(f) == 1);
  (void)G;
  (void)H;
  st_find_destroy(f);
  st_trace_destroy(t);
}

static void test_self_and_details(void) {
  st_trace *t = small();
  st_event_ref A = find(t, "Fusion.1"), B = find(t, "copy"), C = find(t, "fusion.2");
  CHECK_EQ_INT(st_event_self_ns(t, A.row, A.index), 9000 - 1000 - 2000);
  CHECK_EQ_INT(st_event_self_ns(t, B.row, B.index), 900);
  CHECK_EQ_INT(st_event_self_ns(t, C.row, C.index), 100);
  st_event_info in;
  CHECK(st_event_get(t, A, &in));
  CHECK_EQ_INT(in.start_ns, 0);
  CHECK_EQ_INT(in.dur_ns, 9000);
  CHECK_EQ_INT(in.self_ns, 6000);
  CHECK_EQ_INT(in.pid, 10);
  CHECK_EQ_INT(in.tid, 1);
  CHECK_EQ_INT(in.src, 111);
  CHECK_EQ_STR(st_strtab_get(st_trace_strings(t), in.process_name, NULL), "host");
  CHECK_EQ_STR(st_strtab_get(st_trace_strings(t), in.thread_name, NULL), "main");
  CHECK_EQ_STR(st_strtab_get(st_trace_strings(t), in.cat, NULL), "xla");
  CHECK(!st_event_get(t, ST_REF_NONE, &in));
  CHECK(!st_event_get(t, (st_event_ref){0, 99}, &in));
  st_trace_destroy(t);
}

static void test_aggregate_small(void) {
  st_trace *t = small();
  st_agg *g = st_agg_create(NULL, t);
  CHECK(st_agg_add_window(g, 0, 100000) == ST_OK);
  CHECK_EQ_INT(st_agg_events(g), 8);
  st_agg_sort(g, ST_AGG_TOTAL, 1);
  uint32_t n;
  const st_agg_row *rows = st_agg_rows(g, &n);
  CHECK_EQ_INT(n, 7);
  const st_strtab *s = st_trace_strings(t);
  CHECK_EQ_STR(st_strtab_get(s, rows[0].name, NULL), "Fusion.1");
  CHECK_EQ_STR(st_strtab_get(s, rows[1].name, NULL), "copy");
  CHECK_EQ_INT(rows[1].count, 2);
  CHECK_EQ_INT(rows[1].total_ns, 3000);
  CHECK_EQ_INT(rows[1].self_ns, 900 + 2000);
  CHECK_EQ_INT(rows[1].min_ns, 1000);
  CHECK_EQ_INT(rows[1].max_ns, 2000);
  CHECK(rows[1].avg_ns == 1500);
  CHECK_EQ_INT(rows[0].self_ns, 6000);
  for (uint32_t i = 1; i < n; i++) CHECK(rows[i - 1].total_ns >= rows[i].total_ns);
  /* every column, both directions */
  for (int col = ST_AGG_NAME; col <= ST_AGG_MAX; col++) {
    for (int desc = 0; desc < 2; desc++) {
      st_agg_sort(g, (st_agg_col)col, desc);
      rows = st_agg_rows(g, &n);
      for (uint32_t i = 1; i < n; i++) {
        const st_agg_row *a = &rows[i - 1], *b = &rows[i];
        int k = 0;
        switch (col) {
        case ST_AGG_NAME:
          k = strcmp(st_strtab_get(s, a->name, 0), st_strtab_get(s, b->name, 0));
          break;
        case ST_AGG_COUNT: k = (a->count > b->count) - (a->count < b->count); break;
        case ST_AGG_TOTAL: k = (a->total_ns > b->total_ns) - (a->total_ns < b->total_ns); break;
        case ST_AGG_SELF: k = (a->self_ns > b->self_ns) - (a->self_ns < b->self_ns); break;
        case ST_AGG_AVG: k = (a->avg_ns > b->avg_ns) - (a->avg_ns < b->avg_ns); break;
        case ST_AGG_MIN: k = (a->min_ns > b->min_ns) - (a->min_ns < b->min_ns); break;
        case ST_AGG_MAX: k = (a->max_ns > b->max_ns) - (a->max_ns < b->max_ns); break;
        }
        CHECK(desc ? k >= 0 : k <= 0);
      }
    }
  }
  /* a window: events intersecting [1050, 1150) are A, B, C */
  st_agg_reset(g);
  CHECK(st_agg_add_window(g, 1050, 1150) == ST_OK);
  CHECK_EQ_INT(st_agg_events(g), 3);
  /* a range of one row */
  st_agg_reset(g);
  st_event_ref B = find(t, "copy");
  CHECK(st_agg_add(g, B.row, 0, 2) == ST_OK);
  rows = st_agg_rows(g, &n);
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(rows[0].self_ns, 2900);
  CHECK(st_agg_add(g, 999, 0, 1) == ST_ERR_ARG);
  st_agg_destroy(g);
  st_trace_destroy(t);
}

/* ---- random nested trace vs brute force --------------------------------- */

typedef struct bref {
  int64_t start;
  uint32_t row, index;
} bref;

static int cmp_bref(const void *a, const void *b) {
  const bref *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->row != y->row) return x->row < y->row ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static st_trace *random_trace(unsigned seed) {
  srand(seed);
  st_builder *b = st_builder_create(NULL);
  const char *names[] = {"alpha", "Beta", "gamma", "ALPHABET", "delta", "betamax"};
  uint32_t ids[6];
  for (int i = 0; i < 6; i++) ids[i] = S(b, names[i]);
  for (int p = 0; p < 3; p++) {
    uint32_t pi = st_builder_process(b, p + 1);
    for (int th = 0; th < 3; th++) {
      uint32_t tr = st_builder_track(b, pi, ST_TRACK_SLICES, th, 0);
      int64_t t = rand() % 50;
      for (int k = 0; k < 120; k++) {
        int64_t d = 50 + rand() % 500;
        st_builder_slice(b, tr, t, d, ids[rand() % 6], 0, 0, 0);
        /* nested children */
        int64_t c = t;
        while (c < t + d) {
          int64_t cd = rand() % 100;
          if (c + cd > t + d) break;
          if (rand() % 2) st_builder_slice(b, tr, c, cd, ids[rand() % 6], 0, 0, 0);
          c += cd + rand() % 20;
        }
        t += d + rand() % 30 - (rand() % 4 == 0 ? 0 : 0);
      }
    }
    /* instants share starts */
    uint32_t it = st_builder_track(b, pi, ST_TRACK_INSTANTS, 0, 0);
    for (int k = 0; k < 40; k++)
      st_builder_slice(b, it, (k / 2) * 97, 0, ids[rand() % 6], 0, 0, ST_EV_INSTANT);
  }
  return st_builder_finish(b, NULL);
}

static void test_search_vs_brute(void) {
  for (unsigned seed = 1; seed <= 4; seed++) {
    st_trace *t = random_trace(seed);
    st_find *f = st_find_create(NULL, t);
    const char *qs[] = {"alpha", "BETA", "a", "max", "e"};
    uint32_t nr;
    const st_row *rows = st_trace_rows(t, &nr);
    const st_strtab *s = st_trace_strings(t);
    uint64_t total = 0;
    for (uint32_t r = 0; r < nr; r++) total += rows[r].count;
    bref *all = malloc(total * sizeof *all);
    for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++) {
      CHECK(st_find_set(f, qs[q], strlen(qs[q])) == ST_OK);
      size_t m = 0;
      for (uint32_t r = 0; r < nr; r++) {
        for (uint32_t i = 0; i < rows[r].count; i++) {
          const char *nm = st_strtab_get(s, rows[r].name[i], NULL);
          char low[32];
          size_t k = 0;
          for (; nm[k] && k < 31; k++)
            low[k] = (char)(nm[k] >= 'A' && nm[k] <= 'Z' ? nm[k] + 32 : nm[k]);
          low[k] = 0;
          char ql[16];
          for (k = 0; qs[q][k]; k++)
            ql[k] = (char)(qs[q][k] >= 'A' && qs[q][k] <= 'Z' ? qs[q][k] + 32 : qs[q][k]);
          ql[k] = 0;
          int hit = strstr(low, ql) != NULL;
          CHECK_EQ_INT(st_find_is_match(f, r, i), hit);
          if (hit) all[m++] = (bref){rows[r].start[i], r, i};
        }
        uint32_t a = rows[r].count / 3, b2 = rows[r].count - rows[r].count / 4;
        uint64_t bc = 0;
        for (uint32_t i = a; i < b2; i++) bc += st_find_is_match(f, r, i);
        CHECK_EQ_INT(st_find_count_in(f, r, a, b2), bc);
      }
      CHECK_EQ_INT(st_find_count(f), m);
      qsort(all, m, sizeof *all, cmp_bref);
      st_event_ref cur = ST_REF_NONE, next;
      int bad = 0;
      for (size_t k = 0; k < m && !bad; k++) {
        if (!st_find_step(f, cur, 1, 0, &next) || next.row != all[k].row ||
            next.index != all[k].index)
          bad = 1;
        else if (st_find_rank(f, next) != k)
          bad = 2;
        cur = next;
      }
      CHECK_EQ_INT(bad, 0);
      cur = ST_REF_NONE;
      for (size_t k = m; k-- > 0 && !bad;) {
        if (!st_find_step(f, cur, -1, 0, &next) || next.row != all[k].row ||
            next.index != all[k].index)
          bad = 3;
        cur = next;
      }
      CHECK_EQ_INT(bad, 0);
    }
    /* self time vs brute force: overlap with every event one depth below in the same track */
    const st_track *tracks = st_trace_tracks(t, NULL);
    int bad = 0;
    for (uint32_t r = 0; r < nr && !bad; r++) {
      int has_child = r + 1 < nr && rows[r + 1].track == rows[r].track &&
                      rows[r + 1].depth == rows[r].depth + 1 &&
                      tracks[rows[r].track].kind == ST_TRACK_SLICES;
      for (uint32_t i = 0; i < rows[r].count; i++) {
        int64_t s0 = rows[r].start[i], e0 = s0 + rows[r].dur[i], cov = 0;
        if (has_child)
          for (uint32_t j = 0; j < rows[r + 1].count; j++) {
            int64_t a = rows[r + 1].start[j], b2 = a + rows[r + 1].dur[j];
            if (a < s0) a = s0;
            if (b2 > e0) b2 = e0;
            if (b2 > a) cov += b2 - a;
          }
        if (st_event_self_ns(t, r, i) != rows[r].dur[i] - cov) bad = 1;
      }
    }
    CHECK_EQ_INT(bad, 0);
    free(all);
    st_find_destroy(f);
    st_trace_destroy(t);
  }
}

static void test_format_dur(void) {
  char b[32];
  st_format_dur(0, b, sizeof b);
  CHECK_EQ_STR(b, "0 ns");
  st_format_dur(812, b, sizeof b);
  CHECK_EQ_STR(b, "812 ns");
  st_format_dur(1234.6, b, sizeof b);
  CHECK_EQ_STR(b, "1.235 us");
  st_format_dur(12500000, b, sizeof b);
  CHECK_EQ_STR(b, "12.5 ms");
  st_format_dur(3.2e9, b, sizeof b);
  CHECK_EQ_STR(b, "3.2 s");
  st_format_dur(150e6, b, sizeof b);
  CHECK_EQ_STR(b, "150 ms");
}

static void test_selection_set(void) {
  st_selection *s = st_selection_create(NULL);
  CHECK(st_selection_add(s, 2, 10, 20) == ST_OK);
  CHECK(st_selection_add(s, 1, 5, 6) == ST_OK);
  CHECK(st_selection_add(s, 2, 20, 25) == ST_OK); /* adjacent: merged */
  uint32_t n;
  const st_sel_span *sp = st_selection_spans(s, &n);
  CHECK_EQ_INT(n, 2);
  CHECK(sp[0].row == 1 && sp[1].row == 2 && sp[1].lo == 10 && sp[1].hi == 25);
  CHECK_EQ_INT(st_selection_count(s), 16);
  CHECK(st_selection_contains(s, 2, 24) && !st_selection_contains(s, 2, 25));
  CHECK(st_selection_any_in(s, 2, 0, 11) && !st_selection_any_in(s, 2, 0, 10));
  CHECK(!st_selection_any_in(s, 3, 0, 100));
  CHECK(st_selection_remove(s, 2, 12, 14) == ST_OK); /* split */
  sp = st_selection_spans(s, &n);
  CHECK_EQ_INT(n, 3);
  CHECK_EQ_INT(st_selection_count(s), 14);
  CHECK(!st_selection_toggle(s, 2, 10)); /* removed */
  CHECK(st_selection_toggle(s, 2, 13));  /* added */
  CHECK_EQ_INT(st_selection_count(s), 14);
  CHECK(st_selection_add(s, 2, 0, 100) == ST_OK); /* swallows all of row 2 */
  sp = st_selection_spans(s, &n);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_INT(st_selection_count(s), 101);
  CHECK(st_selection_remove(s, 2, 50, 200) == ST_OK);
  CHECK(st_selection_remove(s, 2, 0, 10) == ST_OK);
  CHECK_EQ_INT(st_selection_count(s), 41);
  /* random ops vs a bitmap */
  srand(7);
  st_selection_clear(s);
  static uint8_t bm[4][300];
  memset(bm, 0, sizeof bm);
  int bad = 0;
  for (int k = 0; k < 3000 && !bad; k++) {
    uint32_t r = (uint32_t)(rand() % 4), a = (uint32_t)(rand() % 300), w = (uint32_t)(rand() % 20);
    uint32_t b2 = a + w > 300 ? 300 : a + w;
    int op = rand() % 3;
    if (op == 0) st_selection_add(s, r, a, b2);
    if (op == 1) st_selection_remove(s, r, a, b2);
    if (op == 2) st_selection_toggle(s, r, a);
    for (uint32_t i = a; i < (op == 2 ? a + 1 : b2); i++)
      bm[r][i] = op == 0 ? 1 : op == 1 ? 0 : !bm[r][i];
    uint64_t cnt = 0;
    for (int rr = 0; rr < 4; rr++)
      for (int i = 0; i < 300; i++) {
        cnt += bm[rr][i];
        if (st_selection_contains(s, (uint32_t)rr, (uint32_t)i) != bm[rr][i]) bad = 1;
      }
    if (cnt != st_selection_count(s)) bad = 2;
    sp = st_selection_spans(s, &n);
    for (uint32_t i = 1; i < n; i++) /* sorted, disjoint, not adjacent */
      if (sp[i - 1].row > sp[i].row || (sp[i - 1].row == sp[i].row && sp[i - 1].hi >= sp[i].lo))
        bad = 3;
  }
  CHECK_EQ_INT(bad, 0);
  st_selection *c = st_selection_create(NULL);
  CHECK(st_selection_copy(c, s) == ST_OK && st_selection_count(c) == st_selection_count(s));
  st_selection_destroy(c);
  st_selection_destroy(s);
}

/* Hostile durations (a damaged or crafted file: two threads' slices of
 * ~2^62 ns each): the totals saturate at INT64_MAX instead of wrapping negative
 * (the fuzzer's analysis of such a file overflowed here). */
static void test_aggregate_saturates(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t t1 = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  uint32_t t2 = st_builder_track(b, p, ST_TRACK_SLICES, 2, 0);
  uint32_t name = S(b, "huge");
  const int64_t big = INT64_MAX / 2 + 1000; /* one row's events never sum past its span: two rows */
  st_builder_slice(b, t1, 0, big, name, 0, 1, 0);
  st_builder_slice(b, t2, 0, big, name, 0, 2, 0);
  st_trace *t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  st_agg *g = st_agg_create(NULL, t);
  uint32_t nr;
  st_trace_rows(t, &nr);
  for (uint32_t r = 0; r < nr; r++) CHECK(st_agg_add(g, r, 0, UINT32_MAX) == ST_OK);
  uint32_t n;
  const st_agg_row *rows = st_agg_rows(g, &n);
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(rows[0].count, 2);
  CHECK(rows[0].total_ns == INT64_MAX);
  CHECK(rows[0].self_ns == INT64_MAX);
  st_agg_destroy(g);
  st_trace_destroy(t);
}

int main(void) {
  RUN(test_search_small);
  RUN(test_self_and_details);
  RUN(test_aggregate_small);
  RUN(test_aggregate_saturates);
  RUN(test_search_vs_brute);
  RUN(test_format_dur);
  RUN(test_selection_set);
  return check_report();
}
