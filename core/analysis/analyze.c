/* analyze.c: steps, devices, busy / idle / compute / comm / memcpy and
 * their overlap per step and device, host time, idle gaps, stragglers
 * (see analyze.h).
 *
 * Contents
 *   1. state, the class of a name / category (one byte per string)
 *   2. devices and host rows
 *   3. the sweep: running unions per class over the rows' events in start
 *      order, each finished interval added to the windows it meets
 *   4. gaps and the host slices overlapping them
 *   5. stragglers, op statistics, build
 * In their own files: the steps (analyze_steps.c), the kind of an event
 * (event_kinds.c), the rows' events in start order (row_merge.c), the idle
 * causes (idle_causes.c), the kernels' launchers and the runtime calls'
 * blocked time (analyze_ops.c), the JSON (analyze_json.c).
 *
 * Nothing is kept per event: a sweep holds one cursor per row and five
 * running intervals; each finished interval is added to the windows
 * (step windows sorted by start, the range's intervals) it overlaps, from
 * a pointer that only moves forward.
 */
#include "analyze.h"
#include "analyze_internal.h"

#include "bisect.h"
#include "json_out.h"
#include "memory.h"
#include "stat_tests.h"

#include <stdio.h> /* snprintf only */
#include <stdlib.h>
#include <string.h>

/* ==== 1. state and classes ================================================ */

enum { U_BUSY, U_COMPUTE, U_COMM, U_MEMCPY, U_CC, U_COUNT };

typedef struct win {
  int64_t t0, t1;
  uint32_t cell; /* where its sums go */
} win;

typedef struct cellsum {
  int64_t v[U_COUNT];
} cellsum;

/* "all-reduce", "all-reduce.3", "all-reduce-start", "send1"; not "sender" */
static int xla_collective(const char *s, size_t n) {
  static const char *const ops[] = {
      "all-reduce",         "all-gather",           "reduce-scatter", "all-to-all",
      "collective-permute", "collective-broadcast", "send",           "recv"};
  if (n && s[0] == '%') s++, n--;
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    size_t m = strlen(ops[k]);
    if (n < m || memcmp(s, ops[k], m) != 0) continue;
    if (n == m || s[m] == '.' || s[m] == '-' || (s[m] >= '0' && s[m] <= '9')) return 1;
  }
  return 0;
}

static uint8_t string_class(const char *s, size_t n) {
  uint8_t c = CLS_COMPUTE;
  if (has_ci(s, n, "memcpy") || has_ci(s, n, "memset"))
    c = CLS_MEMCPY;
  else if (has_ci(s, n, "nccl") || has_ci(s, n, "rccl") || xla_collective(s, n))
    c = CLS_COMM;
  if (an_eq(s, n, "gpu_user_annotation") || an_eq(s, n, "cuda_sync") ||
      an_eq(s, n, "cuda_profiler_range") || an_eq(s, n, "user_annotation"))
    c |= CAT_SKIP;
  else if (an_eq(s, n, "gpu_memcpy") || an_eq(s, n, "gpu_memset") || an_eq(s, n, "memcpy") ||
           an_eq(s, n, "memset"))
    c |= CAT_MEMCPY;
  return c;
}

/* The class of event i of a device row: U_COMPUTE / U_COMM / U_MEMCPY, or
 * -1 to skip it. */
static int event_class(const uint8_t *cls, uint32_t ncls, const st_row *r, uint32_t i) {
  uint32_t cat = r->cat[i], name = r->name[i];
  uint8_t cc = cat < ncls ? cls[cat] : 0, nc = name < ncls ? cls[name] : 0;
  if (cc & CAT_SKIP) return -1;
  if ((cc & (3 << 2)) == CAT_MEMCPY) return U_MEMCPY;
  switch (nc & 3) {
  case CLS_COMM: return U_COMM;
  case CLS_MEMCPY: return U_MEMCPY;
  default: return U_COMPUTE;
  }
}

/* ==== 2. devices and host rows ============================================ */

static int is_stream(const char *s, size_t n) {
  return (n > 7 && memcmp(s, "Stream #", 8) == 0) || (n > 7 && memcmp(s, "stream ", 7) == 0);
}

static int rl_push(const st_alloc *a, rowlist *l, uint32_t r) {
  if (l->n == l->cap) {
    void *nv = l->v;
    if (!st_grow32(a, &nv, &l->cap, l->n + 1, sizeof *l->v, 16)) return 0;
    l->v = nv;
  }
  l->v[l->n++] = r;
  return 1;
}

/* The device rows of process p (streams, else its "XLA Ops" line) into
 * *out; returns 1 if it is a device; *kineto: its streams are "stream N". */
static int device_rows(const st_alloc *a, const st_trace *t, uint32_t p, rowlist *out, int *kineto,
                       int *nomem) {
  uint32_t np, nt;
  const st_process *ps = st_trace_processes(t, &np);
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_strtab *strs = st_trace_strings(t);
  out->n = 0;
  *kineto = 0;
  for (int pass = 0; pass < 2 && out->n == 0; pass++) {
    for (uint32_t k = ps[p].first_track; k < ps[p].first_track + ps[p].track_count && k < nt; k++) {
      const st_track *tk = &tracks[k];
      if (tk->kind != ST_TRACK_SLICES) continue;
      size_t l;
      const char *s = st_strtab_get(strs, tk->name, &l);
      if (pass == 0 ? !is_stream(s, l) : !an_eq(s, l, "XLA Ops")) continue;
      if (pass == 0 && s[0] == 's') *kineto = 1;
      for (uint32_t r = tk->first_row; r < tk->first_row + tk->row_count; r++)
        if (!rl_push(a, out, r)) {
          *nomem = 1;
          return 0;
        }
    }
  }
  return out->n > 0;
}

static void device_name(const st_trace *t, uint32_t p, int kineto, char *buf) {
  uint32_t np;
  const st_process *ps = st_trace_processes(t, &np);
  const st_strtab *strs = st_trace_strings(t);
  size_t l, ll;
  const char *s = st_strtab_get(strs, ps[p].name, &l);
  const char *lab = st_strtab_get(strs, ps[p].labels, &ll);
  char tmp[ST_ANALYZE_NAME_CAP];
  if (ll && has_ci(lab, ll, "gpu"))
    snprintf(tmp, sizeof tmp, "%.*s", (int)(ll < 90 ? ll : 90), lab);
  else if (kineto && !has_ci(s, l, "/device:"))
    snprintf(tmp, sizeof tmp, "GPU %lld", (long long)ps[p].pid);
  else if (l)
    snprintf(tmp, sizeof tmp, "%.*s", (int)(l < 90 ? l : 90), s);
  else
    snprintf(tmp, sizeof tmp, "pid %lld", (long long)ps[p].pid);
  /* control characters out: names are untrusted */
  for (char *c = tmp; *c; c++)
    if ((unsigned char)*c < 0x20) *c = '?';
  memcpy(buf, tmp, sizeof tmp);
}

/* ==== 3. the sweep ======================================================== */

/* A set of windows sorted by start, each adding into a cell. */
typedef struct wset {
  const win *w;
  uint32_t n;
  uint32_t p[U_COUNT]; /* per union: windows before p end before what comes */
  cellsum *sums;
} wset;

static void ws_add(wset *ws, int u, int64_t a, int64_t b) {
  uint32_t j = ws->p[u];
  while (j < ws->n && ws->w[j].t1 <= a && j == ws->p[u]) ws->p[u] = ++j;
  for (; j < ws->n && ws->w[j].t0 < b; j++) {
    int64_t lo = a > ws->w[j].t0 ? a : ws->w[j].t0, hi = b < ws->w[j].t1 ? b : ws->w[j].t1;
    if (hi > lo) ws->sums[ws->w[j].cell].v[u] += hi - lo;
  }
}

static void ivl_push(ivlist *l, int64_t t0, int64_t t1) {
  if (l->nomem) return;
  if (l->n == l->cap) {
    void *nv = l->v;
    if (!st_grow32(l->a, &nv, &l->cap, l->n + 1, sizeof *l->v, 64)) {
      l->nomem = 1;
      return;
    }
    l->v = nv;
  }
  l->v[l->n++] = (ivl){t0, t1};
}

typedef struct gapctx {
  st_analysis *an;
  uint32_t device;
  const win *range; /* the device's range, disjoint, sorted */
  uint32_t nrange, rp;
  int64_t prev_end;
  ivlist *all; /* every gap */
  /* the idle split (analyze.h): the kernel ending the gap (has_next) */
  const st_trace *t;
  int64_t kwait;
  int has_next;
  uint32_t next_row, next_index;
  int64_t split[3]; /* host wait, kernel wait, other */
} gapctx;

enum { SPLIT_HOST, SPLIT_KERNEL, SPLIT_OTHER };

/* The launch of the kernel ending the gap: 1 and *at (the start of the
 * source of a flow into it), or 0. */
static int launch_of(const gapctx *g, int64_t *at) {
  uint32_t first;
  if (!g->t || !st_trace_flows_to(g->t, g->next_row, g->next_index, g->next_index + 1, &first))
    return 0;
  const st_flow *f = &st_trace_flows(g->t, NULL)[st_trace_flows_in(g->t, NULL)[first]];
  *at = st_trace_rows(g->t, NULL)[f->from_row].start[f->from_index];
  return 1;
}

/* The candidates are a heap, the worst (shortest; the later on ties) at
 * the root, each with its order of discovery (gap_seq); gaps_sort makes
 * it the list, longest first, earlier first on ties. The same top as an
 * insertion into a sorted list, in O(log max_gaps) a candidate. */
static int gap_worse(const st_analysis *an, uint32_t a, uint32_t b) {
  int64_t la = an->gaps[a].t1_ns - an->gaps[a].t0_ns, lb = an->gaps[b].t1_ns - an->gaps[b].t0_ns;
  return la < lb || (la == lb && an->gap_seq[a] > an->gap_seq[b]);
}

static void gap_swap(st_analysis *an, uint32_t a, uint32_t b) {
  st_an_gap g = an->gaps[a];
  an->gaps[a] = an->gaps[b];
  an->gaps[b] = g;
  uint64_t q = an->gap_seq[a];
  an->gap_seq[a] = an->gap_seq[b];
  an->gap_seq[b] = q;
}

static void gap_down(st_analysis *an, uint32_t i, uint32_t n) {
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, s = i;
    if (l < n && gap_worse(an, l, s)) s = l;
    if (r < n && gap_worse(an, r, s)) s = r;
    if (s == i) return;
    gap_swap(an, i, s);
    i = s;
  }
}

static void gap_candidate(st_analysis *an, uint32_t device, int64_t t0, int64_t t1) {
  int64_t len = t1 - t0;
  if (len <= 0 || !an->max_gaps) return;
  uint32_t n = an->ngaps, i;
  if (n == an->max_gaps) {
    if (an->gaps[0].t1_ns - an->gaps[0].t0_ns >= len) return;
    i = 0; /* the root replaced, then moved down */
  } else {
    i = an->ngaps++;
  }
  memset(&an->gaps[i], 0, sizeof an->gaps[i]);
  an->gaps[i].device = device;
  an->gaps[i].t0_ns = t0;
  an->gaps[i].t1_ns = t1;
  an->gap_seq[i] = an->gap_next++;
  if (i == 0 && n == an->max_gaps) {
    gap_down(an, 0, an->ngaps);
    return;
  }
  while (i > 0 && gap_worse(an, i, (i - 1) / 2)) { /* up */
    gap_swap(an, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}

/* The heap -> longest first (earlier first on ties): the worst goes last. */
static void gaps_sort(st_analysis *an) {
  for (uint32_t end = an->ngaps; end > 1; end--) {
    gap_swap(an, 0, end - 1);
    gap_down(an, 0, end - 1);
  }
}

/* The idle time (x, y) between two busy intervals, cut by the range. */
static void gap_between(gapctx *g, int64_t x, int64_t y) {
  uint32_t j = g->rp;
  while (j < g->nrange && g->range[j].t1 <= x && j == g->rp) g->rp = ++j;
  int cls = -1;
  for (; j < g->nrange && g->range[j].t0 < y; j++) {
    int64_t lo = x > g->range[j].t0 ? x : g->range[j].t0;
    int64_t hi = y < g->range[j].t1 ? y : g->range[j].t1;
    if (hi > lo) {
      gap_candidate(g->an, g->device, lo, hi);
      if (g->all) ivl_push(g->all, lo, hi);
      if (cls < 0) { /* the gap's class, once (the first piece: where it began) */
        int64_t at;
        if (y == INT64_MAX || !g->has_next)
          cls = SPLIT_OTHER;
        else if (x != INT64_MIN && y - x < g->kwait)
          cls = SPLIT_KERNEL;
        else
          cls = launch_of(g, &at) && at >= lo ? SPLIT_HOST : SPLIT_OTHER;
      }
      g->split[cls] += hi - lo;
    }
  }
}

typedef struct sweep {
  wset *sets[2];           /* the step windows and the range (either may be NULL) */
  const st_an_step *steps; /* host mode: the trace's steps (wrappers left out) */
  uint32_t nsteps;
  gapctx *gaps; /* NULL: no gaps (host sweep) */
  int64_t s[U_COUNT], e[U_COUNT];
  int on[U_COUNT];
  uint32_t row, index;   /* the event being fed (device mode) */
  uint32_t brow, bindex; /* the first event of the busy interval being built */
} sweep;

static void sw_flush(sweep *sw, int u) {
  for (int k = 0; k < 2; k++)
    if (sw->sets[k]) ws_add(sw->sets[k], u, sw->s[u], sw->e[u]);
  if (u == U_BUSY && sw->gaps) {
    sw->gaps->has_next = 1;
    sw->gaps->next_row = sw->brow;
    sw->gaps->next_index = sw->bindex;
    gap_between(sw->gaps, sw->gaps->prev_end, sw->s[u]);
    sw->gaps->prev_end = sw->e[u];
  }
}

static void sw_feed(sweep *sw, int u, int64_t s, int64_t e) {
  if (sw->on[u] && s <= sw->e[u]) {
    if (e > sw->e[u]) sw->e[u] = e;
    return;
  }
  if (sw->on[u]) sw_flush(sw, u);
  sw->on[u] = 1;
  sw->s[u] = s;
  sw->e[u] = e;
  if (u == U_BUSY) sw->brow = sw->row, sw->bindex = sw->index;
}

static void sw_end(sweep *sw) {
  for (int u = 0; u < U_COUNT; u++)
    if (sw->on[u]) sw_flush(sw, u);
  if (sw->gaps) {
    sw->gaps->has_next = 0;
    gap_between(sw->gaps, sw->gaps->prev_end, INT64_MAX);
  }
}

/* Sweeps rows list[0, n): device mode (classes, five unions) or host mode
 * (one union, step markers left out). */
static void run_sweep(merger *m, const st_row *rows, const uint32_t *list, uint32_t n,
                      const trace_ctx *c, int host, sweep *sw) {
  an_merge_init(m, rows, list, n);
  uint32_t r, i;
  while (an_merge_next(m, &r, &i)) {
    const st_row *row = &rows[r];
    int64_t s = row->start[i], d = row->dur[i];
    if (d <= 0) continue;
    int64_t e = st_sat_add(s, d);
    if (host) {
      uint32_t id = row->name[i];
      if (id < c->ncls && (c->cls[id] & MARKER)) continue;
      if (an_wraps_step(sw->steps, sw->nsteps, s, e)) continue;
      sw_feed(sw, U_BUSY, s, e);
      continue;
    }
    int u = event_class(c->cls, c->ncls, row, i);
    if (u < 0) continue;
    sw->row = r;
    sw->index = i;
    sw_feed(sw, U_BUSY, s, e);
    sw_feed(sw, u, s, e);
    if (u == U_COMM || u == U_COMPUTE) sw_feed(sw, U_CC, s, e);
  }
  sw_end(sw);
}

static int cmp_win(const void *x, const void *y) {
  const win *a = x, *b = y;
  if (a->t0 != b->t0) return a->t0 < b->t0 ? -1 : 1;
  return a->cell < b->cell ? -1 : a->cell > b->cell;
}

/* The union of sorted windows into out (disjoint, sorted); returns count. */
static uint32_t union_of(const win *w, uint32_t n, win *out) {
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (w[i].t1 <= w[i].t0) continue;
    if (m && w[i].t0 <= out[m - 1].t1) {
      if (w[i].t1 > out[m - 1].t1) out[m - 1].t1 = w[i].t1;
    } else {
      out[m] = w[i];
      out[m++].cell = 0;
    }
  }
  return m;
}

static void to_times(const cellsum *s, int64_t wall, st_an_times *t) {
  t->wall_ns = wall;
  t->busy_ns = s->v[U_BUSY];
  t->compute_ns = s->v[U_COMPUTE];
  t->comm_ns = s->v[U_COMM];
  t->memcpy_ns = s->v[U_MEMCPY];
  t->overlap_ns = s->v[U_COMM] + s->v[U_COMPUTE] - s->v[U_CC];
  if (t->overlap_ns < 0) t->overlap_ns = 0;
}

/* One device: its windows, the sweep, its totals and cells. */
static st_code analyze_device(st_analysis *an, trace_ctx *c, uint32_t k, st_an_device *dev,
                              const rowlist *rl, merger *m, ivlist *all) {
  const st_alloc *a = &an->alloc;
  uint32_t ns = an->step_count[k], first = an->first_step[k];
  uint32_t nw = ns ? ns : 1;
  win *w = st_calloc(a, nw, sizeof *w), *range = st_calloc(a, nw, sizeof *range);
  cellsum *sums = st_calloc(a, (size_t)ns + 1, sizeof *sums); /* cells, then the range */
  int64_t *walls = st_calloc(a, nw, sizeof *walls);
  if (!w || !range || !sums || !walls) {
    st_free(a, w);
    st_free(a, range);
    st_free(a, sums);
    st_free(a, walls);
    return ST_ERR_NOMEM;
  }
  uint32_t nr;
  const st_row *rows = st_trace_rows(c->t, &nr);
  uint32_t nrange;
  if (ns) {
    for (uint32_t j = 0; j < ns; j++) {
      const st_an_step *st = &an->steps[first + j];
      w[j].t0 = st->t0_ns;
      w[j].t1 = st->t1_ns;
      w[j].cell = j;
      if (c->source == ST_STEPS_STEPS_LINE)
        an_own_window(c, dev->process, st->number, &w[j].t0, &w[j].t1);
      an->cells[dev->first_cell + j].t0_ns = w[j].t0;
      an->cells[dev->first_cell + j].t1_ns = w[j].t1;
      walls[j] = w[j].t1 - w[j].t0;
    }
    qsort(w, ns, sizeof *w, cmp_win);
    nrange = union_of(w, ns, range);
  } else {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint32_t i = 0; i < rl->n; i++) {
      const st_row *r = &rows[rl->v[i]];
      if (!r->count) continue;
      if (r->start[0] < lo) lo = r->start[0];
      int64_t e = st_sat_add(r->start[r->count - 1], r->dur[r->count - 1]);
      if (e > hi) hi = e;
    }
    nrange = 0;
    if (hi > lo) range[nrange++] = (win){lo, hi, 0};
    walls[0] = hi > lo ? hi - lo : 0;
  }
  for (uint32_t j = 0; j < nrange; j++) range[j].cell = ns; /* the range's sum */
  /* disjoint steps (the usual case): the range's sums are the steps' sums,
   * so the sweep adds to one set only */
  int disjoint = ns > 0;
  for (uint32_t j = 1; j < ns && disjoint; j++) disjoint = w[j].t0 >= w[j - 1].t1;
  wset ws_steps = {w, ns, {0}, sums}, ws_range = {range, nrange, {0}, sums};
  gapctx g;
  memset(&g, 0, sizeof g);
  g.an = an;
  g.device = (uint32_t)(dev - an->devices);
  g.range = range;
  g.nrange = nrange;
  g.prev_end = INT64_MIN;
  g.all = all;
  g.t = c->t;
  g.kwait = an->kernel_wait_ns;
  sweep sw;
  memset(&sw, 0, sizeof sw);
  sw.sets[0] = ns ? &ws_steps : NULL;
  sw.sets[1] = disjoint ? NULL : &ws_range;
  sw.gaps = &g;
  run_sweep(m, rows, rl->v, rl->n, c, 0, &sw);
  int64_t rlen = 0;
  for (uint32_t j = 0; j < nrange; j++) rlen += range[j].t1 - range[j].t0;
  for (uint32_t j = 0; disjoint && j < ns; j++)
    for (int u = 0; u < U_COUNT; u++) sums[ns].v[u] += sums[j].v[u];
  to_times(&sums[ns], rlen, &dev->total);
  dev->host_wait_ns = g.split[SPLIT_HOST];
  dev->kernel_wait_ns = g.split[SPLIT_KERNEL];
  dev->other_wait_ns = g.split[SPLIT_OTHER];
  for (uint32_t j = 0; j < ns; j++) {
    st_an_cell *cell = &an->cells[dev->first_cell + j];
    to_times(&sums[j], cell->t1_ns - cell->t0_ns, &cell->t);
    dev->steps_with_work += cell->t.busy_ns > 0;
  }
  uint32_t nwall = ns ? ns : 1;
  int64_t sum = 0;
  for (uint32_t j = 0; j < nwall; j++) sum += walls[j];
  dev->step_ns = sum / (int64_t)nwall;
  st_stat_sort_i64(walls, nwall);
  dev->step_p50_ns = walls[st_stat_rank(50, nwall)];
  dev->step_p90_ns = walls[st_stat_rank(90, nwall)];
  st_free(a, w);
  st_free(a, range);
  st_free(a, sums);
  st_free(a, walls);
  return ST_OK;
}

/* The host's union per step of trace k. */
static st_code analyze_host(st_analysis *an, trace_ctx *c, uint32_t k, const rowlist *host,
                            merger *m) {
  uint32_t ns = an->step_count[k], first = an->first_step[k];
  if (!ns || !host->n) return ST_OK;
  const st_alloc *a = &an->alloc;
  win *w = st_calloc(a, ns, sizeof *w);
  cellsum *sums = st_calloc(a, ns, sizeof *sums);
  if (!w || !sums) {
    st_free(a, w);
    st_free(a, sums);
    return ST_ERR_NOMEM;
  }
  for (uint32_t j = 0; j < ns; j++)
    w[j] = (win){an->steps[first + j].t0_ns, an->steps[first + j].t1_ns, j};
  wset ws = {w, ns, {0}, sums};
  sweep sw;
  memset(&sw, 0, sizeof sw);
  sw.sets[0] = &ws;
  sw.steps = an->steps + first;
  sw.nsteps = ns;
  uint32_t nr;
  const st_row *rows = st_trace_rows(c->t, &nr);
  run_sweep(m, rows, host->v, host->n, c, 1, &sw);
  for (uint32_t j = 0; j < ns; j++) an->steps[first + j].host_ns = sums[j].v[U_BUSY];
  st_free(a, w);
  st_free(a, sums);
  return ST_OK;
}

/* ==== 4. host slices in gaps ============================================== */

/* 1 if event i of row `row` has a child (the row below, same track)
 * overlapping [a, b): then it is not a leaf frame there. */
static int child_over(const st_trace *t, uint32_t row, int64_t a, int64_t b) {
  uint32_t nr, nt;
  const st_row *rows = st_trace_rows(t, &nr);
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_row *r = &rows[row];
  if (r->track >= nt) return 0;
  uint32_t cr = tracks[r->track].first_row + r->depth + 1;
  if (cr >= tracks[r->track].first_row + tracks[r->track].row_count || cr >= nr ||
      rows[cr].depth != r->depth + 1)
    return 0;
  uint32_t j = st_row_first_end_gt(&rows[cr], a);
  return j < rows[cr].count && rows[cr].start[j] < b;
}

static void gap_host(st_analysis *an, st_an_gap *g, uint32_t k, const trace_ctx *c,
                     const rowlist *host) {
  uint32_t nr, nt;
  const st_row *rows = st_trace_rows(c->t, &nr);
  st_trace_tracks(c->t, &nt);
  for (uint32_t h = 0; h < host->n; h++) {
    const st_row *r = &rows[host->v[h]];
    uint32_t lo = st_row_first_end_gt(r, g->t0_ns), hi = st_row_first_start_ge(r, g->t1_ns);
    for (uint32_t i = lo; i < hi; i++) {
      uint32_t id = r->name[i];
      if (id < c->ncls && (c->cls[id] & MARKER)) continue;
      int64_t s = r->start[i], e = st_sat_add(s, r->dur[i]);
      if (an->step_count[k] &&
          an_wraps_step(an->steps + an->first_step[k], an->step_count[k], s, e))
        continue;
      int64_t p0 = s > g->t0_ns ? s : g->t0_ns, p1 = e < g->t1_ns ? e : g->t1_ns, ov = p1 - p0;
      if (ov <= 0 || child_over(c->t, host->v[h], p0, p1)) continue; /* leaf frames only */
      /* keep the largest overlaps; deeper first on ties */
      uint32_t n = g->host_count, at = n < ST_ANALYZE_GAP_HOST ? n : ST_ANALYZE_GAP_HOST;
      while (at > 0) {
        const st_an_host_slice *p = &g->host[at - 1];
        uint32_t pd = rows[p->ref.row].depth;
        if (p->overlap_ns > ov || (p->overlap_ns == ov && pd >= r->depth)) break;
        at--;
      }
      if (at >= ST_ANALYZE_GAP_HOST) continue;
      uint32_t last = n < ST_ANALYZE_GAP_HOST ? n : ST_ANALYZE_GAP_HOST - 1;
      for (uint32_t q = last; q > at; q--) g->host[q] = g->host[q - 1];
      g->host[at].ref = (st_event_ref){host->v[h], i};
      g->host[at].overlap_ns = ov;
      if (n < ST_ANALYZE_GAP_HOST) g->host_count++;
    }
  }
}

/* ==== 5. stragglers, ops, build ========================================== */

/* The op statistics ask each event's kind through this (opstats.h). */
typedef struct kind_cb {
  const st_analysis *an;
  const trace_ctx *ctx;
} kind_cb;

static uint8_t kind_fn(void *p, uint32_t k, uint32_t row, uint32_t i) {
  const kind_cb *cb = p;
  return an_kind_at(cb->an, &cb->ctx[k], k, row, i);
}

static st_code stragglers(st_analysis *an) {
  const st_alloc *a = &an->alloc;
  an->ranks = st_calloc(a, an->n, sizeof *an->ranks);
  double *v = st_calloc(a, an->n, sizeof *v), *s = st_calloc(a, an->n, sizeof *s);
  uint32_t maxs = 1;
  for (uint32_t k = 0; k < an->n; k++)
    if (an->step_count[k] > maxs) maxs = an->step_count[k];
  double *per = st_calloc(a, maxs, sizeof *per);
  if (!an->ranks || !v || !s || !per) {
    st_free(a, v);
    st_free(a, s);
    st_free(a, per);
    return ST_ERR_NOMEM;
  }
  uint32_t m = 0;
  for (uint32_t k = 0; k < an->n; k++) {
    st_an_rank *r = &an->ranks[k];
    r->trace = k;
    uint32_t nd = 0, ns = an->step_count[k];
    double tot = 0;
    for (uint32_t j = 0; j < ns; j++) per[j] = 0;
    for (uint32_t d = 0; d < an->ndevices; d++) {
      const st_an_device *dev = &an->devices[d];
      if (dev->trace != k) continue;
      nd++;
      tot += (double)dev->total.compute_ns;
      for (uint32_t j = 0; j < ns; j++)
        per[j] += (double)an->cells[dev->first_cell + j].t.compute_ns;
    }
    if (!nd) continue;
    r->has_value = 1;
    if (ns) {
      for (uint32_t j = 0; j < ns; j++) per[j] /= nd;
      r->value_ns = st_stat_median(per, ns);
    } else {
      r->value_ns = tot / nd;
    }
    v[m++] = r->value_ns;
  }
  if (m >= 3) {
    double med = st_stat_median(v, m);
    double mad = st_stat_mad(v, m, s);
    double scale = 1.4826 * mad;
    if (scale < 0.02 * med) scale = 0.02 * med;
    if (scale < 1000) scale = 1000;
    an->rank_median = med;
    an->rank_scale = scale;
    for (uint32_t k = 0; k < an->n; k++) {
      st_an_rank *r = &an->ranks[k];
      if (!r->has_value) continue;
      r->score = (r->value_ns - med) / scale;
      r->straggler = r->score > ST_ANALYZE_STRAGGLER_SCORE;
    }
  }
  st_free(a, v);
  st_free(a, s);
  st_free(a, per);
  return ST_OK;
}

static st_code op_stats(st_analysis *an, const st_analyze_opts *o, const trace_ctx *ctx,
                        st_error *err) {
  const st_alloc *a = &an->alloc;
  int64_t *t0 = NULL, *t1 = NULL;
  if (o->ops_range || o->ops_has_step) {
    t0 = st_calloc(a, an->n, sizeof *t0);
    t1 = st_calloc(a, an->n, sizeof *t1);
    if (!t0 || !t1) {
      st_free(a, t0);
      st_free(a, t1);
      return ST_ERR_NOMEM;
    }
    for (uint32_t k = 0; k < an->n; k++) {
      t0[k] = o->ops_range ? o->ops_t0_ns : INT64_MIN;
      t1[k] = o->ops_range ? o->ops_t1_ns : INT64_MIN;
      uint32_t j = o->ops_has_step ? st_analysis_find_step(an, k, o->ops_step) : UINT32_MAX;
      if (j != UINT32_MAX) {
        t0[k] = an->steps[j].t0_ns;
        t1[k] = an->steps[j].t1_ns;
      }
    }
  }
  kind_cb cb = {an, ctx};
  an->ops = st_opstats_build_kinds(a, an->traces, an->n, t0, t1, o->top_ops ? o->top_ops : 20,
                                   kind_fn, &cb, err);
  st_free(a, t0);
  st_free(a, t1);
  return an->ops ? ST_OK : ST_ERR_NOMEM;
}

static void free_ctx(const st_alloc *a, trace_ctx *c) {
  st_free(a, c->raw);
  c->raw = NULL;
  st_free(a, c->kcls);
  st_free(a, c->rowk);
  st_free(a, c->blocked);
  c->kcls = c->rowk = NULL;
  c->blocked = NULL;
}

/* Classes, steps, devices, sweeps and gaps of trace k. */
static st_code analyze_trace(st_analysis *an, uint32_t k, const st_analyze_opts *o,
                             rowlist *host_of_k, trace_ctx *ctx) {
  trace_ctx *c = &ctx[k];
  const st_alloc *a = &an->alloc;
  const st_trace *t = an->traces[k];
  const st_strtab *strs = st_trace_strings(t);
  c->t = t;
  c->ncls = st_strtab_count(strs);
  c->cls = st_calloc(a, c->ncls ? c->ncls : 1, 1);
  c->kcls = st_calloc(a, c->ncls ? c->ncls : 1, 1);
  c->blocked = st_calloc(a, c->ncls ? c->ncls : 1, sizeof *c->blocked);
  if (!c->cls || !c->kcls || !c->blocked) return ST_ERR_NOMEM;
  /* the parts of a merged view share one string table: classify it once */
  const trace_ctx *same = NULL;
  for (uint32_t j = 0; j < k && !same; j++)
    if (st_trace_strings(an->traces[j]) == strs && ctx[j].ncls == c->ncls) same = &ctx[j];
  for (uint32_t i = 0; i < c->ncls; i++) {
    size_t l;
    const char *s = same ? NULL : st_strtab_get(strs, i, &l);
    c->cls[i] = same ? (uint8_t)(same->cls[i] & ~MARKER) : string_class(s, l);
    c->kcls[i] = same ? same->kcls[i] : an_kind_class(s, l);
  }
  st_code rc = an_find_steps(an, c, k, o);
  if (rc != ST_OK) return rc;
  an->source[k] = c->source;
  uint32_t np, nt, nr;
  const st_process *ps = st_trace_processes(t, &np);
  const st_track *tracks = st_trace_tracks(t, &nt);
  st_trace_rows(t, &nr);
  rowlist dev = {0};
  uint8_t *is_dev_row = st_calloc(a, nr ? nr : 1, 1);
  c->rowk = st_calloc(a, nr ? nr : 1, 1);
  if (!is_dev_row || !c->rowk) {
    st_free(a, is_dev_row);
    return ST_ERR_NOMEM;
  }
  uint32_t maxk = 1;
  uint32_t first_dev = an->ndevices;
  int nomem = 0;
  for (uint32_t p = 0; p < np && !nomem; p++) {
    int kineto = 0;
    if (!device_rows(a, t, p, &dev, &kineto, &nomem)) continue;
    if (an->ndevices == an->cap_devices) {
      void *nd = an->devices;
      if (!st_grow32(a, &nd, &an->cap_devices, an->ndevices + 1, sizeof *an->devices, 16)) {
        nomem = 1;
        break;
      }
      an->devices = nd;
    }
    st_an_device *d = &an->devices[an->ndevices++];
    memset(d, 0, sizeof *d);
    d->trace = k;
    d->process = p;
    d->rows = dev.n;
    d->first_step = an->first_step[k];
    d->step_count = an->step_count[k];
    device_name(t, p, kineto, d->name);
    for (uint32_t i = 0; i < dev.n; i++) is_dev_row[dev.v[i]] = 1;
    if (dev.n > maxk) maxk = dev.n;
  }
  /* host rows: slice tracks that are not device rows, outside /device: processes */
  const st_strtab *s = strs;
  for (uint32_t tk = 0; tk < nt && !nomem; tk++) {
    if (tracks[tk].kind != ST_TRACK_SLICES) continue;
    size_t l;
    const char *pn = st_strtab_get(s, ps[tracks[tk].process].name, &l);
    size_t tl;
    const char *tn = st_strtab_get(s, tracks[tk].name, &tl);
    uint8_t rk = an_eq(tn, tl, "Steps") || an_eq(tn, tl, "XLA Modules") ? ROW_WRAPPER
                 : an_eq(tn, tl, "XLA Ops")                             ? ROW_DEVICE
                                                                        : ROW_DEVICE_OTHER;
    int device_process = has_ci(pn, l, "/device:");
    for (uint32_t r = tracks[tk].first_row; r < tracks[tk].first_row + tracks[tk].row_count; r++)
      c->rowk[r] = is_dev_row[r] ? ROW_DEVICE : device_process ? rk : ROW_HOST;
    if (device_process) continue;
    for (uint32_t r = tracks[tk].first_row; r < tracks[tk].first_row + tracks[tk].row_count; r++)
      if (!is_dev_row[r] && !rl_push(a, host_of_k, r)) nomem = 1;
  }
  if (host_of_k->n > maxk) maxk = host_of_k->n;
  /* cells of this trace's devices */
  uint32_t ns = an->step_count[k], ndev = an->ndevices - first_dev;
  if (!nomem && ns && ndev) {
    size_t need = (size_t)an->ncells + (size_t)ns * ndev;
    st_an_cell *nc = need < UINT32_MAX ? st_realloc_array(a, an->cells, need, sizeof *nc) : NULL;
    if (!nc)
      nomem = 1;
    else {
      an->cells = nc;
      memset(an->cells + an->ncells, 0, ((size_t)ns * ndev) * sizeof *nc);
    }
  }
  merger m;
  memset(&m, 0, sizeof m);
  m.pos = st_calloc(a, maxk, sizeof *m.pos);
  m.heap = st_calloc(a, maxk, sizeof *m.heap);
  if (!m.pos || !m.heap) nomem = 1;
  for (uint32_t d = first_dev; !nomem && d < an->ndevices; d++) {
    st_an_device *dv = &an->devices[d];
    dv->first_cell = an->ncells;
    if (ns) an->ncells += ns;
    int kin;
    device_rows(a, t, dv->process, &dev, &kin, &nomem);
    ivlist all = {a, NULL, 0, 0, 0};
    if (!nomem && analyze_device(an, c, k, dv, &dev, &m, &all) != ST_OK) nomem = 1;
    if (!nomem && !all.nomem && an_idle_causes(an, c, k, d, host_of_k, &all, &m) != ST_OK)
      nomem = 1;
    if (all.nomem) nomem = 1;
    st_free(a, all.v);
  }
  if (!nomem && analyze_host(an, c, k, host_of_k, &m) != ST_OK) nomem = 1;
  st_free(a, m.pos);
  st_free(a, m.heap);
  st_free(a, dev.v);
  st_free(a, is_dev_row);
  return nomem ? ST_ERR_NOMEM : ST_OK;
}

st_analysis *st_analyze(const st_alloc *alloc, const st_trace *const *traces, uint32_t n,
                        const st_analyze_opts *opts, st_error *err) {
  st_alloc al = alloc ? *alloc : (st_alloc){0};
  st_analyze_opts o;
  if (opts)
    o = *opts;
  else
    memset(&o, 0, sizeof o);
  if (!traces || !n) {
    st_error_set(err, ST_ERR_ARG, 0, "analyze: no traces");
    return NULL;
  }
  for (uint32_t k = 0; k < n; k++)
    if (!traces[k]) {
      st_error_set(err, ST_ERR_ARG, 0, "analyze: a trace is missing");
      return NULL;
    }
  st_analysis *an = st_calloc(&al, 1, sizeof *an);
  if (!an) {
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  an->alloc = al;
  an->n = n;
  an->max_gaps = o.max_gaps ? o.max_gaps : 10;
  an->top_ops = o.top_ops ? o.top_ops : 20;
  an->kernel_wait_ns = o.kernel_wait_ns > 0 ? o.kernel_wait_ns : ST_ANALYZE_KERNEL_WAIT_NS;
  an->traces = st_calloc(&al, n, sizeof *an->traces);
  an->source = st_calloc(&al, n, sizeof *an->source);
  an->first_step = st_calloc(&al, n, sizeof *an->first_step);
  an->step_count = st_calloc(&al, n, sizeof *an->step_count);
  an->gaps = st_calloc(&al, an->max_gaps, sizeof *an->gaps);
  an->gap_seq = st_calloc(&al, an->max_gaps, sizeof *an->gap_seq);
  trace_ctx *ctx = st_calloc(&al, n, sizeof *ctx);
  rowlist *host = st_calloc(&al, n, sizeof *host);
  st_code rc = an->traces && an->source && an->first_step && an->step_count && an->gaps &&
                       an->gap_seq && ctx && host
                   ? ST_OK
                   : ST_ERR_NOMEM;
  for (uint32_t k = 0; rc == ST_OK && k < n; k++) an->traces[k] = traces[k];
  for (uint32_t k = 0; rc == ST_OK && k < n; k++) {
    uint32_t gaps_before = an->ngaps;
    (void)gaps_before;
    rc = analyze_trace(an, k, &o, &host[k], ctx);
  }
  if (rc == ST_OK) gaps_sort(an);
  st_free(&al, an->gap_seq);
  an->gap_seq = NULL;
  for (uint32_t g = 0; rc == ST_OK && g < an->ngaps; g++) {
    uint32_t k = an->devices[an->gaps[g].device].trace;
    gap_host(an, &an->gaps[g], k, &ctx[k], &host[k]);
  }
  if (rc == ST_OK) rc = stragglers(an);
  if (rc == ST_OK && !o.no_ops) rc = op_stats(an, &o, ctx, err);
  if (rc == ST_OK && !o.no_ops) rc = an_op_extras(an, ctx);
  if (rc == ST_OK && !(an->mem = st_memory_analyze(&al, traces, n, err))) rc = ST_ERR_NOMEM;
  for (uint32_t k = 0; ctx && k < n; k++) {
    free_ctx(&al, &ctx[k]);
    st_free(&al, ctx[k].cls);
    if (host) st_free(&al, host[k].v);
  }
  st_free(&al, ctx);
  st_free(&al, host);
  if (rc != ST_OK) {
    st_analysis_destroy(an);
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  return an;
}

const struct st_memory *st_analysis_memory(const st_analysis *an) { return an ? an->mem : NULL; }

void st_analysis_destroy(st_analysis *an) {
  if (!an) return;
  st_alloc a = an->alloc;
  st_opstats_destroy(an->ops);
  st_memory_destroy(an->mem);
  st_free(&a, an->traces);
  st_free(&a, an->source);
  st_free(&a, an->steps);
  st_free(&a, an->first_step);
  st_free(&a, an->step_count);
  st_free(&a, an->devices);
  st_free(&a, an->cells);
  st_free(&a, an->gaps);
  st_free(&a, an->gap_seq);
  st_free(&a, an->ranks);
  st_free(&a, an->op_extra);
  st_free(&a, an->causes);
  st_free(&a, an->cgaps);
  st_free(&a, an);
}

uint32_t st_analysis_traces(const st_analysis *an) { return an ? an->n : 0; }
const st_trace *st_analysis_trace(const st_analysis *an, uint32_t k) {
  return an && k < an->n ? an->traces[k] : NULL;
}
st_step_source st_analysis_step_source(const st_analysis *an, uint32_t k) {
  return an && k < an->n ? an->source[k] : ST_STEPS_NONE;
}
const st_an_step *st_analysis_steps(const st_analysis *an, uint32_t *count) {
  if (count) *count = an ? an->nsteps : 0;
  return an ? an->steps : NULL;
}
const st_an_device *st_analysis_devices(const st_analysis *an, uint32_t *count) {
  if (count) *count = an ? an->ndevices : 0;
  return an ? an->devices : NULL;
}
const st_an_cell *st_analysis_cells(const st_analysis *an, uint32_t *count) {
  if (count) *count = an ? an->ncells : 0;
  return an ? an->cells : NULL;
}
const st_an_gap *st_analysis_gaps(const st_analysis *an, uint32_t *count) {
  if (count) *count = an ? an->ngaps : 0;
  return an ? an->gaps : NULL;
}
const st_an_rank *st_analysis_ranks(const st_analysis *an, double *median_ns, double *scale_ns) {
  if (median_ns) *median_ns = an ? an->rank_median : 0;
  if (scale_ns) *scale_ns = an ? an->rank_scale : 0;
  return an ? an->ranks : NULL;
}
const st_opstats *st_analysis_ops(const st_analysis *an) { return an ? an->ops : NULL; }
const st_an_op_extra *st_analysis_op_extra(const st_analysis *an) {
  return an ? an->op_extra : NULL;
}
const st_an_cause *st_analysis_causes(const st_analysis *an, uint32_t *count) {
  if (count) *count = an ? an->ncauses : 0;
  return an ? an->causes : NULL;
}
const st_an_span *st_analysis_cause_gaps(const st_analysis *an, uint32_t *count) {
  if (count) *count = an ? an->ncgaps : 0;
  return an ? an->cgaps : NULL;
}

st_code st_analysis_device_rows(const st_analysis *an, const st_alloc *alloc, uint32_t d,
                                uint32_t **rows, uint32_t *n) {
  *rows = NULL;
  *n = 0;
  if (!an || d >= an->ndevices) return ST_ERR_ARG;
  const st_an_device *dv = &an->devices[d];
  rowlist l = {0};
  int kineto, nomem = 0;
  device_rows(alloc, an->traces[dv->trace], dv->process, &l, &kineto, &nomem);
  if (nomem) {
    st_free(alloc, l.v);
    return ST_ERR_NOMEM;
  }
  *rows = l.v;
  *n = l.n;
  return ST_OK;
}

uint32_t st_analysis_find_step(const st_analysis *an, uint32_t k, int64_t number) {
  if (!an || k >= an->n) return UINT32_MAX;
  for (uint32_t j = 0; j < an->step_count[k]; j++)
    if (an->steps[an->first_step[k] + j].number == number) return an->first_step[k] + j;
  return UINT32_MAX;
}
