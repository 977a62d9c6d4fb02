/* test_app_opstats.c: op statistics, duration histograms and idle gaps in
 * the app (core/app/app_opstats.c) and the idle-gap bands of the draw list
 * (core/draw/draw.h st_draw_band_set), on a small trace with known answers:
 * one GPU stream with two gaps (500 us, 490 us) under a host thread, four
 * "gemm" kernels of 1, 100, 200 and 400 us.
 */
#include "app.h"
#include "check.h"
#include "opstats.h"
#include "test_util.h"

static double now_ms(void *ud) { return *(double *)ud += 1; }

static int fake_glyph(void *ud, uint32_t cp, st_glyph *g) {
  (void)ud;
  *g = (st_glyph){7, 0, -9, 6, 2, (float)cp, 0, (float)cp, 1};
  return 1;
}
static const st_font font = {12, 10, 3, fake_glyph, NULL};

static const char TRACE[] =
    "{\"traceEvents\":["
    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"host\"}},"
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}},"
    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":{\"name\":\"GPU 0\"}},"
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":7,\"args\":{\"name\":\"stream 7\"}},"
    "{\"name\":\"launch\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},"
    "{\"name\":\"sync\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":1000},"
    "{\"name\":\"gemm\",\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":0,\"dur\":100},"
    "{\"name\":\"gemm\",\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":100,\"dur\":200},"
    "{\"name\":\"relu\",\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":800,\"dur\":10},"
    "{\"name\":\"gemm\",\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":810,\"dur\":400},"
    "{\"name\":\"gemm\",\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":1700,\"dur\":1}"
    "]}";

/* A number after `key` in JSON text (-1 if absent). */
static double num_after(const char *json, const char *key) {
  const char *p = strstr(json, key);
  return p ? strtod(p + strlen(key), NULL) : -1;
}

static const st_drawlist *draw(st_app *app, double *clock) {
  st_app_request_redraw(app);
  const st_drawlist *dl = st_app_frame(app);
  if (dl) st_app_frame_done(app);
  (void)clock;
  return dl;
}

static void test_opstats(void) {
  double clock = 0;
  st_app_desc d = {
      .platform = {.ud = &clock, .now_ms = now_ms}, .css_w = 1000, .css_h = 600, .dpr = 1};
  st_app *app = st_app_create(&d);
  CHECK(app != NULL);
  st_app_set_font(app, &font);
  CHECK(st_app_opstats_json(app, 0, 0, 0)[0] == 'n'); /* nothing loaded: null */
  CHECK(st_app_load_begin(app, "t.json"));
  CHECK(st_app_load_push(app, TRACE, sizeof TRACE - 1) == ST_OK);
  CHECK(st_app_load_finish(app) == ST_APP_LOAD_OK);

  /* whole trace: gemm 4 instances of 1, 100, 200, 400 us; p50 is rank 2 */
  const char *j = st_app_opstats_json(app, 0, 0, 0);
  const char *g = strstr(j, "{\"name\":\"gemm\"");
  CHECK(g != NULL);
  CHECK(strstr(j, "\"scope\":\"trace\"") != NULL);
  CHECK(num_after(g, "\"count\":") == 4);
  CHECK(num_after(g, "\"total_us\":") == 701);
  CHECK(num_after(g, "\"p50_us\":") == 100);
  CHECK(num_after(g, "\"p90_us\":") == 400);
  CHECK(num_after(g, "\"max_us\":") == 400);
  CHECK(num_after(j, "\"names\":") == 4); /* launch, sync, gemm, relu */

  /* the window [0, 350) us holds the first two gemms (and launch) */
  CHECK(st_app_view_set(app, 0, 350));
  j = st_app_opstats_json(app, 1, 0, 0);
  g = strstr(j, "{\"name\":\"gemm\"");
  CHECK(g && num_after(g, "\"count\":") == 2);
  CHECK(strstr(j, "\"relu\"") == NULL);

  /* a step that does not exist: nothing counted */
  j = st_app_opstats_json(app, 2, 5, 0);
  CHECK(num_after(j, "\"names\":") == 0);

  /* histogram of gemm: 4 instances in 4 log bins; the 200 us one alone */
  j = st_app_histogram_json(app, "gemm", 0, 0);
  CHECK(strstr(j, "\"name\":\"gemm\"") != NULL);
  double sum = 0;
  for (const char *p = strstr(j, "\"count\":"); p; p = strstr(p + 1, "\"count\":"))
    sum += strtod(p + 8, NULL);
  CHECK(sum == 4);
  int64_t lo, hi;
  st_hist_bin_bounds(st_hist_bin_of(200000), &lo, &hi);
  CHECK(st_app_histogram_select(app, "gemm", 0, 0, lo / 1000.0, hi / 1000.0) == 1);
  const char *sel = st_app_selected_event_json(app);
  CHECK(strstr(sel, "\"gemm\"") != NULL);
  /* [0, 1 ms): every gemm but none of the others */
  CHECK(st_app_histogram_select(app, "gemm", 0, 0, 0, 1000) == 4);
  CHECK(st_app_histogram_select(app, "nope", 0, 0, 0, 1000) == 0);
  CHECK(st_app_histogram_select(app, "gemm", 0, 0, 5, 1) == -1); /* empty range */

  /* selection scope: of the 4 gemms selected, those of [100, 1000) us */
  CHECK(st_app_histogram_select(app, "gemm", 0, 0, 0, 1000) == 4);
  j = st_app_opstats_json(app, 3, 0, 0);
  CHECK(strstr(j, "\"scope\":\"selection\"") != NULL);
  g = strstr(j, "{\"name\":\"gemm\"");
  CHECK(g && num_after(g, "\"count\":") == 4);
  CHECK(num_after(j, "\"names\":") == 1);
  CHECK(st_app_histogram_select(app, "gemm", 3, 0, 100, 1000) == 3);
  j = st_app_histogram_json(app, "gemm", 3, 0);
  sum = 0;
  for (const char *p = strstr(j, "\"count\":"); p; p = strstr(p + 1, "\"count\":"))
    sum += strtod(p + 8, NULL);
  CHECK(sum == 3);
  /* the whole selection, any name: the same 3; a bin of it narrows it */
  j = st_app_histogram_json(app, NULL, 3, 0);
  CHECK(strstr(j, "\"name\":null") != NULL);
  sum = 0;
  for (const char *p = strstr(j, "\"count\":"); p; p = strstr(p + 1, "\"count\":"))
    sum += strtod(p + 8, NULL);
  CHECK(sum == 3);
  CHECK(st_app_histogram_select(app, NULL, 3, 0, lo / 1000.0, hi / 1000.0) == 1);
  /* any name over the whole trace: relu (10 us) and gemm (1 us) are under 50 us */
  CHECK(st_app_histogram_select(app, NULL, 0, 0, 0, 50) == 2);
  st_app_destroy(app);
}

static void test_idle_gaps(void) {
  double clock = 0;
  st_app_desc d = {
      .platform = {.ud = &clock, .now_ms = now_ms}, .css_w = 1000, .css_h = 600, .dpr = 1};
  st_app *app = st_app_create(&d);
  st_app_set_font(app, &font);
  CHECK(st_app_idle_gaps_json(app, 10)[0] == 'n');
  CHECK(st_app_load_begin(app, "t.json"));
  CHECK(st_app_load_push(app, TRACE, sizeof TRACE - 1) == ST_OK);
  CHECK(st_app_load_finish(app) == ST_APP_LOAD_OK);
  st_app_fit(app);
  const st_drawlist *dl = draw(app, &clock);
  CHECK(dl && dl->bands_drawn == 0); /* off by default */

  /* the list: longest first, with the host slice overlapping each */
  const char *j = st_app_idle_gaps_json(app, 10);
  CHECK(num_after(j, "\"devices\":") == 1);
  CHECK(num_after(j, "\"highlighted\":") == 2);
  CHECK(strstr(j, "\"shown\":false") != NULL);
  const char *g0 = strstr(j, "{\"index\":0");
  CHECK(g0 && num_after(g0, "\"dur_us\":") == 500 && num_after(g0, "\"start_us\":") == 300);
  CHECK(strstr(g0, "\"name\":\"launch\"") != NULL);
  const char *g1 = strstr(j, "{\"index\":1");
  CHECK(g1 && num_after(g1, "\"dur_us\":") == 490 && strstr(g1, "\"name\":\"sync\"") != NULL);
  CHECK(num_after(j, "\"device\":\"GPU 0") != 0 || strstr(j, "\"device\":") != NULL);

  /* highlighted: one band per gap on the stream's row, fitting the view */
  CHECK(st_app_idle_gaps_show(app, 1) == 2);
  CHECK(st_app_idle_gaps_shown(app));
  dl = draw(app, &clock);
  CHECK(dl && dl->bands_drawn == 2);
  CHECK(num_after(st_app_frame_stats_json(app), "\"bands\":") == 2);
  /* a window between the gaps draws none: the binary search skips them */
  CHECK(st_app_view_set(app, 820, 1200));
  dl = draw(app, &clock);
  CHECK(dl && dl->bands_drawn == 0);

  /* go to the second gap: the view holds it, with a margin each side */
  CHECK(st_app_idle_gap_go(app, 1) == 1);
  const char *v = st_app_view_json(app);
  double s = num_after(v, "\"start_us\":"), e = num_after(v, "\"end_us\":");
  CHECK(s < 1210 && e > 1700 && e - s < 2 * 490);
  CHECK(st_app_idle_gap_go(app, 2) == 0);
  CHECK(st_app_idle_gap_go(app, -1) == 0);

  /* toggled off: no bands */
  CHECK(st_app_idle_gaps_show(app, -1) == 0);
  dl = draw(app, &clock);
  CHECK(dl && dl->bands_drawn == 0);
  st_app_destroy(app);
}

/* The draw list's bands directly: intervals under a pixel are one rect,
 * hidden rows and intervals outside the window draw nothing. */
static void test_draw_bands(void) {
  double clock = 0;
  st_app_desc d = {
      .platform = {.ud = &clock, .now_ms = now_ms}, .css_w = 1000, .css_h = 600, .dpr = 1};
  st_app *app = st_app_create(&d);
  st_app_set_font(app, &font);
  CHECK(st_app_load_begin(app, "t.json"));
  CHECK(st_app_load_push(app, TRACE, sizeof TRACE - 1) == ST_OK);
  CHECK(st_app_load_finish(app) == ST_APP_LOAD_OK);
  st_app_fit(app);
  st_ui *ui = st_app_ui(app);
  const st_trace *t = st_ui_trace(ui);
  st_event_ref r = tu_ref_named(t, "gemm");
  int64_t t0[100], t1[100];
  for (int i = 0; i < 100; i++) { /* 100 intervals of 1 ns, 2 ns apart, at 500 us */
    t0[i] = 500000 + 2 * i;
    t1[i] = t0[i] + 1;
  }
  uint32_t rows[2] = {r.row, 999999}; /* a row that is not laid out: skipped */
  st_draw_band_set set = {rows, 2, t0, t1, 100};
  st_draw_input in = {t, NULL, st_ui_layout(ui), st_ui_view(ui), &font};
  st_draw_overlay ov;
  memset(&ov, 0, sizeof ov);
  ov.bands = &set;
  ov.band_sets = 1;
  st_drawlist dl;
  memset(&dl, 0, sizeof dl);
  st_alloc a = {0};
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, &a) == ST_OK);
  CHECK(dl.bands_drawn == 1);
  uint32_t found = 0;
  for (uint32_t i = 0; i < dl.rect_count; i++)
    if (dl.rects[i].w >= 1 && dl.rects[i].w < 3 && (dl.rects[i].rgba >> 24) == 72) found++;
  CHECK(found == 1);
  /* outside the window: nothing */
  for (int i = 0; i < 100; i++) t0[i] += (int64_t)1e12, t1[i] += (int64_t)1e12;
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, &a) == ST_OK);
  CHECK(dl.bands_drawn == 0);
  st_drawlist_free(&dl, &a);
  st_app_destroy(app);
}

/* Two files on one timeline: statistics over both, each file's device and
 * its gaps on its own rows. */
static void test_two_files(void) {
  double clock = 0;
  st_app_desc d = {
      .platform = {.ud = &clock, .now_ms = now_ms}, .css_w = 1000, .css_h = 600, .dpr = 1};
  st_app *app = st_app_create(&d);
  st_app_set_font(app, &font);
  st_app_batch_begin(app);
  for (int k = 0; k < 2; k++) {
    CHECK(st_app_load_begin(app, k ? "b.json" : "a.json"));
    CHECK(st_app_load_push(app, TRACE, sizeof TRACE - 1) == ST_OK);
    CHECK(st_app_load_finish(app) == ST_APP_LOAD_OK);
  }
  CHECK(st_app_batch_end(app) == 2);
  const char *j = st_app_opstats_json(app, 0, 0, 0);
  const char *g = strstr(j, "{\"name\":\"gemm\"");
  CHECK(g && num_after(g, "\"count\":") == 8 && num_after(g, "\"total_us\":") == 1402);
  CHECK(st_app_histogram_select(app, "gemm", 0, 0, 0, 1000) == 8);
  j = st_app_idle_gaps_json(app, 10);
  CHECK(num_after(j, "\"devices\":") == 2 && num_after(j, "\"highlighted\":") == 4);
  CHECK(strstr(j, "\"trace\":1") != NULL);
  CHECK(st_app_idle_gaps_show(app, 1) == 4);
  st_app_fit(app);
  const st_drawlist *dl = draw(app, &clock);
  CHECK(dl && dl->bands_drawn == 4);
  st_app_destroy(app);
}

int main(void) {
  RUN(test_two_files);
  RUN(test_draw_bands);
  RUN(test_opstats);
  RUN(test_idle_gaps);
  return check_report();
}
