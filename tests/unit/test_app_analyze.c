/* test_app_analyze.c: the app's answers (core/app/app_analyze.c, app.h
 * "analysis"): the analysis JSON of the files shown, in each file's own time
 * however the files are moved on the shared timeline (the same text as
 * st_analysis_json of the file loaded alone, as `strata analyze` writes
 * it), a step name, going to a file's step window (the view's window in
 * scene time), selecting every event of a name, and bad arguments.
 */
#include "analyze.h"
#include "app.h"
#include "check.h"
#include "test_util.h"

static double now_ms(void *ud) {
  (void)ud;
  return 1000;
}
static int fake_glyph(void *ud, uint32_t cp, st_glyph *g) {
  (void)ud, (void)cp;
  memset(g, 0, sizeof *g);
  return 1;
}
static const st_font font = {12, 10, 3, fake_glyph, NULL};

/* A Kineto-like rank: two ProfilerSteps on the host, kernels on stream 7. */
static const char rank_json[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":2,\"tid\":7,\"args\":{\"name\":\"stream 7\"}},"
    "{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":100},"
    "{\"ph\":\"X\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":100},"
    "{\"ph\":\"X\",\"name\":\"gemm\",\"cat\":\"kernel\",\"pid\":2,\"tid\":7,\"ts\":%d,\"dur\":50},"
    "{\"ph\":\"X\",\"name\":\"gemm\",\"cat\":\"kernel\",\"pid\":2,\"tid\":7,\"ts\":%d,\"dur\":%d},"
    "{\"ph\":\"X\",\"name\":\"ncclKernel_AllReduce\",\"cat\":\"kernel\",\"pid\":2,\"tid\":7,"
    "\"ts\":%d,\"dur\":10}]}";

static size_t rank(char *buf, size_t cap, int t0, int slow) {
  return (size_t)snprintf(buf, cap, rank_json, t0, t0 + 100, t0 + 10, t0 + 120, 50 * slow,
                          t0 + 120 + 50 * slow + 5);
}

/* A number after `key` in JSON text (-1 if absent). */
static double num_after(const char *json, const char *key) {
  const char *p = strstr(json, key);
  return p ? strtod(p + strlen(key), NULL) : -1;
}

static char *copy_text(const char *s) {
  char *p = malloc(strlen(s) + 1);
  if (p) memcpy(p, s, strlen(s) + 1);
  return p;
}

static int load(st_app *app, const char *name, const char *p, size_t n) {
  if (!st_app_load_begin(app, name)) return -1;
  st_app_load_push(app, p, n);
  return st_app_load_finish(app);
}

/* st_analysis_json of the bytes loaded alone (what `strata analyze` prints,
 * less analyze_ms): malloc'd. */
static char *alone(const char *p, size_t n, const char *file, const char *group) {
  st_error err;
  st_stats stats;
  st_trace *t = tu_load(p, n, n, file, &err, &stats, NULL, 0);
  if (!t) return NULL;
  const st_trace *ts[1] = {t};
  st_analyze_opts o;
  memset(&o, 0, sizeof o);
  st_analysis *an = st_analyze(NULL, ts, 1, &o, &err);
  st_analysis_json_opts jo = {.files = &file, .groups = &group};
  size_t need = st_analysis_json(an, &jo, NULL, 0) + 1;
  char *out = malloc(need);
  st_analysis_json(an, &jo, out, need);
  st_analysis_destroy(an);
  st_trace_destroy(t);
  return out;
}

static void test_analyze(void) {
  st_app_desc d;
  memset(&d, 0, sizeof d);
  d.platform.now_ms = now_ms;
  d.css_w = 1000;
  d.css_h = 90; /* shorter than the files: b's section must be scrolled to */
  d.dpr = 1;
  st_app *app = st_app_create(&d);
  st_app_set_font(app, &font);
  CHECK_EQ_STR(st_app_analyze(app, NULL, -1, 0), "null"); /* nothing shown */
  CHECK_EQ_INT(st_app_analyze_show(app, 0, -1, 0, 1), 0);
  CHECK(st_app_select_name(app, "gemm") < 0);

  char a[2048], b[2048];
  size_t na = rank(a, sizeof a, 0, 1), nb = rank(b, sizeof b, 1000, 2);
  /* one file: the JSON of the file alone */
  CHECK_EQ_INT(load(app, "a.json", a, na), ST_APP_LOAD_OK);
  char *want = alone(a, na, "a.json", "a");
  CHECK(want != NULL);
  CHECK_EQ_STR(st_app_analyze(app, NULL, -1, 0), want);
  free(want);

  /* two files, the second moved on the timeline: each in its own time */
  st_app_batch_begin(app);
  CHECK_EQ_INT(load(app, "a.json", a, na), ST_APP_LOAD_OK);
  CHECK_EQ_INT(load(app, "b.json", b, nb), ST_APP_LOAD_OK);
  CHECK_EQ_INT(st_app_batch_end(app), 2);
  char *before = copy_text(st_app_analyze(app, NULL, -1, 0));
  CHECK(strstr(before, "{\"trace\":1,\"step\":2,\"start_us\":100,\"end_us\":200,") != NULL);
  CHECK(strstr(before, "\"file\":\"b.json\"") != NULL);
  st_trace_handle hb = {(uint32_t)num_after(st_app_traces_json(app), "},{\"handle\":")};
  CHECK(hb.id > 0);
  CHECK_EQ_INT(st_app_set_offset(app, hb, 2500), 1);
  CHECK_EQ_STR(st_app_analyze(app, NULL, -1, 0), before);
  free(before);

  /* going to file 1's step 2 on its device: the window in scene time */
  uint32_t dev = 1; /* devices: a's GPU, then b's */
  CHECK(strstr(st_app_analyze(app, NULL, -1, 0), "\"devices\":[{\"trace\":0,") != NULL);
  CHECK_EQ_INT(st_app_analyze_show(app, 1, dev, 100, 200), 1);
  double t0, t1;
  st_ui_window(st_app_ui(app), &t0, &t1);
  CHECK_EQ_INT((int64_t)t0, 2500000 + 100000);
  CHECK_EQ_INT((int64_t)t1, 2500000 + 200000);
  CHECK(st_ui_view(st_app_ui(app))->scroll_y > 0);         /* b's section brought up */
  CHECK_EQ_INT(st_app_analyze_show(app, 0, -1, 0, 50), 1); /* file 0's header */
  st_ui_window(st_app_ui(app), &t0, &t1);
  CHECK_EQ_INT((int64_t)t1, 50000);
  CHECK_EQ_INT(st_app_analyze_show(app, 2, -1, 0, 1), 0);  /* no file 2 */
  CHECK_EQ_INT(st_app_analyze_show(app, 0, -1, 5, 5), 0);  /* empty window */
  CHECK_EQ_INT(st_app_analyze_show(app, 0, 99, 0, 10), 1); /* no device 99: the header */

  /* every event of a name */
  CHECK_EQ_INT(st_app_select_name(app, "gemm"), 4);
  CHECK_EQ_INT(st_selection_count(st_ui_selection(st_app_ui(app))), 4);
  CHECK_EQ_INT(st_app_select_name(app, "ncclKernel_AllReduce"), 2);
  CHECK_EQ_INT(st_app_select_name(app, "gem"), 0);

  /* a step name: every gemm is a step; ops kept and gaps */
  const char *named = st_app_analyze(app, "gemm", 1, 1);
  CHECK(strstr(named, "\"steps_from\":\"named\",\"steps\":2") != NULL);
  CHECK(strstr(named, "\"ops\":[{\"name\":\"gemm\"") != NULL);
  CHECK(strstr(named, "\"op_names\":") != NULL);
  st_app_destroy(app);
}

int main(void) {
  RUN(test_analyze);
  return check_report();
}
