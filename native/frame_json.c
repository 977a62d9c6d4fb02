/* frame_json.c: the draw list as JSON (see frame_json.h), through st_jout. */
#include "frame_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"

static void num(st_jout *o, double v, int comma) {
  if (comma) st_jout_lit(o, ",");
  st_jout_fixed(o, v, 2);
}

static void text(st_jout *o, const st_drawlist *dl, float w, float h, float dpr) {
  st_jout_lit(o, "{\"width\":");
  num(o, w, 0);
  st_jout_lit(o, ",\"height\":");
  num(o, h, 0);
  st_jout_lit(o, ",\"dpr\":");
  num(o, dpr, 0);
  st_jout_lit(o, ",\"clear\":");
  st_jout_u64(o, dl->clear_rgba);
  st_jout_lit(o, ",\"cmds\":[");
  for (uint32_t i = 0; i < dl->cmd_count; i++) {
    const st_draw_cmd *c = &dl->cmds[i];
    st_jout_lit(o, i ? ",[" : "[");
    st_jout_u64(o, c->kind);
    num(o, c->first, 1);
    num(o, c->count, 1);
    num(o, c->clip_x, 1);
    num(o, c->clip_y, 1);
    num(o, c->clip_w, 1);
    num(o, c->clip_h, 1);
    st_jout_lit(o, "]");
  }
  st_jout_lit(o, "],\"rects\":[");
  for (uint32_t i = 0; i < dl->rect_count; i++) {
    const st_rect *r = &dl->rects[i];
    st_jout_lit(o, i ? ",[" : "[");
    num(o, r->x, 0);
    num(o, r->y, 1);
    num(o, r->w, 1);
    num(o, r->h, 1);
    num(o, r->rgba, 1);
    num(o, r->flags, 1);
    st_jout_lit(o, "]");
  }
  st_jout_lit(o, "],\"glyphs\":[");
  for (uint32_t i = 0; i < dl->glyph_count; i++) {
    const st_glyph_quad *q = &dl->glyphs[i];
    st_jout_lit(o, i ? ",[" : "[");
    num(o, q->x, 0);
    num(o, q->y, 1);
    num(o, q->w, 1);
    num(o, q->h, 1);
    num(o, q->rgba, 1);
    st_jout_lit(o, "]");
  }
  st_jout_lit(o, "],\"lines\":[");
  for (uint32_t i = 0; i < dl->line_count; i++) {
    const st_line *l = &dl->lines[i];
    st_jout_lit(o, i ? ",[" : "[");
    num(o, l->x0, 0);
    num(o, l->y0, 1);
    num(o, l->x1, 1);
    num(o, l->y1, 1);
    num(o, l->width, 1);
    num(o, l->rgba, 1);
    st_jout_lit(o, "]");
  }
  st_jout_lit(o, "]}\n");
}

int nv_frame_json_write(const char *path, const st_drawlist *dl, float w, float h, float dpr,
                        char *err, size_t cap) {
  st_jout o = {NULL, 0, 0};
  text(&o, dl, w, h, dpr); /* measures */
  size_t n = o.len;
  char *buf = malloc(n + 1);
  if (!buf) {
    snprintf(err, cap, "%s: out of memory", path);
    return 0;
  }
  o = (st_jout){buf, n + 1, 0};
  text(&o, dl, w, h, dpr);
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(buf, 1, n, f) == n;
  if (f && fclose(f) != 0) ok = 0;
  if (!ok) snprintf(err, cap, "%s: cannot write: %s", path, strerror(errno));
  free(buf);
  return ok;
}
