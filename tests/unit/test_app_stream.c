/* test_app_stream.c: streaming mode through the app (core/app/app.h
 * st_app_load_begin_stream, st_app_stream_*), driven as the page drives
 * it: a trace loaded as a summary; a narrow view wants a window; the
 * window's ranges are read from the bytes and pushed; the model swapped in
 * holds the full load's events in view, under the same view window; a
 * view too wide for the budget puts the summary back.
 */
#include "app.h"
#include "check.h"
#include "gen_perfetto.h"
#include "stream_stx.h"
#include "test_util.h"

#include <stdlib.h>

/* A handle read from the app's JSON (a number, as the page holds it). */
static st_trace_handle th(double id) { return (st_trace_handle){(uint32_t)id}; }

static double now_ms(void *ud) {
  (void)ud;
  return 1000;
}
static uint64_t heap_bytes(void *ud) {
  (void)ud;
  return 1;
}

/* an app as the page has it, 1000 x 600 CSS px */
static st_app *make_app(void) {
  st_app_desc d;
  memset(&d, 0, sizeof d);
  d.platform = (st_app_platform){NULL, now_ms, heap_bytes, NULL, NULL, NULL, NULL};
  d.css_w = 1000;
  d.css_h = 600;
  d.dpr = 1;
  return st_app_create(&d);
}

/* a trace of X events on 4 threads, ~n events, 1 us apart: in time
 * order, or shuffled (every block of the file then spans all its time) */
static char *gen(int n, int shuffled, size_t *len) {
  size_t cap = (size_t)n * 100 + 64, at = 0;
  char *p = malloc(cap);
  int *order = malloc((size_t)n * sizeof *order);
  for (int i = 0; i < n; i++) order[i] = i;
  uint64_t r = 88172645463325252ull;
  for (int i = n - 1; shuffled && i > 0; i--) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    int j = (int)(r % (uint64_t)(i + 1)), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  at += (size_t)snprintf(p + at, cap - at, "{\"traceEvents\":[\n");
  for (int k = 0; k < n; k++) {
    int i = order[k];
    at += (size_t)snprintf(
        p + at, cap - at,
        "{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":3,\"name\":\"op%d\"}%s\n", i % 4,
        1000 + i, i % 7, k + 1 < n ? "," : "");
  }
  free(order);
  at += (size_t)snprintf(p + at, cap - at, "]}\n");
  *len = at;
  return p;
}

/* events of t overlapping (t0, t1) (ns since its origin), as the summary
 * table counts them */
static uint64_t count_in(const st_trace *t, double t0, double t1) {
  uint32_t nr;
  const st_row *rows = st_trace_rows(t, &nr);
  uint64_t n = 0;
  for (uint32_t r = 0; r < nr; r++)
    for (uint32_t i = 0; i < rows[r].count; i++)
      n += rows[r].start[i] < t1 && rows[r].start[i] + rows[r].dur[i] > t0;
  return n;
}

/* The events in view that the window's summary table counts (what the user
 * sees); the table taken and read are checked. */
static double window_events(st_app *app) {
  CHECK(st_app_summary_take(app, 1) > 0);
  double in_view = 0;
  CHECK(sscanf(st_app_summary_json(app, 0, 1, 10), "{\"source\":\"window\",\"events\":%lf",
               &in_view) == 1);
  return in_view;
}

static void test_window_swap(void) {
  size_t len;
  char *data = gen(40000, 0, &len);
  st_app *app = make_app();
  CHECK(app != NULL);
  CHECK(st_app_load_begin_stream(app, "gen.json", 4096, 256));
  for (size_t at = 0; at < len; at += 65536)
    st_app_load_push(app, data + at, len - at < 65536 ? len - at : 65536);
  CHECK(st_app_load_finish(app) == ST_APP_LOAD_OK);
  CHECK(strstr(st_app_stream_json(app), "\"windows\":true") != NULL);
  CHECK(strstr(st_app_stream_json(app), "\"window_ns\":null") != NULL);
  /* the summary's stretches say so when selected (not one event) */
  CHECK(st_app_select(app, 0, 0, 0));
  CHECK(strstr(st_app_selected_event_json(app), "\"summary\":true") != NULL);
  /* zoomed out over 40 ms of events, with a 64 KiB budget: nothing to read */
  CHECK(strcmp(st_app_stream_want(app, 65536), "null") == 0);
  /* a 100 us view: a window (three views wide) */
  CHECK(st_app_view_set(app, 20000, 20100));
  /* the view needs a read: pending says so at once, before it begins */
  CHECK(strstr(st_app_view_json(app), "\"pending\":0}") == NULL);
  const char *w = st_app_stream_want(app, 65536);
  double h = 0, t0 = 0, t1 = 0;
  CHECK(sscanf(w, "{\"handle\":%lf,\"t0_ns\":%lf,\"t1_ns\":%lf", &h, &t0, &t1) == 3);
  CHECK(t0 <= 19000000.0 - 100000 && t1 >= 19100000.0 + 100000); /* origin is ts 1000 us */
  char view_before[200];
  snprintf(view_before, sizeof view_before, "%s", st_app_view_json(app));
  int n = st_app_stream_begin(app, th(h), t0, t1, 0);
  CHECK(n >= 1);
  CHECK(st_app_stream_pending(app) > 0);
  CHECK(strcmp(st_app_stream_want(app, 65536), "null") == 0); /* one load at a time */
  for (int k = 0; k < n; k++) {
    double off = st_app_stream_range(app, k, 0), ln = st_app_stream_range(app, k, 1);
    CHECK(off >= 0 && off + ln <= (double)len);
    size_t half = (size_t)ln / 2; /* in two chunks */
    CHECK(st_app_stream_push(app, k, data + (size_t)off, half));
    CHECK(st_app_stream_push(app, k, data + (size_t)off + half, (size_t)ln - half));
  }
  CHECK(st_app_stream_pending(app) == 0);
  CHECK(st_app_stream_finish(app) == 1);
  /* the same view (pending aside: the read is done) */
  CHECK(strncmp(st_app_view_json(app), view_before, strcspn(view_before, "p")) == 0);
  CHECK(strstr(st_app_view_json(app), "\"pending\":0}") != NULL);
  CHECK(st_app_select(app, 0, 0, 0)); /* the window's are events */
  CHECK(strstr(st_app_selected_event_json(app), "\"name\"") != NULL);
  CHECK(strstr(st_app_selected_event_json(app), "\"summary\"") == NULL);
  CHECK(strstr(st_app_stream_json(app), "\"window_ns\":[") != NULL);
  /* the window holds the full load's events in view */
  st_error err;
  st_stats st;
  st_trace *full = tu_load(data, len, 1 << 16, "full", &err, &st, NULL, 0);
  /* what the user sees: the window's summary table counts the events in
   * view (20000..20100 us; the trace starts at 1000 us) as a full load has */
  double in_view = window_events(app);
  CHECK(in_view == (double)count_in(full, 19000000.0, 19100000.0));
  CHECK(in_view > 90);
  /* panning inside the window wants nothing; zooming out past the budget
   * puts the summary back */
  CHECK(st_app_view_set(app, 20050, 20150));
  CHECK(strcmp(st_app_stream_want(app, 65536), "null") == 0);
  CHECK(st_app_view_set(app, 1000, 41000));
  w = st_app_stream_want(app, 65536);
  CHECK(strstr(w, "\"summary\":true") != NULL);
  CHECK(st_app_stream_show_summary(app, th(h)) == 1);
  CHECK(strstr(st_app_stream_json(app), "\"window_ns\":null") != NULL);
  /* a window read and abandoned: nothing changes */
  CHECK(st_app_view_set(app, 30000, 30010));
  w = st_app_stream_want(app, 65536);
  CHECK(sscanf(w, "{\"handle\":%lf,\"t0_ns\":%lf,\"t1_ns\":%lf", &h, &t0, &t1) == 3);
  CHECK(st_app_stream_begin(app, th(h), t0, t1, 0) >= 1);
  st_app_stream_abort(app);
  CHECK(st_app_stream_pending(app) == 0);
  CHECK(st_app_stream_finish(app) == 0);
  /* the file changed since the pass: the window is refused, the summary stays */
  n = st_app_stream_begin(app, th(h), t0, t1, 0);
  CHECK(n >= 1);
  for (int k = 0; k < n; k++) {
    size_t off = (size_t)st_app_stream_range(app, k, 0),
           ln = (size_t)st_app_stream_range(app, k, 1);
    char *bad = malloc(ln);
    memcpy(bad, data + off, ln);
    bad[ln / 2] = '@';
    CHECK(st_app_stream_push(app, k, bad, ln));
    free(bad);
  }
  CHECK(st_app_stream_finish(app) == 0);
  CHECK(strstr(st_app_error(app), "changed since it was opened") != NULL);
  CHECK(strstr(st_app_stream_json(app), "\"window_ns\":null") != NULL);
  /* pushing out of order is refused */
  n = st_app_stream_begin(app, th(h), t0, t1, 0);
  CHECK(n >= 1);
  CHECK(!st_app_stream_push(app, 1, data, 1));
  st_app_stream_abort(app);
  st_trace_destroy(full);
  st_app_destroy(app);
  free(data);
}

/* Unsorted: a narrow view's blocks are the whole file, its events few: all
 * read, only the window's kept (a "filter" want). */
static void test_unsorted(void) {
  size_t len;
  char *data = gen(40000, 1, &len);
  st_app *app = make_app();
  CHECK(st_app_load_begin_stream(app, "shuffled.json", 4096, 256));
  CHECK(st_app_load_push(app, data, len) == ST_OK);
  CHECK(st_app_load_finish(app) == ST_APP_LOAD_OK);
  CHECK(st_app_view_set(app, 20000, 20100));
  const char *w = st_app_stream_want(app, 65536);
  double h = 0, t0 = 0, t1 = 0, bytes = 0;
  CHECK(sscanf(w, "{\"handle\":%lf,\"t0_ns\":%lf,\"t1_ns\":%lf,\"bytes\":%lf", &h, &t0, &t1,
               &bytes) == 4);
  CHECK(strstr(w, "\"filter\":true") != NULL);
  CHECK(bytes > (double)len * 0.9);   /* the whole file is read */
  CHECK(t1 - t0 >= 3 * 100000.0 - 1); /* three views at least */
  /* ... and the widest window whose events (as the summary counts them) fit
   * is taken: with 1 MiB (16,384 events), some 27 views or more */
  double wh = 0, w0 = 0, w1 = 0;
  CHECK(sscanf(st_app_stream_want(app, 1 << 20), "{\"handle\":%lf,\"t0_ns\":%lf,\"t1_ns\":%lf", &wh,
               &w0, &w1) == 3);
  CHECK(w1 - w0 > 20 * 100000.0);
  int n = st_app_stream_begin(app, th(h), t0, t1, 1);
  CHECK(n >= 1);
  for (int k = 0; k < n; k++)
    CHECK(st_app_stream_push(app, k, data + (size_t)st_app_stream_range(app, k, 0),
                             (size_t)st_app_stream_range(app, k, 1)));
  CHECK(st_app_stream_finish(app) == 1);
  st_error err;
  st_stats st;
  st_trace *full = tu_load(data, len, 1 << 16, "full", &err, &st, NULL, 0);
  double in_view = window_events(app);
  CHECK(in_view == (double)count_in(full, 19000000.0, 19100000.0));
  CHECK(in_view > 90);
  st_trace_destroy(full);
  st_app_destroy(app);
  free(data);
}

/* ---- the re-ordered copy (app_spill.c) ---- */

typedef struct copybuf {
  uint8_t *p;
  size_t n, cap;
  int fail_at; /* the write that fails (0: none) */
  int writes;
} copybuf;

static st_code copy_write(void *ud, uint64_t offset, const void *data, size_t len) {
  copybuf *m = ud;
  if (++m->writes == m->fail_at) return ST_ERR_NOMEM;
  CHECK(offset == m->n);
  if (m->n + len > m->cap) {
    m->cap = (m->n + len) * 2;
    m->p = realloc(m->p, m->cap);
  }
  memcpy(m->p + m->n, data, len);
  m->n += len;
  return ST_OK;
}

/* Reads the window the view wants (from the copy when it says so). */
static int read_wanted(st_app *app, const char *data, const copybuf *copy, double budget,
                       double *bytes_out) {
  const char *w = st_app_stream_want(app, budget);
  double h = 0, t0 = 0, t1 = 0, bytes = 0;
  if (sscanf(w, "{\"handle\":%lf,\"t0_ns\":%lf,\"t1_ns\":%lf,\"bytes\":%lf", &h, &t0, &t1,
             &bytes) != 4)
    return 0;
  int from_copy = strstr(w, "\"copy\":true") != NULL;
  CHECK(from_copy == (copy != NULL));
  int n = st_app_stream_begin(app, th(h), t0, t1, strstr(w, "\"filter\":true") != NULL);
  CHECK(n >= 1);
  const uint8_t *src = from_copy ? copy->p : (const uint8_t *)data;
  for (int k = 0; k < n; k++)
    CHECK(st_app_stream_push(app, k, src + (size_t)st_app_stream_range(app, k, 0),
                             (size_t)st_app_stream_range(app, k, 1)));
  *bytes_out = bytes;
  return st_app_stream_finish(app);
}

/* A shuffled trace: the stream says a copy is wanted; with it, a narrow
 * window reads a few partitions (not the file) and holds the full load's
 * events; a copy whose write fails is refused with a line, and the file
 * keeps its filtered reads. */
static void test_reorder(void) {
  size_t len;
  char *data = gen(40000, 1, &len);
  st_error err;
  st_stats st;
  st_trace *full = tu_load(data, len, 1 << 16, "full", &err, &st, NULL, 0);
  for (int fail = 1; fail >= 0; fail--) {
    st_app *app = make_app();
    CHECK(st_app_load_begin_stream(app, "shuffled.json", 4096, 256));
    CHECK(st_app_load_push(app, data, len) == ST_OK);
    CHECK(st_app_load_finish(app) == ST_APP_LOAD_OK);
    const char *js = st_app_stream_json(app);
    CHECK(strstr(js, "\"unsorted\":true") && strstr(js, "\"copy_wanted\":true") &&
          strstr(js, "\"copy\":null"));
    double h = 0;
    CHECK(sscanf(js, "{\"files\":[{\"handle\":%lf", &h) == 1);
    copybuf copy = {0};
    copy.fail_at = fail ? 3 : 0;
    CHECK(st_app_spill_begin(app, th(h), 64, 4096, 0, copy_write, &copy) == 1);
    CHECK(st_app_spill_begin(app, th(h), 64, 4096, 0, copy_write, &copy) == 0); /* one at a time */
    CHECK(strstr(st_app_stream_json(app), "\"copy\":\"running\"") != NULL);
    int pushed = 1;
    for (size_t at = 0; at < len && pushed; at += 65536)
      pushed = st_app_spill_push(app, data + at, len - at < 65536 ? len - at : 65536);
    CHECK(pushed == !fail);
    CHECK(st_app_spill_finish(app) == !fail);
    if (!fail) { /* the platform loses the copy: forgotten, windows from the file again */
      CHECK(st_app_spill_drop(app, th(h)) == 1);
      CHECK(strstr(st_app_stream_json(app), "\"copy\":null") != NULL);
      CHECK(st_app_spill_drop(app, th(h)) == 0);
      CHECK(st_app_view_set(app, 20000, 20100));
      const char *w = st_app_stream_want(app, 65536);
      CHECK(strstr(w, "\"copy\":false") && strstr(w, "\"filter\":true"));
      /* and made again */
      copy.n = 0;
      CHECK(st_app_spill_begin(app, th(h), 64, 4096, 0, copy_write, &copy) == 1);
      for (size_t at = 0; at < len; at += 65536)
        CHECK(st_app_spill_push(app, data + at, len - at < 65536 ? len - at : 65536));
      CHECK(st_app_spill_finish(app) == 1);
    }
    if (fail) {
      CHECK(strstr(st_app_error(app),
                   "re-ordering stopped: the re-ordered copy could not be written") != NULL);
      CHECK(strstr(st_app_stream_json(app), "\"copy_wanted\":true") != NULL);
    } else {
      CHECK(strstr(st_app_stream_json(app), "\"copy\":\"done\"") != NULL);
      CHECK(copy.n == 48u * 40000);
    }
    CHECK(st_app_view_set(app, 20000, 20100));
    double bytes = 0;
    CHECK(read_wanted(app, data, fail ? NULL : &copy, 65536, &bytes) == 1);
    if (!fail) CHECK(bytes < copy.n / 8.0); /* a few partitions of 64 */
    double in_view = window_events(app);
    CHECK(in_view == (double)count_in(full, 19000000.0, 19100000.0));
    CHECK(in_view > 90);
    st_app_destroy(app);
    free(copy.p);
  }
  st_trace_destroy(full);
  free(data);
}

/* A Perfetto trace streams as a summary; its re-ordered copy gives it
 * windows holding the full load's events. */
static int gen_put(void *ud, const void *p, size_t n) {
  copybuf *m = ud;
  return copy_write(m, m->n, p, n) != ST_OK;
}

static void test_reorder_protobuf(void) {
  copybuf file = {0}; /* strata-gen --perfetto -n 20000 --cpus 4 */
  CHECK(gen_perfetto_write(&(gen_perfetto_desc){7, 4, 20000}, gen_put, &file) == 0);
  char *data = (char *)file.p;
  size_t len = file.n;
  st_error err;
  st_stats st;
  st_trace *full = tu_load(data, len, 1 << 16, "full", &err, &st, NULL, 0);
  CHECK(full != NULL);
  st_app *app = make_app();
  CHECK(st_app_load_begin_stream(app, "system.pftrace", 65536, 256));
  CHECK(st_app_load_push(app, data, len) == ST_OK);
  CHECK(st_app_load_finish(app) == ST_APP_LOAD_OK);
  const char *js = st_app_stream_json(app);
  CHECK(strstr(js, "\"windows\":false") && strstr(js, "\"copy_wanted\":true"));
  double h = 0;
  CHECK(sscanf(js, "{\"files\":[{\"handle\":%lf", &h) == 1);
  int64_t d = st_trace_duration_ns(full);
  double o = (double)st_trace_origin_ns(full);
  CHECK(st_app_view_set(app, (o + (double)d * 0.4) / 1000, (o + (double)d * 0.45) / 1000));
  CHECK(strcmp(st_app_stream_want(app, 1 << 20), "null") == 0); /* no windows yet */
  copybuf copy = {0};
  CHECK(st_app_spill_begin(app, th(h), 0, 0, 0, copy_write, &copy) == 1);
  for (size_t at = 0; at < len; at += 1000)
    CHECK(st_app_spill_push(app, data + at, len - at < 1000 ? len - at : 1000));
  CHECK(st_app_spill_finish(app) == 1);
  double bytes = 0;
  CHECK(read_wanted(app, data, &copy, 1 << 20, &bytes) == 1);
  double in_view = window_events(app);
  CHECK(in_view == (double)count_in(full, (double)d * 0.4, (double)d * 0.45));
  printf("protobuf window: %g events in view\n", in_view);
  CHECK(in_view > 1000);
  st_app_destroy(app);
  free(copy.p);
  st_trace_destroy(full);
  free(data);
}

/* The preview while the pass runs: the summary so far is drawn in place of
 * what was shown; the load's end shows the file, or, when the load fails,
 * brings back the file shown before. */
static void test_preview(void) {
  size_t len;
  char *data = gen(40000, 0, &len);
  st_app *app = make_app();
  CHECK(st_app_stream_preview(app) == 0); /* no load */
  CHECK(st_app_load_begin_stream(app, "first.json", 4096, 256));
  double last = 0;
  for (size_t at = 0; at < len; at += len / 4 + 1) {
    CHECK(st_app_load_push(app, data + at, len - at < len / 4 + 1 ? len - at : len / 4 + 1) ==
          ST_OK);
    double ev = st_app_stream_preview(app);
    CHECK(ev > 0 && ev >= last / 2);
    last = ev;
    CHECK(strcmp(st_app_view_json(app), "null") != 0);    /* drawn */
    if (at == 0) CHECK(st_app_view_set(app, 5000, 5100)); /* the user zooms the preview */
    CHECK(strstr(st_app_view_json(app), at ? "\"start_us\":5000," : "\"start_us\":") != NULL);
  }
  CHECK(st_app_load_finish(app) == ST_APP_LOAD_OK);
  CHECK(strstr(st_app_view_json(app), "\"start_us\":5000,\"end_us\":5100,") != NULL); /* kept */
  CHECK(strstr(st_app_traces_json(app), "first.json") != NULL);
  char stats[256];
  snprintf(stats, sizeof stats, "%s", st_app_stats_json(app));
  CHECK(strstr(stats, "\"events\":40000") != NULL);
  /* a second streaming load that fails after a preview: the first comes back */
  CHECK(st_app_load_begin_stream(app, "second.json", 4096, 256));
  CHECK(st_app_load_push(app, data, len / 2) == ST_OK);
  CHECK(st_app_stream_preview(app) > 0);
  CHECK(strstr(st_app_traces_json(app), "first.json") == NULL); /* out of view meanwhile */
  CHECK(st_app_load_push(app, "}}}garbage", 10) != ST_OK || 1);
  int rc = st_app_load_finish(app);
  CHECK(rc == ST_APP_LOAD_FAILED || rc == ST_APP_LOAD_PARTIAL);
  if (rc == ST_APP_LOAD_FAILED) {
    CHECK(strstr(st_app_traces_json(app), "first.json") != NULL);
    CHECK(strstr(st_app_stats_json(app), "\"events\":40000") != NULL);
  }
  CHECK(strcmp(st_app_view_json(app), "null") != 0);
  /* aborted after a preview: the same */
  CHECK(st_app_load_begin_stream(app, "third.json", 4096, 256));
  CHECK(st_app_load_push(app, data, len / 3) == ST_OK);
  CHECK(st_app_stream_preview(app) > 0);
  st_app_load_abort(app);
  CHECK(strstr(st_app_traces_json(app), "second.json") != NULL ||
        strstr(st_app_traces_json(app), "first.json") != NULL);
  st_app_destroy(app);
  free(data);
}

/* A gzip'd trace: its window's ranges (decoded offsets) read in pieces
 * through the pass's restart points. */
static void test_gzip(void) {
  size_t len, zlen;
  char *data = gen(40000, 0, &len);
  unsigned char *z = tu_deflate(data, len, 31, &zlen);
  st_app *app = make_app();
  CHECK(st_app_load_begin_stream(app, "gen.json.gz", 4096, 256));
  for (size_t at = 0; at < zlen; at += 30000)
    st_app_load_push(app, z + at, zlen - at < 30000 ? zlen - at : 30000);
  CHECK(st_app_load_finish(app) == ST_APP_LOAD_OK);
  CHECK(st_app_view_set(app, 20000, 20100));
  const char *w = st_app_stream_want(app, 65536);
  double h = 0, t0 = 0, t1 = 0;
  CHECK(sscanf(w, "{\"handle\":%lf,\"t0_ns\":%lf,\"t1_ns\":%lf", &h, &t0, &t1) == 3);
  int n = st_app_stream_begin(app, th(h), t0, t1, 0);
  CHECK(n >= 1);
  for (int k = 0; k < n; k++) {
    double off = st_app_stream_range(app, k, 0), ln = st_app_stream_range(app, k, 1);
    for (double at = 0; at < ln; at += 5000) { /* pieces of 5000 decoded bytes */
      double from = st_app_stream_raw_begin(app, off + at, ln - at < 5000 ? ln - at : 5000);
      CHECK(from >= 0 && from < (double)zlen);
      int r = 0;
      while (r == 0 && from < (double)zlen) {
        size_t m = zlen - (size_t)from < 777 ? zlen - (size_t)from : 777;
        r = st_app_stream_raw_push(app, k, z + (size_t)from, m);
        from += (double)m;
      }
      CHECK(r == 1);
    }
  }
  CHECK(st_app_stream_finish(app) == 1);
  st_error err;
  st_stats st;
  st_trace *full = tu_load(data, len, 1 << 16, "full", &err, &st, NULL, 0);
  double in_view = window_events(app);
  CHECK(in_view == (double)count_in(full, 19000000.0, 19100000.0));
  CHECK(in_view > 90);
  /* a changed compressed file: the read fails with a line, nothing is swapped */
  CHECK(st_app_view_set(app, 35000, 35100));
  w = st_app_stream_want(app, 65536);
  CHECK(sscanf(w, "{\"handle\":%lf,\"t0_ns\":%lf,\"t1_ns\":%lf", &h, &t0, &t1) == 3);
  CHECK(st_app_stream_begin(app, th(h), t0, t1, 0) >= 1);
  double from = st_app_stream_raw_begin(app, st_app_stream_range(app, 0, 0), 1000);
  CHECK(from >= 0);
  unsigned char junk[4096];
  memset(junk, 0xA5, sizeof junk);
  int r = 0;
  for (int i = 0; i < 64 && r == 0; i++) r = st_app_stream_raw_push(app, 0, junk, sizeof junk);
  CHECK(r == -1);
  st_app_stream_abort(app);
  st_trace_destroy(full);
  st_app_destroy(app);
  free(z);
  free(data);
}

typedef struct membuf {
  uint8_t *p;
  size_t n;
} membuf;
static st_code mem_write(void *ud, const void *data, size_t len) {
  membuf *m = ud;
  m->p = realloc(m->p, m->n + len);
  memcpy(m->p + m->n, data, len);
  m->n += len;
  return ST_OK;
}

/* The index file of data (a pass, then st_stream_save), as strata index writes it. */
static membuf index_of(const char *data, size_t len) {
  membuf m = {NULL, 0};
  st_stream *s = st_stream_create(&(st_stream_desc){.block_bytes = 4096, .max_buckets = 256});
  st_stream_push(s, data, len);
  st_error err;
  st_trace *sum = st_stream_finish(s, &err);
  st_stream_range r[ST_STX_SAMPLES];
  uint32_t n = st_stream_identity_plan(s, r);
  const uint8_t *samples[ST_STX_SAMPLES];
  for (uint32_t k = 0; k < n; k++) samples[k] = (const uint8_t *)data + r[k].offset;
  CHECK(st_stream_save(s, sum, samples, n, mem_write, &m, &err) == ST_OK);
  st_trace_destroy(sum);
  st_stream_destroy(s);
  return m;
}

/* Opened with its index file: no pass; a stale index is refused, the trace
 * loads itself; a window as after a pass. */
static void test_index(void) {
  size_t len, len2;
  char *data = gen(40000, 0, &len);
  char *other = gen(30000, 0, &len2);
  membuf ix = index_of(data, len);
  st_app *app = make_app();
  /* not an index */
  CHECK(!st_app_load_begin_index(app, "gen.json", "not an index", 12));
  CHECK(strstr(st_app_error(app), "gen.json") != NULL);
  /* the index of another file */
  CHECK(st_app_load_begin_index(app, "other.json", ix.p, ix.n));
  int n = st_app_load_index_samples(app);
  CHECK(n > 0);
  for (int k = 0; k < n; k++) {
    double off = st_app_load_index_range(app, k, 0), ln = st_app_load_index_range(app, k, 1);
    if (off + ln <= (double)len2) st_app_load_index_sample(app, k, other + (size_t)off, (size_t)ln);
  }
  CHECK(!st_app_load_index_verify(app, (double)len2));
  CHECK(strstr(st_app_error(app), "does not match") != NULL);
  st_app_load_abort(app);
  /* its own */
  CHECK(st_app_load_begin_index(app, "gen.json", ix.p, ix.n));
  n = st_app_load_index_samples(app);
  for (int k = 0; k < n; k++) {
    double off = st_app_load_index_range(app, k, 0), ln = st_app_load_index_range(app, k, 1);
    CHECK(st_app_load_index_sample(app, k, data + (size_t)off, (size_t)ln));
  }
  CHECK(st_app_load_index_verify(app, (double)len));
  int rc = st_app_load_finish(app);
  if (rc != ST_APP_LOAD_OK) printf("index load: %d %s\n", rc, st_app_error(app));
  CHECK(rc == ST_APP_LOAD_OK);
  CHECK(strstr(st_app_stats_json(app), "\"events\":40000") != NULL);
  CHECK(strstr(st_app_stream_json(app), "\"windows\":true") != NULL);
  CHECK(st_app_view_set(app, 20000, 20100));
  const char *w = st_app_stream_want(app, 65536);
  double h = 0, t0 = 0, t1 = 0;
  CHECK(sscanf(w, "{\"handle\":%lf,\"t0_ns\":%lf,\"t1_ns\":%lf", &h, &t0, &t1) == 3);
  n = st_app_stream_begin(app, th(h), t0, t1, 0);
  CHECK(n >= 1);
  for (int k = 0; k < n; k++)
    CHECK(st_app_stream_push(app, k, data + (size_t)st_app_stream_range(app, k, 0),
                             (size_t)st_app_stream_range(app, k, 1)));
  CHECK(st_app_stream_finish(app) == 1);
  st_error err;
  st_stats st;
  st_trace *full = tu_load(data, len, 1 << 16, "full", &err, &st, NULL, 0);
  double in_view = window_events(app);
  CHECK(in_view == (double)count_in(full, 19000000.0, 19100000.0));
  st_trace_destroy(full);
  st_app_destroy(app);
  free(ix.p);
  free(other);
  free(data);
}

int main(void) {
  RUN(test_index);
  RUN(test_gzip);
  RUN(test_preview);
  RUN(test_window_swap);
  RUN(test_unsorted);
  RUN(test_reorder);
  RUN(test_reorder_protobuf);
  return check_report();
}
