/* test_flows.c: flow arrows end to end. Binding rules per format (Chrome v1
 * s/t/f with bp and the input/ipc.flow category rule, t chains, v2 bind_id
 * with one producer feeding several consumers), file-order independence,
 * the sorted flow arrays and their lookups, the corpus files whose expected
 * arrows Perfetto's diff tests list, drawing (bounded, inside the clip,
 * toggle, focus) and the details JSON. */
#include "check.h"

#include "draw.h"
#include "load.h"
#include "lod.h"
#include "panel.h"
#include "ui.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>

typedef struct loaded {
  st_trace *trace;
  st_stats stats;
} loaded;

static loaded load_mem(const void *data, size_t n) {
  loaded out = {0};
  st_load_desc d;
  memset(&d, 0, sizeof d);
  st_loader *l = st_loader_create(&d);
  st_error e;
  st_loader_push(l, data, n);
  out.trace = st_loader_finish(l, &e);
  out.stats = *st_loader_stats(l);
  st_loader_destroy(l);
  return out;
}
static loaded load_str(const char *json) { return load_mem(json, strlen(json)); }

static unsigned long long warn_count(const st_stats *s, const char *kind) {
  for (uint32_t i = 0; i < s->warning_count; i++)
    if (!strcmp(s->warnings[i].kind, kind)) return (unsigned long long)s->warnings[i].count;
  return 0;
}

/* The names "from>to" sorted, so tests do not depend on row numbering. */
static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}
static void sorted_names(const st_trace *t, char *out, size_t cap) {
  char buf[4096], *parts[128];
  int n = 0;
  tu_flow_names(t, NULL, 0, buf, sizeof buf);
  for (char *p = strtok(buf, " "); p && n < 128; p = strtok(NULL, " ")) parts[n++] = p;
  qsort(parts, (size_t)n, sizeof *parts, cmp_str);
  out[0] = 0;
  size_t at = 0;
  for (int i = 0; i < n; i++) {
    int w = snprintf(out + at, cap - at, "%s%s", i ? " " : "", parts[i]);
    if (w < 0 || (size_t)w >= cap - at) break;
    at += (size_t)w;
  }
}

#define EXPECT_FLOWS(json, count, names)                                                           \
  do {                                                                                             \
    loaded l_ = load_str(json);                                                                    \
    CHECK(l_.trace != NULL);                                                                       \
    char got_[1024];                                                                               \
    sorted_names(l_.trace, got_, sizeof got_);                                                     \
    CHECK_EQ_INT(l_.stats.flows, count);                                                           \
    CHECK_EQ_STR(got_, names);                                                                     \
    st_trace_destroy(l_.trace);                                                                    \
  } while (0)

static void test_v1_enclosing_and_next(void) {
  /* s binds to the deepest slice enclosing it (child, not parent); f binds
   * to the next slice starting at/after it on its thread */
  EXPECT_FLOWS("[{\"ph\":\"X\",\"name\":\"parent\",\"ts\":0,\"dur\":100,\"pid\":1,\"tid\":1},"
               "{\"ph\":\"X\",\"name\":\"child\",\"ts\":10,\"dur\":40,\"pid\":1,\"tid\":1},"
               "{\"ph\":\"s\",\"name\":\"x\",\"cat\":\"c\",\"id\":7,\"ts\":20,\"pid\":1,\"tid\":1},"
               "{\"ph\":\"f\",\"name\":\"x\",\"cat\":\"c\",\"id\":7,\"ts\":30,\"pid\":1,\"tid\":2},"
               "{\"ph\":\"X\",\"name\":\"early\",\"ts\":25,\"dur\":10,\"pid\":1,\"tid\":2},"
               "{\"ph\":\"X\",\"name\":\"next\",\"ts\":40,\"dur\":10,\"pid\":1,\"tid\":2}]",
               1, "child>next");
  /* bp "e": the enclosing slice instead */
  EXPECT_FLOWS("[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":10,\"pid\":1,\"tid\":1},"
               "{\"ph\":\"s\",\"name\":\"x\",\"cat\":\"c\",\"id\":7,\"ts\":5,\"pid\":1,\"tid\":1},"
               "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"x\",\"cat\":\"c\",\"id\":7,\"ts\":30,\"pid\":"
               "1,\"tid\":2},"
               "{\"ph\":\"X\",\"name\":\"around\",\"ts\":25,\"dur\":10,\"pid\":1,\"tid\":2},"
               "{\"ph\":\"X\",\"name\":\"next\",\"ts\":40,\"dur\":10,\"pid\":1,\"tid\":2}]",
               1, "a>around");
  /* catapult's rule: a category with "input" or "ipc.flow" binds enclosing */
  EXPECT_FLOWS(
      "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":10,\"pid\":1,\"tid\":1},"
      "{\"ph\":\"s\",\"name\":\"x\",\"cat\":\"benchmark,input\",\"id\":7,\"ts\":5,\"pid\":1,"
      "\"tid\":1},"
      "{\"ph\":\"f\",\"name\":\"x\",\"cat\":\"benchmark,input\",\"id\":7,\"ts\":30,\"pid\":1,"
      "\"tid\":2},"
      "{\"ph\":\"s\",\"name\":\"y\",\"cat\":\"disabled-by-default-ipc.flow\",\"id\":8,\"ts\":5,"
      "\"pid\":1,\"tid\":1},"
      "{\"ph\":\"f\",\"name\":\"y\",\"cat\":\"disabled-by-default-ipc.flow\",\"id\":8,\"ts\":31,"
      "\"pid\":1,\"tid\":2},"
      "{\"ph\":\"X\",\"name\":\"around\",\"ts\":25,\"dur\":10,\"pid\":1,\"tid\":2},"
      "{\"ph\":\"X\",\"name\":\"next\",\"ts\":40,\"dur\":10,\"pid\":1,\"tid\":2}]",
      2, "a>around a>around");
}

static void test_v1_chains_and_order(void) {
  /* s -> t -> t -> f: three arrows, each t ends one and starts the next;
   * the file lists them backwards (chained by time, not file order) */
  const char *json =
      "[{\"ph\":\"f\",\"name\":\"x\",\"cat\":\"c\",\"id\":\"0x1\",\"ts\":35,\"pid\":1,\"tid\":4},"
      "{\"ph\":\"t\",\"name\":\"x\",\"cat\":\"c\",\"id\":\"0x1\",\"ts\":25,\"pid\":1,\"tid\":3},"
      "{\"ph\":\"t\",\"name\":\"x\",\"cat\":\"c\",\"id\":\"0x1\",\"ts\":15,\"pid\":1,\"tid\":2},"
      "{\"ph\":\"s\",\"name\":\"x\",\"cat\":\"c\",\"id\":\"0x1\",\"ts\":5,\"pid\":1,\"tid\":1},"
      "{\"ph\":\"X\",\"name\":\"A\",\"ts\":0,\"dur\":10,\"pid\":1,\"tid\":1},"
      "{\"ph\":\"X\",\"name\":\"B\",\"ts\":10,\"dur\":10,\"pid\":1,\"tid\":2},"
      "{\"ph\":\"X\",\"name\":\"C\",\"ts\":20,\"dur\":10,\"pid\":1,\"tid\":3},"
      "{\"ph\":\"X\",\"name\":\"D\",\"ts\":40,\"dur\":10,\"pid\":1,\"tid\":4}]";
  EXPECT_FLOWS(json, 3, "A>B B>C C>D");
  /* f ends the flow: a second f with the same id has no producer */
  loaded l = load_str("[{\"ph\":\"X\",\"name\":\"A\",\"ts\":0,\"dur\":10,\"pid\":1,\"tid\":1},"
                      "{\"ph\":\"X\",\"name\":\"B\",\"ts\":20,\"dur\":10,\"pid\":1,\"tid\":1},"
                      "{\"ph\":\"X\",\"name\":\"C\",\"ts\":40,\"dur\":10,\"pid\":1,\"tid\":1},"
                      "{\"ph\":\"s\",\"name\":\"x\",\"id\":1,\"ts\":5,\"pid\":1,\"tid\":1},"
                      "{\"ph\":\"f\",\"name\":\"x\",\"id\":1,\"ts\":15,\"pid\":1,\"tid\":1},"
                      "{\"ph\":\"f\",\"name\":\"x\",\"id\":1,\"ts\":35,\"pid\":1,\"tid\":1},"
                      /* unbindable: nothing encloses ts 100 on tid 1 */
                      "{\"ph\":\"s\",\"name\":\"y\",\"id\":2,\"ts\":100,\"pid\":1,\"tid\":1},"
                      "{\"ph\":\"f\",\"name\":\"y\",\"id\":2,\"ts\":101,\"pid\":1,\"tid\":1}]");
  CHECK_EQ_INT(l.stats.flows, 1);
  CHECK_EQ_INT(warn_count(&l.stats, "unmatched_flow"), 1);
  CHECK_EQ_INT(warn_count(&l.stats, "flow_unbound"), 1);
  st_trace_destroy(l.trace);
}

static void test_v2(void) {
  /* one producer feeds two consumers; a step (in + out) continues the chain;
   * B/E slices bind too */
  EXPECT_FLOWS("[{\"ph\":\"X\",\"name\":\"P\",\"ts\":0,\"dur\":5,\"pid\":1,\"tid\":1,"
               "\"bind_id\":\"0x9\",\"flow_out\":true},"
               "{\"ph\":\"X\",\"name\":\"C1\",\"ts\":10,\"dur\":5,\"pid\":1,\"tid\":2,"
               "\"bind_id\":\"0x9\",\"flow_in\":true},"
               "{\"ph\":\"B\",\"name\":\"C2\",\"ts\":12,\"pid\":2,\"tid\":3,"
               "\"bind_id\":\"0x9\",\"flow_in\":true},"
               "{\"ph\":\"E\",\"ts\":20,\"pid\":2,\"tid\":3},"
               "{\"ph\":\"X\",\"name\":\"S\",\"ts\":30,\"dur\":5,\"pid\":1,\"tid\":1,"
               "\"bind_id\":\"0xa\",\"flow_in\":true,\"flow_out\":true},"
               "{\"ph\":\"X\",\"name\":\"Q\",\"ts\":25,\"dur\":2,\"pid\":1,\"tid\":1,"
               "\"bind_id\":\"0xa\",\"flow_out\":true},"
               "{\"ph\":\"X\",\"name\":\"R\",\"ts\":40,\"dur\":5,\"pid\":1,\"tid\":2,"
               "\"bind_id\":\"0xa\",\"flow_in\":true}]",
               4, "P>C1 P>C2 Q>S S>R");
}

static void test_arrays_and_lookup(void) {
  /* many producers on one row, consumers spread: arrays sorted, lookups exact */
  char *json = malloc(200000);
  size_t at = 0;
  at += (size_t)sprintf(json + at, "[");
  for (int i = 0; i < 300; i++) {
    at += (size_t)sprintf(json + at,
                          "%s{\"ph\":\"X\",\"name\":\"p\",\"ts\":%d,\"dur\":5,\"pid\":1,\"tid\":1,"
                          "\"bind_id\":%d,\"flow_out\":true},"
                          "{\"ph\":\"X\",\"name\":\"c\",\"ts\":%d,\"dur\":5,\"pid\":1,\"tid\":%d,"
                          "\"bind_id\":%d,\"flow_in\":true}",
                          i ? "," : "", i * 10, i, i * 10 + 3, 2 + i % 3, i);
  }
  at += (size_t)sprintf(json + at, "]");
  loaded l = load_mem(json, at);
  free(json);
  CHECK_EQ_INT(l.stats.flows, 300);
  uint32_t nf, nin;
  const st_flow *f = st_trace_flows(l.trace, &nf);
  const uint32_t *in = st_trace_flows_in(l.trace, &nin);
  CHECK_EQ_INT(nf, 300);
  CHECK_EQ_INT(nin, 300);
  for (uint32_t i = 1; i < nf; i++) {
    CHECK(f[i - 1].from_row < f[i].from_row ||
          (f[i - 1].from_row == f[i].from_row && f[i - 1].from_index < f[i].from_index));
    const st_flow *a = &f[in[i - 1]], *b = &f[in[i]];
    CHECK(a->to_row < b->to_row || (a->to_row == b->to_row && a->to_index < b->to_index));
  }
  /* each producer p[i] (row of p, index i) has exactly flow i */
  uint32_t first, k = st_trace_flows_from(l.trace, f[0].from_row, 10, 20, &first);
  CHECK_EQ_INT(k, 10);
  CHECK_EQ_INT(f[first].from_index, 10);
  k = st_trace_flows_from(l.trace, f[0].from_row, 5, 5, &first);
  CHECK_EQ_INT(k, 0);
  k = st_trace_flows_to(l.trace, f[0].to_row, 0, 1000, &first);
  CHECK(k >= 99 && k <= 101);
  CHECK_EQ_INT(f[in[first]].to_row, f[0].to_row);
  CHECK_EQ_INT(st_trace_flows_from(NULL, 0, 0, 1, &first), 0);
  st_trace_destroy(l.trace);
}

static unsigned char *read_corpus(const char *name, size_t *n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", STRATA_CORPUS_DIR, name);
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  fseek(fp, 0, SEEK_END);
  long len = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  unsigned char *d = malloc(len > 0 ? (size_t)len : 1);
  *n = len > 0 && fread(d, 1, (size_t)len, fp) == (size_t)len ? (size_t)len : 0;
  fclose(fp);
  return d;
}

static void test_corpus(void) {
  /* the arrows Perfetto's diff tests expect for these two files
   * (test_flow_events_json_v1 / _v2: slice_out -> slice_in) */
  static const struct {
    const char *file, *names;
    long long flows;
  } cases[] = {
      {"perfetto__flow_events_json_v1.json",
       "OtherSlice>SomeSlice SenderA>OtherSlice SenderB>Blergh", 3},
      {"perfetto__flow_events_json_v2.json",
       "OtherSlice>SomeOtherSlice OtherSlice>SomeSlice SenderA>OtherSlice SenderB>Blergh", 4},
      {"catapult__flow.json", NULL, 420},
      {"hta__overlaid_critical_path_trace.json.gz", NULL, 313},
      {"hta__control.json.gz", NULL, 9450},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    size_t n;
    unsigned char *d = read_corpus(cases[c].file, &n);
    if (!d) continue;
    loaded l = load_mem(d, n);
    free(d);
    CHECK(l.trace != NULL);
    if (l.stats.flows != (uint64_t)cases[c].flows) fprintf(stderr, "%s\n", cases[c].file);
    CHECK_EQ_INT(l.stats.flows, cases[c].flows);
    if (cases[c].names) {
      char got[1024];
      sorted_names(l.trace, got, sizeof got);
      CHECK_EQ_STR(got, cases[c].names);
    }
    st_trace_destroy(l.trace);
  }
}

/* ---- drawing and details --------------------------------------------------- */

static int fake_glyph(void *ud, uint32_t cp, st_glyph *g) {
  (void)ud;
  *g = (st_glyph){7, 0.5f, -9, 6.5f, 2, (float)cp, 0, (float)cp, 1};
  return 1;
}
static st_font g_font = {12, 10, 3, fake_glyph, NULL};

/* lines of the flow commands: those drawn after the timeline's own lines in
 * the timeline clip; here: every line that is not axis-aligned, or is part
 * of an arrow head. Count lines whose colour is a flow colour instead. */
static uint32_t count_lines_not_axis(const st_drawlist *dl) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < dl->line_count; i++)
    if (dl->lines[i].x0 != dl->lines[i].x1 && dl->lines[i].y0 != dl->lines[i].y1) k++;
  return k;
}

static void test_draw_bounded(void) {
  /* 40000 producer -> consumer pairs between two threads: in the "all"
   * mode the frame bundles them (a few arrows per column, not one per
   * flow), looking at ST_DRAW_MAX_FLOW_SCAN of them (32768; the rest are
   * counted as left out), every line inside its command's clip */
  const int pairs = 40000;
  size_t cap = (size_t)pairs * 260 + 16, at = 0;
  char *json = malloc(cap);
  at += (size_t)sprintf(json + at, "[");
  for (int i = 0; i < pairs; i++)
    at += (size_t)sprintf(json + at,
                          "%s{\"ph\":\"X\",\"name\":\"p\",\"ts\":%d,\"dur\":5,\"pid\":1,\"tid\":1,"
                          "\"bind_id\":%d,\"flow_out\":true},"
                          "{\"ph\":\"X\",\"name\":\"c\",\"ts\":%d,\"dur\":5,\"pid\":1,\"tid\":2,"
                          "\"bind_id\":%d,\"flow_in\":true}",
                          i ? "," : "", i * 10, i, i * 10 + 7, i);
  at += (size_t)sprintf(json + at, "]");
  loaded l = load_mem(json, at);
  free(json);
  CHECK_EQ_INT(l.stats.flows, pairs);
  st_error err;
  st_lod *lod = st_lod_build(NULL, l.trace, &err);
  st_ui *ui = st_ui_create(NULL, l.trace, 1200, 600, 1);
  CHECK(lod && ui);
  st_drawlist dl = {0};
  st_draw_overlay ov;
  /* the default mode draws the selection's arrows only: none yet */
  CHECK(st_ui_flow_mode(ui) == ST_FLOWS_SELECTION);
  st_ui_overlay(ui, &ov);
  CHECK(ov.flows == 0 && ov.has_focus == 0);
  st_draw_input in = {l.trace, lod, st_ui_layout(ui), st_ui_view(ui), &g_font};
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  CHECK_EQ_INT(dl.flows_drawn, 0);
  CHECK_EQ_INT(count_lines_not_axis(&dl), 0);
  /* "all": every flow looked at is in one bundle; at most two bundles per
   * column (a consumer 2 us after its producer falls in the same column
   * or the next) */
  CHECK(st_ui_set_flow_mode(ui, ST_FLOWS_ALL) & ST_UI_FLOWS);
  st_ui_overlay(ui, &ov);
  CHECK(ov.flows == 1 && ov.has_focus == 0);
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  uint32_t columns = (uint32_t)(st_view_timeline_w(st_ui_view(ui)) / ST_DRAW_FLOW_CELL_PX) + 2;
  CHECK(dl.flows_drawn > 0 && dl.flows_drawn <= 2 * columns);
  CHECK_EQ_INT(dl.flows_capped, pairs - ST_DRAW_MAX_FLOW_SCAN);
  uint32_t nb, sum = 0;
  const st_flow_bundle *bs = st_flow_bundler_bundles(&dl.flow_bundles, &nb);
  for (uint32_t i = 0; i < nb; i++) sum += bs[i].count;
  CHECK_EQ_INT(sum, ST_DRAW_MAX_FLOW_SCAN);
  CHECK(dl.flows_bundled > ST_DRAW_MAX_FLOW_SCAN - 1000 && dl.flow_bundles_drawn > 0);
  /* the two rows are adjacent and busy: no clear place for a count label
   * (labels are never drawn over slices) */
  CHECK_EQ_INT(dl.flow_labels, 0);
  for (uint32_t c = 0; c < dl.cmd_count; c++) {
    const st_draw_cmd *cm = &dl.cmds[c];
    if (cm->kind != ST_DRAW_LINES) continue;
    for (uint32_t i = cm->first; i < cm->first + cm->count; i++) {
      const st_line *ln = &dl.lines[i];
      float e = ln->width / 2 + 0.01f;
      CHECK(fminf(ln->x0, ln->x1) >= cm->clip_x - e &&
            fmaxf(ln->x0, ln->x1) <= cm->clip_x + cm->clip_w + e);
      CHECK(fminf(ln->y0, ln->y1) >= cm->clip_y - e &&
            fmaxf(ln->y0, ln->y1) <= cm->clip_y + cm->clip_h + e);
    }
  }
  /* zoomed in: only the arrows of the window, each its own (100 px apart) */
  st_ui_set_view(ui, 1000000, 1100000); /* ns: ts 1000..1100 us */
  st_ui_overlay(ui, &ov);
  in.view = st_ui_view(ui);
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  CHECK(dl.flows_drawn >= 10 && dl.flows_drawn <= 13);
  CHECK_EQ_INT(dl.flows_capped, 0);
  CHECK_EQ_INT(dl.flow_bundles_drawn, 0);
  uint32_t with = count_lines_not_axis(&dl);
  CHECK(with >= dl.flows_drawn);
  /* key l cycles all -> off: no arrows at all... */
  CHECK(st_ui_key_down(ui, "l", 0) & ST_UI_FLOWS);
  CHECK(st_ui_flow_mode(ui) == ST_FLOWS_OFF);
  st_ui_overlay(ui, &ov);
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  CHECK_EQ_INT(dl.flows_drawn, 0);
  CHECK_EQ_INT(count_lines_not_axis(&dl), 0);
  /* ...not even the selected event's */
  const st_flow *f = st_trace_flows(l.trace, NULL);
  st_ui_select(ui, (st_event_ref){f[105].from_row, f[105].from_index}, 0);
  st_ui_overlay(ui, &ov);
  CHECK(!ov.has_focus);
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  CHECK_EQ_INT(dl.flows_drawn, 0);
  /* off -> selection: the selected event's, even when its other end is off screen */
  CHECK(st_ui_key_down(ui, "l", 0) & ST_UI_FLOWS);
  CHECK(st_ui_flow_mode(ui) == ST_FLOWS_SELECTION);
  st_ui_overlay(ui, &ov);
  CHECK(ov.has_focus && ov.focus_index == f[105].from_index);
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  CHECK_EQ_INT(dl.flows_drawn, 1);
  CHECK_EQ_INT(dl.flows_chain, 1);
  /* collapsed section: the arrow attaches to the header (still drawn) */
  st_ui_toggle_section(ui, 0);
  st_ui_overlay(ui, &ov);
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  CHECK_EQ_INT(dl.flows_drawn, 1);
  st_ui_toggle_section(ui, 0);

  /* details: the selected producer lists its consumer; selecting by
   * (row, index) from the link jumps there */
  st_panel_buf pb = {0};
  CHECK(st_panel_event_json(&pb, ui, (st_event_ref){f[105].from_row, f[105].from_index}, NULL) ==
        ST_OK);
  char want[128];
  snprintf(want, sizeof want, "\"flows_out\":[{\"row\":%u,\"index\":%u,\"name\":\"c\"",
           f[105].to_row, f[105].to_index);
  CHECK(strstr(pb.text, want) != NULL);
  CHECK(strstr(pb.text, "\"flows_out_count\":1") != NULL);
  CHECK(strstr(pb.text, "\"flows_in\":[],\"flows_in_count\":0") != NULL);
  CHECK(st_panel_state_json(&pb, ui, NULL) == ST_OK && strstr(pb.text, "\"flows\":\"selection\""));
  st_panel_buf_free(&pb, NULL);

  st_drawlist_free(&dl, NULL);
  st_ui_destroy(ui);
  st_lod_destroy(lod);
  st_trace_destroy(l.trace);
}

/* The overlay's edges (a critical path's cross-rank arrows): one arrow from
 * an event's start to another's end, at the middle of their rows, in
 * ST_DRAW_EDGE_RGBA, following the view; none without edges. */
static const st_line *edge_line(const st_drawlist *dl, uint32_t *count) {
  const st_line *first = NULL;
  *count = 0;
  for (uint32_t i = 0; i < dl->line_count; i++)
    if (dl->lines[i].rgba == ST_DRAW_EDGE_RGBA) {
      if (!first) first = &dl->lines[i];
      ++*count;
    }
  return first;
}

static void test_draw_edges(void) {
  loaded l = load_str("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":50},"
                      "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":120,\"dur\":100}]");
  CHECK(l.trace != NULL);
  st_error err;
  st_lod *lod = st_lod_build(NULL, l.trace, &err);
  st_ui *ui = st_ui_create(NULL, l.trace, 1200, 600, 1);
  CHECK(lod && ui);
  uint32_t nr, ra = UINT32_MAX, rb = UINT32_MAX;
  const st_row *rows = st_trace_rows(l.trace, &nr);
  for (uint32_t r = 0; r < nr; r++)
    if (rows[r].count == 1) *(rows[r].dur[0] == 50000 ? &ra : &rb) = r;
  CHECK(ra != UINT32_MAX && rb != UINT32_MAX && ra != rb);
  st_draw_edge e = {ra, 0, rb, 0, 0, 1};
  st_drawlist dl = {0};
  st_draw_overlay ov;
  for (int zoom = 0; zoom < 2; zoom++) {
    /* ns from the trace's start: the whole, then b's end near the middle */
    st_ui_set_view(ui, zoom ? -20000 : -10000, zoom ? 200000 : 150000);
    st_ui_overlay(ui, &ov);
    ov.edges = &e;
    ov.edge_count = 1;
    st_draw_input in = {l.trace, lod, st_ui_layout(ui), st_ui_view(ui), &g_font};
    CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
    CHECK_EQ_INT(dl.edges_drawn, 1);
    uint32_t n;
    const st_line *ln = edge_line(&dl, &n);
    CHECK_EQ_INT(n, 3); /* the shaft and the head's two sides */
    const st_layout *lay = st_ui_layout(ui);
    const st_view *v = st_ui_view(ui);
    const st_layout_item *items = st_layout_items(lay, NULL);
    uint32_t ia = st_layout_item_of_row(lay, ra), ib = st_layout_item_of_row(lay, rb);
    float ya = st_layout_screen_y(lay, v, ia) + items[ia].h / 2;
    float yb = st_layout_screen_y(lay, v, ib) + items[ib].h / 2;
    CHECK(ln && fabsf(ln->x0 - (float)st_view_x_of(v, (double)rows[ra].start[0])) < 0.01f);
    CHECK(ln && fabsf(ln->y0 - ya) < 0.01f);
    CHECK(ln && fabsf(ln->x1 - (float)st_view_x_of(
                                   v, (double)(rows[rb].start[0] + rows[rb].dur[0]))) < 0.01f);
    CHECK(ln && fabsf(ln->y1 - yb) < 0.01f);
  }
  /* without edges: nothing of that colour */
  st_ui_overlay(ui, &ov);
  st_draw_input in = {l.trace, lod, st_ui_layout(ui), st_ui_view(ui), &g_font};
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  uint32_t n;
  edge_line(&dl, &n);
  CHECK_EQ_INT(dl.edges_drawn, 0);
  CHECK_EQ_INT(n, 0);
  st_drawlist_free(&dl, NULL);
  st_ui_destroy(ui);
  st_lod_destroy(lod);
  st_trace_destroy(l.trace);
}

int main(void) {
  RUN(test_v1_enclosing_and_next);
  RUN(test_v1_chains_and_order);
  RUN(test_v2);
  RUN(test_arrays_and_lookup);
  RUN(test_corpus);
  RUN(test_draw_bounded);
  RUN(test_draw_edges);
  return check_report();
}
