/* perfetto_common.c: what every part of the Perfetto importer needs, at
 * the bottom of its call order (perfetto_internal.h): errors, interning,
 * the "not shown" count, the registry of threads and processes, and
 * counters. (The two helpers called per event, pf_to_trace and pf_emit, are
 * inline in perfetto_internal.h.)
 *
 *   - Registry: a thread (tid) has a process (tgid, once known) and a name;
 *     a process (pid) has a name. Names come with a priority, as
 *     trace_processor ranks them: ftrace comms (sched_switch, task_newtask,
 *     task_rename) < ProcessTree < descriptors (TrackDescriptor,
 *     Process/ThreadDescriptor); a name replaces one of lower or equal
 *     priority. Builder processes and thread tracks are made on first use;
 *     perfetto_system.c names and orders them at the end.
 *   - Counters go to a process's section or a synthetic one: "CPUs"
 *     (PF_CPU_PID), "System" (PF_SYS_PID), "Power" (PF_POWER_PID),
 *     "Network" (PF_NET_PID), placed first in that order.
 *
 * Contents
 *   1. errors, interning, what is not shown
 *   2. registry: threads, processes, their builder processes and tracks
 *   3. counters: counter tracks, samples, CPU counters
 */
#include "perfetto_internal.h"

#include <stdio.h>
#include <string.h>

/* ==== 1. errors, interning, what is not shown ============================= */

st_code pf_nomem(st_perfetto_importer *im, uint64_t at, st_error *err) {
  im->nomem = 1;
  return st_error_set(err, ST_ERR_NOMEM, at, "out of memory");
}

uint32_t pf_intern(st_perfetto_importer *im, const void *s, size_t n) {
  uint32_t id = st_strtab_intern(im->strs, (const char *)s, n);
  if (id == ST_STR_NONE) {
    im->nomem = 1;
    return ST_STR_EMPTY;
  }
  return id;
}

int32_t pf_clamp32(int64_t v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

void pf_not_shown(st_perfetto_importer *im, uint32_t field, uint64_t at) {
  st_stats_warn(im->stats, "perfetto_packets_not_shown", at);
  im->skipped_total++;
  for (uint32_t i = 0; i < im->nskips; i++)
    if (im->skips[i].field == field) {
      im->skips[i].count++;
      return;
    }
  if (im->nskips < MAX_SKIPPED) im->skips[im->nskips++] = (skipped){field, 1};
}

/* ==== 2. registry ======================================================== */

pthr *pf_thread(st_perfetto_importer *im, int64_t tid) {
  uint32_t i = st_u64map_get(&im->thr_map, (uint64_t)tid);
  if (i != ST_U64MAP_NONE) return &im->thr[i];
  if (im->nthr == im->cap_thr) {
    void *p = im->thr;
    if (!st_grow32(&im->alloc, &p, &im->cap_thr, im->nthr + 1, sizeof *im->thr, 64)) {
      im->nomem = 1;
      return NULL;
    }
    im->thr = p;
  }
  pthr *t = &im->thr[im->nthr];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  t->tgid = -1;
  t->slice_bt = t->state_bt = UINT32_MAX;
  if (!st_u64map_put(&im->thr_map, &im->alloc, (uint64_t)tid, im->nthr)) {
    im->nomem = 1;
    return NULL;
  }
  im->nthr++;
  return t;
}

pproc *pf_process(st_perfetto_importer *im, int64_t pid) {
  uint32_t i = st_u64map_get(&im->proc_map, (uint64_t)pid);
  if (i != ST_U64MAP_NONE) return &im->procs[i];
  if (im->nprocs == im->cap_procs) {
    void *p = im->procs;
    if (!st_grow32(&im->alloc, &p, &im->cap_procs, im->nprocs + 1, sizeof *im->procs, 64)) {
      im->nomem = 1;
      return NULL;
    }
    im->procs = p;
  }
  pproc *p = &im->procs[im->nprocs];
  *p = (pproc){pid, ST_STR_EMPTY, NAME_NONE, UINT32_MAX};
  if (!st_u64map_put(&im->proc_map, &im->alloc, (uint64_t)pid, im->nprocs)) {
    im->nomem = 1;
    return NULL;
  }
  im->nprocs++;
  return p;
}

void pf_thread_name(st_perfetto_importer *im, int64_t tid, uint32_t name, uint8_t prio) {
  pthr *t = pf_thread(im, tid);
  if (t && name != ST_STR_EMPTY && prio >= t->name_prio) t->name = name, t->name_prio = prio;
}

void pf_thread_tgid(st_perfetto_importer *im, int64_t tid, int64_t tgid) {
  pthr *t = pf_thread(im, tid);
  if (t && t->tgid < 0 && tgid >= 0) t->tgid = tgid;
}

void pf_process_name(st_perfetto_importer *im, int64_t pid, uint32_t name, uint8_t prio) {
  pproc *p = pf_process(im, pid);
  if (p && name != ST_STR_EMPTY && prio >= p->name_prio) p->name = name, p->name_prio = prio;
}

uint32_t pf_builder_process(st_perfetto_importer *im, int64_t pid) {
  pproc *pp = pf_process(im, pid);
  if (!pp) return UINT32_MAX;
  if (pp->bproc != UINT32_MAX) return pp->bproc;
  uint32_t p = st_builder_process(im->b, pid);
  if (p == UINT32_MAX) {
    im->nomem = 1;
    return p;
  }
  pp = pf_process(im, pid);
  pp->bproc = p;
  if (pid >= 0 && !st_seen_test_set(&im->alloc, &im->proc_seen, p, &im->nomem))
    im->stats->processes++;
  return p;
}

uint32_t pf_thread_track(st_perfetto_importer *im, pthr *t, int states) {
  uint32_t *slot = states ? &t->state_bt : &t->slice_bt;
  if (*slot != UINT32_MAX) return *slot;
  int64_t tid = t->tid, pid = t->tgid >= 0 ? t->tgid : t->tid;
  uint32_t p = pf_builder_process(im, pid); /* may move im->thr: t is re-found below */
  if (p == UINT32_MAX) return UINT32_MAX;
  int64_t key = states ? (int64_t)((uint64_t)tid + (1ull << 40)) : tid;
  uint32_t bt = st_builder_track(im->b, p, ST_TRACK_SLICES, key, ST_STR_EMPTY);
  if (bt == UINT32_MAX) {
    im->nomem = 1;
    return bt;
  }
  t = pf_thread(im, tid);
  if (!t) return UINT32_MAX;
  if (states)
    t->state_bt = bt;
  else
    t->slice_bt = bt;
  if (!st_seen_test_set(&im->alloc, &im->track_seen, bt, &im->nomem)) im->stats->threads++;
  return bt;
}

/* ==== 3. counters ======================================================== */

uint32_t pf_section(st_perfetto_importer *im, int64_t pid) {
  static const char *const names[] = {"CPUs", "System", "Power", "Network"};
  int i = pid == PF_CPU_PID ? 0 : pid == PF_SYS_PID ? 1 : pid == PF_POWER_PID ? 2 : 3;
  uint32_t p = st_builder_process(im->b, pid);
  if (p == UINT32_MAX) {
    im->nomem = 1;
    return p;
  }
  st_builder_process_name(im->b, p, pf_intern(im, names[i], strlen(names[i])));
  st_builder_process_sort(im->b, p, INT32_MIN + i);
  return p;
}

uint32_t pf_counter_track(st_perfetto_importer *im, int64_t pid, const char *name, size_t n,
                          int64_t key) {
  uint32_t p = pid == PF_CPU_PID || pid == PF_SYS_PID || pid == PF_POWER_PID || pid == PF_NET_PID
                   ? pf_section(im, pid)
                   : pf_builder_process(im, pid);
  if (p == UINT32_MAX) {
    im->nomem = 1;
    return p;
  }
  uint32_t bt = st_builder_track(im->b, p, ST_TRACK_COUNTER, key, pf_intern(im, name, n));
  if (bt == UINT32_MAX) im->nomem = 1;
  return bt;
}

void pf_counter(st_perfetto_importer *im, uint32_t bt, int64_t ts, double v, uint64_t src) {
  if (bt == UINT32_MAX) return;
  st_code c = st_builder_counter(im->b, bt, ts, v);
  if (c == ST_ERR_NOMEM) {
    im->nomem = 1;
  } else if (c != ST_OK) {
    st_stats_warn(im->stats, "perfetto_counter_rejected", src);
  } else {
    im->stats->counter_samples++;
    im->shown++;
    st_stats_time(im->stats, ts, ts);
  }
}

void pf_cpu_counter(st_perfetto_importer *im, uint32_t cpu, int idle, int64_t ts, double v,
                    uint64_t src) {
  if (cpu >= ST_PERFETTO_MAX_CPUS) {
    st_stats_warn(im->stats, "perfetto_cpu_out_of_range", src);
    return;
  }
  char tmp[48];
  int n = snprintf(tmp, sizeof tmp, "CPU %u %s", cpu, idle ? "idle" : "frequency");
  int64_t key = ((int64_t)(idle ? 2 : 1) << 20) + cpu;
  uint32_t bt = pf_counter_track(im, PF_CPU_PID, tmp, (size_t)n, key);
  if (bt != UINT32_MAX) st_builder_track_sort(im->b, bt, (int32_t)key);
  pf_counter(im, bt, ts, v, src);
}
