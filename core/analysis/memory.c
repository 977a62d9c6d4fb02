/* memory.c: per device peak, live set at the peak, unfreed allocations and
 * top allocating ops from the models' memory events (see memory.h). */
#include "memory.h"

#include "bisect.h"
#include "merge_sort.h"

#include "u64map.h"

#include <math.h>
#include <stdio.h> /* snprintf only */
#include <string.h>

struct st_memory {
  st_alloc alloc;
  st_mem_device *devs;
  uint32_t ndevs, cdevs;
  st_mem_group *groups; /* every device's live, unfreed and top groups */
  size_t ngroups, cgroups;
};

/* one allocation while sweeping */
typedef struct arec {
  int64_t bytes;
  uint32_t op;
  uint64_t at, freed_at; /* positions in the device's events; freed_at UINT64_MAX: never */
} arec;

/* (pid, tid) -> the thread's slice track, cached */
typedef struct thr {
  int64_t pid, tid;
  uint32_t track; /* UINT32_MAX: none */
} thr;

static uint32_t slice_track(const st_trace *t, int64_t pid, int64_t tid) {
  uint32_t np, nt;
  const st_process *ps = st_trace_processes(t, &np);
  const st_track *ts = st_trace_tracks(t, &nt);
  for (uint32_t p = 0; p < np; p++) {
    if (ps[p].pid != pid) continue;
    for (uint32_t k = ps[p].first_track; k < ps[p].first_track + ps[p].track_count && k < nt; k++)
      if (ts[k].kind == ST_TRACK_SLICES && !ts[k].overflow && ts[k].key == tid) return k;
  }
  return UINT32_MAX;
}

static uint32_t process_of(const st_trace *t, int64_t pid) {
  uint32_t np;
  const st_process *ps = st_trace_processes(t, &np);
  for (uint32_t p = 0; p < np; p++)
    if (ps[p].pid == pid) return p;
  return UINT32_MAX;
}

/* the innermost slice of track tr enclosing time x: its name, or "" */
static uint32_t op_at(const st_trace *t, uint32_t tr, int64_t x) {
  uint32_t nt, nr;
  const st_track *ts = st_trace_tracks(t, &nt);
  const st_row *rows = st_trace_rows(t, &nr);
  if (tr >= nt) return ST_STR_EMPTY;
  for (uint32_t k = ts[tr].row_count; k-- > 0;) {
    uint32_t r = ts[tr].first_row + k;
    if (r >= nr) continue;
    const st_row *row = &rows[r];
    uint32_t lo = (uint32_t)st_upper_bound_i64(row->start, row->count, x); /* first start > x */
    if (lo && row->start[lo - 1] + row->dur[lo - 1] >= x && !(row->flags[lo - 1] & ST_EV_INSTANT))
      return row->name[lo - 1];
  }
  return ST_STR_EMPTY;
}

static int group_before(const st_strtab *strs, const st_mem_group *x, const st_mem_group *y) {
  if (x->bytes != y->bytes) return x->bytes > y->bytes;
  size_t la, lb;
  const char *sa = st_strtab_get(strs, x->op, &la), *sb = st_strtab_get(strs, y->op, &lb);
  int c = memcmp(sa, sb, la < lb ? la : lb);
  return c ? c < 0 : la < lb;
}

/* bytes descending, then name (stable) */
ST_DEFINE_MERGE_SORT_CTX(sort_groups, st_mem_group, const st_strtab *, group_before)

/* groups the allocations recs[i] that keep(i) by op, appends them sorted
 * (at most limit) to m->groups; returns the first group's index */
typedef struct sweep {
  arec *recs;
  size_t nrecs, crecs;
  st_mem_group *tmp;
  size_t ctmp;
  st_u64map byop;
} sweep;

static int add_groups(st_memory *m, sweep *s, const st_strtab *strs, int kind, uint64_t peak_at,
                      uint32_t limit, size_t *first, uint32_t *count, int64_t *total,
                      uint64_t *total_n) {
  size_t n = 0;
  st_u64map_clear(&s->byop);
  *total = 0;
  if (total_n) *total_n = 0;
  for (size_t i = 0; i < s->nrecs; i++) {
    const arec *r = &s->recs[i];
    int keep = kind == 0 ? r->at <= peak_at && (r->freed_at == UINT64_MAX || r->freed_at > peak_at)
               : kind == 1 ? r->freed_at == UINT64_MAX
                           : 1;
    if (!keep) continue;
    uint32_t g = st_u64map_get(&s->byop, r->op);
    if (g == ST_U64MAP_NONE) {
      if (!st_grow(&m->alloc, (void **)&s->tmp, &s->ctmp, n + 1, sizeof *s->tmp) ||
          !st_u64map_put(&s->byop, &m->alloc, r->op, (uint32_t)n))
        return 0;
      s->tmp[n] = (st_mem_group){r->op, 0, 0};
      g = (uint32_t)n++;
    }
    s->tmp[g].count++;
    s->tmp[g].bytes = st_sat_add(s->tmp[g].bytes, r->bytes);
    *total = st_sat_add(*total, r->bytes);
    if (total_n) (*total_n)++;
  }
  if (n > 1) {
    st_mem_group *t2 = st_malloc(&m->alloc, n * sizeof *t2);
    if (!t2) return 0;
    sort_groups(strs, s->tmp, t2, n);
    st_free(&m->alloc, t2);
  }
  if (n > limit) n = limit;
  if (!st_grow(&m->alloc, (void **)&m->groups, &m->cgroups, m->ngroups + n, sizeof *m->groups))
    return 0;
  if (n) memcpy(m->groups + m->ngroups, s->tmp, n * sizeof *s->tmp);
  *first = m->ngroups;
  *count = (uint32_t)n;
  m->ngroups += n;
  return 1;
}

static int same_dev(const st_mem_event *e, const st_mem_device *d) {
  return e->dev_pid == d->dev_pid && e->device_type == d->device_type &&
         e->device_id == d->device_id;
}

/* one part (a plain trace) of trace k */
static int analyze_part(st_memory *m, sweep *s, uint32_t k, const st_trace *t) {
  size_t ne;
  const st_mem_event *ev = st_trace_mem_events(t, &ne);
  if (!ne) return 1;
  const st_strtab *strs = st_trace_strings(t);
  int64_t origin = st_trace_origin_ns(t);
  uint32_t dev_first = m->ndevs;
  thr *thrs = NULL;
  size_t nthr = 0, cthr = 0;
  uint32_t *ops = st_malloc(&m->alloc, ne * sizeof *ops);
  int ok = ops != NULL;
  /* each event's op; the devices */
  for (size_t i = 0; ok && i < ne; i++) {
    const st_mem_event *e = &ev[i];
    size_t j = 0;
    while (j < nthr && !(thrs[j].pid == e->pid && thrs[j].tid == e->tid)) j++;
    if (j == nthr) {
      if (!st_grow(&m->alloc, (void **)&thrs, &cthr, nthr + 1, sizeof *thrs)) {
        ok = 0;
        break;
      }
      thrs[nthr++] = (thr){e->pid, e->tid, slice_track(t, e->pid, e->tid)};
    }
    int64_t x = st_sat_sub(e->ts_abs_ns, origin);
    ops[i] = e->op != ST_STR_NONE          ? e->op
             : thrs[j].track == UINT32_MAX ? ST_STR_EMPTY
                                           : op_at(t, thrs[j].track, x);
    uint32_t d = dev_first;
    while (d < m->ndevs && !same_dev(e, &m->devs[d])) d++;
    if (d == m->ndevs) {
      size_t cd = m->cdevs;
      if (!st_grow(&m->alloc, (void **)&m->devs, &cd, (size_t)m->ndevs + 1, sizeof *m->devs)) {
        ok = 0;
        break;
      }
      m->cdevs = (uint32_t)cd;
      m->devs[m->ndevs++] = (st_mem_device){.trace = k,
                                            .process = process_of(t, e->dev_pid),
                                            .device_type = e->device_type,
                                            .device_id = e->device_id,
                                            .dev_pid = e->dev_pid,
                                            .reserved_peak_bytes = -1};
    }
    st_mem_device *dv = &m->devs[d];
    if (!isnan(e->total_alloc)) dv->from_total = 1;
  }
  /* each device: a sweep in time order */
  for (uint32_t d = dev_first; ok && d < m->ndevs; d++) {
    st_mem_device *dv = &m->devs[d];
    st_u64map byaddr = {0};
    s->nrecs = 0;
    double cur = 0, peak = -INFINITY;
    uint64_t pos = 0, peak_at = 0;
    for (size_t i = 0; ok && i < ne; i++) {
      const st_mem_event *e = &ev[i];
      if (!same_dev(e, dv)) continue;
      dv->events++;
      if (e->bytes > 0) {
        if (!st_grow(&m->alloc, (void **)&s->recs, &s->crecs, s->nrecs + 1, sizeof *s->recs) ||
            s->nrecs >= ST_U64MAP_NONE) {
          ok = 0;
          break;
        }
        uint32_t old = st_u64map_get(&byaddr, e->addr);
        if (old != ST_U64MAP_NONE && s->recs[old].freed_at == UINT64_MAX)
          s->recs[old].freed_at = pos; /* the address was given again: it was freed */
        s->recs[s->nrecs] = (arec){e->bytes, ops[i], pos, UINT64_MAX};
        if (!st_u64map_put(&byaddr, &m->alloc, e->addr, (uint32_t)s->nrecs)) ok = 0;
        s->nrecs++;
        dv->allocs++;
        dv->alloc_bytes = st_sat_add(dv->alloc_bytes, e->bytes);
      } else if (e->bytes < 0) {
        uint32_t old = st_u64map_get(&byaddr, e->addr);
        if (old != ST_U64MAP_NONE && s->recs[old].freed_at == UINT64_MAX)
          s->recs[old].freed_at = pos;
        dv->frees++;
      }
      if (dv->from_total) {
        if (!isnan(e->total_alloc)) cur = e->total_alloc;
      } else {
        cur += (double)e->bytes;
      }
      if (!isnan(e->total_reserved) && e->total_reserved > (double)dv->reserved_peak_bytes)
        dv->reserved_peak_bytes =
            e->total_reserved >= 9.2e18 ? INT64_MAX : (int64_t)e->total_reserved;
      if (cur > peak) {
        peak = cur;
        peak_at = pos;
        dv->peak_ns = st_sat_sub(e->ts_abs_ns, origin);
      }
      pos++;
    }
    st_u64map_free(&byaddr, &m->alloc);
    if (!ok) break;
    dv->peak_bytes = peak >= 9.2e18 ? INT64_MAX : peak <= -9.2e18 ? INT64_MIN : (int64_t)peak;
    size_t f1 = 0, f2 = 0, f3 = 0;
    int64_t unused;
    ok = add_groups(m, s, strs, 0, peak_at, UINT32_MAX, &f1, &dv->nlive, &dv->live_bytes, NULL) &&
         add_groups(m, s, strs, 1, 0, UINT32_MAX, &f2, &dv->nunfreed, &dv->unfreed_bytes,
                    &dv->unfreed_count) &&
         add_groups(m, s, strs, 2, 0, ST_MEM_TOP_OPS, &f3, &dv->ntop, &unused, NULL);
    /* offsets for now: pointers once m->groups stops moving */
    dv->live = (const st_mem_group *)(uintptr_t)f1;
    dv->unfreed = (const st_mem_group *)(uintptr_t)f2;
    dv->top = (const st_mem_group *)(uintptr_t)f3;
  }
  st_free(&m->alloc, thrs);
  st_free(&m->alloc, ops);
  return ok;
}

st_memory *st_memory_analyze(const st_alloc *alloc, const st_trace *const *traces, uint32_t n,
                             st_error *err) {
  st_alloc al = alloc ? *alloc : (st_alloc){0};
  if (!traces && n) {
    st_error_set(err, ST_ERR_ARG, 0, "memory: no traces");
    return NULL;
  }
  st_memory *m = st_calloc(&al, 1, sizeof *m);
  if (!m) {
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  m->alloc = al;
  sweep s = {0};
  int ok = 1;
  for (uint32_t k = 0; ok && k < n; k++) {
    if (!traces[k]) continue;
    uint32_t np;
    const st_trace_part *parts = st_trace_parts(traces[k], &np);
    if (!parts) {
      ok = analyze_part(m, &s, k, traces[k]);
      continue;
    }
    for (uint32_t p = 0; ok && p < np; p++) {
      uint32_t d0 = m->ndevs;
      ok = analyze_part(m, &s, k, parts[p].trace);
      for (uint32_t d = d0; ok && d < m->ndevs; d++) /* the merged trace's process */
        if (m->devs[d].process != UINT32_MAX) m->devs[d].process += parts[p].process_base;
    }
  }
  st_free(&al, s.recs);
  st_free(&al, s.tmp);
  st_u64map_free(&s.byop, &al);
  if (!ok) {
    st_memory_destroy(m);
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  for (uint32_t d = 0; d < m->ndevs; d++) {
    st_mem_device *dv = &m->devs[d];
    dv->live = m->groups ? m->groups + (uintptr_t)dv->live : NULL;
    dv->unfreed = m->groups ? m->groups + (uintptr_t)dv->unfreed : NULL;
    dv->top = m->groups ? m->groups + (uintptr_t)dv->top : NULL;
  }
  return m;
}

void st_memory_destroy(st_memory *m) {
  if (!m) return;
  st_alloc a = m->alloc;
  st_free(&a, m->devs);
  st_free(&a, m->groups);
  st_free(&a, m);
}

const st_mem_device *st_memory_devices(const st_memory *m, uint32_t *count) {
  if (count) *count = m ? m->ndevs : 0;
  return m ? m->devs : NULL;
}

void st_memory_device_name(const st_mem_device *d, char *buf, size_t cap) {
  if (!cap) return;
  if (d->device_type <= 0)
    snprintf(buf, cap, "CPU");
  else if (d->device_type == 1)
    snprintf(buf, cap, "GPU %d", (int)d->device_id);
  else
    snprintf(buf, cap, "device %d:%d", (int)d->device_type, (int)d->device_id);
}

static void groups_json(st_jout *o, const st_strtab *strs, const st_mem_group *g, uint32_t n) {
  st_jout_lit(o, "[");
  for (uint32_t i = 0; i < n; i++) {
    size_t l;
    const char *s = st_strtab_get(strs, g[i].op, &l);
    st_jout_lit(o, i ? ",{\"op\":" : "{\"op\":");
    st_jout_str(o, s, l);
    st_jout_lit(o, ",\"bytes\":");
    st_jout_i64(o, g[i].bytes);
    st_jout_lit(o, ",\"count\":");
    st_jout_u64(o, g[i].count);
    st_jout_lit(o, "}");
  }
  st_jout_lit(o, "]");
}

void st_memory_json(st_jout *o, const st_memory *m, const st_trace *const *traces,
                    const int64_t *shift_ns) {
  st_jout_lit(o, "[");
  for (uint32_t d = 0; m && d < m->ndevs; d++) {
    const st_mem_device *dv = &m->devs[d];
    const st_strtab *strs = st_trace_strings(traces[dv->trace]);
    char name[48];
    st_memory_device_name(dv, name, sizeof name);
    st_jout_lit(o, d ? ",{\"trace\":" : "{\"trace\":");
    st_jout_u64(o, dv->trace);
    st_jout_lit(o, ",\"device\":");
    st_jout_str(o, name, strlen(name));
    st_jout_lit(o, ",\"process\":");
    if (dv->process == UINT32_MAX)
      st_jout_lit(o, "null");
    else
      st_jout_u64(o, dv->process);
    st_jout_lit(o, dv->from_total ? ",\"from\":\"total_allocated\"" : ",\"from\":\"bytes_sum\"");
    st_jout_lit(o, ",\"events\":");
    st_jout_u64(o, dv->events);
    st_jout_lit(o, ",\"allocs\":");
    st_jout_u64(o, dv->allocs);
    st_jout_lit(o, ",\"frees\":");
    st_jout_u64(o, dv->frees);
    st_jout_lit(o, ",\"alloc_bytes\":");
    st_jout_i64(o, dv->alloc_bytes);
    st_jout_lit(o, ",\"peak_bytes\":");
    st_jout_i64(o, dv->peak_bytes);
    st_jout_lit(o, ",\"peak_us\":");
    st_jout_us(o, dv->peak_ns - (shift_ns ? shift_ns[dv->trace] : 0));
    st_jout_lit(o, ",\"reserved_peak_bytes\":");
    if (dv->reserved_peak_bytes < 0)
      st_jout_lit(o, "null");
    else
      st_jout_i64(o, dv->reserved_peak_bytes);
    st_jout_lit(o, ",\"live_at_peak\":");
    groups_json(o, strs, dv->live, dv->nlive);
    st_jout_lit(o, ",\"live_bytes\":");
    st_jout_i64(o, dv->live_bytes);
    st_jout_lit(o, ",\"unfreed_bytes\":");
    st_jout_i64(o, dv->unfreed_bytes);
    st_jout_lit(o, ",\"unfreed_count\":");
    st_jout_u64(o, dv->unfreed_count);
    st_jout_lit(o, ",\"still_live_at_end\":");
    groups_json(o, strs, dv->unfreed, dv->nunfreed);
    st_jout_lit(o, ",\"top_alloc_ops\":");
    groups_json(o, strs, dv->top, dv->ntop);
    st_jout_lit(o, "}");
  }
  st_jout_lit(o, "]");
}
