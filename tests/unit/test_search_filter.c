/* test_search_filter.c: stepping through search matches while the track
 * filter hides some tracks (ui.h st_ui_search_step, st_ui_search_hidden,
 * st_ui_search_place; view.h st_layout_row_filtered). The steps skip the
 * matches the filter hides and the filter stays; the state JSON counts
 * them; a pinned track's matches are shown again; a filter hiding every
 * match makes Enter do nothing. Expected orders are written out by hand
 * from the trace below. */
#include "check.h"
#include "panel.h"
#include "test_util.h"
#include "ui.h"
#include "view.h"

#include <string.h>

/* "trainer" (pid 1) thread "main": step at 0, 20, 40 us; "loader" (pid 2)
 * thread "worker": step at 10, 30 us and an "idle" at 50. */
static const char *JSON =
    "[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"trainer\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}},"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"args\":{\"name\":\"loader\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":2,\"tid\":2,\"args\":{\"name\":\"worker\"}},"
    "{\"ph\":\"X\",\"name\":\"step\",\"ts\":0,\"dur\":5,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"X\",\"name\":\"step\",\"ts\":10,\"dur\":5,\"pid\":2,\"tid\":2},"
    "{\"ph\":\"X\",\"name\":\"step\",\"ts\":20,\"dur\":5,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"X\",\"name\":\"step\",\"ts\":30,\"dur\":5,\"pid\":2,\"tid\":2},"
    "{\"ph\":\"X\",\"name\":\"step\",\"ts\":40,\"dur\":5,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"X\",\"name\":\"idle\",\"ts\":50,\"dur\":5,\"pid\":2,\"tid\":2}]";

/* Presses Enter (shift: back) in the search box n times and writes the
 * times (us) of the matches reached, "0 20 40". */
static void steps(st_ui *ui, int n, int back, char *buf, size_t cap) {
  const st_row *rows = st_trace_rows(st_ui_trace(ui), NULL);
  size_t at = 0;
  buf[0] = 0;
  for (int k = 0; k < n; k++) {
    CHECK(st_ui_search_box_key(ui, "Enter", back ? ST_MOD_SHIFT : 0) & ST_UI_HANDLED);
    st_event_ref one, cur = st_ui_search_current(ui);
    if (cur.row == UINT32_MAX) continue;
    CHECK(st_ui_selected_one(ui, &one) && one.row == cur.row && one.index == cur.index);
    at += (size_t)snprintf(buf + at, cap - at, "%s%lld", at ? " " : "",
                           (long long)(rows[cur.row].start[cur.index] / 1000));
  }
}

static const char *state(st_ui *ui, st_panel_buf *pb) {
  CHECK(st_panel_state_json(pb, ui, NULL) == ST_OK);
  return pb->text;
}

static void test_search_filter(void) {
  st_error err;
  st_stats stats;
  st_trace *t = tu_load(JSON, strlen(JSON), strlen(JSON), "t.json", &err, &stats, NULL, 0);
  CHECK(t != NULL);
  if (!t) return;
  st_ui *ui = st_ui_create(NULL, t, 1200, 600, 1);
  CHECK(ui != NULL);
  st_panel_buf pb = {0};
  char got[128];
  st_event_ref worker = tu_ref_named(t, "idle"); /* worker's row */
  st_event_ref main_row = tu_ref_named(t, "step");

  /* no filter: every match, in time order */
  st_ui_search(ui, "step", 4);
  CHECK_EQ_INT(st_ui_search_hidden(ui), 0);
  steps(ui, 5, 0, got, sizeof got);
  CHECK_EQ_STR(got, "0 10 20 30 40");
  CHECK(strstr(state(ui, &pb), "\"matches\":5,\"current\":4,\"hidden\":0}") != NULL);

  /* the filter keeps "main": the steps skip worker's matches, the filter
   * stays, and the count says how many it hides */
  st_ui_search(ui, "step", 4);
  CHECK(st_ui_set_track_filter(ui, "main", 4) & ST_UI_LAYOUT);
  CHECK(st_layout_row_filtered(st_ui_layout(ui), worker.row));
  CHECK(!st_layout_row_filtered(st_ui_layout(ui), main_row.row));
  CHECK_EQ_INT(st_ui_search_hidden(ui), 2);
  steps(ui, 4, 0, got, sizeof got);
  CHECK_EQ_STR(got, "0 20 40 0"); /* wraps round the shown ones */
  CHECK_EQ_STR(st_layout_filter(st_ui_layout(ui)), "main");
  CHECK(strstr(state(ui, &pb), "\"matches\":5,\"current\":0,\"hidden\":2}") != NULL);
  steps(ui, 2, 1, got, sizeof got);
  CHECK_EQ_STR(got, "40 20");
  CHECK_EQ_INT(st_ui_search_place(ui), 1);
  /* PageDown: ten steps over the three shown (wrapping) */
  CHECK(st_ui_search_box_key(ui, "PageDown", 0) & ST_UI_HANDLED);
  CHECK_EQ_INT(st_ui_search_place(ui), (1 + 10) % 3);

  /* a current match the filter came to hide: its place is -1, and the
   * next step goes on from its time */
  st_ui_set_track_filter(ui, "", 0);
  st_ui_search(ui, "step", 4);
  steps(ui, 2, 0, got, sizeof got);
  CHECK_EQ_STR(got, "0 10");
  st_ui_set_track_filter(ui, "main", 4);
  CHECK_EQ_INT(st_ui_search_place(ui), -1);
  CHECK(strstr(state(ui, &pb), "\"current\":-1,\"hidden\":2}") != NULL);
  steps(ui, 1, 0, got, sizeof got);
  CHECK_EQ_STR(got, "20");

  /* a pinned track shows whatever the filter says: its matches count again */
  const st_row *rows = st_trace_rows(t, NULL);
  CHECK(st_ui_set_pinned(ui, rows[worker.row].track, 1));
  CHECK(!st_layout_row_filtered(st_ui_layout(ui), worker.row));
  CHECK_EQ_INT(st_ui_search_hidden(ui), 0);
  steps(ui, 2, 0, got, sizeof got);
  CHECK_EQ_STR(got, "30 40");
  st_ui_set_pinned(ui, rows[worker.row].track, 0);

  /* the filter hides every match: Enter selects nothing, moves nothing */
  st_ui_select(ui, worker, 0);
  st_ui_search(ui, "step", 4);
  st_ui_set_track_filter(ui, "worker", 6);
  CHECK_EQ_INT(st_ui_search_hidden(ui), 3);
  st_ui_set_track_filter(ui, "nothing", 7);
  CHECK_EQ_INT(st_ui_search_hidden(ui), 5);
  steps(ui, 1, 0, got, sizeof got);
  CHECK_EQ_STR(got, "");
  st_event_ref one;
  CHECK(st_ui_selected_one(ui, &one) && one.row == worker.row && one.index == worker.index);
  CHECK(strstr(state(ui, &pb), "\"matches\":5,\"current\":-1,\"hidden\":5}") != NULL);
  /* no search: nothing hidden */
  st_ui_search(ui, "", 0);
  CHECK_EQ_INT(st_ui_search_hidden(ui), 0);

  st_panel_buf_free(&pb, NULL);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

int main(void) {
  RUN(test_search_filter);
  return check_report();
}
