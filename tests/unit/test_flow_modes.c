/* test_flow_modes.c: the flow modes off / selection / all (core/ui/ui.h
 * st_flow_mode). The chain of a selected event (core/index/flow_chain.h:
 * downstream and upstream, no side branches, capped; of several events:
 * the union of their chains, each arrow once, against the single chains
 * put together, and a box selection's in the frame), the bundler
 * (core/draw/flow_bundle.h: known ends -> known bundles and counts, the
 * cap), the frame (the arrows in view bundled and drawn before the slices,
 * the selection's chain after them; bundles and counts against cells
 * computed here from the events' times), and the app (the mode kept across
 * loads, key l cycling it, the frame stats reporting it). */
#include "check.h"

#include "app.h"
#include "flow_chain.h"
#include "load.h"
#include "lod.h"
#include "test_util.h"
#include "ui.h"

#include <math.h>

static st_trace *load_str(const char *json) {
  st_error err;
  st_stats stats;
  return tu_load(json, strlen(json), strlen(json), "t.json", &err, &stats, NULL, 0);
}

/* A -> B -> C (flow 1, s/t/f), D -> E (flow 2, elsewhere), P -> C (flow 3:
 * a side branch arriving at C), Q -> B (flow 4: one arriving at B). */
static const char *CHAIN_JSON =
    "[{\"ph\":\"X\",\"name\":\"A\",\"ts\":0,\"dur\":5,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"s\",\"name\":\"x\",\"cat\":\"c\",\"id\":1,\"ts\":1,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"X\",\"name\":\"B\",\"ts\":10,\"dur\":5,\"pid\":1,\"tid\":2},"
    "{\"ph\":\"t\",\"name\":\"x\",\"cat\":\"c\",\"id\":1,\"ts\":11,\"pid\":1,\"tid\":2},"
    "{\"ph\":\"X\",\"name\":\"C\",\"ts\":20,\"dur\":5,\"pid\":1,\"tid\":3},"
    "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"x\",\"cat\":\"c\",\"id\":1,\"ts\":21,\"pid\":1,\"tid\":"
    "3},"
    "{\"ph\":\"X\",\"name\":\"D\",\"ts\":30,\"dur\":5,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"s\",\"name\":\"y\",\"cat\":\"c\",\"id\":2,\"ts\":31,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"X\",\"name\":\"E\",\"ts\":40,\"dur\":5,\"pid\":1,\"tid\":3},"
    "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"y\",\"cat\":\"c\",\"id\":2,\"ts\":41,\"pid\":1,\"tid\":"
    "3},"
    "{\"ph\":\"X\",\"name\":\"P\",\"ts\":5,\"dur\":2,\"pid\":1,\"tid\":4},"
    "{\"ph\":\"s\",\"name\":\"z\",\"cat\":\"c\",\"id\":3,\"ts\":6,\"pid\":1,\"tid\":4},"
    "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"z\",\"cat\":\"c\",\"id\":3,\"ts\":22,\"pid\":1,\"tid\":"
    "3},"
    "{\"ph\":\"X\",\"name\":\"Q\",\"ts\":3,\"dur\":2,\"pid\":1,\"tid\":5},"
    "{\"ph\":\"s\",\"name\":\"q\",\"cat\":\"c\",\"id\":4,\"ts\":4,\"pid\":1,\"tid\":5},"
    "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"q\",\"cat\":\"c\",\"id\":4,\"ts\":12,\"pid\":1,\"tid\":"
    "2}]";

static void test_chain(void) {
  st_trace *t = load_str(CHAIN_JSON);
  CHECK(t != NULL);
  if (!t) return;
  uint32_t nf;
  st_trace_flows(t, &nf);
  CHECK_EQ_INT(nf, 5);
  uint32_t chain[8], more = 7;
  char names[256];
  struct {
    const char *event, *want;
  } cases[] = {
      {"A", "A>B B>C"},         /* downstream only; P>C, Q>B arrive from elsewhere */
      {"B", "B>C A>B Q>B"},     /* downstream, then upstream */
      {"C", "B>C P>C A>B Q>B"}, /* upstream, breadth first */
      {"D", "D>E"},             /* another chain */
      {"P", "P>C"},             /* C's other producer is not P's chain */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    st_event_ref r = tu_ref_named(t, cases[k].event);
    uint32_t n = st_flow_chain(t, r.row, r.index, chain, 8, &more);
    tu_flow_names(t, chain, n, names, sizeof names);
    CHECK_EQ_STR(names, cases[k].want);
    CHECK_EQ_INT(more, 0);
  }
  /* the cap: the first arrow found, and "more" */
  st_event_ref c = tu_ref_named(t, "C");
  CHECK_EQ_INT(st_flow_chain(t, c.row, c.index, chain, 1, &more), 1);
  CHECK_EQ_INT(more, 1);
  /* an event without flows, a bad event, no room */
  CHECK_EQ_INT(st_flow_chain(t, c.row, 99, chain, 8, &more), 0);
  CHECK_EQ_INT(st_flow_chain(t, 999, 0, chain, 8, NULL), 0);
  CHECK_EQ_INT(st_flow_chain(t, c.row, c.index, chain, 0, NULL), 0);
  st_trace_destroy(t);
}

/* The union of the single events' chains, sorted (the expected answer). */
static uint32_t union_of_chains(const st_trace *t, const char *const *names, uint32_t *out) {
  uint32_t n = 0, one[8];
  for (const char *const *e = names; *e; e++) {
    st_event_ref r = tu_ref_named(t, *e);
    uint32_t k = st_flow_chain(t, r.row, r.index, one, 8, NULL);
    for (uint32_t j = 0; j < k; j++) {
      uint32_t i = 0;
      while (i < n && out[i] != one[j]) i++;
      if (i == n) out[n++] = one[j];
    }
  }
  for (uint32_t i = 1; i < n; i++) /* insertion sort */
    for (uint32_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
      uint32_t x = out[j];
      out[j] = out[j - 1];
      out[j - 1] = x;
    }
  return n;
}

/* The chain of several events: the union, each arrow once, capped. */
static void check_spans(const char *json, const char *const *names, const char *want) {
  st_trace *t = load_str(json);
  CHECK(t != NULL);
  if (!t) return;
  st_selection *s = st_selection_create(NULL);
  for (const char *const *e = names; *e; e++) {
    st_event_ref r = tu_ref_named(t, *e);
    st_selection_add(s, r.row, r.index, r.index + 1);
  }
  uint32_t ns, chain[8], more = 7, expect[8];
  const st_sel_span *sp = st_selection_spans(s, &ns);
  uint32_t n = st_flow_chain_spans(t, sp, ns, chain, 8, &more);
  CHECK_EQ_INT(more, 0);
  char names_got[256];
  tu_flow_names(t, chain, n, names_got, sizeof names_got);
  CHECK_EQ_STR(names_got, want);
  /* each once, and the same set as the events' chains put together */
  uint32_t ne = union_of_chains(t, names, expect);
  CHECK_EQ_INT(n, ne);
  for (uint32_t i = 0; i < ne; i++) {
    uint32_t seen = 0;
    for (uint32_t j = 0; j < n; j++) seen += chain[j] == expect[i];
    CHECK_EQ_INT(seen, 1);
  }
  /* the cap counts for all of them together */
  if (n > 1) {
    CHECK_EQ_INT(st_flow_chain_spans(t, sp, ns, chain, n - 1, &more), n - 1);
    CHECK_EQ_INT(more, 1);
  }
  st_selection_destroy(s);
  st_trace_destroy(t);
}

static void test_chain_spans(void) {
  /* two chains: B's (B>C, A>B, Q>B) and D's */
  check_spans(CHAIN_JSON, (const char *const[]){"B", "D", NULL}, "D>E B>C A>B Q>B");
  /* three events of one chain: each arrow once */
  check_spans(CHAIN_JSON, (const char *const[]){"A", "B", "C", NULL}, "A>B B>C Q>B P>C");
  /* B>C is downstream of A and upstream of C: followed both ways, so Q>B
   * (in C's chain, not in A's) is in */
  check_spans(CHAIN_JSON, (const char *const[]){"A", "C", NULL}, "A>B B>C P>C Q>B");
  /* spans outside the trace are skipped, past the end clipped */
  st_trace *t = load_str(CHAIN_JSON);
  if (!t) return;
  st_event_ref d = tu_ref_named(t, "D");
  st_sel_span bad[] = {{999, 0, 1}, {d.row, d.index, 1000}};
  uint32_t chain[8], more;
  CHECK_EQ_INT(st_flow_chain_spans(t, bad, 2, chain, 8, &more), 1);
  CHECK_EQ_INT(st_flow_chain_spans(t, NULL, 0, chain, 8, &more), 0);
  st_trace_destroy(t);
}

static void test_bundler(void) {
  st_flow_bundler fb = {0};
  /* cells 10 px wide from x = 100 */
  CHECK(st_flow_bundler_begin(&fb, 10, 100, 4, NULL) == ST_OK);
  CHECK_EQ_INT(st_flow_bundler_cell(&fb, 100), 0);
  CHECK_EQ_INT(st_flow_bundler_cell(&fb, 109.9f), 0);
  CHECK_EQ_INT(st_flow_bundler_cell(&fb, 110), 1);
  CHECK_EQ_INT(st_flow_bundler_cell(&fb, 99.5f), -1);
  CHECK_EQ_INT(st_flow_bundler_cell(&fb, -1e11f), -1073741824);
  CHECK_EQ_INT(st_flow_bundler_add(&fb, 1, 105, 50, 2, 125, 80), 1);    /* (1,0)->(2,2): new */
  CHECK_EQ_INT(st_flow_bundler_add(&fb, 1, 109, 50, 2, 121, 80), 1);    /* same cells: joins */
  CHECK_EQ_INT(st_flow_bundler_add(&fb, 1, 110, 50, 2, 121, 80), 1);    /* (1,1)->(2,2): new */
  CHECK_EQ_INT(st_flow_bundler_add(&fb, 1, 101, 50, 3, 125, 90), 1);    /* other track: new */
  CHECK_EQ_INT(st_flow_bundler_add(&fb, 1, 107, 50, 2, 129.5f, 80), 1); /* joins the first */
  CHECK_EQ_INT(st_flow_bundler_add(&fb, 1, 95, 50, 2, 125, 80), 1);     /* (1,-1): new, the 4th */
  CHECK_EQ_INT(st_flow_bundler_add(&fb, 1, 85, 50, 2, 125, 80), 0);     /* (1,-2), a 5th: full */
  CHECK_EQ_INT(st_flow_bundler_add(&fb, 1, 103, 50, 3, 129, 90), 1);    /* joins: still room */
  /* the first bundle is drawn between the rows of its shortest member */
  CHECK_EQ_INT(st_flow_bundler_add(&fb, 1, 108, 70, 2, 127, 80), 1); /* 10 px tall: shortest */
  CHECK_EQ_INT(st_flow_bundler_add(&fb, 1, 106, 20, 2, 121, 80), 1); /* 60 px: not */
  uint32_t n;
  const st_flow_bundle *b = st_flow_bundler_bundles(&fb, &n);
  CHECK_EQ_INT(n, 4);
  uint32_t want_count[4] = {5, 1, 2, 1};
  float want_x0[4] = {107, 110, 102, 95}, want_x1[4] = {124.7f, 121, 127, 125};
  float want_y0[4] = {70, 50, 50, 50}, want_y1[4] = {80, 80, 90, 80};
  for (uint32_t i = 0; i < 4 && i < n; i++) {
    CHECK_EQ_INT(b[i].count, want_count[i]);
    CHECK(fabsf(b[i].x0 - want_x0[i]) < 1e-3f);
    CHECK(fabsf(b[i].x1 - want_x1[i]) < 1e-3f);
    CHECK(b[i].y0 == want_y0[i] && b[i].y1 == want_y1[i]);
  }
  /* a new frame starts empty, with the buffers kept */
  const st_flow_bundle *before = fb.bundles;
  CHECK(st_flow_bundler_begin(&fb, 10, 100, 4, NULL) == ST_OK);
  st_flow_bundler_bundles(&fb, &n);
  CHECK_EQ_INT(n, 0);
  CHECK(fb.bundles == before);
  CHECK(st_flow_bundler_begin(&fb, 0, 100, 4, NULL) == ST_ERR_ARG);
  CHECK_EQ_INT(st_flow_bundler_add(&fb, 1, 105, 50, 2, 125, 80), 0); /* after a failed begin */
  st_flow_bundler_free(&fb, NULL);
}

static int fake_glyph(void *ud, uint32_t cp, st_glyph *g) {
  (void)ud;
  *g = (st_glyph){7, 0, -9, 6, 2, (float)cp, 0, (float)cp, 1};
  return 1;
}
static const st_font g_font = {12, 10, 3, fake_glyph, NULL};

#define COL_FLOW 0x965a4a46u       /* draw.c: rgba(70, 74, 90, 150) */
#define COL_FLOW_FOCUS 0xff006ee6u /* draw.c: rgba(230, 110, 0, 255) */

/* The index of the first command of `kind` holding a primitive that
 * matches (lines: of colour rgba; rects: covering (x, y)); -1 if none. */
static int cmd_with_line(const st_drawlist *dl, uint32_t rgba) {
  for (uint32_t c = 0; c < dl->cmd_count; c++) {
    const st_draw_cmd *cm = &dl->cmds[c];
    if (cm->kind != ST_DRAW_LINES) continue;
    for (uint32_t i = cm->first; i < cm->first + cm->count; i++)
      if (dl->lines[i].rgba == rgba) return (int)c;
  }
  return -1;
}
static int cmd_with_rect_at(const st_drawlist *dl, float x, float y, uint32_t rgba) {
  for (uint32_t c = 0; c < dl->cmd_count; c++) {
    const st_draw_cmd *cm = &dl->cmds[c];
    if (cm->kind != ST_DRAW_RECTS) continue;
    for (uint32_t i = cm->first; i < cm->first + cm->count; i++) {
      const st_rect *r = &dl->rects[i];
      if (r->rgba == rgba && x >= r->x && x < r->x + r->w && y >= r->y && y < r->y + r->h)
        return (int)c;
    }
  }
  return -1;
}

/* A trace drawn in a 1200 x 600 view: its LOD, ui, draw list and input. */
typedef struct frame_fx {
  st_trace *t;
  st_lod *lod;
  st_ui *ui;
  st_drawlist dl;
  st_draw_overlay ov;
  st_draw_input in;
} frame_fx;

static int fx_open(frame_fx *x, st_trace *t) {
  memset(x, 0, sizeof *x);
  CHECK(t != NULL);
  if (!t) return 0;
  st_error err;
  x->t = t;
  x->lod = st_lod_build(NULL, t, &err);
  x->ui = st_ui_create(NULL, t, 1200, 600, 1);
  CHECK(x->lod && x->ui);
  x->in = (st_draw_input){t, x->lod, st_ui_layout(x->ui), st_ui_view(x->ui), &g_font};
  return 1;
}

static void fx_close(frame_fx *x) {
  st_drawlist_free(&x->dl, NULL);
  st_ui_destroy(x->ui);
  st_lod_destroy(x->lod);
  st_trace_destroy(x->t);
}

/* A box over B and D (rows of threads 1 and 2, 10..35 us): both chains are
 * drawn, each arrow once, and the frame counts them. */
static void test_box_chain(void) {
  frame_fx x;
  if (!fx_open(&x, load_str(CHAIN_JSON))) return;
  st_trace *t = x.t;
  st_ui *ui = x.ui;
  st_ui_fit(ui);
  const st_layout *l = st_ui_layout(ui);
  const st_layout_item *items = st_layout_items(l, NULL);
  const st_layout_item *ia = &items[st_layout_item_of_row(l, tu_ref_named(t, "A").row)];
  const st_layout_item *ib = &items[st_layout_item_of_row(l, tu_ref_named(t, "B").row)];
  float y0 = ia->y < ib->y ? ia->y : ib->y;
  float y1 = (ia->y > ib->y ? ia->y + ia->h : ib->y + ib->h) - 1;
  st_ui_select_box(ui, 10000, 35000, y0 + 1, y1, 0);
  CHECK_EQ_INT(st_selection_count(st_ui_selection(ui)), 2); /* B and D */
  CHECK(!st_ui_selected_one(ui, NULL));
  st_ui_overlay(ui, &x.ov);
  CHECK(x.ov.has_focus && x.ov.chain_sel == st_ui_selection(ui));
  CHECK(st_draw_frame_overlay(&x.dl, &x.in, &x.ov, NULL) == ST_OK);
  CHECK_EQ_INT(x.dl.flows_chain, 4); /* B>C, A>B, Q>B, D>E */
  CHECK_EQ_INT(x.dl.flows_drawn, 4);
  CHECK_EQ_INT(x.dl.flows_capped, 0);
  /* off: none */
  st_ui_set_flow_mode(ui, ST_FLOWS_OFF);
  st_ui_overlay(ui, &x.ov);
  CHECK(!x.ov.has_focus && !x.ov.chain_sel);
  CHECK(st_draw_frame_overlay(&x.dl, &x.in, &x.ov, NULL) == ST_OK);
  CHECK_EQ_INT(x.dl.flows_drawn, 0);
  fx_close(&x);
}

static void test_frame(void) {
  /* 60 launches (producers) 2 us apart on thread 1, each feeding a kernel
   * on thread 3 (100 us later), a last event at 3000 us on thread 2 (in
   * between: the arrows cross its empty row): at the first view the
   * launches share a few columns */
  size_t cap = 60 * 300 + 256, at = 0;
  char *json = malloc(cap);
  at += (size_t)snprintf(json + at, cap - at, "[");
  for (int i = 0; i < 60; i++)
    at += (size_t)snprintf(
        json + at, cap - at,
        "{\"ph\":\"X\",\"name\":\"launch\",\"ts\":%d,\"dur\":1,\"pid\":1,\"tid\":1,"
        "\"bind_id\":%d,\"flow_out\":true},"
        "{\"ph\":\"X\",\"name\":\"kernel\",\"ts\":%d,\"dur\":1,\"pid\":1,\"tid\":3,"
        "\"bind_id\":%d,\"flow_in\":true},",
        2 * i, i, 100 + 2 * i, i);
  at += (size_t)snprintf(
      json + at, cap - at,
      "{\"ph\":\"X\",\"name\":\"end\",\"ts\":3000,\"dur\":1,\"pid\":1,\"tid\":2}]");
  frame_fx x;
  int ok = fx_open(&x, load_str(json));
  free(json);
  if (!ok) return;
  st_trace *t = x.t;
  st_ui *ui = x.ui;
  st_drawlist dl = {0};
  st_draw_overlay ov;
  st_draw_input in = x.in;
  st_ui_fit(ui); /* the whole trace (the first view would leave "end" out) */
  st_ui_set_flow_mode(ui, ST_FLOWS_ALL);
  st_ui_overlay(ui, &ov);
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);

  /* the bundles expected: the distinct (launch end column, kernel start
   * column) pairs, each with how many flows have them */
  const st_view *v = st_ui_view(ui);
  const st_flow *f = st_trace_flows(t, NULL);
  const st_row *rows = st_trace_rows(t, NULL);
  int32_t key0[60], key1[60];
  uint32_t count[60], nkeys = 0;
  for (uint32_t i = 0; i < 60; i++) {
    const st_row *a = &rows[f[i].from_row], *b = &rows[f[i].to_row];
    float x0 = st_view_x_of(v, (double)a->start[f[i].from_index] + (double)a->dur[f[i].from_index]);
    float x1 = st_view_x_of(v, (double)b->start[f[i].to_index]);
    int32_t c0 = (int32_t)floorf((x0 - ST_VIEW_GUTTER_W) / ST_DRAW_FLOW_CELL_PX);
    int32_t c1 = (int32_t)floorf((x1 - ST_VIEW_GUTTER_W) / ST_DRAW_FLOW_CELL_PX);
    uint32_t k = 0;
    while (k < nkeys && (key0[k] != c0 || key1[k] != c1)) k++;
    if (k == nkeys) key0[nkeys] = c0, key1[nkeys] = c1, count[nkeys++] = 0;
    count[k]++;
  }
  CHECK(nkeys < 10); /* the point of the test: far fewer arrows than flows */
  uint32_t nb;
  const st_flow_bundle *bs = st_flow_bundler_bundles(&dl.flow_bundles, &nb);
  CHECK_EQ_INT(nb, nkeys);
  uint32_t multi = 0, in_multi = 0;
  for (uint32_t k = 0; k < nkeys; k++) {
    uint32_t j = 0;
    while (j < nb && (bs[j].src_cell != key0[k] || bs[j].dst_cell != key1[k])) j++;
    CHECK(j < nb);
    if (j < nb) CHECK_EQ_INT(bs[j].count, count[k]);
    if (count[k] > 1) multi++, in_multi += count[k];
  }
  CHECK_EQ_INT(dl.flows_drawn, nkeys);
  CHECK_EQ_INT(dl.flow_bundles_drawn, multi);
  CHECK_EQ_INT(dl.flows_bundled, in_multi);
  CHECK(dl.flow_labels >= 1 && dl.flow_labels <= multi);
  /* the count labels (draw.c COL_FLOW_LABEL_BG) cover no slice */
  uint32_t labels = 0;
  for (uint32_t i = 0; i < dl.rect_count; i++) {
    const st_rect *l = &dl.rects[i];
    if (l->rgba != 0xEBFBFAFAu) continue;
    labels++;
    for (uint32_t j = 0; j < dl.rect_count; j++) {
      const st_rect *r = &dl.rects[j];
      if (!(r->flags & ST_RECT_MERGED) && r->rgba != st_color_for_name("launch", 6) &&
          r->rgba != st_color_for_name("kernel", 6) && r->rgba != st_color_for_name("end", 3))
        continue;
      CHECK(
          !(l->x < r->x + r->w && r->x < l->x + l->w && l->y < r->y + r->h && r->y < l->y + l->h));
    }
  }
  CHECK_EQ_INT(labels, dl.flow_labels);
  CHECK_EQ_INT(dl.flows_chain, 0);

  /* translucent slices (merged blocks here) get an opaque backing, drawn
   * after the arrows and before the slices */
  uint32_t merged = 0, backed = 0;
  for (uint32_t c = 0; c < dl.cmd_count; c++) {
    if (dl.cmds[c].kind != ST_DRAW_RECTS) continue;
    for (uint32_t i = dl.cmds[c].first; i < dl.cmds[c].first + dl.cmds[c].count; i++) {
      const st_rect *r = &dl.rects[i];
      if (!(r->flags & ST_RECT_MERGED)) continue;
      merged++;
      int b = cmd_with_rect_at(&dl, r->x + r->w / 2, r->y + r->h / 2, 0xFFFBFAFAu);
      backed += b > cmd_with_line(&dl, COL_FLOW) && b < (int)c;
    }
  }
  CHECK(merged > 0);
  CHECK_EQ_INT(backed, merged);
  /* the grid over the backings (a slice looks the same with arrows or without) */
  const st_rect *m0 = NULL;
  for (uint32_t i = 0; i < dl.rect_count && !m0; i++)
    if (dl.rects[i].flags & ST_RECT_MERGED) m0 = &dl.rects[i];
  if (m0) CHECK(cmd_with_line(&dl, 0x12000000u) > cmd_with_rect_at(&dl, m0->x, m0->y, 0xFFFBFAFAu));

  /* the layers: the arrows in view before the slices' rects, the selected
   * event's chain after them */
  st_event_ref k0 = tu_ref_named(t, "kernel");
  float kx = st_view_x_of(v, (double)rows[k0.row].start[k0.index]) + 0.5f;
  uint32_t nit;
  const st_layout_item *items = st_layout_items(st_ui_layout(ui), &nit);
  const st_layout_item *kit = &items[st_layout_item_of_row(st_ui_layout(ui), k0.row)];
  float ky = ST_VIEW_AXIS_H + kit->y - v->scroll_y + kit->h / 2;
  uint32_t kcol = st_color_for_name("kernel", 6);
  int under = cmd_with_line(&dl, COL_FLOW), slices = cmd_with_rect_at(&dl, kx, ky, kcol);
  CHECK(under >= 0 && slices >= 0 && under < slices);
  st_ui_select(ui, k0, 0);
  st_ui_overlay(ui, &ov);
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  CHECK_EQ_INT(dl.flows_chain, 1);
  int over = cmd_with_line(&dl, COL_FLOW_FOCUS);
  slices = cmd_with_rect_at(&dl, kx, ky, kcol);
  CHECK(over > slices && slices > cmd_with_line(&dl, COL_FLOW));
  /* selection mode: the chain alone; off: nothing */
  st_ui_set_flow_mode(ui, ST_FLOWS_SELECTION);
  st_ui_overlay(ui, &ov);
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  CHECK(dl.flows_drawn == 1 && dl.flows_chain == 1 && cmd_with_line(&dl, COL_FLOW) < 0);
  for (uint32_t i = 0; i < dl.rect_count; i++) /* no arrows under them: no backing */
    CHECK(dl.rects[i].rgba != 0xFFFBFAFAu);
  st_ui_set_flow_mode(ui, ST_FLOWS_OFF);
  st_ui_overlay(ui, &ov);
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  CHECK(dl.flows_drawn == 0 && cmd_with_line(&dl, COL_FLOW_FOCUS) < 0);
  CHECK_EQ_INT(st_ui_set_flow_mode(ui, (st_flow_mode)3), 0); /* out of range: unchanged */
  CHECK(st_ui_flow_mode(ui) == ST_FLOWS_OFF);

  st_drawlist_free(&dl, NULL);
  fx_close(&x);
}

/* A selection of more runs than ST_DRAW_MAX_CHAIN_SPANS (every other event
 * of a thread, as Op stats selects the instances of a name): the chain is
 * looked for in the first runs only, and the frame says it left some out. */
static void test_chain_span_cap(void) {
  uint32_t n = 2 * ST_DRAW_MAX_CHAIN_SPANS + 4;
  size_t cap = (size_t)n * 80 + 1024, at = 0;
  char *json = malloc(cap);
  CHECK(json != NULL);
  if (!json) return;
  at += (size_t)snprintf(json + at, cap - at, "[");
  for (uint32_t i = 0; i < n; i++) { /* the first and the last launch an arrow */
    int flow = i == 0 || i == n - 1;
    at += (size_t)snprintf(
        json + at, cap - at,
        "{\"ph\":\"X\",\"name\":\"e\",\"ts\":%u,\"dur\":2,\"pid\":1,\"tid\":1%s},", 10 * i,
        flow ? i ? ",\"bind_id\":2,\"flow_out\":true" : ",\"bind_id\":1,\"flow_out\":true" : "");
  }
  at += (size_t)snprintf(
      json + at, cap - at,
      "{\"ph\":\"X\",\"name\":\"k\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":2,\"bind_id\":1,"
      "\"flow_in\":true},"
      "{\"ph\":\"X\",\"name\":\"k\",\"ts\":%u,\"dur\":1,\"pid\":1,\"tid\":2,\"bind_id\":2,"
      "\"flow_in\":true}]",
      10 * (n - 1) + 5);
  frame_fx x;
  int ok = fx_open(&x, load_str(json));
  free(json);
  if (!ok) return;
  st_ui_fit(x.ui);
  uint32_t nf;
  st_trace_flows(x.t, &nf);
  CHECK_EQ_INT(nf, 2);
  st_event_ref e0 = tu_ref_named(x.t, "e");
  st_selection *s = st_selection_create(NULL);
  /* the first and the last event: two runs, both arrows */
  st_selection_add(s, e0.row, 0, 1);
  st_selection_add(s, e0.row, n - 1, n);
  CHECK(st_ui_set_selection(x.ui, s));
  st_ui_overlay(x.ui, &x.ov);
  CHECK(x.ov.chain_sel != NULL);
  CHECK(st_draw_frame_overlay(&x.dl, &x.in, &x.ov, NULL) == ST_OK);
  CHECK_EQ_INT(x.dl.flows_chain, 2);
  CHECK_EQ_INT(x.dl.flows_capped, 0);
  /* every other event: n / 2 runs, the last one past the cap */
  for (uint32_t i = 0; i < n; i += 2) st_selection_add(s, e0.row, i, i + 1);
  uint32_t runs;
  st_selection_spans(s, &runs);
  CHECK(runs > ST_DRAW_MAX_CHAIN_SPANS);
  CHECK(st_ui_set_selection(x.ui, s));
  st_ui_overlay(x.ui, &x.ov);
  CHECK(st_draw_frame_overlay(&x.dl, &x.in, &x.ov, NULL) == ST_OK);
  CHECK_EQ_INT(x.dl.flows_chain, 1); /* the first event's */
  CHECK_EQ_INT(x.dl.flows_capped, 1);
  st_selection_destroy(s);
  fx_close(&x);
}

static double fake_now(void *ud) {
  (void)ud;
  return 0;
}

static void load_into(st_app *app, const char *json) {
  CHECK(st_app_load_begin(app, "t.json"));
  CHECK(st_app_load_push(app, json, strlen(json)) == ST_OK);
  CHECK_EQ_INT(st_app_load_finish(app), ST_APP_LOAD_OK);
}

static void test_app_mode(void) {
  st_app_desc d;
  memset(&d, 0, sizeof d);
  d.platform.now_ms = fake_now;
  st_app *app = st_app_create(&d);
  CHECK(app != NULL);
  if (!app) return;
  st_app_set_font(app, &g_font);
  CHECK_EQ_INT(st_app_flow_mode(app), ST_FLOWS_SELECTION);
  CHECK_EQ_INT(st_app_set_flow_mode(app, 3), -1);
  CHECK_EQ_INT(st_app_set_flow_mode(app, -1), -1);
  /* set before a load: the view made by the load has it */
  CHECK_EQ_INT(st_app_set_flow_mode(app, ST_FLOWS_ALL), ST_FLOWS_ALL);
  load_into(app, CHAIN_JSON);
  CHECK(st_ui_flow_mode(st_app_ui(app)) == ST_FLOWS_ALL);
  /* key l on the view: all -> off, and the app keeps it for the next load */
  st_app_apply(app, st_ui_key_down(st_app_ui(app), "l", 0));
  CHECK_EQ_INT(st_app_flow_mode(app), ST_FLOWS_OFF);
  CHECK(st_app_frame(app) != NULL);
  st_app_frame_done(app);
  CHECK(strstr(st_app_frame_stats_json(app), "\"flows\":{\"mode\":\"off\",\"drawn\":0") != NULL);
  load_into(app, CHAIN_JSON);
  CHECK(st_ui_flow_mode(st_app_ui(app)) == ST_FLOWS_OFF);
  st_app_apply(app, st_ui_key_down(st_app_ui(app), "L", 0));
  CHECK_EQ_INT(st_app_flow_mode(app), ST_FLOWS_SELECTION);
  /* the selection's chain in the frame stats */
  st_event_ref b = tu_ref_named(st_ui_trace(st_app_ui(app)), "B");
  CHECK(st_app_select(app, b.row, b.index, 0));
  CHECK(st_app_frame(app) != NULL);
  st_app_frame_done(app);
  CHECK(strstr(st_app_frame_stats_json(app), "\"mode\":\"selection\",\"drawn\":3,") != NULL);
  CHECK(strstr(st_app_frame_stats_json(app), "\"chain\":3,\"capped\":0}") != NULL);
  /* names */
  st_flow_mode m = ST_FLOWS_OFF;
  CHECK(st_flow_mode_parse("all", 3, &m) && m == ST_FLOWS_ALL);
  CHECK(st_flow_mode_parse("selection", 9, &m) && m == ST_FLOWS_SELECTION);
  CHECK(!st_flow_mode_parse("al", 2, &m) && !st_flow_mode_parse("alll", 4, &m));
  CHECK_EQ_STR(st_flow_mode_name(ST_FLOWS_OFF), "off");
  st_app_destroy(app);
}

int main(void) {
  RUN(test_chain);
  RUN(test_chain_spans);
  RUN(test_box_chain);
  RUN(test_chain_span_cap);
  RUN(test_bundler);
  RUN(test_frame);
  RUN(test_app_mode);
  return check_report();
}
