/* view.c: viewport arithmetic and the vertical track layout (see view.h).
 *
 * The layout is a flat, top-to-bottom array of items (section headers, slice
 * rows, counter tracks) with content y positions, rebuilt only when a
 * process is collapsed or expanded, a track pinned, the filter or the empty
 * sections changed, so a frame finds its first visible item with one binary
 * search and walks only what is on screen. The pinned tracks come first
 * (y from 0); the sections after them (y from the pinned height), so y
 * ascends along the whole array.
 */
#include "view.h"

#include "bisect.h"

#include <math.h>
#include <string.h>

#include "track_filter.h"
#include "track_label.h"

/* ==== viewport =========================================================== */

#define MIN_NSPP 1e-3
#define MAX_NSPP 1e15

static double clamp_nspp(double v) {
  if (!(v >= MIN_NSPP)) return MIN_NSPP; /* also NaN */
  return v > MAX_NSPP ? MAX_NSPP : v;
}

float st_view_timeline_w(const st_view *v) {
  float w = v ? v->width - ST_VIEW_GUTTER_W : 0;
  return w > 0 ? w : 0;
}

void st_view_fit(st_view *v, const st_trace *t, float w, float h, float dpr) {
  if (!v) return;
  v->width = w > 0 ? w : 1;
  v->height = h > 0 ? h : 1;
  v->dpr = dpr > 0 ? dpr : 1;
  v->scroll_y = 0;
  double tw = st_view_timeline_w(v);
  if (tw < 1) tw = 1;
  double dur = (double)st_trace_duration_ns(t);
  if (!(dur > 0)) dur = 1000; /* empty or instantaneous trace: show 1 us */
  double margin = dur * 0.02;
  v->ns_per_px = clamp_nspp((dur + 2 * margin) / tw);
  v->t0_ns = -margin;
}

double st_view_time_at(const st_view *v, float x) {
  return v->t0_ns + ((double)x - ST_VIEW_GUTTER_W) * v->ns_per_px;
}

float st_view_x_of(const st_view *v, double t_ns) {
  return (float)(ST_VIEW_GUTTER_W + (t_ns - v->t0_ns) / v->ns_per_px);
}

void st_view_zoom(st_view *v, double factor, float x) {
  if (!v || !(factor > 0) || !isfinite(factor)) return;
  if (!(x >= ST_VIEW_GUTTER_W && x < v->width)) x = ST_VIEW_GUTTER_W + st_view_timeline_w(v) / 2;
  double t = st_view_time_at(v, x);
  v->ns_per_px = clamp_nspp(v->ns_per_px / factor);
  v->t0_ns = t - ((double)x - ST_VIEW_GUTTER_W) * v->ns_per_px;
}

void st_view_pan_px(st_view *v, float dx_px) {
  if (v && isfinite(dx_px)) v->t0_ns += (double)dx_px * v->ns_per_px;
}

/* ==== layout ============================================================= */

struct st_layout {
  st_alloc alloc;
  const st_trace *trace;
  uint8_t *collapsed; /* per process */
  uint32_t proc_count, track_count;
  /* a merged trace's parts: collapsed flag and item index per group */
  const st_trace_part *parts;
  uint32_t group_count;
  uint8_t *group_collapsed;
  uint32_t *group_item;
  st_layout_item *items;
  uint32_t count, cap;
  float height;
  st_track_labels *labels;
  /* which show (track_filter.h) */
  uint8_t *empty; /* per process: no events */
  uint32_t empty_count;
  int show_empty;
  char *filter; /* NUL-terminated, NULL: none */
  size_t filter_len;
  uint8_t *keep;   /* per track: kept by the filter */
  uint8_t *named;  /* per process: its name (or its file's) matches the filter */
  uint8_t *pinned; /* per track (labelled ones) */
  uint32_t pins[ST_LAYOUT_MAX_PINS], npins;
  uint32_t pin_items;
  float pin_h;
};

/* Empty processes are left out (unless every one is empty). */
static int hides_empty(const st_layout *l) {
  return !l->show_empty && l->empty_count && l->empty_count < l->proc_count;
}

/* The end of the labelled track group starting at ti (it and the tracks
 * continuing it), within process p. */
static uint32_t group_end(const st_layout *l, const st_process *p, uint32_t ti) {
  uint32_t end = p->first_track + p->track_count;
  if (end > l->track_count) end = l->track_count;
  uint32_t e = ti + 1;
  while (e < end && st_track_continues(l->trace, e)) e++;
  return e;
}

/* Lays out tracks [ti, end) of process p at *y (a thread's marker lane and
 * its slices read as one track: one label, one gap after). Returns the
 * items written. */
static uint32_t emit_group(st_layout *l, uint32_t p, uint32_t ti, uint32_t end, float *y) {
  const st_track *ts = st_trace_tracks(l->trace, NULL);
  uint32_t n0 = l->count;
  int labelled = 0;
  for (; ti < end; ti++) {
    const st_track *tr = &ts[ti];
    if (tr->kind == ST_TRACK_COUNTER) {
      l->items[l->count++] =
          (st_layout_item){ST_LAYOUT_COUNTER, 1, 0, p, ti, tr->counter, *y, ST_VIEW_COUNTER_H};
      *y += ST_VIEW_COUNTER_H;
      labelled = 1;
      continue;
    }
    float rh = tr->block_span ? ST_VIEW_BLOCKS_H : ST_VIEW_ROW_H;
    for (uint32_t r = 0; r < tr->row_count; r++) {
      l->items[l->count++] = (st_layout_item){
          ST_LAYOUT_ROW, (uint8_t)(r == 0 && !labelled), 0, p, ti, tr->first_row + r, *y, rh};
      if (!tr->block_span) *y += ST_VIEW_ROW_H; /* a blocks track's lanes overlay one band */
    }
    if (tr->block_span && tr->row_count) *y += ST_VIEW_BLOCKS_H;
    if (tr->row_count) labelled = 1;
  }
  if (l->count > n0) *y += ST_VIEW_TRACK_GAP;
  return l->count - n0;
}

/* A group is shown in its section: not pinned, kept by the filter. */
static int group_in_section(const st_layout *l, uint32_t ti) {
  return !l->pinned[ti] && (!l->filter || l->keep[ti]);
}

/* A process's section is laid out (its group shown). */
static int section_shown(const st_layout *l, const st_process *ps, uint32_t p) {
  if (hides_empty(l) && l->empty[p]) return 0;
  if (!l->filter || l->named[p]) return 1; /* a section whose name matches: all its tracks */
  for (uint32_t k = 0; k < ps[p].track_count; k++) {
    uint32_t ti = ps[p].first_track + k;
    if (ti < l->track_count && l->keep[ti] && !l->pinned[ti]) return 1;
  }
  return 0;
}

static void emit_section(st_layout *l, const st_process *ps, uint32_t p, float *y) {
  l->items[l->count++] =
      (st_layout_item){ST_LAYOUT_SECTION, 0, 0, p, UINT32_MAX, 0, *y, ST_VIEW_SECTION_H};
  *y += ST_VIEW_SECTION_H;
  if (l->collapsed[p]) return;
  uint32_t end = ps[p].first_track + ps[p].track_count;
  for (uint32_t ti = ps[p].first_track; ti < end && ti < l->track_count;) {
    uint32_t e = group_end(l, &ps[p], ti);
    if (group_in_section(l, ti)) emit_group(l, p, ti, e, y);
    ti = e;
  }
}

/* The pinned tracks first (those of a hidden group left out). */
static void emit_pins(st_layout *l, const st_process *ps, float *y) {
  const st_track *ts = st_trace_tracks(l->trace, NULL);
  for (uint32_t k = 0; k < l->npins; k++) {
    uint32_t ti = l->pins[k], p = ts[ti].process;
    uint32_t g = l->group_count ? st_trace_part_of_process(l->trace, p) : UINT32_MAX;
    if (g < l->group_count && l->group_collapsed[g] == 2) continue;
    emit_group(l, p, ti, group_end(l, &ps[p], ti), y);
  }
  l->pin_items = l->count;
  l->pin_h = *y;
}

/* A part has a section left (the filter may leave none: then no header). */
static int part_shown(const st_layout *l, const st_process *ps, const st_trace_part *part) {
  if (!l->filter) return 1;
  for (uint32_t p = part->process_base; p < part->process_base + part->process_count; p++)
    if (p < l->proc_count && section_shown(l, ps, p)) return 1;
  return 0;
}

static int rebuild(st_layout *l) {
  uint32_t np, nt;
  const st_process *ps = st_trace_processes(l->trace, &np);
  const st_track *ts = st_trace_tracks(l->trace, &nt);
  /* worst case: every section, row and counter expanded */
  size_t need = (size_t)np + l->group_count;
  for (uint32_t i = 0; i < nt; i++) need += ts[i].kind == ST_TRACK_COUNTER ? 1u : ts[i].row_count;
  if (need > UINT32_MAX - 1) return 0;
  if (need > l->cap) {
    st_layout_item *ni = st_realloc_array(&l->alloc, l->items, need, sizeof *ni);
    if (!ni) return 0;
    l->items = ni;
    l->cap = (uint32_t)need;
  }
  l->count = 0;
  float y = 0;
  emit_pins(l, ps, &y);
  uint32_t g = 0; /* the next group (merged traces) */
  for (uint32_t p = 0; p < np || g < l->group_count; p++) {
    /* group headers: before the first process of their part */
    while (g < l->group_count && l->parts[g].process_base <= p) {
      if (l->group_collapsed[g] == 2 || !part_shown(l, ps, &l->parts[g])) {
        /* hidden, or nothing left by the filter: neither header nor processes */
        l->group_item[g] = UINT32_MAX;
        p = l->parts[g].process_base + l->parts[g].process_count;
        g++;
        continue;
      }
      l->group_item[g] = l->count;
      l->items[l->count++] = (st_layout_item){ST_LAYOUT_GROUP, 0, 0, l->parts[g].process_base,
                                              UINT32_MAX,      g, y, ST_VIEW_GROUP_H};
      y += ST_VIEW_GROUP_H;
      if (l->group_collapsed[g]) p = l->parts[g].process_base + l->parts[g].process_count;
      g++;
    }
    if (p >= np) continue;
    if (g && l->group_collapsed[g - 1] &&
        p < l->parts[g - 1].process_base + l->parts[g - 1].process_count)
      continue;
    if (section_shown(l, ps, p)) emit_section(l, ps, p, &y);
  }
  l->height = y;
  return 1;
}

st_layout *st_layout_create(const st_alloc *a, const st_trace *t) {
  st_alloc al = a ? *a : (st_alloc){0};
  if (!t) return NULL;
  st_layout *l = st_calloc(&al, 1, sizeof *l);
  if (!l) return NULL;
  l->alloc = al;
  l->trace = t;
  st_trace_processes(t, &l->proc_count);
  st_trace_tracks(t, &l->track_count);
  l->parts = st_trace_parts(t, &l->group_count);
  l->collapsed = st_calloc(&al, (size_t)l->proc_count + 1, 1);
  l->labels = st_track_labels_create(&al, t);
  l->group_collapsed = st_calloc(&al, (size_t)l->group_count + 1, 1);
  l->group_item = st_calloc(&al, (size_t)l->group_count + 1, sizeof *l->group_item);
  l->empty = st_calloc(&al, (size_t)l->proc_count + 1, 1);
  l->keep = st_calloc(&al, (size_t)l->track_count + 1, 1);
  l->named = st_calloc(&al, (size_t)l->proc_count + 1, 1);
  l->pinned = st_calloc(&al, (size_t)l->track_count + 1, 1);
  if (!l->collapsed || !l->labels || !l->group_collapsed || !l->group_item || !l->empty ||
      !l->keep || !l->named || !l->pinned) {
    st_layout_destroy(l);
    return NULL;
  }
  uint32_t np;
  const st_process *ps = st_trace_processes(t, &np);
  for (uint32_t p = 0; p < np && p < l->proc_count; p++) /* gatherings start collapsed */
    l->collapsed[p] = ps[p].sort_index >= ST_PROCESS_SORT_FOLDED;
  l->empty_count = st_process_empty_flags(t, l->empty);
  st_track_filter_keep(t, l->labels, "", 0, l->keep, l->named);
  if (!rebuild(l)) {
    st_layout_destroy(l);
    return NULL;
  }
  return l;
}

void st_layout_destroy(st_layout *l) {
  if (!l) return;
  st_alloc a = l->alloc;
  st_free(&a, l->collapsed);
  st_free(&a, l->group_collapsed);
  st_free(&a, l->group_item);
  st_free(&a, l->items);
  st_free(&a, l->empty);
  st_free(&a, l->keep);
  st_free(&a, l->named);
  st_free(&a, l->pinned);
  st_free(&a, l->filter);
  st_track_labels_destroy(l->labels);
  st_free(&a, l);
}

void st_layout_set_collapsed(st_layout *l, uint32_t process, int collapsed) {
  if (!l || process >= l->proc_count) return;
  uint8_t c = collapsed ? 1 : 0;
  if (l->collapsed[process] == c) return;
  l->collapsed[process] = c;
  /* collapsing only shrinks the list; expanding fits in the capacity sized
   * for everything expanded, so this cannot fail after create */
  rebuild(l);
}

int st_layout_collapsed(const st_layout *l, uint32_t process) {
  return l && process < l->proc_count ? l->collapsed[process] : 0;
}

uint32_t st_layout_group_count(const st_layout *l) { return l ? l->group_count : 0; }

void st_layout_set_group_collapsed(st_layout *l, uint32_t part, int collapsed) {
  if (!l || part >= l->group_count || l->group_collapsed[part] == 2) return;
  uint8_t c = collapsed ? 1 : 0;
  if (l->group_collapsed[part] == c) return;
  l->group_collapsed[part] = c;
  rebuild(l); /* fits the capacity sized for everything expanded */
}

int st_layout_group_collapsed(const st_layout *l, uint32_t part) {
  return l && part < l->group_count ? l->group_collapsed[part] != 0 : 0;
}

void st_layout_set_group_hidden(st_layout *l, uint32_t part, int hidden) {
  if (!l || part >= l->group_count) return;
  uint8_t c = hidden ? 2 : 0;
  if (l->group_collapsed[part] == c) return;
  l->group_collapsed[part] = c;
  rebuild(l);
}

const st_layout_item *st_layout_items(const st_layout *l, uint32_t *count) {
  if (count) *count = l ? l->count : 0;
  return l ? l->items : NULL;
}

float st_layout_height(const st_layout *l) { return l ? l->height : 0; }

size_t st_layout_track_label(const st_layout *l, uint32_t track, char *buf, size_t cap) {
  if (!l) {
    if (buf && cap) buf[0] = 0;
    return 0;
  }
  return st_track_label(l->labels, track, buf, cap);
}

typedef struct item_y {
  const st_layout_item *items;
  float y;
} item_y;

static int item_above(const void *ctx, size_t m) {
  const item_y *k = ctx;
  return !(k->items[m].y + k->items[m].h > k->y);
}

uint32_t st_layout_first_at(const st_layout *l, float content_y) {
  if (!l) return 0;
  item_y k = {l->items, content_y};
  return (uint32_t)st_partition_point(0, l->count, item_above, &k);
}

/* Items are ordered by (process, track, row) with a section first in its
 * process: binary search on that key. */
typedef struct item_key {
  const st_layout_item *items;
  uint32_t process, track, row;
} item_key;

static int item_before(const void *ctx, size_t m) {
  const item_key *k = ctx;
  const st_layout_item *it = &k->items[m];
  if (it->process != k->process) return it->process < k->process;
  if (it->kind == ST_LAYOUT_SECTION || it->kind == ST_LAYOUT_GROUP) return 1;
  if (it->track != k->track) return it->track < k->track;
  return it->kind == ST_LAYOUT_ROW && it->row < k->row;
}

static uint32_t head_of(const st_layout *l, uint32_t ti);

uint32_t st_layout_item_of_row(const st_layout *l, uint32_t row) {
  uint32_t nr, nt;
  if (!l) return UINT32_MAX;
  const st_row *rows = st_trace_rows(l->trace, &nr);
  const st_track *tracks = st_trace_tracks(l->trace, &nt);
  if (row >= nr || rows[row].track >= nt) return UINT32_MAX;
  uint32_t track = rows[row].track, process = tracks[track].process;
  if (l->pin_items && l->pinned[head_of(l, track)]) /* its track is pinned: among the first */
    for (uint32_t i = 0; i < l->pin_items; i++)
      if (l->items[i].kind == ST_LAYOUT_ROW && l->items[i].row == row) return i;
  item_key k = {l->items, process, track, row};
  uint32_t lo = (uint32_t)st_partition_point(l->pin_items, l->count, item_before, &k);
  if (lo < l->count && l->items[lo].kind == ST_LAYOUT_ROW && l->items[lo].row == row) return lo;
  if (l->group_count) {
    uint32_t g = st_trace_part_of_process(l->trace, process);
    if (g < l->group_count && l->group_collapsed[g]) return l->group_item[g]; /* MAX if hidden */
  }
  if (process < l->proc_count && l->collapsed[process]) {
    /* the section is the last item before lo in its process */
    uint32_t s = lo;
    while (s > l->pin_items && l->items[s - 1].process == process &&
           l->items[s - 1].kind != ST_LAYOUT_SECTION)
      s--;
    if (s > l->pin_items && l->items[s - 1].kind == ST_LAYOUT_SECTION &&
        l->items[s - 1].process == process)
      return s - 1;
  }
  return UINT32_MAX;
}

/* ==== empty sections, the filter, pins =================================== */

uint32_t st_layout_empty_count(const st_layout *l) { return l ? l->empty_count : 0; }

void st_layout_set_show_empty(st_layout *l, int show) {
  if (!l || l->show_empty == (show != 0)) return;
  l->show_empty = show != 0;
  rebuild(l); /* fits the capacity sized for everything shown */
}

int st_layout_show_empty(const st_layout *l) { return l && l->show_empty; }

int st_layout_set_filter(st_layout *l, const char *text, size_t len) {
  if (!l) return 0;
  if (!text) len = 0;
  if (len == l->filter_len && (!len || !memcmp(text, l->filter, len))) return 1;
  char *f = NULL;
  if (len) {
    if (len > SIZE_MAX - 1 || !(f = st_malloc(&l->alloc, len + 1))) return 0;
    memcpy(f, text, len);
    f[len] = 0;
  }
  st_free(&l->alloc, l->filter);
  l->filter = f;
  l->filter_len = len;
  st_track_filter_keep(l->trace, l->labels, f ? f : "", len, l->keep, l->named);
  rebuild(l);
  return 1;
}

const char *st_layout_filter(const st_layout *l) { return l && l->filter ? l->filter : ""; }

int st_layout_row_filtered(const st_layout *l, uint32_t row) {
  uint32_t nr;
  if (!l || !l->filter) return 0;
  const st_row *rows = st_trace_rows(l->trace, &nr);
  const st_track *ts = st_trace_tracks(l->trace, NULL);
  if (row >= nr || rows[row].track >= l->track_count) return 0;
  uint32_t ti = rows[row].track, p = ts[ti].process;
  uint32_t g = l->group_count ? st_trace_part_of_process(l->trace, p) : UINT32_MAX;
  if (g < l->group_count && l->group_collapsed[g] == 2) return 0; /* the pane leaves it out */
  if (hides_empty(l) && l->empty[p]) return 0;                    /* no events to hide */
  return !l->keep[ti] && !l->pinned[head_of(l, ti)];
}

uint32_t st_layout_track_counts(const st_layout *l, uint32_t *shown) {
  uint32_t total = 0, kept = 0, np;
  if (shown) *shown = 0;
  if (!l) return 0;
  const st_process *ps = st_trace_processes(l->trace, &np);
  const st_track *ts = st_trace_tracks(l->trace, NULL);
  for (uint32_t p = 0; p < np; p++) {
    if (hides_empty(l) && l->empty[p]) continue;
    uint32_t end = ps[p].first_track + ps[p].track_count;
    for (uint32_t ti = ps[p].first_track; ti < end && ti < l->track_count;) {
      uint32_t e = group_end(l, &ps[p], ti);
      int laid = 0; /* something of the group is drawn: it has a label */
      for (uint32_t k = ti; k < e && !laid; k++)
        laid = ts[k].kind == ST_TRACK_COUNTER || ts[k].row_count > 0;
      total += (uint32_t)laid;
      kept += (uint32_t)(laid && l->keep[ti]);
      ti = e;
    }
  }
  if (shown) *shown = l->filter ? kept : total;
  return total;
}

/* The labelled track a track belongs to (itself, or the one it continues). */
static uint32_t head_of(const st_layout *l, uint32_t ti) {
  const st_track *ts = st_trace_tracks(l->trace, NULL);
  const st_process *ps = st_trace_processes(l->trace, NULL);
  uint32_t first = ps[ts[ti].process].first_track;
  while (ti > first && st_track_continues(l->trace, ti)) ti--;
  return ti;
}

int st_layout_set_pinned(st_layout *l, uint32_t track, int pinned) {
  if (!l || track >= l->track_count) return 0;
  track = head_of(l, track);
  if (l->pinned[track] == (pinned != 0)) return 0;
  if (pinned) {
    if (l->npins >= ST_LAYOUT_MAX_PINS) return 0;
    l->pins[l->npins++] = track;
  } else {
    uint32_t k = 0;
    while (k < l->npins && l->pins[k] != track) k++;
    for (; k + 1 < l->npins; k++) l->pins[k] = l->pins[k + 1];
    l->npins--;
  }
  l->pinned[track] = pinned != 0;
  rebuild(l); /* the same items in another order: fits */
  return 1;
}

int st_layout_pinned(const st_layout *l, uint32_t track) {
  return l && track < l->track_count && l->pinned[head_of(l, track)];
}

uint32_t st_layout_track_head(const st_layout *l, uint32_t track) {
  return l && track < l->track_count ? head_of(l, track) : UINT32_MAX;
}

const uint32_t *st_layout_pins(const st_layout *l, uint32_t *count) {
  if (count) *count = l ? l->npins : 0;
  return l ? l->pins : NULL;
}

uint32_t st_layout_pinned_items(const st_layout *l) { return l ? l->pin_items : 0; }

float st_layout_pinned_height(const st_layout *l) { return l ? l->pin_h : 0; }

/* ==== on screen =========================================================== */

uint32_t st_layout_spans(const st_layout *l, const st_view *v, st_layout_span out[2]) {
  if (!l || !v) return 0;
  uint32_t n = 0;
  float bottom = v->height;
  if (l->pin_items) {
    out[n++] = (st_layout_span){0, l->pin_items, ST_VIEW_AXIS_H, ST_VIEW_AXIS_H,
                                fminf(bottom, ST_VIEW_AXIS_H + l->pin_h)};
  }
  /* the scrolled items: content y in [pin_h + scroll, scroll + area) */
  float top = l->pin_h + v->scroll_y, end_y = v->scroll_y + (v->height - ST_VIEW_AXIS_H);
  uint32_t first = st_layout_first_at(l, top), end = first;
  if (first < l->pin_items) first = end = l->pin_items;
  while (end < l->count && l->items[end].y < end_y) end++;
  float clip0 = ST_VIEW_AXIS_H + l->pin_h;
  if (end > first && clip0 < bottom)
    out[n++] = (st_layout_span){first, end, ST_VIEW_AXIS_H - v->scroll_y, clip0, bottom};
  return n;
}

float st_layout_screen_y(const st_layout *l, const st_view *v, uint32_t item) {
  if (!l || !v || item >= l->count) return 0;
  return ST_VIEW_AXIS_H + l->items[item].y - (item < l->pin_items ? 0 : v->scroll_y);
}

int st_layout_on_screen(const st_layout *l, const st_view *v, uint32_t item) {
  if (!l || !v || item >= l->count) return 0;
  float y = st_layout_screen_y(l, v, item), h = l->items[item].h;
  float top = ST_VIEW_AXIS_H + (item < l->pin_items ? 0 : l->pin_h);
  return y + h > top && y < v->height;
}

float st_layout_content_y(const st_layout *l, const st_view *v, float screen_y) {
  float y = screen_y - ST_VIEW_AXIS_H;
  if (!l || !v) return y;
  return y < l->pin_h ? y : y + v->scroll_y;
}
