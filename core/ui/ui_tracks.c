/* ui_tracks.c: sections collapsed, files' groups hidden and moved in time
 * (alt+drag of a header), the track filter, pinned tracks and empty
 * processes (ui.h). */
#include "ui_internal.h"

#include <string.h>

unsigned st_ui_toggle_group(st_ui *ui, uint32_t part) {
  if (!ui || part >= st_layout_group_count(ui->layout)) return 0;
  st_layout_set_group_collapsed(ui->layout, part, !st_layout_group_collapsed(ui->layout, part));
  ui_clamp_scroll(ui);
  return ST_UI_HANDLED | ST_UI_LAYOUT | ST_UI_REDRAW;
}

unsigned st_ui_set_group_hidden(st_ui *ui, uint32_t part, int hidden) {
  if (!ui || part >= st_layout_group_count(ui->layout)) return 0;
  st_layout_set_group_hidden(ui->layout, part, hidden);
  ui_clamp_scroll(ui);
  return ST_UI_LAYOUT | ST_UI_REDRAW;
}

int st_ui_take_shift(st_ui *ui, uint32_t *part, double *delta_ns) {
  if (!ui || ui->shift_pending_ns == 0) return 0;
  *part = ui->shift_part;
  *delta_ns = ui->shift_pending_ns;
  ui->shift_pending_ns = 0;
  return 1;
}

unsigned st_ui_toggle_section(st_ui *ui, uint32_t process) {
  if (!ui) return 0;
  uint32_t np;
  st_trace_processes(ui->trace, &np);
  if (process >= np) return 0;
  st_layout_set_collapsed(ui->layout, process, !st_layout_collapsed(ui->layout, process));
  ui_clamp_scroll(ui);
  return ST_UI_HANDLED | ST_UI_LAYOUT | ST_UI_REDRAW;
}

/* The layout changed which tracks show: the scroll stays inside it. */
static unsigned tracks_changed(st_ui *ui) {
  ui_clamp_scroll(ui);
  return ST_UI_HANDLED | ST_UI_TRACKS | ST_UI_LAYOUT | ST_UI_VIEW | ST_UI_REDRAW;
}

unsigned st_ui_set_track_filter(st_ui *ui, const char *text, size_t len) {
  if (!ui) return 0;
  const char *was = st_layout_filter(ui->layout);
  if (strlen(was) == len && (!len || !memcmp(was, text, len))) return ST_UI_HANDLED;
  if (!st_layout_set_filter(ui->layout, text, len)) return 0;
  return tracks_changed(ui);
}

unsigned st_ui_set_pinned(st_ui *ui, uint32_t track, int pinned) {
  if (!ui || !st_layout_set_pinned(ui->layout, track, pinned)) return ui ? ST_UI_HANDLED : 0;
  return tracks_changed(ui);
}

unsigned st_ui_set_show_empty(st_ui *ui, int show) {
  if (!ui) return 0;
  if (st_layout_show_empty(ui->layout) == (show != 0)) return ST_UI_HANDLED;
  st_layout_set_show_empty(ui->layout, show);
  return tracks_changed(ui);
}

unsigned st_ui_copy_tracks(st_ui *dst, const st_ui *src) {
  if (!dst || !src || dst->trace != src->trace) return 0;
  const char *f = st_layout_filter(src->layout);
  unsigned ch = st_ui_set_track_filter(dst, f, strlen(f));
  ch |= st_ui_set_show_empty(dst, st_layout_show_empty(src->layout));
  uint32_t n, nd;
  const uint32_t *pins = st_layout_pins(src->layout, &n);
  const uint32_t *had = st_layout_pins(dst->layout, &nd);
  for (uint32_t k = nd; k-- > 0;) /* back to front: unpinning shifts the later ones */
    if (!st_layout_pinned(src->layout, had[k])) ch |= st_ui_set_pinned(dst, had[k], 0);
  for (uint32_t k = 0; k < n; k++) ch |= st_ui_set_pinned(dst, pins[k], 1);
  return ch;
}

int st_ui_all_collapsed(const st_ui *ui) {
  uint32_t np;
  if (!ui) return 0;
  st_trace_processes(ui->trace, &np);
  for (uint32_t p = 0; p < np; p++)
    if (!st_layout_collapsed(ui->layout, p)) return 0;
  return np > 0;
}

unsigned st_ui_collapse_all(st_ui *ui) {
  if (!ui) return 0;
  uint32_t np;
  st_trace_processes(ui->trace, &np);
  int collapse = !st_ui_all_collapsed(ui);
  for (uint32_t p = 0; p < np; p++) st_layout_set_collapsed(ui->layout, p, collapse);
  ui_clamp_scroll(ui);
  return ST_UI_HANDLED | ST_UI_LAYOUT | ST_UI_REDRAW;
}
