/* profile.c: group names, clocks, initial offsets and compare alignment
 * for a profile of many traces (see profile.h).
 *
 * Contents
 *   1. reading the loader's metadata JSON (top-level members, numbers,
 *      strings) with json_scan's scanners: no tree is built
 *   2. group names
 *   3. clocks and initial offsets
 *   4. step markers: ProfilerStep#N, "Steps" lines, "XLA Modules"
 *   5. compare alignment, align on events, find a step
 */
#include "profile.h"

#include "json_scan.h"
#include "utf8.h"

#include <stdio.h> /* snprintf only */
#include <string.h>

/* ==== 1. metadata JSON =================================================== */

/* An integer value: a JSON number (fractions rounded) or a string holding one. */
static int int_value(const char *v, const char *ve, int64_t *out) {
  if (v < ve && *v == '"') {
    v++;
    if (ve - v < 1 || ve[-1] != '"') return 0;
    ve--;
  }
  if (v >= ve) return 0;
  return st_json_decimal_scaled(v, (size_t)(ve - v), 0, out);
}

/* ==== 2. group names ===================================================== */

typedef struct nout {
  char *buf;
  size_t cap, len;
} nout;

/* Appends name bytes: control characters become spaces, invalid UTF-8
 * U+FFFD, and a character that does not fit whole is not cut. */
static void name_put(nout *o, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    const char *piece = s + i;
    size_t k = p[i] < 0x20 || p[i] == 0x7f ? 1 : st_utf8_len(p + i, n - i);
    size_t adv = k ? k : 1;
    if (p[i] < 0x20 || p[i] == 0x7f)
      piece = " ";
    else if (!k)
      piece = "\xEF\xBF\xBD", k = 3;
    if (o->cap && o->len + k < o->cap)
      memcpy(o->buf + o->len, piece, k);
    else if (o->cap && o->len < o->cap)
      o->cap = o->len + 1; /* stop writing: no cut characters */
    o->len += k;
    i += adv;
  }
}

static void name_lit(nout *o, const char *s) { name_put(o, s, strlen(s)); }

static size_t name_end(nout *o) {
  if (o->cap) o->buf[o->len < o->cap ? o->len : o->cap - 1] = 0;
  return o->len;
}

/* XSpace hostnames: the strings of the "hostnames" array, joined. */
static int hostnames(const char *meta, nout *o) {
  const char *v, *ve, *end = meta + strlen(meta);
  if (!st_json_member(meta, end, "hostnames", &v, &ve) || *v != '[') return 0;
  const char *p = v + 1;
  int items = 0;
  for (;;) {
    p = st_json_ws(p, ve);
    if (p >= ve || *p != '"') break;
    const char *close;
    int esc;
    if (st_json_string(p + 1, ve, &close, &esc) != ST_JSON_OK) break;
    size_t n = (size_t)(close - p - 1);
    if (n) {
      if (items++) name_lit(o, ", ");
      if (!esc) {
        name_put(o, p + 1, n);
      } else {
        char tmp[1024];
        const char *q = p + 1;
        while (q < close) { /* decode in pieces that never split an escape */
          const char *e = q;
          while (e < close && e - q < 300) {
            if (*e != '\\') {
              e++;
            } else if (e + 1 < close && e[1] == 'u') {
              /* \uXXXX; after a high surrogate (\uD800-\uDBFF) the next one too */
              int high = close - e >= 6 && (e[2] == 'd' || e[2] == 'D') && strchr("89abAB", e[3]);
              e = close - e >= 6 ? e + 6 : close;
              if (high && close - e >= 2 && e[0] == '\\' && e[1] == 'u')
                e = close - e >= 6 ? e + 6 : close;
            } else {
              e = close - e >= 2 ? e + 2 : close;
            }
          }
          size_t dn = st_json_unescape(q, (size_t)(e - q), tmp); /* <= 3 bytes per input byte */
          name_put(o, tmp, dn);
          q = e;
        }
      }
    }
    p = st_json_ws(close + 1, ve);
    if (p < ve && *p == ',') p++;
  }
  return items > 0;
}

static int rank_of(const char *meta, int64_t *rank) {
  const char *v, *ve, *end = meta + strlen(meta), *rv, *rve;
  return st_json_member(meta, end, "distributedInfo", &v, &ve) &&
         st_json_member(v, ve, "rank", &rv, &rve) && int_value(rv, rve, rank);
}

static int ends_with_ci(const char *s, size_t n, const char *suffix) {
  size_t m = strlen(suffix);
  if (m >= n) return 0; /* something must be left */
  for (size_t i = 0; i < m; i++) {
    char a = s[n - m + i], b = suffix[i];
    if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
    if (a != b) return 0;
  }
  return 1;
}

static const char *const trace_suffixes[] = {".gz", ".json",   ".trace",   ".pt",
                                             ".pb", ".xplane", ".pftrace", ".perfetto-trace"};

/* The file name's last component without trace suffixes; *n its length. */
static const char *file_stem(const char *path, size_t *n) {
  const char *s = path;
  for (const char *p = path; *p; p++)
    if (*p == '/' || *p == '\\') s = p + 1;
  size_t len = strlen(s);
  for (int again = 1; again;) {
    again = 0;
    for (size_t i = 0; i < sizeof trace_suffixes / sizeof trace_suffixes[0]; i++)
      if (ends_with_ci(s, len, trace_suffixes[i])) {
        len -= strlen(trace_suffixes[i]);
        again = 1;
      }
  }
  *n = len;
  return s;
}

size_t st_profile_group_name(const st_profile_file *f, char *buf, size_t cap,
                             st_group_source *source) {
  nout o = {buf, cap, 0};
  st_group_source src = ST_GROUP_NONE;
  const char *meta = f && f->metadata_json ? f->metadata_json : "{}";
  int64_t rank;
  if (hostnames(meta, &o)) {
    src = ST_GROUP_HOSTNAME;
  } else {
    o.len = 0;
    o.cap = cap;
    if (rank_of(meta, &rank)) {
      char b[40];
      snprintf(b, sizeof b, "rank %lld", (long long)rank);
      name_lit(&o, b);
      src = ST_GROUP_RANK;
    } else if (f && f->file_name && *f->file_name) {
      size_t n;
      const char *s = file_stem(f->file_name, &n);
      if (n) {
        name_put(&o, s, n);
        src = ST_GROUP_FILE;
      }
    }
  }
  if (src == ST_GROUP_NONE) name_lit(&o, "trace");
  if (source) *source = src;
  return name_end(&o);
}

int st_profile_rank(const st_profile_file *f, int64_t *rank) {
  int64_t r;
  if (!f || !f->metadata_json || !rank_of(f->metadata_json, &r)) return 0;
  if (rank) *rank = r;
  return 1;
}

size_t st_profile_host(const st_profile_file *f, char *buf, size_t cap) {
  nout o = {buf, cap, 0};
  if (!f || !f->metadata_json || !hostnames(f->metadata_json, &o)) o.len = 0;
  return name_end(&o);
}

int st_profile_trace_name(const char *name) {
  static const char *const last[] = {".json",           ".gz",   ".pb", ".pftrace",
                                     ".perfetto-trace", ".trace"};
  size_t n = name ? strlen(name) : 0;
  for (size_t i = 0; i < sizeof last / sizeof last[0]; i++)
    if (ends_with_ci(name, n, last[i])) return 1;
  return 0;
}

static void append_file_name(char *name, size_t cap, const char *file) {
  const char *s = file ? file : "";
  for (const char *p = s; *p; p++)
    if (*p == '/' || *p == '\\') s = p + 1;
  if (!*s) return;
  nout o = {name, cap, strlen(name)};
  name_lit(&o, " (");
  name_put(&o, s, strlen(s));
  name_lit(&o, ")");
  name_end(&o);
}

st_code st_profile_group_names(const st_alloc *a, const st_profile_file *files, size_t n,
                               char *names, size_t cap) {
  if (cap < 32 || (n && (!files || !names))) return ST_ERR_ARG;
  if (!n) return ST_OK;
  uint8_t *dup = st_calloc(a, n, 1);
  if (!dup) return ST_ERR_NOMEM;
  for (size_t i = 0; i < n; i++) st_profile_group_name(&files[i], names + i * cap, cap, NULL);
  /* a name that repeats gets its file name ... */
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (strcmp(names + i * cap, names + j * cap) == 0) dup[i] = dup[j] = 1;
  for (size_t i = 0; i < n; i++)
    if (dup[i]) append_file_name(names + i * cap, cap, files[i].file_name);
  /* ... and " #k" if it still repeats: the k-th copy in input order (from
   * the last, so that the names compared are not renamed yet) */
  for (size_t i = n; i-- > 1;) {
    unsigned k = 1;
    for (size_t j = 0; j < i; j++) k += strcmp(names + i * cap, names + j * cap) == 0;
    if (k > 1) {
      char b[24];
      snprintf(b, sizeof b, " #%u", k);
      nout o = {names + i * cap, cap, strlen(names + i * cap)};
      name_lit(&o, b);
      name_end(&o);
    }
  }
  st_free(a, dup);
  return ST_OK;
}

/* ==== 3. clocks and initial offsets ====================================== */

#define EPOCH_MIN_NS 1000000000000000000ll /* 2001-09-09 in Unix ns */
#define ABSOLUTE_MIN_NS 1000000000ll       /* 1 s: below it, written from zero */

void st_profile_clock_get(const st_profile_file *f, st_profile_clock *out) {
  memset(out, 0, sizeof *out);
  if (!f || !f->trace || st_trace_event_count(f->trace) == 0) return;
  int64_t origin = st_trace_origin_ns(f->trace);
  const char *meta = f->metadata_json ? f->metadata_json : "{}";
  const char *v, *ve;
  int64_t base = 0;
  int has_base = st_json_member(meta, meta + strlen(meta), "baseTimeNanoseconds", &v, &ve) &&
                 int_value(v, ve, &base);
  int xspace = f->format && strcmp(f->format, "xplane") == 0;
  int64_t start = has_base ? st_sat_add(base, origin) : origin;
  if (!xspace && !has_base && origin < ABSOLUTE_MIN_NS) return; /* written from zero */
  out->kind = start >= EPOCH_MIN_NS ? ST_CLOCK_EPOCH : ST_CLOCK_MACHINE;
  out->start_ns = start;
  out->base_time_ns = has_base ? base : 0;
}

st_code st_profile_initial_offsets(const st_profile_clock *clocks, size_t n, int64_t *offsets_ns) {
  if (n && (!clocks || !offsets_ns)) return ST_ERR_ARG;
  int64_t lo[3] = {0, INT64_MAX, INT64_MAX};
  for (size_t i = 0; i < n; i++) {
    st_clock_kind k = clocks[i].kind;
    if ((k == ST_CLOCK_EPOCH || k == ST_CLOCK_MACHINE) && clocks[i].start_ns < lo[k])
      lo[k] = clocks[i].start_ns;
  }
  for (size_t i = 0; i < n; i++) {
    st_clock_kind k = clocks[i].kind;
    offsets_ns[i] =
        k == ST_CLOCK_EPOCH || k == ST_CLOCK_MACHINE ? st_sat_sub(clocks[i].start_ns, lo[k]) : 0;
  }
  return ST_OK;
}

/* ==== 4. step markers ==================================================== */

static int str_is(const st_strtab *s, uint32_t id, const char *lit) {
  size_t n;
  const char *p = st_strtab_get(s, id, &n);
  return n == strlen(lit) && memcmp(p, lit, n) == 0;
}

/* Decimal digits [p, p + n) -> *out (no sign, at most 18 digits). */
static int parse_step(const char *p, size_t n, int64_t *out) {
  if (n == 0 || n > 18) return 0;
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return 0;
    v = v * 10 + (p[i] - '0');
  }
  *out = v;
  return 1;
}

/* "ProfilerStep#N" -> N */
static int profiler_step(const char *p, size_t n, int64_t *step) {
  static const char pre[] = "ProfilerStep#";
  size_t m = sizeof pre - 1;
  return n > m && memcmp(p, pre, m) == 0 && parse_step(p + m, n - m, step);
}

/* A Steps line event's name: "N" or "... N" -> N */
static int line_step(const char *p, size_t n, int64_t *step) {
  size_t i = n;
  while (i > 0 && p[i - 1] >= '0' && p[i - 1] <= '9') i--;
  if (i == n || (i > 0 && p[i - 1] != ' ')) return 0;
  return parse_step(p + i, n - i, step);
}

typedef struct marker {
  int64_t step, start;
  st_event_ref ref;
} marker;

typedef struct marker_list {
  marker *m;
  size_t n, cap;
  marker first; /* earliest of all (ref ST_REF_NONE if none) */
} marker_list;

static int earlier(int64_t s, st_event_ref r, int64_t s0, st_event_ref r0) {
  if (r0.row == UINT32_MAX) return 1;
  if (s != s0) return s < s0;
  if (r.row != r0.row) return r.row < r0.row;
  return r.index < r0.index;
}

static st_code list_add(const st_alloc *a, marker_list *l, int64_t step, int64_t start,
                        st_event_ref ref) {
  if (earlier(start, ref, l->first.start, l->first.ref)) {
    l->first.step = step;
    l->first.start = start;
    l->first.ref = ref;
  }
  if (step < 0) return ST_OK;
  if (l->n == l->cap) {
    void *nm = l->m;
    if (!st_grow_from(a, &nm, &l->cap, l->n + 1, sizeof *l->m, 64)) return ST_ERR_NOMEM;
    l->m = nm;
  }
  l->m[l->n++] = (marker){step, start, ref};
  return ST_OK;
}

static void list_init(marker_list *l) {
  memset(l, 0, sizeof *l);
  l->first.ref = ST_REF_NONE;
  l->first.step = -1;
}

static void list_free(const st_alloc *a, marker_list *l) {
  st_free(a, l->m);
  list_init(l);
}

/* ProfilerStep#N events: every event whose name is one (per-string map of
 * the step number, -1 if the string is not a step name). */
static st_code collect_profiler_steps(const st_alloc *a, const st_trace *t, marker_list *l) {
  const st_strtab *s = st_trace_strings(t);
  uint32_t ns = st_strtab_count(s), nsteps = 0;
  int64_t *map = st_malloc(a, (size_t)(ns ? ns : 1) * sizeof *map);
  if (!map) return ST_ERR_NOMEM;
  for (uint32_t id = 0; id < ns; id++) {
    size_t n;
    const char *p = st_strtab_get(s, id, &n);
    map[id] = -1;
    if (profiler_step(p, n, &map[id])) nsteps++;
  }
  st_code c = ST_OK;
  uint32_t nr;
  const st_row *rows = st_trace_rows(t, &nr);
  for (uint32_t r = 0; r < nr && nsteps && c == ST_OK; r++)
    for (uint32_t i = 0; i < rows[r].count && c == ST_OK; i++) {
      uint32_t id = rows[r].name[i];
      if (id < ns && map[id] >= 0)
        c = list_add(a, l, map[id], rows[r].start[i], (st_event_ref){r, i});
    }
  st_free(a, map);
  return c;
}

/* Events of tracks named `track_name`; with steps, their step numbers. */
static st_code collect_track(const st_alloc *a, const st_trace *t, const char *track_name,
                             int steps, marker_list *l) {
  const st_strtab *s = st_trace_strings(t);
  uint32_t ntr;
  const st_track *tr = st_trace_tracks(t, &ntr);
  const st_row *rows = st_trace_rows(t, NULL);
  for (uint32_t k = 0; k < ntr; k++) {
    if (tr[k].kind == ST_TRACK_COUNTER || !str_is(s, tr[k].name, track_name)) continue;
    for (uint32_t r = tr[k].first_row; r < tr[k].first_row + tr[k].row_count; r++)
      for (uint32_t i = 0; i < rows[r].count; i++) {
        int64_t step = -1;
        if (steps) {
          size_t n;
          const char *p = st_strtab_get(s, rows[r].name[i], &n);
          if (!line_step(p, n, &step)) step = -1;
        }
        if (!steps && i > 0) break; /* only the first of each row matters */
        st_code c = list_add(a, l, step, rows[r].start[i], (st_event_ref){r, i});
        if (c != ST_OK) return c;
      }
  }
  return ST_OK;
}

/* Heap sort by (step, start, row, index): no memory, O(n log n). */
static int marker_less(const marker *x, const marker *y) {
  if (x->step != y->step) return x->step < y->step;
  return earlier(x->start, x->ref, y->start, y->ref);
}

static void sift(marker *m, size_t i, size_t n) {
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) return;
    if (c + 1 < n && marker_less(&m[c], &m[c + 1])) c++;
    if (!marker_less(&m[i], &m[c])) return;
    marker t = m[i];
    m[i] = m[c];
    m[c] = t;
    i = c;
  }
}

static void sort_markers(marker *m, size_t n) {
  for (size_t i = n / 2; i-- > 0;) sift(m, i, n);
  for (size_t e = n; e-- > 1;) {
    marker t = m[0];
    m[0] = m[e];
    m[e] = t;
    sift(m, 0, e);
  }
}

/* The smallest step both lists have, each side's earliest occurrence of it. */
static int common_step(marker_list *a, marker_list *b, marker *ea, marker *eb) {
  sort_markers(a->m, a->n);
  sort_markers(b->m, b->n);
  size_t i = 0, j = 0;
  while (i < a->n && j < b->n) {
    if (a->m[i].step < b->m[j].step)
      i++;
    else if (a->m[i].step > b->m[j].step)
      j++;
    else {
      *ea = a->m[i]; /* sorted by start within a step: the earliest */
      *eb = b->m[j];
      return 1;
    }
  }
  return 0;
}

/* ==== 5. alignment ======================================================= */

typedef enum { M_PROFILER, M_STEPS, M_XLA } marker_kind;

static st_code collect(const st_alloc *a, const st_trace *t, marker_kind k, marker_list *l) {
  switch (k) {
  case M_PROFILER: return collect_profiler_steps(a, t, l);
  case M_STEPS: return collect_track(a, t, "Steps", 1, l);
  case M_XLA: return collect_track(a, t, "XLA Modules", 0, l);
  }
  return ST_ERR_ARG;
}

st_code st_profile_compare_offset(const st_alloc *alloc, const st_trace *a, const st_trace *b,
                                  st_profile_alignment *out) {
  if (!out) return ST_ERR_ARG;
  memset(out, 0, sizeof *out);
  out->kind = ST_ALIGN_START;
  out->ref_a = out->ref_b = ST_REF_NONE;
  out->step = -1;
  if (!a || !b) return ST_ERR_ARG;
  st_alloc al = alloc ? *alloc : (st_alloc){0};
  static const st_align_kind kinds[3] = {ST_ALIGN_PROFILER_STEP, ST_ALIGN_STEPS_LINE,
                                         ST_ALIGN_XLA_MODULE};
  for (int k = 0; k < 3; k++) {
    marker_list la, lb;
    list_init(&la);
    list_init(&lb);
    st_code c = collect(&al, a, (marker_kind)k, &la);
    if (c == ST_OK) c = collect(&al, b, (marker_kind)k, &lb);
    if (c != ST_OK) {
      list_free(&al, &la);
      list_free(&al, &lb);
      return c;
    }
    int found = 0;
    if (la.first.ref.row != UINT32_MAX && lb.first.ref.row != UINT32_MAX) {
      marker ea = la.first, eb = lb.first;
      if (common_step(&la, &lb, &ea, &eb)) out->step = ea.step;
      out->kind = kinds[k];
      out->ref_a = ea.ref;
      out->ref_b = eb.ref;
      out->offset_ns = st_sat_sub(ea.start, eb.start);
      found = 1;
    }
    list_free(&al, &la);
    list_free(&al, &lb);
    if (found) return ST_OK;
  }
  return ST_OK;
}

st_code st_profile_align_events(const st_trace *a, st_event_ref ea, const st_trace *b,
                                st_event_ref eb, int64_t *offset_ns) {
  if (!offset_ns || !st_ref_valid(a, ea) || !st_ref_valid(b, eb)) return ST_ERR_ARG;
  const st_row *ra = st_trace_rows(a, NULL), *rb = st_trace_rows(b, NULL);
  *offset_ns = st_sat_sub(ra[ea.row].start[ea.index], rb[eb.row].start[eb.index]);
  return ST_OK;
}

int st_profile_find_step(const st_trace *t, int64_t step, st_event_ref *ref, int64_t *t0_ns,
                         int64_t *t1_ns) {
  if (!t || step < 0) return 0;
  char want[40];
  int wn = snprintf(want, sizeof want, "ProfilerStep#%lld", (long long)step);
  const st_strtab *s = st_trace_strings(t);
  uint32_t ns = st_strtab_count(s), id = ST_STR_NONE;
  for (uint32_t i = 0; i < ns && id == ST_STR_NONE; i++) {
    size_t n;
    const char *p = st_strtab_get(s, i, &n);
    if (n == (size_t)wn && memcmp(p, want, n) == 0) id = i;
  }
  uint32_t nr;
  const st_row *rows = st_trace_rows(t, &nr);
  st_event_ref best = ST_REF_NONE;
  int64_t bs = 0;
  if (id != ST_STR_NONE)
    for (uint32_t r = 0; r < nr; r++)
      for (uint32_t i = 0; i < rows[r].count; i++)
        if (rows[r].name[i] == id && earlier(rows[r].start[i], (st_event_ref){r, i}, bs, best)) {
          best = (st_event_ref){r, i};
          bs = rows[r].start[i];
        }
  if (best.row == UINT32_MAX) { /* a "Steps" line */
    uint32_t ntr;
    const st_track *tr = st_trace_tracks(t, &ntr);
    for (uint32_t k = 0; k < ntr; k++) {
      if (tr[k].kind == ST_TRACK_COUNTER || !str_is(s, tr[k].name, "Steps")) continue;
      for (uint32_t r = tr[k].first_row; r < tr[k].first_row + tr[k].row_count; r++)
        for (uint32_t i = 0; i < rows[r].count; i++) {
          size_t n;
          const char *p = st_strtab_get(s, rows[r].name[i], &n);
          int64_t v;
          if (line_step(p, n, &v) && v == step &&
              earlier(rows[r].start[i], (st_event_ref){r, i}, bs, best)) {
            best = (st_event_ref){r, i};
            bs = rows[r].start[i];
          }
        }
    }
  }
  if (best.row == UINT32_MAX) return 0;
  if (ref) *ref = best;
  if (t0_ns) *t0_ns = bs;
  if (t1_ns) *t1_ns = st_sat_add(bs, rows[best.row].dur[best.index]);
  return 1;
}

const char *st_group_source_name(st_group_source s) {
  static const char *const names[] = {"hostname", "rank", "file", "none"};
  return (unsigned)s < sizeof names / sizeof *names ? names[s] : "none";
}

const char *st_clock_kind_name(st_clock_kind k) {
  static const char *const names[] = {"none", "epoch", "machine"};
  return (unsigned)k < sizeof names / sizeof *names ? names[k] : "none";
}
