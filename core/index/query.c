/* query.c: event refs and details, self time, whole-trace search and
 * aggregation by name (see query.h).
 *
 * Contents
 *   1. refs, row binary searches, event details, self time, formatting
 *   2. search: name mask, per-event bitset, time-ordered stepping
 *   3. aggregation by name
 */
#include "query.h"

#include "ascii_ci.h"
#include "bisect.h"
#include "merge_sort.h"

#include <math.h>
#include <stdio.h> /* snprintf only */
#include <string.h>

/* ==== 1. refs, rows, details ============================================= */

int st_ref_valid(const st_trace *t, st_event_ref ref) {
  uint32_t nr;
  const st_row *rows = t ? st_trace_rows(t, &nr) : NULL;
  return rows && ref.row < nr && ref.index < rows[ref.row].count;
}

uint32_t st_row_first_start_ge(const st_row *r, int64_t t) {
  return r ? (uint32_t)st_lower_bound_i64(r->start, r->count, t) : 0;
}

uint32_t st_row_first_start_gt(const st_row *r, int64_t t) {
  return r ? (uint32_t)st_upper_bound_i64(r->start, r->count, t) : 0;
}

typedef struct row_time {
  const st_row *r;
  int64_t t;
} row_time;

/* Monotonic in the index: ends are sorted, and among events ending exactly
 * at t a zero-length one can only follow a longer one. */
static int ends_at_or_before(const void *ctx, size_t i) {
  const row_time *k = ctx;
  int64_t e = k->r->start[i] + k->r->dur[i];
  return !(e > k->t || (e == k->t && k->r->dur[i] == 0));
}

uint32_t st_row_first_end_gt(const st_row *r, int64_t t) {
  row_time k = {r, t};
  return r ? (uint32_t)st_partition_point(0, r->count, ends_at_or_before, &k) : 0;
}

static int ends_before(const void *ctx, size_t i) {
  const row_time *k = ctx;
  return st_sat_add(k->r->start[i], k->r->dur[i]) < k->t;
}

uint32_t st_row_first_end_ge(const st_row *r, int64_t t) {
  row_time k = {r, t};
  return r ? (uint32_t)st_partition_point(0, r->count, ends_before, &k) : 0;
}

/* The row holding the children of `row` (one depth deeper, same slice
 * track), or UINT32_MAX. */
static uint32_t child_row(const st_trace *t, uint32_t row) {
  uint32_t nr, nt;
  const st_row *rows = st_trace_rows(t, &nr);
  const st_track *tracks = st_trace_tracks(t, &nt);
  if (row >= nr || rows[row].track >= nt) return UINT32_MAX;
  const st_track *tr = &tracks[rows[row].track];
  if (tr->kind != ST_TRACK_SLICES) return UINT32_MAX;
  uint32_t c = row + 1;
  if (c >= nr || c >= tr->first_row + tr->row_count || rows[c].track != rows[row].track ||
      rows[c].depth != rows[row].depth + 1)
    return UINT32_MAX;
  return c;
}

/* Time of [s, e) covered by child row c, starting the walk at *j (advanced
 * past children that end before s, so a sweep over sorted parents is
 * linear overall). */
static int64_t covered(const st_row *c, uint32_t *j, int64_t s, int64_t e) {
  uint32_t k = *j;
  while (k < c->count && c->start[k] + c->dur[k] <= s) k++;
  *j = k;
  int64_t sum = 0;
  for (; k < c->count && c->start[k] < e; k++) {
    int64_t a = c->start[k] > s ? c->start[k] : s;
    int64_t b = c->start[k] + c->dur[k];
    if (b > e) b = e;
    if (b > a) sum += b - a;
  }
  return sum;
}

int64_t st_event_self_ns(const st_trace *t, uint32_t row, uint32_t index) {
  uint32_t nr;
  const st_row *rows = t ? st_trace_rows(t, &nr) : NULL;
  if (!rows || row >= nr || index >= rows[row].count) return 0;
  const st_row *r = &rows[row];
  int64_t s = r->start[index], d = r->dur[index];
  uint32_t c = child_row(t, row);
  if (c == UINT32_MAX || d <= 0) return d;
  uint32_t j = st_row_first_end_gt(&rows[c], s);
  int64_t self = d - covered(&rows[c], &j, s, s + d);
  return self > 0 ? self : 0;
}

int st_event_get(const st_trace *t, st_event_ref ref, st_event_info *out) {
  if (!out) return 0;
  memset(out, 0, sizeof *out);
  if (!st_ref_valid(t, ref)) return 0;
  const st_row *r = &st_trace_rows(t, NULL)[ref.row];
  uint32_t nt, np;
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_process *procs = st_trace_processes(t, &np);
  out->name = r->name[ref.index];
  out->cat = r->cat[ref.index];
  out->start_ns = r->start[ref.index];
  out->dur_ns = r->dur[ref.index];
  out->src = r->src[ref.index];
  out->flags = r->flags[ref.index];
  out->depth = r->depth;
  out->track = r->track;
  out->self_ns = st_event_self_ns(t, ref.row, ref.index);
  if (r->track < nt) {
    const st_track *tr = &tracks[r->track];
    out->track_kind = tr->kind;
    if (tr->kind == ST_TRACK_SAMPLES) out->cat = ST_STR_EMPTY; /* cat holds the frame (trace.h) */
    out->tid = tr->key;
    out->thread_name = tr->name;
    out->process = tr->process;
    if (tr->process < np) {
      out->pid = procs[tr->process].pid;
      out->process_name = procs[tr->process].name;
    }
  }
  return 1;
}

size_t st_format_dur(double ns, char *buf, size_t cap) {
  if (!buf || !cap) return 0;
  if (!isfinite(ns)) ns = 0;
  double a = fabs(ns), unit = 1;
  const char *name = "ns";
  if (a >= 1e9)
    unit = 1e9, name = "s";
  else if (a >= 1e6)
    unit = 1e6, name = "ms";
  else if (a >= 1e3)
    unit = 1e3, name = "us";
  double v = ns / unit;
  int dec = 0;
  if (unit > 1) {
    double av = fabs(v);
    dec = av >= 100 ? 1 : av >= 10 ? 2 : 3;
  } else if (a != floor(a)) {
    dec = 1; /* sub-ns values from averages */
  }
  char num[64];
  snprintf(num, sizeof num, "%.*f", dec, v);
  if (dec > 0) {
    size_t n = strlen(num);
    while (n > 1 && num[n - 1] == '0') num[--n] = 0;
    if (n > 1 && num[n - 1] == '.') num[--n] = 0;
  }
  int n = snprintf(buf, cap, "%s %s", num, name);
  if (n < 0) return 0;
  return (size_t)n < cap ? (size_t)n : cap - 1;
}

/* ==== 2. search ========================================================== */

struct st_find {
  st_alloc alloc;
  const st_trace *trace;
  const st_row *rows;
  uint32_t row_count;
  uint32_t name_cap; /* strings in the table */
  uint8_t *name_hit; /* per name id: 1 if it matches */
  uint32_t name_hits;
  uint64_t *word_base; /* per row: index of its first word (row_count + 1) */
  uint64_t *bits;      /* one bit per event */
  uint64_t *cum;       /* cum[w] = set bits in words [0, w) (words + 1) */
  uint64_t words;
  uint64_t count;
  int active;
  int in_args;
  char *text;
};

static int popcount64(uint64_t x) { /* SWAR: no compiler builtins in the core */
  x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
  x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
  x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
  return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
}

st_find *st_find_create(const st_alloc *a, const st_trace *t) {
  st_alloc al = a ? *a : (st_alloc){0};
  if (!t) return NULL;
  st_find *f = st_calloc(&al, 1, sizeof *f);
  if (!f) return NULL;
  f->alloc = al;
  f->trace = t;
  f->rows = st_trace_rows(t, &f->row_count);
  f->word_base = st_calloc(&al, (size_t)f->row_count + 1, sizeof *f->word_base);
  if (!f->word_base) {
    st_find_destroy(f);
    return NULL;
  }
  uint64_t w = 0;
  for (uint32_t r = 0; r < f->row_count; r++) {
    f->word_base[r] = w;
    w += ((uint64_t)f->rows[r].count + 63) / 64;
  }
  f->word_base[f->row_count] = w;
  f->words = w;
  return f;
}

static void find_clear(st_find *f) {
  st_free(&f->alloc, f->bits);
  st_free(&f->alloc, f->cum);
  st_free(&f->alloc, f->name_hit);
  st_free(&f->alloc, f->text);
  f->bits = f->cum = NULL;
  f->name_hit = NULL;
  f->text = NULL;
  f->name_cap = f->name_hits = 0;
  f->count = 0;
  f->active = 0;
  f->in_args = 0;
}

void st_find_destroy(st_find *f) {
  if (!f) return;
  find_clear(f);
  st_alloc a = f->alloc;
  st_free(&a, f->word_base);
  st_free(&a, f);
}

st_code st_find_set(st_find *f, const char *text, size_t len) {
  if (!f) return ST_ERR_ARG;
  find_clear(f);
  if (!text || !len) return ST_OK;
  st_alloc *a = &f->alloc;
  const st_strtab *strs = st_trace_strings(f->trace);
  uint32_t nstr = st_strtab_count(strs);
  size_t tl;
  f->text = st_add_size(len, 1, &tl) ? st_malloc(a, tl) : NULL;
  f->name_hit = st_calloc(a, nstr ? nstr : 1, 1);
  size_t nw = (size_t)f->words;
  f->bits = st_calloc(a, nw ? nw : 1, sizeof *f->bits);
  f->cum = st_calloc(a, nw + 1, sizeof *f->cum);
  if (!f->text || !f->name_hit || !f->bits || !f->cum) {
    find_clear(f);
    return ST_ERR_NOMEM;
  }
  for (size_t i = 0; i < len; i++) f->text[i] = (char)st_ascii_lower((unsigned char)text[i]);
  f->text[len] = 0;
  f->name_cap = nstr;
  f->active = 1;
  /* 1. every distinct string once */
  for (uint32_t id = 0; id < nstr; id++) {
    size_t n;
    const char *s = st_strtab_get(strs, id, &n);
    if (st_contains_ci(s, n, f->text, len)) {
      f->name_hit[id] = 1;
      f->name_hits++;
    }
  }
  /* restore the query's own case for st_find_text */
  memcpy(f->text, text, len);
  if (!f->name_hits) return ST_OK;
  /* 2. one pass over the name arrays, 64 events per word */
  const uint8_t *hit = f->name_hit;
  uint64_t total = 0;
  for (uint32_t r = 0; r < f->row_count; r++) {
    const uint32_t *names = f->rows[r].name;
    uint32_t n = f->rows[r].count;
    uint64_t *w = f->bits + f->word_base[r];
    for (uint32_t i = 0; i < n; i += 64) {
      uint32_t end = n - i < 64 ? n - i : 64;
      uint64_t word = 0;
      const uint32_t *p = names + i;
      for (uint32_t k = 0; k < end; k++) {
        uint32_t id = p[k];
        word |= (uint64_t)(id < nstr ? hit[id] : 0) << k;
      }
      *w++ = word;
    }
  }
  for (uint64_t k = 0; k < f->words; k++) {
    f->cum[k] = total;
    total += (uint64_t)popcount64(f->bits[k]);
  }
  f->cum[f->words] = total;
  f->count = total;
  return ST_OK;
}

static int src_in(const uint64_t *srcs, size_t n, uint64_t v) {
  size_t lo = st_lower_bound_u64(srcs, n, v);
  return lo < n && srcs[lo] == v;
}

/* The rows [r0, r1) are those of one file (a merged trace's part, or the
 * whole of a plain trace): srcs are offsets in that file, and its end-src
 * pairs are `owner`'s. */
static st_code add_srcs(st_find *f, const st_trace *owner, uint32_t r0, uint32_t r1,
                        const uint64_t *srcs, size_t n);

st_code st_find_add_srcs(st_find *f, const uint64_t *srcs, size_t n) {
  if (!f) return ST_ERR_ARG;
  return add_srcs(f, f->trace, 0, f->row_count, srcs, n);
}

st_code st_find_add_srcs_part(st_find *f, uint32_t part, const uint64_t *srcs, size_t n) {
  uint32_t np;
  const st_trace_part *parts = f ? st_trace_parts(f->trace, &np) : NULL;
  if (!parts) return st_find_add_srcs(f, srcs, n);
  if (part >= np) return ST_ERR_ARG;
  return add_srcs(f, parts[part].trace, parts[part].row_base,
                  parts[part].row_base + parts[part].row_count, srcs, n);
}

static st_code add_srcs(st_find *f, const st_trace *owner, uint32_t r0, uint32_t r1,
                        const uint64_t *srcs, size_t n) {
  if (!f || !f->active || !f->bits || !f->cum) return ST_ERR_ARG;
  /* B/E slices whose end event (trace.h st_trace_end_src) is among srcs: their
   * own srcs, ascending since the pairs are sorted by them */
  size_t npairs = 0, nends = 0;
  const st_end_src *pairs = st_trace_end_srcs(owner, &npairs);
  uint64_t *ends = NULL;
  for (int pass = 0; n && npairs && pass < 2; pass++) {
    for (size_t i = 0; i < npairs; i++) {
      uint64_t e = pairs[i].end_src;
      if (e < srcs[0] || e > srcs[n - 1] || !src_in(srcs, n, e)) continue;
      if (pass) ends[nends] = pairs[i].src;
      nends++;
    }
    if (pass || !nends) break;
    ends = st_calloc(&f->alloc, nends, sizeof *ends);
    if (!ends) return ST_ERR_NOMEM;
    nends = 0;
  }
  f->in_args = 1;
  if (!n) return ST_OK;
  uint64_t lo_src = srcs[0], hi_src = srcs[n - 1];
  if (nends && ends[0] < lo_src) lo_src = ends[0];
  if (nends && ends[nends - 1] > hi_src) hi_src = ends[nends - 1];
  for (uint32_t r = r0; r < r1 && r < f->row_count; r++) {
    const uint64_t *src = f->rows[r].src;
    uint32_t cnt = f->rows[r].count;
    uint64_t *w = f->bits + f->word_base[r];
    for (uint32_t i = 0; i < cnt; i++) {
      uint64_t v = src[i];
      if (v < lo_src || v > hi_src) continue;
      if (src_in(srcs, n, v) || (nends && src_in(ends, nends, v)))
        w[i / 64] |= (uint64_t)1 << (i % 64);
    }
  }
  st_free(&f->alloc, ends);
  uint64_t total = 0;
  for (uint64_t k = 0; k < f->words; k++) {
    f->cum[k] = total;
    total += (uint64_t)popcount64(f->bits[k]);
  }
  f->cum[f->words] = total;
  f->count = total;
  return ST_OK;
}

int st_find_in_args(const st_find *f) { return f && f->in_args; }

st_code st_find_copy(st_find *dst, const st_find *src) {
  if (!dst || !src || dst->trace != src->trace || dst->words != src->words) return ST_ERR_ARG;
  if (dst == src) return ST_OK;
  find_clear(dst);
  if (!src->active) return ST_OK;
  st_alloc *a = &dst->alloc;
  size_t tl = strlen(src->text) + 1, nw = (size_t)src->words;
  dst->text = st_malloc(a, tl);
  dst->name_hit = st_calloc(a, src->name_cap ? src->name_cap : 1, 1);
  dst->bits = st_calloc(a, nw ? nw : 1, sizeof *dst->bits);
  dst->cum = st_calloc(a, nw + 1, sizeof *dst->cum);
  if (!dst->text || !dst->name_hit || !dst->bits || !dst->cum) {
    find_clear(dst);
    return ST_ERR_NOMEM;
  }
  memcpy(dst->text, src->text, tl);
  if (src->name_cap) memcpy(dst->name_hit, src->name_hit, src->name_cap);
  if (nw) memcpy(dst->bits, src->bits, nw * sizeof *dst->bits);
  memcpy(dst->cum, src->cum, (nw + 1) * sizeof *dst->cum);
  dst->name_cap = src->name_cap;
  dst->name_hits = src->name_hits;
  dst->count = src->count;
  dst->active = 1;
  dst->in_args = src->in_args;
  return ST_OK;
}

int st_find_active(const st_find *f) { return f && f->active; }
const char *st_find_text(const st_find *f) { return f && f->text ? f->text : ""; }
uint64_t st_find_count(const st_find *f) { return f ? f->count : 0; }
uint32_t st_find_name_count(const st_find *f) { return f ? f->name_hits : 0; }

int st_find_is_match(const st_find *f, uint32_t row, uint32_t index) {
  if (!f || !f->count || row >= f->row_count || index >= f->rows[row].count) return 0;
  return (int)(f->bits[f->word_base[row] + index / 64] >> (index % 64) & 1);
}

/* Set bits among the first `bits` bits of the row (bits <= count). */
static uint64_t row_prefix(const st_find *f, uint32_t row, uint32_t bits) {
  uint64_t w0 = f->word_base[row], w = w0 + bits / 64;
  uint64_t n = f->cum[w] - f->cum[w0];
  if (bits % 64) n += (uint64_t)popcount64(f->bits[w] & ((UINT64_C(1) << (bits % 64)) - 1));
  return n;
}

uint64_t st_find_count_in(const st_find *f, uint32_t row, uint32_t lo, uint32_t hi) {
  if (!f || !f->count || row >= f->row_count) return 0;
  uint32_t n = f->rows[row].count;
  if (hi > n) hi = n;
  if (lo >= hi) return 0;
  return row_prefix(f, row, hi) - row_prefix(f, row, lo);
}

static int ctz64(uint64_t x) {
  int n = 0;
  while (!(x & 1)) x >>= 1, n++;
  return n;
}
static int clz_index64(uint64_t x) { /* index of the highest set bit */
  int n = 63;
  while (!(x >> 63)) x <<= 1, n--;
  return n;
}

/* First match in row at index >= lo, or UINT32_MAX. */
static uint32_t next_in_row(const st_find *f, uint32_t row, uint32_t lo) {
  uint32_t n = f->rows[row].count;
  if (lo >= n) return UINT32_MAX;
  uint64_t w0 = f->word_base[row], wend = f->word_base[row + 1];
  uint64_t w = w0 + lo / 64;
  uint64_t x = f->bits[w] & (~UINT64_C(0) << (lo % 64));
  if (x) return (uint32_t)((w - w0) * 64 + (uint64_t)ctz64(x));
  /* the first later word with a bit: cum rises after it */
  if (f->cum[wend] == f->cum[w + 1]) return UINT32_MAX;
  uint64_t a = w + 1, b = wend - 1; /* answer in [a, b]: the first m with cum[m + 1] > cum[w + 1] */
  a += st_upper_bound_u64(f->cum + a + 1, b - a, f->cum[w + 1]);
  return (uint32_t)((a - w0) * 64 + (uint64_t)ctz64(f->bits[a]));
}

/* Last match in row at index < hi, or UINT32_MAX. */
static uint32_t prev_in_row(const st_find *f, uint32_t row, uint32_t hi) {
  uint32_t n = f->rows[row].count;
  if (hi > n) hi = n;
  if (hi == 0) return UINT32_MAX;
  uint64_t w0 = f->word_base[row];
  uint32_t last = hi - 1;
  uint64_t w = w0 + last / 64;
  uint32_t sh = last % 64;
  uint64_t x = f->bits[w] & (sh == 63 ? ~UINT64_C(0) : ((UINT64_C(1) << (sh + 1)) - 1));
  if (x) return (uint32_t)((w - w0) * 64 + (uint64_t)clz_index64(x));
  if (f->cum[w] == f->cum[w0]) return UINT32_MAX;
  /* the last earlier word with a bit: the largest m in [w0, w) with cum[m + 1] == cum[w] and
   * bits[m] != 0, i.e. the smallest m with cum[m + 1] == cum[w] */
  uint64_t a = w0, b = w - 1;
  a += st_lower_bound_u64(f->cum + a + 1, b - a, f->cum[w]);
  return (uint32_t)((a - w0) * 64 + (uint64_t)clz_index64(f->bits[a]));
}

/* Matches in row r (all of it). */
static uint64_t row_matches(const st_find *f, uint32_t r) {
  return f->cum[f->word_base[r + 1]] - f->cum[f->word_base[r]];
}

static int step_once(const st_find *f, st_event_ref from, int dir, st_find_skip_fn skip,
                     const void *ud, st_event_ref *out) {
  int have_from = st_ref_valid(f->trace, from);
  int64_t s0 = have_from ? f->rows[from.row].start[from.index] : 0;
  st_event_ref best = ST_REF_NONE;
  int64_t best_t = 0;
  for (uint32_t r = 0; r < f->row_count; r++) {
    const st_row *row = &f->rows[r];
    if (!row_matches(f, r) || (skip && skip(ud, r))) continue;
    uint32_t j;
    if (dir > 0) {
      uint32_t lo = !have_from     ? 0
                    : r < from.row ? st_row_first_start_gt(row, s0)
                    : r > from.row ? st_row_first_start_ge(row, s0)
                                   : from.index + 1;
      j = next_in_row(f, r, lo);
      if (j == UINT32_MAX) continue;
      /* rows go up, so on a tie in time the earlier row already won */
      if (best.row == UINT32_MAX || row->start[j] < best_t) {
        best = (st_event_ref){r, j};
        best_t = row->start[j];
      }
    } else {
      uint32_t hi = !have_from     ? row->count
                    : r < from.row ? st_row_first_start_gt(row, s0)
                    : r > from.row ? st_row_first_start_ge(row, s0)
                                   : from.index;
      j = prev_in_row(f, r, hi);
      if (j == UINT32_MAX) continue;
      if (best.row == UINT32_MAX || row->start[j] >= best_t) {
        best = (st_event_ref){r, j};
        best_t = row->start[j];
      }
    }
  }
  if (best.row == UINT32_MAX) return 0;
  *out = best;
  return 1;
}

int st_find_step_skip(const st_find *f, st_event_ref from, int dir, int wrap, st_find_skip_fn skip,
                      const void *ud, st_event_ref *out) {
  if (!f || !f->count || !out) return 0;
  if (step_once(f, from, dir, skip, ud, out)) return 1;
  if (wrap && st_ref_valid(f->trace, from)) return step_once(f, ST_REF_NONE, dir, skip, ud, out);
  return 0;
}

int st_find_step(const st_find *f, st_event_ref from, int dir, int wrap, st_event_ref *out) {
  return st_find_step_skip(f, from, dir, wrap, NULL, NULL, out);
}

uint64_t st_find_count_skipped(const st_find *f, st_find_skip_fn skip, const void *ud) {
  if (!f || !f->count || !skip) return 0;
  uint64_t n = 0;
  for (uint32_t r = 0; r < f->row_count; r++)
    if (row_matches(f, r) && skip(ud, r)) n += row_matches(f, r);
  return n;
}

uint64_t st_find_rank(const st_find *f, st_event_ref ref) {
  return st_find_rank_skip(f, ref, NULL, NULL);
}

uint64_t st_find_rank_skip(const st_find *f, st_event_ref ref, st_find_skip_fn skip,
                           const void *ud) {
  if (!f || !f->count || !st_ref_valid(f->trace, ref)) return 0;
  int64_t s0 = f->rows[ref.row].start[ref.index];
  uint64_t n = 0;
  for (uint32_t r = 0; r < f->row_count; r++) {
    const st_row *row = &f->rows[r];
    if (!row_matches(f, r) || (skip && skip(ud, r))) continue;
    uint32_t hi = r < ref.row   ? st_row_first_start_gt(row, s0)
                  : r > ref.row ? st_row_first_start_ge(row, s0)
                                : ref.index;
    n += row_prefix(f, r, hi);
  }
  return n;
}

/* ==== 3. aggregation ===================================================== */

struct st_agg {
  st_alloc alloc;
  const st_trace *trace;
  uint32_t *slot; /* per name id: index + 1 into rows, 0 = none */
  uint32_t name_cap;
  st_agg_row *rows;
  uint32_t count, cap;
  uint64_t events;
  st_agg_key key; /* names or categories */
};

st_agg *st_agg_create(const st_alloc *a, const st_trace *t) {
  st_alloc al = a ? *a : (st_alloc){0};
  if (!t) return NULL;
  st_agg *g = st_calloc(&al, 1, sizeof *g);
  if (!g) return NULL;
  g->alloc = al;
  g->trace = t;
  g->name_cap = st_strtab_count(st_trace_strings(t));
  g->slot = st_calloc(&al, g->name_cap ? g->name_cap : 1, sizeof *g->slot);
  if (!g->slot) {
    st_free(&al, g);
    return NULL;
  }
  return g;
}

void st_agg_destroy(st_agg *g) {
  if (!g) return;
  st_alloc a = g->alloc;
  st_free(&a, g->slot);
  st_free(&a, g->rows);
  st_free(&a, g);
}

void st_agg_reset(st_agg *g) {
  if (!g) return;
  for (uint32_t i = 0; i < g->count; i++)
    if (g->rows[i].name < g->name_cap) g->slot[g->rows[i].name] = 0;
  g->count = 0;
  g->events = 0;
}

void st_agg_set_key(st_agg *g, st_agg_key key) {
  if (!g) return;
  st_agg_reset(g);
  g->key = key == ST_AGG_KEY_CAT ? ST_AGG_KEY_CAT : ST_AGG_KEY_NAME;
}

static st_agg_row *agg_slot(st_agg *g, uint32_t name) {
  if (name >= g->name_cap) name = 0; /* cannot happen with a sane trace */
  uint32_t s = g->slot[name];
  if (s) return &g->rows[s - 1];
  if (g->count == g->cap) {
    void *nr = g->rows;
    if (!st_grow32(&g->alloc, &nr, &g->cap, g->count + 1, sizeof *g->rows, 64)) return NULL;
    g->rows = nr;
  }
  st_agg_row *r = &g->rows[g->count++];
  memset(r, 0, sizeof *r);
  r->name = name;
  r->min_ns = INT64_MAX;
  r->max_ns = INT64_MIN;
  g->slot[name] = g->count;
  return r;
}

st_code st_agg_add(st_agg *g, uint32_t row, uint32_t lo, uint32_t hi) {
  if (!g) return ST_ERR_ARG;
  uint32_t nr;
  const st_row *rows = st_trace_rows(g->trace, &nr);
  if (row >= nr) return ST_ERR_ARG;
  const st_row *r = &rows[row];
  if (hi > r->count) hi = r->count;
  if (lo >= hi) return ST_OK;
  uint32_t c = child_row(g->trace, row);
  uint32_t j = c == UINT32_MAX ? 0 : st_row_first_end_gt(&rows[c], r->start[lo]);
  const uint32_t *keys = g->key == ST_AGG_KEY_CAT ? r->cat : r->name;
  for (uint32_t i = lo; i < hi; i++) {
    st_agg_row *a = agg_slot(g, keys[i]);
    if (!a) return ST_ERR_NOMEM;
    int64_t d = r->dur[i], s = r->start[i];
    int64_t self = d;
    if (c != UINT32_MAX && d > 0) {
      self = d - covered(&rows[c], &j, s, s + d);
      if (self < 0) self = 0;
    }
    a->count++;
    a->total_ns = st_sat_add(a->total_ns, d); /* hostile durations: saturate, never wrap */
    a->self_ns = st_sat_add(a->self_ns, self);
    if (d < a->min_ns) a->min_ns = d;
    if (d > a->max_ns) a->max_ns = d;
    a->avg_ns = (double)a->total_ns / (double)a->count;
  }
  g->events += hi - lo;
  return ST_OK;
}

st_code st_agg_add_window(st_agg *g, int64_t t0, int64_t t1) {
  if (!g) return ST_ERR_ARG;
  uint32_t nr;
  const st_row *rows = st_trace_rows(g->trace, &nr);
  for (uint32_t r = 0; r < nr; r++) {
    uint32_t lo = st_row_first_end_gt(&rows[r], t0), hi = st_row_first_start_ge(&rows[r], t1);
    /* an instant exactly at t0 of a zero-length window */
    st_code c = st_agg_add(g, r, lo, hi);
    if (c != ST_OK) return c;
  }
  return ST_OK;
}

typedef struct sort_ctx {
  const st_strtab *strs;
  st_agg_col col;
  int desc;
} sort_ctx;

static int cmp_name(const sort_ctx *c, uint32_t a, uint32_t b) {
  size_t na, nb;
  const char *sa = st_strtab_get(c->strs, a, &na), *sb = st_strtab_get(c->strs, b, &nb);
  int k = memcmp(sa, sb, na < nb ? na : nb);
  if (k) return k < 0 ? -1 : 1;
  return na < nb ? -1 : na > nb ? 1 : 0;
}

#define CMP3(x, y) ((x) < (y) ? -1 : (x) > (y) ? 1 : 0)

static int cmp_rows(const sort_ctx *c, const st_agg_row *a, const st_agg_row *b) {
  int k = 0;
  switch (c->col) {
  case ST_AGG_NAME: k = cmp_name(c, a->name, b->name); break;
  case ST_AGG_COUNT: k = CMP3(a->count, b->count); break;
  case ST_AGG_TOTAL: k = CMP3(a->total_ns, b->total_ns); break;
  case ST_AGG_SELF: k = CMP3(a->self_ns, b->self_ns); break;
  case ST_AGG_AVG: k = CMP3(a->avg_ns, b->avg_ns); break;
  case ST_AGG_MIN: k = CMP3(a->min_ns, b->min_ns); break;
  case ST_AGG_MAX: k = CMP3(a->max_ns, b->max_ns); break;
  }
  if (c->desc) k = -k;
  if (!k && c->col != ST_AGG_NAME) k = cmp_name(c, a->name, b->name);
  if (!k) k = CMP3(a->name, b->name);
  return k;
}

static inline int row_less(const sort_ctx *c, const st_agg_row *a, const st_agg_row *b) {
  return cmp_rows(c, a, b) < 0;
}
ST_DEFINE_MERGE_SORT_CTX(sort_rows, st_agg_row, const sort_ctx *, row_less)

void st_agg_sort(st_agg *g, st_agg_col col, int descending) {
  if (!g || g->count < 2) return;
  sort_ctx c = {st_trace_strings(g->trace), col, descending};
  uint32_t n = g->count;
  st_agg_row *tmp = st_malloc(&g->alloc, (size_t)n * sizeof *tmp); /* NULL: sorted in place */
  sort_rows(&c, g->rows, tmp, n);
  st_free(&g->alloc, tmp);
  for (uint32_t i = 0; i < n; i++)
    if (g->rows[i].name < g->name_cap) g->slot[g->rows[i].name] = i + 1;
}

const st_agg_row *st_agg_rows(const st_agg *g, uint32_t *count) {
  if (count) *count = g ? g->count : 0;
  return g ? g->rows : NULL;
}

uint64_t st_agg_events(const st_agg *g) { return g ? g->events : 0; }
