/* frame_json.c: the draw list as JSON (see frame_json.h), through st_jout. */
#include "frame_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"

/* One primitive: [v0,v1,...] (a comma before it unless it is the first). */
static void tuple(st_jout *o, uint32_t i, const double *v, int n) {
  st_jout_lit(o, i ? ",[" : "[");
  for (int k = 0; k < n; k++) {
    if (k) st_jout_lit(o, ",");
    st_jout_fixed(o, v[k], 2);
  }
  st_jout_lit(o, "]");
}

static void text(st_jout *o, const st_drawlist *dl, float w, float h, float dpr) {
  double head[4] = {w, h, dpr, dl->clear_rgba};
  static const char *const keys[4] = {"{\"width\":", ",\"height\":", ",\"dpr\":", ",\"clear\":"};
  for (int k = 0; k < 4; k++) {
    st_jout_lit(o, keys[k]);
    st_jout_fixed(o, head[k], 2);
  }
  st_jout_lit(o, ",\"cmds\":[");
  for (uint32_t i = 0; i < dl->cmd_count; i++) {
    const st_draw_cmd *c = &dl->cmds[i];
    double v[7] = {c->kind, c->first, c->count, c->clip_x, c->clip_y, c->clip_w, c->clip_h};
    tuple(o, i, v, 7);
  }
  st_jout_lit(o, "],\"rects\":[");
  for (uint32_t i = 0; i < dl->rect_count; i++) {
    const st_rect *r = &dl->rects[i];
    double v[6] = {r->x, r->y, r->w, r->h, r->rgba, r->flags};
    tuple(o, i, v, 6);
  }
  st_jout_lit(o, "],\"glyphs\":[");
  for (uint32_t i = 0; i < dl->glyph_count; i++) {
    const st_glyph_quad *q = &dl->glyphs[i];
    double v[5] = {q->x, q->y, q->w, q->h, q->rgba};
    tuple(o, i, v, 5);
  }
  st_jout_lit(o, "],\"lines\":[");
  for (uint32_t i = 0; i < dl->line_count; i++) {
    const st_line *l = &dl->lines[i];
    double v[6] = {l->x0, l->y0, l->x1, l->y1, l->width, l->rgba};
    tuple(o, i, v, 6);
  }
  st_jout_lit(o, "]}\n");
}

int nv_frame_json_write(const char *path, const st_drawlist *dl, float w, float h, float dpr,
                        char *err, size_t cap) {
  st_jout o = {.grow = 1};
  text(&o, dl, w, h, dpr);
  if (o.nomem) {
    st_free(NULL, o.buf);
    snprintf(err, cap, "%s: out of memory", path);
    return 0;
  }
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(o.buf, 1, o.len, f) == o.len;
  if (f && fclose(f) != 0) ok = 0;
  if (!ok) snprintf(err, cap, "%s: cannot write: %s", path, strerror(errno));
  st_free(NULL, o.buf);
  return ok;
}
