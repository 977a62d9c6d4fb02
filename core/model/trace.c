/* trace.c: the trace model's accessors (see trace.h): processes, tracks,
 * rows, counters, end srcs and flows (their lookups by binary search),
 * memory events and blocks, and the parts of a merged trace. The model is
 * built by trace_builder.c (with trace_layout.c and trace_flows.c) and
 * merged by trace_merge.c; trace_internal.h is what they share. */
#include "trace_internal.h"

#include "bisect.h"

/* ==== 4. trace accessors ================================================= */

void st_trace_destroy(st_trace *t) {
  if (!t) return;
  st_alloc a = t->alloc;
  if (t->own_strings) st_strtab_destroy(t->strings);
  st_free(&a, t->parts);
  st_free(&a, t->procs);
  st_free(&a, t->tracks);
  st_free(&a, t->rows);
  st_free(&a, t->counters);
  for (uint32_t i = 0; i < t->col_count; i++) st_free(&a, t->col[i]);
  st_free(&a, t->col);
  st_free(&a, t->flows);
  st_free(&a, t->flows_in);
  st_free(&a, t->ends);
  st_frames_destroy(t->frames);
  st_free(&a, t->mem);
  st_free(&a, t->blocks);
  st_free(&a, t);
}

const st_strtab *st_trace_strings(const st_trace *t) { return t ? t->strings : NULL; }
const st_frames *st_trace_frames(const st_trace *t) { return t ? t->frames : NULL; }

const st_mem_event *st_trace_mem_events(const st_trace *t, size_t *count) {
  if (count) *count = t ? t->mem_count : 0;
  return t ? t->mem : NULL;
}

const st_block *st_trace_blocks(const st_trace *t, size_t *count) {
  if (count) *count = t ? t->block_count : 0;
  return t ? t->blocks : NULL;
}

const st_block *st_trace_block(const st_trace *t, uint32_t row, uint32_t index) {
  if (!t || row >= t->row_count || index >= t->rows[row].count) return NULL;
  if (t->parts) {
    uint32_t k = st_trace_part_of_row(t, row);
    return k == UINT32_MAX ? NULL
                           : st_trace_block(t->parts[k].trace, row - t->parts[k].row_base, index);
  }
  if (!t->block_count) return NULL;
  uint64_t src = t->rows[row].src[index];
  size_t lo = st_bound_u64_at(t->blocks, t->block_count, sizeof *t->blocks, offsetof(st_block, src),
                              src, ST_LOWER);
  return lo < t->block_count && t->blocks[lo].src == src ? &t->blocks[lo] : NULL;
}

const st_frames *st_trace_row_frames(const st_trace *t, uint32_t row) {
  if (!t || row >= t->row_count) return NULL;
  if (!t->parts) return t->frames;
  uint32_t k = st_trace_part_of_row(t, row);
  return k == UINT32_MAX ? NULL : t->parts[k].trace->frames;
}

const st_process *st_trace_processes(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->proc_count : 0;
  return t ? t->procs : NULL;
}
const st_track *st_trace_tracks(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->track_count : 0;
  return t ? t->tracks : NULL;
}
const st_row *st_trace_rows(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->row_count : 0;
  return t ? t->rows : NULL;
}
const st_counter *st_trace_counters(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->counter_count : 0;
  return t ? t->counters : NULL;
}
int64_t st_trace_origin_ns(const st_trace *t) { return t ? t->origin : 0; }
int64_t st_trace_duration_ns(const st_trace *t) { return t ? t->duration : 0; }
uint64_t st_trace_event_count(const st_trace *t) {
  return t ? (uint64_t)t->ev_count + t->cs_count : 0;
}
size_t st_trace_bytes(const st_trace *t) {
  return t ? t->bytes + (t->own_strings ? st_strtab_bytes(t->strings) : 0) : 0;
}

uint64_t st_trace_end_src_of(const st_trace *t, uint64_t src) {
  if (!t || !t->end_count) return UINT64_MAX;
  size_t lo = st_bound_u64_at(t->ends, t->end_count, sizeof *t->ends, offsetof(st_end_src, src),
                              src, ST_LOWER);
  return lo < t->end_count && t->ends[lo].src == src ? t->ends[lo].end_src : UINT64_MAX;
}

uint64_t st_trace_end_src(const st_trace *t, uint32_t row, uint32_t index) {
  if (t && t->parts) { /* a merged trace: the part's own table */
    uint32_t k = st_trace_part_of_row(t, row);
    if (k == UINT32_MAX) return UINT64_MAX;
    return st_trace_end_src(t->parts[k].trace, row - t->parts[k].row_base, index);
  }
  if (!t || !t->end_count || row >= t->row_count || index >= t->rows[row].count ||
      !(t->rows[row].flags[index] & ST_EV_HAS_END))
    return UINT64_MAX;
  return st_trace_end_src_of(t, t->rows[row].src[index]);
}

const st_end_src *st_trace_end_srcs(const st_trace *t, size_t *count) {
  if (count) *count = t ? t->end_count : 0;
  return t && t->end_count ? t->ends : NULL;
}

const st_flow *st_trace_flows(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->flow_count : 0;
  return t ? t->flows : NULL;
}
const uint32_t *st_trace_flows_in(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->flow_count : 0;
  return t ? t->flows_in : NULL;
}

/* First position whose (row, index) key is >= (row, index); in = 0 searches
 * the flows by source, 1 the destination index. */
typedef struct flow_key {
  const st_trace *t;
  int in;
  uint32_t row, index;
} flow_key;

static int flow_before(const void *ctx, size_t mid) {
  const flow_key *k = ctx;
  const st_flow *f = &k->t->flows[k->in ? k->t->flows_in[mid] : mid];
  uint32_t r = k->in ? f->to_row : f->from_row, i = k->in ? f->to_index : f->from_index;
  return r < k->row || (r == k->row && i < k->index);
}

static uint32_t flow_lower(const st_trace *t, int in, uint32_t row, uint32_t index) {
  flow_key k = {t, in, row, index};
  return (uint32_t)st_partition_point(0, t->flow_count, flow_before, &k);
}

static uint32_t flow_range(const st_trace *t, int in, uint32_t row, uint32_t lo, uint32_t hi,
                           uint32_t *first) {
  if (first) *first = 0;
  if (!t || !t->flow_count || lo >= hi) return 0;
  uint32_t a = flow_lower(t, in, row, lo), b = flow_lower(t, in, row, hi);
  if (first) *first = a;
  return b - a;
}

uint32_t st_trace_flows_from(const st_trace *t, uint32_t row, uint32_t index_lo, uint32_t index_hi,
                             uint32_t *first) {
  return flow_range(t, 0, row, index_lo, index_hi, first);
}
uint32_t st_trace_flows_to(const st_trace *t, uint32_t row, uint32_t index_lo, uint32_t index_hi,
                           uint32_t *first) {
  return flow_range(t, 1, row, index_lo, index_hi, first);
}

void st_trace_flow_info(const st_trace *t, st_flow_info *out) {
  if (!out) return;
  if (t)
    *out = t->flow_info;
  else
    memset(out, 0, sizeof *out);
}

/* ---- the parts of a merged trace (built by trace_merge.c) --------------- */

const st_trace_part *st_trace_parts(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->part_count : 0;
  return t ? t->parts : NULL;
}

/* The last part whose base (at field offset `off`) is <= v, if v is below
 * its base + count: parts are in base order. */
static uint32_t part_of(const st_trace *t, uint32_t v, int which) {
  if (!t || !t->parts) return UINT32_MAX;
  size_t off = which == 0   ? offsetof(st_trace_part, row_base)
               : which == 1 ? offsetof(st_trace_part, process_base)
                            : offsetof(st_trace_part, track_base);
  uint32_t lo =
      (uint32_t)st_bound_u32_at(t->parts, t->part_count, sizeof *t->parts, off, v, ST_UPPER);
  lo = lo ? lo - 1 : 0;
  /* empty parts share their base with the next one: take the one holding v */
  for (uint32_t k = lo; k < t->part_count; k++) {
    const st_trace_part *p = &t->parts[k];
    uint32_t base = which == 0 ? p->row_base : which == 1 ? p->process_base : p->track_base;
    uint32_t n = which == 0 ? p->row_count : which == 1 ? p->process_count : p->track_count;
    if (base > v) break;
    if (v - base < n) return k;
  }
  return UINT32_MAX;
}

uint32_t st_trace_part_of_row(const st_trace *t, uint32_t row) { return part_of(t, row, 0); }
uint32_t st_trace_part_of_process(const st_trace *t, uint32_t process) {
  return part_of(t, process, 1);
}

int64_t st_trace_row_origin_ns(const st_trace *t, uint32_t row) {
  if (!t) return 0;
  if (!t->parts) return t->origin;
  uint32_t k = st_trace_part_of_row(t, row);
  return k == UINT32_MAX ? t->origin : t->parts[k].trace->origin;
}

int64_t st_trace_shift_ns(const st_trace *t) { return t ? t->shift : 0; }
