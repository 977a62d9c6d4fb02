/* test_panel.c: the ui state as JSON: state, selection, one event's
 * details, summary, hover; hostile names (quotes, backslashes, control
 * characters, invalid UTF-8) come out escaped. Validity of the text is
 * checked with st_args_extract, which re-emits valid JSON unchanged. */
#include "chrome_args.h"
#include "check.h"
#include "panel.h"

#include <stdlib.h>

static uint32_t S(st_builder *b, const char *s) {
  return st_strtab_intern(st_builder_strings(b), s, strlen(s));
}

static int valid(const char *json) {
  size_t n = strlen(json);
  char *in = malloc(n + 16), *out = malloc(n + 256);
  sprintf(in, "{\"args\":%s}", json);
  int cut = 0;
  int ok = st_args_extract(in, n + 9, out, n + 256, NULL, &cut, NULL) == ST_OK && !cut &&
           !strcmp(out, json);
  if (!ok) fprintf(stderr, "invalid JSON: %s\n  -> %s\n", json, out);
  free(in);
  free(out);
  return ok;
}

static void test_panels(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 7);
  st_builder_process_name(b, p, S(b, "host \"1\""));
  uint32_t t = st_builder_track(b, p, ST_TRACK_SLICES, 3, S(b, "main\\thread"));
  st_builder_slice(b, t, 5000, 9000, S(b, "evil \"name\" \x01 \xff"), S(b, "cat"), 42, 0);
  st_builder_slice(b, t, 6000, 1000, S(b, "child"), 0, 43, 0);
  st_trace *tr = st_builder_finish(b, NULL);
  st_ui *ui = st_ui_create(NULL, tr, 1220, 700, 1);
  st_panel_buf pb = {0};
  CHECK(st_panel_state_json(&pb, ui, NULL) == ST_OK);
  CHECK(valid(pb.text));
  CHECK(strstr(pb.text, "\"tool\":\"select\"") && strstr(pb.text, "\"mark\":null"));
  st_ui_select(ui, (st_event_ref){0, 0}, 0);
  st_ui_mark_selection(ui);
  st_ui_search(ui, "CHILD", 5);
  st_ui_search_step(ui, 1);
  CHECK(st_panel_state_json(&pb, ui, NULL) == ST_OK && valid(pb.text));
  CHECK(strstr(pb.text, "\"dur_text\":\"9 us\"") != NULL);
  CHECK(strstr(pb.text, "\"matches\":1,\"current\":0") != NULL);
  st_ui_select(ui, (st_event_ref){0, 0}, 0);
  CHECK(st_panel_selection_json(&pb, ui, 100, NULL) == ST_OK && valid(pb.text));
  CHECK(strstr(pb.text, "\"name\":\"evil \\\"name\\\" \\u0001 \xEF\xBF\xBD\"") != NULL);
  CHECK(strstr(pb.text, "\"ts_us\":5,") != NULL);
  CHECK(st_panel_event_json(&pb, ui, (st_event_ref){0, 0}, NULL) == ST_OK && valid(pb.text));
  CHECK(strstr(pb.text, "\"self_ns\":8000") && strstr(pb.text, "\"thread\":\"main\\\\thread\""));
  CHECK(strstr(pb.text, "\"process\":\"host \\\"1\\\"\"") && strstr(pb.text, "\"src\":42"));
  CHECK(st_panel_event_json(&pb, ui, ST_REF_NONE, NULL) == ST_OK && !strcmp(pb.text, "null"));
  st_agg *g = st_agg_create(NULL, tr);
  CHECK(st_panel_summary_json(&pb, ui, g, 1, ST_AGG_TOTAL, 1, 100, NULL) == ST_OK);
  CHECK(valid(pb.text) && strstr(pb.text, "\"events\":2,\"names\":2"));
  /* a kept aggregation, re-sorted and written without re-summarising */
  st_agg_sort(g, ST_AGG_NAME, 0);
  CHECK(st_panel_agg_json(&pb, ui, g, "window", 1, NULL) == ST_OK && valid(pb.text));
  CHECK(strstr(pb.text, "{\"source\":\"window\",\"events\":2,\"names\":2,\"rows\":[{") != NULL);
  CHECK(strstr(pb.text, "},{") == NULL); /* max_rows 1 */
  CHECK(st_panel_hover_json(&pb, ui, NULL) == ST_OK && !strcmp(pb.text, "null"));
  st_agg_destroy(g);
  st_panel_buf_free(&pb, NULL);
  st_ui_destroy(ui);
  st_trace_destroy(tr);
}

/* The tracks as laid out (window.strata.tracks()): one entry per label, a
 * thread's marker lane and slices as one; and the state's "outside", the
 * events the first view leaves out (core/index/bulk.h) until key 0. */
static void test_tracks_and_outside(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 7);
  st_builder_process_name(b, p, S(b, "host \"1\""));
  uint32_t t = st_builder_track(b, p, ST_TRACK_SLICES, 3, S(b, "py\"thon"));
  uint32_t m = st_builder_track(b, p, ST_TRACK_INSTANTS, 3, S(b, "py\"thon"));
  uint32_t u = st_builder_track(b, p, ST_TRACK_SLICES, 4, S(b, "py\"thon"));
  uint32_t c = st_builder_track(b, p, ST_TRACK_COUNTER, 0, S(b, "mem"));
  for (int i = 0; i < 200; i++) st_builder_slice(b, t, 1000000000000LL + i * 1000, 500, 0, 0, 0, 0);
  st_builder_slice(b, m, 1000000000100LL, 0, 0, 0, 1, ST_EV_INSTANT);
  st_builder_slice(b, u, 5, 10, 0, 0, 2, 0); /* far before everything else */
  st_builder_counter(b, c, 1000000000000LL, 1);
  st_trace *tr = st_builder_finish(b, NULL);
  st_ui *ui = st_ui_create(NULL, tr, 1220, 700, 1);
  st_panel_buf pb = {0};
  CHECK(st_panel_tracks_json(&pb, ui, NULL) == ST_OK && valid(pb.text));
  CHECK(strstr(pb.text,
               "[{\"label\":\"py\\\"thon (tid 3)\",\"section\":\"host \\\"1\\\"\",\"pid\":7,"
               "\"kind\":\"rows\",\"y\":24,\"h\":40,\"first_row\":0,\"rows\":2,"
               "\"id\":\"0.7.0\",\"pinned\":false,\"canvas_y\":52}") != NULL);
  CHECK(strstr(pb.text, "\"label\":\"py\\\"thon (tid 4)\"") != NULL);
  CHECK(strstr(pb.text, "\"label\":\"mem\",") && strstr(pb.text, "\"kind\":\"counter\""));
  CHECK(st_panel_state_json(&pb, ui, NULL) == ST_OK && valid(pb.text));
  CHECK(strstr(pb.text, "\"outside\":1") != NULL);
  st_ui_key_down(ui, "0", 0);
  CHECK(st_panel_state_json(&pb, ui, NULL) == ST_OK && strstr(pb.text, "\"outside\":0"));
  st_ui_collapse_all(ui);
  CHECK(st_panel_tracks_json(&pb, ui, NULL) == ST_OK && !strcmp(pb.text, "[]"));
  st_panel_buf_free(&pb, NULL);
  st_ui_destroy(ui);
  st_trace_destroy(tr);
}

int main(void) {
  RUN(test_panels);
  RUN(test_tracks_and_outside);
  return check_report();
}
