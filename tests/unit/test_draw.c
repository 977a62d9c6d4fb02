/* test_draw.c: the draw list, with a fixed-width fake font: every rect,
 * glyph and axis-aligned line lies inside the canvas and its command's clip;
 * command ranges are valid; labels stay inside their slice and are elided
 * with U+2026; invalid UTF-8 shows U+FFFD; collapse hides rows; tick steps
 * and time formatting; stable colours; per-frame size bounded. */
#include "check.h"
#include "draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- fake font: 7 px advance, ink [0.5, 6.5] x [-9, 2]; u0 = code point --- */
typedef struct fake_font {
  uint32_t asked_fffd, asked_ellipsis;
} fake_font;

static int fake_glyph(void *ud, uint32_t cp, st_glyph *g) {
  fake_font *f = ud;
  if (cp == 0xFFFD) f->asked_fffd++;
  if (cp == 0x2026) f->asked_ellipsis++;
  if (cp == 0x1F600) return 0; /* "cannot be shown" */
  *g = (st_glyph){7, 0.5f, -9, 6.5f, 2, (float)cp, 0, (float)cp, 1};
  if (cp == ' ') g->x1 = g->x0; /* blank */
  return 1;
}

static fake_font g_ff;
static st_font g_font = {12, 10, 3, fake_glyph, &g_ff};

static uint32_t S(st_builder *b, const char *s) {
  return st_strtab_intern(st_builder_strings(b), s, strlen(s));
}

static st_trace *test_trace(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p1 = st_builder_process(b, 701), p2 = st_builder_process(b, 1);
  st_builder_process_name(b, p1, S(b, "/host:CPU"));
  st_builder_process_name(b, p2, S(b, "/device:GPU:0"));
  uint32_t th = st_builder_track(b, p1, ST_TRACK_SLICES, 7, S(b, "python3"));
  uint32_t th2 = st_builder_track(b, p1, ST_TRACK_SLICES, 8, 0); /* unnamed: "tid 8" */
  uint32_t in = st_builder_track(b, p1, ST_TRACK_INSTANTS, 0, S(b, "marks"));
  uint32_t ops = st_builder_track(b, p2, ST_TRACK_SLICES, 3, S(b, "XLA Ops"));
  uint32_t ctr = st_builder_track(b, p2, ST_TRACK_COUNTER, 0, S(b, "Memory usage (GB)"));
  st_builder_slice(b, th, 0, 1000000, S(b, "train_step 1 with a rather long name indeed"), 0, 0, 0);
  st_builder_slice(b, th, 1000, 500000, S(b, "PjitFunction(train_step)"), 0, 0, 0);
  st_builder_slice(b, th, 600000, 300000, S(b, "bad \xff\xfe utf8 \xe2\x82"), 0, 0, 0);
  st_builder_slice(b, th, 950000, 0, S(b, "open"), 0, 0, ST_EV_UNFINISHED);
  st_builder_slice(b, th2, 200, 700000, S(b, "emoji \xF0\x9F\x98\x80 caf\xC3\xA9"), 0, 0, 0);
  for (int i = 0; i < 50; i++)
    st_builder_slice(b, in, i * 20000, 0, S(b, "tick"), 0, 0, ST_EV_INSTANT);
  char nm[32];
  for (int i = 0; i < 20000; i++) {
    snprintf(nm, sizeof nm, "fusion.%d", i % 37);
    st_builder_slice(b, ops, 2000 + i * 50, 20 + i % 25, S(b, nm), 0, 0, 0);
  }
  for (int i = 0; i < 5000; i++) st_builder_counter(b, ctr, i * 200, 8 + sin(i / 100.0) * 3);
  return st_builder_finish(b, NULL);
}

static int inside(float x, float y, float w, float h, float cx, float cy, float cw, float ch) {
  const float e = 1e-3f;
  return x >= cx - e && y >= cy - e && x + w <= cx + cw + e && y + h <= cy + ch + e && w >= 0 &&
         h >= 0;
}

/* Structural checks of a frame; returns 1 if all pass. */
static void check_frame(const st_drawlist *dl, const st_view *v) {
  uint32_t seen_r = 0, seen_g = 0, seen_l = 0;
  for (uint32_t c = 0; c < dl->cmd_count; c++) {
    const st_draw_cmd *cmd = &dl->cmds[c];
    CHECK(inside(cmd->clip_x, cmd->clip_y, cmd->clip_w, cmd->clip_h, 0, 0, v->width, v->height));
    uint32_t limit = cmd->kind == ST_DRAW_RECTS    ? dl->rect_count
                     : cmd->kind == ST_DRAW_GLYPHS ? dl->glyph_count
                                                   : dl->line_count;
    CHECK(cmd->first <= limit && cmd->count <= limit - cmd->first);
    if (!(cmd->first <= limit && cmd->count <= limit - cmd->first)) continue;
    for (uint32_t i = cmd->first; i < cmd->first + cmd->count; i++) {
      if (cmd->kind == ST_DRAW_RECTS) {
        const st_rect *r = &dl->rects[i];
        CHECK(inside(r->x, r->y, r->w, r->h, cmd->clip_x, cmd->clip_y, cmd->clip_w, cmd->clip_h));
        CHECK(r->w > 0 && r->h > 0);
        seen_r++;
      } else if (cmd->kind == ST_DRAW_GLYPHS) {
        const st_glyph_quad *q = &dl->glyphs[i];
        CHECK(inside(q->x, q->y, q->w, q->h, cmd->clip_x, cmd->clip_y, cmd->clip_w, cmd->clip_h));
        seen_g++;
      } else {
        const st_line *l = &dl->lines[i];
        float x0 = fminf(l->x0, l->x1), x1 = fmaxf(l->x0, l->x1);
        float y0 = fminf(l->y0, l->y1), y1 = fmaxf(l->y0, l->y1);
        float hw = l->width / 2;
        if (l->y0 == l->y1)
          CHECK(inside(x0, y0 - hw, x1 - x0, l->width, cmd->clip_x, cmd->clip_y, cmd->clip_w,
                       cmd->clip_h));
        else if (l->x0 == l->x1)
          CHECK(inside(x0 - hw, y0, l->width, y1 - y0, cmd->clip_x, cmd->clip_y, cmd->clip_w,
                       cmd->clip_h));
        else
          CHECK(inside(x0 - hw, y0 - hw, x1 - x0 + l->width, y1 - y0 + l->width, cmd->clip_x,
                       cmd->clip_y, cmd->clip_w, cmd->clip_h));
        seen_l++;
      }
    }
  }
  /* commands cover everything emitted, nothing twice */
  CHECK_EQ_INT(seen_r, dl->rect_count);
  CHECK_EQ_INT(seen_g, dl->glyph_count);
  CHECK_EQ_INT(seen_l, dl->line_count);
}

static void test_frames_in_bounds(void) {
  st_trace *t = test_trace();
  st_lod *lod = st_lod_build(NULL, t, NULL);
  st_layout *lay = st_layout_create(NULL, t);
  st_view v;
  st_drawlist dl = {0};
  const float sizes[][2] = {{1280, 800}, {1920, 1080}, {300, 200}, {230, 40}, {100, 30}, {1, 1}};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    st_view_fit(&v, t, sizes[s][0], sizes[s][1], 2);
    st_draw_input in = {t, lod, lay, &v, &g_font};
    for (int step = 0; step < 14; step++) {
      CHECK_EQ_INT(st_draw_frame(&dl, &in, NULL), ST_OK);
      check_frame(&dl, &v);
      if (s == 0 && step == 0) {
        CHECK(dl.rect_count > 10);
        CHECK(dl.glyph_count > 10);
        CHECK(dl.cmd_count >= 6);
      }
      st_view_zoom(&v, 3.0, v.width * 0.6f);
      st_view_pan_px(&v, step % 2 ? 37.0f : -11.0f);
      v.scroll_y = (float)(step * 7 % 60);
    }
  }
  /* no lod/layout/font: backgrounds only, still valid */
  st_view_fit(&v, t, 800, 600, 1);
  st_draw_input bare = {t, NULL, NULL, &v, NULL};
  CHECK_EQ_INT(st_draw_frame(&dl, &bare, NULL), ST_OK);
  check_frame(&dl, &v);
  CHECK_EQ_INT(dl.glyph_count, 0);
  CHECK_EQ_INT(st_draw_frame(&dl, NULL, NULL), ST_ERR_ARG);
  st_drawlist_free(&dl, NULL);
  CHECK(dl.rects == NULL && dl.rect_cap == 0);
  st_layout_destroy(lay);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

/* Every slice label glyph lies inside a slice rect of the same row. */
/* One frame of t at 1280x800 CSS px, dpr 1, the whole trace in view (lod and
 * layout made and freed here; dl keeps the frame). */
static st_code draw_fit(const st_trace *t, const st_font *font, st_drawlist *dl) {
  st_lod *lod = st_lod_build(NULL, t, NULL);
  st_layout *lay = st_layout_create(NULL, t);
  st_view v;
  st_view_fit(&v, t, 1280, 800, 1);
  st_draw_input in = {.trace = t, .lod = lod, .layout = lay, .view = &v, .font = font};
  st_code c = lod && lay ? st_draw_frame(dl, &in, NULL) : ST_ERR_NOMEM;
  st_layout_destroy(lay);
  st_lod_destroy(lod);
  return c;
}

/* Real glyphs (atlas padding, italic bearings) reach left of the pen: the
 * first character of a label must still be drawn, inside its box. */
static int bearing_glyph(void *ud, uint32_t cp, st_glyph *g) {
  (void)ud;
  *g = (st_glyph){7, -1.0f, -9, 6.0f, 2, (float)cp, 0, (float)cp, 1};
  return 1;
}

static void test_first_glyph_with_left_bearing(void) {
  st_font font = {12, 10, 3, bearing_glyph, NULL};
  st_trace *t = test_trace();
  st_drawlist dl = {0};
  CHECK_EQ_INT(draw_fit(t, &font, &dl), ST_OK);
  int found = 0; /* "python3" in the gutter, starting with its 'p' */
  for (uint32_t c = 0; c < dl.cmd_count; c++) {
    const st_draw_cmd *gc = &dl.cmds[c];
    if (gc->kind != ST_DRAW_GLYPHS || gc->clip_x != 0) continue;
    for (uint32_t i = gc->first; i + 6 < gc->first + gc->count; i++) {
      if (dl.glyphs[i].u0 != 'p' || dl.glyphs[i + 1].u0 != 'y' || dl.glyphs[i + 6].u0 != '3')
        continue;
      found = 1;
      CHECK(dl.glyphs[i].x >= gc->clip_x);
    }
  }
  CHECK(found);
  st_drawlist_free(&dl, NULL);
  st_trace_destroy(t);
}

/* The gutter's glyphs (clip at x 0) as text; blank glyphs (spaces) are not
 * drawn, so "(pid 701)" reads "(pid701)". */
static void gutter_text(const st_drawlist *dl, char *out, size_t cap) {
  size_t n = 0;
  for (uint32_t c = 0; c < dl->cmd_count; c++) {
    const st_draw_cmd *gc = &dl->cmds[c];
    if (gc->kind != ST_DRAW_GLYPHS || gc->clip_x != 0) continue;
    for (uint32_t i = gc->first; i < gc->first + gc->count && n + 1 < cap; i++)
      out[n++] = dl->glyphs[i].u0 < 128 ? (char)dl->glyphs[i].u0 : '~';
  }
  out[n] = 0;
}

static void test_section_labels_hide_synthetic_pids(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t g = st_builder_process(b, -5), h = st_builder_process(b, 701);
  st_builder_process_name(b, g, S(b, "Global"));
  st_builder_process_name(b, h, S(b, "host"));
  uint32_t tg = st_builder_track(b, g, ST_TRACK_INSTANTS, -1, S(b, "instants"));
  uint32_t th = st_builder_track(b, h, ST_TRACK_SLICES, 1, S(b, "main"));
  st_builder_slice(b, tg, 0, 0, S(b, "i"), 0, 0, ST_EV_INSTANT);
  st_builder_slice(b, th, 0, 1000, S(b, "x"), 0, 10, 0);
  st_trace *t = st_builder_finish(b, NULL);
  st_drawlist dl = {0};
  CHECK_EQ_INT(draw_fit(t, &g_font, &dl), ST_OK);
  char text[512];
  gutter_text(&dl, text, sizeof text);
  CHECK(strstr(text, "Global") != NULL);
  CHECK(strstr(text, "pid-5") == NULL);
  CHECK(strstr(text, "host(pid701)") != NULL);
  st_drawlist_free(&dl, NULL);
  st_trace_destroy(t);
}

/* x of the first gutter glyph whose code point is cp */
static float gutter_x_of(const st_drawlist *dl, uint32_t cp) {
  for (uint32_t c = 0; c < dl->cmd_count; c++) {
    const st_draw_cmd *gc = &dl->cmds[c];
    if (gc->kind != ST_DRAW_GLYPHS || gc->clip_x != 0) continue;
    for (uint32_t i = gc->first; i < gc->first + gc->count; i++)
      if (dl->glyphs[i].u0 == (float)cp) return dl->glyphs[i].x;
  }
  return -1;
}

static void test_nested_track_labels_indent(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t t0 = st_builder_track(b, p, ST_TRACK_SLICES, 1, S(b, "A"));
  uint32_t t1 = st_builder_track(b, p, ST_TRACK_SLICES, 2, S(b, "B"));
  uint32_t t2 = st_builder_track(b, p, ST_TRACK_SLICES, 3, S(b, "C"));
  st_builder_track_indent(b, t1, 1);
  st_builder_track_indent(b, t2, 2);
  for (uint32_t t = t0; t <= t2; t++) st_builder_slice(b, t, 0, 1000, S(b, "x"), 0, t, 0);
  st_trace *tr = st_builder_finish(b, NULL);
  uint32_t nt;
  const st_track *tracks = st_trace_tracks(tr, &nt);
  CHECK_EQ_INT(nt, 3);
  CHECK_EQ_INT(tracks[1].indent, 1);
  CHECK_EQ_INT(tracks[2].indent, 2);
  st_drawlist dl = {0};
  CHECK_EQ_INT(draw_fit(tr, &g_font, &dl), ST_OK);
  float xa = gutter_x_of(&dl, 'A'), xb = gutter_x_of(&dl, 'B'), xc = gutter_x_of(&dl, 'C');
  CHECK(xa >= 0 && xb > xa && xc > xb);
  CHECK(xc - xb == xb - xa);
  st_drawlist_free(&dl, NULL);
  st_trace_destroy(tr);
}

/* Lead bytes 0xF5..0xFF start no UTF-8 sequence: "\xF5\x80\x80" is three
 * invalid bytes (three U+FFFD), never U+5000. */
static void test_invalid_lead_bytes_show_fffd(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, S(b, "T"));
  st_builder_slice(b, th, 0, 1000, S(b, "a\xF5\x80\x80z"), 0, 0, 0);
  st_trace *t = st_builder_finish(b, NULL);
  st_drawlist dl = {0};
  CHECK_EQ_INT(draw_fit(t, &g_font, &dl), ST_OK);
  int fffd = 0, bogus = 0, z = 0;
  for (uint32_t i = 0; i < dl.glyph_count; i++) {
    fffd += dl.glyphs[i].u0 == 0xFFFD;
    bogus += dl.glyphs[i].u0 == 0x5000;
    z += dl.glyphs[i].u0 == 'z';
  }
  CHECK_EQ_INT(fffd, 3);
  CHECK_EQ_INT(bogus, 0);
  CHECK(z >= 1);
  st_drawlist_free(&dl, NULL);
  st_trace_destroy(t);
}

static void test_labels_inside_slices(void) {
  st_trace *t = test_trace();
  st_lod *lod = st_lod_build(NULL, t, NULL);
  st_layout *lay = st_layout_create(NULL, t);
  st_view v;
  st_drawlist dl = {0};
  st_view_fit(&v, t, 1280, 800, 1);
  st_draw_input in = {t, lod, lay, &v, &g_font};
  int ellipsis_seen = 0;
  for (int z = 0; z < 18; z++) {
    g_ff.asked_ellipsis = 0;
    CHECK_EQ_INT(st_draw_frame(&dl, &in, NULL), ST_OK);
    /* the timeline's glyph command is the first glyph command whose clip starts at the gutter */
    for (uint32_t c = 0; c < dl.cmd_count; c++) {
      const st_draw_cmd *gc = &dl.cmds[c];
      if (gc->kind != ST_DRAW_GLYPHS || gc->clip_x != ST_VIEW_GUTTER_W || gc->clip_y == 0) continue;
      const st_draw_cmd *rc = NULL;
      for (uint32_t k = 0; k < c; k++)
        if (dl.cmds[k].kind == ST_DRAW_RECTS && dl.cmds[k].clip_x == gc->clip_x &&
            dl.cmds[k].clip_y == gc->clip_y)
          rc = &dl.cmds[k];
      CHECK(rc != NULL);
      if (!rc) break;
      for (uint32_t i = gc->first; i < gc->first + gc->count; i++) {
        const st_glyph_quad *q = &dl.glyphs[i];
        if (q->u0 == 0x2026) ellipsis_seen = 1;
        int ok = 0;
        for (uint32_t r = rc->first; r < rc->first + rc->count && !ok; r++) {
          const st_rect *R = &dl.rects[r];
          if (R->h > ST_VIEW_ROW_H) continue; /* counter fills are not slices */
          ok = q->x >= R->x && q->x + q->w <= R->x + R->w && q->y >= R->y - 2 &&
               q->y + q->h <= R->y + R->h + 2;
        }
        /* counter scale labels sit in counter tracks, not in slices */
        if (!ok) {
          uint32_t n;
          const st_layout_item *it = st_layout_items(lay, &n);
          for (uint32_t k = 0; k < n; k++)
            if (it[k].kind == ST_LAYOUT_COUNTER) {
              float sy = ST_VIEW_AXIS_H + it[k].y - v.scroll_y;
              if (q->y >= sy && q->y + q->h <= sy + it[k].h) ok = 1;
            }
        }
        CHECK(ok);
      }
      break;
    }
    st_view_zoom(&v, 1.7, 700);
  }
  CHECK(ellipsis_seen);
  st_drawlist_free(&dl, NULL);
  st_layout_destroy(lay);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

/* One slice, widths from 0 to 400 px: its label never leaves it, is elided
 * with exactly one U+2026 when cut, and is the full name when it fits. */
static void test_elision(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  st_builder_slice(b, th, 0, 1000, S(b, "abcdefghij"), 0, 0, 0); /* 10 chars = 70 px */
  st_builder_slice(b, th, 1000000, 1, S(b, "end"), 0, 0, 0);
  st_trace *t = st_builder_finish(b, NULL);
  st_lod *lod = st_lod_build(NULL, t, NULL);
  st_layout *lay = st_layout_create(NULL, t);
  st_drawlist dl = {0};
  for (int w = 1; w <= 400; w += 3) {
    st_view v = {.t0_ns = 0, .ns_per_px = 1000.0 / w, .width = 1200, .height = 200, .dpr = 1};
    st_draw_input in = {t, lod, lay, &v, &g_font};
    CHECK_EQ_INT(st_draw_frame(&dl, &in, NULL), ST_OK);
    check_frame(&dl, &v);
    float x0 = ST_VIEW_GUTTER_W, x1 = ST_VIEW_GUTTER_W + (float)w;
    int n = 0, ell = 0;
    char text[64] = {0};
    for (uint32_t c = 0; c < dl.cmd_count; c++) {
      const st_draw_cmd *gc = &dl.cmds[c];
      if (gc->kind != ST_DRAW_GLYPHS || gc->clip_x != ST_VIEW_GUTTER_W || gc->clip_y == 0) continue;
      for (uint32_t i = gc->first; i < gc->first + gc->count; i++) {
        const st_glyph_quad *q = &dl.glyphs[i];
        CHECK(q->x >= x0 && q->x + q->w <= x1);
        if (q->u0 == 0x2026)
          ell++;
        else if (n < 63)
          text[n++] = (char)q->u0;
      }
    }
    if (w >= 70 + 8 + 1) CHECK_EQ_STR(text, "abcdefghij"); /* 1: the slice's end boundary */
    if (n > 0 && n < 10) CHECK_EQ_INT(ell, 1);
    if (w < 14) CHECK_EQ_INT(n, 0);
    if (w >= 30 && w < 78) CHECK(n >= 1 && ell == 1);
  }
  st_drawlist_free(&dl, NULL);
  st_layout_destroy(lay);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

static void test_utf8_fallback(void) {
  st_trace *t = test_trace();
  st_lod *lod = st_lod_build(NULL, t, NULL);
  st_layout *lay = st_layout_create(NULL, t);
  st_view v;
  st_view_fit(&v, t, 3000, 800, 1);
  st_drawlist dl = {0};
  st_draw_input in = {t, lod, lay, &v, &g_font};
  g_ff.asked_fffd = 0;
  CHECK_EQ_INT(st_draw_frame(&dl, &in, NULL), ST_OK);
  CHECK(g_ff.asked_fffd >= 4); /* \xff, \xfe, truncated \xe2\x82 (2 bytes), emoji fallback */
  int has_fffd = 0, has_e_acute = 0, has_tid = 0;
  for (uint32_t i = 0; i < dl.glyph_count; i++) {
    if (dl.glyphs[i].u0 == 0xFFFD) has_fffd = 1;
    if (dl.glyphs[i].u0 == 0xE9) has_e_acute = 1;
  }
  /* "tid 8" in the gutter: look for the sequence t,i,d */
  for (uint32_t i = 0; i + 2 < dl.glyph_count; i++)
    if (dl.glyphs[i].u0 == 't' && dl.glyphs[i + 1].u0 == 'i' && dl.glyphs[i + 2].u0 == 'd')
      has_tid = 1;
  CHECK(has_fffd);
  CHECK(has_e_acute);
  CHECK(has_tid);
  st_drawlist_free(&dl, NULL);
  st_layout_destroy(lay);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

static void test_collapse_hides_rows(void) {
  st_trace *t = test_trace();
  st_lod *lod = st_lod_build(NULL, t, NULL);
  st_layout *lay = st_layout_create(NULL, t);
  st_view v;
  st_view_fit(&v, t, 1280, 800, 1);
  st_drawlist dl = {0};
  st_draw_input in = {t, lod, lay, &v, &g_font};
  st_draw_frame(&dl, &in, NULL);
  uint32_t rects_open = dl.rect_count, expanded_marker = 0, collapsed_marker = 0;
  for (uint32_t i = 0; i < dl.glyph_count; i++) expanded_marker += dl.glyphs[i].u0 == 0x25BE;
  CHECK_EQ_INT(expanded_marker, 2);
  st_layout_set_collapsed(lay, 0, 1);
  st_layout_set_collapsed(lay, 1, 1);
  st_draw_frame(&dl, &in, NULL);
  check_frame(&dl, &v);
  for (uint32_t i = 0; i < dl.glyph_count; i++) collapsed_marker += dl.glyphs[i].u0 == 0x25B8;
  CHECK_EQ_INT(collapsed_marker, 2);
  CHECK(dl.rect_count < rects_open / 4);
  /* only backgrounds, two headers (gutter + timeline parts) and separators */
  CHECK(dl.rect_count <= 10);
  st_drawlist_free(&dl, NULL);
  st_layout_destroy(lay);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

static void test_bounded(void) {
  /* 200k tiny events in one row: the full view yields about a rect per column */
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  for (int i = 0; i < 200000; i++) st_builder_slice(b, th, i * 10, 3, (uint32_t)(i % 3), 0, 0, 0);
  st_trace *t = st_builder_finish(b, NULL);
  st_lod *lod = st_lod_build(NULL, t, NULL);
  st_layout *lay = st_layout_create(NULL, t);
  st_view v;
  st_view_fit(&v, t, 1920, 1080, 1);
  st_drawlist dl = {0};
  st_draw_input in = {t, lod, lay, &v, &g_font};
  CHECK_EQ_INT(st_draw_frame(&dl, &in, NULL), ST_OK);
  CHECK(dl.rect_count < 1920 + 50);
  CHECK(dl.rect_count > 1500);
  uint32_t merged = 0, sparse = 0;
  for (uint32_t i = 0; i < dl.rect_count; i++)
    if (dl.rects[i].flags & ST_RECT_MERGED) {
      merged++;
      sparse += ((dl.rects[i].flags >> 8) & 255) <= 50; /* 30% busy: density ~77 */
    }
  CHECK(merged > 1500);
  CHECK(sparse <= 2); /* only the partly filled columns at the ends */
  st_drawlist_free(&dl, NULL);
  st_layout_destroy(lay);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

static void test_ticks_and_format(void) {
  CHECK(st_axis_tick_step(1000, 90) == 100000);
  CHECK(st_axis_tick_step(1, 90) == 100);
  CHECK(st_axis_tick_step(3, 90) == 500);
  CHECK(st_axis_tick_step(1.1, 90) == 100);
  CHECK(st_axis_tick_step(1.2, 90) == 200);
  CHECK(st_axis_tick_step(0, 90) > 0);
  for (double s = 1e-3; s < 1e15; s *= 3.7) {
    double st = st_axis_tick_step(s, 80);
    CHECK(st >= s * 80 * (1 - 1e-9));
    CHECK(st < s * 80 * 2.5 + 1e-9);
    double m = st / pow(10, floor(log10(st) + 1e-9));
    CHECK(fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6);
  }
  char buf[64];
  st_format_time(0, 100, buf, sizeof buf);
  CHECK_EQ_STR(buf, "0");
  st_format_time(250, 50, buf, sizeof buf);
  CHECK_EQ_STR(buf, "250 ns");
  st_format_time(1500, 500, buf, sizeof buf);
  CHECK_EQ_STR(buf, "1.5 us");
  st_format_time(12e6, 1e6, buf, sizeof buf);
  CHECK_EQ_STR(buf, "12 ms");
  st_format_time(3.25e9, 0.05e9, buf, sizeof buf);
  CHECK_EQ_STR(buf, "3.25 s");
  st_format_time(3.2e9, 0.05e9, buf, sizeof buf);
  CHECK_EQ_STR(buf, "3.2 s");
  st_format_time(-1500, 500, buf, sizeof buf);
  CHECK_EQ_STR(buf, "-1.5 us");
  st_format_time(2.9999999999e6, 1e5, buf, sizeof buf);
  CHECK_EQ_STR(buf, "3 ms");
  st_format_time(3000000100.0, 100, buf, sizeof buf);
  CHECK_EQ_STR(buf, "3.0000001 s");
  CHECK_EQ_INT(st_format_time(1500, 500, buf, 4), 3); /* truncated, NUL-terminated */
  CHECK_EQ_STR(buf, "1.5");
}

static void test_colours(void) {
  uint32_t a = st_color_for_name("fusion.1", 8), b = st_color_for_name("fusion.1", 8);
  CHECK(a == b);
  CHECK((a >> 24) == 255);
  /* fixed across sessions and builds: pin the value */
  CHECK(a == 0xFF8BD591u);
  CHECK(a == st_color_for_name("fusion.12", 8));
  int distinct = 0;
  char nm[16];
  uint32_t prev = 0;
  for (int i = 0; i < 50; i++) {
    snprintf(nm, sizeof nm, "op.%d", i);
    uint32_t c = st_color_for_name(nm, strlen(nm));
    distinct += c != prev;
    prev = c;
    /* pleasant: neither too dark nor washed out */
    int r = c & 255, g = c >> 8 & 255, bl = c >> 16 & 255;
    int mx = r > g ? (r > bl ? r : bl) : (g > bl ? g : bl);
    int mn = r < g ? (r < bl ? r : bl) : (g < bl ? g : bl);
    CHECK(mx > 120 && mn < 235 && mx - mn > 20);
  }
  CHECK(distinct >= 45);
  CHECK(st_color_for_name("", 0) == st_color_for_name(NULL, 0));
}

/* Two frames joined into one list (side-by-side panes): the second's
 * primitives moved right by dx, its commands pointing at them. */
static void test_append(void) {
  st_trace *t = test_trace();
  st_drawlist a = {0}, b = {0};
  CHECK_EQ_INT(draw_fit(t, &g_font, &a), ST_OK);
  CHECK_EQ_INT(draw_fit(t, &g_font, &b), ST_OK);
  uint32_t nr = a.rect_count, ng = a.glyph_count, nl = a.line_count, nc = a.cmd_count;
  CHECK(nr > 0 && ng > 0 && nl > 0 && nc > 0);
  st_rect r0 = b.rects[0];
  CHECK_EQ_INT(st_drawlist_append(&a, &b, 640, NULL), ST_OK);
  CHECK_EQ_INT(a.rect_count, 2 * nr);
  CHECK_EQ_INT(a.glyph_count, 2 * ng);
  CHECK_EQ_INT(a.line_count, 2 * nl);
  CHECK_EQ_INT(a.cmd_count, 2 * nc);
  CHECK(a.rects[nr].x == r0.x + 640 && a.rects[nr].y == r0.y && a.rects[nr].w == r0.w);
  CHECK(a.glyphs[ng].x == b.glyphs[0].x + 640 && a.glyphs[ng].u0 == b.glyphs[0].u0);
  CHECK(a.lines[nl].x0 == b.lines[0].x0 + 640 && a.lines[nl].x1 == b.lines[0].x1 + 640);
  for (uint32_t i = 0; i < nc; i++) { /* each command: the same primitives, moved */
    const st_draw_cmd *c = &a.cmds[nc + i], *o = &b.cmds[i];
    uint32_t base = c->kind == ST_DRAW_RECTS ? nr : c->kind == ST_DRAW_GLYPHS ? ng : nl;
    CHECK(c->kind == o->kind && c->count == o->count && c->first == o->first + base);
    CHECK(c->clip_x == o->clip_x + 640 && c->clip_w == o->clip_w && c->clip_y == o->clip_y);
  }
  /* the first half is untouched; appending again reuses the buffers */
  CHECK(a.rects[0].x == r0.x);
  a.rect_count = nr, a.glyph_count = ng, a.line_count = nl, a.cmd_count = nc;
  st_rect *keep = a.rects;
  CHECK_EQ_INT(st_drawlist_append(&a, &b, 640, NULL), ST_OK);
  CHECK(a.rects == keep && a.rect_count == 2 * nr);
  st_drawlist empty = {0};
  CHECK_EQ_INT(st_drawlist_append(&a, &empty, 5, NULL), ST_OK);
  CHECK_EQ_INT(a.rect_count, 2 * nr);
  CHECK_EQ_INT(st_drawlist_append(NULL, &b, 0, NULL), ST_ERR_ARG);
  st_drawlist_free(&a, NULL);
  st_drawlist_free(&b, NULL);
  st_trace_destroy(t);
}

/* The page's glyphs reach right of their advance (the atlas cell's
 * padding): the last one must not be left out at the label's edge without
 * an ellipsis ("ProfilerStep#100" drawn as "ProfilerStep#10"). Every label
 * (st_drawlist.label_log) is the whole name or a cut of it with U+2026,
 * middle-cut for a templated name (its end kept). */
static int overhang_glyph(void *ud, uint32_t cp, st_glyph *g) {
  (void)ud;
  *g = (st_glyph){7, -0.5f, -9, 8.5f, 2, (float)cp, 0, (float)cp, 1};
  return 1;
}

/* 1 if drawn is given, or a prefix of it + U+2026 (+ a suffix of it). */
static int is_cut_of(const char *drawn, size_t dn, const char *given, size_t gn) {
  if (dn == gn && !memcmp(drawn, given, dn)) return 1;
  const char *e = NULL;
  for (size_t i = 0; i + 3 <= dn; i++)
    if (!memcmp(drawn + i, "\xE2\x80\xA6", 3)) e = drawn + i;
  if (!e) return 0;
  size_t pre = (size_t)(e - drawn), suf = dn - pre - 3;
  return pre >= 1 && pre + suf < gn && !memcmp(drawn, given, pre) &&
         !memcmp(e + 3, given + gn - suf, suf);
}

static void test_labels_whole_or_cut(void) {
  static const char *names[] = {
      "ProfilerStep#100", "ProfilerStep#103",
      "void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<float, 128, 64>>(Params)",
      "void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<half, 128, 64>>(Params)"};
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  for (int k = 0; k < 4; k++) st_builder_slice(b, th, k * 1000, 1000, S(b, names[k]), 0, 0, 0);
  st_trace *t = st_builder_finish(b, NULL);
  st_lod *lod = st_lod_build(NULL, t, NULL);
  st_layout *lay = st_layout_create(NULL, t);
  st_font font = {12, 10, 3, overhang_glyph, NULL};
  st_drawlist dl = {0};
  dl.label_log_on = 1;
  int whole_step = 0, middle = 0, labels = 0;
  for (int w = 10; w <= 700; w++) { /* each slice w px wide */
    st_view v = {.t0_ns = 0, .ns_per_px = 1000.0 / w, .width = 3200, .height = 200, .dpr = 1};
    st_draw_input in = {t, lod, lay, &v, &font};
    CHECK_EQ_INT(st_draw_frame(&dl, &in, NULL), ST_OK);
    check_frame(&dl, &v);
    const char *l = dl.label_log, *end = l + dl.label_log_len;
    while (l < end) {
      const char *us = memchr(l, 0x1f, (size_t)(end - l)),
                 *rs = us ? memchr(us, 0x1e, (size_t)(end - us)) : NULL;
      CHECK(us && rs);
      if (!us || !rs) break;
      if (*l == 's') {
        labels++;
        size_t dn = (size_t)(us - l - 1), gn = (size_t)(rs - us - 1);
        CHECK(is_cut_of(l + 1, dn, us + 1, gn));
        if (dn == gn && dn == 16) whole_step++;
        if (gn > 40 && dn >= 3 + 8 && !memcmp(l + 1 + dn - 8, "(Params)", 8)) middle++;
      }
      l = rs + 1;
    }
  }
  CHECK(labels > 1000);
  CHECK(whole_step > 0);
  CHECK(middle > 0);
  st_drawlist_free(&dl, NULL);
  st_layout_destroy(lay);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

/* Back-to-back slices of one name (one colour), each a few px wide or
 * more, keep a boundary: their rects do not touch. */
static void test_neighbours_keep_a_boundary(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t th = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  for (int k = 0; k < 70; k++)
    st_builder_slice(b, th, k * 784, 784, S(b, "PjitFunction(f)"), 0, 0, 0);
  st_trace *t = st_builder_finish(b, NULL);
  st_lod *lod = st_lod_build(NULL, t, NULL);
  st_layout *lay = st_layout_create(NULL, t);
  st_drawlist dl = {0};
  for (int px = 3; px <= 40; px++) {
    st_view v = {.t0_ns = 0, .ns_per_px = 784.0 / px, .width = 3600, .height = 200, .dpr = 1};
    st_draw_input in = {t, lod, lay, &v, &g_font};
    CHECK_EQ_INT(st_draw_frame(&dl, &in, NULL), ST_OK);
    uint32_t slices = 0, touching = 0;
    float prev_end = -1;
    for (uint32_t i = 0; i < dl.rect_count; i++) {
      const st_rect *r = &dl.rects[i];
      if (r->rgba != st_color_for_name("PjitFunction(f)", 15) || r->x < ST_VIEW_GUTTER_W) continue;
      slices++;
      if (prev_end >= 0 && r->x - prev_end < 0.99f) touching++;
      prev_end = r->x + r->w;
    }
    CHECK(slices >= 10);
    CHECK_EQ_INT(touching, 0);
  }
  st_drawlist_free(&dl, NULL);
  st_layout_destroy(lay);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

/* The counters' scale: three significant digits and an SI suffix. */
static void test_format_value(void) {
  static const struct {
    double v;
    const char *want;
  } cases[] = {{1803000, "1.80 M"}, {42500, "42.5 k"}, {950, "950"},      {999999, "1.00 M"},
               {-2.5e9, "-2.50 G"}, {0.5, "0.5"},      {123456, "123 k"}, {7e12, "7.00 T"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char buf[32];
    st_format_value(cases[i].v, buf, sizeof buf);
    CHECK_EQ_STR(buf, cases[i].want);
  }
}

/* A counter's value with its unit: a duration for ns, the unit after the SI
 * suffix otherwise, a space after a bare number, nothing for no unit, and a
 * unit cut to the buffer on a whole UTF-8 character. */
static void test_format_quantity(void) {
  static const struct {
    double v;
    const char *unit, *want;
  } cases[] = {{1803000, "B", "1.80 MB"},
               {950, "B", "950 B"},
               {1803000, "ns", "1.803 ms"},
               {42500, "W", "42.5 kW"},
               {1803000, "", "1.80 M"},
               {1803000, NULL, "1.80 M"},
               {512, "\xc2\xb5s", "512 \xc2\xb5s"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char buf[32];
    const char *u = cases[i].unit;
    st_format_quantity(cases[i].v, u, u ? strlen(u) : 0, buf, sizeof buf);
    CHECK_EQ_STR(buf, cases[i].want);
  }
  char small[7]; /* "512 " + 2 bytes: the 2-byte character does not fit whole */
  st_format_quantity(512, "x\xc2\xb5", 3, small, sizeof small);
  CHECK_EQ_STR(small, "512 x");
}

int main(void) {
  RUN(test_frames_in_bounds);
  RUN(test_labels_inside_slices);
  RUN(test_first_glyph_with_left_bearing);
  RUN(test_section_labels_hide_synthetic_pids);
  RUN(test_nested_track_labels_indent);
  RUN(test_invalid_lead_bytes_show_fffd);
  RUN(test_elision);
  RUN(test_labels_whole_or_cut);
  RUN(test_neighbours_keep_a_boundary);
  RUN(test_format_value);
  RUN(test_format_quantity);
  RUN(test_utf8_fallback);
  RUN(test_collapse_hides_rows);
  RUN(test_bounded);
  RUN(test_ticks_and_format);
  RUN(test_colours);
  RUN(test_append);
  return check_report();
}
