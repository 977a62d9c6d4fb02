/* trace_digest.c: st_trace_digest (trace.h): one SHA-256 over everything a
 * model holds, in model order, with names hashed as their text so two
 * models built with different string ids compare equal when they say the
 * same thing. For tests and tools (a split import against a one-worker
 * one): it walks every event, so it is not for the load path. */
#include "sha256.h"
#include "trace.h"

#include <string.h>

static void u64(st_sha256_ctx *c, uint64_t v) { st_sha256_update(c, &v, 8); }

static void str(st_sha256_ctx *c, const st_strtab *s, uint32_t id) {
  size_t n = 0;
  const char *p = st_strtab_get(s, id, &n);
  u64(c, p ? n : UINT64_MAX);
  if (p) st_sha256_update(c, p, n);
}

void st_trace_digest(const st_trace *t, uint8_t out[32]) {
  st_sha256_ctx c;
  st_sha256_init(&c);
  const st_strtab *s = st_trace_strings(t);
  uint32_t np, nt, nr, nc, nf;
  const st_process *ps = st_trace_processes(t, &np);
  const st_track *ts = st_trace_tracks(t, &nt);
  const st_row *rs = st_trace_rows(t, &nr);
  const st_counter *cs = st_trace_counters(t, &nc);
  const st_flow *fs = st_trace_flows(t, &nf);
  u64(&c, (uint64_t)st_trace_origin_ns(t));
  u64(&c, (uint64_t)st_trace_duration_ns(t));
  u64(&c, ((uint64_t)np << 32) | nt);
  u64(&c, ((uint64_t)nr << 32) | nc);
  for (uint32_t i = 0; i < np; i++) {
    u64(&c, (uint64_t)ps[i].pid);
    str(&c, s, ps[i].name);
    str(&c, s, ps[i].labels);
    u64(&c, ((uint64_t)(uint32_t)ps[i].sort_index << 32) | ps[i].first_track);
    u64(&c, ps[i].track_count);
  }
  for (uint32_t i = 0; i < nt; i++) {
    const st_track *k = &ts[i];
    u64(&c, (uint64_t)k->kind | (uint64_t)k->overflow << 8 | (uint64_t)k->indent << 16 |
                (uint64_t)k->markers << 24 | (uint64_t)k->process << 32);
    u64(&c, (uint64_t)k->key);
    str(&c, s, k->name);
    u64(&c, ((uint64_t)(uint32_t)k->sort_index << 32) | k->first_row);
    u64(&c, ((uint64_t)k->row_count << 32) | k->counter);
    if (k->unit) str(&c, s, k->unit); /* only where stated: digests of unit-less traces unchanged */
    if (k->block_span) u64(&c, k->block_span); /* a memory blocks track's */
  }
  for (uint32_t i = 0; i < nr; i++) {
    const st_row *r = &rs[i];
    int samples = r->track < nt && ts[r->track].kind == ST_TRACK_SAMPLES;
    u64(&c, ((uint64_t)r->track << 32) | r->depth);
    u64(&c, r->count);
    for (uint32_t j = 0; j < r->count; j++) {
      u64(&c, (uint64_t)r->start[j]);
      u64(&c, (uint64_t)r->dur[j]);
      str(&c, s, r->name[j]);
      if (samples) /* a sample's cat is its frame */
        u64(&c, r->cat[j]);
      else
        str(&c, s, r->cat[j]);
      u64(&c, r->src[j]);
      u64(&c, r->flags[j]);
    }
  }
  for (uint32_t i = 0; i < nc; i++) {
    u64(&c, ((uint64_t)cs[i].track << 32) | cs[i].count);
    for (uint32_t j = 0; j < cs[i].count; j++) {
      uint64_t v;
      memcpy(&v, &cs[i].value[j], 8);
      u64(&c, (uint64_t)cs[i].ts[j]);
      u64(&c, v);
    }
  }
  u64(&c, nf);
  for (uint32_t i = 0; i < nf; i++) {
    u64(&c, ((uint64_t)fs[i].from_row << 32) | fs[i].from_index);
    u64(&c, ((uint64_t)fs[i].to_row << 32) | fs[i].to_index);
  }
  const st_frames *fr = st_trace_frames(t);
  uint32_t nfr = st_frames_count(fr);
  u64(&c, nfr);
  for (uint32_t i = 0; i < nfr; i++) {
    u64(&c, st_frames_parent(fr, i));
    str(&c, s, st_frames_name(fr, i));
  }
  size_t ne = 0;
  const st_end_src *es = st_trace_end_srcs(t, &ne);
  u64(&c, ne);
  for (size_t i = 0; i < ne; i++) {
    u64(&c, es[i].src);
    u64(&c, es[i].end_src);
  }
  size_t nm = 0; /* memory events (issue 34): nothing added without them */
  const st_mem_event *me = st_trace_mem_events(t, &nm);
  if (nm) u64(&c, nm);
  for (size_t i = 0; i < nm; i++) {
    uint64_t a, r;
    memcpy(&a, &me[i].total_alloc, 8);
    memcpy(&r, &me[i].total_reserved, 8);
    u64(&c, (uint64_t)me[i].ts_abs_ns);
    u64(&c, (uint64_t)me[i].bytes);
    u64(&c, me[i].addr);
    u64(&c, (uint64_t)me[i].pid);
    u64(&c, (uint64_t)me[i].tid);
    u64(&c, (uint64_t)me[i].dev_pid);
    u64(&c, a);
    u64(&c, r);
    u64(&c, me[i].src);
    u64(&c, ((uint64_t)(uint32_t)me[i].device_type << 32) | (uint32_t)me[i].device_id);
    if (me[i].op == ST_STR_NONE)
      u64(&c, UINT64_MAX);
    else
      str(&c, s, me[i].op);
  }
  size_t nb = 0; /* memory blocks (issue 34): nothing added without them */
  const st_block *bl = st_trace_blocks(t, &nb);
  if (nb) u64(&c, nb);
  for (size_t i = 0; i < nb; i++) {
    u64(&c, bl[i].src);
    u64(&c, bl[i].y);
    u64(&c, bl[i].size);
    u64(&c, bl[i].addr);
  }
  st_sha256_final(&c, out);
}
