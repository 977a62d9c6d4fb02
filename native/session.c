/* session.c: the native window's trace, index, ui and frame (see session.h). */
#include "session.h"

#include <stdio.h>
#include <string.h>

#define BACKGROUND_RGBA 0xFFFBFAFAu /* as the page's (wasm/app.c, web/style.css) */

int nv_session_init(nv_session *s, st_trace *trace, float w, float h, float dpr, char *err,
                    size_t cap) {
  memset(s, 0, sizeof *s); /* alloc zeroed: realloc / free */
  s->trace = trace;
  s->css_w = w, s->css_h = h, s->dpr = dpr;
  st_error e;
  memset(&e, 0, sizeof e);
  s->lod = st_lod_build(&s->alloc, trace, &e);
  if (!s->lod) {
    snprintf(err, cap, "building the level-of-detail index: %s",
             e.msg[0] ? e.msg : "out of memory");
    return 0;
  }
  s->ui = st_ui_create(&s->alloc, trace, w, h, dpr);
  if (!s->ui) {
    snprintf(err, cap, "out of memory creating the view");
    nv_session_free(s);
    return 0;
  }
  st_ui_set_tool(s->ui, ST_TOOL_SELECT);
  s->dl.clear_rgba = BACKGROUND_RGBA;
  s->dirty = 1;
  return 1;
}

void nv_session_free(nv_session *s) {
  st_drawlist_free(&s->dl, &s->alloc);
  st_ui_destroy(s->ui);
  st_lod_destroy(s->lod);
  s->ui = NULL;
  s->lod = NULL;
}

/* alt+drag of a file's header in a merged trace: the file moves in time. */
static void shift_part(nv_session *s) {
  uint32_t part, n;
  double delta;
  if (!st_ui_take_shift(s->ui, &part, &delta)) return;
  const st_trace_part *parts = st_trace_parts(s->trace, &n);
  if (!parts || part >= n || n > 64) return;
  int64_t offs[64], deltas[64];
  for (uint32_t k = 0; k < n; k++) offs[k] = parts[k].offset_ns;
  offs[part] += (int64_t)delta;
  if (st_trace_merge_set_offsets(s->trace, offs, deltas) != ST_OK) return;
  parts = st_trace_parts(s->trace, NULL);
  for (uint32_t k = 0; k < n; k++)
    st_lod_shift_rows(s->lod, parts[k].row_base, parts[k].row_base + parts[k].row_count, deltas[k]);
  s->dirty = 1;
}

void nv_session_apply(nv_session *s, unsigned ch, double now_ms) {
  s->changed |= ch;
  if (ch & ST_UI_SHIFT) shift_part(s);
  if (ch & ~(unsigned)ST_UI_HANDLED) s->dirty = 1; /* the title follows hover, tool, ... */
  if ((ch & ST_UI_ANIMATING) && !s->animating) {
    s->animating = 1;
    s->last_tick = now_ms;
  }
}

void nv_session_resize(nv_session *s, float w, float h, float dpr) {
  s->css_w = w, s->css_h = h, s->dpr = dpr;
  nv_session_apply(s, st_ui_resize(s->ui, w, h, dpr) | ST_UI_REDRAW, 0);
}

void nv_session_tick(nv_session *s, double now_ms) {
  if (!s->animating) return;
  nv_session_apply(s, st_ui_tick(s->ui, now_ms - s->last_tick), now_ms);
  s->last_tick = now_ms;
  s->animating = st_ui_animating(s->ui);
}

st_code nv_session_build(nv_session *s, const st_font *font) {
  st_draw_input in = {.trace = s->trace,
                      .lod = s->lod,
                      .layout = st_ui_layout(s->ui),
                      .view = st_ui_view(s->ui),
                      .font = font};
  st_draw_overlay ov;
  st_ui_overlay(s->ui, &ov);
  s->dirty = 0;
  return st_draw_frame_overlay(&s->dl, &in, &ov, &s->alloc);
}
