/* title.c: the one-line status in the window's title bar, and the key help
 * (see title.h). */
#include "title.h"

#include <stdio.h>
#include <string.h>

#include "utf8.h"

/* Appends printf text to buf (kept NUL-terminated, cut at cap). */
#define APPEND(...)                                                                                \
  do {                                                                                             \
    size_t n_ = strlen(buf);                                                                       \
    if (n_ + 1 < cap) snprintf(buf + n_, cap - n_, __VA_ARGS__);                                   \
  } while (0)

/* Appends an event's name, which is the trace's (untrusted) text: control
 * characters become spaces, invalid UTF-8 '?', at most 120 bytes. */
static void append_name(char *buf, size_t cap, const char *s, size_t len) {
  size_t n = strlen(buf), i = 0;
  const unsigned char *p = (const unsigned char *)s;
  if (len > 120) len = 120;
  while (i < len && n + 5 < cap) {
    size_t k = p[i] < 0x20 || p[i] == 0x7f ? 0 : st_utf8_len(p + i, len - i);
    if (k)
      memcpy(buf + n, s + i, k);
    else
      buf[n] = p[i] < 0x80 ? ' ' : '?', k = 1;
    n += k, i += k;
  }
  buf[n] = 0;
}

static void hovered(const st_ui *ui, char *buf, size_t cap) {
  st_hit h = st_ui_hover(ui);
  if (h.kind != ST_HIT_EVENT) return;
  uint32_t nrows;
  const st_trace *t = st_ui_trace(ui);
  const st_row *rows = st_trace_rows(t, &nrows);
  if (h.row >= nrows || h.index >= rows[h.row].count) return;
  const st_row *r = &rows[h.row];
  size_t len = 0;
  const char *name = st_strtab_get(st_trace_strings(t), r->name[h.index], &len);
  char dur[48];
  double d = (double)r->dur[h.index];
  st_format_time(d, d > 0 ? d / 100 : 1, dur, sizeof dur);
  APPEND("  |  ");
  append_name(buf, cap, name ? name : "", name ? len : 0);
  APPEND("  %s", dur);
}

/* A note's time as the page lists it: microseconds, at most 3 decimals. */
static void append_us(char *buf, size_t cap, double us) {
  char t[48];
  snprintf(t, sizeof t, "%.3f", us);
  char *end = t + strlen(t);
  while (end > t && end[-1] == '0') *--end = 0;
  if (end > t && end[-1] == '.') *--end = 0;
  APPEND("%s us", t);
}

/* The track filter (its box while open, with the count, as the page's "12
 * of 340 tracks") and the processes without events. */
static void tracks(const st_ui *ui, const nv_input *in, char *buf, size_t cap) {
  const st_layout *l = st_ui_layout(ui);
  const char *f = in->filtering ? in->filter : st_layout_filter(l);
  if (in->filtering || f[0]) {
    uint32_t shown, total = st_layout_track_counts(l, &shown);
    APPEND("  |  filter: ");
    append_name(buf, cap, f, strlen(f));
    APPEND("%s (%u of %u tracks)", in->filtering ? "_" : "", (unsigned)shown, (unsigned)total);
  }
  uint32_t np, empty = st_layout_empty_count(l);
  st_trace_processes(st_ui_trace(ui), &np);
  if (empty && empty < np) /* all empty: they all show */
    APPEND("  |  %u process%s without events %s", (unsigned)empty, empty == 1 ? "" : "es",
           st_layout_show_empty(l) ? "shown" : "hidden");
}

/* A note being placed, else how many there are. */
static void notes(st_app *app, const nv_input *in, char *buf, size_t cap) {
  uint32_t n;
  st_app_notes(app, &n);
  if (in->note_step == NV_NOTE_ARMED || in->note_step == NV_NOTE_PRESSED) {
    APPEND("  |  note: click a time or drag over a range (Esc: not now)");
  } else if (in->note_step == NV_NOTE_TEXT) {
    APPEND("  |  note %s", in->note_t1_us > in->note_t0_us ? "" : "at ");
    append_us(buf, cap, in->note_t0_us);
    if (in->note_t1_us > in->note_t0_us) {
      APPEND(" - ");
      append_us(buf, cap, in->note_t1_us);
    }
    APPEND(": ");
    append_name(buf, cap, in->note_text, strlen(in->note_text));
    APPEND("_");
  } else if (n) {
    APPEND("  |  %u note%s", (unsigned)n, n == 1 ? "" : "s");
  }
}

void nv_title(st_app *app, const nv_input *in, const char *name, char *buf, size_t cap) {
  if (!cap) return;
  buf[0] = 0;
  const st_ui *ui = st_app_ui(app);
  if (!ui) {
    APPEND("%s - strata", name);
    return;
  }
  APPEND("%s - strata  |  %s", name, st_ui_tool_name(st_ui_tool(ui)));
  if (st_app_side_by_side(app)) APPEND("  |  side by side");
  if (st_ui_flow_mode(ui) != ST_FLOWS_SELECTION) /* the default is not shown */
    APPEND("  |  arrows: %s", st_flow_mode_name(st_ui_flow_mode(ui)));
  hovered(ui, buf, cap);
  uint64_t nsel = st_selection_count(st_ui_selection(ui));
  if (nsel) APPEND("  |  %llu selected", (unsigned long long)nsel);
  double m0, m1;
  if (st_ui_mark(ui, &m0, &m1)) {
    char d[48];
    st_format_time(m1 - m0, (m1 - m0) / 1000 > 0 ? (m1 - m0) / 1000 : 1, d, sizeof d);
    APPEND("  |  mark %s", d);
  }
  const st_find *f = st_ui_find(ui);
  if (in->searching || st_find_active(f))
    APPEND("  |  search: %s%s (%llu)", in->searching ? in->query : st_find_text(f),
           in->searching ? "_" : "", (unsigned long long)st_find_count(f));
  tracks(ui, in, buf, cap);
  notes(app, in, buf, cap);
}

void nv_help_print(void) {
  fputs("strata view: keys and mouse\n"
        "  W / S            zoom in / out at the mouse; hold to keep going\n"
        "  A / D, arrows    pan earlier / later (hold A / D: faster); up / down scroll\n"
        "  ctrl + wheel     zoom at the cursor;  shift + wheel: pan;  wheel: scroll\n"
        "  0                fit the whole trace\n"
        "  1 2 3 4          drag tool: select, pan, zoom, timing (middle drag: pan)\n"
        "  click            select an event; on a section header: collapse / expand\n"
        "  ctrl + click     add / remove an event;  double-click: zoom to the slice\n"
        "  alt + drag       several files: a file's header moves that file in time\n"
        "  m / f            mark the selection's span / zoom to fit the selection\n"
        "  / or ctrl + F    search (typed into the title bar); Enter / shift + Enter:\n"
        "                   next / previous match; PageDown / PageUp: ten; Esc: back\n"
        "  Esc              cancel a drag, else clear selection, mark and search\n"
        "  l                flow arrows: off / selection (the selected event's chain,\n"
        "                   the default) / all (bundled, under the slices)\n"
        "  p                pin the track under the mouse to the top (again: unpin);\n"
        "                   also a click on the square at the right of its label\n"
        "  t                filter the tracks by name (process, thread, track, file;\n"
        "                   typed into the title bar); Enter: keep it; Esc: clear it\n"
        "  e                show / hide the processes without events\n"
        "  n                a note: then click a time or drag over a range on the\n"
        "                   timeline, type its text; Enter adds it, Esc drops it\n"
        "  hatched blocks   zoomed out, events too small to draw apart, merged into\n"
        "                   one block (denser: busier); zoom in to see each\n"
        "  ?                this help\n",
        stdout);
  fflush(stdout);
}
