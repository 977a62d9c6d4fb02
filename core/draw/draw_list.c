/* draw_list.c: the draw list's lines and commands, each clipped to the
 * frame's current clip (the field c of dctx) and capped per frame. The
 * rects' push is static inline in draw_internal.h (it is the per-item
 * one). Called by every pass. */
#include "draw_internal.h"

void dr_push_line(dctx *d, float x0, float y0, float x1, float y1, float width, uint32_t col) {
  /* axis-aligned lines are clamped; others must lie inside (diamonds) */
  float hw = width / 2;
  if (y0 == y1) {
    if (x0 > x1) {
      float t = x0;
      x0 = x1;
      x1 = t;
    }
    if (x0 < d->c.x0) x0 = d->c.x0;
    if (x1 > d->c.x1) x1 = d->c.x1;
    if (!(x1 > x0) || y0 - hw < d->c.y0 || y0 + hw > d->c.y1) return;
  } else if (x0 == x1) {
    if (y0 > y1) {
      float t = y0;
      y0 = y1;
      y1 = t;
    }
    if (y0 < d->c.y0) y0 = d->c.y0;
    if (y1 > d->c.y1) y1 = d->c.y1;
    if (!(y1 > y0) || x0 - hw < d->c.x0 || x0 + hw > d->c.x1) return;
  } else {
    float ext = width / 2; /* the quad extends at most width / 2 across the segment */
    float lx = x0 < x1 ? x0 : x1, hx = x0 < x1 ? x1 : x0;
    float ly = y0 < y1 ? y0 : y1, hy = y0 < y1 ? y1 : y0;
    if (lx - ext < d->c.x0 || hx + ext > d->c.x1 || ly - ext < d->c.y0 || hy + ext > d->c.y1)
      return;
  }
  st_drawlist *dl = d->dl;
  void *p = dl->lines;
  if (!grow(d, &p, &dl->line_cap, dl->line_count, sizeof(st_line), MAX_LINES)) return;
  dl->lines = p;
  dl->lines[dl->line_count++] = (st_line){x0, y0, x1, y1, width, col};
}

void dr_push_cmd(dctx *d, st_draw_kind kind, uint32_t first, uint32_t end) {
  if (end <= first) return;
  st_drawlist *dl = d->dl;
  void *p = dl->cmds;
  if (!grow(d, &p, &dl->cmd_cap, dl->cmd_count, sizeof(st_draw_cmd), MAX_CMDS)) return;
  dl->cmds = p;
  dl->cmds[dl->cmd_count++] = (st_draw_cmd){
      (uint32_t)kind, first, end - first, d->c.x0, d->c.y0, d->c.x1 - d->c.x0, d->c.y1 - d->c.y0};
}
