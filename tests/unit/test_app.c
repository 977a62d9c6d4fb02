/* test_app.c: the app layer (core/app/app.h) driven as the page drives it,
 * against a stub platform (a clock the test moves, notifications recorded,
 * a fake font): a file pushed in slices, a batch of two files, handles
 * going stale with a new batch, side by side with the panes following each
 * other, args and the "in args" search by handle (plain and gzip'd), the
 * summary table, the diff of two runs, the flame graph and the frame, and
 * notes (the list, the draw list's markers at the x a known view puts them,
 * both panes side by side, going to one).
 */
#include "app.h"
#include "check.h"
#include "test_util.h"

#include <math.h>

#define FIX STRATA_SOURCE_DIR "/tests/fixtures/"

typedef struct stub {
  double now;
  unsigned bits;  /* ui_changed bits, ORed since last cleared */
  int changed;    /* ui_changed calls */
  int loaded;     /* loaded calls */
  int views;      /* view_begins calls */
  int full;       /* glyphs_full answers 1 this many more times */
  int full_calls; /* glyphs_full calls */
  uint64_t heap;
} stub;

static double now_ms(void *ud) { return ((stub *)ud)->now; }
static uint64_t heap_bytes(void *ud) { return ((stub *)ud)->heap; }
static void ui_changed(void *ud, unsigned bits) {
  stub *s = ud;
  s->bits |= bits;
  s->changed++;
}
static void loaded(void *ud) { ((stub *)ud)->loaded++; }
static void view_begins(void *ud) { ((stub *)ud)->views++; }
static int glyphs_full(void *ud) {
  stub *s = ud;
  s->full_calls++;
  return s->full > 0 ? s->full--, 1 : 0;
}

static int fake_glyph(void *ud, uint32_t cp, st_glyph *g) {
  (void)ud;
  *g = (st_glyph){7, 0, -9, 6, 2, (float)cp, 0, (float)cp, 1};
  return 1;
}
static const st_font font = {12, 10, 3, fake_glyph, NULL};

static st_app *make(stub *s) {
  memset(s, 0, sizeof *s);
  s->now = 1000;
  s->heap = 123456;
  st_app_desc d;
  memset(&d, 0, sizeof d);
  d.platform =
      (st_app_platform){s, now_ms, heap_bytes, ui_changed, loaded, view_begins, glyphs_full};
  d.css_w = 1000;
  d.css_h = 600;
  d.dpr = 1;
  st_app *app = st_app_create(&d);
  st_app_set_font(app, &font);
  return app;
}

/* Loads bytes as a file named name, in slices of `slice` bytes. */
static int load(st_app *app, const char *name, const unsigned char *p, size_t n, size_t slice) {
  if (!st_app_load_begin(app, name)) return -1;
  for (size_t i = 0; i < n; i += slice)
    if (st_app_load_push(app, p + i, n - i < slice ? n - i : slice) != ST_OK) break;
  return st_app_load_finish(app);
}

static int load_file(st_app *app, const char *file, size_t slice) {
  size_t n;
  char path[512];
  snprintf(path, sizeof path, FIX "%s", file);
  unsigned char *p = tu_read_file(path, &n);
  if (!p) return -1;
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  int rc = load(app, base, p, n, slice);
  free(p);
  return rc;
}

/* The (row, index) of the first event named name in the view. */
static st_event_ref event_named(st_app *app, const char *name) {
  return tu_ref_named(st_ui_trace(st_app_ui(app)), name);
}

static uint64_t src_of(st_app *app, st_event_ref r) {
  return st_trace_rows(st_ui_trace(st_app_ui(app)), NULL)[r.row].src[r.index];
}

/* A number after `key` in JSON text (-1 if absent). */
static double num_after(const char *json, const char *key) {
  const char *p = strstr(json, key);
  return p ? strtod(p + strlen(key), NULL) : -1;
}

/* Draws a frame if one is due: 1 drawn (frame_done called), 0 none. */
static int frame(st_app *app, stub *s, const st_drawlist **out) {
  const st_drawlist *dl = st_app_frame(app);
  if (out) *out = dl;
  if (!dl) return 0;
  s->now += 2;
  st_app_frame_done(app);
  return 1;
}

/* The args of (h, src) read from file bytes p (plain) as the page does. */
static const char *read_args(st_app *app, st_trace_handle h, double src, const unsigned char *p,
                             size_t n) {
  const char *r = st_app_args_begin(app, h, src);
  for (int step = 0; strstr(r, "{\"read\"") == r && step < 8; step++) {
    double off = num_after(r, "\"offset\":"), len = num_after(r, "\"length\":");
    if (off + len > (double)n) len = (double)n - off;
    CHECK_EQ_INT(st_app_args_data(app, h, p + (size_t)off, (size_t)len), 0);
    r = st_app_args_step(app, h);
  }
  return r;
}

static void test_empty(void) {
  stub s;
  st_app *app = make(&s);
  CHECK(st_app_create(NULL) == NULL);
  CHECK_EQ_STR(st_app_stats_json(app), "null");
  CHECK_EQ_STR(st_app_traces_json(app), "[]");
  CHECK_EQ_STR(st_app_view_json(app), "null");
  CHECK_EQ_STR(st_app_state_json(app), "null");
  CHECK_EQ_STR(st_app_info_json(app), "{}");
  CHECK(st_app_ui(app) == NULL);
  CHECK_EQ_INT(st_app_last_handle(app).id, 0);
  /* the first frame: the background only */
  const st_drawlist *dl;
  CHECK_EQ_INT(frame(app, &s, &dl), 1);
  CHECK(dl && dl->rect_count == 0 && dl->clear_rgba == 0xFFFBFAFAu);
  CHECK_EQ_INT(frame(app, &s, NULL), 0); /* nothing changed */
  CHECK_EQ_STR(st_app_frame_stats_json(app),
               "{\"frames\":1,\"last_frame_ms\":2,\"rects\":0,\"glyphs\":0,\"bands\":0,"
               "\"flows\":{\"mode\":\"selection\",\"drawn\":0,\"bundles\":0,\"bundled\":0,"
               "\"labels\":0,\"chain\":0,\"capped\":0},\"path_arrows\":0}");
  /* a file that is not a trace: nothing shown, the error says why */
  static const unsigned char junk[] = "<html></html>";
  CHECK_EQ_INT(load(app, "page.html", junk, sizeof junk - 1, 4), ST_APP_LOAD_FAILED);
  CHECK(strstr(st_app_error(app), "page.html: ") == st_app_error(app));
  CHECK(st_app_ui(app) == NULL && s.loaded == 0);
  st_app_destroy(app);
}

/* One file pushed in slices, gzip'd; its args through the gzip index; the
 * "in args" search; then a batch of two replaces it and its handle goes
 * stale. */
static void test_one_then_batch(void) {
  stub s;
  st_app *app = make(&s);
  size_t n, gn;
  unsigned char *plain = tu_read_file(FIX "begin_end_args.json", &n);
  unsigned char *gz = tu_deflate(plain, n, 31, &gn);
  CHECK_EQ_INT(load(app, "begin_end_args.json.gz", gz, gn, 7), ST_APP_LOAD_OK);
  CHECK_EQ_INT(s.views, 1);
  st_trace_handle h = st_app_last_handle(app);
  CHECK(h.id > 0);
  CHECK(st_app_ui(app) != NULL);
  CHECK(s.bits & ST_UI_VIEW);
  CHECK_EQ_STR(st_app_traces_json(app),
               "[{\"handle\":65536,\"name\":\"begin_end_args.json.gz\",\"group\":"
               "\"begin_end_args\",\"events\":5,\"offset_us\":0,\"format\":"
               "\"chrome-json\"}]");
  CHECK_EQ_INT(h.id, 65536); /* slot 0, generation 1 (core/set/traceset.h) */
  /* the load is reported after its first frame */
  CHECK_EQ_INT(s.loaded, 0);
  const st_drawlist *dl;
  CHECK_EQ_INT(frame(app, &s, &dl), 1);
  CHECK(dl->rect_count > 0 && dl->glyph_count > 0);
  CHECK_EQ_INT(s.loaded, 1);
  const char *st = st_app_stats_json(app);
  CHECK(strstr(st, "\"events\":5,") != NULL);
  CHECK(strstr(st, "\"heap_bytes\":123456") != NULL);
  CHECK_EQ_STR(st_app_trace_stats_json(app, h), st_app_trace_stats_json(app, h));

  /* args of the B/E slice "step": its B's and E's merged, through the index */
  st_event_ref step = event_named(app, "step");
  CHECK(step.row != UINT32_MAX);
  CHECK_EQ_INT(st_app_args_index_ready(app, h), 0);
  const char *r = st_app_args_begin(app, h, (double)src_of(app, step));
  CHECK(strstr(r, "{\"read\":{\"offset\":") == r);
  CHECK_EQ_INT(st_app_args_gz_begin(app, h, 0, 10), -1); /* no index yet */
  CHECK_EQ_INT(st_app_args_index_push(app, h, gz, gn), 0);
  CHECK_EQ_INT(st_app_args_index_finish(app, h), 0);
  CHECK_EQ_INT(st_app_args_index_ready(app, h), 1);
  for (int k = 0; strstr(r, "{\"read\"") == r && k < 8; k++) {
    double from =
        st_app_args_gz_begin(app, h, num_after(r, "\"offset\":"), num_after(r, "\"length\":"));
    CHECK(from >= 0 && from < (double)gn);
    /* 1: enough read; 0: the range asked for runs past the end of the file */
    CHECK(st_app_args_gz_push(app, h, gz + (size_t)from, gn - (size_t)from) >= 0);
    r = st_app_args_step(app, h);
  }
  CHECK_EQ_STR(r, "{\"args\":{\"step\":1,\"phase\":\"begin\",\"shared\":\"from E\","
                  "\"result\":{\"loss\":0.5}},\"truncated\":0}");
  /* by handle: a wrong one is refused, and a step without a read too */
  CHECK_EQ_STR(st_app_args_begin(app, (st_trace_handle){h.id + 1}, 0),
               "{\"error\":\"another trace was opened (at byte 0)\"}");
  CHECK_EQ_STR(st_app_args_step(app, h), "{\"error\":\"no read in progress (at byte 0)\"}");
  CHECK_EQ_INT(st_app_args_data(app, h, plain, 1), -1);
  st_app_args_reset(app, h); /* the index goes */
  CHECK_EQ_INT(st_app_args_index_ready(app, h), 0);

  /* "in args": names OR args, one trace shown */
  s.bits = 0;
  CHECK_EQ_INT(st_app_args_search_begin(app, h, "quokkafinch", 0), 1);
  CHECK_EQ_INT(st_app_args_search_push(app, gz, gn), 0);
  CHECK_EQ_INT(st_app_args_search_finish(app), 1);
  CHECK(s.bits & ST_UI_SEARCH);
  CHECK_EQ_INT(st_find_count(st_ui_find(st_app_ui(app))), 1);
  CHECK_EQ_INT(st_app_args_search_begin(app, (st_trace_handle){12345}, "x", 0), 0);
  CHECK_EQ_STR(st_app_args_search_error(app), "no such trace is shown");
  CHECK_EQ_INT(st_app_search(app, "inner"), 1);

  /* a pass in flight when a new batch replaces its trace fails */
  CHECK_EQ_INT(st_app_args_search_begin(app, h, "from", 0), 1);
  st_app_batch_begin(app);
  CHECK_EQ_INT(load_file(app, "profile/run_a.json", 100), ST_APP_LOAD_OK);
  st_trace_handle ha = st_app_last_handle(app);
  CHECK_EQ_INT(st_app_args_search_push(app, gz, 10), 0); /* h is still shown */
  CHECK(st_app_trace_stats_json(app, ha)[0] == 'n');     /* in the batch: not yet */
  CHECK_EQ_INT(load_file(app, "profile/run_b.json", 1 << 20), ST_APP_LOAD_OK);
  st_trace_handle hb = st_app_last_handle(app);
  CHECK_EQ_INT(st_app_batch_end(app), 2);
  CHECK_EQ_INT(s.views, 2);
  CHECK_EQ_INT(st_app_args_search_push(app, gz, 10), ST_ERR_ARG);
  CHECK_EQ_STR(st_app_args_search_error(app), "another trace was opened");
  /* the old handle is stale; the slot is reused with a new generation */
  CHECK_EQ_STR(st_app_trace_stats_json(app, h), "null");
  CHECK_EQ_STR(st_app_trace_info_json(app, h), "{}");
  CHECK_EQ_INT(st_app_set_offset(app, h, 5), 0);
  CHECK(strstr(st_app_args_begin(app, h, 0), "another trace was opened") != NULL);
  CHECK_EQ_INT(ha.id, 1 | 1 << 16); /* slots 1 and 2 (slot 0 held h while they loaded) */
  CHECK_EQ_INT(hb.id, 2 | 1 << 16);
  CHECK_EQ_STR(st_app_traces_json(app),
               "[{\"handle\":65537,\"name\":\"run_a.json\",\"group\":\"run_a\",\"events\":"
               "15,\"offset_us\":0,\"format\":\"chrome-json\"},{\"handle\":65538,\"name\":"
               "\"run_b.json\",\"group\":\"run_b\",\"events\":15,\"offset_us\":0,"
               "\"format\":\"chrome-json\"}]");
  CHECK(strstr(st_app_stats_json(app), "\"events\":30,") != NULL);
  CHECK(strstr(st_app_stats_json(app), ",\"traces\":[{") != NULL);
  CHECK_EQ_INT(frame(app, &s, NULL), 1);
  CHECK_EQ_INT(s.loaded, 2);

  /* args of a file of the batch, by its handle (plain bytes) */
  size_t an;
  unsigned char *a = tu_read_file(FIX "profile/run_a.json", &an);
  st_event_ref mm = event_named(app, "aten::mm"); /* the view's: run_a's first */
  CHECK(st_trace_part_of_row(st_ui_trace(st_app_ui(app)), mm.row) == 0);
  CHECK_EQ_STR(read_args(app, ha, (double)src_of(app, mm), a, an), "{\"args\":{},\"truncated\":0}");
  free(a);
  /* a new file in slot 0 again: a new generation; h stays stale */
  CHECK_EQ_INT(load(app, "again.json", plain, n, 1 << 20), ST_APP_LOAD_OK);
  CHECK_EQ_INT(st_app_last_handle(app).id, 0 | 2 << 16);
  CHECK_EQ_STR(st_app_trace_stats_json(app, h), "null");
  CHECK_EQ_STR(st_app_trace_stats_json(app, ha), "null");
  CHECK(strstr(st_app_trace_stats_json(app, (st_trace_handle){0 | 2 << 16}), "\"events\":5,") !=
        NULL);
  free(gz);
  free(plain);
  st_app_destroy(app);
}

/* A profile of ST_APP_MAX_TRACES files, then another as many while it is
 * shown (the set holds both until the new batch replaces the first); a
 * file past the most a batch shows is refused with a line, the rest shown. */
static void test_full_profiles(void) {
  stub s;
  st_app *app = make(&s);
  static const char one[] =
      "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]";
  for (int round = 0; round < 2; round++) {
    st_app_batch_begin(app);
    for (int k = 0; k < ST_APP_MAX_TRACES; k++) {
      char name[32];
      snprintf(name, sizeof name, "r%d-%d.json", round, k);
      CHECK_EQ_INT(load(app, name, (const unsigned char *)one, sizeof one - 1, 1 << 20),
                   ST_APP_LOAD_OK);
    }
    CHECK_EQ_INT(st_app_load_begin(app, "one-too-many.json"), 0);
    CHECK_EQ_STR(st_app_error(app),
                 "one-too-many.json: not opened: 256 files open together at most");
    CHECK_EQ_INT(st_app_batch_end(app), ST_APP_MAX_TRACES);
    int shown = 0;
    for (const char *p = st_app_traces_json(app); (p = strstr(p, "\"handle\":")) != NULL; p++)
      shown++;
    CHECK_EQ_INT(shown, ST_APP_MAX_TRACES);
    char want[64];
    snprintf(want, sizeof want, "\"events\":%d,", ST_APP_MAX_TRACES);
    CHECK(strstr(st_app_stats_json(app), want) != NULL);
    CHECK(strstr(st_app_traces_json(app),
                 round ? "\"name\":\"r1-255.json\"" : "\"name\":\"r0-255.json\"") != NULL);
    CHECK(strstr(st_app_traces_json(app), round ? "r0-" : "r1-") == NULL);
  }
  st_app_destroy(app);
}

static st_app *two_runs(stub *s) {
  st_app *app = make(s);
  st_app_batch_begin(app);
  load_file(app, "profile/run_a.json", 64);
  load_file(app, "profile/run_b.json", 64);
  st_app_batch_end(app);
  frame(app, s, NULL);
  return app;
}

static void test_side_by_side(void) {
  stub s;
  st_app *app = two_runs(&s);
  st_ui *a = st_app_ui(app);
  double t0, t1, u0, u1;
  CHECK_EQ_INT(st_app_side_by_side(app), 0);
  CHECK_EQ_INT(st_app_route_x(app, 700), 700); /* stacked: x as it is */
  CHECK_EQ_INT(st_app_set_flow_mode(app, ST_FLOWS_OFF), ST_FLOWS_OFF);
  CHECK_EQ_INT(st_app_set_side_by_side(app, 1), 1);
  CHECK(st_app_ui(app) == a);
  CHECK_EQ_INT(st_ui_view(a)->width, 500);
  /* the right half: its pane becomes the one in use, x in its coordinates */
  CHECK_EQ_INT(st_app_route_x(app, 700), 200);
  st_ui *b = st_app_ui(app);
  CHECK(b != a && st_app_pane_dx(app) == 500);
  /* the new pane has the flow mode; a change in one pane is made in both */
  CHECK(st_ui_flow_mode(b) == ST_FLOWS_OFF);
  st_app_apply(app, st_ui_key_down(b, "l", 0));
  CHECK(st_ui_flow_mode(a) == ST_FLOWS_SELECTION && st_ui_flow_mode(b) == ST_FLOWS_SELECTION);
  /* a zoom in one pane: the other follows */
  st_ui_window(b, &t0, &t1);
  st_app_apply(app, st_ui_set_view(b, t0 + 10000, t1 - 10000));
  st_ui_window(b, &t0, &t1);
  st_ui_window(a, &u0, &u1);
  CHECK(u0 == t0 && u1 == t1);
  /* and the selection, and the search */
  st_event_ref mm = event_named(app, "aten::mm");
  st_app_apply(app, st_ui_select(b, mm, 0));
  CHECK_EQ_INT(st_selection_count(st_ui_selection(a)), 1);
  CHECK_EQ_INT(st_app_search(app, "kernel"), 8);
  CHECK_EQ_INT(st_find_count(st_ui_find(a)), 8);
  /* one frame of both panes: the right pane's list moved by half the canvas */
  const st_drawlist *dl;
  CHECK_EQ_INT(frame(app, &s, &dl), 1);
  int right = 0, left = 0;
  for (uint32_t i = 0; i < dl->cmd_count; i++) {
    right += dl->cmds[i].clip_x >= 500;
    left += dl->cmds[i].clip_x < 500;
  }
  CHECK(right > 0 && left > 0);
  /* back to stacked: one pane, the whole width, the same window */
  CHECK_EQ_INT(st_app_set_side_by_side(app, 0), 0);
  CHECK(st_app_ui(app) == a);
  CHECK_EQ_INT(st_ui_view(a)->width, 1000);
  CHECK_EQ_INT(st_app_pane_dx(app), 0);
  st_ui_window(a, &u0, &u1);
  CHECK(u0 == t0 && u1 == t1);
  st_app_destroy(app);
}

static void test_panels(void) {
  stub s;
  st_app *app = two_runs(&s);
  /* summary of the window: every event of both files */
  CHECK_EQ_INT(st_app_summary_take(app, 1), 24);
  const char *j = st_app_summary_json(app, 0, 0, 2);
  CHECK(strstr(j, "{\"source\":\"window\",\"events\":24,\"names\":") == j);
  double names = num_after(j, "\"names\":");
  CHECK_EQ_INT(names, 8); /* ProfilerStep#1 and #2 are two names */
  /* a name of the set selected */
  st_event_ref mm = event_named(app, "aten::mm");
  uint32_t mm_name = st_trace_rows(st_ui_trace(st_app_ui(app)), NULL)[mm.row].name[mm.index];
  CHECK_EQ_INT(st_app_summary_select(app, mm_name), 4);
  CHECK_EQ_INT(st_app_summary_select(app, -1), 24);
  /* files moved: the snapshot is stale */
  st_trace_handle hb = {(uint32_t)num_after(strstr(st_app_traces_json(app), "},{"), "\"handle\":")};
  CHECK_EQ_INT(st_app_set_offset(app, hb, 250), 1);
  CHECK(strstr(st_app_traces_json(app), "\"offset_us\":250,") != NULL);
  CHECK_EQ_STR(st_app_summary_json(app, 0, 0, 2), "null");
  /* align B on A at their first common step marker */
  CHECK_EQ_STR(st_app_compare_align(app),
               "{\"kind\":\"profiler_step\",\"offset_us\":0,\"step\":1}");
  CHECK(strstr(st_app_traces_json(app), "\"offset_us\":250,") == NULL);
  /* the diff by name, sorted by the change in total time */
  j = st_app_diff(app, 0, 0, 0, 0, 0, "d_total_us", 1);
  CHECK(strstr(j, "\"name\":\"gemm_kernel\"") != NULL);
  CHECK(strstr(j, "\"name\":\"gemm_kernel\"") < strstr(j, "\"name\":\"aten::copy_\""));
  CHECK_EQ_STR(st_app_diff_sort(app, "nope", 1), "null");
  CHECK(st_app_diff_sort(app, "name", 0)[0] == '{');
  CHECK_EQ_INT(st_app_diff_select(app, 0), 2); /* row 0 by name: ProfilerStep#1, A's and B's */
  CHECK_EQ_INT(st_selection_count(st_ui_selection(st_app_ui(app))), 2);
  CHECK(strstr(st_app_selection_json(app, 10), "\"name\":\"ProfilerStep#1\"") != NULL);
  CHECK_EQ_INT(st_app_diff_select(app, 99), -1);
  /* the flame graph of the window, slices */
  CHECK_EQ_INT(st_app_flame_take(app, 2, 1, -1), 24);
  j = st_app_flame_json(app, 0);
  CHECK(strstr(j, "{\"from\":\"window\",\"start_us\":") == j);
  CHECK(strstr(j, "\"threads\":[") != NULL && strstr(j, "\"tree\":{") != NULL);
  int node = st_app_flame_hit(app, 0.01, 1);
  CHECK(node > 0);
  CHECK(st_app_flame_select(app, node) > 0);
  CHECK_EQ_INT(st_app_flame_hit(app, 0.5, 99), -1);
  /* a new batch drops every snapshot */
  st_app_batch_begin(app);
  load_file(app, "array_basic.json", 5);
  st_app_batch_end(app);
  CHECK_EQ_STR(st_app_flame_json(app, 0), "null");
  CHECK_EQ_STR(st_app_diff_sort(app, "name", 0), "null");
  CHECK_EQ_INT(st_app_diff_select(app, 0), -1);
  CHECK_EQ_STR(st_app_compare_align(app), "null");
  st_app_destroy(app);
}

/* Held keys animate by the platform's clock; a full glyph cache builds the
 * frame once more; the view in file microseconds. */
static void test_frame_and_view(void) {
  stub s;
  st_app *app = make(&s);
  CHECK_EQ_INT(load_file(app, "array_basic.json", 3), ST_APP_LOAD_OK);
  frame(app, &s, NULL);
  CHECK_EQ_INT(st_app_view_set(app, 100, 150), 1);
  CHECK_EQ_STR(
      st_app_view_json(app),
      "{\"start_us\":100,\"end_us\":150,\"axis_zero_us\":100,\"scroll_y\":0,\"pending\":0}");
  CHECK_EQ_INT(st_app_view_set(app, 150, 100), 0);
  s.full = 1;
  s.full_calls = 0;
  CHECK_EQ_INT(frame(app, &s, NULL), 1);
  CHECK_EQ_INT(s.full_calls, 2); /* built, cache full: built again */
  /* a held key: a frame every tick while it is down */
  st_app_apply(app, st_ui_key_down(st_app_ui(app), "d", 0));
  s.now += 50;
  CHECK_EQ_INT(frame(app, &s, NULL), 1);
  CHECK(num_after(st_app_view_json(app), "\"start_us\":") > 100);
  st_app_apply(app, st_ui_key_up(st_app_ui(app), "d", 0));
  frame(app, &s, NULL);
  CHECK_EQ_INT(frame(app, &s, NULL), 0);
  /* the tool is the app's, kept across loads */
  s.bits = 0;
  st_app_set_tool(app, 3);
  CHECK(s.bits & ST_UI_TOOL);
  CHECK_EQ_INT(load_file(app, "array_basic.json", 1000), ST_APP_LOAD_OK);
  CHECK_EQ_INT(st_ui_tool(st_app_ui(app)), ST_TOOL_TIMING);
  /* select by (row, index); a bad one is refused */
  st_event_ref outer = event_named(app, "outer");
  CHECK_EQ_INT(st_app_select(app, outer.row, outer.index, 1), 1);
  CHECK(strstr(st_app_selected_event_json(app), "\"name\":\"outer\"") != NULL);
  CHECK_EQ_INT(st_app_select(app, 9999, 0, 0), 0);
  /* the bench's frames */
  st_bench_step steps[8];
  uint32_t n = st_app_bench_script(app, steps, 8);
  CHECK_EQ_INT(n, 8);
  CHECK(st_app_bench_frame(app, &steps[0].view) != NULL);
  double fr[2] = {3, 1}, bu[2] = {2, 1};
  CHECK_EQ_STR(st_app_bench_json(app, fr, bu, 2, 10, 20),
               "{\"frames\":2,\"frame_ms_p50\":1,\"frame_ms_p99\":3,\"frame_ms_max\":3,"
               "\"build_ms_p50\":1,\"build_ms_max\":2,\"rects_max\":10,\"glyphs_max\":20,"
               "\"width\":1000,\"height\":600,\"dpr\":1}");
  st_app_destroy(app);
}

/* The note lines (ST_DRAW_NOTE_RGBA, vertical, over the rows) of a frame
 * whose x is within 0.5 px of x; the count. */
static int note_lines_at(const st_drawlist *dl, double x) {
  int n = 0;
  for (uint32_t i = 0; i < dl->line_count; i++) {
    const st_line *l = &dl->lines[i];
    if (l->rgba == ST_DRAW_NOTE_RGBA && l->x0 == l->x1 && l->y0 >= ST_VIEW_AXIS_H &&
        fabs(l->x0 - x) < 0.5)
      n++;
  }
  return n;
}

/* A note flag on the axis (a rect above the rows in the notes' colour) starting at x. */
static int note_flag_at(const st_drawlist *dl, double x) {
  for (uint32_t i = 0; i < dl->rect_count; i++) {
    const st_rect *r = &dl->rects[i];
    if (r->rgba == ST_DRAW_NOTE_RGBA && r->y + r->h <= ST_VIEW_AXIS_H && fabs(r->x - x) < 0.5)
      return 1;
  }
  return 0;
}

static void test_notes(void) {
  stub s;
  st_app *app = make(&s);
  CHECK_EQ_INT(load_file(app, "array_basic.json", 1000), ST_APP_LOAD_OK);
  frame(app, &s, NULL);
  /* added out of order, listed by start; bad input refused */
  CHECK_EQ_INT(st_app_note_add(app, 130, NAN, "later"), 1);
  CHECK_EQ_INT(st_app_note_add(app, 120, 110, "range\nwith a line break"), 2); /* swapped */
  CHECK_EQ_INT(st_app_note_add(app, NAN, 1, "no"), 0);
  CHECK_EQ_INT(st_app_note_add(app, 125, 125, "quote \" </script>"), 3);
  CHECK_EQ_STR(st_app_notes_json(app),
               "[{\"id\":2,\"t0_us\":110,\"t1_us\":120,\"text\":\"range with a line break\"},"
               "{\"id\":3,\"t0_us\":125,\"t1_us\":125,\"text\":\"quote \\\" </script>\"},"
               "{\"id\":1,\"t0_us\":130,\"t1_us\":130,\"text\":\"later\"}]");
  /* a long text is cut on a character boundary; invalid bytes become U+FFFD */
  char longtext[400];
  for (int i = 0; i < 150; i++) longtext[2 * i] = (char)0xC3, longtext[2 * i + 1] = (char)0xA9;
  longtext[300] = 0;
  double id = st_app_note_add(app, 140, NAN, longtext);
  uint32_t n;
  const st_app_note *list = st_app_notes(app, &n);
  CHECK_EQ_INT(n, 4);
  CHECK_EQ_INT(strlen(list[3].text), ST_APP_NOTE_TEXT); /* 100 two-byte characters */
  CHECK_EQ_INT(st_app_note_set_text(app, id, "\xff"), 1);
  CHECK_EQ_STR(st_app_notes(app, &n)[3].text, "\xEF\xBF\xBD");
  CHECK_EQ_INT(st_app_note_remove(app, id), 1);
  CHECK_EQ_INT(st_app_note_remove(app, id), 0);
  CHECK_EQ_INT(st_app_note_set_text(app, 99, "x"), 0);
  /* a known view: each note where the time axis puts it */
  CHECK_EQ_INT(st_app_view_set(app, 100, 150), 1);
  const st_drawlist *dl;
  CHECK_EQ_INT(frame(app, &s, &dl), 1);
  double px_per_us = (1000.0 - ST_VIEW_GUTTER_W) / 50.0;
#define X_OF(us) (ST_VIEW_GUTTER_W + ((us)-100.0) * px_per_us)
  CHECK_EQ_INT(note_lines_at(dl, X_OF(130)), 1);
  CHECK_EQ_INT(note_lines_at(dl, X_OF(125)), 1);
  CHECK_EQ_INT(note_lines_at(dl, X_OF(110)), 1); /* the range's two edges */
  CHECK_EQ_INT(note_lines_at(dl, X_OF(120)), 1);
  CHECK(note_flag_at(dl, X_OF(110)) && note_flag_at(dl, X_OF(125)) && note_flag_at(dl, X_OF(130)));
  /* the time under a canvas x; none over the gutter */
  CHECK(fabs(st_app_time_at(app, (float)X_OF(130)) - 130) < 0.01);
  CHECK(isnan(st_app_time_at(app, 10)));
  /* going to a note: a range with a margin, a time centred in the same width */
  CHECK_EQ_INT(st_app_note_go(app, 2), 1);
  double a = num_after(st_app_view_json(app), "\"start_us\":");
  double b = num_after(st_app_view_json(app), "\"end_us\":");
  CHECK(fabs(a - 109) < 1e-6 && fabs(b - 121) < 1e-6);
  CHECK_EQ_INT(st_app_note_go(app, 1), 1);
  a = num_after(st_app_view_json(app), "\"start_us\":");
  b = num_after(st_app_view_json(app), "\"end_us\":");
  CHECK(fabs(a - 124) < 1e-6 && fabs(b - 136) < 1e-6);
  CHECK_EQ_INT(st_app_note_go(app, 42), 0);
  /* no more than ST_APP_MAX_NOTES */
  st_app_notes_clear(app);
  for (int i = 0; i < ST_APP_MAX_NOTES; i++) CHECK(st_app_note_add(app, i, NAN, "n") > 0);
  CHECK_EQ_INT(st_app_note_add(app, 1, NAN, "one too many"), 0);
  st_app_destroy(app);

  /* two runs side by side: every note in both panes, at the same time */
  app = two_runs(&s);
  double t0 = num_after(st_app_view_json(app), "\"start_us\":");
  double t1 = num_after(st_app_view_json(app), "\"end_us\":");
  CHECK_EQ_INT(st_app_set_side_by_side(app, 1), 1);
  double mid = (t0 + t1) / 2;
  CHECK(st_app_note_add(app, mid, NAN, "both") > 0);
  CHECK_EQ_INT(frame(app, &s, &dl), 1);
  double pane_x = ST_VIEW_GUTTER_W + (mid - t0) / (t1 - t0) * (500.0 - ST_VIEW_GUTTER_W);
  CHECK_EQ_INT(note_lines_at(dl, pane_x), 1);
  CHECK_EQ_INT(note_lines_at(dl, pane_x + 500), 1);
  /* another batch: a new view, the notes go */
  st_app_batch_begin(app);
  load_file(app, "profile/run_a.json", 4096);
  st_app_batch_end(app);
  CHECK_EQ_STR(st_app_notes_json(app), "[]");
  st_app_destroy(app);
}

int main(void) {
  RUN(test_empty);
  RUN(test_notes);
  RUN(test_one_then_batch);
  RUN(test_side_by_side);
  RUN(test_full_profiles);
  RUN(test_panels);
  RUN(test_frame_and_view);
  return check_report();
}
