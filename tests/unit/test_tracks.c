/* test_tracks.c: which sections and tracks the layout shows (view.h,
 * track_filter.h): processes without events hidden and counted, the track
 * filter and its counts, pinned tracks laid out first and fixed while the
 * rest scrolls, hit testing and the screen spans with pins, stable track
 * ids, and the ui calls (pin target click, key p, the filter). */
#include "ascii_ci.h"
#include "check.h"
#include "hit.h"
#include "track_filter.h"
#include "ui.h"
#include "view.h"

#include <math.h>
#include <string.h>

#include "lod.h"

/* pid 10 "python": no track; pid 20 "python": a thread track without
 * events; pid 30 "trainer": thread "main" (3 levels), thread "nccl worker"
 * (1), counter "mem" (2 samples); pid 40 "dataloader": thread "loader" (1). */
static st_trace *kineto_like(void) {
  st_builder *b = st_builder_create(NULL);
  st_strtab *s = st_builder_strings(b);
  uint32_t py = st_strtab_intern(s, "python", 6);
  uint32_t p10 = st_builder_process(b, 10), p20 = st_builder_process(b, 20);
  uint32_t p30 = st_builder_process(b, 30), p40 = st_builder_process(b, 40);
  st_builder_process_name(b, p10, py);
  st_builder_process_name(b, p20, py);
  st_builder_process_name(b, p30, st_strtab_intern(s, "trainer", 7));
  st_builder_process_name(b, p40, st_strtab_intern(s, "dataloader", 10));
  st_builder_track(b, p20, ST_TRACK_SLICES, 99, st_strtab_intern(s, "idle", 4));
  uint32_t m = st_builder_track(b, p30, ST_TRACK_SLICES, 1, st_strtab_intern(s, "main", 4));
  uint32_t n = st_builder_track(b, p30, ST_TRACK_SLICES, 2, st_strtab_intern(s, "nccl worker", 11));
  uint32_t c = st_builder_track(b, p30, ST_TRACK_COUNTER, 0, st_strtab_intern(s, "mem", 3));
  uint32_t l = st_builder_track(b, p40, ST_TRACK_SLICES, 5, st_strtab_intern(s, "loader", 6));
  st_builder_slice(b, m, 1000, 9000, 0, 0, 0, 0);
  st_builder_slice(b, m, 2000, 1000, 0, 0, 0, 0);
  st_builder_slice(b, m, 2100, 100, 0, 0, 0, 0);
  st_builder_slice(b, n, 5000, 100, 0, 0, 0, 0);
  st_builder_counter(b, c, 1000, 1);
  st_builder_counter(b, c, 11000, 2);
  st_builder_slice(b, l, 3000, 500, 0, 0, 0, 0);
  return st_builder_finish(b, NULL);
}

static uint32_t track_named(const st_trace *t, const char *name) {
  uint32_t nt;
  const st_track *ts = st_trace_tracks(t, &nt);
  for (uint32_t i = 0; i < nt; i++) {
    size_t len;
    const char *s = st_strtab_get(st_trace_strings(t), ts[i].name, &len);
    if (len == strlen(name) && !memcmp(s, name, len)) return i;
  }
  return UINT32_MAX;
}

static int64_t pid_of_item(const st_trace *t, const st_layout_item *it) {
  return st_trace_processes(t, NULL)[it->process].pid;
}

/* The items as "kind:pid:track:y" words, for comparing whole layouts. */
static void layout_text(const st_trace *t, const st_layout *l, char *buf, size_t cap) {
  uint32_t n;
  const st_layout_item *it = st_layout_items(l, &n);
  size_t w = 0;
  buf[0] = 0;
  for (uint32_t i = 0; i < n && w < cap; i++) {
    int m = snprintf(buf + w, cap - w, "%s%c%lld:%d:%g", i ? " " : "", "SRCG"[it[i].kind],
                     (long long)pid_of_item(t, &it[i]),
                     it[i].track == UINT32_MAX ? -1 : (int)it[i].track, it[i].y);
    if (m < 0) break;
    w += (size_t)m;
  }
}

#define CHECK_LAYOUT(t, l, want)                                                                   \
  do {                                                                                             \
    char got_[512];                                                                                \
    layout_text(t, l, got_, sizeof got_);                                                          \
    CHECK_EQ_STR(got_, want);                                                                      \
  } while (0)

/* tracks: 0 idle (pid 20), 1 main, 2 nccl worker, 3 mem, 4 loader */
static const char *DEFAULT_LAYOUT =
    "S30:-1:0 R30:1:24 R30:1:44 R30:1:64 R30:2:88 C30:3:112 S40:-1:156 R40:4:180";

static void test_empty_sections(void) {
  st_trace *t = kineto_like();
  CHECK(track_named(t, "nccl worker") == 2 && track_named(t, "mem") == 3);
  st_layout *l = st_layout_create(NULL, t);
  CHECK_EQ_INT(st_layout_empty_count(l), 2);
  CHECK(!st_layout_show_empty(l));
  CHECK_LAYOUT(t, l, DEFAULT_LAYOUT); /* pid 10 and 20 left out */
  CHECK(st_layout_height(l) == 204);
  uint32_t shown, total = st_layout_track_counts(l, &shown);
  CHECK_EQ_INT(total, 4);
  CHECK_EQ_INT(shown, 4);
  st_layout_set_show_empty(l, 1);
  CHECK_LAYOUT(t, l,
               "S10:-1:0 S20:-1:24 S30:-1:48 R30:1:72 R30:1:92 R30:1:112 R30:2:136 C30:3:160 "
               "S40:-1:204 R40:4:228");
  CHECK_EQ_INT(st_layout_track_counts(l, &shown), 4); /* idle has nothing to draw: no label */
  st_layout_set_show_empty(l, 0);
  CHECK_LAYOUT(t, l, DEFAULT_LAYOUT);
  st_layout_destroy(l);
  st_trace_destroy(t);

  /* every process without events: all shown (never a blank with nothing to say) */
  st_builder *b = st_builder_create(NULL);
  st_builder_process(b, 1);
  st_builder_track(b, st_builder_process(b, 2), ST_TRACK_SLICES, 3, 0);
  t = st_builder_finish(b, NULL);
  l = st_layout_create(NULL, t);
  CHECK_EQ_INT(st_layout_empty_count(l), 2);
  CHECK_LAYOUT(t, l, "S1:-1:0 S2:-1:24");
  st_layout_destroy(l);
  st_trace_destroy(t);
}

static void test_filter(void) {
  st_trace *t = kineto_like();
  st_layout *l = st_layout_create(NULL, t);
  uint32_t shown;
  CHECK(st_layout_set_filter(l, "NCCL", 4)); /* a thread's name, case ignored */
  CHECK_EQ_STR(st_layout_filter(l), "NCCL");
  CHECK_LAYOUT(t, l, "S30:-1:0 R30:2:24");
  CHECK(st_layout_height(l) == 48);
  CHECK_EQ_INT(st_layout_track_counts(l, &shown), 4);
  CHECK_EQ_INT(shown, 1);
  CHECK(st_layout_set_filter(l, "Trainer", 7)); /* a process's name: all its tracks */
  CHECK_LAYOUT(t, l, "S30:-1:0 R30:1:24 R30:1:44 R30:1:64 R30:2:88 C30:3:112");
  st_layout_track_counts(l, &shown);
  CHECK_EQ_INT(shown, 3);
  CHECK(st_layout_set_filter(l, "load", 4)); /* "dataloader" and "loader" */
  CHECK_LAYOUT(t, l, "S40:-1:0 R40:4:24");
  CHECK(st_layout_set_filter(l, "me", 2)); /* the counter "mem" only */
  CHECK_LAYOUT(t, l, "S30:-1:0 C30:3:24");
  CHECK(st_layout_set_filter(l, "python", 6)); /* only empty processes match: none shown */
  CHECK_LAYOUT(t, l, "");
  st_layout_track_counts(l, &shown);
  CHECK_EQ_INT(shown, 0);
  st_layout_set_show_empty(l, 1); /* shown, with no track kept */
  CHECK_LAYOUT(t, l, "S10:-1:0 S20:-1:24");
  st_layout_set_show_empty(l, 0);
  /* collapse keeps the filter; clearing it brings everything back */
  CHECK(st_layout_set_filter(l, "worker", 6));
  st_layout_set_collapsed(l, 2, 1);
  CHECK_LAYOUT(t, l, "S30:-1:0");
  st_layout_set_collapsed(l, 2, 0);
  CHECK(st_layout_set_filter(l, "", 0));
  CHECK_EQ_STR(st_layout_filter(l), "");
  CHECK_LAYOUT(t, l, DEFAULT_LAYOUT);
  CHECK(st_contains_ci("GPU 0 Stream 7", 14, "stream 7", 8));
  CHECK(!st_contains_ci("GPU", 3, "GPU 0", 5));
  st_layout_destroy(l);
  st_trace_destroy(t);
}

static void test_pins(void) {
  st_trace *t = kineto_like();
  st_layout *l = st_layout_create(NULL, t);
  CHECK(st_layout_set_pinned(l, 2, 1));
  CHECK(!st_layout_set_pinned(l, 2, 1)); /* already */
  CHECK(st_layout_pinned(l, 2) && !st_layout_pinned(l, 1));
  /* the pinned track first, out of its section; y ascends along the list */
  CHECK_LAYOUT(t, l, "R30:2:0 S30:-1:24 R30:1:48 R30:1:68 R30:1:88 C30:3:112 S40:-1:156 R40:4:180");
  CHECK_EQ_INT(st_layout_pinned_items(l), 1);
  CHECK(st_layout_pinned_height(l) == 24);
  CHECK(st_layout_set_pinned(l, 3, 1)); /* the counter after it: pin order */
  CHECK_LAYOUT(t, l,
               "R30:2:0 C30:3:24 S30:-1:68 R30:1:92 R30:1:112 R30:1:132 S40:-1:156 R40:4:180");
  CHECK(st_layout_pinned_height(l) == 68);
  uint32_t np;
  const uint32_t *pins = st_layout_pins(l, &np);
  CHECK(np == 2 && pins[0] == 2 && pins[1] == 3);

  /* spans: the pinned ones fixed below the axis, the rest scrolled under them */
  st_view v = {.t0_ns = 0, .ns_per_px = 10, .width = 1220, .height = 150, .dpr = 1};
  st_layout_span sp[2];
  CHECK_EQ_INT(st_layout_spans(l, &v, sp), 2);
  CHECK(sp[0].first == 0 && sp[0].end == 2 && sp[0].dy == 28 && sp[0].clip_y0 == 28 &&
        sp[0].clip_y1 == 96);
  CHECK(sp[1].first == 2 && sp[1].end == 5 && sp[1].dy == 28 && sp[1].clip_y0 == 96 &&
        sp[1].clip_y1 == 150);
  v.scroll_y = 60; /* content [128, 182) of the scrolled ones shows */
  CHECK_EQ_INT(st_layout_spans(l, &v, sp), 2);
  CHECK(sp[0].first == 0 && sp[0].end == 2 && sp[0].dy == 28);
  CHECK(sp[1].first == 4 && sp[1].end == 8 && sp[1].dy == -32);
  CHECK(st_layout_screen_y(l, &v, 0) == 28 && st_layout_screen_y(l, &v, 1) == 52);
  CHECK(st_layout_screen_y(l, &v, 4) == 80);
  CHECK(st_layout_on_screen(l, &v, 4) && !st_layout_on_screen(l, &v, 3));
  CHECK(st_layout_content_y(l, &v, 33) == 5 && st_layout_content_y(l, &v, 100) == 132);

  /* hit testing on the pinned rows, scrolled */
  st_hit h = st_hit_test(t, l, &v, st_view_x_of(&v, 4050), 33, 3);
  CHECK_EQ_INT(h.kind, ST_HIT_EVENT);
  CHECK(h.item == 0 && h.track == 2 && h.index == 0);
  h = st_hit_test(t, l, &v, st_view_x_of(&v, 4050), 62, 3);
  CHECK(h.kind == ST_HIT_COUNTER && h.track == 3);
  h = st_hit_test(t, l, &v, st_view_x_of(&v, 1150), 100, 3); /* main's third row */
  CHECK(h.kind == ST_HIT_EVENT && h.item == 5);
  h = st_hit_test(t, l, &v, ST_VIEW_GUTTER_W - 5, 33, 3);
  CHECK(h.kind == ST_HIT_PIN && h.track == 2);
  h = st_hit_test(t, l, &v, 10, 33, 3);
  CHECK(h.kind == ST_HIT_GUTTER && h.track == 2);

  /* a pinned row is found in the pinned items, even with its section collapsed */
  uint32_t nccl_row = st_trace_tracks(t, NULL)[2].first_row;
  uint32_t main_row = st_trace_tracks(t, NULL)[1].first_row;
  CHECK_EQ_INT(st_layout_item_of_row(l, nccl_row), 0);
  CHECK_EQ_INT(st_layout_item_of_row(l, main_row), 3);
  st_layout_set_collapsed(l, 2, 1);
  CHECK_LAYOUT(t, l, "R30:2:0 C30:3:24 S30:-1:68 S40:-1:92 R40:4:116");
  CHECK_EQ_INT(st_layout_item_of_row(l, nccl_row), 0);
  CHECK_EQ_INT(st_layout_item_of_row(l, main_row), 2); /* its section's header */
  st_layout_set_collapsed(l, 2, 0);
  /* the filter leaves pins alone */
  CHECK(st_layout_set_filter(l, "loader", 6));
  CHECK_LAYOUT(t, l, "R30:2:0 C30:3:24 S40:-1:68 R40:4:92");

  /* unpinned: back in its place */
  CHECK(st_layout_set_filter(l, "", 0));
  CHECK(st_layout_set_pinned(l, 2, 0) && st_layout_set_pinned(l, 3, 0));
  CHECK_LAYOUT(t, l, DEFAULT_LAYOUT);
  CHECK_EQ_INT(st_layout_pinned_items(l), 0);
  CHECK_EQ_INT(st_layout_spans(l, &v, sp), 1);
  CHECK(sp[0].clip_y0 == 28 && sp[0].dy == -32);
  st_layout_destroy(l);
  st_trace_destroy(t);
}

static void test_track_ids(void) {
  st_trace *t = kineto_like();
  char id[48];
  CHECK(st_track_id(t, 2, id, sizeof id) == 6);
  CHECK_EQ_STR(id, "0.30.1"); /* file 0, pid 30, its second track */
  CHECK(st_track_id(t, 4, id, sizeof id) && !strcmp(id, "0.40.0"));
  uint32_t nt;
  st_trace_tracks(t, &nt);
  for (uint32_t i = 0; i < nt; i++) {
    size_t n = st_track_id(t, i, id, sizeof id);
    CHECK(n > 0 && st_track_by_id(t, id, n) == i);
  }
  const char *bad[] = {"",        "0.30",   "0.30.9",  "1.30.1", "0.31.0",
                       "0.30.1x", "x.30.1", "0.30.-1", "0..1",   "0.99999999999999999999.0"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    CHECK(st_track_by_id(t, bad[k], strlen(bad[k])) == UINT32_MAX);
  CHECK(st_track_id(t, nt, id, sizeof id) == 0 && id[0] == 0);
  st_trace_destroy(t);
}

/* The ui: a click on the pin target, key p over a track, the filter. */
static void test_ui(void) {
  st_trace *t = kineto_like();
  st_ui *ui = st_ui_create(NULL, t, 1220, 150, 1);
  const st_layout *l = st_ui_layout(ui);
  /* the loader's label: section 40 at content 156, its row at 180 -> canvas 208 */
  st_ui_scroll_px(ui, 1000); /* to the bottom: 204 - 122 = 82 */
  CHECK(st_ui_view(ui)->scroll_y == 82);
  float y = 28 + 180 - 82 + 10;
  unsigned ch = st_ui_pointer_move(ui, ST_VIEW_GUTTER_W - 5, y, 0, 0);
  CHECK(ch & ST_UI_REDRAW); /* its pin mark shows */
  st_draw_overlay ov;
  st_ui_overlay(ui, &ov);
  CHECK(ov.pin_hover && ov.pin_hover_track == 4);
  CHECK_EQ_STR(st_ui_cursor(ui), "pointer");
  st_ui_pointer_down(ui, ST_VIEW_GUTTER_W - 5, y, ST_BUTTON_LEFT, 0);
  ch = st_ui_pointer_up(ui, ST_VIEW_GUTTER_W - 5, y, 0, 0);
  CHECK(ch & ST_UI_TRACKS);
  CHECK(st_layout_pinned(l, 4));
  CHECK_LAYOUT(t, l, "R40:4:0 S30:-1:24 R30:1:48 R30:1:68 R30:1:88 R30:2:112 C30:3:136 S40:-1:180");
  /* the section of pid 40 is left with no track: its header stays */
  CHECK(st_ui_view(ui)->scroll_y == 82); /* the same height: the scroll stays */
  /* key p over main's rows pins it */
  st_ui_pointer_move(ui, 600, 28 + 5, 0, 0); /* the pinned loader row */
  ch = st_ui_key_down(ui, "p", 0);
  CHECK(ch & ST_UI_TRACKS);
  CHECK(!st_layout_pinned(l, 4)); /* p on a pinned track unpins it */
  st_ui_scroll_px(ui, -1000);
  st_ui_pointer_move(ui, 600, 28 + 24 + 5, 0, 0); /* main's first row */
  st_hit h = st_ui_hover(ui);
  CHECK(h.track == 1);
  st_ui_key_down(ui, "p", 0);
  CHECK(st_layout_pinned(l, 1));
  CHECK(st_ui_key_down(ui, "t", 0) & ST_UI_FOCUS_FILTER);
  ch = st_ui_set_track_filter(ui, "worker", 6);
  CHECK((ch & ST_UI_TRACKS) && (ch & ST_UI_LAYOUT));
  CHECK_LAYOUT(t, l, "R30:1:0 R30:1:20 R30:1:40 S30:-1:64 R30:2:88");
  CHECK(st_ui_view(ui)->scroll_y == 0); /* clamped into the shorter layout */
  CHECK_EQ_INT(st_ui_set_track_filter(ui, "worker", 6), ST_UI_HANDLED); /* no change */
  /* a second view of the trace follows */
  st_ui *b = st_ui_create(NULL, t, 600, 150, 1);
  st_ui_copy_tracks(b, ui);
  CHECK_LAYOUT(t, st_ui_layout(b), "R30:1:0 R30:1:20 R30:1:40 S30:-1:64 R30:2:88");
  st_ui_set_pinned(ui, 1, 0);
  st_ui_follow(b, ui, ST_UI_TRACKS);
  CHECK_LAYOUT(t, st_ui_layout(b), "S30:-1:0 R30:2:24");
  st_ui_destroy(b);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

/* The frame: a pinned row is drawn below the axis however far the rest is
 * scrolled, and nothing scrolled is drawn over it. */
static void test_draw_pinned(void) {
  st_trace *t = kineto_like();
  st_layout *l = st_layout_create(NULL, t);
  st_lod *lod = st_lod_build(NULL, t, NULL);
  st_layout_set_pinned(l, 2, 1); /* nccl worker: one slice at [4000, 4100) from the start */
  st_view v = {.t0_ns = -1000, .ns_per_px = 10, .width = 1220, .height = 150, .dpr = 1};
  st_drawlist dl = {0};
  for (int k = 0; k < 2; k++) {
    v.scroll_y = k ? 82 : 0;
    st_draw_input in = {t, lod, l, &v, NULL};
    CHECK_EQ_INT(st_draw_frame(&dl, &in, NULL), ST_OK);
    float x = st_view_x_of(&v, 4000);
    int found = 0, under = 0;
    for (uint32_t i = 0; i < dl.rect_count; i++) {
      const st_rect *r = &dl.rects[i];
      if (fabsf(r->x - x) < 1.5f && r->y >= 28 && r->y < 48) found = 1;
      /* main's third row (its slice at [1100, 1200)), scrolled to screen y 34:
       * under the pinned area, so clipped to below it */
      if (fabsf(r->x - st_view_x_of(&v, 1100)) < 1.5f && r->y < 28 + 24) under = 1;
    }
    CHECK(found);
    CHECK(!under);
  }
  /* a band (an idle gap) on that scrolled row is clipped below the pinned
   * area too, never drawn over the pinned row */
  uint32_t nr, band_row = UINT32_MAX;
  const st_row *rows = st_trace_rows(t, &nr);
  for (uint32_t r = 0; r < nr; r++)
    if (rows[r].count && rows[r].start[0] == 1100) band_row = r;
  CHECK(band_row != UINT32_MAX);
  int64_t b0 = 1100, b1 = 1200;
  st_draw_band_set band = {
      .rows = &band_row, .row_count = 1, .t0_ns = &b0, .t1_ns = &b1, .count = 1};
  st_draw_overlay ov = {.bands = &band, .band_sets = 1};
  v.scroll_y = 82;
  st_draw_input in = {t, lod, l, &v, NULL};
  CHECK_EQ_INT(st_draw_frame_overlay(&dl, &in, &ov, NULL), ST_OK);
  CHECK_EQ_INT(dl.bands_drawn, 1);
  int under = 0; /* as above: nothing at x of 1100 us in the pinned area */
  for (uint32_t i = 0; i < dl.rect_count; i++)
    if (fabsf(dl.rects[i].x - st_view_x_of(&v, 1100)) < 1.5f && dl.rects[i].y < 28 + 24) under = 1;
  CHECK(!under);
  st_drawlist_free(&dl, NULL);
  st_lod_destroy(lod);
  st_layout_destroy(l);
  st_trace_destroy(t);
}

int main(void) {
  RUN(test_empty_sections);
  RUN(test_filter);
  RUN(test_pins);
  RUN(test_track_ids);
  RUN(test_ui);
  RUN(test_draw_pinned);
  return check_report();
}
