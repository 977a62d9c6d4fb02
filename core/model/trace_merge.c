/* trace_merge.c: merged traces (trace.h "merged traces"): a profile's
 * traces joined into one, each a part with its bases (rows, processes,
 * tracks) and its clock offset, and the parts' offsets changed after the
 * merge (the columns shifted). Which part a row or process came from is
 * an accessor of trace.c.
 */
#include "trace_internal.h"

#include "bisect.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Adds delta to every time of a plain trace (its columns are its own). */
static void shift_columns(st_trace *t, int64_t delta) {
  if (!delta) return;
  for (uint32_t r = 0; r < t->row_count; r++) {
    int64_t *start = (int64_t *)t->rows[r].start; /* the trace owns its columns */
    for (uint32_t i = 0; i < t->rows[r].count; i++) start[i] += delta;
  }
  for (uint32_t c = 0; c < t->counter_count; c++) {
    int64_t *ts = (int64_t *)t->counters[c].ts; /* the trace owns its columns */
    for (uint32_t i = 0; i < t->counters[c].count; i++) ts[i] += delta;
  }
  t->origin -= delta;
  t->shift += delta;
}

/* 1 if moving a trace of duration dur to offset off stays inside int64 with
 * room to spare (times are added to and subtracted from freely). */
static int offset_ok(int64_t off, int64_t dur) {
  const int64_t lim = INT64_MAX / 4;
  return off > -lim && off < lim && dur < lim - (off > 0 ? off : 0);
}

/* Normalises offsets (smallest 0) into out; 0 if out of range. */
static int normalise(const st_trace_part *parts, uint32_t n, const int64_t *in, int64_t *out) {
  int64_t lo = 0;
  for (uint32_t k = 0; k < n; k++) {
    if (!offset_ok(in[k], parts[k].trace->duration)) return 0;
    if (k == 0 || in[k] < lo) lo = in[k];
  }
  for (uint32_t k = 0; k < n; k++) out[k] = in[k] - lo;
  return 1;
}

static void merged_extent(st_trace *m) {
  int64_t end = 0;
  for (uint32_t k = 0; k < m->part_count; k++) {
    int64_t e = m->parts[k].offset_ns + m->parts[k].trace->duration;
    if (e > end) end = e;
  }
  m->duration = end;
  m->origin = m->part_count ? m->parts[0].trace->origin : 0;
}

st_code st_trace_merge_set_offsets(st_trace *t, const int64_t *offsets, int64_t *deltas) {
  if (!t || !t->parts || !offsets) return ST_ERR_ARG;
  int64_t stack[16], *norm = stack;
  if (t->part_count > 16) {
    norm = st_calloc(&t->alloc, t->part_count, sizeof *norm);
    if (!norm) return ST_ERR_NOMEM;
  }
  st_code rc = ST_OK;
  if (!normalise(t->parts, t->part_count, offsets, norm)) {
    rc = ST_ERR_ARG;
  } else {
    for (uint32_t k = 0; k < t->part_count; k++) {
      st_trace_part *p = &t->parts[k];
      int64_t delta = norm[k] - p->offset_ns;
      shift_columns(p->trace, delta);
      p->offset_ns = norm[k];
      if (deltas) deltas[k] = delta;
    }
    merged_extent(t);
  }
  if (norm != stack) st_free(&t->alloc, norm);
  return rc;
}

static st_trace *merge_fail(st_trace *m, st_error *err, st_code code, const char *what) {
  st_error_set(err, code, 0, what);
  st_trace_destroy(m);
  return NULL;
}

st_trace *st_trace_merge(const st_alloc *a, st_trace *const *parts, const uint32_t *names,
                         const int64_t *offsets, uint32_t n, st_error *err) {
  st_alloc al = a ? *a : (st_alloc){0};
  if (err) st_error_set(err, ST_OK, 0, "");
  if (!parts || !n) {
    st_error_set(err, ST_ERR_ARG, 0, "no traces to merge");
    return NULL;
  }
  uint64_t np = 0, nt = 0, nr = 0, nc = 0, nf = 0, nev = 0, ncs = 0;
  for (uint32_t k = 0; k < n; k++) {
    const st_trace *p = parts[k];
    if (!p || p->parts || p->strings != parts[0]->strings) {
      st_error_set(err, ST_ERR_ARG, 0, "merged traces must be plain and share one string table");
      return NULL;
    }
    for (uint32_t j = 0; j < k; j++)
      if (parts[j] == p) {
        st_error_set(err, ST_ERR_ARG, 0, "a trace can be merged only once");
        return NULL;
      }
    np += p->proc_count, nt += p->track_count, nr += p->row_count, nc += p->counter_count;
    nf += p->flow_count, nev += p->ev_count, ncs += p->cs_count;
  }
  if (np >= UINT32_MAX || nt >= UINT32_MAX || nr >= UINT32_MAX || nc >= UINT32_MAX ||
      nf >= UINT32_MAX) {
    st_error_set(err, ST_ERR_LIMIT, 0, "too many rows to merge (2^32)");
    return NULL;
  }
  st_trace *m = st_calloc(&al, 1, sizeof *m);
  if (!m) {
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory merging traces");
    return NULL;
  }
  m->alloc = al;
  m->strings = parts[0]->strings;
  m->part_count = n;
  m->parts = st_calloc(&al, n, sizeof *m->parts);
  m->procs = st_calloc(&al, np + 1, sizeof *m->procs);
  m->tracks = st_calloc(&al, nt + 1, sizeof *m->tracks);
  m->rows = st_calloc(&al, nr + 1, sizeof *m->rows);
  m->counters = st_calloc(&al, nc + 1, sizeof *m->counters);
  m->flows = st_calloc(&al, nf + 1, sizeof *m->flows);
  m->flows_in = st_calloc(&al, nf + 1, sizeof *m->flows_in);
  if (!m->parts || !m->procs || !m->tracks || !m->rows || !m->counters || !m->flows || !m->flows_in)
    return merge_fail(m, err, ST_ERR_NOMEM, "out of memory merging traces");
  uint32_t pb = 0, tb = 0, rb = 0, cb = 0, fb = 0;
  for (uint32_t k = 0; k < n; k++) {
    st_trace *p = parts[k];
    st_trace_part *pt = &m->parts[k];
    *pt = (st_trace_part){p,       names ? names[k] : ST_STR_EMPTY,
                          pb,      p->proc_count,
                          tb,      p->track_count,
                          rb,      p->row_count,
                          cb,      p->counter_count,
                          fb,      p->flow_count,
                          p->shift};
    for (uint32_t i = 0; i < p->proc_count; i++) {
      st_process q = p->procs[i];
      q.first_track += tb;
      m->procs[pb + i] = q;
    }
    for (uint32_t i = 0; i < p->track_count; i++) {
      st_track q = p->tracks[i];
      q.process += pb;
      q.first_row += rb;
      if (q.kind == ST_TRACK_COUNTER) q.counter += cb;
      m->tracks[tb + i] = q;
    }
    for (uint32_t i = 0; i < p->row_count; i++) {
      st_row q = p->rows[i];
      q.track += tb;
      m->rows[rb + i] = q;
    }
    for (uint32_t i = 0; i < p->counter_count; i++) {
      st_counter q = p->counters[i];
      q.track += tb;
      m->counters[cb + i] = q;
    }
    /* rows only grow from part to part: both flow orders stay sorted */
    for (uint32_t i = 0; i < p->flow_count; i++) {
      st_flow f = p->flows[i];
      f.from_row += rb;
      f.to_row += rb;
      m->flows[fb + i] = f;
      m->flows_in[fb + i] = p->flows_in[i] + fb;
    }
    m->flow_info.bound += p->flow_info.bound;
    m->flow_info.unmatched += p->flow_info.unmatched;
    m->flow_info.unbound += p->flow_info.unbound;
    pb += p->proc_count, tb += p->track_count, rb += p->row_count, cb += p->counter_count;
    fb += p->flow_count;
  }
  m->proc_count = pb, m->track_count = tb, m->row_count = rb, m->counter_count = cb;
  m->flow_count = fb;
  m->ev_count = (size_t)nev;
  m->cs_count = 0; /* the columns are the parts' (col stays NULL); samples'
                    * frames are each part's own (st_trace_row_frames) */
  m->bytes = sizeof *m + (size_t)n * sizeof *m->parts + (size_t)(np + 1) * sizeof *m->procs +
             (size_t)(nt + 1) * sizeof *m->tracks + (size_t)(nr + 1) * sizeof *m->rows +
             (size_t)(nc + 1) * sizeof *m->counters +
             (size_t)(nf + 1) * (sizeof *m->flows + sizeof *m->flows_in);
  int64_t stack[16], *want = stack;
  if (n > 16) {
    want = st_calloc(&al, n, sizeof *want);
    if (!want) return merge_fail(m, err, ST_ERR_NOMEM, "out of memory merging traces");
  }
  for (uint32_t k = 0; k < n; k++) want[k] = offsets ? offsets[k] : 0;
  st_code rc = st_trace_merge_set_offsets(m, want, NULL);
  if (want != stack) st_free(&al, want);
  if (rc != ST_OK) return merge_fail(m, err, rc, "trace offsets out of range");
  /* event counts: the parts' samples count too (st_trace_event_count) */
  m->ev_count = (size_t)(nev + ncs);
  return m;
}
