/* test_flame.c: CPU samples read from Chrome JSON (V8 Profile/ProfileChunk,
 * P events, top-level samples + stackFrames) into sample tracks and the
 * frame table, and core/analysis/flame.c's call trees over samples and nested
 * slices: exact totals, self, layout, hit testing and selection; the
 * same over two files merged on one timeline (each sample's stack from its
 * own file's frame table, stacks merged by name). The
 * expected trees are derived by hand in the comments from the fixtures. */
#include "check.h"
#include "test_util.h"

#include "flame.h"
#include "frames.h"
#include "panel.h"
#include "query.h"
#include "select.h"
#include "trace.h"

#include <stdlib.h>

static st_trace *load_fixture(const char *name, st_stats *stats) {
  char path[256];
  snprintf(path, sizeof path, "tests/fixtures/%s", name);
  size_t n;
  unsigned char *data = tu_read_file(path, &n);
  CHECK(data != NULL);
  if (!data) return NULL;
  st_error err;
  st_trace *t = tu_load(data, n, 7, name, &err, stats, NULL, 0); /* 7-byte pushes */
  free(data);
  CHECK(t != NULL);
  return t;
}

static const char *str(const st_trace *t, uint32_t id) {
  static char buf[8][128];
  static int k;
  size_t n;
  const char *s = st_strtab_get(st_trace_strings(t), id, &n);
  char *o = buf[k++ & 7];
  snprintf(o, 128, "%.*s", (int)n, s);
  return o;
}

static uint64_t warn_count(const st_stats *s, const char *kind) {
  for (uint32_t i = 0; i < s->warning_count; i++)
    if (!strcmp(s->warnings[i].kind, kind)) return s->warnings[i].count;
  return 0;
}

/* The samples track of the thread with this tid (UINT32_MAX if none). */
static uint32_t samples_track(const st_trace *t, int64_t tid) {
  uint32_t nt;
  const st_track *tr = st_trace_tracks(t, &nt);
  for (uint32_t i = 0; i < nt; i++)
    if (tr[i].kind == ST_TRACK_SAMPLES && tr[i].key == tid) return i;
  return UINT32_MAX;
}

/* "name total self" of node i, for compact checks */
static const char *node_text(const st_trace *t, const st_flame *f, uint32_t i) {
  static char buf[4][160];
  static int k;
  uint32_t n;
  const st_flame_node *nodes = st_flame_nodes(f, &n);
  char *o = buf[k++ & 3];
  if (i >= n) return "none";
  snprintf(o, 160, "%s d%u x%llu t%llu s%llu", i ? str(t, nodes[i].name) : "all", nodes[i].depth,
           (unsigned long long)nodes[i].x, (unsigned long long)nodes[i].total,
           (unsigned long long)nodes[i].self);
  return o;
}

/* samples_v8.json: Profile (startTime 1000 us) on tid 10; two chunks on
 * tid 11. Chunk 1: nodes (root) > main > work, (root) > (idle); samples
 * work, work, main, (idle) at 1100, 1200, 1300, 1400. Chunk 2: nodes leaf
 * (under work, a node of chunk 1) and "" (anonymous, under main); samples
 * leaf @1500, anonymous @1700, work @1650 (delta -50), node 9 (unknown). */
static void test_v8_import(void) {
  st_stats s;
  st_trace *t = load_fixture("samples_v8.json", &s);
  if (!t) return;
  CHECK_EQ_INT(s.samples, 7);
  CHECK_EQ_INT(s.stack_frames, 6);
  CHECK_EQ_INT(s.events, 11);
  CHECK_EQ_INT(s.phases['P'], 3);
  CHECK_EQ_INT(warn_count(&s, "sample_unknown_node"), 1);
  CHECK_EQ_INT(warn_count(&s, "skipped_phase"), 0);
  uint32_t nt, nr;
  const st_track *tr = st_trace_tracks(t, &nt);
  const st_row *rows = st_trace_rows(t, &nr);
  CHECK_EQ_INT(nt, 2); /* tid 10's slices, then its samples (the chunks' tid 11 has none) */
  CHECK_EQ_INT(tr[0].kind, ST_TRACK_SLICES);
  CHECK_EQ_INT(tr[1].kind, ST_TRACK_SAMPLES);
  CHECK_EQ_INT(tr[1].key, 10);
  CHECK_EQ_STR(str(t, tr[1].name), "CrRendererMain samples");
  const st_row *r = &rows[tr[1].first_row];
  CHECK_EQ_INT(tr[1].row_count, 1);
  CHECK_EQ_INT(r->count, 7);
  /* origin = 1000 us (the first slice); samples sorted, the -50 delta included */
  int64_t want_us[7] = {100, 200, 300, 400, 500, 650, 700};
  const char *want_name[7] = {"work", "work", "main", "(idle)", "leaf", "work", "(anonymous)"};
  const st_frames *fr = st_trace_frames(t);
  for (int i = 0; i < 7 && i < (int)r->count; i++) {
    CHECK_EQ_INT(r->start[i], want_us[i] * 1000);
    CHECK_EQ_INT(r->dur[i], 0);
    CHECK(r->flags[i] & ST_EV_INSTANT);
    CHECK_EQ_STR(str(t, r->name[i]), want_name[i]);
    CHECK_EQ_INT(st_frames_name(fr, r->cat[i]), r->name[i]); /* cat = the leaf frame */
  }
  /* leaf's stack: leaf < work < main < (root) */
  uint32_t f = r->cat[4];
  CHECK_EQ_INT(st_frames_depth(fr, f), 3);
  CHECK_EQ_STR(str(t, st_frames_name(fr, st_frames_parent(fr, f))), "work");
  CHECK_EQ_STR(str(t, st_frames_name(fr, st_frames_parent(fr, st_frames_parent(fr, f)))), "main");
  /* a sample's details carry no category (cat is the frame) */
  st_event_info info;
  CHECK(st_event_get(t, (st_event_ref){tr[1].first_row, 4}, &info));
  CHECK_EQ_INT(info.cat, ST_STR_EMPTY);
  CHECK_EQ_INT(info.tid, 10);
  /* its details list the stack, leaf first */
  st_ui *ui = st_ui_create(NULL, t, 1280, 800, 1);
  st_panel_buf b = {0};
  st_alloc al = {0};
  CHECK_EQ_INT(st_panel_event_json(&b, ui, (st_event_ref){tr[1].first_row, 4}, &al), ST_OK);
  CHECK(b.text && strstr(b.text, "\"stack\":[\"leaf\",\"work\",\"main\",\"(root)\"],"
                                 "\"stack_depth\":4"));
  CHECK_EQ_INT(st_panel_event_json(&b, ui, (st_event_ref){tr[0].first_row, 0}, &al), ST_OK);
  CHECK(b.text && !strstr(b.text, "\"stack\"")); /* a slice has none */
  st_panel_buf_free(&b, &al);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

/* The sample tree of samples_v8.json (interval: gaps 100,100,100,100,150,50
 * -> lower median 100 us):
 *   all 7 > (root) 7 > main 6 (self 1) > work 4 (self 3) > leaf 1
 *                                      > (anonymous) 1
 *                    > (idle) 1 */
static void test_sample_tree(void) {
  st_stats s;
  st_trace *t = load_fixture("samples_v8.json", &s);
  if (!t) return;
  st_flame *f = st_flame_create(NULL);
  st_flame_query q = {ST_FLAME_SAMPLES, NULL, 0, st_trace_duration_ns(t) + 1, UINT32_MAX};
  CHECK_EQ_INT(st_flame_build(f, t, &q), ST_OK);
  uint32_t n;
  const st_flame_node *nodes = st_flame_nodes(f, &n);
  CHECK_EQ_INT(n, 7);
  CHECK_EQ_INT(st_flame_events(f), 7);
  CHECK_EQ_INT(st_flame_max_depth(f), 4);
  CHECK_EQ_STR(node_text(t, f, 0), "all d0 x0 t7 s0");
  CHECK_EQ_STR(node_text(t, f, 1), "(root) d1 x0 t7 s0");
  CHECK_EQ_STR(node_text(t, f, 2), "main d2 x0 t6 s1");
  CHECK_EQ_STR(node_text(t, f, 3), "work d3 x0 t4 s3");
  CHECK_EQ_STR(node_text(t, f, 4), "leaf d4 x0 t1 s1");
  CHECK_EQ_STR(node_text(t, f, 5), "(anonymous) d3 x4 t1 s1");
  CHECK_EQ_STR(node_text(t, f, 6), "(idle) d2 x6 t1 s1");
  if (n == 7) {
    CHECK_EQ_INT(nodes[2].total_ns, 600000);
    CHECK_EQ_INT(nodes[2].self_ns, 100000);
    CHECK_EQ_INT(nodes[0].total_ns, 700000);
    CHECK_EQ_INT(nodes[3].end, 5); /* work's subtree: work, leaf */
    CHECK_EQ_INT(nodes[3].parent, 2);
  }
  /* hit testing: row 3 at 2/7 is work, at 4.5/7 (anonymous), at 6.5/7 nothing */
  CHECK_EQ_INT(st_flame_hit(f, 2.0 / 7, 3), 3);
  CHECK_EQ_INT(st_flame_hit(f, 4.5 / 7, 3), 5);
  CHECK_EQ_INT(st_flame_hit(f, 6.5 / 7, 3), UINT32_MAX);
  CHECK_EQ_INT(st_flame_hit(f, 6.5 / 7, 2), 6);
  CHECK_EQ_INT(st_flame_hit(f, 0.5, 0), 0);
  CHECK_EQ_INT(st_flame_hit(f, 1.0, 1), UINT32_MAX);
  CHECK_EQ_INT(st_flame_hit(f, 0.1, 9), UINT32_MAX);
  /* select work: the samples through it (work x3 and leaf) */
  st_selection *sel = st_selection_create(NULL);
  CHECK_EQ_INT(st_flame_select(f, 3, sel), ST_OK);
  CHECK_EQ_INT(st_selection_count(sel), 4);
  uint32_t tr = samples_track(t, 10), nt;
  const st_track *tracks = st_trace_tracks(t, &nt);
  uint32_t row = tracks[tr].first_row;
  CHECK(st_selection_contains(sel, row, 0) && st_selection_contains(sel, row, 1));
  CHECK(st_selection_contains(sel, row, 4) && st_selection_contains(sel, row, 5));
  CHECK(!st_selection_contains(sel, row, 2) && !st_selection_contains(sel, row, 6));
  CHECK_EQ_INT(st_flame_select(f, 99, sel), ST_ERR_ARG);

  /* a range: [1150, 1550) us = 150..550 us from the origin: work, main,
   * (idle), leaf; one thread (its slice track stands for it) */
  q.t0 = 150000;
  q.t1 = 550000;
  q.track = 0;
  CHECK_EQ_INT(st_flame_build(f, t, &q), ST_OK);
  CHECK_EQ_INT(st_flame_events(f), 4);
  CHECK_EQ_STR(node_text(t, f, 2), "main d2 x0 t3 s1");
  CHECK_EQ_STR(node_text(t, f, 3), "work d3 x0 t2 s1");
  CHECK_EQ_STR(node_text(t, f, 5), "(idle) d2 x3 t1 s1");

  /* from a selection: the first three samples */
  st_selection_clear(sel);
  st_selection_add(sel, row, 0, 3);
  st_selection_add(sel, 0, 0, 2); /* slices are not samples: ignored here */
  st_flame_query qs = {ST_FLAME_SAMPLES, sel, 0, 0, UINT32_MAX};
  CHECK_EQ_INT(st_flame_build(f, t, &qs), ST_OK);
  CHECK_EQ_INT(st_flame_events(f), 3);
  CHECK_EQ_STR(node_text(t, f, 2), "main d2 x0 t3 s1");
  CHECK_EQ_STR(node_text(t, f, 3), "work d3 x0 t2 s2");
  st_selection_destroy(sel);
  st_flame_destroy(f);
  st_trace_destroy(t);
}

/* The slice tree of samples_v8.json's tid 10 (us):
 *   step 1000+1000: fwd 1100+300 (mm 1150+100), bwd 1500+400 (mm 1600+200)
 *   step 2100+500: fwd 2200+100
 * -> all 1500 > step 1500 (self 700) > bwd 400 (self 200) > mm 200
 *                                    > fwd 400 (self 300) > mm 100
 * (bwd and fwd tie at 400: by name). */
static void test_slice_tree(void) {
  st_stats s;
  st_trace *t = load_fixture("samples_v8.json", &s);
  if (!t) return;
  st_flame *f = st_flame_create(NULL);
  st_flame_query q = {ST_FLAME_SLICES, NULL, 0, st_trace_duration_ns(t) + 1, UINT32_MAX};
  CHECK_EQ_INT(st_flame_build(f, t, &q), ST_OK);
  uint32_t n;
  const st_flame_node *nodes = st_flame_nodes(f, &n);
  CHECK_EQ_INT(n, 6);
  CHECK_EQ_INT(st_flame_events(f), 7);
  CHECK_EQ_STR(node_text(t, f, 0), "all d0 x0 t1500000 s0");
  CHECK_EQ_STR(node_text(t, f, 1), "step d1 x0 t1500000 s700000");
  CHECK_EQ_STR(node_text(t, f, 2), "bwd d2 x0 t400000 s200000");
  CHECK_EQ_STR(node_text(t, f, 3), "mm d3 x0 t200000 s200000");
  CHECK_EQ_STR(node_text(t, f, 4), "fwd d2 x400000 t400000 s300000");
  CHECK_EQ_STR(node_text(t, f, 5), "mm d3 x400000 t100000 s100000");
  if (n == 6) {
    CHECK_EQ_INT(nodes[1].count, 2);
    CHECK_EQ_INT(nodes[4].count, 2);
    CHECK_EQ_INT(nodes[4].total_ns, 400000);
  }
  /* select fwd: exactly the two fwd slices (not their mm) */
  st_selection *sel = st_selection_create(NULL);
  CHECK_EQ_INT(st_flame_select(f, 4, sel), ST_OK);
  CHECK_EQ_INT(st_selection_count(sel), 2);
  uint32_t nr;
  const st_row *rows = st_trace_rows(t, &nr);
  uint32_t sn;
  const st_sel_span *sp = st_selection_spans(sel, &sn);
  for (uint32_t i = 0; i < sn; i++)
    for (uint32_t k = sp[i].lo; k < sp[i].hi; k++)
      CHECK_EQ_STR(str(t, rows[sp[i].row].name[k]), "fwd");

  /* clipped to [1100, 1300): step 200 > fwd 200 (self 100) > mm 100 */
  q.t0 = 100000;
  q.t1 = 300000;
  CHECK_EQ_INT(st_flame_build(f, t, &q), ST_OK);
  CHECK_EQ_INT(st_flame_events(f), 3);
  CHECK_EQ_STR(node_text(t, f, 1), "step d1 x0 t200000 s0");
  CHECK_EQ_STR(node_text(t, f, 2), "fwd d2 x0 t200000 s100000");
  CHECK_EQ_STR(node_text(t, f, 3), "mm d3 x0 t100000 s100000");

  /* a selection of the first step and the mm inside its fwd: the mm has a
   * selected ancestor, so only the first step's whole subtree counts */
  st_selection_clear(sel);
  uint32_t nt;
  const st_track *tr = st_trace_tracks(t, &nt);
  uint32_t r0 = tr[0].first_row;
  st_selection_add(sel, r0, 0, 1);     /* step @1000 */
  st_selection_add(sel, r0 + 2, 0, 1); /* mm @1150 (depth 2) */
  st_flame_query qs = {ST_FLAME_SLICES, sel, 0, 0, UINT32_MAX};
  CHECK_EQ_INT(st_flame_build(f, t, &qs), ST_OK);
  CHECK_EQ_INT(st_flame_events(f), 5);
  CHECK_EQ_STR(node_text(t, f, 1), "step d1 x0 t1000000 s300000");
  CHECK_EQ_STR(node_text(t, f, 2), "bwd d2 x0 t400000 s200000");
  CHECK_EQ_STR(node_text(t, f, 4), "fwd d2 x400000 t300000 s200000");
  /* only the mm: its own tree */
  st_selection_clear(sel);
  st_selection_add(sel, r0 + 2, 0, 1);
  CHECK_EQ_INT(st_flame_build(f, t, &qs), ST_OK);
  CHECK_EQ_STR(node_text(t, f, 1), "mm d1 x0 t100000 s100000");
  CHECK_EQ_INT(st_flame_events(f), 1);
  st_selection_destroy(sel);
  st_flame_destroy(f);
  st_trace_destroy(t);
}

/* samples_stackframes.json: top-level samples BEFORE traceEvents and
 * stackFrames AFTER them; sf as numbers and strings ("2" == 2); an unknown
 * sf (99); a parent cycle c1 <-> c2 (c2 becomes a root); P events: one by
 * name only, one with sf. */
static void test_stack_frames(void) {
  st_stats s;
  st_trace *t = load_fixture("samples_stackframes.json", &s);
  if (!t) return;
  CHECK_EQ_INT(s.samples, 6);
  CHECK_EQ_INT(s.stack_frames, 6); /* main compute io loopB loopA tick */
  CHECK_EQ_INT(s.events, 4);
  CHECK_EQ_INT(warn_count(&s, "sample_unknown_frame"), 1);
  CHECK_EQ_INT(warn_count(&s, "stack_frame_unknown_parent"), 1);
  CHECK_EQ_INT(warn_count(&s, "samples_skipped"), 0);
  CHECK_EQ_INT(warn_count(&s, "stack_frames_skipped"), 0);
  uint32_t nt;
  const st_track *tr = st_trace_tracks(t, &nt);
  uint32_t t1 = samples_track(t, 1), t2 = samples_track(t, 2);
  CHECK(t1 != UINT32_MAX && t2 != UINT32_MAX);
  if (t1 == UINT32_MAX || t2 == UINT32_MAX) return;
  CHECK_EQ_STR(str(t, tr[t1].name), "worker samples");
  CHECK_EQ_INT(tr[t1 - 1].kind, ST_TRACK_SLICES); /* right under the thread's slices */
  CHECK_EQ_INT(tr[t1 - 1].key, 1);

  /* the threads a flame can be narrowed to */
  st_panel_buf b = {0};
  st_alloc al = {0};
  CHECK_EQ_INT(st_panel_threads_json(&b, t, ST_TRACK_SAMPLES, &al), ST_OK);
  char want[160];
  snprintf(want, sizeof want,
           "[{\"track\":%u,\"name\":\"worker samples\",\"pid\":1,\"tid\":1},"
           "{\"track\":%u,\"name\":\"\",\"pid\":1,\"tid\":2}]",
           t1, t2);
  CHECK_EQ_STR(b.text, want);
  st_panel_buf_free(&b, &al);
  st_flame *f = st_flame_create(NULL);
  /* tid 1: main 3 (compute 2, io 1), loopB 1 > loopA 1; 10 us interval */
  st_flame_query q = {ST_FLAME_SAMPLES, NULL, 0, st_trace_duration_ns(t) + 1, t1};
  CHECK_EQ_INT(st_flame_build(f, t, &q), ST_OK);
  CHECK_EQ_STR(node_text(t, f, 1), "main d1 x0 t3 s0");
  CHECK_EQ_STR(node_text(t, f, 2), "compute d2 x0 t2 s2");
  CHECK_EQ_STR(node_text(t, f, 3), "io d2 x2 t1 s1");
  CHECK_EQ_STR(node_text(t, f, 4), "loopB d1 x3 t1 s0");
  CHECK_EQ_STR(node_text(t, f, 5), "loopA d2 x3 t1 s1");
  CHECK_EQ_INT(st_flame_nodes(f, NULL)[1].total_ns, 30000);
  /* tid 2: io (by sf) and tick (by name), one sample each; interval 10 us */
  q.track = t2;
  CHECK_EQ_INT(st_flame_build(f, t, &q), ST_OK);
  CHECK_EQ_STR(node_text(t, f, 1), "main d1 x0 t1 s0");
  CHECK_EQ_STR(node_text(t, f, 2), "io d2 x0 t1 s1");
  CHECK_EQ_STR(node_text(t, f, 3), "tick d1 x1 t1 s1");
  st_flame_destroy(f);
  st_trace_destroy(t);
}

/* The samples list cut in the middle: what came before stays. */
static void test_truncated(void) {
  st_stats s;
  st_trace *t = load_fixture("samples_truncated.json", &s);
  if (!t) return;
  CHECK_EQ_INT(s.slices, 1);
  CHECK_EQ_INT(warn_count(&s, "truncated"), 1);
  st_trace_destroy(t);
  /* hostile: a stackFrames chain deeper than the cap folds, and a flame of
   * it stays within ST_FRAMES_MAX_DEPTH */
  size_t cap = 64 * 5000 + 256, len = 0;
  char *buf = malloc(cap);
  len += (size_t)snprintf(buf + len, cap - len,
                          "{\"traceEvents\":[{\"ph\":\"P\",\"pid\":1,\"tid\":1,\"ts\":1,\"sf\":"
                          "4999}],\"stackFrames\":{\"0\":{\"name\":\"f\"}");
  for (int i = 1; i < 5000; i++)
    len += (size_t)snprintf(buf + len, cap - len, ",\"%d\":{\"name\":\"f%d\",\"parent\":%d}", i,
                            i % 3, i - 1);
  len += (size_t)snprintf(buf + len, cap - len, "}}");
  st_error err;
  t = tu_load(buf, len, 1000, "deep.json", &err, &s, NULL, 0);
  free(buf);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(s.samples, 1);
  CHECK_EQ_INT(s.stack_frames, ST_FRAMES_MAX_DEPTH);
  st_flame *f = st_flame_create(NULL);
  st_flame_query q = {ST_FLAME_SAMPLES, NULL, 0, 1, UINT32_MAX};
  CHECK_EQ_INT(st_flame_build(f, t, &q), ST_OK);
  CHECK_EQ_INT(st_flame_max_depth(f), ST_FRAMES_MAX_DEPTH);
  st_flame_destroy(f);
  st_trace_destroy(t);
}

/* The older whole-profile event (Chrome before M66: "CpuProfile", ph I,
 * nodes with children lists, startTime in the profile): each is a profile
 * of its own, so equal node ids of two profiles do not mix. */
static void test_cpu_profile_event(void) {
  const char *j =
      "{\"traceEvents\":["
      "{\"name\":\"CpuProfile\",\"ph\":\"I\",\"pid\":1,\"tid\":5,\"ts\":500,\"args\":{\"data\":"
      "{\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
      "\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"a\"},\"children\":[3]},"
      "{\"id\":3,\"callFrame\":{\"functionName\":\"b\"}}],\"startTime\":100,\"endTime\":400,"
      "\"samples\":[3,2,3],\"timeDeltas\":[10,10,10]}}}},"
      "{\"name\":\"CpuProfile\",\"ph\":\"I\",\"pid\":1,\"tid\":6,\"ts\":900,\"args\":{\"data\":"
      "{\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
      "\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"c\"}}],\"startTime\":200,"
      "\"samples\":[2,2],\"timeDeltas\":[5,5]}}}}]}";
  st_stats s;
  st_error err;
  st_trace *t = tu_load(j, strlen(j), 3, "cp.json", &err, &s, NULL, 0);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(s.samples, 5);
  CHECK_EQ_INT(s.instants, 0);
  CHECK_EQ_INT(st_trace_origin_ns(t), 110000); /* the first sample: 100 + 10 us */
  uint32_t nt;
  const st_track *tr = st_trace_tracks(t, &nt);
  uint32_t t5 = samples_track(t, 5), t6 = samples_track(t, 6);
  CHECK(t5 != UINT32_MAX && t6 != UINT32_MAX);
  if (t5 == UINT32_MAX || t6 == UINT32_MAX) return;
  const st_row *rows = st_trace_rows(t, NULL);
  CHECK_EQ_INT(rows[tr[t6].first_row].start[0], 95000); /* 200 + 5 us */
  st_flame *f = st_flame_create(NULL);
  st_flame_query q = {ST_FLAME_SAMPLES, NULL, 0, st_trace_duration_ns(t) + 1, UINT32_MAX};
  CHECK_EQ_INT(st_flame_build(f, t, &q), ST_OK);
  CHECK_EQ_STR(node_text(t, f, 1), "(root) d1 x0 t5 s0");
  CHECK_EQ_STR(node_text(t, f, 2), "a d2 x0 t3 s1");
  CHECK_EQ_STR(node_text(t, f, 3), "b d3 x0 t2 s2");
  CHECK_EQ_STR(node_text(t, f, 4), "c d2 x3 t2 s2");
  st_flame_destroy(f);
  st_trace_destroy(t);
}

/* The sampling interval is the lower median gap: 100 gaps, 49 of 10 us and
 * 51 of 30 us, interleaved (enough to take the quickselect path) -> 30 us. */
static void test_interval(void) {
  size_t cap = 101 * 80 + 64, len = 0;
  char *buf = malloc(cap);
  len += (size_t)snprintf(buf + len, cap - len, "{\"traceEvents\":[],\"samples\":[");
  long long ts = 0;
  for (int i = 0; i <= 100; i++) {
    len += (size_t)snprintf(buf + len, cap - len,
                            "%s{\"pid\":1,\"tid\":1,\"ts\":%lld,\"name\":\"f\"}", i ? "," : "", ts);
    ts += (i * 7) % 100 < 49 ? 10 : 30;
  }
  len += (size_t)snprintf(buf + len, cap - len, "]}");
  st_stats s;
  st_error err;
  st_trace *t = tu_load(buf, len, 0, "iv.json", &err, &s, NULL, 0);
  free(buf);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(s.samples, 101);
  st_flame *f = st_flame_create(NULL);
  st_flame_query q = {ST_FLAME_SAMPLES, NULL, 0, st_trace_duration_ns(t) + 1, UINT32_MAX};
  CHECK_EQ_INT(st_flame_build(f, t, &q), ST_OK);
  CHECK_EQ_INT(st_flame_nodes(f, NULL)[0].total, 101);
  CHECK_EQ_INT(st_flame_nodes(f, NULL)[0].total_ns, 101 * 30000);
  st_flame_destroy(f);
  st_trace_destroy(t);
}

/* A trace without samples: no frame table, an empty sample tree. */
static void test_no_samples(void) {
  const char *j = "[{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]";
  st_stats s;
  st_error err;
  st_trace *t = tu_load(j, strlen(j), 0, "a.json", &err, &s, NULL, 0);
  CHECK(t != NULL);
  if (!t) return;
  CHECK(st_trace_frames(t) == NULL);
  CHECK_EQ_INT(s.samples, 0);
  st_flame *f = st_flame_create(NULL);
  st_flame_query q = {ST_FLAME_SAMPLES, NULL, 0, 10000, UINT32_MAX};
  CHECK_EQ_INT(st_flame_build(f, t, &q), ST_OK);
  uint32_t n;
  const st_flame_node *nodes = st_flame_nodes(f, &n);
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(nodes[0].total, 0);
  CHECK_EQ_INT(st_flame_hit(f, 0.5, 0), UINT32_MAX);
  st_flame_destroy(f);
  st_trace_destroy(t);
}

/* ---- several files merged on one timeline (trace.h st_trace_merge) ------ */

/* A fixture loaded into the shared string table strs (as the page and
 * `strata flame A B` load a profile of several files). */
static st_trace *load_shared(const char *name, st_strtab *strs) {
  char path[256];
  snprintf(path, sizeof path, "tests/fixtures/%s", name);
  size_t n;
  unsigned char *data = tu_read_file(path, &n);
  CHECK(data != NULL);
  if (!data) return NULL;
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.file_name = name;
  d.strings = strs;
  st_loader *l = st_loader_create(&d);
  st_loader_push(l, data, n);
  st_error err;
  st_trace *t = st_loader_finish(l, &err);
  st_loader_destroy(l);
  free(data);
  CHECK(t != NULL);
  return t;
}

/* The row of part k holding its samples track's events for tid (first). */
static uint32_t merged_samples_row(const st_trace *m, uint32_t part, int64_t tid) {
  uint32_t nt;
  const st_track *tr = st_trace_tracks(m, &nt);
  const st_trace_part *p = st_trace_parts(m, NULL);
  for (uint32_t i = p[part].track_base; i < p[part].track_base + p[part].track_count; i++)
    if (tr[i].kind == ST_TRACK_SAMPLES && tr[i].key == tid) return tr[i].first_row;
  return UINT32_MAX;
}

/* Two files with samples merged: samples_v8.json (rank A) and
 * samples_stackframes.json (rank B), whose frame tables number their
 * frames independently (frame 0 is "(root)" in A, "main" in B). Each
 * sample's stack comes from its own file's table; stacks merge by name.
 *   A: (root) 7 > main 6 (self 1) > work 4 (self 3) > leaf 1; (anonymous) 1
 *                > (idle) 1                                  (test_sample_tree)
 *   B: tid 1 main 3 (compute 2, io 1), loopB 1 > loopA 1; tid 2 main > io 1,
 *      tick 1                                               (test_stack_frames)
 * -> all 13 > (root) 7 ..., main 4 > compute 2, io 2; loopB 1 > loopA 1;
 *    tick 1 (ties by name). The same file twice doubles every total. */
static void test_merged_samples(void) {
  st_strtab *strs = st_strtab_create(NULL);
  st_trace *a = load_shared("samples_v8.json", strs);
  st_trace *b = load_shared("samples_stackframes.json", strs);
  if (!a || !b) return;
  st_trace *parts[2] = {a, b};
  int64_t offs[2] = {0, 2000000}; /* B 2 ms after A's start */
  uint32_t names[2] = {st_strtab_intern(strs, "rank-a", 6), st_strtab_intern(strs, "rank-b", 6)};
  st_error err;
  st_trace *m = st_trace_merge(NULL, parts, names, offs, 2, &err);
  CHECK(m != NULL);
  if (!m) return;
  CHECK(st_trace_frames(m) == NULL); /* each part keeps its own */
  uint32_t ra = merged_samples_row(m, 0, 10), rb = merged_samples_row(m, 1, 1);
  CHECK(ra != UINT32_MAX && rb != UINT32_MAX);
  if (ra == UINT32_MAX || rb == UINT32_MAX) return;
  CHECK(st_trace_row_frames(m, ra) == st_trace_frames(a));
  CHECK(st_trace_row_frames(m, rb) == st_trace_frames(b));
  CHECK(st_trace_row_frames(m, UINT32_MAX) == NULL);
  CHECK(st_trace_row_frames(a, 0) == st_trace_frames(a));

  st_flame *f = st_flame_create(NULL);
  st_flame_query q = {ST_FLAME_SAMPLES, NULL, 0, st_trace_duration_ns(m) + 1, UINT32_MAX};
  CHECK_EQ_INT(st_flame_build(f, m, &q), ST_OK);
  uint32_t n;
  const st_flame_node *nodes = st_flame_nodes(f, &n);
  CHECK_EQ_INT(n, 13);
  CHECK_EQ_INT(st_flame_events(f), 13);
  CHECK_EQ_STR(node_text(m, f, 0), "all d0 x0 t13 s0");
  CHECK_EQ_STR(node_text(m, f, 1), "(root) d1 x0 t7 s0");
  CHECK_EQ_STR(node_text(m, f, 2), "main d2 x0 t6 s1");
  CHECK_EQ_STR(node_text(m, f, 3), "work d3 x0 t4 s3");
  CHECK_EQ_STR(node_text(m, f, 4), "leaf d4 x0 t1 s1");
  CHECK_EQ_STR(node_text(m, f, 5), "(anonymous) d3 x4 t1 s1");
  CHECK_EQ_STR(node_text(m, f, 6), "(idle) d2 x6 t1 s1");
  CHECK_EQ_STR(node_text(m, f, 7), "main d1 x7 t4 s0");
  CHECK_EQ_STR(node_text(m, f, 8), "compute d2 x7 t2 s2");
  CHECK_EQ_STR(node_text(m, f, 9), "io d2 x9 t2 s2");
  CHECK_EQ_STR(node_text(m, f, 10), "loopB d1 x11 t1 s0");
  CHECK_EQ_STR(node_text(m, f, 11), "loopA d2 x11 t1 s1");
  CHECK_EQ_STR(node_text(m, f, 12), "tick d1 x12 t1 s1");
  /* time: A's samples 100 us apart, B's 10 us: 7 x 100 + 6 x 10 us */
  if (n == 13) {
    CHECK_EQ_INT(nodes[0].total_ns, 760000);
    CHECK_EQ_INT(nodes[7].total_ns, 40000);
  }
  /* "io" selects B's two io samples: one on each of B's threads */
  st_selection *sel = st_selection_create(NULL);
  CHECK_EQ_INT(st_flame_select(f, 9, sel), ST_OK);
  CHECK_EQ_INT(st_selection_count(sel), 2);
  CHECK(st_selection_contains(sel, rb, 2)); /* tid 1's third sample: sf 3 = io */
  /* a range on the shared timeline: [0, 1.5 ms) holds A's samples only */
  q.t1 = 1500000;
  CHECK_EQ_INT(st_flame_build(f, m, &q), ST_OK);
  CHECK_EQ_INT(st_flame_events(f), 7);
  CHECK_EQ_STR(node_text(m, f, 0), "all d0 x0 t7 s0");
  /* one thread of B */
  q.t1 = st_trace_duration_ns(m) + 1;
  q.track = st_trace_rows(m, NULL)[rb].track;
  CHECK_EQ_INT(st_flame_build(f, m, &q), ST_OK);
  CHECK_EQ_STR(node_text(m, f, 1), "main d1 x0 t3 s0");
  CHECK_EQ_STR(node_text(m, f, 2), "compute d2 x0 t2 s2");
  /* a selection across both files: A's first three samples and B's first two */
  st_selection_clear(sel);
  st_selection_add(sel, ra, 0, 3);
  st_selection_add(sel, rb, 0, 2);
  st_flame_query qs = {ST_FLAME_SAMPLES, sel, 0, 0, UINT32_MAX};
  CHECK_EQ_INT(st_flame_build(f, m, &qs), ST_OK);
  CHECK_EQ_INT(st_flame_events(f), 5);
  CHECK_EQ_STR(node_text(m, f, 1), "(root) d1 x0 t3 s0");
  CHECK_EQ_STR(node_text(m, f, 4), "main d1 x3 t2 s0");
  CHECK_EQ_STR(node_text(m, f, 5), "compute d2 x3 t2 s2");

  /* the threads the flame can be narrowed to name their files */
  st_panel_buf tb = {0};
  st_alloc tal = {0};
  CHECK_EQ_INT(st_panel_threads_json(&tb, m, ST_TRACK_SAMPLES, &tal), ST_OK);
  char want[320];
  uint32_t tb2 = st_trace_rows(m, NULL)[merged_samples_row(m, 1, 2)].track;
  snprintf(want, sizeof want,
           "[{\"track\":%u,\"name\":\"CrRendererMain samples\",\"pid\":1,\"tid\":10,\"file\":"
           "\"rank-a\"},{\"track\":%u,\"name\":\"worker samples\",\"pid\":1,\"tid\":1,\"file\":"
           "\"rank-b\"},{\"track\":%u,\"name\":\"\",\"pid\":1,\"tid\":2,\"file\":\"rank-b\"}]",
           st_trace_rows(m, NULL)[ra].track, q.track, tb2);
  CHECK_EQ_STR(tb.text, want);
  st_panel_buf_free(&tb, &tal);

  /* the details of a sample name its own file's frames, leaf first */
  st_ui *ui = st_ui_create(NULL, m, 1280, 800, 1);
  st_panel_buf pb = {0};
  st_alloc al = {0};
  CHECK_EQ_INT(st_panel_event_json(&pb, ui, (st_event_ref){ra, 4}, &al), ST_OK);
  CHECK(pb.text && strstr(pb.text, "\"stack\":[\"leaf\",\"work\",\"main\",\"(root)\"],"
                                   "\"stack_depth\":4"));
  CHECK_EQ_INT(st_panel_event_json(&pb, ui, (st_event_ref){rb, 0}, &al), ST_OK);
  CHECK(pb.text && strstr(pb.text, "\"stack\":[\"compute\",\"main\"],\"stack_depth\":2"));
  st_panel_buf_free(&pb, &al);
  st_ui_destroy(ui);
  st_selection_destroy(sel);
  st_trace_destroy(m);
  st_trace_destroy(a);
  st_trace_destroy(b);

  /* the same file twice: every count doubles, one tree */
  a = load_shared("samples_v8.json", strs);
  b = load_shared("samples_v8.json", strs);
  if (!a || !b) return;
  parts[0] = a;
  parts[1] = b;
  m = st_trace_merge(NULL, parts, NULL, offs, 2, &err);
  CHECK(m != NULL);
  if (!m) return;
  q.t1 = st_trace_duration_ns(m) + 1;
  q.track = UINT32_MAX;
  CHECK_EQ_INT(st_flame_build(f, m, &q), ST_OK);
  nodes = st_flame_nodes(f, &n);
  CHECK_EQ_INT(n, 7);
  CHECK_EQ_STR(node_text(m, f, 0), "all d0 x0 t14 s0");
  CHECK_EQ_STR(node_text(m, f, 2), "main d2 x0 t12 s2");
  CHECK_EQ_STR(node_text(m, f, 3), "work d3 x0 t8 s6");
  CHECK_EQ_STR(node_text(m, f, 4), "leaf d4 x0 t2 s2");
  CHECK_EQ_STR(node_text(m, f, 6), "(idle) d2 x12 t2 s2");
  if (n == 7) CHECK_EQ_INT(nodes[2].total_ns, 1200000);
  st_flame_destroy(f);
  st_trace_destroy(m);
  st_trace_destroy(a);
  st_trace_destroy(b);
  st_strtab_destroy(strs);
}

/* The real V8 profile of the corpus: every sample of the 503 chunks is
 * placed (50,294, counted independently with python's json module). */
static void test_corpus_lighthouse(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/lighthouse__cpu-profiler-m86.trace.json", STRATA_CORPUS_DIR);
  size_t n;
  unsigned char *data = tu_read_file(path, &n);
  if (!data) {
    printf("  (skipped: %s not found)\n", path);
    return;
  }
  st_stats s;
  st_error err;
  st_trace *t = tu_load(data, n, 1 << 16, "lh.json", &err, &s, NULL, 0);
  free(data);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(s.samples, 50294);
  CHECK_EQ_INT(warn_count(&s, "sample_unknown_node"), 0);
  CHECK_EQ_INT(warn_count(&s, "skipped_phase"), 0);
  uint32_t tr = samples_track(t, 775), nt;
  const st_track *tracks = st_trace_tracks(t, &nt);
  CHECK(tr != UINT32_MAX && tr > 0);
  /* right under its thread's slices, though the thread has a sort index
   * (thread_sort_index -1) and instants too */
  if (tr != UINT32_MAX && tr > 0) {
    CHECK_EQ_INT(tracks[tr - 1].kind, ST_TRACK_SLICES);
    CHECK_EQ_INT(tracks[tr - 1].key, 775);
    CHECK_EQ_INT(tracks[tr].sort_index, -1);
    CHECK_EQ_STR(str(t, tracks[tr].name), "CrRendererMain samples");
  }
  st_flame *f = st_flame_create(NULL);
  st_flame_query q = {ST_FLAME_SAMPLES, NULL, 0, st_trace_duration_ns(t) + 1, UINT32_MAX};
  CHECK_EQ_INT(st_flame_build(f, t, &q), ST_OK);
  CHECK_EQ_INT(st_flame_nodes(f, NULL)[0].total, 50294);
  st_flame_destroy(f);
  st_trace_destroy(t);
}

int main(void) {
  RUN(test_v8_import);
  RUN(test_sample_tree);
  RUN(test_slice_tree);
  RUN(test_stack_frames);
  RUN(test_truncated);
  RUN(test_cpu_profile_event);
  RUN(test_interval);
  RUN(test_no_samples);
  RUN(test_merged_samples);
  RUN(test_corpus_lighthouse);
  return check_report();
}
