/* analyze_steps.c: a trace's steps (analyze.h "steps"): the markers of the
 * first rule that finds any (a step name the user gave, PyTorch's
 * ProfilerStep#N, else the events of the Steps lines), grouped into steps
 * (by number: the hull of the markers; named steps: by overlap), in time
 * order; each device's own window of a step from its Steps line.
 */
#include "analyze.h"
#include "analyze_internal.h"

#include "bisect.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ProfilerStep#N -> N, else -1 */
static int64_t profiler_step(const char *s, size_t n) {
  static const char p[] = "ProfilerStep#";
  size_t m = sizeof p - 1;
  if (n <= m || memcmp(s, p, m) != 0 || n - m > 18) return -1;
  int64_t v = 0;
  for (size_t i = m; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

/* "7" or "train_step 7" -> 7, else -1 */
static int64_t trailing_number(const char *s, size_t n) {
  size_t i = n;
  while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') i--;
  if (i == n || n - i > 18 || (i > 0 && s[i - 1] != ' ')) return -1;
  int64_t v = 0;
  for (size_t k = i; k < n; k++) v = v * 10 + (s[k] - '0');
  return v;
}

static int cmp_raw_number(const void *x, const void *y) {
  const raw_step *a = x, *b = y;
  if (a->number != b->number) return a->number < b->number ? -1 : 1;
  return a->t0 < b->t0 ? -1 : a->t0 > b->t0;
}
static int cmp_raw_time(const void *x, const void *y) {
  const raw_step *a = x, *b = y;
  if (a->t0 != b->t0) return a->t0 < b->t0 ? -1 : 1;
  return a->number < b->number ? -1 : a->number > b->number;
}
static int cmp_raw_process(const void *x, const void *y) {
  const raw_step *a = x, *b = y;
  if (a->process != b->process) return a->process < b->process ? -1 : 1;
  return cmp_raw_number(x, y);
}

static int push_raw(const st_alloc *a, raw_step **v, size_t *n, size_t *cap, raw_step r) {
  if (*n == *cap) {
    void *nv = *v;
    if (!st_grow_from(a, &nv, cap, *n + 1, sizeof **v, 64)) return 0;
    *v = nv;
  }
  (*v)[(*n)++] = r;
  return 1;
}

/* The markers of one rule into *raw; ST_OK or ST_ERR_NOMEM. */
static st_code collect_steps(const st_alloc *a, trace_ctx *c, st_step_source src,
                             const int64_t *number_of, uint32_t named_id, raw_step **raw,
                             size_t *n) {
  size_t cap = 0;
  uint32_t nr, nt;
  const st_row *rows = st_trace_rows(c->t, &nr);
  const st_track *tracks = st_trace_tracks(c->t, &nt);
  const st_strtab *strs = st_trace_strings(c->t);
  for (uint32_t r = 0; r < nr; r++) {
    const st_row *row = &rows[r];
    const st_track *tk = &tracks[row->track];
    if (tk->kind != ST_TRACK_SLICES && tk->kind != ST_TRACK_ASYNC) continue;
    if (src == ST_STEPS_STEPS_LINE) {
      size_t l;
      const char *tn = st_strtab_get(strs, tk->name, &l);
      if (tk->kind != ST_TRACK_SLICES || !an_eq(tn, l, "Steps")) continue;
    }
    for (uint32_t i = 0; i < row->count; i++) {
      int64_t num = -1;
      uint32_t id = row->name[i];
      if (src == ST_STEPS_NAMED) {
        if (id != named_id) continue;
        num = 0;
      } else if (src == ST_STEPS_PROFILER_STEP) {
        if (id >= c->ncls || !(c->cls[id] & MARKER)) continue;
        num = number_of[id];
      } else {
        size_t l;
        const char *s = st_strtab_get(strs, id, &l);
        num = trailing_number(s, l);
        if (num < 0) num = (int64_t)i + 1;
      }
      raw_step rs = {num, row->start[i], st_sat_add(row->start[i], row->dur[i]), tk->process};
      if (!push_raw(a, raw, n, &cap, rs)) return ST_ERR_NOMEM;
    }
  }
  return ST_OK;
}

/* Finds the trace's steps (analyze.h rules) and appends them to an. */
st_code an_find_steps(st_analysis *an, trace_ctx *c, uint32_t k, const st_analyze_opts *o) {
  const st_alloc *a = &an->alloc;
  const st_strtab *strs = st_trace_strings(c->t);
  uint32_t ns = st_strtab_count(strs), named = ST_STR_NONE;
  int64_t *number_of = st_calloc(a, ns ? ns : 1, sizeof *number_of);
  if (!number_of) return ST_ERR_NOMEM;
  int any_profiler = 0;
  for (uint32_t i = 0; i < ns; i++) {
    size_t l;
    const char *s = st_strtab_get(strs, i, &l);
    number_of[i] = profiler_step(s, l);
    if (o->step_name && l == o->step_name_len && memcmp(s, o->step_name, l) == 0) named = i;
    any_profiler |= number_of[i] >= 0;
  }
  raw_step *raw = NULL;
  size_t n = 0;
  st_code rc = ST_OK;
  c->source = ST_STEPS_NONE;
  if (named != ST_STR_NONE) {
    c->cls[named] |= MARKER;
    rc = collect_steps(a, c, ST_STEPS_NAMED, number_of, named, &raw, &n);
    if (n)
      c->source = ST_STEPS_NAMED;
    else
      c->cls[named] &= (uint8_t)~MARKER;
  }
  if (rc == ST_OK && !n && any_profiler) {
    for (uint32_t i = 0; i < ns; i++)
      if (number_of[i] >= 0) c->cls[i] |= MARKER;
    rc = collect_steps(a, c, ST_STEPS_PROFILER_STEP, number_of, 0, &raw, &n);
    if (n) c->source = ST_STEPS_PROFILER_STEP;
  }
  if (rc == ST_OK && !n) {
    rc = collect_steps(a, c, ST_STEPS_STEPS_LINE, number_of, 0, &raw, &n);
    if (n) c->source = ST_STEPS_STEPS_LINE;
  }
  st_free(a, number_of);
  /* group: by number (hull), or by overlap for named steps */
  if (rc == ST_OK && n) {
    int named_src = c->source == ST_STEPS_NAMED;
    qsort(raw, n, sizeof *raw, named_src ? cmp_raw_time : cmp_raw_number);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
      raw_step r = raw[i];
      int same = m > 0 && (named_src ? r.t0 < an->steps[an->nsteps + m - 1].t1_ns
                                     : r.number == an->steps[an->nsteps + m - 1].number);
      if (same) {
        st_an_step *s = &an->steps[an->nsteps + m - 1];
        if (r.t0 < s->t0_ns) s->t0_ns = r.t0;
        if (r.t1 > s->t1_ns) s->t1_ns = r.t1;
        continue;
      }
      size_t need = (size_t)an->nsteps + m + 1;
      if (need > UINT32_MAX - 1) break;
      void *v = an->steps;
      int ok = st_grow32(a, &v, &an->cap_steps, need, sizeof *an->steps, 64);
      an->steps = v;
      if (!ok) {
        rc = ST_ERR_NOMEM;
        break;
      }
      st_an_step *s = &an->steps[an->nsteps + m++];
      memset(s, 0, sizeof *s);
      s->trace = k;
      s->number = named_src ? (int64_t)m : r.number;
      s->t0_ns = r.t0;
      s->t1_ns = r.t1;
    }
    /* in time order (ties by number) */
    for (size_t i = 1; rc == ST_OK && i < m; i++) {
      st_an_step x = an->steps[an->nsteps + i];
      size_t j = i;
      while (j > 0 && (an->steps[an->nsteps + j - 1].t0_ns > x.t0_ns ||
                       (an->steps[an->nsteps + j - 1].t0_ns == x.t0_ns &&
                        an->steps[an->nsteps + j - 1].number > x.number))) {
        an->steps[an->nsteps + j] = an->steps[an->nsteps + j - 1];
        j--;
      }
      an->steps[an->nsteps + j] = x;
    }
    an->first_step[k] = an->nsteps;
    an->step_count[k] = (uint32_t)m;
    an->nsteps += (uint32_t)m;
  } else {
    an->first_step[k] = an->nsteps;
  }
  if (rc == ST_OK && c->source == ST_STEPS_STEPS_LINE) {
    qsort(raw, n, sizeof *raw, cmp_raw_process);
    c->raw = raw;
    c->nraw = n;
  } else {
    st_free(a, raw);
  }
  return rc;
}

/* The device's own Steps line window of step `number`, if it has one. */
int an_own_window(const trace_ctx *c, uint32_t process, int64_t number, int64_t *t0, int64_t *t1) {
  size_t lo = st_bound_pair_at(c->raw, c->nraw, sizeof *c->raw, offsetof(raw_step, process),
                               process, offsetof(raw_step, number), number, ST_LOWER);
  if (lo >= c->nraw || c->raw[lo].process != process || c->raw[lo].number != number) return 0;
  *t0 = c->raw[lo].t0;
  *t1 = c->raw[lo].t1;
  return 1;
}
