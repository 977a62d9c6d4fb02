/* view.c: viewport arithmetic and the vertical track layout (see view.h).
 *
 * The layout is a flat, top-to-bottom array of items (section headers, slice
 * rows, counter tracks) with content y positions, rebuilt only when a
 * process is collapsed or expanded, so a frame finds its first visible item
 * with one binary search and walks only what is on screen.
 */
#include "view.h"

#include <math.h>

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
  uint32_t proc_count;
  /* a merged trace's parts: collapsed flag and item index per group */
  const st_trace_part *parts;
  uint32_t group_count;
  uint8_t *group_collapsed;
  uint32_t *group_item;
  st_layout_item *items;
  uint32_t count, cap;
  float height;
  st_track_labels *labels;
};

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
  uint32_t n = 0;
  float y = 0;
  uint32_t g = 0; /* the next group (merged traces) */
  for (uint32_t p = 0; p < np || g < l->group_count; p++) {
    /* group headers: before the first process of their part */
    while (g < l->group_count && l->parts[g].process_base <= p) {
      if (l->group_collapsed[g] == 2) { /* hidden: neither header nor processes */
        l->group_item[g] = UINT32_MAX;
        p = l->parts[g].process_base + l->parts[g].process_count;
        g++;
        continue;
      }
      l->group_item[g] = n;
      l->items[n++] = (st_layout_item){ST_LAYOUT_GROUP, 0, 0, l->parts[g].process_base,
                                       UINT32_MAX,      g, y, ST_VIEW_GROUP_H};
      y += ST_VIEW_GROUP_H;
      if (l->group_collapsed[g]) p = l->parts[g].process_base + l->parts[g].process_count;
      g++;
    }
    if (p >= np) continue;
    if (g && l->group_collapsed[g - 1] &&
        p < l->parts[g - 1].process_base + l->parts[g - 1].process_count)
      continue;
    l->items[n++] =
        (st_layout_item){ST_LAYOUT_SECTION, 0, 0, p, UINT32_MAX, 0, y, ST_VIEW_SECTION_H};
    y += ST_VIEW_SECTION_H;
    if (l->collapsed[p]) continue;
    int continued = 0; /* this track goes on from the one before: no label, no gap */
    for (uint32_t k = 0; k < ps[p].track_count; k++) {
      uint32_t ti = ps[p].first_track + k;
      if (ti >= nt) break;
      const st_track *tr = &ts[ti];
      if (tr->kind == ST_TRACK_COUNTER) {
        l->items[n++] =
            (st_layout_item){ST_LAYOUT_COUNTER, 1, 0, p, ti, tr->counter, y, ST_VIEW_COUNTER_H};
        y += ST_VIEW_COUNTER_H + ST_VIEW_TRACK_GAP;
        continue;
      }
      if (!tr->row_count) continue;
      for (uint32_t r = 0; r < tr->row_count; r++) {
        l->items[n++] = (st_layout_item){
            ST_LAYOUT_ROW, (uint8_t)(r == 0 && !continued), 0, p, ti, tr->first_row + r, y,
            ST_VIEW_ROW_H};
        y += ST_VIEW_ROW_H;
      }
      /* a thread's marker lane and its slices read as one track */
      continued = k + 1 < ps[p].track_count && st_track_continues(l->trace, ti + 1);
      if (!continued) y += ST_VIEW_TRACK_GAP;
    }
  }
  l->count = n;
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
  l->parts = st_trace_parts(t, &l->group_count);
  l->collapsed = st_calloc(&al, (size_t)l->proc_count + 1, 1);
  l->labels = st_track_labels_create(&al, t);
  l->group_collapsed = st_calloc(&al, (size_t)l->group_count + 1, 1);
  l->group_item = st_calloc(&al, (size_t)l->group_count + 1, sizeof *l->group_item);
  if (!l->collapsed || !l->labels || !l->group_collapsed || !l->group_item || !rebuild(l)) {
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

uint32_t st_layout_first_at(const st_layout *l, float content_y) {
  if (!l) return 0;
  uint32_t lo = 0, hi = l->count;
  while (lo < hi) {
    uint32_t m = lo + (hi - lo) / 2;
    if (l->items[m].y + l->items[m].h > content_y)
      hi = m;
    else
      lo = m + 1;
  }
  return lo;
}

/* Items are ordered by (process, track, row) with a section first in its
 * process: binary search on that key. */
static int item_before(const st_layout_item *it, uint32_t process, uint32_t track, uint32_t row) {
  if (it->process != process) return it->process < process;
  if (it->kind == ST_LAYOUT_SECTION || it->kind == ST_LAYOUT_GROUP) return 1;
  if (it->track != track) return it->track < track;
  return it->kind == ST_LAYOUT_ROW && it->row < row;
}

uint32_t st_layout_item_of_row(const st_layout *l, uint32_t row) {
  uint32_t nr, nt;
  if (!l) return UINT32_MAX;
  const st_row *rows = st_trace_rows(l->trace, &nr);
  const st_track *tracks = st_trace_tracks(l->trace, &nt);
  if (row >= nr || rows[row].track >= nt) return UINT32_MAX;
  uint32_t track = rows[row].track, process = tracks[track].process;
  uint32_t lo = 0, hi = l->count;
  while (lo < hi) {
    uint32_t m = lo + (hi - lo) / 2;
    if (item_before(&l->items[m], process, track, row))
      lo = m + 1;
    else
      hi = m;
  }
  if (lo < l->count && l->items[lo].kind == ST_LAYOUT_ROW && l->items[lo].row == row) return lo;
  if (l->group_count) {
    uint32_t g = st_trace_part_of_process(l->trace, process);
    if (g < l->group_count && l->group_collapsed[g]) return l->group_item[g]; /* MAX if hidden */
  }
  if (process < l->proc_count && l->collapsed[process]) {
    /* the section is the last item before lo in its process */
    uint32_t s = lo;
    while (s > 0 && l->items[s - 1].process == process && l->items[s - 1].kind != ST_LAYOUT_SECTION)
      s--;
    if (s > 0 && l->items[s - 1].kind == ST_LAYOUT_SECTION && l->items[s - 1].process == process)
      return s - 1;
  }
  return UINT32_MAX;
}
