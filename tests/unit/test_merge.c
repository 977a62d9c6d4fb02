/* Merged traces (trace.h st_trace_merge): several files on one timeline.
 * Global rows (part k's row r = row_base + r), processes, tracks, counters
 * and flows renumbered; offsets applied to the shared columns and
 * normalised; the layout's file groups; hit testing and drawing across two
 * traces with exact rects; the lod following a moved part; search across
 * parts; refusals. */
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "hit.h"
#include "lod.h"
#include "query.h"
#include "trace.h"
#include "view.h"

static uint32_t S(st_strtab *t, const char *s) { return st_strtab_intern(t, s, strlen(s)); }

/* Trace A: process 1 "hostA", one thread: step [t0, t0+1000), op inside it
 * [t0+100, t0+400) with a flow step -> op. Trace B: process 7 "hostB": its
 * own step and op, and a thread of 100 ops (a row with a time index). Times
 * absolute from t0. */
static st_trace *build(st_strtab *strs, int b_side, int64_t t0) {
  st_builder *b = st_builder_create_shared(NULL, strs);
  uint32_t p = st_builder_process(b, b_side ? 7 : 1);
  st_builder_process_name(b, p, S(strs, b_side ? "hostB" : "hostA"));
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, S(strs, "main"));
  st_builder_slice(b, th, t0, 1000, S(strs, "step"), 0, 10, 0);
  st_builder_slice(b, th, t0 + 100, 300, S(strs, b_side ? "op_b" : "op"), 0, 20, 0);
  st_builder_flow(b, 1, ST_FLOW_OUT, ST_FLOW_BIND_EVENT, th, t0, 10);
  st_builder_flow(b, 1, ST_FLOW_IN | ST_FLOW_END, ST_FLOW_BIND_EVENT, th, t0 + 100, 20);
  if (b_side) {
    uint32_t many = st_builder_track(b, p, ST_TRACK_SLICES, 2, S(strs, "many"));
    for (int i = 0; i < 100; i++)
      st_builder_slice(b, many, t0 + i * 10, 5, S(strs, "op"), 0, 100 + (uint64_t)i, 0);
    uint32_t c = st_builder_track(b, p, ST_TRACK_COUNTER, 0, S(strs, "mem"));
    st_builder_counter(b, c, t0, 1.0);
    st_builder_counter(b, c, t0 + 500, 2.0);
  }
  return st_builder_finish(b, NULL);
}

typedef struct fixture {
  st_strtab *strs;
  st_trace *a, *b, *m;
} fixture;

static void setup(fixture *f, const int64_t *offs) {
  f->strs = st_strtab_create(NULL);
  f->a = build(f->strs, 0, 5000000);
  f->b = build(f->strs, 1, 9000000);
  CHECK(f->a && f->b);
  st_trace *parts[2] = {f->a, f->b};
  uint32_t names[2] = {S(f->strs, "rank-0"), S(f->strs, "rank-1")};
  st_error err;
  f->m = st_trace_merge(NULL, parts, names, offs, 2, &err);
  CHECK(f->m != NULL);
}

static void teardown(fixture *f) {
  st_trace_destroy(f->m);
  st_trace_destroy(f->a);
  st_trace_destroy(f->b);
  st_strtab_destroy(f->strs);
}

static void test_global_numbering(void) {
  fixture f;
  int64_t offs[2] = {0, 500};
  setup(&f, offs);
  uint32_t np, nt, nr, nc, nf, na, nb;
  st_trace_processes(f.m, &np);
  st_trace_tracks(f.m, &nt);
  const st_row *rows = st_trace_rows(f.m, &nr);
  st_trace_counters(f.m, &nc);
  const st_flow *fl = st_trace_flows(f.m, &nf);
  st_trace_rows(f.a, &na);
  st_trace_rows(f.b, &nb);
  CHECK_EQ_INT(np, 2);
  CHECK_EQ_INT(nr, na + nb);
  CHECK_EQ_INT(nc, 1);
  CHECK_EQ_INT(nf, 2);
  CHECK_EQ_INT(st_trace_event_count(f.m), st_trace_event_count(f.a) + st_trace_event_count(f.b));
  uint32_t n;
  const st_trace_part *parts = st_trace_parts(f.m, &n);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_INT(parts[1].row_base, na);
  CHECK_EQ_INT(parts[1].process_base, 1);
  CHECK_EQ_INT(parts[1].offset_ns, 500);
  /* B's rows are the merged rows after A's, pointing at B's own columns */
  const st_row *rb = st_trace_rows(f.b, NULL);
  for (uint32_t r = 0; r < nb; r++) {
    CHECK(rows[na + r].start == rb[r].start);
    CHECK_EQ_INT(st_trace_part_of_row(f.m, na + r), 1);
  }
  CHECK_EQ_INT(st_trace_part_of_row(f.m, 0), 0);
  CHECK_EQ_INT(st_trace_part_of_row(f.m, nr), UINT32_MAX);
  CHECK_EQ_INT(st_trace_part_of_row(f.a, 0), UINT32_MAX); /* a plain trace */
  CHECK_EQ_INT(st_trace_part_of_process(f.m, 1), 1);
  /* B's step starts at its offset; its file time is unchanged */
  CHECK_EQ_INT(rows[na].start[0], 500);
  CHECK_EQ_INT(st_trace_row_origin_ns(f.m, na) + rows[na].start[0], 9000000);
  CHECK_EQ_INT(st_trace_row_origin_ns(f.m, 0) + rows[0].start[0], 5000000);
  CHECK_EQ_INT(st_trace_duration_ns(f.m), 500 + st_trace_duration_ns(f.b));
  /* tracks point at their merged process and rows; flows at merged rows */
  const st_track *ts = st_trace_tracks(f.m, NULL);
  CHECK_EQ_INT(ts[rows[na].track].process, 1);
  CHECK_EQ_INT(fl[1].from_row, na);
  CHECK_EQ_INT(fl[1].to_row, na + 1);
  const uint32_t *fin = st_trace_flows_in(f.m, NULL);
  CHECK_EQ_INT(fin[1], 1);
  /* names mean the same in every part: one search finds "op" in both */
  st_find *fd = st_find_create(NULL, f.m);
  CHECK(st_find_set(fd, "op", 2) == ST_OK);
  CHECK_EQ_INT(st_find_count(fd), 1 + 1 + 100); /* op, op_b, 100 x op */
  st_event_ref first;
  CHECK(st_find_step(fd, ST_REF_NONE, 1, 0, &first));
  CHECK_EQ_INT(first.row, 1); /* A's op at 100 comes first in scene time */
  st_find_destroy(fd);
  teardown(&f);
}

static void test_offsets_normalised(void) {
  fixture f;
  int64_t offs[2] = {-300, 200}; /* normalised: the earliest at 0 */
  setup(&f, offs);
  const st_trace_part *p = st_trace_parts(f.m, NULL);
  CHECK_EQ_INT(p[0].offset_ns, 0);
  CHECK_EQ_INT(p[1].offset_ns, 500);
  CHECK_EQ_INT(st_trace_shift_ns(f.b), 500);
  int64_t want[2] = {1000, 0}, deltas[2];
  CHECK(st_trace_merge_set_offsets(f.m, want, deltas) == ST_OK);
  CHECK_EQ_INT(p[0].offset_ns, 1000);
  CHECK_EQ_INT(p[1].offset_ns, 0);
  CHECK_EQ_INT(deltas[0], 1000);
  CHECK_EQ_INT(deltas[1], -500);
  CHECK_EQ_INT(st_trace_rows(f.m, NULL)[0].start[0], 1000);
  /* the file's own time never changes */
  CHECK_EQ_INT(st_trace_row_origin_ns(f.m, 0) + st_trace_rows(f.m, NULL)[0].start[0], 5000000);
  int64_t bad[2] = {INT64_MAX, 0};
  CHECK(st_trace_merge_set_offsets(f.m, bad, NULL) == ST_ERR_ARG);
  CHECK_EQ_INT(p[0].offset_ns, 1000);                               /* unchanged */
  CHECK(st_trace_merge_set_offsets(f.a, want, NULL) == ST_ERR_ARG); /* not merged */
  teardown(&f);
}

static void test_refusals(void) {
  st_strtab *s1 = st_strtab_create(NULL), *s2 = st_strtab_create(NULL);
  st_trace *a = build(s1, 0, 0), *b = build(s2, 1, 0);
  st_trace *parts[2] = {a, b};
  st_error err;
  CHECK(st_trace_merge(NULL, parts, NULL, NULL, 2, &err) == NULL);
  CHECK_EQ_INT(err.code, ST_ERR_ARG); /* two string tables */
  st_trace *same[2] = {a, a};
  CHECK(st_trace_merge(NULL, same, NULL, NULL, 2, &err) == NULL);
  CHECK(st_trace_merge(NULL, parts, NULL, NULL, 0, &err) == NULL);
  st_trace_destroy(a);
  st_trace_destroy(b);
  st_strtab_destroy(s1);
  st_strtab_destroy(s2);
}

static void test_layout_groups_and_hits(void) {
  fixture f;
  int64_t offs[2] = {0, 500};
  setup(&f, offs);
  st_layout *lay = st_layout_create(NULL, f.m);
  CHECK(lay != NULL);
  CHECK_EQ_INT(st_layout_group_count(lay), 2);
  uint32_t n;
  const st_layout_item *it = st_layout_items(lay, &n);
  /* group 0, section hostA, its 2 rows (step, op), group 1, section hostB, ... */
  CHECK_EQ_INT(it[0].kind, ST_LAYOUT_GROUP);
  CHECK_EQ_INT(it[0].row, 0);
  CHECK(it[0].y == 0 && it[0].h == ST_VIEW_GROUP_H);
  CHECK_EQ_INT(it[1].kind, ST_LAYOUT_SECTION);
  CHECK(it[1].y == ST_VIEW_GROUP_H);
  CHECK_EQ_INT(it[2].kind, ST_LAYOUT_ROW);
  CHECK_EQ_INT(it[4].kind, ST_LAYOUT_GROUP);
  CHECK_EQ_INT(it[4].row, 1);
  float g1y = ST_VIEW_GROUP_H + ST_VIEW_SECTION_H + 2 * ST_VIEW_ROW_H + ST_VIEW_TRACK_GAP;
  CHECK(it[4].y == g1y);
  uint32_t na;
  st_trace_rows(f.a, &na);
  CHECK_EQ_INT(st_layout_item_of_row(lay, na), 6); /* B's first row */
  st_view v = {0, 1.0, 1220, 600, 1, 0};           /* 1 ns per px from t = 0 */
  /* the header of file 1 */
  st_hit h = st_hit_test(f.m, lay, &v, 50, ST_VIEW_AXIS_H + g1y + 5, 3);
  CHECK_EQ_INT(h.kind, ST_HIT_GROUP);
  CHECK_EQ_INT(h.row, 1);
  /* B's step: scene [500, 1500) on the row below hostB's header */
  float yb = ST_VIEW_AXIS_H + it[6].y + 5;
  h = st_hit_test(f.m, lay, &v, ST_VIEW_GUTTER_W + 510, yb, 0);
  CHECK_EQ_INT(h.kind, ST_HIT_EVENT);
  CHECK_EQ_INT(h.row, na);
  CHECK_EQ_INT(h.index, 0);
  h = st_hit_test(f.m, lay, &v, ST_VIEW_GUTTER_W + 490, yb, 0); /* before it: nothing */
  CHECK_EQ_INT(h.kind, ST_HIT_ROW);
  /* collapsing file 0 hides its process; its rows map to the group */
  st_layout_set_group_collapsed(lay, 0, 1);
  it = st_layout_items(lay, &n);
  CHECK_EQ_INT(it[1].kind, ST_LAYOUT_GROUP);
  CHECK(it[1].y == ST_VIEW_GROUP_H);
  CHECK_EQ_INT(st_layout_item_of_row(lay, 0), 0);
  CHECK_EQ_INT(st_layout_item_of_row(lay, na), 3);
  st_layout_set_group_collapsed(lay, 0, 0);
  CHECK_EQ_INT(st_layout_items(lay, NULL)[4].kind, ST_LAYOUT_GROUP);
  /* a pane showing file 1 only (side by side): no trace of file 0 at all */
  st_layout_set_group_hidden(lay, 0, 1);
  it = st_layout_items(lay, &n);
  CHECK_EQ_INT(it[0].kind, ST_LAYOUT_GROUP);
  CHECK_EQ_INT(it[0].row, 1);
  CHECK(it[0].y == 0);
  CHECK_EQ_INT(st_layout_item_of_row(lay, 0), UINT32_MAX);
  CHECK_EQ_INT(st_layout_item_of_row(lay, na), 2);
  st_layout_set_group_collapsed(lay, 0, 1); /* no effect on a hidden group */
  CHECK_EQ_INT(st_layout_items(lay, NULL)[0].row, 1);
  h = st_hit_test(f.m, lay, &v, ST_VIEW_GUTTER_W + 510, ST_VIEW_AXIS_H + it[2].y + 5, 0);
  CHECK_EQ_INT(h.kind, ST_HIT_EVENT);
  CHECK_EQ_INT(h.row, na);
  st_layout_set_group_hidden(lay, 0, 0);
  CHECK_EQ_INT(st_layout_items(lay, NULL)[4].kind, ST_LAYOUT_GROUP);
  st_layout_destroy(lay);
  teardown(&f);
}

static int fake_glyph(void *ud, uint32_t cp, st_glyph *g) {
  (void)ud;
  *g = (st_glyph){7, 0.5f, -9, 6.5f, 2, (float)cp, 0, (float)cp, 1};
  return 1;
}

/* The rect drawn for an event at (x, y) of width w, or NULL. */
static const st_rect *rect_at(const st_drawlist *dl, float x, float y, float w) {
  for (uint32_t i = 0; i < dl->rect_count; i++) {
    const st_rect *r = &dl->rects[i];
    if (fabsf(r->x - x) < 0.01f && fabsf(r->y - y) < 0.01f && fabsf(r->w - w) < 0.01f) return r;
  }
  return NULL;
}

typedef struct lod_acc {
  uint32_t first, count;
  int64_t first_start;
} lod_acc;

static void on_lod_item(void *ud, const st_lod_item *it) {
  lod_acc *a = ud;
  if (a->first == UINT32_MAX) a->first = it->index, a->first_start = it->start;
  a->count += it->count;
}

static void test_draw_and_shift(void) {
  fixture f;
  int64_t offs[2] = {0, 500};
  setup(&f, offs);
  st_lod *lod = st_lod_build(NULL, f.m, NULL);
  st_layout *lay = st_layout_create(NULL, f.m);
  st_font font = {12, 10, 3, fake_glyph, NULL};
  st_view v = {0, 1.0, 1220, 600, 1, 0};
  st_draw_input in = {f.m, lod, lay, &v, &font};
  st_drawlist dl = {0};
  CHECK(st_draw_frame(&dl, &in, NULL) == ST_OK);
  const st_layout_item *it = st_layout_items(lay, NULL);
  float ya = ST_VIEW_AXIS_H + it[2].y + 1, yb = ST_VIEW_AXIS_H + it[6].y + 1;
  /* A's step [0, 1000) (1 px short: a slice's end boundary, draw.c) and
   * B's step [500, 1500), cut at the right edge 1220 */
  CHECK(rect_at(&dl, ST_VIEW_GUTTER_W, ya, 999) != NULL);
  CHECK(rect_at(&dl, ST_VIEW_GUTTER_W + 500, yb, 500) != NULL);
  /* the group bands: across the timeline at the groups' rows */
  const st_rect *band = rect_at(&dl, ST_VIEW_GUTTER_W, ST_VIEW_AXIS_H, 1000);
  CHECK(band != NULL && band->h == ST_VIEW_GROUP_H);
  /* move B 200 ns earlier: its columns and its lod rows follow */
  int64_t want[2] = {0, 300}, deltas[2];
  CHECK(st_trace_merge_set_offsets(f.m, want, deltas) == ST_OK);
  const st_trace_part *p = st_trace_parts(f.m, NULL);
  for (int k = 0; k < 2; k++)
    st_lod_shift_rows(lod, p[k].row_base, p[k].row_base + p[k].row_count, deltas[k]);
  CHECK(st_draw_frame(&dl, &in, NULL) == ST_OK);
  CHECK(rect_at(&dl, ST_VIEW_GUTTER_W + 300, yb, 700) != NULL);
  CHECK(rect_at(&dl, ST_VIEW_GUTTER_W + 500, yb, 500) == NULL);
  /* the indexed row (100 ops every 10 ns from 300): a window over ops
   * 70..79 yields exactly them, found through the moved time index */
  uint32_t many = p[1].row_base + 2;
  CHECK(st_trace_rows(f.m, NULL)[many].count == 100);
  lod_acc acc = {UINT32_MAX, 0, 0};
  uint32_t items = st_lod_query_row(lod, many, 1000, 1200, 20.0, 1.0, on_lod_item, &acc);
  CHECK_EQ_INT(items, 10);
  CHECK_EQ_INT(acc.first, 70);
  CHECK_EQ_INT(acc.count, 20);
  CHECK_EQ_INT(acc.first_start, 1000);
  st_drawlist_free(&dl, NULL);
  st_layout_destroy(lay);
  st_lod_destroy(lod);
  teardown(&f);
}

int main(void) {
  RUN(test_global_numbering);
  RUN(test_offsets_normalised);
  RUN(test_refusals);
  RUN(test_layout_groups_and_hits);
  RUN(test_draw_and_shift);
  return check_report();
}
