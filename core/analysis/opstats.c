/* opstats.c: op statistics with percentiles and duration histograms over
 * one or several traces (see opstats.h).
 *
 * Contents
 *   1. the events counted (slice and async rows, a range each)
 *   2. build: st_agg per trace, join by name bytes, keep the top, gather
 *      the kept names' durations, select their percentiles
 *   3. histograms
 */
#include "opstats.h"

#include "stat_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== 1. the events counted ============================================== */

/* The index range of row r's events counted in [t0, t1): 0 if the row is
 * not of a slice or async track. */
static int row_range(const st_trace *t, const st_row *r, int64_t t0, int64_t t1, uint32_t *lo,
                     uint32_t *hi) {
  uint32_t nt;
  const st_track *tracks = st_trace_tracks(t, &nt);
  if (r->track >= nt) return 0;
  uint8_t k = tracks[r->track].kind;
  if (k != ST_TRACK_SLICES && k != ST_TRACK_ASYNC) return 0;
  *lo = st_row_first_end_gt(r, t0);
  *hi = st_row_first_start_ge(r, t1);
  return *lo < *hi;
}

static int64_t range_t0(const int64_t *t0, uint32_t k) { return t0 ? t0[k] : INT64_MIN; }
static int64_t range_t1(const int64_t *t1, uint32_t k) { return t1 ? t1[k] : INT64_MAX; }

/* The events counted of one trace, as index ranges of its rows: those of
 * each slice / async row intersecting [t0, t1), or a selection's spans on
 * such rows (sel != NULL). */
typedef struct spans {
  const st_trace *t;
  const st_row *rows;
  uint32_t nr;
  const st_sel_span *sp;
  uint32_t nsp;
  const st_selection *sel;
  int64_t t0, t1;
  uint32_t i;
} spans;

static spans spans_of(const st_trace *t, const st_selection *sel, int64_t t0, int64_t t1) {
  spans s = {t, NULL, 0, NULL, 0, sel, t0, t1, 0};
  s.rows = st_trace_rows(t, &s.nr);
  if (sel) s.sp = st_selection_spans(sel, &s.nsp);
  return s;
}

/* The next range: 1 and *row, *lo, *hi; 0 at the end. */
static int spans_next(spans *s, uint32_t *row, uint32_t *lo, uint32_t *hi) {
  if (!s->sel) {
    while (s->i < s->nr) {
      uint32_t r = s->i++;
      if (row_range(s->t, &s->rows[r], s->t0, s->t1, lo, hi)) {
        *row = r;
        return 1;
      }
    }
    return 0;
  }
  uint32_t nt;
  const st_track *tracks = st_trace_tracks(s->t, &nt);
  while (s->i < s->nsp) {
    const st_sel_span *p = &s->sp[s->i++];
    if (p->row >= s->nr || s->rows[p->row].track >= nt) continue;
    uint8_t k = tracks[s->rows[p->row].track].kind;
    if (k != ST_TRACK_SLICES && k != ST_TRACK_ASYNC) continue;
    uint32_t h = p->hi < s->rows[p->row].count ? p->hi : s->rows[p->row].count;
    if (p->lo >= h) continue;
    *row = p->row;
    *lo = p->lo;
    *hi = h;
    return 1;
  }
  return 0;
}

/* ==== 2. build =========================================================== */

struct st_opstats {
  st_alloc alloc;
  st_opstat *rows;
  uint32_t count, names;
};

typedef struct entry { /* one trace's agg row, then the joined row */
  const char *name;
  size_t len;
  uint32_t trace, id, group;
  uint8_t kinds; /* 1 << st_op_kind of its events */
  st_agg_row r;
} entry;

typedef struct kinder {
  st_opstats_kind_fn fn;
  void *ctx;
} kinder;

static int name_cmp(const char *a, size_t na, const char *b, size_t nb) {
  int k = memcmp(a, b, na < nb ? na : nb);
  if (k) return k < 0 ? -1 : 1;
  return na < nb ? -1 : na > nb ? 1 : 0;
}

static int cmp_entry_name(const void *x, const void *y) {
  const entry *a = x, *b = y;
  int k = name_cmp(a->name, a->len, b->name, b->len);
  return k ? k : a->trace < b->trace ? -1 : a->trace > b->trace;
}

static int cmp_stat_self(const void *x, const void *y) {
  const st_opstat *a = x, *b = y;
  if (a->self_ns != b->self_ns) return a->self_ns > b->self_ns ? -1 : 1;
  return name_cmp(a->name, a->name_len, b->name, b->name_len);
}

/* Aggregates trace k into entries (appended); ST_OK or ST_ERR_NOMEM. */
static st_code agg_trace(const st_alloc *a, const st_trace *t, uint32_t k, spans sp, entry **out,
                         size_t *n, size_t *cap, const kinder *kd) {
  st_agg *g = st_agg_create(a, t);
  if (!g) return ST_ERR_NOMEM;
  uint32_t nids = st_strtab_count(st_trace_strings(t));
  uint8_t *mask = kd && kd->fn ? st_calloc(a, nids ? nids : 1, 1) : NULL;
  if (kd && kd->fn && !mask) {
    st_agg_destroy(g);
    return ST_ERR_NOMEM;
  }
  const st_row *rows = st_trace_rows(t, NULL);
  uint32_t r, lo, hi;
  while (spans_next(&sp, &r, &lo, &hi)) {
    if (st_agg_add(g, r, lo, hi) != ST_OK) {
      st_agg_destroy(g);
      st_free(a, mask);
      return ST_ERR_NOMEM;
    }
    for (uint32_t i = lo; mask && i < hi; i++) {
      uint32_t id = rows[r].name[i];
      uint8_t kind = kd->fn(kd->ctx, k, r, i);
      if (id < nids && kind < ST_KIND_COUNT) mask[id] |= (uint8_t)(1u << kind);
    }
  }
  uint32_t m;
  const st_agg_row *ar = st_agg_rows(g, &m);
  void *v = *out;
  int ok = st_grow(a, &v, cap, *n + m, sizeof **out);
  *out = v;
  if (!ok) {
    st_agg_destroy(g);
    st_free(a, mask);
    return ST_ERR_NOMEM;
  }
  const st_strtab *strs = st_trace_strings(t);
  for (uint32_t i = 0; i < m; i++) {
    entry *e = &(*out)[(*n)++];
    e->name = st_strtab_get(strs, ar[i].name, &e->len);
    e->trace = k;
    e->id = ar[i].name;
    e->kinds = mask && ar[i].name < nids ? mask[ar[i].name] : 0;
    e->r = ar[i];
  }
  st_agg_destroy(g);
  st_free(a, mask);
  return ST_OK;
}

/* A name's kind from the kinds of its events (opstats.h). */
static uint8_t kind_of(uint8_t mask) {
  static const uint8_t order[] = {ST_KIND_WRAPPER, ST_KIND_ANNOTATION, ST_KIND_KERNEL,
                                  ST_KIND_RUNTIME};
  for (size_t i = 0; i < sizeof order; i++)
    if (mask & (1u << order[i])) return order[i];
  return ST_KIND_HOST;
}

const char *st_op_kind_name(st_op_kind k) {
  static const char *const names[ST_KIND_COUNT] = {"host", "kernel", "runtime", "annotation",
                                                   "wrapper"};
  return (unsigned)k < ST_KIND_COUNT ? names[k] : "host";
}

/* Joins entries with equal names: e[i].group = index of the joined row
 * (rows[] gets count, total, self, min, max, kind). Returns the joined count. */
static uint32_t join(entry *e, size_t n, st_opstat *rows) {
  uint8_t mask = 0;
  uint32_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || name_cmp(e[i].name, e[i].len, e[i - 1].name, e[i - 1].len) != 0) {
      st_opstat *s = &rows[m++];
      memset(s, 0, sizeof *s);
      s->name = e[i].name;
      s->name_len = e[i].len;
      s->min_ns = INT64_MAX;
      s->max_ns = INT64_MIN;
      mask = 0;
    }
    st_opstat *s = &rows[m - 1];
    mask |= e[i].kinds;
    s->kind = kind_of(mask);
    e[i].group = m - 1;
    s->count += e[i].r.count;
    s->total_ns = st_sat_add(s->total_ns, e[i].r.total_ns);
    s->self_ns = st_sat_add(s->self_ns, e[i].r.self_ns);
    if (e[i].r.min_ns < s->min_ns) s->min_ns = e[i].r.min_ns;
    if (e[i].r.max_ns > s->max_ns) s->max_ns = e[i].r.max_ns;
  }
  for (uint32_t i = 0; i < m; i++) {
    rows[i].mean_ns = rows[i].count ? (double)rows[i].total_ns / (double)rows[i].count : 0;
    if (!rows[i].count) rows[i].min_ns = rows[i].max_ns = 0;
  }
  return m;
}

/* Gathers the durations of the kept rows [0, keep) and selects their
 * percentiles. slot tables map (trace, name id) -> kept row + 1. */
static st_code percentiles(const st_alloc *a, const st_trace *const *traces, uint32_t n,
                           const int64_t *t0, const int64_t *t1, const st_selection *sel,
                           const entry *e, size_t ne, const uint32_t *keep_of, st_opstat *rows,
                           uint32_t keep) {
  uint64_t total = 0;
  for (uint32_t i = 0; i < keep; i++) total += rows[i].count;
  size_t *off = st_calloc(a, (size_t)keep + 1, sizeof *off);
  size_t *fill = st_calloc(a, (size_t)keep + 1, sizeof *fill);
  int64_t *dur =
      total <= SIZE_MAX / 8 ? st_calloc(a, total ? (size_t)total : 1, sizeof *dur) : NULL;
  uint32_t **slot = st_calloc(a, n, sizeof *slot);
  st_code rc = off && fill && dur && slot ? ST_OK : ST_ERR_NOMEM;
  for (uint32_t i = 0; rc == ST_OK && i < keep; i++) off[i + 1] = off[i] + (size_t)rows[i].count;
  /* one table per string table (traces of a merged view share one) */
  for (uint32_t k = 0; rc == ST_OK && k < n; k++) {
    const st_strtab *sk = st_trace_strings(traces[k]);
    for (uint32_t j = 0; j < k && !slot[k]; j++)
      if (st_trace_strings(traces[j]) == sk) slot[k] = slot[j];
    if (slot[k]) continue;
    uint32_t ns = st_strtab_count(sk);
    slot[k] = st_calloc(a, ns ? ns : 1, sizeof **slot);
    if (!slot[k]) rc = ST_ERR_NOMEM;
  }
  for (size_t i = 0; rc == ST_OK && i < ne; i++)
    if (keep_of[e[i].group]) slot[e[i].trace][e[i].id] = keep_of[e[i].group];
  for (uint32_t k = 0; rc == ST_OK && k < n; k++) {
    uint32_t ns = st_strtab_count(st_trace_strings(traces[k]));
    const st_row *rows_k = st_trace_rows(traces[k], NULL);
    spans sp = spans_of(traces[k], sel, range_t0(t0, k), range_t1(t1, k));
    uint32_t r, lo, hi;
    while (spans_next(&sp, &r, &lo, &hi)) {
      const st_row *row = &rows_k[r];
      for (uint32_t i = lo; i < hi; i++) {
        uint32_t id = row->name[i], s = id < ns ? slot[k][id] : 0;
        if (s && fill[s - 1] < rows[s - 1].count) dur[off[s - 1] + fill[s - 1]++] = row->dur[i];
      }
    }
  }
  for (uint32_t i = 0; rc == ST_OK && i < keep; i++) {
    size_t c = fill[i];
    int64_t *v = dur + off[i];
    /* after selecting rank k, v[k, c) holds the values >= it: the higher
     * ranks are selected in that tail only */
    size_t k50 = st_stat_rank(50, c), k90 = st_stat_rank(90, c), k99 = st_stat_rank(99, c);
    rows[i].p50_ns = st_stat_select(v, c, k50);
    rows[i].p90_ns = c ? st_stat_select(v + k50, c - k50, k90 - k50) : 0;
    rows[i].p99_ns = c ? st_stat_select(v + k90, c - k90, k99 - k90) : 0;
  }
  for (uint32_t k = 0; slot && k < n; k++) {
    int shared = 0;
    for (uint32_t j = 0; j < k; j++) shared |= slot[j] == slot[k];
    if (!shared) st_free(a, slot[k]);
  }
  st_free(a, slot);
  st_free(a, dur);
  st_free(a, fill);
  st_free(a, off);
  return rc;
}

/* Moves the kept rows of rows[0, m) (sorted by self) to the front, in
 * their order: the `top` of every kind, and with kinds the `top` of each
 * kind too. Returns how many. */
static uint32_t keep_rows(st_opstat *rows, uint32_t m, uint32_t top, int kinds) {
  uint32_t per[ST_KIND_COUNT] = {0}, k = 0;
  if (!top) top = UINT32_MAX;
  for (uint32_t i = 0; i < m; i++) {
    uint8_t kd = rows[i].kind < ST_KIND_COUNT ? rows[i].kind : ST_KIND_HOST;
    int overall = i < top, own = kinds && per[kd] < top;
    if (!overall && !own) continue;
    per[kd]++;
    st_opstat x = rows[i];
    x.top = (uint8_t)overall;
    rows[k++] = x; /* over a dropped one (k <= i) */
  }
  return k;
}

static st_opstats *build(const st_alloc *alloc, const st_trace *const *traces, uint32_t n,
                         const int64_t *t0, const int64_t *t1, const st_selection *sel,
                         uint32_t top, const kinder *kd, st_error *err) {
  st_alloc al = alloc ? *alloc : (st_alloc){0};
  if (!traces || n == 0) {
    st_error_set(err, ST_ERR_ARG, 0, "op statistics: no traces");
    return NULL;
  }
  for (uint32_t k = 0; k < n; k++)
    if (!traces[k]) {
      st_error_set(err, ST_ERR_ARG, 0, "op statistics: a trace is missing");
      return NULL;
    }
  st_opstats *s = st_calloc(&al, 1, sizeof *s);
  entry *e = NULL;
  size_t ne = 0, cap = 0;
  st_code rc = s ? ST_OK : ST_ERR_NOMEM;
  for (uint32_t k = 0; rc == ST_OK && k < n; k++)
    rc = agg_trace(&al, traces[k], k, spans_of(traces[k], sel, range_t0(t0, k), range_t1(t1, k)),
                   &e, &ne, &cap, kd);
  uint32_t *keep_of = NULL;
  if (rc == ST_OK) {
    s->alloc = al;
    if (ne) qsort(e, ne, sizeof *e, cmp_entry_name);
    s->rows = st_calloc(&al, ne ? ne : 1, sizeof *s->rows);
    keep_of = st_calloc(&al, ne ? ne : 1, sizeof *keep_of);
    if (!s->rows || !keep_of) rc = ST_ERR_NOMEM;
  }
  if (rc == ST_OK) {
    uint32_t m = join(e, ne, s->rows);
    /* entries point at their joined row; sort the joined rows by self and
     * remember where each went (the name pointer is the row's identity) */
    for (uint32_t i = 0; i < m; i++) s->rows[i].p50_ns = (int64_t)i; /* original index */
    qsort(s->rows, m, sizeof *s->rows, cmp_stat_self);
    s->names = m;
    s->count = keep_rows(s->rows, m, top, kd && kd->fn);
    for (uint32_t i = 0; i < s->count; i++) keep_of[s->rows[i].p50_ns] = i + 1;
    for (uint32_t i = 0; i < m; i++) s->rows[i].p50_ns = 0;
    rc = percentiles(&al, traces, n, t0, t1, sel, e, ne, keep_of, s->rows, s->count);
  }
  st_free(&al, keep_of);
  st_free(&al, e);
  if (rc != ST_OK) {
    st_opstats_destroy(s);
    st_error_set(err, rc, 0, "out of memory");
    return NULL;
  }
  return s;
}

st_opstats *st_opstats_build(const st_alloc *alloc, const st_trace *const *traces, uint32_t n,
                             const int64_t *t0, const int64_t *t1, uint32_t top, st_error *err) {
  return build(alloc, traces, n, t0, t1, NULL, top, NULL, err);
}

st_opstats *st_opstats_build_kinds(const st_alloc *alloc, const st_trace *const *traces, uint32_t n,
                                   const int64_t *t0, const int64_t *t1, uint32_t top,
                                   st_opstats_kind_fn fn, void *ctx, st_error *err) {
  kinder kd = {fn, ctx};
  return build(alloc, traces, n, t0, t1, NULL, top, &kd, err);
}

st_opstats *st_opstats_build_sel(const st_alloc *alloc, const st_trace *t, const st_selection *sel,
                                 uint32_t top, st_error *err) {
  if (!sel) {
    st_error_set(err, ST_ERR_ARG, 0, "op statistics: no selection");
    return NULL;
  }
  return build(alloc, &t, 1, NULL, NULL, sel, top, NULL, err);
}

void st_opstats_destroy(st_opstats *s) {
  if (!s) return;
  st_alloc a = s->alloc;
  st_free(&a, s->rows);
  st_free(&a, s);
}

const st_opstat *st_opstats_rows(const st_opstats *s, uint32_t *count) {
  if (count) *count = s ? s->count : 0;
  return s ? s->rows : NULL;
}

uint32_t st_opstats_names(const st_opstats *s) { return s ? s->names : 0; }

/* ==== 3. histograms ====================================================== */

/* Edge j (j >= 0) of the log bins: round(10^(j / 5)) ns; saturates. */
static int64_t edge(uint32_t j) {
  if (j >= 94) return INT64_MAX;
  return (int64_t)floor(pow(10.0, (double)j / 5.0) + 0.5);
}

uint32_t st_hist_bin_of(int64_t d) {
  if (d <= 0) return 0;
  /* the largest j with edge(j) <= d; bin j + 1 */
  int j = (int)floor(5.0 * log10((double)d));
  if (j < 0) j = 0;
  while (j > 0 && edge((uint32_t)j) > d) j--;
  while (j < 94 && edge((uint32_t)j + 1) <= d) j++; /* edges from 94 on saturate at INT64_MAX */
  return (uint32_t)j + 1;
}

void st_hist_bin_bounds(uint32_t i, int64_t *lo, int64_t *hi) {
  *lo = i == 0 ? 0 : edge(i - 1);
  *hi = edge(i);
}

/* The id of name[0, len) in t's string table, or ST_STR_NONE. */
static uint32_t find_name(const st_trace *t, const char *name, size_t len) {
  const st_strtab *s = st_trace_strings(t);
  uint32_t n = st_strtab_count(s);
  for (uint32_t i = 0; i < n; i++) {
    size_t l;
    const char *p = st_strtab_get(s, i, &l);
    if (l == len && (len == 0 || memcmp(p, name, len) == 0)) return i;
  }
  return ST_STR_NONE;
}

static uint32_t histogram(const st_trace *const *traces, uint32_t n, const int64_t *t0,
                          const int64_t *t1, const st_selection *sel, const char *name, size_t len,
                          st_hist_bin *bins, uint32_t *first_bin) {
  uint64_t count[ST_HIST_BINS_MAX];
  memset(count, 0, sizeof count);
  uint32_t lo_bin = ST_HIST_BINS_MAX, hi_bin = 0;
  for (uint32_t k = 0; traces && k < n; k++) {
    if (!traces[k]) continue;
    uint32_t id = name ? find_name(traces[k], name, len) : ST_STR_NONE, nr;
    if (name && id == ST_STR_NONE) continue;
    const st_row *rows = st_trace_rows(traces[k], &nr);
    spans sp = spans_of(traces[k], sel, range_t0(t0, k), range_t1(t1, k));
    uint32_t r, lo, hi;
    while (spans_next(&sp, &r, &lo, &hi)) {
      for (uint32_t i = lo; i < hi; i++) {
        if (name && rows[r].name[i] != id) continue;
        uint32_t b = st_hist_bin_of(rows[r].dur[i]);
        if (b >= ST_HIST_BINS_MAX) b = ST_HIST_BINS_MAX - 1;
        count[b]++;
        if (b < lo_bin) lo_bin = b;
        if (b > hi_bin) hi_bin = b;
      }
    }
  }
  if (first_bin) *first_bin = lo_bin < ST_HIST_BINS_MAX ? lo_bin : 0;
  if (lo_bin == ST_HIST_BINS_MAX) return 0;
  for (uint32_t b = lo_bin; b <= hi_bin; b++) {
    st_hist_bin *o = &bins[b - lo_bin];
    st_hist_bin_bounds(b, &o->lo_ns, &o->hi_ns);
    o->count = count[b];
  }
  return hi_bin - lo_bin + 1;
}

uint32_t st_opstats_histogram(const st_trace *const *traces, uint32_t n, const int64_t *t0,
                              const int64_t *t1, const char *name, size_t len, st_hist_bin *bins,
                              uint32_t *first_bin) {
  return histogram(traces, n, t0, t1, NULL, name, len, bins, first_bin);
}

uint32_t st_opstats_histogram_sel(const st_trace *t, const st_selection *sel, const char *name,
                                  size_t len, st_hist_bin *bins, uint32_t *first_bin) {
  return sel ? histogram(&t, 1, NULL, NULL, sel, name, len, bins, first_bin) : 0;
}

st_code st_opstats_select(const st_trace *t, int64_t t0, int64_t t1, const st_selection *sel,
                          const char *name, size_t len, int64_t lo_ns, int64_t hi_ns,
                          uint32_t row_base, st_selection *out) {
  if (!t || !out) return ST_ERR_ARG;
  uint32_t id = name ? find_name(t, name, len) : ST_STR_NONE;
  if (name && id == ST_STR_NONE) return ST_OK;
  const st_row *rows = st_trace_rows(t, NULL);
  spans sp = spans_of(t, sel, t0, t1);
  uint32_t r, lo, hi;
  while (spans_next(&sp, &r, &lo, &hi)) {
    const st_row *row = &rows[r];
    for (uint32_t i = lo; i < hi; i++) {
      if ((name && row->name[i] != id) || row->dur[i] < lo_ns || row->dur[i] >= hi_ns) continue;
      uint32_t j = i + 1; /* a run of them: one span */
      while (j < hi && (!name || row->name[j] == id) && row->dur[j] >= lo_ns && row->dur[j] < hi_ns)
        j++;
      if (row_base > UINT32_MAX - r) return ST_ERR_ARG;
      st_code c = st_selection_add(out, row_base + r, i, j);
      if (c != ST_OK) return c;
      i = j - 1;
    }
  }
  return ST_OK;
}

void st_opstat_json(st_jout *o, const st_opstat *p) {
  st_jout_lit(o, "{");
  st_opstat_json_fields(o, p);
  st_jout_lit(o, "}");
}

void st_opstat_json_fields(st_jout *o, const st_opstat *p) {
  st_jout_lit(o, "\"name\":");
  st_jout_str(o, p->name, p->name_len);
  st_jout_lit(o, ",\"count\":");
  st_jout_u64(o, p->count);
  st_jout_lit(o, ",\"total_us\":");
  st_jout_us(o, p->total_ns);
  st_jout_lit(o, ",\"self_us\":");
  st_jout_us(o, p->self_ns);
  st_jout_lit(o, ",\"mean_us\":");
  st_jout_fixed(o, p->mean_ns / 1000.0, 3);
  st_jout_lit(o, ",\"min_us\":");
  st_jout_us(o, p->min_ns);
  st_jout_lit(o, ",\"p50_us\":");
  st_jout_us(o, p->p50_ns);
  st_jout_lit(o, ",\"p90_us\":");
  st_jout_us(o, p->p90_ns);
  st_jout_lit(o, ",\"p99_us\":");
  st_jout_us(o, p->p99_ns);
  st_jout_lit(o, ",\"max_us\":");
  st_jout_us(o, p->max_ns);
}
